/* contacts3_law.c -- the 3D contacts of a law without a closed form (custom
 * laws of dim 1 or 3, built-in laws on the generic solver) in the step
 * (contacts3.c; the local solve in nonsmooth/law3.c; docs/laws.md, "dim = 3"):
 *   u_old    u_k = H(q_k) v_k as the law sees it (a built-in law: after the
 *            scheme's preimpact, on (N, T1) and (N, T2) as shift3 does);
 *   update   after the accepted step, the law's update with u at the
 *            scheme's unknown (v_{k+1}, or v_{k+theta} under MJF), u_old and
 *            the step's impulse, for every contact detected at t_k (p = 0
 *            outside the index set); the state follows the contact by key
 *            (collide/detect3d.c). */
#include "integrate/integrate.h"

#include <string.h>

void rci_law3_uold(const rci_step *st, const rc_law *law, rcm_contact3 *c)
{
    c->jvalid = 0;
    memcpy(c->uo, c->uk, sizeof c->uo);
    if (law->def.type == RC_LAW_CUSTOM || !st->scheme->preimpact) return;
    double ul1[2] = { c->uk[0], c->uk[1] }, ul2[2] = { c->uk[0], c->uk[2] };
    st->scheme->preimpact(st, law, ul1);
    st->scheme->preimpact(st, law, ul2);
    c->uo[0] = ul1[0];
    c->uo[1] = ul1[1];
    c->uo[2] = ul2[1];
}

/* u = H v of contact c (without the shift) */
static void rows_velocity(const rc_world *w, rcm_contact3 *c, const double *v, double *u)
{
    double sh[3];
    memcpy(sh, c->shift, sizeof sh);
    memset(c->shift, 0, sizeof c->shift);
    rcn_contact3_velocity(w, c, v, u);
    memcpy(c->shift, sh, sizeof sh);
}

rc_status rci_contacts3_update(rci_step *st, const double *vth)
{
    rc_world *w = st->w;
    rcm_c3 *c3 = w->c3;
    for (int i = 0; i < c3->n; i++) {
        rcm_contact3 *c = &c3->c[i];
        const rc_law *law = &w->laws[c->law];
        if (law->closed_form || !law->ops.update) continue;
        if (!c->active) memcpy(c->uo, c->uk, sizeof c->uo);   /* assemble set it for the active ones */
        rcn_site s;
        rcn_contact3_site(w, c, &s);
        double u[3];
        rows_velocity(w, c, st->scheme->work_at_theta ? vth : w->v, u);
        rc_status r = law->ops.update(law->ops.user, &s.ctx, c->state, u, c->uo, c->p);
        for (int j = 0; r == RC_OK && j < law->ops.nstate; j++)
            if (!rcb_finite(c->state[j]))
                r = rc_set_error(RC_ERR_CALLBACK, "law '%s': update left state[%d] non-finite for contact %d at t = %.17g",
                                 law->name ? law->name : "(unnamed)", j + 1, c->id, w->t);
        if (r != RC_OK) return r;
    }
    return RC_OK;
}
