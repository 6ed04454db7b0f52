-- Benchmark (not a test): solver = { "newton" } against NSGS on the same
-- scripts, side by side: steps, Newton iterations / NSGS sweeps (mean and
-- largest per step), the solver's CPU time (stats.solver_cpu_s: the
-- one-step solves only), the largest residual, the steps NSGS finished for
-- Newton (newton_fallbacks) and the unconverged steps. Each script runs
-- unchanged except for the solver's method (world:simulation is wrapped to
-- put the method first in its solver table; the script's tol and max_iter
-- are kept). Newton runs with its linear solve dense ("newton-d": LU of the
-- assembled W), iterative ("newton-i": matrix-free GMRES) and sparse
-- ("newton-s": KLU), NSGS first; the runs and the table: scripts/bench/solver_bench.lua.
-- docs/benchmarks.md has the numbers and the commands:
--   build/ricochet run scripts/bench/newton_vs_nsgs.lua
--   build/ricochet run scripts/bench/newton_vs_nsgs.lua --set only=pendulum
--   build/ricochet run scripts/bench/newton_vs_nsgs.lua --set only=pile --set N=1000 --set T=0.1 --set dense=0
local rc = require "ricochet"
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

local variants = { { name = "nsgs", solver = "nsgs" } }
if with_dense then variants[#variants + 1] = { name = "newton-d", solver = "newton", linear = "dense" } end
variants[#variants + 1] = { name = "newton-i", solver = "newton", linear = "iterative" }
variants[#variants + 1] = { name = "newton-s", solver = "newton", linear = "sparse" }
dofile(root .. "/scripts/bench/solver_bench.lua").run_table(cases, variants, only)
