-- sandbox_spec.lua -- `ricochet run --sandbox` against a hostile script: each
-- escape is refused with its message, endless loops (in callbacks, in
-- coroutines, in pattern matching) and huge allocations are stopped by the
-- limits with their message, exit status 3, and the output marked
-- incomplete with the reason (docs/security.md).
local BIN = assert(os.getenv("RICOCHET_BIN"), "RICOCHET_BIN is not set")

local H = require "sh_helper"   -- quoting, temporary folders, files, commands
local q, tmpdir, read_file, write_file, sh, exists = H.q, H.tmpdir, H.read_file, H.write_file, H.sh, H.exists

-- The folder of the scripts of this spec, and its output folder.
local DIR = tmpdir()
local OUT = DIR .. "/out"

-- Write text as DIR/NAME.lua; run it with options; return code, stdout, stderr.
local function run(name, text, options)
    local path = DIR .. "/" .. name .. ".lua"
    write_file(path, text)
    return sh(q(BIN) .. " run " .. (options or "--sandbox") .. " --out " .. q(OUT .. "/" .. name) .. " " .. q(path))
end

-- The last line of a history and run.json of OUT/name.
local function outputs(name)
    local json = read_file(OUT .. "/" .. name .. "/run.json")
    local p = io.popen("gzip -dc " .. q(OUT .. "/" .. name .. "/history.csv.gz") .. " | tail -n 1")
    local last = p:read("a")
    p:close()
    return json, last
end

-- A world with a named body, an output opened in the output folder, and a
-- simulation: the hostile part follows.
local SCENE = [[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
local b = w:body{ name = "b", mass = 1, inertia = 1, q = { 0, 1, 0 } }
local sim = w:simulation{ h = 0.01 }
sim:output{ dir = rc.options().out }
]]

-- A pile of 900 disks thrown about, solved to a tolerance it never reaches
-- with a cap of 2e9 sweeps: one step that does not end.
local LONG_SOLVE = [[
w:halfplane{}
for i = 1, 30 do for j = 1, 30 do
    w:body{ mass = 1, inertia = 0.1, q = { i, 0.99 * j, 0 }, v = { math.sin(i * j), math.cos(i + j), i - j },
            shape = rc.disk{ radius = 0.5 } }
end end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
local s2 = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-300, max_iter = 2000000000 } }
s2:step()
]]

-- A limit stopped the run: exit 3, the message on stderr with the option
-- that set the limit, and the output marked incomplete with the message.
local function assert_stopped(name, code, err, message, option)
    assert.are.equal(3, code, err)
    assert.matches("ricochet: error: " .. message, err, 1, true)
    assert.matches("(the limit is " .. option, err, 1, true)
    local json, last = outputs(name)
    assert.is_truthy(json, "no run.json")
    assert.matches('"status": "error"', json, 1, true)
    assert.matches('"complete": false', json, 1, true)
    assert.matches(message, json, 1, true)
    assert.matches("# incomplete: error: " .. message, last, 1, true)
end

teardown(function()
    os.execute("rm -rf " .. q(DIR))
end)

describe("ricochet run --sandbox", function()
    it("refuses each escape with its message", function()
        local cases = {
            { "os.execute('touch " .. DIR .. "/pwned')", "os.execute is not available in the sandbox" },
            { "io.popen('ls')", "io.popen is not available in the sandbox" },
            { "assert(io.open('" .. DIR .. "/../pwned', 'w'))",
              "writing outside the output folder '" .. OUT .. "/escape' is not allowed in the sandbox" },
            { "assert(io.open('/etc/passwd'))", "/etc/passwd: reading is not allowed in the sandbox" },
            { "package.loadlib('libc.so.6', 'system')", "package.loadlib is not available in the sandbox" },
            { "require 'lfs'", "C modules are not loaded" },
            { "package.cpath = '/usr/lib/x86_64-linux-gnu/lua/5.4/?.so'; require 'lfs'", "C modules are not loaded" },
            { "debug.sethook()", "the debug library is not available in the sandbox (debug.sethook)" },
            { "require 'debug'", "the debug library is not available in the sandbox" },
            { "assert(load(string.dump(function() end)))",
              "load: precompiled (binary) chunks are not allowed in the sandbox" },
            { "assert(load('return 1', 'x', 'b'))", "load: mode 'b' is not allowed in the sandbox" },
            { "os.exit(0)", "os.exit is not available in the sandbox" },
            { "os.getenv('HOME')", "os.getenv is not available in the sandbox" },
            { "setmetatable({}, { __gc = function() while true do end end })",
              "metatables with __gc are not allowed in the sandbox" },
            { "sim:vtk{ dir = '" .. DIR .. "/vtk' }",
              "sim:vtk: " .. DIR .. "/vtk: writing outside the output folder" },
            { "rc.world{}:simulation{ h = 0.1 }:run{ T = 0.1, out = '/tmp' }",
              "sim:run: /tmp: writing outside the output folder" },
            { "rc.core.clear_interrupt()", "ricochet.core.clear_interrupt is not available in the sandbox" },
            { "rc.sandbox{ script = 'x.lua' }", "rc.sandbox: not available here" },
        }
        for i, c in ipairs(cases) do
            local code, _, err = run("escape", SCENE .. c[1] .. "\n")
            assert.are.equal(1, code, c[1] .. ": " .. tostring(err))
            assert.matches(c[2], err, 1, true)
            assert.matches("escape.lua:6:", err, 1, true)    -- the script's line
            local json = outputs("escape")
            assert.matches('"status": "error"', json, 1, true, "case " .. i)
        end
        assert.is_false(exists(DIR .. "/pwned"))
        assert.is_false(exists(DIR .. "/../pwned"))
        assert.is_false(exists(DIR .. "/vtk"))
    end)

    it("refuses a precompiled chunk from a file, in dofile, loadfile and as the script", function()
        local bc = OUT .. "/bc/chunk.luac"
        local code, _, err = run("bc", SCENE .. [[
local f = assert(io.open("]] .. bc .. [[", "wb"))
f:write(string.dump(function() return 1 end))
f:close()
print(loadfile("]] .. bc .. [["))
dofile("]] .. bc .. [[")
]], "--sandbox")
        assert.are.equal(1, code, err)
        assert.matches("attempt to load a binary chunk (mode is 't')", err, 1, true)
        -- the program loads every script as text, sandboxed or not: a bytecode
        -- file (mutated ones crashed it) is refused before it runs
        local chunk = DIR .. "/compiled.luac"
        assert(os.execute("luac5.4 -o " .. q(chunk) .. " - <<'EOF'\nprint('ran')\nEOF\n") or
               os.execute("printf '\\033Lua' > " .. q(chunk)))
        for _, opt in ipairs({ "", "--sandbox" }) do
            local c2, out2, err2 = sh(q(BIN) .. " run " .. opt .. " " .. q(chunk))
            assert.are.equal(1, c2, err2)
            assert.are.equal("", out2)
            assert.matches("attempt to load a binary chunk (mode is 't')", err2, 1, true)
        end
    end)

    it("lets the script use ricochet, read its folder, require its modules and write under --out", function()
        write_file(DIR .. "/helper.lua", "return { answer = 42 }\n")
        write_file(DIR .. "/K.txt", "2 -1\n-1 2\n")
        local code, out, err = run("allowed", SCENE .. [[
local helper = require "helper"
local K = rc.read_matrix("]] .. DIR .. [[/K.txt")
local f = assert(io.open(rc.options().out .. "/note.txt", "w"))
f:write(helper.answer, " ", K[2][2])
f:close()
sim:run{ T = 0.1 }
print("ok", coroutine.wrap(function() coroutine.yield(7) end)(), pcall(error, "caught"))
]])
        assert.are.equal(0, code, err)
        assert.matches("ok\t7\tfalse\tcaught", out, 1, true)
        assert.are.equal("42 2", read_file(OUT .. "/allowed/note.txt"))
        assert.matches('"status": "complete"', (outputs("allowed")), 1, true)
    end)

    it("stops an endless loop in a callback of the kernel (--max-callback-instructions)", function()
        local code, _, err = run("callback", SCENE .. [[
b:set_force_fn(function(t, q, v)
    if t > 0.5 then while true do end end
    return { 0, 0, 0 }
end)
sim:run{ T = 1 }
]], "--sandbox --max-callback-instructions 1e6")
        assert_stopped("callback", code, err,
                       "callback instruction limit exceeded: a function called by the kernel executed more "
                       .. "than 1000000 Lua instructions (at " .. DIR .. "/callback.lua:7)",
                       "--max-callback-instructions 1000000")
        -- the rows before the loop are in the history
        local p = io.popen("gzip -dc " .. q(OUT .. "/callback/history.csv.gz") .. " | wc -l")
        local rows = tonumber(p:read("a"))
        p:close()
        assert.is_true(rows >= 50, tostring(rows))
    end)

    it("a law's error during a solve leaves no callback open (--max-callback-instructions)", function()
        -- the law's calls of one local solve run under one protected call: after an error in one
        -- of them, code outside callbacks is not counted against the callback limit
        local code, out, err = run("law_error", SCENE .. [[
w:halfplane{}
local d = w:body{ mass = 1, inertia = 1, q = { 3, 0.6, 0 }, shape = rc.disk{ radius = 0.5 } }
w:contact{ w.ground, d, law = rc.law{ name = "once", xi = function(_, uN, uT) return uN, uT end,
    project = function(_, xN) if xN > 0 then error("once") end return 0, 0 end } }
local ok, msg = pcall(sim.run, sim, { T = 1 })
local n = 0
for i = 1, 3e6 do n = n + i end
print(ok, msg:find("law 'once': 'project' failed for contact", 1, true) ~= nil, n)
]], "--sandbox --max-callback-instructions 1e6")
        assert.are.equal(0, code, err)
        assert.matches("false\ttrue\t4500001500000", out)
    end)

    it("stops an endless loop in a coroutine that catches every error (--max-instructions)", function()
        local code, _, err = run("coroutine", SCENE .. [[
local co = coroutine.create(function()
    while true do pcall(function() while true do end end) end
end)
while true do coroutine.resume(co) end
]], "--sandbox --max-instructions 1e7")
        assert_stopped("coroutine", code, err,
                       "instruction limit exceeded: the run executed more than 10000000 Lua instructions",
                       "--max-instructions 10000000")
    end)

    it("stops an endless loop in a coroutine on the wall clock (--max-seconds)", function()
        local code, _, err = run("clock", SCENE .. [[
coroutine.wrap(function() while true do end end)()
]], "--sandbox --max-seconds 0.3")
        assert_stopped("clock", code, err, "time limit exceeded: the run took more than 0.3 s (wall clock)",
                       "--max-seconds 0.3")
    end)

    it("stops a solve that would not end, inside the kernel's step (--max-seconds)", function()
        local code, _, err = run("solver", SCENE .. LONG_SOLVE, "--sandbox --max-seconds 1")
        assert_stopped("solver", code, err, "time limit exceeded: the run took more than 1 s (wall clock) (at "
                       .. DIR .. "/solver.lua:", "--max-seconds 1")
    end)

    it("stops a backtracking string.find (--max-instructions)", function()
        local code, _, err = run("pattern", SCENE .. [[
local s = string.rep("a", 40)
print(s:find(string.rep("a?", 40) .. s))   -- about 2^40 steps inside one C call
]], "--sandbox --max-instructions 1e8")
        assert_stopped("pattern", code, err, "instruction limit exceeded", "--max-instructions 100000000")
    end)

    it("stops a 10 GB allocation (--max-memory), also when the script catches the error", function()
        local code, _, err = run("memory", SCENE .. [[
local t = {}
for i = 1, 10 do
    local ok = pcall(function() t[i] = string.rep("x", 1 << 30) .. i end)   -- ten 1 GiB strings
end
print("never printed")
]], "--sandbox --max-memory 64M")
        assert_stopped("memory", code, err, "memory limit exceeded: the script asked for 1 GiB more",
                       "--max-memory 64M")
        assert.matches("(the limit is 64 MiB for Lua and the kernel together)", err, 1, true)
    end)

    it("counts the kernel's memory in the same limit", function()
        local code, _, err = run("kernel", SCENE .. [[
for i = 1, 1e7 do w:body{ mass = 1, inertia = 1, q = { i, 0, 0 } } end
]], "--sandbox --max-memory 16M")
        assert_stopped("kernel", code, err, "memory limit exceeded: the kernel asked for", "--max-memory 16M")
    end)

    it("has a memory limit of 1 GiB by default", function()
        local code, _, err = run("default", SCENE .. [[
local s = string.rep("x", 2000 * 1024 * 1024)
]], "--sandbox")
        assert_stopped("default", code, err, "memory limit exceeded: the script asked for 1.953 GiB more",
                       "the sandbox's default --max-memory 1G")
        assert.matches("(the limit is 1 GiB for Lua and the kernel together)", err, 1, true)
    end)
end)

describe("limits and interrupts of the ricochet program", function()
    it("applies the limits without --sandbox too", function()
        local code, _, err = run("plain", SCENE .. "while true do end\n", "--max-instructions 1e6")
        assert_stopped("plain", code, err, "instruction limit exceeded", "--max-instructions 1000000")
    end)

    it("refuses malformed limits (exit 2)", function()
        local path = DIR .. "/ok.lua"
        write_file(path, "print('ok')\n")
        for _, opt in ipairs({ "--max-instructions -1", "--max-instructions 1.5", "--max-seconds x",
                               "--max-memory 12Q", "--max-memory", "--max-callback-instructions ''" }) do
            local code, _, err = sh(q(BIN) .. " run " .. q(path) .. " " .. opt)
            assert.are.equal(2, code, opt .. ": " .. tostring(err))
            assert.matches("ricochet: ", err, 1, true)
        end
        local code, out = sh(q(BIN) .. " run " .. q(path) .. " --sandbox --max-memory 512MiB --max-seconds 60"
                             .. " --max-instructions 1e9 --max-callback-instructions 1e6")
        assert.are.equal(0, code)
        assert.are.equal("ok\n", out)
        code, out = sh(q(BIN) .. " help")
        for _, opt in ipairs({ "--sandbox", "--max-instructions N", "--max-callback-instructions N",
                               "--max-seconds S", "--max-memory SIZE" }) do
            assert.matches(opt, out, 1, true)
        end
    end)

    it("stops a solve that would not end on an interrupt", function()
        -- the force function asks for the interrupt, as SIGINT would, while
        -- the step runs: the solver stops at its next sweep
        local path = DIR .. "/interrupt_solve.lua"
        write_file(path, SCENE .. LONG_SOLVE:gsub("s2:step%(%)", [[
b:set_force_fn(function() rc.core.request_interrupt() return { 0, 0, 0 } end)
s2:step()]]))
        local code, _, err = sh("timeout -k 10 60 " .. q(BIN) .. " run " .. q(path))
        assert.are.equal(130, code, err)
        assert.matches("sim:step: interrupted at t = 0 (step 1, in the solver after 0 sweeps)", err, 1, true)
    end)

    for _, opt in ipairs({ "", "--sandbox" }) do
        it("stops a loop inside a coroutine and a backtracking string.find on one SIGINT " .. opt, function()
            for i, body in ipairs({ "coroutine.wrap(function() while true do end end)()",
                                    "local s = string.rep('a', 40) print(s:find(string.rep('a?', 40) .. s))" }) do
                local path = DIR .. "/sigint" .. i .. ".lua"
                write_file(path, body .. "\n")
                -- -k: a program that survives the SIGINT is killed 10 s later
                local code, _, err = sh("timeout -k 10 --preserve-status -s INT 0.5 " .. q(BIN) .. " run "
                                        .. opt .. " " .. q(path))
                assert.are.equal(130, code, err)
                assert.matches("ricochet: interrupted", err, 1, true)
            end
        end)
    end
end)

describe("rc.sandbox", function()
    it("runs an untrusted script from a trusted one and says how it ended", function()
        write_file(DIR .. "/user_loop.lua", SCENE .. "coroutine.wrap(function() while true do end end)()\n")
        write_file(DIR .. "/user_escape.lua", "os.execute('true')\n")
        write_file(DIR .. "/user_ok.lua", SCENE .. "sim:run{ T = rc.param('T', 1.0) }\nprint('user', ...)\n")
        local path = DIR .. "/driver.lua"
        write_file(path, [[
local rc = require "ricochet"
local function show(r)
    print(r.status, r.limit or "-", r.message or "-")
end
show(rc.sandbox{ script = "]] .. DIR .. [[/user_loop.lua", out = "]] .. OUT .. [[/user_loop",
                 max_instructions = 1e6 })
show(rc.sandbox{ script = "]] .. DIR .. [[/user_escape.lua" })
show(rc.sandbox{ script = "]] .. DIR .. [[/user_ok.lua", out = "]] .. OUT .. [[/user_ok",
                 set = { T = "0.05" }, args = { "a1" } })
print(pcall(rc.sandbox, { script = "x.lua", max_memory = -1 }))
print(pcall(rc.sandbox, { script = "x.lua", memory = 1 }))
]])
        local code, out, err = sh(q(BIN) .. " run " .. q(path))
        assert.are.equal(0, code, err)
        local lines = {}
        for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
        assert.matches("^limit\tinstructions\tinstruction limit exceeded", lines[1])
        assert.matches("^error\t%-\t.*user_escape.lua:1: os.execute is not available in the sandbox", lines[2])
        assert.are.equal("user\ta1", lines[3])
        assert.are.equal("complete\t-\t-", lines[4])
        assert.matches("rc.sandbox: 'max_memory' must be an integer >= 0", lines[5], 1, true)
        assert.matches("rc.sandbox: unknown key 'memory'", lines[6], 1, true)
        assert.matches('"status": "error"', read_file(OUT .. "/user_loop/run.json"), 1, true)
        local json = read_file(OUT .. "/user_ok/run.json")
        assert.matches('"status": "complete"', json, 1, true)
        assert.matches('"t_final": 0.05,', json, 1, true)   -- --set T=0.05 reached the script
    end)
end)

describe("docs/security.md", function()
    local ROOT = os.getenv("RICOCHET_ROOT") or "."
    local doc = read_file(ROOT .. "/docs/security.md")

    it("the hostile script of the example is stopped as shown", function()
        local i = assert(doc:find("An example: a hostile script", 1, true))
        local code = assert(doc:match("```lua\n(.-)```", i))
        local out_dir = DIR .. "/out/hostile"
        write_file(DIR .. "/hostile.lua", code)
        local c, _, err = sh(q(BIN) .. " run --sandbox --max-memory 64M --out " .. q(out_dir) .. " "
                             .. q(DIR .. "/hostile.lua"))
        assert.are.equal(3, c, err)
        -- the documented lines, the number of bytes in use aside
        local shown = assert(doc:match("\nricochet: error: (memory limit exceeded: [^\n]*)\n", i))
        local function pattern(line)
            line = line:gsub("with [%d%.]+ (%a+B) in use", "with \0 %1 in use")
            line = line:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")
            return (line:gsub("%z", "[%%d%%.]+"))
        end
        assert.matches("ricochet: error: " .. pattern(shown), err)
        assert.matches("ricochet: (the limit is --max-memory 64M)", err, 1, true)
        local json = read_file(out_dir .. "/run.json")
        assert.matches('"status": "error"', json, 1, true)
        assert.matches('"complete": false', json, 1, true)
        assert.matches('"message": "' .. pattern(shown) .. '"', json)
    end)

    it("the host of the example compiles and runs a scenario, refusing an escape", function()
        local i = assert(doc:find("## Embedding: what a host must set", 1, true))
        local code = assert(doc:match("```c\n(.-)```", i))
        local build = BIN:match("^(.*)/[^/]*$") or "."
        local src, exe = DIR .. "/host.c", DIR .. "/host"
        write_file(src, code .. [[

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i + 2 < argc; i += 3) bad += run_user_scenario(argv[i], argv[i + 1], argv[i + 2]);
    return bad;
}
]])
        local c, _, err = sh("cc -std=c11 -O1 " .. (os.getenv("RC_TEST_CFLAGS") or "") .. " -I" .. q(ROOT .. "/src") .. " -I/usr/include/lua5.4 " .. q(src)
                             .. " " .. q(build .. "/libricochet_luahost.a") .. " " .. q(build .. "/libricochet.a")
                             .. " -llua5.4 -lklu -llapacke -llapack -lz -lm -ldl -fopenmp -o " .. q(exe))
        assert.are.equal(0, c, err)
        local user = DIR .. "/host_user"
        assert(os.execute("mkdir -p " .. q(user)))
        local out = DIR .. "/host_out"
        -- a host gives no rc.options(): the scenes name their output folders
        local scene = SCENE:gsub("rc.options%(%).out", "...")
        write_file(user .. "/ok.lua", scene:gsub("%.%.%.", "'" .. out .. "/ok'") .. "sim:run{ T = 0.05 }\n")
        write_file(user .. "/evil.lua", "os.execute('true')\n")
        write_file(user .. "/loop.lua", scene:gsub("%.%.%.", "'" .. out .. "/loop'")
                   .. "coroutine.wrap(function() while true do end end)()\n")
        c, _, err = sh("cd " .. q(ROOT) .. " && " .. q(exe) .. " " .. q(user .. "/ok.lua") .. " " .. q(user) .. " "
                       .. q(out .. "/ok") .. " " .. q(user .. "/evil.lua") .. " " .. q(user) .. " " .. q(out .. "/evil")
                       .. " " .. q(user .. "/loop.lua") .. " " .. q(user) .. " " .. q(out .. "/loop"))
        assert.are.equal(2, c, err)   -- two of three failed
        assert.matches("evil.lua: error: " .. user .. "/evil.lua:1: os.execute is not available in the sandbox", err, 1, true)
        assert.matches("loop.lua: limit: instruction limit exceeded: the run executed more than 200000000 Lua "
                       .. "instructions (at " .. user .. "/loop.lua:6)", err, 1, true)
        assert.matches('"status": "complete"', read_file(out .. "/ok/run.json"), 1, true)
        assert.matches('"status": "error"', read_file(out .. "/loop/run.json"), 1, true)
    end)
end)
