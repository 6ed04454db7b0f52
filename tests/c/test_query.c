/* test_query.c -- spatial queries (src/collide/query.c) against brute force
 * over random scenes: every shape kind, random boxes, points, rays and swept
 * disks; group filters; hit points on the boundary, unit normals facing the
 * ray; no allocation; the errors' messages.
 *
 * The brute force is independent of the library's geometry: the distance
 * from a point to a shape d(x) (its own code, from rc_shape_get_def and the
 * body's state) is convex in x, so
 *   point query:  d(p) <= 0;
 *   box query:    min over the box of d <= 0 (nested golden-section search:
 *                 the inner minimum of a convex function is convex);
 *   ray / disk:   the first root of f(t) = d(from + t (to - from)) - R on
 *                 [0, 1] (convex: a golden-section minimum, then bisection).
 * Cases within 1e-7 of a tie (grazing, touching) are skipped. */
#include "rc_test.h"

#define PI 3.14159265358979323846

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static int must(rc_status s)
{
    if (s != RC_OK) { fprintf(stderr, "setup failed: %s\n", rc_last_error()); exit(2); }
    return 1;
}

/* ---------------------------------------------------------------- the scene */

typedef struct tshape {   /* the test's own world-frame copy */
    rc_shape_type type;
    int body, group, n;
    double r, v[RC_MAX_POLYGON_VERTICES][2], P[2], N[2];
    double c[2], bound;   /* a bounding circle (half-planes: infinite) */
} tshape;

static int add(rc_world *w, int body, rc_shape_def *d)
{
    int id = -1;
    must(rc_shape_create(w, body, d, &id));
    return id;
}

/* n random shapes: disks, points, polygons on bodies; ground disks,
 * polygons, segments (with and without radius), two half-planes, a circular
 * wall. */
static rc_world *random_scene(int n)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    must(rc_world_create(&wd, &w));
    for (int i = 0; i < n; i++) {
        rc_shape_def d = rc_default_shape_def();
        d.group = i % 3;
        int kind = i % 7, body = RC_GROUND;
        if (kind <= 3) {
            rc_body_def bd = rc_default_body_def();
            bd.q[0] = urand(-10, 10); bd.q[1] = urand(-10, 10); bd.q[2] = urand(-PI, PI);
            must(rc_body_create(w, &bd, &body));
        }
        double cx = urand(-10, 10), cy = urand(-10, 10);
        switch (kind) {
        case 0: case 4:   /* disk (ground: at (cx, cy)) */
            d.type = RC_SHAPE_DISK; d.radius = urand(0.1, 1.0);
            d.offset[0] = kind ? cx : urand(-0.5, 0.5); d.offset[1] = kind ? cy : urand(-0.5, 0.5);
            break;
        case 1:
            d.type = RC_SHAPE_POINT; d.offset[0] = urand(-0.5, 0.5); d.offset[1] = urand(-0.5, 0.5);
            break;
        case 2: case 3: case 5: {   /* a random convex polygon: angles around a centre */
            int m = 3 + (int)urand(0, 6);
            double R = urand(0.2, 1.2), ox = kind == 5 ? cx : urand(-0.3, 0.3), oy = kind == 5 ? cy : urand(-0.3, 0.3);
            d.type = RC_SHAPE_POLYGON; d.nvert = m;
            for (int k = 0; k < m; k++) {
                double a = 2 * PI * (k + urand(0.1, 0.9)) / m, rr = R * urand(0.7, 1.0);
                d.vert[k][0] = ox + rr * cos(a); d.vert[k][1] = oy + rr * sin(a);
            }
            break;
        }
        case 6:
            d.type = RC_SHAPE_SEGMENT; d.a[0] = cx; d.a[1] = cy;
            d.b[0] = cx + urand(-3, 3); d.b[1] = cy + urand(-3, 3); d.radius = i % 2 ? urand(0.05, 0.5) : 0.0;
            break;
        }
        if (d.type == RC_SHAPE_POLYGON) {   /* the random angles may leave it non-convex: retry as a disk */
            int id = -1;
            if (rc_shape_create(w, body, &d, &id) == RC_OK) continue;
            d.type = RC_SHAPE_DISK; d.radius = 0.5;
        }
        add(w, body, &d);
    }
    rc_shape_def h = rc_default_shape_def();
    h.type = RC_SHAPE_HALFPLANE; h.point[0] = 0; h.point[1] = -12; h.normal[0] = 0.1; h.normal[1] = 1; h.group = 1;
    add(w, RC_GROUND, &h);
    h.point[0] = 12; h.point[1] = 0; h.normal[0] = -1; h.normal[1] = 0.2; h.group = 2;
    add(w, RC_GROUND, &h);
    rc_shape_def ci = rc_default_shape_def();   /* a circular wall around the scene, reached at its corners */
    ci.type = RC_SHAPE_CIRCLE_INSIDE; ci.offset[0] = -1; ci.offset[1] = -1.5; ci.radius = 15.5; ci.group = 0;
    add(w, RC_GROUND, &ci);
    return w;
}

static void load(const rc_world *w, int id, tshape *t)
{
    rc_shape_def d;
    int body;
    must(rc_shape_get_def(w, id, &body, &d));
    double q[3] = { 0, 0, 0 }, v[3];
    if (body != RC_GROUND) must(rc_body_get_state(w, body, q, v));
    double c = cos(q[2]), s = sin(q[2]);
#define TOW(src, dst) do { (dst)[0] = q[0] + c * (src)[0] - s * (src)[1]; (dst)[1] = q[1] + s * (src)[0] + c * (src)[1]; } while (0)
    t->type = d.type; t->body = body; t->group = d.group; t->r = 0; t->n = 0;
    switch (d.type) {
    case RC_SHAPE_DISK: t->r = d.radius; /* fall through */
    case RC_SHAPE_POINT: t->n = 1; TOW(d.offset, t->v[0]); break;
    case RC_SHAPE_POLYGON: t->n = d.nvert; for (int k = 0; k < d.nvert; k++) TOW(d.vert[k], t->v[k]); break;
    case RC_SHAPE_SEGMENT: t->n = 2; t->r = d.radius; memcpy(t->v[0], d.a, 16); memcpy(t->v[1], d.b, 16); break;
    case RC_SHAPE_HALFPLANE: memcpy(t->P, d.point, 16); memcpy(t->N, d.normal, 16); break;
    case RC_SHAPE_CIRCLE_INSIDE: memcpy(t->P, d.offset, 16); t->r = d.radius; break;
    }
#undef TOW
    t->bound = INFINITY;
    if (t->n == 0) return;
    t->c[0] = t->c[1] = 0;
    for (int k = 0; k < t->n; k++) { t->c[0] += t->v[k][0] / t->n; t->c[1] += t->v[k][1] / t->n; }
    t->bound = 0;
    for (int k = 0; k < t->n; k++) t->bound = fmax(t->bound, hypot(t->v[k][0] - t->c[0], t->v[k][1] - t->c[1]));
    t->bound += t->r;
}

/* Far from the box or the segment p -> p + d by more than 1e-3: no need to
 * search (a clear "no"). */
static int far_box(const tshape *t, const double *lo, const double *hi)
{
    double dx = fmax(0.0, fmax(lo[0] - t->c[0], t->c[0] - hi[0])), dy = fmax(0.0, fmax(lo[1] - t->c[1], t->c[1] - hi[1]));
    return t->n > 0 && hypot(dx, dy) > t->bound + 1e-3;
}

/* ---------------------------------------------------------------- brute force */

static double seg_dist(const double *p, const double *a, const double *b)
{
    double ex = b[0] - a[0], ey = b[1] - a[1];
    double s = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey);
    if (s < 0) s = 0;
    if (s > 1) s = 1;
    return hypot(p[0] - a[0] - s * ex, p[1] - a[1] - s * ey);
}

/* Signed-free distance from x to the shape (0 inside). */
static double dist(const tshape *t, const double *x)
{
    if (t->type == RC_SHAPE_HALFPLANE) return fmax(0.0, t->N[0] * (x[0] - t->P[0]) + t->N[1] * (x[1] - t->P[1]));
    if (t->type == RC_SHAPE_CIRCLE_INSIDE) return fmax(0.0, t->r - hypot(x[0] - t->P[0], x[1] - t->P[1]));
    if (t->n == 1) return fmax(0.0, hypot(x[0] - t->v[0][0], x[1] - t->v[0][1]) - t->r);
    if (t->n == 2) return fmax(0.0, seg_dist(x, t->v[0], t->v[1]) - t->r);
    int inside = 1;
    double dmin = INFINITY;
    for (int k = 0; k < t->n; k++) {
        const double *a = t->v[k], *b = t->v[(k + 1) % t->n];
        if ((b[0] - a[0]) * (x[1] - a[1]) - (b[1] - a[1]) * (x[0] - a[0]) < 0) inside = 0;
        dmin = fmin(dmin, seg_dist(x, a, b));
    }
    return inside ? 0.0 : dmin;
}

static const double GR = 0.6180339887498949;

static double min_over_y(const tshape *t, double x, double y0, double y1)
{
    double a = y0, b = y1;
    for (int it = 0; it < 80; it++) {
        double m1 = b - GR * (b - a), m2 = a + GR * (b - a);
        double p1[2] = { x, m1 }, p2[2] = { x, m2 };
        if (dist(t, p1) <= dist(t, p2)) b = m2; else a = m1;
    }
    double p[2] = { x, 0.5 * (a + b) }, pa[2] = { x, y0 }, pb[2] = { x, y1 };
    return fmin(dist(t, p), fmin(dist(t, pa), dist(t, pb)));
}

static double box_dist(const tshape *t, const double *lo, const double *hi)
{
    double a = lo[0], b = hi[0];
    for (int it = 0; it < 80; it++) {
        double m1 = b - GR * (b - a), m2 = a + GR * (b - a);
        if (min_over_y(t, m1, lo[1], hi[1]) <= min_over_y(t, m2, lo[1], hi[1])) b = m2; else a = m1;
    }
    return fmin(min_over_y(t, 0.5 * (a + b), lo[1], hi[1]),
                fmin(min_over_y(t, lo[0], lo[1], hi[1]), min_over_y(t, hi[0], lo[1], hi[1])));
}

static double f_at(const tshape *t, const double *p, const double *d, double R, double s)
{
    double x[2] = { p[0] + s * d[0], p[1] + s * d[1] };
    return dist(t, x) - R;
}

/* First root of f on [0, 1] (f(0) > 0 required), -1 none; the
 * round-off allows a touch within 1e-12. */
static double first_root(const tshape *t, const double *p, const double *d, double R)
{
    double a = 0, b = 1;
    for (int it = 0; it < 100; it++) {
        double m1 = b - GR * (b - a), m2 = a + GR * (b - a);
        if (f_at(t, p, d, R, m1) <= f_at(t, p, d, R, m2)) b = m2; else a = m1;
    }
    double sm = 0.5 * (a + b), fm = f_at(t, p, d, R, sm);
    if (f_at(t, p, d, R, 1.0) < fm) { sm = 1.0; fm = f_at(t, p, d, R, 1.0); }
    if (fm > 1e-12) return -1;   /* the minimum may sit where the plateau f = 0 starts, at round-off */
    double lo = 0, hi = sm;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        if (f_at(t, p, d, R, mid) > 0) lo = mid; else hi = mid;
    }
    return hi;
}

/* ---------------------------------------------------------------- tests */

enum { NSHAPES = 420, CAP = 1024 };

static int in_list(const int *l, int n, int x)
{
    for (int i = 0; i < n; i++) if (l[i] == x) return 1;
    return 0;
}

RC_TEST(box_and_point_queries_equal_brute_force)
{
    rc_world *w = random_scene(NSHAPES);
    int ns = rc_shape_count(w), out[CAP], n = 0, compared = 0, found = 0;
    static tshape T[CAP];
    for (int i = 0; i < ns; i++) load(w, i, &T[i]);
    for (int trial = 0; trial < 120; trial++) {
        rc_query_filter f = rc_default_query_filter();
        if (trial % 3 == 0) { f.use_group = 1; f.group = trial % 2; }
        double lo[2] = { urand(-13, 11), urand(-13, 11) }, hi[2] = { lo[0] + urand(0, 3), lo[1] + urand(0, 3) };
        CHECK_OK(rc_query_box(w, lo, hi, &f, out, CAP, &n));
        for (int k = 1; k < n; k++) CHECK(out[k - 1] < out[k]);
        for (int i = 0; i < ns; i++) {
            double d = far_box(&T[i], lo, hi) ? 1.0 : box_dist(&T[i], lo, hi);
            if (fabs(d) < 1e-7 && d != 0.0) continue;      /* touching: either answer */
            int want = d == 0.0 && (!f.use_group || T[i].group == f.group);
            if (want != in_list(out, n, i)) {
                fprintf(stderr, "  box [%g %g]-[%g %g]: shape %d (type %d) dist %g, query says %d\n",
                        lo[0], lo[1], hi[0], hi[1], i, T[i].type, d, !want);
                CHECK(0);
            }
            compared++;
            found += want;
        }
        double p[2] = { urand(-13, 11), urand(-13, 11) };
        CHECK_OK(rc_query_point(w, p, &f, out, CAP, &n));
        for (int i = 0; i < ns; i++) {
            int want = dist(&T[i], p) == 0.0 && (!f.use_group || T[i].group == f.group);
            CHECK(want == in_list(out, n, i));
            found += want;
        }
    }
    printf("  %d shapes, %d comparisons, %d found\n", ns, compared, found);
    CHECK(compared > 40000);
    CHECK(found > 200);   /* the queries found something: the comparison is not all "no" */
    /* a short buffer: the count is all of them, the first cap written */
    double lo[2] = { -13, -13 }, hi[2] = { 13, 13 };
    int all = 0, few[3] = { -7, -7, -7 };
    CHECK_OK(rc_query_box(w, lo, hi, NULL, out, CAP, &all));
    CHECK_OK(rc_query_box(w, lo, hi, NULL, few, 2, &n));
    CHECK(n == all && n > 100 && few[0] == out[0] && few[1] == out[1] && few[2] == -7);
    rc_world_destroy(w);
}

/* Brute force: the shape first hit by p -> p + d (among those the start is
 * outside of), -1 none; *best its fraction, *gap to the next shape's. */
static int brute_cast(const tshape *T, int ns, const rc_query_filter *f, const double *p, const double *d, double R,
                      double *best, double *gap)
{
    double second = 2;
    int bshape = -1;
    *best = 2;
    for (int i = 0; i < ns; i++) {
        if (f->use_group && T[i].group != f->group) continue;
        if (f_at(&T[i], p, d, R, 0) <= 0) continue;
        if (T[i].n > 0) {
            double e = (T[i].c[0] - p[0]) * d[0] + (T[i].c[1] - p[1]) * d[1];
            e = fmax(0.0, fmin(1.0, e / (d[0] * d[0] + d[1] * d[1])));
            if (hypot(p[0] + e * d[0] - T[i].c[0], p[1] + e * d[1] - T[i].c[1]) > T[i].bound + R + 1e-3) continue;
        }
        double s = first_root(&T[i], p, d, R);
        if (s < 0) continue;
        if (s < *best) { second = *best; *best = s; bshape = i; }
        else if (s < second) second = s;
    }
    *gap = bshape < 0 ? 1.0 : second - *best;
    return bshape;
}

static void cast_trials(int *failed, double R)
{
    rc_world *w = random_scene(NSHAPES);
    int ns = rc_shape_count(w), hits = 0, misses = 0;
    static tshape T[CAP];
    for (int i = 0; i < ns; i++) load(w, i, &T[i]);
    for (int trial = 0; trial < 300; trial++) {
        rc_query_filter f = rc_default_query_filter();
        if (trial % 4 == 0) { f.use_group = 1; f.group = trial % 3; }
        double p[2] = { urand(-12, 12), urand(-12, 12) }, a = urand(-PI, PI), L = urand(0.3, 4);
        double to[2] = { p[0] + L * cos(a), p[1] + L * sin(a) }, d[2] = { to[0] - p[0], to[1] - p[1] };
        double best, gap, b2, g2;
        int bshape = brute_cast(T, ns, &f, p, d, R, &best, &gap);
        /* grazing cases (the answer changes when the ray moves by 1e-7 across
         * itself) and ties are skipped */
        int robust = gap > 1e-7;
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double q[2] = { p[0] - sgn * 1e-7 * sin(a), p[1] + sgn * 1e-7 * cos(a) };
            robust = robust && brute_cast(T, ns, &f, q, d, R, &b2, &g2) == bshape;
        }
        if (!robust) continue;
        rc_query_hit h;
        int found = -1;
        CHECK_OK(R > 0 ? rc_disk_cast(w, p, to, R, &f, &h, &found) : rc_ray_cast(w, p, to, &f, &h, &found));
        CHECK(found == (bshape >= 0));
        if (found != 1 || bshape < 0) { misses++; continue; }
        hits++;
        CHECK(h.shape == bshape);
        CHECK(h.body == T[bshape].body);
        CHECK_NEAR(h.fraction, best, 1e-9);
        CHECK_NEAR(hypot(h.normal[0], h.normal[1]), 1.0, 1e-12);
        CHECK(h.normal[0] * d[0] + h.normal[1] * d[1] <= 0.0);
        /* the point is on the boundary: on the shape, and off it one step out */
        const tshape *t = &T[bshape];
        double out[2] = { h.point[0] + 1e-6 * h.normal[0], h.point[1] + 1e-6 * h.normal[1] };
        CHECK(dist(t, h.point) < 1e-9);
        CHECK_NEAR(dist(t, out), 1e-6, 1e-9);
        double c[2] = { p[0] + h.fraction * d[0], p[1] + h.fraction * d[1] };
        CHECK_NEAR(hypot(c[0] - h.point[0], c[1] - h.point[1]), R, 1e-9);
    }
    printf("  R = %g: %d hits, %d misses compared\n", R, hits, misses);
    CHECK(hits > 60 && misses > 20);
    rc_world_destroy(w);
}

RC_TEST(ray_cast_equals_brute_force) { cast_trials(failed, 0.0); }
RC_TEST(disk_cast_equals_brute_force) { cast_trials(failed, 0.3); }

/* A ray that starts inside a shape does not hit it, and a ray hits a
 * two-sided segment from either side with the normal facing it. */
RC_TEST(ray_conventions)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    must(rc_world_create(&wd, &w));
    rc_shape_def s = rc_default_shape_def();
    s.type = RC_SHAPE_SEGMENT; s.a[0] = -1; s.a[1] = 0; s.b[0] = 1; s.b[1] = 0; s.radius = 0;
    add(w, RC_GROUND, &s);
    rc_shape_def dk = rc_default_shape_def();
    dk.type = RC_SHAPE_DISK; dk.radius = 1; dk.offset[0] = 5;
    add(w, RC_GROUND, &dk);
    rc_query_hit h;
    int found;
    double from[2] = { 0, 2 }, to[2] = { 0, -2 };
    CHECK_OK(rc_ray_cast(w, from, to, NULL, &h, &found));
    CHECK(found && h.shape == 0 && h.fraction == 0.5 && h.normal[1] == 1.0 && h.point[1] == 0.0);
    CHECK_OK(rc_ray_cast(w, to, from, NULL, &h, &found));
    CHECK(found && h.shape == 0 && h.normal[1] == -1.0);
    double in[2] = { 5, 0 }, away[2] = { 10, 0 };
    CHECK_OK(rc_ray_cast(w, in, away, NULL, &h, &found));
    CHECK(found == 0);
    double left[2] = { 2, 0 };
    CHECK_OK(rc_ray_cast(w, left, away, NULL, &h, &found));
    CHECK(found && h.shape == 1 && h.fraction == 0.25 && h.normal[0] == -1.0 && h.point[0] == 4.0);
    CHECK_OK(rc_disk_cast(w, left, away, 0.5, NULL, &h, &found));   /* centre stops at x = 3.5 */
    CHECK(found && h.shape == 1 && h.fraction == 0.1875 && h.point[0] == 4.0);
    rc_world_destroy(w);
}

RC_TEST(queries_allocate_nothing)
{
    rc_world *w = random_scene(200);
    int out[CAP], n, found;
    rc_query_hit h;
    double lo[2] = { -5, -5 }, hi[2] = { 5, 5 }, p[2] = { 0, 0 }, to[2] = { 9, 3 };
    uint64_t a0 = rc_alloc_count();
    for (int k = 0; k < 100; k++) {
        CHECK_OK(rc_query_box(w, lo, hi, NULL, out, CAP, &n));
        CHECK_OK(rc_query_point(w, p, NULL, out, CAP, &n));
        CHECK_OK(rc_ray_cast(w, p, to, NULL, &h, &found));
        CHECK_OK(rc_disk_cast(w, p, to, 0.2, NULL, &h, &found));
    }
    CHECK(rc_alloc_count() == a0);
    rc_world_destroy(w);
}

static void expect_error(int *failed, rc_status s, const char *msg)
{
    CHECK(s == RC_ERR_ARG);
    if (strcmp(rc_last_error(), msg) != 0) {
        fprintf(stderr, "  got \"%s\"\n  want \"%s\"\n", rc_last_error(), msg);
        CHECK(0);
    }
}

RC_TEST(query_errors)
{
    rc_world *w = random_scene(10);
    int out[4], n, found;
    rc_query_hit h;
    double lo[2] = { 0, 0 }, hi[2] = { 1, 1 }, nan2[2] = { NAN, 0 };
    rc_query_filter f = { 2, 0 };
    expect_error(failed, rc_query_box(NULL, lo, hi, NULL, out, 4, &n), "rc_query_box: 'w' is NULL");
    expect_error(failed, rc_query_box(w, hi, lo, NULL, out, 4, &n),
                 "rc_query_box: 'lo' must be <= 'hi' in x and y (got lo = (1, 1), hi = (0, 0))");
    expect_error(failed, rc_query_box(w, nan2, hi, NULL, out, 4, &n), "rc_query_box: 'lo' must be 2 finite numbers");
    expect_error(failed, rc_query_box(w, lo, hi, NULL, out, -1, &n), "rc_query_box: 'cap' must be >= 0 (got -1)");
    expect_error(failed, rc_query_box(w, lo, hi, NULL, NULL, 4, &n), "rc_query_box: 'shapes' is NULL with cap > 0");
    expect_error(failed, rc_query_box(w, lo, hi, &f, out, 4, &n), "rc_query_box: 'filter.use_group' must be 0 or 1 (got 2)");
    expect_error(failed, rc_query_point(w, nan2, NULL, out, 4, &n), "rc_query_point: 'point' must be 2 finite numbers");
    expect_error(failed, rc_query_point(w, lo, NULL, out, 4, NULL), "rc_query_point: 'count' is NULL");
    expect_error(failed, rc_ray_cast(w, lo, nan2, NULL, &h, &found), "rc_ray_cast: 'to' must be 2 finite numbers");
    expect_error(failed, rc_ray_cast(w, lo, hi, NULL, NULL, &found), "rc_ray_cast: 'hit' is NULL");
    expect_error(failed, rc_disk_cast(w, lo, hi, 0.0, NULL, &h, &found), "rc_disk_cast: 'radius' must be > 0 (got 0)");
    expect_error(failed, rc_disk_cast(w, lo, hi, NAN, NULL, &h, &found), "rc_disk_cast: 'radius' must be > 0 (got nan)");
    CHECK_OK(rc_query_box(w, lo, hi, NULL, NULL, 0, &n));   /* count only */
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(box_and_point_queries_equal_brute_force), T(ray_cast_equals_brute_force),
             T(disk_cast_equals_brute_force), T(ray_conventions), T(queries_allocate_nothing), T(query_errors))
