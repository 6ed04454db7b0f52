-- gen_alpha_3d_joints_spec.lua -- joints of spatial bodies under the
-- generalized-alpha scheme (capobianco2021, src/integrate/ga3_joints.c;
-- docs/theory/gen-alpha.md "Spatial joints"): a spherical pendulum (a
-- tumbling asymmetric body) and a hinge pendulum keep their joint to
-- round-off at every step, conserve energy without drift at rho_inf = 1
-- (an O(h^2) oscillation), follow the trajectory of Moreau-Jean-Fremond at a
-- small h, under both variants; a driven hinge follows theta(t) with the
-- analytic reaction torque.
local rc = require "ricochet"

local g = 9.81

-- the pendulum of kind "spherical" (an asymmetric body tumbling on its pivot,
-- the start consistent with it) or "revolute" (a rod hinged at its end, from
-- the horizontal) over T; returns the largest |E - E0|, the largest joint
-- violation, the final q, the largest number of Newton iterations
local function pendulum(kind, opts, T)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
    local b, j
    if kind == "spherical" then
        b = w:body{ mass = 1, inertia = { 0.004, 0.005, 0.006 }, q = { 0.6, 0, -0.8, 1, 0, 0, 0 }, v = { -0.4, 2, -0.3, 1, 0.5, 2 } }
        j = w:joint{ kind = "spherical", a = w.ground, b = b, anchor = { 0, 0, 0 } }
    else
        b = w:body{ mass = 2, inertia = { 0.01, 0.17, 0.17 }, q = { 0.5, 0, 0, 1, 0, 0, 0 } }
        j = w:joint{ kind = "revolute", a = w.ground, b = b, anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } }
    end
    local sim = w:simulation(opts)
    local E0 = sim:energy().total
    local r = { dE = 0, viol = 0, iters = 0 }
    sim:after_step(function(s)
        r.dE = math.max(r.dE, math.abs(s:energy().total - E0))
        r.viol = math.max(r.viol, j:info().violation)
        r.iters = math.max(r.iters, s:info().iterations)
    end)
    sim:run{ T = T }
    r.q, r.info = b:q(), sim:info()
    return r
end

local function ga(h) return { scheme = "gen-alpha", rho_inf = 1, h = h, solver = { tol = 1e-12 } } end
local function mjf(h) return { scheme = "moreau-jean-fremond", theta = 0.5, h = h, solver = { "nsgs", tol = 1e-13 } } end

local function qdiff(a, b)
    local d = 0
    for k = 1, 7 do d = math.max(d, math.abs(a[k] - b[k])) end
    return d
end

describe("gen-alpha: joints of spatial bodies", function()
    for _, kind in ipairs({ "spherical", "revolute" }) do
        it(kind .. " pendulum: the joint at round-off, energy without drift (rho_inf = 1), MJF's trajectory", function()
            local a = pendulum(kind, ga(1e-3), 10)
            local b = pendulum(kind, ga(5e-4), 2)
            -- measured |g| <= 1.8e-15 at every step (the position-level rows)
            assert.is_true(a.viol <= 1e-13 and b.viol <= 1e-13, "violation " .. a.viol .. ", " .. b.viol)
            -- energy: a bounded O(h^2) oscillation, the same over 2 s and 10 s (measured spherical 1.24e-6 /
            -- 1.26e-6 J, revolute 5.85e-5 / 6.04e-5 J at h = 1e-3; 4x smaller at 5e-4)
            local a2 = pendulum(kind, ga(1e-3), 2)
            local bound = kind == "spherical" and 2e-6 or 1e-4
            assert.is_true(a.dE < bound, "energy " .. a.dE)
            assert.is_true(a.dE < 1.1 * a2.dE, "drift: " .. a2.dE .. " over 2 s, " .. a.dE .. " over 10 s")
            assert.is_true(math.abs(a2.dE / b.dE - 4) < 0.3, "order: " .. a2.dE / b.dE)
            assert.is_true(a.iters <= 15, "Newton iterations " .. a.iters)
            -- the trajectory of Moreau-Jean-Fremond (theta = 1/2, energy-conserving) at h = 1e-4
            local m = pendulum(kind, mjf(1e-4), 2)
            local d1, d2 = qdiff(a2.q, m.q), qdiff(b.q, m.q)
            assert.is_true(d1 < 5e-6, "q at t = 2 against MJF " .. d1)   -- measured 2.9e-6 (spherical), 2.2e-6 (revolute)
            assert.is_true(d2 < d1 / 2.5, "closer at h = 5e-4: " .. d2 .. " vs " .. d1)
        end)
    end

    it("variant bruls2014 (frictionless): the same pendulums, the joint at round-off, the same trajectory", function()
        for _, kind in ipairs({ "spherical", "revolute" }) do
            local o = ga(1e-3)
            o.variant = "bruls2014"
            local b = pendulum(kind, o, 2)
            local c = pendulum(kind, ga(1e-3), 2)
            assert.is_true(b.viol <= 1e-13, kind .. " violation " .. b.viol)        -- measured 1.6e-15
            assert.is_true(b.dE < (kind == "spherical" and 2e-6 or 1e-4), kind .. " energy " .. b.dE)   -- 1.24e-6, 5.82e-5
            assert.is_true(qdiff(b.q, c.q) < 1e-7, kind .. ": q against capobianco2021 " .. qdiff(b.q, c.q))   -- measured 2.3e-8
            assert.is_true(b.iters <= 4, kind .. " Newton iterations " .. b.iters)   -- measured 2, 3
        end
    end)

    it("a driven hinge follows theta(t) to round-off, its torque I theta'' + m g l/2 cos theta", function()
        for _, case in ipairs({ { "constant rate" }, { "sinusoid" }, { "constant rate", "bruls2014" }, { "sinusoid", "bruls2014" } }) do
            local mode, variant = case[1], case[2]
            local m, l, h = 2, 1, 1e-3
            local f, df, ddf
            if mode == "sinusoid" then
                f, df, ddf = function(t) return 0.5 * math.sin(3 * t) end, function(t) return 1.5 * math.cos(3 * t) end,
                             function(t) return -4.5 * math.sin(3 * t) end
            else
                f, df, ddf = function(t) return 1.2 * t end, function() return 1.2 end, function() return 0 end
            end
            local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
            -- capobianco2021 starts from rest (the first step's U jumps onto the drive); bruls2014 on the drive's
            -- velocity (from rest its smooth velocity v~ would jump too, an acceleration of df(0)/h that rho_inf = 1
            -- keeps ringing in lambda~: the torque then alternates by 2 I f'(0)/h)
            local w0 = variant and df(0) or 0
            local rod = w:body{ mass = m, inertia = { 1e-3, m * l * l / 12, m * l * l / 12 }, q = { l / 2, 0, 0, 1, 0, 0, 0 },
                                v = { 0, 0, w0 * l / 2, 0, -w0, 0 } }
            local j = w:joint{ kind = "revolute", a = w.ground, b = rod, anchor = { 0, 0, 0 }, axis = { 0, -1, 0 },
                               motion = f, motion_rate = df }   -- (the rate by differences: the torque's g-ddot, a difference of
                                                                 -- differences, carries ~2e-5 N m of noise)
            local opts = ga(h)
            opts.variant = variant
            local sim = w:simulation(opts)
            local err, terr = 0, 0
            sim:after_step(function(s)
                local i = j:info()
                err = math.max(err, math.abs(i.coordinate - f(s.t)), i.violation)
                if s.t > 1.5 * h then   -- (the first step's impulse starts the drive from rest)
                    terr = math.max(terr, math.abs(i.drive_force - (m * l * l / 3 * ddf(s.t) + m * g * l / 2 * math.cos(f(s.t)))))
                end
            end)
            sim:run{ T = 1 }
            local what = mode .. " (" .. (variant or "capobianco2021") .. ")"
            assert.is_true(err < 1e-12, what .. ": angle error " .. err)          -- measured 2e-15
            assert.is_true(terr < 1e-5, what .. ": torque error " .. terr)        -- measured 6.6e-11, 2.5e-6 (O(h^2)); bruls 3.5e-8, 4e-6
        end
    end)
end)
