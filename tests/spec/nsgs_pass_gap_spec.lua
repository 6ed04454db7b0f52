-- NSGS's residual passes under check_every = 1, the default (src/nonsmooth/nsgs.c,
-- solver.c rcn_pass_due / rcn_pass_gap; docs/granular.md "Solvers and their options"): a pass
-- after each of the first 8 sweeps, then spaced by the convergence the last two passes
-- predict. The step still stops only on a true pass <= tol, and a short solve stops where a
-- pass after every sweep would stop it.
local rc = require "ricochet"

-- cols x rows disks (radius 0.1) packed at rest between two walls: every contact carries
-- weight from the first step, which then needs hundreds of sweeps at a tight tolerance
local function pile(solver)
  local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
  local r, cols, rows = 0.1, 6, 5
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
  w:halfplane{ point = { 2 * r * cols + r, 0 }, normal = { -1, 0 } }
  local m = math.pi * r * r
  for i = 0, cols * rows - 1 do
    local col, row = i % cols, i // cols
    w:body{ mass = m, inertia = 0.5 * m * r * r, q = { r + 2 * r * col + (row % 2) * r, r + math.sqrt(3) * r * row, 0 },
            shape = rc.disk{ radius = r } }
  end
  w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
  return w:simulation{ h = 1e-3, solver = solver }
end

local function first_step(solver)
  local sim = pile(solver)
  sim:step()
  local info = sim:info()
  return info.iterations, info.residual, info.converged
end

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
