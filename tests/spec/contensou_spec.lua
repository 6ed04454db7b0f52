-- contensou_spec.lua -- Coulomb--Contensou friction of 3D contacts
-- (rc.contensou: the tangential slip and the spin about the normal, scaled
-- by s = 3 pi R / 16, in one disc of radius mu p_N; Capobianco et al. 2021
-- eq. 157; docs/theory/spatial.md, "Coulomb--Contensou friction"), and the
-- offset of spatial shapes it needs for the tippe top.
local rc = require "ricochet"
local S = require "spec_helper"
local error_of = S.error_of
local has = S.has

local m, R, g, J = 1.0, 0.1, 9.81, 0.004
-- a sphere resting on a plane with velocity v (6: body frame spin)
local function ball_world(law, v, scheme)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = law }
    w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
    local ball = w:body{ name = "ball", mass = m, inertia = { J, J, J }, q = { 0, 0, R, 1, 0, 0, 0 }, v = v,
                         shape = rc.sphere{ radius = R } }
    local sim = w:simulation{ scheme = scheme or "moreau-jean", theta = scheme == "moreau-jean-fremond" and 0.5 or 1,
                              h = 1e-3, solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }
    return w, ball, sim
end

describe("Coulomb--Contensou friction", function()
    for _, scheme in ipairs({ "moreau-jean", "moreau-jean-fremond" }) do
        it("stops a pure spin at the analytic rate mu m g (3 pi R_c / 16) / J (" .. scheme .. ")", function()
            local mu, Rc, w0 = 0.3, 0.01, 10.0
            local rate = mu * m * g * (3 * math.pi * Rc / 16) / J   -- 4.3345 rad/s^2
            local w, ball, sim = ball_world(rc.contensou{ e = 0, mu = mu, radius = Rc }, { 0, 0, 0, 0, 0, w0 }, scheme)
            local t_stop, bal, E0, h = nil, 0, 0.5 * J * w0 * w0 + m * g * R, 1e-3
            local after = 0   -- the largest |omega_z| after the stop
            sim:after_step(function(s)
                bal = math.max(bal, math.abs(s:info().balance))
                local wz = ball:v()[6]
                if t_stop then after = math.max(after, math.abs(wz)) end
                if not t_stop and math.abs(wz) < rate * h then t_stop = s.t end
                local c = w:contacts3()[1]
                -- the disc: |(p_T1, p_T2, p_D)| <= mu p_N
                assert.is_true(math.sqrt(c.p[2] ^ 2 + c.p[3] ^ 2 + c.p[4] ^ 2) <= mu * c.p[1] * (1 + 1e-14))
            end)
            sim:run{ T = 1.0 }
            assert.is_true(math.abs(ball:v()[6] - (w0 - rate * 1.0)) <= 1e-9 * w0, tostring(ball:v()[6]))
            assert.is_true(math.abs(w:contacts3()[1].p[4] + mu * m * g * h) <= 1e-12)   -- p_D = -mu p_N: sliding
            sim:run{ T = 3.0 }
            local expected = w0 / rate   -- 2.30738 s
            assert.is_truthy(t_stop)
            assert.is_true(math.abs(t_stop - expected) <= 0.01 * expected)
            assert.is_true(math.abs(t_stop - expected) <= h, tostring(t_stop))   -- within one step
            -- then sticks: Moreau--Jean omega_z = 0 to round-off; Fremond's law
            -- (u_{k+1/2} = 0) alternates +-omega at the stop, below rate h
            if scheme == "moreau-jean" then assert.is_true(after <= 1e-15, tostring(after))
            else assert.is_true(after < rate * h) end
            local v = ball:v()
            assert.is_true(math.abs(v[1]) + math.abs(v[2]) + math.abs(v[4]) + math.abs(v[5]) <= 1e-14)
            -- the audit: the drilling work (with theta's numerical dissipation
            -- W_theta = (1/2 - theta) |dv|_M^2, 0 under MJF) is the spin energy lost,
            -- the balance closed
            local info = sim:info()
            local Ek = 0.5 * J * v[6] * v[6]
            assert.is_true(bal <= 1e-12 * E0, tostring(bal))
            assert.is_true(info.W_T_total < -0.199)
            assert.is_true(math.abs(info.W_T_total + info.W_theta_total + 0.5 * J * w0 * w0 - Ek) <= 1e-10, tostring(info.W_T_total))
            assert.is_true(math.abs(info.E - m * g * R - Ek) <= 1e-10)
        end)
    end

    it("is the plain Coulomb law on a sliding sphere without spin (to round-off)", function()
        local v0 = { 2.0, -0.5, 0, 0, 0, 0 }
        local wa, a, sa = ball_world(rc.contensou{ e = 0, mu = 0.2, radius = 0.005 }, v0)
        local wb, b, sb = ball_world(rc.newton{ e = 0, mu = 0.2 }, v0)
        local dv, dq = 0, 0
        for _ = 1, 600 do
            sa:step(); sb:step()
            local va, vb, qa, qb = a:v(), b:v(), a:q(), b:q()
            for i = 1, 6 do dv = math.max(dv, math.abs(va[i] - vb[i])) end
            for i = 1, 7 do dq = math.max(dq, math.abs(qa[i] - qb[i])) end
        end
        assert.is_true(dv <= 1e-13 and dq <= 1e-13, string.format("dv %.3e dq %.3e", dv, dq))
        assert.is_true(math.abs(a:v()[1] - 2 * 5 / 7) < 1e-10)   -- rolls at (5/7) v0 (no spin about the normal)
        assert.is_true(math.abs(wa:contacts3()[1].p[4]) <= 1e-15)
        assert.are.equal(3, #wb:contacts3()[1].p)                -- plain contacts: three rows
    end)

    it("checks its arguments", function()
        has("rc.contensou: 'radius' (the contact radius, > 0) is required", error_of(rc.contensou, { mu = 0.3 }))
        has("rc.contensou: 'radius' must be > 0 (got 0)", error_of(rc.contensou, { mu = 0.3, radius = 0 }))
        has("rc.contensou: unknown key 'radus'", error_of(rc.contensou, { mu = 0.3, radius = 1e-3, radus = 1 }))
        has("rc.contensou: 'mu' must be >= 0 (got -1)", error_of(rc.contensou, { mu = -1, radius = 1e-3 }))
        has("only the 3D contacts of a dim = 3 world carry it",
            error_of(rc.world, { gravity = { 0, -9.81 }, default_law = rc.contensou{ mu = 0.3, radius = 1e-3 } }))
        assert.are.equal("ricochet.contensou{ e = 0, mu = 0.3, radius = 0.001 }", tostring(rc.contensou{ mu = 0.3, radius = 1e-3 }))
    end)
end)

describe("spatial shapes off the centre of mass (offset)", function()
    it("a sphere at offset (0, 0, a) rests with its centre a above the body's", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = 0.5 } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        local b = w:body{ mass = 1, inertia = { 1, 1, 1 }, q = { 0, 0, 0.08, 1, 0, 0, 0 },
                          shapes = { rc.sphere{ radius = 0.1, offset = { 0, 0, 0.02 } } } }
        local sim = w:simulation{ scheme = "moreau-jean", theta = 1, h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
        sim:run{ T = 0.5 }
        local c = w:contacts3()[1]
        assert.is_true(math.abs(b:q()[3] - 0.08) <= 1e-9)
        assert.is_true(math.abs(c.pb[3]) <= 1e-9 and math.abs(c.gN) <= 1e-9)
        has("rc.sphere: 'offset' must be a table of 3 numbers {x, y, z} (body frame)", error_of(rc.sphere, { radius = 1, offset = { 1, 2 } }))
    end)
end)
