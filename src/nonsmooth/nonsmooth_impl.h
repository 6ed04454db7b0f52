/*
 * nonsmooth/nonsmooth_impl.h -- what the solvers' files share (not public,
 * not for other layers): the local velocities (model.h's rcm_contact_dot,
 * rcm_joint_dot with the rows' shift) and the joint blocks (nsgs.c, uzawa.c).
 */
#ifndef RC_NONSMOOTH_IMPL_H
#define RC_NONSMOOTH_IMPL_H

#include "nonsmooth/nonsmooth.h"

/* Local velocity u = H V + shift of contact c (u includes the law shift). */
static inline void local_velocity(const rc_world *w, const rc_contact *c, const double *V, double u[2])
{
    rcm_contact_dot(w, c, V, c->shift, u);
}

/* Joint j's row velocity H V + dg/dt. */
static inline void joint_velocity(const rc_world *w, const rc_joint *j, const double *V, double *u)
{
    rcm_joint_dot(w, j, &j->Ha[0][0], &j->Hb[0][0], V, j->shift, RCM_SUM_BY_SIDE, u);
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
    rcm_joint_apply(w, j, &j->MHa[0][0], &j->MHb[0][0], w->V, 0, dl);
}

/* nsgs.c: the natural-map residual of the active contacts and the joints
 * (their local velocities from w->V), its worst row. */
rc_status rcn_nsgs_residual(rc_world *w, double norm_b, int *worst, double *res);
/* nsgs.c: the world frees and measures the sweep orders (and leaves the
 * OpenMP team) through the solver's part. */
void rcn_nsgs_attach(rc_world *w);

#endif /* RC_NONSMOOTH_IMPL_H */
