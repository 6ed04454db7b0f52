/*
 * lua/lrc.h -- what the files of ricochet.core (the C half of the Lua
 * binding) share; not public, not for other folders. The binding is a client
 * of ricochet.h only. Files: lua_ricochet.c (overview, the function tables,
 * luaopen), lrc_common.c (argument and field helpers, kernel calls,
 * callbacks), lrc_model.c (world, bodies, shapes, built-in laws),
 * lrc_laws.c (laws written in Lua, custom laws, rules), lrc_mechanisms.c
 * (joints, springs, linear bodies, gaps), lrc_sim.c (simulation, contacts,
 * output, VTK, misc), lrc_sim_def.c (the simulation's settings: reader,
 * defaults), lrc_defs.c (the definitions' defaults and range checks, read
 * from the kernel).
 */
#ifndef RC_LRC_H
#define RC_LRC_H

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

/* Kernel calls that may run Lua callbacks (joints, gaps: possibly also at
 * creation, configuration or output time, not only in rc_world_step): the
 * calling thread becomes lw->L and the world counts as stepping, so that
 * the callbacks cannot change it structurally. */
typedef struct lrc_saved {
    lua_State *L;
    int stepping;
} lrc_saved;

struct force_call {
    lrc_world *lw;
    int body, nq, nv;
    double t;
    const double *q, *v;
    double *f;
};

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
    /* one local solve's calls under one protected call (lrc_laws.c, "run") */
    int run_ref;            /* registry ref: the C closure that runs them (upvalues: LAW_UV_*) */
    lua_State *scope_L;     /* the thread running that closure now, or NULL */
    void *box;              /* its rc_lua_box (NULL: not opened by rc_lua_open) */
    int in_call;            /* a call of the law is running (for the error of an error) */
    const char *cur_what;   /* that call's function, contact and time */
    int cur_contact;
    double cur_t;
} lrc_law;

#define LRC_CTX_DEAD "ctx is only valid during the law's call"

struct law_call {
    lrc_law *law;
    int fn_ref, nargs, nres;
    const char *what;
    double args[9];         /* update of a law of dim 3: u, u_old, p */
    double res[3];
    const rc_law_ctx *ctx;
    double *state;          /* read into ctx.state; written back after update */
    int write_state;
};

/* (only t, h, theta and unknown are stored; the others come from ctx_index) */
enum { NLAW_KEYS = 10, KEY_END = NLAW_KEYS + 1, KEY_THETA = NLAW_KEYS + 2, KEY_STATE0 = NLAW_KEYS + 3 };

/* A law under construction is owned by a guard userdata on the stack until
 * the kernel takes it: any error raised meanwhile (a field of the wrong
 * type, out of memory) frees it when the guard is collected. */
#define LRC_LAW_GUARD "ricochet.core.law_guard"

typedef struct lrc_law_guard {
    lrc_law *law;
} lrc_law_guard;

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

#define LRC_MAX_LINEAR_N 46340  /* n * n fits an int */

#define LRC_VTK "ricochet.core.vtk"

typedef struct lrc_vtk {
    rc_vtk_writer *vw;      /* NULL once closed */
} lrc_vtk;

/* lrc_common.c */
lrc_world *lrc_check_lw(lua_State *L, int idx);
lrc_world *lrc_check_open(lua_State *L, int idx);
lrc_world *lrc_check_idle(lua_State *L, int idx);
lrc_saved lrc_enter_kernel(lrc_world *lw, lua_State *L);
void lrc_leave_kernel(lua_State *L, lrc_world *lw, lrc_saved sv);
int lrc_check_body_id(lua_State *L, int idx);
int lrc_push_fail(lua_State *L, rc_status s);
/* true when s is RC_OK, else as lrc_push_fail */
int lrc_push_done(lua_State *L, rc_status s);
double *lrc_scratch(lua_State *L, int n);
void lrc_read_vec(lua_State *L, int idx, double *x, int n, const char *what);
void lrc_field_vec(lua_State *L, int t, const char *key, double *x, int n);
double lrc_field_num(lua_State *L, int t, const char *key, double dflt);
lua_Integer lrc_field_int(lua_State *L, int t, const char *key, lua_Integer dflt);
const char *lrc_field_str(lua_State *L, int t, const char *key);
void lrc_set_num(lua_State *L, const char *key, double x);
void lrc_set_int(lua_State *L, const char *key, lua_Integer x);
void lrc_set_bool(lua_State *L, const char *key, int x);
void lrc_push_vec(lua_State *L, const double *x, int n);
void lrc_set_vec(lua_State *L, const char *key, const double *x, int n);
void lrc_warning_cb(void *user, const char *message);
rc_status lrc_force_cb(void *user, int body, double t, const double *q, const double *v, double *f);

/* lrc_model.c */
int lrc_world_new(lua_State *L);
int lrc_world_gc(lua_State *L);
int lrc_world_close(lua_State *L);
int lrc_world_tbc(lua_State *L);
int lrc_is_open(lua_State *L);
int lrc_is_world(lua_State *L);
int lrc_is_stepping(lua_State *L);
int lrc_warnings(lua_State *L);
int lrc_body_create(lua_State *L);
int lrc_body3d_create(lua_State *L);   /* lrc_body3d.c */
int lrc_body3d_mass(lua_State *L);
int lrc_solid_mass(lua_State *L);
int lrc_polyhedron_mass(lua_State *L);
int lrc_shape3_create(lua_State *L);   /* lrc_body3d.c */
int lrc_joint3_create(lua_State *L);   /* lrc_joint3.c */
int lrc_joint3_get(lua_State *L);
int lrc_joint3_set_motor(lua_State *L);
int lrc_contacts3(lua_State *L);
int lrc_body_count(lua_State *L);
int lrc_body_state(lua_State *L);
int lrc_remove(lua_State *L);          /* lrc_remove.c */
int lrc_is_removed(lua_State *L);
int lrc_body_generation(lua_State *L);
int lrc_removed_energy(lua_State *L);
int lrc_body_life(lua_State *L);
int lrc_link_removal(lua_State *L);
int lrc_broken_joints(lua_State *L);
int lrc_set_sleep(lua_State *L);       /* lrc_sleep.c */
int lrc_body_wake(lua_State *L);
int lrc_body_sleeping(lua_State *L);
int lrc_sleep_info(lua_State *L);
int lrc_body_nq(lua_State *L);
int lrc_body_set_state(lua_State *L);
int lrc_body_set_force(lua_State *L);
int lrc_body_force(lua_State *L);
int lrc_body_set_force_fn(lua_State *L);
int lrc_body_mass(lua_State *L);
int lrc_shape_create(lua_State *L);
int lrc_shape_count(lua_State *L);
int lrc_shape_def(lua_State *L);
int lrc_law_create(lua_State *L);

/* lrc_laws.c */
void lrc_ctx_kill_all(lua_State *L, lrc_world *lw);
int lrc_law_guard_gc(lua_State *L);
int lrc_law_create_custom(lua_State *L);
int lrc_law_set(lua_State *L);
int lrc_set_default_law(lua_State *L);
int lrc_law_def(lua_State *L);
int lrc_contact_rule(lua_State *L);

/* lrc_mechanisms.c */
int lrc_joint_create(lua_State *L);
int lrc_joint_count(lua_State *L);
int lrc_joint_name(lua_State *L);
int lrc_joint_info(lua_State *L);
int lrc_joint_set_motor(lua_State *L);
int lrc_joint_set_limits(lua_State *L);
int lrc_spring_create(lua_State *L);
int lrc_linear_create(lua_State *L);
int lrc_linear_energy(lua_State *L);
int lrc_gap_create(lua_State *L);
int lrc_fem_create(lua_State *L);
int lrc_beam_create(lua_State *L);   /* lrc_beam.c */
int lrc_beam_point(lua_State *L);
int lrc_beam_energy(lua_State *L);
int lrc_beam_joint_create(lua_State *L);
int lrc_beam_joint_get(lua_State *L);
/* lrc_mechanisms.c: a Lua motion f, df (stack indices) as a kernel rc_motion_fn and its holder */
rc_motion_fn lrc_motion_holder(lua_State *L, lrc_world *lw, int i_f, int i_df, const char *label, void **user);
void lrc_motion_drop(lua_State *L, void *user);
int lrc_node_contact_create(lua_State *L);     /* lrc_fem.c */
int lrc_fem_matrices(lua_State *L);
void lrc_fem_def_read(lua_State *L, int t, rc_fem_def *def);   /* lrc_fem.c */
int lrc_vtk_add_fem(lua_State *L);   /* lrc_vtk_fem.c */
int lrc_run_program(lua_State *L);   /* lrc_gmsh.c */
int lrc_fem_set_loads(lua_State *L);  /* lrc_fem_load.c */
int lrc_linear_prescribe(lua_State *L);      /* lrc_linear_bc.c */
int lrc_linear_prescribe_fn(lua_State *L);
int lrc_linear_release(lua_State *L);
int lrc_linear_reactions(lua_State *L);
int lrc_linear_solve_static(lua_State *L);

/* lrc_mechanisms.c */
void lrc_spring_def_read(lua_State *L, int t, rc_spring_def *def);
void lrc_joint_def_read(lua_State *L, int t, rc_joint_def *def);
void lrc_linear_def_read(lua_State *L, int t, rc_linear_def *def);

/* lrc_defs.c */
int lrc_defaults(lua_State *L);
int lrc_check_def(lua_State *L);
void lrc_law_def_read(lua_State *L, int t, rc_law_def *def);

/* lrc_model.c: a definition read from a Lua table (for creation and checks) */
void lrc_shape_def_read(lua_State *L, int t, rc_shape_def *def);
void lrc_world_def_read(lua_State *L, int t, rc_world_def *def);
void lrc_body_def_read(lua_State *L, int t, rc_body_def *def);
/* the radius of a segment without one (rc_default_shape_def's 0.5 is a disk's) */
#define LRC_SEGMENT_RADIUS 0.0

/* lrc_sim_def.c */
void lrc_sim_def_read(lua_State *L, int t, rc_sim_def *def);
void lrc_push_sim_defaults(lua_State *L);
int lrc_joint_jacobian(lua_State *L);

/* lrc_sim.c */
int lrc_configure(lua_State *L);
int lrc_sim_def(lua_State *L);
int lrc_step(lua_State *L);
int lrc_time(lua_State *L);
int lrc_step_count(lua_State *L);
int lrc_step_info(lua_State *L);
int lrc_energy(lua_State *L);
int lrc_run_stats(lua_State *L);
int lrc_contacts(lua_State *L);
int lrc_named_contact_names(lua_State *L);
int lrc_named_contact(lua_State *L);
int lrc_output_open(lua_State *L);
int lrc_checkpoint_save(lua_State *L);
int lrc_checkpoint_restore(lua_State *L);
int lrc_output_close(lua_State *L);
int lrc_output_set_end_time(lua_State *L);
int lrc_output_is_open(lua_State *L);
int lrc_vtk_open(lua_State *L);
int lrc_vtk_frame(lua_State *L);
int lrc_vtk_mark(lua_State *L);
int lrc_vtk_frames(lua_State *L);
int lrc_vtk_close(lua_State *L);
int lrc_request_interrupt(lua_State *L);
int lrc_clear_interrupt(lua_State *L);
int lrc_interrupt_requested(lua_State *L);
int lrc_explore(lua_State *L);
int lrc_alloc_count(lua_State *L);
int lrc_openmp(lua_State *L);
int lrc_sandboxed(lua_State *L);
int lrc_wall_time(lua_State *L);
void lrc_push_contact(lua_State *L, const rc_contact_info *c);   /* lrc_sim.c: one contact's table */
/* lrc_query.c */
int lrc_query_box(lua_State *L);
int lrc_query_point(lua_State *L);
int lrc_ray_cast(lua_State *L);
int lrc_disk_cast(lua_State *L);
int lrc_track_events(lua_State *L);
int lrc_events(lua_State *L);
/* lrc_progress.c */
int lrc_progress_begin(lua_State *L);
int lrc_progress_end(lua_State *L);
int lrc_progress(lua_State *L);
int lrc_stderr_is_tty(lua_State *L);

#endif /* RC_LRC_H */
