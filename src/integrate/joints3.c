/* joints3.c -- the 3D joints of a dim = 3 world in the step
 * (docs/theory/spatial.md, "Joints"), beside the 3D contacts (contacts3.c):
 *   assemble  rows H at q* (model/joint3.c), a driven row's rate -f'(t*)
 *             at the scheme's rate time (joint3_drive.c), kappa Mhat^-1 H^T through the
 *             body kind's solve_mass, W = H kappa Mhat^-1 H^T factorised
 *             (LU, partial pivoting: W is not symmetric), the warm start
 *             V += kappa Mhat^-1 H^T lambda (the last step's impulse of the
 *             joint);
 *   solve     nonsmooth/joint3_block.c inside rcn_nsgs3's sweep;
 *   audit     W_J += u_{k+theta} . lambda (eq. 68 with the joint's rows);
 *             with project_joints the positions and velocities are projected
 *             (model/joint3_project.c), what that changed in E booked as
 *             E_proj and W_proj (not given back). */
#include "integrate/integrate.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

static rc_status side_mass(rc_world *w, int body, int rows, double H[][6], double MH[][6], double kappa)
{
    if (body < 0) { memset(MH, 0, sizeof(double) * 6 * (size_t)rows); return RC_OK; }
    memcpy(MH, H, sizeof(double) * 6 * (size_t)rows);
    const rc_body *bd = &w->bodies[body];
    RC_CHECK(rcm_body_ops_of(bd)->solve_mass(w, bd, &MH[0][0], rows));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < 6; c++) MH[r][c] *= kappa;
    return RC_OK;
}

/* the pose of a side at q* = q_k + s h v_k (s: rc_sim_joint_jacobian, 0
 * START, 1/2 MIDPOINT, 1 END as for planar joints), on the Lie group */
static void predicted_pose(const rci_step *st, int body, double *x)
{
    static const double ground[7] = { 0, 0, 0, 1, 0, 0, 0 };
    if (body < 0) { memcpy(x, ground, sizeof ground); return; }
    const rc_world *w = st->w;
    const rc_joint_jacobian jj = rc_sim_joint_jacobian(&w->sim);
    const double s = (jj == RC_JOINT_JACOBIAN_START ? 0.0 : jj == RC_JOINT_JACOBIAN_MIDPOINT ? 0.5 : 1.0) * st->h;
    const double *q = w->q + w->bodies[body].iq, *v = st->vk + w->bodies[body].iv;
    memcpy(x, q, 7 * sizeof *x);
    for (int k = 0; k < 3; k++) x[k] += s * v[k];
    const double phi[3] = { s * v[3], s * v[4], s * v[5] };
    rcb_quat_step(x + 3, phi);
}

/* a motor's row at the predicted poses, kappa Mhat^-1 H^T, W, the target
 * (Moreau--Jean: the speed; MJF: (1 - theta) u_k + theta speed), the warm
 * start (model/joint3_motor.c) */
static rc_status assemble_motor(rci_step *st, rcm_joint3 *j, const double *xa, const double *xb)
{
    rc_world *w = st->w;
    rcm_joint3_coord_row(j, xa, xb, j->mHa, j->mHb);
    if (j->body_a < 0) memset(j->mHa, 0, sizeof j->mHa);
    RC_CHECK(side_mass(w, j->body_a, 1, (double (*)[6])j->mHa, (double (*)[6])j->mMHa, st->kappa));
    RC_CHECK(side_mass(w, j->body_b, 1, (double (*)[6])j->mHb, (double (*)[6])j->mMHb, st->kappa));
    double W = 0.0, uk = 0.0;
    const double *va = j->body_a >= 0 ? st->vk + w->bodies[j->body_a].iv : NULL, *vb = st->vk + w->bodies[j->body_b].iv;
    for (int c = 0; c < 6; c++) {
        W += j->mHa[c] * j->mMHa[c] + j->mHb[c] * j->mMHb[c];
        uk += j->mHb[c] * vb[c] + (va ? j->mHa[c] * va[c] : 0.0);
    }
    if (!(W > 0.0)) return rc_set_error(RC_ERR_NUMERIC, "3D joint '%s': its motor row is singular at t = %.17g", j->name ? j->name : "(unnamed)", w->t);
    j->motor_W = W;
    j->motor_target = w->unknown == RC_UNKNOWN_THETA ? (1.0 - w->sim.theta) * uk + w->sim.theta * j->motor_speed : j->motor_speed;
    if (!w->sim.solver.warm_start) j->motor_lambda = 0.0;
    rcn_joint3_motor_apply(w, j, w->V, j->motor_lambda);
    return RC_OK;
}

static rc_status assemble_one(rci_step *st, int id, rcm_joint3 *j, double *b2)
{
    rc_world *w = st->w;
    const int n = j->rows;
    double g[RCM_J3_MAXROWS], xs[2][7];
    predicted_pose(st, j->body_a, xs[0]);
    predicted_pose(st, j->body_b, xs[1]);
    rcm_joint3_rows_at(j, xs[0], xs[1], j->Ha, j->Hb, g);
    memset(j->gt, 0, sizeof j->gt);
    if (j->drive) {   /* the driven row's rate -f'(t*) at the scheme's rate time (joint3_drive.c) */
        double f, df;
        RC_CHECK(rcm_joint3_motion(j, rcm_time_at(w, w->joint_rate_s), &f, &df));
        j->gt[n - 1] = -df;
    }
    RC_CHECK(side_mass(w, j->body_a, n, j->Ha, j->MHa, st->kappa));
    RC_CHECK(side_mass(w, j->body_b, n, j->Hb, j->MHb, st->kappa));
    for (int r = 0; r < n; r++)
        for (int k = 0; k < n; k++) {
            double s = 0.0;
            for (int c = 0; c < 6; c++) s += j->Ha[r][c] * j->MHa[k][c] + j->Hb[r][c] * j->MHb[k][c];
            j->LU[r * n + k] = s;
        }
    if (!rcm_j3_lu(j->LU, n, j->piv))
        return rc_set_error(RC_ERR_NUMERIC, "3D joint %d%s%s: singular block at t = %.17g", id, j->name ? " " : "",
                            j->name ? j->name : "", w->t);
    const double *va = j->body_a >= 0 ? w->V + w->bodies[j->body_a].iv : NULL, *vb = w->V + w->bodies[j->body_b].iv;
    for (int r = 0; r < n; r++) {   /* |H V_free + dg/dt|^2 */
        double u = j->gt[r];
        for (int c = 0; c < 6; c++) u += j->Hb[r][c] * vb[c] + (va ? j->Ha[r][c] * va[c] : 0.0);
        *b2 += u * u;
    }
    if (!w->sim.solver.warm_start) memset(j->lambda, 0, sizeof j->lambda);
    rcn_joint3_apply(w, j, w->V, j->lambda);
    return j->motor ? assemble_motor(st, j, xs[0], xs[1]) : RC_OK;
}

rc_status rci_joints3_assemble(rci_step *st, double *b2)
{
    rc_world *w = st->w;
    for (int i = 0; w->j3 && i < w->j3->n; i++) RC_CHECK(assemble_one(st, i, &w->j3->j[i], b2));
    return RC_OK;
}

rc_status rci_joints3_audit(rci_step *st, const double *vth, rci_audit *a)
{
    rc_world *w = st->w;
    if (!w->j3 || w->j3->n == 0) return RC_OK;
    if (w->j3->wstart != 0.0) {   /* a start's velocity projection (rcm_joints3_start): E_k before it, its work */
        a->E0 -= w->j3->wstart;
        a->W_J += w->j3->wstart;
        w->j3->wstart = 0.0;
    }
    for (int i = 0; i < w->j3->n; i++) {
        rcm_joint3 *j = &w->j3->j[i];
        const double *va = j->body_a >= 0 ? vth + w->bodies[j->body_a].iv : NULL, *vb = vth + w->bodies[j->body_b].iv;
        j->work = 0.0;
        for (int r = 0; r < j->rows; r++) {
            double u = 0.0;
            for (int c = 0; c < 6; c++) u += j->Hb[r][c] * vb[c] + (va ? j->Ha[r][c] * va[c] : 0.0);
            j->work += u * j->lambda[r];
        }
        a->W_J += j->work;
        j->motor_work = 0.0;
        if (j->motor) {   /* the motor's work u_{k+theta} lambda_m: W_motor */
            double u = 0.0;
            for (int c = 0; c < 6; c++) u += j->mHb[c] * vb[c] + (va ? j->mHa[c] * va[c] : 0.0);
            j->motor_work = u * j->motor_lambda;
            a->W_motor += j->motor_work;
        }
    }
    double gmax, umax;
    if (w->sim.project_joints) {
        RC_CHECK(rcm_joints3_project(w, st->t_next, w->q, w->v, &gmax, &umax));
        double Ek2, Ep2;
        rcm_energy(w, w->q, w->v, &Ek2, &Ep2, NULL);
        const double dE = (Ek2 + Ep2) - (st->Ek1 + st->Ep1);
        a->E_proj += dE;
        a->W_proj += dE;
        st->Ek1 = Ek2;
        st->Ep1 = Ep2;
    } else RC_CHECK(rcm_joints3_violation(w, st->t_next, w->q, w->v, &gmax, &umax));
    if (gmax > a->pos_viol) a->pos_viol = gmax;
    if (umax > a->vel_viol) a->vel_viol = umax;
    return RC_OK;
}
