-- vtk_read.lua -- reading VTK files back in the specs (vtk_spec.lua,
-- output3d_spec.lua): VTK's own vtkXMLPolyDataReader from Python (Debian's
-- python3-vtk9) and the .pvd collections by Python's xml module.
--   local V = require "vtk_read"
--   V.need_reader()              -- pending (with the reason) without a python3 that imports vtk
--   local res = V.read_back(dir, { "pvd:series.pvd", "grains_000001.vtp" })
local M = {}

local function q(s)
    return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- A python3 that can import vtk: $RC_PYTHON, python3 on the PATH, then
-- /usr/bin/python3 (python3-vtk9 installs into the system Python, which a
-- pyenv or venv python3 on the PATH does not see).
local python, python_why
do
    local cands, why = {}, {}
    if os.getenv("RC_PYTHON") and os.getenv("RC_PYTHON") ~= "" then cands[#cands + 1] = os.getenv("RC_PYTHON") end
    cands[#cands + 1] = "python3"
    cands[#cands + 1] = "/usr/bin/python3"
    for _, c in ipairs(cands) do
        local p = io.popen(q(c) .. " -c 'import vtk; print(vtk.vtkVersion.GetVTKVersion())' 2>&1")
        local out = p:read("a")
        local ok = p:close()
        if ok then python = c; break end
        local last = out:gsub("%s+$", ""):match("([^\n]*)$")
        why[#why + 1] = c .. ": " .. (last ~= "" and last or "not found")
    end
    if not python then
        python_why = "no python3 can import vtk (install python3-vtk9: scripts/setup does): "
                     .. table.concat(why, "; ")
    end
end

local function need_reader()
    if not python then
        io.stderr:write("vtk_spec: ", python_why, "\n")
        pending(python_why)
    end
end

-- Dumps the .pvd collections given as "pvd:NAME" and the .vtp files given by
-- name as lines of words: numbers with repr() (exact), then "done".
local READER = [==[
import sys
import xml.etree.ElementTree as ET
import vtk

d = sys.argv[1]
for arg in sys.argv[2:]:
    if arg.startswith("pvd:"):
        name = arg[4:]
        root = ET.parse(d + "/" + name).getroot()
        assert root.tag == "VTKFile" and root.get("type") == "Collection", name
        sets = root.find("Collection").findall("DataSet")
        print("pvd", name, len(sets))
        for s in sets:
            print("ds", repr(float(s.get("timestep"))), s.get("part"), s.get("file"))
        continue
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(d + "/" + arg)
    r.Update()
    print("error", r.GetErrorCode())
    o = r.GetOutput()
    print("file", arg, o.GetNumberOfPoints(), o.GetNumberOfVerts(), o.GetNumberOfLines(),
          o.GetNumberOfPolys(), o.GetNumberOfStrips())
    for i in range(o.GetNumberOfPoints()):
        print("P", i, *map(repr, o.GetPoint(i)))
    for tag, data in (("PD", o.GetPointData()), ("CD", o.GetCellData()), ("FD", o.GetFieldData())):
        for k in range(data.GetNumberOfArrays()):
            a = data.GetArray(k)
            print("array", tag, a.GetName(), a.GetDataTypeAsString(), a.GetNumberOfComponents(),
                  a.GetNumberOfTuples())
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
        local f = assert(io.open(reader_path, "w"))
        f:write(READER)
        f:close()
    end
    local quoted = {}
    for i, a in ipairs(args) do quoted[i] = q(a) end
    local p = io.popen(q(python) .. " " .. q(reader_path) .. " " .. q(dir) .. " " .. table.concat(quoted, " ") .. " 2>&1")
    local res = { pvd = {}, files = {} }
    local pvd, cur, done, bad = nil, nil, false, {}
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
            cur = { npoints = tonumber(w[3]), nverts = tonumber(w[4]), nlines = tonumber(w[5]),
                    npolys = tonumber(w[6]), nstrips = tonumber(w[7]),
                    points = {}, PD = {}, CD = {}, FD = {}, cells = {}, arrays = {} }
            res.files[w[2]] = cur
        elseif tag == "P" then
            cur.points[tonumber(w[2]) + 1] = { tonumber(w[3]), tonumber(w[4]), tonumber(w[5]) }
        elseif tag == "array" then
            cur.arrays[w[2] .. "." .. w[3]] = { type = w[4], ncomp = tonumber(w[5]), n = tonumber(w[6]) }
            cur[w[2]][w[3]] = {}
        elseif tag == "PD" or tag == "CD" or tag == "FD" then
            local t = {}
            for i = 4, #w do t[#t + 1] = tonumber(w[i]) end
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

M.python, M.python_why, M.need_reader, M.read_back = python, python_why, need_reader, read_back
return M
