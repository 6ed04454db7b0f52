-- Benchmark: the sliding block's mesh of Acary & Collins-Craft 2024 (section 5.3)
-- on the linear-body engine (not a test): a 40 x 25 mm PMMA block, a structured mesh
-- of 1 mm cells split by their / diagonal (41 x 26 = 1 066 nodes, 2 132 dofs, 2 000
-- triangles), plane stress, consistent mass, E = 5.75e3, nu = 0.358, rho = 1.17e-3,
-- thickness 15, gravity -1e-3 (mm, ms, g); 41 bottom nodes in contact with the
-- half-plane y = 0 (rc.newton{ e = 0, mu = 0.5 }); the top prescribed to u_y = -0.005
-- from the static state with the bottom pinned (prescribe=0: free, at rest); h = 1e-4, theta = 1/2, 10 000 steps, no output.
--   build/ricochet run scripts/bench/fem_block.lua [--set steps=10000] [--set reps=3]
--     [--set scheme=moreau-jean-fremond] [--set prescribe=1]
-- Prints the CPU (os.clock, process time) of the steps only, the median of reps runs.
local rc = require "ricochet"
local steps = rc.param("steps", 10000)
local reps = rc.param("reps", 3)
local scheme = rc.param("scheme", "moreau-jean-fremond")
local prescribe = rc.param("prescribe", 1)
local nx, ny, W, H = 40, 25, 40, 25

local function block()
  local m = rc.fem_rectangle{ width = W, height = H, nx = nx, ny = ny }
  local w = rc.world{ gravity = { 0, -1e-3 } }
  local b = w:fem{ name = "block", nodes = m.nodes, triangles = m.triangles, E = 5.75e3, nu = 0.358, rho = 1.17e-3,
                   thickness = 15, gravity = true, sets = { bottom = m.node_sets.bottom, top = m.node_sets.top } }
  w:fem_contact{ b, nodes = "bottom", halfplane = { point = { 0, 0 }, normal = { 0, 1 } },
                 law = rc.newton{ e = 0, mu = 0.5 } }
  if prescribe ~= 0 then   -- the paper's start: the top held at -0.005, solved statically (bottom pinned: no slip)
    b:prescribe{ set = "top", uy = -0.005 }
    b:solve_static{ fix = { "bottom" } }
  end
  return w, b
end

local times = {}
local w, b
for r = 1, reps do
  w, b = block()
  local sim = w:simulation{ h = 1e-4, theta = 0.5, scheme = scheme }
  local c0 = os.clock()
  sim:run{ T = steps * 1e-4 * (1 - 1e-9) }
  times[r] = os.clock() - c0
end
table.sort(times)
local med = times[(reps + 1) // 2]
io.write(string.format("fem_block (%s): %d nodes, %d dofs, half-bandwidth %d, %d contact nodes, %d steps: "
  .. "median of %d runs: cpu %.3f s (%.1f us/step)\n", scheme, b.fem.nnodes, 2 * b.fem.nnodes, b.fem.bandwidth,
  #b.sets.bottom, steps, reps, med, 1e6 * med / steps))
