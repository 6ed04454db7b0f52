--[[
ricochet.force_set -- the exact set of the contact impulses of a static
packing (Moreau 2004, section 3.1), by linear programming. Used by
sim:force_set (lua/ricochet/init.lua checks the arguments and that the
problem is static; this module builds and solves the LPs).

One step from rest with u_f = 0: every active contact has U = 0, so its
impulse may be anywhere in its Coulomb cone C_a = { |p_T| <= mu p_N }, and
the impulses must balance every body: H^T p = M (u_f - u_free) = -h (m g + F)
(force and moment balance of each body). The solution set C n A is a
polyhedron; the set of one contact's impulse is its projection onto
(p_N, p_T), a convex polygon (or a segment, a point, an unbounded set). Its
support function h(d) = max d . p_a over C n A is one LP per direction d.

Variables, per active contact (mu > 0): a = mu p_N - p_T >= 0 and
b = mu p_N + p_T >= 0 (so p_N = (a + b) / (2 mu), p_T = (b - a) / 2); mu = 0:
p_N >= 0 and p_T = 0. Impulses are scaled by h W0 (W0: the mean load of
the bodies), the moment rows by the body's largest lever arm: the LP data
are O(1). Equality rows: 3 per body that has an active contact.

The polygon: the support points of `directions` evenly spaced directions,
then, for every pair of consecutive distinct support points v_i, v_j, one
LP in the outward normal e of the edge v_i v_j: if max e.p = e.v_i the edge
is an edge of the projection, otherwise the new support point is a vertex
between them and both new edges are checked. This ends with the exact
polygon (every vertex is an LP optimum, every edge is checked), in about
`directions` + 2 x (vertices) LPs.
]]

local lp = require "ricochet.lp"

local M = {}
local abs, sqrt, huge, pi = math.abs, math.sqrt, math.huge, math.pi
local cos, sin, atan = math.cos, math.sin, math.atan

------------------------------------------------------------------ plane geometry

local function cross(o, a, b)
    return (a[1] - o[1]) * (b[2] - o[2]) - (a[2] - o[2]) * (b[1] - o[1])
end

-- Convex hull (Andrew's monotone chain), counter-clockwise; points within
-- eps of each other are one point, and a point where the boundary turns by
-- less than 1e-10 rad is dropped (collinear).
local function hull(points, eps)
    local p = {}
    for i, q in ipairs(points) do p[i] = { q[1], q[2] } end
    table.sort(p, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
    if #p <= 1 then return p end
    local function turn(o, a, b)   -- > 0: counter-clockwise, with a relative tolerance
        local ax, ay, bx, by = a[1] - o[1], a[2] - o[2], b[1] - o[1], b[2] - o[2]
        local c = ax * by - ay * bx
        local s = sqrt((ax * ax + ay * ay) * (bx * bx + by * by))
        return c > 1e-10 * s and s > 0
    end
    local lower, upper = {}, {}
    for i = 1, #p do
        while #lower >= 2 and not turn(lower[#lower - 1], lower[#lower], p[i]) do lower[#lower] = nil end
        lower[#lower + 1] = p[i]
    end
    for i = #p, 1, -1 do
        while #upper >= 2 and not turn(upper[#upper - 1], upper[#upper], p[i]) do upper[#upper] = nil end
        upper[#upper + 1] = p[i]
    end
    lower[#lower] = nil
    upper[#upper] = nil
    local h = lower
    for _, q in ipairs(upper) do h[#h + 1] = q end
    -- points within eps of each other collapse
    local out = {}
    for _, q in ipairs(h) do
        local last = out[#out]
        if not last or abs(q[1] - last[1]) + abs(q[2] - last[2]) > eps then out[#out + 1] = q end
    end
    if #out > 1 and abs(out[1][1] - out[#out][1]) + abs(out[1][2] - out[#out][2]) <= eps then out[#out] = nil end
    return out
end
M.hull = hull

local function area(poly)
    local s = 0
    for i = 1, #poly do
        local a, b = poly[i], poly[i % #poly + 1]
        s = s + a[1] * b[2] - a[2] * b[1]
    end
    return 0.5 * s
end
M.area = area

------------------------------------------------------------------ the sets

local ForceSet = { __name = "ricochet.force_set" }
ForceSet.__index = ForceSet
M.ForceSet = ForceSet

-- A point {pN, pT} or a contact record with fields pN, pT.
local function coords(p)
    if type(p) ~= "table" then return nil end
    if p.pN ~= nil then return p.pN, p.pT end
    return p[1], p[2]
end
M.coords = coords

-- Distance outside the set (<= 0 inside: minus the distance to the boundary
-- for a polygon; 0 on a segment or point). Unbounded sets: distance outside
-- the half-planes of their bounded support directions (an outer bound).
function ForceSet:distance(pN, pT)
    local v = self.vertices
    if self.status == "empty" then return huge end
    if self.status == "unbounded" then
        local d = -huge
        for _, s in ipairs(self._planes) do d = math.max(d, s.d[1] * pN + s.d[2] * pT - s.value) end
        return d
    end
    if #v == 1 then return sqrt((pN - v[1][1]) ^ 2 + (pT - v[1][2]) ^ 2) end
    if #v == 2 then
        local ax, ay = v[1][1], v[1][2]
        local dx, dy = v[2][1] - ax, v[2][2] - ay
        local t = ((pN - ax) * dx + (pT - ay) * dy) / (dx * dx + dy * dy)
        t = math.max(0, math.min(1, t))
        return sqrt((pN - ax - t * dx) ^ 2 + (pT - ay - t * dy) ^ 2)
    end
    local d = -huge
    for i = 1, #v do
        local a, b = v[i], v[i % #v + 1]
        local ex, ey = b[1] - a[1], b[2] - a[2]
        local L = sqrt(ex * ex + ey * ey)
        d = math.max(d, (ey * (pN - a[1]) - ex * (pT - a[2])) / L)   -- outward normal (ey, -ex)
    end
    return d
end

-- Is the point inside (within rtol times the size of the set)?
function ForceSet:contains(pN, pT, rtol)
    local d = self:distance(pN, pT)
    return d <= (rtol or 1e-8) * self.scale, d
end

-- The part of the set that a list of points reaches: the area of their
-- convex hull over the area of the polygon (dimension 2), the length of
-- their extent along the segment over its length (dimension 1), 1 or 0 for
-- a point. Points are {pN, pT} or contact records with pN, pT. nil for an
-- empty or unbounded set.
function ForceSet:coverage(points)
    if self.status ~= "bounded" then return nil end
    local pts = {}
    for _, p in ipairs(points) do
        local x, y = coords(p)
        pts[#pts + 1] = { x, y }
    end
    if #pts == 0 then return 0 end
    local eps = 1e-12 * self.scale
    if self.dimension == 2 then
        local h = hull(pts, eps)
        if #h < 3 then return 0 end
        return area(h) / self.area
    elseif self.dimension == 1 then
        local a, b = self.vertices[1], self.vertices[2]
        local dx, dy = b[1] - a[1], b[2] - a[2]
        local L2 = dx * dx + dy * dy
        local lo, hi = huge, -huge
        for _, p in ipairs(pts) do
            local t = ((p[1] - a[1]) * dx + (p[2] - a[2]) * dy) / L2
            t = math.max(0, math.min(1, t))
            lo, hi = math.min(lo, t), math.max(hi, t)
        end
        return hi - lo
    end
    for _, p in ipairs(pts) do
        if self:contains(p[1], p[2], 1e-8) then return 1 end
    end
    return 0
end

function ForceSet.__tostring(s)
    if s.status ~= "bounded" then
        return string.format("ricochet.force_set (contact %d: %s)", s.contact, s.status)
    end
    return string.format("ricochet.force_set (contact %d: %s, %d vertices, p_N in [%.6g, %.6g], p_T in [%.6g, %.6g])",
        s.contact, ({ [0] = "a point", "a segment", "a polygon" })[s.dimension], #s.vertices,
        s.pN[1], s.pN[2], s.pT[1], s.pT[2])
end

------------------------------------------------------------------ the LP

-- prob: { h, W0, contacts = full list (active ones carry mu),
--         bodies = { [id] = { q = {x, y, th}, load = {fx, fy, tau} } }, period = L | nil }
-- Returns the LP and, per active contact, its columns.
local function build(prob)
    local cols = {}       -- contact index -> { a, b } or { n }
    local n = 0
    local contacts = prob.contacts
    for k, c in ipairs(contacts) do
        if c.active then
            if c.mu > 0 then cols[k] = { n + 1, n + 2 }; n = n + 2
            else cols[k] = { n + 1 }; n = n + 1 end
        end
    end
    -- body rows
    local rowof, bodies, nb = {}, {}, 0
    for k, c in ipairs(contacts) do
        if c.active then
            for _, id in ipairs{ c.body_a, c.body_b } do
                if id >= 0 and not rowof[id] then
                    nb = nb + 1
                    rowof[id] = 3 * (nb - 1)
                    bodies[nb] = id
                end
            end
        end
    end
    local m = 3 * nb
    local A, b = {}, {}
    for i = 1, m do
        local r = {}
        for j = 1, n do r[j] = 0.0 end
        A[i], b[i] = r, 0.0
    end
    local arm = {}   -- largest lever arm of each body (moment row scale)
    local scale = prob.h * prob.W0
    local function lever(c, id)
        local q = prob.bodies[id].q
        local rx, ry = c.point[1] - q[1], c.point[2] - q[2]
        if prob.period then rx = rx - prob.period * math.floor(rx / prob.period + 0.5) end
        return rx, ry
    end
    for k, c in ipairs(contacts) do
        if c.active then
            for _, id in ipairs{ c.body_a, c.body_b } do
                if id >= 0 then
                    local rx, ry = lever(c, id)
                    arm[id] = math.max(arm[id] or 0, sqrt(rx * rx + ry * ry))
                end
            end
        end
    end
    for k, c in ipairs(contacts) do
        if c.active then
            local nx, ny, tx, ty = c.normal[1], c.normal[2], c.tangent[1], c.tangent[2]
            -- (p_N, p_T) in the columns: p_N = sum wN[j] x_j, p_T = sum wT[j] x_j
            local cj, wN, wT = cols[k], nil, nil
            if #cj == 2 then wN, wT = { 0.5 / c.mu, 0.5 / c.mu }, { -0.5, 0.5 } else wN, wT = { 1 }, { 0 } end
            for side, id in ipairs{ c.body_a, c.body_b } do
                if id >= 0 then
                    local sg = side == 1 and -1.0 or 1.0   -- the impulse acts on B, minus on A
                    local rx, ry = lever(c, id)
                    local L = arm[id] > 0 and arm[id] or 1
                    local r0 = rowof[id]
                    for q = 1, #cj do
                        local j = cj[q]
                        local fx = sg * (wN[q] * nx + wT[q] * tx)
                        local fy = sg * (wN[q] * ny + wT[q] * ty)
                        A[r0 + 1][j] = A[r0 + 1][j] + fx
                        A[r0 + 2][j] = A[r0 + 2][j] + fy
                        A[r0 + 3][j] = A[r0 + 3][j] + (rx * fy - ry * fx) / L
                    end
                end
            end
        end
    end
    for _, id in ipairs(bodies) do
        local r0, ld = rowof[id], prob.bodies[id].load
        local L = arm[id] > 0 and arm[id] or 1
        b[r0 + 1] = -ld[1] / prob.W0
        b[r0 + 2] = -ld[2] / prob.W0
        b[r0 + 3] = -ld[3] / (prob.W0 * L)
    end
    local P = lp.problem{ n = n, A_eq = A, b_eq = b }
    return { P = P, cols = cols, n = n, m = m, nbodies = nb, scale = scale }
end

-- Support of the projection on contact k in direction d (normalised units):
-- status, point {pN, pT}, value, ray projection.
local function support(L, k, c, d)
    local cost = {}
    for j = 1, L.n do cost[j] = 0.0 end
    local cj = L.cols[k]
    if #cj == 2 then
        local inv = 0.5 / c.mu
        cost[cj[1]] = d[1] * inv - 0.5 * d[2]
        cost[cj[2]] = d[1] * inv + 0.5 * d[2]
    else
        cost[cj[1]] = d[1]
    end
    local r = L.P:_solve(cost, "max")
    L.lps = L.lps + 1
    L.pivots = L.pivots + r.iterations
    local function proj(x)
        if #cj == 2 then
            local a, b = x[cj[1]], x[cj[2]]
            return { (a + b) * 0.5 / c.mu, 0.5 * (b - a) }
        end
        return { x[cj[1]], 0.0 }
    end
    if r.status == "optimal" then
        local p = proj(r.x)
        return "optimal", p, d[1] * p[1] + d[2] * p[2]
    elseif r.status == "unbounded" then
        return "unbounded", proj(r.x), nil, proj(r.ray)
    end
    return r.status
end

-- The polygon of contact k. opts: directions, refine, max_lp.
local function polygon(L, k, c, opts)
    local K = opts.directions
    local list, unb, planes = {}, {}, {}
    local lp0, piv0 = L.lps, L.pivots
    local status = "bounded"
    for i = 0, K - 1 do
        local th = 2 * pi * i / K
        local d = { cos(th), sin(th) }
        if i * 4 % K == 0 then d = ({ { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } })[i * 4 // K + 1] end
        local st, p, v, ray = support(L, k, c, d)
        if st == "optimal" then
            list[#list + 1] = { th = th, d = d, v = p, value = v }
            planes[#planes + 1] = { d = d, value = v }
        elseif st == "unbounded" then
            status = "unbounded"
            unb[#unb + 1] = { d = d, ray = ray }
        elseif st == "infeasible" then
            return { status = "empty" }
        else
            error("force_set: the LP of contact " .. k .. " stopped: " .. tostring(st))
        end
    end
    local S = 0
    for _, e in ipairs(list) do S = math.max(S, abs(e.v[1]), abs(e.v[2])) end
    if S == 0 then S = 1 end
    local eps = 1e-9 * S
    local exact = false
    if status == "bounded" and opts.refine then
        exact = true
        local i, budget = 1, opts.max_lp
        while i <= #list do
            local a = list[i]
            local bnext = list[i % #list + 1]
            local ex, ey = bnext.v[1] - a.v[1], bnext.v[2] - a.v[2]
            local len = sqrt(ex * ex + ey * ey)
            if len > eps and #list > 1 then
                local e = { ey / len, -ex / len }   -- outward normal of a -> b (counter-clockwise)
                if budget <= 0 then exact = false; break end
                budget = budget - 1
                local st, p, v = support(L, k, c, e)
                if st ~= "optimal" then error("force_set: the LP of contact " .. k .. " stopped: " .. tostring(st)) end
                if v > e[1] * a.v[1] + e[2] * a.v[2] + eps
                   and abs(p[1] - a.v[1]) + abs(p[2] - a.v[2]) > eps
                   and abs(p[1] - bnext.v[1]) + abs(p[2] - bnext.v[2]) > eps then
                    table.insert(list, i + 1, { th = atan(e[2], e[1]), d = e, v = p, value = v })
                    planes[#planes + 1] = { d = e, value = v }
                else
                    planes[#planes + 1] = { d = e, value = v }
                    i = i + 1
                end
            else
                i = i + 1
            end
        end
    end
    local pts = {}
    for _, e in ipairs(list) do pts[#pts + 1] = e.v end
    local h = hull(pts, eps)
    return { status = status, vertices = h, unbounded = unb, planes = planes, exact = exact,
             lps = L.lps - lp0, pivots = L.pivots - piv0, S = S }
end

-- Compute the sets of the contacts `targets` (indices into prob.contacts).
-- opts: directions, refine, max_lp. Returns a list of ForceSet in the
-- order of targets.
function M.compute(prob, targets, opts)
    local t0 = os.clock()
    local L = build(prob)
    L.lps, L.pivots = 0, 0
    local setup = os.clock() - t0
    local out = {}
    local hs = prob.h * prob.W0   -- normalised -> impulse
    for i, k in ipairs(targets) do
        local c = prob.contacts[k]
        local t1 = os.clock()
        local r
        if L.P.status == "infeasible" then r = { status = "empty", vertices = {}, unbounded = {}, planes = {}, lps = 0, pivots = 0, S = 1 }
        else r = polygon(L, k, c, opts) end
        local set = setmetatable({
            contact = k, id = c.id, body_a = c.body_a, body_b = c.body_b,
            point = { c.point[1], c.point[2] }, normal = { c.normal[1], c.normal[2] },
            tangent = { c.tangent[1], c.tangent[2] }, mu = c.mu, h = prob.h,
            status = r.status, exact = r.exact or false, lps = r.lps, pivots = r.pivots,
            cpu_s = os.clock() - t1 + (i == 1 and setup or 0),
            lp = { variables = L.n, equations = L.m, bodies = L.nbodies, dependent = L.P.dropped or 0 },
        }, ForceSet)
        local verts, forces = {}, {}
        for j, v in ipairs(r.vertices or {}) do
            local pN, pT = v[1] * hs + 0.0, v[2] * hs + 0.0   -- + 0.0: no -0
            verts[j] = { pN, pT }
            forces[j] = { (pN * c.normal[1] + pT * c.tangent[1]) / prob.h, (pN * c.normal[2] + pT * c.tangent[2]) / prob.h }
        end
        set.vertices, set.forces = verts, forces
        set.scale = (r.S or 1) * hs
        set._planes = {}
        for _, pl in ipairs(r.planes or {}) do set._planes[#set._planes + 1] = { d = pl.d, value = pl.value * hs } end
        set.unbounded = {}
        for _, u in ipairs(r.unbounded or {}) do
            set.unbounded[#set.unbounded + 1] = { direction = u.d, ray = u.ray }
        end
        if r.status == "bounded" then
            local n = #verts
            set.dimension = n >= 3 and 2 or (n == 2 and 1 or 0)
            set.area = n >= 3 and area(verts) or 0
            if n == 2 then
                set.length = sqrt((verts[2][1] - verts[1][1]) ^ 2 + (verts[2][2] - verts[1][2]) ^ 2)
            else
                set.length = 0
                if n >= 3 then
                    for j = 1, n do
                        local a, b = verts[j], verts[j % n + 1]
                        set.length = set.length + sqrt((b[1] - a[1]) ^ 2 + (b[2] - a[2]) ^ 2)
                    end
                end
            end
            local function bounds(f)
                local lo, hi = huge, -huge
                for j = 1, n do
                    local x = f(j)
                    lo, hi = math.min(lo, x), math.max(hi, x)
                end
                return { lo, hi }
            end
            set.pN = bounds(function(j) return verts[j][1] end)
            set.pT = bounds(function(j) return verts[j][2] end)
            set.fx = bounds(function(j) return forces[j][1] end)
            set.fy = bounds(function(j) return forces[j][2] end)
        end
        out[i] = set
    end
    return out
end

return M
