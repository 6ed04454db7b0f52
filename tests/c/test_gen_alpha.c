/* test_gen_alpha.c -- the nonsmooth generalized-alpha scheme through the C API
 * (RC_SCHEME_GEN_ALPHA): exact free fall, the settings' checks, a ball resting
 * with the static multipliers (Bruls, Acary & Cardona 2014, eq. 32a). */
#include "rc_test.h"

static rc_world *ball(double y, double vy, int ground)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 2.0; bd.inertia = 0.3;
    bd.q[0] = 1.0; bd.q[1] = y; bd.q[2] = 0.2;
    bd.v[0] = 0.7; bd.v[1] = vy; bd.v[2] = -1.5;
    int b;
    if (rc_body_create(w, &bd, &b) != RC_OK) return NULL;
    rc_shape_def sd = rc_default_shape_def();
    sd.type = RC_SHAPE_DISK; sd.radius = 0.5;
    if (rc_shape_create(w, b, &sd, NULL) != RC_OK) return NULL;
    if (ground) {
        rc_shape_def hd = rc_default_shape_def();
        hd.type = RC_SHAPE_HALFPLANE; hd.normal[1] = 1.0;
        if (rc_shape_create(w, RC_GROUND, &hd, NULL) != RC_OK) return NULL;
    }
    return w;
}

RC_TEST(free_fall_is_exact)
{
    /* a constant force: a_n = the consistent acceleration, the predictor is the solution */
    rc_world *w = ball(10.0, 3.0, 0);
    CHECK(w != NULL);
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.h = 1e-2;
    CHECK_OK(rc_world_configure(w, &sd));
    for (int i = 0; i < 137; i++) CHECK_OK(rc_world_step(w));
    double t = rc_world_time(w), q[3], v[3];
    CHECK_OK(rc_body_get_state(w, 0, q, v));
    CHECK_NEAR(q[0], 1.0 + 0.7 * t, 1e-12);
    CHECK_NEAR(q[1], 10.0 + 3.0 * t - 5.0 * t * t, 1e-11);
    CHECK_NEAR(q[2], 0.2 - 1.5 * t, 1e-12);
    CHECK_NEAR(v[1], 3.0 - 10.0 * t, 1e-12);
    rc_step_info in;
    CHECK_OK(rc_world_step_info(w, &in));
    CHECK(in.converged && in.iterations == 1 && in.residual <= 1e-13);   /* one Newton step from the predictor (40) */
    CHECK_NEAR(in.W_theta, 0.0, 1e-12);   /* no numerical dissipation of a constant force */
    CHECK(strcmp(rc_scheme_name(RC_SCHEME_GEN_ALPHA), "gen-alpha") == 0);
    rc_world_destroy(w);
}

RC_TEST(bad_settings)
{
    rc_world *w = ball(10.0, 0.0, 0);
    CHECK(w != NULL);
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.gen_alpha.rho_inf = -0.1;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'rho_inf' must be in [0, 1] (got -0.1)") != NULL);
    sd.gen_alpha.rho_inf = 0.8;
    sd.gen_alpha.direct = 1;
    sd.gen_alpha.alpha_m = 0.0; sd.gen_alpha.alpha_f = 0.5; sd.gen_alpha.beta = 0.0; sd.gen_alpha.gamma = 0.5;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'beta' must be > 0") != NULL);
    sd.gen_alpha.direct = 0;
    sd.gen_alpha.max_iter = 0;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'max_iter' must be >= 1") != NULL);
    rc_world_destroy(w);
}

RC_TEST(resting_ball_has_the_static_multipliers)
{
    rc_world *w = ball(0.5, 0.0, 1);
    CHECK(w != NULL);
    if (!w) return;
    double q[3] = { 1.0, 0.5, 0.2 }, v[3] = { 0.0, 0.0, 0.0 };
    CHECK_OK(rc_body_set_state(w, 0, q, v));
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.h = 1e-2;
    CHECK_OK(rc_world_configure(w, &sd));
    for (int i = 0; i < 20; i++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_body_get_state(w, 0, q, v));
    CHECK_NEAR(q[1], 0.5, 1e-15);
    CHECK_NEAR(v[1], 0.0, 1e-15);
    CHECK(rc_contact_count(w) == 1);
    rc_contact_info ci;
    CHECK_OK(rc_contact_get(w, 0, &ci));
    CHECK_NEAR(ci.pN, 2.0 * 10.0 * 1e-2, 1e-15);            /* Lambda = m g h */
    CHECK_NEAR(ci.nu, 2.0 * 10.0 * 1e-4 / 2.0, 1e-16);      /* nu = m g h^2 / 2 */
    CHECK_NEAR(ci.gN, 0.0, 1e-15);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(free_fall_is_exact), T(bad_settings), T(resting_ball_has_the_static_multipliers))
