/* step_check.c -- what a step says when something is wrong: the names of
 * bodies and contacts in messages, non-finite states and solutions (the step
 * fails and leaves the state at t_k), initial overlaps.
 */
#include "integrate/integrate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

const char *rci_body_label(const rc_world *w, int b, char *buf, size_t n)
{
    if (b == RC_GROUND) snprintf(buf, n, "ground");
    else if (rcm_body_name_of(w, b)) snprintf(buf, n, "%s", rcm_body_name_of(w, b));
    else snprintf(buf, n, "body %d", b);
    return buf;
}

void rci_describe_contact(const rc_world *w, int ci, char *buf, size_t n)
{
    if (ci <= -2) {
        const rc_joint *j = &w->joints[-2 - ci];
        snprintf(buf, n, "joint %d%s%s%s (residual %.3e)", -2 - ci, j->name ? " '" : "", j->name ? j->name : "",
                 j->name ? "'" : "", j->res);
        return;
    }
    if (ci < 0) { snprintf(buf, n, "none"); return; }
    const rc_contact *c = &w->contacts[ci];
    char a[64], b[64];
    snprintf(buf, n, "contact %d (%s / %s, feature %d, residual %.3e)", c->id,
             rci_body_label(w, c->body_a, a, sizeof a), rci_body_label(w, c->body_b, b, sizeof b), c->feature, c->res);
}

/* The body whose coordinates (position: iq, nq; velocity: iv, nv) hold
 * index i of q or v; k: the coordinate within the body. */
static int body_of_index(const rc_world *w, int i, int position, int *k)
{
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        const int i0 = position ? bd->iq : bd->iv, n = position ? bd->nq : bd->nv;
        if (i >= i0 && i < i0 + n) { *k = i - i0; return b; }
    }
    *k = i;
    return -1;
}

/* "step diverged ...: non-finite velocity v[k] of body B (...)": the step fails
 * (the caller leaves or restores the state of t_k) */
rc_status rci_nonfinite_state(const rc_world *w, int i, int position, double x)
{
    int k, b = body_of_index(w, i, position, &k);
    char name[64];
    return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite %s %s[%d] = %g of %s; the state is left at t = %.17g",
                        w->t + w->sim.h, w->step + 1, position ? "position" : "velocity", position ? "q" : "v", k + 1, x,
                        b >= 0 ? rci_body_label(w, b, name, sizeof name) : "(no body)", w->t);
}

/* The solution of step 5: every impulse, joint multiplier and velocity finite,
 * and the residual a number (a NaN residual would pass for converged nowhere
 * and be lost in the statistics). p_finite: the solver saw every active
 * contact's impulse finite as it wrote it back (planar NSGS's hot records). */
rc_status rci_check_solution(rc_world *w, int worst, double res, int iters, int p_finite)
{
    for (int k = 0; k < w->nactive && !p_finite; k++) {   /* p_finite: the solver saw them all finite */
        const int i = w->active[k];
        const rc_contact *c = &w->contacts[i];
        if (rcb_finite(c->p[0]) && rcb_finite(c->p[1])) continue;
        char cd[256];
        rci_describe_contact(w, i, cd, sizeof cd);
        return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite impulse (pN = %g, pT = %g) at %s; the state is left at t = %.17g",
                            w->t + w->sim.h, w->step + 1, c->p[0], c->p[1], cd, w->t);
    }
    for (int j = 0; j < w->njoints; j++)
        for (int r = 0; r < w->joints[j].rows; r++)
            if (!rcb_finite(w->joints[j].lambda[r])) {
                char cd[256];
                rci_describe_contact(w, -2 - j, cd, sizeof cd);
                return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite impulse at %s; the state is left at t = %.17g",
                                    w->t + w->sim.h, w->step + 1, cd, w->t);
            }
    for (int i = 0; i < w->nv; i++)
        if (!rcb_finite(w->V[i])) {
            char cd[256];
            rci_describe_contact(w, worst, cd, sizeof cd);
            int k, b = body_of_index(w, i, 0, &k);
            char name[64];
            return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite velocity v[%d] = %g of %s; worst %s; solver residual %.3e after %d sweeps; the state is left at t = %.17g",
                                w->t + w->sim.h, w->step + 1, k + 1, w->V[i], b >= 0 ? rci_body_label(w, b, name, sizeof name) : "(no body)",
                                cd, res, iters, w->t);
        }
    if (!rcb_finite(res)) {
        char cd[256];
        rci_describe_contact(w, worst, cd, sizeof cd);
        return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): solver residual %g after %d sweeps; worst %s; the state is left at t = %.17g",
                            w->t + w->sim.h, w->step + 1, res, iters, cd, w->t);
    }
    return RC_OK;
}

/* The first index of q (position = 1) or v (0) that is not finite, or -1:
 * one branch-free pass (inf - inf and NaN - NaN are NaN). */
int rci_first_nonfinite(const double *x, int n)
{
    double acc = 0.0;
    for (int i = 0; i < n; i++) acc += x[i] - x[i];
    if (acc == 0.0) return -1;
    for (int i = 0; i < n; i++) if (!rcb_finite(x[i])) return i;
    return -1;
}

/* bodies placed overlapping each other or an obstacle (a shape of the
 * ground) at the first step: say which (ten at most); the size that scales
 * the threshold is the smaller shape's (a body's against an obstacle, whose
 * bound may be unbounded: a half-plane) */
void rci_warn_initial_overlaps(rc_world *w)
{
    int reported = 0;
    for (int i = 0; i < w->ncontacts && reported < 10; i++) {
        const rc_contact *c = &w->contacts[i];
        if (c->gap >= 0) continue;
        /* one line per shape pair (a box on the ground touches it at two
         * corners), with the pair's deepest point; a pair's contacts are adjacent (key order) */
        double depth = -c->gN;
        while (i + 1 < w->ncontacts && w->contacts[i + 1].gap < 0 && w->contacts[i + 1].shape_a == c->shape_a
               && w->contacts[i + 1].shape_b == c->shape_b)
            depth = fmax(depth, -w->contacts[++i].gN);
        const double bb = w->shapes[c->shape_b].bound;
        double size = c->body_a == RC_GROUND ? bb : fmin(w->shapes[c->shape_a].bound, bb);
        if (depth > 1e-3 * size) {
            char a[64], b[64];
            rcm_world_warn(w, "initial overlap: %s and %s overlap by %.3g (shapes %d and %d)",
                          rci_body_label(w, c->body_a, a, sizeof a), rci_body_label(w, c->body_b, b, sizeof b),
                          depth, c->shape_a, c->shape_b);
            reported++;
        }
    }
}

/* Under Moreau--Jean--Frémond Newton's law puts Coulomb friction on
 * u_T,k+theta with no tangential shift (eq. 73): a sticking contact has
 * u_T,k+1 = -((1 - theta) / theta) u_T,k, a tangential restitution
 * (1 - theta) / theta, 1 at theta = 1/2 (its slip reverses every step, a
 * period-2 oscillation that never decays) and above 1 below. Said once per
 * world, the first step where such a contact sticks (|p_T| < mu p_N), unless
 * the normal restitution e is at least as large. */
void rci_warn_mjf_newton_stick(rc_world *w)
{
    if (w->mjf_newton_warned || w->sim.theta > 0.5) return;
    const double theta = w->sim.theta;
    /* e >= (1 - theta) / theta (e = 1 at theta = 1/2): the normal restitution is as large,
     * Fremond's law (fremond.md), on purpose (Corollary 1) */
#define RCI_STICKY_NEWTON(l) ((l)->def.type == RC_LAW_NEWTON_COULOMB && (l)->def.mu > 0 && theta * (l)->def.e < 1.0 - theta)
    int any = 0;   /* no such law: no pass over the contacts */
    for (int k = 0; k < w->nlaws && !any; k++) any = RCI_STICKY_NEWTON(&w->laws[k]);
    for (int k = 0; any && k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        const rc_law *l = &w->laws[c->law];
        if (!RCI_STICKY_NEWTON(l)) continue;
        if (!(c->p[0] > 0) || fabs(c->p[1]) >= l->def.mu * c->p[0]) continue;
        char who[96];
        if (l->name) snprintf(who, sizeof who, "law '%.80s'", l->name);
        else snprintf(who, sizeof who, "an unnamed law");
        rcm_world_warn(w, "%s (newton, mu = %g) sticks under moreau-jean-fremond with theta = %g: there Newton's law "
                       "has tangential restitution (1 - theta) / theta = %g, so a sticking contact reverses its slip "
                       "every step (a period-2 oscillation that never decays); use rc.moreau{ e_t = 0 } "
                       "(rc_law_def type RC_LAW_MOREAU) for contacts that must stick (docs/theory/fremond.md)",
                       who, l->def.mu, theta, (1.0 - theta) / theta);
        w->mjf_newton_warned = 1;
        return;
    }
#undef RCI_STICKY_NEWTON
}

/* A solve that stopped at its sweep cap, under on_fail = "warn": the first
 * RC_UNCONVERGED_DETAILS steps of a run are warned about with their details,
 * the others are counted (rc_run_stats.failures, rc_progress.capped) and
 * summed up once at the end of the run (rc_world_progress_end). */
void rci_warn_unconverged(rc_world *w, const char *fmt, ...)
{
    if (w->unconverged_warned >= RC_UNCONVERGED_DETAILS) return;
    char buf[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (++w->unconverged_warned < RC_UNCONVERGED_DETAILS) {
        rcm_world_warn(w, "%s", buf);
        return;
    }
    rcm_world_warn(w, "%s (further unconverged steps are counted, not reported: see the run's summary)", buf);
}
