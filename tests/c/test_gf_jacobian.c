/* test_gf_jacobian.c -- the analytic Jacobian of the frictional nonsmooth
 * generalized-alpha step (Capobianco et al. 2021, section 9;
 * src/integrate/gf_jacobian.c) against central differences of the residual
 * R(x) with the same frozen index sets, at every Newton iterate of the
 * paper's planar cases (rotating ball, ball in a corner, ball in a cylinder,
 * Painleve rod), of a ball on a string (a distance joint) that hits the
 * ground, of a linear body (M, K, C) and a nonlinear beam (its tangent)
 * landing through a linear gap, and of a
 * disc with a force function and a prescribed angle (a rheonomic row):
 * sliding, sticking and open contacts are each seen. The comparison
 * is row by row: max_j |J_ij - D_ij| <= 1e-5 max_j |D_ij| (D: central
 * differences of step 1e-4 relative; the entries where R is not
 * differentiable within 2 steps -- a sgn switching -- are skipped and
 * counted, at most 5 %). Measured: 2e-12 on the flat walls, 1e-6 to 3e-6
 * where the curvature enters (cylinder, rod: the reference's own round-off,
 * it falls with the step until truncation takes over). Each of these terms
 * left out fails it: dc/dq, the friction's mu sgn(xi_F) dP_N, the curvature
 * of G^T kappa, e_N (dG_N/dq) u_i, -K, the force function's block. */
#include "rc_test.h"
#include "fd_jacobian.h"
#include "integrate/gen_alpha_friction.h"

enum { MAXN = RCI_GF_MAX_UNKNOWNS };
static double Jc[MAXN * MAXN], J2[MAXN * MAXN], Rp[MAXN * MAXN], Rm[MAXN * MAXN], R0[MAXN];
static struct {
    int calls, checked, open, slide, stick, stick_acc, every;
    long entries, kinks;
    double worst, eps;
    int wrow, wcol, wN;
    double wa, wd;
    rc_status err;
} P;

/* central differences of R with the sets frozen: Jc (step eps), J2 (2 eps);
 * R at x +- eps e_j in Rp, Rm */
/* R at the current x (fd_jacobian.h's callback) */
static int eval_at_x(void *ctx)
{
    rci_gf_sys *s = ctx;
    int worst;
    const rc_status st = rci_gf_eval(s);
    if (st != RC_OK) return (int)st;
    (void)rci_gf_residual(s, &worst);
    return 0;
}

static rc_status central(rci_gf_sys *s)
{
    const int st = fd_central(s->x, s->R, s->N, P.eps, eval_at_x, s, R0, Rp, Rm, Jc, J2);
    return st ? (rc_status)st : s->err;
}

/* R is not differentiable between x - 2 eps e_j and x + 2 eps e_j (a sgn or
 * a gap's round-off floor switched): the one-sided differences disagree (a
 * kink), or the central ones of eps and 2 eps do (a jump: sgn(0) = 0) */
static int kink(int N, int i, int j)
{
    const size_t o = (size_t)j * N + i;
    const double a = Rp[o] - R0[i], b = R0[i] - Rm[o];
    return fabs(a - b) > 1e-3 * (fabs(a) + fabs(b)) + 1e-13 * (1.0 + fabs(R0[i]))
        || fabs(Jc[o] - J2[o]) > 0.25 * fabs(Jc[o]) + 1e-9;
}

static void probe(rci_gf_sys *s, const double *J)
{
    if (P.calls++ % P.every) return;
    const int N = s->N;
    rc_status st = central(s);
    if (st != RC_OK) { P.err = st; return; }
    P.checked++;
    for (int c = 0; c < s->nc; c++) {
        const unsigned char k = s->set[c];
        if (!(k & RCI_GF_A)) P.open++;
        else if (!(k & RCI_GF_DST)) P.slide++;
        else if (k & RCI_GF_EST) P.stick_acc++;
        else P.stick++;
    }
    for (int i = 0; i < N; i++) {
        double scale = 0.0, diff = 0.0;
        int at = 0;
        for (int j = 0; j < N; j++) {
            P.entries++;
            if (kink(N, i, j)) { P.kinks++; continue; }
            scale = fmax(scale, fabs(Jc[(size_t)j * N + i]));
            const double d = fabs(J[(size_t)j * N + i] - Jc[(size_t)j * N + i]);
            if (d > diff) { diff = d; at = j; }
        }
        const double rel = diff / fmax(scale, 1e-6);
        if (rel > P.worst) {
            P.worst = rel; P.wrow = i; P.wcol = at; P.wN = N;
            P.wa = J[(size_t)at * N + i]; P.wd = Jc[(size_t)at * N + i];
        }
    }
}

static int must(rc_status st) { if (st != RC_OK) fprintf(stderr, "setup: %s\n", rc_last_error()); return st == RC_OK; }

static rc_world *world(double gy)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = gy;
    rc_world *w = NULL;
    return must(rc_world_create(&wd, &w)) ? w : NULL;
}

static int body(rc_world *w, double m, double J, double x, double y, double th, double vx, double vy, double om)
{
    rc_body_def bd = rc_default_body_def();
    bd.mass = m; bd.inertia = J;
    bd.q[0] = x; bd.q[1] = y; bd.q[2] = th;
    bd.v[0] = vx; bd.v[1] = vy; bd.v[2] = om;
    int b = -1;
    must(rc_body_create(w, &bd, &b));
    return b;
}

static void shape(rc_world *w, int b, rc_shape_type type, double r, double ox, double oy, double nx, double ny)
{
    rc_shape_def sd = rc_default_shape_def();
    sd.type = type; sd.radius = r;
    sd.offset[0] = ox; sd.offset[1] = oy;
    sd.normal[0] = nx; sd.normal[1] = ny;
    must(rc_shape_create(w, b, &sd, NULL));
}

static int generic_law = 0;   /* 1: the laws through xi / project (their rows by differences) */

static void law(rc_world *w, double e, double mu)
{
    rc_law_def ld = rc_default_law_def();
    ld.e = e; ld.mu = mu; ld.generic = generic_law;
    int id;
    must(rc_law_create(w, &ld, &id));
    must(rc_world_set_default_law(w, id));
}

/* run the world to T under gen-alpha (Capobianco) with the probe on every
 * every-th Newton Jacobian; the worst row-relative difference */
static void run(int *failed, rc_world *w, double h, double rho, double prox_r, double T, int every, const char *name,
                int want_open, int want_slide, int want_stick)
{
    CHECK(w != NULL);
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.h = h;
    sd.gen_alpha.rho_inf = rho;
    sd.gen_alpha.prox_r = prox_r;
    sd.gen_alpha.variant = RC_GA_CAPOBIANCO;
    sd.gen_alpha.jacobian = RC_GA_JAC_ANALYTIC;
    sd.solver.tol = 1e-10;
    CHECK_OK(rc_world_configure(w, &sd));
    memset(&P, 0, sizeof P);
    P.every = every;
    P.eps = 1e-4;   /* R's accelerations hold central differences of step 1e-6 (gf_residual.c): a smaller step sees their round-off */
    rci_gf_jacobian_probe = probe;
    const int steps = (int)(T / h + 0.5);
    for (int i = 0; i < steps && P.err == RC_OK; i++) CHECK_OK(rc_world_step(w));
    rci_gf_jacobian_probe = NULL;
    CHECK_OK(P.err);
    printf("  %s: %d Jacobians compared (of %d), contacts open %d, sliding %d, sticking %d (+ %d on the acceleration level); "
           "worst row-relative difference %.3e (row %d, column %d of %d: %.10g against %.10g); entries across a kink %ld of %ld\n",
           name, P.checked, P.calls, P.open, P.slide, P.stick, P.stick_acc, P.worst, P.wrow, P.wcol, P.wN, P.wa, P.wd, P.kinks, P.entries);
    CHECK(P.checked >= 5);
    CHECK(P.worst <= 1e-5);
    CHECK(P.kinks <= P.entries / 20);
    if (want_open) CHECK(P.open > 0);
    if (want_slide) CHECK(P.slide > 0);
    if (want_stick) CHECK(P.stick + P.stick_acc > 0);
    rc_world_destroy(w);
}

/* section 10.1: a ball spinning at 50 rad/s dropped on the ground (case b:
 * sliding, then rolling), and one bouncing with e_N = 0.5 and a spin
 * (case a with spin: open between the impacts) */
static rc_world *rotating_ball_world(double y0, double e, double omega)
{
    rc_world *w = world(-9.81);
    if (w) {
        shape(w, RC_GROUND, RC_SHAPE_HALFPLANE, 0.0, 0.0, 0.0, 0.0, 1.0);
        shape(w, body(w, 1.0, 0.004, 0.0, y0, 0.0, 0.0, 0.0, omega), RC_SHAPE_DISK, 0.1, 0.0, 0.0, 0.0, 0.0);
        law(w, e, 0.2);
    }
    return w;
}

RC_TEST(rotating_ball)
{
    run(failed, rotating_ball_world(0.15, 0.0, 50.0), 2e-3, 0.5, 0.0, 1.1, 1, "rotating ball (b)", 0, 1, 1);
    run(failed, rotating_ball_world(0.2, 0.5, 10.0), 2e-3, 0.5, 0.0, 1.5, 1, "rotating ball (a, spinning)", 1, 1, 0);
}

/* the same through the law's xi / project (rc_law_def.generic): the
 * contact's four law rows by differences inside the analytic Jacobian */
RC_TEST(rotating_ball_generic_law)
{
    generic_law = 1;
    run(failed, rotating_ball_world(0.15, 0.0, 50.0), 2e-3, 0.5, 0.0, 1.1, 1, "rotating ball (b), generic law", 0, 1, 1);
    run(failed, rotating_ball_world(0.2, 0.5, 10.0), 2e-3, 0.5, 0.0, 1.5, 1, "rotating ball (a, spinning), generic law", 1, 1, 0);
    generic_law = 0;
}

/* section 10.2: a ball thrown into a 90-degree corner (e = 0 here on both planes) */
RC_TEST(ball_in_corner)
{
    rc_world *w = world(-9.81);
    if (w) {
        const double s2 = sqrt(0.5);
        rc_shape_def sd = rc_default_shape_def();
        sd.type = RC_SHAPE_HALFPLANE; sd.normal[0] = -s2; sd.normal[1] = s2;
        must(rc_shape_create(w, RC_GROUND, &sd, NULL));
        sd.normal[0] = s2;
        must(rc_shape_create(w, RC_GROUND, &sd, NULL));
        shape(w, body(w, 1.0, 0.004, -0.5, 1.0, 0.0, 0.0, 0.0, 0.0), RC_SHAPE_DISK, 0.1, 0.0, 0.0, 0.0, 0.0);
        law(w, 0.0, 0.3);
    }
    run(failed, w, 1e-3, 0.5, 0.2, 1.5, 1, "ball in corner", 1, 1, 1);
}

/* section 10.3: a ball rolling and sliding inside a cylinder (the concave
 * wall), and one thrown at it with e_N = 0.5 (the impact law's e_N G_N(q) u_i
 * on a curved wall) */
static rc_world *cylinder_world(double vx, double vy, double e)
{
    rc_world *w = world(-9.81);
    if (w) {
        rc_shape_def sd = rc_default_shape_def();
        sd.type = RC_SHAPE_CIRCLE_INSIDE; sd.radius = 1.0; sd.offset[1] = 1.0;
        must(rc_shape_create(w, RC_GROUND, &sd, NULL));
        shape(w, body(w, 1.0, 0.004, -0.9, 1.0, 0.0, vx, vy, 0.0), RC_SHAPE_DISK, 0.1, 0.0, 0.0, 0.0, 0.0);
        law(w, e, 0.1);
    }
    return w;
}

RC_TEST(ball_in_cylinder)
{
    run(failed, cylinder_world(0.0, 0.0, 0.0), 1e-2, 0.5, 0.3, 4.0, 1, "ball in cylinder", 0, 1, 1);
    run(failed, cylinder_world(2.0, 3.0, 0.5), 2e-3, 0.5, 0.3, 2.0, 1, "ball in cylinder (thrown, e_N = 0.5)", 1, 1, 0);
}

/* section 10.4: the Painleve rod sliding on its tip (mu = 5/3) until it lifts off */
RC_TEST(painleve_rod)
{
    rc_world *w = world(-10.0);
    if (w) {
        const double phi = 31.0 * acos(-1.0) / 180.0;
        shape(w, RC_GROUND, RC_SHAPE_HALFPLANE, 0.0, 0.0, 0.0, 0.0, 1.0);
        shape(w, body(w, 1.0, 1.0 / 3.0, 0.0, sin(phi), -phi, 30.0, 0.0, 0.0), RC_SHAPE_POINT, 0.0, 1.0, 0.0, 0.0, 0.0);
        law(w, 0.0, 5.0 / 3.0);
    }
    run(failed, w, 8e-4, 0.9, 0.1, 0.6, 2, "Painleve rod", 0, 1, 0);
}

/* a spinning ball on a string (a distance joint: its row's curvature and
 * the accelerations' velocity terms) swings down until it hits the ground
 * short of the string's lowest point: held there by both, it slides
 * (spinning) and then sticks */
RC_TEST(pendulum_with_contact)
{
    rc_world *w = world(-9.81);
    if (w) {
        shape(w, RC_GROUND, RC_SHAPE_HALFPLANE, 0.0, 0.0, 0.0, 0.0, 1.0);
        const int b = body(w, 1.0, 0.004, 0.8, 0.5, 0.0, 0.0, 0.0, 50.0);
        shape(w, b, RC_SHAPE_DISK, 0.1, 0.0, 0.0, 0.0, 0.0);
        law(w, 0.0, 0.2);
        rc_joint_def jd = rc_default_joint_def();
        jd.type = RC_JOINT_DISTANCE; jd.body_a = RC_GROUND; jd.body_b = b;
        jd.point_a[0] = 0.0; jd.point_a[1] = 1.0;
        must(rc_joint_create(w, &jd, NULL));
    }
    run(failed, w, 2e-3, 0.5, 0.0, 1.0, 1, "pendulum with contact", 1, 1, 1);
}

/* a linear body (M with coupling, K, C, a constant force: two nodes joined
 * by a spring and a damper) whose first node lands on the ground through a
 * linear gap with friction and slides */
RC_TEST(linear_body)
{
    rc_world *w = world(0.0);
    if (w) {
        static const double M[16] = { 1, 0, 0.2, 0, 0, 1, 0, 0.2, 0.2, 0, 1, 0, 0, 0.2, 0, 1 };
        double K[16], C[16];
        static const double P[16] = { 1, 0, -1, 0, 0, 1, 0, -1, -1, 0, 1, 0, 0, -1, 0, 1 };
        for (int i = 0; i < 16; i++) { K[i] = 200.0 * P[i]; C[i] = 2.0 * P[i]; }
        static const double q0[4] = { 0.0, 0.02, 0.0, 0.3 }, v0[4] = { 1.5, 0.0, 1.0, 0.5 }, f[4] = { 0, -9.81, 0, -9.81 };
        rc_linear_def ld = rc_default_linear_def();
        ld.n = 4; ld.M = M; ld.K = K; ld.C = C; ld.q0 = q0; ld.v0 = v0; ld.f = f;
        int b = -1;
        must(rc_linear_create(w, &ld, &b));
        law(w, 0.0, 0.3);
        static const int idx[2] = { 0, 1 };
        static const double nrm[2] = { 0.0, 1.0 }, tng[2] = { 1.0, 0.0 };
        rc_gap_def gd = rc_default_gap_def();
        gd.body = b; gd.nnz = 2; gd.index = idx; gd.normal = nrm; gd.tangent = tng;
        must(rc_gap_create(w, &gd, NULL));
    }
    run(failed, w, 2e-3, 0.5, 0.0, 1.0, 1, "linear body", 1, 1, 0);
}

/* a geometrically nonlinear beam (RC_BODY_NONLINEAR: its tangent K_T
 * exact through the kind's internal force) whose last control point lands
 * on the ground through a linear gap with friction and slides */
RC_TEST(beam)
{
    rc_world *w = world(0.0);
    if (w) {
        rc_beam_def bd = rc_default_beam_def();
        bd.a[0] = 0.0; bd.a[1] = 0.1; bd.b[0] = 0.5; bd.b[1] = 0.05;
        bd.elements = 2; bd.degree = 2;
        bd.EA = 1e3; bd.EI = 1.0; bd.rho = 1.0;
        bd.gravity[1] = -9.81;
        bd.v0[0] = 1.0; bd.v0[1] = -0.5;
        int b = -1;
        must(rc_beam_create(w, &bd, &b));
        law(w, 0.0, 0.3);
        const int n = 2 * (bd.elements + bd.degree);
        const int idx[2] = { n - 2, n - 1 };
        static const double nrm[2] = { 0.0, 1.0 }, tng[2] = { 1.0, 0.0 };
        rc_gap_def gd = rc_default_gap_def();
        gd.body = b; gd.nnz = 2; gd.index = idx; gd.normal = nrm; gd.tangent = tng;
        must(rc_gap_create(w, &gd, NULL));
    }
    run(failed, w, 1e-3, 0.5, 0.0, 0.3, 1, "beam", 1, 1, 0);
}

/* a force function (a spring-damper to x = 0 written as a callback: its
 * columns by differences) on a disc whose angle is prescribed, phi = -20 t
 * (a rheonomic joint row: dg/dt), sliding on the ground */
static rc_status pull(void *user, int body, double t, const double *q, const double *v, double *f)
{
    (void)user; (void)body; (void)t;
    f[0] = -30.0 * q[0] - 2.0 * v[0] - 5.0 * q[1] * v[0];   /* nonlinear in (q, v) */
    return RC_OK;
}
static rc_status spin(void *user, double t, double *f, double *df) { (void)user; *f = -20.0 * t; *df = -20.0; return RC_OK; }

RC_TEST(force_function_and_prescribed_angle)
{
    rc_world *w = world(-9.81);
    if (w) {
        shape(w, RC_GROUND, RC_SHAPE_HALFPLANE, 0.0, 0.0, 0.0, 0.0, 1.0);
        const int b = body(w, 1.0, 0.004, 0.3, 0.12, 0.0, 0.0, 0.0, -20.0);
        shape(w, b, RC_SHAPE_DISK, 0.1, 0.0, 0.0, 0.0, 0.0);
        law(w, 0.0, 0.4);
        must(rc_body_set_force_fn(w, b, pull, NULL));
        rc_joint_def jd = rc_default_joint_def();
        jd.type = RC_JOINT_PRESCRIBED; jd.body_a = RC_GROUND; jd.body_b = b; jd.coord = 2; jd.motion = spin;
        must(rc_joint_create(w, &jd, NULL));
    }
    run(failed, w, 2e-3, 0.5, 0.0, 1.0, 1, "force function, prescribed angle", 0, 1, 0);
}

/* the setting is checked: another value is refused with its name */
RC_TEST(bad_setting)
{
    rc_sim_def sd = rc_default_sim_def();
    CHECK(sd.gen_alpha.jacobian == RC_GA_JAC_AUTO);
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.gen_alpha.jacobian = (rc_ga_jacobian)7;
    CHECK(rc_sim_def_check(&sd, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "simulation: gen-alpha 'jacobian' must be RC_GA_JAC_AUTO, RC_GA_JAC_ANALYTIC or "
                                  "RC_GA_JAC_DIFFERENCES (got 7)") == 0);
}

RC_TEST_MAIN(T(bad_setting), T(rotating_ball), T(rotating_ball_generic_law), T(ball_in_corner), T(ball_in_cylinder), T(painleve_rod), T(pendulum_with_contact),
             T(linear_body), T(beam), T(force_function_and_prescribed_angle))
