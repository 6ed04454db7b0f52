/*
 * lua_ricochet.c -- ricochet.core, the C half of the Lua binding.
 *
 * A thin client of the public C API (ricochet.h, nothing else): one userdata
 * type wrapping an rc_world, and functions that take plain Lua values. The
 * user-facing API (argument checking with messages that point at the calling
 * script line, descriptors, objects, the run loop) is in lua/ricochet/init.lua.
 *
 * Conventions of this module:
 *   - kernel failures are returned as  nil, message, status_name  so that the
 *     Lua side can raise them at the script's level;
 *   - misuse of this module itself (wrong types) raises Lua errors through
 *     luaL_check*; it never crashes;
 *   - Lua code called from inside the kernel (force functions) runs under
 *     lua_pcall: an error becomes RC_ERR_CALLBACK with the Lua message, and
 *     no longjmp ever crosses a kernel frame.
 */
#include <lua.h>
#include <lauxlib.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ricochet.h"

#define LRC_WORLD "ricochet.core.world"
#define LRC_MAX_WARNINGS_PRINTED 20

typedef struct lrc_world {
    rc_world *w;
    lua_State *L;       /* thread running rc_world_step (for callbacks), or NULL */
    int fn_ref;         /* registry ref: table body id -> force function          */
    int stepping;       /* inside rc_world_step                                    */
    long warnings;      /* warnings reported by the kernel                         */
} lrc_world;

/* ---------------------------------------------------------------- helpers */

static lrc_world *check_lw(lua_State *L, int idx)
{
    return (lrc_world *)luaL_checkudata(L, idx, LRC_WORLD);
}

/* An open world (raises if closed). */
static lrc_world *check_open(lua_State *L, int idx)
{
    lrc_world *lw = check_lw(L, idx);
    if (!lw->w) luaL_error(L, "the world has been closed");
    return lw;
}

/* Worlds must not be changed from inside a step (a force function). */
static lrc_world *check_idle(lua_State *L, int idx)
{
    lrc_world *lw = check_open(L, idx);
    if (lw->stepping)
        luaL_error(L, "not allowed while the world is stepping (inside a force function)");
    return lw;
}

static int check_body_id(lua_State *L, int idx)
{
    lua_Integer id = luaL_checkinteger(L, idx);
    luaL_argcheck(L, id >= -1 && id < 0x7fffffff, idx, "body id out of range");
    return (int)id;
}

static int push_fail(lua_State *L, rc_status s)
{
    luaL_pushfail(L);
    lua_pushstring(L, rc_last_error());
    lua_pushstring(L, rc_status_name(s));
    return 3;
}

/* Read n numbers from the table at idx into x (missing entries: error). */
static void read_vec(lua_State *L, int idx, double *x, int n, const char *what)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (!lua_isnumber(L, -1))
            luaL_error(L, "%s[%d] must be a number", what, i + 1);
        x[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

/* Read an optional vector field t[key] (absent or nil: leave x unchanged). */
static void field_vec(lua_State *L, int t, const char *key, double *x, int n)
{
    if (lua_getfield(L, t, key) != LUA_TNIL) read_vec(L, lua_gettop(L), x, n, key);
    lua_pop(L, 1);
}

static double field_num(lua_State *L, int t, const char *key, double dflt)
{
    double x = dflt;
    int ty = lua_getfield(L, t, key);
    if (ty != LUA_TNIL) {
        if (!lua_isnumber(L, -1)) luaL_error(L, "field '%s' must be a number", key);
        x = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return x;
}

static lua_Integer field_int(lua_State *L, int t, const char *key, lua_Integer dflt)
{
    lua_Integer x = dflt;
    int ty = lua_getfield(L, t, key);
    if (ty != LUA_TNIL) {
        int ok;
        x = lua_tointegerx(L, -1, &ok);
        if (!ok) luaL_error(L, "field '%s' must be an integer", key);
    }
    lua_pop(L, 1);
    return x;
}

/* A string field; the value stays valid while the table holds it. */
static const char *field_str(lua_State *L, int t, const char *key)
{
    const char *s = NULL;
    int ty = lua_getfield(L, t, key);
    if (ty != LUA_TNIL) {
        if (ty != LUA_TSTRING) luaL_error(L, "field '%s' must be a string", key);
        s = lua_tostring(L, -1);
    }
    lua_pop(L, 1);
    return s;
}

static void set_num(lua_State *L, const char *key, double x)
{
    lua_pushnumber(L, x);
    lua_setfield(L, -2, key);
}

static void set_int(lua_State *L, const char *key, lua_Integer x)
{
    lua_pushinteger(L, x);
    lua_setfield(L, -2, key);
}

static void set_bool(lua_State *L, const char *key, int x)
{
    lua_pushboolean(L, x);
    lua_setfield(L, -2, key);
}

static void push_vec(lua_State *L, const double *x, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

static void set_vec(lua_State *L, const char *key, const double *x, int n)
{
    push_vec(L, x, n);
    lua_setfield(L, -2, key);
}

/* ---------------------------------------------------------------- callbacks */

static void warning_cb(void *user, const char *message)
{
    lrc_world *lw = (lrc_world *)user;
    lw->warnings++;
    if (lw->warnings <= LRC_MAX_WARNINGS_PRINTED)
        fprintf(stderr, "ricochet: warning: %s\n", message);
    if (lw->warnings == LRC_MAX_WARNINGS_PRINTED)
        fprintf(stderr, "ricochet: warning: further warnings of this world are not printed "
                        "(they are counted in the run summary)\n");
    fflush(stderr);
}

struct force_call {
    lrc_world *lw;
    int body, nq, nv;
    double t;
    const double *q, *v;
    double *f;
};

/* Runs under lua_pcall: any error here is caught by force_cb. */
static int force_call_protected(lua_State *L)
{
    struct force_call *fc = (struct force_call *)lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, fc->lw->fn_ref);
    if (lua_rawgeti(L, -1, fc->body) != LUA_TFUNCTION) {
        lua_pushstring(L, "force function missing");
        return lua_error(L);
    }
    lua_pushnumber(L, fc->t);
    push_vec(L, fc->q, fc->nq);
    push_vec(L, fc->v, fc->nv);
    lua_call(L, 3, 1);
    int r = lua_gettop(L);
    if (!lua_istable(L, r)) {
        lua_pushfstring(L, "force_fn must return a table of %d finite numbers {fx, fy, torque}, got %s",
                        fc->nv, luaL_typename(L, r));
        return lua_error(L);
    }
    lua_Unsigned len = lua_rawlen(L, r);
    if (len != (lua_Unsigned)fc->nv) {
        lua_pushfstring(L, "force_fn must return a table of %d finite numbers {fx, fy, torque}, got a table of length %d",
                        fc->nv, (int)len);
        return lua_error(L);
    }
    for (int i = 0; i < fc->nv; i++) {
        lua_rawgeti(L, r, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            lua_pushfstring(L, "force_fn result[%d] must be a finite number, got %s", i + 1, luaL_typename(L, -1));
            return lua_error(L);
        }
        double x = lua_tonumber(L, -1);
        if (!isfinite(x)) {
            lua_pushfstring(L, "force_fn result[%d] must be a finite number, got %s", i + 1,
                            isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
            return lua_error(L);
        }
        fc->f[i] = x;
        lua_pop(L, 1);
    }
    return 0;
}

static rc_status force_cb(void *user, int body, double t, const double *q, const double *v, double *f)
{
    lrc_world *lw = (lrc_world *)user;
    lua_State *L = lw->L;
    if (!L) return rc_set_error(RC_ERR_CALLBACK, "force function called outside a step of the Lua binding");
    if (!lua_checkstack(L, 16)) return rc_set_error(RC_ERR_CALLBACK, "Lua stack overflow");
    struct force_call fc;
    fc.lw = lw;
    fc.body = body;
    fc.nq = rc_body_nq(lw->w, body);
    fc.nv = rc_body_nv(lw->w, body);
    fc.t = t;
    fc.q = q;
    fc.v = v;
    fc.f = f;
    if (fc.nq <= 0 || fc.nv <= 0) return rc_set_error(RC_ERR_CALLBACK, "force function for unknown body %d", body);
    int top = lua_gettop(L);
    lua_pushcfunction(L, force_call_protected);
    lua_pushlightuserdata(L, &fc);
    int r = lua_pcall(L, 1, 0, 0);
    rc_status s = RC_OK;
    if (r != LUA_OK) {
        if (lua_type(L, -1) == LUA_TSTRING)
            s = rc_set_error(RC_ERR_CALLBACK, "%s", lua_tostring(L, -1));
        else
            s = rc_set_error(RC_ERR_CALLBACK, "force_fn raised an error object of type %s", luaL_typename(L, -1));
    }
    lua_settop(L, top);
    return s;
}

/* ---------------------------------------------------------------- world */

/* world_new{ dim, gravity = {gx, gy}, margin, e, mu } -> world | nil, msg, status */
static int l_world_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rc_world_def def = rc_default_world_def();
    def.dim = (int)field_int(L, 1, "dim", def.dim);
    double g[2] = { def.gravity[0], def.gravity[1] };
    field_vec(L, 1, "gravity", g, 2);
    def.gravity[0] = g[0];
    def.gravity[1] = g[1];
    def.contact_margin = field_num(L, 1, "margin", def.contact_margin);
    def.default_e = field_num(L, 1, "e", def.default_e);
    def.default_mu = field_num(L, 1, "mu", def.default_mu);

    lrc_world *lw = (lrc_world *)lua_newuserdatauv(L, sizeof *lw, 0);
    memset(lw, 0, sizeof *lw);
    lw->fn_ref = LUA_NOREF;
    luaL_setmetatable(L, LRC_WORLD);
    lua_newtable(L);
    lw->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    rc_world *w = NULL;
    rc_status s = rc_world_create(&def, &w);
    if (s != RC_OK) return push_fail(L, s);
    lw->w = w;
    rc_world_set_warning_fn(w, warning_cb, lw);
    return 1;
}

static void close_world(lua_State *L, lrc_world *lw, const char *status, const char *message)
{
    if (lw->w) {
        if (rc_output_is_open(lw->w)) rc_output_close(lw->w, status, message);
        rc_world_destroy(lw->w);
        lw->w = NULL;
    }
    if (lw->fn_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, lw->fn_ref);
        lw->fn_ref = LUA_NOREF;
    }
}

static int l_world_gc(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    if (lw->stepping) return 0; /* cannot happen: the stepping world is on the stack */
    close_world(L, lw, "error", "the world was garbage-collected before its output was closed");
    return 0;
}

/* close(world [, status [, message]]): closes an open output with status
 * (default "complete") and frees the world. Idempotent. */
static int l_world_close(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    const char *status = luaL_optstring(L, 2, "complete");
    const char *message = luaL_optstring(L, 3, NULL);
    if (lw->stepping) return luaL_error(L, "cannot close a world while it is stepping");
    close_world(L, lw, status, message);
    return 0;
}

/* __close(world, err) */
static int l_world_tbc(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    if (lw->stepping) return 0;
    if (lua_isnoneornil(L, 2)) close_world(L, lw, "complete", NULL);
    else close_world(L, lw, "error", lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "error");
    return 0;
}

static int l_is_open(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    lua_pushboolean(L, lw->w != NULL);
    return 1;
}

static int l_is_world(lua_State *L)
{
    lua_pushboolean(L, luaL_testudata(L, 1, LRC_WORLD) != NULL);
    return 1;
}

static int l_is_stepping(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    lua_pushboolean(L, lw->stepping);
    return 1;
}

static int l_warnings(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    lua_pushinteger(L, (lua_Integer)lw->warnings);
    return 1;
}

/* ---------------------------------------------------------------- bodies */

/* body_create(world, { name, mass, inertia, q, v, force }) -> id | nil, msg, status */
static int l_body_create(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_body_def def = rc_default_body_def();
    def.name = field_str(L, 2, "name");
    def.mass = field_num(L, 2, "mass", def.mass);
    def.inertia = field_num(L, 2, "inertia", def.inertia);
    field_vec(L, 2, "q", def.q, 3);
    field_vec(L, 2, "v", def.v, 3);
    field_vec(L, 2, "force", def.force, 3);
    int id = -1;
    rc_status s = rc_body_create(lw->w, &def, &id);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

static int l_body_count(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    lua_pushinteger(L, rc_body_count(lw->w));
    return 1;
}

/* body_state(world, id) -> q, v | nil, msg, status */
static int l_body_state(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = check_body_id(L, 2);
    double q[7], v[6];
    rc_status s = rc_body_get_state(lw->w, id, q, v);
    if (s != RC_OK) return push_fail(L, s);
    push_vec(L, q, rc_body_nq(lw->w, id));
    push_vec(L, v, rc_body_nv(lw->w, id));
    return 2;
}

/* body_set_state(world, id, q | nil, v | nil) -> true | nil, msg, status */
static int l_body_set_state(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    int id = check_body_id(L, 2);
    double q[7], v[6];
    rc_status s = rc_body_get_state(lw->w, id, q, v);
    if (s != RC_OK) return push_fail(L, s);
    int nq = rc_body_nq(lw->w, id), nv = rc_body_nv(lw->w, id);
    if (!lua_isnoneornil(L, 3)) read_vec(L, 3, q, nq, "q");
    if (!lua_isnoneornil(L, 4)) read_vec(L, 4, v, nv, "v");
    s = rc_body_set_state(lw->w, id, q, v);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_body_set_force(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = check_body_id(L, 2);
    double f[6] = { 0 };
    int nv = rc_body_nv(lw->w, id);
    if (nv <= 0) nv = 3;
    read_vec(L, 3, f, nv, "force");
    rc_status s = rc_body_set_force(lw->w, id, f);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_body_force(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = check_body_id(L, 2);
    double f[6] = { 0 };
    rc_status s = rc_body_get_force(lw->w, id, f);
    if (s != RC_OK) return push_fail(L, s);
    push_vec(L, f, rc_body_nv(lw->w, id));
    return 1;
}

/* body_set_force_fn(world, id, fn | nil) */
static int l_body_set_force_fn(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    int id = check_body_id(L, 2);
    int has = !lua_isnoneornil(L, 3);
    if (has) luaL_checktype(L, 3, LUA_TFUNCTION);
    rc_status s = rc_body_set_force_fn(lw->w, id, has ? force_cb : NULL, has ? lw : NULL);
    if (s != RC_OK) return push_fail(L, s);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->fn_ref);
    if (has) lua_pushvalue(L, 3); else lua_pushnil(L);
    lua_rawseti(L, -2, id);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_body_mass(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = check_body_id(L, 2);
    double m, J;
    rc_status s = rc_body_get_mass(lw->w, id, &m, &J);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushnumber(L, m);
    lua_pushnumber(L, J);
    return 2;
}

/* ---------------------------------------------------------------- shapes */

static const char *const shape_types[] = { "disk", "polygon", "point", "halfplane", "segment", NULL };
static const rc_shape_type shape_codes[] = { RC_SHAPE_DISK, RC_SHAPE_POLYGON, RC_SHAPE_POINT,
                                              RC_SHAPE_HALFPLANE, RC_SHAPE_SEGMENT };

/* shape_create(world, body_id, { type, radius, offset, vertices, point, normal,
 *              a, b, group, name }) -> shape id | nil, msg, status */
static int l_shape_create(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    int body = check_body_id(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    rc_shape_def def = rc_default_shape_def();
    lua_getfield(L, 3, "type");
    int ty = luaL_checkoption(L, -1, NULL, shape_types);
    lua_pop(L, 1);
    def.type = shape_codes[ty];
    def.radius = field_num(L, 3, "radius", def.type == RC_SHAPE_SEGMENT ? 0.0 : def.radius);
    field_vec(L, 3, "offset", def.offset, 2);
    field_vec(L, 3, "point", def.point, 2);
    field_vec(L, 3, "normal", def.normal, 2);
    field_vec(L, 3, "a", def.a, 2);
    field_vec(L, 3, "b", def.b, 2);
    def.group = (int)field_int(L, 3, "group", 0);
    def.name = field_str(L, 3, "name");
    if (lua_getfield(L, 3, "vertices") == LUA_TTABLE) {
        int t = lua_gettop(L);
        lua_Unsigned n = lua_rawlen(L, t);
        if (n > RC_MAX_POLYGON_VERTICES) luaL_error(L, "too many polygon vertices (%d)", (int)n);
        def.nvert = (int)n;
        for (int i = 0; i < def.nvert; i++) {
            lua_rawgeti(L, t, i + 1);
            read_vec(L, lua_gettop(L), def.vert[i], 2, "vertices");
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    int id = -1;
    rc_status s = rc_shape_create(lw->w, body, &def, &id);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

static int l_shape_count(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    lua_pushinteger(L, rc_shape_count(lw->w));
    return 1;
}

/* shape_def(world, id) -> table | nil, msg, status */
static int l_shape_def(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    int body;
    rc_shape_def d;
    rc_status s = rc_shape_get_def(lw->w, id, &body, &d);
    if (s != RC_OK) return push_fail(L, s);
    lua_newtable(L);
    for (int i = 0; shape_types[i]; i++)
        if (shape_codes[i] == d.type) {
            lua_pushstring(L, shape_types[i]);
            lua_setfield(L, -2, "type");
        }
    set_int(L, "body", body);
    set_int(L, "group", d.group);
    if (d.name) {
        lua_pushstring(L, d.name);
        lua_setfield(L, -2, "name");
    }
    switch (d.type) {
    case RC_SHAPE_DISK:
        set_num(L, "radius", d.radius);
        set_vec(L, "offset", d.offset, 2);
        break;
    case RC_SHAPE_POINT:
        set_vec(L, "offset", d.offset, 2);
        break;
    case RC_SHAPE_POLYGON:
        lua_createtable(L, d.nvert, 0);
        for (int i = 0; i < d.nvert; i++) {
            push_vec(L, d.vert[i], 2);
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, "vertices");
        break;
    case RC_SHAPE_HALFPLANE:
        set_vec(L, "point", d.point, 2);
        set_vec(L, "normal", d.normal, 2);
        break;
    case RC_SHAPE_SEGMENT:
        set_vec(L, "a", d.a, 2);
        set_vec(L, "b", d.b, 2);
        set_num(L, "radius", d.radius);
        break;
    }
    return 1;
}

/* ---------------------------------------------------------------- laws, rules */

/* law_create(world, type, e, mu, e_t, name | nil, generic) -> law id | nil, msg, status
 * type: "newton" | "moreau" | "fremond" */
static int l_law_create(lua_State *L)
{
    static const char *const types[] = { "newton", "moreau", "fremond", NULL };
    static const rc_law_type codes[] = { RC_LAW_NEWTON_COULOMB, RC_LAW_MOREAU, RC_LAW_FREMOND };
    lrc_world *lw = check_idle(L, 1);
    rc_law_def def = rc_default_law_def();
    def.type = codes[luaL_checkoption(L, 2, NULL, types)];
    def.e = luaL_checknumber(L, 3);
    def.mu = luaL_checknumber(L, 4);
    def.e_t = luaL_optnumber(L, 5, 0.0);
    def.name = luaL_optstring(L, 6, NULL);
    def.generic = lua_toboolean(L, 7);
    int id = -1;
    rc_status s = rc_law_create(lw->w, &def, &id);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

/* ---------------------------------------------------------------- laws written in Lua
 *
 * A Lua law is a table of functions called from inside the solver through
 * the rc_law_ops interface (ricochet.h). Numbers travel as arguments and
 * results, never in fresh tables: per call the kernel only refreshes a
 * reused ctx table (and its ctx.state with the contact's state):
 *   xi(law, uN, uT, uoN, uoT, ctx)            -> xiN, xiT
 *   project(law, xN, xT, ctx)                 -> pN, pT
 *   update(law, ctx, uN, uT, uoN, uoT, pN, pT)   (may change ctx.state)
 * law is the descriptor's params table. Every call runs under lua_pcall. */

typedef struct lrc_law {
    lrc_world *lw;
    lua_State *L0;          /* the state that owns the registry refs */
    char name[128];
    int dim, nstate;
    int xi_ref, project_ref, update_ref, params_ref, ctx_ref, state_ref, keys_ref;
    char state_names[RC_LAW_MAX_STATE][32];
    double ctx_t;           /* the step whose fields ctx holds            */
    const rc_law_ctx *cur;  /* the call in progress (ctx's contact fields) */
} lrc_law;

struct law_call {
    lrc_law *law;
    int fn_ref, nargs, nres;
    const char *what;
    double args[8];
    double res[2];
    const rc_law_ctx *ctx;
    double *state;          /* read into ctx.state; written back after update */
    int write_state;
};

/* keys[] of the ctx table, in the order of LAW_KEYS; then the two values of
 * ctx.unknown; then the state names. Kept as Lua strings in a registry
 * table so that a refresh never converts a C string (luaS_new + strcmp). */
static const char *const LAW_KEYS[] = { "t", "h", "theta", "contact", "gN", "nx", "ny", "tx", "ty", "unknown" };
/* (only t, h, theta and unknown are stored; the others come from ctx_index) */
enum { NLAW_KEYS = 10, KEY_END = NLAW_KEYS + 1, KEY_THETA = NLAW_KEYS + 2, KEY_STATE0 = NLAW_KEYS + 3 };

static void set_key(lua_State *L, int keys, int t, int k, double x)
{
    lua_rawgeti(L, keys, k);
    lua_pushnumber(L, x);
    lua_rawset(L, t);
}

/* ctx: the step's fields (t, h, theta, unknown) are stored in the table and
 * refreshed once per step; the contact's fields (contact, gN, nx, ny, tx, ty)
 * are read on demand through __index from the contact being solved, so that
 * laws that do not read them do not pay for them. */
static int ctx_index(lua_State *L)
{
    lrc_law *lw = (lrc_law *)lua_touserdata(L, lua_upvalueindex(1));
    const char *k = lua_tostring(L, 2);
    const rc_law_ctx *c = lw->cur;
    if (!k || !c) return 0;
    if (strcmp(k, "contact") == 0) lua_pushinteger(L, c->contact);
    else if (strcmp(k, "gN") == 0) lua_pushnumber(L, c->gN);
    else if (strcmp(k, "nx") == 0) lua_pushnumber(L, c->normal[0]);
    else if (strcmp(k, "ny") == 0) lua_pushnumber(L, c->normal[1]);
    else if (strcmp(k, "tx") == 0) lua_pushnumber(L, c->tangent[0]);
    else if (strcmp(k, "ty") == 0) lua_pushnumber(L, c->tangent[1]);
    else return 0;
    return 1;
}

static void refresh_ctx(lua_State *L, lrc_law *lw, const rc_law_ctx *ctx, const double *state)
{
    lw->cur = ctx;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->ctx_ref);
    int t = lua_gettop(L);
    if (ctx->t != lw->ctx_t || lw->nstate > 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, lw->keys_ref);
        int keys = lua_gettop(L);
        if (ctx->t != lw->ctx_t) {
            set_key(L, keys, t, 1, ctx->t);
            set_key(L, keys, t, 2, ctx->h);
            set_key(L, keys, t, 3, ctx->theta);
            lua_rawgeti(L, keys, NLAW_KEYS);
            lua_rawgeti(L, keys, ctx->unknown == RC_UNKNOWN_THETA ? KEY_THETA : KEY_END);
            lua_rawset(L, t);
            lw->ctx_t = ctx->t;
        }
        if (lw->nstate > 0) {
            lua_rawgeti(L, LUA_REGISTRYINDEX, lw->state_ref);
            int st = lua_gettop(L);
            for (int i = 0; i < lw->nstate; i++) set_key(L, keys, st, KEY_STATE0 + i, state[i]);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);   /* keys */
    }
}

/* Call a law function under lua_pcall (the function itself is called
 * protected: no C frame in between) and check its results. The ctx table is
 * refreshed before, outside the protected call: it only sets existing fields
 * of a plain table with interned short-string keys. */
static rc_status law_call(struct law_call *lc)
{
    lrc_law *law = lc->law;
    lua_State *L = law->lw->L;
    if (!L) return rc_set_error(RC_ERR_CALLBACK, "law '%s' called outside a step of the Lua binding", law->name);
    if (!lua_checkstack(L, 24)) return rc_set_error(RC_ERR_CALLBACK, "Lua stack overflow");
    int top = lua_gettop(L);
    refresh_ctx(L, law, lc->ctx, lc->state);      /* ctx at top + 1 */
    const int is_update = lc->fn_ref == law->update_ref;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lc->fn_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, law->params_ref);
    int n = 1;
    if (is_update) { lua_pushvalue(L, top + 1); n++; }
    for (int i = 0; i < lc->nargs; i++, n++) lua_pushnumber(L, lc->args[i]);
    if (!is_update) { lua_pushvalue(L, top + 1); n++; }
    rc_status s = RC_OK;
    if (lua_pcall(L, n, lc->nres, 0) != LUA_OK) {
        const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(an error object that is not a string)";
        s = rc_set_error(RC_ERR_CALLBACK, "law '%s': '%s' failed for contact %d at t = %.17g: %s",
                         law->name, lc->what, lc->ctx->contact, lc->ctx->t, msg);
        lua_settop(L, top);
        return s;
    }
    for (int i = 0; i < lc->nres && s == RC_OK; i++) {
        int idx = top + 2 + i;
        int isnum = 0;
        lc->res[i] = lua_tonumberx(L, idx, &isnum);
        if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
            s = rc_set_error(RC_ERR_CALLBACK, "law '%s': '%s' must return %d numbers, got %s as value %d (contact %d, t = %.17g)",
                             law->name, lc->what, lc->nres, luaL_typename(L, idx), i + 1, lc->ctx->contact, lc->ctx->t);
        else if (!isfinite(lc->res[i]))
            s = rc_set_error(RC_ERR_CALLBACK, "law '%s': '%s' returned a non-finite value %g as value %d (contact %d, t = %.17g)",
                             law->name, lc->what, lc->res[i], i + 1, lc->ctx->contact, lc->ctx->t);
    }
    if (s == RC_OK && lc->write_state && law->nstate > 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, law->keys_ref);
        lua_rawgeti(L, LUA_REGISTRYINDEX, law->state_ref);
        for (int i = 0; i < law->nstate && s == RC_OK; i++) {
            lua_rawgeti(L, -2, KEY_STATE0 + i);
            lua_rawget(L, -2);
            int isnum = 0;
            double x = lua_tonumberx(L, -1, &isnum);
            if (!isnum || lua_type(L, -1) != LUA_TNUMBER || !isfinite(x))
                s = rc_set_error(RC_ERR_CALLBACK, "law '%s': 'update' left state.%s = %s (a finite number is required) (contact %d, t = %.17g)",
                                 law->name, law->state_names[i], lua_type(L, -1) == LUA_TNUMBER ? "a non-finite number" : luaL_typename(L, -1),
                                 lc->ctx->contact, lc->ctx->t);
            else lc->state[i] = x;
            lua_pop(L, 1);
        }
    }
    lua_settop(L, top);
    return s;
}

static rc_status lua_law_xi(void *user, const rc_law_ctx *ctx, const double *state,
                            const double *u, const double *u_old, double *xi)
{
    lrc_law *law = (lrc_law *)user;
    struct law_call lc = { .law = law, .fn_ref = law->xi_ref, .nargs = 4, .nres = 2, .what = "xi",
                           .args = { u[0], law->dim > 1 ? u[1] : 0.0, u_old[0], law->dim > 1 ? u_old[1] : 0.0 },
                           .ctx = ctx, .state = (double *)state, .write_state = 0 };
    rc_status st = law_call(&lc);
    if (st != RC_OK) return st;
    xi[0] = lc.res[0];
    xi[1] = lc.res[1];
    return RC_OK;
}

static rc_status lua_law_project(void *user, const rc_law_ctx *ctx, const double *state,
                                 const double *x, double *p)
{
    lrc_law *law = (lrc_law *)user;
    struct law_call lc = { .law = law, .fn_ref = law->project_ref, .nargs = 2, .nres = 2, .what = "project",
                           .args = { x[0], x[1] }, .ctx = ctx, .state = (double *)state, .write_state = 0 };
    rc_status st = law_call(&lc);
    if (st != RC_OK) return st;
    p[0] = lc.res[0];
    p[1] = lc.res[1];
    return RC_OK;
}

static rc_status lua_law_update(void *user, const rc_law_ctx *ctx, double *state,
                                const double *u, const double *u_old, const double *p)
{
    lrc_law *law = (lrc_law *)user;
    struct law_call lc = { .law = law, .fn_ref = law->update_ref, .nargs = 6, .nres = 0, .what = "update",
                           .args = { u[0], u[1], u_old[0], u_old[1], p[0], p[1] },
                           .ctx = ctx, .state = state, .write_state = 1 };
    return law_call(&lc);
}

static void lua_law_destroy(void *user)
{
    lrc_law *law = (lrc_law *)user;
    /* the registry refs die with the Lua state; release them while it lives */
    if (law->L0) {
        int refs[] = { law->xi_ref, law->project_ref, law->update_ref, law->params_ref, law->ctx_ref, law->state_ref,
                       law->keys_ref };
        for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
            if (refs[i] != LUA_NOREF && refs[i] != LUA_REFNIL) luaL_unref(law->L0, LUA_REGISTRYINDEX, refs[i]);
    }
    free(law);
}

static int ref_field(lua_State *L, int t, const char *key, int type)
{
    int ty = lua_getfield(L, t, key);
    if (ty == LUA_TNIL) { lua_pop(L, 1); return LUA_NOREF; }
    if (ty != type) luaL_error(L, "law_create_custom: field '%s' has the wrong type", key);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

/* law_create_custom(world, { name, dim, xi, project, update?, params, state_names = {..}, state0 = {..} })
 * -> law id | nil, msg, status. The Lua side (rc.law) has validated the spec. */
static int l_law_create_custom(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lrc_law *law = (lrc_law *)calloc(1, sizeof *law);
    if (!law) return luaL_error(L, "out of memory");
    law->lw = lw;
    law->L0 = L;
    law->ctx_t = NAN;
    law->cur = NULL;
    law->keys_ref = LUA_NOREF;
    const char *name = field_str(L, 2, "name");
    snprintf(law->name, sizeof law->name, "%s", name ? name : "(unnamed)");
    law->dim = (int)field_int(L, 2, "dim", 2);
    rc_law_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.dim = law->dim;
    if (lua_getfield(L, 2, "state_names") == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        if (n > RC_LAW_MAX_STATE) { free(law); return luaL_error(L, "law '%s': at most %d state values", law->name, RC_LAW_MAX_STATE); }
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -1, i + 1);
            snprintf(law->state_names[i], sizeof law->state_names[i], "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
            lua_pop(L, 1);
        }
        law->nstate = n;
    }
    lua_pop(L, 1);
    ops.nstate = law->nstate;
    field_vec(L, 2, "state0", ops.state0, law->nstate);
    law->xi_ref = ref_field(L, 2, "xi", LUA_TFUNCTION);
    law->project_ref = ref_field(L, 2, "project", LUA_TFUNCTION);
    law->update_ref = ref_field(L, 2, "update", LUA_TFUNCTION);
    law->params_ref = ref_field(L, 2, "params", LUA_TTABLE);
    /* ctx and ctx.state get every field now, so that refreshing them during
     * a step never grows a table (no allocation, no error outside pcall) */
    lua_newtable(L);                       /* keys (see LAW_KEYS) */
    for (int i = 0; i < NLAW_KEYS; i++) {
        lua_pushstring(L, LAW_KEYS[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushliteral(L, "end");
    lua_rawseti(L, -2, KEY_END);
    lua_pushliteral(L, "theta");
    lua_rawseti(L, -2, KEY_THETA);
    for (int i = 0; i < law->nstate; i++) {
        lua_pushstring(L, law->state_names[i]);
        lua_rawseti(L, -2, KEY_STATE0 + i);
    }
    law->keys_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    for (int i = 0; i < 3; i++) {            /* t, h, theta */
        lua_pushnumber(L, 0.0);
        lua_setfield(L, -2, LAW_KEYS[i]);
    }
    lua_pushliteral(L, "end");
    lua_setfield(L, -2, "unknown");
    lua_newtable(L);                          /* metatable: contact fields on demand */
    lua_pushlightuserdata(L, law);
    lua_pushcclosure(L, ctx_index, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_newtable(L);
    for (int i = 0; i < law->nstate; i++) {
        lua_pushnumber(L, ops.state0[i]);
        lua_setfield(L, -2, law->state_names[i]);
    }
    lua_pushvalue(L, -1);
    law->state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setfield(L, -2, "state");
    law->ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    ops.user = law;
    ops.xi = law->xi_ref != LUA_NOREF ? lua_law_xi : NULL;
    ops.project = law->project_ref != LUA_NOREF ? lua_law_project : NULL;
    ops.update = law->update_ref != LUA_NOREF ? lua_law_update : NULL;
    ops.destroy = lua_law_destroy;
    int id = -1;
    rc_status s = rc_law_create_custom(lw->w, &ops, law->name, &id);
    if (s != RC_OK) { lua_law_destroy(law); return push_fail(L, s); }
    lua_pushinteger(L, id);
    return 1;
}

/* law_set(world, id, e, mu) -> true | nil, msg, status  (allowed between steps) */
static int l_law_set(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    rc_law_def def;
    rc_status s = rc_law_get_def(lw->w, id, &def);
    if (s != RC_OK) return push_fail(L, s);
    def.e = luaL_checknumber(L, 3);
    def.mu = luaL_checknumber(L, 4);
    s = rc_law_set(lw->w, id, &def);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_law_def(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    rc_law_def def;
    rc_status s = rc_law_get_def(lw->w, id, &def);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushnumber(L, def.e);
    lua_pushnumber(L, def.mu);
    return 2;
}

/* contact_rule(world, "bodies" | "groups", a, b, law id | false | nil (default law), name | nil) */
static int l_contact_rule(lua_State *L)
{
    static const char *const kinds[] = { "bodies", "groups", NULL };
    lrc_world *lw = check_idle(L, 1);
    int kind = luaL_checkoption(L, 2, NULL, kinds);
    rc_contact_rule_def def = rc_default_contact_rule_def();
    def.kind = kind == 0 ? RC_RULE_BODIES : RC_RULE_GROUPS;
    def.a = (int)luaL_checkinteger(L, 3);
    def.b = (int)luaL_checkinteger(L, 4);
    if (lua_isboolean(L, 5)) {
        if (lua_toboolean(L, 5)) return luaL_argerror(L, 5, "law: expected an id, false or nil");
        def.law = RC_NO_CONTACT;
    } else if (!lua_isnoneornil(L, 5)) {
        def.law = (int)luaL_checkinteger(L, 5);
    }
    def.name = luaL_optstring(L, 6, NULL);
    rc_status s = rc_contact_rule(lw->w, &def);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* ---------------------------------------------------------------- simulation */

static const char *const schemes[] = { "moreau-jean", "moreau-jean-fremond", NULL };
static const char *const activations[] = { "gap", "anticipate", NULL };
static const char *const on_fails[] = { "warn", "error", NULL };

static int field_option(lua_State *L, int t, const char *key, const char *const *opts, int dflt)
{
    int r = dflt;
    if (lua_getfield(L, t, key) != LUA_TNIL) {
        const char *s = lua_tostring(L, -1);
        r = -1;
        for (int i = 0; s && opts[i]; i++)
            if (strcmp(opts[i], s) == 0) r = i;
        if (r < 0) luaL_error(L, "invalid option for '%s'", key);
    }
    lua_pop(L, 1);
    return r;
}

/* configure(world, { scheme, theta, h, activation, gamma, persist_tol, tol,
 *                    max_iter, on_fail, warm_start }) -> true | nil, msg, status */
static int l_configure(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_sim_def def = rc_default_sim_def();
    def.scheme = field_option(L, 2, "scheme", schemes, 0) == 0 ? RC_SCHEME_MOREAU_JEAN
                                                                 : RC_SCHEME_MOREAU_JEAN_FREMOND;
    def.theta = field_num(L, 2, "theta", def.theta);
    def.h = field_num(L, 2, "h", def.h);
    def.activation = field_option(L, 2, "activation", activations, 0) == 0 ? RC_ACTIVATE_GAP
                                                                           : RC_ACTIVATE_ANTICIPATE;
    def.gamma = field_num(L, 2, "gamma", def.gamma);
    def.persist_tol = field_num(L, 2, "persist_tol", def.persist_tol);
    def.solver.tol = field_num(L, 2, "tol", def.solver.tol);
    lua_Integer mi = field_int(L, 2, "max_iter", def.solver.max_iter);
    if (mi < 1 || mi > 0x7fffffff) mi = 0; /* rejected by the kernel */
    def.solver.max_iter = (int)mi;
    def.solver.on_fail = field_option(L, 2, "on_fail", on_fails, 0) == 0 ? RC_ON_FAIL_WARN
                                                                        : RC_ON_FAIL_ERROR;
    if (lua_getfield(L, 2, "warm_start") != LUA_TNIL) def.solver.warm_start = lua_toboolean(L, -1);
    lua_pop(L, 1);
    def.solver.local_tol = field_num(L, 2, "local_tol", def.solver.local_tol);
    lua_Integer lmi = field_int(L, 2, "local_max_iter", def.solver.local_max_iter);
    if (lmi < 1 || lmi > 0x7fffffff) lmi = 0; /* rejected by the kernel */
    def.solver.local_max_iter = (int)lmi;
    static const char *const work_checks[] = { "record", "warn", "error", NULL };
    static const rc_work_check work_codes[] = { RC_WORK_RECORD, RC_WORK_WARN, RC_WORK_ERROR };
    def.work_check = work_codes[field_option(L, 2, "work_check", work_checks, 0)];
    def.work_tol = field_num(L, 2, "work_tol", def.work_tol);
    rc_status s = rc_world_configure(lw->w, &def);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_sim_def(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    rc_sim_def d;
    rc_status s = rc_world_get_sim_def(lw->w, &d);
    if (s != RC_OK) return push_fail(L, s);
    lua_newtable(L);
    lua_pushstring(L, d.scheme == RC_SCHEME_MOREAU_JEAN_FREMOND ? "moreau-jean-fremond" : "moreau-jean");
    lua_setfield(L, -2, "scheme");
    set_num(L, "theta", d.theta);
    set_num(L, "h", d.h);
    lua_pushstring(L, d.activation == RC_ACTIVATE_ANTICIPATE ? "anticipate" : "gap");
    lua_setfield(L, -2, "activation");
    set_num(L, "gamma", d.gamma);
    set_num(L, "persist_tol", d.persist_tol);
    set_num(L, "tol", d.solver.tol);
    set_int(L, "max_iter", d.solver.max_iter);
    lua_pushstring(L, d.solver.on_fail == RC_ON_FAIL_ERROR ? "error" : "warn");
    lua_setfield(L, -2, "on_fail");
    set_bool(L, "warm_start", d.solver.warm_start);
    set_num(L, "local_tol", d.solver.local_tol);
    set_int(L, "local_max_iter", d.solver.local_max_iter);
    lua_pushstring(L, d.work_check == RC_WORK_ERROR ? "error" : d.work_check == RC_WORK_WARN ? "warn" : "record");
    lua_setfield(L, -2, "work_check");
    set_num(L, "work_tol", d.work_tol);
    return 1;
}

/* step(world) -> true | nil, msg, status */
static int l_step(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    lw->L = L;
    lw->stepping = 1;
    rc_status s = rc_world_step(lw->w);
    lw->stepping = 0;
    lw->L = NULL;
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_time(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    lua_pushnumber(L, rc_world_time(lw->w));
    return 1;
}

static int l_step_count(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    lua_pushinteger(L, (lua_Integer)rc_world_step_count(lw->w));
    return 1;
}

static int l_step_info(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    rc_step_info in;
    rc_status s = rc_world_step_info(lw->w, &in);
    if (s != RC_OK) return push_fail(L, s);
    lua_createtable(L, 0, 24);
    set_num(L, "t", in.t);
    set_int(L, "step", in.step);
    set_int(L, "iterations", in.iterations);
    set_num(L, "residual", in.residual);
    set_bool(L, "converged", in.converged);
    set_int(L, "worst_contact", in.worst_contact);
    set_int(L, "ncontacts", in.ncontacts);
    set_int(L, "nactive", in.nactive);
    set_num(L, "E", in.E);
    set_num(L, "E_kin", in.E_kin);
    set_num(L, "E_pot", in.E_pot);
    set_num(L, "W_ext", in.W_ext);
    set_num(L, "W_N", in.W_N);
    set_num(L, "W_T", in.W_T);
    set_num(L, "W_theta", in.W_theta);
    set_num(L, "balance", in.balance);
    set_num(L, "W_ext_total", in.W_ext_total);
    set_num(L, "W_N_total", in.W_N_total);
    set_num(L, "W_T_total", in.W_T_total);
    set_num(L, "W_theta_total", in.W_theta_total);
    set_num(L, "max_contact_work", in.max_contact_work);
    return 1;
}

static int l_energy(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    double k, p;
    rc_status s = rc_world_energy(lw->w, &k, &p);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushnumber(L, k);
    lua_pushnumber(L, p);
    return 2;
}

static int l_run_stats(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    rc_run_stats st;
    rc_status s = rc_world_run_stats(lw->w, &st);
    if (s != RC_OK) return push_fail(L, s);
    lua_createtable(L, 0, 8);
    set_int(L, "steps", st.steps);
    set_int(L, "max_iterations", st.max_iterations);
    set_num(L, "max_residual", st.max_residual);
    set_int(L, "failures", st.failures);
    set_num(L, "max_abs_balance", st.max_abs_balance);
    set_num(L, "max_contact_work", st.max_contact_work);
    set_num(L, "t_max_contact_work", st.t_max_contact_work);
    set_int(L, "positive_work_events", st.positive_work_events);
    set_int(L, "contact_max_contact_work", st.contact_max_contact_work);
    set_num(L, "max_energy_increase", st.max_energy_increase);
    set_num(L, "t_max_energy_increase", st.t_max_energy_increase);
    set_int(L, "local_solves", st.local_solves);
    set_num(L, "solver_cpu_s", st.solver_cpu_s);
    return 1;
}

/* ---------------------------------------------------------------- contacts */

static void push_contact(lua_State *L, const rc_contact_info *c)
{
    lua_createtable(L, 0, 18);
    set_int(L, "id", c->id);
    set_int(L, "body_a", c->body_a);
    set_int(L, "body_b", c->body_b);
    set_int(L, "shape_a", c->shape_a);
    set_int(L, "shape_b", c->shape_b);
    set_int(L, "feature", c->feature);
    set_bool(L, "active", c->active);
    set_vec(L, "point", c->point, 2);
    set_vec(L, "normal", c->normal, 2);
    set_vec(L, "tangent", c->tangent, 2);
    set_num(L, "gN", c->gN);
    set_num(L, "uN", c->uN);
    set_num(L, "uT", c->uT);
    set_num(L, "pN", c->pN);
    set_num(L, "pT", c->pT);
    set_num(L, "WN", c->WN);
    set_num(L, "WT", c->WT);
}

static int l_contacts(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int n = rc_contact_count(lw->w);
    lua_createtable(L, n > 0 ? n : 0, 0);
    for (int i = 0; i < n; i++) {
        rc_contact_info c;
        rc_status s = rc_contact_get(lw->w, i, &c);
        if (s != RC_OK) return push_fail(L, s);
        push_contact(L, &c);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_named_contact_names(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int n = rc_named_contact_count(lw->w);
    lua_createtable(L, n > 0 ? n : 0, 0);
    for (int i = 0; i < n; i++) {
        const char *name = rc_named_contact_name(lw->w, i);
        lua_pushstring(L, name ? name : "");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* named_contact(world, index0) -> table | nil, msg, status */
static int l_named_contact(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int i = (int)luaL_checkinteger(L, 2);
    rc_contact_info c;
    rc_status s = rc_named_contact_get(lw->w, i, &c);
    if (s != RC_OK) return push_fail(L, s);
    push_contact(L, &c);
    const char *name = rc_named_contact_name(lw->w, i);
    if (name) {
        lua_pushstring(L, name);
        lua_setfield(L, -2, "name");
    }
    return 1;
}

/* ---------------------------------------------------------------- output */

/* output_open(world, dir, every, scenario | nil, params_json | nil) */
static int l_output_open(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    rc_output_def def = rc_default_output_def();
    def.dir = luaL_checkstring(L, 2);
    lua_Integer every = luaL_optinteger(L, 3, def.every);
    if (every < 1 || every > 0x7fffffff) every = 0; /* rejected by the kernel */
    def.every = (int)every;
    def.scenario = luaL_optstring(L, 4, NULL);
    def.params_json = luaL_optstring(L, 5, NULL);
    rc_status s = rc_output_open(lw->w, &def);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_output_close(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    const char *status = luaL_optstring(L, 2, "complete");
    const char *message = luaL_optstring(L, 3, NULL);
    rc_status s = rc_output_close(lw->w, status, message);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_output_is_open(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    lua_pushboolean(L, lw->w != NULL && rc_output_is_open(lw->w));
    return 1;
}

/* ---------------------------------------------------------------- misc */

static int l_request_interrupt(lua_State *L)
{
    (void)L;
    rc_request_interrupt();
    return 0;
}

static int l_clear_interrupt(lua_State *L)
{
    (void)L;
    rc_clear_interrupt();
    return 0;
}

static int l_interrupt_requested(lua_State *L)
{
    lua_pushboolean(L, rc_interrupt_requested());
    return 1;
}

static int l_alloc_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rc_alloc_count());
    return 1;
}

/* wall-clock seconds (C11 timespec_get) */
static int l_wall_time(lua_State *L)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) {
        lua_pushnumber(L, (lua_Number)time(NULL));
        return 1;
    }
    lua_pushnumber(L, (lua_Number)ts.tv_sec + 1e-9 * (lua_Number)ts.tv_nsec);
    return 1;
}

static const luaL_Reg world_meta[] = {
    { "__gc", l_world_gc },
    { "__close", l_world_tbc },
    { NULL, NULL }
};

static const luaL_Reg core_funcs[] = {
    { "world_new", l_world_new },
    { "close", l_world_close },
    { "is_open", l_is_open },
    { "is_world", l_is_world },
    { "is_stepping", l_is_stepping },
    { "warnings", l_warnings },
    { "body_create", l_body_create },
    { "body_count", l_body_count },
    { "body_state", l_body_state },
    { "body_set_state", l_body_set_state },
    { "body_set_force", l_body_set_force },
    { "body_force", l_body_force },
    { "body_set_force_fn", l_body_set_force_fn },
    { "body_mass", l_body_mass },
    { "shape_create", l_shape_create },
    { "shape_count", l_shape_count },
    { "shape_def", l_shape_def },
    { "law_create", l_law_create },
    { "law_create_custom", l_law_create_custom },
    { "law_set", l_law_set },
    { "law_def", l_law_def },
    { "contact_rule", l_contact_rule },
    { "configure", l_configure },
    { "sim_def", l_sim_def },
    { "step", l_step },
    { "time", l_time },
    { "step_count", l_step_count },
    { "step_info", l_step_info },
    { "energy", l_energy },
    { "run_stats", l_run_stats },
    { "contacts", l_contacts },
    { "named_contact_names", l_named_contact_names },
    { "named_contact", l_named_contact },
    { "output_open", l_output_open },
    { "output_close", l_output_close },
    { "output_is_open", l_output_is_open },
    { "request_interrupt", l_request_interrupt },
    { "clear_interrupt", l_clear_interrupt },
    { "interrupt_requested", l_interrupt_requested },
    { "alloc_count", l_alloc_count },
    { "wall_time", l_wall_time },
    { NULL, NULL }
};

int luaopen_ricochet_core(lua_State *L);

int luaopen_ricochet_core(lua_State *L)
{
    luaL_checkversion(L);
    if (luaL_newmetatable(L, LRC_WORLD)) {
        luaL_setfuncs(L, world_meta, 0);
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    luaL_newlib(L, core_funcs);
    lua_pushliteral(L, RC_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, RC_GROUND);
    lua_setfield(L, -2, "GROUND");
    lua_pushinteger(L, RC_MAX_POLYGON_VERTICES);
    lua_setfield(L, -2, "MAX_POLYGON_VERTICES");
    return 1;
}
