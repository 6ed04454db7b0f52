-- A hundred disks falling into a box: many simultaneous contacts, one NSGS problem per step.
-- Every 100 steps sim:info() reports the contacts found (gap <= margin), those in the index
-- set (active), and the solver's sweeps and natural-map residual for that step.
--   build/ricochet run scripts/examples/small_pile.lua --set T=1.5 --set seed=2 --out out/pile
local rc = require "ricochet"
local N, T, h = rc.param("N", 100), rc.param("T", 0.8), rc.param("h", 1e-3)
local tol, max_iter = rc.param("tol", 1e-4), rc.param("max_iter", 1000)  -- NSGS stopping test
math.randomseed(rc.param("seed", 1))        -- the same pile at every run
local w, width = rc.world{ gravity = { 0, -9.81 } }, 4.2   -- 20 columns of spacing 0.2 fit
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "floor" }
w:segment{ a = { 0, 0 }, b = { 0, 3 }, name = "left" }             -- walls: two-sided segments
w:segment{ a = { width, 0 }, b = { width, 3 }, name = "right" }
local disks = {}
for i = 0, N - 1 do                         -- a lattice, x jittered by +-0.01, radii 0.08..0.1
  local r = 0.08 + 0.02 * math.random()
  local m, x = math.pi * r * r, 0.2 * (i % 20) + 0.1 + 0.02 * (math.random() - 0.5)
  disks[i + 1] = { r = r, body = w:body{ mass = m, inertia = 0.5 * m * r * r,
    q = { x, r + 0.005 + 0.21 * (i // 20), 0 }, shape = rc.disk{ radius = r } } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }  -- every shape is in group 0
local sim = w:simulation{ h = h, solver = { "nsgs", tol = tol, max_iter = max_iter,
                          on_fail = rc.param("on_fail", "warn") } }   -- "error": stop the run
local min_gap = math.huge                   -- lowest floor gap y - r of any disk at any step
sim:after_step(function(s)
  for _, d in ipairs(disks) do min_gap = math.min(min_gap, d.body:q()[2] - d.r) end
  if s.steps % 100 == 0 then
    local i = s:info()                      -- what the last step did (rc_step_info)
    print(string.format("t = %.2f  contacts %3d  active %3d  sweeps %3d  residual %.1e",
                        i.t, i.ncontacts, i.nactive, i.iterations, i.residual))
  end
end)
local summary = sim:run{ T = T }
local outside, overlap = 0, 0               -- centres outside the box; deepest wall overlap
for _, d in ipairs(disks) do
  local x, y = d.body:q()[1], d.body:q()[2]
  if x < 0 or x > width or y < 0 then outside = outside + 1 end
  overlap = math.max(overlap, d.r - x, x + d.r - width)
end
print(string.format("lowest floor gap %.2e, wall overlap %.2e, %d outside", min_gap, overlap, outside))
return { min_floor_gap = min_gap, max_wall_overlap = overlap, outside = outside, summary = summary }
