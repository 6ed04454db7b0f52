--[[
ricochet -- the Lua front end of the Ricochet kernel.

    local rc = require "ricochet"

This file holds the user-facing API: argument checking (types, ranges,
unknown keys, NaN/inf), shape and law descriptors, the world, body and
simulation objects, script parameters and the run loop. ricochet.core (C,
src/lua_ricochet.c) is a thin client of the public C API.

Every error raised here names the function and the argument, and points at
the first calling line outside this module (the user's script), see raise().
The reference is docs/lua-api.md.
]]

local core = require "ricochet.core"

local type, tostring, pairs, ipairs, select = type, tostring, pairs, ipairs, select
local setmetatable, getmetatable, rawget, rawset = setmetatable, getmetatable, rawget, rawset
local floor, huge, mtype = math.floor, math.huge, math.type
local fmt = string.format

local rc = {}
rc.version = core.version
rc.GROUND = core.GROUND
-- Limits of finite inputs that can only overflow or never end (docs/lua-api.md, "Limits")
rc.MAX_GRAVITY = core.MAX_GRAVITY   -- |gravity component|
rc.MIN_H, rc.MAX_H = core.MIN_H, core.MAX_H
rc.MAX_RUN_STEPS = 1e9              -- steps of one sim:run (T / h)
rc.MAX_MATRIX_ENTRIES = 1e7         -- rows x columns of a matrix read by rc.read_matrix
rc.core = core

-- Heap allocations made by the kernel so far (rc_alloc_count).
function rc.alloc_count()
    return core.alloc_count()
end

-- true when the kernel was built with OpenMP (solver.threads > 1 sweeps in parallel).
function rc.openmp()
    return core.openmp()
end

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

local function check_fn(fname, key, v)
    if v ~= nil and type(v) ~= "function" then
        fail(fname, "'%s' must be a function (got %s)", key, show(v))
    end
    return v
end

------------------------------------------------------------------ options from the command line

-- The ricochet program stores its options in package.loaded["ricochet.cli"]:
-- { script = path, out = dir, every = n, quiet = bool, set = { name = "value" },
--   restart = checkpoint path, checkpoint_every = n }.
local NO_OPTIONS = { set = {} }

local function cli_options()
    local o = package.loaded["ricochet.cli"]
    if type(o) ~= "table" then return NO_OPTIONS end
    return o
end

function rc.options()
    return cli_options()
end

function rc.set_options(o)
    local fname = "rc.set_options"
    if o == nil then
        package.loaded["ricochet.cli"] = nil
        return
    end
    check_table(fname, o)
    check_keys(fname, o, { "script", "out", "every", "quiet", "set", "args", "restart", "checkpoint_every" })
    local set = o.set or {}
    if type(set) ~= "table" then fail(fname, "'set' must be a table of name = \"value\" strings (got %s)", show(set)) end
    for k, v in pairs(set) do
        if type(k) ~= "string" or type(v) ~= "string" then
            fail(fname, "'set' must map names to strings (got %s = %s)", showkey(k), show(v))
        end
    end
    if o.out ~= nil then opt_name(fname, "out", o.out) end
    if o.every ~= nil then positive(fname, "every", integer(fname, "every", o.every)) end
    if o.script ~= nil then opt_name(fname, "script", o.script) end
    if o.restart ~= nil then opt_name(fname, "restart", o.restart) end
    if o.checkpoint_every ~= nil then positive(fname, "checkpoint_every", integer(fname, "checkpoint_every", o.checkpoint_every)) end
    boolean(fname, "quiet", o.quiet, false)
    local copy = {}
    for k, v in pairs(o) do copy[k] = v end
    copy.set = set
    package.loaded["ricochet.cli"] = copy
end

-- rc.sandbox{ script = path, out = dir, ... } runs an untrusted script in a
-- new sandboxed Lua state (docs/security.md) and returns how it ended:
-- { status = "complete" | "error" | "limit" | "interrupted", message, limit,
--   instructions, seconds, memory_peak }. Needs a state opened by
-- rc_lua_open (the ricochet program); not available inside a sandbox.
function rc.sandbox(t)
    local fname = "rc.sandbox"
    check_table(fname, t, "rc.sandbox{ script = \"user.lua\", out = \"out/user\", max_seconds = 60 }")
    check_keys(fname, t, { "script", "out", "args", "set", "quiet", "every", "max_instructions",
                           "max_callback_instructions", "max_seconds", "max_memory" })
    if type(t.script) ~= "string" or t.script == "" then
        fail(fname, "'script' must be a file name (got %s)", show(t.script))
    end
    opt_name(fname, "out", t.out)
    if t.args ~= nil then
        if type(t.args) ~= "table" then fail(fname, "'args' must be a list of strings (got %s)", show(t.args)) end
        for i, a in ipairs(t.args) do
            if type(a) ~= "string" then fail(fname, "'args[%d]' must be a string (got %s)", i, show(a)) end
        end
    end
    if t.set ~= nil then
        if type(t.set) ~= "table" then fail(fname, "'set' must be a table of name = \"value\" strings (got %s)", show(t.set)) end
        for k, v in pairs(t.set) do
            if type(k) ~= "string" or type(v) ~= "string" then
                fail(fname, "'set' must map names to strings (got %s = %s)", showkey(k), show(v))
            end
        end
    end
    boolean(fname, "quiet", t.quiet, true)
    if t.every ~= nil then positive(fname, "every", integer(fname, "every", t.every)) end
    for _, k in ipairs({ "max_instructions", "max_callback_instructions", "max_memory" }) do
        local v = t[k]
        if v ~= nil and (mtype(v) ~= "integer" and not (type(v) == "number" and v == floor(v) and v < 2^62) or v < 0) then
            fail(fname, "'%s' must be an integer >= 0 (got %s; 0: no limit)", k, show(v))
        end
    end
    if t.max_seconds ~= nil then nonneg(fname, "max_seconds", number(fname, "max_seconds", t.max_seconds)) end
    local ok, sb = pcall(require, "ricochet.sandbox")
    if not ok then
        fail(fname, "not available here (it needs a Lua state opened by rc_lua_open, as in the ricochet "
                    .. "program, and is not available inside a sandbox)")
    end
    return sb.run(t)
end

------------------------------------------------------------------ parameters

local params, param_order = {}, {}
local params_read = {}   -- names rc.param was asked for (also when --set gave a bad value)

local PARAM_CHECKS = { min = true, max = true, above = true, below = true, one_of = true }

-- The range check of rc.param: nil, or the message for a value out of range.
local function param_violation(value, check)
    if check.one_of then
        for _, x in ipairs(check.one_of) do if value == x then return nil end end
        local names = {}
        for i, x in ipairs(check.one_of) do names[i] = type(x) == "string" and '"' .. x .. '"' or show(x) end
        return "must be one of " .. table.concat(names, ", ")
    end
    if type(value) ~= "number" then return nil end
    if check.min ~= nil and not (value >= check.min) then return "must be >= " .. show(check.min) end
    if check.max ~= nil and not (value <= check.max) then return "must be <= " .. show(check.max) end
    if check.above ~= nil and not (value > check.above) then return "must be > " .. show(check.above) end
    if check.below ~= nil and not (value < check.below) then return "must be < " .. show(check.below) end
    return nil
end

function rc.param(name, default, check)
    local fname = "rc.param"
    if type(name) ~= "string" then fail(fname, "'name' must be a string (got %s)", show(name)) end
    if name == "" or name:find("=", 1, true) then fail(fname, "'name' must be a non-empty string without '=' (got %s)", show(name)) end
    local dt = type(default)
    if dt ~= "number" and dt ~= "boolean" and dt ~= "string" then
        fail(fname, "default of parameter '%s' must be a number, a boolean or a string (got %s)", name, show(default))
    end
    if dt == "number" and not isfinite(default) then
        fail(fname, "default of parameter '%s' must be finite (got %s)", name, show(default))
    end
    if check ~= nil then
        if type(check) ~= "table" then
            fail(fname, "'check' of parameter '%s' must be a table such as { min = 0 } or { one_of = { \"a\", \"b\" } } (got %s)",
                 name, show(check))
        end
        for k, v in pairs(check) do
            if not PARAM_CHECKS[k] then fail(fname, "'check' of parameter '%s': unknown key %s", name, showkey(k)) end
            if k == "one_of" then
                if type(v) ~= "table" or #v == 0 then
                    fail(fname, "'check.one_of' of parameter '%s' must be a non-empty list (got %s)", name, show(v))
                end
                for _, x in ipairs(v) do
                    if type(x) ~= dt then
                        fail(fname, "'check.one_of' of parameter '%s' lists %s, not a %s like the default", name, show(x), dt)
                    end
                end
            elseif type(v) ~= "number" or dt ~= "number" then
                fail(fname, "'check.%s' of parameter '%s' must be a number and the parameter a number (got %s)", k, name, show(v))
            end
        end
        local bad = param_violation(default, check)
        if bad then fail(fname, "default of parameter '%s' %s (got %s)", name, bad, show(default)) end
    end
    local value = default
    local set = cli_options().set
    local s = type(set) == "table" and set[name] or nil
    params_read[name] = true
    if s ~= nil then
        if dt == "number" then
            local x = tonumber(s)
            if x == nil or not isfinite(x) then
                raise(fmt("parameter '%s': expected a number, got '%s'", name, s))
            end
            if mtype(default) == "integer" then
                local i = math.tointeger(x)
                if not i then raise(fmt("parameter '%s': expected an integer, got '%s'", name, s)) end
                x = i
            else
                x = x + 0.0
            end
            value = x
        elseif dt == "boolean" then
            if s == "true" then value = true
            elseif s == "false" then value = false
            else raise(fmt("parameter '%s': expected true or false, got '%s'", name, s)) end
        else
            value = s
        end
        local bad = check and param_violation(value, check)
        if bad then raise(fmt("parameter '%s': %s (got %s)", name, bad, show(value))) end
    end
    if params[name] == nil then param_order[#param_order + 1] = name end
    params[name] = value
    return value
end

function rc.params()
    local copy = {}
    for k, v in pairs(params) do copy[k] = v end
    return copy
end

function rc.reset_params()
    params, param_order, params_read = {}, {}, {}
end

-- Names given with --set that the script never read (typos).
function rc.unused_overrides()
    local r = {}
    local set = cli_options().set
    if type(set) == "table" then
        for k in pairs(set) do
            if params[k] == nil and not params_read[k] then r[#r + 1] = k end
        end
    end
    table.sort(r)
    return r
end

local function json_string(s)
    return '"' .. s:gsub('[%c"\\]', function(c)
        if c == '"' then return '\\"' end
        if c == "\\" then return "\\\\" end
        if c == "\n" then return "\\n" end
        if c == "\t" then return "\\t" end
        return fmt("\\u%04x", c:byte())
    end) .. '"'
end

local function json_value(v)
    if type(v) == "string" then return json_string(v) end
    if type(v) == "boolean" then return tostring(v) end
    if mtype(v) == "integer" then return fmt("%d", v) end
    if not isfinite(v) then return "null" end
    return show(v)
end

-- rc.params() as a JSON object (keys sorted).
function rc.params_json()
    local keys = {}
    for k in pairs(params) do keys[#keys + 1] = k end
    table.sort(keys)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = json_string(k) .. ": " .. json_value(params[k]) end
    return "{" .. table.concat(parts, ", ") .. "}"
end

------------------------------------------------------------------ shape descriptors

local Shape = { __name = "ricochet.shape" }
Shape.__index = Shape
function Shape.__tostring(s)
    return fmt("ricochet.%s%s", s.kind, s.name and (" '" .. s.name .. "'") or "")
end
rc.Shape = Shape

local function shape_common(fname, t, d)
    d.group = integer(fname, "group", t.group, 0)
    d.name = opt_name(fname, "name", t.name)
    return setmetatable(d, Shape)
end

function rc.disk(t)
    local fname = "rc.disk"
    check_table(fname, t, "rc.disk{ radius = 0.5 }")
    check_keys(fname, t, { "radius", "offset", "group", "name" }, 1)
    if t[1] ~= nil and t.radius ~= nil then fail(fname, "give the radius either as {r} or as radius = r, not both") end
    local r = positive(fname, "radius", number(fname, "radius", t.radius or t[1], REQUIRED))
    return shape_common(fname, t, {
        kind = "disk", type = "disk", radius = r,
        offset = vec(fname, "offset", t.offset, 2, "{x, y}", { 0, 0 }),
    })
end

function rc.box(t)
    local fname = "rc.box"
    check_table(fname, t, "rc.box{ 1, 0.5 }")
    check_keys(fname, t, { "width", "height", "offset", "group", "name" }, 2)
    local w, h
    if t[1] ~= nil or t[2] ~= nil then
        if t.width ~= nil or t.height ~= nil then
            fail(fname, "give the size either as {w, h} or as width = w, height = h, not both")
        end
        w = positive(fname, "[1] (width)", number(fname, "[1] (width)", t[1], REQUIRED))
        h = positive(fname, "[2] (height)", number(fname, "[2] (height)", t[2], REQUIRED))
    else
        w = positive(fname, "width", number(fname, "width", t.width, REQUIRED))
        h = positive(fname, "height", number(fname, "height", t.height, REQUIRED))
    end
    local o = vec(fname, "offset", t.offset, 2, "{x, y}", { 0, 0 })
    local x0, x1, y0, y1 = o[1] - w / 2, o[1] + w / 2, o[2] - h / 2, o[2] + h / 2
    return shape_common(fname, t, {
        kind = "box", type = "polygon", width = w, height = h, offset = o,
        vertices = { { x0, y0 }, { x1, y0 }, { x1, y1 }, { x0, y1 } },
    })
end

-- Convex, counter-clockwise, winding once.
local function check_convex(fname, v)
    local n = #v
    local area = 0
    for i = 1, n do
        local a, b = v[i], v[i % n + 1]
        area = area + (a[1] * b[2] - b[1] * a[2])
    end
    if not (area > 0) then
        fail(fname, "'vertices' must be in counter-clockwise order (signed area %s <= 0)", show(area / 2))
    end
    local turn = 0
    for i = 1, n do
        local a, b, c = v[i], v[i % n + 1], v[(i + 1) % n + 1]
        local e1x, e1y = b[1] - a[1], b[2] - a[2]
        local e2x, e2y = c[1] - b[1], c[2] - b[2]
        local cross = e1x * e2y - e1y * e2x
        if not (cross > 0) then
            fail(fname, "'vertices' must form a strictly convex polygon (not convex at vertex %d {%s, %s})",
                 i % n + 1, show(b[1]), show(b[2]))
        end
        turn = turn + math.atan(cross, e1x * e2x + e1y * e2y)
    end
    if math.abs(turn - 2 * math.pi) > 1e-6 then
        fail(fname, "'vertices' must form a simple convex polygon (the boundary winds %d times)",
             floor(turn / (2 * math.pi) + 0.5))
    end
end

function rc.polygon(t)
    local fname = "rc.polygon"
    check_table(fname, t, "rc.polygon{ vertices = {{0, 0}, {1, 0}, {0, 1}} }")
    check_keys(fname, t, { "vertices", "group", "name" })
    local vs = t.vertices
    if vs == nil then fail(fname, "'vertices' is required") end
    if type(vs) ~= "table" then fail(fname, "'vertices' must be a list of {x, y} points (got %s)", show(vs)) end
    local n = #vs
    for k in pairs(vs) do
        if not (mtype(k) == "integer" and k >= 1 and k <= n) then
            fail(fname, "'vertices' must be a list of {x, y} points (unexpected entry %s)", showkey(k))
        end
    end
    local max = core.MAX_POLYGON_VERTICES
    if n < 3 or n > max then fail(fname, "'vertices' must have 3 to %d points (got %d)", max, n) end
    local v = {}
    for i = 1, n do v[i] = vec(fname, fmt("vertices[%d]", i), vs[i], 2, "{x, y}") end
    check_convex(fname, v)
    return shape_common(fname, t, { kind = "polygon", type = "polygon", vertices = v })
end

function rc.point(t)
    local fname = "rc.point"
    check_table(fname, t, "rc.point{ 0.5, 0 }")
    check_keys(fname, t, { "offset", "group", "name" }, 2)
    local o
    if t[1] ~= nil or t[2] ~= nil then
        if t.offset ~= nil then fail(fname, "give the point either as {x, y} or as offset = {x, y}, not both") end
        o = vec(fname, "{x, y}", { t[1], t[2] }, 2, "{x, y}")
    else
        o = vec(fname, "offset", t.offset, 2, "{x, y}", { 0, 0 })
    end
    return shape_common(fname, t, { kind = "point", type = "point", offset = o })
end

------------------------------------------------------------------ law descriptors

local Law = { __name = "ricochet.law" }
Law.__index = Law
function Law.__tostring(l)
    if l.type == "custom" then return fmt("ricochet.law '%s'", l.name) end
    return fmt("ricochet.%s{ e = %s, %smu = %s }%s", l.type, show(l.e),
               l.type == "moreau" and ("e_t = " .. show(l.e_t) .. ", ") or "", show(l.mu),
               l.name and (" '" .. l.name .. "'") or "")
end
rc.Law = Law

function rc.newton(t)
    local fname = "rc.newton"
    if t == nil then t = {} end
    check_table(fname, t, "rc.newton{ e = 0.5, mu = 0.3 }")
    check_keys(fname, t, { "e", "mu", "name", "local_solver" })
    return setmetatable({
        type = "newton",
        local_solver = option(fname, "local_solver", t.local_solver, "exact", { "exact", "generic" }),
        e = in01(fname, "e", number(fname, "e", t.e, 0)),
        mu = nonneg(fname, "mu", number(fname, "mu", t.mu, 0)),
        name = opt_name(fname, "name", t.name),
    }, Law)
end

function rc.moreau(t)
    local fname = "rc.moreau"
    if t == nil then t = {} end
    check_table(fname, t, "rc.moreau{ e = 0.5, e_t = 0, mu = 0.3 }")
    check_keys(fname, t, { "e", "e_t", "mu", "name", "local_solver" })
    local et = number(fname, "e_t", t.e_t, 0)
    if et < -1 or et > 1 then fail(fname, "'e_t' must be in [-1, 1] (got %s)", show(et)) end
    return setmetatable({
        type = "moreau",
        local_solver = option(fname, "local_solver", t.local_solver, "exact", { "exact", "generic" }),
        e = in01(fname, "e", number(fname, "e", t.e, 0)),
        e_t = et,
        mu = nonneg(fname, "mu", number(fname, "mu", t.mu, 0)),
        name = opt_name(fname, "name", t.name),
    }, Law)
end

function rc.fremond(t)
    local fname = "rc.fremond"
    if t == nil then t = {} end
    check_table(fname, t, "rc.fremond{ e = 0.5, mu = 0.3 }")
    check_keys(fname, t, { "e", "mu", "name", "local_solver" })
    return setmetatable({
        type = "fremond",
        local_solver = option(fname, "local_solver", t.local_solver, "exact", { "exact", "generic" }),
        e = in01(fname, "e", number(fname, "e", t.e, 0)),
        e_t = 1,
        mu = nonneg(fname, "mu", number(fname, "mu", t.mu, 0)),
        name = opt_name(fname, "name", t.name),
    }, Law)
end

-- A contact law written in Lua (docs/laws.md). The functions receive the
-- params table as first argument ("law") and a context ctx with t, h, theta,
-- unknown ("end": u = u_{k+1}; "theta": u = u_{k+theta}), contact, gN and
-- the contact's state (ctx.state, named fields):
--   xi(law, uN, uT, uoN, uoT, ctx)           -> xiN, xiT   (modified velocity)
--   project(law, xN, xT, ctx)                -> pN, pT     (onto the admissible set)
--   update(law, ctx, uN, uT, uoN, uoT, pN, pT)             (optional, after each step)
local law_probe_ctx = { t = 0, h = 1e-3, theta = 0.5, unknown = "end", contact = 0, gN = 0,
                        nx = 0, ny = 1, tx = 1, ty = 0 }

local function probe(lname, key, fn, law, ctx, ...)
    local ok, a, b = pcall(fn, law, ...)
    if not ok then raise(fmt("rc.law: law '%s': '%s' fails when called with zeros: %s", lname, key, tostring(a))) end
    for i = 1, 2 do
        local v = i == 1 and a or b
        if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
            raise(fmt("rc.law: law '%s': '%s' must return 2 finite numbers (got %s as value %d)", lname, key, show(v), i))
        end
    end
end

function rc.law(t)
    local fname = "rc.law"
    check_table(fname, t, "rc.law{ name = 'mine', dim = 2, xi = function(law, uN, uT, uoN, uoT, ctx) ... end, project = ... }")
    check_keys(fname, t, { "name", "dim", "params", "state", "xi", "project", "update" })
    local lname = t.name
    if type(lname) ~= "string" or lname == "" then fail(fname, "'name' must be a non-empty string (got %s)", show(lname)) end
    local dim = t.dim
    if dim == nil then dim = 2 end
    if dim ~= 1 and dim ~= 2 then fail(fname, "law '%s': 'dim' must be 1 or 2 (got %s)", lname, show(t.dim)) end
    for _, key in ipairs{ "xi", "project" } do
        if type(t[key]) ~= "function" then
            fail(fname, "law '%s': '%s' must be a function (got %s)", lname, key, show(t[key]))
        end
    end
    if t.update ~= nil and type(t.update) ~= "function" then
        fail(fname, "law '%s': 'update' must be a function or nil (got %s)", lname, show(t.update))
    end
    local params = t.params
    if params == nil then params = {} end
    if type(params) ~= "table" then fail(fname, "law '%s': 'params' must be a table (got %s)", lname, show(params)) end
    local state = t.state
    if state == nil then state = {} end
    if type(state) ~= "table" then fail(fname, "law '%s': 'state' must be a table of named numbers (got %s)", lname, show(state)) end
    local names, state0 = {}, {}
    for k in pairs(state) do
        if type(k) ~= "string" then fail(fname, "law '%s': 'state' keys must be names (got %s)", lname, showkey(k)) end
        names[#names + 1] = k
    end
    table.sort(names)
    if #names > 8 then fail(fname, "law '%s': 'state' has %d values (at most 8)", lname, #names) end
    for i, k in ipairs(names) do
        local v = state[k]
        if type(v) ~= "number" or not isfinite(v) then
            fail(fname, "law '%s': 'state.%s' must be a finite number (got %s)", lname, k, show(v))
        end
        state0[i] = v
    end
    -- probe the functions once with zeros so that wrong shapes fail here
    local ctx = {}
    for k, v in pairs(law_probe_ctx) do ctx[k] = v end
    ctx.state = {}
    for i, k in ipairs(names) do ctx.state[k] = state0[i] end
    probe(lname, "xi", t.xi, params, ctx, 0, 0, 0, 0, ctx)
    probe(lname, "project", t.project, params, ctx, 0, 0, ctx)
    return setmetatable({ type = "custom", name = lname, dim = dim, params = params, xi = t.xi,
                          project = t.project, update = t.update, state_names = names, state0 = state0 }, Law)
end

-- rc.laws.make(name, { e =, mu =, e_t = }): a law by name, for scripts whose
-- law is a parameter (--set law=fremond). Built-in: "newton", "moreau",
-- "fremond"; written in Lua (lua/ricochet/laws/): "lua-coulomb", "lua-fremond".
local function make_law(name, t)
    local fname = "rc.laws.make"
    if type(name) ~= "string" then fail(fname, "'name' must be a string (got %s)", show(name)) end
    if t == nil then t = {} end
    check_table(fname, t, "rc.laws.make(\"fremond\", { e = 1, mu = 0.1 })")
    check_keys(fname, t, { "e", "mu", "e_t" })
    if t.e_t ~= nil then
        local et = number(fname, "e_t", t.e_t, 0)
        if et < -1 or et > 1 then fail(fname, "'e_t' must be in [-1, 1] (got %s)", show(et)) end
        if name ~= "moreau" and et ~= 0 then fail(fname, "'e_t' applies to the law \"moreau\" only (got e_t = %s for %s)", show(et), show(name)) end
    end
    if name == "newton" then return rc.newton{ e = t.e, mu = t.mu } end
    if name == "moreau" then return rc.moreau{ e = t.e, mu = t.mu, e_t = t.e_t } end
    if name == "fremond" then return rc.fremond{ e = t.e, mu = t.mu } end
    if name == "lua-coulomb" then return require("ricochet.laws.coulomb"){ e = t.e, mu = t.mu } end
    if name == "lua-fremond" then return require("ricochet.laws.fremond"){ e = t.e, mu = t.mu } end
    fail(fname, "unknown law %s (newton, moreau, fremond, lua-coulomb, lua-fremond)", show(name))
end

rc.laws = setmetatable({ newton = rc.newton, moreau = rc.moreau, fremond = rc.fremond, make = make_law }, {
    -- laws shipped in lua/ricochet/laws/ load on first use: rc.laws.cohesive{...}
    __index = function(t, k)
        local name = "ricochet.laws." .. tostring(k)
        local ok, mod = pcall(require, name)
        if not ok then
            if tostring(mod):find("module '" .. name .. "' not found", 1, true) then return nil end
            error(mod, 2)   -- the module exists but fails to load: say why
        end
        rawset(t, k, mod)
        return mod
    end,
})

local function check_law(fname, key, l)
    if getmetatable(l) ~= Law then
        fail(fname, "'%s' must be a contact law such as rc.newton{ e = 0, mu = 0 } (got %s)", key, show(l))
    end
    return l
end

------------------------------------------------------------------ world

local World = { __name = "ricochet.world" }
World.__index = World
rc.World = World

local Body = { __name = "ricochet.body" }
Body.__index = Body
rc.Body = Body

-- Body objects. A world holds on to the objects it must: named bodies (w:find),
-- linear bodies, and any body given a field (by the script, or marks such as
-- _force_fn: Body.__newindex); the others, plain rigid bodies such as the grains
-- of a pile, only through a weak cache, so that a grain costs no Lua memory once
-- the script has let go of its object. body_object makes it again from the id
-- when asked for (w:bodies(), ...); while the script holds a body, it gets that
-- same object back.
local function body_pin(b)
    local w = rawget(b, "world")
    rawget(w, "_body_pinned")[rawget(b, "id")] = b
end

function Body.__newindex(b, k, v)
    rawset(b, k, v)
    body_pin(b)
end

local function new_body(w, id, fields, pin)
    fields.id, fields.world = id, w
    local b = setmetatable(fields, Body)
    if pin then body_pin(b) else rawget(w, "_body_cache")[id] = b end
    rawset(w, "_nbodies", rawget(w, "_nbodies") + 1)
    return b
end

local function body_object(w, id)
    local b = rawget(w, "_body_pinned")[id] or rawget(w, "_body_cache")[id]
    if b then return b end
    -- neither named nor linear (those are pinned): a plain rigid body
    b = setmetatable({ id = id, kind = "rigid2d", world = w }, Body)
    rawget(w, "_body_cache")[id] = b
    return b
end

local Ground = { __name = "ricochet.ground" }
Ground.__index = Ground
function Ground.__tostring() return "ricochet.ground" end

local Sim = { __name = "ricochet.simulation" }
rc.Simulation = Sim

-- Worlds with an output that may be open (for the program's clean-up).
local open_outputs = setmetatable({}, { __mode = "k" })
-- VTK series being written (sim -> its series), to mark how they end.
local open_vtk = setmetatable({}, { __mode = "k" })
-- Folders written by this process (to warn when one is overwritten).
local written_dirs = {}

local function check_self(fname, self, mt, what)
    if getmetatable(self) ~= mt then
        fail(fname, "expected %s as first argument (got %s); call it with ':'", what, show(self))
    end
end

local function world_core(fname, w, idle)
    local c = rawget(w, "_c")
    if not core.is_open(c) then fail(fname, "the world has been closed") end
    if idle and core.is_stepping(c) then
        fail(fname, "not allowed inside a force function (the world is stepping)")
    end
    return c
end

function World.__tostring(w)
    return fmt("ricochet.world (%d bodies)", rawget(w, "_nbodies"))
end

function World.__close(w, err)
    w:close(err)
end

local law_id   -- defined with the world's methods below

function rc.world(t)
    local fname = "rc.world"
    if t == nil then t = {} end
    check_table(fname, t, "rc.world{ gravity = {0, -9.81} }")
    check_keys(fname, t, { "dim", "gravity", "margin", "default_law", "periodic" })
    local dim = integer(fname, "dim", t.dim, 2)
    if dim ~= 2 then fail(fname, "'dim' must be 2 (got %s; 3 is not available yet)", show(t.dim)) end
    local g = vec(fname, "gravity", t.gravity, 2, "{gx, gy}", { 0, 0 })
    for i = 1, 2 do
        if math.abs(g[i]) > rc.MAX_GRAVITY then
            fail(fname, "'gravity[%d]' = %s is beyond the limit of %g in magnitude (velocities and energies would overflow)",
                 i, show(g[i]), rc.MAX_GRAVITY)
        end
    end
    local margin = nonneg(fname, "margin", number(fname, "margin", t.margin, 0.01))
    local law = t.default_law
    if law ~= nil then check_law(fname, "default_law", law) end
    local periodic
    if t.periodic ~= nil then
        periodic = vec(fname, "periodic", t.periodic, 2, "{x0, x1}")
        if not (periodic[1] < periodic[2]) then
            fail(fname, "'periodic' must be {x0, x1} with x0 < x1 (got {%s, %s})", show(periodic[1]), show(periodic[2]))
        end
    end
    local builtin_newton = law == nil or (law.type == "newton" and law.local_solver ~= "generic")
    local c, msg = core.world_new{ dim = dim, gravity = g, margin = margin, periodic = periodic,
                                   e = builtin_newton and law and law.e or 0, mu = builtin_newton and law and law.mu or 0 }
    if not c then fail(fname, "%s", msg) end
    local w = setmetatable({
        _c = c, dim = dim, gravity = g, margin = margin, periodic = periodic,
        default_law = law or rc.newton{},
        _nbodies = 0, _body_pinned = {}, _body_cache = setmetatable({}, { __mode = "v" }),
        _by_name = {}, _laws = setmetatable({}, { __mode = "k" }),
        _joints = {}, _joint_names = {},
    }, World)
    w.ground = setmetatable({ id = core.GROUND, name = "ground", world = w }, Ground)
    if not builtin_newton then   -- any other law: created in the world and made the default
        local ok, err = core.set_default_law(c, law_id(w, c, fname, law))
        if not ok then fail(fname, "%s", err) end
    end
    return w
end

-- Close the world: close an open output ("complete", or "error" when err is
-- given) and free the kernel world. Further use raises an error.
function World:close(err)
    check_self("world:close", self, World, "a world")
    local c = rawget(self, "_c")
    if core.is_open(c) and core.is_stepping(c) then
        fail("world:close", "not allowed inside a force function (the world is stepping)")
    end
    if err ~= nil then core.close(c, "error", tostring(err))
    else core.close(c, "complete") end
    open_outputs[self] = nil
end

function law_id(self, c, fname, law)
    local id = self._laws[law]
    if id then return id end
    local msg
    if law.type == "custom" then
        id, msg = core.law_create_custom(c, law)
    else
        id, msg = core.law_create(c, law.type, law.e, law.mu, law.e_t or 0, law.name, law.local_solver == "generic")
    end
    if not id then fail(fname, "%s", msg) end
    self._laws[law] = id
    local users = rawget(law, "_worlds")
    if not users then users = setmetatable({}, { __mode = "k" }); rawset(law, "_worlds", users) end
    users[self] = id
    return id
end

-- law:set{ e =, mu =, e_t = }: change a built-in law's coefficients, in every
-- world that uses it, e.g. from a before_step callback (custom laws: change
-- their params table instead).
function Law:set(t)
    local fname = "law:set"
    if getmetatable(self) ~= Law then fail(fname, "expected a law (call it as law:set{ mu = 0.2 })") end
    if self.type == "custom" then fail(fname, "law '%s' is written in Lua: change its params table instead", self.name) end
    check_table(fname, t, "law:set{ mu = 0.2 }")
    check_keys(fname, t, self.type == "moreau" and { "e", "mu", "e_t" } or { "e", "mu" })
    local e = in01(fname, "e", number(fname, "e", t.e, self.e))
    local mu = nonneg(fname, "mu", number(fname, "mu", t.mu, self.mu))
    local et = number(fname, "e_t", t.e_t, self.e_t or 0)
    if et < -1 or et > 1 then fail(fname, "'e_t' must be in [-1, 1] (got %s)", show(et)) end
    for w, id in pairs(rawget(self, "_worlds") or {}) do
        local c = rawget(w, "_c")
        if core.is_open(c) then
            local ok, msg = core.law_set(c, id, e, mu, et)
            if not ok then fail(fname, "%s", msg) end
        end
    end
    self.e, self.mu = e, mu
    if self.type == "moreau" then self.e_t = et end
    return self
end

local function create_shape(fname, c, body_id, d)
    local id, msg = core.shape_create(c, body_id, d)
    if not id then fail(fname, "%s", msg) end
    return id
end

local function check_shape(fname, key, d)
    if getmetatable(d) ~= Shape then
        fail(fname, "'%s' must be a shape descriptor (rc.disk{...}, rc.box{...}, rc.polygon{...} or rc.point{...}) (got %s)",
             key, show(d))
    end
    return d
end

local BODY_KEYS = { "name", "kind", "mass", "inertia", "q", "v", "force", "force_fn", "shape", "shapes" }

function World:body(t)
    local fname = "world:body"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    check_table(fname, t, "w:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.5 } }")
    check_keys(fname, t, BODY_KEYS)
    local name = opt_name(fname, "name", t.name)
    option(fname, "kind", t.kind, "rigid2d", { "rigid2d" })
    local mass = positive(fname, "mass", number(fname, "mass", t.mass, REQUIRED))
    local inertia = positive(fname, "inertia", number(fname, "inertia", t.inertia, REQUIRED))
    for _, k in ipairs { "mass", "inertia" } do
        local x = k == "mass" and mass or inertia
        if not isfinite(1 / x) then fail(fname, "'%s' = %s is too small: 1/%s is not a finite number", k, show(x), k) end
    end
    local q = vec(fname, "q", t.q, 3, "{x, y, theta}", { 0, 0, 0 })
    local v = vec(fname, "v", t.v, 3, "{vx, vy, omega}", { 0, 0, 0 })
    local force = vec(fname, "force", t.force, 3, "{fx, fy, torque}", { 0, 0, 0 })
    local force_fn = check_fn(fname, "force_fn", t.force_fn)
    local shapes = {}
    if t.shape ~= nil and t.shapes ~= nil then fail(fname, "give either 'shape' or 'shapes', not both") end
    if t.shape ~= nil then
        shapes[1] = check_shape(fname, "shape", t.shape)
    elseif t.shapes ~= nil then
        if type(t.shapes) ~= "table" or getmetatable(t.shapes) ~= nil then
            fail(fname, "'shapes' must be a list of shape descriptors (got %s)", show(t.shapes))
        end
        local n = #t.shapes
        for k in pairs(t.shapes) do
            if not (mtype(k) == "integer" and k >= 1 and k <= n) then
                fail(fname, "'shapes' must be a list of shape descriptors (unexpected entry %s)", showkey(k))
            end
        end
        for i = 1, n do shapes[i] = check_shape(fname, fmt("shapes[%d]", i), t.shapes[i]) end
    end
    if name and self._by_name[name] then fail(fname, "a body named '%s' already exists", name) end
    local id, msg = core.body_create(c, { name = name, mass = mass, inertia = inertia, q = q, v = v, force = force })
    if not id then fail(fname, "%s", msg) end
    local body = new_body(self, id, { name = name, kind = "rigid2d" }, name ~= nil)
    if name then self._by_name[name] = body end
    for _, d in ipairs(shapes) do create_shape(fname, c, id, d) end
    if force_fn then
        local ok, err = core.body_set_force_fn(c, id, force_fn)
        if not ok then fail(fname, "%s", err) end
        body._force_fn = true   -- sim:force_set: the load is not gravity + a constant force (pins the body)
    end
    return body
end

function World:bodies()
    check_self("world:bodies", self, World, "a world")
    local r = {}
    for id = 0, rawget(self, "_nbodies") - 1 do r[id + 1] = body_object(self, id) end
    return r
end

function World:find(name)
    check_self("world:find", self, World, "a world")
    if type(name) ~= "string" then fail("world:find", "'name' must be a string (got %s)", show(name)) end
    return self._by_name[name]
end

function World:halfplane(t)
    local fname = "world:halfplane"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    if t == nil then t = {} end
    check_table(fname, t, "w:halfplane{ point = {0, 0}, normal = {0, 1} }")
    check_keys(fname, t, { "point", "normal", "group", "name" })
    local p = vec(fname, "point", t.point, 2, "{x, y}", { 0, 0 })
    local n = vec(fname, "normal", t.normal, 2, "{nx, ny}", { 0, 1 })
    local len = math.sqrt(n[1] * n[1] + n[2] * n[2])
    if not (len > 0) then fail(fname, "'normal' must be nonzero") end
    return create_shape(fname, c, core.GROUND, {
        type = "halfplane", point = p, normal = { n[1] / len, n[2] / len },
        group = integer(fname, "group", t.group, 0), name = opt_name(fname, "name", t.name),
    })
end

function World:segment(t)
    local fname = "world:segment"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    check_table(fname, t, "w:segment{ a = {0, 0}, b = {1, 0} }")
    check_keys(fname, t, { "a", "b", "radius", "group", "name" })
    local a = vec(fname, "a", t.a, 2, "{x, y}")
    local b = vec(fname, "b", t.b, 2, "{x, y}")
    if a[1] == b[1] and a[2] == b[2] then fail(fname, "'a' and 'b' must differ") end
    return create_shape(fname, c, core.GROUND, {
        type = "segment", a = a, b = b,
        radius = nonneg(fname, "radius", number(fname, "radius", t.radius, 0)),
        group = integer(fname, "group", t.group, 0), name = opt_name(fname, "name", t.name),
    })
end

-- w:obstacle{ shape, at = {x, y}, angle = 0 }: a fixed disk or polygon (a
-- shape of the ground), placed in the world frame; e.g. grains glued to a
-- rough floor.
function World:obstacle(t)
    local fname = "world:obstacle"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    check_table(fname, t, "w:obstacle{ rc.polygon{ vertices = {{0, 0}, {1, 0}, {0, 1}} }, at = {2, 0} }")
    check_keys(fname, t, { "shape", "at", "angle", "group", "name" }, 1)
    if t[1] ~= nil and t.shape ~= nil then fail(fname, "give the shape either as [1] or as shape =, not both") end
    local d = t[1] or t.shape
    if d == nil then fail(fname, "'shape' is required (rc.disk{...}, rc.box{...} or rc.polygon{...})") end
    check_shape(fname, "shape", d)
    if d.type ~= "disk" and d.type ~= "polygon" then
        fail(fname, "'shape' must be a disk, box or polygon (got %s: points belong to bodies)", d.kind)
    end
    local at = vec(fname, "at", t.at, 2, "{x, y}", { 0, 0 })
    local a = number(fname, "angle", t.angle, 0)
    local cs, sn = math.cos(a), math.sin(a)
    local function place(p) return { at[1] + cs * p[1] - sn * p[2], at[2] + sn * p[1] + cs * p[2] } end
    local def = { type = d.type, radius = d.radius,
                  group = integer(fname, "group", t.group, d.group or 0),
                  name = opt_name(fname, "name", t.name) or d.name }
    if d.type == "disk" then def.offset = place(d.offset)
    else
        def.vertices = {}
        for i, p in ipairs(d.vertices) do def.vertices[i] = place(p) end
    end
    return create_shape(fname, c, core.GROUND, def)
end

local function side_id(fname, self, key, x)
    local mt = getmetatable(x)
    if (mt == Body or mt == Ground) and rawget(x, "world") == self then return x.id end
    if mt == Body or mt == Ground then fail(fname, "%s belongs to another world", key) end
    fail(fname, "%s must be a body of this world or w.ground (got %s)", key, show(x))
end

function World:contact(t)
    local fname = "world:contact"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    check_table(fname, t, "w:contact{ body, w.ground, law = rc.newton{ e = 0.5 } }")
    check_keys(fname, t, { "groups", "law", "name" }, 2)
    local law = t.law
    local lid
    if law == false then
        lid = false
    elseif law ~= nil then
        check_law(fname, "law", law)
        lid = law_id(self, c, fname, law)
    end
    local name = opt_name(fname, "name", t.name)
    local ok, msg
    if t.groups ~= nil then
        if t[1] ~= nil or t[2] ~= nil then fail(fname, "give either two bodies or 'groups', not both") end
        if name then fail(fname, "'name' is only allowed for a pair of bodies") end
        local g = t.groups
        if type(g) ~= "table" then fail(fname, "'groups' must be a table of 2 integers {g1, g2} (got %s)", show(g)) end
        for k in pairs(g) do
            if not (mtype(k) == "integer" and k >= 1 and k <= 2) then
                fail(fname, "'groups' must be a table of 2 integers {g1, g2} (unexpected entry %s)", showkey(k))
            end
        end
        local g1 = integer(fname, "groups[1]", g[1], REQUIRED)
        local g2 = integer(fname, "groups[2]", g[2], REQUIRED)
        ok, msg = core.contact_rule(c, "groups", g1, g2, lid, nil)
    else
        if t[1] == nil or t[2] == nil then
            fail(fname, "give two bodies (w:contact{ A, B, ... }) or 'groups' (w:contact{ groups = {g1, g2}, ... })")
        end
        local a = side_id(fname, self, "argument [1]", t[1])
        local b = side_id(fname, self, "argument [2]", t[2])
        if a == b then fail(fname, "a body does not contact itself") end
        ok, msg = core.contact_rule(c, "bodies", a, b, lid, name)
    end
    if not ok then fail(fname, "%s", msg) end
    return self
end

------------------------------------------------------------------ joints, springs, linear bodies, gaps
-- Reference: docs/mechanisms.md.

local Joint = { __name = "ricochet.joint" }
Joint.__index = Joint
rc.Joint = Joint
function Joint.__tostring(j)
    return fmt("ricochet.joint %d (%s)%s", j.id, j.type, j.name and (" '" .. j.name .. "'") or "")
end

local Spring = { __name = "ricochet.spring" }
Spring.__index = Spring
rc.Spring = Spring
function Spring.__tostring(s)
    return fmt("ricochet.%s %d%s", s.type == "torsional" and "torsion_spring" or "spring", s.id,
               s.name and (" '" .. s.name .. "'") or "")
end

local Gap = { __name = "ricochet.gap" }
Gap.__index = Gap
rc.Gap = Gap
function Gap.__tostring(g)
    return fmt("ricochet.gap %d%s", g.id, g.name and (" '" .. g.name .. "'") or "")
end

local function describe_body(b)
    if getmetatable(b) == Ground then return "the ground" end
    return fmt("%sbody %d%s", b.kind == "linear" and "linear " or "", b.id, b.name and (" '" .. b.name .. "'") or "")
end

-- Side `which` ("A" or "B", argument [1] or [2]) of a joint or a spring: a
-- rigid body of this world, or (side A only) the ground.
local function rigid_side(fname, self, which, x, ground_ok, usage, key)
    key = key or (which == "A" and "argument [1] (body A)" or "argument [2] (body B)")
    if x == nil then fail(fname, "%s is required%s", key, usage and (": " .. usage) or "") end
    local mt = getmetatable(x)
    if mt ~= Body and mt ~= Ground then
        fail(fname, "%s must be a body of this world%s (got %s)", key, ground_ok and " or w.ground" or "", show(x))
    end
    if rawget(x, "world") ~= self then fail(fname, "%s belongs to another world", key) end
    if mt == Ground and not ground_ok then
        if which == "B" and usage then
            fail(fname, "%s must be a body, not the ground (give the ground as A: %s)", key, usage)
        end
        fail(fname, "%s must be a body, not the ground", key)
    end
    if mt == Body and x.kind ~= "rigid2d" then
        fail(fname, "%s must be a rigid body (got the %s; a linear body touches the world through w:gap)",
             key, describe_body(x))
    end
    return x
end

local function two_sides(fname, self, t, usage)
    local a = rigid_side(fname, self, "A", t[1], true, usage)
    local b = rigid_side(fname, self, "B", t[2], false, usage)
    if a == b then fail(fname, "A and B are the same body (%s): give two different bodies", describe_body(a)) end
    return a, b
end

-- Current q of a side ({0, 0, 0} for the ground).
local function side_q(cw, side)
    if side.id == core.GROUND then return { 0, 0, 0 } end
    local q = core.body_state(cw, side.id)
    return q
end

-- A world point in the frame of a side with state q.
local function to_local(q, p)
    local dx, dy = p[1] - q[1], p[2] - q[2]
    local cs, sn = math.cos(q[3]), math.sin(q[3])
    return { cs * dx + sn * dy, -sn * dx + cs * dy }
end

-- point_a, point_b from 'at' (a world point, both local points computed from
-- the current state) or from 'point_a'/'point_b' (body frames).
local function joint_points(fname, cw, t, a, b, required)
    if t.at ~= nil then
        if t.point_a ~= nil or t.point_b ~= nil then
            fail(fname, "give either 'at' (a world point) or 'point_a'/'point_b' (points in A's and B's frames), not both")
        end
        local at = vec(fname, "at", t.at, 2, "{x, y}")
        return to_local(side_q(cw, a), at), to_local(side_q(cw, b), at)
    end
    if required and (t.point_a == nil or t.point_b == nil) then
        fail(fname, "give 'at' (a world point) or both 'point_a' and 'point_b' (points in A's and B's frames)")
    end
    return vec(fname, "point_a", t.point_a, 2, "{x, y}", { 0, 0 }), vec(fname, "point_b", t.point_b, 2, "{x, y}", { 0, 0 })
end

local function unit_axis(fname, v)
    local ax = vec(fname, "axis", v, 2, "{ax, ay}")
    local len = math.sqrt(ax[1] * ax[1] + ax[2] * ax[2])
    if not (len > 0) then fail(fname, "'axis' must be nonzero") end
    return { ax[1] / len, ax[2] / len }
end

local function opt_number(fname, key, v)
    if v == nil then return nil end
    return number(fname, key, v)
end

local function make_joint(fname, self, cw, jtype, a, b, rows, def)
    local name = opt_name(fname, "name", def.name)
    if name and self._joint_names[name] then fail(fname, "a joint named '%s' already exists", name) end
    def.type, def.a, def.b, def.name = jtype, a.id, b.id, name
    local id, msg = core.joint_create(cw, def)
    if not id then fail(fname, "%s", msg) end
    local j = setmetatable({ id = id, name = name, type = jtype, a = a, b = b, rows = rows, world = self }, Joint)
    local js = self._joints
    js[#js + 1] = j
    if name then self._joint_names[name] = j end
    return j
end

local function world_begin(fname, self, t, example, keys, npos)
    check_self(fname, self, World, "a world")
    local cw = world_core(fname, self, true)
    check_table(fname, t, example)
    check_keys(fname, t, keys, npos)
    return cw
end

function World:revolute(t)
    local fname = "world:revolute"
    local usage = "w:revolute{ A, B, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:revolute{ w.ground, body, at = {0, 0} }",
                           { "at", "point_a", "point_b", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    return make_joint(fname, self, cw, "revolute", a, b, 2, { point_a = pa, point_b = pb, name = t.name })
end

function World:weld(t)
    local fname = "world:weld"
    local usage = "w:weld{ A, B, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:weld{ A, B, at = {0, 0} }",
                           { "at", "point_a", "point_b", "angle", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    return make_joint(fname, self, cw, "weld", a, b, 3, {
        point_a = pa, point_b = pb, angle = opt_number(fname, "angle", t.angle), name = t.name })
end

function World:prismatic(t)
    local fname = "world:prismatic"
    local usage = "w:prismatic{ A, B, axis = {1, 0}, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:prismatic{ w.ground, slider, axis = {1, 0}, at = {0, 0} }",
                           { "axis", "at", "point_a", "point_b", "angle", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local axis = unit_axis(fname, t.axis)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    return make_joint(fname, self, cw, "prismatic", a, b, 2, {
        axis = axis, point_a = pa, point_b = pb, angle = opt_number(fname, "angle", t.angle), name = t.name })
end

function World:line(t)
    local fname = "world:line"
    local usage = "w:line{ A, B, axis = {1, 0}, at = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:line{ w.ground, body, axis = {1, 0}, at = {0, 0} }",
                           { "axis", "at", "point_a", "point_b", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local axis = unit_axis(fname, t.axis)
    local pa, pb = joint_points(fname, cw, t, a, b, true)
    return make_joint(fname, self, cw, "line", a, b, 1, { axis = axis, point_a = pa, point_b = pb, name = t.name })
end

function World:distance(t)
    local fname = "world:distance"
    local usage = "w:distance{ A, B, point_a = {x, y}, point_b = {x, y} } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:distance{ w.ground, bob, point_a = {0, 0}, point_b = {0, 0} }",
                           { "point_a", "point_b", "length", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local pa, pb = joint_points(fname, cw, t, a, b, false)
    local len = opt_number(fname, "length", t.length)
    if len ~= nil then positive(fname, "length", len) end
    return make_joint(fname, self, cw, "distance", a, b, 1, { point_a = pa, point_b = pb, length = len, name = t.name })
end

-- Call a user function once at creation with pcall, so that mistakes are
-- reported at the script line rather than in the middle of a run.
local function probe_call(fname, key, fn, ...)
    local r = table.pack(pcall(fn, ...))
    if not r[1] then fail(fname, "'%s' fails when called with the current state: %s", key, tostring(r[2])) end
    return r
end

local function probe_number(fname, key, x, k, tnow)
    if type(x) ~= "number" or not isfinite(x) then
        fail(fname, "'%s' must return finite numbers (got %s as value %d at t = %s)", key, show(x), k, show(tnow))
    end
end

local function probe_vec(fname, key, what, v, n, tnow)
    if type(v) ~= "table" or #v ~= n then
        fail(fname, "'%s' must return %s as a table of %d finite numbers (got %s at t = %s)", key, what, n,
             type(v) == "table" and fmt("a table of length %d", #v) or show(v), show(tnow))
    end
    for i = 1, n do
        if type(v[i]) ~= "number" or not isfinite(v[i]) then
            fail(fname, "'%s' must return %s as a table of %d finite numbers (got %s[%d] = %s at t = %s)", key, what, n,
                 what, i, show(v[i]), show(tnow))
        end
    end
end

local COORDS = { x = 0, y = 1, theta = 2 }

function World:prescribe(t)
    local fname = "world:prescribe"
    local cw = world_begin(fname, self, t, "w:prescribe{ body, coord = \"x\", f = function(t) return math.sin(t) end }",
                           { "coord", "f", "df", "relative_to", "name" }, 1)
    local usage = "w:prescribe{ body, coord = \"x\", f = function(t) ... end }"
    if t[1] == nil then fail(fname, "argument [1] (the body) is required: %s", usage) end
    local b = rigid_side(fname, self, "B", t[1], false, nil, "argument [1] (the body)")
    local a = self.ground
    if t.relative_to ~= nil then
        local mt = getmetatable(t.relative_to)
        if (mt ~= Body and mt ~= Ground) or rawget(t.relative_to, "world") ~= self then
            fail(fname, "'relative_to' must be a body of this world or w.ground (got %s)", show(t.relative_to))
        end
        if mt == Body and t.relative_to.kind ~= "rigid2d" then
            fail(fname, "'relative_to' must be a rigid body (got the %s)", describe_body(t.relative_to))
        end
        a = t.relative_to
        if a == b then fail(fname, "'relative_to' is the body itself (%s)", describe_body(b)) end
    end
    if t.coord == nil then fail(fname, "'coord' is required (\"x\", \"y\" or \"theta\")") end
    local coord = COORDS[option(fname, "coord", t.coord, nil, { "x", "y", "theta" })]
    if type(t.f) ~= "function" then fail(fname, "'f' must be a function of t (got %s)", show(t.f)) end
    check_fn(fname, "df", t.df)
    local tnow = core.time(cw)
    probe_number(fname, "f", probe_call(fname, "f", t.f, tnow)[2], 1, tnow)
    if t.df then probe_number(fname, "df", probe_call(fname, "df", t.df, tnow)[2], 1, tnow) end
    return make_joint(fname, self, cw, "prescribed", a, b, 1, { coord = coord, f = t.f, df = t.df, name = t.name })
end

local function probe_matrix(fname, key, G, rows, tnow)
    if type(G) ~= "table" or #G ~= rows then
        fail(fname, "'grad' must return %s as a table of %d rows of 3 numbers (got %s at t = %s)", key, rows,
             type(G) == "table" and fmt("%d rows", #G) or show(G), show(tnow))
    end
    for i = 1, rows do probe_vec(fname, "grad", fmt("%s[%d]", key, i), G[i], 3, tnow) end
end

function World:constraint(t)
    local fname = "world:constraint"
    local usage = "w:constraint{ A, B, rows = 1, g = function(t, qa, qb) ... end } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:constraint{ w.ground, body, rows = 1, g = function(t, qa, qb) return qb[2] end }",
                           { "rows", "g", "grad", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    if t.rows == nil then fail(fname, "'rows' is required (1, 2 or 3)") end
    local rows = integer(fname, "rows", t.rows)
    if rows < 1 or rows > 3 then fail(fname, "'rows' must be 1, 2 or 3 (got %s)", show(t.rows)) end
    if type(t.g) ~= "function" then fail(fname, "'g' must be a function(t, qa, qb) returning %d values (got %s)", rows, show(t.g)) end
    check_fn(fname, "grad", t.grad)
    local tnow = core.time(cw)
    local function qs()
        local qa = nil
        if a.id ~= core.GROUND then qa = side_q(cw, a) end
        return qa, side_q(cw, b)
    end
    local r = probe_call(fname, "g", t.g, tnow, qs())
    for i = 1, rows do probe_number(fname, "g", r[i + 1], i, tnow) end
    if r.n - 1 > rows then fail(fname, "'g' returned %d values (rows = %d)", r.n - 1, rows) end
    if t.grad then
        r = probe_call(fname, "grad", t.grad, tnow, qs())
        if a.id ~= core.GROUND then probe_matrix(fname, "Ga", r[2], rows, tnow) end
        probe_matrix(fname, "Gb", r[3], rows, tnow)
    end
    return make_joint(fname, self, cw, "custom", a, b, rows, { rows = rows, g = t.g, grad = t.grad, name = t.name })
end

function World:joints()
    check_self("world:joints", self, World, "a world")
    local r = {}
    for i, j in ipairs(self._joints) do r[i] = j end
    return r
end

function Joint:info()
    local fname = "joint:info"
    check_self(fname, self, Joint, "a joint")
    local cw = world_core(fname, self.world)
    local info, msg = core.joint_info(cw, self.id)
    if not info then fail(fname, "%s", msg) end
    return info
end

function Joint:force()
    local fname = "joint:force"
    check_self(fname, self, Joint, "a joint")
    local cw = world_core(fname, self.world)
    local info, msg = core.joint_info(cw, self.id)
    if not info then fail(fname, "%s", msg) end
    return info.force
end

local function make_spring(fname, self, cw, stype, a, b, def)
    def.type, def.a, def.b = stype, a.id, b.id
    def.name = opt_name(fname, "name", def.name)
    local id, msg = core.spring_create(cw, def)
    if not id then fail(fname, "%s", msg) end
    for _, side in ipairs{ a, b } do   -- sim:force_set refuses bodies loaded by springs
        if getmetatable(side) == Body then side._springs = true end   -- (pins the body)
    end
    return setmetatable({ id = id, name = def.name, type = stype, a = a, b = b, k = def.k, c = def.c, world = self }, Spring)
end

function World:spring(t)
    local fname = "world:spring"
    local usage = "w:spring{ A, B, k = 100 } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:spring{ w.ground, body, point_a = {0, 1}, k = 100 }",
                           { "point_a", "point_b", "k", "c", "rest_length", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local pa = vec(fname, "point_a", t.point_a, 2, "{x, y}", { 0, 0 })
    local pb = vec(fname, "point_b", t.point_b, 2, "{x, y}", { 0, 0 })
    local k = nonneg(fname, "k", number(fname, "k", t.k, REQUIRED))
    local c = nonneg(fname, "c", number(fname, "c", t.c, 0))
    local rest = opt_number(fname, "rest_length", t.rest_length)
    if rest ~= nil then nonneg(fname, "rest_length", rest) end
    return make_spring(fname, self, cw, "linear", a, b,
                       { point_a = pa, point_b = pb, k = k, c = c, rest_length = rest, name = t.name })
end

function World:torsion_spring(t)
    local fname = "world:torsion_spring"
    local usage = "w:torsion_spring{ A, B, k = 10 } with A a body or w.ground"
    local cw = world_begin(fname, self, t, "w:torsion_spring{ w.ground, body, k = 10 }",
                           { "k", "c", "rest_angle", "name" }, 2)
    local a, b = two_sides(fname, self, t, usage)
    local k = nonneg(fname, "k", number(fname, "k", t.k, REQUIRED))
    local c = nonneg(fname, "c", number(fname, "c", t.c, 0))
    return make_spring(fname, self, cw, "torsional", a, b,
                       { k = k, c = c, rest_angle = opt_number(fname, "rest_angle", t.rest_angle), name = t.name })
end

-- A square matrix given as a table of rows (n rows of n finite numbers, n =
-- `n` if given), checked symmetric; returns a copy.
local function sym_matrix(fname, key, m, n)
    local example = "a table of rows such as {{2, 0}, {0, 1}}, or rc.read_matrix(path)"
    if type(m) ~= "table" then fail(fname, "'%s' must be %s (got %s)", key, example, show(m)) end
    local nr = #m
    if nr == 0 then fail(fname, "'%s' must be %s (got an empty table)", key, example) end
    for k in pairs(m) do
        if not (mtype(k) == "integer" and k >= 1 and k <= nr) then
            fail(fname, "'%s' must be %s (unexpected entry %s)", key, example, showkey(k))
        end
    end
    if n and nr ~= n then fail(fname, "'%s' must be %d x %d like 'M' (got %d rows)", key, n, n, nr) end
    n = nr
    local r, scale = {}, 0
    for i = 1, n do
        local row = m[i]
        if type(row) ~= "table" then fail(fname, "'%s[%d]' must be a row of %d numbers (got %s)", key, i, n, show(row)) end
        if #row ~= n then
            fail(fname, "'%s' must be square (%d x %d): row %d has %d entries", key, n, n, i, #row)
        end
        for k in pairs(row) do
            if not (mtype(k) == "integer" and k >= 1 and k <= n) then
                fail(fname, "'%s[%d]' must be a row of %d numbers (unexpected entry %s)", key, i, n, showkey(k))
            end
        end
        local ri = {}
        for j = 1, n do
            local x = row[j]
            if type(x) ~= "number" then fail(fname, "'%s[%d][%d]' must be a number (got %s)", key, i, j, show(x)) end
            if not isfinite(x) then fail(fname, "'%s[%d][%d]' must be a finite number (got %s)", key, i, j, show(x)) end
            ri[j] = x
            if math.abs(x) > scale then scale = math.abs(x) end
        end
        r[i] = ri
    end
    local tol = 1e-12 * scale
    for i = 1, n do
        for j = i + 1, n do
            if math.abs(r[i][j] - r[j][i]) > tol then
                fail(fname, "'%s' must be symmetric (%s[%d][%d] = %s but %s[%d][%d] = %s)", key, key, i, j,
                     show(r[i][j]), key, j, i, show(r[j][i]))
            end
        end
    end
    return r
end

function World:linear(t)
    local fname = "world:linear"
    local cw = world_begin(fname, self, t, "w:linear{ name = \"bar\", M = {{1, 0}, {0, 1}}, K = {{2, -1}, {-1, 2}} }",
                           { "name", "M", "K", "C", "q0", "v0", "f", "force_fn" })
    local name = opt_name(fname, "name", t.name)
    if t.M == nil then fail(fname, "'M' is required (the mass matrix: %s)", "a table of rows, or rc.read_matrix(path)") end
    local M = sym_matrix(fname, "M", t.M)
    local n = #M
    local K = t.K ~= nil and sym_matrix(fname, "K", t.K, n) or nil
    local C = t.C ~= nil and sym_matrix(fname, "C", t.C, n) or nil
    local per = "(one per coordinate)"
    local zeros = {}
    for i = 1, n do zeros[i] = 0 end
    local q0 = vec(fname, "q0", t.q0, n, per, zeros)
    local v0 = vec(fname, "v0", t.v0, n, per, zeros)
    local f = vec(fname, "f", t.f, n, per, zeros)
    local force_fn = check_fn(fname, "force_fn", t.force_fn)
    if name and self._by_name[name] then fail(fname, "a body named '%s' already exists", name) end
    local id, msg = core.linear_create(cw, { name = name, n = n, M = M, K = K, C = C, q0 = q0, v0 = v0, f = f })
    if not id then fail(fname, "%s", msg) end
    local body = new_body(self, id, { name = name, kind = "linear", n = n }, true)
    if name then self._by_name[name] = body end
    if force_fn then
        local ok, err = core.body_set_force_fn(cw, id, force_fn)
        if not ok then fail(fname, "%s", err) end
    end
    return body
end

function World:gap(t)
    local fname = "world:gap"
    local cw = world_begin(fname, self, t, "w:gap{ body, index = {1}, normal = {1}, g0 = 0.1 }",
                           { "index", "normal", "tangent", "g0", "gap", "law", "name" }, 1)
    local b = t[1]
    if b == nil then fail(fname, "argument [1] (the body) is required: w:gap{ body, index = {...}, normal = {...} }") end
    local mt = getmetatable(b)
    if mt == Ground then fail(fname, "argument [1] must be a body (a gap contact is between a body and the static world)") end
    if mt ~= Body then fail(fname, "argument [1] must be a body of this world (got %s)", show(b)) end
    if rawget(b, "world") ~= self then fail(fname, "argument [1] belongs to another world") end
    local nq = b.kind == "linear" and b.n or 3
    local def = { body = b.id, name = opt_name(fname, "name", t.name) }
    if t.law ~= nil then def.law = law_id(self, cw, fname, check_law(fname, "law", t.law)) end
    if t.gap ~= nil then
        if t.index ~= nil or t.normal ~= nil or t.tangent ~= nil or t.g0 ~= nil then
            fail(fname, "give either 'gap' (a function) or 'index'/'normal'/'tangent'/'g0' (a linear gap), not both")
        end
        if type(t.gap) ~= "function" then fail(fname, "'gap' must be a function(t, q) (got %s)", show(t.gap)) end
        local tnow = core.time(cw)
        local r = probe_call(fname, "gap", t.gap, tnow, side_q(cw, b))
        probe_number(fname, "gap", r[2], 1, tnow)
        probe_vec(fname, "gap", "grad_n", r[3], nq, tnow)
        if r[4] ~= nil then probe_vec(fname, "gap", "grad_t", r[4], nq, tnow) end
        def.gap = t.gap
    else
        local idx = t.index
        if idx == nil then fail(fname, "give 'index' and 'normal' (a linear gap) or 'gap' (a function)") end
        if type(idx) ~= "table" or #idx == 0 then
            fail(fname, "'index' must be a non-empty list of coordinate numbers 1..%d (got %s)", nq, show(idx))
        end
        local n = #idx
        for k in pairs(idx) do
            if not (mtype(k) == "integer" and k >= 1 and k <= n) then
                fail(fname, "'index' must be a list of coordinate numbers (unexpected entry %s)", showkey(k))
            end
        end
        local index0, seen = {}, {}
        for i = 1, n do
            local k = idx[i]
            if mtype(k) ~= "integer" and not (type(k) == "number" and math.tointeger(k)) then
                fail(fname, "'index[%d]' must be an integer (got %s)", i, show(k))
            end
            k = math.tointeger(k)
            if k < 1 or k > nq then
                fail(fname, "'index[%d]' must be a coordinate number in 1..%d of %s (got %d)", i, nq, describe_body(b), k)
            end
            if seen[k] then fail(fname, "'index' lists coordinate %d twice (entries %d and %d)", k, seen[k], i) end
            seen[k] = i
            index0[i] = k - 1
        end
        def.index = index0
        local names = fmt("(one per entry of 'index')")
        def.normal = vec(fname, "normal", t.normal, n, names)
        if t.tangent ~= nil then def.tangent = vec(fname, "tangent", t.tangent, n, names) end
        def.g0 = number(fname, "g0", t.g0, 0)
    end
    local id, msg = core.gap_create(cw, def)
    if not id then fail(fname, "%s", msg) end
    return setmetatable({ id = id, name = def.name, body = b, world = self }, Gap)
end

------------------------------------------------------------------ matrices from files

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

------------------------------------------------------------------ bodies

function Body.__tostring(b)
    if b.kind == "linear" then
        return fmt("ricochet.body %d%s (linear, n = %d)", b.id, b.name and (" '" .. b.name .. "'") or "", b.n)
    end
    return fmt("ricochet.body %d%s", b.id, b.name and (" '" .. b.name .. "'") or "")
end

-- Sizes and descriptions of a body's vectors: nq, q, v, force.
local function body_dims(b)
    if b.kind == "linear" then
        local d = "(one per coordinate)"
        return b.n, d, d, d
    end
    return 3, "{x, y, theta}", "{vx, vy, omega}", "{fx, fy, torque}"
end

local function body_core(fname, b, idle)
    check_self(fname, b, Body, "a body")
    return world_core(fname, b.world, idle)
end

function Body:q()
    local c = body_core("body:q", self)
    local q, v = core.body_state(c, self.id)
    if not q then fail("body:q", "%s", v) end
    return q
end

function Body:v()
    local c = body_core("body:v", self)
    local q, v = core.body_state(c, self.id)
    if not q then fail("body:v", "%s", v) end
    return v
end

function Body:set_state(t)
    local fname = "body:set_state"
    local c = body_core(fname, self, true)
    check_table(fname, t, "body:set_state{ q = {0, 1, 0}, v = {0, 0, 0} }")
    check_keys(fname, t, { "q", "v" })
    if t.q == nil and t.v == nil then fail(fname, "give 'q' and/or 'v'") end
    local n, qd, vd = body_dims(self)
    local q = t.q ~= nil and vec(fname, "q", t.q, n, qd) or nil
    local v = t.v ~= nil and vec(fname, "v", t.v, n, vd) or nil
    local ok, msg = core.body_set_state(c, self.id, q, v)
    if not ok then fail(fname, "%s", msg) end
    return self
end

function Body:set_force(f)
    local fname = "body:set_force"
    local c = body_core(fname, self)
    local n, _, _, fd = body_dims(self)
    local ok, msg = core.body_set_force(c, self.id, vec(fname, "force", f, n, fd))
    if not ok then fail(fname, "%s", msg) end
    return self
end

function Body:force()
    local c = body_core("body:force", self)
    local f, msg = core.body_force(c, self.id)
    if not f then fail("body:force", "%s", msg) end
    return f
end

function Body:set_force_fn(fn)
    local fname = "body:set_force_fn"
    local c = body_core(fname, self, true)
    if fn ~= nil and type(fn) ~= "function" then fail(fname, "'fn' must be a function or nil (got %s)", show(fn)) end
    local ok, msg = core.body_set_force_fn(c, self.id, fn)
    if not ok then fail(fname, "%s", msg) end
    self._force_fn = fn ~= nil   -- (pins the body)
    return self
end

function Body:mass()
    local c = body_core("body:mass", self)
    if self.kind == "linear" then
        fail("body:mass", "a linear body has a mass matrix, not a mass and an inertia (%s)", tostring(self))
    end
    local m, J = core.body_mass(c, self.id)
    if not m then fail("body:mass", "%s", J) end
    return m, J
end

function Body:add_shape(d)
    local fname = "body:add_shape"
    local c = body_core(fname, self, true)
    if self.kind == "linear" then
        fail(fname, "a linear body has no shapes: give it contacts with w:gap{ body, ... }")
    end
    check_shape(fname, "shape", d)
    return create_shape(fname, c, self.id, d)
end

-- Energies of a linear body: { kinetic = 1/2 v^T M v, elastic = 1/2 q^T K q }.
function Body:energy()
    local fname = "body:energy"
    local c = body_core(fname, self)
    if self.kind ~= "linear" then
        fail(fname, "only linear bodies (w:linear) have this method; use sim:energy() for the whole world")
    end
    local k, e = core.linear_energy(c, self.id)
    if not k then fail(fname, "%s", e) end
    return { kinetic = k, elastic = e }
end

------------------------------------------------------------------ simulation

local SIM_KEYS = { "scheme", "theta", "h", "activation", "gamma", "persist_tol", "solver", "work_check", "work_tol",
                   "joint_jacobian", "project_joints", "project_tol", "project_max_iter" }
local SCHEMES = { "moreau-jean", "moreau-jean-fremond", "maury" }

function World:simulation(t)
    local fname = "world:simulation"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    if t == nil then t = {} end
    check_table(fname, t, "w:simulation{ h = 1e-3, theta = 0.5 }")
    check_keys(fname, t, SIM_KEYS)
    local def = {
        scheme = option(fname, "scheme", t.scheme, "moreau-jean", SCHEMES),
        theta = in01(fname, "theta", number(fname, "theta", t.theta, t.scheme == "maury" and 1 or 0.5)),
        h = positive(fname, "h", number(fname, "h", t.h, 1e-3)),
        activation = option(fname, "activation", t.activation, "anticipate", { "gap", "anticipate" }),
        gamma = nonneg(fname, "gamma", number(fname, "gamma", t.gamma, 0.5)),
        persist_tol = nonneg(fname, "persist_tol", number(fname, "persist_tol", t.persist_tol, 1e-9)),
    }
    local s = t.solver
    if s == nil then s = {} end
    if type(s) ~= "table" then fail(fname, "'solver' must be a table such as { \"nsgs\", tol = 1e-10 } (got %s)", show(s)) end
    local sname = "world:simulation: solver"
    check_keys(sname, s, { "tol", "max_iter", "on_fail", "warm_start", "local_tol", "local_max_iter",
                           "relax", "order", "seed", "check_every", "threads", "adaptive_threads", "norm",
                           "accelerate" }, 1)
    if s[1] ~= nil and s[1] ~= "nsgs" and s[1] ~= "uzawa" then
        fail(sname, "unknown solver %s (available: \"nsgs\", \"uzawa\")", show(s[1]))
    end
    def.solver = s[1] or "nsgs"
    def.relax = number(sname, "relax", s.relax, 1)
    if not (def.relax > 0 and def.relax < 2) then fail(sname, "'relax' must be in (0, 2) (got %s)", show(s.relax)) end
    def.threads = integer(sname, "threads", s.threads, 1)
    if def.threads < 1 then fail(sname, "'threads' must be >= 1 (got %s)", show(s.threads)) end
    def.adaptive_threads = boolean(sname, "adaptive_threads", s.adaptive_threads, true)
    def.norm = option(sname, "norm", s.norm, "l2", { "l2", "max" })
    def.accelerate = boolean(sname, "accelerate", s.accelerate, true)
    if def.solver == "uzawa" and def.accelerate and def.relax > 1 then
        fail(sname, "'relax' must be <= 1 for the accelerated Uzawa (got %s; accelerate = false for the plain one)", show(s.relax))
    end
    -- threads > 1 sweeps colour by colour: that order is then the default
    def.order = option(sname, "order", s.order, def.threads > 1 and "colour" or "fixed",
                       { "fixed", "random", "position", "colour", "color" })
    if def.order == "color" then def.order = "colour" end
    if def.threads > 1 and def.order ~= "colour" then
        fail(sname, "'threads' = %d needs order = \"colour\" (the %s order is sequential)", def.threads, def.order)
    end
    if def.threads > 1 and def.solver ~= "nsgs" then
        fail(sname, "'threads' = %d needs the \"nsgs\" solver (uzawa runs on one thread)", def.threads)
    end
    def.seed = integer(sname, "seed", s.seed, 1)
    def.check_every = integer(sname, "check_every", s.check_every, 1)
    if def.check_every < 1 then fail(sname, "'check_every' must be >= 1 (got %s)", show(s.check_every)) end
    def.tol = positive(sname, "tol", number(sname, "tol", s.tol, 1e-10))
    def.max_iter = integer(sname, "max_iter", s.max_iter, 1000)
    if def.max_iter < 1 then fail(sname, "'max_iter' must be >= 1 (got %s)", show(s.max_iter)) end
    def.on_fail = option(sname, "on_fail", s.on_fail, "warn", { "warn", "error" })
    def.warm_start = boolean(sname, "warm_start", s.warm_start, true)
    def.local_tol = nonneg(sname, "local_tol", number(sname, "local_tol", s.local_tol, 0))
    def.local_max_iter = integer(sname, "local_max_iter", s.local_max_iter, 200)
    if def.local_max_iter < 1 then fail(sname, "'local_max_iter' must be >= 1 (got %s)", show(s.local_max_iter)) end
    def.work_check = option(fname, "work_check", t.work_check, "record", { "record", "warn", "error" })
    def.work_tol = nonneg(fname, "work_tol", number(fname, "work_tol", t.work_tol, 1e-12))
    def.project_joints = boolean(fname, "project_joints", t.project_joints, false)
    -- the joints' rows at q* = q_k + s h v_k (rc_sim_joint_jacobian): by default
    -- (no projection, the paper's scheme) the end of the step for Moreau--Jean
    -- with theta < 3/4 (Bruls et al. 2014 eq. 50c), the midpoint otherwise
    -- (where the leading drift cancels); with the projection (an option) the
    -- start (the rows then do no work)
    local jac_default = def.project_joints and "start"
                        or ((def.scheme == "moreau-jean" and def.theta < 0.75) and "end" or "midpoint")
    def.joint_jacobian = option(fname, "joint_jacobian", t.joint_jacobian, jac_default, { "start", "midpoint", "end" })
    def.project_tol = positive(fname, "project_tol", number(fname, "project_tol", t.project_tol, 1e-12))
    def.project_max_iter = integer(fname, "project_max_iter", t.project_max_iter, 50)
    if def.project_max_iter < 1 then
        fail(fname, "'project_max_iter' must be >= 1 (got %s)", show(t.project_max_iter))
    end
    if def.h < rc.MIN_H then
        fail(fname, "'h' = %s is below the limit of %g (runs would not end; forces = impulses / h would overflow)",
             show(def.h), rc.MIN_H)
    elseif def.h > rc.MAX_H then
        fail(fname, "'h' = %s is above the limit of %g (positions and velocities would overflow)", show(def.h), rc.MAX_H)
    end
    if def.scheme == "moreau-jean-fremond" and def.theta == 0 then
        fail(fname, "'theta' must be > 0 for moreau-jean-fremond (got 0)")
    end
    local ok, msg = core.configure(c, def)
    if not ok then fail(fname, "%s", msg) end
    local sim = { world = self, def = def, _before = {}, _after = {}, _stop = false }
    for k, v in pairs(def) do sim[k] = v end
    setmetatable(sim, Sim)
    rawset(self, "_sim", sim)
    return sim
end

function Sim.__index(self, k)
    if k == "t" then return core.time(world_core("sim.t", rawget(self, "world"))) end
    if k == "steps" then return core.step_count(world_core("sim.steps", rawget(self, "world"))) end
    return Sim[k]
end

function Sim.__newindex(self, k, v)
    if k == "t" or k == "steps" then fail("simulation", "sim.%s is read-only", k) end
    rawset(self, k, v)
end

function Sim.__tostring(s)
    return fmt("ricochet.simulation (%s, theta = %s, h = %s)", s.scheme, show(s.theta), show(s.h))
end

local function sim_core(fname, self, idle)
    check_self(fname, self, Sim, "a simulation")
    return world_core(fname, rawget(self, "world"), idle)
end

function Sim:before_step(fn)
    sim_core("sim:before_step", self)
    check_fn("sim:before_step", "fn", fn)
    if fn == nil then fail("sim:before_step", "'fn' must be a function (got nil)") end
    local l = self._before
    l[#l + 1] = fn
    return self
end

function Sim:after_step(fn)
    sim_core("sim:after_step", self)
    check_fn("sim:after_step", "fn", fn)
    if fn == nil then fail("sim:after_step", "'fn' must be a function (got nil)") end
    local l = self._after
    l[#l + 1] = fn
    return self
end

-- sim:explore{ guess = "zero" | "random" | "warm", scale = s, order = "random" | "cyclic" | "fixed", seed = n }
-- solves the current one-step problem again from another start and/or sweep
-- order without advancing (Moreau 2004 section 3.1) and returns its contacts
-- with their impulses: { pN, pT, point, normal, tangent, body_a, body_b, id, active }.
function Sim:explore(t)
    local fname = "sim:explore"
    local c = sim_core(fname, self, true)
    if t == nil then t = {} end
    check_table(fname, t, "sim:explore{ guess = \"random\", scale = 0.1, order = \"random\", seed = 1 }")
    check_keys(fname, t, { "guess", "scale", "order", "seed" })
    local guess = option(fname, "guess", t.guess, "zero", { "zero", "random", "warm" })
    local order = option(fname, "order", t.order, "random", { "random", "cyclic", "fixed" })
    -- scale: one number, or a list of numbers by contact (the problem's contact order, as returned)
    local scale, scales = 0, nil
    if type(t.scale) == "table" and getmetatable(t.scale) == nil then
        local n = #t.scale
        for k in pairs(t.scale) do
            if not (mtype(k) == "integer" and k >= 1 and k <= n) then
                fail(fname, "'scale' must be a number or a list of numbers by contact (unexpected entry %s)", showkey(k))
            end
        end
        scales = {}
        for i = 1, n do
            scales[i] = nonneg(fname, fmt("scale[%d]", i), number(fname, fmt("scale[%d]", i), t.scale[i]))
            if scales[i] > scale then scale = scales[i] end
        end
        if guess ~= "random" then fail(fname, "a list of scales needs guess = \"random\"") end
    else
        scale = nonneg(fname, "scale", number(fname, "scale", t.scale, 0))
    end
    if guess == "random" and scale == 0 then fail(fname, "'scale' (> 0) is required with guess = \"random\"") end
    local res, msg = core.explore(c, { random_guess = guess == "random", zero_guess = guess == "zero",
                                       guess_scale = scales and 0 or scale, guess_scales = scales,
                                       random_order = order == "random" or order == "cyclic",
                                       cyclic_order = order == "cyclic",
                                       seed = integer(fname, "seed", t.seed, 1) })
    if not res then fail(fname, "%s", msg) end
    return res, msg   -- msg: { iterations, residual, converged } of that solve
end

-- sim:force_set{ contact = k | {k1, k2, ...} | "all", directions = 64, problem = "step" | "explore",
--                tol = 1e-6, refine = true, max_lp = 1000 }
-- The exact set of the impulses that contact k can carry in a static packing
-- (Moreau 2004 section 3.1): the projection onto (p_N, p_T) of C n A (the
-- Coulomb cones n the balance of every body), by linear programming
-- (lua/ricochet/force_set.lua, ricochet.lp). The problem is the last step's
-- (contacts of sim:contacts(), which must be a step from rest to rest) or the
-- one sim:explore solves (the current state, at rest). Returns a force set
-- (a list of them for a list of contacts, a table by contact index for "all").
local FORCE_SET_KEYS = { "contact", "directions", "problem", "tol", "refine", "max_lp" }

function Sim:force_set(t)
    local fname = "sim:force_set"
    local c = sim_core(fname, self, true)
    check_table(fname, t, "sim:force_set{ contact = 1, directions = 64 }")
    check_keys(fname, t, FORCE_SET_KEYS)
    local directions = integer(fname, "directions", t.directions, 64)
    if directions < 4 or directions > 100000 then
        fail(fname, "'directions' must be in [4, 100000] (got %s)", show(t.directions))
    end
    local problem = option(fname, "problem", t.problem, "step", { "step", "explore" })
    local tol = positive(fname, "tol", number(fname, "tol", t.tol, 1e-6))
    local refine = boolean(fname, "refine", t.refine, true)
    local max_lp = integer(fname, "max_lp", t.max_lp, 1000)
    if max_lp < 1 then fail(fname, "'max_lp' must be >= 1 (got %s)", show(t.max_lp)) end
    local sel = t.contact
    if sel == nil then
        fail(fname, "'contact' is required: an index into the problem's contacts (1 = the first of sim:contacts() "
                    .. "or sim:explore()), a list of indices, or \"all\"")
    end
    local world = rawget(self, "world")
    local def = core.sim_def(c)
    if def.scheme == "maury" then
        fail(fname, "the scheme 'maury' is not supported (its contacts are constrained with their gaps): "
                    .. "use \"moreau-jean\" or \"moreau-jean-fremond\"")
    end
    local h = def.h

    -- the contacts of the problem
    local list, msg
    if problem == "step" then
        if core.step_count(c) == 0 then
            fail(fname, "no step has been done: step once from rest, or use problem = \"explore\" (the current state)")
        end
        list, msg = core.contacts(c)
    else
        list, msg = core.explore(c, { zero_guess = true, random_order = false, seed = 1 })
    end
    if not list then fail(fname, "%s", msg) end
    local where = problem == "step" and "the last step" or "the explored problem"

    -- which contacts
    local targets, shape = {}, "one"
    local function target(key, k)
        if mtype(k) ~= "integer" then fail(fname, "'%s' must be a contact index (an integer) (got %s)", key, show(k)) end
        if k < 1 or k > #list then
            fail(fname, "'%s' = %d is not a contact of %s (it has %d contacts)", key, k, where, #list)
        end
        if not list[k].active then
            fail(fname, "'%s' = %d: contact %d of %s is not active (within the margin, no impulse): its set is {0}",
                 key, k, k, where)
        end
        targets[#targets + 1] = k
    end
    if sel == "all" then
        shape = "all"
        for k, ct in ipairs(list) do
            if ct.active then targets[#targets + 1] = k end
        end
    elseif type(sel) == "table" then
        shape = "list"
        if #sel == 0 then fail(fname, "'contact' must not be an empty list") end
        for k in pairs(sel) do
            if not (mtype(k) == "integer" and k >= 1 and k <= #sel) then
                fail(fname, "'contact' must be a list of contact indices (unexpected entry %s)", showkey(k))
            end
        end
        for i, k in ipairs(sel) do target(fmt("contact[%d]", i), k) end
    elseif type(sel) == "string" then
        fail(fname, "'contact' must be a contact index, a list of them or \"all\" (got %s)", show(sel))
    else
        target("contact", sel)
    end

    -- the laws: built-in Coulomb cones only
    local laws = {}
    for k, ct in ipairs(list) do
        if ct.active then
            local law = laws[ct.law]
            if not law then
                local e, mu, ltype = core.law_def(c, ct.law)
                if not e then fail(fname, "%s", mu) end
                law = { mu = mu, type = ltype }
                laws[ct.law] = law
            end
            if law.type == "custom" then
                fail(fname, "contact %d of %s has a law written in Lua: only the built-in Coulomb laws "
                            .. "(newton, moreau, fremond) are supported", k, where)
            end
            ct.mu = law.mu
        end
    end

    -- the bodies: rigid, loaded by gravity and a constant force, at rest
    local g = world.gravity
    local bodies, involved, nb, W0 = {}, {}, 0, 0
    for _, ct in ipairs(list) do
        if ct.active then
            for _, id in ipairs{ ct.body_a, ct.body_b } do
                if id ~= core.GROUND and not involved[id] then
                    local b = body_object(world, id)
                    local name = tostring(b)
                    if b.kind ~= "rigid2d" then
                        fail(fname, "%s is a linear body: only rigid bodies are supported", name)
                    end
                    if rawget(b, "_force_fn") then
                        fail(fname, "%s has a force function: the load must be gravity and a constant force "
                                    .. "(body:set_force)", name)
                    end
                    if rawget(b, "_springs") then
                        fail(fname, "%s is attached to a spring: the load must be gravity and a constant force", name)
                    end
                    local m = core.body_mass(c, id)
                    local q, v = core.body_state(c, id)
                    local f = core.body_force(c, id)
                    local load = { m * g[1] + f[1], m * g[2] + f[2], f[3] }
                    involved[id] = true
                    nb = nb + 1
                    bodies[id] = { q = q, v = v, m = m, load = load, name = name }
                    W0 = W0 + math.sqrt(load[1] ^ 2 + load[2] ^ 2)
                end
            end
        end
    end
    for _, j in ipairs(world._joints) do
        for _, side in ipairs{ j.a, j.b } do
            if side.id ~= core.GROUND and involved[side.id] then
                fail(fname, "%s is held by %s: joints are not supported", tostring(side), tostring(j))
            end
        end
    end
    W0 = nb > 0 and W0 / nb or 0
    if not (W0 > 0) then W0 = 1 end
    -- at rest: no velocity above tol x (the velocity one step of the load gives)
    local periodic = rawget(world, "periodic")
    local period = periodic and (periodic[2] - periodic[1]) or nil
    local arm = {}
    for _, ct in ipairs(list) do
        if ct.active then
            for _, id in ipairs{ ct.body_a, ct.body_b } do
                if id ~= core.GROUND then
                    local q = bodies[id].q
                    local rx, ry = ct.point[1] - q[1], ct.point[2] - q[2]
                    if period then rx = rx - period * floor(rx / period + 0.5) end
                    arm[id] = math.max(arm[id] or 0, math.sqrt(rx * rx + ry * ry))
                end
            end
        end
    end
    for id, b in pairs(bodies) do
        local vtol = tol * h * math.max(math.sqrt(b.load[1] ^ 2 + b.load[2] ^ 2), W0) / b.m
        local speed = math.max(math.abs(b.v[1]), math.abs(b.v[2]), math.abs(b.v[3]) * arm[id])
        if speed > vtol then
            fail(fname, "%s moves (speed %.3g > %.3g = tol h |load| / m): the set is that of a static packing, "
                        .. "at rest (set its velocity to zero with body:set_state{ v = {0, 0, 0} } or raise 'tol')",
                 b.name, speed, vtol)
        end
    end
    if problem == "step" then
        -- the last step must have started at rest too: its impulses balance the loads
        local res = {}
        for id in pairs(bodies) do res[id] = { bodies[id].load[1], bodies[id].load[2], bodies[id].load[3] } end
        for _, ct in ipairs(list) do
            if ct.active then
                local fx = (ct.pN * ct.normal[1] + ct.pT * ct.tangent[1]) / h
                local fy = (ct.pN * ct.normal[2] + ct.pT * ct.tangent[2]) / h
                for side, id in ipairs{ ct.body_a, ct.body_b } do
                    if id ~= core.GROUND then
                        local sg = side == 1 and -1 or 1
                        local q = bodies[id].q
                        local rx, ry = ct.point[1] - q[1], ct.point[2] - q[2]
                        if period then rx = rx - period * floor(rx / period + 0.5) end
                        local r = res[id]
                        r[1], r[2] = r[1] + sg * fx, r[2] + sg * fy
                        r[3] = r[3] + sg * (rx * fy - ry * fx)
                    end
                end
            end
        end
        for id, r in pairs(res) do
            local b = bodies[id]
            local W = math.max(math.sqrt(b.load[1] ^ 2 + b.load[2] ^ 2), W0)
            local e = math.max(math.abs(r[1]), math.abs(r[2]), math.abs(r[3]) / math.max(arm[id], 1e-300)) / W
            if e > tol then
                fail(fname, "the last step did not start from rest: its impulses balance the load of %s only to "
                            .. "%.3g of it (tol %g); step once more at rest, or use problem = \"explore\"", b.name, e, tol)
            end
        end
    end

    if #targets == 0 then   -- (the LP would have no variable)
        fail(fname, "contact = \"all\": no contact of %s is active (%d contact%s within the margin, none in the "
                    .. "index set): there is no force set to compute", where, #list, #list == 1 and "" or "s")
    end
    local fs = require "ricochet.force_set"
    local ok, sets = pcall(fs.compute, { h = h, W0 = W0, contacts = list, bodies = bodies, period = period },
                           targets, { directions = directions, refine = refine, max_lp = max_lp })
    if not ok then   -- in the user's words: no position inside the library, no internal function name
        local m = tostring(sets):gsub("^.-force_set: ", ""):gsub("^[^\n]-%.lua:%d+: ", ""):gsub("^lp%.%a+: ", "")
        fail(fname, "%s", m)
    end
    for i, s in ipairs(sets) do
        local ct = list[targets[i]]
        s.impulse = { ct.pN, ct.pT }
        s.problem = problem
    end
    if shape == "one" then return sets[1] end
    if shape == "list" then return sets end
    local byk = {}
    for i, k in ipairs(targets) do byk[k] = sets[i] end
    return byk
end

function Sim:stop()
    check_self("sim:stop", self, Sim, "a simulation")
    rawset(self, "_stop", true)
end

-- One step with callbacks. Returns false when a before_step callback asked
-- to stop (and `honour_stop` is set): the step is then not done.
local function step_once(self, c, fname, honour_stop)
    for _, fn in ipairs(self._before) do fn(self) end
    if honour_stop and self._stop then return false end
    if not core.is_open(c) then fail(fname, "the world has been closed") end
    local ok, msg, status = core.step(c)
    if not ok then
        rawset(self, "_last_status", status)
        fail(fname, "%s", msg)
    end
    for _, fn in ipairs(self._after) do fn(self) end
    return true
end

function Sim:step()
    local c = sim_core("sim:step", self, true)
    step_once(self, c, "sim:step", false)
    return self
end

local function open_output(fname, self, c, dir, every)
    if core.output_is_open(c) then
        fail(fname, "an output is already open (close it with sim:close_output first)")
    end
    local o = cli_options()
    -- registered first: an interrupt raised right after the open still finds it
    open_outputs[rawget(self, "world")] = true
    local ok, msg = core.output_open(c, dir, every, o.script, rc.params_json())
    if not ok then
        open_outputs[rawget(self, "world")] = nil
        fail(fname, "%s", msg)   -- (a folder locked by another output is refused here)
    end
    if written_dirs[dir] then
        io.stderr:write(fmt("ricochet: warning: output folder '%s' is written a second time (its contents are replaced)\n", dir))
    end
    written_dirs[dir] = true
end

function Sim:output(t)
    local fname = "sim:output"
    local c = sim_core(fname, self, true)
    if t == nil then t = {} end
    check_table(fname, t, "sim:output{ dir = \"out\", every = 10 }")
    check_keys(fname, t, { "dir", "every" })
    local dir = opt_name(fname, "dir", t.dir) or "out"
    local every = positive(fname, "every", integer(fname, "every", t.every, 1))
    open_output(fname, self, c, dir, every)
    return self
end

local CLOSE_STATUS = { "complete", "error", "interrupted", "stopped" }

function Sim:close_output(status, message)
    local fname = "sim:close_output"
    local c = sim_core(fname, self, true)
    status = option(fname, "status", status, "complete", CLOSE_STATUS)
    if message ~= nil and type(message) ~= "string" then
        fail(fname, "'message' must be a string (got %s)", show(message))
    end
    local ok, msg = core.output_close(c, status, message)
    open_outputs[rawget(self, "world")] = nil
    if not ok then fail(fname, "%s", msg) end
    return self
end

-- VTK PolyData series (docs/output-vtk.md): a frame now and after every
-- `every`-th step (step count divisible by every), written by ricochet.core.
function Sim:vtk(t)
    local fname = "sim:vtk"
    local c = sim_core(fname, self, true)
    if t == nil then t = {} end
    check_table(fname, t, "sim:vtk{ dir = \"out/vtk\", every = 10 }")
    check_keys(fname, t, { "dir", "every" })
    local dir = opt_name(fname, "dir", t.dir) or "out/vtk"
    local every = positive(fname, "every", integer(fname, "every", t.every, 1))
    local cur = rawget(self, "_vtk")
    if cur then
        fail(fname, "a VTK series is already being written to '%s' (stop it with sim:close_vtk() first)", cur.dir)
    end
    local writer, msg = core.vtk_open(dir)
    if not writer then fail(fname, "%s", msg) end
    local ok, fmsg = core.vtk_frame(writer, c)
    if not ok then
        core.vtk_close(writer)
        fail(fname, "%s", fmsg)
    end
    local v = { writer = writer, dir = dir, every = every, last = core.step_count(c) }
    v.fn = function()
        local n = core.step_count(c)
        if n % every ~= 0 or n == v.last then return end
        local wok, wmsg = core.vtk_frame(writer, c)
        if not wok then fail(fname, "%s", wmsg) end
        v.last = n
    end
    rawset(self, "_vtk", v)
    open_vtk[self] = v
    local l = self._after
    l[#l + 1] = v.fn
    return self
end

-- Stop the VTK series (its .pvd files are complete after every frame).
-- Returns the number of frames written (0 if no series was being written).
function Sim:close_vtk()
    local fname = "sim:close_vtk"
    sim_core(fname, self)
    local v = rawget(self, "_vtk")
    if not v then return 0 end
    rawset(self, "_vtk", nil)
    open_vtk[self] = nil
    local l = self._after
    for i = #l, 1, -1 do
        if l[i] == v.fn then table.remove(l, i) end
    end
    local n = core.vtk_frames(v.writer)
    local ok, msg = core.vtk_close(v.writer)
    if not ok then fail(fname, "%s", msg) end
    return n
end

function Sim:info()
    local c = sim_core("sim:info", self)
    local info, msg = core.step_info(c)
    if not info then fail("sim:info", "%s", msg) end
    return info
end

function Sim:stats()
    local c = sim_core("sim:stats", self)
    local st, msg = core.run_stats(c)
    if not st then fail("sim:stats", "%s", msg) end
    return st
end

function Sim:energy()
    local c = sim_core("sim:energy", self)
    local k, p = core.energy(c)
    if not k then fail("sim:energy", "%s", p) end
    return { kinetic = k, potential = p, total = k + p }
end

function Sim:contacts()
    local c = sim_core("sim:contacts", self)
    local l, msg = core.contacts(c)
    if not l then fail("sim:contacts", "%s", msg) end
    return l
end

function Sim:contact_names()
    local c = sim_core("sim:contact_names", self)
    return core.named_contact_names(c)
end

function Sim:contact(name)
    local fname = "sim:contact"
    local c = sim_core(fname, self)
    if type(name) ~= "string" then fail(fname, "'name' must be a string (got %s)", show(name)) end
    local names = core.named_contact_names(c)
    for i, n in ipairs(names) do
        if n == name then
            local info, msg = core.named_contact(c, i - 1)
            if not info then fail(fname, "%s", msg) end
            return info
        end
    end
    if #names == 0 then
        fail(fname, "unknown contact name '%s' (no named contacts: give name = \"...\" in w:contact)", name)
    end
    fail(fname, "unknown contact name '%s' (known: %s)", name, table.concat(names, ", "))
end

-- Checkpoint and restart (docs/checkpoint.md): the state of the run to a
-- file, and back into a world built by the same script.
function Sim:save(path)
    local fname = "sim:save"
    local c = sim_core(fname, self, true)
    if type(path) ~= "string" or path == "" then fail(fname, "'path' must be a non-empty string (got %s)", show(path)) end
    local ok, msg = core.checkpoint_save(c, path)
    if not ok then fail(fname, "%s", msg) end
    return self
end

function Sim:restore(path)
    local fname = "sim:restore"
    local c = sim_core(fname, self, true)
    if type(path) ~= "string" or path == "" then fail(fname, "'path' must be a non-empty string (got %s)", show(path)) end
    local ok, msg = core.checkpoint_restore(c, path)
    if not ok then fail(fname, "%s", msg) end
    return self
end

rc.last_summary = nil

function Sim:run(t)
    local fname = "sim:run"
    local c = sim_core(fname, self, true)
    check_table(fname, t, "sim:run{ T = 1.0 }")
    check_keys(fname, t, { "T", "out", "every", "quiet", "frames" })
    local T = nonneg(fname, "T", number(fname, "T", t.T, REQUIRED))
    local o = cli_options()
    local out = opt_name(fname, "out", t.out)
    -- the program's --out, unless an output is already open (sim:output)
    if out == nil and type(o.out) == "string" and o.out ~= "" and not core.output_is_open(c) then
        out = o.out
    end
    local every = t.every
    if every == nil and out == o.out then every = o.every end
    every = positive(fname, "every", integer(fname, "every", every, 1))
    local quiet = boolean(fname, "quiet", t.quiet, true)
    local frames = t.frames   -- a frame file for `ricochet view` (ricochet.frames)
    if frames == nil and out ~= nil and out == o.out then frames = o.frames end
    if frames ~= nil then frames = positive(fname, "frames", integer(fname, "frames", frames, 1)) end
    if frames and not out then
        fail(fname, "'frames' needs an output folder: give out = \"DIR\" (or run with --out DIR)")
    end

    -- ricochet run --restart FILE: the program's first sim:run continues from
    -- the checkpoint (the script has built the world; docs/checkpoint.md)
    local restart
    if type(o.restart) == "string" and not rawget(o, "_restarted") then
        rawset(o, "_restarted", true)
        local rok, rmsg = core.checkpoint_restore(c, o.restart)
        if not rok then fail(fname, "--restart: %s", rmsg) end
        restart = o.restart
    end
    -- --checkpoint-every N: OUT/checkpoint.rcc after every step whose count N divides
    local ck_every, ck_path = o.checkpoint_every, nil
    if ck_every ~= nil then
        if out == nil then
            fail(fname, "--checkpoint-every needs an output folder for its checkpoint.rcc (--out DIR, or sim:run{ out = ... })")
        end
        ck_path = out .. "/checkpoint.rcc"
    end

    local def = core.sim_def(c)
    local h = def.h
    local steps0 = core.step_count(c)
    if T / h > rc.MAX_RUN_STEPS then
        fail(fname, "T / h = %s / %s = %s steps is beyond the limit of %g steps per run (the run would not end)",
             show(T), show(h), show(T / h), rc.MAX_RUN_STEPS)
    end
    local n = floor((T - core.time(c)) / h + 0.5)   -- t is t0 + k h (kernel): no drift
    local k0, p0 = core.energy(c)
    local E0 = k0 + p0
    local warnings0 = core.warnings(c)
    local cpu0, wall0 = os.clock(), core.wall_time()

    if out then open_output(fname, self, c, out, every) end
    if core.output_is_open(c) then core.output_set_end_time(c, T) end   -- run.json "T"
    local fr
    if frames then
        local fmsg
        fr, fmsg = require("ricochet.frames").start(c, out, frames)
        if not fr then fail(fname, "%s", fmsg) end
        self._after[#self._after + 1] = fr.fn
    end
    rawset(self, "_stop", false)
    rawset(self, "_last_status", nil)

    local ok, err = pcall(function()
        for _ = 1, n do
            if not step_once(self, c, fname, true) then break end
            if ck_path and core.step_count(c) % ck_every == 0 then
                local sok, smsg = core.checkpoint_save(c, ck_path)
                if not sok then fail(fname, "%s", smsg) end
            end
            if self._stop then break end
        end
    end)

    local status, message
    if ok then
        status = self._stop and "stopped" or "complete"
    else
        message = tostring(err)
        if self._last_status == "RC_ERR_INTERRUPTED" or core.interrupt_requested() then
            status = "interrupted"
        elseif not core.is_open(c) then
            status = "aborted"   -- the world was closed inside a callback (its output: "aborted")
        else
            status = "error"
        end
    end
    if fr then   -- the frame file ends with the run's status
        for i = #self._after, 1, -1 do
            if self._after[i] == fr.fn then table.remove(self._after, i) end
        end
        local nfr, fmsg = require("ricochet.frames").finish(fr, status, message)
        if not nfr and ok then status, message = "error", fmsg end
        fr.count = nfr
    end
    local v = rawget(self, "_vtk")
    if v and status ~= "complete" then   -- the series ends early: say so in its .pvd files
        core.vtk_mark(v.writer, status, message)
        v.ended = status
    elseif v and v.ended then            -- an earlier run's mark no longer holds
        core.vtk_mark(v.writer, "running")
        v.ended = nil
    end
    local close_error
    if core.is_open(c) and core.output_is_open(c) and (out or not ok) then
        local cok, cmsg = core.output_close(c, status, message)
        open_outputs[rawget(self, "world")] = nil
        if not cok and ok then
            status, message, close_error = "error", cmsg, cmsg
        end
    end

    local summary = { status = status, message = message, out = out, T = T,
                      scheme = def.scheme, theta = def.theta, h = def.h,
                      scenario = o.script, restart = restart,
                      frames = fr and fr.count }
    if core.is_open(c) then
        local k, p = core.energy(c)
        local st = core.run_stats(c)
        summary.steps = core.step_count(c)
        summary.steps_run = summary.steps - steps0
        summary.t = core.time(c)
        summary.E0 = E0
        summary.E = k + p
        summary.max_iterations = st.max_iterations
        summary.max_residual = st.max_residual
        summary.failures = st.failures
        summary.max_abs_balance = st.max_abs_balance
        summary.max_energy_increase = st.max_energy_increase
        summary.max_contact_work = st.max_contact_work
        summary.max_joint_pos_violation = st.max_joint_pos_violation
        summary.max_joint_vel_violation = st.max_joint_vel_violation
        if core.joint_count(c) > 0 then   -- the joints' work, and the projection's (an option)
            local info = summary.steps > 0 and core.step_info(c) or nil
            summary.W_J = info and info.W_J_total or 0
            summary.W_proj = info and info.W_proj_total or 0
            summary.E_proj = info and info.E_proj_total or 0
            summary.project_joints = self.project_joints
            summary.joint_jacobian = self.joint_jacobian
        end
        summary.warnings = core.warnings(c) - warnings0
    end
    summary.cpu_s = os.clock() - cpu0
    summary.wall_s = core.wall_time() - wall0
    rawset(self, "summary", summary)
    rc.last_summary = summary
    if not ok then error(err, 0) end -- errors of callbacks keep their own position
    if close_error then fail(fname, "%s", close_error) end
    if not quiet then io.stdout:write(rc.format_summary(summary), "\n") end
    return summary
end

------------------------------------------------------------------ summaries, program support

-- The summary of a run as aligned text lines.
function rc.format_summary(s)
    local fname = "rc.format_summary"
    check_table(fname, s, "rc.format_summary(sim:run{ T = 1 })")
    for _, k in ipairs { "scenario", "scheme", "out", "status" } do
        if s[k] ~= nil and type(s[k]) ~= "string" then fail(fname, "'%s' must be a string (got %s)", k, show(s[k])) end
    end
    local function g(x, f)
        if x == nil then return "-" end
        return fmt(f or "%.6g", x)
    end
    for _, k in ipairs { "theta", "h", "steps", "t", "E0", "E", "max_residual", "max_iterations", "failures",
                         "max_abs_balance", "max_energy_increase", "max_contact_work", "cpu_s", "wall_s", "warnings",
                         "W_J", "W_proj", "E_proj", "max_joint_pos_violation", "frames" } do
        local x = s[k]
        if x ~= nil and type(x) ~= "number" then fail(fname, "'%s' must be a number (got %s)", k, show(x)) end
        if x ~= nil and (k == "steps" or k == "max_iterations" or k == "failures" or k == "warnings" or k == "frames")
           and not math.tointeger(x) then
            fail(fname, "'%s' must be an integer (got %s)", k, show(x))
        end
    end
    local rows = {}
    local function row(k, v) rows[#rows + 1] = fmt("  %-9s %s", k, v) end
    rows[#rows + 1] = "ricochet: run summary"
    row("scenario", s.scenario or "-")
    row("scheme", fmt("%s, theta = %s, h = %s", s.scheme or "-", g(s.theta, "%g"), g(s.h, "%g")))
    row("steps", fmt("%s (t = %s)", g(s.steps, "%d"), g(s.t, "%.10g")))
    row("energy", fmt("E0 = %s -> E = %s", g(s.E0), g(s.E)))
    row("solver", fmt("max residual %s, max sweeps %s, failures %s",
                      g(s.max_residual, "%.3g"), g(s.max_iterations, "%d"), g(s.failures, "%d")))
    row("balance", fmt("max |defect| %s, largest energy increase in a step %s, largest contact work %s",
                       g(s.max_abs_balance, "%.3g"), g(s.max_energy_increase, "%.3g"), g(s.max_contact_work, "%.3g")))
    if s.W_J ~= nil then   -- a world with joints
        row("joints", fmt("rows at %s, projection %s: largest |g| %s, work W_J %s, W_proj %s (E_proj %s)",
                          tostring(s.joint_jacobian or "-"), s.project_joints and "on" or "off",
                          g(s.max_joint_pos_violation, "%.3g"), g(s.W_J, "%.6g"), g(s.W_proj, "%.3g"),
                          g(s.E_proj, "%.3g")))
    end
    row("time", fmt("cpu %s s, wall %s s", g(s.cpu_s, "%.3f"), g(s.wall_s, "%.3f")))
    row("output", s.out or "none")
    local st = s.status or "-"
    if s.warnings and s.warnings > 0 then st = fmt("%s, %d warning%s", st, s.warnings, s.warnings > 1 and "s" or "") end
    row("status", st)
    if s.out then   -- the last line: how to look at the run (ricochet.view)
        local q = s.out:find("^[%w%._/%-]+$") and s.out or "'" .. s.out:gsub("'", "'\\''") .. "'"
        row("view", fmt("ricochet view %s%s", q, s.frames and s.frames > 0 and ""
            or "   (plots only: run with --frames N to see the motion)"))
    end
    return table.concat(rows, "\n")
end

-- Close every output still open: status "complete", "error", "interrupted",
-- "stopped" or "exited" (exit_code: the program's code). VTK series still
-- being written are marked with the status (unless "complete"; they are
-- closed as complete when collected). Used by the ricochet program when the
-- script ends, and by os.exit.
function rc.close_outputs(status, message, exit_code)
    local n = 0
    for w in pairs(open_outputs) do
        local c = rawget(w, "_c")
        if core.is_open(c) and core.output_is_open(c) then
            core.output_close(c, status, message, exit_code)
            n = n + 1
        end
        open_outputs[w] = nil
    end
    if status ~= "complete" then
        for _, v in pairs(open_vtk) do
            if not v.ended or status == "exited" then
                pcall(core.vtk_mark, v.writer, status, message)
                v.ended = status
            end
        end
    end
    return n
end

-- os.exit(code, close) closes the outputs first: status "exited", run.json
-- "exit_code" = the code (true: 0, false: 1), VTK series marked "exited".
-- Loading the module wraps os.exit (in the program and in plain lua5.4 alike;
-- not in a sandbox, where os.exit is refused).
do
    local exit = os.exit
    if type(exit) == "function" and not core.sandboxed() then
        os.exit = function(code, close)
            local n
            if code == nil or code == true then n = 0
            elseif code == false then n = 1
            else n = math.tointeger(code) end
            if n then   -- else os.exit raises its own error and nothing is closed
                local shown = code == nil and "" or tostring(code)
                pcall(rc.close_outputs, "exited", fmt("the script called os.exit(%s)", shown), n)
            end
            return exit(code, close)
        end
    end
end

-- Called by the ricochet program after the script: closes open outputs,
-- warns about --set names never read, prints the summary unless quiet.
-- outcome: "complete", "error" or "interrupted".
function rc._finish(outcome, message, quiet)
    rc.close_outputs(outcome, message)
    for _, name in ipairs(rc.unused_overrides()) do
        io.stderr:write(fmt("ricochet: warning: --set %s=%s was never read by the script (rc.param)\n",
                            name, cli_options().set[name]))
    end
    if not quiet and rc.last_summary then
        io.stdout:write(rc.format_summary(rc.last_summary), "\n")
    end
    io.stdout:flush()
end

return rc
