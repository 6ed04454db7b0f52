/* explore.c -- the explorer (rc_world_explore): the step's one-step problem
 * solved from chosen guesses and orders without advancing the run; its
 * solver figures and contacts. */
#include "integrate/integrate.h"

#include <math.h>
#include <string.h>

rc_explore_def rc_default_explore_def(void)
{
    rc_explore_def d;
    memset(&d, 0, sizeof d);
    d.zero_guess = 1;
    d.random_order = 1;
    d.seed = 1;
    return d;
}

rc_status rc_world_explore(rc_world *w, const rc_explore_def *def, double *p_out, int cap, int *n_out)
{
    if (!w || !def || !p_out || !n_out) return rc_set_error(RC_ERR_ARG, "rc_world_explore: NULL argument");
    if (def->random_guess && (!rcb_finite(def->guess_scale) || def->guess_scale < 0.0))
        return rc_set_error(RC_ERR_ARG, "explore: 'guess_scale' must be >= 0 (got %g)", def->guess_scale);
    if (def->nguess_scales < 0 || (def->nguess_scales > 0 && !def->guess_scales))
        return rc_set_error(RC_ERR_ARG, "explore: 'guess_scales' is NULL with nguess_scales = %d", def->nguess_scales);
    for (int i = 0; i < def->nguess_scales; i++)
        if (!rcb_finite(def->guess_scales[i]) || def->guess_scales[i] < 0.0)
            return rc_set_error(RC_ERR_ARG, "explore: 'guess_scales[%d]' must be >= 0 (got %g)", i, def->guess_scales[i]);
    rc_sim_def saved = w->sim;
    if (def->random_order) {
        w->sim.solver.order = RC_ORDER_RANDOM;
        w->sim.solver.seed = def->seed;
    }
    w->explore_rng = def->seed * 0x9E3779B97F4A7C15ull + 12345u;
    w->explore = def;
    w->explore_out = p_out;
    w->explore_cap = cap;
    w->explore_n = 0;
    rc_run_stats st = w->stats;
    rc_status s = rc_world_step(w);
    w->stats = st;            /* an exploration is not a step of the run */
    w->explore = NULL;
    w->sim = saved;
    *n_out = w->explore_n;
    return s;
}

rc_status rc_explore_result(const rc_world *w, int *iterations, double *residual, int *converged)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_explore_result: world is NULL");
    if (iterations) *iterations = w->explore_iters;
    if (residual) *residual = w->explore_res;
    if (converged) *converged = w->explore_converged;
    return RC_OK;
}

/* The contacts of the last explored problem stay in w->contacts (the work
 * records; the state, w->rec, is untouched by an exploration). */
rc_status rc_explore_contact(const rc_world *w, int index, rc_contact_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_explore_contact: NULL argument");
    if (index < 0 || index >= w->explore_n || index >= w->ncontacts)
        return rc_set_error(RC_ERR_NOT_FOUND, "no explored contact %d (there are %d)", index, w->explore_n);
    const rc_contact *c = &w->contacts[index];
    memset(info, 0, sizeof *info);
    info->id = c->id;
    info->body_a = c->body_a; info->body_b = c->body_b;
    info->shape_a = c->shape_a; info->shape_b = c->shape_b;
    info->feature = c->feature;
    info->active = c->active;
    info->point[0] = c->point[0]; info->point[1] = c->point[1];
    info->normal[0] = c->n[0]; info->normal[1] = c->n[1];
    rcm_contact_tangent(c, info->tangent);
    info->gN = c->gN;
    info->pN = c->p[0]; info->pT = c->p[1];
    info->uN = c->u[0]; info->uT = c->u[1];
    info->law = c->law;
    return RC_OK;
}
