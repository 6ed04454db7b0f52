/* test_sleep.c -- sleeping (src/model/sleep.c, src/integrate/sleep.c): two
 * piles of disks in two bins (a ground wall between them: two islands) go to
 * sleep once at rest; then a step detects nothing between sleeping bodies,
 * solves no contact, moves no sleeping body and allocates nothing; a ball
 * dropped onto the left pile wakes exactly the left island, at the step its
 * first contact with the pile enters the index set; the energy balance
 * closes with E_sleep; determinism; edits wake; bad settings. */
#include "rc_test.h"

enum { COLS = 8, ROWS = 12, NPILE = 2 * COLS * ROWS, MAXB = NPILE + 1 };

static void quiet(void *user, const char *message) { (void)user; (void)message; }

/* Two bins [0, 1] and [1, 2] (floor, outer walls, a wall at x = 1), each
 * with COLS x ROWS disks of radius 0.05 (+- 10 %) on a loose lattice. */
static rc_world *piles(double h)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    wd.default_mu = 0.5;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_world_set_warning_fn(w, quiet, NULL);
    rc_shape_def f = rc_default_shape_def();
    f.type = RC_SHAPE_HALFPLANE;
    const double walls[4][4] = { { 0, 0, 0, 1 }, { 0, 0, 1, 0 }, { 2, 0, -1, 0 } };
    for (int k = 0; k < 3; k++) {
        f.point[0] = walls[k][0]; f.point[1] = walls[k][1];
        f.normal[0] = walls[k][2]; f.normal[1] = walls[k][3];
        if (rc_shape_create(w, RC_GROUND, &f, NULL) != RC_OK) goto fail;
    }
    rc_shape_def s = rc_default_shape_def();
    s.type = RC_SHAPE_SEGMENT;
    s.a[0] = 1.0; s.a[1] = 0.0; s.b[0] = 1.0; s.b[1] = 3.0; s.radius = 0.01;
    if (rc_shape_create(w, RC_GROUND, &s, NULL) != RC_OK) goto fail;
    unsigned seed = 12345u;
    for (int bin = 0; bin < 2; bin++)
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++) {
                seed = seed * 1103515245u + 12345u;
                const double r = 0.05 * (0.9 + 0.2 * (double)(seed >> 16 & 1023) / 1023.0);
                rc_body_def bd = rc_default_body_def();
                bd.mass = 3.14159 * r * r * 1000.0;
                bd.inertia = 0.5 * bd.mass * r * r;
                bd.q[0] = bin + 0.07 + 0.12 * j + (i % 2) * 0.02;
                bd.q[1] = 0.07 + 0.12 * i;
                int b;
                rc_shape_def d = rc_default_shape_def();
                d.type = RC_SHAPE_DISK; d.radius = r;
                if (rc_body_create(w, &bd, &b) != RC_OK || rc_shape_create(w, b, &d, NULL) != RC_OK) goto fail;
            }
    rc_sim_def sd = rc_default_sim_def();
    sd.h = h;
    sd.solver.max_iter = 200;   /* (a few steps of the fall stop short of tol: not the subject) */
    sd.solver.tol = 1e-8;
    if (rc_world_configure(w, &sd) != RC_OK) goto fail;
    rc_sleep_def sl = rc_default_sleep_def();
    sl.enabled = 1;
    if (rc_world_set_sleep(w, &sl) != RC_OK) goto fail;
    return w;
fail:
    fprintf(stderr, "setup: %s\n", rc_last_error());
    rc_world_destroy(w);
    return NULL;
}

/* Steps until every body sleeps (at most nmax); returns the steps taken or -1. */
static long settle(int *failed, rc_world *w, long nmax, double *max_balance)
{
    for (long k = 0; k < nmax; k++) {
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        if (fabs(in.balance) > *max_balance) *max_balance = fabs(in.balance);
        rc_sleep_info si;
        rc_world_sleep_info(w, &si);
        if (si.awake == 0) return k + 1;
    }
    return -1;
}

RC_TEST(resting_piles_sleep_and_cost_nothing)
{
    rc_world *w = piles(2e-3);
    CHECK(w != NULL);
    if (!w) return;
    double maxbal = 0.0;
    const long n = settle(failed, w, 4000, &maxbal);
    printf("  piles asleep after %ld steps (t = %.3f s), max |balance| %.3e\n", n, rc_world_time(w), maxbal);
    CHECK(n > 250);   /* not before the 0.5 s of rest */
    rc_step_info in;
    rc_world_step_info(w, &in);
    CHECK(in.E_sleep_total > 0.0);
    CHECK(maxbal < 1e-9);
    rc_sleep_info si;
    rc_world_sleep_info(w, &si);
    CHECK(si.sleeping == NPILE && si.awake == 0 && si.enabled);
    /* E_sleep < 1/2 (m v^2 + J w^2) below the thresholds, summed */
    CHECK(in.E_sleep_total < NPILE * 0.5 * (3.14159 * 0.055 * 0.055 * 1000.0) * (0.01 * 0.01 + 0.5 * 0.055 * 0.055 * 0.05 * 0.05));
    double q0[MAXB][3];
    for (int b = 0; b < NPILE; b++) rc_body_get_state(w, b, q0[b], NULL);
    const int ncont = rc_contact_count(w);
    rc_run_stats st0, st1;
    rc_world_run_stats(w, &st0);
    const long a0 = rc_alloc_count();
    for (int k = 0; k < 200; k++) {
        CHECK_OK(rc_world_step(w));
        rc_world_step_info(w, &in);
        rc_world_sleep_info(w, &si);
        CHECK(in.nactive == 0 && in.iterations == 0);
        CHECK(si.pairs == 0);                      /* nothing detected */
        CHECK(si.kept_contacts == ncont && in.ncontacts == ncont);   /* the contacts kept */
        CHECK(in.E_kin == 0.0);
    }
    CHECK(rc_alloc_count() == (uint64_t)a0);
    rc_world_run_stats(w, &st1);
    CHECK(st1.local_solves == st0.local_solves);
    for (int b = 0; b < NPILE; b++) {
        double q[3], v[3];
        rc_body_get_state(w, b, q, v);
        CHECK(memcmp(q, q0[b], sizeof q) == 0);
        CHECK(v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0);
        CHECK(rc_body_is_sleeping(w, b));
    }
    /* an edit wakes the island of the body edited: the left bin only */
    double q[3], v[3] = { 0.0, 0.0, 0.0 };
    rc_body_get_state(w, 0, q, NULL);
    CHECK_OK(rc_body_set_state(w, 0, q, v));
    int left = 0, right = 0;
    for (int b = 0; b < NPILE; b++) {
        if (b < NPILE / 2) left += !rc_body_is_sleeping(w, b);
        else right += !rc_body_is_sleeping(w, b);
    }
    CHECK(left == NPILE / 2 && right == 0);
    CHECK_OK(rc_body_wake(w, NPILE - 1));
    CHECK(!rc_body_is_sleeping(w, NPILE / 2));
    CHECK_OK(rc_world_step(w));
    rc_world_sleep_info(w, &si);
    CHECK(si.pairs > 0);
    rc_world_destroy(w);
}

typedef struct wake_log {
    long first_active;       /* step whose contact of the ball was first active */
    long woke_at;            /* step at whose end the left pile was awake again */
    int woke_left, woke_right;
    double q[MAXB][3];
} wake_log;

/* Piles asleep, then a ball dropped at x = 0.5 onto the left pile. */
static void ball_on_pile(int *failed, wake_log *L)
{
    memset(L, 0, sizeof *L);
    L->first_active = L->woke_at = -1;
    rc_world *w = piles(2e-3);
    CHECK(w != NULL);
    if (!w) return;
    double maxbal = 0.0;
    CHECK(settle(failed, w, 4000, &maxbal) > 0);
    rc_body_def bd = rc_default_body_def();
    bd.mass = 20.0; bd.inertia = 0.1; bd.q[0] = 0.5; bd.q[1] = 2.0;
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_DISK; d.radius = 0.1;
    int ball;
    CHECK_OK(rc_body_create(w, &bd, &ball));
    CHECK_OK(rc_shape_create(w, ball, &d, NULL));
    for (int k = 0; k < 1000 && L->woke_at < 0; k++) {
        CHECK_OK(rc_world_step(w));
        int active = 0;
        for (int i = 0; i < rc_contact_count(w); i++) {
            rc_contact_info ci;
            rc_contact_get(w, i, &ci);
            if ((ci.body_b == ball || ci.body_a == ball) && ci.active) active = 1;
        }
        if (active && L->first_active < 0) L->first_active = rc_world_step_count(w);
        int left = 0, right = 0;
        for (int b = 0; b < NPILE; b++) {
            if (b < NPILE / 2) left += !rc_body_is_sleeping(w, b);
            else right += !rc_body_is_sleeping(w, b);
        }
        if (left || right) {
            L->woke_at = rc_world_step_count(w);
            L->woke_left = left;
            L->woke_right = right;
            rc_sleep_info si;
            rc_world_sleep_info(w, &si);
            CHECK(si.woke == NPILE / 2);
        }
    }
    for (int b = 0; b < MAXB; b++) rc_body_get_state(w, b, L->q[b], NULL);
    rc_world_destroy(w);
}

RC_TEST(ball_wakes_exactly_its_island_when_its_contact_is_active)
{
    wake_log L1, L2;
    ball_on_pile(failed, &L1);
    printf("  ball's first active contact at step %ld, left pile awake at step %ld (%d left, %d right)\n",
           L1.first_active, L1.woke_at, L1.woke_left, L1.woke_right);
    CHECK(L1.first_active > 0);
    CHECK(L1.woke_at == L1.first_active);
    CHECK(L1.woke_left == NPILE / 2 && L1.woke_right == 0);
    ball_on_pile(failed, &L2);   /* the same run again: bit for bit */
    CHECK(L2.first_active == L1.first_active && L2.woke_at == L1.woke_at);
    CHECK(memcmp(L1.q, L2.q, sizeof L1.q) == 0);
}

/* A free body drifting below the thresholds (no gravity): it sleeps after
 * `time`, at the end of the step its timer reaches it, and its kinetic
 * energy 1/2 (m v^2 + J w^2) is E_sleep: the balance closes with it. */
RC_TEST(drifting_body_sleeps_with_its_energy_booked)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    rc_body_def bd = rc_default_body_def();
    bd.mass = 2.0; bd.inertia = 0.5;
    bd.v[0] = 0.006; bd.v[1] = -0.008; bd.v[2] = 0.04;
    int b;
    CHECK_OK(rc_body_create(w, &bd, &b));
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 0.01;
    CHECK_OK(rc_world_configure(w, &sd));
    rc_sleep_def sl = rc_default_sleep_def();
    sl.enabled = 1;
    CHECK_OK(rc_world_set_sleep(w, &sl));
    long asleep_at = -1;
    rc_step_info in;
    for (int k = 0; k < 100 && asleep_at < 0; k++) {
        CHECK_OK(rc_world_step(w));
        rc_world_step_info(w, &in);
        if (rc_body_is_sleeping(w, b)) asleep_at = in.step;
        else CHECK(in.E_sleep == 0.0);
    }
    CHECK(asleep_at == 50);   /* timer 50 h = 0.5 s */
    const double E = 0.5 * (2.0 * (0.006 * 0.006 + 0.008 * 0.008) + 0.5 * 0.04 * 0.04);
    CHECK_NEAR(in.E_sleep, E, 1e-16);
    CHECK(in.E_kin == 0.0);
    CHECK_NEAR(in.balance, 0.0, 1e-16);   /* without E_sleep: -E = -2e-4 */
    CHECK(in.E_sleep_total == in.E_sleep);
    double q[3], v[3], q1[3];
    rc_body_get_state(w, b, q, v);
    CHECK(v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0);
    CHECK_OK(rc_world_step(w));
    rc_body_get_state(w, b, q1, NULL);
    CHECK(memcmp(q, q1, sizeof q) == 0);
    /* faster than a threshold: never */
    rc_world_destroy(w);
    CHECK_OK(rc_world_create(&wd, &w));
    bd.v[0] = 0.011;
    CHECK_OK(rc_body_create(w, &bd, &b));
    CHECK_OK(rc_world_configure(w, &sd));
    CHECK_OK(rc_world_set_sleep(w, &sl));
    for (int k = 0; k < 100; k++) CHECK_OK(rc_world_step(w));
    CHECK(!rc_body_is_sleeping(w, b));
    rc_world_destroy(w);
}

RC_TEST(settings_and_errors)
{
    rc_sleep_def d = rc_default_sleep_def();
    CHECK(d.enabled == 0 && d.linear == 0.01 && d.angular == 0.05 && d.time == 0.5);
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    rc_sleep_def bad = d;
    bad.linear = -1.0;
    CHECK(rc_world_set_sleep(w, &bad) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "sleep: 'linear' must be a finite number > 0 (got -1)") == 0);
    bad = d; bad.angular = NAN;
    CHECK(rc_world_set_sleep(w, &bad) == RC_ERR_ARG);
    bad = d; bad.time = -0.5;
    CHECK(rc_world_set_sleep(w, &bad) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "sleep: 'time' must be a finite number >= 0 (got -0.5)") == 0);
    rc_sleep_info si;
    CHECK_OK(rc_world_sleep_info(w, &si));
    CHECK(si.enabled == 0 && si.sleeping == 0);
    CHECK(rc_body_wake(w, 3) == RC_ERR_NOT_FOUND);
    CHECK(rc_body_is_sleeping(w, 3) == 0);
    d.enabled = 1; d.time = 0.25;
    CHECK_OK(rc_world_set_sleep(w, &d));
    rc_sleep_def g;
    CHECK_OK(rc_world_get_sleep(w, &g));
    CHECK(g.enabled == 1 && g.time == 0.25);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(resting_piles_sleep_and_cost_nothing), T(ball_wakes_exactly_its_island_when_its_contact_is_active),
             T(drifting_body_sleeps_with_its_energy_booked),
             T(settings_and_errors))
