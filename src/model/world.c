/* world.c -- the model: world, bodies, shapes, laws, contact rules, named
 * contacts; and the read-only queries of the state. */
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---------------------------------------------------------------- defaults */

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
    d.work_check = RC_WORK_RECORD;
    d.work_tol = 1e-12;
    d.joint_jacobian = RC_JOINT_JACOBIAN_AUTO;
    d.project_joints = 0;
    d.project_tol = 1e-12;
    d.project_max_iter = 50;
    return d;
}

/* The default (no projection: the papers' schemes): Moreau--Jean imposes the
 * rows on v_{k+1}: the Jacobian at the predicted end of the step, q_k + h v_k
 * (eq. 50c of Bruls, Acary & Cardona 2014, explicit), where the leading
 * drift h^2 a (3/2 - s - theta) vanishes for theta = 1/2 and nearly for the
 * paper's 0.5556; from theta = 3/4 on the midpoint cancels more of it (all
 * of it at theta = 1, Maury's scheme included). Moreau--Jean--Fremond
 * imposes them on the velocity that moves the positions (v_{k+theta}): the
 * midpoint, where h^2 a (1/2 - s) vanishes. With the projection (an option),
 * q_k and v_k satisfy the rows at q_k (g = 0, H v = 0): the rows at q_k then
 * do no work (u_{k+theta}^T lambda = 0) and the projection removes the
 * drift; rows at a predicted q* would do (1 - theta) lambda^T H(q*) v_k =
 * O(h^2) of work per step (docs/theory/joints-and-linear-systems.md). */
rc_joint_jacobian rc_sim_joint_jacobian(const rc_sim_def *def)
{
    if (!def) return RC_JOINT_JACOBIAN_END;
    if (def->joint_jacobian != RC_JOINT_JACOBIAN_AUTO) return def->joint_jacobian;
    if (def->project_joints) return RC_JOINT_JACOBIAN_START;
    return def->scheme == RC_SCHEME_MOREAU_JEAN && def->theta < 0.75 ? RC_JOINT_JACOBIAN_END
                                                                    : RC_JOINT_JACOBIAN_MIDPOINT;
}

/* ---------------------------------------------------------------- world */

static void default_warning(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "ricochet: warning: %s\n", msg);
}

void rc_world_warn(rc_world *w, const char *fmt, ...)
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

static rc_status check_law_def(const rc_law_def *d, const char *what)
{
    if (d->type != RC_LAW_NEWTON_COULOMB && d->type != RC_LAW_MOREAU && d->type != RC_LAW_FREMOND)
        return rc_set_error(RC_ERR_ARG, "%s: unknown law type %d (custom laws: rc_law_create_custom)", what, (int)d->type);
    if (d->type == RC_LAW_MOREAU && (!rc_finite(d->e_t) || d->e_t < -1.0 || d->e_t > 1.0))
        return rc_set_error(RC_ERR_ARG, "%s: 'e_t' must be in [-1, 1] (got %g)", what, d->e_t);
    if (!rc_finite(d->e) || d->e < 0.0 || d->e > 1.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'e' must be in [0, 1] (got %g)", what, d->e);
    if (!rc_finite(d->mu) || d->mu < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'mu' must be >= 0 (got %g)", what, d->mu);
    return RC_OK;
}

rc_status rc_world_create(const rc_world_def *def, rc_world **out)
{
    if (!out) return rc_set_error(RC_ERR_ARG, "rc_world_create: 'out' is NULL");
    *out = NULL;
    rc_world_def d = def ? *def : rc_default_world_def();
    if (d.dim != 2)
        return rc_set_error(RC_ERR_ARG, "world: 'dim' must be 2 (got %d; 3 is not available yet)", d.dim);
    for (int i = 0; i < 3; i++) {
        if (!rc_finite(d.gravity[i]))
            return rc_set_error(RC_ERR_ARG, "world: 'gravity' must be finite");
        if (fabs(d.gravity[i]) > RC_MAX_GRAVITY)
            return rc_set_error(RC_ERR_ARG, "world: 'gravity[%d]' = %g is beyond the limit of %g in magnitude "
                                "(velocities and energies would overflow)", i + 1, d.gravity[i], RC_MAX_GRAVITY);
    }
    if (!rc_finite(d.contact_margin) || d.contact_margin < 0.0)
        return rc_set_error(RC_ERR_ARG, "world: 'margin' must be >= 0 (got %g)", d.contact_margin);
    if (!rc_finite(d.periodic_x[0]) || !rc_finite(d.periodic_x[1])
        || (d.periodic_x[1] <= d.periodic_x[0] && (d.periodic_x[0] != 0.0 || d.periodic_x[1] != 0.0)))
        return rc_set_error(RC_ERR_ARG, "world: 'periodic' must be {x0, x1} with x0 < x1, finite (got {%g, %g})",
                            d.periodic_x[0], d.periodic_x[1]);
    rc_law_def ld = rc_default_law_def();
    ld.e = d.default_e;
    ld.mu = d.default_mu;
    RC_CHECK(check_law_def(&ld, "world: default law"));

    rc_world *w = rc_malloc(sizeof *w);
    if (!w) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    memset(w, 0, sizeof *w);
    w->def = d;
    w->warn_fn = default_warning;
    w->sim = rc_default_sim_def();
    w->info.worst_contact = -1;
    w->stats.contact_max_contact_work = -1;
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
    rc_joints_free(w);
    rc_linear_free(w);
    for (int i = 0; i < w->nbody_ext; i++) rc_free(w->body_ext[i].name);
    for (int i = 0; i < w->nshapes; i++) {
        rc_free(w->shapes[i].name);
        if (w->shapes[i].type == RC_SHAPE_POLYGON) rc_free(w->shapes[i].vert);
    }
    for (int i = 0; i < w->nlaws; i++) {
        if (w->laws[i].ops.destroy) w->laws[i].ops.destroy(w->laws[i].ops.user);
        rc_free(w->laws[i].name);
    }
    for (int i = 0; i < w->nrules; i++) rc_free(w->rules[i].name);
    for (int i = 0; i < w->nslots; i++) rc_free(w->slots[i].name);
    rc_free(w->bodies); rc_free(w->body_ext); rc_free(w->shapes); rc_free(w->laws); rc_free(w->rules);
    rc_free(w->slots); rc_free(w->mass_diag); rc_free(w->q); rc_free(w->v);
    rc_free(w->q0); rc_free(w->v0); rc_free(w->f); rc_free(w->vfree); rc_free(w->V); rc_free(w->uz_y);
    rc_free(w->ebody); rc_free(w->comp); rc_free(w->qstar); rc_free(w->qpre); rc_free(w->vpre);
    rc_free(w->contacts); rc_free(w->aux); rc_free(w->rec); rc_free(w->rec_state); rc_free(w->active);
    rc_free(w->pairs); rc_free(w->order);
    rc_free(w);
}

void rc_world_attach_part(rc_world *w, int slot, const rc_part *part)
{
    w->parts[slot] = part;
}

rc_status rc_world_after_step(rc_world *w)
{
    for (int k = 0; k < RC_NPARTS; k++)
        if (w->parts[k] && w->parts[k]->after_step) RC_CHECK(w->parts[k]->after_step(w));
    return RC_OK;
}

/* Whether a step keeps copies of q_k and v_k (w->q0, w->v0): when something
 * after the update may fail and must leave the state as it was (joint
 * projection, a law's update, work_check "error") or reads them (joints,
 * linear bodies). Otherwise the update overwrites q and v in place. */
int rc_world_keeps_state(const rc_world *w)
{
    if (w->njoints || w->nlinears || w->sim.work_check == RC_WORK_ERROR) return 1;
    for (int i = 0; i < w->nlaws; i++)
        if (w->laws[i].ops.update) return 1;
    return 0;
}

/* Room for nq more coordinates and nv more velocities in q, v and mass_diag
 * (grown geometrically: adding N bodies one by one costs O(N), not O(N^2)). */
rc_status rc_world_grow_dofs(rc_world *w, int nq, int nv)
{
    RC_CHECK(rc_reserve((void **)&w->q, &w->cap_q, w->nq + nq, sizeof(double)));
    int c = w->cap_v;
    RC_CHECK(rc_reserve((void **)&w->v, &c, w->nv + nv, sizeof(double)));
    return rc_reserve((void **)&w->mass_diag, &w->cap_v, w->nv + nv, sizeof(double));
}

static rc_status reserve_dof_array(double **arr, int *cap, int n)
{
    return rc_reserve((void **)arr, cap, n, sizeof(double));
}

/* Work arrays sized by the number of dofs: V, grown when bodies are added;
 * the others, reserved at the start of a step, only when the step uses them:
 * q0, v0 (rc_world_keeps_state), the forces f (rc_world_has_forces), the
 * Uzawa solver's scratch velocity, the per-body scratch of joints. A pile of
 * plain grains under NSGS needs V only. */
rc_status rc_world_reserve_dofs(rc_world *w)
{
    int n = w->nq > w->nv ? w->nq : w->nv;
    if (n < 8) n = 8;
    RC_CHECK(reserve_dof_array(&w->V, &w->cap_dof, n));
    if (!w->configured) return RC_OK;   /* bodies being added: the rest at the first step */
    if (rc_world_keeps_state(w)) {
        int c = w->cap_state;
        RC_CHECK(reserve_dof_array(&w->q0, &c, n));
        RC_CHECK(reserve_dof_array(&w->v0, &w->cap_state, n));
    }
    if (rc_world_has_forces(w)) RC_CHECK(reserve_dof_array(&w->f, &w->cap_f, n));
    if (w->sim.solver.method == RC_SOLVER_UZAWA) RC_CHECK(reserve_dof_array(&w->vfree, &w->cap_scratch, n));
    if (w->njoints) RC_CHECK(reserve_dof_array(&w->qstar, &w->cap_qstar, n));   /* q* of the joints' rows */
    if (w->njoints && w->joints_fresh) {   /* the state before a start's assembly */
        int c = w->cap_pre;
        RC_CHECK(reserve_dof_array(&w->qpre, &c, n));
        RC_CHECK(reserve_dof_array(&w->vpre, &w->cap_pre, n));
    }
    if (w->njoints && (w->cap_body_scratch < w->nbodies || w->cap_body_scratch == 0)) {   /* per body: joints only */
        int n = w->nbodies < 8 ? 8 : w->nbodies;
        double *e = rc_realloc(w->ebody, (size_t)n * sizeof(double));
        if (!e) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        w->ebody = e;
        int *c = rc_realloc(w->comp, (size_t)n * sizeof(int));
        if (!c) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        w->comp = c;
        w->cap_body_scratch = n;
    }
    return RC_OK;
}

/* The model's arrays grow by half while bodies and shapes are added; the
 * first step after that gives their unused tails back (one reallocation
 * each; none in steady state). */
void rc_world_trim_model(rc_world *w)
{
    rc_trim((void **)&w->bodies, &w->cap_bodies, w->nbodies, sizeof(rc_body));
    rc_trim((void **)&w->body_ext, &w->cap_body_ext, w->nbody_ext, sizeof(rc_body_ext));
    rc_trim((void **)&w->shapes, &w->cap_shapes, w->nshapes, sizeof(rc_shape));
}

/* ---------------------------------------------------------------- bodies */

static int valid_body(const rc_world *w, int id) { return w && id >= 0 && id < w->nbodies; }

static rc_status check_vec(const double *x, int n, const char *what, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!rc_finite(x[i]))
            return rc_set_error(RC_ERR_ARG, "%s: '%s' component %d is not finite", what, name, i + 1);
    return RC_OK;
}

rc_status rc_body_create(rc_world *w, const rc_body_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_body_create: NULL argument");
    if (def->kind == RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_ARG, "body: linear bodies are created with rc_linear_create");
    if (def->kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "body: unknown 'kind' %d", (int)def->kind);
    if (!rc_finite(def->mass) || def->mass <= 0.0)
        return rc_set_error(RC_ERR_ARG, "body: 'mass' must be > 0 (got %g)", def->mass);
    if (!rc_finite(def->inertia) || def->inertia <= 0.0)
        return rc_set_error(RC_ERR_ARG, "body: 'inertia' must be > 0 (got %g)", def->inertia);
    if (!rc_finite(1.0 / def->mass))
        return rc_set_error(RC_ERR_ARG, "body: 'mass' = %g is too small: 1/mass is not a finite number", def->mass);
    if (!rc_finite(1.0 / def->inertia))
        return rc_set_error(RC_ERR_ARG, "body: 'inertia' = %g is too small: 1/inertia is not a finite number", def->inertia);
    RC_CHECK(check_vec(def->q, 3, "body", "q"));
    RC_CHECK(check_vec(def->v, 3, "body", "v"));
    RC_CHECK(check_vec(def->force, 3, "body", "force"));
    if (def->name) {
        if (!def->name[0]) return rc_set_error(RC_ERR_ARG, "body: 'name' must not be empty");
        int dup;
        if (rc_body_find(w, def->name, &dup) == RC_OK)
            return rc_set_error(RC_ERR_ARG, "body: 'name' \"%s\" is already used by body %d", def->name, dup);
    }
    RC_CHECK(rc_reserve((void **)&w->bodies, &w->cap_bodies, w->nbodies + 1, sizeof(rc_body)));
    int nq = 3, nv = 3;
    RC_CHECK(rc_world_grow_dofs(w, nq, nv));
    double *md = w->mass_diag;

    /* a name or a force (any bit set: -0.0 is kept too) needs the body's rc_body_ext */
    static const double zero3[3];
    const int ext = def->name || memcmp(def->force, zero3, sizeof zero3) != 0;
    rc_body *b = &w->bodies[w->nbodies];
    memset(b, 0, sizeof *b);
    b->ext = -1;
    if (ext) {
        RC_CHECK(rc_body_add_ext(w, w->nbodies));
        rc_body_ext *x = &w->body_ext[b->ext];
        x->name = rc_strdup(def->name);
        if (def->name && !x->name) {
            w->nbody_ext--;   /* the body is not created */
            return rc_set_error(RC_ERR_NOMEM, "out of memory");
        }
        memcpy(x->force, def->force, sizeof x->force);
    }
    b->kind = def->kind;
    b->iq = w->nq; b->iv = w->nv; b->nq = nq; b->nv = nv;
    b->linear = -1;
    b->inv_mass = 1.0 / def->mass; b->inv_inertia = 1.0 / def->inertia;
    memcpy(w->q + b->iq, def->q, 3 * sizeof(double));
    memcpy(w->v + b->iv, def->v, 3 * sizeof(double));
    md[b->iv] = md[b->iv + 1] = def->mass;
    md[b->iv + 2] = def->inertia;
    w->nq += nq; w->nv += nv;
    if (out_id) *out_id = w->nbodies;
    w->nbodies++;
    return rc_world_reserve_dofs(w);
}

int rc_body_count(const rc_world *w) { return w ? w->nbodies : 0; }

/* Body b's rc_body_ext, zero (no name, no force, no function), appended to
 * w->body_ext (b may be the body being created, at w->nbodies). */
rc_status rc_body_add_ext(rc_world *w, int b)
{
    RC_CHECK(rc_reserve((void **)&w->body_ext, &w->cap_body_ext, w->nbody_ext + 1, sizeof(rc_body_ext)));
    rc_body_ext *x = &w->body_ext[w->nbody_ext];
    memset(x, 0, sizeof *x);
    x->body = b;
    w->bodies[b].ext = w->nbody_ext++;
    return RC_OK;
}

rc_status rc_body_find(const rc_world *w, const char *name, int *out_id)
{
    if (!w || !name) return rc_set_error(RC_ERR_ARG, "rc_body_find: NULL argument");
    for (int i = 0; i < w->nbody_ext; i++)   /* in creation order, as the bodies */
        if (w->body_ext[i].name && strcmp(w->body_ext[i].name, name) == 0) {
            if (out_id) *out_id = w->body_ext[i].body;
            return RC_OK;
        }
    return rc_set_error(RC_ERR_NOT_FOUND, "no body named \"%s\"", name);
}

const char *rc_body_name(const rc_world *w, int id) { return valid_body(w, id) ? rc_body_name_of(w, id) : NULL; }
int rc_body_nq(const rc_world *w, int id) { return valid_body(w, id) ? w->bodies[id].nq : 0; }
int rc_body_nv(const rc_world *w, int id) { return valid_body(w, id) ? w->bodies[id].nv : 0; }

#define CHECK_BODY(w, id) do { if (!(w)) return rc_set_error(RC_ERR_ARG, "world is NULL"); \
    if (!valid_body((w), (id))) return rc_set_error(RC_ERR_NOT_FOUND, "no body with id %d", (id)); } while (0)

rc_status rc_body_get_state(const rc_world *w, int id, double *q, double *v)
{
    CHECK_BODY(w, id);
    const rc_body *b = &w->bodies[id];
    if (q) memcpy(q, w->q + b->iq, (size_t)b->nq * sizeof(double));
    if (v) memcpy(v, w->v + b->iv, (size_t)b->nv * sizeof(double));
    return RC_OK;
}

rc_status rc_body_set_state(rc_world *w, int id, const double *q, const double *v)
{
    CHECK_BODY(w, id);
    const rc_body *b = &w->bodies[id];
    if (q) RC_CHECK(check_vec(q, b->nq, "body:set_state", "q"));
    if (v) RC_CHECK(check_vec(v, b->nv, "body:set_state", "v"));
    if (q) memcpy(w->q + b->iq, q, (size_t)b->nq * sizeof(double));
    if (v) memcpy(w->v + b->iv, v, (size_t)b->nv * sizeof(double));
    w->joints_fresh = 1;   /* the next step moves it onto the joints first (rc_joints_start) */
    return RC_OK;
}

rc_status rc_body_set_force(rc_world *w, int id, const double *f)
{
    CHECK_BODY(w, id);
    if (!f) return rc_set_error(RC_ERR_ARG, "rc_body_set_force: 'f' is NULL");
    RC_CHECK(check_vec(f, w->bodies[id].nv, "body:set_force", "force"));
    if (w->bodies[id].kind == RC_BODY_LINEAR) {
        memcpy(w->linears[w->bodies[id].linear].f, f, (size_t)w->bodies[id].nv * sizeof(double));
        return RC_OK;
    }
    if (w->bodies[id].ext < 0) {   /* a body without rc_body_ext has a zero force */
        static const double zero3[3];
        if (memcmp(f, zero3, sizeof zero3) == 0) return RC_OK;
        RC_CHECK(rc_body_add_ext(w, id));
    }
    memcpy(rc_body_ext_of(w, id)->force, f, 3 * sizeof(double));
    return RC_OK;
}

rc_status rc_body_get_force(const rc_world *w, int id, double *f)
{
    CHECK_BODY(w, id);
    static const double zero3[3];
    const rc_body_ext *x = rc_body_ext_of(w, id);
    const double *src = w->bodies[id].kind == RC_BODY_LINEAR ? w->linears[w->bodies[id].linear].f
                      : x ? x->force : zero3;
    if (f) memcpy(f, src, (size_t)w->bodies[id].nv * sizeof(double));
    return RC_OK;
}

rc_status rc_body_set_force_fn(rc_world *w, int id, rc_force_fn fn, void *user)
{
    CHECK_BODY(w, id);
    if (w->bodies[id].ext < 0) {
        if (!fn) return RC_OK;
        RC_CHECK(rc_body_add_ext(w, id));
    }
    rc_body_ext *x = rc_body_ext_of(w, id);
    x->force_fn = fn;
    x->force_user = user;
    return RC_OK;
}

rc_status rc_body_get_mass(const rc_world *w, int id, double *m, double *inertia)
{
    CHECK_BODY(w, id);
    if (w->bodies[id].kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "body %d is a linear body: its mass is the matrix M", id);
    if (m) *m = rc_body_mass(w, &w->bodies[id]);
    if (inertia) *inertia = rc_body_inertia(w, &w->bodies[id]);
    return RC_OK;
}

/* ---------------------------------------------------------------- shapes */


static rc_status check_shape(const rc_world *w, int body, rc_shape_def *d)
{
    const int ground = body == RC_GROUND;
    if (!ground && !valid_body(w, body))
        return rc_set_error(RC_ERR_NOT_FOUND, "shape: no body with id %d", body);
    if (!ground && w->bodies[body].kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "shape: body %d is a linear body; its contacts are gap functions (rc_gap_create)", body);
    switch (d->type) {
    case RC_SHAPE_DISK:
        if (!rc_finite(d->radius) || d->radius <= 0.0)
            return rc_set_error(RC_ERR_ARG, "disk: 'radius' must be > 0 (got %g)", d->radius);
        return check_vec(d->offset, 2, "shape", "offset");   /* ground: the centre, world frame */
    case RC_SHAPE_POINT:
        if (ground) return rc_set_error(RC_ERR_ARG, "shape: points belong to bodies, not to the ground");
        return check_vec(d->offset, 2, "shape", "offset");
    case RC_SHAPE_POLYGON: {   /* ground: vertices in the world frame */
        if (d->nvert < 3 || d->nvert > RC_MAX_POLYGON_VERTICES)
            return rc_set_error(RC_ERR_ARG, "polygon: needs 3 to %d vertices (got %d)", RC_MAX_POLYGON_VERTICES, d->nvert);
        double turning = 0.0;
        for (int i = 0; i < d->nvert; i++) {
            RC_CHECK(check_vec(d->vert[i], 2, "polygon", "vertices"));
            const double *a = d->vert[i], *b = d->vert[(i + 1) % d->nvert], *c = d->vert[(i + 2) % d->nvert];
            double cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
            if (!(cross > 0.0))
                return rc_set_error(RC_ERR_ARG, "polygon: vertices must be convex and counter-clockwise (fails at vertex %d)", i + 2);
            double dot = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]);
            turning += atan2(cross, dot);
        }
        if (fabs(turning - 2.0 * M_PI) > 1e-6)   /* a star turns more than once */
            return rc_set_error(RC_ERR_ARG, "polygon: vertices must form a simple convex polygon (they wind %.3g times)", turning / (2.0 * M_PI));
        return RC_OK;
    }
    case RC_SHAPE_HALFPLANE: {
        if (!ground) return rc_set_error(RC_ERR_ARG, "halfplane: half-planes are static obstacles (body must be the ground)");
        RC_CHECK(check_vec(d->point, 2, "halfplane", "point"));
        RC_CHECK(check_vec(d->normal, 2, "halfplane", "normal"));
        double nn = hypot(d->normal[0], d->normal[1]);
        if (!(nn > 0.0)) return rc_set_error(RC_ERR_ARG, "halfplane: 'normal' must be nonzero");
        d->normal[0] /= nn; d->normal[1] /= nn;
        return RC_OK;
    }
    case RC_SHAPE_SEGMENT:
        if (!ground) return rc_set_error(RC_ERR_ARG, "segment: segments are static obstacles (body must be the ground)");
        RC_CHECK(check_vec(d->a, 2, "segment", "a"));
        RC_CHECK(check_vec(d->b, 2, "segment", "b"));
        if (d->a[0] == d->b[0] && d->a[1] == d->b[1])
            return rc_set_error(RC_ERR_ARG, "segment: 'a' and 'b' must differ");
        if (!rc_finite(d->radius) || d->radius < 0.0)
            return rc_set_error(RC_ERR_ARG, "segment: 'radius' must be >= 0 (got %g)", d->radius);
        return RC_OK;
    }
    return rc_set_error(RC_ERR_ARG, "shape: unknown type %d", (int)d->type);
}

rc_status rc_shape_create(rc_world *w, int body, const rc_shape_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_shape_create: NULL argument");
    rc_shape_def d = *def;
    RC_CHECK(check_shape(w, body, &d));
    RC_CHECK(rc_reserve((void **)&w->shapes, &w->cap_shapes, w->nshapes + 1, sizeof(rc_shape)));
    rc_shape *s = &w->shapes[w->nshapes];
    memset(s, 0, sizeof *s);
    s->type = d.type;
    s->body = body;
    s->group = d.group;
    s->name = rc_strdup(d.name);
    if (d.name && !s->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    s->radius = d.type == RC_SHAPE_POINT ? 0.0 : d.radius;
    memcpy(s->offset, d.offset, sizeof s->offset);
    s->nvert = d.type == RC_SHAPE_POLYGON ? d.nvert : 0;
    if (s->nvert > 0) {   /* vert, wvert, wnorm + the AABB in one block */
        double (*blk)[2] = rc_malloc(((size_t)3 * s->nvert + 2) * sizeof *blk);
        if (!blk) { rc_free(s->name); return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
        memcpy(blk, d.vert, (size_t)s->nvert * sizeof *blk);
        s->vert = blk;
        s->wvert = blk + s->nvert;
        s->wnorm = blk + 2 * s->nvert;
        memset(s->wvert, 0, ((size_t)2 * s->nvert + 2) * sizeof *blk);
    } else if (d.type == RC_SHAPE_HALFPLANE) {
        memcpy(s->point, d.point, sizeof s->point);
        memcpy(s->normal, d.normal, sizeof s->normal);
    } else if (d.type == RC_SHAPE_SEGMENT) {
        memcpy(s->a, d.a, sizeof s->a);
        memcpy(s->b, d.b, sizeof s->b);
    }
    double bound = hypot(d.offset[0], d.offset[1]) + s->radius;
    for (int i = 0; i < s->nvert; i++) {
        double r = hypot(d.vert[i][0], d.vert[i][1]);
        if (r > bound) bound = r;
    }
    s->bound = bound;
    if (out_id) *out_id = w->nshapes;
    w->nshapes++;
    return rc_world_rebuild_slots(w);
}

int rc_shape_count(const rc_world *w) { return w ? w->nshapes : 0; }

rc_status rc_shape_get_def(const rc_world *w, int id, int *body, rc_shape_def *def)
{
    if (!w || id < 0 || id >= w->nshapes) return rc_set_error(RC_ERR_NOT_FOUND, "no shape with id %d", id);
    const rc_shape *s = &w->shapes[id];
    if (body) *body = s->body;
    if (def) {
        *def = rc_default_shape_def();
        def->type = s->type; def->radius = s->radius; def->nvert = s->nvert; def->group = s->group;
        def->name = s->name;
        memcpy(def->offset, s->offset, sizeof def->offset);
        if (s->nvert > 0) memcpy(def->vert, s->vert, (size_t)s->nvert * sizeof *s->vert);
        if (s->type == RC_SHAPE_HALFPLANE) {   /* the fields of the other types keep their defaults */
            memcpy(def->point, s->point, sizeof def->point);
            memcpy(def->normal, s->normal, sizeof def->normal);
        } else if (s->type == RC_SHAPE_SEGMENT) {
            memcpy(def->a, s->a, sizeof def->a);
            memcpy(def->b, s->b, sizeof def->b);
        }
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- laws */

/* Grow the law array; built-in laws point at themselves (ops.user), so
 * re-point them after a move. */
static rc_status reserve_laws(rc_world *w)
{
    RC_CHECK(rc_reserve((void **)&w->laws, &w->cap_laws, w->nlaws + 1, sizeof(rc_law)));
    for (int i = 0; i < w->nlaws; i++)
        if (w->laws[i].def.type != RC_LAW_CUSTOM) w->laws[i].ops.user = &w->laws[i];
    return RC_OK;
}

rc_status rc_law_create(rc_world *w, const rc_law_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_law_create: NULL argument");
    RC_CHECK(check_law_def(def, def->name ? def->name : "law"));
    RC_CHECK(reserve_laws(w));
    rc_law *l = &w->laws[w->nlaws];
    memset(l, 0, sizeof *l);
    l->def = *def;
    l->name = rc_strdup(def->name);
    if (def->name && !l->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    l->def.name = l->name;
    if (l->def.type == RC_LAW_FREMOND) l->def.e_t = 1.0;
    rc_law_init_builtin(l);
    l->closed_form = !def->generic;
    if (out_id) *out_id = w->nlaws;
    w->nlaws++;
    return RC_OK;
}

rc_status rc_law_create_custom(rc_world *w, const rc_law_ops *ops, const char *name, int *out_id)
{
    if (!w || !ops) return rc_set_error(RC_ERR_ARG, "rc_law_create_custom: NULL argument");
    const char *what = name ? name : "(unnamed)";
    if (ops->dim != 1 && ops->dim != 2)
        return rc_set_error(RC_ERR_ARG, "law '%s': 'dim' must be 1 or 2 (got %d)", what, ops->dim);
    if (!ops->xi) return rc_set_error(RC_ERR_ARG, "law '%s': 'xi' is missing", what);
    if (!ops->project) return rc_set_error(RC_ERR_ARG, "law '%s': 'project' is missing", what);
    if (ops->nstate < 0 || ops->nstate > RC_LAW_MAX_STATE)
        return rc_set_error(RC_ERR_ARG, "law '%s': 'state' has %d values (at most %d)", what, ops->nstate, RC_LAW_MAX_STATE);
    RC_CHECK(check_vec(ops->state0, ops->nstate, "law", "state"));
    RC_CHECK(reserve_laws(w));
    rc_law *l = &w->laws[w->nlaws];
    memset(l, 0, sizeof *l);
    l->def = rc_default_law_def();
    l->def.type = RC_LAW_CUSTOM;
    l->name = rc_strdup(name);
    if (name && !l->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    l->def.name = l->name;
    l->ops = *ops;
    l->closed_form = 0;
    if (out_id) *out_id = w->nlaws;
    w->nlaws++;
    return RC_OK;
}

rc_status rc_law_get_def(const rc_world *w, int id, rc_law_def *def)
{
    if (!w || id < 0 || id >= w->nlaws) return rc_set_error(RC_ERR_NOT_FOUND, "no law with id %d", id);
    if (def) *def = w->laws[id].def;
    return RC_OK;
}

rc_status rc_law_set(rc_world *w, int id, const rc_law_def *def)
{
    if (!w || id < 0 || id >= w->nlaws) return rc_set_error(RC_ERR_NOT_FOUND, "no law with id %d", id);
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_law_set: 'def' is NULL");
    if (w->laws[id].def.type == RC_LAW_CUSTOM || def->type == RC_LAW_CUSTOM)
        return rc_set_error(RC_ERR_ARG, "law '%s': custom laws are changed through their own parameters",
                            w->laws[id].name ? w->laws[id].name : "(unnamed)");
    RC_CHECK(check_law_def(def, w->laws[id].name ? w->laws[id].name : "law"));
    w->laws[id].def = *def;
    w->laws[id].def.name = w->laws[id].name;
    w->laws[id].closed_form = !def->generic;
    if (def->type == RC_LAW_FREMOND) w->laws[id].def.e_t = 1.0;
    return RC_OK;
}

/* ---------------------------------------------------------------- rules */

static int rule_matches(const rc_world *w, const rc_rule *r, int sa, int sb)
{
    const rc_shape *a = &w->shapes[sa], *b = &w->shapes[sb];
    int x, y;
    if (r->def.kind == RC_RULE_BODIES) { x = a->body; y = b->body; }
    else { x = a->group; y = b->group; }
    return (r->def.a == x && r->def.b == y) || (r->def.a == y && r->def.b == x);
}

int rc_world_law_for(const rc_world *w, int sa, int sb)
{
    for (int kind = RC_RULE_BODIES; kind <= RC_RULE_GROUPS; kind++)
        for (int i = w->nrules - 1; i >= 0; i--)
            if ((int)w->rules[i].def.kind == kind && rule_matches(w, &w->rules[i], sa, sb))
                return w->rules[i].def.law;
    return w->default_law;
}

rc_status rc_world_set_default_law(rc_world *w, int law)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_set_default_law: world is NULL");
    if (law < 0 || law >= w->nlaws) return rc_set_error(RC_ERR_NOT_FOUND, "no law with id %d", law);
    w->default_law = law;
    return RC_OK;
}

int rc_world_pair_is_named(const rc_world *w, int sa, int sb)
{
    for (int i = w->nrules - 1; i >= 0; i--)
        if (w->rules[i].def.kind == RC_RULE_BODIES && rule_matches(w, &w->rules[i], sa, sb))
            return w->rules[i].name != NULL && rc_world_law_for(w, sa, sb) != RC_NO_CONTACT;
    return 0;
}

/* Number of potential contacts between two shapes (named slots; the
 * narrowphase of a named pair). */
int rc_shape_feature_count(const rc_shape *a, const rc_shape *b)
{
    if (a->body == b->body) return 0;          /* same body, or ground-ground */
    int ka = rc_shape_kind(a), kb = rc_shape_kind(b);
    if (ka > kb) { const rc_shape *s = a; a = b; b = s; int k = ka; ka = kb; kb = k; }
    if (ka == RC_SK_NONE) return 0;
    if (ka == RC_SK_ROUND) return 1;               /* disk/point with anything */
    if (ka == RC_SK_POLY) {
        if (kb == RC_SK_POLY) return a->nvert + b->nvert;
        if (kb == RC_SK_HALF) return a->nvert;
        if (kb == RC_SK_SEG) return a->nvert + 2;
    }
    return 0;                                  /* half-plane/segment pairs */
}

/* Named contacts: for each named body rule, every potential contact of every
 * shape pair of the two bodies, named NAME or NAME1..NAMEk. */
rc_status rc_world_rebuild_slots(rc_world *w)
{
    for (int i = 0; i < w->nslots; i++) rc_free(w->slots[i].name);
    w->nslots = 0;
    for (int r = 0; r < w->nrules; r++) {
        const rc_rule *rule = &w->rules[r];
        if (rule->def.kind != RC_RULE_BODIES || !rule->name || rule->def.law == RC_NO_CONTACT) continue;
        int total = 0, first = w->nslots;
        for (int pass = 0; pass < 2; pass++) {
            int k = 0;
            for (int i = 0; i < w->nshapes; i++) {
                for (int j = 0; j < w->nshapes; j++) {
                    const rc_shape *si = &w->shapes[i], *sj = &w->shapes[j];
                    if (si->body != rule->def.a || sj->body != rule->def.b) continue;
                    /* A is the ground shape, else the lower index */
                    int sa = i, sb = j;
                    if (sj->body == RC_GROUND || (si->body != RC_GROUND && j < i)) { sa = j; sb = i; }
                    int nf = rc_shape_feature_count(&w->shapes[sa], &w->shapes[sb]);
                    for (int f = 0; f < nf; f++, k++) {
                        if (pass == 0) continue;
                        RC_CHECK(rc_reserve((void **)&w->slots, &w->cap_slots, w->nslots + 1, sizeof(rc_slot)));
                        char buf[256];
                        if (total == 1) snprintf(buf, sizeof buf, "%s", rule->name);
                        else snprintf(buf, sizeof buf, "%s%d", rule->name, k + 1);
                        w->slots[w->nslots].name = rc_strdup(buf);
                        if (!w->slots[w->nslots].name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
                        w->slots[w->nslots].key = rc_contact_key(sa, sb, f);
                        w->nslots++;
                    }
                }
            }
            if (pass == 0) total = k;
        }
        (void)first;
    }
    for (int i = 0; i < w->ngaps; i++) {   /* named gap contacts */
        if (!w->gaps[i].name) continue;
        RC_CHECK(rc_reserve((void **)&w->slots, &w->cap_slots, w->nslots + 1, sizeof(rc_slot)));
        w->slots[w->nslots].name = rc_strdup(w->gaps[i].name);
        if (!w->slots[w->nslots].name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        w->slots[w->nslots].key = ((uint64_t)0xFFFFFF << 40) | ((uint64_t)(uint32_t)i << 16);
        w->nslots++;
    }
    return RC_OK;
}

rc_status rc_contact_rule(rc_world *w, const rc_contact_rule_def *def)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_contact_rule: NULL argument");
    if (def->kind != RC_RULE_BODIES && def->kind != RC_RULE_GROUPS)
        return rc_set_error(RC_ERR_ARG, "contact: unknown rule kind %d", (int)def->kind);
    if (def->law != RC_NO_CONTACT && (def->law < 0 || def->law >= w->nlaws))
        return rc_set_error(RC_ERR_NOT_FOUND, "contact: no law with id %d", def->law);
    if (def->kind == RC_RULE_BODIES) {
        if (def->a != RC_GROUND && !valid_body(w, def->a))
            return rc_set_error(RC_ERR_NOT_FOUND, "contact: no body with id %d", def->a);
        if (def->b != RC_GROUND && !valid_body(w, def->b))
            return rc_set_error(RC_ERR_NOT_FOUND, "contact: no body with id %d", def->b);
        if (def->a == def->b)
            return rc_set_error(RC_ERR_ARG, "contact: a body does not contact itself");
    } else if (def->name) {
        return rc_set_error(RC_ERR_ARG, "contact: 'name' is only allowed for a pair of bodies");
    }
    if (def->name) {
        if (!def->name[0]) return rc_set_error(RC_ERR_ARG, "contact: 'name' must not be empty");
        for (int i = 0; i < w->nrules; i++)
            if (w->rules[i].name && strcmp(w->rules[i].name, def->name) == 0)
                return rc_set_error(RC_ERR_ARG, "contact: 'name' \"%s\" is already used", def->name);
    }
    RC_CHECK(rc_reserve((void **)&w->rules, &w->cap_rules, w->nrules + 1, sizeof(rc_rule)));
    rc_rule *r = &w->rules[w->nrules];
    r->def = *def;
    r->name = rc_strdup(def->name);
    if (def->name && !r->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    w->nrules++;
    r->def.name = r->name;
    return rc_world_rebuild_slots(w);
}

/* ---------------------------------------------------------------- simulation */

rc_status rc_world_configure(rc_world *w, const rc_sim_def *def)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_world_configure: NULL argument");
    if (def->scheme != RC_SCHEME_MOREAU_JEAN && def->scheme != RC_SCHEME_MOREAU_JEAN_FREMOND
        && def->scheme != RC_SCHEME_MAURY)
        return rc_set_error(RC_ERR_ARG, "simulation: unknown 'scheme' %d", (int)def->scheme);
    if (def->scheme == RC_SCHEME_MAURY && def->theta != 1.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'theta' must be 1 for maury (q_{k+1} = q_k + h u_{k+1}; got %g)", def->theta);
    if (def->solver.method != RC_SOLVER_NSGS && def->solver.method != RC_SOLVER_UZAWA)
        return rc_set_error(RC_ERR_ARG, "solver: unknown method %d", (int)def->solver.method);
    if (!rc_finite(def->solver.relax) || def->solver.relax <= 0.0 || def->solver.relax >= 2.0)
        return rc_set_error(RC_ERR_ARG, "solver: 'relax' must be in (0, 2) (got %g)", def->solver.relax);
    if (def->solver.method == RC_SOLVER_UZAWA && def->solver.accelerate && def->solver.relax > 1.0)
        return rc_set_error(RC_ERR_ARG, "solver: 'relax' must be <= 1 for the accelerated Uzawa (got %g; accelerate = false for the plain one)",
                            def->solver.relax);
    if (def->solver.norm != RC_NORM_L2 && def->solver.norm != RC_NORM_MAX)
        return rc_set_error(RC_ERR_ARG, "solver: unknown 'norm' %d", (int)def->solver.norm);
    if (def->solver.order != RC_ORDER_FIXED && def->solver.order != RC_ORDER_RANDOM
        && def->solver.order != RC_ORDER_POSITION && def->solver.order != RC_ORDER_COLOUR)
        return rc_set_error(RC_ERR_ARG, "solver: unknown 'order' %d", (int)def->solver.order);
    if (def->solver.threads < 1)
        return rc_set_error(RC_ERR_ARG, "solver: 'threads' must be >= 1 (got %d)", def->solver.threads);
    if (def->solver.threads > 1 && def->solver.method != RC_SOLVER_NSGS)
        return rc_set_error(RC_ERR_ARG, "solver: 'threads' = %d needs the nsgs solver (uzawa runs on one thread)",
                            def->solver.threads);
    if (def->solver.threads > 1 && def->solver.order != RC_ORDER_COLOUR)
        return rc_set_error(RC_ERR_ARG, "solver: 'threads' = %d needs order \"colour\" (the %s order is sequential)",
                            def->solver.threads, def->solver.order == RC_ORDER_RANDOM ? "random"
                            : def->solver.order == RC_ORDER_POSITION ? "position" : "fixed");
    if (!rc_finite(def->theta) || def->theta < 0.0 || def->theta > 1.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'theta' must be in [0, 1] (got %g)", def->theta);
    if (def->scheme == RC_SCHEME_MOREAU_JEAN_FREMOND && def->theta == 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'theta' must be > 0 for moreau-jean-fremond (W = theta H M^-1 H^T vanishes)");
    if (!rc_finite(def->h) || def->h <= 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'h' must be > 0 (got %g)", def->h);
    if (def->h < RC_MIN_H)
        return rc_set_error(RC_ERR_ARG, "simulation: 'h' = %g is below the limit of %g (runs would not end; "
                            "forces = impulses / h would overflow)", def->h, RC_MIN_H);
    if (def->h > RC_MAX_H)
        return rc_set_error(RC_ERR_ARG, "simulation: 'h' = %g is above the limit of %g (positions and velocities "
                            "would overflow)", def->h, RC_MAX_H);
    if (def->activation != RC_ACTIVATE_GAP && def->activation != RC_ACTIVATE_ANTICIPATE)
        return rc_set_error(RC_ERR_ARG, "simulation: unknown 'activation' %d", (int)def->activation);
    if (!rc_finite(def->gamma) || def->gamma < 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'gamma' must be >= 0 (got %g)", def->gamma);
    if (!rc_finite(def->persist_tol) || def->persist_tol < 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'persist_tol' must be >= 0 (got %g)", def->persist_tol);
    if (!rc_finite(def->solver.tol) || def->solver.tol <= 0.0)
        return rc_set_error(RC_ERR_ARG, "solver: 'tol' must be > 0 (got %g)", def->solver.tol);
    if (def->solver.check_every < 1)
        return rc_set_error(RC_ERR_ARG, "solver: 'check_every' must be >= 1 (got %d)", def->solver.check_every);
    if (def->solver.max_iter < 1)
        return rc_set_error(RC_ERR_ARG, "solver: 'max_iter' must be >= 1 (got %d)", def->solver.max_iter);
    if (def->solver.on_fail != RC_ON_FAIL_WARN && def->solver.on_fail != RC_ON_FAIL_ERROR)
        return rc_set_error(RC_ERR_ARG, "solver: unknown 'on_fail' %d", (int)def->solver.on_fail);
    if (!rc_finite(def->solver.local_tol) || def->solver.local_tol < 0.0)
        return rc_set_error(RC_ERR_ARG, "solver: 'local_tol' must be >= 0 (0: automatic) (got %g)", def->solver.local_tol);
    if (def->solver.local_max_iter < 1)
        return rc_set_error(RC_ERR_ARG, "solver: 'local_max_iter' must be >= 1 (got %d)", def->solver.local_max_iter);
    if (def->work_check != RC_WORK_RECORD && def->work_check != RC_WORK_WARN && def->work_check != RC_WORK_ERROR)
        return rc_set_error(RC_ERR_ARG, "simulation: unknown 'work_check' %d", (int)def->work_check);
    if (def->joint_jacobian < RC_JOINT_JACOBIAN_AUTO || def->joint_jacobian > RC_JOINT_JACOBIAN_END)
        return rc_set_error(RC_ERR_ARG, "simulation: unknown 'joint_jacobian' %d", (int)def->joint_jacobian);
    if (!rc_finite(def->project_tol) || def->project_tol <= 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'project_tol' must be > 0 (got %g)", def->project_tol);
    if (def->project_max_iter < 1)
        return rc_set_error(RC_ERR_ARG, "simulation: 'project_max_iter' must be >= 1 (got %d)", def->project_max_iter);
    if (!rc_finite(def->work_tol) || def->work_tol < 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'work_tol' must be >= 0 (got %g)", def->work_tol);
    if (def->solver.threads > 1 && !rc_openmp())
        rc_world_warn(w, "solver: 'threads' = %d but this build has no OpenMP: the coloured sweeps run on one thread (same results)",
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
    m += (size_t)(w->cap_dof + 2 * w->cap_state + w->cap_f + w->cap_scratch + w->cap_uz_y + w->cap_qstar
                  + 2 * w->cap_pre) * sizeof(double);
    m += (size_t)w->cap_body_scratch * (sizeof(double) + sizeof(int));
    m += (size_t)w->cap_contacts * sizeof(rc_contact) + (size_t)w->cap_aux * sizeof(rc_contact_aux);
    m += (size_t)w->cap_rec * sizeof(rc_contact_rec) + (size_t)w->cap_rec_state * sizeof(double);
    m += (size_t)(w->cap_active + w->cap_pairs + w->cap_order) * sizeof(int);
    for (int k = 0; k < RC_NPARTS; k++)   /* the solver's sweep orders (nsgs.c) */
        if (w->parts[k] && w->parts[k]->memory) m += w->parts[k]->memory(w);
    m += (size_t)w->cap_linears * sizeof(rc_linear) + (size_t)w->cap_gaps * sizeof(rc_gap);
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        size_t nn = (size_t)L->n * L->n;
        m += nn * (1 + (L->K != NULL) + (L->C != NULL)) * sizeof(double) + 4 * (size_t)L->n * sizeof(double);
        m += (L->banded ? (size_t)(L->kd + 1) * L->n : nn) * sizeof(double);
    }
    for (int i = 0; i < w->ngaps; i++) {   /* idx, nrm, tng; MH, grad */
        const rc_gap *g = &w->gaps[i];
        m += (size_t)g->nnz * (sizeof(int) + 2 * sizeof(double)) + name_bytes(g->name);
        m += (size_t)2 * (w->bodies[g->body].nv + w->bodies[g->body].nq) * sizeof(double);
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
    return RC_OK;
}

rc_status rc_world_energy(const rc_world *w, double *E_kin, double *E_pot)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_energy: NULL world");
    double k, p;
    rc_energy(w, w->q, w->v, &k, &p, NULL);
    if (E_kin) *E_kin = k;
    if (E_pot) *E_pot = p;
    return RC_OK;
}

/* ---------------------------------------------------------------- contacts */

/* The contacts of the state: those the last completed step left (w->rec). */
int rc_contact_count(const rc_world *w) { return w ? w->nrec : 0; }

/* Shapes, bodies and feature of a contact of the state follow from its key
 * (rc_contact_key; gap contacts: shape_a = 0xFFFFFF, shape_b = the gap). */
static void fill_info(const rc_world *w, const rc_contact_rec *r, rc_contact_info *info)
{
    const int sa = (int)(r->key >> 40), sb = (int)((r->key >> 16) & 0xFFFFFF);
    info->id = r->id;
    if (sa == 0xFFFFFF) {   /* gap contact sb (linear.c) */
        info->shape_a = info->shape_b = -1;
        info->body_a = RC_GROUND;
        info->body_b = w->gaps[sb].body;
        info->feature = 0;
        info->tangent[0] = 1.0; info->tangent[1] = 0.0;
    } else {
        info->shape_a = sa; info->shape_b = sb;
        info->body_a = w->shapes[sa].body; info->body_b = w->shapes[sb].body;
        info->feature = (int)(r->key & 0xFFFF);
        info->tangent[0] = r->n[1]; info->tangent[1] = -r->n[0];
    }
    info->active = (int)r->active;
    memcpy(info->point, r->point, sizeof info->point);
    memcpy(info->normal, r->n, sizeof info->normal);
    info->gN = r->gN;
    info->uN = r->u[0]; info->uT = r->u[1];
    info->pN = r->p[0]; info->pT = r->p[1];
    info->WN = r->WN; info->WT = r->WT;
    info->law = (int)r->law;
}

rc_status rc_contact_get(const rc_world *w, int index, rc_contact_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_contact_get: NULL argument");
    if (index < 0 || index >= w->nrec)
        return rc_set_error(RC_ERR_NOT_FOUND, "no contact with index %d (there are %d)", index, w->nrec);
    fill_info(w, &w->rec[index], info);
    return RC_OK;
}

int rc_named_contact_count(const rc_world *w) { return w ? w->nslots : 0; }

const char *rc_named_contact_name(const rc_world *w, int index)
{
    return (w && index >= 0 && index < w->nslots) ? w->slots[index].name : NULL;
}

static const rc_contact_rec *find_key(const rc_contact_rec *c, int n, uint64_t key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c[mid].key == key) return &c[mid];
        if (c[mid].key < key) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

rc_status rc_named_contact_get(const rc_world *w, int index, rc_contact_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_named_contact_get: NULL argument");
    if (index < 0 || index >= w->nslots)
        return rc_set_error(RC_ERR_NOT_FOUND, "no named contact with index %d", index);
    const rc_contact_rec *c = find_key(w->rec, w->nrec, w->slots[index].key);
    if (c) { fill_info(w, c, info); return RC_OK; }
    memset(info, 0, sizeof *info);
    info->id = -1;
    info->law = -1;
    info->gN = info->uN = info->uT = info->pN = info->pT = info->WN = info->WT = NAN;
    return RC_OK;
}
