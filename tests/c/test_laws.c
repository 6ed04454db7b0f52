/* test_laws.c -- impact laws and the law interface, through the public C API:
 * Moreau's law with tangential restitution (eq. 58) against hand-computed
 * single impacts, Fremond as its e_t = 1 case, Corollary 1 (energy
 * conservation of MJF), and a custom law solved by the generic local solver
 * against the same law built in. */
#include "rc_test.h"
#include <string.h>

/* A point mass (point contactor at the centre of mass: no rotation coupling)
 * hitting the floor with u- = (uN, uT) = (-1, 1), no gravity. */
static rc_status single_impact(rc_law_def law, rc_scheme scheme, double *v_after, double *p)
{
    rc_world *w;
    rc_world_def wd = rc_default_world_def();
    RC_CHECK_API(rc_world_create(&wd, &w));
    rc_body_def bd = rc_default_body_def();
    bd.q[1] = -1e-12;          /* touching: the first step is the impact */
    bd.v[0] = 1.0;
    bd.v[1] = -1.0;
    int b;
    RC_CHECK_API(rc_body_create(w, &bd, &b));
    rc_shape_def pt = rc_default_shape_def();
    pt.type = RC_SHAPE_POINT;
    RC_CHECK_API(rc_shape_create(w, b, &pt, NULL));
    rc_shape_def fl = rc_default_shape_def();
    fl.type = RC_SHAPE_HALFPLANE;
    RC_CHECK_API(rc_shape_create(w, RC_GROUND, &fl, NULL));
    int lid;
    RC_CHECK_API(rc_law_create(w, &law, &lid));
    rc_contact_rule_def r = rc_default_contact_rule_def();
    r.a = RC_GROUND; r.b = b; r.law = lid; r.name = "C";
    RC_CHECK_API(rc_contact_rule(w, &r));
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme;
    sd.h = 1e-3;
    sd.solver.tol = 1e-14;
    RC_CHECK_API(rc_world_configure(w, &sd));
    RC_CHECK_API(rc_world_step(w));
    RC_CHECK_API(rc_body_get_state(w, b, NULL, v_after));
    rc_contact_info ci;
    RC_CHECK_API(rc_named_contact_get(w, 0, &ci));
    p[0] = ci.pN;
    p[1] = ci.pT;
    rc_world_destroy(w);
    return RC_OK;
}

static rc_law_def moreau(double e, double et, double mu)
{
    rc_law_def d = rc_default_law_def();
    d.type = RC_LAW_MOREAU;
    d.e = e; d.e_t = et; d.mu = mu;
    return d;
}

RC_TEST(moreau_tangential_restitution_single_impact)
{
    /* e = 0.5: u+_N = 0.5, p_N = 1.5 (m = 1). With mu large the contact
     * sticks in the sense of eq. (58): u+_T = -e_t u-_T, p_T = u+_T - u-_T. */
    const double ets[3] = { 0.0, -1.0, 1.0 };
    for (int i = 0; i < 3; i++) {
        double v[3], p[2];
        CHECK_OK(single_impact(moreau(0.5, ets[i], 10.0), RC_SCHEME_MOREAU_JEAN, v, p));
        CHECK_NEAR(v[1], 0.5, 1e-12);
        CHECK_NEAR(p[0], 1.5, 1e-12);
        CHECK_NEAR(v[0], -ets[i] * 1.0, 1e-12);
        CHECK_NEAR(p[1], -ets[i] - 1.0, 1e-12);
    }
    /* mu = 0.5: the cone limits p_T = -mu p_N = -0.75, u+_T = 0.25 whatever e_t in {0, 1} */
    for (int i = 0; i < 3; i += 2) {
        double v[3], p[2];
        CHECK_OK(single_impact(moreau(0.5, ets[i], 0.5), RC_SCHEME_MOREAU_JEAN, v, p));
        CHECK_NEAR(p[1], -0.75, 1e-12);
        CHECK_NEAR(v[0], 0.25, 1e-12);
    }
    /* e_t = -1: no tangential impulse at all (smooth-like impact) */
    double v[3], p[2];
    CHECK_OK(single_impact(moreau(0.5, -1.0, 0.5), RC_SCHEME_MOREAU_JEAN, v, p));
    CHECK_NEAR(p[1], 0.0, 1e-14);
    CHECK_NEAR(v[0], 1.0, 1e-14);
    /* Newton-Coulomb = Moreau with e_t = 0 */
    rc_law_def nc = rc_default_law_def();
    nc.e = 0.5; nc.mu = 10.0;
    CHECK_OK(single_impact(nc, RC_SCHEME_MOREAU_JEAN, v, p));
    CHECK_NEAR(v[0], 0.0, 1e-12);
    /* bad e_t */
    rc_world *w;
    CHECK_OK(rc_world_create(NULL, &w));
    rc_law_def bad = moreau(0.5, 1.5, 0.1);
    CHECK(rc_law_create(w, &bad, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "e_t") != NULL);
    rc_world_destroy(w);
}

/* ---- the rocking block (section 5.2) with a given law and scheme */

static rc_status rocking_block(rc_world **out, rc_scheme scheme, double theta, int law_id_custom,
                               const rc_law_def *law, const rc_law_ops *ops)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w;
    RC_CHECK_API(rc_world_create(&wd, &w));
    *out = w;
    rc_body_def bd = rc_default_body_def();
    bd.inertia = 1.0 / 6.0;
    bd.q[1] = 0.6; bd.v[1] = -0.2; bd.v[2] = 1.0;
    int b;
    RC_CHECK_API(rc_body_create(w, &bd, &b));
    rc_shape_def box = rc_default_shape_def();
    box.type = RC_SHAPE_POLYGON;
    box.nvert = 4;
    const double vv[4][2] = { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } };
    memcpy(box.vert, vv, sizeof vv);
    RC_CHECK_API(rc_shape_create(w, b, &box, NULL));
    rc_shape_def fl = rc_default_shape_def();
    fl.type = RC_SHAPE_HALFPLANE;
    RC_CHECK_API(rc_shape_create(w, RC_GROUND, &fl, NULL));
    int lid;
    if (law_id_custom) RC_CHECK_API(rc_law_create_custom(w, ops, "coulomb-in-c", &lid));
    else RC_CHECK_API(rc_law_create(w, law, &lid));
    rc_contact_rule_def r = rc_default_contact_rule_def();
    r.a = RC_GROUND; r.b = b; r.law = lid;
    RC_CHECK_API(rc_contact_rule(w, &r));
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme; sd.theta = theta; sd.h = 1e-4;
    sd.solver.tol = 1e-11;
    sd.solver.local_tol = 1e-14;
    sd.solver.on_fail = RC_ON_FAIL_ERROR;
    RC_CHECK_API(rc_world_configure(w, &sd));
    return RC_OK;
}

RC_TEST(fremond_is_moreau_with_unit_tangential_restitution)
{
    /* Moreau-Jean + Moreau(e_t = 1) at theta = 1/2 solves the same inclusion as
     * MJF + Newton (eq. 82-83 vs 58): the same trajectory up to the solver
     * tolerance */
    rc_world *a = NULL, *b = NULL;
    rc_law_def m = moreau(1.0, 1.0, 0.1), f = rc_default_law_def();
    f.e = 1.0; f.mu = 0.1;
    CHECK_OK(rocking_block(&a, RC_SCHEME_MOREAU_JEAN, 0.5, 0, &m, NULL));
    CHECK_OK(rocking_block(&b, RC_SCHEME_MOREAU_JEAN_FREMOND, 0.5, 0, &f, NULL));
    double maxdiff = 0.0;
    for (int i = 0; i < 10000 && !*failed; i++) {
        CHECK_OK(rc_world_step(a));
        CHECK_OK(rc_world_step(b));
        rc_step_info ia, ib;
        rc_world_step_info(a, &ia);
        rc_world_step_info(b, &ib);
        if (fabs(ia.E - ib.E) > maxdiff) maxdiff = fabs(ia.E - ib.E);
    }
    CHECK(maxdiff < 1e-9);
    /* and the FREMOND law type is that same law */
    rc_world *c = NULL;
    rc_law_def fr = rc_default_law_def();
    fr.type = RC_LAW_FREMOND; fr.e = 1.0; fr.mu = 0.1;
    CHECK_OK(rocking_block(&c, RC_SCHEME_MOREAU_JEAN, 0.5, 0, &fr, NULL));
    for (int i = 0; i < 10000 && !*failed; i++) CHECK_OK(rc_world_step(c));
    double qa[3], qc[3];
    rc_body_get_state(a, 0, qa, NULL);
    rc_body_get_state(c, 0, qc, NULL);
    CHECK(memcmp(qa, qc, sizeof qa) == 0);
    rc_world_destroy(a); rc_world_destroy(b); rc_world_destroy(c);
}

RC_TEST(corollary_1_energy_conservation)
{
    /* e = 1, theta = 1/2, contacts only sticking or taking off (mu = 10):
     * MJF conserves E to round-off; Moreau-Jean does not */
    rc_law_def law = rc_default_law_def();
    law.e = 1.0; law.mu = 10.0;
    rc_world *w = NULL;
    CHECK_OK(rocking_block(&w, RC_SCHEME_MOREAU_JEAN_FREMOND, 0.5, 0, &law, NULL));
    double k, p;
    rc_world_energy(w, &k, &p);
    double E0 = k + p, maxdev = 0.0;
    long impacts = 0;
    for (int i = 0; i < 10000 && !*failed; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        if (fabs(in.E - E0) > maxdev) maxdev = fabs(in.E - E0);
        if (in.nactive > 0) impacts++;
        for (int j = 0; j < rc_contact_count(w); j++) {   /* no sliding */
            rc_contact_info ci;
            rc_contact_get(w, j, &ci);
            if (ci.active && ci.pN > 0) CHECK(fabs(ci.pT) < 10.0 * ci.pN);
        }
    }
    CHECK(impacts >= 5);   /* steps with a contact in the index set: 6 in the 1 s, one per
                              impact with the anticipating index set (12 with eq. (64),
                              which also keeps the step after the crossing) */
    CHECK(maxdev <= 1e-12 * E0);
    rc_world_destroy(w);

    CHECK_OK(rocking_block(&w, RC_SCHEME_MOREAU_JEAN, 0.5, 0, &law, NULL));
    maxdev = 0.0;
    for (int i = 0; i < 10000 && !*failed; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        if (fabs(in.E - E0) > maxdev) maxdev = fabs(in.E - E0);
    }
    CHECK(maxdev > 1e-6);
    rc_world_destroy(w);
}

/* Newton--Coulomb written as a custom law (eq. 62 / 73 through xi, proj onto the cone) */
static rc_status c_xi(void *user, const rc_law_ctx *ctx, const double *state, const double *u,
                      const double *uo, double *xi)
{
    (void)user; (void)state;
    const double e = 1.0, mu = 0.1;
    double sN = ctx->unknown == RC_UNKNOWN_THETA ? (ctx->theta * (1 + e) - 1) * uo[0] : e * uo[0];
    xi[0] = u[0] + sN + mu * fabs(u[1]);
    xi[1] = u[1];
    return RC_OK;
}

static rc_status c_project(void *user, const rc_law_ctx *ctx, const double *state, const double *x, double *p)
{
    (void)user; (void)ctx; (void)state;
    const double mu = 0.1;
    double at = fabs(x[1]);
    if (x[0] >= 0 && at <= mu * x[0]) { p[0] = x[0]; p[1] = x[1]; return RC_OK; }
    if (mu * at + x[0] <= 0) { p[0] = p[1] = 0; return RC_OK; }
    double s = (x[0] + mu * at) / (1 + mu * mu);
    p[0] = s;
    p[1] = (x[1] > 0 ? 1 : -1) * mu * s;
    return RC_OK;
}

RC_TEST(custom_law_generic_solver_matches_builtin)
{
    rc_law_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.dim = 2;
    ops.xi = c_xi;
    ops.project = c_project;
    rc_law_def f = rc_default_law_def();
    f.e = 1.0; f.mu = 0.1;
    for (int s = 1; s <= 2; s++) {
        rc_world *a = NULL, *b = NULL;
        CHECK_OK(rocking_block(&a, (rc_scheme)s, 0.5, 0, &f, NULL));
        CHECK_OK(rocking_block(&b, (rc_scheme)s, 0.5, 1, NULL, &ops));
        double maxdiff = 0.0;
        for (int i = 0; i < 10000 && !*failed; i++) {
            CHECK_OK(rc_world_step(a));
            CHECK_OK(rc_world_step(b));
            rc_step_info ia, ib;
            rc_world_step_info(a, &ia);
            rc_world_step_info(b, &ib);
            if (fabs(ia.E - ib.E) > maxdiff) maxdiff = fabs(ia.E - ib.E);
        }
        CHECK(maxdiff < 1e-9);
        rc_world_destroy(a); rc_world_destroy(b);
    }
    /* a custom law without project is refused, naming the field */
    rc_world *w;
    CHECK_OK(rc_world_create(NULL, &w));
    ops.project = NULL;
    CHECK(rc_law_create_custom(w, &ops, "broken", NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "broken") && strstr(rc_last_error(), "project"));
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(moreau_tangential_restitution_single_impact), T(fremond_is_moreau_with_unit_tangential_restitution),
             T(corollary_1_energy_conservation), T(custom_law_generic_solver_matches_builtin))
