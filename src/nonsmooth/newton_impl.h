/*
 * nonsmooth/newton_impl.h -- what the Newton solver's two files share
 * (newton.c: the equations, the dense path, the iteration; newton_krylov.c:
 * the iterative path). Not for other files.
 */
#ifndef RC_NEWTON_IMPL_H
#define RC_NEWTON_IMPL_H

#include "nonsmooth/nonsmooth_impl.h"

#include "linalg/linalg.h"   /* rcl_gmres: the linear solve */

/* The cap of the Newton matrix's shift delta I (newton.c): the dense and
 * iterative paths', and the sparse path's (the pile solver: it damps a
 * hyperstatic pile's near-null modes, at the price of a few more iterations
 * on small problems; docs/theory/newton-solver.md). */
#define RCN_NEWTON_DELTA 1e-11
#define RCN_NEWTON_DELTA_PILE 1e-3

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
    rcl_gmres_work gm;      /* GMRES's arrays (linalg.h)                      */
    double phi0;            /* |Phi| at the solve's first iteration          */
    long lin_total;         /* J-products of the solve                       */
    int lin_its;            /* J-products of the last linear solve           */
    double lin_rel;         /* its |J d + Phi| / |Phi|                        */
    double delta_cap;       /* the shift's cap: RCN_NEWTON_DELTA (sparse:
                               RCN_NEWTON_DELTA_PILE); after a stalled line
                               search RCN_NEWTON_DELTA_PILE                  */
    /* the sparse path (newton_sparse.c) */
    int sparse;             /* 1: W by compressed columns, J by KLU's LU      */
    int *Wp, *Wi;           /* W's column starts and row indices (J's too)    */
    double *Wx, *Jx;        /* their values                                   */
    void *sym, *num;        /* KLU's symbolic analysis and LU of the solve    */
    double *r;              /* scratch (n): J d + Phi                          */
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

/* newton_sparse.c */
/* planar rigid bodies' contacts without joints */
int rcn_newton_sparse_eligible(const rc_world *w);
/* W by compressed columns (s->S and s->r allocated) */
rc_status rcn_newton_sparse_assemble(nt_sys *s);
void rcn_newton_sparse_matvec(const nt_sys *s, const double *x, double *y);
/* J d = -Phi by UMFPACK (the symbolic analysis once per solve); *why when it fails */
rc_status rcn_newton_sparse_direction(nt_sys *s, double delta, const char **why);
void rcn_newton_sparse_free(nt_sys *s);

#endif /* RC_NEWTON_IMPL_H */
