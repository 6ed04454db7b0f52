-- A box released at rest on an inclined plane. Coulomb friction holds it while the
-- required tangential impulse fits in the cone, tan(alpha) <= mu; otherwise it slides
-- down with the constant acceleration a = g (sin(alpha) - mu cos(alpha)).
--   build/ricochet run scripts/examples/incline.lua --set alpha=20 --set mu=0.5
local rc = require "ricochet"

local alpha = math.rad(rc.param("alpha", 30.0))    -- slope angle, degrees
local mu    = rc.param("mu", 0.2)
local T     = rc.param("T", 1.0)
local g = 9.81

local w = rc.world{ gravity = { 0, -g } }
local n = { -math.sin(alpha), math.cos(alpha) }    -- outward normal of the plane
local s = { -math.cos(alpha), -math.sin(alpha) }   -- unit vector pointing down the slope
w:halfplane{ point = { 0, 0 }, normal = n }
-- a 0.4 x 0.2 box rotated by alpha, its centre 0.1 above the plane less a hair, so that
-- the rounded gaps of both bottom corners are <= 0 and eq. (64) activates them at once
local d = 0.1 - 1e-12
local box = w:body{ name = "box", mass = 1, inertia = (0.16 + 0.04) / 12,
                    q = { d * n[1], d * n[2], alpha }, shape = rc.box{ 0.4, 0.2 } }
w:contact{ w.ground, box, law = rc.newton{ e = 0, mu = mu }, name = "C" }
local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
local summary = sim:run{ T = T }

local v = box:v()
local a = (v[1] * s[1] + v[2] * s[2]) / sim.t      -- down-slope velocity / t: acceleration
local verdict = a > 1e-9 and "slides" or "sticks"
local a_expected = math.max(0, g * (math.sin(alpha) - mu * math.cos(alpha)))
print(string.format("alpha = %g deg, mu = %g: %s (tan(alpha) = %.4f), a = %.6f, g (sin - mu cos) = %.6f",
                    math.deg(alpha), mu, verdict, math.tan(alpha), a, a_expected))
return { verdict = verdict, a = a, a_expected = a_expected, summary = summary }
