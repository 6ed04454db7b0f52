-- nsgs3d_spec.lua -- the NSGS solver of 3D contacts (src/nonsmooth/nsgs3.c): its
-- sweep orders ("fixed", "position", "top", "colour" on one or two threads), over-relaxation and residual modes all
-- end each step at an admissible solution within the tolerance (the residual pass
-- spaced by the predicted convergence never stops a step early), and a resting
-- column of spheres carries its weight whatever the order.
local rc = require "ricochet"
local helper = require "spec_helper"

local g, mu = 9.81, 0.3

-- n x n x layers spheres of radius 0.1 +- 10 % falling into a box (floor and four walls)
local function pile(n, layers, solver)
    local w = helper.sphere_pile(rc, n, layers, g, mu)
    local opts = { "nsgs", tol = 1e-8, max_iter = 20000 }
    for k, v in pairs(solver) do opts[k] = v end
    return w, w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = opts }
end

describe("NSGS on 3D contacts", function()
    local cases = {
        { order = "fixed" }, { order = "position" }, { order = "top" }, { order = "random" },
        { order = "top", relax = 1.3 }, { residual = "sweep" }, { check_every = 3 },
        { skip_quiet = 5 }, { skip_quiet = 50, order = "top" },
        { accelerate = "anderson", depth = 5 }, { accelerate = "anderson", depth = 3, order = "top" },
        { order = "colour" }, { order = "colour", threads = 2 }, { order = "colour", skip_quiet = 5 },
        { order = "colour", relax = 1.3, residual = "sweep" }, { accelerate = "anderson", order = "colour" },
        { norm = "max" }, { norm = "max", skip_quiet = 5 }, { norm = "max", order = "colour", threads = 2 },
        { norm = "siconos" }, { norm = "siconos", skip_quiet = 5, residual = "sweep" },
    }
    for _, solver in ipairs(cases) do
        local name = {}
        for k, v in pairs(solver) do name[#name + 1] = k .. " = " .. tostring(v) end
        table.sort(name)
        it(table.concat(name, ", ") .. ": every step ends at an admissible solution within the tolerance", function()
            local w, sim = pile(3, 3, solver)
            local eps, bad, active, sweeps, steps = 1e-6, {}, 0, 0, 0
            sim:after_step(function(s)
                local info = s:info()
                steps = steps + 1
                sweeps = sweeps + info.iterations
                if not info.converged or info.residual > 1e-8 then bad[#bad + 1] = "step " .. steps .. " unconverged" end
                for _, c in ipairs(w:contacts3()) do
                    if c.active then
                        active = active + 1
                        local pN, pT = c.p[1], math.sqrt(c.p[2] ^ 2 + c.p[3] ^ 2)
                        local uN, uT = c.u[1], math.sqrt(c.u[2] ^ 2 + c.u[3] ^ 2)
                        if pN < 0 or pT > mu * pN * (1 + 1e-12) + 1e-15 then bad[#bad + 1] = "outside the cone" end
                        if uN < -eps or math.min(pN, uN) > eps then   -- 0 <= p_N _|_ u_N >= 0 to eps
                            bad[#bad + 1] = ("not complementary: step %d, contact %d, uN %.3e, pN %.3e, gN %.3e"):format(steps, c.id, uN, pN, c.gN)
                        end
                        if pT < mu * pN - eps and uT > eps then bad[#bad + 1] = "sticking contact slips" end
                    end
                end
            end)
            sim:run{ T = 0.4 }
            assert.are.equal(400, steps)
            assert.are.same({}, bad)
            assert.is_true(active > 5000, active .. " active contacts over the run")   -- the pile has formed
            assert.is_true(sweeps > 2 * steps, sweeps .. " sweeps")                     -- and needs several sweeps
        end)
    end

    it("skip_quiet: the same steps converged with fewer one-contact solves, the same pile to the tolerance", function()
        local runs = {}
        for _, f in ipairs{ 0, 5 } do
            local w, sim = pile(3, 3, { skip_quiet = f, tol = 1e-6 })
            local bad = 0
            sim:after_step(function(s) if not s:info().converged then bad = bad + 1 end end)
            sim:run{ T = 0.4 }
            local st = sim:stats()
            local z = {}
            for _, b in ipairs(w:bodies()) do z[#z + 1] = b:q()[3] end
            runs[#runs + 1] = { solves = st.local_solves, bad = bad, max_res = st.max_residual, z = z }
        end
        local plain, skip = runs[1], runs[2]
        assert.are.equal(0, plain.bad)
        assert.are.equal(0, skip.bad)
        assert.is_true(skip.max_res <= 1e-6, "largest residual " .. skip.max_res)
        print(("  skip_quiet = 5: %d one-contact solves against %d (%.2f)"):format(skip.solves, plain.solves, skip.solves / plain.solves))
        assert.is_true(skip.solves < 0.9 * plain.solves, skip.solves .. " against " .. plain.solves)
        for i = 1, #plain.z do assert.near(plain.z[i], skip.z[i], 1e-3, "body " .. i) end
    end)

    it("order random: another order than by index (other iterates, the same pile to the tolerance), reproducible by seed", function()
        local function run(order, seed)
            local w, sim = pile(3, 3, { order = order, seed = seed, tol = 1e-6 })
            local sweeps = 0
            sim:after_step(function(s) sweeps = sweeps + s:info().iterations end)
            sim:run{ T = 0.3 }
            local p, z = {}, {}
            for _, c in ipairs(w:contacts3()) do p[#p + 1] = c.p[1] end
            for _, b in ipairs(w:bodies()) do z[#z + 1] = b:q()[3] end
            return { p = p, z = z, sweeps = sweeps, max_res = sim:stats().max_residual }
        end
        local fixed, r1, r1b, r2 = run("fixed", 1), run("random", 1), run("random", 1), run("random", 2)
        local function differ(a, b)
            if #a ~= #b then return true end
            for i = 1, #a do if a[i] ~= b[i] then return true end end
            return false
        end
        assert.is_true(differ(fixed.p, r1.p) or fixed.sweeps ~= r1.sweeps)   -- not the index order
        assert.is_true(differ(r1.p, r2.p) or r1.sweeps ~= r2.sweeps)         -- the seed matters
        assert.are.same(r1.p, r1b.p)                                            -- and makes it reproducible
        assert.is_true(r1.max_res <= 1e-6 and r2.max_res <= 1e-6)
        for i = 1, #fixed.z do assert.near(fixed.z[i], r1.z[i], 1e-3, "body " .. i) end
    end)

    it("Anderson acceleration: fewer sweeps and fewer steps at the cap than plain NSGS on the same pile", function()
        local runs = {}
        for _, acc in ipairs{ false, true } do
            local w, sim = pile(5, 4, { tol = 1e-6, max_iter = 100, on_fail = "warn",
                                        accelerate = acc and "anderson" or nil, depth = acc and 5 or nil })
            local capped, sweeps, worst = 0, 0, 0
            sim:after_step(function(s)
                local info = s:info()
                sweeps = sweeps + info.iterations
                if not info.converged then capped = capped + 1 end
                worst = math.max(worst, info.residual)
            end)
            sim:run{ T = 0.5 }
            runs[#runs + 1] = { capped = capped, sweeps = sweeps, worst = worst }
        end
        local plain, aa = runs[1], runs[2]
        print(("  Anderson (m = 5): %d sweeps, %d steps at the cap, largest residual %.2e; plain NSGS: %d, %d, %.2e")
              :format(aa.sweeps, aa.capped, aa.worst, plain.sweeps, plain.capped, plain.worst))
        assert.is_true(plain.capped >= 20, plain.capped .. " capped steps of plain NSGS")   -- the pile is hard for NSGS
        assert.is_true(aa.capped <= plain.capped / 4, aa.capped .. " against " .. plain.capped)
        assert.is_true(aa.sweeps < 0.7 * plain.sweeps, aa.sweeps .. " against " .. plain.sweeps)
    end)

    it("Anderson acceleration: refused with skip_quiet; with 3D joints the steps sweep plainly and say so once", function()
        local w = rc.world{ dim = 3 }
        local ok, err = pcall(w.simulation, w, { solver = { "nsgs", accelerate = "anderson", skip_quiet = 1 } })
        assert.is_false(ok)
        assert.matches("'skip_quiet' and accelerate = \"anderson\" do not go together", err, 1, true)
        local wj = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
        wj:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        local a = wj:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 0.1, 1, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
        local b = wj:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0.3, 0, 0.1, 1, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
        wj:joint{ kind = "distance", a = a, b = b, anchor = { 0, 0, 0.1 }, anchor_b = { 0.3, 0, 0.1 } }
        local sim = wj:simulation{ h = 1e-3, solver = { "nsgs", accelerate = "anderson", tol = 1e-10, max_iter = 1000 } }
        local summary = sim:run{ T = 0.01 }
        assert.are.equal(1, summary.warnings)   -- "... the contacts include 3D joints: plain NSGS sweeps ... (warned once)"
        assert.is_true(sim:stats().max_residual <= 1e-10)
    end)

    it("skip_quiet and the solvers of a dim = 3 world: errors name the option", function()
        local w = rc.world{ dim = 3 }
        local ok, err = pcall(w.simulation, w, { solver = { "nsgs", skip_quiet = -1 } })
        assert.is_false(ok)
        assert.matches("'skip_quiet' must be >= 0 (got -1)", err, 1, true)
        ok, err = pcall(w.simulation, w, { solver = { "uzawa", skip_quiet = 1 } })
        assert.is_false(ok)
        assert.matches("'skip_quiet' is an option of the \"nsgs\" solver", err, 1, true)
        for _, m in ipairs{ "uzawa", "apgd" } do   -- solvers of planar contacts only: refused, not silently NSGS
            ok, err = pcall(w.simulation, w, { solver = { m } })
            assert.is_false(ok)
            assert.matches("solver '" .. m .. "' does not solve 3D contacts; a dim = 3 world takes \"nsgs\" or \"newton\"", err, 1, true)
        end
        local w2 = rc.world{}
        ok, err = pcall(w2.simulation, w2, { solver = { "nsgs", skip_quiet = 1 } })
        assert.is_false(ok)
        assert.matches("skip_quiet' is an option of the 3D contacts' NSGS (a dim = 3 world)", err, 1, true)
    end)

    it("a resting column carries its weight: p_N of the k-th contact from the top = k m g h, any order", function()
        for _, order in ipairs{ "fixed", "position", "top" } do
            local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
            w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
            local m, r = 2.0, 0.1
            local I = 0.4 * m * r * r
            for k = 0, 3 do
                w:body{ mass = m, inertia = { I, I, I }, q = { 0, 0, r + 2 * r * k, 1, 0, 0, 0 }, shape = rc.sphere{ radius = r } }
            end
            local h = 1e-3
            local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                                      solver = { "nsgs", tol = 1e-12, max_iter = 1000, order = order } }
            sim:run{ T = 0.05 }
            local pN = {}
            for _, c in ipairs(w:contacts3()) do
                assert.is_true(c.active)
                local z = 0.5 * (c.pa[3] + c.pb[3])
                pN[#pN + 1] = { z = z, p = c.p[1] }
            end
            table.sort(pN, function(a, b) return a.z > b.z end)
            assert.are.equal(4, #pN)
            for k, c in ipairs(pN) do
                assert.near(k * m * g * h, c.p, 1e-9 * k * m * g * h, order .. ": contact " .. k)
            end
        end
    end)
end)
