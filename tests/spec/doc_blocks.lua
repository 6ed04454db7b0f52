-- doc_blocks.lua -- the fenced code blocks of a Markdown page (docs/*.md), for
-- the specs that run them (docs_run_spec, install_spec).
--
-- Convention (docs/contributing.md, "Runnable examples"): a block that is a
-- complete program is preceded, on the line just before its fence, by
--     <!-- run -->
-- (`<!-- run: slow -->`: a complete program too long for the suite, run when
-- RICOCHET_SLOW_DOCS=1; `<!-- norun: REASON -->`: a complete-looking block that is
-- not run here, e.g. one that fails on purpose or that another spec runs).
-- A ```lua block then runs with the ricochet program (`ricochet run`, in a
-- fresh folder, --quiet) and must exit 0; a ```c block is compiled against
-- the library and run, and when the next block is a plain ``` block whose
-- first line starts with "$ ", its other lines are the expected output
-- (numbers compared to the precision printed; round-off figures below 1e-12
-- in absolute value are all alike).
local M = {}

-- blocks of the text: { lang, code, line (of the first code line), run (marked),
-- slow, norun (the reason), output (the expected output lines, or nil) }
function M.parse(text)
    local lines = {}
    for l in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = l end
    local blocks = {}
    local i = 1
    while i <= #lines do
        local lang = lines[i]:match("^```(%S*)%s*$")
        if lang then
            local first = i + 1
            local j = first
            while j <= #lines and not lines[j]:match("^```%s*$") do j = j + 1 end
            local code = table.concat(lines, "\n", first, j - 1) .. "\n"
            local prev = lines[i - 1] or ""
            local mark = prev:match("^<!%-%-%s*(.-)%s*%-%->%s*$")
            blocks[#blocks + 1] = { lang = lang, code = code, line = first, fence = i,
                                    run = mark == "run" or mark == "run: slow",
                                    slow = mark == "run: slow",
                                    norun = mark and mark:match("^norun: (.+)$"),
                                    body = { table.unpack(lines, first, j - 1) } }
            i = j + 1
        else
            i = i + 1
        end
    end
    -- the expected output of a block: the plain block after it, if it starts with "$ "
    for k, b in ipairs(blocks) do
        local nb = blocks[k + 1]
        if b.run and nb and nb.lang == "" and nb.body[1] and nb.body[1]:match("^%$ ") then
            local out = {}
            for _, l in ipairs(nb.body) do
                if not l:match("^%$ ") then out[#out + 1] = l end
            end
            b.output = out
        end
    end
    return blocks
end

function M.parse_file(path)
    local f = assert(io.open(path, "rb"))
    local text = f:read("a")
    f:close()
    return M.parse(text)
end

-- the marked blocks of a file in one language
function M.runnable(path, lang)
    local r = {}
    for _, b in ipairs(M.parse_file(path)) do
        if b.run and b.lang == lang then r[#r + 1] = b end
    end
    return r
end

local NUM = "^[-+]?%d+%.?%d*[eE][-+]?%d+$"
local function is_number(tok)
    return tok:match(NUM) or tok:match("^[-+]?%d+%.?%d*$") or tok:match("^[-+]?%.%d+$")
end

-- the precision a number is printed with: 2 units of its last digit
local function precision(tok)
    if not tok:find("[.eE]") then return 0 end   -- integers: exact
    local mant, exp = tok:match("^([^eE]*)[eE]([-+]?%d+)$")
    mant = mant or tok
    local dec = mant:match("%.(%d*)$") or ""
    return 2 * 10 ^ ((tonumber(exp) or 0) - #dec)
end

local function tokens(line)
    local t = {}
    -- numbers apart from their punctuation: "(0.063113," -> "(", "0.063113", ","
    for tok in line:gsub("([%(%),=])", " %1 "):gmatch("%S+") do t[#t + 1] = tok end
    return t
end

-- nil if `got` (text) matches the expected lines, else a message
function M.compare_output(expected, got)
    local lines = {}
    for l in got:gmatch("[^\n]*") do lines[#lines + 1] = l end
    while #lines > 0 and lines[#lines] == "" do lines[#lines] = nil end
    if #lines ~= #expected then
        return ("%d lines expected, %d printed:\n%s"):format(#expected, #lines, got)
    end
    for i, want in ipairs(expected) do
        local a, b = tokens(want), tokens(lines[i])
        local ok = #a == #b
        for k = 1, ok and #a or 0 do
            if a[k] ~= b[k] then
                local x, y = tonumber(a[k]), tonumber(b[k])
                if not (is_number(a[k]) and is_number(b[k]) and x and y
                        and ((math.abs(x) < 1e-12 and math.abs(y) < 1e-12)
                             or math.abs(x - y) <= precision(a[k]))) then
                    ok = false
                end
            end
        end
        if not ok then
            return ("output line %d:\n  documented: %s\n  printed:    %s"):format(i, want, lines[i])
        end
    end
    return nil
end

return M
