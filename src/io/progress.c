/* progress.c -- the progress of a run (rc_world_progress_*): steps, rate,
 * ETA, steps whose solver stopped at its sweep cap, residuals. A part of the
 * world (RC_PART_PROGRESS) that updates its figures after every step and
 * reports them to the host's function every interval of wall clock; the
 * ricochet program draws them as a line on a terminal (lua/ricochet/
 * progress.lua), run.json and the run summary carry the unconverged count.
 * Nothing here allocates inside a step: the state is made when a function or
 * a run is set.
 */
#include "io/io.h"

#include <math.h>
#include <string.h>

typedef struct rc_progress_state {
    rc_progress p;
    rc_progress_fn fn;
    void *user;
    double interval, start, last;   /* wall clock (s) */
    double t0;                      /* time at the run's start */
    int running, due;
} rc_progress_state;

static void progress_free(rc_world *w)
{
    rcb_free(w->progress);
    w->progress = NULL;
}

static size_t progress_memory(const rc_world *w)
{
    return w->progress ? sizeof *w->progress : 0;
}

static void refresh_rate(rc_progress_state *ps, double now)
{
    rc_progress *p = &ps->p;
    p->wall_s = now - ps->start;
    p->steps_per_s = p->wall_s > 0.0 && p->steps > 0 ? (double)p->steps / p->wall_s : 0.0;
    const long left = p->steps_total - p->steps;
    p->eta_s = p->steps_per_s > 0.0 ? (left > 0 ? (double)left / p->steps_per_s : 0.0) : -1.0;
}

static rc_status progress_after_step(rc_world *w)
{
    rc_progress_state *ps = w->progress;
    if (!ps || !ps->running) return RC_OK;
    rc_progress *p = &ps->p;
    const rc_step_info *in = &w->info;
    p->t = w->t;
    p->step = w->step;
    p->steps++;
    p->residual = in->residual;
    if (!in->converged) p->capped++;
    if (p->steps == 1 || in->residual > p->max_residual) {
        p->max_residual = in->residual;
        p->t_max_residual = w->t;
    }
    const double now = rcb_now_s();
    if (now - ps->last < ps->interval) return RC_OK;
    ps->last = now;
    refresh_rate(ps, now);
    ps->due = 1;
    if (ps->fn) ps->fn(ps->user, p);
    return RC_OK;
}

static const rc_part progress_part = { progress_free, progress_memory, progress_after_step };

static rc_status progress_state(rc_world *w, rc_progress_state **out)
{
    if (!w->progress) {
        rc_progress_state *ps = rcb_malloc(sizeof *ps);
        if (!ps) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(ps, 0, sizeof *ps);
        ps->interval = 0.25;
        ps->p.t_max_residual = NAN;
        ps->p.eta_s = -1.0;
        w->progress = ps;
        rcm_world_attach_part(w, RC_PART_PROGRESS, &progress_part);
    }
    *out = w->progress;
    return RC_OK;
}

rc_status rc_world_set_progress_fn(rc_world *w, rc_progress_fn fn, void *user, double interval_s)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_set_progress_fn: world is NULL");
    if (!(interval_s >= 0.0) || !rcb_finite(interval_s))
        return rc_set_error(RC_ERR_ARG, "rc_world_set_progress_fn: 'interval_s' must be finite and >= 0 (got %g)", interval_s);
    rc_progress_state *ps = NULL;
    RC_CHECK(progress_state(w, &ps));
    ps->fn = fn;
    ps->user = fn ? user : NULL;
    ps->interval = interval_s;
    return RC_OK;
}

rc_status rc_world_progress_begin(rc_world *w, double T)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_progress_begin: world is NULL");
    if (!w->configured) return rc_set_error(RC_ERR_STATE, "rc_world_progress_begin: call rc_world_configure first");
    if (!rcb_finite(T)) return rc_set_error(RC_ERR_ARG, "rc_world_progress_begin: 'T' must be finite (got %g)", T);
    rc_progress_state *ps = NULL;
    RC_CHECK(progress_state(w, &ps));
    memset(&ps->p, 0, sizeof ps->p);
    rc_progress *p = &ps->p;
    p->t = ps->t0 = w->t;
    p->t_end = T;
    p->step = w->step;
    const double n = floor((T - w->t) / w->sim.h + 0.5);   /* as the run loops count them */
    p->steps_total = n > 0.0 ? (long)n : 0;
    p->t_max_residual = NAN;
    p->eta_s = -1.0;
    ps->start = ps->last = rcb_now_s();
    ps->running = 1;
    ps->due = 0;
    w->unconverged_warned = 0;
    return RC_OK;
}

rc_status rc_world_progress_end(rc_world *w)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_progress_end: world is NULL");
    rc_progress_state *ps = w->progress;
    if (!ps || !ps->running) return RC_OK;
    rc_progress *p = &ps->p;
    ps->running = 0;
    refresh_rate(ps, rcb_now_s());
    p->final = 1;
    ps->due = 1;
    if (ps->fn) ps->fn(ps->user, p);
    if (p->capped > 0)
        rcm_world_warn(w, "%ld of %ld steps hit the sweep cap (residual > tol %.3g after at most %d sweeps); "
                          "largest residual %.3e at t = %.10g", p->capped, p->steps, w->sim.solver.tol,
                       w->sim.solver.max_iter, p->max_residual, p->t_max_residual);
    return RC_OK;
}

rc_status rc_world_progress_get(rc_world *w, rc_progress *p, int *due)
{
    if (!w || !p) return rc_set_error(RC_ERR_ARG, "rc_world_progress_get: %s is NULL", w ? "p" : "world");
    if (due) *due = 0;
    if (!w->progress) {
        memset(p, 0, sizeof *p);
        p->t = p->t_end = w->t;
        p->step = w->step;
        p->t_max_residual = NAN;
        p->eta_s = -1.0;
        return RC_OK;
    }
    rc_progress_state *ps = w->progress;
    if (ps->running) refresh_rate(ps, rcb_now_s());
    *p = ps->p;
    if (due) { *due = ps->due; ps->due = 0; }
    return RC_OK;
}
