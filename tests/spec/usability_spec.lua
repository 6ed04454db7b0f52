-- usability_spec.lua -- small things a new user hit (issue 17): a script given
-- without the command, a bad --set value reported once.
local H = require "sh_helper"
local q, sh = H.q, H.sh
local BIN = assert(H.BIN, "RICOCHET_BIN is not set")

local SCENE = [[
local rc = require "ricochet"
local e = rc.param("e", 0.5)
print("e = " .. e)
]]

describe("ricochet program, usability", function()
    it("suggests 'ricochet run FILE' for a script given as the command", function()
        local dir = H.tmpdir()
        local path = dir .. "/scene.lua"
        H.write_file(path, SCENE)
        local code, out, err = sh(q(BIN) .. " " .. q(path) .. " --set e=0.2")
        assert.are.equal(2, code)
        assert.are.equal("", out)
        assert.are.equal("ricochet: unknown command '" .. path .. "'\n"
                         .. "ricochet: to run the script: ricochet run " .. path .. " --set e=0.2\n", err)
        -- an existing file with another name too
        H.write_file(dir .. "/scene", SCENE)
        code, _, err = sh(q(BIN) .. " " .. q(dir .. "/scene"))
        assert.are.equal(2, code)
        assert.matches("to run the script: ricochet run " .. dir .. "/scene\n", err, 1, true)
        -- any other unknown command: the usage, no suggestion
        code, _, err = sh(q(BIN) .. " frobnicate")
        assert.are.equal(2, code)
        assert.matches("unknown command 'frobnicate'", err, 1, true)
        assert.is_nil(err:find("to run the script", 1, true))
        assert.matches("usage: ricochet run SCRIPT", err, 1, true)
        H.rm_rf(dir)
    end)

    it("reports a bad --set value once, not also as never read", function()
        local dir = H.tmpdir()
        local path = dir .. "/scene.lua"
        H.write_file(path, SCENE)
        local code, out, err = sh(q(BIN) .. " run " .. q(path) .. " --set e=abc")
        assert.are.equal(1, code)
        assert.are.equal("", out)
        assert.are.equal("ricochet: error: " .. path .. ":2: parameter 'e': expected a number, got 'abc'\n", err)
        -- a name the script never reads is still warned about
        code, out, err = sh(q(BIN) .. " run " .. q(path) .. " --set f=1 --quiet")
        assert.are.equal(0, code)
        assert.are.equal("e = 0.5\n", out)
        assert.are.equal("ricochet: warning: --set f=1 was never read by the script (rc.param)\n", err)
        H.rm_rf(dir)
    end)
end)
