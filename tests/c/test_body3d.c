/* test_body3d.c -- spatial rigid bodies (RC_BODY_RIGID3D): mass properties
 * against closed forms and quadrature, the inertia tensor's principal frame,
 * the torque-free asymmetric top (the intermediate-axis "tennis racket"
 * flip: energy, |L| and |q| invariants, the flip period against the
 * Jacobi-elliptic solution), the symmetric top's precession rates, the free
 * parabola, the linearised iteration matrix that contacts will use, and the
 * errors. docs/theory/spatial.md. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "rc_test.h"
#include "ricochet.h"
#include "model/model.h"
#include "base/rot3.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

static rc_world *world3(double gz, rc_scheme scheme, double h, double theta)
{
    rc_world_def wd = rc_default_world_def();
    wd.dim = 3;
    wd.gravity[2] = gz;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme;
    sd.h = h;
    sd.theta = theta;
    if (rc_world_configure(w, &sd) != RC_OK) { rc_world_destroy(w); return NULL; }
    return w;
}

static int body3(rc_world *w, double m, const double J[3], const double q[7], const double v[6])
{
    rc_body3d_def d = rc_default_body3d_def();
    d.mass = m;
    for (int i = 0; i < 3; i++) d.inertia[4 * i] = J[i];
    memcpy(d.q, q, sizeof d.q);
    memcpy(d.v, v, sizeof d.v);
    int id = -1;
    if (rc_body3d_create(w, &d, &id) != RC_OK) fprintf(stderr, "  body3d: %s\n", rc_last_error());
    return id;
}

/* world-frame angular momentum L = R(q) J Omega */
static void momentum(const double *q, const double *v, const double J[3], double L[3])
{
    const double b[3] = { J[0] * v[3], J[1] * v[4], J[2] * v[5] };
    rcb_quat_rotate(L, q + 3, b);
}

/* ---------------------------------------------------------------- mass properties */

RC_TEST(solid_mass_properties)
{
    double m, J[3];
    const double rho = 2300.0, r = 0.3;
    CHECK_OK(rc_solid_mass_properties(RC_SOLID_SPHERE, &r, rho, &m, J));
    CHECK_NEAR(m, rho * 4.0 / 3.0 * PI * r * r * r, 1e-12 * m);
    for (int i = 0; i < 3; i++) CHECK_NEAR(J[i], 0.4 * m * r * r, 1e-12 * J[i]);
    const double box[3] = { 0.5, 1.0, 0.25 };
    CHECK_OK(rc_solid_mass_properties(RC_SOLID_BOX, box, rho, &m, J));
    CHECK_NEAR(m, rho * 1.0 * 2.0 * 0.5, 1e-12 * m);   /* 1 x 2 x 0.5 m */
    CHECK_NEAR(J[0], m / 12.0 * (2.0 * 2.0 + 0.5 * 0.5), 1e-12 * J[0]);
    CHECK_NEAR(J[1], m / 12.0 * (1.0 * 1.0 + 0.5 * 0.5), 1e-12 * J[1]);
    CHECK_NEAR(J[2], m / 12.0 * (1.0 * 1.0 + 2.0 * 2.0), 1e-12 * J[2]);
    /* capsule: against a quadrature of discs along z (Simpson, 20 000
     * intervals): a disc of radius a(z) at height z has dm = rho pi a^2 dz,
     * dJz = dm a^2 / 2, dJx = dm (a^2 / 4 + z^2) */
    const double cap[2] = { 0.2, 0.7 }, R = cap[0], l = cap[1], top = l + R;
    CHECK_OK(rc_solid_mass_properties(RC_SOLID_CAPSULE, cap, rho, &m, J));
    const int n = 20000;
    double qm = 0.0, qx = 0.0, qz = 0.0;
    for (int i = 0; i <= n; i++) {
        const double z = -top + 2.0 * top * i / n, az = fabs(z) > l ? fabs(z) - l : 0.0;
        const double a2 = R * R - az * az > 0.0 ? R * R - az * az : 0.0;
        const double wgt = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0), dm = wgt * rho * PI * a2;
        qm += dm; qz += dm * a2 / 2.0; qx += dm * (a2 / 4.0 + z * z);
    }
    const double hz = 2.0 * top / n / 3.0;
    CHECK_NEAR(m, qm * hz, 1e-9 * m);
    CHECK_NEAR(J[2], qz * hz, 1e-9 * J[2]);
    CHECK_NEAR(J[0], qx * hz, 1e-9 * J[0]);
    CHECK_NEAR(J[1], J[0], 0.0);
    const double sph[2] = { 0.3, 0.0 };   /* a capsule of length 0 is the sphere */
    double ms, Js[3];
    CHECK_OK(rc_solid_mass_properties(RC_SOLID_CAPSULE, sph, rho, &ms, Js));
    CHECK_OK(rc_solid_mass_properties(RC_SOLID_SPHERE, &r, rho, &m, J));
    CHECK_NEAR(ms, m, 1e-12 * m);
    CHECK_NEAR(Js[0], J[0], 1e-12 * J[0]);
    CHECK_NEAR(Js[2], J[2], 1e-12 * J[2]);
    CHECK(rc_solid_mass_properties(RC_SOLID_BOX, box, -1.0, &m, J) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "solid: 'density' must be > 0 (got -1)") == 0);
}

/* A full tensor J_user = P diag(1, 2, 3) P^T: the body gets the principal
 * moments, and the world-frame angular momentum and velocity are those of
 * the body as given. */
RC_TEST(inertia_tensor_principal_frame)
{
    rc_world *w = world3(0.0, RC_SCHEME_MOREAU_JEAN, 1e-3, 0.5);
    CHECK(w != NULL);
    if (!w) return;
    double p[4] = { 0.9, 0.2, -0.3, 0.25 }, P[9];
    rcb_quat_normalize(p);
    rcb_quat_matrix(p, P);
    const double d[3] = { 1.0, 2.0, 3.0 };
    rc_body3d_def def = rc_default_body3d_def();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += P[3 * i + k] * d[k] * P[3 * j + k];
            def.inertia[3 * i + j] = s;
        }
    for (int i = 0; i < 3; i++)   /* (exactly symmetric) */
        for (int j = 0; j < i; j++) def.inertia[3 * i + j] = def.inertia[3 * j + i];
    const double q0[4] = { 0.8, 0.1, 0.5, -0.3 };   /* not normalised: normalised on input */
    memcpy(def.q + 3, q0, sizeof q0);
    const double om[3] = { 0.4, -1.0, 2.0 };
    memcpy(def.v + 3, om, sizeof om);
    int id;
    CHECK_OK(rc_body3d_create(w, &def, &id));
    double m, J[3], q[7], v[6];
    CHECK_OK(rc_body3d_get_mass(w, id, &m, J));
    CHECK_OK(rc_body_get_state(w, id, q, v));
    double sorted[3] = { J[0], J[1], J[2] };
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (sorted[j] < sorted[i]) { double t = sorted[i]; sorted[i] = sorted[j]; sorted[j] = t; }
    for (int i = 0; i < 3; i++) CHECK_NEAR(sorted[i], d[i], 1e-14);
    CHECK_NEAR(rcb_quat_norm(q + 3), 1.0, 1e-15);
    /* world frame: R(q_user) J_user om = R(q) J Omega, R(q_user) om = R(q) Omega */
    double qu[4] = { q0[0], q0[1], q0[2], q0[3] }, Ju[3], Lu[3], L[3], wu[3], wb[3];
    rcb_quat_normalize(qu);
    for (int i = 0; i < 3; i++) Ju[i] = def.inertia[3 * i] * om[0] + def.inertia[3 * i + 1] * om[1] + def.inertia[3 * i + 2] * om[2];
    rcb_quat_rotate(Lu, qu, Ju);
    momentum(q, v, J, L);
    for (int i = 0; i < 3; i++) CHECK_NEAR(L[i], Lu[i], 1e-13);
    rcb_quat_rotate(wu, qu, om);
    rcb_quat_rotate(wb, q + 3, v + 3);
    for (int i = 0; i < 3; i++) CHECK_NEAR(wb[i], wu[i], 1e-13);
    rc_world_destroy(w);
}

/* ---------------------------------------------------------------- the tennis racket */

/* K(k) by the arithmetic-geometric mean: K = pi / (2 AGM(1, sqrt(1 - k^2))) */
static double ellip_K(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 60 && fabs(a - b) > 1e-16 * a; i++) {
        const double t = 0.5 * (a + b);
        b = sqrt(a * b);
        a = t;
    }
    return PI / (2.0 * a);
}

/* The period of the torque-free asymmetric top's body-frame motion, J1 <
 * J2 < J3 (Landau & Lifshitz, Mechanics, 3rd ed., section 37, eqs.
 * 37.10-37.11: Euler's equations solved by Jacobi's elliptic functions,
 * Omega_2 = c sn(tau, k), tau = lambda t; sn has period 4K(k)):
 *   M^2 > 2 E J2: lambda^2 = (J3 - J2)(M^2 - 2 E J1) / (J1 J2 J3),
 *                 k^2 = (J2 - J1)(2 E J3 - M^2) / ((J3 - J2)(M^2 - 2 E J1));
 *   M^2 < 2 E J2: the same with J1 and J3 exchanged;
 * T = 4 K(k) / lambda. Near the intermediate axis k -> 1 and Omega_2 flips
 * sign every T / 2: the Dzhanibekov flip. */
static double racket_period(const double J[3], const double W[3])
{
    const double E2 = J[0] * W[0] * W[0] + J[1] * W[1] * W[1] + J[2] * W[2] * W[2];
    const double M2 = J[0] * J[0] * W[0] * W[0] + J[1] * J[1] * W[1] * W[1] + J[2] * J[2] * W[2] * W[2];
    const double J1 = J[0], J2 = J[1], J3 = J[2];
    double lam2, k2;
    if (M2 > E2 * J2) {
        lam2 = (J3 - J2) * (M2 - E2 * J1) / (J1 * J2 * J3);
        k2 = (J2 - J1) * (E2 * J3 - M2) / ((J3 - J2) * (M2 - E2 * J1));
    } else {
        lam2 = (J2 - J1) * (E2 * J3 - M2) / (J1 * J2 * J3);
        k2 = (J3 - J2) * (M2 - E2 * J1) / ((J2 - J1) * (E2 * J3 - M2));
    }
    return 4.0 * ellip_K(sqrt(k2)) / sqrt(lam2);
}

static void racket(int *failed, rc_scheme scheme)
{
    const double h = 1e-3, J[3] = { 1.0, 2.0, 3.0 }, W0[3] = { 0.2, 10.0, 0.2 };
    rc_world *w = world3(0.0, scheme, h, 0.5);
    CHECK(w != NULL);
    if (!w) return;
    const double q0[7] = { 0, 0, 0, 1, 0, 0, 0 }, v0[6] = { 0, 0, 0, W0[0], W0[1], W0[2] };
    const int id = body3(w, 1.0, J, q0, v0);
    double q[7], v[6], L0[3], E0, Ep, Ek;
    momentum(q0, v0, J, L0);
    const double nL0 = rcb_v3_norm(L0);
    CHECK_OK(rc_world_energy(w, &E0, &Ep));
    double dE = 0.0, dL = 0.0, dq = 0.0, dLvec = 0.0, crossings[16], prev = W0[1], tprev = 0.0, bal = 0.0;
    int nc = 0;
    for (int k = 1; k <= 10000; k++) {
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_body_get_state(w, id, q, v));
        CHECK_OK(rc_world_energy(w, &Ek, &Ep));
        double L[3];
        momentum(q, v, J, L);
        dE = fmax(dE, fabs(Ek - E0) / E0);
        dL = fmax(dL, fabs(rcb_v3_norm(L) - nL0) / nL0);
        for (int i = 0; i < 3; i++) dLvec = fmax(dLvec, fabs(L[i] - L0[i]) / nL0);
        dq = fmax(dq, fabs(rcb_quat_norm(q + 3) - 1.0));
        rc_step_info in;
        CHECK_OK(rc_world_step_info(w, &in));
        bal = fmax(bal, fabs(in.balance));
        const double t = k * h;
        if (prev < 0.0 && v[4] >= 0.0 && nc < 16)   /* Omega_2 crosses 0 upwards (interpolated) */
            crossings[nc++] = tprev + h * (-prev) / (v[4] - prev);
        prev = v[4]; tprev = t;
    }
    const double T = racket_period(J, W0);
    CHECK(nc >= 2);
    const double Tm = nc >= 2 ? (crossings[nc - 1] - crossings[0]) / (nc - 1) : 0.0;
    printf("  %s: |dE|/E = %.2e, ||L| - |L0||/|L0| = %.2e, max |L - L0|/|L0| = %.2e, ||q| - 1| = %.2e, |balance| = %.2e,\n"
           "  period %.6f s (%d up-crossings) vs 4K/lambda = %.6f s: %.2e relative\n",
           scheme == RC_SCHEME_MOREAU_JEAN ? "moreau-jean" : "moreau-jean-fremond", dE, dL, dLvec, dq, bal, Tm, nc, T,
           fabs(Tm - T) / T);
    CHECK(dE <= 1e-8);
    CHECK(dL <= 1e-8);
    CHECK(dq <= 1e-14);
    CHECK(fabs(Tm - T) <= 0.01 * T);
    CHECK(bal <= 1e-9 * E0);   /* the audit: Delta E = W_ext + (1/2 - theta) ||dv||_M^2 = 0 */
    rc_world_destroy(w);
}

RC_TEST(tennis_racket_moreau_jean) { racket(failed, RC_SCHEME_MOREAU_JEAN); }
RC_TEST(tennis_racket_fremond) { racket(failed, RC_SCHEME_MOREAU_JEAN_FREMOND); }

/* ---------------------------------------------------------------- symmetric top, parabola */

/* J = (1, 1, 2), Omega = (0.5, 0, 5): in the body frame (Omega_1, Omega_2)
 * turns at Omega_p = (J3 - J1) / J1 Omega_3 = 5 rad/s (Euler's equations,
 * Omega_3 constant); in the world frame the symmetry axis turns about L at
 * |L| / J1 (Landau & Lifshitz section 33). Over 2 s at h = 1e-3, theta =
 * 1/2: the midpoint's phase error per step is (h Omega_p)^2 / 12. */
RC_TEST(symmetric_top_precession)
{
    const double h = 1e-3, J[3] = { 1.0, 1.0, 2.0 }, q0[7] = { 0, 0, 0, 1, 0, 0, 0 }, v0[6] = { 0, 0, 0, 0.5, 0.0, 5.0 };
    rc_world *w = world3(0.0, RC_SCHEME_MOREAU_JEAN, h, 0.5);
    CHECK(w != NULL);
    if (!w) return;
    const int id = body3(w, 1.0, J, q0, v0);
    double L[3], q[7], v[6];
    momentum(q0, v0, J, L);
    const double nL = rcb_v3_norm(L), Lh[3] = { L[0] / nL, L[1] / nL, L[2] / nL };
    double u[3] = { 1, 0, 0 }, u2[3];   /* a basis (u, Lh x u) of the plane normal to L */
    double c = rcb_v3_dot(u, Lh);
    for (int i = 0; i < 3; i++) u[i] -= c * Lh[i];
    const double nu = rcb_v3_norm(u);
    for (int i = 0; i < 3; i++) u[i] /= nu;
    rcb_v3_cross(u2, Lh, u);
    double phi_body = 0.0, phi_world = 0.0, pb = 0.0, pw = 0.0, err_b = 0.0;
    {
        const double ez[3] = { 0, 0, 1 };
        double e3[3];
        rcb_quat_rotate(e3, q0 + 3, ez);
        pw = atan2(rcb_v3_dot(e3, u2), rcb_v3_dot(e3, u));
    }
    const double Wp = (J[2] - J[0]) / J[0] * v0[5];
    for (int k = 1; k <= 2000; k++) {
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_body_get_state(w, id, q, v));
        const double a = atan2(v[4], v[3]);
        double da = a - pb;
        da -= 2.0 * PI * floor((da + PI) / (2.0 * PI));
        phi_body += da; pb = a;
        err_b = fmax(err_b, fabs(hypot(v[3], v[4]) - 0.5));
        const double ez[3] = { 0, 0, 1 };
        double e3[3];
        rcb_quat_rotate(e3, q + 3, ez);
        const double b = atan2(rcb_v3_dot(e3, u2), rcb_v3_dot(e3, u));
        double db = b - pw;
        db -= 2.0 * PI * floor((db + PI) / (2.0 * PI));
        phi_world += db; pw = b;
    }
    const double T = 2000 * h;
    printf("  body-frame precession %.9f rad/s vs %.9f; world-frame %.9f vs |L|/J1 = %.9f; |Omega_perp| error %.1e\n",
           phi_body / T, Wp, phi_world / T, nL / J[0], err_b);
    CHECK_NEAR(phi_body / T, Wp, 1e-5 * Wp);
    CHECK_NEAR(phi_world / T, nL / J[0], 1e-5 * nL / J[0]);
    CHECK(err_b <= 1e-12);
    CHECK_NEAR(v[5], 5.0, 1e-12);
    rc_world_destroy(w);
}

/* Under gravity with theta = 1/2, x_k = x_0 + v_0 t + g t^2 / 2 exactly
 * (the midpoint is exact for a constant acceleration), whatever the spin. */
RC_TEST(free_fall_parabola)
{
    const double h = 1e-3, g = -9.81, J[3] = { 0.5, 1.0, 2.0 };
    rc_world *w = world3(g, RC_SCHEME_MOREAU_JEAN, h, 0.5);
    CHECK(w != NULL);
    if (!w) return;
    const double q0[7] = { 1, -2, 3, 1, 0, 0, 0 }, v0[6] = { 0.5, 1.0, 4.0, 1.0, 2.0, -3.0 };
    const int id = body3(w, 2.0, J, q0, v0);
    double q[7], v[6], err = 0.0;
    for (int k = 1; k <= 1000; k++) {
        CHECK_OK(rc_world_step(w));
        CHECK_OK(rc_body_get_state(w, id, q, v));
        const double t = k * h;
        for (int i = 0; i < 3; i++) {
            const double a = i == 2 ? g : 0.0;
            err = fmax(err, fabs(q[i] - (q0[i] + v0[i] * t + 0.5 * a * t * t)));
            err = fmax(err, fabs(v[i] - (v0[i] + a * t)));
        }
    }
    CHECK(err <= 1e-12);
    rc_step_info in;
    CHECK_OK(rc_world_step_info(w, &in));
    CHECK(fabs(in.balance) <= 1e-10);
    rc_world_destroy(w);
}

/* theta = 1 with a constant body torque: the audit balances each step,
 * Delta E = W_ext + (1/2 - theta) ||v_{k+1} - v_k||_M^2 (the gyroscopic
 * term does no work at Omega_theta), and theta > 1/2 dissipates: E_k
 * falls below E_0 + the work of the torque. */
RC_TEST(audit_with_torque_theta_one)
{
    const double h = 1e-3, J[3] = { 1.0, 2.0, 3.0 };
    for (int sc = 0; sc < 2; sc++) {
        rc_world *w = world3(-9.81, sc ? RC_SCHEME_MOREAU_JEAN_FREMOND : RC_SCHEME_MOREAU_JEAN, h, 1.0);
        CHECK(w != NULL);
        if (!w) return;
        const double q0[7] = { 0, 0, 1, 1, 0, 0, 0 }, v0[6] = { 1, 0, 0, 0.2, 10, 0.2 };
        const int id = body3(w, 1.0, J, q0, v0);
        const double f[6] = { 0.3, 0, 0, 0.5, -0.2, 0.1 };
        CHECK_OK(rc_body_set_force(w, id, f));
        double E0, Ek, Ep, bal = 0.0;
        CHECK_OK(rc_world_energy(w, &Ek, &Ep));
        E0 = Ek + Ep;
        rc_step_info in;
        for (int k = 0; k < 2000; k++) {
            CHECK_OK(rc_world_step(w));
            CHECK_OK(rc_world_step_info(w, &in));
            bal = fmax(bal, fabs(in.balance));
        }
        CHECK_OK(rc_world_energy(w, &Ek, &Ep));
        printf("  theta = 1 (%s): max |balance| = %.2e, E - E0 - W_ext = %.6f, W_theta = %.6f\n", sc ? "MJF" : "MJ", bal,
               Ek + Ep - E0 - in.W_ext_total, in.W_theta_total);
        CHECK(bal <= 1e-10 * E0);
        CHECK(in.W_theta_total < -1e-3);   /* dissipated */
        CHECK_NEAR(Ek + Ep - E0 - in.W_ext_total, in.W_theta_total, 1e-9 * E0);
        rc_world_destroy(w);
    }
}

/* ---------------------------------------------------------------- W for contacts */

/* solve_mass applies the inverse of the step's iteration matrix: an impulse
 * P (body frame) added to the step changes Omega_{k+1} by A^-1 P to first
 * order. Checked against the free velocity with the torque P / h. */
RC_TEST(iteration_matrix_is_the_linearised_step)
{
    const double h = 1e-2, J[3] = { 1.0, 2.0, 3.0 };
    rc_world *w = world3(0.0, RC_SCHEME_MOREAU_JEAN, h, 0.5);
    CHECK(w != NULL);
    if (!w) return;
    const double q0[7] = { 0, 0, 0, 1, 0, 0, 0 }, v0[6] = { 0.1, 0, 0, 3.0, -2.0, 5.0 };
    const int id = body3(w, 2.0, J, q0, v0);
    const rc_body *bd = &w->bodies[id];
    rcm_free_coef fc = { 0 };
    fc.theta = 0.5;
    const double f0[6] = { 0 };
    double V0[6], V1[6], rows[12] = { 0, 0, 1, 1e-6, -2e-6, 3e-6, 1, 0, 0, 0, 0, 0 };
    CHECK_OK(rcm_body_rigid3d.free_velocity(w, bd, &fc, w->v + bd->iv, f0, V0));
    CHECK_OK(rcm_body_rigid3d.solve_mass(w, bd, rows, 2));
    const double f1[6] = { 0, 0, 0, 1e-6 / h, -2e-6 / h, 3e-6 / h };
    CHECK_OK(rcm_body_rigid3d.free_velocity(w, bd, &fc, w->v + bd->iv, f1, V1));
    /* second order in P: |P|^2 ~ 1e-11; J^-1 instead of A^-1 would be off by
     * h theta |Omega| ~ 3 % of 1e-6 */
    double Pj[3] = { 1e-6 / J[0], -2e-6 / J[1], 3e-6 / J[2] }, off = 0.0;
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(V1[3 + i] - V0[3 + i], rows[3 + i], 1e-13);
        off = fmax(off, fabs(Pj[i] - rows[3 + i]));
    }
    CHECK(off > 1e-8);
    CHECK_NEAR(rows[2], 0.5, 0.0);   /* translation: 1 / m */
    CHECK_NEAR(rows[6], 0.5, 0.0);
    rc_world_destroy(w);
}

/* ---------------------------------------------------------------- errors */

RC_TEST(errors)
{
    rc_world *w = world3(0.0, RC_SCHEME_MOREAU_JEAN, 1e-3, 0.5);
    CHECK(w != NULL);
    if (!w) return;
    rc_body3d_def d = rc_default_body3d_def();
    d.q[3] = 0.0;
    CHECK(rc_body3d_create(w, &d, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "body: 'q': the quaternion (qw, qx, qy, qz) must be nonzero (got |q| = 0)") == 0);
    d = rc_default_body3d_def();
    d.inertia[1] = 0.5;
    CHECK(rc_body3d_create(w, &d, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "body: 'inertia' must be a symmetric tensor") == rc_last_error());
    d.inertia[3] = 0.5;
    d.inertia[4] = 0.2;   /* eigenvalues of [[1, .5], [.5, .2]]: one negative */
    CHECK(rc_body3d_create(w, &d, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "body: 'inertia' must be positive definite") == rc_last_error());
    rc_body_def p = rc_default_body_def();
    CHECK(rc_body_create(w, &p, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "body: a world of dim = 3 has spatial bodies only (rc_body3d_create)") == 0);
    rc_shape_def sh = rc_default_shape_def();
    CHECK(rc_shape_create(w, RC_GROUND, &sh, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "shape: not available in a world of dim = 3 yet") == rc_last_error());
    d = rc_default_body3d_def();
    int id;
    CHECK_OK(rc_body3d_create(w, &d, &id));
    char ck[] = "/tmp/rc_body3d_ck_XXXXXX";   /* checkpoints of spatial bodies (checkpoint_spec: bit for bit) */
    const int fd = mkstemp(ck);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    CHECK_OK(rc_sim_save(w, ck));
    CHECK_OK(rc_sim_restore(w, ck));
    remove(ck);
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_MAURY;
    sd.theta = 1.0;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "simulation: spatial bodies are integrated by moreau-jean, moreau-jean-fremond and gen-alpha only (got 'maury')") != NULL);
    const double zq[7] = { 0, 0, 0, 0, 0, 0, 0 };
    CHECK(rc_body_set_state(w, id, zq, NULL) == RC_ERR_ARG);
    const double q2[7] = { 1, 2, 3, 0, 0, 0, 2 };
    CHECK_OK(rc_body_set_state(w, id, q2, NULL));
    double q[7];
    CHECK_OK(rc_body_get_state(w, id, q, NULL));
    CHECK(q[6] == 1.0 && q[3] == 0.0 && q[2] == 3.0);
    CHECK(rc_body_destroy(w, id) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_body_destroy: body 0 is a spatial body; removing spatial bodies is not available yet") == 0);
    rc_world_destroy(w);
    /* a planar world refuses spatial bodies */
    rc_world_def wd = rc_default_world_def();
    CHECK_OK(rc_world_create(&wd, &w));
    d = rc_default_body3d_def();
    CHECK(rc_body3d_create(w, &d, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "body: a spatial body needs a world of dim = 3 (this world has dim = 2)") == 0);
    rc_world_destroy(w);
    /* a torque that overflows the gyroscopic Newton iteration: an error with
     * the body and the time, the state left as it was */
    w = world3(0.0, RC_SCHEME_MOREAU_JEAN, 1e-3, 0.5);
    const double J[3] = { 1.0, 2.0, 3.0 }, q0[7] = { 0, 0, 0, 1, 0, 0, 0 }, v0[6] = { 0, 0, 0, 1, 2, 3 };
    id = body3(w, 1.0, J, q0, v0);
    const double f[6] = { 0, 0, 0, 1e300, -1e300, 1e300 };
    CHECK_OK(rc_body_set_force(w, id, f));
    CHECK(rc_world_step(w) == RC_ERR_NUMERIC);
    CHECK(strstr(rc_last_error(), "body 0: the gyroscopic Newton iteration did not converge to 1e-12 in 50 iterations at t = 0 ")
          == rc_last_error());
    double v[6];
    CHECK_OK(rc_body_get_state(w, id, q, v));
    CHECK(v[3] == 1.0 && v[5] == 3.0 && rc_world_time(w) == 0.0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(solid_mass_properties), T(inertia_tensor_principal_frame), T(tennis_racket_moreau_jean),
             T(tennis_racket_fremond), T(symmetric_top_precession), T(free_fall_parabola), T(audit_with_torque_theta_one),
             T(iteration_matrix_is_the_linearised_step), T(errors))
