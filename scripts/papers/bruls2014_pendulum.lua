-- Bruls, Acary & Cardona 2014, section 10.2: a rigid pendulum with a
-- bilateral pivot and a unilateral obstacle, here with the Moreau--Jean
-- scheme (the paper's comparison scheme, eq. 50) or (scheme = "gen-alpha")
-- the paper's nonsmooth generalized-alpha scheme.
--
-- q = (x, y, theta), m = 1, J = 0.1, l = 1, g = 10. The pivot at the origin is
-- the body point (-l, 0): g = (x - l cos theta, y - l sin theta) = 0 (a
-- revolute joint). Released from rest at theta0 = pi/12, it swings clockwise
-- and hits the obstacle x >= sqrt(2)/2 at theta = -pi/4 (e = 0.8), bouncing
-- with a geometric sequence of impacts until it rests on it at the
-- accumulation time t_acc = 5.0540 s (quadrature of the 1-dof motion between
-- impacts, tests/spec/bruls_reference.lua; an event-driven RK4 gives the same to
-- 3e-6). theta = 1/(1 + rho_inf) = 0.5556 with rho_inf = 0.8, h = 1e-3; the
-- obstacle is activated by the anticipating index set (g + h u_N / 2 <= 0,
-- the paper's q* = q_n + (h/2) v_n).
--
-- Analytic figures (../shared/notes/002, section 4.2): first impact impulse
-- P = J_O (1 + e) |theta_dot-| / (sqrt 2 / 2) = 11.7346 N s with
-- J_O = J + m l^2 = 1.1; at rest the obstacle pushes with 10 N and the pivot
-- with (-10, 10) N.
--
-- As the paper ran it, which is the kernel's default: the pivot's rows
-- H(q*) v_{k+1} = 0 at the predicted end of the step q* = q_k + h v_k
-- (eq. 50c, joint_jacobian = "end"), no position projection, so the pivot
-- drifts (the paper's Fig. 12) and the rows do work W_J = (1 - theta)
-- (H(q*) v_k)^T lambda (numerical dissipation, O(h)). project=true adds the
-- kernel's projection (an option, not in the paper: it moves q back onto the
-- joint and rescales v to give the energy back; E_proj is what it would have
-- changed otherwise, W_proj what it changed after all).
--
--   build/ricochet run scripts/papers/bruls2014_pendulum.lua --set h=1e-4 --out out/pendulum   (+ figure.svg)
-- Parameters (each checked): h (1e-3, > 0), theta (1/1.8, in [0, 1]), T (7,
-- > 0), e (0.8, in [0, 1]), scheme ("moreau-jean", "moreau-jean-fremond" or
-- "gen-alpha": the paper's own scheme, docs/theory/gen-alpha.md: the pivot at
-- position and velocity level, no drift; the obstacle's gap never negative),
-- rho_inf (0.8, in [0, 1]: gen-alpha's; strategy "monolithic" or "sequential" (Algorithm 1); theta and the joint options are then unused),
-- project (false), joint_jacobian ("" for the kernel's default, "start",
-- "midpoint" or "end"), activation ("anticipate" or "gap"), still (1e-6,
-- > 0: the motion has stopped once |omega| stays below it).
local rc = require "ricochet"

local h       = rc.param("h", 1e-3, { above = 0 })
local theta   = rc.param("theta", 1 / 1.8, { min = 0, max = 1 })
local T       = rc.param("T", 7.0, { above = 0 })
local e       = rc.param("e", 0.8, { min = 0, max = 1 })
local scheme  = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "moreau-jean-fremond", "gen-alpha" } })
local rho_inf = rc.param("rho_inf", 0.8, { min = 0, max = 1 })   -- gen-alpha only
local strategy = rc.param("strategy", "monolithic", { one_of = { "monolithic", "sequential" } })   -- gen-alpha: Newton on (44) or Algorithm 1
local project = rc.param("project", false)
local jac     = rc.param("joint_jacobian", "", { one_of = { "", "start", "midpoint", "end" } })   -- "": the kernel's default
local activation = rc.param("activation", "anticipate", { one_of = { "anticipate", "gap" } })   -- g + h u_N / 2 <= 0 (the paper's q*); or "gap"

local m, J, l, g = 1.0, 0.1, 1.0, 10.0
local th0 = math.pi / 12
local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { math.sqrt(2) / 2, 0 }, normal = { 1, 0 }, name = "obstacle" }
local bob = w:body{ name = "bob", mass = m, inertia = J,
                    q = { l * math.cos(th0), l * math.sin(th0), th0 }, shape = rc.point{ 0, 0 } }
local pivot = w:revolute{ w.ground, bob, point_a = { 0, 0 }, point_b = { -l, 0 }, name = "pivot" }
w:contact{ w.ground, bob, law = rc.newton{ e = e, mu = 0 }, name = "C" }

local sim
if scheme == "gen-alpha" then   -- the paper's own scheme: the pivot at position and velocity level, no drift
  sim = w:simulation{ scheme = scheme, rho_inf = rho_inf, strategy = strategy, h = h, solver = { tol = 1e-12 } }
else
  sim = w:simulation{ scheme = scheme, theta = theta, h = h, project_joints = project, activation = activation,
                      joint_jacobian = jac ~= "" and jac or nil,
                      solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }
end
-- the first impact's impulse; the impacts (a step with an impulse after one without); the
-- rest time: from when on |omega| < still (the motion has stopped; at rest the contact takes
-- an impulse every step and u_N flips sign, x (-e), which is not an impact); the largest
-- joint drift and penetration
local still = rc.param("still", 1e-6, { above = 0 })
local first_impulse, last_impact, impacts, t_rest = nil, nil, 0, nil
local max_drift, max_vdrift, pushed, penetration, max_iter = 0, 0, false, 0, 0
sim:after_step(function(s)
  local c = s:contact("C")
  local info = s:info()
  max_drift = math.max(max_drift, info.joint_pos_violation)
  max_vdrift = math.max(max_vdrift, info.joint_vel_violation)
  max_iter = math.max(max_iter, info.iterations)
  penetration = math.max(penetration, math.sqrt(2) / 2 - bob:q()[1])   -- the obstacle's g = x - sqrt(2)/2
  local now = c.active and c.pN > 0
  if now and not first_impulse then first_impulse = c.pN end
  if now and not pushed then impacts = impacts + 1; last_impact = s.t end
  pushed = now
  if math.abs(bob:v()[3]) >= still then t_rest = nil
  elseif not t_rest then t_rest = s.t end
end)
local summary = sim:run{ T = T }
local c = sim:contact("C")
local f = pivot:force()
local info = sim:info()
io.write(string.format(
  "pendulum (joint rows at %s, projection %s): first impact impulse %.6f N s (analytic 11.7346), %d impacts, the last at t = %.4f s, " ..
  "at rest (|omega| < %g) from t = %.4f s (accumulation t_acc = 5.0540), " ..
  "rest: contact force %.6f N (10), pivot force (%.6f, %.6f) N ((-10, 10)), joint drift max %.2e, largest penetration %.3e, " ..
  "projection: changed E by %.3e J before the velocity rescaling, %.3e J after; " ..
  "joint work W_J %.4e J, E at the end %.6f J (at rest on the obstacle: -7.071068)\n",
  sim.joint_jacobian, project and "on" or "off", first_impulse or 0 / 0, impacts, last_impact or 0 / 0, still, t_rest or 0 / 0,
  c.pN / h, f[1], f[2], max_drift, penetration, info.E_proj_total, info.W_proj_total, info.W_J_total, info.E))
-- the figure beside the history (with --out): the angle, the obstacle's impulse, the energy E
-- and the joint work W_J (ricochet.plot, docs/viewing.md)
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local function s(name) return { name = name, y = hc[name] } end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("pendulum on an obstacle (Bruls et al. 2014), h = %g", h),
            panels = { { title = "angle", series = { s("bob.theta") }, ylabel = "theta [rad]" },
                       { title = "obstacle", series = { s("C.pN") }, ylabel = "impulse [N s]" },
                       { title = "energy", series = { s("E"), s("W_J") }, ylabel = "energy, work [J]" } } }
end
return { first_impulse = first_impulse, impacts = impacts, last_impact = last_impact, t_rest = t_rest,
         contact_force = c.pN / h, pivot_force = f, max_drift = max_drift, max_vdrift = max_vdrift, max_iter = max_iter, penetration = penetration, summary = summary,
         E_proj = info.E_proj_total, W_proj = info.W_proj_total, W_J = info.W_J_total, E = info.E }
