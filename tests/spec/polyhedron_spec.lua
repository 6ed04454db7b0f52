-- polyhedron_spec.lua -- convex polyhedra as shapes of dim = 3 worlds
-- (rc.polyhedron, collide/shape3_poly.c, collide/narrow3d_poly.c;
-- docs/theory/polyhedra.md, "Polyhedron shapes").
local rc = require "ricochet"

local g = 9.81

local function world(mu, plane)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
    w:plane(plane or {})
    return w
end
local function solver() return { "nsgs", tol = 1e-10, max_iter = 5000 } end
local function sim(w, h) return w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h or 1e-3, solver = solver() } end

local function corners(a, b, c)
    local p = {}
    for k = 0, 7 do
        p[#p + 1] = { (k & 1 > 0) and a or -a, (k & 2 > 0) and b or -b, (k & 4 > 0) and c or -c }
    end
    return p
end

-- the sorted gaps of the contacts after one step of h = 1e-9 (at q_0)
local function gaps(w)
    local s = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-9, solver = solver() }
    s:run{ T = 1e-9 }
    local r = {}
    for _, c in ipairs(w:contacts3()) do r[#r + 1] = c.gN end
    table.sort(r)
    return r
end

describe("polyhedron shapes", function()
    it("mass properties of a cube and a tetrahedron match the closed forms", function()
        local w = world(0)
        local a, rho = 0.3, 700
        local cube = w:body{ density = rho, shape = rc.polyhedron{ points = corners(a / 2, a / 2, a / 2) } }
        local m, J = cube:mass()
        assert.is_true(math.abs(m - rho * a ^ 3) < 1e-12 * m)
        for i = 1, 3 do assert.is_true(math.abs(J[i] - m * a * a / 6) < 1e-12 * J[i], tostring(J[i])) end
        -- the corner tetrahedron: V = 1/6, principal moments about the centroid 1/60 and 1/96 (twice)
        local tet = w:body{ density = 1, shape = rc.polyhedron{ points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } } }
        m, J = tet:mass()
        assert.is_true(math.abs(m - 1 / 6) < 1e-14)
        table.sort(J)
        assert.is_true(math.abs(J[1] - 1 / 96) < 1e-14 and math.abs(J[2] - 1 / 96) < 1e-14 and math.abs(J[3] - 1 / 60) < 1e-14)
    end)

    it("a polyhedron of a box's 8 corners gives the box's gaps against a plane and a box", function()
        local half = { 0.3, 0.2, 0.1 }
        local q = { 0.01, -0.02, 0.28, math.cos(0.2), 0.3 * math.sin(0.2), 0.2 * math.sin(0.2), 0.93 * math.sin(0.2) }
        local out = {}
        for k, shape in ipairs({ rc.box3(half), rc.polyhedron{ points = corners(half[1], half[2], half[3]) } }) do
            local w = world(0.5)
            w:body{ density = 1, box = { 0.4, 0.4, 0.1 }, shape = rc.box3{ 0.4, 0.4, 0.1 }, q = { 0, 0, 0.095, 1, 0, 0, 0 } }
            w:body{ mass = 1, inertia = { 1, 1, 1 }, shape = shape, q = q }
            out[k] = gaps(w)
        end
        print(("  box3 vs polyhedron box: %d and %d contacts"):format(#out[1], #out[2]))
        assert.are.equal(#out[1], #out[2])
        assert.is_true(#out[1] >= 5)   -- 4 box-plane, at least one box-box
        for i = 1, #out[1] do assert.is_true(math.abs(out[1][i] - out[2][i]) < 1e-12, ("%d: %.17g %.17g"):format(i, out[1][i], out[2][i])) end
    end)

    it("a tetrahedron resting on a face keeps 3 contacts, stays still for 1 s and carries m g h", function()
        local w = world(0.5)
        local tet = w:body{ density = 1000, shape = rc.polyhedron{ points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } },
                            q = { 0, 0, 0.25, 1, 0, 0, 0 } }
        local s = sim(w)
        s:run{ T = 0.5 }
        local ids = {}
        for _, c in ipairs(w:contacts3()) do ids[#ids + 1] = c.id end
        local kept = true
        s:after_step(function()
            local cs = w:contacts3()
            if #cs ~= #ids then kept = false return end
            for i, c in ipairs(cs) do if c.id ~= ids[i] then kept = false end end
        end)
        s:run{ T = 0.5 }
        assert.is_true(kept)   -- the 3 contact ids persist over the last 0.5 s
        local cs, P, m = w:contacts3(), 0, tet:mass()
        for _, c in ipairs(cs) do P = P + c.p[1] end
        local q, v, vmax = tet:q(), tet:v(), 0
        for i = 1, 6 do vmax = math.max(vmax, math.abs(v[i])) end
        print(("  tetrahedron at rest: %d contacts, sum P_N / (m g h) - 1 = %.2e, |v| %.2e, drift %.2e")
              :format(#cs, P / (m * g * 1e-3) - 1, vmax, math.abs(q[3] - 0.25)))
        assert.are.equal(3, #cs)
        assert.is_true(math.abs(P - m * g * 1e-3) < 1e-9 * m * g * 1e-3)
        assert.is_true(vmax < 1e-9 and math.abs(q[3] - 0.25) < 1e-9 and math.abs(q[1]) < 1e-9)
    end)

    it("a hexagonal prism on its face keeps 4 of the 6 vertices (by area) and rests", function()
        local pts = {}
        for k = 0, 5 do
            local a = math.pi / 3 * k
            pts[#pts + 1] = { 0.2 * math.cos(a), 0.2 * math.sin(a), -0.05 }
            pts[#pts + 1] = { 0.2 * math.cos(a), 0.2 * math.sin(a), 0.05 }
        end
        local w = world(0.5)
        local prism = w:body{ density = 1000, shape = rc.polyhedron{ points = pts }, q = { 0, 0, 0.05, 1, 0, 0, 0 } }
        sim(w):run{ T = 0.5 }
        local cs, P, m = w:contacts3(), 0, prism:mass()
        local cx, cy = 0, 0
        for _, c in ipairs(cs) do P = P + c.p[1]; cx = cx + c.pb[1]; cy = cy + c.pb[2] end
        local v, vmax = prism:v(), 0
        for i = 1, 6 do vmax = math.max(vmax, math.abs(v[i])) end
        print(("  hexagonal prism: %d contacts, sum P_N / (m g h) - 1 = %.2e, |v| %.2e"):format(#cs, P / (m * g * 1e-3) - 1, vmax))
        assert.are.equal(4, #cs)
        assert.is_true(math.abs(P - m * g * 1e-3) < 1e-9 * m * g * 1e-3 and vmax < 1e-9)
        -- the four kept span the face: two opposite vertices (0.4 apart) among them
        local far = 0
        for i = 1, 4 do for j = 1, 4 do
            far = math.max(far, math.sqrt((cs[i].pb[1] - cs[j].pb[1]) ^ 2 + (cs[i].pb[2] - cs[j].pb[2]) ^ 2))
        end end
        assert.is_true(math.abs(far - 0.4) < 1e-12, tostring(far))
    end)

    it("an irregular rock of 20 random points dropped on a plane comes to rest", function()
        local seed = 12345
        local function rnd() seed = (1103515245 * seed + 12345) % 2147483648; return seed / 2147483648 end
        local pts = {}
        for i = 1, 20 do pts[i] = { 0.2 * (rnd() - 0.5), 0.15 * (rnd() - 0.5), 0.1 * (rnd() - 0.5) } end
        local w = world(0.6)
        local rock = w:body{ density = 2500, shape = rc.polyhedron{ points = pts }, q = { 0, 0, 0.12, 1, 0, 0, 0 } }
        local s = sim(w, 1e-4)
        local pen = 0
        s:after_step(function() for _, c in ipairs(w:contacts3()) do pen = math.max(pen, -c.gN) end end)
        s:run{ T = 1.5 }
        local v, vmax, endpen = rock:v(), 0, 0
        for i = 1, 6 do vmax = math.max(vmax, math.abs(v[i])) end
        for _, c in ipairs(w:contacts3()) do endpen = math.max(endpen, -c.gN) end
        print(("  rock: %d contacts at rest, |v| %.2e, largest penetration %.2e (at the end %.2e)"):format(#w:contacts3(), vmax, pen, endpen))
        assert.is_true(#w:contacts3() >= 3)
        assert.is_true(vmax < 1e-8, tostring(vmax))
        assert.is_true(pen < 2e-4 and endpen < 2e-4, tostring(pen))
    end)

    for _, case in ipairs({ { mu = 0.7, stick = true }, { mu = 0.3, stick = false } }) do
        it(("a box on an incline of 30 degrees with mu = %.1f %s"):format(case.mu, case.stick and "sticks" or "slides with g (sin a - mu cos a)"), function()
            local al = math.pi / 6
            local n = { -math.sin(al), 0, math.cos(al) }
            local w = world(case.mu, { normal = n })
            local hz = 0.05
            local box = w:body{ density = 1000, shape = rc.polyhedron{ points = corners(0.1, 0.1, hz) },
                                q = { hz * n[1], hz * n[2], hz * n[3], math.cos(-al / 2), 0, math.sin(-al / 2), 0 } }
            local s = sim(w)
            s:run{ T = 0.5 }
            local v = box:v()
            local down = -(v[1] * math.cos(al) + v[3] * math.sin(al))
            local a = case.stick and 0 or g * (math.sin(al) - case.mu * math.cos(al))
            print(("  incline mu = %.1f: down-slope speed %.12f, expected %.12f"):format(case.mu, down, a * 0.5))
            assert.is_true(math.abs(down - a * 0.5) < 1e-8 * (1 + a), tostring(down))
        end)
    end

    it("a box slides down a static wedge (w:obstacle3 of a polyhedron) with g (sin a - mu cos a)", function()
        local al, mu = math.pi / 6, 0.3
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
        local t = math.tan(al)
        w:obstacle3{ point = { 0, 0, 0 }, shape = rc.polyhedron{ points = {
            { -1, -1, -1 }, { 1, -1, -1 }, { -1, 1, -1 }, { 1, 1, -1 }, { -1, -1, -t }, { 1, -1, t }, { -1, 1, -t }, { 1, 1, t } } } }
        local n, hz = { -math.sin(al), 0, math.cos(al) }, 0.05
        local box = w:body{ density = 1000, shape = rc.box3{ 0.1, 0.1, hz },
                            box = { 0.1, 0.1, hz }, q = { hz * n[1], 0, hz * n[3], math.cos(-al / 2), 0, math.sin(-al / 2), 0 } }
        sim(w):run{ T = 0.5 }
        local v = box:v()
        local down, a = -(v[1] * math.cos(al) + v[3] * math.sin(al)), g * (math.sin(al) - mu * math.cos(al))
        print(("  wedge: %d contacts, down-slope speed %.12f, expected %.12f"):format(#w:contacts3(), down, a * 0.5))
        assert.are.equal(4, #w:contacts3())
        -- (the clipped box-polyhedron points carry round-off asymmetries that
        -- let the box rock on a diagonal by ~3e-6: 3e-5 relative, where the
        -- symmetric box-plane case is exact to 1e-8)
        assert.is_true(math.abs(down - a * 0.5) < 1e-4 * a * 0.5, tostring(down))
    end)

    it("a density body's polyhedron is its points less the centroid, turned with the principal frame", function()
        local pts = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 0.9, 0.8, 0.7 } }
        local sh = rc.polyhedron{ points = pts }
        local c = sh.centroid
        local w = world(0)
        local z = c[3] - 1e-3   -- the face z = 0 of the points 1 mm into the plane
        w:body{ density = 1, shape = sh, q = { 0, 0, z, 1, 0, 0, 0 } }
        local gs = gaps(w)
        print(("  centred polyhedron: gaps %s"):format(table.concat(gs, ", ")))
        assert.are.equal(3, #gs)
        for i = 1, 3 do assert.is_true(math.abs(gs[i] + 1e-3) < 1e-12, tostring(gs[i])) end
    end)

    it("refuses bad points with messages naming the argument", function()
        local function msg(f) local ok, e = pcall(f); assert.is_false(ok); return e end
        assert.matches("'points' needs at least 4 points %(got 3%)", msg(function() rc.polyhedron{ points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } } } end))
        assert.matches("points%[2%]", msg(function() rc.polyhedron{ points = { { 0, 0, 0 }, { 1, "x", 0 }, { 0, 1, 0 }, { 0, 0, 1 } } } end))
        assert.matches("'points':.*plane", msg(function() rc.polyhedron{ points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 } } } end))
        local many = {}
        for i = 1, 80 do local t = 2 * math.pi * i / 80; many[i] = { math.cos(t), math.sin(t), (i % 2) * 0.5 } end
        assert.matches("'points':.*64", msg(function() rc.polyhedron{ points = many } end))
        assert.matches("'points' must be a list", msg(function() rc.polyhedron{ points = 3 } end))
    end)
end)
