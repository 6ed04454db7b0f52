-- The silo of issue 20 (scripts/examples/silo_discharge.lua) at a small size: a few hundred
-- grains poured, discharged, removed below the outlet and poured again at the top for 3.5
-- seconds. Ids are reused only with a new generation, the steps after the warm-up allocate
-- nothing, the named grains' history columns end when they leave, the run is the same bit
-- for bit twice, and the rate is positive and steady. Also: the spatial
-- queries the silo relies on never return a removed shape.
local rc = require "ricochet"
local core = require "ricochet.core"
local I = require "ricochet.private"
local helper = require "scenario_helper"

-- D = 7 d and 3.5 s, so that the 15 % test below is about the flow, not about one trajectory:
-- at 6 d and 2.5 s the rates of the window's halves differed by 9.5-9.9 % rms, 2 pours in 15
-- above 15 %, and 1 in 16 clogged (seeds 1-16, before and after a change of round-off in the
-- local solve, 2026-11-28); at 7 d and 3.5 s by 4.7 % rms, at most 9.1 %, none clogged (seeds
-- 1-10 with each build). Command: build/ricochet run scripts/examples/silo_discharge.lua
-- --set N=250 --set width=14 --set D=7 --set T=3.5 --set transient=0.75 --set seed=S
local SET = { N = "250", width = "14", D = "7", T = "3.5", transient = "0.75", named = "12", sample = "0.01" }

-- Runs the silo with SET (plus `extra`), catching every body created (with the generation of
-- its slot then) and the kernel's allocation count at every step of the discharge.
local function silo(extra, with_output)
  local set = {}
  for k, v in pairs(SET) do set[k] = v end
  for k, v in pairs(extra or {}) do set[k] = v end
  local created, allocs = {}, {}
  local body, simulation = rc.World.body, rc.World.simulation
  rc.World.body = function(w, t)
    local b = body(w, t)
    created[#created + 1] = { b = b, id = b.id, gen = core.body_generation(I.world_core("spec", w), b.id) }
    return b
  end
  rc.World.simulation = function(w, t)
    local sim = simulation(w, t)
    sim:after_step(function() allocs[#allocs + 1] = rc.alloc_count() end)
    return sim
  end
  local ok, res, rows, json = pcall(helper.run, "scripts/examples/silo_discharge.lua", set, with_output, true)
  rc.World.body, rc.World.simulation = body, simulation
  assert(ok, res)
  return res, rows, json, created, allocs
end

-- every live body's state, in id order
local function state(w)
  local out = {}
  for _, b in ipairs(w:bodies()) do
    for _, x in ipairs(b:q()) do out[#out + 1] = x end
    for _, x in ipairs(b:v()) do out[#out + 1] = x end
  end
  return out
end

describe("silo discharge (issue 20)", function()
  it("queries never return a removed body's or obstacle's shape", function()
    local w = rc.world{ gravity = { 0, -9.81 } }
    local a = w:body{ mass = 1, inertia = 1, q = { 0, 0, 0 }, shape = rc.disk{ 0.5 } }
    w:body{ mass = 1, inertia = 1, q = { 3, 0, 0 }, shape = rc.disk{ 0.5 } }
    local s = w:segment{ a = { -1, -0.2 }, b = { 1, -0.2 } }
    a:remove()
    w:remove_shape(s)
    local hits = w:query_box{ lo = { -5, -5 }, hi = { 5, 5 } }
    assert.are.equal(1, #hits)
    assert.are.equal(3, hits[1].body:q()[1])
    assert.are.same({}, w:query_point{ point = { 0, 0 } })
    local ray = w:ray_cast{ from = { -3, 0 }, to = { 5, 0 } }
    assert.is_near(2.5, ray.point[1], 1e-12)
    assert.is_nil(w:ray_cast{ from = { 0, 1 }, to = { 0, -1 } })
    assert.is_nil(w:disk_cast{ from = { 0, 1 }, to = { 0, -1 }, radius = 0.1 })
  end)

  local res, rows, _, created, allocs = silo({}, true)

  it("pours, discharges and recycles: ids reused only with a new generation", function()
    assert.is_false(res.clogged)
    assert.is_true(res.grains_out >= 150)                       -- many grains went through
    -- every body created is a grain poured: the 250 of the fill and the recycled ones (some
    -- still waiting for a free slot at the end)
    assert.are.equal(250 + res.grains_out - res.waiting, #created)
    assert.is_true(res.waiting < 30)
    local seen, reused = {}, 0
    for _, c in ipairs(created) do
      local last = seen[c.id]
      if last then
        reused = reused + 1
        assert.is_true(c.gen > last, string.format("id %d reused with generation %d after %d", c.id, c.gen, last))
      end
      seen[c.id] = c.gen
    end
    assert.is_true(reused >= 100)                               -- slots are reused, not grown
    assert.is_true(#res.world:bodies() <= 250)
    -- every handle of a removed grain stays removed and refuses use
    local removed = 0
    for _, c in ipairs(created) do
      if c.b:is_removed() then
        removed = removed + 1
        assert.has_error(function() c.b:q() end)
      end
    end
    assert.are.equal(res.grains_out, removed)
  end)

  it("allocates nothing in the steps once the silo flows", function()
    local n = #allocs
    assert.is_true(n > 2000)
    -- the last second of the discharge: the slots and the contact arrays have settled
    assert.are.equal(allocs[n - 1000], allocs[n])
  end)

  it("writes the named grains' columns until they leave, nothing after", function()
    assert.is_true(#rows > 2000)
    local left = 0
    for k = 1, 12 do
      local col, gone = "grain " .. k .. ".y", nil
      assert.is_not_nil(rows[1][col], "no column " .. col)
      for i, row in ipairs(rows) do
        local y = row[col]
        if y ~= y then gone = gone or i
        else
          assert.is_nil(gone, col .. " written again after its removal")
          assert.is_true(y > -4 * 0.01 - 0.02)                  -- removed once 4 d below the outlet
        end
      end
      if gone then left = left + 1 end
    end
    assert.is_true(left >= 1)                                   -- the bottom grains went out
  end)

  it("discharges at a positive, steady rate", function()
    assert.is_true(res.W > 0)
    assert.is_true(math.abs(res.W2 - res.W1) <= 0.15 * res.W, string.format("halves %g, %g", res.W1, res.W2))
    -- the mass counted is that of the grains removed
    local last = res.rows[#res.rows]
    assert.is_near(res.mass_out, last[3], 1e-12)
    assert.are.equal(res.grains_out, last[2])
  end)

  it("is deterministic: the same history twice, bit for bit", function()
    local again = silo({}, false)
    assert.are.same(res.rows, again.rows)
    assert.are.same(state(res.world), state(again.world))
    -- (threads: at this size every colour has fewer than 512 contacts and runs on one thread;
    -- the full-size silo's 1- and 2-thread runs are compared in docs/granular.md, "Silo")
  end)
end)
