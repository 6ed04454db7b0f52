-- The contacts a completed step leaves (the state) and their geometry: reported the same after
-- an exploration, a body's removal and a checkpoint's restore as right after the step; after a
-- step that failed once its detection had run, reported as missing with a clear error, and back
-- with the next step that completes (docs/api/lua.md, sim:contacts).
local rc = require "ricochet"

local function err(f)
  local ok, msg = pcall(f)
  assert.is_false(ok, "expected an error")
  return tostring(msg)
end

-- three disks resting on the ground side by side, one on top between them (contacts with
-- points, normals, gaps, velocities and impulses), and a law that can be made to fail
local function pile(fail_at)
  local calls = 0
  local law = rc.law{ name = "coulomb_in_lua", xi = function(_, uN, uT) return uN, uT end,
    project = function(_, xN, xT)
      calls = calls + 1
      if fail_at and calls == fail_at then error("the law's deliberate failure") end
      local pN = xN > 0 and xN or 0
      local bound = 0.4 * pN
      return pN, math.max(-bound, math.min(bound, xT))
    end }
  local w = rc.world{ gravity = { 0, -9.81 }, default_law = law }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  local r = 0.5
  local bodies = {}
  for i, q in ipairs{ { -1.0, r }, { 0.0, r }, { 1.0, r }, { -0.5, r + 0.866 }, { 0.5, r + 0.866 } } do
    bodies[i] = w:body{ mass = 1, inertia = 0.125, q = { q[1], q[2] + 1e-4, 0 }, shape = rc.disk{ r } }
  end
  local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-10, max_iter = 200 } }
  return sim, w, bodies, function() return calls end
end

local fields = { "id", "body_a", "body_b", "active", "pN", "pT", "gN", "uN", "uT", "WN", "WT" }

local function same_contacts(a, b)
  assert.are.equal(#a, #b)
  for i = 1, #a do
    for _, k in ipairs(fields) do assert.are.equal(a[i][k], b[i][k], k .. " of contact " .. i) end
    for d = 1, 2 do
      assert.are.equal(a[i].point[d], b[i].point[d])
      assert.are.equal(a[i].normal[d], b[i].normal[d])
    end
  end
end

describe("the state's contacts", function()
  it("report their geometry after a step: gaps and normals of the disks, velocities at rest", function()
    local sim = pile()
    sim:run{ T = 0.05 }
    local cs = sim:contacts()
    assert.is_true(#cs >= 7)   -- 5 disks: 3 on the ground, 4 between them (at least)
    for _, c in ipairs(cs) do
      assert.near(1, c.normal[1] ^ 2 + c.normal[2] ^ 2, 1e-12)       -- unit normals
      assert.is_true(math.abs(c.gN) < 1e-3)                          -- touching, no overlap beyond 1 mm
      if c.active then assert.is_true(math.abs(c.uN) < 1e-6) end     -- at rest: no normal velocity
      assert.is_true(math.abs(c.pT) <= 0.4 * c.pN + 1e-12)           -- inside the Coulomb cone
    end
  end)

  it("are the same after an exploration as before it", function()
    local sim = pile()
    sim:run{ T = 0.05 }
    local before = sim:contacts()
    sim:explore{ guess = "zero", order = "random", seed = 3 }
    same_contacts(before, sim:contacts())
    sim:step()   -- and a step after it reports its own
    assert.are_not.equal(before[1].uN, sim:contacts()[1].uN)
  end)

  it("keep the geometry of the contacts that stay when a body is removed", function()
    local sim, _, bodies = pile()
    sim:run{ T = 0.05 }
    local before = sim:contacts()
    bodies[1]:remove()
    local kept = {}
    for _, c in ipairs(before) do
      if c.body_a ~= bodies[1].id and c.body_b ~= bodies[1].id then kept[#kept + 1] = c end
    end
    assert.is_true(#kept < #before)
    same_contacts(kept, sim:contacts())
  end)

  it("are restored from a checkpoint with their geometry", function()
    local path = os.tmpname()
    local sim = pile()
    sim:run{ T = 0.05 }
    local before = sim:contacts()
    sim:save(path)
    local other = pile()
    other:restore(path)
    same_contacts(before, other:contacts())
    os.remove(path)
  end)

  it("have no geometry after a step that failed in its solve, and get it back with the next step", function()
    local sim, _, _, calls = pile()
    sim:run{ T = 0.02 }
    local n0 = #sim:contacts()
    local sim2, _, _, calls2 = pile(calls() + 5)   -- the same run, its law failing in the next step's solve
    sim2:run{ T = 0.02 }
    assert.are.equal(calls(), calls2())
    local msg = err(function() sim2:step() end)
    assert.is_truthy(msg:find("the law's deliberate failure", 1, true), msg)
    msg = err(function() return sim2:contacts() end)
    assert.is_truthy(msg:find("sim:contacts: the contacts of the state have no points, normals, gaps or velocities "
                              .. "after a step that failed (t = ", 1, true), msg)
    -- a checkpoint of that state keeps the contacts' ids and impulses, and says the same after its restore
    local path = os.tmpname()
    sim2:save(path)
    local other = pile()
    other:restore(path)
    assert.is_truthy(err(function() return other:contacts() end):find("after a step that failed", 1, true))
    os.remove(path)
    sim2:step()   -- the law fails once only: the step completes
    local cs = sim2:contacts()
    assert.are.equal(n0, #cs)
    sim:step()
    same_contacts(sim:contacts(), cs)   -- and the run is the one without the failure
  end)
end)
