/* test_joints3.c -- joints of spatial bodies through the C API
 * (rc_joint3_create, rc_joint3_get; docs/theory/spatial.md "Joints"): a
 * spherical pendulum released from horizontal keeps its anchor and its
 * energy (MJF, theta = 1/2), no allocation inside the step, and the errors
 * with their messages; a hinge driven by rc_joint3_def.motion (Moreau--Jean
 * and gen-alpha). */
#include "rc_test.h"
#include "ricochet.h"

#include <math.h>
#include <string.h>

static rc_world *world3(double gz)
{
    rc_world_def wd = rc_default_world_def();
    wd.dim = 3;
    wd.gravity[2] = gz;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    return w;
}

static int body3(rc_world *w, double x, double y, double z)
{
    rc_body3d_def d = rc_default_body3d_def();
    d.mass = 1.0;
    for (int i = 0; i < 3; i++) d.inertia[4 * i] = 0.01;
    d.q[0] = x; d.q[1] = y; d.q[2] = z;
    int id = -1;
    if (rc_body3d_create(w, &d, &id) != RC_OK) return -1;
    return id;
}

RC_TEST(pendulum_from_horizontal)
{
    rc_world *w = world3(-9.81);
    CHECK(w != NULL);
    const int b = body3(w, 0.8, 0.0, 0.0);
    rc_joint3_def jd = rc_default_joint3_def();
    jd.body_b = b;   /* anchor at the origin, A the ground */
    int jid = -1;
    CHECK_OK(rc_joint3_create(w, &jd, &jid));
    CHECK(jid == 0 && rc_joint3_count(w) == 1);
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_MOREAU_JEAN_FREMOND;
    sd.theta = 0.5;
    sd.h = 1e-3;
    sd.solver.tol = 1e-12;
    CHECK_OK(rc_world_configure(w, &sd));
    CHECK_OK(rc_world_step(w));   /* the first two steps grow the work memory (without joints too) */
    CHECK_OK(rc_world_step(w));
    const uint64_t a0 = rc_alloc_count();
    double E0 = -1, viol = 0.0;
    for (int k = 0; k < 1000; k++) {
        CHECK_OK(rc_world_step(w));
        rc_joint3_info in;
        CHECK_OK(rc_joint3_get(w, jid, &in));
        CHECK(in.rows == 3 && in.type == RC_JOINT3_SPHERICAL);
        viol = fmax(viol, in.violation);
        double Ek, Ep;
        CHECK_OK(rc_world_energy(w, &Ek, &Ep));
        if (E0 < 0) E0 = Ek + Ep + 100.0;
        CHECK_NEAR(Ek + Ep + 100.0, E0, 1e-10);   /* MJF theta = 1/2: the joint does no work */
        rc_step_info si;
        CHECK_OK(rc_world_step_info(w, &si));
        CHECK_NEAR(si.balance, 0.0, 1e-10);        /* the audit's eq. (65) closes */
        CHECK_NEAR(si.W_J, 0.0, 1e-10);
    }
    CHECK(rc_alloc_count() == a0);
    CHECK(viol < 1e-4);
    rc_world_destroy(w);
}

/* Moreau--Jean theta = 1/2: the rows hold at v_{k+1}, the joint works
 * (u_{k+theta} = (1 - theta) H v_k): W_J is booked and the balance closes */
RC_TEST(moreau_jean_books_joint_work)
{
    rc_world *w = world3(-9.81);
    const int b = body3(w, 0.8, 0.0, 0.0);
    rc_joint3_def jd = rc_default_joint3_def();
    jd.body_b = b;
    CHECK_OK(rc_joint3_create(w, &jd, NULL));
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_MOREAU_JEAN;
    sd.theta = 0.5;
    sd.h = 1e-3;
    sd.solver.tol = 1e-12;
    CHECK_OK(rc_world_configure(w, &sd));
    double WJ = 0.0, Ek, Ep;
    CHECK_OK(rc_world_energy(w, &Ek, &Ep));
    const double E0 = Ek + Ep;
    for (int k = 0; k < 500; k++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info si;
        CHECK_OK(rc_world_step_info(w, &si));
        CHECK_NEAR(si.balance, 0.0, 1e-10);
        WJ += si.W_J;
    }
    CHECK_OK(rc_world_energy(w, &Ek, &Ep));
    CHECK(fabs(WJ) > 1e-4);                       /* it works */
    CHECK_NEAR(Ek + Ep - E0, WJ, 1e-9);           /* and that is the energy change */
    rc_world_destroy(w);
}

RC_TEST(errors)
{
    rc_world *w = world3(0.0);
    const int a = body3(w, 0, 0, 0), b = body3(w, 1, 0, 0);
    rc_joint3_def jd = rc_default_joint3_def();
    jd.body_a = a;
    jd.body_b = a;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "A and B are the same body (0)") != NULL);
    jd.body_b = b;
    jd.type = RC_JOINT3_REVOLUTE;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'axis' must be nonzero") != NULL);
    jd.type = (rc_joint3_type)9;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "unknown joint type 9") != NULL);
    jd.type = RC_JOINT3_DISTANCE;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "a distance joint needs 'anchor_b' apart from 'anchor'") != NULL);
    jd.type = RC_JOINT3_SPHERICAL;
    jd.body_b = 7;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "body B (7) must be a spatial rigid body") != NULL);
    jd.body_b = b;
    jd.anchor[1] = NAN;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "must be finite") != NULL);
    rc_joint3_info in;
    CHECK(rc_joint3_get(w, 0, &in) == RC_ERR_NOT_FOUND);
    CHECK(rc_joint3_count(w) == 0);
    rc_world_destroy(w);
    rc_world_def wd = rc_default_world_def();
    rc_world *w2 = NULL;
    CHECK_OK(rc_world_create(&wd, &w2));
    jd = rc_default_joint3_def();
    CHECK(rc_joint3_create(w2, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "need a world of dim = 3") != NULL);
    rc_world_destroy(w2);
}

/* a motion for the C API: theta = omega t (user: omega; a non-finite omega
 * gives NAN, omega = 0 an error status) */
static rc_status spin(void *user, double t, double *f, double *df)
{
    const double om = *(const double *)user;
    if (om == 0.0) return RC_ERR_CALLBACK;
    *f = om * t;
    *df = isfinite(om) ? om : NAN;
    return RC_OK;
}

/* a hinge driven through rc_joint3_def.motion under Moreau--Jean and under
 * gen-alpha: the angle follows omega t to round-off, no allocation in the
 * step, the errors of the C API */
RC_TEST(driven_hinge)
{
    for (int ga = 0; ga <= 1; ga++) {
        rc_world *w = world3(-9.81);
        CHECK(w != NULL);
        const int b = body3(w, 0.5, 0.0, 0.0);
        double om = 1.5;
        rc_joint3_def jd = rc_default_joint3_def();
        jd.type = RC_JOINT3_REVOLUTE;
        jd.body_b = b;
        jd.axis[1] = 1.0;
        jd.motion = spin;
        jd.motion_user = &om;
        int jid = -1;
        CHECK_OK(rc_joint3_create(w, &jd, &jid));
        CHECK(rc_joint3_set_motor(w, jid, 1, 1.0, 1.0) == RC_ERR_ARG);
        CHECK(strstr(rc_last_error(), "has a motion: its coordinate is prescribed, a motor cannot drive it") != NULL);
        rc_sim_def sd = rc_default_sim_def();
        sd.scheme = ga ? RC_SCHEME_GEN_ALPHA : RC_SCHEME_MOREAU_JEAN;
        sd.h = 1e-3;
        sd.solver.tol = 1e-12;
        CHECK_OK(rc_world_configure(w, &sd));
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_world_step(w));
        const uint64_t a0 = rc_alloc_count();
        double err = 0.0;
        rc_joint3_info in;
        for (int k = 0; k < 500; k++) {
            CHECK_OK(rc_world_step(w));
            CHECK_OK(rc_joint3_get(w, jid, &in));
            err = fmax(err, fabs(in.coordinate - om * rc_world_time(w)));
        }
        CHECK(rc_alloc_count() == a0);
        CHECK(in.rows == 6 && in.driven == 1);
        CHECK(err < 1e-12);
        CHECK(fabs(in.drive_force - in.impulse[5] / 1e-3) < 1e-12);
        om = NAN;   /* the rate by differences of a value that is not finite */
        CHECK(rc_world_step(w) == RC_ERR_CALLBACK);
        CHECK(strstr(rc_last_error(), "its motion returned a non-finite value at t =") != NULL);
        rc_world_destroy(w);
    }
    rc_world *w = world3(0.0);
    const int b = body3(w, 1.0, 0.0, 0.0);
    double om = 1.0;
    rc_joint3_def jd = rc_default_joint3_def();
    jd.body_b = b;
    jd.motion = spin;
    jd.motion_user = &om;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "a spherical joint takes no 'motion'") != NULL);
    jd.motion = NULL;   /* motors: a spherical joint, a negative bound, an unknown id */
    int sid = -1;
    CHECK_OK(rc_joint3_create(w, &jd, &sid));
    CHECK(rc_joint3_set_motor(w, sid, 1, 1.0, 1.0) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "is not a revolute or prismatic joint") != NULL);
    CHECK(rc_joint3_set_motor(w, 5, 1, 1.0, 1.0) == RC_ERR_NOT_FOUND);
    jd.type = RC_JOINT3_REVOLUTE;
    jd.axis[2] = 1.0;
    int rid = -1;
    CHECK_OK(rc_joint3_create(w, &jd, &rid));
    CHECK(rc_joint3_set_motor(w, rid, 1, 1.0, -2.0) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'max_torque' must be >= 0 (got -2)") != NULL);
    CHECK_OK(rc_joint3_set_motor(w, rid, 1, 1.0, 2.0));
    jd.motion = spin;
    jd.type = RC_JOINT3_SPHERICAL;
    jd.axis[2] = 0.0;
    jd.type = RC_JOINT3_DISTANCE;
    jd.anchor_b[0] = 1.0;   /* the anchors 1 apart, the motion's length at t = 0: 0 */
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "gives the length 0 at t = 0 (it must be > 0)") != NULL);
    om = 0.0;   /* the callback's own status is passed on */
    jd.type = RC_JOINT3_REVOLUTE;
    jd.axis[2] = 1.0;
    CHECK(rc_joint3_create(w, &jd, NULL) == RC_ERR_CALLBACK);
    CHECK(rc_joint3_count(w) == 2);   /* the spherical and the motor's revolute joint only */
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(pendulum_from_horizontal), T(moreau_jean_books_joint_work), T(errors), T(driven_hinge))
