-- Moreau 2004, section 3.2: dense flow of polygonal grains down a rough
-- slope. The ground is drawn horizontal and gravity tilted by 26.5 degrees
-- (down to the right), the flow is periodic in x (the paper's "rectangular
-- cell" whose grains leaving one side re-enter on the other with their
-- velocities), the base is made rough by grains of the same random polygon
-- generator glued to the ground (w:obstacle), mu = 0.3 everywhere, e = 0.
-- Contact Dynamics: Moreau--Jean theta = 0.5, NSGS with warm start.
--
-- Not in the paper (assumed here): grain circumradius uniform in
-- [0.8, 1.2] r0 with r0 = 5 mm, 6 to 9 vertices on a circle at jittered
-- angles, density 1000 (2D: kg/m^2), a cell of length 30 d (d = 2 r0), 20
-- rows of grains (a layer 16 d thick once flowing), h = 5e-4, T = 8 s, NSGS
-- tol 1e-4 (at most 2000 sweeps; the steps that end at the cap are counted).
-- Over 4-8 s the flow's mean velocity is 0.84 +- 0.11 m/s over five seeds
-- (scripts/bench/slope_seeds.sh), steady by the 10 % test below for four
-- of them (figures in docs/theory/contact-dynamics.md).
--
-- Output (with --out DIR): DIR/profile.csv, the along-slope velocity averaged
-- over 12 strips parallel to the ground (time windows of `window` s), and
-- DIR/profile.svg, its plot (the left part of the paper's figure 3), and the
-- verdict on steadiness (a line fitted to the second half's windows). Then the
-- one-step problem of the final state is solved again `samples` times with
-- random initial impulses and orders (sim:explore), as in the paper, to
-- measure the force dispersion: none at sliding contacts (the force lies on
-- the cone's edge, at atan 0.3 = 16.70 degrees from the normal), some at
-- sticking contacts.
--   build/ricochet run scripts/papers/moreau2004_slope_flow.lua --out out/slope
--   build/ricochet run scripts/papers/moreau2004_slope_flow.lua --set T=0.5 --set layers=6
-- (about 6 minutes of CPU at the default size)
-- Parameters (each checked): T (8 s, > 0), h (5e-4, > 0), cells (cell
-- length in d, 30, >= 4), layers (rows of grains, 20, >= 1), angle (26.5
-- deg, in [0, 90)), mu (0.3, >= 0), window (profile window, 0.5 s, > 0),
-- samples (explorations of the final state, 20, >= 0), seed (7), nmin, nmax
-- (vertices per grain, 6 and 9, 3 <= nmin <= nmax <= 16), v0 (initial
-- along-slope velocity of the top row, linear from the base, 0, >= 0), tol (NSGS,
-- 1e-4, > 0), max_iter (2000, >= 1), order ("fixed", "random", "position" or
-- "colour"), relax (1, in (0, 2)), explore_tol (1e-8, > 0),
-- explore_max_iter (60 000, >= 1), explore_relax (1.3, in (0, 2)).
local rc = require "ricochet"

local T        = rc.param("T", 8.0, { above = 0 })
local h        = rc.param("h", 5e-4, { above = 0 })
local cells    = rc.param("cells", 30, { min = 4 })        -- cell length in grain diameters
local layers   = rc.param("layers", 20, { min = 1 })       -- initial layer thickness in rows of grains
local angle    = rc.param("angle", 26.5, { min = 0, below = 90 })   -- slope, degrees
local mu       = rc.param("mu", 0.3, { min = 0 })
local window   = rc.param("window", 0.5, { above = 0 })    -- s, time window of each averaged profile
local samples  = rc.param("samples", 20, { min = 0 })      -- explorations of the final state
local seed     = rc.param("seed", 7)
local nmin     = rc.param("nmin", 6, { min = 3, max = 16 }) -- vertices per grain, nmin .. nmax
local nmax     = rc.param("nmax", 9, { min = nmin, max = 16 })
local v0       = rc.param("v0", 0.0, { min = 0 })                     -- initial along-slope velocity at the top (linear from the base)
local tol      = rc.param("tol", 1e-4, { above = 0 })
local max_iter = rc.param("max_iter", 2000, { min = 1 })
local order    = rc.param("order", "fixed", { one_of = { "fixed", "random", "position", "colour" } })  -- NSGS sweep order of the run
local relax    = rc.param("relax", 1.0, { above = 0, below = 2 })   -- NSGS relaxation of the run
local explore_tol = rc.param("explore_tol", 1e-8, { above = 0 })
local explore_max_iter = rc.param("explore_max_iter", 60000, { min = 1 })
local explore_relax = rc.param("explore_relax", 1.3, { above = 0, below = 2 })   -- over-relaxed NSGS for the explorations
local g        = 9.81
local r0       = 0.005
local d        = 2 * r0
local rho      = 1000
local L        = cells * d
local nstrips  = 12

math.randomseed(seed)

-- a random convex polygon of circumradius r, its vertices counter-clockwise
-- around its centroid (moved to the origin), its area and polar moment
local function random_polygon(r)
  local n = math.random(nmin, nmax)
  local phase = 2 * math.pi * math.random()
  local v = {}
  for i = 1, n do
    local a = phase + 2 * math.pi * (i - 1 + 0.35 * (2 * math.random() - 1)) / n
    v[i] = { r * math.cos(a), r * math.sin(a) }
  end
  local A, cx, cy = 0, 0, 0
  for i = 1, n do
    local p, q = v[i], v[i % n + 1]
    local c = p[1] * q[2] - q[1] * p[2]
    A, cx, cy = A + c / 2, cx + (p[1] + q[1]) * c / 6, cy + (p[2] + q[2]) * c / 6
  end
  cx, cy = cx / A, cy / A
  local J = 0
  for i = 1, n do v[i][1], v[i][2] = v[i][1] - cx, v[i][2] - cy end
  for i = 1, n do
    local p, q = v[i], v[i % n + 1]
    local c = p[1] * q[2] - q[1] * p[2]
    J = J + c * (p[1] ^ 2 + p[1] * q[1] + q[1] ^ 2 + p[2] ^ 2 + p[2] * q[2] + q[2] ^ 2) / 12
  end
  return v, A, J
end

local th = math.rad(angle)
local w = rc.world{ gravity = { g * math.sin(th), -g * math.cos(th) }, periodic = { 0, L }, margin = 0.1 * r0 }
-- the rough base: glued grains, one per diameter, centred on y = 0, and a
-- floor under them that nothing should reach
local nbase = 0
for k = 0, cells - 1 do
  local v = random_polygon(r0 * (0.8 + 0.4 * math.random()))
  w:obstacle{ rc.polygon{ vertices = v }, at = { (k + 0.5) * d, 0 }, angle = 0 }
  nbase = nbase + 1
end
w:halfplane{ point = { 0, -r0 }, normal = { 0, 1 }, name = "floor" }

-- the flowing grains: a loose lattice above the base, at rest
local grains, mass = {}, {}
local per_row = math.floor(cells / 1.25)   -- circumradii up to 1.2 r0: no initial overlap
for row = 0, layers - 1 do
  for col = 0, per_row - 1 do
    local r = r0 * (0.8 + 0.4 * math.random())
    local v, A, J = random_polygon(r)
    local x = (col + 0.5 + 0.5 * (row % 2)) * L / per_row
    local y = 2.4 * r0 + row * 1.25 * d
    local b = w:body{ mass = rho * A, inertia = rho * J, q = { x, y, 2 * math.pi * math.random() },
                      v = { v0 * (row + 1) / layers, 0, 0 },
                      shape = rc.polygon{ vertices = v } }
    grains[#grains + 1] = b
    mass[#grains] = rho * A
  end
end
local N = #grains
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = mu } }

local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                          solver = { "nsgs", tol = tol, max_iter = max_iter, order = order, relax = relax } }

-- the velocity profile: 12 strips parallel to the ground between the base
-- (y = 0) and the top of the flow (highest grain centre + r0), averaged over
-- the grains whose centre lies in each strip, accumulated over a window
local profiles = {}
local acc, nacc, acc_t0 = nil, 0, 0
local function reset() acc = {}; for s = 1, nstrips do acc[s] = { n = 0, vx = 0, vy = 0 } end; nacc = 0 end
reset()
local H_sum = 0
local flow = {}   -- t, mean vx (mass-weighted), kinetic energy
sim:after_step(function(s)
  local top = 0
  for i = 1, N do top = math.max(top, grains[i]:q()[2]) end
  local H = top + r0
  H_sum = H_sum + H
  local P, M, K = 0, 0, 0
  for i = 1, N do
    local q, v = grains[i]:q(), grains[i]:v()
    local k = math.floor(q[2] / H * nstrips) + 1
    if k >= 1 and k <= nstrips then
      local a = acc[k]
      a.n, a.vx, a.vy = a.n + 1, a.vx + v[1], a.vy + v[2]
    end
    P, M = P + mass[i] * v[1], M + mass[i]
    K = K + 0.5 * mass[i] * (v[1] ^ 2 + v[2] ^ 2)
  end
  nacc = nacc + 1
  if s.steps % 20 == 0 then flow[#flow + 1] = { t = s.t, vx = P / M, K = K } end
  if s.t - acc_t0 >= window - 1e-9 then
    local prof = { t0 = acc_t0, t1 = s.t, H = H_sum / nacc, strips = {} }
    for k = 1, nstrips do
      local a = acc[k]
      prof.strips[k] = { y = (k - 0.5) / nstrips * prof.H, n = a.n / nacc,
                         vx = a.n > 0 and a.vx / a.n or 0, vy = a.n > 0 and a.vy / a.n or 0 }
    end
    profiles[#profiles + 1] = prof
    reset()
    H_sum, acc_t0 = 0, s.t
  end
end)
local summary = sim:run{ T = T }

-- steadiness: a straight line fitted to the windows' mean velocities over
-- the second half of the run (windows starting at T/2 or later); the flow is
-- called steady when the fitted change over that half is under 10 % of the
-- mean velocity (and the mean velocity is not zero: an arrested layer is not
-- a flow)
local function mean_vx(p)
  local sv, sn = 0, 0
  for _, st in ipairs(p.strips) do sv, sn = sv + st.vx * st.n, sn + st.n end
  return sn > 0 and sv / sn or 0
end
local accel, vmean, spread, nfit, span = 0, 0, 0, 0, 0
do
  local ts, vs = {}, {}
  for _, p in ipairs(profiles) do
    if p.t0 >= T / 2 - 1e-9 then ts[#ts + 1], vs[#vs + 1] = 0.5 * (p.t0 + p.t1), mean_vx(p) end
  end
  nfit = #ts
  if nfit >= 2 then
    local tm, vm = 0, 0
    for i = 1, nfit do tm, vm = tm + ts[i] / nfit, vm + vs[i] / nfit end
    local stt, stv = 0, 0
    for i = 1, nfit do stt, stv = stt + (ts[i] - tm) ^ 2, stv + (ts[i] - tm) * (vs[i] - vm) end
    accel, vmean, span = stv / stt, vm, ts[nfit] - ts[1]
    for i = 1, nfit do spread = math.max(spread, math.abs(vs[i] - vm)) end
  end
end
local steady = nfit >= 3 and vmean > 1e-3 and math.abs(accel) * span < 0.1 * vmean
local verdict = nfit < 3 and "too short to judge (fewer than 3 windows)" or steady and "steady"
                or vmean <= 1e-3 and "arrested" or "NOT steady"
local driving = g * math.sin(th) - mu * g * math.cos(th)   -- a block sliding on the base with mu
-- since when: the start of the earliest window from which every window's mean
-- stays within 10 % of the second half's mean (steady flows only)
local steady_from
if steady then
  for i = #profiles, 1, -1 do
    if math.abs(mean_vx(profiles[i]) - vmean) > 0.1 * vmean then break end
    steady_from = profiles[i].t0
  end
end

local last = profiles[#profiles]
io.write(string.format(
  "slope flow: %d polygons on %d glued ones, %.1f deg, mu = %g, cell %g m, h = %g, T = %g s: %d steps, " ..
  "%d solver failures, max sweeps %d\n", N, nbase, angle, mu, L, h, T, summary.steps, summary.failures, summary.max_iterations))
if last then
  io.write(string.format("  profile over %.2f-%.2f s (flow height %.3f m = %.1f d), strips from the base up, vx (m/s):\n   ",
                         last.t0, last.t1, last.H, last.H / d))
  for _, st in ipairs(last.strips) do io.write(string.format(" %.3f", st.vx)) end
  io.write("\n  mean vx per window (m/s):")
  for _, p in ipairs(profiles) do io.write(string.format(" %.3f", mean_vx(p))) end
  io.write(string.format("\n  second half (%d windows): mean vx %.3f m/s, largest deviation %.3f, fitted acceleration %.4f m/s^2 " ..
                         "(a block sliding with mu would accelerate at %.3f m/s^2): %s%s\n", nfit, vmean, spread, accel, driving,
                         verdict, steady_from and string.format(", every window within 10 %% of the mean from %.2f s", steady_from) or ""))
end

local dir = rc.options().out
if type(dir) == "string" and dir ~= "" and #profiles > 0 then
  local f = assert(io.open(dir .. "/profile.csv", "w"))
  f:write("t0,t1,strip,y,height,grains,vx,vy\n")
  for _, p in ipairs(profiles) do
    for k, st in ipairs(p.strips) do
      f:write(string.format("%.6g,%.6g,%d,%.6g,%.6g,%.4g,%.6g,%.6g\n", p.t0, p.t1, k, st.y, p.H, st.n, st.vx, st.vy))
    end
  end
  f:close()
  -- the plot: height over the base against the along-slope velocity, one line per window
  local vmax = 0
  for _, p in ipairs(profiles) do for _, st in ipairs(p.strips) do vmax = math.max(vmax, st.vx) end end
  vmax = vmax > 0 and vmax or 1
  local Hmax = 0
  for _, p in ipairs(profiles) do Hmax = math.max(Hmax, p.H) end
  local W, Hpx, m = 420, 320, 50
  local function X(v) return m + v / vmax * (W - 2 * m) end
  local function Y(y) return Hpx - m + 10 - y / Hmax * (Hpx - 2 * m) end
  f = assert(io.open(dir .. "/profile.svg", "w"))
  f:write(string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">\n', W, Hpx))
  f:write(string.format('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>\n', m, Y(0), W - m, Y(0)))
  f:write(string.format('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>\n', m, Y(0), m, Y(Hmax)))
  f:write(string.format('<text x="%d" y="%d">vx (m/s), 0 .. %.3f</text>\n', W / 2 - 40, Hpx - 8, vmax))
  f:write(string.format('<text x="4" y="%d">y/H</text>\n', m - 10))
  for i, p in ipairs(profiles) do
    local pts = {}
    for _, st in ipairs(p.strips) do pts[#pts + 1] = string.format("%.1f,%.1f", X(st.vx), Y(st.y / p.H * Hmax)) end
    local shade = math.floor(200 - 200 * i / #profiles)
    f:write(string.format('<polyline fill="none" stroke="rgb(%d,%d,255)" stroke-width="%s" points="%s"/>\n',
                          shade, shade, i == #profiles and "2" or "1", table.concat(pts, " ")))
  end
  f:write(string.format('<text x="%d" y="%d">12 strips, windows of %.2f s (darkest: last)</text>\n', m, 14, window))
  f:write("</svg>\n")
  f:close()
end

-- force dispersion at the final state (paper: fans at sticking contacts, none
-- at sliding ones): explore the next step's problem from random guesses and
-- orders; classify the contacts by their relative velocity in a reference
-- solve (the fixed-order warm-started one, what the run would compute)
-- (solved tightly: only converged solutions count, so that a status, sliding
-- or sticking, is not solver error; a sliding contact's force lies on the
-- cone's edge after every local solve, whatever the global tolerance). A
-- wedged grain makes the convergence slow (its self-equilibrated impulses
-- grow by a near-constant factor per sweep, like the wedged rod of section
-- 1.2): over-relaxation (1.3) halves the sweeps.
sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                    solver = { "nsgs", tol = explore_tol, max_iter = explore_max_iter, relax = explore_relax,
                               on_fail = "warn" } }
local ref, ref_solve = sim:explore{ guess = "warm", order = "fixed" }
local pmax = 0
for _, c in ipairs(ref) do pmax = math.max(pmax, c.pN) end
local runs = {}
local converged = 0
for k = 1, samples do   -- only converged solutions count: a spread must not be solver tolerance
  local run, solve = sim:explore{ guess = "random", scale = 2 * pmax, order = "random", seed = k }
  if solve.converged then converged = converged + 1; runs[#runs + 1] = run end
end
local phi = math.deg(math.atan(mu))
local sliding, sticking = 0, 0
local slide_spread, slide_angle_err, stick_spread = 0, 0, 0
local fans = 0
for j, c in ipairs(ref) do
  if c.active and c.pN > 1e-3 * pmax and c.uT then
    local lo, hi = math.huge, -math.huge
    for _, run in ipairs(runs) do
      local rj = run[j]
      if rj.pN > 0 then
        local a = math.deg(math.atan(rj.pT, rj.pN))
        lo, hi = math.min(lo, a), math.max(hi, a)
      end
    end
    if lo > hi then lo, hi = 0, 0 end
    if math.abs(c.uT) > 1e-6 then
      sliding = sliding + 1
      slide_spread = math.max(slide_spread, hi - lo)
      slide_angle_err = math.max(slide_angle_err, math.abs(math.abs(lo) - phi), math.abs(math.abs(hi) - phi))
    else
      sticking = sticking + 1
      stick_spread = math.max(stick_spread, hi - lo)
      if hi - lo > 1e-2 then fans = fans + 1 end   -- degrees: far above the solver's tolerance
    end
  end
end

if samples > 0 then io.write(string.format(
  "  dispersion over %d explorations (%d converged to %g; reference %s): %d sliding contacts, spread %.2e deg, |angle| - atan(mu) = %.2e deg (atan 0.3 = %.2f deg); " ..
  "%d sticking contacts, %d with a fan, largest spread %.2f deg\n",
  samples, converged, explore_tol, ref_solve.converged and "converged" or "NOT converged", sliding, slide_spread, slide_angle_err, phi, sticking, fans, stick_spread)) end

return { N = N, steady_from = steady_from, nfit = nfit, span = span, spread = spread, converged = converged, ref_converged = ref_solve.converged, profiles = profiles, accel = accel, vmean = vmean, steady = steady, driving = driving, sliding = sliding, sticking = sticking,
         slide_spread = slide_spread, slide_angle_err = slide_angle_err, stick_spread = stick_spread, fans = fans,
         summary = summary, grains = grains, L = L }
