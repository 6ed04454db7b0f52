-- Acary & Collins-Craft 2024, section 5.1: a rigid stick impacting the ground.
--
-- Stick of length l = 1, mass m = 1 (inertia m l^2 / 12), gravity g = 10,
-- Newton restitution e = 1, Coulomb friction mu = 0.01, contact point C at
-- the lower end on the middle fibre. q0 = (l/2 sin(pi/4), l/2 cos(pi/4) +
-- 0.01, pi/4), v0 = (-0.5, 0.1, 0.1); [0, 0.2] with h = 1e-4, theta = 0.5,
-- NSGS tolerance 1e-10: the first two impacts.
--
-- Conventions: q = (x, y, theta), theta counter-clockwise (the paper's gamma).
-- The stick lies along its body y axis and C is the body point (0, -l/2), so
-- C = G + l/2 (sin theta, -cos theta) and the gap is g_N = y - l/2 cos theta,
-- exactly the paper's gap and Jacobian H_N = (0, 1, l/2 sin theta). C starts
-- 0.01 above the ground. Our tangent is t = (1, 0); the paper's code uses
-- t = (-1, 0), so u_T and p_T have the opposite sign of its figures.
--
--   build/ricochet run scripts/papers/acary2024_impacting_stick.lua --out out/stick
-- Parameters (each checked): scheme ("moreau-jean" or "moreau-jean-fremond"),
-- theta (0.5, in [0, 1]), h (1e-4, > 0), T (0.2, > 0), tol (NSGS, 1e-10, > 0),
-- e (1, in [0, 1]), mu (0.01, >= 0), law ("newton", "moreau", "fremond",
-- "lua-coulomb" or "lua-fremond": rc.laws.make), e_t (0, in [0, 1]: the
-- tangential restitution of law = "moreau").
local rc = require "ricochet"

local scheme = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "moreau-jean-fremond" } })
local theta  = rc.param("theta", 0.5, { min = 0, max = 1 })
local h      = rc.param("h", 1e-4, { above = 0 })
local T      = rc.param("T", 0.2, { above = 0 })
local tol    = rc.param("tol", 1e-10, { above = 0 })
local e      = rc.param("e", 1.0, { min = 0, max = 1 })
local mu     = rc.param("mu", 0.01, { min = 0 })
local law    = rc.param("law", "newton", { one_of = { "newton", "moreau", "fremond", "lua-coulomb", "lua-fremond" } })
local e_t    = rc.param("e_t", 0.0, { min = 0, max = 1 })   -- tangential restitution of law=moreau (eq. 58)

local l, m = 1.0, 1.0
local g0 = math.pi / 4
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local stick = w:body{
  name = "stick", mass = m, inertia = m * l * l / 12,
  q = { 0.5 * l * math.sin(g0), 0.5 * l * math.cos(g0) + 0.01, g0 },
  v = { -0.5, 0.1, 0.1 },
  shape = rc.point{ 0, -0.5 * l },
}
w:contact{ w.ground, stick, law = rc.laws.make(law, { e = e, mu = mu, e_t = e_t }), name = "C" }

local sim = w:simulation{
  scheme = scheme, theta = theta, h = h,
  solver = { "nsgs", tol = tol, max_iter = 1000 },
}
return sim:run{ T = T }
