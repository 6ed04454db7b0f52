/* test_poly_shape.c -- convex polyhedron shapes (rc_shape3_create_polyhedron,
 * collide/narrow3d_poly.c): 400 random pairs of random polyhedra (hulls of
 * 12 points) at random poses, fixed seed: every pair with a vertex of one
 * inside the other gives a penetrating contact, at most 4 points, each
 * point's pa on A's surface and pb on B's to the margin, g = n.(pb - pa),
 * |n| = 1, features unique; spheres and capsules against random polyhedra:
 * the points on the surfaces and a centre inside gives g < -r; the hull is
 * kept in the world's store (offsets per shape) and warns for dropped points. */
#include "rc_test.h"
#include "ricochet.h"
#include "collide/collide.h"
#include "collide/geom3d.h"
#include "base/rot3.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static void random_pose(rcc_pose3 *p, double R)
{
    for (int i = 0; i < 3; i++) p->p[i] = urand(-R, R);
    double q[4], L = 0.0;
    for (int i = 0; i < 4; i++) { q[i] = urand(-1, 1); L += q[i] * q[i]; }
    for (int i = 0; i < 4; i++) p->q[i] = q[i] / sqrt(L);
}

/* the signed distance to the posed polyhedron's planes' max (exact inside,
 * 0 on the surface, > 0 outside) */
static double plane_sd(const rcc_poly3 *P, const rcc_pose3 *p, const double x[3])
{
    double d[3], b[3], s = -HUGE_VAL;
    rcb_v3_sub(d, x, p->p);
    rcb_quat_rotate_inv(b, p->q, d);
    for (int f = 0; f < P->nf; f++) s = fmax(s, rcb_v3_dot(P->plane + 4 * f, b) - P->plane[4 * f + 3]);
    return s;
}

static int vertex_inside(const rcc_poly3 *A, const rcc_pose3 *pa, const rcc_poly3 *B, const rcc_pose3 *pb)
{
    for (int k = 0; k < A->nv; k++) {
        double x[3];
        rcb_quat_rotate(x, pa->q, A->v + 3 * k);
        rcb_v3_add(x, x, pa->p);
        if (plane_sd(B, pb, x) < -1e-9) return 1;
    }
    return 0;
}

static int nwarn;
static char last_warning[256];
static void count_warning(void *user, const char *msg)
{
    (void)user;
    nwarn++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static rc_world *world_of_polys(int n, int *ids)
{
    rc_world_def wd = rc_default_world_def();
    wd.dim = 3;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_world_set_warning_fn(w, count_warning, NULL);
    for (int s = 0; s < n; s++) {
        double pts[36];
        const double sc = urand(0.2, 0.6);
        for (int i = 0; i < 36; i++) pts[i] = sc * urand(-0.5, 0.5);
        if (rc_shape3_create_polyhedron(w, RC_GROUND, pts, 12, NULL, &ids[s]) != RC_OK) { rc_world_destroy(w); return NULL; }
    }
    return w;
}

RC_TEST(random_polyhedron_pairs)
{
    int ids[40];
    rc_world *w = world_of_polys(40, ids);
    CHECK(w != NULL);
    if (!w) return;
    const double margin = 0.02;
    int overlaps = 0, touching = 0, maxn = 0;
    double worst_surface = 0.0, worst_gap = 0.0;
    for (int t = 0; t < 400; t++) {
        rcc_poly3 A, B;
        rcc_shape3 ga = { 0 }, gb = { 0 };
        rcc_shape3_poly(w->c3, &w->c3->shapes[ids[t % 40]], &A);
        rcc_shape3_poly(w->c3, &w->c3->shapes[ids[(7 * t + 3) % 40]], &B);
        ga.kind = gb.kind = RCC_G3_POLY;
        ga.poly = &A;
        gb.poly = &B;
        rcc_pose3 pa, pb;
        random_pose(&pa, 0.25);
        random_pose(&pb, 0.25);
        rcc_manifold3 m;
        CHECK(rcc_collide3(&ga, &pa, &gb, &pb, margin, &m) == 1);
        CHECK(m.n >= 0 && m.n <= RCC_MAX_POINTS);
        maxn = m.n > maxn ? m.n : maxn;
        double gmin = HUGE_VAL;
        for (int i = 0; i < m.n; i++) {
            const rcc_point3 *o = &m.pt[i];
            double d[3];
            rcb_v3_sub(d, o->pb, o->pa);
            gmin = fmin(gmin, o->g);
            worst_gap = fmax(worst_gap, fabs(rcb_v3_dot(o->n, d) - o->g));
            CHECK(fabs(rcb_v3_norm(o->n) - 1.0) < 1e-12);
            CHECK(o->g <= margin + 1e-9);
            worst_surface = fmax(worst_surface, fmax(fabs(plane_sd(&A, &pa, o->pa)), fabs(plane_sd(&B, &pb, o->pb))));
            for (int j = 0; j < i; j++) CHECK(m.pt[j].feature != o->feature);
        }
        if (m.n) touching++;
        if (vertex_inside(&A, &pa, &B, &pb) || vertex_inside(&B, &pb, &A, &pa)) {
            overlaps++;
            CHECK(m.n > 0 && gmin < 0.0);
        }
    }
    printf("  400 random pairs: %d with a vertex inside the other, %d with points, at most %d points, "
           "points off their surfaces by %.2e, |n.(pb - pa) - g| %.2e\n", overlaps, touching, maxn, worst_surface, worst_gap);
    CHECK(overlaps > 100);
    CHECK(worst_surface <= margin);
    CHECK(worst_gap < 1e-12);
    rc_world_destroy(w);
}

RC_TEST(spheres_and_capsules_against_random_polyhedra)
{
    int ids[20];
    rc_world *w = world_of_polys(20, ids);
    CHECK(w != NULL);
    if (!w) return;
    double worst = 0.0;
    int inside = 0;
    for (int t = 0; t < 400; t++) {
        rcc_poly3 B;
        rcc_shape3 ga = { 0 }, gb = { 0 };
        rcc_shape3_poly(w->c3, &w->c3->shapes[ids[t % 20]], &B);
        gb.kind = RCC_G3_POLY;
        gb.poly = &B;
        ga.kind = t & 1 ? RCC_G3_CAPSULE : RCC_G3_SPHERE;
        ga.radius = urand(0.02, 0.1);
        ga.half_len = t & 1 ? urand(0.0, 0.2) : 0.0;
        rcc_pose3 pa, pb;
        random_pose(&pa, 0.3);
        random_pose(&pb, 0.05);
        rcc_manifold3 m;
        CHECK(rcc_collide3(&gb, &pb, &ga, &pa, 0.05, &m) == 1);   /* (B first: the swapped dispatch) */
        CHECK(m.n <= (t & 1 ? 3 : 1));
        for (int i = 0; i < m.n; i++) {
            const double sd = plane_sd(&B, &pb, m.pt[i].pa);
            if (sd >= 0.0) worst = fmax(worst, sd);
            /* outside the polyhedron the point is on a face, edge or vertex: max plane distance 0 */
            CHECK(sd <= 1e-12);
        }
        if (!(t & 1) && plane_sd(&B, &pb, pa.p) < 0.0) {
            inside++;
            CHECK(m.n == 1 && m.pt[0].g < -ga.radius);
        }
    }
    printf("  400 spheres and capsules: %d sphere centres inside, points above B's planes by %.2e at most\n", inside, worst);
    CHECK(inside > 5);
    rc_world_destroy(w);
}

RC_TEST(store_and_warning)
{
    rc_world_def wd = rc_default_world_def();
    wd.dim = 3;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    rc_world_set_warning_fn(w, count_warning, NULL);
    const double tet[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.1, 0.1, 0.1 };
    const double off[3] = { 1, 2, 3 };
    int a, b;
    nwarn = 0;
    CHECK_OK(rc_shape3_create_polyhedron(w, RC_GROUND, tet, 4, NULL, &a));
    CHECK(nwarn == 0);
    CHECK_OK(rc_shape3_create_polyhedron(w, RC_GROUND, tet, 5, off, &b));   /* one point inside: warned */
    CHECK(nwarn == 1);
    CHECK(strcmp(last_warning, "polyhedron shape 1: 1 of the 5 points are not hull vertices (1 inside, 0 merged or on the surface); the hull is used") == 0);
    const rcm_shape3 *sa = &w->c3->shapes[a], *sb = &w->c3->shapes[b];
    CHECK(sa->nv == 4 && sa->nf == 4 && sa->ne == 6 && sb->nv == 4);
    CHECK(sb->pd == sa->pd + 3 * 4 + 4 * 4 && sb->pi == sa->pi + 5 + 2 * 12 + 4 * 6);
    CHECK(sb->point[0] == 1 && sb->point[2] == 3);
    const double flat[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0 };
    CHECK(rc_shape3_create_polyhedron(w, RC_GROUND, flat, 4, NULL, &a) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "rc_shape3_create_polyhedron:") != NULL);
    rc_shape3_def d = rc_default_shape3_def();
    d.kind = RC_SHAPE3_POLYHEDRON;
    CHECK(rc_shape3_create(w, RC_GROUND, &d, &a) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "rc_shape3_create_polyhedron") != NULL);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(random_polyhedron_pairs), T(spheres_and_capsules_against_random_polyhedra), T(store_and_warning))
