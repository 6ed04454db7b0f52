-- progress_spec.lua -- the progress of a run (issue 17, "Long runs"):
-- sim:on_progress's figures, the line on a terminal (and its absence when
-- stderr is a file or with --quiet), the warnings of unconverged steps (the
-- first five in detail, then a count) and the summary's sentence.
local rc = require "ricochet"
local H = require "sh_helper"
local q, sh = H.q, H.sh
local BIN = assert(H.BIN, "RICOCHET_BIN is not set")
local PTY = H.ROOT .. "/tests/spec/pty_run.py"

-- three unit boxes stacked on the ground; NSGS capped at `max_iter` sweeps
local STACK = [[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
for i = 1, 3 do
    w:body{ mass = 1, inertia = 1 / 6, q = { 0, i - 0.5, 0 }, shape = rc.box{ 1, 1 } }
end
local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-14, max_iter = %d } }
%s
sim:run{ T = %s }
]]

local function stack(max_iter)
    local w = rc.world{ gravity = { 0, -10 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    for i = 1, 3 do
        w:body{ mass = 1, inertia = 1 / 6, q = { 0, i - 0.5, 0 }, shape = rc.box{ 1, 1 } }
    end
    return w, w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-14, max_iter = max_iter } }
end

describe("sim:on_progress", function()
    it("reports after every step with interval 0, then once more at the end", function()
        local w, sim = stack(3)
        local seen = {}
        sim:on_progress(function(p) seen[#seen + 1] = p end, 0)
        local s = sim:run{ T = 0.02 }
        assert.are.equal(21, #seen)
        for k = 1, 20 do
            assert.are.equal(k, seen[k].steps)
            assert.are.equal(k * 1e-3, seen[k].t)       -- t0 + k h, exactly as the kernel's t
            assert.are.equal(k, seen[k].capped)          -- 3 sweeps never reach 1e-14
            assert.are.equal(20, seen[k].steps_total)
            assert.are.equal(0.02, seen[k].T)
            assert.is_false(seen[k].final)
        end
        local f = seen[21]
        assert.is_true(f.final)
        assert.are.equal(20, f.steps)
        assert.are.equal(20, f.capped)
        assert.are.equal(0, f.eta_s)
        assert.are.equal(s.max_residual, f.max_residual)
        assert.are.equal(20, s.capped)
        assert.are.equal(20, s.failures)
        assert.is_true(w:close() == nil or true)
    end)

    it("counts nothing at the cap when the solver converges; checks its arguments", function()
        local _, sim = stack(1000)
        local last
        sim:on_progress(function(p) last = p end)   -- 0.25 s: only the final report in a short run
        local s = sim:run{ T = 0.01 }
        assert.is_true(last.final)
        assert.are.equal(0, last.capped)
        assert.are.equal(0, s.capped)
        assert.has_error(function() sim:on_progress("x") end,
                         "sim:on_progress: 'fn' must be a function (got 'x')")
        assert.has_error(function() sim:on_progress(function() end, -1) end,
                         "sim:on_progress: 'interval' must be >= 0 (got -1)")
    end)

    it("ends the run with status error when the function raises", function()
        local _, sim = stack(1000)
        sim:on_progress(function(p) if p.steps == 3 then error("enough", 0) end end, 0)
        assert.has_error(function() sim:run{ T = 0.01 } end, "enough")
        assert.are.equal("error", sim.summary.status)
        assert.are.equal(3, sim.steps)
    end)
end)

describe("the progress line", function()
    local dir, script
    setup(function()
        dir = H.tmpdir()
        script = dir .. "/stack.lua"
        -- on_progress with interval 0: the line is drawn after every step (no timing in the test)
        H.write_file(script, STACK:format(1000, "sim:on_progress(function() end, 0)", "0.01"))
    end)
    teardown(function() H.rm_rf(dir) end)

    it("is drawn on stderr when it is a terminal", function()
        if not H.have("python3") then pending("python3 is needed for a pseudo-terminal"); return end
        local code, out = sh("python3 " .. q(PTY) .. " " .. q(BIN) .. " run " .. q(script))
        assert.are.equal(0, code)
        -- every step overwrites the line: carriage return, the figures, erase to the end
        assert.matches("\rt = 0.001 / 0.01 (10%)  ", out, 1, true)
        assert.matches("\rt = 0%.01 / 0%.01 %(100%%%)  [^\r]* steps/s  ETA 0:00  at cap 0%.0%% %(0%)  residual ", out)
        assert.matches("\27[K", out, 1, true)
        assert.are.equal("\r\27[K", out:sub(-4))   -- cleared at the end, before the summary
        local n = select(2, out:gsub("\rt = ", ""))
        assert.are.equal(10, n)
    end)

    it("is not drawn with --quiet", function()
        if not H.have("python3") then pending("python3 is needed for a pseudo-terminal"); return end
        local code, out = sh("python3 " .. q(PTY) .. " " .. q(BIN) .. " run " .. q(script) .. " --quiet")
        assert.are.equal(0, code)
        assert.are.equal("", out)
    end)

    it("is not drawn when stderr is a file", function()
        local code, out, err = sh(q(BIN) .. " run " .. q(script))
        assert.are.equal(0, code)
        assert.are.equal("", err)
        assert.is_nil(out:find("\r", 1, true))
        assert.matches("ricochet: run summary", out, 1, true)
    end)
end)

describe("unconverged steps", function()
    it("are warned about five times in detail, then counted once; the summary and run.json say how many", function()
        local dir = H.tmpdir()
        local script = dir .. "/capped.lua"
        H.write_file(script, STACK:format(3, "", "0.05"))
        local code, out, err = sh(q(BIN) .. " run " .. q(script) .. " --out " .. q(dir .. "/out"))
        assert.are.equal(0, code)
        local lines = {}
        for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l end
        assert.are.equal(6, #lines)
        for k = 1, 5 do
            assert.matches("^ricochet: warning: solver did not converge at t = [%d.]+ %(step " .. k
                           .. "%): residual [%d.e+-]+ > tol 1%.000e%-14 after 3 sweeps; worst contact ", lines[k])
        end
        assert.is_nil(lines[4]:find("further", 1, true))
        assert.matches(" %(further unconverged steps are counted, not reported: see the run's summary%)$", lines[5])
        local json = H.read_file(dir .. "/out/run.json")
        local maxr = assert(json:match('"sweep_cap": {%s*"steps": 50,%s*"of": 50,%s*"max_residual": ([%d.e+-]+),'))
        local tmax = assert(json:match('"t_max_residual": ([%d.e+-]+)'))
        assert.are.equal(("ricochet: warning: 50 of 50 steps hit the sweep cap (residual > tol 1e-14 after at most "
                          .. "3 sweeps); largest residual %.3e at t = %.10g"):format(tonumber(maxr), tonumber(tmax)),
                         lines[6])
        assert.matches(("\n  sweep cap 50 of 50 steps hit the sweep cap; largest residual %.3e at t = %.10g\n")
                       :format(tonumber(maxr), tonumber(tmax)), out, 1, true)
        assert.matches('"failures": 50', json, 1, true)
        H.rm_rf(dir)
    end)
end)
