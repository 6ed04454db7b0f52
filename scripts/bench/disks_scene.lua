-- Benchmark helper: writes the initial state of scripts/bench/disks_in_box.lua to a text
-- file, so that other codes (scripts/bench/siconos_disks.py, scripts/bench/box2d_disks.cpp)
-- start from exactly the same numbers.
--
--   build/ricochet run scripts/bench/disks_scene.lua --quiet --set N=1000 --set out=/tmp/scene.txt
--
-- The random numbers are drawn with the same interpreter, seed and call order as
-- disks_in_box.lua (radius, x jitter, y jitter, vx, vy for each disk in turn); the file
-- also records the kinetic and potential energy of the state, which scripts/bench/compare
-- checks against the energies Ricochet writes for step 0 of disks_in_box.lua.
--
-- File format (plain text, numbers with 17 significant digits):
--   line 1: N c width g mu h seed
--   line 2: E_kin E_pot
--   then N lines: r x y vx vy        (mass = pi r^2, inertia = m r^2 / 2, omega = 0)
local rc = require "ricochet"

local N    = rc.param("N", 1000)
local seed = rc.param("seed", 42)
local out  = rc.param("out", "disks_scene.txt")

math.randomseed(seed)
local function uniform(a, b) return a + (b - a) * math.random() end

local c = math.ceil(math.sqrt(2 * N))
local width = 0.25 * c
local g = 9.81
local rows = {}
local ekin, epot = 0.0, 0.0
for i = 0, N - 1 do
  local col, row = i % c, i // c
  -- same expressions, same order as disks_in_box.lua
  local r = 0.1 * uniform(0.9, 1.1)
  local m = math.pi * r * r
  local x = 0.25 * (col + 0.5) + uniform(-0.01, 0.01)
  local y = 0.25 * (row + 0.5) + 0.05 + uniform(-0.01, 0.01)
  local vx = uniform(-0.5, 0.5)
  local vy = uniform(-0.5, 0.5)
  ekin = ekin + 0.5 * m * (vx * vx + vy * vy)
  epot = epot + m * g * y
  rows[#rows + 1] = string.format("%.17g %.17g %.17g %.17g %.17g", r, x, y, vx, vy)
end

local f = assert(io.open(out, "w"))
f:write(string.format("%d %d %.17g %.17g %.17g %.17g %d\n", N, c, width, g, 0.3, 1e-3, seed))
f:write(string.format("%.17g %.17g\n", ekin, epot))
f:write(table.concat(rows, "\n"), "\n")
f:close()
io.write(string.format("disks_scene: N = %d, c = %d, width = %g, E_kin = %.15g, E_pot = %.15g -> %s\n",
  N, c, width, ekin, epot, out))
