-- The frictional nonsmooth generalized-alpha scheme (Capobianco, Harsch,
-- Eugster & Leine 2021; scheme = "gen-alpha", its variant "capobianco2021",
-- docs/theory/gen-alpha-friction.md): the paper's planar experiments
-- (scripts/papers/capobianco2021_*.lua) against their analytic figures.
local helper = require "scenario_helper"
local rc = require "ricochet"

local function run(name, set, allow_failures) return helper.run("scripts/papers/" .. name, set, false, allow_failures) end

describe("gen-alpha with friction: the rotating ball (section 10.1)", function()
  it("b: slides after the impact with the saturated percussion, then sticks at the analytic time and rolls", function()
    local r = run("capobianco2021_rotating_ball.lua", { case = "b" })
    assert.is_near(-0.2 * r.first.pN, r.first.pT, 1e-9)            -- P_F = -mu P_N at the impact (slip)
    assert.is_near(4.2021 + 0.0162, r.first.pN, 5e-4)              -- m v (4.2021) + the step's h lambda: measured 4.2183
    assert.is_near(-0.2 * 9.81, r.force, 1e-6)                     -- -mu m g while it slides (149 steps)
    assert.is_true(r.stick >= 0.7281 and r.stick <= 0.7281 + 2e-3) -- analytic 0.7281, within one step: 0.730
    assert.is_near(-10 / 7, r.u[1], 1e-6)                          -- rolling: -(2/7) R omega
    assert.is_near(100 / 7, r.u[3], 1e-6)                          -- (5/7) omega
    assert.is_near(9.81, r.lambda_N, 1e-6)
    assert.is_true(r.min_gap >= -1e-12 and r.max_iter <= 3)
  end)

  it("c: sticks at the impact (P_F = -(2/7) m R omega) and rolls", function()
    local r = run("capobianco2021_rotating_ball.lua", { case = "c" })
    assert.is_near(-2 / 7, r.first.pT, 1e-5)                        -- measured -0.28571
    assert.is_near(-2 / 7, r.u[1], 1e-6)
    assert.is_near(20 / 7, r.u[3], 1e-6)
  end)

  it("a: Zeno bouncing with the analytic apexes, at rest after the accumulation with lambda_N = m g", function()
    local r = run("capobianco2021_rotating_ball.lua", { case = "a" })
    for i, y in ipairs({ 0.325, 0.15625, 0.11406 }) do
      assert.is_true(math.abs(r.apex[i] - y) <= 0.01 * y)           -- measured 0.32463 0.15615 0.11352
    end
    assert.is_near(6.3032 + 0.0145, r.first.pN, 5e-3)               -- (1 + e) m v + h lambda: measured 6.3176
    assert.is_true(r.t_rest > 1.28506 and r.t_rest < 1.34)          -- analytic accumulation 1.28506; measured 1.324
    assert.is_near(9.81, r.lambda_N, 1e-6)
    assert.is_near(0.981, r.E, 1e-9)                                 -- at rest: m g R
    assert.is_true(r.min_gap >= -1e-12)                              -- measured -2.0e-13
  end)

  it("penetrates by round-off where Moreau-Jean penetrates by h v (the paper's comparison)", function()
    local mj = run("capobianco2021_rotating_ball.lua", { case = "b", scheme = "moreau-jean" })
    assert.is_true(mj.min_gap < -2e-3)                               -- measured -2.7e-3
  end)
end)

describe("gen-alpha with friction: the ball in a corner (section 10.2)", function()
  local r = run("capobianco2021_ball_in_corner.lua", {})   -- the analytic Jacobian: every step converged

  it("reaches plane 2 at the analytic time and rests in the corner with both contacts closed near t = 1.36", function()
    assert.is_true(math.abs(r.first - 0.27038) <= 2e-4)             -- measured 0.27030 (h = 1e-4)
    assert.is_true(r.rest and r.rest > 1.3 and r.rest < 1.42)       -- the paper: about 1.36; measured 1.3615
    assert.is_near(0, r.q[1], 1e-6)
    assert.is_near(0.1 * math.sqrt(2), r.q[2], 1e-6)
    assert.is_true(r.min_gap >= -1e-8)                              -- measured -8.3e-10
  end)

  it("converges in every step by Newton with the analytic Jacobian (the singular matrix at rest regularized)", function()
    assert.equals(0, r.unconverged)
    assert.equals(0, r.fallbacks)
    assert.is_true(r.max_iter <= 10)                                -- measured 7
  end)

  it("by differences: survives the singular Newton matrix at rest through the fixed point, and reports what did not converge", function()
    local d = run("capobianco2021_ball_in_corner.lua", { newton_jacobian = "differences" }, true)
    assert.is_true(d.fallbacks > 0)                                 -- measured 202 steps
    assert.equals(d.fallbacks, d.fallback_steps)                    -- each flagged in its step's info (newton_fallback)
    assert.is_true(d.unconverged <= 8)                              -- measured 6, each a warning with time and contact
    assert.equals(d.unconverged, d.summary.failures)                -- and counted in the run's failures
    assert.is_near(r.q[1], d.q[1], 1e-6)                            -- the same rest
    assert.is_near(r.q[2], d.q[2], 1e-9)
  end)
end)

describe("gen-alpha with friction: the ball in a cylinder (section 10.3)", function()
  it("keeps |g_N| at round-off for 10 s where Moreau-Jean drifts into the wall more and more", function()
    local r = run("capobianco2021_ball_in_cylinder.lua", {})
    assert.is_true(r.max_abs <= 1e-12)                              -- measured 2.0e-13
    assert.is_true(r.E < 9.81 * 0.9 - 0.981 and r.max_rise <= 2e-4)  -- dissipates: 9.81 -> 1.60 J; largest rise in a step 1.2e-4 J
    local mj = run("capobianco2021_ball_in_cylinder.lua", { scheme = "moreau-jean" })
    assert.is_true(mj.pen_at[1] > 0.01 and mj.pen_at[10] > 2 * mj.pen_at[1])   -- measured 3.8e-2 / 9.6e-2
  end)
end)

describe("gen-alpha with friction: the Painleve rod (section 10.4)", function()
  local r = run("capobianco2021_painleve_rod.lua", {})

  it("follows the sliding solution to the singularity (phi = 45 deg)", function()
    assert.is_near(0.8145, r.t_star, 1e-3)
    assert.is_true(math.abs(r.phi_half - r.phi_half_ref) <= 1e-4)  -- measured 4.2e-5 (h = 8e-4)
    assert.is_true(math.abs(r.om_half - r.om_half_ref) <= 1e-3)    -- measured 3.3e-4
  end)

  it("passes the singularity at the paper's h without an impulse, lifts off after it, and never sinks", function()
    assert.is_true(r.max_pN < 0.2)                                  -- measured 0.138 N s (172 h; Moreau-Jean 3.70)
    assert.is_true(r.lift > r.t_star and r.lift < r.t_star + 0.1)  -- measured 0.8592
    assert.is_true(r.min_gap >= -1e-10 and r.unconverged == 0)
    assert.is_true(r.u[3] < -8.5 and r.u[3] > -9.5)                 -- clockwise u_phi 9.01 in the flight
  end)
end)

describe("gen-alpha with friction: options", function()
  it("chooses the variant by the laws (auto) or as asked, and checks prox_r", function()
    local w = rc.world{ gravity = { 0, -10 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local b = w:body{ mass = 1, inertia = 0.1, q = { 0, 0.5, 0 }, shape = rc.disk{ radius = 0.5 } }
    w:contact{ w.ground, b, law = rc.newton{ e = 0, mu = 0.5 } }
    local function err(t) local ok, e = pcall(w.simulation, w, t); assert.is_false(ok); return tostring(e) end
    assert.matches("'prox_r' must be >= 0", err{ scheme = "gen-alpha", prox_r = -1 })
    assert.matches("'variant' must be one of", err{ scheme = "gen-alpha", variant = "glocker" })
    assert.matches("'variant' is an option of scheme = \"gen%-alpha\"", err{ variant = "capobianco2021" })
    assert.matches("'newton_jacobian' must be one of \"auto\", \"analytic\", \"differences\" %(got 'exact'%)",
                   err{ scheme = "gen-alpha", newton_jacobian = "exact" })
    assert.matches("'newton_jacobian' is an option of scheme = \"gen%-alpha\"", err{ newton_jacobian = "analytic" })
    assert.equals("differences", w:simulation{ scheme = "gen-alpha", newton_jacobian = "differences" }.newton_jacobian)
    local sim = w:simulation{ scheme = "gen-alpha", h = 1e-2 }
    sim:run{ T = 0.5 }
    assert.is_near(0.5, b:q()[2], 1e-12)          -- resting with friction: Capobianco's variant (auto)
    assert.is_near(10 * 1e-2, sim:contacts()[1].pN, 1e-9)   -- P_N = m g h
  end)
end)

-- Laws through xi / project (gf_law.c): a Coulomb law written in Lua
-- (ricochet.laws.coulomb) and rc.newton through its xi / project give the
-- built-in law's trajectory to the solver's tolerance.
local function max_diff(a, b, cols, keep)
  assert.equals(#a, #b)
  local d = 0
  for i = 1, #a do
    if not keep or keep(a[i], b[i]) then
      for _, c in ipairs(cols) do d = math.max(d, math.abs(a[i][c] - b[i][c])) end
    end
  end
  return d
end
local Q, V = { "ball.x", "ball.y", "ball.theta" }, { "ball.vx", "ball.vy", "ball.omega" }

describe("gen-alpha with friction: laws written in Lua or C (xi / project)", function()
  for _, case in ipairs{ "a", "b" } do
    it("rotating ball " .. case .. ": the Lua Coulomb law follows the built-in one to the tolerance 1e-10", function()
      local path = "scripts/papers/capobianco2021_rotating_ball.lua"
      local _, ref = helper.run(path, { case = case, newton_jacobian = "differences" }, true)   -- the laws' Jacobian (auto)
      for _, law in ipairs{ "lua", "c-generic" } do
        local _, rows = helper.run(path, { case = case, law = law }, true)
        assert.is_true(max_diff(ref, rows, Q) <= 1e-10)   -- measured 2.6e-11 (case a), 5.0e-13 (b)
        assert.is_true(max_diff(ref, rows, V) <= 1e-9)    -- measured 2.5e-10 (a), 1.7e-12 (b)
      end
    end)
  end

  it("ball in a corner: the Lua law follows the built-in one to the tolerance 1e-8, unconverged in the same steps", function()
    local path = "scripts/papers/capobianco2021_ball_in_corner.lua"
    local r1, ref = helper.run(path, { newton_jacobian = "differences" }, true, true)   -- the Lua law's Jacobian (auto)
    local r2, rows = helper.run(path, { law = "lua" }, true, true)
    -- measured 7.8e-9 (theta), 6.6e-10 (x, y) on one machine, 1.6e-8 (theta) on another (its OpenBLAS
    -- takes other kernels): the steps' Newton tolerance 1e-8 adds up over the accumulation
    assert.is_true(max_diff(ref, rows, Q) <= 5e-8)
    local both = function(a, b) return a.newton_residual <= 1e-8 and b.newton_residual <= 1e-8 end
    assert.is_true(max_diff(ref, rows, V, both) <= 1e-6)   -- measured 5.5e-7 (omega, at rest)
    assert.equals(r1.unconverged, r2.unconverged)          -- 6 steps near t = 1.3613 in both
    assert.is_near(0.1 * math.sqrt(2), r2.q[2], 1e-6)
  end)

  local function world(law, variant)
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{}
    local b = w:body{ mass = 1, inertia = 0.004, q = { 0, 0.1, 0 }, shape = rc.disk{ radius = 0.1 } }
    w:contact{ w.ground, b, law = law }
    return w:simulation{ scheme = "gen-alpha", variant = variant, h = 1e-3 }
  end

  -- Coulomb with a slip-dependent coefficient: mu = 0.2 until the contact has
  -- slipped 0.1 m (its state s, accumulated by update), 0.5 after
  local function weakening(seen)
    local cone = require "ricochet.laws.cone"
    local function mu(ctx) return ctx.state.s < 0.1 and 0.2 or 0.5 end
    return rc.law{ name = "slip-strengthening", state = { s = 0, steps = 0 },
      xi = function(l, uN, uT, uoN, uoT, ctx) return uN + mu(ctx) * math.abs(uT), uT end,
      project = function(l, xN, xT, ctx) return cone.project(mu(ctx), xN, xT) end,
      update = function(l, ctx, uN, uT, uoN, uoT, pN, pT)
        ctx.state.s = ctx.state.s + math.abs(uT) * ctx.h
        ctx.state.steps = ctx.state.steps + 1
        seen.s, seen.steps = ctx.state.s, ctx.state.steps
      end }
  end

  it("runs a law's update once per step with the contact's state (a slip-strengthening law)", function()
    -- a point sliding at v0 = 2 under g = 10: 0.1 m at mu = 0.2, then v1^2 = 3.6
    -- stops after 3.6 / (2 * 5) = 0.36 m more: at x = 0.46 (1.0 at mu = 0.2 throughout)
    for _, scheme in ipairs{ "gen-alpha", "moreau-jean" } do
      local w = rc.world{ gravity = { 0, -10 } }
      w:halfplane{}
      local b = w:body{ mass = 1, inertia = 1, v = { 2, 0, 0 }, shape = rc.point{ 0, 0 } }
      local seen = {}
      w:contact{ w.ground, b, law = weakening(seen) }
      local sim = w:simulation{ scheme = scheme, h = 1e-3, solver = { tol = 1e-12 } }
      sim:run{ T = 0.8 }
      assert.is_near(0.46, b:q()[1], 2e-3)                  -- measured 0.46078 (both schemes)
      assert.is_near(0, b:v()[1], 1e-12)
      assert.equals(800, seen.steps)                        -- once per step, the state kept with the contact
      assert.is_near(b:q()[1], seen.s, 2e-3)                -- measured 0.45978: the slip it accumulated is the distance slid
    end
  end)

  it("a law whose update leaves a non-finite state fails the step, naming law and contact", function()
    local law = rc.law{ name = "stateful", state = { n = 0 },
      xi = function(l, uN, uT, uoN, uoT) return uN, uT end,
      project = function(l, xN, xT) return math.max(xN, 0), 0 end,
      update = function(l, ctx) ctx.state.n = 0 / 0 end }
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{}
    local b = w:body{ mass = 1, inertia = 0.004, q = { 0, 0.1, 0 }, shape = rc.disk{ radius = 0.1 } }
    w:contact{ w.ground, b, law = law }
    local sim = w:simulation{ scheme = "gen-alpha", h = 1e-3 }
    local ok, err = pcall(function() sim:step() end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("stateful", 1, true))
    assert.truthy(tostring(err):find("non%-finite") or tostring(err):find("finite"))
    assert.equals(0, sim:info().t)                          -- the state left at t_0
    assert.equals(0.1, b:q()[2])
  end)

  it("refuses Lua laws under bruls2014, naming the law", function()
    local ok, err
    ok, err = pcall(function() world(require("ricochet.laws.coulomb"){ mu = 0.2 }, "bruls2014"):run{ T = 0.01 } end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("gen-alpha's variant \"bruls2014\" takes the built-in laws only", 1, true))
    assert.truthy(tostring(err):find("law 'coulomb (Lua)' is a custom law", 1, true))
  end)

  it("a failing Lua law fails the step with its message, the state left at t_i", function()
    local law = rc.law{ name = "bad", xi = function(l, uN, uT, uoN, uoT, ctx)
        if ctx.t > 0 then error("broken") end
        return uN, uT
      end,
      project = function(l, xN, xT) return math.max(xN, 0), 0 end }
    local sim = world(law)
    local ok, err = pcall(function() sim:run{ T = 0.01 } end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("law 'bad': 'xi' failed", 1, true))
  end)
end)

-- The audit (issue 13): per step, E_{n+1} - E_n - W_ext <= 10 tol E_0 (no
-- gain: the smooth part's generalized-alpha with rho_inf < 1 only dissipates,
-- the contacts' percussions too; what the solver leaves is of the order of its
-- tolerance on velocities, tol |u| m ~ tol E_0), and the balance closes:
-- dE = dW_ext + dW_N + dW_T + dW_proj (position multipliers) + dW_theta.
describe("gen-alpha with friction: the energy audit per step", function()
  local cases = {
    { "capobianco2021_rotating_ball.lua", { case = "a" }, 1e-10 },
    { "capobianco2021_rotating_ball.lua", { case = "b" }, 1e-10 },
    { "capobianco2021_ball_in_corner.lua", {}, 1e-8 },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. " " .. (c[2].case or "") .. ": no energy gain beyond the solver's tolerance, the balance closed", function()
      local _, rows = helper.run("scripts/papers/" .. c[1], c[2], true, true)
      local E0, gain, defect, Wp = rows[1].E, -math.huge, 0, 0
      for i = 2, #rows do
        local a, b = rows[i - 1], rows[i]
        local dE, dW = b.E - a.E, b.W_ext - a.W_ext
        gain = math.max(gain, dE - dW)
        defect = math.max(defect, math.abs(dE - (dW + (b.W_N - a.W_N) + (b.W_T - a.W_T) + (b.W_proj - a.W_proj)
                                                  + (b.W_theta - a.W_theta))))
        Wp = math.max(Wp, b.W_proj - a.W_proj)
      end
      assert.is_true(gain <= 10 * c[3] * E0)    -- measured 1.9e-12 (a), 1.0e-13 (b), 1.5e-8 (corner, unconverged step)
      assert.is_true(defect <= 1e-12 * E0)
      assert.is_true(Wp > 0)                    -- the position correction's energy is booked (6.8e-2 J at the ball's impact)
    end)
  end
end)
