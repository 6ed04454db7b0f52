/* test_index_set.c -- which contacts enter the one-step problem: the
 * anticipating index set of Siconos's MoreauJeanOSI, eq. (64), and the
 * persistence of contacts that carried an impulse (docs/theory/moreau-jean.md). */
#include "rc_test.h"

/* A disk of radius 0.1 and mass 1 above the half-plane y >= 0, g = -10. */
static rc_world *disk_world(double y, double vy, double e, rc_scheme scheme, double theta, double h,
                            rc_activation act, double persist_tol, int *body)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1.0;
    bd.inertia = 0.005;
    bd.q[1] = y;
    bd.v[1] = vy;
    rc_shape_def disk = rc_default_shape_def();
    disk.type = RC_SHAPE_DISK;
    disk.radius = 0.1;
    rc_shape_def floor = rc_default_shape_def();
    floor.type = RC_SHAPE_HALFPLANE;
    rc_law_def law = rc_default_law_def();
    law.e = e;
    int lid;
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme;
    sd.theta = theta;
    sd.h = h;
    sd.activation = act;
    sd.persist_tol = persist_tol;
    sd.solver.tol = 1e-14;
    sd.solver.on_fail = RC_ON_FAIL_ERROR;
    rc_contact_rule_def rule = rc_default_contact_rule_def();
    if (rc_body_create(w, &bd, body) != RC_OK || rc_shape_create(w, *body, &disk, NULL) != RC_OK
        || rc_shape_create(w, RC_GROUND, &floor, NULL) != RC_OK || rc_law_create(w, &law, &lid) != RC_OK) {
        rc_world_destroy(w);
        return NULL;
    }
    rule.a = RC_GROUND; rule.b = *body; rule.law = lid; rule.name = "C";
    if (rc_contact_rule(w, &rule) != RC_OK || rc_world_configure(w, &sd) != RC_OK) {
        rc_world_destroy(w);
        return NULL;
    }
    return w;
}

static double height(rc_world *w, int b)
{
    double q[3];
    rc_body_get_state(w, b, q, NULL);
    return q[1];
}

RC_TEST(anticipation_keeps_an_overlapping_contact_with_roundoff_velocity)
{
    /* Siconos's MoreauJeanOSI activates on g + gamma h u_N,k <= 0 alone: a
     * contact overlapping by 1e-6 whose normal velocity is +1e-16 (round-off)
     * stays in the index set and the disk stays where it is. With the extra
     * condition u_N,k <= 0 it was dropped: free fall for a step, y - R went
     * -1e-6 -> -5.9e-6 -> -1.1e-5. */
    int b;
    rc_world *w = disk_world(0.1 - 1e-6, 1e-16, 0.0, RC_SCHEME_MOREAU_JEAN, 0.5, 1e-3,
                             RC_ACTIVATE_ANTICIPATE, 1e-9, &b);
    CHECK(w != NULL);
    if (!w) return;
    for (int i = 0; i < 3; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        CHECK(in.nactive == 1);
        CHECK_NEAR(height(w, b) - 0.1, -1e-6, 1e-12);
    }
    rc_world_destroy(w);
    /* eq. (64) (activation "gap") needs u_N,k <= 0 and drops it: the overlap grows */
    w = disk_world(0.1 - 1e-6, 1e-16, 0.0, RC_SCHEME_MOREAU_JEAN, 0.5, 1e-3, RC_ACTIVATE_GAP, 0.0, &b);
    CHECK(w != NULL);
    if (!w) return;
    CHECK_OK(rc_world_step(w));
    CHECK(height(w, b) - 0.1 < -5e-6);
    rc_world_destroy(w);
}

RC_TEST(anticipation_reaches_beyond_the_contact_margin)
{
    /* A point falling at 10 m/s with h = 0.005 (no gravity), 0.02 above the
     * floor: g + h u / 2 = 0.02 - 0.025 <= 0, so the anticipating index set
     * takes the impact in this step, although the gap exceeds the default
     * contact margin 0.01: detection reaches gamma h |u|. Newton e = 0.5:
     * v = +5, y = 0.02 + h (-10 + 5) / 2 = 0.0075 (Moreau--Jean, theta = 1/2). */
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    rc_body_def bd = rc_default_body_def();
    bd.q[1] = 0.02;
    bd.v[1] = -10.0;
    int b;
    CHECK_OK(rc_body_create(w, &bd, &b));
    rc_shape_def pt = rc_default_shape_def();
    pt.type = RC_SHAPE_POINT;
    CHECK_OK(rc_shape_create(w, b, &pt, NULL));
    rc_shape_def floor = rc_default_shape_def();
    floor.type = RC_SHAPE_HALFPLANE;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &floor, NULL));
    rc_law_def law = rc_default_law_def();
    law.e = 0.5;
    int lid;
    CHECK_OK(rc_law_create(w, &law, &lid));
    CHECK_OK(rc_world_set_default_law(w, lid));
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 0.005;
    sd.activation = RC_ACTIVATE_ANTICIPATE;
    CHECK_OK(rc_world_configure(w, &sd));
    CHECK_OK(rc_world_step(w));
    double q[3], v[3];
    rc_body_get_state(w, b, q, v);
    CHECK_NEAR(v[1], 5.0, 1e-12);
    CHECK_NEAR(q[1], 0.0075, 1e-15);
    rc_world_destroy(w);
}

static double energy(rc_world *w)
{
    double k, p;
    rc_world_energy(w, &k, &p);
    return k + p;
}

RC_TEST(a_persisting_contact_does_no_work_against_its_separation)
{
    /* Issue 11: a disk 1e-4 into the floor (y = 0.0999), Newton e = 0.5, MJF
     * theta = 1/2, h = 1e-3, persist_tol = 0: one step (the contact takes the
     * weight), then v = (0, 0.004, 0): separating but still overlapping, the
     * contact carried an impulse and stays in the index set (persistence under
     * eq. (64), the anticipation rule itself under "anticipate"). With Newton's
     * shift on the separating velocity it pushed the disk into the floor
     * (u+ = -e u-, p_N > 0) and the energy rose by 3.8e-6 J; no impulse may do
     * work against a separation: W_N = u_{k+theta} p_N <= 0, E does not rise. */
    for (int a = 0; a < 2; a++) {
        int b;
        rc_world *w = disk_world(0.0999, 0.0, 0.5, RC_SCHEME_MOREAU_JEAN_FREMOND, 0.5, 1e-3,
                                 a ? RC_ACTIVATE_ANTICIPATE : RC_ACTIVATE_GAP, 0.0, &b);
        CHECK(w != NULL);
        if (!w) return;
        CHECK_OK(rc_world_step(w));
        double v[3] = { 0.0, 0.004, 0.0 };
        CHECK_OK(rc_body_set_state(w, b, NULL, v));
        const double E0 = energy(w);
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        CHECK(in.nactive == 1);                  /* it stays in the index set ... */
        CHECK(in.W_N <= 1e-18);                  /* ... and does no work */
        CHECK(energy(w) - E0 <= 1e-15);
        double q[3];
        rc_body_get_state(w, b, q, NULL);
        CHECK(q[1] >= 0.0999 - 1e-15);           /* not pushed into the floor */
        rc_world_destroy(w);
    }
}

RC_TEST(bouncing_ball_accumulation_never_gains_energy_under_mjf)
{
    /* MJF, theta = 1/2, e = 0.5 (theta (1 + e) <= 1: Proposition 1): a disk
     * dropped from 0.3 m bounces, accumulates (t ~ 1.2 s) and rests; at every
     * step W_N <= 0 and E_{k+1} <= E_k, whatever the index set. Before, a
     * contact persisting while separating near the accumulation took
     * +1e-5 J per step. */
    for (int a = 0; a < 2; a++) {
        int b;
        rc_world *w = disk_world(0.4, 0.0, 0.5, RC_SCHEME_MOREAU_JEAN_FREMOND, 0.5, 1e-3,
                                 a ? RC_ACTIVATE_ANTICIPATE : RC_ACTIVATE_GAP, 1e-9, &b);
        CHECK(w != NULL);
        if (!w) return;
        double E = energy(w), worstW = -1.0, worstdE = -1.0;
        long contact_steps = 0;
        for (int i = 0; i < 3000 && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            rc_step_info in;
            rc_world_step_info(w, &in);
            if (in.nactive) contact_steps++;
            worstW = fmax(worstW, in.W_N);
            worstdE = fmax(worstdE, in.E - E);
            E = in.E;
        }
        CHECK(contact_steps > 1000);             /* at rest on the floor at the end */
        CHECK(worstW <= 1e-15);
        CHECK(worstdE <= 1e-15);
        double q[3], v[3];
        rc_body_get_state(w, b, q, v);
        CHECK(fabs(v[1]) <= 1e-9);
        rc_world_destroy(w);
    }
}

RC_TEST_MAIN(T(anticipation_keeps_an_overlapping_contact_with_roundoff_velocity),
             T(anticipation_reaches_beyond_the_contact_margin),
             T(a_persisting_contact_does_no_work_against_its_separation),
             T(bouncing_ball_accumulation_never_gains_energy_under_mjf))
