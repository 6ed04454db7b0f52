/* contensou.c -- the Coulomb--Contensou disc law of the 3D contacts whose
 * law has a radius R > 0 (Capobianco, Harsch, Eugster & Leine 2021, eqs.
 * (49) and (157); Leine & Glocker 2003; docs/theory/spatial.md,
 * "Coulomb--Contensou friction").
 *
 * Vectors are (N, T1, T2, D): the contact's three rows and the drilling row
 * u_D = s n.(omega_b - omega_a), s = 3 pi R / 16 (the representative radial
 * velocity of a parabolic pressure over a disc of radius R). The friction
 * impulse p_F = (p_T1, p_T2, p_D) lies in the Euclidean ball of radius
 * mu p_N (eq. 49 in R^3), the drilling torque impulse being s p_D. This is a
 * second-order cone in R^4,
 *     K = { p : |p_F| <= mu p_N },      K* = { u : mu |u_F| <= u_N },
 * and the law is De Saxce's  K ∋ p ⊥ u~ ∈ K*,  u~ = u + mu |u_F| e_N,  as
 * the 3D cone of cone3.c with one more friction component.
 *
 * The one-contact problem u = W p + b (W 4x4, positive definite, not
 * symmetric in general) is solved exactly: take-off (p = 0 iff b_N >= 0),
 * stick (u = 0, p = -W^-1 b in K), or slide. In the slide case u_N = 0 and
 * u_F = -beta p_F with beta >= 0 and |p_F| = mu p_N (p on the cone's
 * boundary opposite the slip), i.e.
 *     (W + beta P) p = -b,   P = diag(0, 1, 1, 1),
 *     f(beta) = |p_F(beta)| - mu p_N(beta) = 0.
 * f(0) > 0 when stick fails (p(0) is the stick impulse, outside K), and
 * f(beta) -> -mu b_N / W_NN ... < 0 as beta -> infinity (p -> (-b_N/W_NN, 0)),
 * so f has a zero on (0, infinity): it is bracketed by growing beta and
 * refined by the Illinois false position to round-off; any zero is a
 * solution (u~ = (mu beta |p_F|, -beta p_F) is on the boundary of K* and
 * orthogonal to p). This replaces the slip-direction search of cone3.c,
 * which in R^4 would be on a sphere, by a search on one scalar. The result
 * is projected onto K (a round-off move) and, should the linear solves fail
 * or round-off leave a residual above 1e-13 (relative), refined by the
 * projected fixed point p <- proj_K(p - rho u~(W p + b)), rho = 1 / the
 * Gershgorin bound of W's symmetric part, kept while it lowers the residual.
 */
#include "nonsmooth/nonsmooth.h"

#include <math.h>

enum { GROW_ITERS = 200, ROOT_ITERS = 200, FIXED_POINT_ITERS = 500 };

static inline double norm3(const double *x) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

void rcn_disc4_project(double mu, double *p)
{
    const double pn = p[0], r = norm3(p + 1);
    if (pn >= 0.0 && r <= mu * pn) return;                                     /* inside K   */
    if (mu * r + pn <= 0.0) { p[0] = p[1] = p[2] = p[3] = 0.0; return; }       /* polar cone */
    const double s = (pn + mu * r) / (1.0 + mu * mu), k = mu * s / r;          /* r > 0 here */
    p[0] = s;
    for (int i = 1; i < 4; i++) p[i] *= k;
}

double rcn_disc4_residual2(const double *u, const double *p, double mu)
{
    double x[4];
    x[0] = p[0] - (u[0] + mu * norm3(u + 1));
    for (int i = 1; i < 4; i++) x[i] = p[i] - u[i];
    rcn_disc4_project(mu, x);
    double r2 = 0.0;
    for (int i = 0; i < 4; i++) r2 += (p[i] - x[i]) * (p[i] - x[i]);
    return r2;
}

/* x = A^-1 r (4x4 row-major, partial pivoting); 0 when A is singular */
static int solve4(const double *A, const double *r, double *x)
{
    double M[4][5], amax = 0.0;
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) { M[i][j] = A[4 * i + j]; amax = fmax(amax, fabs(M[i][j])); }
        M[i][4] = r[i];
    }
    if (!(amax > 0.0)) return 0;
    for (int k = 0; k < 4; k++) {
        int piv = k;
        for (int i = k + 1; i < 4; i++)
            if (fabs(M[i][k]) > fabs(M[piv][k])) piv = i;
        if (!(fabs(M[piv][k]) > 1e-15 * amax)) return 0;
        if (piv != k)
            for (int j = 0; j < 5; j++) { const double t = M[k][j]; M[k][j] = M[piv][j]; M[piv][j] = t; }
        for (int i = k + 1; i < 4; i++) {
            const double f = M[i][k] / M[k][k];
            for (int j = k; j < 5; j++) M[i][j] -= f * M[k][j];
        }
    }
    for (int i = 3; i >= 0; i--) {
        double s = M[i][4];
        for (int j = i + 1; j < 4; j++) s -= M[i][j] * x[j];
        x[i] = s / M[i][i];
    }
    return 1;
}

static inline void apply4(const double *W, const double *p, const double *b, double *u)
{
    for (int i = 0; i < 4; i++)
        u[i] = W[4 * i] * p[0] + W[4 * i + 1] * p[1] + W[4 * i + 2] * p[2] + W[4 * i + 3] * p[3] + b[i];
}

/* p(beta) = -(W + beta P)^-1 b and f(beta) (NAN if singular) */
static double slide_f(const double *W, const double *b, double mu, double beta, double *p)
{
    double A[16], nb[4];
    for (int i = 0; i < 16; i++) A[i] = W[i];
    for (int i = 1; i < 4; i++) A[5 * i] += beta;
    for (int i = 0; i < 4; i++) nb[i] = -b[i];
    if (!solve4(A, nb, p)) return NAN;
    return norm3(p + 1) - mu * p[0];
}

/* the zero of f on (0, infinity); 1 if found (p set) */
static int slide(const double *W, const double *b, double mu, double *p)
{
    double plo[4], phi[4];
    double lo = 0.0, flo = slide_f(W, b, mu, 0.0, plo);
    if (!(flo > 0.0)) return 0;
    double hi = fmax(fmax(fabs(W[5]), fabs(W[10])), fabs(W[15])), fhi = NAN;
    if (!(hi > 0.0)) return 0;
    int it = 0;
    for (; it < GROW_ITERS; it++) {
        fhi = slide_f(W, b, mu, hi, phi);
        if (!(fhi == fhi)) return 0;
        if (fhi <= 0.0) break;
        lo = hi; flo = fhi;
        hi *= 4.0;
    }
    if (!(fhi <= 0.0)) return 0;
    int side = 0;
    for (it = 0; it < ROOT_ITERS && fhi != 0.0; it++) {
        double beta = (lo * fhi - hi * flo) / (fhi - flo);
        if (!(beta > lo && beta < hi)) beta = 0.5 * (lo + hi);
        if (!(beta > lo && beta < hi)) break;                   /* no double between */
        double pb[4];
        const double fb = slide_f(W, b, mu, beta, pb);
        if (!(fb == fb)) return 0;
        if (fb <= 0.0) {
            hi = beta; fhi = fb;
            for (int i = 0; i < 4; i++) phi[i] = pb[i];
            if (side == -1) flo *= 0.5;
            side = -1;
        } else {
            lo = beta; flo = fb;
            if (side == 1) fhi *= 0.5;
            side = 1;
        }
        if (hi - lo <= 1e-16 * hi) break;
    }
    for (int i = 0; i < 4; i++) p[i] = phi[i];
    return 1;
}

/* the projected fixed point from p, kept while the residual decreases */
static void fixed_point(const double *W, const double *b, double mu, double *p)
{
    double g = 0.0;
    for (int i = 0; i < 4; i++) {
        double s = 0.0;
        for (int j = 0; j < 4; j++) s += fabs(0.5 * (W[4 * i + j] + W[4 * j + i]));
        g = fmax(g, s);
    }
    if (!(g > 0.0)) return;
    const double rho = 1.0 / g;
    double u[4], best;
    apply4(W, p, b, u);
    best = rcn_disc4_residual2(u, p, mu);
    for (int it = 0; it < FIXED_POINT_ITERS && best > 0.0; it++) {
        double x[4];
        x[0] = p[0] - rho * (u[0] + mu * norm3(u + 1));
        for (int i = 1; i < 4; i++) x[i] = p[i] - rho * u[i];
        rcn_disc4_project(mu, x);
        double ux[4];
        apply4(W, x, b, ux);
        const double r = rcn_disc4_residual2(ux, x, mu);
        if (!(r < best)) break;
        best = r;
        for (int i = 0; i < 4; i++) { p[i] = x[i]; u[i] = ux[i]; }
    }
}

int rcn_disc4_local_solve(const double *W, const double *b, double mu, double *p)
{
    if (b[0] >= 0.0) { p[0] = p[1] = p[2] = p[3] = 0.0; return 0; }   /* take-off */
    double nb[4] = { -b[0], -b[1], -b[2], -b[3] };
    if (solve4(W, nb, p) && p[0] >= 0.0 && norm3(p + 1) <= mu * p[0]) return 1;   /* stick */
    int which = 2;
    if (mu == 0.0 || !slide(W, b, mu, p)) {
        if (!(W[0] > 0.0)) { p[0] = p[1] = p[2] = p[3] = 0.0; which = 0; }
        else { p[0] = -b[0] / W[0]; p[1] = p[2] = p[3] = 0.0; }
        if (mu == 0.0) return which;
    }
    rcn_disc4_project(mu, p);
    double u[4];
    apply4(W, p, b, u);
    const double scale = 1.0 + fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + fabs(b[3]);
    if (rcn_disc4_residual2(u, p, mu) > 1e-26 * scale * scale) fixed_point(W, b, mu, p);
    return which;
}

/* ---------------------------------------------------------------- a contact's four rows */

void rcn_drill_velocity(const rc_world *w, const rcm_contact3 *c, const rcm_drill3 *d, const double *V, double *u)
{
    rcn_contact3_velocity(w, c, V, u);
    const double *vb = V + w->bodies[c->body_b].iv;
    double s = d->shift;
    for (int j = 3; j < 6; j++) s += d->hb[j] * vb[j];
    if (c->body_a >= 0) {
        const double *va = V + w->bodies[c->body_a].iv;
        for (int j = 3; j < 6; j++) s += d->ha[j] * va[j];
    }
    u[3] = s;
}

void rcn_drill_apply(const rc_world *w, const rcm_contact3 *c, const rcm_drill3 *d, double *V, const double *dp)
{
    rcn_contact3_apply(w, c, V, dp);
    double *vb = V + w->bodies[c->body_b].iv;
    for (int j = 0; j < 6; j++) vb[j] += d->mhb[j] * dp[3];
    if (c->body_a < 0) return;
    double *va = V + w->bodies[c->body_a].iv;
    for (int j = 0; j < 6; j++) va[j] += d->mha[j] * dp[3];
}

double rcn_drill_residual2(const rc_world *w, const rcm_contact3 *c, const rcm_drill3 *d, const double *V)
{
    double u[4];
    const double p[4] = { c->p[0], c->p[1], c->p[2], d->p };
    rcn_drill_velocity(w, c, d, V, u);
    return rcn_disc4_residual2(u, p, w->laws[c->law].def.mu);
}

void rcn_drill_sweep(const rc_world *w, rcm_contact3 *c, rcm_drill3 *d, double *V)
{
    double u[4], b[4], p[4];
    const double p0[4] = { c->p[0], c->p[1], c->p[2], d->p };
    rcn_drill_velocity(w, c, d, V, u);
    for (int r = 0; r < 4; r++) {
        const double *Wr = d->W4 + 4 * r;
        b[r] = u[r] - (Wr[0] * p0[0] + Wr[1] * p0[1] + Wr[2] * p0[2] + Wr[3] * p0[3]);
    }
    rcn_disc4_local_solve(d->W4, b, w->laws[c->law].def.mu, p);
    const double dp[4] = { p[0] - p0[0], p[1] - p0[1], p[2] - p0[2], p[3] - p0[3] };
    if (dp[0] != 0.0 || dp[1] != 0.0 || dp[2] != 0.0 || dp[3] != 0.0) rcn_drill_apply(w, c, d, V, dp);
    c->p[0] = p[0]; c->p[1] = p[1]; c->p[2] = p[2]; d->p = p[3];
}
