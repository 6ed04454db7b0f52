-- Moreau 2004, section 3.2: polygonal grains flowing down a rough slope in a
-- periodic cell (shortened: 6 rows of grains, 0.3 s, a few explorations).
local rc = require "ricochet"
local helper = require "scenario_helper"

describe("the slope flow of polygons (Moreau 2004, section 3.2)", function()
  local dir = os.tmpname()
  os.remove(dir)
  rc.reset_params()
  rc.set_options{ script = "scripts/papers/moreau2004_slope_flow.lua", out = dir,
                  set = { T = "0.3", layers = "6", samples = "4", window = "0.1" } }
  local chunk = assert(loadfile(helper.root .. "/scripts/papers/moreau2004_slope_flow.lua"))
  local ok, r = pcall(chunk)
  rc.set_options(nil)
  assert(ok, r)

  it("keeps every grain in the periodic cell, above the rough base", function()
    assert.are.equal(r.N, #r.grains)
    for _, b in ipairs(r.grains) do
      local q = b:q()
      assert.is_true(q[1] >= 0 and q[1] < r.L)
      assert.is_true(q[2] > 0)           -- centres above the glued grains' centres
    end
    assert.are.equal(r.summary.steps, 600)
  end)

  it("flows down the slope with a velocity that grows from the base up (12 strips)", function()
    assert.is_true(#r.profiles >= 3)
    local p = r.profiles[#r.profiles]
    assert.are.equal(12, #p.strips)
    local low, high = 0, 0
    for k = 1, 4 do low = low + p.strips[k].vx / 4 end
    for k = 7, 10 do high = high + p.strips[k].vx / 4 end
    assert.is_true(high > 0.01)           -- moving down the slope (+x)
    assert.is_true(high > 3 * math.abs(low))
  end)

  it("writes the profile as CSV (12 strips per window) and plots it", function()
    local f = assert(io.open(dir .. "/profile.csv"))
    local header, rows = f:read("l"), 0
    for _ in f:lines() do rows = rows + 1 end
    f:close()
    assert.are.equal("t0,t1,strip,y,height,grains,vx,vy", header)
    assert.are.equal(12 * #r.profiles, rows)
    local s = assert(io.open(dir .. "/profile.svg")):read("a")
    assert.truthy(s:find("<polyline", 1, true))
    os.execute("rm -rf " .. dir)
  end)

  it("sliding contacts show no force dispersion, at atan(mu) from the normal; sticking ones fan out", function()
    assert.is_true(r.ref_converged)
    assert.are.equal(4, r.converged)                          -- to 1e-8: statuses are not solver error
    assert.is_true(r.sliding >= 5)
    assert.is_true(r.slide_spread < 1e-6 * 180 / math.pi)     -- 1e-6 rad
    assert.is_true(r.slide_angle_err < 1e-6 * 180 / math.pi)
    assert.is_true(r.sticking >= 20)
    assert.is_true(r.fans >= 5)                               -- indeterminate forces
  end)
end)
