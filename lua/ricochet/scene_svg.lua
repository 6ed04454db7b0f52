-- ricochet.scene_svg: a picture of convex solids in 3D as an SVG, in pure Lua
-- (docs/viewing.md, "A still of a 3D scene"): an orthographic view from an
-- azimuth and an elevation, flat Lambert shading, the painter's order (far
-- polygons first, by the depth of their centroids).
--
--   local S = require "ricochet.scene_svg"
--   S.svg{ file = "out/rf/final.svg", title = "the wall at t = 4 s",
--          view = { azimuth = 35, elevation = 25 },            -- degrees; the defaults
--          solids = { S.box(body, { hx, hy, hz }), S.hull(rock, points), { points = {...}, faces = {...}, fill = "#c8b090" } } }
--
-- A solid is { points = {{x, y, z}, ...} in world coordinates, faces = list of
-- index loops (optional), fill = "#rrggbb" (optional) }. With faces, the faces
-- turned towards the eye are drawn (their outward side found from the solid's
-- centroid); without, the solid's silhouette (the convex hull of its projected
-- points: exact for a convex solid). S.box(b, half) makes the solid of a spatial
-- body's box of half-extents half (its pose now), S.hull(b,
-- points) the solid of a body whose shape is the hull of points given in its
-- body frame, S.rotate(q, p) turns a body-frame point by q = {qw, qx, qy, qz}.
local M = {}

local fmt, sin, cos, rad, sqrt, max = string.format, math.sin, math.cos, math.rad, math.sqrt, math.max

local function fail(f, ...) error(fmt("scene_svg.svg: " .. f, ...), 3) end

function M.rotate(q, p)
    local w, x, y, z = q[1], q[2], q[3], q[4]
    return { (1 - 2 * (y * y + z * z)) * p[1] + 2 * (x * y - w * z) * p[2] + 2 * (x * z + w * y) * p[3],
             2 * (x * y + w * z) * p[1] + (1 - 2 * (x * x + z * z)) * p[2] + 2 * (y * z - w * x) * p[3],
             2 * (x * z - w * y) * p[1] + 2 * (y * z + w * x) * p[2] + (1 - 2 * (x * x + y * y)) * p[3] }
end

local BOX_FACES = { { 1, 2, 4, 3 }, { 5, 7, 8, 6 }, { 1, 5, 6, 2 }, { 3, 4, 8, 7 }, { 1, 3, 7, 5 }, { 2, 6, 8, 4 } }

-- a box of half-extents half on a spatial body b (its pose now)
function M.box(b, half, fill)
    local q = b:q()
    local R = { q[4], q[5], q[6], q[7] }
    local pts = {}
    for i = 0, 7 do
        local c = { (i & 4 ~= 0) and half[1] or -half[1], (i & 2 ~= 0) and half[2] or -half[2], (i & 1 ~= 0) and half[3] or -half[3] }
        local r = M.rotate(R, c)
        pts[#pts + 1] = { q[1] + r[1], q[2] + r[2], q[3] + r[3] }
    end
    return { points = pts, faces = BOX_FACES, fill = fill }
end

-- the hull of points (body frame) on a spatial body b, drawn by its silhouette
function M.hull(b, points, fill)
    local q = b:q()
    local R, pts = { q[4], q[5], q[6], q[7] }, {}
    for i, p in ipairs(points) do
        local r = M.rotate(R, p)
        pts[i] = { q[1] + r[1], q[2] + r[2], q[3] + r[3] }
    end
    return { points = pts, fill = fill }
end

-- 2D convex hull (monotone chain) of {u, v} points: their indices, counter-clockwise
local function hull2(P)
    local idx = {}
    for i = 1, #P do idx[i] = i end
    table.sort(idx, function(a, b) return P[a][1] < P[b][1] or (P[a][1] == P[b][1] and P[a][2] < P[b][2]) end)
    local function cross(o, a, b) return (P[a][1] - P[o][1]) * (P[b][2] - P[o][2]) - (P[a][2] - P[o][2]) * (P[b][1] - P[o][1]) end
    local H = {}
    for pass = 1, 2 do
        local start = #H
        for k = (pass == 1 and 1 or #idx), (pass == 1 and #idx or 1), (pass == 1 and 1 or -1) do
            local i = idx[k]
            while #H >= start + 2 and cross(H[#H - 1], H[#H], i) <= 0 do H[#H] = nil end
            H[#H + 1] = i
        end
        H[#H] = nil
    end
    return H
end

local function shade(fill, k)
    local r, g, b = fill:match("^#(%x%x)(%x%x)(%x%x)$")
    local function c(x) return math.min(255, math.floor(tonumber(x, 16) * k + 0.5)) end
    return fmt("#%02x%02x%02x", c(r), c(g), c(b))
end

local function check_solid(i, s)
    if type(s) ~= "table" then fail("solids[%d] must be a table (got %s)", i, type(s)) end
    for k in pairs(s) do
        if k ~= "points" and k ~= "faces" and k ~= "fill" then fail("solids[%d]: unknown key '%s' (allowed: points, faces, fill)", i, tostring(k)) end
    end
    if type(s.points) ~= "table" or #s.points < 1 then fail("solids[%d]: 'points' must be a list of {x, y, z}", i) end
    for j, p in ipairs(s.points) do
        if type(p) ~= "table" or type(p[1]) ~= "number" or type(p[2]) ~= "number" or type(p[3]) ~= "number"
           or p[1] ~= p[1] or p[2] ~= p[2] or p[3] ~= p[3] then
            fail("solids[%d]: points[%d] must be {x, y, z} of finite numbers", i, j)
        end
    end
    if s.fill ~= nil and (type(s.fill) ~= "string" or not s.fill:match("^#%x%x%x%x%x%x$")) then
        fail("solids[%d]: 'fill' must be \"#rrggbb\" (got %s)", i, tostring(s.fill))
    end
    for j, f in ipairs(s.faces or {}) do
        if type(f) ~= "table" or #f < 3 then fail("solids[%d]: faces[%d] must list at least 3 point indices", i, j) end
        for _, k in ipairs(f) do
            if math.type(k) ~= "integer" or k < 1 or k > #s.points then fail("solids[%d]: faces[%d] has index %s, not in 1..%d", i, j, tostring(k), #s.points) end
        end
    end
end

-- the polygons of a solid: { pts = {{u, v}...}, depth, fill }
local function polygons(s, E, U, V, L, out)
    local fill = s.fill or "#b0a89a"
    local n, c = #s.points, { 0, 0, 0 }
    for _, p in ipairs(s.points) do for k = 1, 3 do c[k] = c[k] + p[k] / n end end
    local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
    local function proj(p) return { dot(p, U), -dot(p, V) } end
    if not s.faces then
        local P = {}
        for i, p in ipairs(s.points) do P[i] = proj(p) end
        local H, pts = hull2(P), {}
        for _, i in ipairs(H) do pts[#pts + 1] = P[i] end
        out[#out + 1] = { pts = pts, depth = dot(c, E), fill = shade(fill, 0.85) }
        return
    end
    for _, f in ipairs(s.faces) do
        local a, b, d = s.points[f[1]], s.points[f[2]], s.points[f[3]]
        local e1 = { b[1] - a[1], b[2] - a[2], b[3] - a[3] }
        local e2 = { d[1] - a[1], d[2] - a[2], d[3] - a[3] }
        local nrm = { e1[2] * e2[3] - e1[3] * e2[2], e1[3] * e2[1] - e1[1] * e2[3], e1[1] * e2[2] - e1[2] * e2[1] }
        local fc = { 0, 0, 0 }
        for _, k in ipairs(f) do for j = 1, 3 do fc[j] = fc[j] + s.points[k][j] / #f end end
        if dot(nrm, { fc[1] - c[1], fc[2] - c[2], fc[3] - c[3] }) < 0 then nrm = { -nrm[1], -nrm[2], -nrm[3] } end
        local len = sqrt(dot(nrm, nrm))
        if len > 0 and dot(nrm, E) > 1e-12 * len then
            local pts = {}
            for _, k in ipairs(f) do pts[#pts + 1] = proj(s.points[k]) end
            out[#out + 1] = { pts = pts, depth = dot(fc, E), fill = shade(fill, 0.45 + 0.55 * max(0, dot(nrm, L) / len)) }
        end
    end
end

function M.svg(t)
    if type(t) ~= "table" then fail("expects a table (got %s)", type(t)) end
    for k in pairs(t) do
        if k ~= "file" and k ~= "title" and k ~= "view" and k ~= "solids" and k ~= "width" and k ~= "height" then
            fail("unknown key '%s' (allowed: file, title, view, solids, width, height)", tostring(k))
        end
    end
    if type(t.file) ~= "string" or t.file == "" then fail("'file' must be a file name") end
    if type(t.solids) ~= "table" or #t.solids == 0 then fail("'solids' must be a nonempty list") end
    for i, s in ipairs(t.solids) do check_solid(i, s) end
    local view = t.view or {}
    local az, el = view.azimuth or 35, view.elevation or 25
    if type(az) ~= "number" or type(el) ~= "number" or el < -90 or el > 90 then fail("'view' must be { azimuth = deg, elevation = deg in [-90, 90] }") end
    local W, Hh = t.width or 900, t.height or 600
    if math.type(W) ~= "integer" or math.type(Hh) ~= "integer" or W < 50 or Hh < 50 then fail("'width' and 'height' must be integers >= 50") end
    local a, e = rad(az), rad(el)
    local E = { cos(e) * cos(a), cos(e) * sin(a), sin(e) }            -- towards the eye
    local U = { -sin(a), cos(a), 0 }                                     -- screen right
    local V = { -sin(e) * cos(a), -sin(e) * sin(a), cos(e) }             -- screen up
    local L = { 0.4, 0.3, 0.866 }                                        -- the light
    local polys = {}
    for _, s in ipairs(t.solids) do polygons(s, E, U, V, L, polys) end
    table.sort(polys, function(p, q) return p.depth < q.depth end)
    local u0, u1, v0, v1 = math.huge, -math.huge, math.huge, -math.huge
    for _, p in ipairs(polys) do
        for _, x in ipairs(p.pts) do
            u0, u1, v0, v1 = math.min(u0, x[1]), math.max(u1, x[1]), math.min(v0, x[2]), math.max(v1, x[2])
        end
    end
    local top = t.title and 30 or 10
    local sc = math.min((W - 20) / max(u1 - u0, 1e-12), (Hh - top - 10) / max(v1 - v0, 1e-12))
    local f = io.open(t.file, "w")
    if not f then fail("cannot write '%s'", t.file) end
    f:write(fmt('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">\n', W, Hh, W, Hh))
    f:write(fmt('<rect width="%d" height="%d" fill="#ffffff"/>\n', W, Hh))
    if t.title then
        f:write(fmt('<text x="10" y="20" font-family="sans-serif" font-size="15" font-weight="bold">%s</text>\n',
                    tostring(t.title):gsub("&", "&amp;"):gsub("<", "&lt;")))
    end
    for _, p in ipairs(polys) do
        local s = {}
        for _, x in ipairs(p.pts) do s[#s + 1] = fmt("%.1f,%.1f", 10 + (x[1] - u0) * sc, top + (x[2] - v0) * sc) end
        f:write(fmt('<polygon class="face" points="%s" fill="%s" stroke="#303030" stroke-width="0.5"/>\n', table.concat(s, " "), p.fill))
    end
    f:write("</svg>\n")
    f:close()
    return #polys
end

return M
