-- ricochet/body.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): body objects (Body methods).
-- The module's shared locals come from ricochet.private, the argument checks
-- from ricochet.check.

local I = require "ricochet.private"
local core, Body, check_self, world_core, create_shape, check_shape = I.core, I.Body, I.check_self, I.world_core, I.create_shape, I.check_shape
local type, tostring, fmt = type, tostring, string.format
local check = require "ricochet.check"
local fail, show, check_keys, check_table, vec = check.fail, check.show, check.check_keys, check.check_table, check.vec

function Body.__tostring(b)   -- (tostring: fields a script replaced are shown as they are)
    local name = b.name and (" '" .. tostring(b.name) .. "'") or ""
    if b.kind == "linear" then return fmt("ricochet.body %s%s (linear, n = %s)", tostring(b.id), name, tostring(b.n)) end
    return fmt("ricochet.body %s%s", tostring(b.id), name)
end

-- Sizes and descriptions of a body's vectors: nq, q, v, force (and nv when it differs from nq).
local function body_dims(b)
    if b.kind == "linear" then
        local d = "(one per coordinate)"
        return b.n, d, d, d
    end
    if b.kind == "rigid3d" then   -- (ricochet/body3d.lua)
        return 7, "{x, y, z, qw, qx, qy, qz}", "{vx, vy, vz, wx, wy, wz}", "{fx, fy, fz, tx, ty, tz}", 6
    end
    return 3, "{x, y, theta}", "{vx, vy, omega}", "{fx, fy, torque}"
end

local function body_core(fname, b, idle)
    check_self(fname, b, Body, "a body")
    if rawget(b, "_removed") then I.removed_error(fname, "body", b) end   -- (remove.lua)
    local c = world_core(fname, rawget(b, "world"), idle)
    local id = rawget(b, "id")   -- a script may have replaced the object's fields
    if math.type(id) ~= "integer" or id < 0 or id >= core.body_count(c) then
        fail(fname, "this body's 'id' field was replaced (got %s)", show(id))
    end
    return c
end

function Body:q()
    local c = body_core("body:q", self)
    local q, v = core.body_state(c, self.id)
    if not q then fail("body:q", "%s", v) end
    return q
end

function Body:v()
    local c = body_core("body:v", self)
    local q, v = core.body_state(c, self.id)
    if not q then fail("body:v", "%s", v) end
    return v
end

function Body:set_state(t)
    local fname = "body:set_state"
    local c = body_core(fname, self, true)
    check_table(fname, t, "body:set_state{ q = {0, 1, 0}, v = {0, 0, 0} }")
    check_keys(fname, t, { "q", "v" })
    if t.q == nil and t.v == nil then fail(fname, "give 'q' and/or 'v'") end
    local n, qd, vd, _, nv = body_dims(self)
    local q = t.q ~= nil and vec(fname, "q", t.q, n, qd) or nil
    local v = t.v ~= nil and vec(fname, "v", t.v, nv or n, vd) or nil
    local ok, msg = core.body_set_state(c, self.id, q, v)
    if not ok then fail(fname, "%s", msg) end
    return self
end

function Body:set_force(f)
    local fname = "body:set_force"
    local c = body_core(fname, self)
    local n, _, _, fd, nv = body_dims(self)
    local ok, msg = core.body_set_force(c, self.id, vec(fname, "force", f, nv or n, fd))
    if not ok then fail(fname, "%s", msg) end
    return self
end

function Body:force()
    local c = body_core("body:force", self)
    local f, msg = core.body_force(c, self.id)
    if not f then fail("body:force", "%s", msg) end
    return f
end

function Body:set_force_fn(fn)
    local fname = "body:set_force_fn"
    local c = body_core(fname, self, true)
    if fn ~= nil and type(fn) ~= "function" then fail(fname, "'fn' must be a function or nil (got %s)", show(fn)) end
    local ok, msg = core.body_set_force_fn(c, self.id, fn)
    if not ok then fail(fname, "%s", msg) end
    self._force_fn = fn ~= nil   -- (pins the body)
    if rawget(self, "fem") then I.fem_reinstall_loads(fname, self) end   -- its tractions too (fem.lua)
    return self
end

function Body:mass()
    local c = body_core("body:mass", self)
    if self.kind == "linear" then
        fail("body:mass", "a linear body has a mass matrix, not a mass and an inertia (%s)", tostring(self))
    end
    local m, J = (self.kind == "rigid3d" and core.body3d_mass or core.body_mass)(c, self.id)   -- rigid3d: {J1, J2, J3}
    if not m then fail("body:mass", "%s", J) end
    return m, J
end

function Body:add_shape(d)
    local fname = "body:add_shape"
    local c = body_core(fname, self, true)
    if self.kind == "linear" then
        fail(fname, "a linear body has no shapes: give it contacts with w:gap{ body, ... }")
    end
    check_shape(fname, "shape", d)
    return create_shape(fname, c, self.id, d)
end

-- Energies of a linear body: { kinetic = 1/2 v^T M v, elastic = 1/2 q^T K q }.
function Body:energy()
    local fname = "body:energy"
    local c = body_core(fname, self)
    if self.kind ~= "linear" then
        fail(fname, "only linear bodies (w:linear) have this method; use sim:energy() for the whole world")
    end
    local k, e = core.linear_energy(c, self.id)
    if not k then fail(fname, "%s", e) end
    return { kinetic = k, elastic = e }
end
