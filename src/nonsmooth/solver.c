/* solver.c -- the table of the one-step problem's solvers: each takes the
 * assembled problem (the active contacts' W, shift, law; the joints' rows;
 * V = V_0 + the warm start) and returns a report (iterations, residual, the
 * worst row). A new solver is a new file and one entry here.
 */
#include "nonsmooth/nonsmooth.h"

#include <math.h>

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

enum { PASS_GAP_MAX = 8, PASS_EVERY_FIRST = 8 };

/* The sweeps until NSGS's next residual pass (check_every = 1, the default;
 * nsgs.c, nsgs3.c): half the sweeps that the contraction between the last
 * two passes still predicts before tol, in 1..PASS_GAP_MAX; 1 while no rate
 * is known or the residual did not decrease. The step still stops only on a
 * pass <= tol (and the cap's sweep has its pass): at most a few sweeps more
 * than a pass after every sweep would take, when the convergence speeds up,
 * for passes saved on the long solves (docs/theory/spatial.md, "NSGS";
 * docs/granular.md). */
int rcn_pass_gap(double res, double prev, int between, double tol)
{
    if (!(prev > 0.0) || !(res < prev) || !(res > tol) || between < 1) return 1;
    const double rate = pow(res / prev, 1.0 / between);   /* per sweep, in (0, 1) */
    const double m = log(tol / res) / log(rate);           /* sweeps still needed */
    const double g = floor(0.5 * m);
    return !(g >= 1.0) ? 1 : g > PASS_GAP_MAX ? PASS_GAP_MAX : (int)g;
}

/* Whether planar NSGS's sweep it (from 1) ends with a residual pass under
 * check_every = 1 (nsgs.c): each of the first PASS_EVERY_FIRST sweeps -- a
 * short solve stops where a pass after every sweep would stop it -- then the
 * sweep next that rcn_pass_gap set at the last pass. */
int rcn_pass_due(int it, int next) { return it <= PASS_EVERY_FIRST || it >= next; }
