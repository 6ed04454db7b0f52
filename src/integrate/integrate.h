/*
 * integrate/integrate.h -- the time step (not public): rc_world_step and the
 * explorer are public; the step reaches collide and nonsmooth. Includes the
 * layers below.
 */
#ifndef RC_INTEGRATE_H
#define RC_INTEGRATE_H

#include "collide/collide.h"
#include "nonsmooth/nonsmooth.h"

/* The step's parts (scheme.c runs them): */
/* contacts_state.c: ids, warm start and law state from the last step's contacts */
rc_status rci_step_match_contacts(rc_world *w);
/* contacts_state.c: room for the state's contacts (before the update), then
 * the accepted step's contacts become the state (once nothing can fail) */
rc_status rci_step_reserve_state(rc_world *w);
void rci_step_save_contacts(rc_world *w);
/* forces.c: applied forces F at t_theta into w->f */
rc_status rci_step_forces(rc_world *w, double t_theta);

/* u = H v (rigid pairs: H from n and Hr, the products of rcm_contact_jacobian) */
static inline void body_velocity_dot(const rc_world *w, const rc_contact *c, const double *v, double u[2])
{
    if (c->gap >= 0) { rcm_gap_dot(w, c, v, u); return; }
    const double *vb = v + w->bodies[c->body_b].iv, nx = c->n[0], ny = c->n[1];
    u[0] = nx * vb[0] + ny * vb[1] + c->Hr[1][0] * vb[2];
    u[1] = ny * vb[0] + -nx * vb[1] + c->Hr[1][1] * vb[2];
    if (c->body_a != RC_GROUND) {
        const double *va = v + w->bodies[c->body_a].iv;
        u[0] += -nx * va[0] + -ny * va[1] + c->Hr[0][0] * va[2];
        u[1] += -ny * va[0] + nx * va[1] + c->Hr[0][1] * va[2];
    }
}

#endif /* RC_INTEGRATE_H */
