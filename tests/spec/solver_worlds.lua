-- The small worlds the solver specs share (newton_solver_spec.lua,
-- newton_iterative_spec.lua, pile_solvers_spec.lua): a box on a slope and a
-- stack of three boxes, each run with the solver table it is given.
local rc = require "ricochet"

local M = {}
local g = 9.81

-- a copy of the solver table `base` with the keys of `extra` set
function M.with(base, extra)
  local s = {}
  for k, v in pairs(base) do s[k] = v end
  for k, v in pairs(extra or {}) do s[k] = v end
  return s
end

-- A 0.4 x 0.2 box on a slope of alpha degrees (scripts/examples/incline.lua),
-- n steps of h = 1e-3 with the solver table `solver`: the down-slope
-- acceleration, the largest iteration count of a step, the stats.
function M.incline(solver, alpha, mu, n)
  alpha = math.rad(alpha)
  local w = rc.world{ gravity = { 0, -g } }
  local nn = { -math.sin(alpha), math.cos(alpha) }
  local s = { -math.cos(alpha), -math.sin(alpha) }
  w:halfplane{ point = { 0, 0 }, normal = nn }
  local d = 0.1 - 1e-12
  local box = w:body{ mass = 1, inertia = (0.16 + 0.04) / 12, q = { d * nn[1], d * nn[2], alpha }, shape = rc.box{ 0.4, 0.2 } }
  w:contact{ w.ground, box, law = rc.newton{ e = 0, mu = mu } }
  local sim = w:simulation{ h = 1e-3, solver = solver }
  local max_it = 0
  for _ = 1, n do
    sim:step()
    max_it = math.max(max_it, sim:info().iterations)
  end
  local v = box:v()
  return (v[1] * s[1] + v[2] * s[2]) / sim.t, max_it, sim:stats()
end

-- Three 1 x 0.2 boxes stacked, offset and pushed sideways: 6 contacts, two
-- per interface (redundant: more sticking rows than degrees of freedom), stick
-- and slip, e = 0.5, mu = 0.4 (law: rc.newton's by default); 300 steps of
-- h = 1e-3 with the solver table `solver` (and `scheme`, theta = 1 for
-- Maury). Returns the top box's q, the largest and total iterations, whether
-- every impulse stayed in the cone, the stats.
function M.stack(solver, law, scheme)
  local w = rc.world{ gravity = { 0, -g } }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  local mu = 0.4
  w:contact{ groups = { 0, 0 }, law = law or rc.newton{ e = 0.5, mu = mu } }
  local top
  for i = 1, 3 do
    top = w:body{ mass = 1, inertia = 1.04 / 12, q = { 0.1 * i, 0.1 + 0.2 * (i - 1), 0 }, v = { 0.2 * i, 0, 0 },
                  shape = rc.box{ 1.0, 0.2 } }
  end
  local sim = w:simulation{ h = 1e-3, solver = solver, scheme = scheme, theta = scheme == "maury" and 1 or nil,
                            activation = "gap" }
  local max_it, total, inside = 0, 0, true
  for _ = 1, 300 do
    sim:step()
    local it = sim:info().iterations
    max_it, total = math.max(max_it, it), total + it
    for _, c in ipairs(sim:contacts()) do
      if c.active and (c.pN < 0 or math.abs(c.pT) > mu * c.pN * (1 + 1e-14)) then inside = false end
    end
  end
  return top:q(), max_it, total, inside, sim:stats()
end

return M
