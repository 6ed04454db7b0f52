-- Sleeping from Lua (lua/ricochet/sleep.lua, docs/sleeping.md): the option of
-- w:simulation{}, its exact errors, b:sleeping(), b:wake(), w:sleep_info();
-- a column of disks at rest sleeps, does not move, costs no solve, and a
-- disk dropped onto it wakes it at the step its contact becomes active.
local rc = require "ricochet"

local column = require("scenario_helper").column

describe("sleeping", function()
  it("is off by default, and the option is checked with exact messages", function()
    local w = column(1)
    local sim = w:simulation{ h = 1e-3 }
    assert.are.equal(false, sim.sleep)
    assert.is_false(w:sleep_info().enabled)
    assert.has_error(function() w:simulation{ sleep = 1 } end,
      "world:simulation: 'sleep' must be false, true or a table such as { linear = 0.01, angular = 0.05, time = 0.5 } (got 1)")
    assert.has_error(function() w:simulation{ sleep = { linear = -1 } } end,
      "world:simulation: sleep: 'linear' must be a finite number > 0 (got -1)")
    assert.has_error(function() w:simulation{ sleep = { time = "x" } } end,
      "world:simulation: sleep: 'time' must be a number (got 'x')")
    assert.has_error(function() w:simulation{ sleep = { speed = 1 } } end)
    sim = w:simulation{ sleep = true }
    assert.are.same({ linear = 0.01, angular = 0.05, time = 0.5 }, sim.sleep)
    assert.is_true(w:sleep_info().enabled)
  end)

  it("a resting column sleeps, stays put, solves nothing; a dropped disk wakes it when its contact is active", function()
    local w, g = column(4)
    local sim = w:simulation{ h = 1e-3, sleep = { time = 0.2 } }
    sim:run{ T = 0.5 }
    for i = 1, 4 do assert.is_true(g[i]:sleeping()) end
    local q = g[4]:q()
    sim:run{ T = 0.6 }
    assert.are.same(q, g[4]:q())
    local info, si = sim:info(), w:sleep_info()
    assert.are.equal(0, info.nactive)
    assert.are.equal(0, si.pairs)
    assert.are.equal(4, si.sleeping)
    assert.is_true(info.E_sleep_total >= 0)
    -- a disk dropped from above: the column wakes at the step its contact is active
    local ball = w:body{ mass = 1, inertia = 0.125, q = { 0, 4.6, 0 }, shape = rc.disk{ 0.5 } }
    assert.is_true(g[1]:sleeping())
    local woke_at, active_at
    sim:after_step(function()
      if not active_at then
        for _, c in ipairs(sim:contacts()) do
          if c.active and (c.body_b == ball.id or c.body_a == ball.id) then active_at = sim.steps end
        end
      end
      if not woke_at and not g[4]:sleeping() then woke_at = sim.steps end
    end)
    sim:run{ T = 1.0 }
    assert.is_not_nil(active_at)
    assert.are.equal(active_at, woke_at)
    -- b:wake() on a sleeping column, and on a removed body
    sim:run{ T = 2.0 }
    assert.is_true(g[1]:sleeping())
    g[2]:wake()
    for i = 1, 4 do assert.is_false(g[i]:sleeping()) end
    ball:remove()
    assert.has_error(function() ball:wake() end)
  end)
end)
