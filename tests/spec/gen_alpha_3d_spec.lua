-- gen_alpha_3d_spec.lua -- the generalized-alpha scheme on spatial rigid
-- bodies (dim = 3 worlds; src/integrate/ga3_step.c, docs/theory/gen-alpha.md
-- "Spatial rigid bodies"): the free asymmetric top's invariants (E, |L| in
-- the world frame, |q| = 1) without numerical dissipation (rho_inf = 1), the
-- second order in h on a smooth spinning and flying motion, the exact
-- parabola under gravity, both variants alike without constraints, and what
-- is refused (friction under bruls2014, the sequential strategy).
local rc = require "ricochet"
local S = require "spec_helper"
local error_of = S.error_of
local has = S.has
local rotate = S.rotate
local norm = S.norm
local H = require "sh_helper"
local D = require "doc_blocks"

-- the tennis racket (J = 1, 2, 3, spinning about the intermediate axis: it
-- flips every 3.43 s), thrown upwards under gravity
local J, W = { 1, 2, 3 }, { 0.2, 10, 0.2 }
local function racket(h, rho, T, variant)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 } }
    local b = w:body{ mass = 1, inertia = J, q = { 0, 0, 1, 1, 0, 0, 0 }, v = { 1, 0, 2, W[1], W[2], W[3] } }
    local sim = w:simulation{ scheme = "gen-alpha", rho_inf = rho, h = h, solver = { tol = 1e-13 }, variant = variant }
    local E0, L0 = sim:energy().total, norm({ J[1] * W[1], J[2] * W[2], J[3] * W[3] })
    local r = { dE = 0, dL = 0, dq = 0, iters = 0 }
    sim:after_step(function(s)
        local q, v = b:q(), b:v()
        local p = { q[4], q[5], q[6], q[7] }
        r.dq = math.max(r.dq, math.abs(norm(p) - 1))
        r.dE = math.max(r.dE, math.abs(s:energy().total - E0) / E0)
        r.dL = math.max(r.dL, math.abs(norm(rotate(p, { J[1] * v[4], J[2] * v[5], J[3] * v[6] })) - L0) / L0)
        r.iters = math.max(r.iters, s:info().iterations)
        r.Wth = (r.Wth or 0) + s:info().W_theta
    end)
    sim:run{ T = T }
    r.q, r.v, r.E, r.E0, r.info = b:q(), b:v(), sim:energy().total, E0, sim:info()
    return r
end

describe("gen-alpha on spatial rigid bodies", function()
    it("keeps E and |L| of the free racket to O(h^2) without drift, |q| = 1 (rho_inf = 1)", function()
        -- measured: max |E - E0|/E0 = 7.42e-6, max ||L| - |L0||/|L0| = 4.17e-6 at h = 1e-3,
        -- the same over 10 s and 100 s (bounded, no drift); 4x smaller at h = 5e-4
        local a = racket(1e-3, 1, 10)
        assert.is_true(a.dE < 8e-6 and a.dE > 6e-6, "dE " .. a.dE)
        assert.is_true(a.dL < 4.5e-6 and a.dL > 3.5e-6, "dL " .. a.dL)
        assert.is_true(a.dq <= 1e-12, "|q| - 1: " .. a.dq)
        assert.is_true(a.iters <= 3, "Newton iterations " .. a.iters)
        local b = racket(5e-4, 1, 10)
        assert.is_true(math.abs(a.dE / b.dE - 4) < 0.05, "E ratio " .. a.dE / b.dE)
        assert.is_true(math.abs(a.dL / b.dL - 4) < 0.05, "L ratio " .. a.dL / b.dL)
        -- the audit: W_theta is the whole energy change (no forces, no contacts)
        assert.is_true(math.abs(a.E - a.E0 - a.Wth) < 1e-9 * a.E0)
        assert.are.equal(0, a.info.W_N)
        assert.are.equal(0, a.info.W_T)
        assert.are.equal(0, a.info.W_ext)
    end)

    it("converges at second order in h on the spinning, flying racket", function()
        -- error at t = 0.5 s against the scheme at h = 2.5e-5 (max over q and v):
        -- measured slopes 2.000 (rho_inf = 0.8) and 2.00 (rho_inf = 0.5)
        for _, rho in ipairs{ 0.8, 0.5 } do
            local ref = racket(2.5e-5, rho, 0.5)
            local errs = {}
            for k, h in ipairs{ 4e-3, 2e-3, 1e-3 } do
                local r = racket(h, rho, 0.5)
                local e = 0
                for i = 1, 7 do e = math.max(e, math.abs(r.q[i] - ref.q[i])) end
                for i = 1, 6 do e = math.max(e, math.abs(r.v[i] - ref.v[i])) end
                errs[k] = e
            end
            for k = 2, 3 do
                local slope = math.log(errs[k - 1] / errs[k], 2)
                assert.is_true(math.abs(slope - 2) < 0.05, "rho " .. rho .. " slope " .. slope)
            end
        end
    end)

    it("flies on the exact parabola and both variants agree without constraints", function()
        local a = racket(1e-2, 0.8, 1, "bruls2014")
        local b = racket(1e-2, 0.8, 1, "capobianco2021")
        for i = 1, 7 do assert.are.equal(a.q[i], b.q[i]) end
        assert.is_true(math.abs(a.q[1] - 1) < 1e-13)
        assert.is_true(math.abs(a.q[3] - (1 + 2 - 9.81 / 2)) < 1e-13, "z " .. a.q[3])
        assert.is_true(math.abs(a.v[3] - (2 - 9.81)) < 1e-13)
    end)

    it("takes a body added between runs (the consistent acceleration again)", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -10 } }
        local a = w:body{ mass = 1, inertia = { 1, 2, 3 }, v = { 0, 0, 0, 0, 1, 0 } }
        local sim = w:simulation{ scheme = "gen-alpha", h = 1e-2 }
        sim:run{ T = 0.5 }
        local b = w:body{ mass = 2, inertia = { 1, 1, 1 }, q = { 1, 0, 0, 1, 0, 0, 0 }, v = { 0, 0, 5, 0, 0, 0 } }
        sim:run{ T = 1.0 }
        assert.is_true(math.abs(a:q()[3] + 5) < 1e-12)        -- -g t^2 / 2
        assert.is_true(math.abs(b:q()[3] - 1.25) < 1e-12)     -- 5 t - g t^2 / 2 over 0.5 s
        assert.is_true(math.abs(b:v()[3]) < 1e-12)
    end)

    it("takes a torque and reports its work", function()
        -- a constant body torque about a principal axis: Omega = tau t / J, E = tau^2 t^2 / (2 J)
        local w = rc.world{ dim = 3 }
        local b = w:body{ mass = 1, inertia = { 1, 2, 3 }, force = { 0, 0, 0, 0, 0, 0.6 } }
        local sim = w:simulation{ scheme = "gen-alpha", h = 1e-2, solver = { tol = 1e-13 } }
        local Wext = 0
        sim:after_step(function(s) Wext = Wext + s:info().W_ext end)
        sim:run{ T = 1 }
        assert.is_true(math.abs(b:v()[6] - 0.2) < 1e-13)
        assert.is_true(math.abs(sim:energy().total - 0.06) < 1e-13)
        assert.is_true(math.abs(Wext - 0.06) < 1e-13)
    end)

    it("runs the examples of docs/theory/gen-alpha.md, 'Spatial rigid bodies', 'Spatial contacts' and 'Spatial joints'", function()
        local n = 0
        for _, b in ipairs(D.runnable(H.ROOT .. "/docs/theory/gen-alpha.md", "lua")) do
            if b.code:match("dim = 3") then
                n = n + 1
                local out = {}
                local env = setmetatable({ print = function(...) out[#out + 1] = table.concat({ ... }, "\t") end },
                                         { __index = _G })
                local f = assert(load(b.code, "=gen-alpha.md:" .. b.line, "t", env))
                f()
                assert.is_truthy(out[1]:match("^gen%-alpha on the racket: max |E %- E0|/E0 = ") or out[1]:match("^rolling at v_x = ")
                                 or out[1]:match("^hinge under gen%-alpha: max |g| = "), out[1])
            end
        end
        assert.are.equal(3, n)   -- the racket, the rolling ball, the hinge ('Spatial joints')
    end)

    it("refuses what it does not take yet on spatial bodies", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.3 } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        local b = w:body{ mass = 1, inertia = { 1, 1, 1 }, q = { 0, 0, 0.5, 1, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
        has("simulation: gen-alpha's strategy \"sequential\" is not available on spatial bodies",
            error_of(w.simulation, w, { scheme = "gen-alpha", strategy = "sequential" }))
        local sim = w:simulation{ scheme = "gen-alpha", variant = "bruls2014", h = 1e-2 }
        sim:run{ T = 0.2 }   -- in flight: no contact within the step's reach
        assert.is_true(b:q()[3] > 0.2)
        local msg = error_of(sim.run, sim, { T = 1 })   -- (capobianco2021, the default, takes them: gen_alpha_3d_contacts_spec)
        has("gen-alpha's variant \"bruls2014\" is frictionless: law", msg)
        has("has mu = 0.3 (the contact between shapes 0 and 1); use variant \"capobianco2021\" (the default on spatial bodies)", msg)
        -- (joints of spatial bodies: both variants, gen_alpha_3d_joints_spec)
    end)
end)
