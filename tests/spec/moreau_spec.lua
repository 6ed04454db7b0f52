-- Moreau 2004, section 1.2: the wedged rod, contact forces as part of the state.
local helper = require "scenario_helper"
local function run(set) return helper.run("scripts/papers/moreau2004_wedged_rod.lua", set, false) end
local W, increment = 9.81, 3 * 9.81 * 1e-3   -- the push changes by 3 W per second: 3 W h per step

describe("the wedged rod (section 1.2)", function()
  it("released at rest without a push, it falls freely (the zero guess opens both contacts)", function()
    local r = run({ push = "false", T = "0.01" })
    assert.is_near(-9.81e-3, r.first_vy, 1e-12)
  end)

  it("with the warm start, loading follows H = (P - W) / (2 tan(phi + beta)) and unloading keeps H until P_det", function()
    local r = run({})
    assert.is_true(r.load_error <= 1e-6)
    assert.is_near(0, r.first_vy, 1e-9)                           -- wedged from the start
    assert.is_near(24.6524, r.H3, 0.002 * 24.6524)                -- H_max at the end of the loading
    -- P_det = W - (P_max - W) tan(phi - beta) / tan(phi + beta) = -0.0408 W
    local beta, phi = math.rad(5), math.atan(0.3)
    local Pdet = W - 2 * W * math.tan(phi - beta) / math.tan(phi + beta)
    assert.is_near(Pdet / W, r.detach, increment / W + 1e-9)
  end)

  it("without it, the history is lost: the rod falls as soon as P < W", function()
    local r = run({ warm_start = "false" })
    assert.is_true(r.load_error <= 1e-6)
    assert.is_near(1.0, r.detach, increment / W + 1e-9)
  end)
end)

describe("indeterminate forces in a granular sample (section 3.1)", function()
  local r = helper.run("scripts/papers/moreau2004_granular_sample.lua", { samples = "40" }, false)

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
end)
