-- vtk_spec.lua -- sim:vtk{...}: the VTK PolyData series (src/io/vtk.c,
-- docs/output-vtk.md), read back by an independent reader: VTK's own
-- vtkXMLPolyDataReader from Python (Debian's python3-vtk9), and the .pvd
-- collections by Python's xml module. Tests that need the reader are pending
-- (with the reason) when no python3 can import vtk.
local rc = require "ricochet"

local H = 1e-3

local function tmpdir()
    local p = os.tmpname()
    os.remove(p)
    assert(os.execute("mkdir -p '" .. p .. "'"))
    return p
end

local function rm_rf(dir)
    os.execute("rm -rf '" .. dir .. "'")
end

local function q(s)
    return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function read_file(path)
    local f = io.open(path, "rb")
    if not f then return nil end
    local s = f:read("a")
    f:close()
    return s
end

-- The message of fn() failing (fn must fail).
local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    assert.are.equal("string", type(err))
    return err
end

local function has(expected, msg)
    assert.matches(expected, msg, 1, true)
end

------------------------------------------------------------------ the reader

local V = require "vtk_read"   -- VTK's reader from python3-vtk9 (vtk_read.lua)
local python, need_reader, read_back = V.python, V.need_reader, V.read_back

------------------------------------------------------------------ scenes

-- Three disks on a floor, a box on the middle one, a triangle on the right
-- one; friction; the left disk pushed sideways (so that it rolls and slides).
local function granular()
    local w = rc.world{ gravity = { 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.3 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local bodies, radius = {}, {}
    for i = 0, 2 do
        bodies[#bodies + 1] = w:body{ mass = 1, inertia = 0.005, q = { -0.25 + 0.25 * i, 0.1, 0 },
                                      v = { i == 0 and -0.3 or 0, 0, 0 }, shape = rc.disk{ radius = 0.1 } }
        radius[#radius + 1] = 0.1
    end
    bodies[#bodies + 1] = w:body{ name = "box", mass = 2, inertia = 0.03, q = { 0, 0.3, 0 },
                                  shape = rc.box{ 0.3, 0.2 } }
    radius[#radius + 1] = math.sqrt(0.15 ^ 2 + 0.1 ^ 2)
    bodies[#bodies + 1] = w:body{ mass = 0.5, inertia = 0.002, q = { 0.27, 0.26, 0.1 },
                                  shape = rc.polygon{ vertices = { { -0.1, -0.05 }, { 0.1, -0.05 }, { 0, 0.1 } } } }
    radius[#radius + 1] = math.sqrt(0.1 ^ 2 + 0.05 ^ 2)
    local sim = w:simulation{ h = H }
    return w, sim, bodies, radius
end

local function close(a, b, tol)
    return math.abs(a - b) <= tol
end

------------------------------------------------------------------ specs

describe("sim:vtk", function()
    it("writes a frame at once and after every n-th step, listed in the .pvd files", function()
        local dir = tmpdir()
        local w, sim = granular()
        assert.are.equal(sim, sim:vtk{ dir = dir .. "/vtk", every = 50 })
        sim:run{ T = 0.2 }                      -- steps 50, 100, 150, 200
        assert.are.equal(5, sim:close_vtk())
        sim:run{ T = 0.3 }                      -- no more frames
        assert.are.equal(0, sim:close_vtk())
        for k = 0, 4 do
            for _, kind in ipairs{ "grains", "contacts", "shapes" } do
                local s = read_file(string.format("%s/vtk/%s_%06d.vtp", dir, kind, k))
                assert.is_truthy(s)
                local head = '<?xml version="1.0"?>\n<VTKFile type="PolyData" version="1.0"'
                assert.are.equal(head, s:sub(1, #head))
            end
        end
        assert.is_nil(read_file(dir .. "/vtk/grains_000005.vtp"))
        local pvd = read_file(dir .. "/vtk/series.pvd")
        local n = 0
        for _ in pvd:gmatch("<DataSet ") do n = n + 1 end
        assert.are.equal(15, n)
        assert.matches("</Collection>\n</VTKFile>\n$", pvd)
        w:close()
        rm_rf(dir)
    end)

    it("is read back by VTK: bodies, velocities, radii, contacts and forces", function()
        need_reader()
        local dir = tmpdir()
        local w, sim, bodies, radius = granular()
        sim:vtk{ dir = dir, every = 25, disk_outlines = true }
        sim:run{ T = 0.1 }
        local res = read_back(dir, { "pvd:series.pvd", "pvd:grains.pvd", "pvd:contacts.pvd", "pvd:shapes.pvd",
                                     "grains_000004.vtp", "contacts_000004.vtp", "shapes_000004.vtp",
                                     "contacts_000000.vtp" })

        -- the collections: 5 frames at t = 0, 25 h, ..., 100 h
        local series = res.pvd["series.pvd"]
        assert.are.equal(15, series.n)
        for k = 0, 4 do
            for part = 0, 2 do
                local s = series.sets[3 * k + part + 1]
                assert.are.equal(part, s.part)
                assert.is_true(close(s.t, 25 * k * H, 1e-12))
                assert.are.equal(string.format("%s_%06d.vtp", ({ "grains", "contacts", "shapes" })[part + 1], k), s.file)
            end
        end
        for _, kind in ipairs{ "grains", "contacts", "shapes" } do
            local p = res.pvd[kind .. ".pvd"]
            assert.are.equal(5, p.n)
            assert.are.equal(string.format("%s_%06d.vtp", kind, 4), p.sets[5].file)
            assert.are.equal(0, p.sets[5].part)
            assert.are.equal(series.sets[13].t, p.sets[5].t)
        end

        -- grains: one point per body, exact state
        local g = res.files["grains_000004.vtp"]
        assert.are.equal(#bodies, g.npoints)
        assert.are.equal(#bodies, g.nverts)
        assert.are.equal(sim.t, g.FD.TimeValue[1])
        assert.are.equal(100, g.FD.Step[1])
        assert.are.same({ type = "double", ncomp = 3, n = #bodies }, g.arrays["PD.velocity"])
        for i, b in ipairs(bodies) do
            local qb, vb = b:q(), b:v()
            local p = g.points[i]
            assert.is_true(close(p[1], qb[1], 1e-12) and close(p[2], qb[2], 1e-12) and p[3] == 0)
            local v = g.PD.velocity[i]
            assert.is_true(close(v[1], vb[1], 1e-12) and close(v[2], vb[2], 1e-12) and v[3] == 0)
            assert.is_true(close(g.PD.radius[i], radius[i], 1e-12))
            assert.is_true(close(g.PD.angle[i], qb[3], 1e-12))
            assert.is_true(close(g.PD.omega[i], vb[3], 1e-12))
            assert.are.equal(b.id, g.PD.id[i])
            assert.are.equal(1, g.PD.kind[i])
            assert.are.same({ type = 1, i - 1 }, g.cells[i])   -- VTK_VERTEX
        end
        assert.is_true(bodies[1]:v()[1] < -0.01)                -- it moves: not a trivial state

        -- contacts: one line per active contact, forces = impulses / h
        local c = res.files["contacts_000004.vtp"]
        local active = {}
        for _, ct in ipairs(sim:contacts()) do
            if ct.active then active[#active + 1] = ct end
        end
        assert.is_true(#active >= 5)
        assert.are.equal(#active, c.nlines)
        assert.are.equal(2 * #active, c.npoints)
        local by_id = {}
        for i = 1, c.nlines do by_id[c.CD.id[i]] = i end
        local centre = {}
        for _, b in ipairs(bodies) do centre[b.id] = b:q() end
        local total_fn = 0
        for _, ct in ipairs(active) do
            local i = by_id[ct.id]
            assert.is_truthy(i, "contact " .. ct.id .. " missing")
            assert.are.equal(ct.body_a, c.CD.body_a[i])
            assert.are.equal(ct.body_b, c.CD.body_b[i])
            local fn, ft = ct.pN / H, ct.pT / H
            assert.is_true(close(c.CD.normal_force[i], fn, 1e-12 * (1 + math.abs(fn))))
            assert.is_true(close(c.CD.tangential_force[i], ft, 1e-12 * (1 + math.abs(ft))))
            assert.are.equal(ct.pN, c.CD.pN[i])
            assert.are.equal(ct.pT, c.CD.pT[i])
            assert.are.equal(ct.gN, c.CD.gap[i])
            local f = c.CD.force[i]
            assert.is_true(close(f[1], fn * ct.normal[1] + ft * ct.tangent[1], 1e-12 * (1 + math.abs(fn) + math.abs(ft))))
            assert.is_true(close(f[2], fn * ct.normal[2] + ft * ct.tangent[2], 1e-12 * (1 + math.abs(fn) + math.abs(ft))))
            assert.are.same({ ct.normal[1], ct.normal[2], 0 }, c.CD.normal[i])
            assert.are.same({ ct.point[1], ct.point[2], 0 }, c.CD.contact_point[i])
            -- the line: A's centre (the contact point for the ground) -> B's centre
            local cell = c.cells[i]
            assert.are.equal(3, cell.type)                          -- VTK_LINE
            local a, b = c.points[cell[1] + 1], c.points[cell[2] + 1]
            local ea = ct.body_a == rc.GROUND and ct.point or centre[ct.body_a]
            local eb = centre[ct.body_b]
            assert.are.same({ ea[1], ea[2], 0 }, a)
            assert.are.same({ eb[1], eb[2], 0 }, b)
            if ct.body_a == rc.GROUND then total_fn = total_fn + c.CD.normal_force[i] * ct.normal[2] end
        end
        -- the floor carries the weight (5.5 kg), give or take the accelerations
        assert.is_true(total_fn > 0.8 * 5.5 * 9.81 and total_fn < 1.2 * 5.5 * 9.81)

        -- at t = 0 no step has been made: no contact lines
        local c0 = res.files["contacts_000000.vtp"]
        assert.are.equal(0, c0.nlines)
        assert.are.equal(0, c0.npoints)

        -- shapes: outlines of the 3 disks (32 sides) and the 2 polygons, disk radii and the floor as lines
        local s = res.files["shapes_000004.vtp"]
        assert.are.equal(5, s.npolys)
        assert.are.equal(4, s.nlines)
        assert.are.equal(0, s.nverts)
        local types, npts = {}, {}
        for i, cell in ipairs(s.cells) do
            types[i] = cell.type
            npts[i] = #cell
        end
        -- lines (VTK_LINE = 3): the floor (a half-plane, type 4), the disks' radii;
        -- polygons (VTK_POLYGON = 7, VTK_QUAD = 9, VTK_TRIANGLE = 5): the disks (type 1),
        -- the box and the triangle (type 2)
        assert.are.same({ 3, 3, 3, 3, 7, 7, 7, 9, 5 }, types)
        assert.are.same({ 2, 2, 2, 2, 32, 32, 32, 4, 3 }, npts)
        assert.are.same({ 4, 1, 1, 1, 1, 1, 1, 2, 2 }, s.CD.type)
        assert.are.same({ -1, 0, 1, 2, 0, 1, 2, 3, 4 }, s.CD.body)
        assert.are.same({ 0, 1, 2, 3, 1, 2, 3, 4, 5 }, s.CD.shape)
        -- the box's outline is its vertices in the world frame
        local box = w:find("box")
        local qb = box:q()
        local cs, sn = math.cos(qb[3]), math.sin(qb[3])
        local cell = s.cells[s.nlines + 4]
        assert.are.equal(box.id, s.CD.body[s.nlines + 4])
        for j, v in ipairs{ { -0.15, -0.1 }, { 0.15, -0.1 }, { 0.15, 0.1 }, { -0.15, 0.1 } } do
            local p = s.points[cell[j] + 1]
            assert.is_true(close(p[1], qb[1] + cs * v[1] - sn * v[2], 1e-12))
            assert.is_true(close(p[2], qb[2] + sn * v[1] + cs * v[2], 1e-12))
        end
        w:close()
        rm_rf(dir)
    end)

    it("draws disks as points with a radius by default: outlines only with disk_outlines = true", function()
        need_reader()
        local dir = tmpdir()
        local w, sim = granular()
        sim:vtk{ dir = dir, every = 25 }
        sim:run{ T = 0.05 }
        local res = read_back(dir, { "grains_000002.vtp", "shapes_000002.vtp" })
        -- the grains: one point per body with its bounding radius (the disks' radius 0.1)
        local g = res.files["grains_000002.vtp"]
        assert.are.equal(#w:bodies(), g.npoints)
        for i = 1, 3 do assert.are.equal(0.1, g.PD.radius[i]) end
        -- the shapes: the floor (a line) and the box and the triangle (polygons), no disk
        local s = res.files["shapes_000002.vtp"]
        assert.are.equal(1, s.nlines)
        assert.are.equal(2, s.npolys)
        assert.are.same({ 4, 2, 2 }, s.CD.type)
        assert.are.same({ -1, 3, 4 }, s.CD.body)
        assert.are.equal(2 + 4 + 3, s.npoints)
        has("sim:vtk: 'disk_outlines' must be true or false (got 1)",
            error_of(function() sim:close_vtk(); sim:vtk{ dir = dir, disk_outlines = 1 } end))
        w:close()
        rm_rf(dir)
    end)

    it("writes arrays of several compressed blocks (and exactly one block) that VTK reads", function()
        need_reader()
        -- 4096 bodies: Float64 arrays of exactly 32768 bytes (one full block),
        -- points and velocities of 3 blocks; 4100: a partial last block
        local dir = tmpdir()
        local worlds = {}
        for _, n in ipairs{ 4096, 4100 } do
            local w = rc.world{}
            local bodies = {}
            for i = 0, n - 1 do
                bodies[#bodies + 1] = w:body{ mass = 1, inertia = 1, q = { (i % 64) * 1.0 + 1 / 3, (i // 64) * 1.0, 0.001 * i },
                                              v = { math.sin(i), math.cos(i), i / 7 }, shape = rc.disk{ radius = 0.1 + i * 1e-5 } }
            end
            local sim = w:simulation{ h = H }
            sim:vtk{ dir = dir .. "/n" .. n }
            sim:step()
            worlds[n] = { w = w, bodies = bodies }
        end
        local res = read_back(dir, { "n4096/grains_000001.vtp", "n4100/grains_000001.vtp" })
        for n, x in pairs(worlds) do
            local g = res.files["n" .. n .. "/grains_000001.vtp"]
            assert.are.equal(n, g.npoints)
            for i, b in ipairs(x.bodies) do
                local qb, vb = b:q(), b:v()
                assert.are.same({ qb[1], qb[2], 0 }, g.points[i])
                assert.are.same({ vb[1], vb[2], 0 }, g.PD.velocity[i])
                assert.are.equal(qb[3], g.PD.angle[i])
                assert.is_true(close(g.PD.radius[i], 0.1 + (i - 1) * 1e-5, 1e-15))
            end
            x.w:close()
        end
        rm_rf(dir)
    end)

    it("checks its arguments and reports kernel errors at the script line", function()
        local w, sim = granular()
        local line = debug.getinfo(1, "l").currentline
        local err = error_of(function() sim:vtk{ dir = "x", evry = 2 } end)
        has("vtk_spec.lua:" .. (line + 1) .. ": sim:vtk: unknown key 'evry' (did you mean 'every'?)", err)
        has("sim:vtk: 'every' must be > 0 (got 0)", error_of(function() sim:vtk{ every = 0 } end))
        has("sim:vtk: 'every' must be an integer (got 1.5)", error_of(function() sim:vtk{ every = 1.5 } end))
        has("sim:vtk: 'dir' must be a string (got 3)", error_of(function() sim:vtk{ dir = 3 } end))
        has("sim:vtk: 'dir' must not be empty", error_of(function() sim:vtk{ dir = "" } end))
        has("sim:vtk: expected a table argument", error_of(function() sim:vtk("out") end))
        -- a directory below a regular file: the kernel's message names the path
        local dir = tmpdir()
        local f = assert(io.open(dir .. "/plain", "w"))
        f:close()
        err = error_of(function() sim:vtk{ dir = dir .. "/plain/vtk" } end)
        has("sim:vtk: rc_vtk_open: cannot create directory " .. dir .. "/plain/vtk", err)
        -- one series at a time
        sim:vtk{ dir = dir .. "/a" }
        has("sim:vtk: a VTK series is already being written to '" .. dir .. "/a'",
            error_of(function() sim:vtk{ dir = dir .. "/b" } end))
        assert.are.equal(1, sim:close_vtk())
        sim:vtk{ dir = dir .. "/b", every = 2 }
        -- a frame that cannot be written fails the step's caller, naming the file
        assert(os.execute("mkdir '" .. dir .. "/b/grains_000001.vtp'"))
        sim:step()                                          -- step 1: no frame
        line = debug.getinfo(1, "l").currentline
        err = error_of(function() sim:step() end)           -- step 2: frame 1
        has("vtk_spec.lua:" .. (line + 1) .. ": sim:vtk: rc_vtk_frame: cannot open " .. dir .. "/b/grains_000001.vtp", err)
        assert.are.equal(1, sim:close_vtk())
        w:close()
        rm_rf(dir)
    end)
end)

describe("sim:vtk with a periodic cell", function()
    it("draws a contact through the seam between the nearest images, not across the cell", function()
        need_reader()
        local dir = tmpdir()
        local w = rc.world{ gravity = { 0, -9.81 }, periodic = { 0, 1 } }
        w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        local a = w:body{ mass = 1, inertia = 0.001, q = { 0.05, 0.05, 0 }, shape = rc.disk{ radius = 0.05 } }
        local b = w:body{ mass = 1, inertia = 0.001, q = { 0.95, 0.05, 0 }, v = { 0.2, 0, 0 }, shape = rc.disk{ radius = 0.05 } }
        local sim = w:simulation{ h = H }
        sim:vtk{ dir = dir, every = 5 }
        sim:run{ T = 5 * H }
        sim:close_vtk()
        local res = read_back(dir, { "contacts_000001.vtp" })
        local c = res.files["contacts_000001.vtp"]
        local seam = 0
        for i = 1, c.nlines do
            if c.CD.body_a[i] >= 0 then   -- the disk-disk contact, through the seam
                seam = seam + 1
                local p1, p2 = c.points[c.cells[i][1] + 1], c.points[c.cells[i][2] + 1]
                assert.is_true(math.abs(p2[1] - p1[1]) < 0.11)   -- centre to image centre (0.1 apart)
            end
        end
        assert.are.equal(1, seam)
        assert.is_true(a:q()[1] < 0.5 and b:q()[1] > 0.5)   -- the real bodies stay on their sides
        w:close()
        rm_rf(dir)
    end)
end)

-- Bodies that leave and come (src/io/vtk_frame.c): a frame holds the live
-- bodies only, each with its slot (id) and the slot's generation, so that a
-- reader follows a body across frames by (id, generation).
describe("sim:vtk with removals", function()
    it("writes the live bodies with their id and generation, before and after a removal", function()
        need_reader()
        local dir = tmpdir()
        local w = rc.world{ gravity = { 0, -9.81 } }
        w:halfplane{}
        local g = {}
        for i = 1, 3 do
            g[i] = w:body{ mass = 1, inertia = 0.01, q = { 0.5 * i, 1, 0 }, shape = rc.disk{ 0.1 } }
        end
        local sim = w:simulation{ h = H }
        local new
        sim:before_step(function(s)
            if s.steps == 15 then g[2]:remove() end
            if s.steps == 25 then new = w:body{ mass = 2, inertia = 0.02, q = { 3, 2, 0 }, shape = rc.disk{ 0.2 } } end
        end)
        sim:vtk{ dir = dir, every = 10 }
        local at = {}
        sim:after_step(function(s)
            if s.steps == 20 or s.steps == 30 then
                local qs = {}
                for _, b in ipairs(w:bodies()) do qs[b.id] = b:q() end
                at[s.steps] = qs
            end
        end)
        sim:run{ T = 30 * H }
        sim:close_vtk()
        local res = read_back(dir, { "grains_000001.vtp", "grains_000002.vtp", "grains_000003.vtp", "shapes_000002.vtp" })
        local f1, f2, f3 = res.files["grains_000001.vtp"], res.files["grains_000002.vtp"], res.files["grains_000003.vtp"]
        assert.are.same({ type = "int", ncomp = 1, n = 3 }, f1.arrays["PD.generation"])
        assert.are.same({ 0, 1, 2 }, f1.PD.id)
        assert.are.same({ 0, 0, 0 }, f1.PD.generation)
        -- step 20: grain 2 (slot 1) was removed at step 15: two points, slots 0 and 2
        assert.are.equal(2, f2.npoints)
        assert.are.equal(2, f2.nverts)
        assert.are.same({ 0, 2 }, f2.PD.id)
        assert.are.same({ 0, 0 }, f2.PD.generation)
        for i, id in ipairs(f2.PD.id) do
            assert.are.equal(at[20][id][1], f2.points[i][1])
            assert.are.equal(at[20][id][2], f2.points[i][2])
        end
        for _, b in ipairs(res.files["shapes_000002.vtp"].CD.body or {}) do assert.are_not.equal(1, b) end
        -- step 30: the new body took slot 1, generation 1: (1, 1) is not the (1, 0) of frame 1
        assert.are.equal(1, new.id)
        assert.are.same({ 0, 1, 2 }, f3.PD.id)
        assert.are.same({ 0, 1, 0 }, f3.PD.generation)
        assert.are.equal(at[30][1][2], f3.points[2][2])
        assert.are.equal(0.2, f3.PD.radius[2])
        w:close()
        rm_rf(dir)
    end)
end)
