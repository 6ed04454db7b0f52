-- Moreau 2004, section 3.1: a granular sample at rest under gravity has
-- indeterminate contact forces. 28 disks (radii uniform in [0.4, 0.6], seed
-- fixed, density 1), in a box of width 5 with a floor and two walls, mu = 0.3,
-- e = 0, g = 9.81, h = 1e-3; deposited by CD from a loose lattice until at
-- rest (max |v| < 1e-6, then set to 0). Then the one-step problem of the
-- resting state is solved again many times (sim:explore), (a) from random
-- initial impulses and (b) from zero with random sweep orders, either one
-- random order for the whole solve swept cyclically (the paper's procedure)
-- or a new order every sweep; every result is an equilibrium satisfying
-- Coulomb's law, and the results differ.
-- The exact set of every contact's force (the projection of C n A, the
-- paper's grey areas) is computed by linear programming (sim:force_set): a
-- segment for a grain with two contacts, a polygon in general. The script
-- checks that every explored solution lies in it and measures the part of it
-- that the explorations reach (coverage: hull area / polygon area, range /
-- segment length), for every contact and for two grains like the paper's:
-- the highest grain with two contacts (grain 1) and the highest grain with
-- four contacts, all with grains (grain 3).
--   build/ricochet run scripts/papers/moreau2004_granular_sample.lua --set svg=out/forces.svg
-- Parameters (each checked): N (grains, 28, >= 1), seed (3), samples
-- (random-guess explorations, 500, >= 0), cyclic (zero-guess explorations
-- with one random cyclic order each, the paper's procedure (b), 100, >= 0),
-- zero (zero-guess explorations with a new random order every sweep, 100,
-- >= 0), domain ("lp": p_N drawn in [0, 1.5 max p_N] of each contact's
-- exact set; "weight": in [0, 21 m0 g h] for every contact), directions
-- (initial LP directions, 64, in 4..100000), svg (a file to draw the forces
-- in, "" for none), settle_steps (100, >= 2: see below), activation
-- ("anticipate", the kernel's default index set, or "gap", eq. 64: another
-- deposit, another packing). The deposit runs
-- NSGS to 1e-9 (at most 100 000 sweeps, over-relaxed by 1.3) and reports its
-- solver failures.
-- At the end, Moreau's claim that the warm start "considerably accelerates
-- convergence" on contacts already in effect: the settled pile is stepped on
-- for settle_steps steps by NSGS to 1e-9 (fixed order, no relaxation) with
-- the warm start, then as many without it; the sweeps of every step are
-- returned and their medians printed.
local rc = require "ricochet"

local N       = rc.param("N", 28, { min = 1 })
local seed    = rc.param("seed", 3)
local samples = rc.param("samples", 500, { min = 0 })
local cyclic  = rc.param("cyclic", 100, { min = 0 })
local zero    = rc.param("zero", 100, { min = 0 })
local domain  = rc.param("domain", "lp", { one_of = { "lp", "weight" } })
local directions = rc.param("directions", 64, { min = 4, max = 100000 })
local svg     = rc.param("svg", "")
local settle_steps = rc.param("settle_steps", 100, { min = 2 })
local activation = rc.param("activation", "anticipate", { one_of = { "anticipate", "gap" } })
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
-- (a cap of 2 000 sweeps left many steps unsolved; one step of this deposit needs 79 237)
local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h, activation = activation,
                          solver = { "nsgs", tol = 1e-9, max_iter = 100000, relax = 1.3 } }
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
sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h, activation = activation,
                    solver = { "nsgs", tol = 1e-12, max_iter = 100000 } }

-- the forces of one solution, per contact: f = (pN n + pT t) / h on body B
local function forces(list)
  local out = {}
  for k, c in ipairs(list) do
    if c.active then
      out[#out + 1] = { k = k, a = c.body_a, b = c.body_b, x = c.point[1], y = c.point[2],
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

-- the exact sets (LP) of every active contact of the resting state's problem
local cpu = os.clock()
local sets = sim:force_set{ contact = "all", problem = "explore", directions = directions }
local lp_cpu, lps, vertices_max = os.clock() - cpu, 0, 0
local nsets, bounded, nsegments = 0, true, 0
for _, s in pairs(sets) do
  nsets, lps = nsets + 1, lps + s.lps
  if s.status ~= "bounded" then bounded = false else vertices_max = math.max(vertices_max, #s.vertices) end
  if s.dimension == 1 then nsegments = nsegments + 1 end
end
-- the random guesses: p_N in [0, 1.5 max p_N] of each contact's set (domain = "lp") or in
-- [0, 21 m0 g h] everywhere (domain = "weight", about 21 grain weights)
local scale = 21 * m0 * g * h
if domain == "lp" and bounded then
  scale = {}
  for k = 1, #sim:explore{ guess = "zero", order = "fixed" } do scale[k] = sets[k] and 1.5 * sets[k].pN[2] or 0 end
end

local results, kinds, worst_eq, worst_coulomb = {}, {}, 0, 0
cpu = os.clock()
local explore_failures = 0
for k = 1, samples + cyclic + zero do
  local kind = k <= samples and "random" or k <= samples + cyclic and "cyclic" or "zero"
  local contacts, solve = sim:explore{ guess = kind == "random" and "random" or "zero",
                                       scale = kind == "random" and scale or nil,
                                       order = kind == "cyclic" and "cyclic" or "random", seed = k }
  if not solve.converged then explore_failures = explore_failures + 1 end
  local sol = forces(contacts)
  local eq, cl = check(sol)
  worst_eq, worst_coulomb = math.max(worst_eq, eq), math.max(worst_coulomb, cl)
  results[#results + 1], kinds[#kinds + 1] = sol, kind
end
local explore_cpu = os.clock() - cpu
-- a fixed order from the zero guess is deterministic
local f1 = forces(sim:explore{ guess = "zero", order = "fixed" })
local f2 = forces(sim:explore{ guess = "zero", order = "fixed" })
local deterministic = #f1 == #f2
for j = 1, #f1 do
  if f1[j].pN ~= f2[j].pN or f1[j].pT ~= f2[j].pT then deterministic = false end
end
-- spread of the force at every contact over the samples (the active contacts are
-- the same in every exploration of the problem: those of f1)
local spread, ncontacts = 0, #f1
for j = 1, ncontacts do
  local lo, hi = math.huge, -math.huge
  for _, sol in ipairs(results) do
    if sol[j] then lo, hi = math.min(lo, sol[j].fx), math.max(hi, sol[j].fx) end
  end
  spread = math.max(spread, hi - lo)
end

-- every sample in the exact set; the part of the set the samples reach
local worst_outside = 0          -- largest distance outside, relative to the size of the set
local coverage = { random = {}, cyclic = {}, zero = {} }
for j = 1, ncontacts do
  local set = sets[f1[j].k]
  local pts = { random = {}, cyclic = {}, zero = {} }
  for i, sol in ipairs(results) do
    local _, d = set:contains(sol[j].pN, sol[j].pT)
    worst_outside = math.max(worst_outside, d / set.scale)
    table.insert(pts[kinds[i]], sol[j])
  end
  coverage.random[set.contact] = #pts.random > 0 and set:coverage(pts.random) or nil
  coverage.cyclic[set.contact] = #pts.cyclic > 0 and set:coverage(pts.cyclic) or nil
  coverage.zero[set.contact] = #pts.zero > 0 and set:coverage(pts.zero) or nil
end

-- the paper's grains 1 (on top of two grains) and 3 (four contacts with grains)
local around = {}
for k, set in pairs(sets) do
  for _, id in ipairs{ set.body_a, set.body_b } do
    if id >= 0 then around[id] = around[id] or {}; table.insert(around[id], k) end
  end
end
local function pick(n)
  local best, besty
  for id, list in pairs(around) do
    local ok = #list == n
    for _, k in ipairs(list) do if sets[k].body_a < 0 then ok = false end end
    local y = grains[id + 1]:q()[2]
    if ok and (not besty or y > besty) then best, besty = id, y end
  end
  if not best then return nil end
  table.sort(around[best])
  local g = { id = best, contacts = around[best], random = {}, cyclic = {}, zero = {}, dimension = {} }
  for i, k in ipairs(g.contacts) do
    g.random[i], g.cyclic[i], g.zero[i], g.dimension[i] = coverage.random[k], coverage.cyclic[k], coverage.zero[k], sets[k].dimension
  end
  return g
end
local grain1, grain3 = pick(2), pick(4)

-- force on grain `id` at contact k for the vertices of its set
local function grain_forces(k, id)
  local set, out = sets[k], {}
  local sg = set.body_b == id and 1 or -1
  for i, f in ipairs(set.forces) do out[i] = { sg * f[1], sg * f[2] } end
  return out
end

local function mean(t)
  local s, n = 0, 0
  for _, v in pairs(t) do s, n = s + v, n + 1 end
  return n > 0 and s / n or 0
end
local function fmtcov(g, kind)   -- "-" where no exploration of that kind ran
  local r = {}
  for i, k in ipairs(g.contacts) do
    r[i] = string.format("%d: %s%s", k, g[kind][i] and string.format("%.0f %%", 100 * g[kind][i]) or "-",
                         g.dimension[i] == 1 and " (segment)" or "")
  end
  return table.concat(r, ", ")
end
io.write(string.format(
  "granular sample: %d grains at rest at t = %.3f (max |v| %.1e; deposit: %d steps, %d solver failures, up to %d sweeps), " ..
  "%d contacts, %d + %d + %d explored solutions (%d not converged): worst equilibrium residual %.2e m g, worst Coulomb " ..
  "violation %.2e, largest spread of a horizontal force %.3f N\n",
  N, sim.t, vmax, summary.steps, summary.failures, summary.max_iterations, ncontacts, samples, cyclic, zero,
  explore_failures, worst_eq, worst_coulomb, spread))
io.write(string.format(
  "exact sets (LP, %d equations, %d variables): %d contacts, all %s, %d segments and %d polygons of up to %d vertices, " ..
  "%d LPs in %.2f s; samples outside by at most %.1e of the set size\n",
  3 * N, 2 * nsets, nsets, bounded and "bounded" or "NOT bounded", nsegments, nsets - nsegments, vertices_max, lps, lp_cpu,
  worst_outside))
local function fmtmean(t, n, f)   -- the mean over the contacts, and the least over the polygons
  if n == 0 then return "-" end
  local least = math.huge
  for k, c in pairs(t) do if sets[k].dimension == 2 then least = math.min(least, c) end end
  return string.format(f, 100 * mean(t)) .. (least < math.huge and string.format(" (polygons: at least %.0f %%)", 100 * least) or "")
end
io.write(string.format("coverage of the exact sets, mean over the contacts: (a) %d random guesses (domain %s) %s; " ..
  "(b) zero guess, %d runs with one random cyclic order each %s, %d runs with a new order every sweep %s (%.2f s of explorations)\n",
  samples, domain, fmtmean(coverage.random, samples, "%.1f %%"), cyclic, fmtmean(coverage.cyclic, cyclic, "%.1f %%"),
  zero, fmtmean(coverage.zero, zero, "%.1f %%"), explore_cpu))
for _, gr in ipairs{ { grain1, "grain 1", "two" }, { grain3, "grain 3", "four" } } do
  local g = gr[1]
  if g then
    io.write(string.format("%s (body %d, %s contacts): random %s; cyclic %s; zero %s\n", gr[2], g.id, gr[3],
      fmtcov(g, "random"), fmtcov(g, "cyclic"), fmtcov(g, "zero")))
  end
end

-- the warm start on the settled pile (claim C2 of the notes): the same steps, warm and cold
local function stepping(warm)
  local s2 = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h, activation = activation,
                           solver = { "nsgs", tol = 1e-9, max_iter = 100000, warm_start = warm } }
  local its = {}
  s2:after_step(function(s) its[#its + 1] = s:info().iterations end)
  local sm = s2:run{ T = s2.t + settle_steps * h }
  return its, sm.failures
end
local warm_sweeps, warm_failures = stepping(true)
local cold_sweeps, cold_failures = stepping(false)
local function median(t, from)
  local c = {}
  for i = from or 1, #t do c[#c + 1] = t[i] end
  table.sort(c)
  return c[(#c + 1) // 2]
end
local function most(t, from) local m = 0 for i = from or 1, #t do m = math.max(m, t[i]) end return m end
io.write(string.format("settled pile stepped on (%d steps each, NSGS to 1e-9, at most 100 000 sweeps): warm start %d sweeps " ..
  "in the first step (it absorbs the zeroed velocities), then a median of %d (at most %d, %d failures); without it a median " ..
  "of %d (at most %d, %d steps unsolved)\n",
  settle_steps, warm_sweeps[1], median(warm_sweeps, 2), most(warm_sweeps, 2), warm_failures, median(cold_sweeps),
  most(cold_sweeps), cold_failures))

if svg ~= "" then
  -- left: the sample, every sample's force at every contact as a dot near its point, the
  -- exact sets as outlines (same scale); right: the contacts of grains 1 and 3 enlarged,
  -- one frame each (red: random guesses, blue: zero guess and random orders, cyclic or per sweep)
  local f = assert(io.open(svg, "w"))
  local s, scale_f = 100, 0.004   -- px per m, m per N
  local frames = {}
  for _, gr in ipairs{ grain1, grain3 } do
    if gr then for _, k in ipairs(gr.contacts) do frames[#frames + 1] = { k = k, grain = gr.id } end end
  end
  local fw = 180
  local W, H = 5 * s + 80 + (#frames > 0 and 2 * (fw + 20) or 0), 8 * s
  f:write(string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="-20 -20 %d %d" font-family="sans-serif" font-size="11">\n',
    W, H, W, H))
  local function X(x) return x * s end
  local function Y(y) return 7.5 * s - y * s end
  f:write(string.format('<path d="M%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f" fill="none" stroke="#000"/>\n',
    X(0), Y(7.5), X(0), Y(0), X(5), Y(0), X(5), Y(7.5)))
  for i = 1, N do
    local q = grains[i]:q()
    f:write(string.format('<circle cx="%.2f" cy="%.2f" r="%.2f" fill="none" stroke="#888"/>\n', X(q[1]), Y(q[2]), radii[i] * s))
    f:write(string.format('<text x="%.1f" y="%.1f" fill="#aaa" text-anchor="middle">%d</text>\n', X(q[1]), Y(q[2]) + 4, i - 1))
  end
  local function outline(set, map, colour)
    local pts = {}
    for i, fv in ipairs(set.forces) do pts[i] = string.format("%.2f,%.2f", map(fv[1], fv[2])) end
    if #pts >= 2 then
      f:write(string.format('<polygon points="%s" fill="#ddd" fill-opacity="0.5" stroke="%s" stroke-width="1"/>\n', table.concat(pts, " "), colour))
    end
  end
  for _, set in pairs(sets) do
    outline(set, function(fx, fy) return X(set.point[1] + scale_f * fx), Y(set.point[2] + scale_f * fy) end, "#06c")
  end
  for i, sol in ipairs(results) do
    local colour = kinds[i] == "random" and "#c22" or "#22c"
    for _, c in ipairs(sol) do
      f:write(string.format('<circle cx="%.2f" cy="%.2f" r="0.6" fill="%s"/>\n', X(c.x + scale_f * c.fx), Y(c.y + scale_f * c.fy), colour))
    end
  end
  -- the enlarged frames: the force on the grain, in N, each frame fitted to its set
  for n, fr in ipairs(frames) do
    local set = sets[fr.k]
    local sg = set.body_b == fr.grain and 1 or -1
    local gf = grain_forces(fr.k, fr.grain)
    local x0, y0 = 5 * s + 60 + ((n - 1) % 2) * (fw + 20), ((n - 1) // 2) * (fw + 45)
    local lo, hi = { math.huge, math.huge }, { -math.huge, -math.huge }
    for _, v in ipairs(gf) do
      for d = 1, 2 do lo[d], hi[d] = math.min(lo[d], v[d]), math.max(hi[d], v[d]) end
    end
    local size = math.max(hi[1] - lo[1], hi[2] - lo[2], 1e-9) * 1.15
    local cx, cy = 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])
    local function map(fx, fy) return x0 + fw * (0.5 + (fx - cx) / size), y0 + fw * (0.5 - (fy - cy) / size) end
    f:write(string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#000"/>\n', x0, y0, fw, fw))
    f:write(string.format('<text x="%d" y="%d">grain %d, contact %d: a %s</text>\n', x0, y0 + fw + 13,
      fr.grain, fr.k, set.dimension == 1 and "segment" or "polygon"))
    f:write(string.format('<text x="%d" y="%d">%.3g N across, coverage %.0f %%</text>\n', x0, y0 + fw + 26,
      size / 1.15, 100 * (coverage.random[fr.k] or 0)))
    local pts = {}
    for i, v in ipairs(gf) do pts[i] = string.format("%.2f,%.2f", map(v[1], v[2])) end
    f:write(string.format('<polygon points="%s" fill="#eee" stroke="#06c" stroke-width="1.5"/>\n', table.concat(pts, " ")))
    for i, sol in ipairs(results) do
      for _, c in ipairs(sol) do
        if c.k == fr.k then
          local px, py = map(sg * c.fx, sg * c.fy)
          f:write(string.format('<circle cx="%.2f" cy="%.2f" r="1" fill="%s"/>\n', px, py, kinds[i] == "random" and "#c22" or "#22c"))
        end
      end
    end
  end
  f:write("</svg>\n")
  f:close()
end
return { worst_eq = worst_eq, worst_coulomb = worst_coulomb, spread = spread, contacts = ncontacts, deterministic = deterministic,
         warm_sweeps = warm_sweeps, cold_sweeps = cold_sweeps, warm_failures = warm_failures, cold_failures = cold_failures,
         warm_median = median(warm_sweeps, 2), cold_median = median(cold_sweeps),
         explore_failures = explore_failures, mean_coverage = { random = samples > 0 and mean(coverage.random) or nil,
         cyclic = cyclic > 0 and mean(coverage.cyclic) or nil, zero = zero > 0 and mean(coverage.zero) or nil },
         results = results, kinds = kinds, at_rest = vmax < 1e-6, summary = summary,
         sets = sets, bounded = bounded, worst_outside = worst_outside, coverage = coverage,
         grain1 = grain1, grain3 = grain3, lp_cpu = lp_cpu, lps = lps, explore_cpu = explore_cpu,
         grain_forces = grain_forces, grains = grains, mass = mass, g = g, h = h }
