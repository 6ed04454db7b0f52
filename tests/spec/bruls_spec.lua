-- Bruls, Acary & Cardona 2014 (sections 10.2 and 10.3) with the Moreau--Jean
-- scheme: the pendulum with a pivot and an obstacle, and the elastic bar.
local helper = require "scenario_helper"
local reference = require "bruls_reference"

local function run(name, set) return helper.run("scripts/papers/" .. name, set, false) end

describe("pendulum with an obstacle (section 10.2)", function()
  it("first impact impulse tends to 11.7346 N s (within 0.5 % at h = 1e-4)", function()
    local r = run("bruls2014_pendulum.lua", { h = "1e-4", T = "0.8" })
    assert.is_near(11.7346, r.first_impulse, 0.005 * 11.7346)
    local coarse = run("bruls2014_pendulum.lua", { h = "1e-3", T = "0.8" })
    -- first order in h: the error shrinks about tenfold
    assert.is_true(math.abs(r.first_impulse - 11.7346) < 0.3 * math.abs(coarse.first_impulse - 11.7346))
  end)

  it("comes to rest on the obstacle near t_acc = 5.055 s with the static reactions", function()
    local r = run("bruls2014_pendulum.lua", { project = "true" })
    assert.is_true(r.impacts > 20)
    assert.is_near(5.055, r.last_impact, 0.02 * 5.055)
    assert.is_near(10, r.contact_force, 1e-3)           -- the obstacle holds m g l cos(pi/4) / (l sin(pi/4))
    assert.is_near(-10, r.pivot_force[1], 1e-3)
    assert.is_near(10, r.pivot_force[2], 1e-3)
    assert.is_true(r.max_drift <= 1e-10)                -- with the position projection
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
end)

describe("elastic bar against a wall (section 10.3)", function()
  for _, case in ipairs{ { "0.5", "consistent", 0.01 }, { "0.5", "lumped", 0.01 },
                         { "0.5556", "consistent", 0.05 }, { "0.5556", "lumped", 0.05 } } do
    local theta, mass, etol = case[1], case[2], case[3]
    it(string.format("theta = %s, %s mass: contact interval, force, exit velocity and energy", theta, mass), function()
      local r = run("bruls2014_elastic_bar.lua", { theta = theta, mass = mass })
      local h = 2e-3
      assert.is_true(r.t_close >= 0.5005 - h and r.t_close <= 0.5005 + h)   -- the first step starting in contact
      assert.is_true(math.abs(r.t_open - 1.1672) <= 8 * h)                 -- released within a few steps
      assert.is_near(300, r.force, 0.01 * 300)                             -- rho c v0 A on the plateau
      assert.is_near(-10, r.exit_velocity, 0.05 * 10)
      assert.is_near(500, r.summary.E, etol * 500)
      assert.is_true(r.summary.max_abs_balance <= 1e-10 * 500)             -- eq. (65) with the elastic energy
    end)
  end
end)
