/* ga3_step.c -- the generalized-alpha step on spatial rigid bodies (dim = 3
 * worlds; docs/theory/gen-alpha.md, "Spatial rigid bodies"), for both
 * variants (they coincide without constraints).
 *
 * The kinematics of Capobianco, Harsch, Eugster & Leine 2021, section 8, as
 * the paper ran its tippe top (section 10.6): q = (x, p), p a unit
 * quaternion, u = (v, Omega) with Omega in the body frame, q' = B(q) u
 * (x' = v, p' = 1/2 p (0, Omega)), eq. (121); the position update (125)
 *   q_{i+1} = q_i + h q'(q_i, u_i) + h^2/2 q''(q_i, u_i, (1 - 2 beta) a-bar_i + 2 beta a-bar_{i+1}),
 *   q''(q, u, a) = B(q) a + d(B u)/dq B u: p'' = 1/2 p (0, a_Omega) - 1/4 |Omega|^2 p  (123)
 * then p normalised ("p is normalized after every step", section 10.6);
 * a-bar (71) and u (73) as in the vector space:
 *   (1 - alpha_m) a-bar_{i+1} + alpha_m a-bar_i = (1 - alpha_f) a_{i+1} + alpha_f a_i
 *   u_{i+1} = u_i + h ((1 - gamma) a-bar_i + gamma a-bar_{i+1}).
 * The unknown is a_{i+1}; the equations of motion at t_{i+1} per body (the
 * Newton--Euler equations, the gyroscopic term at u_{i+1}):
 *   R_x = m a_x - m g - F,  R_Omega = J a_Omega + Omega x J Omega - tau,
 * solved by Newton's method with the exact tangent of the gyroscopic term,
 *   dR_Omega/da_Omega = J + h gamma c ([Omega]x J - [J Omega]x),
 *   c = (1 - alpha_f)/(1 - alpha_m) (= d a-bar / d a),
 * (applied forces and force functions explicit in the tangent: a simplified
 * Newton step, the residual exact). With contacts within the step's reach
 * the step is the frictional scheme of Capobianco et al. (ga3_fstep.c) or,
 * variant "bruls2014", Bruls et al.'s frictionless one (ga3_bruls.c); with
 * joints of spatial bodies the frictional scheme's step (ga3_joints.c), its
 * start the joints' consistent acceleration.
 */
#include "integrate/ga3_friction.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

typedef struct ga3_sys {
    rc_world *w;
    double h, am, af, be, ga, t1;
    int nq, nv, have_f;
    const double *qn, *un, *an, *abn;   /* the state at t_i: q, u, a, a-bar */
    double *a, *ab, *u, *q, *R;        /* the unknown a, what follows from it, the residual */
    double *K;                          /* the rotational tangents' inverses, 9 per body */
} ga3_sys;

/* a-bar (71), u (73), q (125) from the unknown a */
static void dependent(ga3_sys *s)
{
    const double h = s->h;
    rc_world *w = s->w;
    for (int i = 0; i < s->nv; i++) {
        s->ab[i] = (s->af * s->an[i] + (1.0 - s->af) * s->a[i] - s->am * s->abn[i]) / (1.0 - s->am);
        s->u[i] = s->un[i] + h * ((1.0 - s->ga) * s->abn[i] + s->ga * s->ab[i]);
    }
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        const double *q0 = s->qn + bd->iq, *u0 = s->un + bd->iv;
        double *q = s->q + bd->iq, am[6];
        for (int j = 0; j < 6; j++) am[j] = (1.0 - 2.0 * s->be) * s->abn[bd->iv + j] + 2.0 * s->be * s->ab[bd->iv + j];
        for (int j = 0; j < 3; j++) q[j] = q0[j] + h * u0[j] + 0.5 * h * h * am[j];
        /* p + h 1/2 p (0, Omega) + h^2/2 (1/2 p (0, a_Omega) - 1/4 |Omega|^2 p) = p (1 - h^2 |Omega|^2 / 8, 0)
           + 1/2 p (0, h Omega + h^2/2 a_Omega) */
        const double *p = q0 + 3, W2 = rcb_v3_dot(u0 + 3, u0 + 3);
        const double d[4] = { 0.0, 0.5 * (h * u0[3] + 0.5 * h * h * am[3]), 0.5 * (h * u0[4] + 0.5 * h * h * am[4]),
                              0.5 * (h * u0[5] + 0.5 * h * h * am[5]) };
        double pd[4];
        rcb_quat_mul(pd, p, d);
        const double s0 = 1.0 - h * h * W2 / 8.0;
        for (int j = 0; j < 4; j++) q[3 + j] = s0 * p[j] + pd[j];
        rcb_quat_normalize(q + 3);
    }
}

/* the applied forces at (t_{i+1}, q, u): w->f (w->q, w->v hold q, u) */
static rc_status forces(ga3_sys *s)
{
    rc_world *w = s->w;
    memcpy(w->q, s->q, (size_t)s->nq * sizeof(double));
    memcpy(w->v, s->u, (size_t)s->nv * sizeof(double));
    return s->have_f ? rci_forces(w, s->t1) : RC_OK;
}

/* K = J + k ([W]x J - [J W]x) (3x3 row-major): the gyroscopic tangent */
static void gyro_tangent(const double *J, const double *W, double k, double *K)
{
    const double JW[3] = { J[0] * W[0], J[1] * W[1], J[2] * W[2] };
    for (int j = 0; j < 3; j++) {
        double e[3] = { 0.0, 0.0, 0.0 }, x[3], y[3];
        e[j] = 1.0;
        rcb_v3_cross(x, W, e);
        rcb_v3_cross(y, JW, e);
        for (int i = 0; i < 3; i++) K[3 * i + j] = (i == j ? J[j] : 0.0) + k * (J[j] * x[i] - y[i]);
    }
}

static int inverse3(const double *A, double *Ai)
{
    const double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8], c2 = A[3] * A[7] - A[4] * A[6];
    const double det = A[0] * c0 + A[1] * c1 + A[2] * c2;
    if (!(fabs(det) > 0.0) || !rcb_finite(det)) return 0;
    const double r = 1.0 / det;
    Ai[0] = c0 * r; Ai[1] = (A[2] * A[7] - A[1] * A[8]) * r; Ai[2] = (A[1] * A[5] - A[2] * A[4]) * r;
    Ai[3] = c1 * r; Ai[4] = (A[0] * A[8] - A[2] * A[6]) * r; Ai[5] = (A[2] * A[3] - A[0] * A[5]) * r;
    Ai[6] = c2 * r; Ai[7] = (A[1] * A[6] - A[0] * A[7]) * r; Ai[8] = (A[0] * A[4] - A[1] * A[3]) * r;
    return 1;
}

/* the residual h R (impulses, as the planar scheme's (39)) at u, f, a; the
 * tangents' inverses at u (k: d u / d a); returns the max-norm */
static double residual(ga3_sys *s, const double *a, const double *u, double k, int tangents)
{
    const rc_world *w = s->w;
    const double *g = w->def.gravity;
    double res = 0.0;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        const int o = bd->iv;
        const double m = w->mass_diag[o], *J = w->mass_diag + o + 3, *W = u + o + 3;
        const double *f = s->have_f ? w->f + o : NULL;
        double *R = s->R + o, JW[3], gy[3];
        for (int j = 0; j < 3; j++) R[j] = m * a[o + j] - m * g[j] - (f ? f[j] : 0.0);
        for (int j = 0; j < 3; j++) JW[j] = J[j] * W[j];
        rcb_v3_cross(gy, W, JW);
        for (int j = 0; j < 3; j++) R[3 + j] = J[j] * a[o + 3 + j] + gy[j] - (f ? f[3 + j] : 0.0);
        for (int j = 0; j < 6; j++) { R[j] *= s->h; res = fmax(res, fabs(R[j])); }
        if (tangents) {
            double K[9];
            gyro_tangent(J, W, k, K);
            if (!inverse3(K, s->K + 9 * b)) return NAN;
        }
    }
    return rcb_finite(res) ? res : NAN;
}

/* the consistent acceleration at (q_i, u_i): M a = f (a-bar_0 = a_0) */
static rc_status initial_acceleration(ga3_sys *s, double *a0)
{
    memcpy(s->q, s->qn, (size_t)s->nq * sizeof(double));
    memcpy(s->u, s->un, (size_t)s->nv * sizeof(double));
    const double t1 = s->t1;
    s->t1 = t1 - s->h;
    rc_status st = forces(s);
    s->t1 = t1;
    RC_CHECK(st);
    memset(a0, 0, (size_t)s->nv * sizeof(double));
    (void)residual(s, a0, s->un, 0.0, 0);   /* h (-f + gyroscopic) */
    const rc_world *w = s->w;
    for (int i = 0; i < s->nv; i++) a0[i] = -s->R[i] / (s->h * w->mass_diag[i]);
    return RC_OK;
}

static rc_status arrays(ga3_sys *s)
{
    double *p;
    const long long nv = s->nv, nq = s->nq;
    RC_CHECK(rcb_arena_array(&s->w->work, (void **)&p, 2 * nq + 5 * nv + 9LL * s->w->nbodies, sizeof(double),
                             "gen-alpha (spatial) system"));
    s->qn = p; p += nq;
    s->un = p; p += nv;
    s->a = p; p += nv;
    s->ab = p; p += nv;
    s->u = p; p += nv;
    s->q = p; p += nq;
    s->R = p; p += nv;
    s->K = p;
    return RC_OK;
}

/* what the scheme does not take on spatial bodies; the contacts detected
 * within the step's reach at q_i (w->c3, *nc of them; margin in
 * w->detect_margin) */
static rc_status check_world(const ga3_sys *s, int *nc)
{
    rc_world *w = s->w;
    *nc = 0;
    for (int i = 0; w->j3 && i < w->j3->n; i++)
        if (w->j3->j[i].motor)
            return rc_set_error(RC_ERR_ARG, "gen-alpha: 3D joint %d has a motor, which the scheme does not take (use moreau-jean "
                                "or moreau-jean-fremond)", i);
    for (int b = 0; b < w->nbodies; b++)
        if (w->bodies[b].kind != RC_BODY_RIGID3D)
            return rc_set_error(RC_ERR_ARG, "gen-alpha: body %d of a dim = 3 world is not a spatial rigid body", b);
    if (!w->c3 || !w->c3->nshapes) return RC_OK;
    double reach = 0.0;
    const double ag = rcb_v3_norm(w->def.gravity);
    for (int i = 0; i < w->c3->nshapes; i++) {
        const rcm_shape3 *sh = &w->c3->shapes[i];
        if (sh->body == RC_GROUND) continue;
        const double *v = w->v + w->bodies[sh->body].iv;
        reach = fmax(reach, rcb_v3_norm(v) + rcb_v3_norm(v + 3) * sh->bound + s->h * ag);
    }
    w->detect_margin = w->def.contact_margin + 8.0 * s->h * reach;
    RC_CHECK(rcc_detect3(w, w->detect_margin));
    *nc = w->c3->n;
    return RC_OK;
}

static rc_status newton(rci_step *st, ga3_sys *s)
{
    rc_world *w = s->w;
    const int maxit = w->sim.gen_alpha.max_iter;
    const double tol = w->sim.solver.tol, k = s->h * s->ga * (1.0 - s->af) / (1.0 - s->am);
    double res = 0.0;
    int it = 0;
    for (;; it++) {
        dependent(s);
        RC_CHECK(forces(s));
        res = residual(s, s->a, s->u, k, 1);
        if (!(res > tol) || it == maxit) break;
        for (int b = 0; b < w->nbodies; b++) {   /* a -= K^-1 R / h per body */
            const rc_body *bd = &w->bodies[b];
            const int o = bd->iv;
            double d[3];
            for (int j = 0; j < 3; j++) s->a[o + j] -= s->R[o + j] / (s->h * w->mass_diag[o]);
            const double *Ki = s->K + 9 * b, *R = s->R + o + 3;
            for (int i = 0; i < 3; i++) d[i] = (Ki[3 * i] * R[0] + Ki[3 * i + 1] * R[1] + Ki[3 * i + 2] * R[2]) / s->h;
            for (int j = 0; j < 3; j++) s->a[o + 3 + j] -= d[j];
        }
    }
    st->iters = it;
    st->res = res;
    st->converged = res <= tol;
    if (!rcb_finite(res))
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: non-finite Newton residual at t = %.17g (step %ld) after %d iterations "
                            "(spatial bodies)", st->t_next, w->step + 1, it);
    if (st->converged) return RC_OK;
    if (w->sim.solver.on_fail == RC_ON_FAIL_ERROR)
        return rc_set_error(RC_ERR_SOLVER, "gen-alpha: Newton did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e "
                            "after %d iterations (spatial bodies' equations of motion)", st->t_next, w->step + 1, res, tol, it);
    rci_warn_unconverged(w, "gen-alpha: Newton did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e after %d "
                         "iterations (spatial bodies' equations of motion)", st->t_next, w->step + 1, res, tol, it);
    return RC_OK;
}

/* E at both ends, the applied forces' work at (u_i + u_{i+1})/2 over h, the
 * scheme's numerical dissipation (the rest) */
static void audit(rci_step *st, ga3_sys *s, rci_audit *a)
{
    rc_world *w = s->w;
    rcm_energy(w, s->qn, s->un, &st->Ek0, &st->Ep0, NULL);
    rcm_energy(w, s->q, s->u, &st->Ek1, &st->Ep1, &st->E_el);
    if (s->have_f)
        for (int i = 0; i < s->nv; i++) a->W_ext += s->h * 0.5 * (s->un[i] + s->u[i]) * w->f[i];
    a->E0 = st->Ek0 + st->Ep0;
    st->W_theta = (st->Ek1 + st->Ep1 - a->E0) - a->W_ext;
}

/* the step's q, u become the world's, after a check that they are finite
 * (the three 3D steps: free, bruls2014, capobianco2021) */
rc_status rci_ga3_accept(rc_world *w, const double *q, const double *u)
{
    int i = rci_first_nonfinite(q, w->nq);
    if (i >= 0) return rci_nonfinite_state(w, i, 1, q[i]);
    i = rci_first_nonfinite(u, w->nv);
    if (i >= 0) return rci_nonfinite_state(w, i, 0, u[i]);
    memcpy(w->q, q, (size_t)w->nq * sizeof(double));
    memcpy(w->v, u, (size_t)w->nv * sizeof(double));
    return RC_OK;
}

static rc_status step(rci_step *st, rci_audit *a, rci_ga_state *g)
{
    rc_world *w = st->w;
    ga3_sys s;
    memset(&s, 0, sizeof s);
    double c[4];
    rcm_gen_alpha_coefs(&w->sim.gen_alpha, c);
    s.w = w;
    s.h = st->h;
    s.am = c[0]; s.af = c[1]; s.be = c[2]; s.ga = c[3];
    s.t1 = st->t_next;
    s.nq = w->nq;
    s.nv = w->nv;
    s.have_f = st->have_f;
    int nc;
    RC_CHECK(check_world(&s, &nc));
    RC_CHECK(arrays(&s));
    memcpy((double *)s.qn, w->q, (size_t)s.nq * sizeof(double));
    memcpy((double *)s.un, w->v, (size_t)s.nv * sizeof(double));
    const int variant = g->variant;
    if (!g->valid || memcmp(g->q, w->q, (size_t)s.nq * sizeof(double)) != 0
        || memcmp(g->v, w->v, (size_t)s.nv * sizeof(double)) != 0) {
        g->valid = 0;
        RC_CHECK(initial_acceleration(&s, g->a));
        RC_CHECK(rci_ga3j_start(w, s.t1 - s.h, s.qn, s.un, g->a));   /* the joints' consistent acceleration (ga3_joints.c) */
        memcpy(g->vd, g->a, (size_t)s.nv * sizeof(double));
    }
    if (!g->valid) g->nrec3 = 0;
    const int nb = rci_ga3j_count(w);
    if (nc > 0 || nb > 0)   /* with contacts or joints: ga3_bruls.c, ga3_fstep.c */
        return variant == RC_GA_BRULS ? rci_ga3b_step(st, a, g) : rci_ga3f_step(st, a, g);
    if (w->c3) w->c3->n = 0;
    s.an = g->a;
    s.abn = g->vd;
    memcpy(s.a, s.an, (size_t)s.nv * sizeof(double));   /* the predictor: a_{i+1} = a_i */
    RC_CHECK(newton(st, &s));
    RC_CHECK(rci_ga3_accept(w, s.q, s.u));   /* finite, then the world's q, v (ga3_step.c) */
    audit(st, &s, a);
    /* the state across steps: a_{i+1}, a-bar_{i+1} and the q, u they belong to */
    memcpy(g->a, s.a, (size_t)s.nv * sizeof(double));
    memcpy(g->vd, s.ab, (size_t)s.nv * sizeof(double));
    memcpy(g->q, w->q, (size_t)s.nq * sizeof(double));
    memcpy(g->v, w->v, (size_t)s.nv * sizeof(double));
    g->variant = variant;
    g->nrec = 0;
    g->nrec3 = 0;
    g->valid = 1;
    return RC_OK;
}

rc_status rci_ga3_step(rci_step *st, rci_audit *a, rci_ga_state *g)
{
    rc_world *w = st->w;
    double *q0;   /* q_i, u_i for a failed step (the Newton writes its iterates into w->q, w->v) */
    RC_CHECK(rcb_arena_array(&w->work, (void **)&q0, (long long)w->nq + w->nv, sizeof(double), "gen-alpha q_n"));
    memcpy(q0, w->q, (size_t)w->nq * sizeof(double));
    memcpy(q0 + w->nq, w->v, (size_t)w->nv * sizeof(double));
    rc_status r = step(st, a, g);
    if (r == RC_OK) return RC_OK;
    memcpy(w->q, q0, (size_t)w->nq * sizeof(double));
    memcpy(w->v, q0 + w->nq, (size_t)w->nv * sizeof(double));
    if (w->c3) w->c3->n = 0;
    return r;
}
