/*
 * nonsmooth/newton_impl.h -- what the Newton solver's two files share
 * (newton.c: the equations, the dense path, the iteration; newton_krylov.c:
 * the iterative path). Not for other files.
 */
#ifndef RC_NEWTON_IMPL_H
#define RC_NEWTON_IMPL_H

#include "nonsmooth/nonsmooth_impl.h"

#include "linalg/linalg.h"   /* rcl_gmres: the linear solve */
#define RCN_GMRES_RESTART RCL_GMRES_RESTART   /* the Krylov space's size before a restart */

typedef struct nt_sys {
    rc_world *w;
    const rc_solver_def *opt;
    int m, n;               /* active contacts, rows (2 m + joint rows)       */
    int iterative;          /* 1: matrix-free GMRES, 0: dense LU              */
    double *W;              /* n x n Delassus matrix, column-major (dense)    */
    double *J;              /* n x n Newton matrix, column-major (LU in place) */
    int *ipiv;
    double *x, *u;          /* iterate and its local velocities (n)          */
    double *phi, *d, *wd;   /* Phi, direction, W d (n)                       */
    double *xt, *ut, *phit; /* trial point (n)                               */
    double *A, *B;          /* 2 x 2 blocks dPhi/dp, dPhi/du by contact (4 m) */
    double *rho;            /* per row: the scaling of Phi                   */
    double *S;              /* scratch velocity (nv)                         */
    /* the iterative path (newton_krylov.c) */
    double *P;              /* block-diagonal preconditioner: the inverses of
                               the 2 x 2 contact blocks (4 m), then 1 / J_ii of
                               the joint rows                               */
    double *V, *H;          /* Krylov basis n x (k + 1), Hessenberg (k + 1) x k */
    double *cs, *sn, *g, *y;/* Givens rotations, rotated rhs (k + 1)          */
    double *z, *t;          /* scratch (n)                                   */
    double phi0;            /* |Phi| at the solve's first iteration          */
    long lin_total;         /* J-products of the solve                       */
    int lin_its;            /* J-products of the last linear solve           */
    double lin_rel;         /* its |J d + Phi| / |Phi|                        */
} nt_sys;

/* newton.c: col[i] = row i of H applied to v (no shift), every contact then
 * every joint row */
void rcn_newton_rows_dot(const nt_sys *s, const double *v, double *col);

/* newton_krylov.c */
rc_status rcn_newton_krylov_alloc(nt_sys *s);
/* rho from the stages' local blocks (c->W, j->W): 1 / W_ii, a law without a
 * closed form 1 / max(W_NN, W_TT) */
void rcn_newton_krylov_scalings(nt_sys *s);
/* y = W x, matrix-free: V = kappa Mhat^-1 H^T x into the scratch, then H V */
void rcn_newton_W_apply(nt_sys *s, const double *x, double *y);
/* d with |J d + Phi| <= eta |Phi| (J = A + B W + delta I) by GMRES with the
 * block-Jacobi preconditioner; sets lin_its, lin_rel. *why: NULL, or why no
 * direction was found */
rc_status rcn_newton_krylov_solve(nt_sys *s, double delta, double eta, const char **why);

#endif /* RC_NEWTON_IMPL_H */
