/* newton_sparse.c -- the sparse direct path of the Newton solver
 * (solver.linear = "sparse"; newton.c has the equations and the iteration).
 *
 * W = H kappa Mhat^-1 H^T couples two contacts only when they share a body:
 * in a pile a contact's two columns hold the rows of the contacts of its two
 * bodies (about ten contacts), so W is assembled once per solve in
 * compressed columns (column by column: a unit impulse into a scratch
 * velocity, then the rows of the contacts of the two bodies it moved, as
 * newton.c's dense assembly but touching only those). The Newton matrix
 * J = A + B W + delta I has W's pattern (A and B are 2 x 2 blocks on a
 * contact's own rows, which W's pattern holds), so UMFPACK's symbolic
 * analysis (column ordering, Davis 2004, ACM TOMS 30(2)) is done once per
 * solve and each Newton iteration is a numeric LU and two triangular solves.
 * The LU is exact: the direction is Newton's own, without the inexact
 * solves of the iterative path, so the iterations are those of the dense
 * path at a cost that grows about as the contacts do in a planar pile
 * (nested-dissection-like fill) instead of their cube.
 *
 * Scope: planar rigid bodies and contacts without joints (the step then
 * takes the iterative path: newton.c). UMFPACK allocates its factors itself
 * (the solver's one allocation outside the world's arenas; freed at the end
 * of every solve).
 */
#include "nonsmooth/newton_impl.h"

#include <math.h>
#include <string.h>
#include <klu.h>

int rcn_newton_sparse_eligible(const rc_world *w)
{
    if (w->njoints > 0) return 0;
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        if (c->gap >= 0 || w->bodies[c->body_b].kind != RC_BODY_RIGID2D) return 0;
        if (c->body_a != RC_GROUND && w->bodies[c->body_a].kind != RC_BODY_RIGID2D) return 0;
    }
    return 1;
}

static rc_status take(rc_world *w, void **p, long long count, size_t elem)
{
    return rcb_arena_array(&w->work, p, count > 0 ? count : 1, elem, "Newton solver (sparse)");
}

/* Sort one column's entries by row (about twenty: insertion sort). */
static void sort_column(int *ai, double *ax, int len)
{
    for (int i = 1; i < len; i++) {
        const int r = ai[i];
        const double x = ax[i];
        int j = i - 1;
        for (; j >= 0 && ai[j] > r; j--) { ai[j + 1] = ai[j]; ax[j + 1] = ax[j]; }
        ai[j + 1] = r;
        ax[j + 1] = x;
    }
}

/* The rows of body b's contacts into the column at nz (S holds the column's velocity). */
static int rows_of_body(nt_sys *s, const int *bstart, const int *blist, int *stamp, int mark, int b, int nz)
{
    const rc_world *w = s->w;
    for (int i = bstart[b]; i < bstart[b + 1]; i++) {
        const int d = blist[i];
        if (stamp[d] == mark) continue;
        stamp[d] = mark;
        double u[2];
        rcm_contact_dot(w, &w->contacts[w->active[d]], s->S, NULL, u);
        s->Wi[nz] = 2 * d;
        s->Wx[nz++] = u[0];
        s->Wi[nz] = 2 * d + 1;
        s->Wx[nz++] = u[1];
    }
    return nz;
}

rc_status rcn_newton_sparse_assemble(nt_sys *s)
{
    rc_world *w = s->w;
    const int m = s->m, nb = w->nbodies;
    int *bstart, *blist, *stamp;
    RC_CHECK(take(w, (void **)&bstart, nb + 1LL, sizeof(int)));
    RC_CHECK(take(w, (void **)&blist, 2LL * m, sizeof(int)));
    RC_CHECK(take(w, (void **)&stamp, m, sizeof(int)));
    memset(bstart, 0, (size_t)(nb + 1) * sizeof(int));
    for (int k = 0; k < m; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        bstart[c->body_b + 1]++;
        if (c->body_a != RC_GROUND) bstart[c->body_a + 1]++;
    }
    for (int b = 0; b < nb; b++) bstart[b + 1] += bstart[b];
    long long cap = 0;
    for (int k = 0; k < m; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        long long deg = bstart[c->body_b + 1] - bstart[c->body_b];
        if (c->body_a != RC_GROUND) deg += bstart[c->body_a + 1] - bstart[c->body_a];
        cap += 4 * deg;   /* two columns, two rows per contact seen */
    }
    if (cap > 2147483647LL) return rc_set_error(RC_ERR_NOMEM, "Newton solver (sparse): W has more than 2^31 entries");
    int *fill;
    RC_CHECK(take(w, (void **)&fill, nb, sizeof(int)));
    memcpy(fill, bstart, (size_t)nb * sizeof(int));
    for (int k = 0; k < m; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        blist[fill[c->body_b]++] = k;
        if (c->body_a != RC_GROUND) blist[fill[c->body_a]++] = k;
    }
    RC_CHECK(take(w, (void **)&s->Wp, 2LL * m + 1, sizeof(int)));
    RC_CHECK(take(w, (void **)&s->Wi, cap, sizeof(int)));
    RC_CHECK(take(w, (void **)&s->Wx, cap, sizeof(double)));
    RC_CHECK(take(w, (void **)&s->Jx, cap, sizeof(double)));
    for (int k = 0; k < m; k++) stamp[k] = -1;
    memset(s->S, 0, (size_t)w->nv * sizeof(double));
    int nz = 0, col = 0;
    for (int k = 0; k < m; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        for (int a = 0; a < 2; a++, col++) {
            const double e[2] = { a == 0, a == 1 };
            rcm_contact_apply_rigid(w, c, s->S, e);
            s->Wp[col] = nz;
            nz = rows_of_body(s, bstart, blist, stamp, col, c->body_b, nz);
            if (c->body_a != RC_GROUND) nz = rows_of_body(s, bstart, blist, stamp, col, c->body_a, nz);
            memset(s->S + w->bodies[c->body_b].iv, 0, 3 * sizeof(double));
            if (c->body_a != RC_GROUND) memset(s->S + w->bodies[c->body_a].iv, 0, 3 * sizeof(double));
            sort_column(s->Wi + s->Wp[col], s->Wx + s->Wp[col], nz - s->Wp[col]);
        }
    }
    s->Wp[col] = nz;
    s->sym = s->num = NULL;
    return RC_OK;
}

/* y = W x */
void rcn_newton_sparse_matvec(const nt_sys *s, const double *x, double *y)
{
    memset(y, 0, (size_t)s->n * sizeof(double));
    for (int j = 0; j < s->n; j++) {
        const double xj = x[j];
        if (xj == 0.0) continue;
        for (int i = s->Wp[j]; i < s->Wp[j + 1]; i++) y[s->Wi[i]] += s->Wx[i] * xj;
    }
}

/* J = A + B W + delta I in W's pattern: a contact's two rows (2k, 2k + 1)
 * are adjacent in every column that holds them */
static void form_J(nt_sys *s, double delta)
{
    for (int j = 0; j < s->n; j++) {
        for (int i = s->Wp[j]; i < s->Wp[j + 1]; i += 2) {
            const int k = s->Wi[i] / 2;
            const double *A = s->A + 4 * k, *B = s->B + 4 * k, w0 = s->Wx[i], w1 = s->Wx[i + 1];
            double j0 = B[0] * w0 + B[1] * w1, j1 = B[2] * w0 + B[3] * w1;
            if (k == j / 2) {   /* the contact's own block: A's column j % 2 and delta */
                j0 += A[j % 2] + (j % 2 == 0 ? delta : 0.0);
                j1 += A[2 + j % 2] + (j % 2 == 1 ? delta : 0.0);
            }
            s->Jx[i] = j0;
            s->Jx[i + 1] = j1;
        }
    }
}

/* |J d + Phi| / |Phi| */
static double relative_residual(const nt_sys *s)
{
    double r2 = 0.0, f2 = 0.0;
    memcpy(s->r, s->phi, (size_t)s->n * sizeof(double));
    for (int j = 0; j < s->n; j++)
        for (int i = s->Wp[j]; i < s->Wp[j + 1]; i++) s->r[s->Wi[i]] += s->Jx[i] * s->d[j];
    for (int i = 0; i < s->n; i++) { r2 += s->r[i] * s->r[i]; f2 += s->phi[i] * s->phi[i]; }
    return f2 > 0.0 ? sqrt(r2 / f2) : sqrt(r2);
}

/* d = J^-1 (-Phi) with num (fresh: factorised now); 0 if KLU failed */
static int solve_with(nt_sys *s, klu_numeric *num, klu_common *common)
{
    for (int i = 0; i < s->n; i++) s->d[i] = -s->phi[i];
    return klu_solve((klu_symbolic *)s->sym, num, s->n, 1, s->d, common);
}

rc_status rcn_newton_sparse_direction(nt_sys *s, double delta, const char **why)
{
    klu_common common;
    klu_defaults(&common);
    common.scale = 0;   /* the rows are scaled already (rho: a unit diagonal) */
    common.btf = 0;     /* a pile is one strongly connected block */
    form_J(s, delta);
    if (!s->sym) {
        s->sym = klu_analyze(s->n, s->Wp, s->Wi, &common);
        if (!s->sym) { *why = common.status == KLU_OUT_OF_MEMORY ? "out of memory in the sparse LU" : "sparse LU failed"; return RC_OK; }
    }
    klu_symbolic *sym = (klu_symbolic *)s->sym;
    klu_numeric *num = (klu_numeric *)s->num;
    /* a later iteration keeps the first one's pivot order (klu_refactor, no
     * search) while the direction it gives solves J d = -Phi to 1e-10;
     * otherwise a new factorisation with partial pivoting */
    if (num && klu_refactor(s->Wp, s->Wi, s->Jx, sym, num, &common) && solve_with(s, num, &common)
        && relative_residual(s) <= 1e-10)
        return RC_OK;
    if (num) klu_free_numeric(&num, &common);
    s->num = num = klu_factor(s->Wp, s->Wi, s->Jx, sym, &common);
    if (!num) *why = common.status == KLU_SINGULAR ? "singular Newton matrix" : "sparse LU failed";
    else if (!solve_with(s, num, &common)) *why = "sparse LU failed";
    return RC_OK;
}

void rcn_newton_sparse_free(nt_sys *s)
{
    klu_common common;
    klu_defaults(&common);
    klu_symbolic *sym = (klu_symbolic *)s->sym;
    klu_numeric *num = (klu_numeric *)s->num;
    if (num) klu_free_numeric(&num, &common);
    if (sym) klu_free_symbolic(&sym, &common);
    s->sym = s->num = NULL;
}
