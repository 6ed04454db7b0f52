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

/* the flat list t[key] of 3 n numbers (checked by the Lua side) into scratch */
static double *flat_points(lua_State *L, int t, const char *key, int *n)
{
    lua_getfield(L, t, key);
    luaL_checktype(L, -1, LUA_TTABLE);
    const int len = (int)luaL_len(L, -1);
    double *x = lrc_scratch(L, len > 0 ? len : 1);
    lua_pushvalue(L, -2);   /* (scratch above the list) */
    lua_remove(L, -3);
    lrc_read_vec(L, lua_gettop(L), x, len, key);
    lua_pop(L, 1);
    *n = len / 3;
    return x;
}

/* polyhedron_mass(points (flat xyz), rho) -> mass, c = 3, J = 9 | nil, msg, status */
int lrc_polyhedron_mass(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_newtable(L);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "points");
    int n;
    const double *x = flat_points(L, lua_gettop(L), "points", &n);
    double m, c[3], J[9];
    rc_status s = rc_polyhedron_mass_properties(x, n, luaL_checknumber(L, 2), &m, c, J);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, m);
    lrc_push_vec(L, c, 3);
    lrc_push_vec(L, J, 9);
    return 3;
}

/* shape3_create(world, body | GROUND, { kind = "sphere" | "capsule" | "box" | "plane" | "polyhedron",
 * radius, half_length, half = 3, point = 3, normal = 3, points = 3 n (flat) }) -> id | nil, msg, status */
int lrc_shape3_create(lua_State *L)
{
    static const char *const kinds[] = { "plane", "sphere", "capsule", "box", "polyhedron", NULL };
    lrc_world *lw = lrc_check_idle(L, 1);
    const int body = (int)luaL_checkinteger(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    rc_shape3_def def = rc_default_shape3_def();
    lua_getfield(L, 3, "kind");
    def.kind = (rc_shape3_kind)luaL_checkoption(L, -1, NULL, kinds);
    lua_pop(L, 1);
    def.radius = lrc_field_num(L, 3, "radius", def.radius);
    def.half_len = lrc_field_num(L, 3, "half_length", def.half_len);
    lrc_field_vec(L, 3, "half", def.half, 3);
    lrc_field_vec(L, 3, "point", def.point, 3);
    lrc_field_vec(L, 3, "normal", def.normal, 3);
    def.group = (int)lrc_field_int(L, 3, "group", def.group);
    int id = -1;
    rc_status s;
    if (def.kind == RC_SHAPE3_POLYHEDRON) {
        int n;
        const double *x = flat_points(L, 3, "points", &n);
        s = rc_shape3_create_polyhedron(lw->w, body, x, n, def.point, &id);
    } else {
        s = rc_shape3_create(lw->w, body, &def, &id);
    }
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

static void set_vec(lua_State *L, const char *k, const double *x)
{
    lrc_push_vec(L, x, 3);
    lua_setfield(L, -2, k);
}

/* contacts3(world) -> { { id, shape_a, shape_b, body_a, body_b, active, gN,
 * pa, pb, n, t1, t2, u = {uN, uT1, uT2}, p = {pN, pT1, pT2} }, ... }; a
 * Coulomb--Contensou contact has u[4] = u_D and p[4] = p_D (drilling row) */
int lrc_contacts3(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    const int n = rc_world_contact3_count(lw->w);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        rc_contact3_info c;
        rc_world_contact3_get(lw->w, i, &c);
        lua_createtable(L, 0, 14);
        lua_pushinteger(L, c.id); lua_setfield(L, -2, "id");
        lua_pushinteger(L, c.shape_a); lua_setfield(L, -2, "shape_a");
        lua_pushinteger(L, c.shape_b); lua_setfield(L, -2, "shape_b");
        lua_pushinteger(L, c.body_a); lua_setfield(L, -2, "body_a");
        lua_pushinteger(L, c.body_b); lua_setfield(L, -2, "body_b");
        lua_pushboolean(L, c.active); lua_setfield(L, -2, "active");
        lua_pushnumber(L, c.gN); lua_setfield(L, -2, "gN");
        set_vec(L, "pa", c.pa); set_vec(L, "pb", c.pb);
        set_vec(L, "n", c.n); set_vec(L, "t1", c.t1); set_vec(L, "t2", c.t2);
        set_vec(L, "u", c.u); set_vec(L, "p", c.p);
        if (c.drill) {
            lua_getfield(L, -1, "u"); lua_pushnumber(L, c.u_d); lua_rawseti(L, -2, 4); lua_pop(L, 1);
            lua_getfield(L, -1, "p"); lua_pushnumber(L, c.p_d); lua_rawseti(L, -2, 4); lua_pop(L, 1);
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}
