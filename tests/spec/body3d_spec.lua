-- body3d_spec.lua -- spatial rigid bodies from Lua (w:body{...} in a world of
-- dim = 3): the torque-free tennis racket against the Jacobi-elliptic period
-- and its invariants, mass properties from density, the inertia tensor's
-- principal frame, history columns, and the errors (docs/theory/spatial.md).
local rc = require "ricochet"
local S = require "spec_helper"
local error_of = S.error_of
local has = S.has
local rotate = S.rotate
local norm = S.norm

-- K(k) by the arithmetic-geometric mean
local function K(k)
    local a, b = 1, math.sqrt(1 - k * k)
    for _ = 1, 60 do a, b = (a + b) / 2, math.sqrt(a * b) end
    return math.pi / (2 * a)
end

describe("a spatial rigid body", function()
    it("flips about its intermediate axis with the period 4K(k)/lambda, E and |L| constant", function()
        -- Landau & Lifshitz, Mechanics, section 37 (eqs. 37.10-37.11), case M^2 > 2 E J2
        local J, W = { 1, 2, 3 }, { 0.2, 10, 0.2 }
        local E2, M2 = 0, 0
        for i = 1, 3 do E2 = E2 + J[i] * W[i] ^ 2; M2 = M2 + (J[i] * W[i]) ^ 2 end
        assert.is_true(M2 > 2 * E2 / 2 * J[2])
        local lam = math.sqrt((J[3] - J[2]) * (M2 - E2 * J[1]) / (J[1] * J[2] * J[3]))
        local k = math.sqrt((J[2] - J[1]) * (E2 * J[3] - M2) / ((J[3] - J[2]) * (M2 - E2 * J[1])))
        local T = 4 * K(k) / lam   -- 3.4295742... s
        local w = rc.world{ dim = 3 }
        local b = w:body{ name = "racket", mass = 1, inertia = J, v = { 0, 0, 0, W[1], W[2], W[3] } }
        local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3 }
        local E0, L0 = sim:energy().total, nil
        local dE, dL, dq, up, prev, t = 0, 0, 0, {}, W[2], 0
        sim:after_step(function(s)
            local q, v = b:q(), b:v()
            local qq = { q[4], q[5], q[6], q[7] }
            local L = norm(rotate(qq, { J[1] * v[4], J[2] * v[5], J[3] * v[6] }))
            L0 = L0 or norm({ J[1] * W[1], J[2] * W[2], J[3] * W[3] })
            dE = math.max(dE, math.abs(s:energy().total - E0) / E0)
            dL = math.max(dL, math.abs(L - L0) / L0)
            dq = math.max(dq, math.abs(norm(qq) - 1))
            if prev < 0 and v[5] >= 0 then up[#up + 1] = t + 1e-3 * -prev / (v[5] - prev) end
            prev, t = v[5], s.t
        end)
        sim:run{ T = 10 }
        assert.is_true(dE <= 1e-8, "energy drift " .. dE)
        assert.is_true(dL <= 1e-8, "|L| drift " .. dL)
        assert.is_true(dq <= 1e-14, "|q| - 1: " .. dq)
        assert.is_true(#up >= 2)
        local Tm = (up[#up] - up[1]) / (#up - 1)
        assert.is_true(math.abs(Tm - T) <= 0.01 * T, ("period %.6f vs %.6f"):format(Tm, T))
        assert.is_true(math.abs(Tm - T) <= 1e-5 * T, ("period %.6f vs %.6f"):format(Tm, T))   -- measured 1.1e-6
    end)

    it("takes mass and inertia from a density and a solid", function()
        local w = rc.world{ dim = 3 }
        local rho = 1000
        local m, J = w:body{ density = rho, sphere = 0.5 }:mass()
        assert.is_near(rho * 4 / 3 * math.pi * 0.125, m, 1e-12 * m)
        assert.is_near(0.4 * m * 0.25, J[1], 1e-12 * J[1])
        m, J = w:body{ density = rho, box = { 0.5, 1, 0.25 } }:mass()
        assert.is_near(rho, m, 1e-12)
        assert.is_near(m * (4 + 0.25) / 12, J[1], 1e-12)
        assert.is_near(m * (1 + 4) / 12, J[3], 1e-12)
        local r, l = 0.2, 0.7
        m, J = w:body{ density = rho, capsule = { r, l } }:mass()
        local mc, mh = rho * math.pi * r * r * 2 * l, rho * 2 / 3 * math.pi * r ^ 3
        assert.is_near(mc + 2 * mh, m, 1e-12 * m)
        assert.is_near(mc * r * r / 2 + 2 * 0.4 * mh * r * r, J[3], 1e-12 * J[3])
        assert.is_near(mc * (r * r / 4 + (2 * l) ^ 2 / 12) + 2 * mh * (83 / 320 * r * r + (l + 3 * r / 8) ^ 2), J[1], 1e-12 * J[1])
    end)

    it("makes a full inertia tensor's principal axes its body frame", function()
        local w = rc.world{ dim = 3 }
        -- diag(1, 2, 3) turned by 45 degrees about z:
        local Jt = { { 1.5, 0.5, 0 }, { 0.5, 1.5, 0 }, { 0, 0, 3 } }   -- eigenvalues 1, 2, 3
        local b = w:body{ mass = 1, inertia = Jt, v = { 0, 0, 0, 1, 0, 0 } }
        local _, J = b:mass()
        table.sort(J)
        for i = 1, 3 do assert.is_near(i, J[i], 1e-14) end
        -- the world-frame angular velocity is the one given
        local q, v = b:q(), b:v()
        local wv = rotate({ q[4], q[5], q[6], q[7] }, { v[4], v[5], v[6] })
        assert.is_near(1, wv[1], 1e-14); assert.is_near(0, wv[2], 1e-14); assert.is_near(0, wv[3], 1e-14)
        assert.is_near(1, norm({ q[4], q[5], q[6], q[7] }), 1e-15)
    end)

    it("falls on the exact parabola under gravity (theta = 1/2)", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 } }
        local b = w:body{ mass = 2, inertia = { 1, 2, 3 }, q = { 0, 0, 10, 1, 0, 0, 0 }, v = { 1, 0, 5, 0, 3, 1 } }
        w:simulation{ theta = 0.5, h = 1e-3 }:run{ T = 1 }
        local q = b:q()
        assert.is_near(1, q[1], 1e-12)
        assert.is_near(10 + 5 - 9.81 / 2, q[3], 1e-12)
    end)

    it("writes its 13 history columns", function()
        local dir = os.tmpname(); os.remove(dir)
        local w = rc.world{ dim = 3 }
        w:body{ name = "top", mass = 1, inertia = { 1, 1, 2 }, v = { 0, 0, 0, 0.5, 0, 5 } }
        local sim = w:simulation{ h = 1e-3 }
        sim:output{ dir = dir }
        sim:run{ T = 0.01 }
        w:close()
        local p = io.popen("zcat " .. dir .. "/history.csv.gz | head -1")
        local header = p:read("l"); p:close()
        os.execute("rm -rf " .. dir)
        has("top.x,top.y,top.z,top.qw,top.qx,top.qy,top.qz,top.vx,top.vy,top.vz,top.wx,top.wy,top.wz", header)
    end)

    it("refuses bad input with the argument's name", function()
        local w = rc.world{ dim = 3 }
        has("world:body: unknown key 'inertial' (did you mean 'inertia'?)", error_of(w.body, w, { mass = 1, inertial = { 1, 1, 1 } }))
        has("world:body: 'q' must be a table of 7 numbers {x, y, z, qw, qx, qy, qz}",
            error_of(w.body, w, { mass = 1, inertia = { 1, 1, 1 }, q = { 0, 0, 0 } }))
        has("world:body: 'v' must be a table of 6 numbers", error_of(w.body, w, { mass = 1, inertia = { 1, 1, 1 }, v = { 0, 0, 0 } }))
        has("world:body: 'inertia' must be a table of 3 numbers", error_of(w.body, w, { mass = 1, inertia = { 1, 1 } }))
        has("body: 'q': the quaternion (qw, qx, qy, qz) must be nonzero",
            error_of(w.body, w, { mass = 1, inertia = { 1, 1, 1 }, q = { 0, 0, 0, 0, 0, 0, 0 } }))
        has("body: 'inertia' must be positive definite", error_of(w.body, w, { mass = 1, inertia = { 1, -1, 1 } }))
        has("body: 'inertia' must be a symmetric tensor",
            error_of(w.body, w, { mass = 1, inertia = { { 1, 0.1, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } }))
        has("give either 'density' with a solid or 'mass' and 'inertia', not both",
            error_of(w.body, w, { mass = 1, density = 1, sphere = 1 }))
        has("solid: 'density' must be > 0 (got -1)", error_of(w.body, w, { density = -1, sphere = 1 }))
        has("'shape' must be rc.sphere{...}, rc.capsule{...}, rc.box3{...} or rc.polyhedron{...} in a world of dim = 3", error_of(w.body, w, { mass = 1, inertia = { 1, 1, 1 }, shape = rc.disk{ radius = 1 } }))
        has("rc.world: 'gravity' must be a table of 3 numbers {gx, gy, gz}", error_of(rc.world, { dim = 3, gravity = { 0, -9.81 } }))
        has("world:halfplane: shape: not available in a world of dim = 3 yet", error_of(w.halfplane, w, {}))
        w:body{ mass = 1, inertia = { 1, 1, 1 } }
        has("spatial bodies are integrated by moreau-jean, moreau-jean-fremond and gen-alpha only (got 'maury')",
            error_of(w.simulation, w, { scheme = "maury" }))
        local sim = w:simulation{ h = 1e-3 }
        local ck = os.tmpname()
        sim:save(ck)   -- checkpoints of spatial bodies: checkpoint_spec (bit for bit)
        sim:restore(ck)
        os.remove(ck)
    end)
end)
