/* energy.c -- kinetic and potential energy of a state (eq. 41 with the
 * gravity potential): E_kin = 1/2 v^T M v, E_pot = - sum_b m_b g . x_b. */
#include "rc_internal.h"

void rc_energy(const rc_world *w, const double *q, const double *v, double *E_kin, double *E_pot)
{
    double k = 0.0, p = 0.0;
    for (int i = 0; i < w->nv; i++) k += w->mass_diag[i] * v[i] * v[i];
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        const double *x = q + bd->iq;
        p -= bd->mass * (w->def.gravity[0] * x[0] + w->def.gravity[1] * x[1]);
    }
    *E_kin = 0.5 * k;
    *E_pot = p;
}
