-- solver_order_spec.lua -- NSGS sweep orders (issue 5): order = "position", "top" and
-- "colour", solver.threads (OpenMP) with the same numbers whatever the
-- thread count, and the checks of both options.
local rc = require "ricochet"

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    assert.are.equal("string", type(err))
    return err
end

local function has(expected, msg)
    assert.matches(expected, msg, 1, true)
end

-- cols x rows disks of radius 0.1 +- 10 % in a box, rows dy apart (default
-- 0.225: nearly touching; 0.22: touching or 0.04 apart), at rest, e = 0, mu = 0.3.
local function pile(cols, rows, solver, dy)
    dy = dy or 0.225
    math.randomseed(7)
    local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
    w:halfplane{ point = { 0.25 * cols, 0 }, normal = { -1, 0 } }
    local bodies = {}
    for i = 0, cols * rows - 1 do
        local r = 0.1 * (0.9 + 0.2 * math.random())
        local m = math.pi * r * r
        bodies[#bodies + 1] = w:body{ mass = m, inertia = 0.5 * m * r * r,
            q = { 0.25 * (i % cols + 0.5) + 0.02 * (math.random() - 0.5), dy * (i // cols) + dy / 2 + 0.005, 0 },
            shape = rc.disk{ radius = r } }
    end
    w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
    local sim = w:simulation{ h = 1e-3, solver = solver }
    return w, sim, bodies
end

-- cols x rows equal disks (r = 0.1) on a triangular lattice, every neighbour
-- pair overlapping by 5e-5: about 3 active contacts per disk from the first step.
local function hex_pile(cols, rows, solver)
    local d = 0.19995
    local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    w:halfplane{ point = { 0.1 - 5e-5, 0 }, normal = { 1, 0 } }
    w:halfplane{ point = { d * (cols - 1) + 0.2 + d / 2 - 0.1 + 5e-5, 0 }, normal = { -1, 0 } }
    local bodies = {}
    local m = math.pi * 0.01
    for i = 0, cols * rows - 1 do
        local row, col = i // cols, i % cols
        bodies[#bodies + 1] = w:body{ mass = m, inertia = 0.5 * m * 0.01,
            q = { 0.2 + d * col + (row % 2) * d / 2 - 0.1, 0.1 - 5e-5 + row * d * math.sqrt(3) / 2, 0 },
            shape = rc.disk{ radius = 0.1 } }
    end
    w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
    return w, w:simulation{ h = 1e-3, solver = solver }, bodies
end

-- every number of the state, exactly (%a: hexadecimal floats)
local function fingerprint(sim, bodies)
    local t = {}
    for _, b in ipairs(bodies) do
        local q, v = b:q(), b:v()
        t[#t + 1] = string.format("%a %a %a %a %a %a", q[1], q[2], q[3], v[1], v[2], v[3])
    end
    for _, c in ipairs(sim:contacts()) do
        t[#t + 1] = string.format("%d %a %a %a", c.id, c.pN, c.pT, c.uN)
    end
    return table.concat(t, "\n")
end

describe("solver options order and threads", function()
    local w
    before_each(function() w = rc.world{} end)

    it("name the option in their errors", function()
        has("world:simulation: solver: 'order' must be one of \"fixed\", \"random\", \"position\", \"top\", \"colour\", \"color\", \"slabs\" (got 'sideways')",
            error_of(w.simulation, w, { solver = { order = "sideways" } }))
        has("world:simulation: solver: 'threads' must be >= 1 (got 0)",
            error_of(w.simulation, w, { solver = { threads = 0 } }))
        has("world:simulation: solver: 'threads' must be >= 1 (got -2)",
            error_of(w.simulation, w, { solver = { threads = -2 } }))
        has("world:simulation: solver: 'threads' must be an integer (got 1.5)",
            error_of(w.simulation, w, { solver = { threads = 1.5 } }))
        has("world:simulation: solver: 'threads' must be a number (got '2')",
            error_of(w.simulation, w, { solver = { threads = "2" } }))
        has("world:simulation: solver: 'threads' = 2 needs order = \"colour\" or \"slabs\" (the position order is sequential)",
            error_of(w.simulation, w, { solver = { threads = 2, order = "position" } }))
        has("world:simulation: solver: 'threads' = 2 needs order = \"colour\" or \"slabs\" (the top order is sequential)",
            error_of(w.simulation, w, { solver = { threads = 2, order = "top" } }))
        has("world:simulation: solver: 'threads' = 2 needs the \"nsgs\" solver",
            error_of(w.simulation, w, { solver = { "uzawa", threads = 2 } }))
        has("world:simulation: solver: 'adaptive_threads' must be true or false (got 0)",
            error_of(w.simulation, w, { solver = { threads = 2, adaptive_threads = 0 } }))
    end)

    it("default to one thread and the fixed order; threads > 1 to the slabs order (planar) or the colour order (3D)", function()
        local sim = w:simulation{}
        assert.are.equal(1, sim.threads)
        assert.are.equal("fixed", sim.order)
        sim = w:simulation{ solver = { threads = 2 } }
        assert.are.equal("slabs", sim.order)
        assert.are.equal("colour", rc.world{ dim = 3 }:simulation{ solver = { threads = 2 } }.order)
        sim = w:simulation{ solver = { order = "color" } }
        assert.are.equal("colour", sim.order)
        sim = w:simulation{ solver = { order = "position" } }
        assert.are.equal("position", sim.order)
        sim = w:simulation{ solver = { order = "top" } }
        assert.are.equal("top", sim.order)
        assert.are.equal("boolean", type(rc.openmp()))
    end)
end)

describe("the colour order", function()
    it("gives the same numbers, bit for bit, on 1 and 2 threads", function()
        -- 1 500 disks, 4 400 contacts in 7 colours: colours of more than 512 contacts,
        -- which the threads share (smaller ones are swept by one thread)
        local prints, stats = {}, {}
        for threads = 1, 2 do
            local _, sim, bodies = hex_pile(60, 25, { tol = 1e-6, max_iter = 50, order = "colour", threads = threads,
                                                   adaptive_threads = false })
            sim:run{ T = 0.02 }
            prints[threads] = fingerprint(sim, bodies)
            stats[threads] = sim:stats()
        end
        assert.is_true(stats[1].local_solves > 0)
        assert.are.equal(stats[1].local_solves, stats[2].local_solves)
        assert.is_true(prints[1] == prints[2], "the states differ")
        assert.are.equal(0, stats[1].parallel_steps)
        if rc.openmp() then assert.are.equal(20, stats[2].parallel_steps) end
    end)
end)

describe("position, top and colour orders on a pile", function()
    for _, order in ipairs{ "position", "top", "colour" } do
        it(order .. ": every step converges to an admissible solution", function()
            local _, sim = pile(6, 6, { tol = 1e-8, max_iter = 20000, order = order })
            local mu, eps, h = 0.3, 1e-6, 1e-3
            local steps, active, bad, min_gap = 0, 0, {}, 0
            sim:after_step(function(s)
                local info = s:info()
                steps = steps + 1
                if not info.converged or info.residual > 1e-8 then bad[#bad + 1] = "step " .. steps .. " unconverged" end
                for _, c in ipairs(s:contacts()) do
                    min_gap = math.min(min_gap, c.gN)
                    if c.active then
                        active = active + 1
                        if c.pN < 0 or math.abs(c.pT) > mu * c.pN * (1 + 1e-12) + 1e-15 then bad[#bad + 1] = "outside the cone" end
                        if c.uN < -eps or c.pN * c.uN > eps * c.pN then bad[#bad + 1] = "not complementary" end
                        if math.abs(c.pT) < mu * c.pN - eps and math.abs(c.uT) > eps then bad[#bad + 1] = "sticking contact slips" end
                    end
                end
            end)
            sim:run{ T = 0.3 }
            assert.are.equal(300, steps)
            assert.are.same({}, bad)
            assert.is_true(active > 5000)
            -- velocity-level contacts: g_N >= -h v, v below the free fall from the top row (1.24 m)
            assert.is_true(min_gap > -h * 5)
        end)
    end
end)
