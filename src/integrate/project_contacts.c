/* project_contacts.c -- the position projection of the unilateral contacts
 * after a Moreau--Jean or Moreau--Jean--Fremond step (the option
 * project_contacts; not part of the papers' schemes).
 *
 * In the Moreau--Jean family a contact enters the index set once its gap (or
 * its anticipated gap g_N + gamma h u_N,k) closes; the velocity-level law then
 * keeps u_N >= 0 but nothing pushes back the overlap a fast grain made in the
 * step before its contact acted (h |u_N|). As Siconos's
 * MoreauJeanCombinedProjectionOSI (Acary 2013, "Projected event-capturing
 * time-stepping schemes for nonsmooth mechanical systems with unilateral
 * contact and Coulomb's friction", CMAME 256), after the velocity step the
 * positions are projected onto the admissible set:
 *
 *     q_{k+1} <- q_{k+1} + M^-1 H_N^T nu,   0 <= g_N(q_{k+1}) _|_ nu >= 0,
 *
 * an LCP in nu with the gaps linearised at q_k (g_N(q_k + dq) ~ g_N(q_k) +
 * H_N dq, with dq = h v_{k+theta} + M^-1 H_N^T nu: exact for a disk on a
 * half-plane or a segment's side, O(|dq_T|^2 / R) for two disks), solved by
 * projected Gauss--Seidel over every detected contact of rigid bodies (those
 * in the index set and the near ones: a correction must not push a grain into
 * a neighbour), each contact's exact one-row update
 *     nu_i <- max(0, nu_i - g_i / W_i),  W_i = H_N,i M^-1 H_N,i^T,
 * warm-started with the contact's nu of the last step, until every contact
 * has -g_i <= tol (and |g_i| <= tol where nu_i > 0: no gap left open by the
 * warm start) or project_max_iter sweeps. Velocities are not changed.
 *
 * Energy: the projection moves q only, so it changes E_pot (the kinetic
 * energy of rigid bodies does not depend on q): E_pot(after) - E_pot(before)
 * is booked in W_proj and E_proj (rc_step_info.W_proj_contacts), so that the
 * balance eq. (65) stays exact. Lifting a grain out of the floor against
 * gravity gives it back the potential energy its overlap took: W_proj >= 0
 * there, at most m g h |u_N| for an impact that dissipated (1/2) m u_N^2 in
 * W_N (the run's statistics record the largest W_proj + W_N + W_T of a step).
 * Gap contacts of linear bodies and sleeping bodies are not moved.
 */
#include "integrate/integrate.h"

#include <math.h>
#include <string.h>

/* the inverse mass and inertia a side moves with (0: the ground, a sleeping
 * body, a body that is not rigid) */
static inline void side_inv(const rc_world *w, int b, double *im, double *ii)
{
    *im = *ii = 0.0;
    if (b == RC_GROUND || (w->nasleep > 0 && w->asleep[b])) return;
    const rc_body *bd = &w->bodies[b];
    if (bd->kind != RC_BODY_RIGID2D) return;
    *im = bd->inv_mass;
    *ii = bd->inv_inertia;
}

/* H_N dq of a geometric contact (rcm_contact_dot's normal row) */
static inline double normal_dot(const rc_world *w, const rc_contact *c, const double *dq)
{
    const double *qb = dq + w->bodies[c->body_b].iv;
    double g = c->n[0] * qb[0] + c->n[1] * qb[1] + c->Hr[1][0] * qb[2];
    if (c->body_a != RC_GROUND) {
        const double *qa = dq + w->bodies[c->body_a].iv;
        g += -c->n[0] * qa[0] + -c->n[1] * qa[1] + c->Hr[0][0] * qa[2];
    }
    return g;
}

/* dq += M^-1 H_N^T d */
static inline void normal_apply(const rc_world *w, const rc_contact *c, double *dq, double d)
{
    double im, ii;
    side_inv(w, c->body_b, &im, &ii);
    double *qb = dq + w->bodies[c->body_b].iv;
    qb[0] += im * c->n[0] * d;
    qb[1] += im * c->n[1] * d;
    qb[2] += ii * c->Hr[1][0] * d;
    if (c->body_a == RC_GROUND) return;
    side_inv(w, c->body_a, &im, &ii);
    double *qa = dq + w->bodies[c->body_a].iv;
    qa[0] -= im * c->n[0] * d;
    qa[1] -= im * c->n[1] * d;
    qa[2] += ii * c->Hr[0][0] * d;
}

/* 1 / W_N of contact c (0: not projected) */
static double inverse_w(const rc_world *w, const rc_contact *c)
{
    if (c->gap >= 0 || (w->nasleep > 0 && rcm_sleeping_pair(w, c->body_a, c->body_b))) return 0.0;
    double im, ii, W;
    side_inv(w, c->body_b, &im, &ii);
    W = im + ii * c->Hr[1][0] * c->Hr[1][0];
    if (c->body_a != RC_GROUND) {
        side_inv(w, c->body_a, &im, &ii);
        W += im + ii * c->Hr[0][0] * c->Hr[0][0];
    }
    return W > 0.0 ? 1.0 / W : 0.0;
}

rc_status rci_project_contacts_prepare(rci_step *st)
{
    rc_world *w = st->w;
    const int n = w->ncontacts;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&st->pc_g, n, sizeof(double), "contact projection"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&st->pc_winv, n, sizeof(double), "contact projection"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&st->pc_nu, n, sizeof(double), "contact projection"));
    return rcb_arena_array(&w->work, (void **)&st->pc_dq, w->nv, sizeof(double), "contact projection");
}

/* the linearised gaps at q_{k+1} = q_k + h v_{k+theta} (w->V), the contacts'
 * 1 / W_N and their warm start (the last step's nu, matched by key in the
 * state w->rec, which the commit has not replaced yet); dq = M^-1 H^T nu_0.
 * Returns the largest overlap before the projection. */
static double setup(rci_step *st)
{
    rc_world *w = st->w;
    double *g = st->pc_g, *winv = st->pc_winv, *nu = st->pc_nu, *dq = st->pc_dq;
    if (w->nv > 0) memset(dq, 0, (size_t)w->nv * sizeof(double));
    double worst = 0.0;
    for (int i = 0, j = 0; i < w->ncontacts; i++) {
        const rc_contact *c = &w->contacts[i];
        winv[i] = inverse_w(w, c);
        nu[i] = 0.0;
        if (winv[i] == 0.0) continue;
        g[i] = c->gN + st->h * normal_dot(w, c, w->V);
        if (-g[i] > worst) worst = -g[i];
        while (j < w->nrec && w->rec[j].key < c->key) j++;
        if (j < w->nrec && w->rec[j].key == c->key && w->rec[j].nu > 0.0) {
            nu[i] = w->rec[j].nu;
            normal_apply(w, c, dq, nu[i]);
        }
    }
    return worst;
}

/* projected Gauss--Seidel sweeps; returns the sweeps done, *viol the largest
 * violation of the last sweep (before each contact's update) */
static int sweeps(rci_step *st, double *viol)
{
    rc_world *w = st->w;
    const double tol = w->sim.project_tol;
    const double *g = st->pc_g, *winv = st->pc_winv;
    double *nu = st->pc_nu, *dq = st->pc_dq;
    int it = 0;
    *viol = 0.0;
    while (it < w->sim.project_max_iter) {
        double worst = 0.0;
        it++;
        for (int i = 0; i < w->ncontacts; i++) {
            if (winv[i] == 0.0) continue;
            const rc_contact *c = &w->contacts[i];
            const double gi = g[i] + normal_dot(w, c, dq);
            const double v = nu[i] > 0.0 ? fabs(gi) : -gi;
            if (v > worst) worst = v;
            double nn = nu[i] - gi * winv[i];
            if (nn < 0.0) nn = 0.0;
            const double d = nn - nu[i];
            if (d != 0.0) {
                normal_apply(w, c, dq, d);
                nu[i] = nn;
            }
        }
        *viol = worst;
        if (worst <= tol) break;
    }
    return it;
}

void rci_project_contacts(rci_step *st, rci_audit *a)
{
    rc_world *w = st->w;
    a->cproj_overlap = setup(st);
    double viol;
    a->cproj_sweeps = w->ncontacts ? sweeps(st, &viol) : 0;
    a->cproj_capped = a->cproj_sweeps && viol > w->sim.project_tol;
    int moved = 0;
    for (int i = 0; i < w->ncontacts; i++) {
        w->contacts[i].nu = st->pc_nu[i];   /* the next step's warm start (rci_save_contacts) */
        moved |= st->pc_nu[i] != 0.0;
    }
    if (!moved) return;
    for (int b = 0; b < w->nbodies; b++) {   /* rigid bodies: q and v share offsets, T = I */
        const rc_body *bd = &w->bodies[b];
        if (bd->kind != RC_BODY_RIGID2D) continue;
        for (int k = 0; k < 3; k++) w->q[bd->iq + k] += st->pc_dq[bd->iv + k];
    }
    rci_project_contacts_book(st, a);
}

/* after the positions moved: their energy change in W_proj and E_proj */
void rci_project_contacts_book(rci_step *st, rci_audit *a)
{
    double Ek2, Ep2;
    rcm_energy(st->w, st->w->q, st->w->v, &Ek2, &Ep2, NULL);
    const double dE = (Ek2 + Ep2) - (st->Ek1 + st->Ep1);
    a->W_cproj = dE;
    a->W_proj += dE;
    a->E_proj += dE;
    st->Ek1 = Ek2;
    st->Ep1 = Ep2;
}

void rci_project_contacts_stats(rc_world *w, const rci_audit *a)
{
    rc_run_stats *s = &w->stats;
    if (a->cproj_overlap > s->max_proj_overlap) s->max_proj_overlap = a->cproj_overlap;
    if (a->cproj_sweeps > s->max_proj_sweeps) s->max_proj_sweeps = a->cproj_sweeps;
    s->proj_capped += a->cproj_capped;
    s->W_proj_contacts_total += a->W_cproj;
    if (a->W_cproj > s->max_W_proj_contacts) s->max_W_proj_contacts = a->W_cproj;
    if (a->W_cproj < s->min_W_proj_contacts) s->min_W_proj_contacts = a->W_cproj;
    if (a->W_cproj != 0.0) {
        const double net = a->W_cproj + a->W_N + a->W_T;
        if (s->max_W_proj_net == 0.0 || net > s->max_W_proj_net) s->max_W_proj_net = net;
    }
}
