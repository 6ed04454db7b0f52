/* test_progress.c -- the progress of a run (rc_world_progress_*, src/io/progress.c)
 * and the warnings of unconverged steps (the first RC_UNCONVERGED_DETAILS in
 * detail, then one count at the end). */
#include "rc_test.h"

#define H 1e-3
#define NSTEPS 40

typedef struct seen {
    int calls, finals, ordered;
    long last_steps, last_capped;
    double last_t, t_err;
    rc_progress final;
} seen;

static void on_progress(void *user, const rc_progress *p)
{
    seen *s = user;
    s->calls++;
    if (p->final) { s->finals++; s->final = *p; return; }
    if (p->steps != s->last_steps + 1 || p->capped < s->last_capped) s->ordered = 0;
    /* t = t0 + k h (the kernel's time, no accumulated sum) */
    double e = fabs(p->t - (double)p->steps * H);
    if (e > s->t_err) s->t_err = e;
    s->last_steps = p->steps;
    s->last_capped = p->capped;
    s->last_t = p->t;
}

typedef struct warns { int n; char msg[8][1024]; } warns;

static void on_warning(void *user, const char *m)
{
    warns *w = user;
    if (w->n < 8) snprintf(w->msg[w->n], sizeof w->msg[0], "%s", m);
    w->n++;
}

/* Three unit boxes stacked on a half-plane; max_iter sweeps of NSGS. */
static rc_world *stack(int *failed, int max_iter)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return NULL;
    rc_shape_def gd = rc_default_shape_def();
    gd.type = RC_SHAPE_HALFPLANE;
    gd.normal[1] = 1.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &gd, NULL));
    for (int i = 0; i < 3; i++) {
        rc_body_def bd = rc_default_body_def();
        bd.mass = 1.0;
        bd.inertia = 1.0 / 6.0;
        bd.q[1] = 0.5 + i;
        int b;
        CHECK_OK(rc_body_create(w, &bd, &b));
        rc_shape_def sd = rc_default_shape_def();
        sd.type = RC_SHAPE_POLYGON;
        sd.nvert = 4;
        const double v[4][2] = { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } };
        memcpy(sd.vert, v, sizeof v);
        CHECK_OK(rc_shape_create(w, b, &sd, NULL));
    }
    rc_sim_def sim = rc_default_sim_def();
    sim.h = H;
    sim.solver.tol = 1e-14;
    sim.solver.max_iter = max_iter;
    CHECK_OK(rc_world_configure(w, &sim));
    return w;
}

/* a report after every step (interval 0) and a final one: counts, t = k h,
 * the capped steps are the unconverged ones; no allocation in the steps */
RC_TEST(progress_figures)
{
    rc_world *w = stack(failed, 3);
    if (!w) return;
    warns wr = { 0 };
    rc_world_set_warning_fn(w, on_warning, &wr);
    seen s = { .ordered = 1 };
    CHECK_OK(rc_world_set_progress_fn(w, on_progress, &s, 0.0));
    CHECK_OK(rc_world_progress_begin(w, NSTEPS * H));
    for (int k = 0; k < 5; k++) CHECK_OK(rc_world_step(w));
    uint64_t a0 = rc_alloc_count();
    for (int k = 5; k < NSTEPS; k++) CHECK_OK(rc_world_step(w));
    CHECK(rc_alloc_count() == a0);
    CHECK_OK(rc_world_progress_end(w));
    rc_run_stats st;
    CHECK_OK(rc_world_run_stats(w, &st));
    CHECK(s.calls == NSTEPS + 1);
    CHECK(s.finals == 1);
    CHECK(s.ordered);
    CHECK(s.t_err <= 1e-15);
    CHECK(s.final.steps == NSTEPS && s.final.steps_total == NSTEPS && s.final.step == NSTEPS);
    CHECK(s.final.capped == st.failures && st.failures == NSTEPS);   /* 3 sweeps never reach 1e-14 */
    CHECK(s.final.max_residual == st.max_residual);
    CHECK(s.final.t_end == NSTEPS * H);
    CHECK(s.final.eta_s == 0.0);
    /* the warnings: the first five in detail (the fifth says the rest are
     * counted), none for steps 6..40, one count at the end */
    CHECK(wr.n == RC_UNCONVERGED_DETAILS + 1);
    CHECK(strncmp(wr.msg[0], "solver did not converge at t = 0.001 (step 1): residual ", 56) == 0);
    CHECK(strstr(wr.msg[3], "further") == NULL);
    const char *tail = " (further unconverged steps are counted, not reported: see the run's summary)";
    CHECK(strlen(wr.msg[4]) > strlen(tail) && strcmp(wr.msg[4] + strlen(wr.msg[4]) - strlen(tail), tail) == 0);
    char expect[512];
    snprintf(expect, sizeof expect, "40 of 40 steps hit the sweep cap (residual > tol 1e-14 after at most 3 sweeps); "
             "largest residual %.3e at t = %.10g", st.max_residual, s.final.t_max_residual);
    CHECK(strcmp(wr.msg[5], expect) == 0);
    if (strcmp(wr.msg[5], expect) != 0) fprintf(stderr, "  got: %s\n  expected: %s\n", wr.msg[5], expect);
    /* a second run counts again from zero */
    s = (seen){ .ordered = 1, .last_steps = 0 };
    wr.n = 0;
    CHECK_OK(rc_world_progress_begin(w, (NSTEPS + 10) * H));
    for (int k = 0; k < 10; k++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_world_progress_end(w));
    CHECK(s.final.steps == 10 && s.final.steps_total == 10 && s.final.capped == 10);
    CHECK(wr.n == RC_UNCONVERGED_DETAILS + 1);
    rc_world_destroy(w);
}

/* a converged run: no warning, nothing capped; errors of the API */
RC_TEST(progress_converged_and_errors)
{
    rc_world *w = stack(failed, 1000);
    if (!w) return;
    warns wr = { 0 };
    rc_world_set_warning_fn(w, on_warning, &wr);
    rc_progress p;
    int due = 7;
    CHECK_OK(rc_world_progress_get(w, &p, &due));   /* before any run: zeros */
    CHECK(due == 0 && p.steps == 0 && p.capped == 0);
    CHECK(rc_world_set_progress_fn(w, NULL, NULL, -1.0) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_world_set_progress_fn: 'interval_s' must be finite and >= 0 (got -1)") == 0);
    CHECK(rc_world_progress_begin(w, NAN) == RC_ERR_ARG);
    CHECK(rc_world_progress_begin(NULL, 1.0) == RC_ERR_ARG);
    CHECK_OK(rc_world_set_progress_fn(w, NULL, NULL, 0.0));
    CHECK_OK(rc_world_progress_begin(w, 0.01));
    for (int k = 0; k < 10; k++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_world_progress_get(w, &p, &due));
    CHECK(due == 1 && p.steps == 10 && p.capped == 0);
    CHECK_OK(rc_world_progress_get(w, &p, &due));
    CHECK(due == 0);   /* cleared by the last call */
    CHECK_OK(rc_world_progress_end(w));
    CHECK(wr.n == 0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(progress_figures), T(progress_converged_and_errors))
