/* test_periodic.c -- the periodic boundary in x (collide.c, scheme.c):
 * detection through the images against brute force, Jacobian rows across the
 * seam (finite differences), wrapping (velocities kept, energy continuous),
 * action-reaction across the seam, a pile at rest stays at rest, errors. */
#include "rc_test.h"
#include "collide/collide.h"

#include <string.h>

#define PI 3.14159265358979323846

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static rc_world *mk_world(double margin, double x0, double x1, double gx, double gy)
{
    rc_world_def d = rc_default_world_def();
    d.contact_margin = margin;
    d.periodic_x[0] = x0;
    d.periodic_x[1] = x1;
    d.gravity[0] = gx;
    d.gravity[1] = gy;
    rc_world *w = NULL;
    if (rc_world_create(&d, &w) != RC_OK) { fprintf(stderr, "world: %s\n", rc_last_error()); exit(2); }
    return w;
}

static void must(rc_status s)
{
    if (s != RC_OK) { fprintf(stderr, "setup failed: %s\n", rc_last_error()); exit(2); }
}

static int add_body(rc_world *w, double x, double y, double th, double m)
{
    rc_body_def b = rc_default_body_def();
    b.mass = m; b.inertia = 0.5 * m * 0.01;
    b.q[0] = x; b.q[1] = y; b.q[2] = th;
    int id = -1;
    must(rc_body_create(w, &b, &id));
    return id;
}

static int add_disk(rc_world *w, int body, double r, double ox, double oy)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_DISK; d.radius = r; d.offset[0] = ox; d.offset[1] = oy;
    int id = -1;
    must(rc_shape_create(w, body, &d, &id));
    return id;
}

/* regular n-gon of circumradius r (on the ground: centred at (cx, cy)) */
static int add_ngon(rc_world *w, int body, int n, double r, double phase, double cx, double cy)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_POLYGON; d.nvert = n;
    for (int i = 0; i < n; i++) {
        d.vert[i][0] = cx + r * cos(phase + 2.0 * PI * i / n);
        d.vert[i][1] = cy + r * sin(phase + 2.0 * PI * i / n);
    }
    int id = -1;
    must(rc_shape_create(w, body, &d, &id));
    return id;
}

static int add_half(rc_world *w, double py)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_HALFPLANE; d.point[1] = py; d.normal[1] = 1.0;
    int id = -1;
    must(rc_shape_create(w, RC_GROUND, &d, &id));
    return id;
}

static void detect(rc_world *w, int *failed)
{
    CHECK_OK(rcm_world_work_begin(w));   /* as a step starts: the grid's work memory (collide.c) */
    rcc_update_shapes(w);
    CHECK_OK(rcc_detect(w));
}

typedef struct ref_contact { uint64_t key; double gN, n[2], point[2]; } ref_contact;

static int cmp_ref(const void *a, const void *b)
{
    uint64_t x = ((const ref_contact *)a)->key, y = ((const ref_contact *)b)->key;
    return x < y ? -1 : x > y;
}

/* Reference: every pair of shapes, B moved by s L for s = -3 .. 3, detected
 * in a world of its own without a periodic boundary. At most one image may
 * touch; w's contacts must be exactly those (keys, gaps, normals, points). */
static int brute_force_periodic(rc_world *w, int *failed)
{
    const double m = w->def.contact_margin, L = w->def.periodic_x[1] - w->def.periodic_x[0];
    int cap = 1024, nr = 0, twice = 0;
    ref_contact *ref = malloc((size_t)cap * sizeof *ref);
    const rc_shape *S = w->shapes;
    for (int i = 0; i < w->nshapes; i++)
        for (int j = i + 1; j < w->nshapes; j++) {
            if (rcm_shape_feature_count(&S[i], &S[j]) == 0) continue;
            /* A: the ground shape, else the lower index; B is moved */
            int sa = S[j].body == RC_GROUND ? j : i, sb = sa == i ? j : i;
            int found = 0;
            for (int s = -3; s <= 3; s++) {
                double dx = s * L;
                rc_world_def d = rc_default_world_def();
                d.contact_margin = m;
                rc_world *v = NULL;
                if (rc_world_create(&d, &v) != RC_OK) exit(2);
                int ids[2] = { sa, sb };
                for (int k = 0; k < 2; k++) {
                    const rc_shape *sh = &S[ids[k]];
                    int body = RC_GROUND;
                    if (sh->body != RC_GROUND) {
                        const double *q = w->q + w->bodies[sh->body].iq;
                        body = add_body(v, q[0] + (k ? dx : 0.0), q[1], q[2], 1.0);
                    }
                    rc_shape_def sd;
                    rc_shape_get_def(w, ids[k], NULL, &sd);
                    if (sh->body == RC_GROUND && k == 1) {   /* a ground B: move its geometry */
                        sd.offset[0] += dx;
                        for (int t = 0; t < sd.nvert; t++) sd.vert[t][0] += dx;
                    }
                    must(rc_shape_create(v, body, &sd, NULL));
                }
                rcc_update_shapes(v);
                CHECK_OK(rcc_detect(v));
                if (v->ncontacts) found++;
                for (int k = 0; k < v->ncontacts; k++) {
                    const rc_contact *c = &v->contacts[k];
                    if (nr == cap) { cap *= 2; ref = realloc(ref, (size_t)cap * sizeof *ref); }
                    ref_contact r = { rcm_contact_key(sa, sb, c->feature), c->gN, { c->n[0], c->n[1] },
                                      { c->point[0], c->point[1] } };
                    ref[nr++] = r;
                }
                rc_world_destroy(v);
            }
            if (found > 1) twice++;
        }
    CHECK(twice == 0);   /* shapes narrower than L / 2 touch through one image at most */
    qsort(ref, (size_t)nr, sizeof *ref, cmp_ref);
    CHECK(w->ncontacts == nr);
    if (getenv("RC_DEBUG")) {
        int a = 0, b = 0;
        while (a < w->ncontacts || b < nr) {
            uint64_t ka = a < w->ncontacts ? w->contacts[a].key : UINT64_MAX, kb = b < nr ? ref[b].key : UINT64_MAX;
            if (ka == kb) { a++; b++; continue; }
            if (ka < kb) { const rc_contact *c = &w->contacts[a]; fprintf(stderr, "extra %d %d f%d gN %g xa %g xb %g ya %g yb %g pt %g %g\n", c->shape_a, c->shape_b, c->feature, c->gN, w->shapes[c->shape_a].wc[0], w->shapes[c->shape_b].wc[0], w->shapes[c->shape_a].wc[1], w->shapes[c->shape_b].wc[1], c->point[0], c->point[1]); a++; }
            else { fprintf(stderr, "missing %d %d f%d gN %g\n", (int)(kb >> 40), (int)((kb >> 16) & 0xffffff), (int)(kb & 0xffff), ref[b].gN); b++; }
        }
    }
    int bad = 0;
    for (int k = 0; k < nr && k < w->ncontacts; k++) {
        const rc_contact *c = &w->contacts[k];
        const ref_contact *r = &ref[k];
        double tol = 1e-12 * (1.0 + fabs(r->point[0]) + fabs(r->point[1]) + L);
        if (c->key != r->key || fabs(c->gN - r->gN) > tol || fabs(c->n[0] - r->n[0]) > 1e-12
            || fabs(c->n[1] - r->n[1]) > 1e-12 || fabs(c->point[0] - r->point[0]) > tol
            || fabs(c->point[1] - r->point[1]) > tol) {
            if (bad < 5) fprintf(stderr, "  contact %d: key %llx gN %.17g vs reference %llx gN %.17g\n", k,
                                 (unsigned long long)c->key, c->gN, (unsigned long long)r->key, r->gN);
            bad++;
        }
    }
    CHECK(bad == 0);
    free(ref);
    return nr;
}

/* A dense polydisperse layer in the cell [0, 1): disks and polygons on bodies,
 * glued ground polygons and disks along the floor, a floor half-plane. */
static int periodic_scene(rc_world *w, int n)
{
    add_half(w, -0.05);
    for (int k = 0; k < 12; k++) {   /* rough floor: fixed grains, some across the seam */
        double x = k / 12.0 + urand(-0.02, 0.02);
        if (k % 3 == 0) {
            rc_shape_def d = rc_default_shape_def();
            d.type = RC_SHAPE_DISK; d.radius = 0.03; d.offset[0] = x; d.offset[1] = -0.03;
            must(rc_shape_create(w, RC_GROUND, &d, NULL));
        } else add_ngon(w, RC_GROUND, 3 + k % 4, 0.035, urand(0, 1), x, -0.03);
    }
    for (int i = 0; i < n; i++) {
        int b = add_body(w, urand(0.0, 1.0), urand(0.0, 0.4), urand(-3, 3), 1.0);
        if (i % 3 == 1) add_ngon(w, b, 3 + i % 5, urand(0.01, 0.03), urand(0, 1), 0, 0);
        else add_disk(w, b, urand(0.008, 0.025), 0, 0);
    }
    return n;
}

RC_TEST(periodic_broadphase_vs_brute_force)
{
    const int n = 400;
    rc_world *w = mk_world(0.004, 0.0, 1.0, 0.0, 0.0);
    periodic_scene(w, n);
    detect(w, failed);
    int nc = brute_force_periodic(w, failed);
    CHECK(nc > n);   /* dense */
    /* contacts across the seam exist (a B image moved by +-L) */
    int across = 0;
    for (int k = 0; k < w->ncontacts; k++) {
        const rc_contact *c = &w->contacts[k];
        if (c->body_a == RC_GROUND) {
            const rc_shape *s = &w->shapes[c->shape_b];
            if (fabs(s->wc[0] - c->point[0]) > 0.5) across++;
            continue;
        }
        const double *qa = w->q + w->bodies[c->body_a].iq, *qb = w->q + w->bodies[c->body_b].iq;
        if (fabs(qa[0] - qb[0]) > 0.5) across++;
    }
    CHECK(across >= 4);
    /* moves, then bodies pushed beyond the cell on both sides (their shapes
     * then lie outside [x0, x1): detection still finds the images) */
    for (int round = 0; round < 3; round++) {
        for (int b = 0; b < w->nbodies; b++) {
            double *q = w->q + w->bodies[b].iq;
            q[0] += round < 2 ? urand(-0.01, 0.01) : (b % 2 ? 1.0 : -1.0);
            q[1] += urand(-0.005, 0.005);
        }
        detect(w, failed);
        brute_force_periodic(w, failed);
    }
    uint64_t a0 = rc_alloc_count();
    detect(w, failed);
    CHECK(rc_alloc_count() == a0);
    rc_world_destroy(w);
}

/* Jacobian rows of contacts through the seam: the normal row equals central
 * differences of gN over every dof of both bodies. */
RC_TEST(periodic_jacobians_across_the_seam)
{
    rc_world *w = mk_world(0.05, -1.0, 1.0, 0.0, 0.0);
    int b1 = add_body(w, 0.97, 0.0, 0.3, 1.0), b2 = add_body(w, -0.99, 0.05, -0.7, 1.0);
    add_ngon(w, b1, 5, 0.06, 0.2, 0, 0);
    add_ngon(w, b2, 4, 0.05, 0.1, 0, 0);
    int b3 = add_body(w, 0.96, 0.2, 0.0, 1.0), b4 = add_body(w, -0.97, 0.21, 0.0, 1.0);
    add_disk(w, b3, 0.04, 0.01, 0.0);
    add_ngon(w, b4, 3, 0.04, 0.5, 0, 0);
    detect(w, failed);
    CHECK(w->ncontacts >= 2);
    int n = w->ncontacts;
    rc_contact *c0 = malloc((size_t)n * sizeof *c0);
    memcpy(c0, w->contacts, (size_t)n * sizeof *c0);
    const double h = 1e-6;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &c0[k];
        CHECK(c->gN < 0.05 && c->gN > -0.05);
        double Ha[2][3], Hb[2][3];   /* H rebuilt from n and Hr */
        rcm_contact_jacobian(c, Ha, Hb);
        for (int side = 0; side < 2; side++) {
            int body = side ? c->body_b : c->body_a;
            double (*H)[3] = side ? Hb : Ha;
            double *q = w->q + w->bodies[body].iq;
            for (int d = 0; d < 3; d++) {
                double save = q[d], g[2] = { NAN, NAN };
                for (int s = 0; s < 2; s++) {
                    q[d] = save + (s ? -h : h);
                    detect(w, failed);
                    for (int i = 0; i < w->ncontacts; i++)
                        if (w->contacts[i].key == c->key) g[s] = w->contacts[i].gN;
                }
                q[d] = save;
                CHECK_NEAR((g[0] - g[1]) / (2.0 * h), H[0][d], 1e-6);
            }
        }
    }
    free(c0);
    rc_world_destroy(w);
}

static void configure(rc_world *w, double h, double tol)
{
    rc_sim_def s = rc_default_sim_def();
    s.h = h;
    s.theta = 0.5;
    s.solver.tol = tol;
    s.solver.max_iter = 500;
    if (rc_world_configure(w, &s) != RC_OK) { fprintf(stderr, "configure: %s\n", rc_last_error()); exit(2); }
}

/* A disk crossing the seam: moved by L with v and omega kept bit for bit;
 * with gravity along x the reported energy stays continuous (E_wrap). */
RC_TEST(periodic_wrap_keeps_velocity_and_energy)
{
    rc_world *w = mk_world(0.01, 0.0, 2.0, 3.0, 0.0);
    int b = add_body(w, 1.9, 0.5, 0.0, 2.0);
    add_disk(w, b, 0.1, 0, 0);
    double v0[3] = { 1.5, 0.0, 4.0 }, q0[3] = { 1.9, 0.5, 0.0 };
    CHECK_OK(rc_body_set_state(w, b, q0, v0));
    configure(w, 0.01, 1e-12);
    int wrapped = 0;
    double Eprev = NAN;
    for (int k = 0; k < 300; k++) {
        double q[3], v[3], qn[3], vn[3];
        CHECK_OK(rc_body_get_state(w, b, q, v));
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_body_get_state(w, b, qn, vn));
        CHECK(qn[0] >= 0.0 && qn[0] < 2.0);
        /* free flight: v_{k+1} = v_k + h g exactly as without the boundary */
        CHECK(vn[0] == v[0] + 0.01 * 3.0);
        CHECK(vn[2] == v[2]);
        if (qn[0] < q[0]) {
            wrapped++;
            CHECK_NEAR(qn[0] - q[0] + 2.0, 0.01 * 0.5 * (v[0] + vn[0]), 1e-12);
        }
        rc_step_info in;
        CHECK_OK(rc_world_step_info(w, &in));
        CHECK_NEAR(in.balance, 0.0, 1e-10);
        if (k > 0) CHECK_NEAR(in.E - Eprev, 0.0, 1e-9 * (1.0 + fabs(Eprev)));   /* free flight conserves E */
        Eprev = in.E;
    }
    CHECK(wrapped >= 5);
    rc_world_destroy(w);
}

/* Two disks colliding through the seam (one at the right edge moving right,
 * one at the left edge at rest): the impulse acts on both real bodies, so
 * momentum is exact, and they separate with Newton e = 1 (equal masses swap
 * velocities) without overlapping. */
RC_TEST(periodic_action_reaction_across_the_seam)
{
    rc_world_def d = rc_default_world_def();
    d.periodic_x[0] = 0.0; d.periodic_x[1] = 1.0;
    d.default_e = 1.0;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&d, &w));
    int a = add_body(w, 0.85, 0.3, 0.0, 1.0), b = add_body(w, 0.1, 0.3, 0.0, 1.0);
    add_disk(w, a, 0.1, 0, 0);
    add_disk(w, b, 0.1, 0, 0);
    double va[3] = { 1.0, 0.0, 0.0 }, qa[3] = { 0.85, 0.3, 0.0 };
    CHECK_OK(rc_body_set_state(w, a, qa, va));
    configure(w, 1e-3, 1e-12);
    double minsep = INFINITY;
    for (int k = 0; k < 200; k++) {
        CHECK_OK(rc_world_step(w));
        double q1[3], v1[3], q2[3], v2[3];
        rc_body_get_state(w, a, q1, v1);
        rc_body_get_state(w, b, q2, v2);
        CHECK_NEAR(v1[0] + v2[0], 1.0, 1e-14);
        CHECK(v1[1] == 0.0 && v2[1] == 0.0);
        double dx = q2[0] - q1[0];
        dx -= floor(dx + 0.5);   /* nearest image */
        minsep = fmin(minsep, fabs(dx));
    }
    double q1[3], v1[3], q2[3], v2[3];
    rc_body_get_state(w, a, q1, v1);
    rc_body_get_state(w, b, q2, v2);
    CHECK_NEAR(v1[0], 0.0, 1e-12);
    CHECK_NEAR(v2[0], 1.0, 1e-12);
    CHECK(minsep > 0.2 - 2e-3);   /* no overlap beyond one step of motion */
    rc_world_destroy(w);
}

/* A layer of disks resting on a floor across the whole cell, gravity normal
 * to the floor, u = 0: it stays at rest (nothing drifts through the seam). */
RC_TEST(periodic_layer_at_rest_stays_at_rest)
{
    rc_world_def d = rc_default_world_def();
    d.periodic_x[0] = 0.0; d.periodic_x[1] = 1.0;
    d.gravity[1] = -9.81;
    d.default_mu = 0.3;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&d, &w));
    add_half(w, 0.0);
    const int n = 10;   /* touching neighbours, the last touches the first through the seam */
    for (int layer = 0; layer < 2; layer++)
        for (int i = 0; i < n; i++) {
            double x = (i + 0.5 * layer) / n, y = 0.05 + layer * 0.05 * sqrt(3.0) - 1e-9;
            int b = add_body(w, x, y, 0.0, 1.0);
            add_disk(w, b, 0.05 * (1.0 + 1e-8), 0, 0);   /* every touching pair overlaps a little: active from the first step */
        }
    configure(w, 1e-3, 1e-12);
    for (int k = 0; k < 200; k++) CHECK_OK(rc_world_step(w));
    double vmax = 0.0, xdrift = 0.0;
    for (int b = 0; b < 2 * n; b++) {
        double q[3], v[3];
        rc_body_get_state(w, b, q, v);
        vmax = fmax(vmax, fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2]))));
        double x = (b % n + 0.5 * (b / n)) / n;
        double dx = q[0] - x;
        xdrift = fmax(xdrift, fabs(dx - floor(dx + 0.5)));   /* nearest image */
    }
    CHECK(vmax < 1e-9);
    if (!(xdrift < 1e-9)) fprintf(stderr, "  xdrift %g vmax %g\n", xdrift, vmax);
    CHECK(xdrift < 1e-9);
    /* the top layer rests on two grains each, one pair through the seam */
    int seam = 0;
    for (int k = 0; k < w->ncontacts; k++) {
        const rc_contact *c = &w->contacts[k];
        if (c->active && c->body_a != RC_GROUND && fabs(w->q[w->bodies[c->body_a].iq] - w->q[w->bodies[c->body_b].iq]) > 0.5)
            seam++;
    }
    CHECK(seam >= 2);
    rc_world_destroy(w);
}

RC_TEST(periodic_errors)
{
    rc_world_def d = rc_default_world_def();
    d.periodic_x[0] = 1.0; d.periodic_x[1] = 0.5;
    rc_world *w = NULL;
    CHECK(rc_world_create(&d, &w) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "periodic") != NULL);
    d.periodic_x[1] = NAN;
    CHECK(rc_world_create(&d, &w) == RC_ERR_ARG);
    /* a shape wider than half the cell: detection refuses, naming it */
    w = mk_world(0.01, 0.0, 1.0, 0.0, 0.0);
    int b = add_body(w, 0.5, 0.5, 0.0, 1.0);
    rc_shape_def sd = rc_default_shape_def();
    sd.type = RC_SHAPE_DISK; sd.radius = 0.3; sd.name = "boulder";
    must(rc_shape_create(w, b, &sd, NULL));
    rcc_update_shapes(w);
    CHECK(rcc_detect(w) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "boulder") != NULL && strstr(rc_last_error(), "half the cell") != NULL);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(periodic_broadphase_vs_brute_force), T(periodic_jacobians_across_the_seam),
             T(periodic_wrap_keeps_velocity_and_energy), T(periodic_action_reaction_across_the_seam),
             T(periodic_layer_at_rest_stays_at_rest), T(periodic_errors))
