/*
 * nonsmooth/nonsmooth.h -- laws' local problems and the solvers (not public).
 * Includes model.
 */
#ifndef RC_NONSMOOTH_H
#define RC_NONSMOOTH_H

#include "model/model.h"

/* law.c: the local 2D one-contact problem  u = W p + b,  -(u + mu|u_T| n) in N_K(p).
 * Exact enumeration take-off / stick / slide (rcn_fc2d_solve below). Returns
 * the case (0 take-off, 1 stick, 2 slide). */
int rcn_fc2d_local_solve(const double *W, const double *b, double mu, double *p); /* W row-major 2x2 */
/* law.c: the end of rcn_fc2d_solve when round-off left every case marginally
 * outside its test: the candidate with the smallest natural-map residual. */
int rcn_fc2d_best(const double *W, const double *b, double mu, double *p);

/* The enumeration itself, inline for the sweeps (nsgs.c, nsgs_pack.c; law.c's
 * rcn_fc2d_local_solve calls it): take-off (p = 0 iff b_N >= 0), stick
 * (u = 0, p = -W^-1 b, accepted in K), slide in direction s = +1, -1
 * (u_N = 0, p_T = -s mu p_N, accepted when p_N >= 0 and s u_T >= 0).
 * Its three divisions are by numbers of W and mu alone, so they are
 * reciprocals that a solver may compute once per contact and solve
 * (rcn_fc2d_recip; issue 18: the planar hot records keep them, nsgs_pack.c)
 * and pass to rcn_fc2d_solve_r; rcn_fc2d_solve computes each one when its
 * case is tried. The same expressions either way: the same impulses bit for
 * bit. */
/* 1/det W (0 unless mu > 0 and det > 0): the stick case's */
static RCB_INLINE double rcn_fc2d_inv_det(const double *W, double mu)
{
    const double det = W[0] * W[3] - W[1] * W[2];
    return mu > 0.0 && det > 0.0 ? 1.0 / det : 0.0;
}
/* 1/(W_NN - s mu W_NT) (0 unless the denominator is positive): the slide in direction s's */
static RCB_INLINE double rcn_fc2d_inv_den(const double *W, double mu, double s)
{
    const double den = W[0] - s * mu * W[1];
    return den > 0.0 ? 1.0 / den : 0.0;
}
static RCB_INLINE void rcn_fc2d_recip(const double *W, double mu, double inv[3])
{
    inv[0] = rcn_fc2d_inv_det(W, mu);
    inv[1] = rcn_fc2d_inv_den(W, mu, 1.0);
    inv[2] = rcn_fc2d_inv_den(W, mu, -1.0);
}

/* inv: rcn_fc2d_recip's three, or NULL (each computed when its case is tried) */
static RCB_INLINE int rcn_fc2d_solve_r(const double *W, const double *inv, const double *b, double mu, double *p)
{
    if (b[0] >= 0.0) { p[0] = p[1] = 0.0; return 0; }
    const double idet = inv ? inv[0] : rcn_fc2d_inv_det(W, mu);
    if (idet > 0.0) {
        const double ps0 = -(W[3] * b[0] - W[1] * b[1]) * idet, ps1 = -(-W[2] * b[0] + W[0] * b[1]) * idet;
        if (ps0 >= 0.0 && (ps1 < 0.0 ? -ps1 : ps1) <= mu * ps0) { p[0] = ps0; p[1] = ps1; return 1; }
    }
    for (int k = 0; k < 2; k++) {
        const double s = k == 0 ? 1.0 : -1.0, iden = inv ? inv[1 + k] : rcn_fc2d_inv_den(W, mu, s);
        if (!(iden > 0.0)) continue;
        const double pn = -b[0] * iden, pt = -s * mu * pn;
        const double wt = W[2] * pn + W[3] * pt + b[1];
        if (pn >= 0.0 && s * wt >= 0.0) { p[0] = pn; p[1] = pt; return 2; }
    }
    return rcn_fc2d_best(W, b, mu, p);
}

static RCB_INLINE int rcn_fc2d_solve(const double *W, const double *b, double mu, double *p)
{
    return rcn_fc2d_solve_r(W, NULL, b, mu, p);
}

/* Squared natural-map residual ||p - proj_K(p - (u + mu|u_T| e_N))||^2 of one
 * contact: the measure of section 4 of Acary & Collins-Craft 2024 before the
 * global normalisation. */
static inline double rcn_fc2d_residual2(const double *u, const double *p, double mu)
{
    double at = u[1] < 0.0 ? -u[1] : u[1];
    double x[2] = { p[0] - (u[0] + mu * at), p[1] - u[1] };
    rcm_fc2d_project(mu, x);
    double d0 = p[0] - x[0], d1 = p[1] - x[1];
    return d0 * d0 + d1 * d1;
}

static inline double rcn_fc2d_residual(const double *u, const double *p, double mu)
{
    return sqrt(rcn_fc2d_residual2(u, p, mu));
}
/* cone3.c: the spatial Coulomb cone K = {|p_T| <= mu p_N} in De Saxce's form
 * (d = 3, vectors (N, T1, T2); docs/theory/de-saxce-cone.md). The projection
 * onto K is rcm_fc3d_project (model.h). */
/* u~ = u + mu |u_T| e_N, De Saxce's modified velocity (eq. 10) */
void rcn_cone3_xi(const double *u, double mu, double *ut);
/* r = p - proj_K(p - rho u~(u)) */
void rcn_cone3_natural_map(const double *u, const double *p, double mu, double rho, double *r);
/* |p - proj_K(p - u~(u))|^2 (inline: the residual pass and the slide
 * candidates; the same operations as rcn_cone3_natural_map with rho = 1) */
static inline double rcn_cone3_residual2(const double *u, const double *p, double mu)
{
    double x[3] = { p[0] - (u[0] + mu * sqrt(u[1] * u[1] + u[2] * u[2])), p[1] - u[1], p[2] - u[2] };
    rcm_fc3d_project(mu, x);
    const double r0 = p[0] - x[0], r1 = p[1] - x[1], r2 = p[2] - x[2];
    return r0 * r0 + r1 * r1 + r2 * r2;
}
/* The one-contact problem u = W p + b, K ∋ p ⊥ u~ ∈ K* (W 3x3 SPD, row-major):
 * exact enumeration of take-off / stick / slide, the slip direction by root
 * finding. Returns the case (0 take-off, 1 stick, 2 slide). */
int rcn_cone3_local_solve(const double *W, const double *b, double mu, double *p);
/* The same with W^-1 (or NULL: solved here) for the stick case and a guess
 * (or NULL; the contact's last impulse in NSGS) whose slip direction starts
 * a Newton search of the slide case before the grid (docs/theory/spatial.md,
 * "The local solve"). */
int rcn_cone3_local_solve_from(const double *W, const double *Winv, const double *b, double mu, const double *guess,
                               double *p);
/* Its cases after take-off and stick were ruled out (b_N < 0; have_stick:
 * ps = -W^-1 b, outside the cone, pst = |ps_T|; ps may be overwritten):
 * rcn_cone3_local_solve_from's remainder, for a caller that tested the two
 * first cases inline with the same arithmetic (nsgs3_pack.c). */
int rcn_cone3_after_stick(const double *W, const double *b, double mu, const double *guess, int have_stick, double *ps,
                          double pst, double *p);
/* x = A^-1 r (3x3 row-major, partial pivoting); 0 when A is singular. */
int rcn_solve3(const double *A, const double *r, double *x);
/* A^-1 (row-major 3 x 3) by the same elimination, the columns bit for bit
 * those of rcn_solve3 with the unit vectors; 0 when A is singular */
int rcn_inverse3(const double *A, double *Ainv);
/* The largest eigenvalue of the symmetric part of a 3x3 matrix. */
double rcn_sym3_lmax(const double *W);
/* nsgs3.c: the 3D contacts of a dim = 3 world (w->c3): (u + shift) at V,
 * V += kappa Mhat^-1 H^T dp, and the NSGS sweeps with the exact cone3 local
 * solver to w->sim.solver.tol (relative to 1 + bnorm) or max_iter sweeps. */
void rcn_contact3_velocity(const rc_world *w, const rcm_contact3 *c, const double *V, double *u);
void rcn_contact3_apply(const rc_world *w, const rcm_contact3 *c, double *V, const double *dp);
/* MH = kappa Mhat^-1 H^T of one side's rows H (a spatial rigid body: 1/m on
 * the translation, the step's Ainv on the rotation), in the operation order
 * of the body kind's solve_mass: the rows are stored, MH is rebuilt */
void rcn_contact3_mh(const rc_world *w, int body, double H[3][6], double kappa, double MH[3][6]);
rc_status rcn_nsgs3(rc_world *w, double *V, double bnorm, double *res, int *iters);
/* sqrt(sum |p - proj_K(p - u~)|^2) over the active 3D contacts and the 3D
 * joints' |H V|^2 at V (NSGS3's stopping test before the division by
 * 1 + bnorm; sets c3->worst1, worst_res) */
rc_status rcn_nsgs3_residual(rc_world *w, const double *V, double *res);
/* newton3.c: the semismooth Newton method on the same problem (solver =
 * { "newton" } in a dim = 3 world), NSGS3 as its fallback; the same
 * arguments and stopping test as rcn_nsgs3 */
rc_status rcn_newton3(rc_world *w, double *V, double bnorm, double *res, int *iters);
/* nsgs3_order.c: the active 3D contacts in this step's sweep order (the
 * solver's order: "position" bottom first along gravity, "top" top first,
 * "colour" colour by colour, else by index), in the world's work arena;
 * col: the colours (order "colour": colour k at order[start[k] ..
 * start[k + 1]), k < n; other orders: n = 0, start NULL) */
typedef struct rcn_colours { int n; int *start; } rcn_colours;
rc_status rcn_nsgs3_order(rc_world *w, int **order, int *n, rcn_colours *col);
/* nsgs3_pack.c: NSGS3's hot records of the active contacts in solve order
 * (order[0..n)), in the work arena: usable when every one has a closed-form
 * law, no drilling row and rigid bodies; a sweep on them (est: the sum of
 * the squared residuals as visited), the residual pass's sum of squares (in
 * index order through slot, or NULL: h is), and the impulses written back
 * to the contacts. The same
 * arithmetic as nsgs3.c's path on the contacts (bit for bit). */
typedef struct rcn_c3hot rcn_c3hot;
int rcn_nsgs3_pack_usable(const rc_world *w, const int *order, int n);
size_t rcn_nsgs3_pack_record_size(void);
/* nsgs3.c: the hot records' budget per solve (bytes, default 1 MiB: the
 * first contacts of the order that fit are packed, the rest swept on their
 * records; 0: none packed); a variable for the tests (test_nsgs3_pack.c) */
extern size_t rcn_nsgs3_pack_bytes;
rc_status rcn_nsgs3_pack(rc_world *w, const int *order, int n, rcn_c3hot **out);
void rcn_nsgs3_pack_sweep(const rc_world *w, rcn_c3hot *h, int lo, int hi, double *V, double *est);   /* h[lo .. hi) */
double rcn_nsgs3_pack_residual(rc_world *w, const rcn_c3hot *h, int n, const int *slot, const double *V,
                               double *snap, double loud2);
/* record k's update; odo (or NULL): its bodies' velocity changes |dv|_1,
 * |dw|_1 of B then A (nsgs3.c's quiet-contact odometers) */
void rcn_nsgs3_pack_solve(rc_world *w, rcn_c3hot *h, int k, double *V, double *r2, double *odo);
/* the residual pass in two halves (the colour sweeps' pass on threads,
 * nsgs3.c): the terms of the contacts order[lo .. hi) (the first m on the
 * records h) into r2i[contact index], then their sum in index order with
 * the worst contact and (snap) the quiet contacts' marks, as
 * rcn_nsgs3_pack_residual */
void rcn_nsgs3_pack_terms(const rc_world *w, const rcn_c3hot *h, int m, const int *order, int lo, int hi,
                          const double *V, double *r2i);
double rcn_nsgs3_terms_sum(rc_world *w, const double *r2i, double *snap, double loud2);
/* sum over the active contacts of |p|^2 and |u + shift|^2 at V (nsgs3.c's
 * norm "siconos"); h, m, order: the hot records of the first m places of
 * the order (h NULL or m = 0: every contact on its record) */
void rcn_nsgs3_norms2(const rc_world *w, const rcn_c3hot *h, int m, const int *order, int n, const double *V,
                      double *p2, double *u2);
void rcn_nsgs3_unpack(rc_world *w, const rcn_c3hot *h, int n);
/* the records' impulses into p (3 per record); the records' impulses set to
 * p (project: each first projected onto its Coulomb cone, in place), V
 * following (V += kappa Mhat^-1 H^T dp; V NULL: the impulses alone) */
void rcn_nsgs3_pack_get(const rcn_c3hot *h, int n, double *p);
void rcn_nsgs3_pack_set(rc_world *w, rcn_c3hot *h, int n, double *V, double *p, int project);
/* anderson3.c: NSGS3 on hot records with Anderson acceleration (solver
 * accelerate = "anderson": every active contact packed, no 3D joint) from
 * the records' impulses, to tol relative to 1 + bnorm or max_iter sweeps;
 * res, iters as rcn_nsgs3 */
rc_status rcn_anderson3(rc_world *w, rcn_c3hot *h, int n, const int *slot, double *V, double bnorm, double *res,
                        int *iters);
/* joint3_block.c: the 3D joints' blocks in that sweep (V += kappa Mhat^-1
 * H^T dlambda; a sweep; sum |H V|^2) */
void rcn_joint3_apply(const rc_world *w, const rcm_joint3 *j, double *V, const double *dl);
/* V += kappa Mhat^-1 H^T dl of a joint's motor row (model/joint3_motor.c) */
void rcn_joint3_motor_apply(const rc_world *w, const rcm_joint3 *j, double *V, double dl);
int rcn_joints3_count(const rc_world *w);
void rcn_joints3_sweep(const rc_world *w, double *V);
double rcn_joints3_residual2(const rc_world *w, const double *V);
/* contensou.c: the Coulomb--Contensou disc law (law radius > 0): the cone
 * K = {|(p_T1, p_T2, p_D)| <= mu p_N} in R^4, vectors (N, T1, T2, D). */
void rcn_disc4_project(double mu, double *p);
/* |p - proj_K(p - u~(u))|^2, u~ = u + mu |u_F| e_N */
double rcn_disc4_residual2(const double *u, const double *p, double mu);
/* u = W p + b, K ∋ p ⊥ u~ ∈ K* (W 4x4 row-major, positive definite): exact
 * take-off / stick / slide (the slide by a scalar root in beta, see the
 * file); returns the case (0, 1, 2) */
int rcn_disc4_local_solve(const double *W, const double *b, double mu, double *p);
/* the four rows (N, T1, T2, D) of a contact with its drilling row d */
void rcn_drill_velocity(const rc_world *w, const rcm_contact3 *c, const rcm_drill3 *d, const double *V, double *u);
void rcn_drill_apply(const rc_world *w, const rcm_contact3 *c, const rcm_drill3 *d, double *V, const double *dp);
double rcn_drill_residual2(const rc_world *w, const rcm_contact3 *c, const rcm_drill3 *d, const double *V);
/* one NSGS update of the contact (the others' impulses in V fixed) */
void rcn_drill_sweep(const rc_world *w, rcm_contact3 *c, rcm_drill3 *d, double *V);

/* law.c: one contact's local problem for the law interface, in the contact's
 * dimension n (2 planar, 3 spatial), through pointers so that every contact
 * record keeps its own layout. ctx.dim is the law's d on it (rcn_law_dim:
 * 1 for a frictionless custom law, else n; 0 if the law does not apply). */
typedef struct rcn_site {
    const rc_law *law;
    rc_law_ctx ctx;
    int n;                   /* components of u, p, b: the contact's dimension */
    const double *W;         /* n x n Delassus block, row-major               */
    double *state;           /* the law's per-contact state                   */
    const double *uk;        /* u_old = H(q_k) v_k, n components               */
    double *J;               /* generic solver's last Jacobian, n x n (or NULL) */
    int *jvalid;
} rcn_site;
int rcn_law_dim(const rc_law *l, int n);
/* law3.c: a 3D contact under a law without a closed form (n = 3; its state,
 * u_old and Jacobian in the contact record) */
void rcn_contact3_site(rc_world *w, rcm_contact3 *c, rcn_site *s);
rc_status rcn_contact3_law_solve(rc_world *w, rcm_contact3 *c, const double *b, double *p);
rc_status rcn_contact3_law_residual2(rc_world *w, rcm_contact3 *c, const double *u, double *r2);
/* exact (closed form: fc2d or cone3) or the generic solver with tolerance tol */
rc_status rcn_site_local_solve(const rcn_site *s, double tol, int maxit, const double *b, double *p);
rc_status rcn_site_residual2(const rcn_site *s, const double *u, const double *p, double *r2);
rc_status rcn_site_prox(const rcn_site *s, const double *p, const double *u, double rho, double *p_out);
/* the same through the law's xi / project (also for a built-in law), with
 * the projection's argument p - rho xi(u) in x_out (components beyond the
 * law's dim zeroed) */
rc_status rcn_site_prox_arg(const rcn_site *s, const double *p, const double *u, double rho, double *x_out, double *p_out);

/* law.c: the local solvers of planar contacts (sites of n = 2). */
/* Context passed to a law's functions for contact c. */
void rcn_law_context(const rc_world *w, const rc_contact *c, rc_law_ctx *ctx);
/* One contact's local problem u = W p + bl (+ c->shift for built-in laws):
 * exact for built-in laws, projected fixed point for custom laws. */
rc_status rcn_law_local_solve(rc_world *w, rc_contact *c, const double *bl, double *p);
/* Squared natural-map residual ||p - proj_C(p - xi(u))||^2 of contact c at its
 * local velocity u (including c->shift). */
rc_status rcn_law_residual2(rc_world *w, rc_contact *c, const double *u, double *r2);
/* p_out = proj_C(p - rho xi(u)) for contact c (Uzawa step). */
rc_status rcn_law_prox(rc_world *w, rc_contact *c, const double *p, const double *u, double rho, double *p_out);

/* solver.c: the solvers' table. A solver updates w->V, the active contacts'
 * p and the joints' lambda, and reports; it fails only when a law's callback
 * fails. */
/* The one-step problem a solver is given: the rows assembled by the stages
 * (the active contacts w->contacts[w->active[k]] with their W, shift and
 * law; the joints' rows), the velocity V = V_0 + the warm start, all of
 * which the solve updates (p, lambda, V), and the settings of this solve
 * (the simulation's, or an exploration's own: the solver reads no setting
 * from w->sim). */
typedef struct rcn_problem {
    rc_world *w;
    const rc_solver_def *opt;
    int cyclic;             /* random order: the first sweep's order kept (an exploration's) */
} rcn_problem;
typedef struct rcn_report {
    int iterations;
    double residual;
    int worst;              /* contact index, -2 - joint, or -1 */
    long local_solves;      /* sweeps x active contacts */
    int parallel;           /* the sweeps ran on more than one thread */
    /* planar NSGS's one-thread sweeps on the hot records, in a step of at
     * least RCN_TIMED_SWEEPS_MIN active contacts: their wall clock and their
     * one-contact solves (rc_run_stats.sweep_wall_s, sweep_solves) */
    double sweep_wall_s;
    long sweep_solves;
    /* 1: every active contact's impulse was seen finite as the solver wrote
     * it back (planar NSGS's unpack), so the step's check need not visit them */
    int p_finite;
} rcn_report;
#define RCN_TIMED_SWEEPS_MIN 256
typedef struct rcn_solver {
    const char *name;       /* as in run.json and solver = { "..." } */
    rc_status (*solve)(const rcn_problem *pb, rcn_report *report);
} rcn_solver;
const rcn_solver *rcn_solver_of(rc_solver_method method);
/* solver.c: the sweeps until NSGS's next residual pass, from the last two
 * passes' residuals (res, prev, between sweeps apart) and tol */
int rcn_pass_gap(double res, double prev, int between, double tol);
/* solver.c: whether planar NSGS's sweep it ends with a pass (check_every = 1) */
int rcn_pass_due(int it, int next);

/* nsgs.c: a contact's place in the position order (height, then key). */
typedef struct rc_sort_item { double height; int contact; } rc_sort_item;

/* nsgs.c: solve the active contacts' problem, updating w->V and contacts' p.
 * Sets *iters, *residual and *worst (contact index or -1); fails only when
 * a law's callback fails. */
rc_status rcn_nsgs_solve(const rcn_problem *pb, rcn_report *report);
/* nsgs.c: Uzawa (projected Jacobi with a step from the largest eigenvalue of W). */
rc_status rcn_uzawa_solve(const rcn_problem *pb, rcn_report *report);
/* newton.c: semismooth Newton on the Alart--Curnier equations, dense or
 * matrix-free (newton_krylov.c), with an Armijo line search and NSGS as the
 * fallback. */
rc_status rcn_newton_solve(const rcn_problem *pb, rcn_report *report);
/* apgd.c: accelerated projected gradient descent on the cone complementarity
 * problem (Mazhar et al. 2015; Chrono's APGD): the convex relaxation of Coulomb's law. */
rc_status rcn_apgd_solve(const rcn_problem *pb, rcn_report *report);
/* nsgs.c: colours with fewer active contacts are swept by one thread
 * (default 512; tests set 0 to share every colour). */
extern int rcn_nsgs_parallel_min;
/* nsgs.c: the planar sweeps on the hot records when every active contact
 * can have one (nsgs_pack.c; default 1; tests clear it for the contacts' path). */
extern int rcn_nsgs_pack_enabled;
/* nsgs_pack.c: every active contact can have a hot record (geometric, with a
 * closed-form law): the step reserves the records only then (integrate/step.c). */
int rcn_nsgs_pack_usable(const rc_world *w);
extern _Atomic long rcn_nsgs_passes;   /* nsgs.c: the planar residual passes made (tests) */
/* nsgs3.c: the same for the 3D contacts' colours (default 128). */
extern int rcn_nsgs3_parallel_min;
/* nsgs.c: adaptive threads keep the team while its sweeps take less than
 * this times the step's one-thread sweep (default 1; tests set it tiny). */
extern double rcn_nsgs_team_margin;

#endif /* RC_NONSMOOTH_H */
