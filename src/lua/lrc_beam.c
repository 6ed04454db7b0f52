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
