-- solver = { "newton" } (src/nonsmooth/newton.c): the semismooth Newton method on
-- the Alart--Curnier equations gives NSGS's solution, in the Coulomb cone, in a
-- few iterations; laws without a closed form through finite differences; the
-- NSGS fallback; the option checks. docs/theory/newton-solver.md.
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local worlds = require "solver_worlds"

local g = 9.81

-- solver_worlds.lua's box on a slope: the down-slope acceleration over n
-- steps and the solver figures
local function incline(solver, alpha, mu, n, extra)
  return worlds.incline(worlds.with({ solver, tol = 1e-12 }, extra), alpha, mu, n)
end

-- A Lua law, the twin of rc.newton (docs/laws.md)
local function lua_newton(e, mu)
  return rc.law{ name = "lua-newton", params = { e = e, mu = mu },
    xi = function(law, uN, uT, uoN, uoT, ctx)
      return uN + cone.shift(law.e, 0, uoN, uoT, ctx) + law.mu * math.abs(uT), uT
    end,
    project = function(law, xN, xT) return cone.project(law.mu, xN, xT) end }
end

-- solver_worlds.lua's stack of three boxes (e = 0.5, mu = 0.4) with the
-- built-in law, the generic local solver or a Lua twin (law_kind "builtin",
-- "generic", "lua")
local function stack(solver, law_kind, extra, scheme)
  local law = law_kind == "lua" and lua_newton(0.5, 0.4)
    or rc.newton{ e = 0.5, mu = 0.4, local_solver = law_kind == "generic" and "generic" or nil }
  return worlds.stack(worlds.with({ solver, tol = 1e-10, max_iter = 10000 }, extra), law, scheme)
end

local function near(a, b, tol)
  for i = 1, 3 do
    if math.abs(a[i] - b[i]) > tol then return false end
  end
  return true
end

describe("solver = { \"newton\" }", function()
  it("a box on a slope slides with g (sin - mu cos) and sticks below the cone, in 1-2 iterations a step", function()
    local a, it, st = incline("newton", 30, 0.2, 500)
    local a_exact = g * (math.sin(math.rad(30)) - 0.2 * math.cos(math.rad(30)))
    assert.is_near(a_exact, a, 1e-9)
    assert.is_true(it <= 1, it)
    assert.are.equal(0, st.failures)
    assert.are.equal(0, st.newton_fallbacks)
    local a_nsgs, it_nsgs = incline("nsgs", 30, 0.2, 500)
    assert.is_near(a_nsgs, a, 1e-9)
    assert.is_true(it_nsgs >= 10, it_nsgs)          -- measured 14
    local a_stick, it_stick = incline("newton", 20, 0.5, 500)   -- tan 20 deg = 0.364 < 0.5
    assert.is_near(0, a_stick, 1e-9)
    assert.is_true(it_stick <= 2, it_stick)
    -- Fischer--Burmeister for the normal part: the same motion, a few more iterations
    local a_fb, it_fb = incline("newton", 30, 0.2, 500, { formulation = "fischer-burmeister" })
    assert.is_near(a_exact, a_fb, 1e-9)
    assert.is_true(it_fb <= 6, it_fb)
  end)

  it("gives NSGS's motion on a stack with stick, slip and impacts, impulses in the cone, <= 3 iterations", function()
    local q_nsgs, it_nsgs, _, in_nsgs, st_nsgs = stack("nsgs", "builtin")
    local q, it, total, inside, st = stack("newton", "builtin")
    assert.is_true(in_nsgs and inside)
    assert.are.equal(0, st.failures + st_nsgs.failures)
    assert.are.equal(0, st.newton_fallbacks)
    assert.is_true(near(q, q_nsgs, 1e-9))             -- both to tol 1e-10 a step (measured 5e-12)
    assert.is_true(it <= 3, it)                        -- quadratic convergence: measured 2
    assert.is_true(it_nsgs >= 50, it_nsgs)             -- NSGS: 137 sweeps in a step
    assert.is_true(total < 400, total)                 -- NSGS: ~10 000 sweeps in all
    assert.is_true(st.max_residual <= 1e-10)
  end)

  it("solves a law written in Lua (and a C law through its generic interface) by finite differences", function()
    local q_ref = stack("newton", "builtin")
    for _, kind in ipairs{ "lua", "generic" } do
      local q, it, _, inside, st = stack("newton", kind)
      assert.is_true(near(q, q_ref, 1e-8), kind)
      assert.is_true(inside, kind)
      assert.is_true(it <= 6, kind .. ": " .. it)     -- measured 5 and 4
      assert.are.equal(0, st.failures)
      assert.are.equal(0, st.newton_fallbacks)
    end
  end)

  it("works under Moreau--Jean--Fremond and Maury: NSGS's motion", function()
    for _, scheme in ipairs{ "moreau-jean-fremond", "maury" } do
      local q_nsgs = stack("nsgs", "builtin", nil, scheme)
      local q, it, _, inside, st = stack("newton", "builtin", nil, scheme)
      assert.is_true(near(q, q_nsgs, 1e-8), scheme)
      assert.is_true(inside, scheme)
      assert.is_true(it <= 8, scheme .. ": " .. it)
      assert.are.equal(0, st.failures)
    end
  end)

  it("falls back to NSGS when Newton stops short (max_iter = 1), warns once, counts every fallback", function()
    local q_ref = stack("newton", "builtin")
    local q, _, _, inside, st = stack("newton", "builtin", { max_iter = 1 })
    assert.is_true(st.newton_fallbacks > 0)
    assert.are.equal(0, st.failures)                   -- NSGS finished those solves
    assert.is_true(inside)
    assert.is_true(near(q, q_ref, 1e-8))
    -- without the fallback the step is not converged: on_fail = "error" names time, step, contact, residual
    local ok, err = pcall(stack, "newton", "builtin", { max_iter = 1, fallback = false, on_fail = "error" })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("solver did not converge at t = [%d.e-]+ %(step %d+%): residual [%d.e+-]+ > tol 1%.000e%-10 after 1 sweeps; worst contact %d+"),
                  tostring(err))
  end)

  it("checks its options", function()
    local w = rc.world{}
    local function err(t) local ok, e = pcall(w.simulation, w, t); assert.is_false(ok); return tostring(e) end
    assert.truthy(err{ solver = { "newton", formulation = "lemke" } }:find(
      "world:simulation: solver: 'formulation' must be one of \"alart-curnier\", \"fischer-burmeister\" (got 'lemke')", 1, true))
    assert.truthy(err{ solver = { "nsgs", formulation = "fischer-burmeister" } }:find(
      "world:simulation: solver: 'formulation' is an option of the \"newton\" solver (solver is 'nsgs')", 1, true))
    assert.truthy(err{ solver = { "uzawa", fallback = false } }:find(
      "world:simulation: solver: 'fallback' is an option of the \"newton\" solver (solver is 'uzawa')", 1, true))
    assert.truthy(err{ solver = { "newton", fallback = 1 } }:find("world:simulation: solver: 'fallback' must be true or false (got 1)", 1, true))
    assert.truthy(err{ solver = { "newton", line_search = true } }:find("world:simulation: solver: unknown key 'line_search' (allowed: ", 1, true))
    assert.truthy(err{ solver = { "newton", tol = 0 } }:find("world:simulation: solver: 'tol' must be > 0 (got 0)", 1, true))
    assert.truthy(err{ solver = { "newton", max_iter = 0 } }:find("world:simulation: solver: 'max_iter' must be >= 1 (got 0)", 1, true))
    -- gen-alpha's step is its own semismooth Newton: "newton" names it, Fischer--Burmeister does not apply
    assert.truthy(err{ scheme = "gen-alpha", solver = { "newton", formulation = "fischer-burmeister" } }:find(
      "solver: gen-alpha's Newton uses the active sets of eq. (38); formulation \"fischer-burmeister\" is for moreau-jean, moreau-jean-fremond and maury", 1, true))
    assert.are.equal("newton", w:simulation{ scheme = "gen-alpha", solver = { "newton" } }.solver)
    assert.are.equal("newton", w:simulation{ solver = { "newton" } }.solver)
  end)
end)
