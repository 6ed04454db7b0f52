-- ricochet/query.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- spatial queries between steps (World:query_box, query_point, ray_cast,
-- disk_cast) and contact events (Sim:events); docs/queries-and-events.md.

local I = require "ricochet.private"
local core, World, world_core, check_self, body_object = I.core, I.World, I.world_core, I.check_self, I.body_object
local check = require "ricochet.check"
local fail, show, check_keys, check_table, vec, number, integer, positive =
    check.fail, check.show, check.check_keys, check.check_table, check.vec, check.number, check.integer, check.positive

-- The body object of a kernel body id (the ground for obstacles).
local function body_of(w, id)
    if id == core.GROUND then return w.ground end
    return body_object(w, id)
end

local function group_of(fname, t)
    if t.group == nil then return nil end
    return integer(fname, "group", t.group)
end

local function shape_list(w, shapes, bodies)
    local r = {}
    for i = 1, #shapes do r[i] = { shape = shapes[i], body = body_of(w, bodies[i]) } end
    return r
end

-- w:query_box{ lo = {x, y}, hi = {x, y}, group = nil } -> { {shape =, body =}, ... }
function World:query_box(t)
    local fname = "world:query_box"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self)
    check_table(fname, t, "w:query_box{ lo = {0, 0}, hi = {1, 1} }")
    check_keys(fname, t, { "lo", "hi", "group" })
    local lo, hi = vec(fname, "lo", t.lo, 2, "{x, y}"), vec(fname, "hi", t.hi, 2, "{x, y}")
    if not (lo[1] <= hi[1] and lo[2] <= hi[2]) then
        fail(fname, "'lo' must be <= 'hi' in x and y (got lo = {%s, %s}, hi = {%s, %s})",
             show(lo[1]), show(lo[2]), show(hi[1]), show(hi[2]))
    end
    local shapes, bodies = core.query_box(c, lo, hi, group_of(fname, t))
    if not shapes then fail(fname, "%s", bodies) end
    return shape_list(self, shapes, bodies)
end

-- w:query_point{ point = {x, y}, group = nil } -> { {shape =, body =}, ... }
function World:query_point(t)
    local fname = "world:query_point"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self)
    check_table(fname, t, "w:query_point{ point = {0, 1} }")
    check_keys(fname, t, { "point", "group" })
    local p = vec(fname, "point", t.point, 2, "{x, y}")
    local shapes, bodies = core.query_point(c, p, group_of(fname, t))
    if not shapes then fail(fname, "%s", bodies) end
    return shape_list(self, shapes, bodies)
end

-- The segment of a cast: from -> to, or from along direction for distance.
local function cast_segment(fname, t)
    local from = vec(fname, "from", t.from, 2, "{x, y}")
    if t.to ~= nil then
        if t.direction ~= nil or t.distance ~= nil then
            fail(fname, "give 'to', or 'direction' and 'distance', not both")
        end
        return from, vec(fname, "to", t.to, 2, "{x, y}")
    end
    if t.direction == nil then fail(fname, "give 'to', or 'direction' and 'distance'") end
    local d = vec(fname, "direction", t.direction, 2, "{dx, dy}")
    local L = number(fname, "distance", t.distance)
    if not (L >= 0) then fail(fname, "'distance' must be >= 0 (got %s)", show(L)) end
    local n = math.sqrt(d[1] * d[1] + d[2] * d[2])
    if not (n > 0) then fail(fname, "'direction' must be nonzero") end
    return from, { from[1] + L * d[1] / n, from[2] + L * d[2] / n }
end

local function cast_result(self, fname, hit, msg, from, to)
    if hit == nil then fail(fname, "%s", msg) end
    if not hit then return nil end
    hit.body = body_of(self, hit.body)
    local dx, dy = to[1] - from[1], to[2] - from[2]
    hit.distance = hit.fraction * math.sqrt(dx * dx + dy * dy)
    return hit
end

-- w:ray_cast{ from = {x, y}, to = {x, y} | direction = {dx, dy}, distance = L, group = nil }
--   -> nil | { shape, body, point, normal, fraction, distance }
function World:ray_cast(t)
    local fname = "world:ray_cast"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self)
    check_table(fname, t, "w:ray_cast{ from = {0, 5}, to = {0, -5} }")
    check_keys(fname, t, { "from", "to", "direction", "distance", "group" })
    local from, to = cast_segment(fname, t)
    local hit, msg = core.ray_cast(c, from, to, group_of(fname, t))
    return cast_result(self, fname, hit, msg, from, to)
end

-- w:disk_cast{ from =, to = | direction =, distance =, radius = r, group = nil } -> nil | hit
function World:disk_cast(t)
    local fname = "world:disk_cast"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self)
    check_table(fname, t, "w:disk_cast{ from = {0, 5}, to = {0, -5}, radius = 0.1 }")
    check_keys(fname, t, { "from", "to", "direction", "distance", "radius", "group" })
    local from, to = cast_segment(fname, t)
    local r = positive(fname, "radius", number(fname, "radius", t.radius))
    local hit, msg = core.disk_cast(c, from, to, r, group_of(fname, t))
    return cast_result(self, fname, hit, msg, from, to)
end

------------------------------------------------------------------ contact events

local Sim, sim_core = I.Sim, I.sim_core

-- sim:track_events{ impact = nil } -> sim: from now on, sim:events() lists
-- the contacts that began and stopped touching in the last step and its
-- impacts (p_N > impact; none when impact is nil); sim:track_events(false)
-- stops.
function Sim:track_events(t)
    local fname = "sim:track_events"
    local c = sim_core(fname, self, true)
    if t == false then
        local ok, msg = core.track_events(c, false)
        if not ok then fail(fname, "%s", msg) end
        return self
    end
    if t == nil then t = {} end
    check_table(fname, t, "sim:track_events{ impact = 0.5 }")
    check_keys(fname, t, { "impact" })
    local thr = math.huge
    if t.impact ~= nil then
        thr = number(fname, "impact", t.impact)
        if not (thr >= 0) then fail(fname, "'impact' must be >= 0 (got %s)", show(thr)) end
    end
    local ok, msg = core.track_events(c, true, thr)
    if not ok then fail(fname, "%s", msg) end
    return self
end

-- sim:events() -> { began = {...}, ended = {...}, impacts = {...} }: the last
-- step's events, each a contact as sim:contacts() gives it, sorted by key.
function Sim:events()
    local fname = "sim:events"
    local c = sim_core(fname, self)
    local ev, msg = core.events(c)
    if not ev then
        if msg:find("not tracked", 1, true) then
            fail(fname, "events are not tracked: call sim:track_events{ impact = ... } before stepping")
        end
        fail(fname, "%s", msg)
    end
    return ev
end

------------------------------------------------------------------ user data

local Body, Joint = I.Body, I.rc.Joint

-- Where x's data lives in world w: ("body" | "shape" | "joint"), id.
local function user_slot(fname, w, x)
    if getmetatable(x) == Body or getmetatable(x) == Joint then
        if rawget(x, "world") ~= w then fail(fname, "%s belongs to another world", tostring(x)) end
        return getmetatable(x) == Body and "body" or "joint", rawget(x, "id")
    end
    if math.type(x) == "integer" then
        local n = core.shape_count(world_core(fname, w))
        if x < 0 or x >= n then fail(fname, "no shape with id %s (there are %d)", show(x), n) end
        return "shape", x
    end
    fail(fname, "expected a body, a joint or a shape id (got %s)", show(x))
end

-- w:set_user_data(x, value) -> w: any Lua value on a body, a joint or a shape
-- (by id), kept in the world (released with it); nil removes it.
function World:set_user_data(x, value)
    local fname = "world:set_user_data"
    check_self(fname, self, World, "a world")
    world_core(fname, self)
    local kind, id = user_slot(fname, self, x)
    local u = rawget(self, "_user")
    if not u then u = { body = {}, shape = {}, joint = {} }; rawset(self, "_user", u) end
    u[kind][id] = value
    return self
end

-- w:user_data(x) -> the value set with w:set_user_data (nil: none).
function World:user_data(x)
    local fname = "world:user_data"
    check_self(fname, self, World, "a world")
    world_core(fname, self)
    local kind, id = user_slot(fname, self, x)
    local u = rawget(self, "_user")
    return u and u[kind][id]
end

-- b:set_user_data(value), b:user_data(); the same on joints.
for _, mt in ipairs{ Body, Joint } do
    local what = mt == Body and "body" or "joint"
    mt.set_user_data = function(self, value)
        local fname = what .. ":set_user_data"
        check_self(fname, self, mt, "a " .. what)
        local w = rawget(self, "world")
        world_core(fname, w)
        local u = rawget(w, "_user")
        if not u then u = { body = {}, shape = {}, joint = {} }; rawset(w, "_user", u) end
        u[what][rawget(self, "id")] = value
        return self
    end
    mt.user_data = function(self)
        local fname = what .. ":user_data"
        check_self(fname, self, mt, "a " .. what)
        local w = rawget(self, "world")
        world_core(fname, w)
        local u = rawget(w, "_user")
        return u and u[what][rawget(self, "id")]
    end
end
