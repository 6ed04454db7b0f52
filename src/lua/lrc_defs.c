/* lrc_defs.c -- ricochet.core: the definitions' defaults and range checks,
 * read from the kernel (lua_ricochet.c has the overview).
 *
 * The kernel is the one source of both: core.defaults is built once, at load
 * time, from the rc_default_*_def() functions, and core.check_def(kind, what,
 * t) runs the kernel's rc_*_def_check on the definition t, with what (the
 * Lua function's name, e.g. "rc.newton") as the message's prefix. The Lua
 * side (the files of lua/ricochet/) checks keys and types, fills absent keys from
 * core.defaults and raises check_def's message at the user's script line
 * (check.c_check). */
#include "lrc.h"

/* ---------------------------------------------------------------- defaults */

static void push_law_defaults(lua_State *L)
{
    rc_law_def d = rc_default_law_def();
    lua_newtable(L);
    lrc_set_num(L, "e", d.e);
    lrc_set_num(L, "mu", d.mu);
    lrc_set_num(L, "e_t", d.e_t);
    lrc_set_num(L, "radius", d.radius);
    lua_pushstring(L, d.generic ? "generic" : "exact");
    lua_setfield(L, -2, "local_solver");
}

static void push_shape_defaults(lua_State *L)
{
    rc_shape_def d = rc_default_shape_def();
    lua_newtable(L);
    lrc_set_num(L, "radius", d.radius);   /* a disk's (the Lua descriptors require it) */
    lrc_set_vec(L, "offset", d.offset, 2);
    lrc_set_vec(L, "point", d.point, 2);
    lrc_set_vec(L, "normal", d.normal, 2);
    lrc_set_int(L, "group", d.group);
    lrc_set_num(L, "segment_radius", LRC_SEGMENT_RADIUS);
}

static void push_world_defaults(lua_State *L)
{
    rc_world_def d = rc_default_world_def();
    lua_newtable(L);
    lrc_set_int(L, "dim", d.dim);
    lrc_set_vec(L, "gravity", d.gravity, 2);   /* planar: {gx, gy} */
    lrc_set_num(L, "margin", d.contact_margin);
}

static void push_body_defaults(lua_State *L)
{
    rc_body_def d = rc_default_body_def();
    lua_newtable(L);
    lrc_set_num(L, "mass", d.mass);   /* (the Lua API requires mass and inertia) */
    lrc_set_num(L, "inertia", d.inertia);
    lrc_set_vec(L, "q", d.q, 3);
    lrc_set_vec(L, "v", d.v, 3);
    lrc_set_vec(L, "force", d.force, 3);
}

static void push_spring_defaults(lua_State *L)
{
    rc_spring_def d = rc_default_spring_def();
    lua_newtable(L);
    lrc_set_vec(L, "point_a", d.point_a, 2);
    lrc_set_vec(L, "point_b", d.point_b, 2);
    lrc_set_num(L, "k", d.k);   /* (the Lua API requires k) */
    lrc_set_num(L, "c", d.c);
}

/* A joint's (rc_default_joint_def), and its limits' when none were set
 * before: no bound on either side, no restitution (the arguments of
 * rc_joint_set_limits have no default in C: these are the binding's). */
static void push_joint_defaults(lua_State *L)
{
    rc_joint_def d = rc_default_joint_def();
    lua_newtable(L);
    lrc_set_vec(L, "point_a", d.point_a, 2);
    lrc_set_vec(L, "point_b", d.point_b, 2);
    lrc_set_vec(L, "axis", d.axis, 2);
    lua_newtable(L);
    lrc_set_num(L, "lower", -INFINITY);
    lrc_set_num(L, "upper", INFINITY);
    lrc_set_num(L, "e", 0.0);
    lua_setfield(L, -2, "limits");
}

static void push_gap_defaults(lua_State *L)
{
    rc_gap_def d = rc_default_gap_def();
    lua_newtable(L);
    lrc_set_num(L, "g0", d.g0);
}

/* core.defaults: { law = {...}, ... } (a new table each call; luaopen stores one) */
int lrc_defaults(lua_State *L)
{
    lua_newtable(L);
    push_law_defaults(L);
    lua_setfield(L, -2, "law");
    push_shape_defaults(L);
    lua_setfield(L, -2, "shape");
    push_world_defaults(L);
    lua_setfield(L, -2, "world");
    push_body_defaults(L);
    lua_setfield(L, -2, "body");
    lrc_push_sim_defaults(L);   /* (lrc_sim.c, beside the options' names) */
    lua_setfield(L, -2, "sim");
    push_spring_defaults(L);
    lua_setfield(L, -2, "spring");
    push_joint_defaults(L);
    lua_setfield(L, -2, "joint");
    push_gap_defaults(L);
    lua_setfield(L, -2, "gap");
    return 1;
}

/* ---------------------------------------------------------------- checks */

static const char *const law_types[] = { "newton", "moreau", "fremond", NULL };
static const rc_law_type law_codes[] = { RC_LAW_NEWTON_COULOMB, RC_LAW_MOREAU, RC_LAW_FREMOND };

/* A built-in law's definition from { type, e, mu, e_t } (absent: the defaults). */
void lrc_law_def_read(lua_State *L, int t, rc_law_def *def)
{
    *def = rc_default_law_def();
    lua_getfield(L, t, "type");
    def->type = law_codes[luaL_checkoption(L, -1, NULL, law_types)];
    lua_pop(L, 1);
    def->e = lrc_field_num(L, t, "e", def->e);
    def->mu = lrc_field_num(L, t, "mu", def->mu);
    def->e_t = lrc_field_num(L, t, "e_t", def->e_t);
    def->radius = lrc_field_num(L, t, "radius", def->radius);
}

static rc_status check_law(lua_State *L, const char *what)
{
    rc_law_def def;
    lrc_law_def_read(L, 3, &def);
    return rc_law_def_check(&def, what);
}

static rc_status check_shape(lua_State *L, const char *what)
{
    rc_shape_def def;
    lrc_shape_def_read(L, 3, &def);
    return rc_shape_def_check(&def, what);
}

static rc_status check_world(lua_State *L, const char *what)
{
    rc_world_def def;
    lrc_world_def_read(L, 3, &def);
    return rc_world_def_check(&def, what);
}

static rc_status check_body(lua_State *L, const char *what)
{
    rc_body_def def;
    lrc_body_def_read(L, 3, &def);
    return rc_body_def_check(&def, what);
}

static rc_status check_sim(lua_State *L, const char *what)
{
    rc_sim_def def;
    lrc_sim_def_read(L, 3, &def);
    return rc_sim_def_check(&def, what);
}

static rc_status check_spring(lua_State *L, const char *what)
{
    rc_spring_def def;
    lrc_spring_def_read(L, 3, &def);
    return rc_spring_def_check(&def, what);
}

static rc_status check_joint(lua_State *L, const char *what)
{
    rc_joint_def def;
    lrc_joint_def_read(L, 3, &def);
    return rc_joint_def_check(&def, what);
}

static rc_status check_linear(lua_State *L, const char *what)
{
    rc_linear_def def;
    lrc_linear_def_read(L, 3, &def);
    return rc_linear_def_check(&def, what);
}

/* { speed, max, key = "motor", maxkey = "max_torque" } */
static rc_status check_motor(lua_State *L, const char *what)
{
    lua_getfield(L, 3, "key");
    lua_getfield(L, 3, "maxkey");
    rc_status s = rc_joint_motor_check(lrc_field_num(L, 3, "speed", 0.0), lrc_field_num(L, 3, "max", 0.0), what,
                                       lua_tostring(L, -2), lua_tostring(L, -1));
    lua_pop(L, 2);
    return s;
}

/* { lower, upper, e, key = "limits" } */
static rc_status check_limits(lua_State *L, const char *what)
{
    lua_getfield(L, 3, "key");
    rc_status s = rc_joint_limits_check(lrc_field_num(L, 3, "lower", -INFINITY), lrc_field_num(L, 3, "upper", INFINITY),
                                        lrc_field_num(L, 3, "e", 0.0), what, lua_tostring(L, -1));
    lua_pop(L, 1);
    return s;
}

/* core.check_def(kind, what, t) -> nil | message ("WHAT: 'key' must be ...") */
int lrc_check_def(lua_State *L)
{
    static const char *const kinds[] = { "law", "shape", "world", "body", "sim", "spring", "joint", "linear", "motor",
                                         "limits", NULL };
    int kind = luaL_checkoption(L, 1, NULL, kinds);
    const char *what = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    rc_status s = RC_OK;
    switch (kind) {
    case 0: s = check_law(L, what); break;
    case 1: s = check_shape(L, what); break;
    case 2: s = check_world(L, what); break;
    case 3: s = check_body(L, what); break;
    case 4: s = check_sim(L, what); break;
    case 5: s = check_spring(L, what); break;
    case 6: s = check_joint(L, what); break;
    case 7: s = check_linear(L, what); break;
    case 8: s = check_motor(L, what); break;
    case 9: s = check_limits(L, what); break;
    }
    if (s == RC_OK) return 0;
    lua_pushstring(L, rc_last_error());
    return 1;
}
