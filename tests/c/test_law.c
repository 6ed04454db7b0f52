/* test_law.c -- the exact 2D local Coulomb solve: each case, cone membership
 * and complementarity, and agreement with the natural-map residual. */
#include "rc_test.h"
#include "nonsmooth/nonsmooth.h"

/* Check p in K, w~ = (w_N + mu|w_T|, w_T) in K*, p . w~ = 0 (eqs. 16-19). */
static void check_solution(int *failed, const double W[4], const double b[2], double mu, const double p[2])
{
    double w[2] = { W[0] * p[0] + W[1] * p[1] + b[0], W[2] * p[0] + W[3] * p[1] + b[1] };
    double wt[2] = { w[0] + mu * fabs(w[1]), w[1] };
    double scale = 1.0 + fabs(b[0]) + fabs(b[1]);
    CHECK(p[0] >= -1e-12 * scale);
    CHECK(fabs(p[1]) <= mu * p[0] + 1e-12 * scale);
    CHECK(mu * fabs(wt[1]) <= wt[0] + 1e-12 * scale);          /* w~ in K* */
    CHECK_NEAR(p[0] * wt[0] + p[1] * wt[1], 0.0, 1e-12 * scale * scale);
    CHECK(rcn_fc2d_residual(w, p, mu) <= 1e-12 * scale);
}

RC_TEST(take_off)
{
    const double W[4] = { 2.0, 0.3, 0.3, 1.5 }, b[2] = { 0.4, -3.0 };
    double p[2];
    CHECK(rcn_fc2d_local_solve(W, b, 0.5, p) == 0);
    CHECK(p[0] == 0.0 && p[1] == 0.0);
    check_solution(failed, W, b, 0.5, p);
}

RC_TEST(stick)
{
    /* approaching slowly with little tangential slip: friction holds */
    const double W[4] = { 2.0, 0.3, 0.3, 1.5 }, b[2] = { -1.0, 0.1 };
    double p[2];
    CHECK(rcn_fc2d_local_solve(W, b, 0.5, p) == 1);
    double w[2] = { W[0] * p[0] + W[1] * p[1] + b[0], W[2] * p[0] + W[3] * p[1] + b[1] };
    CHECK_NEAR(w[0], 0.0, 1e-14);
    CHECK_NEAR(w[1], 0.0, 1e-14);
    check_solution(failed, W, b, 0.5, p);
}

RC_TEST(slide)
{
    const double W[4] = { 2.0, 0.3, 0.3, 1.5 };
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        const double b[2] = { -1.0, 3.0 * sgn };
        double p[2];
        CHECK(rcn_fc2d_local_solve(W, b, 0.2, p) == 2);
        CHECK_NEAR(fabs(p[1]), 0.2 * p[0], 1e-14);
        CHECK(p[1] * sgn < 0.0);    /* friction opposes sliding */
        double w[2] = { W[0] * p[0] + W[1] * p[1] + b[0], W[2] * p[0] + W[3] * p[1] + b[1] };
        CHECK_NEAR(w[0], 0.0, 1e-14);
        CHECK(w[1] * sgn > 0.0);
        check_solution(failed, W, b, 0.2, p);
    }
}

RC_TEST(frictionless)
{
    const double W[4] = { 2.0, 0.3, 0.3, 1.5 }, b[2] = { -1.0, 3.0 };
    double p[2];
    rcn_fc2d_local_solve(W, b, 0.0, p);
    CHECK_NEAR(p[0], 0.5, 1e-15);
    CHECK(p[1] == 0.0);
    check_solution(failed, W, b, 0.0, p);
}

RC_TEST(random_problems)
{
    /* random SPD W, random b, mu: always a solution to 1e-12 */
    unsigned s = 12345;
    for (int k = 0; k < 20000; k++) {
        double r[6];
        for (int i = 0; i < 6; i++) { s = s * 1103515245u + 12345u; r[i] = ((s >> 8) & 0xffff) / 65535.0; }
        double a = 0.1 + r[0], c = 0.1 + 2 * r[1], off = (r[2] - 0.5) * 0.9 * sqrt(a * c);
        const double W[4] = { a, off, off, c };
        const double b[2] = { (r[3] - 0.7) * 4, (r[4] - 0.5) * 4 };
        double mu = r[5];
        double p[2];
        rcn_fc2d_local_solve(W, b, mu, p);
        check_solution(failed, W, b, mu, p);
        if (*failed) { fprintf(stderr, "  problem %d\n", k); return; }
    }
}

RC_TEST(projection)
{
    double p[2] = { 1.0, 5.0 };
    rcm_fc2d_project(0.5, p);       /* onto the boundary ray (1, 0.5)/|.| */
    CHECK_NEAR(p[0], (1.0 + 2.5) / 1.25, 1e-15);
    CHECK_NEAR(p[1], 0.5 * p[0], 1e-15);
    double q[2] = { -3.0, 1.0 };   /* in the polar cone */
    rcm_fc2d_project(0.5, q);
    CHECK(q[0] == 0.0 && q[1] == 0.0);
    double m[2] = { -3.35, 0.0 };  /* frictionless cone, negative normal: 0 */
    rcm_fc2d_project(0.0, m);
    CHECK(m[0] == 0.0 && m[1] == 0.0);
    double r[2] = { 2.0, -0.5 };   /* inside */
    rcm_fc2d_project(0.5, r);
    CHECK(r[0] == 2.0 && r[1] == -0.5);
}

RC_TEST_MAIN(T(take_off), T(stick), T(slide), T(frictionless), T(random_problems), T(projection))
