/* lrc_body3d.c -- ricochet.core: spatial rigid bodies (rc_body3d_create,
 * rc_solid_mass_properties); lua/ricochet/body3d.lua checks the arguments. */
#include "lrc.h"

/* body3d_create(world, { name, mass, inertia = 9 numbers (row-major),
 * q = 7, v = 6, force = 6 }) -> id | nil, msg, status */
int lrc_body3d_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_body3d_def def = rc_default_body3d_def();
    def.name = lrc_field_str(L, 2, "name");
    def.mass = lrc_field_num(L, 2, "mass", def.mass);
    lrc_field_vec(L, 2, "inertia", def.inertia, 9);
    lrc_field_vec(L, 2, "q", def.q, 7);
    lrc_field_vec(L, 2, "v", def.v, 6);
    lrc_field_vec(L, 2, "force", def.force, 6);
    int id = -1;
    rc_status s = rc_body3d_create(lw->w, &def, &id);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

/* body3d_mass(world, id) -> m, {J1, J2, J3} | nil, msg, status */
int lrc_body3d_mass(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    double m, J[3];
    rc_status s = rc_body3d_get_mass(lw->w, id, &m, J);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, m);
    lrc_push_vec(L, J, 3);
    return 2;
}

/* solid_mass("sphere" | "box" | "capsule", dims, density) -> m, {J1, J2, J3} | nil, msg, status */
int lrc_solid_mass(lua_State *L)
{
    static const char *const kinds[] = { "sphere", "box", "capsule", NULL };
    static const rc_solid_kind ids[] = { RC_SOLID_SPHERE, RC_SOLID_BOX, RC_SOLID_CAPSULE };
    const int k = luaL_checkoption(L, 1, NULL, kinds);
    double dims[3] = { 0.0, 0.0, 0.0 }, m, J[3];
    lrc_read_vec(L, 2, dims, k == 0 ? 1 : k == 1 ? 3 : 2, "dims");
    rc_status s = rc_solid_mass_properties(ids[k], dims, luaL_checknumber(L, 3), &m, J);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, m);
    lrc_push_vec(L, J, 3);
    return 2;
}
