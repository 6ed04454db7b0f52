/* forces.c -- the applied forces F_{k+theta} of a step into w->f: constant
 * forces, force functions (C callbacks or Lua), linear bodies' constant
 * force, springs (explicit, at (q_k, v_k)). Gravity is not in w->f: it is in
 * E_pot and added by the free velocity.
 */
#include "integrate/integrate.h"

#include <stdio.h>
#include <string.h>

/* Applied forces F_{k+theta} (gravity separately: it is in E_pot). */
rc_status rci_forces(rc_world *w, double t_theta)
{
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        double *f = w->f + bd->iv;
        const rc_body_ext *x = rcm_body_ext_of(w, b);
        const double *f0 = rcm_body_ops_of(bd)->constant_force(w, bd);
        if (f0) {
            for (int j = 0; j < bd->nv; j++) f[j] = f0[j];
        } else {   /* no rc_body_ext: a zero force, no function */
            for (int j = 0; j < bd->nv; j++) f[j] = 0.0;
            continue;
        }
        if (x && x->force_fn) {
            double *g = w->V + bd->iv;   /* scratch: V is set later in the step */
            for (int j = 0; j < bd->nv; j++) g[j] = 0.0;
            rc_status s = x->force_fn(x->force_user, b, t_theta, w->q + bd->iq, w->v + bd->iv, g);
            /* the function may have given another body its rc_body_ext (set_force):
             * w->body_ext may have moved */
            const char *name = rcm_body_name_of(w, b);
            if (s != RC_OK) {
                const char *msg = rc_last_error();
                char copy[768];
                snprintf(copy, sizeof copy, "%s", msg);
                return rc_set_error(s, "force function of body %d%s%s%s at t = %.17g: %s", b,
                                    name ? " (" : "", name ? name : "", name ? ")" : "",
                                    t_theta, copy);
            }
            for (int j = 0; j < bd->nv; j++) {
                if (!rcb_finite(g[j]))
                    return rc_set_error(RC_ERR_CALLBACK, "force function of body %d%s%s%s returned a non-finite component %d at t = %.17g",
                                        b, name ? " (" : "", name ? name : "", name ? ")" : "", j + 1, t_theta);
                f[j] += g[j];
            }
        }
    }
    double E_spring;
    rcm_springs_forces(w, w->f, &E_spring);   /* explicit: at (q_k, v_k) */
    return RC_OK;
}
