/* test_fem.c -- finite-element bodies (src/model/fem_t3.c, fem_mesh.c): the
 * patch test (a linear displacement field gives zero interior nodal forces),
 * the mass of the consistent and lumped matrices, a plane-stress column under
 * self-weight against the analytic u_y(y) = -rho g (H y - y^2/2)/E, the reverse
 * Cuthill--McKee bandwidth, and refused meshes. */
#include "rc_test.h"

#define NX_MAX 41
#define NY_MAX 41

/* A W x H rectangle, nx x ny cells, each split by its / diagonal;
 * node (i, j) = j (nx + 1) + i (rows along x); optional interior jitter. */
typedef struct grid {
    int nn, nt;
    double xy[2 * (NX_MAX + 1) * (NY_MAX + 1)];
    int tri[6 * NX_MAX * NY_MAX];
} grid;

static void make_grid(grid *g, int nx, int ny, double W, double H, double jitter)
{
    g->nn = (nx + 1) * (ny + 1);
    g->nt = 0;
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) {
            int k = j * (nx + 1) + i, inner = i > 0 && i < nx && j > 0 && j < ny;
            g->xy[2 * k] = W * i / nx + (inner ? jitter * W / nx * sin(7.0 * k) : 0);
            g->xy[2 * k + 1] = H * j / ny + (inner ? jitter * H / ny * cos(5.0 * k) : 0);
        }
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            int a = j * (nx + 1) + i, b = a + 1, c = a + nx + 2, d = a + nx + 1;
            int *t = g->tri + 3 * g->nt;
            t[0] = a; t[1] = b; t[2] = c;
            t[3] = a; t[4] = c; t[5] = d;
            g->nt += 2;
        }
}

static rc_fem_def grid_def(const grid *g)
{
    rc_fem_def d = rc_default_fem_def();
    d.name = "block";
    d.nnodes = g->nn; d.xy = g->xy; d.ntri = g->nt; d.tri = g->tri;
    d.E = 200.0; d.nu = 0.3; d.rho = 2.0; d.thickness = 0.5;
    return d;
}

static grid G;

RC_TEST(patch_test_linear_field_has_no_interior_forces)
{
    make_grid(&G, 4, 3, 2.0, 1.5, 0.25);   /* distorted interior nodes */
    for (int plane = 0; plane < 2; plane++) {
        rc_fem_def d = grid_def(&G);
        d.plane = plane;
        const int n = 2 * G.nn;
        double *K = malloc(sizeof(double) * n * n), *u = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n);
        CHECK_OK(rc_fem_assemble(&d, NULL, NULL, K, NULL));
        for (int k = 0; k < G.nn; k++) {   /* u = a + B x, B not symmetric (a rotation too) */
            double x = G.xy[2 * k], y = G.xy[2 * k + 1];
            u[2 * k] = 0.1 + 0.02 * x - 0.03 * y;
            u[2 * k + 1] = -0.2 + 0.05 * x + 0.01 * y;
        }
        double kmax = 0, rin = 0, sx = 0, sy = 0;
        for (int i = 0; i < n; i++) {
            r[i] = 0;
            for (int j = 0; j < n; j++) { r[i] += K[(size_t)i * n + j] * u[j]; kmax = fmax(kmax, fabs(K[(size_t)i * n + j])); }
            if (i % 2) sy += r[i]; else sx += r[i];
        }
        for (int j = 1; j < 3; j++)
            for (int i = 1; i < 4; i++) {
                int k = j * 5 + i;
                rin = fmax(rin, fmax(fabs(r[2 * k]), fabs(r[2 * k + 1])));
            }
        CHECK(rin < 1e-13 * kmax);
        CHECK(fabs(sx) < 1e-13 * kmax && fabs(sy) < 1e-13 * kmax);
        /* a boundary node carries the traction of the uniform stress: not zero */
        CHECK(fabs(r[2 * 2 + 1]) > 1e-3 * kmax * 0.01);
        free(K); free(u); free(r);
    }
}

/* A uniaxial strain u = (e x, 0) on a W x H block: the right edge's nodal
 * x-forces add up to sigma_xx H t, sigma_xx = E e/(1 - nu^2) in plane stress,
 * E (1 - nu) e/((1 + nu)(1 - 2 nu)) in plane strain (checks D). */
RC_TEST(uniaxial_strain_gives_the_plane_law)
{
    const int nx = 4, ny = 3;
    const double W = 2.0, H = 1.5, e = 1e-3;
    make_grid(&G, nx, ny, W, H, 0.25);
    for (int plane = 0; plane < 2; plane++) {
        rc_fem_def d = grid_def(&G);
        d.plane = plane;
        const int n = 2 * G.nn;
        double *K = malloc(sizeof(double) * n * n);
        CHECK_OK(rc_fem_assemble(&d, NULL, NULL, K, NULL));
        double fx = 0;
        for (int j = 0; j <= ny; j++) {
            int r = 2 * (j * (nx + 1) + nx);
            for (int k = 0; k < G.nn; k++) fx += K[(size_t)r * n + 2 * k] * e * G.xy[2 * k];
        }
        const double E = d.E, nu = d.nu;
        const double sxx = plane == 0 ? E * e / (1 - nu * nu) : E * (1 - nu) * e / ((1 + nu) * (1 - 2 * nu));
        CHECK_NEAR(fx, sxx * H * d.thickness, 1e-12 * sxx * H);
        free(K);
    }
}

RC_TEST(mass_matrices_carry_rho_t_area)
{
    make_grid(&G, 3, 2, 2.0, 1.5, 0.2);
    for (int lumped = 0; lumped < 2; lumped++) {
        rc_fem_def d = grid_def(&G);
        d.mass = lumped;
        d.gravity[1] = -9.81;
        const int n = 2 * G.nn;
        double *M = malloc(sizeof(double) * n * n), *f = malloc(sizeof(double) * n);
        CHECK_OK(rc_fem_assemble(&d, NULL, M, NULL, f));
        double mx = 0, mxy = 0, fy = 0, fx = 0;   /* e_x^T M e_x, e_x^T M e_y, sum of f */
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i % 2 == 0 && j % 2 == 0) mx += M[(size_t)i * n + j];
                if (i % 2 == 0 && j % 2 == 1) mxy += M[(size_t)i * n + j];
            }
            if (i % 2) fy += f[i]; else fx += f[i];
        }
        const double mass = 2.0 * 0.5 * 2.0 * 1.5;   /* rho t W H */
        CHECK_NEAR(mx, mass, 1e-12 * mass);
        CHECK(mxy == 0.0);
        CHECK_NEAR(fy, -9.81 * mass, 1e-12 * 9.81 * mass);
        CHECK(fx == 0.0);
        free(M); free(f);
    }
}

/* Solve A x = b (n x n, Gaussian elimination with partial pivoting, in place). */
static void solve(int n, double *A, double *b)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++) if (fabs(A[(size_t)i * n + c]) > fabs(A[(size_t)p * n + c])) p = i;
        for (int j = 0; j < n; j++) { double t = A[(size_t)c * n + j]; A[(size_t)c * n + j] = A[(size_t)p * n + j]; A[(size_t)p * n + j] = t; }
        double t = b[c]; b[c] = b[p]; b[p] = t;
        for (int i = c + 1; i < n; i++) {
            double m = A[(size_t)i * n + c] / A[(size_t)c * n + c];
            for (int j = c; j < n; j++) A[(size_t)i * n + j] -= m * A[(size_t)c * n + j];
            b[i] -= m * b[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) b[i] -= A[(size_t)i * n + j] * b[j];
        b[i] /= A[(size_t)i * n + i];
    }
}

/* A W x H plane-stress block (nu = 0) on a frictionless floor (u_y = 0 on
 * y = 0, u_x = 0 at the bottom-left corner) under its weight: K u = f. With
 * nu = 0 the exact field is u_x = 0, u_y(y) = -rho g (H y - y^2/2)/E. On the
 * / diagonal mesh the top corners carry rho t A/3 and 2 rho t A/3 of weight
 * (one triangle, two triangles) where the column wants rho t A/2 each: a couple
 * of order h^2 that bends the column, so the nodal error is O(h^2).
 * Returns max |u - u_exact| / max |u_y|. */
static double column_error(int nx, int ny, int *failed)
{
    const double W = 1.0, H = 2.0, g = 9.81;
    make_grid(&G, nx, ny, W, H, 0.0);
    rc_fem_def d = grid_def(&G);
    d.nu = 0.0;
    d.gravity[1] = -g;
    const int n = 2 * G.nn;
    double *K = malloc(sizeof(double) * n * n), *f = malloc(sizeof(double) * n);
    CHECK_OK(rc_fem_assemble(&d, NULL, NULL, K, f));
    for (int i = 0; i <= nx; i++) {   /* the floor: u_y = 0 on the bottom row; u_x = 0 at node 0 */
        int fixed[2] = { 2 * i + 1, 0 };
        for (int c = 0; c < (i == 0 ? 2 : 1); c++) {
            int r = fixed[c];
            for (int j = 0; j < n; j++) K[(size_t)r * n + j] = K[(size_t)j * n + r] = 0;
            K[(size_t)r * n + r] = 1;
            f[r] = 0;
        }
    }
    solve(n, K, f);
    double err = 0, umax = 0;
    for (int k = 0; k < G.nn; k++) {
        double y = G.xy[2 * k + 1], uy = -d.rho * g * (H * y - y * y / 2) / d.E;
        err = fmax(err, fmax(fabs(f[2 * k + 1] - uy), fabs(f[2 * k])));
        umax = fmax(umax, fabs(uy));
    }
    free(K); free(f);
    printf("  column %d x %d cells: max |u - u_exact| / max |u_y| = %.4g (max |u_y| = %.4g)\n", nx, ny, err / umax, umax);
    return err / umax;
}

RC_TEST(static_column_under_self_weight)
{
    double e1 = column_error(2, 4, failed), e2 = column_error(4, 8, failed), e3 = column_error(8, 16, failed);
    CHECK(e3 < 0.02);
    /* measured 0.1424, 0.05358, 0.01571: ratios 2.66, 3.41 approaching 4 (O(h^2)) */
    CHECK(e1 / e2 > 2.5 && e2 / e3 > 3.2 && e2 / e3 < 4.5);
}

RC_TEST(reverse_cuthill_mckee_narrows_the_band)
{
    make_grid(&G, 40, 3, 10.0, 1.0, 0.0);   /* numbered along the long side: node band 42 */
    rc_fem_def d = grid_def(&G);
    int perm[(NX_MAX + 1) * (NY_MAX + 1)], ident[(NX_MAX + 1) * (NY_MAX + 1)], bw0 = 0, bw = 0;
    CHECK_OK(rc_fem_numbering(&d, 0, ident, &bw0));
    CHECK_OK(rc_fem_numbering(&d, 1, perm, &bw));
    CHECK(bw0 == 2 * 42 + 1);
    CHECK(bw <= 2 * 5 + 1);
    printf("  bandwidth (dofs): given numbering %d, reverse Cuthill--McKee %d\n", bw0, bw);
    int seen[(NX_MAX + 1) * (NY_MAX + 1)] = { 0 };
    for (int k = 0; k < G.nn; k++) seen[perm[k]]++;
    for (int k = 0; k < G.nn; k++) CHECK(seen[k] == 1);
    /* the renumbered K is the same operator: K'[p(i)][p(j)] = K[i][j] */
    const int n = 2 * G.nn;
    double *K = malloc(sizeof(double) * n * n), *Kp = malloc(sizeof(double) * n * n);
    CHECK_OK(rc_fem_assemble(&d, NULL, NULL, K, NULL));
    CHECK_OK(rc_fem_assemble(&d, perm, NULL, Kp, NULL));
    double dmax = 0;
    for (int a = 0; a < G.nn; a++)
        for (int b = 0; b < G.nn; b++)
            for (int r = 0; r < 2; r++)
                for (int s = 0; s < 2; s++)
                    dmax = fmax(dmax, fabs(K[(size_t)(2 * a + r) * n + 2 * b + s] - Kp[(size_t)(2 * perm[a] + r) * n + 2 * perm[b] + s]));
    CHECK(dmax == 0.0);
    free(K); free(Kp);
}

RC_TEST(creates_a_linear_body)
{
    make_grid(&G, 3, 2, 1.0, 1.0, 0.0);
    rc_fem_def d = grid_def(&G);
    d.alpha = 0.1; d.beta = 1e-3;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    int id = -1, perm[16], bw = 0;
    CHECK_OK(rc_fem_create(w, &d, &id, perm, &bw));
    double ek = -1, ee = -1;
    CHECK_OK(rc_linear_energy(w, id, &ek, &ee));
    CHECK(ek == 0 && ee == 0);
    CHECK(bw > 0);
    rc_world_destroy(w);
}

static void expect_error(rc_fem_def *d, const char *msg, int *failed)
{
    rc_status s = rc_fem_def_check(d, NULL);
    CHECK(s == RC_ERR_ARG);
    if (strcmp(rc_last_error(), msg) != 0) {
        fprintf(stderr, "  got      '%s'\n  expected '%s'\n", rc_last_error(), msg);
        (*failed)++;
    }
}

RC_TEST(bad_meshes_are_refused)
{
    double xy[] = { 0, 0, 1, 0, 0, 1, 1, 1, 2, 0 };
    int cw[] = { 0, 1, 2, 1, 2, 3 };         /* the second turns clockwise */
    int flat[] = { 0, 1, 2, 0, 1, 4 };       /* the second has zero area */
    int orphan[] = { 0, 1, 2, 1, 3, 2 };     /* node 5 unused */
    rc_fem_def d = rc_default_fem_def();
    d.name = "plate"; d.nnodes = 5; d.xy = xy; d.ntri = 2; d.E = 1; d.nu = 0.3; d.rho = 1;
    d.tri = cw;
    expect_error(&d, "fem body 'plate': triangle 2 (nodes 2, 3, 4) is inverted: its nodes turn clockwise (signed area -0.5); list them counter-clockwise", failed);
    d.tri = flat;
    expect_error(&d, "fem body 'plate': triangle 2 (nodes 1, 2, 5) is degenerate (area 0)", failed);
    d.tri = orphan;
    expect_error(&d, "fem body 'plate': node 5 belongs to no triangle (its mass would be zero)", failed);
    d.nu = 0.5;
    expect_error(&d, "fem body 'plate': 'nu' must be in (-1, 0.5) (got 0.5)", failed);
    d.nu = 0.3; d.E = 0;
    expect_error(&d, "fem body 'plate': 'E' must be > 0 (got 0)", failed);
}

RC_TEST_MAIN(T(patch_test_linear_field_has_no_interior_forces), T(uniaxial_strain_gives_the_plane_law), T(mass_matrices_carry_rho_t_area),
             T(static_column_under_self_weight), T(reverse_cuthill_mckee_narrows_the_band),
             T(creates_a_linear_body), T(bad_meshes_are_refused))
