-- Maury 2006, section 6.1: numerical non-uniqueness. One material point on
-- the half-line q >= 0 (mass 1), q(0) = 0, u(0) = 0, pushed by a force that
-- is +1 on the first half and -alpha on the second half of every dyadic
-- interval [a, 2a] (a = 2^-(k+1)), alpha = 1.8, on (0, 4). The problem has two
-- solutions (notes 001 section 3.1): lift-offs at 1, 1/4, 1/16, ... (S_even:
-- q(4) = 0) or at 2, 1/2, 1/8, ... (S_odd: q(4) = 0.6, u(4) = -0.8). Maury's
-- scheme with h = 2^-p converges to S_even for even p and to S_odd for odd p.
--
-- The point is a body with a point contactor above the half-plane y >= 0. The
-- scheme uses the step mean of the force (Maury eq. 13): with theta = 1 the
-- force function is called at t_{k+1} and returns (F(t) - F(t - h)) / h from
-- the exact primitive F.
--   build/ricochet run scripts/papers/maury2006_nonuniqueness.lua --set p=9
-- Parameters: p (8, integer in 1..30: h = 2^-p), T (4, in (0, 4]: the end
-- time; the exact solutions are written on [0, 4]). alpha = 1.8 is the
-- paper's and is fixed: the exact solutions below are for it.
local rc = require "ricochet"

local p     = rc.param("p", 8, { min = 1, max = 30 })
local T     = rc.param("T", 4.0, { above = 0, max = 4 })
local alpha = 1.8
local h = 2.0 ^ -p

-- primitive of f: on [a, 2a) with a = 2^floor(log2 t), F = -0.4a + int_a^t f
-- (the complete dyadic intervals below a add up to (1 - alpha) a / 2)
local function F(t)
  if t <= 0 then return 0 end
  local a = 2.0 ^ math.floor(math.log(t, 2))
  local I = t <= 1.5 * a and (t - a) or (0.5 * a - alpha * (t - 1.5 * a))
  return 0.5 * (1 - alpha) * a + I
end

local w = rc.world{}
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local pt = w:body{ name = "point", mass = 1, inertia = 1, q = { 0, 0, 0 }, shape = rc.point{ 0, 0 },
                   force_fn = function(t) return { 0, (F(t) - F(t - h)) / h, 0 } end }
w:contact{ w.ground, pt, law = rc.newton{ e = 0, mu = 0 }, name = "C" }

-- the two exact solutions: q = a^2 P(t/a) on [a, 4a] after a lift-off at a
local function P(s)
  if s < 1.5 then return 0.5 * (s - 1) ^ 2 end
  if s < 2 then return 0.125 + 0.5 * (s - 1.5) - 0.9 * (s - 1.5) ^ 2 end
  if s < 3 then return 0.15 - 0.4 * (s - 2) + 0.5 * (s - 2) ^ 2 end
  local sstar = 3 + (0.6 + math.sqrt(1.26)) / 1.8
  if s < sstar then return 0.25 + 0.6 * (s - 3) - 0.9 * (s - 3) ^ 2 end
  return 0
end
local function exact(t, first)   -- first lift-off at or after t: 1 (S_even) or 2 (S_odd), divided by 4
  if t <= 0 then return 0 end
  local a = first
  while a > t do a = a / 4 end
  return a * a * P(t / a)
end

local sim = w:simulation{ scheme = "maury", h = h, solver = { "nsgs", tol = 1e-14 } }
local d_even, d_odd = 0, 0
sim:after_step(function(s)
  local q = pt:q()[2]
  d_even = math.max(d_even, math.abs(q - exact(s.t, 1)))
  d_odd = math.max(d_odd, math.abs(q - exact(s.t, 2)))
end)
local summary = sim:run{ T = T }
local q4, u4 = pt:q()[2], pt:v()[2]
io.write(string.format("maury 6.1, h = 2^-%d: q(%g) = %.6f, u(%g) = %.6f; sup distance to S_even %.3e, to S_odd %.3e; %d solver failures\n",
  p, T, q4, T, u4, d_even, d_odd, summary.failures))
return { q4 = q4, u4 = u4, d_even = d_even, d_odd = d_odd, h = h, summary = summary }
