/* checkpoint_c3.c -- what a checkpoint holds of a dim = 3 world (rc_sim_save,
 * rc_sim_restore; docs/checkpoint.md): the fingerprint of its shapes and
 * joints, and the state a step of it reads that the last step wrote.
 *
 * State block (at the end of the state, format 6): i32 has (0: no spatial
 * store); then i32 next contact id, i32 n and n contacts of the last step
 * (u64 key, i32 id, i32 law, f64 t1[3], f64 p[3], f64 state[RC_LAW_MAX_STATE]:
 * the warm start, the tangent frame that follows the contact, the law's
 * state), i32 n and n drilling rows (u64 key, f64 p_D), i32 n and n joints
 * (f64 lambda[RCM_J3_MAXROWS], work, violation). The bodies' q, v and
 * constant forces are in the common part of the state; the rows, Delassus
 * blocks and the gyroscopic iteration matrix are rebuilt by the next step. */
#include "checkpoint.h"

#define C3_REC_BYTES (8 + 4 + 4 + (6 + RC_LAW_MAX_STATE) * 8)
#define C3_DRILL_BYTES (8 + 8)
#define C3_JOINT_BYTES ((RCM_J3_MAXROWS + 2) * 8)

/* ---------------------------------------------------------------- fingerprint */

int rc_ck_count_shapes3(const rc_world *w) { return w->c3 ? w->c3->nshapes : 0; }
int rc_ck_count_joints3(const rc_world *w) { return w->j3 ? w->j3->n : 0; }

/* kinds, bodies, sizes, placement of obstacles, groups, polyhedra */
void rc_ck_hash_shapes3(ck_out *o, const rc_world *w)
{
    const rcm_c3 *c3 = w->c3;
    for (int i = 0; c3 && i < c3->nshapes; i++) {
        const rcm_shape3 *s = &c3->shapes[i];
        put_i32(o, s->body); put_i32(o, s->kind); put_i32(o, s->group);
        put_f64(o, s->radius); put_f64(o, s->half_len); put_f64s(o, s->half, 3);
        put_f64s(o, s->point, 3); put_f64s(o, s->normal, 3); put_f64(o, s->bound);
        put_i32(o, s->nv); put_i32(o, s->nf); put_i32(o, s->ne); put_i32(o, s->nl);
        if (s->nv > 0) {
            put_f64s(o, c3->pd + s->pd, 3 * s->nv + 4 * s->nf);
            const int ni = s->nf + 1 + 2 * s->nl + 4 * s->ne;
            for (int k = 0; k < ni; k++) put_i32(o, c3->pi[s->pi + k]);
        }
    }
}

void rc_ck_hash_joints3(ck_out *o, const rc_world *w)
{
    for (int i = 0; i < rc_ck_count_joints3(w); i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        put_i32(o, j->type); put_i32(o, j->body_a); put_i32(o, j->body_b); put_i32(o, j->rows);
        put_f64s(o, j->pa, 3); put_f64s(o, j->pb, 3); put_f64s(o, j->ua, 3); put_f64s(o, j->ub, 3);
        put_f64s(o, j->qrel, 4); put_f64(o, j->length);
        put_str(o, j->name);
        if (j->drive) { put_i32(o, j->drive); put_f64(o, j->offset); }   /* (driven joints only: older hashes stay) */
    }
}

/* ---------------------------------------------------------------- state */

void rc_ck_put_c3(ck_out *o, const rc_world *w)
{
    const rcm_c3 *c3 = w->c3;
    put_i32(o, c3 != NULL);
    if (!c3) return;
    put_i32(o, c3->next_id);
    put_i32(o, c3->nprev);
    for (int i = 0; i < c3->nprev; i++) {
        const rcm_contact3_saved *c = &c3->prev[i];
        put_u64(o, c->key); put_i32(o, c->id); put_i32(o, c->law);
        put_f64s(o, c->t1, 3); put_f64s(o, c->p, 3); put_f64s(o, c->state, RC_LAW_MAX_STATE);
    }
    put_i32(o, c3->ndprev);
    for (int i = 0; i < c3->ndprev; i++) { put_u64(o, c3->dprev[i].key); put_f64(o, c3->dprev[i].p); }
    const int nj = rc_ck_count_joints3(w);
    put_i32(o, nj);
    for (int i = 0; i < nj; i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        put_f64s(o, j->lambda, RCM_J3_MAXROWS); put_f64(o, j->work); put_f64(o, j->viol);
    }
}

/* a count read from the block: within [0, what the bytes left can hold] */
static int count_ok(const ck_in *r, int n, size_t bytes)
{
    return n >= 0 && (size_t)n <= (r->n - r->off) / bytes;
}

rc_status rc_ck_parse_c3(const char *path, const rc_world *w, ck_in *r, ck_c3 *s)
{
    memset(s, 0, sizeof *s);
    s->has = get_i32(r);
    if (r->short_) return RC_OK;
    if (s->has != (w->c3 != NULL))
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: spatial contact state flag %d, the world %s one",
                            path, s->has, w->c3 ? "has" : "has none");
    if (!s->has) return RC_OK;
    s->next_id = get_i32(r);
    s->nprev = get_i32(r);
    if (!r->short_ && (s->next_id < 0 || !count_ok(r, s->nprev, C3_REC_BYTES)))
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d spatial contacts (next id %d)", path, s->nprev,
                            s->next_id);
    s->prev_at = r->off;
    uint64_t last = 0;
    for (int i = 0; i < s->nprev && !r->short_; i++) {   /* sorted keys (a binary search reads them), valid ids and laws */
        const uint64_t key = get_u64(r);
        const int id = get_i32(r), law = get_i32(r);
        take(r, (6 + RC_LAW_MAX_STATE) * 8);
        if ((i > 0 && key <= last) || id < 0 || id >= s->next_id || law < 0 || law >= w->nlaws)
            return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: spatial contact %d (key %llu, id %d, law %d)",
                                path, i, (unsigned long long)key, id, law);
        last = key;
    }
    s->ndprev = get_i32(r);
    if (!r->short_ && !count_ok(r, s->ndprev, C3_DRILL_BYTES))
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d drilling rows", path, s->ndprev);
    s->dprev_at = r->off;
    last = 0;
    for (int i = 0; i < s->ndprev && !r->short_; i++) {
        const uint64_t key = get_u64(r);
        take(r, 8);
        if (i > 0 && key <= last)
            return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: drilling row %d out of order", path, i);
        last = key;
    }
    const int nj = get_i32(r);
    if (!r->short_ && nj != rc_ck_count_joints3(w))
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d spatial joints, the world has %d", path, nj,
                            rc_ck_count_joints3(w));
    s->joints_at = r->off;
    take(r, (size_t)(nj > 0 ? nj : 0) * C3_JOINT_BYTES);
    return RC_OK;
}

rc_status rc_ck_reserve_c3(rc_world *w, const ck_c3 *s)
{
    if (!s->has) return RC_OK;
    rcm_c3 *c3 = w->c3;
    RC_CHECK(rcb_reserve((void **)&c3->prev, &c3->cap_prev, s->nprev, sizeof(rcm_contact3_saved)));
    RC_CHECK(rcb_reserve((void **)&c3->dprev, &c3->cap_dprev, s->ndprev, sizeof(rcm_drill3)));
    return RC_OK;
}

/* after rc_ck_reserve_c3: nothing here fails. This step's contacts are
 * cleared (w:contacts3() lists them again after the next step). */
void rc_ck_commit_c3(rc_world *w, const unsigned char *raw, const ck_c3 *s)
{
    if (!s->has) return;
    rcm_c3 *c3 = w->c3;
    ck_in r = { raw, (size_t)-1, s->prev_at, 0 };
    for (int i = 0; i < s->nprev; i++) {
        rcm_contact3_saved *c = &c3->prev[i];
        c->key = get_u64(&r); c->id = get_i32(&r); c->law = get_i32(&r);
        get_f64s(&r, c->t1, 3); get_f64s(&r, c->p, 3); get_f64s(&r, c->state, RC_LAW_MAX_STATE);
    }
    c3->nprev = s->nprev;
    r.off = s->dprev_at;
    for (int i = 0; i < s->ndprev; i++) {
        rcm_drill3 *d = &c3->dprev[i];
        memset(d, 0, sizeof *d);
        d->key = get_u64(&r); d->p = get_f64(&r); d->on = 1;
    }
    c3->ndprev = s->ndprev;
    c3->next_id = s->next_id;
    c3->n = c3->nactive = c3->ndrill = 0;
    r.off = s->joints_at;
    for (int i = 0; i < rc_ck_count_joints3(w); i++) {
        rcm_joint3 *j = &w->j3->j[i];
        get_f64s(&r, j->lambda, RCM_J3_MAXROWS); j->work = get_f64(&r); j->viol = get_f64(&r);
    }
}
