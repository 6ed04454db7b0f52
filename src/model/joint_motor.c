/* joint_motor.c -- motors and limits of revolute and prismatic joints.
 *
 * Both act on one scalar coordinate of the joint, x(q_A, q_B): for a
 * revolute joint the relative angle theta_b - theta_a - angle (angle: the
 * relative angle at creation), for a prismatic joint the translation
 * ax . (P_b - P_a) along its axis ax = R(theta_a) axis. Its row H = dx/dq
 * is taken at the joint's q* (rcm_joints_assemble), like the joint's rows,
 * and the solvers treat it next to them in every sweep (nonsmooth_impl.h):
 *
 *   motor   u_{k+1} = speed unless the bound is hit: a box-constrained row,
 *           lambda = clamp(lambda - (H V - target) / W, -h F, h F), target =
 *           speed (Moreau--Jean), (1 - theta) u_k + theta speed (MJF), F the
 *           largest torque (force) and W = H kappa M^-1 H^T; its work
 *           u_{k+theta} lambda is W_motor, in the energy balance (eq. 65);
 *   limits  lower <= x <= upper as unilateral rows treated like contacts of
 *           the scheme: a side enters the index set by its gap (g = x -
 *           lower or upper - x at q_k, eq. 64 or its anticipated form, with
 *           the persistence rule), and 0 <= u + shift _|_ lambda >= 0 with
 *           Newton's restitution e (shift e u_k under Moreau--Jean, ((theta
 *           - 1) + theta e) u_k under MJF with the preimpact velocity of
 *           mjf_preimpact; Maury: the nearer side always, shift g / h). The
 *           limit's work is part of the joint's work (W_J).
 */
#include "model/joint_impl.h"

#include <math.h>
#include <string.h>

static const char *label(const rc_joint *j) { return j->name ? j->name : "(unnamed)"; }

/* x at q and its gradient (xa, xb may be NULL). */
static double coordinate(const rc_world *w, const rc_joint *j, const double *q, double *xa, double *xb)
{
    const int a = j->def.body_a, b = j->def.body_b;
    const double tha = a == RC_GROUND ? 0.0 : body_q(w, a, q)[2];
    double ga[3] = { 0.0, 0.0, 0.0 }, gb[3] = { 0.0, 0.0, 0.0 }, x;
    if (j->def.type == RC_JOINT_REVOLUTE) {
        x = body_q(w, b, q)[2] - tha - j->angle;
        gb[2] = 1.0;
        ga[2] = -1.0;
    } else {   /* prismatic: x = ax . (P_b - P_a), d ax / d theta_a = perp(ax) = n */
        double Pa[2], Pb[2], la[2], lb[2], ax[2];
        point(w, a, q, j->pa, Pa, la);
        point(w, b, q, j->pb, Pb, lb);
        rot(tha, j->axis, ax);
        const double d[2] = { Pb[0] - Pa[0], Pb[1] - Pa[1] }, n[2] = { -ax[1], ax[0] };
        x = ax[0] * d[0] + ax[1] * d[1];
        gb[0] = ax[0]; gb[1] = ax[1]; gb[2] = ax[0] * -lb[1] + ax[1] * lb[0];
        ga[0] = -ax[0]; ga[1] = -ax[1];
        ga[2] = -(ax[0] * -la[1] + ax[1] * la[0]) + n[0] * d[0] + n[1] * d[1];
    }
    if (a == RC_GROUND) ga[2] = 0.0;
    if (xa) memcpy(xa, ga, sizeof ga);
    if (xb) memcpy(xb, gb, sizeof gb);
    return x;
}

/* This step's limit side and its shift (the index set, eq. 64; the impact
 * law's affine term, eq. 96 / 101), from x and its rate at the start. */
static void limit_index(rc_world *w, rc_joint *j, double x, double uk)
{
    const rc_sim_def *sim = &w->sim;
    const double h = sim->h, glo = x - j->lower, gup = j->upper - x;
    const int prev = j->limit_side;
    j->limit_side = 0;
    if (sim->scheme == RC_SCHEME_MAURY) {   /* every pair: g + h u >= 0 on the nearer side */
        j->limit_side = glo <= gup ? -1 : 1;
        j->limit_shift = (glo <= gup ? glo : gup) / h;
        if (!isfinite(j->limit_shift)) j->limit_side = 0;
    } else {
        const int anticipate = sim->activation == RC_ACTIVATE_ANTICIPATE;
        const double band = fmax(sim->persist_tol, w->persist_band);
        for (int side = -1; side <= 1 && !j->limit_side; side += 2) {
            const double g = side < 0 ? glo : gup, un = side < 0 ? uk : -uk;
            if (!isfinite(g)) continue;
            const double trigger = anticipate ? g + sim->gamma * h * un : g;
            const int in_rule = trigger <= 0.0 && (anticipate || un <= 0.0);
            const int persisting = !in_rule && prev == side && j->limit_lambda != 0.0 && trigger <= band;
            if (!in_rule && !persisting) continue;
            double ul = un;
            const double e = j->limit_e, th = sim->theta;
            if (w->unknown == RC_UNKNOWN_THETA) {
                if (ul > 0.0 && th * (1.0 + e) < 1.0) ul = 0.0;   /* mjf_preimpact */
                j->limit_shift = ((th - 1.0) + th * e) * ul;
            } else {
                j->limit_shift = e * ul;
            }
            if (persisting && g > 0.0) j->limit_shift += g / h;   /* close what the tolerance opened */
            j->limit_side = side;
        }
    }
    if (j->limit_side != prev || !sim->solver.warm_start) j->limit_lambda = 0.0;
}

rc_status rcm_joint_x_assemble(rc_world *w, rc_joint *j, double kappa, double s)
{
    (void)s;
    if (!j->motor && !j->limits) {
        j->limit_side = 0;
        j->motor_lambda = j->limit_lambda = 0.0;
        return RC_OK;
    }
    (void)coordinate(w, j, w->qstar, j->xa, j->xb);
    double ma[3], mb[3];
    joint_kappa_inv_mass(w, j, kappa, ma, mb);
    j->xW = 0.0;
    for (int c = 0; c < 3; c++) {
        j->xMb[c] = mb[c] * j->xb[c];
        j->xMa[c] = ma[c] * j->xa[c];
        j->xW += j->xb[c] * j->xMb[c] + j->xa[c] * j->xMa[c];
    }
    if (!(j->xW > 0.0))
        return rc_set_error(RC_ERR_NUMERIC, "joint '%s': its motor or limit row is singular at t = %.17g", label(j), w->t);
    if (!j->motor || !w->sim.solver.warm_start) j->motor_lambda = 0.0;
    /* the speed is the target of u_{k+1}: under MJF, V = u_{k+theta} = (1 - theta) u_k
     * + theta speed (a target on V itself would alternate u_{k+1} = 2 V - u_k) */
    j->motor_target = j->motor_speed;
    if (j->motor && w->unknown == RC_UNKNOWN_THETA)
        j->motor_target = (1.0 - w->sim.theta) * rcm_joint_x_dot(w, j, w->v0) + w->sim.theta * j->motor_speed;
    if (j->limits) limit_index(w, j, coordinate(w, j, w->q0, NULL, NULL), rcm_joint_x_dot(w, j, w->v0));
    else j->limit_side = 0, j->limit_lambda = 0.0;
    return RC_OK;
}

void rcm_joint_x_info(const rc_world *w, const rc_joint *j, rc_joint_info *info)
{
    if (j->def.type != RC_JOINT_REVOLUTE && j->def.type != RC_JOINT_PRISMATIC) return;
    double xa[3], xb[3];
    info->coordinate = coordinate(w, j, w->q, xa, xb);
    const double *vb = w->v + w->bodies[j->def.body_b].iv;
    info->rate = xb[0] * vb[0] + xb[1] * vb[1] + xb[2] * vb[2];
    if (j->def.body_a != RC_GROUND) {
        const double *va = w->v + w->bodies[j->def.body_a].iv;
        info->rate += xa[0] * va[0] + xa[1] * va[1] + xa[2] * va[2];
    }
    info->motor_impulse = j->motor_lambda;
    info->motor_force = j->motor_lambda / w->sim.h;
    info->motor_work = j->motor_work;
    info->limit_impulse = -j->limit_side * j->limit_lambda;
    info->limit = j->limit_side;
}

/* ---------------------------------------------------------------- setters */

static rc_status motor_joint(rc_world *w, int id, const char *fn, rc_joint **out)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: world is NULL", fn);
    if (id < 0 || id >= w->njoints) return rc_set_error(RC_ERR_NOT_FOUND, "%s: no joint with id %d", fn, id);
    rc_joint *j = &w->joints[id];
    if (j->def.type != RC_JOINT_REVOLUTE && j->def.type != RC_JOINT_PRISMATIC)
        return rc_set_error(RC_ERR_ARG, "%s: joint '%s' is not a revolute or prismatic joint (motors and limits act on their coordinate)",
                            fn, label(j));
    *out = j;
    return RC_OK;
}

rc_status rc_joint_set_motor(rc_world *w, int id, int enabled, double speed, double max_force)
{
    rc_joint *j = NULL;
    RC_CHECK(motor_joint(w, id, "rc_joint_set_motor", &j));
    RC_CHECK(rc_joint_motor_check(speed, max_force, NULL, NULL, NULL));   /* joint_def.c */
    j->motor = enabled != 0;
    j->motor_declared = 1;
    j->motor_speed = speed;
    j->motor_max = max_force;
    if (!j->motor) j->motor_lambda = 0.0;
    return RC_OK;
}

rc_status rc_joint_set_limits(rc_world *w, int id, int enabled, double lower, double upper, double e)
{
    rc_joint *j = NULL;
    RC_CHECK(motor_joint(w, id, "rc_joint_set_limits", &j));
    if (enabled) RC_CHECK(rc_joint_limits_check(lower, upper, e, NULL, NULL));   /* joint_def.c */
    j->limits = enabled != 0;
    j->lower = lower;
    j->upper = upper;
    j->limit_e = e;
    if (!j->limits) { j->limit_side = 0; j->limit_lambda = 0.0; }
    return RC_OK;
}
