/*
 * output_row.c -- a history row (output.c has the columns and the files): the
 * current state's values, in the columns' order, into o->row, then written
 * as a line of "%.15g" text to the gzip stream (sync-flushed every
 * RC_OUT_FLUSH_ROWS rows) or as float64 to the binary history (output_bin.c).
 * Nothing is allocated: the row and its text have buffers sized at open.
 */
#include "io/output_impl.h"

/* The values of the named bodies, contacts and joints (after the fixed ones). */
static double *named_values(struct rc_output *o, rc_world *w, double *x)
{
    for (int b = 0; b < o->nbodies; b++) {
        double q[7], v[6];
        int nq = o->body_nq[b], nv = o->body_nv[b];
        if (nq == 0 && nv == 0) continue;   /* a linear body: no columns (its q does not fit q[7]) */
        if (rc_body_generation(w, o->body_ids[b]) != o->body_gen[b]   /* removed (remove.c) */
            || rc_body_get_state(w, o->body_ids[b], q, v) != RC_OK) {
            for (int i = 0; i < 7; i++) q[i] = NAN;
            for (int i = 0; i < 6; i++) v[i] = NAN;
        }
        for (int i = 0; i < nq; i++) *x++ = q[i];
        for (int i = 0; i < nv; i++) *x++ = v[i];
    }
    for (int c = 0; c < o->ncontacts; c++) {
        rc_contact_info ci;
        double vals[5] = { NAN, NAN, NAN, NAN, NAN };
        if (rc_named_contact_get(w, c, &ci) == RC_OK && ci.id != -1) {
            vals[0] = ci.gN; vals[1] = ci.uN; vals[2] = ci.uT; vals[3] = ci.pN; vals[4] = ci.pT;
        }
        for (int i = 0; i < 5; i++) *x++ = vals[i];
    }
    x = rco_c3_row(o, w, x);   /* a dim = 3 world's contacts (output_c3.c) */
    for (int k = 0; k < o->njoints; k++) {   /* joint reaction forces (impulse / h) */
        rc_joint_info ji;
        int ok = rc_joint_get(w, o->joint_ids[k], &ji) == RC_OK && rc_world_step_count(w) > 0;
        for (int r = 0; r < o->joint_rows[k]; r++) *x++ = ok ? ji.force[r] : NAN;
    }
    return x;
}

/* The last columns: the rest of the balance, the motors' work, the
 * finite-element figures, the Newton figures. */
static double *audit_values(struct rc_output *o, rc_world *w, double *x)
{
    rc_step_info info;
    const int stepped = rc_world_step_count(w) > 0;
    const int have_info = stepped && rc_world_step_info(w, &info) == RC_OK;
    if (o->joint_work) {   /* the rest of the balance (eq. 65), totals; the energies E leaves out or holds */
        double a[RC_OUT_NAUDIT] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
        if (stepped) {
            if (have_info) {
                a[0] = info.W_J_total; a[1] = info.W_proj_total; a[2] = info.W_theta_total; a[3] = info.W_damp_total;
            } else {
                a[0] = a[1] = a[2] = a[3] = NAN;
            }
        }
        double k, pe;
        if (w->nsprings) rcm_springs_forces(w, NULL, &a[4]);   /* the state's, not added to f */
        rcm_energy(w, w->q, w->v, &k, &pe, &a[5]);
        for (int i = 0; i < RC_OUT_NAUDIT; i++) *x++ = a[i];
        /* the joint motors' work (total); NaN where the step info cannot be read */
        if (o->motor_work) *x++ = !stepped ? 0.0 : have_info ? info.W_motor_total : NAN;
    }
    if (o->tangential_work) x = rco_work_row(w, x);   /* output_work.c */
    if (o->newton) {   /* the last step's Newton iterations and residual (none before the first step) */
        *x++ = have_info ? (double)info.iterations : NAN;
        *x++ = have_info ? info.residual : NAN;
    }
    return x;
}

/* The row as a line of text into the gzip stream. */
static rc_status csv_row(struct rc_output *o)
{
    char *p = o->buf;
    char *end = o->buf + o->cap;
    for (int i = 0; i < o->ncols; i++) {
        if (i) *p++ = ',';
        p += rco_fmt_num(p, (size_t)(end - p), o->row[i]);
    }
    *p++ = '\n';
    RC_CHECK(rco_gz_write(o, o->buf, (size_t)(p - o->buf)));
    o->rows++;
    o->rows_since_flush++;
    if (o->rows_since_flush >= RC_OUT_FLUSH_ROWS) RC_CHECK(rco_gz_flush(o));
    return RC_OK;
}

rc_status rco_write_row(rc_world *w)
{
    struct rc_output *o = w->out;
    double ek = NAN, ep = NAN;
    rc_step_info info;
    double wext = 0, wn = 0, wt = 0;

    if (rc_world_energy(w, &ek, &ep) != RC_OK) { ek = NAN; ep = NAN; }
    if (rc_world_step_count(w) > 0) {
        if (rc_world_step_info(w, &info) == RC_OK) {
            wext = info.W_ext_total; wn = info.W_N_total; wt = info.W_T_total;
        } else {
            wext = wn = wt = NAN;
        }
    }
    const double fixed[RC_OUT_NFIXED] = { rc_world_time(w), ek + ep, ek, ep, wext, wn, wt };
    double *x = o->row;
    for (int i = 0; i < RC_OUT_NFIXED; i++) *x++ = fixed[i];
    x = named_values(o, w, x);
    x = audit_values(o, w, x);
    (void)x;   /* x == o->row + o->ncols: the columns of output_columns (output.c) */

    RC_CHECK(o->binary ? rco_bin_row(o) : csv_row(o));
    o->last_step = rc_world_step_count(w);
    return RC_OK;
}
