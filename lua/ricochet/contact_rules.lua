-- ricochet/contact_rules.lua -- part of require "ricochet" (lua/ricochet/init.lua,
-- which requires it in order): World:contact (contact rules between two bodies
-- or two groups) and the check that a body object still holds its own id
-- (I.valid_id, for mechanisms.lua too).

local I = require "ricochet.private"
local core, World, Body, Ground = I.core, I.World, I.Body, I.Ground
local check_self, world_core, law_id, check_law = I.check_self, I.world_core, I.law_id, I.check_law
local check = require "ricochet.check"
local fail, show, showkey, check_keys, check_table = check.fail, check.show, check.showkey, check.check_keys, check.check_table
local integer, opt_name, REQUIRED = check.integer, check.opt_name, check.REQUIRED
local type, pairs, rawget, getmetatable, mtype = type, pairs, rawget, getmetatable, math.type

-- Whether body (or ground) object x of world w still holds its own id (a
-- script may replace an object's fields): the ground's, or a slot of w.
local function valid_id(w, x)
    local id = rawget(x, "id")
    if getmetatable(x) == Ground then return id == core.GROUND end
    return math.type(id) == "integer" and id >= 0 and id < core.body_count(rawget(w, "_c"))
end
I.valid_id = valid_id

local function side_id(fname, self, key, x)
    local mt = getmetatable(x)
    if mt == Body and rawget(x, "_removed") then I.removed_error(fname, "body", x) end
    if (mt == Body or mt == Ground) and rawget(x, "world") == self then
        if not valid_id(self, x) then   -- a script may have replaced the object's fields
            fail(fname, "%s: this body's 'id' field was replaced (got %s)", key, show(rawget(x, "id")))
        end
        return rawget(x, "id")
    end
    if mt == Body or mt == Ground then fail(fname, "%s belongs to another world", key) end
    fail(fname, "%s must be a body of this world or w.ground (got %s)", key, show(x))
end

function World:contact(t)
    local fname = "world:contact"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    check_table(fname, t, "w:contact{ body, w.ground, law = rc.newton{ e = 0.5 } }")
    check_keys(fname, t, { "groups", "law", "name" }, 2)
    local law = t.law
    local lid
    if law == false then
        lid = false
    elseif law ~= nil then
        check_law(fname, "law", law)
        lid = law_id(self, c, fname, law)
    end
    local name = opt_name(fname, "name", t.name)
    local ok, msg
    if t.groups ~= nil then
        if t[1] ~= nil or t[2] ~= nil then fail(fname, "give either two bodies or 'groups', not both") end
        if name then fail(fname, "'name' is only allowed for a pair of bodies") end
        local g = t.groups
        if type(g) ~= "table" then fail(fname, "'groups' must be a table of 2 integers {g1, g2} (got %s)", show(g)) end
        for k in pairs(g) do
            if not (mtype(k) == "integer" and k >= 1 and k <= 2) then
                fail(fname, "'groups' must be a table of 2 integers {g1, g2} (unexpected entry %s)", showkey(k))
            end
        end
        local g1 = integer(fname, "groups[1]", g[1], REQUIRED)
        local g2 = integer(fname, "groups[2]", g[2], REQUIRED)
        ok, msg = core.contact_rule(c, "groups", g1, g2, lid, nil)
    else
        if t[1] == nil or t[2] == nil then
            fail(fname, "give two bodies (w:contact{ A, B, ... }) or 'groups' (w:contact{ groups = {g1, g2}, ... })")
        end
        local a = side_id(fname, self, "argument [1]", t[1])
        local b = side_id(fname, self, "argument [2]", t[2])
        if a == b then fail(fname, "a body does not contact itself") end
        ok, msg = core.contact_rule(c, "bodies", a, b, lid, name)
    end
    if not ok then fail(fname, "%s", msg) end
    return self
end
