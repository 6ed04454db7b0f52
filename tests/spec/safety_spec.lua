-- safety_spec.lua -- regression tests of issue 10's memory-safety defects,
-- non-finite states, absurd inputs and error positions: one test per defect,
-- named after it.
--
-- Memory errors do not always crash: the tests that exercise one run the
-- scenario in a child process (plain lua5.4, the module loaded as a shared
-- object) with freed memory overwritten (glibc's MALLOC_PERTURB_, or the
-- same through ASAN_OPTIONS under an AddressSanitizer build), so that a read
-- of freed memory follows a garbage pointer and the child dies.
local rc = require "ricochet"

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function read_file(path)
    local f = io.open(path, "rb")
    if not f then return nil end
    local s = f:read("a")
    f:close()
    return s
end

local function write_file(path, text)
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
end

-- Run a shell command; return exit code (or "killed by signal N"), stdout, stderr.
local function sh(cmd)
    local out, err = os.tmpname(), os.tmpname()
    local _, how, code = os.execute(cmd .. " >" .. q(out) .. " 2>" .. q(err))
    local o, e = read_file(out), read_file(err)
    os.remove(out)
    os.remove(err)
    if how == "signal" then code = "killed by signal " .. code end
    return code, o, e
end

-- Run Lua source in a child lua5.4 (same LUA_PATH / LUA_CPATH). env: extra
-- "NAME=value" assignments; asan: extra ASAN_OPTIONS (appended to any set).
local function child(src, env, asan)
    local path = os.tmpname()
    write_file(path, src)
    local a = os.getenv("ASAN_OPTIONS")
    local opts = asan and ((a and a ~= "" and a .. ":" or "") .. asan) or a
    local cmd = (env or "") .. (opts and (" ASAN_OPTIONS=" .. q(opts)) or "") .. " lua5.4 " .. q(path)
    local code, o, e = sh(cmd)
    os.remove(path)
    return code, o, e
end

-- freed memory filled with 0xa5 (glibc, and AddressSanitizer's allocator)
local PERTURB_ENV = "MALLOC_PERTURB_=165"
local PERTURB_ASAN = "max_free_fill_size=1048576:free_fill_byte=165"

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return tostring(err)
end

describe("memory safety (issue 10)", function()
    it("defect 1: a law first used inside a coroutine that was collected: closing the world is safe", function()
        local code, out, err = child([[
local rc = require "ricochet"
local coulomb = require "ricochet.laws.coulomb"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local co = coroutine.create(function()
  local b = w:body{ mass = 1, inertia = 1, q = { 0, 0.5, 0 }, shape = rc.disk{ 0.5 } }
  w:contact{ w.ground, b, law = coulomb{ e = 0, mu = 0.3 } }   -- the law is created here
  w:simulation{ h = 1e-3 }:step()
end)
assert(coroutine.resume(co))
local weak = setmetatable({}, { __mode = "v" })
weak[1], co = co, nil
collectgarbage(); collectgarbage()
assert(weak[1] == nil, "the coroutine was not collected")
w:close()
print("closed")
]], PERTURB_ENV, PERTURB_ASAN)
        assert.are.equal(0, code, err)
        assert.are.equal("closed\n", out)
    end)

    it("defect 2: a law's ctx used outside its call raises (after the step, after w:close())", function()
        local kept
        local law = rc.law{
            name = "keeper", dim = 2, params = {},
            xi = function(_, uN, uT, _, _, ctx) kept = ctx; return uN, uT end,
            project = function(_, xN) return xN > 0 and xN or 0, 0 end,
        }
        local w = rc.world{ gravity = { 0, -10 } }
        w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        local b = w:body{ mass = 1, inertia = 1, q = { 0, 0.5, 0 }, shape = rc.disk{ 0.5 } }
        w:contact{ w.ground, b, law = law }
        local sim = w:simulation{ h = 1e-3 }
        local seen
        local law2 = rc.law{   -- inside the call, the fields are there
            name = "reader", dim = 2, params = {},
            xi = function(_, uN, uT, _, _, ctx)
                if ctx.contact ~= nil then seen = { ctx.gN, ctx.h, ctx.unknown } end
                return uN, uT
            end,
            project = function(_, xN) return xN > 0 and xN or 0, 0 end,
        }
        local w2 = rc.world{ gravity = { 0, -10 } }
        w2:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        local b2 = w2:body{ mass = 1, inertia = 1, q = { 0, 0.5, 0 }, shape = rc.disk{ 0.5 } }
        w2:contact{ w2.ground, b2, law = law2 }
        w2:simulation{ h = 1e-3 }:step()
        assert.are.same({ 0, 1e-3, "end" }, seen)
        w2:close()

        sim:step()
        assert.is_table(kept)
        local msg = "ctx is only valid during the law's call"
        assert.matches("safety_spec.lua:%d+: " .. msg, error_of(function() return kept.gN end))
        assert.matches(msg, error_of(function() return kept.t end), 1, true)
        assert.matches(msg, error_of(function() return kept.state end), 1, true)
        assert.matches(msg, error_of(function() kept.x = 1 end), 1, true)
        w:close()   -- frees the law's C data: ctx must not point at it
        assert.matches(msg, error_of(function() return kept.gN end), 1, true)
        assert.matches(msg, error_of(function() return kept.nx end), 1, true)
        collectgarbage()
        assert.matches(msg, error_of(function() return kept.contact end), 1, true)
    end)

    it("defect 5: plain lua5.4 exits cleanly after a run on threads", function()
        if not rc.openmp() then return end   -- no thread team without OpenMP
        -- lua_close unloads ricochet/core.so (and libgomp) while the team's
        -- threads still spin (OMP_WAIT_POLICY=active: they spin until then);
        -- the heap freed after the unload gives them the time to crash
        local src = [[
local rc = require "ricochet"
local d, cols, rows = 0.19995, 100, 20   -- 2 000 disks, packed: colours of over 512 contacts
local w = rc.world{ gravity = { 0, -9.81 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
for i = 0, cols * rows - 1 do
  local row, col = i // cols, i % cols
  w:body{ mass = 0.0314, inertia = 1.57e-4, shape = rc.disk{ radius = 0.1 },
          q = { 0.1 + d * col + (row % 2) * d / 2, 0.1 + row * d * math.sqrt(3) / 2, 0 } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-4, max_iter = 5, order = "colour",
                                               threads = 2, adaptive_threads = false } }
sim:run{ T = 0.002 }
print(sim:stats().parallel_steps)
JUNK = {}
for i = 1, 300000 do JUNK[i] = { i } end
]]
        for _ = 1, 2 do
            local code, out, err = child(src, "OMP_WAIT_POLICY=active")
            assert.are.equal(0, code, err)
            assert.are.equal("2\n", out)
        end
    end)

    it("defect 6: law_create_custom raising after it allocated leaks nothing", function()
        -- 100 000 failed calls leaked 480 bytes each (48 MB); the resident set is
        -- measured around them, freed memory is not quarantined under ASan
        local code, out, err = child([[
local core = require "ricochet.core"
local function rss_kb()
  for line in io.lines("/proc/self/status") do
    local v = line:match("^VmRSS:%s*(%d+)")
    if v then return tonumber(v) end
  end
end
local w = core.world_new{}
local bad = { name = "bad", dim = 2, xi = 1 }   -- 'xi' of the wrong type: raises
for _ = 1, 1000 do assert(not pcall(core.law_create_custom, w, bad)) end
collectgarbage(); collectgarbage()
local r0 = rss_kb()
for _ = 1, 100000 do assert(not pcall(core.law_create_custom, w, bad)) end
collectgarbage(); collectgarbage()
print(string.format("grew %d kB", rss_kb() - r0))
]], "", "quarantine_size_mb=0")
        assert.are.equal(0, code, err)
        local grew = tonumber(out:match("grew (%-?%d+) kB"))
        assert.is_true(grew < 8000, out)
    end)
end)

describe("no silent non-finite state (issue 10)", function()
    -- v = 1e308 and h = 10: q_{k+1} = q_k + h v_{k+theta} overflows. The step
    -- fails (not the next one), names the body, and leaves q, v, t at t_k:
    -- with q and v written in place (no copy of the state kept) and with a
    -- copy (work_check = "error"), under both schemes.
    for _, work_check in ipairs { "record", "error" } do
        for _, scheme in ipairs { "moreau-jean", "moreau-jean-fremond" } do
            it("a non-finite q fails its own step and restores t_k (" .. scheme .. ", work_check = " .. work_check .. ")", function()
                local w = rc.world{ gravity = { 0, 0 } }
                local b = w:body{ name = "rocket", mass = 1, inertia = 1, q = { 1, 2, 3 }, v = { 1e308, 0, 0 } }
                local sim = w:simulation{ h = 10, scheme = scheme, work_check = work_check }
                local err = error_of(sim.step, sim)
                assert.matches("sim:step: step diverged at t = 10 (step 1): non-finite position q[1] = inf of rocket; "
                               .. "the state is left at t = 0", err, 1, true)
                assert.are.same({ 1, 2, 3 }, b:q())
                assert.are.same({ 1e308, 0, 0 }, b:v())
                assert.are.equal(0, sim.t)
                assert.are.equal(0, sim.steps)
                local st = sim:stats()
                assert.are.equal(0, st.steps)
                assert.are.equal(0, st.max_residual)
            end)
        end
    end

    it("a velocity that overflows names the body and its coordinate", function()
        local w = rc.world{ gravity = { 0, 0 } }
        local b = w:body{ name = "pushed", mass = 1, inertia = 1,
                          force_fn = function() return { 0, 1e308, 0 } end }
        local sim = w:simulation{ h = 10 }
        local err = error_of(sim.step, sim)
        assert.matches("step diverged at t = 10 (step 1): non-finite velocity v[2] = inf of pushed; worst none", err, 1, true)
        assert.matches("the state is left at t = 0", err, 1, true)
        assert.are.same({ 0, 0, 0 }, b:v())
        assert.are.same({ 0, 0, 0 }, b:q())
    end)
end)

describe("absurd but finite inputs are refused with the reason (issue 10)", function()
    it("gravity beyond rc.MAX_GRAVITY", function()
        assert.are.equal(1e12, rc.MAX_GRAVITY)
        assert.matches("rc.world: 'gravity[2]' = -1e+300 is beyond the limit of 1e+12 in magnitude "
                       .. "(velocities and energies would overflow)",
                       error_of(rc.world, { gravity = { 0, -1e300 } }), 1, true)
        assert.matches("'gravity[1]' = 1000001000000 is beyond the limit",
                       error_of(rc.world, { gravity = { 1.000001e12, 0 } }), 1, true)
        rc.world{ gravity = { 1e12, -1e12 } }:close()   -- the limit itself is allowed
    end)

    it("h outside [rc.MIN_H, rc.MAX_H]", function()
        local w = rc.world{}
        assert.matches("world:simulation: 'h' = 1e-300 is below the limit of 1e-12 (runs would not end; "
                       .. "forces = impulses / h would overflow)", error_of(w.simulation, w, { h = 1e-300 }), 1, true)
        assert.matches("world:simulation: 'h' = 1e+300 is above the limit of 1e+06 (positions and velocities "
                       .. "would overflow)", error_of(w.simulation, w, { h = 1e300 }), 1, true)
        w:simulation{ h = rc.MIN_H }
        w:simulation{ h = rc.MAX_H }
    end)

    it("T / h beyond rc.MAX_RUN_STEPS steps in one sim:run", function()
        local w = rc.world{}
        local sim = w:simulation{ h = 1e-3 }
        assert.matches("sim:run: T / h = 1e+300 / 0.001 = 1e+303 steps is beyond the limit of 1e+09 steps per run "
                       .. "(the run would not end)", error_of(sim.run, sim, { T = 1e300 }), 1, true)
        assert.matches("beyond the limit of 1e+09 steps", error_of(sim.run, sim, { T = 1.000001e6 }), 1, true)
        assert.are.equal(0, sim.steps)
    end)

    it("a mass or inertia whose inverse is not finite", function()
        local w = rc.world{}
        assert.matches("world:body: 'mass' = 1e-309 is too small: 1/mass is not a finite number",
                       error_of(w.body, w, { mass = 1e-309, inertia = 1 }), 1, true)
        assert.matches("world:body: 'inertia' = 3e-309 is too small: 1/inertia is not a finite number",
                       error_of(w.body, w, { mass = 1, inertia = 3e-309 }), 1, true)
    end)
end)

describe("rc.read_matrix checks a Matrix Market header before allocating (issue 10)", function()
    local function mtx(text)
        local p = os.tmpname()
        write_file(p, text)
        return p
    end

    it("a 60-byte header declaring 100 000 x 100 000 is refused by the entry limit", function()
        local p = mtx("%%MatrixMarket matrix coordinate real general\n100000 100000 0\n")
        assert.are.equal(1e7, rc.MAX_MATRIX_ENTRIES)
        assert.matches("rc.read_matrix: " .. p .. ":2: a 100000 x 100000 matrix has more than the limit of 1e+07 "
                       .. "entries (rc.MAX_MATRIX_ENTRIES)", error_of(rc.read_matrix, p), 1, true)
        os.remove(p)
    end)

    it("declared entries are counted against the lines present before the matrix is made", function()
        -- 3000 x 3000 is under the limit, but 5 entries are announced and 1 is
        -- there: refused without making the 9e6-entry table (it was made first)
        local p = mtx("%%MatrixMarket matrix coordinate real general\n3000 3000 5\n1 1 2.5\n")
        collectgarbage()
        collectgarbage("stop")
        local kb0 = collectgarbage("count")
        local err = error_of(rc.read_matrix, p)
        local grew = collectgarbage("count") - kb0
        collectgarbage("restart")
        assert.matches("rc.read_matrix: " .. p .. ": 5 entries announced on line 2, 1 found", err, 1, true)
        assert.is_true(grew < 1024, string.format("the reader allocated %.0f kB", grew))
        write_file(p, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2.5\n2 2 1\n")
        assert.matches(p .. ":4: more entries than the 1 announced on line 2", error_of(rc.read_matrix, p), 1, true)
        os.remove(p)
    end)
end)

describe("errors raised deep in the Lua layer point at the user's line, in the user's words (issue 10)", function()
    -- Run src as a chunk named "myscript"; return its error message.
    local function script_error(src)
        local chunk = assert(load(src, "=myscript"))
        local ok, err = pcall(chunk)
        assert.is_false(ok, "the script did not fail")
        return tostring(err)
    end
    local PRE = 'local rc = require "ricochet"\nlocal w = rc.world{}\n'

    it("sim.t and sim.steps after w:close()", function()
        local pre = PRE .. "local sim = w:simulation{}\nw:close()\n"
        assert.are.equal("myscript:5: sim.t: the world has been closed", script_error(pre .. "local t = sim.t\n"))
        assert.are.equal("myscript:6: sim.steps: the world has been closed",
                         script_error(pre .. "\nlocal n = sim.steps\n"))
    end)

    it("rc.format_summary(42) and a summary with a field of the wrong type", function()
        assert.are.equal("myscript:3: rc.format_summary: expected a table argument, e.g. "
                         .. "rc.format_summary(sim:run{ T = 1 }) (got 42)",
                         script_error(PRE .. "local s = rc.format_summary(42)\n"))
        assert.are.equal("myscript:3: rc.format_summary: 'steps' must be a number (got 'x')",
                         script_error(PRE .. "local s = rc.format_summary{ steps = 'x' }\n"))
        assert.are.equal("myscript:3: rc.format_summary: 'steps' must be an integer (got 1.5)",
                         script_error(PRE .. "local s = rc.format_summary{ steps = 1.5 }\n"))
    end)

    it("rc.read_matrix given a folder", function()
        local dir = os.tmpname()
        os.remove(dir)
        assert(os.execute("mkdir " .. q(dir)))
        assert.are.equal("myscript:3: rc.read_matrix: cannot read " .. dir .. ": Is a directory",
                         script_error(PRE .. "local M = rc.read_matrix(" .. string.format("%q", dir) .. ")\n"))
        os.remove(dir)
    end)

    it("sim:force_set{ contact = \"all\" } without an active contact (the LP's 'n' must be >= 1)", function()
        local err = script_error(PRE .. [[
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local b = w:body{ mass = 1, inertia = 1, q = { 0, 0.505, 0 }, shape = rc.disk{ 0.5 } }
local sim = w:simulation{}
sim:step()
local sets = sim:force_set{ contact = "all" }
]])
        assert.are.equal('myscript:7: sim:force_set: contact = "all": no contact of the last step is active '
                         .. "(1 contact within the margin, none in the index set): there is no force set to compute", err)
    end)
end)
