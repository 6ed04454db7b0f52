-- scripts/bench/solver_bench.lua -- what newton_vs_nsgs.lua and newton_vs_nsgs3.lua share, and the
-- helpers of pile_solvers.lua, packed_solvers.lua, nsgs_residual.lua and threads_pile.lua (not a
-- benchmark itself): each case runs once per solver variant, unchanged but for its solver's
-- method and linear solve (world:simulation is wrapped; the NSGS-only options a script passes are
-- dropped for the other solvers), and one table row per run: steps, iterations (total, mean and
-- largest per step), the solver's CPU (stats.solver_cpu_s), the largest residual, the solves
-- Newton handed to NSGS and the unconverged steps.
--   local bench = dofile(root .. "/scripts/bench/solver_bench.lua")
--   bench.run_table(cases, variants, only)
-- cases: { name, key, script = path, set = { params } } (a script run with those --set values)
-- or { name, key, fn = function } (fn builds and runs the scene); variants: { name, solver, linear }.
local rc = require "ricochet"
local I = require "ricochet.private"
local root = os.getenv("RICOCHET_ROOT") or "."

local M = {}

-- The median of the numbers in t (sorted in place); the benchmarks' summaries.
function M.median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or 0.5 * (t[n // 2] + t[n // 2 + 1])
end

-- Asserts that the fields keys of r were parsed from the output out of cmd.
function M.require_fields(r, keys, cmd, out)
  for _, k in ipairs(keys) do
    assert(r[k], "could not parse " .. k .. " in the output of: " .. cmd .. "\n" .. out)
  end
  return r
end

-- The planar pile solvers (pile_solvers.lua, packed_solvers.lua): their keys, names and the
-- --set arguments that select them in disks_in_box.lua and packed_pile.lua; only: keys, "a,b".
function M.pile_solvers(only)
  local list = {}
  for _, s in ipairs {
    { key = "nsgs", name = "NSGS", args = "" },
    { key = "anderson", name = "NSGS + Anderson (m = 5)", args = "--set accelerate=anderson" },
    { key = "apgd", name = "APGD", args = "--set solver=apgd" },
    { key = "newton", name = "Newton, sparse LU", args = "--set solver=newton --set linear=sparse" },
  } do
    if ("," .. only .. ","):find("," .. s.key .. ",", 1, true) then list[#list + 1] = s end
  end
  return list
end

local nsgs_only = { residual = true, relax = true, order = true, check_every = true, threads = true, adaptive_threads = true,
                    skip_quiet = true }

local current   -- the variant being run and its figures

local function wrap(orig)
  return function(self, t)
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
end

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

function M.run_table(cases, variants, only)
  local orig = I.World.simulation
  I.World.simulation = wrap(orig)
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
end

return M
