-- Capobianco, Harsch, Eugster & Leine 2021, section 10.1: a rotating ball
-- bouncing on the ground with Coulomb friction, integrated by the frictional
-- nonsmooth generalized-alpha scheme (scheme = "gen-alpha", its variant
-- "capobianco2021": docs/theory/gen-alpha-friction.md), or Moreau--Jean for
-- comparison.
--
-- Sphere m = 1, R = 0.1, theta_S = (2/5) m R^2 = 0.004, g = 9.81, mu = 0.2,
-- e_F = 0, released from rest at y = 1 with the spin omega; rho_inf = 0.5,
-- h = 2e-3. Three cases (note 003 section 3.1, analytic figures):
--   a: omega = 0, e_N = 0.5: Zeno bouncing, impacts at 0.42835, 0.85671,
--      1.07088, ... accumulating at t_inf = 1.28506 s; apexes R + 0.9 e^(2k)
--      = 0.325, 0.15625, 0.11406; then at rest with lambda_N = m g = 9.81.
--   b: omega = 50, e_N = 0: sliding after the impact (Lambda_N = m v =
--      4.2021, Lambda_F = -mu Lambda_N = -0.84043), the friction force
--      -mu m g = -1.962 while it slides, stick at t = 0.7281 s, then rolling at
--      u = (-(2/7) R omega, 0, (5/7) omega) = (-1.428571, 0, 14.285714).
--   c: omega = 10, e_N = 0: sticks at the impact (Lambda_F = -(2/7) m R omega =
--      -0.285714), rolls at (-0.285714, 0, 2.857143), lambda_F = 0 after.
-- The reported percussions are the step's P_N, P_F (eqs. 95, 113: the impulse
-- plus the integral of the force over the step; a force is P / h).
--
--   build/ricochet run scripts/papers/capobianco2021_rotating_ball.lua --set case=b --out out/ball_b   (+ figure.svg)
-- Parameters (each checked): case ("a", "b" or "c"), h (2e-3, > 0), T (1.5 for
-- case a, 1.1 otherwise, > 0), rho_inf (0.5, in [0, 1]), scheme ("gen-alpha"
-- or "moreau-jean": theta = 1, the paper's Moreau comparison), law ("builtin":
-- rc.newton; "lua": its twin written in Lua, ricochet.laws.coulomb; "c-generic":
-- rc.newton through its xi / project -- the same trajectory to the solver's
-- tolerance, docs/theory/gen-alpha-friction.md).
-- newton_jacobian ("auto", "analytic" or "differences": the Newton Jacobian of gen-alpha, docs/theory/gen-alpha-friction.md).
local rc = require "ricochet"

local case    = rc.param("case", "b", { one_of = { "a", "b", "c" } })
local h       = rc.param("h", 2e-3, { above = 0 })
local T       = rc.param("T", case == "a" and 1.5 or 1.1, { above = 0 })
local rho     = rc.param("rho_inf", 0.5, { min = 0, max = 1 })
local scheme  = rc.param("scheme", "gen-alpha", { one_of = { "gen-alpha", "moreau-jean" } })
local jac    = rc.param("newton_jacobian", "auto", { one_of = { "auto", "analytic", "differences" } })   -- gen-alpha's Newton Jacobian
local lawp    = rc.param("law", "builtin", { one_of = { "builtin", "lua", "c-generic" } })
local m, R, g, mu = 1.0, 0.1, 9.81, 0.2
local omega = ({ a = 0, b = 50, c = 10 })[case]
local eN = case == "a" and 0.5 or 0.0

local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local ball = w:body{ name = "ball", mass = m, inertia = 0.4 * m * R * R, q = { 0, 1, 0 }, v = { 0, 0, omega },
                     shape = rc.disk{ radius = R } }
local function law(e, f)
  if lawp == "lua" then return require("ricochet.laws.coulomb"){ e = e, mu = f } end
  return rc.newton{ e = e, mu = f, local_solver = lawp == "c-generic" and "generic" or "exact" }
end
w:contact{ w.ground, ball, law = law(eN, mu), name = "C" }
local sim
if scheme == "gen-alpha" then
  sim = w:simulation{ scheme = scheme, rho_inf = rho, h = h, newton_jacobian = jac, solver = { tol = 1e-10 } }
else
  sim = w:simulation{ scheme = scheme, theta = 1, h = h, solver = { "nsgs", tol = 1e-10, max_iter = 1000 } }
end

-- per step: the first impact's percussions, the sliding force, the stick
-- time, the apexes (case a), the gap, the Newton iterations
local first, stick, min_gap, max_iter, sliding = nil, nil, 0, 0, {}
local apex, rising, last_y, impacts, t_rest = {}, false, 1.0, 0, nil
local function slip(v) return v[1] + R * v[3] end   -- gamma_F = u_x + R u_phi
sim:after_step(function(s)
  local c, q, v = s:contact("C"), ball:q(), ball:v()
  min_gap = math.min(min_gap, q[2] - R)
  max_iter = math.max(max_iter, s:info().iterations)
  local pN, pT = c and c.pN or 0, c and c.pT or 0
  if pN > 0.5 then
    impacts = impacts + 1
    if not first then first = { t = s.t, pN = pN, pT = pT, v = v } end
  elseif first and pN > 0 and not stick and math.abs(slip(v)) > 1e-6 then
    sliding[#sliding + 1] = pT / h                   -- the friction force while it slides
  end
  if first and not stick and math.abs(slip(v)) <= 1e-9 and s.t > first.t then stick = s.t end
  if q[2] > last_y then rising = true elseif rising then apex[#apex + 1] = last_y; rising = false end
  last_y = q[2]
  if not t_rest and math.abs(v[2]) < 1e-9 and math.abs(q[2] - R) < 1e-9 and s.t > 1.2 then t_rest = s.t end
end)
local summary = sim:run{ T = T }
local q, v = ball:q(), ball:v()
local c = sim:contact("C")
local force = 0
for _, f in ipairs(sliding) do force = force + f end
force = #sliding > 0 and force / #sliding or 0 / 0
io.write(string.format(
  "rotating ball case %s (%s, h = %g): first impact at t = %.4f s: P_N = %.5f (m v = 4.2021 + h lambda), P_F = %.5f; " ..
  "friction force while sliding %.4f N (-mu m g = -1.962, %d steps); stick at %s s; final u = (%.6f, %.6f, %.6f); " ..
  "apexes %s; at rest from %s s; lambda_N at the end %.4f N (m g = 9.81); lowest gap %.3e; Newton iterations <= %d\n",
  case, scheme, h, first and first.t or 0 / 0, first and first.pN or 0 / 0, first and first.pT or 0 / 0, force, #sliding,
  stick and string.format("%.4f", stick) or "-", v[1], v[2], v[3],
  (function() local t = {}; for i = 1, math.min(#apex, 4) do t[i] = string.format("%.5f", apex[i]) end; return table.concat(t, " ") end)(),
  t_rest and string.format("%.4f", t_rest) or "-", c and c.pN / h or 0 / 0, min_gap, max_iter))

-- the figure beside the history (with --out), as the paper's Figs. 1-2: the
-- gap, the velocities, the percussions, the energy
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local function s(name) return { name = name, y = hc[name] } end
  local gap, slipv = {}, {}
  for i, y in ipairs(hc["ball.y"]) do gap[i] = y - R; slipv[i] = hc["ball.vx"][i] + R * hc["ball.omega"][i] end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("rotating ball, case %s (Capobianco et al. 2021), %s, h = %g", case, scheme, h),
            panels = { { title = "gap", series = { { name = "g_N", y = gap } }, ylabel = "g_N [m]" },
                       { title = "velocities", series = { s("ball.vx"), s("ball.vy"), { name = "gamma_F", y = slipv } }, ylabel = "[m/s]" },
                       { title = "percussions", series = { s("C.pN"), s("C.pT") }, ylabel = "P [N s]" },
                       { title = "energy", series = { s("E") }, ylabel = "E [J]" } } }
end
return { first = first, stick = stick, u = v, force = force, min_gap = min_gap, max_iter = max_iter, apex = apex,
         impacts = impacts, t_rest = t_rest, lambda_N = c and c.pN / h, E = sim:info().E, summary = summary }
