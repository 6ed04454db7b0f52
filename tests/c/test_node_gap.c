/* test_node_gap.c -- node-to-surface contacts (src/model/node_gap.c): the
 * rows (the node's n, t and a rigid body's -n, -(r x n)) against central
 * differences of g_N in the node's coordinates and the rigid body's x, y,
 * angle, inside a segment, near and past its ends, and around a box and a
 * disk; docs/theory/fem.md "Node-to-surface contacts". */
#include "rc_test.h"
#include "ricochet.h"
#include "model/model.h"

/* a 2-dof linear body (the node's displacement, M = I) and a node contact */
static rc_world *node_world(const rc_node_contact_def *nd0, int with_box, int *gap)
{
    rc_world *w = NULL;
    if (rc_world_create(NULL, &w) != RC_OK) return NULL;
    double M[4] = { 1, 0, 0, 1 };
    rc_linear_def ld = rc_default_linear_def();
    ld.n = 2; ld.M = M;
    int lb, rb = -1;
    if (rc_linear_create(w, &ld, &lb) != RC_OK) return NULL;
    if (with_box) {
        rc_body_def bd = rc_default_body_def();
        bd.mass = 2; bd.inertia = 0.5; bd.q[0] = 0.3; bd.q[1] = -0.2; bd.q[2] = 0.4;
        if (rc_body_create(w, &bd, &rb) != RC_OK) return NULL;
        rc_shape_def sd = rc_default_shape_def();
        sd.type = RC_SHAPE_POLYGON; sd.nvert = 4;
        const double v[4][2] = { { -1, -0.3 }, { 1, -0.3 }, { 1, 0.3 }, { -1, 0.3 } };
        memcpy(sd.vert, v, sizeof v);
        if (rc_shape_create(w, rb, &sd, NULL) != RC_OK) return NULL;
        sd = rc_default_shape_def();
        sd.type = RC_SHAPE_DISK; sd.radius = 0.25; sd.offset[0] = 1.5; sd.offset[1] = 0.4;
        if (rc_shape_create(w, rb, &sd, NULL) != RC_OK) return NULL;
    }
    rc_node_contact_def nd = *nd0;
    nd.body = lb; nd.dofs[0] = 0; nd.dofs[1] = 1;
    if (with_box) nd.rigid = rb;
    if (rc_node_contact_create(w, &nd, gap) != RC_OK) { fprintf(stderr, "  %s\n", rc_last_error()); return NULL; }
    return w;
}

static double gap_at(rc_world *w, int id)
{
    double g = NAN;
    if (rcm_node_gap_eval(w, &w->gaps[id], &g) != RC_OK) return NAN;
    return g;
}

/* the rows at the node's displacement u against central differences (step e) */
static double row_error(rc_world *w, int id, const double u[2], int with_box)
{
    const double e = 1e-6;
    double *q = w->q;
    q[0] = u[0]; q[1] = u[1];
    gap_at(w, id);
    const rc_gap *g = &w->gaps[id];
    double row[5] = { g->nrm[0], g->nrm[1], 0, 0, 0 }, h[3];
    if (with_box && rcm_node_gap_rigid_row(w, g, 0, h) >= 0) { row[2] = h[0]; row[3] = h[1]; row[4] = h[2]; }
    double err = 0.0;
    const int nq = with_box ? 5 : 2;
    for (int k = 0; k < nq; k++) {
        const double save = q[k];
        q[k] = save + e; const double gp = gap_at(w, id);
        q[k] = save - e; const double gm = gap_at(w, id);
        q[k] = save;
        err = fmax(err, fabs((gp - gm) / (2 * e) - row[k]));
    }
    gap_at(w, id);
    /* the tangent row is the normal turned: t = (n_y, -n_x) */
    err = fmax(err, fabs(g->tng[0] - g->nrm[1]) + fabs(g->tng[1] + g->nrm[0]));
    return err;
}

RC_TEST(segment_rows_are_the_gap_gradient)
{
    rc_node_contact_def nd = rc_default_node_contact_def();
    nd.X[0] = 0.0; nd.X[1] = 0.5;
    nd.a[0] = -1; nd.a[1] = 0; nd.b[0] = 2; nd.b[1] = 1; nd.radius = 0.1;
    int id;
    rc_world *w = node_world(&nd, 0, &id);
    CHECK(w != NULL);
    /* inside (both sides), 1e-3 inside either end, past either end */
    const double U[][2] = { { 0.2, 0.3 }, { 0.5, -1.0 }, { -1.0 + 1e-3, -0.1 }, { 2.0 - 1e-3, 0.7 },
                            { -1.5, -0.8 }, { 2.4, 0.6 }, { 2.0 + 1e-3, 0.5 + 0.1 } };
    double worst = 0.0;
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++) worst = fmax(worst, row_error(w, id, U[i], 0));
    CHECK(worst < 1e-8);
    /* the gap: inside, the signed distance to the line less the radius; past b, |p - b| - r */
    w->q[0] = 0.0; w->q[1] = 0.0;
    CHECK_NEAR(gap_at(w, id), (0.5 - 1.0 / 3.0) * 3.0 / sqrt(10.0) - 0.1, 1e-15);
    w->q[0] = 3.0; w->q[1] = 0.5;
    CHECK_NEAR(gap_at(w, id), hypot(1.0, 0.0) - 0.1, 1e-15);
    rc_world_destroy(w);
}

RC_TEST(rigid_rows_are_the_gap_gradient)
{
    rc_node_contact_def nd = rc_default_node_contact_def();
    nd.X[0] = 0.0; nd.X[1] = 0.0;
    int id;
    rc_world *w = node_world(&nd, 1, &id);
    CHECK(w != NULL);
    /* the node above the box's top edge, near its corner, past it, inside the
     * box, and nearest the disk */
    const double U[][2] = { { 0.2, 0.6 }, { 1.0, 0.9 }, { 1.3, 0.8 }, { 0.4, -0.1 }, { 2.0, 1.0 }, { -0.8, -1.0 } };
    double worst = 0.0;
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++) worst = fmax(worst, row_error(w, id, U[i], 1));
    CHECK(worst < 1e-8);
    rc_world_destroy(w);
}

RC_TEST(bad_definitions_are_refused)
{
    rc_node_contact_def nd = rc_default_node_contact_def();
    nd.a[0] = nd.b[0] = 1.0;
    int id;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    double M[4] = { 1, 0, 0, 1 };
    rc_linear_def ld = rc_default_linear_def();
    ld.n = 2; ld.M = M;
    int lb;
    CHECK_OK(rc_linear_create(w, &ld, &lb));
    nd.body = lb; nd.dofs[1] = 1; nd.name = "n";
    CHECK(rc_node_contact_create(w, &nd, &id) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "node contact 'n': the segment's ends a and b coincide") == 0);
    nd.b[0] = 2.0; nd.radius = -1;
    CHECK(rc_node_contact_create(w, &nd, &id) == RC_ERR_ARG);
    nd.radius = 0; nd.rigid = 5;
    CHECK(rc_node_contact_create(w, &nd, &id) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "node contact 'n': body 5 is not a planar rigid body") == 0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(segment_rows_are_the_gap_gradient), T(rigid_rows_are_the_gap_gradient), T(bad_definitions_are_refused))
