/* newton_krylov.c -- the iterative path of the Newton solver (solver.linear
 * = "iterative", or "auto" above RC_NEWTON_DENSE_ROWS rows; newton.c has the
 * equations and the iteration). The Newton system J d = -Phi,
 * J = A + B W + delta I, is solved matrix-free by restarted GMRES
 * (Saad & Schultz 1986; GMRES(RCN_GMRES_RESTART), modified Gram--Schmidt,
 * Givens rotations) with right preconditioning by the block diagonal of J:
 * a contact's 2 x 2 block A_k + B_k W_kk + delta I (W_kk: the stage's local
 * Delassus block c->W), a joint row's rho_i W_ii + delta. A product W x is
 * V = kappa Mhat^-1 H^T x into a scratch velocity (rcm_contact_apply,
 * rcm_joint_apply) then every row's H V, the cost of one NSGS sweep; W is
 * never formed. Inexact Newton (Dembo, Eisenstat & Steihaug 1982): the
 * solve stops at |J d + Phi| <= eta |Phi|, the forcing term eta chosen by
 * the caller. Everything lives in the step's arena (no allocation after the
 * first step of a size).
 */
#include "nonsmooth/newton_impl.h"

#include <math.h>
#include <string.h>

static rc_status take(rc_world *w, double **p, long long count)
{
    return rcb_arena_array(&w->work, (void **)p, count > 0 ? count : 1, sizeof(double), "Newton solver (GMRES)");
}

rc_status rcn_newton_krylov_alloc(nt_sys *s)
{
    rc_world *w = s->w;
    const long long n = s->n, k = RCN_GMRES_RESTART;
    RC_CHECK(take(w, &s->P, 4LL * s->m + (n - 2LL * s->m)));
    RC_CHECK(take(w, &s->V, n * (k + 1)));
    RC_CHECK(take(w, &s->H, (k + 1) * k));
    double **vec[] = { &s->cs, &s->sn, &s->g, &s->y };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) RC_CHECK(take(w, vec[i], k + 1));
    RC_CHECK(take(w, &s->z, n));
    return take(w, &s->t, n);
}

void rcn_newton_krylov_scalings(nt_sys *s)
{
    rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        double a = c->W[0][0], b = c->W[1][1];
        if (!w->laws[c->law].closed_form) a = b = a > b ? a : b;
        s->rho[2 * k] = a > 0.0 ? 1.0 / a : 1.0;
        s->rho[2 * k + 1] = b > 0.0 ? 1.0 / b : 1.0;
    }
    int r = 2 * s->m;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        for (int q = 0; q < j->rows; q++, r++) s->rho[r] = j->W[q][q] > 0.0 ? 1.0 / j->W[q][q] : 1.0;
    }
}

void rcn_newton_W_apply(nt_sys *s, const double *x, double *y)
{
    rc_world *w = s->w;
    memset(s->S, 0, (size_t)w->nv * sizeof(double));
    for (int k = 0; k < s->m; k++) {
        const double *xk = x + 2 * k;
        if (xk[0] != 0.0 || xk[1] != 0.0) rcm_contact_apply(w, &w->contacts[w->active[k]], s->S, xk);
    }
    int r = 2 * s->m;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        rcm_joint_apply(w, j, &j->MHa[0][0], &j->MHb[0][0], s->S, 0, x + r);
        r += j->rows;
    }
    rcn_newton_rows_dot(s, s->S, y);
}

/* out = J v = A v + B W v + delta v */
static void J_apply(nt_sys *s, double delta, const double *v, double *out)
{
    rcn_newton_W_apply(s, v, out);
    for (int k = 0; k < s->m; k++) {
        const double *A = s->A + 4 * k, *B = s->B + 4 * k, *vk = v + 2 * k;
        const double y0 = out[2 * k], y1 = out[2 * k + 1];
        out[2 * k] = A[0] * vk[0] + A[1] * vk[1] + B[0] * y0 + B[1] * y1 + delta * vk[0];
        out[2 * k + 1] = A[2] * vk[0] + A[3] * vk[1] + B[2] * y0 + B[3] * y1 + delta * vk[1];
    }
    for (int i = 2 * s->m; i < s->n; i++) out[i] = s->rho[i] * out[i] + delta * v[i];
}

/* the inverses of J's diagonal blocks (a singular block: identity) */
static void precond_build(nt_sys *s, double delta)
{
    const rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        const double *A = s->A + 4 * k, *B = s->B + 4 * k;
        double b[4];
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 2; q++)
                b[2 * r + q] = A[2 * r + q] + B[2 * r] * c->W[0][q] + B[2 * r + 1] * c->W[1][q] + (r == q ? delta : 0.0);
        const double det = b[0] * b[3] - b[1] * b[2];
        const double scale = fabs(b[0] * b[3]) + fabs(b[1] * b[2]);
        double *P = s->P + 4 * k;
        if (!(fabs(det) > 1e-14 * scale) || !rcb_finite(det)) { P[0] = P[3] = 1.0; P[1] = P[2] = 0.0; continue; }
        P[0] = b[3] / det; P[1] = -b[1] / det; P[2] = -b[2] / det; P[3] = b[0] / det;
    }
    double *Pj = s->P + 2 * s->m;   /* indexed by row: P[4 m + (r - 2 m)] */
    int r = 2 * s->m;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        for (int q = 0; q < j->rows; q++, r++) {
            const double jii = s->rho[r] * j->W[q][q] + delta;
            Pj[r] = jii > 0.0 ? 1.0 / jii : 1.0;
        }
    }
}

static void P_apply(const nt_sys *s, const double *v, double *out)
{
    for (int k = 0; k < s->m; k++) {
        const double *P = s->P + 4 * k, *vk = v + 2 * k;
        out[2 * k] = P[0] * vk[0] + P[1] * vk[1];
        out[2 * k + 1] = P[2] * vk[0] + P[3] * vk[1];
    }
    const double *Pj = s->P + 2 * s->m;
    for (int i = 2 * s->m; i < s->n; i++) out[i] = Pj[i] * v[i];
}

static double dot(const double *a, const double *b, int n)
{
    double t = 0.0;
    for (int i = 0; i < n; i++) t += a[i] * b[i];
    return t;
}

/* one Arnoldi step: column j of H (rotated) and V_{j+1}; returns |g_{j+1}|,
 * *lucky when the space is invariant (the solution is in it) */
static double arnoldi(nt_sys *s, double delta, int j, int *lucky)
{
    const int n = s->n, ld = RCN_GMRES_RESTART + 1;
    double *vj = s->V + (size_t)n * (size_t)j, *vn = vj + n, *h = s->H + (size_t)ld * (size_t)j;
    P_apply(s, vj, s->z);
    J_apply(s, delta, s->z, vn);
    for (int i = 0; i <= j; i++) {   /* modified Gram--Schmidt */
        const double *vi = s->V + (size_t)n * (size_t)i;
        h[i] = dot(vn, vi, n);
        for (int l = 0; l < n; l++) vn[l] -= h[i] * vi[l];
    }
    h[j + 1] = sqrt(dot(vn, vn, n));
    *lucky = !(h[j + 1] > 0.0);
    if (h[j + 1] > 0.0)
        for (int l = 0; l < n; l++) vn[l] /= h[j + 1];
    for (int i = 0; i < j; i++) {    /* the earlier rotations */
        const double a = s->cs[i] * h[i] + s->sn[i] * h[i + 1];
        h[i + 1] = -s->sn[i] * h[i] + s->cs[i] * h[i + 1];
        h[i] = a;
    }
    const double den = hypot(h[j], h[j + 1]);
    s->cs[j] = den > 0.0 ? h[j] / den : 1.0;
    s->sn[j] = den > 0.0 ? h[j + 1] / den : 0.0;
    h[j] = den;
    h[j + 1] = 0.0;
    s->g[j + 1] = -s->sn[j] * s->g[j];
    s->g[j] = s->cs[j] * s->g[j];
    return fabs(s->g[j + 1]);
}

/* d += P^-1 (V y), y from the j x j triangle; 0 when it is singular */
static int update(nt_sys *s, int j)
{
    const int n = s->n, ld = RCN_GMRES_RESTART + 1;
    for (int i = j - 1; i >= 0; i--) {
        double a = s->g[i];
        for (int l = i + 1; l < j; l++) a -= s->H[(size_t)ld * (size_t)l + (size_t)i] * s->y[l];
        const double hii = s->H[(size_t)ld * (size_t)i + (size_t)i];
        if (!(hii != 0.0)) return 0;
        s->y[i] = a / hii;
    }
    memset(s->t, 0, (size_t)n * sizeof(double));
    for (int i = 0; i < j; i++) {
        const double *vi = s->V + (size_t)n * (size_t)i;
        for (int l = 0; l < n; l++) s->t[l] += s->y[i] * vi[l];
    }
    P_apply(s, s->t, s->z);
    for (int l = 0; l < n; l++) s->d[l] += s->z[l];
    return 1;
}

rc_status rcn_newton_krylov_solve(nt_sys *s, double delta, double eta, const char **why)
{
    const int n = s->n;
    *why = NULL;
    precond_build(s, delta);
    double *r = s->V;   /* the residual -Phi - J d, then V_0 */
    for (int i = 0; i < n; i++) { s->d[i] = 0.0; r[i] = -s->phi[i]; }
    const double bnorm = sqrt(dot(r, r, n)), target = eta * bnorm;
    double rnorm = bnorm;
    int its = 0;
    while (rnorm > target && its < RCN_GMRES_MAX_IT) {
        for (int i = 0; i < n; i++) r[i] /= rnorm;
        s->g[0] = rnorm;
        int j = 0;
        while (j < RCN_GMRES_RESTART && its < RCN_GMRES_MAX_IT) {
            int lucky;
            const double est = arnoldi(s, delta, j, &lucky);
            its++;
            j++;
            if (est <= target || lucky) break;
        }
        if (!update(s, j)) { *why = "GMRES breakdown"; break; }
        J_apply(s, delta, s->d, s->t);   /* the true residual, for the restart */
        for (int i = 0; i < n; i++) r[i] = -s->phi[i] - s->t[i];
        const double prev = rnorm;
        rnorm = sqrt(dot(r, r, n));
        if (!rcb_finite(rnorm) || rnorm >= prev) break;   /* no progress from a restart */
    }
    s->lin_its = its;
    s->lin_rel = bnorm > 0.0 ? rnorm / bnorm : 0.0;
    if (!*why && !(s->lin_rel < 0.9)) *why = "GMRES stalled";
    return RC_OK;
}
