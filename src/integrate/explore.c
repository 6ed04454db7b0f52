/* explore.c -- the force explorer (Moreau 2004, section 7: friction
 * indetermination): the one-step problem of the current state assembled as a
 * step would, solved from chosen initial guesses (zero, random in the cone)
 * and sweep orders, the impulses reported, the state left untouched. Rods
 * wedged between walls and granular samples have many solutions: repeated
 * explorations sample the set.
 */
#include "integrate/integrate.h"

#include <string.h>

static double explore_uniform(rc_world *w)   /* xorshift64, per world */
{
    uint64_t x = w->explore_rng;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    w->explore_rng = x;
    return (double)(x >> 11) * 0x1.0p-53;
}

/* The explorer's initial guess of the active contacts' impulses, instead of
 * the warm start: zero, or random in the Coulomb cone (scaled per contact). */
static void explore_guess(rc_world *w, const rc_explore_def *ed)
{
    if (!ed->zero_guess && !ed->random_guess) return;
    for (int k = 0; k < w->nactive; k++) {
        const int i = w->active[k];
        rc_contact *c = &w->contacts[i];
        const rc_law *law = &w->laws[c->law];
        c->p[0] = c->p[1] = 0.0;
        if (ed->random_guess && law->closed_form) {   /* a random start */
            double r1 = explore_uniform(w), r2 = explore_uniform(w);
            c->p[0] = r1 * (i < ed->nguess_scales ? ed->guess_scales[i] : ed->guess_scale);
            c->p[1] = (2.0 * r2 - 1.0) * law->def.mu * c->p[0];
            rcm_fc2d_project(law->def.mu, c->p);
        }
    }
}

/* assemble -> guess -> solve: the stages of a step up to the solve, the
 * impulses and the solver's figures reported, the state left as it was */
static rc_status explore(rc_world *w, const rc_explore_def *def)
{
    rci_step st;
    RC_CHECK(rcm_state_keep_geom(w));   /* the state's geometry, in the records the exploration overwrites */
    RC_CHECK(rcm_world_work_begin(w));   /* the last step's work arrays are done with */
    RC_CHECK(rci_stage_begin(&st, w));
    if (st.scheme->step)
        return rc_set_error(RC_ERR_ARG, "the explorer solves the one-step problem of the Moreau--Jean family; "
                            "scheme '%s' has its own (configure another scheme to explore)", st.scheme->name);
    /* the solve's own settings: the simulation's, in a random order of the
     * exploration's seed if asked; the run's statistics do not count it */
    rc_solver_def opt = w->sim.solver;
    if (def->random_order) {
        opt.order = RC_ORDER_RANDOM;
        opt.seed = def->seed;
    }
    st.solver = &opt;
    st.cyclic = def->cyclic_order;
    st.exploring = 1;
    RC_CHECK(rci_stage_forces(&st));
    RC_CHECK(rci_stage_detect(&st));
    RC_CHECK(rci_stage_free_velocity(&st));
    RC_CHECK(rci_stage_index_set(&st));
    explore_guess(w, def);
    RC_CHECK(rci_stage_joints(&st));
    rci_stage_warm_start(&st);
    RC_CHECK(rci_stage_solve(&st));
    RC_CHECK(rci_stage_converged(&st));
    int n = w->ncontacts < w->explore_cap ? w->ncontacts : w->explore_cap;
    for (int i = 0; i < n; i++) {
        w->explore_out[2 * i] = w->contacts[i].p[0];
        w->explore_out[2 * i + 1] = w->contacts[i].p[1];
    }
    w->explore_iters = st.iters;
    w->explore_res = st.res;
    w->explore_converged = st.converged;
    for (int i = 0; i < w->ncontacts; i++)   /* the solution's relative velocities, H V */
        rcm_contact_dot(w, &w->contacts[i], w->V, NULL, w->contacts[i].u);
    w->explore_n = w->ncontacts;   /* the state (w->rec) is untouched */
    return RC_OK;
}

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
    w->explore_rng = def->seed * 0x9E3779B97F4A7C15ull + 12345u;
    w->explore_out = p_out;
    w->explore_cap = cap;
    w->explore_n = 0;
    rc_status s = explore(w, def);
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

