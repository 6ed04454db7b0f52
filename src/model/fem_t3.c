/* fem_t3.c -- finite-element bodies: linear elastic 3-node triangles (T3)
 * assembled once in the undeformed configuration into an ordinary linear
 * Lagrangian body M dv + K q dt + C v dt = F dt + H^T di (Acary &
 * Collins-Craft 2024, eq. 1; rc_linear_create).
 *
 * Element (one Gauss point: the strain is constant over a T3), node a = 1..3
 * counter-clockwise, 2A = (x2 - x1)(y3 - y1) - (x3 - x1)(y2 - y1) > 0:
 *   b_a = y_b - y_c,  c_a = x_c - x_b  (a, b, c cyclic)
 *   B = 1/(2A) [ b1 0 b2 0 b3 0 ; 0 c1 0 c2 0 c3 ; c1 b1 c2 b2 c3 b3 ]
 *   K_e = t A B^T D B,
 *   D = E/(1 - nu^2) [1 nu 0; nu 1 0; 0 0 (1 - nu)/2]                (plane stress)
 *   D = E/((1 + nu)(1 - 2nu)) [1-nu nu 0; nu 1-nu 0; 0 0 (1-2nu)/2] (plane strain)
 *   M_e = rho t A/12 [2 1 1; 1 2 1; 1 1 2] (x) I_2                   (consistent)
 *   M_e = rho t A/3 I_6                                               (lumped)
 *   f_e = rho t A/3 (g_x, g_y) on each node                           (gravity)
 * C = alpha M + beta K (Rayleigh). The coordinates are the nodal
 * displacements node by node, (u_x, u_y) of node perm[k] at 2 perm[k],
 * 2 perm[k] + 1, perm a reverse Cuthill--McKee numbering (fem_mesh.c) that
 * keeps the banded factorisation of Mhat narrow. */
#include "model/fem_stress.h"   /* rcm_fem_elasticity; includes model.h */
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

rc_fem_def rc_default_fem_def(void)
{
    rc_fem_def d;
    memset(&d, 0, sizeof d);
    d.thickness = 1.0;
    d.plane = RC_FEM_PLANE_STRESS;
    d.mass = RC_FEM_MASS_CONSISTENT;
    d.renumber = 1;
    return d;
}

static const char *label(const char *name) { return name ? name : "(unnamed)"; }

/* Twice the signed area of triangle e (0-based node indices). */
static double twice_area(const double *xy, const int *t)
{
    const double *p = xy + 2 * t[0], *q = xy + 2 * t[1], *r = xy + 2 * t[2];
    return (q[0] - p[0]) * (r[1] - p[1]) - (r[0] - p[0]) * (q[1] - p[1]);
}

static rc_status check_material(const rc_fem_def *d, const char *what)
{
    if (!(rcb_finite(d->E) && d->E > 0)) return rc_set_error(RC_ERR_ARG, "%s: 'E' must be > 0 (got %g)", what, d->E);
    if (!(rcb_finite(d->nu) && d->nu > -1.0 && d->nu < 0.5))
        return rc_set_error(RC_ERR_ARG, "%s: 'nu' must be in (-1, 0.5) (got %g)", what, d->nu);
    if (!(rcb_finite(d->rho) && d->rho > 0)) return rc_set_error(RC_ERR_ARG, "%s: 'rho' must be > 0 (got %g)", what, d->rho);
    if (!(rcb_finite(d->thickness) && d->thickness > 0))
        return rc_set_error(RC_ERR_ARG, "%s: 'thickness' must be > 0 (got %g)", what, d->thickness);
    if (d->plane != RC_FEM_PLANE_STRESS && d->plane != RC_FEM_PLANE_STRAIN)
        return rc_set_error(RC_ERR_ARG, "%s: 'plane' must be RC_FEM_PLANE_STRESS or RC_FEM_PLANE_STRAIN (got %d)", what, d->plane);
    if (d->mass != RC_FEM_MASS_CONSISTENT && d->mass != RC_FEM_MASS_LUMPED)
        return rc_set_error(RC_ERR_ARG, "%s: 'mass' must be RC_FEM_MASS_CONSISTENT or RC_FEM_MASS_LUMPED (got %d)", what, d->mass);
    if (!(rcb_finite(d->alpha) && d->alpha >= 0 && rcb_finite(d->beta) && d->beta >= 0))
        return rc_set_error(RC_ERR_ARG, "%s: the Rayleigh coefficients must be >= 0 (got alpha = %g, beta = %g)", what, d->alpha, d->beta);
    if (!(rcb_finite(d->gravity[0]) && rcb_finite(d->gravity[1])))
        return rc_set_error(RC_ERR_ARG, "%s: 'gravity' must be finite", what);
    return RC_OK;
}

/* Triangles: valid node indices, counter-clockwise, not degenerate (area
 * above 1e-12 of the squared longest edge); every node in a triangle. */
static rc_status check_mesh(const rc_fem_def *d, const char *what)
{
    if (d->nnodes < 3 || !d->xy) return rc_set_error(RC_ERR_ARG, "%s: a mesh needs 3 or more nodes (got %d)", what, d->nnodes);
    if (d->nnodes > RC_FEM_MAX_NODES)
        return rc_set_error(RC_ERR_ARG, "%s: %d nodes is more than RC_FEM_MAX_NODES = %d", what, d->nnodes, RC_FEM_MAX_NODES);
    if (d->ntri < 1 || !d->tri) return rc_set_error(RC_ERR_ARG, "%s: a mesh needs 1 or more triangles (got %d)", what, d->ntri);
    for (int i = 0; i < 2 * d->nnodes; i++)
        if (!rcb_finite(d->xy[i])) return rc_set_error(RC_ERR_ARG, "%s: node %d has a coordinate that is not finite", what, i / 2 + 1);
    for (int e = 0; e < d->ntri; e++) {
        const int *t = d->tri + 3 * e;
        for (int a = 0; a < 3; a++)
            if (t[a] < 0 || t[a] >= d->nnodes)
                return rc_set_error(RC_ERR_ARG, "%s: triangle %d refers to node %d, not in 1..%d", what, e + 1, t[a] + 1, d->nnodes);
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
            return rc_set_error(RC_ERR_ARG, "%s: triangle %d (nodes %d, %d, %d) repeats a node", what, e + 1, t[0] + 1, t[1] + 1, t[2] + 1);
        double A = 0.5 * twice_area(d->xy, t), L2 = 0;
        for (int a = 0; a < 3; a++) {
            const double *p = d->xy + 2 * t[a], *q = d->xy + 2 * t[(a + 1) % 3];
            L2 = fmax(L2, (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]));
        }
        if (A < 0)
            return rc_set_error(RC_ERR_ARG, "%s: triangle %d (nodes %d, %d, %d) is inverted: its nodes turn clockwise (signed area %g); list them counter-clockwise",
                                what, e + 1, t[0] + 1, t[1] + 1, t[2] + 1, A);
        if (!(A > 1e-12 * L2))
            return rc_set_error(RC_ERR_ARG, "%s: triangle %d (nodes %d, %d, %d) is degenerate (area %g)", what, e + 1, t[0] + 1,
                                t[1] + 1, t[2] + 1, A);
    }
    return RC_OK;
}

rc_status rc_fem_def_check(const rc_fem_def *def, const char *what)
{
    char lbl[160];
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_fem_def_check: 'def' is NULL");
    if (!what) {
        snprintf(lbl, sizeof lbl, "fem body '%s'", label(def->name));
        what = lbl;
    }
    RC_CHECK(check_material(def, what));
    RC_CHECK(check_mesh(def, what));
    return rcm_fem_orphan_check(def, what);
}

/* The element stiffness K_e = t A B^T D B (6 x 6, dofs u1 v1 u2 v2 u3 v3). */
static void element_stiffness(const rc_fem_def *d, const int *t, double D[3][3], double Ke[6][6])
{
    const double *x = d->xy;
    const double A2 = twice_area(x, t);
    double B[3][6] = { { 0 } };
    for (int a = 0; a < 3; a++) {
        const int b = t[(a + 1) % 3], c = t[(a + 2) % 3];
        const double ba = (x[2 * b + 1] - x[2 * c + 1]) / A2, ca = (x[2 * c] - x[2 * b]) / A2;
        B[0][2 * a] = ba;
        B[1][2 * a + 1] = ca;
        B[2][2 * a] = ca;
        B[2][2 * a + 1] = ba;
    }
    const double tA = d->thickness * 0.5 * A2;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) s += B[k][i] * D[k][l] * B[l][j];
            Ke[i][j] = tA * s;
        }
}

/* The place of (i, j) in a dense n x n matrix (kd < 0) or a row band of
 * half-width kd (linear_store.c) */
static size_t place(int n, int kd, int i, int j)
{
    return kd < 0 ? (size_t)i * n + j : (size_t)i * (2 * kd + 1) + kd + (j - i);
}

/* Element by element into M, K (dense, or a row band of half-width kd >= the
 * numbering's) and f: every entry receives its terms in the same order
 * either way, so both storages hold the same numbers. */
static void assemble(const rc_fem_def *def, const int *perm, int kd, double *M, double *K, double *f)
{
    const int n = 2 * def->nnodes;
    double D[3][3], Ke[6][6];
    rcm_fem_elasticity(def, D);   /* fem_stress.c */
    for (int e = 0; e < def->ntri; e++) {
        const int *t = def->tri + 3 * e;
        int dof[6];
        for (int a = 0; a < 3; a++) {
            const int p = perm ? perm[t[a]] : t[a];
            dof[2 * a] = 2 * p;
            dof[2 * a + 1] = 2 * p + 1;
        }
        const double m = def->rho * def->thickness * 0.5 * twice_area(def->xy, t);   /* the element's mass */
        if (K) {
            element_stiffness(def, t, D, Ke);
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) K[place(n, kd, dof[i], dof[j])] += Ke[i][j];
        }
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                const double mab = def->mass == RC_FEM_MASS_LUMPED ? (a == b ? m / 3 : 0) : m / 12 * (a == b ? 2 : 1);
                for (int k = 0; k < 2 && M; k++) M[place(n, kd, dof[2 * a + k], dof[2 * b + k])] += mab;
            }
        for (int a = 0; a < 3 && f; a++)
            for (int k = 0; k < 2; k++) f[dof[2 * a + k]] += m / 3 * def->gravity[k];
    }
}

rc_status rc_fem_assemble(const rc_fem_def *def, const int *perm, double *M, double *K, double *f)
{
    RC_CHECK(rc_fem_def_check(def, NULL));
    const int n = 2 * def->nnodes;
    const size_t nn = (size_t)n * (size_t)n;
    if (M) memset(M, 0, nn * sizeof(double));
    if (K) memset(K, 0, nn * sizeof(double));
    if (f) memset(f, 0, (size_t)n * sizeof(double));
    assemble(def, perm, -1, M, K, f);
    return RC_OK;
}

/* The body's storage from the band of half-width kd the numbering gives:
 * narrowed to the nonzero width (as rc_linear_create measures it), dense if
 * that is not below n/4 (linear.c's rule), C = alpha M + beta K; M positive
 * definite (its Cholesky factor, banded or dense). */
static rc_status fem_storage(const rc_fem_def *def, int kd, rc_linear *L)
{
    const int n = L->n;
    const char *what = label(def->name);
    int kw = rcm_band_width(n, kd, L->M);
    if (rcm_band_width(n, kd, L->K) > kw) kw = rcm_band_width(n, kd, L->K);
    if (kw < kd) {
        rcm_band_narrow(n, kd, kw, L->M);
        rcm_band_narrow(n, kd, kw, L->K);
    }
    L->kd = kw;
    L->banded = kw < n / 4;
    if (!L->banded) {
        double *Md = rcb_malloc((size_t)n * n * sizeof(double)), *Kd = rcb_malloc((size_t)n * n * sizeof(double));
        if (Md) rcm_band_unpack(n, kw, L->M, Md);
        if (Kd) rcm_band_unpack(n, kw, L->K, Kd);
        rcb_free(L->M); rcb_free(L->K);
        L->M = Md; L->K = Kd;
        if (!Md || !Kd) return rc_set_error(RC_ERR_NOMEM, "fem body '%s': out of memory (%d dofs)", what, n);
    }
    const size_t sz = rcm_linear_store_size(L);
    for (size_t i = 0; i < sz; i++)
        if (!rcb_finite(L->M[i]) || !rcb_finite(L->K[i]))
            return rc_set_error(RC_ERR_ARG, "fem body '%s': M or K has an entry that is not finite (E, rho or the mesh too large)", what);
    if (def->alpha > 0 || def->beta > 0) {
        L->C = rcb_malloc(sz * sizeof(double));
        if (!L->C) return rc_set_error(RC_ERR_NOMEM, "fem body '%s': out of memory (%d dofs)", what, n);
        for (size_t i = 0; i < sz; i++) L->C[i] = def->alpha * L->M[i] + def->beta * L->K[i];
    }
    double *F = rcb_malloc(rcm_linear_combo_size(L) * sizeof(double));
    if (!F) return rc_set_error(RC_ERR_NOMEM, "fem body '%s': out of memory (%d dofs)", what, n);
    rcm_linear_combo_fill(L, 1.0, 0.0, 0.0, F);
    rc_status s = L->banded ? rcl_band_chol_factor(n, kw, F) : rcl_chol_factor(n, F);
    rcb_free(F);
    if (s != RC_OK) return rc_set_error(RC_ERR_ARG, "fem body '%s': M is not positive definite", what);
    return RC_OK;
}

rc_status rc_fem_create(rc_world *w, const rc_fem_def *def, int *out_body, int *perm_out, int *bandwidth)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_fem_create: NULL argument");
    RC_CHECK(rc_fem_def_check(def, NULL));
    const int nn = def->nnodes, n = 2 * nn;
    int *perm = rcb_malloc((size_t)nn * sizeof(int));
    double *f = rcb_malloc((size_t)n * sizeof(double));
    rc_linear L;
    memset(&L, 0, sizeof L);
    L.n = n;
    int bw = 0;
    rc_status s = (!perm || !f) ? rc_set_error(RC_ERR_NOMEM, "fem body '%s': out of memory (%d dofs)", label(def->name), n) : RC_OK;
    if (s == RC_OK) s = rc_fem_numbering(def, def->renumber, perm, &bw);
    const size_t entries = (size_t)n * (size_t)(2 * bw + 1);
    if (s == RC_OK && entries > RC_FEM_MAX_BAND)
        s = rc_set_error(RC_ERR_ARG, "fem body '%s': the band of M and K would hold %zu entries each (%d dofs x %d), more than "
                         "RC_FEM_MAX_BAND = %d: use fewer nodes or a narrower numbering (renumber)", label(def->name), entries,
                         n, 2 * bw + 1, RC_FEM_MAX_BAND);
    if (s == RC_OK) {
        L.M = rcb_malloc(entries * sizeof(double));
        L.K = rcb_malloc(entries * sizeof(double));
        if (!L.M || !L.K) s = rc_set_error(RC_ERR_NOMEM, "fem body '%s': out of memory (%d dofs)", label(def->name), n);
    }
    if (s == RC_OK) {
        memset(L.M, 0, entries * sizeof(double));
        memset(L.K, 0, entries * sizeof(double));
        memset(f, 0, (size_t)n * sizeof(double));
        assemble(def, perm, bw, L.M, L.K, f);
        s = fem_storage(def, bw, &L);
    }
    if (s == RC_OK) s = rcm_linear_install(w, def->name, &L, f, NULL, NULL, out_body);
    if (s == RC_OK) w->nfem++;   /* the history's tangential work columns (output_work.c) */
    else { rcb_free(L.M); rcb_free(L.K); rcb_free(L.C); }
    if (s == RC_OK && perm_out) memcpy(perm_out, perm, (size_t)nn * sizeof(int));
    if (s == RC_OK && bandwidth) *bandwidth = bw;
    rcb_free(perm); rcb_free(f);
    return s;
}
