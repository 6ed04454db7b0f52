-- ricochet/law_defs.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): law descriptors: rc.newton, rc.moreau, rc.fremond, rc.law (laws written in Lua), rc.laws.make.
-- The module's shared locals come from ricochet.private, the argument checks
-- from ricochet.check.

local I = require "ricochet.private"
local rc = I.rc
local type, tostring, pairs, ipairs, setmetatable, getmetatable = type, tostring, pairs, ipairs, setmetatable, getmetatable
local rawset, fmt = rawset, string.format
local check = require "ricochet.check"
local raise, fail, isfinite, show, showkey, check_keys = check.raise, check.fail, check.isfinite, check.show, check.showkey, check.check_keys
local check_table, number, opt_name, option, c_check = check.check_table, check.number, check.opt_name, check.option, check.c_check
local D = I.core.defaults.law   -- the kernel's defaults (rc_default_law_def)

local Law = { __name = "ricochet.law" }
Law.__index = Law
function Law.__tostring(l)
    if l.type == "custom" then return fmt("ricochet.law '%s'", l.name) end
    if l.radius then
        return fmt("ricochet.contensou{ e = %s, %smu = %s, radius = %s }%s", show(l.e),
                   l.type == "moreau" and ("e_t = " .. show(l.e_t) .. ", ") or "", show(l.mu), show(l.radius),
                   l.name and (" '" .. l.name .. "'") or "")
    end
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
    return setmetatable(c_check("law", fname, {
        type = "newton",
        local_solver = option(fname, "local_solver", t.local_solver, D.local_solver, { "exact", "generic" }),
        e = number(fname, "e", t.e, D.e),
        mu = number(fname, "mu", t.mu, D.mu),
        name = opt_name(fname, "name", t.name),
    }), Law)
end

function rc.moreau(t)
    local fname = "rc.moreau"
    if t == nil then t = {} end
    check_table(fname, t, "rc.moreau{ e = 0.5, e_t = 0, mu = 0.3 }")
    check_keys(fname, t, { "e", "e_t", "mu", "name", "local_solver" })
    local et = number(fname, "e_t", t.e_t, D.e_t)
    return setmetatable(c_check("law", fname, {
        type = "moreau",
        local_solver = option(fname, "local_solver", t.local_solver, D.local_solver, { "exact", "generic" }),
        e = number(fname, "e", t.e, D.e),
        e_t = et,
        mu = number(fname, "mu", t.mu, D.mu),
        name = opt_name(fname, "name", t.name),
    }), Law)
end

function rc.fremond(t)
    local fname = "rc.fremond"
    if t == nil then t = {} end
    check_table(fname, t, "rc.fremond{ e = 0.5, mu = 0.3 }")
    check_keys(fname, t, { "e", "mu", "name", "local_solver" })
    return setmetatable(c_check("law", fname, {
        type = "fremond",
        local_solver = option(fname, "local_solver", t.local_solver, D.local_solver, { "exact", "generic" }),
        e = number(fname, "e", t.e, D.e),
        e_t = 1,   -- Fremond's law is Moreau's with e_t = 1 (not a default)
        mu = number(fname, "mu", t.mu, D.mu),
        name = opt_name(fname, "name", t.name),
    }), Law)
end

-- Coulomb--Contensou friction of the 3D contacts (dim = 3 worlds only;
-- Capobianco et al. 2021 eq. 157, docs/theory/spatial.md): Newton's (or,
-- with e_t, Moreau's) impact law, and the friction impulse (p_T1, p_T2, p_D)
-- in the disc of radius mu p_N, p_D the drilling torque impulse divided by
-- 3 pi radius / 16 (radius: the contact area's, > 0).
function rc.contensou(t)
    local fname = "rc.contensou"
    check_table(fname, t, "rc.contensou{ e = 0, mu = 0.3, radius = 5e-4 }")
    check_keys(fname, t, { "e", "e_t", "mu", "radius", "name" })
    if t.radius == nil then fail(fname, "'radius' (the contact radius, > 0) is required") end
    local radius = number(fname, "radius", t.radius)
    if not (radius > 0) then fail(fname, "'radius' must be > 0 (got %s)", show(radius)) end
    return setmetatable(c_check("law", fname, {
        type = t.e_t ~= nil and "moreau" or "newton",
        local_solver = "exact",
        e = number(fname, "e", t.e, D.e),
        e_t = t.e_t ~= nil and number(fname, "e_t", t.e_t) or nil,
        mu = number(fname, "mu", t.mu, D.mu),
        radius = radius,
        name = opt_name(fname, "name", t.name),
    }), Law)
end

-- A contact law written in Lua (docs/laws.md). The functions receive the
-- params table as first argument ("law") and a context ctx with t, h, theta,
-- unknown ("end": u = u_{k+1}; "theta": u = u_{k+theta}), contact, gN and
-- the contact's state (ctx.state, named fields):
--   xi(law, uN, uT, uoN, uoT, ctx)           -> xiN, xiT   (modified velocity)
--   project(law, xN, xT, ctx)                -> pN, pT     (onto the admissible set)
--   update(law, ctx, uN, uT, uoN, uoT, pN, pT)             (optional, after each step)
-- A law of dim = 3 (spatial friction, N, T, S) takes and returns 3-vectors:
-- xi(law, uN, uT, uS, uoN, uoT, uoS, ctx), project(law, xN, xT, xS, ctx),
-- update(law, ctx, uN, uT, uS, uoN, uoT, uoS, pN, pT, pS); planar worlds refuse it.
local law_probe_ctx = { t = 0, h = 1e-3, theta = 0.5, unknown = "end", contact = 0, gN = 0,
                        nx = 0, ny = 1, tx = 1, ty = 0 }

local function probe(lname, key, fn, n, law, ctx, ...)
    local res = table.pack(pcall(fn, law, ...))
    if not res[1] then raise(fmt("rc.law: law '%s': '%s' fails when called with zeros: %s", lname, key, tostring(res[2]))) end
    for i = 1, n do
        local v = res[i + 1]
        if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
            raise(fmt("rc.law: law '%s': '%s' must return %d finite numbers (got %s as value %d)", lname, key, n, show(v), i))
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
    if dim ~= 1 and dim ~= 2 and dim ~= 3 then fail(fname, "law '%s': 'dim' must be 1, 2 or 3 (got %s)", lname, show(t.dim)) end
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
    ctx.dim = dim
    if dim == 3 then
        ctx.nz, ctx.tz, ctx.sx, ctx.sy, ctx.sz = 0, 0, 0, 0, 1
        probe(lname, "xi", t.xi, 3, params, ctx, 0, 0, 0, 0, 0, 0, ctx)
        probe(lname, "project", t.project, 3, params, ctx, 0, 0, 0, ctx)
    else
        probe(lname, "xi", t.xi, 2, params, ctx, 0, 0, 0, 0, ctx)
        probe(lname, "project", t.project, 2, params, ctx, 0, 0, ctx)
    end
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
        local et = number(fname, "e_t", t.e_t)
        c_check("law", fname, { type = "moreau", e_t = et })
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

I.Law = Law
I.check_law = check_law
