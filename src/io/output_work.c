/* output_work.c -- the history columns of a world with a finite-element body
 * (output.c): the step's largest positive and smallest negative tangential
 * work u_{T,k+theta} p_T of a contact (Acary & Collins-Craft 2024, Figs 9-10
 * (c), (d)) and the cumulative dissipation W_N + W_T + W_damp + W_theta, so
 * that E - E0 = W_ext + W_J + W_proj + dissipation (Figs 9-10 (b)). */
#include "io/output_impl.h"

const char *const rco_work_cols[3] = { "WT_max_pos", "WT_min_neg", "dissipation" };

double *rco_work_row(rc_world *w, double *x)
{
    rc_step_info info;
    double a[3] = { 0.0, 0.0, 0.0 };   /* before the first step: 0 */
    if (rc_world_step_count(w) > 0 && rc_world_step_info(w, &info) == RC_OK) {
        a[0] = info.WT_max_pos;
        a[1] = info.WT_min_neg;
        a[2] = info.W_N_total + info.W_T_total + info.W_damp_total + info.W_theta_total;
    }
    for (int i = 0; i < 3; i++) *x++ = a[i];
    return x;
}
