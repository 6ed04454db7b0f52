-- Benchmark scene: N equal disks (radius 0.1, density 1) in a hexagonal packing at rest
-- on a floor between two walls, every neighbour touching (gap 0): about 3 contacts per
-- grain from the first step, all carrying weight. h = 1e-3, e = 0, mu = 0.3, NSGS
-- tolerance 1e-4, at most 100 sweeps (a deep pile stops at the cap: the per-step cost is
-- then that of 100 full sweeps). Not a test: scripts/bench/scale runs it for N = 1e4..1e6.
--
--   build/ricochet run scripts/bench/packed_pile.lua --set N=10000 --set steps=10
--   build/ricochet run scripts/bench/packed_pile.lua --set N=1000 --set steps=10 --set solver=newton
--
-- --set tol=, max_iter=, accelerate=anderson, solver=apgd|newton: the first step's iterations,
-- residual and CPU are printed first (scripts/bench/packed_solvers runs the solvers on it).
-- Prints the process CPU per step, the sweeps per step, the contacts per grain, the
-- kernel's memory per grain (sim:stats().memory_bytes) and the process's peak resident
-- memory per grain (VmHWM from /proc/self/status), and the largest overlap at the end.
local rc = require "ricochet"

local N = math.tointeger(rc.param("N", 10000))
local steps = math.tointeger(rc.param("steps", 10))
local residual = rc.param("residual", "pass")   -- NSGS's convergence test: "pass" or "sweep" (nsgs.c)
local solver = rc.param("solver", "nsgs")   -- or "newton" (with linear = "sparse", docs/benchmarks.md "The sparse LU")
local linear = rc.param("linear", "sparse")
local tol = rc.param("tol", 1e-4)
local max_iter = math.tointeger(rc.param("max_iter", 100))
local accelerate = rc.param("accelerate", "none")   -- "anderson": NSGS with Anderson acceleration (depth 5)
local cols = math.tointeger(rc.param("cols", math.ceil(math.sqrt(N) * 2)))   -- a pile twice as wide as deep (in grains)
local r = 0.1
local dy = math.sqrt(3) * r

local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
local width = 2 * r * cols + r
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "floor" }
w:halfplane{ point = { 0, 0 }, normal = { 1, 0 }, name = "left" }
w:halfplane{ point = { width, 0 }, normal = { -1, 0 }, name = "right" }
local m = math.pi * r * r
for i = 0, N - 1 do
  local col, row = i % cols, i // cols
  w:body{ mass = m, inertia = 0.5 * m * r * r, q = { r + 2 * r * col + (row % 2) * r, r + dy * row, 0 },
          shape = rc.disk{ radius = r } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3,
                          solver = { solver, tol = tol, max_iter = max_iter, on_fail = "warn",
                                     residual = solver == "nsgs" and residual or nil,
                                     accelerate = accelerate ~= "none" and accelerate or nil,
                                     linear = solver == "newton" and linear or nil } }
local f0 = os.clock()
sim:step()   -- the first step sizes the arrays (contacts found, capacities grown)
-- the first step: the pile at rest takes up its weight from a zero warm start
io.write(string.format("packed_pile: first step: solver %s, tol %g, %d iterations (cap %d), residual %.3g, converged %s, cpu %.3f s\n",
                       solver .. (accelerate ~= "none" and "+" .. accelerate or ""), tol, sim:info().iterations, max_iter,
                       sim:info().residual, tostring(sim:info().converged), os.clock() - f0))
local c0 = os.clock()
local sweeps, capped, log_res, solver0 = 0, 0, 0.0, sim:stats().solver_cpu_s
local solves0 = sim:stats().local_solves
local sweep_solves0, sweep_wall0 = sim:stats().sweep_solves, sim:stats().sweep_wall_s
for _ = 2, steps do
  sim:step()
  local info = sim:info()
  sweeps = sweeps + info.iterations
  if not info.converged then capped = capped + 1 end
  log_res = log_res + math.log(math.max(info.residual, 1e-300), 10)
end
local cpu = os.clock() - c0
local st = sim:stats()
local hwm = 0
local f = io.open("/proc/self/status")
if f then
  for line in f:lines() do
    local kb = line:match("^VmHWM:%s*(%d+)%s*kB")
    if kb then hwm = tonumber(kb) * 1024 end
  end
  f:close()
end
local overlap = 0
for _, ct in ipairs(sim:contacts()) do overlap = math.max(overlap, -ct.gN) end
io.write(string.format(
  "packed_pile: N = %d, %d steps after the first: cpu %.4f s/step, %.1f sweeps/step, %.2f contacts/grain, "
  .. "kernel %.0f B/grain, process peak %.0f B/grain, largest overlap %.3g\n",
  N, steps - 1, cpu / (steps - 1), sweeps / (steps - 1),
  sim:info().ncontacts / N, st.memory_bytes / N, hwm / N, overlap))
io.write(string.format("packed_pile: residual test %s, %d steps at the cap, residual %.3g (geometric mean), "
  .. "%.4g local solves per second of solver CPU\n", residual, capped, 10 ^ (log_res / (steps - 1)),
  (st.local_solves - solves0) / (st.solver_cpu_s - solver0)))
if st.sweep_solves > sweep_solves0 then   -- the sweeps alone (one thread, steps of >= 256 active contacts)
  io.write(string.format("packed_pile: sweeps alone %.4g local solves per second (%.4g solves in %.3f s of sweeps)\n",
    (st.sweep_solves - sweep_solves0) / (st.sweep_wall_s - sweep_wall0), st.sweep_solves - sweep_solves0,
    st.sweep_wall_s - sweep_wall0))
end
