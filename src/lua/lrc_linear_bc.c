/* lrc_linear_bc.c -- the binding of prescribed coordinates, reactions and
 * the static solve of linear bodies (src/model/linear_bc.c). The Lua front
 * end (lua/ricochet/fem.lua: body:prescribe, body:reactions,
 * body:solve_static) checks keys, types and ranges first. */
#include "lrc.h"

#include <math.h>
#include <string.h>

/* A list of 0-based coordinates at idx (checked by the front end). */
static int *read_coords(lua_State *L, int idx, int *n)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    const lua_Unsigned m = lua_rawlen(L, idx);
    if (m > 0x3fffffff) luaL_error(L, "too many coordinates");
    int *c = lua_newuserdatauv(L, (size_t)(m ? m : 1) * sizeof(int), 0);
    for (lua_Unsigned i = 0; i < m; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        int ok = 0;
        const lua_Integer k = lua_tointegerx(L, -1, &ok);
        if (!ok || k < 0 || k > 0x7fffffff) luaL_error(L, "coordinate %d is not a 0-based index", (int)i + 1);
        c[i] = (int)k;
        lua_pop(L, 1);
    }
    *n = (int)m;
    return c;
}

/* linear_prescribe(world, id, coords (0-based), values) -> true | nil, msg, status */
int lrc_linear_prescribe(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    const int id = lrc_check_body_id(L, 2);
    int n;
    const int *c = read_coords(L, 3, &n);
    double *v = lrc_scratch(L, n ? n : 1);
    lrc_read_vec(L, 4, v, n, "values");
    rc_status s = rc_linear_prescribe(lw->w, id, n, c, v);
    return lrc_push_done(L, s);
}

/* A Lua function of t held in T = registry[lw->cb_ref] at key (the holder at key + 1). */
typedef struct presc_cb {
    lrc_world *lw;
    int key;
} presc_cb;

struct presc_call {
    presc_cb *cb;
    double t;
    int n;
    double *values;
};

static int presc_protected(lua_State *L)
{
    struct presc_call *c = (struct presc_call *)lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->cb->lw->cb_ref);
    lua_rawgeti(L, -1, c->cb->key);
    lua_pushnumber(L, c->t);
    lua_call(L, 1, 1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1)))
        return luaL_error(L, "the prescribed value function returned %s at t = %f (a finite number is required)",
                          lua_type(L, -1) == LUA_TNUMBER ? "a non-finite number" : luaL_typename(L, -1), c->t);
    const double x = lua_tonumber(L, -1);
    for (int i = 0; i < c->n; i++) c->values[i] = x;
    return 0;
}

static rc_status presc_call(void *user, int body, double t, int n, const int *coords, double *values)
{
    (void)body; (void)coords;
    presc_cb *cb = (presc_cb *)user;
    lua_State *L = cb->lw->L;
    if (!L) return rc_set_error(RC_ERR_CALLBACK, "prescribed value function called outside a kernel call of the Lua binding");
    if (!lua_checkstack(L, 16)) return rc_set_error(RC_ERR_CALLBACK, "Lua stack overflow");
    struct presc_call c = { cb, t, n, values };
    const int top = lua_gettop(L);
    lua_pushcfunction(L, presc_protected);
    lua_pushlightuserdata(L, &c);
    rc_lua_callback_enter(L);
    const int r = lua_pcall(L, 1, 0, 0);
    rc_lua_callback_leave(L);
    rc_status s = RC_OK;
    if (r != LUA_OK)
        s = rc_set_error(RC_ERR_CALLBACK, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "the prescribed value function failed");
    lua_settop(L, top);
    return s;
}

/* linear_prescribe_fn(world, id, coords (0-based), fn) -> true | nil, msg, status */
int lrc_linear_prescribe_fn(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    const int id = lrc_check_body_id(L, 2);
    luaL_checktype(L, 4, LUA_TFUNCTION);
    int n;
    const int *c = read_coords(L, 3, &n);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->cb_ref);
    const int T = lua_gettop(L);
    presc_cb *cb = (presc_cb *)lua_newuserdatauv(L, sizeof(presc_cb), 0);   /* freed with T, after the world */
    cb->lw = lw;
    cb->key = lw->ncb + 1;
    lua_rawseti(L, T, cb->key + 1);
    lua_pushvalue(L, 4);
    lua_rawseti(L, T, cb->key);
    lw->ncb += 3;
    rc_status s = rc_linear_prescribe_fn(lw->w, id, n, c, presc_call, cb);
    return lrc_push_done(L, s);
}

/* linear_release(world, id) -> true | nil, msg, status */
int lrc_linear_release(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    rc_status s = rc_linear_release(lw->w, lrc_check_body_id(L, 2));
    return lrc_push_done(L, s);
}

/* linear_reactions(world, id) -> {r_1..r_n} | nil, msg, status */
int lrc_linear_reactions(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    const int id = lrc_check_body_id(L, 2);
    const int n = rc_body_nv(lw->w, id);
    double *r = lrc_scratch(L, n > 0 ? n : 1);
    rc_status s = rc_linear_reactions(lw->w, id, r);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lrc_push_vec(L, r, n);
    return 1;
}

/* linear_solve_static(world, id, t, fix (0-based)) -> residual, reactions {n} | nil, msg, status */
int lrc_linear_solve_static(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    const int id = lrc_check_body_id(L, 2);
    const double t = luaL_checknumber(L, 3);
    int nfix;
    const int *fix = read_coords(L, 4, &nfix);
    const int n = rc_body_nv(lw->w, id);
    double *r = lrc_scratch(L, n > 0 ? n : 1);
    double res = 0.0;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_linear_solve_static(lw->w, id, t, nfix, fix, &res, r);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, res);
    lrc_push_vec(L, r, n);
    return 2;
}
