-- history_binary_spec.lua -- the binary history (sim:output{ format = "binary" },
-- --format binary: DIR/history.bin, src/io/output_bin.c): the same run written in
-- both formats gives the same values (the binary file holds the run's exact
-- doubles, the CSV their %.15g text), its conversion is the CSV file's text byte
-- for byte, a file cut short or still open reads up to its last whole row, an
-- incomplete run says why, bad formats name the argument, the program's options,
-- `ricochet convert`, plot and a restarted run.
local rc = require "ricochet"
local history = require "ricochet.history"
local plot = require "ricochet.plot"
local H = require "sh_helper"
local q, tmpdir, read_file, write_file, sh = H.q, H.tmpdir, H.read_file, H.write_file, H.sh
local BIN, ROOT = H.BIN, H.ROOT

-- A box rocking on the ground (named contact C: 4 contact groups, NaN while a
-- vertex is out of contact), a disk removed at t = 0.05 (its columns NaN from
-- then on), a pendulum on a revolute joint (joint force columns).
local function scene()
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
    local box = w:body{ name = "box", mass = 1, inertia = 1 / 6, q = { 0, 0.56, 0.1 }, v = { 0.3, 0, 1 },
                        shape = rc.box{ 1, 1 } }
    w:contact{ w.ground, box, law = rc.newton{ e = 0.5, mu = 0.3 }, name = "C" }
    local disk = w:body{ name = "disk", mass = 1, inertia = 0.01, q = { 3, 1, 0 }, shape = rc.disk{ 0.2 } }
    local bob = w:body{ name = "bob", mass = 1, inertia = 0.01, q = { 6, 1, 0 }, shape = rc.disk{ 0.1 } }
    w:revolute{ w.ground, bob, at = { 5, 1 }, name = "pin" }
    local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-10, max_iter = 1000 } }
    return w, sim, box, disk
end

-- Runs the scene to T with its history in dir (sim:run's out, format); the disk is removed
-- after the step that reaches t = 0.05; stop_at: sim:stop() after that step.
-- Returns what the run's callbacks saw: t and box.x after each step.
local function run(dir, format, T, stop_at)
    local w, sim, box, disk = scene()
    local seen = { t = { 0 }, x = { box:q()[1] } }
    sim:after_step(function(s)
        seen.t[#seen.t + 1] = s.t
        seen.x[#seen.x + 1] = box:q()[1]
        if math.abs(s.t - 0.05) < 1e-9 then disk:remove() end
        if stop_at and math.abs(s.t - stop_at) < 1e-9 then s:stop() end
    end)
    sim:run{ T = T, out = dir, format = format }
    w:close()
    return seen
end

local function same(a, b)   -- equal, NaN equal to NaN
    return a == b or (a ~= a and b ~= b)
end

describe("the binary history", function()
    local dir
    setup(function() dir = tmpdir() end)
    teardown(function() os.execute("rm -rf " .. q(dir)) end)

    it("holds the CSV file's values unrounded: %.15g of each is the CSV's; exactly the run's; NaN for a removed body", function()
        local seen = run(dir .. "/bin", "binary", 0.2)
        run(dir .. "/csv", "csv", 0.2)
        assert.is_nil(read_file(dir .. "/bin/history.csv.gz"))
        assert.is_nil(read_file(dir .. "/csv/history.bin"))
        local b, c = history.read(dir .. "/bin"), history.read(dir .. "/csv")
        assert.are.equal("binary", b.format)
        assert.are.equal(dir .. "/bin/history.bin", b.file)
        assert.are.same(c.names, b.names)
        assert.are.equal(201, b.n)
        assert.are.equal(c.n, b.n)
        assert.is_true(b.complete)
        assert.are.same({}, b.notes)
        local nan, checked = 0, 0
        for _, name in ipairs(b.names) do
            for i = 1, b.n do
                local x, y = b.cols[name][i], c.cols[name][i]
                if x ~= x then
                    assert.is_true(y ~= y, name .. " row " .. i)
                    nan = nan + 1
                else   -- (so within half a unit of the 15th digit: 5e-15 relative)
                    assert.are.equal(tonumber(("%.15g"):format(x)), y, ("%s row %d: %.17g %.17g"):format(name, i, x, y))
                    assert.is_true(math.abs(x - y) <= 5e-15 * math.abs(x))
                    checked = checked + 1
                end
            end
        end
        assert.is_true(nan > 150 * 6)   -- the disk's 6 columns after its removal, the contacts out of contact
        assert.is_true(checked > 201 * 20)
        for i = 1, b.n do   -- the binary values are the run's doubles, not rounded
            assert.are.equal(seen.t[i], b.cols.t[i])
            assert.are.equal(seen.x[i], b.cols["box.x"][i])
        end
        assert.is_true(b.cols["disk.x"][50] == 3 and b.cols["disk.x"][52] ~= b.cols["disk.x"][52])
        assert.is_true(b.cols["pin.f1"][100] < -1)   -- the pin pulls the swinging bob towards it
        -- run.json names the file
        assert.matches('"history": "history.bin",', read_file(dir .. "/bin/run.json"), 1, true)
        assert.matches('"history": "history.csv.gz",', read_file(dir .. "/csv/run.json"), 1, true)
        assert.matches('"rows": 201,', read_file(dir .. "/bin/run.json"), 1, true)
    end)

    it("converts to the CSV file's text byte for byte; plot.read_history reads both", function()
        local out, rows = history.convert(dir .. "/bin")
        assert.are.equal(dir .. "/bin/history.csv.gz", out)
        assert.are.equal(201, rows)
        local _, a = sh("zcat " .. q(out))
        local _, b = sh("zcat " .. q(dir .. "/csv/history.csv.gz"))
        assert.is_true(#a > 10000)
        assert.are.equal(b, a)
        -- the folder now holds both: run.json says which is the run's
        assert.are.equal("binary", plot.read_history(dir .. "/bin").format)
        assert.are.equal("csv", plot.read_history(out).format)
        assert.are.same(plot.read_history(dir .. "/bin/history.bin").names, plot.read_history(out).names)
    end)

    it("an incomplete run: the trailer says why, in the file and once converted", function()
        run(dir .. "/sb", "binary", 0.2, 0.1)
        run(dir .. "/sc", "csv", 0.2, 0.1)
        local b = history.read(dir .. "/sb")
        assert.are.equal(101, b.n)
        assert.is_false(b.complete)
        assert.are.same({ "incomplete: stopped" }, b.notes)
        assert.are.same(history.read(dir .. "/sc").notes, b.notes)
        history.convert(dir .. "/sb")
        local _, x = sh("zcat " .. q(dir .. "/sb/history.csv.gz"))
        local _, y = sh("zcat " .. q(dir .. "/sc/history.csv.gz"))
        assert.are.equal(y, x)
        assert.matches("\n# incomplete: stopped\n$", x)
    end)

    it("a file cut inside a row, or still being written, reads up to its last whole row", function()
        local data = assert(read_file(dir .. "/bin/history.bin"))
        local ncols, hsize = string.unpack("<I4I4", data, 17)
        write_file(dir .. "/cut.bin", data:sub(1, hsize + 8 * ncols * 7 + 20))   -- 7 rows and 20 bytes
        local h = history.read(dir .. "/cut.bin")
        assert.are.equal(7, h.n)
        assert.is_false(h.complete)
        assert.are.same({ "incomplete: error: the history is cut short (7 of its 201 rows)" }, h.notes)
        local full = history.read(dir .. "/bin")
        for _, name in ipairs(h.names) do
            for i = 1, 7 do assert.is_true(same(full.cols[name][i], h.cols[name][i])) end
        end
        local out, rows = history.convert(dir .. "/cut.bin", dir .. "/cut.csv.gz")
        assert.are.equal(7, rows)
        local _, text = sh("zcat " .. q(out))
        assert.matches("\n# incomplete: error: the history is cut short %(7 of its 201 rows%)\n$", text)
        write_file(dir .. "/head.bin", data:sub(1, hsize - 3))   -- the header cut short
        local ok, err = pcall(history.read, dir .. "/head.bin")
        assert.is_false(ok)
        assert.matches("ricochet.history.read: '" .. dir .. "/head.bin' is not a binary history (its header is corrupted)", err, 1, true)
        write_file(dir .. "/text.bin", "t,E\n0,1\n")
        ok, err = pcall(history.convert, dir .. "/text.bin")
        assert.matches("ricochet.history.convert: '" .. dir .. "/text.bin' is not a binary history: shorter than its 40-byte header", err, 1, true)
        -- an output still open (the header says so): the rows flushed so far
        local w, sim = scene()
        sim:output{ dir = dir .. "/open", format = "binary" }
        sim:run{ T = 0.5, out = nil }   -- (sim:output's folder: rows buffered by 64 KiB)
        h = history.read(dir .. "/open")
        local ncol = #h.names
        local per = math.floor(65536 / (8 * ncol))   -- rows per 64 KiB written
        assert.are.equal(1 + per * math.floor(499 / per), h.n)   -- the first row (flushed at open), whole buffers
        assert.is_false(h.complete)
        assert.matches("^incomplete: running: the history has no end record", h.notes[1])
        sim:close_output()
        h = history.read(dir .. "/open")
        assert.are.equal(501, h.n)
        assert.is_true(h.complete)
        w:close()
    end)

    it("bad formats raise an error naming the argument", function()
        local w, sim = scene()
        local ok, err = pcall(sim.output, sim, { dir = dir .. "/bad", format = "bin" })
        assert.is_false(ok)
        assert.matches("sim:output: 'format' must be one of \"csv\", \"binary\" (got 'bin')", err, 1, true)
        ok, err = pcall(sim.run, sim, { T = 0.01, out = dir .. "/bad", format = 1 })
        assert.matches("sim:run: 'format' must be one of \"csv\", \"binary\" (got 1)", err, 1, true)
        ok, err = pcall(sim.run, sim, { T = 0.01, format = "binary" })
        assert.matches("sim:run: 'format' needs an output folder: give out = \"DIR\" (or run with --out DIR)", err, 1, true)
        ok, err = pcall(rc.set_options, { format = "gz" })
        assert.matches("rc.set_options: 'format' must be one of \"csv\", \"binary\" (got 'gz')", err, 1, true)
        ok, err = pcall(rc.sandbox, { script = "x.lua", format = true })
        assert.matches("rc.sandbox: 'format' must be one of \"csv\", \"binary\" (got true)", err, 1, true)
        w:close()
    end)

    it("a folder written in one format and then the other holds the last run's file only", function()
        run(dir .. "/swap", "csv", 0.01)
        assert.is_truthy(read_file(dir .. "/swap/history.csv.gz"))
        run(dir .. "/swap", "binary", 0.01)
        assert.is_nil(read_file(dir .. "/swap/history.csv.gz"))
        assert.are.equal(11, history.read(dir .. "/swap").n)
    end)
end)

describe("ricochet run --format, ricochet convert", function()
    local dir, script
    setup(function()
        dir = tmpdir()
        script = dir .. "/block.lua"
        write_file(script, [[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local b = w:body{ name = "block", mass = 1, inertia = 1 / 6, q = { 0, 0.6, 0 }, v = { 0, -0.2, 1 }, shape = rc.box{ 1, 1 } }
w:contact{ w.ground, b, law = rc.newton{ e = 0.5, mu = 0.1 }, name = "C" }
w:simulation{ h = 1e-3 }:run{ T = rc.param("T", 0.3) }
]])
    end)
    teardown(function() os.execute("rm -rf " .. q(dir)) end)

    it("--format binary writes history.bin; convert gives --format csv's text; plot reads it", function()
        local code, o, e = sh(q(BIN) .. " run " .. q(script) .. " --quiet --every 2 --format binary --out " .. q(dir .. "/b"))
        assert.are.equal(0, code, e)
        assert.is_nil(read_file(dir .. "/b/history.csv.gz"))
        code, o, e = sh(q(BIN) .. " run " .. q(script) .. " --quiet --every 2 --format=csv --out " .. q(dir .. "/c"))
        assert.are.equal(0, code, e)
        code, o, e = sh(q(BIN) .. " convert " .. q(dir .. "/b"))
        assert.are.equal(0, code, e)
        assert.are.equal("ricochet convert: wrote " .. dir .. "/b/history.csv.gz (151 rows)\n", o)
        local _, x = sh("zcat " .. q(dir .. "/b/history.csv.gz"))
        local _, y = sh("zcat " .. q(dir .. "/c/history.csv.gz"))
        assert.are.equal(y, x)
        os.remove(dir .. "/b/history.csv.gz")
        code, o, e = sh(q(BIN) .. " plot " .. q(dir .. "/b") .. " block.y")
        assert.are.equal(0, code, e)
        assert.matches("wrote " .. dir .. "/b/plot.svg (block.y)", o, 1, true)
        code, o, e = sh(q(BIN) .. " view " .. q(dir .. "/b"))
        assert.are.equal(0, code, e)
        assert.matches("history 4[0-9] kB", o)   -- 151 rows of 39 columns, 8 bytes each
    end)

    it("usage errors: --format's value, convert without a binary history", function()
        local code, _, e = sh(q(BIN) .. " run " .. q(script) .. " --format xml --out " .. q(dir .. "/x"))
        assert.are.equal(2, code)
        assert.matches("ricochet: --format needs csv or binary (got 'xml')", e, 1, true)
        code, _, e = sh(q(BIN) .. " convert " .. q(dir .. "/c"))
        assert.are.equal(1, code)
        assert.matches("ricochet convert: error: cannot open " .. dir .. "/c/history.bin: No such file or directory", e, 1, true)
        code, _, e = sh(q(BIN) .. " convert")
        assert.are.equal(2, code)
        assert.matches("ricochet convert: missing OUT", e, 1, true)
        local o
        code, o = sh(q(BIN) .. " help")
        assert.matches("--format FORMAT", o, 1, true)
        assert.matches("convert OUT", o, 1, true)
    end)

    it("a restarted run's binary history continues the first one's rows exactly", function()
        local run = q(BIN) .. " run " .. q(script) .. " --quiet --format binary "
        assert.are.equal(0, (sh(run .. "--set T=0.4 --out " .. q(dir .. "/ref"))))
        assert.are.equal(0, (sh(run .. "--set T=0.2 --checkpoint-every 100 --out " .. q(dir .. "/r1"))))
        local code, _, e = sh(run .. "--set T=0.4 --restart " .. q(dir .. "/r1/checkpoint.rcc") .. " --out " .. q(dir .. "/r2"))
        assert.are.equal(0, code, e)
        local ref, a, b = history.read(dir .. "/ref"), history.read(dir .. "/r1"), history.read(dir .. "/r2")
        assert.are.equal(401, ref.n)
        assert.are.equal(201, a.n)
        assert.are.equal(201, b.n)
        for _, name in ipairs(ref.names) do
            for i = 1, a.n do assert.is_true(same(ref.cols[name][i], a.cols[name][i]), name) end
            for i = 1, b.n do assert.is_true(same(ref.cols[name][200 + i], b.cols[name][i]), name) end
        end
    end)

    it("rc.sandbox passes format on", function()
        write_file(dir .. "/host.lua", ("local r = require('ricochet').sandbox{ script = %q, out = %q, format = 'binary' }\n"
                                        .. "assert(r.status == 'complete', r.message)\n"):format(script, dir .. "/sb"))
        local code, _, e = sh(q(BIN) .. " run " .. q(dir .. "/host.lua") .. " --quiet")
        assert.are.equal(0, code, e)
        assert.are.equal(301, history.read(dir .. "/sb").n)
        assert.is_nil(read_file(dir .. "/sb/history.csv.gz"))
        -- in the sandbox, convert writes only under --out
        write_file(dir .. "/conv.lua", ("require('ricochet.history').convert(%q, %q)\n"):format(dir .. "/sb", dir .. "/elsewhere.csv.gz"))
        code, _, e = sh(q(BIN) .. " run " .. q(dir .. "/conv.lua") .. " --sandbox --out " .. q(dir .. "/sb"))
        assert.are.equal(1, code)
        assert.matches("writing outside the output folder", e, 1, true)
        assert.is_nil(read_file(dir .. "/elsewhere.csv.gz"))
    end)
end)
