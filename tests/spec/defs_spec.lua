-- defs_spec.lua -- the definitions' defaults and range checks have one
-- source, the kernel (src/lua/lrc_defs.c, docs/architecture.md "The Lua
-- binding"): the Lua front end fills absent keys from core.defaults (built
-- from the rc_default_*_def functions) and leaves the ranges to the kernel's
-- rc_*_def_check (core.check_def), whose message reaches the user at the
-- script line with the function's and the argument's names.
local rc = require "ricochet"
local core = rc.core

-- Run src as a script chunk named "myscript"; return its error message.
local function script_error(src)
    local chunk = assert(load(src, "=myscript"))
    local ok, err = pcall(chunk)
    assert.is_false(ok, "the script did not fail")
    return err
end

-- Run fn with core.defaults[kind][key] = value, then restore it.
local function with_default(kind, key, value, fn)
    local d = core.defaults[kind]
    local old = d[key]
    d[key] = value
    local ok, err = pcall(fn)
    d[key] = old
    assert(ok, err)
end

-- Run fn with core.check_def replaced by stub, then restore it.
local function with_check(stub, fn)
    local old = core.check_def
    core.check_def = stub
    local ok, err = pcall(fn)
    core.check_def = old
    assert(ok, err)
end

local PRE = 'local rc = require "ricochet"\nlocal w = rc.world{}\n'

describe("laws (rc.newton, rc.moreau, rc.fremond, law:set, rc.laws.make)", function()
    it("the kernel's defaults (rc_default_law_def)", function()
        assert.are.same({ e = 0, mu = 0, e_t = 0, radius = 0, local_solver = "exact" }, core.defaults.law)
    end)

    it("are the descriptors' defaults, read from core.defaults (not written twice)", function()
        for _, make in ipairs{ rc.newton, rc.moreau, rc.fremond } do
            local l = make{}
            assert.are.equal(core.defaults.law.e, l.e)
            assert.are.equal(core.defaults.law.mu, l.mu)
            assert.are.equal(core.defaults.law.local_solver, l.local_solver)
        end
        assert.are.equal(core.defaults.law.e_t, rc.moreau{}.e_t)
        with_default("law", "mu", 0.25, function()
            assert.are.equal(0.25, rc.newton{}.mu)
            assert.are.equal(0.25, rc.moreau{ e = 0.5 }.mu)
        end)
        with_default("law", "e", 0.75, function() assert.are.equal(0.75, rc.fremond{}.e) end)
    end)

    it("are range-checked by the kernel only", function()
        -- the kernel's message, as core.check_def gives it
        assert.are.equal("rc.newton: 'e' must be in [0, 1] (got 1.5)",
                         core.check_def("law", "rc.newton", { type = "newton", e = 1.5 }))
        assert.are.equal("rc.moreau: 'e_t' must be in [-1, 1] (got -1.0000000000000002)",
                         core.check_def("law", "rc.moreau", { type = "moreau", e_t = -1.0000000000000002 }))
        assert.is_nil(core.check_def("law", "rc.newton", { type = "newton", e = 1, mu = 0 }))
        -- the front end raises what the kernel says ...
        with_check(function(kind, fname, t)
            if t.e == 0.5 then return fname .. ": from the kernel (" .. kind .. ")" end
        end, function()
            assert.are.equal("myscript:3: rc.newton: from the kernel (law)",
                             script_error(PRE .. "local l = rc.newton{ e = 0.5 }\n"))
        end)
        -- ... and has no range check of its own
        with_check(function() return nil end, function()
            assert.are.equal(1.5, rc.newton{ e = 1.5 }.e)
            assert.are.equal(-1, rc.moreau{ mu = -1 }.mu)
            assert.are.equal(2, rc.moreau{ e_t = 2 }.e_t)
        end)
    end)

    it("reach the user at the script line with the argument's name and value", function()
        assert.are.equal("myscript:3: rc.newton: 'e' must be in [0, 1] (got 1.5)",
                         script_error(PRE .. "local l = rc.newton{ e = 1.5 }\n"))
        assert.are.equal("myscript:3: rc.fremond: 'mu' must be >= 0 (got -0.30000000000000004)",
                         script_error(PRE .. "local l = rc.fremond{ mu = -(0.1 + 0.2) }\n"))
        assert.are.equal("myscript:3: rc.moreau: 'e_t' must be in [-1, 1] (got 2)",
                         script_error(PRE .. "local l = rc.moreau{ e_t = 2 }\n"))
        assert.are.equal("myscript:4: law:set: 'mu' must be >= 0 (got -1)",
                         script_error(PRE .. "local l = rc.newton{}\nl:set{ mu = -1 }\n"))
        assert.are.equal("myscript:3: rc.laws.make: 'e_t' must be in [-1, 1] (got 3)",
                         script_error(PRE .. "local l = rc.laws.make('moreau', { e_t = 3 })\n"))
    end)
end)

describe("shapes (rc.disk, rc.box, rc.polygon, rc.point, world:halfplane, world:segment)", function()
    it("the kernel's defaults (rc_default_shape_def; a segment's radius: the binding's)", function()
        assert.are.same({ radius = 0.5, offset = { 0, 0 }, point = { 0, 0 }, normal = { 0, 1 }, group = 0,
                          segment_radius = 0 }, core.defaults.shape)
    end)

    it("are the descriptors' defaults, read from core.defaults", function()
        local d = rc.disk{ 0.5 }
        assert.are.same(core.defaults.shape.offset, d.offset)
        assert.are.equal(core.defaults.shape.group, d.group)
        assert.are.same(core.defaults.shape.offset, rc.point{}.offset)
        with_default("shape", "group", 7, function()
            assert.are.equal(7, rc.disk{ 1 }.group)
            assert.are.equal(7, rc.polygon{ vertices = { { 0, 0 }, { 1, 0 }, { 0, 1 } } }.group)
            local w = rc.world{}
            local id = w:segment{ a = { 0, 0 }, b = { 1, 0 } }
            assert.are.equal(7, core.shape_def(w._c, id).group)
        end)
        with_default("shape", "offset", { 1, 2 }, function() assert.are.same({ 1, 2 }, rc.disk{ 1 }.offset) end)
        with_default("shape", "normal", { 0, -2 }, function()
            local w = rc.world{}
            assert.are.same({ 0, -1 }, core.shape_def(w._c, w:halfplane{}).normal)
        end)
        with_default("shape", "segment_radius", 0.125, function()
            local w = rc.world{}
            assert.are.equal(0.125, core.shape_def(w._c, w:segment{ a = { 0, 0 }, b = { 1, 0 } }).radius)
        end)
    end)

    it("are range-checked by the kernel only", function()
        assert.are.equal("rc.polygon: 'vertices' must form a strictly convex polygon (not convex at vertex 3 {0.5, 0.5})",
                         core.check_def("shape", "rc.polygon", { type = "polygon",
                             vertices = { { 0, 0 }, { 1, 0 }, { 0.5, 0.5 }, { 1, 1 }, { 0, 1 } } }))
        with_check(function() return nil end, function()
            assert.are.equal(-1, rc.disk{ -1 }.radius)
            assert.are.equal(2, #rc.polygon{ vertices = { { 0, 0 }, { 1, 0 } } }.vertices)
        end)
    end)

    it("reach the user at the script line with the argument's name and value", function()
        assert.are.equal("myscript:3: rc.disk: 'radius' must be > 0 (got -0.5)",
                         script_error(PRE .. "local d = rc.disk{ -0.5 }\n"))
        assert.are.equal("myscript:3: rc.polygon: 'vertices' must have 3 to 16 points (got 17)",
                         script_error(PRE .. "local v = {} for i = 1, 17 do v[i] = { math.cos(i), math.sin(i) } end "
                                      .. "local d = rc.polygon{ vertices = v }\n"))
        assert.are.equal("myscript:3: rc.polygon: 'vertices' must be in counter-clockwise order (signed area -0.5 <= 0)",
                         script_error(PRE .. "local d = rc.polygon{ vertices = { { 0, 0 }, { 0, 1 }, { 1, 0 } } }\n"))
        assert.are.equal("myscript:3: world:segment: 'radius' must be >= 0 (got -0.25)",
                         script_error(PRE .. "w:segment{ a = { 0, 0 }, b = { 1, 0 }, radius = -0.25 }\n"))
        assert.are.equal("myscript:3: world:halfplane: 'normal' must be nonzero",
                         script_error(PRE .. "w:halfplane{ normal = { 0, 0 } }\n"))
    end)
end)

describe("worlds and bodies (rc.world, world:body)", function()
    it("the kernel's defaults (rc_default_world_def, rc_default_body_def)", function()
        assert.are.same({ dim = 2, gravity = { 0, 0 }, margin = 0.01 }, core.defaults.world)
        assert.are.same({ mass = 1, inertia = 1, q = { 0, 0, 0 }, v = { 0, 0, 0 }, force = { 0, 0, 0 } },
                        core.defaults.body)
    end)

    it("are the front end's defaults, read from core.defaults", function()
        local w = rc.world{}
        assert.are.same(core.defaults.world.gravity, w.gravity)
        assert.are.equal(core.defaults.world.margin, w.margin)
        with_default("world", "margin", 0.125, function() assert.are.equal(0.125, rc.world{}.margin) end)
        with_default("world", "gravity", { 0, -1 }, function() assert.are.same({ 0, -1 }, rc.world{}.gravity) end)
        with_default("body", "q", { 1, 2, 3 }, function()
            local b = rc.world{}:body{ mass = 1, inertia = 1 }
            assert.are.same({ 1, 2, 3 }, b:q())
        end)
        with_default("body", "force", { 0, -2, 0 }, function()
            assert.are.same({ 0, -2, 0 }, rc.world{}:body{ mass = 1, inertia = 1 }:force())
        end)
    end)

    it("are range-checked by the kernel only", function()
        -- (the kernel shows a value as the front end does: check.show)
        assert.are.equal("world:body: 'inertia' = " .. require("ricochet.check").show(1e-320)
                         .. " is too small: 1/inertia is not a finite number",
                         core.check_def("body", "world:body", { mass = 1, inertia = 1e-320 }))
        assert.are.equal("rc.world: 'gravity[2]' = -10000000000000 is beyond the limit of 1e+12 in magnitude "
                         .. "(velocities and energies would overflow)",
                         core.check_def("world", "rc.world", { gravity = { 0, -1e13 } }))
        with_check(function() return nil end, function()
            -- no check in Lua: the world reaches the kernel's rc_world_create, which refuses it
            local ok, err = pcall(rc.world, { margin = -1 })
            assert.is_false(ok)
            assert.matches("rc.world: world: 'margin' must be >= 0 (got -1)", err, 1, true)
            local w = rc.world{}
            ok, err = pcall(w.body, w, { mass = -1, inertia = 1 })
            assert.is_false(ok)
            assert.matches("world:body: body: 'mass' must be > 0 (got -1)", err, 1, true)
        end)
    end)

    it("reach the user at the script line with the argument's name and value", function()
        assert.are.equal("myscript:3: rc.world: 'margin' must be >= 0 (got -0.01)",
                         script_error(PRE .. "local v = rc.world{ margin = -0.01 }\n"))
        assert.are.equal("myscript:3: rc.world: 'dim' must be 2 or 3 (got 4)",
                         script_error(PRE .. "local v = rc.world{ dim = 4 }\n"))
        assert.are.equal("myscript:3: world:body: 'inertia' must be > 0 (got 0)",
                         script_error(PRE .. "local b = w:body{ mass = 1, inertia = 0 }\n"))
        assert.are.equal("myscript:3: world:body: 'mass' = " .. require("ricochet.check").show(1e-310)
                         .. " is too small: 1/mass is not a finite number",
                         script_error(PRE .. "local b = w:body{ mass = 1e-310, inertia = 1 }\n"))
    end)
end)

describe("simulation options (world:simulation)", function()
    it("the kernel's defaults (rc_default_sim_def)", function()
        assert.are.same({
            scheme = "moreau-jean", theta = 0.5, h = 1e-3, activation = "anticipate", gamma = 0.5, persist_tol = 1e-9,
            solver = "nsgs", relax = 1, order = "fixed", seed = 1, check_every = 1, tol = 1e-10, max_iter = 1000,
            on_fail = "warn", warm_start = true, local_tol = 0, local_max_iter = 200, threads = 1,
            adaptive_threads = true, norm = "l2", accelerate = true, work_check = "record", work_tol = 1e-12,
            joint_jacobian = "auto", project_joints = false, project_tol = 1e-12, project_max_iter = 50,
            project_contacts = false, formulation = "alart-curnier", fallback = true, linear = "auto",
            residual = "pass", skip_quiet = 0,
        }, core.defaults.sim)
    end)

    it("are the simulation's defaults, read from core.defaults", function()
        local sim = rc.world{}:simulation{}
        for k, v in pairs(core.defaults.sim) do
            if k ~= "joint_jacobian" then assert.are.equal(v, sim[k], k) end
        end
        assert.are.equal("end", sim.joint_jacobian)   -- "auto", resolved by the kernel
        for k, v in pairs{ h = 0.25, tol = 1e-6, max_iter = 7, persist_tol = 0, on_fail = "error", norm = "max" } do
            with_default("sim", k, v, function() assert.are.equal(v, rc.world{}:simulation{}[k], k) end)
        end
    end)

    it("take the joints' Jacobian the kernel chooses (rc_sim_joint_jacobian)", function()
        local w = rc.world{}
        assert.are.equal("midpoint", w:simulation{ theta = 0.75 }.joint_jacobian)
        assert.are.equal("midpoint", w:simulation{ scheme = "moreau-jean-fremond" }.joint_jacobian)
        assert.are.equal("start", w:simulation{ project_joints = true }.joint_jacobian)
        assert.are.equal("end", w:simulation{ theta = 0.7 }.joint_jacobian)
    end)

    it("are range-checked by the kernel only", function()
        assert.are.equal("world:simulation: solver: 'local_tol' must be >= 0 (got -1)",
                         core.check_def("sim", "world:simulation", { local_tol = -1 }))
        assert.are.equal("world:simulation: 'theta' must be 1 for maury (q_{k+1} = q_k + h u_{k+1}; got 0.5)",
                         core.check_def("sim", "world:simulation", { scheme = "maury", theta = 0.5 }))
        with_check(function() return nil end, function()
            -- no check in Lua: the settings reach rc_world_configure, which refuses them
            local w = rc.world{}
            local ok, err = pcall(w.simulation, w, { h = -1 })
            assert.is_false(ok)
            assert.matches("world:simulation: simulation: 'h' must be > 0 (got -1)", err, 1, true)
        end)
    end)

    it("reach the user at the script line with the argument's name and value", function()
        assert.are.equal("myscript:3: world:simulation: 'h' = 1e-13 is below the limit of 1e-12 "
                         .. "(runs would not end; forces = impulses / h would overflow)",
                         script_error(PRE .. "local s = w:simulation{ h = 1e-13 }\n"))
        assert.are.equal("myscript:3: world:simulation: solver: 'tol' must be > 0 (got 0)",
                         script_error(PRE .. "local s = w:simulation{ solver = { tol = 0 } }\n"))
        assert.are.equal("myscript:3: world:simulation: solver: 'max_iter' must be >= 1 (got -5)",
                         script_error(PRE .. "local s = w:simulation{ solver = { max_iter = -5 } }\n"))
        assert.are.equal("myscript:3: world:simulation: 'project_tol' must be > 0 (got 0)",
                         script_error(PRE .. "local s = w:simulation{ project_tol = 0 }\n"))
        assert.are.equal("myscript:3: world:simulation: 'theta' must be > 0 for moreau-jean-fremond "
                         .. "(got 0: W = theta H M^-1 H^T vanishes)",
                         script_error(PRE .. "local s = w:simulation{ scheme = 'moreau-jean-fremond', theta = 0 }\n"))
    end)
end)

describe("springs (world:spring, world:torsion_spring)", function()
    local function two_bodies()
        local w = rc.world{}
        return w, w:body{ mass = 1, inertia = 1 }, w:body{ mass = 1, inertia = 1, q = { 1, 0, 0 } }
    end

    it("the kernel's defaults (rc_default_spring_def)", function()
        assert.are.same({ point_a = { 0, 0 }, point_b = { 0, 0 }, k = 0, c = 0 }, core.defaults.spring)
    end)

    it("are the front end's defaults, read from core.defaults", function()
        local w, a, b = two_bodies()
        assert.are.equal(core.defaults.spring.c, w:spring{ a, b, k = 1 }.c)
        with_default("spring", "c", 0.5, function()
            assert.are.equal(0.5, w:spring{ a, b, k = 1 }.c)
            assert.are.equal(0.5, w:torsion_spring{ a, b, k = 1 }.c)
        end)
    end)

    it("are range-checked by the kernel only, and reach the user at the script line", function()
        assert.are.equal("world:spring: 'c' must be >= 0 (got -0.5)",
                         core.check_def("spring", "world:spring", { type = "linear", k = 1, c = -0.5 }))
        local pre = PRE .. "local a, b = w:body{ mass = 1, inertia = 1 }, w:body{ mass = 1, inertia = 1 }\n"
        assert.are.equal("myscript:4: world:torsion_spring: 'k' must be >= 0 (got -2)",
                         script_error(pre .. "w:torsion_spring{ a, b, k = -2 }\n"))
        assert.are.equal("myscript:4: world:spring: 'c' must be >= 0 (got -1)",
                         script_error(pre .. "w:spring{ a, b, k = 1, c = -1 }\n"))
        with_check(function() return nil end, function()
            local w, a, b = two_bodies()
            local ok, err = pcall(w.spring, w, { a, b, k = -1 })
            assert.is_false(ok)   -- refused by rc_spring_create itself
            assert.matches("world:spring: spring '(unnamed)': 'k' must be >= 0 (got -1)", err, 1, true)
        end)
    end)
end)

describe("joints, motors and limits, linear bodies, gap contacts", function()
    local function two_bodies()
        local w = rc.world{}
        return w, w:body{ mass = 1, inertia = 1 }, w:body{ mass = 1, inertia = 1, q = { 1, 0, 0 } }
    end

    it("the kernel's defaults (rc_default_joint_def, rc_default_gap_def; the limits': the binding's)", function()
        assert.are.same({ point_a = { 0, 0 }, point_b = { 0, 0 }, axis = { 1, 0 },
                          limits = { lower = -math.huge, upper = math.huge, e = 0 } }, core.defaults.joint)
        assert.are.same({ g0 = 0 }, core.defaults.gap)
    end)

    it("are the front end's defaults, read from core.defaults", function()
        local w, a, b = two_bodies()
        assert.are.same(core.defaults.joint.limits.e, w:revolute{ a, b, at = { 0, 0 }, limits = { lower = -1 } }._limits.e)
        with_default("joint", "limits", { lower = -2, upper = math.huge, e = 0.5 }, function()
            local l = w:revolute{ a, b, at = { 0, 0 }, limits = { upper = 1 } }._limits
            assert.are.same({ -2, 1, 0.5 }, { l.lower, l.upper, l.e })
        end)
        with_default("gap", "g0", 0.25, function()
            local bar = w:linear{ M = { { 1 } } }
            local g = w:gap{ bar, index = { 1 }, normal = { 1 } }
            w:simulation{ h = 1e-3 }:step()
            assert.are.equal(0.25, w:simulation{ h = 1e-3 }:contacts()[1].gN)
        end)
    end)

    it("are range-checked by the kernel only, and reach the user at the script line", function()
        assert.are.equal("world:line: 'axis' must be nonzero",
                         core.check_def("joint", "world:line", { type = "line", axis = { 0, 0 } }))
        assert.are.equal("world:revolute: 'break_force' must be > 0 (got -1; INFINITY or 0: never breaks)",
                         core.check_def("joint", "world:revolute", { type = "revolute", break_force = -1 }))
        assert.are.equal("world:revolute: 'motor.max_torque' must be >= 0 (got -2)",
                         core.check_def("motor", "world:revolute", { speed = 1, max = -2, key = "motor", maxkey = "max_torque" }))
        assert.are.equal("joint:set_limits: 'argument [1].e' must be in [0, 1] (got 2)",
                         core.check_def("limits", "joint:set_limits", { lower = 0, e = 2, key = "argument [1]" }))
        assert.are.equal("world:linear: 'M' must be symmetric (M[1][2] = 0.5 but M[2][1] = 0)",
                         core.check_def("linear", "world:linear", { n = 2, M = { { 1, 0.5 }, { 0, 1 } } }))
        local pre = PRE .. "local a, b = w:body{ mass = 1, inertia = 1 }, w:body{ mass = 1, inertia = 1 }\n"
        assert.are.equal("myscript:4: world:constraint: 'rows' must be 1, 2 or 3 (got 4)",
                         script_error(pre .. "w:constraint{ a, b, rows = 4, g = function() return 0 end }\n"))
        assert.are.equal("myscript:4: world:revolute: 'limits.e' must be in [0, 1] (got 1.5)",
                         script_error(pre .. "w:revolute{ a, b, at = { 0, 0 }, limits = { lower = 0, e = 1.5 } }\n"))
        with_check(function() return nil end, function()
            -- no check in Lua: the kernel's rc_joint_create / rc_joint_set_limits refuse them
            local w, a, b = two_bodies()
            local ok, err = pcall(w.line, w, { a, b, axis = { 0, 0 }, at = { 0, 0 } })
            assert.is_false(ok)
            assert.matches("world:line: joint '(unnamed)': 'axis' must be nonzero", err, 1, true)
            ok, err = pcall(w.revolute, w, { a, b, at = { 0, 0 }, limits = { lower = 1, upper = 0 } })
            assert.is_false(ok)
            assert.matches("rc_joint_set_limits: 'lower' (1) must be < 'upper' (0)", err, 1, true)
            ok, err = pcall(w.linear, w, { M = { { 1, 0.5 }, { 0, 1 } } })
            assert.is_false(ok)
            assert.matches("linear body '(unnamed)': 'M' must be symmetric", err, 1, true)
        end)
    end)
end)
