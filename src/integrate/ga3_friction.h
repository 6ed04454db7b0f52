/*
 * integrate/ga3_friction.h -- what the frictional generalized-alpha step on
 * spatial rigid bodies shares (Capobianco, Harsch, Eugster & Leine 2021,
 * sections 7-9 with the kinematics of section 8; docs/theory/gen-alpha.md,
 * "Spatial contacts"): ga3_contact.c (the contacts' geometry, rows and
 * accelerations' velocity terms at an iterate), ga3_residual.c (the unknowns'
 * dependent quantities and the residual R(x) with the Coulomb disc),
 * ga3_fstep.c (Newton, the contacts' report, the audit, the state). Not for
 * other files.
 */
#ifndef RC_GA3_FRICTION_H
#define RC_GA3_FRICTION_H

#include "integrate/gen_alpha.h"
#include "integrate/gen_alpha_friction.h"   /* the index sets RCI_GF_* */

enum { RCI_GA3_MAX_UNKNOWNS = 240 };

/* One step's system. x: a (nv), U (nv), Q (nv), the joints' kappa_g,
 * Lambda_g, lambda_g (nb each), then per contact k at off[k]: kappa_N,
 * Lambda_N, lambda_N, Lambda_F (nf[k]), lambda_F (nf[k]), nf = 2 (the
 * tangents) or 3 (and the Contensou drilling row, eq. 157). Rows G (nv
 * each): the joints' nb, then per contact k from row gr[k]: N, F_1 .. F_nf. */
typedef struct rci_ga3f {
    rc_world *w;
    double h, am, af, be, ga, t1, margin;
    int nq, nv, nc, N, nrows, have_f;
    /* the joints (ga3_joints.c): nb rows, first in G, their unknowns kappa_g,
     * Lambda_g, lambda_g after Q in x; g, dg/dt, g-dot, g-ddot at the iterate,
     * dg/dt at a shifted position (gt2); tj: the time the rows are taken at */
    int nb;
    double tj;
    double *gj, *gtj, *gdj, *gddj, *gt2;
    const double *qn, *un, *an, *abn;
    double *x, *ab, *u, *q, *f, *G, *G2, *dc, *X;
    rcm_contact3 *cs;                 /* the step's contacts (detected at q_i), frames at the iterate */
    int *off, *nf, *gr;
    double *scale;                    /* the drilling row's 3 pi R / 16 (0: none) */
    double *eN, *eF, *mu, *rN, *rF;
    /* per contact (3 doubles each for the friction vectors): at t_i, and the
     * dependent and evaluated quantities of the iterate */
    double *lNn, *lbNn, *lFn, *lbFn;
    double *lbN, *lbF, *PN, *kh, *PF;
    double *gN, *gdN, *gddN, *xiN, *gF, *gdF, *xiF, *gFo;
    unsigned char *set;
    double *R, *J, *J2, *dx, *R0;
    int *ipiv;
    double *jw;                       /* the analytic Jacobian's workspace (ga3_jacobian.c; NULL until its first use in the step) */
} rci_ga3f;

/* the record of a contact across steps (rci_ga_state.rec3): key, then
 * lambda_N, its bar, kappa_N, Lambda_N, lambda_F (3), its bar (3), Lambda_F (3) */
enum { RCI_GA3_REC = 13 };

/* ga3_contact.c */
/* the step's contacts at q_i (w->c3, detected within s->margin) into s->cs;
 * the laws' coefficients; refuses custom laws */
rc_status rci_ga3f_contacts(rci_ga3f *s);
/* the contacts' frames, gaps and rows G at positions X (frames: into s->cs;
 * else a copy); w->q holds X afterwards */
rc_status rci_ga3f_rows(rci_ga3f *s, const double *X, double *G, double *gap, int frames);
/* c = d/dt (G u) at fixed u along q' = B(q) u (central differences) */
rc_status rci_ga3f_drift(rci_ga3f *s, double *c);
/* X = q (+) e u: x + e v, p exp(e Omega / 2) */
void rci_ga3f_move(const rc_world *w, const double *q, const double *u, double e, double *X);

/* ga3_residual.c */
/* q = the Taylor update (125) with the accelerations (1 - 2 beta) a0 + 2 beta
 * a1 and the correction B(q_i) Q (Q NULL: none), p normalised */
void rci_ga3f_positions(const rci_ga3f *s, const double *a0, const double *a1, const double *Q, double *q);
void rci_ga3f_dependent(rci_ga3f *s, int with_Q);
rc_status rci_ga3f_eval(rci_ga3f *s);
void rci_ga3f_sets(rci_ga3f *s);
double rci_ga3f_residual(rci_ga3f *s, int *worst);

/* ga3_fixed.c: the fixed-point iterations (144)-(146) from the current x;
 * *ok: converged */
rc_status rci_ga3f_fixed_point(rci_ga3f *s, int maxit, double tol, int *iters, double *res, int *worst, int *ok);

/* ga3_bruls.c: the frictionless variant's step with contacts (Bruls, Acary
 * & Cardona 2014, eqs. 29-30, the same kinematics) */
/* ga3_step.c: q, u checked finite and copied into the world's q, v */
rc_status rci_ga3_accept(rc_world *w, const double *q, const double *u);
rc_status rci_ga3b_step(rci_step *st, rci_audit *a, rci_ga_state *g);

/* ga3_jacobian.c: the analytic Newton Jacobian into s->J (the sets frozen;
 * docs/theory/gen-alpha-friction.md, "The Newton Jacobian"), for the
 * settings and worlds rci_ga3f_jacobian_analytic accepts (not
 * RC_GA_JAC_DIFFERENCES, no force function, no spring) */
int rci_ga3f_jacobian_analytic(const rci_ga3f *s);
rc_status rci_ga3f_jacobian_exact(rci_ga3f *s);
/* a test's look at each Newton Jacobian (s->J) of the spatial step (NULL: none) */
extern void (*rci_ga3f_jacobian_probe)(rci_ga3f *s);

/* ga3_fstep.c: the step with contacts */
rc_status rci_ga3f_step(rci_step *st, rci_audit *a, rci_ga_state *g);

/* ga3_joints.c: the joints of spatial bodies in the step */
/* the joints' rows (nb) */
int rci_ga3j_count(const rc_world *w);
/* their rows at X, time s->tj, into G's first nb rows; frames: g, dg/dt of
 * the iterate (s->gj, s->gtj), else dg/dt into s->gt2 */
rc_status rci_ga3j_rows(rci_ga3f *s, const double *X, double *G, int frames);
/* g-dot, g-ddot of the iterate (after the rows and s->dc) */
void rci_ga3j_eval(rci_ga3f *s);
/* the smooth rows' -G^T lambda_g, -G^T Lambda_g, -G^T kappa_g (unscaled) */
void rci_ga3j_smooth(const rci_ga3f *s, double *Ra, double *RU, double *RQ);
/* the joints' residual rows g / h, g-dot, h g-ddot at R[3 nv ..) */
void rci_ga3j_residual(rci_ga3f *s);
/* after the step: impulses, work (at vm), violations into the joints and a */
void rci_ga3j_finish(rci_ga3f *s, const double *vm, rci_audit *a);
/* the consistent start: a0 (M a0 = f on input) corrected so that
 * G a0 = -d/dt (G u + g_t) at (q, u, t) */
rc_status rci_ga3j_start(rc_world *w, double t, const double *q, const double *u, double *a0);

#endif /* RC_GA3_FRICTION_H */
