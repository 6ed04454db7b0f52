/* remove.c -- removing bodies, shapes, joints and springs between steps, and
 * the slots' generations (docs/embedding.md).
 *
 * Slots are kept: a removed body keeps its index and its dofs (iq, iv) and
 * becomes a body of the kind RCM_BODY_REMOVED (body_kinds.c: V_0 = 0, no
 * gravity, no energy, q unchanged), its shapes become RCM_SHAPE_REMOVED
 * (no features: never paired), its joints have no rows, its springs no
 * force. So nothing in a step changes size and no loop of the stages needs a
 * new branch. The contacts of the state (w->rec) of removed shapes are
 * dropped at once, so that nothing reports them; the step's work list is
 * rebuilt by the next detection.
 *
 * Each slot has a generation (w->*_life, grown when something is first
 * removed), incremented at each removal; rc_body_ref pairs an index with it,
 * so that a handle kept by a host never designates a newer body in the
 * reused slot (Box2D v3's b2BodyId). rc_body_create and rc_shape_create
 * reuse the lowest free slot of their kind (deterministic), so that adding
 * and removing bodies allocates nothing once the arrays have grown.
 *
 * The energy a removed body had (E_kin + E_pot) leaves the books as
 * w->E_removed: E_final + E_removed - E0 = the works (run.json's
 * energy.E_removed; each step's balance, eq. 65, starts after the removal).
 */
#include "model/model.h"

#include <string.h>

enum { LIFE_BODY, LIFE_SHAPE, LIFE_JOINT, LIFE_SPRING };

static rcm_life **life_arr(rc_world *w, int what, int **n)
{
    switch (what) {
    case LIFE_BODY: *n = &w->nbody_life; return &w->body_life;
    case LIFE_SHAPE: *n = &w->nshape_life; return &w->shape_life;
    case LIFE_JOINT: *n = &w->njoint_life; return &w->joint_life;
    default: *n = &w->nspring_life; return &w->spring_life;
    }
}

static int object_count(const rc_world *w, int what)
{
    return what == LIFE_BODY ? w->nbodies : what == LIFE_SHAPE ? w->nshapes
         : what == LIFE_JOINT ? w->njoints : w->nsprings;
}

/* The life record of slot i (the array grown to the object count, zeros). */
static rc_status life_slot(rc_world *w, int what, int i, rcm_life **out)
{
    int *n;
    rcm_life **arr = life_arr(w, what, &n);
    const int need = object_count(w, what);
    if (*n < need) {
        rcm_life *a = rcb_realloc(*arr, (size_t)need * sizeof(rcm_life));
        if (!a) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(a + *n, 0, (size_t)(need - *n) * sizeof(rcm_life));
        *arr = a;
        *n = need;
    }
    *out = &(*arr)[i];
    return RC_OK;
}

static void life_mark(rcm_life *l, double t, char *name, int kind, int body)
{
    l->gen++;
    l->removed = 1;
    l->t = t;
    rcb_free(l->name);
    l->name = name;
    l->kind = kind;
    l->body = body;
}

void rcm_life_revive(rcm_life *arr, int n, int i)
{
    if (!arr || i < 0 || i >= n) return;
    arr[i].removed = 0;
    rcb_free(arr[i].name);
    arr[i].name = NULL;
}

/* What a declaration owns (the record itself is in a block of w->decl_blocks). */
static void decl_free(rcm_decl *d)
{
    if (!d) return;
    if (d->name != d->name_short) rcb_free(d->name);
    if (d->shape.nvert > 0) rcb_free(d->shape.vert);
}

/* A zeroed declaration record from the world's blocks: a new block, as large
 * as the world's bodies and shapes (at least 64), when the last is used up. */
static rcm_decl *decl_new(rc_world *w)
{
    if (w->decl_left == 0) {
        const int n = 2 * (w->nbodies + w->nshapes) > 64 ? 2 * (w->nbodies + w->nshapes) : 64;
        rcm_decl **bl = rcb_realloc(w->decl_blocks, (size_t)(w->ndecl_blocks + 1) * sizeof *bl);
        if (!bl) return NULL;
        w->decl_blocks = bl;
        rcm_decl *b = rcb_malloc((size_t)n * sizeof *b);
        if (!b) return NULL;
        w->decl_blocks[w->ndecl_blocks++] = b;
        w->decl_next = b;
        w->decl_left = n;
    }
    rcm_decl *d = w->decl_next++;
    w->decl_left--;
    memset(d, 0, sizeof *d);
    return d;
}

/* What slot i held before its first removal (l->decl), for the model's
 * fingerprint: the body, or the shape, and its name. */
static rc_status decl_keep(rc_world *w, int what, int i, rcm_life *l)
{
    if (l->decl || l->gen) return RC_OK;
    rcm_decl *d = decl_new(w);
    if (!d) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    const char *name = NULL;
    if (what == LIFE_BODY) {
        d->body = w->bodies[i];
        memcpy(d->mass_diag, w->mass_diag + d->body.iv, 3 * sizeof(double));
        const rc_body_ext *x = rcm_body_ext_of(w, i);
        d->force_fn = x && x->force_fn;
        name = x ? x->name : NULL;
    } else {
        d->shape = w->shapes[i];
        d->shape.wvert = d->shape.wnorm = NULL;
        d->shape.name = NULL;
        name = w->shapes[i].name;
        if (d->shape.nvert > 0) {
            d->shape.vert = rcb_malloc((size_t)d->shape.nvert * sizeof *d->shape.vert);
            if (!d->shape.vert) { d->shape.nvert = 0; return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
            memcpy(d->shape.vert, w->shapes[i].vert, (size_t)d->shape.nvert * sizeof *d->shape.vert);
        }
    }
    if (name && strlen(name) < sizeof d->name_short) d->name = strcpy(d->name_short, name);
    else d->name = rcb_strdup(name);
    d->t = w->t;
    if (name && !d->name) { decl_free(d); memset(d, 0, sizeof *d); return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
    l->decl = d;
    return RC_OK;
}

void rcm_life_free(rc_world *w)
{
    for (int what = LIFE_BODY; what <= LIFE_SPRING; what++) {
        int *n;
        rcm_life **arr = life_arr(w, what, &n);
        for (int i = 0; i < *n; i++) { rcb_free((*arr)[i].name); decl_free((*arr)[i].decl); }
        rcb_free(*arr);
        *arr = NULL;
        *n = 0;
    }
    for (int i = 0; i < w->ndecl_blocks; i++) rcb_free(w->decl_blocks[i]);
    rcb_free(w->decl_blocks);
    w->decl_blocks = NULL;
    w->ndecl_blocks = w->decl_left = 0;
    w->decl_next = NULL;
    rcm_restore_cols_free(w);
    rcm_joint_break_free(w);
    rcm_removed_log_free(w);
}

void rcm_restore_cols_free(rc_world *w)
{
    for (int i = 0; i < w->nrestore_cols; i++) rcb_free(w->restore_cols[i].name);
    rcb_free(w->restore_cols);
    w->restore_cols = NULL;
    w->nrestore_cols = 0;
}

const char *rcm_body_column(const rc_world *w, int id, unsigned *gen)
{
    if (w->restore_cols && w->step == w->restore_step && id >= 0 && id < w->nrestore_cols) {
        *gen = w->restore_cols[id].gen;
        return w->restore_cols[id].name;
    }
    *gen = rc_body_generation(w, id);
    return rc_body_name(w, id);
}

static rc_status removed_error(const char *what, const char *kind, int id, const rcm_life *l)
{
    if (l->name)
        return rc_set_error(RC_ERR_NOT_FOUND, "%s: %s '%s' (id %d) was removed at t = %.17g", what, kind, l->name, id, l->t);
    return rc_set_error(RC_ERR_NOT_FOUND, "%s: %s %d was removed at t = %.17g", what, kind, id, l->t);
}

rc_status rcm_body_check(const rc_world *w, int id, const char *what)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "world is NULL");
    if (rcm_valid_body(w, id)) return RC_OK;
    if (rcm_is_removed(w->body_life, w->nbody_life, id)) return removed_error(what, "body", id, &w->body_life[id]);
    return rc_set_error(RC_ERR_NOT_FOUND, "no body with id %d", id);
}

int rcm_body_free_slot(const rc_world *w)
{
    for (int i = 0; i < w->nbody_life; i++)
        if (w->body_life[i].removed && w->bodies[i].nv == 3) return i;
    return -1;
}

int rcm_shape_free_slot(const rc_world *w)
{
    for (int i = 0; i < w->nshape_life; i++)
        if (w->shape_life[i].removed) return i;
    return -1;
}

/* ---------------------------------------------------------------- the state's contacts */

/* Drop the contacts of the state whose shape a or b is removed. */
static void drop_contacts(rc_world *w)
{
    int k = 0;
    for (int i = 0; i < w->nrec; i++) {
        const uint64_t key = w->rec[i].key;
        const int sa = (int)(key >> 40), sb = (int)((key >> 16) & 0xFFFFFF);
        const int gap = sa == 0xFFFFFF;
        if (!gap && (rcm_is_removed(w->shape_life, w->nshape_life, sb)
                     || rcm_is_removed(w->shape_life, w->nshape_life, sa))) continue;
        if (k != i) {
            w->rec[k] = w->rec[i];
            if (w->geom_at == RCM_GEOM_CONTACTS) w->contacts[k] = w->contacts[i];   /* its geometry (rc_contact_geom) */
            else if (w->geom_at == RCM_GEOM_OWN) w->geom[k] = w->geom[i];
            if (w->rec_has_state)
                memcpy(w->rec_state + (size_t)k * RC_LAW_MAX_STATE, w->rec_state + (size_t)i * RC_LAW_MAX_STATE,
                       RC_LAW_MAX_STATE * sizeof(double));
        }
        k++;
    }
    w->nrec = k;
    if (w->geom_at == RCM_GEOM_CONTACTS) w->ncontacts = k;
}

/* ---------------------------------------------------------------- removal */

static rc_status check_editable(const rc_world *w, const char *what)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: world is NULL", what);
    if (w->stepping) return rc_set_error(RC_ERR_STATE, "%s: not allowed while the world is stepping (remove between steps)", what);
    return RC_OK;
}

static rc_status shape_remove(rc_world *w, int id)
{
    rc_shape *s = &w->shapes[id];
    rcm_life *l = NULL;
    RC_CHECK(life_slot(w, LIFE_SHAPE, id, &l));
    RC_CHECK(decl_keep(w, LIFE_SHAPE, id, l));
    life_mark(l, w->t, s->name, (int)s->type, s->body);   /* the name moves to the record */
    s->name = NULL;
    s->type = RCM_SHAPE_REMOVED;
    s->body = RC_GROUND;
    s->group = 0;
    return RC_OK;
}

rc_status rc_shape_destroy(rc_world *w, int id)
{
    RC_CHECK(check_editable(w, "rc_shape_destroy"));
    if (rcm_is_removed(w->shape_life, w->nshape_life, id))
        return removed_error("rc_shape_destroy", "shape", id, &w->shape_life[id]);
    if (id < 0 || id >= w->nshapes) return rc_set_error(RC_ERR_NOT_FOUND, "rc_shape_destroy: no shape with id %d", id);
    rcm_sleep_wake(w, w->shapes[id].body);   /* (sleep.c) */
    RC_CHECK(shape_remove(w, id));
    drop_contacts(w);
    return rcm_world_rebuild_slots(w);
}

static rc_status joint_remove(rc_world *w, int id)
{
    rc_joint *j = &w->joints[id];
    rcm_life *l = NULL;
    RC_CHECK(life_slot(w, LIFE_JOINT, id, &l));
    life_mark(l, w->t, rcb_strdup(j->name), j->rows, j->def.body_b);
    j->rows = 0;   /* no rows: no impulse, no work, no projection (joint.c) */
    memset(j->lambda, 0, sizeof j->lambda);
    memset(j->mu_v, 0, sizeof j->mu_v);
    j->wstart = j->work = j->res = 0.0;
    return RC_OK;
}

rc_status rcm_joint_remove(rc_world *w, int id) { return joint_remove(w, id); }

rc_status rc_joint_destroy(rc_world *w, int id)
{
    RC_CHECK(check_editable(w, "rc_joint_destroy"));
    if (rcm_is_removed(w->joint_life, w->njoint_life, id))
        return removed_error("rc_joint_destroy", "joint", id, &w->joint_life[id]);
    if (id < 0 || id >= w->njoints) return rc_set_error(RC_ERR_NOT_FOUND, "rc_joint_destroy: no joint with id %d", id);
    return joint_remove(w, id);
}

static rc_status spring_remove(rc_world *w, int id)
{
    rcm_life *l = NULL;
    RC_CHECK(life_slot(w, LIFE_SPRING, id, &l));
    life_mark(l, w->t, rcb_strdup(w->springs[id].name), (int)w->springs[id].def.type, w->springs[id].def.body_b);
    w->springs[id].removed = 1;
    return RC_OK;
}

rc_status rc_spring_destroy(rc_world *w, int id)
{
    RC_CHECK(check_editable(w, "rc_spring_destroy"));
    if (rcm_is_removed(w->spring_life, w->nspring_life, id))
        return removed_error("rc_spring_destroy", "spring", id, &w->spring_life[id]);
    if (id < 0 || id >= w->nsprings) return rc_set_error(RC_ERR_NOT_FOUND, "rc_spring_destroy: no spring with id %d", id);
    return spring_remove(w, id);
}

/* run.json's "removed": the first RC_BREAK_LOG removals, all counted. */
static rc_status log_removal(rc_world *w, int b, const rcm_life *l)
{
    w->nremoved_since++;
    if (w->nremoved_log >= RC_BREAK_LOG) return RC_OK;
    if (!w->removed_log) {
        w->removed_log = rcb_malloc(RC_BREAK_LOG * sizeof *w->removed_log);
        if (!w->removed_log) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    }
    struct rcm_removed *r = &w->removed_log[w->nremoved_log];
    r->id = b; r->gen = l->gen - 1; r->t = l->t;
    r->name = rcb_strdup(l->name);
    if (l->name && !r->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    w->nremoved_log++;
    return RC_OK;
}

void rcm_removed_log_free(rc_world *w)
{
    for (int i = 0; i < w->nremoved_log; i++) rcb_free(w->removed_log[i].name);
    rcb_free(w->removed_log);
    w->removed_log = NULL;
    w->nremoved_log = 0;
    w->nremoved_since = 0;
}

/* The body's slot becomes free: its energy leaves the books, its name moves
 * to the life record, its velocity is zero. */
static rc_status body_remove(rc_world *w, int b)
{
    rc_body *bd = &w->bodies[b];
    rcm_life *l = NULL;
    RC_CHECK(life_slot(w, LIFE_BODY, b, &l));
    RC_CHECK(decl_keep(w, LIFE_BODY, b, l));
    double acc[3] = { 0.0, 0.0, 0.0 };
    rcm_body_ops_of(bd)->energy(w, bd, w->q, w->v, acc);
    w->E_removed += 0.5 * acc[0] + acc[1];
    rc_body_ext *x = rcm_body_ext_of(w, b);
    life_mark(l, w->t, x ? x->name : NULL, (int)bd->kind, b);
    if (x) {
        x->name = NULL;
        memset(x->force, 0, sizeof x->force);
        x->force_fn = NULL;
        x->force_user = NULL;
    }
    bd->kind = RCM_BODY_REMOVED;
    memset(w->v + bd->iv, 0, (size_t)bd->nv * sizeof(double));
    w->nremoved++;
    return log_removal(w, b, l);
}

rc_status rc_body_destroy(rc_world *w, int id)
{
    RC_CHECK(check_editable(w, "rc_body_destroy"));
    RC_CHECK(rcm_body_check(w, id, "rc_body_destroy"));
    if (w->bodies[id].kind == RC_BODY_RIGID3D)
        return rc_set_error(RC_ERR_ARG, "rc_body_destroy: body %d is a spatial body; removing spatial bodies is not available yet", id);
    if (w->bodies[id].kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "rc_body_destroy: body %d is a linear body; only rigid bodies can be removed", id);
    rcm_sleep_wake(w, id);   /* its island (its neighbours) wakes (sleep.c) */
    for (int i = 0; i < w->nshapes; i++)
        if (w->shapes[i].body == id) RC_CHECK(shape_remove(w, i));
    for (int i = 0; i < w->njoints; i++)
        if (w->joints[i].rows && (w->joints[i].def.body_a == id || w->joints[i].def.body_b == id))
            RC_CHECK(joint_remove(w, i));
    for (int i = 0; i < w->nsprings; i++)
        if (!w->springs[i].removed && (w->springs[i].def.body_a == id || w->springs[i].def.body_b == id))
            RC_CHECK(spring_remove(w, i));
    RC_CHECK(body_remove(w, id));
    drop_contacts(w);
    return rcm_world_rebuild_slots(w);
}

/* ---------------------------------------------------------------- ids with generations */

rc_ref rc_body_ref(const rc_world *w, int id)
{
    rc_ref r = { -1, 0 };
    if (!rcm_valid_body(w, id)) return r;
    const rcm_life *l = rcm_life_of(w->body_life, w->nbody_life, id);
    r.index = id;
    r.generation = l ? l->gen : 0;
    return r;
}

rc_status rc_body_ref_get(const rc_world *w, rc_ref ref, int *id)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "world is NULL");
    if (ref.index < 0 || ref.index >= w->nbodies) return rc_set_error(RC_ERR_NOT_FOUND, "no body with id %d", ref.index);
    const rcm_life *l = rcm_life_of(w->body_life, w->nbody_life, ref.index);
    const unsigned gen = l ? l->gen : 0;
    if (gen != ref.generation || (l && l->removed)) {
        if (l && l->removed && gen == ref.generation + 1) return removed_error("rc_body_ref_get", "body", ref.index, l);
        return rc_set_error(RC_ERR_NOT_FOUND, "body %d of generation %u was removed (the slot holds generation %u%s)",
                            ref.index, ref.generation, gen, l && l->removed ? ", free" : "");
    }
    if (id) *id = ref.index;
    return RC_OK;
}

int rc_body_ref_valid(const rc_world *w, rc_ref ref)
{
    if (!w || ref.index < 0 || ref.index >= w->nbodies || !rcm_valid_body(w, ref.index)) return 0;
    const rcm_life *l = rcm_life_of(w->body_life, w->nbody_life, ref.index);
    return (l ? l->gen : 0) == ref.generation;
}

int rc_body_is_removed(const rc_world *w, int id)
{
    return w && rcm_is_removed(w->body_life, w->nbody_life, id);
}

unsigned rc_body_generation(const rc_world *w, int id)
{
    const rcm_life *l = w ? rcm_life_of(w->body_life, w->nbody_life, id) : NULL;
    return l ? l->gen : 0;
}

int rc_shape_is_removed(const rc_world *w, int id) { return w && rcm_is_removed(w->shape_life, w->nshape_life, id); }
int rc_joint_is_removed(const rc_world *w, int id) { return w && rcm_is_removed(w->joint_life, w->njoint_life, id); }
int rc_spring_is_removed(const rc_world *w, int id) { return w && rcm_is_removed(w->spring_life, w->nspring_life, id); }

rc_status rc_body_removal(const rc_world *w, int id, double *t, const char **name)
{
    if (!w || !rcm_is_removed(w->body_life, w->nbody_life, id))
        return rc_set_error(RC_ERR_NOT_FOUND, "body %d is not a removed body", id);
    if (t) *t = w->body_life[id].t;
    if (name) *name = w->body_life[id].name;
    return RC_OK;
}

rc_status rc_body_first_removal(const rc_world *w, int id, double *t)
{
    const rcm_life *l = w ? rcm_life_of(w->body_life, w->nbody_life, id) : NULL;
    if (!l || !l->decl) return rc_set_error(RC_ERR_NOT_FOUND, "no body was removed from slot %d", id);
    if (t) *t = l->decl->t;
    return RC_OK;
}

static rc_status link_removal(const rcm_life *arr, int n, const char *kind, int id, double *t, const char **name)
{
    if (!rcm_is_removed(arr, n, id)) return rc_set_error(RC_ERR_NOT_FOUND, "%s %d is not a removed %s", kind, id, kind);
    if (t) *t = arr[id].t;
    if (name) *name = arr[id].name;
    return RC_OK;
}

rc_status rc_joint_removal(const rc_world *w, int id, double *t, const char **name)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "world is NULL");
    return link_removal(w->joint_life, w->njoint_life, "joint", id, t, name);
}

rc_status rc_spring_removal(const rc_world *w, int id, double *t, const char **name)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "world is NULL");
    return link_removal(w->spring_life, w->nspring_life, "spring", id, t, name);
}

double rc_world_removed_energy(const rc_world *w) { return w ? w->E_removed : 0.0; }

/* ---------------------------------------------------------------- checkpoints */

/* Make slot i of kind what (0 body, 1 shape, 2 joint, 3 spring) as the
 * checkpoint says: removed at t with its name, of generation gen. */
rc_status rcm_remove_restore(rc_world *w, int what, int i, unsigned gen, int removed, double t, const char *name)
{
    if (i < 0 || i >= object_count(w, what)) return rc_set_error(RC_ERR_ARG, "checkpoint: removal of slot %d out of range", i);
    int *n;
    rcm_life **arr = life_arr(w, what, &n);
    const int was = rcm_is_removed(*arr, *n, i);
    if (removed && !was) {
        const double t0 = w->t;
        w->t = t;
        rc_status s = what == LIFE_BODY ? rc_body_destroy(w, i) : what == LIFE_SHAPE ? rc_shape_destroy(w, i)
                    : what == LIFE_JOINT ? rc_joint_destroy(w, i) : rc_spring_destroy(w, i);
        w->t = t0;
        RC_CHECK(s);
    } else if (!removed && was) {
        return rc_set_error(RC_ERR_ARG, "checkpoint: slot %d is removed in this world, not in the checkpoint", i);
    }
    if (!gen && !removed) return RC_OK;
    rcm_life *l = NULL;
    RC_CHECK(life_slot(w, what, i, &l));
    l->gen = gen;
    if (removed) l->t = t;
    if (removed && name && (!l->name || strcmp(l->name, name) != 0)) {
        rcb_free(l->name);
        l->name = rcb_strdup(name);
    }
    return RC_OK;
}

/* The free slots below i are hidden while a body (shape) is created, so that
 * it takes slot i (rc_body_create and rc_shape_create take the lowest). */
static void hide_free_below(rcm_life *arr, int i, unsigned char *was)
{
    for (int k = 0; k < i; k++) { was[k] = (unsigned char)arr[k].removed; arr[k].removed = 0; }
}
static void unhide(rcm_life *arr, int i, const unsigned char *was)
{
    for (int k = 0; k < i; k++) arr[k].removed = was[k];
}

rc_status rcm_body_recreate(rc_world *w, int i, const rc_body_def *def)
{
    if (!rcm_is_removed(w->body_life, w->nbody_life, i)) return rc_set_error(RC_ERR_STATE, "body slot %d is not free", i);
    unsigned char *was = rcb_malloc((size_t)i + 1);
    if (!was) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    hide_free_below(w->body_life, i, was);
    int id = -1;
    rc_status s = rc_body_create(w, def, &id);
    unhide(w->body_life, i, was);
    rcb_free(was);
    if (s == RC_OK && id != i) s = rc_set_error(RC_ERR_STATE, "body slot %d: the new body took slot %d", i, id);
    return s;
}

rc_status rcm_shape_recreate(rc_world *w, int i, int body, const rc_shape_def *def)
{
    if (!rcm_is_removed(w->shape_life, w->nshape_life, i)) return rc_set_error(RC_ERR_STATE, "shape slot %d is not free", i);
    unsigned char *was = rcb_malloc((size_t)i + 1);
    if (!was) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    hide_free_below(w->shape_life, i, was);
    int id = -1;
    rc_status s = rc_shape_create(w, body, def, &id);
    unhide(w->shape_life, i, was);
    rcb_free(was);
    if (s == RC_OK && id != i) s = rc_set_error(RC_ERR_STATE, "shape slot %d: the new shape took slot %d", i, id);
    return s;
}
