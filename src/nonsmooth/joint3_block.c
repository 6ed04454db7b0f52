/* joint3_block.c -- the 3D joints' blocks in the 3D Gauss--Seidel sweep
 * (nsgs3.c; docs/theory/spatial.md, "Joints"): each joint, the others'
 * impulses fixed, solved exactly against its own Delassus block W = H kappa
 * Mhat^-1 H^T (factorised once per step, integrate/joints3.c):
 *     lambda += dlambda = -W^-1 (H V + dg/dt),   V += kappa Mhat^-1 H^T dlambda. */
#include "nonsmooth/nonsmooth.h"

/* H V + dg/dt of joint j (dg/dt: a driven row's -f'(t*), integrate/joints3.c) */
static void joint_velocity(const rc_world *w, const rcm_joint3 *j, const double *V, double *u)
{
    const double *va = j->body_a >= 0 ? V + w->bodies[j->body_a].iv : NULL, *vb = V + w->bodies[j->body_b].iv;
    for (int r = 0; r < j->rows; r++) {
        double s = j->gt[r];
        for (int c = 0; c < 6; c++) s += j->Hb[r][c] * vb[c];
        if (va)
            for (int c = 0; c < 6; c++) s += j->Ha[r][c] * va[c];
        u[r] = s;
    }
}

void rcn_joint3_apply(const rc_world *w, const rcm_joint3 *j, double *V, const double *dl)
{
    double *vb = V + w->bodies[j->body_b].iv;
    for (int r = 0; r < j->rows; r++)
        for (int c = 0; c < 6; c++) vb[c] += j->MHb[r][c] * dl[r];
    if (j->body_a < 0) return;
    double *va = V + w->bodies[j->body_a].iv;
    for (int r = 0; r < j->rows; r++)
        for (int c = 0; c < 6; c++) va[c] += j->MHa[r][c] * dl[r];
}

void rcn_joint3_motor_apply(const rc_world *w, const rcm_joint3 *j, double *V, double dl)
{
    double *vb = V + w->bodies[j->body_b].iv;
    for (int c = 0; c < 6; c++) vb[c] += j->mMHb[c] * dl;
    if (j->body_a < 0) return;
    double *va = V + w->bodies[j->body_a].iv;
    for (int c = 0; c < 6; c++) va[c] += j->mMHa[c] * dl;
}

/* a motor's H V - target and its clamped update (model/joint3_motor.c) */
static double motor_rate(const rc_world *w, const rcm_joint3 *j, const double *V)
{
    const double *va = j->body_a >= 0 ? V + w->bodies[j->body_a].iv : NULL, *vb = V + w->bodies[j->body_b].iv;
    double u = -j->motor_target;
    for (int c = 0; c < 6; c++) u += j->mHb[c] * vb[c] + (va ? j->mHa[c] * va[c] : 0.0);
    return u;
}

static double motor_clamp(const rc_world *w, const rcm_joint3 *j, double l)
{
    const double b = w->sim.h * j->motor_max;
    return l > b ? b : l < -b ? -b : l;
}

int rcn_joints3_count(const rc_world *w) { return w->j3 ? w->j3->n : 0; }

void rcn_joints3_sweep(const rc_world *w, double *V)
{
    for (int i = 0; i < rcn_joints3_count(w); i++) {
        rcm_joint3 *j = &w->j3->j[i];
        double u[RCM_J3_MAXROWS];
        joint_velocity(w, j, V, u);
        for (int r = 0; r < j->rows; r++) u[r] = -u[r];
        rcm_j3_lu_solve(j->LU, j->piv, j->rows, u);
        for (int r = 0; r < j->rows; r++) j->lambda[r] += u[r];
        rcn_joint3_apply(w, j, V, u);
        if (!j->motor) continue;
        const double l = motor_clamp(w, j, j->motor_lambda - motor_rate(w, j, V) / j->motor_W);
        rcn_joint3_motor_apply(w, j, V, l - j->motor_lambda);
        j->motor_lambda = l;
    }
}

double rcn_joints3_residual2(const rc_world *w, const double *V)
{
    double r2 = 0.0;
    for (int i = 0; i < rcn_joints3_count(w); i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        double u[RCM_J3_MAXROWS];
        joint_velocity(w, j, V, u);
        for (int r = 0; r < j->rows; r++) r2 += u[r] * u[r];
        if (j->motor) {   /* the natural map's residual, in velocity units */
            const double d = j->motor_W * (j->motor_lambda - motor_clamp(w, j, j->motor_lambda - motor_rate(w, j, V) / j->motor_W));
            r2 += d * d;
        }
    }
    return r2;
}
