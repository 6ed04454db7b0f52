-- Benchmark (not a test): solver = { "newton" } against NSGS on the same
-- scripts, side by side: steps, Newton iterations / NSGS sweeps (mean and
-- largest per step), the solver's CPU time (stats.solver_cpu_s: the
-- one-step solves only), the largest residual, the steps NSGS finished for
-- Newton (newton_fallbacks) and the unconverged steps. Each script runs
-- unchanged except for the solver's method (world:simulation is wrapped to
-- put the method first in its solver table; the script's tol and max_iter
-- are kept). Newton runs with its linear solve dense ("newton-d": LU of the
-- assembled W) and iterative ("newton-i": matrix-free GMRES), NSGS first.
-- docs/benchmarks.md has the numbers and the commands:
--   build/ricochet run scripts/bench/newton_vs_nsgs.lua
--   build/ricochet run scripts/bench/newton_vs_nsgs.lua --set only=pendulum
--   build/ricochet run scripts/bench/newton_vs_nsgs.lua --set only=pile --set N=1000 --set T=0.1 --set dense=0
local rc = require "ricochet"
local I = require "ricochet.private"
local root = os.getenv("RICOCHET_ROOT") or "."
local only = rc.param("only", "")
local N = rc.param("N", 200)   -- disks of the pile
local T = rc.param("T", 0.5)   -- the pile's duration
local with_dense = rc.param("dense", 1) ~= 0   -- 0: no dense Newton (large piles)

local cases = {
  { name = "rocking block", key = "rocking", script = "scripts/papers/acary2024_rocking_block.lua", set = {} },
  { name = "pendulum", key = "pendulum", script = "scripts/papers/bruls2014_pendulum.lua", set = {} },
  { name = "elastic bar", key = "bar", script = "scripts/papers/bruls2014_elastic_bar.lua", set = {} },
  { name = string.format("%d-disk pile", N), key = "pile", script = "scripts/bench/disks_in_box.lua",
    set = { N = tostring(N), T = tostring(T) } },
}

local orig = I.World.simulation
local current   -- the solver of this run and its figures
I.World.simulation = function(self, t)
  t = t or {}
  local s = {}
  for k, v in pairs(t.solver or {}) do s[k] = v end
  s[1] = current.solver
  s.linear = current.linear
  if current.solver ~= "nsgs" then s.residual = nil end   -- NSGS-only options of the script
  local t2 = {}
  for k, v in pairs(t) do t2[k] = v end
  t2.solver = s
  local sim = orig(self, t2)
  sim:after_step(function(sm)
    local info = sm:info()
    current.iters = current.iters + info.iterations
    current.steps = current.steps + 1
    if info.iterations > current.max_it then current.max_it = info.iterations end
  end)
  current.sim = sim
  return sim
end

local function run(case, variant)
  current = { solver = variant.solver, linear = variant.linear, iters = 0, steps = 0, max_it = 0 }
  rc.reset_params()
  rc.set_options{ script = case.script, set = case.set }
  local chunk = assert(loadfile(root .. "/" .. case.script))
  local ok, err = pcall(chunk)
  rc.set_options(nil)
  assert(ok, err)
  local st = current.sim:stats()
  return { steps = current.steps, total = current.iters, mean = current.iters / math.max(current.steps, 1), max_it = current.max_it,
           cpu = st.solver_cpu_s, res = st.max_residual, fb = st.newton_fallbacks, failures = st.failures }
end

local variants = { { name = "nsgs", solver = "nsgs" } }
if with_dense then variants[#variants + 1] = { name = "newton-d", solver = "newton", linear = "dense" } end
variants[#variants + 1] = { name = "newton-i", solver = "newton", linear = "iterative" }
variants[#variants + 1] = { name = "newton-s", solver = "newton", linear = "sparse" }
io.write(string.format("%-16s %-8s %7s %9s %9s %7s %10s %10s %6s %6s\n", "case", "solver", "steps", "total it", "mean it", "max it",
                       "cpu [s]", "max res", "fallb", "unconv"))
for _, case in ipairs(cases) do
  if only == "" or only == case.key then
    for _, v in ipairs(variants) do
      local r = run(case, v)
      io.write(string.format("%-16s %-8s %7d %9d %9.2f %7d %10.4f %10.2e %6d %6d\n", case.name, v.name, r.steps, r.total, r.mean,
                             r.max_it, r.cpu, r.res, r.fb, r.failures))
      io.flush()
    end
  end
end
I.World.simulation = orig
