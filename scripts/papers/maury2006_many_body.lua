-- Maury 2006, section 6.3: many-body computation. N = 2 000 disks, radii
-- uniform in [0.8, 1.2] r0 (r0 = 0.015), masses (r/r0)^3, placed at random
-- (sequential addition, fixed seed) in a circle at area fraction 0.45 whose
-- bottom is 0.05 above a wall y = 0; all move at unit speed towards the wall;
-- h = 0.1, so a disk moves about three diameters per step; ten steps.
-- Maury's scheme keeps every detected pair (margin h |u0| + 2 r0: relative
-- speeds stay below |u0| = 1) in the linearised non-overlap constraints;
-- what must hold (notes 001, P1-P3): no overlap beyond the solver tolerance,
-- kinetic energy non-increasing, the momentum along the wall exact, the
-- momentum normal to it non-decreasing. The gaps are checked after every
-- step, every pair (a cell grid here, not the kernel's detection) and every
-- disk against the wall. With the max-norm stopping test (norm = "max") each
-- pair's linearised end-of-step gap is >= -h tol, and the true gap is at
-- least that (the gap of two disks is convex in q, the wall's is linear).
--   build/ricochet run scripts/papers/maury2006_many_body.lua --set relax=1.85
--   build/ricochet run scripts/papers/maury2006_many_body.lua --set N=300 --set solver=uzawa
-- Parameters: N (2000, >= 1), r0 (0.015, > 0), h (0.1, > 0), steps (10,
-- >= 1), seed (11), solver ("nsgs" or "uzawa"), norm ("max": every contact
-- to tol, or "l2": the global residual), tol (1e-4, > 0), relax (1, in
-- (0, 2): NSGS over-relaxation; Uzawa runs with 1), max_iter (100 000, >= 1).
local rc = require "ricochet"

local N      = rc.param("N", 2000, { min = 1 })
local r0     = rc.param("r0", 0.015, { above = 0 })
local h      = rc.param("h", 0.1, { above = 0 })
local steps  = rc.param("steps", 10, { min = 1 })
local seed   = rc.param("seed", 11)
local solver = rc.param("solver", "nsgs", { one_of = { "nsgs", "uzawa" } })
local norm   = rc.param("norm", "max", { one_of = { "max", "l2" } })
local tol    = rc.param("tol", 1e-4, { above = 0 })
local relax  = rc.param("relax", 1.0, { above = 0, below = 2 })
local max_iter = rc.param("max_iter", 100000, { min = 1 })

math.randomseed(seed)
local radii, area = {}, 0
for i = 1, N do
  radii[i] = r0 * (0.8 + 0.4 * math.random())
  area = area + math.pi * radii[i] ^ 2
end
local R = math.sqrt(area / 0.45 / math.pi)      -- the circle at area fraction 0.45
local cx, cy = 0, R + 0.05
-- random sequential addition in a cell grid
local cell, grid, placed = 2.4 * r0, {}, {}
local function key(ix, iy) return ix * 100003 + iy end
local function fits(x, y, r)
  if math.sqrt((x - cx) ^ 2 + (y - cy) ^ 2) > R - r then return false end
  local ix, iy = math.floor(x / cell), math.floor(y / cell)
  for dx = -1, 1 do
    for dy = -1, 1 do
      for _, j in ipairs(grid[key(ix + dx, iy + dy)] or {}) do
        local o = placed[j]
        if (x - o[1]) ^ 2 + (y - o[2]) ^ 2 < (r + o[3]) ^ 2 then return false end
      end
    end
  end
  return true
end
for i = 1, N do
  local r, x, y = radii[i]
  repeat
    x = cx + (2 * math.random() - 1) * R
    y = cy + (2 * math.random() - 1) * R
  until fits(x, y, r)
  placed[i] = { x, y, r }
  local k = key(math.floor(x / cell), math.floor(y / cell))
  grid[k] = grid[k] or {}
  table.insert(grid[k], i)
end

local w = rc.world{ margin = h * 1.0 + 2 * r0 }   -- relative speeds stay below |u0| = 1
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "wall" }
local bodies = {}
for i = 1, N do
  local r = radii[i]
  local m = (r / r0) ^ 3
  bodies[i] = w:body{ mass = m, inertia = 0.5 * m * r * r, q = { placed[i][1], placed[i][2], 0 }, v = { 0, -1, 0 },
                      shape = rc.disk{ radius = r } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0 } }

local sim = w:simulation{ scheme = "maury", h = h,
                          solver = { solver, tol = tol, max_iter = max_iter, norm = norm,
                                     relax = solver == "nsgs" and relax or 1.0 } }
-- every gap of the configuration, independently of the kernel's detection: disk-disk pairs
-- through a cell grid (cells of the largest diameter), disk-wall from y - r
local function least_gaps()
  local cellg, g, pair, wall = 2.4 * r0, {}, math.huge, math.huge
  local pos = {}
  for i = 1, N do
    local q = bodies[i]:q()
    pos[i] = q
    wall = math.min(wall, q[2] - radii[i])
    local k = key(math.floor(q[1] / cellg), math.floor(q[2] / cellg))
    g[k] = g[k] or {}
    table.insert(g[k], i)
  end
  for i = 1, N do
    local q = pos[i]
    local ix, iy = math.floor(q[1] / cellg), math.floor(q[2] / cellg)
    for dx = -1, 1 do
      for dy = -1, 1 do
        for _, j in ipairs(g[key(ix + dx, iy + dy)] or {}) do
          if j > i then
            local d = math.sqrt((q[1] - pos[j][1]) ^ 2 + (q[2] - pos[j][2]) ^ 2) - radii[i] - radii[j]
            pair = math.min(pair, d)
          end
        end
      end
    end
  end
  return pair, wall
end
local function measure()
  local K, Px, Py = 0, 0, 0
  for i = 1, N do
    local b = bodies[i]
    local m = (radii[i] / r0) ^ 3
    local v = b:v()
    K = K + 0.5 * m * (v[1] ^ 2 + v[2] ^ 2)
    Px, Py = Px + m * v[1], Py + m * v[2]
  end
  return K, Px, Py
end
local K0, Px0, Py0 = measure()
local rows = {}
local min_pair, min_wall, worst_step = math.huge, math.huge, 0
sim:after_step(function(s)
  local K, Px, Py = measure()
  local pair, wall = least_gaps()
  if math.min(pair, wall) < math.min(min_pair, min_wall) then worst_step = s.steps end
  min_pair, min_wall = math.min(min_pair, pair), math.min(min_wall, wall)
  local i = s:info()
  rows[#rows + 1] = { K = K, Px = Px, Py = Py, iterations = i.iterations, active = i.nactive,
                      residual = i.residual, pair = pair, wall = wall }
end)
local summary = sim:run{ T = steps * h }
local K_increase, Px_drift, Py_decrease = 0, 0, 0
local Kp, Pyp = K0, Py0
for _, r in ipairs(rows) do
  K_increase = math.max(K_increase, r.K - Kp)
  Px_drift = math.max(Px_drift, math.abs(r.Px - Px0))
  Py_decrease = math.max(Py_decrease, Pyp - r.Py)
  Kp, Pyp = r.K, r.Py
end
local min_gap = math.min(min_pair, min_wall)
io.write(string.format(
  "maury 6.3, N = %d, %d steps of h = %g (%s, norm %s, tol %g): least gap after any step %.2e = %.2e r0 " ..
  "(pairs %.2e r0, wall %.2e r0, step %d; bound h tol = %.2e r0 with norm max), %d solver failures, " ..
  "largest K increase %.2e, |Px drift| %.2e, largest Py decrease %.2e, K %.4f -> %.4f, sweeps per step max %d\n",
  N, #rows, h, solver, norm, tol, min_gap, min_gap / r0, min_pair / r0, min_wall / r0, worst_step, h * tol / r0,
  summary.failures, K_increase, Px_drift, Py_decrease, K0, Kp, summary.max_iterations))
return { min_gap = min_gap, min_pair = min_pair, min_wall = min_wall, K_increase = K_increase, Px_drift = Px_drift,
         Py_decrease = Py_decrease, K0 = K0, K = Kp, rows = rows, summary = summary, h = h, tol = tol, r0 = r0 }
