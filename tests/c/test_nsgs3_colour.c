/* test_nsgs3_colour.c -- NSGS's colour order on the 3D contacts of a dim = 3
 * world (src/nonsmooth/nsgs3_order.c, colour.c) and its sweeps on threads
 * (nsgs3.c): after every step of a pile of spheres forming in a box, the
 * order is a permutation of the active contacts, colour by colour, index
 * order within a colour, no body twice in a colour (planes shared freely),
 * each contact on the smallest colour its bodies left free (greedy); and
 * two threads sharing every colour (rcn_nsgs3_parallel_min = 0), with quiet
 * contacts skipped or not, with over-relaxation and the position
 * projection, and a team that stops mid-step (adaptive threads made to find
 * it slow), step the pile exactly as one thread does, bit for bit. */
#include "rc_test.h"
#include "nonsmooth/nonsmooth.h"

static void quiet(void *user, const char *msg) { (void)user; (void)msg; }
static int must(rc_status st) { if (st != RC_OK) fprintf(stderr, "setup: %s\n", rc_last_error()); return st == RC_OK; }

typedef struct pile_opts {
    int threads, adaptive, project;
    double skip_quiet, relax;
} pile_opts;

/* n x n x layers spheres of radius 0.1 +- 10 % over a box of side 0.25 n
 * (a floor and four walls), random velocities, order "colour" */
static rc_world *pile(int n, int layers, const pile_opts *o)
{
    rc_world_def wd = rc_default_world_def();
    wd.dim = 3;
    wd.gravity[2] = -9.81;
    rc_world *w = NULL;
    if (!must(rc_world_create(&wd, &w))) return NULL;
    rc_world_set_warning_fn(w, quiet, NULL);
    const double width = 0.25 * n;
    const double planes[5][6] = { { 0, 0, 0, 0, 0, 1 }, { 0, 0, 0, 1, 0, 0 }, { width, 0, 0, -1, 0, 0 },
                                  { 0, 0, 0, 0, 1, 0 }, { 0, width, 0, 0, -1, 0 } };
    for (int k = 0; k < 5; k++) {
        rc_shape3_def pd = rc_default_shape3_def();
        pd.kind = RC_SHAPE3_PLANE;
        for (int d = 0; d < 3; d++) { pd.point[d] = planes[k][d]; pd.normal[d] = planes[k][3 + d]; }
        if (!must(rc_shape3_create(w, RC_GROUND, &pd, NULL))) { rc_world_destroy(w); return NULL; }
    }
    rc_law_def ld = rc_default_law_def();
    ld.e = 0.0; ld.mu = 0.3;
    int law;
    if (!must(rc_law_create(w, &ld, &law)) || !must(rc_world_set_default_law(w, law))) { rc_world_destroy(w); return NULL; }
    uint64_t x = 7;
    for (int k = 0; k < layers; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double u[4];
                for (int m = 0; m < 4; m++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    u[m] = (double)(x >> 11) / 9007199254740992.0;
                }
                const double r = 0.1 * (0.9 + 0.2 * u[0]), mass = 4.0 / 3.0 * 3.141592653589793 * r * r * r;
                rc_body3d_def bd = rc_default_body3d_def();
                bd.mass = mass;
                const double I = 0.4 * mass * r * r, J[9] = { I, 0, 0, 0, I, 0, 0, 0, I };
                memcpy(bd.inertia, J, sizeof J);
                const double q[7] = { 0.25 * (i + 0.5), 0.25 * (j + 0.5), 0.25 * (k + 0.5) + 0.05, 1, 0, 0, 0 };
                memcpy(bd.q, q, sizeof q);
                bd.v[0] = u[1] - 0.5; bd.v[1] = u[2] - 0.5; bd.v[2] = u[3] - 0.5;
                int b;
                rc_shape3_def sd = rc_default_shape3_def();
                sd.kind = RC_SHAPE3_SPHERE;
                sd.radius = r;
                if (!must(rc_body3d_create(w, &bd, &b)) || !must(rc_shape3_create(w, b, &sd, NULL))) {
                    rc_world_destroy(w);
                    return NULL;
                }
            }
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    sd.project_contacts = o->project;
    sd.solver.tol = 1e-6;
    sd.solver.max_iter = 200;
    sd.solver.on_fail = RC_ON_FAIL_WARN;
    sd.solver.order = RC_ORDER_COLOUR;
    sd.solver.threads = o->threads;
    sd.solver.adaptive_threads = o->adaptive;
    sd.solver.skip_quiet = o->skip_quiet;
    sd.solver.relax = o->relax;
    if (!must(rc_world_configure(w, &sd))) { rc_world_destroy(w); return NULL; }
    return w;
}

/* The colour order of the contacts the last step left active; 0 when an
 * invariant fails (the reason printed). ncol, ground: the colours, the
 * contacts with a plane. */
static int colouring_ok(rc_world *w, int *ncol, int *ground)
{
    const rcm_c3 *c3 = w->c3;
    int *order, n;
    rcn_colours col;
    if (rcn_nsgs3_order(w, &order, &n, &col) != RC_OK) return 0;
    *ncol = col.n;
    *ground = 0;
    if (n != c3->nactive || (n > 0 && (col.n < 1 || col.start[0] != 0 || col.start[col.n] != n))) {
        fprintf(stderr, "  %d contacts in %d colours for %d active\n", n, col.n, c3->nactive);
        return 0;
    }
    int *colour_of = calloc((size_t)c3->n + 1, sizeof(int)), *seen = calloc((size_t)w->nbodies + 1, sizeof(int));
    int ok = colour_of && seen;
    for (int i = 0; ok && i < c3->n; i++) colour_of[i] = -1;
    for (int k = 0; ok && k < col.n; k++) {
        if (col.start[k + 1] <= col.start[k]) { fprintf(stderr, "  colour %d empty\n", k); ok = 0; }
        for (int s = col.start[k]; ok && s < col.start[k + 1]; s++) {
            const int i = order[s];
            const rcm_contact3 *c = &c3->c[i];
            if (i < 0 || i >= c3->n || !c->active || colour_of[i] >= 0) { fprintf(stderr, "  not a permutation\n"); ok = 0; break; }
            if (s > col.start[k] && order[s - 1] >= i) { fprintf(stderr, "  colour %d not in index order\n", k); ok = 0; }
            colour_of[i] = k;
            const int ab[2] = { c->body_a, c->body_b };
            for (int e = 0; e < 2; e++) {
                if (ab[e] < 0) { (*ground)++; continue; }
                if (seen[ab[e]] == k + 1) { fprintf(stderr, "  body %d twice in colour %d\n", ab[e], k); ok = 0; }
                seen[ab[e]] = k + 1;
            }
        }
    }
    /* greedy: every colour below a contact's is held by an earlier contact (by index) of one of its bodies */
    for (int i = 0; ok && i < c3->n; i++) {
        if (!c3->c[i].active) continue;
        const int k = colour_of[i];
        if (k >= 64) continue;   /* beyond the masks: one more than the bodies' largest */
        uint64_t held = 0;
        for (int j = 0; j < i; j++) {
            const rcm_contact3 *a = &c3->c[i], *b = &c3->c[j];
            if (!b->active || colour_of[j] >= 64) continue;
            const int share = (a->body_b >= 0 && (a->body_b == b->body_b || a->body_b == b->body_a))
                              || (a->body_a >= 0 && (a->body_a == b->body_b || a->body_a == b->body_a));
            if (share) held |= (uint64_t)1 << colour_of[j];
        }
        if ((held & (((uint64_t)1 << k) - 1)) != (((uint64_t)1 << k) - 1) || (held >> k & 1u)) {
            fprintf(stderr, "  contact %d: colour %d is not the smallest free one\n", i, k);
            ok = 0;
        }
    }
    free(colour_of);
    free(seen);
    return ok;
}

RC_TEST(colour_order_of_a_forming_pile)
{
    pile_opts o = { 1, 1, 0, 0.0, 1.0 };
    rc_world *w = pile(5, 4, &o);
    CHECK(w != NULL);
    if (!w) return;
    int bad = 0, maxcol = 0, steps_with = 0, ground = 0, max_active = 0;
    for (int s = 0; s < 300; s++) {
        CHECK_OK(rc_world_step(w));
        int nc = 0, g = 0;
        if (!colouring_ok(w, &nc, &g)) bad++;
        if (w->c3->nactive) steps_with++;
        if (nc > maxcol) maxcol = nc;
        if (w->c3->nactive > max_active) max_active = w->c3->nactive;
        ground += g;
    }
    printf("  up to %d active contacts in up to %d colours\n", max_active, maxcol);
    CHECK(bad == 0);
    CHECK(steps_with > 200);
    CHECK(maxcol >= 4);          /* a pile needs several colours */
    CHECK(max_active >= 100);    /* it has formed */
    CHECK(ground > 0);           /* contacts with the planes were coloured */
    rc_world_destroy(w);
}

/* the state of two worlds bit for bit: positions, velocities, impulses */
static int same_state(const rc_world *a, const rc_world *b)
{
    if (a->nq != b->nq || a->nv != b->nv || a->c3->n != b->c3->n) return 0;
    if (memcmp(a->q, b->q, sizeof(double) * a->nq) || memcmp(a->v, b->v, sizeof(double) * a->nv)) return 0;
    for (int i = 0; i < a->c3->n; i++)
        if (a->c3->c[i].active != b->c3->c[i].active || memcmp(a->c3->c[i].p, b->c3->c[i].p, sizeof a->c3->c[i].p)) return 0;
    return 1;
}

/* the pile on one thread and on two, stepped side by side */
static void compare_threads(int *failed, pile_opts o, const char *what, long *team_steps, int *b_backoff)
{
    pile_opts o1 = o;
    o1.threads = 1;
    rc_world *a = pile(5, 4, &o1), *b = pile(5, 4, &o);
    CHECK(a && b);
    if (!a || !b) { rc_world_destroy(a); rc_world_destroy(b); return; }
    int diverged = -1, max_it = 0;
    for (int s = 0; s < 300; s++) {
        if (o.adaptive) b->par_off_until = 0;   /* no back-off: a team every step */
        CHECK_OK(rc_world_step(a));
        CHECK_OK(rc_world_step(b));
        rc_step_info in;
        rc_world_step_info(a, &in);
        if (in.iterations > max_it) max_it = in.iterations;
        if (diverged < 0 && !same_state(a, b)) diverged = s + 1;
    }
    if (diverged >= 0) fprintf(stderr, "  %s: one and two threads differ from step %d\n", what, diverged);
    CHECK(diverged < 0);
    CHECK(max_it > 5);   /* the solver had work to do */
    rc_run_stats sa, sb;
    rc_world_run_stats(a, &sa);
    rc_world_run_stats(b, &sb);
    CHECK(sa.parallel_steps == 0);
    CHECK(sa.local_solves == sb.local_solves);
    if (rc_openmp()) CHECK(sb.parallel_steps > 100);
    else CHECK(sb.parallel_steps == 0);
    *team_steps = sb.parallel_steps;
    *b_backoff = b->par_backoff;
    rc_world_destroy(a);
    rc_world_destroy(b);
}

RC_TEST(two_threads_step_the_pile_as_one)
{
    rcn_nsgs3_parallel_min = 0;   /* share every colour between the threads, however small */
    long team = 0;
    int backoff = 0;
    compare_threads(failed, (pile_opts){ 2, 0, 0, 0.0, 1.0 }, "plain", &team, &backoff);
    compare_threads(failed, (pile_opts){ 2, 0, 0, 5.0, 1.0 }, "skip_quiet = 5", &team, &backoff);
    compare_threads(failed, (pile_opts){ 2, 0, 1, 0.0, 1.2 }, "relax = 1.2, project_contacts", &team, &backoff);
    rcn_nsgs3_parallel_min = 128;
}

RC_TEST(a_team_stopping_mid_step_gives_the_same_numbers)
{
    /* adaptive threads: sweep 1 of a step runs on one thread and sets the
     * cost to beat; a team must beat 1e-9 times it, so it stops after its
     * second timed sweep and the step goes on on this thread */
    rcn_nsgs3_parallel_min = 0;
    rcn_nsgs_team_margin = 1e-9;
    long team = 0;
    int backoff = 0;
    compare_threads(failed, (pile_opts){ 2, 1, 0, 0.0, 1.0 }, "adaptive", &team, &backoff);
    if (rc_openmp()) CHECK(backoff >= 16);   /* the fallbacks were recorded */
    rcn_nsgs3_parallel_min = 128;
    rcn_nsgs_team_margin = 1.0;
}

RC_TEST_MAIN(T(colour_order_of_a_forming_pile), T(two_threads_step_the_pile_as_one),
             T(a_team_stopping_mid_step_gives_the_same_numbers))
