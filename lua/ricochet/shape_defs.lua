-- ricochet/shape_defs.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): shape descriptors: rc.disk, rc.box, rc.polygon, rc.point,
-- rc.circle_inside.
-- The module's shared locals come from ricochet.private, the argument checks
-- from ricochet.check.

local I = require "ricochet.private"
local core, rc = I.core, I.rc
local type, pairs, ipairs, setmetatable, getmetatable, mtype, fmt = type, pairs, ipairs, setmetatable, getmetatable, math.type, string.format
local check = require "ricochet.check"
local fail, show, showkey, check_keys, check_table, REQUIRED = check.fail, check.show, check.showkey, check.check_keys, check.check_table, check.REQUIRED
local number, integer, positive, opt_name, vec, c_check = check.number, check.integer, check.positive, check.opt_name, check.vec, check.c_check
local D = core.defaults.shape   -- the kernel's defaults (rc_default_shape_def)

local Shape = { __name = "ricochet.shape" }
Shape.__index = Shape
function Shape.__tostring(s)
    return fmt("ricochet.%s%s", s.kind, s.name and (" '" .. s.name .. "'") or "")
end
rc.Shape = Shape

-- group and name; the kernel checks the ranges (rc_shape_def_check)
local function shape_common(fname, t, d)
    d.group = integer(fname, "group", t.group, D.group)
    d.name = opt_name(fname, "name", t.name)
    return setmetatable(c_check("shape", fname, d), Shape)
end

function rc.disk(t)
    local fname = "rc.disk"
    check_table(fname, t, "rc.disk{ radius = 0.5 }")
    check_keys(fname, t, { "radius", "offset", "group", "name" }, 1)
    if t[1] ~= nil and t.radius ~= nil then fail(fname, "give the radius either as {r} or as radius = r, not both") end
    local r = number(fname, "radius", t.radius or t[1], REQUIRED)
    return shape_common(fname, t, {
        kind = "disk", type = "disk", radius = r,
        offset = vec(fname, "offset", t.offset, 2, "{x, y}", D.offset),
    })
end

function rc.box(t)
    local fname = "rc.box"
    check_table(fname, t, "rc.box{ 1, 0.5 }")
    check_keys(fname, t, { "width", "height", "offset", "group", "name" }, 2)
    local w, h
    if t[1] ~= nil or t[2] ~= nil then
        if t.width ~= nil or t.height ~= nil then
            fail(fname, "give the size either as {w, h} or as width = w, height = h, not both")
        end
        w = positive(fname, "[1] (width)", number(fname, "[1] (width)", t[1], REQUIRED))
        h = positive(fname, "[2] (height)", number(fname, "[2] (height)", t[2], REQUIRED))
    else
        w = positive(fname, "width", number(fname, "width", t.width, REQUIRED))
        h = positive(fname, "height", number(fname, "height", t.height, REQUIRED))
    end
    local o = vec(fname, "offset", t.offset, 2, "{x, y}", D.offset)
    local x0, x1, y0, y1 = o[1] - w / 2, o[1] + w / 2, o[2] - h / 2, o[2] + h / 2
    return shape_common(fname, t, {
        kind = "box", type = "polygon", width = w, height = h, offset = o,
        vertices = { { x0, y0 }, { x1, y0 }, { x1, y1 }, { x0, y1 } },
    })
end

function rc.polygon(t)
    local fname = "rc.polygon"
    check_table(fname, t, "rc.polygon{ vertices = {{0, 0}, {1, 0}, {0, 1}} }")
    check_keys(fname, t, { "vertices", "group", "name" })
    local vs = t.vertices
    if vs == nil then fail(fname, "'vertices' is required") end
    if type(vs) ~= "table" then fail(fname, "'vertices' must be a list of {x, y} points (got %s)", show(vs)) end
    local n = #vs
    for k in pairs(vs) do
        if not (mtype(k) == "integer" and k >= 1 and k <= n) then
            fail(fname, "'vertices' must be a list of {x, y} points (unexpected entry %s)", showkey(k))
        end
    end
    local v = {}   -- (the kernel checks their number, order and convexity)
    for i = 1, n do v[i] = vec(fname, fmt("vertices[%d]", i), vs[i], 2, "{x, y}") end
    return shape_common(fname, t, { kind = "polygon", type = "polygon", vertices = v })
end

function rc.point(t)
    local fname = "rc.point"
    check_table(fname, t, "rc.point{ 0.5, 0 }")
    check_keys(fname, t, { "offset", "group", "name" }, 2)
    local o
    if t[1] ~= nil or t[2] ~= nil then
        if t.offset ~= nil then fail(fname, "give the point either as {x, y} or as offset = {x, y}, not both") end
        o = vec(fname, "{x, y}", { t[1], t[2] }, 2, "{x, y}")
    else
        o = vec(fname, "offset", t.offset, 2, "{x, y}", D.offset)
    end
    return shape_common(fname, t, { kind = "point", type = "point", offset = o })
end

-- The inside of a circle as a wall of the ground (w:obstacle only): the bodies
-- move inside, the outside is solid; exact gap R - r - |c - centre|.
function rc.circle_inside(t)
    local fname = "rc.circle_inside"
    check_table(fname, t, "rc.circle_inside{ centre = {0, 0}, radius = 1 }")
    check_keys(fname, t, { "centre", "radius", "group", "name" })
    local c = vec(fname, "centre", t.centre, 2, "{x, y}", D.offset)
    local r = number(fname, "radius", t.radius, REQUIRED)   -- (> 0 and finite: checked by the kernel)
    return shape_common(fname, t, { kind = "circle_inside", type = "circle_inside", centre = c, radius = r })
end

-- Mass properties of planar shape descriptors at a density: mass, centre of
-- mass {cx, cy} and moment of inertia about it (body frame). Disks: m = rho pi
-- r^2, J = m r^2 / 2 about their centre; polygons from the vertex cross
-- products (the triangles (0, v_i, v_i+1): area, first and second moments;
-- exact for any simple counter-clockwise polygon); points carry nothing.
local function area_moments(d)
    if d.type == "disk" then
        local r, o = d.radius, d.offset
        local A = math.pi * r * r
        return A, A * o[1], A * o[2], A * (0.5 * r * r + o[1] * o[1] + o[2] * o[2])
    elseif d.type == "polygon" then
        local v, A, Sx, Sy, J = d.vertices, 0, 0, 0, 0
        for i = 1, #v do
            local a, b = v[i], v[i % #v + 1]
            local cr = a[1] * b[2] - b[1] * a[2]
            A = A + cr / 2
            Sx = Sx + cr * (a[1] + b[1]) / 6
            Sy = Sy + cr * (a[2] + b[2]) / 6
            J = J + cr * (a[1] * a[1] + a[1] * b[1] + b[1] * b[1] + a[2] * a[2] + a[2] * b[2] + b[2] * b[2]) / 12
        end
        return A, Sx, Sy, J
    end
    return 0, 0, 0, 0
end

function I.mass_properties(fname, density, shapes)
    if mtype(density) == nil or not (density > 0 and density < math.huge) then
        fail(fname, "'density' must be a finite number > 0 (got %s)", show(density))
    end
    local A, Sx, Sy, J = 0, 0, 0, 0
    for _, d in ipairs(shapes) do
        local a, sx, sy, j = area_moments(d)
        A, Sx, Sy, J = A + a, Sx + sx, Sy + sy, J + j
    end
    if not (A > 0) then fail(fname, "'density' needs shapes with an area (disks, boxes, polygons): these have none") end
    local cx, cy = Sx / A, Sy / A
    return density * A, { cx, cy }, density * (J - A * (cx * cx + cy * cy))
end

-- w:body{ density = rho, ... }: mass and inertia of its shapes, whose centre
-- of mass must be the body's origin (q is the centre of mass)
function I.body_mass_properties(fname, density, shapes)
    local m, c, J = I.mass_properties(fname, density, shapes)
    local size = 0
    for _, d in ipairs(shapes) do
        if d.type == "disk" then size = math.max(size, math.abs(d.offset[1]) + d.radius, math.abs(d.offset[2]) + d.radius)
        elseif d.type == "polygon" then
            for _, p in ipairs(d.vertices) do size = math.max(size, math.abs(p[1]), math.abs(p[2])) end
        end
    end
    if math.abs(c[1]) > 1e-12 * size or math.abs(c[2]) > 1e-12 * size then
        fail(fname, "the shapes' centre of mass is at (%.9g, %.9g) in the body frame, not at its origin (q is the "
             .. "centre of mass): move the shapes by (%.9g, %.9g) (offset = ..., rc.mass_properties gives it)",
             c[1], c[2], -c[1], -c[2])
    end
    return m, J
end

-- rc.mass_properties{ density = rho, shape = d | shapes = {...} } -> mass, {cx, cy}, inertia about {cx, cy}
function rc.mass_properties(t)
    local fname = "rc.mass_properties"
    check_table(fname, t, "rc.mass_properties{ density = 1000, shape = rc.box{ 1, 0.5 } }")
    check_keys(fname, t, { "density", "shape", "shapes" })
    local list = t.shapes
    if t.shape ~= nil then
        if list ~= nil then fail(fname, "give either 'shape' or 'shapes', not both") end
        list = { t.shape }
    end
    if type(list) ~= "table" or getmetatable(list) ~= nil or #list == 0 then
        fail(fname, "'shape' (a descriptor) or 'shapes' (a non-empty list of descriptors) is required")
    end
    for i, d in ipairs(list) do
        if getmetatable(d) ~= Shape then fail(fname, "'shapes[%d]' must be a shape descriptor (got %s)", i, show(d)) end
    end
    return I.mass_properties(fname, t.density, list)
end

I.Shape = Shape
