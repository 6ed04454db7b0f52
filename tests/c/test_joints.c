/* test_joints.c -- bilateral joints through the public C API: constraints
 * held at position and velocity level, statics, the pendulum period and
 * energy, rheonomic motion and the work of its reaction. */
#include "rc_test.h"
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static rc_world *world(double gy)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = gy;
    rc_world *w = NULL;
    return rc_world_create(&wd, &w) == RC_OK ? w : NULL;
}

static int body(rc_world *w, double m, double J, double x, double y, double th)
{
    rc_body_def bd = rc_default_body_def();
    bd.mass = m; bd.inertia = J;
    bd.q[0] = x; bd.q[1] = y; bd.q[2] = th;
    int id = -1;
    rc_body_create(w, &bd, &id);
    return id;
}

static rc_status configure(rc_world *w, rc_scheme scheme, double h)
{
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme; sd.h = h; sd.theta = 0.5;
    sd.solver.tol = 1e-13;
    sd.solver.on_fail = RC_ON_FAIL_ERROR;
    return rc_world_configure(w, &sd);
}

/* Bruls et al. 2014 section 10.2 pendulum (m = 1, J = 0.1, l = 1, g = 10):
 * q = (x, y, theta), the pivot at the origin is the body point (-l, 0). */
static rc_world *pendulum(double th0, rc_scheme scheme, double h, int *b)
{
    rc_world *w = world(-10.0);
    *b = body(w, 1.0, 0.1, cos(th0), sin(th0), th0);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_REVOLUTE;
    jd.body_a = RC_GROUND;
    jd.body_b = *b;
    jd.point_b[0] = -1.0;
    jd.name = "pivot";
    if (rc_joint_create(w, &jd, NULL) != RC_OK || configure(w, scheme, h) != RC_OK) return NULL;
    return w;
}

RC_TEST(pendulum_small_oscillation_period)
{
    /* T = 2 pi sqrt(J_O / (m g l)), J_O = J + m l^2 = 1.1 */
    const double T = 2.0 * M_PI * sqrt(1.1 / 10.0);
    for (int s = 1; s <= 2; s++) {
        int b;
        rc_world *w = pendulum(-M_PI / 2 + 0.01, (rc_scheme)s, 1e-3, &b);
        CHECK(w != NULL);
        if (!w) return;
        double prev = 0.01, tprev = 0.0, crossings[8];
        int nc = 0;
        for (int i = 0; i < 12000 && nc < 8 && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            double q[3];
            rc_body_get_state(w, b, q, NULL);
            double a = q[2] + M_PI / 2, t = rc_world_time(w);
            if ((prev > 0) != (a > 0)) crossings[nc++] = tprev + (t - tprev) * prev / (prev - a);
            prev = a;
            tprev = t;
        }
        CHECK(nc == 8);
        double period = (crossings[7] - crossings[1]) / 3.0;
        CHECK(fabs(period - T) <= 1e-3 * T);
        rc_step_info in;
        rc_world_step_info(w, &in);
        CHECK(in.joint_pos_violation <= 1e-10);
        rc_world_destroy(w);
    }
}

RC_TEST(pendulum_energy_bounded_over_100_periods)
{
    int b;
    rc_world *w = pendulum(M_PI / 12, RC_SCHEME_MOREAU_JEAN_FREMOND, 1e-3, &b);
    CHECK(w != NULL);
    if (!w) return;
    double k, p;
    rc_world_energy(w, &k, &p);
    const double E0 = k + p;
    double maxdev = 0.0, maxbal = 0.0;
    const long n = (long)(100 * 2.0 * M_PI * sqrt(1.1 / 10.0) * 1.2 / 1e-3);   /* > 100 periods at this amplitude */
    for (long i = 0; i < n && !*failed; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        maxdev = fmax(maxdev, fabs(in.E - E0));
        maxbal = fmax(maxbal, fabs(in.balance));
    }
    CHECK(maxdev <= 1e-6 * fabs(E0));
    CHECK(maxbal <= 1e-12 * fabs(E0));
    rc_run_stats st;
    rc_world_run_stats(w, &st);
    CHECK(st.max_joint_pos_violation <= 1e-10);
    rc_world_destroy(w);
}

RC_TEST(rod_pendulum_with_a_distance_joint)
{
    /* a point mass on a massless rod of length 2: T = 2 pi sqrt(l / g) for
     * small swings (the body's own rotation is free), the rod length kept */
    rc_world *w = world(-10.0);
    const double l = 2.0, a0 = 0.01;
    int b = body(w, 1.0, 0.1, l * sin(a0), -l * cos(a0), 0.0);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_DISTANCE;
    jd.body_b = b;                        /* from the ground origin to the centre */
    CHECK_OK(rc_joint_create(w, &jd, NULL));
    CHECK_OK(configure(w, RC_SCHEME_MOREAU_JEAN, 1e-3));
    double prev = a0, tprev = 0.0, cross[6];
    int nc = 0;
    for (int i = 0; i < 20000 && nc < 6 && !*failed; i++) {
        CHECK_OK(rc_world_step(w));
        double q[3];
        rc_body_get_state(w, b, q, NULL);
        CHECK_NEAR(hypot(q[0], q[1]), l, 1e-10);
        double a = atan2(q[0], -q[1]), t = rc_world_time(w);
        if ((prev > 0) != (a > 0)) cross[nc++] = tprev + (t - tprev) * prev / (prev - a);
        prev = a;
        tprev = t;
    }
    CHECK(nc == 6);
    if (nc == 6) CHECK(fabs((cross[5] - cross[1]) / 2.0 - 2.0 * M_PI * sqrt(l / 10.0)) <= 1e-3 * 2.0 * M_PI * sqrt(l / 10.0));
    rc_world_destroy(w);
}

RC_TEST(hanging_pendulum_reaction_is_statics)
{
    int b;
    rc_world *w = pendulum(-M_PI / 2, RC_SCHEME_MOREAU_JEAN, 1e-3, &b);
    CHECK(w != NULL);
    if (!w) return;
    for (int i = 0; i < 100; i++) CHECK_OK(rc_world_step(w));
    rc_joint_info ji;
    CHECK_OK(rc_joint_get(w, 0, &ji));
    CHECK(ji.rows == 2);
    CHECK_NEAR(ji.force[0], 0.0, 1e-9);
    CHECK_NEAR(ji.force[1], 10.0, 1e-9);     /* holds the weight m g */
    CHECK(fabs(ji.g[0]) <= 1e-12 && fabs(ji.g[1]) <= 1e-12);
    CHECK(fabs(ji.gdot[0]) <= 1e-9 && fabs(ji.gdot[1]) <= 1e-9);
    rc_world_destroy(w);
}

RC_TEST(prismatic_guide_on_an_incline)
{
    /* a box on a frictionless prismatic guide at 30 degrees: a = g sin a,
     * no rotation, no motion across the guide */
    const double al = M_PI / 6;
    rc_world *w = world(-10.0);
    int b = body(w, 2.0, 0.5, 0.0, 0.0, 0.3);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_PRISMATIC;
    jd.body_b = b;
    jd.axis[0] = cos(al); jd.axis[1] = sin(al);
    CHECK_OK(rc_joint_create(w, &jd, NULL));
    CHECK_OK(configure(w, RC_SCHEME_MOREAU_JEAN, 1e-3));
    for (int i = 0; i < 1000; i++) CHECK_OK(rc_world_step(w));
    double q[3], v[3];
    rc_body_get_state(w, b, q, v);
    double along = v[0] * cos(al) + v[1] * sin(al), across = -v[0] * sin(al) + v[1] * cos(al);
    CHECK_NEAR(along, -10.0 * sin(al) * 1.0, 1e-9);
    CHECK_NEAR(across, 0.0, 1e-9);
    CHECK_NEAR(q[2], 0.3, 1e-12);
    CHECK_NEAR(-q[0] * sin(al) + q[1] * cos(al), 0.0, 1e-10);
    rc_world_destroy(w);
}

RC_TEST(weld_moves_as_one_body_and_line_guide)
{
    /* two welded bodies thrown with spin keep their relative pose */
    rc_world *w = world(-10.0);
    int a = body(w, 1.0, 0.1, 0.0, 0.0, 0.0), b = body(w, 2.0, 0.2, 1.0, 0.5, 0.4);
    double va[3] = { 1.0, 2.0, 3.0 }, vb[3];
    /* a rigid motion: v_b = v_a + omega perp(x_b - x_a) */
    vb[0] = va[0] - va[2] * 0.5; vb[1] = va[1] + va[2] * 1.0; vb[2] = va[2];
    rc_body_set_state(w, a, NULL, va);
    rc_body_set_state(w, b, NULL, vb);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_WELD;
    jd.body_a = a; jd.body_b = b;
    jd.point_a[0] = 0.5; jd.point_a[1] = 0.25;                   /* the world point (0.5, 0.25) */
    jd.point_b[0] = -0.5 * cos(0.4) - 0.25 * sin(0.4);
    jd.point_b[1] = 0.5 * sin(0.4) - 0.25 * cos(0.4);
    CHECK_OK(rc_joint_create(w, &jd, NULL));
    /* a bead (body c) on a line through the ground origin at 45 degrees */
    int c = body(w, 1.0, 1.0, 0.0, 0.0, 0.0);
    rc_joint_def ld = rc_default_joint_def();
    ld.type = RC_JOINT_LINE;
    ld.body_b = c;
    ld.axis[0] = 1.0; ld.axis[1] = 1.0;
    CHECK_OK(rc_joint_create(w, &ld, NULL));
    CHECK_OK(configure(w, RC_SCHEME_MOREAU_JEAN, 1e-3));
    for (int i = 0; i < 2000 && !*failed; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        CHECK(in.joint_pos_violation <= 1e-10);
    }
    double qa[3], qb[3], qc[3], vc[3];
    rc_body_get_state(w, a, qa, NULL);
    rc_body_get_state(w, b, qb, NULL);
    rc_body_get_state(w, c, qc, vc);
    CHECK_NEAR(qb[2] - qa[2], 0.4, 1e-10);
    double d = hypot(qb[0] - qa[0], qb[1] - qa[1]);
    CHECK_NEAR(d, hypot(1.0, 0.5), 1e-10);
    CHECK_NEAR(qc[0], qc[1], 1e-10);                                  /* on the line */
    CHECK_NEAR((vc[0] + vc[1]) / sqrt(2.0), -10.0 * sin(M_PI / 4) * 2.0, 1e-8);   /* a = g sin 45 */
    rc_world_destroy(w);
}

static rc_status sine(void *user, double t, double *f, double *df)
{
    (void)user;
    *f = 0.3 * sin(2.0 * t);
    *df = 0.6 * cos(2.0 * t);
    return RC_OK;
}

RC_TEST(prescribed_motion_and_its_work)
{
    /* x(t) = 0.3 sin 2t imposed on a free body (no gravity): the body follows,
     * and the reaction's work W_J is the kinetic energy it gives */
    for (int s = 1; s <= 2; s++) {
        rc_world *w = world(0.0);
        int b = body(w, 2.0, 1.0, 0.0, 0.0, 0.0);
        double v0[3] = { 0.6, 0.0, 0.0 };
        rc_body_set_state(w, b, NULL, v0);
        rc_joint_def jd = rc_default_joint_def();
        jd.type = RC_JOINT_PRESCRIBED;
        jd.body_b = b;
        jd.coord = 0;
        jd.motion = sine;
        CHECK_OK(rc_joint_create(w, &jd, NULL));
        CHECK_OK(configure(w, (rc_scheme)s, 1e-3));
        double maxerr = 0.0;
        for (int i = 0; i < 2000 && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            double q[3];
            rc_body_get_state(w, b, q, NULL);
            maxerr = fmax(maxerr, fabs(q[0] - 0.3 * sin(2.0 * rc_world_time(w))));
        }
        CHECK(maxerr <= 1e-10);
        rc_step_info in;
        rc_world_step_info(w, &in);
        double k, p;
        rc_world_energy(w, &k, &p);
        CHECK_NEAR(k - 0.5 * 2.0 * 0.36, in.W_J_total + in.W_theta_total + in.W_proj_total, 1e-12);
        CHECK(fabs(in.W_J_total) > 1e-3);
        rc_world_destroy(w);
    }
}

/* Largest pivot drift |g| of the free pendulum (no projection, no obstacle)
 * swinging from theta0 = pi/12 for 2 s with the rows at q*. */
static double pendulum_drift(rc_scheme scheme, double theta, rc_joint_jacobian at, double *balance)
{
    int b;
    rc_world *w = pendulum(M_PI / 12, scheme, 1e-3, &b);
    if (!w) return NAN;
    rc_sim_def sd;
    rc_world_get_sim_def(w, &sd);
    sd.theta = theta;
    sd.project_joints = 0;
    sd.joint_jacobian = at;
    double drift = NAN;
    *balance = 0.0;
    if (rc_world_configure(w, &sd) == RC_OK) {
        drift = 0.0;
        for (int i = 0; i < 2000; i++) {
            if (rc_world_step(w) != RC_OK) { drift = NAN; break; }
            rc_step_info in;
            rc_world_step_info(w, &in);
            drift = fmax(drift, in.joint_pos_violation);
            *balance = fmax(*balance, fabs(in.balance));
        }
    }
    rc_world_destroy(w);
    return drift;
}

RC_TEST(joint_rows_at_the_predicted_configuration)
{
    /* The drift per step is h^2 a (3/2 - s - theta) for Moreau--Jean and
     * h^2 a (1/2 - s) for MJF, a = (dH/dt) v, s = 0, 1/2, 1 for the rows at
     * q_k, q_k + h/2 v_k, q_k + h v_k: the paper's end-of-step rows (Bruls et
     * al. 2014 eq. 50c) drift 17x less at theta = 0.5556 (the analysis: 0.944
     * against 0.056), the midpoint cancels it for theta = 1 and for MJF. */
    const rc_scheme MJ = RC_SCHEME_MOREAU_JEAN, MJF = RC_SCHEME_MOREAU_JEAN_FREMOND;
    double bal, worst = 0.0;
    double mj_start = pendulum_drift(MJ, 1.0 / 1.8, RC_JOINT_JACOBIAN_START, &bal); worst = fmax(worst, bal);
    double mj_end = pendulum_drift(MJ, 1.0 / 1.8, RC_JOINT_JACOBIAN_END, &bal); worst = fmax(worst, bal);
    double mj_auto = pendulum_drift(MJ, 1.0 / 1.8, RC_JOINT_JACOBIAN_AUTO, &bal);
    CHECK(mj_start > 1e-3);
    CHECK(mj_end < mj_start / 10.0 && mj_end > mj_start / 30.0);
    CHECK(mj_auto == mj_end);   /* no projection: the end of the step is the default */
    double mj1_start = pendulum_drift(MJ, 1.0, RC_JOINT_JACOBIAN_START, &bal); worst = fmax(worst, bal);
    double mj1_mid = pendulum_drift(MJ, 1.0, RC_JOINT_JACOBIAN_MIDPOINT, &bal); worst = fmax(worst, bal);
    CHECK(mj1_mid < mj1_start / 50.0);
    CHECK(pendulum_drift(MJ, 1.0, RC_JOINT_JACOBIAN_AUTO, &bal) == mj1_mid);
    double f_start = pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_START, &bal); worst = fmax(worst, bal);
    double f_mid = pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_MIDPOINT, &bal); worst = fmax(worst, bal);
    double f_end = pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_END, &bal); worst = fmax(worst, bal);
    CHECK(f_mid < f_start / 100.0 && f_mid < f_end / 100.0);
    CHECK(pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_AUTO, &bal) == f_mid);
    CHECK(worst <= 1e-12);   /* eq. (65) with the joints' work W_J, whatever q* */
    /* with the projection the rows stay at q_k (they then do no work) */
    rc_sim_def sd = rc_default_sim_def();
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_START);
    sd.project_joints = 0;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_END);
    sd.joint_jacobian = RC_JOINT_JACOBIAN_START;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_START);
    sd.joint_jacobian = (rc_joint_jacobian)7;
    rc_world *w = world(0.0);
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'joint_jacobian'") != NULL);
    rc_world_destroy(w);
}

RC_TEST(no_allocation_in_steps_with_joints_and_contacts)
{
    int b;
    rc_world *w = pendulum(M_PI / 12, RC_SCHEME_MOREAU_JEAN, 1e-3, &b);
    CHECK(w != NULL);
    if (!w) return;
    rc_shape_def pt = rc_default_shape_def();      /* the Bruls obstacle x >= sqrt(2)/2 */
    pt.type = RC_SHAPE_POINT;
    CHECK_OK(rc_shape_create(w, b, &pt, NULL));
    rc_shape_def wall = rc_default_shape_def();
    wall.type = RC_SHAPE_HALFPLANE;
    wall.point[0] = sqrt(2.0) / 2.0;
    wall.normal[0] = 1.0; wall.normal[1] = 0.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &wall, NULL));
    for (int i = 0; i < 1000; i++) CHECK_OK(rc_world_step(w));   /* past the first impacts */
    uint64_t a = rc_alloc_count();
    for (int i = 0; i < 4000 && !*failed; i++) CHECK_OK(rc_world_step(w));
    CHECK(rc_alloc_count() == a);
    rc_world_destroy(w);
}

RC_TEST(bad_joints)
{
    rc_world *w = world(-10.0);
    int b = body(w, 1.0, 1.0, 0.0, 0.0, 0.0);
    rc_joint_def jd = rc_default_joint_def();
    jd.body_b = 7;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strstr(rc_last_error(), "body_b 7") != NULL);
    jd.body_b = b; jd.body_a = b;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    jd.body_a = RC_GROUND;
    jd.type = RC_JOINT_PRESCRIBED;
    jd.coord = 5;
    jd.name = "p";
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "joint 'p'") && strstr(rc_last_error(), "coord"));
    jd = rc_default_joint_def();
    jd.type = RC_JOINT_CUSTOM;
    jd.body_b = b;
    jd.rows = 4;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(pendulum_small_oscillation_period), T(pendulum_energy_bounded_over_100_periods),
             T(rod_pendulum_with_a_distance_joint), T(hanging_pendulum_reaction_is_statics), T(prismatic_guide_on_an_incline),
             T(weld_moves_as_one_body_and_line_guide), T(prescribed_motion_and_its_work),
             T(joint_rows_at_the_predicted_configuration),
             T(no_allocation_in_steps_with_joints_and_contacts), T(bad_joints))
