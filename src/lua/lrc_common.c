/* lrc_common.c -- ricochet.core: argument and field helpers, kernel calls (enter/leave), warnings and force callbacks
 * (lua_ricochet.c has the overview). */
#include "lrc.h"

/* ---------------------------------------------------------------- helpers */

lrc_world *lrc_check_lw(lua_State *L, int idx)
{
    return (lrc_world *)luaL_checkudata(L, idx, LRC_WORLD);
}

/* An open world (raises if closed). */
lrc_world *lrc_check_open(lua_State *L, int idx)
{
    lrc_world *lw = lrc_check_lw(L, idx);
    if (!lw->w) luaL_error(L, "the world has been closed");
    return lw;
}

/* Worlds must not be changed from inside a step (a force function). */
lrc_world *lrc_check_idle(lua_State *L, int idx)
{
    lrc_world *lw = lrc_check_open(L, idx);
    if (lw->stepping)
        luaL_error(L, "not allowed while the world is stepping (inside a force function)");
    return lw;
}

lrc_saved lrc_enter_kernel(lrc_world *lw, lua_State *L)
{
    lrc_saved sv = { lw->L, lw->stepping };
    if (!lw->L) lw->L = L;
    lw->stepping = 1;
    return sv;
}

void lrc_leave_kernel(lua_State *L, lrc_world *lw, lrc_saved sv)
{
    lw->L = sv.L;
    lw->stepping = sv.stepping;
    if (!sv.stepping) lrc_ctx_kill_all(L, lw);
}

int lrc_check_body_id(lua_State *L, int idx)
{
    lua_Integer id = luaL_checkinteger(L, idx);
    luaL_argcheck(L, id >= -1 && id < 0x7fffffff, idx, "body id out of range");
    return (int)id;
}

int lrc_push_fail(lua_State *L, rc_status s)
{
    luaL_pushfail(L);
    lua_pushstring(L, rc_last_error());
    lua_pushstring(L, rc_status_name(s));
    return 3;
}

/* true, or fail as lrc_push_fail: what a binding without a result returns */
int lrc_push_done(lua_State *L, rc_status s)
{
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

/* A GC-managed buffer of n doubles (n >= 0), pushed on the stack: no leak
 * when a later check raises. */
double *lrc_scratch(lua_State *L, int n)
{
    return (double *)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof(double), 0);
}

/* Read n numbers from the table at idx into x (missing entries: error). */
void lrc_read_vec(lua_State *L, int idx, double *x, int n, const char *what)
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
void lrc_field_vec(lua_State *L, int t, const char *key, double *x, int n)
{
    if (lua_getfield(L, t, key) != LUA_TNIL) lrc_read_vec(L, lua_gettop(L), x, n, key);
    lua_pop(L, 1);
}

double lrc_field_num(lua_State *L, int t, const char *key, double dflt)
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

lua_Integer lrc_field_int(lua_State *L, int t, const char *key, lua_Integer dflt)
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
const char *lrc_field_str(lua_State *L, int t, const char *key)
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

void lrc_set_num(lua_State *L, const char *key, double x)
{
    lua_pushnumber(L, x);
    lua_setfield(L, -2, key);
}

void lrc_set_int(lua_State *L, const char *key, lua_Integer x)
{
    lua_pushinteger(L, x);
    lua_setfield(L, -2, key);
}

void lrc_set_bool(lua_State *L, const char *key, int x)
{
    lua_pushboolean(L, x);
    lua_setfield(L, -2, key);
}

void lrc_push_vec(lua_State *L, const double *x, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

void lrc_set_vec(lua_State *L, const char *key, const double *x, int n)
{
    lrc_push_vec(L, x, n);
    lua_setfield(L, -2, key);
}

/* ---------------------------------------------------------------- callbacks */

void lrc_warning_cb(void *user, const char *message)
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

/* Runs under lua_pcall: any error here is caught by lrc_force_cb. */
static int force_call_protected(lua_State *L)
{
    struct force_call *fc = (struct force_call *)lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, fc->lw->fn_ref);
    if (lua_rawgeti(L, -1, fc->body) != LUA_TFUNCTION) {
        lua_pushstring(L, "force function missing");
        return lua_error(L);
    }
    lua_pushnumber(L, fc->t);
    lrc_push_vec(L, fc->q, fc->nq);
    lrc_push_vec(L, fc->v, fc->nv);
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

rc_status lrc_force_cb(void *user, int body, double t, const double *q, const double *v, double *f)
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
