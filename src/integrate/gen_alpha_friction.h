/*
 * integrate/gen_alpha_friction.h -- what the frictional nonsmooth
 * generalized-alpha scheme's files share (Capobianco, Harsch, Eugster & Leine
 * 2021; equation numbers are the paper's; implementation note
 * ../shared/notes/003): gf_residual.c (the step's quantities and the residual
 * R(x) of section 9), gf_step.c (the state across steps, the semismooth Newton
 * and the fixed-point iterations, the audit). Not for other files.
 */
#ifndef RC_GEN_ALPHA_FRICTION_H
#define RC_GEN_ALPHA_FRICTION_H

#include "integrate/integrate.h"

/* The largest system the dense Newton with a Jacobian by differences takes
 * (each column costs an evaluation of R with three narrow phases): the
 * paper's examples have 14 to 36 unknowns. */
enum { RCI_GF_MAX_UNKNOWNS = 120, RCI_GF_MAX_FIXED_POINT = 1000 };

/* a contact's index sets (130)-(141), bits of rci_gf_sys.set */
enum { RCI_GF_A = 1, RCI_GF_B = 2, RCI_GF_C = 4, RCI_GF_DST = 8, RCI_GF_EST = 16 };

/* One step's system. The unknowns x (126), in this order: a (n), U (n),
 * Q (n), kappa_g, Lambda_g, lambda_g (nb each: the joints' rows), kappa_N,
 * Lambda_N, lambda_N, Lambda_F, lambda_F (nc each: the step's contacts,
 * planar friction). */
typedef struct rci_gf_sys {
    RCI_GA_HEAD;                               /* w, h, am, af, beta, gam, t1, margin, n, nb, have_f */
    int nc, N;
    const double *qn, *un, *an, *abn;          /* the state at t_i: q, u, a, a-bar */
    double *lNn, *lbNn, *lFn, *lbFn;           /* the contacts' lambda_N, its bar, lambda_F, its bar at t_i */
    double *x;                                 /* the unknowns (N) */
    /* what follows from x (section 2.4 of the note) */
    double *ab, *u, *q, *lbN, *lbF, *PN, *kh, *PF;
    /* evaluated at (t_{i+1}, q, u, a) */
    double *f;                                 /* h(t, q, u): applied forces, gravity, -K q - C v */
    double *G;                                 /* rows (n each): the joints' nb, then each contact's normal and tangent */
    double *g, *gd, *gdd;                      /* the joints: g, g-dot, g-ddot */
    double *gN, *gdN, *gddN, *xiN, *gF, *gdF, *xiF;   /* the contacts */
    double *eN, *eF, *mu, *rN, *rF;            /* the contacts' laws and prox parameters */
    rc_contact *cs;                            /* the step's contacts (nc) */
    unsigned char *set;                        /* their index sets (RCI_GF_*) */
    double *R;                                 /* the residual (N), scaled as in the header of gf_residual.c */
    /* scratch */
    double *J, *dx, *x0, *R0, *X, *Gp, *tmp;
    double *dc;                                /* the accelerations' velocity terms (nb + 2 nc) */
    rc_contact *cs2;                           /* the contacts at a shifted position (the accelerations' terms) */
    int *ipiv;
    /* laws without a closed form (gf_law.c): each contact's site (law NULL:
     * a built-in law's closed-form rows), the local velocity of u_i at q_{i+1}
     * (the law's u^-, 2 per contact), the laws' constant state */
    rcn_site *site;
    double *uo, *lstate;
    int ngeneric;
    rc_status err;                             /* the first failed call of a law (the callers report it) */
    double *jw;                                /* the analytic Jacobian's workspace (gf_jacobian.c; NULL until its first use in the step) */
    unsigned char *jrows;                      /* its rows taken by differences (N) */
} rci_gf_sys;

/* gf_residual.c */
/* x -> a-bar, u, q, the contacts' lambda-bar, P_N, kappa-hat, P_F (section 2.4
 * of note 003) only: enough after a change of the multipliers alone */
void rci_gf_dependent(rci_gf_sys *s);
/* x -> the dependent quantities, the constraints and forces at the iterate */
rc_status rci_gf_eval(rci_gf_sys *s);
/* at (t_i, q_i, u_i): the joints' rows G, their g-ddot at a = 0 (in gdd), the
 * forces f (the consistent start) */
rc_status rci_gf_start_terms(rci_gf_sys *s);
/* the index sets at the iterate (after rci_gf_eval) */
void rci_gf_sets(rci_gf_sys *s);
/* the residual with the current index sets; its max-norm, its largest entry in *worst */
double rci_gf_residual(rci_gf_sys *s, int *worst);
/* the rows (joints', then each contact's normal and tangent) at positions X,
 * time t into Gr, the joints' dg/dt into gt; the step's contacts keep their
 * frames (s->cs2 takes the shifted ones); w->q holds X afterwards */
rc_status rci_gf_rows_at(rci_gf_sys *s, const double *X, double t, double *Gr, double *gt);
/* s->f = h(t_{i+1}, s->q, s->u) */
rc_status rci_gf_forces(rci_gf_sys *s);
/* the smooth part R_s (3 n + 3 nb rows) only: its max-norm */
double rci_gf_residual_smooth(rci_gf_sys *s);
/* the fixed point's contact update z <- p(y, z) (notes 003, section 2.8);
 * returns max |z_new - z| */
double rci_gf_prox_update(rci_gf_sys *s);

/* gf_law.c: laws through xi / project (see its header) */
/* contact k's site for its law (nothing for a closed-form law); state:
 * RC_LAW_MAX_STATE doubles, filled with the contact's state at t_i */
rc_status rci_gf_law_setup(rci_gf_sys *s, int k, const rc_law *law, double *state);
/* the sets B, D^st of contact k (st: its set A) */
unsigned char rci_gf_law_sets(rci_gf_sys *s, int k, unsigned char st);
/* contact k's rows (132), (138), (135), (142) as natural maps, unscaled (impulses) */
void rci_gf_law_rows(rci_gf_sys *s, int k, double lN, double lF, double *RLN, double *RLF, double *RlN, double *RlF);
/* the fixed point's update of contact k (in A or not): P_N, P_F, lambda_N, lambda_F */
void rci_gf_law_prox(rci_gf_sys *s, int k, int A, double *PN, double *PF, double *lN, double *lF);
/* the laws' update (rc_law_ops.update) after the converged step, as
 * Moreau-Jean runs it: u = u_{i+1}, u^- = u_i (at q_{i+1}), p = (P_N, P_F);
 * into the sites' state (s->lstate), which finish_contacts keeps with the
 * contacts; a failure or a non-finite state fails the step before it is kept */
rc_status rci_gf_law_update(rci_gf_sys *s);

/* gf_jacobian.c: the Newton Jacobian (docs/theory/gen-alpha-friction.md,
 * "The Newton Jacobian") */
/* J (nr x nr, column-major) = dR/dx over the rows and unknowns [c0, c0 + nr)
 * (c0 = 0: the whole system, nr = N; or the fixed point's smooth part,
 * smooth_only, nr = 3 n + 3 nb), the index sets frozen (note 003 section
 * 2.7): analytic or by forward differences as the simulation says
 * (rc_gen_alpha_def.jacobian); R at x is kept */
rc_status rci_gf_jacobian(rci_gf_sys *s, int c0, int nr, int smooth_only, double *J);
/* 1: the analytic Jacobian for this step (the setting, and for RC_GA_JAC_AUTO
 * every law built in and no gap-function contact) */
int rci_gf_jacobian_analytic(const rci_gf_sys *s);
/* forward differences (rows NULL: every row; else only the rows i with rows[i]) */
rc_status rci_gf_jacobian_fd(rci_gf_sys *s, int c0, int nr, int smooth_only, double *J, const unsigned char *rows);
/* the columns of body b's coordinates in df/dq, df/du (n x n, row-major) by
 * forward differences of the forces h(t, q, u) (a force function or a
 * nonlinear body: the whole f, so that springs coupling bodies are in) */
rc_status rci_gf_force_block(rci_gf_sys *s, int b, double *dfq, double *dfu);
/* a test's look at each Newton Jacobian of the whole system (NULL: none) */
extern void (*rci_gf_jacobian_probe)(rci_gf_sys *s, const double *J);

/* the offsets of the blocks of x (eq. 126) in a system s (gf_residual.c, gf_jacobian.c) */
#define IA 0
#define IU (s->n)
#define IQ (2 * s->n)
#define IKG (3 * s->n)
#define ILG (3 * s->n + s->nb)
#define ILLG (3 * s->n + 2 * s->nb)
#define IKN (3 * s->n + 3 * s->nb)
#define ILN (IKN + s->nc)
#define ILLN (IKN + 2 * s->nc)
#define ILF (IKN + 3 * s->nc)
#define ILLF (IKN + 4 * s->nc)

/* x / |x| (0 at 0: the note's guard, section 2.6) */
static inline double rci_gf_sgn(double x) { return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0; }

#endif /* RC_GEN_ALPHA_FRICTION_H */
