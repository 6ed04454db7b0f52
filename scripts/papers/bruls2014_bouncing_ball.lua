-- Bruls, Acary & Cardona 2014, section 10.1: a ball bouncing on the ground,
-- integrated by the nonsmooth generalized-alpha scheme with constraints at
-- position and velocity level (scheme = "gen-alpha", docs/theory/gen-alpha.md).
--
-- m = 1 kg, radius R = 0.2 m, g = 10 m/s^2, e = 0.8 (the paper's; the issue's
-- text says 0.5: e is a parameter), rho_inf = 0.8, h = 2e-3 s. Released from rest
-- with its centre at h0 = 1.001 m (gap 0.801 m: the first impact falls inside a
-- step, not on its end).
--
-- Analytic figures (../shared/notes/002, section 4.1): first impact at
-- t1 = sqrt(2 * 0.801 / 10) = 0.400250 s with v1 = 4.002499 m/s; impacts at
-- t_{k+1} = t_k + 2 e^k v1 / g; accumulation at t_acc = t1 + 2 e v1 / (g (1 - e))
-- = 3.602249 s; E = m g y + m v^2 / 2 (with the centre height y: E0 = 10.01 J,
-- 2 J at rest). The scheme's rest (Property 2 and eq. 32a): y = R, v = 0,
-- Lambda = m g h (the contact force m g times h) and nu = m g h^2 / 2.
--
--   build/ricochet run scripts/papers/bruls2014_bouncing_ball.lua --set h=5e-4 --out out/ball   (+ figure.svg)
-- Parameters (each checked): h (2e-3, > 0), T (5, > 0), e (0.8, in [0, 1]),
-- rho_inf (0.8, in [0, 1]), strategy ("monolithic" or "sequential": Algorithm 1), h0 (1.001, > R), scheme ("gen-alpha" or
-- "moreau-jean": theta = 1/(1 + rho_inf), the paper's comparison), still
-- (1e-6: at rest once |v| stays below it).
local rc = require "ricochet"

local h       = rc.param("h", 2e-3, { above = 0 })
local T       = rc.param("T", 5.0, { above = 0 })
local e       = rc.param("e", 0.8, { min = 0, max = 1 })
local rho     = rc.param("rho_inf", 0.8, { min = 0, max = 1 })
local strategy = rc.param("strategy", "monolithic", { one_of = { "monolithic", "sequential" } })   -- gen-alpha: Newton on (44) or Algorithm 1
local R       = 0.2
local h0      = rc.param("h0", 1.001, { above = R })
local scheme  = rc.param("scheme", "gen-alpha", { one_of = { "gen-alpha", "moreau-jean" } })
local still   = rc.param("still", 1e-6, { above = 0 })
local m, g    = 1.0, 10.0

local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local ball = w:body{ name = "ball", mass = m, inertia = 0.4 * m * R * R, q = { 0, h0, 0 }, shape = rc.disk{ radius = R } }
w:contact{ w.ground, ball, law = rc.newton{ e = e, mu = 0 }, name = "C" }
local sim
if scheme == "gen-alpha" then
  sim = w:simulation{ scheme = "gen-alpha", rho_inf = rho, strategy = strategy, h = h, solver = { tol = 1e-12 } }
else
  sim = w:simulation{ scheme = "moreau-jean", theta = 1 / (1 + rho), h = h, solver = { tol = 1e-12 } }
end

-- per step: the largest energy increase, the smallest gap, the free flight's
-- energy drift before the first impact, the first impact's velocities, the
-- Newton iterations, the rest time (from when on |v| < still)
local E0 = m * g * h0   -- at rest: E = m g y + m v^2 / 2
local Eprev, max_increase, min_gap, flight_drift = E0, -math.huge, math.huge, 0
local first, t_rest, max_iter, max_res, impacts, pushed = nil, nil, 0, 0, 0, false
sim:after_step(function(s)
  local info, c = s:info(), s:contact("C")
  max_increase = math.max(max_increase, info.E - Eprev)
  min_gap = math.min(min_gap, ball:q()[2] - R)
  max_iter = math.max(max_iter, info.iterations)
  max_res = math.max(max_res, info.residual)
  local now = c.pN > 0
  if now and not first then
    first = { t = s.t, v_before = sim._v_before, v_after = ball:v()[2], impulse = c.pN }
  end
  if not first then flight_drift = math.max(flight_drift, math.abs(info.E - E0)) end
  if now and not pushed then impacts = impacts + 1 end
  pushed = now
  Eprev = info.E
  if math.abs(ball:v()[2]) >= still then t_rest = nil elseif not t_rest then t_rest = s.t end
end)
sim:before_step(function(s) s._v_before = ball:v()[2] end)
local summary = sim:run{ T = T }
local c = sim:contact("C")
local t1 = math.sqrt(2 * (h0 - R) / g)
local t_acc = t1 + 2 * e * g * t1 / (g * (1 - e))
io.write(string.format(
  "bouncing ball (%s, h = %g, e = %g): first impact at t = %.6f s (analytic %.6f), v %.6f -> %.6f m/s (-e v = %.6f), " ..
  "%d impacts, at rest (|v| < %g) from t = %s s (accumulation %.6f), smallest gap %.3e m, largest energy increase in a step %.3e J, " ..
  "free-flight energy drift %.3e J, Newton: at most %d iterations, residual %.2e; " ..
  "end: y - R = %.3e m, v = %.3e m/s, Lambda = %.15g (m g h = %.15g), nu = %.15g (m g h^2 / 2 = %.15g), E = %.12f J\n",
  scheme, h, e, first and first.t or 0 / 0, t1, first and first.v_before or 0 / 0, first and first.v_after or 0 / 0,
  first and -e * first.v_before or 0 / 0, impacts, still, tostring(t_rest), t_acc, min_gap, max_increase, flight_drift,
  max_iter, max_res, ball:q()[2] - R, ball:v()[2], c.pN, m * g * h, c.nu, m * g * h * h / 2, sim:info().E))
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local function s(name) return { name = name, y = hc[name] } end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("bouncing ball (Bruls et al. 2014, Figs. 4-6), %s, h = %g", scheme, h),
            panels = { { title = "height (Fig. 4)", series = { s("ball.y") }, ylabel = "y [m]" },
                       { title = "velocity (Fig. 4)", series = { s("ball.vy") }, ylabel = "v [m/s]" },
                       { title = "energy (Fig. 5)", series = { s("E") }, ylabel = "E [J]" },
                       { title = "impulse Lambda (Fig. 6)", series = { s("C.pN") }, ylabel = "Lambda [N s]" } } }
end
return { first = first, t_rest = t_rest, t_acc = t_acc, t1 = t1, impacts = impacts, min_gap = min_gap,
         max_increase = max_increase, flight_drift = flight_drift, max_iter = max_iter, max_res = max_res,
         y = ball:q()[2], v = ball:v()[2], Lambda = c.pN, nu = c.nu, E = sim:info().E, E0 = E0, summary = summary }
