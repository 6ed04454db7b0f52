/* broad3d.c -- the spatial broad phase (collide/geom3d.h): a uniform cell
 * grid stored as a hash of cells. Every box enters each cell it covers (at
 * most 4 per axis; wider boxes are "big" and tested against every box); two
 * boxes are tested in each bucket they share, and a pair is reported by the
 * one cell that holds the least corner of their intersection, max(lo_i,
 * lo_j), so exactly once. Two passes over the boxes (count per bucket, then
 * place: a counting sort), no allocation once the buffers are large enough. */
#include "collide/geom3d.h"

#include <limits.h>
#include <stdint.h>

enum { MAX_SPAN = 4 };   /* cells per axis before a box is big */

typedef struct {
    double o[3], inv;    /* origin, 1 / cell size */
    unsigned mask;       /* buckets - 1 */
} grid3;

/* x >= the origin for every finite box: truncation is the floor */
static int cell_of(const grid3 *g, double x, int axis)
{
    return (int)((x - g->o[axis]) * g->inv);
}

static unsigned bucket_of(const grid3 *g, int i, int j, int k)
{
    const uint32_t h = (uint32_t)i * 73856093u ^ (uint32_t)j * 19349663u ^ (uint32_t)k * 83492791u;
    return (h ^ h >> 15) & g->mask;
}

static int overlap(const double *a, const double *b)
{
    return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

static rc_status push(rcc_broad3 *b, int i, int j)
{
    if (2 * (b->npairs + 1) > b->cap_pairs)
        RC_CHECK(rcb_reserve((void **)&b->pairs, &b->cap_pairs, 2 * (b->npairs + 1), sizeof(int)));
    b->pairs[2 * b->npairs] = i < j ? i : j;
    b->pairs[2 * b->npairs + 1] = i < j ? j : i;
    b->npairs++;
    return RC_OK;
}

/* The cell size and origin; the number of grid entries (or -1: too many). */
static long long plan(rcc_broad3 *b, grid3 *g, int n, const double *aabb, double cell)
{
    double sum = 0.0, lo[3] = { HUGE_VAL, HUGE_VAL, HUGE_VAL }, hi[3] = { -HUGE_VAL, -HUGE_VAL, -HUGE_VAL };
    int nfin = 0;
    for (int k = 0; k < n; k++) {
        const double *x = aabb + 6 * k;
        const double e = fmax(x[3] - x[0], fmax(x[4] - x[1], x[5] - x[2]));
        if (!isfinite(e)) continue;
        sum += e;
        nfin++;
        for (int a = 0; a < 3; a++) { lo[a] = fmin(lo[a], x[a]); hi[a] = fmax(hi[a], x[3 + a]); }
    }
    double h = cell > 0.0 ? cell : nfin ? 2.0 * sum / nfin : 1.0;
    const double span = nfin ? fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) : 0.0;
    if (!(h > 0.0)) h = span > 0.0 ? span / cbrt((double)nfin) : 1.0;
    if (span / h > 1e8) h = span / 1e8;             /* cell coordinates stay ints */
    b->h = h;
    g->inv = 1.0 / h;
    for (int a = 0; a < 3; a++) g->o[a] = nfin ? lo[a] : 0.0;
    long long entries = 0;
    for (int k = 0; k < n; k++) {
        const double *x = aabb + 6 * k;
        long long c = 1;
        for (int a = 0; a < 3 && c; a++) {
            if (!(isfinite(x[a]) && isfinite(x[3 + a]))) { c = 0; break; }   /* infinite or NaN: big */
            const int s = cell_of(g, x[3 + a], a) - cell_of(g, x[a], a) + 1;
            c = s > MAX_SPAN ? 0 : c * s;
        }
        entries += c;
    }
    return entries > INT_MAX / 6 ? -1 : entries;
}

/* The cells of box x: [c0, c1] per axis; 0 if big (not finite, or wider
 * than MAX_SPAN cells). */
static int cells(const grid3 *g, const double *x, int c0[3], int c1[3])
{
    for (int a = 0; a < 3; a++) {
        if (!(isfinite(x[a]) && isfinite(x[3 + a]))) return 0;
        c0[a] = cell_of(g, x[a], a);
        c1[a] = cell_of(g, x[3 + a], a);
        if (c1[a] - c0[a] + 1 > MAX_SPAN) return 0;
    }
    return 1;
}

/* Count (fill = 0) or place (fill = 1) the entries of every box; the big
 * boxes into b->big. */
static int distribute(rcc_broad3 *b, const grid3 *g, int n, const double *aabb, int fill)
{
    int nbig = 0;
    for (int k = 0; k < n; k++) {
        const double *x = aabb + 6 * k;
        int c0[3], c1[3];
        if (!cells(g, x, c0, c1)) { if (fill) b->big[nbig] = k; nbig++; continue; }
        for (int i = c0[0]; i <= c1[0]; i++)
            for (int j = c0[1]; j <= c1[1]; j++)
                for (int l = c0[2]; l <= c1[2]; l++) {
                    const unsigned u = bucket_of(g, i, j, l);
                    if (!fill) { b->head[u + 1]++; continue; }
                    const int e = b->head[u]++;
                    b->cell[e] = k;
                    b->key[3 * e] = i; b->key[3 * e + 1] = j; b->key[3 * e + 2] = l;
                    memcpy(b->box + 6 * e, x, 6 * sizeof(double));
                }
    }
    return nbig;
}

/* The pairs of one bucket's entries [e0, e1). */
static rc_status bucket_pairs(rcc_broad3 *b, const grid3 *g, int e0, int e1)
{
    for (int e = e0; e < e1; e++) {
        const int i = b->cell[e], *ke = b->key + 3 * e;
        const double *xi = b->box + 6 * e;
        for (int f = e + 1; f < e1; f++) {
            const int j = b->cell[f], *kf = b->key + 3 * f;
            if (j == i || kf[0] != ke[0] || kf[1] != ke[1] || kf[2] != ke[2]) continue;
            const double *xj = b->box + 6 * f;
            if (!overlap(xi, xj)) continue;
            /* the cell of the intersection's least corner reports the pair */
            if (cell_of(g, fmax(xi[0], xj[0]), 0) != ke[0] || cell_of(g, fmax(xi[1], xj[1]), 1) != ke[1]
                || cell_of(g, fmax(xi[2], xj[2]), 2) != ke[2]) continue;
            RC_CHECK(push(b, i, j));
        }
    }
    return RC_OK;
}

rc_status rcc_broad3_pairs(rcc_broad3 *b, int n, const double *aabb, double cell)
{
    b->npairs = 0;
    if (n < 2) return RC_OK;
    grid3 g;
    const long long ne = plan(b, &g, n, aabb, cell);
    if (ne < 0) return rc_set_error(RC_ERR_NOMEM, "broad phase: too many grid entries for %d boxes", n);
    unsigned nb = 16;
    while ((long long)nb < ne && nb < (1u << 30)) nb <<= 1;
    g.mask = nb - 1;
    RC_CHECK(rcb_reserve((void **)&b->head, &b->cap_head, (int)nb + 1, sizeof(int)));
    RC_CHECK(rcb_reserve((void **)&b->cell, &b->cap_cell, (int)ne + 1, sizeof(int)));
    RC_CHECK(rcb_reserve((void **)&b->key, &b->cap_key, 3 * (int)ne + 3, sizeof(int)));
    RC_CHECK(rcb_reserve((void **)&b->box, &b->cap_box, 6 * (int)ne + 6, sizeof(double)));
    RC_CHECK(rcb_reserve((void **)&b->big, &b->cap_big, n, sizeof(int)));
    memset(b->head, 0, ((size_t)nb + 1) * sizeof(int));
    distribute(b, &g, n, aabb, 0);
    for (unsigned u = 0; u < nb; u++) b->head[u + 1] += b->head[u];   /* head[u]: start of bucket u */
    const int nbig = distribute(b, &g, n, aabb, 1);                    /* head[u]: its end */
    for (unsigned u = 0; u < nb; u++)
        RC_CHECK(bucket_pairs(b, &g, u ? b->head[u - 1] : 0, b->head[u]));
    /* big boxes against every box (a pair of big ones once) */
    for (int a = 0, bi = 0; a < nbig; a++) {
        const int i = b->big[a];
        for (int j = 0; j < n; j++) {
            while (bi < nbig && b->big[bi] < j) bi++;
            const int j_big = bi < nbig && b->big[bi] == j;
            if (j == i || (j_big && j < i)) continue;
            if (overlap(aabb + 6 * i, aabb + 6 * j)) RC_CHECK(push(b, i, j));
        }
        bi = 0;
    }
    return RC_OK;
}

void rcc_broad3_free(rcc_broad3 *b)
{
    rcb_free(b->cell);
    rcb_free(b->key);
    rcb_free(b->head);
    rcb_free(b->box);
    rcb_free(b->big);
    rcb_free(b->pairs);
    memset(b, 0, sizeof *b);
}
