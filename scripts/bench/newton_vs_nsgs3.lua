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
-- ("newton-i": matrix-free GMRES), NSGS first. docs/benchmarks.md has the numbers:
--   build/ricochet run scripts/bench/newton_vs_nsgs3.lua
--   build/ricochet run scripts/bench/newton_vs_nsgs3.lua --set only=pile --set N=200 --set dense=0
local rc = require "ricochet"
local I = require "ricochet.private"
local root = os.getenv("RICOCHET_ROOT") or "."
local only = rc.param("only", "")
local N = rc.param("N", 100)         -- spheres of the pile
local T = rc.param("T", 0.5)         -- the pile's duration
local boxes = math.tointeger(rc.param("boxes", 10))
local T_stack = rc.param("T_stack", 1.0)
local with_dense = rc.param("dense", 1) ~= 0   -- 0: no dense Newton (large piles)

local nsgs_only = { residual = true, relax = true, order = true, check_every = true, threads = true, adaptive_threads = true }

local orig = I.World.simulation
local current   -- the solver of this run and its figures
I.World.simulation = function(self, t)
  t = t or {}
  local s = {}
  for k, v in pairs(t.solver or {}) do
    if current.solver == "nsgs" or not nsgs_only[k] then s[k] = v end
  end
  s[1] = current.solver
  s.linear = current.linear
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

local function run(case, variant)
  current = { solver = variant.solver, linear = variant.linear, iters = 0, steps = 0, max_it = 0 }
  local ok, err
  if case.fn then
    ok, err = pcall(case.fn)
  else
    rc.reset_params()
    rc.set_options{ script = case.script, set = case.set }
    local chunk = assert(loadfile(root .. "/" .. case.script))
    ok, err = pcall(chunk)
    rc.set_options(nil)
  end
  assert(ok, err)
  local st = current.sim:stats()
  return { steps = current.steps, total = current.iters, mean = current.iters / math.max(current.steps, 1), max_it = current.max_it,
           cpu = st.solver_cpu_s, res = st.max_residual, fb = st.newton_fallbacks, failures = st.failures }
end

local variants = { { name = "nsgs", solver = "nsgs" } }
if with_dense then variants[#variants + 1] = { name = "newton-d", solver = "newton", linear = "dense" } end
variants[#variants + 1] = { name = "newton-i", solver = "newton", linear = "iterative" }
local function out(s) io.write(s); io.flush() end
out(string.format("%-16s %-8s %7s %9s %9s %7s %10s %10s %6s %6s\n", "case", "solver", "steps", "total it", "mean it", "max it",
                  "cpu [s]", "max res", "fallb", "unconv"))
for _, case in ipairs(cases) do
  if only == "" or only == case.key then
    for _, v in ipairs(variants) do
      local r = run(case, v)
      out(string.format("%-16s %-8s %7d %9d %9.2f %7d %10.4f %10.2e %6d %6d\n", case.name, v.name, r.steps, r.total, r.mean,
                        r.max_it, r.cpu, r.res, r.fb, r.failures))
    end
  end
end
I.World.simulation = orig
