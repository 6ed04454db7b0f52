-- Moreau 2004, section 3.1: a granular sample at rest under gravity has
-- indeterminate contact forces. 28 disks (radii uniform in [0.4, 0.6], seed
-- fixed, density 1), in a box of width 5 with a floor and two walls, mu = 0.3,
-- e = 0, g = 9.81, h = 1e-3; deposited by CD from a loose lattice until at
-- rest (max |v| < 1e-6, then set to 0). Then the one-step problem of the resting state is solved again many
-- times (sim:explore), (a) from random initial impulses and (b) from zero
-- with random sweep orders; every result is an equilibrium satisfying
-- Coulomb's law, and the results differ: the set of possible forces at a
-- contact is a segment (grains with two contacts) or a polygon.
--   build/ricochet run scripts/papers/moreau2004_granular_sample.lua --set samples=300 --set svg=out/forces.svg
local rc = require "ricochet"

local N       = rc.param("N", 28)
local seed    = rc.param("seed", 3)
local samples = rc.param("samples", 100)
local svg     = rc.param("svg", "")
local h, g, mu = 1e-3, 9.81, 0.3

math.randomseed(seed)
local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "floor" }
w:halfplane{ point = { 0, 0 }, normal = { 1, 0 }, name = "left" }
w:halfplane{ point = { 5, 0 }, normal = { -1, 0 }, name = "right" }
local grains, radii = {}, {}
for i = 1, N do
  local r = 0.4 + 0.2 * math.random()
  local col, row = (i - 1) % 4, (i - 1) // 4
  local m = math.pi * r * r
  radii[i] = r
  grains[i] = w:body{ mass = m, inertia = 0.5 * m * r * r,
                      q = { 0.65 + 1.2 * col + 0.05 * math.random(), 0.7 + 1.3 * row, 0 },
                      shape = rc.disk{ radius = r } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = mu } }
local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                          solver = { "nsgs", tol = 1e-9, max_iter = 2000 } }
-- deposit until at rest
local vmax
sim:after_step(function(s)
  vmax = 0
  for _, b in ipairs(grains) do
    local v = b:v()
    vmax = math.max(vmax, math.abs(v[1]), math.abs(v[2]), math.abs(v[3]) * 0.5)
  end
  if s.t > 1 and vmax < 1e-6 then s:stop() end
end)
local summary = sim:run{ T = 30 }
-- a static packing: the remaining velocities (below 1e-6) are set to zero, so
-- the explored one-step problems are exactly the equilibrium problem
for _, b in ipairs(grains) do b:set_state{ v = { 0, 0, 0 } } end
-- the explorations solve the resting state's problem tightly
sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h, solver = { "nsgs", tol = 1e-12, max_iter = 100000 } }

-- the forces of one solution, per contact: f = (pN n + pT t) / h on body B
local function forces(list)
  local out = {}
  for _, c in ipairs(list) do
    if c.active then
      out[#out + 1] = { a = c.body_a, b = c.body_b, x = c.point[1], y = c.point[2],
                        fx = (c.pN * c.normal[1] + c.pT * c.tangent[1]) / h,
                        fy = (c.pN * c.normal[2] + c.pT * c.tangent[2]) / h, pN = c.pN, pT = c.pT }
    end
  end
  return out
end
local mass = {}
for i = 1, N do mass[i] = math.pi * radii[i] ^ 2 end
-- residual of the equilibrium of every grain and of Coulomb's law for one solution
local function check(sol)
  local fx, fy, mz = {}, {}, {}
  for i = 1, N do fx[i], fy[i], mz[i] = 0, -mass[i] * g, 0 end
  local coulomb = 0
  for _, f in ipairs(sol) do
    for side, sign in pairs{ b = 1, a = -1 } do
      local id = f[side]
      if id >= 0 then
        local q = grains[id + 1]:q()
        fx[id + 1] = fx[id + 1] + sign * f.fx
        fy[id + 1] = fy[id + 1] + sign * f.fy
        mz[id + 1] = mz[id + 1] + sign * ((f.x - q[1]) * f.fy - (f.y - q[2]) * f.fx)
      end
    end
    coulomb = math.max(coulomb, -f.pN, math.abs(f.pT) - mu * f.pN * (1 + 1e-9))
  end
  local eq = 0
  for i = 1, N do eq = math.max(eq, math.abs(fx[i]), math.abs(fy[i]), math.abs(mz[i])) / (mass[i] * g) end
  return eq, coulomb
end

local m0 = 0
for i = 1, N do m0 = m0 + mass[i] / N end
local results, worst_eq, worst_coulomb = {}, 0, 0
for k = 1, samples do
  local kind = k % 2 == 1 and "random" or "zero"
  local sol = forces(sim:explore{ guess = kind, scale = 21 * m0 * g * h, order = "random", seed = k })
  local eq, cl = check(sol)
  worst_eq, worst_coulomb = math.max(worst_eq, eq), math.max(worst_coulomb, cl)
  results[#results + 1] = sol
end
-- a fixed order from the zero guess is deterministic
local f1 = forces(sim:explore{ guess = "zero", order = "fixed" })
local f2 = forces(sim:explore{ guess = "zero", order = "fixed" })
local deterministic = #f1 == #f2
for j = 1, #f1 do
  if f1[j].pN ~= f2[j].pN or f1[j].pT ~= f2[j].pT then deterministic = false end
end
-- spread of the force at every contact over the samples
local spread, ncontacts = 0, #results[1]
for j = 1, ncontacts do
  local lo, hi = math.huge, -math.huge
  for _, sol in ipairs(results) do
    if sol[j] then lo, hi = math.min(lo, sol[j].fx), math.max(hi, sol[j].fx) end
  end
  spread = math.max(spread, hi - lo)
end
io.write(string.format(
  "granular sample: %d grains at rest at t = %.3f (max |v| %.1e), %d contacts, %d explored solutions: " ..
  "worst equilibrium residual %.2e m g, worst Coulomb violation %.2e, largest spread of a horizontal force %.3f N\n",
  N, sim.t, vmax, ncontacts, #results, worst_eq, worst_coulomb, spread))

if svg ~= "" then   -- the force sets: every sample's force at every contact, as a dot near its point
  local f = assert(io.open(svg, "w"))
  local s = 100
  f:write(string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="-20 -20 %d %d">\n',
    5 * s + 40, 8 * s, 5 * s + 40, 8 * s))
  local function X(x) return x * s end
  local function Y(y) return 7.5 * s - y * s end
  for i = 1, N do
    local q = grains[i]:q()
    f:write(string.format('<circle cx="%.2f" cy="%.2f" r="%.2f" fill="none" stroke="#888"/>\n', X(q[1]), Y(q[2]), radii[i] * s))
  end
  local scale = 0.02   -- m per N
  for _, sol in ipairs(results) do
    for _, c in ipairs(sol) do
      f:write(string.format('<circle cx="%.2f" cy="%.2f" r="0.8" fill="#c22"/>\n',
        X(c.x + scale * c.fx), Y(c.y + scale * c.fy)))
    end
  end
  f:write("</svg>\n")
  f:close()
end
return { worst_eq = worst_eq, worst_coulomb = worst_coulomb, spread = spread, contacts = ncontacts, deterministic = deterministic,
         results = results, at_rest = vmax < 1e-6, summary = summary }
