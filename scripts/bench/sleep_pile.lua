-- Benchmark: a settled pile of N disks with sleeping on vs off (not a test;
-- docs/benchmarks.md#sleeping).
--
-- Monodisperse disks (r = 0.1, density 1) in a hexagonal lattice of touching
-- disks on a floor between two walls (cols = ceil(sqrt(N)) per row), at rest:
-- e = 0, mu = 0.5, h = 2e-3, NSGS tolerance 1e-6, at most 100 sweeps. The
-- pile is run `settle` seconds (sleeping, if on, with time = 0.1 s: it falls
-- asleep within that), then `M` steps are timed (CPU, os.clock).
--
--   build/ricochet run scripts/bench/sleep_pile.lua --quiet --set N=10000 --set sleep=1
--   build/ricochet run scripts/bench/sleep_pile.lua --quiet --set N=10000 --set sleep=0
local rc = require "ricochet"

local N      = math.tointeger(rc.param("N", 10000))
local sleep  = rc.param("sleep", 1) ~= 0
local settle = rc.param("settle", 0.3)
local M      = math.tointeger(rc.param("M", 100))

local r = 0.1
local cols = math.ceil(math.sqrt(N))
local width = 2 * r * cols + r
local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01, default_law = rc.newton{ e = 0, mu = 0.5 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
w:halfplane{ point = { width, 0 }, normal = { -1, 0 } }
for i = 0, N - 1 do
  local row, col = i // cols, i % cols
  local m = math.pi * r * r
  w:body{ mass = m, inertia = 0.5 * m * r * r,
          q = { r + 2 * r * col + (row % 2) * r, r + row * r * math.sqrt(3), 0 }, shape = rc.disk{ r } }
end
local sim = w:simulation{ h = 2e-3, solver = { tol = 1e-6, max_iter = 100 },
                          sleep = sleep and { time = 0.1 } or false }
sim:run{ T = settle }
local si = w:sleep_info()
local t0, s0 = os.clock(), sim.steps
sim:run{ T = settle + M * sim.h }
local cpu = (os.clock() - t0) / (sim.steps - s0)
local info = sim:info()
si = w:sleep_info()
print(("N = %d, sleep %s: %.3f ms CPU per step over %d steps; asleep %d, active contacts %d, contacts %d%s"):format(
      N, sleep and "on" or "off", 1e3 * cpu, sim.steps - s0, si.sleeping, info.nactive, info.ncontacts,
      sleep and (", pairs tested %d"):format(si.pairs) or ""))
