/* lrc_beam.c -- the binding of nonlinear beams (rc_beam_create, rc_beam_point,
 * rc_beam_energy; src/model/beam.c). The Lua front end (lua/ricochet/beam.lua)
 * checks keys, types and ranges first. */
#include "lrc.h"

/* beam_create(world, { name, a = {x, y}, b = {x, y}, elements, degree,
 * quadrature, EA, EI, rho, gravity = {gx, gy}, v0 = {vx, vy} }) -> body id | nil, msg, status */
int lrc_beam_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_beam_def def = rc_default_beam_def();
    def.name = lrc_field_str(L, 2, "name");
    lrc_field_vec(L, 2, "a", def.a, 2);
    lrc_field_vec(L, 2, "b", def.b, 2);
    def.elements = (int)lrc_field_int(L, 2, "elements", def.elements);
    def.degree = (int)lrc_field_int(L, 2, "degree", def.degree);
    def.quadrature = (int)lrc_field_int(L, 2, "quadrature", def.quadrature);
    def.EA = lrc_field_num(L, 2, "EA", def.EA);
    def.EI = lrc_field_num(L, 2, "EI", def.EI);
    def.rho = lrc_field_num(L, 2, "rho", def.rho);
    lrc_field_vec(L, 2, "gravity", def.gravity, 2);
    lrc_field_vec(L, 2, "v0", def.v0, 2);
    int id = -1;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_beam_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

/* beam_point(world, id, xi) -> x, y, dx/dxi, dy/dxi | nil, msg, status */
int lrc_beam_point(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    double xi = luaL_checknumber(L, 3), r[2], dr[2];
    rc_status s = rc_beam_point(lw->w, id, xi, NULL, r, dr);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, r[0]);
    lua_pushnumber(L, r[1]);
    lua_pushnumber(L, dr[0]);
    lua_pushnumber(L, dr[1]);
    return 4;
}

/* beam_energy(world, id) -> E_kin, E_el, E_grav | nil, msg, status */
int lrc_beam_energy(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    double ek = 0, ee = 0, eg = 0;
    rc_status s = rc_beam_energy(lw->w, id, &ek, &ee, &eg);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, ek);
    lua_pushnumber(L, ee);
    lua_pushnumber(L, eg);
    return 3;
}

/* beam_joint_create(world, { beam, xi, body (-1: ground), point = {x, y}, axis = {x, y},
 * angle = 0 | 1, angle0 = number | nil, f = function | nil, df = function | nil, name })
 * -> joint id | nil, msg, status */
int lrc_beam_joint_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_beam_joint_def def = rc_default_beam_joint_def();
    def.beam = (int)lrc_field_int(L, 2, "beam", -1);
    def.xi = lrc_field_num(L, 2, "xi", def.xi);
    def.body = (int)lrc_field_int(L, 2, "body", RC_GROUND);
    lrc_field_vec(L, 2, "point", def.point, 2);
    lrc_field_vec(L, 2, "axis", def.axis, 2);
    def.angle = (int)lrc_field_int(L, 2, "angle", 0);
    def.angle0 = lrc_field_num(L, 2, "angle0", def.angle0);
    def.name = lrc_field_str(L, 2, "name");
    void *user = NULL;
    lua_getfield(L, 2, "f");
    lua_getfield(L, 2, "df");
    if (lua_isfunction(L, -2)) {
        char label[96];
        snprintf(label, sizeof label, "beam joint '%s'", def.name ? def.name : "?");
        def.motion = lrc_motion_holder(L, lw, -2, -1, label, &user);
        def.motion_user = user;
    }
    lua_pop(L, 2);
    int id = -1;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_beam_joint_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) {
        if (user) lrc_motion_drop(L, user);
        return lrc_push_fail(L, s);
    }
    lua_pushinteger(L, id);
    return 1;
}

/* beam_joint_get(world, id) -> { g = {..}, force = {..} } | nil, msg, status */
int lrc_beam_joint_get(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    int rows = 0;
    double g[3], f[3];
    lrc_saved sv = lrc_enter_kernel(lw, L);   /* the angle's Lua function may run */
    rc_status s = rc_beam_joint_get(lw->w, id, &rows, g, f);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_createtable(L, 0, 2);
    lrc_push_vec(L, g, rows);
    lua_setfield(L, -2, "g");
    lrc_push_vec(L, f, rows);
    lua_setfield(L, -2, "force");
    return 1;
}
