/*
 * checkpoint.c -- save the state of a run to a file and restore it into a
 * world built by the same script (rc_sim_save, rc_sim_restore;
 * docs/checkpoint.md).
 *
 * What is saved is the state, everything a step reads that an earlier step
 * wrote (rc_world field by field, see docs/checkpoint.md): t as t_origin +
 * t_steps h, the step count, q, v, the contacts of the last step (ids, keys,
 * impulses for the warm start, law states), the joints' multipliers and
 * reports, the next contact id, the periodic wrap term, the persistence
 * band, the step info with its totals, the run statistics, the threading
 * back-off, and the settings a callback may change between steps (constant
 * forces, built-in laws' coefficients). The model (what the script declared)
 * is not saved: a fingerprint of it is, so that a checkpoint is refused by a
 * world of another model. Work arrays are neither.
 *
 * File (all integers little-endian, doubles as their IEEE-754 bits):
 *   magic "\x89RCCKPT\n", u32 format version, char[16] library version,
 *   u32 header length, u64 fingerprint, u32 sections, per section
 *   (u64 hash, u32 count), u32 scheme, f64 theta, f64 h, f64 t, i64 step,
 *   u64 state length, u64 compressed length;
 *   the state, zlib-compressed; u32 CRC-32 (zlib) of everything before it.
 * Format 4 added gen-alpha's nu per contact and its state: the state ends with
 * i32 variant (0: none) and then four arrays of nv doubles (a_n, vdot~_n or
 * a-bar_n, q, v) and, for the frictional variant, i32 n and n contact
 * records (u64 key, 7 doubles). Format 6 added a dim = 3 world's contacts and
 * joints at the end (checkpoint_c3.c) and its shapes and joints to the
 * fingerprint; a spatial body's constant force is its 6 numbers.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync */
#include "checkpoint.h"
#include "integrate/integrate.h"   /* the generalized-alpha scheme's state across steps */

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CK_MAGIC "\x89RCCKPT\n"
#define CK_MAGIC_LEN 8
#define CK_FORMAT ((uint32_t)RC_CHECKPOINT_FORMAT)
#define CK_VERSION_LEN 16

/* ---------------------------------------------------------------- the state */

static void put_info(ck_out *o, const rc_step_info *in)
{
    put_f64(o, in->t); put_i64(o, in->step); put_i32(o, in->iterations); put_f64(o, in->residual);
    put_i32(o, in->converged); put_i32(o, in->worst_contact); put_i32(o, in->ncontacts); put_i32(o, in->nactive);
    const double d[] = { in->E, in->E_kin, in->E_pot, in->W_ext, in->W_N, in->W_T, in->W_theta, in->balance,
                         in->W_ext_total, in->W_N_total, in->W_T_total, in->W_theta_total, in->max_contact_work,
                         in->W_J, in->W_damp, in->W_proj, in->W_J_total, in->W_damp_total, in->W_proj_total,
                         in->E_proj, in->E_proj_total, in->persist_band, in->E_spring, in->E_elastic,
                         in->joint_pos_violation, in->joint_vel_violation, in->W_motor, in->W_motor_total };
    put_f64s(o, d, (int)(sizeof d / sizeof d[0]));
    put_i32(o, in->newton_fallback);
    put_f64(o, in->W_proj_contacts); put_i32(o, in->proj_sweeps); put_f64(o, in->proj_overlap);
    put_f64(o, in->WT_max_pos); put_f64(o, in->WT_min_neg);   /* format 5 */
}

static void get_info(ck_in *r, rc_step_info *in)
{
    in->t = get_f64(r); in->step = get_i64(r); in->iterations = get_i32(r); in->residual = get_f64(r);
    in->converged = get_i32(r); in->worst_contact = get_i32(r); in->ncontacts = get_i32(r); in->nactive = get_i32(r);
    double *const d[] = { &in->E, &in->E_kin, &in->E_pot, &in->W_ext, &in->W_N, &in->W_T, &in->W_theta, &in->balance,
                          &in->W_ext_total, &in->W_N_total, &in->W_T_total, &in->W_theta_total, &in->max_contact_work,
                          &in->W_J, &in->W_damp, &in->W_proj, &in->W_J_total, &in->W_damp_total, &in->W_proj_total,
                          &in->E_proj, &in->E_proj_total, &in->persist_band, &in->E_spring, &in->E_elastic,
                          &in->joint_pos_violation, &in->joint_vel_violation, &in->W_motor, &in->W_motor_total };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) *d[i] = get_f64(r);
    in->newton_fallback = get_i32(r);
    in->W_proj_contacts = get_f64(r); in->proj_sweeps = get_i32(r); in->proj_overlap = get_f64(r);
    in->WT_max_pos = get_f64(r); in->WT_min_neg = get_f64(r);
}

/* memory_bytes, work_peak_bytes are measured when asked (rc_world_run_stats), not saved */
static void put_stats(ck_out *o, const rc_run_stats *s)
{
    put_i64(o, s->steps); put_i32(o, s->max_iterations); put_f64(o, s->max_residual); put_i64(o, s->failures);
    put_f64(o, s->max_abs_balance); put_f64(o, s->max_contact_work); put_f64(o, s->t_max_contact_work);
    put_i64(o, s->positive_work_events); put_i32(o, s->contact_max_contact_work);
    put_f64(o, s->max_energy_increase); put_f64(o, s->t_max_energy_increase); put_i64(o, s->local_solves);
    put_f64(o, s->solver_cpu_s); put_f64(o, s->max_joint_pos_violation); put_f64(o, s->max_joint_vel_violation);
    put_i64(o, s->parallel_steps);
    put_f64(o, s->max_overlap); put_f64(o, s->t_max_overlap); put_i64(o, s->step_max_overlap);
    put_i32(o, s->contact_max_overlap);
    put_i64(o, s->newton_fallbacks);
    /* project_contacts' figures over the run */
    put_f64(o, s->max_proj_overlap); put_i32(o, s->max_proj_sweeps); put_i64(o, s->proj_capped);
    const double pc[] = { s->W_proj_contacts_total, s->max_W_proj_contacts, s->min_W_proj_contacts, s->max_W_proj_net };
    put_f64s(o, pc, 4);
    put_f64(o, s->max_WT_pos); put_f64(o, s->min_WT_neg);   /* format 5 */
}

static void get_stats(ck_in *r, rc_run_stats *s)
{
    s->steps = get_i64(r); s->max_iterations = get_i32(r); s->max_residual = get_f64(r); s->failures = get_i64(r);
    s->max_abs_balance = get_f64(r); s->max_contact_work = get_f64(r); s->t_max_contact_work = get_f64(r);
    s->positive_work_events = get_i64(r); s->contact_max_contact_work = get_i32(r);
    s->max_energy_increase = get_f64(r); s->t_max_energy_increase = get_f64(r); s->local_solves = get_i64(r);
    s->solver_cpu_s = get_f64(r); s->max_joint_pos_violation = get_f64(r); s->max_joint_vel_violation = get_f64(r);
    s->parallel_steps = get_i64(r);
    s->max_overlap = get_f64(r); s->t_max_overlap = get_f64(r); s->step_max_overlap = get_i64(r);
    s->contact_max_overlap = get_i32(r);
    s->newton_fallbacks = get_i64(r);
    s->max_proj_overlap = get_f64(r); s->max_proj_sweeps = get_i32(r); s->proj_capped = get_i64(r);
    double *const pc[] = { &s->W_proj_contacts_total, &s->max_W_proj_contacts, &s->min_W_proj_contacts, &s->max_W_proj_net };
    for (int i = 0; i < 4; i++) *pc[i] = get_f64(r);
    s->max_WT_pos = get_f64(r); s->min_WT_neg = get_f64(r);
    s->memory_bytes = 0;
    s->work_peak_bytes = 0;
}

/* The force a body's state carries: a linear body's f, a rigid body's
 * constant force (zero without an rc_body_ext). */
static const double *body_force(const rc_world *w, int b)
{
    static const double zero3[3];
    const rc_body *bd = &w->bodies[b];
    if (rcm_body_lagrangian(bd)) return w->linears[bd->linear].f;
    if (bd->kind == RC_BODY_RIGID3D) return w->rigid3d[bd->linear].force;   /* force and torque: nv = 6 */
    const rc_body_ext *x = rcm_body_ext_of(w, b);
    return x ? x->force : zero3;
}

static void put_state(ck_out *o, const rc_world *w)
{
    /* time: t = t_origin + t_steps h (rcm_time_at), the step count */
    put_f64(o, w->t_origin); put_i64(o, w->t_steps); put_f64(o, w->t); put_i64(o, w->step);
    put_i32(o, w->nq); put_i32(o, w->nv);
    put_f64s(o, w->q, w->nq);
    put_f64s(o, w->v, w->nv);
    put_f64(o, w->E_wrap); put_f64(o, w->persist_band);
    put_i32(o, w->next_contact_id); put_i32(o, w->joints_fresh);
    put_i64(o, w->par_off_until); put_i32(o, w->par_backoff);
    put_info(o, &w->info);
    put_stats(o, &w->stats);
    /* the contacts of the last step (w->rec), with their laws' states */
    put_i32(o, w->nrec); put_i32(o, w->rec_has_state);
    for (int i = 0; i < w->nrec; i++) {
        const rc_contact_rec *c = &w->rec[i];
        rc_contact_geom g;
        if (!rcm_state_geom(w, i, &g))   /* none after a failed step: NaN, restored as none */
            g.point[0] = g.point[1] = g.n[0] = g.n[1] = g.gN = g.u[0] = g.u[1] = NAN;
        put_u64(o, c->key); put_i32(o, c->id); put_u32(o, c->law); put_i32(o, c->active);
        put_f64s(o, g.point, 2); put_f64s(o, g.n, 2); put_f64(o, g.gN);
        put_f64s(o, g.u, 2); put_f64s(o, c->p, 2); put_f64(o, c->WN); put_f64(o, c->WT);
        put_f64(o, c->nu);
    }
    if (w->rec_has_state) put_f64s(o, w->rec_state, w->nrec * RC_LAW_MAX_STATE);
    /* joints: multipliers (warm start) and what they report */
    put_i32(o, w->njoints);
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        put_f64s(o, j->lambda, 3); put_f64s(o, j->mu_v, 3); put_f64(o, j->wstart); put_f64(o, j->res);
        put_f64s(o, j->smooth, 3);
        put_f64s(o, j->g_end, 3); put_f64s(o, j->gdot_end, 3); put_f64(o, j->work);
        /* motor and limits: settings a callback may change, impulses (warm start), work */
        put_i32(o, j->motor); put_i32(o, j->limits);
        const double m[] = { j->motor_speed, j->motor_max, j->lower, j->upper, j->limit_e,
                             j->motor_lambda, j->limit_lambda, j->motor_work };
        put_f64s(o, m, (int)(sizeof m / sizeof m[0]));
    }
    /* what callbacks may set between steps: forces, built-in laws */
    put_i32(o, w->nbodies);
    for (int b = 0; b < w->nbodies; b++) put_f64s(o, body_force(w, b), w->bodies[b].nv);
    put_i32(o, w->nlaws);
    for (int i = 0; i < w->nlaws; i++) {
        const rc_law *l = &w->laws[i];
        put_i32(o, (int)l->def.type); put_i32(o, l->def.generic);
        put_f64(o, l->def.e); put_f64(o, l->def.mu); put_f64(o, l->def.e_t);
    }
    rc_ck_put_lives(o, w);   /* removals (checkpoint_life.c) */
    /* gen-alpha: a_n, vdot~_n and the state they belong to (scheme_gen_alpha.c) */
    double *ga[4];
    const int has_ga = rci_ga_state_arrays(w, ga);
    put_i32(o, has_ga);
    for (int k = 0; has_ga && k < 4; k++) put_f64s(o, ga[k], w->nv);
    if (has_ga == RC_GA_CAPOBIANCO) {
        int nrec;
        const rci_gf_rec *rec = rci_ga_state_recs(w, &nrec);
        put_i32(o, nrec);
        for (int i = 0; i < nrec; i++) { put_u64(o, rec[i].key); put_f64s(o, rec[i].v, 7); }
    }
    rc_ck_put_c3(o, w);   /* a dim = 3 world's contacts and joints (checkpoint_c3.c) */
}

/* ---------------------------------------------------------------- save */

static rc_status write_file(const char *path, const unsigned char *a, size_t na, const unsigned char *b,
                            size_t nb, const unsigned char *c, size_t nc)
{
    size_t n = strlen(path);
    char *tmp = rcb_malloc(n + 5);
    if (!tmp) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        rc_status s = rc_set_error(RC_ERR_IO, "checkpoint '%s': cannot write '%s': %s", path, tmp, strerror(errno));
        rcb_free(tmp);
        return s;
    }
    int ok = fwrite(a, 1, na, f) == na && fwrite(b, 1, nb, f) == nb && fwrite(c, 1, nc, f) == nc;
    ok = fflush(f) == 0 && ok;
    int err = errno;
    if (ok && fsync(fileno(f)) != 0) { ok = 0; err = errno; }
    if (fclose(f) != 0 && ok) { ok = 0; err = errno; }
    if (ok && rename(tmp, path) != 0) { ok = 0; err = errno; }
    rc_status s = RC_OK;
    if (!ok) {
        remove(tmp);
        s = rc_set_error(RC_ERR_IO, "checkpoint '%s': write failed: %s", path, strerror(err));
    }
    rcb_free(tmp);
    return s;
}

rc_status rc_sim_save(const rc_world *w, const char *path)
{
    if (!w || !path) return rc_set_error(RC_ERR_ARG, "rc_sim_save: NULL argument");
    if (!*path) return rc_set_error(RC_ERR_ARG, "rc_sim_save: 'path' is empty");
    if (!w->configured)
        return rc_set_error(RC_ERR_STATE, "rc_sim_save: the world has no simulation settings yet (rc_world_configure)");
    if (w->nrigid3d && w->sim.scheme == RC_SCHEME_GEN_ALPHA)   /* its state holds 7 coordinates per body, 3D contact records */
        return rc_set_error(RC_ERR_ARG, "rc_sim_save: checkpoints of spatial bodies under gen-alpha are not supported yet "
                            "(moreau-jean and moreau-jean-fremond are)");
    RC_CHECK(rc_ck_check_lives(w));
    ck_out st;
    out_init(&st, 0);
    put_state(&st, w);
    if (st.nomem) { rcb_free(st.p); return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
    uLongf clen = compressBound((uLong)st.n);
    unsigned char *z = rcb_malloc(clen ? clen : 1);
    if (!z) { rcb_free(st.p); return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
    int zs = compress2(z, &clen, st.p ? st.p : (const Bytef *)"", (uLong)st.n, Z_BEST_SPEED);
    if (zs != Z_OK) {
        rcb_free(st.p); rcb_free(z);
        return rc_set_error(zs == Z_MEM_ERROR ? RC_ERR_NOMEM : RC_ERR_IO, "checkpoint '%s': zlib: %s", path, zError(zs));
    }

    ck_section sec[CK_NSECTIONS];
    uint64_t all;
    rc_ck_fingerprint(w, sec, &all);
    ck_out hd;
    out_init(&hd, 0);
    put(&hd, CK_MAGIC, CK_MAGIC_LEN);
    put_u32(&hd, CK_FORMAT);
    char ver[CK_VERSION_LEN] = { 0 };
    strncpy(ver, RC_VERSION, CK_VERSION_LEN - 1);
    put(&hd, ver, CK_VERSION_LEN);
    const size_t len_at = hd.n;
    put_u32(&hd, 0);   /* header length, below */
    put_u64(&hd, all);
    put_u32(&hd, CK_NSECTIONS);
    for (int i = 0; i < CK_NSECTIONS; i++) { put_u64(&hd, sec[i].hash); put_u32(&hd, sec[i].count); }
    put_u32(&hd, (uint32_t)w->sim.scheme); put_f64(&hd, w->sim.theta); put_f64(&hd, w->sim.h);
    put_f64(&hd, w->t); put_i64(&hd, w->step);
    put_u64(&hd, (uint64_t)st.n); put_u64(&hd, (uint64_t)clen);
    rcb_free(st.p);
    if (hd.nomem) { rcb_free(hd.p); rcb_free(z); return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
    for (int i = 0; i < 4; i++) hd.p[len_at + i] = (unsigned char)((uint32_t)hd.n >> (8 * i));
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, hd.p, (uInt)hd.n);
    crc = crc32(crc, z, (uInt)clen);
    unsigned char tail[4];
    for (int i = 0; i < 4; i++) tail[i] = (unsigned char)((uint32_t)crc >> (8 * i));
    rc_status s = write_file(path, hd.p, hd.n, z, clen, tail, 4);
    rcb_free(hd.p);
    rcb_free(z);
    return s;
}

/* ---------------------------------------------------------------- restore */

/* The whole file in memory. */
static rc_status read_file(const char *path, unsigned char **data, size_t *n)
{
    *data = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return rc_set_error(RC_ERR_IO, "checkpoint '%s': cannot open: %s", path, strerror(errno));
    size_t cap = 0, len = 0;
    unsigned char *p = NULL;
    for (;;) {
        if (len == cap) {
            size_t nc = cap ? 2 * cap : 65536;
            unsigned char *q = rcb_realloc(p, nc);
            if (!q) { rcb_free(p); fclose(f); return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
            p = q;
            cap = nc;
        }
        size_t k = fread(p + len, 1, cap - len, f);
        len += k;
        if (k == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) { rcb_free(p); return rc_set_error(RC_ERR_IO, "checkpoint '%s': read error", path); }
    *data = p;
    *n = len;
    return RC_OK;
}

/* The model sections that differ, with their counts when those differ. */
static rc_status model_differs(const char *path, const rc_world *w, const ck_section *file, uint32_t nsec,
                               uint32_t scheme, double theta, double h)
{
    ck_section here[CK_NSECTIONS];
    uint64_t all;
    rc_ck_fingerprint(w, here, &all);
    char what[1024] = "";
    size_t k = 0;
    for (uint32_t i = 0; i < nsec && i < CK_NSECTIONS; i++) {
        if (file[i].hash == here[i].hash && file[i].count == here[i].count) continue;
        char item[200];
        if (i == CK_SIMULATION && (scheme != (uint32_t)w->sim.scheme || theta != w->sim.theta || h != w->sim.h))
            snprintf(item, sizeof item, "%s (scheme %u, theta = %.17g, h = %.17g in the checkpoint; scheme %d, theta = %.17g, h = %.17g here)",
                     rc_ck_section_name[i], scheme, theta, h, (int)w->sim.scheme, w->sim.theta, w->sim.h);
        else if (i != CK_WORLD && i != CK_SIMULATION && file[i].count != here[i].count)
            snprintf(item, sizeof item, "%s (%u in the checkpoint, %u here)", rc_ck_section_name[i], file[i].count, here[i].count);
        else
            snprintf(item, sizeof item, "%s", rc_ck_section_name[i]);
        int m = snprintf(what + k, sizeof what - k, "%s%s", k ? ", " : "", item);
        if (m < 0 || (size_t)m >= sizeof what - k) break;
        k += (size_t)m;
    }
    return rc_set_error(RC_ERR_ARG, "checkpoint '%s': the model differs from the one that wrote the checkpoint (%s differ)",
                        path, k ? what : "fingerprint");
}

/* The state read from a file before it replaces the world's (so that a
 * refusal leaves the world as it was). */
typedef struct ck_state {
    double t_origin, t, E_wrap, persist_band;
    long t_steps, step, par_off_until;
    int next_contact_id, joints_fresh, par_backoff;
    rc_step_info info;
    rc_run_stats stats;
    int nrec, has_state;
    size_t rec_at, rec_state_at, joints_at, forces_at, laws_at, ga_at;
    int has_ga, ga_nrec;
    double *ga[4];          /* the room for it (reserve_restore) */
    rci_gf_rec *ga_rec;
    ck_lives lives;
    ck_c3 c3;               /* a dim = 3 world's part (checkpoint_c3.c) */
} ck_state;

#define REC_BYTES (8 + 4 + 4 + 4 + 12 * 8)   /* a contact of the state (put_state) */
#define JOINT_BYTES (26 * 8 + 2 * 4)
#define LAW_BYTES (4 + 4 + 3 * 8)

static rc_status parse_state(const char *path, const rc_world *w, ck_in *r, ck_state *s)
{
    s->t_origin = get_f64(r); s->t_steps = get_i64(r); s->t = get_f64(r); s->step = get_i64(r);
    const int nq = get_i32(r), nv = get_i32(r);
    if (!r->short_ && (nq != w->nq || nv != w->nv))
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d coordinates and %d velocities, the world has %d and %d",
                            path, nq, nv, w->nq, w->nv);
    take(r, (size_t)(w->nq + w->nv) * 8);   /* q, v: copied at the commit */
    s->E_wrap = get_f64(r); s->persist_band = get_f64(r);
    s->next_contact_id = get_i32(r); s->joints_fresh = get_i32(r);
    s->par_off_until = get_i64(r); s->par_backoff = get_i32(r);
    get_info(r, &s->info);
    get_stats(r, &s->stats);
    s->nrec = get_i32(r); s->has_state = get_i32(r);
    if (!r->short_ && (s->nrec < 0 || (size_t)s->nrec > (r->n - r->off) / REC_BYTES))
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d contacts", path, s->nrec);
    s->rec_at = r->off;
    take(r, (size_t)s->nrec * REC_BYTES);
    s->rec_state_at = r->off;
    if (s->has_state) take(r, (size_t)s->nrec * RC_LAW_MAX_STATE * 8);
    const int nj = get_i32(r);
    if (!r->short_ && nj != w->njoints)
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d joints, the world has %d", path, nj, w->njoints);
    s->joints_at = r->off;
    take(r, (size_t)nj * JOINT_BYTES);
    const int nb = get_i32(r);
    if (!r->short_ && nb != w->nbodies)
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d bodies, the world has %d", path, nb, w->nbodies);
    s->forces_at = r->off;
    take(r, (size_t)w->nv * 8);
    const int nl = get_i32(r);
    if (!r->short_ && nl != w->nlaws)
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d laws, the world has %d", path, nl, w->nlaws);
    s->laws_at = r->off;
    take(r, (size_t)nl * LAW_BYTES);
    if (!r->short_) RC_CHECK(rc_ck_parse_lives(path, w, r, &s->lives));
    s->has_ga = get_i32(r);
    if (!r->short_ && s->has_ga != 0 && s->has_ga != RC_GA_BRULS && s->has_ga != RC_GA_CAPOBIANCO)
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: gen-alpha state flag %d", path, s->has_ga);
    s->ga_at = r->off;
    if (s->has_ga) take(r, 4 * (size_t)w->nv * 8);
    s->ga_nrec = 0;
    if (s->has_ga == RC_GA_CAPOBIANCO) {
        s->ga_nrec = get_i32(r);
        if (!r->short_ && (s->ga_nrec < 0 || (size_t)s->ga_nrec > (r->n - r->off) / 64))
            return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %d gen-alpha contact records", path, s->ga_nrec);
        take(r, (size_t)s->ga_nrec * 64);
    }
    RC_CHECK(rc_ck_parse_c3(path, w, r, &s->c3));
    if (r->short_ || r->off != r->n)
        return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: its state has %zu bytes, expected %zu",
                            path, r->n, r->off);
    for (int i = 0; i < nl; i++) {   /* built-in law types and coefficients: valid ones */
        ck_in lr = { r->p + s->laws_at + (size_t)i * LAW_BYTES, LAW_BYTES, 0, 0 };
        const int type = get_i32(&lr);
        if ((type == RC_LAW_CUSTOM) != (w->laws[i].def.type == RC_LAW_CUSTOM) || type < RC_LAW_NEWTON_COULOMB
            || type > RC_LAW_CUSTOM)
            return rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: law %d has type %d", path, i, type);
    }
    return RC_OK;
}

/* Room for the restored contacts, reserved before anything changes. */
static rc_status reserve_restore(rc_world *w, ck_state *s)
{
    if (s->has_ga) RC_CHECK(rci_ga_state_reserve(w, s->ga));
    if (s->has_ga == RC_GA_CAPOBIANCO) RC_CHECK(rci_ga_state_reserve_recs(w, s->ga_nrec, &s->ga_rec));
    RC_CHECK(rcb_reserve((void **)&w->rec, &w->cap_rec, s->nrec, sizeof(rc_contact_rec)));
    RC_CHECK(rcb_reserve((void **)&w->geom, &w->cap_geom, s->nrec, sizeof(rc_contact_geom)));
    if (s->has_state)
        RC_CHECK(rcb_reserve((void **)&w->rec_state, &w->cap_rec_state, s->nrec * RC_LAW_MAX_STATE, sizeof(double)));
    return rc_ck_reserve_c3(w, &s->c3);
}

static void commit(rc_world *w, const unsigned char *raw, const ck_state *s)
{
    ck_in r = { raw, (size_t)-1, 0, 0 };
    r.off = 8 + 8 + 8 + 8 + 4 + 4;
    get_f64s(&r, w->q, w->nq);
    get_f64s(&r, w->v, w->nv);
    w->t_origin = s->t_origin; w->t_steps = s->t_steps; w->t = s->t; w->step = s->step;
    w->E_wrap = s->E_wrap; w->persist_band = s->persist_band;
    w->next_contact_id = s->next_contact_id; w->joints_fresh = s->joints_fresh;
    w->par_off_until = s->par_off_until; w->par_backoff = s->par_backoff;
    w->info = s->info;
    w->stats = s->stats;
    r.off = s->rec_at;
    for (int i = 0; i < s->nrec; i++) {
        rc_contact_rec *c = &w->rec[i];
        rc_contact_geom *g = &w->geom[i];
        c->key = get_u64(&r); c->id = get_i32(&r); c->law = get_u32(&r) & 0x7fffffffu; c->active = get_i32(&r) != 0;
        get_f64s(&r, g->point, 2); get_f64s(&r, g->n, 2); g->gN = get_f64(&r);
        get_f64s(&r, g->u, 2); get_f64s(&r, c->p, 2); c->WN = get_f64(&r); c->WT = get_f64(&r);
        c->nu = get_f64(&r);
    }
    w->nrec = s->nrec;
    /* the geometry in its own array; none if it was saved after a failed step (NaN) */
    w->geom_at = s->nrec > 0 && isnan(w->geom[0].point[0]) ? RCM_GEOM_LOST : RCM_GEOM_OWN;
    r.off = s->rec_state_at;
    if (s->has_state) get_f64s(&r, w->rec_state, s->nrec * RC_LAW_MAX_STATE);
    w->rec_has_state = s->has_state;
    r.off = s->joints_at;
    for (int i = 0; i < w->njoints; i++) {
        rc_joint *j = &w->joints[i];
        get_f64s(&r, j->lambda, 3); get_f64s(&r, j->mu_v, 3); j->wstart = get_f64(&r); j->res = get_f64(&r);
        get_f64s(&r, j->smooth, 3);
        get_f64s(&r, j->g_end, 3); get_f64s(&r, j->gdot_end, 3); j->work = get_f64(&r);
        j->motor = get_i32(&r); j->limits = get_i32(&r);
        double *const m[] = { &j->motor_speed, &j->motor_max, &j->lower, &j->upper, &j->limit_e,
                              &j->motor_lambda, &j->limit_lambda, &j->motor_work };
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) *m[k] = get_f64(&r);
    }
    r.off = s->forces_at;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        double f[6] = { 0 };
        if (rcm_body_lagrangian(bd)) { get_f64s(&r, w->linears[bd->linear].f, bd->nv); continue; }
        if (bd->kind == RC_BODY_RIGID3D) { get_f64s(&r, w->rigid3d[bd->linear].force, 6); continue; }
        get_f64s(&r, f, bd->nv);
        rc_body_ext *x = rcm_body_ext_of(w, b);
        if (x) memcpy(x->force, f, 3 * sizeof(double));   /* (a nonzero force has an ext: reserve_forces) */
    }
    r.off = s->laws_at;
    for (int i = 0; i < w->nlaws; i++) {
        rc_law *l = &w->laws[i];
        const int type = get_i32(&r), generic = get_i32(&r);
        const double e = get_f64(&r), mu = get_f64(&r), e_t = get_f64(&r);
        if (l->def.type == RC_LAW_CUSTOM) continue;
        l->def.type = (rc_law_type)type;
        l->def.generic = generic;
        l->def.e = e; l->def.mu = mu; l->def.e_t = e_t;
        l->closed_form = !generic;
    }
    r.off = s->ga_at;
    for (int k = 0; s->has_ga && k < 4; k++) get_f64s(&r, s->ga[k], w->nv);
    if (s->has_ga == RC_GA_CAPOBIANCO) {
        r.off += 4;   /* the count, parsed */
        for (int i = 0; i < s->ga_nrec; i++) { s->ga_rec[i].key = get_u64(&r); get_f64s(&r, s->ga_rec[i].v, 7); }
    }
    rci_ga_state_set(w, s->has_ga, s->ga_nrec);   /* none saved: the next gen-alpha step starts from the consistent acceleration */
    rc_ck_commit_c3(w, raw, &s->c3);   /* a dim = 3 world's contacts and joints (checkpoint_c3.c) */
}

/* Bodies whose restored constant force is nonzero get their rc_body_ext
 * before the commit (the only allocation that may fail after the checks). */
static rc_status reserve_forces(rc_world *w, const unsigned char *raw, const ck_state *s)
{
    ck_in r = { raw, (size_t)-1, s->forces_at, 0 };
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        if (rcm_body_lagrangian(bd) || bd->kind == RC_BODY_RIGID3D || bd->ext >= 0) {
            take(&r, (size_t)bd->nv * 8);   /* (a linear body has nv > 6: not read into f) */
            continue;
        }
        double f[3];
        get_f64s(&r, f, 3);
        if (f[0] != 0.0 || f[1] != 0.0 || f[2] != 0.0) RC_CHECK(rcm_body_add_ext(w, b));
    }
    return RC_OK;
}

rc_status rc_sim_restore(rc_world *w, const char *path)
{
    if (!w || !path) return rc_set_error(RC_ERR_ARG, "rc_sim_restore: NULL argument");
    if (!w->configured)
        return rc_set_error(RC_ERR_STATE, "rc_sim_restore: the world has no simulation settings yet: configure it as the "
                            "run that wrote the checkpoint did (rc_world_configure), then restore");
    if (w->nrigid3d && w->sim.scheme == RC_SCHEME_GEN_ALPHA)
        return rc_set_error(RC_ERR_ARG, "rc_sim_restore: checkpoints of spatial bodies under gen-alpha are not supported yet "
                            "(moreau-jean and moreau-jean-fremond are)");
    if (w->out)
        return rc_set_error(RC_ERR_STATE, "rc_sim_restore: an output is open (its history would jump in time): "
                            "restore first, then open the output");
    unsigned char *data;
    size_t n;
    RC_CHECK(read_file(path, &data, &n));
    rc_status s = RC_OK;
    unsigned char *raw = NULL;
    ck_in r = { data, n, 0, 0 };
    if (n == 0) { s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is empty: not a checkpoint", path); goto done; }
    if (n < CK_MAGIC_LEN || memcmp(data, CK_MAGIC, CK_MAGIC_LEN) != 0) {
        if (n < CK_MAGIC_LEN && memcmp(data, CK_MAGIC, n) == 0)
            s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is truncated: %zu bytes", path, n);
        else
            s = rc_set_error(RC_ERR_ARG, "'%s' is not a checkpoint (no ricochet checkpoint header)", path);
        goto done;
    }
    take(&r, CK_MAGIC_LEN);
    const uint32_t format = get_u32(&r);
    char ver[CK_VERSION_LEN + 1] = { 0 };
    const unsigned char *vp = take(&r, CK_VERSION_LEN);
    if (vp) memcpy(ver, vp, CK_VERSION_LEN);
    const uint32_t hlen = get_u32(&r);
    if (r.short_) { s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is truncated: %zu bytes", path, n); goto done; }
    if (format != CK_FORMAT) {
        s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' has format version %u (written by ricochet %s); this library "
                         "(ricochet %s) reads format version %u", path, format, ver, RC_VERSION, CK_FORMAT);
        goto done;
    }
    const uint64_t all = get_u64(&r);
    const uint32_t nsec = get_u32(&r);
    if (!r.short_ && nsec != CK_NSECTIONS) {
        s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %u model sections, expected %u", path, nsec, (unsigned)CK_NSECTIONS);
        goto done;
    }
    ck_section sec[CK_NSECTIONS];
    for (int i = 0; i < CK_NSECTIONS; i++) { sec[i].hash = get_u64(&r); sec[i].count = get_u32(&r); }
    const uint32_t scheme = get_u32(&r);
    const double theta = get_f64(&r), h = get_f64(&r);
    (void)get_f64(&r); (void)get_i64(&r);   /* t, step: for tools; the state has them */
    const uint64_t raw_len = get_u64(&r), clen = get_u64(&r);
    if (r.short_) { s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is truncated: %zu bytes", path, n); goto done; }
    if (hlen != r.off) {
        s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: header of %u bytes, expected %zu", path, hlen, r.off);
        goto done;
    }
    if (clen > n || n - r.off < clen + 4 || raw_len > ((uint64_t)1 << 40)) {
        if (clen <= ((uint64_t)1 << 40) && raw_len <= ((uint64_t)1 << 40) && clen + 4 > n - r.off)
            s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is truncated: %zu bytes, its header announces %llu",
                             path, n, (unsigned long long)(r.off + clen + 4));
        else
            s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: state of %llu bytes (%llu compressed)", path,
                             (unsigned long long)raw_len, (unsigned long long)clen);
        goto done;
    }
    if (n - r.off > clen + 4) {
        s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: %zu bytes after its end", path,
                         (size_t)(n - r.off - clen - 4));
        goto done;
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, data, (uInt)(r.off + clen));
    ck_in tr = { data + r.off + clen, 4, 0, 0 };
    const uint32_t want = get_u32(&tr);
    if ((uint32_t)crc != want) {
        s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: checksum mismatch (CRC-32 %08x, the file says %08x)",
                         path, (unsigned)(uint32_t)crc, (unsigned)want);
        goto done;
    }
    {
        ck_section here[CK_NSECTIONS];
        uint64_t mine;
        rc_ck_fingerprint(w, here, &mine);
        if (mine != all) { s = model_differs(path, w, sec, nsec, scheme, theta, h); goto done; }
    }
    if (strcmp(ver, RC_VERSION) != 0)
        rcm_world_warn(w, "checkpoint '%s' was written by ricochet %s, this is %s: the run continues, but not "
                      "necessarily bit for bit as it would have", path, ver, RC_VERSION);
    raw = rcb_malloc(raw_len ? (size_t)raw_len : 1);
    if (!raw) { s = rc_set_error(RC_ERR_NOMEM, "out of memory"); goto done; }
    uLongf got = (uLongf)raw_len;
    int zs = uncompress(raw, &got, data + r.off, (uLong)clen);
    if (zs == Z_MEM_ERROR) { s = rc_set_error(RC_ERR_NOMEM, "out of memory"); goto done; }
    if (zs != Z_OK || got != raw_len) {
        s = rc_set_error(RC_ERR_ARG, "checkpoint '%s' is corrupted: its state does not decompress (%s)", path,
                         zs != Z_OK ? zError(zs) : "wrong length");
        goto done;
    }
    {
        ck_state st;
        memset(&st, 0, sizeof st);
        ck_in sr = { raw, (size_t)raw_len, 0, 0 };
        s = parse_state(path, w, &sr, &st);
        if (s == RC_OK) s = reserve_restore(w, &st);
        if (s == RC_OK) s = rc_ck_apply_lives(w, &st.lives);
        if (s == RC_OK) s = reserve_forces(w, raw, &st);
        if (s == RC_OK) commit(w, raw, &st);
        if (s == RC_OK) w->restore_step = w->step;   /* the history's columns until the next step (remove.c) */
        rc_ck_lives_free(&st.lives);
    }
done:
    rcb_free(raw);
    rcb_free(data);
    return s;
}
