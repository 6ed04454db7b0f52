-- ricochet/program.lua -- part of require "ricochet" (lua/ricochet/init.lua, which
-- requires it in order): summaries and program support: rc.format_summary, rc.close_outputs, rc._finish.
-- The module's shared locals come from ricochet.private, the argument checks
-- from ricochet.check.

local I = require "ricochet.private"
local core, rc, cli_options, open_outputs, open_vtk = I.core, I.rc, I.cli_options, I.open_outputs, I.open_vtk
local type, tostring, pairs, ipairs, rawget, fmt = type, tostring, pairs, ipairs, rawget, string.format
local check = require "ricochet.check"
local fail, show, check_table, number, integer = check.fail, check.show, check.check_table, check.number, check.integer
local mtype = math.type
local isfinite = check.isfinite

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
    local params = rc.params()
    for k in pairs(params) do keys[#keys + 1] = k end
    table.sort(keys)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = json_string(k) .. ": " .. json_value(params[k]) end
    return "{" .. table.concat(parts, ", ") .. "}"
end


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
                         "W_J", "W_proj", "E_proj", "max_joint_pos_violation", "frames", "capped",
                         "steps_run", "run_max_residual", "t_max_residual" } do
        local x = s[k]
        if x ~= nil and type(x) ~= "number" then fail(fname, "'%s' must be a number (got %s)", k, show(x)) end
        if x ~= nil and (k == "steps" or k == "max_iterations" or k == "failures" or k == "warnings" or k == "frames"
                         or k == "capped" or k == "steps_run")
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
    local capped = require("ricochet.progress").capped_sentence(s.capped, s.steps_run or s.steps,
                                                                s.run_max_residual, s.t_max_residual)
    if capped then row("sweep cap", capped) end
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
-- A world that is stepping (the call comes from one of its force functions)
-- keeps its output open, and the call then raises once the others are closed.
local CLOSE_STATUS = { complete = true, error = true, interrupted = true, stopped = true, exited = true }
function rc.close_outputs(status, message, exit_code)
    if not CLOSE_STATUS[status] then
        fail("rc.close_outputs", "'status' must be \"complete\", \"error\", \"interrupted\", \"stopped\" or \"exited\" (got %s)", show(status))
    end
    if message ~= nil and type(message) ~= "string" then fail("rc.close_outputs", "'message' must be a string or nil (got %s)", show(message)) end
    if exit_code ~= nil and mtype(exit_code) ~= "integer" then
        fail("rc.close_outputs", "'exit_code' must be an integer or nil (got %s)", show(exit_code))
    end
    local n, stepping = 0, false
    for w in pairs(open_outputs) do
        local c = rawget(w, "_c")
        local open = core.is_world(c) and core.is_open(c)   -- (a handle a script replaced: nothing to close)
        if open and core.is_stepping(c) then
            stepping = true
        else
            if open and core.output_is_open(c) then
                core.output_close(c, status, message, exit_code)
                n = n + 1
            end
            open_outputs[w] = nil
        end
    end
    if status ~= "complete" then
        for _, v in pairs(open_vtk) do
            if not v.ended or status == "exited" then
                pcall(core.vtk_mark, v.writer, status, message)
                v.ended = status
            end
        end
    end
    if stepping then
        fail("rc.close_outputs", "not allowed inside a force function: the world is stepping (its output stays open)")
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
