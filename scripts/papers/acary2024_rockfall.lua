-- Acary & Collins-Craft 2024, section 5.4: a rockfall on a masonry wall (spatial rigid
-- bodies, convex polyhedra: docs/theory/polyhedra.md#the-rockfall-experiment).
--
-- Wall (choices of ours: the paper's text gives neither the wall's length nor the
-- buttresses' layout): `layers` layers of `blocks` blocks 1 m wide (along y, the wall's
-- length), 2 m deep (along x), 1 m high, stacked in columns (no bond), the front face at
-- x = 0, centred on y = 0; `buttresses` columns of the same blocks behind it (x in
-- [-4, -2]), full height, evenly spread along the wall. Flat ground: the plane z = 0.
-- The 45-degree slope in front is a static polyhedron wedge (w:obstacle3: a plane is
-- infinite) from its foot at x = slope_foot (z = 0) up to x = slope_top, 30 m across y;
-- slope_top <= slope_foot: no slope. The rock: the hull of n_points points drawn by
-- math.random (math.randomseed(seed)) in a ball of diameter rock_d, density 2300. It is
-- created at t = 0, not at 0.01 s, at the state its free flight (gravity alone) gives so
-- that it is at (x0, 0, z0) with velocity (vx, 0, vz) at t = 0.01 s (the centre's motion
-- is exact; its rotation runs 0.01 s longer with the given angular velocity, taken in the
-- body's principal frame, as the kernel's v is). Newton e = 0.2, mu = 0.6 everywhere.
--
--   build/ricochet run scripts/papers/acary2024_rockfall.lua --out out/rf
--     (+ out/rf/energy.svg, out/rf/tangential_work.svg, out/rf/final.svg (the final state
--      drawn by ricochet.scene_svg); the history has E_kin, E_pot,
--      W_ext (gravity + gyroscopic: eq. 103), dissipation, WT_max_pos, WT_min_neg)
--   ... --set scheme=moreau-jean-fremond --set T=1
-- Parameters (each checked): scheme ("moreau-jean" or "moreau-jean-fremond"), theta (0.5),
-- h (5e-4), T (4), solver ("nsgs" or "newton": the semismooth Newton, docs/theory/newton-solver.md),
-- tol (1e-4), max_iter (NSGS sweeps or Newton iterations, 1000), order (NSGS: "fixed", "position",
-- "top": the sweep order), relax (NSGS: 1), skip_quiet (2: NSGS skips the contacts whose bodies'
-- velocities are quiet, docs/theory/spatial.md; 0: off), norm (NSGS's stopping test: "l2",
-- "siconos": Siconos 4.4's, which the paper's runs used, or "max"), layers (10), blocks (20:
-- per layer), buttresses (6), rock_d (5: m), n_points (30), seed (1), x0 (30), z0 (35), vx
-- (-10), vz (-35), wx, wy, wz (0.5, 10, 0.1), slope_foot (3), slope_top (40), e (0.2),
-- mu (0.6), rho (2300), scene (a file for the peer scripts/bench/siconos_wall.py: "" none),
-- view_azimuth, view_elevation (215, 35: degrees, final.svg's view from behind the wall), window
-- (0: > 0 prints, per window of that many seconds, the sweeps, capped steps, active contacts,
-- one-contact solves and solver CPU: where the solver's time goes).
local rc = require "ricochet"

local scheme = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "moreau-jean-fremond" } })
local theta  = rc.param("theta", 0.5, { min = 0, max = 1 })
local h      = rc.param("h", 5e-4, { above = 0 })
local T      = rc.param("T", 4.0, { above = 0 })
local tol    = rc.param("tol", 1e-4, { above = 0 })
local max_iter = rc.param("max_iter", 1000, { min = 1 })
local solver = rc.param("solver", "nsgs", { one_of = { "nsgs", "newton" } })
local order  = rc.param("order", "fixed", { one_of = { "fixed", "position", "top" } })
local relax  = rc.param("relax", 1.0, { above = 0, below = 2 })
local skip_quiet = rc.param("skip_quiet", 2.0, { min = 0 })
local norm   = rc.param("norm", "l2", { one_of = { "l2", "siconos", "max" } })
local window = rc.param("window", 0.0, { min = 0 })
local layers = rc.param("layers", 10, { min = 1 })
local blocks = rc.param("blocks", 20, { min = 1 })
local buttresses = rc.param("buttresses", 6, { min = 0 })
local rock_d = rc.param("rock_d", 5.0, { above = 0 })
local n_points = rc.param("n_points", 30, { min = 4, max = 64 })
local seed   = rc.param("seed", 1, { min = 0 })
local x0     = rc.param("x0", 30.0, { min = -1e6, max = 1e6 })
local z0     = rc.param("z0", 35.0, { min = -1e6, max = 1e6 })
local vx     = rc.param("vx", -10.0, { min = -1e6, max = 1e6 })
local vz     = rc.param("vz", -35.0, { min = -1e6, max = 1e6 })
local wx     = rc.param("wx", 0.5, { min = -1e6, max = 1e6 })
local wy     = rc.param("wy", 10.0, { min = -1e6, max = 1e6 })
local wz     = rc.param("wz", 0.1, { min = -1e6, max = 1e6 })
local slope_foot = rc.param("slope_foot", 3.0, { min = -1e6, max = 1e6 })
local slope_top  = rc.param("slope_top", 40.0, { min = -1e6, max = 1e6 })
local e      = rc.param("e", 0.2, { min = 0, max = 1 })
local mu     = rc.param("mu", 0.6, { min = 0 })
local rho    = rc.param("rho", 2300.0, { above = 0 })
local scene  = rc.param("scene", "")
local view_az = rc.param("view_azimuth", 215.0, { min = -360, max = 360 })
local view_el = rc.param("view_elevation", 35.0, { min = -90, max = 90 })

local g, t_create = 9.81, 0.01
local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = e, mu = mu } }
w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
if slope_top > slope_foot then
  local L, Y = slope_top - slope_foot, 15
  w:obstacle3{ point = { slope_foot, 0, 0 }, shape = rc.polyhedron{ points = {
    { 0, -Y, 0 }, { L, -Y, 0 }, { L, -Y, L }, { 0, Y, 0 }, { L, Y, 0 }, { L, Y, L } } } }
end

-- the wall: block (i, k) of layer k, its centre at (-1, y_i, k - 1/2); the buttresses behind
local wall = {}
local function block(x, y, z)
  wall[#wall + 1] = w:body{ density = rho, box = { 1, 0.5, 0.5 }, shape = rc.box3{ 1, 0.5, 0.5 },
                            q = { x, y, z, 1, 0, 0, 0 } }
end
for k = 1, layers do
  for i = 1, blocks do block(-1, i - 0.5 - blocks / 2, k - 0.5) end
  for b = 1, buttresses do
    local i = buttresses == 1 and (blocks + 1) // 2 or 1 + ((b - 1) * (blocks - 1)) // (buttresses - 1)
    block(-3, i - 0.5 - blocks / 2, k - 0.5)
  end
end

-- the rock: n_points points in a ball of diameter rock_d, its hull (math.random, seeded)
math.randomseed(seed)
local pts = {}
for i = 1, n_points do
  local u, v, r = 2 * math.random() - 1, 2 * math.pi * math.random(), 0.5 * rock_d * (0.8 + 0.2 * math.random())
  local s = math.sqrt(1 - u * u)
  pts[i] = { r * s * math.cos(v), r * s * math.sin(v), r * u }
end
-- back from t = 0.01 to t = 0 in free flight
local rock_origin = { x0 - vx * t_create, 0, z0 - vz * t_create - 0.5 * g * t_create ^ 2 }
local rock = w:body{ name = "rock", density = rho, shape = rc.polyhedron{ points = pts },
                     q = { rock_origin[1], rock_origin[2], rock_origin[3], 1, 0, 0, 0 },
                     v = { vx, 0, vz + g * t_create, wx, wy, wz } }

-- the rock's points in its body frame: R(q)^T (p + the given origin - the centre of mass)
local rock_pts = {}
do
  local rq = rock:q()
  local qw, qx, qy, qz = rq[4], rq[5], rq[6], rq[7]
  local R = { { 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy) },
              { 2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx) },
              { 2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy) } }
  for i, p in ipairs(pts) do
    local d = { p[1] + rock_origin[1] - rq[1], p[2] + rock_origin[2] - rq[2], p[3] + rock_origin[3] - rq[3] }
    rock_pts[i] = { R[1][1] * d[1] + R[2][1] * d[2] + R[3][1] * d[3], R[1][2] * d[1] + R[2][2] * d[2] + R[3][2] * d[3],
                    R[1][3] * d[1] + R[2][3] * d[2] + R[3][3] * d[3] }
  end
end

-- the initial state for the peer (scripts/bench/siconos_wall.py): the blocks, the slope, the
-- rock's state at t = 0 with its mass, principal inertia and hull points in its body frame
if scene ~= "" then
  local f = assert(io.open(scene, "w"))
  local rq, rv = rock:q(), rock:v()
  local m, J = rock:mass()
  f:write(string.format("rockfall_scene %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", #wall, g,
                        e, mu, h, theta, tol, rho, slope_foot, slope_top, t_create))
  for _, b in ipairs(wall) do
    local q = b:q()
    f:write(string.format("B 1 0.5 0.5 %.17g %.17g %.17g\n", q[1], q[2], q[3]))
  end
  f:write(string.format("R %.17g %.17g %.17g %.17g", m, J[1], J[2], J[3]))
  for i = 1, 7 do f:write(string.format(" %.17g", rq[i])) end
  for i = 1, 6 do f:write(string.format(" %.17g", rv[i])) end
  f:write(string.format(" %d\n", #pts))
  for _, p in ipairs(rock_pts) do f:write(string.format("P %.17g %.17g %.17g\n", p[1], p[2], p[3])) end
  f:close()
end

local sim = w:simulation{ scheme = scheme, theta = theta, h = h, solver = solver == "nsgs"
    and { "nsgs", tol = tol, max_iter = max_iter, order = order, relax = relax, skip_quiet = skip_quiet, norm = norm }
    or { "newton", tol = tol, max_iter = max_iter } }
-- the wall's largest speed while the rock is still away from it (its hull's reach from the
-- centre is at most rock_d / 2), and whether anything became NaN
local reach = 0
for _, p in ipairs(pts) do reach = math.max(reach, math.sqrt(p[1] ^ 2 + p[2] ^ 2 + p[3] ^ 2)) end
local wall_speed, wall_speed_001, t_near, nan, max_contacts = 0, 0, nil, false, 0
-- window > 0: per window of that many seconds, the steps, sweeps, steps at the cap, one-contact
-- solves, the solver's CPU and the active contacts (where the solver's time goes)
local windows, solves_last, cpu_last = {}, 0, 0
sim:after_step(function(s)
  local info = s:info()   -- once a step: it is a table of ~30 fields
  if window > 0 then
    local st = s:stats()
    local k = math.floor(info.t / window - 1e-9)
    local e = windows[k] or { steps = 0, sweeps = 0, capped = 0, solves = 0, cpu = 0, active = 0 }
    windows[k] = e
    e.steps, e.sweeps, e.active = e.steps + 1, e.sweeps + info.iterations, e.active + info.nactive
    if info.iterations >= max_iter then e.capped = e.capped + 1 end
    e.solves, e.cpu = e.solves + st.local_solves - solves_last, e.cpu + st.solver_cpu_s - cpu_last
    solves_last, cpu_last = st.local_solves, st.solver_cpu_s
  end
  local rq = rock:q()
  if rq[1] ~= rq[1] then nan = true end
  if not t_near and rq[1] - reach > 0.05 then
    local first = info.t <= t_create + 1e-12
    for _, b in ipairs(wall) do
      local v = b:v()
      local sp = math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2 + v[4] ^ 2 + v[5] ^ 2 + v[6] ^ 2)
      if sp ~= sp then nan = true end
      if sp > wall_speed then wall_speed = sp end
      if first and sp > wall_speed_001 then wall_speed_001 = sp end
    end
  elseif not t_near then t_near = info.t end
  local nc = info.ncontacts
  if nc > max_contacts then max_contacts = nc end
end)
local cpu0 = os.clock()
local summary = sim:run{ T = T }
local cpu_run = os.clock() - cpu0
local st = sim:stats()
local en = sim:energy()
summary.bodies, summary.wall_blocks = #wall + 1, #wall
summary.max_WT_pos, summary.min_WT_neg = st.max_WT_pos, st.min_WT_neg
summary.max_abs_balance, summary.wall_speed_before, summary.t_near = st.max_abs_balance, wall_speed, t_near or T
summary.wall_speed_001 = wall_speed_001
summary.nan, summary.max_iterations, summary.contacts_end, summary.max_contacts = nan, st.max_iterations, #w:contacts3(), max_contacts
print(string.format("rockfall (%s): %d bodies (%d wall blocks), rock %.4g kg, %d contacts at the end (at most %d in a step), largest NSGS sweeps %d",
                    scheme, #wall + 1, #wall, rock:mass(), summary.contacts_end, max_contacts, st.max_iterations))
print(string.format("wall's largest speed: %.3e m/s over the first %g s, %.3e m/s before the rock is within 5 cm of it (t < %.4g s)",
                    wall_speed_001, t_create, wall_speed, summary.t_near))
print(string.format("tangential work of a contact in a step: largest positive %.6e J, smallest negative %.6e J; |balance| per step <= %.3e J",
                    st.max_WT_pos, st.min_WT_neg, st.max_abs_balance))
print(string.format("energy at the end: total %.6e J", en.total))
summary.max_overlap = st.max_overlap
print(string.format("rockfall_run: steps=%d cpu_ms_per_step=%.3f max_overlap=%.4g wall_max_speed=%.4g max_sweeps=%d unconverged=%d local_solves=%d solver_cpu_s=%.2f",
                    sim:info().step, 1e3 * cpu_run / sim:info().step, st.max_overlap, wall_speed, st.max_iterations, st.failures,
                    st.local_solves, st.solver_cpu_s))
summary.local_solves, summary.solver_cpu_s = st.local_solves, st.solver_cpu_s
if window > 0 then
  summary.windows = {}
  print("rockfall windows: t [s] | steps | sweeps/step | steps at the cap | active contacts/step | one-contact solves | solver CPU s")
  for k = 0, math.ceil(T / window - 1e-9) - 1 do
    local e = windows[k]
    if e then
      summary.windows[#summary.windows + 1] = { t0 = k * window, t1 = (k + 1) * window, steps = e.steps, sweeps = e.sweeps,
                                                capped = e.capped, active = e.active, solves = e.solves, cpu = e.cpu }
      print(string.format("rockfall window %6.3f-%6.3f | %5d | %7.1f | %4d | %6.0f | %9.3e | %7.2f", k * window, (k + 1) * window,
                          e.steps, e.sweeps / e.steps, e.capped, e.active / e.steps, e.solves, e.cpu))
    end
  end
end
-- the figures beside the history (with --out): Figs 12-13 (a)-(b) and (c)-(d)
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local dE, WD = {}, {}
  for i = 1, #hc.t do
    dE[i] = hc.E[i] - hc.E[1]
    WD[i] = hc.W_ext[i] + hc.W_J[i] + hc.W_proj[i] + hc.dissipation[i]
  end
  print(string.format("sums at the end: E - E0 = %.6e J, W_ext (gravity + gyroscopic) = %.6e J, dissipation = %.6e J, their gap %.3e J",
                      dE[#dE], hc.W_ext[#dE], hc.dissipation[#dE], dE[#dE] - WD[#dE]))
  local function s(name, y) return { name = name, y = y or hc[name] } end
  local title = string.format("rockfall (Acary & Collins-Craft 2024 §5.4), %s, h = %g", scheme, h)
  plot.svg{ file = summary.out .. "/energy.svg", x = hc.t, xlabel = "t [s]", title = title,
            panels = { { title = "energies", series = { s("E_kin"), s("E_pot"), s("E") }, ylabel = "energy [J]" },
                       { title = "balance",
                         series = { s("E - E0", dE), s("W_ext + W_J + dissipation", WD), s("W_ext"), s("dissipation") },
                         ylabel = "energy [J]" } } }
  plot.svg{ file = summary.out .. "/tangential_work.svg", x = hc.t, xlabel = "t [s]", title = title,
            panels = { { title = "largest positive W_T of a contact in a step", series = { s("WT_max_pos") }, ylabel = "[J]" },
                       { title = "smallest negative W_T of a contact in a step", series = { s("WT_min_neg") }, ylabel = "[J]" } } }
  -- the final state, drawn by the project (Fig. 11's last still): the blocks, the rock, the slope
  local S = require "ricochet.scene_svg"
  local solids = {}
  for _, b in ipairs(wall) do solids[#solids + 1] = S.box(b, { 1, 0.5, 0.5 }, "#c9b79c") end
  solids[#solids + 1] = S.hull(rock, rock_pts, "#7a7f86")
  if slope_top > slope_foot then   -- the slope's first 8 m only (the picture is of the wall)
    local L, Y = math.min(slope_top - slope_foot, 8), 15
    local wedge = {}
    for i, p in ipairs{ { 0, -Y, 0 }, { L, -Y, 0 }, { L, -Y, L }, { 0, Y, 0 }, { L, Y, 0 }, { L, Y, L } } do
      wedge[i] = { p[1] + slope_foot, p[2], p[3] }
    end
    solids[#solids + 1] = { points = wedge, faces = { { 1, 2, 3 }, { 4, 6, 5 }, { 1, 4, 5, 2 }, { 2, 5, 6, 3 }, { 1, 3, 6, 4 } },
                            fill = "#a3b18a" }
  end
  S.svg{ file = summary.out .. "/final.svg", title = string.format("rockfall, %s: the state at t = %g s", scheme, T),
         view = { azimuth = view_az, elevation = view_el }, solids = solids }
end
return summary
