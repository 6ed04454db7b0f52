/*
 * nonsmooth/nonsmooth.h -- laws' local problems and the solvers (not public).
 * Includes model.
 */
#ifndef RC_NONSMOOTH_H
#define RC_NONSMOOTH_H

#include "model/model.h"

/* law.c: the local 2D one-contact problem  u = W p + b,  -(u + mu|u_T| n) in N_K(p).
 * Exact enumeration take-off / stick / slide. Returns the case (0 take-off,
 * 1 stick, 2 slide). */
int rcn_fc2d_local_solve(const double *W, const double *b, double mu, double *p); /* W row-major 2x2 */

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
/* law.c: the local solvers. */
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
typedef struct rcn_report {
    int iterations;
    double residual;
    int worst;              /* contact index, -2 - joint, or -1 */
} rcn_report;
typedef struct rcn_solver {
    const char *name;       /* as in run.json and solver = { "..." } */
    rc_status (*solve)(rc_world *w, rcn_report *report);
} rcn_solver;
const rcn_solver *rcn_solver_of(rc_solver_method method);

/* nsgs.c: a contact's place in the position order (height, then key). */
typedef struct rc_sort_item { double height; int contact; } rc_sort_item;

/* nsgs.c: solve the active contacts' problem, updating w->V and contacts' p.
 * Sets *iters, *residual and *worst (contact index or -1); fails only when
 * a law's callback fails. */
rc_status rcn_nsgs_solve(rc_world *w, int *iters, double *residual, int *worst);
/* nsgs.c: Uzawa (projected Jacobi with a step from the largest eigenvalue of W). */
rc_status rcn_uzawa_solve(rc_world *w, int *iters, double *residual, int *worst);
/* nsgs.c: colours with fewer active contacts are swept by one thread
 * (default 512; tests set 0 to share every colour). */
extern int rcn_nsgs_parallel_min;
/* nsgs.c: adaptive threads keep the team while its sweeps take less than
 * this times the step's one-thread sweep (default 1; tests set it tiny). */
extern double rcn_nsgs_team_margin;

#endif /* RC_NONSMOOTH_H */
