-- Capobianco, Harsch, Eugster & Leine 2021, section 10.3: a ball rolling and
-- sliding inside a cylinder (a concave circular wall, rc.circle_inside), with
-- friction, integrated by the frictional nonsmooth generalized-alpha scheme
-- (scheme = "gen-alpha", docs/theory/gen-alpha-friction.md) or, as the
-- negative control, by Moreau--Jean (theta = 1) on the same model: the point of
-- the paper is that the position-level stabilisation keeps |g_N| at round-off
-- for the whole run, where Moreau's scheme (velocity level only) lets the ball
-- drift into the curved wall further and further.
--
-- Ball m = 1, R = 0.1, theta_S = 0.004, g = 9.81, inside a cylinder of radius
-- R_c = 1 about P = (0, 1) (assumed: note 003 section 3.3), released at rest at
-- (-0.9, 1) (in contact at the axis' height), mu = 0.1, e_N = e_F = 0,
-- rho_inf = 0.5, h = 1e-2, to t = 10 s. The energy (9.81 J at the start,
-- reference y = 0) must not grow.
--
--   build/ricochet run scripts/papers/capobianco2021_ball_in_cylinder.lua --out out/cylinder   (+ figure.svg)
-- Parameters (each checked): h (1e-2, > 0), T (10, > 0), rho_inf (0.5, in [0, 1]),
-- prox_r (0.3: the paper's r, >= 0; 0: each contact's effective mass), scheme ("gen-alpha"
-- or "moreau-jean": theta = 1, the paper's comparison).
-- newton_jacobian ("auto", "analytic" or "differences": the Newton Jacobian of gen-alpha, docs/theory/gen-alpha-friction.md).
local rc = require "ricochet"

local h      = rc.param("h", 1e-2, { above = 0 })
local T      = rc.param("T", 10.0, { above = 0 })
local rho    = rc.param("rho_inf", 0.5, { min = 0, max = 1 })
local prox_r = rc.param("prox_r", 0.3, { min = 0 })
local jac    = rc.param("newton_jacobian", "auto", { one_of = { "auto", "analytic", "differences" } })   -- gen-alpha's Newton Jacobian
local scheme = rc.param("scheme", "gen-alpha", { one_of = { "gen-alpha", "moreau-jean" } })
local m, R, g, Rc, P = 1.0, 0.1, 9.81, 1.0, { 0, 1 }

local w = rc.world{ gravity = { 0, -g } }
w:obstacle{ shape = rc.circle_inside{ centre = P, radius = Rc }, name = "cylinder" }
local ball = w:body{ name = "ball", mass = m, inertia = 0.4 * m * R * R, q = { P[1] - 0.9, P[2], 0 }, shape = rc.disk{ radius = R } }
w:contact{ w.ground, ball, law = rc.newton{ e = 0, mu = 0.1 }, name = "C" }
local sim
if scheme == "gen-alpha" then
  sim = w:simulation{ scheme = scheme, rho_inf = rho, h = h, newton_jacobian = jac, prox_r = prox_r, solver = { tol = 1e-10 } }
else
  sim = w:simulation{ scheme = scheme, theta = 1, h = h, solver = { "nsgs", tol = 1e-10, max_iter = 1000 } }
end

local function gap(q) return Rc - R - math.sqrt((q[1] - P[1])^2 + (q[2] - P[2])^2) end
local max_pen, max_abs, E_prev, max_rise, max_iter, pen_at = 0, 0, nil, -math.huge, 0, {}
sim:after_step(function(s)
  local q = ball:q()
  local gN = gap(q)
  max_pen = math.max(max_pen, -gN)
  max_abs = math.max(max_abs, math.abs(gN))
  local E = s:info().E
  if E_prev then max_rise = math.max(max_rise, E - E_prev) end
  E_prev = E
  max_iter = math.max(max_iter, s:info().iterations)
  for _, t in ipairs{ 1, 5, 10 } do
    if not pen_at[t] and s.t >= t - 1e-9 then pen_at[t] = max_pen end
  end
end)
local E0 = sim:info().E
local summary = sim:run{ T = T }
local E = sim:info().E
io.write(string.format(
  "ball in cylinder (%s, h = %g): largest |g_N| %.3e (penetration %.3e; after 1 / 5 / 10 s: %s / %s / %s); energy %.4f -> %.4f J, " ..
  "largest increase in a step %.3e J; Newton iterations <= %d, steps handed to the fixed point %d\n",
  scheme, h, max_abs, max_pen, tostring(pen_at[1] and string.format("%.3e", pen_at[1]) or "-"),
  tostring(pen_at[5] and string.format("%.3e", pen_at[5]) or "-"), tostring(pen_at[10] and string.format("%.3e", pen_at[10]) or "-"),
  E0, E, max_rise, max_iter, sim:stats().newton_fallbacks or 0))
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local gN = {}
  for i = 1, #hc.t do gN[i] = gap({ hc["ball.x"][i], hc["ball.y"][i] }) end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("ball in cylinder (Capobianco et al. 2021, Fig. 4), %s, h = %g", scheme, h),
            panels = { { title = "gap", series = { { name = "g_N", y = gN } }, ylabel = "g_N [m]" },
                       { title = "position", series = { { name = "x", y = hc["ball.x"] }, { name = "y", y = hc["ball.y"] } }, ylabel = "[m]" },
                       { title = "energy", series = { { name = "E", y = hc.E } }, ylabel = "E [J]" } } }
end
return { max_abs = max_abs, max_pen = max_pen, pen_at = pen_at, E0 = E0, E = E, max_rise = max_rise, max_iter = max_iter,
         summary = summary }
