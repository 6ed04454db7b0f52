/* solver.c -- the table of the one-step problem's solvers: each takes the
 * assembled problem (the active contacts' W, shift, law; the joints' rows;
 * V = V_0 + the warm start) and returns a report (iterations, residual, the
 * worst row). A new solver is a new file and one entry here.
 */
#include "nonsmooth/nonsmooth.h"

static rc_status nsgs(rc_world *w, rcn_report *r)
{
    return rcn_nsgs_solve(w, &r->iterations, &r->residual, &r->worst);
}

static rc_status uzawa(rc_world *w, rcn_report *r)
{
    return rcn_uzawa_solve(w, &r->iterations, &r->residual, &r->worst);
}

static const rcn_solver solvers[] = {
    { "nsgs", nsgs },     /* RC_SOLVER_NSGS: nonsmooth Gauss--Seidel (nsgs.c) */
    { "uzawa", uzawa },   /* RC_SOLVER_UZAWA: accelerated Uzawa (nsgs.c) */
};

const rcn_solver *rcn_solver_of(rc_solver_method method)
{
    return method == RC_SOLVER_UZAWA ? &solvers[1] : &solvers[0];
}

const char *rc_solver_name(rc_solver_method method)
{
    if (method != RC_SOLVER_NSGS && method != RC_SOLVER_UZAWA) return NULL;
    return rcn_solver_of(method)->name;
}
