-- Benchmark: the pile solvers on the packed column at rest (scripts/bench/packed_pile.lua: N equal
-- disks in a hexagonal packing between two walls, every neighbour touching, h = 1e-3, mu = 0.3),
-- each solver to the tolerance with a cap that does not bind (issue 18: "iterations and CPU to
-- reach 1e-4 and 1e-6 ... on a packed 10 000-disk column at rest"). Not a test.
--
--   build/ricochet run scripts/bench/packed_solvers.lua --set N=10000 --set tols=1e-4,1e-6 --set steps=10
--
-- For every tolerance and solver (NSGS, NSGS + Anderson m = 5, APGD, Newton with the sparse LU),
-- one run of packed_pile.lua: the first step (the column takes up its weight from a zero warm
-- start) and the mean of the next steps-1 (warm started): iterations (sweeps, Newton iterations)
-- and process CPU per step, steps not converged within the cap. APGD solves the relaxed law (the
-- CCP, docs/granular.md): its residual is its own problem's.
local rc = require "ricochet"

local N = math.tointeger(rc.param("N", 10000))
local steps = math.tointeger(rc.param("steps", 10))
local cap = math.tointeger(rc.param("max_iter", 20000))
local tols = rc.param("tols", "1e-4,1e-6")
local exe = rc.param("exe", "build/ricochet")
local only = rc.param("only", "nsgs,anderson,apgd,newton")

local solvers = dofile((os.getenv("RICOCHET_ROOT") or ".") .. "/scripts/bench/solver_bench.lua").pile_solvers(only)

io.write(string.format("packed_solvers: N = %d, %d steps (the first from rest, then warm started), cap %d iterations, one run each\n", N, steps, cap))
io.write("| tol | solver | first step: iterations | first step: CPU s | next steps: iterations/step | next steps: CPU s/step | steps not converged |\n")
io.write("|---|---|---|---|---|---|---|\n")
for tol in tols:gmatch("[^,]+") do
  for _, s in ipairs(solvers) do
    local cmd = string.format("%s run scripts/bench/packed_pile.lua --quiet --set N=%d --set steps=%d --set tol=%s --set max_iter=%d %s 2>/dev/null",
                              exe, N, steps, tol, cap, s.args)
    local f = assert(io.popen(cmd))
    local out = f:read("a")
    f:close()
    local it1, conv1, cpu1 = out:match("first step: .- (%d+) iterations %(cap %d+%), residual [%d.e+-]+, converged (%a+), cpu ([%d.]+) s")
    local cpu, sweeps = out:match("cpu ([%d.]+) s/step, ([%d.]+) sweeps/step")
    local capped = out:match("(%d+) steps at the cap")
    assert(it1 and cpu and capped, "could not parse the output of: " .. cmd .. "\n" .. out)
    io.write(string.format("| %s | %s | %s%s | %.3f | %.1f | %.4f | %d of %d |\n", tol, s.name, it1,
                           conv1 == "true" and "" or " (not converged)", tonumber(cpu1), tonumber(sweeps), tonumber(cpu),
                           tonumber(capped) + (conv1 == "true" and 0 or 1), steps))
    io.flush()
  end
end
