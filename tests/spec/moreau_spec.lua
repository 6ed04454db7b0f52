-- Moreau 2004, section 1.2: the wedged rod, contact forces as part of the state.
local helper = require "scenario_helper"
local function run(set) return helper.run("scripts/papers/moreau2004_wedged_rod.lua", set, false) end
local W, increment = 9.81, 3 * 9.81 * 1e-3   -- the push changes by 3 W per second: 3 W h per step

describe("the wedged rod (section 1.2)", function()
  it("released at rest without a push, it falls freely (the zero guess opens both contacts)", function()
    local r = run({ push = "false", T = "0.01", explore = "0" })
    assert.are.equal(0, r.summary.failures)
    assert.is_near(-9.81e-3, r.first_vy, 1e-12)
  end)

  it("with the warm start, loading follows H = (P - W) / (2 tan(phi + beta)) and unloading keeps H until P_det", function()
    local r = run({ explore = "0" })
    assert.are.equal(0, r.summary.failures)
    assert.is_true(r.load_error <= 1e-6)
    assert.is_near(0, r.first_vy, 1e-9)                           -- wedged from the start
    assert.is_near(24.6524, r.H3, 0.002 * 24.6524)                -- H_max at the end of the loading
    -- P_det = W - (P_max - W) tan(phi - beta) / tan(phi + beta) = -0.0408 W
    local beta, phi = math.rad(5), math.atan(0.3)
    local Pdet = W - 2 * W * math.tan(phi - beta) / math.tan(phi + beta)
    assert.is_near(Pdet / W, r.detach, increment / W + 1e-9)
  end)

  it("without it, the history is lost: the rod falls as soon as P < W", function()
    local r = run({ warm_start = "false", explore = "0" })
    assert.are.equal(0, r.summary.failures)
    assert.is_true(r.load_error <= 1e-6)
    assert.is_near(1.0, r.detach, increment / W + 1e-9)
  end)

  it("released at rest, random guesses find both motions: free fall, or wedged with any H >= H_min", function()
    local r = run({ T = "0.01" })                    -- the explorations: 200 random guesses, p_N up to 100 N h
    local e = r.explore
    assert.are.equal(0, e.failures)
    assert.are.equal(0, e.other)                     -- every solution is one of the two motions
    assert.are.equal(200, e.wedged + e.falling)
    assert.is_true(e.falling >= 1 and e.wedged >= 1)   -- measured 48 and 152
    local beta, phi = math.rad(5), math.atan(0.3)
    assert.is_near(W / (2 * math.tan(phi - beta)), e.H_min, 1e-12)   -- 23.687 N
    assert.is_true(e.H_lo >= e.H_min * (1 - 1e-9))   -- every wedged solution is admissible: H >= H_min
    assert.is_true(e.worst_balance <= 1e-8)          -- R_A,y = R_B,y = m g / 2, R_A,x = -R_B,x
    -- the set is a half-line: the solutions spread from near H_min (measured 25.69 N) to
    -- the size of the guesses (100.8 N)
    assert.is_true(e.H_lo <= 1.2 * e.H_min)
    assert.is_true(e.H_hi >= 3 * e.H_min)
  end)
end)

describe("indeterminate forces in a granular sample (section 3.1)", function()
  -- 150 explorations from random guesses (p_N drawn in [0, 1.5 max p_N] of each contact's
  -- exact set), 30 from zero with one random cyclic order each (the paper's procedure (b)),
  -- 30 from zero with a new order every sweep; the exact sets by LP from 32 directions; the
  -- settled pile stepped on 20 steps with and without the warm start
  local r = helper.run("scripts/papers/moreau2004_granular_sample.lua",
                       { samples = "150", cyclic = "30", zero = "30", directions = "32", settle_steps = "20" }, false)

  it("is deposited and explored without a solver failure", function()
    assert.are.equal(0, r.summary.failures)          -- the deposit (one step needs 79 237 sweeps)
    assert.are.equal(0, r.explore_failures)
    assert.are.equal(0, r.warm_failures)
    assert.are.equal(0, r.cold_failures)
  end)

  it("every explored solution is an equilibrium that satisfies Coulomb's law, and they differ", function()
    assert.is_true(r.at_rest)
    assert.is_true(r.worst_eq <= 1e-8)
    assert.is_true(r.worst_coulomb <= 0)
    assert.is_true(r.spread > 1e-3)                 -- the forces are not unique
  end)

  it("a grain with two contacts can only add a self-stress along the line of its contacts", function()
    local sols = r.results
    local count = {}
    for j, c in ipairs(sols[1]) do
      for _, id in ipairs{ c.a, c.b } do
        if id >= 0 then count[id] = count[id] or {}; table.insert(count[id], j) end
      end
    end
    local checked = 0
    for id, list in pairs(count) do
      if #list == 2 then
        local A, B = sols[1][list[1]], sols[1][list[2]]
        local ax, ay = B.x - A.x, B.y - A.y
        for _, sol in ipairs(sols) do
          local sa = sol[list[1]].a == id and -1 or 1      -- the force on this grain
          local dx = sa * (sol[list[1]].fx - A.fx)
          local dy = sa * (sol[list[1]].fy - A.fy)
          assert.is_true(math.abs(dx * ay - dy * ax) <= 1e-6 * (1 + math.sqrt(dx * dx + dy * dy)))
        end
        checked = checked + 1
      end
    end
    assert.is_true(checked >= 1)
  end)

  it("a fixed order from zero is deterministic, bit for bit", function()
    assert.is_true(r.deterministic)
  end)

  it("the exact sets (LP) are bounded polygons and contain every explored solution", function()
    assert.is_true(r.bounded)
    local n = 0
    for _, set in pairs(r.sets) do
      n = n + 1
      assert.is_true(set.exact)
      assert.is_true(set.dimension >= 1)
    end
    assert.are.equal(r.contacts, n)
    assert.is_true(r.worst_outside <= 1e-8)          -- relative to the size of each set
  end)

  it("a grain on two grains: its two sets are segments parallel to AB, R_B = -m g - R_A", function()
    local g1 = r.grain1
    assert.is_not_nil(g1)
    local kA, kB = g1.contacts[1], g1.contacts[2]
    local A, B = r.sets[kA], r.sets[kB]
    assert.are.equal(1, A.dimension)
    assert.are.equal(1, B.dimension)
    local fA, fB = r.grain_forces(kA, g1.id), r.grain_forces(kB, g1.id)
    local ax, ay = B.point[1] - A.point[1], B.point[2] - A.point[2]
    local dx, dy = fA[2][1] - fA[1][1], fA[2][2] - fA[1][2]
    assert.is_true(math.abs(dx * ay - dy * ax) <= 1e-9 * math.sqrt((dx * dx + dy * dy) * (ax * ax + ay * ay)))
    -- the ends of B's segment are the weight minus the ends of A's
    local W = r.mass[g1.id + 1] * r.g
    for _, fa in ipairs(fA) do
      local best = math.huge
      for _, fb in ipairs(fB) do best = math.min(best, math.abs(fa[1] + fb[1]) + math.abs(fa[2] + fb[2] - W)) end
      assert.is_true(best <= 1e-9 * W)
    end
  end)

  it("random guesses sized from the LP bounds cover most of the exact sets", function()
    -- measured (150 samples; the packing deposited with the anticipating index set, 50
    -- contacts, polygons of up to 69 vertices): grain 1 100 % of both segments; grain 3 56,
    -- 46, 92 % of its polygons and 100 % of its segment; 61.9 % on average over the contacts
    -- (500 samples: 67, 62, 92, 100 %; 71.4 %)
    for i, c in ipairs(r.grain1.random) do assert.is_true(c >= 0.9, "grain 1, contact " .. i) end
    assert.are.equal(4, #r.grain3.contacts)
    for i, c in ipairs(r.grain3.random) do assert.is_true(c >= 0.4, "grain 3, contact " .. i) end
    assert.is_true(r.mean_coverage.random >= 0.55)
  end)

  it("the zero guess with random orders does not give the same areas (a finding: Moreau's claim is not reproduced)", function()
    -- measured (30 runs each): one cyclic order per run 3.7 %, a new order every sweep 0.7 %,
    -- against 61.9 % for the random guesses; of grain 1's segments 24 % and 3 % (random: 100 %)
    local m = r.mean_coverage
    assert.is_true(m.cyclic < 0.3 * m.random)
    assert.is_true(m.zero < 0.3 * m.random)
    assert.is_true(m.zero < m.cyclic)                -- one order per run explores more than a new one every sweep
    for i, c in ipairs(r.grain1.cyclic) do assert.is_true(c < 0.5 * r.grain1.random[i], "grain 1, contact " .. i) end
  end)

  it("the warm start settles a resting pile in about no sweep, against a thousand from zero (claim C2)", function()
    -- the first warm step absorbs the zeroed velocities (310 sweeps)
    assert.is_true(r.warm_median <= 1)               -- measured 0: the warm start already meets 1e-9
    assert.is_true(r.cold_median >= 500)             -- measured 1 516
  end)
end)
