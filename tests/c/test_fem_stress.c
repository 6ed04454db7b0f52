/* test_fem_stress.c -- the element stress of finite-element bodies
 * (rc_fem_stress, src/model/fem_stress.c): a uniform strain on a distorted
 * mesh (with a rigid motion added) gives the analytic plane-stress and
 * plane-strain stresses in every element, in the body's numbering; the von
 * Mises stress of known states; the strain energy sum_e t A sigma_e . D^-1
 * sigma_e equals u^T K u / 2 with fem_t3.c's K for an arbitrary u; argument
 * errors. */
#include "rc_test.h"

#define NX 5
#define NY 4
static double XY[2 * (NX + 1) * (NY + 1)];
static int TRI[6 * NX * NY];

/* A 2 x 1.5 block of NX x NY cells split by their / diagonal, interior nodes
 * moved (distorted elements). */
static rc_fem_def block(int plane)
{
    int nt = 0;
    for (int j = 0; j <= NY; j++)
        for (int i = 0; i <= NX; i++) {
            int k = j * (NX + 1) + i, inner = i > 0 && i < NX && j > 0 && j < NY;
            XY[2 * k] = 2.0 * i / NX + (inner ? 0.1 * sin(7.0 * k) : 0);
            XY[2 * k + 1] = 1.5 * j / NY + (inner ? 0.08 * cos(5.0 * k) : 0);
        }
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            int a = j * (NX + 1) + i, b = a + 1, c = a + NX + 2, d = a + NX + 1;
            int *t = TRI + 3 * nt;
            t[0] = a; t[1] = b; t[2] = c;
            t[3] = a; t[4] = c; t[5] = d;
            nt += 2;
        }
    rc_fem_def d = rc_default_fem_def();
    d.nnodes = (NX + 1) * (NY + 1); d.xy = XY; d.ntri = nt; d.tri = TRI;
    d.E = 5.75e3; d.nu = 0.358; d.rho = 1.17e-3; d.thickness = 15;
    d.plane = plane;
    return d;
}

RC_TEST(uniform_strain_gives_the_analytic_stress)
{
    const double exx = 2e-3, eyy = -7e-4, gxy = 1.3e-3, rot = 0.01;
    for (int plane = 0; plane < 2; plane++) {
        rc_fem_def d = block(plane);
        int perm[(NX + 1) * (NY + 1)];
        CHECK_OK(rc_fem_numbering(&d, 1, perm, NULL));
        double q[2 * (NX + 1) * (NY + 1)], s[3 * 2 * NX * NY], vm[2 * NX * NY];
        for (int k = 0; k < d.nnodes; k++) {   /* strain + translation + small rotation */
            double x = XY[2 * k], y = XY[2 * k + 1];
            q[2 * perm[k]] = 0.3 + exx * x + (0.5 * gxy - rot) * y;
            q[2 * perm[k] + 1] = -0.2 + (0.5 * gxy + rot) * x + eyy * y;
        }
        CHECK_OK(rc_fem_stress(&d, perm, q, s, vm));
        const double E = d.E, nu = d.nu;
        double sxx, syy, sxy = E / (2 * (1 + nu)) * gxy, szz;
        if (plane == RC_FEM_PLANE_STRESS) {
            sxx = E / (1 - nu * nu) * (exx + nu * eyy);
            syy = E / (1 - nu * nu) * (eyy + nu * exx);
            szz = 0;
        } else {
            const double c = E / ((1 + nu) * (1 - 2 * nu));
            sxx = c * ((1 - nu) * exx + nu * eyy);
            syy = c * ((1 - nu) * eyy + nu * exx);
            szz = nu * (sxx + syy);
        }
        const double vm0 = sqrt(0.5 * ((sxx - syy) * (sxx - syy) + (syy - szz) * (syy - szz) + (szz - sxx) * (szz - sxx))
                                + 3 * sxy * sxy);
        const double tol = 1e-12 * E * exx;
        for (int e = 0; e < d.ntri; e++) {
            CHECK_NEAR(s[3 * e], sxx, tol);
            CHECK_NEAR(s[3 * e + 1], syy, tol);
            CHECK_NEAR(s[3 * e + 2], sxy, tol);
            CHECK_NEAR(vm[e], vm0, tol);
        }
        /* without perm: the same field in the mesh's numbering */
        double q0[2 * (NX + 1) * (NY + 1)], s0[3 * 2 * NX * NY];
        for (int k = 0; k < d.nnodes; k++) { q0[2 * k] = q[2 * perm[k]]; q0[2 * k + 1] = q[2 * perm[k] + 1]; }
        CHECK_OK(rc_fem_stress(&d, NULL, q0, s0, NULL));
        for (int i = 0; i < 3 * d.ntri; i++) CHECK(s0[i] == s[i]);
    }
}

RC_TEST(von_mises_of_known_states)
{
    rc_fem_def d = block(RC_FEM_PLANE_STRESS);
    /* one right triangle (0,0) (1,0) (0,1): u = (exx x, 0) gives plane-stress
     * sxx = E exx/(1 - nu^2), syy = nu sxx */
    double xy[6] = { 0, 0, 1, 0, 0, 1 }, q[6] = { 0, 0, 1e-3, 0, 0, 0 }, s[3], vm;
    int tri[3] = { 0, 1, 2 };
    d.nnodes = 3; d.xy = xy; d.ntri = 1; d.tri = tri;
    CHECK_OK(rc_fem_stress(&d, NULL, q, s, &vm));
    const double sxx = d.E * 1e-3 / (1 - d.nu * d.nu);
    CHECK_NEAR(s[0], sxx, 1e-12 * sxx);
    CHECK_NEAR(s[1], d.nu * sxx, 1e-12 * sxx);
    CHECK_NEAR(s[2], 0, 1e-12 * sxx);
    CHECK_NEAR(vm, sxx * sqrt(1 - d.nu + d.nu * d.nu), 1e-12 * sxx);
    /* pure shear u = (g y/2, g x/2): sxy = G g, von Mises sqrt(3) G g */
    double qs[6] = { 0, 0, 0, 0.5e-3, 0.5e-3, 0 };
    CHECK_OK(rc_fem_stress(&d, NULL, qs, s, &vm));
    const double tau = d.E / (2 * (1 + d.nu)) * 1e-3;
    CHECK_NEAR(s[0], 0, 1e-12 * tau);
    CHECK_NEAR(s[1], 0, 1e-12 * tau);
    CHECK_NEAR(s[2], tau, 1e-12 * tau);
    CHECK_NEAR(vm, sqrt(3) * tau, 1e-12 * tau);
}

/* The strain energy of the element stresses, sum t A sigma . D^-1 sigma / 2,
 * is u^T K u / 2 with fem_t3.c's K: the stress uses the element's B and D. */
RC_TEST(stress_energy_matches_the_stiffness)
{
    for (int plane = 0; plane < 2; plane++) {
        rc_fem_def d = block(plane);
        const int n = 2 * d.nnodes;
        double *K = malloc(sizeof(double) * n * n), *q = malloc(sizeof(double) * n);
        double *s = malloc(sizeof(double) * 3 * d.ntri);
        CHECK_OK(rc_fem_assemble(&d, NULL, NULL, K, NULL));
        for (int i = 0; i < n; i++) q[i] = 1e-3 * sin(1.7 * i + 0.3) * (1 + 0.2 * cos(0.9 * i));
        CHECK_OK(rc_fem_stress(&d, NULL, q, s, NULL));
        double uKu = 0, W = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) uKu += q[i] * K[(size_t)i * n + j] * q[j];
        const double E = d.E, nu = d.nu;
        for (int e = 0; e < d.ntri; e++) {
            const int *t = TRI + 3 * e;
            const double *p = XY + 2 * t[0], *b = XY + 2 * t[1], *c = XY + 2 * t[2];
            const double A = 0.5 * ((b[0] - p[0]) * (c[1] - p[1]) - (c[0] - p[0]) * (b[1] - p[1]));
            const double sx = s[3 * e], sy = s[3 * e + 1], txy = s[3 * e + 2];
            double ex, ey;   /* the compliance D^-1 */
            if (plane == RC_FEM_PLANE_STRESS) {
                ex = (sx - nu * sy) / E;
                ey = (sy - nu * sx) / E;
            } else {
                ex = ((1 - nu * nu) * sx - nu * (1 + nu) * sy) / E;
                ey = ((1 - nu * nu) * sy - nu * (1 + nu) * sx) / E;
            }
            const double g = 2 * (1 + nu) / E * txy;
            W += d.thickness * A * (sx * ex + sy * ey + txy * g);
        }
        CHECK(uKu > 0);
        CHECK_NEAR(W, uKu, 1e-12 * uKu);
        free(K); free(q); free(s);
    }
}

RC_TEST(bad_arguments_are_refused)
{
    rc_fem_def d = block(RC_FEM_PLANE_STRESS);
    double q[2 * (NX + 1) * (NY + 1)] = { 0 }, s[3 * 2 * NX * NY];
    int perm[(NX + 1) * (NY + 1)];
    CHECK(rc_fem_stress(NULL, NULL, q, s, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_fem_stress: 'def' is NULL") == 0);
    CHECK(rc_fem_stress(&d, NULL, NULL, s, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_fem_stress: 'q' is NULL") == 0);
    CHECK(rc_fem_stress(&d, NULL, q, NULL, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_fem_stress: 'stress' and 'von_mises' are both NULL") == 0);
    for (int k = 0; k < d.nnodes; k++) perm[k] = k;
    perm[3] = d.nnodes;
    CHECK(rc_fem_stress(&d, perm, q, s, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_fem_stress: perm[3] = 30 is not in 0..29") == 0);
    d.nu = 0.5;
    CHECK(rc_fem_stress(&d, NULL, q, s, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_fem_stress: 'nu' must be in (-1, 0.5) (got 0.5)") == 0);
}

RC_TEST_MAIN(T(uniform_strain_gives_the_analytic_stress), T(von_mises_of_known_states),
             T(stress_energy_matches_the_stiffness), T(bad_arguments_are_refused))
