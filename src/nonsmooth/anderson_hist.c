/* anderson_hist.c -- the history and extrapolation of Anderson's method
 * (type II; Walker & Ni 2011, SIAM J. Numer. Anal. 49(4), eq. (2.1) with
 * the least-squares form of section 4) for a fixed-point map x -> G(x) on
 * N unknowns, shared by NSGS with Anderson acceleration on planar contacts
 * (anderson.c) and on 3D contacts (anderson3.c). It keeps the last m
 * differences of the iterates' residuals and images,
 *     f_k = G(x_k) - x_k,   dF_j = f_{j+1} - f_j,   dG_j = G(x_{j+1}) - G(x_j),
 * and extrapolates
 *     gamma = argmin |f_k - dF gamma|_2,   x_acc = G(x_k) - dG gamma,
 * the least-squares problem through its m x m normal equations with a
 * relative Tikhonov term of 1e-12 (Gaussian elimination with pivoting). The
 * solvers project x_acc onto the contacts' sets and keep it only when its
 * natural-map residual is below the last iterate's (their safeguard). */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <string.h>

static double dot(const double *x, const double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* Solve A z = r (A m x m, copied) by Gaussian elimination with partial pivoting; 0 if singular. */
static int solve_small(double A[RCN_AA_MAX][RCN_AA_MAX], const double *r, int m, double *z)
{
    double M[RCN_AA_MAX][RCN_AA_MAX + 1];
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) M[i][j] = A[i][j];
        M[i][m] = r[i];
    }
    for (int c = 0; c < m; c++) {
        int piv = c;
        for (int i = c + 1; i < m; i++) if (fabs(M[i][c]) > fabs(M[piv][c])) piv = i;
        if (!(fabs(M[piv][c]) > 0.0)) return 0;
        if (piv != c) for (int j = 0; j <= m; j++) { double t = M[c][j]; M[c][j] = M[piv][j]; M[piv][j] = t; }
        for (int i = c + 1; i < m; i++) {
            const double f = M[i][c] / M[c][c];
            for (int j = c; j <= m; j++) M[i][j] -= f * M[c][j];
        }
    }
    for (int i = m - 1; i >= 0; i--) {
        double s = M[i][m];
        for (int j = i + 1; j < m; j++) s -= M[i][j] * z[j];
        z[i] = s / M[i][i];
    }
    for (int i = 0; i < m; i++) if (!rcb_finite(z[i])) return 0;
    return 1;
}

rc_status rcn_aa_setup(rc_world *w, rcn_aa *a, int N, int m)
{
    memset(a, 0, sizeof *a);
    a->N = N;
    a->m = m;
    const long long n = N > 0 ? N : 1;
    double **vec[] = { &a->x, &a->g, &a->fprev, &a->gprev };
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        RC_CHECK(rcb_arena_array(&w->work, (void **)vec[i], n, sizeof(double), "Anderson history"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&a->dF, n * m, sizeof(double), "Anderson history"));
    return rcb_arena_array(&w->work, (void **)&a->dG, n * m, sizeof(double), "Anderson history");
}

/* Record the column (f - fprev, g - gprev) of the new image g = G(x) and its Gram entries. */
static void push_column(rcn_aa *a, const double *f)
{
    const int N = a->N, j = a->head;
    double *df = a->dF + (size_t)j * N, *dg = a->dG + (size_t)j * N;
    for (int i = 0; i < N; i++) { df[i] = f[i] - a->fprev[i]; dg[i] = a->g[i] - a->gprev[i]; }
    if (a->cols < a->m) a->cols++;
    for (int i = 0; i < a->cols; i++) a->gram[j][i] = a->gram[i][j] = dot(df, a->dF + (size_t)i * N, N);
    a->head = (j + 1) % a->m;
}

/* x_acc = g - dG gamma into x, gamma from the normal equations; 0 when they are singular. */
static int extrapolate(rcn_aa *a)
{
    const int N = a->N, m = a->cols;
    double A[RCN_AA_MAX][RCN_AA_MAX], r[RCN_AA_MAX], z[RCN_AA_MAX], tr = 0.0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) A[i][j] = a->gram[i][j];
        r[i] = dot(a->dF + (size_t)i * N, a->fprev, N);
        tr += A[i][i];
    }
    for (int i = 0; i < m; i++) A[i][i] += 1e-12 * tr;
    if (!(tr > 0.0) || !solve_small(A, r, m, z)) return 0;
    memcpy(a->x, a->g, (size_t)N * sizeof(double));
    for (int j = 0; j < m; j++) {
        const double *dg = a->dG + (size_t)j * N;
        for (int i = 0; i < N; i++) a->x[i] -= z[j] * dg[i];
    }
    return 1;
}

int rcn_aa_next(rcn_aa *a)
{
    const int N = a->N;
    for (int i = 0; i < N; i++) a->x[i] = a->g[i] - a->x[i];   /* f = G(x) - x (x is not needed any more) */
    if (a->have_prev) push_column(a, a->x);
    memcpy(a->fprev, a->x, (size_t)N * sizeof(double));
    memcpy(a->gprev, a->g, (size_t)N * sizeof(double));
    a->have_prev = 1;
    if (a->cols > 0 && extrapolate(a)) return 1;
    memcpy(a->x, a->g, (size_t)N * sizeof(double));
    return 0;
}

void rcn_aa_reject(rcn_aa *a)
{
    memcpy(a->x, a->g, (size_t)a->N * sizeof(double));
    a->cols = 0;
    a->head = 0;
}
