/* joint.c -- bilateral constraints g(q, t) = 0 between planar rigid bodies
 * (revolute, prismatic, weld, distance, point on line, prescribed motion,
 * custom), and springs.
 *
 * A joint is a block of equality rows next to the contacts in the one-step
 * problem. With the scheme's unknown velocity V (v_{k+1} for Moreau--Jean,
 * v_{k+theta} for Moreau--Jean--Fremond; Bruls, Acary & Cardona 2014 eq. 50
 * for the former) its rows read
 *     H(q*) V + dg/dt(t*) = 0,
 * q* = q_k + s h v_k (rc_sim_joint_jacobian), t* = t_k + s_t h
 * (the scheme's joint_rate_time), with an unbounded multiplier lambda (an impulse on
 * B along the rows, the opposite on A). NSGS solves each block exactly:
 * lambda += -W^-1 (H V + dg/dt). That is the default, the paper's scheme:
 * velocity-level rows let the positions drift, by O(h^3) per step where s
 * cancels the leading term, O(h^2) where it does not. A state set from
 * outside is first moved onto the joints (rcm_joints_start).
 *
 * With project_joints (an option, not in the paper), after the step the
 * positions are projected back onto g = 0 in the metric of M
 * (Gauss--Seidel over joints of dq = -M^-1 H^T (H M^-1 H^T)^-1 g), the
 * velocities onto H(q_{k+1}) v + dg/dt = 0 likewise, and the energy those
 * projections changed is given back through the kinetic energy of the
 * jointed bodies when all joints are scleronomic (else it is reported as
 * W_proj). Without that last part the projection of a swinging pendulum
 * lifts the bob a little every step and its energy grows like h t. */
#include "model/joint_impl.h"

#include <math.h>
#include <string.h>

rc_joint_def rc_default_joint_def(void)
{
    rc_joint_def d;
    memset(&d, 0, sizeof d);
    d.type = RC_JOINT_REVOLUTE;
    d.body_a = RC_GROUND;
    d.axis[0] = 1.0;
    d.length = -1.0;
    d.angle = NAN;
    d.rows = 1;
    d.break_force = d.break_torque = INFINITY;
    return d;
}

rc_spring_def rc_default_spring_def(void)
{
    rc_spring_def d;
    memset(&d, 0, sizeof d);
    d.type = RC_SPRING_LINEAR;
    d.body_a = RC_GROUND;
    d.rest_length = -1.0;
    d.rest_angle = NAN;
    return d;
}

/* ---------------------------------------------------------------- kinematics */

static const char *joint_label(const rc_joint *j) { return j->name ? j->name : "(unnamed)"; }

/* Prescribed value and rate. */
static rc_status motion(const rc_joint *j, double t, double *f, double *df)
{
    double d = NAN;
    rc_status s = j->def.motion(j->def.motion_user, t, f, &d);
    if (s != RC_OK) return s;
    if (!rcb_finite(*f))
        return rc_set_error(RC_ERR_CALLBACK, "joint '%s': prescribed motion returned a non-finite value at t = %.17g", joint_label(j), t);
    if (df) {
        if (d != d) {   /* not given: central difference */
            double e = 1e-6 * (1.0 + fabs(t)), fp, fm, dd;
            RC_CHECK(j->def.motion(j->def.motion_user, t + e, &fp, &dd));
            RC_CHECK(j->def.motion(j->def.motion_user, t - e, &fm, &dd));
            d = (fp - fm) / (2.0 * e);
        }
        if (!rcb_finite(d))
            return rc_set_error(RC_ERR_CALLBACK, "joint '%s': prescribed motion has a non-finite rate at t = %.17g", joint_label(j), t);
        *df = d;
    }
    return RC_OK;
}

static rc_status custom_g(const rc_joint *j, double t, const double *qa, const double *qb, double *g,
                          double Ga[3][3], double Gb[3][3])
{
    double ga[9], gb[9];
    for (int i = 0; i < 9; i++) ga[i] = gb[i] = NAN;
    for (int r = 0; r < 3; r++) g[r] = NAN;
    rc_status s = j->def.constraint(j->def.constraint_user, t, qa, qb, g, Ga ? ga : NULL, Ga ? gb : NULL);
    if (s != RC_OK) return s;
    for (int r = 0; r < j->rows; r++)
        if (!rcb_finite(g[r]))
            return rc_set_error(RC_ERR_CALLBACK, "joint '%s': constraint returned a non-finite g[%d] at t = %.17g", joint_label(j), r + 1, t);
    if (!Ga) return RC_OK;
    int fd = 0;
    for (int i = 0; i < 3 * j->rows; i++) if (gb[i] != gb[i] || (qa && ga[i] != ga[i])) fd = 1;
    if (!fd) {
        for (int r = 0; r < j->rows; r++)
            for (int c = 0; c < 3; c++) { Ga[r][c] = qa ? ga[3 * r + c] : 0.0; Gb[r][c] = gb[3 * r + c]; }
        return RC_OK;
    }
    /* finite differences, central */
    for (int side = 0; side < 2; side++) {
        const double *q0 = side ? qb : qa;
        if (!q0) { memset(Ga, 0, 9 * sizeof(double)); continue; }
        for (int c = 0; c < 3; c++) {
            double qp[3] = { q0[0], q0[1], q0[2] }, qm[3] = { q0[0], q0[1], q0[2] }, gp[3], gm[3];
            double e = 1e-6 * (1.0 + fabs(q0[c]));
            qp[c] += e; qm[c] -= e;
            RC_CHECK(j->def.constraint(j->def.constraint_user, t, side ? qa : qp, side ? qp : qb, gp, NULL, NULL));
            RC_CHECK(j->def.constraint(j->def.constraint_user, t, side ? qa : qm, side ? qm : qb, gm, NULL, NULL));
            for (int r = 0; r < j->rows; r++) {
                double d = (gp[r] - gm[r]) / (2.0 * e);
                if (!rcb_finite(d))
                    return rc_set_error(RC_ERR_CALLBACK, "joint '%s': constraint is not differentiable (non-finite gradient) at t = %.17g", joint_label(j), t);
                if (side) Gb[r][c] = d; else Ga[r][c] = d;
            }
        }
    }
    return RC_OK;
}

rc_status rcm_joint_eval(rc_world *w, const rc_joint *j, const double *q, double t,
                        double *g, double Ha[3][3], double Hb[3][3], double *gt)
{
    const int a = j->def.body_a, b = j->def.body_b;
    double Pa[2], Pb[2], la[2], lb[2];
    point(w, a, q, j->pa, Pa, la);
    point(w, b, q, j->pb, Pb, lb);
    const double tha = a == RC_GROUND ? 0.0 : body_q(w, a, q)[2];
    const double thb = body_q(w, b, q)[2];
    double HA[3][3], HB[3][3];
    memset(HA, 0, sizeof HA);
    memset(HB, 0, sizeof HB);
    for (int r = 0; r < 3; r++) if (gt) gt[r] = 0.0;
    if (j->rows == 0) {   /* a removed joint (rc_joint_destroy): no rows, no callback */
        if (Ha) memcpy(Ha, HA, sizeof HA);
        if (Hb) memcpy(Hb, HB, sizeof HB);
        return RC_OK;
    }

    switch (j->def.type) {
    case RC_JOINT_REVOLUTE:
    case RC_JOINT_WELD:
        /* g = P_b - P_a; dP/dq = [I, perp(R p)] */
        g[0] = Pb[0] - Pa[0];
        g[1] = Pb[1] - Pa[1];
        HB[0][0] = 1.0; HB[0][2] = -lb[1];
        HB[1][1] = 1.0; HB[1][2] = lb[0];
        HA[0][0] = -1.0; HA[0][2] = la[1];
        HA[1][1] = -1.0; HA[1][2] = -la[0];
        if (j->def.type == RC_JOINT_WELD) {
            g[2] = thb - tha - j->angle;
            HB[2][2] = 1.0;
            HA[2][2] = -1.0;
        }
        break;
    case RC_JOINT_PRISMATIC:
    case RC_JOINT_LINE: {
        /* g = n . (P_b - P_a), n = perp(R_a axis): the point stays on the line */
        double ax[2], n[2], d[2] = { Pb[0] - Pa[0], Pb[1] - Pa[1] };
        rot(tha, j->axis, ax);
        n[0] = -ax[1]; n[1] = ax[0];
        g[0] = n[0] * d[0] + n[1] * d[1];
        HB[0][0] = n[0]; HB[0][1] = n[1];
        HB[0][2] = n[0] * -lb[1] + n[1] * lb[0];
        HA[0][0] = -n[0]; HA[0][1] = -n[1];
        /* dn/dtheta_a = perp(n) = -ax */
        HA[0][2] = -(n[0] * -la[1] + n[1] * la[0]) + (-ax[0] * d[0] - ax[1] * d[1]);
        if (j->def.type == RC_JOINT_PRISMATIC) {
            g[1] = thb - tha - j->angle;
            HB[1][2] = 1.0;
            HA[1][2] = -1.0;
        }
        break;
    }
    case RC_JOINT_DISTANCE: {
        double d[2] = { Pb[0] - Pa[0], Pb[1] - Pa[1] }, L = sqrt(d[0] * d[0] + d[1] * d[1]);
        if (!(L > 0.0)) return rc_set_error(RC_ERR_NUMERIC, "joint '%s': the two points coincide (distance joint undefined)", joint_label(j));
        double u[2] = { d[0] / L, d[1] / L };
        g[0] = L - j->length;
        HB[0][0] = u[0]; HB[0][1] = u[1]; HB[0][2] = u[0] * -lb[1] + u[1] * lb[0];
        HA[0][0] = -u[0]; HA[0][1] = -u[1]; HA[0][2] = -(u[0] * -la[1] + u[1] * la[0]);
        break;
    }
    case RC_JOINT_PRESCRIBED: {
        const int c = j->def.coord;
        double f, df;
        RC_CHECK(motion(j, t, &f, gt ? &df : NULL));
        double qa_c = a == RC_GROUND ? 0.0 : body_q(w, a, q)[c];
        g[0] = body_q(w, b, q)[c] - qa_c - f;
        HB[0][c] = 1.0;
        if (a != RC_GROUND) HA[0][c] = -1.0;
        if (gt) gt[0] = -df;
        break;
    }
    case RC_JOINT_CUSTOM: {
        const double *qa = a == RC_GROUND ? NULL : body_q(w, a, q), *qb = body_q(w, b, q);
        RC_CHECK(custom_g(j, t, qa, qb, g, (Ha || Hb) ? HA : NULL, HB));
        if (gt) {   /* dg/dt by central differences */
            double e = 1e-6 * (1.0 + fabs(t)), gp[3], gm[3];
            RC_CHECK(custom_g(j, t + e, qa, qb, gp, NULL, NULL));
            RC_CHECK(custom_g(j, t - e, qa, qb, gm, NULL, NULL));
            for (int r = 0; r < j->rows; r++) gt[r] = (gp[r] - gm[r]) / (2.0 * e);
        }
        if (a == RC_GROUND) memset(HA, 0, sizeof HA);
        break;
    }
    }
    if (Ha) memcpy(Ha, HA, sizeof HA);
    if (Hb) memcpy(Hb, HB, sizeof HB);
    return RC_OK;
}

/* ---------------------------------------------------------------- creation */

rc_status rc_joint_create(rc_world *w, const rc_joint_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_joint_create: NULL argument");
    const char *what = def->name ? def->name : "(unnamed)";
    RC_CHECK(rc_joint_def_check(def, NULL));   /* the world-independent checks (joint_def.c) */
    RC_CHECK(rcm_planar_only(w, "joint"));
    if (!rigid_body(w, def->body_b))
        return rc_set_error(RC_ERR_NOT_FOUND, "joint '%s': body_b %d is not a rigid2d body of this world", what, def->body_b);
    if (def->body_a != RC_GROUND && !rigid_body(w, def->body_a))
        return rc_set_error(RC_ERR_NOT_FOUND, "joint '%s': body_a %d is not a rigid2d body of this world", what, def->body_a);
    if (def->body_a == def->body_b)
        return rc_set_error(RC_ERR_ARG, "joint '%s': a joint needs two different bodies", what);
    rcm_sleep_wake(w, def->body_a);   /* its bodies' islands wake (sleep.c) */
    rcm_sleep_wake(w, def->body_b);
    if (def->name) {
        int dup;
        if (rc_joint_find(w, def->name, &dup) == RC_OK)
            return rc_set_error(RC_ERR_ARG, "joint '%s': the name is already used", what);
    }
    rc_joint j;
    memset(&j, 0, sizeof j);
    j.def = *def;
    memcpy(j.pa, def->point_a, sizeof j.pa);
    memcpy(j.pb, def->point_b, sizeof j.pb);
    switch (def->type) {
    case RC_JOINT_REVOLUTE: j.rows = 2; break;
    case RC_JOINT_WELD: j.rows = 3; break;
    case RC_JOINT_PRISMATIC: j.rows = 2; break;
    case RC_JOINT_LINE: j.rows = 1; break;
    case RC_JOINT_DISTANCE: j.rows = 1; break;
    case RC_JOINT_PRESCRIBED:
        j.rows = 1;
        if (!def->motion) return rc_set_error(RC_ERR_ARG, "joint '%s': 'motion' is missing", what);
        break;
    case RC_JOINT_CUSTOM:
        if (!def->constraint) return rc_set_error(RC_ERR_ARG, "joint '%s': 'constraint' is missing", what);
        j.rows = def->rows;
        break;
    }
    if (def->type == RC_JOINT_PRISMATIC || def->type == RC_JOINT_LINE) {
        double n = hypot(def->axis[0], def->axis[1]);   /* > 0 (rc_joint_def_check) */
        j.axis[0] = def->axis[0] / n;
        j.axis[1] = def->axis[1] / n;
    }
    /* length and angle from the current state when not given */
    const double *q = w->q;
    double tha = def->body_a == RC_GROUND ? 0.0 : body_q(w, def->body_a, q)[2];
    double thb = body_q(w, def->body_b, q)[2];
    if (def->type == RC_JOINT_WELD || def->type == RC_JOINT_PRISMATIC || def->type == RC_JOINT_REVOLUTE) {
        j.angle = def->angle != def->angle ? thb - tha : def->angle;
    }
    if (def->type == RC_JOINT_DISTANCE) {
        if (def->length < 0.0) {
            double Pa[2], Pb[2], l[2];
            point(w, def->body_a, q, j.pa, Pa, l);
            point(w, def->body_b, q, j.pb, Pb, l);
            j.length = hypot(Pb[0] - Pa[0], Pb[1] - Pa[1]);
        } else j.length = def->length;
        if (!(j.length > 0.0)) return rc_set_error(RC_ERR_ARG, "joint '%s': 'length' must be > 0", what);
    }
    RC_CHECK(rcm_joint_break_check(w, def, what));   /* joint_break.c */
    RC_CHECK(rcb_reserve((void **)&w->joints, &w->cap_joints, w->njoints + 1, sizeof(rc_joint)));
    j.name = rcb_strdup(def->name);
    if (def->name && !j.name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    j.def.name = j.name;
    w->joints[w->njoints] = j;
    if (out_id) *out_id = w->njoints;
    w->njoints++;
    w->joints_fresh = 1;   /* the next step starts on the joints (rcm_joints_start) */
    return RC_OK;
}

int rc_joint_count(const rc_world *w) { return w ? w->njoints : 0; }

rc_status rc_joint_find(const rc_world *w, const char *name, int *out_id)
{
    if (!w || !name) return rc_set_error(RC_ERR_ARG, "rc_joint_find: NULL argument");
    for (int i = 0; i < w->njoints; i++)
        if (w->joints[i].name && strcmp(w->joints[i].name, name) == 0) {
            if (out_id) *out_id = i;
            return RC_OK;
        }
    return rc_set_error(RC_ERR_NOT_FOUND, "no joint named \"%s\"", name);
}

const char *rc_joint_name(const rc_world *w, int id)
{
    return (w && id >= 0 && id < w->njoints) ? w->joints[id].name : NULL;
}

rc_status rc_joint_get(const rc_world *w, int id, rc_joint_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_joint_get: NULL argument");
    if (id < 0 || id >= w->njoints) return rc_set_error(RC_ERR_NOT_FOUND, "no joint with id %d", id);
    const rc_joint *j = &w->joints[id];
    memset(info, 0, sizeof *info);
    info->rows = j->rows;
    for (int r = 0; r < j->rows; r++) {
        /* the solver's impulse plus the velocity projection's (which carries
         * the part that turns the velocity with the constraint: centripetal) */
        double p = j->lambda[r] + j->mu_v[r];
        info->impulse[r] = p;
        info->force[r] = p / w->sim.h;
        info->g[r] = j->g_end[r];
        info->gdot[r] = j->gdot_end[r];
        info->smooth[r] = j->smooth[r];
    }
    info->work = j->work;
    rcm_joint_x_info(w, j, info);
    return RC_OK;
}

void rcm_joints_free(rc_world *w)
{
    for (int i = 0; i < w->njoints; i++) rcb_free(w->joints[i].name);
    for (int i = 0; i < w->nsprings; i++) rcb_free(w->springs[i].name);
    rcb_free(w->joints);
    rcb_free(w->springs);
}

/* ---------------------------------------------------------------- small dense algebra */

/* Inverse of an m x m (m <= 3) symmetric positive definite block. */
static int invert(int m, const double A[3][3], double X[3][3])
{
    memset(X, 0, 9 * sizeof(double));
    if (m == 0) return 1;   /* a removed joint */
    if (m == 1) {
        if (!(A[0][0] > 0.0)) return 0;
        X[0][0] = 1.0 / A[0][0];
        return 1;
    }
    if (m == 2) {
        double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
        if (!(fabs(det) > 1e-300)) return 0;
        X[0][0] = A[1][1] / det; X[0][1] = -A[0][1] / det;
        X[1][0] = -A[1][0] / det; X[1][1] = A[0][0] / det;
        return 1;
    }
    double c00 = A[1][1] * A[2][2] - A[1][2] * A[2][1];
    double c01 = A[1][2] * A[2][0] - A[1][0] * A[2][2];
    double c02 = A[1][0] * A[2][1] - A[1][1] * A[2][0];
    double det = A[0][0] * c00 + A[0][1] * c01 + A[0][2] * c02;
    if (!(fabs(det) > 1e-300)) return 0;
    X[0][0] = c00 / det;
    X[0][1] = (A[0][2] * A[2][1] - A[0][1] * A[2][2]) / det;
    X[0][2] = (A[0][1] * A[1][2] - A[0][2] * A[1][1]) / det;
    X[1][0] = c01 / det;
    X[1][1] = (A[0][0] * A[2][2] - A[0][2] * A[2][0]) / det;
    X[1][2] = (A[0][2] * A[1][0] - A[0][0] * A[1][2]) / det;
    X[2][0] = c02 / det;
    X[2][1] = (A[0][1] * A[2][0] - A[0][0] * A[2][1]) / det;
    X[2][2] = (A[0][0] * A[1][1] - A[0][1] * A[1][0]) / det;
    return 1;
}

/* kappa M^-1 H^T by rows, and W = H kappa M^-1 H^T */
static void delassus(const rc_world *w, rc_joint *j, double kappa)
{
    double ma[3], mb[3];
    joint_kappa_inv_mass(w, j, kappa, ma, mb);
    for (int r = 0; r < j->rows; r++)
        for (int c = 0; c < 3; c++) {
            j->MHb[r][c] = mb[c] * j->Hb[r][c];
            j->MHa[r][c] = ma[c] * j->Ha[r][c];
        }
    for (int r = 0; r < j->rows; r++)
        for (int k = 0; k < j->rows; k++) {
            double s = 0.0;
            for (int c = 0; c < 3; c++) s += j->Hb[r][c] * j->MHb[k][c] + j->Ha[r][c] * j->MHa[k][c];
            j->W[r][k] = s;
        }
}

/* ---------------------------------------------------------------- the step */

/* q* = q_k + s h v_k of one body (the ground: nothing) */
static void predict(rc_world *w, int b, double s)
{
    if (b == RC_GROUND) return;
    const rc_body *bd = &w->bodies[b];
    for (int c = 0; c < 3; c++) w->qstar[bd->iq + c] = w->q0[bd->iq + c] + s * w->sim.h * w->v0[bd->iv + c];
}

/* The rows at the predicted configuration q* (rc_sim_joint_jacobian: start,
 * midpoint or end of the step, predicted with v_k; Bruls, Acary & Cardona
 * 2014 eq. 50c), the rate dg/dt at t* (rheonomic joints, the scheme's joint_rate_time). */
rc_status rcm_joints_assemble(rc_world *w, double kappa)
{
    const rc_joint_jacobian at = w->joint_at;
    const double s = at == RC_JOINT_JACOBIAN_START ? 0.0 : at == RC_JOINT_JACOBIAN_MIDPOINT ? 0.5 : 1.0;
    const double t_star = rcm_time_at(w, w->joint_rate_s);
    for (int i = 0; i < w->njoints; i++) {
        predict(w, w->joints[i].def.body_a, s);
        predict(w, w->joints[i].def.body_b, s);
    }
    for (int i = 0; i < w->njoints; i++) {
        rc_joint *j = &w->joints[i];
        double g[3], gt[3], gdummy[3], Ha[3][3], Hb[3][3];
        RC_CHECK(rcm_joint_eval(w, j, w->qstar, rcm_time_at(w, s), g, Ha, Hb, NULL));
        /* the rate dg/dt at the time the rows hold (rheonomic joints only) */
        if (j->def.type == RC_JOINT_PRESCRIBED || j->def.type == RC_JOINT_CUSTOM)
            RC_CHECK(rcm_joint_eval(w, j, w->qstar, t_star, gdummy, NULL, NULL, gt));
        else
            gt[0] = gt[1] = gt[2] = 0.0;
        memcpy(j->Ha, Ha, sizeof Ha);
        memcpy(j->Hb, Hb, sizeof Hb);
        for (int r = 0; r < 3; r++) j->shift[r] = r < j->rows ? gt[r] : 0.0;
        delassus(w, j, kappa);
        /* b = H V_0 + dg/dt (w->V holds V_0: called before the warm start) */
        rcm_joint_dot(w, j, &j->Ha[0][0], &j->Hb[0][0], w->V, j->shift, RCM_SUM_BY_COORDINATE, j->b);
        if (!invert(j->rows, (const double (*)[3])j->W, j->Winv))
            return rc_set_error(RC_ERR_NUMERIC, "joint '%s': its rows are singular (redundant constraint or degenerate geometry) at t = %.17g",
                                joint_label(j), w->t);
        if (!w->sim.solver.warm_start) memset(j->lambda, 0, sizeof j->lambda);
        RC_CHECK(rcm_joint_x_assemble(w, j, kappa, s));   /* motor and limits (joint_motor.c) */
    }
    return RC_OK;
}

/* One Gauss--Seidel correction of joint j: with r its row residual and H its
 * rows at the current positions, x += M^-1 H^T mu, mu = -(H M^-1 H^T)^-1 r,
 * on the positions (x = q) or the velocities (x = v) of its bodies. */
static rc_status correct(rc_world *w, rc_joint *j, double Ha[3][3], double Hb[3][3], const double *r,
                         double *x, int by_iq, double *mu, const char *what, double t)
{
    rc_joint tmp = *j;
    double Wi[3][3];
    memcpy(tmp.Ha, Ha, sizeof tmp.Ha);
    memcpy(tmp.Hb, Hb, sizeof tmp.Hb);
    delassus(w, &tmp, 1.0);
    if (!invert(j->rows, (const double (*)[3])tmp.W, Wi))
        return rc_set_error(RC_ERR_NUMERIC, "joint '%s': singular rows in the %s projection at t = %.17g", joint_label(j), what, t);
    for (int k = 0; k < j->rows; k++) {
        mu[k] = 0.0;
        for (int l = 0; l < j->rows; l++) mu[k] -= Wi[k][l] * r[l];
    }
    rcm_joint_apply(w, j, &tmp.MHa[0][0], &tmp.MHb[0][0], x, by_iq, mu);
    return RC_OK;
}

/* Gauss--Seidel over joints until every row residual is below project_tol:
 * positions (velocity = 0): r = g(q, t), corrected on q;
 * velocities (velocity = 1): r = H(q) v + dg/dt, corrected on v, and the
 * impulses mu added to mu_v (reported with the joints' reactions; zeroed
 * at the start of every step); with work != 0 each correction's work (the
 * energy change of its two bodies) is added to the joint's wstart. */
static rc_status project(rc_world *w, double t, int velocity, int *iters, int work)
{
    int it = 0;
    for (; it < w->sim.project_max_iter; it++) {
        double worst = 0.0;
        for (int i = 0; i < w->njoints; i++) {
            rc_joint *j = &w->joints[i];
            double g[3], gt[3], Ha[3][3], Hb[3][3], r[3], mu[3], rmax = 0.0;
            RC_CHECK(rcm_joint_eval(w, j, w->q, t, g, Ha, Hb, velocity ? gt : NULL));
            if (velocity) rcm_joint_dot(w, j, &Ha[0][0], &Hb[0][0], w->v, gt, RCM_SUM_BY_COORDINATE, r);
            for (int k = 0; k < j->rows; k++) {
                if (!velocity) r[k] = g[k];
                rmax = fmax(rmax, fabs(r[k]));
            }
            worst = fmax(worst, rmax);
            if (rmax <= w->sim.project_tol) continue;
            const int a = j->def.body_a, b = j->def.body_b;
            double e0 = 0.0;
            if (work) e0 = rcm_body_energy(w, b) + (a == RC_GROUND ? 0.0 : rcm_body_energy(w, a));
            RC_CHECK(correct(w, j, Ha, Hb, r, velocity ? w->v : w->q, !velocity, mu,
                             velocity ? "velocity" : "position", t));
            if (work) j->wstart += rcm_body_energy(w, b) + (a == RC_GROUND ? 0.0 : rcm_body_energy(w, a)) - e0;
            if (velocity)
                for (int k = 0; k < j->rows; k++) j->mu_v[k] += mu[k];
        }
        if (worst <= w->sim.project_tol) break;
    }
    if (iters) *iters = it;
    return RC_OK;
}

/* Positions after the step: dq = -M^-1 H^T (H M^-1 H^T)^-1 g(q, t). */
rc_status rcm_joints_project(rc_world *w, double t, int *iters) { return project(w, t, 0, iters, 0); }

/* Velocities after the position projection, onto H(q_{k+1}) v + dg/dt = 0,
 * so that the rows hold at the end of the step too. */
rc_status rcm_joints_project_velocity(rc_world *w, double t) { return project(w, t, 1, NULL, 0); }

/* A consistent start. The paper's scheme (Bruls, Acary & Cardona 2014,
 * Algorithm 1 and eq. 50) starts from (q_k, v_k) on the constraints; a state
 * set from outside (bodies placed or set, joints created: w->joints_fresh)
 * may not be. Without the projection after the step nothing would ever
 * remove that: an offset g(q_0) stays, and a velocity jump (a drive started
 * from rest) is taken as an impact somewhere inside the first step, whose
 * position error (1 - theta) h [v] under Moreau--Jean also stays (x = sin t
 * from rest: a lag of h/2), while Moreau--Jean--Fremond at theta = 1/2
 * alternates v_{k+1} = 2 V - v_k for good. So the step first moves the
 * state onto the joints at t_k in the metric of M: positions onto g = 0
 * (their energy change dE_q is reported in W_proj), then velocities onto
 * H v + dg/dt = 0: the joints' impulse at t_k, an inelastic activation of
 * the constraint (in mu_v, the reaction of the step; its work in wstart,
 * part of W_J). A state already on the joints is left bit for bit. */
rc_status rcm_joints_start(rc_world *w, double *dE_q)
{
    double E0 = 0.0, E1 = 0.0;
    for (int b = 0; b < w->nbodies; b++) E0 += rcm_body_energy(w, b);
    RC_CHECK(project(w, w->t, 0, NULL, 0));
    for (int b = 0; b < w->nbodies; b++) E1 += rcm_body_energy(w, b);
    *dE_q = E1 - E0;
    return project(w, w->t, 1, NULL, 1);
}

/* Violations at the end of the step: |g(q_{k+1}, t_{k+1})| and
 * |H(q_{k+1}) v_{k+1} + dg/dt(t_{k+1})|, kept per joint for rc_joint_get. */
rc_status rcm_joints_report(rc_world *w, double t, double *pos_violation, double *vel_violation)
{
    double pv = 0.0, vv = 0.0;
    for (int i = 0; i < w->njoints; i++) {
        rc_joint *j = &w->joints[i];
        double g[3], gt[3], Ha[3][3], Hb[3][3];
        RC_CHECK(rcm_joint_eval(w, j, w->q, t, g, Ha, Hb, gt));
        double ur[3];
        rcm_joint_dot(w, j, &Ha[0][0], &Hb[0][0], w->v, gt, RCM_SUM_BY_COORDINATE, ur);
        for (int r = 0; r < j->rows; r++) {
            const double u = ur[r];
            j->g_end[r] = g[r];
            j->gdot_end[r] = u;
            pv = fmax(pv, fabs(g[r]));
            vv = fmax(vv, fabs(u));
        }
    }
    *pos_violation = pv;
    *vel_violation = vv;
    return RC_OK;
}
