/* test_linear.c -- linear Lagrangian bodies M v' + K q + C v = F + H^T r
 * (Acary & Collins-Craft 2024 eq. 1): a mass-spring chain against its modal
 * solution, energy conservation and damping work in the audit (eqs. 65-67),
 * the banded factorisation, a gap contact, and bad inputs. */
#include "rc_test.h"
#include <stdlib.h>
#include <string.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* chain of n unit masses and unit springs, fixed to the wall at one end */
static void chain(int n, double *M, double *K)
{
    memset(M, 0, (size_t)n * n * sizeof(double));
    memset(K, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++) {
        M[i * n + i] = 1.0;
        K[i * n + i] = i < n - 1 ? 2.0 : 1.0;
        if (i > 0) K[i * n + i - 1] = K[(i - 1) * n + i] = -1.0;
    }
}

static rc_world *linear_world(int n, const double *M, const double *K, const double *C, const double *q0,
                              rc_scheme scheme, double h, int *body)
{
    rc_world *w = NULL;
    if (rc_world_create(NULL, &w) != RC_OK) return NULL;
    rc_linear_def ld = rc_default_linear_def();
    ld.name = "chain";
    ld.n = n; ld.M = M; ld.K = K; ld.C = C; ld.q0 = q0;
    if (rc_linear_create(w, &ld, body) != RC_OK) { fprintf(stderr, "  %s\n", rc_last_error()); return NULL; }
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme; sd.h = h; sd.theta = 0.5;
    if (rc_world_configure(w, &sd) != RC_OK) return NULL;
    return w;
}

RC_TEST(two_mass_chain_follows_its_first_mode)
{
    /* K = [[2,-1],[-1,1]]: w1^2 = (3 - sqrt 5)/2, mode (1, (1+sqrt 5)/2) */
    double M[4], K[4];
    chain(2, M, K);
    const double w1 = sqrt((3.0 - sqrt(5.0)) / 2.0), phi = (1.0 + sqrt(5.0)) / 2.0;
    double q0[2] = { 0.1, 0.1 * phi };
    for (int s = 1; s <= 2; s++) {
        int b;
        rc_world *w = linear_world(2, M, K, NULL, q0, (rc_scheme)s, 1e-3, &b);
        CHECK(w != NULL);
        if (!w) return;
        double E0, Ek, Ee, maxdev = 0.0;
        rc_linear_energy(w, b, &Ek, &Ee);
        E0 = Ek + Ee;
        for (int i = 0; i < 10000 && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            rc_step_info in;
            rc_world_step_info(w, &in);
            maxdev = fmax(maxdev, fabs(in.E - E0));
            CHECK(fabs(in.balance) <= 1e-13);
        }
        double q[2];
        rc_body_get_state(w, b, q, NULL);
        /* the trapezoidal rule lags by w^3 h^2 t / 12: 1e-8 here */
        CHECK_NEAR(q[0], 0.1 * cos(w1 * 10.0), 1e-6);
        CHECK_NEAR(q[1], 0.1 * phi * cos(w1 * 10.0), 1e-6);
        if (maxdev > 1e-11 * E0) fprintf(stderr, "  scheme %d: max |E - E0| = %.3e (E0 = %.3e)\n", s, maxdev, E0);
        CHECK(maxdev <= 1e-11 * E0);
        rc_world_destroy(w);
    }
}

RC_TEST(long_chain_banded_and_damped)
{
    enum { n = 40 };
    double *M = calloc(n * n, sizeof(double)), *K = calloc(n * n, sizeof(double)), *C = calloc(n * n, sizeof(double));
    chain(n, M, K);
    for (int i = 0; i < n; i++) C[i * n + i] = 0.05;   /* mass-proportional damping */
    double q0[n];
    for (int i = 0; i < n; i++) q0[i] = 0.01 * sin(M_PI * (i + 1) / (2.0 * n + 1.0));
    int b;
    rc_world *w = linear_world(n, M, K, C, q0, RC_SCHEME_MOREAU_JEAN, 1e-2, &b);
    CHECK(w != NULL);
    if (w) {
        double Ek, Ee;
        rc_linear_energy(w, b, &Ek, &Ee);
        const double E0 = Ek + Ee;
        for (int i = 0; i < 2000 && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            rc_step_info in;
            rc_world_step_info(w, &in);
            CHECK(fabs(in.balance) <= 1e-12 * E0);       /* eq. (65) with the damping work (67) */
            CHECK(in.W_damp <= 0.0);
        }
        rc_step_info in;
        rc_world_step_info(w, &in);
        CHECK(in.E < E0);
        CHECK_NEAR(in.E - E0, in.W_damp_total, 1e-12 * E0);
        /* q0 is the first mode, sin(pi i / (2n+1)), w1 = 2 sin(pi / (2(2n+1))):
         * q(t) = q0 e^{-z t} (cos wd t + z/wd sin wd t), z = c/2 */
        const double w1 = 2.0 * sin(M_PI / (2.0 * (2 * n + 1))), z = 0.025, wd = sqrt(w1 * w1 - z * z), t = 20.0;
        const double a = exp(-z * t) * (cos(wd * t) + z / wd * sin(wd * t));
        double q[n];
        rc_body_get_state(w, b, q, NULL);
        for (int i = 0; i < n; i++) CHECK_NEAR(q[i], q0[i] * a, 1e-4 * 0.01);
        rc_world_destroy(w);
    }
    free(M); free(K); free(C);
}

RC_TEST(gap_contact_stops_a_mass)
{
    /* one mass on a spring, pushed toward a wall at q = -0.05 (gap q + 0.05 >= 0), e = 0 */
    double M[1] = { 1.0 }, K[1] = { 100.0 }, q0[1] = { 0.0 }, v0[1] = { -1.0 };
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    rc_linear_def ld = rc_default_linear_def();
    ld.n = 1; ld.M = M; ld.K = K; ld.q0 = q0; ld.v0 = v0;
    int b;
    CHECK_OK(rc_linear_create(w, &ld, &b));
    rc_gap_def gd = rc_default_gap_def();
    int idx[1] = { 0 };
    double nrm[1] = { 1.0 };
    gd.body = b; gd.nnz = 1; gd.index = idx; gd.normal = nrm; gd.g0 = 0.05; gd.name = "wall";
    CHECK_OK(rc_gap_create(w, &gd, NULL));
    CHECK(rc_named_contact_count(w) == 1);
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-4;
    CHECK_OK(rc_world_configure(w, &sd));
    double qmin = 1.0;
    for (int i = 0; i < 5000 && !*failed; i++) {
        CHECK_OK(rc_world_step(w));
        double q[1];
        rc_body_get_state(w, b, q, NULL);
        qmin = fmin(qmin, q[0]);
    }
    /* free amplitude 0.1 would reach -0.1: the wall stops it at -0.05 (within a step of motion) */
    CHECK(qmin > -0.05 - 1e-4);
    CHECK(qmin < -0.0499);
    rc_world_destroy(w);
}

RC_TEST(bad_linear_inputs)
{
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    double Mn[4] = { 1.0, 0.5, 0.2, 1.0 }, Mneg[4] = { 1.0, 2.0, 2.0, 1.0 }, ok[4] = { 1, 0, 0, 1 };
    rc_linear_def ld = rc_default_linear_def();
    ld.name = "bad"; ld.n = 2; ld.M = Mn;
    CHECK(rc_linear_create(w, &ld, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'bad'") && strstr(rc_last_error(), "'M' must be symmetric (M[1][2] = 0.5 but M[2][1] = 0.2)"));
    ld.M = Mneg;
    CHECK(rc_linear_create(w, &ld, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "not positive definite") != NULL);
    ld.M = ok; ld.n = 0;
    CHECK(rc_linear_create(w, &ld, NULL) == RC_ERR_ARG);
    ld.n = 2;
    double Kbad[4] = { 1, 0, 0, 0.0 / 0.0 };
    ld.K = Kbad;
    CHECK(rc_linear_create(w, &ld, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "K[2][2]") != NULL);
    ld.K = NULL;
    int b;
    CHECK_OK(rc_linear_create(w, &ld, &b));
    rc_gap_def gd = rc_default_gap_def();
    int idx[1] = { 5 };
    double nrm[1] = { 1.0 };
    gd.body = b; gd.nnz = 1; gd.index = idx; gd.normal = nrm; gd.name = "g";
    CHECK(rc_gap_create(w, &gd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "index[1] = 6") != NULL);
    rc_shape_def sh = rc_default_shape_def();
    CHECK(rc_shape_create(w, b, &sh, NULL) == RC_ERR_ARG);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(two_mass_chain_follows_its_first_mode), T(long_chain_banded_and_damped),
             T(gap_contact_stops_a_mass), T(bad_linear_inputs))
