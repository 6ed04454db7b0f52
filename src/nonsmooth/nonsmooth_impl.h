/*
 * nonsmooth/nonsmooth_impl.h -- what the solvers' files share (not public,
 * not for other layers): H V, V += kappa Mhat^-1 H^T dp and the joint blocks
 * (nsgs.c, uzawa.c).
 */
#ifndef RC_NONSMOOTH_IMPL_H
#define RC_NONSMOOTH_IMPL_H

#include "nonsmooth/nonsmooth.h"

/* Local velocity u = H V + shift of contact c (u includes the law shift). */
static inline void local_velocity(const rc_world *w, const rc_contact *c, const double *V, double u[2])
{
    if (c->gap >= 0) {
        rcm_gap_dot(w, c, V, u);
        u[0] += c->shift[0];
        u[1] += c->shift[1];
        return;
    }
    /* H from n and Hr (rcm_contact_jacobian): the same products */
    const double *vb = V + w->bodies[c->body_b].iv, nx = c->n[0], ny = c->n[1];
    u[0] = nx * vb[0] + ny * vb[1] + c->Hr[1][0] * vb[2] + c->shift[0];
    u[1] = ny * vb[0] + -nx * vb[1] + c->Hr[1][1] * vb[2] + c->shift[1];
    if (c->body_a != RC_GROUND) {
        const double *va = V + w->bodies[c->body_a].iv;
        u[0] += -nx * va[0] + -ny * va[1] + c->Hr[0][0] * va[2];
        u[1] += -ny * va[0] + nx * va[1] + c->Hr[0][1] * va[2];
    }
}

/* V += kappa Mhat^-1 H^T dp for the bodies of c. */
static inline void apply_impulse(const rc_world *w, const rc_contact *c, double *V, const double dp[2])
{
    if (c->gap >= 0) { rcm_gap_apply(w, c, V, dp); return; }
    rcm_contact_apply(w, c, V, dp);
}

/* Joint j's row velocity H V + dg/dt. */
static inline void joint_velocity(const rc_world *w, const rc_joint *j, const double *V, double *u)
{
    const double *vb = V + w->bodies[j->def.body_b].iv;
    const double *va = j->def.body_a == RC_GROUND ? NULL : V + w->bodies[j->def.body_a].iv;
    for (int r = 0; r < j->rows; r++) {
        u[r] = j->shift[r] + j->Hb[r][0] * vb[0] + j->Hb[r][1] * vb[1] + j->Hb[r][2] * vb[2];
        if (va) u[r] += j->Ha[r][0] * va[0] + j->Ha[r][1] * va[1] + j->Ha[r][2] * va[2];
    }
}

/* An equality block is solved exactly: lambda += -W^-1 (H V + dg/dt). */
static inline void joint_solve(rc_world *w, rc_joint *j)
{
    double u[3], dl[3];
    joint_velocity(w, j, w->V, u);
    for (int r = 0; r < j->rows; r++) {
        dl[r] = 0.0;
        for (int k = 0; k < j->rows; k++) dl[r] -= j->Winv[r][k] * u[k];
        j->lambda[r] += dl[r];
    }
    double *vb = w->V + w->bodies[j->def.body_b].iv;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < j->rows; r++) vb[c] += j->MHb[r][c] * dl[r];
    if (j->def.body_a != RC_GROUND) {
        double *va = w->V + w->bodies[j->def.body_a].iv;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < j->rows; r++) va[c] += j->MHa[r][c] * dl[r];
    }
}

/* nsgs.c: the natural-map residual of the active contacts and the joints
 * (their local velocities from w->V), its worst row. */
rc_status rcn_nsgs_residual(rc_world *w, double norm_b, int *worst, double *res);
/* nsgs.c: the world frees and measures the sweep orders (and leaves the
 * OpenMP team) through the solver's part. */
void rcn_nsgs_attach(rc_world *w);

#endif /* RC_NONSMOOTH_IMPL_H */
