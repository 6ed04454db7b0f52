-- spheres_lua_law.lua: a law written in Lua on 3D contacts against its C
-- twins (docs/benchmarks.md, "A 3D contact law written in Lua"): a pile of
-- n^3 spheres (R = 0.1, m = 1) dropped into a box of five planes, Newton
-- e = 0, mu = 0.3, Moreau--Jean h = 1e-3, NSGS tol = 1e-8, the same
-- trajectory with
--   law = c          the built-in rc.newton (exact 3D cone solver, cone3.c)
--   law = c-generic  rc.newton{ local_solver = "generic" } (the generic solver, C xi/project)
--   law = lua        ricochet.laws.coulomb3 (the generic solver, Lua xi/project)
--   build/ricochet run scripts/bench/spheres_lua_law.lua --quiet --set law=lua
-- CPU per local solve = the run's CPU / (sum over the steps of sweeps x active
-- contacts): it includes detection and assembly (the same for the three laws).
local rc = require "ricochet"
local coulomb3 = require "ricochet.laws.coulomb3"
local law_kind = rc.param("law", "c", { one_of = { "c", "c-generic", "lua" } })
local n = math.floor(rc.param("n", 3, { min = 1 }))
local T = rc.param("T", 1.0, { above = 0 })
local law = law_kind == "c" and rc.newton{ e = 0, mu = 0.3 }
         or law_kind == "c-generic" and rc.newton{ e = 0, mu = 0.3, local_solver = "generic" }
         or coulomb3{ e = 0, mu = 0.3 }
local R, J = 0.1, 0.4 * 0.01
local function scene()
  local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = law }
  local L = 0.25 * n
  w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
  w:plane{ point = { -L, 0, 0 }, normal = { 1, 0, 0 } }
  w:plane{ point = { L, 0, 0 }, normal = { -1, 0, 0 } }
  w:plane{ point = { 0, -L, 0 }, normal = { 0, 1, 0 } }
  w:plane{ point = { 0, L, 0 }, normal = { 0, -1, 0 } }
  local balls = {}
  for i = 1, n do
    for j = 1, n do
      for k = 1, n do   -- a lattice of spacing 0.25, jittered so that the pile collapses
        local x, y = (i - (n + 1) / 2) * 0.25 + 0.01 * ((j + k) % 3 - 1), (j - (n + 1) / 2) * 0.25 + 0.01 * ((i + k) % 3 - 1)
        balls[#balls + 1] = w:body{ mass = 1, inertia = { J, J, J }, q = { x, y, 0.15 + 0.25 * (k - 1), 1, 0, 0, 0 },
                                    shape = rc.sphere{ radius = R } }
      end
    end
  end
  return w, balls, w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-8, max_iter = 500 } }
end
-- a first run counts the local solves (sweeps x active contacts, per step)...
local w, balls, sim = scene()
local solves, max_sweeps = 0, 0
sim:after_step(function(s)
  local na = 0
  for _, c in ipairs(w:contacts3()) do if c.active then na = na + 1 end end
  local it = s:info().iterations
  solves = solves + it * na
  if it > max_sweeps then max_sweeps = it end
end)
sim:run{ T = T }
local zmax = 0
for _, b in ipairs(balls) do zmax = math.max(zmax, b:q()[3]) end
-- ... a second, without the counting callback, is timed
local _, _, sim2 = scene()
local c0 = os.clock()
local summary = sim2:run{ T = T }
local cpu = os.clock() - c0
io.write(string.format("spheres_lua_law: %d spheres, law %s, %d steps, cpu %.3f s (%.3f ms/step), %.4g local solves, " ..
  "%.0f ns per local solve (all the run's CPU), max %d sweeps, highest centre z = %.9f\n",
  #balls, law_kind, summary.steps, cpu, 1e3 * cpu / summary.steps, solves, 1e9 * cpu / solves, max_sweeps, zmax))
