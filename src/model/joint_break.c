/* joint_break.c -- joints that break (docs/mechanisms.md, "Breaking"): a
 * joint with rc_joint_def.break_force (break_torque) is removed after the
 * step whose reaction exceeded it, and reported (rc_world_broken_joints, and
 * run.json's "broken_joints" through rc_world_break_log).
 *
 * The reaction of a step is the joint's impulse over h, as rc_joint_get
 * gives it (lambda + the velocity projection's mu_v, per row): the force is
 * the norm of its force rows, the torque the absolute value of its torque row
 * -- revolute: rows x, y (force); weld: x, y (force), theta (torque);
 * prismatic: the normal (force), theta (torque); line, distance: one force
 * row; prescribed: coord 0, 1 force, 2 torque. A custom joint's rows have
 * the units of its g: no break limit (refused at creation). Motors' and
 * limits' impulses are not part of it.
 *
 * The joint acted during that step (its impulse is the step's); it is
 * removed when the step has ended, before the next one, as rc_joint_destroy
 * would remove it between steps. The break list has room for every breakable
 * joint (reserved at creation), so a break allocates only the joint's life
 * record and its first RC_BREAK_LOG log entries.
 */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* A limit of 0 (a zeroed rc_joint_def) or INFINITY (the default): none. */
static int limited(double x) { return x > 0.0 && !isinf(x); }
static int breakable(double f, double m) { return limited(f) || limited(m); }

rc_status rcm_joint_break_check(rc_world *w, const rc_joint_def *def, const char *what)
{
    (void)what;   /* the ranges: rc_joint_def_check (joint_def.c) */
    if (!breakable(def->break_force, def->break_torque)) return RC_OK;
    RC_CHECK(rcb_reserve((void **)&w->broken, &w->cap_broken, w->nbreakable + 1, sizeof(rc_joint_break)));
    w->nbreakable++;
    return RC_OK;
}

void rcm_joint_break_free(rc_world *w)
{
    rcb_free(w->broken);
    rcb_free(w->break_log);
    w->broken = w->break_log = NULL;
    w->nbroken = w->cap_broken = w->nbreak_log = w->nbreakable = 0;
    w->nbreak_total = 0;
}

/* Which rows are torques: a bit per row. */
static unsigned torque_rows(const rc_joint *j)
{
    switch (j->def.type) {
    case RC_JOINT_WELD: return 4u;
    case RC_JOINT_PRISMATIC: return 2u;
    case RC_JOINT_PRESCRIBED: return j->def.coord == 2 ? 1u : 0u;
    default: return 0u;
    }
}

/* The step's reaction force and torque (rc_joint_get's impulse / h). */
static void reaction(const rc_world *w, const rc_joint *j, double *force, double *torque)
{
    const unsigned tq = torque_rows(j);
    double f2 = 0.0, m = 0.0;
    for (int r = 0; r < j->rows; r++) {
        const double p = (j->lambda[r] + j->mu_v[r]) / w->sim.h;
        if (tq & (1u << r)) m = fabs(p);
        else f2 += p * p;
    }
    *force = sqrt(f2);
    *torque = m;
}

static rc_status log_break(rc_world *w, const rc_joint_break *b)
{
    w->nbreak_total++;
    if (w->nbreak_log >= RC_BREAK_LOG) return RC_OK;
    if (!w->break_log) {
        w->break_log = rcb_malloc(RC_BREAK_LOG * sizeof(rc_joint_break));
        if (!w->break_log) return rc_set_error(RC_ERR_NOMEM, "out of memory (joint break log)");
    }
    w->break_log[w->nbreak_log++] = *b;
    return RC_OK;
}

rc_status rcm_joints_break(rc_world *w)
{
    w->nbroken = 0;
    if (!w->nbreakable) return RC_OK;
    for (int i = 0; i < w->njoints; i++) {
        rc_joint *j = &w->joints[i];
        if (!j->rows || !breakable(j->def.break_force, j->def.break_torque)) continue;
        double f, m;
        reaction(w, j, &f, &m);
        if (!(limited(j->def.break_force) && f > j->def.break_force)
            && !(limited(j->def.break_torque) && m > j->def.break_torque)) continue;
        rc_joint_break b = { i, j->def.body_a, j->def.body_b, w->t, f, m, j->name };
        RC_CHECK(rcm_joint_remove(w, i));
        w->nbreakable--;
        w->broken[w->nbroken++] = b;
        RC_CHECK(log_break(w, &b));
    }
    return RC_OK;
}

rc_status rc_world_broken_joints(const rc_world *w, const rc_joint_break **list, int *count)
{
    if (!w || !list || !count) return rc_set_error(RC_ERR_ARG, "rc_world_broken_joints: NULL argument");
    *list = w->broken;
    *count = w->nbroken;
    return RC_OK;
}

rc_status rc_world_break_log(const rc_world *w, const rc_joint_break **list, int *count, long *total)
{
    if (!w || !list || !count) return rc_set_error(RC_ERR_ARG, "rc_world_break_log: NULL argument");
    *list = w->break_log;
    *count = w->nbreak_log;
    if (total) *total = w->nbreak_total;
    return RC_OK;
}
