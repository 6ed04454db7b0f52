-- scene_svg_spec.lua -- ricochet.scene_svg, the still of convex solids in 3D
-- (docs/viewing.md, "A still of a 3D scene"): back faces culled, silhouettes
-- of point sets, the painter's order, the argument checks, and the rockfall's
-- final state drawn beside its history.
local S = require "ricochet.scene_svg"

local function cube(x, y, z, h, fill)
    local pts = {}
    for i = 0, 7 do
        pts[#pts + 1] = { x + ((i & 4 ~= 0) and h or -h), y + ((i & 2 ~= 0) and h or -h), z + ((i & 1 ~= 0) and h or -h) }
    end
    return { points = pts, fill = fill,
             faces = { { 1, 2, 4, 3 }, { 5, 7, 8, 6 }, { 1, 5, 6, 2 }, { 3, 4, 8, 7 }, { 1, 3, 7, 5 }, { 2, 6, 8, 4 } } }
end

local function polygons(file)
    local f = assert(io.open(file))
    local text = f:read("a")
    f:close()
    local out = {}
    for pts, fill in text:gmatch('<polygon class="face" points="([^"]*)" fill="([^"]*)"') do
        local n = 0
        for _ in pts:gmatch("[^ ]+") do n = n + 1 end
        out[#out + 1] = { n = n, fill = fill }
    end
    return out
end

describe("ricochet.scene_svg", function()
    local file = os.tmpname()
    after_each(function() os.remove(file) end)

    it("draws the faces turned towards the eye: 3 of a cube seen from a corner, 1 seen head-on", function()
        assert.are.equal(3, S.svg{ file = file, solids = { cube(0, 0, 0, 1) }, view = { azimuth = 35, elevation = 25 } })
        local p = polygons(file)
        assert.are.equal(3, #p)
        for _, q in ipairs(p) do assert.are.equal(4, q.n) end
        assert.are.equal(1, S.svg{ file = file, solids = { cube(0, 0, 0, 1) }, view = { azimuth = 0, elevation = 0 } })
    end)

    it("draws a point set by its silhouette: a cube's corners from a corner make a hexagon", function()
        local c = cube(0, 0, 0, 1)
        assert.are.equal(1, S.svg{ file = file, solids = { { points = c.points } }, view = { azimuth = 45, elevation = 35.26438968 } })
        assert.are.equal(6, polygons(file)[1].n)
    end)

    it("paints far solids first", function()
        -- seen along +x (azimuth 0): the cube at x = 5 is nearer the eye than the one at x = 0
        S.svg{ file = file, view = { azimuth = 0, elevation = 0 },
               solids = { cube(5, 0, 0, 1, "#ff0000"), cube(0, 0, 0, 1, "#0000ff") } }
        local p = polygons(file)
        assert.are.equal(2, #p)
        assert.is_truthy(p[1].fill:match("^#0000")) -- the far (blue) one first
        assert.is_truthy(p[2].fill:match("0000$"))
    end)

    it("names the argument that is wrong", function()
        local function err(t) local ok, e = pcall(S.svg, t); assert.is_false(ok); return tostring(e) end
        assert.matches("unknown key 'color'", err{ file = file, solids = { cube(0, 0, 0, 1) }, color = 1 }, 1, true)
        assert.matches("'solids' must be a nonempty list", err{ file = file, solids = {} }, 1, true)
        assert.matches("solids[1]: points[2] must be {x, y, z} of finite numbers",
                       err{ file = file, solids = { { points = { { 0, 0, 0 }, { 0, 0 / 0, 0 } } } } }, 1, true)
        assert.matches("solids[1]: faces[1] has index 9, not in 1..8",
                       err{ file = file, solids = { { points = cube(0, 0, 0, 1).points, faces = { { 1, 2, 9 } } } } }, 1, true)
        assert.matches("solids[1]: 'fill' must be \"#rrggbb\"", err{ file = file, solids = { { points = { { 0, 0, 0 } }, fill = "red" } } }, 1, true)
        assert.matches("'file' must be a file name", err{ solids = { cube(0, 0, 0, 1) } }, 1, true)
    end)

    it("draws the rockfall's final state beside its history", function()
        local rc = require "ricochet"
        local root = require("scenario_helper").root
        local dir = os.tmpname()
        os.remove(dir)
        rc.reset_params()
        rc.set_options{ script = "acary2024_rockfall.lua", out = dir, set = { layers = "2", blocks = "3", buttresses = "1",
            rock_d = "1.0", h = "1e-3", T = "0.05", x0 = "4.0", z0 = "1.5", vx = "-10.0", vz = "-2.0", slope_top = "6.0" } }
        local ok, err = pcall(assert(loadfile(root .. "/scripts/papers/acary2024_rockfall.lua")))
        rc.set_options(nil)
        assert(ok, err)
        local p = polygons(dir .. "/final.svg")
        os.execute("rm -rf " .. dir)
        -- 8 blocks: 3 visible faces each at most (neighbours' shared faces are drawn too), the rock's silhouette, the slope
        assert.is_true(#p >= 8 * 2 + 2 and #p <= 8 * 3 + 1 + 3, tostring(#p))
    end)
end)
