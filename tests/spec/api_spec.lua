-- api_spec.lua -- the Lua API: worlds, bodies, descriptors, parameters,
-- simulations, callbacks, summaries and outputs.
local rc = require "ricochet"

local function tmpdir()
    local p = os.tmpname()
    os.remove(p)
    assert(os.execute("mkdir -p '" .. p .. "'"))
    return p
end

local function read_file(path)
    local f = io.open(path, "rb")
    if not f then return nil end
    local s = f:read("a")
    f:close()
    return s
end

-- A free body: force_fn {1, 0, 0}, mass 2, no gravity.
local function free_body_world(theta, h)
    local w = rc.world{ gravity = { 0, 0 } }
    local b = w:body{ name = "b", mass = 2, inertia = 1,
                      force_fn = function(t, q, v) return { 1, 0, 0 } end,
                      shape = rc.disk{ radius = 0.1 } }
    local sim = w:simulation{ theta = theta or 0.5, h = h or 1e-3 }
    return w, b, sim
end

describe("module", function()
    it("has the kernel version", function()
        assert.are.equal("0.1.0", rc.version)
        assert.are.equal(-1, rc.GROUND)
        assert.are.equal(rc.newton, rc.laws.newton)
    end)
end)

describe("descriptors", function()
    it("rc.box gives CCW vertices from the bottom-left corner", function()
        local b = rc.box{ 2, 1 }
        assert.are.same({ { -1, -0.5 }, { 1, -0.5 }, { 1, 0.5 }, { -1, 0.5 } }, b.vertices)
        assert.are.equal("polygon", b.type)
        assert.are.equal(2, b.width)
        assert.are.equal(1, b.height)
        assert.are.equal(0, b.group)
        local c = rc.box{ width = 1, height = 3, offset = { 1, 2 }, group = 4, name = "lid" }
        assert.are.same({ { 0.5, 0.5 }, { 1.5, 0.5 }, { 1.5, 3.5 }, { 0.5, 3.5 } }, c.vertices)
        assert.are.equal(4, c.group)
        assert.are.equal("lid", c.name)
    end)

    it("rc.disk, rc.point and rc.polygon keep their values", function()
        local d = rc.disk{ radius = 0.25, offset = { 0.1, -0.2 }, group = 2 }
        assert.are.equal("disk", d.type)
        assert.are.equal(0.25, d.radius)
        assert.are.same({ 0.1, -0.2 }, d.offset)
        assert.are.same({ 0, 0 }, rc.disk{ 1 }.offset)
        assert.are.same({ 0.5, 0 }, rc.point{ 0.5, 0 }.offset)
        assert.are.same({ -1, 2 }, rc.point{ offset = { -1, 2 } }.offset)
        local p = rc.polygon{ vertices = { { 0, 0 }, { 1, 0 }, { 0, 1 } }, name = "tri" }
        assert.are.same({ { 0, 0 }, { 1, 0 }, { 0, 1 } }, p.vertices)
        assert.are.equal("tri", p.name)
    end)

    it("laws have defaults e = 0, mu = 0", function()
        local l = rc.newton{}
        assert.are.equal(0, l.e)
        assert.are.equal(0, l.mu)
        local m = rc.newton{ e = 1, mu = 0.3, name = "rubber" }
        assert.are.equal(1, m.e)
        assert.are.equal(0.3, m.mu)
        assert.are.equal("rubber", m.name)
    end)
end)

describe("world and bodies", function()
    it("round-trips the state, the mass and the force", function()
        local w = rc.world{ gravity = { 0, -9.81 } }
        local b = w:body{ name = "block", mass = 3, inertia = 0.5, q = { 1, 2, 0.3 }, v = { -1, 0.5, 2 },
                          force = { 1, 2, 3 }, shape = rc.box{ 1, 1 } }
        assert.are.equal(0, b.id)
        assert.are.equal("block", b.name)
        assert.are.same({ 1, 2, 0.3 }, b:q())
        assert.are.same({ -1, 0.5, 2 }, b:v())
        local m, J = b:mass()
        assert.are.equal(3, m)
        assert.are.equal(0.5, J)
        assert.are.same({ 1, 2, 3 }, b:force())
        b:set_state{ q = { 4, 5, 6 } }
        assert.are.same({ 4, 5, 6 }, b:q())
        assert.are.same({ -1, 0.5, 2 }, b:v())
        b:set_state{ v = { 7, 8, 9 } }
        assert.are.same({ 4, 5, 6 }, b:q())
        assert.are.same({ 7, 8, 9 }, b:v())
        b:set_force{ -1, 0, 0.5 }
        assert.are.same({ -1, 0, 0.5 }, b:force())
    end)

    it("defaults q, v and force to zero", function()
        local w = rc.world{}
        local b = w:body{ mass = 1, inertia = 1 }
        assert.are.same({ 0, 0, 0 }, b:q())
        assert.are.same({ 0, 0, 0 }, b:v())
        assert.are.same({ 0, 0, 0 }, b:force())
        assert.is_nil(b.name)
    end)

    it("lists and finds bodies; the ground has id -1", function()
        local w = rc.world{}
        local a = w:body{ name = "a", mass = 1, inertia = 1 }
        local b = w:body{ mass = 1, inertia = 1, shapes = { rc.disk{ radius = 1 }, rc.point{ 0, 1 } } }
        local c = w:body{ name = "c", mass = 1, inertia = 1 }
        assert.are.equal(1, b.id)
        local l = w:bodies()
        assert.are.equal(3, #l)
        assert.are.equal(a, l[1])
        assert.are.equal(c, l[3])
        assert.are.equal(c, w:find("c"))
        assert.is_nil(w:find("zz"))
        assert.are.equal(-1, w.ground.id)
        assert.are.equal(w, a.world)
    end)

    it("adds shapes and obstacles (returning shape ids)", function()
        local w = rc.world{}
        local b = w:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.5 } }
        assert.are.equal(1, b:add_shape(rc.box{ 1, 1 }))
        assert.are.equal(2, w:halfplane{})
        assert.are.equal(3, w:segment{ a = { 0, 0 }, b = { 1, 0 }, radius = 0.1 })
        local d = rc.core.shape_def(w._c, 2)
        assert.are.equal("halfplane", d.type)
        assert.are.same({ 0, 1 }, d.normal)
        w:halfplane{ point = { 0, 1 }, normal = { 3, 4 } }
        d = rc.core.shape_def(w._c, 4)
        assert.are.same({ 0.6, 0.8 }, d.normal)
    end)

    it("keeps the world alive while a body lives", function()
        local b
        do
            local w = rc.world{}
            b = w:body{ mass = 1, inertia = 1, q = { 1, 2, 3 } }
        end
        collectgarbage()
        collectgarbage()
        assert.are.same({ 1, 2, 3 }, b:q())
    end)

    it("closes the world (also as a to-be-closed variable)", function()
        local b
        do
            local w <close> = rc.world{}
            b = w:body{ mass = 1, inertia = 1 }
        end
        local ok, err = pcall(b.q, b)
        assert.is_false(ok)
        assert.matches("body:q: the world has been closed", err, 1, true)
    end)
end)

describe("parameters", function()
    after_each(function()
        rc.set_options(nil)
        rc.reset_params()
    end)

    it("returns defaults without the command line", function()
        assert.are.equal(0.5, rc.param("theta", 0.5))
        assert.are.equal(true, rc.param("flag", true))
        assert.are.equal("x", rc.param("label", "x"))
        assert.are.same({ theta = 0.5, flag = true, label = "x" }, rc.params())
    end)

    it("converts --set overrides to the type of the default", function()
        rc.set_options{ set = { theta = "0.25", n = "3", flag = "false", label = "abc", e = "1e-3" } }
        assert.are.equal(0.25, rc.param("theta", 0.5))
        local n = rc.param("n", 10)
        assert.are.equal(3, n)
        assert.are.equal("integer", math.type(n))
        assert.are.equal(false, rc.param("flag", true))
        assert.are.equal("abc", rc.param("label", "x"))
        assert.are.equal(1e-3, rc.param("e", 0.5))
        assert.are.equal(7, rc.param("other", 7))
        assert.are.same({ theta = 0.25, n = 3, flag = false, label = "abc", e = 1e-3, other = 7 }, rc.params())
        assert.are.same({}, rc.unused_overrides())
        assert.are.equal('{"e": 0.001, "flag": false, "label": "abc", "n": 3, "other": 7, "theta": 0.25}',
                         rc.params_json())
    end)

    it("checks the range of a parameter when asked (default and override)", function()
        rc.set_options{ set = { n = "0", solver = "cg", x = "0.5", ok = "3" } }
        local function err(f) local ok, e = pcall(f); assert.is_false(ok); return e end
        assert.matches("parameter 'n': must be >= 1 (got 0)", err(function() rc.param("n", 5, { min = 1 }) end), 1, true)
        assert.matches([[parameter 'solver': must be one of "nsgs", "uzawa" (got 'cg')]],
                       err(function() rc.param("solver", "nsgs", { one_of = { "nsgs", "uzawa" } }) end), 1, true)
        assert.matches("parameter 'x': must be > 0.5 (got 0.5)", err(function() rc.param("x", 1.0, { above = 0.5 }) end), 1, true)
        assert.are.equal(3, rc.param("ok", 5, { min = 1, max = 10 }))
        assert.matches("rc.param: default of parameter 'y' must be < 1 (got 2)", err(function() rc.param("y", 2, { below = 1 }) end), 1, true)
        assert.matches("rc.param: 'check' of parameter 'z': unknown key 'minimum'", err(function() rc.param("z", 2, { minimum = 1 }) end), 1, true)
        assert.matches("lists 3, not a string like the default",
                       err(function() rc.param("s", "a", { one_of = { "a", 3 } }) end), 1, true)
    end)

    it("reports --set names never read", function()
        rc.set_options{ set = { thta = "0.3" } }
        rc.param("theta", 0.5)
        assert.are.same({ "thta" }, rc.unused_overrides())
    end)
end)

describe("simulation", function()
    it("a force function acts: x = t^2/4, vx = t/2 for f = 1, m = 2", function()
        local w, b, sim = free_body_world(0.5, 1e-3)
        local s = sim:run{ T = 1 }
        assert.are.equal(1000, sim.steps)
        assert.are.equal(1000, s.steps)
        assert.is_true(math.abs(b:q()[1] - 0.25) <= 1e-12)
        assert.is_true(math.abs(b:v()[1] - 0.5) <= 1e-12)
        assert.are.equal(0, b:q()[2])
        assert.is_true(math.abs(sim.t - 1) < 1e-9)
    end)

    it("force functions receive t, q and v", function()
        local w = rc.world{}
        local seen = {}
        w:body{ name = "p", mass = 1, inertia = 1, q = { 1, 2, 3 }, v = { 4, 5, 6 },
                force_fn = function(t, q, v)
                    seen[#seen + 1] = { t = t, q = q, v = v }
                    return { 0, 0, 0 }
                end }
        local sim = w:simulation{ theta = 0.5, h = 0.25 }
        sim:step()
        assert.are.equal(1, #seen)
        assert.are.equal(0.125, seen[1].t) -- t_{k+theta}
        assert.are.same({ 1, 2, 3 }, seen[1].q)
        assert.are.same({ 4, 5, 6 }, seen[1].v)
    end)

    it("set_force_fn(nil) removes the force function", function()
        local w, b, sim = free_body_world(0.5, 0.125)
        b:set_force_fn(nil)
        sim:run{ T = 1 }
        assert.are.same({ 0, 0, 0 }, b:v())
    end)

    it("runs floor(T/h + 1/2) steps in all, without drift", function()
        local w, b, sim = free_body_world(0.5, 0.3)
        local s = sim:run{ T = 1 }
        assert.are.equal(3, s.steps)
        s = sim:run{ T = 2 }
        assert.are.equal(7, s.steps)
        assert.are.equal(4, s.steps_run)
        s = sim:run{ T = 2 }
        assert.are.equal(7, s.steps)
        assert.are.equal(0, s.steps_run)
    end)

    it("time is t0 + k h (no round-off summed over steps), also after h changes", function()
        local w, b, sim = free_body_world(0.5, 1e-3)
        local times = {}
        sim:after_step(function(s) times[#times + 1] = s.t end)
        sim:run{ T = 0.375 }
        assert.are.equal(375, #times)
        for k, t in ipairs(times) do assert.are.equal(k * 1e-3, t) end   -- a sum of h gives 0.37500000000000028
        assert.are.equal(0.375, sim.t)
        -- a new simulation with another h continues from t = 0.375: t = 0.375 + k h
        local sim2 = w:simulation{ theta = 0.5, h = 0.025 }
        local s = sim2:run{ T = 0.5 }
        assert.are.equal(5, s.steps_run)                                 -- (0.5 - 0.375) / 0.025
        assert.are.equal(0.5, sim2.t)
        for k = 1, 4 do sim2:step() end
        assert.are.equal(0.375 + 9 * 0.025, sim2.t)
    end)

    it("sim:stop() ends the run early", function()
        local w, b, sim = free_body_world(0.5, 1e-3)
        local calls = 0
        sim:after_step(function(s)
            calls = calls + 1
            if s.steps == 10 then s:stop() end
        end)
        local s = sim:run{ T = 1 }
        assert.are.equal("stopped", s.status)
        assert.are.equal(10, s.steps)
        assert.are.equal(10, sim.steps)
        assert.are.equal(10, calls)
        -- a new run starts again (and is not stopped this time)
        s = sim:run{ T = 0.02 }
        assert.are.equal("complete", s.status)
        assert.are.equal(20, s.steps)
        -- a stop requested in before_step skips that step
        local w2, b2, sim2 = free_body_world(0.5, 1e-3)
        sim2:before_step(function(x) if x.steps == 4 then x:stop() end end)
        s = sim2:run{ T = 1 }
        assert.are.equal("stopped", s.status)
        assert.are.equal(4, s.steps)
    end)

    it("before_step callbacks may change forces, in order", function()
        local w = rc.world{}
        local b = w:body{ mass = 1, inertia = 1 }
        local sim = w:simulation{ theta = 0.5, h = 0.125 }
        local order = {}
        sim:before_step(function(s)
            order[#order + 1] = "a"
            b:set_force{ s.t < 0.5 and 1 or 0, 0, 0 }
        end)
        sim:before_step(function() order[#order + 1] = "b" end)
        sim:after_step(function() order[#order + 1] = "c" end)
        sim:run{ T = 1 }
        assert.are.equal(0.5, b:v()[1])
        assert.is_true(math.abs(b:q()[1] - 0.375) < 1e-14)
        assert.are.same({ "a", "b", "c" }, { order[1], order[2], order[3] })
        assert.are.equal(24, #order)
    end)

    it("sim.t and sim.steps are read-only properties", function()
        local w, b, sim = free_body_world(0.5, 0.125)
        assert.are.equal(0, sim.t)
        sim:step()
        assert.are.equal(0.125, sim.t)
        assert.are.equal(1, sim.steps)
        assert.has_error(function() sim.t = 3 end)
        assert.are.equal("moreau-jean", sim.scheme)
        assert.are.equal(0.5, sim.theta)
        assert.are.equal(0.125, sim.h)
        assert.are.equal(1e-9, sim.persist_tol)
        assert.are.equal(1e-10, sim.tol)
        assert.are.equal("anticipate", sim.activation)   -- Siconos's and the papers' index set
        assert.are.equal(0.5, sim.gamma)
        local def = rc.core.sim_def(w._c)
        assert.are.equal(0.125, def.h)
        assert.are.equal(1e-9, def.persist_tol)
        assert.are.equal("anticipate", def.activation)
        w:simulation{ scheme = "moreau-jean-fremond", theta = 0.75, h = 0.5, activation = "gap", gamma = 0.25,
                      persist_tol = 1e-6, solver = { "nsgs", tol = 1e-8, max_iter = 7, on_fail = "error", warm_start = false } }
        assert.are.same({ scheme = "moreau-jean-fremond", theta = 0.75, h = 0.5, activation = "gap", gamma = 0.25,
                          persist_tol = 1e-6, tol = 1e-8, max_iter = 7, on_fail = "error", warm_start = false,
                          local_tol = 0, local_max_iter = 200, work_check = "record", work_tol = 1e-12 },
                        rc.core.sim_def(w._c))
    end)

    it("returns a summary with the run's figures", function()
        local w, b, sim = free_body_world(0.5, 1e-3)
        local s = sim:run{ T = 0.5 }
        assert.are.equal(s, sim.summary)
        assert.are.equal(s, rc.last_summary)
        assert.are.equal("complete", s.status)
        assert.are.equal(500, s.steps)
        assert.is_true(math.abs(s.t - 0.5) < 1e-9)
        assert.are.equal(0, s.E0)
        -- E = m v^2 / 2 with v = t / 2 = 0.25
        assert.is_true(math.abs(s.E - 0.0625) < 1e-12)
        assert.are.equal(0, s.max_iterations)
        assert.are.equal(0, s.failures)
        assert.is_true(s.max_abs_balance < 1e-12)
        assert.is_true(s.cpu_s >= 0)
        assert.is_true(s.wall_s >= 0)
        assert.are.equal(0, s.warnings)
        assert.is_nil(s.out)
        assert.are.equal("moreau-jean", s.scheme)
        assert.matches("steps     500", rc.format_summary(s), 1, true)
    end)

    it("reports energies, step info and statistics", function()
        local w = rc.world{ gravity = { 0, -10 } }
        local b = w:body{ mass = 2, inertia = 1, q = { 0, 1, 0 }, v = { 3, 0, 0 } }
        local sim = w:simulation{ theta = 0.5, h = 0.01 }
        local e = sim:energy()
        assert.are.equal(9, e.kinetic)
        assert.is_true(math.abs(e.potential - 20) < 1e-12)
        assert.are.equal(e.kinetic + e.potential, e.total)
        sim:step()
        local info = sim:info()
        assert.are.equal(1, info.step)
        assert.is_true(math.abs(info.t - 0.01) < 1e-15)
        assert.are.equal(0, info.ncontacts)
        assert.are.equal(0, info.nactive)
        assert.is_true(info.converged)
        assert.is_true(math.abs(info.balance) < 1e-12)
        assert.is_true(math.abs(b:v()[2] + 0.1) < 1e-14)
        local st = sim:stats()
        assert.are.equal(1, st.steps)
        assert.are.equal(0, st.failures)
    end)

    it("reports contacts and named contacts", function()
        local w = rc.world{ gravity = { 0, -10 } }
        local ball = w:body{ name = "ball", mass = 1, inertia = 0.1, q = { 0, 0.5, 0 },
                             shape = rc.disk{ radius = 0.5 } }
        w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        w:contact{ ball, w.ground, law = rc.newton{ e = 0, mu = 0.5 }, name = "C" }
        local sim = w:simulation{ theta = 0.5, h = 1e-3 }
        sim:run{ T = 0.1 }
        local l = sim:contacts()
        assert.are.equal(1, #l)
        local c = l[1]
        assert.are.equal(-1, c.body_a)
        assert.are.equal(0, c.body_b)
        assert.is_true(c.active)
        assert.is_true(math.abs(c.normal[1]) < 1e-12 and math.abs(c.normal[2] - 1) < 1e-12)
        -- resting: the impulse carries the weight m g h
        assert.is_true(math.abs(c.pN - 1e-2) < 1e-9)
        assert.is_true(math.abs(ball:q()[2] - 0.5) < 1e-9)
        local n = sim:contact("C")
        assert.are.equal("C", n.name)
        assert.are.equal(c.id, n.id)
        assert.are.equal(c.pN, n.pN)
        assert.are.same({ "C" }, sim:contact_names())
    end)

    it("switches a pair off with law = false", function()
        local w = rc.world{ gravity = { 0, -10 } }
        local ball = w:body{ mass = 1, inertia = 0.1, q = { 0, 0.5, 0 }, shape = rc.disk{ radius = 0.5 } }
        w:halfplane{}
        w:contact{ ball, w.ground, law = false }
        local sim = w:simulation{ h = 1e-2 }
        sim:run{ T = 0.1 }
        assert.is_true(ball:q()[2] < 0.45)
    end)

    it("group rules choose the law", function()
        local w = rc.world{ gravity = { 0, -10 } }
        local ball = w:body{ mass = 1, inertia = 0.1, q = { 0, 0.5, 0 }, shape = rc.disk{ radius = 0.5, group = 1 } }
        w:halfplane{ group = 2 }
        w:contact{ groups = { 1, 2 }, law = false }
        local sim = w:simulation{ h = 1e-2 }
        sim:run{ T = 0.1 }
        assert.is_true(ball:q()[2] < 0.45)
    end)

    it("a ball bounces with e = 1 and keeps its energy (moreau-jean-fremond, theta = 1/2)", function()
        local w = rc.world{ gravity = { 0, -10 } }
        local ball = w:body{ mass = 1, inertia = 0.1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.5 } }
        w:halfplane{}
        w:contact{ ball, w.ground, law = rc.newton{ e = 1 } }
        local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3 }
        local s = sim:run{ T = 1 }
        assert.are.equal("complete", s.status)
        assert.is_true(s.E0 > 0)
        assert.is_true(math.abs(s.E - s.E0) < 1e-6 * s.E0)
        assert.is_true(ball:q()[2] > 0.49)
    end)
end)

describe("outputs", function()
    it("sim:run{ out } writes history.csv.gz and run.json", function()
        local dir = tmpdir()
        rc.reset_params()
        rc.param("alpha", 2)
        local w, b, sim = free_body_world(0.5, 0.01)
        local s = sim:run{ T = 0.1, out = dir, every = 2 }
        assert.are.equal(dir, s.out)
        local json = read_file(dir .. "/run.json")
        assert.is_truthy(json)
        assert.matches('"status": "complete"', json, 1, true)
        assert.matches('"steps": 10', json, 1, true)
        assert.matches('"alpha": 2', json, 1, true)
        assert.is_true(os.execute("gzip -t '" .. dir .. "/history.csv.gz'"))
        local p = io.popen("gzip -dc '" .. dir .. "/history.csv.gz'")
        local text = p:read("a")
        p:close()
        local lines = {}
        for l in text:gmatch("[^\n]+") do lines[#lines + 1] = l end
        assert.matches("^t,E,", lines[1])
        assert.matches("b.x", lines[1], 1, true)
        assert.are.equal(1 + 1 + 5, #lines) -- header, initial state, every 2nd of 10 steps
        assert.is_false(rc.core.output_is_open(w._c))
        rc.reset_params()
    end)

    it("an interrupt closes the output as interrupted", function()
        local dir = tmpdir()
        local w, b, sim = free_body_world(0.5, 0.01)
        sim:after_step(function(s)
            if s.steps == 5 then rc.core.request_interrupt() end
        end)
        local ok, err = pcall(sim.run, sim, { T = 1, out = dir })
        rc.core.clear_interrupt()
        assert.is_false(ok)
        assert.matches("interrupted", err, 1, true)
        assert.are.equal("interrupted", sim.summary.status)
        assert.are.equal(5, sim.summary.steps)
        local json = read_file(dir .. "/run.json")
        assert.matches('"status": "interrupted"', json, 1, true)
        assert.matches('"complete": false', json, 1, true)
    end)

    it("sim:stop() closes the output as stopped", function()
        local dir = tmpdir()
        local w, b, sim = free_body_world(0.5, 0.01)
        sim:after_step(function(s) if s.steps == 3 then s:stop() end end)
        sim:run{ T = 1, out = dir }
        local json = read_file(dir .. "/run.json")
        assert.matches('"status": "stopped"', json, 1, true)
    end)

    it("an error in a callback closes the output as error and is re-raised", function()
        local dir = tmpdir()
        local w, b, sim = free_body_world(0.5, 0.01)
        sim:after_step(function(s) if s.steps == 3 then error("boom") end end)
        local ok, err = pcall(sim.run, sim, { T = 1, out = dir })
        assert.is_false(ok)
        assert.matches("boom", err, 1, true)
        assert.are.equal("error", sim.summary.status)
        local json = read_file(dir .. "/run.json")
        assert.matches('"status": "error"', json, 1, true)
    end)

    it("sim:output and sim:close_output", function()
        local dir = tmpdir()
        local w, b, sim = free_body_world(0.5, 0.01)
        sim:output{ dir = dir, every = 1 }
        assert.is_true(rc.core.output_is_open(w._c))
        sim:step()
        sim:step()
        sim:close_output("stopped", "enough")
        local json = read_file(dir .. "/run.json")
        assert.matches('"status": "stopped"', json, 1, true)
        assert.matches('"message": "enough"', json, 1, true)
        assert.matches('"steps": 2', json, 1, true)
    end)
end)
