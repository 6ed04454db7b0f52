/* lua_ricochet.c -- STUB, being written. */
#include <lua.h>
#include <lauxlib.h>
#include "ricochet.h"
int luaopen_ricochet_core(lua_State *L) { lua_newtable(L); return 1; }
