/* lua_host.h -- internal to the Lua host (lua_sandbox.c, lua_strmatch.c). */
#ifndef RC_LUA_HOST_H
#define RC_LUA_HOST_H

#include <lua.h>

/* Charge `units` of work done inside a C function (pattern-matching steps)
 * to the state's instruction count, as if they were Lua instructions; raises
 * the limit's error if a limit is now exceeded, or "interrupted" after
 * rc_request_interrupt(). No-op (except the interrupt check) in states not
 * opened by rc_lua_open. */
void rc__lua_charge(lua_State *L, long long units);

/* Replace string.find/match/gmatch/gsub by the counted versions. */
void rc__lua_open_strmatch(lua_State *L);

#endif
