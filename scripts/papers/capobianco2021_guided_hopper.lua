-- Capobianco, Harsch, Eugster & Leine 2021, section 10.5: the guided hopper, a
-- flexible multibody system with a driven knee and a frictional foot,
-- integrated by the frictional nonsmooth generalized-alpha scheme
-- (scheme = "gen-alpha", variant "capobianco2021", docs/theory/gen-alpha-friction.md).
--
-- A main body (M = 3) guided vertically (a prismatic joint to the ground, its
-- height y); at its hip H a rigid homogeneous rod (m = 1.56, L = 0.2,
-- theta_S = 8.5e-3) whose angle from the downward vertical is prescribed,
-- alpha(t) = pi/3 - pi/30 (1 - cos 4 pi t) (a revolute joint at H and a
-- rheonomic joint on the relative angle); at the rod's knee K a straight
-- planar geometrically nonlinear Euler--Bernoulli beam (w:beam: EA = 1.89e7,
-- EI = 14.2, rho = 0.71, length L, two B-spline elements of degree 2, five
-- Gauss points: docs/theory/beam.md) connected by the knee joint (153): r(0)
-- = K and the angle from K->H to the beam's tangent r'(0) equals beta(t) =
-- pi - 2 alpha(t) (w:beam_joint). Its end P touches the ground (154): g_N =
-- e_y . r(1), gamma_F = e_x . v(1) (w:gap on the last control point, which
-- r(1) is), e_N = e_F = 0, mu = 0.2. Gravity 9.81. At rest, y(0) = 0.31, the
-- beam unstressed (the foot below the hip, 0.11 above the ground); rho_inf = 0,
-- h = 5e-5, r = 0.15, T = 1 s (two periods of the drive); the paper's Figure 6
-- plots the percussions P_F and +-mu P_N.
--
--   build/ricochet run scripts/papers/capobianco2021_guided_hopper.lua --out out/hopper   (+ figure.svg)
-- Parameters (each checked): h (5e-5, > 0), T (1, > 0), rho_inf (0, in [0, 1]),
-- prox_r (0.15, >= 0), y0 (0.31, > 0.2), mu (0.2, >= 0), tol (1e-6, > 0: the Newton tolerance).
-- newton_jacobian ("auto", "analytic" or "differences": the Newton Jacobian of gen-alpha, docs/theory/gen-alpha-friction.md).
local rc = require "ricochet"

local h      = rc.param("h", 5e-5, { above = 0 })
local T      = rc.param("T", 1.0, { above = 0 })
local rho    = rc.param("rho_inf", 0.0, { min = 0, max = 1 })
local prox_r = rc.param("prox_r", 0.15, { min = 0 })
local jac    = rc.param("newton_jacobian", "auto", { one_of = { "auto", "analytic", "differences" } })   -- gen-alpha's Newton Jacobian
local y0     = rc.param("y0", 0.31, { above = 0.2 })
local mu     = rc.param("mu", 0.2, { min = 0 })
local tol    = rc.param("tol", 1e-6, { above = 0 })
local M, m, L, thS, g = 3.0, 1.56, 0.2, 8.5e-3, 9.81
local EA, EI, rho_l = 1.89e7, 14.2, 0.71
local pi, cos, sin = math.pi, math.cos, math.sin

local function alpha(t) return pi / 3 - pi / 30 * (1 - cos(4 * pi * t)) end
local function dalpha(t) return -pi / 30 * 4 * pi * sin(4 * pi * t) end
local a0 = alpha(0)

local w = rc.world{ gravity = { 0, -g } }
-- the rod's frame: e_x from H to K, at angle theta = alpha - pi/2 (alpha from the downward vertical)
local H = { 0, y0 }
local K = { H[1] + L * sin(a0), H[2] - L * cos(a0) }
local P = { H[1], H[2] - 2 * L * cos(a0) }
local main = w:body{ name = "main", mass = M, inertia = 1.0, q = { H[1], H[2], 0 } }
local rod = w:body{ name = "rod", mass = m, inertia = thS, q = { (H[1] + K[1]) / 2, (H[2] + K[2]) / 2, a0 - pi / 2 } }
w:prismatic{ w.ground, main, axis = { 0, 1 }, at = H, name = "guide" }
w:revolute{ main, rod, point_a = { 0, 0 }, point_b = { -L / 2, 0 }, name = "hip" }
w:prescribe{ rod, coord = "theta", relative_to = main, f = function(t) return alpha(t) - pi / 2 end, df = dalpha, name = "drive" }
local leg = w:beam{ name = "leg", from = K, to = P, EA = EA, EI = EI, rho = rho_l, elements = 2, degree = 2, quadrature = 5,
                    gravity = true }
local knee = w:beam_joint{ beam = leg, xi = 0, body = rod, point = { L / 2, 0 }, axis = { -1, 0 }, name = "knee",
                           angle = function(t) return pi - 2 * alpha(t) end,
                           angle_rate = function(t) return -2 * dalpha(t) end }
local n = leg.n
-- r(1) is the last control point (coordinates n - 1, n): g_N = y_P, gamma_F = v_x of P
w:gap{ leg, index = { n - 1, n }, normal = { 0, 1 }, tangent = { 1, 0 }, law = rc.newton{ e = 0, mu = mu }, name = "foot" }

local sim = w:simulation{ scheme = "gen-alpha", variant = "capobianco2021", rho_inf = rho, h = h, prox_r = prox_r, newton_jacobian = jac,
                          solver = { tol = tol } }
-- per step: the foot's gap and percussions, the knee's violation, the cone,
-- the contact bursts (P_N > p_min: the filtered percussion of rho_inf = 0
-- decays to round-off, 1e-26 and below, after a lift-off)
local p_min = 1e-12
local min_gap, knee_max, cone_excess, unconverged, steps = math.huge, 0, -math.huge, 0, 0
local newton_max, newton_sum = 0, 0
local bursts, on_since = {}, nil
local t_cpu = os.clock()
sim:after_step(function(s)
  steps = steps + 1
  local c = s:contact("foot")
  local _, yP = leg:beam_point(1)
  min_gap = math.min(min_gap, yP)
  local kg = knee:get().g
  knee_max = math.max(knee_max, math.abs(kg[1]), math.abs(kg[2]), math.abs(kg[3]))
  local pN, pT = c and c.pN or 0, c and c.pT or 0
  cone_excess = math.max(cone_excess, math.abs(pT) - mu * pN)
  local info = s:info()
  if not info.converged then unconverged = unconverged + 1 end
  local it = info.iterations or 0
  newton_max, newton_sum = math.max(newton_max, it), newton_sum + it
  local on = pN > p_min
  if on and not on_since then on_since = s.t - h end
  if not on and on_since then bursts[#bursts + 1] = { on_since, s.t - h }; on_since = nil end
end)
local summary = sim:run{ T = T }
t_cpu = os.clock() - t_cpu
if on_since then bursts[#bursts + 1] = { on_since, nil } end
-- stance phases: bursts separated by flights shorter than 10 ms (the leg's bounces) are one
local stances = {}
for _, b in ipairs(bursts) do
  local last = stances[#stances]
  if last and last[2] and b[1] - last[2] < 0.01 then last[2] = b[2]; last.bursts = last.bursts + 1
  else stances[#stances + 1] = { b[1], b[2], bursts = 1 } end
end
local desc = {}
for i, st in ipairs(stances) do
  desc[i] = string.format("[%.4f, %s] (%d contact bursts)", st[1], st[2] and string.format("%.4f", st[2]) or "end", st.bursts)
end
io.write(string.format(
  "guided hopper (h = %g, rho_inf = %g, r = %g): %d steps in %.1f s CPU; stance phases (touchdown, lift-off) %s; " ..
  "lowest foot %.3e m; knee |g| <= %.2e; |P_F| - mu P_N <= %.2e; Newton steps max %d avg %.2f; unconverged steps %d\n",
  h, rho, prox_r, steps, t_cpu, table.concat(desc, ", "), min_gap, knee_max, cone_excess, newton_max, newton_sum / steps,
  unconverged))
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local pmu, mmu = {}, {}
  for i = 1, #hc.t do pmu[i], mmu[i] = mu * hc["foot.pN"][i], -mu * hc["foot.pN"][i] end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("Guided hopper (Capobianco et al. 2021, Fig. 6), h = %g", h),
            panels = { { title = "foot percussions: P_F between -mu P_N and mu P_N",
                         series = { { name = "P_F", y = hc["foot.pT"] }, { name = "mu P_N", y = pmu }, { name = "-mu P_N", y = mmu } },
                         ylabel = "[N s]" },
                       { title = "hip height y", series = { { name = "y", y = hc["main.y"] } }, ylabel = "[m]" } } }
end
return { steps = steps, cpu = t_cpu, bursts = bursts, stances = stances, newton_max = newton_max, newton_avg = newton_sum / steps, min_gap = min_gap, knee_max = knee_max,
         cone_excess = cone_excess, unconverged = unconverged, summary = summary }
