-- ricochet/simulation.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): the simulation object: settings, steps, callbacks, output, VTK, the run loop (Sim).
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
local boolean, opt_name, option, check_fn, c_check = check.boolean, check.opt_name, check.option, check.check_fn, check.c_check

local SIM_KEYS = { "scheme", "theta", "h", "activation", "gamma", "persist_tol", "solver", "work_check", "work_tol",
                   "joint_jacobian", "project_joints", "project_tol", "project_max_iter", "project_contacts", "rho_inf", "gen_alpha", "strategy", "variant", "prox_r", "newton_jacobian", "sleep" }
local SCHEMES = { "moreau-jean", "moreau-jean-fremond", "maury", "gen-alpha" }
local HISTORY_FORMATS = { "csv", "binary" }   -- sim:output's, sim:run's format: history.csv.gz, history.bin

function World:simulation(t)
    local fname = "world:simulation"
    check_self(fname, self, World, "a world")
    local c = world_core(fname, self, true)
    if t == nil then t = {} end
    check_table(fname, t, "w:simulation{ h = 1e-3, theta = 0.5 }")
    check_keys(fname, t, SIM_KEYS)
    -- defaults: the kernel's (core.defaults.sim: rc_default_sim_def); ranges:
    -- the kernel's rc_sim_def_check (c_check below); here keys, types, names
    local D = core.defaults.sim
    local def = {
        scheme = option(fname, "scheme", t.scheme, D.scheme, SCHEMES),
        -- maury takes theta = 1 only (the kernel refuses any other): given by default
        theta = number(fname, "theta", t.theta, t.scheme == "maury" and 1 or D.theta),
        h = number(fname, "h", t.h, D.h),
        activation = option(fname, "activation", t.activation, D.activation, { "gap", "anticipate" }),
        gamma = number(fname, "gamma", t.gamma, D.gamma),
        persist_tol = number(fname, "persist_tol", t.persist_tol, D.persist_tol),
    }
    local s = t.solver
    if s == nil then s = {} end
    if type(s) ~= "table" then fail(fname, "'solver' must be a table such as { \"nsgs\", tol = 1e-10 } (got %s)", show(s)) end
    local sname = "world:simulation: solver"
    check_keys(sname, s, { "tol", "max_iter", "on_fail", "warm_start", "local_tol", "local_max_iter",
                           "relax", "order", "seed", "check_every", "residual", "threads", "adaptive_threads", "norm",
                           "accelerate", "depth", "formulation", "fallback", "linear", "skip_quiet" }, 1)
    if s[1] ~= nil and s[1] ~= "nsgs" and s[1] ~= "uzawa" and s[1] ~= "newton" and s[1] ~= "apgd" then
        fail(sname, "unknown solver %s (available: \"nsgs\", \"uzawa\", \"newton\", \"apgd\")", show(s[1]))
    end
    def.solver = s[1] or D.solver
    for _, k in ipairs { "formulation", "fallback", "linear" } do
        if s[k] ~= nil and def.solver ~= "newton" then
            fail(sname, "'%s' is an option of the \"newton\" solver (solver is %s)", k, show(def.solver))
        end
    end
    def.formulation = option(sname, "formulation", s.formulation, D.formulation, { "alart-curnier", "fischer-burmeister" })
    def.fallback = boolean(sname, "fallback", s.fallback, D.fallback)
    def.linear = option(sname, "linear", s.linear, D.linear, { "auto", "dense", "iterative", "sparse" })
    def.relax = number(sname, "relax", s.relax, D.relax)
    def.threads = integer(sname, "threads", s.threads, D.threads)
    def.adaptive_threads = boolean(sname, "adaptive_threads", s.adaptive_threads, D.adaptive_threads)
    def.norm = option(sname, "norm", s.norm, D.norm, { "l2", "max", "siconos" })
    if s.accelerate == "anderson" then   -- NSGS with Anderson acceleration of depth m (anderson.c)
        if def.solver ~= "nsgs" then
            fail(sname, "accelerate = \"anderson\" is an option of the \"nsgs\" solver (solver is %s)", show(def.solver))
        end
        def.accelerate = "anderson"
        def.anderson = integer(sname, "depth", s.depth, 5)
        if def.anderson < 1 or def.anderson > 10 then fail(sname, "'depth' must be in 1..10 (got %s)", show(s.depth)) end
    else
        if type(s.accelerate) == "string" then
            fail(sname, "'accelerate' must be a boolean or \"anderson\" (got %s)", show(s.accelerate))
        end
        if s.depth ~= nil then fail(sname, "'depth' is an option of accelerate = \"anderson\"") end
        def.accelerate = boolean(sname, "accelerate", s.accelerate, D.accelerate)
    end
    -- threads > 1 needs a parallel order: the slabs for planar contacts (one
    -- barrier-bound column a sweep), the colours for 3D ones (the slabs order
    -- sweeps those by index on one thread)
    def.order = option(sname, "order", s.order, def.threads > 1 and (self.dim == 3 and "colour" or "slabs") or D.order,
                       { "fixed", "random", "position", "top", "colour", "color", "slabs" })
    if def.order == "color" then def.order = "colour" end
    def.seed = integer(sname, "seed", s.seed, D.seed)
    def.check_every = integer(sname, "check_every", s.check_every, D.check_every)
    if s.skip_quiet ~= nil and def.solver ~= "nsgs" then
        fail(sname, "'skip_quiet' is an option of the \"nsgs\" solver (solver is %s)", show(def.solver))
    end
    def.skip_quiet = number(sname, "skip_quiet", s.skip_quiet, D.skip_quiet)
    if s.residual ~= nil and def.solver ~= "nsgs" then
        fail(sname, "'residual' is an option of the \"nsgs\" solver (solver is %s)", show(def.solver))
    end
    def.residual = option(sname, "residual", s.residual, D.residual, { "pass", "sweep" })
    def.tol = number(sname, "tol", s.tol, D.tol)
    def.max_iter = integer(sname, "max_iter", s.max_iter, D.max_iter)
    def.on_fail = option(sname, "on_fail", s.on_fail, D.on_fail, { "warn", "error" })
    def.warm_start = boolean(sname, "warm_start", s.warm_start, D.warm_start)
    def.local_tol = number(sname, "local_tol", s.local_tol, D.local_tol)
    def.local_max_iter = integer(sname, "local_max_iter", s.local_max_iter, D.local_max_iter)
    def.work_check = option(fname, "work_check", t.work_check, D.work_check, { "record", "warn", "error" })
    def.work_tol = number(fname, "work_tol", t.work_tol, D.work_tol)
    def.project_joints = boolean(fname, "project_joints", t.project_joints, D.project_joints)
    def.project_tol = number(fname, "project_tol", t.project_tol, D.project_tol)
    def.project_max_iter = integer(fname, "project_max_iter", t.project_max_iter, D.project_max_iter)
    def.project_contacts = boolean(fname, "project_contacts", t.project_contacts, D.project_contacts)
    if def.project_contacts and def.scheme ~= "moreau-jean" and def.scheme ~= "moreau-jean-fremond" then
        fail(fname, "'project_contacts' is an option of scheme = \"moreau-jean\" or \"moreau-jean-fremond\" (scheme is %s)", show(def.scheme))
    end
    if def.scheme == "gen-alpha" then I.gen_alpha_options(fname, t, s, def)
    else
        for _, k in ipairs{ "rho_inf", "gen_alpha", "strategy", "variant", "prox_r", "newton_jacobian" } do
            if t[k] ~= nil then fail(fname, "'%s' is an option of scheme = \"gen-alpha\" (scheme is %s)", k, show(def.scheme)) end
        end
    end
    c_check("sim", fname, def)
    -- the joints' rows at q* = q_k + s h v_k: by default the kernel's choice
    -- for these settings (rc_sim_joint_jacobian: the end of the step for
    -- Moreau--Jean with theta < 3/4, Bruls et al. 2014 eq. 50c, the midpoint
    -- otherwise, the start with the projection)
    def.joint_jacobian = option(fname, "joint_jacobian", t.joint_jacobian, core.joint_jacobian(def),
                                { "start", "midpoint", "end" })
    local ok, msg = core.configure(c, def)
    if not ok then fail(fname, "%s", msg) end
    def.sleep = I.set_sleep(fname, c, t.sleep)   -- (ricochet/sleep.lua)
    local sim = { world = self, def = def, _before = {}, _after = {}, _stop = false }
    for k, v in pairs(def) do sim[k] = v end
    setmetatable(sim, Sim)
    rawset(self, "_sim", sim)
    return sim
end

-- scheme = "gen-alpha" (Bruls, Acary & Cardona 2014): rho_inf (0.8, in [0, 1]), or
-- gen_alpha = { alpha_m =, alpha_f =, beta =, gamma = } (all four); the Newton
-- iterations' cap is the solver's max_iter (default 50 under this scheme);
-- strategy = "monolithic" (the semismooth Newton on (44)) or "sequential" (Algorithm 1)
function I.gen_alpha_options(fname, t, s, def)
    if t.rho_inf ~= nil and t.gen_alpha ~= nil then
        fail(fname, "give 'rho_inf' or 'gen_alpha' = { alpha_m, alpha_f, beta, gamma }, not both")
    end
    def.rho_inf = in01(fname, "rho_inf", number(fname, "rho_inf", t.rho_inf, 0.8))
    local ga = t.gen_alpha
    if ga ~= nil then
        local gname = fname .. ": gen_alpha"
        check_table(gname, ga, "gen_alpha = { alpha_m = 1/3, alpha_f = 4/9, beta = 0.3086, gamma = 0.6111 }")
        check_keys(gname, ga, { "alpha_m", "alpha_f", "beta", "gamma" })
        def.ga_direct = true
        def.alpha_m = number(gname, "alpha_m", ga.alpha_m, REQUIRED)
        def.alpha_f = number(gname, "alpha_f", ga.alpha_f, REQUIRED)
        def.beta = number(gname, "beta", ga.beta, REQUIRED)
        def.ga_gamma = number(gname, "gamma", ga.gamma, REQUIRED)
    end
    def.ga_max_iter = s.max_iter == nil and 50 or def.max_iter
    def.strategy = option(fname, "strategy", t.strategy, "monolithic", { "monolithic", "sequential" })
    def.ga_sequential = def.strategy == "sequential"
    -- the contact formulation: Bruls et al. 2014 (frictionless) or Capobianco et al. 2021
    -- (Coulomb friction); "auto": the latter when a law has friction
    def.variant = option(fname, "variant", t.variant, "auto", { "auto", "bruls2014", "capobianco2021" })
    def.ga_variant = ({ auto = 0, bruls2014 = 1, capobianco2021 = 2 })[def.variant]
    def.prox_r = number(fname, "prox_r", t.prox_r, 0)
    -- the frictional variant's Newton Jacobian: "analytic" (exact for the built-in parts),
    -- "differences" (forward differences), "auto": analytic when every part is built in
    def.newton_jacobian = option(fname, "newton_jacobian", t.newton_jacobian, "auto", { "auto", "analytic", "differences" })
    def.ga_jacobian = ({ auto = 0, analytic = 1, differences = 2 })[def.newton_jacobian]
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
I.sim_core = sim_core   -- for ricochet/sim_explore.lua

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

-- sim:on_progress(fn, interval): fn(p) during sim:run every `interval`
-- seconds of wall clock (default 0.25; 0: after every step) and once at the
-- end of the run (p.final = true); p: t, T, step, steps, steps_total, capped,
-- residual, max_residual, t_max_residual, wall_s, steps_per_s, eta_s, final
-- (rc_world_progress_get).
function Sim:on_progress(fn, interval)
    local fname = "sim:on_progress"
    sim_core(fname, self)
    check_fn(fname, "fn", fn)
    if fn == nil then fail(fname, "'fn' must be a function (got nil)") end
    interval = nonneg(fname, "interval", number(fname, "interval", interval, 0.25))
    local l = rawget(self, "_progress")
    if not l then l = {}; rawset(self, "_progress", l) end
    l[#l + 1] = fn
    local cur = rawget(self, "_progress_interval")
    if cur == nil or interval < cur then rawset(self, "_progress_interval", interval) end
    return self
end

function Sim:stop()
    check_self("sim:stop", self, Sim, "a simulation")
    rawset(self, "_stop", true)
end

-- One step with callbacks. Returns false when a before_step callback asked
-- to stop (and `honour_stop` is set): the step is then not done.
-- A callback may close the world: the callbacks after it (the library's own
-- too, e.g. a VTK series' frames) are not run on the closed world.
local function run_callbacks(list, self, c, fname, which)
    for _, fn in ipairs(list) do
        fn(self)
        if not core.is_open(c) then fail(fname, "the world has been closed (by %s callback)", which) end
    end
end

local function step_once(self, c, fname, honour_stop)
    if not core.is_open(c) then fail(fname, "the world has been closed") end
    run_callbacks(self._before, self, c, fname, "a before_step")
    if honour_stop and self._stop then return false end
    local ok, msg, status = core.step(c)
    if not ok then
        rawset(self, "_last_status", status)
        fail(fname, "%s", msg)
    end
    run_callbacks(self._after, self, c, fname, "an after_step")
    return true
end

function Sim:step()
    local c = sim_core("sim:step", self, true)
    step_once(self, c, "sim:step", false)
    return self
end

local function open_output(fname, self, c, dir, every, format)
    if core.output_is_open(c) then
        fail(fname, "an output is already open (close it with sim:close_output first)")
    end
    local o = cli_options()
    -- registered first: an interrupt raised right after the open still finds it
    open_outputs[rawget(self, "world")] = true
    local ok, msg = core.output_open(c, dir, every, o.script, rc.params_json(), format)
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
    check_keys(fname, t, { "dir", "every", "format" })
    local dir = opt_name(fname, "dir", t.dir) or "out"
    local every = positive(fname, "every", integer(fname, "every", t.every, 1))
    open_output(fname, self, c, dir, every, option(fname, "format", t.format, "csv", HISTORY_FORMATS))
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
    check_keys(fname, t, { "dir", "every", "disk_outlines" })
    local dir = opt_name(fname, "dir", t.dir) or "out/vtk"
    local every = positive(fname, "every", integer(fname, "every", t.every, 1))
    local outlines = boolean(fname, "disk_outlines", t.disk_outlines, false)
    local cur = rawget(self, "_vtk")
    if cur then
        fail(fname, "a VTK series is already being written to '%s' (stop it with sim:close_vtk() first)", cur.dir)
    end
    local writer, msg = core.vtk_open(dir, nil, nil, outlines)
    if not writer then fail(fname, "%s", msg) end
    local w, fem = rawget(self, "world"), {}   -- finite-element bodies: fem_*.vtu (ricochet/vtk_fem.lua)
    local ok, fmsg = I.vtk_add_fem(writer, w, c, fem)
    if ok then ok, fmsg = core.vtk_frame(writer, c) end
    if not ok then
        core.vtk_close(writer)
        fail(fname, "%s", fmsg)
    end
    local v = { writer = writer, dir = dir, every = every, last = core.step_count(c) }
    v.fn = function()
        local n = core.step_count(c)
        if n % every ~= 0 or n == v.last then return end
        local wok, wmsg = I.vtk_add_fem(writer, w, c, fem)
        if wok then wok, wmsg = core.vtk_frame(writer, c) end
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
    local lives = I.body_lives(rawget(self, "world"))
    local ok, msg = core.checkpoint_restore(c, path)
    if not ok then fail(fname, "%s", msg) end
    I.sync_lives(rawget(self, "world"), lives)   -- the removals of the checkpoint (remove.lua)
    return self
end

rc.last_summary = nil

function Sim:run(t)
    local fname = "sim:run"
    local c = sim_core(fname, self, true)
    check_table(fname, t, "sim:run{ T = 1.0 }")
    check_keys(fname, t, { "T", "out", "every", "format", "quiet", "frames", "progress" })
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
    local format = t.format   -- the history's file: history.csv.gz or history.bin
    if format == nil and out == o.out then format = o.format end
    format = option(fname, "format", format, "csv", HISTORY_FORMATS)
    if t.format ~= nil and not out then
        fail(fname, "'format' needs an output folder: give out = \"DIR\" (or run with --out DIR)")
    end
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
        local lives = I.body_lives(rawget(self, "world"))
        local rok, rmsg = core.checkpoint_restore(c, o.restart)
        if not rok then fail(fname, "--restart: %s", rmsg) end
        I.sync_lives(rawget(self, "world"), lives)
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

    if out then open_output(fname, self, c, out, every, format) end
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
    -- progress (ricochet/progress.lua): a line on a terminal, sim:on_progress
    rawset(self, "_progress_final", nil)
    local pfns = rawget(self, "_progress") or {}
    local pline = boolean(fname, "progress", t.progress, true) and not o.quiet and o.script ~= nil
                  and core.stderr_is_tty()
    local pinterval = rawget(self, "_progress_interval") or 0.25
    if pline and pinterval > 0.25 then pinterval = 0.25 end
    local pok, pmsg = core.progress_begin(c, T, pinterval)
    if not pok then fail(fname, "%s", pmsg) end
    local progress = require "ricochet.progress"
    local polled = pline or #pfns > 0

    local ok, err = pcall(function()
        for _ = 1, n do
            if not step_once(self, c, fname, true) then break end
            if polled then
                local p = core.progress(c, true)
                if p then
                    if pline then progress.draw(p) end
                    for _, fn in ipairs(pfns) do fn(p) end
                end
            end
            if ck_path and core.step_count(c) % ck_every == 0 then
                local sok, smsg = core.checkpoint_save(c, ck_path)
                if not sok then fail(fname, "%s", smsg) end
            end
            if self._stop then break end
        end
    end)

    if core.is_open(c) then   -- the final figures; the count of unconverged steps warned once
        core.progress_end(c)
        local p = core.progress(c)
        rawset(self, "_progress_final", p)
        if pline then progress.clear() end
        if ok then
            ok, err = pcall(function() for _, fn in ipairs(pfns) do fn(p) end end)
        end
    elseif pline then
        progress.clear()
    end
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
        local p = rawget(self, "_progress_final")
        if p then   -- this run's steps at the solver's sweep cap (ricochet/progress.lua)
            summary.capped = p.capped
            summary.t_max_residual = p.t_max_residual
            summary.run_max_residual = p.max_residual
        end
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
