-- ricochet/body3d.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- spatial rigid bodies, w:body{...} in a world of dim = 3 (docs/lua-api.md,
-- docs/theory/spatial.md). The kernel's rc_body3d_create checks the ranges
-- (mass > 0, a symmetric positive definite inertia, a nonzero quaternion).

local I = require "ricochet.private"
local core, new_body = I.core, I.new_body
local type, ipairs, getmetatable = type, ipairs, getmetatable
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
    if not kind then fail(fname, "'density' needs a solid: sphere = r, box = {a, b, c} or capsule = {r, half_length}") end
    local n, desc = SOLIDS[kind][1], SOLIDS[kind][2]
    local dims = n == 1 and { number(fname, kind, t[kind], REQUIRED) } or vec(fname, kind, t[kind], n, desc)
    local m, J = core.solid_mass(kind, dims, rho)
    if not m then fail(fname, "%s", J) end
    return m, { J[1], 0, 0, 0, J[2], 0, 0, 0, J[3] }
end

function I.body3d(w, c, t)
    local fname = "world:body"
    check_table(fname, t, "w:body{ mass = 1, inertia = {1, 2, 3}, q = {x, y, z, qw, qx, qy, qz} }")
    check_keys(fname, t, KEYS)
    if t.shape ~= nil or t.shapes ~= nil then
        fail(fname, "spatial bodies have no shapes yet (the contact geometry of dim = 3 worlds is not available)")
    end
    if t.kind ~= nil and t.kind ~= "rigid3d" then
        fail(fname, "'kind' must be \"rigid3d\" in a world of dim = 3 (got %s)", show(t.kind))
    end
    local name = opt_name(fname, "name", t.name)
    local m, J
    if t.density ~= nil then
        m, J = from_density(fname, t)
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
    if name then w._by_name[name] = body end
    if force_fn then
        local ok, err = core.body_set_force_fn(c, id, force_fn)
        if not ok then fail(fname, "%s", err) end
        body._force_fn = true
    end
    return body
end
