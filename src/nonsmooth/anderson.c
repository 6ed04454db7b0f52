/* anderson.c -- NSGS with Anderson acceleration (solver = { "nsgs",
 * accelerate = "anderson", depth = m }; rc_solver_def.anderson = m).
 *
 * One NSGS sweep (nsgs.c) is a fixed-point map p -> G(p) on the contacts'
 * impulses. Anderson's method (type II; Walker & Ni 2011, SIAM J. Numer.
 * Anal. 49(4), eq. (2.1) with the least-squares form of section 4) keeps the
 * last m differences of the iterates' images and residuals,
 *     f_k = G(p_k) - p_k,   dF_j = f_{j+1} - f_j,   dG_j = G(p_{j+1}) - G(p_j),
 * and extrapolates
 *     gamma = argmin |f_k - dF gamma|_2,   p_acc = G(p_k) - dG gamma,
 * each contact's impulse then projected onto its cone (the extrapolation can
 * leave it). Safeguard: p_acc is kept only when its natural-map residual (the
 * stopping test of nsgs.c, same norm and tolerance) is below that of the
 * last iterate p_k; otherwise the iteration continues from G(p_k), the plain
 * sweep (its residual computed then), and the history is cleared. V follows every change (V is affine in p:
 * V(p_acc) = V(G(p_k)) + kappa Mhat^-1 H^T (p_acc - G(p_k))), so each
 * accepted iteration costs a sweep, one residual pass and one pass of H^T. The
 * least-squares problem is solved through its m x m normal equations with a
 * relative Tikhonov term of 1e-12 (Gaussian elimination with pivoting).
 * One thread; the sweep order fixed, position or colour (world.c refuses
 * the rest). */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <string.h>

#define AA_MAX 10   /* the largest depth (world.c checks) */

typedef struct aa_state {
    rc_world *w;
    int n, m, cols, head;      /* contacts (2n unknowns), depth, columns held, next column */
    double *x, *g, *fprev, *gprev, *dF, *dG, *Vg;
    double gram[AA_MAX][AA_MAX];
} aa_state;

static inline rc_contact *aa_contact(const aa_state *a, int k) { return &a->w->contacts[a->w->active[k]]; }

static double dot(const double *x, const double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* Solve A z = r (A m x m, copied) by Gaussian elimination with partial pivoting; 0 if singular. */
static int solve_small(double A[AA_MAX][AA_MAX], const double *r, int m, double *z)
{
    double M[AA_MAX][AA_MAX + 1];
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

/* The contacts' impulses into v (2 per active contact). */
static void gather(const aa_state *a, double *v)
{
    for (int k = 0; k < a->n; k++) {
        const rc_contact *c = aa_contact(a, k);
        v[2 * k] = c->p[0];
        v[2 * k + 1] = c->p[1];
    }
}

/* Record the column (f - fprev, g - gprev) of the new sweep g = G(x) and its Gram entries. */
static void push_column(aa_state *a, const double *f)
{
    const int N = 2 * a->n, j = a->head;
    double *df = a->dF + (size_t)j * N, *dg = a->dG + (size_t)j * N;
    for (int i = 0; i < N; i++) { df[i] = f[i] - a->fprev[i]; dg[i] = a->g[i] - a->gprev[i]; }
    if (a->cols < a->m) a->cols++;
    for (int i = 0; i < a->cols; i++) {
        a->gram[j][i] = a->gram[i][j] = dot(df, a->dF + (size_t)i * N, N);
    }
    a->head = (j + 1) % a->m;
}

/* p_acc = g - dG gamma, gamma from the normal equations; 0 when they are singular. */
static int extrapolate(const aa_state *a, const double *f, double *p_acc)
{
    const int N = 2 * a->n, m = a->cols;
    double A[AA_MAX][AA_MAX], r[AA_MAX], z[AA_MAX], tr = 0.0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) A[i][j] = a->gram[i][j];
        r[i] = dot(a->dF + (size_t)i * N, f, N);
        tr += A[i][i];
    }
    for (int i = 0; i < m; i++) A[i][i] += 1e-12 * tr;
    if (!(tr > 0.0) || !solve_small(A, r, m, z)) return 0;
    memcpy(p_acc, a->g, (size_t)N * sizeof(double));
    for (int j = 0; j < m; j++) {
        const double *dg = a->dG + (size_t)j * N;
        for (int i = 0; i < N; i++) p_acc[i] -= z[j] * dg[i];
    }
    return 1;
}

/* Set the contacts' impulses to p (projected onto their laws' sets), V following. */
static rc_status set_impulses(const aa_state *a, double *p)
{
    rc_world *w = a->w;
    for (int k = 0; k < a->n; k++) {
        rc_contact *c = aa_contact(a, k);
        const rc_law *l = &w->laws[c->law];
        double *pk = p + 2 * k;
        if (l->closed_form) rcm_fc2d_project(l->def.mu, pk);
        else {
            const double zero[2] = { 0.0, 0.0 };
            double q[2];
            RC_CHECK(rcn_law_prox(w, c, pk, zero, 0.0, q));   /* proj_C(p) */
            pk[0] = q[0]; pk[1] = q[1];
        }
        double d[2] = { pk[0] - c->p[0], pk[1] - c->p[1] };
        if (d[0] != 0.0 || d[1] != 0.0) rcm_contact_apply(w, c, w->V, d);
        c->p[0] = pk[0];
        c->p[1] = pk[1];
    }
    return RC_OK;
}

static rc_status aa_setup(aa_state *a, const rcn_problem *pb)
{
    rc_world *w = pb->w;
    memset(a, 0, sizeof *a);
    a->w = w;
    a->n = w->nactive;
    a->m = pb->opt->anderson;
    const long long N = 2LL * (a->n > 0 ? a->n : 1);
    double **vec[] = { &a->x, &a->g, &a->fprev, &a->gprev };
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        RC_CHECK(rcb_arena_array(&w->work, (void **)vec[i], N, sizeof(double), "Anderson history"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&a->dF, N * a->m, sizeof(double), "Anderson history"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&a->dG, N * a->m, sizeof(double), "Anderson history"));
    return rcb_arena_array(&w->work, (void **)&a->Vg, w->nv > 0 ? w->nv : 1, sizeof(double), "Anderson velocity");
}

rc_status rcn_anderson_solve(const rcn_problem *pb, rcn_report *rep)
{
    rc_world *w = pb->w;
    const rc_solver_def *opt = pb->opt;
    aa_state a;
    rep->parallel = 0;
    rcn_nsgs_attach(w);
    RC_CHECK(aa_setup(&a, pb));
    double nb = w->contact_b2;   /* as nsgs.c */
    for (int i = 0; i < w->njoints; i++)
        for (int r = 0; r < w->joints[i].rows; r++) nb += w->joints[i].b[r] * w->joints[i].b[r];
    nb = sqrt(nb);
    const int *sweep;
    RC_CHECK(rcn_nsgs_order(w, opt, &sweep));
    const int N = 2 * a.n;
    double res;
    int it = 0, worst, have_prev = 0;
    rc_status s = rcn_nsgs_residual(w, nb, &worst, &res);
    gather(&a, a.x);
    while (s == RC_OK && res > opt->tol && it < opt->max_iter && !rc_interrupt_requested()) {
        s = rcn_nsgs_sweep(w, sweep, opt->relax);   /* g = G(x) */
        if (s != RC_OK) break;
        it++;
        gather(&a, a.g);
        /* f = g - x into x (x is not needed any more) */
        for (int i = 0; i < N; i++) a.x[i] = a.g[i] - a.x[i];
        if (have_prev) push_column(&a, a.x);
        memcpy(a.fprev, a.x, (size_t)N * sizeof(double));
        memcpy(a.gprev, a.g, (size_t)N * sizeof(double));
        have_prev = 1;
        int took = 0;
        if (a.cols > 0 && extrapolate(&a, a.fprev, a.x)) {   /* x = p_acc */
            memcpy(a.Vg, w->V, (size_t)w->nv * sizeof(double));
            s = set_impulses(&a, a.x);
            double res_acc;
            int worst_acc;
            if (s == RC_OK) s = rcn_nsgs_residual(w, nb, &worst_acc, &res_acc);
            if (s != RC_OK) break;
            if (res_acc < res) { res = res_acc; worst = worst_acc; took = 1; }
            else {   /* the safeguard: back to G(x), the history cleared */
                memcpy(w->V, a.Vg, (size_t)w->nv * sizeof(double));
                for (int k = 0; k < a.n; k++) {
                    rc_contact *c = aa_contact(&a, k);
                    c->p[0] = a.g[2 * k];
                    c->p[1] = a.g[2 * k + 1];
                }
                a.cols = 0; a.head = 0;
            }
        }
        if (!took) {   /* the plain sweep's iterate and its residual */
            memcpy(a.x, a.g, (size_t)N * sizeof(double));
            s = rcn_nsgs_residual(w, nb, &worst, &res);
        }
    }
    for (int k = 0; k < w->nactive; k++) {   /* c->res held squares */
        rc_contact *c = &w->contacts[w->active[k]];
        c->res = sqrt(c->res);
    }
    rep->local_solves = (long)it * w->nactive;
    rep->iterations = it;
    rep->residual = res;
    rep->worst = worst;
    return s;
}
