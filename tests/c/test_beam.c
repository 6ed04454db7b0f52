/* test_beam.c -- planar nonlinear Euler--Bernoulli beams (src/model/beam.c,
 * docs/theory/beam.md): the tangent stiffness is the Jacobian of the internal
 * force and that the gradient of the strain energy (central differences);
 * rigid motions are strain free; a cantilever under a small tip load bends
 * as linear Euler--Bernoulli theory says (P L^3 / 3 EI), under a large one
 * its tip goes where the inextensible elastica puts it (shooting on
 * EI theta'' = -P cos theta); a free-free beam under the frictional
 * generalized-alpha scheme (rho_inf = 1) keeps its momentum to round-off and
 * its energy; refused definitions. */
#include "rc_test.h"

#define NMAX 80

static rc_world *world_with_beam(const rc_beam_def *d, int *id)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[0] = wd.gravity[1] = 0.0;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    if (rc_beam_create(w, d, id) != RC_OK) { rc_world_destroy(w); return NULL; }
    return w;
}

static rc_beam_def def_of(int degree, int elements, double EA, double EI)
{
    rc_beam_def d = rc_default_beam_def();
    d.degree = degree; d.elements = elements;
    d.EA = EA; d.EI = EI; d.rho = 1.0;
    d.a[0] = 0.0; d.a[1] = 0.0; d.b[0] = 1.0; d.b[1] = 0.0;
    return d;
}

RC_TEST(tangent_is_the_jacobian_of_the_force)
{
    rc_beam_def d = def_of(3, 3, 50.0, 2.0);
    int id;
    rc_world *w = world_with_beam(&d, &id);
    CHECK(w != NULL);
    if (!w) return;
    const int n = rc_body_nq(w, id);
    double q[NMAX], v[NMAX], f[NMAX], fp[NMAX], fm[NMAX], K[NMAX * NMAX], E, Ep, Em;
    CHECK_OK(rc_body_get_state(w, id, q, v));
    for (int i = 0; i < n; i++) q[i] += 0.05 * sin(1.7 * i + 0.3) + 0.02 * cos(3.1 * i);   /* stretched, bent */
    CHECK_OK(rc_beam_forces(w, id, q, f, K, &E));
    CHECK(E > 0);
    double kmax = 0, errK = 0, errf = 0, fmax_ = 0;
    const double eps = 1e-6;
    for (int j = 0; j < n; j++) {
        const double q0 = q[j];
        q[j] = q0 + eps; CHECK_OK(rc_beam_forces(w, id, q, fp, NULL, &Ep));
        q[j] = q0 - eps; CHECK_OK(rc_beam_forces(w, id, q, fm, NULL, &Em));
        q[j] = q0;
        errf = fmax(errf, fabs((Ep - Em) / (2 * eps) - f[j]));
        fmax_ = fmax(fmax_, fabs(f[j]));
        for (int i = 0; i < n; i++) {
            errK = fmax(errK, fabs((fp[i] - fm[i]) / (2 * eps) - K[i * n + j]));
            kmax = fmax(kmax, fabs(K[i * n + j]));
            CHECK_NEAR(K[i * n + j], K[j * n + i], 1e-9 * kmax + 1e-12);
        }
    }
    CHECK(errK < 1e-6 * kmax);
    CHECK(errf < 1e-7 * fmax_);
    rc_world_destroy(w);
}

RC_TEST(rigid_motions_are_strain_free)
{
    rc_beam_def d = def_of(2, 4, 1e4, 3.0);
    int id;
    rc_world *w = world_with_beam(&d, &id);
    CHECK(w != NULL);
    if (!w) return;
    const int n = rc_body_nq(w, id);
    double q[NMAX], v[NMAX], f[NMAX], E;
    CHECK_OK(rc_body_get_state(w, id, q, v));
    const double c = cos(0.7), s = sin(0.7);
    for (int i = 0; i < n; i += 2) {
        const double x = q[i], y = q[i + 1];
        q[i] = 2.0 + c * x - s * y;
        q[i + 1] = -1.0 + s * x + c * y;
    }
    CHECK_OK(rc_beam_forces(w, id, q, f, NULL, &E));
    for (int i = 0; i < n; i++) CHECK(fabs(f[i]) < 1e-9);
    CHECK(fabs(E) < 1e-20);
    double r[2], dr[2], len;
    CHECK_OK(rc_beam_point(w, id, 0.3, NULL, r, dr));   /* the undeformed line r = a + xi (b - a) */
    CHECK_NEAR(r[0], 0.3, 1e-15);
    CHECK_NEAR(r[1], 0.0, 1e-15);
    CHECK_NEAR(dr[0], 1.0, 1e-14);
    CHECK_OK(rc_beam_info(w, id, NULL, NULL, &len));
    CHECK_NEAR(len, 1.0, 1e-14);
    rc_world_destroy(w);
}

/* x <- A^-1 b, A m x m (Gaussian elimination, partial pivoting; A, b destroyed) */
static void solve(double *A, double *b, int m)
{
    for (int k = 0; k < m; k++) {
        int p = k;
        for (int i = k + 1; i < m; i++) if (fabs(A[i * m + k]) > fabs(A[p * m + k])) p = i;
        for (int j = 0; j < m; j++) { double t = A[k * m + j]; A[k * m + j] = A[p * m + j]; A[p * m + j] = t; }
        { double t = b[k]; b[k] = b[p]; b[p] = t; }
        for (int i = k + 1; i < m; i++) {
            const double l = A[i * m + k] / A[k * m + k];
            for (int j = k; j < m; j++) A[i * m + j] -= l * A[k * m + j];
            b[i] -= l * b[k];
        }
    }
    for (int i = m - 1; i >= 0; i--) {
        for (int j = i + 1; j < m; j++) b[i] -= A[i * m + j] * b[j];
        b[i] /= A[i * m + i];
    }
}

/* The clamped (first two control points fixed) beam under the tip force
 * (0, -P), by Newton in load steps; the tip r(1) into tip. */
static void cantilever(rc_world *w, int id, double P, int nload, double tip[2], int *failed)
{
    const int n = rc_body_nq(w, id), m = n - 4;
    double q[NMAX], v[NMAX], f[NMAX], K[NMAX * NMAX], A[NMAX * NMAX], r[NMAX];
    CHECK_OK(rc_body_get_state(w, id, q, v));
    for (int l = 1; l <= nload; l++) {
        const double Pl = P * l / nload;
        for (int it = 0; it < 50; it++) {
            CHECK_OK(rc_beam_forces(w, id, q, f, K, NULL));
            f[n - 1] += Pl;   /* f_int - F_ext */
            double res = 0;
            for (int i = 0; i < m; i++) {
                r[i] = -f[4 + i];
                res = fmax(res, fabs(r[i]));
                for (int j = 0; j < m; j++) A[i * m + j] = K[(4 + i) * n + 4 + j];
            }
            if (getenv("BEAM_DEBUG")) fprintf(stderr, "load %d it %d res %.3e\n", l, it, res);
            if (res < 1e-11 * (1 + P)) break;
            solve(A, r, m);
            for (int i = 0; i < m; i++) q[4 + i] += r[i];
        }
    }
    CHECK_OK(rc_beam_point(w, id, 1.0, q, tip, NULL));
}

RC_TEST(cantilever_small_load_is_linear_euler_bernoulli)
{
    const double EI = 2.0, P = 2e-4;   /* P L^2 / EI = 1e-4 */
    rc_beam_def d = def_of(3, 4, 1e7, EI);
    int id;
    rc_world *w = world_with_beam(&d, &id);
    CHECK(w != NULL);
    if (!w) return;
    double tip[2];
    cantilever(w, id, P, 1, tip, failed);
    const double delta = P / (3.0 * EI);   /* P L^3 / 3 EI, L = 1: the cubic is in the cubic B-splines' space */
    CHECK_NEAR(tip[1], -delta, 1e-4 * delta);
    CHECK(fabs(tip[0] - 1.0) < 1e-6);
    rc_world_destroy(w);
}

/* the inextensible elastica: EI theta'' = -P cos theta, theta(0) = 0,
 * theta'(L) = 0 (RK4, shooting on theta'(0) by bisection); the tip */
static void elastica(double k2, double tip[2])
{
    const int ns = 4000;
    const double ds = 1.0 / ns;
    double lo = 0.0, hi = 2.0 * k2, x = 0, y = 0;
    for (int it = 0; it < 80; it++) {
        const double c = 0.5 * (lo + hi);
        double th = 0, om = c;
        x = y = 0;
        for (int i = 0; i < ns; i++) {
            /* state (theta, theta', x, y): theta'' = -k2 cos theta, x' = cos, y' = -sin */
            double k1[4], kk2[4], k3[4], k4[4];
#define RHS(T, O, K) do { K[0] = (O); K[1] = -k2 * cos(T); K[2] = cos(T); K[3] = -sin(T); } while (0)
            RHS(th, om, k1);
            RHS(th + 0.5 * ds * k1[0], om + 0.5 * ds * k1[1], kk2);
            RHS(th + 0.5 * ds * kk2[0], om + 0.5 * ds * kk2[1], k3);
            RHS(th + ds * k3[0], om + ds * k3[1], k4);
#undef RHS
            th += ds / 6 * (k1[0] + 2 * kk2[0] + 2 * k3[0] + k4[0]);
            om += ds / 6 * (k1[1] + 2 * kk2[1] + 2 * k3[1] + k4[1]);
            x += ds / 6 * (k1[2] + 2 * kk2[2] + 2 * k3[2] + k4[2]);
            y += ds / 6 * (k1[3] + 2 * kk2[3] + 2 * k3[3] + k4[3]);
        }
        if (om > 0) hi = c; else lo = c;
    }
    tip[0] = x; tip[1] = y;
}

RC_TEST(cantilever_large_load_follows_the_elastica)
{
    const double EI = 1.0, P = 2.0;   /* P L^2 / EI = 2 */
    rc_beam_def d = def_of(3, 16, 1e5, EI);   /* EA L^2 / EI = 1e5: no membrane locking (docs/theory/beam.md) */
    int id;
    rc_world *w = world_with_beam(&d, &id);
    CHECK(w != NULL);
    if (!w) return;
    double tip[2], ref[2];
    cantilever(w, id, P, 10, tip, failed);
    elastica(P / EI, ref);
    /* Bisshopp & Drucker 1945, P L^2/EI = 2: tip at (1 - 0.1606, -0.4935) L */
    CHECK_NEAR(ref[0], 0.8394, 1e-4);
    CHECK_NEAR(ref[1], -0.4935, 1e-4);
    CHECK_NEAR(tip[0], ref[0], 3e-5);   /* 8e-6 and 5e-6 measured: extensibility P/EA = 2e-5 and discretisation */
    CHECK_NEAR(tip[1], ref[1], 3e-5);
    rc_world_destroy(w);
}

/* the total momentum per direction, sum_i m_i v_i with m_i = (M 1)_i = the
 * integral of rho N_i (the B-splines are a partition of unity) */
static void momentum(rc_world *w, int id, const double *mrow, double p[2])
{
    double q[NMAX], v[NMAX];
    rc_body_get_state(w, id, q, v);
    p[0] = p[1] = 0;
    for (int i = 0; i < rc_body_nv(w, id); i++) p[i % 2] += mrow[i] * v[i];
}

RC_TEST(free_beam_keeps_momentum_and_energy_under_gen_alpha)
{
    rc_beam_def d = def_of(3, 4, 400.0, 1.0);
    int id;
    rc_world *w = world_with_beam(&d, &id);
    CHECK(w != NULL);
    if (!w) return;
    const int n = rc_body_nq(w, id);
    double q[NMAX], v[NMAX], mrow[NMAX];
    CHECK_OK(rc_body_get_state(w, id, q, v));
    for (int i = 0; i < n; i += 2) {   /* a drift, a spin and a bending velocity */
        v[i] = 0.3 + 0.5 * q[i + 1];
        v[i + 1] = -0.2 + 0.8 * (q[i] - 0.5) + 2.0 * cos(3.141592653589793 * q[i]);
    }
    CHECK_OK(rc_body_set_state(w, id, q, v));
    /* the masses of the control points: rho int N_i J0 (partition of unity: row sums of M) */
    {
        double tot[2] = { 0, 0 };
        for (int i = 0; i < n; i++) {
            double e1, vv[NMAX] = { 0 };
            double qq[NMAX], v0[NMAX];
            rc_body_get_state(w, id, qq, v0);
            for (int j = i % 2; j < n; j += 2) vv[j] = 1.0;
            vv[i] = 2.0;
            rc_body_set_state(w, id, qq, vv);
            rc_linear_energy(w, id, &e1, NULL);
            double e2;
            vv[i] = 0.0;
            rc_body_set_state(w, id, qq, vv);
            rc_linear_energy(w, id, &e2, NULL);
            /* E(v) = 1/2 v^T M v; E(1 + e_i) - E(1 - e_i) = 2 (M 1)_i */
            mrow[i] = (e1 - e2) / 2.0;
            tot[i % 2] += mrow[i];
            rc_body_set_state(w, id, qq, v0);
        }
        CHECK_NEAR(tot[0], 1.0, 1e-13);   /* rho L */
        CHECK_NEAR(tot[1], 1.0, 1e-13);
    }
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.h = 1e-3;
    sd.gen_alpha.rho_inf = 1.0;
    sd.gen_alpha.variant = RC_GA_CAPOBIANCO;
    sd.solver.tol = 1e-12;
    CHECK_OK(rc_world_configure(w, &sd));
    double p0[2], p[2], ek, ee, E0, Emax = 0, eemax = 0;
    momentum(w, id, mrow, p0);
    CHECK_OK(rc_beam_energy(w, id, &ek, &ee, NULL));
    E0 = ek + ee;
    CHECK(ee == 0.0 || ee < 1e-20);
    for (int k = 0; k < 400; k++) {
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_beam_energy(w, id, &ek, &ee, NULL));
        Emax = fmax(Emax, fabs(ek + ee - E0));
        eemax = fmax(eemax, ee);
    }
    momentum(w, id, mrow, p);
    CHECK_NEAR(p[0], p0[0], 1e-10);
    CHECK_NEAR(p[1], p0[1], 1e-10);
    CHECK(eemax > 1e-2 * E0);        /* it did bend */
    printf("  free beam: E0 = %.6g, max E_el %.3g, max |E - E0| / E0 = %.3g, p drift %.2g %.2g\n", E0, eemax, Emax / E0, p[0] - p0[0], p[1] - p0[1]);
    CHECK(Emax < 1e-4 * E0);   /* 1.3e-5 measured */
    rc_world_destroy(w);
}

RC_TEST(bad_definitions_are_refused)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    int id;
    rc_beam_def d = rc_default_beam_def();
    d.name = "leg";
    d.degree = 1;
    CHECK(rc_beam_create(w, &d, &id) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "beam 'leg': 'degree' must be in 2..5 (C1 centreline; got 1)") != NULL);
    d = rc_default_beam_def();
    d.EI = -1;
    CHECK(rc_beam_create(w, &d, &id) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'EI' must be > 0 and finite (got -1)") != NULL);
    d = rc_default_beam_def();
    d.b[0] = 0.0;
    CHECK(rc_beam_create(w, &d, &id) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'a' and 'b' must differ") != NULL);
    d = rc_default_beam_def();
    d.quadrature = 6;
    CHECK(rc_beam_def_check(&d, "w:beam") == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "w:beam: 'quadrature' must be in 1..5 (got 6)") != NULL);
    CHECK(rc_beam_info(w, 99, NULL, NULL, NULL) == RC_ERR_NOT_FOUND);
    rc_body_def bd = rc_default_body_def();
    CHECK_OK(rc_body_create(w, &bd, &id));
    CHECK(rc_beam_forces(w, id, NULL, NULL, NULL, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "is not a beam") != NULL);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(tangent_is_the_jacobian_of_the_force), T(rigid_motions_are_strain_free),
             T(cantilever_small_load_is_linear_euler_bernoulli), T(cantilever_large_load_follows_the_elastica),
             T(free_beam_keeps_momentum_and_energy_under_gen_alpha), T(bad_definitions_are_refused))
