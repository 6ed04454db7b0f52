-- Physics checks against analytic solutions (planar rigid bodies).
local rc = require "ricochet"

local function new_world(g) return rc.world{ gravity = { 0, g or -10 } } end

describe("a disk bouncing with e = 0.5", function()
  it("has successive apex heights in ratio e^2 within 1e-3", function()
    local w = new_world(-10)
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local r = 0.1
    local ball = w:body{ name = "ball", mass = 1, inertia = 0.5 * r * r, q = { 0, 1 + r, 0 },
                         shape = rc.disk{ radius = r } }
    w:contact{ w.ground, ball, law = rc.newton{ e = 0.5, mu = 0 } }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-5,
                              solver = { "nsgs", tol = 1e-12 } }
    local apex, last_vy = {}, 0
    sim:after_step(function(s)
      local q, v = ball:q(), ball:v()
      if last_vy > 0 and v[2] <= 0 then apex[#apex + 1] = q[2] - r end
      last_vy = v[2]
    end)
    sim:run{ T = 2.2 }
    assert.is_true(#apex >= 3)
    local h0 = 1.0
    assert.is_near(0.25, apex[1] / h0, 1e-3)
    assert.is_near(0.25, apex[2] / apex[1], 1e-3)
    assert.is_near(0.25, apex[3] / apex[2], 1e-3)
  end)
end)

describe("a box sliding on the floor with friction", function()
  it("decelerates at mu g and stops at v0 / (mu g) within one step", function()
    local g, mu, v0, h = 9.81, 0.3, 2.0, 1e-3
    local w = new_world(-g)
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local box = w:body{ name = "box", mass = 2, inertia = 2 * (1 + 0.25) / 12, q = { 0, 0.25, 0 },
                        v = { v0, 0, 0 }, shape = rc.box{ 1, 0.5 } }
    w:contact{ w.ground, box, law = rc.newton{ e = 0, mu = mu } }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                              solver = { "nsgs", tol = 1e-12 } }
    local t_stop
    sim:after_step(function(s)
      local v = box:v()
      if not t_stop then
        local expected = v0 - mu * g * s.t
        if expected > 0 then assert.is_near(expected, v[1], 1e-9) end
        if v[1] <= 1e-12 then t_stop = s.t end
      else
        assert.is_near(0, v[1], 1e-12)      -- stays stuck
      end
    end)
    sim:run{ T = 1.0 }
    assert.is_not_nil(t_stop)
    assert.is_true(math.abs(t_stop - v0 / (mu * g)) <= h + 1e-12)
    assert.is_near(0.25, box:q()[2], 1e-9)  -- no sinking
  end)
end)

describe("a box on an incline", function()
  local function run_incline(alpha, mu)
    local g = 10
    local w = new_world(-g)
    local n = { -math.sin(alpha), math.cos(alpha) }
    w:halfplane{ point = { 0, 0 }, normal = n }
    -- a 0.4 x 0.2 box resting on the plane, rotated by alpha
    local d = 0.1 - 1e-12  -- a hair of contact so that eq. (64) activates it at once
    local box = w:body{ name = "box", mass = 1, inertia = (0.16 + 0.04) / 12,
                        q = { d * n[1], d * n[2], alpha }, shape = rc.box{ 0.4, 0.2 } }
    w:contact{ w.ground, box, law = rc.newton{ e = 0, mu = mu } }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3,
                              solver = { "nsgs", tol = 1e-12 } }
    sim:run{ T = 1.0 }
    local q, v = box:q(), box:v()
    -- velocity along the slope (down-slope positive) and normal velocity
    local s = { math.cos(alpha), math.sin(alpha) }
    return -(v[1] * s[1] + v[2] * s[2]), v[1] * n[1] + v[2] * n[2], q[3]
  end

  it("sticks below the friction angle", function()
    local vs, vn, th = run_incline(math.rad(20), 0.5)   -- tan 20 deg = 0.36 < 0.5
    assert.is_near(0, vs, 1e-9)
    assert.is_near(0, vn, 1e-9)
    assert.is_near(math.rad(20), th, 1e-9)
  end)

  it("slides with a = g (sin a - mu cos a) above it", function()
    local alpha, mu, g = math.rad(30), 0.2, 10
    local vs, vn = run_incline(alpha, mu)
    assert.is_near(g * (math.sin(alpha) - mu * math.cos(alpha)) * 1.0, vs, 1e-6)
    assert.is_near(0, vn, 1e-9)
  end)
end)

describe("free fall", function()
  it("is exact with theta = 1/2", function()
    local w = new_world(-9.81)
    local b = w:body{ mass = 1, inertia = 1, q = { 0, 0, 0 }, v = { 1, 2, 3 } }
    local sim = w:simulation{ theta = 0.5, h = 0.01 }
    sim:run{ T = 1 }
    local q = b:q()
    assert.is_near(1, q[1], 1e-12)
    assert.is_near(2 - 0.5 * 9.81, q[2], 1e-12)
    assert.is_near(3, q[3], 1e-12)
  end)
end)

describe("the largest overlap of a run (sim:stats().max_overlap)", function()
  -- A disk dropped from 0.5 m onto a half-plane arrives at v = sqrt(2 g 0.5) = 3.13 m/s.
  -- With the index set of eq. (64) (activation = "gap") a contact acts once g <= 0, so
  -- the disk sinks by less than h v before it does, and by (1 - theta) h v more in the
  -- step whose impulse stops it (q_{k+1} = q_k + h ((1 - theta) v_k + theta v_{k+1})):
  -- below (2 - theta) h v. The anticipating set acts while g > 0: below (1 - theta) h v.
  local function drop(activation)
    local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.05 }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local r = 0.1
    local ball = w:body{ mass = 1, inertia = 0.5 * r * r, q = { 0, 0.5 + r, 0 }, shape = rc.disk{ radius = r } }
    w:contact{ w.ground, ball, law = rc.newton{ e = 0, mu = 0.3 } }
    local h = 1e-3
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h, activation = activation,
                              solver = { "nsgs", tol = 1e-12 } }
    local seen, t_seen, step_seen, id_seen = 0, nil, nil, -1
    sim:after_step(function(s)   -- the contacts the step detected at q_k (t_k)
      for _, c in ipairs(s:contacts()) do
        if -c.gN > seen then seen, t_seen, step_seen, id_seen = -c.gN, s.t - h, s.steps - 1, c.id end
      end
    end)
    sim:run{ T = 0.6 }
    return sim:stats(), seen, t_seen, step_seen, id_seen, h * math.sqrt(2 * 9.81 * 0.5)
  end

  it("is the largest -g_N of the detected contacts, with its time, step and contact", function()
    local st, seen, t_seen, step_seen, id_seen, hv = drop("gap")
    assert.is_true(seen > 0.1 * hv, "the disk sinks before its contact acts: " .. seen)
    assert.are.equal(seen, st.max_overlap)
    assert.is_near(t_seen, st.t_max_overlap, 1e-12)
    assert.are.equal(step_seen, st.step_max_overlap)
    assert.are.equal(id_seen, st.contact_max_overlap)
    assert.is_true(st.max_overlap <= 1.5 * hv, st.max_overlap .. " > (2 - theta) h v = " .. 1.5 * hv)
  end)

  it("is smaller with the anticipating index set: below (1 - theta) h v", function()
    local gap = drop("gap")
    local ant, _, _, _, _, hv = drop("anticipate")
    assert.is_true(ant.max_overlap > 0 and ant.max_overlap <= 0.5 * hv, ant.max_overlap .. " vs " .. 0.5 * hv)
    assert.is_true(ant.max_overlap < 0.5 * gap.max_overlap, ant.max_overlap .. " vs " .. gap.max_overlap)
  end)
end)
