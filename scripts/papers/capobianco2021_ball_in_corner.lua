-- Capobianco, Harsch, Eugster & Leine 2021, section 10.2: a ball dropped into
-- a corner of two planes at +-45 degrees, with friction, integrated by the
-- frictional nonsmooth generalized-alpha scheme (scheme = "gen-alpha",
-- docs/theory/gen-alpha-friction.md). When the ball comes to rest with both
-- contacts closed, their force directions are dependent (4 directions, 3
-- velocities): the Newton matrix is singular and the step falls back on the
-- fixed-point iterations (144)-(146) (counted in the run's newton_fallbacks).
--
-- Ball m = 1, R = 0.1, theta_S = 0.004, g = 9.81; plane 1 y = x tan(45 deg)
-- (e_N = 0.5), plane 2 y = -x tan(45 deg) (e_N = 0), mu = 0.3 on both, e_F = 0;
-- released at rest at (-0.5, 1); rho_inf = 0.5, h = 1e-4 (the paper's).
-- Analytic figures (note 003 section 3.2): first contact with plane 2 at
-- t = sqrt(2 (1 - 0.5 - R sqrt 2) / g) = 0.27038 s; the rest position
-- (0, R sqrt 2) = (0, 0.141421); the paper sees both contacts closed for good
-- near t = 1.36 s. The static forces at rest are indeterminate (two frictional
-- contacts on one body): not a figure to check.
--
--   build/ricochet run scripts/papers/capobianco2021_ball_in_corner.lua --out out/corner   (+ figure.svg)
-- Parameters (each checked): h (1e-4, > 0), T (1.5, > 0), rho_inf (0.5, in [0, 1]), prox_r (0.2: the
-- paper's r, >= 0; 0: each contact's effective mass),
-- scheme ("gen-alpha" or "moreau-jean": theta = 1), law ("builtin": rc.newton;
-- "lua": its twin written in Lua, ricochet.laws.coulomb; "c-generic": rc.newton
-- through its xi / project).
-- newton_jacobian ("auto", "analytic" or "differences": the Newton Jacobian of gen-alpha, docs/theory/gen-alpha-friction.md).
local rc = require "ricochet"

local h      = rc.param("h", 1e-4, { above = 0 })
local T      = rc.param("T", 1.5, { above = 0 })
local rho    = rc.param("rho_inf", 0.5, { min = 0, max = 1 })
local scheme = rc.param("scheme", "gen-alpha", { one_of = { "gen-alpha", "moreau-jean" } })
local prox_r = rc.param("prox_r", 0.2, { min = 0 })   -- the paper's r (0: each contact's effective mass)
local jac    = rc.param("newton_jacobian", "auto", { one_of = { "auto", "analytic", "differences" } })   -- gen-alpha's Newton Jacobian
local lawp   = rc.param("law", "builtin", { one_of = { "builtin", "lua", "c-generic" } })
local m, R, g = 1.0, 0.1, 9.81
local s2 = math.sqrt(0.5)

local w = rc.world{ gravity = { 0, -g } }
-- each plane its own law: contact groups 1 and 2 against the ball's group 3
w:halfplane{ point = { 0, 0 }, normal = { -s2, s2 }, group = 1 }   -- plane 1: y = x
w:halfplane{ point = { 0, 0 }, normal = { s2, s2 }, group = 2 }    -- plane 2: y = -x
local ball = w:body{ name = "ball", mass = m, inertia = 0.4 * m * R * R, q = { -0.5, 1, 0 },
                     shape = rc.disk{ radius = R, group = 3 } }
local function law(e, f)
  if lawp == "lua" then return require("ricochet.laws.coulomb"){ e = e, mu = f } end
  return rc.newton{ e = e, mu = f, local_solver = lawp == "c-generic" and "generic" or "exact" }
end
w:contact{ groups = { 1, 3 }, law = law(0.5, 0.3) }
w:contact{ groups = { 2, 3 }, law = law(0, 0.3) }
local sim
if scheme == "gen-alpha" then
  sim = w:simulation{ scheme = scheme, rho_inf = rho, h = h, newton_jacobian = jac, prox_r = prox_r, solver = { tol = 1e-8 } }
else
  sim = w:simulation{ scheme = scheme, theta = 1, h = h, solver = { "nsgs", tol = 1e-10, max_iter = 10000 } }
end

local function gaps(q) return -s2 * q[1] + s2 * q[2] - R, s2 * q[1] + s2 * q[2] - R end
local first, both, min_gap, max_iter, unconverged, fallback_steps = nil, nil, 0, 0, 0, 0
sim:after_step(function(s)
  local q, v = ball:q(), ball:v()
  local g1, g2 = gaps(q)
  min_gap = math.min(min_gap, g1, g2)
  local info = s:info()
  max_iter = math.max(max_iter, info.iterations)
  if not info.converged then unconverged = unconverged + 1 end
  fallback_steps = fallback_steps + info.newton_fallback   -- 1 when the step fell back on the fixed point
  if not first and g2 <= 1e-9 then first = s.t - h end   -- the step that closes plane 2
  -- both closed, the ball still: the last time this became true
  local still = math.abs(g1) < 1e-6 and math.abs(g2) < 1e-6 and math.sqrt(v[1]^2 + v[2]^2 + (R * v[3])^2) < 1e-6
  if still and not both then both = s.t elseif not still then both = nil end
end)
local summary = sim:run{ T = T }
local q = ball:q()
local stats = sim:stats()
io.write(string.format(
  "ball in corner (%s, h = %g): first contact with plane 2 at t = %.5f s (analytic 0.27038); both contacts closed and at rest " ..
  "from %s s (paper: about 1.36); final position (%.7f, %.7f) (0, 0.141421); lowest gap %.3e; Newton iterations <= %d, " ..
  "steps handed to the fixed point %d, unconverged steps %d\n",
  scheme, h, first or 0 / 0, both and string.format("%.4f", both) or "-", q[1], q[2], min_gap, max_iter,
  stats.newton_fallbacks or 0, unconverged))
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local g1, g2 = {}, {}
  for i = 1, #hc.t do g1[i], g2[i] = gaps({ hc["ball.x"][i], hc["ball.y"][i] }) end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("ball in corner (Capobianco et al. 2021, Fig. 3), %s, h = %g", scheme, h),
            panels = { { title = "gaps", series = { { name = "g_N1", y = g1 }, { name = "g_N2", y = g2 } }, ylabel = "g_N [m]" },
                       { title = "energy", series = { { name = "E", y = hc.E } }, ylabel = "E [J]" } } }
end
return { first = first, rest = both, q = q, min_gap = min_gap, max_iter = max_iter, fallbacks = stats.newton_fallbacks or 0,
         fallback_steps = fallback_steps,
         unconverged = unconverged, summary = summary }
