-- Benchmark helper (not a test): the rockfall wall's collapse, the costly part of
-- scripts/papers/acary2024_rockfall.lua, measured from one saved state.
--
--   build/ricochet run scripts/bench/rockfall_collapse.lua --quiet [--set n=300] [--set ck=out/rockfall_collapse.rcc]
--
-- The first run (no checkpoint at ck) runs the paper script from t = 0 until its first step
-- after t_from (1.66 s: the rock reaches the wall at 1.665 s) that stops at the sweep cap,
-- and saves the state before that step to ck (~20 s); later runs restore it. Then n steps
-- from there, printing one "rockfall_collapse:" line: process CPU (os.clock) of the n steps
-- and per step, sweeps per step, steps at the cap, one-contact solves, the largest residual.
-- Any --set of the paper script applies to both phases (the checkpoint must come from the
-- same settings and build's model: sim:restore refuses another one).
local rc = require "ricochet"

local n = math.tointeger(rc.param("n", 300, { min = 1 }))
local ck = rc.param("ck", "out/rockfall_collapse.rcc")
local t_from = rc.param("t_from", 1.66, { min = 0 })
local World = getmetatable(rc.world{ dim = 3 }).__index
local make = World.simulation
local f = io.open(ck, "rb")
local have = f ~= nil
if f then f:close() end

local function measure(s)
  local c0 = os.clock()
  local capped, sweeps, res = 0, 0, 0.0
  local solves0 = s:stats().local_solves
  for _ = 1, n do
    s:step()
    local info = s:info()
    sweeps = sweeps + info.iterations
    if not info.converged then capped = capped + 1 end
    if info.residual > res then res = info.residual end
  end
  local cpu = os.clock() - c0
  print(string.format("rockfall_collapse: from_t=%.4f steps=%d cpu_s=%.3f cpu_ms_per_step=%.3f sweeps_per_step=%.1f "
    .. "capped=%d local_solves=%d max_residual=%.4g", s.t - n * s.h, n, cpu, 1e3 * cpu / n, sweeps / n, capped,
    s:stats().local_solves - solves0, res))
end

local Stop = {}
World.simulation = function(self, def)
  local s = make(self, def)
  if have then
    s:restore(ck)
    measure(s)
    error(Stop)
  end
  local tmp = ck .. ".before"
  s:before_step(function(sim) if sim.t > t_from then sim:save(tmp) end end)
  s:after_step(function(sim)
    local info = sim:info()
    if info.t > t_from and not info.converged then
      assert(os.rename(tmp, ck))
      print(string.format("rockfall_collapse: saved the state before step %d (t = %.4f, capped at %d sweeps) to %s",
                          info.step, info.t, info.iterations, ck))
      error(Stop)
    end
  end)
  return s
end
local ok, err = pcall(dofile, "scripts/papers/acary2024_rockfall.lua")
if not ok and err ~= Stop then error(err, 0) end
if not have then
  have = true
  World.simulation = function(self, def)
    local s = make(self, def)
    s:restore(ck)
    measure(s)
    error(Stop)
  end
  rc.reset_params()   -- the paper script declares its parameters again; ours are read again
  rc.param("n", n); rc.param("ck", ck); rc.param("t_from", t_from)
  ok, err = pcall(dofile, "scripts/papers/acary2024_rockfall.lua")
  if not ok and err ~= Stop then error(err, 0) end
end
