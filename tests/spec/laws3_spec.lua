-- Laws per pair and custom laws on the 3D contacts of a dim = 3 world
-- (docs/laws.md "dim = 3", docs/lua-api.md "Contact rules"): rules by bodies
-- and by groups pick a 3D contact's law; a law of dim 3 written in Lua
-- (ricochet.laws.coulomb3) is solved by the generic local solver and gives
-- the built-in rc.newton's motion to the solver's tolerance.
local rc = require "ricochet"
local coulomb3 = require "ricochet.laws.coulomb3"

local g, R, m = 9.81, 0.1, 1.0
local J = 0.4 * m * R * R

-- world angular velocity R(q) Omega
local function omega_world(q, v)
  local qw, qx, qy, qz, a = q[4], q[5], q[6], q[7], { v[4], v[5], v[6] }
  local tx, ty, tz = 2 * (qy * a[3] - qz * a[2]), 2 * (qz * a[1] - qx * a[3]), 2 * (qx * a[2] - qy * a[1])
  return { a[1] + qw * tx + (qy * tz - qz * ty), a[2] + qw * ty + (qz * tx - qx * tz), a[3] + qw * tz + (qx * ty - qy * tx) }
end

local function ball(w, x, vx, group, wz)
  return w:body{ mass = m, inertia = { J, J, J }, q = { x, 0, R, 1, 0, 0, 0 }, v = { vx, 0, 0, 0, 0, wz or 0 },
                 shape = rc.sphere{ radius = R, group = group } }
end

describe("contact rules on 3D contacts", function()
  -- sliding sphere, mu: rolls at v = 5/7 v0 after t = 2 v0 / (7 mu g)
  local function check_pair(slider, roller)
    local vs, vr = slider:v(), roller:v()
    assert.is_true(math.abs(vs[1] - 1.0) < 1e-12)                  -- mu = 0: slides forever
    assert.is_true(math.abs(vr[1] - 5 / 7) < 1e-9)                 -- mu = 0.5: rolls
    assert.is_true(math.abs(vr[1] - R * omega_world(roller:q(), vr)[2]) < 1e-9)   -- slip 0
  end

  it("a body rule gives one sphere mu = 0.5 beside a default mu = 0: one slides, the other rolls", function()
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ mu = 0 } }
    w:plane{}
    local a, b = ball(w, 0, 1.0), ball(w, 2, 1.0)
    w:contact{ w.ground, b, law = rc.newton{ mu = 0.5 } }
    w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12 } }:run{ T = 0.5 }
    check_pair(a, b)
  end)

  it("a group rule does the same (rc.sphere{ group = }, w:plane{ group = })", function()
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ mu = 0 } }
    w:plane{ group = 7 }
    local a, b = ball(w, 0, 1.0, 1), ball(w, 2, 1.0, 2)
    w:contact{ groups = { 2, 7 }, law = rc.newton{ mu = 0.5 } }
    w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12 } }:run{ T = 0.5 }
    check_pair(a, b)
  end)

  it("a body rule takes precedence over a group rule; law = false switches the pair off", function()
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ mu = 0.5 } }
    w:plane{ group = 7 }
    local a, b = ball(w, 0, 1.0, 2), ball(w, 2, 1.0, 2)
    w:contact{ groups = { 2, 7 }, law = rc.newton{ mu = 0 } }
    w:contact{ w.ground, b, law = rc.newton{ mu = 0.5 } }
    local c = ball(w, 4, 0.0)
    w:contact{ w.ground, c, law = false }
    w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12 } }:run{ T = 0.5 }
    check_pair(a, b)
    assert.is_true(math.abs(c:q()[3] - (R - 0.5 * g * 0.25)) < 1e-2)   -- fell through the plane
  end)

  it("a rule gives one spinning sphere Coulomb-Contensou: its spin slows down, the other's is kept", function()
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ mu = 0.3 } }
    w:plane{}
    local a, b = ball(w, 0, 0, 0, 5), ball(w, 1, 0, 0, 5)
    w:contact{ b, w.ground, law = rc.contensou{ mu = 0.3, radius = 0.01 } }
    w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12 } }:run{ T = 0.5 }
    assert.is_true(math.abs(a:v()[6] - 5) < 1e-9)    -- point contact: no torque about n
    -- drilling friction: the torque mu m g (3 pi r / 16) (eq. 157) slows it at a constant rate
    local rate = 0.3 * m * g * (3 * math.pi * 0.01 / 16) / J
    assert.is_true(math.abs(b:v()[6] - (5 - rate * 0.5)) < 1e-9)   -- measured 1e-13
  end)

  it("refuses a law of dim 2 where it would govern a 3D contact", function()
    local l2 = rc.law{ name = "planar", dim = 2, xi = function(_, uN, uT) return uN, uT end,
                       project = function(_, xN, xT) return math.max(xN, 0), 0 end }
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
    w:plane{}
    local b = ball(w, 0, 0)
    local ok, err = pcall(w.contact, w, { w.ground, b, law = l2 })
    assert.is_false(ok)
    assert.is_truthy(err:find("law 'planar' has dim = 2 (planar friction, one tangent): the contacts of a dim = 3 world are spatial (laws of dim 1 or 3)", 1, true))
    ok, err = pcall(rc.world, { dim = 3, default_law = l2 })
    assert.is_false(ok)
    assert.is_truthy(err:find("has dim = 2 (planar friction", 1, true))
  end)
end)

describe("a law of dim 3 written in Lua (ricochet.laws.coulomb3)", function()
  local function diff(a, b)
    local d = 0
    for i = 1, #a do d = math.max(d, math.abs(a[i] - b[i])) end
    return d
  end

  -- the spinning ball of capobianco2021_rotating_ball_3d.lua (case b: omega = 50,
  -- e = 0, mu = 0.2, dropped from z = 1): slides, sticks at t = 0.728, rolls
  local function rotating(law, scheme)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = law }
    w:plane{}
    local b = w:body{ mass = m, inertia = { J, J, J }, q = { 0, 0, 1, 1, 0, 0, 0 }, v = { 0, 0, 0, 0, -50, 0 },
                      shape = rc.sphere{ radius = R } }
    w:simulation{ scheme = scheme, h = 2e-3, solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }:run{ T = 1.1 }
    return b:q(), b:v()
  end
  -- a sphere sliding obliquely with spin about all three axes, bouncing (e = 0.5)
  local function oblique(law, scheme)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = law }
    w:plane{}
    local b = w:body{ mass = m, inertia = { J, J, J }, q = { 0, 0, 0.3, 1, 0, 0, 0 }, v = { 1, 0.5, 0, 3, -50, 7 },
                      shape = rc.sphere{ radius = R } }
    w:simulation{ scheme = scheme, h = 2e-3, solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }:run{ T = 0.8 }
    return b:q(), b:v()
  end

  for _, scheme in ipairs{ "moreau-jean", "moreau-jean-fremond" } do
    it("gives the built-in rc.newton's trajectory to 1e-11: rotating ball, " .. scheme, function()
      local q1, v1 = rotating(rc.newton{ e = 0, mu = 0.2 }, scheme)
      local q2, v2 = rotating(coulomb3{ e = 0, mu = 0.2 }, scheme)
      assert.is_true(diff(q1, q2) < 1e-11 and diff(v1, v2) < 1e-11)
      -- rolls at -(2/7) R omega (MJF at theta = 1/2: -1.428336, 2.4e-4 off at this h)
      assert.is_true(math.abs(v2[1] + 2 / 7 * R * 50) < (scheme == "moreau-jean" and 1e-9 or 1e-3))
    end)
    it("gives the built-in rc.newton's trajectory to 1e-11: oblique slide with spin, " .. scheme, function()
      local q1, v1 = oblique(rc.newton{ e = 0.5, mu = 0.2 }, scheme)
      local q2, v2 = oblique(coulomb3{ e = 0.5, mu = 0.2 }, scheme)
      assert.is_true(diff(q1, q2) < 1e-11 and diff(v1, v2) < 1e-11)
      assert.is_true(math.abs(v2[2]) > 1e-3)                          -- the motion is not planar
    end)
  end

  it("a built-in law on the generic solver and a frictionless law of dim 1 solve 3D contacts too", function()
    for _, scheme in ipairs{ "moreau-jean", "moreau-jean-fremond" } do
      local _, v1 = oblique(rc.newton{ e = 0.5, mu = 0.2 }, scheme)
      local _, v2 = oblique(rc.newton{ e = 0.5, mu = 0.2, local_solver = "generic" }, scheme)
      assert.is_true(diff(v1, v2) < 1e-11)
    end
    local _, v3 = oblique(rc.law{ name = "frictionless", dim = 1, params = { e = 0.5 },
      xi = function(l, uN, _, uoN) return uN + l.e * uoN, 0 end,
      project = function(_, xN) return math.max(xN, 0), 0 end }, "moreau-jean")
    local _, v4 = oblique(rc.newton{ e = 0.5, mu = 0 }, "moreau-jean")
    assert.is_true(diff(v3, v4) < 1e-11)
    assert.is_true(math.abs(v3[1] - 1) < 1e-12)   -- no friction: v_x kept
  end)

  it("keeps a per-contact state, updated once a step with 3-vectors", function()
    local seen = {}
    local base = coulomb3{ mu = 0.3 }
    local law = rc.law{ name = "counting", dim = 3, params = { mu = 0.3, e = 0 }, state = { steps = 0 },
      xi = function(...) return base.xi(...) end, project = function(...) return base.project(...) end,
      update = function(_, ctx, uN, uT, uS, uoN, uoT, uoS, pN, pT, pS)
        assert(ctx.dim == 3 and math.abs(ctx.nz - 1) < 1e-15 and select("#", uN, uT, uS, uoN, uoT, uoS, pN, pT, pS) == 9)
        if pN > 0 then ctx.state.steps = ctx.state.steps + 1 end
        seen[ctx.contact] = ctx.state.steps
      end }
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = law }
    w:plane{}
    ball(w, 0, 0.5)
    w:simulation{ h = 1e-3 }:run{ T = 0.1 }
    assert.are.equal(100, seen[0])   -- p_N > 0 in each of the 100 steps (resting from the start)
  end)

  it("an error inside the law fails the step naming the law and the contact", function()
    local law = rc.law{ name = "broken3", dim = 3,
      xi = function(_, uN, uT, uS, uoN, uoT, uoS, ctx)
        if ctx.contact == 0 and ctx.t > 0 then error("no friction today") end
        return uN, uT, uS
      end,
      project = function(_, xN, xT, xS) return math.max(xN, 0), 0, 0 end }
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = law }
    w:plane{}
    ball(w, 0, 0)
    local sim = w:simulation{ h = 1e-3 }
    local ok, err = pcall(sim.run, sim, { T = 0.01 })
    assert.is_false(ok)
    assert.is_truthy(err:find("law 'broken3': 'xi' failed for contact 0 at t = ", 1, true))
    assert.is_truthy(err:find("no friction today", 1, true))
  end)
end)
