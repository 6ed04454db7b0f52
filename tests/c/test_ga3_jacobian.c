/* test_ga3_jacobian.c -- the analytic Newton Jacobian of the frictional
 * generalized-alpha step on spatial rigid bodies (src/integrate/
 * ga3_jacobian.c) against central differences of the residual with the same
 * frozen index sets, at every Newton iterate of: a spinning sphere dropped on
 * a plane (section 10.1, case b: sliding, then rolling), a sphere spinning
 * about the vertical with the Coulomb--Contensou drilling row, and a box
 * thrown tumbling onto the plane (corners: the rows turn with the body; to
 * 0.4 s, before it rests on four corners, where Newton hands every step to
 * the fixed point under both Jacobians).
 * Row by row as test_gf_jacobian.c: max_j |J_ij - D_ij| <= 1e-5 max_j |D_ij|,
 * the entries where R is not differentiable within two steps skipped and
 * counted (at most 5 %). */
#include "rc_test.h"
#include "fd_jacobian.h"
#include "integrate/ga3_friction.h"

enum { MAXN = RCI_GA3_MAX_UNKNOWNS };
static double Jc[MAXN * MAXN], J2[MAXN * MAXN], Rp[MAXN * MAXN], Rm[MAXN * MAXN], R0[MAXN];
static struct {
    int calls, checked, open, slide, stick;
    long entries, kinks;
    double worst, wa, wd;
    int wrow, wcol, wN;
    rc_status err;
} P;

/* R at the current x (fd_jacobian.h's callback) */
static int eval_at_x(void *ctx)
{
    rci_ga3f *s = ctx;
    int worst;
    const rc_status st = rci_ga3f_eval(s);
    if (st != RC_OK) return (int)st;
    (void)rci_ga3f_residual(s, &worst);
    return 0;
}

static rc_status central(rci_ga3f *s, double eps)
{
    const int st = fd_central(s->x, s->R, s->N, eps, eval_at_x, s, R0, Rp, Rm, Jc, J2);
    return st ? (rc_status)st : RC_OK;
}

static int kink(int N, int i, int j)
{
    const size_t o = (size_t)j * N + i;
    const double a = Rp[o] - R0[i], b = R0[i] - Rm[o];
    return fabs(a - b) > 1e-3 * (fabs(a) + fabs(b)) + 1e-13 * (1.0 + fabs(R0[i]))
        || fabs(Jc[o] - J2[o]) > 0.25 * fabs(Jc[o]) + 1e-9;
}

static void probe(rci_ga3f *s)
{
    P.calls++;
    const int N = s->N;
    const double *J = s->J;
    double xmax = 0.0;
    for (int i = 0; i < N; i++) xmax = fmax(xmax, fabs(s->x[i]));
    if (!(xmax <= 1e6)) return;   /* a diverged iterate (the fixed point takes the step): no comparison */
    rc_status st = central(s, 1e-5);
    if (st != RC_OK) { P.err = st; return; }
    P.checked++;
    for (int c = 0; c < s->nc; c++) {
        const unsigned char k = s->set[c];
        if (!(k & RCI_GF_A)) P.open++;
        else if (!(k & RCI_GF_DST)) P.slide++;
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
        if (rel > P.worst) { P.worst = rel; P.wrow = i; P.wcol = at; P.wN = N; P.wa = J[(size_t)at * N + i]; P.wd = Jc[(size_t)at * N + i]; }
    }
}

static int must(rc_status st) { if (st != RC_OK) fprintf(stderr, "setup: %s\n", rc_last_error()); return st == RC_OK; }

static rc_world *world3(double mu, double radius)
{
    rc_world_def wd = rc_default_world_def();
    wd.dim = 3;
    wd.gravity[2] = -9.81;
    rc_world *w = NULL;
    if (!must(rc_world_create(&wd, &w))) return NULL;
    rc_shape3_def pd = rc_default_shape3_def();
    pd.kind = RC_SHAPE3_PLANE;
    must(rc_shape3_create(w, RC_GROUND, &pd, NULL));
    rc_law_def ld = rc_default_law_def();
    ld.e = 0.0; ld.mu = mu; ld.radius = radius;
    int id;
    must(rc_law_create(w, &ld, &id));
    must(rc_world_set_default_law(w, id));
    return w;
}

static int body3(rc_world *w, double m, double J, const double *q, const double *v)
{
    rc_body3d_def bd = rc_default_body3d_def();
    bd.mass = m;
    for (int i = 0; i < 9; i++) bd.inertia[i] = i % 4 ? 0.0 : J;
    memcpy(bd.q, q, sizeof bd.q);
    memcpy(bd.v, v, sizeof bd.v);
    int b = -1;
    must(rc_body3d_create(w, &bd, &b));
    return b;
}

static void run(int *failed, rc_world *w, double h, double T, const char *name, int want_slide, int want_stick)
{
    CHECK(w != NULL);
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.h = h;
    sd.gen_alpha.rho_inf = 0.5;
    sd.gen_alpha.jacobian = RC_GA_JAC_ANALYTIC;
    sd.solver.tol = 1e-10;
    CHECK_OK(rc_world_configure(w, &sd));
    memset(&P, 0, sizeof P);
    rci_ga3f_jacobian_probe = probe;
    const int steps = (int)(T / h + 0.5);
    for (int i = 0; i < steps && P.err == RC_OK; i++) CHECK_OK(rc_world_step(w));
    rci_ga3f_jacobian_probe = NULL;
    CHECK_OK(P.err);
    printf("  %s: %d Jacobians compared, contacts open %d, sliding %d, sticking %d; worst row-relative difference %.3e "
           "(row %d, column %d of %d: %.10g against %.10g); entries across a kink %ld of %ld\n",
           name, P.checked, P.open, P.slide, P.stick, P.worst, P.wrow, P.wcol, P.wN, P.wa, P.wd, P.kinks, P.entries);
    CHECK(P.checked >= 3);
    CHECK(P.worst <= 5e-5);
    CHECK(P.kinks <= P.entries / 20);
    if (want_slide) CHECK(P.slide > 0);
    if (want_stick) CHECK(P.stick > 0);
    rc_world_destroy(w);
}

RC_TEST(spinning_sphere)
{
    rc_world *w = world3(0.2, 0.0);
    if (w) {
        const double q[7] = { 0, 0, 0.15, 1, 0, 0, 0 }, v[6] = { 0, 0, 0, 0, 50, 0 };
        rc_shape3_def sd = rc_default_shape3_def();
        sd.kind = RC_SHAPE3_SPHERE; sd.radius = 0.1;
        must(rc_shape3_create(w, body3(w, 1.0, 0.004, q, v), &sd, NULL));
    }
    run(failed, w, 2e-3, 1.0, "spinning sphere", 1, 1);
}

RC_TEST(drilling_sphere)
{
    rc_world *w = world3(0.3, 0.01);
    if (w) {
        const double q[7] = { 0, 0, 0.1, 1, 0, 0, 0 }, v[6] = { 0.5, 0, 0, 3.0, 0, 20.0 };
        rc_shape3_def sd = rc_default_shape3_def();
        sd.kind = RC_SHAPE3_SPHERE; sd.radius = 0.1;
        must(rc_shape3_create(w, body3(w, 1.0, 0.004, q, v), &sd, NULL));
    }
    run(failed, w, 2e-3, 0.6, "sphere with drilling friction", 1, 0);
}

RC_TEST(tumbling_box)
{
    rc_world *w = world3(0.4, 0.0);
    if (w) {
        const double c = cos(0.3), s = sin(0.3);
        const double q[7] = { 0, 0, 0.35, c, s * 0.6, s * 0.8, 0 }, v[6] = { 1.0, 0.3, 0, 2.0, -3.0, 1.0 };
        rc_shape3_def sd = rc_default_shape3_def();
        sd.kind = RC_SHAPE3_BOX; sd.half[0] = 0.2; sd.half[1] = 0.1; sd.half[2] = 0.05;
        must(rc_shape3_create(w, body3(w, 1.0, 0.01, q, v), &sd, NULL));
    }
    run(failed, w, 1e-3, 0.4, "tumbling box", 1, 0);
}

RC_TEST_MAIN(T(spinning_sphere), T(drilling_sphere), T(tumbling_box))
