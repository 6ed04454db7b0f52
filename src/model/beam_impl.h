/*
 * model/beam_impl.h -- what the beam's files share (beam.c: the body;
 * beam_joint.c: its bilateral constraints with rigid bodies). Not for other
 * folders.
 */
#ifndef RC_BEAM_IMPL_H
#define RC_BEAM_IMPL_H

#include "model/beam.h"

enum { BEAM_MAX_DEGREE = 5, BEAM_MAX_QUAD = 5, BEAM_MAX_JOINTS = 4 };

/* a constraint between the beam's point r(xi) and a rigid body (beam_joint.c) */
typedef struct rcm_bjoint {
    int id, rows;
    rc_beam_joint_def def;   /* name: owned copy */
    double angle0;           /* the angle row's constant, when def.motion is NULL */
    double g[3], lambda[3], work;
} rcm_bjoint;

typedef struct rcm_beam {
    int body, p, nel, nbasis, nquad, nqp;
    double EA, EI, rho;
    double *knots;      /* nel + 2p + 1 */
    int *first;         /* per quadrature point: its first basis function */
    double *N;          /* per quadrature point: N, N', N'' (3 (p + 1)) */
    double *wJ;         /* weight x J0 */
    double *J0, *k0;    /* reference |r0'| and curvature */
    rcm_bjoint joints[BEAM_MAX_JOINTS];
    int njoints;
} rcm_beam;

/* the beam of body b, NULL if it is none */
rcm_beam *rcm_beam_of(const rc_world *w, int b);
/* the knot span of xi; N^(d)_{span-p+j}(xi), d = 0..2, into ders[d (p + 1) + j] */
int rcm_beam_span(int p, int nel, double xi);
void rcm_beam_basis(int p, const double *U, int span, double xi, double *ders);

#endif /* RC_BEAM_IMPL_H */
