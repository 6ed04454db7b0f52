-- joint_motor_spec.lua -- motors and limits of revolute and prismatic joints
-- (docs/mechanisms.md, "Motors and limits"): a motor reaches and holds its
-- speed against a load, saturates at its torque with the analytic
-- acceleration, its work closes the energy balance (also from the history
-- file); limits stop a pendulum on the bound (e = 0), return it with its
-- energy (e = 1), restitute e of the velocity; bad input gives exact errors.
local rc = require "ricochet"

local SCHEMES = { "moreau-jean", "moreau-jean-fremond" }

local function close(expected, actual, tol, what)
    assert(math.abs(expected - actual) <= tol,
           string.format("%s: expected %.17g, got %.17g (tol %g)", what or "value", expected, actual, tol))
end

-- The message of fn(...) failing, without its position.
local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

-- A wheel (a disk of inertia I) on a pin at the origin, no gravity.
local function wheel(motor, scheme, I)
    local w = rc.world{ gravity = { 0, 0 } }
    local b = w:body{ mass = 2, inertia = I or 0.5, q = { 0, 0, 0 } }
    local pin = w:revolute{ w.ground, b, at = { 0, 0 }, motor = motor, name = "pin" }
    return w, b, pin, w:simulation{ h = 1e-3, scheme = scheme }
end

describe("joint motor", function()
    for _, scheme in ipairs(SCHEMES) do
        it("reaches its speed and holds it exactly against a load torque (" .. scheme .. ")", function()
            local w, b, pin, sim = wheel({ speed = 3, max_torque = 100 }, scheme)
            b:set_force{ 0, 0, -4 }                       -- a brake: the motor must give +4 N m
            local worst = 0
            sim:after_step(function() worst = math.max(worst, math.abs(b:v()[3] - 3)) end)
            sim:run{ T = 0.5 }
            assert(worst < 3 + 1e-9)                      -- the first step jumps from 0
            close(3, b:v()[3], 1e-12, "omega")
            close(4, pin:info().motor_force, 1e-9, "motor torque")
            assert.are.equal(w, pin.world)
        end)

        it("saturates at max_torque: omega = tau t / I until the speed, then holds (" .. scheme .. ")", function()
            local I, tau = 0.5, 0.25
            local _, b, pin, sim = wheel({ speed = 1, max_torque = tau }, scheme, I)
            sim:run{ T = 1 }                               -- omega(1) = 0.5 < 1: saturated all along
            close(tau * 1 / I, b:v()[3], 1e-12, "omega(1)")
            close(tau, pin:info().motor_force, 1e-12, "motor torque at its bound")
            close(tau * 1e-3, pin:info().motor_impulse, 1e-15, "impulse h tau")
            sim:run{ T = 3 }                               -- reached at t = 2, then held
            close(1, b:v()[3], 1e-9, "omega(3)")                -- to the solver's tolerance
            assert(math.abs(pin:info().motor_force) < 1e-9)
        end)
    end

    it("of a prismatic joint: force-limited, acceleration F / m along the axis", function()
        local w = rc.world{ gravity = { 0, -9.81 } }
        local cart = w:body{ mass = 4, inertia = 1, q = { 0, 0, 0 } }
        local a = math.rad(30)
        local rail = w:prismatic{ w.ground, cart, axis = { math.cos(a), math.sin(a) }, at = { 0, 0 },
                                  motor = { speed = 10, max_force = 30 } }
        local sim = w:simulation{ h = 1e-3 }
        sim:run{ T = 1 }
        -- along the rail: (30 - m g sin a) / m
        local acc = (30 - 4 * 9.81 * math.sin(a)) / 4
        close(acc, rail:info().rate, 1e-9, "rate(1)")
        close(acc * 1 * 1 / 2, rail:info().coordinate, 2e-3, "x(1)")  -- O(h) of the trapezoid rule
        close(30, rail:info().motor_force, 1e-9, "motor force")
    end)

    it("does work W_motor that closes the energy balance, step by step and from the history", function()
        -- a pendulum arm lifted by a motor with too little torque to hold it up
        local w = rc.world{ gravity = { 0, -9.81 } }
        local arm = w:body{ mass = 1, inertia = 1 / 12, q = { 0, -0.5, 0 } }
        local pin = w:revolute{ w.ground, arm, at = { 0, 0 }, motor = { speed = 4, max_torque = 3 } }
        local sim = w:simulation{ h = 1e-3 }
        local dir = os.tmpname()
        os.remove(dir)
        local E0 = sim:energy().total
        local worst = 0
        sim:after_step(function() worst = math.max(worst, math.abs(sim:info().balance)) end)
        sim:run{ T = 1, out = dir }                      -- it swings up to 1.47 rad, W_motor = 4.4 J
        local info = sim:info()
        assert(worst < 1e-12, "largest step defect " .. worst)
        assert(info.W_motor_total > 1, "the motor did work")
        close(sim:energy().total - E0, info.W_motor_total + info.W_J_total, 1e-10, "E - E0")
        local f = assert(io.popen("zcat " .. dir .. "/history.csv.gz"))
        local header, last = f:read("l"), nil
        for line in f:lines() do last = line end
        f:close()
        local cols, vals = {}, {}
        for c in header:gmatch("[^,]+") do cols[#cols + 1] = c end
        for v in last:gmatch("[^,]+") do vals[#vals + 1] = tonumber(v) end
        assert.are.equal("W_motor", cols[#cols])
        local col = {}
        for i, c in ipairs(cols) do col[c] = vals[i] end
        close(info.W_motor_total, col.W_motor, 1e-12, "W_motor column")
        local sum = col.W_ext + col.W_N + col.W_T + col.W_J + col.W_proj + col.W_theta + col.W_damp + col.W_motor
        close(col.E - E0, sum, 1e-10, "balance from the file")
        os.execute("rm -rf " .. dir)
        assert(pin:info().motor_work ~= 0)
    end)

    it("is switched at run time from a control callback", function()
        local _, b, pin, sim = wheel(nil, "moreau-jean")
        local done = false
        sim:before_step(function(s)
            if not done and s.t >= 0.5 - 1e-12 then pin:set_motor{ speed = -2, max_torque = 10 }; done = true end
        end)
        sim:run{ T = 0.4 }
        assert.are.equal(0, b:v()[3])                        -- no motor yet
        sim:run{ T = 0.7 }
        close(-2, b:v()[3], 1e-12, "driven")
        pin:set_motor{ enabled = false }
        b:set_state{ v = { 0, 0, 1 } }
        sim:run{ T = 1 }
        close(1, b:v()[3], 1e-12, "free again")
    end)
end)

describe("joint limits", function()
    -- a rod of length 1 pinned at its end, released horizontally: it falls onto
    -- the lower limit -0.5 rad (below the horizontal)
    local function falling_rod(e, scheme)
        local w = rc.world{ gravity = { 0, -9.81 } }
        local rod = w:body{ mass = 1, inertia = 1 / 12, q = { 0.5, 0, 0 } }
        local pin = w:revolute{ w.ground, rod, at = { 0, 0 }, limits = { lower = -0.5, upper = 0.5, e = e } }
        local sim = w:simulation{ h = 1e-3, scheme = scheme }
        local lo, hi, after = 0, -1, -1
        sim:after_step(function(s)
            local x = pin:info().coordinate
            lo, hi = math.min(lo, x), math.max(hi, x)
            if lo < -0.49 then after = math.max(after, x) end   -- highest after the first impact
        end)
        return w, rod, pin, sim, function() return lo, hi, after end
    end

    for _, scheme in ipairs(SCHEMES) do
        it("e = 0: the rod stops on the limit and rests there (" .. scheme .. ")", function()
            local _, _, pin, sim, range = falling_rod(0, scheme)
            sim:run{ T = 2 }
            local lo = range()
            -- impact at |omega| = sqrt(3 g sin 0.5) = 3.75 rad/s: at most h |omega| beyond the bound
            assert(lo > -0.5 - 1e-3 * 3.75, "went to " .. lo)
            local i = pin:info()
            assert.are.equal("lower", i.limit)
            close(-0.5, i.coordinate, 1e-3 * 3.75, "resting angle")
            assert(math.abs(i.rate) < 1e-9, "rate " .. i.rate)
            -- the limit holds the weight's moment m g (L/2) cos(x)
            close(9.81 * 0.5 * math.cos(i.coordinate), i.limit_impulse / 1e-3, 1e-6, "limit torque")
        end)
    end

    it("e = 1: the rod comes back to the horizontal with its energy (Moreau--Jean--Fremond)", function()
        local _, _, _, sim, range = falling_rod(1, "moreau-jean-fremond")
        local E0 = sim:energy().total
        sim:run{ T = 3 }
        local lo, _, after = range()
        assert(lo > -0.5 - 1e-3 * 3.75)
        assert(after > -1e-4, "back up to " .. after)
        assert(math.abs(sim:energy().total - E0) < 1e-7, "energy change " .. (sim:energy().total - E0))
    end)

    it("restitutes e of the velocity at the upper bound of a slider (Moreau--Jean)", function()
        local w = rc.world{ gravity = { 0, 0 } }
        local s = w:body{ mass = 1, inertia = 1, q = { 0, 0, 0 }, v = { 2, 0, 0 } }
        local rail = w:prismatic{ w.ground, s, axis = { 1, 0 }, at = { 0, 0 }, limits = { upper = 0.3, e = 0.5 } }
        local sim = w:simulation{ h = 1e-3 }
        local hi = 0
        sim:after_step(function() hi = math.max(hi, rail:info().coordinate) end)
        sim:run{ T = 0.5 }
        close(-1, s:v()[1], 1e-12, "rebound velocity -e v")
        assert(hi <= 0.3 + 2e-3, "went to " .. hi)
        assert(hi > 0.3 - 2e-3)
    end)
end)

describe("motors and limits: errors", function()
    local function world()
        local w = rc.world{}
        return w, w:body{ mass = 1, inertia = 1 }
    end

    it("name the key and the argument", function()
        local w, b = world()
        assert.are.equal("world:revolute: 'motor.max_torque' is required",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, motor = { speed = 1 } }))
        assert.are.equal("world:revolute: 'motor.max_torque' must be >= 0 (got -1)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, motor = { speed = 1, max_torque = -1 } }))
        assert.are.equal("world:revolute: 'motor.speed' must be a number (got 'fast')",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, motor = { speed = "fast", max_torque = 1 } }))
        assert.are.equal("world:revolute: 'motor': unknown key 'max_force' (allowed: speed, max_torque, enabled)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, motor = { speed = 1, max_force = 1 } }))
        assert.are.equal("world:prismatic: 'motor': unknown key 'speeed' (did you mean 'speed'?)",
            error_of(w.prismatic, w, { w.ground, b, axis = { 1, 0 }, at = { 0, 0 }, motor = { speeed = 1, max_force = 1 } }))
        assert.are.equal("world:revolute: 'motor' must be a table such as { speed = 2, max_torque = 5 } (got 3)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, motor = 3 }))
        assert.are.equal("world:revolute: 'motor.enabled' must be true or false (got 1)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, motor = { speed = 1, max_torque = 1, enabled = 1 } }))
        assert.are.equal("world:revolute: 'limits.lower' (0.5) must be < 'limits.upper' (-0.5)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, limits = { lower = 0.5, upper = -0.5 } }))
        assert.are.equal("world:revolute: 'limits.e' must be in [0, 1] (got 1.5)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, limits = { lower = -1, e = 1.5 } }))
        assert.are.equal("world:revolute: 'limits' needs 'lower' or 'upper' (or both)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, limits = { e = 0 } }))
        assert.are.equal("world:revolute: 'limits.upper' must be a finite number (got inf)",
            error_of(w.revolute, w, { w.ground, b, at = { 0, 0 }, limits = { upper = math.huge } }))
        assert.are.equal(0, #w:joints())                       -- nothing was made
    end)

    it("of joint:set_motor and joint:set_limits", function()
        local w, b = world()
        local pin = w:revolute{ w.ground, b, at = { 0, 0 } }
        assert.are.equal("joint:set_motor: 'argument [1].max_torque' is required",
            error_of(pin.set_motor, pin, { speed = 1 }))
        assert.are.equal("joint:set_limits: 'argument [1]' must be a table such as { lower = -0.5, upper = 0.5, e = 0 } (got nil)",
            error_of(pin.set_limits, pin))
        local weld = w:weld{ w.ground, w:body{ mass = 1, inertia = 1 }, at = { 0, 0 }, name = "glue" }
        assert.are.equal("joint:set_motor: joint 'glue' is a weld joint: motors and limits are for revolute and prismatic joints",
            error_of(weld.set_motor, weld, { speed = 1, max_torque = 1 }))
        pin:set_limits{ lower = -1 }
        assert.are.equal("joint:set_limits: 'argument [1].lower' (2) must be < 'argument [1].upper' (1)",
            error_of(pin.set_limits, pin, { lower = 2, upper = 1 }))
    end)
end)
