/* test_nsgs_order.c -- NSGS sweep orders (issue 5): the position order, the
 * coloured order and its OpenMP sweeps (bit-identical whatever the number of
 * threads), their admissibility on a pile, and the option checks. Reads the
 * world's sweep arrays through the internal headers to check the orders themselves. */
#include "rc_test.h"
#include "nonsmooth/nonsmooth_impl.h"
#include "collide/collide_impl.h"
#include "integrate/integrate.h"

typedef struct pile_opts {
    rc_order order;
    int threads;
    double tol;
    int max_iter;
    int generic;        /* the law through the generic local solver (no closed form) */
    int resting;        /* start nearly touching, at rest: a gentle pile */
    int check_every;    /* 0: 1 */
} pile_opts;
static rc_residual_norm pile_norm;   /* 0: the default (RC_NORM_L2) */

static void quiet(void *user, const char *msg) { (void)user; (void)msg; }

/* n disks of radius 0.1 +- 10 % on a lattice of 8 columns, small random
 * velocities (fixed LCG), in a box: floor and two walls; e = 0, mu = 0.3. */
static rc_world *pile(int n, const pile_opts *o)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_world_set_warning_fn(w, quiet, NULL);
    const int cols = 8;
    const double width = 0.25 * cols;
    const double hp[3][4] = { { 0, 0, 0, 1 }, { 0, 0, 1, 0 }, { width, 0, -1, 0 } };
    for (int i = 0; i < 3; i++) {
        rc_shape_def s = rc_default_shape_def();
        s.type = RC_SHAPE_HALFPLANE;
        s.point[0] = hp[i][0]; s.point[1] = hp[i][1];
        s.normal[0] = hp[i][2]; s.normal[1] = hp[i][3];
        if (rc_shape_create(w, RC_GROUND, &s, NULL) != RC_OK) goto fail;
    }
    uint64_t x = 12345;
    for (int i = 0; i < n; i++) {
        double u[5];
        for (int k = 0; k < 5; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (double)(x >> 11) / 9007199254740992.0;
        }
        const double r = 0.1 * (0.9 + 0.2 * u[0]), m = 3.141592653589793 * r * r;
        rc_body_def bd = rc_default_body_def();
        bd.mass = m; bd.inertia = 0.5 * m * r * r;
        bd.q[0] = 0.25 * (i % cols + 0.5) + 0.02 * (u[1] - 0.5);
        if (o->resting) {   /* rows 0.225 apart: vertical neighbours 0.005 apart or more */
            bd.q[1] = 0.225 * (i / cols) + 0.115;
        } else {
            bd.q[1] = 0.25 * (i / cols + 0.5) + 0.02 + 0.02 * (u[2] - 0.5);
            bd.v[0] = u[3] - 0.5; bd.v[1] = u[4] - 0.5;
        }
        int b;
        if (rc_body_create(w, &bd, &b) != RC_OK) goto fail;
        rc_shape_def s = rc_default_shape_def();
        s.type = RC_SHAPE_DISK;
        s.radius = r;
        if (rc_shape_create(w, b, &s, NULL) != RC_OK) goto fail;
    }
    rc_law_def ld = rc_default_law_def();
    ld.e = 0.0; ld.mu = 0.3; ld.generic = o->generic;
    int law;
    if (rc_law_create(w, &ld, &law) != RC_OK || rc_world_set_default_law(w, law) != RC_OK) goto fail;
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 2e-3;
    sd.solver.order = o->order;
    sd.solver.threads = o->threads;
    sd.solver.adaptive_threads = 0;   /* always share: the test knows which steps ran on 2 threads */
    sd.solver.check_every = o->check_every > 0 ? o->check_every : 1;
    sd.solver.tol = o->tol;
    sd.solver.max_iter = o->max_iter;
    if (pile_norm) sd.solver.norm = pile_norm;
    if (rc_world_configure(w, &sd) != RC_OK) goto fail;
    return w;
fail:
    fprintf(stderr, "  pile: %s\n", rc_last_error());
    rc_world_destroy(w);
    return NULL;
}

/* Positions, velocities and every contact's impulse and relative velocity, bit for bit. */
static int same_state(const rc_world *a, const rc_world *b)
{
    if (rc_body_count(a) != rc_body_count(b) || rc_contact_count(a) != rc_contact_count(b)) return 0;
    for (int i = 0; i < rc_body_count(a); i++) {
        double qa[3], va[3], qb[3], vb[3];
        rc_body_get_state(a, i, qa, va);
        rc_body_get_state(b, i, qb, vb);
        if (memcmp(qa, qb, sizeof qa) || memcmp(va, vb, sizeof va)) return 0;
    }
    for (int i = 0; i < rc_contact_count(a); i++) {
        rc_contact_info ca, cb;
        rc_contact_get(a, i, &ca);
        rc_contact_get(b, i, &cb);
        if (ca.id != cb.id || ca.active != cb.active || memcmp(&ca.pN, &cb.pN, sizeof ca.pN)
            || memcmp(&ca.pT, &cb.pT, sizeof ca.pT) || memcmp(&ca.uN, &cb.uN, sizeof ca.uN))
            return 0;
    }
    return 1;
}

/* The colouring of the last step: a permutation of the active contacts, no
 * movable body twice in a colour, key order within a colour. */
static int colouring_ok(const rc_world *w, int *ncolours)
{
    static int seen[4096];
    if (w->nbodies > 4096 || w->ncolours < 0) return 0;
    *ncolours = w->ncolours;
    if (w->colour_start[0] != 0 || w->colour_start[w->ncolours] != w->nactive) return 0;
    long sum_sweep = 0, sum_active = 0;
    for (int k = 0; k < w->nactive; k++) { sum_sweep += w->sweep[k]; sum_active += w->active[k]; }
    if (sum_sweep != sum_active) return 0;
    for (int col = 0; col < w->ncolours; col++) {
        memset(seen, 0, sizeof seen);
        if (w->colour_start[col + 1] <= w->colour_start[col]) return 0;   /* no empty colour */
        for (int k = w->colour_start[col]; k < w->colour_start[col + 1]; k++) {
            const rc_contact *c = &w->contacts[w->sweep[k]];
            if (k > w->colour_start[col] && w->contacts[w->sweep[k - 1]].key >= c->key) return 0;
            if (seen[c->body_b]++) return 0;
            if (c->body_a != RC_GROUND && seen[c->body_a]++) return 0;
        }
    }
    return 1;
}

/* One step of worlds a and b (the same pile, other thread counts): a's step
 * info in *in, the steps with contacts and the most sweeps counted, and the
 * first step where their states differ. */
static void step_both(int *failed, rc_world *a, rc_world *b, int i, rc_step_info *in, int *with_contacts, int *maxit,
                      int *diverged_at)
{
    CHECK_OK(rc_world_step(a));
    CHECK_OK(rc_world_step(b));
    rc_world_step_info(a, in);
    rc_step_info ib;
    rc_world_step_info(b, &ib);
    if (in->nactive) ++*with_contacts;
    if (in->iterations > *maxit) *maxit = in->iterations;
    /* the state and the step's audit (energies and works, summed in order) */
    const int same_audit = !memcmp(&in->E, &ib.E, sizeof ib.E) && !memcmp(&in->W_theta, &ib.W_theta, sizeof ib.W_theta)
                        && !memcmp(&in->W_N, &ib.W_N, sizeof ib.W_N) && !memcmp(&in->W_T, &ib.W_T, sizeof ib.W_T)
                        && !memcmp(&in->balance, &ib.balance, sizeof ib.balance);
    if (*diverged_at < 0 && (!same_state(a, b) || !same_audit)) *diverged_at = i;
}

/* The slabs of the last step (slabs.c): a permutation of the active
 * contacts in RCN_SLAB_SEGS segments, key order within each; no movable body
 * in two slabs (the leaves' segments); a contact of node (h, j) has its
 * bodies in the node's slabs, and in both halves of it when h > 0.
 * *interior: the contacts not in the root; *left: those of the root's left
 * half. */
static int slabs_ok(const rc_world *w, int *interior, int *left)
{
    static int slab_of[4096];
    const int *st = w->colour_start;
    if (w->nbodies > 4096 || w->ncolours != RCN_SLAB_SEGS) return 0;
    if (st[0] != 0 || st[RCN_SLAB_SEGS] != w->nactive) return 0;
    long sum_sweep = 0, sum_active = 0;
    for (int k = 0; k < w->nactive; k++) { sum_sweep += w->sweep[k]; sum_active += w->active[k]; }
    if (sum_sweep != sum_active) return 0;
    for (int s = 0; s < RCN_SLAB_SEGS; s++)
        for (int k = st[s] + 1; k < st[s + 1]; k++)
            if (w->contacts[w->sweep[k - 1]].key >= w->contacts[w->sweep[k]].key) return 0;
    for (int b = 0; b < w->nbodies; b++) slab_of[b] = -1;
    for (int j = 0; j < RCN_SLABS; j++) {
        const int s = rcn_slab_segment(0, j);
        for (int k = st[s]; k < st[s + 1]; k++) {
            const rc_contact *c = &w->contacts[w->sweep[k]];
            const int ab[2] = { c->body_a, c->body_b };
            for (int i = 0; i < 2; i++) {
                if (ab[i] == RC_GROUND) continue;
                if (slab_of[ab[i]] >= 0 && slab_of[ab[i]] != j) return 0;   /* a body in two slabs */
                slab_of[ab[i]] = j;
            }
        }
    }
    for (int h = 1; h <= RCN_SLAB_LEVELS; h++)
        for (int j = 0; j < RCN_SLABS >> h; j++) {
            const int s = rcn_slab_segment(h, j);
            for (int k = st[s]; k < st[s + 1]; k++) {
                const rc_contact *c = &w->contacts[w->sweep[k]];
                const int la = c->body_a == RC_GROUND ? -1 : slab_of[c->body_a], lb = slab_of[c->body_b];
                for (int i = 0; i < 2; i++) {
                    const int l = i ? lb : la;
                    if (l >= 0 && (l >> h) != j) return 0;   /* a body outside the node's slabs */
                }
                if (c->body_a == RC_GROUND) return 0;   /* a ground contact belongs to its body's slab */
                if (la >= 0 && lb >= 0 && (la >> (h - 1)) == (lb >> (h - 1))) return 0;   /* both in one half */
            }
        }
    *interior = st[RCN_SLAB_SEGS - 1];
    *left = st[rcn_slab_segment(RCN_SLAB_LEVELS - 1, 0) + 1];
    return 1;
}

RC_TEST(slabs_order_two_threads_bit_identical_to_one)
{
    rcn_nsgs_parallel_min = 0;   /* a team for every step, however small */
    pile_opts o1 = { RC_ORDER_SLABS, 1, 1e-6, 200, 0, 0, 0 }, o2 = o1;
    o2.threads = 2;
    rc_world *a = pile(96, &o1), *b = pile(96, &o2);
    CHECK(a && b);
    if (!a || !b) { rc_world_destroy(a); rc_world_destroy(b); return; }
    int steps_with_contacts = 0, bad = 0, diverged_at = -1, maxit = 0;
    long interior = 0, all = 0, left = 0;
    for (int i = 0; i < 200; i++) {
        rc_step_info in;
        step_both(failed, a, b, i, &in, &steps_with_contacts, &maxit, &diverged_at);
        int inner = 0, half = 0;
        if (in.nactive && !slabs_ok(b, &inner, &half)) bad++;
        interior += inner;
        left += half;
        all += in.nactive;
    }
    CHECK(diverged_at == -1);
    if (diverged_at >= 0) fprintf(stderr, "  slabs: threads 1 and 2 differ from step %d\n", diverged_at + 1);
    CHECK(bad == 0);
    CHECK(interior > all * 3 / 4);   /* the root's segment, swept by one thread, is the fewest */
    CHECK(left > all * 3 / 10 && left < all * 6 / 10);   /* the halves hold about as many contacts each */
    CHECK(steps_with_contacts > 150);
    CHECK(maxit > 5);
    rc_run_stats sa, sb;
    rc_world_run_stats(a, &sa);
    rc_world_run_stats(b, &sb);
    CHECK(sa.parallel_steps == 0);
    if (rc_openmp()) CHECK(sb.parallel_steps == steps_with_contacts);
    rc_world_destroy(a);
    rc_world_destroy(b);
    rcn_nsgs_parallel_min = 512;
}

/* The slabs' halves swept side by side (rcn_nsgs_pack_sweep2: two chains
 * of updates in flight) give the numbers of the halves swept one after the
 * other, bit for bit, on one thread and on two (each thread its subtree's
 * halves side by side). */
RC_TEST(slabs_halves_side_by_side_bit_identical_to_in_turn)
{
    rcn_nsgs_parallel_min = 0;
    pile_opts o1 = { RC_ORDER_SLABS, 1, 1e-6, 200, 0, 0, 0 }, o2 = o1;
    o2.threads = 2;
    rc_world *a = pile(96, &o1), *b = pile(96, &o1), *c = pile(96, &o2);
    CHECK(a && b && c);
    if (!a || !b || !c) { rc_world_destroy(a); rc_world_destroy(b); rc_world_destroy(c); rcn_nsgs_parallel_min = 512; return; }
    int diverged_b = -1, diverged_c = -1, with_contacts = 0;
    long sweeps = 0;
    for (int i = 0; i < 200; i++) {
        rcn_slab_interleave = 0;   /* a: the segments in turn */
        CHECK_OK(rc_world_step(a));
        rcn_slab_interleave = 1;   /* b (one thread), c (two): the halves side by side */
        CHECK_OK(rc_world_step(b));
        CHECK_OK(rc_world_step(c));
        rc_step_info in;
        rc_world_step_info(a, &in);
        if (in.nactive) with_contacts++;
        sweeps += in.iterations;
        if (diverged_b < 0 && !same_state(a, b)) diverged_b = i;
        if (diverged_c < 0 && !same_state(a, c)) diverged_c = i;
    }
    CHECK(diverged_b == -1);
    CHECK(diverged_c == -1);
    if (diverged_b >= 0 || diverged_c >= 0)
        fprintf(stderr, "  slabs side by side: one thread differs from step %d, two from %d\n", diverged_b + 1, diverged_c + 1);
    CHECK(with_contacts > 150);
    CHECK(sweeps > 1000);   /* the sweeps did run, through both paths */
    rc_world_destroy(a);
    rc_world_destroy(b);
    rc_world_destroy(c);
    rcn_nsgs_parallel_min = 512;
}

/* The step's stages on two threads (model/team.h: the detection margin, the
 * shapes' caches, the broadphase's boxes, buckets, counting sort and big
 * shapes, the pairs' sort, the narrowphase, the match with the last state,
 * the index set, the slabs order, the hot records' packing, the audit's
 * contact works and the state's records) give the one-thread state and audit bit
 * for bit, also when the second thread's buffers run out of room
 * (rcc_team_cap: 4 pairs or contacts, then this thread finishes). */
RC_TEST(detection_on_two_threads_bit_identical_to_one)
{
    rcn_nsgs_parallel_min = 0;
    rcm_team_min = 0;   /* every stage on two threads (model/team.h) */
    const int caps[2] = { 0, 4 };
    for (int t = 0; t < 2; t++) {
        rcc_team_cap = caps[t];
        pile_opts o1 = { RC_ORDER_SLABS, 1, 1e-6, 200, 0, 0, 0 }, o2 = o1;
        o2.threads = 2;
        rc_world *a = pile(96, &o1), *b = pile(96, &o2);
        CHECK(a && b);
        if (!a || !b) { rc_world_destroy(a); rc_world_destroy(b); break; }
        int steps_with_contacts = 0, diverged_at = -1, maxit = 0;
        for (int i = 0; i < 150; i++) {
            rc_step_info in;
            step_both(failed, a, b, i, &in, &steps_with_contacts, &maxit, &diverged_at);
        }
        CHECK(diverged_at == -1);
        if (diverged_at >= 0) fprintf(stderr, "  detection (cap %d): threads 1 and 2 differ from step %d\n", caps[t], diverged_at + 1);
        CHECK(steps_with_contacts > 100);
        CHECK(rc_contact_count(a) > 50);   /* the narrowphase had pairs to share */
        rc_run_stats sa, sb;   /* the largest overlap: the same contact and step (step.c's scan by halves) */
        rc_world_run_stats(a, &sa);
        rc_world_run_stats(b, &sb);
        CHECK(sa.max_overlap > 0.0);
        CHECK(!memcmp(&sa.max_overlap, &sb.max_overlap, sizeof sa.max_overlap));
        CHECK(sa.contact_max_overlap == sb.contact_max_overlap && sa.step_max_overlap == sb.step_max_overlap);
        rc_world_destroy(a);
        rc_world_destroy(b);
    }
    rcm_team_min = 8192;
    rcc_team_cap = 0;
    rcn_nsgs_parallel_min = 512;
}

/* a row of n disks (radius 0.1, 0.25 apart) sunk into the ground by depth[i] */
static rc_world *sunk_row(int n, const double *depth, int threads)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_world_set_warning_fn(w, quiet, NULL);
    rc_shape_def g = rc_default_shape_def();
    g.type = RC_SHAPE_HALFPLANE;
    g.normal[1] = 1.0;
    if (rc_shape_create(w, RC_GROUND, &g, NULL) != RC_OK) goto fail;
    for (int i = 0; i < n; i++) {
        rc_body_def bd = rc_default_body_def();
        bd.q[0] = 0.25 * i;
        bd.q[1] = 0.1 - depth[i];
        int b;
        if (rc_body_create(w, &bd, &b) != RC_OK) goto fail;
        rc_shape_def s = rc_default_shape_def();
        s.type = RC_SHAPE_DISK;
        s.radius = 0.1;
        if (rc_shape_create(w, b, &s, NULL) != RC_OK) goto fail;
    }
    rc_sim_def sd = rc_default_sim_def();
    sd.solver.order = RC_ORDER_SLABS;
    sd.solver.threads = threads;
    sd.solver.adaptive_threads = 0;
    if (rc_world_configure(w, &sd) != RC_OK) goto fail;
    return w;
fail:
    fprintf(stderr, "  sunk_row: %s\n", rc_last_error());
    rc_world_destroy(w);
    return NULL;
}

/* The run's largest overlap (step.c's scan of the contacts): the deepest
 * contact, the first of equals, whether it lies in the first half of the
 * contacts, the second, or both; the same on two threads (every stage on
 * the team) as on one. */
RC_TEST(largest_overlap_is_the_first_deepest)
{
    rcm_team_min = 0;
    enum { N = 40 };
    for (int prof = 0; prof < 3; prof++) {
        double depth[N];
        for (int i = 0; i < N; i++)   /* deepest: the last, the first, or a tie of 7 and 30 */
            depth[i] = prof == 0 ? 1e-5 * (i + 1) : prof == 1 ? 1e-5 * (N - i) : (i == 7 || i == 30) ? 1e-3 : 1e-5;
        rc_world *a = sunk_row(N, depth, 1), *b = sunk_row(N, depth, 2);
        CHECK(a && b);
        if (a && b) {
            CHECK_OK(rc_world_step(a));
            CHECK_OK(rc_world_step(b));
            rc_run_stats sa, sb;
            rc_world_run_stats(a, &sa);
            rc_world_run_stats(b, &sb);
            const int deepest = prof == 0 ? N - 1 : prof == 1 ? 0 : 7;
            CHECK(rc_contact_count(a) == N);
            rc_contact_info ci;
            rc_contact_get(a, deepest, &ci);
            CHECK(fabs(sa.max_overlap - depth[deepest]) < 1e-12);
            CHECK(sa.contact_max_overlap == ci.id);
            CHECK(!memcmp(&sa.max_overlap, &sb.max_overlap, sizeof sa.max_overlap));
            CHECK(sb.contact_max_overlap == sa.contact_max_overlap);
        }
        rc_world_destroy(a);
        rc_world_destroy(b);
    }
    rcm_team_min = 8192;
}

RC_TEST(colour_order_two_threads_bit_identical_to_one)
{
    rcn_nsgs_parallel_min = 0;   /* share every colour between the threads, however small */
    pile_opts o1 = { RC_ORDER_COLOUR, 1, 1e-6, 200, 0, 0, 2 }, o2 = o1;   /* residual every 2 sweeps */
    o2.threads = 2;
    rc_world *a = pile(48, &o1), *b = pile(48, &o2);
    CHECK(a && b);
    if (!a || !b) { rc_world_destroy(a); rc_world_destroy(b); return; }
    int steps_with_contacts = 0, maxcol = 0, bad_colouring = 0, diverged_at = -1, maxit = 0;
    for (int i = 0; i < 200; i++) {
        rc_step_info in;
        step_both(failed, a, b, i, &in, &steps_with_contacts, &maxit, &diverged_at);
        int nc = 0;
        if (in.nactive && !colouring_ok(b, &nc)) bad_colouring++;
        if (nc > maxcol) maxcol = nc;
    }
    CHECK(diverged_at == -1);
    if (diverged_at >= 0) fprintf(stderr, "  threads 1 and 2 differ from step %d\n", diverged_at + 1);
    CHECK(bad_colouring == 0);
    CHECK(maxcol >= 3);            /* a pile needs several colours */
    CHECK(steps_with_contacts > 150);
    CHECK(maxit > 5);              /* the solver had work to do */
    rc_run_stats sa, sb;
    rc_world_run_stats(a, &sa);
    rc_world_run_stats(b, &sb);
    CHECK(sa.parallel_steps == 0);
    if (rc_openmp()) CHECK(sb.parallel_steps == steps_with_contacts);
    else CHECK(sb.parallel_steps == 0);
    rc_world_destroy(a);
    rc_world_destroy(b);
    rcn_nsgs_parallel_min = 512;
}

RC_TEST(colour_order_team_stopping_mid_step_gives_the_same_numbers)
{
    /* adaptive threads: the step's first sweep on one thread sets the cost to
     * beat; a team slower than that stops after its second sweep and the step
     * goes on on this thread. Make every team look slow (it must beat 1e-9
     * times the one-thread cost) so that every step switches: three ways of
     * sweeping in one step, the numbers of threads = 1. */
    rcn_nsgs_parallel_min = 0;
    rcn_nsgs_team_margin = 1e-9;
    pile_opts o1 = { RC_ORDER_COLOUR, 1, 1e-6, 200, 0, 0, 3 }, o2 = o1;
    o2.threads = 2;
    rc_world *a = pile(48, &o1), *b = pile(48, &o2);
    CHECK(a && b);
    if (!a || !b) { rc_world_destroy(a); rc_world_destroy(b); rcn_nsgs_parallel_min = 512; rcn_nsgs_team_margin = 1.0; return; }
    rc_sim_def sd;
    rc_world_get_sim_def(b, &sd);
    sd.solver.adaptive_threads = 1;
    CHECK_OK(rc_world_configure(b, &sd));
    int diverged_at = -1, long_steps = 0;
    for (int i = 0; i < 200; i++) {
        b->par_off_until = 0;   /* no back-off: a team every step */
        CHECK_OK(rc_world_step(a));
        CHECK_OK(rc_world_step(b));
        rc_step_info in;
        rc_world_step_info(a, &in);
        if (in.iterations > 2) long_steps++;
        if (diverged_at < 0 && !same_state(a, b)) diverged_at = i;
    }
    CHECK(diverged_at == -1);
    CHECK(long_steps > 50);
    rc_run_stats sb;
    rc_world_run_stats(b, &sb);
    if (rc_openmp()) CHECK(sb.parallel_steps > 50);
    CHECK(b->par_backoff >= 16);   /* the fallbacks were recorded */
    rc_world_destroy(a);
    rc_world_destroy(b);
    rcn_nsgs_parallel_min = 512;
    rcn_nsgs_team_margin = 1.0;
}

RC_TEST(colour_order_without_closed_form_runs_on_one_thread_same_numbers)
{
    /* the generic local solver may fail with a message: such steps are swept
     * on one thread, in the same coloured order */
    pile_opts o1 = { RC_ORDER_COLOUR, 1, 1e-6, 200, 1, 0, 0 }, o2 = o1;
    o2.threads = 2;
    rc_world *a = pile(24, &o1), *b = pile(24, &o2);
    CHECK(a && b);
    if (!a || !b) { rc_world_destroy(a); rc_world_destroy(b); return; }
    int diverged_at = -1;
    for (int i = 0; i < 150; i++) {
        CHECK_OK(rc_world_step(a));
        CHECK_OK(rc_world_step(b));
        if (diverged_at < 0 && !same_state(a, b)) diverged_at = i;
    }
    CHECK(diverged_at == -1);
    rc_run_stats sb;
    rc_world_run_stats(b, &sb);
    CHECK(sb.parallel_steps == 0);
    rc_world_destroy(a);
    rc_world_destroy(b);
}

RC_TEST(position_order_sorts_by_height_then_key)
{
    pile_opts o = { RC_ORDER_POSITION, 1, 1e-6, 200, 0, 0, 0 };
    rc_world *w = pile(48, &o);
    CHECK(w != NULL);
    if (!w) return;
    int checked = 0;
    for (int i = 0; i < 250; i++) {
        CHECK_OK(rc_world_step(w));
        if (w->nactive < 10) continue;
        long sum_sweep = 0, sum_active = 0;
        int sorted = 1;
        for (int k = 0; k < w->nactive; k++) {
            sum_sweep += w->sweep[k];
            sum_active += w->active[k];
            if (k == 0) continue;
            const rc_contact *p = &w->contacts[w->sweep[k - 1]], *c = &w->contacts[w->sweep[k]];
            if (p->point[1] > c->point[1] || (p->point[1] == c->point[1] && p->key >= c->key)) sorted = 0;
        }
        CHECK(sorted);
        CHECK(sum_sweep == sum_active);
        /* the supports come first: the lowest contact of the sweep is on the floor */
        CHECK(w->contacts[w->sweep[0]].body_a == RC_GROUND);
        checked++;
    }
    CHECK(checked > 100);
    rc_world_destroy(w);
}

/* Solved to a tight tolerance, a gentle pile's contacts satisfy the Newton
 * (e = 0) Coulomb law: p in the cone, u_N >= 0, p_N u_N = 0, sticking
 * contacts do not slip, sliding ones slide against their impulse. No
 * penetration beyond what the velocity-level scheme allows: a contact
 * becomes active once g_N <= 0, so g_N >= -h v with v at most the free-fall
 * speed from the top of the initial lattice, sqrt(2 g 1.24) < 5 m/s.
 * NSGS with friction stalls on rare steps whatever the order (measured: 0 of
 * 400 here for fixed, position and colour): at most 1 % may miss the
 * tolerance, and the law is checked on the steps that converged. */
static void check_admissible(int *failed, rc_order order, int threads)
{
    pile_opts o = { order, threads, 1e-7, 20000, 0, 1, 0 };
    rc_world *w = pile(48, &o);
    CHECK(w != NULL);
    if (!w) return;
    const double mu = 0.3, eps = 1e-6, h = 2e-3;
    int unconverged = 0, bad_cone = 0, bad_compl = 0, bad_friction = 0, nactive = 0, sliding = 0, sticking = 0;
    double min_gap = 0.0;
    for (int i = 0; i < 400; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        CHECK(in.residual <= 1e-7 || !in.converged);
        if (!in.converged) { unconverged++; continue; }
        for (int k = 0; k < rc_contact_count(w); k++) {
            rc_contact_info c;
            rc_contact_get(w, k, &c);
            if (c.gN < min_gap) min_gap = c.gN;
            if (!c.active) continue;
            nactive++;
            if (c.pN < 0.0 || fabs(c.pT) > mu * c.pN * (1.0 + 1e-12) + 1e-15) bad_cone++;
            if (c.uN < -eps || c.pN * c.uN > eps * c.pN) bad_compl++;
            if (fabs(c.pT) < mu * c.pN - eps) {   /* inside the cone: sticks */
                sticking++;
                if (fabs(c.uT) > eps) bad_friction++;
            } else if (fabs(c.uT) > eps) {        /* slides, against its impulse */
                sliding++;
                if (c.pT * c.uT > 0.0) bad_friction++;
            }
        }
    }
    CHECK(unconverged <= 4);
    CHECK(bad_cone == 0);
    CHECK(bad_compl == 0);
    CHECK(bad_friction == 0);
    CHECK(nactive > 15000);
    CHECK(sticking > 1000);
    CHECK(sliding > 10);
    CHECK(min_gap > -h * 5.0);
    if (unconverged > 4 || bad_cone || bad_compl || bad_friction || min_gap <= -h * 5.0)
        fprintf(stderr, "  order %d threads %d: unconverged %d, cone %d, complementarity %d, friction %d, min gap %g\n",
                (int)order, threads, unconverged, bad_cone, bad_compl, bad_friction, min_gap);
    rc_world_destroy(w);
}

RC_TEST(position_order_converges_to_an_admissible_solution) { check_admissible(failed, RC_ORDER_POSITION, 1); }
RC_TEST(colour_order_converges_to_an_admissible_solution) { check_admissible(failed, RC_ORDER_COLOUR, 2); }
RC_TEST(fixed_order_reference_is_admissible_too) { check_admissible(failed, RC_ORDER_FIXED, 1); }
RC_TEST(slabs_order_converges_to_an_admissible_solution) { check_admissible(failed, RC_ORDER_SLABS, 2); }

/* The coloured solve sums the residual's terms by blocks of records
 * (nsgs.c closed_residuals, RCN_PACK_BLOCK) on the threads, then the blocks
 * in order: the step's residual is still the contacts' own. With every
 * active contact's local residual (c->res) read back: the L2 test's
 * sqrt(sum) / (1 + |b|) to round-off and the max test's largest term exactly,
 * its contact reported, on a pile of several blocks, by slabs and by colour,
 * on one and two threads. */
static void check_block_residual(int *failed, rc_order order, int threads, rc_residual_norm norm)
{
    pile_opts o = { order, threads, 1e-3, 60, 0, 1, 0 };   /* resting: settling rows (the steps stop at the cap) */
    pile_norm = norm;
    rc_world *w = pile(900, &o);
    pile_norm = (rc_residual_norm)0;
    CHECK(w != NULL);
    if (!w) return;
    rcn_nsgs_parallel_min = 0;   /* a team for every step, however small */
    int many = 0;
    for (int i = 0; i < 400; i++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        if (w->nactive < 2 * RCN_PACK_BLOCK) continue;
        many++;
        double sum = 0.0, big = -1.0;
        int worst = -1;
        for (int k = 0; k < w->nactive; k++) {
            const rc_contact *c = &w->contacts[w->active[k]];
            sum += c->res * c->res;
            if (c->res > big) { big = c->res; worst = c->id; }
        }
        if (norm == RC_NORM_MAX) {
            CHECK(in.residual == big);
            CHECK(in.worst_contact == worst);
        } else {
            const double r = sqrt(sum) / (1.0 + sqrt(w->contact_b2));
            CHECK(fabs(in.residual - r) <= 1e-12 * r);
        }
    }
    CHECK(many >= 50);
    CHECK(threads == 1 || w->stats.parallel_steps > 100);
    rcn_nsgs_parallel_min = 512;
    rc_world_destroy(w);
}

RC_TEST(coloured_residual_by_blocks_is_the_contacts_own)
{
    check_block_residual(failed, RC_ORDER_SLABS, 1, RC_NORM_L2);
    check_block_residual(failed, RC_ORDER_SLABS, 2, RC_NORM_L2);
    check_block_residual(failed, RC_ORDER_SLABS, 2, RC_NORM_MAX);
    check_block_residual(failed, RC_ORDER_COLOUR, 2, RC_NORM_MAX);
}

RC_TEST(orders_allocate_nothing_in_steady_state)
{
    const rc_order orders[] = { RC_ORDER_POSITION, RC_ORDER_COLOUR, RC_ORDER_SLABS };
    for (int i = 0; i < 3; i++) {
        pile_opts o = { orders[i], orders[i] != RC_ORDER_POSITION ? 2 : 1, 1e-6, 200, 0, 1, 0 };
        rc_world *w = pile(40, &o);
        CHECK(w != NULL);
        if (!w) return;
        /* settled: the contact count has stopped growing (the kernel's lists
         * grow by a quarter, so a pile still compacting reallocates them) */
        for (int k = 0; k < 600; k++) CHECK_OK(rc_world_step(w));
        rcn_nsgs_parallel_min = 0;   /* the thread team too */
        CHECK_OK(rc_world_step(w));
        uint64_t a = rc_alloc_count();
        const void *block = w->work.base;
        for (int k = 0; k < 100; k++) CHECK_OK(rc_world_step(w));
        CHECK(rc_alloc_count() == a);
        /* the sweep order lives in the step's work arena, which neither grew nor spilled */
        const char *base = w->work.base, *sw = (const char *)w->sweep;
        CHECK(w->work.base == block && w->work.nspill == 0 && w->nactive > 40);
        CHECK(sw >= base && sw + (size_t)w->nactive * sizeof(int) <= base + w->work.used);
        rcn_nsgs_parallel_min = 512;
        rc_world_destroy(w);
    }
}

RC_TEST(bad_order_and_threads_are_refused_with_their_name)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.solver.threads = 0;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'threads' must be >= 1 (got 0)") != NULL);
    sd.solver.threads = -3;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'threads' must be >= 1 (got -3)") != NULL);
    sd = rc_default_sim_def();
    sd.solver.threads = 2;   /* the fixed order is sequential */
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'threads' = 2 needs order = \"colour\"") != NULL);
    sd.solver.order = RC_ORDER_POSITION;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "the position order is sequential") != NULL);
    sd.solver.order = RC_ORDER_COLOUR;
    sd.solver.method = RC_SOLVER_UZAWA;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "needs the \"nsgs\" solver") != NULL);
    sd = rc_default_sim_def();
    sd.solver.order = (rc_order)7;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "unknown 'order' 7") != NULL);
    sd = rc_default_sim_def();
    sd.solver.residual = (rc_residual_mode)0;   /* NSGS's residual test: pass or sweep */
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "solver: unknown 'residual' 0") != NULL);
    sd.solver.residual = RC_RESIDUAL_SWEEP;
    CHECK_OK(rc_world_configure(w, &sd));
    /* accepted: colour on one or several threads, position */
    sd = rc_default_sim_def();
    sd.solver.order = RC_ORDER_COLOUR;
    CHECK_OK(rc_world_configure(w, &sd));
    sd.solver.threads = 2;
    CHECK_OK(rc_world_configure(w, &sd));
    sd.solver.order = RC_ORDER_SLABS;
    CHECK_OK(rc_world_configure(w, &sd));
    sd.solver.order = RC_ORDER_POSITION;
    sd.solver.threads = 1;
    CHECK_OK(rc_world_configure(w, &sd));
    CHECK(rc_default_sim_def().solver.threads == 1);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(slabs_order_two_threads_bit_identical_to_one), T(slabs_halves_side_by_side_bit_identical_to_in_turn), T(coloured_residual_by_blocks_is_the_contacts_own), T(detection_on_two_threads_bit_identical_to_one), T(largest_overlap_is_the_first_deepest), T(slabs_order_converges_to_an_admissible_solution),
             T(colour_order_two_threads_bit_identical_to_one),
             T(colour_order_team_stopping_mid_step_gives_the_same_numbers),
             T(colour_order_without_closed_form_runs_on_one_thread_same_numbers),
             T(position_order_sorts_by_height_then_key),
             T(position_order_converges_to_an_admissible_solution),
             T(colour_order_converges_to_an_admissible_solution),
             T(fixed_order_reference_is_admissible_too),
             T(orders_allocate_nothing_in_steady_state),
             T(bad_order_and_threads_are_refused_with_their_name))
