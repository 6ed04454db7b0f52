/* checkpoint_life.c -- the removals in a checkpoint (docs/checkpoint.md,
 * docs/embedding.md): each slot's life record (generation, whether it is
 * free, the time and name of its last removal), the bodies and shapes added
 * at run time in removed objects' slots, and the removed energy. The model
 * fingerprint hashes every slot as the script declared it
 * (checkpoint_model.c), so a world built by the script restores a checkpoint
 * taken after removals: the removals are applied again and the added bodies
 * made again in their slots, with their generations.
 *
 * Block (the end of the state): f64 E_removed, i32 nremoved; per kind (body,
 * shape, joint, spring) i32 count, then per slot with a record: i32 slot,
 * u32 generation, i32 removed, f64 t, str name, f64 t of the first removal, and for a live body or shape
 * of generation > 0 (added at run time) what it is: a body f64 mass, f64
 * inertia, str name; a shape i32 body, i32 type, f64 radius, f64 offset[2],
 * i32 nvert, f64 vert[2 nvert], f64 point[2], normal[2], a[2], b[2], i32
 * group, str name.
 */
#include "checkpoint.h"

#include <stdio.h>
#include <string.h>

enum { L_BODY, L_SHAPE, L_JOINT, L_SPRING, L_NKIND };
static const char *const kind_name[L_NKIND] = { "body", "shape", "joint", "spring" };

static const rcm_life *lives(const rc_world *w, int what, int *n)
{
    switch (what) {
    case L_BODY: *n = w->nbody_life; return w->body_life;
    case L_SHAPE: *n = w->nshape_life; return w->shape_life;
    case L_JOINT: *n = w->njoint_life; return w->joint_life;
    default: *n = w->nspring_life; return w->spring_life;
    }
}

static int slots(const rc_world *w, int what)
{
    return what == L_BODY ? w->nbodies : what == L_SHAPE ? w->nshapes : what == L_JOINT ? w->njoints : w->nsprings;
}

static int has_record(const rcm_life *l) { return l && (l->gen || l->removed); }

/* ---------------------------------------------------------------- save */

static void put_body(ck_out *o, const rc_world *w, int b)
{
    const rc_body *bd = &w->bodies[b];
    const rc_body_ext *x = rcm_body_ext_of(w, b);
    put_f64(o, w->mass_diag[bd->iv]); put_f64(o, w->mass_diag[bd->iv + 2]);
    put_str(o, x ? x->name : NULL);
}

static void put_shape(ck_out *o, const rc_world *w, int i)
{
    int body = RC_GROUND;
    rc_shape_def d;
    (void)rc_shape_get_def(w, i, &body, &d);
    put_i32(o, body); put_i32(o, (int)d.type); put_f64(o, d.radius); put_f64s(o, d.offset, 2);
    put_i32(o, d.nvert); put_f64s(o, &d.vert[0][0], 2 * d.nvert);
    put_f64s(o, d.point, 2); put_f64s(o, d.normal, 2); put_f64s(o, d.a, 2); put_f64s(o, d.b, 2);
    put_i32(o, d.group); put_str(o, d.name);
}

void rc_ck_put_lives(ck_out *o, const rc_world *w)
{
    put_f64(o, w->E_removed); put_i32(o, w->nremoved);
    for (int what = 0; what < L_NKIND; what++) {
        int n;
        const rcm_life *arr = lives(w, what, &n);
        int count = 0;
        for (int i = 0; i < n; i++) count += has_record(&arr[i]);
        put_i32(o, count);
        for (int i = 0; i < n; i++) {
            const rcm_life *l = &arr[i];
            if (!has_record(l)) continue;
            put_i32(o, i); put_u32(o, l->gen); put_i32(o, l->removed); put_f64(o, l->t); put_str(o, l->name);
            put_f64(o, l->decl ? l->decl->t : l->t);   /* the first removal's time */
            if (l->removed) continue;
            if (what == L_BODY) put_body(o, w, i);
            else if (what == L_SHAPE) put_shape(o, w, i);
        }
    }
}

/* A body added at run time with a force function cannot be made again. */
rc_status rc_ck_check_lives(const rc_world *w)
{
    for (int b = 0; b < w->nbody_life && b < w->nbodies; b++) {
        const rcm_life *l = &w->body_life[b];
        const rc_body_ext *x = rcm_body_ext_of(w, b);
        if (l->gen && !l->removed && x && x->force_fn)
            return rc_set_error(RC_ERR_ARG, "rc_sim_save: body %d%s%s%s was added at run time (in a removed body's "
                                "slot) with a force function: a checkpoint cannot make it again", b,
                                x->name ? " '" : "", x->name ? x->name : "", x->name ? "'" : "");
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- restore */

/* A string of the state: NULL, or a copy (*bad = 1: out of memory). */
static char *get_str(ck_in *r, int *bad)
{
    const uint32_t n = get_u32(r);
    if (n == 0xffffffffu || r->short_) return NULL;
    const unsigned char *p = take(r, n);
    if (!p) return NULL;
    char *s = rcb_malloc((size_t)n + 1);
    if (!s) { *bad = 1; return NULL; }
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

typedef struct ck_life {
    int slot, removed;
    unsigned gen;
    double t, first_t;
    char *name;
    rc_body_def body;       /* a live body of generation > 0 */
    char *body_name;
    int shape_body;         /* a live shape of generation > 0 */
    rc_shape_def shape;
    char *shape_name;
} ck_life;

static void get_content(ck_in *r, int what, ck_life *c, int *bad)
{
    if (what == L_BODY) {
        c->body = rc_default_body_def();
        c->body.mass = get_f64(r); c->body.inertia = get_f64(r);
        c->body_name = get_str(r, bad);
        c->body.name = c->body_name;
    } else if (what == L_SHAPE) {
        rc_shape_def *d = &c->shape;
        *d = rc_default_shape_def();
        c->shape_body = get_i32(r); d->type = (rc_shape_type)get_i32(r); d->radius = get_f64(r);
        get_f64s(r, d->offset, 2);
        d->nvert = get_i32(r);
        if (d->nvert < 0 || d->nvert > RC_MAX_POLYGON_VERTICES) { r->short_ = 1; return; }
        get_f64s(r, &d->vert[0][0], 2 * d->nvert);
        get_f64s(r, d->point, 2); get_f64s(r, d->normal, 2); get_f64s(r, d->a, 2); get_f64s(r, d->b, 2);
        d->group = get_i32(r);
        c->shape_name = get_str(r, bad);
        d->name = c->shape_name;
    }
}

void rc_ck_lives_free(ck_lives *L)
{
    for (int what = 0; what < L_NKIND; what++) {
        for (int i = 0; i < L->n[what]; i++) {
            ck_life *c = &L->rec[what][i];
            rcb_free(c->name); rcb_free(c->body_name); rcb_free(c->shape_name);
        }
        rcb_free(L->rec[what]);
        L->rec[what] = NULL;
        L->n[what] = 0;
    }
}

static const char *slot_label(const rc_world *w, int what, int i, char *buf, size_t n)
{
    int m;
    const rcm_life *arr = lives(w, what, &m);
    const char *name = i < m && arr[i].name ? arr[i].name : NULL;
    if (what == L_BODY && !name) {
        const rc_body_ext *x = rcm_body_ext_of(w, i);
        name = x ? x->name : NULL;
    }
    if (name) snprintf(buf, n, "%s '%s' (slot %d)", kind_name[what], name, i);
    else snprintf(buf, n, "%s %d", kind_name[what], i);
    return buf;
}

/* This world's slot and the checkpoint's: the checkpoint must be this world
 * later on (as many removals or more in each slot). */
static rc_status check_slot(const char *path, const rc_world *w, int what, int i, const ck_life *c)
{
    int n;
    const rcm_life *arr = lives(w, what, &n);
    const rcm_life *l = rcm_life_of(arr, n, i);
    const unsigned gen = l ? l->gen : 0, cgen = c ? c->gen : 0;
    const int removed = l && l->removed, cremoved = c && c->removed;
    if (gen < cgen || (gen == cgen && removed == cremoved)) return RC_OK;
    char lab[300];
    slot_label(w, what, i, lab, sizeof lab);
    if (removed)
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s': the removals differ: %s was removed in this world at t = %.17g "
                            "(generation %u), not in the checkpoint (generation %u, %s)", path, lab, l->t, gen, cgen,
                            cremoved ? "removed" : "live");
    return rc_set_error(RC_ERR_ARG, "checkpoint '%s': the removals differ: %s has generation %u in this world, %u in "
                        "the checkpoint (%s)", path, lab, gen, cgen, cremoved ? "removed" : "live");
}

rc_status rc_ck_parse_lives(const char *path, const rc_world *w, ck_in *r, ck_lives *L)
{
    memset(L, 0, sizeof *L);
    L->E_removed = get_f64(r); L->nremoved = get_i32(r);
    int bad = 0;
    for (int what = 0; what < L_NKIND && !r->short_; what++) {
        const int n = get_i32(r);
        if (r->short_) break;
        if (n < 0 || n > slots(w, what))
            return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d %s records for %d slots", path, n,
                                kind_name[what], slots(w, what));
        L->rec[what] = rcb_malloc((size_t)(n ? n : 1) * sizeof(ck_life));
        if (!L->rec[what]) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(L->rec[what], 0, (size_t)(n ? n : 1) * sizeof(ck_life));
        for (int k = 0; k < n && !r->short_; k++) {
            ck_life *c = &L->rec[what][k];
            L->n[what] = k + 1;
            c->slot = get_i32(r); c->gen = get_u32(r); c->removed = get_i32(r) != 0; c->t = get_f64(r);
            c->name = get_str(r, &bad);
            c->first_t = get_f64(r);
            if (!r->short_ && (c->slot < 0 || c->slot >= slots(w, what) || (k && c->slot <= L->rec[what][k - 1].slot)))
                return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %s record of slot %d", path, kind_name[what], c->slot);
            if (!c->removed && c->gen) get_content(r, what, c, &bad);
        }
    }
    if (bad) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    if (r->short_) return RC_OK;   /* the caller reports the short state */
    for (int what = 0; what < L_NKIND; what++) {   /* every slot: this world's, then the checkpoint's */
        int k = 0;
        for (int i = 0; i < slots(w, what); i++) {
            const ck_life *c = k < L->n[what] && L->rec[what][k].slot == i ? &L->rec[what][k++] : NULL;
            RC_CHECK(check_slot(path, w, what, i, c));
        }
    }
    return RC_OK;
}

/* Slot i as the checkpoint has it: removed, or a body (shape) added at run
 * time made again there, with the checkpoint's generation. */
static rc_status apply_slot(rc_world *w, int what, const ck_life *c)
{
    int n;
    const rcm_life *arr = lives(w, what, &n);
    const rcm_life *l = rcm_life_of(arr, n, c->slot);
    if (l && l->gen == c->gen && l->removed == c->removed) return RC_OK;
    if (!rcm_is_removed(arr, n, c->slot)) RC_CHECK(rcm_remove_restore(w, what, c->slot, 0, 1, c->t, NULL));
    if (c->removed) return RC_OK;
    if (what == L_BODY) return rcm_body_recreate(w, c->slot, &c->body);
    if (what == L_SHAPE) return rcm_shape_recreate(w, c->slot, c->shape_body, &c->shape);
    return RC_OK;
}

/* Each body slot's name and generation before the restore: the columns of
 * the history the restarted run opens (as the first run's, io/output.c). */
static rc_status keep_columns(rc_world *w)
{
    rcm_restore_cols_free(w);
    if (!w->nbodies) return RC_OK;
    w->restore_cols = rcb_malloc((size_t)w->nbodies * sizeof *w->restore_cols);
    if (!w->restore_cols) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    memset(w->restore_cols, 0, (size_t)w->nbodies * sizeof *w->restore_cols);
    w->nrestore_cols = w->nbodies;
    for (int b = 0; b < w->nbodies; b++) {
        const char *name = rc_body_name(w, b);
        w->restore_cols[b].gen = rc_body_generation(w, b);
        w->restore_cols[b].name = rcb_strdup(name);
        if (name && !w->restore_cols[b].name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    }
    return RC_OK;
}

rc_status rc_ck_apply_lives(rc_world *w, const ck_lives *L)
{
    RC_CHECK(keep_columns(w));
    for (int what = 0; what < L_NKIND; what++)   /* bodies first: their shapes, joints, springs go with them */
        for (int k = 0; k < L->n[what]; k++) RC_CHECK(apply_slot(w, what, &L->rec[what][k]));
    for (int what = 0; what < L_NKIND; what++)
        for (int k = 0; k < L->n[what]; k++) {
            const ck_life *c = &L->rec[what][k];
            RC_CHECK(rcm_remove_restore(w, what, c->slot, c->gen, c->removed, c->t, c->name));
            int n;
            const rcm_life *arr = lives(w, what, &n);
            if (c->slot < n && arr[c->slot].decl) arr[c->slot].decl->t = c->first_t;
        }
    w->E_removed = L->E_removed;
    w->nremoved = L->nremoved;
    rcm_removed_log_free(w);   /* run.json lists the removals after the restore */
    return RC_OK;
}
