/* gen_alpha_def.c -- the coefficients of the nonsmooth generalized-alpha
 * scheme (Bruls, Acary & Cardona 2014, eq. 31, after Chung & Hulbert 1993)
 * and the check of their ranges (rc_world_configure). */
#include "model/model.h"

void rcm_gen_alpha_coefs(const rc_gen_alpha_def *d, double c[4])
{
    if (d->direct) {
        c[0] = d->alpha_m; c[1] = d->alpha_f; c[2] = d->beta; c[3] = d->gamma;
        return;
    }
    const double r = d->rho_inf;
    c[0] = (2.0 * r - 1.0) / (r + 1.0);          /* alpha_m */
    c[1] = r / (r + 1.0);                        /* alpha_f */
    c[3] = 0.5 + c[1] - c[0];                    /* gamma   */
    c[2] = 0.25 * (c[3] + 0.5) * (c[3] + 0.5);   /* beta    */
}

rc_status rcm_gen_alpha_def_check(const rc_gen_alpha_def *d)
{
    if (d->variant != RC_GA_AUTO && d->variant != RC_GA_BRULS && d->variant != RC_GA_CAPOBIANCO)
        return rc_set_error(RC_ERR_ARG, "simulation: gen-alpha 'variant' must be RC_GA_AUTO, RC_GA_BRULS or RC_GA_CAPOBIANCO (got %d)",
                            (int)d->variant);
    if (d->jacobian != RC_GA_JAC_AUTO && d->jacobian != RC_GA_JAC_ANALYTIC && d->jacobian != RC_GA_JAC_DIFFERENCES)
        return rc_set_error(RC_ERR_ARG, "simulation: gen-alpha 'jacobian' must be RC_GA_JAC_AUTO, RC_GA_JAC_ANALYTIC or "
                            "RC_GA_JAC_DIFFERENCES (got %d)", (int)d->jacobian);
    if (!rcb_finite(d->prox_r) || d->prox_r < 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: gen-alpha 'prox_r' must be >= 0 (0: each contact's effective mass; got %g)", d->prox_r);
    if (d->max_iter < 1)
        return rc_set_error(RC_ERR_ARG, "simulation: gen-alpha 'max_iter' must be >= 1 (got %d)", d->max_iter);
    if (!d->direct) {
        if (!rcb_finite(d->rho_inf) || d->rho_inf < 0.0 || d->rho_inf > 1.0)
            return rc_set_error(RC_ERR_ARG, "simulation: 'rho_inf' must be in [0, 1] (got %g)", d->rho_inf);
        return RC_OK;
    }
    const double am = d->alpha_m, af = d->alpha_f, b = d->beta, g = d->gamma;
    if (!rcb_finite(am) || am >= 1.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'alpha_m' must be < 1 (got %g)", am);
    if (!rcb_finite(af) || af < 0.0 || af >= 1.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'alpha_f' must be in [0, 1) (got %g)", af);
    if (!rcb_finite(b) || b <= 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'beta' must be > 0 (got %g)", b);
    if (!rcb_finite(g) || g <= 0.0)
        return rc_set_error(RC_ERR_ARG, "simulation: 'gamma' of gen-alpha must be > 0 (got %g)", g);
    return RC_OK;
}
