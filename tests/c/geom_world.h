/* geom_world.h -- the small world-building helpers of the geometry tests
 * (test_geometry.c, test_circle_inside.c): a seeded xorshift generator
 * (define GEOM_SEED before including to choose the stream), a world with a
 * contact margin, bodies and shapes created or the test stops, one detection
 * pass, and a contact found by its key. Include after rc_test.h and
 * collide/collide.h. */
#ifndef RC_TEST_GEOM_WORLD_H
#define RC_TEST_GEOM_WORLD_H

#ifndef GEOM_SEED
#define GEOM_SEED 88172645463325252ULL
#endif
#define PI 3.14159265358979323846

static unsigned long long rng_state = GEOM_SEED;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static int must(rc_status s, int id)
{
    if (s != RC_OK) { fprintf(stderr, "setup failed: %s\n", rc_last_error()); exit(2); }
    return id;
}

static rc_world *mk_world(double margin)
{
    rc_world_def d = rc_default_world_def();
    d.contact_margin = margin;
    rc_world *w = NULL;
    must(rc_world_create(&d, &w), 0);
    return w;
}

static int add_body(rc_world *w, double x, double y, double th)
{
    rc_body_def d = rc_default_body_def();
    d.q[0] = x; d.q[1] = y; d.q[2] = th;
    int id = -1;
    rc_status st = rc_body_create(w, &d, &id);
    return must(st, id);
}

static int add_shape(rc_world *w, int body, const rc_shape_def *d)
{
    int id = -1;
    rc_status st = rc_shape_create(w, body, d, &id);
    return must(st, id);
}

static int add_disk(rc_world *w, int body, double r, double ox, double oy)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_DISK; d.radius = r; d.offset[0] = ox; d.offset[1] = oy;
    return add_shape(w, body, &d);
}

static int add_point(rc_world *w, int body, double ox, double oy)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_POINT; d.offset[0] = ox; d.offset[1] = oy;
    return add_shape(w, body, &d);
}

/* a regular n-gon of circumradius r centred at (ox, oy), first vertex at angle phase */
static int add_ngon(rc_world *w, int body, int n, double r, double ox, double oy, double phase)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_POLYGON; d.nvert = n;
    for (int i = 0; i < n; i++) {
        d.vert[i][0] = ox + r * cos(phase + 2.0 * PI * i / n);
        d.vert[i][1] = oy + r * sin(phase + 2.0 * PI * i / n);
    }
    return add_shape(w, body, &d);
}

static void detect(rc_world *w, int *failed)
{
    CHECK_OK(rcm_world_work_begin(w));   /* as a step starts: the grid's work memory (collide.c) */
    rcc_update_shapes(w);
    CHECK_OK(rcc_detect(w));
}

static const rc_contact *find(const rc_world *w, int sa, int sb, int feature)
{
    uint64_t key = rcm_contact_key(sa, sb, feature);
    for (int i = 0; i < w->ncontacts; i++)
        if (w->contacts[i].key == key) return &w->contacts[i];
    return NULL;
}

static void set_q(rc_world *w, int body, double x, double y, double th)
{
    double q[3] = { x, y, th };
    must(rc_body_set_state(w, body, q, NULL), 0);
}

#endif /* RC_TEST_GEOM_WORLD_H */
