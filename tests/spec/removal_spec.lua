-- Removing bodies, joints and springs from Lua (lua/ricochet/remove.lua,
-- src/model/remove.c): a removed grain lets the grains above fall, a removed
-- handle raises the exact message, a new body reuses the slot, removing in a
-- callback takes effect between steps, runs are deterministic.
local rc = require "ricochet"

local column = require("scenario_helper").column

describe("removal", function()
  it("a grain removed from a resting column lets the grains above fall, and never touches again", function()
    local w, g = column(3)
    local sim = w:simulation{ h = 1e-3 }
    sim:run{ T = 0.25 }
    assert.is_true(math.abs(g[3]:q()[2] - 2.5) < 1e-6)
    g[2]:remove()
    assert.is_true(g[2]:is_removed())
    sim:run{ T = 0.45 }   -- (T: the end time)
    -- free fall from rest over 0.2 s: 0.196 m
    assert.is_true(math.abs(g[3]:q()[2] - (2.5 - 0.5 * 9.81 * 0.2 ^ 2)) < 1e-2)
    sim:run{ T = 1.25 }
    assert.is_true(math.abs(g[3]:q()[2] - 1.5) < 5e-3)
    for _, c in ipairs(sim:contacts()) do
      assert.is_true(c.body_b ~= 1 and c.body_a ~= 1)
    end
    assert.are.equal(2, #w:bodies())
  end)

  it("a removed handle raises the exact message; a new body takes the slot", function()
    local w, g = column(2)
    local sim = w:simulation{ h = 1e-3 }
    sim:run{ T = 0.25 }
    g[2]:remove()
    local ok, err = pcall(g[2].q, g[2])
    assert.is_false(ok)
    assert.matches("body:q: body 'grain 2' was removed at t = 0.25", err, 1, true)
    ok, err = pcall(w.remove, w, g[2])
    assert.matches("world:remove: body 'grain 2' was removed at t = 0.25", err, 1, true)
    ok, err = pcall(w.contact, w, { g[2], w.ground, law = rc.newton{} })
    assert.is_false(ok)
    assert.matches("was removed at t = 0.25", err, 1, true)
    assert.is_nil(w:find("grain 2"))
    local n = w:body{ name = "grain 2", mass = 1, inertia = 1, q = { 5, 0.5, 0 }, shape = rc.disk{ 0.5 } }
    assert.are.equal(g[2].id, n.id)        -- the slot reused
    assert.are.equal(5, n:q()[1])
    assert.has_error(function() g[2]:v() end)   -- the old handle stays removed
    assert.are.equal(n, w:find("grain 2"))
  end)

  it("a joint removed frees the pendulum; a callback's removal takes effect between steps", function()
    local w = rc.world{ gravity = { 0, -9.81 } }
    local bob = w:body{ mass = 1, inertia = 1, q = { 1, 0, 0 } }
    local j = w:revolute{ w.ground, bob, point_a = { 0, 0 }, point_b = { -1, 0 } }
    local sim = w:simulation{ h = 1e-3 }
    local v0
    sim:after_step(function(s)
      if s:info().step == 200 then v0 = bob:v(); w:remove(j) end
    end)
    sim:run{ T = 0.5 }
    local v = bob:v()
    assert.is_true(math.abs(v[1] - v0[1]) < 1e-12)
    assert.is_true(math.abs(v[2] - (v0[2] - 9.81 * 0.3)) < 1e-9)
    assert.has_error(function() j:info() end, "joint:info: joint 0 was removed at t = 0.20000000000000001")
  end)

  it("refuses to remove gap contacts and anything that is not a body, joint or spring", function()
    local w = rc.world{}
    local bar = w:linear{ name = "bar", M = { { 1, 0 }, { 0, 1 } }, K = { { 2, -1 }, { -1, 2 } } }
    local gap = w:gap{ bar, index = { 1 }, normal = { 1 }, g0 = 0.1 }
    local ok, err = pcall(w.remove, w, gap)
    assert.is_false(ok)
    assert.matches("world:remove: gap contacts cannot be removed (a gap contact lives as long as its linear body, and "
                   .. "linear bodies cannot be removed); to switch it off, make its law inert with law:set", err, 1, true)
    ok, err = pcall(w.remove, w, 3)
    assert.matches("world:remove: argument [1] must be a body, a joint or a spring of this world (got 3); shapes: "
                   .. "w:remove_shape(id); contact rules (w:contact) cannot be removed", err, 1, true)
  end)

  it("adding and removing grains is deterministic, bit for bit", function()
    local function run()
      local w = rc.world{ gravity = { 0, -9.81 } }
      w:halfplane{}
      local live, added, k = {}, 0, -1
      local sim = w:simulation{ h = 1e-3 }
      sim:before_step(function()
        k = k + 1
        if k % 5 ~= 0 then return end
        if #live == 30 then table.remove(live, 1):remove() end
        added = added + 1
        live[#live + 1] = w:body{ mass = 1, inertia = 0.1, q = { 0.31 * (added % 5) - 0.6, 8, 0 }, shape = rc.disk{ 0.25 } }
      end)
      sim:run{ T = 1 }
      local out = {}
      for _, b in ipairs(w:bodies()) do
        for _, x in ipairs(b:q()) do out[#out + 1] = x end
      end
      return out, added, #w:bodies()
    end
    local a, na, nb = run()
    local b = run()
    assert.are.equal(200, na)
    assert.are.equal(30, nb)
    assert.are.same(a, b)
  end)
end)
