-- ricochet/joint3d.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- joints of spatial bodies, w:joint{...} in a world of dim = 3 (docs/lua-api.md,
-- docs/theory/spatial.md "Joints"). The kernel's rc_joint3_create checks
-- what depends on the state (bodies, a distance joint's length).

local I = require "ricochet.private"
local core, rc, World, Body, Ground = I.core, I.rc, I.World, I.Body, I.Ground
local check_self, world_core = I.check_self, I.world_core
local getmetatable, setmetatable, rawget, fmt = getmetatable, setmetatable, rawget, string.format
local check = require "ricochet.check"
local fail, show, check_keys, check_table, opt_name, vec = check.fail, check.show, check.check_keys, check.check_table, check.opt_name, check.vec

local Joint3 = { __name = "ricochet.joint3" }
Joint3.__index = Joint3
rc.Joint3 = Joint3
function Joint3.__tostring(j)
    return fmt("ricochet.joint3 %d (%s)%s", j.id, j.kind, j.name and (" '" .. j.name .. "'") or "")
end

local KINDS = { spherical = true, revolute = true, fixed = true, distance = true, prismatic = true }
local MAXKEY = { revolute = "max_torque", prismatic = "max_force" }
local REQUIRED = {}

-- motor = { speed, max_torque | max_force, enabled = true } (rc_joint3_set_motor; as planar
-- motors, lua/ricochet/mechanisms.lua); `cur`: the values set before
local function motor_args(fname, key, m, maxkey, cur)
    if type(m) ~= "table" then fail(fname, "'%s' must be a table such as { speed = 2, %s = 5 } (got %s)", key, maxkey, show(m)) end
    check_keys(fname .. ": '" .. key .. "'", m, { "speed", maxkey, "enabled" })
    local function num(k, x, dflt)
        if x == nil then
            if dflt == REQUIRED then fail(fname, "'%s.%s' is required (a number)", key, k) end
            return dflt
        end
        if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then fail(fname, "'%s.%s' must be a finite number (got %s)", key, k, show(x)) end
        return x
    end
    local r = { speed = num("speed", m.speed, cur and cur.speed or REQUIRED), max = num(maxkey, m[maxkey], cur and cur.max or REQUIRED) }
    if r.max < 0 then fail(fname, "'%s.%s' must be >= 0 (got %s)", key, maxkey, show(r.max)) end
    if m.enabled ~= nil and type(m.enabled) ~= "boolean" then fail(fname, "'%s.enabled' must be a boolean (got %s)", key, show(m.enabled)) end
    r.enabled = m.enabled ~= false
    return r
end

local function apply_motor(fname, j, cw, m)
    local ok, msg = core.joint3_set_motor(cw, j.id, m.enabled, m.speed, m.max)
    if not ok then fail(fname, "%s", msg) end
    j._motor = m
end
local KEYS = { "kind", "a", "b", "anchor", "anchor_b", "axis", "name", "motion", "motion_rate", "motor" }
-- what a motion drives, per kind
local DRIVES = { revolute = "the angle", prismatic = "the slide", distance = "the length" }

local function side(fname, w, key, x, ground_ok)
    local mt = getmetatable(x)
    if x == nil then fail(fname, "'%s' is required (a body%s)", key, ground_ok and " or w.ground" or "") end
    if mt ~= Body and mt ~= Ground then
        fail(fname, "'%s' must be a body of this world%s (got %s)", key, ground_ok and " or w.ground" or "", show(x))
    end
    if rawget(x, "world") ~= w then fail(fname, "'%s' belongs to another world", key) end
    if mt == Ground and not ground_ok then fail(fname, "'%s' must be a body, not the ground (give the ground as 'a')", key) end
    if mt == Body and x.kind ~= "rigid3d" then fail(fname, "'%s' must be a spatial rigid body (got a %s body)", key, tostring(x.kind)) end
    return x
end

-- w:joint{ kind = "spherical" | "revolute" | "fixed" | "distance" | "prismatic", a = body or w.ground,
--          b = body, anchor = {x, y, z}, anchor_b = {x, y, z} (distance), axis = {x, y, z}
--          (revolute, prismatic), name, motion = function(t) (revolute: the angle, prismatic: the
--          slide, distance: the length), motion_rate = function(t) (its derivative; else differences) }
function World:joint(t)
    local fname = "world:joint"
    check_self(fname, self, World, "a world")
    local cw = world_core(fname, self, true)
    if rawget(self, "dim") ~= 3 then
        fail(fname, "w:joint is for worlds of dim = 3 (planar worlds take w:revolute, w:prismatic, w:weld, w:distance, w:line)")
    end
    check_table(fname, t, '{ kind = "spherical", a = w.ground, b = body, anchor = {x, y, z} }')
    check_keys(fname, t, KEYS)
    local kind = t.kind
    if kind == nil then fail(fname, "'kind' is required: \"spherical\", \"revolute\", \"fixed\", \"distance\" or \"prismatic\"") end
    if not KINDS[kind] then
        fail(fname, "unknown 'kind' %s in a world of dim = 3 (\"spherical\", \"revolute\", \"fixed\", \"distance\" or \"prismatic\")", show(kind))
    end
    local a = side(fname, self, "a", t.a == nil and self.ground or t.a, true)
    local b = side(fname, self, "b", t.b, false)
    if a == b then fail(fname, "'a' and 'b' are the same body: give two different bodies") end
    if t.anchor == nil then fail(fname, "'anchor' is required (a world point {x, y, z})") end
    local anchor = vec(fname, "anchor", t.anchor, 3, "{x, y, z}")
    local def = { kind = kind, a = a.id, b = b.id, anchor = anchor, name = opt_name(fname, "name", t.name) }
    if kind == "revolute" or kind == "prismatic" then
        if t.axis == nil then fail(fname, "'axis' is required for a %s joint (the %s axis {x, y, z}, world)", kind, kind == "revolute" and "hinge" or "sliding") end
        def.axis = vec(fname, "axis", t.axis, 3, "{x, y, z}")
        if def.axis[1] == 0 and def.axis[2] == 0 and def.axis[3] == 0 then fail(fname, "'axis' must be nonzero") end
    elseif t.axis ~= nil then
        fail(fname, "'axis' is for revolute and prismatic joints (this one is %s)", kind)
    end
    if kind == "distance" then
        if t.anchor_b == nil then fail(fname, "'anchor_b' is required for a distance joint (B's point {x, y, z}, world)") end
        def.anchor_b = vec(fname, "anchor_b", t.anchor_b, 3, "{x, y, z}")
    elseif t.anchor_b ~= nil then
        fail(fname, "'anchor_b' is for distance joints (this one is %s)", kind)
    end
    if t.motion ~= nil then
        if not DRIVES[kind] then
            fail(fname, "'motion' is for revolute (the angle), prismatic (the slide) and distance (the length) joints (this one is %s)", kind)
        end
        if type(t.motion) ~= "function" then fail(fname, "'motion' must be a function of t returning %s (got %s)", DRIVES[kind], show(t.motion)) end
        def.f = t.motion
    end
    if t.motion_rate ~= nil then
        if t.motion == nil then fail(fname, "'motion_rate' needs 'motion' (a function of t)") end
        if type(t.motion_rate) ~= "function" then fail(fname, "'motion_rate' must be a function of t (got %s)", show(t.motion_rate)) end
        def.df = t.motion_rate
    end
    local motor
    if t.motor ~= nil then
        if kind ~= "revolute" and kind ~= "prismatic" then fail(fname, "'motor' is for revolute and prismatic joints (this one is %s)", kind) end
        if t.motion ~= nil then fail(fname, "'motor' and 'motion' exclude each other (the motion prescribes the coordinate)") end
        motor = motor_args(fname, "motor", t.motor, MAXKEY[kind])
    end
    local names = rawget(self, "_joint3_names")
    if not names then names = {}; rawset(self, "_joint3_names", names) end
    if def.name and names[def.name] then fail(fname, "a joint named '%s' already exists", def.name) end
    local id, msg = core.joint3_create(cw, def)
    if not id then fail(fname, "%s", msg) end
    local j = setmetatable({ id = id, kind = kind, name = def.name, a = a, b = b, world = self }, Joint3)
    if def.name then names[def.name] = j end
    if motor then apply_motor(fname, j, cw, motor) end
    return j
end

-- j:set_motor{ speed, max_torque (revolute) | max_force (prismatic), enabled = true }: missing
-- keys keep the values set before
function Joint3:set_motor(m)
    local fname = "joint3:set_motor"
    check_self(fname, self, Joint3, "a joint of a dim = 3 world")
    local maxkey = MAXKEY[self.kind]
    if not maxkey then fail(fname, "joint %s is a %s joint: motors are for revolute and prismatic joints", self.name and ("'" .. self.name .. "'") or self.id, self.kind) end
    apply_motor(fname, self, world_core(fname, self.world, true), motor_args(fname, "argument [1]", m, maxkey, self._motor))
    return self
end

-- j:info() -> { impulse = {...} (the last step's, one per row), violation (|g| after
-- the last step), work (its part of W_J), coordinate (revolute: the angle, prismatic: the
-- slide, distance: the length, now), drive_force (driven: the drive's torque or force),
-- motor_force (revolute, prismatic: the motor's torque or force over the last step) }
function Joint3:info()
    local fname = "joint3:info"
    check_self(fname, self, Joint3, "a joint of a dim = 3 world")
    local r, msg = core.joint3_get(world_core(fname, self.world), self.id)
    if not r then fail(fname, "%s", msg) end
    return r
end
