-- circle_inside_spec.lua -- the concave circular wall (rc.circle_inside, w:obstacle): a
-- ball at rest at the bottom carries m g; a ball rolling without slip inside it reaches
-- the speed of energy conservation with 2/5 m r^2 inertia (sliding without friction:
-- without it) with its contact point at rest; the same wall as a Lua gap function gives
-- the same trajectory (scripts/examples/ball_in_cylinder.lua, examples_spec checks it
-- too); placement by w:obstacle's at/angle; queries; errors naming the argument.
local rc = require "ricochet"

local g, m, r = 9.81, 1.0, 0.1

local function ball_world(t)
  local w = rc.world{ gravity = { 0, -g } }
  local wall = w:obstacle{ shape = rc.circle_inside{ centre = t.centre or { 0, 0 }, radius = t.Rc or 1 } }
  local ball = w:body{ mass = m, inertia = 0.4 * m * r * r, q = t.q, v = t.v, shape = rc.disk{ radius = r } }
  w:contact{ w.ground, ball, law = rc.newton{ e = 0, mu = t.mu or 0 } }
  return w, ball, wall
end

describe("the circular wall rc.circle_inside", function()
  it("holds a ball at rest at its bottom with the static force m g, gap 0", function()
    local w, ball = ball_world{ centre = { 0, 0 }, Rc = 1, q = { 0, -0.9, 0 }, mu = 0.5 }   -- gN = 0 exactly
    local h = 1e-3
    local sim = w:simulation{ h = h, theta = 1, solver = { "nsgs", tol = 1e-14 } }
    for _ = 1, 50 do
      sim:step()
      local c = sim:contacts()
      assert.are.equal(1, #c)
      assert.is_true(c[1].active)
      assert.is_near(m * g, c[1].pN / h, 1e-10)
      assert.is_near(0, c[1].pT, 1e-12)
      assert.are.same({ 0, 1 }, { c[1].normal[1] + 0, c[1].normal[2] })   -- upwards, to the centre
      assert.is_near(0, c[1].gN, 1e-15)
    end
    local q, v = ball:q(), ball:v()
    assert.are.equal(0, q[1]); assert.is_near(-0.9, q[2], 1e-14)
    for k = 1, 3 do assert.is_near(0, v[k], 1e-12) end
  end)

  -- released at rest 30 degrees up the wall of radius 1 (centre path L = 0.9): at the
  -- bottom v^2 = 2 g L (1 - cos 30) / (1 + J / (m r^2)), J / (m r^2) = 2/5 when rolling,
  -- 0 when sliding without friction; measured relative errors -1.2e-4 rolling, -2.2e-4
  -- sliding (h = 1e-3, first order: -1.2e-5 and -2.2e-5 at h = 1e-4)
  for _, case in ipairs{ { mu = 1, k = 0.4 }, { mu = 0, k = 0 } } do
    it(string.format("rolls (mu = %g) to the speed of energy conservation, %s", case.mu,
                     case.mu > 0 and "its contact point at rest" or "without turning"), function()
      local L, phi0 = 0.9, math.rad(30)
      local w, ball = ball_world{ q = { L * math.sin(phi0), -L * math.cos(phi0), 0 }, mu = case.mu }
      local sim = w:simulation{ h = 1e-3, theta = 1, solver = { "nsgs", tol = 1e-14 } }
      local vmax, slip, steps, q0 = 0, 0, 0, ball:q()
      sim:after_step(function()
        local v = ball:v()
        vmax = math.max(vmax, math.sqrt(v[1]^2 + v[2]^2))
        -- the velocity v_{k+1} of the ball's material point on the wall at q_k (the
        -- scheme's contact point, c + r e, e = c/|c| outwards), along the wall
        local d = math.sqrt(q0[1]^2 + q0[2]^2)
        local ex, ey = q0[1] / d, q0[2] / d
        local cx, cy = v[1] - v[3] * r * ey, v[2] + v[3] * r * ex
        slip = math.max(slip, math.abs(cx * ey - cy * ex))
        steps, q0 = steps + 1, ball:q()
      end)
      sim:run{ T = 0.6 }                  -- past the bottom (a quarter period is about 0.4 s)
      local want = math.sqrt(2 * g * L * (1 - math.cos(phi0)) / (1 + case.k))
      assert.is_near(want, vmax, 5e-4 * want)
      if case.mu > 0 then
        assert.is_true(slip < 1e-12)
      else
        assert.is_near(0, ball:v()[3], 1e-12)    -- no friction: no torque (round-off of r x n)
        assert.is_true(slip > 1)
      end
      assert.are.equal(600, steps)
    end)
  end

  it("gives the trajectory of the same wall written as a Lua gap function", function()
    local function run(set)
      rc.reset_params()
      rc.set_options{ script = "scripts/examples/ball_in_cylinder.lua", set = set }
      local print0 = _G.print
      _G.print = function() end
      local ok, res = pcall(dofile, (os.getenv("RICOCHET_ROOT") or ".") .. "/scripts/examples/ball_in_cylinder.lua")
      _G.print = print0
      rc.set_options(nil)
      assert(ok, res)
      return res
    end
    local a, b = run{ wall = "circle", v0 = "1" }, run{ wall = "gap", v0 = "1" }
    assert.are.equal(300, #a.traj)
    local d = 0
    for k = 1, #a.traj do
      for j = 1, 6 do d = math.max(d, math.abs(a.traj[k][j] - b.traj[k][j])) end
    end
    assert.is_true(d < 1e-12, "largest difference " .. d)   -- measured 2.5e-14 (v0 = 0)
    assert.is_near(a.penetration, b.penetration, 1e-12)
  end)

  it("is placed by w:obstacle's at and angle, reported by shape_def, found by queries", function()
    local w = rc.world{}
    local id = w:obstacle{ shape = rc.circle_inside{ centre = { 1, 0 }, radius = 2, name = "drum" },
                           at = { 0, 3 }, angle = math.pi / 2 }
    local d = rc.core.shape_def(w._c, id)
    assert.are.equal("circle_inside", d.type)
    assert.are.equal(-1, d.body)
    assert.is_near(0, d.centre[1], 1e-15); assert.is_near(4, d.centre[2], 1e-15)
    assert.are.equal(2, d.radius)
    assert.are.equal("drum", d.name)
    -- the solid is the outside: a point inside the circle is not in it, one outside is
    assert.are.same({}, w:query_point{ point = { 0, 4 } })
    assert.are.equal(1, #w:query_point{ point = { 0, 6.5 } })
    local hit = w:ray_cast{ from = { 0, 4 }, to = { 0, 10 } }
    assert.is_near(1 / 3, hit.fraction, 1e-15)
    assert.is_near(-1, hit.normal[2], 1e-15)
  end)

  it("refuses bad arguments with an error naming them", function()
    local function err(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return e
    end
    local function has(want, got) assert.is_truthy(got:find(want, 1, true), got) end
    has("rc.circle_inside: 'radius' must be > 0 (got 0)", err(rc.circle_inside, { radius = 0 }))
    has("rc.circle_inside: 'radius' must be > 0 (got -1)", err(rc.circle_inside, { radius = -1 }))
    has("rc.circle_inside: 'radius' must be a finite number (got inf)", err(rc.circle_inside, { radius = math.huge }))
    has("rc.circle_inside: 'radius' is required", err(rc.circle_inside, {}))
    has("rc.circle_inside: 'radius' must be a number (got 'a')", err(rc.circle_inside, { radius = "a" }))
    has("rc.circle_inside: 'centre[1]' must be a finite number (got nan)",
        err(rc.circle_inside, { centre = { 0 / 0, 0 }, radius = 1 }))
    has("rc.circle_inside: 'centre' must be a table of 2 numbers {x, y} (missing entry [2])",
        err(rc.circle_inside, { centre = { 1 }, radius = 1 }))
    has("rc.circle_inside: unknown key 'center' (did you mean 'centre'?)",
        err(rc.circle_inside, { center = { 0, 0 }, radius = 1 }))
    has("rc.circle_inside: expected a table argument, e.g. rc.circle_inside{ centre = {0, 0}, radius = 1 } (got 3)",
        err(rc.circle_inside, 3))
    local w = rc.world{}
    local wall = rc.circle_inside{ radius = 1 }
    has("world:body: 'shape' is a circular wall: it belongs to the ground", err(w.body, w, { mass = 1, inertia = 1, shape = wall }))
    local b = w:body{ mass = 1, inertia = 1 }
    has("body:add_shape: 'shape' is a circular wall: it belongs to the ground", err(b.add_shape, b, wall))
    assert.are.equal(1, #w:bodies())
  end)
end)
