-- errors_spec.lua -- every bad input raises a Lua error that names the
-- function and the argument, at the line of the calling script.
local rc = require "ricochet"

-- Run src as a script chunk named "myscript"; return its error message.
local function script_error(src)
    local chunk = assert(load(src, "=myscript"))
    local ok, err = pcall(chunk)
    assert.is_false(ok, "the script did not fail")
    return err
end

-- The message of fn() failing (fn must fail).
local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    assert.are.equal("string", type(err))
    return err
end

local function has(expected, msg)
    assert.matches(expected, msg, 1, true)
end

local PRE = 'local rc = require "ricochet"\nlocal w = rc.world{}\n'

describe("error positions", function()
    it("point at the script line (world:body)", function()
        local err = script_error(PRE .. "\nlocal b = w:body{ mass = -1, inertia = 1 }\n")
        assert.are.equal("myscript:4: world:body: 'mass' must be > 0 (got -1)", err)
    end)

    it("point at the script line (descriptors, laws, simulation)", function()
        assert.are.equal("myscript:3: rc.disk: 'radius' must be > 0 (got 0)",
                         script_error(PRE .. "local d = rc.disk{ radius = 0 }\n"))
        assert.are.equal("myscript:3: rc.newton: 'e' must be in [0, 1] (got 1.5)",
                         script_error(PRE .. "local l = rc.newton{ e = 1.5 }\n"))
        assert.are.equal("myscript:3: world:simulation: 'theta' must be in [0, 1] (got 1.5)",
                         script_error(PRE .. "local s = w:simulation{ theta = 1.5 }\n"))
    end)

    it("point at the callback line for errors inside callbacks", function()
        local err = script_error(PRE .. [[
local b = w:body{ mass = 1, inertia = 1 }
local sim = w:simulation{}
sim:after_step(function()
  b:set_force{ 0, 0/0, 0 }
end)
sim:run{ T = 1 }
]])
        assert.are.equal("myscript:6: body:set_force: 'force[2]' must be a finite number (got nan)", err)
    end)

    it("point at the sim:run line for step failures", function()
        local err = script_error(PRE .. [[
local b = w:body{ name = "b", mass = 1, inertia = 1, force_fn = function() return { 1, 2 } end }
local sim = w:simulation{}

sim:run{ T = 1 }
]])
        has("myscript:6: sim:run: force function of body 0 (b)", err)
        has("force_fn must return a table of 3 finite numbers", err)
    end)

    it("point at the script line for parameters", function()
        rc.set_options{ set = { theta = "abc" } }
        local err = script_error('local rc = require "ricochet"\nlocal th = rc.param("theta", 0.5)\n')
        rc.set_options(nil)
        rc.reset_params()
        assert.are.equal("myscript:2: parameter 'theta': expected a number, got 'abc'", err)
    end)
end)

describe("types and unknown keys", function()
    local w
    before_each(function() w = rc.world{} end)

    it("rejects unknown keys, naming the key and the function", function()
        assert.are.equal("world:body: unknown key 'mas' (did you mean 'mass'?)",
                         error_of(w.body, w, { mas = 1, inertia = 1 }):gsub("^[^:]*:%d+: ", ""))
        has("rc.world: unknown key 'gravty' (did you mean 'gravity'?)", error_of(rc.world, { gravty = { 0, -1 } }))
        has("rc.box: unknown key 'depth'", error_of(rc.box, { 1, 1, depth = 2 }))
        has("rc.newton: unknown key 'restitution'", error_of(rc.newton, { restitution = 1 }))
        has("world:simulation: unknown key 'dt'", error_of(w.simulation, w, { dt = 1e-3 }))
        has("world:simulation: solver: unknown key 'tolerance'",
            error_of(w.simulation, w, { solver = { "nsgs", tolerance = 1e-8 } }))
        local sim = w:simulation{}
        has("sim:run: unknown key 't'", error_of(sim.run, sim, { t = 1 }))
        has("world:contact: unknown key 'low'", error_of(w.contact, w, { groups = { 1, 2 }, low = false }))
        has("rc.box: unexpected entry [3]", error_of(rc.box, { 1, 2, 3 }))
    end)

    it("rejects wrong types", function()
        has("rc.world: 'gravity' must be a table of 2 numbers {gx, gy} (got 'down')",
            error_of(rc.world, { gravity = "down" }))
        has("world:body: 'mass' must be a number (got '1')", error_of(w.body, w, { mass = "1", inertia = 1 }))
        has("world:body: 'q' must be a table of 3 numbers {x, y, theta} (missing entry [3])",
            error_of(w.body, w, { mass = 1, inertia = 1, q = { 0, 0 } }))
        has("world:body: 'force_fn' must be a function (got 3)",
            error_of(w.body, w, { mass = 1, inertia = 1, force_fn = 3 }))
        has("world:body: 'shape' must be a shape descriptor",
            error_of(w.body, w, { mass = 1, inertia = 1, shape = { radius = 1 } }))
        has("world:body: 'name' must be a string (got 5)", error_of(w.body, w, { name = 5, mass = 1, inertia = 1 }))
        has("world:body: 'kind' must be one of \"rigid2d\" (got 'rigid3d')",
            error_of(w.body, w, { kind = "rigid3d", mass = 1, inertia = 1 }))
        has("world:body: expected a table argument", error_of(w.body, w, 3))
        has("rc.disk: 'group' must be an integer (got 1.5)", error_of(rc.disk, { radius = 1, group = 1.5 }))
        has("rc.world: 'default_law' must be a contact law", error_of(rc.world, { default_law = { e = 1 } }))
        has("world:contact: 'law' must be a contact law", error_of(w.contact, w, { groups = { 1, 2 }, law = true }))
        has("rc.param: 'name' must be a string (got 1)", error_of(rc.param, 1, 2))
        has("rc.param: default of parameter 'x' must be a number, a boolean or a string (got nil)",
            error_of(rc.param, "x"))
    end)

    it("checks the periodic cell and fixed obstacles", function()
        has("rc.world: 'periodic' must be {x0, x1} with x0 < x1 (got {1, 0})", error_of(rc.world, { periodic = { 1, 0 } }))
        has("rc.world: 'periodic' must be a table of 2 numbers {x0, x1} (got 'x')", error_of(rc.world, { periodic = "x" }))
        has("rc.world: 'periodic[2]' must be a finite number (got inf)", error_of(rc.world, { periodic = { 0, math.huge } }))
        has("world:obstacle: 'shape' is required", error_of(w.obstacle, w, { at = { 0, 0 } }))
        has("world:obstacle: 'shape' must be a disk, box, polygon or circle_inside (got point", error_of(w.obstacle, w, { rc.point{ 0, 0 } }))
        has("world:obstacle: 'shape' must be a shape descriptor", error_of(w.obstacle, w, { shape = { radius = 1 } }))
        has("world:obstacle: unknown key 'angel' (allowed: shape, at, angle, group, name)",
            error_of(w.obstacle, w, { rc.disk{ 1 }, angel = 1 }))
        has("world:obstacle: 'at' must be a table of 2 numbers {x, y} (got 3)", error_of(w.obstacle, w, { rc.disk{ 1 }, at = 3 }))
        -- a shape wider than half the cell fails the step, naming the shape
        local pw = rc.world{ periodic = { 0, 1 } }
        pw:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.3, name = "boulder" } }
        local sim = pw:simulation{}
        has("shape 0 'boulder' is 0.615 wide with the contact margin, not less than half the cell length 1",
            error_of(sim.step, sim))
    end)

    it("rejects a wrong or missing self without crashing", function()
        local b = w:body{ mass = 1, inertia = 1 }
        has("world:body: expected a world as first argument (got nil)", error_of(w.body, nil, { mass = 1 }))
        -- w.body{...} instead of w:body{...}
        has("world:body: expected a world as first argument (got a table)", error_of(w.body, { mass = 1, inertia = 1 }))
        has("body:q: expected a body as first argument (got a table)", error_of(b.q, w))
        has("body:set_state: expected a body", error_of(b.set_state, "x", {}))
        local sim = w:simulation{}
        has("sim:step: expected a simulation as first argument", error_of(sim.step, w))
        -- the C half checks its userdata
        has("ricochet.core.world expected", error_of(rc.core.step, {}))
        has("ricochet.core.world expected", error_of(rc.core.body_state, io.stdout, 0))
    end)
end)

describe("ranges", function()
    local w
    before_each(function() w = rc.world{} end)

    it("rejects zero or negative mass and inertia", function()
        has("world:body: 'mass' must be > 0 (got 0)", error_of(w.body, w, { mass = 0, inertia = 1 }))
        has("world:body: 'mass' must be > 0 (got -2.5)", error_of(w.body, w, { mass = -2.5, inertia = 1 }))
        has("world:body: 'inertia' must be > 0 (got 0)", error_of(w.body, w, { mass = 1, inertia = 0 }))
        has("world:body: 'inertia' must be > 0 (got -1)", error_of(w.body, w, { mass = 1, inertia = -1 }))
        has("world:body: 'mass' is required", error_of(w.body, w, { inertia = 1 }))
        has("world:body: 'inertia' is required", error_of(w.body, w, { mass = 1 }))
    end)

    it("rejects NaN and infinities everywhere", function()
        local nan, inf = 0 / 0, math.huge
        has("world:body: 'mass' must be a finite number (got nan)", error_of(w.body, w, { mass = nan, inertia = 1 }))
        has("world:body: 'inertia' must be a finite number (got inf)", error_of(w.body, w, { mass = 1, inertia = inf }))
        has("world:body: 'q[2]' must be a finite number (got -inf)",
            error_of(w.body, w, { mass = 1, inertia = 1, q = { 0, -inf, 0 } }))
        has("rc.world: 'gravity[2]' must be a finite number (got nan)", error_of(rc.world, { gravity = { 0, nan } }))
        has("rc.world: 'margin' must be a finite number (got inf)", error_of(rc.world, { margin = inf }))
        has("world:simulation: 'h' must be a finite number (got nan)", error_of(w.simulation, w, { h = nan }))
        has("world:simulation: 'theta' must be a finite number (got nan)", error_of(w.simulation, w, { theta = nan }))
        has("rc.newton: 'mu' must be a finite number (got inf)", error_of(rc.newton, { mu = inf }))
        has("rc.box: '[1] (width)' must be a finite number (got inf)", error_of(rc.box, { inf, 1 }))
        local b = w:body{ mass = 1, inertia = 1 }
        has("body:set_state: 'v[3]' must be a finite number (got nan)", error_of(b.set_state, b, { v = { 0, 0, nan } }))
        has("body:set_force: 'force[1]' must be a finite number (got inf)", error_of(b.set_force, b, { inf, 0, 0 }))
        has("world:halfplane: 'normal[1]' must be a finite number (got nan)",
            error_of(w.halfplane, w, { normal = { nan, 1 } }))
        local sim = w:simulation{}
        has("sim:run: 'T' must be a finite number (got inf)", error_of(sim.run, sim, { T = inf }))
    end)

    it("rejects theta outside [0, 1] and bad step sizes", function()
        has("world:simulation: 'theta' must be in [0, 1] (got 1.5)", error_of(w.simulation, w, { theta = 1.5 }))
        has("world:simulation: 'theta' must be in [0, 1] (got -0.1)", error_of(w.simulation, w, { theta = -0.1 }))
        has("world:simulation: 'h' must be > 0 (got 0)", error_of(w.simulation, w, { h = 0 }))
        has("world:simulation: 'persist_tol' must be >= 0 (got -1e-09)", error_of(w.simulation, w, { persist_tol = -1e-9 }))
        has("world:simulation: 'gamma' must be >= 0 (got -1)", error_of(w.simulation, w, { gamma = -1 }))
        has("world:simulation: 'h' must be > 0 (got -0.001)", error_of(w.simulation, w, { h = -1e-3 }))
        has("world:simulation: 'theta' must be > 0 for moreau-jean-fremond",
            error_of(w.simulation, w, { scheme = "moreau-jean-fremond", theta = 0 }))
        has("world:simulation: solver: 'max_iter' must be >= 1 (got 0)",
            error_of(w.simulation, w, { solver = { max_iter = 0 } }))
        has("world:simulation: solver: 'tol' must be > 0 (got 0)", error_of(w.simulation, w, { solver = { tol = 0 } }))
        -- the limits are accepted
        w:simulation{ theta = 0 }
        w:simulation{ theta = 1 }
    end)

    it("rejects bad scheme, activation and solver names", function()
        has("world:simulation: 'scheme' must be one of \"moreau-jean\", \"moreau-jean-fremond\", \"maury\", \"gen-alpha\" (got 'moreau')",
            error_of(w.simulation, w, { scheme = "moreau" }))
        has("world:simulation: 'activation' must be one of \"gap\", \"anticipate\" (got 'always')",
            error_of(w.simulation, w, { activation = "always" }))
        has("world:simulation: solver: unknown solver 'lemke' (available: \"nsgs\", \"uzawa\", \"newton\", \"apgd\")",
            error_of(w.simulation, w, { solver = { "lemke" } }))
        has("world:simulation: solver: 'on_fail' must be one of \"warn\", \"error\" (got 'ignore')",
            error_of(w.simulation, w, { solver = { on_fail = "ignore" } }))
        has("world:simulation: solver: 'relax' must be in (0, 2) (got 2)",
            error_of(w.simulation, w, { solver = { relax = 2 } }))
        has("world:simulation: solver: 'order' must be one of \"fixed\", \"random\", \"position\", \"top\", \"colour\", \"color\", \"slabs\" (got 'shuffle')",
            error_of(w.simulation, w, { solver = { order = "shuffle" } }))
        has("'theta' must be 1 for maury",
            error_of(w.simulation, w, { scheme = "maury", theta = 0.5 }))
        has("world:simulation: solver: 'norm' must be one of \"l2\", \"max\", \"siconos\" (got 'inf')",
            error_of(w.simulation, w, { solver = { norm = "inf" } }))
        has("world:simulation: solver: 'accelerate' must be true or false (got 1)",
            error_of(w.simulation, w, { solver = { "uzawa", accelerate = 1 } }))
        has("world:simulation: solver: 'relax' must be <= 1 for the accelerated Uzawa (got 1.5; accelerate = false for the plain one)",
            error_of(w.simulation, w, { solver = { "uzawa", relax = 1.5 } }))
        assert.is_truthy(w:simulation{ solver = { "uzawa", relax = 1.5, accelerate = false } })
    end)

    it("rejects bad laws", function()
        has("rc.newton: 'e' must be in [0, 1] (got 1.5)", error_of(rc.newton, { e = 1.5 }))
        has("rc.newton: 'e' must be in [0, 1] (got -0.5)", error_of(rc.newton, { e = -0.5 }))
        has("rc.newton: 'mu' must be >= 0 (got -1)", error_of(rc.newton, { mu = -1 }))
        has("rc.newton: 'e' must be a number (got 'high')", error_of(rc.newton, { e = "high" }))
    end)

    it("rejects bad polygons", function()
        -- a dart (non-convex)
        has("rc.polygon: 'vertices' must form a strictly convex polygon (not convex at vertex 3",
            error_of(rc.polygon, { vertices = { { 0, 0 }, { 2, 1 }, { 0.5, 0.5 }, { 1, 2 } } }))
        -- clockwise
        has("rc.polygon: 'vertices' must be in counter-clockwise order",
            error_of(rc.polygon, { vertices = { { 0, 0 }, { 0, 1 }, { 1, 0 } } }))
        -- a pentagram: every turn is to the left but it winds twice
        local star = {}
        for i = 0, 4 do
            local a = 2 * math.pi * (2 * i) / 5
            star[#star + 1] = { math.cos(a), math.sin(a) }
        end
        has("rc.polygon: 'vertices' must form a simple convex polygon (the boundary winds 2 times)",
            error_of(rc.polygon, { vertices = star }))
        has("rc.polygon: 'vertices' must have 3 to 16 points (got 2)",
            error_of(rc.polygon, { vertices = { { 0, 0 }, { 1, 0 } } }))
        has("rc.polygon: 'vertices[2]' must be a table of 2 numbers {x, y} (got 1)",
            error_of(rc.polygon, { vertices = { { 0, 0 }, 1, { 0, 1 } } }))
        -- collinear (degenerate) vertex
        has("not convex at vertex 2",
            error_of(rc.polygon, { vertices = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 1, 1 } } }))
        has("rc.box: '[2] (height)' must be > 0 (got -1)", error_of(rc.box, { 1, -1 }))
        has("rc.box: give the size either as {w, h} or as width = w, height = h, not both",
            error_of(rc.box, { 1, 1, width = 2 }))
    end)

    it("rejects bad obstacles and contact rules", function()
        has("world:halfplane: 'normal' must be nonzero", error_of(w.halfplane, w, { normal = { 0, 0 } }))
        has("world:segment: 'a' and 'b' must differ", error_of(w.segment, w, { a = { 1, 1 }, b = { 1, 1 } }))
        has("world:segment: 'radius' must be >= 0 (got -1)",
            error_of(w.segment, w, { a = { 0, 0 }, b = { 1, 1 }, radius = -1 }))
        has("world:segment: 'b' is required", error_of(w.segment, w, { a = { 0, 0 } }))
        local b = w:body{ mass = 1, inertia = 1 }
        local other = rc.world{}:body{ mass = 1, inertia = 1 }
        has("world:contact: argument [2] belongs to another world", error_of(w.contact, w, { b, other }))
        has("world:contact: argument [2] must be a body of this world or w.ground (got 3)",
            error_of(w.contact, w, { b, 3 }))
        has("world:contact: a body does not contact itself", error_of(w.contact, w, { b, b }))
        has("world:contact: 'name' is only allowed for a pair of bodies",
            error_of(w.contact, w, { groups = { 1, 2 }, name = "C" }))
        has("world:contact: give two bodies", error_of(w.contact, w, { b }))
        w:contact{ b, w.ground, name = "C" }
        has("world:contact: contact: 'name' \"C\" is already used",
            error_of(w.contact, w, { w.ground, b, name = "C" }))
        has("world:body: a body named 'x' already exists",
            error_of(function() w:body{ name = "x", mass = 1, inertia = 1 }; w:body{ name = "x", mass = 1, inertia = 1 } end))
        has("rc.world: 'dim' must be 2 or 3 (got 4)", error_of(rc.world, { dim = 4 }))
    end)
end)

describe("force functions", function()
    local function sim_with(fn)
        local w = rc.world{}
        w:body{ name = "rod", mass = 1, inertia = 1, force_fn = fn }
        return w, w:simulation{ h = 0.01 }
    end

    it("returning NaN fails the step with a message naming the body", function()
        local w, sim = sim_with(function() return { 0 / 0, 0, 0 } end)
        local err = error_of(sim.step, sim)
        has("sim:step: force function of body 0 (rod)", err)
        has("force_fn result[1] must be a finite number, got nan", err)
        assert.are.equal(0, sim.steps) -- the state is left as it was
    end)

    it("returning a string or a short table fails the step", function()
        local w, sim = sim_with(function() return "up" end)
        has("force_fn must return a table of 3 finite numbers {fx, fy, torque}, got string", error_of(sim.step, sim))
        w, sim = sim_with(function() return { 1, 2 } end)
        has("got a table of length 2", error_of(sim.step, sim))
        w, sim = sim_with(function() return { 1, "2", 3 } end)
        has("force_fn result[2] must be a finite number, got string", error_of(sim.step, sim))
    end)

    it("an error inside the force function carries its own message", function()
        local w, sim = sim_with(function() error("no force today") end)
        local err = error_of(sim.step, sim)
        has("force function of body 0 (rod)", err)
        has("no force today", err)
        w, sim = sim_with(function() error({}) end)
        has("force_fn raised an error object of type table", error_of(sim.step, sim))
    end)

    it("may not step or change the world from inside", function()
        local sim
        local w
        w, sim = sim_with(function() sim:step(); return { 0, 0, 0 } end)
        has("sim:step: not allowed inside a force function", error_of(sim.step, sim))
        w, sim = sim_with(function() w:body{ mass = 1, inertia = 1 }; return { 0, 0, 0 } end)
        has("world:body: not allowed inside a force function", error_of(sim.step, sim))
        assert.are.equal(0, sim.steps)
    end)
end)

describe("runs and simulations", function()
    it("a world closed by an after_step callback stops the step's own callbacks (fuzz seed 8902499)", function()
        -- the VTK series' frame callback ran on the closed world and raised from inside
        -- lua/ricochet/simulation.lua; now sim:step names itself and what happened
        local p = os.tmpname()
        os.remove(p)
        assert(os.execute("mkdir -p '" .. p .. "'"))
        for _, order in ipairs { "callback first", "series first" } do
            local w = rc.world{ gravity = { 0, -10 } }
            w:body{ mass = 1, inertia = 0.1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.5 } }
            local sim = w:simulation{}
            local function closer() w:close() end
            if order == "callback first" then sim:after_step(closer) end
            sim:vtk{ dir = p .. "/" .. order:gsub(" ", "_"), every = 1 }
            if order == "series first" then sim:after_step(closer) end
            local err = error_of(sim.step, sim)
            has("sim:step: the world has been closed (by an after_step callback)", err)
            assert.is_nil(err:find("ricochet/simulation.lua", 1, true), err)
            has("sim:step: the world has been closed", error_of(sim.step, sim))
        end
        os.execute("rm -rf '" .. p .. "'")
    end)

    it("require T and a known contact name", function()
        local w = rc.world{}
        local b = w:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 1 } }
        w:halfplane{}
        local sim = w:simulation{}
        has("sim:run: 'T' is required", error_of(sim.run, sim, {}))
        has("sim:run: 'T' must be >= 0 (got -1)", error_of(sim.run, sim, { T = -1 }))
        has("sim:run: expected a table argument", error_of(sim.run, sim, 1))
        has("sim:run: 'every' must be > 0 (got 0)", error_of(sim.run, sim, { T = 1, every = 0 }))
        has("sim:contact: unknown contact name 'C' (no named contacts", error_of(sim.contact, sim, "C"))
        w:contact{ b, w.ground, name = "floor" }
        has("sim:contact: unknown contact name 'C' (known: floor)", error_of(sim.contact, sim, "C"))
        has("sim:before_step: 'fn' must be a function (got 1)", error_of(sim.before_step, sim, 1))
        has("sim:close_output: 'status' must be one of", error_of(sim.close_output, sim, "done"))
    end)

    it("a solver failure under on_fail = error raises", function()
        local w = rc.world{ gravity = { 0, -10 } }
        local a = w:body{ mass = 1, inertia = 0.1, q = { 0, 0.5, 0 }, shape = rc.disk{ radius = 0.5 } }
        local b = w:body{ mass = 1, inertia = 0.1, q = { 0.2, 1.45, 0 }, shape = rc.disk{ radius = 0.5 } }
        w:halfplane{}
        w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.8 } }
        local sim = w:simulation{ h = 1e-2, solver = { tol = 1e-300, max_iter = 1, on_fail = "error" } }
        has("sim:run: solver did not converge", error_of(sim.run, sim, { T = 1 }))
        assert.are.equal("error", sim.summary.status)
    end)

    it("fail cleanly on a closed world", function()
        local w = rc.world{}
        local b = w:body{ mass = 1, inertia = 1 }
        local sim = w:simulation{}
        w:close()
        has("sim:step: the world has been closed", error_of(sim.step, sim))
        has("world:body: the world has been closed", error_of(w.body, w, { mass = 1, inertia = 1 }))
        has("body:mass: the world has been closed", error_of(b.mass, b))
        w:close() -- idempotent
    end)

    it("reject bad --set values for the type of the default", function()
        rc.set_options{ set = { n = "2.5", flag = "yes", x = "1e999" } }
        has("parameter 'n': expected an integer, got '2.5'", error_of(rc.param, "n", 3))
        has("parameter 'flag': expected true or false, got 'yes'", error_of(rc.param, "flag", false))
        has("parameter 'x': expected a number, got '1e999'", error_of(rc.param, "x", 1))
        rc.set_options(nil)
        rc.reset_params()
        has("rc.set_options: 'set' must map names to strings", error_of(rc.set_options, { set = { a = 1 } }))
    end)
end)
