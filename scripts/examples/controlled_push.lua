-- Feedback control from a before_step callback: a PD law F = kp (x* - x) - kd v_x, saturated
-- at |F| <= F_max, pushes a box along a floor with Coulomb friction to x* = 1. The force is
-- set before each step and held constant over it (F_{k+theta} of eq. 61a). Near the target
-- the box sticks as soon as |F| <= mu m g, so the final error is at most mu m g / kp.
--   build/ricochet run scripts/examples/controlled_push.lua --set kp=100 --out out/push
local rc = require "ricochet"

local target = rc.param("target", 1.0)
local kp     = rc.param("kp", 600.0)        -- stiffness, N/m
local kd     = rc.param("kd", 50.0)         -- damping, N s/m (2 sqrt(kp m) = 49: critical)
local F_max  = rc.param("F_max", 10.0)      -- |F| above m g w / h = 19.6 N would tip the box
local mu     = rc.param("mu", 0.3)
local T      = rc.param("T", 3.0)
local g, m = 9.81, 1.0

local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local box = w:body{ name = "box", mass = m, inertia = m * (0.16 + 0.04) / 12,
                    q = { 0, 0.1, 0 }, shape = rc.box{ 0.4, 0.2 } }    -- at rest on the floor
w:contact{ w.ground, box, law = rc.newton{ e = 0, mu = mu }, name = "C" }
local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12 } }

sim:before_step(function(s)                 -- runs before every step: the controller
  local x, vx = box:q()[1], box:v()[1]
  local F = kp * (target - x) - kd * vx
  F = math.max(-F_max, math.min(F_max, F))
  box:set_force{ F, 0, 0 }                  -- {fx, fy, torque} at the centre of mass
end)
sim:after_step(function(s)
  if s.steps % 500 == 0 then
    print(string.format("t = %.1f  x = %.5f  v_x = %+.5f  F = %+.3f",
                        s.t, box:q()[1], box:v()[1], box:force()[1]))
  end
end)
local summary = sim:run{ T = T }

local x = box:q()[1]
print(string.format("final x = %.5f (target %g, error %.2e, bound mu m g / kp = %.2e)",
                    x, target, x - target, mu * m * g / kp))
return { x = x, target = target, theta = box:q()[3], summary = summary }
