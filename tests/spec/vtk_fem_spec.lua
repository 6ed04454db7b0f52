-- vtk_fem_spec.lua -- finite-element bodies in sim:vtk (src/io/vtk_fem.c,
-- lua/ricochet/vtk_fem.lua, docs/output-vtk.md): fem_NNNNNN.vtu read back by
-- VTK's own vtkXMLUnstructuredGridReader (python3-vtk9) -- the undeformed
-- nodes, triangles, displacement and velocity, the stress of a uniformly
-- strained block against the analytic values -- and the .pvd files (fem.pvd,
-- part 3 of series.pvd, the incomplete mark) by Python's xml module. Pending
-- when no python3 can import vtk.
local rc = require "ricochet"
local H = require "sh_helper"
local q = H.q
local MESH = H.ROOT .. "/scripts/papers/meshes/acary2024_block_lc5.msh"
local E, NU = 5.75e3, 0.358   -- PMMA (the paper's §5.3; MPa)

local python
for _, c in ipairs{ os.getenv("RC_PYTHON") or "", "python3", "/usr/bin/python3" } do
    if c ~= "" and os.execute(q(c) .. " -c 'import vtk' >/dev/null 2>&1") == true then python = c; break end
end
local function need_reader()
    if not python then pending("no python3 can import vtk (python3-vtk9)") end
end

local READER = [==[
import sys
import xml.etree.ElementTree as ET
import vtk
d = sys.argv[1]
for arg in sys.argv[2:]:
    if arg.startswith("pvd:"):
        root = ET.parse(d + "/" + arg[4:]).getroot()
        sets = root.find("Collection").findall("DataSet")
        print("pvd", arg[4:], len(sets))
        for s in sets:
            print("ds", repr(float(s.get("timestep"))), s.get("part"), s.get("file"))
        continue
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(d + "/" + arg)
    r.Update()
    print("error", r.GetErrorCode())
    o = r.GetOutput()
    print("file", arg, o.GetNumberOfPoints(), o.GetNumberOfCells())
    for i in range(o.GetNumberOfPoints()):
        print("P", i, *map(repr, o.GetPoint(i)))
    for tag, data in (("PD", o.GetPointData()), ("CD", o.GetCellData()), ("FD", o.GetFieldData())):
        for k in range(data.GetNumberOfArrays()):
            a = data.GetArray(k)
            for i in range(a.GetNumberOfTuples()):
                print(tag, a.GetName(), i, *map(repr, a.GetTuple(i)))
    ids = vtk.vtkIdList()
    for c in range(o.GetNumberOfCells()):
        o.GetCellPoints(c, ids)
        print("C", c, o.GetCellType(c), *[ids.GetId(j) for j in range(ids.GetNumberOfIds())])
print("done")
]==]

local reader_path
local function read_back(dir, args)
    if not reader_path then
        reader_path = os.tmpname()
        H.write_file(reader_path, READER)
    end
    local qa = {}
    for i, a in ipairs(args) do qa[i] = q(a) end
    local p = io.popen(q(python) .. " " .. q(reader_path) .. " " .. q(dir) .. " " .. table.concat(qa, " ") .. " 2>&1")
    local res, cur, done, bad = { pvd = {}, files = {} }, nil, false, {}
    local pvd
    for line in p:lines() do
        local w = {}
        for x in line:gmatch("%S+") do w[#w + 1] = x end
        local tag = w[1]
        if tag == "pvd" then
            pvd = { n = tonumber(w[3]), sets = {} }
            res.pvd[w[2]] = pvd
        elseif tag == "ds" then
            pvd.sets[#pvd.sets + 1] = { t = tonumber(w[2]), part = tonumber(w[3]), file = w[4] }
        elseif tag == "error" then
            if w[2] ~= "0" then bad[#bad + 1] = line end
        elseif tag == "file" then
            cur = { npoints = tonumber(w[3]), ncells = tonumber(w[4]), points = {}, PD = {}, CD = {}, FD = {}, cells = {} }
            res.files[w[2]] = cur
        elseif tag == "P" then
            cur.points[tonumber(w[2]) + 1] = { tonumber(w[3]), tonumber(w[4]), tonumber(w[5]) }
        elseif tag == "PD" or tag == "CD" or tag == "FD" then
            local t = {}
            for i = 4, #w do t[#t + 1] = tonumber(w[i]) end
            cur[tag][w[2]] = cur[tag][w[2]] or {}
            cur[tag][w[2]][tonumber(w[3]) + 1] = #t == 1 and t[1] or t
        elseif tag == "C" then
            local t = { type = tonumber(w[3]) }
            for i = 4, #w do t[#t + 1] = tonumber(w[i]) end
            cur.cells[tonumber(w[2]) + 1] = t
        elseif tag == "done" then
            done = true
        else
            bad[#bad + 1] = line
        end
    end
    local ok = p:close()
    assert(ok and done and #bad == 0, "the VTK reader failed:\n" .. table.concat(bad, "\n"))
    return res
end

local function block(w, name)
    return w:fem{ name = name or "block", mesh = rc.read_msh(MESH), E = E, nu = NU, rho = 1.17e-3, thickness = 15 }
end

describe("sim:vtk with finite-element bodies", function()
    it("writes the block's mesh, displacement and the analytic stress of a uniform strain", function()
        need_reader()
        local dir = H.tmpdir()
        local w = rc.world{}
        local b = block(w)
        w:body{ mass = 1, inertia = 1, q = { 50, 10, 0 }, shape = rc.disk{ radius = 1 } }   -- rigid bodies still written
        local exx, eyy, gxy = 1e-3, -4e-4, 6e-4
        local mesh = rc.read_msh(MESH)
        local qv, vv = {}, {}
        for k, p in ipairs(mesh.nodes) do
            local ix, iy = b:dofs(k)
            qv[ix], qv[iy] = exx * p[1] + 0.5 * gxy * p[2], 0.5 * gxy * p[1] + eyy * p[2]
            vv[ix], vv[iy] = -p[2], p[1]   -- a rigid rotation's velocity
        end
        b:set_state{ q = qv, v = vv }
        local sim = w:simulation{ h = 1e-4 }
        sim:vtk{ dir = dir }
        assert.are.equal(1, sim:close_vtk())
        local r = read_back(dir, { "fem_000000.vtu", "pvd:fem.pvd", "pvd:series.pvd" })
        local f = r.files["fem_000000.vtu"]
        assert.are.equal(63, f.npoints)
        assert.are.equal(98, f.ncells)
        for k, p in ipairs(mesh.nodes) do   -- undeformed positions, the mesh's numbering
            assert.are.same({ p[1], p[2], 0 }, f.points[k])
            local u = b:displacements(k)
            assert.are.same({ u[1], u[2], 0 }, f.PD.displacement[k])
            assert.are.same({ -p[2], p[1], 0 }, f.PD.velocity[k])
            assert.are.equal(k, f.PD.node[k])
            assert.are.equal(b.id, f.PD.body[k])
        end
        local c = E / (1 - NU * NU)   -- plane stress
        local sxx, syy, sxy = c * (exx + NU * eyy), c * (eyy + NU * exx), E / (2 * (1 + NU)) * gxy
        local vm = math.sqrt(sxx * sxx - sxx * syy + syy * syy + 3 * sxy * sxy)
        local tol = 1e-10 * E * exx
        for e, t in ipairs(mesh.triangles) do
            assert.are.same({ type = 5, t[1] - 1, t[2] - 1, t[3] - 1 }, f.cells[e])
            local s = f.CD.stress[e]
            assert.is_true(math.abs(s[1] - sxx) < tol and math.abs(s[2] - syy) < tol and math.abs(s[3] - sxy) < tol,
                           string.format("element %d: %g %g %g vs %g %g %g", e, s[1], s[2], s[3], sxx, syy, sxy))
            assert.is_true(math.abs(f.CD.von_mises[e] - vm) < tol)
            assert.are.equal(e, f.CD.element[e])
        end
        assert.are.same({ 0 }, { f.FD.TimeValue[1] })
        assert.are.equal(1, r.pvd["fem.pvd"].n)
        assert.are.same({ t = 0, part = 0, file = "fem_000000.vtu" }, r.pvd["fem.pvd"].sets[1])
        assert.are.equal(4, r.pvd["series.pvd"].n)
        assert.are.same({ t = 0, part = 3, file = "fem_000000.vtu" }, r.pvd["series.pvd"].sets[4])
        H.sh("rm -rf " .. q(dir))
    end)

    it("follows a run: every n-th step, the last frame is the body's state; bodies added later join", function()
        need_reader()
        local dir = H.tmpdir()
        local w = rc.world{ gravity = { 0, -1e-3 } }
        local b = w:fem{ name = "block", mesh = rc.read_msh(MESH), E = E, nu = NU, rho = 1.17e-3, thickness = 15,
                         gravity = true }
        w:fem_contact{ b, nodes = "bottom", halfplane = { point = { 0, 0 }, normal = { 0, 1 } }, law = rc.newton{ e = 0, mu = 0.5 } }
        local sim = w:simulation{ h = 1e-3 }
        sim:vtk{ dir = dir, every = 5 }
        sim:run{ T = 0.0045 }   -- 5 steps (the last one ends past T)
        local b2 = w:fem{ name = "second", mesh = rc.read_msh(MESH), E = E, nu = NU, rho = 1.17e-3, thickness = 15 }
        sim:run{ T = 0.0095 }
        assert.are.equal(3, sim:close_vtk())
        local r = read_back(dir, { "fem_000000.vtu", "fem_000002.vtu", "pvd:fem.pvd" })
        assert.are.equal(63, r.files["fem_000000.vtu"].npoints)
        local f = r.files["fem_000002.vtu"]
        assert.are.equal(126, f.npoints)   -- the second body from the frame after its creation
        assert.are.equal(196, f.ncells)
        for e = 1, 98 do   -- the second body's cells refer to its own points
            for a = 1, 3 do assert.are.equal(f.cells[e][a] + 63, f.cells[98 + e][a]) end
        end
        local moved = 0
        for k, u in ipairs(b:displacements()) do
            assert.are.same({ u[1], u[2], 0 }, f.PD.displacement[k])
            assert.are.same(0, f.PD.displacement[63 + k][1])
            assert.are.equal(b2.id, f.PD.body[63 + k])
            if u[2] < 0 then moved = moved + 1 end
        end
        assert.is_true(moved > 0)   -- it sags under its weight
        assert.are.same({ 0, 0.005, 0.01 }, { r.pvd["fem.pvd"].sets[1].t, r.pvd["fem.pvd"].sets[2].t,
                                             r.pvd["fem.pvd"].sets[3].t })
        H.sh("rm -rf " .. q(dir))
    end)

    it("marks fem.pvd incomplete when the run fails; no fem.pvd without finite-element bodies", function()
        local dir = H.tmpdir()
        local w = rc.world{}
        block(w)
        local sim = w:simulation{ h = 1e-3 }
        sim:vtk{ dir = dir .. "/a" }
        sim:after_step(function() error("boom") end)
        assert.is_false(pcall(sim.run, sim, { T = 0.003 }))
        local text = H.read_file(dir .. "/a/fem.pvd")
        assert.matches('file="fem_000001.vtu"/>\n  <!-- ricochet: incomplete: error: ', text, 1, true)
        assert.matches("boom", text, 1, true)
        assert.matches("</Collection>\n</VTKFile>\n$", text)
        local w2 = rc.world{}
        w2:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 1 } }
        local s2 = w2:simulation{ h = 1e-3 }
        s2:vtk{ dir = dir .. "/b" }
        s2:run{ T = 0.002 }
        s2:close_vtk()
        assert.is_nil(H.read_file(dir .. "/b/fem.pvd"))
        assert.is_nil(H.read_file(dir .. "/b/series.pvd"):find("fem_", 1, true))
        H.sh("rm -rf " .. q(dir))
    end)
end)
