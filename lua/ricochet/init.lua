--[[
ricochet -- the Lua front end of the Ricochet kernel.

    local rc = require "ricochet"

This module is the user-facing API: argument checking (types, ranges,
unknown keys, NaN/inf: ricochet/check.lua), shape and law descriptors
(shape_defs.lua, law_defs.lua), the world (this file), mechanisms
(mechanisms.lua), matrices from files (matrix.lua), body objects (body.lua),
the simulation object and the run loop (simulation.lua), script options and
parameters (this file), summaries and program support (program.lua). The
parts share this file's locals through ricochet.private and run in that
order when the module loads. ricochet.core (C, src/lua/lua_ricochet.c) is a
thin client of the public C API.

Every error raised here names the function and the argument, and points at
the first calling line outside this module (the user's script), see raise()
in check.lua.
The reference is docs/lua-api.md.
]]

local core = require "ricochet.core"

local type, tostring, pairs, ipairs, select = type, tostring, pairs, ipairs, select
local setmetatable, getmetatable, rawget, rawset = setmetatable, getmetatable, rawget, rawset
local floor, huge, mtype = math.floor, math.huge, math.type
local fmt = string.format

local rc = {}
-- the locals that the module's parts (ricochet/*.lua, run below) share
local I = require "ricochet.private"
-- Run a part of this module: once per load of the module (a reload runs it again,
-- with the new world, body and simulation tables).
local function part(name)
    package.loaded[name] = nil
    return require(name)
end
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

------------------------------------------------------------------ errors and argument checks (ricochet/check.lua)

local check = require "ricochet.check"
local raise, fail, isfinite, show, showkey = check.raise, check.fail, check.isfinite, check.show, check.showkey
local check_keys, check_table, REQUIRED = check.check_keys, check.check_table, check.REQUIRED
local number, integer, positive, nonneg, in01 = check.number, check.integer, check.positive, check.nonneg, check.in01
local boolean, opt_name, option, vec, check_fn, c_check = check.boolean, check.opt_name, check.option, check.vec, check.check_fn, check.c_check

------------------------------------------------------------------ options from the command line

-- The ricochet program stores its options in package.loaded["ricochet.cli"]:
-- { script = path, out = dir, every = n, format = "csv" | "binary", quiet = bool, set = { name = "value" },
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
    check_keys(fname, o, { "script", "out", "every", "format", "quiet", "set", "args", "restart", "checkpoint_every" })
    local set = o.set or {}
    if type(set) ~= "table" then fail(fname, "'set' must be a table of name = \"value\" strings (got %s)", show(set)) end
    for k, v in pairs(set) do
        if type(k) ~= "string" or type(v) ~= "string" then
            fail(fname, "'set' must map names to strings (got %s = %s)", showkey(k), show(v))
        end
    end
    if o.out ~= nil then opt_name(fname, "out", o.out) end
    if o.every ~= nil then positive(fname, "every", integer(fname, "every", o.every)) end
    option(fname, "format", o.format, nil, { "csv", "binary" })
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
    check_keys(fname, t, { "script", "out", "args", "set", "quiet", "every", "format", "max_instructions",
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
    option(fname, "format", t.format, nil, { "csv", "binary" })
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

------------------------------------------------------------------ shape descriptors (ricochet/shape_defs.lua)

I.core, I.rc = core, rc
part "ricochet.shape_defs"
local Shape = I.Shape

------------------------------------------------------------------ law descriptors (ricochet/law_defs.lua)

part "ricochet.law_defs"
local Law, check_law = I.Law, I.check_law

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
    local w, id = rawget(b, "world"), rawget(b, "id")
    if type(w) ~= "table" or mtype(id) ~= "integer" then return end   -- fields a script replaced: its methods refuse it
    local pinned = rawget(w, "_body_pinned")
    if type(pinned) == "table" then pinned[id] = b end
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

-- the world's kernel handle and whether it is open; a world whose '_c' field
-- a script replaced is refused by name
local function world_handle(fname, w)
    if type(w) ~= "table" then fail(fname, "this object's world was replaced (got %s)", show(w)) end
    local c = rawget(w, "_c")
    if not core.is_world(c) then fail(fname, "this world's kernel handle '_c' was replaced (got %s)", show(c)) end
    return c, core.is_open(c)
end

local world_core

-- core.<create>(c, def) for world w: the world checked again first (the
-- arguments' metamethods may have closed it since the call began); the new
-- id and the handle it was created in
local function kernel_create(fname, w, create, def)
    local c = world_core(fname, w, true)
    local id, msg = create(c, def)
    if not id then fail(fname, "%s", msg) end
    return id, c
end

function world_core(fname, w, idle)
    local c, open = world_handle(fname, w)
    if not open then fail(fname, "the world has been closed") end
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
    local D = core.defaults.world   -- the kernel's (rc_default_world_def); its checks: rc_world_def_check
    local dim = integer(fname, "dim", t.dim, D.dim)
    local g = dim == 3 and vec(fname, "gravity", t.gravity, 3, "{gx, gy, gz}", { 0, 0, 0 })
              or vec(fname, "gravity", t.gravity, 2, "{gx, gy}", D.gravity)
    local margin = number(fname, "margin", t.margin, D.margin)
    local law = t.default_law
    if law ~= nil then check_law(fname, "default_law", law) end
    local periodic
    if t.periodic ~= nil then
        periodic = vec(fname, "periodic", t.periodic, 2, "{x0, x1}")
        -- {0, 0} means "none" to the kernel: given here, it is refused as any x0 >= x1
        if periodic[1] == 0 and periodic[2] == 0 then
            fail(fname, "'periodic' must be {x0, x1} with x0 < x1 (got {%s, %s})", show(periodic[1]), show(periodic[2]))
        end
    end
    c_check("world", fname, { dim = dim, gravity = g, margin = margin, periodic = periodic })
    local builtin_newton = law == nil or (law.type == "newton" and law.local_solver ~= "generic" and not law.radius)
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
    local c, open = world_handle("world:close", self)
    if open and core.is_stepping(c) then
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
        id, msg = core.law_create(c, law.type, law.e, law.mu, law.e_t or 0, law.name, law.local_solver == "generic", law.radius)
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
    local e = number(fname, "e", t.e, self.e)
    local mu = number(fname, "mu", t.mu, self.mu)
    local et = number(fname, "e_t", t.e_t, self.e_t or core.defaults.law.e_t)
    c_check("law", fname, { type = self.type, e = e, mu = mu, e_t = et })
    for w, id in pairs(rawget(self, "_worlds") or {}) do
        local c = type(w) == "table" and rawget(w, "_c")
        if core.is_world(c) and core.is_open(c) then   -- (a world whose handle a script replaced: skipped)
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

-- wall_ok: the shape may be a circular wall (w:obstacle only)
local function check_shape(fname, key, d, wall_ok)
    if getmetatable(d) ~= Shape then
        fail(fname, "'%s' must be a shape descriptor (rc.disk{...}, rc.box{...}, rc.polygon{...} or rc.point{...}) (got %s)",
             key, show(d))
    end
    if d.type == "circle_inside" and not wall_ok then
        fail(fname, "'%s' is a circular wall: it belongs to the ground (w:obstacle{ shape = rc.circle_inside{...} }), not to a body", key)
    end
    return d
end

local BODY_KEYS = { "name", "kind", "mass", "inertia", "density", "q", "v", "force", "force_fn", "shape", "shapes" }

function World:body(t)
    local fname = "world:body"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    if rawget(self, "dim") == 3 then return I.body3d(self, c, t) end   -- spatial bodies (ricochet/body3d.lua)
    check_table(fname, t, "w:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.5 } }")
    check_keys(fname, t, BODY_KEYS)
    local name = opt_name(fname, "name", t.name)
    option(fname, "kind", t.kind, "rigid2d", { "rigid2d" })
    local D = core.defaults.body   -- the kernel's (rc_default_body_def); its checks: rc_body_def_check
    local def = {
        name = name,
        q = vec(fname, "q", t.q, 3, "{x, y, theta}", D.q), v = vec(fname, "v", t.v, 3, "{vx, vy, omega}", D.v),
        force = vec(fname, "force", t.force, 3, "{fx, fy, torque}", D.force),
    }
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
    if t.density ~= nil then   -- mass and inertia from the shapes (shape_defs.lua)
        if t.mass ~= nil or t.inertia ~= nil then fail(fname, "give either 'density' or 'mass' and 'inertia', not both") end
        def.mass, def.inertia = I.body_mass_properties(fname, t.density, shapes)
    else   -- (mass and inertia have no default here: required)
        def.mass, def.inertia = number(fname, "mass", t.mass, REQUIRED), number(fname, "inertia", t.inertia, REQUIRED)
    end
    c_check("body", fname, def)
    if name and self._by_name[name] then fail(fname, "a body named '%s' already exists", name) end
    local id
    id, c = kernel_create(fname, self, core.body_create, def)   -- the shapes go where the body went
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
    local c = world_core("world:bodies", self)
    for id = 0, core.body_count(c) - 1 do   -- live bodies (removed slots skipped)
        if not core.is_removed(c, "body", id) then r[#r + 1] = body_object(self, id) end
    end
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
    local D = core.defaults.shape
    local d = c_check("shape", fname, {
        type = "halfplane", point = vec(fname, "point", t.point, 2, "{x, y}", D.point),
        normal = vec(fname, "normal", t.normal, 2, "{nx, ny}", D.normal),
        group = integer(fname, "group", t.group, D.group), name = opt_name(fname, "name", t.name),
    })
    local n = d.normal
    local len = math.sqrt(n[1] * n[1] + n[2] * n[2])   -- (nonzero: checked by the kernel)
    d.normal = { n[1] / len, n[2] / len }
    return create_shape(fname, c, core.GROUND, d)
end

function World:segment(t)
    local fname = "world:segment"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    check_table(fname, t, "w:segment{ a = {0, 0}, b = {1, 0} }")
    check_keys(fname, t, { "a", "b", "radius", "group", "name" })
    local D = core.defaults.shape
    return create_shape(fname, c, core.GROUND, c_check("shape", fname, {
        type = "segment", a = vec(fname, "a", t.a, 2, "{x, y}"), b = vec(fname, "b", t.b, 2, "{x, y}"),
        radius = number(fname, "radius", t.radius, D.segment_radius),
        group = integer(fname, "group", t.group, D.group), name = opt_name(fname, "name", t.name),
    }))
end

-- w:obstacle{ shape, at = {x, y}, angle = 0 }: a fixed disk or polygon (a
-- shape of the ground), placed in the world frame; e.g. grains glued to a
-- rough floor; or a circular wall (rc.circle_inside: the bodies inside).
function World:obstacle(t)
    local fname = "world:obstacle"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    check_table(fname, t, "w:obstacle{ rc.polygon{ vertices = {{0, 0}, {1, 0}, {0, 1}} }, at = {2, 0} }")
    check_keys(fname, t, { "shape", "at", "angle", "group", "name" }, 1)
    if t[1] ~= nil and t.shape ~= nil then fail(fname, "give the shape either as [1] or as shape =, not both") end
    local d = t[1] or t.shape
    if d == nil then fail(fname, "'shape' is required (rc.disk{...}, rc.box{...}, rc.polygon{...} or rc.circle_inside{...})") end
    check_shape(fname, "shape", d, true)
    if d.type ~= "disk" and d.type ~= "polygon" and d.type ~= "circle_inside" then
        fail(fname, "'shape' must be a disk, box, polygon or circle_inside (got %s: points belong to bodies)", d.kind)
    end
    local at = vec(fname, "at", t.at, 2, "{x, y}", { 0, 0 })   -- (the placement: not a kernel definition)
    local a = number(fname, "angle", t.angle, 0)
    local cs, sn = math.cos(a), math.sin(a)
    local function place(p) return { at[1] + cs * p[1] - sn * p[2], at[2] + sn * p[1] + cs * p[2] } end
    local def = { type = d.type, radius = d.radius,
                  group = integer(fname, "group", t.group, d.group),
                  name = opt_name(fname, "name", t.name) or d.name }
    if d.type == "disk" then def.offset = place(d.offset)
    elseif d.type == "circle_inside" then def.centre = place(d.centre)
    else
        def.vertices = {}
        for i, p in ipairs(d.vertices) do def.vertices[i] = place(p) end
    end
    return create_shape(fname, c, core.GROUND, def)
end

------------------------------------------------------------------ contact rules (ricochet/contact_rules.lua)

I.check_law, I.World, I.Body, I.new_body, I.Ground, I.check_self = check_law, World, Body, new_body, Ground, check_self
I.world_core, I.kernel_create, I.law_id = world_core, kernel_create, law_id
part "ricochet.contact_rules"

------------------------------------------------------------------ joints, springs, linear bodies, gaps (ricochet/mechanisms.lua)

part "ricochet.mechanisms"
part "ricochet.fem"        -- finite-element bodies (ricochet/fem.lua)
part "ricochet.beam"       -- nonlinear beams (ricochet/beam.lua)
part "ricochet.msh"        -- rc.read_msh (ricochet/msh.lua)
part "ricochet.gmsh"       -- rc.gmsh (ricochet/gmsh.lua)
part "ricochet.vtk_fem"    -- finite-element bodies in sim:vtk (ricochet/vtk_fem.lua)

------------------------------------------------------------------ matrices from files (ricochet/matrix.lua)

part "ricochet.matrix"

------------------------------------------------------------------ bodies (ricochet/body.lua)

I.create_shape, I.check_shape = create_shape, check_shape
part "ricochet.body"
part "ricochet.body3d"     -- spatial bodies: w:body{...} in a world of dim = 3
part "ricochet.joint3d"    -- their joints: w:joint{...} in a world of dim = 3

------------------------------------------------------------------ removal (ricochet/remove.lua)

part "ricochet.remove"
part "ricochet.sleep"

------------------------------------------------------------------ simulation (ricochet/simulation.lua)

I.cli_options, I.body_object, I.Sim, I.open_outputs, I.open_vtk, I.written_dirs = cli_options, body_object, Sim, open_outputs, open_vtk, written_dirs
part "ricochet.simulation"
part "ricochet.sim_explore"
part "ricochet.query"

------------------------------------------------------------------ summaries, program support (ricochet/program.lua)

part "ricochet.program"

return rc
