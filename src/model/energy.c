/* energy.c -- kinetic and potential energy of a state (eq. 41 with the
 * gravity potential): E_kin = 1/2 v^T M v, E_pot = - sum_b m_b g . x_b
 * for rigid bodies, + 1/2 q^T K q for linear bodies. With a periodic
 * boundary, E_pot also counts the moves of bodies by +-L (w->E_wrap), so that
 * it stays continuous when gravity has an x component (a tilted slope). */
#include "model/model.h"

void rcm_energy(const rc_world *w, const double *q, const double *v, double *E_kin, double *E_pot, double *E_el)
{
    double k = 0.0, p = 0.0, el = 0.0;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        if (bd->kind == RC_BODY_LINEAR) {
            double ek, ee;
            rcm_linear_energies(w, &w->linears[bd->linear], q, v, &ek, &ee);
            k += 2.0 * ek;
            p += ee;
            el += ee;
            continue;
        }
        const double *x = q + bd->iq, *vv = v + bd->iv;
        const double m = rcm_body_mass(w, bd), J = rcm_body_inertia(w, bd);
        k += m * (vv[0] * vv[0] + vv[1] * vv[1]) + J * vv[2] * vv[2];
        p -= m * (w->def.gravity[0] * x[0] + w->def.gravity[1] * x[1]);
    }
    *E_kin = 0.5 * k;
    *E_pot = p + w->E_wrap;
    if (E_el) *E_el = el;   /* the linear bodies' 1/2 q^T K q, part of E_pot */
}
