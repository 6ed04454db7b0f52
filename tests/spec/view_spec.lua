-- view_spec.lua -- the frame file (sim:run{ frames = N }, --frames N) and
-- `ricochet view OUT`: the file read back independently (frames_read.py),
-- and the page loaded in headless Chromium through chromedriver
-- (view_browser.py): the slider stepped through JS, a screenshot shows the
-- bodies where the frames put them, the plots hold the energy series.
local json = require "dkjson"
local BIN = assert(os.getenv("RICOCHET_BIN"), "RICOCHET_BIN is not set")
local ROOT = os.getenv("RICOCHET_ROOT") or "."

local H = require "sh_helper"   -- quoting, temporary folders, files, commands
local q, tmpdir, read_file, write_file, sh = H.q, H.tmpdir, H.read_file, H.write_file, H.sh

-- Three disks and a box dropped on a floor beside a wall; the disks come to
-- rest on the floor (radius 0.15).
local SCENE = [[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
w:segment{ a = { -2, 0 }, b = { -2, 2 } }
w:body{ name = "box", mass = 1, inertia = 1 / 6, q = { 0.5, 0.6, 0.3 }, shape = rc.box{ 1, 0.5 } }
for i = 1, 3 do
  w:body{ name = "d" .. i, mass = 1, inertia = 0.02, q = { -1 + 0.3 * i, 0.5 + 0.4 * i, 0 },
          shape = rc.disk{ radius = 0.15 } }
end
w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0.2, mu = 0.3 } }
local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-8 } }
sim:run{ T = 1.0 }
]]

local function frames_of(path)
    local code, out, err = sh("python3 " .. q(ROOT .. "/tests/spec/frames_read.py") .. " " .. q(path))
    assert(code == 0, err)
    return assert(json.decode(out))
end

-- history.csv.gz as columns
local function history(dir)
    local code, out = sh("zcat " .. q(dir .. "/history.csv.gz"))
    assert(code == 0)
    local names, cols = {}, {}
    for line in out:gmatch("[^\n]+") do
        if #names == 0 then
            for n in line:gmatch("[^,]+") do names[#names + 1] = n; cols[n] = {} end
        elseif line:sub(1, 1) ~= "#" then
            local i = 0
            for v in line:gmatch("[^,]+") do i = i + 1; local c = cols[names[i]]; c[#c + 1] = tonumber(v) end
        end
    end
    return cols, names
end

local dir, script
setup(function()
    dir = tmpdir()
    script = dir .. "/scene.lua"
    write_file(script, SCENE)
end)

describe("the frame file", function()
    it("--frames 50: a frame at t = 0 and after every 50th step, states equal to the history's", function()
        local out = dir .. "/run"
        local code, o, e = sh(q(BIN) .. " run " .. q(script) .. " --out " .. q(out) .. " --frames 50")
        assert.are.equal(0, code, e)
        -- the summary's last line says how to look at the run
        local last = o:match("([^\n]*)\n?$")
        assert.are.equal("  view      ricochet view " .. out, last)
        local F = frames_of(out .. "/frames.rcf")
        assert.are.equal(1, F.version)
        assert.are.equal("complete", F["end"])
        assert.is_true(F.stream_complete)
        assert.are.equal(21, #F.frames)
        local cols = history(out)
        for k, f in ipairs(F.frames) do
            assert.are.equal((k - 1) * 50, f.step)
            local row = f.step + 1                       -- history: every step
            assert.near(cols.t[row], f.t, 1e-12)
            for i, name in ipairs { "box", "d1", "d2", "d3" } do
                for j, c in ipairs { "x", "y", "theta" } do   -- float32 in the frame file
                    assert.near(cols[name .. "." .. c][row], f.q[i][j], 1e-6 * (1 + math.abs(f.q[i][j])))
                end
                assert.near(cols[name .. ".vy"][row], f.v[i][2], 1e-5 * (1 + math.abs(f.v[i][2])))
            end
        end
        -- the geometry: bodies with names, mass; the ground's half-plane and segment
        local g = F.geometry[1]
        assert.are.equal(1, #F.geometry)
        assert.are.same({ "box", "d1", "d2", "d3" }, { g.bodies[1].name, g.bodies[2].name, g.bodies[3].name, g.bodies[4].name })
        assert.are.same({ -1, 4, { 0, 0, 0, 1 } }, { g.shapes[1].body, g.shapes[1].type, g.shapes[1].values })
        assert.are.same({ -1, 5, { -2, 0, -2, 2, 0 } }, { g.shapes[2].body, g.shapes[2].type, g.shapes[2].values })
        assert.are.same({ 0, 2, { -0.5, -0.25, 0.5, -0.25, 0.5, 0.25, -0.5, 0.25 } },
                        { g.shapes[3].body, g.shapes[3].type, g.shapes[3].values })
        assert.are.same({ 1, 1, { 0, 0, 0.15 } }, { g.shapes[4].body, g.shapes[4].type, g.shapes[4].values })
        -- at rest at t = 1: each disk carries its weight m g h = 0.01 on the floor (normal (0, 1))
        local last_f = F.frames[#F.frames]
        for b = 1, 3 do
            local sum = 0
            for _, c in ipairs(last_f.contacts) do
                if c.a == -1 and c.b == b then
                    assert.near(0, c.normal[1], 1e-6); assert.near(1, c.normal[2], 1e-6)
                    sum = sum + c.pN
                end
            end
            assert.near(0.01, sum, 1e-6)
            assert.near(0.15, last_f.q[b + 1][2], 1e-4)
        end
    end)

    it("sim:run{ frames = N } without an output folder is refused", function()
        local s = dir .. "/noout.lua"
        write_file(s, SCENE:gsub("sim:run{ T = 1.0 }", "sim:run{ T = 0.01, frames = 2 }"))
        local code, _, e = sh(q(BIN) .. " run " .. q(s))
        assert.are.equal(1, code)
        assert.matches("noout.lua:12: sim:run: 'frames' needs an output folder: give out = \"DIR\" (or run with --out DIR)", e, 1, true)
        code, _, e = sh(q(BIN) .. " run " .. q(script) .. " --out " .. q(dir .. "/x") .. " --frames 0")
        assert.are.equal(2, code)
        assert.matches("--frames needs a positive integer (got '0')", e, 1, true)
    end)

    it("a run that fails ends the file with its status and message", function()
        local s = dir .. "/fails.lua"
        write_file(s, SCENE:gsub("sim:run{ T = 1.0 }",
            "sim:after_step(function(x) if x.steps == 30 then error('stop here') end end)\nsim:run{ T = 1.0, frames = 10 }"))
        local out = dir .. "/fails"
        local code = sh(q(BIN) .. " run " .. q(s) .. " --out " .. q(out))
        assert.are.equal(1, code)
        local F = frames_of(out .. "/frames.rcf")
        assert.are.equal(3, #F.frames)    -- steps 0, 10, 20 (the callback failed before step 30's frame)
        assert.matches("^error: .*stop here", F["end"])
    end)
end)

describe("ricochet view", function()
    local out
    setup(function()
        out = dir .. "/view"
        local code, _, e = sh(q(BIN) .. " run " .. q(script) .. " --out " .. q(out) .. " --frames 50 --quiet")
        assert.are.equal(0, code, e)
    end)

    it("writes one self-contained page: no network, the run's files inside", function()
        local code, o, e = sh(q(BIN) .. " view " .. q(out))
        assert.are.equal(0, code, e)
        assert.matches("wrote " .. out .. "/view.html", o, 1, true)
        local page = assert(read_file(out .. "/view.html"))
        for url in page:gmatch("https?://[^\"'%s]+") do   -- the SVG namespace only: a name, not fetched
            assert.are.equal("http://www.w3.org/2000/svg", url)
        end
        assert.is_nil(page:find("<script[^>]+src="))
        assert.is_nil(page:find("<link"))
        assert.is_nil(page:find("@@[A-Z]+@@"))
    end)

    it("errors: a folder without a run, a missing argument", function()
        local code, _, e = sh(q(BIN) .. " view " .. q(dir .. "/nothing"))
        assert.are.equal(1, code)
        assert.matches("ricochet view: error: '" .. dir .. "/nothing' holds no run (no frames.rcf, history.csv.gz, history.bin or run.json): give the folder of a run's --out", e, 1, true)
        code, _, e = sh(q(BIN) .. " view")
        assert.are.equal(2, code)
        assert.matches("ricochet view: missing OUT", e, 1, true)
    end)

    it("in headless Chromium: the slider moves the bodies, the plots show the energy", function()
        assert.are.equal(0, (sh(q(BIN) .. " view " .. q(out))))
        local browser = q(ROOT .. "/tests/spec/view_browser.py")
        local code, _, e = sh("python3 " .. browser .. " available")
        if code ~= 0 then
            io.stderr:write("\nview_spec: SKIPPED the browser test: " .. (e or ""):gsub("\n$", "")
                .. " (scripts/test installs chromium and chromium-driver when run as root)\n")
            pending("no headless Chromium here: " .. (e or ""))
            return
        end
        local o
        code, o, e = sh("python3 " .. browser .. " check " .. q(out .. "/view.html") .. " 0 10 20")
        assert.are.equal(0, code, e)
        local r = assert(json.decode(o))
        assert.are.equal("ok", r.ready)
        assert.are.equal(21, r.frames)
        assert.are.equal("", r.notes)
        assert.are.equal("complete", r["end"])
        local F = frames_of(out .. "/frames.rcf")
        for _, c in ipairs(r.checks) do
            local f = F.frames[c.frame + 1]
            assert.are.equal(f.t, c.time)
            assert.are.equal(4, #c.bodies)
            for _, p in ipairs(c.probes) do assert.are.same({ 255, 255, 255 }, p) end   -- background
            for i, b in ipairs(c.bodies) do
                -- drawn: at least 3 of 4 pixels around the centre (0.35 of the bounding radius) are not background
                local drawn = 0
                for _, px in ipairs(b.ring) do
                    if px[1] + px[2] + px[3] < 3 * 250 then drawn = drawn + 1 end
                end
                assert.is_true(drawn >= 3, ("frame %d body %d: %d of 4 pixels drawn"):format(c.frame, i, drawn))
            end
            -- where: the screen positions are the frame's, under one scale (disk radius 0.15)
            local s = c.bodies[2].r / 0.15
            for i = 2, 4 do
                local dx = (c.bodies[i].x - c.bodies[1].x) / s
                local dy = -(c.bodies[i].y - c.bodies[1].y) / s
                assert.near(f.q[i][1] - f.q[1][1], dx, 1e-3)
                assert.near(f.q[i][2] - f.q[1][2], dy, 1e-3)
            end
        end
        -- zoomed out: the disks (radius < 5 px) are written as pixels, in the fill colour
        -- at their centres (the box, a polygon, is still a path)
        for i = 2, 4 do
            local b = r.small[i]
            assert.is_true(b.r < 5, "radius " .. b.r)
            assert.are.same({ 0x8f, 0xb4, 0xe8 }, b.rgb)
        end
        -- the disks moved between the first and the last frame checked (the slider works)
        assert.is_true(math.abs(r.checks[3].bodies[4].y - r.checks[1].bodies[4].y) > 50)
        -- the plots: the energy terms, each a polyline of every history row, axes holding the data
        local cols = history(out)
        local energy = r.plots[1]
        assert.are.equal("energy", energy.title)
        local names = {}
        for _, s in ipairs(energy.series) do
            names[#names + 1] = s.name
            assert.are.equal(#cols.t, s.n)
            assert.are.equal(#cols.t, s.points)
        end
        assert.are.same({ "E", "E_kin", "E_pot" }, names)
        local lo, hi = math.huge, -math.huge
        for _, n in ipairs(names) do
            for _, v in ipairs(cols[n]) do lo, hi = math.min(lo, v), math.max(hi, v) end
        end
        assert.is_true(energy.y0 <= lo and energy.y1 >= hi)
        assert.is_true(energy.y1 - energy.y0 <= 1.2 * (hi - lo))
        assert.are.same({ 0, 1 }, { energy.t0, energy.t1 })
        local bal = r.plots[2]
        names = {}
        for _, s in ipairs(bal.series) do names[#names + 1] = s.name end
        assert.are.same({ "W_ext", "W_N", "W_T", "defect" }, names)
        -- a ticked column gets a plot; a body picked shows its name and state
        assert.are.equal("box.x", r.ticked)
        assert.are.equal("selected columns", r.plots_ticked[3].title)
        assert.are.equal("box.x", r.plots_ticked[3].series[1].name)
        assert.matches("namebox", r.info, 1, true)
        assert.matches("kindrigid", r.info, 1, true)
    end)

    it("a run with --format binary: the page reads history.bin, the same plots as the CSV run's", function()
        local browser = q(ROOT .. "/tests/spec/view_browser.py")
        if sh("python3 " .. browser .. " available") ~= 0 then pending("no headless Chromium here") return end
        local outb = dir .. "/view_bin"
        local code, _, e = sh(q(BIN) .. " run " .. q(script) .. " --out " .. q(outb) .. " --frames 50 --quiet --format binary")
        assert.are.equal(0, code, e)
        assert.is_nil(read_file(outb .. "/history.csv.gz"))
        assert.are.equal(0, (sh(q(BIN) .. " view " .. q(out))))
        assert.are.equal(0, (sh(q(BIN) .. " view " .. q(outb))))
        local o
        code, o, e = sh("python3 " .. browser .. " check " .. q(outb .. "/view.html") .. " 0")
        assert.are.equal(0, code, e)
        local rb = assert(json.decode(o))
        code, o, e = sh("python3 " .. browser .. " check " .. q(out .. "/view.html") .. " 0")
        assert.are.equal(0, code, e)
        local rc_ = assert(json.decode(o))
        assert.are.equal("ok", rb.ready)
        assert.are.equal("", rb.notes)
        assert.are.equal(#rc_.plots, #rb.plots)
        for i, p in ipairs(rc_.plots) do
            local pb = rb.plots[i]
            assert.are.equal(p.title, pb.title)
            assert.are.same({ p.t0, p.t1 }, { pb.t0, pb.t1 })
            assert.near(p.y0, pb.y0, 1e-9 * (1 + math.abs(p.y0)))
            assert.near(p.y1, pb.y1, 1e-9 * (1 + math.abs(p.y1)))
            for k, s in ipairs(p.series) do
                assert.are.equal(s.name, pb.series[k].name)
                assert.are.equal(1001, pb.series[k].n)
                assert.are.equal(s.points, pb.series[k].points)
            end
        end
    end)
end)

describe("docs/viewing.md", function()
    it("its Lua examples run as written and write the page and the figures", function()
        local f = assert(io.open(ROOT .. "/docs/viewing.md"))
        local text = f:read("a")
        f:close()
        local blocks = {}
        for code in text:gmatch("```lua\n(.-)```") do blocks[#blocks + 1] = code end
        assert.are.equal(3, #blocks)   -- the third, ricochet.scene_svg's, is run by docs_run_spec
        local d = tmpdir()
        write_file(d .. "/doc.lua", blocks[1] .. "\ndo end\n" .. blocks[2])
        local code, o, e = sh("cd " .. q(d) .. " && " .. q(BIN) .. " run doc.lua --quiet")
        assert.are.equal(0, code, e)
        assert.are.equal("out/viewing/view.html\tout/viewing/plot.svg\n", o)
        for _, name in ipairs { "view.html", "plot.svg", "damped.svg", "disk1.svg", "frames.rcf" } do
            assert.is_truthy(read_file(d .. "/out/viewing/" .. name), name)
        end
        local F = frames_of(d .. "/out/viewing/frames.rcf")
        assert.are.equal(76, #F.frames)
        assert.are.equal("complete", F["end"])
        -- the commands of the page's first block
        code, o, e = sh("cd " .. q(d) .. " && " .. q(BIN) .. " plot out/viewing E_kin W_N --out out/viewing/kin.svg")
        assert.are.equal(0, code, e)
        assert.are.equal("ricochet plot: wrote out/viewing/kin.svg (E_kin, W_N)\n", o)
    end)
end)
