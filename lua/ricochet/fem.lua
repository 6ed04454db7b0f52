-- ricochet/fem.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- finite-element bodies from a triangle mesh (w:fem), node-to-half-plane
-- contacts (w:fem_contact). The element assembly is the kernel's
-- (src/model/fem_t3.c); reference: docs/fem.md.

local I = require "ricochet.private"
local core, rc, World, Body, new_body, world_core = I.core, I.rc, I.World, I.Body, I.new_body, I.world_core
local type, pairs, ipairs, getmetatable, rawget, setmetatable, tostring = type, pairs, ipairs, getmetatable, rawget, setmetatable, tostring
local mtype, fmt, sqrt = math.type, string.format, math.sqrt
local check = require "ricochet.check"
local fail, isfinite, show, showkey, check_keys, check_table = check.fail, check.isfinite, check.show, check.showkey, check.check_keys, check.check_table
local REQUIRED, number, positive, opt_name, option, vec = check.REQUIRED, check.number, check.positive, check.opt_name, check.option, check.vec

-- A list (keys 1..#t only) of at least `min` entries.
local function list(fname, key, t, min, what)
    if type(t) ~= "table" then fail(fname, "'%s' must be a list of %s (got %s)", key, what, show(t)) end
    local n = #t
    for k in pairs(t) do
        if not (mtype(k) == "integer" and k >= 1 and k <= n) then
            fail(fname, "'%s' must be a list of %s (unexpected entry %s)", key, what, showkey(k))
        end
    end
    if n < min then fail(fname, "'%s' must have at least %d entries (got %d)", key, min, n) end
    return n
end

local function node_index(fname, key, k, nn)
    if mtype(k) ~= "integer" then
        k = type(k) == "number" and math.tointeger(k) or nil
        if not k then fail(fname, "'%s' must be a node number (an integer)", key) end
    end
    if k < 1 or k > nn then fail(fname, "'%s' must be a node number in 1..%d (got %d)", key, nn, k) end
    return k
end

-- Node sets: { name = {k, ...} } (node numbers 1..nn).
local function node_sets(fname, sets, nn)
    local r = {}
    if sets == nil then return r end
    if type(sets) ~= "table" then fail(fname, "'sets' must be a table { name = {node, ...} } (got %s)", show(sets)) end
    for name, s in pairs(sets) do
        if type(name) ~= "string" then fail(fname, "'sets' keys must be names (got %s)", showkey(name)) end
        local n = list(fname, "sets." .. name, s, 1, "node numbers")
        local c = {}
        for i = 1, n do c[i] = node_index(fname, fmt("sets.%s[%d]", name, i), s[i], nn) end
        r[name] = c
    end
    return r
end

-- Edge sets: { name = { {i, j}, ... } } (node numbers 1..nn), every edge a
-- side of a triangle (the sides of tris, a set of "i:j" with i < j).
local function edge_sets(fname, sets, nn, sides)
    local r = {}
    if sets == nil then return r end
    if type(sets) ~= "table" then fail(fname, "'edge_sets' must be a table { name = { {i, j}, ... } } (got %s)", show(sets)) end
    for name, s in pairs(sets) do
        if type(name) ~= "string" then fail(fname, "'edge_sets' keys must be names (got %s)", showkey(name)) end
        local n = list(fname, "edge_sets." .. name, s, 1, "edges {i, j}")
        local c = {}
        for e = 1, n do
            local key = fmt("edge_sets.%s[%d]", name, e)
            local ed = s[e]
            if type(ed) ~= "table" or #ed ~= 2 then fail(fname, "'%s' must be 2 node numbers {i, j} (got %s)", key, show(ed)) end
            local i, j = node_index(fname, key .. "[1]", ed[1], nn), node_index(fname, key .. "[2]", ed[2], nn)
            if not sides[i < j and (i .. ":" .. j) or (j .. ":" .. i)] then
                fail(fname, "'%s' = {%d, %d} is not a side of a triangle", key, i, j)
            end
            c[e] = { i, j }
        end
        r[name] = c
    end
    return r
end

local function triangle_sides(tri)
    local sides = {}
    for e = 0, #tri // 3 - 1 do
        for a = 1, 3 do
            local i, j = tri[3 * e + a] + 1, tri[3 * e + a % 3 + 1] + 1
            sides[i < j and (i .. ":" .. j) or (j .. ":" .. i)] = true
        end
    end
    return sides
end

local FEM_KEYS = { "name", "nodes", "triangles", "mesh", "E", "nu", "rho", "thickness", "plane", "mass",
                   "rayleigh", "gravity", "sets", "edge_sets", "renumber" }
local USAGE = "w:fem{ nodes = {{0, 0}, {1, 0}, {0, 1}}, triangles = {{1, 2, 3}}, E = 1e3, nu = 0.3, rho = 1 }"

-- The kernel's definition from the keys of w:fem (and the node sets).
local function fem_def(fname, t, world_g)
    local nodes, tris, sets, esets = t.nodes, t.triangles, t.sets, t.edge_sets
    if t.mesh ~= nil then
        if nodes ~= nil or tris ~= nil then fail(fname, "give 'mesh' (rc.read_msh) or 'nodes' and 'triangles', not both") end
        if type(t.mesh) ~= "table" then fail(fname, "'mesh' must be a mesh from rc.read_msh (got %s)", show(t.mesh)) end
        nodes, tris = t.mesh.nodes, t.mesh.triangles
        sets = sets or t.mesh.node_sets
        if esets == nil then esets = t.mesh.edge_sets end
    end
    if nodes == nil then fail(fname, "'nodes' is required: %s", USAGE) end
    if tris == nil then fail(fname, "'triangles' is required: %s", USAGE) end
    local nn = list(fname, "nodes", nodes, 3, "{x, y} positions")
    local xy = {}
    for k = 1, nn do
        local p = vec(fname, fmt("nodes[%d]", k), nodes[k], 2, "{x, y}")
        xy[2 * k - 1], xy[2 * k] = p[1], p[2]
    end
    local nt = list(fname, "triangles", tris, 1, "{i, j, k} node triples")
    local tri = {}
    for e = 1, nt do
        local te = tris[e]
        if type(te) ~= "table" or #te ~= 3 then
            fail(fname, "'triangles[%d]' must be 3 node numbers {i, j, k} (got %s)", e, show(te))
        end
        for a = 1, 3 do tri[3 * e - 3 + a] = node_index(fname, fmt("triangles[%d][%d]", e, a), te[a], nn) - 1 end
    end
    local def = { name = opt_name(fname, "name", t.name), xy = xy, tri = tri,
                  E = positive(fname, "E", number(fname, "E", t.E, REQUIRED)),
                  nu = number(fname, "nu", t.nu, REQUIRED),
                  rho = positive(fname, "rho", number(fname, "rho", t.rho, REQUIRED)),
                  thickness = positive(fname, "thickness", number(fname, "thickness", t.thickness, 1)),
                  plane = option(fname, "plane", t.plane, "stress", { "stress", "strain" }) == "strain" and 1 or 0,
                  mass = option(fname, "mass", t.mass, "consistent", { "consistent", "lumped" }) == "lumped" and 1 or 0 }
    if not (def.nu > -1 and def.nu < 0.5) then fail(fname, "'nu' must be in (-1, 0.5) (got %s)", show(def.nu)) end
    if t.rayleigh ~= nil then
        local r = vec(fname, "rayleigh", t.rayleigh, 2, "{alpha, beta}")
        if r[1] < 0 or r[2] < 0 then fail(fname, "'rayleigh' = {alpha, beta} must be >= 0 (got {%s, %s})", show(r[1]), show(r[2])) end
        def.alpha, def.beta = r[1], r[2]
    end
    if t.gravity ~= nil and type(t.gravity) ~= "boolean" then
        fail(fname, "'gravity' must be true or false (true: the world's gravity as nodal forces; got %s)", show(t.gravity))
    end
    if t.gravity then def.gravity = { world_g[1], world_g[2] } end
    if t.renumber ~= nil and type(t.renumber) ~= "boolean" then fail(fname, "'renumber' must be true or false (got %s)", show(t.renumber)) end
    def.renumber = t.renumber ~= false
    return def, nn, node_sets(fname, sets, nn), edge_sets(fname, esets, nn, triangle_sides(tri))
end

function World:fem(t)
    local fname = "world:fem"
    I.check_self(fname, self, World, "a world")
    local cw = world_core(fname, self, true)
    check_table(fname, t, USAGE)
    check_keys(fname, t, FEM_KEYS)
    local def, nn, sets, esets = fem_def(fname, t, self.gravity)
    if def.name and self._by_name[def.name] then fail(fname, "a body named '%s' already exists", def.name) end
    local id, perm, bw = core.fem_create(cw, def)
    if not id then fail(fname, "%s", perm) end
    local body = new_body(self, id, { name = def.name, kind = "linear", n = 2 * nn }, true)
    if def.name then self._by_name[def.name] = body end
    body.fem = { nnodes = nn, xy = def.xy, perm = perm, bandwidth = bw, sets = sets, edge_sets = esets,
                 ntriangles = #def.tri // 3, thickness = def.thickness, tractions = {} }
    body.sets = sets
    body.fem.def = def   -- the kernel's definition, for the VTK series (ricochet/vtk_fem.lua)
    body.edge_sets = esets
    return body
end

-- The fem data of a body, or an error naming the method.
local function fem_of(fname, b)
    if getmetatable(b) ~= Body or not rawget(b, "fem") then fail(fname, "expected a finite-element body (from w:fem), got %s", show(b)) end
    return b.fem
end

-- The two coordinates (1-based) of node k: u_x, u_y.
function Body:dofs(k)
    local f = fem_of("body:dofs", self)
    k = node_index("body:dofs", "argument [1]", k, f.nnodes)
    local p = f.perm[k]
    return 2 * p - 1, 2 * p
end

-- Displacements {ux, uy} of every node (or of node k), in the mesh's numbering.
function Body:displacements(k)
    local f = fem_of("body:displacements", self)
    local q = self:q()
    if k ~= nil then
        k = node_index("body:displacements", "argument [1]", k, f.nnodes)
        local p = f.perm[k]
        return { q[2 * p - 1], q[2 * p] }
    end
    local r = {}
    for i = 1, f.nnodes do local p = f.perm[i]; r[i] = { q[2 * p - 1], q[2 * p] } end
    return r
end

-- Current positions {x + ux, y + uy} of every node (or of node k).
function Body:nodes(k)
    local f = fem_of("body:nodes", self)
    local q = self:q()
    local function at(i) local p = f.perm[i]; return { f.xy[2 * i - 1] + q[2 * p - 1], f.xy[2 * i] + q[2 * p] } end
    if k ~= nil then return at(node_index("body:nodes", "argument [1]", k, f.nnodes)) end
    local r = {}
    for i = 1, f.nnodes do r[i] = at(i) end
    return r
end

-- One gap per node of a set against a rigid surface: the half-plane
-- { x : n.(x - P) >= 0 } (linear gaps: g = n.(X + u - P), u_T = t.u with
-- t = (n_y, -n_x)), a static segment, or a planar rigid body's disks and
-- polygons (node-to-surface gaps, rc_node_contact_create: rows from the
-- closest point, re-evaluated every step).
local SURFACE_USAGE = "halfplane = { point = {0, 0}, normal = {0, 1} }, segment = { a = {0, 0}, b = {1, 0}, radius = 0 } or rigid = body"

local function segment_def(fname, sg)
    if type(sg) ~= "table" then fail(fname, "'segment' must be { a = {x, y}, b = {x, y}, radius = 0 } (got %s)", show(sg)) end
    check_keys(fname .. " segment", sg, { "a", "b", "radius" })
    local a = vec(fname, "segment.a", sg.a, 2, "{x, y}")
    local b = vec(fname, "segment.b", sg.b, 2, "{x, y}")
    if a[1] == b[1] and a[2] == b[2] then fail(fname, "'segment': the ends a and b coincide") end
    local r = sg.radius == nil and 0 or number(fname, "segment.radius", sg.radius)
    if not (r >= 0) then fail(fname, "'segment.radius' must be >= 0 (got %s)", show(sg.radius)) end
    return a, b, r
end

local function rigid_of(fname, w, b)
    if getmetatable(b) ~= Body or rawget(b, "world") ~= w then
        fail(fname, "'rigid' must be a rigid body of this world (got %s)", show(b))
    end
    if b.kind ~= "rigid2d" then fail(fname, "'rigid' must be a planar rigid body (got a %s body)", tostring(b.kind)) end
    return b.id
end

local function node_contacts(fname, self, t, f, b, nodes, n, name)
    local cw = world_core(fname, self, true)
    local def = { body = b.id, friction = t.friction == false and 0 or 1, rigid = -1 }
    if t.segment ~= nil then
        local A, B, r = segment_def(fname, t.segment)
        def.a, def.b, def.radius = A, B, r
    else
        def.rigid = rigid_of(fname, self, t.rigid)
    end
    if t.margin ~= nil then
        def.margin = number(fname, "margin", t.margin)
        if not (def.margin >= 0) then fail(fname, "'margin' must be >= 0 (got %s)", show(t.margin)) end
    end
    if t.law ~= nil then def.law = I.law_id(self, cw, fname, I.check_law(fname, "law", t.law)) end
    local gaps = {}
    for i = 1, n do
        local k = node_index(fname, fmt("nodes[%d]", i), nodes[i], f.nnodes)
        local ix, iy = b:dofs(k)
        def.dofs, def.X = { ix - 1, iy - 1 }, { f.xy[2 * k - 1], f.xy[2 * k] }
        def.name = name and fmt("%s.%d", name, k) or nil
        local id, msg = core.node_contact_create(cw, def)
        if not id then fail(fname, "%s", msg) end
        gaps[i] = setmetatable({ id = id, name = def.name, body = b, world = self, node = k }, rc.Gap)
    end
    return gaps
end

function World:fem_contact(t)
    local fname = "world:fem_contact"
    I.check_self(fname, self, World, "a world")
    check_table(fname, t, "w:fem_contact{ body, nodes = {1, 2} or \"bottom\", halfplane = { point = {0, 0}, normal = {0, 1} } }")
    check_keys(fname, t, { "nodes", "halfplane", "segment", "rigid", "margin", "law", "name", "friction" }, 1)
    local f = fem_of(fname, t[1])
    local b = t[1]
    local nodes = t.nodes
    if type(nodes) == "string" then
        nodes = f.sets[nodes] or fail(fname, "'nodes': the body has no node set '%s'", t.nodes)
    end
    local n = list(fname, "nodes", nodes, 1, "node numbers (or the name of a node set)")
    local nsurf = (t.halfplane ~= nil and 1 or 0) + (t.segment ~= nil and 1 or 0) + (t.rigid ~= nil and 1 or 0)
    if nsurf ~= 1 then fail(fname, "give exactly one surface: %s (got %d)", SURFACE_USAGE, nsurf) end
    local name = opt_name(fname, "name", t.name)
    if t.friction ~= nil and type(t.friction) ~= "boolean" then fail(fname, "'friction' must be true or false (got %s)", show(t.friction)) end
    if t.halfplane == nil then return node_contacts(fname, self, t, f, b, nodes, n, name) end
    if t.margin ~= nil then fail(fname, "'margin' applies to 'segment' and 'rigid' (a half-plane's gaps are linear, always listed)") end
    local hp = t.halfplane
    if type(hp) ~= "table" then fail(fname, "'halfplane' must be { point = {x, y}, normal = {nx, ny} } (got %s)", show(hp)) end
    check_keys(fname .. " halfplane", hp, { "point", "normal" })
    local P = vec(fname, "halfplane.point", hp.point, 2, "{x, y}")
    local N = vec(fname, "halfplane.normal", hp.normal, 2, "{nx, ny}")
    local len = sqrt(N[1] ^ 2 + N[2] ^ 2)
    if not (len > 0) then fail(fname, "'halfplane.normal' must not be zero") end
    local nx, ny = N[1] / len, N[2] / len
    local gaps = {}
    for i = 1, n do
        local k = node_index(fname, fmt("nodes[%d]", i), nodes[i], f.nnodes)
        local ix, iy = b:dofs(k)
        local g0 = nx * (f.xy[2 * k - 1] - P[1]) + ny * (f.xy[2 * k] - P[2])
        gaps[i] = self:gap{ b, index = { ix, iy }, normal = { nx, ny }, g0 = g0,
                            tangent = t.friction ~= false and { ny, -nx } or nil,
                            law = t.law, name = name and fmt("%s.%d", name, k) or nil }
    end
    return gaps
end

-- The consistent nodal weights of an edge list: L thickness / 2 on both
-- nodes of each edge of length L (node -> weight, in first-seen order).
local function edge_weights(f, edges)
    local order, wgt = {}, {}
    for _, e in ipairs(edges) do
        local i, j = e[1], e[2]
        local L = sqrt((f.xy[2 * i - 1] - f.xy[2 * j - 1]) ^ 2 + (f.xy[2 * i] - f.xy[2 * j]) ^ 2)
        for _, k in ipairs{ i, j } do
            if not wgt[k] then order[#order + 1] = k; wgt[k] = 0 end
            wgt[k] = wgt[k] + 0.5 * L * f.thickness
        end
    end
    return order, wgt
end

-- Install the body's loads (its tractions, after its Lua force function).
local function install_loads(fname, b)
    local f = b.fem
    local loads = {}
    for i, tr in ipairs(f.tractions) do
        local l = { set = tr.set, dofs = {}, w = {} }
        if type(tr.t) == "function" then l.fn = tr.t else l.tx, l.ty = tr.t[1], tr.t[2] end
        for n, k in ipairs(tr.nodes) do
            l.dofs[n], l.w[n] = 2 * (f.perm[k] - 1), tr.w[k]
        end
        loads[i] = l
    end
    local ok, msg = core.fem_set_loads(world_core(fname, b.world, true), b.id, loads, rawget(b, "_force_fn") == true)
    if not ok then fail(fname, "%s", msg) end
end

-- body:traction{ set = "left", t = {tx, ty} | function(t) return tx, ty end }:
-- a traction (force per area) on the edges of an edge set, as consistent
-- nodal forces L thickness / 2 (tx, ty) on each node of each edge of length
-- L, constant or evaluated at t_{k+theta} every step; it adds to gravity,
-- the body's force function and its other tractions.
function Body:traction(t)
    local fname = "body:traction"
    local f = fem_of(fname, self)
    world_core(fname, self.world, true)
    check_table(fname, t, 'body:traction{ set = "left", t = {tx, ty} }  (t: a vector or a function of time returning tx, ty)')
    check_keys(fname, t, { "set", "t" })
    if type(t.set) ~= "string" then fail(fname, "'set' must be the name of an edge set (got %s)", show(t.set)) end
    local edges = f.edge_sets[t.set]
    if not edges then
        local names = {}
        for k in pairs(f.edge_sets) do names[#names + 1] = k end
        table.sort(names)
        fail(fname, "'set': the body has no edge set '%s' (edge sets: %s)", t.set, #names > 0 and table.concat(names, ", ") or "none")
    end
    local tt = t.t
    if type(tt) ~= "function" then
        if tt == nil then fail(fname, "'t' is required: {tx, ty} or a function of time returning tx, ty") end
        tt = vec(fname, "t", tt, 2, "{tx, ty}")
    end
    local order, wgt = edge_weights(f, edges)
    f.tractions[#f.tractions + 1] = { set = t.set, t = tt, nodes = order, w = wgt }
    install_loads(fname, self)
    return self
end

-- The tractions' nodal forces at time t: { {fx, fy}, ... } per node (mesh numbering).
function Body:traction_forces(time)
    local fname = "body:traction_forces"
    local f = fem_of(fname, self)
    time = number(fname, "argument [1]", time, 0)
    local r = {}
    for k = 1, f.nnodes do r[k] = { 0, 0 } end
    for _, tr in ipairs(f.tractions) do
        local tx, ty
        if type(tr.t) == "function" then tx, ty = tr.t(time) else tx, ty = tr.t[1], tr.t[2] end
        for _, k in ipairs(tr.nodes) do
            r[k][1], r[k][2] = r[k][1] + tr.w[k] * tx, r[k][2] + tr.w[k] * ty
        end
    end
    return r
end

-- body:set_force_fn on a body with tractions (body.lua): both act, the Lua
-- function first.
function I.fem_reinstall_loads(fname, b)
    if #b.fem.tractions > 0 then install_loads(fname, b) end
end

-- The assembled M, K (tables of rows), gravity force f, numbering and
-- bandwidth of a w:fem definition, without a world (inspection, tests).
function rc.fem_matrices(t)
    local fname = "rc.fem_matrices"
    check_table(fname, t, USAGE)
    check_keys(fname, t, FEM_KEYS)
    local def = fem_def(fname, t, { 0, -9.81 })
    local M, K, f, perm, bw = core.fem_matrices(def)
    if not M then fail(fname, "%s", K) end
    return { M = M, K = K, f = f, perm = perm, bandwidth = bw }
end

-- ---------------------------------------------------------------- prescribed coordinates, static solve
-- (the kernel's src/model/linear_bc.c; docs/fem.md)

local function linear_core(fname, b, idle)
    I.check_self(fname, b, Body, "a body")
    if rawget(b, "_removed") then I.removed_error(fname, "body", b) end
    if b.kind ~= "linear" then fail(fname, "expected a linear body (w:linear or w:fem), got %s", show(b)) end
    return world_core(fname, b.world, idle)
end

-- A number or a function of t.
local function value_of(fname, key, v, required)
    if v == nil then
        if required then fail(fname, "'%s' is required: a number or a function(t)", key) end
        return nil
    end
    if type(v) == "function" then return v end
    if type(v) ~= "number" or not isfinite(v) then fail(fname, "'%s' must be a finite number or a function(t) (got %s)", key, show(v)) end
    return v
end

local function apply_value(fname, c, id, coords0, v)
    local ok, msg
    if type(v) == "function" then
        ok, msg = core.linear_prescribe_fn(c, id, coords0, v)
    else
        local vals = {}
        for i = 1, #coords0 do vals[i] = v end
        ok, msg = core.linear_prescribe(c, id, coords0, vals)
    end
    if not ok then fail(fname, "%s", msg) end
end

-- The nodes of `set` (a node set's name) or `nodes` (a list) of a FEM body.
local function fem_nodes(fname, b, t)
    local f = b.fem
    if (t.set == nil) == (t.nodes == nil) then fail(fname, "give 'set' (a node set's name) or 'nodes' (a list of node numbers)") end
    local nodes, name = t.nodes, nil
    if t.set ~= nil then
        if type(t.set) ~= "string" then fail(fname, "'set' must be the name of a node set (got %s)", show(t.set)) end
        nodes = f.sets[t.set] or fail(fname, "'set': the body has no node set '%s'", t.set)
        name = t.set
    end
    local n = list(fname, name and "set" or "nodes", nodes, 1, "node numbers")
    local r = {}
    for i = 1, n do r[i] = node_index(fname, fmt("nodes[%d]", i), nodes[i], f.nnodes) end
    return r, name
end

-- body:prescribe{ dofs = {i, ...}, value = number | function(t) }, or for a
-- finite-element body body:prescribe{ set = NAME | nodes = {k, ...}, ux = .., uy = .. }
function Body:prescribe(t)
    local fname = "body:prescribe"
    local c = linear_core(fname, self, true)
    local fem = rawget(self, "fem")
    check_table(fname, t, fem and "body:prescribe{ set = \"top\", uy = -0.005 }" or "body:prescribe{ dofs = {1}, value = 0 }")
    check_keys(fname, t, fem and { "dofs", "value", "set", "nodes", "ux", "uy" } or { "dofs", "value" })
    if t.dofs ~= nil or not fem then
        if fem and (t.set ~= nil or t.nodes ~= nil or t.ux ~= nil or t.uy ~= nil) then
            fail(fname, "give 'dofs' and 'value', or 'set'/'nodes' with 'ux'/'uy', not both")
        end
        local n = list(fname, "dofs", t.dofs, 1, "coordinate numbers")
        local coords0 = {}
        for i = 1, n do
            local k = t.dofs[i]
            if mtype(k) ~= "integer" then k = type(k) == "number" and math.tointeger(k) or nil end
            if not k or k < 1 or k > self.n then
                fail(fname, "'dofs[%d]' must be a coordinate number in 1..%d (got %s)", i, self.n, show(t.dofs[i]))
            end
            coords0[i] = k - 1
        end
        apply_value(fname, c, self.id, coords0, value_of(fname, "value", t.value, true))
        return self
    end
    if t.value ~= nil then fail(fname, "'value' goes with 'dofs'; with 'set' or 'nodes' give 'ux' and/or 'uy'") end
    local nodes, name = fem_nodes(fname, self, t)
    local ux, uy = value_of(fname, "ux", t.ux), value_of(fname, "uy", t.uy)
    if ux == nil and uy == nil then fail(fname, "give 'ux' and/or 'uy' (a number or a function(t); nil: that direction stays free)") end
    for dir, v in ipairs({ ux or false, uy or false }) do
        if v then
            local coords0 = {}
            for i, k in ipairs(nodes) do coords0[i] = 2 * fem.perm[k] - 3 + dir end
            apply_value(fname, c, self.id, coords0, v)
        end
    end
    fem.prescribed = fem.prescribed or {}
    if name then fem.prescribed[name] = nodes end
    return self
end

-- Frees every prescribed coordinate.
function Body:release()
    local fname = "body:release"
    local c = linear_core(fname, self, true)
    local ok, msg = core.linear_release(c, self.id)
    if not ok then fail(fname, "%s", msg) end
    if rawget(self, "fem") then self.fem.prescribed = nil end
    return self
end

-- The supports' forces on the prescribed coordinates (one per coordinate, 0 elsewhere).
function Body:reactions()
    local fname = "body:reactions"
    local c = linear_core(fname, self)
    local r, msg = core.linear_reactions(c, self.id)
    if not r then fail(fname, "%s", msg) end
    return r
end

-- {fx, fy} summed over the nodes of a set from a per-coordinate vector.
local function set_sum(f, nodes, r)
    local fx, fy = 0, 0
    for _, k in ipairs(nodes) do
        local p = f.perm[k]
        fx, fy = fx + r[2 * p - 1], fy + r[2 * p]
    end
    return { fx, fy }
end

-- body:solve_static{ fix = {"bottom", ...} (FEM: node sets; other bodies: coordinate numbers), t = 0 }
function Body:solve_static(t)
    local fname = "body:solve_static"
    local c = linear_core(fname, self, true)
    t = t or {}
    check_table(fname, t, "body:solve_static{ fix = {\"bottom\"}, t = 0 }")
    check_keys(fname, t, { "fix", "t" })
    local time = number(fname, "t", t.t, 0)
    local fem = rawget(self, "fem")
    local fix0, fixsets = {}, {}
    if t.fix ~= nil then
        local n = list(fname, "fix", t.fix, 0, fem and "node set names" or "coordinate numbers")
        for i = 1, n do
            local e = t.fix[i]
            if fem then
                if type(e) ~= "string" then fail(fname, "'fix[%d]' must be the name of a node set (got %s)", i, show(e)) end
                local nodes = fem.sets[e] or fail(fname, "'fix[%d]': the body has no node set '%s'", i, e)
                fixsets[e] = nodes
                for _, k in ipairs(nodes) do
                    local p = fem.perm[k]
                    fix0[#fix0 + 1], fix0[#fix0 + 2] = 2 * p - 2, 2 * p - 1
                end
            else
                local k = mtype(e) == "integer" and e or (type(e) == "number" and math.tointeger(e)) or nil
                if not k or k < 1 or k > self.n then fail(fname, "'fix[%d]' must be a coordinate number in 1..%d (got %s)", i, self.n, show(e)) end
                fix0[#fix0 + 1] = k - 1
            end
        end
    end
    local res, r, status = core.linear_solve_static(c, self.id, time, fix0)
    if not res then fail(fname, "%s", r) end
    if not fem then return { residual = res, reactions = r } end
    local reactions = {}
    for name, nodes in pairs(fixsets) do reactions[name] = set_sum(fem, nodes, r) end
    for name, nodes in pairs(fem.prescribed or {}) do reactions[name] = set_sum(fem, nodes, r) end
    return { residual = res, reactions = reactions }
end
