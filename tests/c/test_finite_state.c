/* test_finite_state.c -- a step never leaves a non-finite state silently: one
 * that would (an overflow after the solver) fails with RC_ERR_NUMERIC, names
 * the body and the coordinate, and leaves the state as it was. Found by the
 * Lua API fuzzer (tests/fuzz, case 1050: sim:step returned success with
 * v = inf; that scene, through a joint's projection, is in
 * tests/spec/finite_state_spec.lua). */
#include "rc_test.h"

static rc_world *world_with_body(const double q[3], const double v[3], const char *name, int *id)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.name = name;
    bd.mass = 1.0;
    bd.inertia = 1.0;
    for (int i = 0; i < 3; i++) { bd.q[i] = q[i]; bd.v[i] = v[i]; }
    if (rc_body_create(w, &bd, id) != RC_OK) { rc_world_destroy(w); return NULL; }
    return w;
}

/* One step that would overflow: refused with RC_ERR_NUMERIC naming the body
 * and the coordinate, the state, time and step count unchanged; under both
 * update paths (in place for plain rigid bodies; from a copy when something
 * after the update may fail, here work_check = "error"). */
static void check_refused(int *failed, const double q0[3], const double v0[3], const double f[3], int pin,
                          rc_scheme scheme, double theta, double h, const char *coord)
{
    for (int keep = 0; keep < 2; keep++) {
        int id = -1;
        rc_world *w = world_with_body(q0, v0, "probe", &id);
        CHECK(w != NULL);
        if (!w) return;
        CHECK_OK(rc_body_set_force(w, id, f));
        if (pin) {   /* a revolute joint to the ground at the centre of mass */
            rc_joint_def jd = rc_default_joint_def();
            jd.type = RC_JOINT_REVOLUTE;
            jd.body_a = RC_GROUND;
            jd.body_b = id;
            jd.point_a[0] = q0[0];
            jd.point_a[1] = q0[1];
            int jid = -1;
            CHECK_OK(rc_joint_create(w, &jd, &jid));
        }
        rc_sim_def sd = rc_default_sim_def();
        sd.scheme = scheme;
        sd.theta = theta;
        sd.h = h;
        if (keep) sd.work_check = RC_WORK_ERROR;
        CHECK_OK(rc_world_configure(w, &sd));
        for (int k = 0; k < 2; k++) {   /* and again: nothing moved */
            rc_status s = rc_world_step(w);
            CHECK(s == RC_ERR_NUMERIC);
            CHECK(strstr(rc_last_error(), "step diverged") != NULL);
            CHECK(strstr(rc_last_error(), "probe") != NULL);
            CHECK(strstr(rc_last_error(), coord) != NULL);
            if (s != RC_ERR_NUMERIC || !strstr(rc_last_error(), coord) || !strstr(rc_last_error(), "step diverged"))
                fprintf(stderr, "  (keep = %d) %s: %s\n", keep, rc_status_name(s), rc_last_error());
            double q[3], v[3];
            CHECK_OK(rc_body_get_state(w, id, q, v));
            for (int i = 0; i < 3; i++) { CHECK(q[i] == q0[i]); CHECK(v[i] == v0[i]); }
            CHECK(rc_world_step_count(w) == 0);
            CHECK(rc_world_time(w) == 0.0);
        }
        rc_world_destroy(w);
    }
}

/* q_{k+1} = q_k + h v_{k+theta} overflows (v finite) */
RC_TEST(overflow_of_q_is_refused)
{
    const double q0[3] = { 1.5e308, 0.0, 0.0 }, v0[3] = { 1.5e308, 0.0, 2.0 }, f[3] = { 0.0, 0.0, 0.0 };
    check_refused(failed, q0, v0, f, 0, RC_SCHEME_MOREAU_JEAN, 0.5, 1.0, "q[1]");
}

RC_TEST_MAIN(T(overflow_of_q_is_refused))
