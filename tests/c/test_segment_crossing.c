/* test_segment_crossing.c -- a polygon lying across a ground segment (both
 * segment ends outside it, its vertices on both sides of the segment) has
 * penetrating contacts: the vertices on the side it entered from, with their
 * signed distance to the segment's line. Found by the C API fuzzer's geometry
 * programs (tests/fuzz/fuzz_capi.c): every vertex was measured by its
 * unsigned distance to the segment, so such a polygon had contacts with
 * g_N > 0, or none beyond the margin -- an overlap the solver never saw. */
#include "rc_test.h"

/* one box body at (x, y, 0), half-sizes hx, hy; a ground segment a-b of radius r; the contacts after one step */
static rc_world *scene(double x, double y, double hx, double hy, const double a[2], const double b[2], double r,
                       double margin, int *failed)
{
    rc_world_def wd = rc_default_world_def();
    wd.contact_margin = margin;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1.0;
    bd.inertia = 1.0;
    bd.q[0] = x;
    bd.q[1] = y;
    int id = -1, sid = -1;
    CHECK_OK(rc_body_create(w, &bd, &id));
    rc_shape_def box = rc_default_shape_def();
    box.type = RC_SHAPE_POLYGON;
    box.nvert = 4;
    const double v[4][2] = { { -hx, -hy }, { hx, -hy }, { hx, hy }, { -hx, hy } };
    memcpy(box.vert, v, sizeof v);
    CHECK_OK(rc_shape_create(w, id, &box, &sid));
    rc_shape_def seg = rc_default_shape_def();
    seg.type = RC_SHAPE_SEGMENT;
    seg.a[0] = a[0]; seg.a[1] = a[1];
    seg.b[0] = b[0]; seg.b[1] = b[1];
    seg.radius = r;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &seg, &sid));
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-6;
    CHECK_OK(rc_world_configure(w, &sd));
    rc_world_set_warning_fn(w, NULL, NULL);
    CHECK_OK(rc_world_step(w));
    return w;
}

/* the contact of a feature, or NULL */
static int contact_of(const rc_world *w, int feature, rc_contact_info *out)
{
    for (int i = 0; i < rc_contact_count(w); i++) {
        rc_contact_get(w, i, out);
        if (out->feature == feature) return 1;
    }
    return 0;
}

/* a 2 x 0.4 box across the horizontal segment (-3, 0)-(3, 0), mostly above:
 * its lower vertices 0, 1 are 0.1 below the line -> g_N = -0.1 - r, n = (0, 1)
 * (push up); mostly below: its upper vertices 2, 3, n = (0, -1) */
RC_TEST(box_across_a_segment)
{
    const double a[2] = { -3.0, 0.0 }, b[2] = { 3.0, 0.0 };
    for (int below = 0; below < 2; below++)
        for (int k = 0; k < 2; k++) {
            const double r = k ? 0.02 : 0.0;
            rc_world *w = scene(0.0, below ? -0.1 : 0.1, 1.0, 0.2, a, b, r, 0.01, failed);
            if (!w) return;
            for (int f = 0; f < 4; f++) {
                const int deep = below ? (f == 2 || f == 3) : (f == 0 || f == 1);
                rc_contact_info c = { 0 };
                if (!deep) continue;
                CHECK(contact_of(w, f, &c));
                CHECK_NEAR(c.gN, -0.1 - r, 1e-12);
                CHECK_NEAR(c.normal[0], 0.0, 1e-12);
                CHECK_NEAR(c.normal[1], below ? -1.0 : 1.0, 1e-12);
            }
            rc_world_destroy(w);
        }
}

/* a tilted segment through a corner of the box: the corner's vertex, 0.05
 * beyond the segment's line, is a contact with g_N = -0.05 along the line's
 * normal towards the box's centre; the segment's ends are outside the box */
RC_TEST(segment_through_a_corner)
{
    const double s = sqrt(0.5);
    /* the line x + y = 1.45 - 0.05 * sqrt(2)... : through the box [-1, 1] x [-0.5, 0.5] near (1, 0.5) */
    const double d = 1.5 - 0.05 / s;              /* (x + y) / sqrt(2) = d s: vertex (1, 0.5) is 0.05 beyond */
    const double a[2] = { d - 2.0, 2.0 }, b[2] = { d + 2.0, -2.0 };
    rc_world *w = scene(0.0, 0.0, 1.0, 0.5, a, b, 0.0, 0.01, failed);
    if (!w) return;
    rc_contact_info c = { 0 };
    CHECK(contact_of(w, 2, &c));
    CHECK_NEAR(c.gN, -0.05, 1e-12);
    CHECK_NEAR(c.normal[0], -s, 1e-12);
    CHECK_NEAR(c.normal[1], -s, 1e-12);
    for (int i = 0; i < rc_contact_count(w); i++) {   /* nothing else penetrates */
        rc_contact_get(w, i, &c);
        if (c.feature != 2) CHECK(c.gN > 0.0);
    }
    rc_world_destroy(w);
}

/* away from the segment's span (it ends before the box), nothing changes: the
 * box beside the segment's end, vertices on both sides of its line, has no
 * penetrating contact */
RC_TEST(box_beside_the_end_of_a_segment)
{
    const double a[2] = { -3.0, 0.0 }, b[2] = { -1.5, 0.0 };
    rc_world *w = scene(0.0, 0.1, 1.0, 0.2, a, b, 0.0, 0.01, failed);
    if (!w) return;
    for (int i = 0; i < rc_contact_count(w); i++) {
        rc_contact_info c;
        rc_contact_get(w, i, &c);
        CHECK(c.gN > 0.0);
    }
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(box_across_a_segment), T(segment_through_a_corner), T(box_beside_the_end_of_a_segment))
