-- The two planar experiments of Acary & Collins-Craft 2024 (sections 5.1 and
-- 5.2), run from their scenario scripts with the paper's parameters.

local helper = require "scenario_helper"
local function run_scenario(name, set) return helper.run("scripts/papers/" .. name, set) end

local function first_impact(rows, contact)
  for i, r in ipairs(rows) do
    if r[contact .. ".pN"] and r[contact .. ".pN"] > 0 then return i, r end
  end
end

describe("impacting stick (section 5.1)", function()
  it("Moreau-Jean creates energy at the first impact through positive tangential work", function()
    local s, rows = run_scenario("acary2024_impacting_stick.lua", { scheme = "moreau-jean" })
    assert.are.equal(2000, s.steps)
    assert.is_true(s.max_abs_balance <= 1e-12 * s.E0)      -- eq. (65) at every step
    local i, r = first_impact(rows, "C")
    assert.is_not_nil(i)
    assert.is_near(0.0604, r.t, 2e-4)
    local prev = rows[i - 1]
    assert.is_true(r.W_T - prev.W_T > 1e-4)                -- positive tangential work
    assert.is_true(r.E - prev.E > 1e-4)                    -- energy created
    assert.is_near(0, r.W_N - prev.W_N, 1e-12)             -- e = 1: normal work vanishes
  end)

  it("Moreau-Jean-Fremond dissipates at the same impact", function()
    local s, rows = run_scenario("acary2024_impacting_stick.lua", { scheme = "moreau-jean-fremond" })
    assert.is_true(s.max_abs_balance <= 1e-12 * s.E0)
    local i, r = first_impact(rows, "C")
    local prev = rows[i - 1]
    assert.is_true(r.W_T - prev.W_T < -1e-4)
    for k = 2, #rows do
      assert.is_true(rows[k].E - rows[k - 1].E <= 1e-12 * s.E0)
    end
  end)
end)

describe("rocking block (section 5.2)", function()
  it("Moreau-Jean: eq. (65) holds at every step and energy is created at some impacts (Figure 5)", function()
    local s, rows, json = run_scenario("acary2024_rocking_block.lua", { scheme = "moreau-jean" })
    assert.are.equal(10000, s.steps)
    assert.is_true(s.max_abs_balance <= 1e-12 * s.E0)
    assert.is_truthy(json:find('"status": "complete"', 1, true))
    local increases = 0
    for k = 2, #rows do
      if rows[k].E - rows[k - 1].E > 1e-9 then increases = increases + 1 end
    end
    assert.is_true(increases >= 1)
    -- the contacts never penetrate by more than what one step of velocity allows
    for _, r in ipairs(rows) do
      assert.is_true(r["C1.gN"] ~= r["C1.gN"] or r["C1.gN"] > -1e-3)
      assert.is_true(r["C2.gN"] ~= r["C2.gN"] or r["C2.gN"] > -1e-3)
    end
  end)

  it("Moreau-Jean-Fremond never increases E (Figure 6, Proposition 1)", function()
    local s, rows = run_scenario("acary2024_rocking_block.lua", { scheme = "moreau-jean-fremond" })
    assert.is_true(s.max_abs_balance <= 1e-12 * s.E0)
    for k = 2, #rows do
      assert.is_true(rows[k].E - rows[k - 1].E <= 1e-12 * s.E0)
    end
    assert.is_true(rows[#rows].E < rows[1].E - 1e-3)       -- friction dissipated
    -- impulses stay in the Coulomb cone (mu = 0.1)
    for _, r in ipairs(rows) do
      for _, c in ipairs{ "C1", "C2" } do
        local pn, pt = r[c .. ".pN"], r[c .. ".pT"]
        if pn == pn then
          assert.is_true(pn >= 0)
          assert.is_true(math.abs(pt) <= 0.1 * pn * (1 + 1e-12) + 1e-15)
        end
      end
    end
  end)
end)
