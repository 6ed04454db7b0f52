/*
 * fuzz_capi.c -- the C API fuzz harness (docs/security.md, "Fuzzing").
 *
 * LLVMFuzzerTestOneInput reads its input as a program over the public C API
 * (src/ricochet.h): every byte string is a valid program, the bytes choose
 * the calls and their arguments (in range, or -- at a rate the second byte
 * chooses: never, 1 in 64, 1 in 16 -- numbers NaN, inf, huge, tiny, negative
 * or raw bits, ids past the ends, sizes and types out of range). Two kinds of
 * program (the first byte):
 *
 *   geometry: 2 to 7 shapes (disks, convex polygons, points on bodies;
 *     half-planes, segments, disks, polygons on the ground) at random poses,
 *     one step, then every pair that overlaps by the harness's own geometry
 *     (separating axes, signed distances) must have a contact with g_N < 0;
 *     every contact has a finite gap, point, unit normal and g_N <= margin.
 *   api: a world and up to 48 calls: bodies, shapes, built-in and custom laws
 *     (C callbacks that return good values, NaN, 1e300 or an error), rules,
 *     joints with motion and constraint callbacks, springs, linear bodies,
 *     gaps, configurations, steps, states and forces, force callbacks,
 *     queries (into buffers of exactly the documented size), the explorer,
 *     law changes, interrupts, outputs and VTK frames, then the world's end.
 *
 * A failed check aborts (a crash for libFuzzer and for the plain driver).
 * After every step that returns RC_OK: q, v of every body and the time are
 * finite; in geometry programs, so are the point, normal and gap of every
 * geometric contact and the impulse of every active contact. Built with libFuzzer
 * (clang -fsanitize=fuzzer: fuzz_capi_libfuzzer) or with the plain driver
 * fuzz_capi_main.c (gcc: fuzz_capi), which replays files and random inputs.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700

#include <float.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ricochet.h"

#define PI 3.14159265358979323846

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---------------------------------------------------------------- the input */

typedef struct rd { const uint8_t *p; size_t n, i; } rd;

static unsigned u8(rd *r) { return r->i < r->n ? r->p[r->i++] : 0u; }
static unsigned u16(rd *r) { unsigned a = u8(r); return a | (u8(r) << 8); }
/* a budget of CPU time per input: a world that is merely expensive (a
 * diverging gen-alpha step of a few bodies costs ~0.1 s optimised and ~30x
 * that under the sanitizers and libFuzzer's coverage) ends its program early
 * instead of tripping libFuzzer's -timeout, which is left to real hangs: no
 * further operation and no further step once the input has used this much */
#ifndef FUZZ_CPU_BUDGET
#define FUZZ_CPU_BUDGET 3.0   /* seconds */
#endif
static clock_t cpu_end;
static int over_budget(void) { return clock() > cpu_end; }

/* and within one step: after three budgets of user CPU time (ITIMER_VIRTUAL,
 * SIGVTALRM: neither libFuzzer's -timeout, SIGALRM, nor the plain driver's
 * hang alarm, ITIMER_PROF) the harness requests an interrupt, which ends the
 * step's iterations with RC_ERR_INTERRUPTED; cleared before the next input */
static volatile sig_atomic_t budget_fired;
static void on_budget(int sig) { (void)sig; budget_fired = 1; rc_request_interrupt(); }
static void budget_alarm(double sec)
{
    struct itimerval t = { { 0, 0 }, { (time_t)sec, (suseconds_t)((sec - (double)(time_t)sec) * 1e6) } };
    if (sec > 0.0) signal(SIGVTALRM, on_budget);
    setitimer(ITIMER_VIRTUAL, &t, NULL);
}
static int more(const rd *r) { return r->i < r->n && !over_budget(); }
static double unit(rd *r) { return u16(r) / 65535.0; }
static int chance(rd *r, unsigned in256) { return u8(r) < in256; }

/* how often a number or an integer is out of range in this input: never,
 * 1 in 64 or 1 in 16 (the second byte of the input) */
static unsigned odd_rate;

/* statistics for the plain driver */
long long fuzz_capi_steps, fuzz_capi_contacts, fuzz_capi_overlaps;

/* A number in [lo, hi], or (at the input's rate) something else */
static double num(rd *r, double lo, double hi)
{
    unsigned sel = u8(r);
    if (sel >= odd_rate) return lo + (hi - lo) * unit(r);
    sel = 240 + sel % 16;
    switch (sel) {
    case 240: return NAN;
    case 241: return INFINITY;
    case 242: return -INFINITY;
    case 243: return 1e308;
    case 244: return -1e308;
    case 245: return 0.0;
    case 246: return -0.0;
    case 247: return DBL_MIN / 4;      /* subnormal */
    case 248: return 1e-300;
    case 249: { uint64_t b = 0; for (int k = 0; k < 8; k++) b |= (uint64_t)u8(r) << (8 * k);
                double x; memcpy(&x, &b, sizeof x); return x; }
    case 250: return -1.0;
    case 251: return hi * 1e6;
    case 252: return lo - 1.0;
    case 253: return 1e150;
    case 254: return hi;
    default:  return lo;
    }
}

/* An integer in [lo, hi], or (at half the input's rate) one out of range */
static int inum(rd *r, int lo, int hi)
{
    unsigned sel = u8(r);
    if (sel < odd_rate / 2) {
        static const int odd[8] = { -1, -2, 0, 1, 7, 100, 1 << 20, -(1 << 20) };
        return odd[sel % 8];
    }
    return lo + (int)(u16(r) % (unsigned)(hi - lo + 1));
}

static const char *name_of(rd *r)
{
    static const char *names[] = { NULL, NULL, NULL, "a", "b", "c", "", "a", "joint", "x.y", "ground" };
    return names[u8(r) % (sizeof names / sizeof names[0])];
}

/* ---------------------------------------------------------------- checks */

static void fail(const char *what, double x)
{
    fprintf(stderr, "fuzz_capi: check failed: %s (%.17g); last error: %s\n", what, x, rc_last_error());
    abort();
}

static int finite(double x) { return x - x == 0.0; }

/* after a step that returned RC_OK (contacts: the geometry programs, whose
 * data are moderate; in api programs, shapes 1e307 away may overflow a gap) */
static void check_state(const rc_world *w, int contacts)
{
    if (!finite(rc_world_time(w))) fail("time not finite after a successful step", rc_world_time(w));
    int nb = rc_body_count(w);
    for (int b = 0; b < nb; b++) {
        int nq = rc_body_nq(w, b), nv = rc_body_nv(w, b);
        double *q = malloc((size_t)(nq > 0 ? nq : 1) * sizeof *q), *v = malloc((size_t)(nv > 0 ? nv : 1) * sizeof *v);
        if (!q || !v) abort();
        if (rc_body_get_state(w, b, q, v) != RC_OK) fail("rc_body_get_state failed for an existing body", b);
        for (int i = 0; i < nq; i++) if (!finite(q[i])) fail("q not finite after a successful step", q[i]);
        for (int i = 0; i < nv; i++) if (!finite(v[i])) fail("v not finite after a successful step", v[i]);
        free(q);
        free(v);
    }
    int nc = contacts ? rc_contact_count(w) : 0;
    for (int i = 0; i < nc; i++) {
        rc_contact_info c;
        if (rc_contact_get(w, i, &c) != RC_OK) fail("rc_contact_get failed for an index below the count", i);
        /* a geometric contact's point, normal and gap follow from finite q: finite; the
         * impulses of active contacts are the step's solution: finite. (Not checked: a
         * gap contact's g0 + n.q, the velocities H v and the work u.p, which may
         * overflow from huge but finite data, 1e300 gradients or impulses of a law.) */
        const int geometric = c.shape_a >= 0 || c.shape_b >= 0;
        const double x[] = { c.point[0], c.point[1], c.normal[0], c.normal[1], c.tangent[0], c.tangent[1], c.gN,
                             c.active ? c.pN : 0.0, c.active ? c.pT : 0.0 };
        for (size_t k = geometric ? 0 : 7; k < sizeof x / sizeof x[0]; k++)
            if (!finite(x[k])) {
                fprintf(stderr, "fuzz_capi: contact %d (bodies %d/%d, shapes %d/%d, active %d): point %g %g normal %g %g "
                        "gN %g uN %g uT %g pN %g pT %g WN %g WT %g\n", c.id, c.body_a, c.body_b, c.shape_a, c.shape_b,
                        c.active, c.point[0], c.point[1], c.normal[0], c.normal[1], c.gN, c.uN, c.uT, c.pN, c.pT, c.WN, c.WT);
                fail("contact value not finite after a successful step", (double)k);
            }
    }
}

static void quiet(void *user, const char *message) { (void)message; ++*(long *)user; }

/* ---------------------------------------------------------------- callbacks */

/* behaviours of the C callbacks: 0-3 good, 4 NaN, 5 an error, 6 1e300, 7 -1e300;
 * n: the size of what the callback fills (force: nv, gap: nq, constraint:
 * rows, law: nstate) */
typedef struct cb { int how, calls, n; double q0[3]; } cb;
enum { MAX_CB = 64 };
static cb cbs[MAX_CB];
static int ncb;

static cb *new_cb(rd *r)
{
    cb *c = &cbs[ncb < MAX_CB ? ncb++ : MAX_CB - 1];
    c->how = (int)(u8(r) % 8);
    c->calls = 0;
    c->n = 0;
    c->q0[0] = c->q0[1] = c->q0[2] = NAN;
    return c;
}

/* after a few good calls, the callback's behaviour (so that creation probes pass) */
static int bad(cb *c) { return ++c->calls > 3 && c->how >= 4; }

static double value(cb *c, double good)
{
    if (!bad(c)) return good;
    return c->how == 4 ? NAN : c->how == 6 ? 1e300 : c->how == 7 ? -1e300 : good;
}

static rc_status cb_status(cb *c, const char *what)
{
    if (c->calls > 3 && c->how == 5) return rc_set_error(RC_ERR_CALLBACK, "fuzz: %s failed", what);
    return RC_OK;
}

static rc_status force_cb(void *user, int body, double t, const double *q, const double *v, double *f)
{
    (void)body; (void)q;
    cb *c = user;
    for (int i = 0; i < c->n; i++) f[i] = value(c, i == 0 ? 0.1 * sin(t) : -0.1 * v[i]);
    return cb_status(c, "force");
}

static rc_status xi_cb(void *user, const rc_law_ctx *ctx, const double *state, const double *u,
                       const double *u_old, double *xi)
{
    (void)ctx; (void)state;
    cb *c = user;
    xi[0] = value(c, u[0] + 0.5 * u_old[0]);
    xi[1] = value(c, u[1]);
    return cb_status(c, "xi");
}

static rc_status project_cb(void *user, const rc_law_ctx *ctx, const double *state, const double *x, double *p)
{
    (void)ctx; (void)state;
    cb *c = user;
    const double mu = 0.3, xn = x[0], xt = x[1], at = fabs(xt);
    double pn, pt;   /* the Coulomb cone */
    if (xn >= 0 && at <= mu * xn) { pn = xn; pt = xt; }
    else if (mu * at + xn <= 0) { pn = 0; pt = 0; }
    else { pn = (xn + mu * at) / (1 + mu * mu); pt = (xt > 0 ? mu : -mu) * pn; }
    p[0] = value(c, pn);
    p[1] = value(c, pt);
    return cb_status(c, "project");
}

static rc_status update_cb(void *user, const rc_law_ctx *ctx, double *state, const double *u,
                           const double *u_old, const double *p)
{
    (void)ctx; (void)u_old; (void)p;
    cb *c = user;
    if (c->n > 0) state[0] = value(c, state[0] + 1e-3 * u[0]);
    return cb_status(c, "update");
}

static rc_status motion_cb(void *user, double t, double *f, double *df)
{
    cb *c = user;
    *f = value(c, 0.05 * sin(5 * t));
    *df = c->how == 1 ? NAN : value(c, 0.25 * cos(5 * t));   /* NAN: differentiate */
    return cb_status(c, "motion");
}

static rc_status constraint_cb(void *user, double t, const double *qa, const double *qb, double *g, double *Ga, double *Gb)
{
    (void)t; (void)qa;
    cb *c = user;
    if (!finite(c->q0[0])) for (int i = 0; i < 3; i++) c->q0[i] = qb[i];
    for (int i = 0; i < c->n; i++) g[i] = value(c, qb[i] - c->q0[i]);   /* rows 1..3: identity gradients */
    if (Ga && c->how != 2) {   /* how 2: leave the gradients NAN (finite differences) */
        for (int i = 0; i < 3 * c->n; i++) { Ga[i] = 0.0; Gb[i] = (i % 4 == 0) ? 1.0 : 0.0; }
    }
    return cb_status(c, "constraint");
}

static rc_status gap_cb(void *user, double t, const double *q, double *g, double *grad_n, double *grad_t)
{
    (void)t;
    cb *c = user;
    *g = value(c, 0.1 + q[0]);
    for (int i = 0; i < c->n; i++) { grad_n[i] = value(c, i == 0 ? 1.0 : 0.0); grad_t[i] = 0.0; }
    return cb_status(c, "gap");
}

/* ---------------------------------------------------------------- geometry */

typedef struct pt { double x, y; } pt;

static double cross3(pt o, pt a, pt b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

static int cmp_pt(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    return 0;
}

/* convex hull, counter-clockwise, strictly convex (monotone chain); returns its size */
static int hull(pt *p, int n, pt *h)
{
    qsort(p, (size_t)n, sizeof *p, cmp_pt);
    int k = 0;
    for (int i = 0; i < n; i++) {
        while (k >= 2 && cross3(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    for (int i = n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && cross3(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    return k > 1 ? k - 1 : k;
}

/* a random convex polygon of size about s: the hull of 3..16 random points */
static int random_polygon(rd *r, double s, double vert[RC_MAX_POLYGON_VERTICES][2])
{
    pt p[RC_MAX_POLYGON_VERTICES], h[2 * RC_MAX_POLYGON_VERTICES + 2];
    int n = 3 + (int)(u8(r) % 14);
    double ax = 0.2 + unit(r), ay = 0.2 + unit(r);   /* aspect: skinny ones too */
    for (int i = 0; i < n; i++) {
        double a = 2 * PI * unit(r), rad = s * (0.3 + 0.7 * unit(r));
        p[i].x = ax * rad * cos(a);
        p[i].y = ay * rad * sin(a);
    }
    int m = hull(p, n, h);
    if (m > RC_MAX_POLYGON_VERTICES) m = RC_MAX_POLYGON_VERTICES;
    for (int i = 0; i < m; i++) { vert[i][0] = h[i].x; vert[i][1] = h[i].y; }
    return m;
}

/* a shape placed in the world frame (the harness's own copy) */
typedef struct gshape {
    int id, body, kind;             /* kind: 0 round, 1 polygon, 2 half-plane, 3 segment */
    int sliver;                     /* a polygon too thin for the harness's own geometry  */
    double c[2], r;                 /* round: centre, radius (0: point)                  */
    int n;                          /* polygon                                            */
    double v[RC_MAX_POLYGON_VERTICES][2];
    double P[2], N[2];              /* half-plane                                         */
    double a[2], b[2];              /* segment (radius r)                                 */
} gshape;

static double dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }

static double seg_dist(const double *p, const double *a, const double *b)
{
    double ab[2] = { b[0] - a[0], b[1] - a[1] }, ap[2] = { p[0] - a[0], p[1] - a[1] };
    double L2 = dot2(ab, ab), t = L2 > 0 ? dot2(ap, ab) / L2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double d[2] = { ap[0] - t * ab[0], ap[1] - t * ab[1] };
    return sqrt(dot2(d, d));
}

/* signed distance from p to a convex CCW polygon (negative inside) */
static double poly_sd(const gshape *P, const double *p)
{
    double out = -INFINITY;
    for (int e = 0; e < P->n; e++) {
        const double *a = P->v[e], *b = P->v[(e + 1) % P->n];
        double ex = b[0] - a[0], ey = b[1] - a[1], L = hypot(ex, ey);
        double s = (ey * (p[0] - a[0]) - ex * (p[1] - a[1])) / L;   /* outward normal (ey, -ex) */
        if (s > out) out = s;
    }
    if (out <= 0) return out;
    double d = INFINITY;
    for (int e = 0; e < P->n; e++) d = fmin(d, seg_dist(p, P->v[e], P->v[(e + 1) % P->n]));
    return d;
}

/* separation of Q from P along P's edge normals (> 0: separated) */
static double poly_sep(const gshape *P, const gshape *Q)
{
    double best = -INFINITY;
    for (int e = 0; e < P->n; e++) {
        const double *a = P->v[e], *b = P->v[(e + 1) % P->n];
        double ex = b[0] - a[0], ey = b[1] - a[1], L = hypot(ex, ey), lo = INFINITY;
        for (int j = 0; j < Q->n; j++)
            lo = fmin(lo, (ey * (Q->v[j][0] - a[0]) - ex * (Q->v[j][1] - a[1])) / L);
        best = fmax(best, lo);
    }
    return best;
}

/* how deep a segment (radius r) reaches into a polygon (> 0: overlap) */
static double seg_poly_depth(const gshape *S, const gshape *P)
{
    double t0 = 0, t1 = 1, d[2] = { S->b[0] - S->a[0], S->b[1] - S->a[1] };
    for (int e = 0; e < P->n && t0 <= t1; e++) {   /* clip the segment to the polygon */
        const double *a = P->v[e], *b = P->v[(e + 1) % P->n];
        double nx = b[1] - a[1], ny = -(b[0] - a[0]);
        double num0 = nx * (S->a[0] - a[0]) + ny * (S->a[1] - a[1]), den = nx * d[0] + ny * d[1];
        if (den == 0) { if (num0 > 0) t1 = -1; continue; }
        double t = -num0 / den;
        if (den > 0) t1 = fmin(t1, t); else t0 = fmax(t0, t);
    }
    if (t0 < t1) {
        double m[2] = { S->a[0] + 0.5 * (t0 + t1) * d[0], S->a[1] + 0.5 * (t0 + t1) * d[1] };
        return S->r - poly_sd(P, m);
    }
    double dist = fmin(poly_sd(P, S->a), poly_sd(P, S->b));
    for (int j = 0; j < P->n; j++) dist = fmin(dist, seg_dist(P->v[j], S->a, S->b));
    return S->r - dist;
}

/* overlap depth of two shapes (> 0: they overlap); NAN: pair not checked */
static double depth(const gshape *A, const gshape *B)
{
    if (A->kind > B->kind) { const gshape *t = A; A = B; B = t; }
    if (A->kind == 0 && B->kind == 0) {
        if (A->r == 0 && B->r == 0) return NAN;
        double d[2] = { A->c[0] - B->c[0], A->c[1] - B->c[1] };
        return A->r + B->r - sqrt(dot2(d, d));
    }
    if (A->kind == 0 && B->kind == 1) return A->r - poly_sd(B, A->c);
    if (A->kind == 0 && B->kind == 2) { double d[2] = { A->c[0] - B->P[0], A->c[1] - B->P[1] }; return A->r - dot2(B->N, d); }
    if (A->kind == 0 && B->kind == 3) return A->r + B->r - seg_dist(A->c, B->a, B->b);
    if (A->kind == 1 && B->kind == 1) return -fmax(poly_sep(A, B), poly_sep(B, A));
    if (A->kind == 1 && B->kind == 2) {
        double lo = INFINITY;
        for (int j = 0; j < A->n; j++) { double d[2] = { A->v[j][0] - B->P[0], A->v[j][1] - B->P[1] }; lo = fmin(lo, dot2(B->N, d)); }
        return -lo;
    }
    if (A->kind == 1 && B->kind == 3) return seg_poly_depth(B, A);
    return NAN;
}

static void print_shape(const gshape *s)
{
    fprintf(stderr, "  shape %d body %d kind %d", s->id, s->body, s->kind);
    if (s->kind == 0) fprintf(stderr, ": centre (%.17g, %.17g) radius %.17g", s->c[0], s->c[1], s->r);
    if (s->kind == 1) { fprintf(stderr, ":"); for (int i = 0; i < s->n; i++) fprintf(stderr, " (%.17g, %.17g)", s->v[i][0], s->v[i][1]); }
    if (s->kind == 2) fprintf(stderr, ": point (%.17g, %.17g) normal (%.17g, %.17g)", s->P[0], s->P[1], s->N[0], s->N[1]);
    if (s->kind == 3) fprintf(stderr, ": a (%.17g, %.17g) b (%.17g, %.17g) radius %.17g", s->a[0], s->a[1], s->b[0], s->b[1], s->r);
    fprintf(stderr, "\n");
}

static void dump(const rc_world *w, const gshape *g, int ng)
{
    for (int k = 0; k < ng; k++) print_shape(&g[k]);
    for (int i = 0; i < rc_contact_count(w); i++) {
        rc_contact_info ci;
        rc_contact_get(w, i, &ci);
        fprintf(stderr, "  contact shapes %d/%d feature %d gN %.17g point (%.17g, %.17g) normal (%.17g, %.17g)\n",
                ci.shape_a, ci.shape_b, ci.feature, ci.gN, ci.point[0], ci.point[1], ci.normal[0], ci.normal[1]);
    }
}

static void geometry(rd *r)
{
    rc_world_def wd = rc_default_world_def();
    wd.contact_margin = 0.05 * unit(r);
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) fail("rc_world_create with a valid def", 0);
    long warnings = 0;
    rc_world_set_warning_fn(w, quiet, &warnings);
    gshape g[8];
    int ng = 0;
    const int nshapes = 2 + (int)(u8(r) % 6);
    for (int k = 0; k < nshapes && more(r); k++) {
        gshape *s = &g[ng];
        memset(s, 0, sizeof *s);
        rc_shape_def d = rc_default_shape_def();
        const int ground = chance(r, 64);
        const double x = -1 + 2 * unit(r), y = -1 + 2 * unit(r), th = ground ? 0.0 : 2 * PI * unit(r) - PI;
        const double c = cos(th), sn = sin(th), size = 0.05 + 0.95 * unit(r);
        int body = RC_GROUND;
        if (!ground) {
            rc_body_def bd = rc_default_body_def();
            bd.mass = 1.0;
            bd.inertia = 1.0;
            bd.q[0] = x; bd.q[1] = y; bd.q[2] = th;
            if (rc_body_create(w, &bd, &body) != RC_OK) fail("rc_body_create with a valid def", 0);
        }
        /* the pose of the shape's frame: the body's, or the world frame (+ offset) on the ground */
        const double px = ground ? 0.0 : x, py = ground ? 0.0 : y, pc = ground ? 1.0 : c, ps = ground ? 0.0 : sn;
        unsigned kind = u8(r) % (ground ? 4 : 3);
        if (kind == 0 || kind == 2) {                       /* disk (ground: an obstacle), point */
            const int point = !ground && kind == 2;
            d.type = point ? RC_SHAPE_POINT : RC_SHAPE_DISK;
            d.radius = point ? 0.0 : size * 0.5;
            d.offset[0] = ground ? x : 0.3 * size * (unit(r) - 0.5);
            d.offset[1] = ground ? y : 0.3 * size * (unit(r) - 0.5);
            s->kind = 0;
            s->r = d.radius;
            s->c[0] = px + pc * d.offset[0] - ps * d.offset[1];
            s->c[1] = py + ps * d.offset[0] + pc * d.offset[1];
        } else if (kind == 1) {                              /* polygon */
            d.type = RC_SHAPE_POLYGON;
            d.nvert = random_polygon(r, size * 0.6, d.vert);
            if (ground) for (int i = 0; i < d.nvert; i++) { d.vert[i][0] += x; d.vert[i][1] += y; }
            s->kind = 1;
            s->n = d.nvert;
            double area = 0.0, size2 = 0.0;
            for (int i = 0; i < d.nvert; i++) {
                s->v[i][0] = px + pc * d.vert[i][0] - ps * d.vert[i][1];
                s->v[i][1] = py + ps * d.vert[i][0] + pc * d.vert[i][1];
                const double *a0 = d.vert[i], *b0 = d.vert[(i + 1) % d.nvert];
                area += 0.5 * (a0[0] * b0[1] - a0[1] * b0[0]);
                size2 = fmax(size2, a0[0] * a0[0] + a0[1] * a0[1]);
            }
            /* a sliver (three almost collinear points: the kernel takes it) is beyond
             * the harness's clipping and separating axes: its pairs are not judged */
            s->sliver = !(area > 1e-6 * size2);
        } else {                                             /* ground: half-plane or segment */
            if (chance(r, 128)) {
                const double a = 2 * PI * unit(r);
                d.type = RC_SHAPE_HALFPLANE;
                d.point[0] = x; d.point[1] = y;
                d.normal[0] = cos(a); d.normal[1] = sin(a);
                s->kind = 2;
                memcpy(s->P, d.point, sizeof s->P);
                memcpy(s->N, d.normal, sizeof s->N);
            } else {
                d.type = RC_SHAPE_SEGMENT;
                d.a[0] = x; d.a[1] = y;
                d.b[0] = -1 + 2 * unit(r); d.b[1] = -1 + 2 * unit(r);
                d.radius = chance(r, 128) ? 0.0 : 0.2 * unit(r);
                s->kind = 3;
                s->r = d.radius;
                memcpy(s->a, d.a, sizeof s->a);
                memcpy(s->b, d.b, sizeof s->b);
            }
        }
        if (rc_shape_create(w, body, &d, &s->id) != RC_OK) continue;   /* e.g. a polygon too thin: refused */
        s->body = body;
        ng++;
    }
    rc_sim_def sd = rc_default_sim_def();
    if (rc_world_configure(w, &sd) != RC_OK) fail("rc_world_configure with the defaults", 0);
    rc_status st = rc_world_step(w);
    if (st == RC_ERR_INTERRUPTED && budget_fired) { rc_world_destroy(w); return; }   /* out of time: nothing to check */
    if (st != RC_OK && st != RC_ERR_NUMERIC) fail("a step of a valid scene failed", st);
    if (st == RC_OK) { check_state(w, 1); fuzz_capi_steps++; }
    /* the contacts found at q_k */
    const int nc = rc_contact_count(w);
    for (int i = 0; i < nc; i++) {
        rc_contact_info ci;
        if (rc_contact_get(w, i, &ci) != RC_OK) fail("rc_contact_get below the count", i);
        const char *bad = !finite(ci.gN) || !finite(ci.point[0]) || !finite(ci.point[1]) ? "contact gap or point not finite"
                        : fabs(hypot(ci.normal[0], ci.normal[1]) - 1.0) > 1e-9 ? "contact normal not unit"
                        : ci.gN > wd.contact_margin + 1e-9 ? "contact beyond the margin" : NULL;
        if (bad) {
            fprintf(stderr, "fuzz_capi: contact %d (shapes %d/%d): %s\n", i, ci.shape_a, ci.shape_b, bad);
            dump(w, g, ng);
            fail(bad, ci.gN);
        }
    }
    /* every overlapping pair has a penetrating contact */
    for (int a = 0; a < ng; a++)
        for (int b = a + 1; b < ng; b++) {
            if (g[a].body == g[b].body) continue;           /* same body; or both on the ground */
            if (g[a].sliver || g[b].sliver) continue;
            const double dep = depth(&g[a], &g[b]);
            if (!(dep > 1e-7)) continue;
            double gmin = INFINITY;
            for (int i = 0; i < nc; i++) {
                rc_contact_info ci;
                rc_contact_get(w, i, &ci);
                if ((ci.shape_a == g[a].id && ci.shape_b == g[b].id) || (ci.shape_a == g[b].id && ci.shape_b == g[a].id))
                    gmin = fmin(gmin, ci.gN);
            }
            fuzz_capi_overlaps++;
            if (!(gmin < 0)) {
                fprintf(stderr, "fuzz_capi: shapes %d (kind %d) and %d (kind %d) overlap by %.6g; least contact gap %.6g\n",
                        g[a].id, g[a].kind, g[b].id, g[b].kind, dep, gmin);
                dump(w, g, ng);
                fail("an overlap without a penetrating contact", dep);
            }
        }
    rc_world_destroy(w);
}

/* ---------------------------------------------------------------- api programs */

typedef struct api {
    rc_world *w;
    int nbodies, nlaws, njoints, nshapes;
    rc_vtk_writer *vtk;
    char dir[256];
    long warnings;
} api;

static int body_ref(rd *r, const api *a)
{
    if (chance(r, 16)) return inum(r, -3, a->nbodies + 2);
    if (chance(r, 32)) return RC_GROUND;
    return a->nbodies ? (int)(u8(r) % (unsigned)a->nbodies) : 0;
}

static void vec(rd *r, double *x, int n, double lo, double hi) { for (int i = 0; i < n; i++) x[i] = num(r, lo, hi); }

static void op_body(rd *r, api *a)
{
    rc_body_def d = rc_default_body_def();
    if (chance(r, 8)) d.kind = (rc_body_kind)inum(r, 0, 3);
    d.name = name_of(r);
    d.mass = num(r, 0.1, 5);
    d.inertia = num(r, 0.01, 1);
    d.q[0] = num(r, -2, 2); d.q[1] = num(r, 0, 2); d.q[2] = num(r, -3, 3);
    vec(r, d.v, 3, -3, 3);
    if (chance(r, 64)) vec(r, d.force, 3, -5, 5);
    int id = -1;
    if (rc_body_create(a->w, &d, &id) == RC_OK) a->nbodies++;
}

static void op_shape(rd *r, api *a)
{
    rc_shape_def d = rc_default_shape_def();
    int body = body_ref(r, a);
    unsigned k = u8(r) % 12;
    d.type = k < 3 ? RC_SHAPE_DISK : k < 6 ? RC_SHAPE_POLYGON : k < 7 ? RC_SHAPE_POINT : k < 9 ? RC_SHAPE_HALFPLANE
           : k < 11 ? RC_SHAPE_SEGMENT : (rc_shape_type)inum(r, -1, 8);
    d.radius = num(r, 0.02, 0.4);
    vec(r, d.offset, 2, -0.2, 0.2);
    if (d.type == RC_SHAPE_POLYGON) {
        if (chance(r, 224)) d.nvert = random_polygon(r, num(r, 0.05, 0.5), d.vert);
        else {
            d.nvert = inum(r, 0, RC_MAX_POLYGON_VERTICES + 1);
            for (int i = 0; i < RC_MAX_POLYGON_VERTICES; i++) vec(r, d.vert[i], 2, -1, 1);
        }
    }
    vec(r, d.point, 2, -1, 1);
    d.normal[0] = num(r, -0.3, 0.3); d.normal[1] = num(r, 0.5, 1);
    vec(r, d.a, 2, -2, 2);
    vec(r, d.b, 2, -2, 2);
    d.group = inum(r, 0, 3);
    d.name = name_of(r);
    int id;
    if (rc_shape_create(a->w, body, &d, &id) == RC_OK) a->nshapes++;
}

static void op_law(rd *r, api *a)
{
    int id = -1;
    if (chance(r, 160)) {
        rc_law_def d = rc_default_law_def();
        d.type = (rc_law_type)(chance(r, 240) ? 1 + (int)(u8(r) % 3) : inum(r, -1, 6));
        d.e = num(r, 0, 1);
        d.mu = num(r, 0, 1);
        d.e_t = num(r, -1, 1);
        d.generic = (int)(u8(r) % 2);
        d.name = name_of(r);
        if (rc_law_create(a->w, &d, &id) == RC_OK) a->nlaws++;
        return;
    }
    rc_law_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.dim = inum(r, 1, 2);
    ops.nstate = inum(r, 0, RC_LAW_MAX_STATE);
    for (int i = 0; i < RC_LAW_MAX_STATE; i++) ops.state0[i] = num(r, -1, 1);
    cb *c = new_cb(r);
    c->n = ops.nstate;
    ops.user = c;
    ops.xi = chance(r, 250) ? xi_cb : NULL;
    ops.project = chance(r, 250) ? project_cb : NULL;
    ops.update = chance(r, 96) ? update_cb : NULL;
    if (rc_law_create_custom(a->w, &ops, name_of(r), &id) == RC_OK) a->nlaws++;
}

static void op_rule(rd *r, api *a)
{
    rc_contact_rule_def d = rc_default_contact_rule_def();
    d.kind = (rc_rule_kind)(chance(r, 240) ? 1 + (int)(u8(r) % 2) : inum(r, -1, 4));
    d.a = d.kind == RC_RULE_GROUPS ? inum(r, 0, 3) : body_ref(r, a);
    d.b = d.kind == RC_RULE_GROUPS ? inum(r, 0, 3) : body_ref(r, a);
    d.law = chance(r, 32) ? RC_NO_CONTACT : inum(r, 0, a->nlaws);
    d.name = name_of(r);
    rc_contact_rule(a->w, &d);
}

static void op_joint(rd *r, api *a)
{
    rc_joint_def d = rc_default_joint_def();
    d.type = (rc_joint_type)(chance(r, 240) ? 1 + (int)(u8(r) % 7) : inum(r, -1, 9));
    d.body_a = chance(r, 128) ? RC_GROUND : body_ref(r, a);
    d.body_b = body_ref(r, a);
    vec(r, d.point_a, 2, -1, 1);
    vec(r, d.point_b, 2, -0.3, 0.3);
    vec(r, d.axis, 2, -1, 1);
    if (chance(r, 64)) d.length = num(r, 0.1, 2);
    if (chance(r, 64)) d.angle = num(r, -1, 1);
    d.coord = inum(r, 0, 2);
    if (chance(r, 240)) { d.motion = motion_cb; d.motion_user = new_cb(r); }
    d.rows = inum(r, 1, 3);
    if (chance(r, 240)) {
        cb *c = new_cb(r);
        c->n = d.rows >= 1 && d.rows <= 3 ? d.rows : 0;
        d.constraint = constraint_cb;
        d.constraint_user = c;
    }
    d.name = name_of(r);
    int id;
    if (rc_joint_create(a->w, &d, &id) == RC_OK) a->njoints++;
}

static void op_spring(rd *r, api *a)
{
    rc_spring_def d = rc_default_spring_def();
    d.type = (rc_spring_type)(chance(r, 240) ? 1 + (int)(u8(r) % 2) : inum(r, -1, 4));
    d.body_a = chance(r, 128) ? RC_GROUND : body_ref(r, a);
    d.body_b = body_ref(r, a);
    vec(r, d.point_a, 2, -1, 1);
    vec(r, d.point_b, 2, -0.3, 0.3);
    d.k = num(r, 0, 100);
    d.c = num(r, 0, 2);
    if (chance(r, 128)) d.rest_length = num(r, 0, 1);
    if (chance(r, 128)) d.rest_angle = num(r, -3, 3);
    d.name = name_of(r);
    int id;
    rc_spring_create(a->w, &d, &id);
}

static void op_linear(rd *r, api *a)
{
    rc_linear_def d = rc_default_linear_def();
    int n = inum(r, 1, 6);
    d.n = n;
    int m = n > 0 && n <= 64 ? n : 1;
    double *M = calloc((size_t)(m * m), sizeof *M), *K = calloc((size_t)(m * m), sizeof *K),
           *C = calloc((size_t)(m * m), sizeof *C), *x = calloc((size_t)(3 * m), sizeof *x);
    if (!M || !K || !C || !x) abort();
    double k = num(r, 0, 100);
    for (int i = 0; i < m; i++) {
        M[i * m + i] = num(r, 0.5, 2);
        K[i * m + i] = 2 * k;
        C[i * m + i] = num(r, 0, 0.1);
        if (i + 1 < m) K[i * m + i + 1] = K[(i + 1) * m + i] = -k;
    }
    if (chance(r, 16)) M[u8(r) % (unsigned)(m * m)] = num(r, -1, 1);   /* asymmetric, indefinite, NaN */
    vec(r, x, 3 * m, -0.1, 0.1);
    d.M = M;
    d.K = chance(r, 192) ? K : NULL;
    d.C = chance(r, 64) ? C : NULL;
    d.q0 = chance(r, 128) ? x : NULL;
    d.v0 = chance(r, 128) ? x + m : NULL;
    d.f = chance(r, 128) ? x + 2 * m : NULL;
    d.name = name_of(r);
    int id;
    if (n > 0 && n <= 64 && rc_linear_create(a->w, &d, &id) == RC_OK) a->nbodies++;
    free(M); free(K); free(C); free(x);
}

static void op_gap(rd *r, api *a)
{
    rc_gap_def d = rc_default_gap_def();
    d.body = body_ref(r, a);
    int idx[4];
    double nrm[4], tng[4];
    d.nnz = inum(r, 0, 4);
    if (d.nnz > 4) d.nnz = 1;   /* the arrays below have 4 entries; negative: refused */
    for (int i = 0; i < 4; i++) { idx[i] = inum(r, 0, 3); nrm[i] = num(r, -1, 1); tng[i] = num(r, -1, 1); }
    d.index = idx;
    d.normal = nrm;
    d.tangent = chance(r, 96) ? tng : NULL;
    d.g0 = num(r, -0.05, 0.2);
    if (chance(r, 96)) {
        cb *c = new_cb(r);
        c->n = rc_body_nq(a->w, d.body);
        d.nnz = 0;
        d.gap_fn = gap_cb;
        d.gap_user = c;
    }
    d.law = inum(r, 0, a->nlaws);
    d.name = name_of(r);
    int id;
    rc_gap_create(a->w, &d, &id);
}

static void op_configure(rd *r, api *a)
{
    rc_sim_def d = rc_default_sim_def();
    d.scheme = (rc_scheme)(chance(r, 240) ? 1 + (int)(u8(r) % 3) : inum(r, -1, 5));
    d.theta = num(r, 0, 1);
    d.h = num(r, 1e-4, 2e-2);
    d.activation = (rc_activation)(chance(r, 240) ? 1 + (int)(u8(r) % 2) : inum(r, -1, 4));
    d.gamma = num(r, 0, 1);
    d.persist_tol = num(r, 0, 1e-6);
    rc_solver_def *s = &d.solver;
    s->method = (rc_solver_method)(chance(r, 240) ? 1 + (int)(u8(r) % 2) : inum(r, -1, 4));
    s->relax = num(r, 0.5, 1.9);
    s->order = (rc_order)(chance(r, 240) ? 1 + (int)(u8(r) % 4) : inum(r, -1, 6));
    s->seed = u16(r);
    s->check_every = 1 + (int)(u8(r) % 4);
    s->tol = num(r, 1e-12, 1e-6);
    s->max_iter = 1 + (int)(u8(r) % 200);
    if (chance(r, 8)) s->max_iter = inum(r, -5, 0);
    s->on_fail = (rc_on_fail)(chance(r, 240) ? 1 + (int)(u8(r) % 2) : inum(r, -1, 4));
    s->warm_start = (int)(u8(r) % 2);
    s->local_tol = num(r, 0, 1e-8);
    s->local_max_iter = 1 + (int)(u8(r) % 50);
    s->threads = chance(r, 24) ? 2 : 1;
    if (s->threads == 2 && chance(r, 200)) { s->order = RC_ORDER_COLOUR; s->method = RC_SOLVER_NSGS; }
    s->adaptive_threads = (int)(u8(r) % 2);
    d.work_check = (rc_work_check)(chance(r, 240) ? 1 + (int)(u8(r) % 3) : inum(r, -1, 5));
    d.work_tol = num(r, 0, 1e-6);
    d.project_joints = (int)(u8(r) % 2);
    d.project_tol = num(r, 1e-14, 1e-6);
    d.project_max_iter = 1 + (int)(u8(r) % 60);
    rc_world_configure(a->w, &d);
}

static void op_step(rd *r, api *a)
{
    int n = 1 + (int)(u8(r) % 8);
    for (int k = 0; k < n && !over_budget(); k++) {
        if (rc_world_step(a->w) != RC_OK) break;   /* a failed step leaves the state: it would fail again */
        check_state(a->w, 0);
        fuzz_capi_steps++;
        fuzz_capi_contacts += rc_contact_count(a->w);
    }
}

static void op_state(rd *r, api *a)
{
    int b = body_ref(r, a);
    double q[7], v[6], f[6];
    vec(r, q, 7, -2, 2);
    vec(r, v, 6, -3, 3);
    vec(r, f, 6, -5, 5);
    switch (u8(r) % 5) {
    case 0: rc_body_set_state(a->w, b, chance(r, 200) ? q : NULL, chance(r, 200) ? v : NULL); break;
    case 1: rc_body_set_force(a->w, b, f); break;
    case 2: {
        cb *c = new_cb(r);
        c->n = rc_body_nv(a->w, b);
        rc_body_set_force_fn(a->w, b, chance(r, 224) ? force_cb : NULL, c);
        break;
    }
    case 3: rc_law_set(a->w, inum(r, 0, a->nlaws), &(rc_law_def){ .type = RC_LAW_NEWTON_COULOMB, .e = num(r, 0, 1),
                                                                  .mu = num(r, 0, 1), .e_t = num(r, -1, 1) }); break;
    default: rc_world_set_default_law(a->w, inum(r, 0, a->nlaws)); break;
    }
}

/* queries into buffers of exactly the documented size (ASan sees overruns) */
static void op_query(rd *r, api *a)
{
    rc_world *w = a->w;
    int b = body_ref(r, a);
    switch (u8(r) % 12) {
    case 0: {
        int nq = rc_body_nq(w, b), nv = rc_body_nv(w, b);
        if (nq > 0 && nv > 0) {
            double *q = malloc((size_t)nq * sizeof *q), *v = malloc((size_t)nv * sizeof *v);
            if (!q || !v) abort();
            rc_body_get_state(w, b, q, v);
            free(q); free(v);
        }
        break;
    }
    case 1: {
        int nv = rc_body_nv(w, b);
        if (nv > 0) { double *f = malloc((size_t)nv * sizeof *f); if (!f) abort(); rc_body_get_force(w, b, f); free(f); }
        double m, J;
        rc_body_get_mass(w, b, &m, &J);
        const char *nm = rc_body_name(w, b);
        int id;
        if (nm) rc_body_find(w, nm, &id);
        rc_body_find(w, "a", &id);
        break;
    }
    case 2: { rc_joint_info ji; int id = inum(r, 0, a->njoints); rc_joint_get(w, id, &ji); rc_joint_name(w, id);
              int f; rc_joint_find(w, "joint", &f); break; }
    case 3: { rc_shape_def d; int body; rc_shape_get_def(w, inum(r, 0, a->nshapes), &body, &d); break; }
    case 4: { rc_law_def d; rc_law_get_def(w, inum(r, 0, a->nlaws), &d); break; }
    case 5: { rc_contact_info ci; int n = rc_contact_count(w); rc_contact_get(w, inum(r, 0, n), &ci); break; }
    case 6: { int n = rc_named_contact_count(w); int i = inum(r, 0, n); rc_named_contact_name(w, i);
              rc_contact_info ci; rc_named_contact_get(w, i, &ci); break; }
    case 7: { rc_step_info si; rc_world_step_info(w, &si); double k, p; rc_world_energy(w, &k, &p); break; }
    case 8: { rc_run_stats st; rc_world_run_stats(w, &st); break; }
    case 9: { rc_sim_def sd; rc_world_get_sim_def(w, &sd); rc_world_def wd; rc_world_get_def(w, &wd); break; }
    case 10: { double k, e; rc_linear_energy(w, b, &k, &e); break; }
    default: (void)rc_world_time(w); (void)rc_world_step_count(w); (void)rc_status_name((rc_status)inum(r, 0, 10)); break;
    }
}

static void op_explore(rd *r, api *a)
{
    rc_explore_def d = rc_default_explore_def();
    d.random_guess = (int)(u8(r) % 2);
    d.guess_scale = num(r, 0, 1);
    double scales[8];
    vec(r, scales, 8, 0, 1);
    if (chance(r, 64)) { d.guess_scales = scales; d.nguess_scales = inum(r, 0, 8); if (d.nguess_scales > 8 || d.nguess_scales < 0) d.nguess_scales = 8; }
    d.zero_guess = (int)(u8(r) % 2);
    d.random_order = (int)(u8(r) % 2);
    d.cyclic_order = (int)(u8(r) % 2);
    d.seed = u16(r);
    int cap = inum(r, 0, 32);
    if (cap < 0 || cap > 64) cap = 0;
    double *p = malloc((size_t)(2 * cap + 1) * sizeof *p);   /* room for 2 cap values exactly (+1: malloc(0)) */
    if (!p) abort();
    int n = -1;
    if (rc_world_explore(a->w, &d, cap ? p : NULL, cap, &n) == RC_OK) {
        int it, conv;
        double res;
        rc_explore_result(a->w, &it, &res, &conv);
        rc_contact_info ci;
        rc_explore_contact(a->w, inum(r, 0, n), &ci);
    }
    free(p);
}

static void op_io(rd *r, api *a)
{
    unsigned k = u8(r) % 8;
    if (k == 0) {
        rc_output_def d = rc_default_output_def();
        d.dir = chance(r, 224) ? a->dir : "/proc/rc-fuzz";
        d.every = inum(r, 1, 3);
        d.scenario = name_of(r);
        d.params_json = chance(r, 128) ? "{\"a\": 1}" : NULL;
        d.format = d.every == 2 ? RC_HISTORY_BINARY : RC_HISTORY_CSV;   /* (no byte more: the corpus keeps its meaning) */
        rc_output_open(a->w, &d);
    } else if (k == 1) {
        static const char *st[] = { "complete", "error", "interrupted", "stopped", "bogus", NULL };
        rc_output_close(a->w, st[u8(r) % 6], name_of(r));
    } else if (k == 2 && !a->vtk) {
        rc_vtk_def d = rc_default_vtk_def();
        char dir[300];
        snprintf(dir, sizeof dir, "%s/vtk", a->dir);
        d.dir = dir;
        d.level = inum(r, 0, 9);
        d.disk_segments = inum(r, 8, 64);
        rc_vtk_open(&d, &a->vtk);
    } else if (k == 3 && a->vtk) {
        rc_vtk_frame(a->vtk, a->w);
        (void)rc_vtk_frame_count(a->vtk);
    } else if (k == 4) {
        rc_vtk_close(a->vtk);
        a->vtk = NULL;
    } else if (k == 5) {   /* an interrupt: the next step fails, then it is cleared */
        rc_request_interrupt();
        if (rc_world_step(a->w) == RC_OK) fail("a step after rc_request_interrupt succeeded", 0);
        rc_clear_interrupt();
    } else {
        (void)rc_output_is_open(a->w);
        (void)rc_interrupt_requested();
        (void)rc_alloc_count();
    }
}

/* the outputs' folder, removed at exit */
static char out_dir[256];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void remove_outputs(void) { if (out_dir[0]) nftw(out_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void program(rd *r)
{
    api a;
    memset(&a, 0, sizeof a);
    ncb = 0;
    rc_world_def wd = rc_default_world_def();
    wd.dim = chance(r, 8) ? inum(r, 0, 4) : 2;
    wd.gravity[0] = num(r, -2, 2);
    wd.gravity[1] = num(r, -20, 0);
    wd.contact_margin = num(r, 0, 0.05);
    wd.default_e = num(r, 0, 1);
    wd.default_mu = num(r, 0, 1);
    if (chance(r, 40)) { wd.periodic_x[0] = num(r, -4, -1); wd.periodic_x[1] = num(r, 1, 4); }
    if (rc_world_create(&wd, &a.w) != RC_OK) {
        if (!rc_last_error()[0]) fail("rc_world_create failed without a message", 0);
        return;
    }
    rc_world_set_warning_fn(a.w, quiet, &a.warnings);
    /* outputs: $TMPDIR, else /dev/shm when there is one (they fsync: cheap in memory), else /tmp */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    if (!out_dir[0]) {
        snprintf(out_dir, sizeof out_dir, "%s/rc-fuzz-capi-%ld", tmp, (long)getpid());
        atexit(remove_outputs);
    }
    snprintf(a.dir, sizeof a.dir, "%s", out_dir);
    /* a scene to start from (most inputs): the ground, a few bodies, a configuration */
    if (chance(r, 224)) {
        rc_shape_def g = rc_default_shape_def();
        g.type = RC_SHAPE_HALFPLANE;
        g.normal[1] = 1.0;
        int id;
        if (rc_shape_create(a.w, RC_GROUND, &g, &id) == RC_OK) a.nshapes++;
        for (int k = (int)(u8(r) % 4); k >= 0; k--) {
            op_body(r, &a);
            if (a.nbodies == 0) continue;
            rc_shape_def d = rc_default_shape_def();
            d.type = chance(r, 128) ? RC_SHAPE_DISK : RC_SHAPE_POLYGON;
            d.radius = 0.05 + 0.3 * unit(r);
            if (d.type == RC_SHAPE_POLYGON) d.nvert = random_polygon(r, 0.05 + 0.4 * unit(r), d.vert);
            if (rc_shape_create(a.w, a.nbodies - 1, &d, &id) == RC_OK) a.nshapes++;
        }
        rc_sim_def sd = rc_default_sim_def();
        sd.scheme = (rc_scheme)(1 + (int)(u8(r) % 3));
        sd.h = 1e-3 + 1e-2 * unit(r);
        if (sd.scheme == RC_SCHEME_MAURY) sd.theta = 1.0;
        rc_world_configure(a.w, &sd);
    }
    for (int k = 0; k < 48 && more(r); k++) {
        switch (u8(r) % 24) {
        case 0: case 1: case 2: case 3: op_body(r, &a); break;
        case 4: case 5: case 6: op_shape(r, &a); break;
        case 7: case 8: op_law(r, &a); break;
        case 9: op_rule(r, &a); break;
        case 10: op_joint(r, &a); break;
        case 11: op_spring(r, &a); break;
        case 12: op_linear(r, &a); break;
        case 13: op_gap(r, &a); break;
        case 14: case 15: op_configure(r, &a); break;
        case 16: case 17: case 18: op_step(r, &a); break;
        case 19: op_state(r, &a); break;
        case 20: case 21: op_query(r, &a); break;
        case 22: op_explore(r, &a); break;
        default: op_io(r, &a); break;
        }
    }
    if (a.vtk) rc_vtk_close(a.vtk);
    rc_world_destroy(a.w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd r = { data, size, 0 };
    cpu_end = clock() + (clock_t)(FUZZ_CPU_BUDGET * CLOCKS_PER_SEC);
    budget_fired = 0;
    budget_alarm(3.0 * FUZZ_CPU_BUDGET);
    const unsigned mode = u8(&r);
    odd_rate = (const unsigned[4]){ 0, 4, 16, 16 }[u8(&r) % 4];
    if (mode % 4 == 0) geometry(&r);
    else program(&r);
    budget_alarm(0.0);
    if (budget_fired) rc_clear_interrupt();
    return 0;
}
