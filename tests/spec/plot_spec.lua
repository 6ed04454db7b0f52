-- plot_spec.lua -- `ricochet plot OUT [COLUMNS...]` and ricochet.plot: the SVG is
-- well-formed XML (Python's parser, svg_check.py), has a polyline per series
-- whose points are the history's values under the panel's axes, axis ranges
-- that hold the data (and not much more), labels with units and legends; the
-- paper scripts write their figures beside their history.
local json = require "dkjson"
local plot = require "ricochet.plot"
local BIN = assert(os.getenv("RICOCHET_BIN"), "RICOCHET_BIN is not set")
local ROOT = os.getenv("RICOCHET_ROOT") or "."

local H = require "sh_helper"   -- quoting, temporary folders, files, commands
local q, tmpdir, read_file, write_file, sh = H.q, H.tmpdir, H.read_file, H.write_file, H.sh

local function svg(path)
    local code, o, e = sh("python3 " .. q(ROOT .. "/tests/spec/svg_check.py") .. " " .. q(path))
    assert(code == 0, "not well-formed: " .. tostring(e))
    return assert(json.decode(o))
end

-- The data values of a polyline's points under the panel's axes.
local function values(panel, s)
    local xs, ys = {}, {}
    for i, p in ipairs(s.points) do
        xs[i] = panel.x0 + (p[1] - panel.left) / (panel.right - panel.left) * (panel.x1 - panel.x0)
        ys[i] = panel.y0 + (panel.bottom - p[2]) / (panel.bottom - panel.top) * (panel.y1 - panel.y0)
    end
    return xs, ys
end

-- Every point of the polyline is a (t, value) row of the history, to the
-- 0.01 px of the file's numbers.
local function check_series(panel, s, t, y)
    local xs, ys = values(panel, s)
    local px = (panel.x1 - panel.x0) / (panel.right - panel.left)
    local py = (panel.y1 - panel.y0) / (panel.bottom - panel.top)
    local j = 1
    for i = 1, #xs do
        while j <= #t and t[j] < xs[i] - 0.006 * px do j = j + 1 end
        local ok = false
        for k = j, math.min(#t, j + 50) do
            if math.abs(t[k] - xs[i]) <= 0.006 * px and math.abs(y[k] - ys[i]) <= 0.006 * py then ok = true break end
            if t[k] > xs[i] + 0.006 * px then break end
        end
        assert(ok, ("%s: point %d (%g, %g) is no row of the history"):format(s.name, i, xs[i], ys[i]))
    end
end

local function data_range(lists)
    local lo, hi = math.huge, -math.huge
    for _, y in ipairs(lists) do for _, v in ipairs(y) do lo, hi = math.min(lo, v), math.max(hi, v) end end
    return lo, hi
end

local dir, out
setup(function()
    dir = tmpdir()
    out = dir .. "/run"
    local f = assert(io.open(dir .. "/ball.lua", "w"))
    f:write([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local ball = w:body{ name = "ball", mass = 1, inertia = 0.1, q = { 0, 1, 0 }, v = { 0.5, 0, 0 },
                     shape = rc.disk{ radius = 0.1 } }
w:contact{ w.ground, ball, law = rc.newton{ e = 0.8, mu = 0.2 }, name = "C" }
w:simulation{ h = 1e-3 }:run{ T = 2 }
]])
    f:close()
    local code, _, e = sh(q(BIN) .. " run " .. q(dir .. "/ball.lua") .. " --out " .. q(out) .. " --quiet")
    assert(code == 0, e)
end)

describe("ricochet plot", function()
    it("OUT: the energy terms, the works and the balance defect against time, from the history", function()
        local code, o, e = sh(q(BIN) .. " plot " .. q(out))
        assert.are.equal(0, code, e)
        assert.are.equal("ricochet plot: wrote " .. out .. "/plot.svg (E, E_kin, E_pot, W_ext, W_N, W_T, defect)\n", o)
        local s = svg(out .. "/plot.svg")
        local h = plot.read_history(out)
        assert.are.equal(2001, h.n)
        local c = h.cols
        assert.are.equal(3, #s.panels)
        local want = { { "E", "E_kin", "E_pot" }, { "W_ext", "W_N", "W_T" }, { "defect" } }
        local ylabels = { "energy [J]", "work [J]", "defect [J]" }
        local d = plot.defect(h)
        for p, panel in ipairs(s.panels) do
            local names, lists = {}, {}
            for _, ser in ipairs(panel.series) do
                names[#names + 1] = ser.name
                local y = ser.name == "defect" and d or c[ser.name]
                lists[#lists + 1] = y
                check_series(panel, ser, c.t, y)
                assert.is_true(#ser.points >= 2)
            end
            assert.are.same(want[p], names)
            assert.are.same(want[p], panel.texts.legend)
            assert.are.same({ "t [s]" }, panel.texts.xlabel)
            assert.are.same({ ylabels[p] }, panel.texts.ylabel)
            -- the axes: t from 0 to 2; y holds the data with at most 10 % on either side
            assert.are.same({ 0, 2 }, { panel.x0, panel.x1 })
            local lo, hi = data_range(lists)
            assert.is_true(panel.y0 <= lo and panel.y1 >= hi)
            assert.is_true(panel.y1 - panel.y0 <= 1.2 * (hi - lo) + 1e-300)
        end
        -- the defect is round-off: E - E0 - sum W of the file
        local lo, hi = data_range({ d })
        assert.is_true(math.max(-lo, hi) < 1e-9)
        -- E at t = 0 is m g y = 10 and the ball bounces (E drops at impacts)
        assert.near(10.125, c.E[1], 1e-12)
        assert.is_true(c.E[#c.E] < 9)
    end)

    it("OUT COLUMNS --out FILE: the columns named, one polyline each, units from the names", function()
        local file = dir .. "/y.svg"
        local code, o, e = sh(q(BIN) .. " plot " .. q(out) .. " ball.y ball.x --out " .. q(file))
        assert.are.equal(0, code, e)
        assert.are.equal("ricochet plot: wrote " .. file .. " (ball.y, ball.x)\n", o)
        local s = svg(file)
        local c = plot.read_history(out).cols
        assert.are.equal(1, #s.panels)
        local panel = s.panels[1]
        assert.are.equal(2, #panel.series)
        check_series(panel, panel.series[1], c.t, c["ball.y"])
        check_series(panel, panel.series[2], c.t, c["ball.x"])
        assert.are.same({ "[m]" }, panel.texts.ylabel)
        local lo, hi = data_range({ c["ball.y"], c["ball.x"] })
        assert.is_true(panel.y0 <= lo and panel.y1 >= hi and panel.y1 - panel.y0 <= 1.2 * (hi - lo))
    end)

    it("errors name the problem", function()
        local code, _, e = sh(q(BIN) .. " plot " .. q(out) .. " ball.z")
        assert.are.equal(1, code)
        assert.matches("ricochet plot: error: no column 'ball.z' in '" .. out .. "/history.csv.gz' (columns: t, E,", e, 1, true)
        code, _, e = sh(q(BIN) .. " plot " .. q(dir .. "/none"))
        assert.are.equal(1, code)
        assert.matches("ricochet plot: error: cannot open '" .. dir .. "/none/history.csv.gz'", e, 1, true)
        code, _, e = sh(q(BIN) .. " plot")
        assert.are.equal(2, code)
        assert.matches("ricochet plot: missing OUT", e, 1, true)
        assert.has_error(function() plot.svg{ file = dir .. "/x.svg", x = { 0, 1 }, series = { { name = "a", y = { 1 } } } } end,
            "ricochet.plot.svg: panel 1 series 1 ('a') has 1 values and x has 2")
        assert.has_error(function() plot.svg{ x = { 0, 1 }, series = { { name = "a", y = { 1, 2 } } } } end,
            "ricochet.plot.svg: 'file' must be a file name (got nil)")
    end)

    it("many points: decimated to the extremes of each pixel column, the peaks kept", function()
        local n, x, y = 100000, {}, {}
        for i = 1, n do x[i] = (i - 1) / (n - 1); y[i] = math.sin(40 * x[i]) end
        y[31234] = 5                                       -- one spike
        local file = dir .. "/many.svg"
        plot.svg{ file = file, x = x, series = { { name = "s", y = y } } }
        local s = svg(file)
        local panel = s.panels[1]
        assert.is_true(#panel.series[1].points < 2 * 720)
        local _, ys = values(panel, panel.series[1])
        local hi, lo = -math.huge, math.huge
        for _, v in ipairs(ys) do hi, lo = math.max(hi, v), math.min(lo, v) end
        assert.near(5, hi, 1e-2)
        assert.near(-1, lo, 1e-2)
    end)

    it("the paper scripts write figure.svg beside their history", function()
        for _, p in ipairs { { "acary2024_rocking_block.lua", 3, "" }, { "bruls2014_pendulum.lua", 3, "" },
                             { "bruls2014_elastic_bar.lua", 4, " --set scheme=gen-alpha" } } do
            local o2 = dir .. "/" .. p[1]
            local code, _, e = sh(q(BIN) .. " run " .. q(ROOT .. "/scripts/papers/" .. p[1]) .. " --out " .. q(o2)
                                  .. " --set T=0.5 --quiet" .. p[3])
            assert.are.equal(0, code, e)
            local s = svg(o2 .. "/figure.svg")
            assert.are.equal(p[2], #s.panels)
            local c = plot.read_history(o2).cols
            local first = s.panels[1].series[1]
            check_series(s.panels[1], first, c.t, c[first.name])
        end
    end)
end)
