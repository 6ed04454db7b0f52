/*
 * model/joint_impl.h -- the planar kinematics that joints (joint.c) and
 * springs (spring.c) share (not for other files).
 */
#ifndef RC_JOINT_IMPL_H
#define RC_JOINT_IMPL_H

#include "model/model.h"

static inline void rot(double th, const double *p, double *r)
{
    double c = cos(th), s = sin(th);
    r[0] = c * p[0] - s * p[1];
    r[1] = s * p[0] + c * p[1];
}

static const double zero3[3] = { 0.0, 0.0, 0.0 };

/* kappa M^-1 of joint j's two bodies (the diagonal: m, m, J; zero for the ground) */
static inline void joint_kappa_inv_mass(const rc_world *w, const rc_joint *j, double kappa, double ma[3], double mb[3])
{
    const rc_body *bb = &w->bodies[j->def.body_b];
    mb[0] = mb[1] = kappa * bb->inv_mass;
    mb[2] = kappa * bb->inv_inertia;
    ma[0] = ma[1] = ma[2] = 0.0;
    if (j->def.body_a != RC_GROUND) {
        const rc_body *ba = &w->bodies[j->def.body_a];
        ma[0] = ma[1] = kappa * ba->inv_mass;
        ma[2] = kappa * ba->inv_inertia;
    }
}

static inline const double *body_q(const rc_world *w, int b, const double *q)
{
    return b == RC_GROUND ? zero3 : q + w->bodies[b].iq;
}

/* World point of local point p on body b (ground: p itself), and the lever
 * R p (for dP/dtheta = perp(R p)). */
static inline void point(const rc_world *w, int b, const double *q, const double *p, double *P, double *lever)
{
    if (b == RC_GROUND) {
        P[0] = p[0]; P[1] = p[1];
        lever[0] = lever[1] = 0.0;
        return;
    }
    const double *x = body_q(w, b, q);
    rot(x[2], p, lever);
    P[0] = x[0] + lever[0];
    P[1] = x[1] + lever[1];
}

static inline int rigid_body(const rc_world *w, int b)
{
    return b >= 0 && b < w->nbodies && w->bodies[b].kind == RC_BODY_RIGID2D;
}

#endif /* RC_JOINT_IMPL_H */
