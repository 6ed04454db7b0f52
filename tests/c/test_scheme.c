/* test_scheme.c -- smooth parts of the theta-scheme, without contact. */
#include "rc_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static rc_world *free_body(double theta, rc_scheme scheme, double h)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 2.0; bd.inertia = 0.3;
    bd.q[0] = 1.0; bd.q[1] = 10.0; bd.q[2] = 0.2;
    bd.v[0] = 0.7; bd.v[1] = 3.0; bd.v[2] = -1.5;
    if (rc_body_create(w, &bd, NULL) != RC_OK) return NULL;
    rc_sim_def sd = rc_default_sim_def();
    sd.theta = theta; sd.h = h; sd.scheme = scheme;
    if (rc_world_configure(w, &sd) != RC_OK) return NULL;
    return w;
}

RC_TEST(free_fall_is_exact_with_theta_half)
{
    for (int s = 1; s <= 2; s++) {
        rc_world *w = free_body(0.5, (rc_scheme)s, 1e-2);
        CHECK(w != NULL);
        if (!w) return;
        for (int i = 0; i < 137; i++) CHECK_OK(rc_world_step(w));
        double t = rc_world_time(w), q[3], v[3];
        CHECK_OK(rc_body_get_state(w, 0, q, v));
        CHECK_NEAR(t, 1.37, 1e-12);
        CHECK_NEAR(q[0], 1.0 + 0.7 * t, 1e-12);
        CHECK_NEAR(q[1], 10.0 + 3.0 * t - 0.5 * 9.81 * t * t, 1e-11);
        CHECK_NEAR(q[2], 0.2 - 1.5 * t, 1e-12);
        CHECK_NEAR(v[1], 3.0 - 9.81 * t, 1e-12);
        rc_step_info in;
        CHECK_OK(rc_world_step_info(w, &in));
        CHECK(fabs(in.balance) < 1e-12 * fabs(in.E));
        rc_world_destroy(w);
    }
}

RC_TEST(theta_one_dissipates_numerically)
{
    /* theta = 1: W_theta = (1/2 - theta)|dv|^2_M < 0 each step, and the energy
     * balance eq. (65) still closes */
    rc_world *w = free_body(1.0, RC_SCHEME_MOREAU_JEAN, 1e-2);
    CHECK(w != NULL);
    if (!w) return;
    for (int i = 0; i < 50; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        CHECK_OK(rc_world_step_info(w, &in));
        CHECK_NEAR(in.W_theta, -0.5 * 2.0 * (9.81e-2) * (9.81e-2), 1e-12);
        CHECK(fabs(in.balance) < 1e-12 * fabs(in.E));
    }
    rc_world_destroy(w);
}

RC_TEST(no_allocation_in_a_step)
{
    rc_world *w = free_body(0.5, RC_SCHEME_MOREAU_JEAN, 1e-3);
    CHECK(w != NULL);
    if (!w) return;
    /* the first step's work memory spills; the second's start sizes the arena */
    CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_world_step(w));
    uint64_t a = rc_alloc_count();
    for (int i = 0; i < 100; i++) CHECK_OK(rc_world_step(w));
    CHECK(rc_alloc_count() == a);
    rc_world_destroy(w);
}

RC_TEST(bad_configuration)
{
    rc_world *w = free_body(0.5, RC_SCHEME_MOREAU_JEAN, 1e-3);
    CHECK(w != NULL);
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.theta = 1.5;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "theta") != NULL);
    sd = rc_default_sim_def();
    sd.h = 0.0 / 0.0;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'h'") != NULL);
    sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_MOREAU_JEAN_FREMOND;
    sd.theta = 0.0;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    rc_body_def bd = rc_default_body_def();
    bd.mass = -1.0;
    CHECK(rc_body_create(w, &bd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "mass") != NULL);
    rc_shape_def star = rc_default_shape_def();     /* a pentagram turns left at every vertex */
    star.type = RC_SHAPE_POLYGON;
    star.nvert = 5;
    for (int i = 0; i < 5; i++) {
        star.vert[i][0] = cos(2 * M_PI * 2 * i / 5);
        star.vert[i][1] = sin(2 * M_PI * 2 * i / 5);
    }
    CHECK(rc_shape_create(w, 0, &star, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "simple convex") != NULL);
    bd = rc_default_body_def();
    bd.v[0] = 1.0 / 0.0;
    CHECK(rc_body_create(w, &bd, NULL) == RC_ERR_ARG);
    rc_world_destroy(w);
}

RC_TEST(interrupt_leaves_state_untouched)
{
    rc_world *w = free_body(0.5, RC_SCHEME_MOREAU_JEAN, 1e-3);
    CHECK(w != NULL);
    if (!w) return;
    double q0[3], q1[3];
    CHECK_OK(rc_body_get_state(w, 0, q0, NULL));
    rc_request_interrupt();
    CHECK(rc_world_step(w) == RC_ERR_INTERRUPTED);
    rc_clear_interrupt();
    CHECK_OK(rc_body_get_state(w, 0, q1, NULL));
    CHECK(q0[0] == q1[0] && q0[1] == q1[1] && q0[2] == q1[2]);
    CHECK(rc_world_step_count(w) == 0);
    rc_world_destroy(w);
}

static char warned[512];
static void capture(void *user, const char *msg) { (void)user; snprintf(warned, sizeof warned, "%s", msg); }

RC_TEST(initial_overlap_is_reported_with_the_bodies)
{
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    rc_world_set_warning_fn(w, capture, NULL);
    rc_body_def bd = rc_default_body_def();
    bd.name = "left";
    int a, b;
    CHECK_OK(rc_body_create(w, &bd, &a));
    bd.name = "right";
    bd.q[0] = 0.9;
    CHECK_OK(rc_body_create(w, &bd, &b));
    rc_shape_def d = rc_default_shape_def();   /* disks of radius 0.5 */
    CHECK_OK(rc_shape_create(w, a, &d, NULL));
    CHECK_OK(rc_shape_create(w, b, &d, NULL));
    rc_sim_def sd = rc_default_sim_def();
    CHECK_OK(rc_world_configure(w, &sd));
    warned[0] = 0;
    CHECK_OK(rc_world_step(w));
    CHECK(strstr(warned, "initial overlap: left and right overlap by 0.1") != NULL);
    warned[0] = 0;
    CHECK_OK(rc_world_step(w));                 /* only at the start */
    CHECK(warned[0] == 0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(free_fall_is_exact_with_theta_half), T(theta_one_dissipates_numerically),
             T(no_allocation_in_a_step), T(bad_configuration), T(interrupt_leaves_state_untouched),
             T(initial_overlap_is_reported_with_the_bodies))
