/* test_joints.c -- bilateral joints through the public C API: constraints
 * held at position and velocity level, statics, the pendulum period and
 * energy, rheonomic motion and the work of its reaction. */
#include "rc_test.h"
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static rc_world *world(double gy)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = gy;
    rc_world *w = NULL;
    return rc_world_create(&wd, &w) == RC_OK ? w : NULL;
}

static int body(rc_world *w, double m, double J, double x, double y, double th)
{
    rc_body_def bd = rc_default_body_def();
    bd.mass = m; bd.inertia = J;
    bd.q[0] = x; bd.q[1] = y; bd.q[2] = th;
    int id = -1;
    rc_body_create(w, &bd, &id);
    return id;
}

static rc_status configure(rc_world *w, rc_scheme scheme, double h)
{
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme; sd.h = h; sd.theta = 0.5;
    sd.solver.tol = 1e-13;
    sd.solver.on_fail = RC_ON_FAIL_ERROR;
    return rc_world_configure(w, &sd);
}

/* The option project_joints = 1 (not in the paper: positions and velocities
 * projected onto the joints after each step, the energy given back). */
static rc_status project_on(rc_world *w)
{
    rc_sim_def sd;
    rc_world_get_sim_def(w, &sd);
    sd.project_joints = 1;
    return rc_world_configure(w, &sd);
}

/* Bruls et al. 2014 section 10.2 pendulum (m = 1, J = 0.1, l = 1, g = 10):
 * q = (x, y, theta), the pivot at the origin is the body point (-l, 0). */
static rc_world *pendulum(double th0, rc_scheme scheme, double h, int *b)
{
    rc_world *w = world(-10.0);
    *b = body(w, 1.0, 0.1, cos(th0), sin(th0), th0);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_REVOLUTE;
    jd.body_a = RC_GROUND;
    jd.body_b = *b;
    jd.point_b[0] = -1.0;
    jd.name = "pivot";
    if (rc_joint_create(w, &jd, NULL) != RC_OK || configure(w, scheme, h) != RC_OK) return NULL;
    return w;
}

/* The small-oscillation period (half-periods between zero crossings of the
 * angle from the bottom, interpolated) and the largest pivot drift. */
static double small_period(rc_scheme scheme, double h, int project, double *drift)
{
    int b;
    rc_world *w = pendulum(-M_PI / 2 + 0.01, scheme, h, &b);
    if (!w || (project && project_on(w) != RC_OK)) return NAN;
    double prev = 0.01, tprev = 0.0, crossings[8];
    int nc = 0;
    *drift = 0.0;
    for (long i = 0; i < lround(12.0 / h) && nc < 8; i++) {
        if (rc_world_step(w) != RC_OK) break;
        double q[3];
        rc_body_get_state(w, b, q, NULL);
        rc_step_info in;
        rc_world_step_info(w, &in);
        *drift = fmax(*drift, in.joint_pos_violation);
        double a = q[2] + M_PI / 2, t = rc_world_time(w);
        if ((prev > 0) != (a > 0)) crossings[nc++] = tprev + (t - tprev) * prev / (prev - a);
        prev = a;
        tprev = t;
    }
    rc_world_destroy(w);
    return nc == 8 ? (crossings[7] - crossings[1]) / 3.0 : NAN;
}

RC_TEST(pendulum_small_oscillation_period)
{
    /* T = 2 pi sqrt(J_O / (m g l)) (1 + a0^2 / 16), J_O = J + m l^2 = 1.1,
     * a0 = 0.01. Both theta = 1/2 schemes are second order: the linear
     * oscillator's period error is (omega h)^2 / 12 relative (trapezoid /
     * midpoint rule), and the joint's rows at q* add the same order: the
     * tolerance is (omega h)^2 / 4 (2.3e-6 at h = 1e-3; measured -1.4e-6
     * Moreau--Jean, -3.8e-7 MJF), and halving h divides the error by > 3.
     * The paper's form (the default) drifts: the rows at q* cancel the
     * leading drift h^2 a (3/2 - s - theta) (MJ, s = 1) or h^2 a (1/2 - s)
     * (MJF, s = 1/2), a = omega^2 l <= (a0 omega)^2, which would add up to
     * h a t (7.5e-6 over t = 8.3 s at h = 1e-3); what is left is O(h^2)
     * per unit time: below h^2 a t / 10 (1.2e-10 against 7.5e-10), a
     * quarter at h/2. The projection (an option) keeps it at its
     * tolerance, 1e-12, with the same period. */
    const double om = sqrt(10.0 / 1.1), T = 2.0 * M_PI / om * (1.0 + 1e-4 / 16.0);
    const double a = 1e-4 * om * om;
    for (int s = 1; s <= 2; s++) {
        double d1, d2, dp;
        double P1 = small_period((rc_scheme)s, 1e-3, 0, &d1), P2 = small_period((rc_scheme)s, 5e-4, 0, &d2);
        double Pp = small_period((rc_scheme)s, 1e-3, 1, &dp);
        CHECK(fabs(P1 - T) <= 0.25 * om * om * 1e-6 * T);
        CHECK(fabs(P1 - T) > 3.0 * fabs(P2 - T));
        CHECK(d1 <= 1e-6 * a * 8.3 / 10.0);
        CHECK(d1 > 3.5 * d2);                                       /* O(h^2) */
        CHECK(fabs(Pp - T) <= 0.25 * om * om * 1e-6 * T);
        CHECK(dp <= 1e-10);
    }
}

/* theta0 = pi/12 (105 degrees from the bottom) for n steps of h: the
 * largest |E - E0|, |balance|, drift, and the totals at the end. */
static void swing(rc_scheme scheme, double h, long n, int project, double *dev, double *bal, double *drift,
                  rc_step_info *end, double *E0)
{
    int b;
    rc_world *w = pendulum(M_PI / 12, scheme, h, &b);
    *dev = *bal = *drift = NAN;
    if (!w || (project && project_on(w) != RC_OK)) return;
    double k, p;
    rc_world_energy(w, &k, &p);
    *E0 = k + p;
    *dev = *bal = *drift = 0.0;
    for (long i = 0; i < n; i++) {
        if (rc_world_step(w) != RC_OK) { *dev = NAN; break; }
        rc_world_step_info(w, end);
        *dev = fmax(*dev, fabs(end->E - *E0));
        *bal = fmax(*bal, fabs(end->balance));
        *drift = fmax(*drift, end->joint_pos_violation);
    }
    rc_world_destroy(w);
}

RC_TEST(pendulum_energy_bounded_over_100_periods)
{
    /* MJF at theta = 1/2 with the rows on the velocity that does the work,
     * H(q*) v_{k+1/2} = 0: the joint's work W_J = (H(q*) V)^T lambda is 0
     * and W_theta = 0, so E is kept to round-off over 2.5e5 steps (measured
     * 6e-13 relative; tolerance 1e-10). The drift is O(h^2) per unit time
     * (3.2e-6 over 250 s; the rows at q_k drift 6.7e-3 in the first 2 s).
     * With the projection (an option): the same energy (what the projection
     * changed, -12.6 J, is given back: W_proj ~ 0) and no drift. */
    const long n = (long)(100 * 2.0 * M_PI * sqrt(1.1 / 10.0) * 1.2 / 1e-3);   /* > 100 periods at this amplitude */
    for (int project = 0; project <= 1; project++) {
        double dev, bal, drift, E0 = 1.0;
        rc_step_info in;
        swing(RC_SCHEME_MOREAU_JEAN_FREMOND, 1e-3, n, project, &dev, &bal, &drift, &in, &E0);
        CHECK(dev <= 1e-10 * fabs(E0));
        CHECK(bal <= 1e-12 * fabs(E0));
        CHECK(drift <= (project ? 1e-10 : 1e-5));
        CHECK(fabs(in.W_J_total) <= 1e-12);
        if (project) CHECK(in.E_proj_total < -10.0 && fabs(in.W_proj_total) <= 1e-10);
        else CHECK(in.W_proj_total == 0.0 && in.E_proj_total == 0.0);
    }
}

RC_TEST(moreau_jean_pendulum_loses_the_joint_work)
{
    /* Moreau--Jean imposes the rows on v_{k+1}, and the work velocity is
     * v_{k+theta}: W_J = u_{k+theta}^T lambda = (1 - theta) (H(q*) v_k)^T
     * lambda with H(q*) v_k = h a + O(h^2) whatever q* (a = (dH/dt) v, the
     * pin's centripetal acceleration omega^2 l outwards) and lambda the pin's
     * impulse, -m (omega^2 l + g_r) h along it: the paper's scheme (eq. 50)
     * loses dE/dt = -(1 - theta) h m omega^2 l (omega^2 l + g_r), first
     * order in h, even at theta = 1/2 (no W_theta). Over 2 s of the swing
     * from pi/12: -0.2364 J at h = 1e-3 (the formula along the trajectory:
     * -0.2363), half at h/2. The balance closes with W_J; with the
     * projection (rows at q_k with H(q_k) v_k = 0: W_J = 0) E is kept. */
    double dev, bal, drift, E0 = 1.0, dev2, bal2, drift2, devp, balp, driftp;
    rc_step_info in, in2, inp;
    swing(RC_SCHEME_MOREAU_JEAN, 1e-3, 2000, 0, &dev, &bal, &drift, &in, &E0);
    swing(RC_SCHEME_MOREAU_JEAN, 5e-4, 4000, 0, &dev2, &bal2, &drift2, &in2, &E0);
    swing(RC_SCHEME_MOREAU_JEAN, 1e-3, 2000, 1, &devp, &balp, &driftp, &inp, &E0);
    CHECK_NEAR(in.E - E0, in.W_J_total, 1e-12);
    CHECK_NEAR(in.W_J_total, -0.2363, 0.01 * 0.2363);
    CHECK(fabs(in.W_J_total / in2.W_J_total - 2.0) <= 0.02);       /* first order */
    CHECK(bal <= 1e-12 && bal2 <= 1e-12);
    CHECK(devp <= 1e-12 * fabs(E0) && driftp <= 1e-10);
}

static double rod_period(double h, int project, double *dl)
{
    /* a point mass on a massless rod of length 2 from the ground origin to
     * its centre (its own rotation is free), a0 = 0.01 */
    rc_world *w = world(-10.0);
    const double l = 2.0, a0 = 0.01;
    int b = body(w, 1.0, 0.1, l * sin(a0), -l * cos(a0), 0.0);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_DISTANCE;
    jd.body_b = b;
    *dl = NAN;
    if (rc_joint_create(w, &jd, NULL) != RC_OK || configure(w, RC_SCHEME_MOREAU_JEAN, h) != RC_OK
        || (project && project_on(w) != RC_OK)) return NAN;
    double prev = a0, tprev = 0.0, cross[6];
    int nc = 0;
    *dl = 0.0;
    for (long i = 0; i < lround(20.0 / h) && nc < 6; i++) {
        if (rc_world_step(w) != RC_OK) break;
        double q[3];
        rc_body_get_state(w, b, q, NULL);
        *dl = fmax(*dl, fabs(hypot(q[0], q[1]) - l));
        double a = atan2(q[0], -q[1]), t = rc_world_time(w);
        if ((prev > 0) != (a > 0)) cross[nc++] = tprev + (t - tprev) * prev / (prev - a);
        prev = a;
        tprev = t;
    }
    rc_world_destroy(w);
    return nc == 6 ? (cross[5] - cross[1]) / 2.0 : NAN;
}

RC_TEST(rod_pendulum_with_a_distance_joint)
{
    /* T = 2 pi sqrt(l / g) (1 + a0^2 / 16) to (omega h)^2 / 4 as the
     * pendulum above; the rod's length: the paper's form drifts O(h^2) per
     * unit time, below h^2 a t / 10 (a = (a0 omega)^2 l: 7.7e-10 over
     * 7.7 s; measured 1.3e-10, 3.2e-11 at h/2); with the projection it is
     * kept to its tolerance at every step. */
    const double om = sqrt(10.0 / 2.0), T = 2.0 * M_PI / om * (1.0 + 1e-4 / 16.0);
    double dl, dl2, dlp;
    double P = rod_period(1e-3, 0, &dl), P2 = rod_period(5e-4, 0, &dl2), Pp = rod_period(1e-3, 1, &dlp);
    CHECK(fabs(P - T) <= 0.25 * om * om * 1e-6 * T && fabs(P - T) > 3.0 * fabs(P2 - T));
    CHECK(fabs(Pp - T) <= 0.25 * om * om * 1e-6 * T);
    CHECK(dl <= 1e-6 * 1e-4 * om * om * 2.0 * 7.7 / 10.0 && dl > 3.5 * dl2);
    CHECK(dlp <= 1e-10);
}

RC_TEST(hanging_pendulum_reaction_is_statics)
{
    int b;
    rc_world *w = pendulum(-M_PI / 2, RC_SCHEME_MOREAU_JEAN, 1e-3, &b);
    CHECK(w != NULL);
    if (!w) return;
    for (int i = 0; i < 100; i++) CHECK_OK(rc_world_step(w));
    rc_joint_info ji;
    CHECK_OK(rc_joint_get(w, 0, &ji));
    CHECK(ji.rows == 2);
    CHECK_NEAR(ji.force[0], 0.0, 1e-9);
    CHECK_NEAR(ji.force[1], 10.0, 1e-9);     /* holds the weight m g */
    CHECK(fabs(ji.g[0]) <= 1e-12 && fabs(ji.g[1]) <= 1e-12);
    CHECK(fabs(ji.gdot[0]) <= 1e-9 && fabs(ji.gdot[1]) <= 1e-9);
    rc_world_destroy(w);
}

RC_TEST(prismatic_guide_on_an_incline)
{
    /* a box on a frictionless prismatic guide at 30 degrees: a = g sin a,
     * no rotation, no motion across the guide */
    const double al = M_PI / 6;
    rc_world *w = world(-10.0);
    int b = body(w, 2.0, 0.5, 0.0, 0.0, 0.3);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_PRISMATIC;
    jd.body_b = b;
    jd.axis[0] = cos(al); jd.axis[1] = sin(al);
    CHECK_OK(rc_joint_create(w, &jd, NULL));
    CHECK_OK(configure(w, RC_SCHEME_MOREAU_JEAN, 1e-3));
    for (int i = 0; i < 1000; i++) CHECK_OK(rc_world_step(w));
    double q[3], v[3];
    rc_body_get_state(w, b, q, v);
    double along = v[0] * cos(al) + v[1] * sin(al), across = -v[0] * sin(al) + v[1] * cos(al);
    CHECK_NEAR(along, -10.0 * sin(al) * 1.0, 1e-9);
    CHECK_NEAR(across, 0.0, 1e-9);
    CHECK_NEAR(q[2], 0.3, 1e-12);
    CHECK_NEAR(-q[0] * sin(al) + q[1] * cos(al), 0.0, 1e-10);
    rc_world_destroy(w);
}

RC_TEST(weld_moves_as_one_body_and_line_guide)
{
    /* Two welded bodies thrown with spin (omega = 3, their centres d =
     * 1.118 apart) keep their relative pose, and a bead on a line guide
     * through the ground origin at 45 degrees slides down it with g sin 45.
     * The weld's angle row and the guide's row are linear in q (constant H):
     * the paper's form keeps them to round-off. The weld's point rows drift
     * O(h^2) per unit time: a = omega^2 d = 10.1, h^2 a t = 2e-5 over 2 s,
     * measured 1.6e-6 (bound h^2 a t / 5), a quarter at h/2. Their work
     * W_J = (1 - theta) (H(q*) v_k)^T lambda ~ -(1 - theta) h F a per unit
     * time with F = m_b omega^2 d m_a / (m_a + m_b) = 6.7 N, the internal
     * centripetal force: -0.067 J over 2 s (measured -0.0666), first order
     * in h, and E - E0 = W_J (no other work: the bodies fly freely). With
     * the projection every row holds to its tolerance and E is kept. */
    for (int k = 0; k < 3; k++) {
        const int project = k == 2;
        const double h = k == 1 ? 5e-4 : 1e-3;
        rc_world *w = world(-10.0);
        int a = body(w, 1.0, 0.1, 0.0, 0.0, 0.0), b = body(w, 2.0, 0.2, 1.0, 0.5, 0.4);
        double va[3] = { 1.0, 2.0, 3.0 }, vb[3];
        /* a rigid motion: v_b = v_a + omega perp(x_b - x_a) */
        vb[0] = va[0] - va[2] * 0.5; vb[1] = va[1] + va[2] * 1.0; vb[2] = va[2];
        rc_body_set_state(w, a, NULL, va);
        rc_body_set_state(w, b, NULL, vb);
        rc_joint_def jd = rc_default_joint_def();
        jd.type = RC_JOINT_WELD;
        jd.body_a = a; jd.body_b = b;
        jd.point_a[0] = 0.5; jd.point_a[1] = 0.25;                   /* the world point (0.5, 0.25) */
        jd.point_b[0] = -0.5 * cos(0.4) - 0.25 * sin(0.4);
        jd.point_b[1] = 0.5 * sin(0.4) - 0.25 * cos(0.4);
        CHECK_OK(rc_joint_create(w, &jd, NULL));
        /* a bead (body c) on a line through the ground origin at 45 degrees */
        int c = body(w, 1.0, 1.0, 0.0, 0.0, 0.0);
        rc_joint_def ld = rc_default_joint_def();
        ld.type = RC_JOINT_LINE;
        ld.body_b = c;
        ld.axis[0] = 1.0; ld.axis[1] = 1.0;
        CHECK_OK(rc_joint_create(w, &ld, NULL));
        CHECK_OK(configure(w, RC_SCHEME_MOREAU_JEAN, h));
        if (project) CHECK_OK(project_on(w));
        double k0, p0, drift = 0.0, bal = 0.0, dmax = 0.0, amax = 0.0, lmax = 0.0;
        rc_world_energy(w, &k0, &p0);
        for (long i = 0; i < lround(2.0 / h) && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            rc_step_info in;
            rc_world_step_info(w, &in);
            drift = fmax(drift, in.joint_pos_violation);
            bal = fmax(bal, fabs(in.balance));
            double qa[3], qb[3], qc[3];
            rc_body_get_state(w, a, qa, NULL);
            rc_body_get_state(w, b, qb, NULL);
            rc_body_get_state(w, c, qc, NULL);
            amax = fmax(amax, fabs(qb[2] - qa[2] - 0.4));
            dmax = fmax(dmax, fabs(hypot(qb[0] - qa[0], qb[1] - qa[1]) - hypot(1.0, 0.5)));
            lmax = fmax(lmax, fabs(qc[0] - qc[1]));                      /* on the line */
        }
        double vc[3];
        rc_body_get_state(w, c, NULL, vc);
        CHECK_NEAR((vc[0] + vc[1]) / sqrt(2.0), -10.0 * sin(M_PI / 4) * 2.0, 1e-8);   /* a = g sin 45 */
        CHECK(amax <= 1e-12 && lmax <= 1e-12);
        CHECK(bal <= 1e-12);
        rc_step_info in;
        rc_world_step_info(w, &in);
        double k1, p1;
        rc_world_energy(w, &k1, &p1);
        static double drift1, W1;
        if (project) {
            CHECK(drift <= 1e-10 && dmax <= 1e-10);
            CHECK(fabs(k1 + p1 - k0 - p0) <= 1e-9);
        } else {
            CHECK(drift <= 1e-6 * 10.06 * 2.0 / 5.0 * (h / 1e-3) * (h / 1e-3));
            CHECK_NEAR(k1 + p1 - k0 - p0, in.W_J_total, 1e-10);   /* the balances, each <= 1e-12 */
            if (k == 0) {
                drift1 = drift;
                W1 = in.W_J_total;
                CHECK_NEAR(W1, -0.067, 0.03 * 0.067);
            } else {
                CHECK(drift1 > 3.5 * drift);                                /* O(h^2) */
                CHECK(fabs(W1 / in.W_J_total - 2.0) <= 0.05);               /* first order */
            }
        }
        rc_world_destroy(w);
    }
}

static rc_status sine(void *user, double t, double *f, double *df)
{
    (void)user;
    *f = 0.3 * sin(2.0 * t);
    *df = 0.6 * cos(2.0 * t);
    return RC_OK;
}

RC_TEST(prescribed_motion_and_its_work)
{
    /* x(t) = 0.3 sin 2t imposed on a free body (no gravity): the body follows,
     * and the reaction's work W_J is the kinetic energy it gives. The paper's
     * form: x_k is the trapezoidal (Moreau--Jean) or midpoint (MJF)
     * quadrature of f', |x - f| <= t h^2 max|f'''| / 12 = 4e-7 (measured
     * 1.0e-7, 5.0e-8); with the projection x = f(t) to its tolerance. */
    for (int k = 0; k < 4; k++) {
        const int s = 1 + k % 2, project = k >= 2;
        rc_world *w = world(0.0);
        int b = body(w, 2.0, 1.0, 0.0, 0.0, 0.0);
        double v0[3] = { 0.6, 0.0, 0.0 };
        rc_body_set_state(w, b, NULL, v0);
        rc_joint_def jd = rc_default_joint_def();
        jd.type = RC_JOINT_PRESCRIBED;
        jd.body_b = b;
        jd.coord = 0;
        jd.motion = sine;
        CHECK_OK(rc_joint_create(w, &jd, NULL));
        CHECK_OK(configure(w, (rc_scheme)s, 1e-3));
        if (project) CHECK_OK(project_on(w));
        double maxerr = 0.0;
        for (int i = 0; i < 2000 && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            double q[3];
            rc_body_get_state(w, b, q, NULL);
            maxerr = fmax(maxerr, fabs(q[0] - 0.3 * sin(2.0 * rc_world_time(w))));
        }
        CHECK(maxerr <= (project ? 1e-10 : 2.0 * 1e-6 * 2.4 / 12.0));
        rc_step_info in;
        rc_world_step_info(w, &in);
        double kin, pot;
        rc_world_energy(w, &kin, &pot);
        CHECK_NEAR(kin - 0.5 * 2.0 * 0.36, in.W_J_total + in.W_theta_total + in.W_proj_total, 1e-12);
        CHECK(fabs(in.W_J_total) > 1e-3);
        if (!project) CHECK(in.W_proj_total == 0.0);
        rc_world_destroy(w);
    }
}

static rc_status sine1(void *user, double t, double *f, double *df)
{
    (void)user;
    *f = sin(t);
    *df = cos(t);
    return RC_OK;
}

/* Largest |x - sin t| over 0 < t <= 2 of a free body driven by x(t) = sin t,
 * without the projection, started on the drive (x = 0, v = 1). */
static double drive_error(rc_scheme scheme, double theta, double h)
{
    rc_world *w = world(0.0);
    int b = body(w, 1.0, 1.0, 0.0, 0.0, 0.0);
    double v0[3] = { 1.0, 0.0, 0.0 };
    rc_body_set_state(w, b, NULL, v0);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_PRESCRIBED;
    jd.body_b = b;
    jd.coord = 0;
    jd.motion = sine1;
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = scheme; sd.theta = theta; sd.h = h;
    sd.project_joints = 0;
    double err = NAN;
    if (rc_joint_create(w, &jd, NULL) == RC_OK && rc_world_configure(w, &sd) == RC_OK) {
        err = 0.0;
        const long n = lround(2.0 / h);
        for (long i = 0; i < n; i++) {
            if (rc_world_step(w) != RC_OK) { err = NAN; break; }
            double q[3];
            rc_body_get_state(w, b, q, NULL);
            err = fmax(err, fabs(q[0] - sin(rc_world_time(w))));
        }
    }
    rc_world_destroy(w);
    return err;
}

RC_TEST(prescribed_motion_second_order_without_projection)
{
    /* The rate dg/dt of a rheonomic row is taken where it cancels the drive's
     * position error: q_{k+1} - q_k = h v_{k+theta} must be h f'(t_{k+1/2})
     * + O(h^3). MJF (V = v_{k+theta} moves q): t* = t_{k+1/2}; Moreau--Jean
     * (V = v_{k+1}, and v_k = f'(t*_{k-1})): (1 - theta)(t* - h) + theta t*
     * = t_{k+1/2}, t* = t_k + (3/2 - theta) h. Then x_k is the trapezoidal or
     * midpoint quadrature of f' = cos: |x_k - sin t_k| <= t h^2 max|f'''| / 12
     * (trapezoid; the midpoint's bound is half), and halving h divides it by
     * 4. At theta = 1 the rate at t_{k+1} (where V "lives") gave a first-order
     * error h/2 (1 - cos t) (7.1e-4 at t = 2, h = 1e-3). */
    const double bound = 2.0 * 1e-6 / 12.0;
    for (int s = 1; s <= 2; s++)
        for (int k = 0; k < 2; k++) {
            const double theta = k ? 1.0 : 0.5;
            double e1 = drive_error((rc_scheme)s, theta, 1e-3), e2 = drive_error((rc_scheme)s, theta, 5e-4);
            if (!(e1 <= bound && e1 / e2 > 3.5))
                fprintf(stderr, "  scheme %d theta %g: |x - sin t| %.3e (h = 1e-3), %.3e (h/2)\n", s, theta, e1, e2);
            CHECK(e1 <= bound);
            CHECK(e1 / e2 > 3.5);
        }
}

static rc_status sine_y(void *user, double t, double *f, double *df)
{
    const int *fail_after_start = user;
    if (*fail_after_start && t > 0.0) return RC_ERR_CALLBACK;
    *f = sin(t);
    *df = cos(t);
    return RC_OK;
}

RC_TEST(inconsistent_start_is_assembled)
{
    /* y(t) = sin t imposed on a body placed at y = 0.1 at rest (g = 0.1,
     * H v + dg/dt = -1 at t = 0). The paper's scheme takes (q_0, v_0) on the
     * constraints; a state off them is moved onto them before the first step,
     * in the metric of M: positions (energy change in W_proj: m g dy = -1 J),
     * then velocities (the joint's impulse at t_0, 1 N s: its work +0.5 J is
     * in W_J). Without that the first step takes the velocity jump as an
     * impact inside the step and y lags by (1 - theta) h = h/2 for good. */
    for (int s = 1; s <= 2; s++) {
        rc_world *w = world(-10.0);
        int b = body(w, 1.0, 1.0, 0.0, 0.1, 0.0);
        int fail = 0;
        rc_joint_def jd = rc_default_joint_def();
        jd.type = RC_JOINT_PRESCRIBED;
        jd.body_b = b;
        jd.coord = 1;
        jd.motion = sine_y;
        jd.motion_user = &fail;
        CHECK_OK(rc_joint_create(w, &jd, NULL));
        rc_sim_def sd = rc_default_sim_def();
        sd.scheme = (rc_scheme)s;
        sd.project_joints = 0;
        CHECK_OK(rc_world_configure(w, &sd));
        /* a first step that fails leaves the state as it was, not assembled */
        fail = 1;
        CHECK(rc_world_step(w) == RC_ERR_CALLBACK);
        double q[3], v[3];
        rc_body_get_state(w, b, q, v);
        CHECK(q[1] == 0.1 && v[1] == 0.0 && rc_world_time(w) == 0.0);
        fail = 0;
        CHECK_OK(rc_world_step(w));
        rc_step_info in;
        rc_world_step_info(w, &in);
        CHECK_NEAR(in.W_proj, -1.0, 1e-12);                  /* positions: m g (0 - 0.1) */
        CHECK_NEAR(in.W_J, 0.5, 2e-2);                       /* the impulse 1 N s from rest, then the step's */
        CHECK(fabs(in.balance) <= 1e-12);
        rc_joint_info ji;
        CHECK_OK(rc_joint_get(w, 0, &ji));
        CHECK_NEAR(ji.impulse[0], 1.0, 2e-2);                /* the start's impulse is in the step's reaction */
        double maxerr = 0.0, maxbal = 0.0;
        for (int i = 1; i < 2000 && !*failed; i++) {
            CHECK_OK(rc_world_step(w));
            rc_body_get_state(w, b, q, v);
            rc_world_step_info(w, &in);
            maxerr = fmax(maxerr, fabs(q[1] - sin(rc_world_time(w))));
            maxbal = fmax(maxbal, fabs(in.balance));
            CHECK(in.W_proj == 0.0);                          /* no projection after the start */
        }
        CHECK(maxerr <= 2.0 * 1e-6 / 12.0);                   /* as from a consistent start (trapezoid bound) */
        CHECK_NEAR(v[1], cos(2.0), 1e-6);                     /* MJF theta = 1/2 no longer alternates */
        CHECK(maxbal <= 1e-12);
        rc_world_destroy(w);
    }
}

/* Largest pivot drift |g| of the free pendulum (no projection, no obstacle)
 * swinging from theta0 = pi/12 for 2 s with the rows at q*. */
static double pendulum_drift(rc_scheme scheme, double theta, rc_joint_jacobian at, double *balance)
{
    int b;
    rc_world *w = pendulum(M_PI / 12, scheme, 1e-3, &b);
    if (!w) return NAN;
    rc_sim_def sd;
    rc_world_get_sim_def(w, &sd);
    sd.theta = theta;
    sd.project_joints = 0;
    sd.joint_jacobian = at;
    double drift = NAN;
    *balance = 0.0;
    if (rc_world_configure(w, &sd) == RC_OK) {
        drift = 0.0;
        for (int i = 0; i < 2000; i++) {
            if (rc_world_step(w) != RC_OK) { drift = NAN; break; }
            rc_step_info in;
            rc_world_step_info(w, &in);
            drift = fmax(drift, in.joint_pos_violation);
            *balance = fmax(*balance, fabs(in.balance));
        }
    }
    rc_world_destroy(w);
    return drift;
}

RC_TEST(joint_rows_at_the_predicted_configuration)
{
    /* The drift per step is h^2 a (3/2 - s - theta) for Moreau--Jean and
     * h^2 a (1/2 - s) for MJF, a = (dH/dt) v, s = 0, 1/2, 1 for the rows at
     * q_k, q_k + h/2 v_k, q_k + h v_k: the paper's end-of-step rows (Bruls et
     * al. 2014 eq. 50c) drift 17x less at theta = 0.5556 (the analysis: 0.944
     * against 0.056), the midpoint cancels it for theta = 1 and for MJF. */
    const rc_scheme MJ = RC_SCHEME_MOREAU_JEAN, MJF = RC_SCHEME_MOREAU_JEAN_FREMOND;
    double bal, worst = 0.0;
    double mj_start = pendulum_drift(MJ, 1.0 / 1.8, RC_JOINT_JACOBIAN_START, &bal); worst = fmax(worst, bal);
    double mj_end = pendulum_drift(MJ, 1.0 / 1.8, RC_JOINT_JACOBIAN_END, &bal); worst = fmax(worst, bal);
    double mj_auto = pendulum_drift(MJ, 1.0 / 1.8, RC_JOINT_JACOBIAN_AUTO, &bal);
    CHECK(mj_start > 1e-3);
    CHECK(mj_end < mj_start / 10.0 && mj_end > mj_start / 30.0);
    CHECK(mj_auto == mj_end);   /* no projection: the end of the step is the default */
    double mj1_start = pendulum_drift(MJ, 1.0, RC_JOINT_JACOBIAN_START, &bal); worst = fmax(worst, bal);
    double mj1_mid = pendulum_drift(MJ, 1.0, RC_JOINT_JACOBIAN_MIDPOINT, &bal); worst = fmax(worst, bal);
    CHECK(mj1_mid < mj1_start / 50.0);
    CHECK(pendulum_drift(MJ, 1.0, RC_JOINT_JACOBIAN_AUTO, &bal) == mj1_mid);
    double f_start = pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_START, &bal); worst = fmax(worst, bal);
    double f_mid = pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_MIDPOINT, &bal); worst = fmax(worst, bal);
    double f_end = pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_END, &bal); worst = fmax(worst, bal);
    CHECK(f_mid < f_start / 100.0 && f_mid < f_end / 100.0);
    CHECK(pendulum_drift(MJF, 0.5, RC_JOINT_JACOBIAN_AUTO, &bal) == f_mid);
    CHECK(worst <= 1e-12);   /* eq. (65) with the joints' work W_J, whatever q* */
    /* the default: no projection, the paper's rows at q_k + h v_k for
     * Moreau--Jean with theta < 3/4, the midpoint otherwise and for MJF and
     * Maury; with the projection (an option) the rows stay at q_k, where
     * they do no work on a state the projection left on them */
    rc_sim_def sd = rc_default_sim_def();
    CHECK(sd.project_joints == 0 && sd.joint_jacobian == RC_JOINT_JACOBIAN_AUTO);
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_END);
    sd.theta = 0.75;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_MIDPOINT);
    sd.theta = 1.0 / 1.8;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_END);
    sd.scheme = RC_SCHEME_MOREAU_JEAN_FREMOND;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_MIDPOINT);
    sd.scheme = RC_SCHEME_MAURY;
    sd.theta = 1.0;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_MIDPOINT);
    sd.scheme = RC_SCHEME_MOREAU_JEAN;
    sd.theta = 0.5;
    sd.project_joints = 1;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_START);
    sd.project_joints = 0;
    sd.joint_jacobian = RC_JOINT_JACOBIAN_START;
    CHECK(rc_sim_joint_jacobian(&sd) == RC_JOINT_JACOBIAN_START);
    sd.joint_jacobian = (rc_joint_jacobian)7;
    rc_world *w = world(0.0);
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "'joint_jacobian'") != NULL);
    rc_world_destroy(w);
}

RC_TEST(no_allocation_in_steps_with_joints_and_contacts)
{
    int b;
    rc_world *w = pendulum(M_PI / 12, RC_SCHEME_MOREAU_JEAN, 1e-3, &b);
    CHECK(w != NULL);
    if (!w) return;
    rc_shape_def pt = rc_default_shape_def();      /* the Bruls obstacle x >= sqrt(2)/2 */
    pt.type = RC_SHAPE_POINT;
    CHECK_OK(rc_shape_create(w, b, &pt, NULL));
    rc_shape_def wall = rc_default_shape_def();
    wall.type = RC_SHAPE_HALFPLANE;
    wall.point[0] = sqrt(2.0) / 2.0;
    wall.normal[0] = 1.0; wall.normal[1] = 0.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &wall, NULL));
    for (int i = 0; i < 1000; i++) CHECK_OK(rc_world_step(w));   /* past the first impacts */
    uint64_t a = rc_alloc_count();
    for (int i = 0; i < 4000 && !*failed; i++) CHECK_OK(rc_world_step(w));
    CHECK(rc_alloc_count() == a);
    rc_world_destroy(w);
}

RC_TEST(bad_joints)
{
    rc_world *w = world(-10.0);
    int b = body(w, 1.0, 1.0, 0.0, 0.0, 0.0);
    rc_joint_def jd = rc_default_joint_def();
    jd.body_b = 7;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strstr(rc_last_error(), "body_b 7") != NULL);
    jd.body_b = b; jd.body_a = b;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    jd.body_a = RC_GROUND;
    jd.type = RC_JOINT_PRESCRIBED;
    jd.coord = 5;
    jd.name = "p";
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "joint 'p'") && strstr(rc_last_error(), "coord"));
    jd = rc_default_joint_def();
    jd.type = RC_JOINT_CUSTOM;
    jd.body_b = b;
    jd.rows = 4;
    CHECK(rc_joint_create(w, &jd, NULL) == RC_ERR_ARG);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(pendulum_small_oscillation_period), T(pendulum_energy_bounded_over_100_periods),
             T(moreau_jean_pendulum_loses_the_joint_work),
             T(rod_pendulum_with_a_distance_joint), T(hanging_pendulum_reaction_is_statics), T(prismatic_guide_on_an_incline),
             T(weld_moves_as_one_body_and_line_guide), T(prescribed_motion_and_its_work),
             T(prescribed_motion_second_order_without_projection),
             T(inconsistent_start_is_assembled),
             T(joint_rows_at_the_predicted_configuration),
             T(no_allocation_in_steps_with_joints_and_contacts), T(bad_joints))
