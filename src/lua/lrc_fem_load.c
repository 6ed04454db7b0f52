/* lrc_fem_load.c -- the nodal loads of finite-element bodies (body:traction,
 * lua/ricochet/fem.lua): consistent nodal forces w_a (tx, ty) on the nodes of
 * an edge set, with (tx, ty) constant or a Lua function of t, evaluated once
 * per step at t_{k+theta} (the time of every force function: F_{k+theta} of
 * eq. 66, src/integrate/forces.c). They are the body's force function (C),
 * which first calls the body's Lua force function when it has one
 * (body:set_force_fn), so both add to the constant force (gravity).
 *
 * The holder (a full userdata) lives in the world's callback table T
 * (lw->cb_ref, as the joints' and gaps' holders: freed with T, after the
 * kernel world) at T[key + 1], the list of time functions at T[key]. A step
 * allocates nothing: the function values go straight into f. */
#include "lrc.h"

#include <string.h>

typedef struct fem_load {
    int fn;                 /* T[key][index] is a function of t              */
    int first, n;           /* entries of the load                          */
    double tx, ty;          /* constant traction                            */
} fem_load;

typedef struct fem_entry {
    int dof;                /* u_x of the node (body-local, 0-based); u_y is dof + 1 */
    double w;               /* sum over the node's edges of L thickness / 2  */
} fem_entry;

typedef struct lrc_loads {
    lrc_world *lw;
    int key, has_user, nloads;
    fem_load *loads;
    fem_entry *entries;
    char names[];           /* the loads' set names, 64 bytes each           */
} lrc_loads;

struct load_call {
    lrc_loads *ld;
    int i;                  /* the load                                      */
    double t, tx, ty;
};

/* Runs under lua_pcall: T[key][i](t) -> tx, ty (finite numbers). */
static int load_call_protected(lua_State *L)
{
    struct load_call *c = (struct load_call *)lua_touserdata(L, 1);
    const char *set = c->ld->names + 64 * c->i;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->ld->lw->cb_ref);
    lua_rawgeti(L, -1, c->ld->key);
    lua_rawgeti(L, -1, c->i + 1);
    lua_pushnumber(L, c->t);
    lua_call(L, 1, 2);
    double x[2];
    for (int k = 0; k < 2; k++) {
        int idx = lua_gettop(L) - 1 + k;
        if (lua_type(L, idx) != LUA_TNUMBER || !isfinite(lua_tonumber(L, idx)))
            return luaL_error(L, "traction on '%s': the function of t returned %s as %s (a finite number is required)",
                              set, lua_type(L, idx) == LUA_TNUMBER ? "a non-finite number" : luaL_typename(L, idx),
                              k ? "ty" : "tx");
        x[k] = lua_tonumber(L, idx);
    }
    c->tx = x[0];
    c->ty = x[1];
    return 0;
}

static rc_status load_value(lrc_loads *ld, int i, double t, double *tx, double *ty)
{
    const fem_load *l = &ld->loads[i];
    if (!l->fn) { *tx = l->tx; *ty = l->ty; return RC_OK; }
    lua_State *L = ld->lw->L;
    if (!L) return rc_set_error(RC_ERR_CALLBACK, "traction called outside a step of the Lua binding");
    if (!lua_checkstack(L, 16)) return rc_set_error(RC_ERR_CALLBACK, "Lua stack overflow");
    struct load_call c = { ld, i, t, 0.0, 0.0 };
    int top = lua_gettop(L);
    lua_pushcfunction(L, load_call_protected);
    lua_pushlightuserdata(L, &c);
    rc_lua_callback_enter(L);
    int r = lua_pcall(L, 1, 0, 0);
    rc_lua_callback_leave(L);
    rc_status s = RC_OK;
    if (r != LUA_OK)
        s = lua_type(L, -1) == LUA_TSTRING ? rc_set_error(RC_ERR_CALLBACK, "%s", lua_tostring(L, -1))
                                           : rc_set_error(RC_ERR_CALLBACK, "traction on '%s': the function raised an error object of type %s",
                                                          ld->names + 64 * i, luaL_typename(L, -1));
    lua_settop(L, top);
    *tx = c.tx;
    *ty = c.ty;
    return s;
}

/* The body's force function: the Lua one (if any), then the loads. */
static rc_status loads_cb(void *user, int body, double t, const double *q, const double *v, double *f)
{
    lrc_loads *ld = (lrc_loads *)user;
    if (ld->has_user) {
        rc_status s = lrc_force_cb(ld->lw, body, t, q, v, f);
        if (s != RC_OK) return s;
    }
    for (int i = 0; i < ld->nloads; i++) {
        double tx = 0.0, ty = 0.0;
        rc_status s = load_value(ld, i, t, &tx, &ty);
        if (s != RC_OK) return s;
        const fem_load *l = &ld->loads[i];
        for (int e = l->first; e < l->first + l->n; e++) {
            const fem_entry *en = &ld->entries[e];
            f[en->dof] += en->w * tx;
            f[en->dof + 1] += en->w * ty;
        }
    }
    return RC_OK;
}

static int int_field(lua_State *L, int t, int k)
{
    lua_rawgeti(L, t, k);
    int ok = 0;
    lua_Integer x = lua_tointegerx(L, -1, &ok);
    lua_pop(L, 1);
    return ok && x >= 0 && x < 0x7fffffff ? (int)x : -1;
}

/* Count the entries of the loads list at index t (checked by fem.lua). */
static int count_entries(lua_State *L, int t, int nloads)
{
    int total = 0;
    for (int i = 1; i <= nloads; i++) {
        lua_rawgeti(L, t, i);
        lua_getfield(L, -1, "dofs");
        total += (int)lua_rawlen(L, -1);
        lua_pop(L, 2);
    }
    return total;
}

/* Read load i (1-based, the table on top of the stack) into ld. */
static void read_load(lua_State *L, lrc_loads *ld, int i, int *next, int nv, int fns)
{
    int lt = lua_gettop(L);
    fem_load *l = &ld->loads[i - 1];
    l->first = *next;
    lua_getfield(L, lt, "set");
    snprintf(ld->names + 64 * (i - 1), 64, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "?");
    lua_pop(L, 1);
    if (lua_getfield(L, lt, "fn") == LUA_TFUNCTION) {
        l->fn = 1;
        lua_rawseti(L, fns, i);
    } else {
        lua_pop(L, 1);
        l->tx = lrc_field_num(L, lt, "tx", 0.0);
        l->ty = lrc_field_num(L, lt, "ty", 0.0);
    }
    lua_getfield(L, lt, "dofs");
    lua_getfield(L, lt, "w");
    int n = (int)lua_rawlen(L, -2);
    if ((int)lua_rawlen(L, -1) != n) luaL_error(L, "fem_set_loads: load %d: 'dofs' and 'w' differ in length", i);
    for (int k = 1; k <= n; k++) {
        fem_entry *en = &ld->entries[(*next)++];
        en->dof = int_field(L, lt + 1, k);
        if (en->dof < 0 || en->dof + 1 >= nv) luaL_error(L, "fem_set_loads: load %d: dof %d out of range", i, k);
        lua_rawgeti(L, lt + 2, k);
        en->w = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    l->n = n;
    lua_pop(L, 2);
}

/* fem_set_loads(world, id, loads, has_user) -> true | nil, msg, status.
 * loads = { { set = name, dofs = {0-based u_x dofs}, w = {weights},
 * fn = function(t) -> tx, ty | tx =, ty = }, ... }; has_user: the body's Lua
 * force function (body:set_force_fn) is called first. An empty list leaves
 * the Lua function alone (or none). */
int lrc_fem_set_loads(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    int id = lrc_check_body_id(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    int has_user = lua_toboolean(L, 4);
    int nloads = (int)lua_rawlen(L, 3), nv = rc_body_nv(lw->w, id);
    rc_status s;
    if (nloads == 0) {
        s = rc_body_set_force_fn(lw->w, id, has_user ? lrc_force_cb : NULL, has_user ? lw : NULL);
        if (s != RC_OK) return lrc_push_fail(L, s);
        lua_pushboolean(L, 1);
        return 1;
    }
    int nent = count_entries(L, 3, nloads);
    size_t names = (size_t)nloads * 64;
    size_t off_loads = (sizeof(lrc_loads) + names + 15) / 16 * 16;
    size_t off_ent = off_loads + ((size_t)nloads * sizeof(fem_load) + 15) / 16 * 16;
    size_t size = off_ent + (size_t)(nent ? nent : 1) * sizeof(fem_entry);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lw->cb_ref);
    int T = lua_gettop(L);
    lrc_loads *ld = (lrc_loads *)lua_newuserdatauv(L, size, 0);
    memset(ld, 0, size);
    ld->lw = lw;
    ld->key = lw->ncb + 1;
    ld->has_user = has_user;
    ld->nloads = nloads;
    ld->loads = (fem_load *)(void *)((char *)ld + off_loads);
    ld->entries = (fem_entry *)(void *)((char *)ld + off_ent);
    lua_rawseti(L, T, ld->key + 1);
    lua_createtable(L, nloads, 0);
    int fns = lua_gettop(L);
    int next = 0;
    for (int i = 1; i <= nloads; i++) {
        lua_rawgeti(L, 3, i);
        read_load(L, ld, i, &next, nv, fns);
        lua_pop(L, 1);
    }
    lua_rawseti(L, T, ld->key);
    lw->ncb += 2;
    lua_pop(L, 1);
    s = rc_body_set_force_fn(lw->w, id, loads_cb, ld);
    return lrc_push_done(L, s);
}
