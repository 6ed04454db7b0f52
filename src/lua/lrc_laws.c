/* lrc_laws.c -- ricochet.core: laws written in Lua (their calls, context and state), custom laws, rules
 * (lua_ricochet.c has the overview). */
#include "lrc.h"
#include "lua_host.h"   /* rc__lua_cb_enter/leave */

/* ---------------------------------------------------------------- laws written in Lua
 *
 * A Lua law is a table of functions called from inside the solver through
 * the rc_law_ops interface (ricochet.h). Numbers travel as arguments and
 * results, never in fresh tables: per call the kernel only refreshes a
 * reused ctx table (and its ctx.state with the contact's state):
 *   xi(law, uN, uT, uoN, uoT, ctx)            -> xiN, xiT
 *   project(law, xN, xT, ctx)                 -> pN, pT
 *   update(law, ctx, uN, uT, uoN, uoT, pN, pT)   (may change ctx.state)
 * law is the descriptor's params table. Every call is protected: the calls
 * of one local solve (residual, prox step) run inside one lua_pcall (see
 * "one local solve's calls" below), any other call under its own.
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

/* The main thread of L's state: it lives as long as the state. */
static lua_State *main_thread(lua_State *L)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    lua_State *M = lua_tothread(L, -1);
    lua_pop(L, 1);
    return M;
}

/* keys[] of the ctx table, in the order of LAW_KEYS; then the two values of
 * ctx.unknown; then the state names. Kept as Lua strings in a registry
 * table so that a refresh never converts a C string (luaS_new + strcmp). */
static const char *const LAW_KEYS[] = { "t", "h", "theta", "contact", "gN", "nx", "ny", "tx", "ty", "unknown" };

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
    else if (strcmp(k, "dim") == 0) lua_pushinteger(L, c->dim);   /* the frame as 3-vectors (d = 3) */
    else if (strcmp(k, "nz") == 0) lua_pushnumber(L, c->normal[2]);
    else if (strcmp(k, "tz") == 0) lua_pushnumber(L, c->tangent[2]);
    else if (strcmp(k, "sx") == 0) lua_pushnumber(L, c->tangent2[0]);
    else if (strcmp(k, "sy") == 0) lua_pushnumber(L, c->tangent2[1]);
    else if (strcmp(k, "sz") == 0) lua_pushnumber(L, c->tangent2[2]);
    else return 0;
    return 1;
}

/* The step's fields of ctx (see above): ctx.state now, t, h, theta and
 * unknown by the refresh that follows (forced). Runs under lua_pcall: the
 * keys may have to be inserted again (allocation). */
static void revive(lua_State *L, lrc_law *law)
{
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
    lua_pop(L, 2);
}

static int ctx_revive(lua_State *L)
{
    revive(L, (lrc_law *)lua_touserdata(L, 1));
    return 0;
}

/* the law's ctx holds the step's fields until the kernel call is over */
static void make_live(lrc_law *law)
{
    law->live = 1;
    law->next_live = law->lw->live_laws;
    law->lw->live_laws = law;
}

/* ctx's step keys t, h, theta, unknown (keys: the key strings, t: ctx, both
 * stack indices), remembered in lw */
static void set_step_keys(lua_State *L, lrc_law *lw, int keys, int t, const rc_law_ctx *ctx)
{
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

/* The kernel call is over: the ctx of every law it called loses its step's
 * fields (setting fields to nil never allocates, never raises). */
void lrc_ctx_kill_all(lua_State *L, lrc_world *lw)
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
            set_step_keys(L, lw, keys, t, ctx);
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

/* The nres results of a law's call, from stack index base on (negative:
 * relative to the top), into lc->res: numbers, finite. */
static rc_status read_results(lua_State *L, struct law_call *lc, int base)
{
    const lrc_law *law = lc->law;
    for (int i = 0; i < lc->nres; i++) {
        int idx = base + i;
        int isnum = 0;
        lc->res[i] = lua_tonumberx(L, idx, &isnum);
        if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
            return rc_set_error(RC_ERR_CALLBACK, "law '%s': '%s' must return %d numbers, got %s as value %d (contact %d, t = %.17g)",
                                law->name, lc->what, lc->nres, luaL_typename(L, idx), i + 1, lc->ctx->contact, lc->ctx->t);
        if (!isfinite(lc->res[i]))
            return rc_set_error(RC_ERR_CALLBACK, "law '%s': '%s' returned a non-finite value %g as value %d (contact %d, t = %.17g)",
                                law->name, lc->what, lc->res[i], i + 1, lc->ctx->contact, lc->ctx->t);
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- one local solve's calls
 *
 * The generic local solver makes the xi/project calls of one local solve
 * (one residual, one prox step) through ops.run (ricochet.h): run calls a
 * C closure of the law under one lua_pcall, whose upvalues hold what every
 * call pushes (LAW_UV_*), and the calls made inside it (law_call_in_run)
 * are plain lua_calls: no registry lookups, no stack check and no setjmp
 * per call. A Lua error in a call unwinds to that pcall, which reports it
 * as law_call does, from the call's what, contact and time kept in the
 * law; the per-callback instruction budget still counts each call
 * (rc__lua_cb_enter/leave around it), and ctx's contact fields are valid
 * during each call only, as outside run. */
enum { LAW_UV_PARAMS = 1, LAW_UV_CTX, LAW_UV_XI, LAW_UV_PROJECT, LAW_UV_KEYS, LAW_UV_STATE, LAW_NUV = LAW_UV_STATE };

struct law_run {
    lrc_law *law;
    rc_status (*fn)(void *arg);
    void *arg;
    rc_status status;
};

/* refresh_ctx inside run: the tables are upvalues */
static void refresh_ctx_in_run(lua_State *L, lrc_law *lw, const rc_law_ctx *ctx, const double *state)
{
    const int t = lua_upvalueindex(LAW_UV_CTX), keys = lua_upvalueindex(LAW_UV_KEYS);
    if (ctx->t != lw->ctx_t || ctx->h != lw->ctx_h || ctx->theta != lw->ctx_theta || (int)ctx->unknown != lw->ctx_unknown) {
        set_step_keys(L, lw, keys, t, ctx);
    }
    for (int i = 0; i < lw->nstate; i++) set_key(L, keys, lua_upvalueindex(LAW_UV_STATE), KEY_STATE0 + i, state[i]);
}

/* law_call for xi and project inside run (the running C function is the
 * law's closure); errors of the call raise (caught by run's pcall) */
static rc_status law_call_in_run(lua_State *L, struct law_call *lc)
{
    lrc_law *law = lc->law;
    refresh_ctx_in_run(L, law, lc->ctx, lc->state);
    lua_pushvalue(L, lua_upvalueindex(lc->fn_ref == law->xi_ref ? LAW_UV_XI : LAW_UV_PROJECT));
    lua_pushvalue(L, lua_upvalueindex(LAW_UV_PARAMS));
    for (int i = 0; i < lc->nargs; i++) lua_pushnumber(L, lc->args[i]);
    lua_pushvalue(L, lua_upvalueindex(LAW_UV_CTX));
    law->cur_what = lc->what;
    law->cur_contact = lc->ctx->contact;
    law->cur_t = lc->ctx->t;
    law->cell->cur = lc->ctx;
    law->in_call = 1;
    rc__lua_cb_enter((rc_lua_box *)law->box);
    lua_call(L, lc->nargs + 2, lc->nres);
    rc__lua_cb_leave((rc_lua_box *)law->box);
    law->in_call = 0;
    law->cell->cur = NULL;                         /* the call is over: no contact fields */
    rc_status s = read_results(L, lc, -lc->nres);
    lua_pop(L, lc->nres);
    return s;
}

/* xi or project of a law of dim 1 or 2 inside run (the common case, as
 * law_call_in_run without the descriptor): nargs numbers in, two out */
static rc_status call2_in_run(lua_State *L, lrc_law *law, int uv, const char *what, const rc_law_ctx *ctx,
                              const double *state, const double *a, int nargs, double *out)
{
    refresh_ctx_in_run(L, law, ctx, state);
    lua_pushvalue(L, lua_upvalueindex(uv));
    lua_pushvalue(L, lua_upvalueindex(LAW_UV_PARAMS));
    for (int i = 0; i < nargs; i++) lua_pushnumber(L, a[i]);
    lua_pushvalue(L, lua_upvalueindex(LAW_UV_CTX));
    law->cur_what = what;
    law->cur_contact = ctx->contact;
    law->cur_t = ctx->t;
    law->cell->cur = ctx;
    law->in_call = 1;
    rc__lua_cb_enter((rc_lua_box *)law->box);
    lua_call(L, nargs + 2, 2);
    rc__lua_cb_leave((rc_lua_box *)law->box);
    law->in_call = 0;
    law->cell->cur = NULL;
    for (int i = 0; i < 2; i++) {
        if (lua_type(L, i - 2) != LUA_TNUMBER) break;
        out[i] = lua_tonumberx(L, i - 2, NULL);
        if (!isfinite(out[i])) break;
        if (i == 1) {
            lua_pop(L, 2);
            return RC_OK;
        }
    }
    struct law_call lc = { .law = law, .nres = 2, .what = what, .ctx = ctx };   /* the error's message */
    rc_status s = read_results(L, &lc, -2);
    lua_pop(L, 2);
    return s;
}

/* The law's closure, called by lua_law_run under lua_pcall: the first call
 * of a kernel call stores the step's fields in ctx (protected: it may
 * allocate), then fn(arg) runs with law_call going through law_call_in_run. */
static int law_run_closure(lua_State *L)
{
    struct law_run *r = (struct law_run *)lua_touserdata(L, 1);
    lrc_law *law = r->law;
    /* (a C function has LUA_MINSTACK = 20 free slots: a call pushes at most
     * 12 values, refresh_ctx_in_run 2 more before them) */
    if (!law->live) {
        revive(L, law);
        make_live(law);
    }
    law->scope_L = L;
    r->status = r->fn(r->arg);
    law->scope_L = NULL;
    return 0;
}

static rc_status lua_law_run(void *user, rc_status (*fn)(void *arg), void *arg)
{
    lrc_law *law = (lrc_law *)user;
    lua_State *L = law->lw->L;
    if (!L || law->scope_L) return fn(arg);   /* law_call reports a call outside a step */
    if (!lua_checkstack(L, 4)) return rc_set_error(RC_ERR_CALLBACK, "Lua stack overflow");
    struct law_run r = { .law = law, .fn = fn, .arg = arg, .status = RC_OK };
    lua_rawgeti(L, LUA_REGISTRYINDEX, law->run_ref);
    lua_pushlightuserdata(L, &r);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {   /* a Lua error: in a call, or setting up ctx */
        law->scope_L = NULL;
        law->cell->cur = NULL;
        const int string = lua_type(L, -1) == LUA_TSTRING;
        if (law->in_call) {
            law->in_call = 0;
            rc__lua_cb_leave((rc_lua_box *)law->box);
            r.status = rc_set_error(RC_ERR_CALLBACK, "law '%s': '%s' failed for contact %d at t = %.17g: %s", law->name, law->cur_what,
                                    law->cur_contact, law->cur_t, string ? lua_tostring(L, -1) : "(an error object that is not a string)");
        } else {
            r.status = rc_set_error(RC_ERR_CALLBACK, "law '%s': %s", law->name, string ? lua_tostring(L, -1) : "cannot set up ctx");
        }
        lua_pop(L, 1);   /* the error (a pcall with no results leaves nothing else) */
    }
    return r.status;
}

/* Call a law function under lua_pcall (the function itself is called
 * protected: no C frame in between) and check its results. The ctx table is
 * refreshed before, outside the protected call: it only sets existing fields
 * of a plain table with interned short-string keys. */
static rc_status law_call(struct law_call *lc)
{
    lrc_law *law = lc->law;
    lua_State *L = law->lw->L;
    if (L && L == law->scope_L && !lc->write_state) return law_call_in_run(L, lc);
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
        make_live(law);
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
    s = read_results(L, lc, top + 2);
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

/* A law of dim 3 (spatial friction) takes and returns vectors (N, T, S):
 *   xi(law, uN, uT, uS, uoN, uoT, uoS, ctx)   -> xiN, xiT, xiS
 *   project(law, xN, xT, xS, ctx)             -> pN, pT, pS
 *   update(law, ctx, uN, uT, uS, uoN, uoT, uoS, pN, pT, pS) */
static rc_status law_call3(lrc_law *law, int fn_ref, const char *what, const rc_law_ctx *ctx, double *state,
                           const double *a, const double *b, const double *c, double *res)
{
    struct law_call lc = { .law = law, .fn_ref = fn_ref, .nargs = b ? (c ? 9 : 6) : 3, .nres = res ? 3 : 0, .what = what,
                           .args = { a[0], a[1], a[2] }, .ctx = ctx, .state = state, .write_state = res == NULL };
    for (int i = 0; b && i < 3; i++) lc.args[3 + i] = b[i];
    for (int i = 0; c && i < 3; i++) lc.args[6 + i] = c[i];
    rc_status st = law_call(&lc);
    for (int i = 0; st == RC_OK && res && i < 3; i++) res[i] = lc.res[i];
    return st;
}

static rc_status lua_law_xi(void *user, const rc_law_ctx *ctx, const double *state,
                            const double *u, const double *u_old, double *xi)
{
    lrc_law *law = (lrc_law *)user;
    if (law->dim == 3) return law_call3(law, law->xi_ref, "xi", ctx, (double *)state, u, u_old, NULL, xi);
    if (law->scope_L && law->scope_L == law->lw->L) {
        const double a[4] = { u[0], law->dim > 1 ? u[1] : 0.0, u_old[0], law->dim > 1 ? u_old[1] : 0.0 };
        return call2_in_run(law->scope_L, law, LAW_UV_XI, "xi", ctx, state, a, 4, xi);
    }
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
    if (law->dim == 3) return law_call3(law, law->project_ref, "project", ctx, (double *)state, x, NULL, NULL, p);
    if (law->scope_L && law->scope_L == law->lw->L) return call2_in_run(law->scope_L, law, LAW_UV_PROJECT, "project", ctx, state, x, 2, p);
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
    if (law->dim == 3) return law_call3(law, law->update_ref, "update", ctx, state, u, u_old, p, NULL);
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
                       law->keys_ref, law->run_ref };
        for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
            if (refs[i] != LUA_NOREF && refs[i] != LUA_REFNIL) luaL_unref(law->L0, LUA_REGISTRYINDEX, refs[i]);
    }
    free(law);
}

int lrc_law_guard_gc(lua_State *L)
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
int lrc_law_create_custom(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lrc_law_guard *guard = (lrc_law_guard *)lua_newuserdatauv(L, sizeof *guard, 0);
    guard->law = NULL;
    luaL_setmetatable(L, LRC_LAW_GUARD);
    lrc_law *law = (lrc_law *)calloc(1, sizeof *law);
    if (!law) return luaL_error(L, "out of memory");
    guard->law = law;
    law->lw = lw;
    law->L0 = main_thread(L);
    law->box = rc__lua_box(L);
    law->ctx_t = NAN;
    law->xi_ref = law->project_ref = law->update_ref = law->params_ref = law->ctx_ref = law->state_ref = LUA_NOREF;
    law->keys_ref = law->run_ref = LUA_NOREF;
    const char *name = lrc_field_str(L, 2, "name");
    snprintf(law->name, sizeof law->name, "%s", name ? name : "(unnamed)");
    law->dim = (int)lrc_field_int(L, 2, "dim", 2);
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
    lrc_field_vec(L, 2, "state0", ops.state0, law->nstate);
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
    const int uv[LAW_NUV] = { law->params_ref, law->ctx_ref, law->xi_ref, law->project_ref, law->keys_ref, law->state_ref };
    for (int i = 0; i < LAW_NUV; i++) {
        if (uv[i] == LUA_NOREF) lua_pushnil(L);
        else lua_rawgeti(L, LUA_REGISTRYINDEX, uv[i]);
    }
    lua_pushcclosure(L, law_run_closure, LAW_NUV);
    law->run_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    ops.user = law;
    ops.xi = law->xi_ref != LUA_NOREF ? lua_law_xi : NULL;
    ops.project = law->project_ref != LUA_NOREF ? lua_law_project : NULL;
    ops.update = law->update_ref != LUA_NOREF ? lua_law_update : NULL;
    ops.destroy = lua_law_destroy;
    ops.run = lua_law_run;
    int id = -1;
    rc_status s = rc_law_create_custom(lw->w, &ops, law->name, &id);
    if (s != RC_OK) return lrc_push_fail(L, s);   /* the guard frees the law */
    guard->law = NULL;                        /* the kernel owns it (ops.destroy) */
    lua_pushinteger(L, id);
    return 1;
}

/* law_set(world, id, e, mu, e_t?) -> true | nil, msg, status  (allowed between steps) */
int lrc_law_set(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    rc_law_def def;
    rc_status s = rc_law_get_def(lw->w, id, &def);
    if (s != RC_OK) return lrc_push_fail(L, s);
    def.e = luaL_checknumber(L, 3);
    def.mu = luaL_checknumber(L, 4);
    def.e_t = luaL_optnumber(L, 5, def.e_t);
    s = rc_law_set(lw->w, id, &def);
    return lrc_push_done(L, s);
}

/* set_default_law(world, id) -> true | nil, msg, status */
int lrc_set_default_law(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    rc_status s = rc_world_set_default_law(lw->w, (int)luaL_checkinteger(L, 2));
    return lrc_push_done(L, s);
}

int lrc_law_def(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    rc_law_def def;
    rc_status s = rc_law_get_def(lw->w, id, &def);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, def.e);
    lua_pushnumber(L, def.mu);
    /* the type: built-in Coulomb laws (closed form or generic solve) or custom */
    lua_pushstring(L, def.type == RC_LAW_NEWTON_COULOMB ? "newton" : def.type == RC_LAW_MOREAU ? "moreau"
                      : def.type == RC_LAW_FREMOND ? "fremond" : "custom");
    return 3;
}

/* contact_rule(world, "bodies" | "groups", a, b, law id | false | nil (default law), name | nil) */
int lrc_contact_rule(lua_State *L)
{
    static const char *const kinds[] = { "bodies", "groups", NULL };
    lrc_world *lw = lrc_check_idle(L, 1);
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
    return lrc_push_done(L, s);
}
