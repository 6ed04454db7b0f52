-- Capobianco, Harsch, Eugster & Leine 2021, section 10.1, in 3D: the
-- rotating ball of capobianco2021_rotating_ball.lua as a sphere on a plane
-- in a world of dim = 3 (docs/theory/spatial.md, "Contacts"), integrated by
-- Moreau--Jean (theta = 1, the paper's Moreau comparison) or
-- Moreau--Jean--Fremond, with the 3D De Saxce cone and NSGS.
--
-- Sphere m = 1, R = 0.1, J = (2/5) m R^2 = 0.004, g = 9.81, mu = 0.2,
-- released from rest at z = 1 spinning about -e_y at omega (the planar
-- script's omega about e_z, its x the same x, its y our z), h = 2e-3:
--   b: omega = 50, e_N = 0: slides after the impact, sticks at t = 0.7281 s
--      (analytic; the planar Moreau--Jean run at h = 2e-3 sticks at the same
--      step), then rolls at v_x = -(2/7) R omega = -1.428571, omega_y =
--      -(5/7) omega = -14.285714;
--   c: omega = 10, e_N = 0: sticks at the impact, rolls at -0.285714;
--   a: omega = 0, e_N = 0.5: the Zeno bouncing of the planar case a.
-- The motion stays in the x-z plane: v_y, omega_x, omega_z (world) are
-- zero to round-off.
--
--   build/ricochet run scripts/papers/capobianco2021_rotating_ball_3d.lua --set case=b --out out/ball3d_b   (+ figure.svg)
--   build/ricochet run scripts/papers/capobianco2021_rotating_ball_3d.lua --set case=b --set scheme=gen-alpha --set rho_inf=0.5
-- Parameters (each checked): case ("a", "b" or "c"), h (2e-3, > 0), T (1.5 for
-- case a, 1.1 otherwise, > 0), scheme ("moreau-jean", "moreau-jean-fremond" or
-- "gen-alpha": Capobianco et al.'s frictional scheme on the spatial body,
-- docs/theory/gen-alpha.md "Spatial contacts"), theta (1 for moreau-jean, 0.5
-- for moreau-jean-fremond), rho_inf (0.8, gen-alpha only, in [0, 1]; the
-- planar script's 0.5 gives its figures: the same stick step and P_N).
-- newton_jacobian ("auto", "analytic" or "differences": the Newton Jacobian of gen-alpha, docs/theory/gen-alpha-friction.md).
local rc = require "ricochet"

local case   = rc.param("case", "b", { one_of = { "a", "b", "c" } })
local h      = rc.param("h", 2e-3, { above = 0 })
local T      = rc.param("T", case == "a" and 1.5 or 1.1, { above = 0 })
local scheme = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "moreau-jean-fremond", "gen-alpha" } })
local jac    = rc.param("newton_jacobian", "auto", { one_of = { "auto", "analytic", "differences" } })   -- gen-alpha's Newton Jacobian
local theta  = rc.param("theta", scheme == "moreau-jean" and 1 or 0.5, { above = 0, max = 1 })
local rho    = rc.param("rho_inf", 0.8, { min = 0, max = 1 })   -- gen-alpha only
local m, R, g, mu = 1.0, 0.1, 9.81, 0.2
local omega = ({ a = 0, b = 50, c = 10 })[case]
local eN = case == "a" and 0.5 or 0.0

local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = eN, mu = mu } }
w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
local J = 0.4 * m * R * R
local ball = w:body{ name = "ball", mass = m, inertia = { J, J, J }, q = { 0, 0, 1, 1, 0, 0, 0 },
                     v = { 0, 0, 0, 0, -omega, 0 }, shape = rc.sphere{ radius = R } }
local sim = scheme == "gen-alpha"
  and w:simulation{ scheme = scheme, rho_inf = rho, h = h, newton_jacobian = jac, solver = { tol = 1e-10 } }
  or w:simulation{ scheme = scheme, theta = theta, h = h, solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }

-- the world angular velocity R(q) Omega
local function omega_world(q, v)
  local qw, qx, qy, qz, a = q[4], q[5], q[6], q[7], { v[4], v[5], v[6] }
  local tx, ty, tz = 2 * (qy * a[3] - qz * a[2]), 2 * (qz * a[1] - qx * a[3]), 2 * (qx * a[2] - qy * a[1])
  return { a[1] + qw * tx + (qy * tz - qz * ty), a[2] + qw * ty + (qz * tx - qx * tz), a[3] + qw * tz + (qx * ty - qy * tx) }
end
local function slip(q, v) return v[1] - R * omega_world(q, v)[2] end   -- contact point's x velocity

local first, stick, min_gap, out_of_plane, cone, max_iter = nil, nil, 0, 0, 0, 0
sim:after_step(function(s)
  local q, v = ball:q(), ball:v()
  local ow = omega_world(q, v)
  min_gap = math.min(min_gap, q[3] - R)
  out_of_plane = math.max(out_of_plane, math.abs(v[2]), math.abs(ow[1]), math.abs(ow[3]))
  max_iter = math.max(max_iter, s:info().iterations)
  for _, c in ipairs(w:contacts3()) do
    local p = c.p
    cone = math.max(cone, math.sqrt(p[2] * p[2] + p[3] * p[3]) - mu * p[1])
    if c.active and p[1] > 0.5 and not first then first = { t = s.t, pN = p[1], pT = p[2] } end
  end
  if first and not stick and math.abs(slip(q, v)) <= 1e-9 and s.t > first.t then stick = s.t end
end)
local summary = sim:run{ T = T }
local q, v = ball:q(), ball:v()
local ow = omega_world(q, v)
io.write(string.format(
  "rotating ball 3D case %s (%s, %s, h = %g): first impact at t = %.4f s (P_N = %.5f); stick at %s s; " ..
  "final v_x = %.12f, omega_y = %.12f (rolling: %.3e); out of plane <= %.3e; lowest gap %.3e; " ..
  "cone excess <= %.3e; sweeps <= %d\n",
  case, scheme, scheme == "gen-alpha" and "rho_inf = " .. rho or "theta = " .. theta, h, first and first.t or 0 / 0, first and first.pN or 0 / 0, stick and string.format("%.4f", stick) or "-",
  v[1], ow[2], v[1] - R * ow[2], out_of_plane, min_gap, cone, max_iter))

if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local function s(name) return { name = name, y = hc[name] } end
  local gap = {}
  for i, z in ipairs(hc["ball.z"]) do gap[i] = z - R end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("rotating ball 3D, case %s (Capobianco et al. 2021), %s, h = %g", case, scheme, h),
            panels = { { title = "gap", series = { { name = "g_N", y = gap } }, ylabel = "g_N [m]" },
                       { title = "velocities", series = { s("ball.vx"), s("ball.vy"), s("ball.vz") }, ylabel = "[m/s]" },
                       { title = "angular velocity (body)", series = { s("ball.wx"), s("ball.wy"), s("ball.wz") }, ylabel = "[rad/s]" },
                       { title = "energy", series = { s("E") }, ylabel = "E [J]" } } }
end
return { first = first, stick = stick, v = v, omega = ow, min_gap = min_gap, out_of_plane = out_of_plane, cone = cone,
         max_iter = max_iter, E = sim:info().E, summary = summary }
