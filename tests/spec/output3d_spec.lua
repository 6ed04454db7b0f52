-- output3d_spec.lua -- the history and the VTK series of a dim = 3 world
-- (src/io/output_c3.c, src/io/vtk_frame3.c; docs/output.md, docs/output-vtk.md):
-- a sphere, a capsule and a box dropped on a plane with sim:output and sim:vtk
-- on; history.csv.gz is read back and compared with the bodies' state and
-- w:contacts3() at the same steps (exactly, as printed by %.15g), the
-- quaternion columns have |q| = 1, the energy columns balance; the VTK files
-- are read back by VTK's own reader (python3-vtk9, as vtk_spec.lua; pending
-- without it): point counts, the sphere's surface at distance r from the
-- centre in the history, the contact lines' cell data p / h and p.
local rc = require "ricochet"

local H = 1e-3

local function q(s)
    return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function g15(x)
    if x ~= x then return "nan" end
    return string.format("%.15g", x)
end

local V = require "vtk_read"   -- VTK's reader from python3-vtk9 (vtk_read.lua)
local python, need_reader, read_back = V.python, V.need_reader, V.read_back

------------------------------------------------------------------ the scene

-- shape ids: 0 the plane, 1 the ball, 2 the capsule, 3 the box
local function scene(dir, vdir)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0.3, mu = 0.4 } }
    w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
    local c45 = math.sqrt(0.5)
    local bodies = {
        w:body{ name = "ball", density = 1000, sphere = 0.1, q = { 0, 0, 0.25, 1, 0, 0, 0 }, v = { 0.3, 0, 0, 0, 5, 1 },
                shape = rc.sphere{ 0.1 } },
        w:body{ name = "cap", density = 1000, capsule = { 0.05, 0.1 }, q = { 0.5, 0, 0.2, c45, c45, 0, 0 },
                v = { 0, 0.2, 0, 0, 0, 0 }, shape = rc.capsule{ radius = 0.05, half_length = 0.1 } },
        w:body{ name = "crate", density = 500, box = { 0.1, 0.08, 0.05 }, q = { -0.5, 0, 0.15, math.cos(0.2), 0, 0, math.sin(0.2) },
                v = { 0.2, 0, 0, 0, 0, 0 }, shape = rc.box3{ 0.1, 0.08, 0.05 } },
    }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = H, solver = { "nsgs", tol = 1e-10, max_iter = 2000 } }
    local rec = {}   -- the state and the contacts after every 10th step
    local function keep(s)
        if s.steps % 10 ~= 0 then return end
        local r = { bodies = {}, contacts = w:contacts3() }
        for i, b in ipairs(bodies) do r.bodies[i] = { q = b:q(), v = b:v() } end
        rec[s.steps] = r
    end
    keep(sim)
    sim:after_step(keep)
    sim:output{ dir = dir, every = 10 }
    sim:vtk{ dir = vdir, every = 50 }
    sim:run{ T = 0.4 }
    sim:close_output()
    local nframes = sim:close_vtk()
    return rec, nframes
end

local function read_history(dir)
    local p = assert(io.popen("zcat " .. q(dir .. "/history.csv.gz")))
    local lines = {}
    for line in p:lines() do lines[#lines + 1] = line end
    p:close()
    local header, rows = {}, {}
    for x in lines[1]:gmatch("[^,]+") do header[#header + 1] = x end
    for i = 2, #lines do
        local r = {}
        for x in lines[i]:gmatch("[^,]+") do r[#r + 1] = x end
        rows[#rows + 1] = r
    end
    return header, rows
end

local PAIRS = {   -- pairs of shapes with columns, in key order, and their groups
    { "plane0/ball", 0, 1, 1 }, { "plane0/cap", 0, 2, 2 }, { "plane0/crate", 0, 3, 4 },
    { "ball/cap", 1, 2, 1 }, { "ball/crate", 1, 3, 1 }, { "cap/crate", 2, 3, 2 },
}
local CCOLS = { "feature", "gN", "uN", "uT1", "uT2", "pN", "pT1", "pT2" }

describe("a dim = 3 world's contact column names", function()
    it("name a body with several shapes NAME[i], an obstacle KINDid (polyhedron5), long names whole; none for unnamed bodies", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 } }
        w:plane{}                                                                   -- shape 0
        local long = string.rep("x", 300)
        w:body{ name = long, mass = 1, inertia = { 1, 1, 1 }, q = { 0, 0, 1, 1, 0, 0, 0 }, shape = rc.sphere{ 0.1 } }   -- 1
        w:body{ name = "dumbbell", mass = 1, inertia = { 1, 1, 1 }, q = { 2, 0, 1, 1, 0, 0, 0 },
                shapes = { rc.sphere{ 0.1 }, rc.box3{ 0.1, 0.1, 0.1 } } }           -- 2, 3
        w:body{ mass = 1, inertia = { 1, 1, 1 }, q = { 4, 0, 1, 1, 0, 0, 0 }, shape = rc.sphere{ 0.1 } }   -- 4, unnamed
        w:obstacle3{ shape = rc.polyhedron{ points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } },
                     point = { 10, 10, 0 } }                                        -- 5
        local sim = w:simulation{ h = H }
        local dir = os.tmpname()
        os.remove(dir)
        sim:output{ dir = dir }
        sim:close_output()
        local header = read_history(dir)
        os.execute("rm -rf " .. q(dir))
        local pairs_seen = {}
        for _, c in ipairs(header) do
            local pair = c:match("^(.*)%.feature$")
            if pair then pairs_seen[#pairs_seen + 1] = pair end
        end
        assert.are.same({ "plane0/" .. long, "plane0/dumbbell[1]", "plane0/dumbbell[2]#1", "plane0/dumbbell[2]#2",
                          "plane0/dumbbell[2]#3", "plane0/dumbbell[2]#4", long .. "/dumbbell[1]", long .. "/dumbbell[2]",
                          "polyhedron5/" .. long, "polyhedron5/dumbbell[1]", "polyhedron5/dumbbell[2]#1", "polyhedron5/dumbbell[2]#2",
                          "polyhedron5/dumbbell[2]#3", "polyhedron5/dumbbell[2]#4" },
                        pairs_seen)
    end)
end)

describe("a dim = 3 world's output: two named bodies in contact", function()
    it("write the pair's columns A/B (lower shape id first) and a line between the centres", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, 0 }, default_law = rc.newton{ e = 0.5, mu = 0.3 } }
        local a = w:body{ name = "a", mass = 1, inertia = { 0.004, 0.004, 0.004 }, v = { 1, 0.1, 0, 0, 0, 3 }, shape = rc.sphere{ 0.1 } }
        local b = w:body{ name = "b", mass = 2, inertia = { 0.01, 0.01, 0.01 }, q = { 0.25, 0.02, 0, 1, 0, 0, 0 },
                          shape = rc.capsule{ radius = 0.1, half_length = 0.2 } }
        local sim = w:simulation{ h = H }
        local dir = os.tmpname()
        os.remove(dir)
        local hits, rows = {}, nil
        sim:after_step(function(s)
            local cs = w:contacts3()
            if #cs > 0 then hits[s.steps] = cs[1] end
        end)
        sim:output{ dir = dir, every = 1 }
        sim:vtk{ dir = dir .. "/vtk", every = 1 }
        sim:run{ T = 0.1 }
        sim:close_output()
        sim:close_vtk()
        local header
        header, rows = read_history(dir)
        local col = {}
        for i, name in ipairs(header) do col[name] = i end
        assert.is_not_nil(col["a/b.pN"])
        assert.is_nil(col["b/a.pN"])
        local first, nhit = nil, 0
        for step, c in pairs(hits) do
            nhit = nhit + 1
            if c.active and (not first or step < first) then first = step end
            local r = rows[step + 1]
            assert.are.equal(g15(c.gN), r[col["a/b.gN"]])
            for k, key in ipairs({ "uN", "uT1", "uT2" }) do assert.are.equal(g15(c.u[k]), r[col["a/b." .. key]]) end
            for k, key in ipairs({ "pN", "pT1", "pT2" }) do assert.are.equal(g15(c.p[k]), r[col["a/b." .. key]]) end
        end
        assert.is_true(nhit > 0 and first ~= nil)
        assert.is_true(hits[first].p[1] > 0)
        for k, r in ipairs(rows) do
            if not hits[k - 1] then assert.are.equal("nan", r[col["a/b.pN"]]) end
        end
        if python then
            local name = string.format("contacts_%06d.vtp", first)
            local res = read_back(dir .. "/vtk", { name })
            local ct = res.files[name]
            assert.are.equal(1, ct.nlines)
            local r = rows[first + 1]
            for k, key in ipairs({ "x", "y", "z" }) do
                assert.are.equal(r[col["a." .. key]], g15(ct.points[1][k]))
                assert.are.equal(r[col["b." .. key]], g15(ct.points[2][k]))
            end
            assert.are.equal(hits[first].p[1] / H, ct.CD.normal_force[1])
        end
        os.execute("rm -rf " .. q(dir))
    end)
end)

describe("a dim = 3 world's output", function()
    local dir, rec, nframes, header, rows, col
    setup(function()
        dir = os.tmpname()
        os.remove(dir)
        rec, nframes = scene(dir, dir .. "/vtk")
        header, rows = read_history(dir)
        col = {}
        for i, name in ipairs(header) do col[name] = i end
    end)
    teardown(function() os.execute("rm -rf " .. q(dir)) end)

    it("names the bodies' and the contact pairs' columns", function()
        local want = { "t", "E", "E_kin", "E_pot", "W_ext", "W_N", "W_T" }
        for _, b in ipairs({ "ball", "cap", "crate" }) do
            for _, k in ipairs({ "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz" }) do
                want[#want + 1] = b .. "." .. k
            end
        end
        for _, p in ipairs(PAIRS) do
            for g = 1, p[4] do
                for _, k in ipairs(CCOLS) do want[#want + 1] = p[1] .. (p[4] > 1 and "#" .. g or "") .. "." .. k end
            end
        end
        for _, k in ipairs({ "W_J", "W_proj", "W_theta", "W_damp", "E_spring", "E_elastic" }) do want[#want + 1] = k end
        -- a dim = 3 world's audit of Acary & Collins-Craft 2024 (Figs 12-13), as a FEM world's
        for _, k in ipairs({ "WT_max_pos", "WT_min_neg", "dissipation" }) do want[#want + 1] = k end
        assert.are.same(want, header)
        assert.are.equal(41, #rows)   -- the state at open, then every 10th of 400 steps
    end)

    it("writes the bodies' state of the same steps, exactly as printed, with |q| = 1", function()
        local worst = 0
        for k, r in ipairs(rows) do
            local step = 10 * (k - 1)
            assert.are.equal(g15(step * H), r[1])
            for i, b in ipairs({ "ball", "cap", "crate" }) do
                local s = rec[step].bodies[i]
                for j, key in ipairs({ "x", "y", "z", "qw", "qx", "qy", "qz" }) do assert.are.equal(g15(s.q[j]), r[col[b .. "." .. key]]) end
                for j, key in ipairs({ "vx", "vy", "vz", "wx", "wy", "wz" }) do assert.are.equal(g15(s.v[j]), r[col[b .. "." .. key]]) end
                local n2 = 0
                for _, key in ipairs({ "qw", "qx", "qy", "qz" }) do n2 = n2 + tonumber(r[col[b .. "." .. key]]) ^ 2 end
                worst = math.max(worst, math.abs(math.sqrt(n2) - 1))
            end
        end
        assert.is_true(worst < 1e-14, "|q| - 1 = " .. worst)
    end)

    it("writes each pair's contacts, by feature, as w:contacts3() gives them; nan where apart", function()
        local seen = { }
        for k, r in ipairs(rows) do
            local step = 10 * (k - 1)
            for _, p in ipairs(PAIRS) do
                local mine = {}
                for _, c in ipairs(rec[step].contacts) do
                    if c.shape_a == p[2] and c.shape_b == p[3] then
                        mine[#mine + 1] = table.concat({ g15(c.gN), g15(c.u[1]), g15(c.u[2]), g15(c.u[3]),
                                                         g15(c.p[1]), g15(c.p[2]), g15(c.p[3]) }, ",")
                    end
                end
                local got, last = {}, -1
                for g = 1, p[4] do
                    local pre = p[1] .. (p[4] > 1 and "#" .. g or "") .. "."
                    local f = r[col[pre .. "feature"]]
                    if f ~= "nan" then
                        assert.is_true(g <= #mine + 0 or false, "group " .. g .. " filled")
                        assert.is_true(tonumber(f) > last, "features in order")
                        last = tonumber(f)
                        local vals = {}
                        for i = 2, 8 do vals[#vals + 1] = r[col[pre .. CCOLS[i]]] end
                        got[#got + 1] = table.concat(vals, ",")
                    else
                        for i = 2, 8 do assert.are.equal("nan", r[col[pre .. CCOLS[i]]]) end
                    end
                end
                table.sort(mine)
                table.sort(got)
                assert.are.same(mine, got)
                if #got > 0 then seen[p[1]] = math.max(seen[p[1]] or 0, #got) end
            end
        end
        -- the ball, the capsule (lying: two points) and the box (flat: four) reach the floor
        assert.are.equal(1, seen["plane0/ball"])
        assert.are.equal(2, seen["plane0/cap"])
        assert.are.equal(4, seen["plane0/crate"])
        assert.is_nil(rows[1][col["plane0/ball.gN"]] ~= "nan" or nil)   -- no contact before the first step
    end)

    it("balances the energy columns: E - E0 = W_ext + W_N + W_T + W_theta", function()
        local E0 = tonumber(rows[1][col.E])
        local worst, scale, dissipated = 0, 0, 0
        for _, r in ipairs(rows) do
            local E = tonumber(r[col.E])
            local W = 0
            for _, k in ipairs({ "W_ext", "W_N", "W_T", "W_J", "W_proj", "W_theta", "W_damp" }) do W = W + tonumber(r[col[k]]) end
            worst = math.max(worst, math.abs(E - E0 - W))
            scale = math.max(scale, math.abs(E))
            dissipated = tonumber(r[col.W_N]) + tonumber(r[col.W_T])
            local Ek, Ep = tonumber(r[col.E_kin]), tonumber(r[col.E_pot])
            assert.is_true(math.abs(Ek + Ep - E) <= 1e-14 * (math.abs(Ek) + math.abs(Ep)))
        end
        assert.is_true(dissipated < -1e-3, "the impacts and friction dissipate: " .. dissipated)
        assert.is_true(worst <= 1e-12 * scale, "defect " .. worst .. " of " .. scale)
    end)

    it("writes the VTK series of the bodies' surfaces and the contact forces", function()
        need_reader()
        assert.are.equal(9, nframes)   -- steps 0, 50, ..., 400
        local last = "000008"
        local res = read_back(dir .. "/vtk", { "pvd:contacts.pvd", "pvd:shapes.pvd", "grains_" .. last .. ".vtp",
                                               "shapes_" .. last .. ".vtp", "contacts_" .. last .. ".vtp" })
        assert.are.equal(9, res.pvd["contacts.pvd"].n)
        assert.are.equal(9, res.pvd["shapes.pvd"].n)
        local r = rows[#rows]
        local final = rec[400]
        -- grains: the centres
        local gr = res.files["grains_" .. last .. ".vtp"]
        assert.are.equal(3, gr.npoints)
        for i, b in ipairs({ "ball", "cap", "crate" }) do
            for j, key in ipairs({ "x", "y", "z" }) do assert.are.equal(final.bodies[i].q[j], gr.points[i][j]) end
            assert.are.equal(r[col[b .. ".x"]], g15(gr.points[i][1]))
            for j = 1, 4 do assert.are.equal(final.bodies[i].q[3 + j], gr.PD.orientation[i][j]) end
        end
        -- shapes: sphere 2 + 16 x 7 points, capsule 2 + 16 x 8, box 8, plane 4
        local sh = res.files["shapes_" .. last .. ".vtp"]
        assert.are.equal(114 + 130 + 8 + 4, sh.npoints)
        assert.are.equal(128 + 144 + 6 + 1, sh.npolys)
        local c = { tonumber(r[col["ball.x"]]), tonumber(r[col["ball.y"]]), tonumber(r[col["ball.z"]]) }
        local onball, worst = {}, 0
        for i, cell in ipairs(sh.cells) do
            if sh.CD.shape[i] == 1 then for _, id in ipairs(cell) do onball[id + 1] = true end end
        end
        local n = 0
        for id in pairs(onball) do
            local p = sh.points[id]
            n = n + 1
            worst = math.max(worst, math.abs(math.sqrt((p[1] - c[1]) ^ 2 + (p[2] - c[2]) ^ 2 + (p[3] - c[3]) ^ 2) - 0.1))
        end
        assert.are.equal(114, n)
        assert.is_true(worst < 1e-13, "sphere radius error " .. worst)
        -- contacts: one line per active contact, its cell data p / h and p
        local ct = res.files["contacts_" .. last .. ".vtp"]
        local active = {}
        for _, cc in ipairs(final.contacts) do if cc.active then active[cc.id] = cc end end
        local na = 0
        for _ in pairs(active) do na = na + 1 end
        assert.is_true(na >= 7)   -- 1 + 2 + 4 resting
        assert.are.equal(na, ct.nlines)
        for i = 1, ct.nlines do
            local cc = active[ct.CD.id[i]]
            assert.is_not_nil(cc)
            assert.are.equal(cc.p[1], ct.CD.pN[i])
            assert.are.equal(cc.p[2], ct.CD.pT1[i])
            assert.are.equal(cc.p[3], ct.CD.pT2[i])
            assert.are.equal(cc.p[1] / H, ct.CD.normal_force[i])
            for k = 1, 3 do
                local f = (cc.p[1] * cc.n[k] + cc.p[2] * cc.t1[k] + cc.p[3] * cc.t2[k]) / H
                assert.is_true(math.abs(f - ct.CD.force[i][k]) <= 1e-12 * (1 + math.abs(f)))
            end
            -- a ground contact's line: from the point on the plane to the body's centre
            local b = cc.body_b + 1
            local p = ct.points[2 * i]
            for k = 1, 3 do assert.are.equal(final.bodies[b].q[k], p[k]) end
            for k = 1, 3 do assert.are.equal(cc.pa[k], ct.points[2 * i - 1][k]) end
        end
    end)
end)

------------------------------------------------------------- polyhedra in VTK

-- v rotated by the unit quaternion (qw, qx, qy, qz)
local function qrot(Q, v)
    local w, x, y, z = Q[1], Q[2], Q[3], Q[4]
    local cx, cy, cz = y * v[3] - z * v[2], z * v[1] - x * v[3], x * v[2] - y * v[1]   -- u x v
    local dx, dy, dz = y * cz - z * cy, z * cx - x * cz, x * cy - y * cx                -- u x (u x v)
    return { v[1] + 2 * (w * cx + dx), v[2] + 2 * (w * cy + dy), v[3] + 2 * (w * cz + dz) }
end

describe("a dim = 3 world's VTK shapes: convex polyhedra", function()
    it("writes a polygon per hull face (its vertex loop, outward) at the body's pose and offset, and ground polyhedra", function()
        need_reader()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.5 } }
        -- the ground: a wedge (6 vertices, 5 faces: 2 triangles, 3 quads) at (0.1, 0.2, -0.3)
        local wedge = { { -1, -1, 0 }, { 1, -1, 0 }, { 1, -1, 0.3 }, { -1, 1, 0 }, { 1, 1, 0 }, { 1, 1, 0.3 } }
        local at = { 0.1, 0.2, -0.3 }
        local sw = w:obstacle3{ shape = rc.polyhedron{ points = wedge }, point = at }
        -- a body: the icosahedron (12 vertices, 20 faces) of edge 0.2, off its centre of mass
        local phi, s = (1 + math.sqrt(5)) / 2, 0.1
        local ico = {}
        for _, a in ipairs({ -1, 1 }) do
            for _, b in ipairs({ -phi, phi }) do
                ico[#ico + 1] = { 0, a * s, b * s }
                ico[#ico + 1] = { a * s, b * s, 0 }
                ico[#ico + 1] = { b * s, 0, a * s }
            end
        end
        local off = { 0.02, -0.01, 0.03 }
        local c, sn = math.cos(0.35), math.sin(0.35)
        w:body{ name = "ico", mass = 1, inertia = { 0.01, 0.012, 0.014 }, q = { 0.3, -0.1, 0.25, c, sn * 0.6, 0, sn * 0.8 },
                v = { 0.2, 0.1, 0, 3, -2, 5 }, shape = rc.polyhedron{ points = ico, offset = off } }
        local sim = w:simulation{ h = H }
        local dir = os.tmpname()
        os.remove(dir)
        sim:vtk{ dir = dir, every = 20 }
        sim:run{ T = 0.04 }
        assert.are.equal(3, sim:close_vtk())
        local res = read_back(dir, { "grains_000002.vtp", "shapes_000002.vtp" })
        os.execute("rm -rf " .. q(dir))
        local gr, sh = res.files["grains_000002.vtp"], res.files["shapes_000002.vtp"]
        assert.are.equal(12 + 6, sh.npoints)
        assert.are.equal(20 + 5, sh.npolys)
        -- the posed hulls: the wedge at its point, the icosahedron at x + R(Q) (v + offset)
        local x, Q = gr.points[1], gr.PD.orientation[1]
        assert.is_true(math.abs(x[3] - 0.25) > 1e-4)   -- it has moved
        local want = { [sw] = {}, [sw + 1] = {} }
        for k, v in ipairs(wedge) do want[sw][k] = { v[1] + at[1], v[2] + at[2], v[3] + at[3] } end
        for k, v in ipairs(ico) do
            local r = qrot(Q, { v[1] + off[1], v[2] + off[2], v[3] + off[3] })
            want[sw + 1][k] = { x[1] + r[1], x[2] + r[2], x[3] + r[3] }
        end
        local faces, sizes, used, worst, plane = { [sw] = 0, [sw + 1] = 0 }, {}, {}, 0, 0
        for i, cell in ipairs(sh.cells) do
            local sid = sh.CD.shape[i]
            assert.are.equal(4, sh.CD.type[i])
            assert.are.equal(sid == sw and -1 or 0, sh.CD.body[i])
            faces[sid] = faces[sid] + 1
            if sid == sw then sizes[#sizes + 1] = #cell end
            -- each point is one of the posed hull's vertices
            for _, id in ipairs(cell) do
                local p, best = sh.points[id + 1], math.huge
                for _, v in ipairs(want[sid]) do
                    best = math.min(best, math.sqrt((p[1] - v[1]) ^ 2 + (p[2] - v[2]) ^ 2 + (p[3] - v[3]) ^ 2))
                end
                worst = math.max(worst, best)
                used[id] = sid
            end
            -- the face's plane (Newell's normal): its points on it, the hull behind it
            local n, cc = { 0, 0, 0 }, { 0, 0, 0 }
            for j, id in ipairs(cell) do
                local a, b = sh.points[id + 1], sh.points[cell[j % #cell + 1] + 1]
                n[1] = n[1] + (a[2] - b[2]) * (a[3] + b[3])
                n[2] = n[2] + (a[3] - b[3]) * (a[1] + b[1])
                n[3] = n[3] + (a[1] - b[1]) * (a[2] + b[2])
                for k = 1, 3 do cc[k] = cc[k] + a[k] / #cell end
            end
            local len = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2)
            for _, id in ipairs(cell) do
                local p = sh.points[id + 1]
                plane = math.max(plane, math.abs(((p[1] - cc[1]) * n[1] + (p[2] - cc[2]) * n[2] + (p[3] - cc[3]) * n[3]) / len))
            end
            for _, v in ipairs(want[sid]) do
                assert.is_true(((v[1] - cc[1]) * n[1] + (v[2] - cc[2]) * n[2] + (v[3] - cc[3]) * n[3]) / len <= 1e-12,
                               "a hull vertex in front of a face: not outward")
            end
        end
        assert.are.equal(5, faces[sw])
        assert.are.equal(20, faces[sw + 1])
        table.sort(sizes)
        assert.are.same({ 3, 3, 4, 4, 4 }, sizes)
        local nused = 0
        for _ in pairs(used) do nused = nused + 1 end
        assert.are.equal(18, nused)   -- every written point is a face's
        assert.is_true(worst <= 1e-12, "distance to the posed hull vertex " .. worst)
        assert.is_true(plane <= 1e-12, "distance to the face's plane " .. plane)
    end)
end)

--------------------------------------------------- Coulomb--Contensou columns

describe("a dim = 3 world's history: the drilling row of Coulomb--Contensou pairs", function()
    it("adds uD,pD to the pairs of a Contensou law only; pD = -mu m g h while the sphere spins", function()
        local m, R, g, J, mu, Rc, w0 = 1.0, 0.1, 9.81, 0.004, 0.3, 0.01, 10.0
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.contensou{ e = 0, mu = mu, radius = Rc } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        local ball = w:body{ name = "ball", mass = m, inertia = { J, J, J }, q = { 0, 0, R, 1, 0, 0, 0 },
                             v = { 0, 0, 0, 0, 0, w0 }, shape = rc.sphere{ radius = R } }
        local a = w:body{ name = "a", mass = m, inertia = { J, J, J }, q = { 2, 0, R, 1, 0, 0, 0 }, shape = rc.sphere{ radius = R } }
        local b = w:body{ name = "b", mass = m, inertia = { J, J, J }, q = { 2.2, 0, R, 1, 0, 0, 0 }, shape = rc.sphere{ radius = R } }
        w:contact{ a, b, law = rc.newton{ e = 0, mu = 0.3 } }
        local sim = w:simulation{ scheme = "moreau-jean", theta = 1, h = H, solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }
        local dir = os.tmpname()
        os.remove(dir)
        local rec = {}
        sim:after_step(function(s)
            for _, c in ipairs(w:contacts3()) do
                if c.shape_b == 1 then rec[s.steps] = { u = c.u, p = c.p, wz = ball:v()[6] } end
            end
        end)
        sim:output{ dir = dir, every = 1 }
        sim:run{ T = 0.5 }
        sim:close_output()
        local header, rows = read_history(dir)
        os.execute("rm -rf " .. q(dir))
        local col, groups = {}, {}
        for i, name in ipairs(header) do
            col[name] = i
            local pair = name:match("^(.*)%.feature$")
            if pair then
                local n = 0
                while header[i + n + 1] and header[i + n + 1]:sub(1, #pair + 1) == pair .. "." do n = n + 1 end
                groups[pair] = n + 1
            end
        end
        -- Contensou pairs: 10 columns; the pair a/b of the Newton rule keeps its 8
        assert.are.same({ ["plane0/ball"] = 10, ["plane0/a"] = 10, ["plane0/b"] = 10, ["ball/a"] = 10, ["ball/b"] = 10, ["a/b"] = 8 },
                        groups)
        assert.is_nil(col["a/b.pD"])
        local s, n, worst = 3 * math.pi * Rc / 16, 0, 0
        for step = 1, 500 do
            local r, c = rows[step + 1], rec[step]
            assert.are.equal(g15(c.p[4]), r[col["plane0/ball.pD"]])
            assert.are.equal(g15(c.u[4]), r[col["plane0/ball.uD"]])
            -- the drilling moment impulse s p_D: mu m g h (3 pi R_c / 16) against the spin
            worst = math.max(worst, math.abs(s * tonumber(r[col["plane0/ball.pD"]]) + mu * m * g * H * s))
            assert.is_true(math.abs(tonumber(r[col["plane0/ball.uD"]]) - s * c.wz) <= 1e-15 * w0)
            n = n + 1
        end
        assert.are.equal(500, n)
        assert.is_true(worst <= 1e-9 * mu * m * g * H * s, "s pD - mu m g h s: " .. worst)
        -- a resting Contensou contact without spin: p_D = 0; a pair apart: nan
        assert.are.equal("0", rows[#rows][col["plane0/a.pD"]])
        assert.are.equal("nan", rows[#rows][col["ball/a.pD"]])
    end)
end)
