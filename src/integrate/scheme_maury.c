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

static rc_status maury_check(const rc_sim_def *def, const char *what)
{
    char got[RCB_SHOW_SIZE];
    if (def->theta != 1.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'theta' must be 1 for maury (q_{k+1} = q_k + h u_{k+1}; got %s)", what,
                            rcb_show(got, def->theta));
    return RC_OK;
}

/* theta = 1: the joints' rows at the midpoint, their rates at t_{k+1/2} */
static rc_joint_jacobian maury_joint_jacobian(const rc_sim_def *def) { (void)def; return RC_JOINT_JACOBIAN_MIDPOINT; }

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
    .check = maury_check,
    .joint_jacobian = maury_joint_jacobian,
    .joint_rate_time = rci_mj_joint_rate_time,
};
