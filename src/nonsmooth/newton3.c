/* newton3.c -- the semismooth Newton method on the one-step problem of a
 * dim = 3 world (solver = { "newton" } under moreau-jean and
 * moreau-jean-fremond; integrate/contacts3.c calls it in NSGS3's place):
 * every active 3D contact (3 rows N, T1, T2; 4 with the drilling row of a
 * Coulomb--Contensou law) and every 3D joint's equality rows at once, on the
 * Alart--Curnier equations (newton3_phi.c), the 3D twin of newton.c
 * (docs/theory/newton-solver.md, "Spatial contacts").
 *
 * Unknowns x = (p_1 .. p_m, lambda), the local velocities affine in x,
 * u = u_0 + W (x - x_0), W = H kappa Mhat^-1 H^T (not symmetric in 3D: the
 * step's rotational iteration matrix), its columns from the kernel's own
 * 3D products (rcn_contact3_apply, rcn_drill_apply, rcn_joint3_apply of a
 * unit impulse into a scratch velocity, then every row's H v). The Newton
 * matrix J = A + B W + delta I (A = dPhi/dp, B = dPhi/du block diagonal,
 * delta = min(1e-11, |Phi|): redundant contacts), solved by LAPACK's dgesv
 * up to RC_NEWTON_DENSE_ROWS rows (linear = "auto") or matrix-free by GMRES
 * with the block-Jacobi preconditioner (newton3_krylov.c). Armijo
 * backtracking on theta = 1/2 |Phi|^2 (sigma = 1e-4, a halved down to
 * 2^-30); after each step the impulses are projected onto their cones (V
 * follows) and the stopping test is NSGS3's (rcn_nsgs3_residual: the
 * natural-map residual of De Saxce's form relative to 1 + |b|, the same
 * tol and max_iter counted in Newton iterations). When Newton fails
 * (singular matrix, stalled GMRES or line search, max_iter, above
 * RC_NEWTON_MAX_ROWS rows with linear = "dense", a law without a closed
 * form) NSGS3 finishes the solve from the last iterate with
 * max(max_iter, 1000) sweeps (solver.fallback, the default), counted in
 * stats.newton_fallbacks and warned the first time, as the planar solver.
 */
#include "nonsmooth/newton3_impl.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

static rc_status take(rc_world *w, double **p, long long count)
{
    return rcb_arena_array(&w->work, (void **)p, count > 0 ? count : 1, sizeof(double), "Newton solver (3D)");
}

static int drilling(const rc_world *w, int i) { return w->c3->ndrill && w->c3->d[i].on; }

/* the active contacts, their rows; the arrays of the path chosen */
static rc_status sys_setup(n3_sys *s)
{
    rc_world *w = s->w;
    const rcm_c3 *c3 = w->c3;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&s->ci, c3->nactive > 0 ? c3->nactive : 1, sizeof(int), "Newton solver (3D)"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&s->off, c3->nactive + 1LL, sizeof(int), "Newton solver (3D)"));
    s->m = 0;
    s->off[0] = 0;
    for (int i = 0; i < c3->n; i++) {
        if (!c3->c[i].active) continue;
        s->ci[s->m] = i;
        s->off[s->m + 1] = s->off[s->m] + (drilling(w, i) ? 4 : 3);
        s->m++;
    }
    s->n = s->off[s->m];
    for (int i = 0; i < rcn_joints3_count(w); i++) s->n += w->j3->j[i].rows;
    return RC_OK;
}

static rc_status sys_alloc(n3_sys *s)
{
    rc_world *w = s->w;
    const long long n = s->n;
    if (s->iterative) RC_CHECK(rcn_newton3_krylov_alloc(s));
    else {
        RC_CHECK(take(w, &s->W, n * n));
        RC_CHECK(take(w, &s->J, n * n));
        RC_CHECK(rcb_arena_array(&w->work, (void **)&s->ipiv, n > 0 ? n : 1, sizeof(int), "Newton solver (3D)"));
    }
    double **vec[] = { &s->x, &s->u, &s->phi, &s->d, &s->wd, &s->xt, &s->ut, &s->phit, &s->rho };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) RC_CHECK(take(w, vec[i], n));
    RC_CHECK(take(w, &s->A, (long long)RCN3_BLOCK * s->m));
    RC_CHECK(take(w, &s->B, (long long)RCN3_BLOCK * s->m));
    RC_CHECK(take(w, &s->PV, w->nv));
    return take(w, &s->S, w->nv);
}

/* ---------------------------------------------------------------- the rows */

/* H v of contact c's three rows (no shift) */
static void contact_dot(const rc_world *w, const rcm_contact3 *c, const double *v, double *u)
{
    const double *dirs[3] = { c->n, c->t1, c->t2 }, *vb = v + w->bodies[c->body_b].iv;
    const double *va = c->body_a >= 0 ? v + w->bodies[c->body_a].iv : NULL;
    for (int k = 0; k < 3; k++) {
        const double *d = dirs[k];
        double t = d[0] * vb[0] + d[1] * vb[1] + d[2] * vb[2] + c->Rb[k][0] * vb[3] + c->Rb[k][1] * vb[4] + c->Rb[k][2] * vb[5];
        if (va) t += -d[0] * va[0] - d[1] * va[1] - d[2] * va[2] + c->Ra[k][0] * va[3] + c->Ra[k][1] * va[4] + c->Ra[k][2] * va[5];
        u[k] = t;
    }
}

void rcn_newton3_rows_dot(const n3_sys *s, const double *v, double *col)
{
    const rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const rcm_contact3 *c = &w->c3->c[s->ci[k]];
        double *u = col + s->off[k];
        contact_dot(w, c, v, u);
        if (n3_rows(s, k) == 4) {   /* the drilling row: angular parts only */
            const rcm_drill3 *d = &w->c3->d[s->ci[k]];
            const double *vb = v + w->bodies[c->body_b].iv;
            double t = d->hb[3] * vb[3] + d->hb[4] * vb[4] + d->hb[5] * vb[5];
            if (c->body_a >= 0) {
                const double *va = v + w->bodies[c->body_a].iv;
                t += d->ha[3] * va[3] + d->ha[4] * va[4] + d->ha[5] * va[5];
            }
            u[3] = t;
        }
    }
    int r = s->off[s->m];
    for (int i = 0; i < rcn_joints3_count(w); i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        const double *vb = v + w->bodies[j->body_b].iv, *va = j->body_a >= 0 ? v + w->bodies[j->body_a].iv : NULL;
        for (int q = 0; q < j->rows; q++) {
            double t = 0.0;
            for (int c = 0; c < 6; c++) t += j->Hb[q][c] * vb[c];
            if (va)
                for (int c = 0; c < 6; c++) t += j->Ha[q][c] * va[c];
            col[r++] = t;
        }
    }
}

void rcn_newton3_apply_all(const n3_sys *s, double *v, const double *x)
{
    const rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const int i = s->off[k], nr = n3_rows(s, k);
        const double *xk = x + i;
        if (xk[0] == 0.0 && xk[1] == 0.0 && xk[2] == 0.0 && (nr == 3 || xk[3] == 0.0)) continue;
        const rcm_contact3 *c = &w->c3->c[s->ci[k]];
        if (nr == 4) rcn_drill_apply(w, c, &w->c3->d[s->ci[k]], v, xk);
        else rcn_contact3_apply(w, c, v, xk);
    }
    int r = s->off[s->m];
    for (int i = 0; i < rcn_joints3_count(w); i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        rcn_joint3_apply(w, j, v, x + r);
        r += j->rows;
    }
}

/* W column by column: H kappa Mhat^-1 H^T e_c through the scratch velocity */
static void assemble_W(n3_sys *s)
{
    const size_t nv = (size_t)s->w->nv, n = (size_t)s->n;
    double *e = s->xt;   /* a unit impulse (the trial point is free here) */
    memset(e, 0, n * sizeof(double));
    for (size_t col = 0; col < n; col++) {
        e[col] = 1.0;
        memset(s->S, 0, nv * sizeof(double));
        rcn_newton3_apply_all(s, s->S, e);
        rcn_newton3_rows_dot(s, s->S, s->W + n * col);
        e[col] = 0.0;
    }
}

/* x and u = H V + shift from the kernel's state */
static void read_state(n3_sys *s, const double *V)
{
    rc_world *w = s->w;
    rcn_newton3_rows_dot(s, V, s->u);
    for (int k = 0; k < s->m; k++) {
        const rcm_contact3 *c = &w->c3->c[s->ci[k]];
        const int i = s->off[k];
        for (int r = 0; r < 3; r++) { s->x[i + r] = c->p[r]; s->u[i + r] += c->shift[r]; }
        if (n3_rows(s, k) == 4) {
            s->x[i + 3] = w->c3->d[s->ci[k]].p;
            s->u[i + 3] += w->c3->d[s->ci[k]].shift;
        }
    }
    int r = s->off[s->m];
    for (int i = 0; i < rcn_joints3_count(w); i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        for (int q = 0; q < j->rows; q++) s->x[r++] = j->lambda[q];
    }
}

/* ---------------------------------------------------------------- the dense path */

/* J = A + B W (column-major): a contact's rows mix its rows of W */
static void assemble_J(n3_sys *s, double delta)
{
    const size_t n = (size_t)s->n;
    for (size_t col = 0; col < n; col++) {
        const double *wc = s->W + n * col;
        double *jc = s->J + n * col;
        for (int k = 0; k < s->m; k++) {
            const int i0 = s->off[k], nr = n3_rows(s, k);
            const double *B = s->B + RCN3_BLOCK * k;
            for (int r = 0; r < nr; r++) {
                double t = 0.0;
                for (int q = 0; q < nr; q++) t += B[r * nr + q] * wc[i0 + q];
                jc[i0 + r] = t;
            }
        }
        for (size_t i = (size_t)s->off[s->m]; i < n; i++) jc[i] = s->rho[i] * wc[i];
        jc[col] += delta;
    }
    for (int k = 0; k < s->m; k++) {
        const size_t i0 = (size_t)s->off[k];
        const int nr = n3_rows(s, k);
        const double *A = s->A + RCN3_BLOCK * k;
        for (int r = 0; r < nr; r++)
            for (int q = 0; q < nr; q++) s->J[n * (i0 + (size_t)q) + i0 + (size_t)r] += A[r * nr + q];
    }
}

/* ---------------------------------------------------------------- the iteration */

/* the kernel's state moves by a d: V += kappa Mhat^-1 H^T (a d), p and lambda follow */
static void apply_step(n3_sys *s, double *V, double a)
{
    rc_world *w = s->w;
    for (int i = 0; i < s->n; i++) s->xt[i] = a * s->d[i];
    rcn_newton3_apply_all(s, V, s->xt);
    for (int k = 0; k < s->m; k++) {
        rcm_contact3 *c = &w->c3->c[s->ci[k]];
        const int i = s->off[k];
        for (int r = 0; r < 3; r++) c->p[r] += s->xt[i + r];
        if (n3_rows(s, k) == 4) w->c3->d[s->ci[k]].p += s->xt[i + 3];
    }
    int r = s->off[s->m];
    for (int i = 0; i < rcn_joints3_count(w); i++) {
        rcm_joint3 *j = &w->j3->j[i];
        for (int q = 0; q < j->rows; q++) j->lambda[q] += s->xt[r++];
    }
}

/* Newton's iterates are in the cones only in the limit: each is projected
 * onto them (a move of the order of the residual, round-off once the active
 * pieces are found), V follows, so that every reported impulse is in its cone */
static void project_impulses(n3_sys *s, double *V)
{
    rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        rcm_contact3 *c = &w->c3->c[s->ci[k]];
        const double mu = w->laws[c->law].def.mu;
        if (n3_rows(s, k) == 4) {
            rcm_drill3 *d = &w->c3->d[s->ci[k]];
            double q[4] = { c->p[0], c->p[1], c->p[2], d->p };
            rcn_disc4_project(mu, q);
            const double dp[4] = { q[0] - c->p[0], q[1] - c->p[1], q[2] - c->p[2], q[3] - d->p };
            if (dp[0] == 0.0 && dp[1] == 0.0 && dp[2] == 0.0 && dp[3] == 0.0) continue;
            rcn_drill_apply(w, c, d, V, dp);
            c->p[0] = q[0]; c->p[1] = q[1]; c->p[2] = q[2]; d->p = q[3];
        } else {
            double q[3] = { c->p[0], c->p[1], c->p[2] };
            rcm_fc3d_project(mu, q);
            const double dp[3] = { q[0] - c->p[0], q[1] - c->p[1], q[2] - c->p[2] };
            if (dp[0] == 0.0 && dp[1] == 0.0 && dp[2] == 0.0) continue;
            rcn_contact3_apply(w, c, V, dp);
            c->p[0] = q[0]; c->p[1] = q[1]; c->p[2] = q[2];
        }
    }
}

/* The stopping test at the projected iterate: the impulses projected onto
 * their cones in a copy of V (PV), NSGS3's residual there. Newton goes on
 * from the iterate itself (a projection after every step would move it off
 * its path: on a pile the merit then crept up between the steps, measured);
 * when the test passes the kernel keeps the projected state. */
static rc_status projected_residual(n3_sys *s, double *V, double bnorm, double *res)
{
    rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {   /* the iterate's impulses, in xt (free between steps) */
        const int i = s->off[k];
        for (int r = 0; r < 3; r++) s->xt[i + r] = w->c3->c[s->ci[k]].p[r];
        if (n3_rows(s, k) == 4) s->xt[i + 3] = w->c3->d[s->ci[k]].p;
    }
    memcpy(s->PV, V, (size_t)w->nv * sizeof(double));
    project_impulses(s, s->PV);
    RC_CHECK(rcn_nsgs3_residual(w, s->PV, res));
    *res /= 1.0 + bnorm;
    if (*res <= s->opt->tol) {
        memcpy(V, s->PV, (size_t)w->nv * sizeof(double));
        return RC_OK;
    }
    for (int k = 0; k < s->m; k++) {   /* back to the iterate */
        const int i = s->off[k];
        for (int r = 0; r < 3; r++) w->c3->c[s->ci[k]].p[r] = s->xt[i + r];
        if (n3_rows(s, k) == 4) w->c3->d[s->ci[k]].p = s->xt[i + 3];
    }
    return RC_OK;
}

static double half_sq(const double *f, int n)
{
    double t = 0.0;
    for (int i = 0; i < n; i++) t += f[i] * f[i];
    return 0.5 * t;
}

/* the direction: dense LU, or GMRES to |J d + Phi| <= eta |Phi| with the
 * forcing term eta = min(0.1, sqrt(|Phi| / |Phi_0|)), at least 1e-10 (as
 * newton.c); *descent: the Armijo factor (1 - the relative linear residual) */
static rc_status direction(n3_sys *s, double th, double delta, double *descent, const char **why)
{
    *descent = 1.0;
    if (s->iterative) {
        const double nphi = sqrt(2.0 * th);
        if (s->phi0 <= 0.0) s->phi0 = nphi;
        /* after a shortened step the inexact direction is suspect: a tight solve */
        const double eta = s->tight ? 1e-8 : fmax(1e-10, fmin(0.1, sqrt(nphi / s->phi0)));
        rcn_newton3_krylov_solve(s, delta, eta, why);
        s->lin_total += s->lin_its;
        *descent = 1.0 - s->lin_rel;
        return RC_OK;
    }
    assemble_J(s, delta);
    for (int i = 0; i < s->n; i++) s->d[i] = -s->phi[i];
    int singular = 0;
    RC_CHECK(rcl_lu_solve(s->n, s->J, s->ipiv, s->d, &singular));
    if (singular) *why = "singular Newton matrix";
    return RC_OK;
}

/* One Newton iteration from the state: the direction, the line search, the
 * step. *why: NULL, or why Newton cannot go on (then nothing moved). */
static rc_status newton_step(n3_sys *s, double *V, const char **why)
{
    const int n = s->n;
    *why = NULL;
    read_state(s, V);
    rcn_newton3_phi(s, s->x, s->u, s->phi, 1);
    const double th = half_sq(s->phi, n), delta = fmin(1e-11, sqrt(2.0 * th));
    if (s->nhist == 0 || th < 0.5 * s->best) { s->best = th; s->since_best = 0; }   /* progress: theta halved */
    else if (++s->since_best >= RCN3_STALL) { *why = "no progress (|Phi| not halved in 20 iterations)"; return RC_OK; }
    double descent;
    RC_CHECK(direction(s, th, delta, &descent, why));
    if (*why) return RC_OK;
    for (int i = 0; i < n; i++)
        if (!rcb_finite(s->d[i])) { *why = "non-finite Newton direction"; return RC_OK; }
    if (s->iterative) rcn_newton3_W_apply(s, s->d, s->wd);
    else rcl_dense_matvec(s->n, s->W, s->d, s->wd);   /* W d, dense */
    const double sigma = 1e-4;
    /* non-monotone Armijo on theta = 1/2 |Phi|^2 (Grippo, Lampariello &
     * Lucidi 1986): against the largest theta of the last RCN3_NONMONOTONE
     * iterations (the monotone test stalled on piles at kinks of Phi) */
    s->hist[s->nhist++ % RCN3_NONMONOTONE] = th;
    double ref = th;
    for (int i = 0; i < RCN3_NONMONOTONE && i < s->nhist; i++) ref = fmax(ref, s->hist[i]);
    for (double a = 1.0; a >= 0x1p-30; a *= 0.5) {
        for (int i = 0; i < n; i++) { s->xt[i] = s->x[i] + a * s->d[i]; s->ut[i] = s->u[i] + a * s->wd[i]; }
        rcn_newton3_phi(s, s->xt, s->ut, s->phit, 0);
        if (half_sq(s->phit, n) <= ref - 2.0 * sigma * a * descent * th) {
            s->tight = a < 1.0;
            apply_step(s, V, a);
            return RC_OK;
        }
    }
    *why = "line search stalled";
    return RC_OK;
}

/* NSGS3 from the current iterate, after Newton gave up (why), with at least
 * its default 1000 sweeps */
static rc_status fall_back(rc_world *w, double *V, double bnorm, double *res, int *iters, int newton_its, const char *why)
{
    if (w->stats.newton_fallbacks == 0)
        rcm_world_warn(w, "solver \"newton\" (3D contacts): %s at t = %.17g (step %ld) after %d iterations, residual %.3e: "
                       "NSGS finishes the solve (later fallbacks are counted in stats.newton_fallbacks)",
                       why, w->t, w->step + 1, newton_its, *res);
    w->stats.newton_fallbacks++;
    const int max_iter = w->sim.solver.max_iter;
    if (w->sim.solver.max_iter < 1000) w->sim.solver.max_iter = 1000;   /* rcn_nsgs3 reads w->sim.solver */
    const rc_status st = rcn_nsgs3(w, V, bnorm, res, iters);
    w->sim.solver.max_iter = max_iter;
    *iters += newton_its;
    return st;
}

/* why the equations cannot take this problem, or NULL */
static const char *refused(const n3_sys *s)
{
    const rc_world *w = s->w;
    if (!s->iterative && s->n > RC_NEWTON_MAX_ROWS) return "problem above RC_NEWTON_MAX_ROWS rows (linear = \"dense\")";
    for (int k = 0; k < s->m; k++)
        if (!w->laws[w->c3->c[s->ci[k]].law].closed_form) return "laws without a closed form are not in its 3D equations";
    for (int i = 0; i < rcn_joints3_count(w); i++)   /* (their rates -f'(t) and bounded rows: joint3_block.c, NSGS3's) */
        if (w->j3->j[i].drive || w->j3->j[i].motor) return "driven 3D joints and 3D joint motors are not in its equations yet";
    return NULL;
}

/* linear = "auto": dense up to RC_NEWTON_DENSE_ROWS rows, and up to
 * RCN3_DENSE_HYPER rows when they outnumber the world's degrees of freedom
 * (W is then singular: a stack's redundant contacts, on which GMRES with
 * delta I needed 2.3 iterations a step and 11 times the dense CPU, measured
 * on the 10-box stack of scripts/bench/newton_vs_nsgs3.lua) */
static int dense_auto(const n3_sys *s)
{
    return s->n <= RC_NEWTON_DENSE_ROWS || (s->n > s->w->nv && s->n <= RCN3_DENSE_HYPER);
}

rc_status rcn_newton3(rc_world *w, double *V, double bnorm, double *res, int *iters)
{
    const rc_solver_def *opt = &w->sim.solver;
    n3_sys s = { .w = w, .opt = opt };
    *res = 0.0;
    *iters = 0;
    w->c3->worst1 = 0;
    w->c3->worst_res = 0.0;
    if (w->c3->nactive == 0 && rcn_joints3_count(w) == 0) return RC_OK;
    RC_CHECK(sys_setup(&s));
    s.iterative = opt->linear == RC_NEWTON_LINEAR_ITERATIVE || (opt->linear == RC_NEWTON_LINEAR_AUTO && !dense_auto(&s));
    RC_CHECK(rcn_nsgs3_residual(w, V, res));
    *res /= 1.0 + bnorm;
    int it = 0;
    const char *why = NULL;
    if (*res > opt->tol && !(why = refused(&s))) {
        RC_CHECK(sys_alloc(&s));
        rcn_newton3_scalings(&s);
        if (!s.iterative) assemble_W(&s);
    }
    while (!why && *res > opt->tol && it < opt->max_iter && !rc_interrupt_requested()) {
        RC_CHECK(newton_step(&s, V, &why));
        if (why) break;
        it++;
        RC_CHECK(projected_residual(&s, V, bnorm, res));
        if (!rcb_finite(*res)) return rc_set_error(RC_ERR_NUMERIC, "newton (3D contacts): non-finite residual after %d iterations", it);
    }
    if (*res > opt->tol && it > 0) {   /* stopped short: the projected iterate, as NSGS3 starts from */
        project_impulses(&s, V);
        RC_CHECK(rcn_nsgs3_residual(w, V, res));
        *res /= 1.0 + bnorm;
    }
    if (!why && *res > opt->tol && it >= opt->max_iter) why = "max_iter reached";
    *iters = it;
    if (why && opt->fallback && !rc_interrupt_requested()) return fall_back(w, V, bnorm, res, iters, it, why);
    return RC_OK;
}
