-- tests/fuzz/lua_fuzz.lua -- the generator of the Lua API fuzzer.
--
-- generate(seed) returns the text of one fuzz case: a self-contained Lua
-- script (a prelude, then 5 to 40 calls of the documented API) that the
-- driver tests/fuzz/fuzz_lua.c runs in a fresh child process. The same seed
-- always gives the same text, so a failing case is replayed or printed from
-- its seed alone (scripts/fuzz --case SEED, --print SEED).
--
-- What a case does (docs/security.md, "Fuzzing"):
--   * calls every documented function of docs/lua-api.md and docs/mechanisms.md
--     (module functions, shapes, laws, worlds, bodies, joints, springs, linear
--     bodies, gaps, simulations and their queries, outputs, VTK, the explorer,
--     force sets, ricochet.lp, rc.read_matrix) and of ricochet.core, with
--     mostly valid arguments mutated at a per-case rate: wrong types, NaN,
--     infinities, huge, tiny and empty values, unknown keys, hostile tables
--     (raising metamethods), objects of another kind or another world;
--   * passes callbacks (force functions, before/after_step, laws written in
--     Lua, prescribed motions, custom constraints, gap functions) that return
--     good or bad values, raise, yield, close the world, nest runs and steps,
--     collect garbage, stop or interrupt the run;
--   * runs a quarter of the cases in coroutines: the case in segments, each in
--     a new coroutine that yields between calls and may be abandoned, closed
--     or resumed later from a callback;
--   * every call is made under pcall: a Lua error is a pass.
-- The prelude checks every successful rc.core.step (so every step of
-- sim:step, sim:run and direct core calls): q and v of every body must be
-- finite, else the case exits with status 42 ("silent non-finite state").
-- It also bounds the work of a case (a step budget: past it the kernel is
-- asked to interrupt) so that a slow but legal case is not taken for a hang.
local M = {}

------------------------------------------------------------------ random numbers (xorshift64*)
local S = 1
local function rnd()
    S = S ~ (S >> 12); S = S ~ (S << 25); S = S ~ (S >> 27)
    return (S * 0x2545F4914F6CDD1D) >> 11          -- 53 random bits, >= 0
end
local function unif() return rnd() * 2.0^-53 end
local function int(a, b) return a + rnd() % (b - a + 1) end
local function chance(p) return unif() < p end
local function pick(t) return t[int(1, #t)] end
local function seed_rng(seed)
    S = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) | 1
    for _ = 1, 8 do rnd() end
end

------------------------------------------------------------------ output
local out, depth
local function emit(s) out[#out + 1] = string.rep("  ", depth) .. s end

-- a number as Lua source (floats stay floats, integers integers)
local function lit(x)
    if x ~= x then return "(0/0)" end
    if x == math.huge then return "math.huge" end
    if x == -math.huge then return "(-math.huge)" end
    if math.type(x) == "integer" then
        if x == math.mininteger then return "math.mininteger" end
        return x < 0 and ("(" .. x .. ")") or tostring(x)
    end
    if x == 0 then return 1 / x < 0 and "(-0.0)" or "0.0" end
    local s = string.format("%.17g", x)
    if not s:find("[%.eEn]") then s = s .. ".0" end
    return x < 0 and ("(" .. s .. ")") or s
end

------------------------------------------------------------------ the case's state (what the generator knows)
local C         -- per case: pm (mutation rate), counts of the pools, ownership
local function reset_case()
    C = { pm = 0, nW = 0, nB = 0, nS = 0, nL = 0, nD = 0, nJ = 0, nG = 0, nX = 0, nP = 0,
          Bw = {}, Bk = {}, Sw = {}, Jw = {}, names = {}, cb = 0, inco = false, lines = 0 }
end

-- wrong values: types, NaN, infinities, huge/tiny/empty, hostile tables
local WRONG = {
    "nil", "true", "false", "'x'", "''", "{}", "{{}}", "function() end", "(0/0)", "math.huge",
    "(-math.huge)", "(-1)", "0", "1e308", "(-1e308)", "5e-324", "math.maxinteger", "math.mininteger",
    "2^53", "(-0.0)", "'1'", "'nan'", "FZ.long", "FZ.big", "FZ.evil", "FZ.proxy", "FZ.named",
    "{0/0, 0/0, 0/0}", "{1, 2, 3, 4, 5, 6, 7, 8, 9}", "{math.huge, 0, 0}", "{1e308, 1e308, 1e308}",
    "coroutine.create(print)", "io.stdout", "rc.GROUND", "rc", "rc.core", "'\\0'", "FZ.gcerr()",
    "2^31", "(-2^31)", "2147483648", "4294967297", "1.5", "1e-300", "{nil, 1}", "{[0] = 1}",
    "{'a', 'b', 'c'}", "setmetatable({1, 2, 3}, FZ.evil_mt)",
}
local function wrong()
    local r = int(1, 10)
    if r <= 7 then return pick(WRONG) end
    if r == 8 and C.nW > 0 then return pick{ "W[1]", "W[1] and W[1]._c", "W[1] and W[1].ground", "FZ.c(W[" .. int(1, C.nW) .. "])" } end
    if r == 9 and C.nB > 0 then return "B[" .. int(1, C.nB) .. "]" end
    return pick{ "S[1]", "L[1]", "D[1]", "J[1]", "G[1]", "X[1]", "FZ.closed()" }
end
local function mut(valid, scale)
    if chance(C.pm * (scale or 1)) then return "(" .. wrong() .. ")" end
    return valid
end

-- numbers
local function num(lo, hi) return mut(lit(lo + (hi - lo) * unif())) end
local function inum(lo, hi) return mut(lit(int(lo, hi))) end
local function vec(n, lo, hi)
    local t = {}
    for i = 1, n do t[i] = chance(C.pm * 0.5) and wrong() or lit(lo + (hi - lo) * unif()) end
    if chance(C.pm * 0.2) then t[#t + 1] = lit(1) end
    if chance(C.pm * 0.2) then t[#t] = nil end
    return mut("{ " .. table.concat(t, ", ") .. " }")
end
local function bool() return mut(chance(0.5) and "true" or "false") end
local function choice(list) return mut(string.format("%q", pick(list))) end
local function new_name(prefix)
    if #C.names > 0 and chance(0.05) then return mut(string.format("%q", pick(C.names))) end
    local n = prefix .. #C.names + 1
    C.names[#C.names + 1] = n
    return mut(string.format("%q", n))
end

-- a table constructor from { {key, value text or nil}, ... }; a key with a
-- nil value is left out; sometimes an unknown key, a positional, a bad key
local BADKEYS = { "mas = 1", "[1] = 2", "[true] = 1", "['\\0'] = 1", "nme = 'x'", "[0/0 ~= 0/0 and 1 or 2] = 3",
                  "tol = 1", "T = 1", "[-1] = 0", "[2^53] = 1", "law = false" }
local function tbl(fields, positional)
    local parts = {}
    for _, p in ipairs(positional or {}) do parts[#parts + 1] = p end
    for _, f in ipairs(fields) do
        if f[2] ~= nil then parts[#parts + 1] = f[1] .. " = " .. f[2] end
    end
    if chance(C.pm * 0.5) then table.insert(parts, int(1, #parts + 1), pick(BADKEYS)) end
    if chance(C.pm * 0.3) and #parts > 0 then table.remove(parts, int(1, #parts)) end
    return mut("{ " .. table.concat(parts, ", ") .. " }", 0.3)
end
local function opt(p, v) if chance(p) then return v end return nil end

-- references to the pools (an index past the pool gives nil: a case error)
local function ref(pool, n) if n == 0 or chance(0.02) then return pool .. "[" .. (n + 1) .. "]" end return pool .. "[" .. int(1, n) .. "]" end
local function wref() return ref("W", C.nW) end
local function world_of_body(i) return C.Bw[i] or 1 end
-- a body of world wi (rigid if rigid is set), else any body
local function bref(wi, rigid)
    local ok = {}
    for i = 1, C.nB do
        if C.Bw[i] == wi and (not rigid or C.Bk[i] == "rigid") then ok[#ok + 1] = i end
    end
    if #ok == 0 or chance(0.03) then return ref("B", C.nB) end
    return "B[" .. pick(ok) .. "]"
end
local function sref()
    if C.nS == 0 then return "S[1]" end
    return "S[" .. int(1, C.nS) .. "]"
end

------------------------------------------------------------------ callbacks
-- A callback is a function whose body may do something unusual (after its
-- k-th call, so that the probes made at creation pass) and then returns a
-- good or a bad result. kinds: force, step, xi, project, update, motion,
-- dmotion, constraint, grad, gap.
local GOOD = {
    force = { "return FZ.vecn(#v, 0.1 * math.sin(t))", "return { 0, -1, 0.01 }", "return FZ.vecn(#v, 0)" },
    step = { "return", "return 1", "local _ = s and s.t" },
    xi = { "return uN + 0.5 * uoN, uT", "return uN, uT", "return uN + (law.e or 0) * uoN, uT + 0.5 * uoT" },
    project = { "return rc.laws.cone.project(law.mu or 0.3, xN, xT)", "return math.max(xN, 0), 0",
                "return rc.laws.cone.project_asym(0.2, 0.4, xN, xT)" },
    update = { "if ctx and ctx.state then for k, x in pairs(ctx.state) do ctx.state[k] = x + 1e-3 end end", "return" },
    motion = { "return 0.05 * math.sin(5 * t)", "return 0.1 * t", "return 0" },
    dmotion = { "return 0.25 * math.cos(5 * t)", "return 0.1", "return 0" },
    constraint = { "return FZ.rows(qb, ROWS)", "return FZ.rows(qb, ROWS, 1e-3)" },
    grad = { "return nil, FZ.grad(ROWS)", "return FZ.grad(ROWS), FZ.grad(ROWS)" },
    gap = { "return q[1] + 0.1, FZ.vecn(#q, 0, 1)", "return 0.2 - q[#q], FZ.vecn(#q, 0, -1, #q), FZ.vecn(#q, 0, 1)" },
}
local BAD = {
    force = { "return nil", "return {}", "return { 0/0, 0, 0 }", "return 'x'", "return { 1, 2 }", "return FZ.big",
              "return FZ.proxy", "return { math.huge, 0, 0 }", "return { 1e308, 1e308, 1e308 }", "return FZ.evil" },
    xi = { "return 0/0, 0", "return nil", "return 'a', 'b'", "return math.huge, 1", "return 1e308 * uN, 1e308", "return {}" },
    project = { "return 0/0, 0", "return nil", "return 1e300, -1e300", "return -1, 0", "return math.huge" },
    update = { "if ctx and ctx.state then for k in pairs(ctx.state) do ctx.state[k] = 0/0 end end",
               "if ctx and ctx.state then ctx.state.extra = 1 end", "if ctx then ctx.state = nil end" },
    motion = { "return 0/0", "return nil", "return 'x'", "return math.huge", "return 1e300 * t" },
    dmotion = { "return 0/0", "return nil", "return {}" },
    constraint = { "return 0/0", "return nil", "return 1, 2, 3, 4", "return 'x'", "return 1e308, 1e308, 1e308" },
    grad = { "return {}, {}", "return nil, { { 0/0, 0, 0 } }", "return 1, 2", "return nil, FZ.big", "return nil, { 1, 2, 3 }" },
    gap = { "return 0/0, {}", "return nil", "return 0, FZ.vecn(#q + 1, 0)", "return 0, { 0/0 }", "return 0, FZ.big", "return 'x'" },
}
GOOD.dmotion_ok = GOOD.dmotion
BAD.step = { "error('fuzz: step callback')" }

-- unusual things a callback may do (argument names per kind are in ARGS)
local function effect(kind)
    local r = int(1, 24)
    if r == 1 then return "error('fuzz: raised')" end
    if r == 2 then return pick{ "error({})", "error()", "error(FZ.evil)", "error(FZ.long)", "error(setmetatable({}, { __tostring = function() error('fuzz: tostring') end }))" } end
    if r == 3 then return "coroutine.yield(1)" end
    if r == 4 and C.nW > 0 then return wref() .. ":close()" end
    if r == 5 then return "collectgarbage()" end
    if r == 6 and C.nS > 0 then local s = sref(); return s .. ":step()" end
    if r == 7 and C.nS > 0 then local s = sref(); return s .. ":run{ T = FZ.T(" .. s .. ", " .. int(0, 5) .. ") }" end
    if r == 8 and C.nB > 0 then return ref("B", C.nB) .. ":set_state{ q = { 0, 0.5, 0 } }" end
    if r == 9 and C.nB > 0 then return ref("B", C.nB) .. ":set_force{ 0, 1, 0 }" end
    if r == 10 and C.nW > 0 then return wref() .. ":body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.1 } }" end
    if r == 11 and C.nS > 0 then return sref() .. ":stop()" end
    if r == 12 then return "rc.core.request_interrupt()" end
    if r == 13 then return "FZ.deep()" end
    if r == 14 and C.nL > 0 then return "FZ.setp(" .. ref("L", C.nL) .. ", " .. pick{ "0/0", "-1", "1e300", "'x'", "0.5" } .. ")" end
    if r == 15 then return "FZ.resume()" end
    if r == 16 then return "rc.close_outputs('error', 'fuzz')" end
    if r == 17 and C.nS > 0 then return sref() .. ":close_output('stopped')" end
    if r == 18 and C.nW > 0 then return wref() .. ":halfplane{}" end
    if r == 19 and C.nS > 0 then return sref() .. ":explore{}" end
    if r == 20 and C.nW > 0 then return "rc.core.step(FZ.c(" .. wref() .. "))" end
    if r == 21 and C.nS > 0 then return sref() .. ":info(); " .. sref() .. ":contacts()" end
    if r == 22 and C.nB > 0 then return ref("B", C.nB) .. ":set_force_fn(nil)" end
    if r == 23 and C.nS > 0 then return sref() .. ":vtk{ dir = 'v" .. int(1, 3) .. "' }" end
    return "rc.core.clear_interrupt()"
end

local ARGS = {
    force = "t, q, v", step = "s", xi = "law, uN, uT, uoN, uoT, ctx", project = "law, xN, xT, ctx",
    update = "law, ctx, uN, uT, uoN, uoT, pN, pT", motion = "t", dmotion = "t", constraint = "t, qa, qb",
    grad = "t, qa, qb", gap = "t, q",
}
local function callback(kind, rows)
    C.cb = C.cb + 1
    local body = {}
    local p_odd = C.pm > 0 and 0.35 or 0.12
    if chance(p_odd) then
        -- from call k + 1 on (the probes at creation pass), during a window of calls
        -- (an effect on every call of a law's xi, say a full collection, would make a
        -- step of the generic solver last minutes)
        local k = int(0, 6)
        body[#body + 1] = string.format("local n_ = FZ.tick(%d) if n_ > %d and n_ <= %d then %s end",
                                        C.cb, k, k + pick{ 1, 2, 5, 20 }, effect(kind))
    end
    local res
    if BAD[kind] and chance(C.pm > 0 and 0.25 or 0.06) then
        res = string.format("if FZ.tick(%d) > %d then %s end %s", -C.cb, int(0, 4), pick(BAD[kind]), pick(GOOD[kind]))
    else
        res = pick(GOOD[kind])
    end
    body[#body + 1] = res
    local text = "function(" .. ARGS[kind] .. ") " .. table.concat(body, " ") .. " end"
    if rows then text = text:gsub("ROWS", tostring(rows)) end
    return mut(text, 0.3)
end

------------------------------------------------------------------ descriptors
local function shape_common(fields)
    fields[#fields + 1] = { "group", opt(0.3, inum(0, 3)) }
    fields[#fields + 1] = { "name", opt(0.2, new_name("s")) }
    return fields
end

local function convex(n, r)
    -- n points on a circle at sorted distinct angles (gaps < pi: convex, CCW)
    local a, t = {}, {}
    for i = 1, n do a[i] = (i - 1 + 0.8 * unif()) * 2 * math.pi / n end
    for i = 1, n do
        local v = chance(C.pm * 0.3) and wrong() or ("{ " .. lit(r * math.cos(a[i])) .. ", " .. lit(r * math.sin(a[i])) .. " }")
        t[#t + 1] = v
    end
    local how = chance(C.pm) and int(1, 5) or 0
    if how == 1 then -- clockwise
        local rev = {}
        for i = #t, 1, -1 do rev[#rev + 1] = t[i] end
        t = rev
    elseif how == 2 then t[#t + 1] = t[1]                -- repeated vertex
    elseif how == 3 then t = { "{0, 0}", "{1, 0}", "{2, 0}" } -- collinear
    elseif how == 4 then                                -- a star (winds twice)
        t = {}
        for i = 0, 4 do t[#t + 1] = "{ " .. lit(math.cos(i * 4 * math.pi / 5)) .. ", " .. lit(math.sin(i * 4 * math.pi / 5)) .. " }" end
    elseif how == 5 then                                -- too many vertices
        t = {}
        for i = 0, 16 do t[#t + 1] = "{ " .. lit(math.cos(i * 2 * math.pi / 17)) .. ", " .. lit(math.sin(i * 2 * math.pi / 17)) .. " }" end
    end
    return mut("{ " .. table.concat(t, ", ") .. " }")
end

local function shape_desc()
    local k = int(1, 8)
    if k <= 3 then
        if chance(0.3) then return "rc.disk{ " .. num(0.02, 0.4) .. " }" end
        return "rc.disk" .. tbl(shape_common{ { "radius", num(0.02, 0.4) }, { "offset", opt(0.3, vec(2, -0.1, 0.1)) } })
    elseif k <= 5 then
        if chance(0.4) then return "rc.box{ " .. num(0.05, 1) .. ", " .. num(0.05, 1) .. " }" end
        return "rc.box" .. tbl(shape_common{ { "width", num(0.05, 1) }, { "height", num(0.05, 1) },
                                           { "offset", opt(0.3, vec(2, -0.1, 0.1)) } })
    elseif k <= 7 then
        return "rc.polygon" .. tbl(shape_common{ { "vertices", convex(int(3, 9), 0.05 + 0.4 * unif()) } })
    else
        if chance(0.5) then return "rc.point{ " .. num(-0.2, 0.2) .. ", " .. num(-0.2, 0.2) .. " }" end
        return "rc.point" .. tbl(shape_common{ { "offset", opt(0.7, vec(2, -0.2, 0.2)) } })
    end
end

local function law_desc()
    local k = int(1, 12)
    local ls = opt(0.2, choice{ "exact", "generic" })
    if k <= 3 then
        return "rc.newton" .. tbl{ { "e", opt(0.8, num(0, 1)) }, { "mu", opt(0.8, num(0, 1)) }, { "name", opt(0.2, new_name("law")) }, { "local_solver", ls } }
    elseif k == 4 then
        return "rc.moreau" .. tbl{ { "e", opt(0.8, num(0, 1)) }, { "e_t", opt(0.8, num(-1, 1)) }, { "mu", opt(0.8, num(0, 1)) }, { "local_solver", ls } }
    elseif k == 5 then
        return "rc.fremond" .. tbl{ { "e", opt(0.8, num(0, 1)) }, { "mu", opt(0.8, num(0, 1)) }, { "local_solver", ls } }
    elseif k <= 8 then
        local st = chance(0.5) and tbl{ { "k", num(0, 1) }, { "d", opt(0.5, num(0, 1)) } } or nil
        return "rc.law" .. tbl{ { "name", new_name("custom") }, { "dim", opt(0.4, inum(1, 2)) },
                                { "params", opt(0.6, tbl{ { "e", num(0, 1) }, { "mu", num(0, 1) } }) },
                                { "state", st }, { "xi", callback("xi") }, { "project", callback("project") },
                                { "update", opt(0.5, callback("update")) } }
    elseif k == 9 then
        return "rc.laws.make(" .. choice{ "newton", "moreau", "fremond", "lua-coulomb", "lua-fremond", "nope" } .. ", "
            .. tbl{ { "e", opt(0.7, num(0, 1)) }, { "mu", opt(0.7, num(0, 1)) }, { "e_t", opt(0.2, num(-1, 1)) } } .. ")"
    else
        local m = pick{ "coulomb", "cohesive", "elliptic", "velocity_weakening", "fremond_lua" }
        if m == "coulomb" then return "rc.laws.coulomb" .. tbl{ { "e", opt(0.7, num(0, 1)) }, { "mu", opt(0.7, num(0, 1)) } } end
        if m == "cohesive" then return "rc.laws.cohesive" .. tbl{ { "c", opt(0.7, num(0, 5)) }, { "mu", opt(0.7, num(0, 1)) }, { "e", opt(0.5, num(0, 1)) }, { "d_c", opt(0.5, num(0, 1)) } } end
        if m == "elliptic" then return "rc.laws.elliptic" .. tbl{ { "mu_x", opt(0.7, num(0.01, 1)) }, { "mu_y", opt(0.7, num(0.01, 1)) }, { "angle", opt(0.5, num(-3, 3)) }, { "e", opt(0.5, num(0, 1)) } } end
        if m == "velocity_weakening" then return "rc.laws.velocity_weakening" .. tbl{ { "mu_s", opt(0.7, num(0.3, 0.8)) }, { "mu_d", opt(0.7, num(0.1, 0.3)) }, { "v_c", opt(0.5, num(1e-4, 1e-2)) }, { "e", opt(0.5, num(0, 1)) } } end
        return "require('ricochet.laws.fremond')" .. tbl{ { "e", opt(0.7, num(0, 1)) }, { "mu", opt(0.7, num(0, 1)) } }
    end
end

local function law_value()
    if C.nL > 0 and chance(0.5) then return mut(ref("L", C.nL)) end
    return law_desc()
end

local function shape_value()
    if C.nD > 0 and chance(0.4) then return mut(ref("D", C.nD)) end
    return shape_desc()
end

------------------------------------------------------------------ actions
-- Each action emits one statement (run under P, i.e. pcall). `A` lists them
-- with weights.
local A = {}

local function stmt(s)
    if C.inco and chance(0.3) then emit("coroutine.yield()") end
    emit("P(function() " .. s .. " end)")
    C.lines = C.lines + 1
end

function A.world()
    C.nW = C.nW + 1
    local i = C.nW
    local per = opt(0.15, mut("{ " .. lit(-2.5) .. ", " .. lit(2.5 + unif()) .. " }"))
    local t = tbl{ { "dim", opt(0.1, inum(2, 3)) }, { "gravity", opt(0.8, mut("{ " .. lit(0.0) .. ", " .. lit(-10 * unif()) .. " }")) },
                   { "margin", opt(0.3, num(0, 0.05)) }, { "default_law", opt(0.3, law_value()) }, { "periodic", per } }
    if chance(0.1) then t = mut("nil") end
    stmt(string.format("W[%d] = rc.world%s", i, t:sub(1, 1) == "{" and t or "(" .. t .. ")"))
    if chance(0.85) then
        stmt(string.format("W[%d]:halfplane%s", i, tbl{ { "point", opt(0.5, vec(2, -0.1, 0.1)) },
            { "normal", opt(0.7, mut("{ " .. lit(0.4 * unif() - 0.2) .. ", 1.0 }")) },
            { "group", opt(0.2, inum(0, 2)) }, { "name", opt(0.2, new_name("hp")) } }))
    end
end

function A.tbc_world()
    -- a to-be-closed world: closed at the end of the block, by an error or not
    C.nW = C.nW + 1
    local i = C.nW
    emit("P(function()")
    depth = depth + 1
    emit(string.format("local w <close> = rc.world{ gravity = { 0, -9.81 } }; W[%d] = w", i))
    for _ = 1, int(1, 4) do
        local k = pick{ "body", "body", "halfplane", "sim", "run", "contact" }
        A[k]()
    end
    if chance(0.5) then emit("error('fuzz: tbc')") end
    depth = depth - 1
    emit("end)")
end

function A.body()
    if C.nW == 0 then A.world() end
    local wi = int(1, C.nW)
    C.nB = C.nB + 1
    C.Bw[C.nB], C.Bk[C.nB] = wi, "rigid"
    local shapes
    local r = int(1, 10)
    local fields = { { "name", opt(0.3, new_name("b")) }, { "kind", opt(0.05, choice{ "rigid2d", "linear", "rigid3d" }) },
                     { "mass", num(0.1, 5) }, { "inertia", num(0.01, 1) },
                     { "q", opt(0.9, mut("{ " .. lit(-1 + 2 * unif()) .. ", " .. lit(0.05 + 1.2 * unif()) .. ", " .. lit(-3 + 6 * unif()) .. " }")) },
                     { "v", opt(0.5, vec(3, -2, 2)) }, { "force", opt(0.15, vec(3, -1, 1)) },
                     { "force_fn", opt(0.15, callback("force")) } }
    if r <= 7 then fields[#fields + 1] = { "shape", shape_value() }
    elseif r <= 9 then
        local s = {}
        for j = 1, int(0, 3) do s[j] = shape_value() end
        shapes = mut("{ " .. table.concat(s, ", ") .. " }")
        fields[#fields + 1] = { "shapes", shapes }
    end
    stmt(string.format("B[%d] = W[%d]:body%s", C.nB, wi, tbl(fields)))
end

function A.pile()
    -- many grains at once (broad phase, colours, threads)
    if C.nW == 0 then A.world() end
    local wi = int(1, C.nW)
    local n = int(10, 50)
    C.nB = C.nB + 1
    C.Bw[C.nB], C.Bk[C.nB] = wi, "rigid"
    local shape = chance(0.5) and "rc.disk{ radius = 0.04 + 0.02 * (i % 3) / 3 }"
        or "rc.polygon{ vertices = FZ.ngon(3 + i % 5, 0.05) }"
    stmt(string.format("for i = 1, %d do B[%d] = W[%d]:body{ mass = 1, inertia = 0.01, q = { -1 + (i %% 15) * 0.13, 0.06 + (i // 15) * 0.13, i }, v = { 0, -0.5, 0 }, shape = %s } end",
        n, C.nB, wi, shape))
end

function A.big_pile() C.big = true end   -- made at the end of the case (see big_pile)

local function big_pile()
    -- enough grains resting side by side for a colour of more than 512 contacts:
    -- the coloured sweeps then really run on several OpenMP threads (smaller
    -- colours are swept by one), and the case ends right after, with a team alive
    C.nW = C.nW + 1
    C.nS = C.nS + 1
    local wi, si = C.nW, C.nS
    C.Sw[si] = wi
    stmt(string.format("W[%d] = rc.world{ gravity = { 0, -9.81 } }; W[%d]:halfplane{}", wi, wi))
    stmt(string.format("for i = 0, %d do local r = i // 60; W[%d]:body{ mass = 1, inertia = 1e-3, "
        .. "q = { -3 + (i %% 60) * 0.1 + (r %% 2) * 0.05, 0.05 + r * 0.0866, 0 }, shape = rc.disk{ radius = 0.05 } } end",
        int(1000, 1400), wi))
    stmt(string.format("S[%d] = W[%d]:simulation{ h = 1e-3, solver = { 'nsgs', order = 'colour', threads = %d, "
        .. "adaptive_threads = false, max_iter = %d } }", si, wi, int(2, 3), int(2, 20)))
    emit("FZ.budget, FZ.cpu = 10, os.clock() + 2; rc.core.clear_interrupt()   -- these steps are made")
    stmt(string.format("for _ = 1, %d do S[%d]:step() end", int(1, 4), si))
    emit(string.format("FZ_KEEP = W[%d]   -- (a global: freed by lua_close, just before the module's dlclose)", wi))
end

function A.linear()
    if C.nW == 0 then A.world() end
    local wi = int(1, C.nW)
    C.nB = C.nB + 1
    C.Bw[C.nB], C.Bk[C.nB] = wi, "linear"
    local n = int(1, 5)
    local function mat(diag, off)
        local rows = {}
        for a = 1, n do
            local row = {}
            for b = 1, n do
                local x = a == b and diag or ((math.abs(a - b) == 1) and off or 0)
                row[b] = chance(C.pm * 0.1) and wrong() or lit(x)
            end
            rows[a] = "{ " .. table.concat(row, ", ") .. " }"
        end
        return mut("{ " .. table.concat(rows, ", ") .. " }")
    end
    local k = 1 + 100 * unif()
    stmt(string.format("B[%d] = W[%d]:linear%s", C.nB, wi, tbl{
        { "name", opt(0.3, new_name("lin")) }, { "M", mat(1 + unif(), 0.0) }, { "K", opt(0.7, mat(2 * k, -k)) },
        { "C", opt(0.3, mat(0.1, 0.0)) }, { "q0", opt(0.5, vec(n, -0.1, 0.1)) }, { "v0", opt(0.5, vec(n, -1, 1)) },
        { "f", opt(0.5, vec(n, -10, 0)) }, { "force_fn", opt(0.2, callback("force")) } }))
    if chance(0.6) then A.gap(C.nB) end
end

function A.gap(bi)
    if C.nB == 0 then return A.body() end
    bi = bi or int(1, C.nB)
    local wi = world_of_body(bi)
    C.nG = C.nG + 1
    local n = C.Bk[bi] == "linear" and 1 or 3
    local fields
    if chance(0.5) then
        fields = { { "index", mut("{ " .. int(1, n) .. " }") }, { "normal", vec(1, 0.5, 1) }, { "tangent", opt(0.3, vec(1, -1, 1)) },
                   { "g0", opt(0.8, num(-0.01, 0.2)) } }
    else
        fields = { { "gap", callback("gap") } }
    end
    fields[#fields + 1] = { "law", opt(0.4, law_value()) }
    fields[#fields + 1] = { "name", opt(0.4, new_name("gap")) }
    stmt(string.format("G[%d] = W[%d]:gap%s", C.nG, wi, tbl(fields, { mut("B[" .. bi .. "]") })))
end

function A.shape_pool()
    C.nD = C.nD + 1
    stmt(string.format("D[%d] = %s", C.nD, shape_desc()))
end

function A.law_pool()
    C.nL = C.nL + 1
    stmt(string.format("L[%d] = %s", C.nL, law_desc()))
end

function A.law_set()
    if C.nL == 0 then return A.law_pool() end
    stmt(ref("L", C.nL) .. ":set" .. tbl{ { "e", opt(0.6, num(0, 1)) }, { "mu", opt(0.6, num(0, 1)) }, { "e_t", opt(0.3, num(-1, 1)) } })
end

function A.halfplane()
    if C.nW == 0 then return A.world() end
    stmt(wref() .. ":halfplane" .. tbl{ { "point", opt(0.6, vec(2, -1, 1)) }, { "normal", opt(0.8, vec(2, -1, 1)) },
                                        { "group", opt(0.2, inum(0, 2)) }, { "name", opt(0.2, new_name("hp")) } })
end

function A.segment()
    if C.nW == 0 then return A.world() end
    stmt(wref() .. ":segment" .. tbl{ { "a", vec(2, -1, 1) }, { "b", vec(2, -1, 1) }, { "radius", opt(0.5, num(0, 0.1)) },
                                      { "group", opt(0.2, inum(0, 2)) }, { "name", opt(0.2, new_name("seg")) } })
end

function A.obstacle()
    if C.nW == 0 then return A.world() end
    stmt(wref() .. ":obstacle" .. tbl({ { "at", opt(0.7, vec(2, -1, 0.3)) }, { "angle", opt(0.5, num(-3, 3)) },
                                        { "group", opt(0.2, inum(0, 2)) }, { "name", opt(0.2, new_name("obs")) } }, { shape_value() }))
end

function A.contact()
    if C.nW == 0 then return A.world() end
    local wi = int(1, C.nW)
    local law = chance(0.15) and mut("false") or opt(0.8, law_value())
    if chance(0.3) then
        stmt(string.format("W[%d]:contact%s", wi, tbl{ { "groups", mut("{ " .. inum(0, 3) .. ", " .. inum(0, 3) .. " }") }, { "law", law } }))
    else
        local a = chance(0.4) and string.format("W[%d].ground", wi) or bref(wi)
        stmt(string.format("W[%d]:contact%s", wi, tbl({ { "law", law }, { "name", opt(0.3, new_name("c")) } }, { mut(a), mut(bref(wi)) })))
    end
end

function A.joint()
    if C.nB == 0 then return A.body() end
    local bi = int(1, C.nB)
    local wi = world_of_body(bi)
    local a = chance(0.5) and string.format("W[%d].ground", wi) or bref(wi, true)
    local b = "B[" .. bi .. "]"
    local pts
    if chance(0.5) then pts = { { "at", vec(2, -1, 1) } }
    else pts = { { "point_a", opt(0.9, vec(2, -0.2, 0.2)) }, { "point_b", opt(0.9, vec(2, -0.2, 0.2)) } } end
    local kind = int(1, 9)
    C.nJ = C.nJ + 1
    local j = string.format("J[%d] = W[%d]:", C.nJ, wi)
    local name = { "name", opt(0.3, new_name("j")) }
    local pos = { mut(a), mut(b) }
    if kind == 1 then
        pts[#pts + 1] = name
        stmt(j .. "revolute" .. tbl(pts, pos))
    elseif kind == 2 then
        pts[#pts + 1] = { "angle", opt(0.3, num(-1, 1)) }; pts[#pts + 1] = name
        stmt(j .. "weld" .. tbl(pts, pos))
    elseif kind == 3 then
        pts[#pts + 1] = { "axis", vec(2, -1, 1) }; pts[#pts + 1] = { "angle", opt(0.3, num(-1, 1)) }; pts[#pts + 1] = name
        stmt(j .. "prismatic" .. tbl(pts, pos))
    elseif kind == 4 then
        pts[#pts + 1] = { "axis", vec(2, -1, 1) }; pts[#pts + 1] = name
        stmt(j .. "line" .. tbl(pts, pos))
    elseif kind == 5 then
        stmt(j .. "distance" .. tbl({ { "point_a", opt(0.5, vec(2, -0.2, 0.2)) }, { "point_b", opt(0.5, vec(2, -0.2, 0.2)) },
                                      { "length", opt(0.4, num(0.1, 2)) }, name }, pos))
    elseif kind <= 7 then
        stmt(j .. "prescribe" .. tbl({ { "coord", choice{ "x", "y", "theta", "z" } }, { "f", callback("motion") },
                                       { "df", opt(0.5, callback("dmotion")) }, { "relative_to", opt(0.3, mut(a)) }, name }, { mut(b) }))
    else
        local rows = int(1, 3)
        stmt(j .. "constraint" .. tbl({ { "rows", mut(lit(rows)) }, { "g", callback("constraint", rows) },
                                        { "grad", opt(0.4, callback("grad", rows)) }, name }, pos))
    end
end

function A.spring()
    if C.nB == 0 then return A.body() end
    local bi = int(1, C.nB)
    local wi = world_of_body(bi)
    local a = chance(0.5) and string.format("W[%d].ground", wi) or bref(wi, true)
    if chance(0.6) then
        stmt(string.format("X[%d] = W[%d]:spring%s", C.nX + 1, wi, tbl({ { "point_a", opt(0.6, vec(2, -1, 1)) }, { "point_b", opt(0.6, vec(2, -0.2, 0.2)) },
            { "k", num(0, 100) }, { "c", opt(0.5, num(0, 2)) }, { "rest_length", opt(0.5, num(0, 1)) }, { "name", opt(0.3, new_name("sp")) } },
            { mut(a), mut("B[" .. bi .. "]") })))
    else
        stmt(string.format("X[%d] = W[%d]:torsion_spring%s", C.nX + 1, wi, tbl({ { "k", num(0, 100) }, { "c", opt(0.5, num(0, 2)) },
            { "rest_angle", opt(0.5, num(-3, 3)) }, { "name", opt(0.3, new_name("tsp")) } }, { mut(a), mut("B[" .. bi .. "]") })))
    end
    C.nX = C.nX + 1
end

function A.sim()
    if C.nW == 0 then A.world() end
    local wi = int(1, C.nW)
    C.nS = C.nS + 1
    C.Sw[C.nS] = wi
    local threads = chance(0.12) and mut(lit(int(2, 3))) or opt(0.1, inum(1, 1))
    local order = threads and pick{ "'colour'", "'color'", "'slabs'", choice{ "colour", "slabs", "fixed" } }
                  or opt(0.3, choice{ "fixed", "random", "position", "top", "colour", "color", "slabs" })
    local solver = opt(0.7, tbl({ { "tol", opt(0.5, num(1e-12, 1e-6)) }, { "max_iter", opt(0.5, inum(1, 100)) },
        { "on_fail", opt(0.4, choice{ "warn", "error" }) }, { "warm_start", opt(0.3, bool()) },
        { "local_tol", opt(0.2, num(0, 1e-8)) }, { "local_max_iter", opt(0.2, inum(1, 30)) },
        { "relax", opt(0.3, num(0.5, 1.9)) }, { "order", order }, { "seed", opt(0.3, inum(0, 100)) },
        { "check_every", opt(0.2, inum(1, 5)) }, { "threads", threads }, { "adaptive_threads", opt(0.3, bool()) },
        { "norm", opt(0.15, choice{ "l2", "max", "siconos" }) }, { "skip_quiet", opt(0.1, num(0, 5)) } },
        chance(0.8) and { choice{ "nsgs", "nsgs", "uzawa" } } or {}))
    local scheme = opt(0.7, choice{ "moreau-jean", "moreau-jean-fremond", "maury" })
    local t = tbl{ { "scheme", scheme }, { "theta", opt(0.5, num(0, 1)) }, { "h", opt(0.8, num(1e-4, 2e-2)) },
        { "activation", opt(0.3, choice{ "gap", "anticipate" }) }, { "gamma", opt(0.2, num(0, 1)) },
        { "persist_tol", opt(0.2, num(0, 1e-6)) }, { "solver", solver }, { "work_check", opt(0.3, choice{ "record", "warn", "error" }) },
        { "work_tol", opt(0.2, num(0, 1e-6)) }, { "project_joints", opt(0.2, bool()) }, { "project_tol", opt(0.2, num(1e-14, 1e-6)) },
        { "project_max_iter", opt(0.2, inum(1, 60)) } }
    stmt(string.format("S[%d] = W[%d]:simulation%s", C.nS, wi, chance(0.05) and "()" or t))
end

function A.callbacks()
    if C.nS == 0 then return A.sim() end
    stmt(sref() .. ":" .. pick{ "before_step", "after_step" } .. "(" .. callback("step") .. ")")
end

function A.step()
    if C.nS == 0 then return A.sim() end
    local s = sref()
    if chance(0.5) then stmt(s .. ":step()") return end
    local n = int(1, 8)
    stmt(string.format("for _ = 1, %d do %s:step() end", n, s))
end

function A.run()
    if C.nS == 0 then return A.sim() end
    local s = sref()
    local T = mut(string.format("FZ.T(%s, %d)", s, int(0, 40)))
    -- folders, and names that make a later output's files folders ('o1/history.csv.gz')
    local outdir = opt(0.15, mut(pick{ "'o1'", "'o2'", "'o1/deeper'", "''", "'/proc/fuzz'", "'/dev/null/x'", "FZ.longdir",
                                       "'o1\\0x'", "'o1/history.csv.gz'", "'o2/run.json'", "'o2/history.bin'" }))
    stmt(s .. ":run" .. tbl{ { "T", T }, { "out", outdir }, { "every", opt(0.2, inum(1, 5)) }, { "quiet", opt(0.2, bool()) },
                             { "format", opt(0.2, pick{ "'csv'", "'binary'", "'bin'" }) } })
end

function A.output()
    if C.nS == 0 then return A.sim() end
    local s = sref()
    if chance(0.5) then
        stmt(s .. ":output" .. tbl{ { "dir", opt(0.9, mut(pick{ "'o1'", "'o2'", "'o3'", "'/proc/fuzz'", "'o1/history.csv.gz'",
                                                                  "'o3/run.json'" })) }, { "every", opt(0.3, inum(1, 3)) },
                              { "format", opt(0.3, pick{ "'csv'", "'binary'", "'xml'" }) } })
    else
        stmt(s .. ":close_output(" .. (opt(0.7, choice{ "complete", "error", "interrupted", "stopped", "bogus" }) or "nil") .. (chance(0.3) and (", " .. mut("'fuzz'")) or "") .. ")")
    end
end

function A.vtk()
    if C.nS == 0 then return A.sim() end
    local s = sref()
    if chance(0.6) then
        stmt(s .. ":vtk" .. tbl{ { "dir", opt(0.9, mut(pick{ "'v1'", "'v2'", "'/proc/fuzz'", "'v1/series.pvd'", "'o1'" })) },
                                 { "every", opt(0.4, inum(1, 4)) } })
    else
        stmt(s .. ":close_vtk()")
    end
end

function A.query()
    if C.nS == 0 then return A.sim() end
    local s = sref()
    local q = int(1, 12)
    if q == 1 then stmt("FZ.use(" .. s .. ":info())")
    elseif q == 2 then stmt("FZ.use(" .. s .. ":stats())")
    elseif q == 3 then stmt("FZ.use(" .. s .. ":energy())")
    elseif q == 4 then stmt("FZ.use(" .. s .. ":contacts())")
    elseif q == 5 then stmt("FZ.use(" .. s .. ":contact_names())")
    elseif q == 6 then stmt("FZ.use(" .. s .. ":contact(" .. mut(#C.names > 0 and string.format("%q", pick(C.names)) or "'c1'") .. "))")
    elseif q == 7 then stmt(s .. ":stop()")
    elseif q == 8 then stmt("FZ.use(" .. s .. ".t, " .. s .. ".steps, tostring(" .. s .. "))")
    elseif q == 9 then stmt(s .. "." .. pick{ "t", "steps" } .. " = 1")
    elseif q == 10 then stmt("FZ.use(" .. s .. ".summary and rc.format_summary(" .. s .. ".summary))")
    elseif q == 11 then stmt("FZ.use(rc.format_summary(" .. mut("rc.last_summary or {}") .. "))")
    else stmt("FZ.use(" .. s .. "." .. pick{ "step", "run", "info", "explore" } .. "(" .. wrong() .. "))") end
end

function A.explore()
    if C.nS == 0 then return A.sim() end
    local scale = chance(0.3) and mut("{ " .. lit(unif()) .. ", " .. lit(unif()) .. " }") or opt(0.6, num(0, 2))
    stmt("FZ.use(" .. sref() .. ":explore" .. tbl{ { "guess", opt(0.7, choice{ "zero", "random", "warm" }) }, { "scale", scale },
        { "order", opt(0.6, choice{ "random", "cyclic", "fixed" }) }, { "seed", opt(0.4, inum(0, 1000)) } } .. ")")
end

function A.force_set()
    if C.nS == 0 then return A.sim() end
    local contact = pick{ "1", "2", "'all'", "{ 1, 2 }", "0", "99" }
    stmt("FZ.use(" .. sref() .. ":force_set" .. tbl{ { "contact", mut(contact) }, { "directions", opt(0.6, inum(4, 24)) },
        { "problem", opt(0.5, choice{ "step", "explore" }) }, { "tol", opt(0.3, num(1e-9, 1e-3)) },
        { "refine", opt(0.3, bool()) }, { "max_lp", opt(0.3, inum(0, 50)) } } .. ")")
end

function A.body_method()
    if C.nB == 0 then return A.body() end
    local b = ref("B", C.nB)
    local m = int(1, 12)
    if m == 1 then stmt("FZ.use(" .. b .. ":q(), " .. b .. ":v())")
    elseif m == 2 then stmt(b .. ":set_state" .. tbl{ { "q", opt(0.7, vec(3, -1, 1)) }, { "v", opt(0.6, vec(3, -2, 2)) } })
    elseif m == 3 then stmt(b .. ":set_force" .. vec(3, -5, 5))
    elseif m == 4 then stmt("FZ.use(" .. b .. ":force())")
    elseif m == 5 then stmt(b .. ":set_force_fn(" .. (chance(0.3) and mut("nil") or callback("force")) .. ")")
    elseif m == 6 then stmt("FZ.use(" .. b .. ":mass())")
    elseif m == 7 then stmt("FZ.use(" .. b .. ":add_shape(" .. shape_value() .. "))")
    elseif m == 8 then stmt("FZ.use(" .. b .. ":energy())")
    elseif m == 9 then stmt("FZ.use(tostring(" .. b .. "), " .. b .. ".id, " .. b .. ".name, " .. b .. ".kind)")
    elseif m == 10 then stmt(b .. ".colour = " .. wrong())
    elseif m == 11 then stmt(b .. ".id = " .. wrong())
    else stmt("FZ.use(" .. b .. "." .. pick{ "q", "v", "set_state", "mass", "add_shape" } .. "(" .. wrong() .. "))") end
end

function A.world_method()
    if C.nW == 0 then return A.world() end
    local w = wref()
    local m = int(1, 10)
    if m == 1 then stmt("FZ.use(" .. w .. ":bodies())")
    elseif m == 2 then stmt("FZ.use(" .. w .. ":find(" .. mut(#C.names > 0 and string.format("%q", pick(C.names)) or "'b1'") .. "))")
    elseif m == 3 then stmt("FZ.use(" .. w .. ":joints())")
    elseif m == 4 then stmt(w .. ":close()")
    elseif m == 5 then stmt("FZ.use(tostring(" .. w .. "), " .. w .. ".gravity, " .. w .. ".margin, " .. w .. ".dim)")
    elseif m == 6 then stmt("FZ.use(" .. w .. "." .. pick{ "body", "halfplane", "simulation", "contact", "close", "revolute", "linear", "gap" } .. "(" .. wrong() .. "))")
    elseif m == 7 then stmt("FZ.use(" .. w .. ":" .. pick{ "body", "halfplane", "simulation", "contact", "revolute", "spring", "linear", "gap", "obstacle", "segment", "constraint", "prescribe" } .. "(" .. wrong() .. "))")
    elseif m == 8 then stmt(w .. "._c = " .. wrong())
    elseif m == 9 then stmt("W[" .. int(1, C.nW) .. "] = nil; collectgarbage()")
    else stmt("FZ.use(" .. w .. ".ground, " .. w .. ".default_law)") end
end

function A.joint_method()
    if C.nJ == 0 then return A.joint() end
    local j = ref("J", C.nJ)
    stmt("FZ.use(" .. j .. ":" .. pick{ "info", "force", "info", "force" } .. "(), tostring(" .. j .. "))")
end

function A.module()
    local m = int(1, 16)
    if m == 1 then stmt("FZ.use(rc.param(" .. mut(string.format("%q", pick{ "theta", "e", "n", "flag", "s", "a=b", "" })) .. ", " .. mut(pick{ "0.5", "10", "true", "'str'", "1.0" }) .. "))")
    elseif m == 2 then stmt("FZ.use(rc.params(), rc.params_json())")
    elseif m == 3 then stmt("rc.reset_params()")
    elseif m == 4 then stmt("FZ.use(rc.unused_overrides(), rc.options())")
    elseif m == 5 then
        stmt("rc.set_options(" .. (chance(0.3) and mut("nil") or tbl{ { "set", opt(0.8, mut("{ theta = " .. mut("'0.25'") .. ", n = '12', flag = 'true', s = 'x', e = 'abc' }")) },
            { "out", opt(0.3, mut("'o4'")) }, { "every", opt(0.3, inum(1, 3)) }, { "quiet", opt(0.3, bool()) }, { "script", opt(0.2, mut("'case.lua'")) },
            { "args", opt(0.2, mut("{ 'a' }")) } }) .. ")")
    elseif m == 6 then stmt("FZ.use(rc.alloc_count(), rc.openmp(), rc.version, rc.GROUND)")
    elseif m == 7 then stmt("FZ.use(rc.close_outputs(" .. (opt(0.7, choice{ "complete", "error", "interrupted", "stopped", "bogus" }) or "") .. "))")
    elseif m == 8 then stmt("FZ.use(rc.format_summary(" .. wrong() .. "))")
    elseif m == 9 then stmt("FZ.use(rc." .. pick{ "disk", "box", "polygon", "point", "newton", "moreau", "fremond", "law", "world", "param", "read_matrix", "set_options" } .. "(" .. wrong() .. "))")
    elseif m == 10 then stmt("FZ.use(rc.laws." .. pick{ "cohesive", "elliptic", "coulomb", "velocity_weakening", "nope", "make" } .. "(" .. wrong() .. "))")
    elseif m == 11 then stmt("FZ.use(rc.laws.cone." .. pick{ "project", "project_asym", "shift", "check" } .. "(" .. wrong() .. ", " .. wrong() .. ", " .. wrong() .. ", " .. wrong() .. "))")
    elseif m == 12 then stmt("FZ.use(rc.laws.elliptic.mu(" .. mut("{ mu_x = 0.2, mu_y = 0.1, angle = 0 }") .. ", " .. num(-1, 1) .. ", " .. num(-1, 1) .. "))")
    elseif m == 13 then stmt("FZ.use(tostring(" .. shape_value() .. "), tostring(" .. law_value() .. "))")
    elseif m == 14 then stmt("rc.core.request_interrupt()")
    elseif m == 15 then stmt("rc.core.clear_interrupt()")
    else stmt("collectgarbage()") end
end

function A.lp()
    local n = int(1, 4)
    local function row(k) local t = {} for i = 1, k do t[i] = chance(C.pm * 0.2) and wrong() or lit(int(-3, 3) + 0.0) end return "{ " .. table.concat(t, ", ") .. " }" end
    local function rows(m) local t = {} for i = 1, m do t[i] = row(n) end return mut("{ " .. table.concat(t, ", ") .. " }") end
    local m1, m2 = int(0, 3), int(0, 2)
    local fields = { { "c", mut(row(n)) }, { "sense", opt(0.5, choice{ "min", "max" }) },
        { "A_le", m1 > 0 and rows(m1) or nil }, { "b_le", m1 > 0 and mut(row(m1):gsub("%-", "")) or nil },
        { "A_eq", m2 > 0 and rows(m2) or nil }, { "b_eq", m2 > 0 and mut(row(m2)) or nil },
        { "free", opt(0.2, mut("{ 1 }")) }, { "tol", opt(0.1, num(1e-12, 1e-6)) }, { "max_iter", opt(0.1, inum(1, 100)) },
        { "refactor", opt(0.1, inum(1, 10)) } }
    if chance(0.7) then
        stmt("FZ.use(require('ricochet.lp').solve" .. tbl(fields) .. ")")
    else
        table.remove(fields, 1); table.remove(fields, 1)
        C.nP = C.nP + 1
        stmt(string.format("P_[%d] = require('ricochet.lp').problem%s; FZ.use(P_[%d]:solve(%s, %s))", C.nP, tbl(fields), C.nP,
            mut(row(n)), choice{ "min", "max" }))
    end
end

function A.read_matrix()
    local texts = { "'1 0\\n0 1\\n'", "'2, -1; -1 2 # K\\n\\n'", "'1 2\\n3\\n'", "'x1 2\\n'",
        "'%%%%MatrixMarket matrix coordinate real symmetric\\n2 2 2\\n1 1 2\\n2 2 3\\n'",
        "'%%%%MatrixMarket matrix coordinate real general\\n2 2 3\\n1 1 2\\n1 1 3\\n2 2 1\\n'",
        "'%%%%MatrixMarket matrix coordinate real general\\n2 2 1\\n3 1 1\\n'",
        "'%%%%MatrixMarket matrix array real general\\n1 1\\n1\\n'", "''", "'nan inf\\n1 1\\n'",
        "'1e400 1\\n1 1\\n'", "string.rep('1 ', 300) .. '\\n'" }
    local path = chance(0.8) and ("FZ.file(" .. pick(texts) .. ")") or pick{ "'nonexistent.txt'", "'.'", "'/dev/null'", wrong() }
    stmt("FZ.use(rc.read_matrix(" .. path .. "))")
end

-- ricochet.core called directly: plausible arguments, mutated
local CORE = {
    world_new = { "wdef" }, close = { "c", "status", "str" }, is_open = { "c" }, is_world = { "any" },
    is_stepping = { "c" }, warnings = { "c" }, body_create = { "c", "bdef" }, body_count = { "c" },
    body_state = { "c", "id" }, body_set_state = { "c", "id", "vec3", "vec3" }, body_set_force = { "c", "id", "vec3" },
    body_force = { "c", "id" }, body_set_force_fn = { "c", "id", "fn" }, body_mass = { "c", "id" }, body_nq = { "c", "id" },
    joint_create = { "c", "jdef" }, joint_count = { "c" }, joint_name = { "c", "id" }, joint_info = { "c", "id" },
    spring_create = { "c", "spdef" }, linear_create = { "c", "ldef" }, linear_energy = { "c", "id" }, gap_create = { "c", "gdef" },
    shape_create = { "c", "id", "desc" }, shape_count = { "c" }, shape_def = { "c", "id" },
    law_create = { "c", "ltype", "num", "num", "num", "str", "bool" }, law_create_custom = { "c", "cdesc" },
    set_default_law = { "c", "id" }, law_set = { "c", "id", "num", "num", "num" }, law_def = { "c", "id" },
    contact_rule = { "c", "rkind", "id", "id", "lawid", "str" }, configure = { "c", "sdef" }, sim_def = { "c" },
    step = { "c" }, time = { "c" }, step_count = { "c" }, step_info = { "c" }, energy = { "c" }, run_stats = { "c" },
    contacts = { "c" }, named_contact_names = { "c" }, named_contact = { "c", "id" },
    output_open = { "c", "dir", "id", "str", "str", "str" }, output_close = { "c", "status", "str" }, output_is_open = { "c" },
    request_interrupt = {}, clear_interrupt = {}, interrupt_requested = {}, explore = { "c", "edef" },
    vtk_open = { "dir", "id", "id" }, vtk_frame = { "writer", "c" }, vtk_frames = { "writer" }, vtk_close = { "writer" },
    alloc_count = {}, openmp = {}, wall_time = {},
}
local CORE_NAMES = {}
for k in pairs(CORE) do CORE_NAMES[#CORE_NAMES + 1] = k end
table.sort(CORE_NAMES)

local function core_arg(kind)
    if kind == "c" then return "FZ.c(" .. wref() .. ")" end
    if kind == "id" then return lit(pick{ -2, -1, 0, 0, 1, 1, 2, 3, 7, 100, math.maxinteger, math.mininteger, 2147483647, 2147483648 }) end
    if kind == "num" then return lit(unif()) end
    if kind == "vec3" then return opt(0.9, vec(3, -1, 1)) or "nil" end
    if kind == "str" then return pick{ "nil", "'x'", "''", "FZ.long", "'c1'" } end
    if kind == "status" then return string.format("%q", pick{ "complete", "error", "interrupted", "stopped", "bogus" }) end
    if kind == "bool" then return pick{ "true", "false", "nil" } end
    if kind == "fn" then return chance(0.7) and callback("force") or "nil" end
    if kind == "any" then return wrong() end
    if kind == "desc" then return shape_value() end
    if kind == "ltype" then return string.format("%q", pick{ "newton", "moreau", "fremond", "custom", "x" }) end
    if kind == "rkind" then return string.format("%q", pick{ "bodies", "groups", "x" }) end
    if kind == "lawid" then return pick{ "0", "1", "false", "nil", "-1", "5" } end
    if kind == "dir" then return pick{ "'o5'", "'v5'", "'/proc/fuzz'", "''", "nil" } end
    if kind == "writer" then return "X[" .. int(1, C.nX + 1) .. "]" end
    if kind == "cdesc" then
        if C.nL > 0 and chance(0.6) then return ref("L", C.nL) end
        return tbl{ { "type", "'custom'" }, { "name", "'cc'" }, { "dim", inum(1, 2) }, { "params", "{}" },
                    { "xi", callback("xi") }, { "project", callback("project") }, { "update", opt(0.3, callback("update")) },
                    { "state_names", opt(0.5, "{ 'a' }") }, { "state0", opt(0.5, "{ 0 }") } }
    end
    if kind == "wdef" then return tbl{ { "dim", opt(0.2, inum(2, 3)) }, { "gravity", opt(0.6, vec(2, -10, 0)) }, { "margin", opt(0.4, num(0, 0.1)) },
        { "e", opt(0.3, num(0, 1)) }, { "mu", opt(0.3, num(0, 1)) }, { "periodic", opt(0.2, vec(2, -2, 2)) } } end
    if kind == "bdef" then return tbl{ { "name", opt(0.3, new_name("cb")) }, { "mass", num(0.1, 2) }, { "inertia", num(0.1, 2) },
        { "q", opt(0.7, vec(3, -1, 1)) }, { "v", opt(0.5, vec(3, -1, 1)) }, { "force", opt(0.3, vec(3, -1, 1)) } } end
    if kind == "jdef" then return tbl{ { "type", choice{ "revolute", "weld", "prismatic", "line", "distance", "prescribed", "custom", "x" } },
        { "a", inum(-1, 2) }, { "b", inum(-1, 2) }, { "point_a", opt(0.7, vec(2, -1, 1)) }, { "point_b", opt(0.7, vec(2, -1, 1)) },
        { "axis", opt(0.5, vec(2, -1, 1)) }, { "length", opt(0.3, num(-1, 1)) }, { "angle", opt(0.3, num(-1, 1)) },
        { "coord", opt(0.3, inum(-1, 3)) }, { "rows", opt(0.3, inum(0, 4)) }, { "f", opt(0.3, callback("motion")) },
        { "df", opt(0.2, callback("dmotion")) }, { "g", opt(0.3, callback("constraint", 1)) }, { "grad", opt(0.2, callback("grad", 1)) },
        { "name", opt(0.3, new_name("cj")) } } end
    if kind == "spdef" then return tbl{ { "type", choice{ "linear", "torsional", "x" } }, { "a", inum(-1, 2) }, { "b", inum(-1, 2) },
        { "point_a", opt(0.5, vec(2, -1, 1)) }, { "point_b", opt(0.5, vec(2, -1, 1)) }, { "k", num(0, 10) }, { "c", opt(0.5, num(0, 1)) },
        { "rest_length", opt(0.4, num(-1, 1)) }, { "rest_angle", opt(0.4, num(-1, 1)) }, { "name", opt(0.2, new_name("cs")) } } end
    if kind == "ldef" then
        local n = int(0, 3)
        local M = {}
        for i = 1, n do local r = {} for j = 1, n do r[j] = i == j and "1" or "0" end M[i] = "{ " .. table.concat(r, ", ") .. " }" end
        return tbl{ { "n", mut(lit(n)) }, { "M", mut("{ " .. table.concat(M, ", ") .. " }") }, { "K", opt(0.3, "nil") },
                    { "q0", opt(0.4, vec(n, -1, 1)) }, { "v0", opt(0.4, vec(n, -1, 1)) }, { "f", opt(0.4, vec(n, -1, 1)) }, { "name", opt(0.2, new_name("cl")) } }
    end
    if kind == "gdef" then return tbl{ { "body", inum(-1, 3) }, { "index", opt(0.6, mut("{ " .. int(-1, 3) .. " }")) },
        { "normal", opt(0.6, vec(1, -1, 1)) }, { "tangent", opt(0.2, vec(1, -1, 1)) }, { "g0", opt(0.5, num(-1, 1)) },
        { "gap", opt(0.3, callback("gap")) }, { "law", opt(0.3, inum(-1, 2)) }, { "name", opt(0.2, new_name("cg")) } } end
    if kind == "sdef" then
        local base = "FZ.simdef(FZ.c(" .. wref() .. "))"
        if chance(0.7) then
            return string.format("FZ.with(%s, %q, %s)", base, pick{ "h", "theta", "scheme", "solver", "threads", "max_iter", "order",
                "tol", "relax", "gamma", "activation", "on_fail", "work_check", "check_every", "local_max_iter", "project_max_iter", "seed" },
                pick{ "0/0", "-1", "0", "1e300", "'x'", "2", "1e-300", "math.maxinteger", "'colour'", "'uzawa'", "'maury'", "3" })
        end
        return base
    end
    if kind == "edef" then return tbl{ { "random_guess", opt(0.5, bool()) }, { "zero_guess", opt(0.5, bool()) }, { "guess_scale", opt(0.5, num(0, 1)) },
        { "guess_scales", opt(0.3, vec(3, 0, 1)) }, { "random_order", opt(0.5, bool()) }, { "cyclic_order", opt(0.3, bool()) },
        { "seed", opt(0.5, inum(0, 99)) } } end
    return "nil"
end

function A.core()
    local name = pick(CORE_NAMES)
    local args = {}
    for i, kind in ipairs(CORE[name]) do args[i] = chance(C.pm * 0.5 + 0.03) and wrong() or core_arg(kind) end
    if chance(0.05) then args[#args + 1] = wrong() end
    if chance(0.05) and #args > 0 then args[#args] = nil end
    if name == "vtk_open" and chance(0.8) then
        C.nX = C.nX + 1
        stmt(string.format("X[%d] = rc.core.vtk_open(%s)", C.nX, table.concat(args, ", ")))
    else
        stmt("FZ.use(rc.core." .. name .. "(" .. table.concat(args, ", ") .. "))")
    end
end

function A.yield() if C.inco then emit("coroutine.yield()") else A.module() end end

-- weights: setup-heavy first, then everything
local WEIGHTS = {
    { "world", 5 }, { "tbc_world", 1 }, { "body", 14 }, { "pile", 1 }, { "big_pile", 0.012 }, { "linear", 2 }, { "gap", 2 }, { "shape_pool", 2 },
    { "law_pool", 4 }, { "law_set", 1 }, { "halfplane", 1 }, { "segment", 1 }, { "obstacle", 1 }, { "contact", 4 },
    { "joint", 5 }, { "spring", 2 }, { "sim", 6 }, { "callbacks", 4 }, { "step", 8 }, { "run", 8 }, { "output", 2 },
    { "vtk", 1 }, { "query", 5 }, { "explore", 2 }, { "force_set", 1 }, { "body_method", 5 }, { "world_method", 3 },
    { "joint_method", 2 }, { "module", 3 }, { "lp", 1 }, { "read_matrix", 1 }, { "core", 6 }, { "yield", 1 },
}
local TOTAL = 0
for _, w in ipairs(WEIGHTS) do TOTAL = TOTAL + w[2] end
local function random_action()
    local r = unif() * TOTAL
    for _, w in ipairs(WEIGHTS) do
        r = r - w[2]
        if r < 0 then return A[w[1]]() end
    end
    return A.module()
end

------------------------------------------------------------------ the prelude (part of every case text)
M.prelude = [=[
local rc = require "ricochet"
local core = rc.core
local W, B, S, L, D, J, G, X, P_ = {}, {}, {}, {}, {}, {}, {}, {}, {}
FZ = { budget = 200, cpu = os.clock() + 0.5, ticks = {}, cos = {}, steps = 0, internal = 0 }  -- global: the driver reads steps, internal
do
  -- every successful step: q and v of every body finite (else exit 42)
  local step, body_count, body_state = core.step, core.body_count, core.body_state
  local function bad(x) return type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge end
  -- past the CPU budget by 1 s, Lua code on a stepping thread is stopped too (as
  -- the program's SIGINT does): a callback that makes a step last long
  local function stop() if os.clock() > FZ.cpu + 1 then error("fuzz: the case's CPU budget is spent", 2) end end
  core.step = function(c, ...)
    FZ.budget = FZ.budget - 1
    if FZ.budget < 0 or os.clock() > FZ.cpu then core.request_interrupt() end
    if debug.gethook() == nil then debug.sethook(stop, "", 10000) end
    local ok, msg, status = step(c, ...)
    if ok then
      FZ.steps = FZ.steps + 1
      for id = 0, body_count(c) - 1 do
        local q, v = body_state(c, id)
        if not q then FZ.fail(string.format("body_state(%d) failed after a successful step: %s", id, tostring(v))) end
        local acc = 0.0   -- x - x is 0 for a finite x, NaN for inf and NaN
        for i = 1, #q do acc = acc + (q[i] - q[i]) end
        for i = 1, #v do acc = acc + (v[i] - v[i]) end
        if acc ~= 0 then
          for i = 1, #q do if bad(q[i]) then FZ.fail(string.format("body %d: q[%d] = %s after a successful step", id, i, tostring(q[i]))) end end
          for i = 1, #v do if bad(v[i]) then FZ.fail(string.format("body %d: v[%d] = %s after a successful step", id, i, tostring(v[i]))) end end
        end
      end
      if bad(core.time(c)) then FZ.fail("time not finite after a successful step") end
    end
    return ok, msg, status
  end
end
function FZ.fail(msg)
  io.stderr:write("FUZZ-NONFINITE: ", msg, "\n", debug.traceback(), "\n")
  io.stderr:flush()
  os.exit(42, false)
end
function FZ.err(e)
  -- an error raised by the module's own code (not one of its checks): a
  -- position inside lua/ricochet/ means an unchecked argument reached it
  -- (the case's own CPU-budget stop, raised by its hook wherever the code
  -- is, is not one: it would make --strict depend on the machine's speed)
  if type(e) == "string" and e:find("ricochet/[%w_/]*%.lua:%d+:") and not e:find("the case's CPU budget is spent", 1, true) then
    FZ.internal = FZ.internal + 1
    io.stderr:write("FUZZ-INTERNAL: ", e, "\n")
  end
end
local function P(f) local ok, e = pcall(f) if not ok then FZ.err(e) end end
function FZ.use(...) return ... end
function FZ.tick(k) local n = (FZ.ticks[k] or 0) + 1; FZ.ticks[k] = n; return n end
function FZ.c(w) if type(w) == "table" then return rawget(w, "_c") end return w end
function FZ.T(s, n) return s.t + n * s.h end
function FZ.vecn(n, x, y, k) local t = {} for i = 1, n do t[i] = x end if y then t[k or 1] = y end return t end
function FZ.rows(qb, m, eps)
  -- g = qb - qb(first call) (+ eps): satisfied at creation, gradient = identity rows (FZ.grad)
  FZ.q0 = FZ.q0 or {}
  local r = {}
  for i = 1, m do
    local x = type(qb) == "table" and qb[i] or 0
    if FZ.q0[i] == nil then FZ.q0[i] = x end
    r[i] = x - FZ.q0[i] + (eps or 0) * i
  end
  return table.unpack(r, 1, m)
end
function FZ.grad(m) local G = {} for i = 1, m do G[i] = { i == 1 and 1 or 0, i == 2 and 1 or 0, i == 3 and 1 or 0 } end return G end
function FZ.ngon(n, r) local v = {} for i = 1, n do local a = 2 * math.pi * (i - 1) / n; v[i] = { r * math.cos(a), r * math.sin(a) } end return v end
-- a law's params set to x: every parameter it has (pairs: the shipped laws' checked table too;
-- sorted, so that the case does not depend on the hash order), then mu and e
function FZ.setp(l, x)
  if type(l) ~= "table" or type(rawget(l, "params")) ~= "table" then return end
  local keys = {}
  for k in pairs(l.params) do if type(k) == "string" then keys[#keys + 1] = k end end
  table.sort(keys)
  for _, k in ipairs(keys) do l.params[k] = x end
  l.params.mu = x; l.params.e = x
end
-- a stack overflow, quickly: recursion through a C function ("C stack overflow")
function FZ.deep() local function f() return (string.gsub("x", "x", f)) end return f() end
function FZ.gcerr() return setmetatable({}, { __gc = function() error("fuzz: __gc") end }) end
function FZ.closed() local w = rc.world{}; w:close(); return w end
function FZ.simdef(c) local d = core.sim_def(c); return d end
function FZ.with(t, k, v) if type(t) == "table" then t[k] = v end return t end
function FZ.file(text) FZ.nf = (FZ.nf or 0) + 1; local p = "m" .. FZ.nf .. ".txt"; local f = assert(io.open(p, "w")); f:write(text); f:close(); return p end
FZ.long = string.rep("x", 5000)
FZ.longdir = string.rep("d", 300)
FZ.big = {} for i = 1, 3000 do FZ.big[i] = i end
FZ.evil_mt = { __index = function() error("fuzz: __index") end, __len = function() error("fuzz: __len") end,
               __tostring = function() error("fuzz: __tostring") end, __eq = function() error("fuzz: __eq") end,
               __lt = function() error("fuzz: __lt") end, __le = function() error("fuzz: __le") end,
               __concat = function() error("fuzz: __concat") end, __call = function() error("fuzz: __call") end,
               __close = function() error("fuzz: __close") end, __name = "evil" }
FZ.evil = setmetatable({}, FZ.evil_mt)
FZ.proxy = setmetatable({}, { __index = function(_, i) return 1 end, __len = function() return 3 end })
FZ.named = setmetatable({ 1, 2, 3 }, { __name = "ricochet.body" })
-- coroutines: run f in a new coroutine to its end, or abandon or close it
-- after `steps` resumes; abandoned ones may be resumed later (FZ.resume)
function FZ.co(f, mode, steps, gc)
  local co = coroutine.create(f)
  local n = 0
  while coroutine.status(co) == "suspended" do
    if mode ~= "all" and n >= steps then break end
    local ok, e = coroutine.resume(co)
    n = n + 1
    if not ok then FZ.err(e) end
    if gc then collectgarbage() end
  end
  if mode == "close" then local ok, e = coroutine.close(co); if not ok then FZ.err(e) end
  elseif mode == "abandon" then FZ.cos[#FZ.cos + 1] = co end
end
function FZ.resume()
  local co = table.remove(FZ.cos, 1)
  if co and coroutine.status(co) == "suspended" then
    local ok, e = coroutine.resume(co)
    if not ok then FZ.err(e) end
    if coroutine.status(co) == "suspended" then FZ.cos[#FZ.cos + 1] = co end
  end
end
]=]

------------------------------------------------------------------ a case
-- The whole text of case `seed`.
function M.generate(seed)
    seed_rng(seed)
    reset_case()
    out, depth = {}, 0
    C.pm = pick{ 0, 0, 0.01, 0.03, 0.1, 0.25 }
    local co = chance(0.25)
    local nact = int(5, 40)
    emit(string.format("-- ricochet Lua API fuzz case %d (tests/fuzz/lua_fuzz.lua): mutation rate %s, %s, %d calls",
        seed, tostring(C.pm), co and "in coroutines" or "on the main thread", nact))
    out[#out + 1] = M.prelude
    -- a plausible scene first (most cases), so that steps have contacts
    if chance(0.85) then A.world() end
    for _ = 1, int(0, 4) do A.body() end
    if chance(0.7) then A.sim() end
    local segs = co and int(1, 4) or 1
    local per = math.max(1, nact // segs)
    for sgm = 1, segs do
        local in_co = co and (sgm > 1 or chance(0.8))
        if in_co then
            emit("FZ.co(function()")
            depth = depth + 1
            C.inco = true
        end
        for _ = 1, per do random_action() end
        if in_co then
            C.inco = false
            depth = depth - 1
            local mode = pick{ "all", "all", "abandon", "close" }
            emit(string.format("end, %q, %d, %s)", mode, int(0, 6), chance(0.5) and "true" or "false"))
            if chance(0.5) then emit("collectgarbage()") end
        end
    end
    -- then maybe step what is left in the main thread (objects made in dead
    -- coroutines used after them)
    if co or chance(0.3) then
        for _ = 1, int(1, 3) do
            if chance(0.5) then A.run() else A.step() end
        end
    end
    if chance(0.5) then emit("collectgarbage()") end
    emit("FZ.resume()")
    if C.big then big_pile() end
    return table.concat(out, "\n") .. "\n"
end

return M
