/* nsgs3_pack.c -- the hot record of NSGS over 3D contacts (nsgs3.c): what a
 * sweep reads of an active contact -- its directions (n, t1, t2), the rows'
 * rotational parts Rb, Ra, W and W^-1, the law's shift and mu, the impulse
 * p, and of its bodies the V offsets, 1/m kappa and Ainv -- packed
 * contiguously in solve order once per solve, instead of the large contact
 * record (rcm_contact3, ~730 bytes with the detection's, the audit's and the
 * custom laws' fields, scattered among the inactive contacts). The sweep,
 * the residual pass and the impulses' write-back read only the pack. The
 * arithmetic is that of nsgs3.c's rcn_contact3_velocity, solve_one and
 * rcn_contact3_apply, operation for operation: the same impulses bit for bit
 * (tests/c/test_nsgs3_pack.c, scripts/compare-builds).
 *
 * Used when every active contact has a closed-form law and no drilling row
 * (nsgs3.c, rcn_nsgs3_pack_usable), quiet contacts skipped or not (the
 * skipping sweep reads the records' bodies, nsgs3_hot.h); otherwise
 * nsgs3.c's path on the contact records. */
#include "nonsmooth/nonsmooth.h"
#include "nonsmooth/nsgs3_hot.h"

#include <math.h>
#include <string.h>

size_t rcn_nsgs3_pack_record_size(void) { return sizeof(rcn_c3hot); }

int rcn_nsgs3_pack_usable(const rc_world *w, const int *order, int n)
{
    const rcm_c3 *c3 = w->c3;
    if (c3->ndrill) return 0;
    for (int k = 0; k < n; k++) {
        const rcm_contact3 *c = &c3->c[order[k]];
        if (!w->laws[c->law].closed_form) return 0;
        if (w->bodies[c->body_b].kind != RC_BODY_RIGID3D) return 0;
        if (c->body_a >= 0 && w->bodies[c->body_a].kind != RC_BODY_RIGID3D) return 0;
    }
    return 1;
}

rc_status rcn_nsgs3_pack(rc_world *w, const int *order, int n, rcn_c3hot **out)
{
    const rcm_c3 *c3 = w->c3;
    rcn_c3hot *h;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&h, n > 0 ? n : 1, sizeof *h, "3D contacts' hot records"));
    const double kappa = c3->kappa;
    for (int k = 0; k < n; k++) {
        const rcm_contact3 *c = &c3->c[order[k]];
        rcn_c3hot *r = &h[k];
        for (int j = 0; j < 3; j++) { r->d[j] = c->n[j]; r->d[3 + j] = c->t1[j]; r->d[6 + j] = c->t2[j]; }
        for (int a = 0; a < 3; a++)
            for (int j = 0; j < 3; j++) { r->Rb[3 * a + j] = c->Rb[a][j]; r->Ra[3 * a + j] = c->Ra[a][j]; }
        for (int j = 0; j < 9; j++) { r->W[j] = c->W[j]; r->Winv[j] = c->Winv[j]; }
        for (int j = 0; j < 3; j++) { r->shift[j] = c->shift[j]; r->p[j] = c->p[j]; }
        r->mu = w->laws[c->law].def.mu;
        const rc_body *bb = &w->bodies[c->body_b];
        r->ivb = bb->iv;
        r->bb = c->body_b;
        r->ba = c->body_a;
        r->sb = 1.0 * bb->inv_mass * kappa;   /* nsgs3.c side_apply's s, B */
        r->Ab = w->rigid3d[bb->linear].Ainv;
        if (c->body_a >= 0) {
            const rc_body *ba = &w->bodies[c->body_a];
            r->iva = ba->iv;
            r->sa = -1.0 * ba->inv_mass * kappa;   /* and A */
            r->Aa = w->rigid3d[ba->linear].Ainv;
        } else {
            r->iva = -1;
            r->sa = 0.0;
            r->Aa = NULL;
        }
        r->winv_ok = c->winv_ok;
        r->i = order[k];
    }
    *out = h;
    return RC_OK;
}

void rcn_nsgs3_unpack(rc_world *w, const rcn_c3hot *h, int n)
{
    rcm_contact3 *c = w->c3->c;
    for (int k = 0; k < n; k++) {
        double *p = c[h[k].i].p;
        p[0] = h[k].p[0]; p[1] = h[k].p[1]; p[2] = h[k].p[2];
    }
}

/* (u + shift) of r at V: rcn_contact3_velocity's sums in its order */
static inline void hot_velocity(const rcn_c3hot *r, const double *V, double *u)
{
    const double *vb = V + r->ivb, *n = r->d, *t1 = r->d + 3, *t2 = r->d + 6;
    double u0 = r->shift[0], u1 = r->shift[1], u2 = r->shift[2];
    for (int j = 0; j < 3; j++) {
        u0 += n[j] * vb[j];
        u1 += t1[j] * vb[j];
        u2 += t2[j] * vb[j];
    }
    for (int j = 0; j < 3; j++) {
        u0 += r->Rb[j] * vb[3 + j];
        u1 += r->Rb[3 + j] * vb[3 + j];
        u2 += r->Rb[6 + j] * vb[3 + j];
    }
    if (r->iva >= 0) {
        const double *va = V + r->iva;
        for (int j = 0; j < 3; j++) {
            u0 += -n[j] * va[j];
            u1 += -t1[j] * va[j];
            u2 += -t2[j] * va[j];
        }
        for (int j = 0; j < 3; j++) {
            u0 += r->Ra[j] * va[3 + j];
            u1 += r->Ra[3 + j] * va[3 + j];
            u2 += r->Ra[6 + j] * va[3 + j];
        }
    }
    u[0] = u0; u[1] = u1; u[2] = u2;
}

/* v += kappa A (R^T dp) on the rotation: nsgs3.c side_apply's; the sum of
 * the changes' magnitudes returned when odo (else 0) */
static inline double hot_turn(const double *restrict R, const double *restrict A, double kappa, double *restrict v,
                              const double *dp, int odo)
{
    double y[3], moved = 0.0;
    for (int j = 0; j < 3; j++) y[j] = R[j] * dp[0] + R[3 + j] * dp[1] + R[6 + j] * dp[2];
    for (int i = 0; i < 3; i++) {
        const double dw = kappa * (A[3 * i] * y[0] + A[3 * i + 1] * y[1] + A[3 * i + 2] * y[2]);
        v[3 + i] += dw;
        if (odo) moved += fabs(dw);
    }
    return moved;
}

/* r's impulse set to p, V += kappa Mhat^-1 H^T (p - r->p) as side_apply:
 * B then A, v += s (d^T dp) on the translation with d^T dp formed once;
 * odo (or NULL): the changes of B's and A's velocities summed for nsgs3.c's
 * quiet-contact odometers (|dv|_1, |dw|_1 of B, then of A) */
static inline void hot_set(rcn_c3hot *restrict r, double *restrict V, double kappa, const double *p, double *odo)
{
    const double dp[3] = { p[0] - r->p[0], p[1] - r->p[1], p[2] - r->p[2] };
    if (odo) odo[0] = odo[1] = odo[2] = odo[3] = 0.0;
    if (dp[0] != 0.0 || dp[1] != 0.0 || dp[2] != 0.0) {
        const double *d = r->d;
        double f[3];
        for (int j = 0; j < 3; j++) f[j] = d[j] * dp[0] + d[3 + j] * dp[1] + d[6 + j] * dp[2];
        double *vb = V + r->ivb;
        const double sb = r->sb;
        for (int j = 0; j < 3; j++) vb[j] += sb * f[j];
        const double w = hot_turn(r->Rb, r->Ab, kappa, vb, dp, odo != NULL);
        const double fn = odo ? fabs(f[0]) + fabs(f[1]) + fabs(f[2]) : 0.0;
        if (odo) { odo[0] = fabs(sb) * fn; odo[1] = w; }
        if (r->iva >= 0) {
            double *va = V + r->iva;
            const double sa = r->sa;
            for (int j = 0; j < 3; j++) va[j] += sa * f[j];
            const double wa = hot_turn(r->Ra, r->Aa, kappa, va, dp, odo != NULL);
            if (odo) { odo[2] = fabs(sa) * fn; odo[3] = wa; }
        }
    }
    r->p[0] = p[0]; r->p[1] = p[1]; r->p[2] = p[2];
}

/* one Gauss--Seidel update of r (nsgs3.c solve_one for a closed-form law;
 * V += kappa Mhat^-1 H^T dp as side_apply: B then A, v += s (d^T dp) on
 * the translation with d^T dp formed once for both sides) */
static inline void hot_solve(rcn_c3hot *restrict r, double *restrict V, double kappa, double omega, double *r2,
                             double *odo)
{
    double u[3], b[3], p[3];
    hot_velocity(r, V, u);
    const double *W = r->W, p0[3] = { r->p[0], r->p[1], r->p[2] };
    for (int a = 0; a < 3; a++) b[a] = u[a] - (W[3 * a] * p0[0] + W[3 * a + 1] * p0[1] + W[3 * a + 2] * p0[2]);
    if (r2) *r2 = rcn_cone3_residual2(u, p0, r->mu);
    if (b[0] >= 0.0) {   /* rcn_cone3_local_solve_from's take-off and stick cases, inline */
        p[0] = p[1] = p[2] = 0.0;
    } else if (r->mu > 0.0 && r->winv_ok) {
        const double *Wi = r->Winv, nb[3] = { -b[0], -b[1], -b[2] };
        double ps[3];
        for (int i = 0; i < 3; i++) ps[i] = Wi[3 * i] * nb[0] + Wi[3 * i + 1] * nb[1] + Wi[3 * i + 2] * nb[2];
        const double pst2 = ps[1] * ps[1] + ps[2] * ps[2], mp = r->mu * ps[0];
        if (ps[0] >= 0.0 && pst2 <= mp * mp) {   /* |ps_T| <= mu ps_N without the square root's latency */
            p[0] = ps[0]; p[1] = ps[1]; p[2] = ps[2];
        } else rcn_cone3_after_stick(W, b, r->mu, p0, 1, ps, sqrt(pst2), p);
    } else rcn_cone3_local_solve_from(W, r->winv_ok ? r->Winv : NULL, b, r->mu, p0, p);
    if (omega != 1.0) {
        for (int a = 0; a < 3; a++) p[a] = omega * p[a] + (1.0 - omega) * p0[a];
        rcm_fc3d_project(r->mu, p);
    }
    hot_set(r, V, kappa, p, odo);
}

void rcn_nsgs3_pack_get(const rcn_c3hot *h, int n, double *p)
{
    for (int k = 0; k < n; k++) { p[3 * k] = h[k].p[0]; p[3 * k + 1] = h[k].p[1]; p[3 * k + 2] = h[k].p[2]; }
}

void rcn_nsgs3_pack_set(rc_world *w, rcn_c3hot *h, int n, double *V, double *p, int project)
{
    const double kappa = w->c3->kappa;
    for (int k = 0; k < n; k++) {
        if (project) rcm_fc3d_project(h[k].mu, p + 3 * k);
        if (V) hot_set(&h[k], V, kappa, p + 3 * k, NULL);
        else memcpy(h[k].p, p + 3 * k, sizeof h[k].p);
    }
}

void rcn_nsgs3_pack_sweep(const rc_world *w, rcn_c3hot *h, int lo, int hi, double *V, double *est)
{
    const double kappa = w->c3->kappa, omega = w->sim.solver.relax;
    double sum = 0.0;
    for (int k = lo; k < hi; k++) {
        double r2 = 0.0;
        hot_solve(&h[k], V, kappa, omega, est ? &r2 : NULL, NULL);
        sum += r2;
    }
    if (est) *est = sum;
}

void rcn_nsgs3_pack_solve(rc_world *w, rcn_c3hot *h, int k, double *V, double *r2, double *odo)
{
    hot_solve(&h[k], V, w->c3->kappa, w->sim.solver.relax, r2, odo);
}

/* the squared natural-map term of contact i at V, on its hot record r (or
 * NULL: on its contact record) */
static inline double term(const rc_world *w, const rcn_c3hot *r, int i, const double *V)
{
    double u[3];
    if (r) {
        hot_velocity(r, V, u);
        return rcn_cone3_residual2(u, r->p, r->mu);
    }
    const rcm_contact3 *c = &w->c3->c[i];
    rcn_contact3_velocity(w, c, V, u);
    return rcn_cone3_residual2(u, c->p, w->laws[c->law].def.mu);
}

/* contact i's term ri into the pass's sum and largest term */
static inline void tally(rcm_c3 *c3, int i, double ri, double *r2, double *rmax, double *snap, double loud2)
{
    *r2 += ri;
    if (ri > *rmax) { *rmax = ri; c3->worst1 = i + 1; }
    if (snap && ri > loud2) snap[4 * i] = -1.0;   /* nsgs3.c's quiet contacts: solved in the next sweep */
}

/* the contacts' sum of squared natural-map residuals at V in index order
 * (slot[i]: the record of contact i, -1: none, the contact's own fields
 * then; or slot NULL when h holds every active contact in index order), as
 * nsgs3.c's residual pass: sets c3->worst1 and worst_res, and (snap not
 * NULL: quiet contacts skipped) marks a contact whose term exceeds loud2 */
double rcn_nsgs3_pack_residual(rc_world *w, const rcn_c3hot *h, int n, const int *slot, const double *V,
                               double *snap, double loud2)
{
    rcm_c3 *c3 = w->c3;
    double r2 = 0.0, rmax = -1.0;
    c3->worst1 = 0;
    const int m = slot ? c3->n : n;
    for (int k = 0; k < m; k++) {
        const int s = slot ? slot[k] : k;
        if (s < 0 && !c3->c[k].active) continue;   /* not packed (beyond the pack's budget) or not active */
        const int i = slot ? k : h[s].i;
        tally(c3, i, term(w, s >= 0 ? &h[s] : NULL, i, V), &r2, &rmax, snap, loud2);
    }
    c3->worst_res = rmax >= 0.0 ? sqrt(rmax) : 0.0;
    return r2;
}

void rcn_nsgs3_pack_terms(const rc_world *w, const rcn_c3hot *h, int m, const int *order, int lo, int hi,
                          const double *V, double *r2i)
{
    for (int k = lo; k < hi; k++) r2i[order[k]] = term(w, k < m ? &h[k] : NULL, order[k], V);
}

void rcn_nsgs3_norms2(const rc_world *w, const rcn_c3hot *h, int m, const int *order, int n, const double *V,
                      double *p2, double *u2)
{
    double sp = 0.0, su = 0.0;
    for (int k = 0; k < n; k++) {
        double u[3];
        const double *p;
        if (h && k < m) {
            hot_velocity(&h[k], V, u);
            p = h[k].p;
        } else {
            const rcm_contact3 *c = &w->c3->c[order[k]];
            rcn_contact3_velocity(w, c, V, u);
            p = c->p;
        }
        sp += p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        su += u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    }
    *p2 = sp;
    *u2 = su;
}

double rcn_nsgs3_terms_sum(rc_world *w, const double *r2i, double *snap, double loud2)
{
    rcm_c3 *c3 = w->c3;
    double r2 = 0.0, rmax = -1.0;
    c3->worst1 = 0;
    for (int i = 0; i < c3->n; i++)
        if (c3->c[i].active) tally(c3, i, r2i[i], &r2, &rmax, snap, loud2);
    c3->worst_res = rmax >= 0.0 ? sqrt(rmax) : 0.0;
    return r2;
}
