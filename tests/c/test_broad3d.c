/* test_broad3d.c -- the spatial broad phase (collide/broad3d.c) against brute
 * force: the same pair set (each pair once) for 10 000 random spheres, for
 * mixed sizes with big and infinite boxes and a forced small cell; no
 * allocation on a repeated call; the shapes' AABBs tight around them. */
#include "rc_test.h"
#include "collide/geom3d.h"

static unsigned long long rng = 0x2545F4914F6CDD1DULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static int overlap(const double *a, const double *b)
{
    for (int k = 0; k < 3; k++) if (!(a[k] <= b[3 + k] && b[k] <= a[3 + k])) return 0;
    return 1;
}

static int cmp_pair(const void *x, const void *y)
{
    const int *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* brute force pairs (i < j), sorted; returns the count, *out malloc'ed */
static int brute(int n, const double *bb, int **out)
{
    int cap = 1024, np = 0, *p = malloc(sizeof(int) * 2 * cap);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (overlap(bb + 6 * i, bb + 6 * j)) {
                if (np == cap) { cap *= 2; p = realloc(p, sizeof(int) * 2 * cap); }
                p[2 * np] = i; p[2 * np + 1] = j; np++;
            }
    *out = p;
    return np;
}

/* the grid's pairs equal brute force's (sorted, so duplicates would show) */
static int same_pairs(rcc_broad3 *b, int n, const double *bb, double cell, int *npairs)
{
    int *ref, nref = brute(n, bb, &ref), ok;
    if (rcc_broad3_pairs(b, n, bb, cell) != RC_OK) { free(ref); return 0; }
    int *got = malloc(sizeof(int) * 2 * (b->npairs + 1));
    memcpy(got, b->pairs, sizeof(int) * 2 * b->npairs);
    qsort(got, b->npairs, 2 * sizeof(int), cmp_pair);
    ok = b->npairs == nref && memcmp(got, ref, sizeof(int) * 2 * nref) == 0;
    for (int k = 0; k < b->npairs; k++) ok &= got[2 * k] < got[2 * k + 1];
    if (!ok) fprintf(stderr, "  grid %d pairs, brute force %d\n", b->npairs, nref);
    *npairs = nref;
    free(got);
    free(ref);
    return ok;
}

static void spheres(int n, double side, double *bb)
{
    for (int k = 0; k < n; k++) {
        const double r = 0.1 * urand(0.9, 1.1);
        for (int a = 0; a < 3; a++) {
            const double c = urand(0, side);
            bb[6 * k + a] = c - r;
            bb[6 * k + 3 + a] = c + r;
        }
    }
}

RC_TEST(ten_thousand_spheres_match_brute_force)
{
    enum { N = 10000 };
    double *bb = malloc(sizeof(double) * 6 * N);
    spheres(N, 0.25 * cbrt((double)N), bb);
    rcc_broad3 b = { 0 };
    int np = 0;
    CHECK(same_pairs(&b, N, bb, 0.0, &np));
    printf("  %d spheres: %d pairs, cell %.3g\n", N, np, b.h);
    CHECK(np > N);                       /* a dense enough scene to mean something */
    /* again: no allocation, the same pairs */
    const uint64_t a0 = rc_alloc_count();
    CHECK_OK(rcc_broad3_pairs(&b, N, bb, 0.0));
    CHECK(rc_alloc_count() == a0);
    CHECK(b.npairs == np);
    rcc_broad3_free(&b);
    free(bb);
}

RC_TEST(mixed_sizes_big_and_infinite_boxes)
{
    enum { N = 3000 };
    double *bb = malloc(sizeof(double) * 6 * N);
    spheres(N, 5.0, bb);
    /* every 100th box 10x wider, two infinite (planes), one a point */
    for (int k = 0; k < N; k += 100)
        for (int a = 0; a < 3; a++) { bb[6 * k + a] -= 1.0; bb[6 * k + 3 + a] += 1.0; }
    for (int a = 0; a < 3; a++) {
        bb[6 * 7 + a] = -HUGE_VAL; bb[6 * 7 + 3 + a] = HUGE_VAL;
        bb[6 * 8 + a] = 1.0; bb[6 * 8 + 3 + a] = 1.0;
    }
    bb[6 * 9 + 2] = -HUGE_VAL;                       /* a half-space below z = 0.3 */
    bb[6 * 9 + 5] = 0.3;
    bb[6 * 9] = bb[6 * 9 + 1] = -HUGE_VAL;
    bb[6 * 9 + 3] = bb[6 * 9 + 4] = HUGE_VAL;
    rcc_broad3 b = { 0 };
    int np;
    CHECK(same_pairs(&b, N, bb, 0.0, &np));
    CHECK(same_pairs(&b, N, bb, 0.05, &np));         /* small cells: boxes in many cells, more of them big */
    CHECK(same_pairs(&b, N, bb, 3.0, &np));          /* large cells: many boxes a cell */
    CHECK(same_pairs(&b, 1, bb, 0.0, &np) && b.npairs == 0);
    /* all points at one place: every pair */
    for (int k = 0; k < 50; k++) for (int a = 0; a < 6; a++) bb[6 * k + a] = 0.5;
    CHECK(same_pairs(&b, 50, bb, 0.0, &np) && np == 50 * 49 / 2);
    rcc_broad3_free(&b);
    free(bb);
}

RC_TEST(shape_aabbs_are_tight)
{
    /* capsule along x after a quarter turn about y; box turned by pi/4 about z */
    rcc_shape3 c = { .kind = RCC_G3_CAPSULE, .radius = 0.5, .half_len = 2 };
    rcc_pose3 pc = { { 1, 2, 3 }, { sqrt(0.5), 0, sqrt(0.5), 0 } };
    double lo[3], hi[3];
    rcc_shape3_aabb(&c, &pc, lo, hi);
    CHECK_NEAR(lo[0], 1 - 2.5, 1e-15); CHECK_NEAR(hi[0], 1 + 2.5, 1e-15);
    CHECK_NEAR(lo[1], 2 - 0.5, 1e-15); CHECK_NEAR(hi[2], 3 + 0.5, 1e-15);
    rcc_shape3 bx = { .kind = RCC_G3_BOX, .half = { 1, 1, 0.5 } };
    rcc_pose3 pb = { { 0, 0, 0 }, { cos(0.3926990816987241), 0, 0, sin(0.3926990816987241) } };
    rcc_shape3_aabb(&bx, &pb, lo, hi);
    CHECK_NEAR(hi[0], sqrt(2.0), 1e-15); CHECK_NEAR(hi[1], sqrt(2.0), 1e-15); CHECK_NEAR(hi[2], 0.5, 1e-15);
    rcc_shape3 pl = { .kind = RCC_G3_PLANE, .normal = { 0, 0, 1 } };
    rcc_shape3_aabb(&pl, &pb, lo, hi);
    CHECK(isinf(lo[0]) && lo[0] < 0 && isinf(hi[2]));
}

RC_TEST_MAIN(T(ten_thousand_spheres_match_brute_force), T(mixed_sizes_big_and_infinite_boxes), T(shape_aabbs_are_tight))
