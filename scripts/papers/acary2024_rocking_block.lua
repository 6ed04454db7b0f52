-- Acary & Collins-Craft 2024, section 5.2: a rigid block rocking on the ground.
--
-- Block of width b = 1, height l = 1, mass m = 1 (inertia m (b^2 + l^2) / 12),
-- gravity g = 10, Newton restitution e = 1, Coulomb friction mu = 0.1.
-- q0 = (0, 0.6, 0), v0 = (0, -0.2, 1): the bottom face starts 0.1 above the
-- ground, falling and spinning counter-clockwise. Simulated on [0, 1] with
-- h = 1e-4, theta = 0.5, NSGS tolerance 1e-10.
--
-- Conventions: q = (x, y, theta) with theta counter-clockwise, as the paper's
-- gamma. The box vertices are listed counter-clockwise from the bottom-left
-- corner, so the recorded contacts C1 and C2 are the paper's bottom corners
-- C1 (left) and C2 (right); C3, C4 are the top corners. Our tangent is
-- t = (1, 0) on the ground; the paper's code uses t = (-1, 0), so u_T and p_T
-- have the opposite sign of the paper's figures.
--
--   build/ricochet run scripts/papers/acary2024_rocking_block.lua --out out/rb   (+ out/rb/figure.svg)
--   ... --set scheme=moreau-jean-fremond --set theta=1 --set h=1e-3 --set T=2
--   ... --set law=moreau --set e_t=1      (Moreau's law, eq. 58: Fremond for e_t = 1)
-- Parameters (each checked): scheme ("moreau-jean" or "moreau-jean-fremond"),
-- theta (0.5, in [0, 1]), h (1e-4, > 0), T (1.0, > 0), tol (NSGS, 1e-10, > 0),
-- e (1, in [0, 1]), mu (0.1, >= 0), law ("newton", "moreau", "fremond",
-- "lua-coulomb" or "lua-fremond": rc.laws.make), e_t (0, in [0, 1]: the
-- tangential restitution of law = "moreau").
local rc = require "ricochet"

local scheme = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "moreau-jean-fremond" } })
local theta  = rc.param("theta", 0.5, { min = 0, max = 1 })
local h      = rc.param("h", 1e-4, { above = 0 })
local T      = rc.param("T", 1.0, { above = 0 })
local tol    = rc.param("tol", 1e-10, { above = 0 })
local e      = rc.param("e", 1.0, { min = 0, max = 1 })
local mu     = rc.param("mu", 0.1, { min = 0 })
local law    = rc.param("law", "newton", { one_of = { "newton", "moreau", "fremond", "lua-coulomb", "lua-fremond" } })
local e_t    = rc.param("e_t", 0.0, { min = 0, max = 1 })   -- tangential restitution of law=moreau (eq. 58)

local b, l, m = 1.0, 1.0, 1.0
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local block = w:body{
  name = "block", mass = m, inertia = m * (b * b + l * l) / 12,
  q = { 0, 0.6, 0 }, v = { 0, -0.2, 1 },
  shape = rc.box{ b, l },
}
w:contact{ w.ground, block, law = rc.laws.make(law, { e = e, mu = mu, e_t = e_t }), name = "C" }

local sim = w:simulation{
  scheme = scheme, theta = theta, h = h,
  solver = { "nsgs", tol = tol, max_iter = 1000 },
}
local summary = sim:run{ T = T }
-- the figure beside the history (with --out): the block's height and angle, the bottom
-- corners' impulses, the energy (ricochet.plot, docs/viewing.md)
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local function s(name) return { name = name, y = hc[name] } end
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("rocking block (Acary & Collins-Craft 2024), %s, h = %g", scheme, h),
            panels = { { title = "block", series = { s("block.y"), s("block.theta") }, ylabel = "y [m], theta [rad]" },
                       { title = "bottom corners", series = { s("C1.pN"), s("C2.pN") }, ylabel = "impulse [N s]" },
                       { title = "energy", series = { s("E"), s("E_kin"), s("E_pot") }, ylabel = "energy [J]" } } }
end
return summary
