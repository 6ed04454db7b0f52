-- output_end_spec.lua -- every way a run can end leaves valid, marked output
-- (src/io/output.c, src/cli/cli.c, lua/ricochet/program.lua, src/io/vtk.c): signals,
-- os.exit, write errors, an aborted sim:run, the folder lock, names. The files
-- are read back afterwards by an independent reader (tests/spec/output_check.py:
-- Python's json in strict mode, gzip, xml).
local BIN = assert(os.getenv("RICOCHET_BIN"), "RICOCHET_BIN is not set")
local ROOT = os.getenv("RICOCHET_ROOT") or "."
local CHECK = ROOT .. "/tests/spec/output_check.py"

local H = require "sh_helper"   -- quoting, temporary folders, files, commands
local q, tmpdir, read_file, write_file, sh, exists = H.q, H.tmpdir, H.read_file, H.write_file, H.sh, H.exists

-- The findings of output_check.py as a table of strings.
local function check(what, path, extra)
    local p = io.popen("python3 " .. q(CHECK) .. " " .. what .. " " .. q(path)
                       .. (extra and (" " .. extra) or "") .. " 2>&1")
    local r = {}
    for line in p:lines() do
        local k, v = line:match("^([%w_]+)=(.*)$")
        if k then r[k] = v else r._other = (r._other or "") .. line .. "\n" end
    end
    p:close()
    return r
end

local H = 1e-3

-- A bouncing ball, h = 1e-3, T = 1 (1000 steps); ACTION runs in after_step
-- at step AT. pid() is the program's own process id (/proc/self).
local function scene(action, at, extra)
    return ([[
local rc = require "ricochet"
local function pid()
  local f = assert(io.open("/proc/self/stat"))
  local p = f:read("n")
  f:close()
  return math.tointeger(p)
end
local function signal(name) io.popen("kill -" .. name .. " " .. pid()):close() end
local w = rc.world{ gravity = { 0, -10 } }
local ball = w:body{ name = "ball", mass = 1, inertia = 0.1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.5 } }
w:halfplane{}
w:contact{ ball, w.ground, law = rc.newton{ e = 0.9 }, name = "C" }
local sim = w:simulation{ h = 1e-3 }
%s
sim:after_step(function(s)
  if s.steps == %d then
    %s
  end
end)
sim:run{ T = 1 }
]]):format(extra or "", at, action)
end

local function script(text)
    local dir = tmpdir()
    local path = dir .. "/scene.lua"
    write_file(path, text)
    return path, dir
end

local function run_cli(path, out, args)
    return sh(q(BIN) .. " run " .. q(path) .. " --quiet --out " .. q(out) .. " " .. (args or ""))
end

-- run.json and the history of a run stopped after step `at`: strict JSON,
-- the status, a complete gzip stream with every row up to that step and the
-- "# incomplete" line last.
local function assert_marked(out, status, at)
    local j = check("json", out .. "/run.json")
    assert.are.equal("true", j.valid, j.error)
    assert.are.equal(status, j.status)
    assert.are.equal("false", j.complete)
    assert.are.equal("1", j.T)
    assert.are.equal(tostring(at), j.steps)
    local g = check("gz", out .. "/history.csv.gz", H)
    assert.are.equal("ok", g.gzip)
    assert.are.equal("ok", g.utf8)
    assert.are.equal(tostring(at + 1), g.rows)          -- the state at open + one per step
    assert.are.equal("true", g.steps_consecutive)
    assert.are.equal(j.rows, g.rows)
    assert.are.equal("1", g.marks)
    assert.matches("^# incomplete: " .. status .. ": ", g.last)
    assert.is_false(exists(out .. "/run.lock"))          -- the lock is released
    return j, g
end

describe("a run ended by a signal", function()
    for _, c in ipairs({ { "TERM", 15 }, { "HUP", 1 }, { "INT", 2 } }) do
        local name, signo = c[1], c[2]
        it("SIG" .. name .. ": exit 128 + " .. signo .. ", outputs closed \"interrupted\" with the signal", function()
            local path, dir = script(scene(("signal(%q)"):format(name), 500))
            local out = dir .. "/o"
            local code, _, err = run_cli(path, out)
            assert.are.equal(128 + signo, code, err)
            assert.matches("ricochet: interrupted by SIG" .. name, err, 1, true)
            local j, g = assert_marked(out, "interrupted", 500)
            assert.are.equal("SIG" .. name, j.signal)
            assert.are.equal("null", j.exit_code)
            assert.matches("SIG" .. name, j.message, 1, true)
            assert.matches("SIG" .. name, g.last, 1, true)
            assert.are.equal("0.5", g.t_last)
        end)
    end

    it("stops a Lua loop inside a callback (SIGTERM)", function()
        local path, dir = script(scene('signal("TERM") while true do end', 300))
        local out = dir .. "/o"
        local code, _, err = run_cli(path, out)
        assert.are.equal(143, code, err)
        local j = assert_marked(out, "interrupted", 300)
        assert.are.equal("SIGTERM", j.signal)
    end)

    it("stops the kernel between steps (SIGTERM from outside, no callback running)", function()
        local path, dir = script([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
local ball = w:body{ name = "ball", mass = 1, inertia = 0.1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.5 } }
w:halfplane{}
w:contact{ ball, w.ground, law = rc.newton{ e = 0.9 }, name = "C" }
local sim = w:simulation{ h = 1e-4 }
sim:output{ dir = arg[1], every = 100 }
io.stdout:write("started\n") io.stdout:flush()
sim:run{ T = 1e5 }   -- 1e9 steps: the limit of one run (rc.MAX_RUN_STEPS)
]])
        local out = dir .. "/o"
        -- the signal is sent once the output is open (no timing)
        local cmd = q(BIN) .. " run " .. q(path) .. " --quiet -- " .. q(out)
                    .. " > " .. q(dir .. "/stdout") .. " & p=$!; n=0; while ! grep -q started "
                    .. q(dir .. "/stdout") .. " && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done;"
                    .. " kill -TERM $p; wait $p; echo $? > " .. q(dir .. "/code")
        sh("(" .. cmd .. ")")
        assert.are.equal("143", (read_file(dir .. "/code") or ""):match("%d+"))
        local j = check("json", out .. "/run.json")
        assert.are.equal("true", j.valid, j.error)
        assert.are.equal("interrupted", j.status)
        assert.are.equal("SIGTERM", j.signal)
        local g = check("gz", out .. "/history.csv.gz", 100 * 1e-4)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("true", g.steps_consecutive)
        assert.are.equal(j.rows, g.rows)
        assert.matches("^# incomplete: interrupted: ", g.last)
    end)

    it("closes a VTK series marked as interrupted (valid .pvd files)", function()
        local path, dir = script(scene('signal("TERM")', 500, ('sim:vtk{ dir = %q, every = 100 }'):format("VTKDIR")))
        local vtk = dir .. "/vtk"
        write_file(path, read_file(path):gsub("VTKDIR", vtk))
        local code, _, err = run_cli(path, dir .. "/o")
        assert.are.equal(143, code, err)
        for _, f in ipairs({ "series", "grains", "contacts", "shapes" }) do
            local x = check("xml", vtk .. "/" .. f .. ".pvd")
            assert.are.equal("ok", x.xml, f)
            assert.are.equal(f == "series" and "18" or "6", x.datasets)   -- frames 0, 100, ..., 500
            assert.matches("^ricochet: incomplete: interrupted: ", x.comment)
        end
    end)
end)

describe("a VTK series over several runs", function()
    it("a stopped run marks it, a later complete run clears the mark, the end closes it", function()
        local path, dir = script([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:body{ name = "b", mass = 1, inertia = 1, q = { 0, 1, 0 } }
local sim = w:simulation{ h = 1e-3 }
sim:vtk{ dir = arg[1], every = 1000 }
local stop = true
sim:after_step(function(s) if stop and s.steps == 5 then s:stop() end end)
sim:run{ T = 0.01 }
local f = assert(io.open(arg[1] .. "/series.pvd"))
print(f:read("a"))
f:close()
stop = false
sim:run{ T = 0.02 }
f = assert(io.open(arg[1] .. "/series.pvd"))
print(f:read("a"))
f:close()
]])
        local vtk = dir .. "/vtk"
        local code, out, err = sh(q(BIN) .. " run " .. q(path) .. " --quiet -- " .. q(vtk))
        assert.are.equal(0, code, err)
        local first, second = out:match("^(.-</VTKFile>)(.*)$")
        assert.matches("<!-- ricochet: incomplete: stopped -->", first, 1, true)
        assert.matches("<!-- ricochet: running -->", second, 1, true)
        local x = check("xml", vtk .. "/series.pvd")
        assert.are.equal("ok", x.xml)
        assert.are.equal("3", x.datasets)   -- the frame at t = 0
        assert.is_nil(x.comment)            -- closed after a complete run
    end)
end)

describe("os.exit from a script", function()
    it("in the program: outputs closed \"exited\" with the code, then the code", function()
        local path, dir = script(scene("os.exit(3)", 500))
        local out = dir .. "/o"
        local code, _, err = run_cli(path, out)
        assert.are.equal(3, code, err)
        local j, g = assert_marked(out, "exited", 500)
        assert.are.equal("3", j.exit_code)
        assert.are.equal("null", j.signal)
        assert.matches("os.exit(3)", j.message, 1, true)
        assert.are.equal("0.5", g.t_last)
    end)

    it("os.exit(true) and os.exit(false): codes 0 and 1", function()
        for arg, want in pairs({ ["true"] = 0, ["false"] = 1 }) do
            local path, dir = script(scene("os.exit(" .. arg .. ")", 10))
            local code, _, err = run_cli(path, dir .. "/o")
            assert.are.equal(want, code, err)
            local j = assert_marked(dir .. "/o", "exited", 10)
            assert.are.equal(tostring(want), j.exit_code)
        end
    end)

    it("in plain lua5.4 (the module): the same", function()
        local path, dir = script(scene("os.exit(4)", 500):gsub("sim:run{ T = 1 }", "sim:run{ T = 1, out = arg[1] }"))
        local out = dir .. "/o"
        local code, _, err = sh("lua5.4 " .. q(path) .. " " .. q(out))
        assert.are.equal(4, code, err)
        local j = assert_marked(out, "exited", 500)
        assert.are.equal("4", j.exit_code)
    end)

    it("an output opened with sim:output and a VTK series are closed too", function()
        local path, dir = script(([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:body{ name = "b", mass = 1, inertia = 1, q = { 0, 1, 0 } }
local sim = w:simulation{ h = 1e-3 }
sim:output{ dir = %q }
sim:vtk{ dir = %q, every = 5 }
for _ = 1, 20 do sim:step() end
os.exit(0)
]]):format("OUT", "VTK"))
        write_file(path, read_file(path):gsub("OUT", dir .. "/o"):gsub("VTK", dir .. "/vtk"))
        local code, _, err = sh(q(BIN) .. " run " .. q(path) .. " --quiet")
        assert.are.equal(0, code, err)
        local j = check("json", dir .. "/o/run.json")
        assert.are.equal("true", j.valid, j.error)
        assert.are.equal("exited", j.status)
        assert.are.equal("0", j.exit_code)
        local g = check("gz", dir .. "/o/history.csv.gz", H)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("21", g.rows)
        local x = check("xml", dir .. "/vtk/series.pvd")
        assert.are.equal("ok", x.xml)
        assert.are.equal("15", x.datasets)
        assert.matches("^ricochet: incomplete: exited: ", x.comment)
    end)
end)

describe("a write error", function()
    it("at open (history.csv.gz -> /dev/full): exit 1, run.json records it", function()
        local path, dir = script(scene("", 1))
        local out = dir .. "/o"
        assert(os.execute("mkdir -p " .. q(out) .. " && ln -s /dev/full " .. q(out .. "/history.csv.gz")))
        local code, _, err = run_cli(path, out)
        assert.are.equal(1, code, err)
        assert.matches("No space left on device", err, 1, true)
        local j = check("json", out .. "/run.json")
        assert.are.equal("true", j.valid, j.error)
        assert.are.equal("error", j.status)
        assert.are.equal("false", j.complete)
        assert.matches("history.csv.gz: No space left on device", j.message, 1, true)
        assert.is_false(exists(out .. "/run.lock"))
    end)

    it("mid-run (file size limit): run.json records it, the history is a complete gzip stream", function()
        local path, dir = script(scene("", 1):gsub("T = 1 }", "T = 1e4 }"))
        local out = dir .. "/o"
        -- 512 KiB: the history reaches it after several sync flushes
        local code, _, err = sh("bash -c " .. q("ulimit -f 512; exec " .. q(BIN) .. " run " .. q(path)
                                               .. " --quiet --out " .. q(out)))
        assert.are.equal(1, code, err)
        assert.matches("File too large", err, 1, true)
        local j = check("json", out .. "/run.json")
        assert.are.equal("true", j.valid, j.error)
        assert.are.equal("error", j.status)
        assert.are.equal("false", j.complete)
        assert.matches("history.csv.gz: File too large", j.message, 1, true)
        local g = check("gz", out .. "/history.csv.gz", H)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("true", g.steps_consecutive)
        assert.are.equal(j.rows, g.rows)
        assert.is_true(tonumber(g.rows) > 4096)
        assert.matches("^# incomplete: error: .*File too large", g.last)
    end)
end)

describe("an aborted sim:run", function()
    it("the world closed inside a callback: \"aborted\", not complete; run.json has T", function()
        local path, dir = script(scene("w:close()", 5))
        local out = dir .. "/o"
        local code, _, err = run_cli(path, out)
        assert.are.equal(1, code, err)
        assert.matches("the world has been closed", err, 1, true)
        local j = check("json", out .. "/run.json")
        assert.are.equal("true", j.valid, j.error)
        assert.are.equal("aborted", j.status)
        assert.are.equal("false", j.complete)
        assert.are.equal("1", j.T)
        assert.are.equal("0.005", j.t_final)
        assert.matches("before the end of the run (T = 1)", j.message, 1, true)
        local g = check("gz", out .. "/history.csv.gz", H)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("6", g.rows)
        assert.matches("^# incomplete: aborted: ", g.last)
    end)

    it("a complete run records T and status complete", function()
        local path, dir = script(scene("", 1))
        local out = dir .. "/o"
        local code, _, err = run_cli(path, out)
        assert.are.equal(0, code, err)
        local j = check("json", out .. "/run.json")
        assert.are.equal("true", j.valid, j.error)
        assert.are.equal("complete", j.status)
        assert.are.equal("true", j.complete)
        assert.are.equal("1", j.T)
        assert.are.equal("null", j.signal)
        assert.are.equal("null", j.exit_code)
        local g = check("gz", out .. "/history.csv.gz", H)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("1001", g.rows)
        assert.are.equal("0", g.marks)
        assert.is_false(exists(out .. "/run.lock"))
    end)
end)

describe("the output folder lock", function()
    it("refuses a second program writing the same folder, naming the writer's pid", function()
        local dir = tmpdir()
        local out = dir .. "/o"
        local second = dir .. "/second.lua"
        write_file(second, scene("", 1))
        local path = dir .. "/first.lua"
        write_file(path, scene(([[
    print("pid " .. pid())
    local p = io.popen(%q)
    print(p:read("a"))
    local _, _, code = p:close()
    print("code " .. code)]]):format(q(BIN) .. " run " .. q(second) .. " --quiet --out " .. q(out) .. " 2>&1"), 10))
        local code, stdout, err = run_cli(path, out)
        assert.are.equal(0, code, err)
        local pid = stdout:match("pid (%d+)")
        assert.is_truthy(pid)
        assert.are.equal("1", stdout:match("code (%d+)"))
        assert.matches("output folder '" .. out .. "' is locked by process " .. pid, stdout, 1, true)
        assert.matches(out .. "/run.lock", stdout, 1, true)
        -- the first run is intact
        local j = check("json", out .. "/run.json")
        assert.are.equal("complete", j.status)
        local g = check("gz", out .. "/history.csv.gz", H)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("1001", g.rows)
        assert.are.equal("true", g.steps_consecutive)
        assert.is_false(exists(out .. "/run.lock"))
    end)

    it("refuses a second world of the same process", function()
        local path, dir = script([[
local rc = require "ricochet"
local out = arg[1]
local function world()
  local w = rc.world{}
  w:body{ name = "b", mass = 1, inertia = 1 }
  return w:simulation{ h = 0.01 }
end
local s1, s2 = world(), world()
s1:output{ dir = out }
s1:step()
local ok, err = pcall(s2.run, s2, { T = 0.1, out = out .. "/" })
print(ok, err)
s1:step()
s1:close_output()
]])
        local out = dir .. "/o"
        local code, stdout, err = sh(q(BIN) .. " run " .. q(path) .. " --quiet -- " .. q(out))
        assert.are.equal(0, code, err)
        assert.matches("false", stdout, 1, true)
        assert.matches("is locked by this process (pid ", stdout, 1, true)
        local g = check("gz", out .. "/history.csv.gz", 0.01)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("3", g.rows)
        assert.are.equal("true", g.steps_consecutive)
        assert.are.equal("complete", check("json", out .. "/run.json").status)
    end)

    it("takes over a stale lock (its process is gone) and says so", function()
        local path, dir = script(scene("", 1))
        local out = dir .. "/o"
        assert(os.execute("mkdir -p " .. q(out)))
        local p = io.popen("sh -c 'echo $$'")   -- a process that has ended
        local dead = p:read("l")
        p:close()
        write_file(out .. "/run.lock", dead .. "\n")
        local code, _, err = run_cli(path, out)
        assert.are.equal(0, code, err)
        assert.matches("stale lock", err, 1, true)
        assert.matches("process " .. dead, err, 1, true)
        assert.are.equal("complete", check("json", out .. "/run.json").status)
        assert.is_false(exists(out .. "/run.lock"))
    end)
end)

describe("names in the output", function()
    it("refuses a body name that is not UTF-8", function()
        local path, dir = script(scene("", 1):gsub('name = "ball"', 'name = "b\\xff"'))
        local code, _, err = run_cli(path, dir .. "/o")
        assert.are.equal(1, code, err)
        assert.matches("body name 'b\\xff' is not valid UTF-8", err, 1, true)
    end)

    it("escapes parameters, messages and the script path that are not UTF-8", function()
        local dir = tmpdir()
        local path = dir .. "/sc\255ne.lua"
        write_file(path, [[
local rc = require "ricochet"
local tag = rc.param("tag", "x")
local w = rc.world{ gravity = { 0, -10 } }
w:body{ name = "b", mass = 1, inertia = 1, q = { 0, 1, 0 } }
local sim = w:simulation{ h = 1e-3 }
sim:after_step(function(s) if s.steps == 3 then error("bad \255 byte", 0) end end)
sim:run{ T = 1 }
]])
        local out = dir .. "/o"
        local code, _, err = sh(q(BIN) .. " run " .. q(path) .. " --quiet --out " .. q(out)
                                .. " --set " .. q("tag=\254\"x"))
        assert.are.equal(1, code, err)
        local j = check("json", out .. "/run.json")
        assert.are.equal("true", j.valid, j.error)
        assert.are.equal("error", j.status)
        assert.are.equal("bad \\\\xff byte", j.message)          -- one_line doubles the backslash
        assert.matches("sc\\\\xffne.lua", j.scenario, 1, true)
        assert.are.equal('{"tag": "\\\\xfe\\"x"}', j.params)
        local g = check("gz", out .. "/history.csv.gz", H)
        assert.are.equal("ok", g.gzip)
        assert.are.equal("ok", g.utf8)
        assert.are.equal("# incomplete: error: bad \\\\xff byte", g.last)
    end)

    it("refuses a rule C (columns C1..C4) beside a rule C2: a duplicate column", function()
        local path, dir = script([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{}
local box = w:body{ name = "box", mass = 1, inertia = 1, q = { 0, 0.6, 0 }, shape = rc.box{ 1, 1 } }
local ball = w:body{ name = "ball", mass = 1, inertia = 1, q = { 3, 0.6, 0 }, shape = rc.disk{ radius = 0.5 } }
w:contact{ w.ground, box, law = rc.newton{}, name = "C" }
w:contact{ w.ground, ball, law = rc.newton{}, name = "C2" }
local sim = w:simulation{ h = 1e-3 }
sim:run{ T = 0.01 }
]])
        local code, _, err = run_cli(path, dir .. "/o")
        assert.are.equal(1, code, err)
        assert.matches("duplicate column 'C2.gN': named contacts 2 and 5 are both called 'C2'", err, 1, true)
    end)
end)

describe("docs/getting-started.md", function()
    it("the file size limit example gives what the page says", function()
        local f = assert(io.open(ROOT .. "/docs/getting-started.md"))
        local doc = f:read("a")
        f:close()
        local block = doc:match("%*%*A full disk%.%*%*.-```sh\n(.-)```")
        assert.is_truthy(block)
        local dir = tmpdir()
        local cmd = block:gsub("build/ricochet", BIN):gsub("scripts/examples/", ROOT .. "/scripts/examples/")
        local lines = {}
        for line in cmd:gmatch("[^\n]+") do lines[#lines + 1] = line end
        -- the first command (two lines), then each check with its documented result
        local run = (lines[1] .. "\n" .. lines[2]):gsub("%s+#[^\n]*$", "")
        local code = sh("cd " .. q(dir) .. " && " .. run)
        assert.are.equal(tonumber(lines[2]:match("# exit (%d+)")), code)
        for i = 3, #lines do
            local check, want = lines[i]:match("^(.-)%s+# (.*)$")
            local p = io.popen("cd " .. q(dir) .. " && " .. check)
            local got = p:read("a")
            p:close()
            if want:find("^# incomplete") then
                local prefix, suffix = want:match("^(.-)%.%.%.: (.*)$")
                assert.matches(prefix, got, 1, true)
                assert.matches(suffix .. "\n$", got)
            else
                for word in want:gmatch("[^, ]+") do assert.matches(word, got, 1, true) end
            end
        end
    end)
end)
