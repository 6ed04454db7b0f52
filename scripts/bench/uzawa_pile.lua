-- Benchmark (not a test): Uzawa, plain and accelerated, on a frictional pile.
--
-- The 28 disks of scripts/papers/moreau2004_granular_sample.lua (radii 0.4-0.6,
-- seed 3, a box of width 5) and a unit box dropped on them from 12 m, mu = 0.3,
-- e = 0, Moreau-Jean theta = 1/2, h = 1e-3, T = 3 s, Uzawa to 1e-8 with at
-- most 20 000 iterations a step; once with the plain iteration of Maury's
-- Proposition 1, once with Nesterov's momentum and restart (the default).
--   build/ricochet run scripts/bench/uzawa_pile.lua --quiet
-- Parameters: T (3, > 0), tol (1e-8, > 0), max_iter (20 000, >= 1).
local rc = require "ricochet"
local T = rc.param("T", 3.0, { above = 0 })
local tol = rc.param("tol", 1e-8, { above = 0 })
local max_iter = rc.param("max_iter", 20000, { min = 1 })
for _, acc in ipairs{ false, true } do
  math.randomseed(3)
  local w = rc.world{ gravity = { 0, -9.81 } }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
  w:halfplane{ point = { 5, 0 }, normal = { -1, 0 } }
  for i = 1, 28 do
    local r = 0.4 + 0.2 * math.random()
    local col, row = (i - 1) % 4, (i - 1) // 4
    local m = math.pi * r * r
    w:body{ mass = m, inertia = 0.5 * m * r * r, q = { 0.65 + 1.2 * col + 0.05 * math.random(), 0.7 + 1.3 * row, 0 },
            shape = rc.disk{ radius = r } }
  end
  w:body{ mass = 1, inertia = 1 / 6, q = { 2.5, 12.5, 0.3 }, v = { 1, 0, 2 }, shape = rc.box{ 1, 1 } }
  w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
  local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3,
                            solver = { "uzawa", tol = tol, max_iter = max_iter, accelerate = acc } }
  local s = sim:run{ T = T }
  print(string.format("uzawa (%s): %d steps, %d failures, at most %d iterations a step, cpu %.2f s",
                      acc and "accelerated" or "plain", s.steps, s.failures, s.max_iterations, s.cpu_s))
end
