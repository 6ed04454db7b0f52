-- gmsh_spec.lua -- rc.gmsh{...} (lua/ricochet/gmsh.lua, src/lua/lrc_gmsh.c,
-- docs/meshes.md): meshing a .geo with the gmsh program, the characteristic
-- length passed as a parameter, paths given without a shell, its errors, and
-- the sandbox's refusal. The cases that run gmsh are pending when it is not
-- installed (Debian package gmsh; scripts/setup installs it).
local rc = require "ricochet"
local H = require "sh_helper"
local root = H.ROOT
local GEO = root .. "/scripts/papers/acary2024_block.geo"

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

local have_gmsh = os.execute("command -v gmsh >/dev/null 2>&1") == true
local function need_gmsh()
    if not have_gmsh then pending("gmsh is not installed (Debian package gmsh)") end
end

-- The nodes of a set that lie on y = y0 (all of them if the set is that edge).
local function on_line(mesh, set, coord, value)
    local n = 0
    for _, k in ipairs(mesh.node_sets[set]) do
        if math.abs(mesh.nodes[k][coord] - value) < 1e-12 then n = n + 1 end
    end
    return n
end

describe("rc.gmsh", function()
    it("meshes the paper's block with the characteristic length given", function()
        need_gmsh()
        local dir = H.tmpdir()
        for _, c in ipairs{ { lc = 5, bottom = 9 }, { lc = 10, bottom = 5 } } do
            local out = dir .. "/block lc" .. c.lc .. ".msh"   -- a space: no shell in between
            local m = rc.gmsh{ geo = GEO, lc = c.lc, out = out }
            assert.are.equal(c.bottom, #m.node_sets.bottom)   -- 40 mm in segments of lc
            assert.are.equal(c.bottom, on_line(m, "bottom", 2, 0))
            assert.are.equal(#m.node_sets.top, on_line(m, "top", 2, 25))
            assert.are.equal(#m.node_sets.left, on_line(m, "left", 1, 0))
            assert.are.equal(#m.node_sets.right, on_line(m, "right", 1, 40))
            assert.are.equal(#m.nodes, #m.node_sets.block)
            local area = 0
            for _, t in ipairs(m.triangles) do
                local a, b, d = m.nodes[t[1]], m.nodes[t[2]], m.nodes[t[3]]
                area = area + 0.5 * ((b[1] - a[1]) * (d[2] - a[2]) - (d[1] - a[1]) * (b[2] - a[2]))
            end
            assert.is_true(math.abs(area - 40 * 25) < 1e-9)
            assert.is_truthy(H.read_file(out))   -- 'out' is kept
        end
        -- the committed lc = 5 mesh has the same edges (the interior may differ between versions)
        local committed = rc.read_msh(root .. "/scripts/papers/meshes/acary2024_block_lc5.msh")
        assert.are.equal(9, #committed.node_sets.bottom)
        H.sh("rm -rf " .. H.q(dir))
    end)

    it("passes paths as they are (no shell) and the default lc of the .geo", function()
        need_gmsh()
        local dir = H.tmpdir() .. "/a b'c $(x)"
        assert(os.execute("mkdir -p " .. H.q(dir)))
        local text = H.read_file(GEO)
        H.write_file(dir .. "/block; rm -rf x.geo", text)
        local m = rc.gmsh{ geo = dir .. "/block; rm -rf x.geo", lc = 20 }
        assert.are.equal(3, #m.node_sets.bottom)
        H.sh("rm -rf " .. H.q(dir:match("^(.*)/[^/]*$")))
    end)

    it("reports gmsh's failure with its exit status and its errors", function()
        need_gmsh()
        local path = os.tmpname() .. ".geo"
        H.write_file(path, "Point(1) = {0, 0, 0, 1};\nLine(1) = {1, 7};\n")
        local err = error_of(rc.gmsh, { geo = path })
        assert.matches("rc.gmsh: gmsh failed on '" .. path .. "' (exit status 1):\n", err, 1, true)
        assert.matches("Error   : Unknown control point 7 in GEO curve 1", err, 1, true)
        os.remove(path)
    end)

    it("refuses an lc that gmsh would ignore", function()
        local path = os.tmpname() .. ".geo"
        H.write_file(path, (H.read_file(GEO):gsub("DefineConstant%[[^\n]*", "lc = 2;  // fixed")))
        assert.matches("rc.gmsh: 'lc' = 10 would be ignored: " .. path .. " sets lc itself (line 10: 'lc = 2;'); "
                       .. "declare it with DefineConstant[ lc = 2 ]; so that gmsh's -setnumber lc can change it",
                       error_of(rc.gmsh, { geo = path, lc = 10 }), 1, true)
        H.write_file(path, "Point(1) = {0, 0, 0, 1}; // lc\n")
        assert.are.equal("rc.gmsh: 'lc' = 10 would be ignored: " .. path .. " has no parameter lc (declare it with "
                         .. "DefineConstant[ lc = 1 ]; and use it as the points' mesh size)",
                         error_of(rc.gmsh, { geo = path, lc = 10 }))
        os.remove(path)
    end)

    it("says which package to install when the program is missing", function()
        assert.are.equal("rc.gmsh: cannot run '/nonexistent/gmsh': it is not installed (Debian package gmsh: "
                         .. "apt-get install gmsh; scripts/setup installs it), or not on the PATH",
                         error_of(rc.gmsh, { geo = GEO, program = "/nonexistent/gmsh" }))
    end)

    it("checks its arguments", function()
        assert.are.equal("rc.gmsh: 'geo' must be a file name (got nil)", error_of(rc.gmsh, { lc = 1 }))
        assert.are.equal("rc.gmsh: 'lc' must be > 0 (got 0)", error_of(rc.gmsh, { geo = GEO, lc = 0 }))
        assert.are.equal("rc.gmsh: 'order' must be 1 (3-node triangles, the elements of w:fem; got 2)",
                         error_of(rc.gmsh, { geo = GEO, order = 2 }))
        assert.are.equal("rc.gmsh: unknown key 'lcc' (did you mean 'lc'?)", error_of(rc.gmsh, { geo = GEO, lcc = 1 }))
        assert.matches("rc.gmsh: cannot open 'geo': /nonexistent.geo: No such file or directory",
                       error_of(rc.gmsh, { geo = "/nonexistent.geo" }), 1, true)
        assert.matches("rc.gmsh: expected a table argument", error_of(rc.gmsh, "block.geo"), 1, true)
    end)

    it("is refused in the sandbox", function()
        if not H.BIN then pending("RICOCHET_BIN is not set") end
        local dir = H.tmpdir()
        H.write_file(dir .. "/g.lua", [[
local rc = require "ricochet"
print(pcall(rc.gmsh, { geo = "g.geo" }))
print(pcall(rc.core.run_program, { "true" }))
]])
        local code, out, err = H.sh(H.q(H.BIN) .. " run --sandbox --out " .. H.q(dir .. "/out") .. " " .. H.q(dir .. "/g.lua"))
        assert.are.equal(0, code, err)
        assert.matches("rc.gmsh: running an external program (gmsh) is not available in the sandbox: "
                       .. "mesh outside it and read the .msh with rc.read_msh", out, 1, true)
        assert.matches("ricochet.core.run_program is not available in the sandbox (rc.gmsh runs an external "
                       .. "program: use a committed .msh and rc.read_msh)", out, 1, true)
        H.sh("rm -rf " .. H.q(dir))
    end)
end)
