-- fem_spec.lua -- finite-element bodies (docs/fem.md): w:fem, w:fem_contact,
-- rc.fem_matrices, rc.read_msh. The element itself (patch test, the column's
-- O(h^2) static error, the numbering) is tested in tests/c/test_fem.c.
local rc = require "ricochet"
local root = os.getenv("RICOCHET_ROOT") or "."

-- The message of fn(...) failing (fn must fail), without its position.
local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

-- A W x H rectangle of nx x ny cells split along their / diagonal; node
-- (i, j) (0-based) is j (nx + 1) + i + 1.
local function grid(nx, ny, W, H)
    local m = rc.fem_rectangle{ width = W, height = H, nx = nx, ny = ny }
    return m.nodes, m.triangles
end

local function write(text)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    return path
end

local TRI = { nodes = { { 0, 0 }, { 1, 0 }, { 0, 1 } }, triangles = { { 1, 2, 3 } }, E = 1, nu = 0.3, rho = 1 }
local function with(changes)
    local t = {}
    for k, v in pairs(TRI) do t[k] = v end
    for k, v in pairs(changes) do t[k] = v end
    return t
end

describe("w:fem", function()
    it("assembles M with the mass rho t A and K with rigid motions in its kernel", function()
        local nodes, tris = grid(3, 2, 2, 1.5)
        for _, mass in ipairs{ "consistent", "lumped" } do
            local m = rc.fem_matrices{ nodes = nodes, triangles = tris, E = 100, nu = 0.25, rho = 3, thickness = 0.2,
                                       mass = mass, gravity = true }
            local n, mx, fy = #m.M, 0, 0
            for i = 1, n, 2 do
                for j = 1, n, 2 do mx = mx + m.M[i][j] end
                fy = fy + m.f[i + 1]
            end
            assert.near(3 * 0.2 * 2 * 1.5, mx, 1e-12)               -- rho t W H
            assert.near(-9.81 * 3 * 0.2 * 2 * 1.5, fy, 1e-11)        -- its weight
            local r = 0                                              -- K (rotation) = 0
            for i = 1, n do
                local s = 0
                for k = 1, #nodes do
                    local p = m.perm[k]
                    s = s + m.K[i][2 * p - 1] * -nodes[k][2] + m.K[i][2 * p] * nodes[k][1]
                end
                r = math.max(r, math.abs(s))
            end
            assert.is_true(r < 1e-12)
        end
    end)

    it("renumbers the nodes (reverse Cuthill-McKee) and maps them back", function()
        local nodes, tris = grid(30, 2, 10, 1)
        local given = rc.fem_matrices{ nodes = nodes, triangles = tris, E = 1, nu = 0.3, rho = 1, renumber = false }
        local rcm = rc.fem_matrices{ nodes = nodes, triangles = tris, E = 1, nu = 0.3, rho = 1 }
        assert.are.equal(2 * 32 + 1, given.bandwidth)
        assert.is_true(rcm.bandwidth <= 2 * 4 + 1)
        local w = rc.world{}
        local b = w:fem{ nodes = nodes, triangles = tris, E = 1, nu = 0.3, rho = 1 }
        local q = {}
        for k = 1, #nodes do
            local ix, iy = b:dofs(k)
            q[ix], q[iy] = 0.01 * k, -0.02 * k
        end
        b:set_state{ q = q }
        local p = b:nodes()
        assert.near(nodes[17][1] + 0.17, p[17][1], 1e-15)
        assert.near(nodes[17][2] - 0.34, b:nodes(17)[2], 1e-15)
        assert.are.same({ 0.01 * 5, -0.02 * 5 }, b:displacements(5))
    end)

    -- A W x H plane-stress block (nu = 0) on a frictionless floor (one gap per
    -- bottom node), damped (C = 10 M), settles to u_y(y) = -rho g (H y - y^2/2)/E
    -- row by row: the mesh's corner loads bend it by O(h^2) (test_fem.c) but
    -- the mean of each row is the column's.
    it("settles a column under its weight on a frictionless floor", function()
        local nx, ny, W, H, E, rho, g = 4, 8, 1, 2, 200, 2, 9.81
        local nodes, tris = grid(nx, ny, W, H)
        local bottom = {}
        for i = 1, nx + 1 do bottom[i] = i end
        local w = rc.world{ gravity = { 0, -g } }
        local col = w:fem{ name = "col", nodes = nodes, triangles = tris, E = E, nu = 0, rho = rho, thickness = 0.5,
                           rayleigh = { 10, 0 }, gravity = true, sets = { bottom = bottom } }
        local gaps = w:fem_contact{ col, nodes = "bottom", halfplane = { point = { 0, 0 }, normal = { 0, 2 } },
                                    friction = false, name = "floor" }
        assert.are.equal(nx + 1, #gaps)
        assert.are.equal("floor.3", gaps[3].name)
        w:simulation{ h = 1e-2 }:run{ T = 5 }
        assert.is_true(col:energy().kinetic < 1e-10)
        for j = 0, ny do
            local mean = 0
            for i = 1, nx + 1 do mean = mean + col:displacements(j * (nx + 1) + i)[2] / (nx + 1) end
            local y = H * j / ny
            local exact = -rho * g * (H * y - y * y / 2) / E
            assert.is_true(math.abs(mean - exact) < 1e-3 * rho * g * H * H / (2 * E), ("row %d: %g vs %g"):format(j, mean, exact))
        end
    end)

    it("refuses bad input with the key and the element", function()
        local w = rc.world{}
        assert.are.equal("world:fem: fem body '(unnamed)': triangle 1 (nodes 1, 3, 2) is inverted: its nodes turn clockwise (signed area -0.5); list them counter-clockwise",
                         error_of(w.fem, w, with{ triangles = { { 1, 3, 2 } } }))
        assert.are.equal("world:fem: fem body 'flat': triangle 1 (nodes 1, 2, 3) is degenerate (area 0)",
                         error_of(w.fem, w, with{ name = "flat", nodes = { { 0, 0 }, { 1, 0 }, { 2, 0 } } }))
        assert.are.equal("world:fem: 'rho' is required",
                         error_of(w.fem, w, { nodes = TRI.nodes, triangles = TRI.triangles, E = 1, nu = 0.3 }))
        assert.are.equal("world:fem: 'nu' must be in (-1, 0.5) (got 0.5)", error_of(w.fem, w, with{ nu = 0.5 }))
        assert.are.equal("world:fem: 'E' must be > 0 (got -1)", error_of(w.fem, w, with{ E = -1 }))
        assert.are.equal("world:fem: 'triangles[1][3]' must be a node number in 1..3 (got 4)",
                         error_of(w.fem, w, with{ triangles = { { 1, 2, 4 } } }))
        assert.are.equal("world:fem: 'plane' must be one of \"stress\", \"strain\" (got 'flat')", error_of(w.fem, w, with{ plane = "flat" }))
        assert.are.equal("world:fem: 'gravity' must be true or false (true: the world's gravity as nodal forces; got 1)",
                         error_of(w.fem, w, with{ gravity = 1 }))
        assert.matches("world:fem: unknown key 'color'", error_of(w.fem, w, with{ color = 1 }), 1, true)
        local b = w:fem(TRI)
        local hp = { point = { 0, 0 }, normal = { 0, 1 } }
        assert.are.equal("world:fem_contact: 'nodes': the body has no node set 'top'",
                         error_of(w.fem_contact, w, { b, nodes = "top", halfplane = hp }))
        assert.are.equal("world:fem_contact: 'nodes[1]' must be a node number in 1..3 (got 4)",
                         error_of(w.fem_contact, w, { b, nodes = { 4 }, halfplane = hp }))
        assert.are.equal("world:fem_contact: 'halfplane.normal' must not be zero",
                         error_of(w.fem_contact, w, { b, nodes = { 1 }, halfplane = { point = { 0, 0 }, normal = { 0, 0 } } }))
        local rigid = w:body{ mass = 1, inertia = 1 }
        assert.matches("expected a finite-element body", error_of(w.fem_contact, w, { rigid, nodes = { 1 }, halfplane = hp }), 1, true)
    end)
end)

describe("rc.read_msh", function()
    local plate = root .. "/tests/data/fem/plate.msh"

    it("reads nodes, triangles and physical groups as node and edge sets", function()
        local m = rc.read_msh(plate)
        assert.are.same({ { 0, 0 }, { 1, 0 }, { 2, 0 }, { 0, 1 }, { 1, 1 }, { 2, 1 } }, m.nodes)
        assert.are.same({ { 1, 2, 5 }, { 1, 5, 4 }, { 2, 3, 6 }, { 2, 6, 5 } }, m.triangles)
        assert.are.same({ 1, 2, 3 }, m.node_sets.bottom)
        assert.are.same({ 1, 4 }, m.node_sets.left)
        assert.are.same({ 1, 2, 3, 4, 5, 6 }, m.node_sets.plate)
        assert.are.same({ { 1, 2 }, { 2, 3 } }, m.edge_sets.bottom)
        local w = rc.world{}
        local b = w:fem{ mesh = m, E = 1, nu = 0.3, rho = 1 }
        assert.are.same({ 1, 2, 3 }, b.sets.bottom)
        assert.are.equal(3, #w:fem_contact{ b, nodes = "bottom", halfplane = { point = { 0, 0 }, normal = { 0, 1 } } })
    end)

    local text = assert(io.open(plate)):read("a")
    local function err_of(t)
        local path = write(t)
        local e = error_of(rc.read_msh, path)
        os.remove(path)
        return (e:gsub(path:gsub("%p", "%%%0"), "F"))
    end

    it("refuses unknown element types, undefined nodes, missing sections, with the line", function()
        assert.are.equal("rc.read_msh: F:40: element type 9 (6-node triangle) is not supported: only 3-node triangles (2), 2-node lines (1) and points (15)",
                         err_of(text:gsub("\n2 1 2 4\n", "\n2 1 9 4\n")))
        assert.are.equal("rc.read_msh: F:41: element refers to node 7, which $Nodes does not define",
                         err_of(text:gsub("\n4 1 2 5\n", "\n4 1 2 7\n")))
        assert.are.equal("rc.read_msh: F:42: triangle (nodes 1, 4, 5) is inverted: its nodes turn clockwise (signed area -0.5)",
                         err_of(text:gsub("\n5 1 5 4\n", "\n5 1 4 5\n")))
        assert.are.equal("rc.read_msh: F:2: MSH version 2.2 is not supported (4.1 is; in Gmsh: -format msh41)",
                         err_of(text:gsub("4.1 0 8", "2.2 0 8")))
        assert.are.equal("rc.read_msh: F:32: the section $Elements is missing", err_of(text:gsub("%$Elements.*", "")))
        assert.are.equal("rc.read_msh: F:45: $EndElements is missing", err_of(text:gsub("%$EndElements\n", "")))
        assert.matches("rc.read_msh: cannot open 'no/such.msh'", error_of(rc.read_msh, "no/such.msh"), 1, true)
        assert.are.equal("rc.read_msh: F:36: line (nodes 1, 6) is not a side of a triangle",
                         err_of(text:gsub("\n1 1 2\n2 2 3\n", "\n1 1 6\n2 2 3\n")))
    end)

    it("gives its edge sets to w:fem (body.edge_sets), for tractions", function()
        local w = rc.world{}
        local b = w:fem{ mesh = rc.read_msh(plate), E = 1, nu = 0.3, rho = 1, thickness = 0.25 }
        assert.are.same({ { 1, 4 } }, b.edge_sets.left)
        b:traction{ set = "bottom", t = { 0, -8 } }   -- the bottom: 2 long
        local F = b:traction_forces(0)
        assert.are.same({ { 0, -1 }, { 0, -2 }, { 0, -1 }, { 0, 0 }, { 0, 0 }, { 0, 0 } }, F)
    end)
end)

describe("body:traction", function()
    -- a 4 x 2 plate, 8 x 3 cells, thickness 0.5, its left edge (x = 0) as an edge set
    local nx, ny, W, H, th = 8, 3, 4, 2, 0.5
    local nodes, tris = grid(nx, ny, W, H)
    local left, right = {}, {}
    for j = 0, ny - 1 do
        left[#left + 1] = { j * (nx + 1) + 1, (j + 1) * (nx + 1) + 1 }
        right[#right + 1] = { (j + 1) * (nx + 1), (j + 2) * (nx + 1) }
    end
    local function def(extra)
        local d = { name = "plate", nodes = nodes, triangles = tris, E = 100, nu = 0.3, rho = 2, thickness = th,
                    edge_sets = { left = left, right = right } }
        for k, v in pairs(extra or {}) do d[k] = v end
        return d
    end

    it("gives a resultant t x edge length x thickness, exactly", function()
        local w = rc.world{}
        local b = w:fem(def())
        b:traction{ set = "left", t = { -3, 0.75 } }
        local sx, sy, n = 0, 0, 0
        for _, f in ipairs(b:traction_forces(0)) do
            sx, sy = sx + f[1], sy + f[2]
            if f[1] ~= 0 then n = n + 1 end
        end
        assert.are.equal(-3 * H * th, sx)
        assert.are.equal(0.75 * H * th, sy)
        assert.are.equal(ny + 1, n)   -- the nodes of the left edge only
    end)

    it("acts in the step: a free plate's momentum grows by the resultant times t (and a function of t)", function()
        local w = rc.world{}
        local b = w:fem(def())
        b:traction{ set = "left", t = { -3, 0 } }
        b:traction{ set = "right", t = function(t) return 0, 2 * t end }   -- at t_{k+theta}: exact for a linear t
        local called = 0
        b:set_force_fn(function(t, q) called = called + 1; local f = {}; for i = 1, #q do f[i] = 0 end; return f end)
        w:simulation{ h = 1e-2 }:run{ T = 0.5 }
        local d = def()
        d.name = nil
        local M = rc.fem_matrices(d).M
        local v = b:v()
        local px, py = 0, 0
        for i = 1, #v do
            for j = 1, #v, 2 do px, py = px + M[j][i] * v[i], py + M[j + 1][i] * v[i] end
        end
        assert.is_true(math.abs(px - (-3 * H * th * 0.5)) < 1e-12, "px " .. px)
        assert.is_true(math.abs(py - (H * th * 0.5 * 0.5)) < 1e-12, "py " .. py)   -- integral of 2 t H th: H th T^2
        assert.are.equal(50, called)   -- the Lua force function is still called
    end)

    it("pulls a bar prescribed at its other end to the elongation sigma L / E (static), exactly", function()
        if not (rc.Body.prescribe and rc.Body.solve_static) then
            pending("needs body:prescribe and body:solve_static")
            return
        end
        -- uniaxial stress sigma along x: u_x = sigma x / E, u_y = -nu sigma y / E, linear, so
        -- reproduced exactly by T3 elements on any mesh (the patch test)
        local w = rc.world{}
        local b = w:fem(def())
        local E, nu, sigma = 100, 0.3, 1.5
        local lnodes = {}
        for j = 0, ny do lnodes[#lnodes + 1] = j * (nx + 1) + 1 end
        b:prescribe{ nodes = lnodes, ux = 0 }
        b:prescribe{ nodes = { 1 }, uy = 0 }
        b:traction{ set = "right", t = { sigma, 0 } }
        b:solve_static{ t = 0 }
        local worst = 0
        for k, X in ipairs(nodes) do
            local u = b:displacements(k)
            worst = math.max(worst, math.abs(u[1] - sigma * X[1] / E), math.abs(u[2] + nu * sigma * X[2] / E))
        end
        assert.is_true(worst <= 1e-12 * sigma * W / E, "largest error " .. worst)
        local R, Rc = 0, b:reactions()   -- the reactions balance the traction's resultant
        for k = 1, #nodes do R = R + Rc[(b:dofs(k))] end
        assert.is_true(math.abs(R + sigma * H * th) <= 1e-10 * sigma * H * th, "reaction " .. R)
    end)

    it("checks its arguments", function()
        local w = rc.world{}
        local b = w:fem(def())
        assert.are.equal("body:traction: unknown key 'tt' (did you mean 't'?)", error_of(b.traction, b, { set = "left", tt = { 1, 0 } }))
        assert.are.equal("body:traction: 'set': the body has no edge set 'top' (edge sets: left, right)",
                         error_of(b.traction, b, { set = "top", t = { 1, 0 } }))
        assert.are.equal("body:traction: 'set' must be the name of an edge set (got 1)", error_of(b.traction, b, { set = 1, t = { 1, 0 } }))
        assert.are.equal("body:traction: 't' is required: {tx, ty} or a function of time returning tx, ty",
                         error_of(b.traction, b, { set = "left" }))
        assert.matches("body:traction: 't' must be", error_of(b.traction, b, { set = "left", t = { 1 } }), 1, true)
        assert.matches("expected a finite-element body", error_of(b.traction, w:body{ mass = 1, inertia = 1 }, { set = "left", t = { 1, 0 } }), 1, true)
        assert.are.equal("world:fem: 'edge_sets.left[1]' = {1, 12} is not a side of a triangle",
                         error_of(w.fem, w, def{ name = "p2", edge_sets = { left = { { 1, 12 } } } }))
        assert.are.equal("world:fem: 'edge_sets.left[2][2]' must be a node number in 1..36 (got 99)",
                         error_of(w.fem, w, def{ name = "p3", edge_sets = { left = { { 1, 10 }, { 10, 99 } } } }))
        b:traction{ set = "left", t = function() return "x", 0 end }
        assert.are.equal("sim:run: force function of body 0 (plate) at t = 0.0050000000000000001: traction on 'left': the function of t returned string as tx (a finite number is required)",
                         error_of(function() w:simulation{ h = 1e-2 }:run{ T = 0.1 } end))
    end)
end)
