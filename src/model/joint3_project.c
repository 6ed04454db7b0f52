/* joint3_project.c -- the small dense solves of the 3D joints' blocks (LU
 * with partial pivoting) and project_joints for them (docs/theory/spatial.md,
 * "Joints"): after the step, Gauss--Seidel over the joints of
 *     positions   nu = -(H M^-1 H^T)^-1 g(q),  x += M^-1 H_x^T nu,
 *                 q_rot <- q_rot exp(J^-1 H_w^T nu / 2)   (body frame),
 * until max |g| <= project_tol (or project_max_iter sweeps), then
 *     velocities  nu = -(H M^-1 H^T)^-1 H v,   v += M^-1 H^T nu
 * likewise. M = diag(m, m, m, J_1, J_2, J_3) (principal body frame). */
#include "model/model.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

int rcm_j3_lu(double *A, int n, int *piv)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (!(fabs(A[p * n + k]) > 0.0)) return 0;
        if (p != k)
            for (int c = 0; c < n; c++) { double t = A[k * n + c]; A[k * n + c] = A[p * n + c]; A[p * n + c] = t; }
        for (int i = k + 1; i < n; i++) {
            const double f = A[i * n + k] /= A[k * n + k];
            for (int c = k + 1; c < n; c++) A[i * n + c] -= f * A[k * n + c];
        }
    }
    return 1;
}

void rcm_j3_lu_solve(const double *LU, const int *piv, int n, double *x)
{
    for (int k = 0; k < n; k++) {
        if (piv[k] != k) { double t = x[k]; x[k] = x[piv[k]]; x[piv[k]] = t; }
        for (int i = k + 1; i < n; i++) x[i] -= LU[i * n + k] * x[k];
    }
    for (int k = n - 1; k >= 0; k--) {
        for (int c = k + 1; c < n; c++) x[k] -= LU[k * n + c] * x[c];
        x[k] /= LU[k * n + k];
    }
}

/* M^-1 H^T of one side (rows x 6), zero for the ground */
static void minv_rows(const rc_world *w, int body, int rows, double H[][6], double MH[][6])
{
    const double *md = body == RC_GROUND ? NULL : w->mass_diag + w->bodies[body].iv;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < 6; c++) MH[r][c] = md ? H[r][c] / md[c] : 0.0;
}

/* nu = -(H M^-1 H^T)^-1 rhs and the displacement M^-1 H^T nu of each side;
 * 0 if the block is singular */
static int block_step(const rc_world *w, const rcm_joint3 *j, double Ha[][6], double Hb[][6], const double *rhs,
                      double da[6], double db[6])
{
    double MHa[RCM_J3_MAXROWS][6], MHb[RCM_J3_MAXROWS][6], W[RCM_J3_MAXROWS * RCM_J3_MAXROWS], nu[RCM_J3_MAXROWS];
    int piv[RCM_J3_MAXROWS];
    const int n = j->rows;
    minv_rows(w, j->body_a, n, Ha, MHa);
    minv_rows(w, j->body_b, n, Hb, MHb);
    for (int r = 0; r < n; r++)
        for (int k = 0; k < n; k++) {
            double s = 0.0;
            for (int c = 0; c < 6; c++) s += Ha[r][c] * MHa[k][c] + Hb[r][c] * MHb[k][c];
            W[r * n + k] = s;
        }
    if (!rcm_j3_lu(W, n, piv)) return 0;
    for (int r = 0; r < n; r++) nu[r] = -rhs[r];
    rcm_j3_lu_solve(W, piv, n, nu);
    for (int c = 0; c < 6; c++) {
        da[c] = db[c] = 0.0;
        for (int r = 0; r < n; r++) { da[c] += MHa[r][c] * nu[r]; db[c] += MHb[r][c] * nu[r]; }
    }
    return 1;
}

static void move_body(const rc_world *w, int body, double *q, const double *d)
{
    if (body == RC_GROUND) return;
    double *x = q + w->bodies[body].iq;
    for (int k = 0; k < 3; k++) x[k] += d[k];
    rcb_quat_step(x + 3, d + 3);
}

static void push_body(const rc_world *w, int body, double *v, const double *d)
{
    if (body == RC_GROUND) return;
    double *x = v + w->bodies[body].iv;
    for (int k = 0; k < 6; k++) x[k] += d[k];
}

/* |g| and |H v + dg/dt| of joint j at t (max norms over its rows) */
static rc_status joint_violation(const rc_world *w, const rcm_joint3 *j, double t, const double *q, const double *v, double *gn, double *un)
{
    double Ha[RCM_J3_MAXROWS][6], Hb[RCM_J3_MAXROWS][6], g[RCM_J3_MAXROWS], gt[RCM_J3_MAXROWS];
    RC_CHECK(rcm_joint3_eval_q(w, j, q, t, Ha, Hb, g, gt));
    const double *va = j->body_a == RC_GROUND ? NULL : v + w->bodies[j->body_a].iv, *vb = v + w->bodies[j->body_b].iv;
    *gn = *un = 0.0;
    for (int r = 0; r < j->rows; r++) {
        double u = gt[r];
        for (int c = 0; c < 6; c++) u += Hb[r][c] * vb[c] + (va ? Ha[r][c] * va[c] : 0.0);
        *gn = fmax(*gn, fabs(g[r]));
        *un = fmax(*un, fabs(u));
    }
    return RC_OK;
}

rc_status rcm_joints3_violation(rc_world *w, double t, const double *q, const double *v, double *gmax, double *umax)
{
    *gmax = *umax = 0.0;
    for (int i = 0; w->j3 && i < w->j3->n; i++) {
        rcm_joint3 *j = &w->j3->j[i];
        double gn, un;
        RC_CHECK(joint_violation(w, j, t, q, v, &gn, &un));
        j->viol = gn;
        *gmax = fmax(*gmax, gn);
        *umax = fmax(*umax, un);
    }
    return RC_OK;
}

/* one Gauss--Seidel sweep of positions (vel = 0) or velocities (vel = 1) */
static rc_status sweep(rc_world *w, double t, double *q, double *v, int vel)
{
    for (int i = 0; i < w->j3->n; i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        double Ha[RCM_J3_MAXROWS][6], Hb[RCM_J3_MAXROWS][6], g[RCM_J3_MAXROWS], gt[RCM_J3_MAXROWS], da[6], db[6];
        RC_CHECK(rcm_joint3_eval_q(w, j, q, t, Ha, Hb, g, vel ? gt : NULL));
        if (vel) {
            const double *va = j->body_a == RC_GROUND ? NULL : v + w->bodies[j->body_a].iv, *vb = v + w->bodies[j->body_b].iv;
            for (int r = 0; r < j->rows; r++) {
                g[r] = gt[r];
                for (int c = 0; c < 6; c++) g[r] += Hb[r][c] * vb[c] + (va ? Ha[r][c] * va[c] : 0.0);
            }
        }
        if (!block_step(w, j, Ha, Hb, g, da, db))
            return rc_set_error(RC_ERR_NUMERIC, "project_joints: singular block of 3D joint %d%s%s", i,
                                j->name ? " " : "", j->name ? j->name : "");
        if (vel) { push_body(w, j->body_a, v, da); push_body(w, j->body_b, v, db); }
        else { move_body(w, j->body_a, q, da); move_body(w, j->body_b, q, db); }
    }
    return RC_OK;
}

rc_status rcm_joints3_project(rc_world *w, double t, double *q, double *v, double *gmax, double *umax)
{
    const double tol = w->sim.project_tol;
    const int max_iter = w->sim.project_max_iter > 0 ? w->sim.project_max_iter : 50;
    for (int vel = 0; vel <= 1; vel++)
        for (int it = 0; it < max_iter; it++) {
            RC_CHECK(rcm_joints3_violation(w, t, q, v, gmax, umax));
            if ((vel ? *umax : *gmax) <= tol) break;
            RC_CHECK(sweep(w, t, q, v, vel));
        }
    return rcm_joints3_violation(w, t, q, v, gmax, umax);
}

rc_status rcm_joints3_start(rc_world *w)
{
    rcm_j3 *j3 = w->j3;
    if (!j3 || !j3->fresh) return RC_OK;
    const int max_iter = w->sim.project_max_iter > 0 ? w->sim.project_max_iter : 50;
    double Ek0, Ep0, Ek1, Ep1, gmax, umax;
    rcm_energy(w, w->q, w->v, &Ek0, &Ep0, NULL);
    for (int it = 0; it < max_iter; it++) {
        RC_CHECK(rcm_joints3_violation(w, w->t, w->q, w->v, &gmax, &umax));
        if (umax <= w->sim.project_tol) break;
        RC_CHECK(sweep(w, w->t, w->q, w->v, 1));
    }
    rcm_energy(w, w->q, w->v, &Ek1, &Ep1, NULL);
    j3->wstart += (Ek1 + Ep1) - (Ek0 + Ep0);
    j3->fresh = 0;
    return RC_OK;
}
