/* lrc_remove.c -- ricochet.core: removing bodies, shapes, joints and springs
 * (src/model/remove.c; lua/ricochet/remove.lua has the methods). */
#include "lrc.h"

#include <string.h>

static const char *const kinds[] = { "body", "shape", "joint", "spring", NULL };

/* remove(world, kind, id) -> true | nil, msg, status ("body" also drops the
 * body's Lua force function) */
int lrc_remove(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    const int kind = luaL_checkoption(L, 2, NULL, kinds);
    const int id = (int)luaL_checkinteger(L, 3);
    rc_status s = kind == 0 ? rc_body_destroy(lw->w, id) : kind == 1 ? rc_shape_destroy(lw->w, id)
                : kind == 2 ? rc_joint_destroy(lw->w, id) : rc_spring_destroy(lw->w, id);
    if (s != RC_OK) return lrc_push_fail(L, s);
    if (kind == 0) {   /* the force function the body had */
        lua_rawgeti(L, LUA_REGISTRYINDEX, lw->fn_ref);
        lua_pushnil(L);
        lua_rawseti(L, -2, id);
        lua_pop(L, 1);
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* is_removed(world, kind, id) -> bool */
int lrc_is_removed(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    const int kind = luaL_checkoption(L, 2, NULL, kinds);
    const int id = (int)luaL_checkinteger(L, 3);
    lua_pushboolean(L, kind == 0 ? rc_body_is_removed(lw->w, id) : kind == 1 ? rc_shape_is_removed(lw->w, id)
                     : kind == 2 ? rc_joint_is_removed(lw->w, id) : rc_spring_is_removed(lw->w, id));
    return 1;
}

/* body_generation(world, id) -> integer */
int lrc_body_generation(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushinteger(L, (lua_Integer)rc_body_generation(lw->w, (int)luaL_checkinteger(L, 2)));
    return 1;
}

/* removed_energy(world) -> E_removed */
int lrc_removed_energy(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushnumber(L, rc_world_removed_energy(lw->w));
    return 1;
}

/* body_life(world, id) -> generation, removed, t | nil, name | nil, t_first | nil:
 * a slot's generation, whether it is free, the time of its last removal, the
 * name (the removed body's, or the live body's) and the time of its first
 * removal -- remove.lua's sync after a checkpoint is restored. */
int lrc_body_life(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    const int id = (int)luaL_checkinteger(L, 2);
    double t = 0.0;
    const char *name = NULL;
    const int removed = rc_body_removal(lw->w, id, &t, &name) == RC_OK;
    if (!removed) name = rc_body_name(lw->w, id);
    lua_pushinteger(L, (lua_Integer)rc_body_generation(lw->w, id));
    lua_pushboolean(L, removed);
    if (removed) lua_pushnumber(L, t); else lua_pushnil(L);
    if (name) lua_pushstring(L, name); else lua_pushnil(L);
    double t_first;
    if (rc_body_first_removal(lw->w, id, &t_first) == RC_OK) lua_pushnumber(L, t_first); else lua_pushnil(L);
    return 5;
}

/* link_removal(world, "joint" | "spring", id) -> t | nil: when a joint or a
 * spring was removed (with its body, by a callback, or broken) */
int lrc_link_removal(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    const int kind = luaL_checkoption(L, 2, NULL, kinds);
    const int id = (int)luaL_checkinteger(L, 3);
    double t;
    rc_status s = kind == 2 ? rc_joint_removal(lw->w, id, &t, NULL) : kind == 3 ? rc_spring_removal(lw->w, id, &t, NULL)
                : RC_ERR_ARG;
    if (s != RC_OK) lua_pushnil(L); else lua_pushnumber(L, t);
    return 1;
}

/* broken_joints(world [, "log"]) -> { { joint = id, t, force, torque }, ... } [, total]:
 * the joints broken after the last step, or the log of every break */
int lrc_broken_joints(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    const int log = lua_type(L, 2) == LUA_TSTRING && strcmp(lua_tostring(L, 2), "log") == 0;
    const rc_joint_break *list = NULL;
    int n = 0;
    long total = 0;
    rc_status s = log ? rc_world_break_log(lw->w, &list, &n, &total) : rc_world_broken_joints(lw->w, &list, &n);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        lua_pushinteger(L, list[i].joint); lua_setfield(L, -2, "joint");
        lua_pushnumber(L, list[i].t); lua_setfield(L, -2, "t");
        lua_pushnumber(L, list[i].force); lua_setfield(L, -2, "force");
        lua_pushnumber(L, list[i].torque); lua_setfield(L, -2, "torque");
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushinteger(L, (lua_Integer)(log ? total : n));
    return 2;
}
