-- Benchmark: N disks falling into a box and forming a pile (not a test).
--
-- Radii 0.1 +- 10 % (uniform), density 1; a lattice of c = ceil(sqrt(2N))
-- columns with spacing 0.25 (x = 0.25 (col + 1/2), y = 0.25 (row + 1/2) +
-- 0.05), each disk jittered by +-0.01 and given velocities uniform in +-0.5
-- per component, all from a fixed seed; a box of width 0.25 c (floor + two
-- walls). h = 1e-3, e = 0, mu = 0.3, NSGS tolerance 1e-4, at most 100 sweeps.
--
--   build/ricochet run scripts/bench/disks_in_box.lua --set N=1000 --set T=1
--
-- Solver parameters (docs/granular.md, "Performance"): --set order=fixed|random|position|colour,
-- threads=n (> 1: order colour), adaptive=0 (always share the colours between the threads),
-- check_every=n, residual=pass|sweep, relax=omega, mu=0.3 (every contact's), window=0.25 (a line of the sweeps and
-- capped steps per window of that many seconds), tol=1e-4, max_iter=100, solver=nsgs|apgd, accelerate=anderson (NSGS), depth=5, solver=newton linear=sparse|iterative|dense|auto. The first line printed gives the wall time per step
-- (CPU time adds up the threads), the sweeps per step, the steps that hit the sweep cap with
-- the geometric mean of their residual, and the steps that ran on several threads; a later
-- line the wall time per step of each stage of the step (sim:stats().stage_wall_s).
-- numbering=rows (default) creates the bodies row by row (bottom row first), numbering=columns
-- the same disks (same radii, positions and velocities) column by column: the same scene with
-- other body indices, for the memory locality of the stages split by index (docs/benchmarks.md,
-- "Sweep orders and threads").
local rc = require "ricochet"

local N    = rc.param("N", 1000)
local T    = rc.param("T", 1.0)
local h    = rc.param("h", 1e-3)
local seed = rc.param("seed", 42)
-- the contact law: "c" the built-in Newton-Coulomb law (exact local solve),
-- "c-generic" the same C law through xi/project and the generic local solver,
-- "lua" its twin written in Lua (lua/ricochet/laws/coulomb.lua)
local law_kind = rc.param("law", "c")
-- NSGS sweep order ("fixed", "random", "position", "colour") and threads (> 1: "colour")
local threads = math.tointeger(rc.param("threads", 1))
local order = rc.param("order", threads > 1 and "colour" or "fixed")
local adaptive = rc.param("adaptive", 1) ~= 0   -- 0: always share the colours (raw team speed)
local check_every = math.tointeger(rc.param("check_every", 1))
local residual = rc.param("residual", "pass")   -- NSGS's convergence test: "pass" or "sweep" (nsgs.c)
local tol = rc.param("tol", 1e-4)
local max_iter = math.tointeger(rc.param("max_iter", 100))
local activation = rc.param("activation", "anticipate")   -- the index set: "anticipate" (default) or "gap"
-- the contacts' position projection (project_contacts, docs/granular.md): project=1, its
-- tolerance ptol (default 1e-5) and sweep cap piter (default 50)
local project = rc.param("project", 0) ~= 0
local ptol = rc.param("ptol", 1e-5)
local piter = math.tointeger(rc.param("piter", 50))
local solver = rc.param("solver", "nsgs")   -- "nsgs" (default), "apgd" (apgd.c), "newton" (newton.c)
local linear = rc.param("linear", "sparse")   -- solver=newton: its linear solve (auto, dense, iterative, sparse)
local accelerate = rc.param("accelerate", "none")   -- "anderson": NSGS with Anderson acceleration (anderson.c)
local depth = rc.param("depth", 5)                  -- its depth m
local relax = rc.param("relax", 1.0, { min = 0 })   -- NSGS over-relaxation omega (solver relax)
local mu = rc.param("mu", 0.3, { min = 0 })         -- the friction coefficient of every contact
local window = rc.param("window", 0.0, { min = 0 })   -- > 0: the sweeps and capped steps per window of this length (s)

math.randomseed(seed)
local function uniform(a, b) return a + (b - a) * math.random() end

local c = math.ceil(math.sqrt(2 * N))
local width = 0.25 * c
local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "floor" }
w:halfplane{ point = { 0, 0 }, normal = { 1, 0 }, name = "left" }
w:halfplane{ point = { width, 0 }, normal = { -1, 0 }, name = "right" }

local numbering = rc.param("numbering", "rows", { one_of = { "rows", "columns" } })
local disks = {}   -- drawn row by row whatever the numbering (the same random numbers)
for i = 0, N - 1 do
  local col, row = i % c, i // c
  local r = 0.1 * uniform(0.9, 1.1)
  local m = math.pi * r * r
  disks[#disks + 1] = { col = col, row = row, def = {
    mass = m, inertia = 0.5 * m * r * r,
    q = { 0.25 * (col + 0.5) + uniform(-0.01, 0.01), 0.25 * (row + 0.5) + 0.05 + uniform(-0.01, 0.01), 0 },
    v = { uniform(-0.5, 0.5), uniform(-0.5, 0.5), 0 },
    shape = rc.disk{ radius = r },
  } }
end
if numbering == "columns" then
  table.sort(disks, function(a, b) if a.col ~= b.col then return a.col < b.col end return a.row < b.row end)
end
for _, d in ipairs(disks) do w:body(d.def) end
local law
if law_kind == "c" then law = rc.newton{ e = 0, mu = mu }
elseif law_kind == "c-generic" then law = rc.newton{ e = 0, mu = mu, local_solver = "generic" }
elseif law_kind == "lua" then law = require("ricochet.laws.coulomb"){ e = 0, mu = mu }
else error("law must be c, c-generic or lua (got " .. tostring(law_kind) .. ")") end
w:contact{ groups = { 0, 0 }, law = law }

local sim = w:simulation{
  scheme = "moreau-jean", theta = 0.5, h = h, activation = activation,
  project_contacts = project, project_tol = ptol, project_max_iter = piter,
  solver = { solver, tol = tol, max_iter = max_iter, on_fail = "warn", order = order, threads = threads,
             relax = relax ~= 1.0 and relax or nil,
             adaptive_threads = adaptive, check_every = check_every,
             residual = solver == "nsgs" and residual or nil,
             linear = solver == "newton" and linear or nil,
             accelerate = accelerate ~= "none" and accelerate or nil,
             depth = accelerate ~= "none" and math.tointeger(depth) or nil },
}
-- allocations once the pile has formed (capacities only grow while contacts multiply)
local allocs0, allocs1
local half = math.floor(T / h / 2 + 0.5)
-- the kernel's memory (sim:stats().memory_bytes, capacities) after the first step and at
-- mid-run, with the contacts held then (the end figures are printed below)
local mem = {}
sim:after_step(function(s)
  if s.steps == half then allocs0 = rc.alloc_count() end
  if s.steps == 1 or s.steps == half then
    mem[#mem + 1] = { steps = s.steps, bytes = s:stats().memory_bytes, contacts = s:info().ncontacts }
  end
end)
local c0 = os.clock()
local sweeps, log_res, solved = 0, 0.0, 0
local res_max = 0   -- the largest residual a step reported (NSGS: the true one with either residual setting)
sim:after_step(function(s)
  local info = s:info()
  sweeps = sweeps + info.iterations
  if info.residual > res_max then res_max = info.residual end
  if not info.converged then   -- steps that hit the sweep cap: geometric mean of their residual
    log_res = log_res + math.log(math.max(info.residual, 1e-300), 10)
    solved = solved + 1
  end
end)
-- per window of `window` seconds: sweeps and steps, steps at the cap (the pile's phases: the
-- rain of grains, the heap settling, the heap at rest)
local win = {}
if window > 0 then
  sim:after_step(function(s)
    local k = math.floor(s.t / window - 1e-9)
    local wk = win[k] or { sweeps = 0, steps = 0, capped = 0 }
    win[k] = wk
    local info = s:info()
    wk.sweeps, wk.steps = wk.sweeps + info.iterations, wk.steps + 1
    if not info.converged then wk.capped = wk.capped + 1 end
  end)
end
local summary = sim:run{ T = T }
local cpu = os.clock() - c0
local st = sim:stats()
local steps = summary.steps
allocs1 = rc.alloc_count()
io.write(string.format(
  "disks_in_box: order %s, threads %d: wall %.3f ms/step, %.2f sweeps/step, %d steps at the cap (residual %.3g, geometric mean), %d parallel steps\n",
  order, threads, 1e3 * summary.wall_s / steps, sweeps / steps, solved, 10 ^ (log_res / math.max(solved, 1)), st.parallel_steps or 0))
io.write(string.format(
  "disks_in_box: N = %d, law %s, %d steps, cpu %.3f s (%.3f ms/step), solver %.3f s, %.4g local solves, %.1f ns per local solve, max %d sweeps, %d unconverged steps, allocations in the second half: %d\n",
  N, law_kind, steps, cpu, 1e3 * cpu / steps, st.solver_cpu_s, st.local_solves,
  1e9 * st.solver_cpu_s / st.local_solves, st.max_iterations, st.failures, allocs1 - (allocs0 or allocs1)))
io.write(string.format("disks_in_box: residual test %s, largest residual of a step %.3g, %.4g local solves per second of solver CPU\n",
  residual, res_max, st.local_solves / st.solver_cpu_s))
if st.sweep_solves > 0 then   -- the sweeps alone (one thread, steps of >= 256 active contacts)
  io.write(string.format("disks_in_box: sweeps alone %.4g local solves per second (%.4g solves in %.3f s of sweeps)\n",
    st.sweep_solves / st.sweep_wall_s, st.sweep_solves, st.sweep_wall_s))
end
do   -- the step's stages, wall clock per step (sim:stats().stage_wall_s)
  local sw, parts = st.stage_wall_s, {}
  for _, k in ipairs { "detect", "free_velocity", "index_set", "warm_start", "solve", "update", "audit", "commit" } do
    parts[#parts + 1] = string.format("%s %.3f", k, 1e3 * sw[k] / steps)
  end
  io.write("disks_in_box: stages, wall ms/step: " .. table.concat(parts, ", ") .. "\n")
end
if solver == "newton" then
  io.write(string.format("disks_in_box: Newton (linear %s): %d fallbacks to NSGS\n", linear, st.newton_fallbacks))
end
-- the step's work memory (part of the kernel's): the most a step held at once (sim:stats().work_peak_bytes)
io.write(string.format("disks_in_box: kernel memory %.0f bytes per grain (%d bytes), the step's work memory at its peak %d bytes\n",
  st.memory_bytes / N, st.memory_bytes, st.work_peak_bytes))
local overlap = 0   -- the largest overlap of two grains (or a grain and a wall) at the end
for _, ct in ipairs(sim:contacts()) do overlap = math.max(overlap, -ct.gN) end
io.write(string.format("disks_in_box: index set %s, largest overlap at the end %.3g, over the run %.3g (t = %.4g)\n", activation, overlap,
  st.max_overlap or 0 / 0, st.t_max_overlap or 0 / 0))
summary.overlap = overlap
summary.max_overlap = st.max_overlap
if project then
  local info = sim:info()
  io.write(string.format("disks_in_box: projection tol %g, max %d sweeps: removed overlaps up to %.3g, most sweeps %d, %d steps at the cap; "
    .. "W_proj %.4g J (W_N + W_T %.4g J), per step in [%.3g, %.3g] J, largest W_proj + W_N + W_T of a step %.3g J\n",
    ptol, piter, st.max_proj_overlap, st.max_proj_sweeps, st.proj_capped, st.W_proj_contacts_total,
    info.W_N_total + info.W_T_total, st.min_W_proj_contacts, st.max_W_proj_contacts, st.max_W_proj_net))
end
mem[#mem + 1] = { steps = steps, bytes = st.memory_bytes, contacts = sim:info().ncontacts }
local parts = {}
for _, m in ipairs(mem) do
  parts[#parts + 1] = string.format("step %d: %.0f B/grain, %.2f contacts/grain", m.steps, m.bytes / N, m.contacts / N)
end
io.write("disks_in_box: kernel memory per grain, " .. table.concat(parts, "; ") .. "\n")
if window > 0 then
  local parts = {}
  for k = 0, math.ceil(T / window - 1e-9) - 1 do
    local wk = win[k]
    if wk then
      parts[#parts + 1] = string.format("%g-%g s: %.1f sweeps/step, %d of %d at the cap", k * window, (k + 1) * window,
                                        wk.sweeps / wk.steps, wk.capped, wk.steps)
    end
  end
  io.write("disks_in_box: windows: " .. table.concat(parts, "; ") .. "\n")
  summary.windows = win
end
summary.ns_per_local_solve = 1e9 * st.solver_cpu_s / st.local_solves
return summary
