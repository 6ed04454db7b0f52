-- Capobianco, Harsch, Eugster & Leine 2021, section 10.4: the Painleve rod, a
-- rod sliding on its tip with high friction until the contact force blows up
-- (a "dynamic jam": an impulse without a collision), integrated by the
-- frictional nonsmooth generalized-alpha scheme (scheme = "gen-alpha",
-- docs/theory/gen-alpha-friction.md), or Moreau--Jean (theta = 1) beside it.
--
-- Rod m = 1, half-length l = 1, theta_S = m l^2 / 3, g = 10, mu = 5/3, e_N =
-- e_F = 0; phi (clockwise from the ground) starts at 31 deg with the tip on the
-- ground and the rod sliding at v = 30 m/s towards +x, tip first; rho_inf = 0.9,
-- h = 8e-4, r = 0.1 (the paper's). While the tip slides, lambda_N = (g - l sin phi
-- u_phi^2) / (1/m + (l^2/theta_S)(cos^2 phi - mu sin phi cos phi)): the
-- denominator 1 + 3 cos^2 phi - 5 sin phi cos phi vanishes at phi = 45 deg, where
-- the sliding solution ends (note 003 section 3.4). This script integrates that
-- sliding ODE (RK4, 1e-6 s) to its singular time t* and compares; after it the
-- rod lifts off (Glocker 1995) and flies with constant u_x and u_phi.
-- The ground is a half-plane; the tip a point contactor at (l, 0) in the rod's
-- frame (Ricochet's angle is counter-clockwise: theta = -phi).
--
--   build/ricochet run scripts/papers/capobianco2021_painleve_rod.lua --out out/painleve   (+ figure.svg)
-- Parameters (each checked): h (8e-4, > 0), T (1.5, > 0), rho_inf (0.9, in [0, 1]),
-- prox_r (0.1, >= 0), scheme ("gen-alpha" or "moreau-jean").
-- newton_jacobian ("auto", "analytic" or "differences": the Newton Jacobian of gen-alpha, docs/theory/gen-alpha-friction.md).
local rc = require "ricochet"

local h      = rc.param("h", 8e-4, { above = 0 })
local T      = rc.param("T", 1.5, { above = 0 })
local rho    = rc.param("rho_inf", 0.9, { min = 0, max = 1 })
local prox_r = rc.param("prox_r", 0.1, { min = 0 })
local jac    = rc.param("newton_jacobian", "auto", { one_of = { "auto", "analytic", "differences" } })   -- gen-alpha's Newton Jacobian
local scheme = rc.param("scheme", "gen-alpha", { one_of = { "gen-alpha", "moreau-jean" } })
local m, l, g, mu, v0 = 1.0, 1.0, 10.0, 5 / 3, 30.0
local J = m * l * l / 3
local phi0 = math.rad(31)

-- the sliding ODE of phi (clockwise), to its singular time (the denominator 0)
local function sliding_reference(t_stop)
  local function acc(phi, om)
    local den = 1 / m + (l * l / J) * (math.cos(phi)^2 - mu * math.sin(phi) * math.cos(phi))
    local lN = (g - l * math.sin(phi) * om * om) / den
    return l * (mu * math.sin(phi) - math.cos(phi)) * lN / J, lN, den
  end
  local phi, om, t, dt = phi0, 0.0, 0.0, 1e-5   -- (read at the nearest row: u_phi at t*/2 moves by 4e-6 against dt = 1e-6)
  local rows = {}
  while t < t_stop do
    local _, lN, den = acc(phi, om)
    if den <= 1e-3 or lN < 0 then break end
    rows[#rows + 1] = { t, phi, om, lN }
    local k1p, k1o = om, acc(phi, om)
    local k2p, k2o = om + dt / 2 * k1o, acc(phi + dt / 2 * k1p, om + dt / 2 * k1o)
    local k3p, k3o = om + dt / 2 * k2o, acc(phi + dt / 2 * k2p, om + dt / 2 * k2o)
    local k4p, k4o = om + dt * k3o, acc(phi + dt * k3p, om + dt * k3o)
    phi = phi + dt / 6 * (k1p + 2 * k2p + 2 * k3p + k4p)
    om = om + dt / 6 * (k1o + 2 * k2o + 2 * k3o + k4o)
    t = t + dt
  end
  return rows, t
end

local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local rod = w:body{ name = "rod", mass = m, inertia = J, q = { 0, l * math.sin(phi0), -phi0 }, v = { v0, 0, 0 },
                    shape = rc.point{ l, 0 } }
w:contact{ w.ground, rod, law = rc.newton{ e = 0, mu = mu }, name = "C" }
local sim
if scheme == "gen-alpha" then
  sim = w:simulation{ scheme = scheme, rho_inf = rho, h = h, newton_jacobian = jac, prox_r = prox_r, solver = { tol = 1e-8 } }
else
  sim = w:simulation{ scheme = scheme, theta = 1, h = h, solver = { "nsgs", tol = 1e-10, max_iter = 1000 } }
end

local ref, t_star = sliding_reference(T)
local hist, lift, max_pN, min_gap, unconverged = {}, nil, 0, 0, 0
sim:after_step(function(s)
  local q, v = rod:q(), rod:v()
  local c = s:contact("C")
  local gN = q[2] + l * math.sin(q[3])   -- the tip's height
  min_gap = math.min(min_gap, gN)
  local pN = c and c.pN or 0
  max_pN = math.max(max_pN, pN)
  if not s:info().converged then unconverged = unconverged + 1 end
  hist[#hist + 1] = { s.t, -q[3], -v[3], pN }
  if not lift and s.t > 0.05 and gN > 1e-6 then lift = s.t end
end)
local summary = sim:run{ T = T }
local v = rod:v()
-- the sliding phase against the ODE: phi and u_phi at t* / 2
local function at(rows, t)
  for i = 2, #rows do if rows[i][1] >= t then return rows[i] end end
  return rows[#rows]
end
local half = t_star / 2
local r_ref, r_num = at(ref, half), at(hist, half)
io.write(string.format(
  "painleve rod (%s, h = %g): sliding ODE singular at t* = %.4f s (phi = 45 deg); at t*/2: phi %.6f (ODE %.6f), u_phi %.6f (ODE %.6f); " ..
  "largest normal percussion %.4f N s (%.3g h); lift-off at %s s; final u = (%.4f, %.4f, %.4f) (u_phi clockwise %.4f); lowest tip %.3e; unconverged steps %d\n",
  scheme, h, t_star, r_num[2], r_ref[2], r_num[3], r_ref[3], max_pN, max_pN / h, lift and string.format("%.4f", lift) or "-",
  v[1], v[2], v[3], -v[3], min_gap, unconverged))
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local om, phi = {}, {}
  for i = 1, #hc.t do om[i], phi[i] = -hc["rod.omega"][i], -hc["rod.theta"][i] end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("Painleve rod (Capobianco et al. 2021, Fig. 5), %s, h = %g", scheme, h),
            panels = { { title = "angular velocity (clockwise)", series = { { name = "u_phi", y = om } }, ylabel = "[rad/s]" },
                       { title = "angle", series = { { name = "phi", y = phi } }, ylabel = "[rad]" },
                       { title = "normal percussion", series = { { name = "P_N", y = hc["C.pN"] } }, ylabel = "[N s]" } } }
end
return { t_star = t_star, phi_half = r_num[2], phi_half_ref = r_ref[2], om_half = r_num[3], om_half_ref = r_ref[3],
         max_pN = max_pN, lift = lift, u = v, min_gap = min_gap, unconverged = unconverged, summary = summary }
