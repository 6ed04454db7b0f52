/* test_nsgs3_pack.c -- NSGS3's hot records (src/nonsmooth/nsgs3_pack.c):
 * sweeps on the packed contacts give the impulses and velocities of the
 * sweeps on the contact records (rcn_contact3_velocity, the exact cone3
 * local solve warm-started by the last impulse, rcn_contact3_apply, as
 * nsgs3.c's solve_one), bit for bit, with and without over-relaxation, and
 * the residual pass the same sum and worst contact in any sweep order. The
 * contacts are those of a small pile of spheres, capsules and boxes with a
 * full inertia on a floor (both sides moving and ground contacts, rows with
 * every rotational entry, a full Ainv): a field packed wrong or an operation
 * reordered changes the result in the last bits. And whole steps with every
 * contact packed, a few (the pack's memory budget, the rest on their
 * records) or none are the same bit for bit. */
#include "rc_test.h"
#include "nonsmooth/nonsmooth.h"

static void quiet(void *user, const char *msg) { (void)user; (void)msg; }
static int must(rc_status st) { if (st != RC_OK) fprintf(stderr, "setup: %s\n", rc_last_error()); return st == RC_OK; }

/* 12 bodies (spheres, capsules, boxes; rotated, tilted inertia) dropped on a
 * floor and stepped until they press on each other */
static rc_world *pile(void)
{
    rc_world_def wd = rc_default_world_def();
    wd.dim = 3;
    wd.gravity[2] = -9.81;
    rc_world *w = NULL;
    if (!must(rc_world_create(&wd, &w))) return NULL;
    rc_shape3_def pd = rc_default_shape3_def();
    pd.kind = RC_SHAPE3_PLANE;
    must(rc_shape3_create(w, RC_GROUND, &pd, NULL));
    rc_law_def ld = rc_default_law_def();
    ld.e = 0.0; ld.mu = 0.4;
    int law;
    must(rc_law_create(w, &ld, &law));
    must(rc_world_set_default_law(w, law));
    uint64_t x = 2024;
    for (int i = 0; i < 12; i++) {
        double u[6];
        for (int k = 0; k < 6; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (double)(x >> 11) / 9007199254740992.0;
        }
        rc_body3d_def bd = rc_default_body3d_def();
        bd.mass = 1.0 + u[0];
        const double J[9] = { 0.02, 0.002, 0.001, 0.002, 0.03, 0.003, 0.001, 0.003, 0.025 };
        memcpy(bd.inertia, J, sizeof J);
        const double a = 3.0 * u[1], c = cos(0.5 * a), s = sin(0.5 * a);
        const double q[7] = { 0.18 * (i % 3) + 0.02 * u[2], 0.18 * ((i / 3) % 2), 0.12 + 0.16 * (i / 6) + 0.03 * u[3],
                              c, s * 0.6, s * 0.8, 0.0 };
        memcpy(bd.q, q, sizeof q);
        bd.v[0] = u[4] - 0.5; bd.v[1] = u[5] - 0.5; bd.v[5] = 2.0 * u[4];
        int b;
        if (!must(rc_body3d_create(w, &bd, &b))) break;
        rc_shape3_def sd = rc_default_shape3_def();
        sd.kind = i % 3 == 0 ? RC_SHAPE3_SPHERE : i % 3 == 1 ? RC_SHAPE3_CAPSULE : RC_SHAPE3_BOX;
        sd.radius = 0.08; sd.half_len = 0.04;
        sd.half[0] = 0.07; sd.half[1] = 0.06; sd.half[2] = 0.05;
        must(rc_shape3_create(w, b, &sd, NULL));
    }
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 2e-3;
    sd.solver.tol = 1e-8;
    sd.solver.max_iter = 30;
    if (!must(rc_world_configure(w, &sd))) { rc_world_destroy(w); return NULL; }
    rc_world_set_warning_fn(w, quiet, NULL);
    for (int k = 0; k < 150; k++)
        if (!must(rc_world_step(w))) { rc_world_destroy(w); return NULL; }
    return w;
}

/* one sweep on the contact records in order: nsgs3.c's solve_one for a
 * closed-form law; est += the squared residuals as visited */
static void record_sweep(rc_world *w, const int *order, int n, double *V, double *est)
{
    double sum = 0.0;
    for (int k = 0; k < n; k++) {
        rcm_contact3 *c = &w->c3->c[order[k]];
        const double mu = w->laws[c->law].def.mu, omega = w->sim.solver.relax;
        double u[3], b[3], p[3];
        rcn_contact3_velocity(w, c, V, u);
        for (int r = 0; r < 3; r++) b[r] = u[r] - (c->W[3 * r] * c->p[0] + c->W[3 * r + 1] * c->p[1] + c->W[3 * r + 2] * c->p[2]);
        sum += rcn_cone3_residual2(u, c->p, mu);
        rcn_cone3_local_solve_from(c->W, c->winv_ok ? c->Winv : NULL, b, mu, c->p, p);
        if (omega != 1.0) {
            for (int r = 0; r < 3; r++) p[r] = omega * p[r] + (1.0 - omega) * c->p[r];
            rcm_fc3d_project(mu, p);
        }
        const double dp[3] = { p[0] - c->p[0], p[1] - c->p[1], p[2] - c->p[2] };
        if (dp[0] != 0.0 || dp[1] != 0.0 || dp[2] != 0.0) rcn_contact3_apply(w, c, V, dp);
        memcpy(c->p, p, sizeof p);
    }
    *est += sum;
}

/* from the same V and impulses, `sweeps` sweeps both ways in the order
 * (reversed: the active contacts by decreasing index) compared bit for bit */
static void compare(int *failed, rc_world *w, double relax, int reversed, int sweeps)
{
    rcm_c3 *c3 = w->c3;
    const int nv = w->nv, nc = c3->n;
    double *V0 = malloc(sizeof(double) * nv), *Vr = malloc(sizeof(double) * nv), *Vp = malloc(sizeof(double) * nv);
    double *p0 = malloc(sizeof(double) * 3 * nc), *pr = malloc(sizeof(double) * 3 * nc);
    int *order = malloc(sizeof(int) * nc), n = 0;
    for (int i = 0; i < nc; i++)
        if (c3->c[i].active) order[n++] = i;
    if (reversed)
        for (int k = 0; k < n / 2; k++) { const int t = order[k]; order[k] = order[n - 1 - k]; order[n - 1 - k] = t; }
    for (int j = 0; j < nv; j++) V0[j] = w->v[j] + 0.3 * sin(1.0 + j);   /* away from the step's solution */
    for (int i = 0; i < nc; i++) memcpy(p0 + 3 * i, c3->c[i].p, 3 * sizeof(double));
    const double relax0 = w->sim.solver.relax;
    w->sim.solver.relax = relax;
    CHECK(rcn_nsgs3_pack_usable(w, order, n));
    /* the records */
    memcpy(Vr, V0, sizeof(double) * nv);
    double est_r = 0.0, est_p = 0.0;
    for (int s = 0; s < sweeps; s++) record_sweep(w, order, n, Vr, &est_r);
    double res_r = 0.0;
    CHECK_OK(rcn_nsgs3_residual(w, Vr, &res_r));
    const int worst_r = c3->worst1;
    const double worst_res_r = c3->worst_res;
    for (int i = 0; i < nc; i++) { memcpy(pr + 3 * i, c3->c[i].p, 3 * sizeof(double)); memcpy(c3->c[i].p, p0 + 3 * i, 3 * sizeof(double)); }
    /* the pack */
    memcpy(Vp, V0, sizeof(double) * nv);
    rcn_c3hot *h = NULL;
    CHECK_OK(rcn_nsgs3_pack(w, order, n, &h));
    for (int s = 0; s < sweeps && h; s++) {
        double e = 0.0;
        rcn_nsgs3_pack_sweep(w, h, 0, n, Vp, &e);
        est_p += e;
    }
    int *slot = NULL;
    if (reversed) {
        slot = malloc(sizeof(int) * nc);
        for (int i = 0; i < nc; i++) slot[i] = -1;
        for (int k = 0; k < n; k++) slot[order[k]] = k;
    }
    const double res_p = h ? sqrt(rcn_nsgs3_pack_residual(w, h, n, slot, Vp, NULL, 0.0)) : -1.0;
    CHECK(c3->worst1 == worst_r && c3->worst_res == worst_res_r);
    if (h) rcn_nsgs3_unpack(w, h, n);
    int same_p = 1, moved = 0;
    for (int i = 0; i < nc; i++)
        for (int r = 0; r < 3; r++) {
            same_p &= c3->c[i].p[r] == pr[3 * i + r];
            moved |= pr[3 * i + r] != p0[3 * i + r];
        }
    printf("  relax %g, %s order: %d active of %d contacts, %d sweeps, residual %.17g\n", relax,
           reversed ? "reversed" : "index", n, nc, sweeps, res_r);
    CHECK(n >= 10);
    CHECK(moved);
    CHECK(same_p);
    CHECK(memcmp(Vr, Vp, sizeof(double) * nv) == 0);
    CHECK(res_p == res_r);
    CHECK(est_p == est_r);
    w->sim.solver.relax = relax0;
    for (int i = 0; i < nc; i++) memcpy(c3->c[i].p, p0 + 3 * i, 3 * sizeof(double));
    free(slot); free(order); free(pr); free(p0); free(Vp); free(Vr); free(V0);
}

RC_TEST(packed_sweeps_are_the_records_sweeps)
{
    rc_world *w = pile();
    CHECK(w != NULL);
    if (!w) return;
    compare(failed, w, 1.0, 0, 5);
    compare(failed, w, 1.0, 1, 5);
    compare(failed, w, 1.4, 0, 3);
    rc_world_destroy(w);
}

/* The pile stepped 60 more steps with every active contact packed, with the
 * first 7 of the order packed and the rest on their records, and with none
 * packed (the records' path): the same positions and velocities bit for
 * bit, by index, top first (a residual pass through the slot map) and with
 * quiet contacts skipped (skip_quiet = 2). */
static void run_with_budget(rc_world *w, size_t bytes, rc_order order, double skip, double *q, double *v)
{
    const size_t keep = rcn_nsgs3_pack_bytes;
    rcn_nsgs3_pack_bytes = bytes;
    w->sim.solver.order = order;
    w->sim.solver.skip_quiet = skip;
    for (int k = 0; k < 60; k++) must(rc_world_step(w));
    memcpy(q, w->q, sizeof(double) * w->nq);
    memcpy(v, w->v, sizeof(double) * w->nv);
    rcn_nsgs3_pack_bytes = keep;
}

RC_TEST(pack_budget_does_not_change_the_steps)
{
    const rc_order orders[3] = { RC_ORDER_FIXED, RC_ORDER_TOP, RC_ORDER_FIXED };
    long solves[3][3] = { { 0 } };
    for (int o = 0; o < 3; o++) {
        const double skip = o == 2 ? 2.0 : 0.0;   /* quiet contacts skipped (nsgs3.c hot_sweep_quiet) */
        double *q[3] = { NULL }, *v[3] = { NULL };
        const size_t budgets[3] = { (size_t)1 << 20, 7 * rcn_nsgs3_pack_record_size(), 0 };
        int nq = 0, nv = 0;
        for (int b = 0; b < 3; b++) {
            rc_world *w = pile();
            CHECK(w != NULL);
            if (!w) return;
            nq = w->nq; nv = w->nv;
            q[b] = malloc(sizeof(double) * nq);
            v[b] = malloc(sizeof(double) * nv);
            CHECK(w->c3->nactive > 7);
            const long s0 = w->stats.local_solves;
            run_with_budget(w, budgets[b], orders[o], skip, q[b], v[b]);
            solves[o][b] = w->stats.local_solves - s0;
            rc_world_destroy(w);
        }
        for (int b = 1; b < 3; b++) {
            CHECK(memcmp(q[0], q[b], sizeof(double) * nq) == 0);
            CHECK(memcmp(v[0], v[b], sizeof(double) * nv) == 0);
        }
        for (int b = 0; b < 3; b++) { free(q[b]); free(v[b]); }
        CHECK(solves[o][1] == solves[o][0] && solves[o][2] == solves[o][0]);
    }
    printf("  one-contact solves over the 60 steps: %ld by index, %ld with quiet contacts skipped\n", solves[0][0],
           solves[2][0]);
    CHECK(solves[2][0] < solves[0][0]);   /* the quiet path skipped some */
}

RC_TEST_MAIN(T(packed_sweeps_are_the_records_sweeps), T(pack_budget_does_not_change_the_steps))
