/* test_linear_bc.c -- prescribed coordinates of a linear body through the C
 * API (src/model/linear_bc.c): a bar of unit masses and springs k held at one
 * end and pulled at the other at speed V along its uniform stretch (a linear
 * field: no interior forces, which the theta-method follows exactly), the
 * reaction K q_{k+1/2}, no allocation in the steps, the static solve, and the
 * errors. */
#include "rc_test.h"

#define N 12

static double speed = 0.01;

static rc_status pull(void *user, int body, double t, int nc, const int *coords, double *values)
{
    (void)user; (void)body; (void)coords;
    for (int i = 0; i < nc; i++) values[i] = speed * t;
    return RC_OK;
}

static rc_status bad(void *user, int body, double t, int nc, const int *coords, double *values)
{
    (void)user; (void)body; (void)coords;
    for (int i = 0; i < nc; i++) values[i] = 0.0;
    return t > 0.05 ? rc_set_error(RC_ERR_CALLBACK, "no value after 0.05") : RC_OK;
}

static void bar(double k, double *M, double *K)
{
    memset(M, 0, sizeof(double) * N * N);
    memset(K, 0, sizeof(double) * N * N);
    for (int i = 0; i < N; i++) M[i * N + i] = 1.0;
    for (int i = 0; i + 1 < N; i++) {
        K[i * N + i] += k; K[(i + 1) * N + i + 1] += k;
        K[i * N + i + 1] -= k; K[(i + 1) * N + i] -= k;
    }
}

static rc_world *world_with_bar(double k, int *id, int scheme)
{
    static double M[N * N], K[N * N], v0[N];
    bar(k, M, K);
    for (int i = 0; i < N; i++) v0[i] = speed * i / (N - 1);
    rc_world *w = NULL;
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = 0.0;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_linear_def d = rc_default_linear_def();
    d.n = N; d.M = M; d.K = K; d.v0 = v0; d.name = "bar";
    if (rc_linear_create(w, &d, id) != RC_OK) return NULL;
    rc_sim_def s = rc_default_sim_def();
    s.h = 1e-3;
    s.scheme = scheme;
    if (rc_world_configure(w, &s) != RC_OK) return NULL;
    return w;
}

RC_TEST(a_pulled_bar_follows_its_stretch_and_reports_K_u)
{
    const int schemes[2] = { RC_SCHEME_MOREAU_JEAN, RC_SCHEME_MOREAU_JEAN_FREMOND };
    for (int s = 0; s < 2; s++) {
        const double k = 50.0, h = 1e-3;
        int id = -1;
        rc_world *w = world_with_bar(k, &id, schemes[s]);
        CHECK(w != NULL);
        const int first = 0, last = N - 1;
        const double zero = 0.0;
        CHECK_OK(rc_linear_prescribe(w, id, 1, &first, &zero));
        CHECK_OK(rc_linear_prescribe_fn(w, id, 1, &last, pull, NULL));
        CHECK_OK(rc_world_step(w));   /* the first steps factor Mhat and size the world's work arrays */
        CHECK_OK(rc_world_step(w));
        const uint64_t a0 = rc_alloc_count();
        for (int i = 2; i < 500; i++) CHECK_OK(rc_world_step(w));
        CHECK(rc_alloc_count() == a0);
        double q[N], v[N], r[N];
        CHECK_OK(rc_body_get_state(w, id, q, v));
        CHECK_NEAR(q[last], speed * 0.5, 1e-15);
        CHECK(q[first] == 0.0);
        for (int i = 1; i < last; i++) CHECK_NEAR(q[i], speed * 0.5 * i / (N - 1), 1e-13);
        CHECK_OK(rc_linear_reactions(w, id, r));
        const double R = k * speed * (0.5 - h / 2) / (N - 1);
        CHECK_NEAR(r[last], R, 1e-8 * R);   /* round-off: R is a second difference of q over h^2 */
        CHECK_NEAR(r[first], -R, 1e-8 * R);
        CHECK(r[1] == 0.0);
        int np = 0, pc[N];
        CHECK_OK(rc_linear_prescribed(w, id, &np, pc));
        CHECK(np == 2 && pc[0] == first && pc[1] == last);
        rc_world_destroy(w);
    }
}

RC_TEST(the_static_solve_stretches_the_bar_uniformly)
{
    int id = -1;
    rc_world *w = world_with_bar(50.0, &id, RC_SCHEME_MOREAU_JEAN);
    CHECK(w != NULL);
    const int last = N - 1, first = 0;
    const double u = 0.02;
    CHECK_OK(rc_linear_prescribe(w, id, 1, &last, &u));
    double res = 1, r[N], q[N], v[N];
    CHECK_OK(rc_linear_solve_static(w, id, 0.0, 1, &first, &res, r));
    CHECK(res < 1e-14);
    CHECK_OK(rc_body_get_state(w, id, q, v));
    for (int i = 0; i < N; i++) CHECK_NEAR(q[i], u * i / (N - 1), 1e-15);
    CHECK(v[3] == 0.0);
    CHECK_NEAR(r[last], 50.0 * u / (N - 1), 1e-12);
    CHECK_NEAR(r[first], -50.0 * u / (N - 1), 1e-12);
    CHECK_OK(rc_linear_release(w, id));
    CHECK(rc_linear_solve_static(w, id, 0.0, 0, NULL, NULL, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "K is singular on the free coordinates") != NULL);
    rc_world_destroy(w);
}

RC_TEST(bad_input_and_gen_alpha_are_refused)
{
    int id = -1;
    rc_world *w = world_with_bar(50.0, &id, RC_SCHEME_MOREAU_JEAN);
    CHECK(w != NULL);
    const int out = N, c = 1;
    const double x = 0.0, inf = 1.0 / 0.0;
    CHECK(rc_linear_prescribe(w, id, 1, &out, &x) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_linear_prescribe: linear body 'bar': coords[0] = 12 is outside 0..11") == 0);
    CHECK(rc_linear_prescribe(w, id, 1, &c, &inf) == RC_ERR_ARG);
    CHECK(rc_linear_prescribe(w, id + 1, 1, &c, &x) == RC_ERR_NOT_FOUND);
    CHECK(rc_linear_prescribe_fn(w, id, 1, &c, NULL, NULL) == RC_ERR_ARG);
    CHECK_OK(rc_linear_prescribe_fn(w, id, 1, &c, bad, NULL));
    rc_status s = RC_OK;
    for (int i = 0; i < 100 && s == RC_OK; i++) s = rc_world_step(w);
    CHECK(s == RC_ERR_CALLBACK);
    CHECK(strstr(rc_last_error(), "no value after 0.05") != NULL);
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    CHECK_OK(rc_world_configure(w, &sd));
    CHECK(rc_world_step(w) != RC_OK);
    CHECK(strstr(rc_last_error(), "gen-alpha does not support them") != NULL);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(a_pulled_bar_follows_its_stretch_and_reports_K_u), T(the_static_solve_stretches_the_bar_uniformly),
             T(bad_input_and_gen_alpha_are_refused))
