/* iterate_contacts.c -- the step's contacts at an iterate's positions, for
 * the schemes that evaluate their constraints at q_{n+1} inside a Newton
 * loop (the generalized-alpha schemes): the narrow phase at X, each contact
 * of the step's set found again by its key, and its Jacobian rows as dense
 * rows of the world's velocities. */
#include "integrate/integrate.h"
#include "model/beam.h"

#include <math.h>
#include <string.h>

/* The margin: what a contact may close within the step, 2 h (|v| + |omega| R
 * + h |g|) per shape, doubled for the iterates' detection, and the world's. */
static double step_margin(const rc_world *w, double h)
{
    double s = 0.0;
    const double ag = hypot(w->def.gravity[0], w->def.gravity[1]);
    for (int i = 0; i < w->nshapes; i++) {
        const rc_shape *sh = &w->shapes[i];
        if (sh->body == RC_GROUND) continue;
        const double *v = w->v + w->bodies[sh->body].iv;
        s = fmax(s, hypot(v[0], v[1]) + fabs(v[2]) * sh->bound + h * ag);
    }
    return w->def.contact_margin + 4.0 * h * 2.0 * s;
}

rc_status rci_detect_step(rc_world *w, double h, double *margin)
{
    *margin = step_margin(w, h);
    w->detect_margin = *margin;
    rcc_update_shapes(w);
    rcm_state_geom_leave(w);   /* the state's geometry was in the records detection overwrites */
    RC_CHECK(rcc_detect(w));
    RC_CHECK(rcm_gaps_detect(w));
    return rci_match_contacts(w);
}

rc_status rci_ga_head_setup(const rci_step *st, rci_ga_head *hd)
{
    rc_world *w = st->w;
    double c[4];
    rcm_gen_alpha_coefs(&w->sim.gen_alpha, c);
    hd->w = w;
    hd->h = st->h;
    hd->am = c[0]; hd->af = c[1]; hd->beta = c[2]; hd->gam = c[3];
    hd->t1 = st->t_next;
    hd->have_f = st->have_f;
    RC_CHECK(rci_detect_step(w, hd->h, &hd->margin));
    hd->n = w->nv;
    hd->nb = 0;
    for (int i = 0; i < w->njoints; i++) hd->nb += w->joints[i].rows;
    hd->nb += rcm_beam_joint_rows(w);   /* the beams' joints after them (model/beam_joint.c) */
    return RC_OK;
}

static const rc_contact *find_contact(const rc_world *w, uint64_t key)
{
    int lo = 0, hi = w->ncontacts - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        const uint64_t k = w->contacts[mid].key;
        if (k == key) return &w->contacts[mid];
        if (k < key) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

rc_status rci_contacts_at(rc_world *w, double margin, double t, const double *X, rc_contact *cs, int nc, double *gap,
                          int update)
{
    if (!nc) return RC_OK;
    memcpy(w->q, X, (size_t)w->nq * sizeof(double));
    w->detect_margin = margin;
    rcc_update_shapes(w);
    rcm_state_geom_leave(w);
    RC_CHECK(rcc_detect(w));
    {   /* gap functions (linear bodies; keys after the shape pairs'), at t like the positions */
        const double t0 = w->t;
        w->t = t;
        rc_status st = rcm_gaps_detect(w);
        w->t = t0;
        RC_CHECK(st);
    }
    for (int j = 0; j < nc; j++) {
        rc_contact *cj = &cs[j];
        const rc_contact *c = find_contact(w, cj->key);
        gap[j] = c ? c->gN : margin;
        if (update && c) {
            cj->gN = c->gN;
            cj->n[0] = c->n[0]; cj->n[1] = c->n[1];
            memcpy(cj->Hr, c->Hr, sizeof cj->Hr);
            cj->point[0] = c->point[0]; cj->point[1] = c->point[1];
        }
    }
    return RC_OK;
}

void rci_contact_row(const rc_world *w, const rc_contact *c, int row, int n, double *G)
{
    memset(G, 0, (size_t)n * sizeof(double));
    if (c->gap >= 0) {   /* a gap function of a linear body: its gradient at the last evaluation */
        const rc_gap *gp = &w->gaps[c->gap];
        const int o = w->bodies[gp->body].iv;
        const double *v = row ? gp->tng : gp->nrm;
        for (int k = 0; k < gp->nnz; k++) G[o + gp->idx[k]] += v[k];
        double hr[3];   /* a node against a rigid body (node_gap.c): its columns */
        const int rb = gp->node ? rcm_node_gap_rigid_row(w, gp, row, hr) : -1;
        if (rb >= 0)
            for (int k = 0; k < 3; k++) G[w->bodies[rb].iv + k] += hr[k];
        return;
    }
    double Ha[2][3], Hb[2][3];
    rcm_contact_jacobian(c, Ha, Hb);
    const int ib = w->bodies[c->body_b].iv;
    for (int k = 0; k < 3; k++) G[ib + k] += Hb[row][k];
    if (c->body_a != RC_GROUND) {
        const int ia = w->bodies[c->body_a].iv;
        for (int k = 0; k < 3; k++) G[ia + k] += Ha[row][k];
    }
}

rc_status rci_joint_rows(rc_world *w, int n, const double *X, double t, double *g, double *G, double *gt)
{
    int row = 0;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        double gj[3], gtj[3], Ha[3][3], Hb[3][3];
        RC_CHECK(rcm_joint_eval(w, j, X, t, gj, Ha, Hb, gtj));
        const int ib = w->bodies[j->def.body_b].iv, ia = j->def.body_a == RC_GROUND ? -1 : w->bodies[j->def.body_a].iv;
        for (int r = 0; r < j->rows; r++, row++) {
            double *Gr = G + (size_t)row * n;
            memset(Gr, 0, (size_t)n * sizeof(double));
            for (int k = 0; k < 3; k++) Gr[ib + k] += Hb[r][k];
            if (ia >= 0)
                for (int k = 0; k < 3; k++) Gr[ia + k] += Ha[r][k];
            g[row] = gj[r];
            gt[row] = gtj[r];
        }
    }
    return rcm_beam_joint_eval(w, n, X, t, row, g, G, gt);
}


double rci_joints_take_multipliers(rc_world *w, const double *G, int n, const double *vm, double h, const double *L,
                                   const double *l)
{
    double W_J = 0.0;
    int row = 0;
    for (int i = 0; i < w->njoints; i++) {
        rc_joint *j = &w->joints[i];
        j->work = j->wstart;
        for (int r = 0; r < j->rows; r++, row++) {
            double um = 0.0;
            for (int k = 0; k < n; k++) um += G[(size_t)row * n + k] * vm[k];
            j->lambda[r] = L[row] + h * l[row];   /* reported force Lambda / h + lambda (eq. 33) */
            j->smooth[r] = l[row];
            j->mu_v[r] = 0.0;
            j->work += um * j->lambda[r];
        }
        W_J += j->work;
    }
    return W_J + rcm_beam_joint_take(w, row, G, n, vm, h, L, l);
}
