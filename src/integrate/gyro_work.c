/* gyro_work.c -- the work of the gyroscopic forces in a step of spatial
 * rigid bodies, Acary & Collins-Craft 2024 eq. (103):
 *   W_gyr = v_{k+theta}^T F^gyr_{k+theta} h,
 * with the gyroscopic impulse the scheme applied,
 *   G = J (Omega_{k+1} - Omega_k) - h tau_ext - tau_c,
 * tau_c the body-frame torque impulses of the 3D contacts, their drilling
 * rows and the 3D joints (the rotational part of H^T p). A free step solves
 * J (W1 - W0) + h Wt x J Wt = h tau exactly (rigid3d.c), so G = -h Wt x J Wt
 * and W_gyr = 0. With impulses the update is V = V_free + Ainv tau_c, Ainv
 * the inverse of the gyroscopic iteration matrix at the free solution: the
 * step's rotation then differs from the nonlinear midpoint equation by
 * O(h |Omega| |Ainv tau_c|), and G holds the difference; W_gyr is the energy
 * it puts in (or takes out). Booked in W_ext so that the balance
 *   E_{k+1} - E_k = W_ext + W_N + W_T + W_J + W_theta
 * closes (docs/theory/spatial.md, "Energy"). Summed without per-body
 * storage: sum_b tau_c,b . Wt_b = sum over rows of p_r (H_r,rot . Wt). */
#include "integrate/integrate.h"

/* the rotational part of a row's velocity: H[3..5] . Omega_{k+theta} of its body */
static double rot(const rc_world *w, int body, const double *H, const double *vth)
{
    if (body < 0) return 0.0;
    const double *W = vth + w->bodies[body].iv + 3;
    return H[3] * W[0] + H[4] * W[1] + H[5] * W[2];
}

double rci_gyro_work(const rci_step *st, const double *vth)
{
    const rc_world *w = st->w;
    if (!w->nrigid3d || !st->keep) return 0.0;
    double W = 0.0;
    for (int k = 0; k < w->nrigid3d; k++) {   /* Wt . (J (W1 - W0) - h tau_ext) */
        const rc_body *bd = &w->bodies[w->rigid3d[k].body];
        const double *J = w->mass_diag + bd->iv + 3, *W0 = w->v0 + bd->iv + 3, *W1 = w->v + bd->iv + 3;
        const double *Wt = vth + bd->iv + 3, *tau = st->have_f ? w->f + bd->iv + 3 : NULL;
        for (int i = 0; i < 3; i++) W += Wt[i] * (J[i] * (W1[i] - W0[i]) - (tau ? st->h * tau[i] : 0.0));
    }
    const rcm_c3 *c3 = w->c3;
    for (int i = 0; c3 && i < c3->n; i++) {   /* - tau_c . Wt: contacts and their drilling rows */
        const rcm_contact3 *c = &c3->c[i];
        if (!c->active) continue;
        double Ha[3][6], Hb[3][6];
        rcm_contact3_rows(c, 0, Ha);
        rcm_contact3_rows(c, 1, Hb);
        for (int r = 0; r < 3; r++) W -= c->p[r] * (rot(w, c->body_b, Hb[r], vth) + rot(w, c->body_a, Ha[r], vth));
        if (c3->ndrill && c3->d[i].on) {
            const rcm_drill3 *d = &c3->d[i];
            W -= d->p * (rot(w, c->body_b, d->hb, vth) + rot(w, c->body_a, d->ha, vth));
        }
    }
    for (int i = 0; w->j3 && i < w->j3->n; i++) {   /* and the joints' */
        const rcm_joint3 *j = &w->j3->j[i];
        for (int r = 0; r < j->rows; r++)
            W -= j->lambda[r] * (rot(w, j->body_b, j->Hb[r], vth) + rot(w, j->body_a, j->Ha[r], vth));
        if (j->motor) W -= j->motor_lambda * (rot(w, j->body_b, j->mHb, vth) + rot(w, j->body_a, j->mHa, vth));
    }
    return W;
}
