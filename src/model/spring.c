/* spring.c -- force elements: linear springs and dampers between points of
 * two bodies (or a body and the ground), their forces and energy. */
#include "model/joint_impl.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- springs */

rc_status rc_spring_def_check(const rc_spring_def *def, const char *what)
{
    char got[RCB_SHOW_SIZE], label[160];
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_spring_def_check: 'def' is NULL");
    if (!what) {
        snprintf(label, sizeof label, "spring '%s'", def->name ? def->name : "(unnamed)");
        what = label;
    }
    if (def->type != RC_SPRING_LINEAR && def->type != RC_SPRING_TORSIONAL)
        return rc_set_error(RC_ERR_ARG, "%s: unknown type %d", what, (int)def->type);
    if (!rcb_finite(def->k) || def->k < 0.0) return rc_set_error(RC_ERR_ARG, "%s: 'k' must be >= 0 (got %s)", what, rcb_show(got, def->k));
    if (!rcb_finite(def->c) || def->c < 0.0) return rc_set_error(RC_ERR_ARG, "%s: 'c' must be >= 0 (got %s)", what, rcb_show(got, def->c));
    for (int i = 0; i < 2; i++)
        if (!rcb_finite(def->point_a[i]) || !rcb_finite(def->point_b[i]))
            return rc_set_error(RC_ERR_ARG, "%s: points must be finite", what);
    if (def->type == RC_SPRING_LINEAR && !rcb_finite(def->rest_length))
        return rc_set_error(RC_ERR_ARG, "%s: 'rest_length' must be finite", what);
    if (def->type == RC_SPRING_TORSIONAL && def->rest_angle == def->rest_angle && !rcb_finite(def->rest_angle))
        return rc_set_error(RC_ERR_ARG, "%s: 'rest_angle' must be finite", what);
    return RC_OK;
}

rc_status rc_spring_create(rc_world *w, const rc_spring_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_spring_create: NULL argument");
    const char *what = def->name ? def->name : "(unnamed)";
    RC_CHECK(rcm_planar_only(w, "spring"));
    if (def->type != RC_SPRING_LINEAR && def->type != RC_SPRING_TORSIONAL)
        return rc_set_error(RC_ERR_ARG, "spring '%s': unknown type %d", what, (int)def->type);
    if (!rigid_body(w, def->body_b))
        return rc_set_error(RC_ERR_NOT_FOUND, "spring '%s': body_b %d is not a rigid2d body of this world", what, def->body_b);
    if (def->body_a != RC_GROUND && !rigid_body(w, def->body_a))
        return rc_set_error(RC_ERR_NOT_FOUND, "spring '%s': body_a %d is not a rigid2d body of this world", what, def->body_a);
    if (def->body_a == def->body_b) return rc_set_error(RC_ERR_ARG, "spring '%s': needs two different bodies", what);
    RC_CHECK(rc_spring_def_check(def, NULL));
    rcm_sleep_wake(w, def->body_a);   /* its bodies' islands wake (sleep.c) */
    rcm_sleep_wake(w, def->body_b);
    rc_spring sp;
    memset(&sp, 0, sizeof sp);
    sp.def = *def;
    const double *q = w->q;
    if (def->type == RC_SPRING_LINEAR) {
        if (def->rest_length < 0.0) {
            double Pa[2], Pb[2], l[2];
            point(w, def->body_a, q, def->point_a, Pa, l);
            point(w, def->body_b, q, def->point_b, Pb, l);
            sp.def.rest_length = hypot(Pb[0] - Pa[0], Pb[1] - Pa[1]);
        }
    } else {
        double tha = def->body_a == RC_GROUND ? 0.0 : body_q(w, def->body_a, q)[2];
        if (def->rest_angle != def->rest_angle) sp.def.rest_angle = body_q(w, def->body_b, q)[2] - tha;
    }
    RC_CHECK(rcb_reserve((void **)&w->springs, &w->cap_springs, w->nsprings + 1, sizeof(rc_spring)));
    sp.name = rcb_strdup(def->name);
    if (def->name && !sp.name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    sp.def.name = sp.name;
    w->springs[w->nsprings] = sp;
    if (out_id) *out_id = w->nsprings;
    w->nsprings++;
    return RC_OK;
}

/* Adds the spring forces at the state (w->q, w->v) to f (by dofs; f may be
 * NULL) and returns their potential energy. */
void rcm_springs_forces(rc_world *w, double *f, double *E_spring)
{
    double E = 0.0;
    for (int i = 0; i < w->nsprings; i++) {
        if (w->springs[i].removed) continue;   /* rc_spring_destroy */
        const rc_spring_def *d = &w->springs[i].def;
        const int a = d->body_a, b = d->body_b;
        double *fb = f ? f + w->bodies[b].iv : NULL, *fa = (a == RC_GROUND || !f) ? NULL : f + w->bodies[a].iv;
        const double *vb = w->v + w->bodies[b].iv, *va = a == RC_GROUND ? zero3 : w->v + w->bodies[a].iv;
        if (d->type == RC_SPRING_TORSIONAL) {
            double tha = a == RC_GROUND ? 0.0 : body_q(w, a, w->q)[2];
            double dth = body_q(w, b, w->q)[2] - tha - d->rest_angle;
            double tau = -(d->k * dth + d->c * (vb[2] - va[2]));
            if (fb) fb[2] += tau;
            if (fa) fa[2] -= tau;
            E += 0.5 * d->k * dth * dth;
            continue;
        }
        double Pa[2], Pb[2], la[2], lb[2];
        point(w, a, w->q, d->point_a, Pa, la);
        point(w, b, w->q, d->point_b, Pb, lb);
        double dx[2] = { Pb[0] - Pa[0], Pb[1] - Pa[1] }, L = hypot(dx[0], dx[1]);
        double n[2] = { 0.0, 0.0 };
        if (L > 0.0) { n[0] = dx[0] / L; n[1] = dx[1] / L; }
        /* velocities of the attachment points: v + omega perp(lever) */
        double wb[2] = { vb[0] - vb[2] * lb[1], vb[1] + vb[2] * lb[0] };
        double wa[2] = { va[0] - va[2] * la[1], va[1] + va[2] * la[0] };
        double rate = n[0] * (wb[0] - wa[0]) + n[1] * (wb[1] - wa[1]);
        double T = d->k * (L - d->rest_length) + d->c * rate;   /* tension */
        double F[2] = { -T * n[0], -T * n[1] };                 /* on B     */
        if (fb) {
            fb[0] += F[0];
            fb[1] += F[1];
            fb[2] += lb[0] * F[1] - lb[1] * F[0];
        }
        if (fa) {
            fa[0] -= F[0];
            fa[1] -= F[1];
            fa[2] -= la[0] * F[1] - la[1] * F[0];
        }
        E += 0.5 * d->k * (L - d->rest_length) * (L - d->rest_length);
    }
    *E_spring = E;
}
