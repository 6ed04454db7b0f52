-- ricochet/sleep.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): sleeping (docs/sleeping.md; src/model/sleep.c,
-- src/integrate/sleep.c): the option sleep = false | true | { linear =,
-- angular =, time = } of w:simulation{}, b:wake(), b:sleeping(),
-- w:sleep_info().

local I = require "ricochet.private"
local core, World, Body, check_self, world_core = I.core, I.World, I.Body, I.check_self, I.world_core
local type, rawget = type, rawget
local check = require "ricochet.check"
local fail, show, check_keys, number = check.fail, check.show, check.check_keys, check.number

local DEFAULT = { linear = 0.01, angular = 0.05, time = 0.5 }

-- The option's value checked and applied to the world's core c; returns what
-- sim.sleep holds: false, or the thresholds in a table.
function I.set_sleep(fname, c, v)
    local def
    if v == nil or v == false then
        def = false
    elseif v == true then
        def = { linear = DEFAULT.linear, angular = DEFAULT.angular, time = DEFAULT.time }
    elseif type(v) == "table" then
        local sname = fname .. ": sleep"
        check_keys(sname, v, { "linear", "angular", "time" })
        def = {
            linear = number(sname, "linear", v.linear, DEFAULT.linear),
            angular = number(sname, "angular", v.angular, DEFAULT.angular),
            time = number(sname, "time", v.time, DEFAULT.time),
        }
        if not (def.linear > 0 and def.linear < math.huge) then fail(sname, "'linear' must be a finite number > 0 (got %s)", show(v.linear)) end
        if not (def.angular > 0 and def.angular < math.huge) then fail(sname, "'angular' must be a finite number > 0 (got %s)", show(v.angular)) end
        if not (def.time >= 0 and def.time < math.huge) then fail(sname, "'time' must be a finite number >= 0 (got %s)", show(v.time)) end
    else
        fail(fname, "'sleep' must be false, true or a table such as { linear = 0.01, angular = 0.05, time = 0.5 } (got %s)", show(v))
    end
    local d = def or DEFAULT
    local ok, msg = core.set_sleep(c, def ~= false, d.linear, d.angular, d.time)
    if not ok then fail(fname, "%s", msg) end
    return def
end

-- b:wake(): the body's island wakes (nothing if it is awake).
function Body:wake()
    local fname = "body:wake"
    check_self(fname, self, Body, "a body")
    if rawget(self, "_removed") then I.removed_error(fname, "body", self) end
    local ok, msg = core.body_wake(world_core(fname, rawget(self, "world"), true), rawget(self, "id"))
    if not ok then fail(fname, "%s", msg) end
    return self
end

-- b:sleeping(): whether the body sleeps now.
function Body:sleeping()
    local fname = "body:sleeping"
    check_self(fname, self, Body, "a body")
    if rawget(self, "_removed") then I.removed_error(fname, "body", self) end
    return core.body_sleeping(world_core(fname, rawget(self, "world")), rawget(self, "id"))
end

-- w:sleep_info(): { enabled, sleeping, awake, fell_asleep, woke, pairs,
-- kept_contacts, steps, awake_mean } (rc_world_sleep_info).
function World:sleep_info()
    local fname = "world:sleep_info"
    check_self(fname, self, World, "a world")
    local info, msg = core.sleep_info(world_core(fname, self))
    if not info then fail(fname, "%s", msg) end
    return info
end
