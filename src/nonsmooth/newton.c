/* newton.c -- a semismooth Newton method for the one-step problem
 * (solver = { "newton" }): all active contacts and the joints' equality rows
 * at once, on the Alart--Curnier reformulation (Alart & Curnier 1991; the
 * planar form of Siconos numerics' fc2d Alart--Curnier), dense.
 *
 * Unknowns x = (p_1 .. p_m, lambda): two rows a contact (N, T), one per
 * joint equality row. The local velocities are affine in x,
 *     u = u_0 + W (x - x_0),    W = H kappa Mhat^-1 H^T  (symmetric),
 * assembled column by column from the kernel's products (rcm_contact_apply
 * of a unit impulse into a scratch velocity, then every row's H v). The
 * equations Phi(x) = 0, for a contact with a closed-form law (u includes
 * the law's shift, eq. 96 / 101; rho_N = 1 / W_NN, rho_T = 1 / W_TT):
 *     Phi_N = p_N - max(0, p_N - rho_N u_N)                     (Alart--Curnier)
 *        or  p_N + rho_N u_N - sqrt(p_N^2 + (rho_N u_N)^2)       (Fischer--Burmeister)
 *     Phi_T = p_T - proj_[-s, s](p_T - rho_T u_T),  s = mu max(0, p_N - rho_N u_N),
 * whose zeros are the solutions of Signorini + Coulomb, i.e. of the De
 * Saxce form -xi(u) in N_K(p) NSGS solves (eq. 17): the same solutions. A
 * law without a closed form (in Lua, or C generic) gives
 *     Phi = p - proj_C(p - rho xi(u)),   rho = 1 / max(W_NN, W_TT),
 * through its prox (rcn_law_prox) and a forward-difference Jacobian in p
 * and in u. A joint's equality rows: Phi = rho_j (H V + dg/dt), rho_j =
 * 1 / W_jj. With A = dPhi/dp and B = dPhi/du (block diagonal, one 2 x 2
 * block a contact), the Newton matrix is J = A + B W (a generalized
 * Jacobian: the kinks take one side), plus delta I, delta = min(1e-11, |Phi|)
 * (redundant contacts make it singular), solved by LAPACK's dgesv (the
 * dense path) or, above RC_NEWTON_DENSE_ROWS rows or with solver.linear =
 * "iterative", matrix-free by GMRES (newton_krylov.c: W is then never
 * assembled, the scalings come from the stage's local blocks).
 *
 * Globalisation: Armijo backtracking on the merit theta = 1/2 |Phi|^2,
 * theta(x + a d) <= (1 - 2 sigma a) theta(x) with sigma = 1e-4, a halved
 * down to 2^-30. The stopping test is NSGS's (rcn_nsgs_residual: the
 * natural-map residual of every row, the same tol, norm, max_iter counted in
 * Newton iterations), evaluated from the kernel's V after each step, so a
 * converged Newton solve meets exactly NSGS's criterion. When Newton fails
 * (singular matrix, stalled GMRES, stalled line search, max_iter, a dense
 * problem above RC_NEWTON_MAX_ROWS rows, joint motors or limits) NSGS continues from the
 * last iterate (solver.fallback, the default), counted in
 * stats.newton_fallbacks and warned the first time.
 */
#include "nonsmooth/newton_impl.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

static rc_status take(rc_world *w, double **p, long long count)
{
    return rcb_arena_array(&w->work, (void **)p, count > 0 ? count : 1, sizeof(double), "Newton solver");
}

static int joint_rows(const rc_world *w)
{
    int r = 0;
    for (int i = 0; i < w->njoints; i++) r += w->joints[i].rows;
    return r;
}

static rc_status sys_alloc(nt_sys *s)
{
    rc_world *w = s->w;
    const long long n = s->n, n2 = (long long)s->n * s->n;
    if (s->iterative) RC_CHECK(rcn_newton_krylov_alloc(s));
    else if (s->sparse) RC_CHECK(take(w, &s->r, n));
    else {
        RC_CHECK(take(w, &s->W, n2));
        RC_CHECK(take(w, &s->J, n2));
        RC_CHECK(rcb_arena_array(&w->work, (void **)&s->ipiv, n > 0 ? n : 1, sizeof(int), "Newton solver"));
    }
    double **vec[] = { &s->x, &s->u, &s->phi, &s->d, &s->wd, &s->xt, &s->ut, &s->phit, &s->rho };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) RC_CHECK(take(w, vec[i], n));
    RC_CHECK(take(w, &s->A, 4LL * s->m));
    RC_CHECK(take(w, &s->B, 4LL * s->m));
    return take(w, &s->S, w->nv);
}

/* ---------------------------------------------------------------- assembly */

/* col[i] = row i of H applied to v (no shift): every contact, then every joint row */
void rcn_newton_rows_dot(const nt_sys *s, const double *v, double *col)
{
    const rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) rcm_contact_dot(w, &w->contacts[w->active[k]], v, NULL, col + 2 * k);
    int r = 2 * s->m;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        rcm_joint_dot(w, j, &j->Ha[0][0], &j->Hb[0][0], v, NULL, RCM_SUM_BY_SIDE, col + r);
        r += j->rows;
    }
}

/* W column by column: H kappa Mhat^-1 H^T e_c through the scratch velocity */
static void assemble_W(nt_sys *s)
{
    rc_world *w = s->w;
    const size_t nv = (size_t)w->nv, n = (size_t)s->n;
    for (int k = 0; k < s->m; k++)
        for (int a = 0; a < 2; a++) {
            double e[2] = { a == 0, a == 1 };
            memset(s->S, 0, nv * sizeof(double));
            rcm_contact_apply(w, &w->contacts[w->active[k]], s->S, e);
            rcn_newton_rows_dot(s, s->S, s->W + n * (size_t)(2 * k + a));
        }
    int col = 2 * s->m;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        for (int r = 0; r < j->rows; r++) {
            double e[3] = { r == 0, r == 1, r == 2 };
            memset(s->S, 0, nv * sizeof(double));
            rcm_joint_apply(w, j, &j->MHa[0][0], &j->MHb[0][0], s->S, 0, e);
            rcn_newton_rows_dot(s, s->S, s->W + n * (size_t)col++);
        }
    }
}

/* x and u = H V + shift from the kernel's state */
static void read_state(nt_sys *s)
{
    rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        s->x[2 * k] = c->p[0];
        s->x[2 * k + 1] = c->p[1];
        local_velocity(w, c, w->V, s->u + 2 * k);
    }
    int r = 2 * s->m;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        joint_velocity(w, j, w->V, s->u + r);
        for (int q = 0; q < j->rows; q++) s->x[r + q] = j->lambda[q];
        r += j->rows;
    }
}

/* the scalings: 1 / W_ii by row (a custom law's contact: 1 / max(W_NN, W_TT)) */
static void scalings(nt_sys *s)
{
    const size_t n = (size_t)s->n;
    for (int i = 0; i < s->n; i++) {
        const double wii = s->W[n * (size_t)i + (size_t)i];
        s->rho[i] = wii > 0.0 ? 1.0 / wii : 1.0;
    }
    for (int k = 0; k < s->m; k++) {
        const rc_contact *c = &s->w->contacts[s->w->active[k]];
        if (s->w->laws[c->law].closed_form) continue;
        const double a = s->W[n * (size_t)(2 * k) + (size_t)(2 * k)], b = s->W[n * (size_t)(2 * k + 1) + (size_t)(2 * k + 1)];
        const double l = a > b ? a : b;
        s->rho[2 * k] = s->rho[2 * k + 1] = l > 0.0 ? 1.0 / l : 1.0;
    }
}

/* ---------------------------------------------------------------- Phi */

/* Alart--Curnier (or Fischer--Burmeister for N) of a closed-form law, with
 * its blocks A = dPhi/dp, B = dPhi/du (row-major 2 x 2) when A is not NULL */
static void phi_closed(int fb, double mu, const double *rho, const double *p, const double *u, double *f,
                       double *A, double *B)
{
    const double zn = p[0] - rho[0] * u[0], zt = p[1] - rho[1] * u[1];
    double aN = 0.0, bN = 0.0;
    if (fb) {   /* phi(a, b) = a + b - |(a, b)|, a = p_N, b = rho_N u_N */
        const double a = p[0], b = rho[0] * u[0], r = sqrt(a * a + b * b);
        f[0] = a + b - r;
        aN = r > 0.0 ? 1.0 - a / r : 1.0 - 0.70710678118654752440;
        bN = rho[0] * (r > 0.0 ? 1.0 - b / r : 1.0 - 0.70710678118654752440);
    } else if (zn > 0.0) {
        f[0] = rho[0] * u[0];
        bN = rho[0];
    } else {
        f[0] = p[0];
        aN = 1.0;
    }
    const double bound = zn > 0.0 ? mu * zn : 0.0;
    double aTN = 0.0, aTT, bTN = 0.0, bTT;
    if (fabs(zt) <= bound) {   /* stick: the projection is the identity */
        f[1] = rho[1] * u[1];
        aTT = 0.0;
        bTT = rho[1];
    } else {                   /* slide (or no normal impulse): p_T on the bound */
        const double sg = zt > 0.0 ? 1.0 : zt < 0.0 ? -1.0 : 0.0;
        f[1] = p[1] - sg * bound;
        aTT = 1.0;
        bTT = 0.0;
        if (zn > 0.0) { aTN = -sg * mu; bTN = sg * mu * rho[0]; }
    }
    if (!A) return;
    A[0] = aN;  A[1] = 0.0; A[2] = aTN; A[3] = aTT;
    B[0] = bN;  B[1] = 0.0; B[2] = bTN; B[3] = bTT;
}

/* a law without a closed form: Phi = p - proj_C(p - rho xi(u)) */
static rc_status phi_prox(rc_world *w, rc_contact *c, double rho, const double *p, const double *u, double *f)
{
    double q[2];
    RC_CHECK(rcn_law_prox(w, c, p, u, rho, q));
    f[0] = p[0] - q[0];
    f[1] = p[1] - q[1];
    return RC_OK;
}

/* its blocks by forward differences: steps 1e-7 of the scale of p (and of
 * rho u), so that a step rarely crosses a kink of Phi */
static rc_status phi_prox_fd(rc_world *w, rc_contact *c, double rho, const double *p, const double *u,
                             const double *f, double *A, double *B)
{
    const double ep = 1e-7 * (fabs(p[0]) + fabs(p[1]) + rho * (fabs(u[0]) + fabs(u[1]))) + 1e-10 * rho;
    const double eu = ep / rho;
    for (int k = 0; k < 2; k++) {
        double pe[2] = { p[0], p[1] }, ue[2] = { u[0], u[1] }, fe[2];
        pe[k] += ep;
        RC_CHECK(phi_prox(w, c, rho, pe, u, fe));
        A[k] = (fe[0] - f[0]) / ep;
        A[2 + k] = (fe[1] - f[1]) / ep;
        ue[k] += eu;
        RC_CHECK(phi_prox(w, c, rho, p, ue, fe));
        B[k] = (fe[0] - f[0]) / eu;
        B[2 + k] = (fe[1] - f[1]) / eu;
    }
    return RC_OK;
}

/* Phi at (x, u) into f; with jac, the blocks A and B too */
static rc_status eval_phi(nt_sys *s, const double *x, const double *u, double *f, int jac)
{
    rc_world *w = s->w;
    const int fb = s->opt->formulation == RC_NEWTON_FISCHER_BURMEISTER;
    for (int k = 0; k < s->m; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        const rc_law *l = &w->laws[c->law];
        const int i = 2 * k;
        if (l->closed_form) {
            phi_closed(fb, l->def.mu, s->rho + i, x + i, u + i, f + i, jac ? s->A + 2 * i : NULL, s->B + 2 * i);
            continue;
        }
        RC_CHECK(phi_prox(w, c, s->rho[i], x + i, u + i, f + i));
        if (jac) RC_CHECK(phi_prox_fd(w, c, s->rho[i], x + i, u + i, f + i, s->A + 2 * i, s->B + 2 * i));
    }
    for (int i = 2 * s->m; i < s->n; i++) f[i] = s->rho[i] * u[i];
    return RC_OK;
}

static double half_sq(const double *f, int n)
{
    double t = 0.0;
    for (int i = 0; i < n; i++) t += f[i] * f[i];
    return 0.5 * t;
}

/* J = A + B W (column-major): contact rows mix their two rows of W */
static void assemble_J(nt_sys *s)
{
    const size_t n = (size_t)s->n;
    for (size_t col = 0; col < n; col++) {
        const double *wc = s->W + n * col;
        double *jc = s->J + n * col;
        for (int k = 0; k < s->m; k++) {
            const double *B = s->B + 4 * k;
            jc[2 * k] = B[0] * wc[2 * k] + B[1] * wc[2 * k + 1];
            jc[2 * k + 1] = B[2] * wc[2 * k] + B[3] * wc[2 * k + 1];
        }
        for (size_t i = 2 * (size_t)s->m; i < n; i++) jc[i] = s->rho[i] * wc[i];
    }
    for (int k = 0; k < s->m; k++) {
        const double *A = s->A + 4 * k;
        const size_t i = 2 * (size_t)k;
        s->J[n * i + i] += A[0];
        s->J[n * (i + 1) + i] += A[1];
        s->J[n * i + i + 1] += A[2];
        s->J[n * (i + 1) + i + 1] += A[3];
    }
}

/* the kernel's state moves by a d: V += kappa Mhat^-1 H^T (a d), p and lambda follow */
static void apply_step(nt_sys *s, double a)
{
    rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        double dp[2] = { a * s->d[2 * k], a * s->d[2 * k + 1] };
        if (dp[0] == 0.0 && dp[1] == 0.0) continue;
        rcm_contact_apply(w, c, w->V, dp);
        c->p[0] += dp[0];
        c->p[1] += dp[1];
    }
    int r = 2 * s->m;
    for (int i = 0; i < w->njoints; i++) {
        rc_joint *j = &w->joints[i];
        double dl[3] = { 0.0, 0.0, 0.0 };
        for (int q = 0; q < j->rows; q++) { dl[q] = a * s->d[r + q]; j->lambda[q] += dl[q]; }
        rcm_joint_apply(w, j, &j->MHa[0][0], &j->MHb[0][0], w->V, 0, dl);
        r += j->rows;
    }
}

/* ---------------------------------------------------------------- iteration */

/* the dense direction: J d = -Phi by LU (dgesv) */
static rc_status dense_direction(nt_sys *s, double delta, const char **why)
{
    const int n = s->n;
    assemble_J(s);
    for (int i = 0; i < n; i++) s->J[(size_t)n * (size_t)i + (size_t)i] += delta;
    for (int i = 0; i < n; i++) s->d[i] = -s->phi[i];
    int singular = 0;
    RC_CHECK(rcl_lu_solve(n, s->J, s->ipiv, s->d, &singular));
    if (singular) *why = "singular Newton matrix";
    return RC_OK;
}

/* the iterative direction: |J d + Phi| <= eta |Phi|, the forcing term
 * eta = min(0.1, sqrt(|Phi| / |Phi_0|)) (|Phi_0|: the solve's first
 * iteration), at least 1e-10: superlinear convergence (Eisenstat & Walker
 * 1996's choice 2 in spirit) at the cost of loose solves far from it */
static rc_status iterative_direction(nt_sys *s, double th, double delta, double *descent, const char **why)
{
    const double nphi = sqrt(2.0 * th);
    if (s->phi0 <= 0.0) s->phi0 = nphi;
    const double eta = fmax(1e-10, fmin(0.1, sqrt(nphi / s->phi0)));
    RC_CHECK(rcn_newton_krylov_solve(s, delta, eta, why));
    s->lin_total += s->lin_its;
    *descent = 1.0 - s->lin_rel;   /* Phi . J d <= -(1 - rel) |Phi|^2 */
    return RC_OK;
}

/* One Newton iteration from the state: the direction, the line search, the
 * step. *why: NULL, or why Newton cannot go on (then nothing moved). */
static rc_status newton_step(nt_sys *s, const char **why)
{
    const int n = s->n;
    *why = NULL;
    read_state(s);
    RC_CHECK(eval_phi(s, s->x, s->u, s->phi, 1));
    const double th = half_sq(s->phi, n);
    for (;;) {
        /* redundant contacts (a box on a box, a disk pile: more sticking rows
         * than degrees of freedom) make J = A + B W singular: a shift delta I,
         * shrinking with |Phi| (the rows are scaled to O(1) on the diagonal),
         * keeps the direction defined and the local convergence superlinear.
         * Its cap: RCN_NEWTON_DELTA (newton_impl.h, 1e-11), and the sparse
         * path's RCN_NEWTON_DELTA_PILE (1e-3), which keeps the directions of a
         * hyperstatic pile out of its near-null modes; on a stalled line
         * search the solve goes on with 1e-3 */
        const double delta = fmin(s->delta_cap, sqrt(2.0 * th));
        double descent = 1.0;
        if (s->iterative) RC_CHECK(iterative_direction(s, th, delta, &descent, why));
        else if (s->sparse) RC_CHECK(rcn_newton_sparse_direction(s, delta, why));
        else RC_CHECK(dense_direction(s, delta, why));
        if (*why) return RC_OK;
        for (int i = 0; i < n; i++)
            if (!rcb_finite(s->d[i])) { *why = "non-finite Newton direction"; return RC_OK; }
        if (s->iterative) rcn_newton_W_apply(s, s->d, s->wd);
        else if (s->sparse) rcn_newton_sparse_matvec(s, s->d, s->wd);
        else rcl_dense_matvec(s->n, s->W, s->d, s->wd);   /* W d, dense */
        const double sigma = 1e-4;
        for (double a = 1.0; a >= 0x1p-30; a *= 0.5) {   /* Armijo on theta = 1/2 |Phi|^2 */
            for (int i = 0; i < n; i++) { s->xt[i] = s->x[i] + a * s->d[i]; s->ut[i] = s->u[i] + a * s->wd[i]; }
            RC_CHECK(eval_phi(s, s->xt, s->ut, s->phit, 0));
            const double tt = half_sq(s->phit, n);
            if (tt <= (1.0 - 2.0 * sigma * a * descent) * th) {
                apply_step(s, a);
                return RC_OK;
            }
        }
        if (s->delta_cap >= RCN_NEWTON_DELTA_PILE) break;
        s->delta_cap = RCN_NEWTON_DELTA_PILE;
    }
    *why = "line search stalled";
    return RC_OK;
}

static double norm_b(const rc_world *w)
{
    double nb = w->contact_b2;   /* sum of |b|^2 over the active contacts (scheme.c) */
    for (int i = 0; i < w->njoints; i++)
        for (int r = 0; r < w->joints[i].rows; r++) nb += w->joints[i].b[r] * w->joints[i].b[r];
    return sqrt(nb);
}

/* NSGS from the current iterate, after Newton gave up (why) */
static rc_status fall_back(const rcn_problem *pb, rcn_report *rep, int newton_its, const char *why)
{
    rc_world *w = pb->w;
    if (w->stats.newton_fallbacks == 0)
        rcm_world_warn(w, "solver \"newton\": %s at t = %.17g (step %ld) after %d iterations, residual %.3e: "
                       "NSGS finishes the solve (later fallbacks are counted in stats.newton_fallbacks)",
                       why, w->t, w->step + 1, newton_its, rep->residual);
    w->stats.newton_fallbacks++;
    rc_solver_def o = *pb->opt;
    o.method = RC_SOLVER_NSGS;
    o.order = RC_ORDER_FIXED;
    o.threads = 1;
    if (o.max_iter < 1000) o.max_iter = 1000;   /* max_iter capped Newton: NSGS gets at least its default */
    const rcn_problem nb = { w, &o, pb->cyclic };
    RC_CHECK(rcn_nsgs_solve(&nb, rep));   /* takes the square roots of c->res */
    rep->iterations += newton_its;
    return RC_OK;
}

/* Newton's iterates are not in the admissible sets (Phi = 0 only in the
 * limit): each is projected onto them (p = proj_C(p), a move of the order of
 * the residual, round-off once the active pieces are found: slide and
 * take-off put p on the boundary by linear equations; V follows) before the
 * residual is taken, so that every reported impulse is in its cone */
static rc_status project_impulses(rc_world *w)
{
    for (int k = 0; k < w->nactive; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        const double zero[2] = { 0.0, 0.0 };
        double q[2];
        RC_CHECK(rcn_law_prox(w, c, c->p, zero, 0.0, q));
        const double dp[2] = { q[0] - c->p[0], q[1] - c->p[1] };
        if (dp[0] == 0.0 && dp[1] == 0.0) continue;
        rcm_contact_apply(w, c, w->V, dp);
        c->p[0] = q[0];
        c->p[1] = q[1];
    }
    return RC_OK;
}

static int has_x_rows(const rc_world *w)
{
    for (int i = 0; i < w->njoints; i++)
        if (rcm_joint_has_x(&w->joints[i])) return 1;
    return 0;
}

rc_status rcn_newton_solve(const rcn_problem *pb, rcn_report *rep)
{
    rc_world *w = pb->w;
    const rc_solver_def *opt = pb->opt;
    rcn_nsgs_attach(w);
    rep->parallel = 0;
    nt_sys s = { .w = w, .opt = opt, .m = w->nactive };
    s.n = 2 * s.m + joint_rows(w);
    s.sparse = opt->linear == RC_NEWTON_LINEAR_SPARSE && rcn_newton_sparse_eligible(w);
    s.delta_cap = s.sparse ? RCN_NEWTON_DELTA_PILE : RCN_NEWTON_DELTA;
    s.iterative = opt->linear == RC_NEWTON_LINEAR_ITERATIVE
                  || (opt->linear == RC_NEWTON_LINEAR_AUTO && s.n > RC_NEWTON_DENSE_ROWS)
                  || (opt->linear == RC_NEWTON_LINEAR_SPARSE && !s.sparse);   /* joints, flexible bodies */
    const double nb = norm_b(w);
    int it = 0;
    const char *why = NULL;
    rc_status st = rcn_nsgs_residual(w, nb, &rep->worst, &rep->residual);
    if (st == RC_OK && rep->residual > opt->tol) {
        if (!s.iterative && !s.sparse && s.n > RC_NEWTON_MAX_ROWS) why = "problem above RC_NEWTON_MAX_ROWS rows (linear = \"dense\")";
        else if (has_x_rows(w)) why = "joint motors and limits are not in its equations";
        else {
            st = sys_alloc(&s);
            if (st == RC_OK && s.sparse) st = rcn_newton_sparse_assemble(&s);
            if (st == RC_OK && (s.iterative || s.sparse)) rcn_newton_krylov_scalings(&s);
            else if (st == RC_OK) { assemble_W(&s); scalings(&s); }
        }
    }
    while (st == RC_OK && !why && rep->residual > opt->tol && it < opt->max_iter && !rc_interrupt_requested()) {
        st = newton_step(&s, &why);
        if (st != RC_OK || why) break;
        it++;
        st = project_impulses(w);
        if (st == RC_OK) st = rcn_nsgs_residual(w, nb, &rep->worst, &rep->residual);
    }
    if (s.sparse) rcn_newton_sparse_free(&s);
    if (st == RC_OK && !why && rep->residual > opt->tol && it >= opt->max_iter) why = "max_iter reached";
    rep->local_solves = (long)it * w->nactive;
    if (st == RC_OK && why && opt->fallback && !rc_interrupt_requested()) {
        st = fall_back(pb, rep, it, why);
        rep->local_solves += (long)it * w->nactive;
        return st;
    }
    for (int k = 0; k < w->nactive; k++) {   /* c->res held squares */
        rc_contact *c = &w->contacts[w->active[k]];
        c->res = sqrt(c->res);
    }
    rep->iterations = it;
    return st;
}
