-- ricochet/gmsh.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- rc.gmsh{ geo, lc, out, order, program }: mesh a Gmsh .geo file with the
-- gmsh program (Debian package gmsh) and read the result (rc.read_msh).
-- gmsh runs from an argument vector (ricochet.core.run_program: no shell);
-- the sandbox refuses it. Reference: docs/meshes.md.

local I = require "ricochet.private"
local core, rc = I.core, I.rc
local fmt, type, tostring, ipairs = string.format, type, tostring, ipairs
local check = require "ricochet.check"
local fail, show, check_keys, check_table, number, positive = check.fail, check.show, check.check_keys, check.check_table,
                                                               check.number, check.positive

local FNAME = "rc.gmsh"
local USAGE = 'rc.gmsh{ geo = "block.geo", lc = 1.0, out = "block.msh" }'
local TAIL_LINES = 8

-- What to show of gmsh's output: its first lines that start with "Error"
-- (at most n, a repeated line once) and its last 3 lines; without errors,
-- its last n lines. Indented.
local function summary(s, n)
    local lines, errs, seen = {}, {}, {}
    for l in (s:gsub("%s+$", "") .. "\n"):gmatch("([^\n]*)\n") do
        lines[#lines + 1] = l
        if l:match("^Error") and not seen[l] and #errs < n then errs[#errs + 1], seen[l] = l, true end
    end
    local r, first = {}, math.max(1, #lines - (#errs > 0 and 3 or n) + 1)
    for _, l in ipairs(errs) do r[#r + 1] = "  " .. l end
    if #errs > 0 then r[#r + 1] = "  ..." end
    for i = first, #lines do r[#r + 1] = "  " .. lines[i] end
    return table.concat(r, "\n")
end

local function string_key(key, v, required)
    if v == nil and not required then return nil end
    if type(v) ~= "string" or v == "" then fail(FNAME, "'%s' must be a file name (got %s)", key, show(v)) end
    return v
end

-- -setnumber lc gives lc a value before the .geo is read: a plain `lc = 1;`
-- in the file overrides it without a word, and a file without lc ignores it.
-- Both are refused: the mesh would not have the size asked for.
local function check_lc(geo, text, lc)
    local n = 0
    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
        n = n + 1
        local code = line:gsub("//.*$", "")
        if code:match("^%s*lc%s*=") then
            fail(FNAME, "'lc' = %s would be ignored: %s sets lc itself (line %d: '%s'); declare it with "
                 .. "DefineConstant[ lc = %s ]; so that gmsh's -setnumber lc can change it",
                 show(lc), geo, n, (code:gsub("^%s+", ""):gsub("%s+$", "")), (code:match("=%s*([^;]*)") or "1"))
        end
    end
    if not text:gsub("//[^\n]*", ""):find("%f[%w_]lc%f[^%w_]") then
        fail(FNAME, "'lc' = %s would be ignored: %s has no parameter lc (declare it with DefineConstant[ lc = 1 ]; "
             .. "and use it as the points' mesh size)", show(lc), geo)
    end
end

-- rc.gmsh{ geo = path, lc = number, out = path, order = 1, program = "gmsh" } -> mesh (rc.read_msh)
function rc.gmsh(t)
    check_table(FNAME, t, USAGE)
    check_keys(FNAME, t, { "geo", "lc", "out", "order", "program" })
    local geo = string_key("geo", t.geo, true)
    local lc = t.lc ~= nil and positive(FNAME, "lc", number(FNAME, "lc", t.lc)) or nil
    local out = string_key("out", t.out)
    local program = string_key("program", t.program) or "gmsh"
    local order = t.order == nil and 1 or t.order
    if order ~= 1 then
        fail(FNAME, "'order' must be 1 (3-node triangles, the elements of w:fem; got %s)", show(order))
    end
    if core.sandboxed() then
        fail(FNAME, "running an external program (%s) is not available in the sandbox: mesh outside it and read the .msh with rc.read_msh", program)
    end
    local f, err = io.open(geo, "r")
    if not f then fail(FNAME, "cannot open 'geo': %s", err) end
    local text = f:read("a") or ""
    f:close()
    if lc then check_lc(geo, text, lc) end
    local tmp
    if not out then
        tmp = os.tmpname()
        out = tmp .. ".msh"
    end
    local argv = { program, geo, "-2", "-order", "1", "-format", "msh41", "-o", out }
    if lc then
        argv[#argv + 1], argv[#argv + 2], argv[#argv + 3] = "-setnumber", "lc", fmt("%.17g", lc)
    end
    local status, output, ename = core.run_program(argv)
    local function cleanup()
        if tmp then os.remove(tmp); os.remove(out) end
    end
    if not status then
        cleanup()
        if ename == "ENOENT" then
            fail(FNAME, "cannot run '%s': it is not installed (Debian package gmsh: apt-get install gmsh; scripts/setup installs it), or not on the PATH", program)
        end
        fail(FNAME, "%s", output)
    end
    if status ~= 0 then
        cleanup()
        local how = status < 0 and fmt("killed by signal %d", -status) or fmt("exit status %d", status)
        fail(FNAME, "%s failed on '%s' (%s):\n%s", program, geo, how, summary(output, TAIL_LINES))
    end
    local ok, mesh = pcall(rc.read_msh, out)
    cleanup()
    if not ok then fail(FNAME, "%s (the mesh %s wrote for '%s')", tostring(mesh):gsub("^.-rc%.read_msh: ", "rc.read_msh: "), program, geo) end
    return mesh
end
