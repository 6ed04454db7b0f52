/* test_newton3.c -- the equations of the 3D semismooth Newton solver
 * (nonsmooth/newton3_phi.c): their zeros are the exact one-contact
 * solutions of De Saxce's form that NSGS3 computes (cone3.c, and the
 * Coulomb--Contensou disc law of contensou.c with 4 rows), and their
 * generalized Jacobian is the derivative of Phi wherever Phi is
 * differentiable (central differences on random points of each regime:
 * take-off, stick, slide). */
#include "rc_test.h"
#include "nonsmooth/newton3_impl.h"

static unsigned rng = 77u;
static double urand(void)   /* in [0, 1] */
{
    rng = rng * 1103515245u + 12345u;
    return ((rng >> 8) & 0xffff) / 65535.0;
}

/* a random well-conditioned SPD W (n x n, row-major) = L L^T + n I / 4 */
static void random_spd(int n, double *W)
{
    double L[16];
    for (int i = 0; i < n * n; i++) L[i] = urand() - 0.5;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = i == j ? 0.25 * n : 0.0;
            for (int k = 0; k < n; k++) s += L[i * n + k] * L[j * n + k];
            W[i * n + j] = s;
        }
}

static void scalings(int n, const double *W, double *rho)
{
    double tr = 0.0;
    for (int r = 1; r < n; r++) tr += W[r * n + r];
    rho[0] = 1.0 / W[0];
    for (int r = 1; r < n; r++) rho[r] = (n - 1) / tr;
}

static double norm(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

/* the exact solutions of u = W p + b in De Saxce's form are zeros of Phi
 * (Alart--Curnier and Fischer--Burmeister), with 3 and 4 rows */
RC_TEST(zeros_are_the_exact_local_solutions)
{
    int cases[3] = { 0, 0, 0 };
    for (int t = 0; t < 600; t++) {
        const int n = t % 2 ? 4 : 3;
        double W[16], b[4], p[4], u[4], rho[4], f[4];
        random_spd(n, W);
        const double tscale = urand();   /* small tangential b: sticking */
        b[0] = 2.0 * urand() - 1.0;
        for (int i = 1; i < n; i++) b[i] = tscale * (2.0 * urand() - 1.0);
        const double mu = 0.1 + urand();
        const int which = n == 3 ? rcn_cone3_local_solve(W, b, mu, p) : rcn_disc4_local_solve(W, b, mu, p);
        cases[which]++;
        for (int i = 0; i < n; i++) {
            u[i] = b[i];
            for (int j = 0; j < n; j++) u[i] += W[i * n + j] * p[j];
        }
        scalings(n, W, rho);
        for (int fb = 0; fb < 2; fb++) {
            rcn_newton3_phi_contact(fb, mu, n, rho, p, u, f, NULL, NULL);
            CHECK(norm(f, n) < 1e-12 * (1.0 + norm(p, n)));
        }
    }
    printf("  take-off %d, stick %d, slide %d\n", cases[0], cases[1], cases[2]);
    CHECK(cases[0] > 50 && cases[1] > 50 && cases[2] > 50);   /* every regime was met */
}

/* Phi = 0 only at solutions: a point off the solution (p moved) has Phi != 0 */
RC_TEST(nonzero_off_the_solution)
{
    double W[9], b[3] = { -1.0, 0.3, -0.2 }, p[3], u[3], rho[3], f[3];
    random_spd(3, W);
    (void)rcn_cone3_local_solve(W, b, 0.5, p);
    p[1] += 1e-3;
    for (int i = 0; i < 3; i++) u[i] = b[i] + W[3 * i] * p[0] + W[3 * i + 1] * p[1] + W[3 * i + 2] * p[2];
    scalings(3, W, rho);
    rcn_newton3_phi_contact(0, 0.5, 3, rho, p, u, f, NULL, NULL);
    CHECK(norm(f, 3) > 1e-5);
}

/* central differences of Phi in p and in u against A and B, on random points
 * at least 1e-3 from the switching surfaces */
RC_TEST(jacobian_is_the_derivative)
{
    int seen[3] = { 0, 0, 0 };   /* N inactive, stick, slide */
    const double h = 1e-7;
    for (int t = 0; t < 4000; t++) {
        const int n = t % 2 ? 4 : 3, fb = (t / 2) % 2;
        double p[4], u[4], rho[4], A[16], B[16], f[4];
        const double mu = 0.1 + urand();
        for (int i = 0; i < n; i++) { p[i] = 2.0 * urand() - 1.0; u[i] = 2.0 * urand() - 1.0; rho[i] = 0.5 + urand(); }
        for (int i = 2; i < n; i++) rho[i] = rho[1];
        const double zn = p[0] - rho[0] * u[0], s = zn > 0.0 ? mu * zn : 0.0;
        double z2 = 0.0;
        for (int i = 1; i < n; i++) z2 += (p[i] - rho[1] * u[i]) * (p[i] - rho[1] * u[i]);
        if (fabs(zn) < 1e-3 || fabs(sqrt(z2) - s) < 1e-3 || (fb && hypot(p[0], rho[0] * u[0]) < 1e-3)) continue;
        seen[zn <= 0.0 ? 0 : sqrt(z2) <= s ? 1 : 2]++;
        rcn_newton3_phi_contact(fb, mu, n, rho, p, u, f, A, B);
        for (int j = 0; j < n; j++) {
            double pp[4], pm[4], up[4], um[4], fp[4], fm[4];
            for (int i = 0; i < n; i++) { pp[i] = pm[i] = p[i]; up[i] = um[i] = u[i]; }
            pp[j] += h; pm[j] -= h; up[j] += h; um[j] -= h;
            rcn_newton3_phi_contact(fb, mu, n, rho, pp, u, fp, NULL, NULL);
            rcn_newton3_phi_contact(fb, mu, n, rho, pm, u, fm, NULL, NULL);
            for (int i = 0; i < n; i++) CHECK_NEAR(A[i * n + j], (fp[i] - fm[i]) / (2.0 * h), 1e-6);
            rcn_newton3_phi_contact(fb, mu, n, rho, p, up, fp, NULL, NULL);
            rcn_newton3_phi_contact(fb, mu, n, rho, p, um, fm, NULL, NULL);
            for (int i = 0; i < n; i++) CHECK_NEAR(B[i * n + j], (fp[i] - fm[i]) / (2.0 * h), 1e-6);
        }
    }
    CHECK(seen[0] > 100 && seen[1] > 100 && seen[2] > 100);
}

RC_TEST_MAIN(T(zeros_are_the_exact_local_solutions), T(nonzero_off_the_solution), T(jacobian_is_the_derivative))
