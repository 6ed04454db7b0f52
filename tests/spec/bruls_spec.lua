-- Bruls, Acary & Cardona 2014 (sections 10.2 and 10.3) with the Moreau--Jean
-- scheme: the pendulum with a pivot and an obstacle, and the elastic bar.
local helper = require "scenario_helper"
local reference = require "bruls_reference"

local function run(name, set) return helper.run("scripts/papers/" .. name, set, false) end

local h_pendulum, e = 1e-3, 0.8
local t_acc = reference.accumulation_time(e)    -- 5.0540 s (quadrature of the motion between impacts)

describe("pendulum with an obstacle (section 10.2)", function()
  it("first impact impulse within 0.1 % of 11.7346 N s at h = 1e-4", function()
    local r = run("bruls2014_pendulum.lua", { h = "1e-4", T = "0.8" })
    assert.is_near(11.7346, r.first_impulse, 0.001 * 11.7346)      -- measured 11.7276
    local coarse = run("bruls2014_pendulum.lua", { h = "1e-3", T = "0.8" })
    -- first order in h: the error shrinks about tenfold
    assert.is_true(math.abs(r.first_impulse - 11.7346) < 0.3 * math.abs(coarse.first_impulse - 11.7346))
  end)

  it("comes to rest at the analytic accumulation time t_acc = 5.0540 s, approached at first order in h", function()
    assert.is_near(5.05398, t_acc, 1e-4)            -- the quadrature (an event-driven RK4 gives 5.053979)
    -- the rest time: from when on |omega| < 1e-6 (at rest u_N flips sign, x (-e), every step)
    local r = run("bruls2014_pendulum.lua", {})
    assert.is_true(r.impacts > 20)
    assert.is_near(t_acc, r.t_rest, 0.01 * t_acc)   -- measured 5.015
    local fine = run("bruls2014_pendulum.lua", { h = "1e-4" })
    assert.is_near(t_acc, fine.t_rest, 0.002 * t_acc)   -- measured 5.0485
    assert.is_true(math.abs(fine.t_rest - t_acc) < 0.3 * math.abs(r.t_rest - t_acc))
    -- at rest on the obstacle the static reactions, to the pivot's drift (4e-4 of the length)
    assert.is_near(10, r.contact_force, 2e-3 * 10)
    assert.is_near(-10, r.pivot_force[1], 2e-3 * 10)
    assert.is_near(10, r.pivot_force[2], 1e-6)
  end)

  it("with the projection (not in the paper) the pivot holds and the statics are exact", function()
    local r = run("bruls2014_pendulum.lua", { project = "true" })
    assert.is_near(10, r.contact_force, 1e-3)           -- the obstacle holds m g l cos(pi/4) / (l sin(pi/4))
    assert.is_near(-10, r.pivot_force[1], 1e-3)
    assert.is_near(10, r.pivot_force[2], 1e-3)
    assert.is_true(r.max_drift <= 1e-10)
    assert.is_true(r.summary.max_abs_balance <= 1e-12 * math.abs(r.summary.E0))
    -- the projection's energy change, given back by rescaling the velocities
    assert.is_true(math.abs(r.E_proj) > 1e-3 and math.abs(r.W_proj) < 1e-12)
  end)

  it("without the projection (the paper's scheme) the pivot drifts as eq. (50) does, not 17x more", function()
    local paper = reference.pendulum{ h = 1e-3, theta = 1 / 1.8, T = 7 }
    assert.is_near(4.63e-4, paper.drift, 0.01e-4)          -- the reference itself (eq. 50, gradients at q_{n+1})
    local r = run("bruls2014_pendulum.lua", {})            -- rows at q_k + h v_k, no projection (the default)
    assert.is_true(r.max_drift <= 2 * paper.drift and r.max_drift >= paper.drift / 2)
    local start = run("bruls2014_pendulum.lua", { joint_jacobian = "start" })   -- the rows at q_k: 17x more
    assert.is_true(start.max_drift > 10 * paper.drift)
    assert.is_true(r.summary.max_abs_balance <= 1e-12 * math.abs(r.summary.E0))   -- with the joint's work W_J
  end)

  it("passes the obstacle by at most gamma h |u_N-|, as the paper's scheme with the anticipating index set", function()
    -- the first impact's approach speed is the largest, |g3'-| = 2.963299 (notes/002): a step
    -- that starts outside g + h u / 2 <= 0 crosses by less than h |u| / 2 = 1.48e-3
    local bound = 0.5 * h_pendulum * 2.963299
    local paper = reference.pendulum{ h = 1e-3, theta = 1 / 1.8, T = 7 }
    assert.is_true(paper.penetration > 0 and paper.penetration <= bound)   -- 1.145e-3
    local r = run("bruls2014_pendulum.lua", {})
    assert.is_true(r.penetration > 0 and r.penetration <= bound, "penetration " .. r.penetration)   -- 5.6e-4
    -- eq. (64) sees the obstacle a step late: 2.6e-3
    local gap = run("bruls2014_pendulum.lua", { activation = "gap" })
    assert.is_true(gap.penetration > bound)
  end)
end)

describe("elastic bar against a wall (section 10.3)", function()
  it("the paper's scheme (theta = 0.5556): held 3.889e-3 past the wall, released within 3 steps of 1.1672 s", function()
    local r = run("bruls2014_elastic_bar.lua", {})
    local h = 2e-3
    -- with the contact-end velocity set to 0 in the step that starts at 0.500 s with the gap
    -- 0.005, q_{n+1} = q_n + h (1 - theta) v_n: g_n - h (1 - theta) v0 (notes/002)
    assert.is_near(0.005 - h * (1 - 1 / 1.8) * 10, -r.penetration, 1e-9)
    assert.is_near(0.5000, r.t_close, 1e-9)
    assert.is_true(math.abs(r.t_open - 1.1672) <= 3 * h)             -- measured 1.1720
    local gap = run("bruls2014_elastic_bar.lua", { activation = "gap" })   -- eq. (64): 2.39e-2 past the wall
    assert.is_true(gap.penetration > 5 * r.penetration)
  end)

  for _, case in ipairs{ { "0.5", "consistent", 0.01 }, { "0.5", "lumped", 0.01 },
                         { "0.5556", "consistent", 0.05 }, { "0.5556", "lumped", 0.05 } } do
    local theta, mass, etol = case[1], case[2], case[3]
    it(string.format("theta = %s, %s mass: contact interval, force, exit velocity and energy", theta, mass), function()
      local r = run("bruls2014_elastic_bar.lua", { theta = theta, mass = mass })
      local h = 2e-3
      assert.is_true(r.t_close >= 0.5005 - h and r.t_close <= 0.5005 + h)   -- the step that takes the impact
      assert.is_true(math.abs(r.t_open - 1.1672) <= 5 * h)                 -- released within a few steps
      assert.is_near(300, r.force, 0.01 * 300)                             -- rho c v0 A on the plateau
      assert.is_near(-10, r.exit_velocity, 0.05 * 10)
      assert.is_near(500, r.summary.E, etol * 500)
      assert.is_true(r.summary.max_abs_balance <= 1e-10 * 500)             -- eq. (65) with the elastic energy
    end)
  end
end)
