-- The solvers for piles (docs/granular.md): solver = { "apgd" } (src/nonsmooth/apgd.c,
-- accelerated projected gradient descent on the cone complementarity problem, Mazhar
-- et al. 2015) and solver = { "nsgs", accelerate = "anderson" } (src/nonsmooth/anderson.c).
-- Both give NSGS's solution where the problem's solution is unique and no contact
-- slides; APGD's relaxed law makes a sliding contact separate at mu |u_T| (the CCP's
-- analytic solution is checked); impulses stay in the cone; option errors.
local rc = require "ricochet"
local worlds = require "solver_worlds"

local g = 9.81
local SOLVERS = {
  nsgs = { "nsgs" },
  apgd = { "apgd" },
  anderson = { "nsgs", accelerate = "anderson", depth = 4 },
}

local function with(solver, extra) return worlds.with(SOLVERS[solver], extra) end

-- A 0.4 x 0.2 box resting on the floor (two corner contacts), pushed at vx,
-- one step of h = 1e-3: its velocity after the step and the contacts.
local function pushed_box(solver, vx, mu)
  local w = rc.world{ gravity = { 0, -g } }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  local box = w:body{ mass = 2, inertia = 2 * 0.2 / 12, q = { 0, 0.1, 0 }, v = { vx, 0, 0 }, shape = rc.box{ 0.4, 0.2 } }
  w:contact{ w.ground, box, law = rc.newton{ e = 0, mu = mu } }
  local sim = w:simulation{ h = 1e-3, solver = with(solver, { tol = 1e-12, max_iter = 20000 }) }
  sim:step()
  assert.is_true(sim:info().converged, solver)
  return box:v(), sim:contacts()
end

-- solver_worlds.lua's box on a slope, n steps: its down-slope acceleration
local function incline(solver, alpha, mu, n)
  return (worlds.incline(with(solver, { tol = 1e-12, max_iter = 20000 }), alpha, mu, n))
end

-- Five disks of radius 0.1 (three on the floor, 0.205 apart, two in their
-- grooves), friction 0.5, T = 0.2 s: positions, the floor contacts' normal
-- impulses, whether every impulse stayed in the cone, the last step's velocity.
local function pyramid(solver)
  local w = rc.world{ gravity = { 0, -g } }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  local r, dx = 0.1, 0.205
  local bodies = {}
  local function disk(x, y)
    bodies[#bodies + 1] = w:body{ mass = 1, inertia = 0.5 * r * r, q = { x, y, 0 }, shape = rc.disk{ radius = r } }
  end
  for i = 0, 2 do disk(i * dx, r) end
  local hy = math.sqrt((2 * r) ^ 2 - (dx / 2) ^ 2)
  for i = 0, 1 do disk((i + 0.5) * dx, r + hy) end
  w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.5 } }
  local sim = w:simulation{ h = 1e-3, solver = with(solver, { tol = 1e-11, max_iter = 50000 }) }
  local inside = true
  for _ = 1, 200 do
    sim:step()
    assert.is_true(sim:info().converged, solver)
    for _, c in ipairs(sim:contacts()) do
      if c.active and (c.pN < -1e-15 or math.abs(c.pT) > 0.5 * c.pN * (1 + 1e-12) + 1e-15) then inside = false end
    end
  end
  local q, vmax = {}, 0
  for i, b in ipairs(bodies) do
    q[i] = b:q()
    local v = b:v()
    vmax = math.max(vmax, math.abs(v[1]), math.abs(v[2]), math.abs(v[3]))
  end
  local floor_pN = 0
  for _, c in ipairs(sim:contacts()) do
    if c.active and c.body_a == -1 then floor_pN = floor_pN + c.pN end
  end
  return q, floor_pN, inside, vmax
end

describe("solvers for piles", function()
  it("stick on a slope: the box stays (a = 0) under every solver", function()
    for _, s in ipairs { "nsgs", "apgd", "anderson" } do
      assert.is_true(math.abs(incline(s, 20, 0.8, 100)) < 1e-8, s)
    end
  end)

  it("slide on a slope: NSGS + Anderson gives g (sin - mu cos) as NSGS", function()
    local a = g * (math.sin(math.rad(30)) - 0.2 * math.cos(math.rad(30)))
    local an, aa = incline("nsgs", 30, 0.2, 200), incline("anderson", 30, 0.2, 200)
    assert.is_true(math.abs(an - a) < 1e-6 * a, an)
    assert.is_true(math.abs(aa - an) < 1e-8 * a, aa)
  end)

  it("a pushed box: Coulomb under NSGS and Anderson, the CCP's separation mu |u_T| under APGD", function()
    local mu, h, vx = 0.3, 1e-3, 1.0
    for _, s in ipairs { "nsgs", "anderson" } do   -- exact law: u_N = 0, v_x = 1 - mu g h
      local v = pushed_box(s, vx, mu)
      assert.is_true(math.abs(v[1] - (vx - mu * g * h)) < 1e-10, s .. " " .. v[1])
      assert.is_true(math.abs(v[2]) < 1e-10 and math.abs(v[3]) < 1e-9, s)
    end
    -- CCP: both corners slide with u_N = mu |u_T|, so no rotation, v_y = mu v_x and
    -- m v_x = m vx - mu P_N, P_N = m (v_y + g h): v_x = (vx - mu g h) / (1 + mu^2)
    local v, contacts = pushed_box("apgd", vx, mu)
    local ux = (vx - mu * g * h) / (1 + mu * mu)
    assert.is_true(math.abs(v[1] - ux) < 1e-9, v[1])
    assert.is_true(math.abs(v[2] - mu * ux) < 1e-9, v[2])
    assert.is_true(math.abs(v[3]) < 1e-8, v[3])
    for _, c in ipairs(contacts) do   -- on the cone's boundary, u_N = mu |u_T|
      assert.is_true(math.abs(c.uN - mu * math.abs(c.uT)) < 1e-8, c.uN)
      assert.is_true(math.abs(math.abs(c.pT) - mu * c.pN) < 1e-10 * c.pN, c.pT)
    end
  end)

  it("a pyramid of five disks settles to NSGS's state, impulses in the cone, the floor carrying 5 m g h", function()
    local q0, p0, in0 = pyramid("nsgs")
    assert.is_true(in0)
    assert.is_true(math.abs(p0 - 5 * g * 1e-3) < 1e-9, p0)
    for _, s in ipairs { "apgd", "anderson" } do
      local q, p, inside, vmax = pyramid(s)
      assert.is_true(inside, s)
      assert.is_true(vmax < 1e-6, s .. " " .. vmax)
      assert.is_true(math.abs(p - 5 * g * 1e-3) < 1e-9, s .. " " .. p)
      for i = 1, #q0 do
        for k = 1, 3 do assert.is_true(math.abs(q[i][k] - q0[i][k]) < 1e-8, s .. " " .. i .. " " .. k) end
      end
    end
  end)

  it("checks their options", function()
    local w = rc.world{}
    local function err(t) local ok, e = pcall(w.simulation, w, t); assert.is_false(ok); return tostring(e) end
    local function has(msg, t) local e = err(t); assert.truthy(e:find(msg, 1, true), e) end
    has("world:simulation: solver: unknown solver 'apgdx' (available: \"nsgs\", \"uzawa\", \"newton\", \"apgd\")",
        { solver = { "apgdx" } })
    has("world:simulation: solver: accelerate = \"anderson\" is an option of the \"nsgs\" solver (solver is 'uzawa')",
        { solver = { "uzawa", accelerate = "anderson" } })
    has("world:simulation: solver: 'accelerate' must be a boolean or \"anderson\" (got 'nesterov')",
        { solver = { "nsgs", accelerate = "nesterov" } })
    has("world:simulation: solver: 'depth' is an option of accelerate = \"anderson\"", { solver = { "nsgs", depth = 3 } })
    has("world:simulation: solver: 'depth' must be in 1..10 (got 0)", { solver = { "nsgs", accelerate = "anderson", depth = 0 } })
    has("world:simulation: solver: 'depth' must be in 1..10 (got 11)", { solver = { "nsgs", accelerate = "anderson", depth = 11 } })
    has("world:simulation: solver: 'depth' must be an integer (got 2.5)", { solver = { "nsgs", accelerate = "anderson", depth = 2.5 } })
    has("solver: Anderson acceleration is for the \"nsgs\" solver on one thread with order fixed, position or colour",
        { solver = { "nsgs", accelerate = "anderson", order = "random" } })
    has("world:simulation: solver: unknown key 'lipschitz' (allowed: ", { solver = { "apgd", lipschitz = 2 } })
    has("world:simulation: solver: 'threads' = 2 needs the \"nsgs\" solver (the others run on one thread)",
        { solver = { "apgd", threads = 2, order = "colour" } })
    local sim = w:simulation{ solver = { "nsgs", accelerate = "anderson" } }
    assert.are.equal("anderson", sim.accelerate)
    assert.are.equal(5, sim.anderson)
    assert.are.equal("apgd", w:simulation{ solver = { "apgd" } }.solver)
  end)

  it("APGD refuses joints and laws without a closed form, with a message", function()
    local w = rc.world{ gravity = { 0, -g } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local b = w:body{ mass = 1, inertia = 0.01, q = { 0, 0.1, 0 }, shape = rc.disk{ radius = 0.1 } }
    w:contact{ w.ground, b, law = rc.newton{ e = 0, mu = 0.3, local_solver = "generic" } }
    local sim = w:simulation{ solver = { "apgd" } }
    local ok, e = pcall(sim.step, sim)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("solver \"apgd\": contact law 1 has no closed form (a custom or generic law); "
                                    .. "it projects onto the built-in Coulomb cone only: use \"nsgs\"", 1, true), tostring(e))
    local w2 = rc.world{ gravity = { 0, -g } }
    local a = w2:body{ mass = 1, inertia = 0.01, q = { 0, 0, 0 } }
    w2:revolute{ w2.ground, a, at = { 0, 0.5 } }
    local sim2 = w2:simulation{ solver = { "apgd" } }
    ok, e = pcall(sim2.step, sim2)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("solver \"apgd\": joints are not supported (the world has 1); use \"nsgs\"", 1, true), tostring(e))
  end)
end)
