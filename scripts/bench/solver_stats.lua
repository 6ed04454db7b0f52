-- Benchmark helper (not a test): run a script and print its solver's figures per step.
--
--   build/ricochet run scripts/bench/solver_stats.lua --quiet --set script=scripts/papers/acary2024_rockfall.lua --set T=0.4
--
-- Wraps world:simulation so that every simulation the script makes gets an after_step
-- hook, runs the script (its own --set parameters apply), then prints one "solver_stats:"
-- line: steps, process CPU (os.clock) of the whole script and per step, sweeps per step
-- (mean and over the steps after the first `settle` steps, default 4), steps at the sweep cap
-- (not converged), the largest residual and the largest overlap (sim:stats().max_overlap).
-- order=, residual=, relax=: set the script's solver options (when it gives a solver table);
-- depth=m (> 0): NSGS with Anderson acceleration of depth m (accelerate = "anderson", and
-- skip_quiet off: the two do not go together).
local rc = require "ricochet"

local script = rc.param("script", "scripts/papers/acary2024_rockfall.lua")
local settle = math.tointeger(rc.param("settle", 4))
local order = rc.param("order", "")
local residual = rc.param("residual", "")
local relax = rc.param("relax", 0)
local depth = math.tointeger(rc.param("depth", 0))
local World = getmetatable(rc.world{ dim = 3 }).__index
local make = World.simulation
local sims = {}
local steps, sweeps, sweeps_late, capped, res_max = 0, 0, 0, 0, 0.0
World.simulation = function(self, def)
  if type(def.solver) == "table" then   -- order=, residual=: the solver's, overridden
    if order ~= "" then def.solver.order = order end
    if residual ~= "" then def.solver.residual = residual end
    if relax > 0 then def.solver.relax = relax end
    if depth > 0 then def.solver.accelerate, def.solver.depth, def.solver.skip_quiet = "anderson", depth, nil end
  end
  local s = make(self, def)
  sims[#sims + 1] = s
  s:after_step(function(sim)
    local info = sim:info()
    steps = steps + 1
    sweeps = sweeps + info.iterations
    if steps > settle then sweeps_late = sweeps_late + info.iterations end
    if not info.converged then capped = capped + 1 end
    if info.residual > res_max then res_max = info.residual end
  end)
  return s
end
local c0 = os.clock()
dofile(script)
local cpu = os.clock() - c0
local overlap = 0.0
for _, s in ipairs(sims) do
  local st = s:stats()
  if st.max_overlap and st.max_overlap > overlap then overlap = st.max_overlap end
end
io.write(string.format("solver_stats: script=%s steps=%d cpu_s=%.3f cpu_ms_per_step=%.3f sweeps_per_step=%.2f "
  .. "sweeps_per_step_after_%d=%.2f capped=%d max_residual=%.4g max_overlap=%.4g\n",
  script, steps, cpu, steps > 0 and 1e3 * cpu / steps or 0, steps > 0 and sweeps / steps or 0,
  settle, steps > settle and sweeps_late / (steps - settle) or 0, capped, res_max, overlap))
