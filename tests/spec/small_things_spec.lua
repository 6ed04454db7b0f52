-- small_things_spec.lua -- issue 17's small things: a body without a shape
-- in a contact rule is warned about at the rule; a body placed overlapping
-- an obstacle gets the initial-overlap warning (once per shape pair); the
-- .pvd frame times are t0 + k h and the series reads without VTK or ParaView
-- (tests/spec/vtp_plain.py, the code docs/output-vtk.md shows).
local H = require "sh_helper"
local q, sh = H.q, H.sh
local BIN = assert(H.BIN, "RICOCHET_BIN is not set")

local function run(text, args)
    local dir = H.tmpdir()
    H.write_file(dir .. "/scene.lua", text)
    local code, out, err = sh(q(BIN) .. " run " .. q(dir .. "/scene.lua") .. " --quiet " .. (args or ""):gsub("DIR", dir))
    return code, out, err, dir
end

describe("small things", function()
    it("warns at the rule about a body with no shape", function()
        local code, _, err, dir = run([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local b = w:body{ name = "ghost", mass = 1, inertia = 1, q = { 0, 1, 0 } }
local c = w:body{ mass = 1, inertia = 1, q = { 3, 1, 0 }, shape = rc.disk{ radius = 0.1 } }
w:contact{ w.ground, b, law = rc.newton{ e = 0 } }
w:contact{ w.ground, c, law = rc.newton{ e = 0 } }
print("built")
]])
        assert.are.equal(0, code)
        assert.are.equal("ricochet: warning: contact: body 'ghost' has no shape: the rule cannot make it touch "
                         .. "anything (give it a shape: w:body{ ..., shape = ... }, rc_shape_create)\n", err)
        H.rm_rf(dir)
    end)

    it("warns about a body placed overlapping an obstacle, once per pair", function()
        local code, _, err, dir = run([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
w:segment{ a = { 2, 0.5 }, b = { 4, 0.5 } }
w:body{ name = "sunk", mass = 1, inertia = 1, q = { 0, 0.3, 0 }, shape = rc.box{ 1, 1 } }
w:body{ name = "resting", mass = 1, inertia = 1, q = { 3, 0.7, 0 }, shape = rc.disk{ radius = 0.2 } }
w:body{ name = "pierced", mass = 1, inertia = 1, q = { 3.5, 0.5, 0 }, shape = rc.disk{ radius = 0.2 } }
w:simulation{ h = 1e-3 }:run{ T = 0.002 }
]])
        assert.are.equal(0, code)
        assert.are.equal("ricochet: warning: initial overlap: ground and sunk overlap by 0.2 (shapes 0 and 2)\n"
                         .. "ricochet: warning: initial overlap: ground and pierced overlap by 0.2 (shapes 1 and 4)\n", err)
        H.rm_rf(dir)
    end)

    it("gives the .pvd frames the times t0 + k h, read back without VTK", function()
        if not H.have("python3") then pending("python3 is needed"); return end
        local code, _, err, dir = run([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
w:body{ mass = 1, inertia = 1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.2 } }
local sim = w:simulation{ h = 1e-3 }
sim:vtk{ dir = arg[1], every = 7 }
sim:run{ T = 0.1 }
]], "-- DIR/vtk")
        assert.are.equal(0, code, err)
        local out = H.must("python3 " .. q(H.ROOT .. "/tests/spec/vtp_plain.py") .. " " .. q(dir .. "/vtk/grains.pvd"))
        local k = 0
        for t, file, n in out:gmatch("(%S+) (%S+) (%d+)\n") do
            -- the kernel's time t0 + (7k) h, printed to read back exactly
            assert.are.equal((7 * k) * 1e-3, tonumber(t))
            assert.are.equal(("grains_%06d.vtp"):format(k), file)
            assert.are.equal("1", n)
            k = k + 1
        end
        assert.are.equal(15, k)   -- the start and steps 7, 14, ..., 98
        -- the code docs/output-vtk.md shows is this reader's
        local doc = assert(H.read_file(H.ROOT .. "/docs/output-vtk.md"))
        local reader = assert(H.read_file(H.ROOT .. "/tests/spec/vtp_plain.py"))
        local body = reader:match("\nimport os.-\nif __name__")
        assert.truthy(body)
        assert.truthy(doc:find(body:sub(2, -13), 1, true), "docs/output-vtk.md does not show vtp_plain.py's reader")
        H.rm_rf(dir)
    end)
end)
