-- ricochet/remove.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): removing bodies, shapes, joints and springs between
-- steps (b:remove(), w:remove(x), w:remove_shape(id); src/model/remove.c).
-- A removed object keeps its Lua table, marked _removed = t; any use of it
-- raises "body 'grain 17' was removed at t = 0.25" (it never reaches the
-- kernel, whose slot may hold a newer body).

local I = require "ricochet.private"
local core, World, Body, check_self, world_core = I.core, I.World, I.Body, I.check_self, I.world_core
local Joint, Spring = I.rc.Joint, I.rc.Spring
local getmetatable, rawget, rawset, pairs, fmt = getmetatable, rawget, rawset, pairs, string.format
local check = require "ricochet.check"
local fail, show = check.fail, check.show

local function label(kind, x)
    local name = rawget(x, "name")
    if name then return fmt("%s '%s'", kind, name) end
    return fmt("%s %d", kind, rawget(x, "id"))
end

-- The error for a removed object x of the given kind ("body", "joint", "spring").
function I.removed_error(fname, kind, x)
    fail(fname, "%s was removed at t = %.17g", label(kind, x), rawget(x, "_removed"))
end

local function remove_body(fname, w, b)
    local c = world_core(fname, w, true)
    if rawget(b, "_removed") then I.removed_error(fname, "body", b) end
    if rawget(b, "kind") == "linear" then fail(fname, "%s is a linear body: only rigid bodies can be removed", label("body", b)) end
    local id = rawget(b, "id")
    local ok, msg = core.remove(c, "body", id)
    if not ok then fail(fname, "%s", msg) end
    rawset(b, "_removed", core.time(c))
    -- the slot may hold a newer body: forget this object in the caches
    rawget(w, "_body_pinned")[id] = nil
    rawget(w, "_body_cache")[id] = nil
    local name = rawget(b, "name")
    if name and w._by_name[name] == b then w._by_name[name] = nil end
    rawset(w, "_nbodies", rawget(w, "_nbodies") - 1)
    -- its joints and springs went with it
    for _, j in pairs(rawget(w, "_joints")) do
        if not rawget(j, "_removed") and core.is_removed(c, getmetatable(j) == Spring and "spring" or "joint", j.id) then
            rawset(j, "_removed", core.time(c))
        end
    end
end

local function remove_link(fname, w, x, kind)
    local c = world_core(fname, w, true)
    if not rawget(x, "_removed") and core.is_removed(c, kind, rawget(x, "id")) then
        rawset(x, "_removed", core.time(c))   -- went with its body
    end
    if rawget(x, "_removed") then I.removed_error(fname, kind, x) end
    local ok, msg = core.remove(c, kind, rawget(x, "id"))
    if not ok then fail(fname, "%s", msg) end
    rawset(x, "_removed", core.time(c))
end

-- b:remove(): the body, its shapes, the joints and springs attached to it and
-- its contacts leave the world (between steps: in a callback of sim:run, or
-- between calls of sim:step).
function Body:remove()
    check_self("body:remove", self, Body, "a body")
    remove_body("body:remove", rawget(self, "world"), self)
end

-- w:remove(x): a body, a joint or a spring of this world.
function World:remove(x)
    local fname = "world:remove"
    check_self(fname, self, World, "a world")
    local mt = getmetatable(x)
    if (mt == Body or mt == Joint or mt == Spring) and rawget(x, "world") ~= self then
        fail(fname, "argument [1] belongs to another world")
    end
    if mt == Body then return remove_body(fname, self, x) end
    if mt == Joint then return remove_link(fname, self, x, "joint") end
    if mt == Spring then return remove_link(fname, self, x, "spring") end
    if mt == I.rc.Gap then
        fail(fname, "gap contacts cannot be removed (a gap contact lives as long as its linear body, and linear bodies "
             .. "cannot be removed); to switch it off, make its law inert with law:set (docs/embedding.md)")
    end
    fail(fname, "argument [1] must be a body, a joint or a spring of this world (got %s); shapes: w:remove_shape(id); "
         .. "contact rules (w:contact) cannot be removed", show(x))
end

-- w:remove_shape(id): a shape (the id body:add_shape and w:halfplane, ... return).
function World:remove_shape(id)
    local fname = "world:remove_shape"
    check_self(fname, self, World, "a world")
    if math.type(id) ~= "integer" then fail(fname, "'id' must be a shape id (an integer) (got %s)", show(id)) end
    local c = world_core(fname, self, true)
    local ok, msg = core.remove(c, "shape", id)
    if not ok then fail(fname, "%s", msg) end
end

-- b:is_removed(), and the removed energy of the world (E_removed, run.json).
function Body:is_removed() return rawget(self, "_removed") ~= nil end
function World:removed_energy()
    check_self("world:removed_energy", self, World, "a world")
    return core.removed_energy(world_core("world:removed_energy", self))
end

-- After a checkpoint is restored (sim:restore, --restart): the Lua objects
-- follow the slots the checkpoint changed. I.body_lives(w) before the restore,
-- I.sync_lives(w, before) after it: a body removed in the checkpoint's run is
-- marked removed, a body added at run time in a removed body's slot gets its
-- object (w:find finds it by name), joints and springs are marked removed.
function I.body_lives(w)
    local c, g = rawget(w, "_c"), {}
    for id = 0, core.body_count(c) - 1 do
        local gen, removed = core.body_life(c, id)
        g[id] = gen * 2 + (removed and 1 or 0)
    end
    return g
end

function I.sync_lives(w, before)
    local c = rawget(w, "_c")
    local pinned, cache = rawget(w, "_body_pinned"), rawget(w, "_body_cache")
    for id = 0, core.body_count(c) - 1 do
        local gen, removed, t, name, t_first = core.body_life(c, id)
        if gen * 2 + (removed and 1 or 0) ~= before[id] then
            local old = pinned[id] or cache[id]
            if old then   -- the slot's first body: removed at t_first; a later one: at t (the last removal)
                rawset(old, "_removed", (before[id] == 0 and t_first) or t or core.time(c))
                local oname = rawget(old, "name")
                if oname and w._by_name[oname] == old then w._by_name[oname] = nil end
            end
            pinned[id], cache[id] = nil, nil
            if before[id] % 2 == 0 then rawset(w, "_nbodies", rawget(w, "_nbodies") - 1) end
            if not removed then
                local b = I.new_body(w, id, { name = name, kind = "rigid2d" }, name ~= nil)
                if name then w._by_name[name] = b end
            end
        end
    end
    for _, j in pairs(rawget(w, "_joints")) do
        local kind = getmetatable(j) == Spring and "spring" or "joint"
        if not rawget(j, "_removed") and core.is_removed(c, kind, rawget(j, "id")) then
            rawset(j, "_removed", core.link_removal(c, kind, rawget(j, "id")) or core.time(c))
        end
    end
end

-- w:broken_joints(): the joints broken after the last step (break_force,
-- break_torque; docs/mechanisms.md "Breaking"), as { joint = <joint>, t, force,
-- torque }; w:broken_joints("log"): every break so far (the first 100) and their number.
function World:broken_joints(which)
    local fname = "world:broken_joints"
    check_self(fname, self, World, "a world")
    if which ~= nil and which ~= "log" then fail(fname, "argument [1] must be nil or \"log\" (got %s)", show(which)) end
    local c = world_core(fname, self)
    local list, n = core.broken_joints(c, which)
    local js = rawget(self, "_joints")
    for _, b in ipairs(list) do
        local j = js[b.joint + 1]
        if j and rawget(j, "id") == b.joint then
            if not rawget(j, "_removed") then rawset(j, "_removed", b.t) end
            b.joint = j
        end
    end
    return list, n
end

-- j:is_removed() for joints and springs (removed, with a body, or broken).
local function link_is_removed(kind)
    return function(self)
        local c = world_core(kind .. ":is_removed", rawget(self, "world"))
        return rawget(self, "_removed") ~= nil or core.is_removed(c, kind, rawget(self, "id"))
    end
end
Joint.is_removed, Spring.is_removed = link_is_removed("joint"), link_is_removed("spring")
