-- density_spec.lua -- planar bodies' mass and inertia from a density and their
-- shapes (w:body{ density = rho, shape(s) }, rc.mass_properties): closed forms
-- of disks, boxes, triangles and composites (parallel axes), the centre of
-- mass that must be the body's origin, the errors, and a body resting on the
-- floor under its own weight (docs/lua-api.md, "w:body").
local rc = require "ricochet"
local S = require "spec_helper"
local has = S.has

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return tostring(err)
end
local function rel(a, b) return math.abs(a - b) / math.abs(b) end

describe("mass properties from a density (planar)", function()
  it("gives the closed forms of a disk, a box and an equilateral triangle", function()
    local w = rc.world{}
    local d = w:body{ density = 1000, shape = rc.disk{ radius = 0.1 } }
    local m, J = d:mass()
    assert.is_true(rel(m, 1000 * math.pi * 0.01) < 1e-15)
    assert.is_true(rel(J, m * 0.01 / 2) < 1e-15)
    local b = w:body{ density = 2, shape = rc.box{ 2, 1 } }
    m, J = b:mass()
    assert.is_true(rel(m, 4) < 1e-15 and rel(J, 4 * (4 + 1) / 12) < 1e-15)
    -- side a, centroid at the origin: A = sqrt(3)/4 a^2, J = m a^2 / 12
    local a = 0.3
    local hgt = math.sqrt(3) / 2 * a
    local tri = rc.polygon{ vertices = { { -a / 2, -hgt / 3 }, { a / 2, -hgt / 3 }, { 0, 2 * hgt / 3 } } }
    m, J = w:body{ density = 7850, shape = tri }:mass()
    assert.is_true(rel(m, 7850 * math.sqrt(3) / 4 * a * a) < 1e-14)
    assert.is_true(rel(J, m * a * a / 12) < 1e-14)
  end)

  it("adds shapes by parallel axes: two disks at +-d, a box with a disk on each end", function()
    local w = rc.world{}
    local r, dd, rho = 0.05, 0.2, 3
    local m, J = w:body{ density = rho, shapes = { rc.disk{ radius = r, offset = { -dd, 0 } },
                                                     rc.disk{ radius = r, offset = { dd, 0 } } } }:mass()
    local m1 = rho * math.pi * r * r
    assert.is_true(rel(m, 2 * m1) < 1e-15 and rel(J, 2 * (m1 * r * r / 2 + m1 * dd * dd)) < 1e-14)
    -- a dumbbell: a 0.4 x 0.02 bar and two disks
    m, J = w:body{ density = rho, shapes = { rc.box{ 0.4, 0.02 }, rc.disk{ radius = r, offset = { -dd, 0 } },
                                              rc.disk{ radius = r, offset = { dd, 0 } } } }:mass()
    local mb = rho * 0.4 * 0.02
    assert.is_true(rel(m, mb + 2 * m1) < 1e-15)
    assert.is_true(rel(J, mb * (0.16 + 0.0004) / 12 + 2 * (m1 * r * r / 2 + m1 * dd * dd)) < 1e-14)
  end)

  it("refuses shapes whose centre of mass is off the origin, and rc.mass_properties says where it is", function()
    local w = rc.world{}
    local shapes = { rc.box{ width = 1, height = 0.2, offset = { 0, 0 } }, rc.box{ width = 0.2, height = 1, offset = { 0.4, 0.6 } } }
    local m, c, J = rc.mass_properties{ density = 1, shapes = shapes }
    assert.is_true(rel(m, 0.4) < 1e-15)
    assert.is_near(0.2, c[1], 1e-15)   -- (0.2 * 0 + 0.2 * 0.4) / 0.4
    assert.is_near(0.3, c[2], 1e-15)   -- (0.2 * 0 + 0.2 * 0.6) / 0.4
    local err = error_of(w.body, w, { density = 1, shapes = shapes })
    has("world:body: the shapes' centre of mass is at (0.2", err)
    has("move the shapes by (-0.2", err)
    -- the same L moved by -c: accepted, with the inertia rc.mass_properties gave about c
    local moved = { rc.box{ width = 1, height = 0.2, offset = { -c[1], -c[2] } },
                    rc.box{ width = 0.2, height = 1, offset = { 0.4 - c[1], 0.6 - c[2] } } }
    local m2, J2 = w:body{ density = 1, shapes = moved }:mass()
    assert.is_true(rel(m2, m) < 1e-15 and rel(J2, J) < 1e-12)
    -- J about c: each box's own plus its parallel-axis term
    local Jref = 0.2 * (1 + 0.04) / 12 + 0.2 * (0.04 + 0.09) + 0.2 * (0.04 + 1) / 12 + 0.2 * (0.04 + 0.09)
    assert.is_true(rel(J, Jref) < 1e-12)
  end)

  it("names the argument when density is wrong or combined with mass", function()
    local w = rc.world{}
    has("give either 'density' or 'mass' and 'inertia', not both",
        error_of(w.body, w, { density = 1, mass = 1, shape = rc.disk{ 0.1 } }))
    has("'density' must be a finite number > 0 (got -1)", error_of(w.body, w, { density = -1, shape = rc.disk{ 0.1 } }))
    has("'density' must be a finite number > 0 (got 'x')", error_of(w.body, w, { density = "x", shape = rc.disk{ 0.1 } }))
    has("'density' needs shapes with an area", error_of(w.body, w, { density = 1, shape = rc.point{ 0, 0 } }))
    has("'density' needs shapes with an area", error_of(w.body, w, { density = 1 }))
    has("rc.mass_properties: unknown key", error_of(rc.mass_properties, { density = 1, shape = rc.disk{ 0.1 }, mass = 1 }))
    has("'shape' (a descriptor) or 'shapes'", error_of(rc.mass_properties, { density = 1 }))
  end)

  it("a box of density rho rests on the floor with P_N = rho A g h", function()
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{}
    local b = w:body{ density = 500, q = { 0, 0.1, 0 }, shape = rc.box{ 0.4, 0.2 } }
    local sim = w:simulation{ h = 1e-3, solver = { tol = 1e-12, max_iter = 1000 } }
    sim:run{ T = 0.2 }
    local pN = 0
    for _, c in ipairs(sim:contacts()) do pN = pN + c.pN end
    assert.is_true(rel(pN, 500 * 0.08 * 9.81 * 1e-3) < 1e-9)
    assert.is_near(0.1, b:q()[2], 1e-9)
  end)
end)
