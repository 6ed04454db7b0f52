-- ricochet/sim_explore.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it after ricochet/simulation.lua): sim:explore (the indetermination explorer,
-- Moreau 2004 section 3.1) and sim:force_set (the exact force sets of static packings).
-- The module's shared locals come from ricochet.private, the argument checks
-- from ricochet.check.

local I = require "ricochet.private"
local core, rc, cli_options, World, body_object, Sim = I.core, I.rc, I.cli_options, I.World, I.body_object, I.Sim
local open_outputs, open_vtk, written_dirs, check_self, world_core = I.open_outputs, I.open_vtk, I.written_dirs, I.check_self, I.world_core
local type, tostring, pairs, ipairs, setmetatable, getmetatable = type, tostring, pairs, ipairs, setmetatable, getmetatable
local rawget, rawset, floor, mtype, fmt = rawget, rawset, math.floor, math.type, string.format
local check = require "ricochet.check"
local raise, fail, show, showkey, check_keys, check_table = check.raise, check.fail, check.show, check.showkey, check.check_keys, check.check_table
local REQUIRED, number, integer, positive, nonneg, in01 = check.REQUIRED, check.number, check.integer, check.positive, check.nonneg, check.in01
local boolean, opt_name, option, check_fn = check.boolean, check.opt_name, check.option, check.check_fn

local sim_core = I.sim_core

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

