-- ricochet/mechanisms.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): joints, springs, linear bodies and gap contacts (World methods).
-- The module's shared locals come from ricochet.private, the argument checks
-- from ricochet.check.

local I = require "ricochet.private"
local core, rc, check_law, World, Body, new_body = I.core, I.rc, I.check_law, I.World, I.Body, I.new_body
local Ground, check_self, world_core, kernel_create, law_id = I.Ground, I.check_self, I.world_core, I.kernel_create, I.law_id
local type, tostring, pairs, ipairs, setmetatable, getmetatable = type, tostring, pairs, ipairs, setmetatable, getmetatable
local rawget, mtype, fmt = rawget, math.type, string.format
local check = require "ricochet.check"
local fail, isfinite, show, showkey, check_keys, check_table = check.fail, check.isfinite, check.show, check.showkey, check.check_keys, check.check_table
local REQUIRED, number, integer, positive, nonneg, opt_name = check.REQUIRED, check.number, check.integer, check.positive, check.nonneg, check.opt_name
local option, vec, check_fn = check.option, check.vec, check.check_fn
local c_check = check.c_check   -- the kernel's range checks (core.check_def)

-- Reference: docs/mechanisms.md.

local Joint = { __name = "ricochet.joint" }
Joint.__index = Joint
rc.Joint = Joint
function Joint.__tostring(j)
    return fmt("ricochet.joint %d (%s)%s", j.id, j.type, j.name and (" '" .. j.name .. "'") or "")
end

local Spring = { __name = "ricochet.spring" }
Spring.__index = Spring
rc.Spring = Spring
function Spring.__tostring(s)
    return fmt("ricochet.%s %d%s", s.type == "torsional" and "torsion_spring" or "spring", s.id,
               s.name and (" '" .. s.name .. "'") or "")
end

local Gap = { __name = "ricochet.gap" }
Gap.__index = Gap
rc.Gap = Gap
function Gap.__tostring(g)
    return fmt("ricochet.gap %d%s", g.id, g.name and (" '" .. g.name .. "'") or "")
end

local function describe_body(b)
    if getmetatable(b) == Ground then return "the ground" end
    return fmt("%sbody %s%s", b.kind == "linear" and "linear " or "", tostring(rawget(b, "id")),
               b.name and (" '" .. tostring(b.name) .. "'") or "")
end

-- Side `which` ("A" or "B", argument [1] or [2]) of a joint or a spring: a
-- rigid body of this world, or (side A only) the ground.
local function rigid_side(fname, self, which, x, ground_ok, usage, key)
    key = key or (which == "A" and "argument [1] (body A)" or "argument [2] (body B)")
    if x == nil then fail(fname, "%s is required%s", key, usage and (": " .. usage) or "") end
    local mt = getmetatable(x)
    if mt ~= Body and mt ~= Ground then
        fail(fname, "%s must be a body of this world%s (got %s)", key, ground_ok and " or w.ground" or "", show(x))
    end
    if rawget(x, "world") ~= self then fail(fname, "%s belongs to another world", key) end
    if mt == Body and rawget(x, "_removed") then I.removed_error(fname, "body", x) end
    if not I.valid_id(self, x) then   -- a script may have replaced the object's fields
        fail(fname, "%s: this body's 'id' field was replaced (got %s)", key, show(rawget(x, "id")))
    end
    if mt == Ground and not ground_ok then
        if which == "B" and usage then
            fail(fname, "%s must be a body, not the ground (give the ground as A: %s)", key, usage)
        end
        fail(fname, "%s must be a body, not the ground", key)
    end
    if mt == Body and x.kind ~= "rigid2d" then
        fail(fname, "%s must be a rigid body (got the %s; a linear body touches the world through w:gap)",
             key, describe_body(x))
    end
    return x
end

local function two_sides(fname, self, t, usage)
    local a = rigid_side(fname, self, "A", t[1], true, usage)
    local b = rigid_side(fname, self, "B", t[2], false, usage)
    if a == b then fail(fname, "A and B are the same body (%s): give two different bodies", describe_body(a)) end
    return a, b
end

-- Current q of a side ({0, 0, 0} for the ground); the world checked again
-- (an argument's metamethod may have closed it since the call began).
local function side_q(fname, cw, side)
    if not core.is_open(cw) then fail(fname, "the world has been closed") end
    if side.id == core.GROUND then return { 0, 0, 0 } end
    local q = core.body_state(cw, side.id)
    return q
end

-- A world point in the frame of a side with state q.
local function to_local(q, p)
    local dx, dy = p[1] - q[1], p[2] - q[2]
    local cs, sn = math.cos(q[3]), math.sin(q[3])
    return { cs * dx + sn * dy, -sn * dx + cs * dy }
end

-- point_a, point_b from 'at' (a world point, both local points computed from
-- the current state) or from 'point_a'/'point_b' (body frames).
local function joint_points(fname, cw, t, a, b, required)
    if t.at ~= nil then
        if t.point_a ~= nil or t.point_b ~= nil then
            fail(fname, "give either 'at' (a world point) or 'point_a'/'point_b' (points in A's and B's frames), not both")
        end
        local at = vec(fname, "at", t.at, 2, "{x, y}")
        return to_local(side_q(fname, cw, a), at), to_local(side_q(fname, cw, b), at)
    end
    if required and (t.point_a == nil or t.point_b == nil) then
        fail(fname, "give 'at' (a world point) or both 'point_a' and 'point_b' (points in A's and B's frames)")
    end
    local D = core.defaults.joint   -- the kernel's (rc_default_joint_def)
    return vec(fname, "point_a", t.point_a, 2, "{x, y}", D.point_a), vec(fname, "point_b", t.point_b, 2, "{x, y}", D.point_b)
end

-- (a zero axis is left to the kernel's check, rc_joint_def_check: "'axis' must be nonzero")
local function unit_axis(fname, v)
    local ax = vec(fname, "axis", v, 2, "{ax, ay}")
    local len = math.sqrt(ax[1] * ax[1] + ax[2] * ax[2])
    if not (len > 0) then return ax end
    return { ax[1] / len, ax[2] / len }
end

local function opt_number(fname, key, v)
    if v == nil then return nil end
    return number(fname, key, v)
end

-- break_force, break_torque (docs/mechanisms.md, "Breaking"): keys of every
-- joint but w:constraint, checked by world_begin, handed to make_joint.
local BREAKABLE = { ["world:revolute"] = true, ["world:weld"] = true, ["world:prismatic"] = true,
                    ["world:line"] = true, ["world:distance"] = true, ["world:prescribe"] = true }
local pending_break

local function make_joint(fname, self, jtype, a, b, rows, def)
    if pending_break then def.break_force, def.break_torque, pending_break = pending_break[1], pending_break[2], nil end
    local name = opt_name(fname, "name", def.name)
    if name and self._joint_names[name] then fail(fname, "a joint named '%s' already exists", name) end
    def.type, def.a, def.b, def.name = jtype, a.id, b.id, name
    c_check("joint", fname, def)   -- axis, length, rows, break_force, ...: the kernel's rc_joint_def_check
    local id = kernel_create(fname, self, core.joint_create, def)
    local j = setmetatable({ id = id, name = name, type = jtype, a = a, b = b, rows = rows, world = self }, Joint)
    local js = self._joints
    js[#js + 1] = j
    if name then self._joint_names[name] = j end
    return j
end

local function world_begin(fname, self, t, example, keys, npos)
    check_self(fname, self, World, "a world")
    local cw = world_core(fname, self, true)
    check_table(fname, t, example)
    pending_break = nil
    if BREAKABLE[fname] then
        keys = table.move(keys, 1, #keys, 1, {})
        keys[#keys + 1], keys[#keys + 2] = "break_force", "break_torque"
        check_keys(fname, t, keys, npos)
        local bf = t.break_force ~= nil and number(fname, "break_force", t.break_force) or nil   -- (ranges: make_joint)
        local bt = t.break_torque ~= nil and number(fname, "break_torque", t.break_torque) or nil
        if bf or bt then pending_break = { bf, bt } end
        return cw
    end
    check_keys(fname, t, keys, npos)
    return cw
end

-- Motors and limits (revolute, prismatic; docs/mechanisms.md "Motors and limits").
-- motor = { speed, max_torque | max_force, enabled = true },
-- limits = { lower, upper, e = 0, enabled = true }; `cur` holds the values set
-- before (j:set_motor, j:set_limits: missing keys keep them).
local function motor_args(fname, key, m, maxkey, cur)
    if type(m) ~= "table" then
        fail(fname, "'%s' must be a table such as { speed = 2, %s = 5 } (got %s)", key, maxkey, show(m))
    end
    check_keys(fname .. ": '" .. key .. "'", m, { "speed", maxkey, "enabled" })
    local r = {}
    r.speed = number(fname, key .. ".speed", m.speed, cur and cur.speed or REQUIRED)
    r.max = number(fname, key .. "." .. maxkey, m[maxkey], cur and cur.max or REQUIRED)
    r.enabled = check.boolean(fname, key .. ".enabled", m.enabled, true)
    c_check("motor", fname, { speed = r.speed, max = r.max, key = key, maxkey = maxkey })   -- rc_joint_motor_check
    return r
end

local function limit_args(fname, key, l, cur)
    if type(l) ~= "table" then
        fail(fname, "'%s' must be a table such as { lower = -0.5, upper = 0.5, e = 0 } (got %s)", key, show(l))
    end
    check_keys(fname .. ": '" .. key .. "'", l, { "lower", "upper", "e", "enabled" })
    local r, D = {}, cur or core.defaults.joint.limits   -- the values set before, else the binding's defaults
    r.lower = l.lower ~= nil and number(fname, key .. ".lower", l.lower) or D.lower
    r.upper = l.upper ~= nil and number(fname, key .. ".upper", l.upper) or D.upper
    r.e = number(fname, key .. ".e", l.e, D.e)
    r.enabled = check.boolean(fname, key .. ".enabled", l.enabled, true)
    c_check("limits", fname, { lower = r.lower, upper = r.upper, e = r.e, key = key })   -- rc_joint_limits_check
    return r
end

local function apply_motor(fname, j, cw, m)
    local ok, msg = core.joint_set_motor(cw, j.id, m.enabled, m.speed, m.max)
    if not ok then fail(fname, "%s", msg) end
    j._motor = m
end

local function apply_limits(fname, j, cw, l)
    local ok, msg = core.joint_set_limits(cw, j.id, l.enabled, l.lower, l.upper, l.e)
    if not ok then fail(fname, "%s", msg) end
    j._limits = l
end

-- The motor and limits keys of a joint definition, checked before the joint is made.
local function motor_keys(fname, t, maxkey)
    local m = t.motor ~= nil and motor_args(fname, "motor", t.motor, maxkey) or nil
    local l = t.limits ~= nil and limit_args(fname, "limits", t.limits) or nil
    return m, l
end

-- j's motor and limits (or nil) set on its world's handle as it is now
local function with_motor(fname, j, m, l)
    if not m and not l then return j end
    local cw = world_core(fname, j.world, true)
    if m then apply_motor(fname, j, cw, m) end
    if l then apply_limits(fname, j, cw, l) end
    return j
end

local MAXKEY = { revolute = "max_torque", prismatic = "max_force" }

local function motor_joint(fname, j)
    check_self(fname, j, Joint, "a joint")
    local maxkey = MAXKEY[j.type]
    if not maxkey then
        fail(fname, "%s is a %s joint: motors and limits are for revolute and prismatic joints",
             j.name and ("joint '" .. j.name .. "'") or ("joint " .. j.id), j.type)
    end
    return world_core(fname, j.world, true), maxkey
end

function Joint:set_motor(m)
    local fname = "joint:set_motor"
    local cw, maxkey = motor_joint(fname, self)
    apply_motor(fname, self, cw, motor_args(fname, "argument [1]", m, maxkey, self._motor))
end

function Joint:set_limits(l)
    local fname = "joint:set_limits"
    local cw = motor_joint(fname, self)
    apply_limits(fname, self, cw, limit_args(fname, "argument [1]", l, self._limits))
end

function World:revolute(t)
    local fname = "world:revolute"
    local usage = "w:revolute{ A, B, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:revolute{ w.ground, body, at = {0, 0} }",
                           { "at", "point_a", "point_b", "name", "motor", "limits" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    local m, l = motor_keys(fname, t, "max_torque")
    return with_motor(fname, make_joint(fname, self, "revolute", a, b, 2, { point_a = pa, point_b = pb, name = t.name }),
                      m, l)
end

function World:weld(t)
    local fname = "world:weld"
    local usage = "w:weld{ A, B, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:weld{ A, B, at = {0, 0} }",
                           { "at", "point_a", "point_b", "angle", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    return make_joint(fname, self, "weld", a, b, 3, {
        point_a = pa, point_b = pb, angle = opt_number(fname, "angle", t.angle), name = t.name })
end

function World:prismatic(t)
    local fname = "world:prismatic"
    local usage = "w:prismatic{ A, B, axis = {1, 0}, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:prismatic{ w.ground, slider, axis = {1, 0}, at = {0, 0} }",
                           { "axis", "at", "point_a", "point_b", "angle", "name", "motor", "limits" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local axis = unit_axis(fname, t.axis)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    local m, l = motor_keys(fname, t, "max_force")
    return with_motor(fname, make_joint(fname, self, "prismatic", a, b, 2, {
        axis = axis, point_a = pa, point_b = pb, angle = opt_number(fname, "angle", t.angle), name = t.name }), m, l)
end

function World:line(t)
    local fname = "world:line"
    local usage = "w:line{ A, B, axis = {1, 0}, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:line{ w.ground, body, axis = {1, 0}, at = {0, 0} }",
                           { "axis", "at", "point_a", "point_b", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local axis = unit_axis(fname, t.axis)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    return make_joint(fname, self, "line", a, b, 1, { axis = axis, point_a = pa, point_b = pb, name = t.name })
end

function World:distance(t)
    local fname = "world:distance"
    local usage = "w:distance{ A, B, point_a = {x, y}, point_b = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:distance{ w.ground, bob, point_a = {0, 0}, point_b = {0, 0} }",
                           { "point_a", "point_b", "length", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local pa, pb = joint_points(fname, cw, t, a, b, false)
    local len = opt_number(fname, "length", t.length)
    -- (0 is refused by the kernel's check; a negative length means "the initial length"
    -- to the kernel (rc_joint_def.length < 0), so only the front end can refuse a given one)
    if len ~= nil and len < 0 then positive(fname, "length", len) end
    return make_joint(fname, self, "distance", a, b, 1, { point_a = pa, point_b = pb, length = len, name = t.name })
end

-- Call a user function once at creation with pcall, so that mistakes are
-- reported at the script line rather than in the middle of a run.
local function probe_call(fname, key, fn, ...)
    local r = table.pack(pcall(fn, ...))
    if not r[1] then fail(fname, "'%s' fails when called with the current state: %s", key, tostring(r[2])) end
    return r
end

local function probe_number(fname, key, x, k, tnow)
    if type(x) ~= "number" or not isfinite(x) then
        fail(fname, "'%s' must return finite numbers (got %s as value %d at t = %s)", key, show(x), k, show(tnow))
    end
end

local function probe_vec(fname, key, what, v, n, tnow)
    if type(v) ~= "table" or #v ~= n then
        fail(fname, "'%s' must return %s as a table of %d finite numbers (got %s at t = %s)", key, what, n,
             type(v) == "table" and fmt("a table of length %d", #v) or show(v), show(tnow))
    end
    for i = 1, n do
        if type(v[i]) ~= "number" or not isfinite(v[i]) then
            fail(fname, "'%s' must return %s as a table of %d finite numbers (got %s[%d] = %s at t = %s)", key, what, n,
                 what, i, show(v[i]), show(tnow))
        end
    end
end

local COORDS = { x = 0, y = 1, theta = 2 }

function World:prescribe(t)
    local fname = "world:prescribe"
    local cw = world_begin(fname, self, t, "w:prescribe{ body, coord = \"x\", f = function(t) return math.sin(t) end }",
                           { "coord", "f", "df", "relative_to", "name" }, 1)
    local usage = "w:prescribe{ body, coord = \"x\", f = function(t) ... end }"
    if t[1] == nil then fail(fname, "argument [1] (the body) is required: %s", usage) end
    local b = rigid_side(fname, self, "B", t[1], false, nil, "argument [1] (the body)")
    local a = self.ground
    if t.relative_to ~= nil then
        local mt = getmetatable(t.relative_to)
        if (mt ~= Body and mt ~= Ground) or rawget(t.relative_to, "world") ~= self then
            fail(fname, "'relative_to' must be a body of this world or w.ground (got %s)", show(t.relative_to))
        end
        if mt == Body and t.relative_to.kind ~= "rigid2d" then
            fail(fname, "'relative_to' must be a rigid body (got the %s)", describe_body(t.relative_to))
        end
        a = t.relative_to
        if a == b then fail(fname, "'relative_to' is the body itself (%s)", describe_body(b)) end
    end
    if t.coord == nil then fail(fname, "'coord' is required (\"x\", \"y\" or \"theta\")") end
    local coord = COORDS[option(fname, "coord", t.coord, nil, { "x", "y", "theta" })]
    if type(t.f) ~= "function" then fail(fname, "'f' must be a function of t (got %s)", show(t.f)) end
    check_fn(fname, "df", t.df)
    local tnow = core.time(cw)
    probe_number(fname, "f", probe_call(fname, "f", t.f, tnow)[2], 1, tnow)
    if t.df then probe_number(fname, "df", probe_call(fname, "df", t.df, tnow)[2], 1, tnow) end
    return make_joint(fname, self, "prescribed", a, b, 1, { coord = coord, f = t.f, df = t.df, name = t.name })
end

local function probe_matrix(fname, key, G, rows, tnow)
    if type(G) ~= "table" or #G ~= rows then
        fail(fname, "'grad' must return %s as a table of %d rows of 3 numbers (got %s at t = %s)", key, rows,
             type(G) == "table" and fmt("%d rows", #G) or show(G), show(tnow))
    end
    for i = 1, rows do probe_vec(fname, "grad", fmt("%s[%d]", key, i), G[i], 3, tnow) end
end

function World:constraint(t)
    local fname = "world:constraint"
    local usage = "w:constraint{ A, B, rows = 1, g = function(t, qa, qb) ... end } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:constraint{ w.ground, body, rows = 1, g = function(t, qa, qb) return qb[2] end }",
                           { "rows", "g", "grad", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    if t.rows == nil then fail(fname, "'rows' is required (1, 2 or 3)") end
    local rows = integer(fname, "rows", t.rows)
    c_check("joint", fname, { type = "custom", rows = rows })   -- 1..3 (rc_joint_def_check), before g is probed
    if type(t.g) ~= "function" then fail(fname, "'g' must be a function(t, qa, qb) returning %d values (got %s)", rows, show(t.g)) end
    check_fn(fname, "grad", t.grad)
    local tnow = core.time(cw)
    local function qs()
        local qa = nil
        if a.id ~= core.GROUND then qa = side_q(fname, cw, a) end
        return qa, side_q(fname, cw, b)
    end
    local r = probe_call(fname, "g", t.g, tnow, qs())
    for i = 1, rows do probe_number(fname, "g", r[i + 1], i, tnow) end
    if r.n - 1 > rows then fail(fname, "'g' returned %d values (rows = %d)", r.n - 1, rows) end
    if t.grad then
        r = probe_call(fname, "grad", t.grad, tnow, qs())
        if a.id ~= core.GROUND then probe_matrix(fname, "Ga", r[2], rows, tnow) end
        probe_matrix(fname, "Gb", r[3], rows, tnow)
    end
    return make_joint(fname, self, "custom", a, b, rows, { rows = rows, g = t.g, grad = t.grad, name = t.name })
end

function World:joints()
    check_self("world:joints", self, World, "a world")
    local r = {}
    for i, j in ipairs(self._joints) do r[i] = j end
    return r
end

-- A live joint's report (rc_joint_info); a removed joint (by w:remove, with its
-- body, or broken) raises "joint 'NAME' was removed at t = ..." naming fname.
local function joint_info(fname, self)
    check_self(fname, self, Joint, "a joint")
    local cw = world_core(fname, self.world)
    if rawget(self, "_removed") or core.is_removed(cw, "joint", self.id) then
        rawset(self, "_removed", rawget(self, "_removed") or core.link_removal(cw, "joint", self.id) or core.time(cw))
        I.removed_error(fname, "joint", self)
    end
    local info, msg = core.joint_info(cw, self.id)
    if not info then fail(fname, "%s", msg) end
    return info
end

function Joint:info() return joint_info("joint:info", self) end

function Joint:force() return joint_info("joint:force", self).force end

local function make_spring(fname, self, stype, a, b, def)
    def.type, def.a, def.b = stype, a.id, b.id
    def.name = opt_name(fname, "name", def.name)
    c_check("spring", fname, def)   -- k, c, ...: the kernel's rc_spring_def_check
    local id = kernel_create(fname, self, core.spring_create, def)
    for _, side in ipairs{ a, b } do   -- sim:force_set refuses bodies loaded by springs
        if getmetatable(side) == Body then side._springs = true end   -- (pins the body)
    end
    return setmetatable({ id = id, name = def.name, type = stype, a = a, b = b, k = def.k, c = def.c, world = self }, Spring)
end

function World:spring(t)
    local fname = "world:spring"
    local usage = "w:spring{ A, B, k = 100 } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:spring{ w.ground, body, point_a = {0, 1}, k = 100 }",
                           { "point_a", "point_b", "k", "c", "rest_length", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local D = core.defaults.spring   -- the kernel's (rc_default_spring_def)
    local pa = vec(fname, "point_a", t.point_a, 2, "{x, y}", D.point_a)
    local pb = vec(fname, "point_b", t.point_b, 2, "{x, y}", D.point_b)
    local k = number(fname, "k", t.k, REQUIRED)
    local c = number(fname, "c", t.c, D.c)
    local rest = opt_number(fname, "rest_length", t.rest_length)
    -- (a negative rest length means "the initial length" to the kernel: that is no rest_length here)
    if rest ~= nil then nonneg(fname, "rest_length", rest) end
    return make_spring(fname, self, "linear", a, b,
                       { point_a = pa, point_b = pb, k = k, c = c, rest_length = rest, name = t.name })
end

function World:torsion_spring(t)
    local fname = "world:torsion_spring"
    local usage = "w:torsion_spring{ A, B, k = 10 } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:torsion_spring{ w.ground, body, k = 10 }",
                           { "k", "c", "rest_angle", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local k = number(fname, "k", t.k, REQUIRED)
    local c = number(fname, "c", t.c, core.defaults.spring.c)
    return make_spring(fname, self, "torsional", a, b,
                       { k = k, c = c, rest_angle = opt_number(fname, "rest_angle", t.rest_angle), name = t.name })
end

-- A square matrix given as a table of rows (n rows of n finite numbers, n =
-- `n` if given); returns a copy. (Symmetry and definiteness: the kernel's
-- rc_linear_def_check, through c_check in World:linear.)
local function sym_matrix(fname, key, m, n)
    local example = "a table of rows such as {{2, 0}, {0, 1}}, or rc.read_matrix(path)"
    if type(m) ~= "table" then fail(fname, "'%s' must be %s (got %s)", key, example, show(m)) end
    local nr = #m
    if nr == 0 then fail(fname, "'%s' must be %s (got an empty table)", key, example) end
    for k in pairs(m) do
        if not (mtype(k) == "integer" and k >= 1 and k <= nr) then
            fail(fname, "'%s' must be %s (unexpected entry %s)", key, example, showkey(k))
        end
    end
    if n and nr ~= n then fail(fname, "'%s' must be %d x %d like 'M' (got %d rows)", key, n, n, nr) end
    n = nr
    local r = {}
    for i = 1, n do
        local row = m[i]
        if type(row) ~= "table" then fail(fname, "'%s[%d]' must be a row of %d numbers (got %s)", key, i, n, show(row)) end
        if #row ~= n then
            fail(fname, "'%s' must be square (%d x %d): row %d has %d entries", key, n, n, i, #row)
        end
        for k in pairs(row) do
            if not (mtype(k) == "integer" and k >= 1 and k <= n) then
                fail(fname, "'%s[%d]' must be a row of %d numbers (unexpected entry %s)", key, i, n, showkey(k))
            end
        end
        local ri = {}
        for j = 1, n do
            local x = row[j]
            if type(x) ~= "number" then fail(fname, "'%s[%d][%d]' must be a number (got %s)", key, i, j, show(x)) end
            if not isfinite(x) then fail(fname, "'%s[%d][%d]' must be a finite number (got %s)", key, i, j, show(x)) end
            ri[j] = x
        end
        r[i] = ri
    end
    return r
end

function World:linear(t)
    local fname = "world:linear"
    local cw = world_begin(fname, self, t, "w:linear{ name = \"bar\", M = {{1, 0}, {0, 1}}, K = {{2, -1}, {-1, 2}} }",
                           { "name", "M", "K", "C", "q0", "v0", "f", "force_fn" })
    local name = opt_name(fname, "name", t.name)
    if t.M == nil then fail(fname, "'M' is required (the mass matrix: %s)", "a table of rows, or rc.read_matrix(path)") end
    local M = sym_matrix(fname, "M", t.M)
    local n = #M
    local K = t.K ~= nil and sym_matrix(fname, "K", t.K, n) or nil
    local C = t.C ~= nil and sym_matrix(fname, "C", t.C, n) or nil
    local per = "(one per coordinate)"
    local function opt_vec(key) return t[key] ~= nil and vec(fname, key, t[key], n, per) or nil end   -- nil: the kernel's 0
    local def = { name = name, n = n, M = M, K = K, C = C, q0 = opt_vec("q0"), v0 = opt_vec("v0"), f = opt_vec("f") }
    local force_fn = check_fn(fname, "force_fn", t.force_fn)
    c_check("linear", fname, def)   -- symmetric, positive (semi-)definite: the kernel's rc_linear_def_check
    if name and self._by_name[name] then fail(fname, "a body named '%s' already exists", name) end
    local id
    id, cw = kernel_create(fname, self, core.linear_create, def)   -- its force function goes where it went
    local body = new_body(self, id, { name = name, kind = "linear", n = n }, true)
    if name then self._by_name[name] = body end
    if force_fn then
        local ok, err = core.body_set_force_fn(cw, id, force_fn)
        if not ok then fail(fname, "%s", err) end
    end
    return body
end

function World:gap(t)
    local fname = "world:gap"
    local cw = world_begin(fname, self, t, "w:gap{ body, index = {1}, normal = {1}, g0 = 0.1 }",
                           { "index", "normal", "tangent", "g0", "gap", "law", "name" }, 1)
    local b = t[1]
    if b == nil then fail(fname, "argument [1] (the body) is required: w:gap{ body, index = {...}, normal = {...} }") end
    local mt = getmetatable(b)
    if mt == Ground then fail(fname, "argument [1] must be a body (a gap contact is between a body and the static world)") end
    if mt ~= Body then fail(fname, "argument [1] must be a body of this world (got %s)", show(b)) end
    if rawget(b, "world") ~= self then fail(fname, "argument [1] belongs to another world") end
    if not I.valid_id(self, b) then   -- a script may have replaced the object's fields
        fail(fname, "argument [1]: this body's 'id' field was replaced (got %s)", show(rawget(b, "id")))
    end
    local nq = b.kind == "linear" and b.n or 3
    local def = { body = b.id, name = opt_name(fname, "name", t.name) }
    if t.law ~= nil then def.law = law_id(self, cw, fname, check_law(fname, "law", t.law)) end
    if t.gap ~= nil then
        if t.index ~= nil or t.normal ~= nil or t.tangent ~= nil or t.g0 ~= nil then
            fail(fname, "give either 'gap' (a function) or 'index'/'normal'/'tangent'/'g0' (a linear gap), not both")
        end
        if type(t.gap) ~= "function" then fail(fname, "'gap' must be a function(t, q) (got %s)", show(t.gap)) end
        local tnow = core.time(cw)
        local r = probe_call(fname, "gap", t.gap, tnow, side_q(fname, cw, b))
        probe_number(fname, "gap", r[2], 1, tnow)
        probe_vec(fname, "gap", "grad_n", r[3], nq, tnow)
        if r[4] ~= nil then probe_vec(fname, "gap", "grad_t", r[4], nq, tnow) end
        def.gap = t.gap
    else
        local idx = t.index
        if idx == nil then fail(fname, "give 'index' and 'normal' (a linear gap) or 'gap' (a function)") end
        if type(idx) ~= "table" or #idx == 0 then
            fail(fname, "'index' must be a non-empty list of coordinate numbers 1..%d (got %s)", nq, show(idx))
        end
        local n = #idx
        for k in pairs(idx) do
            if not (mtype(k) == "integer" and k >= 1 and k <= n) then
                fail(fname, "'index' must be a list of coordinate numbers (unexpected entry %s)", showkey(k))
            end
        end
        local index0, seen = {}, {}
        for i = 1, n do
            local k = idx[i]
            if mtype(k) ~= "integer" and not (type(k) == "number" and math.tointeger(k)) then
                fail(fname, "'index[%d]' must be an integer (got %s)", i, show(k))
            end
            k = math.tointeger(k)
            if k < 1 or k > nq then
                fail(fname, "'index[%d]' must be a coordinate number in 1..%d of %s (got %d)", i, nq, describe_body(b), k)
            end
            if seen[k] then fail(fname, "'index' lists coordinate %d twice (entries %d and %d)", k, seen[k], i) end
            seen[k] = i
            index0[i] = k - 1
        end
        def.index = index0
        local names = fmt("(one per entry of 'index')")
        def.normal = vec(fname, "normal", t.normal, n, names)
        if t.tangent ~= nil then def.tangent = vec(fname, "tangent", t.tangent, n, names) end
        def.g0 = number(fname, "g0", t.g0, core.defaults.gap.g0)   -- the kernel's (rc_default_gap_def)
    end
    local id = kernel_create(fname, self, core.gap_create, def)
    return setmetatable({ id = id, name = def.name, body = b, world = self }, Gap)
end
