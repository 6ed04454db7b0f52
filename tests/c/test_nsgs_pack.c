/* test_nsgs_pack.c -- planar NSGS's hot records (src/nonsmooth/nsgs_pack.c):
 * sweeps on the packed contacts give the impulses, velocities and residual
 * terms of the sweeps on the contact records (nsgs.c's solve_contact through
 * rcn_nsgs_sweep and rcn_nsgs_residual), bit for bit, in key order and in a
 * reversed order, with and without over-relaxation. The contacts are those of
 * a small pile of disks and boxes (rotated) on a floor between walls: contacts
 * between two moving bodies and with the ground, rows whose rotational
 * entries are all non-zero (box corners), several masses: a field packed
 * wrong or an operation reordered changes the result in the last bits. Whole
 * steps with the pack and without it (rcn_nsgs_pack_enabled = 0) are the same
 * bit for bit in every sweep order (fixed, position, random, colour on two
 * threads), with the residual in the sweep and with relaxation; and a world
 * whose law has no closed form (a custom law, as a Lua law is) is not packed
 * (rcn_nsgs_pack_usable) and runs the records' path. The pack's residual
 * terms are computed four at a time where the CPU has AVX2 (nsgs_simd.c):
 * the comparison of the terms checks them too. */
#include "rc_test.h"
#include "nonsmooth/nonsmooth_impl.h"
#include "nonsmooth/nsgs_hot.h"

static void quiet(void *user, const char *msg) { (void)user; (void)msg; }
static int must(rc_status st) { if (st != RC_OK) fprintf(stderr, "setup: %s\n", rc_last_error()); return st == RC_OK; }

/* the custom law: Newton--Coulomb (e = 0, mu = 0.3) through xi and the projection */
static rc_status c_xi(void *user, const rc_law_ctx *ctx, const double *state, const double *u, const double *uo,
                      double *xi)
{
    (void)user; (void)ctx; (void)state; (void)uo;
    xi[0] = u[0] + 0.3 * fabs(u[1]);
    xi[1] = u[1];
    return RC_OK;
}

static rc_status c_project(void *user, const rc_law_ctx *ctx, const double *state, const double *x, double *p)
{
    (void)user; (void)ctx; (void)state;
    p[0] = x[0]; p[1] = x[1];
    rcm_fc2d_project(0.3, p);
    return RC_OK;
}

/* n numbers in [0, 1) from the 64-bit LCG state x (Knuth's MMIX constants) */
static void uniforms(uint64_t *x, double *u, int n)
{
    for (int k = 0; k < n; k++) {
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        u[k] = (double)(*x >> 11) / 9007199254740992.0;
    }
}

/* 24 bodies, disks and rotated boxes of several sizes, dropped in a box with
 * small random velocities and stepped until they press on each other;
 * custom: the law through C callbacks (no closed form) */
static rc_world *pile(rc_order order, int threads, rc_residual_mode residual, double relax, int custom, int steps)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    if (!must(rc_world_create(&wd, &w))) return NULL;
    rc_world_set_warning_fn(w, quiet, NULL);
    const double hp[3][4] = { { 0, 0, 0, 1 }, { 0, 0, 1, 0 }, { 1.5, 0, -1, 0 } };
    for (int i = 0; i < 3; i++) {
        rc_shape_def s = rc_default_shape_def();
        s.type = RC_SHAPE_HALFPLANE;
        s.point[0] = hp[i][0]; s.point[1] = hp[i][1];
        s.normal[0] = hp[i][2]; s.normal[1] = hp[i][3];
        must(rc_shape_create(w, RC_GROUND, &s, NULL));
    }
    uint64_t x = 4242;
    for (int i = 0; i < 24; i++) {
        double u[5];
        uniforms(&x, u, 5);
        const double r = 0.1 * (0.8 + 0.4 * u[0]), m = 3.0 * r * r;
        rc_body_def bd = rc_default_body_def();
        bd.mass = m; bd.inertia = 0.4 * m * r * r;
        bd.q[0] = 0.25 * (i % 6 + 0.5) + 0.02 * (u[1] - 0.5);
        bd.q[1] = 0.25 * (i / 6 + 0.5) + 0.02;
        bd.q[2] = 3.0 * u[2];
        bd.v[0] = u[3] - 0.5; bd.v[1] = u[4] - 0.5;
        int b;
        if (!must(rc_body_create(w, &bd, &b))) break;
        rc_shape_def s = rc_default_shape_def();
        if (i % 3 == 2) {
            s.type = RC_SHAPE_POLYGON;
            s.nvert = 4;
            const double a = 0.8 * r, v[4][2] = { { -a, -a }, { a, -a }, { a, a }, { -a, a } };
            memcpy(s.vert, v, sizeof v);
        } else {
            s.type = RC_SHAPE_DISK;
            s.radius = r;
        }
        must(rc_shape_create(w, b, &s, NULL));
    }
    int law;
    if (custom) {
        rc_law_ops ops;
        memset(&ops, 0, sizeof ops);
        ops.dim = 2;
        ops.xi = c_xi;
        ops.project = c_project;
        must(rc_law_create_custom(w, &ops, "coulomb-in-c", &law));
    } else {
        rc_law_def ld = rc_default_law_def();
        ld.e = 0.0; ld.mu = 0.3;
        must(rc_law_create(w, &ld, &law));
    }
    must(rc_world_set_default_law(w, law));
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 2e-3;
    sd.solver.tol = 1e-9;
    sd.solver.max_iter = 40;
    sd.solver.order = order;
    sd.solver.threads = threads;
    sd.solver.adaptive_threads = 0;
    sd.solver.residual = residual;
    sd.solver.relax = relax;
    if (!must(rc_world_configure(w, &sd))) { rc_world_destroy(w); return NULL; }
    for (int k = 0; k < steps; k++)
        if (!must(rc_world_step(w))) { rc_world_destroy(w); return NULL; }
    return w;
}

/* from the same V and impulses, `sweeps` sweeps on the records and on the
 * pack in the order (reversed: the active contacts by decreasing key),
 * compared bit for bit: V, the impulses, the residual terms */
static void compare(int *failed, rc_world *w, double relax, int reversed, int sweeps)
{
    const int nv = w->nv, n = w->nactive;
    double *V0 = malloc(sizeof(double) * nv), *Vr = malloc(sizeof(double) * nv);
    double *p0 = malloc(sizeof(double) * 2 * n), *pr = malloc(sizeof(double) * 2 * n), *rr = malloc(sizeof(double) * n);
    int *order = malloc(sizeof(int) * n);
    for (int k = 0; k < n; k++) order[k] = w->active[reversed ? n - 1 - k : k];
    for (int j = 0; j < nv; j++) V0[j] = w->v[j] + 0.3 * sin(1.0 + j);   /* away from the step's solution */
    for (int k = 0; k < n; k++) memcpy(p0 + 2 * k, w->contacts[w->active[k]].p, 2 * sizeof(double));
    const double relax0 = w->sim.solver.relax;
    w->sim.solver.relax = relax;
    CHECK(rcn_nsgs_pack_usable(w));
    /* the records */
    memcpy(w->V, V0, sizeof(double) * nv);
    for (int s = 0; s < sweeps; s++) CHECK_OK(rcn_nsgs_sweep(w, order, relax));
    int worst = -1;
    double res = 0.0;
    CHECK_OK(rcn_nsgs_residual(w, 0.0, &worst, &res));   /* c->res: the squared terms */
    memcpy(Vr, w->V, sizeof(double) * nv);
    int moved = 0;
    for (int k = 0; k < n; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        memcpy(pr + 2 * k, c->p, 2 * sizeof(double));
        rr[k] = c->res;
        moved |= c->p[0] != p0[2 * k] || c->p[1] != p0[2 * k + 1];
        memcpy(c->p, p0 + 2 * k, 2 * sizeof(double));
        c->res = -1.0;
    }
    /* the pack */
    memcpy(w->V, V0, sizeof(double) * nv);
    rcn_pack2 pk;
    CHECK_OK(rcn_nsgs_pack(w, order, &pk));
    CHECK(pk.n == n && pk.at != NULL);   /* order is not w->active: the residual finds each contact's record */
    for (int s = 0; s < sweeps; s++) rcn_nsgs_pack_sweep(w, &pk, 0, n, relax, NULL);
    rcn_nsgs_pack_terms(w, &pk, 0, n);
    CHECK(rcn_nsgs_unpack(w, &pk, order) == 1);   /* every impulse finite: the step's check may skip them */
    int same_p = 1, same_r = 1;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        same_p &= c->p[0] == pr[2 * k] && c->p[1] == pr[2 * k + 1];
        same_r &= c->res == sqrt(rr[k]);   /* unpack gives back the contacts' own residuals */
    }
    printf("  relax %g, %s order: %d active contacts, %d sweeps, residual %.17g\n", relax, reversed ? "reversed" : "key",
           n, sweeps, res);
    CHECK(n >= 20);
    CHECK(moved);
    CHECK(same_p);
    CHECK(same_r);
    CHECK(memcmp(Vr, w->V, sizeof(double) * nv) == 0);
    for (int bad = 0; bad < 2; bad++) {   /* one NaN or infinite impulse packed: unpacked as is, and said */
        rc_contact *c = &w->contacts[order[bad ? n - 1 : n / 2]];
        const double keep = c->p[bad];
        c->p[bad] = bad ? INFINITY : NAN;
        rcn_pack2 pb;
        CHECK_OK(rcn_nsgs_pack(w, order, &pb));
        CHECK(rcn_nsgs_unpack(w, &pb, order) == 0);
        CHECK(!isfinite(c->p[bad]));
        c->p[bad] = keep;
    }
    w->sim.solver.relax = relax0;
    for (int k = 0; k < n; k++) memcpy(w->contacts[w->active[k]].p, p0 + 2 * k, 2 * sizeof(double));
    free(order); free(rr); free(pr); free(p0); free(Vr); free(V0);
}

RC_TEST(packed_sweeps_are_the_records_sweeps)
{
    rc_world *w = pile(RC_ORDER_FIXED, 1, RC_RESIDUAL_PASS, 1.0, 0, 150);
    CHECK(w != NULL);
    if (!w) return;
    int boxes = 0, pairs = 0;   /* the rows' rotational entries all used */
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        boxes += c->Hr[1][0] != 0.0;
        pairs += c->body_a != RC_GROUND;
    }
    CHECK(boxes > 0 && pairs > 0 && pairs < w->nactive);
    compare(failed, w, 1.0, 0, 5);
    compare(failed, w, 1.0, 1, 5);
    compare(failed, w, 1.3, 0, 3);
    rc_world_destroy(w);
}

/* 60 steps after the first 120, with the pack and without: q and v bit for bit */
static void steps_same_knob(int *failed, rc_order order, int threads, rc_residual_mode residual, double relax, int *knob)
{
    double *q[2] = { NULL }, *v[2] = { NULL };
    int nq = 0, nv = 0;
    long solves[2] = { 0, 0 };
    for (int b = 0; b < 2; b++) {
        *knob = b == 0;
        rc_world *w = pile(order, threads, residual, relax, 0, 120);
        CHECK(w != NULL);
        if (!w) { *knob = 1; return; }
        CHECK(w->nactive >= 20 && rcn_nsgs_pack_usable(w));
        const long s0 = w->stats.local_solves;
        for (int k = 0; k < 60; k++) must(rc_world_step(w));
        solves[b] = w->stats.local_solves - s0;
        nq = w->nq; nv = w->nv;
        q[b] = malloc(sizeof(double) * nq);
        v[b] = malloc(sizeof(double) * nv);
        memcpy(q[b], w->q, sizeof(double) * nq);
        memcpy(v[b], w->v, sizeof(double) * nv);
        rc_world_destroy(w);
    }
    *knob = 1;
    printf("  order %d, %d thread(s), residual %d, relax %g: %ld local solves over 60 steps\n", (int)order, threads,
           (int)residual, relax, solves[0]);
    CHECK(solves[0] == solves[1] && solves[0] > 0);
    CHECK(memcmp(q[0], q[1], sizeof(double) * nq) == 0);
    CHECK(memcmp(v[0], v[1], sizeof(double) * nv) == 0);
    for (int b = 0; b < 2; b++) { free(q[b]); free(v[b]); }
}

static void steps_same(int *failed, rc_order order, int threads, rc_residual_mode residual, double relax)
{
    steps_same_knob(failed, order, threads, residual, relax, &rcn_nsgs_pack_enabled);
}

RC_TEST(pack_does_not_change_the_steps)
{
    const int keep = rcn_nsgs_parallel_min;
    rcn_nsgs_parallel_min = 0;   /* every colour shared by the two threads */
    steps_same(failed, RC_ORDER_FIXED, 1, RC_RESIDUAL_PASS, 1.0);
    steps_same(failed, RC_ORDER_FIXED, 1, RC_RESIDUAL_SWEEP, 1.0);
    steps_same(failed, RC_ORDER_POSITION, 1, RC_RESIDUAL_PASS, 1.0);
    steps_same(failed, RC_ORDER_TOP, 1, RC_RESIDUAL_SWEEP, 1.2);
    steps_same(failed, RC_ORDER_RANDOM, 1, RC_RESIDUAL_PASS, 1.0);
    steps_same(failed, RC_ORDER_RANDOM, 1, RC_RESIDUAL_SWEEP, 1.0);
    steps_same(failed, RC_ORDER_COLOUR, 2, RC_RESIDUAL_PASS, 1.0);
    steps_same(failed, RC_ORDER_COLOUR, 1, RC_RESIDUAL_PASS, 0.9);
    rcn_nsgs_parallel_min = keep;
}

RC_TEST(law_without_closed_form_keeps_the_records_path)
{
    rc_world *w = pile(RC_ORDER_FIXED, 1, RC_RESIDUAL_PASS, 1.0, 1, 120);
    CHECK(w != NULL);
    if (!w) return;
    CHECK(w->nactive >= 20);
    CHECK(!rcn_nsgs_pack_usable(w));
    /* the step did not reserve hot records it could not use (integrate/step.c) */
    CHECK(w->hot == NULL && w->cap_hot == 0);
    rc_world_destroy(w);
    /* the closed-form pile did: room for every active contact */
    w = pile(RC_ORDER_FIXED, 1, RC_RESIDUAL_PASS, 1.0, 0, 120);
    CHECK(w != NULL);
    if (!w) return;
    CHECK(w->nactive >= 20 && rcn_nsgs_pack_usable(w));
    CHECK(w->hot != NULL && w->cap_hot >= w->nactive);
    rc_world_destroy(w);
    /* and the same world steps the same whether packing is allowed or not */
    double q[2][72];
    for (int b = 0; b < 2; b++) {
        rcn_nsgs_pack_enabled = b == 0;
        rc_world *x = pile(RC_ORDER_FIXED, 1, RC_RESIDUAL_PASS, 1.0, 1, 130);
        CHECK(x != NULL && x->nq == 72);
        if (x && x->nq == 72) memcpy(q[b], x->q, sizeof q[b]);
        rc_world_destroy(x);
    }
    rcn_nsgs_pack_enabled = 1;
    CHECK(memcmp(q[0], q[1], sizeof q[0]) == 0);
}

/* check_every = 1, the default (nsgs.c, solver.c rcn_pass_due and
 * rcn_pass_gap): a residual pass before the first sweep, after each of the
 * first 8, then spaced by the predicted convergence, at most 8 sweeps apart,
 * and at the cap. Per step the passes lie within those bounds, and the long
 * steps (this pile's tol 1e-9 stops most at the cap of 40) make fewer passes
 * than sweeps; on the records' path (pack off) and on the colour order too. */
static void passes_spaced(int *failed, rc_order order, int packed)
{
    rcn_nsgs_pack_enabled = packed;
    rc_world *w = pile(order, 1, RC_RESIDUAL_PASS, 1.0, 0, 120);
    CHECK(w != NULL);
    if (!w) { rcn_nsgs_pack_enabled = 1; return; }
    long spared = 0, long_steps = 0;
    for (int k = 0; k < 40; k++) {
        const long p0 = rcn_nsgs_passes;
        if (!must(rc_world_step(w))) break;
        const long passes = rcn_nsgs_passes - p0, it = w->info.iterations;
        const long lo = 1 + (it < 8 ? it : 8) + (it > 8 ? (it - 8) / 8 : 0);
        CHECK(passes >= lo && passes <= it + 1);
        spared += it + 1 - passes;
        long_steps += it > 16;
    }
    printf("  order %d, pack %d: %ld passes spared over 40 steps (%ld of more than 16 sweeps)\n", (int)order, packed,
           spared, long_steps);
    CHECK(long_steps > 10 && spared >= 4 * long_steps);
    rc_world_destroy(w);
    rcn_nsgs_pack_enabled = 1;
}

RC_TEST(passes_are_spaced_on_long_solves)
{
    passes_spaced(failed, RC_ORDER_FIXED, 1);
    passes_spaced(failed, RC_ORDER_FIXED, 0);
    passes_spaced(failed, RC_ORDER_COLOUR, 1);
}

/* nsgs_simd.c: each colour's records four at a time (AVX2) give the
 * velocities and impulses of the same records one by one, bit for bit: the
 * colours of a step of the pile swept 5 times from velocities away from the
 * solution (contacts with the ground and between bodies, boxes' rotational
 * rows, take-off, stick and slide), then whole steps on one and two threads. */
RC_TEST(colour_four_at_a_time_is_one_by_one)
{
    rc_world *w = pile(RC_ORDER_COLOUR, 1, RC_RESIDUAL_PASS, 1.0, 0, 150);
    CHECK(w != NULL);
    if (!w) return;
    const int nv = w->nv, n = w->nactive, ncol = w->ncolours;
    double *V0 = malloc(sizeof(double) * nv), *V1 = malloc(sizeof(double) * nv), *p1 = malloc(sizeof(double) * 2 * n);
    for (int j = 0; j < nv; j++) V0[j] = w->v[j] + 0.3 * sin(1.0 + j);
    long groups = 0;
    for (int b = 0; b < 2; b++) {   /* b = 0: four at a time; 1: one by one */
        memcpy(w->V, V0, sizeof(double) * nv);
        rcn_pack2 pk;
        CHECK_OK(rcn_nsgs_pack(w, w->sweep, &pk));
        for (int s = 0; s < 5; s++)
            for (int c = 0; c < ncol; c++) {
                if (b == 0) groups += rcn_nsgs_pack_sweep_indep(w, &pk, w->colour_start[c], w->colour_start[c + 1], 1.0);
                else rcn_nsgs_pack_sweep(w, &pk, w->colour_start[c], w->colour_start[c + 1], 1.0, NULL);
            }
        int same = 1, moved = 0;
        for (int k = 0; k < n; k++) {
            const double *p = pk.h[k].p;
            if (b == 0) memcpy(p1 + 2 * k, p, 2 * sizeof(double));
            else same &= memcmp(p1 + 2 * k, p, 2 * sizeof(double)) == 0;
            moved |= p[0] != w->contacts[w->sweep[k]].p[0];
        }
        if (b == 0) { memcpy(V1, w->V, sizeof(double) * nv); CHECK(moved); }
        else { CHECK(same); CHECK(memcmp(V1, w->V, sizeof(double) * nv) == 0); }
    }
    printf("  %d active contacts in %d colours, %ld groups of four over 5 sweeps (AVX2 path: %s)\n", n, ncol, groups,
           rcn_nsgs_simd_usable() ? "yes" : "no");
    CHECK(n >= 20 && ncol >= 2);
    CHECK(rcn_nsgs_simd_usable() ? groups >= n / 8 : groups == 0);
    free(p1); free(V1); free(V0);
    rc_world_destroy(w);
    const int keep = rcn_nsgs_parallel_min;
    steps_same_knob(failed, RC_ORDER_COLOUR, 1, RC_RESIDUAL_PASS, 1.0, &rcn_nsgs_simd);
    rcn_nsgs_parallel_min = 0;   /* every colour shared by the two threads: each thread's share four at a time */
    steps_same_knob(failed, RC_ORDER_COLOUR, 2, RC_RESIDUAL_PASS, 1.0, &rcn_nsgs_simd);
    rcn_nsgs_parallel_min = keep;
}

RC_TEST_MAIN(T(packed_sweeps_are_the_records_sweeps), T(pack_does_not_change_the_steps), T(colour_four_at_a_time_is_one_by_one),
             T(law_without_closed_form_keeps_the_records_path), T(passes_are_spaced_on_long_solves))
