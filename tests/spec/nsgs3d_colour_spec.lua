-- nsgs3d_colour_spec.lua -- NSGS's colour order on the 3D contacts of a dim = 3 world and
-- its sweeps on threads (src/nonsmooth/nsgs3.c, nsgs3_order.c, colour.c): two threads step a
-- pile of 1 536 spheres exactly as one thread does (positions, velocities, impulses and
-- one-contact solves bit for bit, with quiet contacts skipped too), the pile's colours large
-- enough to be shared (solver threads and the team's steps counted); and the coloured sweeps
-- hold the pile as the index order does: every step converged, impulses in the cone, overlaps
-- as small. (tests/c/test_nsgs3_colour.c checks the colouring itself and shares every colour.)
local rc = require "ricochet"
local helper = require "spec_helper"

local mu = 0.3

-- n x n columns of `layers` spheres of radius 0.09 .. 0.1, 1 mm apart, spacing 0.21 in a box
-- (floor and four walls), random horizontal velocities: contacts from the first steps
local function columns(n, layers, solver)
    math.randomseed(5)
    local w = helper.box_world(rc, 0.21 * n, 9.81, mu)
    for j = 0, n - 1 do
        for i = 0, n - 1 do
            local z, rprev = 0.0, 0.0
            for _ = 1, layers do
                local r = 0.1 * (0.9 + 0.1 * math.random())
                z = z + rprev + r + 0.001
                rprev = r
                local m = 4 / 3 * math.pi * r ^ 3
                local I = 0.4 * m * r * r
                w:body{ mass = m, inertia = { I, I, I }, q = { 0.21 * (i + 0.5), 0.21 * (j + 0.5), z, 1, 0, 0, 0 },
                        v = { 0.4 * (math.random() - 0.5), 0.4 * (math.random() - 0.5), 0, 0, 0, 0 },
                        shape = rc.sphere{ radius = r } }
            end
        end
    end
    local opts = { "nsgs", tol = 1e-4, max_iter = 200, on_fail = "warn" }
    for k, v in pairs(solver) do opts[k] = v end
    return w, w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = opts }
end

local function state(w)
    local s = {}
    for _, b in ipairs(w:bodies()) do
        for _, x in ipairs(b:q()) do s[#s + 1] = x end
        for _, x in ipairs(b:v()) do s[#s + 1] = x end
    end
    for _, c in ipairs(w:contacts3()) do
        if c.active then for _, x in ipairs(c.p) do s[#s + 1] = x end end
    end
    return s
end

local function first_difference(a, b)
    if #a ~= #b then return ("%d numbers against %d"):format(#a, #b) end
    for i = 1, #a do
        if a[i] ~= b[i] then return ("number %d: %.17g against %.17g"):format(i, a[i], b[i]) end
    end
end

describe("NSGS on 3D contacts, order colour", function()
    for _, extra in ipairs{ {}, { skip_quiet = 5 } } do
        it("two threads step the pile as one, bit for bit" .. (extra.skip_quiet and " (skip_quiet = 5)" or ""), function()
            local runs = {}
            for _, threads in ipairs{ 1, 2 } do
                local solver = { order = "colour", threads = threads }
                for k, v in pairs(extra) do solver[k] = v end
                local w, sim = columns(16, 6, solver)
                local sweeps = 0
                sim:after_step(function(s) sweeps = sweeps + s:info().iterations end)
                sim:run{ T = 0.1 }
                runs[threads] = { state = state(w), stats = sim:stats(), sweeps = sweeps }
            end
            local one, two = runs[1], runs[2]
            assert.is_nil(first_difference(one.state, two.state))
            assert.are.equal(one.stats.local_solves, two.stats.local_solves)
            assert.are.equal(one.sweeps, two.sweeps)
            assert.is_true(one.sweeps > 1000, one.sweeps .. " sweeps")   -- the solver had work to do
            assert.are.equal(0, one.stats.parallel_steps)
            -- colours of 512 contacts and more were shared (adaptive threads: at least the team's
            -- first sweeps of a step, however loaded the machine)
            if rc.openmp() then assert.is_true(two.stats.parallel_steps > 0, "no step on the team") end
        end)
    end

    it("holds the pile as the index order does: converged, in the cone, overlaps as small", function()
        local out = {}
        for _, order in ipairs{ "fixed", "colour" } do
            local w, sim = columns(16, 6, { order = order, threads = order == "colour" and 2 or nil })
            local bad, active, capped = {}, 0, 0
            sim:after_step(function(s)
                local info = s:info()
                if not info.converged then capped = capped + 1 end
                for _, c in ipairs(w:contacts3()) do
                    if c.active then
                        active = active + 1
                        local pN, pT = c.p[1], math.sqrt(c.p[2] ^ 2 + c.p[3] ^ 2)
                        if pN < 0 or pT > mu * pN * (1 + 1e-12) + 1e-15 then bad[#bad + 1] = "outside the cone: contact " .. c.id end
                    end
                end
            end)
            sim:run{ T = 0.1 }
            local st = sim:stats()
            local z = 0
            for _, b in ipairs(w:bodies()) do z = z + b:q()[3] end
            out[order] = { bad = bad, active = active, capped = capped, overlap = st.max_overlap, z = z / #w:bodies() }
        end
        local fixed, colour = out.fixed, out.colour
        assert.are.same({}, colour.bad)
        assert.are.equal(0, colour.capped)
        assert.are.equal(0, fixed.capped)
        assert.is_true(colour.active > 100000, colour.active .. " active contacts over the run")
        print(("  largest overlap %.3g (colour) against %.3g (fixed); mean height %.6f against %.6f"):format(
            colour.overlap, fixed.overlap, colour.z, fixed.z))
        assert.is_true(colour.overlap < 1e-3, "overlap " .. colour.overlap)   -- 1 % of a radius
        assert.is_true(colour.overlap < 2 * fixed.overlap + 1e-5, colour.overlap .. " against " .. fixed.overlap)
        assert.near(fixed.z, colour.z, 1e-3)
    end)
end)
