-- Benchmark (not a test): does the NSGS thread team sleep when it is idle? (issue 18, item 2;
-- docs/granular.md "Performance: sweep order and threads", docs/benchmarks.md)
--
-- A packed pile of 4 000 disks (docs/granular.md's threads example) is stepped on `threads`
-- OpenMP threads (order "colour", always sharing), then the program sleeps `idle` seconds
-- (os.execute("sleep ...")) and is stepped again. Prints the process CPU and the wall time of
-- the steps, and the process CPU spent while the program slept: what the team's waiting
-- threads burn when nothing runs (libgomp spins for a while, GOMP_SPINCOUNT, then sleeps).
--
--   build/ricochet run scripts/bench/team_idle.lua [--set threads=2 --set steps=10 --set idle=1]
local rc = require "ricochet"

local threads = math.tointeger(rc.param("threads", 2))
local steps = math.tointeger(rc.param("steps", 10))
local idle = rc.param("idle", 1)
if threads < 1 or steps < 1 or not (idle > 0) then error("threads, steps >= 1 and idle > 0") end

local d, cols, rows = 0.19995, 100, 40
local w = rc.world{ gravity = { 0, -9.81 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
w:halfplane{ point = { d * cols + 0.1, 0 }, normal = { -1, 0 } }
for i = 0, cols * rows - 1 do
  local row, col = i // cols, i % cols
  w:body{ mass = 0.0314, inertia = 1.57e-4, shape = rc.disk{ radius = 0.1 },
          q = { 0.1 + d * col + (row % 2) * d / 2, 0.1 + row * d * math.sqrt(3) / 2, 0 } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-4, max_iter = 100, order = "colour",
                                               threads = threads, adaptive_threads = false } }

local core = require "ricochet.core"
local function run(n)
  local c, t = os.clock(), core.wall_time()
  for _ = 1, n do sim:step() end
  return os.clock() - c, core.wall_time() - t
end

local cpu1, wall1 = run(steps)
local c0 = os.clock()
os.execute(string.format("sleep %g", idle))
local idle_cpu = os.clock() - c0
local cpu2, wall2 = run(steps)
print(string.format("team_idle: %d disks, %d threads (OpenMP %s), %d parallel steps of %d", cols * rows, threads,
                    tostring(rc.openmp()), sim:stats().parallel_steps, 2 * steps))
print(string.format("team_idle: %d steps before the sleep: CPU %.3f s, wall %.3f s; %d after: CPU %.3f s, wall %.3f s",
                    steps, cpu1, wall1, steps, cpu2, wall2))
print(string.format("team_idle: process CPU while the program slept %g s: %.4f s (%.2f %% of one core)", idle,
                    idle_cpu, 100 * idle_cpu / idle))
