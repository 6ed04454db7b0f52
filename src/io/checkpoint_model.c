/* checkpoint_model.c -- the fingerprint of a world's model, written in a
 * checkpoint and compared on restore (docs/checkpoint.md): a hash per section
 * of what the script declared, so that a refusal can say which differ. */
#include "checkpoint.h"

const char *const rc_ck_section_name[CK_NSECTIONS] = {
    "world settings", "bodies", "shapes", "laws", "contact rules", "joints", "springs",
    "linear bodies", "gap contacts", "simulation settings"
};

static void hash_world(ck_out *o, const rc_world *w)
{
    const rc_world_def *d = &w->def;
    put_i32(o, d->dim);
    put_f64s(o, d->gravity, 3);
    put_f64(o, d->contact_margin);
    put_f64(o, d->default_e);
    put_f64(o, d->default_mu);
    put_f64s(o, d->periodic_x, 2);
    put_i32(o, w->default_law);
}

/* A slot that something was removed from is hashed as the script declared it
 * (its life record's decl, model/remove.c): removals and the bodies added in
 * their slots are state (io/checkpoint_life.c). */
static const rcm_decl *declared(const rcm_life *arr, int n, int i)
{
    const rcm_life *l = rcm_life_of(arr, n, i);
    return l ? l->decl : NULL;
}

/* kinds, offsets, masses and inertias (M's diagonal), names, whether a force
 * function is set; not the constant force (part of the state: set_force) */
static void hash_bodies(ck_out *o, const rc_world *w)
{
    for (int b = 0; b < w->nbodies; b++) {
        const rcm_decl *d = declared(w->body_life, w->nbody_life, b);
        const rc_body *bd = d ? &d->body : &w->bodies[b];
        put_i32(o, (int)bd->kind);
        put_i32(o, bd->iq); put_i32(o, bd->iv); put_i32(o, bd->nq); put_i32(o, bd->nv);
        put_f64(o, bd->inv_mass); put_f64(o, bd->inv_inertia);
        put_f64s(o, d ? d->mass_diag : w->mass_diag + bd->iv, bd->nv);
        const rc_body_ext *x = rcm_body_ext_of(w, b);
        put_str(o, d ? d->name : x ? x->name : NULL);
        put_i32(o, d ? d->force_fn : x && x->force_fn ? 1 : 0);
    }
}

static void hash_shapes(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < w->nshapes; i++) {
        const rcm_decl *d = declared(w->shape_life, w->nshape_life, i);
        const rc_shape *s = d ? &d->shape : &w->shapes[i];
        put_i32(o, (int)s->type); put_i32(o, s->body); put_i32(o, s->group); put_i32(o, s->nvert);
        put_f64(o, s->radius); put_f64s(o, s->offset, 2); put_f64(o, s->bound);
        put_str(o, d ? d->name : s->name);
        switch (s->type) {
        case RC_SHAPE_HALFPLANE: put_f64s(o, s->point, 2); put_f64s(o, s->normal, 2); break;
        case RC_SHAPE_SEGMENT: put_f64s(o, s->a, 2); put_f64s(o, s->b, 2); break;
        case RC_SHAPE_POLYGON: put_f64s(o, &s->vert[0][0], 2 * s->nvert); break;
        default: break;
        }
    }
    rc_ck_hash_shapes3(o, w);   /* a dim = 3 world's (checkpoint_c3.c) */
}

/* names, built-in or custom, a custom law's dimension and state layout; the
 * coefficients of built-in laws are state (rc_law_set) */
static void hash_laws(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < w->nlaws; i++) {
        const rc_law *l = &w->laws[i];
        const int custom = l->def.type == RC_LAW_CUSTOM;
        put_i32(o, custom);
        put_str(o, l->name);
        if (!custom) continue;
        put_i32(o, l->ops.dim);
        put_i32(o, l->ops.nstate);
        put_f64s(o, l->ops.state0, l->ops.nstate);
        put_i32(o, l->ops.update != NULL);
    }
}

static void hash_rules(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < w->nrules; i++) {
        const rc_rule *r = &w->rules[i];
        put_i32(o, (int)r->def.kind); put_i32(o, r->def.a); put_i32(o, r->def.b); put_i32(o, r->def.law);
        put_str(o, r->name);
    }
    for (int i = 0; i < w->nslots; i++) {
        put_str(o, w->slots[i].name);
        put_u64(o, w->slots[i].key);
    }
}

static void hash_joints(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        put_i32(o, (int)j->def.type); put_i32(o, j->def.body_a); put_i32(o, j->def.body_b);
        const rcm_life *l = rcm_life_of(w->joint_life, w->njoint_life, i);
        put_i32(o, l && l->removed ? l->kind : j->rows); put_i32(o, j->def.coord);   /* the rows it was declared with */
        put_f64s(o, j->pa, 2); put_f64s(o, j->pb, 2); put_f64s(o, j->axis, 2);
        put_f64(o, j->length); put_f64(o, j->angle);
        put_f64(o, j->def.break_force); put_f64(o, j->def.break_torque);
        put_i32(o, j->def.motion != NULL); put_i32(o, j->def.constraint != NULL);
        put_str(o, j->name);
    }
    rc_ck_hash_joints3(o, w);
}

static void hash_springs(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < w->nsprings; i++) {
        const rc_spring_def *d = &w->springs[i].def;
        put_i32(o, (int)d->type); put_i32(o, d->body_a); put_i32(o, d->body_b);
        put_f64s(o, d->point_a, 2); put_f64s(o, d->point_b, 2);
        put_f64(o, d->k); put_f64(o, d->c); put_f64(o, d->rest_length); put_f64(o, d->rest_angle);
        put_str(o, w->springs[i].name);
    }
}

/* A linear body's matrix, dense row by row (whatever its storage) */
static void put_linear_matrix(ck_out *o, const rc_linear *L, const double *A)
{
    for (int i = 0; i < L->n; i++)
        for (int j = 0; j < L->n; j++) put_f64(o, rcm_linear_entry(L, A, i, j));
}

/* M, K, C; not the constant force (state: set_force) */
static void hash_linears(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        put_i32(o, L->body); put_i32(o, L->n);
        put_linear_matrix(o, L, L->M);
        put_i32(o, L->K != NULL);
        if (L->K) put_linear_matrix(o, L, L->K);
        put_i32(o, L->C != NULL);
        if (L->C) put_linear_matrix(o, L, L->C);
    }
}

static void hash_gaps(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < w->ngaps; i++) {
        const rc_gap *g = &w->gaps[i];
        put_i32(o, g->body); put_i32(o, g->law); put_i32(o, g->nnz);
        for (int k = 0; k < g->nnz; k++) put_i32(o, g->idx[k]);
        if (g->nnz) {
            put_f64s(o, g->nrm, g->nnz);
            put_i32(o, g->tng != NULL);
            if (g->tng) put_f64s(o, g->tng, g->nnz);
        }
        put_f64(o, g->g0);
        put_i32(o, g->fn != NULL);
        put_str(o, g->name);
    }
}

/* every setting but the number of threads and their timing (results do not
 * depend on them) */
static void hash_simulation(ck_out *o, const rc_world *w)
{
    const rc_sim_def *d = &w->sim;
    const rc_solver_def *s = &d->solver;
    put_i32(o, w->configured);
    put_i32(o, (int)d->scheme); put_f64(o, d->theta); put_f64(o, d->h);
    put_i32(o, (int)d->activation); put_f64(o, d->gamma); put_f64(o, d->persist_tol);
    put_i32(o, (int)s->method); put_f64(o, s->relax); put_i32(o, (int)s->order); put_u64(o, s->seed);
    put_i32(o, s->check_every); put_f64(o, s->tol); put_i32(o, s->max_iter); put_i32(o, (int)s->on_fail);
    put_i32(o, s->warm_start); put_f64(o, s->local_tol); put_i32(o, s->local_max_iter);
    put_i32(o, (int)s->norm); put_i32(o, s->accelerate);
    if (s->anderson) put_i32(o, s->anderson);   /* (absent before: older fingerprints unchanged) */
    if (s->residual != RC_RESIDUAL_PASS) put_i32(o, 100 + (int)s->residual);   /* (pass: as before) */
    if (s->skip_quiet != 0.0) put_f64(o, s->skip_quiet);   /* (off: as before) */
    put_i32(o, (int)d->work_check); put_f64(o, d->work_tol); put_i32(o, (int)d->joint_jacobian);
    put_i32(o, d->project_joints); put_f64(o, d->project_tol); put_i32(o, d->project_max_iter);
    if (d->project_contacts) put_i32(o, d->project_contacts);   /* (off: the fingerprint as before) */
}

void rc_ck_fingerprint(const rc_world *w, ck_section sec[CK_NSECTIONS], uint64_t *all)
{
    static void (*const fn[CK_NSECTIONS])(ck_out *, const rc_world *) = {
        hash_world, hash_bodies, hash_shapes, hash_laws, hash_rules, hash_joints, hash_springs,
        hash_linears, hash_gaps, hash_simulation
    };
    const int count[CK_NSECTIONS] = { 1, w->nbodies, w->nshapes + rc_ck_count_shapes3(w), w->nlaws, w->nrules,
                                      w->njoints + rc_ck_count_joints3(w), w->nsprings,
                                      w->nlinears, w->ngaps, 1 };
    ck_out total;
    out_init(&total, 1);
    for (int i = 0; i < CK_NSECTIONS; i++) {
        ck_out o;
        out_init(&o, 1);
        fn[i](&o, w);
        sec[i].hash = o.h;
        sec[i].count = (uint32_t)count[i];
        put_u64(&total, o.h);
        put_u32(&total, sec[i].count);
    }
    *all = total.h;
}

