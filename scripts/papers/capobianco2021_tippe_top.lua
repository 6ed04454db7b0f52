-- Capobianco, Harsch, Eugster & Leine 2021, section 10.6 (Fig. 7): the tippe
-- top, a spatial rigid body with two contact spheres on a rough floor under
-- Coulomb--Contensou friction (eq. 157: the tangential slip and the spin
-- about the normal, scaled by 3 pi R / 16, in one disc of radius mu lambda_N;
-- docs/theory/spatial.md, "Coulomb--Contensou friction"), integrated as the
-- paper's reference: Moreau's scheme (Moreau--Jean, theta = 1), h = 1e-4.
--
-- The paper's top (/work/shared/notes/003, section 3.6): m = 6e-3, inertia
-- diag(8e-7, 8e-7, 7e-7) about the centre of mass S, e_z^K along the
-- symmetry axis towards the stick; the body sphere R1 = 0.015 centred at
-- S + a1 e_z^K, a1 = 3e-3, and the stick's end sphere R2 = 5e-3 at
-- S + a2 e_z^K, a2 = 0.016 (the centre of mass below the sphere's centre
-- when upright); g = 9.81. Contact radius R = 5e-4. Not in the paper
-- (assumed, as the note): mu = 0.3 at both contacts, e_N = e_F = 0, the
-- initial tilt theta = 0.1 about e_x (q = (cos 0.05, sin 0.05, 0, 0)),
-- z_S(0) = R1 - a1 cos(0.1) (the sphere touching), v_S = 0, K Omega =
-- (0, 0, 180), t_end = 8 s. theta = arccos(e_z^I . e_z^K).
--
-- Paper (Fig. 7): the top inverts (theta rises past pi/2 at t ~ 1 s to
-- ~ 2.5-2.8 rad, the stick down), spins on the stick, and tumbles back as
-- the spin decays. The run reports the time theta passes pi/2, the stick's
-- first touch down, the big sphere's lift-off, theta's largest value, the
-- energy (never increasing beyond the solver's tolerance), |q| - 1.
--
--   build/ricochet run scripts/papers/capobianco2021_tippe_top.lua --out out/tippe_top --every 10   (+ figure.svg)
-- Parameters (each checked): h (1e-4, > 0), T (8, > 0), mu (0.3, >= 0),
-- radius (5e-4, > 0: the contact radius R of eq. 157), theta0 (0.1, the
-- initial tilt, in (0, pi)), spin (180, the initial K Omega_z, in [-1e4, 1e4]), scheme
-- ("moreau-jean", "moreau-jean-fremond" or "gen-alpha": the paper's own scheme,
-- Capobianco et al.'s frictional generalized-alpha, run at the paper's h = 1e-3:
-- --set scheme=gen-alpha --set h=1e-3; docs/theory/gen-alpha.md "Spatial
-- contacts"), theta (1 for moreau-jean, 0.5 for moreau-jean-fremond), rho_inf
-- (0.5, the paper's, gen-alpha only, in [0, 1]), tol (1e-10, NSGS; gen-alpha:
-- its Newton's).
-- newton_jacobian ("auto", "analytic" or "differences": the Newton Jacobian of gen-alpha, docs/theory/gen-alpha-friction.md).
local rc = require "ricochet"

local h      = rc.param("h", 1e-4, { above = 0 })
local T      = rc.param("T", 8.0, { above = 0 })
local mu     = rc.param("mu", 0.3, { min = 0 })
local Rc     = rc.param("radius", 5e-4, { above = 0 })
local th0    = rc.param("theta0", 0.1, { above = 0, below = math.pi })
local spin   = rc.param("spin", 180.0, { min = -1e4, max = 1e4 })
local scheme = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "moreau-jean-fremond", "gen-alpha" } })
local jac    = rc.param("newton_jacobian", "auto", { one_of = { "auto", "analytic", "differences" } })   -- gen-alpha's Newton Jacobian
local theta  = rc.param("theta", scheme == "moreau-jean" and 1 or 0.5, { above = 0, max = 1 })
local tol    = rc.param("tol", 1e-10, { above = 0 })
local m, I1, I3, g = 6e-3, 8e-7, 7e-7, 9.81
local R1, R2, a1, a2 = 1.5e-2, 5e-3, 3e-3, 1.6e-2

local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.contensou{ e = 0, mu = mu, radius = Rc } }
w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
local z0 = R1 - a1 * math.cos(th0)
local top = w:body{ name = "top", mass = m, inertia = { I1, I1, I3 },
                    q = { 0, 0, z0, math.cos(th0 / 2), math.sin(th0 / 2), 0, 0 }, v = { 0, 0, 0, 0, 0, spin },
                    shapes = { rc.sphere{ radius = R1, offset = { 0, 0, a1 } }, rc.sphere{ radius = R2, offset = { 0, 0, a2 } } } }
local rho    = rc.param("rho_inf", 0.5, { min = 0, max = 1 })   -- gen-alpha only (the paper's 0.5)
local sim = scheme == "gen-alpha"
  and w:simulation{ scheme = scheme, rho_inf = rho, h = h, newton_jacobian = jac, solver = { tol = tol } }
  or w:simulation{ scheme = scheme, theta = theta, h = h, solver = { "nsgs", tol = tol, max_iter = 1000 } }

-- theta = arccos(e_z^I . e_z^K), e_z^K . e_z^I = 1 - 2 (qx^2 + qy^2)
local function tilt(q) return math.acos(math.max(-1, math.min(1, 1 - 2 * (q[5] * q[5] + q[6] * q[6])))) end
-- the heights of the two spheres' lowest points (their gaps to the floor)
local function gaps(q)
  local c = 1 - 2 * (q[5] * q[5] + q[6] * q[6])
  return q[3] + a1 * c - R1, q[3] + a2 * c - R2
end

local st = { t_half = nil, t_stick = nil, t_lift = nil, th_max = 0, t_th_max = 0, qdrift = 0, dE = 0, max_iter = 0,
             min_gap = 0, cone = 0 }
local E0 = 0.5 * I3 * spin * spin + m * g * z0   -- (v_S = 0, Omega along e_z^K)
local Eprev = E0
sim:after_step(function(s)
  local q = top:q()
  local th = tilt(q)
  local g1, g2 = gaps(q)
  local info = s:info()
  st.qdrift = math.max(st.qdrift, math.abs(math.sqrt(q[4] ^ 2 + q[5] ^ 2 + q[6] ^ 2 + q[7] ^ 2) - 1))
  st.dE = math.max(st.dE, info.E - Eprev)
  Eprev = info.E
  st.max_iter = math.max(st.max_iter, info.iterations)
  st.min_gap = math.min(st.min_gap, g1, g2)
  if th > st.th_max then st.th_max, st.t_th_max = th, s.t end
  if not st.t_half and th > math.pi / 2 then st.t_half = s.t end
  for _, c in ipairs(w:contacts3()) do
    local p = c.p
    if c.active and p[1] > 0 then
      st.cone = math.max(st.cone, math.sqrt(p[2] ^ 2 + p[3] ^ 2 + (p[4] or 0) ^ 2) - mu * p[1])
      if c.shape_b == 2 and not st.t_stick then st.t_stick = s.t end   -- shape 2: the stick (0: floor, 1: sphere)
    end
  end
  if st.t_stick and not st.t_lift and g1 > 1e-6 then st.t_lift = s.t end
end)
local summary = sim:run{ T = T }
local q, v = top:q(), top:v()
local function f(x) return x and string.format("%.4f", x) or "-" end
io.write(string.format(
  "tippe top (%s, %s, h = %g, mu = %g, R = %g): theta passes pi/2 at t = %s s; stick touches down at %s s; " ..
  "sphere lifts off at %s s; largest theta %.4f rad at t = %.3f s; final theta %.4f rad, Omega_z %.3f rad/s; " ..
  "E %.6e -> %.6e J (largest increase in a step %.2e); | |q| - 1 | <= %.2e; lowest gap %.2e; disc excess <= %.2e; " ..
  "sweeps <= %d\n",
  scheme, scheme == "gen-alpha" and "rho_inf = " .. rho or "theta = " .. theta, h, mu, Rc, f(st.t_half), f(st.t_stick), f(st.t_lift), st.th_max, st.t_th_max, tilt(q), v[6],
  E0, sim:info().E, st.dE, st.qdrift, st.min_gap, st.cone, st.max_iter))

if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local th, wz = {}, {}
  for i = 1, #hc.t do
    th[i] = tilt({ 0, 0, 0, hc["top.qw"][i], hc["top.qx"][i], hc["top.qy"][i], hc["top.qz"][i] })
    wz[i] = hc["top.wz"][i]
  end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("tippe top (Capobianco et al. 2021, Fig. 7), %s, h = %g", scheme, h),
            panels = { { title = "tilt", series = { { name = "theta", y = th } }, ylabel = "theta [rad]" },
                       { title = "spin (body)", series = { { name = "Omega_z", y = wz } }, ylabel = "[rad/s]" },
                       { title = "energy", series = { { name = "E", y = hc.E } }, ylabel = "E [J]" } } }
end
return { t_half = st.t_half, t_stick = st.t_stick, t_lift = st.t_lift, th_max = st.th_max, t_th_max = st.t_th_max,
         qdrift = st.qdrift, dE = st.dE, E0 = E0, E = sim:info().E, theta = tilt(q), spin = v[6], min_gap = st.min_gap,
         cone = st.cone, max_iter = st.max_iter, summary = summary }
