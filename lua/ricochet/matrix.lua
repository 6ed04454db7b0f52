-- ricochet/matrix.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): matrices from files: rc.read_matrix (dense text, Matrix Market).
-- The module's shared locals come from ricochet.private, the argument checks
-- from ricochet.check.

local I = require "ricochet.private"
local rc = I.rc
local type, ipairs = type, ipairs
local check = require "ricochet.check"
local fail, isfinite, show, number, integer = check.fail, check.isfinite, check.show, check.number, check.integer

local function read_dense(fname, path, lines)
    local rows, ncol, first_line = {}, nil, nil
    for ln, l in ipairs(lines) do
        l = l:gsub("#.*$", "")
        local row = {}
        for tok in l:gmatch("[^%s,;]+") do
            local x = tonumber(tok)
            if x == nil then fail(fname, "%s:%d: %s is not a number", path, ln, show(tok)) end
            if not isfinite(x) then fail(fname, "%s:%d: %s is not a finite number", path, ln, show(tok)) end
            row[#row + 1] = x + 0.0
        end
        if #row > 0 then
            if not ncol then
                ncol, first_line = #row, ln
            elseif #row ~= ncol then
                fail(fname, "%s:%d: %d numbers on this line, but %d on line %d (the first row)", path, ln, #row, ncol, first_line)
            end
            rows[#rows + 1] = row
        end
    end
    if #rows == 0 then fail(fname, "%s: no numbers in the file", path) end
    return rows
end

local function read_matrix_market(fname, path, lines, first)
    local words = {}
    for wd in lines[first]:gmatch("%S+") do words[#words + 1] = wd:lower() end
    local function hfail(f, ...) fail(fname, "%s:%d: " .. f, path, first, ...) end
    if words[2] ~= "matrix" then hfail("only 'matrix' objects are supported (got %s)", show(words[2])) end
    if words[3] ~= "coordinate" then
        hfail("only the 'coordinate' format is supported (got %s); write the matrix in coordinate format or as a dense text file",
              show(words[3]))
    end
    local field = words[4]
    if field ~= "real" and field ~= "double" and field ~= "integer" then
        hfail("field %s is not supported (real, double or integer)", show(field))
    end
    local sym = words[5] or "general"
    if sym ~= "general" and sym ~= "symmetric" then
        hfail("symmetry %s is not supported (general or symmetric)", show(sym))
    end
    local nr, nc, rows
    local seen = {}
    for ln = first + 1, #lines do
        local l = lines[ln]
        if l:match("^%s*%%") or not l:match("%S") then
            -- comment or blank line
        else
            local tok = {}
            for x in l:gmatch("%S+") do tok[#tok + 1] = x end
            if not nr then
                local a, b, c = math.tointeger(tonumber(tok[1])), math.tointeger(tonumber(tok[2])), math.tointeger(tonumber(tok[3]))
                if #tok ~= 3 or not a or not b or not c or a < 1 or b < 1 or c < 0 then
                    fail(fname, "%s:%d: expected the size line 'rows columns entries' (got %s)", path, ln, show(l))
                end
                if sym == "symmetric" and a ~= b then
                    fail(fname, "%s:%d: a symmetric matrix must be square (got %d x %d)", path, ln, a, b)
                end
                nr, nc = a, b
                -- the declared sizes against the limit and the entries present,
                -- before the dense table is made (a 60-byte header may declare
                -- 10^5 x 10^5)
                if a * 1.0 * b > rc.MAX_MATRIX_ENTRIES then
                    fail(fname, "%s:%d: a %d x %d matrix has more than the limit of %g entries (rc.MAX_MATRIX_ENTRIES)",
                         path, ln, a, b, rc.MAX_MATRIX_ENTRIES)
                end
                local present, extra_line = 0, nil
                for l2 = ln + 1, #lines do
                    if not (lines[l2]:match("^%s*%%") or not lines[l2]:match("%S")) then
                        present = present + 1
                        if present == c + 1 then extra_line = l2 end
                    end
                end
                if present > c then
                    fail(fname, "%s:%d: more entries than the %d announced on line %d", path, extra_line, c, ln)
                elseif present < c then
                    fail(fname, "%s: %d entries announced on line %d, %d found", path, c, ln, present)
                end
                rows = {}
                for i = 1, nr do
                    local r = {}
                    for j = 1, nc do r[j] = 0.0 end
                    rows[i] = r
                end
            else
                if #tok ~= 3 then
                    fail(fname, "%s:%d: expected an entry 'row column value' (got %s)", path, ln, show(l))
                end
                local i, j, v = math.tointeger(tonumber(tok[1])), math.tointeger(tonumber(tok[2])), tonumber(tok[3])
                if not i or i < 1 or i > nr then fail(fname, "%s:%d: row index %s is not an integer in 1..%d", path, ln, show(tok[1]), nr) end
                if not j or j < 1 or j > nc then fail(fname, "%s:%d: column index %s is not an integer in 1..%d", path, ln, show(tok[2]), nc) end
                if v == nil then fail(fname, "%s:%d: %s is not a number", path, ln, show(tok[3])) end
                if not isfinite(v) then fail(fname, "%s:%d: %s is not a finite number", path, ln, show(tok[3])) end
                local ki, kj = i, j
                if sym == "symmetric" and ki < kj then ki, kj = kj, ki end
                local key = (ki - 1) * nc + kj
                if seen[key] then
                    fail(fname, "%s:%d: entry (%d, %d) is given twice (first on line %d)", path, ln, ki, kj, seen[key])
                end
                seen[key] = ln
                rows[i][j] = v + 0.0
                if sym == "symmetric" then rows[j][i] = v + 0.0 end
            end
        end
    end
    if not nr then fail(fname, "%s: the size line 'rows columns entries' is missing", path) end
    return rows
end

-- A matrix from a text file: dense (one row per line, numbers separated by
-- spaces, commas or semicolons, '#' starts a comment) or Matrix Market
-- coordinate (real | integer, general | symmetric). Returns a table of rows.
function rc.read_matrix(path)
    local fname = "rc.read_matrix"
    if type(path) ~= "string" or path == "" then fail(fname, "'path' must be a file name (got %s)", show(path)) end
    local f, err = io.open(path, "r")
    if not f then fail(fname, "cannot open %s", err) end
    local probe, rerr = f:read(0)   -- a folder opens, but cannot be read
    if probe == nil and rerr then
        f:close()
        fail(fname, "cannot read %s: %s", path, rerr)
    end
    local lines = {}
    for l in f:lines() do lines[#lines + 1] = l end
    f:close()
    local first
    for i, l in ipairs(lines) do
        if l:match("%S") then first = i; break end
    end
    if not first then fail(fname, "%s: the file is empty", path) end
    if lines[first]:match("^%s*%%%%[Mm][Aa][Tt][Rr][Ii][Xx][Mm][Aa][Rr][Kk][Ee][Tt]") then
        return read_matrix_market(fname, path, lines, first)
    end
    return read_dense(fname, path, lines)
end
