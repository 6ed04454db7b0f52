/* fem_mesh.c -- the node graph of a finite-element body's triangle mesh:
 * nodes in no triangle, and the reverse Cuthill--McKee numbering (Cuthill &
 * McKee 1969; George & Liu 1981, ch. 4: a pseudo-peripheral start node per
 * connected component, breadth-first by increasing degree, reversed) that
 * narrows the band of M, K and Mhat = M + h theta C + h^2 theta^2 K. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

rc_status rcm_fem_orphan_check(const rc_fem_def *d, const char *what)
{
    unsigned char *used = rcb_malloc((size_t)d->nnodes);
    if (!used) return rc_set_error(RC_ERR_NOMEM, "%s: out of memory", what);
    memset(used, 0, (size_t)d->nnodes);
    for (int i = 0; i < 3 * d->ntri; i++) used[d->tri[i]] = 1;
    int orphan = -1;
    for (int k = 0; k < d->nnodes && orphan < 0; k++)
        if (!used[k]) orphan = k;
    rcb_free(used);
    if (orphan >= 0)
        return rc_set_error(RC_ERR_ARG, "%s: node %d belongs to no triangle (its mass would be zero)", what, orphan + 1);
    return RC_OK;
}

typedef struct graph {
    int n, *start, *adj, *deg;   /* CSR: neighbours of k in adj[start[k] .. start[k + 1]) */
} graph;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The node graph of the triangles (each edge once per direction). */
static rc_status graph_build(const rc_fem_def *d, graph *g)
{
    const int n = d->nnodes;
    g->n = n;
    g->start = rcb_malloc((size_t)(n + 1) * sizeof(int));
    g->adj = rcb_malloc((size_t)6 * d->ntri * sizeof(int));
    g->deg = rcb_malloc((size_t)n * sizeof(int));
    if (!g->start || !g->adj || !g->deg) return rc_set_error(RC_ERR_NOMEM, "fem body: out of memory (node graph)");
    memset(g->start, 0, (size_t)(n + 1) * sizeof(int));
    for (int i = 0; i < 3 * d->ntri; i++) g->start[d->tri[i] + 1] += 2;
    for (int k = 0; k < n; k++) g->start[k + 1] += g->start[k];
    memset(g->deg, 0, (size_t)n * sizeof(int));
    for (int e = 0; e < d->ntri; e++)
        for (int a = 0; a < 3; a++) {
            const int p = d->tri[3 * e + a];
            for (int b = 1; b < 3; b++) g->adj[g->start[p] + g->deg[p]++] = d->tri[3 * e + (a + b) % 3];
        }
    for (int k = 0; k < n; k++) {   /* sort, drop repeats (in place: deg = distinct count) */
        int *nb = g->adj + g->start[k], m = 0;
        qsort(nb, (size_t)g->deg[k], sizeof(int), cmp_int);
        for (int i = 0; i < g->deg[k]; i++)
            if (m == 0 || nb[m - 1] != nb[i]) nb[m++] = nb[i];
        g->deg[k] = m;
    }
    return RC_OK;
}

static void graph_free(graph *g)
{
    rcb_free(g->start); rcb_free(g->adj); rcb_free(g->deg);
}

/* Breadth-first from s over unnumbered nodes (mark[k] == 0), writing the
 * order into q (returns its length); with by_degree, the neighbours of each
 * node are queued by increasing degree (Cuthill--McKee). level[k]: distance. */
static int bfs(const graph *g, int s, const unsigned char *mark, int *level, int *q, int by_degree)
{
    int head = 0, tail = 0;
    for (int i = 0; i < g->n; i++) level[i] = -1;
    q[tail++] = s;
    level[s] = 0;
    while (head < tail) {
        const int k = q[head++], first = tail;
        for (int i = 0; i < g->deg[k]; i++) {
            const int j = g->adj[g->start[k] + i];
            if (mark[j] || level[j] >= 0) continue;
            level[j] = level[k] + 1;
            q[tail++] = j;
        }
        for (int i = first + 1; by_degree && i < tail; i++)   /* insertion sort by degree (stable) */
            for (int j = i; j > first && g->deg[q[j - 1]] > g->deg[q[j]]; j--) {
                int t = q[j]; q[j] = q[j - 1]; q[j - 1] = t;
            }
    }
    return tail;
}

/* A pseudo-peripheral node of s's component (George & Liu's algorithm). */
static int peripheral(const graph *g, int s, const unsigned char *mark, int *level, int *q)
{
    int ecc = -1;
    for (int it = 0; it < 8; it++) {
        const int m = bfs(g, s, mark, level, q, 0);
        const int e = level[q[m - 1]];
        if (e <= ecc) break;
        ecc = e;
        int best = q[m - 1];
        for (int i = m - 1; i >= 0 && level[q[i]] == e; i--)
            if (g->deg[q[i]] < g->deg[best]) best = q[i];
        s = best;
    }
    return s;
}

static int node_band(const rc_fem_def *d, const int *perm)
{
    int bw = 0;
    for (int e = 0; e < d->ntri; e++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                const int p = perm ? perm[d->tri[3 * e + a]] : d->tri[3 * e + a];
                const int r = perm ? perm[d->tri[3 * e + b]] : d->tri[3 * e + b];
                if (r - p > bw) bw = r - p;
            }
    return bw;
}

static rc_status rcm_order(const rc_fem_def *d, int *perm)
{
    graph g;
    memset(&g, 0, sizeof g);
    const int n = d->nnodes;
    unsigned char *mark = rcb_malloc((size_t)n);
    int *level = rcb_malloc((size_t)n * sizeof(int)), *q = rcb_malloc((size_t)n * sizeof(int));
    int *order = rcb_malloc((size_t)n * sizeof(int));
    rc_status s = (mark && level && q && order) ? graph_build(d, &g) : rc_set_error(RC_ERR_NOMEM, "fem body: out of memory (numbering)");
    if (s == RC_OK) {
        memset(mark, 0, (size_t)n);
        int done = 0;
        while (done < n) {
            int s0 = -1;   /* the unnumbered node of least degree starts a component */
            for (int k = 0; k < n; k++)
                if (!mark[k] && (s0 < 0 || g.deg[k] < g.deg[s0])) s0 = k;
            s0 = peripheral(&g, s0, mark, level, q);
            const int m = bfs(&g, s0, mark, level, q, 1);
            for (int i = 0; i < m; i++) {
                mark[q[i]] = 1;
                order[done++] = q[i];
            }
        }
        for (int i = 0; i < n; i++) perm[order[n - 1 - i]] = i;   /* reversed */
    }
    graph_free(&g);
    rcb_free(mark); rcb_free(level); rcb_free(q); rcb_free(order);
    return s;
}

rc_status rc_fem_numbering(const rc_fem_def *def, int renumber, int *perm, int *bandwidth)
{
    RC_CHECK(rc_fem_def_check(def, NULL));
    if (!perm) return rc_set_error(RC_ERR_ARG, "rc_fem_numbering: 'perm' is NULL");
    if (renumber) {
        RC_CHECK(rcm_order(def, perm));
        if (node_band(def, perm) > node_band(def, NULL))   /* keep the given numbering if it is narrower */
            for (int k = 0; k < def->nnodes; k++) perm[k] = k;
    } else {
        for (int k = 0; k < def->nnodes; k++) perm[k] = k;
    }
    if (bandwidth) *bandwidth = 2 * node_band(def, perm) + 1;
    return RC_OK;
}
