-- A disk dropped on the floor. Newton's impact law sets u_N = -e u_N at every impact and
-- free flight is exact with theta = 1/2, so each apex height is e^2 times the previous one.
--   build/ricochet run scripts/examples/bouncing_ball.lua --set e=0.5 --out out/ball
local rc = require "ricochet"

local e = rc.param("e", 0.8)                -- restitution coefficient, in [0, 1]
local h = rc.param("h", 1e-4)               -- time step
local T = rc.param("T", 2.5)                -- end time (four apexes with e = 0.8)
local g, r, H0 = 9.81, 0.1, 1.0             -- gravity, radius, initial height of the lowest point

local w = rc.world{ gravity = { 0, -g } }                        -- no gravity unless given
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }               -- the floor: solid below y = 0
local ball = w:body{ name = "ball", mass = 1, inertia = 0.5 * r * r,   -- J = m r^2 / 2
                     q = { 0, H0 + r, 0 }, shape = rc.disk{ radius = r } }
w:contact{ w.ground, ball, law = rc.newton{ e = e, mu = 0 }, name = "C" }
local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h }

local apex, ratios, vy_prev = { H0 }, {}, 0
sim:after_step(function(s)                  -- runs after every step
  local vy = ball:v()[2]
  if vy_prev > 0 and vy <= 0 and ball:q()[2] - r > 1e-3 then   -- v_y turned negative: an apex
    apex[#apex + 1] = ball:q()[2] - r       -- height of the lowest point
    ratios[#ratios + 1] = apex[#apex] / apex[#apex - 1]
    print(string.format("t = %.4f  apex %d = %.5f  ratio %.5f  (e^2 = %.5f)",
                        s.t, #ratios, apex[#apex], ratios[#ratios], e * e))
  end
  vy_prev = vy
end)
local summary = sim:run{ T = T }

-- the figures checked by tests/spec/examples_spec.lua
return { apex = apex, ratios = ratios, apex_ratio = ratios[#ratios], summary = summary }
