/* test_polygon_normals.c -- every edge of a polygon has a unit outward normal
 * in the world frame, also an edge so short that the world-frame rounding of
 * its two vertices makes them one point (a polygon far from the origin). Found
 * by the C API fuzzer's geometry programs (tests/fuzz/fuzz_capi.c): two
 * vertices 1 ulp apart after a rotation gave an edge normal (0, 0), and a
 * point inside the polygon a contact with normal (0, 0) and g_N = 0. */
#include "rc_test.h"

static void quiet(void *user, const char *message) { (void)user; (void)message; }   /* "initial overlap" */

/* a 2 x 2 square (body frame) whose corner (1, 1) is cut by a chamfer of
 * length 1.4e-12, on a body at (X, X); a point-contactor body at (X + 0.999,
 * X + 0.999): inside, 0.001 from the right and the top edges */
static void square_and_point(double X, int *failed)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1.0;
    bd.inertia = 1.0;
    bd.q[0] = X;
    bd.q[1] = X;
    int sq = -1, pt = -1, sid = -1;
    CHECK_OK(rc_body_create(w, &bd, &sq));
    rc_shape_def poly = rc_default_shape_def();
    poly.type = RC_SHAPE_POLYGON;
    poly.nvert = 5;
    const double v[5][2] = { { -1, -1 }, { 1, -1 }, { 1, 1 - 1e-12 }, { 1 - 1e-12, 1 }, { -1, 1 } };
    memcpy(poly.vert, v, sizeof v);
    CHECK_OK(rc_shape_create(w, sq, &poly, &sid));
    bd.q[0] = X + 0.999;
    bd.q[1] = X + 0.999;
    CHECK_OK(rc_body_create(w, &bd, &pt));
    rc_shape_def point = rc_default_shape_def();
    point.type = RC_SHAPE_POINT;
    CHECK_OK(rc_shape_create(w, pt, &point, &sid));
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-9;
    CHECK_OK(rc_world_configure(w, &sd));
    rc_world_set_warning_fn(w, quiet, NULL);
    CHECK_OK(rc_world_step(w));
    CHECK(rc_contact_count(w) == 1);
    rc_contact_info c;
    memset(&c, 0, sizeof c);
    CHECK_OK(rc_contact_get(w, 0, &c));
    CHECK_NEAR(hypot(c.normal[0], c.normal[1]), 1.0, 1e-12);
    CHECK_NEAR(c.gN, -0.001, 1e-9);      /* through the right or the top edge */
    CHECK(fabs(c.normal[0]) < 1e-9 || fabs(c.normal[1]) < 1e-9);
    rc_world_destroy(w);
}

RC_TEST(chamfer_near_the_origin) { square_and_point(0.0, failed); }

/* at (1e6, 1e6) the chamfer's two vertices round to one world point */
RC_TEST(chamfer_far_from_the_origin) { square_and_point(1e6, failed); }

RC_TEST_MAIN(T(chamfer_near_the_origin), T(chamfer_far_from_the_origin))
