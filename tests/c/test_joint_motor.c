/* test_joint_motor.c -- joint motors and limits through the public C API
 * (rc_joint_set_motor, rc_joint_set_limits): a saturated motor's analytic
 * acceleration, its work in the step's balance, a limit holding a pendulum,
 * no allocation in those steps, and the exact error messages. */
#include "rc_test.h"

static rc_world *world(double gy)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = gy;
    rc_world *w = NULL;
    return rc_world_create(&wd, &w) == RC_OK ? w : NULL;
}

static int body(rc_world *w, double m, double J, double x, double y)
{
    rc_body_def bd = rc_default_body_def();
    bd.mass = m; bd.inertia = J;
    bd.q[0] = x; bd.q[1] = y;
    int id = -1;
    rc_body_create(w, &bd, &id);
    return id;
}

static int pin(rc_world *w, int b, double x, double y, const char *name)
{
    rc_joint_def jd = rc_default_joint_def();
    jd.body_b = b;
    jd.point_a[0] = x; jd.point_a[1] = y;   /* the ground's point; B's: its centre offset */
    jd.name = name;
    int id = -1;
    rc_joint_create(w, &jd, &id);
    return id;
}

static rc_status configure(rc_world *w, double h)
{
    rc_sim_def sd = rc_default_sim_def();
    sd.h = h;
    sd.solver.tol = 1e-13;
    return rc_world_configure(w, &sd);
}

/* omega(t) = tau t / I exactly while saturated, W_motor = 1/2 I omega^2 */
RC_TEST(saturated_motor_accelerates_at_tau_over_I)
{
    rc_world *w = world(0.0);
    int b = body(w, 2.0, 0.5, 0.0, 0.0);
    int j = pin(w, b, 0.0, 0.0, "axle");
    CHECK_OK(rc_joint_set_motor(w, j, 1, 10.0, 0.25));
    CHECK_OK(configure(w, 1e-3));
    CHECK_OK(rc_world_step(w));   /* the first step spills its work memory, */
    CHECK_OK(rc_world_step(w));   /* the second sizes the arena */
    uint64_t a = rc_alloc_count();
    double worst = 0.0;
    for (int k = 2; k < 1000; k++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        worst = fmax(worst, fabs(in.balance));
    }
    CHECK(rc_alloc_count() == a);
    double q[3], v[3];
    CHECK_OK(rc_body_get_state(w, b, q, v));
    CHECK_NEAR(v[2], 0.25 * 1.0 / 0.5, 1e-12);
    rc_step_info in;
    CHECK_OK(rc_world_step_info(w, &in));
    CHECK_NEAR(in.W_motor_total, 0.5 * 0.5 * v[2] * v[2], 1e-12);
    CHECK(worst < 1e-14);
    rc_joint_info ji;
    CHECK_OK(rc_joint_get(w, j, &ji));
    CHECK_NEAR(ji.motor_force, 0.25, 1e-12);
    CHECK_NEAR(ji.rate, v[2], 0.0);
    rc_world_destroy(w);
}

/* a hanging rod pushed against an upper limit by a constant torque: the limit
 * takes the torque (statics), the angle stays at the bound */
RC_TEST(limit_holds_a_pushed_rod)
{
    rc_world *w = world(0.0);
    int b = body(w, 1.0, 1.0 / 12.0, 0.0, -0.5);
    rc_joint_def jd = rc_default_joint_def();
    jd.body_b = b;
    jd.point_b[1] = 0.5;
    int j = -1;
    CHECK_OK(rc_joint_create(w, &jd, &j));
    CHECK_OK(rc_joint_set_limits(w, j, 1, -INFINITY, 0.2, 0.0));
    double f[3] = { 0.0, 0.0, 2.0 };
    CHECK_OK(rc_body_set_force(w, b, f));
    CHECK_OK(configure(w, 1e-3));
    for (int k = 0; k < 2000; k++) CHECK_OK(rc_world_step(w));
    rc_joint_info ji;
    CHECK_OK(rc_joint_get(w, j, &ji));
    CHECK(ji.limit == 1);
    CHECK(fabs(ji.coordinate - 0.2) < 2e-3);
    CHECK(fabs(ji.rate) < 1e-9);
    CHECK_NEAR(ji.limit_impulse / 1e-3, -2.0, 1e-8);
    rc_world_destroy(w);
}

RC_TEST(bad_motor_and_limits)
{
    rc_world *w = world(0.0);
    int b = body(w, 1.0, 1.0, 0.0, 0.0);
    int j = pin(w, b, 0.0, 0.0, "axle");
    CHECK(rc_joint_set_motor(w, 9, 1, 1.0, 1.0) == RC_ERR_NOT_FOUND);
    CHECK(strcmp(rc_last_error(), "rc_joint_set_motor: no joint with id 9") == 0);
    CHECK(rc_joint_set_motor(w, j, 1, NAN, 1.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_joint_set_motor: 'speed' must be finite (got nan)") == 0);
    CHECK(rc_joint_set_motor(w, j, 1, 1.0, -1.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_joint_set_motor: 'max_force' must be >= 0 (got -1)") == 0);
    CHECK(rc_joint_set_limits(w, j, 1, 0.5, 0.5, 0.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_joint_set_limits: 'lower' (0.5) must be < 'upper' (0.5)") == 0);
    CHECK(rc_joint_set_limits(w, j, 1, -1.0, 1.0, 2.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_joint_set_limits: 'e' must be in [0, 1] (got 2)") == 0);
    CHECK(rc_joint_set_limits(w, j, 1, NAN, 1.0, 0.0) == RC_ERR_ARG);
    CHECK(rc_joint_set_limits(w, j, 1, -INFINITY, INFINITY, 0.0) == RC_ERR_ARG);   /* no bound at all */
    CHECK(strcmp(rc_last_error(), "rc_joint_set_limits: 'limits' needs 'lower' or 'upper' (or both)") == 0);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_DISTANCE;
    jd.body_b = body(w, 1.0, 1.0, 1.0, 0.0);
    jd.name = "rod";
    int d = -1;
    CHECK_OK(rc_joint_create(w, &jd, &d));
    CHECK(rc_joint_set_motor(w, d, 1, 1.0, 1.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_joint_set_motor: joint 'rod' is not a revolute or prismatic joint "
                                  "(motors and limits act on their coordinate)") == 0);
    CHECK(rc_joint_set_motor(NULL, 0, 1, 1.0, 1.0) == RC_ERR_ARG);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(saturated_motor_accelerates_at_tau_over_I), T(limit_holds_a_pushed_rod), T(bad_motor_and_limits))
