/* rigid3d.c -- the spatial rigid body's operations (RC_BODY_RIGID3D, an
 * entry of the body-kind table, body_kinds.c); docs/theory/spatial.md.
 *
 *   q = (x, y, z, qw, qx, qy, qz), v = (v, Omega): v the centre of mass's
 *   velocity in the world frame, Omega the angular velocity in the body
 *   (principal) frame, J = diag(J1, J2, J3) constant (w->mass_diag: m, m, m,
 *   J1, J2, J3). Newton--Euler: m v' = F + m g, J Omega' + Omega x J Omega = tau
 *   (tau the torque in the body frame), q' = T(q) v: x' = v,
 *   quaternion' = 1/2 quaternion (0, Omega).
 *
 * Over a step of the theta-method (Acary & Collins-Craft 2024 section 5.4:
 * Euler's equations in the body frame, the gyroscopic term implicit, a
 * Lie-group update; Bruls & Cardona 2010):
 *   v_free = v_k + h (F / m + g)
 *   J (W1 - W0) + h Wt x J Wt = h tau,  Wt = (1 - theta) W0 + theta W1,
 * solved for W1 by Newton's method on the 3x3 block to 1e-12 relative, then
 *   x_{k+1} = x_k + h v_{k+theta},  q_{k+1} = q_k exp(h Omega_{k+theta} / 2).
 * With theta = 1/2, Wt . (Wt x J Wt) = 0 makes the kinetic energy and |J W|
 * (= |L|) exact invariants of the torque-free step (to the Newton tolerance).
 * The iteration matrix of the step, A = J + h theta ([Wt]x J - [J Wt]x), is
 * what an impulse sees to first order: its inverse at the solution is kept
 * (Ainv) and solve_mass applies it (M^-1 = 1/m for the translation).
 */
#include "model/model.h"
#include "base/rot3.h"

#include <math.h>

#define RIGID3D_NEWTON_TOL 1e-12
#define RIGID3D_NEWTON_MAXIT 50

static inline rcm_rigid3d *rec_of(const rc_world *w, const rc_body *bd) { return &w->rigid3d[bd->linear]; }

/* Ai = A^-1 (3x3 row-major) by cofactors; returns det A */
static double mat3_inverse(const double *A, double *Ai)
{
    const double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8], c2 = A[3] * A[7] - A[4] * A[6];
    const double det = A[0] * c0 + A[1] * c1 + A[2] * c2, s = 1.0 / det;
    Ai[0] = c0 * s; Ai[1] = (A[2] * A[7] - A[1] * A[8]) * s; Ai[2] = (A[1] * A[5] - A[2] * A[4]) * s;
    Ai[3] = c1 * s; Ai[4] = (A[0] * A[8] - A[2] * A[6]) * s; Ai[5] = (A[2] * A[3] - A[0] * A[5]) * s;
    Ai[6] = c2 * s; Ai[7] = (A[1] * A[6] - A[0] * A[7]) * s; Ai[8] = (A[0] * A[4] - A[1] * A[3]) * s;
    return det;
}

static void mat3_vec(double *r, const double *A, const double *x)
{
    for (int i = 0; i < 3; i++) r[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

/* A = J + h theta ([Wt]x J - [J Wt]x): column j is J_j e_j + h theta
 * (J_j Wt x e_j - (J Wt) x e_j) */
static void iteration_matrix(const double *J, const double *Wt, double h, double theta, double *A)
{
    const double JW[3] = { J[0] * Wt[0], J[1] * Wt[1], J[2] * Wt[2] }, ht = h * theta;
    for (int j = 0; j < 3; j++) {
        double e[3] = { 0.0, 0.0, 0.0 }, a[3], b[3];
        e[j] = 1.0;
        rcb_v3_cross(a, Wt, e);
        rcb_v3_cross(b, JW, e);
        for (int i = 0; i < 3; i++) A[3 * i + j] = (i == j ? J[j] : 0.0) + ht * (J[j] * a[i] - b[i]);
    }
}

/* Newton on R(W1) = J (W1 - W0) + h Wt x J Wt - h tau = 0; Ainv at the
 * solution. Returns the iterations taken, -1 when not converged (*res: the
 * last relative step). */
static int gyro_newton(const double *J, const double *W0, const double *tau, double h, double theta, double *W1,
                       double *Ainv, double *res)
{
    double A[9];
    rcb_v3_copy(W1, W0);
    for (int it = 1; it <= RIGID3D_NEWTON_MAXIT; it++) {
        double Wt[3], JWt[3], g[3], R[3], d[3];
        for (int i = 0; i < 3; i++) Wt[i] = (1.0 - theta) * W0[i] + theta * W1[i];
        for (int i = 0; i < 3; i++) JWt[i] = J[i] * Wt[i];
        rcb_v3_cross(g, Wt, JWt);
        for (int i = 0; i < 3; i++) R[i] = J[i] * (W1[i] - W0[i]) + h * g[i] - h * tau[i];
        iteration_matrix(J, Wt, h, theta, A);
        if (!rcb_finite(mat3_inverse(A, Ainv))) break;
        mat3_vec(d, Ainv, R);
        for (int i = 0; i < 3; i++) W1[i] -= d[i];
        const double scale = fmax(rcb_v3_norm(W1), rcb_v3_norm(W0));
        *res = scale > 0.0 ? rcb_v3_norm(d) / scale : rcb_v3_norm(d);
        if (!rcb_finite(*res)) break;
        if (*res <= RIGID3D_NEWTON_TOL) {
            double Wt1[3];
            for (int i = 0; i < 3; i++) Wt1[i] = (1.0 - theta) * W0[i] + theta * W1[i];
            iteration_matrix(J, Wt1, h, theta, A);
            mat3_inverse(A, Ainv);
            return it;
        }
    }
    return -1;
}

/* v_free: translation as the planar body (gravity in it), rotation by the
 * implicit gyroscopic midpoint; V_0 = v_free (Moreau--Jean) or
 * (1 - theta) v_k + theta v_free (MJF) */
static rc_status rigid3d_free_velocity(rc_world *w, const rc_body *bd, const rcm_free_coef *fc, const double *v,
                                       const double *f, double *V0)
{
    const double h = w->sim.h, *g = w->def.gravity, theta = fc->theta;
    const double m = w->mass_diag[bd->iv], *J = w->mass_diag + bd->iv + 3;
    double vf[6], res = 0.0;
    for (int j = 0; j < 3; j++) vf[j] = v[j] + h * bd->inv_mass * (f[j] + m * g[j]);
    rcm_rigid3d *r = rec_of(w, bd);
    if (gyro_newton(J, v + 3, f + 3, h, theta, vf + 3, r->Ainv, &res) < 0) {
        const int b = (int)(bd - w->bodies);
        const char *name = rcm_body_name_of(w, b);
        return rc_set_error(RC_ERR_NUMERIC, "body %d%s%s%s: the gyroscopic Newton iteration did not converge to %g in %d "
                            "iterations at t = %.17g (last relative step %.3e; Omega = (%g, %g, %g), h = %g)",
                            b, name ? " (" : "", name ? name : "", name ? ")" : "", RIGID3D_NEWTON_TOL,
                            RIGID3D_NEWTON_MAXIT, rcm_time_at(w, 0.0), res, v[3], v[4], v[5], h);
    }
    if (fc->mix) {
        for (int j = 0; j < 6; j++) V0[j] = (1.0 - theta) * v[j] + theta * vf[j];
    } else {
        for (int j = 0; j < 6; j++) V0[j] = vf[j];
    }
    return RC_OK;
}

/* rows (nrows x 6) <- (A-hat^-1 rows^T)^T: 1/m on the translation, the
 * step's Ainv on the rotation */
static rc_status rigid3d_solve_mass(rc_world *w, const rc_body *bd, double *rows, int nrows)
{
    const double *Ai = rec_of(w, bd)->Ainv;
    for (int r = 0; r < nrows; r++) {
        double *x = rows + 6 * r, t[3];
        for (int j = 0; j < 3; j++) x[j] *= bd->inv_mass;
        mat3_vec(t, Ai, x + 3);
        rcb_v3_copy(x + 3, t);
    }
    return RC_OK;
}

/* 2 E_kin += m |v|^2 + Omega^T J Omega, E_pot -= m g . x */
static void rigid3d_energy(const rc_world *w, const rc_body *bd, const double *q, const double *v, double acc[3])
{
    const double *x = q + bd->iq, *vv = v + bd->iv, *md = w->mass_diag + bd->iv, *g = w->def.gravity;
    acc[0] += md[0] * (vv[0] * vv[0] + vv[1] * vv[1] + vv[2] * vv[2])
            + md[3] * vv[3] * vv[3] + md[4] * vv[4] * vv[4] + md[5] * vv[5] * vv[5];
    acc[1] -= md[0] * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
}

/* x_{k+1} = x_k + h v, q_{k+1} = q_k exp(h Omega / 2) (renormalised) */
static void rigid3d_position(const rc_body *bd, const double *q0, const double *v, double h, double *q)
{
    (void)bd;
    for (int j = 0; j < 7; j++) q[j] = q0[j];
    for (int j = 0; j < 3; j++) q[j] = q0[j] + h * v[j];
    const double phi[3] = { h * v[3], h * v[4], h * v[5] };
    rcb_quat_step(q + 3, phi);
}

/* ||v_{k+1} - v_k||_M^2 with M = diag(m, m, m, J) */
static void rigid3d_step_terms(const rc_world *w, const rc_body *bd, const double *vth, double *W_theta, double *W_damp)
{
    (void)vth; (void)W_damp;
    for (int j = 0; j < 6; j++) {
        const double dv = w->v[bd->iv + j] - w->v0[bd->iv + j];
        *W_theta += w->mass_diag[bd->iv + j] * dv * dv;
    }
}

static const double *rigid3d_constant_force(const rc_world *w, const rc_body *bd) { return rec_of(w, bd)->force; }

const rcm_body_ops rcm_body_rigid3d = {
    .name = "rigid3d",
    .nq = 7,
    .nv = 6,
    .free_velocity = rigid3d_free_velocity,
    .solve_mass = rigid3d_solve_mass,
    .energy = rigid3d_energy,
    .position = rigid3d_position,
    .step_terms = rigid3d_step_terms,
    .constant_force = rigid3d_constant_force,
};
