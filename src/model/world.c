/* world.c -- the world: definitions' defaults, creation and destruction, the
 * parts upper layers attach, degrees of freedom, simulation settings, memory.
 * Bodies (body.c), shapes (shape.c), laws, rules and named contacts
 * (rules.c), the queries of the contacts of the state (contacts.c). */
#include "model/model.h"
#include "model/team.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---------------------------------------------------------------- defaults */

int rcm_team_min = 8192;   /* team.h: the stages' two threads, from this many items */

rc_world_def rc_default_world_def(void)
{
    rc_world_def d;
    memset(&d, 0, sizeof d);
    d.dim = 2;
    d.contact_margin = 0.01;
    d.default_e = 0.0;
    d.default_mu = 0.0;
    return d;
}

rc_body_def rc_default_body_def(void)
{
    rc_body_def d;
    memset(&d, 0, sizeof d);
    d.kind = RC_BODY_RIGID2D;
    d.mass = 1.0;
    d.inertia = 1.0;
    return d;
}

rc_shape_def rc_default_shape_def(void)
{
    rc_shape_def d;
    memset(&d, 0, sizeof d);
    d.type = RC_SHAPE_DISK;
    d.radius = 0.5;
    d.normal[1] = 1.0;
    return d;
}

rc_law_def rc_default_law_def(void)
{
    rc_law_def d;
    memset(&d, 0, sizeof d);
    d.type = RC_LAW_NEWTON_COULOMB;
    return d;
}

rc_contact_rule_def rc_default_contact_rule_def(void)
{
    rc_contact_rule_def d;
    memset(&d, 0, sizeof d);
    d.kind = RC_RULE_BODIES;
    d.law = 0;
    return d;
}

rc_sim_def rc_default_sim_def(void)
{
    rc_sim_def d;
    memset(&d, 0, sizeof d);
    d.scheme = RC_SCHEME_MOREAU_JEAN;
    d.theta = 0.5;
    d.h = 1e-3;
    d.activation = RC_ACTIVATE_ANTICIPATE;
    d.gamma = 0.5;
    d.persist_tol = 1e-9;
    d.solver.method = RC_SOLVER_NSGS;
    d.solver.relax = 1.0;
    d.solver.order = RC_ORDER_FIXED;
    d.solver.seed = 1;
    d.solver.check_every = 1;
    d.solver.tol = 1e-10;
    d.solver.max_iter = 1000;
    d.solver.on_fail = RC_ON_FAIL_WARN;
    d.solver.warm_start = 1;
    d.solver.local_tol = 0.0;
    d.solver.local_max_iter = 200;
    d.solver.threads = 1;
    d.solver.adaptive_threads = 1;
    d.solver.norm = RC_NORM_L2;
    d.solver.accelerate = 1;
    d.solver.formulation = RC_NEWTON_ALART_CURNIER;
    d.solver.fallback = 1;
    d.solver.linear = RC_NEWTON_LINEAR_AUTO;
    d.solver.residual = RC_RESIDUAL_PASS;
    d.solver.skip_quiet = 0.0;
    d.work_check = RC_WORK_RECORD;
    d.work_tol = 1e-12;
    d.joint_jacobian = RC_JOINT_JACOBIAN_AUTO;
    d.project_joints = 0;
    d.project_tol = 1e-12;
    d.project_max_iter = 50;
    d.project_contacts = 0;
    d.gen_alpha.rho_inf = 0.8;
    d.gen_alpha.max_iter = 50;
    return d;
}


/* ---------------------------------------------------------------- world */

static void default_warning(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "ricochet: warning: %s\n", msg);
}

void rcm_world_warn(rc_world *w, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (w->warn_fn) w->warn_fn(w->warn_user, buf);
}

void rc_world_set_warning_fn(rc_world *w, rc_warning_fn fn, void *user)
{
    if (!w) return;
    w->warn_fn = fn ? fn : default_warning;
    w->warn_user = fn ? user : NULL;
}

rc_status rc_world_def_check(const rc_world_def *def, const char *what)
{
    char got[2][RCB_SHOW_SIZE];
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_world_def_check: 'def' is NULL");
    if (!what) what = "world";
    const rc_world_def *d = def;
    if (d->dim != 2 && d->dim != 3)
        return rc_set_error(RC_ERR_ARG, "%s: 'dim' must be 2 or 3 (got %d)", what, d->dim);
    for (int i = 0; i < 3; i++) {
        if (!rcb_finite(d->gravity[i]))
            return rc_set_error(RC_ERR_ARG, "%s: 'gravity' must be finite", what);
        if (fabs(d->gravity[i]) > RC_MAX_GRAVITY)
            return rc_set_error(RC_ERR_ARG, "%s: 'gravity[%d]' = %s is beyond the limit of %g in magnitude "
                                "(velocities and energies would overflow)", what, i + 1, rcb_show(got[0], d->gravity[i]),
                                RC_MAX_GRAVITY);
    }
    if (!rcb_finite(d->contact_margin) || d->contact_margin < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'margin' must be >= 0 (got %s)", what, rcb_show(got[0], d->contact_margin));
    if (!rcb_finite(d->periodic_x[0]) || !rcb_finite(d->periodic_x[1])
        || (d->periodic_x[1] <= d->periodic_x[0] && (d->periodic_x[0] != 0.0 || d->periodic_x[1] != 0.0)))
        return rc_set_error(RC_ERR_ARG, "%s: 'periodic' must be {x0, x1} with x0 < x1 (got {%s, %s})", what,
                            rcb_show(got[0], d->periodic_x[0]), rcb_show(got[1], d->periodic_x[1]));
    rc_law_def ld = rc_default_law_def();
    ld.e = d->default_e;
    ld.mu = d->default_mu;
    char lwhat[160];
    snprintf(lwhat, sizeof lwhat, "%s: default law", what);
    return rcm_law_def_check(&ld, lwhat);
}

rc_status rc_world_create(const rc_world_def *def, rc_world **out)
{
    if (!out) return rc_set_error(RC_ERR_ARG, "rc_world_create: 'out' is NULL");
    *out = NULL;
    rc_world_def d = def ? *def : rc_default_world_def();
    RC_CHECK(rc_world_def_check(&d, "world"));
    rc_law_def ld = rc_default_law_def();
    ld.e = d.default_e;
    ld.mu = d.default_mu;

    rc_world *w = rcb_malloc(sizeof *w);
    if (!w) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    memset(w, 0, sizeof *w);
    w->def = d;
    w->warn_fn = default_warning;
    w->sim = rc_default_sim_def();
    w->info.worst_contact = -1;
    w->stats.contact_max_contact_work = -1;
    w->stats.contact_max_overlap = -1;
    int law0;
    rc_status s = rc_law_create(w, &ld, &law0);
    if (s != RC_OK) { rc_world_destroy(w); return s; }
    *out = w;
    return RC_OK;
}

void rc_world_destroy(rc_world *w)
{
    if (!w) return;
    for (int k = 0; k < RC_NPARTS; k++)   /* the history output first, then the solver's arrays */
        if (w->parts[k] && w->parts[k]->free) w->parts[k]->free(w);
    rcm_joints_free(w);
    rcm_linear_free(w);
    rcm_rigid3d_free(w);
    rcm_life_free(w);
    for (int i = 0; i < w->nbody_ext; i++) rcb_free(w->body_ext[i].name);
    for (int i = 0; i < w->nshapes; i++) {
        rcb_free(w->shapes[i].name);
        if (w->shapes[i].nvert > 0) rcb_free(w->shapes[i].vert);   /* polygons, removed ones too */
    }
    for (int i = 0; i < w->nlaws; i++) {
        if (w->laws[i].ops.destroy) w->laws[i].ops.destroy(w->laws[i].ops.user);
        rcb_free(w->laws[i].name);
    }
    for (int i = 0; i < w->nrules; i++) rcb_free(w->rules[i].name);
    for (int i = 0; i < w->nslots; i++) rcb_free(w->slots[i].name);
    rcb_free(w->bodies); rcb_free(w->body_ext); rcb_free(w->shapes); rcb_free(w->laws); rcb_free(w->rules);
    rcb_free(w->slots); rcb_free(w->mass_diag); rcb_free(w->q); rcb_free(w->v);
    rcb_free(w->V); rcb_arena_free(&w->work);
    rcb_free(w->contacts); rcb_free(w->rec); rcb_free(w->geom); rcb_free(w->rec_state);
    rcb_free(w);
}

void rcm_world_attach_part(rc_world *w, int slot, const rc_part *part)
{
    w->parts[slot] = part;
}

rc_status rcm_world_after_step(rc_world *w)
{
    for (int k = 0; k < RC_NPARTS; k++)
        if (w->parts[k] && w->parts[k]->after_step) RC_CHECK(w->parts[k]->after_step(w));
    return RC_OK;
}

/* Whether a step keeps copies of q_k and v_k (w->q0, w->v0): when something
 * after the update may fail and must leave the state as it was (joint
 * projection, a law's update, work_check "error") or reads them (joints,
 * linear bodies). Otherwise the update overwrites q and v in place. */
int rcm_world_keeps_state(const rc_world *w)
{
    if (w->njoints || w->nlinears || w->nrigid3d || w->sim.work_check == RC_WORK_ERROR) return 1;
    for (int i = 0; i < w->nlaws; i++)
        if (w->laws[i].ops.update) return 1;
    return 0;
}

/* Room for nq more coordinates and nv more velocities in q, v and mass_diag
 * (grown geometrically: adding N bodies one by one costs O(N), not O(N^2)). */
rc_status rcm_world_grow_dofs(rc_world *w, int nq, int nv)
{
    RC_CHECK(rcb_reserve((void **)&w->q, &w->cap_q, w->nq + nq, sizeof(double)));
    int c = w->cap_v;
    RC_CHECK(rcb_reserve((void **)&w->v, &c, w->nv + nv, sizeof(double)));
    return rcb_reserve((void **)&w->mass_diag, &w->cap_v, w->nv + nv, sizeof(double));
}

/* V, sized by the dofs: grown when bodies are added (kept between steps). */
rc_status rcm_world_reserve_dofs(rc_world *w)
{
    int n = w->nq > w->nv ? w->nq : w->nv;
    if (n < 8) n = 8;
    return rcb_reserve((void **)&w->V, &w->cap_dof, n, sizeof(double));
}

static rc_status work_dofs(rc_world *w, double **arr, int n, const char *what)
{
    return rcb_arena_array(&w->work, (void **)arr, n, sizeof(double), what);
}

/* The step's dof-sized work arrays, only those the step uses: q0, v0
 * (rcm_world_keeps_state), the forces f (rcm_world_has_forces), the Uzawa
 * solver's scratch velocity, the joints' q* and per-body scratch, the state
 * before a start's assembly. A pile of plain grains under NSGS needs none. */
rc_status rcm_world_work_begin(rc_world *w)
{
    RC_CHECK(rcb_arena_reset(&w->work));
    w->q0 = w->v0 = w->f = w->vfree = w->uz_y = w->qstar = w->qpre = w->vpre = w->ebody = NULL;
    w->comp = NULL; w->active = NULL; w->aux = NULL;
    w->sweep = w->colour = w->colour_start = w->body_top = NULL;
    w->sort_items = NULL; w->body_colours = NULL;
    w->hot = NULL; w->hot_r2 = w->hot_mk = NULL; w->cap_hot = 0;
    if (!w->configured) return RC_OK;
    RC_CHECK(rcm_world_reserve_dofs(w));
    const int n = w->nq > w->nv ? w->nq : w->nv;
    if (rcm_world_keeps_state(w)) {
        RC_CHECK(work_dofs(w, &w->q0, n, "q_k"));
        RC_CHECK(work_dofs(w, &w->v0, n, "v_k"));
    }
    if (rcm_world_has_forces(w)) RC_CHECK(work_dofs(w, &w->f, n, "forces"));
    if (w->sim.solver.method == RC_SOLVER_UZAWA) RC_CHECK(work_dofs(w, &w->vfree, n, "Uzawa velocity"));
    if (!w->njoints) return RC_OK;
    RC_CHECK(work_dofs(w, &w->qstar, n, "joints' q*"));   /* q* of the joints' rows */
    if (w->joints_fresh) {   /* the state before a start's assembly */
        RC_CHECK(work_dofs(w, &w->qpre, n, "state before assembly"));
        RC_CHECK(work_dofs(w, &w->vpre, n, "state before assembly"));
    }
    RC_CHECK(work_dofs(w, &w->ebody, w->nbodies, "per-body scratch"));
    return rcb_arena_array(&w->work, (void **)&w->comp, w->nbodies, sizeof(int), "per-body scratch");
}

/* The model's arrays grow by half while bodies and shapes are added; the
 * first step after that gives their unused tails back (one reallocation
 * each; none in steady state). */
void rcm_world_trim_model(rc_world *w)
{
    rcb_trim((void **)&w->bodies, &w->cap_bodies, w->nbodies, sizeof(rc_body));
    rcb_trim((void **)&w->body_ext, &w->cap_body_ext, w->nbody_ext, sizeof(rc_body_ext));
    rcb_trim((void **)&w->shapes, &w->cap_shapes, w->nshapes, sizeof(rc_shape));
}

/* ---------------------------------------------------------------- simulation */

/* The solver's settings; sv: the messages' prefix. */
static rc_status check_solver(const rc_solver_def *d, const char *sv)
{
    char got[RCB_SHOW_SIZE];
    if (d->method != RC_SOLVER_NSGS && d->method != RC_SOLVER_UZAWA && d->method != RC_SOLVER_NEWTON
        && d->method != RC_SOLVER_APGD)
        return rc_set_error(RC_ERR_ARG, "%s: unknown method %d", sv, (int)d->method);
    if (!rcb_finite(d->relax) || d->relax <= 0.0 || d->relax >= 2.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'relax' must be in (0, 2) (got %s)", sv, rcb_show(got, d->relax));
    if (d->threads < 1)
        return rc_set_error(RC_ERR_ARG, "%s: 'threads' must be >= 1 (got %d)", sv, d->threads);
    if (!rcb_finite(d->skip_quiet) || d->skip_quiet < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'skip_quiet' must be >= 0 (got %s)", sv, rcb_show(got, d->skip_quiet));
    if (d->skip_quiet > 0.0 && d->method != RC_SOLVER_NSGS)
        return rc_set_error(RC_ERR_ARG, "%s: 'skip_quiet' is an option of the nsgs solver", sv);
    if (d->method == RC_SOLVER_UZAWA && d->accelerate && d->relax > 1.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'relax' must be <= 1 for the accelerated Uzawa (got %s; accelerate = false for the plain one)",
                            sv, rcb_show(got, d->relax));
    if (d->norm != RC_NORM_L2 && d->norm != RC_NORM_MAX && d->norm != RC_NORM_SICONOS)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'norm' %d", sv, (int)d->norm);
    if (d->order != RC_ORDER_FIXED && d->order != RC_ORDER_RANDOM
        && d->order != RC_ORDER_POSITION && d->order != RC_ORDER_COLOUR && d->order != RC_ORDER_TOP
        && d->order != RC_ORDER_SLABS)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'order' %d", sv, (int)d->order);
    if (d->threads > 1 && d->order != RC_ORDER_COLOUR && d->order != RC_ORDER_SLABS)
        return rc_set_error(RC_ERR_ARG, "%s: 'threads' = %d needs order = \"colour\" or \"slabs\" (the %s order is sequential)",
                            sv, d->threads, d->order == RC_ORDER_RANDOM ? "random"
                            : d->order == RC_ORDER_POSITION ? "position" : d->order == RC_ORDER_TOP ? "top" : "fixed");
    if (d->threads > 1 && d->method != RC_SOLVER_NSGS)
        return rc_set_error(RC_ERR_ARG, "%s: 'threads' = %d needs the \"nsgs\" solver (the others run on one thread)",
                            sv, d->threads);
    if (d->check_every < 1)
        return rc_set_error(RC_ERR_ARG, "%s: 'check_every' must be >= 1 (got %d)", sv, d->check_every);
    if (d->residual != RC_RESIDUAL_PASS && d->residual != RC_RESIDUAL_SWEEP)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'residual' %d", sv, (int)d->residual);
    if (d->anderson < 0 || d->anderson > 10)
        return rc_set_error(RC_ERR_ARG, "%s: Anderson 'depth' must be in 1..10 (got %d)", sv, d->anderson);
    if (d->anderson && (d->method != RC_SOLVER_NSGS || d->threads > 1 || d->order == RC_ORDER_RANDOM))
        return rc_set_error(RC_ERR_ARG, "%s: Anderson acceleration is for the \"nsgs\" solver on one thread "
                            "with order fixed, position or colour", sv);
    if (!rcb_finite(d->tol) || d->tol <= 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'tol' must be > 0 (got %s)", sv, rcb_show(got, d->tol));
    if (d->max_iter < 1)
        return rc_set_error(RC_ERR_ARG, "%s: 'max_iter' must be >= 1 (got %d)", sv, d->max_iter);
    if (d->on_fail != RC_ON_FAIL_WARN && d->on_fail != RC_ON_FAIL_ERROR)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'on_fail' %d", sv, (int)d->on_fail);
    if (!rcb_finite(d->local_tol) || d->local_tol < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'local_tol' must be >= 0 (got %s)", sv, rcb_show(got, d->local_tol));
    if (d->local_max_iter < 1)
        return rc_set_error(RC_ERR_ARG, "%s: 'local_max_iter' must be >= 1 (got %d)", sv, d->local_max_iter);
    if (d->formulation != RC_NEWTON_ALART_CURNIER && d->formulation != RC_NEWTON_FISCHER_BURMEISTER)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'formulation' %d", sv, (int)d->formulation);
    if (d->linear != RC_NEWTON_LINEAR_AUTO && d->linear != RC_NEWTON_LINEAR_DENSE && d->linear != RC_NEWTON_LINEAR_ITERATIVE
        && d->linear != RC_NEWTON_LINEAR_SPARSE)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'linear' %d", sv, (int)d->linear);
    return RC_OK;
}

/* The step's settings every scheme shares (theta, h, ...); sw: the messages' prefix. */
static rc_status check_step_settings(const rc_sim_def *def, const char *sw)
{
    char got[RCB_SHOW_SIZE];
    if (!rcb_finite(def->theta) || def->theta < 0.0 || def->theta > 1.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'theta' must be in [0, 1] (got %s)", sw, rcb_show(got, def->theta));
    if (!rcb_finite(def->h) || def->h <= 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'h' must be > 0 (got %s)", sw, rcb_show(got, def->h));
    if (def->h < RC_MIN_H)
        return rc_set_error(RC_ERR_ARG, "%s: 'h' = %s is below the limit of %g (runs would not end; "
                            "forces = impulses / h would overflow)", sw, rcb_show(got, def->h), RC_MIN_H);
    if (def->h > RC_MAX_H)
        return rc_set_error(RC_ERR_ARG, "%s: 'h' = %s is above the limit of %g (positions and velocities "
                            "would overflow)", sw, rcb_show(got, def->h), RC_MAX_H);
    if (def->activation != RC_ACTIVATE_GAP && def->activation != RC_ACTIVATE_ANTICIPATE)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'activation' %d", sw, (int)def->activation);
    if (!rcb_finite(def->gamma) || def->gamma < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'gamma' must be >= 0 (got %s)", sw, rcb_show(got, def->gamma));
    if (!rcb_finite(def->persist_tol) || def->persist_tol < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'persist_tol' must be >= 0 (got %s)", sw, rcb_show(got, def->persist_tol));
    if (def->work_check != RC_WORK_RECORD && def->work_check != RC_WORK_WARN && def->work_check != RC_WORK_ERROR)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'work_check' %d", sw, (int)def->work_check);
    if (!rcb_finite(def->work_tol) || def->work_tol < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'work_tol' must be >= 0 (got %s)", sw, rcb_show(got, def->work_tol));
    if (def->joint_jacobian < RC_JOINT_JACOBIAN_AUTO || def->joint_jacobian > RC_JOINT_JACOBIAN_END)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'joint_jacobian' %d", sw, (int)def->joint_jacobian);
    if (!rcb_finite(def->project_tol) || def->project_tol <= 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'project_tol' must be > 0 (got %s)", sw, rcb_show(got, def->project_tol));
    if (def->project_max_iter < 1)
        return rc_set_error(RC_ERR_ARG, "%s: 'project_max_iter' must be >= 1 (got %d)", sw, def->project_max_iter);
    if (def->project_contacts != 0 && def->project_contacts != 1)
        return rc_set_error(RC_ERR_ARG, "%s: 'project_contacts' must be 0 or 1 (got %d)", sw, def->project_contacts);
    if (def->project_contacts && def->scheme != RC_SCHEME_MOREAU_JEAN && def->scheme != RC_SCHEME_MOREAU_JEAN_FREMOND)
        return rc_set_error(RC_ERR_ARG, "%s: 'project_contacts' is an option of scheme = \"moreau-jean\" or "
                            "\"moreau-jean-fremond\" (scheme is %s)", sw,
                            def->scheme == RC_SCHEME_MAURY ? "\"maury\"" : def->scheme == RC_SCHEME_GEN_ALPHA ? "\"gen-alpha\"" : "another");
    return RC_OK;
}

/* The settings every scheme shares (rc_sim_def_check, integrate/configure.c,
 * adds the scheme's own): the step's with the prefix sw, the solver's with sv. */
rc_status rcm_sim_check_shared(const rc_sim_def *def, const char *sw, const char *sv)
{
    RC_CHECK(check_step_settings(def, sw));
    /* gen-alpha solves its step with its own semismooth Newton (Alart--Curnier-type active
     * sets, eq. 38): "newton" names it, but not the Fischer--Burmeister variant */
    if (def->solver.method == RC_SOLVER_NEWTON && def->scheme == RC_SCHEME_GEN_ALPHA
        && def->solver.formulation == RC_NEWTON_FISCHER_BURMEISTER)
        return rc_set_error(RC_ERR_ARG, "%s: gen-alpha's Newton uses the active sets of eq. (38); "
                            "formulation \"fischer-burmeister\" is for moreau-jean, moreau-jean-fremond and maury", sv);
    return check_solver(&def->solver, sv);
}

/* Apply checked settings (rc_world_configure, integrate/configure.c). */
rc_status rcm_world_configure(rc_world *w, const rc_sim_def *def)
{
    if (def->solver.threads > 1 && !rc_openmp())
        rcm_world_warn(w, "solver: 'threads' = %d but this build has no OpenMP: the coloured sweeps run on one thread (same results)",
                      def->solver.threads);
    if (!w->configured || def->h != w->sim.h) {   /* t = t_origin + k h from here on */
        w->t_origin = w->t;
        w->t_steps = 0;
    }
    w->sim = *def;
    w->persist_band = 0.0;   /* from the next accepted step, with these settings */
    w->configured = 1;
    return RC_OK;
}

rc_status rc_world_get_sim_def(const rc_world *w, rc_sim_def *def)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_world_get_sim_def: NULL argument");
    *def = w->sim;
    return RC_OK;
}

rc_status rc_world_get_def(const rc_world *w, rc_world_def *def)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_world_get_def: NULL argument");
    *def = w->def;
    return RC_OK;
}

double rc_world_time(const rc_world *w) { return w ? w->t : 0.0; }
long rc_world_step_count(const rc_world *w) { return w ? w->step : 0; }

rc_status rc_world_step_info(const rc_world *w, rc_step_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_world_step_info: NULL argument");
    *info = w->info;
    return RC_OK;
}

static size_t name_bytes(const char *s) { return s ? strlen(s) + 1 : 0; }

/* Heap held by the world: capacities of its arrays, names. */
static size_t memory(const rc_world *w)
{
    size_t m = sizeof *w;
    m += (size_t)w->cap_bodies * sizeof(rc_body) + (size_t)w->cap_body_ext * sizeof(rc_body_ext);
    m += (size_t)w->cap_shapes * sizeof(rc_shape);
    m += (size_t)w->cap_laws * sizeof(rc_law) + (size_t)w->cap_rules * sizeof(rc_rule);
    m += (size_t)w->cap_slots * sizeof(rc_slot) + (size_t)w->cap_joints * sizeof(rc_joint);
    m += (size_t)w->cap_springs * sizeof(rc_spring);
    for (int i = 0; i < w->nshapes; i++)   /* polygon blocks: 3 nvert + 2 points */
        if (w->shapes[i].nvert) m += ((size_t)6 * w->shapes[i].nvert + 4) * sizeof(double);
    m += (size_t)(w->nq + 2 * w->nv) * sizeof(double);                  /* q, v, mass diagonal */
    m += (size_t)w->cap_dof * sizeof(double) + rcb_arena_memory(&w->work);
    m += (size_t)w->cap_contacts * sizeof(rc_contact);
    m += (size_t)w->cap_rec * sizeof(rc_contact_rec) + (size_t)w->cap_rec_state * sizeof(double);
    m += (size_t)w->cap_geom * sizeof(rc_contact_geom);
    for (int k = 0; k < RC_NPARTS; k++)   /* the solver's sweep orders (nsgs.c) */
        if (w->parts[k] && w->parts[k]->memory) m += w->parts[k]->memory(w);
    m += (size_t)w->cap_linears * sizeof(rc_linear) + (size_t)w->cap_gaps * sizeof(rc_gap);
    m += (size_t)w->cap_rigid3d * sizeof(rcm_rigid3d);
    if (w->c3)   /* a dim = 3 world's shapes and contacts (not the 3D broad phase's grid) */
        m += sizeof(rcm_c3) + (size_t)w->c3->cap_shapes * sizeof(rcm_shape3) + (size_t)w->c3->cap_aabb * sizeof(double)
           + (size_t)w->c3->cap_c * sizeof(rcm_contact3) + (size_t)w->c3->cap_prev * sizeof(rcm_contact3_saved);
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        m += rcm_linear_store_size(L) * (1 + (L->K != NULL) + (L->C != NULL)) * sizeof(double) + 4 * (size_t)L->n * sizeof(double);
        m += rcm_linear_combo_size(L) * sizeof(double) + rcm_linear_memo_size(L->n) + rcm_linear_bc_memory(L->bc) + rcm_linear_rows_memory(L);
        if (L->nl) m += sizeof(rcm_nonlinear) + ((size_t)2 * L->n * L->n + L->n) * sizeof(double);   /* K_T, its Mhat's factor (nonlinear.c) */
    }
    for (int i = 0; i < w->ngaps; i++) {   /* idx, nrm, tng; MH, grad */
        const rc_gap *g = &w->gaps[i];
        m += (size_t)g->nnz * (sizeof(int) + 2 * sizeof(double)) + name_bytes(g->name);
        m += (size_t)2 * (w->bodies[g->body].nv + w->bodies[g->body].nq) * sizeof(double) + rcm_node_gap_memory(w, g);
    }
    for (int i = 0; i < w->nbody_ext; i++) m += name_bytes(w->body_ext[i].name);
    for (int i = 0; i < w->nshapes; i++) m += name_bytes(w->shapes[i].name);
    for (int i = 0; i < w->nlaws; i++) m += name_bytes(w->laws[i].name);
    for (int i = 0; i < w->nrules; i++) m += name_bytes(w->rules[i].name);
    for (int i = 0; i < w->nslots; i++) m += name_bytes(w->slots[i].name);
    for (int i = 0; i < w->njoints; i++) m += name_bytes(w->joints[i].name);
    for (int i = 0; i < w->nsprings; i++) m += name_bytes(w->springs[i].name);
    return m;   /* not the history output's buffers (rc_output_open; zlib's stream: about 0.45 MB) */
}

rc_status rc_world_run_stats(const rc_world *w, rc_run_stats *stats)
{
    if (!w || !stats) return rc_set_error(RC_ERR_ARG, "rc_world_run_stats: NULL argument");
    *stats = w->stats;
    stats->memory_bytes = memory(w);
    stats->work_peak_bytes = rcb_arena_top(&w->work);
    return RC_OK;
}

rc_status rc_world_energy(const rc_world *w, double *E_kin, double *E_pot)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_energy: NULL world");
    double k, p;
    rcm_energy(w, w->q, w->v, &k, &p, NULL);
    if (E_kin) *E_kin = k;
    if (E_pot) *E_pot = p;
    return RC_OK;
}
