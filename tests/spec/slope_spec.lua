-- Moreau 2004, section 3.2: polygonal grains flowing down a rough slope in a
-- periodic cell. Shortened: a thin layer (6 rows, a cell of 15 d, 72 grains) on
-- a 30 degree slope for 1.5 s, every step solved (NSGS cap 10 000), then a few
-- explorations of the final state. The full-size flow (20 rows, 26.5 deg, 8 s,
-- several seeds) is measured in docs/theory/contact-dynamics.md: too long here.
local rc = require "ricochet"
local helper = require "scenario_helper"

describe("the slope flow of polygons (Moreau 2004, section 3.2)", function()
  local dir = os.tmpname()
  os.remove(dir)
  rc.reset_params()
  rc.set_options{ script = "scripts/papers/moreau2004_slope_flow.lua", out = dir,
                  set = { T = "1.5", layers = "6", cells = "15", angle = "30", window = "0.1", samples = "4",
                          max_iter = "10000" } }
  local chunk = assert(loadfile(helper.root .. "/scripts/papers/moreau2004_slope_flow.lua"))
  local ok, r = pcall(chunk)
  local unused = rc.unused_overrides()
  rc.set_options(nil)
  assert(ok, r)
  assert(#unused == 0, "overrides never read: " .. table.concat(unused, ", "))

  it("keeps every grain in the periodic cell, above the rough base, every step solved", function()
    assert.are.equal(r.N, #r.grains)
    for _, b in ipairs(r.grains) do
      local q = b:q()
      assert.is_true(q[1] >= 0 and q[1] < r.L)
      assert.is_true(q[2] > 0)           -- centres above the glued grains' centres
    end
    assert.are.equal(3000, r.summary.steps)
    assert.are.equal(0, r.summary.failures)
  end)

  it("flows down the slope with a velocity that grows from the base up (12 strips)", function()
    assert.is_true(#r.profiles >= 10)
    local p = r.profiles[#r.profiles]
    assert.are.equal(12, #p.strips)
    local low, high = 0, 0
    for k = 1, 3 do low = low + p.strips[k].vx / 3 end
    for k = 8, 10 do high = high + p.strips[k].vx / 3 end
    assert.is_true(high > 0.05)           -- moving down the slope (+x)
    assert.is_true(high > 3 * math.abs(low))
  end)

  it("is steady in the second half: gravity's drive balanced by the grains, not sliding, not arrested", function()
    -- the mean along-slope velocity of 0.1 s windows from 0.75 s on, a line fitted to them:
    -- measured 0.254 m/s, fitted acceleration +0.039 m/s^2, 1.7 % of what the drive
    -- (g sin 30 - mu g cos 30 = 2.36 m/s^2) gives a block sliding on the base (seeds 8 and
    -- 9: 1.2 % and 7.2 %). The stricter test of the long runs (the fitted change under 10 %
    -- of the mean velocity) is no test for a flow of 72 grains: solving two steps less
    -- tightly flips it (max_iter 10 000: steady; 2 000: not)
    assert.is_true(r.nfit >= 5)
    assert.is_true(r.vmean > 0.05)                             -- flowing (0.099 m/s; 0.12 before a
                                                               -- missed polygon contact was fixed)
    assert.is_true(math.abs(r.accel) <= 0.15 * r.driving)       -- neither accelerating like sliding nor stopping
    local last = r.profiles[#r.profiles]
    local sv, sn = 0, 0
    for _, st in ipairs(last.strips) do sv, sn = sv + st.vx * st.n, sn + st.n end
    assert.is_true(sv / sn >= 0.5 * r.vmean)                   -- and still flowing at the end
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
    assert.is_true(r.sliding >= 15)                           -- measured 29
    assert.is_true(r.slide_spread < 1e-6 * 180 / math.pi)     -- 1e-6 rad
    assert.is_true(r.slide_angle_err < 1e-6 * 180 / math.pi)
    assert.is_true(r.sticking >= 10)                          -- measured 26
    assert.is_true(r.fans >= 2)                               -- indeterminate forces (measured 6)
  end)
end)
