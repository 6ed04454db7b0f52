-- A ball rolling inside a cylinder (Capobianco et al. 2021, section 10.3, under
-- Moreau--Jean): m = 1, radius 0.1, solid-sphere inertia 2/5 m r^2, inside a
-- cylinder of radius 1 around P = (0, 1), released at rest at (-0.9, 1) with
-- mu = 0.1, e_N = 0. The wall is the concave obstacle rc.circle_inside (exact
-- gap g_N = R_c - r - |c - P|); wall = "gap" writes the same wall as a Lua gap
-- function (its gap, gradient and tangential row by hand): both give the same
-- trajectory. Moreau--Jean holds the contact at velocity level, so on the
-- curved wall the ball drifts outwards step by step (the max penetration
-- printed grows with time and with h): the point of the paper's position-level
-- stabilisation, which this scheme does not have.
--   build/ricochet run scripts/examples/ball_in_cylinder.lua --set wall=gap --set T=10
local rc = require "ricochet"

local mu    = rc.param("mu", 0.1)
local h     = rc.param("h", 1e-2)
local T     = rc.param("T", 3.0)
local theta = rc.param("theta", 1.0)
local wall  = rc.param("wall", "circle")      -- "circle" (rc.circle_inside) or "gap" (Lua gap function)
local v0    = rc.param("v0", 0.0)             -- initial downward speed of the ball
local g, m, r, Rc, P = 9.81, 1.0, 0.1, 1.0, { 0, 1 }

local w = rc.world{ gravity = { 0, -g } }
local law = rc.newton{ e = 0, mu = mu }
local ball = w:body{ name = "ball", mass = m, inertia = 0.4 * m * r * r, q = { P[1] - 0.9, P[2], 0 },
                     v = { 0, -v0, 0 }, shape = rc.disk{ radius = r } }
if wall == "circle" then
  w:obstacle{ shape = rc.circle_inside{ centre = P, radius = Rc }, name = "cylinder" }
  w:contact{ w.ground, ball, law = law }
elseif wall == "gap" then
  -- g_N = Rc - r - |c - P|, n = (P - c)/|c - P| (inward), t = (n_y, -n_x):
  -- grad g_N = (n_x, n_y, 0), the tangential row (t_x, t_y, r) (eq. 151: v.t + r omega)
  w:gap{ ball, name = "cylinder", law = law, gap = function(_, q)
    local dx, dy = q[1] - P[1], q[2] - P[2]
    local d = math.sqrt(dx * dx + dy * dy)
    local nx, ny = -dx / d, -dy / d
    return Rc - r - d, { nx, ny, 0 }, { ny, -nx, r }
  end }
else
  error("wall must be \"circle\" or \"gap\" (got " .. tostring(wall) .. ")")
end
local sim = w:simulation{ h = h, theta = theta, solver = { "nsgs", tol = 1e-14 } }

local traj, worst = {}, 0
sim:after_step(function()
  local q, v = ball:q(), ball:v()
  traj[#traj + 1] = { q[1], q[2], q[3], v[1], v[2], v[3] }
  worst = math.max(worst, math.sqrt((q[1] - P[1])^2 + (q[2] - P[2])^2) - (Rc - r))
end)
local summary = sim:run{ T = T }

print(string.format("wall %s: max penetration %.3g after %g s (h = %g, theta = %g), final E = %.6g",
                    wall, worst, T, h, theta, summary.E))
return { traj = traj, penetration = worst, summary = summary }
