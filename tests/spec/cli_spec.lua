-- cli_spec.lua -- the ricochet program: options, outputs, exit codes,
-- error messages, interrupts.
local BIN = assert(os.getenv("RICOCHET_BIN"), "RICOCHET_BIN is not set")

local H = require "sh_helper"   -- quoting, temporary folders, files, commands
local q, tmpdir, read_file, write_file, sh = H.q, H.tmpdir, H.read_file, H.write_file, H.sh

-- Write script text into a fresh folder; return its path and the folder.
local function script(text)
    local dir = tmpdir()
    local path = dir .. "/scene.lua"
    write_file(path, text)
    return path, dir
end

local function ricochet(args)
    return sh(q(BIN) .. " " .. args)
end

local FREE = [[
local rc = require "ricochet"
local theta = rc.param("theta", 0.5)
local h = rc.param("h", 0.01)
local T = rc.param("T", 1.0)
local w = rc.world{ gravity = { 0, -10 } }
local b = w:body{ name = "b", mass = 1, inertia = 1, q = { 0, 1, 0 } }
local sim = w:simulation{ theta = theta, h = h }
local s = sim:run{ T = T }
print(string.format("theta=%s steps=%d", tostring(theta), s.steps))
]]

describe("ricochet program", function()
    it("copied out of its build tree without RICOCHET_LUA_DIR, says where the Lua files are looked for (no crash)", function()
        local dir = tmpdir()
        assert.equals(0, (sh("cp " .. q(BIN) .. " " .. q(dir .. "/ricochet"))))
        local code, _, err = sh("cd " .. q(dir) .. " && env -u RICOCHET_LUA_DIR ./ricochet run /dev/null")
        assert.equals(1, code)   -- it segfaulted (a write before the path's first byte) when no folder was found
        assert.truthy(err:find("cannot find ricochet's Lua files (ricochet/init.lua)", 1, true))
        assert.truthy(err:find("set RICOCHET_LUA_DIR", 1, true))
    end)

    it("prints its version and help", function()
        local code, out = ricochet("version")
        assert.are.equal(0, code)
        assert.matches("^ricochet 0%.1%.0", out)
        code, out = ricochet("--version")
        assert.are.equal(0, code)
        assert.matches("^ricochet 0%.1%.0", out)
        code, out = ricochet("help")
        assert.are.equal(0, code)
        assert.matches("usage: ricochet run SCRIPT", out, 1, true)
        assert.matches("--set NAME=VALUE", out, 1, true)
    end)

    it("exits with 2 on usage errors", function()
        local path = script(FREE)
        local cases = {
            "",                                  -- no command
            "frobnicate",                        -- unknown command
            "run",                               -- missing script
            "run " .. q(path) .. " --bogus",     -- unknown option
            "run " .. q(path) .. " --set theta", -- malformed --set
            "run " .. q(path) .. " --set =1",    -- empty name
            "run " .. q(path) .. " --every 0",   -- bad --every
            "run " .. q(path) .. " --every x",
            "run " .. q(path) .. " --out",       -- missing value
        }
        for _, args in ipairs(cases) do
            local code, out, err = ricochet(args)
            assert.are.equal(2, code, "args: " .. args)
            assert.is_true(#err > 0, "no message for: " .. args)
        end
        local _, _, err = ricochet("run " .. q(path) .. " --bogus")
        assert.matches("unknown option '--bogus'", err, 1, true)
        _, _, err = ricochet("run " .. q(path) .. " --set theta")
        assert.matches("malformed --set 'theta' (expected NAME=VALUE)", err, 1, true)
    end)

    it("runs a script, applies --set and prints a summary", function()
        local path = script(FREE)
        local code, out, err = ricochet("run " .. q(path) .. " --set theta=1 --set h=0.1")
        assert.are.equal(0, code, err)
        assert.matches("theta=1.0 steps=10", out, 1, true)
        assert.matches("ricochet: run summary", out, 1, true)
        assert.matches("scheme    moreau-jean, theta = 1, h = 0.1", out, 1, true)
        assert.matches("steps     10 (t = 1)", out, 1, true)
        assert.matches("status    complete", out, 1, true)
        -- --quiet: no summary
        code, out = ricochet("run " .. q(path) .. " --quiet --set=T=0.5")
        assert.are.equal(0, code)
        assert.are.equal("theta=0.5 steps=50\n", out)
    end)

    it("writes the history of a world with named linear bodies of any size (no columns for them)", function()
        for _, n in ipairs{ 7, 40 } do
            local path, dir = script(string.format([[
local rc = require "ricochet"
local n = %d
local M, K = {}, {}
for i = 1, n do
  M[i], K[i] = {}, {}
  for j = 1, n do M[i][j] = i == j and 1 or 0; K[i][j] = i == j and 2 or (math.abs(i - j) == 1 and -1 or 0) end
end
local w = rc.world{}
local bar = w:linear{ name = "bar", M = M, K = K, q0 = (function() local q = {} for i = 1, n do q[i] = 0.01 * i end return q end)() }
local b = w:body{ name = "b", mass = 1, inertia = 1 }
w:simulation{ h = 0.01 }:run{ T = 0.1 }
]], n))
            local code, _, err = ricochet("run " .. q(path) .. " --quiet --out " .. q(dir .. "/out"))
            assert.are.equal(0, code, err)
            local _, hist = sh("zcat " .. q(dir .. "/out/history.csv.gz") .. " | grep -v '^#' | head -1")
            assert.matches("b.x", hist, 1, true)
            assert.is_nil(hist:find("bar.", 1, true))
            os.execute("rm -rf " .. q(dir))
        end
    end)

    it("names the scheme and the solver of the run in run.json", function()
        for _, case in ipairs{ { "moreau-jean", "nsgs" }, { "moreau-jean-fremond", "nsgs" },
                               { "maury", "nsgs" }, { "maury", "uzawa" } } do
            local path, dir = script(string.format([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{}
w:body{ name = "b", mass = 1, inertia = 1, q = { 0, 0.5, 0 }, shape = rc.disk{ radius = 0.5 } }
w:simulation{ scheme = %q, h = 0.01, theta = 1, solver = { %q } }:run{ T = 0.05 }
]], case[1], case[2]))
            local code, _, err = ricochet("run " .. q(path) .. " --quiet --out " .. q(dir .. "/out"))
            assert.are.equal(0, code, err)
            local json = read_file(dir .. "/out/run.json")
            assert.matches('"scheme": "' .. case[1] .. '"', json, 1, true)
            assert.matches('"name": "' .. case[2] .. '"', json, 1, true)
            os.execute("rm -rf " .. q(dir))
        end
    end)

    it("names the columns of a linear body q1 .. qn, v1 .. vn for every n, x, y, theta for a rigid one", function()
        for _, n in ipairs{ 2, 3, 4 } do
            local path, dir = script(string.format([[
local rc = require "ricochet"
local n = %d
local M = {}
for i = 1, n do M[i] = {}; for j = 1, n do M[i][j] = i == j and 1 or 0 end end
local w = rc.world{}
w:linear{ name = "bar", M = M }
w:body{ name = "b", mass = 1, inertia = 1 }
w:simulation{ h = 0.01 }:run{ T = 0.02 }
]], n))
            local code, _, err = ricochet("run " .. q(path) .. " --quiet --out " .. q(dir .. "/out"))
            assert.are.equal(0, code, err)
            local _, hist = sh("zcat " .. q(dir .. "/out/history.csv.gz") .. " | grep -v '^#' | head -1")
            local cols = {}
            for i = 1, n do cols[#cols + 1] = "bar.q" .. i end
            for i = 1, n do cols[#cols + 1] = "bar.v" .. i end
            assert.are.equal("t,E,E_kin,E_pot,W_ext,W_N,W_T," .. table.concat(cols, ",") .. ",b.x,b.y,b.theta,b.vx,b.vy,b.omega"
                               .. ",W_J,W_proj,W_theta,W_damp,E_spring,E_elastic\n", hist)
            os.execute("rm -rf " .. q(dir))
        end
    end)

    it("finds the module without any environment", function()
        local path = script(FREE)
        local code, out, err = sh("env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 "
                                  .. q(BIN) .. " run " .. q(path) .. " --quiet")
        assert.are.equal(0, code, err)
        assert.matches("steps=100", out, 1, true)
    end)

    it("passes arguments to the script", function()
        local path = script([[print(arg[0], arg[1], arg[2], select("#", ...), ...)]])
        local code, out = ricochet("run " .. q(path) .. " --quiet -- a --b")
        assert.are.equal(0, code)
        assert.are.equal(path .. "\ta\t--b\t2\ta\t--b\n", out)
    end)

    it("writes history.csv.gz and run.json with --out", function()
        local path, dir = script(FREE)
        local out_dir = dir .. "/out"
        local code, out, err = ricochet("run " .. q(path) .. " --out " .. q(out_dir) .. " --set theta=0.5 --every 10")
        assert.are.equal(0, code, err)
        assert.matches("output    " .. out_dir, out, 1, true)
        local json = read_file(out_dir .. "/run.json")
        assert.is_truthy(json, "no run.json")
        assert.matches('"status": "complete"', json, 1, true)
        assert.matches('"complete": true', json, 1, true)
        assert.matches('"steps": 100', json, 1, true)
        assert.matches('"every": 10', json, 1, true)
        assert.matches('"scenario": "' .. path .. '"', json, 1, true)
        assert.matches('"theta": 0.5', json, 1, true)
        assert.matches('"params": {"T": 1, "h": 0.01, "theta": 0.5}', json, 1, true)
        assert.is_true(os.execute("gzip -t " .. q(out_dir .. "/history.csv.gz")))
        local p = io.popen("gzip -dc " .. q(out_dir .. "/history.csv.gz"))
        local text = p:read("a")
        p:close()
        local n = 0
        for _ in text:gmatch("[^\n]+") do n = n + 1 end
        assert.matches("^t,E,E_kin,E_pot,W_ext,W_N,W_T,b%.x,b%.y,b%.theta", text)
        assert.are.equal(1 + 1 + 10, n)
    end)

    it("exits with 1 and names the script line on a script error", function()
        local path = script([[
local rc = require "ricochet"
local w = rc.world{}

local b = w:body{ mass = -1, inertia = 1 }
]])
        local code, out, err = ricochet("run " .. q(path))
        assert.are.equal(1, code)
        assert.are.equal("ricochet: error: " .. path .. ":4: world:body: 'mass' must be > 0 (got -1)\n", err)
        assert.are.equal("", out)
    end)

    it("exits with 1 on a bad --set value and on a missing script", function()
        local path = script(FREE)
        local code, _, err = ricochet("run " .. q(path) .. " --set theta=abc")
        assert.are.equal(1, code)
        assert.matches("ricochet: error: " .. path .. ":2: parameter 'theta': expected a number, got 'abc'", err, 1, true)
        code, _, err = ricochet("run /nonexistent/scene.lua")
        assert.are.equal(1, code)
        assert.matches("ricochet: error: cannot open /nonexistent/scene.lua", err, 1, true)
    end)

    it("warns about --set names the script never read", function()
        local path = script(FREE)
        local code, _, err = ricochet("run " .. q(path) .. " --quiet --set thta=0.3")
        assert.are.equal(0, code)
        assert.matches("ricochet: warning: --set thta=0.3 was never read by the script", err, 1, true)
    end)

    it("prints kernel warnings with a prefix, at most 20, and counts them all", function()
        -- (each run warns about its first five unconverged steps and counts the rest in one
        -- more warning: five runs of ten unconverged steps make 30 warnings)
        local path = script([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
for i = 0, 2 do
  w:body{ mass = 1, inertia = 0.1, q = { 0.1 * i, 0.5 + 1.0 * i, 0 }, shape = rc.disk{ radius = 0.5 } }
end
w:halfplane{}
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.5 } }
local sim = w:simulation{ h = 1e-2, solver = { tol = 1e-300, max_iter = 1, on_fail = "warn" } }
local total = 0
for k = 1, 5 do total = total + sim:run{ T = 0.1 * k }.warnings end
io.stderr:write("warnings=", total, "\n")
]])
        local code, out, err = ricochet("run " .. q(path))
        assert.are.equal(0, code, err)
        local n, m = 0, 0
        for _ in err:gmatch("ricochet: warning: solver did not converge") do n = n + 1 end
        for _ in err:gmatch("ricochet: warning: ") do m = m + 1 end
        assert.are.equal(17, n)   -- 5 + 5 + 5 + 2, with three counts between
        assert.are.equal(21, m)   -- 20 and the notice
        assert.matches("ricochet: warning: further warnings of this world are not printed", err, 1, true)
        assert.are.equal(30, tonumber(err:match("warnings=(%d+)")))
        assert.matches("status    complete, 6 warnings", out, 1, true)
        assert.matches("failures 47", out, 1, true)   -- the first three steps touch nothing
        assert.matches("sweep cap 10 of 10 steps hit the sweep cap", out, 1, true)
    end)

    it("closes an output left open with status error when the script fails later", function()
        local path, dir = script([[
local rc = require "ricochet"
local w = rc.world{}
local b = w:body{ name = "b", mass = 1, inertia = 1 }
local sim = w:simulation{ h = 0.1 }
sim:output{ dir = arg[1] }
sim:step()
sim:step()
error("late failure")
]])
        local out_dir = dir .. "/o"
        local code, _, err = ricochet("run " .. q(path) .. " -- " .. q(out_dir))
        assert.are.equal(1, code)
        assert.matches(path .. ":8: late failure", err, 1, true)
        local json = read_file(out_dir .. "/run.json")
        assert.matches('"status": "error"', json, 1, true)
        assert.matches('"complete": false', json, 1, true)
        assert.matches('"steps": 2', json, 1, true)
        assert.matches("late failure", json, 1, true)
        assert.is_true(os.execute("gzip -t " .. q(out_dir .. "/history.csv.gz")))
    end)

    it("closes an output left open with status complete when the script ends", function()
        local path, dir = script([[
local rc = require "ricochet"
local w = rc.world{}
w:body{ name = "b", mass = 1, inertia = 1 }
local sim = w:simulation{ h = 0.1 }
sim:output{ dir = arg[1] }
sim:step()
]])
        local out_dir = dir .. "/o"
        local code = ricochet("run " .. q(path) .. " --quiet -- " .. q(out_dir))
        assert.are.equal(0, code)
        assert.matches('"status": "complete"', read_file(out_dir .. "/run.json"), 1, true)
    end)

    it("stops on SIGINT: exit 130, run.json interrupted, readable history", function()
        local path, dir = script([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
local ball = w:body{ name = "ball", mass = 1, inertia = 0.1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.5 } }
w:halfplane{}
w:contact{ ball, w.ground, law = rc.newton{ e = 0.9 }, name = "C" }
local sim = w:simulation{ h = 1e-4 }
sim:run{ T = 1e5 }   -- 1e9 steps (rc.MAX_RUN_STEPS): until the interrupt
]])
        local out_dir = dir .. "/o"
        local code, out, err = sh("timeout --preserve-status -s INT 1 " .. q(BIN) .. " run " .. q(path)
                                  .. " --every 100 --out " .. q(out_dir))
        assert.are.equal(130, code, err)
        assert.matches("ricochet: interrupted", err, 1, true)
        assert.matches("status    interrupted", out, 1, true)
        local json = read_file(out_dir .. "/run.json")
        assert.is_truthy(json)
        assert.matches('"status": "interrupted"', json, 1, true)
        assert.matches('"complete": false', json, 1, true)
        assert.is_true(os.execute("gzip -t " .. q(out_dir .. "/history.csv.gz")))
        local p = io.popen("gzip -dc " .. q(out_dir .. "/history.csv.gz") .. " | tail -n 1")
        local last = p:read("a")
        p:close()
        assert.matches("^# incomplete: interrupted", last)
    end)

    it("stops a pure Lua loop on SIGINT", function()
        local path = script([[
local rc = require "ricochet"
while true do end
]])
        local code, _, err = sh("timeout --preserve-status -s INT 1 " .. q(BIN) .. " run " .. q(path))
        assert.are.equal(130, code, err)
        assert.matches("ricochet: interrupted", err, 1, true)
    end)
end)
