-- guided_hopper_spec.lua -- Capobianco, Harsch, Eugster & Leine 2021, section
-- 10.5: the guided hopper (scripts/papers/capobianco2021_guided_hopper.lua), a
-- rigid rod and a nonlinear beam (w:beam, docs/theory/beam.md) joined by a
-- driven knee (w:beam_joint), its foot on a frictional ground, under the
-- frictional generalized-alpha scheme at the paper's h = 5e-5, rho_inf = 0,
-- r = 0.15, T = 1 s (two periods of the drive).
local helper = require "scenario_helper"

local function run(set) return helper.run("scripts/papers/capobianco2021_guided_hopper.lua", set, false) end

-- the first touchdown of a rigid leg: the whole hopper's centre of mass falls
-- freely (the guide pushes sideways only), y(t) = y0 - g t^2/2 + c (cos alpha(t) -
-- cos alpha(0)), c = (m L/2 + 3/2 m_b L) / (M + m + m_b); the foot at y - 2 L cos alpha
local function rigid_touchdown()
  local M, m, L, g, mb = 3, 1.56, 0.2, 9.81, 0.71 * 0.2
  local function al(t) return math.pi / 3 - math.pi / 30 * (1 - math.cos(4 * math.pi * t)) end
  local c = (m * L / 2 + 1.5 * mb * L) / (M + m + mb)
  local function foot(t) return 0.31 - g * t * t / 2 + c * (math.cos(al(t)) - math.cos(al(0))) - 2 * L * math.cos(al(t)) end
  local lo, hi = 0.05, 0.2
  for _ = 1, 60 do
    local mid = (lo + hi) / 2
    if foot(mid) > 0 then lo = mid else hi = mid end
  end
  return lo
end

describe("the guided hopper (Capobianco et al. 2021, section 10.5)", function()
  local r = run({})

  it("lands when a rigid leg would, and has two stance phases in two periods", function()
    assert.is_true(math.abs(r.stances[1][1] - rigid_touchdown()) <= 2 * 5e-5)   -- 0.126211; measured 0.12620
    assert.equal(2, #r.stances)
    assert.is_true(r.stances[1][2] > 0.17 and r.stances[1][2] < 0.19)   -- lift-off: measured 0.1822
    assert.is_true(r.stances[2][1] > 0.55 and r.stances[2][1] < 0.57)   -- measured 0.5581
    assert.is_true(r.stances[2][2] > 0.60 and r.stances[2][2] < 0.62)   -- measured 0.6115
    assert.is_true(r.stances[1].bursts > 1)                               -- the flexible leg bounces: 6 and 5 bursts
  end)

  it("keeps the foot out of the ground, the knee closed and the friction in the cone", function()
    assert.is_true(r.min_gap >= -1e-10)        -- measured -1.5e-11 (the Newton tolerance 1e-6 times h)
    assert.is_true(r.knee_max <= 1e-10)        -- measured 5.0e-11
    assert.is_true(r.cone_excess <= 1e-10)     -- |P_F| - mu P_N: measured 3.7e-12
    assert.equal(0, r.unconverged)
    assert.is_true(r.newton_max <= 8)          -- measured 5, average 1.57 (paper: 5 and 1.23)
  end)

  it("closes the knee and the foot at round-off with a tight Newton tolerance", function()
    local t = run({ T = "0.2", tol = "1e-10" })
    assert.is_true(t.knee_max <= 1e-13)        -- measured 5.0e-15
    assert.is_true(t.min_gap >= -1e-15)        -- measured -2.5e-19
    assert.is_true(t.cone_excess <= 1e-14)     -- measured 4.5e-17
    assert.is_true(math.abs(t.stances[1][1] - r.stances[1][1]) <= 5e-5)
  end)
end)
