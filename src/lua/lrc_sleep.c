/* lrc_sleep.c -- ricochet.core: sleeping (src/model/sleep.c; the methods and
 * the option's checks are in lua/ricochet/sleep.lua). */
#include "lrc.h"

/* set_sleep(world, enabled, linear, angular, time) -> true | nil, msg, status */
int lrc_set_sleep(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    rc_sleep_def d = rc_default_sleep_def();
    d.enabled = lua_toboolean(L, 2);
    d.linear = luaL_checknumber(L, 3);
    d.angular = luaL_checknumber(L, 4);
    d.time = luaL_checknumber(L, 5);
    rc_status s = rc_world_set_sleep(lw->w, &d);
    return lrc_push_done(L, s);
}

/* body_wake(world, id) -> true | nil, msg, status */
int lrc_body_wake(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    rc_status s = rc_body_wake(lw->w, (int)luaL_checkinteger(L, 2));
    return lrc_push_done(L, s);
}

/* body_sleeping(world, id) -> bool */
int lrc_body_sleeping(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushboolean(L, rc_body_is_sleeping(lw->w, (int)luaL_checkinteger(L, 2)));
    return 1;
}

/* sleep_info(world) -> { enabled, sleeping, awake, fell_asleep, woke, pairs,
 * kept_contacts, steps, awake_mean } */
int lrc_sleep_info(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_sleep_info si;
    rc_status s = rc_world_sleep_info(lw->w, &si);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_createtable(L, 0, 9);
    lua_pushboolean(L, si.enabled); lua_setfield(L, -2, "enabled");
    lua_pushinteger(L, si.sleeping); lua_setfield(L, -2, "sleeping");
    lua_pushinteger(L, si.awake); lua_setfield(L, -2, "awake");
    lua_pushinteger(L, si.fell_asleep); lua_setfield(L, -2, "fell_asleep");
    lua_pushinteger(L, si.woke); lua_setfield(L, -2, "woke");
    lua_pushinteger(L, si.pairs); lua_setfield(L, -2, "pairs");
    lua_pushinteger(L, si.kept_contacts); lua_setfield(L, -2, "kept_contacts");
    lua_pushinteger(L, (lua_Integer)si.steps); lua_setfield(L, -2, "steps");
    lua_pushnumber(L, si.steps > 0 ? si.awake_sum / (double)si.steps : 0.0); lua_setfield(L, -2, "awake_mean");
    return 1;
}
