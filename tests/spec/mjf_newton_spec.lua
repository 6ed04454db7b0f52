-- mjf_newton_spec.lua -- issue 17: under Moreau-Jean-Fremond Newton's law
-- puts Coulomb friction on u_T,k+theta with no tangential shift (eq. 73,
-- src/model/law_builtin.c), so a sticking contact has
-- u_T,k+1 = -((1 - theta) / theta) u_T,k: tangential restitution 1 at
-- theta = 1/2, its slip reverses every step and never decays. rc.moreau{ e_t = 0 }
-- sticks. The first sticking step of such a contact is warned about, once per world.
local H = require "sh_helper"
local q, sh = H.q, H.sh
local BIN = assert(H.BIN, "RICOCHET_BIN is not set")

-- a unit box (m = 1) resting on the ground, pushed with v_x = 1e-3; mu g h = 5e-3
-- stops it within a step; prints u_T of both corner contacts after each of 40 steps
local SCENE = [[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local b = w:body{ name = "box", mass = 1, inertia = 1 / 6, q = { 0, 0.5, 0 }, v = { 1e-3, 0, 0 },
                  shape = rc.box{ 1, 1 } }
w:contact{ w.ground, b, law = LAW }
local sim = w:simulation{ scheme = "moreau-jean-fremond", theta = THETA, h = 1e-3 }
for _ = 1, 40 do
    sim:step()
    for _, c in ipairs(sim:contacts()) do io.write(("%.17g "):format(c.uT)) end
    io.write("\n")
end
sim:run{ T = 0.05 }   -- more sticking steps: no second warning
]]

local function run(law, theta)
    local dir = H.tmpdir()
    H.write_file(dir .. "/scene.lua", (SCENE:gsub("LAW", law):gsub("THETA", theta or "0.5")))
    local code, out, err = sh(q(BIN) .. " run " .. q(dir .. "/scene.lua") .. " --quiet")
    H.rm_rf(dir)
    assert.are.equal(0, code, err)
    local steps = {}
    for line in out:gmatch("[^\n]+") do
        local u = {}
        for x in line:gmatch("%S+") do u[#u + 1] = tonumber(x) end
        assert.are.equal(2, #u)   -- both corners touch at every step
        steps[#steps + 1] = u
    end
    assert.are.equal(40, #steps)
    return steps, err
end

local WARNING = "ricochet: warning: %s (newton, mu = 0.5) sticks under moreau-jean-fremond with theta = 0.5: "
    .. "there Newton's law has tangential restitution (1 - theta) / theta = 1, so a sticking contact reverses "
    .. "its slip every step (a period-2 oscillation that never decays); use rc.moreau{ e_t = 0 } "
    .. "(rc_law_def type RC_LAW_MOREAU) for contacts that must stick (docs/theory/fremond.md)\n"

describe("Newton's law under Moreau-Jean-Fremond at theta = 1/2", function()
    it("reverses a sticking contact's slip every step without decay, and warns once", function()
        local steps, err = run('rc.newton{ e = 0, mu = 0.5, name = "grip" }')
        for k = 1, 40 do
            for j = 1, 2 do
                local u = steps[k][j]
                -- measured: u_T = -1e-3, +1e-3, -1e-3, ... (the initial slip, reversed)
                assert.is_near(1e-3, math.abs(u), 1e-9)
                assert.are.equal(k % 2 == 1 and -1 or 1, u < 0 and -1 or 1)
            end
        end
        assert.are.equal(WARNING:format("law 'grip'"), err)
    end)

    it("names an unnamed law as such", function()
        local _, err = run("rc.newton{ e = 0, mu = 0.5 }")
        assert.are.equal(WARNING:format("an unnamed law"), err)
    end)

    it("with e = 1 (Fremond's law at theta = 1/2) the same reversal is not warned about", function()
        local steps, err = run("rc.newton{ e = 1, mu = 0.5 }")
        assert.is_near(1e-3, math.abs(steps[40][1]), 1e-9)
        assert.are.equal("", err)
    end)

    it("rc.moreau{ e_t = 0 } sticks: u_T -> 0 after the first step, no warning", function()
        local steps, err = run("rc.moreau{ e = 0, e_t = 0, mu = 0.5 }")
        for k = 2, 40 do
            for j = 1, 2 do assert.is_true(math.abs(steps[k][j]) < 1e-9) end   -- measured <= 4e-15
        end
        assert.are.equal("", err)
    end)

    it("at theta = 0.75 the slip decays by (1 - theta) / theta = 1/3 per step, no warning", function()
        local steps, err = run("rc.newton{ e = 0, mu = 0.5 }", "0.75")
        for k = 1, 6 do   -- measured: -3.333e-4, 1.111e-4, -3.704e-5, 1.235e-5, ...
            for j = 1, 2 do assert.is_near(1e-3 * (-1 / 3) ^ k, steps[k][j], 1e-10) end
        end
        for j = 1, 2 do assert.is_true(math.abs(steps[40][j]) < 1e-9) end   -- the solver's tolerance
        assert.are.equal("", err)
    end)
end)
