-- Maury 2006, section 6.3: many-body computation. N = 2 000 disks, radii
-- uniform in [0.8, 1.2] r0 (r0 = 0.015), masses (r/r0)^3, placed at random
-- (sequential addition, fixed seed) in a circle at area fraction 0.45 whose
-- bottom is 0.05 above a wall y = 0; all move at unit speed towards the wall;
-- h = 0.1, so a disk moves about three diameters per step; ten steps.
-- Maury's scheme keeps every detected pair (margin 2 h |u|max) in the
-- linearised non-overlap constraints; what must hold (notes 001, P1-P3): no
-- overlap beyond the solver tolerance, kinetic energy non-increasing, the
-- momentum along the wall exact, the momentum normal to it non-decreasing.
--   build/ricochet run scripts/papers/maury2006_many_body.lua --set N=500 --set solver=uzawa
local rc = require "ricochet"

local N      = rc.param("N", 2000)
local r0     = rc.param("r0", 0.015)
local h      = rc.param("h", 0.1)
local steps  = rc.param("steps", 10)
local seed   = rc.param("seed", 11)
local solver = rc.param("solver", "nsgs")    -- nsgs | uzawa
local tol    = rc.param("tol", 1e-5)
local relax  = rc.param("relax", 1.0)

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

local sim = w:simulation{ scheme = "maury", h = h, solver = { solver, tol = tol, max_iter = 100000, relax = relax } }
local function measure()
  local K, Px, Py, gmin = 0, 0, 0, math.huge
  for i = 1, N do
    local b = bodies[i]
    local m = (radii[i] / r0) ^ 3
    local q, v = b:q(), b:v()
    K = K + 0.5 * m * (v[1] ^ 2 + v[2] ^ 2)
    Px, Py = Px + m * v[1], Py + m * v[2]
    gmin = math.min(gmin, q[2] - radii[i])
  end
  for _, c in ipairs(sim:contacts()) do gmin = math.min(gmin, c.gN) end
  return K, Px, Py, gmin
end
local K0, Px0, Py0 = measure()
local rows = {}
sim:after_step(function(s)
  local K, Px, Py = measure()
  local i = s:info()
  rows[#rows + 1] = { K = K, Px = Px, Py = Py, iterations = i.iterations, active = i.nactive }
end)
local summary = sim:run{ T = steps * h }
-- the gaps at the end (sim:contacts() holds those of the last step's start; detect anew by one more query)
local _, _, _, gmin_end = measure()
local K_increase, Px_drift, Py_decrease = 0, 0, 0
local Kp, Pyp = K0, Py0
for _, r in ipairs(rows) do
  K_increase = math.max(K_increase, r.K - Kp)
  Px_drift = math.max(Px_drift, math.abs(r.Px - Px0))
  Py_decrease = math.max(Py_decrease, Pyp - r.Py)
  Kp, Pyp = r.K, r.Py
end
io.write(string.format(
  "maury 6.3, N = %d, %d steps of h = %g (%s): min gap %.2e (r0 = %g), largest K increase %.2e, |Px drift| %.2e, " ..
  "largest Py decrease %.2e, K %.4f -> %.4f, sweeps per step max %d\n",
  N, #rows, h, solver, gmin_end, r0, K_increase, Px_drift, Py_decrease, K0, Kp, summary.max_iterations))
return { min_gap = gmin_end, K_increase = K_increase, Px_drift = Px_drift, Py_decrease = Py_decrease,
         K0 = K0, K = Kp, rows = rows, summary = summary }
