/* lrc_query.c -- ricochet.core's spatial queries (rc_query_box,
 * rc_query_point, rc_ray_cast, rc_disk_cast); the checks with messages that
 * name the argument are in lua/ricochet/query.lua. */
#include "lrc.h"

/* The optional group at idx: the filter. */
static rc_query_filter opt_filter(lua_State *L, int idx)
{
    rc_query_filter f = rc_default_query_filter();
    if (!lua_isnoneornil(L, idx)) {
        f.use_group = 1;
        f.group = (int)luaL_checkinteger(L, idx);
    }
    return f;
}

/* The shapes of a query: {shape ids}, {body ids} (RC_GROUND for obstacles). */
static int push_shapes(lua_State *L, lrc_world *lw, const int *ids, int n)
{
    lua_createtable(L, n, 0);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        int body = RC_GROUND;
        rc_status s = rc_shape_get_def(lw->w, ids[i], &body, NULL);
        if (s != RC_OK) return lrc_push_fail(L, s);
        lua_pushinteger(L, ids[i]);
        lua_rawseti(L, -3, i + 1);
        lua_pushinteger(L, body);
        lua_rawseti(L, -2, i + 1);
    }
    return 2;
}

typedef rc_status (*query_fn)(const rc_world *w, const double *a, const double *b, const rc_query_filter *f,
                              int *shapes, int cap, int *count);

static rc_status point_query(const rc_world *w, const double *a, const double *b, const rc_query_filter *f,
                             int *shapes, int cap, int *count)
{
    (void)b;
    return rc_query_point(w, a, f, shapes, cap, count);
}

/* Count, then fill a buffer of that size (a Lua userdata). */
static int run_query(lua_State *L, lrc_world *lw, query_fn fn, const double *a, const double *b,
                     const rc_query_filter *f)
{
    int n = 0;
    rc_status s = fn(lw->w, a, b, f, NULL, 0, &n);
    if (s != RC_OK) return lrc_push_fail(L, s);
    int *ids = (int *)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof(int), 0);
    int m = 0;
    s = fn(lw->w, a, b, f, ids, n, &m);
    if (s != RC_OK) return lrc_push_fail(L, s);
    return push_shapes(L, lw, ids, m < n ? m : n);
}

/* query_box(world, lo, hi, group | nil) -> shapes, bodies | nil, msg */
int lrc_query_box(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    double lo[2], hi[2];
    lrc_read_vec(L, 2, lo, 2, "lo");
    lrc_read_vec(L, 3, hi, 2, "hi");
    rc_query_filter f = opt_filter(L, 4);
    return run_query(L, lw, rc_query_box, lo, hi, &f);
}

/* query_point(world, p, group | nil) -> shapes, bodies | nil, msg */
int lrc_query_point(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    double p[2];
    lrc_read_vec(L, 2, p, 2, "point");
    rc_query_filter f = opt_filter(L, 3);
    return run_query(L, lw, point_query, p, NULL, &f);
}

static int push_hit(lua_State *L, const rc_query_hit *h, int found)
{
    if (!found) {
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_createtable(L, 0, 5);
    lrc_set_int(L, "shape", h->shape);
    lrc_set_int(L, "body", h->body);
    lrc_set_vec(L, "point", h->point, 2);
    lrc_set_vec(L, "normal", h->normal, 2);
    lrc_set_num(L, "fraction", h->fraction);
    return 1;
}

/* ray_cast(world, from, to, group | nil) -> hit | false | nil, msg */
int lrc_ray_cast(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    double a[2], b[2];
    lrc_read_vec(L, 2, a, 2, "from");
    lrc_read_vec(L, 3, b, 2, "to");
    rc_query_filter f = opt_filter(L, 4);
    rc_query_hit h;
    int found = 0;
    rc_status s = rc_ray_cast(lw->w, a, b, &f, &h, &found);
    if (s != RC_OK) return lrc_push_fail(L, s);
    return push_hit(L, &h, found);
}

/* disk_cast(world, from, to, radius, group | nil) -> hit | false | nil, msg */
int lrc_disk_cast(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    double a[2], b[2];
    lrc_read_vec(L, 2, a, 2, "from");
    lrc_read_vec(L, 3, b, 2, "to");
    double r = luaL_checknumber(L, 4);
    rc_query_filter f = opt_filter(L, 5);
    rc_query_hit h;
    int found = 0;
    rc_status s = rc_disk_cast(lw->w, a, b, r, &f, &h, &found);
    if (s != RC_OK) return lrc_push_fail(L, s);
    return push_hit(L, &h, found);
}

/* ---------------------------------------------------------------- contact events */

/* track_events(world, on, threshold) -> true | nil, msg */
int lrc_track_events(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int on = lua_toboolean(L, 2);
    double thr = luaL_optnumber(L, 3, HUGE_VAL);
    rc_status s = rc_world_track_events(lw->w, on, thr);
    return lrc_push_done(L, s);
}

/* events(world) -> { began = {...}, ended = {...}, impacts = {...} } | nil, msg */
int lrc_events(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    static const char *const names[3] = { "began", "ended", "impacts" };
    static const rc_event_kind kinds[3] = { RC_EVENT_BEGIN, RC_EVENT_END, RC_EVENT_IMPACT };
    lua_createtable(L, 0, 3);
    for (int k = 0; k < 3; k++) {
        const rc_contact_info *l;
        int n;
        rc_status s = rc_world_events(lw->w, kinds[k], &l, &n);
        if (s != RC_OK) return lrc_push_fail(L, s);
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            lrc_push_contact(L, &l[i]);
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, names[k]);
    }
    return 1;
}
