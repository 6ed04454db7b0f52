/* lrc_sim_def.c -- ricochet.core: the simulation's settings read from a Lua
 * table (lrc_sim_def_read, for world:simulation and the kernel's check), their
 * defaults by name (core.defaults.sim) and the joints' Jacobian the kernel
 * chooses (core.joint_jacobian); lua_ricochet.c has the overview. */
#include "lrc.h"

static const char *const schemes[] = { "moreau-jean", "moreau-jean-fremond", "maury", "gen-alpha", NULL };
static const rc_scheme scheme_codes[] = { RC_SCHEME_MOREAU_JEAN, RC_SCHEME_MOREAU_JEAN_FREMOND, RC_SCHEME_MAURY,
                                          RC_SCHEME_GEN_ALPHA };
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

static const char *const methods[] = { "nsgs", "uzawa", "newton", "apgd", NULL };
static const rc_solver_method method_codes[] = { RC_SOLVER_NSGS, RC_SOLVER_UZAWA, RC_SOLVER_NEWTON, RC_SOLVER_APGD };
static const char *const formulations[] = { "alart-curnier", "fischer-burmeister", NULL };
static const char *const linears[] = { "auto", "dense", "iterative", "sparse", NULL };
static const rc_newton_linear linear_codes[] = { RC_NEWTON_LINEAR_AUTO, RC_NEWTON_LINEAR_DENSE, RC_NEWTON_LINEAR_ITERATIVE,
                                                 RC_NEWTON_LINEAR_SPARSE };
static const char *const orders[] = { "fixed", "random", "position", "colour", "top", "slabs", NULL };
static const rc_order order_codes[] = { RC_ORDER_FIXED, RC_ORDER_RANDOM, RC_ORDER_POSITION, RC_ORDER_COLOUR, RC_ORDER_TOP,
                                        RC_ORDER_SLABS };
static const char *const norms[] = { "l2", "max", "siconos", NULL };
static const rc_residual_norm norm_codes[] = { RC_NORM_L2, RC_NORM_MAX, RC_NORM_SICONOS };
static const char *const residuals[] = { "pass", "sweep", NULL };
static const char *const work_checks[] = { "record", "warn", "error", NULL };
static const rc_work_check work_codes[] = { RC_WORK_RECORD, RC_WORK_WARN, RC_WORK_ERROR };
static const char *const jacobians[] = { "auto", "start", "midpoint", "end", NULL };
static const rc_joint_jacobian jacobian_codes[] = { RC_JOINT_JACOBIAN_AUTO, RC_JOINT_JACOBIAN_START,
                                                     RC_JOINT_JACOBIAN_MIDPOINT, RC_JOINT_JACOBIAN_END };

/* An int field as given (outside the int range: 0, refused by the kernel). */
static int field_int(lua_State *L, int t, const char *key, int dflt)
{
    lua_Integer x = lrc_field_int(L, t, key, dflt);
    return x < INT_MIN || x > INT_MAX ? 0 : (int)x;
}

static int field_bool(lua_State *L, int t, const char *key, int dflt)
{
    int x = dflt;
    if (lua_getfield(L, t, key) != LUA_TNIL) x = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return x;
}

/* The simulation's definition from { scheme, theta, h, activation, gamma,
 * persist_tol, solver, tol, max_iter, on_fail, warm_start, local_tol,
 * local_max_iter, relax, order, threads, adaptive_threads, accelerate, norm,
 * check_every, residual, formulation, fallback, linear, seed, work_check, work_tol, joint_jacobian, project_joints,
 * project_tol, project_max_iter, project_contacts } (absent: the defaults). */
void lrc_sim_def_read(lua_State *L, int t, rc_sim_def *def)
{
    *def = rc_default_sim_def();
    rc_solver_def *sd = &def->solver;
    if (lua_getfield(L, t, "scheme") != LUA_TNIL) def->scheme = scheme_codes[field_option(L, t, "scheme", schemes, 0)];
    lua_pop(L, 1);
    def->theta = lrc_field_num(L, t, "theta", def->theta);
    def->h = lrc_field_num(L, t, "h", def->h);
    if (lua_getfield(L, t, "activation") != LUA_TNIL)
        def->activation = field_option(L, t, "activation", activations, 1) == 0 ? RC_ACTIVATE_GAP : RC_ACTIVATE_ANTICIPATE;
    lua_pop(L, 1);
    def->gamma = lrc_field_num(L, t, "gamma", def->gamma);
    def->persist_tol = lrc_field_num(L, t, "persist_tol", def->persist_tol);
    sd->tol = lrc_field_num(L, t, "tol", sd->tol);
    sd->max_iter = field_int(L, t, "max_iter", sd->max_iter);
    if (lua_getfield(L, t, "on_fail") != LUA_TNIL)
        sd->on_fail = field_option(L, t, "on_fail", on_fails, 0) == 0 ? RC_ON_FAIL_WARN : RC_ON_FAIL_ERROR;
    lua_pop(L, 1);
    sd->warm_start = field_bool(L, t, "warm_start", sd->warm_start);
    if (lua_getfield(L, t, "solver") != LUA_TNIL)
        sd->method = method_codes[field_option(L, t, "solver", methods, 0)];
    lua_pop(L, 1);
    sd->relax = lrc_field_num(L, t, "relax", sd->relax);
    if (lua_getfield(L, t, "order") != LUA_TNIL) sd->order = order_codes[field_option(L, t, "order", orders, 0)];
    lua_pop(L, 1);
    sd->threads = field_int(L, t, "threads", sd->threads);
    sd->adaptive_threads = field_bool(L, t, "adaptive_threads", sd->adaptive_threads);
    sd->accelerate = field_bool(L, t, "accelerate", sd->accelerate);
    sd->anderson = field_int(L, t, "anderson", sd->anderson);   /* NSGS: accelerate = "anderson", its depth */
    if (lua_getfield(L, t, "norm") != LUA_TNIL)
        sd->norm = norm_codes[field_option(L, t, "norm", norms, 0)];
    lua_pop(L, 1);
    sd->check_every = field_int(L, t, "check_every", sd->check_every);
    sd->skip_quiet = lrc_field_num(L, t, "skip_quiet", sd->skip_quiet);
    if (lua_getfield(L, t, "residual") != LUA_TNIL)
        sd->residual = field_option(L, t, "residual", residuals, 0) == 0 ? RC_RESIDUAL_PASS : RC_RESIDUAL_SWEEP;
    lua_pop(L, 1);
    sd->seed = (uint64_t)lrc_field_int(L, t, "seed", (lua_Integer)sd->seed);
    sd->local_tol = lrc_field_num(L, t, "local_tol", sd->local_tol);
    sd->local_max_iter = field_int(L, t, "local_max_iter", sd->local_max_iter);
    if (lua_getfield(L, t, "formulation") != LUA_TNIL)   /* newton */
        sd->formulation = field_option(L, t, "formulation", formulations, 0) == 0 ? RC_NEWTON_ALART_CURNIER
                                                                                   : RC_NEWTON_FISCHER_BURMEISTER;
    lua_pop(L, 1);
    sd->fallback = field_bool(L, t, "fallback", sd->fallback);
    if (lua_getfield(L, t, "linear") != LUA_TNIL) sd->linear = linear_codes[field_option(L, t, "linear", linears, 0)];
    lua_pop(L, 1);
    if (lua_getfield(L, t, "work_check") != LUA_TNIL)
        def->work_check = work_codes[field_option(L, t, "work_check", work_checks, 0)];
    lua_pop(L, 1);
    def->work_tol = lrc_field_num(L, t, "work_tol", def->work_tol);
    if (lua_getfield(L, t, "joint_jacobian") != LUA_TNIL)
        def->joint_jacobian = jacobian_codes[field_option(L, t, "joint_jacobian", jacobians, 0)];
    lua_pop(L, 1);
    def->project_joints = field_bool(L, t, "project_joints", def->project_joints);
    def->project_tol = lrc_field_num(L, t, "project_tol", def->project_tol);
    def->project_max_iter = field_int(L, t, "project_max_iter", def->project_max_iter);
    def->project_contacts = field_bool(L, t, "project_contacts", def->project_contacts);
    /* gen-alpha: rho_inf, or alpha_m, alpha_f, beta, ga_gamma (ga_direct); its Newton's cap and strategy */
    rc_gen_alpha_def *ga = &def->gen_alpha;
    ga->rho_inf = lrc_field_num(L, t, "rho_inf", ga->rho_inf);
    ga->direct = field_bool(L, t, "ga_direct", ga->direct);
    ga->alpha_m = lrc_field_num(L, t, "alpha_m", ga->alpha_m);
    ga->alpha_f = lrc_field_num(L, t, "alpha_f", ga->alpha_f);
    ga->beta = lrc_field_num(L, t, "beta", ga->beta);
    ga->gamma = lrc_field_num(L, t, "ga_gamma", ga->gamma);
    ga->max_iter = field_int(L, t, "ga_max_iter", ga->max_iter);
    ga->sequential = field_bool(L, t, "ga_sequential", ga->sequential);
    ga->prox_r = lrc_field_num(L, t, "prox_r", ga->prox_r);
    ga->variant = (rc_ga_variant)field_int(L, t, "ga_variant", (int)ga->variant);
    ga->jacobian = (rc_ga_jacobian)field_int(L, t, "ga_jacobian", (int)ga->jacobian);
}

static const char *order_name(rc_order x)
{
    for (int i = 0; orders[i]; i++) if (order_codes[i] == x) return orders[i];
    return "?";
}

static const char *work_check_name(rc_work_check x)
{
    for (int i = 0; work_checks[i]; i++) if (work_codes[i] == x) return work_checks[i];
    return "?";
}

static const char *jacobian_name(rc_joint_jacobian x)
{
    for (int i = 0; jacobians[i]; i++) if (jacobian_codes[i] == x) return jacobians[i];
    return "?";
}

/* core.defaults.sim: rc_default_sim_def, flat, options by name (as the Lua sim's fields). */
void lrc_push_sim_defaults(lua_State *L)
{
    rc_sim_def d = rc_default_sim_def();
    const rc_solver_def *sd = &d.solver;
    lua_newtable(L);
    lua_pushstring(L, rc_scheme_name(d.scheme));
    lua_setfield(L, -2, "scheme");
    lrc_set_num(L, "theta", d.theta);
    lrc_set_num(L, "h", d.h);
    lua_pushstring(L, d.activation == RC_ACTIVATE_GAP ? "gap" : "anticipate");
    lua_setfield(L, -2, "activation");
    lrc_set_num(L, "gamma", d.gamma);
    lrc_set_num(L, "persist_tol", d.persist_tol);
    lua_pushstring(L, rc_solver_name(sd->method));
    lua_setfield(L, -2, "solver");
    lrc_set_num(L, "relax", sd->relax);
    lua_pushstring(L, order_name(sd->order));
    lua_setfield(L, -2, "order");
    lrc_set_int(L, "seed", (lua_Integer)sd->seed);
    lrc_set_int(L, "check_every", sd->check_every);
    lrc_set_num(L, "skip_quiet", sd->skip_quiet);
    lua_pushstring(L, sd->residual == RC_RESIDUAL_SWEEP ? "sweep" : "pass");
    lua_setfield(L, -2, "residual");
    lrc_set_num(L, "tol", sd->tol);
    lrc_set_int(L, "max_iter", sd->max_iter);
    lua_pushstring(L, sd->on_fail == RC_ON_FAIL_ERROR ? "error" : "warn");
    lua_setfield(L, -2, "on_fail");
    lrc_set_bool(L, "warm_start", sd->warm_start);
    lrc_set_num(L, "local_tol", sd->local_tol);
    lrc_set_int(L, "local_max_iter", sd->local_max_iter);
    lrc_set_int(L, "threads", sd->threads);
    lrc_set_bool(L, "adaptive_threads", sd->adaptive_threads);
    lua_pushstring(L, sd->norm == RC_NORM_MAX ? "max" : sd->norm == RC_NORM_SICONOS ? "siconos" : "l2");
    lua_setfield(L, -2, "norm");
    lrc_set_bool(L, "accelerate", sd->accelerate);
    lua_pushstring(L, sd->formulation == RC_NEWTON_FISCHER_BURMEISTER ? "fischer-burmeister" : "alart-curnier");
    lua_setfield(L, -2, "formulation");
    lrc_set_bool(L, "fallback", sd->fallback);
    for (int i = 0; linears[i]; i++)
        if (linear_codes[i] == sd->linear) { lua_pushstring(L, linears[i]); lua_setfield(L, -2, "linear"); }
    lua_pushstring(L, work_check_name(d.work_check));
    lua_setfield(L, -2, "work_check");
    lrc_set_num(L, "work_tol", d.work_tol);
    lua_pushstring(L, jacobian_name(d.joint_jacobian));
    lua_setfield(L, -2, "joint_jacobian");
    lrc_set_bool(L, "project_joints", d.project_joints);
    lrc_set_num(L, "project_tol", d.project_tol);
    lrc_set_int(L, "project_max_iter", d.project_max_iter);
    lrc_set_bool(L, "project_contacts", d.project_contacts);
}

/* core.joint_jacobian(t) -> "start" | "midpoint" | "end": the joints' rows
 * the kernel uses for the settings t (rc_sim_joint_jacobian; "auto" resolved) */
int lrc_joint_jacobian(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rc_sim_def def;
    lrc_sim_def_read(L, 1, &def);
    lua_pushstring(L, jacobian_name(rc_sim_joint_jacobian(&def)));
    return 1;
}
