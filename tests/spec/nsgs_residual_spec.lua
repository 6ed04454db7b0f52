-- NSGS's convergence test, solver = { "nsgs", residual = "pass" | "sweep" } (src/nonsmooth/nsgs.c,
-- docs/granular.md). "sweep" sums each contact's natural-map residual as its local solve
-- visits it (an estimate that lags the iterate) and decides with a true pass only when
-- that estimate is <= tol and at the sweep cap. Both settings make the same sweeps, so:
-- "sweep" stops at a sweep where "pass" would have stopped too (never earlier), reports
-- the true residual there (a second run capped at that many sweeps reports the same
-- number bit for bit), and at the cap reports what "pass" reports.
local rc = require "ricochet"

-- A hexagonal pile of cols x rows disks (radius 0.1) at rest between two walls, every
-- neighbour touching: all contacts carry weight from the first step. The law: the
-- built-in Newton-Coulomb law, or (lua = true) its twin written in Lua.
local function pile(solver, lua, cols, rows)
  local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
  local r = 0.1
  cols, rows = cols or 6, rows or 5
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
  w:halfplane{ point = { 2 * r * cols + r, 0 }, normal = { -1, 0 } }
  local m = math.pi * r * r
  for i = 0, cols * rows - 1 do
    local col, row = i % cols, i // cols
    w:body{ mass = m, inertia = 0.5 * m * r * r, q = { r + 2 * r * col + (row % 2) * r, r + math.sqrt(3) * r * row, 0 },
            shape = rc.disk{ radius = r } }
  end
  local law = lua and require("ricochet.laws.coulomb"){ e = 0, mu = 0.3 } or rc.newton{ e = 0, mu = 0.3 }
  w:contact{ groups = { 0, 0 }, law = law }
  return w:simulation{ h = 1e-3, solver = solver }
end

-- the first step of the pile: sweeps, residual, converged
local function first_step(solver, lua)
  local sim = pile(solver, lua)
  sim:step()
  local info = sim:info()
  return info.iterations, info.residual, info.converged
end

local function with(t, extra)
  local s = { "nsgs" }
  for k, v in pairs(t) do s[k] = v end
  for k, v in pairs(extra or {}) do s[k] = v end
  return s
end

describe("NSGS residual = \"sweep\"", function()
  it("stops only where the true residual is <= tol, and reports that one", function()
    local later = 0
    for _, norm in ipairs { "l2", "max" } do
      for _, tol in ipairs { 1e-5, 1e-6, 1e-7 } do
        local base = { tol = tol, norm = norm, max_iter = 5000 }
        local kp, rp, cp = first_step(with(base, { residual = "pass" }))
        local ks, rs, cs = first_step(with(base, { residual = "sweep" }))
        assert.is_true(cp and cs, norm .. " " .. tol)
        assert.is_true(rs <= tol and rp <= tol, norm .. " " .. tol)
        -- the same sweeps: "pass" stops at the first sweep whose true residual is <= tol
        assert.is_true(ks >= kp, norm .. " " .. tol .. ": " .. ks .. " < " .. kp)
        if ks > kp then later = later + 1 end
        -- the residual reported is the true one after ks sweeps: "pass" capped at ks
        -- sweeps (a tolerance it cannot reach) reports the same number
        local kc, rc_, cc = first_step(with(base, { residual = "pass", tol = 1e-300, max_iter = ks }))
        assert.are.equal(ks, kc)
        assert.is_false(cc)
        assert.are.equal(rc_, rs)
      end
    end
    -- the in-sweep estimate differs from the true residual: it was above tol after
    -- sweeps where the true residual was already below in some of these cases
    assert.is_true(later > 0)
  end)

  it("at the sweep cap reports the true residual, as \"pass\" does", function()
    for _, norm in ipairs { "l2", "max" } do
      local kp, rp, cp = first_step({ "nsgs", tol = 1e-9, norm = norm, max_iter = 7, residual = "pass" })
      local ks, rs, cs = first_step({ "nsgs", tol = 1e-9, norm = norm, max_iter = 7, residual = "sweep" })
      assert.are.equal(7, kp)
      assert.are.equal(7, ks)
      assert.is_false(cp or cs)
      assert.are.equal(rp, rs)
    end
  end)

  it("respects check_every and the random order", function()
    for _, every in ipairs { 3, 4 } do
      local k, r, c = first_step({ "nsgs", tol = 1e-6, max_iter = 5000, check_every = every, residual = "sweep" })
      assert.is_true(c and r <= 1e-6)
      assert.are.equal(0, k % every)
    end
    local base = { tol = 1e-6, max_iter = 5000, order = "random", seed = 3 }
    local kp, rp = first_step(with(base, { residual = "pass" }))
    local ks, rs = first_step(with(base, { residual = "sweep" }))
    assert.is_true(ks >= kp and rs <= 1e-6 and rp <= 1e-6)
    local kc, rc_ = first_step(with(base, { residual = "pass", tol = 1e-300, max_iter = ks }))
    assert.are.equal(ks, kc)
    assert.are.equal(rc_, rs)
  end)

  it("a law written in Lua keeps the passes: the same steps and law calls as \"pass\"", function()
    local kp, rp = first_step({ "nsgs", tol = 1e-6, max_iter = 5000, residual = "pass" }, true)
    local ks, rs = first_step({ "nsgs", tol = 1e-6, max_iter = 5000, residual = "sweep" }, true)
    assert.are.equal(kp, ks)
    assert.are.equal(rp, rs)
  end)

  it("a pile over several steps: every step's reported residual within tol, positions as with \"pass\"", function()
    local function run(mode)
      local sim = pile({ "nsgs", tol = 1e-8, max_iter = 2000, residual = mode }, false, 4, 4)
      local worst = 0
      for _ = 1, 50 do
        sim:step()
        local info = sim:info()
        if info.converged then worst = math.max(worst, info.residual) end
      end
      return sim, worst
    end
    local sp, wp = run("pass")
    local ss, ws = run("sweep")
    assert.is_true(wp <= 1e-8 and ws <= 1e-8)
    local bp, bs = sp.world:bodies(), ss.world:bodies()
    for i = 1, #bp do
      local qp, qs = bp[i]:q(), bs[i]:q()
      for k = 1, 2 do assert.is_true(math.abs(qp[k] - qs[k]) < 1e-9, i .. " " .. k) end
    end
  end)

  it("checks the option", function()
    local w = rc.world{}
    local function has(msg, t)
      local ok, e = pcall(w.simulation, w, t)
      assert.is_false(ok)
      assert.truthy(tostring(e):find(msg, 1, true), tostring(e))
    end
    has("world:simulation: solver: 'residual' must be one of \"pass\", \"sweep\" (got 'fused')",
        { solver = { "nsgs", residual = "fused" } })
    has("world:simulation: solver: 'residual' must be one of \"pass\", \"sweep\" (got 1)",
        { solver = { "nsgs", residual = 1 } })
    has("world:simulation: solver: 'residual' is an option of the \"nsgs\" solver (solver is 'apgd')",
        { solver = { "apgd", residual = "sweep" } })
    assert.are.equal("pass", rc.core.defaults.sim.residual)
    assert.are.equal("sweep", w:simulation{ solver = { "nsgs", residual = "sweep" } }.residual)
  end)
end)

-- check_every = 1, the default (nsgs.c; solver.c rcn_pass_due / rcn_pass_gap): a pass after
-- each of the first 8 sweeps, then spaced by the convergence the last two passes predict. The
-- step still stops only on a true pass <= tol, and a short solve stops where a pass after every
-- sweep would stop it. (tests/c/test_nsgs_pack.c counts the passes.)
-- the true residual after exactly k sweeps: a run that cannot converge, capped at k (the
-- cap's sweep always ends with a pass)
local function after(k, extra)
  local s = { "nsgs", tol = 1e-300, max_iter = k }
  for key, v in pairs(extra or {}) do s[key] = v end
  local _, r = first_step(s)
  return r
end

describe("NSGS residual passes spaced by the predicted convergence", function()
  it("a long solve stops on a true pass: the residual of exactly that many sweeps, <= tol", function()
    for _, tol in ipairs { 1e-4, 1e-6, 1e-8 } do
      local k, r, c = first_step({ "nsgs", tol = tol, max_iter = 5000 })
      assert.is_true(c and k > 8 and r <= tol, ("tol %g: %d sweeps, residual %g"):format(tol, k, r))
      assert.are.equal(after(k), r)   -- bit for bit: no estimate, no stale pass
    end
  end)

  it("a short solve (at most 8 sweeps) stops at the first sweep whose residual is <= tol", function()
    local tol = 1e-2
    local k, r, c = first_step({ "nsgs", tol = tol, max_iter = 5000 })
    assert.is_true(c and k <= 8 and r <= tol)
    for j = 1, k - 1 do assert.is_true(after(j) > tol, "sweep " .. j) end
  end)

  it("check_every = n still passes every n sweeps", function()
    for _, every in ipairs { 2, 5 } do
      local k, r, c = first_step({ "nsgs", tol = 1e-6, max_iter = 5000, check_every = every })
      assert.is_true(c and r <= 1e-6)
      assert.are.equal(0, k % every)
      -- the pass after every n sweeps finds the first multiple of n below tol
      assert.is_true(after(k - every) > 1e-6)
    end
  end)

  it("the colour order on threads stops where it stops on one thread", function()
    local function colour(threads)
      return { "nsgs", tol = 1e-6, max_iter = 5000, order = "colour", threads = threads, adaptive_threads = false }
    end
    local k1, r1 = first_step(colour(1))
    local k2, r2 = first_step(colour(2))
    assert.are.equal(k1, k2)
    assert.are.equal(r1, r2)
    assert.is_true(r1 <= 1e-6 and k1 > 8)
    assert.are.equal(after(k1, { order = "colour" }), r1)
  end)
end)
