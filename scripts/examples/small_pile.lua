-- About a hundred disks falling into a box: many simultaneous contacts, one NSGS problem per
-- step. Every 100 steps sim:info() reports the contacts found (within the margin) and in the
-- index set, and the solver's sweeps and natural-map residual for that step.
--   build/ricochet run scripts/examples/small_pile.lua --set N=200 --set T=2
local rc = require "ricochet"

local N        = rc.param("N", 100)         -- number of disks
local T        = rc.param("T", 1.5)
local h        = rc.param("h", 5e-4)
local tol      = rc.param("tol", 1e-6)      -- NSGS tolerance on the natural-map residual
local max_iter = rc.param("max_iter", 200)  -- sweep cap
math.randomseed(rc.param("seed", 1))        -- same pile every run

local cols = rc.param("cols", 10)
local width = 0.2 * cols + 0.2
local w = rc.world{ gravity = { 0, -9.81 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "floor" }
w:segment{ a = { 0, 0 }, b = { 0, 3 }, name = "left" }            -- walls: two-sided segments
w:segment{ a = { width, 0 }, b = { width, 3 }, name = "right" }
local disks = {}
for i = 0, N - 1 do                         -- cols per row, odd rows shifted by half a spacing
  local row, r = i // cols, 0.08 + 0.02 * math.random()              -- radii in [0.08, 0.1]
  local m = math.pi * r * r                                        -- density 1
  local x = 0.2 * (i % cols) + 0.1 + 0.1 * (row % 2) + 0.02 * (math.random() - 0.5)
  disks[#disks + 1] = { r = r, body = w:body{ mass = m, inertia = 0.5 * m * r * r,
    q = { x, r + 0.005 + 0.21 * row, 0 }, shape = rc.disk{ radius = r } } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = rc.param("mu", 0.3) } }  -- all shapes are group 0
local sim = w:simulation{ h = h, solver = { "nsgs", tol = tol, max_iter = max_iter } }

local min_gap = math.huge                   -- lowest floor gap y - r of any disk at any step
sim:after_step(function(s)
  for _, d in ipairs(disks) do min_gap = math.min(min_gap, d.body:q()[2] - d.r) end
  if s.steps % 100 == 0 then
    local info = s:info()                   -- what the last step did
    print(string.format("t = %.2f  contacts %3d  active %3d  sweeps %3d  residual %.1e",
                        info.t, info.ncontacts, info.nactive, info.iterations, info.residual))
  end
end)
local summary = sim:run{ T = T }

local outside = 0                           -- disks not inside the box at the end
for _, d in ipairs(disks) do
  local x, y = d.body:q()[1], d.body:q()[2]
  if x - d.r < -1e-3 or x + d.r > width + 1e-3 or y - d.r < -1e-3 then outside = outside + 1 end
end
print(string.format("lowest floor gap %.2e, disks outside the box %d of %d", min_gap, outside, N))
return { min_floor_gap = min_gap, outside = outside, n = N, summary = summary }
