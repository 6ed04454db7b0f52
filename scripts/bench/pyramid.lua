-- A pyramid of unit boxes standing on the ground: the layout of Box2D v3's
-- large-pyramid benchmark (rows = 100: 5 050 boxes). Row i (from 0) has
-- rows - i boxes at x = (i + 1)/2 + (j - i) - rows/2, j = i .. rows - 1,
-- y = 1/2 + i, touching exactly; mass 1, mu = 0.6, e = 0, g = -10,
-- h = 1/60, Moreau--Jean theta = 1/2, NSGS. It must stand: the script prints
-- the largest displacement of a box from its start, the largest rotation and
-- the largest overlap, and the CPU time per step.
--
--   build/ricochet run scripts/bench/pyramid.lua --quiet --set rows=100 --set T=5
--
-- Parameters: rows (20), T (5), tol (1e-6), max_iter (1000), order ("fixed",
-- "position", ...), persist_tol (the kernel's default if not given), h (1/60).
local rc = require "ricochet"

local rows = math.tointeger(rc.param("rows", 20))
local T = rc.param("T", 5.0)
local h = rc.param("h", 1 / 60)
local tol = rc.param("tol", 1e-6)
local max_iter = math.tointeger(rc.param("max_iter", 1000))
local order = rc.param("order", "fixed")
local persist_tol = tonumber(rc.param("persist_tol", "default"))   -- nil: the kernel's default

local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local boxes, start = {}, {}
for i = 0, rows - 1 do
  for j = i, rows - 1 do
    local x, y = (i + 1) / 2 + (j - i) - rows / 2, 0.5 + i
    boxes[#boxes + 1] = w:body{ mass = 1, inertia = 1 / 6, q = { x, y, 0 }, shape = rc.box{ 1, 1 } }
    start[#start + 1] = { x, y }
  end
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.6 } }
local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                          persist_tol = persist_tol,
                          solver = { "nsgs", tol = tol, max_iter = max_iter, order = order } }
local overlap = 0
sim:after_step(function(s)
  if s.steps % 10 == 0 or s.t >= T - 0.5 * h then
    for _, c in ipairs(s:contacts()) do if c.active then overlap = math.max(overlap, -c.gN) end end
  end
end)
local summary = sim:run{ T = T }
local moved, turned = 0, 0
for k, b in ipairs(boxes) do
  local q = b:q()
  moved = math.max(moved, math.sqrt((q[1] - start[k][1]) ^ 2 + (q[2] - start[k][2]) ^ 2))
  turned = math.max(turned, math.abs(q[3]))
end
local st = sim:stats()
io.write(string.format(
  "pyramid: %d rows (%d boxes), T = %g, tol %g, at most %d sweeps (%s order): largest displacement %.3g, rotation %.3g, " ..
  "overlap %.3g; %.3f ms/step (CPU), %d of %d steps unconverged, at most %d sweeps\n",
  rows, #boxes, T, tol, max_iter, order, moved, turned, overlap, 1e3 * summary.cpu_s / summary.steps,
  st.failures, summary.steps, st.max_iterations))
return { boxes = #boxes, moved = moved, turned = turned, overlap = overlap, summary = summary,
         ms_per_step = 1e3 * summary.cpu_s / summary.steps }
