/* joint3_drive.c -- prescribed (rheonomic) motion of the joints of spatial
 * bodies (rc_joint3_def.motion; docs/theory/spatial.md, "Prescribed
 * motion"), as planar prescribed joints have it (joint.c, w:prescribe):
 *   revolute   one more row, g_6 = wrap(theta(q) - f(t)), theta the angle of
 *              e = q_A^-1 q_B q_rel^-1 about the hinge axis a_A (A's frame)
 *              plus the offset f(t_0); its row u_A . (omega_B - omega_A)
 *              (the exact rate wherever the hinge holds);
 *   prismatic  one more row, g_6 = u_A . (P_B - P_A) + f(t_0) - f(t), the
 *              across rows' point row along u_A with A's arm to P_B;
 *   distance   its row rheonomic: g = |P_B - P_A| - l(t).
 * The rate of the driven row is dg/dt = -f'(t), from the motion's df or by
 * central differences (eps = 1e-6 (1 + |t|), as joint.c); the step takes it
 * at the scheme's rate time (joints3.c), the projection and the report at
 * t_{k+1}, the generalized-alpha step at t_{i+1} (ga3_joints.c). */
#include "model/model.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char *label(const rcm_joint3 *j) { return j->name ? j->name : "(unnamed)"; }

/* x wrapped into (-pi, pi] */
static double wrap(double x)
{
    double y = fmod(x, 2.0 * M_PI);
    if (y > M_PI) y -= 2.0 * M_PI;
    else if (y <= -M_PI) y += 2.0 * M_PI;
    return y;
}

rc_status rcm_joint3_motion(const rcm_joint3 *j, double t, double *f, double *df)
{
    double d = NAN;
    RC_CHECK(j->motion(j->motion_user, t, f, &d));
    if (!rcb_finite(*f))
        return rc_set_error(RC_ERR_CALLBACK, "3D joint '%s': its motion returned a non-finite value at t = %.17g", label(j), t);
    if (!df) return RC_OK;
    if (d != d) {   /* not given: central difference */
        const double e = 1e-6 * (1.0 + fabs(t));
        double fp, fm, dd;
        RC_CHECK(j->motion(j->motion_user, t + e, &fp, &dd));
        RC_CHECK(j->motion(j->motion_user, t - e, &fm, &dd));
        d = (fp - fm) / (2.0 * e);
    }
    if (!rcb_finite(d))
        return rc_set_error(RC_ERR_CALLBACK, "3D joint '%s': its motion has a non-finite rate at t = %.17g", label(j), t);
    *df = d;
    return RC_OK;
}

rc_status rcm_joint3_eval(const rcm_joint3 *j, const double *xa, const double *xb, double t, double Ha[][6], double Hb[][6],
                          double *g, double *gt)
{
    rcm_joint3_rows_at(j, xa, xb, Ha, Hb, g);
    if (gt) memset(gt, 0, sizeof(double) * (size_t)j->rows);
    if (!j->drive) return RC_OK;
    double f, df;
    RC_CHECK(rcm_joint3_motion(j, t, &f, gt ? &df : NULL));
    const int r = j->rows - 1;
    g[r] -= f;
    if (j->type == RC_JOINT3_REVOLUTE) g[r] = wrap(g[r]);
    if (gt) gt[r] = -df;
    return RC_OK;
}

rc_status rcm_joint3_eval_q(const rc_world *w, const rcm_joint3 *j, const double *q, double t, double Ha[][6], double Hb[][6],
                            double *g, double *gt)
{
    return rcm_joint3_eval(j, rcm_joint3_pose(w, j->body_a, q), rcm_joint3_pose(w, j->body_b, q), t, Ha, Hb, g, gt);
}

void rcm_joint3_coord_row(const rcm_joint3 *j, const double *xa, const double *xb, double ha[6], double hb[6])
{
    rcm_joint3 tmp = *j;
    double Ha[RCM_J3_MAXROWS][6], Hb[RCM_J3_MAXROWS][6], g[RCM_J3_MAXROWS];
    if (!tmp.drive && tmp.type != RC_JOINT3_DISTANCE) { tmp.drive = 1; tmp.rows++; }
    tmp.drive = 1;
    rcm_joint3_rows_at(&tmp, xa, xb, Ha, Hb, g);
    memcpy(ha, Ha[tmp.rows - 1], 6 * sizeof(double));
    memcpy(hb, Hb[tmp.rows - 1], 6 * sizeof(double));
}

double rcm_joint3_coordinate(const rc_world *w, const rcm_joint3 *j, const double *q)
{
    if (j->type != RC_JOINT3_REVOLUTE && j->type != RC_JOINT3_PRISMATIC && j->type != RC_JOINT3_DISTANCE) return 0.0;
    rcm_joint3 tmp = *j;   /* the coordinate's row, driven or not */
    double Ha[RCM_J3_MAXROWS][6], Hb[RCM_J3_MAXROWS][6], g[RCM_J3_MAXROWS];
    if (!tmp.drive && tmp.type != RC_JOINT3_DISTANCE) { tmp.drive = 1; tmp.rows++; tmp.offset = 0.0; }
    if (tmp.type == RC_JOINT3_DISTANCE) tmp.drive = 1;
    rcm_joint3_rows_at(&tmp, rcm_joint3_pose(w, j->body_a, q), rcm_joint3_pose(w, j->body_b, q), Ha, Hb, g);
    const double c = g[tmp.rows - 1];
    return tmp.type == RC_JOINT3_REVOLUTE ? tmp.offset + wrap(c - tmp.offset) : c;
}

rc_status rcm_joint3_drive_init(rc_world *w, rcm_joint3 *j, const rc_joint3_def *def)
{
    static const char *const kinds[] = { "", "spherical", "revolute", "fixed", "distance", "prismatic" };
    j->drive = 0;
    if (!def->motion) return RC_OK;
    if (def->type != RC_JOINT3_REVOLUTE && def->type != RC_JOINT3_PRISMATIC && def->type != RC_JOINT3_DISTANCE)
        return rc_set_error(RC_ERR_ARG, "rc_joint3_create: a %s joint takes no 'motion' (revolute: the angle, prismatic: the slide, "
                            "distance: the length)", kinds[def->type]);
    j->motion = def->motion;
    j->motion_user = def->motion_user;
    double f, df;
    RC_CHECK(rcm_joint3_motion(j, w->t, &f, &df));   /* a wrong function is reported at creation */
    if (def->type == RC_JOINT3_DISTANCE) {
        if (!(f > 0.0))
            return rc_set_error(RC_ERR_ARG, "rc_joint3_create: the distance joint's motion gives the length %.17g at t = %.17g "
                                "(it must be > 0)", f, w->t);
        if (fabs(f - j->length) > 1e-9 * (1.0 + j->length))
            return rc_set_error(RC_ERR_ARG, "rc_joint3_create: the distance joint's motion gives the length %.17g at t = %.17g but "
                                "its anchors are %.17g apart: start the motion at their distance", f, w->t, j->length);
    } else {
        j->offset = f;   /* the pose at creation is f(t_0) */
        j->rows++;
    }
    j->drive = 1;
    w->j3->fresh = 1;   /* the next step starts on the drive's rate (rcm_joints3_start) */
    return RC_OK;
}
