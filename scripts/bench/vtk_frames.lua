-- Benchmark: the CPU time of one VTK frame (sim:vtk, docs/output-vtk.md) of an N-disk pile,
-- with the disks as points with a radius (the default) and with their outlines
-- (disk_outlines = true: a 32-sided polygon and a radius line per disk). Not a test.
--
-- The scene of scripts/bench/disks_in_box.lua (radii 0.1 +- 10 %, a lattice of
-- ceil(sqrt(2N)) columns, a box of three half-planes, fixed seed 42) after `steps` steps of
-- h = 1e-3 (the lower rows have landed: contacts to draw); then `frames` frames of each kind, interleaved, each timed
-- with os.clock around the sim:vtk call that writes it (open, one frame, close), into a
-- temporary folder. Prints the median per kind and the size of one frame's files.
--   build/ricochet run scripts/bench/vtk_frames.lua --set N=10000
local rc = require "ricochet"

local N      = math.tointeger(rc.param("N", 10000))
local steps  = math.tointeger(rc.param("steps", 300))
local frames = math.tointeger(rc.param("frames", 5))

math.randomseed(42)
local function uniform(a, b) return a + (b - a) * math.random() end
local c = math.ceil(math.sqrt(2 * N))
local width = 0.25 * c
local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
w:halfplane{ point = { width, 0 }, normal = { -1, 0 } }
for i = 0, N - 1 do
  local col, row = i % c, i // c
  local r = 0.1 * uniform(0.9, 1.1)
  local m = math.pi * r * r
  w:body{ mass = m, inertia = 0.5 * m * r * r,
          q = { 0.25 * (col + 0.5) + uniform(-0.01, 0.01), 0.25 * (row + 0.5) + 0.05 + uniform(-0.01, 0.01), 0 },
          v = { uniform(-0.5, 0.5), uniform(-0.5, 0.5), 0 }, shape = rc.disk{ radius = r } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-4, max_iter = 100, on_fail = "warn" } }
for _ = 1, steps do sim:step() end

local dir = os.tmpname()
os.remove(dir)
local function du(path)
  local p = io.popen("du -sk '" .. path .. "' 2>/dev/null")
  local kb = tonumber((p:read("l") or ""):match("^(%d+)"))
  p:close()
  return kb or 0
end
local times = { points = {}, outlines = {} }
local size = {}
for k = 1, frames do
  for _, kind in ipairs{ "points", "outlines" } do
    local d = string.format("%s/%s%d", dir, kind, k)
    local c0 = os.clock()
    sim:vtk{ dir = d, disk_outlines = kind == "outlines" }
    local t = os.clock() - c0
    sim:close_vtk()
    times[kind][#times[kind] + 1] = t
    size[kind] = du(d)
  end
end
os.execute("rm -rf '" .. dir .. "'")
local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or 0.5 * (t[n // 2] + t[n // 2 + 1])
end
local active = 0
for _, ct in ipairs(sim:contacts()) do if ct.active then active = active + 1 end end
for _, kind in ipairs{ "points", "outlines" } do
  io.write(string.format("vtk_frames: N = %d, %d active contacts, disks as %s: %.1f ms per frame (median of %d), %d KiB per frame\n",
    N, active, kind, 1e3 * median(times[kind]), frames, size[kind]))
end
