-- A PD loop closed in a before_step callback: a cart on a horizontal rail
-- (prismatic joint) carries a pendulum (revolute joint); the controller
-- pushes the cart to bring the swinging pendulum back to the vertical, and a
-- bumper (a unilateral contact, e = 0.3) stops the cart on its way.
--
--   force on the cart  F = kp phi + kd phi' - kx (x - x0) - kv x'
--
-- phi is the pendulum's angle from the downward vertical (positive when the
-- bob is on the +x side): accelerating the cart towards the bob reduces phi.
--   build/ricochet run scripts/examples/cart_pendulum.lua --set kp=40 --out out/cart
local rc = require "ricochet"

local kp, kd = rc.param("kp", 30.0), rc.param("kd", 8.0)
local kx, kv = rc.param("kx", 4.0), rc.param("kv", 4.0)
local phi0   = rc.param("phi0", 0.6)
local bumper = rc.param("bumper", 0.15)      -- x of the bumper face
local T      = rc.param("T", 12.0)
local L, g = 0.5, 10.0

local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { bumper, 0 }, normal = { -1, 0 }, name = "bumper" }
local cart = w:body{ name = "cart", mass = 1.0, inertia = 0.02, q = { 0, 0, 0 }, shape = rc.box{ 0.2, 0.1 } }
-- the bob hangs below the cart's centre; its pivot is the bob's body point (0, L)
local bob = w:body{ name = "bob", mass = 0.5, inertia = 0.005,
                    q = { L * math.sin(phi0), -L * math.cos(phi0), phi0 } }
w:prismatic{ w.ground, cart, axis = { 1, 0 }, at = { 0, 0 }, name = "rail" }
w:revolute{ cart, bob, point_a = { 0, 0 }, point_b = { 0, L }, name = "hinge" }
w:contact{ w.ground, cart, law = rc.newton{ e = 0.3, mu = 0 }, name = "B" }

local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-10 } }
sim:before_step(function(s)
  local qc, vc, qb, vb = cart:q(), cart:v(), bob:q(), bob:v()
  local F = kp * qb[3] + kd * vb[3] - kx * qc[1] - kv * vc[1]
  cart:set_force{ F, 0, 0 }
end)
local hits, min_gap, bumper_impulse, was_touching = 0, math.huge, 0, false
sim:after_step(function(s)
  local gmin = math.huge
  for k = 1, 4 do
    local c = s:contact("B" .. k)
    gmin = math.min(gmin, c.gN)
    bumper_impulse = bumper_impulse + (c.pN == c.pN and c.pN or 0)
  end
  min_gap = math.min(min_gap, gmin)
  local touching = gmin <= 0
  if touching and not was_touching then hits = hits + 1 end
  was_touching = touching
  if s.steps % 1000 == 0 then
    print(string.format("t = %.1f  phi = %+.4f  cart x = %+.4f", s.t, bob:q()[3], cart:q()[1]))
  end
end)
local summary = sim:run{ T = T }
local phi = bob:q()[3]
print(string.format("final angle %.2e rad, bumper hit %d time(s), total bumper impulse %.4f N s, deepest gap %.2e m",
  phi, hits, bumper_impulse, min_gap))
return { phi = phi, hits = hits, bumper_impulse = bumper_impulse, min_gap = min_gap, summary = summary }
