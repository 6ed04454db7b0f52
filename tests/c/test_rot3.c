/* test_rot3.c -- base/rot3.h: quaternion rotation against its matrix, the
 * Lie-group update against the closed-form rotation about a fixed axis, and
 * unit norm kept over many steps. */
#include "rc_test.h"
#include "base/rot3.h"

RC_TEST(rotate_matches_matrix_and_inverse)
{
    double q[4] = { 0.3, -0.5, 0.7, 0.2 }, b[3] = { 1.0, -2.0, 0.5 }, R[9], r[3], back[3];
    rcb_quat_normalize(q);
    rcb_quat_matrix(q, R);
    rcb_quat_rotate(r, q, b);
    for (int i = 0; i < 3; i++) CHECK_NEAR(r[i], R[3 * i] * b[0] + R[3 * i + 1] * b[1] + R[3 * i + 2] * b[2], 1e-15);
    rcb_quat_rotate_inv(back, q, r);
    for (int i = 0; i < 3; i++) CHECK_NEAR(back[i], b[i], 1e-15);
    /* R is orthogonal with determinant 1 */
    double c[3];
    rcb_v3_cross(c, R, R + 3);   /* rows: (row 0) x (row 1) = row 2 */
    for (int i = 0; i < 3; i++) CHECK_NEAR(c[i], R[6 + i], 1e-15);
}

RC_TEST(step_about_fixed_axis_is_exact)
{
    /* a body spinning at Omega about its body z axis: after n steps of h,
     * q = (cos(n h w / 2), 0, 0, sin(n h w / 2)) exactly (up to round-off) */
    double q[4] = { 1, 0, 0, 0 }, phi[3] = { 0, 0, 1e-3 * 7.0 };
    for (int k = 0; k < 10000; k++) rcb_quat_step(q, phi);
    CHECK_NEAR(q[0], cos(0.5 * 70.0), 1e-12);
    CHECK_NEAR(q[3], sin(0.5 * 70.0), 1e-12);
    CHECK_NEAR(rcb_quat_norm(q), 1.0, 1e-15);
}

RC_TEST(small_angle_exp_is_continuous)
{
    /* the Taylor branch and sin(a/2)/a meet at |phi| = 1e-4 */
    double e1[4], e2[4], p1[3] = { 0, 0, 0.99999999e-4 }, p2[3] = { 0, 0, 1.00000001e-4 };
    rcb_quat_exp(e1, p1);
    rcb_quat_exp(e2, p2);
    CHECK_NEAR(e1[3] / p1[2], e2[3] / p2[2], 3e-16);
    CHECK_NEAR(rcb_quat_norm(e1), 1.0, 1e-16);
}

RC_TEST(matrix_to_quaternion_round_trip)
{
    /* every branch of Shepperd's method: rotations by pi - 0.1 about x, y, z
     * (trace below each diagonal entry) and a generic one (trace largest) */
    const double a = 3.0415926535897931;
    double qs[4][4] = { { cos(a / 2), sin(a / 2), 0, 0 }, { cos(a / 2), 0, sin(a / 2), 0 },
                        { cos(a / 2), 0, 0, sin(a / 2) }, { 0.3, -0.5, 0.7, 0.2 } };
    for (int k = 0; k < 4; k++) {
        double *q = qs[k], R[9], back[4];
        rcb_quat_normalize(q);
        rcb_quat_matrix(q, R);
        rcb_quat_from_matrix(back, R);
        for (int i = 0; i < 4; i++) CHECK_NEAR(back[i], q[i], 1e-15);
    }
}

RC_TEST_MAIN(T(rotate_matches_matrix_and_inverse), T(step_about_fixed_axis_is_exact), T(small_angle_exp_is_continuous),
             T(matrix_to_quaternion_round_trip))
