/* apgd.c -- accelerated projected gradient descent (APGD) on the cone
 * complementarity problem (CCP), as in Chrono's solver: Mazhar, Heyn,
 * Negrut & Tasora 2015, "Using Nesterov's method to accelerate multibody
 * dynamics with friction and contact", ACM TOG 34(3), Algorithm 2 (our own
 * code; docs/granular.md has the measurements).
 *
 * The problem. The one-step problem of the active contacts is
 *     u = W p + b,   W = kappa H Mhat^-1 H^T  (never assembled; V keeps
 *     V_0 + kappa Mhat^-1 H^T p, so u = H V + shift, as in nsgs.c).
 * APGD minimises the quadratic f(p) = 1/2 p.W p + b.p over the product of
 * the contacts' Coulomb cones K_a = {|p_T| <= mu p_N}: its optimality
 * condition is the CCP
 *     K ∋ p  ⊥  u = W p + b ∈ K*           (K* the dual cone),
 * i.e. p = proj_K(p - t u) for any t > 0. This is the convex relaxation of
 * Coulomb's law (Anitescu 2006): for a sticking or separating contact it is
 * the same, but a sliding contact gets u_N = mu |u_T| instead of u_N = 0 --
 * the solution of the CCP is the De Saxce problem with the term mu |u_T| e_N
 * left out of the unknown velocity. Bodies that slide separate at that
 * speed (a block sliding at 1 m/s with mu = 0.3 lifts off at 0.3 m/s, then
 * falls back: it "hovers"); NSGS solves the exact law (nsgs.c, law.c).
 * The stopping test is NSGS's with this law: the natural map of the CCP,
 *     ||p - proj_K(p - u)||_2 / (1 + ||b||_2) <= tol   (or its max term,
 * solver.norm = "max"), c->res its local terms. (The Coulomb natural map
 * NSGS uses does not vanish at the CCP's solution when contacts slide.)
 *
 * The iteration (Algorithm 2 of the paper):
 *     g = W y + b;  x+ = proj_K(y - g / L);
 *     while f(x+) > f(y) + g.(x+ - y) + L/2 |x+ - y|^2:  L = 2 L  (backtracking,
 *         written as d.W d > L |d|^2 with d = x+ - y, round-off free);
 *     theta+ = (-theta^2 + theta sqrt(theta^2 + 4)) / 2,
 *     beta = theta (1 - theta) / (theta^2 + theta+),
 *     y+ = x+ + beta (x+ - x)        (Nesterov's momentum);
 *     restart (theta+ = 1, y+ = x+) when g.(x+ - x) > 0 (adaptive restart,
 *     O'Donoghue & Candes 2015);  L = 0.9 L  (the step grows back);
 * the best iterate (lowest residual) is returned. L starts from Chrono's
 * estimate |W (x_0 - 1)| / |x_0 - 1|. V being affine in p, V(y+) = V(x+) +
 * beta (V(x+) - V(x)) costs a pass over the velocities, not the contacts:
 * an iteration is two passes H V and one H^T (about one NSGS sweep and its
 * residual pass).
 *
 * Only planar contacts with the built-in (closed-form) laws and no joints:
 * anything else fails the step with a message. */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <string.h>

/* |p - proj_K(p - u)|^2: the CCP's natural map at one contact. */
static inline double ccp_residual2(const double *u, const double *p, double mu)
{
    double x[2] = { p[0] - u[0], p[1] - u[1] };
    rcm_fc2d_project(mu, x);
    const double d0 = p[0] - x[0], d1 = p[1] - x[1];
    return d0 * d0 + d1 * d1;
}

typedef struct apgd {
    rc_world *w;
    int n;                      /* active contacts                         */
    double *x, *xn, *y, *g, *un, *best;   /* 2 per active contact          */
    double *vx, *vn, *vy;       /* V(x), V(x+), V(y): nv each              */
    double nb;                  /* |b|, the residual's scale               */
    int max_norm;
} apgd;

static inline rc_contact *contact(const apgd *a, int k) { return &a->w->contacts[a->w->active[k]]; }
static inline double mu_of(const apgd *a, const rc_contact *c) { return a->w->laws[c->law].def.mu; }

/* u = H V + shift of every active contact, into u[2k]. */
static void velocities(const apgd *a, const double *V, double *u)
{
    for (int k = 0; k < a->n; k++) local_velocity(a->w, contact(a, k), V, u + 2 * k);
}

/* V = V_from + kappa Mhat^-1 H^T (p - p_from) (V_from copied first unless V is it). */
static void move(const apgd *a, const double *V_from, const double *p_from, const double *p, double *V)
{
    if (V != V_from) memcpy(V, V_from, (size_t)a->w->nv * sizeof(double));
    for (int k = 0; k < a->n; k++) {
        double d[2] = { p[2 * k] - p_from[2 * k], p[2 * k + 1] - p_from[2 * k + 1] };
        if (d[0] != 0.0 || d[1] != 0.0) rcm_contact_apply(a->w, contact(a, k), V, d);
    }
}

/* The CCP residual of p at velocities u (c->res the local squares), its worst contact. */
static double residual(const apgd *a, const double *p, const double *u, int *worst)
{
    double sum = 0.0, wr = -1.0;
    *worst = -1;
    for (int k = 0; k < a->n; k++) {
        rc_contact *c = contact(a, k);
        const double r2 = ccp_residual2(u + 2 * k, p + 2 * k, mu_of(a, c));
        c->res = r2;
        sum += r2;
        if (r2 > wr) { wr = r2; *worst = a->w->active[k]; }
    }
    return a->max_norm ? sqrt(wr > 0.0 ? wr : 0.0) : sqrt(sum) / (1.0 + a->nb);
}

/* Chrono's first Lipschitz estimate |W d| / |d|, d = x_0 - (1, 1, ...),
 * through the scratch velocity S; 1 when W d vanishes. */
static double lipschitz_estimate(const apgd *a, double *S, double *Wd)
{
    rc_world *w = a->w;
    memset(S, 0, (size_t)w->nv * sizeof(double));
    double dd = 0.0;
    for (int k = 0; k < a->n; k++) {
        double d[2] = { a->x[2 * k] - 1.0, a->x[2 * k + 1] - 1.0 };
        dd += d[0] * d[0] + d[1] * d[1];
        rcm_contact_apply(w, contact(a, k), S, d);
    }
    double ww = 0.0;
    for (int k = 0; k < a->n; k++) {
        rcm_contact_dot(w, contact(a, k), S, NULL, Wd + 2 * k);
        ww += Wd[2 * k] * Wd[2 * k] + Wd[2 * k + 1] * Wd[2 * k + 1];
    }
    const double L = dd > 0.0 ? sqrt(ww / dd) : 0.0;
    return L > 0.0 && rcb_finite(L) ? L : 1.0;
}

/* x+ = proj_K(y - t g), V(x+), u(x+); returns d.W d and |d|^2 (d = x+ - y). */
static void gradient_step(const apgd *a, double t, double *dWd, double *dd)
{
    double q = 0.0, s = 0.0;
    for (int k = 0; k < a->n; k++) {
        double *xn = a->xn + 2 * k;
        xn[0] = a->y[2 * k] - t * a->g[2 * k];
        xn[1] = a->y[2 * k + 1] - t * a->g[2 * k + 1];
        rcm_fc2d_project(mu_of(a, contact(a, k)), xn);
    }
    move(a, a->vy, a->y, a->xn, a->vn);
    velocities(a, a->vn, a->un);
    for (int i = 0; i < 2 * a->n; i++) {
        const double d = a->xn[i] - a->y[i];
        q += d * (a->un[i] - a->g[i]);   /* u(x+) - u(y) = W d */
        s += d * d;
    }
    *dWd = q;
    *dd = s;
}

static rc_status apgd_setup(apgd *a, const rcn_problem *pb)
{
    rc_world *w = pb->w;
    memset(a, 0, sizeof *a);
    a->w = w;
    a->n = w->nactive;
    a->max_norm = pb->opt->norm == RC_NORM_MAX;
    if (w->njoints)
        return rc_set_error(RC_ERR_ARG, "solver \"apgd\": joints are not supported (the world has %d); use \"nsgs\"", w->njoints);
    for (int k = 0; k < a->n; k++)
        if (!w->laws[contact(a, k)->law].closed_form)
            return rc_set_error(RC_ERR_ARG, "solver \"apgd\": contact law %d has no closed form (a custom or generic law); "
                                "it projects onto the built-in Coulomb cone only: use \"nsgs\"", contact(a, k)->law);
    const long long m = 2LL * (a->n > 0 ? a->n : 1);
    double **vec2[] = { &a->x, &a->xn, &a->y, &a->g, &a->un, &a->best };
    for (size_t i = 0; i < sizeof vec2 / sizeof *vec2; i++)
        RC_CHECK(rcb_arena_array(&w->work, (void **)vec2[i], m, sizeof(double), "APGD impulses"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&a->vn, w->nv, sizeof(double), "APGD velocities"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&a->vy, w->nv, sizeof(double), "APGD velocities"));
    a->vx = w->V;   /* w->V = V(x_0): the warm start */
    a->nb = sqrt(w->contact_b2);
    for (int k = 0; k < a->n; k++) {
        const rc_contact *c = contact(a, k);
        a->x[2 * k] = c->p[0];
        a->x[2 * k + 1] = c->p[1];
    }
    return RC_OK;
}

/* The result: the best iterate into the contacts' p, its V into w->V. */
static void apgd_finish(apgd *a, const double *p, const double *V)
{
    rc_world *w = a->w;
    if (V != w->V) memcpy(w->V, V, (size_t)w->nv * sizeof(double));
    for (int k = 0; k < a->n; k++) {
        rc_contact *c = contact(a, k);
        c->p[0] = p[2 * k];
        c->p[1] = p[2 * k + 1];
        c->res = sqrt(c->res);
    }
}

rc_status rcn_apgd_solve(const rcn_problem *pb, rcn_report *rep)
{
    const rc_solver_def *opt = pb->opt;
    apgd a;
    rep->parallel = 0;
    RC_CHECK(apgd_setup(&a, pb));
    rcn_nsgs_attach(a.w);
    int worst, it = 0;
    velocities(&a, a.vx, a.g);   /* y_0 = x_0: g = u(x_0) */
    double res = residual(&a, a.x, a.g, &worst), best_res = res;
    if (res <= opt->tol || a.n == 0) {
        apgd_finish(&a, a.x, a.vx);
        rep->iterations = 0; rep->residual = res; rep->worst = worst; rep->local_solves = 0;
        return RC_OK;
    }
    memcpy(a.y, a.x, 2 * (size_t)a.n * sizeof(double));
    memcpy(a.vy, a.vx, (size_t)a.w->nv * sizeof(double));
    memcpy(a.best, a.x, 2 * (size_t)a.n * sizeof(double));
    double L = lipschitz_estimate(&a, a.vn, a.un), theta = 1.0;
    int have_g = 1;   /* a.g holds u(y) */
    while (it < opt->max_iter && !rc_interrupt_requested()) {
        if (!have_g) velocities(&a, a.vy, a.g);
        double dWd, dd;
        gradient_step(&a, 1.0 / L, &dWd, &dd);
        for (int bt = 0; dWd > L * dd && bt < 60; bt++) {   /* backtracking: L below the curvature of W along d */
            L *= 2.0;
            gradient_step(&a, 1.0 / L, &dWd, &dd);
        }
        it++;
        res = residual(&a, a.xn, a.un, &worst);
        if (res < best_res) { best_res = res; memcpy(a.best, a.xn, 2 * (size_t)a.n * sizeof(double)); }
        double gx = 0.0;   /* g.(x+ - x): the step goes uphill along the momentum: restart */
        for (int i = 0; i < 2 * a.n; i++) gx += a.g[i] * (a.xn[i] - a.x[i]);
        double *t;
        if (res <= opt->tol) {   /* x+ is the solution */
            t = a.x; a.x = a.xn; a.xn = t;
            t = a.vx; a.vx = a.vn; a.vn = t;
            break;
        }
        double beta = 0.0, theta_n = 1.0;
        if (!(gx > 0.0)) {
            theta_n = 0.5 * (-theta * theta + theta * sqrt(theta * theta + 4.0));
            beta = theta * (1.0 - theta) / (theta * theta + theta_n);
        }
        for (int i = 0; i < 2 * a.n; i++) a.y[i] = a.xn[i] + beta * (a.xn[i] - a.x[i]);
        for (int i = 0; i < a.w->nv; i++) a.vy[i] = a.vn[i] + beta * (a.vn[i] - a.vx[i]);
        if (beta == 0.0) { memcpy(a.g, a.un, 2 * (size_t)a.n * sizeof(double)); have_g = 1; }   /* y+ = x+ */
        else have_g = 0;
        theta = theta_n;
        L *= 0.9;
        t = a.x; a.x = a.xn; a.xn = t;
        t = a.vx; a.vx = a.vn; a.vn = t;
    }
    if (res > best_res) {   /* the last iterate is not the best: back to it, its residuals */
        move(&a, a.vx, a.x, a.best, a.vn);
        velocities(&a, a.vn, a.un);
        res = residual(&a, a.best, a.un, &worst);
        apgd_finish(&a, a.best, a.vn);
    } else {
        apgd_finish(&a, a.x, a.vx);
    }
    rep->iterations = it;
    rep->residual = res;
    rep->worst = worst;
    rep->local_solves = (long)it * a.n;
    return RC_OK;
}
