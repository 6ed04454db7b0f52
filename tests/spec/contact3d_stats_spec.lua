-- contact3d_stats_spec.lua -- a dim = 3 world's contacts in the step's figures:
-- sim:info().ncontacts / nactive count the 3D contacts, sim:stats().max_overlap
-- is the largest overlap -g_N of a 3D contact over the run (at q_k, as the
-- planar one), and sim:stats().memory_bytes holds the 3D contact store.
local rc = require "ricochet"
local helper = require "spec_helper"

-- three spheres falling on a plane and on each other (e = 0, mu = 0.3)
local function pile()
    local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.3 } }
    w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
    local I = 0.4 * 0.1 * 0.1
    for k, q in ipairs({ { 0, 0, 0.3 }, { 0.21, 0, 0.3 }, { 0.1, 0.01, 0.6 } }) do
        w:body{ mass = 1, inertia = { I, I, I }, q = { q[1], q[2], q[3], 1, 0, 0, 0 },
                v = { 0, 0, -1 - k, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
    end
    return w
end

describe("3D contacts in sim:info() and sim:stats()", function()
    it("counts the 3D contacts and active ones every step, and keeps the largest overlap", function()
        local w = pile()
        local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 2e-3, solver = { "nsgs", tol = 1e-10, max_iter = 500 } }
        local worst, steps_with, most = 0, 0, 0
        sim:after_step(function(s)
            local cs, nact = w:contacts3(), 0
            for _, c in ipairs(cs) do
                if c.active then nact = nact + 1 end
                worst = math.max(worst, -c.gN)
            end
            local info = s:info()
            assert.are.equal(#cs, info.ncontacts)
            assert.are.equal(nact, info.nactive)
            if #cs > 0 then steps_with = steps_with + 1 end
            most = math.max(most, #cs)
        end)
        sim:run{ T = 1 }
        assert.is_true(steps_with > 100 and most >= 4, ("%d steps with contacts, at most %d"):format(steps_with, most))
        local st = sim:stats()
        assert.is_true(worst > 1e-4, "overlap " .. worst)   -- h |v| at the impacts: the check is not vacuous
        assert.are.equal(worst, st.max_overlap)
        assert.is_true(st.t_max_overlap > 0 and st.contact_max_overlap >= 0)
    end)

    it("counts the 3D contact store in memory_bytes", function()
        local w = pile()
        local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 2e-3, solver = { "nsgs", tol = 1e-10, max_iter = 500 } }
        local before = sim:stats().memory_bytes
        sim:run{ T = 1 }
        local n = #w:contacts3()
        assert.is_true(n >= 2, n .. " contacts")
        -- each contact holds its rows (4 x 3 x 6 doubles) in this step's array; the last step's keeps
        -- key, id, t1 and p (64 bytes)
        local grown = sim:stats().memory_bytes - before
        assert.is_true(grown >= n * (4 * 18 * 8 + 64), grown .. " bytes")
    end)

    it("reports the step's work memory at its peak, part of memory_bytes", function()
        local w = pile()
        local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 2e-3, solver = { "nsgs", tol = 1e-10, max_iter = 500 } }
        sim:run{ T = 0.5 }
        local st = sim:stats()
        assert.is_true(st.work_peak_bytes > 0, st.work_peak_bytes .. " bytes")
        assert.is_true(st.work_peak_bytes < st.memory_bytes, st.work_peak_bytes .. " of " .. st.memory_bytes)
        sim:run{ T = 0.6 }
        assert.is_true(sim:stats().work_peak_bytes >= st.work_peak_bytes)   -- the most held by any step so far
    end)

    -- two spheres resting one on the other on the plane, one sweep allowed: the step is not
    -- converged and the solver names its worst 3D contact, as the planar one does
    local function stack(on_fail)
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.3 } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        local I = 0.4 * 0.1 * 0.1
        w:body{ name = "lower", mass = 1, inertia = { I, I, I }, q = { 0, 0, 0.1, 1, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
        w:body{ name = "upper", mass = 1, inertia = { I, I, I }, q = { 0.02, 0, 0.298, 1, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
        local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3,
                                  solver = { "nsgs", tol = 1e-14, max_iter = 1, on_fail = on_fail } }
        return w, sim
    end
    -- Newton's law, e = 0: no shift
    local function natural_map(c, mu) return helper.natural_map3(c.p, c.u, mu) end

    it("names the worst 3D contact (id, bodies, residual) of a step that did not converge", function()
        local w, sim = stack("warn")
        sim:step()
        local info = sim:info()
        assert.is_false(info.converged)
        local worst, wres, n = nil, -1, 0
        for _, c in ipairs(w:contacts3()) do
            if c.active then
                n = n + 1
                local r = natural_map(c, 0.3)
                if r > wres then worst, wres = c, r end
            end
        end
        assert.are.equal(2, n)
        assert.is_true(wres > 1e-6, "residual " .. wres)   -- one sweep leaves a residual: the check is not vacuous
        assert.are.equal(worst.id, info.worst_contact)
        local names = { [-1] = "ground" }
        for _, b in ipairs(w:bodies()) do names[b.id] = b.name end
        local w2, sim2 = stack("error")
        local ok, err = pcall(sim2.step, sim2)
        assert.is_false(ok)
        local msg = tostring(err)
        local id, a, b, feature, res = msg:match("worst contact (%d+) %((.-) / (.-), feature (%-?%d+), residual ([%d.e+-]+)%)")
        assert.truthy(id, msg)
        assert.matches("solver did not converge at t = 0.001 (step 1): residual ", msg, 1, true)
        assert.are.equal(worst.id, tonumber(id))
        assert.are.equal(names[worst.body_a], a)
        assert.are.equal(names[worst.body_b], b)
        assert.is_true(math.abs(tonumber(res) - wres) <= 1e-3 * wres, res .. " against " .. wres)
        assert.are.equal(2, #w2:contacts3())
    end)
end)
