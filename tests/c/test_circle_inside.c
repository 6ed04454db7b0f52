/* test_circle_inside.c -- the concave circular wall (RC_SHAPE_CIRCLE_INSIDE):
 * gaps, normals and points by hand; Jacobian rows against central
 * differences of the gap at random configurations (disks with offsets,
 * points, polygon vertices); the broadphase against the exact gaps (no
 * contact missed, none outside the margin, no candidate pair for a body
 * far from the wall); stable keys; errors with their exact messages. */
#include "rc_test.h"
#include "collide/collide_impl.h"
#define GEOM_SEED 0x9E3779B97F4A7C15ULL
#include "geom_world.h"

#include <string.h>

static int add_wall(rc_world *w, double cx, double cy, double R)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_CIRCLE_INSIDE; d.offset[0] = cx; d.offset[1] = cy; d.radius = R;
    return add_shape(w, RC_GROUND, &d);
}

/* the contacts and the candidate pairs of the wall (the bodies' own pairs aside) */
static int count_wall(const rc_world *w, int wall)
{
    int n = 0;
    for (int i = 0; i < w->ncontacts; i++) n += w->contacts[i].shape_a == wall;
    return n;
}

/* the broadphase's candidate pairs of the wall: its steps of rcc_narrow_pairs
 * again, without the narrowphase (detection gives the pairs back with its
 * work memory); -1 on an error */
static int wall_pairs(rc_world *w, int wall)
{
    const rcb_arena_mark mark = rcb_arena_mark_now(&w->work);
    const double m = w->def.contact_margin;
    const int npairs = w->npairs;
    w->npairs = 0;
    int n = rcc_grid_pairs(w, m, 1.5 * m) == RC_OK ? 0 : -1;
    for (int k = 0; k < w->npairs && n >= 0; k++) n += w->pairs[2 * k] == wall;
    rcb_arena_release(&w->work, mark);
    w->order = w->pairs = NULL;
    w->cap_order = w->cap_pairs = 0;
    w->npairs = npairs;
    return n;
}

/* a body-frame point in the world frame at the body's q */
static void to_world(const rc_world *w, int body, double ox, double oy, double out[2])
{
    const double *q = w->q + w->bodies[body].iq, c = cos(q[2]), s = sin(q[2]);
    out[0] = q[0] + c * ox - s * oy;
    out[1] = q[1] + s * ox + c * oy;
}

static void check_contact(const rc_world *w, int sa, int sb, int f, double gN, const double n[2],
                          const double pt[2], int *failed)
{
    const rc_contact *c = find(w, sa, sb, f);
    CHECK(c != NULL);
    if (!c) return;
    CHECK_NEAR(c->gN, gN, 1e-13);
    CHECK_NEAR(c->n[0], n[0], 1e-13);
    CHECK_NEAR(c->n[1], n[1], 1e-13);
    CHECK_NEAR(c->point[0], pt[0], 1e-13);
    CHECK_NEAR(c->point[1], pt[1], 1e-13);
    CHECK(c->body_a == RC_GROUND && c->Hr[0][0] == 0.0 && c->Hr[0][1] == 0.0);
}

/* ---------------------------------------------------------------- tests */

/* A disk (with an offset), a point and a hexagon inside a wall of radius 2
 * centred at (0.5, -0.3): gN = R - r - |c - C|, n = (C - c)/|c - C|, point =
 * c - r n; per polygon vertex gN = R - |x_i - C|. */
RC_TEST(gaps_by_hand)
{
    rc_world *w = mk_world(10.0);
    const double C[2] = { 0.5, -0.3 }, R = 2.0;
    int wall = add_wall(w, C[0], C[1], R);
    int b = add_body(w, 1.1, 0.4, 0.7);
    int d = add_disk(w, b, 0.3, 0.2, -0.1), p = add_point(w, b, -0.25, 0.15);
    int b2 = add_body(w, -0.6, -1.0, 0.3), hex = add_ngon(w, b2, 6, 0.4, 0.05, 0.0, 0.1);
    detect(w, failed);
    CHECK(count_wall(w, wall) == 2 + 6);
    double c[2], n[2], pt[2];
    to_world(w, b, 0.2, -0.1, c);
    double dist = hypot(c[0] - C[0], c[1] - C[1]);
    n[0] = (C[0] - c[0]) / dist; n[1] = (C[1] - c[1]) / dist;
    pt[0] = c[0] - 0.3 * n[0]; pt[1] = c[1] - 0.3 * n[1];
    check_contact(w, wall, d, 0, R - 0.3 - dist, n, pt, failed);
    to_world(w, b, -0.25, 0.15, c);
    dist = hypot(c[0] - C[0], c[1] - C[1]);
    n[0] = (C[0] - c[0]) / dist; n[1] = (C[1] - c[1]) / dist;
    check_contact(w, wall, p, 0, R - dist, n, c, failed);
    for (int i = 0; i < 6; i++) {
        double a = 0.1 + 2.0 * PI * i / 6;
        to_world(w, b2, 0.05 + 0.4 * cos(a), 0.4 * sin(a), c);
        dist = hypot(c[0] - C[0], c[1] - C[1]);
        n[0] = (C[0] - c[0]) / dist; n[1] = (C[1] - c[1]) / dist;
        check_contact(w, wall, hex, i, R - dist, n, c, failed);
    }
    /* a disk touching the wall at the bottom: gN = 0, n = (0, 1) */
    set_q(w, b, C[0] - 0.2, C[1] - R + 0.3 + 0.1, 0.0);
    detect(w, failed);
    const rc_contact *k = find(w, wall, d, 0);
    CHECK(k && fabs(k->gN) < 1e-15 && k->n[0] == 0.0 && k->n[1] == 1.0 && fabs(k->point[1] - (C[1] - R)) < 1e-15);
    /* at the centre: the gap R - r, a unit normal */
    set_q(w, b, C[0] - 0.2, C[1] + 0.1, 0.0);
    detect(w, failed);
    k = find(w, wall, d, 0);
    CHECK(k && k->gN == R - 0.3 && k->n[0] == 0.0 && k->n[1] == 1.0);
    rc_world_destroy(w);
}

/* The feature counts of the pairs with a wall: 1 with a disk or point, one per
 * vertex with a polygon, none with the ground's other shapes. */
RC_TEST(feature_counts)
{
    rc_world *w = mk_world(0.01);
    int wall = add_wall(w, 0, 0, 5), b = add_body(w, 0, 0, 0);
    int d = add_disk(w, b, 0.2, 0, 0), p = add_point(w, b, 0.1, 0), poly = add_ngon(w, b, 5, 0.3, 0, 0, 0);
    rc_shape_def hp = rc_default_shape_def();
    hp.type = RC_SHAPE_HALFPLANE; hp.normal[1] = 1; hp.point[1] = -10;
    int h = add_shape(w, RC_GROUND, &hp), gd = add_disk(w, RC_GROUND, 1.0, 3, 0);
    const rc_shape *S = w->shapes;
    CHECK(rcm_shape_feature_count(&S[wall], &S[d]) == 1 && rcm_shape_feature_count(&S[d], &S[wall]) == 1);
    CHECK(rcm_shape_feature_count(&S[wall], &S[p]) == 1);
    CHECK(rcm_shape_feature_count(&S[wall], &S[poly]) == 5 && rcm_shape_feature_count(&S[poly], &S[wall]) == 5);
    CHECK(rcm_shape_feature_count(&S[wall], &S[h]) == 0 && rcm_shape_feature_count(&S[wall], &S[gd]) == 0);
    rc_world_destroy(w);
}

/* The normal row of H equals central differences of gN over the body's three
 * coordinates, and u = H v is (n, t) . (the velocity of the body's material
 * point at the contact point), at random configurations. */
RC_TEST(jacobian_finite_differences)
{
    int checked = 0;
    for (int trial = 0; trial < 40; trial++) {
        rc_world *w = mk_world(100.0);   /* every feature detected, perturbed or not */
        const double C[2] = { urand(-2, 2), urand(-2, 2) }, R = urand(1.5, 4.0);
        int wall = add_wall(w, C[0], C[1], R);
        double rho = urand(0, 0.5 * R), phi = urand(-PI, PI);
        int b = add_body(w, C[0] + rho * cos(phi), C[1] + rho * sin(phi), urand(-PI, PI));
        add_disk(w, b, urand(0.05, 0.4), urand(-0.3, 0.3), urand(-0.3, 0.3));
        add_point(w, b, urand(-0.3, 0.3), urand(-0.3, 0.3));
        add_ngon(w, b, 3 + trial % 6, urand(0.1, 0.5), urand(-0.2, 0.2), urand(-0.2, 0.2), urand(0, 1));
        detect(w, failed);
        int n = w->ncontacts;
        CHECK(n == 2 + 3 + trial % 6);
        rc_contact c0[2 + 8];
        memcpy(c0, w->contacts, (size_t)n * sizeof *c0);
        const double hd = 1e-6;
        for (int k = 0; k < n; k++) {
            const rc_contact *c = &c0[k];
            CHECK(c->shape_a == wall && c->body_b == b);
            double Ha[2][3], Hb[2][3], t[2];
            rcm_contact_jacobian(c, Ha, Hb);
            rcm_contact_tangent(c, t);
            double *q = w->q + w->bodies[b].iq;
            for (int d = 0; d < 3; d++) {
                double save = q[d], g[2];
                for (int s = 0; s < 2; s++) {
                    q[d] = save + (s ? -hd : hd);
                    detect(w, failed);
                    const rc_contact *cp = find(w, c->shape_a, c->shape_b, c->feature);
                    g[s] = cp ? cp->gN : NAN;
                }
                q[d] = save;
                CHECK_NEAR((g[0] - g[1]) / (2.0 * hd), Hb[0][d], 1e-7 * fmax(1.0, fabs(Hb[0][d])));
                checked++;
            }
            double v[3] = { urand(-2, 2), urand(-2, 2), urand(-2, 2) };
            double pv[2] = { v[0] - v[2] * (c->point[1] - q[1]), v[1] + v[2] * (c->point[0] - q[0]) };
            for (int r = 0; r < 2; r++) {
                const double *e = r ? t : c->n;
                double u = Hb[r][0] * v[0] + Hb[r][1] * v[1] + Hb[r][2] * v[2];
                CHECK_NEAR(u, e[0] * pv[0] + e[1] * pv[1], 1e-12 * (1.0 + fabs(u)));
            }
        }
        detect(w, failed);
        rc_world_destroy(w);
    }
    CHECK(checked > 40 * 3 * 5);
}

/* Many disks and polygons at random places, some through the wall: the
 * contacts are exactly the features with gN <= margin (the test's own gaps),
 * keys sorted; a body in the middle is not even a candidate pair. */
RC_TEST(broadphase_against_exact_gaps)
{
    const double m = 0.05, C[2] = { 0.3, -0.7 }, R = 3.0;
    rc_world *w = mk_world(m);
    int wall = add_wall(w, C[0], C[1], R);
    enum { NB = 300 };
    int shape[NB], kind[NB];
    double rad[NB];
    for (int i = 0; i < NB; i++) {
        double rho = urand(0, R + 0.2), phi = urand(-PI, PI);
        int b = add_body(w, C[0] + rho * cos(phi), C[1] + rho * sin(phi), urand(-PI, PI));
        kind[i] = i % 3;
        rad[i] = urand(0.02, 0.2);
        shape[i] = kind[i] == 0 ? add_disk(w, b, rad[i], urand(-0.05, 0.05), 0.0)
                 : kind[i] == 1 ? add_point(w, b, urand(-0.05, 0.05), 0.0)
                                : add_ngon(w, b, 4 + i % 5, rad[i], 0.0, 0.0, urand(0, 1));
    }
    detect(w, failed);
    int want = 0;
    for (int i = 0; i < NB; i++) {
        const rc_shape *s = &w->shapes[shape[i]];
        int nf = kind[i] == 2 ? s->nvert : 1;
        for (int f = 0; f < nf; f++) {
            const double *x = kind[i] == 2 ? s->wvert[f] : s->wc;
            double g = R - hypot(x[0] - C[0], x[1] - C[1]) - (kind[i] == 0 ? rad[i] : 0.0);
            const rc_contact *c = find(w, wall, shape[i], f);
            if (fabs(g - m) < 1e-12) continue;   /* at the margin: either answer */
            CHECK((g <= m) == (c != NULL));
            want += g <= m;
            if (c) CHECK_NEAR(c->gN, g, 1e-13);
        }
    }
    for (int k = 1; k < w->ncontacts; k++) CHECK(w->contacts[k - 1].key < w->contacts[k].key);
    const int np = wall_pairs(w, wall);
    printf("  %d wall contacts of %d shapes within the margin, %d candidate pairs with the wall\n",
           count_wall(w, wall), NB, np);
    CHECK(want == count_wall(w, wall) && want > 20);
    int touching = 0;   /* shapes with a wall contact (sorted by key: a shape's contacts are adjacent) */
    for (int k = 0; k < w->ncontacts; k++)
        touching += w->contacts[k].shape_a == wall && (k == 0 || w->contacts[k - 1].shape_a != wall
                                                      || w->contacts[k - 1].shape_b != w->contacts[k].shape_b);
    CHECK(np >= touching && np < NB / 4);   /* every touching shape a candidate, the bodies far from the wall not */
    rc_world_destroy(w);
    /* one body in the middle: no candidate pair at all */
    w = mk_world(m);
    add_wall(w, 0, 0, 1);
    int b = add_body(w, 0.1, 0, 0);
    add_disk(w, b, 0.1, 0, 0);
    detect(w, failed);
    CHECK(w->npairs == 0 && w->ncontacts == 0);
    set_q(w, b, 0.1, -0.85, 0);   /* gN = 1 - 0.1 - |(0.1, -0.85)| = 0.044 < m */
    detect(w, failed);
    CHECK(w->npairs == 1 && w->ncontacts == 1);
    rc_world_destroy(w);
}

/* The key is (wall, shape, feature) whatever the body does along the wall. */
RC_TEST(keys_stable)
{
    rc_world *w = mk_world(0.01);
    int wall = add_wall(w, 0, 0, 1), b = add_body(w, 0, -0.9, 0), d = add_disk(w, b, 0.1, 0, 0);
    for (int k = 0; k < 16; k++) {
        double a = -PI / 2 + 0.4 * k;
        set_q(w, b, 0.9 * cos(a), 0.9 * sin(a), 0.3 * k);
        detect(w, failed);
        CHECK(w->ncontacts == 1 && w->contacts[0].key == rcm_contact_key(wall, d, 0));
        CHECK(fabs(w->contacts[0].gN) < 1e-15);
    }
    rc_world_destroy(w);
}

static void expect(int *failed, rc_status s, rc_status want, const char *msg)
{
    CHECK(s == want);
    if (strcmp(rc_last_error(), msg) != 0) {
        fprintf(stderr, "  got \"%s\"\n  want \"%s\"\n", rc_last_error(), msg);
        CHECK(0);
    }
}

RC_TEST(errors)
{
    rc_world *w = mk_world(0.01);
    int b = add_body(w, 0, 0, 0), id = -1;
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_CIRCLE_INSIDE; d.radius = 1.0;
    expect(failed, rc_shape_create(w, b, &d, &id), RC_ERR_ARG,
           "circle_inside: circular walls are static obstacles (body must be the ground)");
    d.radius = 0.0;
    expect(failed, rc_shape_create(w, RC_GROUND, &d, &id), RC_ERR_ARG, "circle_inside: 'radius' must be > 0 (got 0)");
    d.radius = -2.0;
    expect(failed, rc_shape_def_check(&d, "wall"), RC_ERR_ARG, "wall: 'radius' must be > 0 (got -2)");
    d.radius = INFINITY;
    expect(failed, rc_shape_create(w, RC_GROUND, &d, &id), RC_ERR_ARG, "circle_inside: 'radius' must be > 0 (got inf)");
    d.radius = 1.0; d.offset[1] = NAN;
    rc_status s = rc_shape_create(w, RC_GROUND, &d, &id);
    expect(failed, s, RC_ERR_ARG, "circle_inside: 'centre' component 2 is not finite");
    CHECK(rc_shape_count(w) == 0 && id == -1);
    d.offset[1] = 2.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &d, &id));
    int body;
    rc_shape_def g;
    CHECK_OK(rc_shape_get_def(w, id, &body, &g));
    CHECK(body == RC_GROUND && g.type == RC_SHAPE_CIRCLE_INSIDE && g.radius == 1.0 && g.offset[0] == 0.0 && g.offset[1] == 2.0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(gaps_by_hand), T(feature_counts), T(jacobian_finite_differences), T(broadphase_against_exact_gaps),
             T(keys_stable), T(errors))
