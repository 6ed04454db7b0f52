/* body.c -- rigid bodies: creation, state, applied forces, mass. */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- bodies */

rc_status rcm_check_vec(const double *x, int n, const char *what, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!rcb_finite(x[i]))
            return rc_set_error(RC_ERR_ARG, "%s: '%s' component %d is not finite", what, name, i + 1);
    return RC_OK;
}

/* A new rigid body in the free slot b of a removed one: its dofs, its
 * rc_body_ext if it had one (no allocation but the name). */
static rc_status body_reuse(rc_world *w, const rc_body_def *def, int b, int *out_id)
{
    static const double zero3[3];
    rc_body *bd = &w->bodies[b];
    const int ext = def->name || memcmp(def->force, zero3, sizeof zero3) != 0;
    if (ext && bd->ext < 0) RC_CHECK(rcm_body_add_ext(w, b));
    rc_body_ext *x = rcm_body_ext_of(w, b);
    if (x) {
        x->name = rcb_strdup(def->name);
        if (def->name && !x->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memcpy(x->force, def->force, sizeof x->force);
    }
    rcm_life_revive(w->body_life, w->nbody_life, b);
    bd->kind = RC_BODY_RIGID2D;
    bd->inv_mass = 1.0 / def->mass; bd->inv_inertia = 1.0 / def->inertia;
    memcpy(w->q + bd->iq, def->q, 3 * sizeof(double));
    memcpy(w->v + bd->iv, def->v, 3 * sizeof(double));
    w->mass_diag[bd->iv] = w->mass_diag[bd->iv + 1] = def->mass;
    w->mass_diag[bd->iv + 2] = def->inertia;
    if (out_id) *out_id = b;
    return RC_OK;
}

rc_status rc_body_def_check(const rc_body_def *def, const char *what)
{
    char got[RCB_SHOW_SIZE];
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_body_def_check: 'def' is NULL");
    if (!what) what = "body";
    if (def->kind == RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_ARG, "%s: linear bodies are created with rc_linear_create", what);
    if (def->kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "%s: unknown 'kind' %d", what, (int)def->kind);
    if (!rcb_finite(def->mass) || def->mass <= 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'mass' must be > 0 (got %s)", what, rcb_show(got, def->mass));
    if (!rcb_finite(def->inertia) || def->inertia <= 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'inertia' must be > 0 (got %s)", what, rcb_show(got, def->inertia));
    if (!rcb_finite(1.0 / def->mass))
        return rc_set_error(RC_ERR_ARG, "%s: 'mass' = %s is too small: 1/mass is not a finite number", what,
                            rcb_show(got, def->mass));
    if (!rcb_finite(1.0 / def->inertia))
        return rc_set_error(RC_ERR_ARG, "%s: 'inertia' = %s is too small: 1/inertia is not a finite number", what,
                            rcb_show(got, def->inertia));
    RC_CHECK(rcm_check_vec(def->q, 3, what, "q"));
    RC_CHECK(rcm_check_vec(def->v, 3, what, "v"));
    RC_CHECK(rcm_check_vec(def->force, 3, what, "force"));
    if (def->name && !def->name[0]) return rc_set_error(RC_ERR_ARG, "%s: 'name' must not be empty", what);
    return RC_OK;
}

rc_status rc_body_create(rc_world *w, const rc_body_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_body_create: NULL argument");
    RC_CHECK(rc_body_def_check(def, "body"));
    if (w->def.dim == 3)   /* body3d.c */
        return rc_set_error(RC_ERR_ARG, "body: a world of dim = 3 has spatial bodies only (rc_body3d_create)");
    if (def->name) {
        int dup;
        if (rc_body_find(w, def->name, &dup) == RC_OK)
            return rc_set_error(RC_ERR_ARG, "body: 'name' \"%s\" is already used by body %d", def->name, dup);
    }
    const int slot = rcm_body_free_slot(w);   /* a removed body's slot (remove.c) */
    if (slot >= 0) return body_reuse(w, def, slot, out_id);
    RC_CHECK(rcb_reserve((void **)&w->bodies, &w->cap_bodies, w->nbodies + 1, sizeof(rc_body)));
    int nq = rcm_body_rigid2d.nq, nv = rcm_body_rigid2d.nv;
    RC_CHECK(rcm_world_grow_dofs(w, nq, nv));
    double *md = w->mass_diag;

    /* a name or a force (any bit set: -0.0 is kept too) needs the body's rc_body_ext */
    static const double zero3[3];
    const int ext = def->name || memcmp(def->force, zero3, sizeof zero3) != 0;
    rc_body *b = &w->bodies[w->nbodies];
    memset(b, 0, sizeof *b);
    b->ext = -1;
    if (ext) {
        RC_CHECK(rcm_body_add_ext(w, w->nbodies));
        rc_body_ext *x = &w->body_ext[b->ext];
        x->name = rcb_strdup(def->name);
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
    return rcm_world_reserve_dofs(w);
}

int rc_body_count(const rc_world *w) { return w ? w->nbodies : 0; }

/* Body b's rc_body_ext, zero (no name, no force, no function), appended to
 * w->body_ext (b may be the body being created, at w->nbodies). */
rc_status rcm_body_add_ext(rc_world *w, int b)
{
    RC_CHECK(rcb_reserve((void **)&w->body_ext, &w->cap_body_ext, w->nbody_ext + 1, sizeof(rc_body_ext)));
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

const char *rc_body_name(const rc_world *w, int id) { return rcm_valid_body(w, id) ? rcm_body_name_of(w, id) : NULL; }
int rc_body_nq(const rc_world *w, int id) { return rcm_valid_body(w, id) ? w->bodies[id].nq : 0; }
int rc_body_nv(const rc_world *w, int id) { return rcm_valid_body(w, id) ? w->bodies[id].nv : 0; }

#define CHECK_BODY(w, id) RC_CHECK(rcm_body_check((w), (id), __func__))

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
    if (q) RC_CHECK(rcm_check_vec(q, b->nq, "body:set_state", "q"));
    if (v) RC_CHECK(rcm_check_vec(v, b->nv, "body:set_state", "v"));
    if (q && b->kind == RC_BODY_RIGID3D) {   /* the quaternion normalised (body3d.c) */
        const double n = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
        if (!(n > 0.0) || !rcb_finite(n))
            return rc_set_error(RC_ERR_ARG, "body:set_state: 'q': the quaternion (qw, qx, qy, qz) must be nonzero");
        memcpy(w->q + b->iq, q, 3 * sizeof(double));
        for (int i = 3; i < 7; i++) w->q[b->iq + i] = q[i] / n;
        q = NULL;
    }
    if (q) memcpy(w->q + b->iq, q, (size_t)b->nq * sizeof(double));
    if (v) memcpy(w->v + b->iv, v, (size_t)b->nv * sizeof(double));
    rcm_sleep_wake(w, id);   /* an edit wakes its island (sleep.c) */
    w->joints_fresh = 1;   /* the next step moves it onto the joints first (rcm_joints_start) */
    return RC_OK;
}

rc_status rc_body_set_force(rc_world *w, int id, const double *f)
{
    CHECK_BODY(w, id);
    if (!f) return rc_set_error(RC_ERR_ARG, "rc_body_set_force: 'f' is NULL");
    RC_CHECK(rcm_check_vec(f, w->bodies[id].nv, "body:set_force", "force"));
    rcm_sleep_wake(w, id);
    if (rcm_body_lagrangian(&w->bodies[id])) {
        memcpy(w->linears[w->bodies[id].linear].f, f, (size_t)w->bodies[id].nv * sizeof(double));
        return RC_OK;
    }
    if (w->bodies[id].kind == RC_BODY_RIGID3D) {   /* its record's force; an rc_body_ext makes the world compute forces */
        if (w->bodies[id].ext < 0) RC_CHECK(rcm_body_add_ext(w, id));
        memcpy(w->rigid3d[w->bodies[id].linear].force, f, 6 * sizeof(double));
        return RC_OK;
    }
    if (w->bodies[id].ext < 0) {   /* a body without rc_body_ext has a zero force */
        static const double zero3[3];
        if (memcmp(f, zero3, sizeof zero3) == 0) return RC_OK;
        RC_CHECK(rcm_body_add_ext(w, id));
    }
    memcpy(rcm_body_ext_of(w, id)->force, f, 3 * sizeof(double));
    return RC_OK;
}

rc_status rc_body_get_force(const rc_world *w, int id, double *f)
{
    CHECK_BODY(w, id);
    static const double zero3[3];
    const rc_body_ext *x = rcm_body_ext_of(w, id);
    const double *src = rcm_body_lagrangian(&w->bodies[id]) ? w->linears[w->bodies[id].linear].f
                      : w->bodies[id].kind == RC_BODY_RIGID3D ? w->rigid3d[w->bodies[id].linear].force
                      : x ? x->force : zero3;
    if (f) memcpy(f, src, (size_t)w->bodies[id].nv * sizeof(double));
    return RC_OK;
}

rc_status rc_body_set_force_fn(rc_world *w, int id, rc_force_fn fn, void *user)
{
    CHECK_BODY(w, id);
    rcm_sleep_wake(w, id);
    if (w->bodies[id].ext < 0) {
        if (!fn) return RC_OK;
        RC_CHECK(rcm_body_add_ext(w, id));
    }
    rc_body_ext *x = rcm_body_ext_of(w, id);
    x->force_fn = fn;
    x->force_user = user;
    return RC_OK;
}

rc_status rc_body_get_mass(const rc_world *w, int id, double *m, double *inertia)
{
    CHECK_BODY(w, id);
    if (w->bodies[id].kind == RC_BODY_RIGID3D)
        return rc_set_error(RC_ERR_ARG, "body %d is a spatial body: rc_body3d_get_mass gives its mass and principal inertia", id);
    if (w->bodies[id].kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "body %d is a linear body: its mass is the matrix M", id);
    if (m) *m = rcm_body_mass(w, &w->bodies[id]);
    if (inertia) *inertia = rcm_body_inertia(w, &w->bodies[id]);
    return RC_OK;
}
