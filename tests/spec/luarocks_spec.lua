-- luarocks_spec.lua -- `luarocks make lua/ricochet-scm-1.rockspec` (the cmake
-- build type) builds the library from a copy of the sources and installs the
-- module and the program into a rocks tree (--tree): plain lua5.4 with
-- `luarocks path` loads it, and the tree's ricochet program runs a scene with
-- the tree's Lua files (docs/install.md). Pending where luarocks is missing
-- (scripts/test installs the Debian package luarocks).
local H = require "sh_helper"
local q, must = H.q, H.must
local ROOT = H.ROOT
local CLEAN = "env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u RICOCHET_LUA_DIR -u LD_PRELOAD -u ASAN_OPTIONS "

local SCENE = [[
local rc = require "ricochet"
print("init", package.searchpath("ricochet", package.path))
local w = rc.world{ gravity = { 0, -10 } }
local b = w:body{ name = "b", mass = 1, inertia = 1, q = { 0, 1, 0 } }
local sim = w:simulation{ h = 1e-3, theta = 0.5 }
sim:run{ T = 0.3 }
print(string.format("y = %.6f", b:q()[2]))                -- 1 - 5 t^2, exact at theta = 1/2
]]

describe("luarocks make", function()
    if not H.have("luarocks") then
        pending("luarocks is not installed (Debian: luarocks; scripts/test installs it)")
        return
    end

    it("builds and installs the module and the program into a tree", function()
        local dir = H.tmpdir()
        local src, tree = dir .. "/src", dir .. "/tree"
        -- a copy of the sources: luarocks builds in SRC/build.luarocks
        must("mkdir -p " .. q(src) .. " && cd " .. q(ROOT) .. " && tar -cf - CMakeLists.txt README.md src lua scripts/cmake "
             .. "tests/c tests/fuzz | tar -C " .. q(src) .. " -xf -")
        must("cd " .. q(src) .. " && " .. CLEAN .. "luarocks --lua-version 5.4 make lua/ricochet-scm-1.rockspec --tree " .. q(tree))
        assert.matches("ricochet%s+scm%-1", must(CLEAN .. "luarocks --lua-version 5.4 --tree " .. q(tree) .. " list"))
        assert.is_truthy(io.open(tree .. "/lib/lua/5.4/ricochet/core.so"))
        assert.is_truthy(io.open(tree .. "/share/lua/5.4/ricochet/laws/coulomb.lua"))
        H.write_file(dir .. "/scene.lua", SCENE)
        -- plain lua5.4 with the tree's paths
        local out = must("cd " .. q(dir) .. " && " .. CLEAN .. "sh -c " .. q("eval \"$(luarocks --lua-version 5.4 path --tree "
                         .. q(tree) .. ")\" && lua5.4 scene.lua"))
        assert.matches("init\t" .. tree .. "/share/lua/5.4/ricochet/init.lua\n", out, 1, true)
        assert.matches("y = 0.550000\n", out, 1, true)
        -- the tree's program, with no paths set
        out = must("cd " .. q(dir) .. " && " .. CLEAN .. q(tree .. "/bin/ricochet") .. " run scene.lua --quiet")
        assert.matches("init\t" .. tree .. "/share/lua/5.4/ricochet/init.lua\n", out, 1, true)
        assert.matches("y = 0.550000\n", out, 1, true)
        H.rm_rf(dir)
    end)
end)
