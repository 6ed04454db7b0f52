-- joints3d_drive_spec.lua -- prescribed (rheonomic) motion of the joints of
-- spatial bodies (w:joint{ ..., motion = f, motion_rate = df }; docs/theory/
-- spatial.md "Prescribed motion"): a hinge driven at a constant rate and
-- along a sinusoid follows its function, its reaction torque is the analytic
-- I theta'' + m g l/2 cos theta of a rod under gravity and the drive's work
-- closes the energy balance; a driven prismatic joint (a lift) and a driven
-- distance joint (a winch); motors (a wheel spun up at its torque limit, a
-- lift short of force); the errors.
local rc = require "ricochet"
local S = require "spec_helper"
local error_of = S.error_of
local has = S.has

local g = 9.81

-- A rod (mass m, length l) hinged at its end to the ground about -y, driven
-- along f from the horizontal; returns the largest |theta - f(t)|, the
-- largest |tau - tau(t_{k+1/2})| with tau = I f'' + m g l/2 cos f (I = m l^2/3),
-- the energy change minus the joints' work, and the joint.
local function driven_rod(f, df, ddf, opts)
    local m, l, h = 2, 1, 1e-3
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
    local rod = w:body{ mass = m, inertia = { 1e-3, m * l * l / 12, m * l * l / 12 }, q = { l / 2, 0, 0, 1, 0, 0, 0 } }
    local j = w:joint{ kind = "revolute", a = w.ground, b = rod, anchor = { 0, 0, 0 }, axis = { 0, -1, 0 },
                       motion = f, motion_rate = df, name = "drive" }
    opts.h, opts.solver = h, { "nsgs", tol = 1e-12 }
    local sim = w:simulation(opts)
    local E0 = sim:energy().total
    local err, terr = 0, 0
    sim:after_step(function(s)
        local i = j:info()
        local tm = s.t - h / 2
        err = math.max(err, math.abs(i.coordinate - f(s.t)))
        terr = math.max(terr, math.abs(i.drive_force - (m * l * l / 3 * ddf(tm) + m * g * l / 2 * math.cos(f(tm)))))
    end)
    sim:run{ T = 1 }
    local info = sim:info()
    return err, terr, math.abs(sim:energy().total - E0 - info.W_J_total - (info.W_proj_total or 0)), j
end

local A, Om = 0.5, 3
local function sine(t) return A * math.sin(Om * t) end
local function dsine(t) return A * Om * math.cos(Om * t) end
local function ddsine(t) return -A * Om * Om * math.sin(Om * t) end

describe("3D joints: prescribed motion", function()
    it("a hinge driven at a constant rate follows theta = omega t to round-off (Moreau-Jean)", function()
        local err, terr, bal, j = driven_rod(function(t) return 1.2 * t end, function() return 1.2 end, function() return 0 end, {})
        assert.is_true(err < 1e-12, "angle error " .. err)                   -- measured 6.3e-14
        assert.is_true(terr < 1e-3 * g, "torque error " .. terr)             -- measured 5.1e-3 (O(h) under Moreau-Jean)
        assert.is_true(bal < 1e-9, "E - E0 - W_J " .. bal)
        assert.are.equal(6, #j:info().impulse)
    end)

    it("a hinge driven along a sinusoid: O(h^2) drift, to the solver tolerance with project_joints; the reaction torque", function()
        local err, terr, bal = driven_rod(sine, dsine, ddsine, {})
        assert.is_true(err < 1e-6, "angle error " .. err)                    -- measured 3.7e-7
        assert.is_true(terr < 1e-3 * g, "torque error " .. terr)             -- measured 1.5e-3
        assert.is_true(bal < 1e-9, "E - E0 - W_J " .. bal)
        local err2, terr2 = driven_rod(sine, dsine, ddsine, { project_joints = true })
        assert.is_true(err2 < 1e-10, "projected angle error " .. err2)       -- measured 3.3e-13
        assert.is_true(terr2 < 1e-3 * g, "projected torque error " .. terr2)
        -- without motion_rate: central differences of f
        local err3 = driven_rod(sine, nil, ddsine, {})
        assert.is_true(math.abs(err3 - err) < 1e-8, "rate by differences " .. err3 .. " vs " .. err)
    end)

    it("a hinge driven under Moreau-Jean-Fremond follows the sinusoid", function()
        local err, terr = driven_rod(sine, dsine, ddsine, { scheme = "moreau-jean-fremond", theta = 0.5 })
        assert.is_true(err < 1e-6, "angle error " .. err)
        assert.is_true(terr < 1e-3 * g, "torque error " .. terr)
    end)

    it("a lift: a prismatic joint driven along z carries m (d'' + g)", function()
        local m = 3
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
        local cab = w:body{ mass = m, inertia = { 0.1, 0.2, 0.3 } }
        local f = function(t) return 0.2 * (1 - math.cos(2 * t)) end
        local j = w:joint{ kind = "prismatic", a = w.ground, b = cab, anchor = { 0, 0, 0 }, axis = { 0, 0, 1 },
                           motion = f, motion_rate = function(t) return 0.4 * math.sin(2 * t) end }
        local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
        local err, ferr = 0, 0
        sim:after_step(function(s)
            local i = j:info()
            err = math.max(err, math.abs(cab:q()[3] - f(s.t)), math.abs(i.coordinate - f(s.t)))
            local tm = s.t - 5e-4
            ferr = math.max(ferr, math.abs(i.drive_force - m * (0.8 * math.cos(2 * tm) + g)))
        end)
        sim:run{ T = 1 }
        local q = cab:q()
        assert.is_true(err < 1e-6, "height error " .. err)                   -- measured 1e-7
        assert.is_true(ferr < 1e-3 * m * g, "force error " .. ferr)
        assert.is_true(math.abs(q[1]) + math.abs(q[2]) + math.abs(q[5]) + math.abs(q[6]) + math.abs(q[7]) < 1e-12)
    end)

    it("a winch: a distance joint whose length follows l(t)", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
        local b = w:body{ mass = 1, inertia = { 0.01, 0.01, 0.01 }, q = { 0, 0, -1, 1, 0, 0, 0 }, v = { 0.5, 0, 0, 0, 0, 0 } }
        local l = function(t) return 1 - 0.3 * t end
        local j = w:joint{ kind = "distance", a = w.ground, b = b, anchor = { 0, 0, 0 }, anchor_b = { 0, 0, -1 }, motion = l }
        local sim = w:simulation{ h = 1e-3, project_joints = true, solver = { "nsgs", tol = 1e-12 } }
        local err = 0
        sim:after_step(function(s) err = math.max(err, math.abs(j:info().coordinate - l(s.t))) end)
        sim:run{ T = 1 }
        local q = b:q()
        assert.is_true(err < 1e-10, "length error " .. err)
        assert.is_true(math.abs(math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2) - 0.7) < 1e-10)
        assert.are.equal(1, #j:info().impulse)
    end)

    it("motors: a wheel spun up at its largest torque then held at speed, a lift short of force, the energy balance", function()
        for _, scheme in ipairs({ "moreau-jean", "moreau-jean-fremond" }) do
            local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
            local I, m = 0.5, 3
            local wheel = w:body{ mass = 2, inertia = { I, I, I } }
            local axle = w:joint{ kind = "revolute", a = w.ground, b = wheel, anchor = { 0, 0, 0 }, axis = { 0, 0, 1 },
                                  motor = { speed = 3, max_torque = 1 } }
            local cab = w:body{ mass = m, inertia = { 0.1, 0.2, 0.3 }, q = { 2, 0, 0, 1, 0, 0, 0 } }
            local lift = w:joint{ kind = "prismatic", a = w.ground, b = cab, anchor = { 2, 0, 0 }, axis = { 0, 0, 1 },
                                  motor = { speed = 0.5, max_force = 20 } }
            local sim = w:simulation{ scheme = scheme, theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
            local E0 = sim:energy().total
            sim:run{ T = 1 }
            assert.is_true(math.abs(wheel:v()[6] - 1 * 1 / I) < 1e-10, scheme .. " omega " .. wheel:v()[6])   -- tau t / I
            assert.is_true(math.abs(axle:info().motor_force - 1) < 1e-12)
            assert.is_true(math.abs(cab:v()[3] - (20 / m - g)) < 1e-10, "cab " .. cab:v()[3])   -- 20 N < m g: it sinks
            sim:run{ T = 2 }
            assert.is_true(math.abs(wheel:v()[6] - 3) < 1e-10 and math.abs(axle:info().motor_force) < 1e-9)   -- at speed
            local info = sim:info()
            assert.is_true(math.abs(sim:energy().total - E0 - info.W_motor_total - info.W_J_total) < 1e-9, "balance")
            lift:set_motor{ max_force = 40 }
            sim:run{ T = 4 }
            assert.is_true(math.abs(cab:v()[3] - 0.5) < 1e-10, "cab at speed " .. cab:v()[3])
            assert.is_true(math.abs(lift:info().motor_force - m * g) < 1e-9, "holding m g: " .. lift:info().motor_force)
            lift:set_motor{ enabled = false }
            sim:run{ T = 4.5 }
            assert.is_true(math.abs(cab:v()[3] - (0.5 - g * 0.5)) < 1e-9, "free fall " .. cab:v()[3])
        end
    end)

    it("errors", function()
        local w = rc.world{ dim = 3 }
        local a = w:body{ mass = 1, inertia = { 1, 1, 1 } }
        local b = w:body{ mass = 1, inertia = { 1, 1, 1 }, q = { 1, 0, 0, 1, 0, 0, 0 } }
        local hinge = { kind = "revolute", a = a, b = b, anchor = { 0, 0, 0 }, axis = { 0, 0, 1 } }
        local function with(t, k, v) local c = {} for key, x in pairs(t) do c[key] = x end c[k] = v return c end
        has("world:joint: 'motion' must be a function of t returning the angle (got 3)", error_of(w.joint, w, with(hinge, "motion", 3)))
        has("'motion' is for revolute (the angle), prismatic (the slide) and distance (the length) joints (this one is spherical)",
            error_of(w.joint, w, { kind = "spherical", a = a, b = b, anchor = { 0, 0, 0 }, motion = function(t) return t end }))
        has("'motion_rate' needs 'motion'", error_of(w.joint, w, with(hinge, "motion_rate", function() return 0 end)))
        has("'motion_rate' must be a function of t (got 'fast')",
            error_of(w.joint, w, with(with(hinge, "motion", function(t) return t end), "motion_rate", "fast")))
        has("unknown key 'motoin'", error_of(w.joint, w, with(hinge, "motoin", function(t) return t end)))
        has("3D joint 0: motion f returned nan as value 1 (a finite number is required) (t = 0)",
            error_of(w.joint, w, with(hinge, "motion", function() return 0 / 0 end)))
        has("motion f returned nil as value 1", error_of(w.joint, w, with(hinge, "motion", function() end)))
        has("its anchors are 1 apart: start the motion at their distance",
            error_of(w.joint, w, { kind = "distance", a = a, b = b, anchor = { 0, 0, 0 }, anchor_b = { 1, 0, 0 },
                                   motion = function(t) return 2 end }))
        has("'motor' is for revolute and prismatic joints (this one is distance)",
            error_of(w.joint, w, { kind = "distance", a = a, b = b, anchor = { 0, 0, 0 }, anchor_b = { 1, 0, 0 }, motor = { speed = 1, max_torque = 1 } }))
        has("'motor' and 'motion' exclude each other", error_of(w.joint, w, with(with(hinge, "motion", function(t) return t end), "motor", { speed = 1, max_torque = 1 })))
        has("'motor.max_torque' must be >= 0 (got -1)", error_of(w.joint, w, with(hinge, "motor", { speed = 1, max_torque = -1 })))
        has("'motor.speed' is required", error_of(w.joint, w, with(hinge, "motor", { max_torque = 1 })))
        has("unknown key 'max_force'", error_of(w.joint, w, with(hinge, "motor", { speed = 1, max_force = 1 })))
        has("'motor' must be a table such as { speed = 2, max_torque = 5 } (got 3)", error_of(w.joint, w, with(hinge, "motor", 3)))
        local wm = rc.world{ dim = 3 }
        local c = wm:body{ mass = 1, inertia = { 1, 1, 1 } }
        local jm = wm:joint{ kind = "revolute", a = wm.ground, b = c, anchor = { 0, 0, 0 }, axis = { 0, 0, 1 }, motor = { speed = 1, max_torque = 1 } }
        local sg = wm:simulation{ scheme = "gen-alpha", h = 1e-3 }
        has("gen-alpha: 3D joint 0 has a motor, which the scheme does not take", error_of(sg.run, sg, { T = 0.01 }))
        jm:set_motor{ enabled = false }
        sg:run{ T = 0.01 }   -- switched off: gen-alpha takes the joint
        local sph = wm:joint{ kind = "spherical", a = c, b = wm:body{ mass = 1, inertia = { 1, 1, 1 }, q = { 1, 0, 0, 1, 0, 0, 0 } }, anchor = { 1, 0, 0 } }
        has("joint 1 is a spherical joint: motors are for revolute and prismatic joints", error_of(sph.set_motor, sph, { speed = 1 }))
        -- a motion that fails inside a step fails the step with the joint's name and t
        local j = w:joint(with(with(hinge, "name", "crank"), "motion", function(t) if t > 0.0015 then return 1 / 0 end return t end))
        local sim = w:simulation{ h = 1e-3 }
        has("joint 'crank': motion f returned inf as value 1", error_of(sim.run, sim, { T = 0.01 }))
        assert.are.equal(1e-3, sim.t)   -- the failed step left the state of t = 0.001
        assert.are.equal("crank", j.name)
    end)
end)
