-- Bruls, Acary & Cardona 2014, section 10.4 (after Acary 2013): a rigid block
-- dropped tilted on the ground, two nonlinear unilateral constraints (its two
-- bottom corners, eq. 53), integrated by the nonsmooth generalized-alpha scheme
-- (scheme = "gen-alpha", docs/theory/gen-alpha.md) or by Moreau--Jean (the
-- paper's comparison, theta = 1/(1 + rho_inf)).
--
-- q = (x, y, theta), m = 1, width L = 1, height l = 1.5, J = m (L^2 + l^2)/12,
-- g = 9.81, e = 0.5, q0 = (0, 1, 0.2), v0 = 0, h = 1e-2 (the paper's reference:
-- h = 2e-4). g1 = y - (l/2) cos(theta) + (L/2) sin(theta) (the corner at local
-- x = +L/2, named contact C2), g2 = y - (l/2) cos(theta) - (L/2) sin(theta)
-- (local x = -L/2, C1): initial gaps 0.364285 and 0.165615.
--
-- Exact first impact (free fall of corner 2, ../shared/notes/002 section 4.4):
-- t = sqrt(2 g2 / g) = 0.183751 s at dg2/dt = -1.802602 m/s, impulse
-- P = 1.891603 N s, E+ = 8.957548 J (E0 = 9.81 J). At rest: theta = 0, y = l/2,
-- E = m g l / 2 = 7.3575 J, each corner Lambda = m g h / 2, nu = m g h^2 / 4.
--
--   build/ricochet run scripts/papers/bruls2014_rocking_block.lua --set h=2e-4 --out out/block   (+ figure.svg)
-- Parameters (each checked): h (1e-2, > 0), T (5, > 0), e (0.5, in [0, 1]),
-- rho_inf (0.8, in [0, 1]), strategy ("monolithic" or "sequential": Algorithm 1), scheme ("gen-alpha" or "moreau-jean").
local rc = require "ricochet"

local h      = rc.param("h", 1e-2, { above = 0 })
local T      = rc.param("T", 5.0, { above = 0 })
local e      = rc.param("e", 0.5, { min = 0, max = 1 })
local rho    = rc.param("rho_inf", 0.8, { min = 0, max = 1 })
local strategy = rc.param("strategy", "monolithic", { one_of = { "monolithic", "sequential" } })   -- gen-alpha: Newton on (44) or Algorithm 1
local scheme = rc.param("scheme", "gen-alpha", { one_of = { "gen-alpha", "moreau-jean" } })

local m, L, l, g = 1.0, 1.0, 1.5, 9.81
local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local block = w:body{ name = "block", mass = m, inertia = m * (L * L + l * l) / 12, q = { 0, 1, 0.2 },
                      shape = rc.box{ L, l } }
w:contact{ w.ground, block, law = rc.newton{ e = e, mu = 0 }, name = "C" }
local sim
if scheme == "gen-alpha" then
  sim = w:simulation{ scheme = "gen-alpha", rho_inf = rho, strategy = strategy, h = h, solver = { tol = 1e-10 } }
else
  sim = w:simulation{ scheme = "moreau-jean", theta = 1 / (1 + rho), h = h, solver = { tol = 1e-10 } }
end

-- the corners' gaps (53)
local function gaps()
  local q = block:q()
  local c, s = math.cos(q[3]), math.sin(q[3])
  return q[2] - l / 2 * c + L / 2 * s, q[2] - l / 2 * c - L / 2 * s
end
local E0 = m * g * 1.0
local Eprev, max_increase, min_gap, max_iter, max_x = E0, -math.huge, math.huge, 0, 0
local first, E_at_1, E_pre = nil, nil, nil   -- E_pre: E at the end of the last free-flight step
sim:after_step(function(s)
  local info = s:info()
  local g1, g2 = gaps()
  min_gap = math.min(min_gap, g1, g2)
  max_increase = math.max(max_increase, info.E - Eprev)
  Eprev = info.E
  max_iter = math.max(max_iter, info.iterations)
  max_x = math.max(max_x, math.abs(block:q()[1]))
  local c1, c2 = s:contact("C1"), s:contact("C2")
  local P = (c1.pN == c1.pN and c1.pN or 0) + (c2.pN == c2.pN and c2.pN or 0)
  if P > 0 and not first then first = { t = s.t, impulse = P, E = info.E } end
  if not first then E_pre = info.E end
  if not E_at_1 and s.t >= 1 - 1e-9 then E_at_1 = info.E end
end)
local summary = sim:run{ T = T }
local c1, c2 = sim:contact("C1"), sim:contact("C2")
local g1, g2 = gaps()
io.write(string.format(
  "rocking block (%s, h = %g): first impact in the step ending at t = %.4f s (exact 0.183751), impulse %.6f N s (1.891603), " ..
  "E before %.9f J (9.81), E after %.6f J (8.957548), smallest corner gap %.3e m, largest energy increase in a step %.3e J, E(t = 1) = %.6f J, " ..
  "at most %d Newton iterations; end: gaps (%.3e, %.3e), theta %.3e, |x| max %.3e, E = %.6f J (7.3575), " ..
  "Lambda (%.6g, %.6g) (m g h / 2 = %.6g), nu (%.6g, %.6g) (m g h^2 / 4 = %.6g)\n",
  scheme, h, first and first.t or 0 / 0, first and first.impulse or 0 / 0, E_pre or 0 / 0, first and first.E or 0 / 0, min_gap,
  max_increase, E_at_1 or 0 / 0, max_iter, g1, g2, block:q()[3], max_x, sim:info().E, c1.pN, c2.pN, m * g * h / 2,
  c1.nu, c2.nu, m * g * h * h / 4))
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local function s(name) return { name = name, y = hc[name] } end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("rocking block (Bruls et al. 2014, Figs. 20-24), %s, h = %g", scheme, h),
            panels = { { title = "height (Fig. 20)", series = { s("block.y") }, ylabel = "y [m]" },
                       { title = "corner gaps (Fig. 21)", series = { s("C1.gN"), s("C2.gN") }, ylabel = "g [m]" },
                       { title = "energy (Fig. 23)", series = { s("E") }, ylabel = "E [J]" },
                       { title = "impulses (Fig. 24)", series = { s("C1.pN"), s("C2.pN") }, ylabel = "Lambda [N s]" } } }
end
return { first = first, E_pre = E_pre, min_gap = min_gap, max_increase = max_increase, E_at_1 = E_at_1, max_iter = max_iter,
         max_x = max_x, g = { g1, g2 }, theta = block:q()[3], E = sim:info().E, Lambda = { c1.pN, c2.pN },
         nu = { c1.nu, c2.nu }, summary = summary }
