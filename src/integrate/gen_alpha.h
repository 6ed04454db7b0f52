/*
 * integrate/gen_alpha.h -- what the nonsmooth generalized-alpha scheme's two
 * files share (scheme_gen_alpha.c: the step, its state and audit;
 * ga_newton.c: the semismooth Newton method on the discrete system). Not for
 * other files. Bruls, Acary & Cardona 2014; equation numbers are the paper's.
 */
#ifndef RC_GEN_ALPHA_H
#define RC_GEN_ALPHA_H

#include "integrate/integrate.h"

/* The scheme's state across steps (RC_PART_SCHEME): a_n and vdot~_n, and
 * the q, v the last step left (a state set from outside since then gets a
 * consistent acceleration again). */
typedef struct rci_ga_state {
    double *a, *vd, *q, *v;
    int cap, n, valid;
    /* the linear bodies' factors of M and S (ga_solve.c), for (h, c, beta/gamma) */
    double *fac;
    size_t fac_cap;
    double fac_key[3];
    int fac_n, fac_valid;
    /* the frictional variant (gf_step.c): which variant the state belongs to
     * (a: a_n, vd: a-bar_n), and each contact's lambda_N, its bar, lambda_F,
     * its bar and the warm start kappa_N, Lambda_N, Lambda_F, by key */
    int variant;
    struct rci_gf_rec *rec;
    int nrec, cap_rec;
    /* spatial contacts (ga3_fstep.c): 1 + RCI_GA3_REC doubles each, the key's bits first */
    double *rec3;
    int nrec3, cap_rec3;
} rci_ga_state;

/* The largest system in the multipliers (n_b + 2 m unknowns) the dense
 * solve of the Newton update takes (ga_solve.c). */
enum { RCI_GA_MAX_MULTIPLIERS = 1200 };

/* One step's discrete system (29)-(30). Constraint rows: the joints' rows
 * first (the bilateral set U-bar, in joint order), then the unilateral
 * contacts of the step's set cs (detected at q_n with a margin that covers the
 * step's motion). G is m x n by rows (dense). */
typedef struct rci_ga_sys {
    RCI_GA_HEAD;              /* w, h, am, af, beta, gam, t1, margin, n, nb, have_f */
    int nu, m, N;
    double cS, bg;            /* (1 - alpha_m) / ((1 - alpha_f) gamma), beta / gamma */
    const double *qn, *vn, *an, *vdn;   /* the state at t_n */
    /* the unknowns: vt = v~ (n), lt = lambda~ (nb), U (n), pnu = nu (m), W (n), L = Lambda (m) */
    double *vt, *lt, *U, *pnu, *W, *L;
    /* what follows from them (30): a_{n+1}, vdot~_{n+1}, q~, q, v */
    double *a, *vd, *qt, *q, *v;
    double *f;                /* f(q, v, t_{n+1}): applied forces and gravity */
    double *g, *G, *gt;       /* g(q) (m), g_q (m x n), dg/dt of the joints (nb) */
    double *gtil;             /* unilateral: g(q~) (nu) */
    double *ukn;              /* e_j g_q,n v_n (m; bilateral: 0) */
    double *un;               /* unilateral: g_q,n v_n (nu), the pre-step rate */
    double *e, *rj;           /* unilateral: restitution, the active sets' r_j */
    rc_contact *cs;           /* the step's unilateral constraints (nu) */
    unsigned char *inA, *inB; /* active sets (38), m each */
    double *r, *x;            /* residual (N), Newton step (N) */
    double *Mx;               /* M vd, M U, M W (3 n) */
    /* the block elimination (ga_solve.c): M^-1 g^T, S^-1 g^Ubar,T, the linear
     * bodies' h^2 S^-1 K M^-1 g^T and h S^-1 C M^-1 g^T (rows of n), the
     * reduced matrix and right-hand side, rows' nonzero spans */
    double *Y, *X, *ZA, *ZB, *R, *rhs, *tmp;
    int *lo, *hi, *ipiv;
    const double *fac;        /* the linear bodies' factors (rci_ga_state) */
    int stiff;                /* some linear body has K or C */
} rci_ga_sys;

/* ga_newton.c */
/* a, vdot~, q~, q, v from the unknowns (30); the constraints at q and q~,
 * the forces at (q, v, t_{n+1}) (w->q, w->v hold q and v afterwards) */
rc_status rci_ga_eval(rci_ga_sys *s);
/* the active sets (38) and the scaled residual (39); its max-norm, the
 * index of its largest entry in *worst */
double rci_ga_residual(rci_ga_sys *s, int *worst);
/* the consistent initial acceleration vdot~_0 at (q_n, v_n) (M a - g_q^T l = f,
 * g_q a = -(d/dt)(g_q) v, the joints only) into a0 */
rc_status rci_ga_initial_acceleration(rci_ga_sys *s, double *a0);

/* ga_solve.c */
/* the linear bodies' factors of M and S for the step (kept in g) */
rc_status rci_ga_factors(rci_ga_sys *s, rci_ga_state *g);
/* y = M x; f -= K q + C v (linear bodies) */
void rci_ga_mass_mul(const rci_ga_sys *s, const double *x, double *y);
void rci_ga_internal_forces(const rci_ga_sys *s, const double *q, const double *v, double *f);
/* the Newton update of the unknowns (41)-(44) by block elimination: every
 * block at once (RCI_GA_ALL, monolithic), or one of them with the coupling
 * to the others dropped (Algorithm 1's steps 1, 2, 3: (47), (48), (49)) */
enum { RCI_GA_SMOOTH = 1, RCI_GA_POSITION = 2, RCI_GA_VELOCITY = 4, RCI_GA_ALL = 7 };
rc_status rci_ga_newton_update(rci_ga_sys *s, int blocks);
/* a0 from M a - g_q^T l = s->f, g_q a = -cterm (the joints' rows of s->G) */
rc_status rci_ga_consistent_acceleration(rci_ga_sys *s, const double *cterm, double *a0);

/* gf_step.c: the step of the frictional variant (Capobianco et al. 2021)
 * with the scheme's state g */
rc_status rci_gf_step(rci_step *st, rci_audit *a, rci_ga_state *g);
/* ga3_step.c: the step on spatial rigid bodies (dim = 3 worlds), both
 * variants; the state back at t_n on failure */
rc_status rci_ga3_step(rci_step *st, rci_audit *a, rci_ga_state *g);

#endif /* RC_GEN_ALPHA_H */
