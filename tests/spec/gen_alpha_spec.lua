-- The nonsmooth generalized-alpha scheme (Bruls, Acary & Cardona 2014;
-- scheme = "gen-alpha", docs/theory/gen-alpha.md): the paper's experiments
-- (scripts/papers/bruls2014_*.lua) with their analytic figures, and the
-- scheme's options and refusals.
local helper = require "scenario_helper"
local rc = require "ricochet"

local function run(name, set) return helper.run("scripts/papers/" .. name, set, false) end

describe("gen-alpha: bouncing ball (section 10.1)", function()
  local r = run("bruls2014_bouncing_ball.lua", {})

  it("keeps the free flight's energy to round-off and never gains energy over a step", function()
    assert.is_true(r.flight_drift <= 1e-13)
    assert.is_true(r.max_increase <= 1e-13)
    -- the scheme itself: Newton converges in at most 2 iterations (linear constraint, constant force)
    assert.is_true(r.max_iter <= 2 and r.max_res <= 1e-12)
  end)

  it("never penetrates the ground: gap >= 0 to round-off at every step", function()
    assert.is_true(r.min_gap >= -1e-15)
  end)

  it("at the first impact step the velocity after is -e times the velocity before", function()
    assert.is_near(-4.0, r.first.v_before, 1e-12)   -- the step starting at t = 0.400 (impact at 0.40025 inside it)
    assert.is_near(-0.8 * r.first.v_before, r.first.v_after, 1e-12)
    -- Property 3: Lambda = m (v_{n+1} - v~_{n+1}) with v~ = v_n - g h
    assert.is_near(r.first.v_after - (r.first.v_before - 10 * 2e-3), r.first.impulse, 1e-12)
  end)

  it("with the issue's e = 0.5 too: the velocity after the first impact step is -e times the one before", function()
    local r5 = run("bruls2014_bouncing_ball.lua", { e = "0.5", T = "1" })
    assert.is_near(-0.5 * r5.first.v_before, r5.first.v_after, 1e-12)
    assert.is_true(r5.min_gap >= -1e-15 and r5.max_increase <= 1e-13)
  end)

  it("comes to rest with the static Lambda = m g h and nu = m g h^2 / 2 (Property 2, eq. 32a)", function()
    assert.is_true(math.abs(r.y - 0.2) <= 1e-15 and math.abs(r.v) <= 1e-15)
    assert.is_near(10 * 2e-3, r.Lambda, 1e-15)
    assert.is_near(10 * 2e-3 ^ 2 / 2, r.nu, 1e-15)
    assert.is_near(2.0, r.E, 1e-12)
  end)

  it("comes to rest at the analytic accumulation time 3.602249 s, approached at first order in h", function()
    assert.is_near(3.602249, r.t_acc, 1e-6)
    local errs = {}
    for i, h in ipairs({ "2e-3", "1e-3", "5e-4", "2.5e-4" }) do
      local ri = i == 1 and r or run("bruls2014_bouncing_ball.lua", { h = h })
      errs[i] = r.t_acc - ri.t_rest   -- measured 0.084, 0.039, 0.029, 0.016
      assert.is_true(errs[i] > 0)
    end
    assert.is_true(errs[4] < 0.25 * errs[1])
    assert.is_true(errs[4] < 0.005 * r.t_acc)
  end)

  it("Moreau-Jean on the same script (the paper's comparison) penetrates and loses energy in flight", function()
    local mj = run("bruls2014_bouncing_ball.lua", { scheme = "moreau-jean" })
    assert.is_true(mj.min_gap < -1e-3)          -- measured -2.0e-3 (in the accumulation)
    assert.is_true(mj.flight_drift > 1e-3)      -- measured 4.4e-3 J: (1/2 - theta) numerical dissipation
  end)
end)

describe("gen-alpha: pendulum with an obstacle (section 10.2)", function()
  local r = run("bruls2014_pendulum.lua", { scheme = "gen-alpha" })

  it("holds the pivot at position and velocity level to round-off at every step (Fig. 12)", function()
    assert.is_true(r.max_drift <= 1e-14)      -- measured 1.0e-15
    assert.is_true(r.max_vdrift <= 2e-12)     -- the Newton tolerance 1e-12 (measured 1.0e-12)
    assert.is_true(r.penetration <= 1e-15)    -- the obstacle's gap never negative (measured 1.1e-16)
    assert.is_true(r.max_iter <= 6)           -- measured 4
    -- Moreau-Jean on the same script: the pivot drifts (negative control, measured 4.6e-4)
    local mj = run("bruls2014_pendulum.lua", {})
    assert.is_true(mj.max_drift > 1e-4)
  end)

  it("gives the first impact's impulse close to the exact 11.7346 N s", function()
    assert.is_near(11.7346, r.first_impulse, 0.0006 * 11.7346)   -- measured 11.74022 (h = 1e-3)
    local fine = run("bruls2014_pendulum.lua", { scheme = "gen-alpha", h = "1e-4", T = "0.8" })
    assert.is_near(11.7346, fine.first_impulse, 0.0001 * 11.7346)   -- measured 11.73525
    assert.is_true(fine.max_drift <= 1e-14)
  end)

  it("rests on the obstacle with the statics: contact force m g, pivot force Lambda/h + lambda~ = (-10, 10)", function()
    assert.is_true(r.impacts > 20)
    assert.is_near(10, r.contact_force, 1e-9)
    assert.is_near(-10, r.pivot_force[1], 1e-9)
    assert.is_near(10, r.pivot_force[2], 1e-9)
    assert.is_near(-7.0710678118655, r.E, 1e-9)
    assert.is_near(5.0540, r.t_rest, 0.03 * 5.054)   -- measured 4.962 (O(h), irregular with h)
  end)
end)

describe("gen-alpha: rocking block (section 10.4)", function()
  local r = run("bruls2014_rocking_block.lua", {})

  it("keeps both corner gaps >= 0 and never gains energy over a step", function()
    assert.is_true(r.min_gap >= -1e-15)        -- measured -8.9e-17
    assert.is_true(r.max_increase <= 1e-13)    -- measured 1.8e-15
    assert.is_true(r.max_iter <= 8)            -- measured 6 (nonlinear gaps: a simplified Newton)
  end)

  it("reproduces the exact first impact to the step's accuracy, and converges to it with h", function()
    assert.is_near(9.81, r.E_pre, 1e-12)        -- free flight: energy exact
    assert.is_true(r.first.t >= 0.183751 and r.first.t < 0.183751 + 1e-2)
    assert.is_near(1.891603, r.first.impulse, 2e-3)   -- measured 1.892862
    assert.is_near(8.957548, r.first.E, 3e-3)         -- measured 8.959284
    local fine = run("bruls2014_rocking_block.lua", { h = "2e-4", T = "0.3" })
    assert.is_near(1.891603, fine.first.impulse, 5e-4)   -- measured 1.891202
    assert.is_near(8.957548, fine.first.E, 5e-4)         -- measured 8.957176
    assert.is_true(fine.min_gap >= -1e-15)
  end)

  it("rests flat with E = m g l / 2, Lambda = m g h / 2 and nu = m g h^2 / 4 per corner, x = 0", function()
    assert.is_near(7.3575, r.E, 1e-12)
    assert.is_true(math.abs(r.theta) <= 1e-15 and r.max_x == 0)
    for k = 1, 2 do
      assert.is_near(9.81 * 1e-2 / 2, r.Lambda[k], 1e-14)
      assert.is_near(9.81 * 1e-4 / 4, r.nu[k], 1e-15)
      assert.is_true(math.abs(r.g[k]) <= 1e-15)
    end
  end)

  it("dissipates less than Moreau-Jean at the same h, which also penetrates (the paper's comparison)", function()
    local mj = run("bruls2014_rocking_block.lua", { scheme = "moreau-jean" })
    assert.is_true(9.81 - mj.E_pre > 1e-3)      -- Moreau-Jean's numerical dissipation in free flight (theta = 0.5556)
    assert.is_true(mj.min_gap < -1e-3)           -- measured -1.2e-2
    assert.is_true(mj.E < 7.3575 - 1e-3)         -- at rest below the ground (measured 7.3502)
  end)
end)

describe("gen-alpha: elastic bar against a wall (section 10.3)", function()
  local r = run("bruls2014_elastic_bar.lua", { scheme = "gen-alpha" })
  local h = 2e-3

  it("closes the contact at the step containing 0.5005 s and opens it within two steps of 1.1672 s", function()
    assert.is_true(r.t_close <= 0.5005 and 0.5005 < r.t_close + h)   -- measured: the step from 0.5000
    assert.is_true(math.abs(r.t_open - 1.1672) <= 2 * h)             -- measured 1.1700
  end)

  it("holds the front end on the wall: no penetration, g_q v = 0 while the wall pushes", function()
    assert.is_true(r.penetration <= 1e-14)      -- measured 8.9e-16 (Moreau-Jean: 3.9e-3)
    assert.is_true(r.contact_rate <= 1e-12)     -- measured 7.1e-15
  end)

  it("carries the analytic force rho c v0 A = 300 N on the plateau and leaves with about its 500 J", function()
    assert.is_near(300, r.force, 3)             -- within 1 %: measured 300.00 N
    assert.is_near(500, r.energy, 5)            -- within 1 %: measured 497.49 J
    assert.is_true(r.max_increase <= 1e-3)      -- no energy increase over 1e-3 J in a step (measured 0)
  end)

  it("converges in two Newton iterations: the linear bodies' K is in the iteration matrix", function()
    assert.is_true(r.max_iter <= 2)             -- measured 2; without K_t (simplified Newton): 43
  end)

  it("holds a nonlinear gap function at position level (docs/mechanisms.md's curved stop)", function()
    local function min_gap(scheme)
      local w = rc.world{}
      local plate = w:linear{ M = { { 1, 0 }, { 0, 1 } }, K = { { 10, 0 }, { 0, 10 } }, q0 = { 0.2, 0.1 }, v0 = { 0, -1 } }
      w:gap{ plate, name = "curved", law = rc.newton{ e = 0 }, gap = function(t, q)
        return q[2] + 0.1 - 0.5 * q[1]^2, { -q[1], 1 }
      end }
      local sim = w:simulation{ scheme = scheme, h = 1e-3 }
      local m = 0
      sim:after_step(function() local q = plate:q(); m = math.min(m, q[2] + 0.1 - 0.5 * q[1]^2) end)
      sim:run{ T = 0.5 }
      return m
    end
    assert.is_true(min_gap("gen-alpha") >= -1e-14)    -- measured -2.7e-16
    assert.is_true(min_gap("moreau-jean") < -1e-4)    -- measured -8.7e-4
  end)

  it("Moreau-Jean on the same script loses about 5 % of the energy and penetrates", function()
    local mj = run("bruls2014_elastic_bar.lua", {})
    assert.is_true(mj.energy < 480 and mj.energy > 470)   -- measured 476.53 J
    assert.is_true(mj.penetration > 1e-3)
  end)
end)

describe("gen-alpha: orders of convergence (bruls2014_convergence.lua)", function()
  local r = run("bruls2014_convergence.lua", {})

  it("is second order in the smooth phase, where Moreau-Jean is first order", function()
    local ga, mj = r.cases["gen-alpha"], r.cases["moreau-jean"]
    assert.is_true(ga.p_smooth > 1.9 and ga.p_smooth < 2.1)   -- measured 2.00
    assert.is_true(mj.p_smooth > 0.9 and mj.p_smooth < 1.2)   -- measured 1.03
    assert.is_true(ga.smooth[6] < 1e-3 * mj.smooth[6])        -- 1.6e-6 against 1.8e-3 at h = 3.1e-4
  end)

  it("is first order through impacts, for both schemes", function()
    local ga, mj = r.cases["gen-alpha"], r.cases["moreau-jean"]
    assert.is_true(ga.p_impact > 0.8 and ga.p_impact < 1.4)   -- measured 1.03
    assert.is_true(mj.p_impact > 0.8 and mj.p_impact < 1.4)   -- measured 1.16
  end)
end)

describe("gen-alpha: rho_inf and the oscillation of lambda~ after an impact (Fig. 13)", function()
  local r = run("bruls2014_pendulum_rho.lua", {}).results   -- rho_inf = 0, 0.5, 0.8, 1

  it("rho_inf = 1 keeps the oscillation, smaller rho_inf damps it at about rho_inf per step, 0 leaves none", function()
    assert.is_true(r[4].ratio > 0.99 and r[4].A[2] > 30)      -- measured 1.003, jumps of 35 N
    assert.is_true(r[3].ratio > 0.75 and r[3].ratio < 0.9)    -- rho_inf = 0.8: measured 0.837
    assert.is_true(r[2].ratio > 0.45 and r[2].ratio < 0.6)    -- rho_inf = 0.5: measured 0.509
    assert.is_true(r[1].A[2] < 1 and r[3].A[2] > 20)          -- rho_inf = 0: 0.22 N (the motion's own change)
  end)
end)

describe("gen-alpha: the sequential strategy (Algorithm 1)", function()
  it("reaches the monolithic Newton's solution on the pendulum, in as many iterations", function()
    local mono = run("bruls2014_pendulum.lua", { scheme = "gen-alpha", T = "2" })
    local seq = run("bruls2014_pendulum.lua", { scheme = "gen-alpha", T = "2", strategy = "sequential" })
    assert.is_near(mono.first_impulse, seq.first_impulse, 1e-9)
    assert.is_true(seq.max_drift <= 1e-14 and seq.max_vdrift <= 1e-11)
    assert.equals(mono.max_iter, seq.max_iter)   -- 4: rigid bodies, the coupling blocks vanish (note 002, 2.7)
  end)

  it("converges only linearly on the elastic bar: it drops the h^2 K coupling", function()
    local seq = run("bruls2014_elastic_bar.lua", { scheme = "gen-alpha", strategy = "sequential" })
    local mono = run("bruls2014_elastic_bar.lua", { scheme = "gen-alpha" })
    assert.is_near(mono.energy, seq.energy, 1e-6)
    assert.is_near(mono.force, seq.force, 1e-6)
    assert.is_true(seq.penetration <= 1e-14)
    assert.is_true(mono.max_iter <= 2 and seq.max_iter >= 20)   -- measured 2 and 43
  end)

  it("is an option of gen-alpha only, with its values checked", function()
    local w = rc.world{}
    w:body{ mass = 1, inertia = 1 }
    local function err(t) local ok, e = pcall(w.simulation, w, t); assert.is_false(ok); return tostring(e) end
    assert.matches("'strategy' is an option of scheme = \"gen%-alpha\"", err{ strategy = "sequential" })
    assert.matches("strategy", err{ scheme = "gen-alpha", strategy = "staggered" })
    assert.equals("sequential", w:simulation{ scheme = "gen-alpha", strategy = "sequential" }.strategy)
  end)
end)

describe("gen-alpha: options and refusals", function()
  local function world(mu)
    local w = rc.world{ gravity = { 0, -10 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local b = w:body{ mass = 1, inertia = 0.1, q = { 0, 0.5, 0 }, shape = rc.disk{ radius = 0.5 } }
    w:contact{ w.ground, b, law = rc.newton{ e = 0.5, mu = mu }, name = "C" }
    return w, b
  end

  it("variant bruls2014 refuses friction with a clear message (capobianco2021 is the default with friction)", function()
    local w = world(0.3)
    local sim = w:simulation{ scheme = "gen-alpha", variant = "bruls2014" }
    local ok, err = pcall(function() sim:step() end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("gen-alpha's variant \"bruls2014\" is frictionless: law '(unnamed)' has mu = 0.3", 1, true))
  end)

  it("takes rho_inf or the four coefficients, and checks them", function()
    local w = world(0)
    local sim = w:simulation{ scheme = "gen-alpha", rho_inf = 0.5 }
    assert.equals(0.5, sim.rho_inf)
    sim = w:simulation{ scheme = "gen-alpha", gen_alpha = { alpha_m = 0, alpha_f = 1 / 3, beta = 4 / 9, gamma = 5 / 6 } }
    assert.equals(5 / 6, sim.ga_gamma)
    local function err(t) local ok, e = pcall(w.simulation, w, t); assert.is_false(ok); return tostring(e) end
    assert.matches("'rho_inf' must be in %[0, 1%]", err{ scheme = "gen-alpha", rho_inf = 1.5 })
    assert.matches("'rho_inf' is an option of scheme = \"gen%-alpha\"", err{ rho_inf = 0.5 })
    assert.matches("'alpha_m' must be < 1", err{ scheme = "gen-alpha", gen_alpha = { alpha_m = 1, alpha_f = 0, beta = 0.25, gamma = 0.5 } })
    assert.matches("'beta' is required", err{ scheme = "gen-alpha", gen_alpha = { alpha_m = 0, alpha_f = 0, gamma = 0.5 } })
  end)

  it("rho_inf = 1 (no numerical dissipation, gamma = 1/2) and rho_inf = 0 both keep a resting ball exactly at rest", function()
    for _, rho in ipairs({ 0, 1 }) do
      local w, b = world(0)
      local sim = w:simulation{ scheme = "gen-alpha", rho_inf = rho, h = 1e-2 }
      sim:run{ T = 0.5 }
      assert.is_true(math.abs(b:q()[2] - 0.5) <= 1e-15 and math.abs(b:v()[2]) <= 1e-15)
      assert.is_near(0.1, sim:contact("C").pN, 1e-15)   -- m g h
    end
  end)

  it("writes the Newton iterations and residual of every step as the history's last columns", function()
    local w = world(0)
    local sim = w:simulation{ scheme = "gen-alpha", h = 1e-2, solver = { tol = 1e-12 } }
    local dir = os.tmpname()
    os.remove(dir)
    sim:run{ T = 0.2, out = dir }
    local h = require("ricochet.plot").read_history(dir)
    assert.equals("newton_residual", h.names[#h.names])
    assert.equals("newton_iterations", h.names[#h.names - 1])
    local it, res = h.cols.newton_iterations, h.cols.newton_residual
    assert.equals(21, #it)
    assert.is_true(it[1] ~= it[1])                     -- nan: no step before the first row
    for i = 2, #it do assert.is_true(it[i] >= 1 and it[i] <= 3 and res[i] <= 1e-12) end
    assert.equals(sim:info().iterations, it[#it])
    os.execute("rm -rf '" .. dir .. "'")
  end)

  it("refuses joints with motors or limits, which it does not enforce yet", function()
    local w = rc.world{ gravity = { 0, -10 } }
    local arm = w:body{ mass = 1, inertia = 0.1, q = { 0.5, 0, 0 } }
    w:revolute{ w.ground, arm, at = { 0, 0 }, motor = { speed = 1, max_torque = 1 } }
    local sim = w:simulation{ scheme = "gen-alpha", h = 1e-3 }
    local ok, e = pcall(sim.step, sim)
    assert.is_false(ok)
    assert.matches("gen%-alpha: joint 0 has a motor or limits", tostring(e))
  end)
end)
