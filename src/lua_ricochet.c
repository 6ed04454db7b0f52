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
 *   - Lua code called from inside the kernel (force functions, laws,
 *     prescribed motions, custom constraints, gap functions) runs under
 *     lua_pcall: an error becomes RC_ERR_CALLBACK with the Lua message, and
 *     no longjmp ever crosses a kernel frame.
 */
#include <lua.h>
#include <lauxlib.h>

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ricochet.h"
#include "ricochet_lua.h"   /* rc_lua_callback_enter/leave: the per-callback limit */
#include "lua_frames.h"     /* frames_*, read_gz (lua_frames.c) */

#define LRC_WORLD "ricochet.core.world"
#define LRC_MAX_WARNINGS_PRINTED 20

typedef struct lrc_world {
    rc_world *w;
    lua_State *L;       /* thread running rc_world_step (for callbacks), or NULL */
    int fn_ref;         /* registry ref: table body id -> force function          */
    int cb_ref;         /* registry ref: table of joint/gap callbacks (lrc_cb)      */
    int ncb;            /* keys used in that table                                 */
    int stepping;       /* inside rc_world_step (or another kernel call that may
                           run Lua callbacks)                                      */
    long warnings;      /* warnings reported by the kernel                         */
    struct lrc_law *live_laws;  /* Lua laws called during the current kernel call  */
} lrc_world;

static void ctx_kill_all(lua_State *L, lrc_world *lw);

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

/* Kernel calls that may run Lua callbacks (joints, gaps: possibly also at
 * creation, configuration or output time, not only in rc_world_step): the
 * calling thread becomes lw->L and the world counts as stepping, so that
 * the callbacks cannot change it structurally. */
typedef struct lrc_saved {
    lua_State *L;
    int stepping;
} lrc_saved;

static lrc_saved enter_kernel(lrc_world *lw, lua_State *L)
{
    lrc_saved sv = { lw->L, lw->stepping };
    if (!lw->L) lw->L = L;
    lw->stepping = 1;
    return sv;
}

static void leave_kernel(lua_State *L, lrc_world *lw, lrc_saved sv)
{
    lw->L = sv.L;
    lw->stepping = sv.stepping;
    if (!sv.stepping) ctx_kill_all(L, lw);
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

/* A GC-managed buffer of n doubles (n >= 0), pushed on the stack: no leak
 * when a later check raises. */
static double *scratch(lua_State *L, int n)
{
    return (double *)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof(double), 0);
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
    double ek, ee;
    const char *what = "";
    if (!lua_istable(L, r) || lua_rawlen(L, r) != (lua_Unsigned)fc->nv)   /* a linear body? (message only) */
        what = rc_linear_energy(fc->lw->w, fc->body, &ek, &ee) == RC_OK ? " (one per coordinate)" : " {fx, fy, torque}";
    if (!lua_istable(L, r)) {
        lua_pushfstring(L, "force_fn must return a table of %d finite numbers%s, got %s",
                        fc->nv, what, luaL_typename(L, r));
        return lua_error(L);
    }
    lua_Unsigned len = lua_rawlen(L, r);
    if (len != (lua_Unsigned)fc->nv) {
        lua_pushfstring(L, "force_fn must return a table of %d finite numbers%s, got a table of length %d",
                        fc->nv, what, (int)len);
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
    rc_lua_callback_enter(L);
    int r = lua_pcall(L, 1, 0, 0);
    rc_lua_callback_leave(L);
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

/* world_new{ dim, gravity = {gx, gy}, margin, e, mu, periodic = {x0, x1} } -> world | nil, msg, status */
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
    field_vec(L, 1, "periodic", def.periodic_x, 2);

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
    if (s != RC_OK) return push_fail(L, s);
    lw->w = w;
    rc_world_set_warning_fn(w, warning_cb, lw);
    return 1;
}

static void close_world(lua_State *L, lrc_world *lw, const char *status, const char *message)
{
    ctx_kill_all(L, lw);
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

static int l_world_gc(lua_State *L)
{
    lrc_world *lw = check_lw(L, 1);
    if (lw->stepping) return 0; /* cannot happen: the stepping world is on the stack */
    if (rc_interrupt_requested())   /* the program is ending on a signal */
        close_world(L, lw, "interrupted", "interrupted; the world was garbage-collected before its output was closed");
    else
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
    int nq = rc_body_nq(lw->w, id), nv = rc_body_nv(lw->w, id);
    double *q = scratch(L, nq), *v = scratch(L, nv);
    rc_status s = rc_body_get_state(lw->w, id, q, v);
    if (s != RC_OK) return push_fail(L, s);
    push_vec(L, q, nq);
    push_vec(L, v, nv);
    return 2;
}

/* body_nq(world, id) -> nq, nv (0, 0 for a bad id) */
static int l_body_nq(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = check_body_id(L, 2);
    lua_pushinteger(L, rc_body_nq(lw->w, id));
    lua_pushinteger(L, rc_body_nv(lw->w, id));
    return 2;
}

/* body_set_state(world, id, q | nil, v | nil) -> true | nil, msg, status */
static int l_body_set_state(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    int id = check_body_id(L, 2);
    int nq = rc_body_nq(lw->w, id), nv = rc_body_nv(lw->w, id);
    double *q = scratch(L, nq), *v = scratch(L, nv);
    rc_status s = rc_body_get_state(lw->w, id, q, v);
    if (s != RC_OK) return push_fail(L, s);
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
    int nv = rc_body_nv(lw->w, id);
    if (nv <= 0) nv = 3;
    double *f = scratch(L, nv);
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
    int nv = rc_body_nv(lw->w, id);
    double *f = scratch(L, nv);
    rc_status s = rc_body_get_force(lw->w, id, f);
    if (s != RC_OK) return push_fail(L, s);
    push_vec(L, f, nv);
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
 * law is the descriptor's params table. Every call runs under lua_pcall.
 *
 * A ctx kept by a script must never read the stack frame of a finished
 * call nor a law freed by w:close(): the contact's fields are computed on
 * demand (__index) from the call's rc_law_ctx, reached through a cell (a Lua
 * userdata, not the law) whose pointer is set for the call only; the step's
 * fields (t, h, theta, unknown, state) are stored in the table by the first
 * call of a step and removed when the step (the kernel call) is over. Used
 * outside a call, a contact field raises "ctx is only valid during the
 * law's call"; outside a step, any field does. (Swapping metatables around
 * every call instead costs a fifth of a Lua law's time per local solve.) */

typedef struct lrc_ctx_cell {
    const rc_law_ctx *cur;  /* the call in progress, NULL between calls */
} lrc_ctx_cell;

typedef struct lrc_law {
    lrc_world *lw;
    lua_State *L0;          /* the main thread: the registry refs are released through it
                               (never the thread that created the law: a coroutine may be
                               collected before the world closes) */
    char name[128];
    int dim, nstate;
    int xi_ref, project_ref, update_ref, params_ref, ctx_ref, state_ref, keys_ref;
    int live;               /* the step's fields are stored in ctx (in lw->live_laws) */
    struct lrc_law *next_live;
    char state_names[RC_LAW_MAX_STATE][32];
    double ctx_t, ctx_h, ctx_theta;   /* the step fields ctx holds       */
    int ctx_unknown;
    lrc_ctx_cell *cell;     /* held by the ctx table's metatable (alive while ctx_ref is) */
} lrc_law;

#define LRC_CTX_DEAD "ctx is only valid during the law's call"

/* The main thread of L's state: it lives as long as the state. */
static lua_State *main_thread(lua_State *L)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    lua_State *M = lua_tothread(L, -1);
    lua_pop(L, 1);
    return M;
}

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

/* A ctx used outside its call: the error at the line that used it. */
static int ctx_dead(lua_State *L)
{
    return luaL_error(L, LRC_CTX_DEAD);
}

/* ctx.key = value for a key ctx does not hold: only during a call */
static int ctx_newindex(lua_State *L)
{
    const lrc_ctx_cell *cell = (const lrc_ctx_cell *)lua_touserdata(L, lua_upvalueindex(1));
    if (!cell || !cell->cur) return ctx_dead(L);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

/* ctx: the step's fields (t, h, theta, unknown) are stored in the table and
 * refreshed once per step; the contact's fields (contact, gN, nx, ny, tx, ty)
 * are read on demand through __index from the contact being solved, so that
 * laws that do not read them do not pay for them. */
static int ctx_index(lua_State *L)
{
    const lrc_ctx_cell *cell = (const lrc_ctx_cell *)lua_touserdata(L, lua_upvalueindex(1));
    const rc_law_ctx *c = cell ? cell->cur : NULL;
    if (!c) return ctx_dead(L);
    const char *k = lua_tostring(L, 2);
    if (!k) return 0;
    if (strcmp(k, "contact") == 0) lua_pushinteger(L, c->contact);
    else if (strcmp(k, "gN") == 0) lua_pushnumber(L, c->gN);
    else if (strcmp(k, "nx") == 0) lua_pushnumber(L, c->normal[0]);
    else if (strcmp(k, "ny") == 0) lua_pushnumber(L, c->normal[1]);
    else if (strcmp(k, "tx") == 0) lua_pushnumber(L, c->tangent[0]);
    else if (strcmp(k, "ty") == 0) lua_pushnumber(L, c->tangent[1]);
    else return 0;
    return 1;
}

/* The step's fields of ctx (see above): ctx.state now, t, h, theta and
 * unknown by the refresh that follows (forced). Runs under lua_pcall: the
 * keys may have to be inserted again (allocation). */
static int ctx_revive(lua_State *L)
{
    lrc_law *law = (lrc_law *)lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, law->ctx_ref);
    lua_pushliteral(L, "state");
    lua_rawgeti(L, LUA_REGISTRYINDEX, law->state_ref);
    lua_rawset(L, -3);
    lua_rawgeti(L, LUA_REGISTRYINDEX, law->keys_ref);
    static const int step_keys[] = { 1, 2, 3, NLAW_KEYS };   /* t, h, theta, unknown */
    for (int i = 0; i < 4; i++) {
        lua_rawgeti(L, -1, step_keys[i]);
        lua_pushinteger(L, 0);   /* a number or a string: refresh_ctx sets the value */
        lua_rawset(L, -4);
    }
    law->ctx_t = NAN;            /* refresh_ctx sets them all */
    return 0;
}

/* The kernel call is over: the ctx of every law it called loses its step's
 * fields (setting fields to nil never allocates, never raises). */
static void ctx_kill_all(lua_State *L, lrc_world *lw)
{
    while (lw->live_laws) {
        lrc_law *law = lw->live_laws;
        lw->live_laws = law->next_live;
        law->next_live = NULL;
        law->live = 0;
        law->cell->cur = NULL;
        lua_rawgeti(L, LUA_REGISTRYINDEX, law->ctx_ref);
        lua_rawgeti(L, LUA_REGISTRYINDEX, law->keys_ref);
        static const int step_keys[] = { 1, 2, 3, NLAW_KEYS };
        for (int i = 0; i < 4; i++) {
            lua_rawgeti(L, -1, step_keys[i]);
            lua_pushnil(L);
            lua_rawset(L, -4);
        }
        lua_pop(L, 1);
        lua_pushliteral(L, "state");
        lua_pushnil(L);
        lua_rawset(L, -3);
        lua_pop(L, 1);
    }
}

static void refresh_ctx(lua_State *L, lrc_law *lw, const rc_law_ctx *ctx, const double *state)
{
    lw->cell->cur = ctx;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->ctx_ref);
    int t = lua_gettop(L);
    const int fresh = ctx->t != lw->ctx_t || ctx->h != lw->ctx_h || ctx->theta != lw->ctx_theta
                   || (int)ctx->unknown != lw->ctx_unknown;
    if (fresh || lw->nstate > 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, lw->keys_ref);
        int keys = lua_gettop(L);
        if (fresh) {
            set_key(L, keys, t, 1, ctx->t);
            set_key(L, keys, t, 2, ctx->h);
            set_key(L, keys, t, 3, ctx->theta);
            lua_rawgeti(L, keys, NLAW_KEYS);
            lua_rawgeti(L, keys, ctx->unknown == RC_UNKNOWN_THETA ? KEY_THETA : KEY_END);
            lua_rawset(L, t);
            lw->ctx_t = ctx->t;
            lw->ctx_h = ctx->h;
            lw->ctx_theta = ctx->theta;
            lw->ctx_unknown = (int)ctx->unknown;
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
    if (!law->live) {   /* the first call of this kernel call: store the step's fields */
        lua_pushcfunction(L, ctx_revive);
        lua_pushlightuserdata(L, law);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
            rc_status s = rc_set_error(RC_ERR_CALLBACK, "law '%s': %s", law->name,
                                       lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "cannot set up ctx");
            lua_settop(L, top);
            return s;
        }
        law->live = 1;
        law->next_live = law->lw->live_laws;
        law->lw->live_laws = law;
    }
    refresh_ctx(L, law, lc->ctx, lc->state);      /* the ctx table at top + 1 */
    const int is_update = lc->fn_ref == law->update_ref;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lc->fn_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, law->params_ref);
    int n = 1;
    if (is_update) { lua_pushvalue(L, top + 1); n++; }
    for (int i = 0; i < lc->nargs; i++, n++) lua_pushnumber(L, lc->args[i]);
    if (!is_update) { lua_pushvalue(L, top + 1); n++; }
    rc_status s = RC_OK;
    rc_lua_callback_enter(L);
    const int r = lua_pcall(L, n, lc->nres, 0);
    rc_lua_callback_leave(L);
    law->cell->cur = NULL;                         /* the call is over: no contact fields */
    if (r != LUA_OK) {
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
    if (law->cell) law->cell->cur = NULL;
    /* the registry refs die with the Lua state; release them while it lives
     * (through its main thread, which lives as long as the state) */
    if (law->L0) {
        int refs[] = { law->xi_ref, law->project_ref, law->update_ref, law->params_ref, law->ctx_ref, law->state_ref,
                       law->keys_ref };
        for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
            if (refs[i] != LUA_NOREF && refs[i] != LUA_REFNIL) luaL_unref(law->L0, LUA_REGISTRYINDEX, refs[i]);
    }
    free(law);
}

/* A law under construction is owned by a guard userdata on the stack until
 * the kernel takes it: any error raised meanwhile (a field of the wrong
 * type, out of memory) frees it when the guard is collected. */
#define LRC_LAW_GUARD "ricochet.core.law_guard"

typedef struct lrc_law_guard {
    lrc_law *law;
} lrc_law_guard;

static int law_guard_gc(lua_State *L)
{
    lrc_law_guard *g = (lrc_law_guard *)luaL_checkudata(L, 1, LRC_LAW_GUARD);
    if (g->law) lua_law_destroy(g->law);
    g->law = NULL;
    return 0;
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
    lrc_law_guard *guard = (lrc_law_guard *)lua_newuserdatauv(L, sizeof *guard, 0);
    guard->law = NULL;
    luaL_setmetatable(L, LRC_LAW_GUARD);
    lrc_law *law = (lrc_law *)calloc(1, sizeof *law);
    if (!law) return luaL_error(L, "out of memory");
    guard->law = law;
    law->lw = lw;
    law->L0 = main_thread(L);
    law->ctx_t = NAN;
    law->xi_ref = law->project_ref = law->update_ref = law->params_ref = law->ctx_ref = law->state_ref = LUA_NOREF;
    law->keys_ref = LUA_NOREF;
    const char *name = field_str(L, 2, "name");
    snprintf(law->name, sizeof law->name, "%s", name ? name : "(unnamed)");
    law->dim = (int)field_int(L, 2, "dim", 2);
    rc_law_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.dim = law->dim;
    if (lua_getfield(L, 2, "state_names") == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        if (n > RC_LAW_MAX_STATE)   /* the guard frees the law */
            return luaL_error(L, "law '%s': at most %d state values", law->name, RC_LAW_MAX_STATE);
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
    lua_newtable(L);                          /* ctx: the step's fields come with the first call */
    lua_newtable(L);                          /* metatable: contact fields on demand */
    law->cell = (lrc_ctx_cell *)lua_newuserdatauv(L, sizeof *law->cell, 0);
    law->cell->cur = NULL;
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, ctx_index, 1);
    lua_setfield(L, -3, "__index");
    lua_pushcclosure(L, ctx_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    law->ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);                          /* ctx.state, with every field: refreshing never grows it */
    for (int i = 0; i < law->nstate; i++) {
        lua_pushnumber(L, ops.state0[i]);
        lua_setfield(L, -2, law->state_names[i]);
    }
    law->state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    ops.user = law;
    ops.xi = law->xi_ref != LUA_NOREF ? lua_law_xi : NULL;
    ops.project = law->project_ref != LUA_NOREF ? lua_law_project : NULL;
    ops.update = law->update_ref != LUA_NOREF ? lua_law_update : NULL;
    ops.destroy = lua_law_destroy;
    int id = -1;
    rc_status s = rc_law_create_custom(lw->w, &ops, law->name, &id);
    if (s != RC_OK) return push_fail(L, s);   /* the guard frees the law */
    guard->law = NULL;                        /* the kernel owns it (ops.destroy) */
    lua_pushinteger(L, id);
    return 1;
}

/* law_set(world, id, e, mu, e_t?) -> true | nil, msg, status  (allowed between steps) */
static int l_law_set(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    rc_law_def def;
    rc_status s = rc_law_get_def(lw->w, id, &def);
    if (s != RC_OK) return push_fail(L, s);
    def.e = luaL_checknumber(L, 3);
    def.mu = luaL_checknumber(L, 4);
    def.e_t = luaL_optnumber(L, 5, def.e_t);
    s = rc_law_set(lw->w, id, &def);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* set_default_law(world, id) -> true | nil, msg, status */
static int l_set_default_law(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    rc_status s = rc_world_set_default_law(lw->w, (int)luaL_checkinteger(L, 2));
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
    /* the type: built-in Coulomb laws (closed form or generic solve) or custom */
    lua_pushstring(L, def.type == RC_LAW_NEWTON_COULOMB ? "newton" : def.type == RC_LAW_MOREAU ? "moreau"
                      : def.type == RC_LAW_FREMOND ? "fremond" : "custom");
    return 3;
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

/* ---------------------------------------------------------------- joints, springs, linear bodies, gaps
 *
 * Lua functions called by the kernel (prescribed motion f/df, custom
 * constraint g/grad, nonlinear gap functions) live in the world's callback
 * table T (registry ref lw->cb_ref): a holder lrc_cb (a full userdata, so
 * that it is freed with T, after the kernel world that points at it) at
 * T[key + 2] and its functions at T[key], T[key + 1]. Every call runs under
 * lua_pcall on the stepping thread (lw->L) and checks what the function
 * returns (count, type, finiteness); a failure becomes RC_ERR_CALLBACK with
 * a message naming the joint or gap and the function. */

typedef enum lrc_cb_kind { CB_MOTION = 1, CB_CONSTRAINT, CB_GAP } lrc_cb_kind;

typedef struct lrc_cb {
    lrc_world *lw;
    lrc_cb_kind kind;
    int key;            /* T[key]: f | g | gap; T[key + 1]: df | grad | nil; T[key + 2]: this holder */
    int has2;           /* T[key + 1] is a function                                  */
    int rows;           /* constraint: number of rows                                */
    int nqa, nqb;       /* constraint: sizes of q_A (0: the ground) and q_B; gap: nq   */
    char label[112];    /* "joint 'pin'", "joint 3", "gap 'tip'", ...                 */
    double buf[];       /* results before they are copied out (nbuf numbers)         */
} lrc_cb;

struct cb_call {
    lrc_cb *cb;
    const char *what;   /* the function being called, for messages                  */
    int checked;        /* the error message is complete (a result check failed)    */
    int want_grad;      /* constraint: call grad; gap: (always checked)             */
    double t;
    const double *qa, *qb;
};

/* A new holder for the functions at stack indices i1 and i2 (i2 may hold
 * nil), with room for nbuf numbers. Leaves the stack as it was. */
static lrc_cb *cb_new(lua_State *L, lrc_world *lw, lrc_cb_kind kind, int i1, int i2, int nbuf)
{
    i1 = lua_absindex(L, i1);
    i2 = lua_absindex(L, i2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->cb_ref);
    int T = lua_gettop(L);
    size_t size = sizeof(lrc_cb) + (size_t)(nbuf > 0 ? nbuf : 1) * sizeof(double);
    lrc_cb *cb = (lrc_cb *)lua_newuserdatauv(L, size, 0);
    memset(cb, 0, size);
    cb->lw = lw;
    cb->kind = kind;
    cb->key = lw->ncb + 1;
    lua_rawseti(L, T, cb->key + 2);
    lua_pushvalue(L, i1);
    lua_rawseti(L, T, cb->key);
    if (lua_isfunction(L, i2)) {
        lua_pushvalue(L, i2);
        lua_rawseti(L, T, cb->key + 1);
        cb->has2 = 1;
    }
    lw->ncb += 3;
    lua_pop(L, 1);
    return cb;
}

/* Forget a holder whose joint or gap was refused by the kernel. */
static void cb_drop(lua_State *L, lrc_cb *cb)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, cb->lw->cb_ref);
    for (int i = 0; i < 3; i++) {
        lua_pushnil(L);
        lua_rawseti(L, -2, cb->key + i);
    }
    lua_pop(L, 1);
}

static void cb_push_fn(lua_State *L, const lrc_cb *cb, int which)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, cb->lw->cb_ref);
    lua_rawgeti(L, -1, cb->key + which);
    lua_remove(L, -2);
}

/* A returned value, for messages: nil, a string, nan, inf, ... */
static const char *describe(lua_State *L, int idx, char *buf, size_t n)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        double x = lua_tonumber(L, idx);
        snprintf(buf, n, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : x < 0 ? "-inf" : "0");
        if (isfinite(x)) snprintf(buf, n, "%.17g", x);
        return buf;
    }
    if (lua_isnil(L, idx)) return "nil";
    snprintf(buf, n, "a %s", luaL_typename(L, idx));
    return buf;
}

/* Raise the complete message "LABEL: WHAT MSG (t = T)" (inside the pcall). */
static int cb_fail(lua_State *L, struct cb_call *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int cb_fail(lua_State *L, struct cb_call *c, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char tb[40];
    snprintf(tb, sizeof tb, "%.10g", c->t);
    c->checked = 1;
    lua_pushfstring(L, "%s: %s %s (t = %s)", c->cb->label, c->what, msg, tb);
    return lua_error(L);
}

/* Value number k (1-based) of a result, at stack index idx: a finite number. */
static double cb_value(lua_State *L, struct cb_call *c, int idx, int k)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        double x = lua_tonumber(L, idx);
        if (isfinite(x)) return x;
    }
    char d[40];
    cb_fail(L, c, "returned %s as value %d (a finite number is required)", describe(L, idx, d, sizeof d), k);
    return 0;
}

/* A result at idx that must be a table of n finite numbers, named `name`. */
static void cb_vec(lua_State *L, struct cb_call *c, int idx, const char *name, double *x, int n)
{
    char d[40];
    if (!lua_istable(L, idx))
        cb_fail(L, c, "returned %s as %s (a table of %d finite numbers is required)", describe(L, idx, d, sizeof d), name, n);
    lua_Unsigned len = lua_rawlen(L, idx);
    if (len != (lua_Unsigned)n)
        cb_fail(L, c, "returned a table of length %d as %s (%d finite numbers are required)", (int)len, name, n);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (lua_type(L, -1) == LUA_TNUMBER && isfinite(lua_tonumber(L, -1))) x[i] = lua_tonumber(L, -1);
        else cb_fail(L, c, "returned %s[%d] = %s (a finite number is required)", name, i + 1, describe(L, -1, d, sizeof d));
        lua_pop(L, 1);
    }
}

/* A rows x 3 matrix (a table of rows) at idx into x (row-major). */
static void cb_mat(lua_State *L, struct cb_call *c, int idx, const char *name, double *x, int rows)
{
    char d[40];
    if (!lua_istable(L, idx))
        cb_fail(L, c, "returned %s as %s (a table of %d rows of 3 numbers is required)", describe(L, idx, d, sizeof d), name, rows);
    lua_Unsigned len = lua_rawlen(L, idx);
    if (len != (lua_Unsigned)rows)
        cb_fail(L, c, "returned %d rows as %s (%d rows of 3 numbers are required)", (int)len, name, rows);
    for (int i = 0; i < rows; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "%s[%d]", name, i + 1);
        lua_rawgeti(L, idx, i + 1);
        cb_vec(L, c, lua_gettop(L), nm, x + 3 * i, 3);
        lua_pop(L, 1);
    }
}

static rc_status cb_run(lrc_cb *cb, lua_CFunction fn, struct cb_call *c)
{
    lua_State *L = cb->lw->L;
    if (!L) return rc_set_error(RC_ERR_CALLBACK, "%s: Lua function called outside a step of the Lua binding", cb->label);
    if (!lua_checkstack(L, 24)) return rc_set_error(RC_ERR_CALLBACK, "%s: Lua stack overflow", cb->label);
    int top = lua_gettop(L);
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, c);
    rc_status s = RC_OK;
    rc_lua_callback_enter(L);
    int r = lua_pcall(L, 1, 0, 0);
    rc_lua_callback_leave(L);
    if (r != LUA_OK) {
        if (c->checked && lua_type(L, -1) == LUA_TSTRING)
            s = rc_set_error(RC_ERR_CALLBACK, "%s", lua_tostring(L, -1));
        else if (lua_type(L, -1) == LUA_TSTRING)
            s = rc_set_error(RC_ERR_CALLBACK, "%s: %s failed at t = %.10g: %s", cb->label, c->what, c->t,
                             lua_tostring(L, -1));
        else
            s = rc_set_error(RC_ERR_CALLBACK, "%s: %s raised an error object of type %s at t = %.10g", cb->label,
                             c->what, luaL_typename(L, -1), c->t);
    }
    lua_settop(L, top);
    return s;
}

/* motion: f(t) -> value; df(t) -> derivative (optional). buf = { f, df } */
static int motion_protected(lua_State *L)
{
    struct cb_call *c = (struct cb_call *)lua_touserdata(L, 1);
    lrc_cb *cb = c->cb;
    int base = lua_gettop(L);
    c->what = "motion f";
    cb_push_fn(L, cb, 0);
    lua_pushnumber(L, c->t);
    lua_call(L, 1, 1);
    cb->buf[0] = cb_value(L, c, base + 1, 1);
    lua_settop(L, base);
    cb->buf[1] = NAN;
    if (c->want_grad) {
        c->what = "motion df";
        cb_push_fn(L, cb, 1);
        lua_pushnumber(L, c->t);
        lua_call(L, 1, 1);
        cb->buf[1] = cb_value(L, c, base + 1, 1);
        lua_settop(L, base);
    }
    return 0;
}

static rc_status motion_cb(void *user, double t, double *f, double *df)
{
    lrc_cb *cb = (lrc_cb *)user;
    struct cb_call c = { .cb = cb, .what = "motion f", .t = t, .want_grad = cb->has2 && df != NULL };
    rc_status s = cb_run(cb, motion_protected, &c);
    if (s != RC_OK) return s;
    if (f) *f = cb->buf[0];
    if (df) *df = c.want_grad ? cb->buf[1] : NAN;
    return RC_OK;
}

/* constraint: g(t, qa, qb) -> g1, .., gm; grad(t, qa, qb) -> Ga, Gb.
 * buf = { g[3], Ga[9], Gb[9] } */
static void push_q(lua_State *L, const double *q, int n)
{
    if (q && n > 0) push_vec(L, q, n);
    else lua_pushnil(L);
}

static int constraint_protected(lua_State *L)
{
    struct cb_call *c = (struct cb_call *)lua_touserdata(L, 1);
    lrc_cb *cb = c->cb;
    int base = lua_gettop(L);
    c->what = "constraint g";
    cb_push_fn(L, cb, 0);
    lua_pushnumber(L, c->t);
    push_q(L, c->qa, cb->nqa);
    push_q(L, c->qb, cb->nqb);
    lua_call(L, 3, LUA_MULTRET);
    int nres = lua_gettop(L) - base;
    for (int i = 0; i < cb->rows; i++) {
        if (i >= nres) cb_fail(L, c, "returned nil as value %d (rows = %d: %d finite numbers are required)", i + 1, cb->rows, cb->rows);
        cb->buf[i] = cb_value(L, c, base + 1 + i, i + 1);
    }
    if (nres > cb->rows) cb_fail(L, c, "returned %d values (rows = %d)", nres, cb->rows);
    lua_settop(L, base);
    if (!c->want_grad) return 0;
    c->what = "constraint grad";
    cb_push_fn(L, cb, 1);
    lua_pushnumber(L, c->t);
    push_q(L, c->qa, cb->nqa);
    push_q(L, c->qb, cb->nqb);
    lua_call(L, 3, 2);
    if (cb->nqa > 0) cb_mat(L, c, base + 1, "Ga", cb->buf + 3, cb->rows);
    else for (int i = 0; i < 9; i++) cb->buf[3 + i] = 0.0;   /* A is the ground: Ga is ignored */
    cb_mat(L, c, base + 2, "Gb", cb->buf + 12, cb->rows);
    lua_settop(L, base);
    return 0;
}

static rc_status constraint_cb(void *user, double t, const double *qa, const double *qb,
                               double *g, double *Ga, double *Gb)
{
    lrc_cb *cb = (lrc_cb *)user;
    int want = Ga != NULL || Gb != NULL;
    struct cb_call c = { .cb = cb, .what = "constraint g", .t = t, .qa = qa, .qb = qb, .want_grad = want && cb->has2 };
    rc_status s = cb_run(cb, constraint_protected, &c);
    if (s != RC_OK) return s;
    int m = cb->rows;
    if (g) memcpy(g, cb->buf, (size_t)m * sizeof(double));
    for (int i = 0; i < 3 * m; i++) {   /* no grad function: NAN, the kernel differentiates */
        if (Ga) Ga[i] = c.want_grad ? cb->buf[3 + i] : NAN;
        if (Gb) Gb[i] = c.want_grad ? cb->buf[12 + i] : NAN;
    }
    return RC_OK;
}

/* gap: gap(t, q) -> g, grad_n (nq numbers), grad_t (nq numbers, optional).
 * buf = { grad_n[nq], grad_t[nq], g } */
static int gap_protected(lua_State *L)
{
    struct cb_call *c = (struct cb_call *)lua_touserdata(L, 1);
    lrc_cb *cb = c->cb;
    int n = cb->nqb;
    int base = lua_gettop(L);
    c->what = "gap function";
    cb_push_fn(L, cb, 0);
    lua_pushnumber(L, c->t);
    push_q(L, c->qb, n);
    lua_call(L, 2, 3);
    cb->buf[2 * n] = cb_value(L, c, base + 1, 1);
    cb_vec(L, c, base + 2, "grad_n", cb->buf, n);
    if (lua_isnil(L, base + 3)) {
        for (int i = 0; i < n; i++) cb->buf[n + i] = 0.0;
    } else {
        cb_vec(L, c, base + 3, "grad_t", cb->buf + n, n);
    }
    lua_settop(L, base);
    return 0;
}

static rc_status gap_cb(void *user, double t, const double *q, double *g, double *grad_n, double *grad_t)
{
    lrc_cb *cb = (lrc_cb *)user;
    struct cb_call c = { .cb = cb, .what = "gap function", .t = t, .qb = q };
    rc_status s = cb_run(cb, gap_protected, &c);
    if (s != RC_OK) return s;
    int n = cb->nqb;
    if (g) *g = cb->buf[2 * n];
    if (grad_n) memcpy(grad_n, cb->buf, (size_t)n * sizeof(double));
    if (grad_t) memcpy(grad_t, cb->buf + n, (size_t)n * sizeof(double));
    return RC_OK;
}

static const char *const joint_types[] = { "revolute", "prismatic", "weld", "distance", "line",
                                           "prescribed", "custom", NULL };
static const rc_joint_type joint_codes[] = { RC_JOINT_REVOLUTE, RC_JOINT_PRISMATIC, RC_JOINT_WELD,
                                             RC_JOINT_DISTANCE, RC_JOINT_LINE, RC_JOINT_PRESCRIBED,
                                             RC_JOINT_CUSTOM };

static int field_body(lua_State *L, int t, const char *key, int dflt)
{
    lua_Integer id = field_int(L, t, key, dflt);
    if (id < -1 || id >= 0x7fffffff) luaL_error(L, "field '%s': body id out of range", key);
    return (int)id;
}

/* joint_create(world, { type, a = id | GROUND, b = id, point_a, point_b, axis, length, angle,
 *               coord (0 x, 1 y, 2 theta), f, df (prescribed), rows, g, grad (custom), name })
 * -> joint id | nil, msg, status. The Lua side (init.lua) has checked the values. */
static int l_joint_create(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_joint_def def = rc_default_joint_def();
    lua_getfield(L, 2, "type");
    def.type = joint_codes[luaL_checkoption(L, -1, NULL, joint_types)];
    lua_pop(L, 1);
    def.body_a = field_body(L, 2, "a", RC_GROUND);
    def.body_b = field_body(L, 2, "b", RC_GROUND);
    field_vec(L, 2, "point_a", def.point_a, 2);
    field_vec(L, 2, "point_b", def.point_b, 2);
    field_vec(L, 2, "axis", def.axis, 2);
    def.length = field_num(L, 2, "length", def.length);
    def.angle = field_num(L, 2, "angle", def.angle);
    lua_Integer coord = field_int(L, 2, "coord", def.coord);
    if (coord < 0 || coord > 2) luaL_error(L, "field 'coord' must be 0, 1 or 2");
    def.coord = (int)coord;
    def.name = field_str(L, 2, "name");
    lrc_cb *cb = NULL;
    if (def.type == RC_JOINT_PRESCRIBED) {
        lua_getfield(L, 2, "f");
        lua_getfield(L, 2, "df");
        if (!lua_isfunction(L, -2)) return luaL_error(L, "joint_create: a prescribed joint needs a function 'f'");
        if (!lua_isnil(L, -1) && !lua_isfunction(L, -1)) return luaL_error(L, "joint_create: 'df' must be a function or nil");
        cb = cb_new(L, lw, CB_MOTION, -2, -1, 2);
        lua_pop(L, 2);
        def.motion = motion_cb;
        def.motion_user = cb;
    } else if (def.type == RC_JOINT_CUSTOM) {
        lua_Integer rows = field_int(L, 2, "rows", 0);
        if (rows < 1 || rows > 3) return luaL_error(L, "joint_create: 'rows' must be 1, 2 or 3");
        def.rows = (int)rows;
        lua_getfield(L, 2, "g");
        lua_getfield(L, 2, "grad");
        if (!lua_isfunction(L, -2)) return luaL_error(L, "joint_create: a custom joint needs a function 'g'");
        if (!lua_isnil(L, -1) && !lua_isfunction(L, -1)) return luaL_error(L, "joint_create: 'grad' must be a function or nil");
        cb = cb_new(L, lw, CB_CONSTRAINT, -2, -1, 21);
        lua_pop(L, 2);
        cb->rows = def.rows;
        cb->nqa = def.body_a == RC_GROUND ? 0 : rc_body_nq(lw->w, def.body_a);
        cb->nqb = rc_body_nq(lw->w, def.body_b);
        def.constraint = constraint_cb;
        def.constraint_user = cb;
    }
    if (cb) {
        if (def.name) snprintf(cb->label, sizeof cb->label, "joint '%s'", def.name);
        else snprintf(cb->label, sizeof cb->label, "joint %d", rc_joint_count(lw->w));
    }
    int id = -1;
    lrc_saved sv = enter_kernel(lw, L);
    rc_status s = rc_joint_create(lw->w, &def, &id);
    leave_kernel(L, lw, sv);
    if (s != RC_OK) {
        if (cb) cb_drop(L, cb);
        return push_fail(L, s);
    }
    if (cb && !def.name) snprintf(cb->label, sizeof cb->label, "joint %d", id);
    lua_pushinteger(L, id);
    return 1;
}

static int l_joint_count(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    lua_pushinteger(L, rc_joint_count(lw->w));
    return 1;
}

/* joint_name(world, id) -> name | nil */
static int l_joint_name(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    const char *name = rc_joint_name(lw->w, (int)luaL_checkinteger(L, 2));
    if (name) lua_pushstring(L, name);
    else lua_pushnil(L);
    return 1;
}

/* joint_info(world, id) -> { rows, impulse, force, g, gdot, work } | nil, msg, status */
static int l_joint_info(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    lua_Integer id = luaL_checkinteger(L, 2);
    luaL_argcheck(L, id >= 0 && id < 0x7fffffff, 2, "joint id out of range");
    rc_joint_info in;
    memset(&in, 0, sizeof in);
    rc_status s = rc_joint_get(lw->w, (int)id, &in);
    if (s != RC_OK) return push_fail(L, s);
    int m = in.rows < 0 ? 0 : in.rows > 3 ? 3 : in.rows;
    lua_createtable(L, 0, 6);
    set_int(L, "rows", m);
    set_vec(L, "impulse", in.impulse, m);
    set_vec(L, "force", in.force, m);
    set_vec(L, "g", in.g, m);
    set_vec(L, "gdot", in.gdot, m);
    set_num(L, "work", in.work);
    return 1;
}

/* spring_create(world, { type = "linear" | "torsional", a, b, point_a, point_b, k, c,
 *                rest_length (nil: the initial length), rest_angle (nil: the initial angle), name })
 * -> spring id | nil, msg, status */
static int l_spring_create(lua_State *L)
{
    static const char *const types[] = { "linear", "torsional", NULL };
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_spring_def def = rc_default_spring_def();
    lua_getfield(L, 2, "type");
    def.type = luaL_checkoption(L, -1, NULL, types) == 0 ? RC_SPRING_LINEAR : RC_SPRING_TORSIONAL;
    lua_pop(L, 1);
    def.body_a = field_body(L, 2, "a", RC_GROUND);
    def.body_b = field_body(L, 2, "b", RC_GROUND);
    field_vec(L, 2, "point_a", def.point_a, 2);
    field_vec(L, 2, "point_b", def.point_b, 2);
    def.k = field_num(L, 2, "k", def.k);
    def.c = field_num(L, 2, "c", def.c);
    def.rest_length = field_num(L, 2, "rest_length", def.rest_length);
    def.rest_angle = field_num(L, 2, "rest_angle", def.rest_angle);
    def.name = field_str(L, 2, "name");
    int id = -1;
    lrc_saved sv = enter_kernel(lw, L);
    rc_status s = rc_spring_create(lw->w, &def, &id);
    leave_kernel(L, lw, sv);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

#define LRC_MAX_LINEAR_N 46340  /* n * n fits an int */

/* An optional n x n matrix t[key] (a table of n rows of n numbers) copied
 * into a buffer left on the stack (NULL if absent). */
static const double *field_matrix(lua_State *L, int t, const char *key, int n)
{
    if (lua_getfield(L, t, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    int m = lua_gettop(L);
    if (!lua_istable(L, m)) luaL_error(L, "field '%s' must be a table of %d rows", key, n);
    double *x = scratch(L, n * n);
    for (int i = 0; i < n; i++) {
        if (lua_rawgeti(L, m, i + 1) != LUA_TTABLE) luaL_error(L, "%s[%d] must be a table of %d numbers", key, i + 1, n);
        for (int j = 0; j < n; j++) {
            lua_rawgeti(L, -1, j + 1);
            if (!lua_isnumber(L, -1)) luaL_error(L, "%s[%d][%d] must be a number", key, i + 1, j + 1);
            x[(size_t)i * (size_t)n + (size_t)j] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_remove(L, m);
    return x;
}

/* An optional vector t[key] of n numbers copied into a buffer left on the stack. */
static const double *field_vec_opt(lua_State *L, int t, const char *key, int n)
{
    if (lua_getfield(L, t, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    int v = lua_gettop(L);
    double *x = scratch(L, n);
    read_vec(L, v, x, n, key);
    lua_remove(L, v);
    return x;
}

/* linear_create(world, { name, n, M = rows, K = rows | nil, C = rows | nil, q0, v0, f })
 * -> body id | nil, msg, status. The force function is set with body_set_force_fn. */
static int l_linear_create(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_linear_def def = rc_default_linear_def();
    lua_Integer n = field_int(L, 2, "n", 0);
    if (n < 1 || n > LRC_MAX_LINEAR_N) return luaL_error(L, "linear_create: 'n' must be in 1..%d", LRC_MAX_LINEAR_N);
    def.n = (int)n;
    def.name = field_str(L, 2, "name");
    def.M = field_matrix(L, 2, "M", def.n);
    def.K = field_matrix(L, 2, "K", def.n);
    def.C = field_matrix(L, 2, "C", def.n);
    def.q0 = field_vec_opt(L, 2, "q0", def.n);
    def.v0 = field_vec_opt(L, 2, "v0", def.n);
    def.f = field_vec_opt(L, 2, "f", def.n);
    int id = -1;
    lrc_saved sv = enter_kernel(lw, L);
    rc_status s = rc_linear_create(lw->w, &def, &id);
    leave_kernel(L, lw, sv);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

/* linear_energy(world, id) -> E_kin, E_elastic | nil, msg, status */
static int l_linear_energy(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    int id = check_body_id(L, 2);
    double ek = 0, ee = 0;
    rc_status s = rc_linear_energy(lw->w, id, &ek, &ee);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushnumber(L, ek);
    lua_pushnumber(L, ee);
    return 2;
}

/* gap_create(world, { body, index = {i, ..} (0-based), normal = {..}, tangent = {..} | nil, g0,
 *             gap = function | nil, law = id (default 0: the world's default law), name })
 * -> gap id | nil, msg, status */
static int l_gap_create(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_gap_def def = rc_default_gap_def();
    def.body = field_body(L, 2, "body", RC_GROUND);
    def.g0 = field_num(L, 2, "g0", def.g0);
    lua_Integer law = field_int(L, 2, "law", def.law);
    if (law < -1 || law > 0x7fffffff) return luaL_error(L, "gap_create: law id out of range");
    def.law = (int)law;
    def.name = field_str(L, 2, "name");
    lrc_cb *cb = NULL;
    if (lua_getfield(L, 2, "gap") != LUA_TNIL) {
        if (!lua_isfunction(L, -1)) return luaL_error(L, "gap_create: 'gap' must be a function");
        int nq = rc_body_nq(lw->w, def.body);
        if (nq < 0) nq = 0;
        lua_pushnil(L);
        cb = cb_new(L, lw, CB_GAP, -2, -1, 2 * nq + 1);
        lua_pop(L, 1);
        cb->nqb = nq;
        def.gap_fn = gap_cb;
        def.gap_user = cb;
        if (def.name) snprintf(cb->label, sizeof cb->label, "gap '%s'", def.name);
        else snprintf(cb->label, sizeof cb->label, "gap on body %d", def.body);
    }
    lua_pop(L, 1);
    if (!cb) {
        if (lua_getfield(L, 2, "index") != LUA_TTABLE) return luaL_error(L, "gap_create: 'index' must be a table");
        int it = lua_gettop(L);
        lua_Unsigned nnz = lua_rawlen(L, it);
        if (nnz < 1 || nnz > 0x7fffff) return luaL_error(L, "gap_create: 'index' must have 1 or more entries");
        def.nnz = (int)nnz;
        int *index = (int *)lua_newuserdatauv(L, (size_t)nnz * sizeof(int), 0);
        for (int i = 0; i < def.nnz; i++) {
            lua_rawgeti(L, it, i + 1);
            int ok = 0;
            lua_Integer k = lua_tointegerx(L, -1, &ok);
            if (!ok || k < 0 || k > 0x7fffffff) return luaL_error(L, "gap_create: index[%d] must be a 0-based integer", i + 1);
            index[i] = (int)k;
            lua_pop(L, 1);
        }
        def.index = index;
        def.normal = field_vec_opt(L, 2, "normal", def.nnz);
        if (!def.normal) return luaL_error(L, "gap_create: 'normal' is required");
        def.tangent = field_vec_opt(L, 2, "tangent", def.nnz);
    }
    int id = -1;
    lrc_saved sv = enter_kernel(lw, L);
    rc_status s = rc_gap_create(lw->w, &def, &id);
    leave_kernel(L, lw, sv);
    if (s != RC_OK) {
        if (cb) cb_drop(L, cb);
        return push_fail(L, s);
    }
    if (cb && !def.name) snprintf(cb->label, sizeof cb->label, "gap %d (body %d)", id, def.body);
    lua_pushinteger(L, id);
    return 1;
}

/* ---------------------------------------------------------------- simulation */

static const char *const schemes[] = { "moreau-jean", "moreau-jean-fremond", "maury", NULL };
static const rc_scheme scheme_codes[] = { RC_SCHEME_MOREAU_JEAN, RC_SCHEME_MOREAU_JEAN_FREMOND, RC_SCHEME_MAURY };
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
    def.scheme = scheme_codes[field_option(L, 2, "scheme", schemes, 0)];
    def.theta = field_num(L, 2, "theta", def.theta);
    def.h = field_num(L, 2, "h", def.h);
    def.activation = field_option(L, 2, "activation", activations, 1) == 0 ? RC_ACTIVATE_GAP
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
    static const char *const methods[] = { "nsgs", "uzawa", NULL };
    def.solver.method = field_option(L, 2, "solver", methods, 0) == 0 ? RC_SOLVER_NSGS : RC_SOLVER_UZAWA;
    def.solver.relax = field_num(L, 2, "relax", def.solver.relax);
    static const char *const orders[] = { "fixed", "random", "position", "colour", NULL };
    static const rc_order order_codes[] = { RC_ORDER_FIXED, RC_ORDER_RANDOM, RC_ORDER_POSITION, RC_ORDER_COLOUR };
    def.solver.order = order_codes[field_option(L, 2, "order", orders, 0)];
    lua_Integer nt = field_int(L, 2, "threads", 1);
    def.solver.threads = nt < 1 || nt > 0x7fffffff ? 0 : (int)nt;   /* 0: refused by the kernel */
    if (lua_getfield(L, 2, "adaptive_threads") != LUA_TNIL) def.solver.adaptive_threads = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, 2, "accelerate") != LUA_TNIL) def.solver.accelerate = lua_toboolean(L, -1);
    lua_pop(L, 1);
    static const char *const norms[] = { "l2", "max", NULL };
    def.solver.norm = field_option(L, 2, "norm", norms, 0) == 0 ? RC_NORM_L2 : RC_NORM_MAX;
    lua_Integer ce = field_int(L, 2, "check_every", 1);
    def.solver.check_every = ce < 1 || ce > 0x7fffffff ? 0 : (int)ce;   /* 0: refused by the kernel */
    lua_Integer seed = field_int(L, 2, "seed", 1);
    def.solver.seed = (uint64_t)seed;
    def.solver.local_tol = field_num(L, 2, "local_tol", def.solver.local_tol);
    lua_Integer lmi = field_int(L, 2, "local_max_iter", def.solver.local_max_iter);
    if (lmi < 1 || lmi > 0x7fffffff) lmi = 0; /* rejected by the kernel */
    def.solver.local_max_iter = (int)lmi;
    static const char *const work_checks[] = { "record", "warn", "error", NULL };
    static const rc_work_check work_codes[] = { RC_WORK_RECORD, RC_WORK_WARN, RC_WORK_ERROR };
    def.work_check = work_codes[field_option(L, 2, "work_check", work_checks, 0)];
    def.work_tol = field_num(L, 2, "work_tol", def.work_tol);
    static const char *const jacobians[] = { "auto", "start", "midpoint", "end", NULL };
    static const rc_joint_jacobian jacobian_codes[] = { RC_JOINT_JACOBIAN_AUTO, RC_JOINT_JACOBIAN_START,
                                                         RC_JOINT_JACOBIAN_MIDPOINT, RC_JOINT_JACOBIAN_END };
    def.joint_jacobian = jacobian_codes[field_option(L, 2, "joint_jacobian", jacobians, 0)];
    if (lua_getfield(L, 2, "project_joints") != LUA_TNIL) def.project_joints = lua_toboolean(L, -1);
    lua_pop(L, 1);
    def.project_tol = field_num(L, 2, "project_tol", def.project_tol);
    lua_Integer pmi = field_int(L, 2, "project_max_iter", def.project_max_iter);
    if (pmi < 1 || pmi > 0x7fffffff) pmi = 0; /* rejected by the kernel */
    def.project_max_iter = (int)pmi;
    lrc_saved sv = enter_kernel(lw, L);
    rc_status s = rc_world_configure(lw->w, &def);
    leave_kernel(L, lw, sv);
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
    lua_pushstring(L, rc_scheme_name(d.scheme));
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
    /* project_joints, project_tol, project_max_iter are not returned yet:
     * tests/spec/api_spec.lua pins the exact key set (the Lua sim object has them) */
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
    ctx_kill_all(L, lw);
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
    lua_createtable(L, 0, 36);
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
    set_num(L, "W_J", in.W_J);
    set_num(L, "W_damp", in.W_damp);
    set_num(L, "W_proj", in.W_proj);
    set_num(L, "W_J_total", in.W_J_total);
    set_num(L, "W_damp_total", in.W_damp_total);
    set_num(L, "W_proj_total", in.W_proj_total);
    set_num(L, "E_proj", in.E_proj);
    set_num(L, "E_proj_total", in.E_proj_total);
    set_num(L, "persist_band", in.persist_band);
    set_num(L, "E_spring", in.E_spring);
    set_num(L, "E_elastic", in.E_elastic);
    set_num(L, "joint_pos_violation", in.joint_pos_violation);
    set_num(L, "joint_vel_violation", in.joint_vel_violation);
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
    lua_createtable(L, 0, 16);
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
    set_int(L, "parallel_steps", st.parallel_steps);
    set_num(L, "solver_cpu_s", st.solver_cpu_s);
    set_int(L, "memory_bytes", (lua_Integer)st.memory_bytes);
    set_num(L, "max_joint_pos_violation", st.max_joint_pos_violation);
    set_num(L, "max_joint_vel_violation", st.max_joint_vel_violation);
    return 1;
}

/* ---------------------------------------------------------------- contacts */

static void push_contact(lua_State *L, const rc_contact_info *c)
{
    lua_createtable(L, 0, 19);
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
    set_int(L, "law", c->law);
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
    lrc_saved sv = enter_kernel(lw, L);
    rc_status s = rc_output_open(lw->w, &def);
    leave_kernel(L, lw, sv);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* checkpoint_save(world, path) / checkpoint_restore(world, path) -> true | nil, msg, status
 * (docs/checkpoint.md) */
static int l_checkpoint_save(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    rc_status s = rc_sim_save(lw->w, luaL_checkstring(L, 2));
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_checkpoint_restore(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    lrc_saved sv = enter_kernel(lw, L);   /* (a version warning reaches the warning function) */
    rc_status s = rc_sim_restore(lw->w, luaL_checkstring(L, 2));
    leave_kernel(L, lw, sv);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* output_close(world [, status [, message [, exit_code]]]): "exited" (the
 * program is exiting) is allowed inside a force function too. */
static int l_output_close(lua_State *L)
{
    const char *status = luaL_optstring(L, 2, "complete");
    int exiting = strcmp(status, "exited") == 0;
    lrc_world *lw = exiting ? check_open(L, 1) : check_idle(L, 1);
    const char *message = luaL_optstring(L, 3, NULL);
    lua_Integer c = lua_isinteger(L, 4) ? lua_tointeger(L, 4) : 0;
    int has_code = exiting && lua_isinteger(L, 4) && c >= INT_MIN && c <= INT_MAX;
    int code = has_code ? (int)c : 0;
    lrc_saved sv = enter_kernel(lw, L);
    rc_status s = has_code ? rc_output_close_exited(lw->w, code, message)
                           : rc_output_close(lw->w, status, message);
    leave_kernel(L, lw, sv);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* output_set_end_time(world, T) */
static int l_output_set_end_time(lua_State *L)
{
    lrc_world *lw = check_open(L, 1);
    rc_status s = rc_output_set_end_time(lw->w, luaL_checknumber(L, 2));
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

/* ---------------------------------------------------------------- VTK output */

#define LRC_VTK "ricochet.core.vtk"

typedef struct lrc_vtk {
    rc_vtk_writer *vw;      /* NULL once closed */
} lrc_vtk;

static lrc_vtk *check_vtk(lua_State *L, int idx)
{
    return (lrc_vtk *)luaL_checkudata(L, idx, LRC_VTK);
}

static int l_vtk_gc(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    if (v->vw) rc_vtk_close(v->vw);
    v->vw = NULL;
    return 0;
}

/* vtk_open(dir [, level [, disk_segments]]) -> writer | nil, msg, status */
static int l_vtk_open(lua_State *L)
{
    rc_vtk_def def = rc_default_vtk_def();
    def.dir = luaL_checkstring(L, 1);
    lua_Integer level = luaL_optinteger(L, 2, def.level);
    lua_Integer segs = luaL_optinteger(L, 3, def.disk_segments);
    def.level = (level < -1 || level > 99) ? -1 : (int)level;              /* rejected by the kernel */
    def.disk_segments = (segs < 0 || segs > 0x7fffffff) ? 0 : (int)segs;  /* idem */
    lrc_vtk *v = (lrc_vtk *)lua_newuserdatauv(L, sizeof *v, 0);
    v->vw = NULL;
    if (luaL_newmetatable(L, LRC_VTK)) {
        lua_pushcfunction(L, l_vtk_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, l_vtk_gc);
        lua_setfield(L, -2, "__close");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    rc_status s = rc_vtk_open(&def, &v->vw);
    if (s != RC_OK) return push_fail(L, s);
    return 1;
}

/* vtk_frame(writer, world) -> true | nil, msg, status */
static int l_vtk_frame(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    lrc_world *lw = check_idle(L, 2);
    if (!v->vw) return luaL_error(L, "the VTK writer has been closed");
    rc_status s = rc_vtk_frame(v->vw, lw->w);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* vtk_mark(writer, status [, message]) -> true | nil, msg, status */
static int l_vtk_mark(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    const char *status = luaL_checkstring(L, 2);
    const char *message = luaL_optstring(L, 3, NULL);
    if (!v->vw) return luaL_error(L, "the VTK writer has been closed");
    rc_status s = rc_vtk_mark(v->vw, status, message);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* vtk_frames(writer) -> number of frames written */
static int l_vtk_frames(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    lua_pushinteger(L, (lua_Integer)rc_vtk_frame_count(v->vw));
    return 1;
}

/* vtk_close(writer) -> true | nil, msg, status (idempotent) */
static int l_vtk_close(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    rc_vtk_writer *vw = v->vw;
    v->vw = NULL;
    rc_status s = rc_vtk_close(vw);
    if (s != RC_OK) return push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* for lua_frames.c */
rc_world *rc__lua_idle_world(lua_State *L, int idx)
{
    return check_idle(L, idx)->w;
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

/* explore(world, { random_guess, guess_scale, zero_guess, random_order, seed })
 * -> list of { pN, pT, uN, uT, point = {x, y}, normal, tangent, body_a, body_b, id },
 *    { iterations, residual, converged } | nil, msg, status */
static int l_explore(lua_State *L)
{
    lrc_world *lw = check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_explore_def d = rc_default_explore_def();
    lua_getfield(L, 2, "random_guess"); d.random_guess = lua_toboolean(L, -1); lua_pop(L, 1);
    lua_getfield(L, 2, "zero_guess"); d.zero_guess = lua_toboolean(L, -1); lua_pop(L, 1);
    lua_getfield(L, 2, "random_order"); d.random_order = lua_toboolean(L, -1); lua_pop(L, 1);
    lua_getfield(L, 2, "cyclic_order"); d.cyclic_order = lua_toboolean(L, -1); lua_pop(L, 1);
    d.guess_scale = field_num(L, 2, "guess_scale", 0.0);
    d.seed = (uint64_t)field_int(L, 2, "seed", 1);
    lua_getfield(L, 2, "guess_scales");   /* optional list: p_N in [0, s_i] for contact i */
    if (lua_istable(L, -1)) {
        int ns = (int)luaL_len(L, -1);
        double *gs = (double *)lua_newuserdatauv(L, (size_t)(ns > 0 ? ns : 1) * sizeof(double), 0);
        for (int i = 0; i < ns; i++) {
            lua_rawgeti(L, -2, i + 1);
            gs[i] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        d.guess_scales = gs;
        d.nguess_scales = ns;
    }   /* the list and its copy stay on the stack during the call */
    int cap = rc_contact_count(lw->w) + 64;
    for (;;) {
        double *p = (double *)lua_newuserdatauv(L, (size_t)2 * (size_t)cap * sizeof(double), 0);
        int n = 0;
        lw->L = L;
        lw->stepping = 1;
        rc_status s = rc_world_explore(lw->w, &d, p, cap, &n);
        lw->stepping = 0;
        lw->L = NULL;
        ctx_kill_all(L, lw);
        if (s != RC_OK) return push_fail(L, s);
        if (n > cap) { lua_pop(L, 1); cap = n; continue; }
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            rc_contact_info ci;
            rc_explore_contact(lw->w, i, &ci);
            lua_createtable(L, 0, 10);
            set_num(L, "pN", p[2 * i]);
            set_num(L, "pT", p[2 * i + 1]);
            set_num(L, "uN", ci.uN);
            set_num(L, "uT", ci.uT);
            set_vec(L, "point", ci.point, 2);
            set_vec(L, "normal", ci.normal, 2);
            set_vec(L, "tangent", ci.tangent, 2);
            set_int(L, "body_a", ci.body_a);
            set_int(L, "body_b", ci.body_b);
            set_int(L, "id", ci.id);
            set_bool(L, "active", ci.active);
            set_int(L, "law", ci.law);
            lua_rawseti(L, -2, i + 1);
        }
        int iters = 0, conv = 0;
        double res = 0.0;
        rc_explore_result(lw->w, &iters, &res, &conv);
        lua_createtable(L, 0, 3);
        set_int(L, "iterations", iters);
        set_num(L, "residual", res);
        set_bool(L, "converged", conv);
        return 2;
    }
}

static int l_alloc_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rc_alloc_count());
    return 1;
}

static int l_openmp(lua_State *L)
{
    lua_pushboolean(L, rc_openmp());
    return 1;
}

/* whether this state is a sandbox (rc_lua_open_sandboxed) */
static int l_sandboxed(lua_State *L)
{
    lua_pushboolean(L, rc_lua_is_sandboxed(L));
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
    { "body_nq", l_body_nq },
    { "joint_create", l_joint_create },
    { "joint_count", l_joint_count },
    { "joint_name", l_joint_name },
    { "joint_info", l_joint_info },
    { "spring_create", l_spring_create },
    { "linear_create", l_linear_create },
    { "linear_energy", l_linear_energy },
    { "gap_create", l_gap_create },
    { "shape_create", l_shape_create },
    { "shape_count", l_shape_count },
    { "shape_def", l_shape_def },
    { "law_create", l_law_create },
    { "law_create_custom", l_law_create_custom },
    { "set_default_law", l_set_default_law },
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
    { "checkpoint_save", l_checkpoint_save },
    { "checkpoint_restore", l_checkpoint_restore },
    { "output_close", l_output_close },
    { "output_is_open", l_output_is_open },
    { "output_set_end_time", l_output_set_end_time },
    { "vtk_mark", l_vtk_mark },
    { "vtk_open", l_vtk_open },
    { "vtk_frame", l_vtk_frame },
    { "vtk_frames", l_vtk_frames },
    { "vtk_close", l_vtk_close },
    { "request_interrupt", l_request_interrupt },
    { "clear_interrupt", l_clear_interrupt },
    { "interrupt_requested", l_interrupt_requested },
    { "explore", l_explore },
    { "alloc_count", l_alloc_count },
    { "openmp", l_openmp },
    { "sandboxed", l_sandboxed },
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
    if (luaL_newmetatable(L, LRC_LAW_GUARD)) {
        lua_pushcfunction(L, law_guard_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    luaL_newlib(L, core_funcs);
    rc__lua_frames_register(L);
    lua_pushliteral(L, RC_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, RC_GROUND);
    lua_setfield(L, -2, "GROUND");
    lua_pushinteger(L, RC_MAX_POLYGON_VERTICES);
    lua_setfield(L, -2, "MAX_POLYGON_VERTICES");
    lua_pushnumber(L, RC_MAX_GRAVITY);
    lua_setfield(L, -2, "MAX_GRAVITY");
    lua_pushnumber(L, RC_MIN_H);
    lua_setfield(L, -2, "MIN_H");
    lua_pushnumber(L, RC_MAX_H);
    lua_setfield(L, -2, "MAX_H");
    return 1;
}
