-- beam_spec.lua -- nonlinear beams in Lua (docs/theory/beam.md): w:beam's
-- argument checks, body:beam_point / body:beam_energy, and a beam falling
-- under gravity under the frictional generalized-alpha scheme as a rigid body
-- (a uniform field strains nothing). The element (tangent, cantilever,
-- elastica, momentum and energy) is tested in tests/c/test_beam.c.
local rc = require "ricochet"

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

local LEG = { from = { 0, 0 }, to = { 0.2, 0 }, EA = 1.89e7, EI = 14.2, rho = 0.71 }
local function with(changes)
    local t = {}
    for k, v in pairs(LEG) do t[k] = v end
    for k, v in pairs(changes) do t[k] = v end
    return t
end

describe("w:beam", function()
    it("refuses bad arguments, naming them", function()
        local w = rc.world{}
        assert.equal("world:beam: expected a table argument, e.g. w:beam{ from = {0, 0}, to = {1, 0}, EA = 1e5, EI = 1, rho = 1 } (got 3)",
                     error_of(w.beam, w, 3))
        assert.equal("world:beam: unknown key 'elemnts' (did you mean 'elements'?)", error_of(w.beam, w, with{ elemnts = 2 }))
        assert.equal("world:beam: 'EA' is required", error_of(w.beam, w, { from = { 0, 0 }, to = { 1, 0 }, EI = 1, rho = 1 }))
        assert.equal("world:beam: 'EI' must be > 0 (got -1)", error_of(w.beam, w, with{ EI = -1 }))
        assert.equal("world:beam: 'rho' must be a number (got 'x')", error_of(w.beam, w, with{ rho = "x" }))
        assert.equal("world:beam: 'degree' must be an integer in 2..5 (got 1)", error_of(w.beam, w, with{ degree = 1 }))
        assert.equal("world:beam: 'elements' must be an integer (got 1.5)", error_of(w.beam, w, with{ elements = 1.5 }))
        assert.equal("world:beam: 'quadrature' must be an integer in 1..5 (got 9)", error_of(w.beam, w, with{ quadrature = 9 }))
        assert.equal("world:beam: 'from' and 'to' must differ (the undeformed length is 0)", error_of(w.beam, w, with{ to = { 0, 0 } }))
        assert.equal("world:beam: 'to[2]' must be a number (got 'a')", error_of(w.beam, w, with{ to = { 1, "a" } }))
        assert.equal("world:beam: 'gravity' must be true or false (got 1)", error_of(w.beam, w, with{ gravity = 1 }))
        assert.equal("world:beam: 'velocity' must be a table of 2 numbers {vx, vy} (got 1)", error_of(w.beam, w, with{ velocity = 1 }))
        local b = w:beam(with{ name = "leg" })
        assert.equal("world:beam: a body named 'leg' already exists", error_of(w.beam, w, with{ name = "leg" }))
        assert.equal("body:beam_point: 'xi' must be in [0, 1] (got 2)", error_of(b.beam_point, b, 2))
        local r = w:body{ mass = 1, inertia = 1 }
        assert.truthy(error_of(r.beam_point, r, 0.5):find("expected a beam", 1, true))
    end)

    it("is a straight line between its ends with the paper's leg's mass", function()
        local w = rc.world{}
        local b = w:beam(with{ elements = 2, degree = 2 })
        assert.equal(8, b.n)   -- 2 (elements + degree)
        local x, y, dx, dy = b:beam_point(0.25)
        assert.near(0.05, x, 1e-15); assert.near(0, y, 1e-15)
        assert.near(0.2, dx, 1e-15); assert.near(0, dy, 1e-15)
        b:set_state{ v = { 1, 0, 1, 0, 1, 0, 1, 0 } }
        assert.near(0.5 * 0.71 * 0.2, b:beam_energy().kinetic, 1e-15)   -- 1/2 rho L v^2
        assert.equal(0, b:beam_energy().elastic)
    end)

    it("takes a force function beside its internal force (a body kind of its own)", function()
        local w = rc.world{}
        local b = w:beam(with{ from = { 0, 0 }, to = { 1, 0 }, EA = 400, EI = 1, rho = 1, elements = 2 })
        -- a pull of 2 along x on r(1) (the last control point): the beam follows as a whole
        b:set_force_fn(function() return { 0, 0, 0, 0, 0, 0, 2, 0 } end)
        local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3 }
        sim:run{ T = 0.2 }
        local x0 = b:beam_point(0)
        local x1 = b:beam_point(1)
        assert.is_true(math.abs(x1 - x0 - 1) < 0.01)   -- stretched by about F / (2 EA); without stiffness r(1) would run off
        assert.is_true(x0 > 0.03 and x0 < 0.05)         -- the far end moved with the centre of mass, 1/2 (F / rho L) t^2 = 0.04
        assert.is_true(b:beam_energy().elastic > 0)
    end)

    it("falls as a rigid body under gravity (gen-alpha, capobianco2021)", function()
        local w = rc.world{ gravity = { 0, -9.81 } }
        local b = w:beam(with{ from = { 0, 1 }, to = { 0.2, 1 }, gravity = true, velocity = { 0.5, 0 } })
        local sim = w:simulation{ scheme = "gen-alpha", variant = "capobianco2021", rho_inf = 0, h = 5e-5 }
        sim:run{ T = 0.02 }
        local t = sim.t
        for _, xi in ipairs{ 0, 0.5, 1 } do
            local x, y = b:beam_point(xi)
            assert.near(0.2 * xi + 0.5 * t, x, 1e-12)
            assert.near(1 - 9.81 * t * t / 2, y, 1e-9)
        end
        assert.is_true(b:beam_energy().elastic < 1e-20)
        assert.near(0.71 * 0.2 * 9.81 * (1 - 9.81 * t * t / 2), b:beam_energy().gravity, 1e-9)
    end)

    it("w:beam_joint checks its arguments, and only gen-alpha (capobianco2021) takes it", function()
        local w = rc.world{}
        local leg = w:beam(with{})
        local rod = w:body{ mass = 1, inertia = 1 }
        assert.equal("world:beam_joint: 'beam' must be a beam of this world (w:beam; got 3)", error_of(w.beam_joint, w, { beam = 3 }))
        assert.equal("world:beam_joint: 'beam' must be a beam of this world (w:beam; got ricochet.body 1)",
                     error_of(w.beam_joint, w, { beam = rod }))
        assert.equal("world:beam_joint: unknown key 'angles' (did you mean 'angle'?)", error_of(w.beam_joint, w, { beam = leg, angles = 1 }))
        assert.equal("world:beam_joint: 'xi' must be in [0, 1] (got 2)", error_of(w.beam_joint, w, { beam = leg, xi = 2 }))
        assert.equal("world:beam_joint: 'body' must be a rigid body of this world or w.ground (got ricochet.body 0 (linear, n = 12))",
                     error_of(w.beam_joint, w, { beam = leg, body = leg }))
        assert.equal("world:beam_joint: 'angle' must be a number, true (the initial angle) or a function of t (got 'x')",
                     error_of(w.beam_joint, w, { beam = leg, angle = "x" }))
        assert.equal("world:beam_joint: 'angle_rate' needs 'angle' as a function of t",
                     error_of(w.beam_joint, w, { beam = leg, angle = 1, angle_rate = function() return 0 end }))
        assert.equal("world:beam_joint: 'axis' must be a nonzero direction", error_of(w.beam_joint, w, { beam = leg, axis = { 0, 0 } }))
        local j = w:beam_joint{ beam = leg, xi = 0, body = rod, point = { 0, 0 }, angle = true, name = "knee" }
        assert.same({ 0, 0, 0 }, j:get().g)
        assert.equal(3, j.rows)
        local msg = error_of(w.simulation, w, { scheme = "moreau-jean", h = 1e-3 })
        assert.truthy(msg:find("beam joints (rc_beam_joint_create) are integrated by gen-alpha, variant \"capobianco2021\", only", 1, true))
    end)

    it("a pinned flexible pendulum restarts from a checkpoint bit for bit", function()
        local w = rc.world{ gravity = { 0, -9.81 } }
        local beam = w:beam{ from = { 0, 0 }, to = { 0.2, 0 }, EA = 1e5, EI = 2, rho = 0.71, elements = 2, gravity = true }
        local pin = w:beam_joint{ beam = beam, xi = 0, point = { 0, 0 }, name = "pin" }
        local sim = w:simulation{ scheme = "gen-alpha", variant = "capobianco2021", rho_inf = 0.5, h = 1e-4 }
        local path = os.tmpname()
        sim:run{ T = 0.05 }
        sim:save(path)
        sim:run{ T = 0.05 }
        local a = beam:q()
        sim:restore(path)
        sim:run{ T = 0.05 }
        os.remove(path)
        assert.same(a, beam:q())
        local g = pin:get().g
        assert.is_true(math.abs(g[1]) + math.abs(g[2]) < 1e-14)
        local x, y = beam:beam_point(1)
        assert.is_true(y < -0.01)   -- it swings down
    end)
end)
