/* test_capi_rocking_block.c -- the rocking block of Acary & Collins-Craft
 * 2024, section 5.2, built through the public C API only (this is also the
 * embedding example of docs/c-api.md): b = l = 1, m = 1, g = 10, e = 1,
 * mu = 0.1, q0 = (0, 0.6, 0), v0 = (0, -0.2, 1), h = 1e-4, theta = 1/2. */
#include "rc_test.h"
#include <string.h>

typedef struct { double maxdE, max_balance, E0, E; long energy_increases; rc_run_stats st; } run_result;

static rc_status build(rc_world **out, rc_scheme scheme, double theta)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w;
    RC_CHECK_API(rc_world_create(&wd, &w));
    *out = w;

    rc_body_def bd = rc_default_body_def();
    bd.name = "block";
    bd.mass = 1.0;
    bd.inertia = (1.0 * 1.0 + 1.0 * 1.0) / 12.0;       /* m (b^2 + l^2) / 12 */
    bd.q[1] = 0.6;
    bd.v[1] = -0.2;
    bd.v[2] = 1.0;
    int block;
    RC_CHECK_API(rc_body_create(w, &bd, &block));

    rc_shape_def box = rc_default_shape_def();
    box.type = RC_SHAPE_POLYGON;
    box.nvert = 4;
    const double v[4][2] = { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } };
    memcpy(box.vert, v, sizeof v);
    RC_CHECK_API(rc_shape_create(w, block, &box, NULL));

    rc_shape_def floor = rc_default_shape_def();
    floor.type = RC_SHAPE_HALFPLANE;             /* y >= 0, normal (0, 1) */
    RC_CHECK_API(rc_shape_create(w, RC_GROUND, &floor, NULL));

    rc_law_def law = rc_default_law_def();
    law.e = 1.0;
    law.mu = 0.1;
    int lid;
    RC_CHECK_API(rc_law_create(w, &law, &lid));
    rc_contact_rule_def rule = rc_default_contact_rule_def();
    rule.a = RC_GROUND;
    rule.b = block;
    rule.law = lid;
    rule.name = "C";
    RC_CHECK_API(rc_contact_rule(w, &rule));

    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme;
    sd.theta = theta;
    sd.h = 1e-4;
    sd.solver.tol = 1e-10;
    sd.solver.on_fail = RC_ON_FAIL_ERROR;
    RC_CHECK_API(rc_world_configure(w, &sd));
    return RC_OK;
}

static rc_status run(rc_world *w, long steps, run_result *r)
{
    double k, p;
    RC_CHECK_API(rc_world_energy(w, &k, &p));
    r->E0 = r->E = k + p;
    r->maxdE = -1e300;
    r->max_balance = 0.0;
    r->energy_increases = 0;
    for (long i = 0; i < steps; i++) {
        RC_CHECK_API(rc_world_step(w));
        rc_step_info in;
        RC_CHECK_API(rc_world_step_info(w, &in));
        double dE = in.E - r->E;
        if (dE > r->maxdE) r->maxdE = dE;
        if (dE > 1e-12 * r->E0) r->energy_increases++;
        if (fabs(in.balance) > r->max_balance) r->max_balance = fabs(in.balance);
        r->E = in.E;
    }
    return rc_world_run_stats(w, &r->st);
}

RC_TEST(moreau_jean_balance_and_energy_creation)
{
    rc_world *w = NULL;
    run_result r;
    CHECK_OK(build(&w, RC_SCHEME_MOREAU_JEAN, 0.5));
    CHECK_OK(run(w, 10000, &r));
    CHECK(r.E0 > 6.0 && r.E0 < 7.0);                   /* 1/2 (0.04 + 1/6) + 6 */
    /* eq. (65) holds to round-off at every step */
    CHECK(r.max_balance <= 1e-12 * r.E0);
    /* Figure 5: the standard scheme creates energy at some impacts */
    CHECK(r.energy_increases > 0);
    CHECK(r.st.max_contact_work > 1e-6);
    CHECK(r.st.failures == 0);
    rc_world_destroy(w);
}

RC_TEST(fremond_never_creates_energy)
{
    rc_world *w = NULL;
    run_result r;
    CHECK_OK(build(&w, RC_SCHEME_MOREAU_JEAN_FREMOND, 0.5));
    CHECK_OK(run(w, 10000, &r));
    CHECK(r.max_balance <= 1e-12 * r.E0);
    CHECK(r.maxdE <= 1e-12 * r.E0);                    /* Proposition 1 */
    CHECK(r.st.max_contact_work <= 1e-12 * r.E0);
    CHECK(r.E < r.E0);                                 /* friction dissipated */
    rc_world_destroy(w);
}

RC_TEST(fremond_theta_one_is_moreau_jean_bit_for_bit)
{
    rc_world *a = NULL, *b = NULL;
    run_result ra, rb;
    CHECK_OK(build(&a, RC_SCHEME_MOREAU_JEAN, 1.0));
    CHECK_OK(build(&b, RC_SCHEME_MOREAU_JEAN_FREMOND, 1.0));
    CHECK_OK(run(a, 3000, &ra));
    CHECK_OK(run(b, 3000, &rb));
    double qa[3], va[3], qb[3], vb[3];
    CHECK_OK(rc_body_get_state(a, 0, qa, va));
    CHECK_OK(rc_body_get_state(b, 0, qb, vb));
    CHECK(memcmp(qa, qb, sizeof qa) == 0);
    CHECK(memcmp(va, vb, sizeof va) == 0);
    CHECK(ra.E == rb.E);
    CHECK(ra.st.max_contact_work > 0.0 || ra.st.max_contact_work == rb.st.max_contact_work);
    rc_world_destroy(a);
    rc_world_destroy(b);
}

RC_TEST_MAIN(T(moreau_jean_balance_and_energy_creation), T(fremond_never_creates_energy),
             T(fremond_theta_one_is_moreau_jean_bit_for_bit))
