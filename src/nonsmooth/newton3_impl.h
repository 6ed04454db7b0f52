/*
 * nonsmooth/newton3_impl.h -- what the 3D Newton solver's files share
 * (newton3.c: the iteration, the dense path, the fallback; newton3_phi.c:
 * the equations and their generalized Jacobian; newton3_krylov.c: the
 * matrix-free path). Not for other files.
 */
#ifndef RC_NEWTON3_IMPL_H
#define RC_NEWTON3_IMPL_H

#include "nonsmooth/nonsmooth.h"

#include "linalg/linalg.h"   /* rcl_gmres: the linear solve */
#define RCN3_NONMONOTONE 5     /* the non-monotone line search's memory        */
#define RCN3_STALL 20          /* iterations without theta halved: stalled      */
#define RCN3_DENSE_HYPER 400   /* "auto": dense up to here when rows > dofs      */
#define RCN3_BLOCK 16           /* doubles of a contact's block (4 x 4 at most) */

typedef struct n3_sys {
    rc_world *w;
    const rc_solver_def *opt;
    int m;                  /* active contacts                                 */
    int *ci;                /* their indices in w->c3->c (m)                    */
    int *off;               /* their first row (m + 1; off[m]: the joints' first) */
    int n;                  /* rows: 3 a contact, 4 with a drilling row, joints' */
    int iterative;          /* 1: matrix-free GMRES, 0: dense LU                */
    double *W;              /* n x n Delassus matrix, column-major (dense)      */
    double *J;              /* n x n Newton matrix, column-major (LU in place)   */
    int *ipiv;
    double *x, *u;          /* iterate and its local velocities (n)            */
    double *phi, *d, *wd;   /* Phi, direction, W d (n)                         */
    double *xt, *ut, *phit; /* trial point (n)                                 */
    double *A, *B;          /* dPhi/dp, dPhi/du by contact (RCN3_BLOCK m, row-major
                               nr x nr in the first nr * nr)                    */
    double *rho;            /* per row: the scaling of Phi                     */
    double *S;              /* scratch velocity (nv)                           */
    double *PV;             /* the velocity at the projected iterate (nv)       */
    /* the iterative path (newton3_krylov.c) */
    double *P;              /* the inverses of the contacts' diagonal blocks of J
                               (RCN3_BLOCK m); the joints' through their LU       */
    rcl_gmres_work gm;      /* GMRES's arrays (linalg.h)                      */
    double hist[RCN3_NONMONOTONE]; /* theta of the last iterations (line search) */
    int nhist;
    double best;            /* the smallest theta so far                       */
    int since_best;         /* iterations since it was halved                  */
    int tight;              /* the last step was shortened: a tight linear solve */
    double phi0;            /* |Phi| at the solve's first iteration            */
    long lin_total;         /* J-products of the solve                         */
    int lin_its;            /* J-products of the last linear solve             */
    double lin_rel;         /* its |J d + Phi| / |Phi|                          */
} n3_sys;

static inline int n3_rows(const n3_sys *s, int k) { return s->off[k + 1] - s->off[k]; }

/* newton3.c: col[i] = row i of H applied to v (no shift): every contact's
 * rows (N, T1, T2 and the drilling row D), then every 3D joint's */
void rcn_newton3_rows_dot(const n3_sys *s, const double *v, double *col);
/* v += kappa Mhat^-1 H^T x (every contact's and joint's rows) */
void rcn_newton3_apply_all(const n3_sys *s, double *v, const double *x);

/* newton3_phi.c: Phi at (x, u) into f (the Alart--Curnier equations of
 * every contact, Fischer--Burmeister on N with formulation
 * "fischer-burmeister"; rho_j H V for the joints' rows) and, with jac, the
 * blocks A = dPhi/dp, B = dPhi/du */
void rcn_newton3_phi(n3_sys *s, const double *x, const double *u, double *f, int jac);
/* one contact of nr = 3 or 4 rows (rho: nr scalings, rho[1..] equal): f and,
 * when A is not NULL, A = dPhi/dp, B = dPhi/du (row-major nr x nr) */
void rcn_newton3_phi_contact(int fb, double mu, int nr, const double *rho, const double *p, const double *u, double *f,
                             double *A, double *B);
/* the scalings from the stage's local blocks: 1 / W_NN on N, nf / (trace of
 * the friction rows' block) on the nf friction rows (one number: see the
 * file), 1 / W_rr on a joint row */
void rcn_newton3_scalings(n3_sys *s);

/* newton3_krylov.c */
rc_status rcn_newton3_krylov_alloc(n3_sys *s);
/* y = W x, matrix-free (V = kappa Mhat^-1 H^T x into the scratch, then H V) */
void rcn_newton3_W_apply(n3_sys *s, const double *x, double *y);
/* d with |J d + Phi| <= eta |Phi| (J = A + B W + delta I) by GMRES with the
 * block-Jacobi preconditioner; sets lin_its, lin_rel. *why: NULL, or why no
 * direction was found */
void rcn_newton3_krylov_solve(n3_sys *s, double delta, double eta, const char **why);
/* x = A^-1 r for an n x n row-major block (n <= 6, partial pivoting); 0 if singular */
int rcn_newton3_small_solve(const double *A, int n, const double *r, double *x);

#endif /* RC_NEWTON3_IMPL_H */
