/* lrc_mechanisms.c -- ricochet.core: joints, springs, linear bodies, gap contacts and their Lua callbacks
 * (lua_ricochet.c has the overview). */
#include "lrc.h"

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

/* A prescribed motion's holder for another kernel object (a beam joint's
 * angle, lrc_beam.c): f and df (or nil) at stack indices i_f, i_df. */
rc_motion_fn lrc_motion_holder(lua_State *L, lrc_world *lw, int i_f, int i_df, const char *label, void **user)
{
    lrc_cb *cb = cb_new(L, lw, CB_MOTION, i_f, i_df, 2);
    snprintf(cb->label, sizeof cb->label, "%s", label);
    *user = cb;
    return motion_cb;
}

void lrc_motion_drop(lua_State *L, void *user)
{
    cb_drop(L, (lrc_cb *)user);
}

/* constraint: g(t, qa, qb) -> g1, .., gm; grad(t, qa, qb) -> Ga, Gb.
 * buf = { g[3], Ga[9], Gb[9] } */
static void push_q(lua_State *L, const double *q, int n)
{
    if (q && n > 0) lrc_push_vec(L, q, n);
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
    lua_Integer id = lrc_field_int(L, t, key, dflt);
    if (id < -1 || id >= 0x7fffffff) luaL_error(L, "field '%s': body id out of range", key);
    return (int)id;
}

/* joint_create(world, { type, a = id | GROUND, b = id, point_a, point_b, axis, length, angle,
 *               coord (0 x, 1 y, 2 theta), f, df (prescribed), rows, g, grad (custom), name })
 * -> joint id | nil, msg, status. The Lua side (init.lua) has checked the values. */
/* A joint's definition from { type, a, b, point_a, point_b, axis, length, angle,
 * break_force, break_torque, coord, rows, name } (absent: the defaults; no callbacks). */
void lrc_joint_def_read(lua_State *L, int t, rc_joint_def *def)
{
    *def = rc_default_joint_def();
    lua_getfield(L, t, "type");
    def->type = joint_codes[luaL_checkoption(L, -1, NULL, joint_types)];
    lua_pop(L, 1);
    def->body_a = field_body(L, t, "a", RC_GROUND);
    def->body_b = field_body(L, t, "b", RC_GROUND);
    lrc_field_vec(L, t, "point_a", def->point_a, 2);
    lrc_field_vec(L, t, "point_b", def->point_b, 2);
    lrc_field_vec(L, t, "axis", def->axis, 2);
    def->length = lrc_field_num(L, t, "length", def->length);
    def->angle = lrc_field_num(L, t, "angle", def->angle);
    def->break_force = lrc_field_num(L, t, "break_force", def->break_force);
    def->break_torque = lrc_field_num(L, t, "break_torque", def->break_torque);
    lua_Integer coord = lrc_field_int(L, t, "coord", def->coord);
    if (coord < 0 || coord > 2) luaL_error(L, "field 'coord' must be 0, 1 or 2");
    def->coord = (int)coord;
    lua_Integer rows = lrc_field_int(L, t, "rows", def->rows);
    def->rows = rows < INT_MIN || rows > INT_MAX ? 0 : (int)rows;   /* (the range: rc_joint_def_check) */
    def->name = lrc_field_str(L, t, "name");
}

int lrc_joint_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_joint_def def;
    lrc_joint_def_read(L, 2, &def);
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
        if (def.rows < 1) return luaL_error(L, "joint_create: 'rows' must be 1, 2 or 3");
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
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_joint_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) {
        if (cb) cb_drop(L, cb);
        return lrc_push_fail(L, s);
    }
    if (cb && !def.name) snprintf(cb->label, sizeof cb->label, "joint %d", id);
    lua_pushinteger(L, id);
    return 1;
}

int lrc_joint_count(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushinteger(L, rc_joint_count(lw->w));
    return 1;
}

/* joint_name(world, id) -> name | nil */
int lrc_joint_name(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    const char *name = rc_joint_name(lw->w, (int)luaL_checkinteger(L, 2));
    if (name) lua_pushstring(L, name);
    else lua_pushnil(L);
    return 1;
}

/* joint_info(world, id) -> { rows, impulse, force, g, gdot, work } | nil, msg, status */
int lrc_joint_info(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_Integer id = luaL_checkinteger(L, 2);
    luaL_argcheck(L, id >= 0 && id < 0x7fffffff, 2, "joint id out of range");
    rc_joint_info in;
    memset(&in, 0, sizeof in);
    rc_status s = rc_joint_get(lw->w, (int)id, &in);
    if (s != RC_OK) return lrc_push_fail(L, s);
    int m = in.rows < 0 ? 0 : in.rows > 3 ? 3 : in.rows;
    lua_createtable(L, 0, 6);
    lrc_set_int(L, "rows", m);
    lrc_set_vec(L, "impulse", in.impulse, m);
    lrc_set_vec(L, "force", in.force, m);
    lrc_set_vec(L, "g", in.g, m);
    lrc_set_vec(L, "gdot", in.gdot, m);
    lrc_set_num(L, "work", in.work);
    lrc_set_vec(L, "smooth", in.smooth, m);   /* gen-alpha's lambda~ */
    {   /* motor and limits: revolute and prismatic joints (0 for the others) */
        lrc_set_num(L, "coordinate", in.coordinate);
        lrc_set_num(L, "rate", in.rate);
        lrc_set_num(L, "motor_impulse", in.motor_impulse);
        lrc_set_num(L, "motor_force", in.motor_force);
        lrc_set_num(L, "motor_work", in.motor_work);
        lrc_set_num(L, "limit_impulse", in.limit_impulse);
        if (in.limit) {
            lua_pushstring(L, in.limit < 0 ? "lower" : "upper");
            lua_setfield(L, -2, "limit");
        }
    }
    return 1;
}

/* joint_set_motor(world, id, enabled, speed, max_force) -> true | nil, msg, status
 * (the Lua side has checked the values) */
int lrc_joint_set_motor(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    lua_Integer id = luaL_checkinteger(L, 2);
    luaL_argcheck(L, id >= 0 && id < 0x7fffffff, 2, "joint id out of range");
    rc_status s = rc_joint_set_motor(lw->w, (int)id, lua_toboolean(L, 3), luaL_checknumber(L, 4), luaL_checknumber(L, 5));
    return lrc_push_done(L, s);
}

/* joint_set_limits(world, id, enabled, lower, upper, e) -> true | nil, msg, status */
int lrc_joint_set_limits(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    lua_Integer id = luaL_checkinteger(L, 2);
    luaL_argcheck(L, id >= 0 && id < 0x7fffffff, 2, "joint id out of range");
    rc_status s = rc_joint_set_limits(lw->w, (int)id, lua_toboolean(L, 3), luaL_checknumber(L, 4),
                                      luaL_checknumber(L, 5), luaL_checknumber(L, 6));
    return lrc_push_done(L, s);
}

/* spring_create(world, { type = "linear" | "torsional", a, b, point_a, point_b, k, c,
 *                rest_length (nil: the initial length), rest_angle (nil: the initial angle), name })
 * -> spring id | nil, msg, status */
/* A spring's definition from { type, a, b, point_a, point_b, k, c,
 * rest_length, rest_angle, name } (absent: the defaults). */
void lrc_spring_def_read(lua_State *L, int t, rc_spring_def *def)
{
    static const char *const types[] = { "linear", "torsional", NULL };
    *def = rc_default_spring_def();
    lua_getfield(L, t, "type");
    def->type = luaL_checkoption(L, -1, NULL, types) == 0 ? RC_SPRING_LINEAR : RC_SPRING_TORSIONAL;
    lua_pop(L, 1);
    def->body_a = field_body(L, t, "a", RC_GROUND);
    def->body_b = field_body(L, t, "b", RC_GROUND);
    lrc_field_vec(L, t, "point_a", def->point_a, 2);
    lrc_field_vec(L, t, "point_b", def->point_b, 2);
    def->k = lrc_field_num(L, t, "k", def->k);
    def->c = lrc_field_num(L, t, "c", def->c);
    def->rest_length = lrc_field_num(L, t, "rest_length", def->rest_length);
    def->rest_angle = lrc_field_num(L, t, "rest_angle", def->rest_angle);
    def->name = lrc_field_str(L, t, "name");
}

int lrc_spring_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_spring_def def;
    lrc_spring_def_read(L, 2, &def);
    int id = -1;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_spring_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

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
    double *x = lrc_scratch(L, n * n);
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
    double *x = lrc_scratch(L, n);
    lrc_read_vec(L, v, x, n, key);
    lua_remove(L, v);
    return x;
}

/* linear_create(world, { name, n, M = rows, K = rows | nil, C = rows | nil, q0, v0, f })
 * -> body id | nil, msg, status. The force function is set with body_set_force_fn. */
/* A linear body's definition from { name, n, M, K, C, q0, v0, f } (absent:
 * the defaults, NULL); the arrays are buffers left on the stack. */
void lrc_linear_def_read(lua_State *L, int t, rc_linear_def *def)
{
    *def = rc_default_linear_def();
    lua_Integer n = lrc_field_int(L, t, "n", 0);
    if (n < 1 || n > LRC_MAX_LINEAR_N) luaL_error(L, "linear_create: 'n' must be in 1..%d", LRC_MAX_LINEAR_N);
    def->n = (int)n;
    def->name = lrc_field_str(L, t, "name");
    def->M = field_matrix(L, t, "M", def->n);
    def->K = field_matrix(L, t, "K", def->n);
    def->C = field_matrix(L, t, "C", def->n);
    def->q0 = field_vec_opt(L, t, "q0", def->n);
    def->v0 = field_vec_opt(L, t, "v0", def->n);
    def->f = field_vec_opt(L, t, "f", def->n);
}

int lrc_linear_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_linear_def def;
    lrc_linear_def_read(L, 2, &def);
    int id = -1;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_linear_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushinteger(L, id);
    return 1;
}

/* linear_energy(world, id) -> E_kin, E_elastic | nil, msg, status */
int lrc_linear_energy(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int id = lrc_check_body_id(L, 2);
    double ek = 0, ee = 0;
    rc_status s = rc_linear_energy(lw->w, id, &ek, &ee);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, ek);
    lua_pushnumber(L, ee);
    return 2;
}

/* gap_create(world, { body, index = {i, ..} (0-based), normal = {..}, tangent = {..} | nil, g0,
 *             gap = function | nil, law = id (default 0: the world's default law), name })
 * -> gap id | nil, msg, status */
int lrc_gap_create(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_gap_def def = rc_default_gap_def();
    def.body = field_body(L, 2, "body", RC_GROUND);
    def.g0 = lrc_field_num(L, 2, "g0", def.g0);
    lua_Integer law = lrc_field_int(L, 2, "law", def.law);
    if (law < -1 || law > 0x7fffffff) return luaL_error(L, "gap_create: law id out of range");
    def.law = (int)law;
    def.name = lrc_field_str(L, 2, "name");
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
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_gap_create(lw->w, &def, &id);
    lrc_leave_kernel(L, lw, sv);
    if (s != RC_OK) {
        if (cb) cb_drop(L, cb);
        return lrc_push_fail(L, s);
    }
    if (cb && !def.name) snprintf(cb->label, sizeof cb->label, "gap %d (body %d)", id, def.body);
    lua_pushinteger(L, id);
    return 1;
}
