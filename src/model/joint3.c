/* joint3.c -- joints between spatial rigid bodies (rc_joint3_create): their
 * definitions in the bodies' frames, their rows and position-level
 * violations, and the projections of project_joints (docs/theory/spatial.md,
 * "Joints").
 *
 * Rows (world directions d; body-frame angular velocity Omega as
 * collide/geom3d.h): a point row d.(v_B + R_B(Omega_B x R_B^T r_B)) - (same
 * for A) = (d, R_B^T (r_B x d)) v_B - (d, R_A^T (r_A x d)) v_A, an angular
 * row d.(R_B Omega_B - R_A Omega_A) = (0, R_B^T d) v_B - (0, R_A^T d) v_A.
 *   spherical  g = P_B - P_A, point rows along e_x, e_y, e_z;
 *   revolute   + g_i = t_i . (u_A x u_B) (u = the hinge axis in the world,
 *              t_1, t_2 a frame across u_A): angular rows along t_1, t_2
 *              (d/dt (u_A x u_B) = the part of Omega_B - Omega_A across u
 *              at u_A = u_B);
 *   fixed      + g = the rotation vector of R_B (R_A R_rel)^T: angular rows
 *              along e_x, e_y, e_z;
 *   distance   g = |P_B - P_A| - L, a point row along the unit P_B - P_A;
 *   prismatic  g_i = t_i . (P_B - P_A) (t_i across u_A): point rows along
 *              t_1, t_2 with A's arm to P_B (that carries d/dt t_i =
 *              omega_A x t_i), + fixed's 3 angular rows. */
#include "model/model.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

rc_joint3_def rc_default_joint3_def(void)
{
    rc_joint3_def d;
    memset(&d, 0, sizeof d);
    d.type = RC_JOINT3_SPHERICAL;
    d.body_a = RC_GROUND;
    d.body_b = -1;
    return d;
}

static const int joint3_rows[] = { 0, 3, 5, 6, 1, 5 };

/* a body's q (7) and frame, or the ground's identity */
const double *rcm_joint3_pose(const rc_world *w, int body, const double *q)
{
    static const double ground[7] = { 0, 0, 0, 1, 0, 0, 0 };
    return body == RC_GROUND ? ground : q + w->bodies[body].iq;
}
#define pose_of rcm_joint3_pose

/* world point of the body-frame point p, and its offset r from the centre */
static void world_point(const double *x, const double *p, double *P, double *r)
{
    rcb_quat_rotate(r, x + 3, p);
    rcb_v3_add(P, x, r);
}

static void angular_row(const double *qq, const double *d, double sign, double *row)
{
    double t[3];
    rcb_quat_rotate_inv(t, qq, d);
    for (int k = 0; k < 3; k++) { row[k] = 0.0; row[3 + k] = sign * t[k]; }
}

/* sign (d, R^T (r x d)): rcc_jacobian3d's row (collide/geom3d.h) */
static void point_row(const double *x, const double *r, const double *d, double sign, double *row)
{
    double c[3], t[3];
    rcb_v3_cross(c, r, d);
    rcb_quat_rotate_inv(t, x + 3, c);
    for (int k = 0; k < 3; k++) { row[k] = sign * d[k]; row[3 + k] = sign * t[k]; }
}

/* two unit vectors across the unit u (Frisvad 2012, as rcc_tangent_frame) */
static void across(const double *u, double *t1, double *t2)
{
    if (u[2] < -0.9999999) {
        rcb_v3_set(t1, 0.0, -1.0, 0.0);
        rcb_v3_set(t2, -1.0, 0.0, 0.0);
        return;
    }
    const double a = 1.0 / (1.0 + u[2]), b = -u[0] * u[1] * a;
    rcb_v3_set(t1, 1.0 - u[0] * u[0] * a, b, -u[0]);
    rcb_v3_set(t2, b, 1.0 - u[1] * u[1] * a, -u[1]);
}

/* the rotation vector of the unit quaternion e (|phi| <= pi) */
static void quat_log(const double *e, double *phi)
{
    const double s = sqrt(e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
    const double c = e[0] < 0.0 ? -e[0] : e[0], sg = e[0] < 0.0 ? -1.0 : 1.0;
    const double f = s < 1e-12 ? 2.0 : 2.0 * atan2(s, c) / s;
    for (int k = 0; k < 3; k++) phi[k] = sg * f * e[k + 1];
}

/* 3 angular rows: R_B = R_A R_rel, g the rotation vector of R_B (R_A R_rel)^T */
static void fixed_rotation(const rcm_joint3 *j, const double *xa, const double *xb, double Ha[][6], double Hb[][6], double *g)
{
    double qt[4], qerr[4], phi[3], qinv[4] = { xb[3], -xb[4], -xb[5], -xb[6] };
    rcb_quat_mul(qt, xa + 3, j->qrel);   /* R_A R_rel: B's target */
    rcb_quat_mul(qerr, qt, qinv);        /* (R_A R_rel) R_B^T */
    quat_log(qerr, phi);                 /* rotation of B's target from B: -g */
    for (int k = 0; k < 3; k++) {
        double e[3] = { 0, 0, 0 };
        e[k] = 1.0;
        angular_row(xb + 3, e, 1.0, Hb[k]);
        angular_row(xa + 3, e, -1.0, Ha[k]);
        g[k] = -phi[k];
    }
}

void rcm_joint3_rows(const rc_world *w, const rcm_joint3 *j, const double *q, double Ha[][6], double Hb[][6], double *g)
{
    rcm_joint3_rows_at(j, pose_of(w, j->body_a, q), pose_of(w, j->body_b, q), Ha, Hb, g);
}

void rcm_joint3_rows_at(const rcm_joint3 *j, const double *xa, const double *xb, double Ha[][6], double Hb[][6], double *g)
{
    double PA[3], PB[3], rA[3], rB[3];
    world_point(xa, j->pa, PA, rA);
    world_point(xb, j->pb, PB, rB);
    memset(Ha, 0, sizeof(double) * 6 * (size_t)j->rows);
    memset(Hb, 0, sizeof(double) * 6 * (size_t)j->rows);
    if (j->type == RC_JOINT3_DISTANCE) {
        double d[3];
        rcb_v3_sub(d, PB, PA);
        const double L = rcb_v3_norm(d);
        if (L > 0.0) rcb_v3_scale(d, 1.0 / L, d);
        else rcb_v3_set(d, 1.0, 0.0, 0.0);
        point_row(xb, rB, d, 1.0, Hb[0]);
        point_row(xa, rA, d, -1.0, Ha[0]);
        g[0] = L - (j->drive ? 0.0 : j->length);   /* driven: the length (minus l(t): rcm_joint3_eval) */
        return;
    }
    if (j->type == RC_JOINT3_PRISMATIC) {   /* t_i . (P_B - P_A) = 0, t_i across u_A; A's arm to P_B */
        double uA[3], t[2][3], dP[3], rAB[3];
        rcb_quat_rotate(uA, xa + 3, j->ua);
        across(uA, t[0], t[1]);
        rcb_v3_sub(dP, PB, PA);
        rcb_v3_sub(rAB, PB, xa);
        for (int k = 0; k < 2; k++) {
            point_row(xb, rB, t[k], 1.0, Hb[k]);
            point_row(xa, rAB, t[k], -1.0, Ha[k]);
            g[k] = rcb_v3_dot(t[k], dP);
        }
        fixed_rotation(j, xa, xb, Ha + 2, Hb + 2, g + 2);
        if (j->drive) {   /* the slide u_A . (P_B - P_A) (+ offset), A's arm to P_B as above */
            point_row(xb, rB, uA, 1.0, Hb[5]);
            point_row(xa, rAB, uA, -1.0, Ha[5]);
            g[5] = j->offset + rcb_v3_dot(uA, dP);
        }
        return;
    }
    for (int k = 0; k < 3; k++) {   /* P_B = P_A */
        double e[3] = { 0, 0, 0 };
        e[k] = 1.0;
        point_row(xb, rB, e, 1.0, Hb[k]);
        point_row(xa, rA, e, -1.0, Ha[k]);
        g[k] = PB[k] - PA[k];
    }
    if (j->type == RC_JOINT3_REVOLUTE) {
        double uA[3], uB[3], c[3], t[2][3];
        rcb_quat_rotate(uA, xa + 3, j->ua);
        rcb_quat_rotate(uB, xb + 3, j->ub);
        across(uA, t[0], t[1]);
        rcb_v3_cross(c, uA, uB);
        for (int k = 0; k < 2; k++) {
            angular_row(xb + 3, t[k], 1.0, Hb[3 + k]);
            angular_row(xa + 3, t[k], -1.0, Ha[3 + k]);
            g[3 + k] = rcb_v3_dot(t[k], c);
        }
        if (j->drive) {   /* the angle of e = q_A^-1 q_B q_rel^-1 about the axis: rate u_A . (omega_B - omega_A) */
            double qab[4], e[4];
            const double qa_inv[4] = { xa[3], -xa[4], -xa[5], -xa[6] }, qr_inv[4] = { j->qrel[0], -j->qrel[1], -j->qrel[2], -j->qrel[3] };
            rcb_quat_mul(qab, qa_inv, xb + 3);
            rcb_quat_mul(e, qab, qr_inv);
            angular_row(xb + 3, uA, 1.0, Hb[5]);
            angular_row(xa + 3, uA, -1.0, Ha[5]);
            g[5] = j->offset + 2.0 * atan2(rcb_v3_dot(e + 1, j->ua), e[0]);
        }
    } else if (j->type == RC_JOINT3_FIXED) fixed_rotation(j, xa, xb, Ha + 3, Hb + 3, g + 3);
}

/* ---------------------------------------------------------------- creation */

static int is_body3(const rc_world *w, int b)
{
    return b >= 0 && b < w->nbodies && w->bodies[b].kind == RC_BODY_RIGID3D;
}

static rc_status check_def(const rc_world *w, const rc_joint3_def *d)
{
    const char *f = "rc_joint3_create";
    if (w->def.dim != 3) return rc_set_error(RC_ERR_ARG, "%s: joints of spatial bodies need a world of dim = 3 (planar worlds take rc_joint_create)", f);
    if ((int)d->type < RC_JOINT3_SPHERICAL || (int)d->type > RC_JOINT3_PRISMATIC)
        return rc_set_error(RC_ERR_ARG, "%s: unknown joint type %d (spherical, revolute, fixed, distance, prismatic)", f, (int)d->type);
    if (!is_body3(w, d->body_b)) return rc_set_error(RC_ERR_ARG, "%s: body B (%d) must be a spatial rigid body of this world", f, d->body_b);
    if (d->body_a != RC_GROUND && !is_body3(w, d->body_a))
        return rc_set_error(RC_ERR_ARG, "%s: body A (%d) must be a spatial rigid body of this world or RC_GROUND", f, d->body_a);
    if (d->body_a == d->body_b) return rc_set_error(RC_ERR_ARG, "%s: A and B are the same body (%d): give two different bodies", f, d->body_a);
    for (int k = 0; k < 3; k++)
        if (!rcb_finite(d->anchor[k]) || !rcb_finite(d->anchor_b[k]) || !rcb_finite(d->axis[k]))
            return rc_set_error(RC_ERR_ARG, "%s: 'anchor', 'anchor_b' and 'axis' must be finite", f);
    if ((d->type == RC_JOINT3_REVOLUTE || d->type == RC_JOINT3_PRISMATIC) && rcb_v3_norm(d->axis) == 0.0) return rc_set_error(RC_ERR_ARG, "%s: 'axis' must be nonzero", f);
    if (d->type == RC_JOINT3_DISTANCE) {
        double e[3];
        rcb_v3_sub(e, d->anchor_b, d->anchor);
        if (!(rcb_v3_norm(e) > 0.0)) return rc_set_error(RC_ERR_ARG, "%s: a distance joint needs 'anchor_b' apart from 'anchor' (its length)", f);
    }
    return RC_OK;
}

/* the world point P into the frame of a side (the ground: P itself) */
static void to_frame(const double *x, const double *P, double *p)
{
    double r[3];
    rcb_v3_sub(r, P, x);
    rcb_quat_rotate_inv(p, x + 3, r);
}

rc_status rc_joint3_create(rc_world *w, const rc_joint3_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_joint3_create: NULL argument");
    RC_CHECK(check_def(w, def));
    if (!w->j3) {
        w->j3 = rcb_malloc(sizeof *w->j3);
        if (!w->j3) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(w->j3, 0, sizeof *w->j3);
    }
    if (!w->c3) {   /* the 3D contacts' stage runs the joints' blocks */
        w->c3 = rcb_malloc(sizeof *w->c3);
        if (!w->c3) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(w->c3, 0, sizeof *w->c3);
    }
    rcm_j3 *j3 = w->j3;
    RC_CHECK(rcb_reserve((void **)&j3->j, &j3->cap, j3->n + 1, sizeof(rcm_joint3)));
    rcm_joint3 *j = &j3->j[j3->n];
    memset(j, 0, sizeof *j);
    if (def->name && !(j->name = rcb_strdup(def->name))) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    j->type = def->type;
    j->body_a = def->body_a;
    j->body_b = def->body_b;
    j->rows = joint3_rows[def->type];
    const double *xa = pose_of(w, j->body_a, w->q), *xb = pose_of(w, j->body_b, w->q);
    to_frame(xa, def->anchor, j->pa);
    to_frame(xb, def->type == RC_JOINT3_DISTANCE ? def->anchor_b : def->anchor, j->pb);
    if (def->type == RC_JOINT3_DISTANCE) {
        double e[3];
        rcb_v3_sub(e, def->anchor_b, def->anchor);
        j->length = rcb_v3_norm(e);
    }
    double u[3];
    rcb_v3_scale(u, 1.0 / fmax(rcb_v3_norm(def->axis), 1e-300), def->axis);
    rcb_quat_rotate_inv(j->ua, xa + 3, u);
    rcb_quat_rotate_inv(j->ub, xb + 3, u);
    const double qainv[4] = { xa[3], -xa[4], -xa[5], -xa[6] };
    rcb_quat_mul(j->qrel, qainv, xb + 3);
    rc_status st = rcm_joint3_drive_init(w, j, def);   /* joint3_drive.c: checks, offset, the driven row */
    if (st != RC_OK) { rcb_free(j->name); j->name = NULL; return st; }
    if (out_id) *out_id = j3->n;
    j3->n++;
    return RC_OK;
}

int rc_joint3_count(const rc_world *w) { return w && w->j3 ? w->j3->n : 0; }

rc_status rc_joint3_get(const rc_world *w, int id, rc_joint3_info *out)
{
    if (!w || !out) return rc_set_error(RC_ERR_ARG, "rc_joint3_get: NULL argument");
    if (id < 0 || id >= rc_joint3_count(w)) return rc_set_error(RC_ERR_NOT_FOUND, "rc_joint3_get: no 3D joint %d", id);
    const rcm_joint3 *j = &w->j3->j[id];
    memset(out, 0, sizeof *out);
    out->type = (rc_joint3_type)j->type;
    out->body_a = j->body_a;
    out->body_b = j->body_b;
    out->rows = j->rows;
    out->name = j->name;
    for (int k = 0; k < j->rows; k++) out->impulse[k] = j->lambda[k];
    out->violation = j->viol;
    out->work = j->work;
    out->coordinate = rcm_joint3_coordinate(w, j, w->q);   /* joint3_drive.c */
    out->driven = j->drive;
    if (j->drive && w->sim.h > 0.0) out->drive_force = j->lambda[j->rows - 1] / w->sim.h;
    if (j->motor && w->sim.h > 0.0) out->motor_force = j->motor_lambda / w->sim.h;
    return RC_OK;
}

void rcm_j3_free(rc_world *w)
{
    rcm_j3 *j3 = w->j3;
    if (!j3) return;
    for (int i = 0; i < j3->n; i++) rcb_free(j3->j[i].name);
    rcb_free(j3->j);
    rcb_free(j3);
    w->j3 = NULL;
}
