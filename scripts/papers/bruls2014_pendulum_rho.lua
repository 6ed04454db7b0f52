-- Bruls, Acary & Cardona 2014, section 10.2 (Fig. 13): after an impact the
-- smooth multiplier lambda~ of the pendulum's pivot oscillates from step to
-- step (the impact violates the hidden acceleration-level constraint), and the
-- numerical damping of the generalized-alpha method, set by rho_inf, decides how
-- fast the oscillation dies out. This script runs the pendulum of
-- bruls2014_pendulum.lua (m = 1, J = 0.1, l = 1, g = 10, e = 0.8, obstacle at
-- x = sqrt(2)/2, theta0 = pi/12) under scheme = "gen-alpha" for rho_inf = 0, 0.5,
-- 0.8 and 1 and measures, after the first impact, the step-to-step jump of
-- lambda~ (its x component) A_k = |lambda~_{k+1} - lambda~_k|, k steps after the
-- impact step, and its decay ratio (A_7 / A_2)^(1/5): rho_inf = 1 keeps it
-- (no numerical dissipation), smaller rho_inf damps it faster, rho_inf = 0
-- leaves none after the first step.
--
--   build/ricochet run scripts/papers/bruls2014_pendulum_rho.lua --out out/pendulum_rho
-- writes lambda.csv (t and lambda~_x for each rho_inf) and figure.svg.
-- Parameters (each checked): h (1e-3, > 0), T (1, > 0: past the first impact at 0.487 s).
local rc = require "ricochet"

local h = rc.param("h", 1e-3, { above = 0 })
local T = rc.param("T", 1.0, { above = 0 })
local rhos = { 0, 0.5, 0.8, 1 }

local function run(rho)
  local th0 = math.pi / 12
  local w = rc.world{ gravity = { 0, -10 } }
  w:halfplane{ point = { math.sqrt(2) / 2, 0 }, normal = { 1, 0 } }
  local bob = w:body{ mass = 1, inertia = 0.1, q = { math.cos(th0), math.sin(th0), th0 }, shape = rc.point{ 0, 0 } }
  local pivot = w:revolute{ w.ground, bob, point_a = { 0, 0 }, point_b = { -1, 0 } }
  w:contact{ w.ground, bob, law = rc.newton{ e = 0.8, mu = 0 }, name = "C" }
  local sim = w:simulation{ scheme = "gen-alpha", rho_inf = rho, h = h, solver = { tol = 1e-12 } }
  local t, lx, k0 = {}, {}, nil
  for k = 1, math.floor(T / h + 0.5) do   -- sim:step: --out is this script's own folder
    sim:step()
    t[k], lx[k] = sim.t, pivot:info().smooth[1]
    local c = sim:contact("C")
    if not k0 and c and c.pN > 0 then k0 = k end
  end
  w:close()
  if not k0 then error("no impact before T = " .. T .. " s: give a larger T") end
  local A = {}
  for j = 1, 8 do A[j] = math.abs(lx[k0 + j + 1] - lx[k0 + j]) end
  return { t = t, lx = lx, k0 = k0, A = A, ratio = (A[7] / A[2]) ^ (1 / 5) }
end

local res = {}
for i, rho in ipairs(rhos) do
  res[i] = run(rho)
  local r = res[i]
  io.write(string.format("rho_inf = %-3g first impact in the step ending at t = %.3f s; jumps of lambda~_x after it: %s; decay ratio %.3f\n",
                         rho, r.t[r.k0], (function()
                           local s = {}
                           for j = 1, 8 do s[j] = string.format("%.3g", r.A[j]) end
                           return table.concat(s, " ")
                         end)(), r.ratio))
end

local out = rc.options().out
if out then
  os.execute("mkdir -p '" .. out .. "'")
  local f = assert(io.open(out .. "/lambda.csv", "w"))
  f:write("t,lambda_x_rho0,lambda_x_rho0.5,lambda_x_rho0.8,lambda_x_rho1\n")
  for k = 1, #res[1].t do
    f:write(string.format("%.17g,%.17g,%.17g,%.17g,%.17g\n", res[1].t[k], res[1].lx[k], res[2].lx[k], res[3].lx[k], res[4].lx[k]))
  end
  f:close()
  -- the window around the first impact: 10 steps before, 40 after
  local k0, x, series = res[1].k0, {}, {}
  for i = 1, #rhos do series[i] = { name = "rho_inf = " .. rhos[i], y = {} } end
  for k = math.max(1, k0 - 10), math.min(#res[1].t, k0 + 40) do
    x[#x + 1] = res[1].t[k]
    for i = 1, #rhos do series[i].y[#x] = res[i].lx[k] end
  end
  require("ricochet.plot").svg{ file = out .. "/figure.svg", x = x, xlabel = "t [s]",
    title = string.format("pendulum (Bruls et al. 2014, Fig. 13): the pivot's smooth multiplier after the first impact, h = %g", h),
    panels = { { title = "lambda~_x of the pivot", series = series, ylabel = "lambda~ [N]" } } }
end
return { rho = rhos, results = res }
