-- Benchmark: the pile solvers side by side (not a test; docs/benchmarks.md, "Pile solvers").
--
-- Runs scripts/bench/disks_in_box.lua (the N-disk pile, h = 1e-3, mu = 0.3) with NSGS,
-- NSGS + Anderson (depth 5), APGD and the semismooth Newton with the sparse LU, interleaved
-- (solver after solver, reps rounds), and prints per solver the medians of: iterations
-- (sweeps, Newton iterations) per step, process CPU per step, the steps that did not reach
-- the tolerance, the steps Newton handed to NSGS (which then sweeps up to 1 000 times) and
-- the largest overlap over the run. --set only=nsgs,newton runs a subset (keys nsgs,
-- anderson, apgd, newton).
--
--   build/ricochet run scripts/bench/pile_solvers.lua --set N=1000 --set T=1 --set tol=1e-4 --set max_iter=100 --set reps=3
--   build/ricochet run scripts/bench/pile_solvers.lua --set N=10000 --set T=1 --set reps=1 --set only=nsgs,newton
--
-- APGD's residual is that of its own problem (the CCP, apgd.c); NSGS's and Anderson's
-- the Coulomb law's natural map (nsgs.c); same normalisation and tolerance.
local rc = require "ricochet"

local N = math.tointeger(rc.param("N", 1000))
local T = rc.param("T", 1.0)
local tol = rc.param("tol", 1e-4)
local max_iter = math.tointeger(rc.param("max_iter", 100))
local reps = math.tointeger(rc.param("reps", 3))
local exe = rc.param("exe", "build/ricochet")
local only = rc.param("only", "nsgs,anderson,apgd,newton")

local bench = dofile((os.getenv("RICOCHET_ROOT") or ".") .. "/scripts/bench/solver_bench.lua")
local solvers = bench.pile_solvers(only)

local function run(s)
  local cmd = string.format("%s run scripts/bench/disks_in_box.lua --set N=%d --set T=%g --set tol=%g --set max_iter=%d %s 2>/dev/null",
                            exe, N, T, tol, max_iter, s.args)
  local f = assert(io.popen(cmd))
  local out = f:read("a")
  f:close()
  local r = {}
  r.sweeps = tonumber(out:match("([%d.]+) sweeps/step"))
  r.cap = tonumber(out:match("(%d+) steps at the cap"))
  r.steps = tonumber(out:match("(%d+) steps, cpu"))
  r.cpu = tonumber(out:match("%(([%d.]+) ms/step%), solver"))
  r.overlap = tonumber(out:match("over the run ([%d.e+-]+)"))
  r.fallbacks = tonumber(out:match("(%d+) fallbacks to NSGS")) or 0
  assert(r.sweeps and r.cpu and r.steps, "could not parse the output of: " .. cmd .. "\n" .. out)
  return r
end

local median = bench.median

local results = {}
for _ = 1, reps do
  for i, s in ipairs(solvers) do
    results[i] = results[i] or {}
    table.insert(results[i], run(s))
  end
end
io.write(string.format("pile_solvers: N = %d, T = %g s, tol = %g, cap %d iterations, %d interleaved runs each, medians\n",
                       N, T, tol, max_iter, reps))
io.write("| solver | iterations/step | CPU ms/step | steps not converged | Newton steps finished by NSGS | largest overlap |\n|---|---|---|---|---|---|\n")
for i, s in ipairs(solvers) do
  local col = function(k) local t = {} for _, r in ipairs(results[i]) do t[#t + 1] = r[k] end return median(t) end
  io.write(string.format("| %s | %.1f | %.2f | %d of %d (%.1f %%) | %s | %.3g |\n", s.name, col("sweeps"), col("cpu"),
                         col("cap"), results[i][1].steps, 100 * col("cap") / results[i][1].steps,
                         s.key == "newton" and string.format("%d", col("fallbacks")) or "", col("overlap")))
end
