/*
 * model/rows.h -- the products with a contact's or a joint's rows (part of
 * model/model.h, which includes it after the world's types; not public).
 */
#ifndef RC_MODEL_ROWS_H
#define RC_MODEL_ROWS_H

/* ---------------------------------------------------------------- H v and H^T p
 *
 * The only products with a contact's or a joint's rows: the step's stages,
 * the audit, the solvers and the joints' projections all call these, so that
 * a new row kind (a spatial contact, a node-to-surface contact) changes one
 * routine. Each keeps the operation order of the code it replaced. */

/* u = H v (+ shift) of contact c: a geometric contact (H from n and Hr, the
 * products of rcm_contact_jacobian) or a gap-function contact (rcm_gap_dot);
 * shift NULL: none (a constant NULL folds the branch away). */
static inline void rcm_contact_dot(const rc_world *w, const rc_contact *c, const double *v, const double *shift,
                                   double u[2])
{
    if (c->gap >= 0) {
        rcm_gap_dot(w, c, v, u);
        if (shift) {
            u[0] += shift[0];
            u[1] += shift[1];
        }
        return;
    }
    const double *vb = v + w->bodies[c->body_b].iv, nx = c->n[0], ny = c->n[1];
    u[0] = nx * vb[0] + ny * vb[1] + c->Hr[1][0] * vb[2];
    u[1] = ny * vb[0] + -nx * vb[1] + c->Hr[1][1] * vb[2];
    if (shift) {
        u[0] += shift[0];
        u[1] += shift[1];
    }
    if (c->body_a != RC_GROUND) {
        const double *va = v + w->bodies[c->body_a].iv;
        u[0] += -nx * va[0] + -ny * va[1] + c->Hr[0][0] * va[2];
        u[1] += -ny * va[0] + nx * va[1] + c->Hr[0][1] * va[2];
    }
}

/* V += kappa Mhat^-1 H^T dp of a geometric contact: the rigid kind's
 * diagonal M (rcm_body_rigid2d), H from n and Hr (rcm_contact_jacobian). */
static inline void rcm_contact_apply_rigid(const rc_world *w, const rc_contact *c, double *V, const double *dp)
{
    const rc_body *bb = &w->bodies[c->body_b];
    double *vb = V + bb->iv;
    const double k = w->kappa, nx = c->n[0], ny = c->n[1];
    vb[0] += k * bb->inv_mass * (nx * dp[0] + ny * dp[1]);
    vb[1] += k * bb->inv_mass * (ny * dp[0] + -nx * dp[1]);
    vb[2] += k * bb->inv_inertia * (c->Hr[1][0] * dp[0] + c->Hr[1][1] * dp[1]);
    if (c->body_a != RC_GROUND) {
        const rc_body *ba = &w->bodies[c->body_a];
        double *va = V + ba->iv;
        va[0] += k * ba->inv_mass * (-nx * dp[0] + -ny * dp[1]);
        va[1] += k * ba->inv_mass * (-ny * dp[0] + nx * dp[1]);
        va[2] += k * ba->inv_inertia * (c->Hr[0][0] * dp[0] + c->Hr[0][1] * dp[1]);
    }
}

/* V += kappa Mhat^-1 H^T dp of contact c, geometric or gap-function (its
 * kappa Mhat^-1 H^T assembled by rcm_gap_assemble). */
static inline void rcm_contact_apply(const rc_world *w, const rc_contact *c, double *V, const double *dp)
{
    if (c->gap >= 0) { rcm_gap_apply(w, c, V, dp); return; }
    rcm_contact_apply_rigid(w, c, V, dp);
}

/* u = H v (+ shift) of joint j's rows Ha, Hb (3 x 3 by rows, &j->Ha[0][0];
 * 3 columns per side: joints hold
 * rigid bodies). Two summation orders are in use and kept (each is another
 * round-off): RCM_SUM_BY_SIDE, the solvers' and the audit's
 *     u = shift + Hb vb (+ Ha va),
 * and RCM_SUM_BY_COORDINATE, the joints' assembly and projections
 *     u = shift + sum_c (Hb_c vb_c + Ha_c va_c)   (the ground: va = 0);
 * shift NULL: none (RCM_SUM_BY_SIDE only). */
enum { RCM_SUM_BY_SIDE, RCM_SUM_BY_COORDINATE };
static inline void rcm_joint_dot(const rc_world *w, const rc_joint *j, const double *Ha, const double *Hb,
                                 const double *v, const double *shift, int order, double *u)
{
    static const double zero3[3];
    const double *vb = v + w->bodies[j->def.body_b].iv;
    const double *va = j->def.body_a == RC_GROUND ? NULL : v + w->bodies[j->def.body_a].iv;
    for (int r = 0; r < j->rows; r++) {
        if (order == RCM_SUM_BY_COORDINATE) {
            const double *vz = va ? va : zero3;
            u[r] = shift[r];
            for (int c = 0; c < 3; c++) u[r] += Hb[3 * r + c] * vb[c] + Ha[3 * r + c] * vz[c];
            continue;
        }
        const double *hb = Hb + 3 * r, *ha = Ha + 3 * r;
        if (shift) u[r] = shift[r] + hb[0] * vb[0] + hb[1] * vb[1] + hb[2] * vb[2];
        else u[r] = hb[0] * vb[0] + hb[1] * vb[1] + hb[2] * vb[2];
        if (va) u[r] += ha[0] * va[0] + ha[1] * va[1] + ha[2] * va[2];
    }
}

/* x += MH^T dl over joint j's bodies, MHa, MHb = kappa M^-1 H^T by rows
 * (each entry gets its rows' terms in row order); x is indexed by the
 * bodies' velocity offsets, or by their coordinate offsets (by_iq: the
 * position projection). */
static inline void rcm_joint_apply(const rc_world *w, const rc_joint *j, const double *MHa, const double *MHb,
                                   double *x, int by_iq, const double *dl)
{
    const rc_body *bb = &w->bodies[j->def.body_b];
    double *xb = x + (by_iq ? bb->iq : bb->iv), *xa = NULL;
    if (j->def.body_a != RC_GROUND) {
        const rc_body *ba = &w->bodies[j->def.body_a];
        xa = x + (by_iq ? ba->iq : ba->iv);
    }
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < j->rows; r++) {
            xb[c] += MHb[3 * r + c] * dl[r];
            if (xa) xa[c] += MHa[3 * r + c] * dl[r];
        }
}

/* The motor and limit row of joint j: x' = H v, and V += kappa M^-1 H^T dl. */
static inline double rcm_joint_x_dot(const rc_world *w, const rc_joint *j, const double *v)
{
    const double *vb = v + w->bodies[j->def.body_b].iv;
    double u = j->xb[0] * vb[0] + j->xb[1] * vb[1] + j->xb[2] * vb[2];
    if (j->def.body_a != RC_GROUND) {
        const double *va = v + w->bodies[j->def.body_a].iv;
        u += j->xa[0] * va[0] + j->xa[1] * va[1] + j->xa[2] * va[2];
    }
    return u;
}

static inline void rcm_joint_x_apply(const rc_world *w, const rc_joint *j, double *V, double dl)
{
    double *vb = V + w->bodies[j->def.body_b].iv;
    for (int c = 0; c < 3; c++) vb[c] += j->xMb[c] * dl;
    if (j->def.body_a != RC_GROUND) {
        double *va = V + w->bodies[j->def.body_a].iv;
        for (int c = 0; c < 3; c++) va[c] += j->xMa[c] * dl;
    }
}

#endif /* RC_MODEL_ROWS_H */
