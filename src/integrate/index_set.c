/* index_set.c -- the step's index-set stage (step.c lists the stages): which
 * detected contacts enter the one-step problem (Acary & Collins-Craft 2024
 * eq. 64, or its anticipated form, and the persistence band), and for each
 * active one its local problem: W = H kappa Mhat^-1 H^T (eq. 94 / 99) and the
 * scheme's affine term (eq. 96 / 101, Maury's eq. 14); then NSGS's hot
 * records reserved. With the solver's threads the contacts are taken by two
 * threads, the active list and the residual's scale in contact order: the
 * same numbers bit for bit. */
#include "integrate/integrate.h"

#include "model/team.h"

#include <math.h>

/* W = H kappa M^-1 H^T (eq. 94 / 99) of a rigid pair, M diagonal */
static void rigid_delassus(const rci_step *st, rc_contact *c)
{
    const rc_world *w = st->w;
    const double kappa = st->kappa;
    const rc_body *bb = &w->bodies[c->body_b];
    const double mb[3] = { kappa * bb->inv_mass, kappa * bb->inv_mass, kappa * bb->inv_inertia };
    double ma[3] = { 0.0, 0.0, 0.0 };
    if (c->body_a != RC_GROUND) {
        const rc_body *ba = &w->bodies[c->body_a];
        ma[0] = ma[1] = kappa * ba->inv_mass;
        ma[2] = kappa * ba->inv_inertia;
    }
    double Ha[2][3], Hb[2][3];
    rcm_contact_jacobian(c, Ha, Hb);
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++) {
            double sum = 0.0;
            for (int j = 0; j < 3; j++) sum += Hb[r][j] * mb[j] * Hb[k][j] + Ha[r][j] * ma[j] * Ha[k][j];
            c->W[r][k] = sum;
        }
}

/* NSGS's hot records of this step's active contacts (nonsmooth/nsgs_pack.c),
 * their residual terms and the bodies' kappa/m, kappa/I by V offset, taken
 * here in every step of a world that has had contacts, for at least 16
 * contacts: the step's work memory then follows the active contacts without
 * appearing and vanishing with them (a world between impacts allocates
 * nothing at its next impact). Only when the solve can use them: not for a
 * gap contact or a law without closed form (rcn_nsgs_pack_usable), nor in a
 * dim = 3 world (its contacts have their own records, nsgs3_pack.c). */
static rc_status reserve_hot(rc_world *w)
{
    if (w->sim.solver.method != RC_SOLVER_NSGS || w->sim.solver.anderson > 0 || w->cap_contacts == 0) return RC_OK;
    if (w->c3 || !rcn_nsgs_pack_enabled || !rcn_nsgs_pack_usable(w)) return RC_OK;
    const int cap = w->nactive > 16 ? w->nactive : 16;
    RC_CHECK(rcb_arena_array(&w->work, &w->hot, (long long)cap * RCM_HOT2_BYTES + 64, 1, "planar contacts' hot records"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->hot_r2, cap, sizeof(double), "planar contacts' hot records"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->hot_mk, w->nv > 0 ? w->nv : 1, sizeof(double), "planar contacts' hot records"));
    w->cap_hot = cap;
    return RC_OK;
}

/* Contact i's index-set test and, when active, its local problem; *b2: its
 * |b|^2 (0 when inactive), for the residual's scale. Touches contact i only
 * (and its aux), so that contacts may be taken by several threads when the
 * world has no gap contact (rcm_gap_assemble may fail) nor aux. */
static rc_status index_one(rci_step *st, int i, int anticipate, double *b2)
{
    rc_world *w = st->w;
    const rci_scheme *sc = st->scheme;
    const double h = st->h;
    rc_contact *c = &w->contacts[i];
    *b2 = 0.0;
    if (rcm_sleeping_pair(w, c->body_a, c->body_b)) { c->active = 0; return RC_OK; }   /* kept as it was (sleep.c) */
    double uk[2];
    rcm_contact_dot(w, c, st->vk, NULL, uk);
    /* the index set: eq. (64), g_N(q_k) <= 0 and u_N,k <= 0 ("gap"), or
     * Siconos's MoreauJeanOSI, g_N(q_k) + gamma h u_N,k <= 0 alone
     * ("anticipate": no sign condition, so that round-off in u_N,k does
     * not drop an overlapping contact); a contact that carried a normal
     * impulse in the last step (a resting or sliding contact) stays in
     * it while the same trigger is <= band, even if u_N,k > 0 by
     * the solver tolerance or g_N > 0 by round-off: resting contacts do
     * not flicker. Maury's scheme: every detected pair (g_N(q_k) + h u_N >= 0). */
    const double trigger = anticipate ? c->gN + w->sim.gamma * h * uk[0] : c->gN;
    const int in_rule = trigger <= 0.0 && (anticipate || uk[0] <= 0.0);
    const int persisting = !in_rule && !sc->every_pair && c->p[0] != 0.0 && trigger <= st->band;
    c->active = in_rule || persisting || sc->every_pair;
    c->res = 0.0;
    /* What a built-in impact law sees (the scheme's preimpact) and the
     * closing term of a persisting contact: a persisting contact (in the
     * index set only by the persistence rule) with g_N > 0 may also close
     * its gap, and no more: its shift gets g_N / h (on u_{k+theta} under
     * MJF: closed in one step; on u_{k+1} under MJ: in two at e = 0), so
     * that resting contacts opened by the solver's tolerance close again
     * instead of the openings accumulating; the extra work -g_N p_N / h
     * is <= 0. */
    double ul[2] = { uk[0], uk[1] }, extra = 0.0;
    const rc_law *law = &w->laws[c->law];
    if (c->active && !sc->every_pair && law->def.type != RC_LAW_CUSTOM) {
        if (sc->preimpact) sc->preimpact(st, law, ul);
        if (persisting && c->gN > 0.0) extra = c->gN / h;
    }
    if (c->aux) {
        c->aux->uk[0] = ul[0]; c->aux->uk[1] = ul[1];
        c->aux->jvalid = 0;
    }
    if (!c->active) { c->p[0] = c->p[1] = 0.0; return RC_OK; }
    if (c->gap >= 0) RC_CHECK(rcm_gap_assemble(w, c, st->kappa));
    else rigid_delassus(st, c);
    sc->affine(st, c, law, ul, extra);
    double u0[2];   /* b = u(p = 0) + shift: only |b| is kept, for the residual's scale */
    rcm_contact_dot(w, c, w->V, NULL, u0);
    const double b0 = u0[0] + c->shift[0], b1 = u0[1] + c->shift[1];
    *b2 = b0 * b0 + b1 * b1;
    if (!w->sim.solver.warm_start) c->p[0] = c->p[1] = 0.0;
    if (law->closed_form) rcm_fc2d_project(law->def.mu, c->p);
    else if (law->ops.dim == 1) c->p[1] = 0.0;
    return RC_OK;
}

/* index set (eq. 64) and the local problems; the warm-start impulses are the
 * last step's (the explorer replaces them afterwards). The active list and
 * the sum of |b|^2 in contact order, whatever the threads. */
rc_status rci_stage_index_set(rci_step *st)
{
    rc_world *w = st->w;
    const int n = w->ncontacts;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->active, n, sizeof(int), "active contacts"));
    w->nactive = 0;
    w->contact_b2 = 0.0;
    /* the persistence band: what a resting contact can open in one step at the
     * solver's tolerance (the last step's residual if it stopped short of it),
     * |u_N| <= max(tol, r) (1 + |b|) by the residual's definition, so h |u_N|
     * of gap and gamma h |u_N| more in the anticipated trigger; never below
     * persist_tol (round-off) */
    st->band = fmax(w->sim.persist_tol, w->persist_band);
    const int anticipate = w->sim.activation == RC_ACTIVATE_ANTICIPATE;
#ifdef _OPENMP
    if (w->ngaps == 0 && !w->aux && rcm_team2(w, n)) {
        double *b2;
        RC_CHECK(rcb_arena_array(&w->work, (void **)&b2, n, sizeof(double), "index set"));
#pragma omp parallel for num_threads(2) schedule(static)
        for (int i = 0; i < n; i++) {   /* no gap contact: cannot fail */
            (void)index_one(st, i, anticipate, &b2[i]);
            if (!w->contacts[i].active) b2[i] = -1.0;   /* |b|^2 of an active one is >= 0 (or NaN) */
        }
        for (int i = 0; i < n; i++) {   /* the list in index order from b2 alone, not the contacts */
            if (b2[i] == -1.0) continue;
            w->active[w->nactive++] = i;
            w->contact_b2 += b2[i];
        }
        return reserve_hot(w);
    }
#endif
    for (int i = 0; i < n; i++) {
        double b2;
        RC_CHECK(index_one(st, i, anticipate, &b2));
        if (!w->contacts[i].active) continue;
        w->active[w->nactive++] = i;
        w->contact_b2 += b2;
    }
    return reserve_hot(w);
}

