/*
 * lua_frames.h -- ricochet.core's functions for the frame file and for
 * reading gzip files (src/lua_frames.c), registered by luaopen_ricochet_core.
 */
#ifndef RC_LUA_FRAMES_H
#define RC_LUA_FRAMES_H

#include <lua.h>

#include "ricochet.h"

/* Sets frames_open, frames_write, frames_count, frames_close and read_gz in
 * the table on top of the stack. */
void rc__lua_frames_register(lua_State *L);
/* The world of ricochet.core's world userdata at idx, open and not
 * stepping (raises otherwise); defined in lua_ricochet.c. */
rc_world *rc__lua_idle_world(lua_State *L, int idx);

#endif
