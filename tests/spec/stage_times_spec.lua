-- stage_times_spec.lua -- sim:stats().stage_wall_s: the wall-clock seconds of the step's
-- stages over the run (integrate/step.c): each stage's own, inside the run's time, and a
-- scheme with its own one-step problem (gen-alpha) counted in "solve". sweep_wall_s and
-- sweep_solves: planar NSGS's one-thread sweeps alone (nonsmooth/nsgs.c), in steps of at
-- least 256 active contacts, whatever the order (a thread team's left out).
local rc = require "ricochet"

local stages = { "detect", "free_velocity", "index_set", "warm_start", "solve", "update", "audit", "commit" }

-- n disks falling into a box (e = 0, mu = 0.3)
local function pile(scheme, n)
    local w = rc.world{ gravity = { 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.3 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
    w:halfplane{ point = { 1.5, 0 }, normal = { -1, 0 } }
    for i = 0, n - 1 do
        w:body{ mass = 1, inertia = 0.005, q = { 0.25 * (i % 6) + 0.13, 0.25 * (i // 6) + 0.12, 0 }, shape = rc.disk{ radius = 0.1 } }
    end
    return w:simulation{ scheme = scheme, h = 1e-3 }
end

describe("sim:stats().stage_wall_s", function()
    it("gives every stage of a Moreau-Jean step its time, within the run's", function()
        local sim = pile("moreau-jean", 30)
        local summary = sim:run{ T = 0.5 }
        local sw, sum = sim:stats().stage_wall_s, 0
        for _, k in ipairs(stages) do
            assert.is_number(sw[k], k)
            assert.is_true(sw[k] >= 0, k)
            sum = sum + sw[k]
        end
        for _, k in ipairs { "detect", "index_set", "solve", "update", "commit" } do
            assert.is_true(sw[k] > 0, k .. " took no time")
        end
        assert.is_true(sum <= summary.wall_s + 1e-3, sum .. " s of stages in a run of " .. summary.wall_s .. " s")
        local n = 0
        for _ in pairs(sw) do n = n + 1 end
        assert.are.equal(#stages, n)
    end)

    it("counts gen-alpha's own one-step problem in solve", function()
        local sim = pile("gen-alpha", 6)
        sim:run{ T = 0.05 }
        local sw = sim:stats().stage_wall_s
        assert.is_true(sw.solve > 0)
        assert.is_true(sw.commit > 0)
        for _, k in ipairs { "detect", "free_velocity", "index_set", "warm_start", "update", "audit" } do
            assert.are.equal(0, sw[k], k)
        end
    end)

    -- n x n disks of radius 0.1 on a square lattice 1e-6 tighter than their diameter, on the
    -- floor against the left wall: every disk overlaps its neighbours, so every step has
    -- 2 n (n - 1) + 2 n >= 256 active contacts
    local function lattice(n, solver)
        local w = rc.world{ gravity = { 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.5 } }
        w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
        w:halfplane{ point = { 0.2 * n, 0 }, normal = { -1, 0 } }
        for i = 0, n - 1 do
            for j = 0, n - 1 do
                w:body{ mass = 1, inertia = 0.005, q = { 0.1 + (0.2 - 1e-6) * j, 0.1 + (0.2 - 1e-6) * i, 0 },
                        shape = rc.disk{ radius = 0.1 } }
            end
        end
        return w:simulation{ h = 1e-3, solver = solver }
    end

    it("times the one-thread sweeps alone: every sweep of a step with >= 256 active contacts", function()
        local sim = lattice(14, { "nsgs", tol = 1e-6, max_iter = 50 })
        local solves = 0
        for _ = 1, 5 do
            sim:step()
            local info = sim:info()
            assert.is_true(info.nactive >= 256, info.nactive .. " active contacts")
            solves = solves + info.iterations * info.nactive
        end
        local st = sim:stats()
        assert.are.equal(solves, st.local_solves)
        assert.are.equal(st.local_solves, st.sweep_solves)   -- every sweep timed
        assert.is_true(st.sweep_wall_s > 0 and st.sweep_wall_s <= st.stage_wall_s.solve,
            st.sweep_wall_s .. " s of sweeps in " .. st.stage_wall_s.solve .. " s of solve")
    end)

    it("leaves small steps and the thread team's sweeps out", function()
        local sim = pile("moreau-jean", 30)   -- fewer than 256 contacts
        sim:run{ T = 0.3 }
        local st = sim:stats()
        assert.is_true(st.local_solves > 0)
        assert.are.equal(0, st.sweep_solves)
        assert.are.equal(0, st.sweep_wall_s)
        if rc.openmp() then   -- a team of two for every step (>= 1024 active contacts): not one thread's sweeps
            sim = lattice(23, { "nsgs", tol = 1e-6, max_iter = 50, order = "slabs", threads = 2, adaptive_threads = false })
            for _ = 1, 3 do sim:step() end
            st = sim:stats()
            assert.is_true(st.local_solves > 0 and st.parallel_steps == 3)
            assert.are.equal(0, st.sweep_solves)
        end
    end)

    it("times the colour and slabs orders' sweeps when their step runs on one thread", function()
        -- colour: every sweep visits every contact; slabs: the root's few contacts, swept after
        -- the residual-free sweeps' timing, are left out of those sweeps
        for _, order in ipairs { "colour", "slabs" } do
            local sim = lattice(14, { "nsgs", tol = 1e-6, max_iter = 50, order = order })
            for _ = 1, 3 do sim:step() end
            local st = sim:stats()
            assert.is_true(st.local_solves > 0)
            if order == "colour" then assert.are.equal(st.local_solves, st.sweep_solves, order)
            else assert.is_true(st.sweep_solves > 0.9 * st.local_solves and st.sweep_solves <= st.local_solves, order) end
            assert.is_true(st.sweep_wall_s > 0 and st.sweep_wall_s <= st.stage_wall_s.solve, order)
        end
    end)
end)
