/* beam_joint.c -- bilateral constraints between a beam's centreline point
 * r(xi) and a planar rigid body (rc_beam_joint_create; the knee of
 * Capobianco, Harsch, Eugster & Leine 2021, eq. 153; docs/theory/beam.md):
 *
 *   g_{1,2} = r(xi, q_beam) - (x_b + R(theta_b) p)
 *   g_3     = angle(R(theta_b) a, r'(xi)) - beta(t)     (optional)
 *
 * with angle(u, v) = atan2(u x v, u . v) in (-pi, pi]. The rows are dense over
 * the world's velocities: d g_{1,2} = N_i(xi) dP_i - dx_b - perp(R p) dtheta_b,
 * d g_3 = perp(r')/|r'|^2 . N'_i(xi) dP_i - dtheta_b, and dg/dt = (0, 0,
 * -beta'(t)). The generalized-alpha step (integrate/iterate_contacts.c) puts
 * them after the rigid joints' rows; each beam keeps its joints (beam_impl.h).
 */
#include "model/beam_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

rc_beam_joint_def rc_default_beam_joint_def(void)
{
    rc_beam_joint_def d;
    memset(&d, 0, sizeof d);
    d.beam = -1;
    d.body = RC_GROUND;
    d.axis[0] = 1.0;
    d.angle0 = NAN;
    return d;
}

/* the rigid side's pose (ground: 0) */
static void body_pose(const rc_world *w, int b, const double *q, double x[3])
{
    x[0] = x[1] = x[2] = 0.0;
    if (b == RC_GROUND) return;
    const double *qb = q + w->bodies[b].iq;
    x[0] = qb[0]; x[1] = qb[1]; x[2] = qb[2];
}

/* r(xi), r'(xi) and the basis (N, N', N'') at the joint's xi from the beam's q */
static int beam_point(const rcm_beam *B, double xi, const double *qb, double r[2], double dr[2], double *N)
{
    const int p1 = B->p + 1, span = rcm_beam_span(B->p, B->nel, xi), f = span - B->p;
    rcm_beam_basis(B->p, B->knots, span, xi, N);
    r[0] = r[1] = dr[0] = dr[1] = 0.0;
    for (int j = 0; j < p1; j++)
        for (int d = 0; d < 2; d++) {
            r[d] += N[j] * qb[2 * (f + j) + d];
            dr[d] += N[p1 + j] * qb[2 * (f + j) + d];
        }
    return f;
}

/* beta(t) and beta'(t) (motion), or the constant */
static rc_status angle_at(const rcm_bjoint *j, double t, double *beta, double *dbeta)
{
    if (!j->def.motion) { *beta = j->angle0; *dbeta = 0.0; return RC_OK; }
    double df = NAN;
    RC_CHECK(j->def.motion(j->def.motion_user, t, beta, &df));
    if (isnan(df)) {
        const double e = 1e-6;
        double fp, fm, d;
        RC_CHECK(j->def.motion(j->def.motion_user, t + e, &fp, &d));
        RC_CHECK(j->def.motion(j->def.motion_user, t - e, &fm, &d));
        df = (fp - fm) / (2.0 * e);
    }
    if (!rcb_finite(*beta) || !rcb_finite(df))
        return rc_set_error(RC_ERR_CALLBACK, "beam joint '%s': the motion is not finite at t = %.17g",
                            j->def.name ? j->def.name : "?", t);
    *dbeta = df;
    return RC_OK;
}

/* joint j of beam B at q, t: g (rows), its rows G (rows x n, dense; NULL: not)
 * and dg/dt (gt, may be NULL) */
static rc_status eval(const rc_world *w, const rcm_beam *B, const rcm_bjoint *j, const double *q, double t, int n,
                      double *g, double *G, double *gt)
{
    const rc_body *bb = &w->bodies[B->body];
    double r[2], dr[2], N[3 * (BEAM_MAX_DEGREE + 1)], x[3];
    const int f = beam_point(B, j->def.xi, q + bb->iq, r, dr, N), p1 = B->p + 1;
    body_pose(w, j->def.body, q, x);
    const double c = cos(x[2]), s = sin(x[2]);
    const double *p = j->def.point, *a = j->def.axis;
    const double lever[2] = { c * p[0] - s * p[1], s * p[0] + c * p[1] };
    g[0] = r[0] - x[0] - lever[0];
    g[1] = r[1] - x[1] - lever[1];
    double beta = 0.0, dbeta = 0.0;
    if (j->rows == 3) {
        RC_CHECK(angle_at(j, t, &beta, &dbeta));
        const double u[2] = { c * a[0] - s * a[1], s * a[0] + c * a[1] };
        g[2] = atan2(u[0] * dr[1] - u[1] * dr[0], u[0] * dr[0] + u[1] * dr[1]) - beta;
    }
    if (gt) { gt[0] = gt[1] = 0.0; if (j->rows == 3) gt[2] = -dbeta; }
    if (!G) return RC_OK;
    memset(G, 0, (size_t)j->rows * n * sizeof(double));
    for (int k = 0; k < p1; k++)
        for (int d = 0; d < 2; d++) G[(size_t)d * n + bb->iv + 2 * (f + k) + d] = N[k];
    if (j->def.body != RC_GROUND) {
        const int ib = w->bodies[j->def.body].iv;
        G[ib] = -1.0;
        G[(size_t)n + ib + 1] = -1.0;
        G[ib + 2] = lever[1];          /* -d(R p)/dtheta = -(-lever_y, lever_x) */
        G[(size_t)n + ib + 2] = -lever[0];
        if (j->rows == 3) G[(size_t)2 * n + ib + 2] = -1.0;
    }
    if (j->rows == 3) {
        const double s2 = dr[0] * dr[0] + dr[1] * dr[1], da[2] = { -dr[1] / s2, dr[0] / s2 };
        for (int k = 0; k < p1; k++)
            for (int d = 0; d < 2; d++) G[(size_t)2 * n + bb->iv + 2 * (f + k) + d] = da[d] * N[p1 + k];
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- the step's side (model.h) */

int rcm_beam_joint_rows(const rc_world *w)
{
    int rows = 0;
    for (int b = 0; b < w->nbodies; b++) {
        const rcm_beam *B = rcm_beam_of(w, b);
        for (int k = 0; B && k < B->njoints; k++) rows += B->joints[k].rows;
    }
    return rows;
}

rc_status rcm_beam_joint_eval(rc_world *w, int n, const double *X, double t, int row, double *g, double *G, double *gt)
{
    for (int b = 0; b < w->nbodies; b++) {
        const rcm_beam *B = rcm_beam_of(w, b);
        for (int k = 0; B && k < B->njoints; k++) {
            const rcm_bjoint *j = &B->joints[k];
            RC_CHECK(eval(w, B, j, X, t, n, g + row, G + (size_t)row * n, gt + row));
            row += j->rows;
        }
    }
    return RC_OK;
}

double rcm_beam_joint_take(rc_world *w, int row, const double *G, int n, const double *vm, double h, const double *L,
                           const double *l)
{
    double W = 0.0;
    for (int b = 0; b < w->nbodies; b++) {
        rcm_beam *B = rcm_beam_of(w, b);
        for (int k = 0; B && k < B->njoints; k++) {
            rcm_bjoint *j = &B->joints[k];
            j->work = 0.0;
            for (int r = 0; r < j->rows; r++, row++) {
                double um = 0.0;
                for (int i = 0; i < n; i++) um += G[(size_t)row * n + i] * vm[i];
                j->lambda[r] = L[row] + h * l[row];
                j->work += um * j->lambda[r];
            }
            W += j->work;
        }
    }
    return W;
}

/* ---------------------------------------------------------------- creation and queries */

static const rcm_bjoint *find(const rc_world *w, int id, const rcm_beam **beam)
{
    for (int b = 0; w && b < w->nbodies; b++) {
        const rcm_beam *B = rcm_beam_of(w, b);
        for (int k = 0; B && k < B->njoints; k++)
            if (B->joints[k].id == id) { *beam = B; return &B->joints[k]; }
    }
    return NULL;
}

static rc_status check_def(const rc_world *w, const rc_beam_joint_def *d, const char *what)
{
    if (!rcm_beam_of(w, d->beam)) return rc_set_error(RC_ERR_ARG, "%s: 'beam' must be a beam (rc_beam_create; got body %d)", what, d->beam);
    if (!(d->xi >= 0.0 && d->xi <= 1.0)) return rc_set_error(RC_ERR_ARG, "%s: 'xi' must be in [0, 1] (got %g)", what, d->xi);
    if (d->body != RC_GROUND && !(rcm_valid_body(w, d->body) && w->bodies[d->body].kind == RC_BODY_RIGID2D))
        return rc_set_error(RC_ERR_ARG, "%s: 'body' must be a planar rigid body or the ground (got %d)", what, d->body);
    if (!rcb_finite(d->point[0]) || !rcb_finite(d->point[1])) return rc_set_error(RC_ERR_ARG, "%s: 'point' must be finite", what);
    if (d->angle != 0 && d->angle != 1) return rc_set_error(RC_ERR_ARG, "%s: 'angle' must be 0 or 1 (got %d)", what, d->angle);
    if (d->angle && !(hypot(d->axis[0], d->axis[1]) > 0 && rcb_finite(d->axis[0]) && rcb_finite(d->axis[1])))
        return rc_set_error(RC_ERR_ARG, "%s: 'axis' must be a finite nonzero direction", what);
    if (d->angle && !d->motion && !isnan(d->angle0) && !rcb_finite(d->angle0))
        return rc_set_error(RC_ERR_ARG, "%s: 'angle0' must be finite or NAN (the initial angle)", what);
    return RC_OK;
}

rc_status rc_beam_joint_create(rc_world *w, const rc_beam_joint_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_beam_joint_create: NULL argument");
    char what[160];
    snprintf(what, sizeof what, "beam joint '%s'", def->name ? def->name : "?");
    RC_CHECK(check_def(w, def, what));
    rcm_beam *B = rcm_beam_of(w, def->beam);
    if (B->njoints >= BEAM_MAX_JOINTS)
        return rc_set_error(RC_ERR_ARG, "%s: the beam has %d joints already (at most %d)", what, B->njoints, BEAM_MAX_JOINTS);
    int id = 0;
    for (int b = 0; b < w->nbodies; b++) {
        const rcm_beam *o = rcm_beam_of(w, b);
        for (int k = 0; o && k < o->njoints; k++) id = o->joints[k].id + 1 > id ? o->joints[k].id + 1 : id;
    }
    rcm_bjoint *j = &B->joints[B->njoints];
    memset(j, 0, sizeof *j);
    j->def = *def;
    j->def.name = NULL;
    j->id = id;
    j->rows = def->angle ? 3 : 2;
    j->angle0 = def->angle0;
    if (def->name && !(j->def.name = rcb_strdup(def->name))) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    if (def->angle && !def->motion && isnan(def->angle0)) {   /* the initial angle */
        double g[3] = { 0.0, 0.0, 0.0 };
        j->angle0 = 0.0;
        RC_CHECK(eval(w, B, j, w->q, w->t, 0, g, NULL, NULL));
        j->angle0 = g[2];
    }
    B->njoints++;
    if (out_id) *out_id = id;
    return RC_OK;
}

rc_status rc_beam_joint_get(const rc_world *w, int id, int *rows, double g[3], double force[3])
{
    const rcm_beam *B = NULL;
    const rcm_bjoint *j = find(w, id, &B);
    if (!j) return rc_set_error(RC_ERR_NOT_FOUND, "rc_beam_joint_get: no beam joint with id %d", id);
    if (rows) *rows = j->rows;
    if (g) {
        double gg[3] = { 0.0, 0.0, 0.0 };
        RC_CHECK(eval(w, B, j, w->q, w->t, 0, gg, NULL, NULL));
        memcpy(g, gg, sizeof gg);
    }
    if (force) for (int r = 0; r < 3; r++) force[r] = r < j->rows ? j->lambda[r] : 0.0;
    return RC_OK;
}
