-- Maury 2006 (section 6): the scheme's non-uniqueness on a half-line, sticky
-- particles at large time steps, and a many-body impact (shortened).
local helper = require "scenario_helper"
local function run(name, set) return helper.run("scripts/papers/" .. name, set, false) end

describe("one point on a half-line (section 6.1)", function()
  it("h = 2^-p converges to S_even for even p and to S_odd for odd p, within h in sup norm", function()
    for p = 8, 13 do
      local r = run("maury2006_nonuniqueness.lua", { p = tostring(p) })
      local right, wrong = r.d_even, r.d_odd
      if p % 2 == 1 then right, wrong = r.d_odd, r.d_even end
      assert.is_true(right <= r.h, string.format("p = %d: distance %.3g > h = %.3g", p, right, r.h))
      assert.is_true(wrong >= 0.5)
      if p % 2 == 0 then
        assert.is_near(0, r.q4, 1e-12)
      else
        assert.is_near(0.6, r.q4, 2 * r.h)
        assert.is_near(-0.8, r.u4, 1e-9)
      end
    end
  end)
end)

describe("sticky particles (section 6.2)", function()
  it("every time step ends at the exact sticky-particle state, momentum exact", function()
    for _, h in ipairs{ "0.5", "1.5", "3" } do
      local r = run("maury2006_sticky_particles.lua", { h = h })
      assert.is_true(r.max_error <= 5e-12, h .. ": " .. r.max_error)
      assert.is_true(r.momentum_drift <= 1e-12)
    end
    -- 300 small steps accumulate the solver tolerance a little
    local r = run("maury2006_sticky_particles.lua", { h = "0.01" })
    assert.is_true(r.max_error <= 1e-9)
    assert.is_true(r.momentum_drift <= 1e-12)
  end)

  it("Uzawa, the paper's solver, gives the same state", function()
    local r = run("maury2006_sticky_particles.lua", { h = "1.5", N = "20", solver = "uzawa" })
    assert.is_true(r.max_error <= 5e-12)
    assert.is_true(r.momentum_drift <= 1e-12)
  end)
end)

describe("many-body impact on a wall (section 6.3, shortened)", function()
  for _, case in ipairs{ { "nsgs", "150", "1.6" } } do
    it(case[1] .. ": no overlap, K non-increasing, P_x exact, P_y non-decreasing", function()
      local r = run("maury2006_many_body.lua", { N = case[2], solver = case[1], relax = case[3] })
      assert.are.equal(0, r.summary.failures)
      assert.is_true(r.min_gap >= -3e-3 * 0.015)             -- a fraction of r0 (the solver tolerance)
      assert.is_true(r.K_increase <= 1e-12 * r.K0)
      assert.is_true(r.Px_drift <= 1e-12 * r.K0)
      assert.is_true(r.Py_decrease <= 1e-12 * r.K0)
      assert.is_true(r.K < 0.5 * r.K0)                         -- the cluster has hit the wall
    end)
  end
end)

describe("the scheme's affine term g_N/h (section 3.2, eq. 14) for every law", function()
  local rc = require "ricochet"
  -- a disk dropped on a wall, the margin (0.5) much larger than a step's travel: every
  -- law must let it down to the wall (gap 0), not stop it where the margin catches it
  local laws = {
    newton = function() return rc.newton{ e = 0, mu = 0.3 } end,
    generic = function() return rc.newton{ e = 0, mu = 0.3, local_solver = "generic" } end,
    lua = function() return rc.laws.coulomb{ e = 0, mu = 0.3 } end,
  }
  for name, make in pairs(laws) do
    for _, solver in ipairs{ "nsgs", "uzawa" } do
      it(name .. " law, " .. solver .. ": the disk settles on the wall", function()
        local w = rc.world{ gravity = { 0, -10 }, margin = 0.5 }
        w:halfplane{}
        local b = w:body{ mass = 1, inertia = 0.125, q = { 0, 1.5, 0 }, shape = rc.disk{ radius = 0.5 } }
        w:contact{ w.ground, b, law = make() }
        local sim = w:simulation{ scheme = "maury", h = 1e-2, solver = { solver, tol = 1e-12 } }
        local least = math.huge
        sim:after_step(function() least = math.min(least, b:q()[2] - 0.5) end)
        local s = sim:run{ T = 2 }
        assert.are.equal(0, s.failures)
        assert.is_near(0.5, b:q()[2], 1e-9)     -- was 0.972 with the generic solve and the Lua law
        assert.is_true(least >= -1e-9)          -- never below the wall
        assert.is_near(0, b:v()[2], 1e-9)
      end)
    end
  end
end)
