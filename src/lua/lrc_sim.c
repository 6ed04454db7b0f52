/* lrc_sim.c -- ricochet.core: simulation settings, the step, contacts, the history output, VTK, interrupts and misc
 * (lua_ricochet.c has the overview). */
#include "lrc.h"
#include "lua_frames.h"     /* rc__lua_idle_world */

/* ---------------------------------------------------------------- simulation */

/* (the settings' reader, their defaults and names: lrc_sim_def.c) */

/* configure(world, { the keys of lrc_sim_def_read }) -> true | nil, msg, status */
int lrc_configure(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_sim_def def;
    lrc_sim_def_read(L, 2, &def);
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_world_configure(lw->w, &def);
    lrc_leave_kernel(L, lw, sv);
    return lrc_push_done(L, s);
}

int lrc_sim_def(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_sim_def d;
    rc_status s = rc_world_get_sim_def(lw->w, &d);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_newtable(L);
    lua_pushstring(L, rc_scheme_name(d.scheme));
    lua_setfield(L, -2, "scheme");
    lrc_set_num(L, "theta", d.theta);
    lrc_set_num(L, "h", d.h);
    lua_pushstring(L, d.activation == RC_ACTIVATE_ANTICIPATE ? "anticipate" : "gap");
    lua_setfield(L, -2, "activation");
    lrc_set_num(L, "gamma", d.gamma);
    lrc_set_num(L, "persist_tol", d.persist_tol);
    lrc_set_num(L, "tol", d.solver.tol);
    lrc_set_int(L, "max_iter", d.solver.max_iter);
    lua_pushstring(L, d.solver.on_fail == RC_ON_FAIL_ERROR ? "error" : "warn");
    lua_setfield(L, -2, "on_fail");
    lrc_set_bool(L, "warm_start", d.solver.warm_start);
    lrc_set_num(L, "local_tol", d.solver.local_tol);
    lrc_set_int(L, "local_max_iter", d.solver.local_max_iter);
    lua_pushstring(L, d.work_check == RC_WORK_ERROR ? "error" : d.work_check == RC_WORK_WARN ? "warn" : "record");
    lua_setfield(L, -2, "work_check");
    lrc_set_num(L, "work_tol", d.work_tol);
    /* project_joints, project_tol, project_max_iter are not returned yet:
     * tests/spec/api_spec.lua pins the exact key set (the Lua sim object has them) */
    return 1;
}

/* step(world) -> true | nil, msg, status */
int lrc_step(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    lw->L = L;
    lw->stepping = 1;
    rc_status s = rc_world_step(lw->w);
    lw->stepping = 0;
    lw->L = NULL;
    lrc_ctx_kill_all(L, lw);
    return lrc_push_done(L, s);
}

int lrc_time(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushnumber(L, rc_world_time(lw->w));
    return 1;
}

int lrc_step_count(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    lua_pushinteger(L, (lua_Integer)rc_world_step_count(lw->w));
    return 1;
}

int lrc_step_info(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_step_info in;
    rc_status s = rc_world_step_info(lw->w, &in);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_createtable(L, 0, 36);
    lrc_set_num(L, "t", in.t);
    lrc_set_int(L, "step", in.step);
    lrc_set_int(L, "iterations", in.iterations);
    lrc_set_int(L, "newton_fallback", in.newton_fallback);
    lrc_set_num(L, "residual", in.residual);
    lrc_set_bool(L, "converged", in.converged);
    lrc_set_int(L, "worst_contact", in.worst_contact);
    lrc_set_int(L, "ncontacts", in.ncontacts);
    lrc_set_int(L, "nactive", in.nactive);
    lrc_set_num(L, "E", in.E);
    lrc_set_num(L, "E_kin", in.E_kin);
    lrc_set_num(L, "E_pot", in.E_pot);
    lrc_set_num(L, "W_ext", in.W_ext);
    lrc_set_num(L, "W_N", in.W_N);
    lrc_set_num(L, "W_T", in.W_T);
    lrc_set_num(L, "W_theta", in.W_theta);
    lrc_set_num(L, "balance", in.balance);
    lrc_set_num(L, "W_ext_total", in.W_ext_total);
    lrc_set_num(L, "W_N_total", in.W_N_total);
    lrc_set_num(L, "W_T_total", in.W_T_total);
    lrc_set_num(L, "W_theta_total", in.W_theta_total);
    lrc_set_num(L, "max_contact_work", in.max_contact_work);
    lrc_set_num(L, "WT_max_pos", in.WT_max_pos);
    lrc_set_num(L, "WT_min_neg", in.WT_min_neg);
    lrc_set_num(L, "W_J", in.W_J);
    lrc_set_num(L, "W_damp", in.W_damp);
    lrc_set_num(L, "W_proj", in.W_proj);
    lrc_set_num(L, "W_J_total", in.W_J_total);
    lrc_set_num(L, "W_damp_total", in.W_damp_total);
    lrc_set_num(L, "W_proj_total", in.W_proj_total);
    lrc_set_num(L, "W_motor", in.W_motor);
    lrc_set_num(L, "W_motor_total", in.W_motor_total);
    lrc_set_num(L, "E_proj", in.E_proj);
    lrc_set_num(L, "E_proj_total", in.E_proj_total);
    lrc_set_num(L, "persist_band", in.persist_band);
    lrc_set_num(L, "E_spring", in.E_spring);
    lrc_set_num(L, "E_elastic", in.E_elastic);
    lrc_set_num(L, "joint_pos_violation", in.joint_pos_violation);
    lrc_set_num(L, "joint_vel_violation", in.joint_vel_violation);
    lrc_set_num(L, "E_sleep", in.E_sleep);   /* (sleeping: docs/sleeping.md) */
    lrc_set_num(L, "E_sleep_total", in.E_sleep_total);
    rc_sim_def sd;
    if (rc_world_get_sim_def(lw->w, &sd) == RC_OK && sd.project_contacts) {   /* project_contacts only */
        lrc_set_num(L, "W_proj_contacts", in.W_proj_contacts);
        lrc_set_int(L, "proj_sweeps", in.proj_sweeps);
        lrc_set_num(L, "proj_overlap", in.proj_overlap);
    }
    return 1;
}

int lrc_energy(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    double k, p;
    rc_status s = rc_world_energy(lw->w, &k, &p);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_pushnumber(L, k);
    lua_pushnumber(L, p);
    return 2;
}

int lrc_run_stats(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_run_stats st;
    rc_status s = rc_world_run_stats(lw->w, &st);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lua_createtable(L, 0, 23);
    lrc_set_int(L, "steps", st.steps);
    lrc_set_int(L, "max_iterations", st.max_iterations);
    lrc_set_num(L, "max_residual", st.max_residual);
    lrc_set_int(L, "failures", st.failures);
    lrc_set_int(L, "newton_fallbacks", st.newton_fallbacks);
    lrc_set_num(L, "max_abs_balance", st.max_abs_balance);
    lrc_set_num(L, "max_contact_work", st.max_contact_work);
    lrc_set_num(L, "t_max_contact_work", st.t_max_contact_work);
    lrc_set_int(L, "positive_work_events", st.positive_work_events);
    lrc_set_int(L, "contact_max_contact_work", st.contact_max_contact_work);
    lrc_set_num(L, "max_energy_increase", st.max_energy_increase);
    lrc_set_num(L, "t_max_energy_increase", st.t_max_energy_increase);
    lrc_set_int(L, "local_solves", st.local_solves);
    lrc_set_int(L, "parallel_steps", st.parallel_steps);
    lrc_set_num(L, "solver_cpu_s", st.solver_cpu_s);
    lrc_set_num(L, "sweep_wall_s", st.sweep_wall_s);
    lrc_set_int(L, "sweep_solves", st.sweep_solves);
    lrc_set_int(L, "memory_bytes", (lua_Integer)st.memory_bytes);
    lrc_set_int(L, "work_peak_bytes", (lua_Integer)st.work_peak_bytes);
    lrc_set_num(L, "max_joint_pos_violation", st.max_joint_pos_violation);
    lrc_set_num(L, "max_joint_vel_violation", st.max_joint_vel_violation);
    lrc_set_num(L, "max_overlap", st.max_overlap);
    lrc_set_num(L, "t_max_overlap", st.t_max_overlap);
    lrc_set_int(L, "step_max_overlap", st.step_max_overlap);
    lrc_set_int(L, "contact_max_overlap", st.contact_max_overlap);
    lrc_set_num(L, "max_WT_pos", st.max_WT_pos);
    lrc_set_num(L, "min_WT_neg", st.min_WT_neg);
    static const char *const stage[RC_STAGE_COUNT] = { "detect", "free_velocity", "index_set", "warm_start",
                                                       "solve", "update", "audit", "commit" };
    lua_createtable(L, 0, RC_STAGE_COUNT);   /* the stages' wall-clock seconds */
    for (int k = 0; k < RC_STAGE_COUNT; k++) lrc_set_num(L, stage[k], st.stage_wall_s[k]);
    lua_setfield(L, -2, "stage_wall_s");
    rc_sim_def sd;
    if (rc_world_get_sim_def(lw->w, &sd) == RC_OK && sd.project_contacts) {   /* project_contacts only */
        lrc_set_num(L, "max_proj_overlap", st.max_proj_overlap);
        lrc_set_int(L, "max_proj_sweeps", st.max_proj_sweeps);
        lrc_set_int(L, "proj_capped", st.proj_capped);
        lrc_set_num(L, "W_proj_contacts_total", st.W_proj_contacts_total);
        lrc_set_num(L, "max_W_proj_contacts", st.max_W_proj_contacts);
        lrc_set_num(L, "min_W_proj_contacts", st.min_W_proj_contacts);
        lrc_set_num(L, "max_W_proj_net", st.max_W_proj_net);
    }
    return 1;
}

/* ---------------------------------------------------------------- contacts */

void lrc_push_contact(lua_State *L, const rc_contact_info *c)
{
    lua_createtable(L, 0, 19);
    lrc_set_int(L, "id", c->id);
    lrc_set_int(L, "body_a", c->body_a);
    lrc_set_int(L, "body_b", c->body_b);
    lrc_set_int(L, "shape_a", c->shape_a);
    lrc_set_int(L, "shape_b", c->shape_b);
    lrc_set_int(L, "feature", c->feature);
    lrc_set_bool(L, "active", c->active);
    lrc_set_vec(L, "point", c->point, 2);
    lrc_set_vec(L, "normal", c->normal, 2);
    lrc_set_vec(L, "tangent", c->tangent, 2);
    lrc_set_num(L, "gN", c->gN);
    lrc_set_num(L, "uN", c->uN);
    lrc_set_num(L, "uT", c->uT);
    lrc_set_num(L, "pN", c->pN);
    lrc_set_num(L, "nu", c->nu);
    lrc_set_num(L, "pT", c->pT);
    lrc_set_num(L, "WN", c->WN);
    lrc_set_num(L, "WT", c->WT);
    lrc_set_int(L, "law", c->law);
}

int lrc_contacts(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int n = rc_contact_count(lw->w);
    lua_createtable(L, n > 0 ? n : 0, 0);
    for (int i = 0; i < n; i++) {
        rc_contact_info c;
        rc_status s = rc_contact_get(lw->w, i, &c);
        if (s != RC_OK) return lrc_push_fail(L, s);
        lrc_push_contact(L, &c);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

int lrc_named_contact_names(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
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
int lrc_named_contact(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    int i = (int)luaL_checkinteger(L, 2);
    rc_contact_info c;
    rc_status s = rc_named_contact_get(lw->w, i, &c);
    if (s != RC_OK) return lrc_push_fail(L, s);
    lrc_push_contact(L, &c);
    const char *name = rc_named_contact_name(lw->w, i);
    if (name) {
        lua_pushstring(L, name);
        lua_setfield(L, -2, "name");
    }
    return 1;
}

/* ---------------------------------------------------------------- output */

/* output_open(world, dir, every, scenario | nil, params_json | nil [, format]):
 * format "csv" (default) or "binary" */
int lrc_output_open(lua_State *L)
{
    static const char *const formats[] = { "csv", "binary", NULL };
    lrc_world *lw = lrc_check_idle(L, 1);
    rc_output_def def = rc_default_output_def();
    def.dir = luaL_checkstring(L, 2);
    lua_Integer every = luaL_optinteger(L, 3, def.every);
    if (every < 1 || every > 0x7fffffff) every = 0; /* rejected by the kernel */
    def.every = (int)every;
    def.scenario = luaL_optstring(L, 4, NULL);
    def.params_json = luaL_optstring(L, 5, NULL);
    def.format = luaL_checkoption(L, 6, "csv", formats) ? RC_HISTORY_BINARY : RC_HISTORY_CSV;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = rc_output_open(lw->w, &def);
    lrc_leave_kernel(L, lw, sv);
    return lrc_push_done(L, s);
}

/* checkpoint_save(world, path) / checkpoint_restore(world, path) -> true | nil, msg, status
 * (docs/checkpoint.md) */
int lrc_checkpoint_save(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    rc_status s = rc_sim_save(lw->w, luaL_checkstring(L, 2));
    return lrc_push_done(L, s);
}

int lrc_checkpoint_restore(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    lrc_saved sv = lrc_enter_kernel(lw, L);   /* (a version warning reaches the warning function) */
    rc_status s = rc_sim_restore(lw->w, luaL_checkstring(L, 2));
    lrc_leave_kernel(L, lw, sv);
    return lrc_push_done(L, s);
}

/* for lua_frames.c */
rc_world *rc__lua_idle_world(lua_State *L, int idx)
{
    return lrc_check_idle(L, idx)->w;
}

/* output_close(world [, status [, message [, exit_code]]]): "exited" (the
 * program is exiting) is allowed inside a force function too. */
int lrc_output_close(lua_State *L)
{
    const char *status = luaL_optstring(L, 2, "complete");
    int exiting = strcmp(status, "exited") == 0;
    lrc_world *lw = exiting ? lrc_check_open(L, 1) : lrc_check_idle(L, 1);
    const char *message = luaL_optstring(L, 3, NULL);
    lua_Integer c = lua_isinteger(L, 4) ? lua_tointeger(L, 4) : 0;
    int has_code = exiting && lua_isinteger(L, 4) && c >= INT_MIN && c <= INT_MAX;
    int code = has_code ? (int)c : 0;
    lrc_saved sv = lrc_enter_kernel(lw, L);
    rc_status s = has_code ? rc_output_close_exited(lw->w, code, message)
                           : rc_output_close(lw->w, status, message);
    lrc_leave_kernel(L, lw, sv);
    return lrc_push_done(L, s);
}

/* output_set_end_time(world, T) */
int lrc_output_set_end_time(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_status s = rc_output_set_end_time(lw->w, luaL_checknumber(L, 2));
    return lrc_push_done(L, s);
}

int lrc_output_is_open(lua_State *L)
{
    lrc_world *lw = lrc_check_lw(L, 1);
    lua_pushboolean(L, lw->w != NULL && rc_output_is_open(lw->w));
    return 1;
}

/* ---------------------------------------------------------------- VTK output */

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

/* vtk_open(dir [, level [, disk_segments [, disk_outlines]]]) -> writer | nil, msg, status */
int lrc_vtk_open(lua_State *L)
{
    rc_vtk_def def = rc_default_vtk_def();
    def.dir = luaL_checkstring(L, 1);
    lua_Integer level = luaL_optinteger(L, 2, def.level);
    lua_Integer segs = luaL_optinteger(L, 3, def.disk_segments);
    def.level = (level < -1 || level > 99) ? -1 : (int)level;              /* rejected by the kernel */
    def.disk_segments = (segs < 0 || segs > 0x7fffffff) ? 0 : (int)segs;  /* idem */
    def.disk_outlines = lua_toboolean(L, 4);
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
    if (s != RC_OK) return lrc_push_fail(L, s);
    return 1;
}

/* vtk_frame(writer, world) -> true | nil, msg, status */
int lrc_vtk_frame(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    lrc_world *lw = lrc_check_idle(L, 2);
    if (!v->vw) return luaL_error(L, "the VTK writer has been closed");
    rc_status s = rc_vtk_frame(v->vw, lw->w);
    return lrc_push_done(L, s);
}

/* vtk_mark(writer, status [, message]) -> true | nil, msg, status */
int lrc_vtk_mark(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    const char *status = luaL_checkstring(L, 2);
    const char *message = luaL_optstring(L, 3, NULL);
    if (!v->vw) return luaL_error(L, "the VTK writer has been closed");
    rc_status s = rc_vtk_mark(v->vw, status, message);
    return lrc_push_done(L, s);
}

/* vtk_frames(writer) -> number of frames written */
int lrc_vtk_frames(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    lua_pushinteger(L, (lua_Integer)rc_vtk_frame_count(v->vw));
    return 1;
}

/* vtk_close(writer) -> true | nil, msg, status (idempotent) */
int lrc_vtk_close(lua_State *L)
{
    lrc_vtk *v = check_vtk(L, 1);
    rc_vtk_writer *vw = v->vw;
    v->vw = NULL;
    rc_status s = rc_vtk_close(vw);
    return lrc_push_done(L, s);
}

/* ---------------------------------------------------------------- misc */

int lrc_request_interrupt(lua_State *L)
{
    (void)L;
    rc_request_interrupt();
    return 0;
}

int lrc_clear_interrupt(lua_State *L)
{
    (void)L;
    rc_clear_interrupt();
    return 0;
}

int lrc_interrupt_requested(lua_State *L)
{
    lua_pushboolean(L, rc_interrupt_requested());
    return 1;
}

/* explore(world, { random_guess, guess_scale, zero_guess, random_order, seed })
 * -> list of { pN, pT, uN, uT, point = {x, y}, normal, tangent, body_a, body_b, id },
 *    { iterations, residual, converged } | nil, msg, status */
int lrc_explore(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rc_explore_def d = rc_default_explore_def();
    lua_getfield(L, 2, "random_guess"); d.random_guess = lua_toboolean(L, -1); lua_pop(L, 1);
    lua_getfield(L, 2, "zero_guess"); d.zero_guess = lua_toboolean(L, -1); lua_pop(L, 1);
    lua_getfield(L, 2, "random_order"); d.random_order = lua_toboolean(L, -1); lua_pop(L, 1);
    lua_getfield(L, 2, "cyclic_order"); d.cyclic_order = lua_toboolean(L, -1); lua_pop(L, 1);
    d.guess_scale = lrc_field_num(L, 2, "guess_scale", 0.0);
    d.seed = (uint64_t)lrc_field_int(L, 2, "seed", 1);
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
        lrc_ctx_kill_all(L, lw);
        if (s != RC_OK) return lrc_push_fail(L, s);
        if (n > cap) { lua_pop(L, 1); cap = n; continue; }
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            rc_contact_info ci;
            rc_explore_contact(lw->w, i, &ci);
            lua_createtable(L, 0, 10);
            lrc_set_num(L, "pN", p[2 * i]);
            lrc_set_num(L, "pT", p[2 * i + 1]);
            lrc_set_num(L, "uN", ci.uN);
            lrc_set_num(L, "uT", ci.uT);
            lrc_set_vec(L, "point", ci.point, 2);
            lrc_set_vec(L, "normal", ci.normal, 2);
            lrc_set_vec(L, "tangent", ci.tangent, 2);
            lrc_set_int(L, "body_a", ci.body_a);
            lrc_set_int(L, "body_b", ci.body_b);
            lrc_set_int(L, "id", ci.id);
            lrc_set_bool(L, "active", ci.active);
            lrc_set_int(L, "law", ci.law);
            lua_rawseti(L, -2, i + 1);
        }
        int iters = 0, conv = 0;
        double res = 0.0;
        rc_explore_result(lw->w, &iters, &res, &conv);
        lua_createtable(L, 0, 3);
        lrc_set_int(L, "iterations", iters);
        lrc_set_num(L, "residual", res);
        lrc_set_bool(L, "converged", conv);
        return 2;
    }
}

int lrc_alloc_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rc_alloc_count());
    return 1;
}

int lrc_openmp(lua_State *L)
{
    lua_pushboolean(L, rc_openmp());
    return 1;
}

/* whether this state is a sandbox (rc_lua_open_sandboxed) */
int lrc_sandboxed(lua_State *L)
{
    lua_pushboolean(L, rc_lua_is_sandboxed(L));
    return 1;
}

/* wall-clock seconds (C11 timespec_get) */
int lrc_wall_time(lua_State *L)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) {
        lua_pushnumber(L, (lua_Number)time(NULL));
        return 1;
    }
    lua_pushnumber(L, (lua_Number)ts.tv_sec + 1e-9 * (lua_Number)ts.tv_nsec);
    return 1;
}
