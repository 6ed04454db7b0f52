-- joints3d_spec.lua -- joints of spatial rigid bodies (w:joint{...} in a world
-- of dim = 3; docs/theory/spatial.md "Joints"): the conical pendulum against
-- its analytic period, energy and constraint drift (and their orders in h),
-- project_joints, a hinge's planar motion and small-oscillation period, a
-- fixed joint welding two bodies, a chain of five spherical links, a
-- distance joint, and the errors.
local rc = require "ricochet"
local S = require "spec_helper"
local error_of = S.error_of
local has = S.has
local rotate = S.rotate

local function omega_world(b)
    local q, v = b:q(), b:v()
    return rotate({ q[4], q[5], q[6], q[7] }, { v[4], v[5], v[6] })
end

local g = 9.81

-- A sphere (isotropic: its spin about the vertical needs no torque) on a
-- massless rod of length L from a world anchor, moving on the cone of
-- half-angle alpha at Omega = sqrt(g / (L cos alpha)): the period is the
-- point mass's 2 pi / Omega. Returns the measured period (from the unwrapped
-- azimuth over T = 2 s), the largest anchor violation and energy change.
local function conical(h, sim_opts)
    local L, al = 1.0, math.rad(30)
    local r, Om = L * math.sin(al), math.sqrt(g / (L * math.cos(al)))
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
    local b = w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { r, 0, -L * math.cos(al), 1, 0, 0, 0 },
                      v = { 0, Om * r, 0, 0, 0, Om } }
    local j = w:joint{ kind = "spherical", a = w.ground, b = b, anchor = { 0, 0, 0 }, name = "pivot" }
    sim_opts.h, sim_opts.theta, sim_opts.solver = h, 0.5, { "nsgs", tol = 1e-12 }
    local sim = w:simulation(sim_opts)
    local E0 = sim:energy().total
    local viol, dE, phi, prev = 0, 0, 0, 0
    sim:after_step(function(s)
        local q = b:q()
        viol = math.max(viol, j:info().violation)
        dE = math.max(dE, math.abs(s:energy().total - E0))
        local a = math.atan(q[2], q[1])
        local d = a - prev
        if d > math.pi then d = d - 2 * math.pi elseif d < -math.pi then d = d + 2 * math.pi end
        phi, prev = phi + d, a
    end)
    sim:run{ T = 2 }
    return 2 * math.pi * 2 / phi, viol, dE, 2 * math.pi / Om, j
end

describe("3D joints", function()
    it("spherical: the conical pendulum's period, energy conserved, drift O(h^2) (MJF theta = 1/2)", function()
        local T1, v1, e1, Tan, j = conical(1e-3, { scheme = "moreau-jean-fremond" })
        local _, v2, e2 = conical(5e-4, { scheme = "moreau-jean-fremond" })
        assert.is_true(math.abs(T1 - Tan) / Tan < 1e-5, "period " .. T1 .. " vs " .. Tan)   -- measured 4.8e-7
        assert.is_true(e1 < 1e-11 and e2 < 1e-11, "energy drift " .. e1 .. ", " .. e2)     -- measured 4e-14
        assert.is_true(v1 < 1e-6, "anchor violation " .. v1)                                 -- measured 4.7e-7
        local order = math.log(v1 / v2, 2)
        assert.is_true(order > 1.9 and order < 2.1, "violation order " .. order)
        local p = j:info().impulse   -- the rod's pull on B along the rod: vertical m g, horizontal m g tan(alpha)
        assert.is_true(math.abs(p[3] / math.sqrt(p[1] ^ 2 + p[2] ^ 2) - math.sqrt(3)) < 1e-6, "impulse " .. p[1] .. ", " .. p[2] .. ", " .. p[3])
    end)

    it("spherical with project_joints: anchor violation below 1e-8, energy to O(h^3)", function()
        local T1, v1, e1, Tan = conical(1e-3, { scheme = "moreau-jean-fremond", project_joints = true, joint_jacobian = "midpoint" })
        assert.is_true(v1 < 1e-8, "anchor violation " .. v1)    -- measured 6.7e-16
        assert.is_true(e1 < 1e-7, "energy change " .. e1)       -- measured 2.3e-8 (2.8e-9 at h = 5e-4)
        assert.is_true(math.abs(T1 - Tan) / Tan < 1e-5, "period " .. T1 .. " vs " .. Tan)
    end)

    it("spherical with Moreau-Jean theta = 1/2 (constraint on v_k+1): period within 1 %, energy drift O(h)", function()
        local T1, v1, e1, Tan = conical(1e-3, { scheme = "moreau-jean" })
        local _, _, e2 = conical(5e-4, { scheme = "moreau-jean" })
        assert.is_true(math.abs(T1 - Tan) / Tan < 1e-2, "period " .. T1 .. " vs " .. Tan)   -- measured 4.4e-4
        assert.is_true(v1 < 1e-5, "anchor violation " .. v1)                                 -- measured 9.4e-7
        local order = math.log(e1 / e2, 2)   -- W_J = u_k+theta . lambda != 0: booked in the audit
        assert.is_true(order > 0.9 and order < 1.1, "energy drift order " .. order)
    end)

    it("revolute: a compound pendulum stays planar, period 2 pi sqrt(I_pivot / (m g d))", function()
        local h, d, th0, m = 1e-3, 0.3, 0.05, 2
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
        -- a tensor whose principal axes are off the hinge: free, it would wobble
        local J = { { 0.03, 0.004, 0.002 }, { 0.004, 0.04, 0.003 }, { 0.002, 0.003, 0.01 } }
        local b = w:body{ mass = m, inertia = J,
                          q = { d * math.sin(th0), 0, -d * math.cos(th0), math.cos(th0 / 2), 0, math.sin(th0 / 2), 0 } }
        local j = w:joint{ kind = "revolute", a = w.ground, b = b, anchor = { 0, 0, 0 }, axis = { 0, 2, 0 } }
        local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = h, solver = { "nsgs", tol = 1e-12 } }
        local wperp, viol, prev, cross = 0, 0, nil, {}
        sim:after_step(function(s)
            local q, om = b:q(), omega_world(b)
            wperp = math.max(wperp, math.abs(om[1]), math.abs(om[3]))
            viol = math.max(viol, j:info().violation)
            if prev and prev < 0 and q[1] >= 0 then cross[#cross + 1] = s.t - h * q[1] / (q[1] - prev) end
            prev = q[1]
        end)
        sim:run{ T = 5 }
        local T = 2 * math.pi * math.sqrt((J[2][2] + m * d * d) / (m * g * d))   -- (rotating about y keeps J_yy)
        local Tm = (cross[#cross] - cross[1]) / (#cross - 1)
        assert.is_true(wperp < 1e-10, "angular velocity across the axis " .. wperp)   -- measured 1.6e-15
        assert.is_true(math.abs(Tm - T) / T < 1e-2, "period " .. Tm .. " vs " .. T)   -- measured 1.55e-4 (amplitude: 1.56e-4)
        assert.is_true(viol < 1e-7, "violation " .. viol)                               -- measured 2.5e-9
    end)

    it("fixed: two welded bodies move as one rigid body", function()
        local h = 1e-3
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
        -- velocities of one rigid motion: v_B = v_A + omega x (x_B - x_A)
        local A = w:body{ mass = 1, inertia = { 0.01, 0.02, 0.03 }, v = { 0.1, 0, 1, 0.5, 0.2, 1 } }
        local B = w:body{ mass = 2, inertia = { 0.02, 0.01, 0.02 }, q = { 0.3, 0.1, 0, 1, 0, 0, 0 }, v = { 0.0, 0.3, 0.99, 0.5, 0.2, 1 } }
        local j = w:joint{ kind = "fixed", a = A, b = B, anchor = { 0.15, 0.05, 0 } }
        local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = h, solver = { "nsgs", tol = 1e-12 },
                                  project_joints = true, joint_jacobian = "midpoint" }
        local rel = 0
        sim:after_step(function()
            local qa, qb, va, vb = A:q(), B:q(), A:v(), B:v()
            local wa, wb = omega_world(A), omega_world(B)
            local r = { qb[1] - qa[1], qb[2] - qa[2], qb[3] - qa[3] }
            local c = { wa[2] * r[3] - wa[3] * r[2], wa[3] * r[1] - wa[1] * r[3], wa[1] * r[2] - wa[2] * r[1] }
            for k = 1, 3 do rel = math.max(rel, math.abs(wb[k] - wa[k]), math.abs(vb[k] - va[k] - c[k])) end
        end)
        sim:run{ T = 1 }
        assert.is_true(rel < 1e-10, "relative velocity " .. rel)   -- measured 4.8e-13 (5.9e-8 without project_joints)
        local zc = (A:q()[3] + 2 * B:q()[3]) / 3                      -- the centre of mass falls freely
        assert.is_true(math.abs(zc - ((2 * 0.99 + 1) / 3 - g / 2)) < 1e-9, "centre of mass z " .. zc)
        assert.is_true(j:info().violation < 1e-11)
    end)

    it("a chain of five spherical links: finite, violations bounded", function()
        for _, proj in ipairs({ false, true }) do
            local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
            local prev, js = w.ground, {}
            for i = 1, 5 do
                local b = w:body{ mass = 0.5, inertia = { 0.001, 0.01, 0.01 }, q = { 0.2 * i - 0.1, 0, 0, 1, 0, 0, 0 },
                                  v = { 0, 0.3 * i, 0, 0, 0, 0 } }
                js[i] = w:joint{ kind = "spherical", a = prev, b = b, anchor = { 0.2 * (i - 1), 0, 0 } }
                prev = b
            end
            local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3, project_joints = proj,
                                      joint_jacobian = "midpoint", project_max_iter = 500,
                                      solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }
            local E0, viol, dE = sim:energy().total, 0, 0
            sim:after_step(function(s)
                for i = 1, 5 do viol = math.max(viol, js[i]:info().violation) end
                local e = s:energy().total
                assert.is_true(e == e, "NaN energy at t = " .. s.t)
                dE = math.max(dE, math.abs(e - E0))
            end)
            sim:run{ T = 2 }
            if proj then
                assert.is_true(viol <= 1e-11, "violation with project_joints " .. viol)   -- measured 1.0e-12
            else
                assert.is_true(viol < 1e-5, "violation " .. viol)      -- measured 4.5e-6
                assert.is_true(dE < 1e-6, "energy change " .. dE)      -- measured 5.3e-8
            end
        end
    end)

    it("distance: a tether keeps its length", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
        local b = w:body{ mass = 1, inertia = { 0.01, 0.01, 0.01 }, q = { 0.5, 0, -0.2, 1, 0, 0, 0 }, v = { 0, 1, 0, 0, 0, 0 } }
        local j = w:joint{ kind = "distance", a = w.ground, b = b, anchor = { 0, 0, 0.1 }, anchor_b = { 0.5, 0.1, -0.2 } }
        local L0 = math.sqrt(0.25 + 0.01 + 0.09)
        local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
        local viol = 0
        sim:after_step(function() viol = math.max(viol, j:info().violation) end)
        sim:run{ T = 1 }
        assert.is_true(viol < 1e-5, "length violation " .. viol)
        local q = b:q()
        local p = rotate({ q[4], q[5], q[6], q[7] }, { 0, 0.1, 0 })
        local dx, dy, dz = q[1] + p[1], q[2] + p[2], q[3] + p[3] - 0.1
        assert.is_true(math.abs(math.sqrt(dx * dx + dy * dy + dz * dz) - L0) < 1e-5)
        assert.is_true(#j:info().impulse == 1)
    end)

    it("prismatic: a slider on an incline moves by g sin(30 deg) t^2 / 2, without turning", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
        local b = w:body{ mass = 1, inertia = { 0.01, 0.02, 0.03 } }
        local s30, c30 = 0.5, math.sqrt(3) / 2
        local j = w:joint{ kind = "prismatic", a = w.ground, b = b, anchor = { 0, 0, 0 }, axis = { 2 * c30, 0, -2 * s30 } }
        local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
        sim:run{ T = 1 }
        local q, t = b:q(), sim.t
        local s = q[1] * c30 - q[3] * s30
        assert.is_true(math.abs(s - 0.5 * g * s30 * t * t) < 1e-9, "slide " .. s)
        assert.is_true(math.abs(q[1] - s * c30) + math.abs(q[2]) + math.abs(q[3] + s * s30) < 1e-12)
        assert.is_true(math.abs(q[4] - 1) + math.abs(q[5]) + math.abs(q[6]) + math.abs(q[7]) < 1e-12)
        assert.is_true(#j:info().impulse == 5)
    end)

    it("prismatic between two free bodies: momentum and energy kept while B slides along spinning A", function()
        local w = rc.world{ dim = 3 }
        local om, r = { 0.3, 0.2, 2 }, { 0.5, 0, 0 }
        local A = w:body{ mass = 2, inertia = { 0.02, 0.03, 0.04 }, v = { 0, 0, 0, om[1], om[2], om[3] } }
        -- v_B = v_A + omega x r + 0.4 along the axis (consistent with the joint)
        local c = { om[2] * r[3] - om[3] * r[2], om[3] * r[1] - om[1] * r[3], om[1] * r[2] - om[2] * r[1] }
        local B = w:body{ mass = 1, inertia = { 0.01, 0.01, 0.01 }, q = { 0.5, 0, 0, 1, 0, 0, 0 },
                          v = { c[1] + 0.4, c[2], c[3], om[1], om[2], om[3] } }
        local j = w:joint{ kind = "prismatic", a = A, b = B, anchor = { 0.5, 0, 0 }, axis = { 1, 0, 0 } }
        local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
        local E0, p0 = sim:energy().total, { c[1] + 0.4, c[2], c[3] }
        local dE, viol = 0, 0
        sim:after_step(function(s)
            dE = math.max(dE, math.abs(s:energy().total - E0))
            viol = math.max(viol, j:info().violation)
        end)
        sim:run{ T = 1 }
        local va, vb = A:v(), B:v()
        for k = 1, 3 do assert.is_true(math.abs(2 * va[k] + vb[k] - p0[k]) < 1e-12, "momentum " .. k) end   -- measured 4.7e-15
        assert.is_true(dE < 1e-8, "energy " .. dE)          -- measured 3.6e-10
        assert.is_true(viol < 1e-6, "violation " .. viol)   -- measured 2.2e-7
    end)

    it("errors", function()
        local w = rc.world{ dim = 3 }
        local a = w:body{ mass = 1, inertia = { 1, 1, 1 } }
        local b = w:body{ mass = 1, inertia = { 1, 1, 1 }, q = { 1, 0, 0, 1, 0, 0, 0 } }
        has("unknown 'kind' 'screw' in a world of dim = 3",
            error_of(w.joint, w, { kind = "screw", a = a, b = b, anchor = { 0, 0, 0 } }))
        has("'axis' is required for a prismatic joint", error_of(w.joint, w, { kind = "prismatic", a = a, b = b, anchor = { 0, 0, 0 } }))
        has("'kind' is required", error_of(w.joint, w, { a = a, b = b, anchor = { 0, 0, 0 } }))
        has("'axis' is required for a revolute joint", error_of(w.joint, w, { kind = "revolute", a = a, b = b, anchor = { 0, 0, 0 } }))
        has("'axis' must be nonzero", error_of(w.joint, w, { kind = "revolute", a = a, b = b, anchor = { 0, 0, 0 }, axis = { 0, 0, 0 } }))
        has("'a' and 'b' are the same body", error_of(w.joint, w, { kind = "spherical", a = a, b = a, anchor = { 0, 0, 0 } }))
        has("'b' is required", error_of(w.joint, w, { kind = "spherical", a = a, anchor = { 0, 0, 0 } }))
        has("'b' must be a body, not the ground", error_of(w.joint, w, { kind = "spherical", a = a, b = w.ground, anchor = { 0, 0, 0 } }))
        has("'anchor' is required", error_of(w.joint, w, { kind = "spherical", a = a, b = b }))
        has("'anchor_b' is required for a distance joint", error_of(w.joint, w, { kind = "distance", a = a, b = b, anchor = { 0, 0, 0 } }))
        has("a distance joint needs 'anchor_b' apart from 'anchor'",
            error_of(w.joint, w, { kind = "distance", a = a, b = b, anchor = { 0, 0, 0 }, anchor_b = { 0, 0, 0 } }))
        has("'axis' is for revolute and prismatic joints", error_of(w.joint, w, { kind = "fixed", a = a, b = b, anchor = { 0, 0, 0 }, axis = { 1, 0, 0 } }))
        has("unknown key", error_of(w.joint, w, { kind = "fixed", a = a, b = b, anchor = { 0, 0, 0 }, at = { 1, 0, 0 } }))
        w:joint{ kind = "fixed", a = a, b = b, anchor = { 0, 0, 0 }, name = "weld" }
        has("a joint named 'weld' already exists", error_of(w.joint, w, { kind = "fixed", a = a, b = b, anchor = { 0, 0, 0 }, name = "weld" }))
        local w2 = rc.world{}
        has("w:joint is for worlds of dim = 3", error_of(w2.joint, w2, { kind = "spherical" }))
    end)
end)
