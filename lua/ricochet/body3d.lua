-- ricochet/body3d.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- spatial rigid bodies, w:body{...} in a world of dim = 3 (docs/lua-api.md,
-- docs/theory/spatial.md). The kernel's rc_body3d_create checks the ranges
-- (mass > 0, a symmetric positive definite inertia, a nonzero quaternion).

local I = require "ricochet.private"
local core, new_body = I.core, I.new_body
local type, ipairs, pairs, getmetatable, setmetatable = type, ipairs, pairs, getmetatable, setmetatable
local check_shape3, centred_poly
local check = require "ricochet.check"
local fail, show, check_keys, check_table = check.fail, check.show, check.check_keys, check.check_table
local REQUIRED, number, opt_name, vec, check_fn = check.REQUIRED, check.number, check.opt_name, check.vec, check.check_fn

local KEYS = { "name", "mass", "inertia", "density", "sphere", "box", "capsule", "q", "v", "force", "force_fn",
               "shape", "shapes", "kind" }
local SOLIDS = { sphere = { 1, "r" }, box = { 3, "{a, b, c} (half-extents)" }, capsule = { 2, "{r, half_length}" } }

-- inertia = {Ixx, Iyy, Izz} (principal) or {{...}, {...}, {...}} (a tensor):
-- the 9 numbers of the tensor, row-major
local function inertia9(fname, J)
    if type(J) ~= "table" or getmetatable(J) ~= nil then
        fail(fname, "'inertia' must be {Ixx, Iyy, Izz} or a 3x3 table {{Ixx, Ixy, Ixz}, {...}, {...}} (got %s)", show(J))
    end
    if type(J[1]) ~= "table" then
        local d = vec(fname, "inertia", J, 3, "{Ixx, Iyy, Izz}")
        return { d[1], 0, 0, 0, d[2], 0, 0, 0, d[3] }
    end
    local rows = vec(fname, "inertia", { 1, 2, 3 }, 3, "")   -- (shape only)
    for i = 1, 3 do
        local r = vec(fname, "inertia[" .. i .. "]", J[i], 3, "(a row of the 3x3 tensor)")
        rows[i] = r
    end
    if J[4] ~= nil then fail(fname, "'inertia' must have 3 rows (got an entry [4])") end
    return { rows[1][1], rows[1][2], rows[1][3], rows[2][1], rows[2][2], rows[2][3], rows[3][1], rows[3][2], rows[3][3] }
end

-- mass and inertia from density and one solid
local function from_density(fname, t)
    if t.mass ~= nil or t.inertia ~= nil then fail(fname, "give either 'density' with a solid or 'mass' and 'inertia', not both") end
    local rho = number(fname, "density", t.density, REQUIRED)
    local kind
    for _, k in ipairs({ "sphere", "box", "capsule" }) do
        if t[k] ~= nil then
            if kind then fail(fname, "give one solid of 'sphere', 'box', 'capsule' (got '%s' and '%s')", kind, k) end
            kind = k
        end
    end
    if not kind and type(t.shape) == "table" and t.shape.kind == "polyhedron" and t.shape.tensor then
        local sh = t.shape   -- the hull's mass properties (rc_polyhedron_mass_properties)
        if sh.point then fail(fname, "'offset' of a polyhedron has no meaning with 'density': the hull's centroid is the body's centre of mass") end
        local J = {}
        for i = 1, 9 do J[i] = rho * sh.tensor[i] end
        return rho * sh.volume, J, sh
    end
    if not kind then fail(fname, "'density' needs a solid: sphere = r, box = {a, b, c}, capsule = {r, half_length} or shape = rc.polyhedron{...}") end
    local n, desc = SOLIDS[kind][1], SOLIDS[kind][2]
    local dims = n == 1 and { number(fname, kind, t[kind], REQUIRED) } or vec(fname, kind, t[kind], n, desc)
    local m, J = core.solid_mass(kind, dims, rho)
    if not m then fail(fname, "%s", J) end
    return m, { J[1], 0, 0, 0, J[2], 0, 0, 0, J[3] }
end

-- shapes of dim = 3 worlds (docs/lua-api.md, "Spatial shapes"): descriptors
-- checked here, ranges by the kernel (rc_shape3_create)
local Shape3 = { __name = "ricochet.shape3" }
local rc = I.rc
local function shape3(fname, t, keys, usage)
    check_table(fname, t, usage)
    check_keys(fname, t, keys, #keys)
    return t
end
local function pos_field(fname, t, i, key)
    local x = t[key]
    if x == nil then x = t[i] elseif t[i] ~= nil then fail(fname, "give '%s' either by position or by name, not both", key) end
    local v = number(fname, key, x, REQUIRED)
    if not (v > 0) then fail(fname, "'%s' must be > 0 (got %s)", key, show(v)) end
    return v
end
-- offset = {x, y, z}: the shape's centre in the body frame (default: the
-- centre of mass), as the kernel's point of a body's shape
local function offset3(fname, t, sh)
    if t.offset ~= nil then sh.point = vec(fname, "offset", t.offset, 3, "{x, y, z} (body frame)") end
    if t.group ~= nil then sh.group = check.integer(fname, "group", t.group, REQUIRED) end   -- contact rules by groups
    return setmetatable(sh, Shape3)
end
function rc.sphere(t)
    local fname = "rc.sphere"
    shape3(fname, t, { "radius", "offset", "group" }, "rc.sphere{ radius = 0.1 }")
    return offset3(fname, t, { kind = "sphere", radius = pos_field(fname, t, 1, "radius") })
end
function rc.capsule(t)
    local fname = "rc.capsule"
    shape3(fname, t, { "radius", "half_length", "offset", "group" }, "rc.capsule{ radius = 0.1, half_length = 0.5 }")
    local r = pos_field(fname, t, 1, "radius")
    local l = t.half_length ~= nil and t.half_length or t[2]
    l = number(fname, "half_length", l, REQUIRED)
    if not (l >= 0) then fail(fname, "'half_length' must be >= 0 (got %s)", show(l)) end
    return offset3(fname, t, { kind = "capsule", radius = r, half_length = l })
end
function rc.box3(t)
    local fname = "rc.box3"
    shape3(fname, t, { "hx", "hy", "hz", "offset", "group" }, "rc.box3{ 0.5, 0.25, 0.1 } (half-extents)")
    return offset3(fname, t, { kind = "box", half = { pos_field(fname, t, 1, "hx"), pos_field(fname, t, 2, "hy"), pos_field(fname, t, 3, "hz") } })
end
-- rc.polyhedron{ points = {{x, y, z}, ...}, offset = {x, y, z} }: the
-- convex hull of the points (body frame), checked here by the kernel's hull
-- (at least 4 points not on a plane, at most 64 hull vertices and faces)
function rc.polyhedron(t)
    local fname = "rc.polyhedron"
    shape3(fname, t, { "points", "offset" }, "rc.polyhedron{ points = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }")
    local P = t.points
    if type(P) ~= "table" then fail(fname, "'points' must be a list of {x, y, z} (got %s)", show(P)) end
    if #P < 4 then fail(fname, "'points' needs at least 4 points (got %d)", #P) end
    local flat = {}
    for i = 1, #P do
        local p = vec(fname, "points[" .. i .. "]", P[i], 3, "{x, y, z}")
        flat[3 * i - 2], flat[3 * i - 1], flat[3 * i] = p[1], p[2], p[3]
    end
    local m, c, J = core.polyhedron_mass(flat, 1.0)
    if not m then fail(fname, "'points': %s", c) end
    return offset3(fname, t, { kind = "polyhedron", points = flat, volume = m, centroid = c, tensor = J })
end
function check_shape3(fname, key, sh)
    if getmetatable(sh) ~= Shape3 then
        fail(fname, "'%s' must be rc.sphere{...}, rc.capsule{...}, rc.box3{...} or rc.polyhedron{...} in a world of dim = 3 (got %s)", key, show(sh))
    end
    return sh
end

-- w:plane{ point = {0, 0, 0}, normal = {0, 0, 1} }: a static half-space
function I.World.plane(self, t)
    local fname = "world:plane"
    I.check_self(fname, self, I.World, "a world")
    local c = I.world_core(fname, self, true)
    if rawget(self, "dim") ~= 3 then fail(fname, "planes are obstacles of a world of dim = 3 (a planar world: w:halfplane)") end
    if t == nil then t = {} end
    check_table(fname, t, "w:plane{ point = {0, 0, 0}, normal = {0, 0, 1} }")
    check_keys(fname, t, { "point", "normal", "group" })
    local def = { kind = "plane", point = vec(fname, "point", t.point, 3, "{x, y, z}", { 0, 0, 0 }),
                  normal = vec(fname, "normal", t.normal, 3, "{nx, ny, nz}", { 0, 0, 1 }),
                  group = t.group ~= nil and check.integer(fname, "group", t.group, REQUIRED) or nil }
    local id, err = core.shape3_create(c, core.GROUND, def)
    if not id then fail(fname, "%s", err) end
    return id
end

-- w:obstacle3{ shape = rc.box3{...} | rc.polyhedron{...} | ..., point = {x, y, z} }:
-- a static shape at point (world axes; the shape's offset is added)
function I.World.obstacle3(self, t)
    local fname = "world:obstacle3"
    I.check_self(fname, self, I.World, "a world")
    local c = I.world_core(fname, self, true)
    if rawget(self, "dim") ~= 3 then fail(fname, "obstacle3 is an obstacle of a world of dim = 3") end
    check_table(fname, t, "w:obstacle3{ shape = rc.polyhedron{ points = {...} }, point = {0, 0, 0} }")
    check_keys(fname, t, { "shape", "point" })
    if t.shape == nil then fail(fname, "'shape' is required (rc.sphere, rc.capsule, rc.box3 or rc.polyhedron)") end
    local sh = check_shape3(fname, "shape", t.shape)
    local p = vec(fname, "point", t.point, 3, "{x, y, z}", { 0, 0, 0 })
    local o = sh.point or { 0, 0, 0 }
    local def = {}
    for k, v in pairs(sh) do def[k] = v end
    def.point = { p[1] + o[1], p[2] + o[2], p[3] + o[3] }
    local id, err = core.shape3_create(c, core.GROUND, def)
    if not id then fail(fname, "%s", err) end
    return id
end

-- w:contacts3(): the last step's 3D contacts (rc_world_contact3_get)
function I.World.contacts3(self)
    I.check_self("world:contacts3", self, I.World, "a world")
    return core.contacts3(I.world_core("world:contacts3", self))
end

-- The polyhedron of a body given by 'density': its points (with offset)
-- moved by -c (the hull's centroid: the body's q is its centre of mass) and
-- turned into the principal frame the kernel chose (rc_body3d_create
-- diagonalises the tensor: the body's quaternion becomes q_user P, so a
-- body-frame point x is P^T x).
local function qmul(a, b)
    return { a[1] * b[1] - a[2] * b[2] - a[3] * b[3] - a[4] * b[4], a[1] * b[2] + a[2] * b[1] + a[3] * b[4] - a[4] * b[3],
             a[1] * b[3] - a[2] * b[4] + a[3] * b[1] + a[4] * b[2], a[1] * b[4] + a[2] * b[3] - a[3] * b[2] + a[4] * b[1] }
end
local function qrot(q, x)   -- R(q) x
    local p = qmul(qmul(q, { 0, x[1], x[2], x[3] }), { q[1], -q[2], -q[3], -q[4] })
    return { p[2], p[3], p[4] }
end
function centred_poly(c, id, quser, sh)
    local qb = core.body_state(c, id)
    local n = math.sqrt(quser[4] ^ 2 + quser[5] ^ 2 + quser[6] ^ 2 + quser[7] ^ 2)
    local qu = { quser[4] / n, quser[5] / n, quser[6] / n, quser[7] / n }
    local P = qmul({ qu[1], -qu[2], -qu[3], -qu[4] }, { qb[4], qb[5], qb[6], qb[7] })   -- q_user^-1 q_body
    local Pinv = { P[1], -P[2], -P[3], -P[4] }
    local same = qu[1] == qb[4] and qu[2] == qb[5] and qu[3] == qb[6] and qu[4] == qb[7]
    local o = sh.point or { 0, 0, 0 }
    local flat = {}
    for k = 1, #sh.points // 3 do
        local x = { sh.points[3 * k - 2] + o[1] - sh.centroid[1], sh.points[3 * k - 1] + o[2] - sh.centroid[2],
                    sh.points[3 * k] + o[3] - sh.centroid[3] }
        if not same then x = qrot(Pinv, x) end
        flat[3 * k - 2], flat[3 * k - 1], flat[3 * k] = x[1], x[2], x[3]
    end
    return setmetatable({ kind = "polyhedron", points = flat }, Shape3)
end

function I.body3d(w, c, t)
    local fname = "world:body"
    check_table(fname, t, "w:body{ mass = 1, inertia = {1, 2, 3}, q = {x, y, z, qw, qx, qy, qz} }")
    check_keys(fname, t, KEYS)
    local shapes = {}
    if t.shape ~= nil and t.shapes ~= nil then fail(fname, "give 'shape' or 'shapes', not both") end
    if t.shape ~= nil then shapes[1] = check_shape3(fname, "shape", t.shape) end
    if t.shapes ~= nil then
        if type(t.shapes) ~= "table" then fail(fname, "'shapes' must be a list of rc.sphere / rc.capsule / rc.box3 (got %s)", show(t.shapes)) end
        for i, sh in ipairs(t.shapes) do shapes[i] = check_shape3(fname, "shapes[" .. i .. "]", sh) end
    end
    if t.kind ~= nil and t.kind ~= "rigid3d" then
        fail(fname, "'kind' must be \"rigid3d\" in a world of dim = 3 (got %s)", show(t.kind))
    end
    local name = opt_name(fname, "name", t.name)
    local m, J, poly
    if t.density ~= nil then
        m, J, poly = from_density(fname, t)
    else
        for _, k in ipairs({ "sphere", "box", "capsule" }) do
            if t[k] ~= nil then fail(fname, "'%s' gives the mass properties with 'density' (missing)", k) end
        end
        m = number(fname, "mass", t.mass, REQUIRED)
        if t.inertia == nil then fail(fname, "'inertia' is required ({Ixx, Iyy, Izz} or a 3x3 table), or 'density' and a solid") end
        J = inertia9(fname, t.inertia)
    end
    local def = {
        name = name, mass = m, inertia = J,
        q = vec(fname, "q", t.q, 7, "{x, y, z, qw, qx, qy, qz}", { 0, 0, 0, 1, 0, 0, 0 }),
        v = vec(fname, "v", t.v, 6, "{vx, vy, vz, wx, wy, wz}", { 0, 0, 0, 0, 0, 0 }),
        force = vec(fname, "force", t.force, 6, "{fx, fy, fz, tx, ty, tz}", { 0, 0, 0, 0, 0, 0 }),
    }
    local force_fn = check_fn(fname, "force_fn", t.force_fn)
    if name and w._by_name[name] then fail(fname, "a body named '%s' already exists", name) end
    local id, msg = core.body3d_create(c, def)
    if not id then fail(fname, "%s", msg) end
    local body = new_body(w, id, { name = name, kind = "rigid3d" }, true)
    if poly then shapes[1] = centred_poly(c, id, def.q, poly) end
    for i, sh in ipairs(shapes) do
        local sid, err = core.shape3_create(c, id, sh)
        if not sid then fail(fname, "shape %d: %s", i, err) end
    end
    if name then w._by_name[name] = body end
    if force_fn then
        local ok, err = core.body_set_force_fn(c, id, force_fn)
        if not ok then fail(fname, "%s", err) end
        body._force_fn = true
    end
    return body
end
