/*
 * base/rot3.h -- 3-vectors and unit quaternions for spatial bodies and their
 * contact geometry (header only; every function inline).
 *
 * Conventions (docs/theory/spatial.md):
 *   a quaternion is q = (w, x, y, z) with w the scalar part; a unit q rotates
 *   a body-frame vector b into the world frame as R(q) b = q (0, b) q*;
 *   angular velocities are in the body frame (Omega), so q' = 1/2 q (0, Omega)
 *   and the Lie-group update over a step is q_{k+1} = q_k exp(h Omega / 2)
 *   with exp(phi/2) = (cos |phi|/2, sin(|phi|/2) phi/|phi|) (Bruls & Cardona
 *   2010; a rotation vector phi = h Omega).
 */
#ifndef RC_BASE_ROT3_H
#define RC_BASE_ROT3_H

#include <math.h>

static inline void rcb_v3_set(double *r, double x, double y, double z) { r[0] = x; r[1] = y; r[2] = z; }
static inline void rcb_v3_copy(double *r, const double *a) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }
static inline double rcb_v3_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double rcb_v3_norm(const double *a) { return sqrt(rcb_v3_dot(a, a)); }
static inline void rcb_v3_add(double *r, const double *a, const double *b)
{
    r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
static inline void rcb_v3_sub(double *r, const double *a, const double *b)
{
    r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void rcb_v3_scale(double *r, double s, const double *a) { r[0] = s * a[0]; r[1] = s * a[1]; r[2] = s * a[2]; }
/* r = a + s b */
static inline void rcb_v3_axpy(double *r, const double *a, double s, const double *b)
{
    r[0] = a[0] + s * b[0]; r[1] = a[1] + s * b[1]; r[2] = a[2] + s * b[2];
}
/* r = a x b (r may not alias a or b) */
static inline void rcb_v3_cross(double *r, const double *a, const double *b)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* r = a b (Hamilton product; r may not alias a or b) */
static inline void rcb_quat_mul(double *r, const double *a, const double *b)
{
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}
static inline double rcb_quat_norm(const double *q) { return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]); }
static inline void rcb_quat_normalize(double *q)
{
    const double s = 1.0 / rcb_quat_norm(q);
    q[0] *= s; q[1] *= s; q[2] *= s; q[3] *= s;
}
/* R(q) as a row-major 3x3 matrix (q unit) */
static inline void rcb_quat_matrix(const double *q, double *R)
{
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}
/* r = R(q) b (body -> world); r may not alias b */
static inline void rcb_quat_rotate(double *r, const double *q, const double *b)
{
    double t[3], u[3];
    rcb_v3_cross(t, q + 1, b);                          /* t = 2 (v x b) */
    rcb_v3_scale(t, 2.0, t);
    rcb_v3_cross(u, q + 1, t);
    r[0] = b[0] + q[0] * t[0] + u[0];
    r[1] = b[1] + q[0] * t[1] + u[1];
    r[2] = b[2] + q[0] * t[2] + u[2];
}
/* r = R(q)^T a (world -> body); r may not alias a */
static inline void rcb_quat_rotate_inv(double *r, const double *q, const double *a)
{
    const double qc[4] = { q[0], -q[1], -q[2], -q[3] };
    rcb_quat_rotate(r, qc, a);
}
/* e = exp(phi / 2): the unit quaternion of the rotation vector phi (a Taylor
 * series below |phi| = 1e-4, so that a small step loses no digits) */
static inline void rcb_quat_exp(double *e, const double *phi)
{
    const double a = rcb_v3_norm(phi), half = 0.5 * a;
    double s;   /* sin(|phi|/2) / |phi| */
    if (a < 1e-4) s = 0.5 - a * a / 48.0;
    else s = sin(half) / a;
    e[0] = cos(half);
    e[1] = s * phi[0]; e[2] = s * phi[1]; e[3] = s * phi[2];
}
/* q <- q exp(phi / 2) renormalised: the Lie-group update with the body-frame
 * rotation vector phi (h Omega over a step) */
static inline void rcb_quat_step(double *q, const double *phi)
{
    double e[4], r[4];
    rcb_quat_exp(e, phi);
    rcb_quat_mul(r, q, e);
    rcb_quat_normalize(r);
    q[0] = r[0]; q[1] = r[1]; q[2] = r[2]; q[3] = r[3];
}

/* q of a rotation matrix R (row-major, orthonormal, det +1), with w >= 0:
 * Shepperd's method (the largest of the four squares taken first, so that
 * no branch divides by a small number) */
static inline void rcb_quat_from_matrix(double *q, const double *R)
{
    const double tr = R[0] + R[4] + R[8];
    double t;
    if (tr >= R[0] && tr >= R[4] && tr >= R[8]) {
        t = sqrt(1.0 + tr) * 2.0;   /* 4 w */
        q[0] = 0.25 * t; q[1] = (R[7] - R[5]) / t; q[2] = (R[2] - R[6]) / t; q[3] = (R[3] - R[1]) / t;
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        t = sqrt(1.0 + R[0] - R[4] - R[8]) * 2.0;   /* 4 x */
        q[0] = (R[7] - R[5]) / t; q[1] = 0.25 * t; q[2] = (R[1] + R[3]) / t; q[3] = (R[2] + R[6]) / t;
    } else if (R[4] >= R[8]) {
        t = sqrt(1.0 + R[4] - R[0] - R[8]) * 2.0;   /* 4 y */
        q[0] = (R[2] - R[6]) / t; q[1] = (R[1] + R[3]) / t; q[2] = 0.25 * t; q[3] = (R[5] + R[7]) / t;
    } else {
        t = sqrt(1.0 + R[8] - R[0] - R[4]) * 2.0;   /* 4 z */
        q[0] = (R[3] - R[1]) / t; q[1] = (R[2] + R[6]) / t; q[2] = (R[5] + R[7]) / t; q[3] = 0.25 * t;
    }
    if (q[0] < 0.0) { q[0] = -q[0]; q[1] = -q[1]; q[2] = -q[2]; q[3] = -q[3]; }
    rcb_quat_normalize(q);
}

#endif /* RC_BASE_ROT3_H */
