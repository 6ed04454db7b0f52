/* solver.c -- the table of the one-step problem's solvers: each takes the
 * assembled problem (the active contacts' W, shift, law; the joints' rows;
 * V = V_0 + the warm start) and returns a report (iterations, residual, the
 * worst row). A new solver is a new file and one entry here.
 */
#include "nonsmooth/nonsmooth.h"

static const rcn_solver solvers[] = {
    { "nsgs", rcn_nsgs_solve },     /* RC_SOLVER_NSGS: nonsmooth Gauss--Seidel (nsgs.c) */
    { "uzawa", rcn_uzawa_solve },   /* RC_SOLVER_UZAWA: accelerated Uzawa (uzawa.c) */
    { "newton", rcn_newton_solve }, /* RC_SOLVER_NEWTON: semismooth Newton, Alart--Curnier (newton.c) */
    { "apgd", rcn_apgd_solve },     /* RC_SOLVER_APGD: accelerated projected gradient on the CCP (apgd.c) */
};

const rcn_solver *rcn_solver_of(rc_solver_method method)
{
    return method == RC_SOLVER_UZAWA ? &solvers[1] : method == RC_SOLVER_NEWTON ? &solvers[2]
         : method == RC_SOLVER_APGD ? &solvers[3] : &solvers[0];
}

const char *rc_solver_name(rc_solver_method method)
{
    if (method != RC_SOLVER_NSGS && method != RC_SOLVER_UZAWA && method != RC_SOLVER_NEWTON
        && method != RC_SOLVER_APGD) return NULL;
    return rcn_solver_of(method)->name;
}
