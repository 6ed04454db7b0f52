--[[
ricochet.check -- the argument checks of the Lua front end (part of
require "ricochet", lua/ricochet/init.lua): errors raised at the user's
script line (raise), unknown keys with a suggestion, numbers, ranges,
options, vectors, functions. The ranges of the kernel's definitions (laws,
...) are checked by the kernel only (c_check), their defaults read from it
(core.defaults). Every message names the function and the
argument (docs/lua-api.md).
]]

local type, tostring, pairs, ipairs, select = type, tostring, pairs, ipairs, select
local setmetatable, getmetatable, rawget, rawset = setmetatable, getmetatable, rawget, rawset
local floor, huge, mtype = math.floor, math.huge, math.type
local fmt = string.format

------------------------------------------------------------------ errors

-- Files of this module: errors are reported at the first frame outside them.
local MODULE_DIR = debug.getinfo(1, "S").source:match("^@(.*[/\\])")

local function in_module(source)
    return MODULE_DIR ~= nil and source:sub(1, 1) == "@"
        and source:sub(2, #MODULE_DIR + 1) == MODULE_DIR
end

-- Raise msg at the level of the first Lua function outside this module (the
-- user's script line), skipping C frames such as pcall.
local function raise(msg)
    local level = 2
    while true do
        local info = debug.getinfo(level, "S")
        if not info then error(msg, 0) end
        if info.what ~= "C" and not in_module(info.source) then break end
        level = level + 1
    end
    error(msg, level)
end

local function fail(fname, f, ...)
    if select("#", ...) > 0 then f = fmt(f, ...) end
    raise(fname .. ": " .. f)
end

local function isfinite(x)
    return x == x and x ~= huge and x ~= -huge
end

-- A value, shown in a message.
local function show(v)
    local t = type(v)
    if t == "number" then
        if v ~= v then return "nan" end
        if v == huge then return "inf" end
        if v == -huge then return "-inf" end
        if mtype(v) == "integer" then return tostring(v) end
        for _, f in ipairs{ "%.15g", "%.16g", "%.17g" } do
            local s = fmt(f, v)
            if tonumber(s) == v then return s end
        end
        return fmt("%.17g", v)
    elseif t == "string" then
        if #v > 40 then v = v:sub(1, 37) .. "..." end
        return "'" .. v .. "'"
    elseif t == "nil" or t == "boolean" then
        return tostring(v)
    end
    return "a " .. t
end

local function showkey(k)
    if type(k) == "string" then return "'" .. k .. "'" end
    return "[" .. show(k) .. "]"
end

local function levenshtein(a, b)
    local prev = {}
    for j = 0, #b do prev[j] = j end
    for i = 1, #a do
        local cur = { [0] = i }
        for j = 1, #b do
            local cost = a:byte(i) == b:byte(j) and 0 or 1
            cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        end
        prev = cur
    end
    return prev[#b]
end

-- Reject keys of t other than the names in `allowed` (a list) and the
-- positional entries 1..npos.
local function check_keys(fname, t, allowed, npos)
    npos = npos or 0
    for k in pairs(t) do
        local ok = false
        if type(k) == "string" then
            for _, a in ipairs(allowed) do
                if a == k then ok = true; break end
            end
            if not ok then
                local best, bestd
                for _, a in ipairs(allowed) do
                    local d = levenshtein(k, a)
                    if not bestd or d < bestd then best, bestd = a, d end
                end
                if best and bestd <= math.max(1, math.min(2, #k // 3)) then
                    fail(fname, "unknown key '%s' (did you mean '%s'?)", k, best)
                end
                fail(fname, "unknown key '%s' (allowed: %s)", k,
                     #allowed > 0 and table.concat(allowed, ", ") or "none")
            end
        elseif mtype(k) == "integer" and k >= 1 and k <= npos then
            ok = true
        end
        if not ok then
            if npos == 0 then
                fail(fname, "unexpected positional entry %s (only named keys are allowed: %s)", showkey(k),
                     table.concat(allowed, ", "))
            end
            fail(fname, "unexpected entry %s (at most %d positional values)", showkey(k), npos)
        end
    end
end

local function check_table(fname, t, example)
    if type(t) ~= "table" then
        fail(fname, "expected a table argument%s (got %s)", example and (", e.g. " .. example) or "", show(t))
    end
    return t
end

local REQUIRED = {}

local function number(fname, key, v, default)
    if v == nil then
        if default == REQUIRED or default == nil then fail(fname, "'%s' is required", key) end
        return default
    end
    if type(v) ~= "number" then fail(fname, "'%s' must be a number (got %s)", key, show(v)) end
    if not isfinite(v) then fail(fname, "'%s' must be a finite number (got %s)", key, show(v)) end
    return v
end

local function integer(fname, key, v, default)
    v = number(fname, key, v, default)
    local i = math.tointeger(v)
    if not i then fail(fname, "'%s' must be an integer (got %s)", key, show(v)) end
    if i < -0x7fffffff or i > 0x7fffffff then fail(fname, "'%s' is out of range (got %s)", key, show(v)) end
    return i
end

local function positive(fname, key, x)
    if not (x > 0) then fail(fname, "'%s' must be > 0 (got %s)", key, show(x)) end
    return x
end

local function nonneg(fname, key, x)
    if not (x >= 0) then fail(fname, "'%s' must be >= 0 (got %s)", key, show(x)) end
    return x
end

local function in01(fname, key, x)
    if not (x >= 0 and x <= 1) then fail(fname, "'%s' must be in [0, 1] (got %s)", key, show(x)) end
    return x
end

local function boolean(fname, key, v, default)
    if v == nil then return default end
    if type(v) ~= "boolean" then fail(fname, "'%s' must be true or false (got %s)", key, show(v)) end
    return v
end

local function opt_name(fname, key, v)
    if v == nil then return nil end
    if type(v) ~= "string" then fail(fname, "'%s' must be a string (got %s)", key, show(v)) end
    if v == "" then fail(fname, "'%s' must not be empty", key) end
    return v
end

local function option(fname, key, v, default, choices)
    if v == nil then return default end
    if type(v) == "string" then
        for _, c in ipairs(choices) do
            if c == v then return v end
        end
    end
    fail(fname, "'%s' must be one of \"%s\" (got %s)", key, table.concat(choices, "\", \""), show(v))
end

-- A table of n finite numbers (a copy). `names` describes it, e.g. "{x, y}".
local function vec(fname, key, v, n, names, default)
    if v == nil then
        if default == nil then fail(fname, "'%s' is required", key) end
        return { table.unpack(default) }
    end
    if type(v) ~= "table" then
        fail(fname, "'%s' must be a table of %d numbers %s (got %s)", key, n, names, show(v))
    end
    for k in pairs(v) do
        if not (mtype(k) == "integer" and k >= 1 and k <= n) then
            fail(fname, "'%s' must be a table of %d numbers %s (unexpected entry %s)", key, n, names, showkey(k))
        end
    end
    local r = {}
    for i = 1, n do
        local x = v[i]
        if x == nil then
            fail(fname, "'%s' must be a table of %d numbers %s (missing entry [%d])", key, n, names, i)
        end
        if type(x) ~= "number" then fail(fname, "'%s[%d]' must be a number (got %s)", key, i, show(x)) end
        if not isfinite(x) then fail(fname, "'%s[%d]' must be a finite number (got %s)", key, i, show(x)) end
        r[i] = x
    end
    return r
end

-- The kernel's range checks (core.check_def, src/lua/lrc_defs.c): the
-- definition t of kind ("law", ...), its keys and types already checked here;
-- the kernel's message names fname, the key and the value and is raised at
-- the user's script line like the checks above.
local core = require "ricochet.core"
local function c_check(kind, fname, t)
    local ok, msg = pcall(core.check_def, kind, fname, t)
    if not ok then   -- a field the Lua checks passed but the C half cannot read (a replaced id)
        raise(fmt("%s: %s", fname, tostring(msg):gsub("^[^:]*:%d+: ", "")))
    end
    if msg then raise(msg) end
    return t
end

local function check_fn(fname, key, v)
    if v ~= nil and type(v) ~= "function" then
        fail(fname, "'%s' must be a function (got %s)", key, show(v))
    end
    return v
end

return {
    MODULE_DIR = MODULE_DIR,
    in_module = in_module,
    raise = raise,
    fail = fail,
    isfinite = isfinite,
    show = show,
    showkey = showkey,
    levenshtein = levenshtein,
    check_keys = check_keys,
    check_table = check_table,
    REQUIRED = REQUIRED,
    number = number,
    integer = integer,
    positive = positive,
    nonneg = nonneg,
    in01 = in01,
    boolean = boolean,
    opt_name = opt_name,
    option = option,
    vec = vec,
    check_fn = check_fn,
    c_check = c_check,
}
