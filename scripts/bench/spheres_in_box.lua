-- Benchmark: N spheres falling into a box and forming a pile (not a test); the 3D twin of
-- scripts/bench/disks_in_box.lua (Ricochet issue 14).
--
-- Radii 0.1 +- 10 % (uniform), density 1 (m = 4/3 pi r^3, I = 2/5 m r^2); a cubic lattice of
-- c = ceil((2N)^(1/3)) spheres per side with spacing 0.25 (x = 0.25 (i + 1/2), y = 0.25 (j + 1/2),
-- z = 0.25 (k + 1/2) + 0.05 for i = n % c, j = (n // c) % c, k = n // c^2), each sphere jittered
-- by +-0.01 per axis and given velocities uniform in +-0.5 per component (no spin), all from a
-- fixed seed; a box of side 0.25 c (the floor z = 0 and four wall planes). h = 1e-3, e = 0,
-- mu = 0.3, NSGS tolerance 1e-4, at most 100 sweeps, Moreau-Jean theta = 1/2.
--
--   build/ricochet run scripts/bench/spheres_in_box.lua --quiet --set N=1000 --set T=1
--   build/ricochet run scripts/bench/spheres_in_box.lua --quiet --set N=1000 --set scene=/tmp/s.txt --set T=0
--
-- Parameters: N, T (end time; 0 with scene= only writes the scene), h, seed, tol, max_iter,
-- threads (passed to the solver: > 1 sweeps the colours of order "colour" on that many threads,
-- docs/theory/spatial.md "NSGS"; forces order "colour"), adaptive (false: the threads always share,
-- no timing; default true), order ("fixed", "position", "top" or "colour": the NSGS sweep order),
-- residual ("pass" or "sweep": the solver's),
-- relax (NSGS over-relaxation, default 1), project (true: project_contacts, the positions projected
-- onto g_N >= 0 after each step, docs/theory/spatial.md "Position projection"), skip_quiet (NSGS
-- skips quiet contacts, docs/theory/spatial.md "Contacts"; 0: off, the default),
-- scene=FILE (write the initial state for the peers scripts/bench/siconos_spheres.py and
-- scripts/bench/mujoco_spheres.c; format below), overlap_every=n (read the largest overlap from
-- w:contacts3() every n steps when the library's run statistics do not give it).
--
-- Scene file (numbers with 17 significant digits):
--   line 1: N c width g mu h seed
--   line 2: E_kin E_pot
--   then N lines: r x y z vx vy vz
--
-- Printed (one "spheres_in_box:" line, key=value, read by scripts/bench/compare3): process CPU
-- per step (os.clock), wall per step, sweeps per step, steps at the sweep cap, largest residual,
-- largest overlap over the run, 3D contacts per step (detected / active, mean), the kernel's
-- memory per body and the process's peak resident memory per body (VmHWM).
local rc = require "ricochet"

local N        = math.tointeger(rc.param("N", 1000))
local T        = rc.param("T", 1.0)
local h        = rc.param("h", 1e-3)
local seed     = math.tointeger(rc.param("seed", 42))
local tol      = rc.param("tol", 1e-4)
local max_iter = math.tointeger(rc.param("max_iter", 100))
local threads  = math.tointeger(rc.param("threads", 1))
local scene    = rc.param("scene", "")
local overlap_every = math.tointeger(rc.param("overlap_every", 0))
local order    = rc.param("order", "fixed")
local residual = rc.param("residual", "pass")
local relax    = rc.param("relax", 1.0)
local project  = rc.param("project", false)
local skip_quiet = rc.param("skip_quiet", 0.0, { min = 0 })
local adaptive = rc.param("adaptive", true)
local g, mu = 9.81, 0.3

math.randomseed(seed)
local function uniform(a, b) return a + (b - a) * math.random() end

local c = math.ceil((2 * N) ^ (1 / 3) - 1e-9)
local width = 0.25 * c
local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
w:plane{ point = { 0, 0, 0 }, normal = { 1, 0, 0 } }
w:plane{ point = { width, 0, 0 }, normal = { -1, 0, 0 } }
w:plane{ point = { 0, 0, 0 }, normal = { 0, 1, 0 } }
w:plane{ point = { 0, width, 0 }, normal = { 0, -1, 0 } }

local rows, ekin, epot = {}, 0.0, 0.0
for n = 0, N - 1 do
  local i, j, k = n % c, (n // c) % c, n // (c * c)
  local r = 0.1 * uniform(0.9, 1.1)
  local m = 4 / 3 * math.pi * r ^ 3
  local I = 0.4 * m * r * r
  local x = 0.25 * (i + 0.5) + uniform(-0.01, 0.01)
  local y = 0.25 * (j + 0.5) + uniform(-0.01, 0.01)
  local z = 0.25 * (k + 0.5) + 0.05 + uniform(-0.01, 0.01)
  local vx, vy, vz = uniform(-0.5, 0.5), uniform(-0.5, 0.5), uniform(-0.5, 0.5)
  w:body{ mass = m, inertia = { I, I, I }, q = { x, y, z, 1, 0, 0, 0 }, v = { vx, vy, vz, 0, 0, 0 },
          shape = rc.sphere{ radius = r } }
  ekin = ekin + 0.5 * m * (vx * vx + vy * vy + vz * vz)
  epot = epot + m * g * z
  if scene ~= "" then rows[#rows + 1] = string.format("%.17g %.17g %.17g %.17g %.17g %.17g %.17g", r, x, y, z, vx, vy, vz) end
end
if scene ~= "" then
  local f = assert(io.open(scene, "w"))
  f:write(string.format("%d %d %.17g %.17g %.17g %.17g %d\n", N, c, width, g, mu, h, seed))
  f:write(string.format("%.17g %.17g\n", ekin, epot))
  f:write(table.concat(rows, "\n"), "\n")
  f:close()
  io.write(string.format("spheres_scene: N = %d, c = %d, width = %g, E_kin = %.15g, E_pot = %.15g -> %s\n",
    N, c, width, ekin, epot, scene))
  rows = nil
  if T <= 0 then return end
end

local sim = w:simulation{
  scheme = "moreau-jean", theta = 0.5, h = h, project_contacts = project,
  solver = { "nsgs", tol = tol, max_iter = max_iter, on_fail = "warn", threads = threads > 1 and threads or nil,
             order = threads > 1 and "colour" or order, residual = residual, relax = relax, skip_quiet = skip_quiet,
             adaptive_threads = adaptive },
}

local sweeps, capped, res_max, ncont, nact = 0, 0, 0.0, 0, 0
local overlap = 0.0      -- from w:contacts3() when overlap_every > 0
sim:after_step(function(s)
  local info = s:info()
  sweeps = sweeps + info.iterations
  if info.iterations >= max_iter and not info.converged then capped = capped + 1 end
  if info.residual > res_max then res_max = info.residual end
  ncont = ncont + (info.ncontacts3 or info.ncontacts)
  nact = nact + (info.nactive3 or info.nactive)
  if overlap_every > 0 and s.steps % overlap_every == 0 then
    for _, ct in ipairs(w:contacts3()) do if -ct.gN > overlap then overlap = -ct.gN end end
  end
end)
local c0 = os.clock()
local summary = sim:run{ T = T }
local cpu = os.clock() - c0
local st = sim:stats()
local steps = summary.steps
for _, ct in ipairs(w:contacts3()) do if -ct.gN > overlap then overlap = -ct.gN end end
if st.max_overlap and st.max_overlap > overlap then overlap = st.max_overlap end
local hwm = 0
local f = io.open("/proc/self/status")
if f then
  for line in f:lines() do
    local kb = line:match("^VmHWM:%s*(%d+)%s*kB")
    if kb then hwm = tonumber(kb) * 1024 end
  end
  f:close()
end
io.write(string.format(
  "spheres_in_box: N=%d c=%d steps=%d threads=%d order=%s team_steps=%d cpu_ms_per_step=%.4f wall_ms_per_step=%.4f sweeps_per_step=%.2f "
  .. "capped=%d max_sweeps=%d max_residual=%.3g max_overlap=%.4g contacts_per_step=%.1f active_per_step=%.1f "
  .. "kernel_B_per_body=%.0f peak_rss_B_per_body=%.0f\n",
  N, c, steps, threads, threads > 1 and "colour" or order, st.parallel_steps, 1e3 * cpu / steps, 1e3 * summary.wall_s / steps, sweeps / steps, capped, st.max_iterations,
  res_max, overlap, ncont / steps, nact / steps, st.memory_bytes / N, hwm / N))
return summary
