/* broad_phase.c -- the broadphase: the uniform cell grid over the shapes'
 * inflated AABBs, the candidate pairs (and the named rules' pairs), their
 * order by (A, 2B + f) (collide.c has the overview). */
#include "collide/collide_impl.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- sorting */

/* Sort the candidate pairs (A, 2B + f) lexicographically: two stable counting
 * sorts (LSD radix, O(npairs + nshapes)). The scratch (2 npairs + 2 nshapes + 3
 * ints) is the broadphase grid's storage (done with once the pairs are
 * found), else the spare room of w->pairs. On two threads with the solver's
 * (rcm_team2), each pass counts and scatters by halves of the pairs, the
 * second half's of a key after the first's: the one-thread order exactly
 * (the second half's counts, nshapes ints more, from the work memory). */
rc_status rcc_sort_pairs(rc_world *w)
{
    int np = w->npairs, nk = 2 * w->nshapes + 2;
    if (np < 2) return RC_OK;
    int *in = w->pairs, *out;
    if (2LL * np + nk + 1 <= w->cap_order) {
        out = w->order;
    } else {
        RC_CHECK(rcc_pairs_room(w, 4LL * np + nk + 1));
        in = w->pairs;
        out = in + 2 * np;
    }
    int *cnt = out + 2 * np, *cnt2 = NULL;
    const int team = rcm_team2(w, np), kh = team ? np / 2 : np;
    if (team) RC_CHECK(rcb_arena_array(&w->work, (void **)&cnt2, nk + 1LL, sizeof(int), "broadphase pairs' sort"));
    const int k0[2] = { 0, kh }, k1[2] = { kh, np };
    for (int pass = 0; pass < 2; pass++) {
        const int *src = pass ? out : in, col = pass ? 0 : 1;
        int *dst = pass ? in : out;
        RC_OMP(omp parallel for num_threads(2) schedule(static, 1) if(team))
        for (int t = 0; t < 2; t++) {   /* each half's count of each key */
            int *c = t ? cnt2 : cnt;
            if (!c) continue;
            for (int i = 0; i <= nk; i++) c[i] = 0;
            for (int k = k0[t]; k < k1[t]; k++) c[src[2 * k + col]]++;
        }
        for (int i = 0, run = 0; i <= nk; i++) {   /* where each half's keys start */
            const int n0 = cnt[i], n1 = cnt2 ? cnt2[i] : 0;
            cnt[i] = run;
            if (cnt2) cnt2[i] = run + n0;
            run += n0 + n1;
        }
        RC_OMP(omp parallel for num_threads(2) schedule(static, 1) if(team))
        for (int t = 0; t < 2; t++) {
            int *c = t ? cnt2 : cnt;
            if (!c) continue;
            for (int k = k0[t]; k < k1[t]; k++) {
                int d = c[src[2 * k + col]]++;
                dst[2 * d] = src[2 * k];
                dst[2 * d + 1] = src[2 * k + 1];
            }
        }
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- broadphase */

/* The pairs live in the step's work memory with the grid (rcc_narrow_pairs
 * gives both back after the narrowphase). The first block of a detection
 * takes w->room_pairs ints (the last detection's pairs and half as many more:
 * the count wanders from step to step); a larger need takes a new block by
 * a quarter more and copies the pairs (the old block is given back with the
 * rest). */
rc_status rcc_pairs_room(rc_world *w, long long need)
{
    if (need <= w->cap_pairs) return RC_OK;
    long long g = w->cap_pairs > w->room_pairs ? w->cap_pairs : w->room_pairs;
    if (g < 64) g = 64;
    while (g < need) g += g / 4;
    if (g > INT_MAX) return rc_set_error(RC_ERR_NOMEM, "broadphase: too many pairs (%lld ints)", need);
    int *p;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&p, g, sizeof(int), "broadphase pairs"));
    if (w->npairs > 0) memcpy(p, w->pairs, (size_t)2 * w->npairs * sizeof(int));
    w->pairs = p;
    w->cap_pairs = (int)g;
    return RC_OK;
}

/* Candidate pair (i, j): ordered into (A, B) and stored as (A, 2B + !named)
 * so that sorting puts a pair's named copy first. */
static rc_status push_pair(rc_world *w, int i, int j, int named)
{
    const rc_shape *a = &w->shapes[i], *b = &w->shapes[j];
    if (b->body == RC_GROUND || (a->body != RC_GROUND && j < i)) { int t = i; i = j; j = t; }
    if (rcm_shape_feature_count(a, b) == 0) return RC_OK;
    if (named && !rcm_world_pair_is_named(w, i, j)) return RC_OK;
    if (rcm_sleeping_pair(w, a->body, b->body)) return RC_OK;   /* kept as it was (integrate/sleep.c) */
    RC_CHECK(rcc_pairs_room(w, 2LL * (w->npairs + 1)));
    w->pairs[2 * w->npairs] = i;
    w->pairs[2 * w->npairs + 1] = 2 * j + !named;
    w->npairs++;
    return RC_OK;
}

/* A candidate pair of the broadphase: two shapes of kinds that have features
 * and of different bodies, so that their feature count is > 0; ordered into
 * (A, B) from their bodies alone, without reading the shapes. */
static rc_status push_candidate(rc_world *w, int i, int j, int body_i, int body_j)
{
    if (rcm_sleeping_pair(w, body_i, body_j)) return RC_OK;   /* kept as it was (integrate/sleep.c) */
    if (body_j == RC_GROUND || (body_i != RC_GROUND && j < i)) { int t = i; i = j; j = t; }
    if (2 * (w->npairs + 1) > w->cap_pairs) RC_CHECK(rcc_pairs_room(w, 2LL * (w->npairs + 1)));
    w->pairs[2 * w->npairs] = i;
    w->pairs[2 * w->npairs + 1] = 2 * j + 1;
    w->npairs++;
    return RC_OK;
}

/* The uniform grid (layout of w->order in collide.c). */

enum { CELL_SKIP = INT_MIN, CELL_BIG, CELL_HALF, CELL_CAND };  /* marks in cell[4 i] (CELL_HALF: ground
                                                                  half-planes and circular walls;
                                                                  CELL_CAND: a grid candidate, until
                                                                  its cells are set) */

/* cell = GRID_SCALE x the typical inflated extent of the body shapes (see
 * cell_size); a shape whose cell coordinates would exceed GRID_MAX_COORD
 * (far away, or non-finite) goes to the big list. */
#define GRID_SCALE 1.5
#define GRID_MAX_COORD 1e9

typedef struct grid {
    int ns, E, T;
    double x0, L;       /* periodic boundary in x: cell [x0, x0 + L); L = 0: none */
    int nx;             /* periodic: columns across L (cell size L / nx)           */
    int *hdr;
    double *box;        /* 4 per shape: inflated AABB                         */
    int *cell;          /* 4 per shape: cx0 cy0 cx1 cy1, or a CELL_* mark      */
    int *body;          /* ns: body of each shape                             */
    int *list;          /* ns: grid shapes from the front, big ones at the back */
    int *start;         /* T + 1: bucket offsets                              */
    int *ent;           /* E: shape << 2 | first column << 1 | first row      */
} grid;

static rc_status grid_layout(rc_world *w, grid *g)
{
    int ns = w->nshapes;
    if (ns > (INT_MAX / 2) / 40)
        return rc_set_error(RC_ERR_NOMEM, "broadphase: too many shapes (%d)", ns);
    int E = 4 * ns + 64, T = 64;
    while (T < E) T *= 2;
    int need = 8 * ns + 4 * ns + 2 * ns + (T + 1) + E;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->order, need, sizeof(int), "broadphase grid"));   /* 16-byte aligned */
    w->cap_order = need;
    int *o = w->order;
    g->ns = ns; g->E = E; g->T = T;
    g->hdr = w->grid_hdr;
    g->box = (double *)(void *)o;
    g->cell = o + 8 * ns;
    g->body = g->cell + 4 * ns;
    g->list = g->body + ns;
    g->start = g->list + ns;
    g->ent = g->start + T + 1;
    return RC_OK;
}

/* floor for |t| < 2^31 */
static int ifloor(double t)
{
    int k = (int)t;
    return k - (t < (double)k);
}

static unsigned cell_hash(int cx, int cy)
{
    unsigned h = (unsigned)cx * 0x9E3779B1u ^ ((unsigned)cy + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    return h;
}

static int boxes_overlap(const double *a, const double *b)
{
    return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

static int boxes_overlap_p(const grid *g, const double *a, const double *b)
{
    if (g->L == 0.0) return boxes_overlap(a, b);
    double d = image_shift(g->L, 0.5 * (a[0] + a[2]), 0.5 * (b[0] + b[2]));
    return a[0] <= b[2] + d && b[0] + d <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/* Can a shape inside box b (inflated AABB) touch the half-plane (P, N) within
 * margin m? Every gap of a disk/point (N.(c - P) - r) or polygon vertex
 * (N.(x_i - P)) is >= the least N.(x - P) over the box, s, reached at a
 * corner; keep the pair when s <= m plus a rounding allowance (the inflation
 * already lowers s by at least 0.75 m). */
static int halfplane_near(const double N[2], const double P[2], const double *b, double m)
{
    double x = N[0] >= 0.0 ? b[0] : b[2], y = N[1] >= 0.0 ? b[1] : b[3];
    double s = N[0] * (x - P[0]) + N[1] * (y - P[1]);
    return s <= m + 1e-9 * (1.0 + fabs(x) + fabs(y) + fabs(P[0]) + fabs(P[1]));
}

/* Can a shape inside box b touch the circular wall (centre C, radius R: the
 * solid outside the circle) within margin m? Every gap of a disk/point
 * (R - r - |c - C|) or polygon vertex (R - |x_i - C|) is >= R - the largest
 * |x - C| over the box, reached at the farthest corner; keep the pair when
 * that is <= m plus a rounding allowance. */
static int circle_inside_near(const double C[2], double R, const double *b, double m)
{
    double x = fabs(b[0] - C[0]) >= fabs(b[2] - C[0]) ? b[0] : b[2];
    double y = fabs(b[1] - C[1]) >= fabs(b[3] - C[1]) ? b[1] : b[3];
    double s = R - hypot(x - C[0], y - C[1]);
    return s <= m + 1e-9 * (1.0 + fabs(x) + fabs(y) + fabs(C[0]) + fabs(C[1]) + R);
}

/* A ground wall (marked CELL_HALF: a half-plane or a circular wall) near box b. */
static int wall_near(const rc_shape *s, const double *b, double m)
{
    if (s->type == RC_SHAPE_CIRCLE_INSIDE) return circle_inside_near(s->offset, s->radius, b, m);
    return halfplane_near(s->normal, s->point, b, m);
}

/* The grid list's shapes list[l0..l1) near big shape i (of another body),
 * in list order, into out; their count. */
static int near_grid(const grid *g, const rc_shape *S, int i, int l0, int l1, double m, int *out)
{
    const int *list = g->list, *body = g->body;
    const double *box = g->box;
    int n = 0;
    if (g->cell[4 * i] == CELL_HALF) {
        for (int l = l0; l < l1; l++) {
            const int j = list[l];
            if (wall_near(&S[i], box + 4 * j, m) && body[j] != body[i]) out[n++] = j;
        }
    } else {
        for (int l = l0; l < l1; l++) {
            const int j = list[l];
            if (boxes_overlap_p(g, box + 4 * i, box + 4 * j) && body[j] != body[i]) out[n++] = j;
        }
    }
    return n;
}

/* Cell size: GRID_SCALE x the mean inflated extent of the body shapes among
 * the candidates, the mean taken again over the extents <= 4 x the first mean
 * (a few huge shapes must not coarsen the grid for all the others). */
static double cell_size(const grid *g, int ncand)
{
    double sum = 0.0, sum2 = 0.0;
    int n = 0, n2 = 0;
    for (int pass = 0; pass < 2; pass++) {
        double cap = pass ? 4.0 * sum / n : INFINITY;
        for (int k = 0; k < ncand; k++) {
            int i = g->list[k];
            if (g->body[i] == RC_GROUND) continue;
            const double *b = g->box + 4 * i;
            double d = fmax(b[2] - b[0], b[3] - b[1]);
            if (!rcb_finite(d) || !(d <= cap)) continue;
            if (pass) { sum2 += d; n2++; } else { sum += d; n++; }
        }
        if (!n) return 1.0;
    }
    double h = GRID_SCALE * sum2 / n2;
    return h > 0.0 && rcb_finite(h) ? h : 1.0;
}

/* Cell ranges of the candidates for cell size h: the number of grid entries;
 * a candidate too far (or not finite) or covering more than klim cells is
 * marked big. */
static long long grid_cells(grid *g, int ncand, double h, long long klim, int team)
{
    (void)team;
    double inv = 1.0 / h;
    long long nent = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(2) schedule(static) reduction(+ : nent) if(team)
#endif
    for (int k = 0; k < ncand; k++) {
        int i = g->list[k], *c = g->cell + 4 * i;
        const double *b = g->box + 4 * i;
        double t[4] = { (b[0] - g->x0) * inv, b[1] * inv, (b[2] - g->x0) * inv, b[3] * inv };
        if (!(fabs(t[0]) < GRID_MAX_COORD && fabs(t[1]) < GRID_MAX_COORD
              && fabs(t[2]) < GRID_MAX_COORD && fabs(t[3]) < GRID_MAX_COORD)) { c[0] = CELL_BIG; continue; }
        for (int j = 0; j < 4; j++) c[j] = ifloor(t[j]);
        long long K = (long long)(c[2] - c[0] + 1) * (c[3] - c[1] + 1);
        /* periodic: a shape over more than half the columns would meet another
         * in two wrapped ranges (big: tested against every shape) */
        if (K > klim || (g->nx && 2LL * (c[2] - c[0] + 1) > g->nx)) c[0] = CELL_BIG;
        else nent += K;
    }
    return nent;
}

/* The pairs within buckets lo .. hi - 1 (st: the buckets' starts in
 * g->ent), tested only in the first cell both cover (the cell of the corner
 * (max x0, max y0)): there one of them starts its column and one (maybe the
 * other) its row. A hashed bucket may hold several cells; entries of
 * different cells are not told apart (it would take 2 ints per entry): such
 * a pair is tested and, in the rare case that both shapes cover both cells,
 * found twice, the copy dropped with the duplicates after the sort. buf:
 * NULL, into w->pairs (a status returned); else into buf (at most cap ints,
 * *nbuf of them), stopping before the first bucket that does not fit: that
 * bucket's index returned (hi when all fit). */
static long bucket_pairs(rc_world *w, const grid *g, int lo, int hi, int *buf, int *nbuf, int cap)
{
    const int *st = g->start, *body = g->body;
    const double *box = g->box;
    for (int b = lo; b < hi; b++) {
        const int p1 = st[b + 1], n0 = buf ? *nbuf : 0;
        for (int p = st[b]; p < p1; p++) {
            int ep = g->ent[p], i = ep >> 2;
            const double *bi = box + 4 * i;
            for (int q = p + 1; q < p1; q++) {
                int eq = g->ent[q];
                if (((ep | eq) & 3) != 3) continue;
                int j = eq >> 2;
                if (!boxes_overlap_p(g, bi, box + 4 * j) || body[i] == body[j]) continue;
                if (!buf) {
                    RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
                    continue;
                }
                if (rcm_sleeping_pair(w, body[i], body[j])) continue;
                if (*nbuf + 2 > cap) { *nbuf = n0; return b; }   /* the caller does this bucket on */
                int a = i, c = j;
                if (body[j] == RC_GROUND || (body[i] != RC_GROUND && j < i)) { a = j; c = i; }   /* push_candidate's (A, B) */
                buf[(*nbuf)++] = a;
                buf[(*nbuf)++] = 2 * c + 1;
            }
        }
    }
    return buf ? hi : RC_OK;
}

/* Candidate pairs: the shapes whose AABBs, each inflated by bm / 2, overlap
 * (a ground half-plane or circular wall: whose box reaches within the margin
 * of it). */
rc_status rcc_grid_pairs(rc_world *w, double m, double bm)
{
    grid g = { 0 };
    RC_CHECK(grid_layout(w, &g));
    if (rcm_periodic(w)) { g.x0 = w->def.periodic_x[0]; g.L = w->def.periodic_x[1] - g.x0; }
    const rc_shape *S = w->shapes;
    const int ns = g.ns;
    const double e = 0.5 * bm;
    double *box = g.box;
    int *cell = g.cell, *list = g.list, *body = g.body;

    /* the one pass over the shapes: inflated boxes, bodies; marks for the
     * shapes that never touch anything (body half-planes and segments) and
     * for the ground half-planes; the others are the grid's candidates */
    /* (on two threads with the solver's: each shape's own entries; the first
     * too-wide shape and the candidates' list in index order after) */
    int ncand = 0, wide = ns, team = 0;
#ifdef _OPENMP
    team = rcm_team2(w, ns);
#pragma omp parallel for num_threads(2) schedule(static) reduction(min : wide) if(team)
#endif
    for (int i = 0; i < ns; i++) {
        if (i + PREFETCH_AHEAD < ns) PREFETCH(&S[i + PREFETCH_AHEAD].wc);
        int k = rcm_shape_kind(&S[i]);
        body[i] = S[i].body;
        double *b = box + 4 * i, a[4];
        rcc_shape_aabb(&S[i], a);
        b[0] = a[0] - e; b[1] = a[1] - e; b[2] = a[2] + e; b[3] = a[3] + e;
        cell[4 * i] = k == RC_SK_NONE ? CELL_SKIP : k == RC_SK_HALF || k == RC_SK_CIN ? CELL_HALF : CELL_CAND;
        if (g.L > 0.0 && cell[4 * i] == CELL_CAND && !(b[2] - b[0] < 0.5 * g.L) && i < wide) wide = i;
    }
    if (wide < ns) {
        const int i = wide;
        return rc_set_error(RC_ERR_ARG, "periodic boundary: shape %d%s%s%s is %.6g wide with the contact margin, "
                            "not less than half the cell length %.6g (use a half-plane, or a longer cell)",
                            i, S[i].name ? " '" : "", S[i].name ? S[i].name : "", S[i].name ? "'" : "",
                            box[4 * i + 2] - box[4 * i], g.L);
    }
    for (int i = 0; i < ns; i++)
        if (cell[4 * i] == CELL_CAND) list[ncand++] = i;

    /* cells; a shape covering more than klim cells costs more in the grid
     * than against every shape (big list); double the cell size until the
     * entries fit */
    long long klim = ns / 8 > 64 ? ns / 8 : 64;
    double h = cell_size(&g, ncand);
    if (g.L > 0.0) {   /* periodic: a whole number of columns across L */
        double nxd = floor(g.L / h);
        g.nx = nxd < 1.0 ? 1 : nxd > 1e6 ? 1000000 : (int)nxd;
        h = g.L / g.nx;
    }
    for (int tries = 0; grid_cells(&g, ncand, h, klim, team) > g.E && tries < 64; tries++) {
        h *= 2.0;
        if (g.L > 0.0) { g.nx = g.nx / 2 > 1 ? g.nx / 2 : 1; h = g.L / g.nx; }
    }

    /* the grid list (front of list, in index order; the entries are checked
     * again in case the doubling gave up) and its bounding cells */
    int ng = 0, gx0 = INT_MAX, gy0 = INT_MAX, gx1 = INT_MIN, gy1 = INT_MIN;
    long long used = 0;
    for (int k = 0; k < ncand; k++) {
        int i = list[k], *c = cell + 4 * i;
        if (c[0] == CELL_BIG) continue;
        long long K = (long long)(c[2] - c[0] + 1) * (c[3] - c[1] + 1);
        if (used + K > g.E) { c[0] = CELL_BIG; continue; }
        used += K;
        list[ng++] = i;
        if (c[0] < gx0) gx0 = c[0];
        if (c[1] < gy0) gy0 = c[1];
        if (c[2] > gx1) gx1 = c[2];
        if (c[3] > gy1) gy1 = c[3];
    }
    if (g.nx && ng) { gx0 = 0; gx1 = g.nx - 1; }   /* periodic: columns wrap into [0, nx) */
    /* the big list (back of list): ground half-planes and big candidates */
    int nbig = 0;
    for (int i = 0; i < ns; i++)
        if (cell[4 * i] == CELL_BIG || cell[4 * i] == CELL_HALF) list[ns - 1 - nbig++] = i;

    /* buckets: the cells themselves (row-major) when the grid's bounding box
     * has at most T cells, else a spatial hash into T buckets */
    long long ncx = ng ? (long long)gx1 - gx0 + 1 : 1, ncy = ng ? (long long)gy1 - gy0 + 1 : 1;
    int hashed = ncx * ncy > g.T;
    int nb = hashed ? g.T : (int)(ncx * ncy), nx = (int)ncx, *st = g.start;
    unsigned mask = (unsigned)g.T - 1u;
    const int pnx = g.nx;
#define WRAP(cx) (pnx ? (((cx) % pnx) + pnx) % pnx : (cx))
#define BUCKET(cx, cy) (hashed ? (int)(cell_hash(WRAP(cx), cy) & mask) : (WRAP(cx) - gx0) + nx * ((cy) - gy0))
    /* a counting sort of the entries into buckets, each bucket's in list
     * order. On two threads (with the solver's) the second half of the list
     * counts into st2 and takes the end of each bucket: the same entries in
     * the same places. */
    int kh = ng, *st2 = NULL;
    if (team && used >= rcm_team_min) {
        RC_CHECK(rcb_arena_array(&w->work, (void **)&st2, nb + 1LL, sizeof(int), "broadphase buckets"));
        memset(st2, 0, (size_t)(nb + 1) * sizeof(int));
        kh = ng / 2;
    }
    memset(st, 0, (size_t)(nb + 1) * sizeof(int));
#ifdef _OPENMP
#pragma omp parallel for num_threads(2) schedule(static, 1) if(st2)
#endif
    for (int t = 0; t < 2; t++) {
        int *cnt = t ? st2 : st;
        for (int k = t ? kh : 0; k < (t ? ng : kh); k++) {
            const int *c = cell + 4 * list[k];
            for (int cy = c[1]; cy <= c[3]; cy++)
                for (int cx = c[0]; cx <= c[2]; cx++) cnt[BUCKET(cx, cy)]++;
        }
    }
    int run = 0;   /* st[b]: the end of the first half's part of bucket b, st2[b]: of the bucket */
    for (int b = 0; b < nb; b++) {
        const int n0 = st[b], n1 = st2 ? st2[b] : 0;
        st[b] = run + n0;
        run += n0 + n1;
        if (st2) st2[b] = run;
    }
    st[nb] = run;
#ifdef _OPENMP
#pragma omp parallel for num_threads(2) schedule(static, 1) if(st2)
#endif
    for (int t = 0; t < 2; t++) {
        int *end = t ? st2 : st;
        for (int k = (t ? ng : kh) - 1; k >= (t ? kh : 0); k--) {
            int i = list[k];
            const int *c = cell + 4 * i;
            for (int cy = c[1]; cy <= c[3]; cy++)
                for (int cx = c[0]; cx <= c[2]; cx++) {
                    int p = --end[BUCKET(cx, cy)];
                    g.ent[p] = i << 2 | (cx == c[0]) << 1 | (cy == c[1]);
                }
        }
    }
#undef BUCKET
#undef WRAP

    /* pairs within each bucket (bucket_pairs) */
    int b_from = 0;
#ifdef _OPENMP
    if (rcm_team2(w, st[nb])) {
        /* two threads: the buckets up to half the entries here, the others
         * into a buffer (pairs are sorted after: the order does not matter);
         * the buckets that do not fit in it are done after, on this thread */
        int half = 0;
        while (half < nb && st[half] < st[nb] / 2) half++;
        int *buf, cap = rcc_team_cap > 0 ? 2 * rcc_team_cap : w->room_pairs / 2 + 64, nbuf = 0, stop = nb;
        rc_status s0 = RC_OK;
        RC_CHECK(rcb_arena_array(&w->work, (void **)&buf, cap, sizeof(int), "broadphase pairs"));
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) s0 = bucket_pairs(w, &g, 0, half, NULL, NULL, 0);
            else if (omp_get_thread_num() == 1) stop = (int)bucket_pairs(w, &g, half, nb, buf, &nbuf, cap);
        }
        RC_CHECK(s0);
        if (nbuf > 0) {
            if (2 * (w->npairs + nbuf / 2) > w->cap_pairs) RC_CHECK(rcc_pairs_room(w, 2LL * (w->npairs + nbuf / 2)));
            memcpy(w->pairs + 2 * w->npairs, buf, (size_t)nbuf * sizeof(int));
            w->npairs += nbuf / 2;
        }
        b_from = stop;
    }
#endif
    RC_CHECK(bucket_pairs(w, &g, b_from, nb, NULL, NULL, 0));

    /* big shapes against every other shape: the half-plane test when one is
     * a ground half-plane, else the box test; against the grid list, the
     * shapes near in list order (on two threads with the solver's: each
     * takes half of the list) */
    const int *big = list + ns - nbig;
    int *hit = NULL;
    if (nbig > 0 && ng > 0) RC_CHECK(rcb_arena_array(&w->work, (void **)&hit, ng, sizeof(int), "broadphase big shapes"));
    const int two = team && ng >= rcm_team_min, lh = two ? ng / 2 : ng;
    for (int k = 0; k < nbig; k++) {
        const int i = big[k];
        int nh[2] = { 0, 0 };
#ifdef _OPENMP
#pragma omp parallel for num_threads(2) schedule(static, 1) if(two)
#endif
        for (int t = 0; t < 2; t++) nh[t] = !hit ? 0 : near_grid(&g, S, i, t ? lh : 0, t ? ng : lh, m, hit + (t ? lh : 0));
        for (int t = 0; t < 2; t++)
            for (int a = 0; a < nh[t]; a++) {
                const int j = hit[(t ? lh : 0) + a];
                RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
            }
        const int half_i = cell[4 * i] == CELL_HALF;
        for (int l = k + 1; l < nbig; l++) {
            const int j = big[l];
            int near;
            if (half_i) near = cell[4 * j] != CELL_HALF && wall_near(&S[i], box + 4 * j, m);
            else near = cell[4 * j] == CELL_HALF ? wall_near(&S[j], box + 4 * i, m) : boxes_overlap_p(&g, box + 4 * i, box + 4 * j);
            if (near && body[j] != body[i]) RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
        }
    }

    int *hd = g.hdr;
    hd[0] = ns; hd[1] = ng; hd[2] = nbig; hd[3] = hashed; hd[4] = (int)used; hd[5] = nb;
    hd[6] = ng ? nx : 0; hd[7] = ng ? (int)ncy : 0;
    return RC_OK;
}

/* Pairs of named body rules, whatever their distance (history columns). */
rc_status rcc_named_pairs(rc_world *w)
{
    for (int r = 0; r < w->nrules; r++) {
        const rc_rule *R = &w->rules[r];
        if (R->def.kind != RC_RULE_BODIES || !R->name || R->def.a == R->def.b) continue;
        for (int i = 0; i < w->nshapes; i++) {
            if (w->shapes[i].body != R->def.a) continue;
            for (int j = 0; j < w->nshapes; j++)
                if (w->shapes[j].body == R->def.b) RC_CHECK(push_pair(w, i, j, 1));
        }
    }
    return RC_OK;
}
