-- Moreau 2004, section 1.2: a rod wedged between two walls that converge
-- upward, with Coulomb friction at its ends A and B: the contact forces of a
-- rigid, statically indeterminate system depend on its history ("forces as
-- part of the state"), which the warm start of NSGS carries.
--
-- Rod AB horizontal, L = 1, m = 1, J = 1/12, g = 9.81; walls tilted by
-- beta = 5 deg from the vertical; mu = 0.3 (phi = atan mu = 16.70 deg); Moreau-Jean,
-- theta = 1/2, e = 0, h = 1e-3 (notes 004, section 3.0). An upward push P at G
-- rises from 1.2 W to 3 W over [0, 1], then falls to -3 W over [1, 3].
-- Analytic (rigid-plastic reasoning): loading slides A and B upward, so the
-- forces sit on the lower cone edges, H = (P - W) / (2 tan(phi + beta)); on
-- unloading the ends stick and H stays at H_max = 24.6524 until
-- P_det = W - (P_max - W) tan(phi - beta) / tan(phi + beta) = -0.0408 W. Without
-- the warm start (forces not kept) the rod falls as soon as P < W.
-- Released at rest without a push, the rod has two motions (the paper's
-- figure 1): it falls (the zero guess finds it), or it stays wedged with
-- R_A = (H, m g / 2), R_B = (-H, m g / 2) for any H >= H_min =
-- m g / (2 tan(phi - beta)) = 23.687 N. The one-step problem of the rod at
-- rest is solved `explore` times from random impulses (p_N uniform in
-- [0, explore_scale h], p_T in the cone, random orders, sim:explore): every
-- solution must fall freely or be wedged with H >= H_min.
--   build/ricochet run scripts/papers/moreau2004_wedged_rod.lua --set warm_start=false
-- Parameters: warm_start (true), push (true; false: released at rest without
-- a push), h (1e-3, > 0), T (3, > 0), beta_deg (5, in (0, 45)), mu (0.3,
-- >= 0), explore (200, >= 0: random-guess explorations of the rod at rest),
-- explore_scale (100, > 0: the largest normal force drawn, N).
local rc = require "ricochet"

local warm  = rc.param("warm_start", true)
local push  = rc.param("push", true)
local h     = rc.param("h", 1e-3, { above = 0 })
local T     = rc.param("T", 3.0, { above = 0 })
local beta  = math.rad(rc.param("beta_deg", 5.0, { above = 0, below = 45 }))
local mu    = rc.param("mu", 0.3, { min = 0 })
local nexplore = rc.param("explore", 200, { min = 0 })
local explore_scale = rc.param("explore_scale", 100.0, { above = 0 })
local L, m, g = 1.0, 1.0, 9.81
local W = m * g

local function P(t)   -- the push history
  if not push then return 0 end
  if t <= 1 then return W * (1.2 + 1.8 * t) end
  return W * (3 - 3 * (t - 1))
end

local w = rc.world{ gravity = { 0, -g } }
-- the walls through A = (-L/2, 0) and B = (L/2, 0), leaning inward going up; normals into the gap
w:halfplane{ point = { -L / 2, 0 }, normal = { math.cos(beta), -math.sin(beta) }, name = "left" }
w:halfplane{ point = { L / 2, 0 }, normal = { -math.cos(beta), -math.sin(beta) }, name = "right" }
local rod = w:body{ name = "rod", mass = m, inertia = m * L * L / 12, q = { 0, 0, 0 },
                    shapes = { rc.point{ -L / 2, 0 }, rc.point{ L / 2, 0 } } }
rod:set_force_fn(function(t) return { 0, P(t), 0 } end)
w:contact{ w.ground, rod, law = rc.newton{ e = 0, mu = mu }, name = "C" }

local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                          solver = { "nsgs", tol = 1e-13, max_iter = 10000, warm_start = warm } }
-- the force on the rod at A (contact with the left wall): R = (pN n + pT t) / h
local function force_at(x_end)
  for _, c in ipairs(sim:contacts()) do
    if c.active and math.abs(c.point[1] - x_end) < 0.25 then
      return (c.pN * c.normal[1] + c.pT * c.tangent[1]) / h, (c.pN * c.normal[2] + c.pT * c.tangent[2]) / h
    end
  end
  return 0, 0
end
local samples, detach_P, first_vy = {}, nil, nil
sim:after_step(function(s)
  if not first_vy then first_vy = rod:v()[2] end
  local HA, VA = force_at(-L / 2)
  local HB, VB = force_at(L / 2)
  local t = s.t - h   -- the push was evaluated at t_k + theta h
  samples[#samples + 1] = { t = t, P = P(t + 0.5 * h), HA = HA, VA = VA, HB = HB, VB = VB }
  -- detached: after the loading, the first step in which neither end carries an impulse
  if not detach_P and t > 1 and HA == 0 and VA == 0 and HB == 0 and VB == 0 then detach_P = P(t + 0.5 * h) end
end)
local summary = sim:run{ T = T }
local function H_at(Pval)   -- H when the push reaches Pval on the loading ramp (and the push it had)
  local last
  for _, s in ipairs(samples) do
    if s.t < 1 then
      last = s
      if s.P >= Pval then return s.HA, s.P end
    end
  end
  return last and last.HA, last and last.P
end
-- the loading law H = (P - W) / (2 tan(phi + beta)), checked at every loading step after the first 10 %
local phi = math.atan(mu)
local load_error = 0
for _, s in ipairs(samples) do
  if s.t > 0.1 and s.t < 1 then
    local He = (s.P - W) / (2 * math.tan(phi + beta))
    load_error = math.max(load_error, math.abs(s.HA - He) / He)
  end
end
local H21 = H_at(2.1 * W)
local H3 = H_at(3 * W)
-- the rod at rest, no push: random-guess explorations of its one-step problem
local wedged, falling, other, H_lo, H_hi, worst_balance, explore_failures = 0, 0, 0, math.huge, -math.huge, 0, 0
local phi_ = math.atan(mu)
local H_min = W / (2 * math.tan(phi_ - beta))
if nexplore > 0 then
  local w2 = rc.world{ gravity = { 0, -g } }
  w2:halfplane{ point = { -L / 2, 0 }, normal = { math.cos(beta), -math.sin(beta) } }
  w2:halfplane{ point = { L / 2, 0 }, normal = { -math.cos(beta), -math.sin(beta) } }
  local rod2 = w2:body{ mass = m, inertia = m * L * L / 12, q = { 0, 0, 0 },
                        shapes = { rc.point{ -L / 2, 0 }, rc.point{ L / 2, 0 } } }
  w2:contact{ w2.ground, rod2, law = rc.newton{ e = 0, mu = mu } }
  local sim2 = w2:simulation{ scheme = "moreau-jean", theta = 0.5, h = h, solver = { "nsgs", tol = 1e-13, max_iter = 100000 } }
  for k = 1, nexplore do
    local cs, solve = sim2:explore{ guess = "random", scale = explore_scale * h, order = "random", seed = k }
    if not solve.converged then explore_failures = explore_failures + 1 end
    local R = {}
    for _, c in ipairs(cs) do
      R[c.point[1] < 0 and "A" or "B"] = { (c.pN * c.normal[1] + c.pT * c.tangent[1]) / h,
                                          (c.pN * c.normal[2] + c.pT * c.tangent[2]) / h, c.pN, c.uN }
    end
    local A, B = R.A, R.B
    if A[3] == 0 and B[3] == 0 then
      falling = falling + 1
    elseif A[3] > 0 and B[3] > 0 and math.abs(A[4]) < 1e-9 and math.abs(B[4]) < 1e-9 then
      wedged = wedged + 1
      local H = A[1]
      H_lo, H_hi = math.min(H_lo, H), math.max(H_hi, H)
      worst_balance = math.max(worst_balance, math.abs(A[2] - W / 2), math.abs(B[2] - W / 2), math.abs(A[1] + B[1]))
    else
      other = other + 1
    end
  end
end

io.write(string.format("wedged rod (warm start %s): first v_y = %.6g (free fall -g h = %.6g); H at P = 2.1 W: %s (13.5588); " ..
  "H at the end of the loading: %s (24.6524 at 3 W); largest relative deviation from the loading law %.2e; " ..
  "detaches at P = %s W (warm: -0.0408 W, cold: 1 W)\n",
  tostring(warm), first_vy, -g * h, H21 and string.format("%.4f", H21) or "-", H3 and string.format("%.4f", H3) or "-",
  load_error,
  detach_P and string.format("%.4f", detach_P / W) or "-"))
if nexplore > 0 then
  io.write(string.format("released at rest, %d random guesses (p_N up to %g N x h, %d not converged): %d fall freely, %d stay wedged " ..
    "with H from %.4f to %.2f N (H_min = %.4f N; R_A,y = R_B,y = m g / 2 and R_A,x = -R_B,x to %.1e N), %d other\n",
    nexplore, explore_scale, explore_failures, falling, wedged, wedged > 0 and H_lo or 0, wedged > 0 and H_hi or 0, H_min,
    worst_balance, other))
end
return { explore = { wedged = wedged, falling = falling, other = other, H_lo = H_lo, H_hi = H_hi, H_min = H_min,
                     worst_balance = worst_balance, failures = explore_failures },
         first_vy = first_vy, H21 = H21, H3 = H3, load_error = load_error, detach = detach_P and detach_P / W, samples = samples,
         summary = summary }
