/* energy.c -- kinetic and potential energy of a state (eq. 41 with the
 * gravity potential): E_kin = 1/2 v^T M v, E_pot = - sum_b m_b g . x_b
 * for rigid bodies, + 1/2 q^T K q for linear bodies. With a periodic
 * boundary, E_pot also counts the moves of bodies by +-L (w->E_wrap), so that
 * it stays continuous when gravity has an x component (a tilted slope). */
#include "model/model.h"

void rcm_energy(const rc_world *w, const double *q, const double *v, double *E_kin, double *E_pot, double *E_el)
{
    double acc[3] = { 0.0, 0.0, 0.0 };   /* 2 E_kin, E_pot, E_el: the kinds' energy (body_kinds.c) */
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        rcm_body_ops_of(bd)->energy(w, bd, q, v, acc);
    }
    const double k = acc[0], p = acc[1], el = acc[2];
    *E_kin = 0.5 * k;
    *E_pot = p + w->E_wrap;
    if (E_el) *E_el = el;   /* the linear bodies' 1/2 q^T K q, part of E_pot */
}
