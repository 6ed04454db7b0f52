-- Benchmark helper (not a test): the rockfall wall's collapse, the costly part of
-- scripts/papers/acary2024_rockfall.lua, measured from one saved state.
--
--   build/ricochet run scripts/bench/rockfall_collapse.lua --quiet [--set n=300] [--set ck=out/rockfall_collapse.rcc]
--       [--set cap=N] [--set sweep_order=fixed|position|top|colour] [--set omega=1.3] [--set warm_start=false]
--       [--set depth=m] [--set method=newton] [--set skip=f]
--
-- The first run (no checkpoint at ck) runs the paper script from t = 0 until its first step
-- after t_from (1.66 s: the rock reaches the wall at 1.665 s) that stops at the sweep cap,
-- and saves the state before that step to ck (~20 s); every run then restores it and makes n
-- steps, printing one "rockfall_collapse:" line: process CPU (os.clock) of the n steps and per
-- step, sweeps per step, steps at the cap, one-contact solves, the largest residual and the
-- last step's. cap (max_iter), sweep_order (order), omega (relax), warm_start, skip (skip_quiet), depth (Anderson
-- acceleration, skip_quiet off), method (the solver): the solver's settings for the n steps (the world reconfigured after the
-- restore; the checkpoint is always the script's own settings). Any other --set of the paper
-- script applies to both phases (sim:restore refuses a checkpoint of another model; hence
-- these names, not the paper script's own max_iter, order, relax, solver).
local rc = require "ricochet"

local n = math.tointeger(rc.param("n", 300, { min = 1 }))
local ck = rc.param("ck", "out/rockfall_collapse.rcc")
local t_from = rc.param("t_from", 1.66, { min = 0 })
local over = {   -- the solver's settings for the measured steps (nil: the script's)
  cap = rc.param("cap", 0, { min = 0 }), sweep_order = rc.param("sweep_order", ""), omega = rc.param("omega", 0.0, { min = 0 }),
  warm_start = rc.param("warm_start", "", { one_of = { "", "true", "false" } }), depth = rc.param("depth", 0, { min = 0 }),
  method = rc.param("method", "", { one_of = { "", "nsgs", "newton" } }),
  skip = rc.param("skip", -1.0),   -- skip_quiet for the measured steps (< 0: the script's)
}
local World = getmetatable(rc.world{ dim = 3 }).__index
local make = World.simulation
local Stop = {}

local function reconfigured(def)
  local sv = def.solver
  if over.cap > 0 then sv.max_iter = math.tointeger(over.cap) end
  if over.sweep_order ~= "" then sv.order = over.sweep_order end
  if over.omega > 0 then sv.relax = over.omega end
  if over.warm_start ~= "" then sv.warm_start = over.warm_start == "true" end
  if over.skip >= 0 then sv.skip_quiet = over.skip end
  if over.depth > 0 then sv.accelerate, sv.depth, sv.skip_quiet = "anderson", math.tointeger(over.depth), nil end
  if over.method == "newton" then sv[1], sv.order, sv.relax, sv.skip_quiet = "newton", nil, nil, nil end
  return def
end

-- restore ck, n steps with the settings above, print, stop the paper script
local function measure(self, def)
  make(self, def):restore(ck)
  local s = make(self, reconfigured(def))
  local solves0 = s:stats().local_solves
  local c0 = os.clock()
  local capped, sweeps, res, last = 0, 0, 0.0, 0.0
  for _ = 1, n do
    s:step()
    local info = s:info()
    sweeps = sweeps + info.iterations
    if not info.converged then capped = capped + 1 end
    last = info.residual
    res = math.max(res, last)
  end
  local cpu = os.clock() - c0
  print(string.format("rockfall_collapse: from_t=%.4f steps=%d cpu_s=%.3f cpu_ms_per_step=%.3f sweeps_per_step=%.1f "
    .. "capped=%d local_solves=%d max_residual=%.4g last_residual=%.4g", s.t - n * s.h, n, cpu, 1e3 * cpu / n,
    sweeps / n, capped, s:stats().local_solves - solves0, res, last))
  error(Stop)
end

-- the paper script from t = 0 until its first capped step after t_from, the state before it kept
local function save(self, def)
  local s = make(self, def)
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

local function paper(simulation)
  World.simulation = simulation
  local ok, err = pcall(dofile, "scripts/papers/acary2024_rockfall.lua")
  if not ok and err ~= Stop then error(err, 0) end
end

local f = io.open(ck, "rb")
if f then f:close() else
  paper(save)
  rc.reset_params()   -- the paper script declares its parameters again; ours are read again
  rc.param("n", n); rc.param("ck", ck); rc.param("t_from", t_from)
  for k, v in pairs(over) do rc.param(k, v) end
end
paper(measure)
