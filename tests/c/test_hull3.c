/* test_hull3.c -- the convex hull of a point set and the polyhedron's mass
 * properties (collide/hull3.h) against closed forms and invariants: a cube
 * hidden among duplicates, face centres, edge midpoints and interior points
 * gives 8 vertices, 6 square faces and 12 edges; every input point is inside
 * every face plane; faces are planar, convex and counter-clockwise from
 * outside; each edge borders two faces; V - E + F = 2; volume and inertia of
 * boxes, a regular tetrahedron and an octahedron in closed form; rotating and
 * moving the points moves the centroid and turns the inertia tensor (R J R');
 * random points on a sphere; the degenerate inputs refused with messages. */
#include "rc_test.h"
#include "collide/hull3.h"

static unsigned long long rng = 0x2545F4914F6CDD1DULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* the structure's invariants: points inside, faces planar, convex and CCW
 * from outside, edges shared by two faces in opposite directions, Euler */
static void check_hull(const rcc_hull3 *h, const double *pts, int n, double tol, int *failed)
{
    CHECK(h->nv - h->ne + h->nf == 2);
    for (int i = 0; i < n; i++)
        for (int f = 0; f < h->nf; f++) CHECK(dot(h->plane + 4 * f, pts + 3 * i) - h->plane[4 * f + 3] <= tol);
    for (int f = 0; f < h->nf; f++) {
        const double *pl = h->plane + 4 * f;
        CHECK_NEAR(dot(pl, pl), 1.0, 1e-14);
        const int s = h->fstart[f], len = h->fstart[f + 1] - s;
        CHECK(len >= 3);
        for (int k = 0; k < len; k++) {
            const double *a = h->v + 3 * h->loop[s + k], *b = h->v + 3 * h->loop[s + (k + 1) % len],
                         *c = h->v + 3 * h->loop[s + (k + 2) % len];
            CHECK(fabs(dot(pl, a) - pl[3]) <= tol);   /* planar */
            double u[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, w[3] = { c[0] - b[0], c[1] - b[1], c[2] - b[2] };
            double x[3] = { u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0] };
            CHECK(dot(x, pl) > 0.0);   /* a strict left turn seen from outside: convex, counter-clockwise */
        }
    }
    for (int e = 0; e < h->ne; e++) {
        const int *E = h->edge + 4 * e;
        CHECK(E[2] >= 0 && E[3] >= 0 && E[2] != E[3]);
        for (int side = 0; side < 2; side++) {   /* v0 -> v1 in f0, v1 -> v0 in f1 */
            const int f = E[2 + side], s = h->fstart[f], len = h->fstart[f + 1] - s;
            int found = 0;
            for (int k = 0; k < len; k++)
                found |= h->loop[s + k] == E[side] && h->loop[s + (k + 1) % len] == E[1 - side];
            CHECK(found);
        }
    }
}

RC_TEST(cube_among_duplicates_face_centres_and_interior_points)
{
    double pts[3 * 200];
    int n = 0;
    for (int k = 0; k < 8; k++) {   /* the corners of [-1, 2] x [0, 1] x [-0.5, 0.5] */
        pts[n++] = k & 1 ? 2.0 : -1.0; pts[n++] = k & 2 ? 1.0 : 0.0; pts[n++] = k & 4 ? 0.5 : -0.5;
    }
    for (int k = 0; k < 8; k++) {   /* their duplicates, 1e-13 off */
        for (int i = 0; i < 3; i++) pts[n + i] = pts[3 * k + i] + urand(-1e-13, 1e-13);
        n += 3;
    }
    const double fc[6][3] = { { -1, 0.5, 0 }, { 2, 0.5, 0 }, { 0.5, 0, 0 }, { 0.5, 1, 0 }, { 0.5, 0.5, -0.5 }, { 0.5, 0.5, 0.5 } };
    for (int k = 0; k < 6; k++) for (int i = 0; i < 3; i++) pts[n++] = fc[k][i];   /* face centres */
    for (int i = 0; i < 3; i++) pts[n++] = (double[]){ 0.5, 0.0, 0.5 }[i];        /* an edge midpoint */
    for (int i = 0; i < 3; i++) pts[n++] = (double[]){ 2.0, 1.0, 0.1 }[i];        /* a point on an edge */
    while (n < 3 * 200) {   /* interior points */
        pts[n] = urand(-0.9, 1.9); pts[n + 1] = urand(0.1, 0.9); pts[n + 2] = urand(-0.4, 0.4);
        n += 3;
    }
    rcc_hull3 h;
    CHECK_OK(rcc_hull3_build(pts, n / 3, 0.0, &h));
    CHECK(h.nv == 8 && h.nf == 6 && h.ne == 12);
    for (int f = 0; f < h.nf; f++) CHECK(h.fstart[f + 1] - h.fstart[f] == 4);
    for (int k = 0; k < h.nv; k++) CHECK(h.src[k] < 16);   /* corners or their duplicates */
    CHECK(h.interior == 200 - 16 - 8);
    CHECK(h.merged == 8 + 8);   /* duplicates, face centres, the two points on edges */
    check_hull(&h, pts, n / 3, 1e-12, failed);
    double V, c[3], J[9];
    rcc_hull3_mass(&h, &V, c, J);
    const double a = 3.0, b = 1.0, d = 1.0;   /* edge lengths along x, y, z */
    /* (the corners are those given or their duplicates, 1e-13 off) */
    CHECK_NEAR(V, a * b * d, 1e-12);
    CHECK_NEAR(c[0], 0.5, 1e-12); CHECK_NEAR(c[1], 0.5, 1e-12); CHECK_NEAR(c[2], 0.0, 1e-12);
    CHECK_NEAR(J[0], a * b * d * (b * b + d * d) / 12, 1e-12);
    CHECK_NEAR(J[4], a * b * d * (a * a + d * d) / 12, 1e-12);
    CHECK_NEAR(J[8], a * b * d * (a * a + b * b) / 12, 1e-12);
    CHECK_NEAR(J[1], 0.0, 1e-12); CHECK_NEAR(J[2], 0.0, 1e-12); CHECK_NEAR(J[5], 0.0, 1e-12);
}

RC_TEST(regular_tetrahedron_and_octahedron_in_closed_form)
{
    const double t[12] = { 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1 };   /* edge 2 sqrt 2 */
    rcc_hull3 h;
    CHECK_OK(rcc_hull3_build(t, 4, 0.0, &h));
    CHECK(h.nv == 4 && h.nf == 4 && h.ne == 6);
    check_hull(&h, t, 4, 1e-12, failed);
    double V, c[3], J[9];
    rcc_hull3_mass(&h, &V, c, J);
    const double a = 2.0 * sqrt(2.0);
    CHECK_NEAR(V, a * a * a / (6.0 * sqrt(2.0)), 1e-13);   /* 8/3 */
    for (int i = 0; i < 3; i++) CHECK_NEAR(c[i], 0.0, 1e-14);
    for (int i = 0; i < 3; i++) CHECK_NEAR(J[4 * i], V * a * a / 20.0, 1e-13);   /* m a^2 / 20, isotropic */
    CHECK_NEAR(J[1], 0.0, 1e-13);
    const double o[18] = { 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1 };
    CHECK_OK(rcc_hull3_build(o, 6, 0.0, &h));
    CHECK(h.nv == 6 && h.nf == 8 && h.ne == 12);
    check_hull(&h, o, 6, 1e-12, failed);
    rcc_hull3_mass(&h, &V, c, J);
    CHECK_NEAR(V, 4.0 / 3.0, 1e-14);
    for (int i = 0; i < 3; i++) CHECK_NEAR(J[4 * i], V * 2.0 / 10.0, 1e-14);   /* m (2 r^2) / 10 for r = 1 */
}

/* a random rotation R (row-major) from a random unit quaternion */
static void random_rotation(double *R)
{
    double q[4], s = 0.0;
    for (int i = 0; i < 4; i++) { q[i] = urand(-1, 1); s += q[i] * q[i]; }
    for (int i = 0; i < 4; i++) q[i] /= sqrt(s);
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    const double M[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                          2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                          2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) };
    memcpy(R, M, sizeof M);
}

RC_TEST(random_points_rotated_and_moved_keep_volume_and_turn_the_inertia)
{
    enum { N = 30 };   /* ~24 on the surface: ~44 faces (at most 64) */
    double p[3 * N], p2[3 * N], R[9], shift[3] = { 3.0, -2.0, 7.5 };
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < N; i++) {   /* on an ellipsoid (semi-axes 2, 1, 0.5), some inside */
            double u[3], s = 0.0;
            for (int k = 0; k < 3; k++) { u[k] = urand(-1, 1); s += u[k] * u[k]; }
            const double r = (i % 5 == 0 ? 0.5 : 1.0) / sqrt(s);
            p[3 * i] = 2.0 * u[0] * r; p[3 * i + 1] = u[1] * r; p[3 * i + 2] = 0.5 * u[2] * r;
        }
        random_rotation(R);
        for (int i = 0; i < N; i++)
            for (int k = 0; k < 3; k++) p2[3 * i + k] = shift[k] + dot(R + 3 * k, p + 3 * i);
        rcc_hull3 h, h2;
        if (rcc_hull3_build(p, N, 0.0, &h) != RC_OK || rcc_hull3_build(p2, N, 0.0, &h2) != RC_OK) {
            fprintf(stderr, "  trial %d: %s\n", trial, rc_last_error());
            (*failed)++;
            continue;
        }
        check_hull(&h, p, N, 1e-12, failed);
        check_hull(&h2, p2, N, 1e-12, failed);
        CHECK(h.nv + h.interior + h.merged == N);
        for (int i = 0; i < N; i++) {   /* every point on the ellipsoid is a vertex (those at half its size may be) */
            int vertex = 0;
            for (int k = 0; k < h.nv; k++) vertex |= h.src[k] == i;
            if (i % 5) CHECK(vertex);
        }
        CHECK(h2.nv == h.nv && h2.nf == h.nf);
        double V, c[3], J[9], V2, c2[3], J2[9];
        rcc_hull3_mass(&h, &V, c, J);
        rcc_hull3_mass(&h2, &V2, c2, J2);
        CHECK(V > 0.5 * 4.18879020478639 && V < 4.18879020478639);   /* inside the ellipsoid (volume 4 pi / 3) */
        CHECK_NEAR(V2, V, 1e-12 * V);
        for (int k = 0; k < 3; k++) CHECK_NEAR(c2[k], shift[k] + dot(R + 3 * k, c), 1e-12);
        for (int i = 0; i < 3; i++)   /* J2 = R J R' */
            for (int j = 0; j < 3; j++) {
                double rj = 0.0;
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) rj += R[3 * i + a] * J[3 * a + b] * R[3 * j + b];
                CHECK_NEAR(J2[3 * i + j], rj, 1e-12 * (J[0] + J[4] + J[8]));
            }
    }
}

RC_TEST(degenerate_inputs_refused_with_a_message)
{
    rcc_hull3 h;
    const double three[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    CHECK(rcc_hull3_build(three, 3, 0.0, &h) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "3 points (at least 4") != NULL);
    const double same[12] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    CHECK(rcc_hull3_build(same, 4, 0.0, &h) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "coincide") != NULL);
    const double line[15] = { 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0.5, 0.5, 0.5 };
    CHECK(rcc_hull3_build(line, 5, 0.0, &h) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "on a line") != NULL);
    const double flat[15] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.3, 0.2, 0 };
    CHECK(rcc_hull3_build(flat, 5, 0.0, &h) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "in a plane") != NULL);
    double bad[12] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    bad[7] = NAN;
    CHECK(rcc_hull3_build(bad, 4, 0.0, &h) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "point 3 has a non-finite coordinate") != NULL);
    enum { M = 400 };   /* 400 points on a sphere: more than 64 hull vertices */
    static double sph[3 * M];
    for (int i = 0; i < M; i++) {
        double s = 0.0;
        for (int k = 0; k < 3; k++) { sph[3 * i + k] = urand(-1, 1); s += sph[3 * i + k] * sph[3 * i + k]; }
        for (int k = 0; k < 3; k++) sph[3 * i + k] /= sqrt(s);
    }
    CHECK(rcc_hull3_build(sph, M, 0.0, &h) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "more than 64") != NULL);
}

RC_TEST_MAIN(T(cube_among_duplicates_face_centres_and_interior_points), T(regular_tetrahedron_and_octahedron_in_closed_form),
             T(random_points_rotated_and_moved_keep_volume_and_turn_the_inertia), T(degenerate_inputs_refused_with_a_message))
