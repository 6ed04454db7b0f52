-- gen_alpha_3d_contacts_spec.lua -- the frictional generalized-alpha scheme
-- (Capobianco, Harsch, Eugster & Leine 2021) on spatial rigid bodies with
-- contacts (src/integrate/ga3_*.c; docs/theory/gen-alpha.md, "Spatial
-- contacts"): the rotating ball of section 10.1 in 3D against the planar
-- gen-alpha run and the analytic rolling, the friction's work, and the
-- tippe top of section 10.6 at the paper's h = 1e-3 against the Moreau--Jean
-- reference (h = 1e-4).
local rc = require "ricochet"
local S = require "spec_helper"
local error_of = S.error_of
local has = S.has
local helper = require "scenario_helper"

describe("gen-alpha on spatial contacts: the rotating ball (section 10.1)", function()
    local function run(case)
        return helper.run("scripts/papers/capobianco2021_rotating_ball_3d.lua", { case = case, scheme = "gen-alpha", rho_inf = "0.5" }, false)
    end
    it("b: sticks at the planar gen-alpha run's step and rolls at -(2/7) R omega, in the x-z plane, without penetration", function()
        -- measured: stick 0.7300 s (planar gen-alpha 0.7300, analytic 0.7281), v_x + 1.428571 = 1e-16,
        -- lowest gap -2.8e-17 (Moreau--Jean: -4.2e-3), 2 Newton iterations at most
        local r = run("b")
        local planar = helper.run("scripts/papers/capobianco2021_rotating_ball.lua", { case = "b" }, false)
        assert.is_true(math.abs(r.stick - planar.stick) < 1e-9, r.stick .. " vs " .. planar.stick)
        assert.is_true(math.abs(r.stick - 0.7281) <= 2e-3)
        assert.is_true(math.abs(r.first.pN - planar.first.pN) < 1e-9)
        assert.is_true(math.abs(r.v[1] - (-2 / 7 * 0.1 * 50)) < 1e-10)
        assert.is_true(math.abs(r.omega[2] - (-2 / 7 * 50)) < 1e-10)
        assert.is_true(r.out_of_plane < 1e-13, tostring(r.out_of_plane))
        assert.is_true(r.min_gap >= -1e-10, tostring(r.min_gap))
        assert.is_true(r.cone <= 1e-12, tostring(r.cone))
    end)
    it("c: sticks at the impact and rolls at -(2/7) R omega", function()
        local r = run("c")
        assert.is_true(math.abs(r.v[1] - (-2 / 7 * 0.1 * 10)) < 1e-10)
        assert.is_true(r.stick - r.first.t <= 2e-3 + 1e-12)
        assert.is_true(r.out_of_plane < 1e-13)
        assert.is_true(r.min_gap >= -1e-10)
    end)
    it("a: bounces to rest through the accumulation of impacts, every step converged, as the planar run", function()
        -- Newton stalls on a step of the accumulation; the fixed point (ga3_fixed.c) takes it:
        -- measured lowest gap -1.978e-13 and at most 12 iterations, as the planar gen-alpha
        local r = run("a")
        local planar = helper.run("scripts/papers/capobianco2021_rotating_ball.lua", { case = "a" }, false)
        assert.is_true(math.abs(r.first.pN - planar.first.pN) < 1e-9)
        assert.is_true(r.min_gap >= -1e-10, tostring(r.min_gap))
        assert.is_true(math.abs(r.min_gap - planar.min_gap) < 1e-14, r.min_gap .. " vs " .. planar.min_gap)
        assert.is_true(math.abs(r.v[1]) < 1e-12 and math.abs(r.v[3]) < 1e-10)   -- at rest (v_z -1.1e-12: the tolerance)
        assert.is_true(r.out_of_plane < 1e-13)
    end)
    it("books the friction's work: W_T over the sliding is the analytic 25/7 J", function()
        -- after the inelastic impact the ball spins at 50 rad/s at rest: E_kin = J w^2 / 2 = 5 J;
        -- rolling at the end: 10/7 J; friction takes 25/7 = 3.5714286 J
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.2 } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 1, 1, 0, 0, 0 }, v = { 0, 0, 0, 0, -50, 0 },
                shape = rc.sphere{ radius = 0.1 } }
        local sim = w:simulation{ scheme = "gen-alpha", rho_inf = 0.5, h = 2e-3, solver = { tol = 1e-10 } }
        local S = { W_N = 0, W_T = 0, W_theta = 0, W_proj = 0, W_ext = 0 }
        local E0 = sim:energy().total
        sim:after_step(function(s) local i = s:info() for k in pairs(S) do S[k] = S[k] + i[k] end end)
        sim:run{ T = 1.1 }
        local E = sim:energy().total
        assert.is_true(math.abs(S.W_T + 25 / 7) < 1e-8, "W_T " .. S.W_T)
        assert.is_true(S.W_N < 0 and math.abs(S.W_N + S.W_proj + S.W_theta + 9.81 * 0.9) < 1e-8)   -- the impact takes m g (z0 - R)
        assert.is_true(math.abs(E - E0 - (S.W_N + S.W_T + S.W_theta + S.W_proj + S.W_ext)) < 1e-12)
    end)
    it("allocates nothing in its steps once the sizes settle (Contensou contacts)", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.contensou{ e = 0, mu = 0.3, radius = 5e-4 } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 0.1, 1, 0, 0, 0 }, v = { 1, 0, 0, 0, 0, 20 },
                shape = rc.sphere{ radius = 0.1 } }
        local sim = w:simulation{ scheme = "gen-alpha", h = 1e-3, solver = { tol = 1e-10 } }
        sim:run{ T = 0.05 }
        local n0 = rc.alloc_count()
        sim:run{ T = 0.3 }
        assert.are.equal(0, rc.alloc_count() - n0)
        assert.are.equal(1, #w:contacts3())
    end)
    it("refuses custom laws on spatial contacts, with the reason", function()
        local w2 = rc.world{ dim = 3, gravity = { 0, 0, -9.81 },
                             default_law = rc.law{ name = "frictionless", dim = 1, params = { e = 0.5 },
                                                   xi = function(l, uN, _, uoN) return uN + l.e * uoN, 0 end,
                                                   project = function(_, xN) return math.max(xN, 0), 0 end } }
        w2:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        w2:body{ mass = 1, inertia = { 1, 1, 1 }, q = { 0, 0, 0.1, 1, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
        local s2 = w2:simulation{ scheme = "gen-alpha", h = 1e-2 }
        has("gen-alpha on spatial bodies takes the built-in laws only: law 'frictionless' is a custom law (contact between shapes 0 and 1); use moreau-jean",
            error_of(s2.run, s2, { T = 0.1 }))
    end)
end)

describe("gen-alpha on spatial contacts: a box resting on a plane", function()
    it("carries m g h on its four corners without drift; the fixed point takes the dependent corners", function()
        -- four corners on three directions: Newton's Jacobian is singular, the fixed point (ga3_fixed.c,
        -- r from the rows' sums of |W|) converges: measured 591 of 2000 steps, at most 80 iterations,
        -- |v| <= 2.5e-10, z drift 4e-15; on a machine whose OpenBLAS takes other kernels 2000 of 2000
        -- steps, |v| <= 2.5e-10, z drift 1.6e-13, sum p_N - m g h = 1.7e-12 (tol 1e-10: bound 1e-11)
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.5 } }
        w:plane{}
        local b = w:body{ density = 1000, box = { 0.2, 0.1, 0.05 }, q = { 0, 0, 0.05, 1, 0, 0, 0 }, shape = rc.box3{ 0.2, 0.1, 0.05 } }
        local sim = w:simulation{ scheme = "gen-alpha", h = 1e-3, solver = { tol = 1e-10 } }
        local maxv, n4 = 0, 0
        sim:after_step(function()
            local v = b:v()
            for i = 1, 6 do maxv = math.max(maxv, math.abs(v[i])) end
            if #w:contacts3() == 4 then n4 = n4 + 1 end
        end)
        sim:run{ T = 2 }
        local q, P = b:q(), 0
        for _, c in ipairs(w:contacts3()) do P = P + c.p[1] end
        assert.are.equal(2000, n4)
        assert.are.equal(0, sim:stats().failures)
        assert.is_true(sim:stats().newton_fallbacks > 0)
        assert.is_true(maxv < 1e-9, tostring(maxv))
        assert.is_true(math.abs(q[1]) < 1e-12 and math.abs(q[2]) < 1e-12 and math.abs(q[3] - 0.05) < 1e-12)
        assert.is_true(math.abs(P - 1000 * 0.4 * 0.2 * 0.1 * 9.81 * 1e-3) < 1e-11)   -- the four carry m g h
    end)
end)

describe("gen-alpha on spatial contacts: the tippe top (section 10.6) at the paper's h = 1e-3", function()
    -- measured (h = 1e-3, rho_inf = 0.5, tol 1e-10; Moreau--Jean h = 1e-4 in brackets): theta passes pi/2 at
    -- 0.9700 s (0.9737), the stick touches down at 1.4150 s (1.3707), largest theta 3.1018 (3.1150), final
    -- theta 1.7264 (1.6558), Omega_z -12.34 (-12.26), E 1.0498e-3 J (1.0394e-3), lowest gap -9.7e-14
    -- (-2.57e-4), at most 5 Newton iterations (40 NSGS sweeps), 1.5 s of CPU for the 8 s
    local r = helper.run("scripts/papers/capobianco2021_tippe_top.lua", { scheme = "gen-alpha", h = "1e-3" }, false)
    it("inverts near the Moreau--Jean time and tumbles back", function()
        assert.is_truthy(r.t_half)
        assert.is_true(math.abs(r.t_half - 0.9737) < 0.01, tostring(r.t_half))
        assert.is_truthy(r.t_stick and r.t_lift)
        assert.is_true(r.t_stick > r.t_half and r.t_lift >= r.t_stick)
        assert.is_true(r.th_max > 3.0, tostring(r.th_max))
        assert.is_true(r.theta < r.th_max - 1.0, tostring(r.theta))
        assert.is_true(math.abs(r.spin) < 20)
    end)
    it("does not penetrate, never gains energy, keeps |q| = 1 and the impulses in the disc", function()
        assert.is_true(r.min_gap >= -1e-8, tostring(r.min_gap))
        assert.is_true(r.dE <= 1e-12 * r.E0, tostring(r.dE))
        assert.is_true(r.E < 0.1 * r.E0)
        assert.is_true(r.qdrift <= 1e-12, tostring(r.qdrift))
        assert.is_true(r.cone <= 1e-9, tostring(r.cone))   -- the Newton tolerance
        assert.is_true(r.max_iter <= 8, tostring(r.max_iter))
    end)
end)

describe("gen-alpha on spatial contacts, variant bruls2014: the bouncing ball (Bruls et al. 2014, section 10.1)", function()
    it("bounces as the planar bruls2014 run: v+ = -e v-, free flight exact, rest with Lambda = m g h", function()
        -- measured (planar bruls2014_bouncing_ball.lua in brackets): first impact 0.4020 s, -4 -> 3.2 m/s,
        -- free-flight drift 2.49e-14 J (2.487e-14), largest increase in a step 3.6e-15 J (3.553e-15),
        -- 2 Newton iterations (2), lowest gap -1.2e-15, E = 2 J at rest, Lambda = m g h
        local w = rc.world{ dim = 3, gravity = { 0, 0, -10 }, default_law = rc.newton{ e = 0.8, mu = 0 } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        local ball = w:body{ mass = 1, inertia = { 0.016, 0.016, 0.016 }, q = { 0, 0, 1.001, 1, 0, 0, 0 },
                             shape = rc.sphere{ radius = 0.2 } }
        local sim = w:simulation{ scheme = "gen-alpha", variant = "bruls2014", rho_inf = 0.8, h = 2e-3, solver = { tol = 1e-12 } }
        local E0 = sim:energy().total
        local lowest, vprev, first, Efree, Eprev, dEmax = 1, 0, nil, 0, E0, 0
        sim:after_step(function(s)
            local q, v = ball:q(), ball:v()
            lowest = math.min(lowest, q[3] - 0.2)
            if not first and v[3] > 0 then first = { vm = vprev, vp = v[3], t = s.t } end
            if not first then Efree = math.max(Efree, math.abs(s:energy().total - E0)) end
            vprev = v[3]
            dEmax = math.max(dEmax, s:info().E - Eprev)
            Eprev = s:info().E
        end)
        sim:run{ T = 5 }
        local planar = helper.run("scripts/papers/bruls2014_bouncing_ball.lua", {}, false)
        assert.is_true(math.abs(first.t - 0.402) < 1e-9)
        assert.is_true(math.abs(first.vp + 0.8 * first.vm) < 1e-12, first.vp .. " " .. first.vm)
        assert.is_true(Efree < 1e-13, tostring(Efree))
        assert.is_true(dEmax < 1e-14, tostring(dEmax))
        assert.is_true(lowest > -1e-13, tostring(lowest))
        assert.is_true(math.abs(sim:energy().total - 2) < 1e-12)
        assert.is_true(math.abs(w:contacts3()[1].p[1] - 10 * 2e-3) < 1e-14)
        assert.is_true(math.abs(sim:energy().total - planar.E) < 1e-12)
        assert.are.equal(0, sim:stats().failures)
    end)
end)
