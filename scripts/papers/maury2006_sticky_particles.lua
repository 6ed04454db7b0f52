-- Maury 2006, section 6.2: sticky particles. N particles on a line, equal
-- masses, velocities uniform in [-1, 1] from a fixed seed, no force, T = 3;
-- colliding particles stick (Maury's scheme is inelastic). The paper: every
-- time step (h = 0.01, 0.5, 1.5) ends in the same state when the particles
-- have gathered, since the centre of mass is computed exactly.
--
-- The particles are disks of radius r on the x axis (frictionless, no
-- gravity, velocities along x); positions x_i - 2 r i are those of point
-- particles. The exact reference is the sticky-particle solution, computed
-- event by event (clusters meet, merge with the mass-weighted velocity) in
-- tests/spec/maury_spec.lua and here (returned with the final positions).
--   build/ricochet run scripts/papers/maury2006_sticky_particles.lua --set h=0.5
--   build/ricochet run scripts/papers/maury2006_sticky_particles.lua --set h=1.5 --set solver=uzawa
-- Parameters: N (50, >= 2), h (0.01, > 0), T (3, > 0), seed (7), radius
-- (1e-3, >= 0, < 1 / (2 (N - 1)): the disks do not overlap at the start),
-- solver ("nsgs" or "uzawa"), accelerate (true: Uzawa with Nesterov's
-- momentum; false: the plain iteration of the paper's Proposition 1),
-- max_iter (sweeps or iterations per step, 20 000 for NSGS, 200 000 for
-- Uzawa, >= 1). Every step is solved to 1e-14.
local rc = require "ricochet"

local N    = rc.param("N", 50, { min = 2 })
local h    = rc.param("h", 0.01, { above = 0 })
local T    = rc.param("T", 3.0, { above = 0 })
local seed = rc.param("seed", 7)
local r    = rc.param("radius", 1e-3, { min = 0, below = 1 / (2 * (N - 1)) })
local solver = rc.param("solver", "nsgs", { one_of = { "nsgs", "uzawa" } })
local accelerate = rc.param("accelerate", true)
local max_iter = rc.param("max_iter", solver == "uzawa" and 200000 or 20000, { min = 1 })

math.randomseed(seed)
local a = 1 / (N - 1)
local x0, v0 = {}, {}
for i = 1, N do
  x0[i] = (i - 1) * a
  v0[i] = 2 * math.random() - 1
end

local w = rc.world{ margin = 2 * 2 * T + 1 }   -- every pair that may meet within a step: all of them
local bodies = {}
for i = 1, N do
  bodies[i] = w:body{ mass = 1, inertia = 1, q = { x0[i], 0, 0 }, v = { v0[i], 0, 0 }, shape = rc.disk{ radius = r } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0 } }

local sim = w:simulation{ scheme = "maury", h = h,
                          solver = { solver, tol = 1e-14, max_iter = max_iter, accelerate = accelerate } }
local summary = sim:run{ T = T }

-- exact sticky-particle solution of the point particles y = x - 2 r i
local function sticky(T)
  local cl = {}
  -- y_i = x_i - 2 r (i - 1): touching disks are coincident points
  for i = 1, N do cl[i] = { m = 1, y = x0[i] - 2 * r * (i - 1), v = v0[i], first = i, n = 1 } end
  local t = 0
  while true do
    local best, k = math.huge, nil
    for j = 1, #cl - 1 do   -- cluster j (left) meets j+1 when their gap closes
      local L, R = cl[j], cl[j + 1]
      local dv = L.v - R.v
      if dv > 0 then
        local gap = (R.y + R.v * t) - (L.y + L.v * t)
        local tc = t + gap / dv
        if tc < best then best, k = tc, j end
      end
    end
    if not k or best > T then break end
    t = best
    local L, R = cl[k], cl[k + 1]
    local yL, yR = L.y + L.v * t, R.y + R.v * t
    local m = L.m + R.m
    local v = (L.m * L.v + R.m * R.v) / m
    -- the merged cluster moves at v; its first member sits at yL at time t
    cl[k] = { m = m, y = yL - v * t, v = v, first = L.first, n = L.n + R.n }
    table.remove(cl, k + 1)
    assert(math.abs(yL - yR) < 1e-9)
  end
  local y = {}
  for _, c in ipairs(cl) do
    for i = c.first, c.first + c.n - 1 do y[i] = c.y + c.v * T end
  end
  return y, #cl
end

local y_exact, clusters = sticky(T)
local x, dmax, P = {}, 0, 0
for i = 1, N do
  x[i] = bodies[i]:q()[1]
  dmax = math.max(dmax, math.abs((x[i] - 2 * r * (i - 1)) - y_exact[i]))
  P = P + bodies[i]:v()[1]
end
local P0 = 0
for i = 1, N do P0 = P0 + v0[i] end
io.write(string.format("maury 6.2, N = %d, h = %g (%s%s): %d clusters at T = %g; max |x - x_exact| = %.3e; momentum drift %.3e; " ..
  "%d solver failures, at most %d sweeps per step\n",
  N, h, solver, solver == "uzawa" and (accelerate and ", accelerated" or ", plain") or "", clusters, T, dmax, math.abs(P - P0),
  summary.failures, summary.max_iterations))
return { x = x, max_error = dmax, clusters = clusters, momentum_drift = math.abs(P - P0), summary = summary }
