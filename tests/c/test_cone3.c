/* test_cone3.c -- the spatial Coulomb cone in De Saxce's form (cone3.c) and
 * the law interface in d = 3 (law.c's sites): the projection's properties,
 * the exact one-contact solve (complementarity on random problems, the three
 * regimes on cases with known answers, agreement with the planar solver),
 * a custom law of dim 3 through the generic path against the built-in, and
 * a planar world refusing a law of dim 3. */
#include "rc_test.h"
#include <string.h>
#include "nonsmooth/nonsmooth.h"

static unsigned rng = 2024u;
static double urand(void)   /* in [0, 1] */
{
    rng = rng * 1103515245u + 12345u;
    return ((rng >> 8) & 0xffff) / 65535.0;
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double tnorm(const double *x) { return sqrt(x[1] * x[1] + x[2] * x[2]); }

/* ---------------------------------------------------------------- the projection */

RC_TEST(projection_analytic)
{
    double p[3] = { 1.0, 5.0, 0.0 };   /* as the planar cone: onto the ray (1, 0.5) */
    rcm_fc3d_project(0.5, p);
    CHECK_NEAR(p[0], (1.0 + 2.5) / 1.25, 1e-15);
    CHECK_NEAR(p[1], 0.5 * p[0], 1e-15);
    CHECK(p[2] == 0.0);
    double q[3] = { 0.0, 3.0, 4.0 };   /* mu = 1: s = (0 + 5) / 2, p_T = s (3, 4) / 5 */
    rcm_fc3d_project(1.0, q);
    CHECK_NEAR(q[0], 2.5, 1e-15);
    CHECK_NEAR(q[1], 1.5, 1e-15);
    CHECK_NEAR(q[2], 2.0, 1e-15);
    double r[3] = { -3.0, 0.6, -0.8 };   /* mu |p_T| = 0.5 <= 3 = -p_N: polar cone */
    rcm_fc3d_project(0.5, r);
    CHECK(r[0] == 0.0 && r[1] == 0.0 && r[2] == 0.0);
    double m[3] = { 2.0, 0.3, -0.4 };    /* inside: |p_T| = 0.5 <= 0.5 * 2 */
    rcm_fc3d_project(0.5, m);
    CHECK(m[0] == 2.0 && m[1] == 0.3 && m[2] == -0.4);
    double f[3] = { 2.0, 0.3, -0.4 };    /* mu = 0: the half-line p_T = 0 */
    rcm_fc3d_project(0.0, f);
    CHECK(f[0] == 2.0 && f[1] == 0.0 && f[2] == 0.0);
}

RC_TEST(projection_properties)
{
    rng = 7u;
    for (int k = 0; k < 20000; k++) {
        const double mu = k % 10 == 0 ? 0.0 : 2.0 * urand();
        double x[3] = { 6.0 * urand() - 3.0, 6.0 * urand() - 3.0, 6.0 * urand() - 3.0 }, q[3], qq[3], r[3];
        memcpy(q, x, sizeof q);
        rcm_fc3d_project(mu, q);
        for (int i = 0; i < 3; i++) r[i] = x[i] - q[i];
        /* q in K, r = x - q in the polar cone K° = {mu |r_T| <= -r_N}, r . q = 0 */
        CHECK(q[0] >= 0.0);
        CHECK(tnorm(q) <= mu * q[0] * (1.0 + 1e-14) + 1e-15);
        CHECK(mu * tnorm(r) <= -r[0] + 1e-14);
        CHECK_NEAR(dot3(r, q), 0.0, 1e-13);
        /* idempotent */
        memcpy(qq, q, sizeof qq);
        rcm_fc3d_project(mu, qq);
        for (int i = 0; i < 3; i++) CHECK_NEAR(qq[i], q[i], 1e-15 * (1.0 + fabs(q[i])));
        /* the nearest point of K: no point of K is closer to x */
        const double y[3] = { 3.0 * urand(), 0.0, 0.0 };
        const double ang = 6.283185307179586 * urand(), rad = mu * y[0] * urand();
        const double yy[3] = { y[0], rad * cos(ang), rad * sin(ang) };
        double dy[3] = { x[0] - yy[0], x[1] - yy[1], x[2] - yy[2] };
        CHECK(dot3(r, r) <= dot3(dy, dy) + 1e-13);
        /* points inside stay, points of the polar cone go to 0 (exactly) */
        double in[3] = { fabs(x[0]), 0.0, 0.0 };
        in[1] = 0.6 * mu * in[0] * cos(ang); in[2] = 0.6 * mu * in[0] * sin(ang);
        double in0[3];
        memcpy(in0, in, sizeof in0);
        rcm_fc3d_project(mu, in);
        CHECK(in[0] == in0[0] && in[1] == in0[1] && in[2] == in0[2]);
        if (mu > 0.0) {
            double po[3] = { -fabs(x[0]), 0.9 * fabs(x[0]) / mu * cos(ang), 0.9 * fabs(x[0]) / mu * sin(ang) };
            rcm_fc3d_project(mu, po);
            CHECK(po[0] == 0.0 && po[1] == 0.0 && po[2] == 0.0);
        }
        /* in a plane through the normal, the planar cone's projection */
        double p2[2] = { x[0], x[1] }, p3[3] = { x[0], x[1], 0.0 };
        rcm_fc2d_project(mu, p2);
        rcm_fc3d_project(mu, p3);
        CHECK_NEAR(p3[0], p2[0], 1e-15 * (1.0 + fabs(p2[0])));
        CHECK_NEAR(p3[1], p2[1], 1e-15 * (1.0 + fabs(p2[1])));
        CHECK(p3[2] == 0.0);
        if (*failed) { fprintf(stderr, "  point %d\n", k); return; }
    }
}

/* ---------------------------------------------------------------- the one-contact solve */

/* A random SPD 3x3 W = L L^T + 0.05 I. */
static void random_spd(double *W)
{
    double L[9] = { 0 };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j <= i; j++) L[3 * i + j] = i == j ? 0.2 + urand() : 2.0 * urand() - 1.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = i == j ? 0.05 : 0.0;
            for (int k = 0; k < 3; k++) s += L[3 * i + k] * L[3 * j + k];
            W[3 * i + j] = s;
        }
}

static void velocity(const double *W, const double *b, const double *p, double *u)
{
    for (int i = 0; i < 3; i++) u[i] = W[3 * i] * p[0] + W[3 * i + 1] * p[1] + W[3 * i + 2] * p[2] + b[i];
}

/* De Saxce's complementarity: K ∋ p ⊥ u~ ∈ K* (tolerance tol, relative to b and p). */
static void check_desaxce(int *failed, const double *W, const double *b, double mu, const double *p, double tol)
{
    double u[3], ut[3];
    velocity(W, b, p, u);
    rcn_cone3_xi(u, mu, ut);
    const double scale = 1.0 + fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + fabs(p[0]);
    CHECK(p[0] >= -tol * scale);
    CHECK(tnorm(p) <= mu * p[0] + tol * scale);             /* p in K       */
    CHECK(mu * tnorm(ut) <= ut[0] + tol * scale);           /* u~ in K*     */
    CHECK_NEAR(dot3(p, ut), 0.0, tol * scale * scale);      /* p . u~ = 0   */
    CHECK(sqrt(rcn_cone3_residual2(u, p, mu)) <= tol * scale);
}

RC_TEST(take_off)
{
    double W[9] = { 2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.2 }, b[3] = { 0.4, -3.0, 1.0 }, p[3] = { 9, 9, 9 };
    CHECK(rcn_cone3_local_solve(W, b, 0.5, p) == 0);
    CHECK(p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0);
    check_desaxce(failed, W, b, 0.5, p, 1e-14);
}

RC_TEST(stick)
{
    /* W = diag(2, 1, 4): p = -W^-1 b = (0.5, -0.1, 0.05), |p_T| = 0.112 <= 0.5 * 0.5 */
    double W[9] = { 2.0, 0, 0, 0, 1.0, 0, 0, 0, 4.0 }, b[3] = { -1.0, 0.1, -0.2 }, p[3];
    CHECK(rcn_cone3_local_solve(W, b, 0.5, p) == 1);
    CHECK_NEAR(p[0], 0.5, 1e-15);
    CHECK_NEAR(p[1], -0.1, 1e-15);
    CHECK_NEAR(p[2], 0.05, 1e-15);
    double u[3];
    velocity(W, b, p, u);
    for (int i = 0; i < 3; i++) CHECK_NEAR(u[i], 0.0, 1e-15);
    check_desaxce(failed, W, b, 0.5, p, 1e-14);
}

RC_TEST(slide)
{
    /* W = I: p_N = -b_N = 1, p_T = -mu p_N b_T / |b_T| = -0.2 (3, 4) / 5, and
     * u_T = b_T + p_T = (2.88, 3.84) slides along b_T */
    double W[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, b[3] = { -1.0, 3.0, 4.0 }, p[3];
    CHECK(rcn_cone3_local_solve(W, b, 0.2, p) == 2);
    CHECK_NEAR(p[0], 1.0, 1e-14);
    CHECK_NEAR(p[1], -0.12, 1e-14);
    CHECK_NEAR(p[2], -0.16, 1e-14);
    double u[3];
    velocity(W, b, p, u);
    CHECK_NEAR(u[0], 0.0, 1e-14);
    CHECK_NEAR(u[1], 2.88, 1e-14);
    CHECK_NEAR(u[2], 3.84, 1e-14);
    check_desaxce(failed, W, b, 0.2, p, 1e-14);
    /* a coupled W: W_NT1 = 0.5 pulls the slip direction; with b_T along T2
     * and W_TT = I, W_NT = (0, 0.5): the slide stays along T2 (by symmetry
     * d = (0, 1)), D = W_NN - mu 0.5 = 1.9, p_N = 1 / 1.9 */
    double Wc[9] = { 2.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.5, 0.0, 1.0 }, bc[3] = { -1.0, 0.0, 3.0 };
    CHECK(rcn_cone3_local_solve(Wc, bc, 0.2, p) == 2);
    CHECK_NEAR(p[0], 1.0 / 1.9, 1e-14);
    CHECK_NEAR(p[1], 0.0, 1e-14);
    CHECK_NEAR(p[2], -0.2 / 1.9, 1e-14);
    check_desaxce(failed, Wc, bc, 0.2, p, 1e-14);
}

RC_TEST(frictionless)
{
    double W[9] = { 2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.2 }, b[3] = { -1.0, 3.0, -2.0 }, p[3];
    rcn_cone3_local_solve(W, b, 0.0, p);
    CHECK_NEAR(p[0], 0.5, 1e-15);
    CHECK(p[1] == 0.0 && p[2] == 0.0);
    check_desaxce(failed, W, b, 0.0, p, 1e-14);
}

RC_TEST(random_problems)
{
    /* random SPD W, b, mu in [0, 1.5]: every case found, complementarity to 1e-10 */
    rng = 99u;
    int cases[3] = { 0, 0, 0 };
    for (int k = 0; k < 20000; k++) {
        double W[9], b[3], p[3];
        random_spd(W);
        for (int i = 0; i < 3; i++) b[i] = 4.0 * urand() - 2.0 - (i == 0 ? 0.8 : 0.0);
        const double mu = k % 50 == 0 ? 0.0 : 1.5 * urand();
        const int c = rcn_cone3_local_solve(W, b, mu, p);
        CHECK(c >= 0 && c <= 2);
        cases[c]++;
        check_desaxce(failed, W, b, mu, p, 1e-10);
        if (*failed) { fprintf(stderr, "  problem %d (case %d, mu = %g)\n", k, c, mu); return; }
    }
    /* the random problems cover the three regimes */
    CHECK(cases[0] > 1000 && cases[1] > 1000 && cases[2] > 1000);
}

RC_TEST(warm_started_problems)
{
    /* the solve with W^-1 and a guess (NSGS passes the contact's last
     * impulse): on random problems, the guess the solution itself, a
     * perturbed one, one across the cone or none, every answer is a solution
     * to 1e-10 and the same impulse as the plain solve (the slide solution
     * of these problems is unique: checked against it to 1e-9) */
    rng = 31u;
    int slides = 0;
    for (int k = 0; k < 20000; k++) {
        double W[9], Wi[9], b[3], p0[3], p[3];
        random_spd(W);
        for (int j = 0; j < 3; j++) {
            const double e[3] = { j == 0, j == 1, j == 2 };
            double col[3];
            CHECK(rcn_solve3(W, e, col));
            for (int i = 0; i < 3; i++) Wi[3 * i + j] = col[i];
        }
        for (int i = 0; i < 3; i++) b[i] = 4.0 * urand() - 2.0 - (i == 0 ? 0.8 : 0.0);
        const double mu = 0.05 + 0.6 * urand();
        const int c0 = rcn_cone3_local_solve(W, b, mu, p0);
        slides += c0 == 2;
        const double ang = 0.3 * (urand() - 0.5);
        const double g[4][3] = { { p0[0], p0[1], p0[2] },
                                 { p0[0], cos(ang) * p0[1] - sin(ang) * p0[2], sin(ang) * p0[1] + cos(ang) * p0[2] },
                                 { p0[0], -p0[1], -p0[2] },
                                 { 1.0, mu * cos(7.0 * ang), mu * sin(7.0 * ang) } };
        for (int m = 0; m < 5; m++) {
            const int c = rcn_cone3_local_solve_from(W, m == 4 ? NULL : Wi, b, mu, m == 4 ? NULL : g[m], p);
            CHECK(c == c0);
            check_desaxce(failed, W, b, mu, p, 1e-10);
            for (int i = 0; i < 3; i++) CHECK_NEAR(p[i], p0[i], 1e-9 * (1.0 + fabs(p0[0])));
            if (c == 2) {   /* a slide answer is exact to the solver's threshold (1e-13 (1 + |b|_1)),
                               whether candidate's residual or slide_is_solution's bound kept it */
                double u[3];
                velocity(W, b, p, u);
                CHECK(sqrt(rcn_cone3_residual2(u, p, mu)) <= 1.1e-13 * (1.0 + fabs(b[0]) + fabs(b[1]) + fabs(b[2])));
            }
            if (*failed) { fprintf(stderr, "  problem %d, guess %d (case %d, mu = %g)\n", k, m, c, mu); return; }
        }
    }
    CHECK(slides > 2000);
}

RC_TEST(inverse_by_one_elimination)
{
    /* rcn_inverse3 (W^-1 of every 3D contact, once per step) is the three
     * rcn_solve3 solves with the unit vectors, bit for bit, on SPD and on
     * general matrices; a singular matrix gives 0 */
    rng = 77u;
    for (int k = 0; k < 2000; k++) {
        double A[9], Ai[9];
        if (k % 2) random_spd(A);
        else for (int i = 0; i < 9; i++) A[i] = 2.0 * urand() - 1.0;
        const int ok = rcn_inverse3(A, Ai);
        for (int c = 0; c < 3 && ok; c++) {
            const double e[3] = { c == 0, c == 1, c == 2 };
            double x[3];
            CHECK(rcn_solve3(A, e, x));
            for (int r = 0; r < 3; r++) CHECK(memcmp(&x[r], &Ai[3 * r + c], sizeof x[r]) == 0);
        }
        CHECK(ok || !rcn_solve3(A, (const double[3]){ 1, 0, 0 }, Ai));
        if (*failed) { fprintf(stderr, "  matrix %d\n", k); return; }
    }
    const double S[9] = { 1, 2, 3, 2, 4, 6, 0, 1, 1 };   /* rows 1 and 2 parallel */
    double Si[9];
    CHECK(!rcn_inverse3(S, Si));
}

RC_TEST(isotropic_slides)
{
    /* a sphere's block: W_NT = 0, W_TT = w_T I. The slide solution is
     * p_N = -b_N / W_NN, p_T = -mu p_N b_T / |b_T| (when the stick impulse
     * leaves the cone): found from the stick impulse's direction, with W^-1
     * and the contact's last impulse (a different direction) as NSGS passes them */
    rng = 5u;
    int slides = 0;
    for (int k = 0; k < 5000; k++) {
        const double wn = 0.1 + urand(), wt = 0.1 + 2.0 * urand(), mu = 0.05 + urand();
        const double W[9] = { wn, 0, 0, 0, wt, 0, 0, 0, wt }, Wi[9] = { 1.0 / wn, 0, 0, 0, 1.0 / wt, 0, 0, 0, 1.0 / wt };
        const double b[3] = { -0.1 - urand(), 4.0 * urand() - 2.0, 4.0 * urand() - 2.0 };
        const double g[3] = { 1.0, 0.9 * mu * cos(6.0 * urand()), 0.9 * mu * sin(6.0 * urand()) };
        double p[3];
        const int c = rcn_cone3_local_solve_from(W, Wi, b, mu, g, p);
        const double pn = -b[0] / wn, bt = sqrt(b[1] * b[1] + b[2] * b[2]);
        if (bt / wt <= mu * pn) { CHECK(c == 1); continue; }
        slides++;
        CHECK(c == 2);
        CHECK_NEAR(p[0], pn, 1e-14 * pn);
        CHECK_NEAR(p[1], -mu * pn * b[1] / bt, 1e-14 * pn);
        CHECK_NEAR(p[2], -mu * pn * b[2] / bt, 1e-14 * pn);
        check_desaxce(failed, W, b, mu, p, 1e-13);
        if (*failed) { fprintf(stderr, "  problem %d (case %d, mu = %g)\n", k, c, mu); return; }
    }
    CHECK(slides > 1000);
}

RC_TEST(planar_problems)
{
    /* a problem that does not couple T2 (W_T2* = 0 but W_T2T2, b_T2 = 0) is
     * the planar one: the same impulse as the planar exact solver */
    rng = 5u;
    for (int k = 0; k < 5000; k++) {
        double a = 0.1 + urand(), c = 0.1 + 2 * urand(), off = (urand() - 0.5) * 0.9 * sqrt(a * c);
        const double W2[4] = { a, off, off, c }, b2[2] = { (urand() - 0.7) * 4, (urand() - 0.5) * 4 };
        const double W3[9] = { a, off, 0.0, off, c, 0.0, 0.0, 0.0, 0.5 + urand() }, b3[3] = { b2[0], b2[1], 0.0 };
        const double mu = urand();
        double p2[2], p3[3];
        const int c2 = rcn_fc2d_local_solve(W2, b2, mu, p2);
        const int c3 = rcn_cone3_local_solve(W3, b3, mu, p3);
        CHECK(c2 == c3);
        CHECK_NEAR(p3[0], p2[0], 1e-12 * (1.0 + fabs(p2[0])));
        CHECK_NEAR(p3[1], p2[1], 1e-12 * (1.0 + fabs(p2[0])));
        CHECK_NEAR(p3[2], 0.0, 1e-12 * (1.0 + fabs(p2[0])));
        if (*failed) { fprintf(stderr, "  problem %d\n", k); return; }
    }
}

/* ---------------------------------------------------------------- the law interface in d = 3 */

/* A custom law of dim 3 written against the interface only: Coulomb in De
 * Saxce's form without restitution, xi = u~ and the cone's projection. */
static rc_status coulomb3_xi(void *user, const rc_law_ctx *ctx, const double *state,
                             const double *u, const double *u_old, double *xi)
{
    (void)state; (void)u_old;
    if (ctx->dim != 3) return rc_set_error(RC_ERR_ARG, "coulomb3: dim %d", ctx->dim);
    rcn_cone3_xi(u, *(const double *)user, xi);
    return RC_OK;
}

static rc_status coulomb3_project(void *user, const rc_law_ctx *ctx, const double *state, const double *x, double *p)
{
    (void)ctx; (void)state;
    memcpy(p, x, 3 * sizeof *p);
    rcm_fc3d_project(*(const double *)user, p);
    return RC_OK;
}

static void site3(rcn_site *s, const rc_law *l, const double *W, const double *uk, double *J, int *jvalid)
{
    memset(s, 0, sizeof *s);
    s->law = l;
    s->ctx.h = 1e-3;
    s->ctx.theta = 0.5;
    s->ctx.unknown = RC_UNKNOWN_END;
    s->ctx.dim = rcn_law_dim(l, 3);
    s->ctx.normal[2] = 1.0;
    s->ctx.tangent[0] = 1.0;
    s->ctx.tangent2[1] = 1.0;
    s->n = 3;
    s->W = W;
    s->uk = uk;
    s->J = J;
    s->jvalid = jvalid;
}

RC_TEST(custom_dim3_generic)
{
    rng = 31u;
    double mu = 0.0;
    rc_law custom, builtin, builtin_generic;
    memset(&custom, 0, sizeof custom);
    custom.def = rc_default_law_def();
    custom.def.type = RC_LAW_CUSTOM;
    custom.ops.dim = 3;
    custom.ops.user = &mu;
    custom.ops.xi = coulomb3_xi;
    custom.ops.project = coulomb3_project;
    memset(&builtin, 0, sizeof builtin);
    builtin.def = rc_default_law_def();
    builtin.def.type = RC_LAW_NEWTON_COULOMB;
    builtin.def.e = 0.0;
    rcm_law_init_builtin(&builtin);                 /* closed form: cone3 */
    builtin_generic = builtin;
    builtin_generic.ops.user = &builtin_generic;
    builtin_generic.closed_form = 0;                /* its xi, project through the generic solver */
    CHECK(rcn_law_dim(&custom, 3) == 3 && rcn_law_dim(&custom, 2) == 0);
    CHECK(rcn_law_dim(&builtin, 3) == 3 && rcn_law_dim(&builtin, 2) == 2);
    const double uk[3] = { 0.0, 0.0, 0.0 };
    int misses = 0;
    for (int k = 0; k < 2000; k++) {
        double W[9], b[3], J[9];
        int jvalid = 0;
        random_spd(W);
        for (int i = 0; i < 3; i++) b[i] = 4.0 * urand() - 2.0 - (i == 0 ? 0.8 : 0.0);
        mu = 0.6 * urand();
        builtin.def.mu = builtin_generic.def.mu = mu;
        rcn_site sc, sb, sg;
        site3(&sc, &custom, W, uk, J, &jvalid);
        site3(&sb, &builtin, W, uk, NULL, NULL);
        site3(&sg, &builtin_generic, W, uk, NULL, NULL);
        double pc[3] = { 0, 0, 0 }, pb[3] = { 0, 0, 0 }, pg[3] = { 0, 0, 0 };
        CHECK_OK(rcn_site_local_solve(&sb, 1e-13, 100, b, pb));
        const rc_status stc = rcn_site_local_solve(&sc, 1e-13, 100, b, pc);
        const rc_status stg = rcn_site_local_solve(&sg, 1e-13, 100, b, pg);
        const double scale = 1.0 + fabs(pb[0]);
        /* the generic solver (semismooth Newton with a finite-difference
         * Jacobian, from p = 0) does not always converge from a cold start
         * at large mu, in 3D as in 2D: then it says so, never a wrong p */
        CHECK(stc == RC_OK || stc == RC_ERR_SOLVER);
        CHECK(stg == stc);
        if (stc != RC_OK) { misses++; continue; }
        /* converged: |F| <= 1e-13 (1 + |p|), or up to 1e3 times that (law.c) */
        check_desaxce(failed, W, b, mu, pc, 1e-9);
        for (int i = 0; i < 3; i++) {
            CHECK_NEAR(pc[i], pb[i], 1e-8 * scale);
            CHECK_NEAR(pg[i], pc[i], 1e-12 * scale);   /* the same law, the same iterations */
        }
        /* the residual and the prox of the three agree */
        double u[3], rc2, rb2, qc[3], qb[3];
        velocity(W, b, pb, u);
        CHECK_OK(rcn_site_residual2(&sc, u, pb, &rc2));
        CHECK_OK(rcn_site_residual2(&sb, u, pb, &rb2));
        CHECK_NEAR(rc2, rb2, 1e-24 * scale * scale);
        CHECK_NEAR(rb2, rcn_cone3_residual2(u, pb, mu), 0.0);
        const double p0[3] = { 1.0, 0.3, -0.2 };
        velocity(W, b, p0, u);
        CHECK_OK(rcn_site_prox(&sc, p0, u, 0.3, qc));
        CHECK_OK(rcn_site_prox(&sb, p0, u, 0.3, qb));
        for (int i = 0; i < 3; i++) CHECK_NEAR(qc[i], qb[i], 1e-15 * (1.0 + fabs(qb[i])));
        if (*failed) { fprintf(stderr, "  problem %d (mu = %g)\n", k, mu); return; }
    }
    /* measured: 12 of 2000 cold starts with mu in [0, 0.6) (the planar
     * generic solver on the planar analogue of these problems: 3 of 2000) */
    if (getenv("RC_TEST_VERBOSE")) printf("  generic solver: %d of 2000 cold starts not converged\n", misses);
    CHECK(misses <= 40);
}

RC_TEST(dims_on_a_spatial_site)
{
    /* a frictionless custom law (dim 1) on a spatial contact solves the normal
     * row only; a law of dim 2 does not apply to a spatial contact */
    double mu = 0.0;
    rc_law l;
    memset(&l, 0, sizeof l);
    l.def = rc_default_law_def();
    l.def.type = RC_LAW_CUSTOM;
    l.ops.dim = 1;
    l.ops.user = &mu;
    l.ops.xi = coulomb3_xi;   /* checks ctx->dim: fails for d = 1 */
    l.ops.project = coulomb3_project;
    const double W[9] = { 2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.2 }, b[3] = { -1.0, 3.0, -2.0 }, uk[3] = { 0 };
    double p[3] = { 0, 0, 0 };
    rcn_site s;
    site3(&s, &l, W, uk, NULL, NULL);
    CHECK(s.ctx.dim == 1);
    CHECK(rcn_site_local_solve(&s, 1e-13, 100, b, p) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "coulomb3: dim 1") != NULL);
    l.ops.dim = 2;
    site3(&s, &l, W, uk, NULL, NULL);
    CHECK(s.ctx.dim == 0);
    CHECK(rcn_site_local_solve(&s, 1e-13, 100, b, p) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "does not apply to contact 0 of dimension 3") != NULL);
}

/* ---------------------------------------------------------------- a planar world */

RC_TEST(planar_world_refuses_dim3)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return;
    double mu = 0.3;
    rc_law_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.dim = 3;
    ops.user = &mu;
    ops.xi = coulomb3_xi;
    ops.project = coulomb3_project;
    int id = -1;
    CHECK_OK(rc_law_create_custom(w, &ops, "cone3", &id));   /* the interface takes it */
    const char *want = "law 'cone3' has dim = 3 (spatial friction): the contacts of this world are planar (laws of dim 1 or 2)";
    CHECK(rc_world_set_default_law(w, id) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), want) == 0);
    rc_contact_rule_def rd = rc_default_contact_rule_def();
    rd.kind = RC_RULE_GROUPS;
    rd.law = id;
    CHECK(rc_contact_rule(w, &rd) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), want) == 0);
    ops.dim = 4;
    CHECK(rc_law_create_custom(w, &ops, "four", &id) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "law 'four': 'dim' must be 1, 2 or 3 (got 4)") == 0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(projection_analytic), T(projection_properties), T(take_off), T(stick), T(slide), T(frictionless),
             T(random_problems), T(warm_started_problems), T(inverse_by_one_elimination), T(isotropic_slides), T(planar_problems), T(custom_dim3_generic), T(dims_on_a_spatial_site),
             T(planar_world_refuses_dim3))
