-- ricochet/beam.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- planar geometrically nonlinear Euler--Bernoulli beams (w:beam), their
-- points (body:beam_point) and energies (body:beam_energy). The kernel's
-- src/model/beam.c; theory: docs/theory/beam.md.

local I = require "ricochet.private"
local core, World, Body, Ground, new_body, world_core = I.core, I.World, I.Body, I.Ground, I.new_body, I.world_core
local type, rawget, getmetatable, setmetatable, tostring = type, rawget, getmetatable, setmetatable, tostring
local check = require "ricochet.check"
local fail, show, check_keys, check_table = check.fail, check.show, check.check_keys, check.check_table
local REQUIRED, number, integer, positive, opt_name, vec, boolean =
    check.REQUIRED, check.number, check.integer, check.positive, check.opt_name, check.vec, check.boolean

local BEAM_KEYS = { "name", "from", "to", "EA", "EI", "rho", "elements", "degree", "quadrature", "gravity", "velocity" }
local USAGE = "w:beam{ from = {0, 0}, to = {1, 0}, EA = 1e5, EI = 1, rho = 1 }"

local function int_in(fname, key, v, default, lo, hi)
    local i = integer(fname, key, v, default)
    if i < lo or i > hi then fail(fname, "'%s' must be an integer in %d..%d (got %s)", key, lo, hi, show(i)) end
    return i
end

function World:beam(t)
    local fname = "world:beam"
    I.check_self(fname, self, World, "a world")
    local cw = world_core(fname, self, true)
    check_table(fname, t, USAGE)
    check_keys(fname, t, BEAM_KEYS)
    local def = {
        name = opt_name(fname, "name", t.name),
        a = vec(fname, "from", t.from, 2, "{x, y}"),
        b = vec(fname, "to", t.to, 2, "{x, y}"),
        EA = positive(fname, "EA", number(fname, "EA", t.EA, REQUIRED)),
        EI = positive(fname, "EI", number(fname, "EI", t.EI, REQUIRED)),
        rho = positive(fname, "rho", number(fname, "rho", t.rho, REQUIRED)),
        elements = int_in(fname, "elements", t.elements, 4, 1, 1000),
        degree = int_in(fname, "degree", t.degree, 2, 2, 5),
        quadrature = int_in(fname, "quadrature", t.quadrature, 5, 1, 5),
        v0 = vec(fname, "velocity", t.velocity, 2, "{vx, vy}", { 0, 0 }),
    }
    if def.a[1] == def.b[1] and def.a[2] == def.b[2] then
        fail(fname, "'from' and 'to' must differ (the undeformed length is 0)")
    end
    if boolean(fname, "gravity", t.gravity, false) then def.gravity = { self.gravity[1], self.gravity[2] } end
    if def.name and self._by_name[def.name] then fail(fname, "a body named '%s' already exists", def.name) end
    local id, msg = core.beam_create(cw, def)
    if not id then fail(fname, "%s", msg) end
    local n = 2 * (def.elements + def.degree)
    local body = new_body(self, id, { name = def.name, kind = "linear", n = n }, true)
    if def.name then self._by_name[def.name] = body end
    body.beam = { from = def.a, to = def.b, elements = def.elements, degree = def.degree, EA = def.EA, EI = def.EI,
                  rho = def.rho, ncontrol = n // 2,
                  length = math.sqrt((def.b[1] - def.a[1]) ^ 2 + (def.b[2] - def.a[2]) ^ 2) }
    return body
end

local function beam_core(fname, b)
    I.check_self(fname, b, Body, "a body")
    if not rawget(b, "beam") then fail(fname, "expected a beam (w:beam), got %s", tostring(b)) end
    return world_core(fname, b.world)
end

-- The centreline's point r(xi) and tangent dr/dxi at xi in [0, 1]: x, y, dx, dy.
function Body:beam_point(xi)
    local fname = "body:beam_point"
    local c = beam_core(fname, self)
    xi = number(fname, "xi", xi, REQUIRED)
    if xi < 0 or xi > 1 then fail(fname, "'xi' must be in [0, 1] (got %s)", show(xi)) end
    local x, y, dx, dy = core.beam_point(c, self.id, xi)
    if not x then fail(fname, "%s", y) end
    return x, y, dx, dy
end

-- { kinetic = 1/2 v^T M v, elastic = E_el(q), gravity = -f_g . q }
function Body:beam_energy()
    local fname = "body:beam_energy"
    local c = beam_core(fname, self)
    local k, e, g = core.beam_energy(c, self.id)
    if not k then fail(fname, "%s", e) end
    return { kinetic = k, elastic = e, gravity = g }
end

------------------------------------------------------------------ beam joints

local BeamJoint = {}
BeamJoint.__index = BeamJoint
BeamJoint.__tostring = function(j) return ("ricochet.beam_joint %d%s"):format(j.id, j.name and (" '" .. j.name .. "'") or "") end

local function describe(x) return getmetatable(x) == Body and tostring(x) or show(x) end

local JOINT_KEYS = { "beam", "xi", "body", "point", "axis", "angle", "angle_rate", "name" }
local JOINT_USAGE = "w:beam_joint{ beam = leg, xi = 0, body = rod, point = {0.1, 0}, angle = function(t) return ... end }"

-- A bilateral constraint between beam's r(xi) and point of body (or w.ground);
-- angle: nil (a pin), a number (welded at that angle from body's axis to
-- r'(xi)), true (welded at the initial angle) or a function of t (driven).
function World:beam_joint(t)
    local fname = "world:beam_joint"
    I.check_self(fname, self, World, "a world")
    local cw = world_core(fname, self, true)
    check_table(fname, t, JOINT_USAGE)
    check_keys(fname, t, JOINT_KEYS)
    local beam = t.beam
    if getmetatable(beam) ~= Body or not rawget(beam, "beam") or rawget(beam, "world") ~= self then
        fail(fname, "'beam' must be a beam of this world (w:beam; got %s)", describe(beam))
    end
    local xi = number(fname, "xi", t.xi, 0)
    if xi < 0 or xi > 1 then fail(fname, "'xi' must be in [0, 1] (got %s)", show(xi)) end
    local body = t.body == nil and self.ground or t.body
    local mt = getmetatable(body)
    if not ((mt == Body and body.kind == "rigid2d") or mt == Ground) or rawget(body, "world") ~= self then
        fail(fname, "'body' must be a rigid body of this world or w.ground (got %s)", describe(body))
    end
    local def = { beam = beam.id, xi = xi, body = mt == Ground and core.GROUND or body.id,
                  point = vec(fname, "point", t.point, 2, "{x, y}", { 0, 0 }),
                  axis = vec(fname, "axis", t.axis, 2, "{x, y}", { 1, 0 }), name = opt_name(fname, "name", t.name) }
    if def.axis[1] == 0 and def.axis[2] == 0 then fail(fname, "'axis' must be a nonzero direction") end
    local a = t.angle
    if a ~= nil then
        def.angle = 1
        if type(a) == "number" then def.angle0 = number(fname, "angle", a)
        elseif type(a) == "function" then def.f = a
        elseif a ~= true then fail(fname, "'angle' must be a number, true (the initial angle) or a function of t (got %s)", show(a)) end
    end
    if t.angle_rate ~= nil then
        if type(a) ~= "function" then fail(fname, "'angle_rate' needs 'angle' as a function of t") end
        if type(t.angle_rate) ~= "function" then fail(fname, "'angle_rate' must be a function of t (got %s)", show(t.angle_rate)) end
        def.df = t.angle_rate
    end
    local id, msg = core.beam_joint_create(cw, def)
    if not id then fail(fname, "%s", msg) end
    return setmetatable({ id = id, name = def.name, world = self, rows = def.angle and 3 or 2 }, BeamJoint)
end

-- { g = {g1, g2[, g3]} at the current state, force = the last step's reaction (impulse rows, as joints) }
function BeamJoint:get()
    local fname = "beam_joint:get"
    if getmetatable(self) ~= BeamJoint then fail(fname, "expected a beam joint (w:beam_joint), got %s", show(self)) end
    local r, msg = core.beam_joint_get(world_core(fname, self.world), self.id)
    if not r then fail(fname, "%s", msg) end
    return r
end
