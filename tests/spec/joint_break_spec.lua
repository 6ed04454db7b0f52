-- joint_break_spec.lua -- joints that break from Lua (break_force, break_torque;
-- src/model/joint_break.c): a pendulum released horizontally pulls on its pivot
-- with up to 3 m g at the bottom; with break_force = 2.5 m g it breaks once, at
-- the first step whose reaction exceeds the limit, is reported by
-- w:broken_joints() after that step, and its handle says when it broke; the
-- bob then falls freely (v_x constant, v_y - g t); bad limits are refused.
local rc = require "ricochet"

local M, G, H = 2, 9.81, 1e-3

local function pendulum(limit)
    local w = rc.world{ gravity = { 0, -G } }
    local bob = w:body{ mass = M, inertia = 1e-6, q = { 1, 0, 0 } }
    local j = w:revolute{ w.ground, bob, at = { 0, 0 }, name = "pivot", break_force = limit }
    return w, w:simulation{ h = H }, bob, j
end

describe("joint breaking", function()
    it("breaks at the first step over the limit, is reported, and the bob falls freely", function()
        local limit = 2.5 * M * G
        local w, sim, bob, j = pendulum(limit)
        local breaks, first_over, last_f, v_at = {}, nil, nil, nil
        sim:after_step(function(s)
            local list = w:broken_joints()
            for _, b in ipairs(list) do breaks[#breaks + 1] = { step = s.steps, b = b, f = last_f } end
            if #list > 0 then v_at = bob:v() end
            if not j:is_removed() then
                local f = j:info().force
                last_f = math.sqrt(f[1] ^ 2 + f[2] ^ 2)
                if not first_over and last_f > limit then first_over = s.steps end
            end
        end)
        sim:run{ T = 0.8 }
        assert.are.equal(1, #breaks)
        local b = breaks[1].b
        assert.are.equal(j, b.joint)
        assert.is_true(b.force > limit and b.force < 3 * M * G)
        assert.are.equal(0, b.torque)
        -- the step reported is the step at which the reaction first exceeded the limit
        assert.are.equal(math.floor(b.t / H + 0.5), breaks[1].step)
        assert.is_nil(first_over)   -- (the joint was removed before any later step could read it)
        assert.has_error(function() j:info() end, string.format("joint:info: joint 'pivot' was removed at t = %.17g", b.t))
        -- free fall from the break
        local dt = 0.8 - b.t
        local v = bob:v()
        assert.is_true(math.abs(v[1] - v_at[1]) < 1e-12)
        assert.is_true(math.abs(v[2] - (v_at[2] - G * dt)) < 1e-9)
        local log, n = w:broken_joints("log")
        assert.are.equal(1, n)
        assert.are.equal(j, log[1].joint)
    end)

    it("is recorded in run.json", function()
        local dir = os.tmpname()
        os.remove(dir)
        local w, sim = pendulum(2.5 * M * G)
        sim:run{ T = 0.8, out = dir, quiet = true }
        local f = assert(io.open(dir .. "/run.json"))
        local text = f:read("a")
        f:close()
        local list = w:broken_joints("log")
        local b = list[1]
        local t, f = text:match('"broken_joints": %[\n    {"name": "pivot", "id": 0, "t": ([^,]+), "force": ([^,]+), '
                                .. '"torque": 0}\n  %],\n  "broken_joints_count": 1,')
        assert.are.equal(b.t, tonumber(t))   -- (shortest round-trip numbers: exact)
        assert.are.equal(b.force, tonumber(f))
        assert.is_nil(text:find('"removed"', 1, true))   -- no body was removed
        os.execute("rm -rf '" .. dir .. "'")
    end)

    it("does not break under a larger limit", function()
        local w, sim, _, j = pendulum(3.5 * M * G)
        local n = 0
        sim:after_step(function() n = n + #w:broken_joints() end)
        sim:run{ T = 1.5 }
        assert.are.equal(0, n)
        assert.is_false(j:is_removed())
    end)

    it("refuses bad limits", function()
        local w = rc.world{}
        local bob = w:body{ mass = 1, inertia = 1 }
        assert.has_error(function() w:revolute{ w.ground, bob, at = { 0, 0 }, break_force = -1 } end)
        assert.has_error(function() w:revolute{ w.ground, bob, at = { 0, 0 }, break_force = "x" } end)
        local ok, err = pcall(w.constraint, w, { w.ground, bob, rows = 1, g = function(t, qa, qb) return qb[2] end,
                                                  break_force = 1 })
        assert.is_false(ok)
        assert.matches("unknown key 'break_force'", err, 1, true)
    end)
end)
