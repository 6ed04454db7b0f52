/* test_polygon_faces.c -- edge-to-edge contact of polygons (Moreau 2004
 * §3.2: "as if polygons had an infinitesimal concavity on each edge"):
 * exactly two contact points, at the ends of the common segment, on bodies
 * and on fixed ground polygons; a box resting on a box carries its weight
 * through those two points, inside the Coulomb cone. */
#include "rc_test.h"
#include "collide/collide.h"

static void must(rc_status s)
{
    if (s != RC_OK) { fprintf(stderr, "setup failed: %s\n", rc_last_error()); exit(2); }
}

/* box [-hx, hx] x [-hy, hy] around (cx, cy) (body frame on a body, world on the ground) */
static int add_box(rc_world *w, int body, double hx, double hy, double cx, double cy)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_POLYGON;
    d.nvert = 4;
    double v[4][2] = { { -hx, -hy }, { hx, -hy }, { hx, hy }, { -hx, hy } };
    for (int i = 0; i < 4; i++) { d.vert[i][0] = cx + v[i][0]; d.vert[i][1] = cy + v[i][1]; }
    int id = -1;
    must(rc_shape_create(w, body, &d, &id));
    return id;
}

static int add_body(rc_world *w, double x, double y, double m, double J)
{
    rc_body_def b = rc_default_body_def();
    b.mass = m; b.inertia = J;
    b.q[0] = x; b.q[1] = y;
    int id = -1;
    must(rc_body_create(w, &b, &id));
    return id;
}

/* The contacts of w (after detection) lie at xs[0], xs[1] on the line y = y0,
 * with normal (0, 1) and gap g. */
static void check_two_points(const rc_world *w, double x0, double x1, double y0, double g, int *failed)
{
    CHECK(w->ncontacts == 2);
    int seen[2] = { 0, 0 };
    for (int k = 0; k < w->ncontacts; k++) {
        const rc_contact *c = &w->contacts[k];
        CHECK_NEAR(c->n[0], 0.0, 1e-14);
        CHECK_NEAR(fabs(c->n[1]), 1.0, 1e-14);
        CHECK_NEAR(c->gN, g, 1e-14);
        CHECK(fabs(c->point[1] - y0) <= fabs(g) + 1e-14);
        if (fabs(c->point[0] - x0) < 1e-14) seen[0]++;
        if (fabs(c->point[0] - x1) < 1e-14) seen[1]++;
    }
    CHECK(seen[0] == 1 && seen[1] == 1);
}

RC_TEST(edge_edge_two_points_at_the_ends_of_the_overlap)
{
    rc_world *w = NULL;
    rc_world_def d = rc_default_world_def();
    d.contact_margin = 0.01;
    must(rc_world_create(&d, &w));
    int a = add_body(w, 0.0, 0.0, 1.0, 1.0), b = add_body(w, 0.7, 1.0 - 0.002, 1.0, 1.0);
    add_box(w, a, 0.5, 0.5, 0, 0);    /* top edge y = 0.5, x in [-0.5, 0.5] */
    add_box(w, b, 0.5, 0.5, 0, 0);    /* bottom edge y = 0.498, x in [0.2, 1.2] */
    rcc_update_shapes(w);
    CHECK_OK(rcc_detect(w));
    /* common segment x in [0.2, 0.5]: the vertex of B at 0.2, the vertex of A at 0.5 */
    check_two_points(w, 0.2, 0.5, 0.5, -0.002, failed);
    rc_world_destroy(w);
}

RC_TEST(edge_edge_on_a_glued_polygon)
{
    rc_world *w = NULL;
    rc_world_def d = rc_default_world_def();
    d.contact_margin = 0.01;
    must(rc_world_create(&d, &w));
    add_box(w, RC_GROUND, 1.0, 0.25, 3.0, -0.25);    /* fixed: top y = 0, x in [2, 4] */
    int b = add_body(w, 1.8, 0.1 + 0.001, 1.0, 1.0);
    add_box(w, b, 0.4, 0.1, 0, 0);                  /* bottom y = 0.001, x in [1.4, 2.2] */
    rcc_update_shapes(w);
    CHECK_OK(rcc_detect(w));
    check_two_points(w, 2.0, 2.2, 0.0, 0.001, failed);
    rc_world_destroy(w);
}

/* A box resting on a wider box resting on the floor, under gravity, mu = 0.5,
 * pushed sideways by a force below mu m g: at rest, each face carries the
 * weight above it through two points inside the cone. */
RC_TEST(box_on_box_at_rest)
{
    rc_world *w = NULL;
    rc_world_def d = rc_default_world_def();
    d.gravity[1] = -10.0;
    d.default_mu = 0.5;
    must(rc_world_create(&d, &w));
    rc_shape_def hp = rc_default_shape_def();
    hp.type = RC_SHAPE_HALFPLANE; hp.normal[1] = 1.0;
    must(rc_shape_create(w, RC_GROUND, &hp, NULL));
    int lower = add_body(w, 0.0, 0.25, 2.0, 2.0 * (1.0 + 0.25) / 12.0);
    add_box(w, lower, 0.5, 0.25, 0, 0);
    int upper = add_body(w, 0.1, 0.6, 1.0, (0.36 + 0.04) / 12.0);
    add_box(w, upper, 0.3, 0.1, 0, 0);
    double f[3] = { 3.0, 0.0, 0.0 };   /* < mu m g = 5 */
    CHECK_OK(rc_body_set_force(w, upper, f));
    rc_sim_def s = rc_default_sim_def();
    s.h = 1e-3;
    s.solver.tol = 1e-12;
    s.solver.max_iter = 10000;
    CHECK_OK(rc_world_configure(w, &s));
    for (int k = 0; k < 100; k++) CHECK_OK(rc_world_step(w));
    double q[3], v[3];
    for (int b = 0; b < 2; b++) {
        CHECK_OK(rc_body_get_state(w, b, q, v));
        CHECK(fabs(v[0]) < 1e-9 && fabs(v[1]) < 1e-9 && fabs(v[2]) < 1e-9);
    }
    int n_upper = 0, n_floor = 0;
    double PN_upper = 0.0, PT_upper = 0.0;
    for (int k = 0; k < w->ncontacts; k++) {
        const rc_contact *c = &w->contacts[k];
        if (!c->active || c->p[0] == 0.0) continue;
        CHECK(fabs(c->p[1]) <= 0.5 * c->p[0] * (1.0 + 1e-12));   /* Coulomb cone */
        if (c->body_b == upper || c->body_a == upper) {
            n_upper++;
            PN_upper += c->p[0];
            PT_upper += c->p[1];
        } else n_floor++;
    }
    CHECK(n_upper == 2);    /* the upper box's bottom face: its two vertices */
    CHECK(n_floor == 2);    /* the lower box on the floor */
    CHECK_NEAR(PN_upper, 1.0 * 10.0 * 1e-3, 1e-12);   /* the weight, per step */
    CHECK_NEAR(fabs(PT_upper), 3.0 * 1e-3, 1e-12);     /* the push, per step */
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(edge_edge_two_points_at_the_ends_of_the_overlap), T(edge_edge_on_a_glued_polygon), T(box_on_box_at_rest))
