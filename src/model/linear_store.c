/* linear_store.c -- the storage of a linear body's M, K, C (linear.c):
 * dense n x n row-major, or, when the half-bandwidth kd is below n/4 (the
 * same rule that factors Mhat as a band), a row band of n x (2 kd + 1):
 * A(i, j), |i - j| <= kd, at A[i (2 kd + 1) + kd + j - i]. Both triangles
 * are kept: an assembled K is symmetric only to round-off (an element's two
 * triangles are summed in different orders), and the products read each row
 * as given, so a banded body computes what its dense matrix computed, bit for
 * bit; the factorisations read the upper triangle (LAPACK upper band). A
 * finite-element body is assembled straight into the band (fem_t3.c). */
#include "model/model.h"
#include "linalg/linalg.h"

#include <string.h>

/* Entries per stored row (n dense, 2 kd + 1 banded). */
static size_t row_len(const rc_linear *L) { return L->banded ? (size_t)(2 * L->kd + 1) : (size_t)L->n; }

size_t rcm_linear_store_size(const rc_linear *L) { return row_len(L) * (size_t)L->n; }

double rcm_linear_entry(const rc_linear *L, const double *A, int i, int j)
{
    if (!A) return 0.0;
    if (!L->banded) return A[(size_t)i * L->n + j];
    const int d = j - i;
    if (d > L->kd || d < -L->kd) return 0.0;
    return A[(size_t)i * (2 * L->kd + 1) + L->kd + d];
}

/* Row i of A from column j0 (the band's first stored column of the row). */
static const double *row_from(const rc_linear *L, const double *A, int i, int j0)
{
    if (!L->banded) return A + (size_t)i * L->n + j0;
    return A + (size_t)i * (2 * L->kd + 1) + L->kd + (j0 - i);
}

/* Row i of A times x (the band's columns of the row, in order). */
static double row_dot(const rc_linear *L, const double *A, int i, const double *x)
{
    const int n = L->n, kd = L->kd;
    const int j0 = i - kd > 0 ? i - kd : 0, j1 = i + kd < n - 1 ? i + kd : n - 1;
    const double *a = row_from(L, A, i, j0);
    double s = 0.0;
    for (int j = j0; j <= j1; j++) s += a[j - j0] * x[j];
    return s;
}

/* Rows i .. i + 7 of a row band, all inside (kd <= i, i + 7 + kd < n):
 * eight independent sums, each in the order of row_dot (the same bits), so
 * the adds' latencies overlap. */
static void rows8(const rc_linear *L, const double *A, int i, const double *x, double *r)
{
    const int m = 2 * L->kd + 1;
    const double *a = A + (size_t)i * m, *x0 = x + i - L->kd;
    double s[8] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    for (int d = 0; d < m; d++)
        for (int k = 0; k < 8; k++) s[k] += a[(size_t)k * m + d] * x0[d + k];
    for (int k = 0; k < 8; k++) r[k] = s[k];
}

/* The nonzeros of a banded body's M, K, C row by row, in the band's column
 * order (CSR): a finite-element row has about 18 of the band's 2 kd + 1.
 * Skipping a zero entry leaves every sum as it was for finite x (adding
 * +-0 to a nonzero sum, or to the +0 a sum starts at, changes nothing; the
 * sums are never -0), so the products keep their bits at a quarter of the
 * memory traffic. (A non-finite x spreads to fewer rows; the step fails then
 * anyway.) */
struct rcm_linear_rows {
    int *start[3], *col[3];
    double *val[3];
};

static int which(const rc_linear *L, const double *A);

void rcm_linear_rows_free(rcm_linear_rows *r)
{
    if (!r) return;
    for (int a = 0; a < 3; a++) { rcb_free(r->start[a]); rcb_free(r->col[a]); rcb_free(r->val[a]); }
    rcb_free(r);
}

size_t rcm_linear_rows_memory(const rc_linear *L)
{
    const rcm_linear_rows *r = L->rows;
    size_t m = 0;
    for (int a = 0; r && a < 3; a++)
        if (r->start[a]) m += (size_t)(L->n + 1) * sizeof(int) + (size_t)r->start[a][L->n] * (sizeof(int) + sizeof(double));
    return m;
}

/* The nonzeros of a banded body's matrices (none for a dense body). */
rc_status rcm_linear_rows_build(rc_linear *L)
{
    if (!L->banded) return RC_OK;
    const int n = L->n, kd = L->kd;
    rcm_linear_rows *r = rcb_malloc(sizeof *r);
    if (!r) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    memset(r, 0, sizeof *r);
    const double *mats[3] = { L->M, L->K, L->C };
    for (int a = 0; a < 3; a++) {
        const double *A = mats[a];
        if (!A) continue;
        size_t nnz = 0;
        for (size_t e = 0; e < rcm_linear_store_size(L); e++) nnz += A[e] != 0.0;
        r->start[a] = rcb_malloc((size_t)(n + 1) * sizeof(int));
        r->col[a] = rcb_malloc((nnz ? nnz : 1) * sizeof(int));
        r->val[a] = rcb_malloc((nnz ? nnz : 1) * sizeof(double));
        if (!r->start[a] || !r->col[a] || !r->val[a] || nnz > 0x7fffffff) {
            rcm_linear_rows_free(r);
            return rc_set_error(RC_ERR_NOMEM, "out of memory");
        }
        int k = 0;
        for (int i = 0; i < n; i++) {
            r->start[a][i] = k;
            const int j0 = i - kd > 0 ? i - kd : 0, j1 = i + kd < n - 1 ? i + kd : n - 1;
            const double *row = row_from(L, A, i, j0);
            for (int j = j0; j <= j1; j++)
                if (row[j - j0] != 0.0) {
                    r->col[a][k] = j;
                    r->val[a][k] = row[j - j0];
                    k++;
                }
        }
        r->start[a][n] = k;
    }
    L->rows = r;
    return RC_OK;
}

/* r[i] = (A x)_i from the nonzeros (sums in the band's order). */
static void rows_sparse(const rc_linear *L, int a, const double *x, double *r)
{
    const int *st = L->rows->start[a], *col = L->rows->col[a];
    const double *val = L->rows->val[a];
    const int n = L->n;
    int i = 0;
    for (; i + 1 < n; i += 2) {   /* two rows at a time: their adds overlap */
        double s0 = 0.0, s1 = 0.0;
        const int e0 = st[i], e1 = st[i + 1], e2 = st[i + 2];
        const int m = e1 - e0 < e2 - e1 ? e1 - e0 : e2 - e1;
        for (int k = 0; k < m; k++) {
            s0 += val[e0 + k] * x[col[e0 + k]];
            s1 += val[e1 + k] * x[col[e1 + k]];
        }
        for (int k = e0 + m; k < e1; k++) s0 += val[k] * x[col[k]];
        for (int k = e1 + m; k < e2; k++) s1 += val[k] * x[col[k]];
        r[i] = s0;
        r[i + 1] = s1;
    }
    for (; i < n; i++) {
        double s0 = 0.0;
        for (int k = st[i]; k < st[i + 1]; k++) s0 += val[k] * x[col[k]];
        r[i] = s0;
    }
}

/* Row p of A: y += alpha A(p, .) (nonzeros in order); returns sum A(p, j) x_j when x is given */
double rcm_linear_row(const rc_linear *L, const double *A, int p, double alpha, double *y, const double *x)
{
    if (!A) return 0.0;
    double s = 0.0;
    const int a = L->rows ? which(L, A) : -1;
    if (a >= 0 && L->rows->start[a]) {
        const int *col = L->rows->col[a];
        const double *val = L->rows->val[a];
        for (int k = L->rows->start[a][p]; k < L->rows->start[a][p + 1]; k++) {
            if (y) y[col[k]] += alpha * val[k];
            if (x) s += val[k] * x[col[k]];
        }
        return s;
    }
    const int n = L->n, kd = L->banded ? L->kd : n;
    const int j0 = p - kd > 0 ? p - kd : 0, j1 = p + kd < n - 1 ? p + kd : n - 1;
    const double *row = row_from(L, A, p, j0);
    for (int j = j0; j <= j1; j++) {
        if (y) y[j] += alpha * row[j - j0];
        if (x) s += row[j - j0] * x[j];
    }
    return s;
}

/* r[i] = (A x)_i for every row (A not NULL). */
static void rows_all(const rc_linear *L, const double *A, const double *x, double *r)
{
    const int n = L->n, kd = L->kd;
    const int a = L->rows ? which(L, A) : -1;
    if (a >= 0 && L->rows->start[a]) {
        rows_sparse(L, a, x, r);
        return;
    }
    int i = 0;
    if (L->banded) {
        for (; i < kd && i < n; i++) r[i] = row_dot(L, A, i, x);
        for (; i + 7 + kd < n; i += 8) rows8(L, A, i, x, r + i);
    }
    for (; i < n; i++) r[i] = row_dot(L, A, i, x);
}

/* The last two products of each of M, K, C (x and A x, 2 n each): a step
 * multiplies v_k by M and q_k by K where the previous step's energies did
 * (eqs. 92, 97 and the audit), and a product of the same bytes is the same
 * product, so it is copied instead of read again from the band. */
struct rcm_linear_memo {
    double *x[3][2], *y[3][2];
    int valid[3][2], last[3];
};

size_t rcm_linear_memo_size(int n) { return sizeof(struct rcm_linear_memo) + (size_t)12 * n * sizeof(double); }

rcm_linear_memo *rcm_linear_memo_new(int n)
{
    rcm_linear_memo *m = rcb_malloc(rcm_linear_memo_size(n));
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    double *p = (double *)(m + 1);
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 2; k++) {
            m->x[a][k] = p; p += n;
            m->y[a][k] = p; p += n;
        }
    return m;
}

static int which(const rc_linear *L, const double *A)
{
    return A == L->M ? 0 : A == L->K ? 1 : A == L->C ? 2 : -1;
}

/* r = A x through the memo */
static void product(const rc_linear *L, const double *A, const double *x, double *r)
{
    const int a = which(L, A);
    rcm_linear_memo *m = L->memo;
    const size_t bytes = (size_t)L->n * sizeof(double);
    if (!m || a < 0) {
        rows_all(L, A, x, r);
        return;
    }
    for (int k = 0; k < 2; k++)
        if (m->valid[a][k] && memcmp(m->x[a][k], x, bytes) == 0) {
            memcpy(r, m->y[a][k], bytes);
            m->last[a] = k;
            return;
        }
    rows_all(L, A, x, r);
    const int k = 1 - m->last[a];   /* replace the older */
    memcpy(m->x[a][k], x, bytes);
    memcpy(m->y[a][k], r, bytes);
    m->valid[a][k] = 1;
    m->last[a] = k;
}

/* y = A x (only the band is read, so a banded body costs O(n kd)); A NULL: y = 0 */
void rcm_linear_mul(const rc_linear *L, const double *A, const double *x, double *y)
{
    if (!A) {
        memset(y, 0, (size_t)L->n * sizeof(double));
        return;
    }
    product(L, A, x, y);
}

/* x^T A x (A NULL: 0); r: n doubles of scratch */
double rcm_linear_quad(const rc_linear *L, const double *A, const double *x, double *r)
{
    if (!A) return 0.0;
    product(L, A, x, r);
    double s = 0.0;
    for (int i = 0; i < L->n; i++) s += x[i] * r[i];
    return s;
}

/* cM M + cC C + cK K into F: LAPACK upper band ((kd + 1) x n, column-major)
 * or dense n x n; the entries as linear.c always formed them */
void rcm_linear_combo_fill(const rc_linear *L, double cM, double cC, double cK, double *F)
{
    const int n = L->n, kd = L->kd;
    if (L->banded) {
        const size_t m = (size_t)(2 * kd + 1);
        for (int j = 0; j < n; j++)
            for (int i = j - kd > 0 ? j - kd : 0; i <= j; i++) {
                const size_t e = (size_t)i * m + kd + (j - i);
                F[(kd + i - j) + (size_t)j * (kd + 1)] =
                    cM * L->M[e] + (L->C ? cC * L->C[e] : 0.0) + (L->K ? cK * L->K[e] : 0.0);
            }
        return;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            F[(size_t)i * n + j] = cM * L->M[(size_t)i * n + j] + (L->C ? cC * L->C[(size_t)i * n + j] : 0.0) +
                                   (L->K ? cK * L->K[(size_t)i * n + j] : 0.0);
}

/* A dense n x n matrix (bandwidth kd) into a row band of n x (2 kd + 1). */
void rcm_band_pack(int n, int kd, const double *A, double *B)
{
    const size_t m = (size_t)(2 * kd + 1);
    memset(B, 0, m * (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = i - kd > 0 ? i - kd : 0; j <= i + kd && j < n; j++) B[(size_t)i * m + kd + (j - i)] = A[(size_t)i * n + j];
}

/* The largest |i - j| with B(i, j) != 0 of a row band of half-width kd. */
int rcm_band_width(int n, int kd, const double *B)
{
    int w = 0;
    if (!B) return 0;
    const size_t m = (size_t)(2 * kd + 1);
    for (int i = 0; i < n; i++)
        for (int d = -kd; d <= kd; d++)
            if (B[(size_t)i * m + kd + d] != 0.0 && (d > w || -d > w)) w = d > 0 ? d : -d;
    return w;
}

/* A row band of half-width kd narrowed in place to kd2 <= kd. */
void rcm_band_narrow(int n, int kd, int kd2, double *B)
{
    const size_t m = (size_t)(2 * kd + 1), m2 = (size_t)(2 * kd2 + 1);
    for (int i = 0; i < n; i++)
        memmove(B + (size_t)i * m2, B + (size_t)i * m + (kd - kd2), m2 * sizeof(double));
}

/* A row band of half-width kd into a dense n x n matrix D. */
void rcm_band_unpack(int n, int kd, const double *B, double *D)
{
    const size_t m = (size_t)(2 * kd + 1);
    memset(D, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = i - kd > 0 ? i - kd : 0; j <= i + kd && j < n; j++) D[(size_t)i * n + j] = B[(size_t)i * m + kd + (j - i)];
}
