/* test_beam_joint.c -- beam joints (src/model/beam_joint.c): a flexible
 * pendulum pinned to the ground at r(0) keeps the pin at round-off and its
 * energy (gen-alpha, capobianco2021, rho_inf = 1); a beam clamped to a
 * rotating rigid hub with the angle row driven by beta(t) follows the hub and
 * the prescribed angle; the steps allocate nothing; the refused schemes and
 * definitions. */
#include "rc_test.h"

#define NMAX 40

static rc_world *world(double gy)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[0] = 0.0; wd.gravity[1] = gy;
    rc_world *w = NULL;
    return rc_world_create(&wd, &w) == RC_OK ? w : NULL;
}

static rc_sim_def ga(double h, double rho)
{
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.h = h;
    sd.gen_alpha.rho_inf = rho;
    sd.gen_alpha.variant = RC_GA_CAPOBIANCO;
    sd.solver.tol = 1e-10;
    return sd;
}

RC_TEST(pinned_flexible_pendulum)
{
    rc_world *w = world(-9.81);
    CHECK(w != NULL);
    if (!w) return;
    rc_beam_def d = rc_default_beam_def();
    d.a[0] = 0; d.a[1] = 0; d.b[0] = 0.2; d.b[1] = 0;
    d.EA = 1e5; d.EI = 2.0; d.rho = 0.71; d.elements = 2; d.degree = 2;
    d.gravity[1] = -9.81;
    int beam, jid;
    CHECK_OK(rc_beam_create(w, &d, &beam));
    rc_beam_joint_def j = rc_default_beam_joint_def();
    j.beam = beam; j.xi = 0.0; j.body = RC_GROUND; j.name = "pin";
    CHECK_OK(rc_beam_joint_create(w, &j, &jid));
    rc_sim_def sd = ga(1e-4, 1.0);
    CHECK_OK(rc_world_configure(w, &sd));
    double ek, ee, eg, E0, Emax = 0, gmax = 0, g[3], f[3];
    int rows;
    CHECK_OK(rc_beam_energy(w, beam, &ek, &ee, &eg));
    E0 = ek + ee + eg;
    uint64_t a0 = 0;
    for (int k = 0; k < 2000; k++) {
        if (k == 5) a0 = rc_alloc_count();   /* the step's arena sized: no allocation from here on */
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_beam_joint_get(w, jid, &rows, g, f));
        gmax = fmax(gmax, fmax(fabs(g[0]), fabs(g[1])));
        CHECK_OK(rc_beam_energy(w, beam, &ek, &ee, &eg));
        Emax = fmax(Emax, fabs(ek + ee + eg - E0));
    }
    CHECK(rc_alloc_count() == a0);
    double r[2];
    CHECK_OK(rc_beam_point(w, beam, 1.0, NULL, r, NULL));
    printf("  pendulum: tip (%.4f, %.4f), max |g| %.2g, max |E - E0| %.2g J of m g L = %.3g, pin force (%.3g, %.3g)\n",
           r[0], r[1], gmax, Emax, 0.71 * 0.2 * 9.81 * 0.2, f[0], f[1]);
    CHECK(rows == 2);
    CHECK(r[1] < -0.1);                    /* it swung down */
    CHECK(gmax < 1e-12);                   /* the pin at round-off */
    CHECK(Emax < 1e-4 * 0.71 * 0.2 * 9.81 * 0.2);
    rc_world_destroy(w);
}

static rc_status beta_fn(void *user, double t, double *f, double *df)
{
    (void)user;
    *f = 0.5 + 0.3 * sin(10.0 * t);
    if (df) *df = 3.0 * cos(10.0 * t);
    return RC_OK;
}

RC_TEST(driven_angle_on_a_rigid_hub)
{
    rc_world *w = world(0.0);
    CHECK(w != NULL);
    if (!w) return;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 2.0; bd.inertia = 0.05;
    bd.v[2] = 1.5;   /* spinning hub at the origin */
    int hub, beam, jid, pin;
    CHECK_OK(rc_body_create(w, &bd, &hub));
    rc_joint_def rj = rc_default_joint_def();
    rj.type = RC_JOINT_REVOLUTE; rj.body_a = RC_GROUND; rj.body_b = hub;
    CHECK_OK(rc_joint_create(w, &rj, &pin));
    /* the beam leaves the hub's point (0.1, 0) at beta(0) = 0.5 from the hub's axis (1, 0) */
    rc_beam_def d = rc_default_beam_def();
    d.a[0] = 0.1; d.a[1] = 0.0; d.b[0] = 0.1 + 0.3 * cos(0.5); d.b[1] = 0.3 * sin(0.5);
    d.EA = 1e4; d.EI = 5.0; d.rho = 0.5; d.elements = 3; d.degree = 2;
    CHECK_OK(rc_beam_create(w, &d, &beam));
    rc_beam_joint_def j = rc_default_beam_joint_def();
    j.beam = beam; j.xi = 0.0; j.body = hub; j.point[0] = 0.1; j.angle = 1; j.motion = beta_fn;
    CHECK_OK(rc_beam_joint_create(w, &j, &jid));
    rc_sim_def sd = rc_default_sim_def();
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "beam joints (rc_beam_joint_create) are integrated by gen-alpha") != NULL);
    sd = ga(1e-4, 0.0);
    sd.gen_alpha.variant = RC_GA_BRULS;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    sd = ga(1e-4, 0.0);
    CHECK_OK(rc_world_configure(w, &sd));
    double gmax = 0, g[3], q[3], v[3], dr[2];
    for (int k = 0; k < 1000; k++) {
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_beam_joint_get(w, jid, NULL, g, NULL));
        for (int r = 0; r < 3; r++) gmax = fmax(gmax, fabs(g[r]));
    }
    CHECK_OK(rc_body_get_state(w, hub, q, v));
    CHECK_OK(rc_beam_point(w, beam, 0.0, NULL, NULL, dr));
    const double t = 0.1, want = q[2] + 0.5 + 0.3 * sin(10.0 * t);
    printf("  hub: theta %.5f, tangent angle %.6f (want %.6f), max |g| %.2g\n", q[2], atan2(dr[1], dr[0]), want, gmax);
    CHECK_NEAR(atan2(dr[1], dr[0]), want, 1e-9);
    CHECK(gmax < 1e-9);
    CHECK(fabs(q[2] - 0.15) > 1e-3);   /* the driven beam's reaction changed the hub's spin */
    rc_world_destroy(w);
}

RC_TEST(bad_beam_joints_are_refused)
{
    rc_world *w = world(0.0);
    CHECK(w != NULL);
    if (!w) return;
    rc_body_def bd = rc_default_body_def();
    int rigid, beam, id;
    CHECK_OK(rc_body_create(w, &bd, &rigid));
    rc_beam_def d = rc_default_beam_def();
    CHECK_OK(rc_beam_create(w, &d, &beam));
    rc_beam_joint_def j = rc_default_beam_joint_def();
    j.beam = rigid; j.name = "knee";
    CHECK(rc_beam_joint_create(w, &j, &id) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "beam joint 'knee': 'beam' must be a beam (rc_beam_create; got body 0)") != NULL);
    j.beam = beam; j.xi = 1.5;
    CHECK(rc_beam_joint_create(w, &j, &id) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'xi' must be in [0, 1] (got 1.5)") != NULL);
    j.xi = 0; j.body = beam;
    CHECK(rc_beam_joint_create(w, &j, &id) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'body' must be a planar rigid body or the ground") != NULL);
    CHECK(rc_beam_joint_get(w, 7, NULL, NULL, NULL) == RC_ERR_NOT_FOUND);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(pinned_flexible_pendulum), T(driven_angle_on_a_rigid_hub), T(bad_beam_joints_are_refused))
