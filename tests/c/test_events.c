/* test_events.c -- contact events (src/integrate/events.c): a ball dropped on
 * the floor gives one begin at its first contact step with an impact of
 * impulse m (1 + e) |v| (+ the step's weight m g h), an end when it bounces
 * off, nothing while it rests; the threshold; determinism; no allocation
 * once the sizes have settled; bad calls. */
#include "rc_test.h"

enum { MAXSTEPS = 4000 };

/* A ball (m = 2, r = 0.5) falling from rest at height y0 + 0.5 onto a
 * half-plane, Newton's law with restitution e. */
static rc_world *drop(double e, double y0, double threshold)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    wd.default_e = e;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_shape_def f = rc_default_shape_def();
    f.type = RC_SHAPE_HALFPLANE; f.normal[0] = 0; f.normal[1] = 1;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 2.0; bd.inertia = 0.25; bd.q[1] = 0.5 + y0;
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_DISK; d.radius = 0.5;
    int b;
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    if (rc_shape_create(w, RC_GROUND, &f, NULL) != RC_OK || rc_body_create(w, &bd, &b) != RC_OK
        || rc_shape_create(w, b, &d, NULL) != RC_OK || rc_world_configure(w, &sd) != RC_OK
        || rc_world_track_events(w, 1, threshold) != RC_OK) {
        fprintf(stderr, "setup: %s\n", rc_last_error());
        rc_world_destroy(w);
        return NULL;
    }
    return w;
}

typedef struct evlog {
    long step[3][64];
    double pN[3][64], vpre[3][64];
    int n[3];
} evlog;

/* Step n times, logging the events of each step (and the ball's vertical
 * velocity before the step). */
static void run(int *failed, rc_world *w, int nsteps, evlog *L)
{
    memset(L, 0, sizeof *L);
    for (int s = 0; s < nsteps; s++) {
        double q[3], v[3];
        CHECK_OK(rc_body_get_state(w, 0, q, v));
        CHECK_OK(rc_world_step(w));
        for (int k = 0; k < 3; k++) {
            const rc_contact_info *l;
            int n;
            CHECK_OK(rc_world_events(w, (rc_event_kind)(k + 1), &l, &n));
            for (int i = 0; i < n && L->n[k] < 64; i++) {
                L->step[k][L->n[k]] = rc_world_step_count(w);
                L->pN[k][L->n[k]] = l[i].pN;
                L->vpre[k][L->n[k]] = v[1];
                CHECK(l[i].body_a == RC_GROUND && l[i].body_b == 0 && l[i].shape_a == 0 && l[i].shape_b == 1);
                CHECK(l[i].normal[0] == 0.0 && l[i].normal[1] == 1.0);
                L->n[k]++;
            }
        }
    }
}

RC_TEST(bouncing_ball_begin_impact_end)
{
    const double m = 2.0, g = 10.0, h = 1e-3, e = 0.5;
    rc_world *w = drop(e, 0.2, 1.0);
    CHECK(w != NULL);
    if (!w) return;
    evlog L;
    run(failed, w, 1000, &L);
    /* bounces from 0.2: v = 2, then 1, 0.5, ... : several, each a begin
     * with its impact and an end the next step, alternating */
    CHECK(L.n[0] >= 3);
    CHECK(L.n[1] == L.n[0] || L.n[1] == L.n[0] - 1);
    for (int i = 0; i < L.n[0]; i++) {
        if (i < L.n[1]) CHECK(L.step[0][i] < L.step[1][i]);
        if (i + 1 < L.n[0] && i < L.n[1]) CHECK(L.step[1][i] < L.step[0][i + 1]);
    }
    /* the first contact: free fall from 0.2 reaches the floor at t = 0.2 s */
    CHECK(labs(L.step[0][0] - 200) <= 2);
    /* impacts above 1 N s: those of the begin steps, p_N = m (1 + e)|v_k| + m g h */
    int nbig = 0;
    for (int i = 0; i < L.n[0]; i++) {
        double want = m * (1 + e) * fabs(L.vpre[0][i]);
        if (want + m * g * h <= 1.0) continue;
        CHECK(nbig < L.n[2] && L.step[2][nbig] == L.step[0][i]);
        if (nbig < L.n[2]) CHECK_NEAR(L.pN[2][nbig], want + m * g * h, 1e-9 * want);
        CHECK_NEAR(L.pN[0][i], want + m * g * h, 1e-9 * want);   /* the begin event carries it too */
        nbig++;
    }
    printf("  %d begins (first at step %ld, v = %.6f, p_N = %.9f), %d ends, %d impacts > 1 N s\n", L.n[0],
           L.step[0][0], L.vpre[0][0], L.pN[0][0], L.n[1], L.n[2]);
    CHECK(nbig >= 2 && nbig == L.n[2]);
    CHECK(fabs(L.vpre[0][0] + 2.0) < 0.02);   /* v = -sqrt(2 g 0.2) = -2 */
    rc_world_destroy(w);
}

RC_TEST(resting_ball_gives_no_events)
{
    rc_world *w = drop(0.0, 0.05, 0.0);
    CHECK(w != NULL);
    if (!w) return;
    evlog L;
    run(failed, w, 2000, &L);
    CHECK(L.n[0] == 1 && L.n[1] == 0);          /* one begin, no end: it stays */
    CHECK(labs(L.step[0][0] - 100) <= 2);       /* from 0.05: t = 0.1 s */
    /* threshold 0: every step of contact is an impact (the weight m g h each step) */
    CHECK(L.n[2] == 64);
    CHECK_NEAR(L.pN[2][63], 2.0 * 10.0 * 1e-3, 1e-12);
    /* raise the threshold above the weight's impulse: no more impacts */
    CHECK_OK(rc_world_track_events(w, 1, 0.021));
    run(failed, w, 500, &L);
    CHECK(L.n[0] == 0 && L.n[1] == 0 && L.n[2] == 0);
    CHECK_OK(rc_world_track_events(w, 1, 0.019));
    run(failed, w, 10, &L);
    CHECK(L.n[2] == 10);
    rc_world_destroy(w);
}

/* A pile of balls: the same events, in the same order, twice; no allocation
 * once the sizes settled; lists sorted by contact key (shape pair). */
RC_TEST(pile_events_deterministic_no_allocation)
{
    uint64_t sig[2] = { 0, 0 };
    for (int run_ = 0; run_ < 2; run_++) {
        rc_world_def wd = rc_default_world_def();
        wd.gravity[1] = -10.0;
        wd.default_e = 0.3; wd.default_mu = 0.4;
        rc_world *w = NULL;
        CHECK_OK(rc_world_create(&wd, &w));
        rc_shape_def f = rc_default_shape_def();
        f.type = RC_SHAPE_HALFPLANE; f.normal[1] = 1; f.normal[0] = 0;
        CHECK_OK(rc_shape_create(w, RC_GROUND, &f, NULL));
        for (int i = 0; i < 60; i++) {
            rc_body_def bd = rc_default_body_def();
            bd.q[0] = (i % 10) * 1.02 + 0.01 * (i / 10); bd.q[1] = 0.6 + (i / 10) * 1.05;
            int b;
            CHECK_OK(rc_body_create(w, &bd, &b));
            rc_shape_def d = rc_default_shape_def();
            d.type = RC_SHAPE_DISK; d.radius = 0.5;
            CHECK_OK(rc_shape_create(w, b, &d, NULL));
        }
        rc_sim_def sd = rc_default_sim_def();
        CHECK_OK(rc_world_configure(w, &sd));
        CHECK_OK(rc_world_track_events(w, 1, 0.05));
        uint64_t a0 = 0, s = 1469598103934665603ULL;
        long total = 0;
        for (int k = 0; k < 1500; k++) {
            if (k == 1000) a0 = rc_alloc_count();
            CHECK_OK(rc_world_step(w));
            for (int kind = 1; kind <= 3; kind++) {
                const rc_contact_info *l;
                int n;
                CHECK_OK(rc_world_events(w, (rc_event_kind)kind, &l, &n));
                for (int i = 0; i < n; i++) {
                    if (i > 0) CHECK(l[i - 1].shape_a < l[i].shape_a
                                     || (l[i - 1].shape_a == l[i].shape_a && l[i - 1].shape_b <= l[i].shape_b));
                    uint64_t x;
                    memcpy(&x, &l[i].pN, 8);
                    s = (s ^ (uint64_t)(kind * 131 + l[i].id) ^ x) * 1099511628211ULL;
                    total++;
                }
            }
        }
        CHECK(rc_alloc_count() == a0);   /* steps 1000..1500 */
        CHECK(total > 100);
        sig[run_] = s;
        rc_world_destroy(w);
    }
    CHECK(sig[0] == sig[1]);
}

RC_TEST(event_errors)
{
    rc_world *w = drop(0.5, 0.2, 1.0);
    CHECK(w != NULL);
    if (!w) return;
    const rc_contact_info *l;
    int n;
    CHECK(rc_world_track_events(w, 1, -1.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_world_track_events: 'impact_threshold' must be >= 0 (got -1)") == 0);
    CHECK(rc_world_track_events(w, 1, NAN) == RC_ERR_ARG);
    CHECK(rc_world_track_events(w, 2, 0.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_world_track_events: 'on' must be 0 or 1 (got 2)") == 0);
    CHECK(rc_world_events(w, (rc_event_kind)7, &l, &n) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_world_events: unknown kind 7") == 0);
    CHECK_OK(rc_world_track_events(w, 0, 0.0));
    CHECK(rc_world_events(w, RC_EVENT_BEGIN, &l, &n) == RC_ERR_STATE);
    CHECK(strcmp(rc_last_error(), "rc_world_events: events are not tracked (call rc_world_track_events first)") == 0);
    CHECK_OK(rc_world_step(w));    /* untracked: steps as before */
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(bouncing_ball_begin_impact_end), T(resting_ball_gives_no_events),
             T(pile_events_deterministic_no_allocation), T(event_errors))
