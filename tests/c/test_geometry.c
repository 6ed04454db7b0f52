/* test_geometry.c -- contact detection (collide.c): gaps, normals, Jacobian
 * rows (finite differences), keys, rules, broadphase vs brute force. */
#include "rc_test.h"
#include "collide/collide.h"
#define GEOM_SEED 88172645463325252ULL
#include "geom_world.h"

#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* box [-hx, hx] x [-hy, hy] centred at (ox, oy), CCW from (-hx, -hy) */
static int add_box(rc_world *w, int body, double hx, double hy, double ox, double oy)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_POLYGON; d.nvert = 4;
    const double v[4][2] = { { -hx, -hy }, { hx, -hy }, { hx, hy }, { -hx, hy } };
    for (int i = 0; i < 4; i++) { d.vert[i][0] = v[i][0] + ox; d.vert[i][1] = v[i][1] + oy; }
    return add_shape(w, body, &d);
}

/* The test's own separation of Q from P along P's edge normals (largest of
 * the least N_e.(y - x_e) over Q's vertices). */
static double poly_sep(const rc_shape *P, const rc_shape *Q, int *edge)
{
    double best = -INFINITY;
    for (int e = 0; e < P->nvert; e++) {
        int f = (e + 1) % P->nvert;
        double ex = P->wvert[f][0] - P->wvert[e][0], ey = P->wvert[f][1] - P->wvert[e][1], L = hypot(ex, ey);
        double nx = ey / L, ny = -ex / L, lo = INFINITY;   /* outward for counter-clockwise vertices */
        for (int j = 0; j < Q->nvert; j++)
            lo = fmin(lo, nx * (Q->wvert[j][0] - P->wvert[e][0]) + ny * (Q->wvert[j][1] - P->wvert[e][1]));
        if (lo > best) { best = lo; *edge = e; }
    }
    return best;
}

static int add_half(rc_world *w, double px, double py, double nx, double ny)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_HALFPLANE; d.point[0] = px; d.point[1] = py; d.normal[0] = nx; d.normal[1] = ny;
    return add_shape(w, RC_GROUND, &d);
}

static int add_seg(rc_world *w, double ax, double ay, double bx, double by, double r)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_SEGMENT; d.a[0] = ax; d.a[1] = ay; d.b[0] = bx; d.b[1] = by; d.radius = r;
    return add_shape(w, RC_GROUND, &d);
}

static void add_rule(rc_world *w, rc_rule_kind kind, int a, int b, int law, const char *name)
{
    rc_contact_rule_def r = rc_default_contact_rule_def();
    r.kind = kind; r.a = a; r.b = b; r.law = law; r.name = name;
    must(rc_contact_rule(w, &r), 0);
}



static int count_pair(const rc_world *w, int sa, int sb)
{
    int n = 0;
    for (int i = 0; i < w->ncontacts; i++)
        if (w->contacts[i].shape_a == sa && w->contacts[i].shape_b == sb) n++;
    return n;
}

/* Check one contact's gap, normal and point against hand-computed values. */
static void check_contact(const rc_world *w, int sa, int sb, int feature, double gN, double nx, double ny,
                          double px, double py, int *failed)
{
    const rc_contact *c = find(w, sa, sb, feature);
    CHECK(c != NULL);
    if (!c) { fprintf(stderr, "  missing contact (%d, %d, %d)\n", sa, sb, feature); return; }
    CHECK_NEAR(c->gN, gN, 1e-12);
    CHECK_NEAR(c->n[0], nx, 1e-12);
    CHECK_NEAR(c->n[1], ny, 1e-12);
    CHECK_NEAR(c->point[0], px, 1e-12);
    CHECK_NEAR(c->point[1], py, 1e-12);
}

/* Invariants of a contact list: sorted keys, ordering rule, frame, fields. */
static void check_structure(const rc_world *w, int *failed)
{
    for (int k = 0; k < w->ncontacts; k++) {
        const rc_contact *c = &w->contacts[k];
        const rc_shape *a = &w->shapes[c->shape_a], *b = &w->shapes[c->shape_b];
        if (k > 0) CHECK(w->contacts[k - 1].key < c->key);
        CHECK(c->key == rcm_contact_key(c->shape_a, c->shape_b, c->feature));
        CHECK(c->body_a == a->body && c->body_b == b->body);
        CHECK(c->body_b != RC_GROUND && c->body_a != c->body_b);
        CHECK(c->body_a == RC_GROUND || c->shape_a < c->shape_b);
        CHECK(c->feature >= 0 && c->feature < rcm_shape_feature_count(a, b));
        CHECK(c->law >= 0 && c->law < w->nlaws);
        CHECK_NEAR(hypot(c->n[0], c->n[1]), 1.0, 1e-12);
        double t[2], Ha[2][3], Hb[2][3];   /* the stored n, Hr and the rows built from them */
        rcm_contact_tangent(c, t);
        rcm_contact_jacobian(c, Ha, Hb);
        CHECK(t[0] == c->n[1] && t[1] == -c->n[0]);
        CHECK(c->id == 0 && c->active == 0 && c->p[0] == 0.0 && c->p[1] == 0.0);
        if (c->body_a == RC_GROUND) {
            CHECK(c->Hr[0][0] == 0.0 && c->Hr[0][1] == 0.0);
            for (int r = 0; r < 2; r++)
                for (int j = 0; j < 3; j++) CHECK(Ha[r][j] == 0.0);
        }
    }
}

/* velocity of body's material point at p (zero for the ground) */
static void point_velocity(const rc_world *w, int body, const double *v, const double p[2], double out[2])
{
    out[0] = out[1] = 0.0;
    if (body == RC_GROUND) return;
    const double *q = w->q + w->bodies[body].iq;
    out[0] = v[0] - v[2] * (p[1] - q[1]);
    out[1] = v[1] + v[2] * (p[0] - q[0]);
}

/* For every contact of w: the normal row of H equals central differences of
 * gN(q) over every dof of both bodies; u = H v is (n, t) . (relative velocity
 * of B's material point w.r.t. A's) for random velocities. Every contact must
 * persist under the perturbation (use a named pair or a wide margin). */
static void check_jacobians(rc_world *w, int *failed)
{
    detect(w, failed);
    check_structure(w, failed);
    int n = w->ncontacts;
    rc_contact *c0 = malloc((size_t)(n ? n : 1) * sizeof *c0);
    memcpy(c0, w->contacts, (size_t)n * sizeof *c0);
    const double h = 1e-6;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &c0[k];
        double Ha[2][3], Hb[2][3], t[2];   /* H rebuilt from n and Hr */
        rcm_contact_jacobian(c, Ha, Hb);
        rcm_contact_tangent(c, t);
        for (int side = 0; side < 2; side++) {
            int body = side ? c->body_b : c->body_a;
            double (*H)[3] = side ? Hb : Ha;
            if (body == RC_GROUND) continue;
            double *q = w->q + w->bodies[body].iq;
            for (int d = 0; d < 3; d++) {
                double save = q[d], g[2];
                for (int s = 0; s < 2; s++) {
                    q[d] = save + (s ? -h : h);
                    detect(w, failed);
                    const rc_contact *cp = find(w, c->shape_a, c->shape_b, c->feature);
                    CHECK(cp != NULL);
                    g[s] = cp ? cp->gN : NAN;
                }
                q[d] = save;
                double fd = (g[0] - g[1]) / (2.0 * h);
                if (!(fabs(fd - H[0][d]) <= 1e-6 * fmax(1.0, fabs(H[0][d]))))
                    fprintf(stderr, "  contact (%d,%d,%d) side %d dof %d\n", c->shape_a, c->shape_b, c->feature, side, d);
                CHECK_NEAR(fd, H[0][d], 1e-6 * fmax(1.0, fabs(H[0][d])));
            }
        }
        double va[3], vb[3], pa[2], pb[2];
        for (int j = 0; j < 3; j++) { va[j] = urand(-2, 2); vb[j] = urand(-2, 2); }
        point_velocity(w, c->body_a, va, c->point, pa);
        point_velocity(w, c->body_b, vb, c->point, pb);
        for (int r = 0; r < 2; r++) {
            const double *e = r ? t : c->n;
            double u = 0.0, ref = e[0] * (pb[0] - pa[0]) + e[1] * (pb[1] - pa[1]);
            for (int j = 0; j < 3; j++) u += Hb[r][j] * vb[j] + Ha[r][j] * va[j];
            CHECK_NEAR(u, ref, 1e-12 * (1.0 + fabs(ref)));
        }
    }
    free(c0);
    detect(w, failed);
}


/* ---------------------------------------------------------------- pair tests */

RC_TEST(disk_halfplane)
{
    for (int sw = 0; sw < 2; sw++) {   /* ground shape created before / after */
        rc_world *w = mk_world(10.0);
        int hp = -1, b, d, pt;
        if (!sw) hp = add_half(w, 1.0, 1.0, 3.0, 4.0);   /* normalised to (0.6, 0.8) */
        b = add_body(w, 2.0, 3.0, 0.7);
        d = add_disk(w, b, 0.5, 0.3, -0.2);
        pt = add_point(w, b, -0.4, 0.1);
        if (sw) hp = add_half(w, 1.0, 1.0, 3.0, 4.0);
        detect(w, failed);
        CHECK(w->ncontacts == 2);
        double c = cos(0.7), s = sin(0.7);
        double cx = 2.0 + c * 0.3 + s * 0.2, cy = 3.0 + s * 0.3 - c * 0.2;
        double g = 0.6 * (cx - 1.0) + 0.8 * (cy - 1.0) - 0.5;
        check_contact(w, hp, d, 0, g, 0.6, 0.8, cx - 0.3, cy - 0.4, failed);
        double px = 2.0 - c * 0.4 - s * 0.1, py = 3.0 - s * 0.4 + c * 0.1;
        check_contact(w, hp, pt, 0, 0.6 * (px - 1.0) + 0.8 * (py - 1.0), 0.6, 0.8, px, py, failed);
        check_jacobians(w, failed);
        /* out of the margin: nothing */
        set_q(w, b, 2.0, 30.0, 0.7);
        detect(w, failed);
        CHECK(w->ncontacts == 0);
        rc_world_destroy(w);
    }
    /* plain numbers: floor y = 0, disk r = 0.5 at (1, 0.7) */
    rc_world *w = mk_world(0.01);
    int hp = add_half(w, 0.0, 0.0, 0.0, 1.0), b = add_body(w, 1.0, 0.7, 0.0), d = add_disk(w, b, 0.5, 0, 0);
    detect(w, failed);
    CHECK(w->ncontacts == 0);           /* gN = 0.2 > margin */
    set_q(w, b, 1.0, 0.49, 0.0);
    detect(w, failed);
    CHECK(w->ncontacts == 1);
    check_contact(w, hp, d, 0, -0.01, 0.0, 1.0, 1.0, -0.01, failed);
    rc_world_destroy(w);
}

RC_TEST(disk_disk)
{
    for (int sw = 0; sw < 2; sw++) {
        rc_world *w = mk_world(10.0);
        int b1 = add_body(w, 0.0, 0.0, 0.0), b2 = add_body(w, 3.0, 4.0, 0.0), d1, d2;
        if (!sw) { d1 = add_disk(w, b1, 1.0, 0, 0); d2 = add_disk(w, b2, 1.5, 0, 0); }
        else { d2 = add_disk(w, b2, 1.5, 0, 0); d1 = add_disk(w, b1, 1.0, 0, 0); }
        detect(w, failed);
        CHECK(w->ncontacts == 1);
        /* gN = 5 - 2.5; point = midpoint of (0.6, 0.8) and (2.1, 2.8) */
        if (!sw) check_contact(w, d1, d2, 0, 2.5, 0.6, 0.8, 1.35, 1.8, failed);
        else check_contact(w, d2, d1, 0, 2.5, -0.6, -0.8, 1.35, 1.8, failed);
        CHECK(w->contacts[0].body_a == (sw ? b2 : b1));
        /* penetrating */
        set_q(w, b1, 0.2, -0.1, 0.4);
        set_q(w, b2, 1.1, 1.3, -1.1);
        detect(w, failed);
        CHECK_NEAR(w->contacts[0].gN, hypot(0.9, 1.4) - 2.5, 1e-12);
        /* concentric: n = (0, 1) */
        set_q(w, b2, 0.2, -0.1, 0.0);
        detect(w, failed);
        CHECK(w->ncontacts == 1);
        CHECK_NEAR(w->contacts[0].gN, -2.5, 1e-15);
        CHECK(w->contacts[0].n[0] == 0.0 && w->contacts[0].n[1] == 1.0);
        rc_world_destroy(w);
    }
    /* rotated bodies with offset disks / points: random states, both orders */
    for (int k = 0; k < 8; k++) {
        rc_world *w = mk_world(10.0);
        int b1 = add_body(w, 0, 0, 0), b2 = add_body(w, 0, 0, 0), d1, d2;
        double o1[2] = { urand(-0.5, 0.5), urand(-0.5, 0.5) }, o2[2] = { urand(-0.5, 0.5), urand(-0.5, 0.5) };
        if (k % 2) { d2 = add_disk(w, b2, 0.4, o2[0], o2[1]); d1 = add_disk(w, b1, 0.7, o1[0], o1[1]); }
        else if (k % 4 == 0) { d1 = add_disk(w, b1, 0.7, o1[0], o1[1]); d2 = add_disk(w, b2, 0.4, o2[0], o2[1]); }
        else { d1 = add_disk(w, b1, 0.7, o1[0], o1[1]); d2 = add_point(w, b2, o2[0], o2[1]); }
        double q1[3] = { urand(-1, 1), urand(-1, 1), urand(-3, 3) }, q2[3] = { urand(-1, 1), urand(-1, 1), urand(-3, 3) };
        set_q(w, b1, q1[0], q1[1], q1[2]);
        set_q(w, b2, q2[0], q2[1], q2[2]);
        check_jacobians(w, failed);
        CHECK(w->ncontacts == 1);
        double c1[2] = { q1[0] + cos(q1[2]) * o1[0] - sin(q1[2]) * o1[1], q1[1] + sin(q1[2]) * o1[0] + cos(q1[2]) * o1[1] };
        double c2[2] = { q2[0] + cos(q2[2]) * o2[0] - sin(q2[2]) * o2[1], q2[1] + sin(q2[2]) * o2[0] + cos(q2[2]) * o2[1] };
        double r2 = w->shapes[d2].type == RC_SHAPE_POINT ? 0.0 : 0.4;
        const rc_contact *c = d1 < d2 ? find(w, d1, d2, 0) : find(w, d2, d1, 0);
        CHECK(c != NULL);
        if (c) CHECK_NEAR(c->gN, hypot(c2[0] - c1[0], c2[1] - c1[1]) - 0.7 - r2, 1e-12);
        rc_world_destroy(w);
    }
    /* two disks on the same body never touch */
    rc_world *w = mk_world(10.0);
    int b = add_body(w, 0, 0, 0);
    add_disk(w, b, 1.0, 0, 0); add_disk(w, b, 1.0, 0.5, 0);
    detect(w, failed);
    CHECK(w->ncontacts == 0);
    CHECK(rcm_shape_feature_count(&w->shapes[0], &w->shapes[1]) == 0);
    rc_world_destroy(w);
}

RC_TEST(disk_segment)
{
    rc_world *w = mk_world(10.0);
    int b = add_body(w, 1.0, 1.0, 0.3);
    int d = add_disk(w, b, 0.5, 0, 0);
    int sg = add_seg(w, 0.0, 0.0, 4.0, 0.0, 0.1);
    int b2 = add_body(w, 2.0, 0.5, 0.0);
    int pt = add_point(w, b2, 0, 0);
    detect(w, failed);
    CHECK(w->ncontacts == 3);   /* and disk-point */
    check_contact(w, sg, d, 0, 0.4, 0.0, 1.0, 1.0, 0.5, failed);
    check_contact(w, sg, pt, 0, 0.4, 0.0, 1.0, 2.0, 0.5, failed);
    set_q(w, b, 2.0, -1.0, 0.0);                     /* two-sided: below */
    detect(w, failed);
    check_contact(w, sg, d, 0, 0.4, 0.0, -1.0, 2.0, -0.5, failed);
    set_q(w, b, 5.0, 3.0, 0.0);                      /* beyond end point b */
    detect(w, failed);
    double L = sqrt(10.0);
    check_contact(w, sg, d, 0, L - 0.6, 1.0 / L, 3.0 / L, 5.0 - 0.5 / L, 3.0 - 1.5 / L, failed);
    set_q(w, b, 2.0, 0.0, 0.0);                      /* centre on the segment: left normal */
    detect(w, failed);
    check_contact(w, sg, d, 0, -0.6, 0.0, 1.0, 2.0, -0.5, failed);
    rc_world_destroy(w);
    /* random states, offset shapes, ground shape created last */
    w = mk_world(10.0);
    b = add_body(w, 0, 0, 0); d = add_disk(w, b, 0.3, 0.2, -0.1);
    b2 = add_body(w, 0, 0, 0); pt = add_point(w, b2, -0.3, 0.25);
    sg = add_seg(w, 0.0, 0.0, 4.0, 1.0, 0.05);
    for (int k = 0; k < 6; k++) {
        set_q(w, b, urand(-1, 5), urand(-1, 2), urand(-3, 3));
        set_q(w, b2, urand(-1, 5), urand(-1, 2), urand(-3, 3));
        check_jacobians(w, failed);
        CHECK(w->ncontacts == 3 && find(w, sg, d, 0) && find(w, sg, pt, 0));
    }
    rc_world_destroy(w);
}

RC_TEST(disk_polygon)
{
    for (int sw = 0; sw < 2; sw++) {   /* polygon is A (created first) / B */
        rc_world *w = mk_world(10.0);
        int bp = add_body(w, 0, 0, 0), bd = add_body(w, 2.5, 0.0, 0.0), p, d;
        if (!sw) { p = add_box(w, bp, 1, 1, 0, 0); d = add_disk(w, bd, 0.5, 0, 0); }
        else { d = add_disk(w, bd, 0.5, 0, 0); p = add_box(w, bp, 1, 1, 0, 0); }
        int sa = sw ? d : p, sb = sw ? p : d;
        double sg = sw ? -1.0 : 1.0;    /* n = sg * (normal from polygon to disk) */
        detect(w, failed);
        check_contact(w, sa, sb, 0, 1.0, sg, 0.0, 2.0, 0.0, failed);        /* facing an edge */
        set_q(w, bd, 2.0, 2.0, 0.0);
        detect(w, failed);
        double r2 = sqrt(0.5);
        check_contact(w, sa, sb, 0, sqrt(2.0) - 0.5, sg * r2, sg * r2, 2.0 - 0.5 * r2, 2.0 - 0.5 * r2, failed);
        set_q(w, bd, 0.8, 0.1, 0.0);                                       /* centre inside */
        detect(w, failed);
        check_contact(w, sa, sb, 0, -0.7, sg, 0.0, 0.3, 0.1, failed);
        for (int k = 0; k < 6; k++) {
            set_q(w, bp, urand(-0.5, 0.5), urand(-0.5, 0.5), urand(-3, 3));
            double a = urand(-PI, PI), r = k < 3 ? urand(1.6, 2.5) : urand(0.2, 0.8);
            set_q(w, bd, r * cos(a), r * sin(a), urand(-3, 3));
            w->shapes[d].offset[0] = 0.1;   /* exercise the disk's rotation dof */
            check_jacobians(w, failed);
            CHECK(w->ncontacts == 1);
        }
        rc_world_destroy(w);
    }
}

RC_TEST(polygon_halfplane)
{
    rc_world *w = mk_world(5.0);
    int b = add_body(w, 0.5, 2.0, 0.3), p = add_box(w, b, 1.0, 0.5, 0, 0);
    int hp = add_half(w, 0.0, 0.0, 0.0, 1.0);
    detect(w, failed);
    CHECK(w->ncontacts == 4);
    const double v[4][2] = { { -1, -0.5 }, { 1, -0.5 }, { 1, 0.5 }, { -1, 0.5 } };
    double c = cos(0.3), s = sin(0.3);
    for (int i = 0; i < 4; i++) {
        double x = 0.5 + c * v[i][0] - s * v[i][1], y = 2.0 + s * v[i][0] + c * v[i][1];
        check_contact(w, hp, p, i, y, 0.0, 1.0, x, y, failed);
    }
    set_q(w, b, 0.5, 0.3, 0.2);   /* two vertices below the floor */
    check_jacobians(w, failed);
    CHECK(rcm_shape_feature_count(&w->shapes[hp], &w->shapes[p]) == 4);
    rc_world_destroy(w);
}

RC_TEST(polygon_segment)
{
    rc_world *w = mk_world(0.01);
    int b = add_body(w, 0.0, 1.5, 0.0), p = add_box(w, b, 1, 1, 0, 0);
    int sg = add_seg(w, -3.0, 0.0, 3.0, 0.0, 0.2);
    CHECK(rcm_shape_feature_count(&w->shapes[sg], &w->shapes[p]) == 6);
    detect(w, failed);
    CHECK(w->ncontacts == 0);
    add_rule(w, RC_RULE_BODIES, RC_GROUND, b, 0, "seg");
    detect(w, failed);
    CHECK(w->ncontacts == 6);
    check_contact(w, sg, p, 0, 0.3, 0.0, 1.0, -1.0, 0.5, failed);
    check_contact(w, sg, p, 1, 0.3, 0.0, 1.0, 1.0, 0.5, failed);
    check_contact(w, sg, p, 2, 2.3, 0.0, 1.0, 1.0, 2.5, failed);
    check_contact(w, sg, p, 3, 2.3, 0.0, 1.0, -1.0, 2.5, failed);
    check_contact(w, sg, p, 4, 1.8, 1.0, 0.0, -2.8, 0.0, failed);   /* end a vs left edge */
    check_contact(w, sg, p, 5, 1.8, -1.0, 0.0, 2.8, 0.0, failed);   /* end b vs right edge */
    /* box resting across the end point b, penetrating */
    set_q(w, b, 3.2, 1.05, 0.0);
    detect(w, failed);
    check_contact(w, sg, p, 0, -0.15, 0.0, 1.0, 2.2, 0.05, failed);
    check_contact(w, sg, p, 1, hypot(1.2, 0.05) - 0.2, 1.2 / hypot(1.2, 0.05), 0.05 / hypot(1.2, 0.05), 4.2, 0.05, failed);
    check_contact(w, sg, p, 5, -0.15, 0.0, 1.0, 3.0, 0.2, failed);  /* end b vs bottom edge */
    for (int k = 0; k < 6; k++) {
        set_q(w, b, urand(-4, 4), urand(-1.5, 1.5), urand(-3, 3));
        check_jacobians(w, failed);
        CHECK(w->ncontacts == 6);
    }
    rc_world_destroy(w);
}

RC_TEST(polygon_polygon)
{
    for (int sw = 0; sw < 2; sw++) {
        rc_world *w = mk_world(1.0);
        int b1 = add_body(w, 0, 0, 0), b2 = add_body(w, 2.5, 0.3, 0), p1, p2;
        if (!sw) { p1 = add_box(w, b1, 1, 1, 0, 0); p2 = add_box(w, b2, 1, 1, 0, 0); }
        else { p2 = add_box(w, b2, 1, 1, 0, 0); p1 = add_box(w, b1, 1, 1, 0, 0); }
        int sa = sw ? p2 : p1, sb = sw ? p1 : p2;
        double sg = sw ? -1.0 : 1.0;
        detect(w, failed);
        /* one normal per pair, the reference face A's (separations tie): the
         * incident edge (x = 1.5, y in [-0.7, 1.3]) clipped to the face x = 1,
         * y in [-1, 1]: its end cut at the face's vertex (1, 1) (that vertex's
         * feature and point) and its vertex (1.5, -0.7) */
        int fa = sw ? 4 : 0, fb = sw ? 0 : 4;  /* feature offsets of box 1 / box 2 vertices */
        if (!sw) {
            check_contact(w, sa, sb, 2, 0.5, 1.0, 0.0, 1.0, 1.0, failed);
            check_contact(w, sa, sb, 4 + 0, 0.5, 1.0, 0.0, 1.5, -0.7, failed);
        } else {   /* reference face box 2's x = 1.5: box 1's vertex (1, 1), the cut at (1.5, -0.7) */
            check_contact(w, sa, sb, 4 + 2, 0.5, -1.0, 0.0, 1.0, 1.0, failed);
            check_contact(w, sa, sb, 0, 0.5, -1.0, 0.0, 1.5, -0.7, failed);
        }
        CHECK(count_pair(w, sa, sb) == 2);
        set_q(w, b2, 1.8, 0.3, 0.0);   /* overlap 0.2 */
        detect(w, failed);
        check_contact(w, sa, sb, fa + 2, -0.2, sg, 0.0, 1.0, 1.0, failed);    /* (1, 1) in box 2 */
        check_contact(w, sa, sb, fb + 0, -0.2, sg, 0.0, 0.8, -0.7, failed);   /* (0.8, -0.7) in box 1 */
        /* box 2's corner (0.8, 1.3), 0.3 above box 1's top edge: vertex-edge both
         * ways would add it with the normal (0, 1), a second cone at that corner */
        CHECK(find(w, sa, sb, fb + 3) == NULL);
        CHECK(find(w, sa, sb, fa + 0) == NULL);    /* far vertex, beyond the margin */
        CHECK(count_pair(w, sa, sb) == 2);         /* (1, 1), (0.8, -0.7) */
        set_q(w, b2, 3.5, 2.3, 0.0);   /* corner to corner, beyond the margin */
        detect(w, failed);
        CHECK(count_pair(w, sa, sb) == 0);
        rc_world_destroy(w);
    }
    /* named pair: every feature, random states, finite differences */
    for (int k = 0; k < 6; k++) {
        rc_world *w = mk_world(0.01);
        int b1 = add_body(w, 0, 0, urand(-3, 3)), b2 = add_body(w, urand(-3, 3), urand(-3, 3), urand(-3, 3));
        int p1 = add_ngon(w, b1, 3 + k % 4, 1.0, 0, 0, urand(0, 1)), p2 = add_ngon(w, b2, 4 + k % 3, 0.8, 0, 0, urand(0, 1));
        add_rule(w, RC_RULE_BODIES, b1, b2, 0, "pp");
        check_jacobians(w, failed);
        CHECK(w->ncontacts == rcm_shape_feature_count(&w->shapes[p1], &w->shapes[p2]));
        CHECK(w->ncontacts == w->nslots);
        rc_world_destroy(w);
    }
}

/* Random pairs of polygons (unnamed: the reference-face clipping): at most
 * two contacts, an overlap always gives a contact with gN < 0 (no missed
 * penetration), and every contact's Jacobian is the derivative of its gap
 * (check_jacobians: central differences, and H v against the velocities of
 * the contact point). */
RC_TEST(polygon_pairs_random)
{
    int overlaps = 0, tested = 0;
    for (int k = 0; k < 400; k++) {
        rc_world *w = mk_world(0.05);
        int b1 = add_body(w, 0, 0, urand(-3, 3));
        int b2 = add_body(w, urand(-1.6, 1.6), urand(-1.6, 1.6), urand(-3, 3));
        int p1 = add_ngon(w, b1, 3 + k % 6, urand(0.5, 1.0), 0, 0, urand(0, 1));
        int p2 = add_ngon(w, b2, 3 + (k / 6) % 6, urand(0.3, 0.9), 0, 0, urand(0, 1));
        detect(w, failed);
        int e;
        const double sep1 = poly_sep(&w->shapes[p1], &w->shapes[p2], &e);
        const double sep2 = poly_sep(&w->shapes[p2], &w->shapes[p1], &e);
        const double sep = sep1 > sep2 ? sep1 : sep2;   /* < 0: the polygons overlap (SAT) */
        const int n = count_pair(w, p1 < p2 ? p1 : p2, p1 < p2 ? p2 : p1);
        CHECK(n <= 2);
        if (sep < -1e-9) {
            overlaps++;
            double gmin = INFINITY;
            for (int i = 0; i < w->ncontacts; i++) gmin = fmin(gmin, w->contacts[i].gN);
            CHECK(n >= 1 && gmin < 0.0);
        }
        if (n > 0 && fabs(sep1 - sep2) > 1e-3) {   /* away from a tie of the reference face */
            check_jacobians(w, failed);
            tested++;
        }
        rc_world_destroy(w);
    }
    CHECK(overlaps > 50 && tested > 50);
}

/* One contact where a corner meets a corner: the reference face's vertex
 * against the incident edge's line, or the incident corner against the face. */
RC_TEST(projection_filter)
{
    for (int sw = 0; sw < 2; sw++) {
        rc_world *w = mk_world(0.4);
        int bt = add_body(w, 0, 0, 0), bb = add_body(w, 2.0, 0.55, 0), t, x;
        rc_shape_def d = rc_default_shape_def();
        d.type = RC_SHAPE_POLYGON; d.nvert = 3;
        d.vert[0][0] = 0; d.vert[0][1] = 0; d.vert[1][0] = 1; d.vert[1][1] = 0; d.vert[2][0] = 0; d.vert[2][1] = 0.2;
        if (!sw) { t = add_shape(w, bt, &d); x = add_box(w, bb, 0.5, 0.5, 0, 0); }
        else { x = add_box(w, bb, 0.5, 0.5, 0, 0); t = add_shape(w, bt, &d); }
        /* box's left face x = 1.5: separation 0.5 > margin */
        detect(w, failed);
        CHECK(w->ncontacts == 0);
        /* left face x = 1.3, y in [0.05, 1.05]: the hypotenuse, clipped at the
         * face's end, leaves the box's corner (1.3, 0.05) against its line;
         * the tip (1, 0), below the face, is not a second contact there */
        set_q(w, bb, 1.8, 0.55, 0.0);
        detect(w, failed);
        CHECK(w->ncontacts == 1);
        int sa = sw ? x : t, sb = sw ? t : x;
        double L = hypot(1.0, 0.2), N[2] = { 0.2 / L, 1.0 / L };
        double s = N[0] * (1.3 - 1.0) + N[1] * 0.05, sg = sw ? -1.0 : 1.0;
        check_contact(w, sa, sb, sw ? 0 : 3, s, sg * N[0], sg * N[1], 1.3, 0.05, failed);
        set_q(w, bb, 1.8, 0.45, 0.0);   /* y in [-0.05, 0.95]: the tip (1, 0) faces it at 0.3 */
        detect(w, failed);
        CHECK(w->ncontacts == 1);
        check_contact(w, sa, sb, sw ? 5 : 1, 0.3, sg, 0.0, 1.0, 0.0, failed);
        rc_world_destroy(w);
    }
}

/* A corner under a face within the margin: found by the broadphase, with the
 * face's normal and the corner's feature. */
RC_TEST(broadphase_corner)
{
    const double m = 0.1, r2 = sqrt(2.0);
    rc_world *w = mk_world(m);
    int bp = add_body(w, 0, 0, PI / 4), bq = add_body(w, 0.2, r2 + 0.9 * m + 0.5, 0);
    int p = add_box(w, bp, 1, 1, 0, 0), q = add_box(w, bq, 0.5, 0.5, 0, 0);
    (void)bq;
    detect(w, failed);
    CHECK(w->ncontacts == 1);   /* p's top corner (0, sqrt 2), 0.9 m under q's bottom face */
    check_contact(w, p, q, 2, 0.9 * m, 0.0, 1.0, 0.0, r2, failed);
    rc_world_destroy(w);
}

RC_TEST(feature_counts)
{
    rc_world *w = mk_world(0.01);
    int b1 = add_body(w, 0, 0, 0), b2 = add_body(w, 5, 0, 0);
    int d = add_disk(w, b1, 1, 0, 0), pt = add_point(w, b2, 0, 0), p5 = add_ngon(w, b2, 5, 1, 0, 0, 0);
    int p3 = add_ngon(w, b1, 3, 1, 0, 0, 0), hp = add_half(w, 0, 0, 0, 1), sg = add_seg(w, 0, 0, 1, 0, 0);
    const rc_shape *S = w->shapes;
    CHECK(rcm_shape_feature_count(&S[d], &S[pt]) == 1);
    CHECK(rcm_shape_feature_count(&S[d], &S[p5]) == 1);
    CHECK(rcm_shape_feature_count(&S[p5], &S[d]) == 1);
    CHECK(rcm_shape_feature_count(&S[hp], &S[d]) == 1);
    CHECK(rcm_shape_feature_count(&S[sg], &S[pt]) == 1);
    CHECK(rcm_shape_feature_count(&S[hp], &S[p5]) == 5);
    CHECK(rcm_shape_feature_count(&S[p5], &S[sg]) == 7);
    CHECK(rcm_shape_feature_count(&S[p3], &S[p5]) == 8);
    CHECK(rcm_shape_feature_count(&S[p3], &S[d]) == 0);     /* same body */
    CHECK(rcm_shape_feature_count(&S[hp], &S[sg]) == 0);    /* ground-ground */
    rc_world_destroy(w);
}

/* ---------------------------------------------------------------- identity, rules */

RC_TEST(keys_stable)
{
    /* every gap is either 0 or at least 0.1 away from the margin */
    rc_world *w = mk_world(0.05);
    add_half(w, 0, 0, 0, 1);
    int bodies[7];
    bodies[0] = add_body(w, -3.9, 0.5, 0.0); add_disk(w, bodies[0], 0.5, 0, 0);    /* floor, box */
    bodies[1] = add_body(w, -2.9, 0.5, 0.0); add_box(w, bodies[1], 0.5, 0.5, 0, 0); /* floor (2) */
    bodies[2] = add_body(w, -2.9, 1.5, 0.0); add_disk(w, bodies[2], 0.5, 0, 0);    /* on the box */
    bodies[3] = add_body(w, -1.0, 0.5, 0.0); add_ngon(w, bodies[3], 3, 0.5, 0, 0, -PI / 2); /* floor (1) */
    bodies[4] = add_body(w, 0.5, 0.5, 0.0); add_point(w, bodies[4], 0, -0.5);       /* floor */
    bodies[5] = add_body(w, 2.0, 0.5, 0.0); add_disk(w, bodies[5], 0.5, 0, 0);      /* floor */
    add_box(w, bodies[5], 0.2, 0.2, 0.5, 0.0);                                       /* same body */
    add_seg(w, 3.0, 0.2, 5.0, 0.2, 0.05);
    bodies[6] = add_body(w, 4.0, 0.75, 0.0); add_disk(w, bodies[6], 0.5, 0, 0);     /* segment */
    detect(w, failed);
    check_structure(w, failed);
    int n = w->ncontacts;
    CHECK(n == 9);
    uint64_t keys[64];
    for (int i = 0; i < n && i < 64; i++) keys[i] = w->contacts[i].key;
    detect(w, failed);   /* the first detection's grid spilled; this one's start sized the work memory */
    uint64_t a0 = rc_alloc_count();
    for (int step = 0; step < 20; step++) {
        for (int i = 0; i < 7; i++) {
            double q[3];
            rc_body_get_state(w, bodies[i], q, NULL);
            set_q(w, bodies[i], q[0] + urand(-1e-4, 1e-4), q[1] + urand(-1e-4, 1e-4), q[2] + urand(-1e-4, 1e-4));
        }
        detect(w, failed);
        check_structure(w, failed);
        CHECK(w->ncontacts == n);
        for (int i = 0; i < n && i < w->ncontacts && i < 64; i++) CHECK(w->contacts[i].key == keys[i]);
    }
    CHECK(rc_alloc_count() == a0);   /* steady state allocates nothing */
    rc_world_destroy(w);
}

RC_TEST(rules)
{
    rc_world *w = mk_world(0.01);
    add_half(w, 0, 0, 0, 1);
    int b1 = add_body(w, 0, 0.5, 0), b2 = add_body(w, 1.0, 0.5, 0), b3 = add_body(w, 10, 5, 0);
    int d1 = add_disk(w, b1, 0.5, 0, 0), d2 = add_disk(w, b2, 0.5, 0, 0), p3 = add_ngon(w, b3, 6, 0.5, 0, 0, 0);
    detect(w, failed);
    CHECK(w->ncontacts == 3);               /* d1-floor, d2-floor, d1-d2 */
    CHECK(find(w, d1, d2, 0) && find(w, d1, d2, 0)->law == 0);
    rc_law_def ld = rc_default_law_def();
    int law = -1;
    rc_status st = rc_law_create(w, &ld, &law);
    must(st, 0);
    add_rule(w, RC_RULE_BODIES, b2, b1, law, NULL);
    detect(w, failed);
    CHECK(find(w, d1, d2, 0) && find(w, d1, d2, 0)->law == law);
    add_rule(w, RC_RULE_BODIES, b1, b2, RC_NO_CONTACT, NULL);
    detect(w, failed);
    CHECK(w->ncontacts == 2 && find(w, d1, d2, 0) == NULL);
    /* group rule: switch the floor off for group 0 */
    add_rule(w, RC_RULE_GROUPS, 0, 0, RC_NO_CONTACT, NULL);
    detect(w, failed);
    CHECK(w->ncontacts == 0);
    /* named pair far apart: all features, every step */
    add_rule(w, RC_RULE_BODIES, b1, b3, 0, "far");
    detect(w, failed);
    CHECK(w->ncontacts == 1);
    const rc_contact *c = find(w, d1, p3, 0);
    CHECK(c != NULL);
    /* closest point: on the hexagon edge between its vertices at 180 and 240 degrees */
    double ex = 0.25, ey = -0.25 * sqrt(3.0);
    double tt = ((0.0 - 9.5) * ex + (0.5 - 5.0) * ey) / (ex * ex + ey * ey);
    tt = fmin(1.0, fmax(0.0, tt));
    if (c) CHECK_NEAR(c->gN, hypot(9.5 + tt * ex - 0.0, 5.0 + tt * ey - 0.5) - 0.5, 1e-12);
    add_rule(w, RC_RULE_BODIES, RC_GROUND, b3, 0, "floor3");
    detect(w, failed);
    CHECK(w->ncontacts == 7 && count_pair(w, 0, p3) == 6);
    for (int i = 0; i < 6; i++) {
        c = find(w, 0, p3, i);
        CHECK(c != NULL);
        if (c) CHECK_NEAR(c->gN, 5.0 + 0.5 * sin(PI * i / 3.0), 1e-12);
    }
    check_structure(w, failed);
    /* a named pair switched off by a later rule produces nothing */
    add_rule(w, RC_RULE_BODIES, b3, RC_GROUND, RC_NO_CONTACT, NULL);
    detect(w, failed);
    CHECK(w->ncontacts == 1);
    rc_world_destroy(w);
}

/* ---------------------------------------------------------------- broadphase */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 2 000 disks (one per body), a floor and a segment: the contacts found must
 * be exactly the O(n^2) brute-force set, with the same gaps. */
static void brute_disks(rc_world *w, int nd, int hp, int sg, int *failed)
{
    double m = w->def.contact_margin;
    int cap = 1 << 16, nb = 0;
    uint64_t *keys = malloc((size_t)cap * sizeof *keys);
    double *gaps = malloc((size_t)cap * sizeof *gaps);
    const rc_shape *S = w->shapes;
    const rc_shape *H = &S[hp], *G = &S[sg];
    for (int i = 0; i < w->nshapes; i++) {
        if (S[i].type != RC_SHAPE_DISK) continue;
        const double *ci = w->q + w->bodies[S[i].body].iq, ri = S[i].radius;
        double gh = (ci[1] - H->point[1]) - ri;                 /* floor y = point_y, normal (0,1) */
        if (gh <= m && nb < cap) { keys[nb] = rcm_contact_key(hp, i, 0); gaps[nb++] = gh; }
        double ex = G->b[0] - G->a[0], ey = G->b[1] - G->a[1];
        double s = ((ci[0] - G->a[0]) * ex + (ci[1] - G->a[1]) * ey) / (ex * ex + ey * ey);
        s = fmin(1.0, fmax(0.0, s));
        double gs = hypot(ci[0] - G->a[0] - s * ex, ci[1] - G->a[1] - s * ey) - ri - G->radius;
        if (gs <= m && nb < cap) { keys[nb] = rcm_contact_key(sg, i, 0); gaps[nb++] = gs; }
        for (int j = i + 1; j < w->nshapes; j++) {
            if (S[j].type != RC_SHAPE_DISK) continue;
            const double *cj = w->q + w->bodies[S[j].body].iq;
            double g = hypot(cj[0] - ci[0], cj[1] - ci[1]) - ri - S[j].radius;
            if (g <= m && nb < cap) { keys[nb] = rcm_contact_key(i, j, 0); gaps[nb++] = g; }
        }
    }
    CHECK(nb < cap);
    /* keys are generated in increasing order except the ground ones: sort (key, gap) */
    uint64_t (*kg)[2] = malloc((size_t)(nb ? nb : 1) * sizeof *kg);
    for (int k = 0; k < nb; k++) { kg[k][0] = keys[k]; memcpy(&kg[k][1], &gaps[k], sizeof(double)); }
    qsort(kg, (size_t)nb, sizeof *kg, cmp_u64);
    CHECK(w->ncontacts == nb);
    int bad = 0;
    for (int k = 0; k < nb && k < w->ncontacts; k++) {
        double g;
        memcpy(&g, &kg[k][1], sizeof g);
        if (w->contacts[k].key != kg[k][0] || fabs(w->contacts[k].gN - g) > 1e-12) bad++;
    }
    CHECK(bad == 0);
    CHECK(nb > nd / 4);   /* the scene is dense enough to mean something */
    free(keys); free(gaps); free(kg);
}

RC_TEST(broadphase_disks)
{
    const int nd = 2000;
    rc_world *w = mk_world(0.01);
    int hp = add_half(w, 0.0, 0.0, 0.0, 1.0);
    for (int i = 0; i < nd; i++) {
        int b = add_body(w, urand(0, 2), urand(0.0, 2), urand(-3, 3));
        add_disk(w, b, urand(0.005, 0.02), 0, 0);
    }
    int sg = add_seg(w, 0.2, 1.0, 1.8, 1.3, 0.01);   /* a ground shape with a higher index */
    detect(w, failed);
    check_structure(w, failed);
    brute_disks(w, nd, hp, sg, failed);
    /* coherent motion, then a teleport */
    for (int round = 0; round < 4; round++) {
        for (int b = 0; b < nd; b++) {
            double *q = w->q + w->bodies[b].iq;
            if (round < 3) { q[0] += urand(-0.003, 0.003); q[1] += urand(-0.003, 0.003); }
            else { q[0] = urand(0, 2); q[1] = urand(0, 2); }
        }
        detect(w, failed);
        brute_disks(w, nd, hp, sg, failed);
    }
    uint64_t a0 = rc_alloc_count();
    detect(w, failed);
    CHECK(rc_alloc_count() == a0);
    rc_world_destroy(w);
}

/* Mixed shapes: the contacts of every shape pair in the full scene equal those
 * found in a world holding only that pair (no broadphase effect). */
RC_TEST(broadphase_mixed)
{
    const int nb = 40;
    rc_world *w = mk_world(0.05);
    add_half(w, 0.0, 0.0, 0.2, 1.0);
    add_seg(w, 0.5, 1.0, 3.0, 1.6, 0.05);
    for (int i = 0; i < nb; i++) {
        int b = add_body(w, urand(0, 4), urand(0, 3), urand(-3, 3));
        switch (i % 4) {
        case 0: add_disk(w, b, urand(0.1, 0.4), 0, 0); break;
        case 1: add_box(w, b, urand(0.1, 0.4), urand(0.1, 0.4), 0, 0); break;
        case 2: add_ngon(w, b, 3 + i % 5, urand(0.2, 0.5), 0, 0, urand(0, 1)); break;
        default: add_point(w, b, 0.1, 0); add_ngon(w, b, 3, urand(0.1, 0.4), 0, 0, 0); break;
        }
    }
    add_seg(w, 2.0, 2.0, 2.5, 0.5, 0.0);
    detect(w, failed);
    check_structure(w, failed);
    int total = 0, mismatch = 0;
    for (int i = 0; i < w->nshapes; i++)
        for (int j = i + 1; j < w->nshapes; j++) {
            const rc_shape *a = &w->shapes[i], *b = &w->shapes[j];
            if (rcm_shape_feature_count(a, b) == 0) continue;
            rc_world *v = mk_world(0.05);
            int ids[2] = { i, j }, loc[2];
            for (int k = 0; k < 2; k++) {
                const rc_shape *s = &w->shapes[ids[k]];
                int body = RC_GROUND;
                if (s->body != RC_GROUND) {
                    const double *q = w->q + w->bodies[s->body].iq;
                    body = add_body(v, q[0], q[1], q[2]);
                }
                rc_shape_def d;
                rc_shape_get_def(w, ids[k], NULL, &d);
                loc[k] = add_shape(v, body, &d);
            }
            rcc_update_shapes(v);
            CHECK_OK(rcc_detect(v));
            total += v->ncontacts;
            int sa = a->body == RC_GROUND || b->body != RC_GROUND ? i : j, sb = sa == i ? j : i;
            if (count_pair(w, sa, sb) != v->ncontacts) mismatch++;
            for (int k = 0; k < v->ncontacts; k++) {
                const rc_contact *cv = &v->contacts[k], *cw = find(w, sa, sb, cv->feature);
                if (cv->shape_a != loc[sa == i ? 0 : 1]) mismatch++;
                if (!cw || fabs(cw->gN - cv->gN) > 1e-12 || fabs(cw->n[0] - cv->n[0]) > 1e-12
                    || fabs(cw->n[1] - cv->n[1]) > 1e-12) mismatch++;
            }
            rc_world_destroy(v);
        }
    CHECK(mismatch == 0);
    CHECK(total == w->ncontacts);
    CHECK(total > 20);
    rc_world_destroy(w);
}

/* ---------------------------------------------------------------- grid broadphase */

typedef struct ref_contact { uint64_t key; double gN, n[2], point[2]; int law; } ref_contact;

static int cmp_ref(const void *a, const void *b)
{
    uint64_t x = ((const ref_contact *)a)->key, y = ((const ref_contact *)b)->key;
    return x < y ? -1 : x > y;
}

/* Distance from x to segment a-b. */
static double seg_dist(const double a[2], const double b[2], const double x[2])
{
    double ex = b[0] - a[0], ey = b[1] - a[1], ee = ex * ex + ey * ey;
    double s = ee > 0.0 ? ((x[0] - a[0]) * ex + (x[1] - a[1]) * ey) / ee : 0.0;
    s = fmin(1.0, fmax(0.0, s));
    return hypot(x[0] - a[0] - s * ex, x[1] - a[1] - s * ey);
}

/* Brute force without the broadphase: every pair of shapes that can touch,
 * detected in a world of its own, must give exactly w's contacts (keys in
 * order, gaps, normals, points, laws). Pairs are skipped only when no
 * contact is possible: the shapes' bounding circles (body origin, bound) more
 * than 2 margins apart (a polygon vertex kept by the edge-line test lies
 * within sqrt(2) margins of the other shape). Shape `skip` (a non-finite
 * state) is left out: it must have no contact. Returns the contact count. */
static int brute_force_all(rc_world *w, int skip, int *failed)
{
    const double m = w->def.contact_margin;
    int cap = 1024, nr = 0;
    ref_contact *ref = malloc((size_t)cap * sizeof *ref);
    const rc_shape *S = w->shapes;
    for (int i = 0; i < w->nshapes; i++)
        for (int j = i + 1; j < w->nshapes; j++) {
            if (i == skip || j == skip || rcm_shape_feature_count(&S[i], &S[j]) == 0) continue;
            int ids[2] = { i, j };
            const rc_shape *g = S[i].body == RC_GROUND ? &S[i] : S[j].body == RC_GROUND ? &S[j] : NULL;
            const rc_shape *o = g == &S[i] ? &S[j] : &S[i];
            const double *qo = w->q + w->bodies[o->body].iq;
            if (!g) {
                const double *qi = w->q + w->bodies[S[i].body].iq, *qj = w->q + w->bodies[S[j].body].iq;
                if (hypot(qi[0] - qj[0], qi[1] - qj[1]) > S[i].bound + S[j].bound + 2.0 * m) continue;
            } else if (g->type == RC_SHAPE_SEGMENT && seg_dist(g->a, g->b, qo) > o->bound + g->radius + 2.0 * m)
                continue;
            rc_world *v = mk_world(m);
            int loc[2];
            for (int k = 0; k < 2; k++) {
                const rc_shape *s = &S[ids[k]];
                int body = RC_GROUND;
                if (s->body != RC_GROUND) {
                    const double *q = w->q + w->bodies[s->body].iq;
                    body = add_body(v, q[0], q[1], q[2]);
                }
                rc_shape_def d;
                rc_shape_get_def(w, ids[k], NULL, &d);
                loc[k] = add_shape(v, body, &d);
            }
            rcc_update_shapes(v);
            CHECK_OK(rcc_detect(v));
            for (int k = 0; k < v->ncontacts; k++) {
                const rc_contact *c = &v->contacts[k];
                int sa = c->shape_a == loc[0] ? i : j, sb = sa == i ? j : i;
                if (nr == cap) { cap *= 2; ref = realloc(ref, (size_t)cap * sizeof *ref); }
                ref_contact r = { rcm_contact_key(sa, sb, c->feature), c->gN, { c->n[0], c->n[1] },
                                  { c->point[0], c->point[1] }, c->law };
                ref[nr++] = r;
            }
            rc_world_destroy(v);
        }
    qsort(ref, (size_t)nr, sizeof *ref, cmp_ref);
    CHECK(w->ncontacts == nr);
    int bad = 0;
    for (int k = 0; k < nr && k < w->ncontacts; k++) {
        const rc_contact *c = &w->contacts[k];
        const ref_contact *r = &ref[k];
        /* the reference's half-plane normal is normalised twice: relative tolerances */
        double tol = 1e-12 * (1.0 + fabs(r->point[0]) + fabs(r->point[1]));
        if (c->key != r->key || fabs(c->gN - r->gN) > tol || fabs(c->n[0] - r->n[0]) > 1e-12
            || fabs(c->n[1] - r->n[1]) > 1e-12 || fabs(c->point[0] - r->point[0]) > tol
            || fabs(c->point[1] - r->point[1]) > tol || c->law != r->law) {
            if (bad < 5) fprintf(stderr, "  contact %d: key %llx gN %.17g n (%g, %g) law %d vs reference %llx gN %.17g n (%g, %g) law %d\n", k,
                                 (unsigned long long)c->key, c->gN, c->n[0], c->n[1], c->law, (unsigned long long)r->key, r->gN, r->n[0], r->n[1], r->law);
            bad++;
        }
    }
    CHECK(bad == 0);
    free(ref);
    return nr;
}

/* A dense polydisperse packing: disks of radii 0.01 to 0.05 (5x) and 10 %
 * polygons over [-1, 1] x [-0.5, 1.5] (area fraction about 1: neighbours
 * overlap), five disks of radius 0.3, one of radius 3 (a "container" larger
 * than the whole scene), a two-shape body (disk + offset box), a point, a
 * floor, a tilted half-plane, a long and a short segment. Returns the number
 * of bodies (their ids are 0 .. nb - 1). */
static int polydisperse_scene(rc_world *w, int n)
{
    add_half(w, 0.0, -0.45, 0.0, 1.0);
    add_seg(w, -1.0, 0.2, 1.0, 0.5, 0.01);            /* long: many cells */
    int nb = 0;
    for (int i = 0; i < n; i++) {
        int b = add_body(w, urand(-1, 1), urand(-0.5, 1.5), urand(-3, 3));
        nb++;
        if (i % 10 == 3) {
            double r = urand(0.01, 0.05);
            if (i % 20 == 3) add_box(w, b, r, urand(0.5, 1.0) * r, 0, 0);
            else add_ngon(w, b, 3 + i % 4, r, 0, 0, urand(0, 1));
        } else if (i == 17) {
            add_disk(w, b, 0.03, 0, 0);
            add_box(w, b, 0.02, 0.01, 0.05, 0.0);      /* same body: never paired with the disk */
        } else if (i == 18) add_point(w, b, 0.01, 0);
        else if (i % 200 == 100) add_disk(w, b, 0.3, 0, 0);
        else if (i == n - 1) add_disk(w, b, 3.0, 0, 0);
        else add_disk(w, b, urand(0.01, 0.05), 0, 0);
    }
    add_half(w, 1.2, 0.0, -1.0, 0.3);                   /* tilted wall, a high index */
    add_seg(w, 0.3, 0.9, 0.35, 0.95, 0.0);            /* short */
    return nb;
}

/* The grid against brute force on a dense polydisperse packing: after
 * several coherent moves, then a teleport that spreads the shapes over
 * clusters far apart (hashed buckets), with one body far beyond the grid's
 * coordinates and one with a non-finite state. */
RC_TEST(broadphase_polydisperse)
{
    const int n = 1200;
    rc_world *w = mk_world(0.005);
    int nb = polydisperse_scene(w, n);
    detect(w, failed);
    check_structure(w, failed);
    int nc = brute_force_all(w, -1, failed);
    CHECK(nc > 2 * n);                        /* dense: about 2 contacts per shape and more */
    CHECK(w->grid_hdr[0] == w->nshapes);         /* grid header (collide.c) */
    CHECK(w->grid_hdr[3] == 0);                  /* cells indexed directly */
    CHECK(w->grid_hdr[2] >= 3 && w->grid_hdr[2] <= 4);   /* big: 2 half-planes, the radius-3 disk (+ 1) */
    CHECK(w->grid_hdr[4] > w->grid_hdr[1]);         /* some shapes cover several cells */
    for (int round = 0; round < 3; round++) {
        for (int b = 0; b < nb; b++) {
            double *q = w->q + w->bodies[b].iq;
            q[0] += urand(-0.003, 0.003); q[1] += urand(-0.003, 0.003); q[2] += urand(-0.05, 0.05);
        }
        detect(w, failed);
        check_structure(w, failed);
        CHECK(brute_force_all(w, -1, failed) > 2 * n);
    }
    /* teleport: four clusters 1e4 apart, two bodies thrown out */
    for (int b = 0; b < nb; b++) {
        double *q = w->q + w->bodies[b].iq;
        q[0] = urand(-0.5, 0.5) + 1e4 * (b % 2); q[1] = urand(-0.5, 0.5) - 1e4 * (b / 2 % 2);
    }
    double *far = w->q + w->bodies[5].iq, *bad = w->q + w->bodies[6].iq;
    far[0] = 1e13;
    bad[1] = NAN;
    int s_bad = -1;
    for (int i = 0; i < w->nshapes; i++) if (w->shapes[i].body == 6) s_bad = i;
    detect(w, failed);
    check_structure(w, failed);
    CHECK(w->grid_hdr[3] == 1);                  /* hashed buckets */
    CHECK(brute_force_all(w, s_bad, failed) > 2 * n);
    for (int k = 0; k < w->ncontacts; k++) CHECK(w->contacts[k].shape_a != s_bad && w->contacts[k].shape_b != s_bad);
    /* and back into one cluster, coherent from there */
    bad[1] = 0.0;
    for (int round = 0; round < 2; round++) {
        for (int b = 0; b < nb; b++) {
            double *q = w->q + w->bodies[b].iq;
            if (round == 0) { q[0] = urand(-1, 1); q[1] = urand(-0.5, 1.5); }
            else { q[0] += urand(-0.003, 0.003); q[1] += urand(-0.003, 0.003); }
        }
        detect(w, failed);
        CHECK(w->grid_hdr[3] == 0);
        CHECK(brute_force_all(w, -1, failed) > 2 * n);
    }
    rc_world_destroy(w);
}

/* Steady-state detection allocates nothing: the grid's storage is sized by
 * the shape count only, so not even a teleport that changes the bucket mode
 * grows it. */
RC_TEST(broadphase_no_alloc)
{
    rc_world *w = mk_world(0.005);
    int nb = polydisperse_scene(w, 3000);
    detect(w, failed);
    detect(w, failed);
    size_t cap_work = w->work.cap;
    int nc0 = w->ncontacts;
    uint64_t a0 = rc_alloc_count();
    for (int step = 0; step < 10; step++) {
        for (int b = 0; b < nb; b++) {
            double *q = w->q + w->bodies[b].iq;
            q[0] += urand(-1e-4, 1e-4); q[1] += urand(-1e-4, 1e-4); q[2] += urand(-1e-3, 1e-3);
        }
        detect(w, failed);
        CHECK(abs(w->ncontacts - nc0) < nc0 / 10);   /* the scene stays what it was */
    }
    CHECK(rc_alloc_count() == a0);
    for (int b = 0; b < nb; b++) {                     /* sparse: hashed buckets, fewer contacts */
        double *q = w->q + w->bodies[b].iq;
        q[0] = urand(-1e3, 1e3); q[1] = urand(-1e3, 1e3);
    }
    detect(w, failed);
    CHECK(w->grid_hdr[3] == 1);
    CHECK(w->work.cap == cap_work);   /* the grid's work memory did not grow */
    CHECK(w->order == NULL);          /* given back after detection */
    CHECK(rc_alloc_count() == a0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(disk_halfplane), T(disk_disk), T(disk_segment), T(disk_polygon), T(polygon_halfplane),
             T(polygon_segment), T(polygon_polygon), T(polygon_pairs_random), T(projection_filter), T(broadphase_corner), T(feature_counts), T(keys_stable), T(rules),
             T(broadphase_disks), T(broadphase_mixed), T(broadphase_polydisperse), T(broadphase_no_alloc))
