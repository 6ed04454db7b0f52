-- ricochet/msh.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- rc.read_msh(path), a reader of Gmsh's MSH 4.1 ASCII format (sections
-- $MeshFormat, $PhysicalNames, $Entities, $Nodes, $Elements; the others are
-- skipped) for w:fem{ mesh = ... }. Reference: docs/fem.md.

local I = require "ricochet.private"
local rc = I.rc
local fmt, tonumber, type = string.format, tonumber, type
local check = require "ricochet.check"
local raise = check.raise

local FNAME = "rc.read_msh"

-- Gmsh element types: nodes per element; the ones the reader uses
local KNOWN = { [15] = 1, [1] = 2, [2] = 3 }
local TYPE_NAMES = { [3] = "4-node quadrangle", [4] = "4-node tetrahedron", [8] = "3-node line",
                     [9] = "6-node triangle", [16] = "8-node quadrangle", [10] = "9-node quadrangle" }

-- A line reader with the line number, splitting into words.
local function reader(path)
    local f, err = io.open(path, "r")
    if not f then raise(fmt("%s: cannot open '%s': %s", FNAME, tostring(path), err)) end
    local r = { path = path, line = 0 }
    function r.err(fmtstr, ...)
        f:close()
        raise(fmt("%s: %s:%d: " .. fmtstr, FNAME, path, r.line, ...))
    end
    function r.next()   -- the next line's words (nil at the end)
        local s = f:read("l")
        if s == nil then return nil end
        r.line = r.line + 1
        local w = {}
        for x in s:gmatch("%S+") do w[#w + 1] = x end
        r.text = s
        return w
    end
    function r.words(what, n)   -- a line of at least n words (error at the end of the file)
        local w = r.next()
        if w == nil then r.line = r.line + 1; r.err("the file ends inside %s", what) end
        if n and #w < n then r.err("%s: expected %d numbers, got %d", what, n, #w) end
        return w
    end
    function r.int(w, i, what)
        local x = math.tointeger(tonumber(w[i]))
        if x == nil then r.err("%s: '%s' is not an integer", what, tostring(w[i])) end
        return x
    end
    function r.num(w, i, what)
        local x = tonumber(w[i])
        if x == nil or x ~= x or x == math.huge or x == -math.huge then r.err("%s: '%s' is not a finite number", what, tostring(w[i])) end
        return x
    end
    function r.close() f:close() end
    return r
end

local function read_format(r)
    local w = r.words("$MeshFormat", 3)
    if w[1] ~= "4.1" then r.err("MSH version %s is not supported (4.1 is; in Gmsh: -format msh41)", w[1]) end
    if w[2] ~= "0" then r.err("binary MSH files are not supported (save as ASCII: -bin 0)") end
end

local function read_physical_names(r, m)
    local n = r.int(r.words("$PhysicalNames", 1), 1, "number of physical names")
    for _ = 1, n do
        local w = r.words("$PhysicalNames", 3)
        local dim, tag = r.int(w, 1, "physical dimension"), r.int(w, 2, "physical tag")
        local name = r.text:match('"(.*)"')
        if not name then r.err("a physical name must be quoted") end
        m.phys_names[dim .. ":" .. tag] = name
    end
end

-- $Entities: the physical tags of every (dim, tag) entity.
local function read_entities(r, m)
    local w = r.words("$Entities", 4)
    local counts = { r.int(w, 1, "points"), r.int(w, 2, "curves"), r.int(w, 3, "surfaces"), r.int(w, 4, "volumes") }
    for dim = 0, 3 do
        for _ = 1, counts[dim + 1] do
            local e = r.words("$Entities")
            local at = dim == 0 and 5 or 8   -- point: tag x y z; others: tag + bounding box
            local np = r.int(e, at, "number of physical tags")
            local tags = {}
            for i = 1, np do tags[i] = r.int(e, at + i, "physical tag") end
            m.entity_phys[dim .. ":" .. r.int(e, 1, "entity tag")] = tags
        end
    end
end

local function read_nodes(r, m)
    local w = r.words("$Nodes", 4)
    local nblocks = r.int(w, 1, "number of node blocks")
    for _ = 1, nblocks do
        local b = r.words("node block", 4)
        local parametric, nb = r.int(b, 3, "parametric"), r.int(b, 4, "nodes in block")
        if parametric ~= 0 then r.err("parametric node coordinates are not supported") end
        local tags = {}
        for i = 1, nb do tags[i] = r.int(r.words("node tag", 1), 1, "node tag") end
        for i = 1, nb do
            local c = r.words("node coordinates", 3)
            if m.node_index[tags[i]] then r.err("node %d is defined twice", tags[i]) end
            m.nodes[#m.nodes + 1] = { r.num(c, 1, "x"), r.num(c, 2, "y") }
            m.node_index[tags[i]] = #m.nodes
            if r.num(c, 3, "z") ~= 0 then r.err("node %d has z = %s: the mesh must lie in the plane z = 0", tags[i], c[3]) end
        end
    end
end

local function read_elements(r, m, raw)
    local w = r.words("$Elements", 4)
    local nblocks = r.int(w, 1, "number of element blocks")
    for _ = 1, nblocks do
        local b = r.words("element block", 4)
        local dim, etag, etype, ne = r.int(b, 1, "dim"), r.int(b, 2, "entity tag"), r.int(b, 3, "element type"), r.int(b, 4, "elements")
        local nv = KNOWN[etype]
        if not nv then
            r.err("element type %d (%s) is not supported: only 3-node triangles (2), 2-node lines (1) and points (15)",
                  etype, TYPE_NAMES[etype] or "see the Gmsh manual")
        end
        for _ = 1, ne do
            local e = r.words("element", nv + 1)
            local vs = {}
            for i = 1, nv do vs[i] = r.int(e, i + 1, "node tag") end
            raw[#raw + 1] = { dim = dim, entity = etag, type = etype, tags = vs, line = r.line }
        end
    end
end

local SECTIONS = { MeshFormat = read_format, PhysicalNames = read_physical_names, Entities = read_entities,
                   Nodes = read_nodes, Elements = read_elements }

-- Every 2-node line (an edge set's edge, for tractions) must be a side of a
-- triangle: refused with its line number otherwise.
local function check_lines(r, raw, tri)
    local sides = {}
    for _, v in ipairs(tri) do
        for a = 1, 3 do
            local i, j = v[a], v[a % 3 + 1]
            sides[math.min(i, j) .. ":" .. math.max(i, j)] = true
        end
    end
    for _, e in ipairs(raw) do
        if e.type == 1 then
            local i, j = e.v[1], e.v[2]
            if not sides[math.min(i, j) .. ":" .. math.max(i, j)] then
                r.line = e.line
                r.err("line (nodes %d, %d) is not a side of a triangle", e.tags[1], e.tags[2])
            end
        end
    end
end

-- Map element node tags to node numbers (refusing undefined ones), split
-- into triangles (counter-clockwise required) and physical sets.
local function finish(r, m, raw)
    local tri, node_sets, edge_sets, seen = {}, {}, {}, {}
    for _, e in ipairs(raw) do
        local v = {}
        for i, tag in ipairs(e.tags) do
            v[i] = m.node_index[tag]
            if not v[i] then r.line = e.line; r.err("element refers to node %d, which $Nodes does not define", tag) end
        end
        e.v = v
        if e.type == 2 then
            local a, b, c = m.nodes[v[1]], m.nodes[v[2]], m.nodes[v[3]]
            local A = 0.5 * ((b[1] - a[1]) * (c[2] - a[2]) - (c[1] - a[1]) * (b[2] - a[2]))
            if A <= 0 then
                r.line = e.line
                r.err("triangle (nodes %d, %d, %d) is %s (signed area %g)", e.tags[1], e.tags[2], e.tags[3],
                      A < 0 and "inverted: its nodes turn clockwise" or "degenerate", A)
            end
            tri[#tri + 1] = v
        end
        for _, ptag in ipairs(m.entity_phys[e.dim .. ":" .. e.entity] or {}) do
            local name = m.phys_names[e.dim .. ":" .. ptag] or fmt("%d:%d", e.dim, ptag)
            local ns = node_sets[name] or {}
            node_sets[name], seen[name] = ns, seen[name] or {}
            for _, k in ipairs(v) do
                if not seen[name][k] then seen[name][k] = true; ns[#ns + 1] = k end
            end
            if e.type == 1 then
                edge_sets[name] = edge_sets[name] or {}
                edge_sets[name][#edge_sets[name] + 1] = v
            end
        end
    end
    for _, ns in pairs(node_sets) do table.sort(ns) end
    check_lines(r, raw, tri)
    return tri, node_sets, edge_sets
end

-- rc.read_msh(path) -> { nodes = {{x, y}, ...}, triangles = {{i, j, k}, ...},
-- node_sets = { name = {k, ...} }, edge_sets = { name = {{i, j}, ...} } }
-- (node numbers 1..#nodes in the order of $Nodes; a physical group without a
-- name is called "dim:tag").
function rc.read_msh(path)
    if type(path) ~= "string" then raise(fmt("%s: argument [1] must be a file name (got %s)", FNAME, check.show(path))) end
    local r = reader(path)
    local m = { nodes = {}, node_index = {}, phys_names = {}, entity_phys = {} }
    local raw, found = {}, {}
    while true do
        local w = r.next()
        if w == nil then break end
        local sec = w[1] and w[1]:match("^%$(%w+)$")
        if sec and not sec:match("^End") then
            local fn = SECTIONS[sec]
            if found[sec] then r.err("section $%s appears twice", sec) end
            found[sec] = true
            if fn then fn(r, m, raw) end
            repeat   -- to $EndSection (skipping unknown sections' contents)
                local e = r.next()
                if e == nil then r.line = r.line + 1; r.err("$End%s is missing", sec) end
                if fn and e[1] ~= "$End" .. sec then r.err("expected $End%s, got '%s'", sec, r.text) end
            until e[1] == "$End" .. sec
        elseif #w > 0 then
            r.err("expected a section ($MeshFormat, $Nodes, ...), got '%s'", r.text)
        end
    end
    for _, s in ipairs{ "MeshFormat", "Nodes", "Elements" } do
        if not found[s] then r.err("the section $%s is missing", s) end
    end
    local tri, node_sets, edge_sets = finish(r, m, raw)
    r.close()
    if #tri == 0 then raise(fmt("%s: %s: no triangles (element type 2) in $Elements", FNAME, path)) end
    return { nodes = m.nodes, triangles = tri, node_sets = node_sets, edge_sets = edge_sets }
end

-- rc.fem_rectangle{ width, height, nx, ny, origin = {0, 0} } -> a mesh like rc.read_msh's:
-- nx x ny cells, each split along its / diagonal; node (i, j) (0-based) is j (nx + 1) + i + 1
-- at origin + (width i / nx, height j / ny); triangles {a, a + 1, a + nx + 2} and
-- {a, a + nx + 2, a + nx + 1} (counter-clockwise); node and edge sets bottom, top, left, right
-- (edges from left to right and from bottom to top).
function rc.fem_rectangle(t)
    local F = "rc.fem_rectangle"
    check.check_table(F, t, 'rc.fem_rectangle{ width = 40, height = 25, nx = 40, ny = 25 }')
    check.check_keys(F, t, { "width", "height", "nx", "ny", "origin" })
    local W = check.positive(F, "width", check.number(F, "width", t.width))
    local H = check.positive(F, "height", check.number(F, "height", t.height))
    local function count(key)
        local v = t[key]
        if math.type(v) ~= "integer" or v < 1 or v > 4096 then
            check.fail(F, "'%s' must be an integer in [1, 4096] (got %s)", key, check.show(v))
        end
        return v
    end
    local nx, ny = count("nx"), count("ny")
    local o = t.origin ~= nil and check.vec(F, "origin", t.origin, 2, "{x, y}") or { 0, 0 }
    local nodes, tris = {}, {}
    for j = 0, ny do for i = 0, nx do nodes[#nodes + 1] = { o[1] + W * i / nx, o[2] + H * j / ny } end end
    local ns = { bottom = {}, top = {}, left = {}, right = {} }
    local es = { bottom = {}, top = {}, left = {}, right = {} }
    for j = 0, ny - 1 do
        for i = 0, nx - 1 do
            local a = j * (nx + 1) + i + 1
            tris[#tris + 1] = { a, a + 1, a + nx + 2 }
            tris[#tris + 1] = { a, a + nx + 2, a + nx + 1 }
        end
        es.left[#es.left + 1] = { j * (nx + 1) + 1, (j + 1) * (nx + 1) + 1 }
        es.right[#es.right + 1] = { (j + 1) * (nx + 1), (j + 2) * (nx + 1) }
    end
    for i = 1, nx do
        es.bottom[i] = { i, i + 1 }
        es.top[i] = { ny * (nx + 1) + i, ny * (nx + 1) + i + 1 }
    end
    for i = 1, nx + 1 do ns.bottom[i], ns.top[i] = i, ny * (nx + 1) + i end
    for j = 0, ny do ns.left[j + 1], ns.right[j + 1] = j * (nx + 1) + 1, (j + 1) * (nx + 1) end
    return { nodes = nodes, triangles = tris, node_sets = ns, edge_sets = es }
end
