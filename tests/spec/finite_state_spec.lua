-- finite_state_spec.lua -- a step never leaves a non-finite state silently
-- (found by the Lua API fuzzer, tests/fuzz, case 1050). A law whose
-- projection returns impulses of 1e300 (finite, so accepted) sends a box off
-- at 5e299 m/s; a torsion spring then pulls a welded body hard enough that
-- the joints' projection after the update overflows. sim:step returned with
-- v = inf; it now fails with the kernel's RC_ERR_NUMERIC ("step diverged":
-- the joint solve already has a NaN residual) and keeps the state.
-- The C side (both update paths, q overflowing) is tests/c/test_finite_state.c.
local rc = require "ricochet"

local function finite(v)
    for _, x in ipairs(v) do if x ~= x or x == math.huge or x == -math.huge then return false end end
    return true
end

describe("a step that would leave a non-finite state", function()
    it("is refused and the state is kept", function()
        local calls = 0
        local law = rc.law{ name = "huge", params = {},
            xi = function(_, uN, uT) return uN, uT end,
            project = function(_, xN)
                calls = calls + 1
                if calls > 4 then return 1e300, -1e300 end
                return math.max(xN, 0), 0
            end }
        local w = rc.world{ gravity = { 0, -9.3 }, default_law = law }
        w:halfplane{}
        local a = w:body{ mass = 4.5, inertia = 0.175, q = { -0.5, 0.54, 2.357 }, v = { -1.77, -0.29, 0.57 },
                          shape = rc.polygon{ vertices = { { 0.346, 0.004 }, { 0.199, 0.283 }, { -0.187, 0.291 },
                              { -0.332, 0.096 }, { -0.161, -0.306 }, { 0.108, -0.329 }, { 0.269, -0.217 } } } }
        local b = w:body{ mass = 3.87, inertia = 0.75, shape = rc.box{ 0.216, 0.995 } }
        local sim = w:simulation{ h = 0.0108 }
        w:weld{ w.ground, a, at = { -0.188, -0.752 }, angle = -0.56 }
        w:torsion_spring{ b, a, k = 79, rest_angle = -1.32 }
        sim:step()
        assert.is_true(finite(a:q()) and finite(a:v()) and finite(b:q()) and finite(b:v()))
        assert.is_true(math.abs(b:v()[3]) > 1e299)                -- the impulse went through
        local qa, va, qb, vb = a:q(), a:v(), b:q(), b:v()
        local ok, err = pcall(sim.step, sim)
        assert.is_false(ok)
        assert.matches("sim:step: step diverged at t = 0.0216", err, 1, true)
        assert.matches("the state is left at t = 0.0108", err, 1, true)
        assert.are.same(qa, a:q())
        assert.are.same(va, a:v())
        assert.are.same(qb, b:q())
        assert.are.same(vb, b:v())
        assert.are.equal(1, sim.steps)
    end)
end)
