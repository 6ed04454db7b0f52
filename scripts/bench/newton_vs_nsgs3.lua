-- Benchmark (not a test): solver = { "newton" } against NSGS on 3D contacts (dim = 3 worlds;
-- src/nonsmooth/newton3.c against nsgs3.c), the 3D twin of newton_vs_nsgs.lua: steps, Newton
-- iterations / NSGS sweeps (mean and largest per step), the solver's CPU time
-- (stats.solver_cpu_s: the one-step solves only), the largest residual, the solves Newton handed
-- to NSGS (newton_fallbacks) and the unconverged steps. Cases:
--   box stack     a stack of `boxes` boxes (1 x 1 x 0.5, mu = 0.5, e = 0) on the floor, each
--                 turned by 0.1 rad about z from the one below, dropped from a 1 mm gap and
--                 settling for T_stack (4 contacts a face: redundant rows), tol 1e-10;
--   N-sphere pile scripts/bench/spheres_in_box.lua --set N=N --set T=T (tol 1e-4,
--                 max_iter 100: the script's own), run unchanged but for the solver's method
--                 (world:simulation is wrapped; the NSGS-only options it passes are dropped
--                 for Newton).
-- Newton runs with its linear solve dense ("newton-d": LU of the assembled W) and iterative
-- ("newton-i": matrix-free GMRES), NSGS first; the runs and the table: scripts/bench/solver_bench.lua. docs/benchmarks.md has the numbers:
--   build/ricochet run scripts/bench/newton_vs_nsgs3.lua
--   build/ricochet run scripts/bench/newton_vs_nsgs3.lua --set only=pile --set N=200 --set dense=0
local rc = require "ricochet"
local root = os.getenv("RICOCHET_ROOT") or "."
local only = rc.param("only", "")
local N = rc.param("N", 100)         -- spheres of the pile
local T = rc.param("T", 0.5)         -- the pile's duration
local boxes = math.tointeger(rc.param("boxes", 10))
local T_stack = rc.param("T_stack", 1.0)
local with_dense = rc.param("dense", 1) ~= 0   -- 0: no dense Newton (large piles)

local function box_stack()
  local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.5 } }
  w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
  local m, a, b, c = 1.0, 0.5, 0.5, 0.25
  for k = 0, boxes - 1 do
    local th = 0.1 * k
    w:body{ mass = m, inertia = { m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3 },
            q = { 0, 0, c + k * (2 * c + 1e-3) + 1e-3, math.cos(th / 2), 0, 0, math.sin(th / 2) }, shape = rc.box3{ a, b, c } }
  end
  local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-10, max_iter = 1000, on_fail = "warn" } }
  sim:run{ T = T_stack }
end

local cases = {
  { name = string.format("%d-box stack", boxes), key = "stack", fn = box_stack },
  { name = string.format("%d-sphere pile", N), key = "pile", script = "scripts/bench/spheres_in_box.lua",
    set = { N = tostring(N), T = tostring(T) } },
}

local variants = { { name = "nsgs", solver = "nsgs" } }
if with_dense then variants[#variants + 1] = { name = "newton-d", solver = "newton", linear = "dense" } end
variants[#variants + 1] = { name = "newton-i", solver = "newton", linear = "iterative" }
dofile(root .. "/scripts/bench/solver_bench.lua").run_table(cases, variants, only)
