/* newton_krylov.c -- the iterative path of the Newton solver (solver.linear
 * = "iterative", or "auto" above RC_NEWTON_DENSE_ROWS rows; newton.c has the
 * equations and the iteration). The Newton system J d = -Phi,
 * J = A + B W + delta I, is solved matrix-free by restarted GMRES
 * (Saad & Schultz 1986; GMRES(RCL_GMRES_RESTART), modified Gram--Schmidt,
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
    const long long n = s->n;
    RC_CHECK(take(w, &s->P, 4LL * s->m + (n - 2LL * s->m)));
    return rcl_gmres_work_alloc(&w->work, s->n, &s->gm, "Newton solver (GMRES)");
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

typedef struct { nt_sys *s; double delta; } gm_ctx;
static void gm_A(void *c, const double *v, double *out) { J_apply(((gm_ctx *)c)->s, ((gm_ctx *)c)->delta, v, out); }
static void gm_P(void *c, const double *v, double *out) { P_apply(((gm_ctx *)c)->s, v, out); }

rc_status rcn_newton_krylov_solve(nt_sys *s, double delta, double eta, const char **why)
{
    *why = NULL;
    precond_build(s, delta);
    gm_ctx c = { s, delta };   /* the linear solve of linalg/gmres.c on J d = -Phi */
    *why = rcl_gmres_run(&s->gm, s->n, &c, gm_A, gm_P, s->phi, eta, s->d, &s->lin_its, &s->lin_rel);
    return RC_OK;
}
