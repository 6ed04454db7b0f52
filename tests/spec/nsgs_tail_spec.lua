-- scripts/bench/nsgs_tail.lua (docs/granular.md, "Where a capped step's error sits"): one
-- step of the falling pile re-solved with exactly K sweeps against a reference. On a
-- 200-disk pile at t = 0.5 s: without friction NSGS converges linearly and over-relaxation
-- speeds it up as on a linear system; with friction the sweeps end in the reference's
-- stick/slide/open pattern when given enough of them. And which steps stop at the cap: those
-- of grains in motion (disks_in_box.lua's windows), none once the pile is at rest.
local helper = require "scenario_helper"

local function tail(set)
  local base = { N = "200", T = "0.5", sweeps = "10,100,300", ref = "5000" }
  for k, v in pairs(set) do base[k] = v end
  local r = helper.run("scripts/bench/nsgs_tail.lua", base, false, true)
  local by = {}
  for _, row in ipairs(r.rows) do by[row.relax .. ":" .. row.sweeps] = row end
  return r, by
end

describe("nsgs_tail: a step of the 200-disk pile re-solved with K sweeps", function()
  it("without friction: linear convergence, and relax = 1.8 a thousand times lower after 100 sweeps", function()
    -- measured: residual 1.15e-2, 2.6e-4, 2.4e-7 after 10, 100, 300 sweeps; 5.8e-10 after 100 at 1.8
    local r, by = tail({ mu = "0", relaxes = "1,1.8" })
    assert.is_true(r.ref_residual <= 1e-12, "reference " .. r.ref_residual)
    assert.are.equal(0, r.max_pT)         -- without friction no tangential impulse at all
    assert.are.equal(0, r.counts.stick)
    assert.is_true(r.counts.slide > 100, "closed contacts " .. r.counts.slide)
    assert.is_true(by["1:300"].residual <= 1e-3 * by["1:10"].residual,
                   string.format("%.3g after 300 against %.3g after 10", by["1:300"].residual, by["1:10"].residual))
    assert.is_true(by["1.8:100"].residual <= 1e-3 * by["1:100"].residual,
                   string.format("relax 1.8: %.3g, relax 1: %.3g", by["1.8:100"].residual, by["1:100"].residual))
    assert.are.equal(0, by["1:300"].differs)
  end)

  it("with friction (mu = 0.3): the reference's classes are reached and kept", function()
    -- measured: 12 contacts in another class after 10 sweeps, 1 after 100, none after 300
    local r, by = tail({ mu = "0.3" })
    assert.is_true(r.ref_residual <= 1e-12, "reference " .. r.ref_residual)
    assert.is_true(r.counts.stick > 0 and r.counts.slide > 0, "stick " .. r.counts.stick .. ", slide " .. r.counts.slide)
    assert.is_true(r.max_pT > 0)
    assert.is_true(by["1:10"].differs > 0)
    assert.are.equal(0, by["1:300"].differs)
    assert.are.equal(0, by["1:300"].flips)
    assert.is_true(by["1:300"].residual < by["1:100"].residual and by["1:100"].residual < by["1:10"].residual)
  end)
end)

describe("disks_in_box: the steps at the sweep cap are those of grains in motion", function()
  it("the 200-disk pile: most steps of 0.5-1 s at the cap, none at rest (1.5-2.5 s)", function()
    -- measured: 413 of 500 steps at the cap in 0.5-1 s (88.5 sweeps a step), 0 of 1 000 in
    -- 1.5-2.5 s (0.5 sweeps a step)
    local r = helper.run("scripts/bench/disks_in_box.lua", { N = "200", T = "2.5", window = "0.5" }, false, true)
    local w = r.windows
    assert.are.equal(500, w[1].steps)
    assert.is_true(w[1].capped > 250, "0.5-1 s: " .. w[1].capped .. " steps at the cap")
    for k = 3, 4 do
      assert.are.equal(0, w[k].capped, "window " .. k)
      assert.is_true(w[k].sweeps / w[k].steps < 5, "window " .. k .. ": " .. w[k].sweeps / w[k].steps .. " sweeps a step")
    end
  end)
end)
