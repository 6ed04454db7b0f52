-- removal_checkpoint_spec.lua -- checkpoints across removals (src/io/checkpoint_life.c,
-- lua/ricochet/remove.lua's sync): a program whose callbacks remove grains and
-- add others in their slots, run for 2T, writes the history of a run of T
-- checkpointed and restarted for T, row for row; in a script, sim:restore
-- brings back the removals (removed handles, w:find of the bodies added at run
-- time, generations); a world with other removals refuses the checkpoint.
local rc = require "ricochet"
local BIN = os.getenv("RICOCHET_BIN")

local H = require "sh_helper"
local q, tmpdir, sh, gunzip_rows = H.q, H.tmpdir, H.sh_all, H.gunzip_rows

-- the script: grains in a heap; callbacks (by sim.steps) remove and add grains
local SCRIPT = [[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -9.81 } }
w:halfplane{}
w:halfplane{ point = { -1.6, 0 }, normal = { 1, 0 } }
for i = 0, 5 do
  w:body{ name = "g" .. i, mass = 1, inertia = 0.03, q = { -1.2 + 0.4 * i, 0.4 + 0.7 * (i % 3), 0 },
          shape = rc.disk{ 0.25 } }
end
local sim = w:simulation{ h = 2e-3 }
sim:before_step(function(s)
  local k = s.steps
  if k == 50 then w:find("g2"):remove()
  elseif k == 100 then w:body{ name = "new1", mass = 2, inertia = 0.1, q = { 0, 3, 0 }, shape = rc.disk{ 0.3 } }
  elseif k == 160 then w:find("new1"):remove()
  elseif k == 220 then w:body{ name = "new2", mass = 1.5, inertia = 0.1, q = { 0.2, 3, 0 }, shape = rc.disk{ 0.28 } }
  end
end)
sim:run{ T = rc.param("T", 0.6) }
return w, sim
]]

describe("checkpoints across removals", function()
    it("a program that removes and adds grains restarts row for row", function()
        if not BIN then pending("RICOCHET_BIN is not set") return end
        local dir = tmpdir()
        local script = dir .. "/grains.lua"
        local f = assert(io.open(script, "w"))
        f:write(SCRIPT)
        f:close()
        local run = q(BIN) .. " run " .. q(script) .. " --quiet --every 5 "
        local code, text = sh(run .. "--set T=0.6 --out " .. q(dir .. "/ref"))
        assert.are.equal(0, code, text)
        code, text = sh(run .. "--set T=0.3 --checkpoint-every 150 --out " .. q(dir .. "/a"))
        assert.are.equal(0, code, text)
        code, text = sh(run .. "--set T=0.6 --restart " .. q(dir .. "/a/checkpoint.rcc") .. " --out " .. q(dir .. "/b"))
        assert.are.equal(0, code, text)
        local ref, a, b = gunzip_rows(dir .. "/ref/history.csv.gz"), gunzip_rows(dir .. "/a/history.csv.gz"),
                          gunzip_rows(dir .. "/b/history.csv.gz")
        assert.are.equal(ref[1], b[1])
        assert.are.equal(32, #a)   -- header, t = 0, 0.01, ..., 0.3
        assert.are.equal(32, #b)   -- header, t = 0.3, ..., 0.6
        for i = 2, #b do assert.are.equal(ref[#a - 2 + i], b[i]) end
        -- the removed grain's columns: empty (NaN) after its removal, in both
        assert.matches("nan", b[#b], 1, true)
        -- run.json lists the removed bodies: g2 (slot 2, generation 0) at step 50, new1 (slot 2,
        -- generation 1) at step 160; the restarted run those after its restart
        local function json(path)
            local jf = assert(io.open(path))
            local text = jf:read("a")
            jf:close()
            return text
        end
        local rj = json(dir .. "/ref/run.json")
        assert.matches('"removed": [\n    {"name": "g2", "id": 2, "generation": 0, "t": 0.1},\n    '
                       .. '{"name": "new1", "id": 2, "generation": 1, "t": 0.32}\n  ],\n  "removed_count": 2,', rj, 1, true)
        assert.matches('"removed": [\n    {"name": "new1", "id": 2, "generation": 1, "t": 0.32}\n  ],\n  '
                       .. '"removed_count": 1,', json(dir .. "/b/run.json"), 1, true)
        os.execute("rm -rf " .. q(dir))
    end)

    it("sim:restore brings back the removals; a world with other removals refuses the checkpoint", function()
        local dir = tmpdir()
        local path = dir .. "/k.rcc"
        local function build()
            local chunk = assert(load(SCRIPT:gsub("sim:run{ T = rc.param%(\"T\", 0.6%) }", ""), "script"))
            return chunk()
        end
        local w1, sim1 = build()
        local g2 = w1:find("g2")
        sim1:run{ T = 0.4 }            -- g2 removed at 0.1, new1 added and removed, new2 added at 0.44? no: step 220
        assert.is_true(g2:is_removed())
        sim1:save(path)
        sim1:run{ T = 0.6 }

        local w2, sim2 = build()
        local g2b = w2:find("g2")
        sim2:restore(path)
        assert.is_true(g2b:is_removed())
        assert.has_error(function() g2b:q() end, "body:q: body 'g2' was removed at t = 0.10000000000000001")
        assert.is_nil(w2:find("g2"))
        assert.is_nil(w2:find("new1"))   -- added and removed before the checkpoint
        assert.are.equal(5, #w2:bodies())
        sim2:run{ T = 0.6 }
        local n1, n2 = w1:find("new2"), w2:find("new2")
        assert.are.equal(n1.id, n2.id)
        for i = 1, 3 do
            assert.are.equal(string.format("%a", n1:q()[i]), string.format("%a", n2:q()[i]))
            assert.are.equal(string.format("%a", w1:find("g4"):v()[i]), string.format("%a", w2:find("g4"):v()[i]))
        end

        local w3, sim3 = build()
        w3:find("g4"):remove()
        local ok, err = pcall(sim3.restore, sim3, path)
        assert.is_false(ok)
        assert.matches("sim:restore: checkpoint '" .. path .. "': the removals differ: body 'g4' (slot 4) was removed "
                       .. "in this world at t = 0 (generation 1), not in the checkpoint (generation 0, live)", err, 1, true)
        assert.are.equal(0, sim3.steps)
        os.execute("rm -rf " .. q(dir))
    end)
end)
