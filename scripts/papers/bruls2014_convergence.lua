-- Bruls, Acary & Cardona 2014: the measured order of convergence of the
-- nonsmooth generalized-alpha scheme (scheme = "gen-alpha") against Moreau--Jean
-- (theta = 1/(1 + rho_inf), the paper's comparison), h halved 5 times from h0.
--
-- Smooth phase: the pendulum of section 10.2 (m = 1, J = 0.1, l = 1, g = 10,
-- released from rest at theta0 = pi/12) swinging freely to T_smooth = 0.5 s,
-- before it reaches the obstacle (0.67 s); the error is |theta(T) - theta_ref|
-- + |omega(T) - omega_ref| against a run of the same scheme with h0 / 2^8.
-- With impacts: the bouncing ball of section 10.1 (e = 0.8, released at
-- h0 = 1.001 m) to T_impact = 1.5 s (after its first two impacts at 0.4003 s and
-- 1.0406 s); the error is |y(T) - y(T)| + |v(T) - v(T)| against the analytic
-- solution (free flight between the impacts t_{k+1} = t_k + 2 e^k v1 / g).
-- The order is the slope of log(error) against log(h), fitted by least squares
-- over the 6 step sizes.
--
--   build/ricochet run scripts/papers/bruls2014_convergence.lua --out out/convergence
-- writes convergence.csv and figure.svg (log10 error against log10 h) in the out folder.
-- Parameters (each checked): h0 (1e-2, > 0: the largest step), levels (6, in [3, 8]:
-- the step sizes h0, h0/2, ...), rho_inf (0.8, in [0, 1]).
local rc = require "ricochet"

local h0     = rc.param("h0", 1e-2, { above = 0 })
local levels = rc.param("levels", 6, { min = 3, max = 8 })
local rho    = rc.param("rho_inf", 0.8, { min = 0, max = 1 })
local theta  = 1 / (1 + rho)
local T_smooth, T_impact = 0.5, 1.5

-- T / h steps (sim:step: the program's --out is this script's own folder)
local function advance(sim, T, h)
  for _ = 1, math.floor(T / h + 0.5) do sim:step() end
end

local function simulation(w, scheme, h)
  if scheme == "gen-alpha" then
    return w:simulation{ scheme = scheme, rho_inf = rho, h = h, solver = { tol = 1e-13 } }
  end
  return w:simulation{ scheme = scheme, theta = theta, h = h, solver = { "nsgs", tol = 1e-13, max_iter = 1000 } }
end

-- the pendulum's (theta, omega) at T_smooth
local function pendulum(scheme, h)
  local th0 = math.pi / 12
  local w = rc.world{ gravity = { 0, -10 } }
  local bob = w:body{ mass = 1, inertia = 0.1, q = { math.cos(th0), math.sin(th0), th0 } }
  w:revolute{ w.ground, bob, point_a = { 0, 0 }, point_b = { -1, 0 } }
  local sim = simulation(w, scheme, h)
  advance(sim, T_smooth, h)
  local q, v = bob:q(), bob:v()
  w:close()
  return q[3], v[3]
end

-- the ball's (y, v) at T_impact, and the analytic ones
local R, e, g, y0 = 0.2, 0.8, 10.0, 1.001
local function ball(scheme, h)
  local w = rc.world{ gravity = { 0, -g } }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  local b = w:body{ mass = 1, inertia = 0.016, q = { 0, y0, 0 }, shape = rc.disk{ radius = R } }
  w:contact{ w.ground, b, law = rc.newton{ e = e, mu = 0 } }
  local sim = simulation(w, scheme, h)
  advance(sim, T_impact, h)
  local y, v = b:q()[2], b:v()[2]
  w:close()
  return y, v
end

local function ball_exact(T)
  local t, v = math.sqrt(2 * (y0 - R) / g), math.sqrt(2 * g * (y0 - R))   -- first impact
  if T < t then return y0 - g * T * T / 2, -g * T end
  while true do   -- after the impact at t the ball leaves with e v
    v = e * v
    local dt = 2 * v / g
    if T < t + dt then
      local s = T - t
      return R + v * s - g * s * s / 2, v - g * s
    end
    t = t + dt
  end
end

-- least-squares slope of log(err) against log(h)
local function slope(hs, errs)
  local n, sx, sy, sxx, sxy = #hs, 0, 0, 0, 0
  for i = 1, n do
    local x, y = math.log(hs[i]), math.log(errs[i])
    sx, sy, sxx, sxy = sx + x, sy + y, sxx + x * x, sxy + x * y
  end
  return (n * sxy - sx * sy) / (n * sxx - sx * sx)
end

local hs = {}
for k = 1, levels do hs[k] = h0 / 2 ^ (k - 1) end
local yb, vb = ball_exact(T_impact)
local cases = {}
for _, scheme in ipairs({ "gen-alpha", "moreau-jean" }) do
  local th_ref, om_ref = pendulum(scheme, h0 / 2 ^ 8)
  local smooth, impact = {}, {}
  for k, h in ipairs(hs) do
    local th, om = pendulum(scheme, h)
    smooth[k] = math.abs(th - th_ref) + math.abs(om - om_ref)
    local y, v = ball(scheme, h)
    impact[k] = math.abs(y - yb) + math.abs(v - vb)
  end
  cases[scheme] = { smooth = smooth, impact = impact, p_smooth = slope(hs, smooth), p_impact = slope(hs, impact) }
end

local out = rc.options().out
local lines = { "h,gen_alpha_smooth,moreau_jean_smooth,gen_alpha_impact,moreau_jean_impact" }
for k, h in ipairs(hs) do
  local ga, mj = cases["gen-alpha"], cases["moreau-jean"]
  lines[#lines + 1] = string.format("%.17g,%.17g,%.17g,%.17g,%.17g", h, ga.smooth[k], mj.smooth[k], ga.impact[k], mj.impact[k])
end
for _, scheme in ipairs({ "gen-alpha", "moreau-jean" }) do
  local c = cases[scheme]
  local errs = {}
  for k = 1, #hs do errs[k] = string.format("%.2e/%.2e", c.smooth[k], c.impact[k]) end
  io.write(string.format("%-11s order %.2f in the smooth phase (pendulum, T = %g s), %.2f with impacts (ball, T = %g s); errors smooth/impact: %s\n",
                         scheme, c.p_smooth, T_smooth, c.p_impact, T_impact, table.concat(errs, " ")))
end
if out then
  os.execute("mkdir -p '" .. out .. "'")
  local f = assert(io.open(out .. "/convergence.csv", "w"))
  f:write(table.concat(lines, "\n"), "\n")
  f:close()
  local plot = require "ricochet.plot"
  local lh, s = {}, {}
  for k, h in ipairs(hs) do lh[k] = math.log(h, 10) end
  local function logs(t) local r = {}; for k, x in ipairs(t) do r[k] = math.log(x, 10) end; return r end
  for _, scheme in ipairs({ "gen-alpha", "moreau-jean" }) do
    s[scheme] = { smooth = logs(cases[scheme].smooth), impact = logs(cases[scheme].impact) }
  end
  plot.svg{ file = out .. "/figure.svg", x = lh, xlabel = "log10 h [s]",
            title = "order of convergence (Bruls et al. 2014): log10 error against log10 h",
            panels = { { title = string.format("smooth phase (pendulum): gen-alpha %.2f, Moreau-Jean %.2f",
                                               cases["gen-alpha"].p_smooth, cases["moreau-jean"].p_smooth),
                         series = { { name = "gen-alpha", y = s["gen-alpha"].smooth }, { name = "moreau-jean", y = s["moreau-jean"].smooth } },
                         ylabel = "log10 error" },
                       { title = string.format("with impacts (ball): gen-alpha %.2f, Moreau-Jean %.2f",
                                               cases["gen-alpha"].p_impact, cases["moreau-jean"].p_impact),
                         series = { { name = "gen-alpha", y = s["gen-alpha"].impact }, { name = "moreau-jean", y = s["moreau-jean"].impact } },
                         ylabel = "log10 error" } } }
end
return { h = hs, cases = cases }
