-- ricochet.history: a run's history read back, in either of its formats
-- (sim:output{ format = "csv" | "binary" }; docs/getting-started.md, "The
-- binary history"), and the binary one converted to text.
--
--   local history = require "ricochet.history"
--   local h = history.read("out/run")      -- { names, cols = { t = {...}, ... }, n, complete, notes, file, format }
--   history.convert("out/run")             -- out/run/history.csv.gz from out/run/history.bin
--
-- `ricochet convert OUT [--out FILE]` calls history.convert; plot.read_history
-- is history.read.
local core = require "ricochet.core"
local check = require "ricochet.check"

local M = {}

local fmt, huge, unpack = string.format, math.huge, string.unpack
local fail = check.fail   -- (errors at the caller's line, outside lua/ricochet/)

local HEADER = 40   -- the binary header's fields before the column names (src/io/output_bin.c)

-- The history file of a run's folder: the one its run.json names (a folder
-- converted holds both), else history.csv.gz, else history.bin.
function M.file(dir)
    local f = io.open(dir .. "/run.json", "rb")
    local named = f and f:read("a"):match('\n  "history": "(history%.[%w.]+)",')
    if f then f:close() end
    if named then return dir .. "/" .. named end
    f = io.open(dir .. "/history.csv.gz", "rb")
    if f then f:close(); return dir .. "/history.csv.gz" end
    f = io.open(dir .. "/history.bin", "rb")
    if f then f:close(); return dir .. "/history.bin" end
    return dir .. "/history.csv.gz"
end

local function read_csv(fname, file)
    local text, complete
    if core.read_gz and file:match("%.gz$") then
        text, complete = core.read_gz(file)
        if not text then fail(fname, "%s", complete) end
    else
        local f, err = io.open(file, "rb")
        if not f then fail(fname, "cannot open '%s': %s", file, err) end
        text, complete = f:read("a"), true
        f:close()
    end
    local names, cols, notes, n = {}, {}, {}, 0
    local first = true
    for line in text:gmatch("[^\n]+") do
        if first then
            for name in line:gmatch("[^,]+") do
                names[#names + 1] = name
                cols[name] = {}
            end
            first = false
        elseif line:sub(1, 1) == "#" then
            notes[#notes + 1] = line:sub(2):gsub("^%s+", "")
            if line:find("incomplete", 1, true) then complete = false end
        else
            n = n + 1
            local i = 0
            for v in (line .. ","):gmatch("([^,]*),") do
                i = i + 1
                local c = cols[names[i]]
                if c then c[n] = tonumber(v) or (v == "nan" and 0 / 0) or (v == "inf" and huge) or (v == "-inf" and -huge) or 0 / 0 end
            end
            for k = i + 1, #names do cols[names[k]][n] = 0 / 0 end
        end
    end
    if first then fail(fname, "'%s' is empty (no header line)", file) end
    return { names = names, cols = cols, n = n, complete = complete, notes = notes, file = file, format = "csv" }
end

local function read_binary(fname, file)
    local f, err = io.open(file, "rb")
    if not f then fail(fname, "cannot open '%s': %s", file, err) end
    local data = f:read("a")
    f:close()
    if #data < HEADER or data:sub(1, 8) ~= "RCHISTRY" then
        fail(fname, "'%s' is not a binary history (no \"RCHISTRY\" header)", file)
    end
    local version, bom, ncols, H, rows, state, trailer = unpack("<I4I4I4I4I8I4I4", data, 9)
    if version ~= 1 then fail(fname, "'%s' is a binary history of version %d; this program reads version 1", file, version) end
    if bom ~= 0x01020304 or ncols < 1 or H < HEADER + 2 * ncols or H % 8 ~= 0 or H > #data or state > 2 then
        fail(fname, "'%s' is not a binary history (its header is corrupted)", file)
    end
    local names, cols, at = {}, {}, HEADER + 1
    for i = 1, ncols do
        local ok, name, nxt = pcall(unpack, "z", data, at)
        if not ok or nxt > H + 1 then fail(fname, "'%s' is not a binary history (its column names are corrupted)", file) end
        names[i], at = name, nxt
        cols[name] = {}
    end
    local rb = 8 * ncols
    local have = (#data - H) // rb
    local n, complete, notes = rows, state == 1, {}
    if state == 0 then
        n = have
        notes[1] = "incomplete: running: the history has no end record (the run was killed, or is still running)"
    elseif rows > have then
        n, complete = have, false
        notes[1] = fmt("incomplete: error: the history is cut short (%d of its %d rows)", have, rows)
    elseif state == 2 then
        local text = data:sub(H + n * rb + 1, H + n * rb + trailer):gsub("\n$", "")
        notes[1] = text ~= "" and text:gsub("^#%s*", "") or "incomplete: unknown: the reason was not written"
    end
    -- a row at a time, at most 200 numbers per string.unpack
    local lists = {}
    for i = 1, ncols do lists[i] = cols[names[i]] end
    local pos = H + 1
    for r = 1, n do
        local i = 1
        while i <= ncols do
            local k = math.min(200, ncols - i + 1)
            local v = { unpack("<" .. ("d"):rep(k), data, pos) }
            for j = 1, k do lists[i + j - 1][r] = v[j] end
            pos, i = v[k + 1], i + k
        end
    end
    return { names = names, cols = cols, n = n, complete = complete, notes = notes, file = file, format = "binary" }
end

-- Reads a history: a run's folder (the file M.file names), a history.csv.gz,
-- a .csv or a history.bin. { names = { "t", ... }, cols = { t = {...}, ... },
-- n = rows, complete = false when the file ends early or says "incomplete",
-- notes = { lines }, file, format = "csv" | "binary" }: the same for both
-- formats (NaN where the history has no value).
function M.read(path, fname)
    fname = fname or "ricochet.history.read"
    if type(path) ~= "string" then fail(fname, "'path' must be a string (got %s)", type(path)) end
    local file = path
    if not path:match("%.csv%.gz$") and not path:match("%.csv$") and not path:match("%.bin$") then file = M.file(path) end
    if file:match("%.bin$") then return read_binary(fname, file) end
    return read_csv(fname, file)
end

-- Writes the text history (history.csv.gz, the bytes the CSV format would
-- have written once inflated) of a binary one: `path` a run's folder (its
-- history.bin) or a .bin file; `out` (optional) the file to write (default:
-- history.csv.gz beside it). Returns the file written and its rows.
function M.convert(path, out)
    local fname = "ricochet.history.convert"
    if type(path) ~= "string" or path == "" then fail(fname, "'path' must be a folder or a .bin file (got %s)", tostring(path)) end
    if out ~= nil and (type(out) ~= "string" or out == "") then fail(fname, "'out' must be a file name (got %s)", tostring(out)) end
    local bin = path:match("%.bin$") and path or (path .. "/history.bin")
    out = out or ((bin:match("^(.*)/[^/]*$") or ".") .. "/history.csv.gz")
    local rows, msg = core.history_convert(bin, out)
    if not rows then fail(fname, "%s", (tostring(msg):gsub("^rc_history_convert: ", ""))) end
    return out, rows
end

-- The arguments of `ricochet CMD OUT [WORDS...] [--out FILE]` (view, plot,
-- convert): OUT, FILE and the other words (`more`: allowed), or nil and the
-- exit code once the help or the usage error is printed.
function M.tool_args(cmd, usage, help, args, more)
    local dir, file, rest = nil, nil, {}
    local i = 1
    while i <= #args do
        local a = args[i]
        if a == "--out" or a == "-o" then
            file = args[i + 1]
            if not file then io.stderr:write("ricochet ", cmd, ": --out needs a file name\n") return nil, 2 end
            i = i + 1
        elseif a:match("^%-%-out=") then
            file = a:sub(7)
        elseif a == "--help" or a == "-h" then
            io.stdout:write(usage, "\n", help)
            return nil, 0
        elseif a:sub(1, 1) == "-" and a ~= "-" then
            io.stderr:write(fmt("ricochet %s: unknown option '%s' (%s)\n", cmd, a, usage))
            return nil, 2
        elseif not dir then
            dir = a
        elseif more then
            rest[#rest + 1] = a
        else
            io.stderr:write(fmt("ricochet %s: one folder only (got '%s' and '%s')\n", cmd, dir, a))
            return nil, 2
        end
        i = i + 1
    end
    if not dir then
        io.stderr:write("ricochet ", cmd, ": missing OUT, the folder of a run (", usage, ")\n")
        return nil, 2
    end
    return dir, file, rest
end

-- ricochet convert OUT [--out FILE]: the exit code.
function M.main(...)
    local dir, file = M.tool_args("convert", "usage: ricochet convert OUT [--out FILE]",
        "Writes OUT/history.csv.gz (or FILE) from the binary history OUT/history.bin\n"
        .. "(sim:output{ format = \"binary\" }, ricochet run --format binary): the text the CSV format\n"
        .. "would have written.\n", { ... })
    if not dir then return file end
    local ok, path, rows = pcall(M.convert, dir, file)
    if not ok then
        io.stderr:write("ricochet convert: error: ", (tostring(path):gsub("^.-ricochet%.history%.convert: ", "")), "\n")
        return 1
    end
    io.stdout:write(fmt("ricochet convert: wrote %s (%d rows)\n", path, rows))
    return 0
end

return M
