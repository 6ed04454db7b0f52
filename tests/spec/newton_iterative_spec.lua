-- solver = { "newton", linear = ... } (src/nonsmooth/newton_krylov.c): the
-- iterative path (matrix-free GMRES, block-Jacobi preconditioner, inexact
-- Newton) gives the dense path's solution on the problems of
-- newton_solver_spec.lua and on a 200-disk pile, "auto" picks dense up to
-- RC_NEWTON_DENSE_ROWS = 100 rows and iterative above (bit for bit the forced
-- path), no allocation after the first step, the option's checks.
-- docs/theory/newton-solver.md, "The linear solve".
local rc = require "ricochet"
local worlds = require "solver_worlds"

local g = 9.81

-- solver_worlds.lua's box on a slope with { "newton", tol = 1e-12 } and extra keys
local function incline(alpha, mu, n, extra)
  return worlds.incline(worlds.with({ "newton", tol = 1e-12 }, extra), alpha, mu, n)
end

-- solver_worlds.lua's stack of three boxes with { "newton", tol = 1e-10 } and extra keys
local function stack(extra)
  return worlds.stack(worlds.with({ "newton", tol = 1e-10, max_iter = 10000 }, extra))
end

-- scripts/bench/disks_in_box.lua's 200-disk pile (radii 0.1 +- 10 %, seeded
-- jitter and velocities, e = 0, mu = 0.3) settled by NSGS (tol 1e-3) for
-- 0.4 s, then nsteps steps of the Newton solver with tol 1e-8. Returns the
-- velocities, the Newton iterations of every step, the stats of those
-- steps, the allocation count after each step, the active contacts.
local function pile(extra, nsteps)
  math.randomseed(42)
  local function uniform(a, b) return a + (b - a) * math.random() end
  local N = 200
  local c = math.ceil(math.sqrt(2 * N))
  local width = 0.25 * c
  local w = rc.world{ gravity = { 0, -g }, margin = 0.01 }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
  w:halfplane{ point = { width, 0 }, normal = { -1, 0 } }
  local bodies = {}
  for i = 0, N - 1 do
    local col, row = i % c, i // c
    local r = 0.1 * uniform(0.9, 1.1)
    local m = math.pi * r * r
    bodies[#bodies + 1] = w:body{ mass = m, inertia = 0.5 * m * r * r,
      q = { 0.25 * (col + 0.5) + uniform(-0.01, 0.01), 0.25 * (row + 0.5) + 0.05 + uniform(-0.01, 0.01), 0 },
      v = { uniform(-0.5, 0.5), uniform(-0.5, 0.5), 0 }, shape = rc.disk{ radius = r } }
  end
  w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
  local settle = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-3, max_iter = 1000 } }
  for _ = 1, 400 do settle:step() end
  local so = { "newton", tol = 1e-8, max_iter = 100 }
  for k, v in pairs(extra or {}) do so[k] = v end
  local sim = w:simulation{ h = 1e-3, solver = so }
  local its, allocs = {}, { ncontacts = {} }
  local st0 = sim:stats()
  for k = 1, nsteps do
    sim:step()
    its[k] = sim:info().iterations
    allocs[k] = rc.alloc_count()
    allocs.ncontacts[k] = sim:info().ncontacts
  end
  local st = sim:stats()
  st.newton_fallbacks = st.newton_fallbacks - st0.newton_fallbacks
  st.failures = st.failures - st0.failures
  local v = {}
  for i, b in ipairs(bodies) do v[i] = b:v() end
  local active = 0
  for _, ct in ipairs(sim:contacts()) do if ct.active then active = active + 1 end end
  return v, its, st, allocs, active
end

local function max_diff(a, b)
  local d = 0
  for i = 1, #a do
    for k = 1, 3 do d = math.max(d, math.abs(a[i][k] - b[i][k])) end
  end
  return d
end

describe("solver = { \"newton\", linear = ... }", function()
  it("iterative: the box on the slope slides with g (sin - mu cos) and sticks below the cone", function()
    local a_exact = g * (math.sin(math.rad(30)) - 0.2 * math.cos(math.rad(30)))
    local a, it, st = incline(30, 0.2, 500, { linear = "iterative" })
    local a_d = incline(30, 0.2, 500, { linear = "dense" })
    assert.is_near(a_exact, a, 1e-9)
    assert.is_near(a_d, a, 1e-12)
    assert.is_true(it <= 3, it)                        -- measured 3 in the first step (eta = 0.1), then 0
    assert.are.equal(0, st.failures + st.newton_fallbacks)
    local a_stick = incline(20, 0.5, 500, { linear = "iterative" })
    assert.is_near(0, a_stick, 1e-9)
  end)

  it("iterative: the stack's motion is the dense path's, impulses in the cone, no fallback", function()
    local q_d, it_d, total_d = stack{ linear = "dense" }
    local q, it, total, inside, st = stack{ linear = "iterative" }
    for i = 1, 3 do assert.is_near(q_d[i], q[i], 1e-9) end   -- measured 3e-13
    assert.is_true(inside)
    assert.are.equal(0, st.failures + st.newton_fallbacks)
    assert.is_true(st.max_residual <= 1e-10)
    -- inexact Newton: more iterations than the dense path (measured 5 against 2
    -- at most a step, 494 against 217 in all), still far below NSGS's ~10 000 sweeps
    assert.is_true(it <= 8, it)
    assert.is_true(total < 3 * total_d, total .. " vs " .. total_d)
    -- 12 rows: "auto" is the dense path, bit for bit
    local q_auto = stack{}
    for i = 1, 3 do assert.are.equal(q_d[i], q_auto[i]) end
  end)

  it("on a 200-disk pile both paths meet the tolerance; auto is iterative there; no allocation after the first step", function()
    local steps = 6
    local v_d, its_d, st_d, _, active = pile({ linear = "dense" }, steps)
    local v_i, its_i, st_i, allocs = pile({ linear = "iterative" }, steps)
    assert.is_true(2 * active > 100, active)              -- above RC_NEWTON_DENSE_ROWS = 100 rows
    for _, st in ipairs{ st_d, st_i } do
      assert.are.equal(0, st.failures + st.newton_fallbacks)
    end
    -- the same velocities to the tolerance's order (the pile is hyperstatic:
    -- the impulses are not unique, the motion nearly so)
    assert.is_true(max_diff(v_d, v_i) < 1e-6, max_diff(v_d, v_i))   -- measured 1.8e-7 (velocities ~ 1e-2)
    for k = 1, steps do assert.is_true(its_d[k] >= 4, its_d[k]) end   -- not a trivial solve
    -- Newton iterations a step: the inexact solves cost at most a few more
    for k = 1, steps do assert.is_true(its_d[k] >= 4, its_d[k]) end   -- not a trivial solve
    -- Newton iterations a step: the inexact solves (eta up to 0.1) cost more,
    -- measured 5 8 8 7 6 8 dense against 10 11 13 9 10 11 iterative
    for k = 1, steps do assert.is_true(its_i[k] <= its_d[k] + 7, k .. ": " .. its_i[k] .. " vs " .. its_d[k]) end
    -- the step's arena holds GMRES's arrays: a step allocates only when the
    -- detected contacts reach a new high (the kernel's arrays grow, under
    -- NSGS too), measured 336 337 338 339 339 338
    local high, quiet = allocs.ncontacts[1], 0
    for k = 2, steps do
      if allocs.ncontacts[k] <= high then
        assert.are.equal(allocs[k - 1], allocs[k], "step " .. k)
        quiet = quiet + 1
      end
      high = math.max(high, allocs.ncontacts[k])
    end
    assert.is_true(quiet >= 2, quiet)
    -- above 100 rows "auto" is the iterative path, bit for bit
    local v_a = pile({}, steps)
    assert.are.equal(0, max_diff(v_i, v_a))
  end)

  it("sparse: the box on the slope and the stack move as on the dense path, impulses in the cone, no fallback", function()
    local a_exact = g * (math.sin(math.rad(30)) - 0.2 * math.cos(math.rad(30)))
    local a, it_s, st_s = incline(30, 0.2, 500, { linear = "sparse" })
    assert.is_near(a_exact, a, 1e-9)
    assert.is_true(it_s <= 4, it_s)                    -- measured 3 (the shift's cap 1e-3 costs 2 more than dense)
    assert.are.equal(0, st_s.failures + st_s.newton_fallbacks)
    assert.is_near(0, incline(20, 0.5, 500, { linear = "sparse" }), 1e-9)
    local q_d = stack{ linear = "dense" }
    local q, it, _, inside, st = stack{ linear = "sparse" }
    for i = 1, 3 do assert.is_near(q_d[i], q[i], 1e-9) end
    assert.is_true(inside)
    assert.are.equal(0, st.failures + st.newton_fallbacks)
    assert.is_true(st.max_residual <= 1e-10)
    assert.is_true(it <= 8, it)
  end)

  it("sparse: on the 200-disk pile the dense path's velocities, the tolerance in every step, no fallback", function()
    local steps = 6
    local v_d = pile({ linear = "dense" }, steps)
    local v_s, its_s, st_s, allocs = pile({ linear = "sparse" }, steps)
    assert.are.equal(0, st_s.failures + st_s.newton_fallbacks)
    assert.is_true(max_diff(v_d, v_s) < 1e-6, max_diff(v_d, v_s))   -- hyperstatic: the motion, not the impulses
    for k = 1, steps do assert.is_true(its_s[k] >= 3 and its_s[k] <= 20, k .. ": " .. its_s[k]) end
    -- the compressed columns live in the step's arena (KLU's own factors are
    -- freed at the end of each solve): no arena growth while the contacts do not grow
    local high = allocs.ncontacts[1]
    for k = 2, steps do
      if allocs.ncontacts[k] <= high then assert.are.equal(allocs[k - 1], allocs[k], "step " .. k) end
      high = math.max(high, allocs.ncontacts[k])
    end
  end)

  it("sparse with a joint or a linear body takes the iterative path (the same numbers)", function()
    local function pendulum(linear)
      local w = rc.world{ gravity = { 0, -g } }
      w:halfplane{ point = { 0, -0.6 }, normal = { 0, 1 } }
      local b = w:body{ mass = 1, inertia = 0.01, q = { 0.5, 0, 0 }, shape = rc.disk{ radius = 0.1 } }
      w:revolute{ w.ground, b, at = { 0, 0 } }
      w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
      local sim = w:simulation{ h = 1e-3, solver = { "newton", tol = 1e-12, linear = linear } }
      sim:run{ T = 0.6 }
      return b:v(), sim:stats()
    end
    local v_i, st_i = pendulum("iterative")
    local v_s, st_s = pendulum("sparse")
    for k = 1, 3 do assert.are.equal(v_i[k], v_s[k]) end
    assert.are.equal(st_i.max_iterations, st_s.max_iterations)
  end)

  it("checks the option", function()
    local w = rc.world{}
    local function err(t) local ok, e = pcall(w.simulation, w, t); assert.is_false(ok); return tostring(e) end
    assert.truthy(err{ solver = { "newton", linear = "cholesky" } }:find(
      "world:simulation: solver: 'linear' must be one of \"auto\", \"dense\", \"iterative\", \"sparse\" (got 'cholesky')", 1, true))
    assert.truthy(err{ solver = { "nsgs", linear = "dense" } }:find(
      "world:simulation: solver: 'linear' is an option of the \"newton\" solver (solver is 'nsgs')", 1, true))
    assert.truthy(err{ solver = { "newton", linear = 1 } }:find("world:simulation: solver: 'linear' must be", 1, true))
    assert.are.equal("iterative", w:simulation{ solver = { "newton", linear = "iterative" } }.linear)
    assert.are.equal("auto", w:simulation{ solver = { "newton" } }.linear)
    assert.are.equal("auto", require("ricochet.core").defaults.sim.linear)
  end)
end)
