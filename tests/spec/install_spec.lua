-- install_spec.lua -- cmake --install into a temporary prefix gives a usable
-- library (docs/install.md): the C programs of docs/c-api.md and docs/laws.md
-- (the blocks marked <!-- run -->) build against it with pkg-config and with
-- find_package(ricochet), statically and shared, and print what the docs say;
-- the installed program runs a scenario with the installed Lua files (not the
-- source tree's); plain lua5.4 loads the module from the prefix.
local H = require "sh_helper"
local D = require "doc_blocks"
local q, sh, must = H.q, H.sh, H.must
-- the build tools run without the sanitizer build's LD_PRELOAD of libasan (cpack
-- deadlocks under it); the programs built here link the sanitizers themselves
local TOOL = "env -u LD_PRELOAD -u ASAN_OPTIONS "
local ROOT = H.ROOT
local BUILD = os.getenv("RC_BUILD_DIR") or H.BUILD
local CFLAGS = os.getenv("RC_TEST_CFLAGS") or ""

-- the environment of a user: no path of the source tree or the build
local CLEAN = "env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u RICOCHET_LUA_DIR "

local DIR = H.tmpdir()
local PREFIX = DIR .. "/prefix"
local LIBDIR   -- PREFIX/lib or PREFIX/lib/<multiarch>, where ricochet.pc is

local PROGRAMS = {}   -- { name, file, block }
for _, f in ipairs{ "docs/c-api.md", "docs/laws.md" } do
    for k, b in ipairs(D.runnable(ROOT .. "/" .. f, "c")) do
        PROGRAMS[#PROGRAMS + 1] = { name = f:match("([%w_-]+)%.md$"):gsub("-", "_") .. k, file = f, block = b }
    end
end

local function check_output(p, out, how)
    assert.is_truthy(p.block.output, p.file .. ":" .. p.block.line .. ": no documented output")
    local msg = D.compare_output(p.block.output, out)
    if msg then error(("%s:%d (%s): %s"):format(p.file, p.block.line, how, msg), 0) end
end

local function needed(exe)
    return must("readelf -d " .. q(exe))
end

describe("cmake --install", function()
    setup(function()
        must(TOOL .. "cmake --install " .. q(BUILD) .. " --prefix " .. q(PREFIX))
        local pc = must("find " .. q(PREFIX) .. " -name ricochet.pc")
        LIBDIR = assert(pc:match("^(.*)/pkgconfig/ricochet%.pc\n"), "no ricochet.pc under " .. PREFIX)
        for _, p in ipairs(PROGRAMS) do H.write_file(DIR .. "/" .. p.name .. ".c", p.block.code) end
    end)
    teardown(function() H.rm_rf(DIR) end)

    it("installs the libraries, the headers, the program and the Lua module", function()
        local version = must(CLEAN .. q(PREFIX .. "/bin/ricochet") .. " version"):match("^ricochet (%d+%.%d+%.%d+)")
        assert.is_truthy(version)
        local major, minor = version:match("^(%d+)%.(%d+)")
        local soname = "libricochet.so." .. (major == "0" and major .. "." .. minor or major)
        for _, f in ipairs{ LIBDIR .. "/libricochet.so." .. version, LIBDIR .. "/" .. soname,
                            LIBDIR .. "/libricochet.so", LIBDIR .. "/libricochet.a",
                            LIBDIR .. "/libricochet_luahost.a",
                            PREFIX .. "/include/ricochet.h", PREFIX .. "/include/ricochet_lua.h",
                            PREFIX .. "/lib/lua/5.4/ricochet/core.so",
                            PREFIX .. "/share/lua/5.4/ricochet/init.lua",
                            PREFIX .. "/share/lua/5.4/ricochet/laws/coulomb.lua",
                            LIBDIR .. "/pkgconfig/ricochet-static.pc", LIBDIR .. "/pkgconfig/ricochet-lua.pc",
                            LIBDIR .. "/cmake/ricochet/ricochetConfig.cmake",
                            LIBDIR .. "/cmake/ricochet/ricochetConfigVersion.cmake" } do
            assert.is_truthy(io.open(f), "not installed: " .. f)
        end
        assert.matches("%(SONAME%)%s+Library soname: %[" .. soname:gsub("%.", "%%.") .. "%]",
                       needed(LIBDIR .. "/libricochet.so." .. version))
        -- the module where lua5.4 looks without LUA_PATH/LUA_CPATH when PREFIX is /usr/local
        local paths = must(CLEAN .. "lua5.4 -e 'print(package.path) print(package.cpath)'")
        assert.matches("/usr/local/share/lua/5.4/?/init.lua;", paths, 1, true)
        assert.matches("/usr/local/lib/lua/5.4/?.so;", paths, 1, true)
    end)

    it("builds the docs' C programs with pkg-config, static and shared", function()
        assert.is_true(#PROGRAMS >= 2, "C programs marked in docs/c-api.md and docs/laws.md: " .. #PROGRAMS)
        local pc = "PKG_CONFIG_PATH=" .. q(LIBDIR .. "/pkgconfig") .. " pkg-config "
        assert.are.equal(must(CLEAN .. q(PREFIX .. "/bin/ricochet") .. " version"):match("^ricochet (%S+)") .. "\n",
                         must(pc .. "--modversion ricochet"))
        -- --static lists what libricochet.a needs (OpenMP too: the undefined GOMP symbols of issue 17)
        local static_libs = must(pc .. "--static --libs ricochet")
        for _, l in ipairs{ "-lricochet", "-llapacke", "-lz", "-lm", "-lgomp" } do
            assert.matches(l, static_libs, 1, true)
        end
        for _, p in ipairs(PROGRAMS) do
            local src, exe = q(DIR .. "/" .. p.name .. ".c"), DIR .. "/" .. p.name
            must("cc -std=c11 -O2 " .. CFLAGS .. " " .. src .. " $(" .. pc .. "--cflags --libs ricochet-static) -o "
                 .. q(exe .. "_pcs"))
            assert.is_nil(needed(exe .. "_pcs"):find("libricochet", 1, true))
            check_output(p, must(exe .. "_pcs"), "pkg-config ricochet-static")
            must("cc -std=c11 -O2 " .. CFLAGS .. " " .. src .. " $(" .. pc .. "--cflags --libs ricochet) -Wl,-rpath,"
                 .. q(LIBDIR) .. " -lm -o " .. q(exe .. "_pcd"))
            assert.matches("libricochet.so.", needed(exe .. "_pcd"), 1, true)
            check_output(p, must(exe .. "_pcd"), "pkg-config ricochet")
        end
    end)

    it("builds them with find_package(ricochet), static and shared", function()
        local proj = DIR .. "/cmake"
        must("mkdir -p " .. q(proj))
        local cml = { "cmake_minimum_required(VERSION 3.18)", "project(consumer LANGUAGES C)",
                      "find_package(ricochet 0.1 REQUIRED)" }
        for _, p in ipairs(PROGRAMS) do
            cml[#cml + 1] = ("add_executable(%s_static %s/%s.c)"):format(p.name, DIR, p.name)
            cml[#cml + 1] = ("target_link_libraries(%s_static PRIVATE ricochet::ricochet_static)"):format(p.name)
            cml[#cml + 1] = ("add_executable(%s_shared %s/%s.c)"):format(p.name, DIR, p.name)
            cml[#cml + 1] = ("target_link_libraries(%s_shared PRIVATE ricochet::ricochet m)"):format(p.name)
        end
        H.write_file(proj .. "/CMakeLists.txt", table.concat(cml, "\n") .. "\n")
        must(TOOL .. "cmake -S " .. q(proj) .. " -B " .. q(proj .. "/build") .. " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="
             .. q(PREFIX) .. " -DCMAKE_C_FLAGS=" .. q(CFLAGS))
        must(TOOL .. "cmake --build " .. q(proj .. "/build"))
        for _, p in ipairs(PROGRAMS) do
            local s, d = proj .. "/build/" .. p.name .. "_static", proj .. "/build/" .. p.name .. "_shared"
            assert.is_nil(needed(s):find("libricochet", 1, true))
            assert.matches("libricochet.so.", needed(d), 1, true)
            check_output(p, must(s), "ricochet::ricochet_static")
            check_output(p, must(d), "ricochet::ricochet")
        end
        -- a version the package is not compatible with is refused
        H.write_file(proj .. "/CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(c2 LANGUAGES C)\n"
                     .. "find_package(ricochet 1.0 REQUIRED)\n")
        local code, _, err = sh(TOOL .. "cmake -S " .. q(proj) .. " -B " .. q(proj .. "/build2") .. " -DCMAKE_PREFIX_PATH=" .. q(PREFIX))
        assert.are_not.equal(0, code)
        assert.matches("ricochetConfig.cmake, version: 0.1", err, 1, true)
    end)

    it("cpack -G DEB makes a package with the files under /usr and their Depends", function()
        if not (H.have("cpack") and H.have("dpkg-deb") and H.have("dpkg-shlibdeps")) then
            pending("cpack, dpkg-deb or dpkg-shlibdeps (dpkg-dev) missing")
            return
        end
        local out = DIR .. "/deb"
        must(TOOL .. "cpack -G DEB --config " .. q(BUILD .. "/CPackConfig.cmake") .. " -B " .. q(out))
        local deb = must("ls " .. q(out) .. "/ricochet_*.deb"):match("[^\n]+")
        local fields = must("dpkg-deb -f " .. q(deb))
        assert.matches("Package: ricochet\n", fields, 1, true)
        local depends = assert(fields:match("\nDepends: ([^\n]*)"), fields)
        -- what the program, libricochet.so and core.so are linked with
        for _, p in ipairs{ "libc6", "libgomp1", "liblapacke", "liblua5.4-0", "zlib1g" } do
            assert.matches("%f[%w]" .. p:gsub("%p", "%%%0") .. " %(", depends)
        end
        local files = must("dpkg-deb -c " .. q(deb))
        for _, f in ipairs{ "./usr/bin/ricochet", "./usr/include/ricochet.h", "./usr/lib/lua/5.4/ricochet/core.so",
                            "./usr/share/lua/5.4/ricochet/init.lua", "pkgconfig/ricochet.pc",
                            "cmake/ricochet/ricochetConfig.cmake", "libricochet.so.0" } do
            assert.matches(f, files, 1, true)
        end
        -- the .pc files name /usr, the prefix of the package
        local pc = must("dpkg-deb --fsys-tarfile " .. q(deb) .. " | tar -xO --wildcards '*/pkgconfig/ricochet.pc'")
        assert.matches("\nprefix=/usr\n", pc, 1, true)
    end)

    local SCENE = [[
local rc = require "ricochet"
local coulomb = require "ricochet.laws.coulomb"
print("init", package.searchpath("ricochet", package.path))
print("laws", package.searchpath("ricochet.laws.coulomb", package.path))
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
local b = w:body{ name = "ball", mass = 1, inertia = 0.1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.1 } }
w:contact{ w.ground, b, law = coulomb{ e = 0, mu = 0.5 } }
local sim = w:simulation{ h = 1e-3, theta = 0.5 }
sim:run{ T = 0.3 }                                   -- in flight: y = 1 - 5 t^2, exact at theta = 1/2
print(string.format("y = %.6f", b:q()[2]))
]]

    it("runs a scenario with the installed program and its installed Lua files", function()
        local dir = DIR .. "/run"
        must("mkdir -p " .. q(dir))
        H.write_file(dir .. "/scene.lua", SCENE)
        local out = must("cd " .. q(dir) .. " && " .. CLEAN .. q(PREFIX .. "/bin/ricochet") .. " run scene.lua --out o --quiet")
        assert.matches("init\t" .. PREFIX .. "/share/lua/5.4/ricochet/init.lua\n", out, 1, true)
        assert.matches("laws\t" .. PREFIX .. "/share/lua/5.4/ricochet/laws/coulomb.lua\n", out, 1, true)
        assert.matches("y = 0.550000\n", out, 1, true)
        assert.matches('"status": "complete"', H.read_file(dir .. "/o/run.json"), 1, true)
        -- nothing of the source tree on its path
        local path = must("cd " .. q(dir) .. " && " .. CLEAN .. "RICOCHET_ROOT= " .. q(PREFIX .. "/bin/ricochet")
                          .. " run " .. q(H.write_file(dir .. "/path.lua", "print(package.path)\n") or "path.lua"))
        assert.matches("^" .. PREFIX:gsub("%p", "%%%0") .. "/share/lua/5%.4/%?%.lua;", path)
        assert.is_nil(path:find(ROOT .. "/lua", 1, true), path)
    end)

    it("loads the module in plain lua5.4 with LUA_PATH and LUA_CPATH in the prefix", function()
        local dir = DIR .. "/plain"
        must("mkdir -p " .. q(dir))
        H.write_file(dir .. "/scene.lua", SCENE .. 'print("core", package.searchpath("ricochet.core", package.cpath))\n')
        local env = CLEAN .. "LUA_PATH=" .. q(PREFIX .. "/share/lua/5.4/?.lua;" .. PREFIX .. "/share/lua/5.4/?/init.lua;;")
                    .. " LUA_CPATH=" .. q(PREFIX .. "/lib/lua/5.4/?.so;;") .. " "
        local out = must("cd " .. q(dir) .. " && " .. env .. "lua5.4 scene.lua")
        assert.matches("init\t" .. PREFIX .. "/share/lua/5.4/ricochet/init.lua\n", out, 1, true)
        assert.matches("core\t" .. PREFIX .. "/lib/lua/5.4/ricochet/core.so\n", out, 1, true)
        assert.matches("y = 0.550000\n", out, 1, true)
        -- without them, this prefix is not found (docs/install.md: only /usr/local and /usr are)
        local code, _, err = sh("cd " .. q(dir) .. " && " .. CLEAN .. "lua5.4 -e 'package.path = \"\" require \"ricochet\"'")
        assert.are_not.equal(0, code)
        assert.matches("module 'ricochet' not found", err, 1, true)
    end)
end)
