/* lrc_joint3.c -- ricochet.core: joints of spatial bodies (rc_joint3_create,
 * rc_joint3_get); lua/ricochet/joint3d.lua checks the arguments. */
#include "lrc.h"

static const char *const joint3_kinds[] = { "spherical", "revolute", "fixed", "distance", "prismatic", NULL };

/* joint3_create(world, { kind, a = id | GROUND, b = id, anchor = 3,
 * anchor_b = 3, axis = 3, name, f = function | nil, df = function | nil })
 * -> id | nil, msg, status */
int lrc_joint3_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_joint3_def def = rc_default_joint3_def();
    lua_getfield(L, 2, "kind");
    def.type = (rc_joint3_type)(luaL_checkoption(L, -1, NULL, joint3_kinds) + 1);
    lua_pop(L, 1);
    def.body_a = (int)lrc_field_int(L, 2, "a", RC_GROUND);
    def.body_b = (int)lrc_field_int(L, 2, "b", -1);
    lrc_field_vec(L, 2, "anchor", def.anchor, 3);
    lrc_field_vec(L, 2, "anchor_b", def.anchor_b, 3);
    lrc_field_vec(L, 2, "axis", def.axis, 3);
    def.name = lrc_field_str(L, 2, "name");
    void *user = NULL;
    lua_getfield(L, 2, "f");
    lua_getfield(L, 2, "df");
    if (lua_isfunction(L, -2)) {   /* prescribed motion: f(t), df(t) or nil (lrc_mechanisms.c) */
        char label[96];
        if (def.name) snprintf(label, sizeof label, "joint '%s'", def.name);
        else snprintf(label, sizeof label, "3D joint %d", rc_joint3_count(lw->w));
        def.motion = lrc_motion_holder(L, lw, -2, -1, label, &user);
        def.motion_user = user;
    }
    lua_pop(L, 2);
    int id = -1;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_joint3_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) {
        if (user) lrc_motion_drop(L, user);
        return lrc_push_fail(L, s);
    }
    lua_pushinteger(L, id);
    return 1;
}

/* joint3_set_motor(world, id, enabled, speed, max) -> true | nil, msg, status */
int lrc_joint3_set_motor(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    const int id = (int)luaL_checkinteger(L, 2), enabled = lua_toboolean(L, 3);
    rc_status s = rc_joint3_set_motor(lw->w, id, enabled, luaL_checknumber(L, 4), luaL_checknumber(L, 5));
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* joint3_get(world, id) -> { impulse = {rows}, violation, work, coordinate
 * (revolute, prismatic, distance), drive_force (driven) } | nil, msg, status */
int lrc_joint3_get(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_joint3_info in;
    rc_status s = rc_joint3_get(lw->w, (int)luaL_checkinteger(L, 2), &in);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_createtable(L, 0, 3);
    lrc_push_vec(L, in.impulse, in.rows);
    lua_setfield(L, -2, "impulse");
    lua_pushnumber(L, in.violation);
    lua_setfield(L, -2, "violation");
    lua_pushnumber(L, in.work);
    lua_setfield(L, -2, "work");
    if (in.type == RC_JOINT3_REVOLUTE || in.type == RC_JOINT3_PRISMATIC || in.type == RC_JOINT3_DISTANCE) {
        lua_pushnumber(L, in.coordinate);
        lua_setfield(L, -2, "coordinate");
    }
    if (in.type == RC_JOINT3_REVOLUTE || in.type == RC_JOINT3_PRISMATIC) {
        lua_pushnumber(L, in.motor_force);
        lua_setfield(L, -2, "motor_force");
    }
    if (in.driven) {   /* the drive's force (torque) over the last step: its row's impulse / h */
        lua_pushnumber(L, in.drive_force);
        lua_setfield(L, -2, "drive_force");
    }
    return 1;
}
