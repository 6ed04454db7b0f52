-- Conformance with Siconos's own example suite: Ricochet's Moreau--Jean
-- scheme with the anticipating index set (activation = "anticipate", which is
-- Siconos's MoreauJeanOSI rule g + gamma h u_N,k <= 0, gamma = 1/2) against
-- the reference outputs that ship with the Siconos examples
-- (tests/data/siconos/README.md: source, licence, parameters).
local rc = require "ricochet"
local root = os.getenv("RICOCHET_ROOT") or "."

local function read_ref(name)
  local f = assert(io.open(root .. "/tests/data/siconos/" .. name))
  local nr, nc = f:read("l"):match("(%d+)%s+(%d+)")
  local rows = {}
  for line in f:lines() do
    local r = {}
    for x in line:gmatch("%S+") do r[#r + 1] = tonumber(x) end
    if #r > 0 then rows[#rows + 1] = r end
  end
  f:close()
  assert(#rows == tonumber(nr) and #rows[1] == tonumber(nc))
  return rows
end

describe("Siconos examples (MoreauJeanOSI, anticipating index set)", function()
  it("BouncingBallTS: every step's position, velocity and impulse to round-off", function()
    -- BouncingBallTS.cpp: m = 1, gap y, y0 = 1, g = 9.81, e = 0.9, theta = 1/2, h = 0.005, 2000 steps;
    -- an impact every bounce, then the accumulation (t ~ 8.6 s) and rest with u alternating in sign
    local ref = read_ref("BouncingBallTS.ref")
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local ball = w:body{ mass = 1, inertia = 2 / 5 * 0.01, q = { 0, 1, 0 }, shape = rc.point{ 0, 0 } }
    w:contact{ w.ground, ball, law = rc.newton{ e = 0.9 }, name = "C" }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 0.005, activation = "anticipate",
                              solver = { "nsgs", tol = 1e-14 } }
    local err, impacts = { 0, 0, 0 }, 0
    for k = 2, #ref do
      sim:step()
      local c = sim:contact("C")
      local r = ref[k]
      assert.is_near(r[1], sim.t, 1e-12)   -- Siconos's t_k; ours is a running sum of h
      err[1] = math.max(err[1], math.abs(ball:q()[2] - r[2]))
      err[2] = math.max(err[2], math.abs(ball:v()[2] - r[3]))
      err[3] = math.max(err[3], math.abs(c.pN - r[4]))
      if r[4] > 1 then impacts = impacts + 1 end
    end
    assert.is_true(impacts >= 10)
    -- measured: 3.0e-15, 2.2e-14, 2.7e-14 (velocities and impulses of order 1-10)
    assert.is_true(err[1] <= 1e-14, "position " .. err[1])
    assert.is_true(err[2] <= 5e-14, "velocity " .. err[2])
    assert.is_true(err[3] <= 5e-14, "impulse " .. err[3])
  end)

  it("ColumnOfBeadsTS: ten beads falling on the ground and on each other, to round-off", function()
    -- ColumnOfBeadsTS.cpp: 10 beads R = 0.1 at 1 + 0.25 i, e = 0.9, theta = 1/2, h = 5e-4, 4000 steps,
    -- up to ten simultaneous contacts solved as one LCP; the reference keeps every 10th step
    local ref = read_ref("ColumnOfBeadsTS.ref")
    local R, n = 0.1, 10
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local law = rc.newton{ e = 0.9 }
    local beads = {}
    for i = 1, n do
      beads[i] = w:body{ mass = 1, inertia = 3 / 5 * R * R, q = { 0, 1 + (i - 1) * 0.25, 0 }, shape = rc.disk{ radius = R } }
    end
    w:contact{ w.ground, beads[1], law = law }
    for i = 1, n - 1 do w:contact{ beads[i], beads[i + 1], law = law } end
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 5e-4, activation = "anticipate",
                              solver = { "nsgs", tol = 1e-15, max_iter = 100000 } }
    local eq, ev, most = 0, 0, 0
    for k = 2, #ref do
      for _ = 1, 10 do
        sim:step()
        most = math.max(most, sim:info().nactive)
      end
      for i = 1, n do
        eq = math.max(eq, math.abs(beads[i]:q()[2] - ref[k][2 * i]))
        ev = math.max(ev, math.abs(beads[i]:v()[2] - ref[k][2 * i + 1]))
      end
    end
    assert.is_true(most >= 5)                      -- several contacts at once
    -- measured: 6.7e-15 in position, 3.2e-14 in velocity (of order 1-5)
    assert.is_true(eq <= 1e-14, "position " .. eq)
    assert.is_true(ev <= 1e-13, "velocity " .. ev)
  end)

  it("eq. (64) (activation = \"gap\") is not Siconos's rule: the first impact comes a step later", function()
    local ref = read_ref("BouncingBallTS.ref")
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local ball = w:body{ mass = 1, inertia = 0.004, q = { 0, 1, 0 }, shape = rc.point{ 0, 0 } }
    w:contact{ w.ground, ball, law = rc.newton{ e = 0.9 } }
    local sim = w:simulation{ theta = 0.5, h = 0.005, activation = "gap", solver = { "nsgs", tol = 1e-14 } }
    for _ = 1, 91 do sim:step() end                -- row 92: Siconos's impact step (t = 0.455)
    assert.is_true(ref[92][4] > 8)
    assert.is_true(ball:v()[2] < 0)                -- still falling: the gap was positive at t_k
    assert.is_true(math.abs(ball:q()[2] - ref[92][2]) > 1e-3)
  end)
end)
