-- ricochet/beam.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- planar geometrically nonlinear Euler--Bernoulli beams (w:beam), their
-- points (body:beam_point) and energies (body:beam_energy). The kernel's
-- src/model/beam.c; theory: docs/theory/beam.md.

local I = require "ricochet.private"
local core, World, Body, new_body, world_core = I.core, I.World, I.Body, I.new_body, I.world_core
local type, rawget = type, rawget
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
