-- LuaRocks: luarocks make lua/ricochet-scm-1.rockspec (from the repository's
-- root) builds the library with CMake and installs the module (ricochet,
-- ricochet.core, ricochet.laws.*, ricochet.lp, ...) into the rocks tree, and
-- the ricochet program into its bin/ (docs/install.md). Needs the Debian
-- packages of scripts/setup (cmake, a C compiler, liblapacke-dev, zlib1g-dev, liblua5.4-dev).
rockspec_format = "3.0"
package = "ricochet"
version = "scm-1"
source = {
   url = "git+file://.",
}
description = {
   summary = "Nonsmooth contact dynamics: Moreau-Jean time stepping, a C11 kernel with a Lua 5.4 front end",
   detailed = [[
Rigid bodies with unilateral contact, impacts, Coulomb friction and joints, integrated by
event-capturing time stepping (Moreau-Jean, Moreau-Jean-Fremond, Maury), with an energy
audit every step.
]],
   license = "see the repository",
}
dependencies = {
   "lua >= 5.4, < 5.5",
}
build = {
   type = "cmake",
   variables = {
      CMAKE_BUILD_TYPE = "Release",
      CMAKE_INSTALL_PREFIX = "$(PREFIX)",
      RC_LUA_CMOD_DIR = "$(LIBDIR)",
      RC_LUA_LMOD_DIR = "$(LUADIR)",
      -- the C libraries, headers, pkg-config and CMake files stay in the rock's
      -- folder (its lib/ is for Lua modules): cmake --install is the way to them
      CMAKE_INSTALL_LIBDIR = "c/lib",
      CMAKE_INSTALL_INCLUDEDIR = "c/include",
      RC_LIBRARY_ONLY = "ON",
      RC_OPENMP = "ON",
   },
   copy_directories = {},
}
