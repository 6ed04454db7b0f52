/* test_joint_break.c -- joints that break (src/model/joint_break.c): a
 * pendulum released horizontally on a revolute joint pulls on it with
 * m (g + v^2 / L) at the bottom (3 m g for a point bob); with break_force =
 * 2.5 m g the joint breaks after exactly the step whose reaction first
 * exceeds the limit (the same run without a limit gives the reactions), is
 * reported once with that reaction, and the bob then flies on the parabola
 * x = x_k + vx t, y = y_k + vy t - g t^2 / 2 (exact for theta = 1/2); with
 * break_force = 3.5 m g it never breaks. Bad limits are refused. */
#include "rc_test.h"

#include <math.h>
#include <string.h>

#define G 9.81
#define L 1.0
#define M 2.0
#define NSTEPS 1500

/* a bob (almost a point: J = 1e-6) at (L, 0) on a revolute joint at the origin */
static rc_world *pendulum(double break_force, int *joint, int *bob)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -G;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.mass = M;
    bd.inertia = 1e-6;
    bd.q[0] = L;
    if (rc_body_create(w, &bd, bob) != RC_OK) return NULL;
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_REVOLUTE;
    jd.body_a = RC_GROUND;
    jd.body_b = *bob;
    jd.point_b[0] = -L;
    jd.name = "pivot";
    jd.break_force = break_force;
    if (rc_joint_create(w, &jd, joint) != RC_OK) return NULL;
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    if (rc_world_configure(w, &sd) != RC_OK) return NULL;
    return w;
}

static double reaction(const rc_world *w, int j)
{
    rc_joint_info ji;
    if (rc_joint_get(w, j, &ji) != RC_OK) return NAN;
    return hypot(ji.force[0], ji.force[1]);
}

RC_TEST(a_pendulum_breaks_at_the_first_step_over_the_limit_and_flies_on_a_parabola)
{
    const double limit = 2.5 * M * G;
    int j, bob, jr, bobr;
    rc_world *ref = pendulum(INFINITY, &jr, &bobr);   /* the reactions, unbroken */
    rc_world *w = pendulum(limit, &j, &bob);
    CHECK(ref && w);
    if (!ref || !w) return;
    int k_over = -1, k_broken = -1;
    double f_over = 0.0, fmax = 0.0, q[3], v[3], qk[3], vk[3];
    for (int k = 0; k < 800; k++) {   /* the bottom at t = 0.59 s */
        CHECK_OK(rc_world_step(ref));
        const double f = reaction(ref, jr);
        if (f > fmax) fmax = f;
        if (k_over < 0 && f > limit) { k_over = k; f_over = f; }
        if (k_broken < 0) {
            CHECK_OK(rc_world_step(w));
            const rc_joint_break *list;
            int n;
            CHECK_OK(rc_world_broken_joints(w, &list, &n));
            if (rc_joint_is_removed(w, j)) {
                k_broken = k;
                CHECK(n == 1 && list[0].joint == j && list[0].body_b == bob);
                CHECK(n == 1 && list[0].force == f && list[0].t == rc_world_time(w) && strcmp(list[0].name, "pivot") == 0);
                CHECK_OK(rc_body_get_state(w, bob, qk, vk));
            } else {
                CHECK(n == 0);
                CHECK(reaction(w, j) == f);   /* the same run until then */
            }
        }
    }
    /* the reaction at the bottom: m (g + v^2 / L) = 3 m g, v^2 = 2 g L */
    CHECK_NEAR(fmax, 3.0 * M * G, 0.01 * 3.0 * M * G);   /* 58.63 N for 58.86: 0.4 % (h = 1 ms) */
    CHECK(k_over > 0 && k_broken == k_over);
    CHECK(f_over > limit);
    /* the log: one break */
    const rc_joint_break *log;
    int nlog;
    long total;
    CHECK_OK(rc_world_break_log(w, &log, &nlog, &total));
    CHECK(nlog == 1 && total == 1 && log[0].joint == j);
    /* free flight: a parabola from the state at the break (theta = 1/2 integrates it exactly) */
    CHECK(vk[1] < 0.0 && vk[0] < 0.0);   /* on its way down and to the left, before the bottom */
    const int n = 300;
    for (int i = 0; i < n; i++) {
        CHECK_OK(rc_world_step(w));
        const rc_joint_break *list;
        int nb;
        CHECK_OK(rc_world_broken_joints(w, &list, &nb));
        CHECK(nb == 0);   /* reported after its step only */
    }
    CHECK_OK(rc_body_get_state(w, bob, q, v));
    const double t = n * 1e-3;
    CHECK_NEAR(q[0], qk[0] + vk[0] * t, 1e-12);
    CHECK_NEAR(q[1], qk[1] + vk[1] * t - 0.5 * G * t * t, 1e-12);
    CHECK_NEAR(v[0], vk[0], 1e-12);
    CHECK_NEAR(v[1], vk[1] - G * t, 1e-12);
    CHECK(hypot(q[0], q[1]) > 1.2 * L);   /* gone beyond the joint's reach */
    rc_world_destroy(ref);
    rc_world_destroy(w);
}

RC_TEST(a_joint_with_a_larger_limit_never_breaks)
{
    int j, bob;
    rc_world *w = pendulum(3.5 * M * G, &j, &bob);
    CHECK(w != NULL);
    if (!w) return;
    double fmax = 0.0;
    for (int k = 0; k < NSTEPS; k++) {   /* 1.5 s: the bottom passed twice */
        CHECK_OK(rc_world_step(w));
        const rc_joint_break *list;
        int n;
        CHECK_OK(rc_world_broken_joints(w, &list, &n));
        CHECK(n == 0);
        const double f = reaction(w, j);
        if (f > fmax) fmax = f;
    }
    CHECK(!rc_joint_is_removed(w, j));
    CHECK(fmax > 2.9 * M * G);
    rc_world_destroy(w);
}

RC_TEST(bad_break_limits_are_refused)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    rc_body_def bd = rc_default_body_def();
    int b;
    CHECK_OK(rc_body_create(w, &bd, &b));
    rc_joint_def jd = rc_default_joint_def();
    jd.body_b = b;
    jd.name = "j";
    jd.break_force = -1.0;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "joint 'j': 'break_force' must be > 0 (got -1; INFINITY or 0: never breaks)") == 0);
    jd.break_force = NAN;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    jd.break_force = INFINITY;
    jd.break_torque = 0.0;   /* a zeroed field: no limit */
    CHECK_OK(rc_joint_create(w, &jd, NULL));
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(a_pendulum_breaks_at_the_first_step_over_the_limit_and_flies_on_a_parabola),
             T(a_joint_with_a_larger_limit_never_breaks),
             T(bad_break_limits_are_refused))
