/* lrc_fem.c -- the binding of finite-element bodies (rc_fem_create,
 * rc_fem_assemble; src/model/fem_t3.c). The Lua front end
 * (lua/ricochet/fem.lua) checks keys, types and ranges first. */
#include "lrc.h"

/* { name, xy = {2n numbers}, tri = {3m 0-based integers}, E, nu, rho,
 * thickness, plane = 0 | 1, mass = 0 | 1, alpha, beta, gravity = {gx, gy},
 * renumber = bool } -> def (arrays: buffers left on the stack) */
static void fem_def_read(lua_State *L, int t, rc_fem_def *def)
{
    *def = rc_default_fem_def();
    def->name = lrc_field_str(L, t, "name");
    if (lua_getfield(L, t, "xy") != LUA_TTABLE) luaL_error(L, "fem: 'xy' must be a table");
    lua_Unsigned nxy = lua_rawlen(L, -1);
    if (nxy % 2 || nxy / 2 > (lua_Unsigned)RC_FEM_MAX_NODES) luaL_error(L, "fem: 'xy' must have 2 numbers per node, at most %d nodes", RC_FEM_MAX_NODES);
    double *xy = lrc_scratch(L, (int)nxy);
    lrc_read_vec(L, lua_gettop(L) - 1, xy, (int)nxy, "xy");
    def->nnodes = (int)(nxy / 2);
    def->xy = xy;
    if (lua_getfield(L, t, "tri") != LUA_TTABLE) luaL_error(L, "fem: 'tri' must be a table");
    lua_Unsigned nt = lua_rawlen(L, -1);
    if (nt % 3 || nt > 0x3fffffff) luaL_error(L, "fem: 'tri' must have 3 integers per triangle");
    int *tri = lua_newuserdatauv(L, (size_t)(nt ? nt : 1) * sizeof(int), 0);
    for (lua_Unsigned i = 0; i < nt; i++) {
        lua_rawgeti(L, -2, (lua_Integer)i + 1);
        int ok = 0;
        lua_Integer k = lua_tointegerx(L, -1, &ok);
        if (!ok || k < 0 || k > 0x7fffffff) luaL_error(L, "fem: tri[%d] must be a 0-based node index", (int)i + 1);
        tri[i] = (int)k;
        lua_pop(L, 1);
    }
    def->ntri = (int)(nt / 3);
    def->tri = tri;
    def->E = lrc_field_num(L, t, "E", def->E);
    def->nu = lrc_field_num(L, t, "nu", def->nu);
    def->rho = lrc_field_num(L, t, "rho", def->rho);
    def->thickness = lrc_field_num(L, t, "thickness", def->thickness);
    def->plane = (int)lrc_field_int(L, t, "plane", def->plane);
    def->mass = (int)lrc_field_int(L, t, "mass", def->mass);
    def->alpha = lrc_field_num(L, t, "alpha", def->alpha);
    def->beta = lrc_field_num(L, t, "beta", def->beta);
    lrc_field_vec(L, t, "gravity", def->gravity, 2);
    if (lua_getfield(L, t, "renumber") != LUA_TNIL) def->renumber = lua_toboolean(L, -1);
    lua_pop(L, 1);
}

static void push_perm(lua_State *L, const int *perm, int n)
{
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        lua_pushinteger(L, perm[k] + 1);
        lua_rawseti(L, -2, k + 1);
    }
}

/* fem_create(world, def) -> body id, perm (node k -> place, 1-based), bandwidth | nil, msg, status */
int lrc_fem_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_fem_def def;
    fem_def_read(L, 2, &def);
    int *perm = lua_newuserdatauv(L, (size_t)def.nnodes * sizeof(int) + 1, 0);
    int id = -1, bw = 0;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_fem_create(lw->w, &def, &id, perm, &bw);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    push_perm(L, perm, def.nnodes);
    lua_pushinteger(L, bw);
    return 3;
}

static void push_rows(lua_State *L, const double *A, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lrc_push_vec(L, A + (size_t)i * n, n);
        lua_rawseti(L, -2, i + 1);
    }
}

/* fem_matrices(def) -> M (rows), K (rows), f, perm, bandwidth | nil, msg, status:
 * the matrices of rc_fem_create (with def.renumber), for tests and inspection */
int lrc_fem_matrices(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rc_fem_def def;
    fem_def_read(L, 1, &def);
    if (def.nnodes > 2000) return luaL_error(L, "fem_matrices: at most 2000 nodes (got %d)", def.nnodes);
    const int n = 2 * def.nnodes;
    int *perm = lua_newuserdatauv(L, (size_t)def.nnodes * sizeof(int) + 1, 0);
    double *M = lrc_scratch(L, n * n), *K = lrc_scratch(L, n * n), *f = lrc_scratch(L, n);
    int bw = 0;
    rc_status s = rc_fem_numbering(&def, def.renumber, perm, &bw);
    if (s == RC_OK) s = rc_fem_assemble(&def, perm, M, K, f);
    if (s != RC_OK) return lrc_push_fail(L, s);
    push_rows(L, M, n);
    push_rows(L, K, n);
    lrc_push_vec(L, f, n);
    push_perm(L, perm, def.nnodes);
    lua_pushinteger(L, bw);
    return 5;
}

/* The definition of fem_create, for vtk_add_fem (lrc_vtk_fem.c). */
void lrc_fem_def_read(lua_State *L, int t, rc_fem_def *def)
{
    fem_def_read(L, t, def);
}

/* node_contact_create(world, { body, dofs = {ix, iy} (0-based), X = {x, y},
 * rigid = body id | nil, a = {x, y}, b = {x, y}, radius, friction = 0 | 1,
 * margin, law = id, name }) -> gap id | nil, msg, status (rc_node_contact_create) */
int lrc_node_contact_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_node_contact_def def = rc_default_node_contact_def();
    def.body = (int)lrc_field_int(L, 2, "body", -1);
    double d[2] = { 0.0, 0.0 };
    lrc_field_vec(L, 2, "dofs", d, 2);
    def.dofs[0] = (int)d[0];
    def.dofs[1] = (int)d[1];
    lrc_field_vec(L, 2, "X", def.X, 2);
    def.rigid = (int)lrc_field_int(L, 2, "rigid", -1);
    lrc_field_vec(L, 2, "a", def.a, 2);
    lrc_field_vec(L, 2, "b", def.b, 2);
    def.radius = lrc_field_num(L, 2, "radius", def.radius);
    def.friction = (int)lrc_field_int(L, 2, "friction", def.friction);
    def.margin = lrc_field_num(L, 2, "margin", def.margin);
    def.law = (int)lrc_field_int(L, 2, "law", def.law);
    def.name = lrc_field_str(L, 2, "name");
    int id = -1;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_node_contact_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}
