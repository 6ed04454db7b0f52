-- A box launched along the floor with Coulomb friction. While it slides the friction
-- impulse sits on the edge of the cone, p_T = -mu p_N, so v_x = v0 - mu g t and the box
-- stops at t = v0 / (mu g); then it sticks (|p_T| < mu p_N).
--   build/ricochet run scripts/examples/sliding_box.lua --set mu=0.5 --set v0=3
local rc = require "ricochet"

local v0 = rc.param("v0", 2.0)              -- launch velocity
local mu = rc.param("mu", 0.3)              -- friction coefficient
local h  = rc.param("h", 1e-3)
local T  = rc.param("T", 2.0)               -- upper bound: the run stops when the box does
local g = 9.81

local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
-- a 1 x 0.5 box of mass 2 resting on the floor: gap g_N = 0 at its two bottom corners
local box = w:body{ name = "box", mass = 2, inertia = 2 * (1 + 0.25) / 12,
                    q = { 0, 0.25, 0 }, v = { v0, 0, 0 }, shape = rc.box{ 1, 0.5 } }
w:contact{ w.ground, box, law = rc.newton{ e = 0, mu = mu }, name = "C" }  -- columns C1..C4
local sim = w:simulation{ h = h, solver = { "nsgs", tol = 1e-12 } }

local t_stop
sim:after_step(function(s)
  if box:v()[1] <= 1e-12 then               -- stopped (stick)
    t_stop = s.t
    s:stop()                                -- ends sim:run after this step: status "stopped"
  end
end)
local summary = sim:run{ T = T }

local expected = v0 / (mu * g)
print(string.format("stopped at t = %.4f (v0 / (mu g) = %.4f, h = %g), x = %.4f (v0^2 / (2 mu g) = %.4f)",
                    t_stop or -1, expected, h, box:q()[1], v0 * v0 / (2 * mu * g)))
return { t_stop = t_stop, t_expected = expected, x = box:q()[1], summary = summary }
