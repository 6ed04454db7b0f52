/* scheme_maury.c -- Maury's scheme for inelastic collisions (Maury 2006,
 * section 3.2) as an entry of the scheme table (step.h): Moreau--Jean's free
 * velocity and update with u_{k+1} as the unknown, every detected pair in the
 * problem, and the gap in the law's affine term for every law (eq. 14:
 * D(q_k)/h + G.u >= 0, the law sees u_N + g_N/h), so that a pair at distance
 * g_N may close it within the step and no more.
 */
#include "integrate/integrate.h"

static void maury_affine(const rci_step *st, rc_contact *c, const rc_law *law, const double ul[2], double extra)
{
    (void)law; (void)ul; (void)extra;
    c->shift[0] = c->gN / st->h;
    c->shift[1] = 0.0;
}

const rci_scheme rci_scheme_maury = {
    .name = "maury",
    .type = RC_SCHEME_MAURY,
    .unknown = RC_UNKNOWN_END,
    .kappa = rci_mj_kappa,
    .free_coef = rci_mj_free_coef,
    .every_pair = 1,
    .affine = maury_affine,
    .preimpact = NULL,
    .update = rci_mj_update,
    .work_at_theta = 0,
};
