-- fem_node_contact_spec.lua -- node-to-surface contacts of finite-element
-- bodies (docs/fem.md, w:fem_contact with segment = ... or rigid = body;
-- src/model/node_gap.c). The rows against finite differences of the gap are
-- in tests/c/test_node_gap.c.
local rc = require "ricochet"

-- A W x H block of nx x ny cells at (x0, y0), split along the / diagonals (rc.fem_rectangle).
local function grid(nx, ny, W, H, x0, y0)
    local m = rc.fem_rectangle{ width = W, height = H, nx = nx, ny = ny, origin = { x0, y0 } }
    return m.nodes, m.triangles, m.node_sets.bottom
end

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

-- a damped block pushed sideways on the floor y = 0, given as a surface
local function resting(surface, scheme)
    local nodes, tris, bottom = grid(4, 2, 1, 0.5, 0, 0)
    local w = rc.world{ gravity = { 0, -9.81 } }
    local b = w:fem{ nodes = nodes, triangles = tris, E = 1e4, nu = 0.3, rho = 1, rayleigh = { 5, 0 },
                     gravity = true, sets = { bottom = bottom } }
    local c = { b, nodes = "bottom", law = rc.moreau{ e = 0, mu = 0.3 } }
    for k, v in pairs(surface) do c[k] = v end
    w:fem_contact(c)
    local ix = b:dofs(15)
    b:set_force_fn(function() local f = {} for i = 1, b.n do f[i] = 0 end f[ix] = 0.5 return f end)
    local sim = w:simulation{ h = 1e-3, scheme = scheme }
    sim:run{ T = 0.5 }
    return b, sim
end

describe("w:fem_contact against a segment", function()
    for _, scheme in ipairs{ "moreau-jean", "moreau-jean-fremond" } do
        it("gives the half-plane's state and impulses on a horizontal segment (" .. scheme .. ")", function()
            local b1, s1 = resting({ halfplane = { point = { 0, 0 }, normal = { 0, 1 } } }, scheme)
            local b2, s2 = resting({ segment = { a = { -5, 0 }, b = { 5, 0 } } }, scheme)
            local q1, q2 = b1:q(), b2:q()
            for i = 1, #q1 do assert.is_true(math.abs(q1[i] - q2[i]) <= 1e-15, "q" .. i) end
            local c1, c2 = s1:contacts(), s2:contacts()
            assert.are.equal(5, #c1); assert.are.equal(5, #c2)
            local npos = 0
            for i = 1, 5 do
                assert.is_true(math.abs(c1[i].pN - c2[i].pN) <= 1e-15 and math.abs(c1[i].pT - c2[i].pT) <= 1e-15)
                if c2[i].pN > 1e-6 then npos = npos + 1 end
            end
            assert.is_true(npos >= 4)   -- the block rests: every bottom node pushes
        end)
    end

    it("gives the half-plane's state under gen-alpha too, the gaps held at zero", function()
        local b1 = resting({ halfplane = { point = { 0, 0 }, normal = { 0, 1 } }, law = rc.newton{ e = 0, mu = 0.3 } }, "gen-alpha")
        local b2, s2 = resting({ segment = { a = { -5, 0 }, b = { 5, 0 } }, law = rc.newton{ e = 0, mu = 0.3 } }, "gen-alpha")
        local q1, q2 = b1:q(), b2:q()
        for i = 1, #q1 do assert.is_true(math.abs(q1[i] - q2[i]) <= 1e-12, "q" .. i) end
        for _, k in ipairs(b2.sets.bottom) do
            assert.is_true(math.abs(b2:nodes(k)[2]) <= 1e-12, "node " .. k .. " at y = " .. b2:nodes(k)[2])
        end
        assert.are.equal(5, #s2:contacts())
    end)

    it("releases the nodes that slide off the segment's end", function()
        local nodes, tris, bottom = grid(4, 2, 1, 0.5, 0, 0)
        local w = rc.world{ gravity = { 0, -10 } }
        local b = w:fem{ nodes = nodes, triangles = tris, E = 1e4, nu = 0.3, rho = 1, rayleigh = { 2, 0 },
                         gravity = true, sets = { bottom = bottom } }
        local v = {}
        for i = 1, b.n do v[i] = i % 2 == 1 and 4 or 0 end
        b:set_state{ v = v }
        local gaps = w:fem_contact{ b, nodes = "bottom", segment = { a = { -1, 0 }, b = { 1.2, 0 } }, friction = false,
                                    law = rc.newton{ e = 0 }, name = "s" }
        assert.are.equal(5, #gaps)
        local sim = w:simulation{ h = 1e-3 }
        local early
        sim:run{ T = 0.1 }
        early = sim:contacts()
        local nact = 0
        for _, c in ipairs(early) do if c.pN > 0 then nact = nact + 1 end end
        assert.is_true(nact >= 4)   -- sliding on the segment, still inside its ends
        sim:run{ T = 0.3 }   -- half past the end: those nodes are released, the others push
        for k, c in ipairs(sim:contacts()) do
            local p = b:nodes(bottom[k])
            if p[1] > 1.2 then assert.is_true(c.gN > 0 and c.pN == 0) end
        end
        sim:run{ T = 0.8 }
        local cs = sim:contacts()
        assert.are.equal(5, #cs)
        for k, c in ipairs(cs) do
            local p = b:nodes(bottom[k])
            assert.is_true(p[1] > 1.2, "node " .. k .. " past the end")
            assert.is_true(c.gN > 0 and c.pN == 0, "released")
            -- past the end: the gap is the distance to the end point (g_N at q_k: one step, h |v| < 1e-2, behind)
            assert.is_true(math.abs(c.gN - math.sqrt((p[1] - 1.2) ^ 2 + p[2] ^ 2)) < 1e-2)
        end
    end)

    it("refuses bad surfaces with the argument named", function()
        local nodes, tris, bottom = grid(1, 1, 1, 1, 0, 0)
        local w = rc.world{}
        local b = w:fem{ nodes = nodes, triangles = tris, E = 1, nu = 0.3, rho = 1, sets = { bottom = bottom } }
        assert.are.equal("world:fem_contact: give exactly one surface: halfplane = { point = {0, 0}, normal = {0, 1} }, segment = { a = {0, 0}, b = {1, 0}, radius = 0 } or rigid = body (got 2)",
            error_of(w.fem_contact, w, { b, nodes = "bottom", halfplane = { point = { 0, 0 }, normal = { 0, 1 } },
                                         segment = { a = { 0, 0 }, b = { 1, 0 } } }))
        assert.are.equal("world:fem_contact: 'segment': the ends a and b coincide",
            error_of(w.fem_contact, w, { b, nodes = "bottom", segment = { a = { 0, 0 }, b = { 0, 0 } } }))
        assert.are.equal("world:fem_contact: 'segment.radius' must be >= 0 (got -1)",
            error_of(w.fem_contact, w, { b, nodes = "bottom", segment = { a = { 0, 0 }, b = { 1, 0 }, radius = -1 } }))
        assert.are.equal("world:fem_contact: 'rigid' must be a planar rigid body (got a linear body)",
            error_of(w.fem_contact, w, { b, nodes = "bottom", rigid = b }))
        local bare = w:body{ mass = 1, inertia = 1 }
        assert.are.equal("world:fem_contact: node contact 'n.1': the rigid body 1 has no disk or polygon",
            error_of(w.fem_contact, w, { b, nodes = "bottom", rigid = bare, name = "n" }))
    end)
end)

describe("w:fem_contact against a rigid body", function()
    -- a block falling on a free box, without gravity: the box takes the
    -- opposite impulse (the total momentum is kept) and the energy balance
    -- closes every step
    for _, scheme in ipairs{ "moreau-jean", "moreau-jean-fremond" } do
        it("exchanges momentum and closes the energy balance (" .. scheme .. ")", function()
            local nodes, tris, bottom = grid(4, 2, 1, 0.5, -0.3, 0.25)
            local def = { nodes = nodes, triangles = tris, E = 1e4, nu = 0.3, rho = 1, sets = { bottom = bottom } }
            local M = rc.fem_matrices(def).M
            local w = rc.world{}
            local box = w:body{ name = "box", mass = 2, inertia = 2 * (4 + 0.04) / 12, q = { 0, 0.1, 0 }, shape = rc.box{ 2, 0.2 } }
            local b = w:fem(def)
            local v = {}
            for i = 1, b.n do v[i] = i % 2 == 0 and -1 or 0.2 end
            b:set_state{ v = v }
            w:fem_contact{ b, nodes = "bottom", rigid = box, law = rc.moreau{ e = 0, mu = 0.3 } }
            local function momentum()
                local vb, P = b:v(), { 0, 0 }
                for i = 1, b.n do
                    local s = 0
                    for j = 1, b.n do s = s + M[j][i] * vb[j] end   -- (1_x, 1_y)^T M v
                    P[2 - i % 2] = P[2 - i % 2] + s
                end
                local bv = box:v()
                return { P[1] + 2 * bv[1], P[2] + 2 * bv[2] }, P
            end
            local P0, Pb0 = momentum()
            local sim = w:simulation{ h = 1e-3, scheme = scheme }
            sim:run{ T = 0.2 }
            local P1, Pb1 = momentum()
            local bv = box:v()
            assert.is_true(bv[2] < -0.1)                       -- the box was hit
            assert.is_true(math.abs(Pb1[2] - Pb0[2]) > 0.1)     -- and the block stopped in part
            assert.is_true(math.abs(P1[1] - P0[1]) < 1e-12 and math.abs(P1[2] - P0[2]) < 1e-12)
            local st = sim:stats()
            assert.is_true(st.max_abs_balance < 1e-12, "balance " .. st.max_abs_balance)
        end)
    end
end)
