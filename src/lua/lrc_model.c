/* lrc_model.c -- ricochet.core: the world userdata, bodies, shapes, built-in laws
 * (lua_ricochet.c has the overview). */
#include "lrc.h"

/* ---------------------------------------------------------------- world */

/* A world's definition from { dim, gravity = {gx, gy}, margin, e, mu, periodic = {x0, x1} }
 * (absent: the defaults). */
void lrc_world_def_read(lua_State *L, int t, rc_world_def *def)
{
    *def = rc_default_world_def();
    lua_Integer dim = lrc_field_int(L, t, "dim", def->dim);
    def->dim = dim < INT_MIN || dim > INT_MAX ? 0 : (int)dim;   /* 0: refused by the kernel */
    double g[3] = { def->gravity[0], def->gravity[1], def->gravity[2] };
    lrc_field_vec(L, t, "gravity", g, def->dim == 3 ? 3 : 2);   /* (dim = 3: {gx, gy, gz}) */
    def->gravity[0] = g[0];
    def->gravity[1] = g[1];
    def->gravity[2] = g[2];
    def->contact_margin = lrc_field_num(L, t, "margin", def->contact_margin);
    def->default_e = lrc_field_num(L, t, "e", def->default_e);
    def->default_mu = lrc_field_num(L, t, "mu", def->default_mu);
    lrc_field_vec(L, t, "periodic", def->periodic_x, 2);
}

/* world_new{ dim, gravity = {gx, gy}, margin, e, mu, periodic = {x0, x1} } -> world | nil, msg, status */
int lrc_world_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rc_world_def def;
    lrc_world_def_read(L, 1, &def);

    lrc_world *lw = (lrc_world *)lua_newuserdatauv(L, sizeof *lw, 0);
    memset(lw, 0, sizeof *lw);
    lw->fn_ref = LUA_NOREF;
    lw->cb_ref = LUA_NOREF;
    luaL_setmetatable(L, LRC_WORLD);
    lua_newtable(L);
    lw->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    lw->cb_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    rc_world *w = NULL;
    rc_status s = rc_world_create(&def, &w);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lw->w = w;
    rc_world_set_warning_fn(w, lrc_warning_cb, lw);
    return 1;
}

static void close_world(lua_State *L, lrc_world *lw, const char *status, const char *message)
{
    lrc_ctx_kill_all(L, lw);
    if (lw->w) {
        if (rc_output_is_open(lw->w)) rc_output_close(lw->w, status, message);
        rc_world_destroy(lw->w);
        lw->w = NULL;
    }
    if (lw->fn_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, lw->fn_ref);
        lw->fn_ref = LUA_NOREF;
    }
    /* the callback holders (userdata in this table) are collected after the
     * kernel world that pointed at them is gone */
    if (lw->cb_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, lw->cb_ref);
        lw->cb_ref = LUA_NOREF;
    }
}

int lrc_world_gc(lua_State *L)
{
    lrc_world *lw = lrc_check_lw(L, 1);
    if (lw->stepping) return 0; /* cannot happen: the stepping world is on the stack */
    if (rc_interrupt_requested())   /* the program is ending on a signal */
        close_world(L, lw, "interrupted", "interrupted; the world was garbage-collected before its output was closed");
    else if (rc_lua_limit_hit(L) != RC_LUA_LIMIT_NONE)   /* collected while a limit's error unwinds
                                                           (the memory limit's emergency collection) */
        close_world(L, lw, "error", rc_lua_limit_error(L));
    else
        close_world(L, lw, "error", "the world was garbage-collected before its output was closed");
    return 0;
}

/* close(world [, status [, message]]): closes an open output with status
 * (default "complete") and frees the world. Idempotent. */
int lrc_world_close(lua_State *L)
{
    lrc_world *lw = lrc_check_lw(L, 1);
    const char *status = luaL_optstring(L, 2, "complete");
    const char *message = luaL_optstring(L, 3, NULL);
    if (lw->stepping) return luaL_error(L, "cannot close a world while it is stepping");
    close_world(L, lw, status, message);
    return 0;
}

/* __close(world, err) */
int lrc_world_tbc(lua_State *L)
{
    lrc_world *lw = lrc_check_lw(L, 1);
    if (lw->stepping) return 0;
    if (lua_isnoneornil(L, 2)) close_world(L, lw, "complete", NULL);
    else close_world(L, lw, "error", lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "error");
    return 0;
}

int lrc_is_open(lua_State *L)
{
    lrc_world *lw = lrc_check_lw(L, 1);
    lua_pushboolean(L, lw->w != NULL);
    return 1;
}

int lrc_is_world(lua_State *L)
{
    lua_pushboolean(L, luaL_testudata(L, 1, LRC_WORLD) != NULL);
    return 1;
}

int lrc_is_stepping(lua_State *L)
{
    lrc_world *lw = lrc_check_lw(L, 1);
    lua_pushboolean(L, lw->stepping);
    return 1;
}

int lrc_warnings(lua_State *L)
{
    lrc_world *lw = lrc_check_lw(L, 1);
    lua_pushinteger(L, (lua_Integer)lw->warnings);
    return 1;
}

/* ---------------------------------------------------------------- bodies */

/* A rigid body's definition from { name, mass, inertia, q, v, force } (absent: the defaults). */
void lrc_body_def_read(lua_State *L, int t, rc_body_def *def)
{
    *def = rc_default_body_def();
    def->name = lrc_field_str(L, t, "name");
    def->mass = lrc_field_num(L, t, "mass", def->mass);
    def->inertia = lrc_field_num(L, t, "inertia", def->inertia);
    lrc_field_vec(L, t, "q", def->q, 3);
    lrc_field_vec(L, t, "v", def->v, 3);
    lrc_field_vec(L, t, "force", def->force, 3);
}

/* body_create(world, { name, mass, inertia, q, v, force }) -> id | nil, msg, status */
int lrc_body_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_body_def def;
    lrc_body_def_read(L, 2, &def);
    int id = -1;
    rc_status s = rc_body_create(lw->w, &def, &id);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

int lrc_body_count(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushinteger(L, rc_body_count(lw->w));
    return 1;
}

/* body_state(world, id) -> q, v | nil, msg, status */
int lrc_body_state(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    int nq = rc_body_nq(lw->w, id), nv = rc_body_nv(lw->w, id);
    double *q = lrc_scratch(L, nq), *v = lrc_scratch(L, nv);
    rc_status s = rc_body_get_state(lw->w, id, q, v);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lrc_push_vec(L, q, nq);
    lrc_push_vec(L, v, nv);
    return 2;
}

/* body_nq(world, id) -> nq, nv (0, 0 for a bad id) */
int lrc_body_nq(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    lua_pushinteger(L, rc_body_nq(lw->w, id));
    lua_pushinteger(L, rc_body_nv(lw->w, id));
    return 2;
}

/* body_set_state(world, id, q | nil, v | nil) -> true | nil, msg, status */
int lrc_body_set_state(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    int id = lrc_check_body_id(L, 2);
    int nq = rc_body_nq(lw->w, id), nv = rc_body_nv(lw->w, id);
    double *q = lrc_scratch(L, nq), *v = lrc_scratch(L, nv);
    rc_status s = rc_body_get_state(lw->w, id, q, v);
    if (s != RC_OK) return lrc_push_fail(L, s);
    if (!lua_isnoneornil(L, 3)) lrc_read_vec(L, 3, q, nq, "q");
    if (!lua_isnoneornil(L, 4)) lrc_read_vec(L, 4, v, nv, "v");
    s = rc_body_set_state(lw->w, id, q, v);
    return lrc_push_done(L, s);
}

int lrc_body_set_force(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    int nv = rc_body_nv(lw->w, id);
    if (nv <= 0) nv = 3;
    double *f = lrc_scratch(L, nv);
    lrc_read_vec(L, 3, f, nv, "force");
    rc_status s = rc_body_set_force(lw->w, id, f);
    return lrc_push_done(L, s);
}

int lrc_body_force(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    int nv = rc_body_nv(lw->w, id);
    double *f = lrc_scratch(L, nv);
    rc_status s = rc_body_get_force(lw->w, id, f);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lrc_push_vec(L, f, nv);
    return 1;
}

/* body_set_force_fn(world, id, fn | nil) */
int lrc_body_set_force_fn(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    int id = lrc_check_body_id(L, 2);
    int has = !lua_isnoneornil(L, 3);
    if (has) luaL_checktype(L, 3, LUA_TFUNCTION);
    rc_status s = rc_body_set_force_fn(lw->w, id, has ? lrc_force_cb : NULL, has ? lw : NULL);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->fn_ref);
    if (has) lua_pushvalue(L, 3); else lua_pushnil(L);
    lua_rawseti(L, -2, id);
    lua_pushboolean(L, 1);
    return 1;
}

int lrc_body_mass(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    double m, J;
    rc_status s = rc_body_get_mass(lw->w, id, &m, &J);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, m);
    lua_pushnumber(L, J);
    return 2;
}

/* ---------------------------------------------------------------- shapes */

static const char *const shape_types[] = { "disk", "polygon", "point", "halfplane", "segment", "circle_inside", NULL };
static const rc_shape_type shape_codes[] = { RC_SHAPE_DISK, RC_SHAPE_POLYGON, RC_SHAPE_POINT,
                                              RC_SHAPE_HALFPLANE, RC_SHAPE_SEGMENT, RC_SHAPE_CIRCLE_INSIDE };

/* A shape's definition from { type, radius, offset, vertices, point, normal,
 * a, b, group, name } (absent: the defaults; a segment's radius: 0; a
 * circle_inside's centre: 'centre', into offset). More
 * than RC_MAX_POLYGON_VERTICES vertices: nvert tells how many (refused by
 * the kernel's check), the first ones are read. */
void lrc_shape_def_read(lua_State *L, int t, rc_shape_def *def)
{
    *def = rc_default_shape_def();
    lua_getfield(L, t, "type");
    int ty = luaL_checkoption(L, -1, NULL, shape_types);
    lua_pop(L, 1);
    def->type = shape_codes[ty];
    def->radius = lrc_field_num(L, t, "radius", def->type == RC_SHAPE_SEGMENT ? LRC_SEGMENT_RADIUS : def->radius);
    lrc_field_vec(L, t, def->type == RC_SHAPE_CIRCLE_INSIDE ? "centre" : "offset", def->offset, 2);
    lrc_field_vec(L, t, "point", def->point, 2);
    lrc_field_vec(L, t, "normal", def->normal, 2);
    lrc_field_vec(L, t, "a", def->a, 2);
    lrc_field_vec(L, t, "b", def->b, 2);
    def->group = (int)lrc_field_int(L, t, "group", def->group);
    def->name = lrc_field_str(L, t, "name");
    if (lua_getfield(L, t, "vertices") == LUA_TTABLE) {
        int v = lua_gettop(L);
        lua_Unsigned n = lua_rawlen(L, v);
        def->nvert = n > INT_MAX ? INT_MAX : (int)n;
        for (int i = 0; i < def->nvert && i < RC_MAX_POLYGON_VERTICES; i++) {
            lua_rawgeti(L, v, i + 1);
            lrc_read_vec(L, lua_gettop(L), def->vert[i], 2, "vertices");
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* shape_create(world, body_id, { type, radius, offset, vertices, point, normal,
 *              a, b, group, name }) -> shape id | nil, msg, status */
int lrc_shape_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    int body = lrc_check_body_id(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    rc_shape_def def;
    lrc_shape_def_read(L, 3, &def);
    int id = -1;
    rc_status s = rc_shape_create(lw->w, body, &def, &id);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

int lrc_shape_count(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushinteger(L, rc_shape_count(lw->w));
    return 1;
}

/* shape_def(world, id) -> table | nil, msg, status */
int lrc_shape_def(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    int body;
    rc_shape_def d;
    rc_status s = rc_shape_get_def(lw->w, id, &body, &d);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_newtable(L);
    for (int i = 0; shape_types[i]; i++)
        if (shape_codes[i] == d.type) {
            lua_pushstring(L, shape_types[i]);
            lua_setfield(L, -2, "type");
        }
    lrc_set_int(L, "body", body);
    lrc_set_int(L, "group", d.group);
    if (d.name) {
        lua_pushstring(L, d.name);
        lua_setfield(L, -2, "name");
    }
    switch (d.type) {
    case RC_SHAPE_DISK:
        lrc_set_num(L, "radius", d.radius);
        lrc_set_vec(L, "offset", d.offset, 2);
        break;
    case RC_SHAPE_POINT:
        lrc_set_vec(L, "offset", d.offset, 2);
        break;
    case RC_SHAPE_POLYGON:
        lua_createtable(L, d.nvert, 0);
        for (int i = 0; i < d.nvert; i++) {
            lrc_push_vec(L, d.vert[i], 2);
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, "vertices");
        break;
    case RC_SHAPE_HALFPLANE:
        lrc_set_vec(L, "point", d.point, 2);
        lrc_set_vec(L, "normal", d.normal, 2);
        break;
    case RC_SHAPE_SEGMENT:
        lrc_set_vec(L, "a", d.a, 2);
        lrc_set_vec(L, "b", d.b, 2);
        lrc_set_num(L, "radius", d.radius);
        break;
    case RC_SHAPE_CIRCLE_INSIDE:
        lrc_set_vec(L, "centre", d.offset, 2);
        lrc_set_num(L, "radius", d.radius);
        break;
    }
    return 1;
}

/* ---------------------------------------------------------------- laws, rules */

/* law_create(world, type, e, mu, e_t, name | nil, generic, radius | nil) -> law id | nil, msg, status
 * type: "newton" | "moreau" | "fremond" */
int lrc_law_create(lua_State *L)
{
    static const char *const types[] = { "newton", "moreau", "fremond", NULL };
    static const rc_law_type codes[] = { RC_LAW_NEWTON_COULOMB, RC_LAW_MOREAU, RC_LAW_FREMOND };
    lrc_world *lw = lrc_check_idle(L, 1);
    rc_law_def def = rc_default_law_def();
    def.type = codes[luaL_checkoption(L, 2, NULL, types)];
    def.e = luaL_checknumber(L, 3);
    def.mu = luaL_checknumber(L, 4);
    def.e_t = luaL_optnumber(L, 5, 0.0);
    def.name = luaL_optstring(L, 6, NULL);
    def.generic = lua_toboolean(L, 7);
    def.radius = luaL_optnumber(L, 8, 0.0);
    int id = -1;
    rc_status s = rc_law_create(lw->w, &def, &id);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}
