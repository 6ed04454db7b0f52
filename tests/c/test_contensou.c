/* test_contensou.c -- the Coulomb--Contensou disc law (contensou.c): the
 * projection onto K = {|(p_T1, p_T2, p_D)| <= mu p_N} in R^4, the exact
 * one-contact solve (in K, u~ in K*, p . u~ = 0 to 1e-12 on random
 * problems; the three regimes; known answers: a pure spin slides with
 * p_D = -mu p_N sign(b_D); a problem without drilling coupling and b_D = 0
 * is cone3's spatial Coulomb problem). */
#include "rc_test.h"
#include "nonsmooth/nonsmooth.h"

static unsigned rng = 2021u;
static double urand(void)   /* in [0, 1] */
{
    rng = rng * 1103515245u + 12345u;
    return ((rng >> 8) & 0xffff) / 65535.0;
}

static double fnorm(const double *x) { return sqrt(x[1] * x[1] + x[2] * x[2] + x[3] * x[3]); }

static void velocity4(const double *W, const double *b, const double *p, double *u)
{
    for (int i = 0; i < 4; i++) u[i] = W[4 * i] * p[0] + W[4 * i + 1] * p[1] + W[4 * i + 2] * p[2] + W[4 * i + 3] * p[3] + b[i];
}

/* K ∋ p ⊥ u~ ∈ K* to tol (relative to b and p) */
static void check_disc(int *failed, const double *W, const double *b, double mu, const double *p, double tol)
{
    double u[4];
    velocity4(W, b, p, u);
    const double ut0 = u[0] + mu * fnorm(u);
    const double scale = 1.0 + fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + fabs(b[3]) + fabs(p[0]);
    CHECK(p[0] >= 0.0);
    CHECK(fnorm(p) <= mu * p[0] * (1.0 + 1e-15));            /* p in K (projected: exactly)  */
    CHECK(mu * fnorm(u) <= ut0 + tol * scale);                /* u~ in K*                     */
    CHECK(fabs(p[0] * ut0 + p[1] * u[1] + p[2] * u[2] + p[3] * u[3]) <= tol * scale * scale);   /* p . u~ = 0 */
    CHECK(sqrt(rcn_disc4_residual2(u, p, mu)) <= tol * scale);
}

RC_TEST(projection)
{
    double p[4] = { 0.0, 0.0, 3.0, 4.0 };   /* mu = 1: s = 5 / 2, p_F = s (0, 3, 4) / 5 */
    rcn_disc4_project(1.0, p);
    CHECK_NEAR(p[0], 2.5, 1e-15);
    CHECK(p[1] == 0.0);
    CHECK_NEAR(p[2], 1.5, 1e-15);
    CHECK_NEAR(p[3], 2.0, 1e-15);
    double r[4] = { -3.0, 0.6, 0.0, -0.8 };  /* polar cone */
    rcn_disc4_project(0.5, r);
    CHECK(r[0] == 0.0 && r[1] == 0.0 && r[2] == 0.0 && r[3] == 0.0);
    double m[4] = { 2.0, 0.3, 0.0, -0.4 };   /* inside */
    rcn_disc4_project(0.5, m);
    CHECK(m[0] == 2.0 && m[1] == 0.3 && m[3] == -0.4);
    rng = 3u;
    for (int k = 0; k < 20000; k++) {       /* q in K, x - q in K°, (x - q) . q = 0 */
        const double mu = 2.0 * urand();
        double x[4], q[4], d[4];
        for (int i = 0; i < 4; i++) x[i] = q[i] = 6.0 * urand() - 3.0;
        rcn_disc4_project(mu, q);
        for (int i = 0; i < 4; i++) d[i] = x[i] - q[i];
        CHECK(q[0] >= 0.0 && fnorm(q) <= mu * q[0] * (1.0 + 1e-14) + 1e-15);
        CHECK(mu * fnorm(d) <= -d[0] + 1e-14);
        CHECK_NEAR(d[0] * q[0] + d[1] * q[1] + d[2] * q[2] + d[3] * q[3], 0.0, 1e-13);
    }
}

RC_TEST(known_answers)
{
    double p[4];
    /* take-off */
    const double W[16] = { 2, 0.3, 0.1, 0, 0.3, 1.5, 0.2, 0, 0.1, 0.2, 1.2, 0, 0, 0, 0, 0.5 };
    const double b0[4] = { 0.4, -3.0, 1.0, 2.0 };
    CHECK(rcn_disc4_local_solve(W, b0, 0.5, p) == 0);
    CHECK(p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0 && p[3] == 0.0);
    /* pure spin on a decoupled W: p_N = -b_N / W_NN = 1, u_D = b_D + W_DD p_D
     * slides (b_D = 3 > mu p_N W_DD): p_D = -mu p_N = -0.3, u_D = 3 - 0.15 */
    const double Wd[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0.5 }, bd[4] = { -1.0, 0.0, 0.0, 3.0 };
    CHECK(rcn_disc4_local_solve(Wd, bd, 0.3, p) == 2);
    CHECK_NEAR(p[0], 1.0, 1e-14);
    CHECK(fabs(p[1]) <= 1e-15 && fabs(p[2]) <= 1e-15);
    CHECK_NEAR(p[3], -0.3, 1e-14);
    check_disc(failed, Wd, bd, 0.3, p, 1e-12);
    /* the same spin, small: sticks, p_D = -b_D / W_DD = -0.1 */
    const double bs[4] = { -1.0, 0.0, 0.0, 0.05 };
    CHECK(rcn_disc4_local_solve(Wd, bs, 0.3, p) == 1);
    CHECK_NEAR(p[3], -0.1, 1e-15);
    /* frictionless */
    CHECK(rcn_disc4_local_solve(W, (const double[4]){ -1.0, 3.0, -2.0, 1.0 }, 0.0, p) == 2);
    CHECK_NEAR(p[0], 0.5, 1e-15);
    CHECK(p[1] == 0.0 && p[2] == 0.0 && p[3] == 0.0);
}

/* A random positive definite W: L L^T + 0.05 I plus (for k odd) a skew part
 * (the gyroscopic iteration matrix makes W non-symmetric). */
static void random_pd(double *W, int skew)
{
    double L[16] = { 0 };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j <= i; j++) L[4 * i + j] = i == j ? 0.2 + urand() : 2.0 * urand() - 1.0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = i == j ? 0.05 : 0.0;
            for (int k = 0; k < 4; k++) s += L[4 * i + k] * L[4 * j + k];
            W[4 * i + j] = s;
        }
    if (skew)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < i; j++) { const double a = 0.3 * (urand() - 0.5); W[4 * i + j] += a; W[4 * j + i] -= a; }
}

RC_TEST(random_problems)
{
    /* every regime found; in K exactly, u~ in K*, p . u~ = 0 to 1e-12 */
    rng = 77u;
    int cases[3] = { 0, 0, 0 };
    for (int k = 0; k < 20000; k++) {
        double W[16], b[4], p[4];
        random_pd(W, k % 2);
        for (int i = 0; i < 4; i++) b[i] = 4.0 * urand() - 2.0 - (i == 0 ? 0.8 : 0.0);
        const double mu = k % 50 == 0 ? 0.0 : 1.5 * urand();
        const int c = rcn_disc4_local_solve(W, b, mu, p);
        CHECK(c >= 0 && c <= 2);
        cases[c]++;
        check_disc(failed, W, b, mu, p, 1e-12);
        if (*failed) { fprintf(stderr, "  problem %d (case %d, mu = %g)\n", k, c, mu); return; }
    }
    printf("  take-off %d, stick %d, slide %d\n", cases[0], cases[1], cases[2]);
    CHECK(cases[0] > 1000 && cases[1] > 1000 && cases[2] > 1000);
}

RC_TEST(badly_scaled_problems)
{
    /* the tippe top's scales: W_TT ~ 1e3, W_DD ~ 1e-1 (s = 3 pi R / 16 ~ 3e-4) */
    rng = 11u;
    for (int k = 0; k < 5000; k++) {
        double W[16], b[4], p[4];
        random_pd(W, k % 2);
        const double sc[4] = { 300.0, 500.0, 500.0, 0.1 };
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) W[4 * i + j] *= sqrt(sc[i] * sc[j]);
        for (int i = 0; i < 4; i++) b[i] = (4.0 * urand() - 2.0 - (i == 0 ? 0.8 : 0.0)) * (i == 3 ? 0.05 : 1.0);
        const double mu = 0.3;
        rcn_disc4_local_solve(W, b, mu, p);
        check_disc(failed, W, b, mu, p, 1e-12);
        if (*failed) { fprintf(stderr, "  problem %d\n", k); return; }
    }
}

RC_TEST(spatial_coulomb_without_drilling)
{
    /* W without D coupling and b_D = 0: p_D = 0 and (p_N, p_T) is cone3's */
    rng = 5u;
    for (int k = 0; k < 5000; k++) {
        double W3[9], W[16] = { 0 }, b[4], p[4], p3[3];
        double L[9] = { 0 };
        for (int i = 0; i < 3; i++)
            for (int j = 0; j <= i; j++) L[3 * i + j] = i == j ? 0.2 + urand() : 2.0 * urand() - 1.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double s = i == j ? 0.05 : 0.0;
                for (int m = 0; m < 3; m++) s += L[3 * i + m] * L[3 * j + m];
                W3[3 * i + j] = W[4 * i + j] = s;
            }
        W[15] = 0.5 + urand();
        for (int i = 0; i < 3; i++) b[i] = 4.0 * urand() - 2.0 - (i == 0 ? 0.8 : 0.0);
        b[3] = 0.0;
        const double mu = urand();
        const int c4 = rcn_disc4_local_solve(W, b, mu, p);
        const int c3 = rcn_cone3_local_solve(W3, b, mu, p3);
        CHECK(c4 == c3);
        for (int i = 0; i < 3; i++) CHECK_NEAR(p[i], p3[i], 1e-12 * (1.0 + fabs(p3[0])));
        CHECK(fabs(p[3]) <= 1e-14 * (1.0 + fabs(p3[0])));
        if (*failed) { fprintf(stderr, "  problem %d\n", k); return; }
    }
}

RC_TEST_MAIN(T(projection), T(known_answers), T(random_problems), T(badly_scaled_problems), T(spatial_coulomb_without_drilling))
