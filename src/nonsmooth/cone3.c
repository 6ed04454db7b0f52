/* cone3.c -- the spatial Coulomb cone in De Saxce's form (d = 3): the
 * modified velocity, the natural-map residual and the exact one-contact
 * solver (docs/theory/de-saxce-cone.md).
 *
 * Vectors are (N, T1, T2). The Coulomb cone and its dual (Acary &
 * Collins-Craft 2024, eqs. 11 and 16-19):
 *     K = { p : |p_T| <= mu p_N },        K* = { u : mu |u_T| <= u_N },
 * De Saxce's modified velocity  u~ = u + mu |u_T| e_N  (eq. 10), and the law
 *     K  ∋  p  ⊥  u~  ∈  K*     <=>    -u~ in N_K(p)
 *                              <=>    p = proj_K(p - rho u~)   for any rho > 0
 * (De Saxce & Feng 1991). The projection onto K is rcm_fc3d_project
 * (model/model.h: the built-in laws' project needs it).
 *
 * The one-contact problem u = W p + b (W a 3x3 SPD Delassus block) is solved
 * as the planar one (law.c, Lemma 1 of Acary & Collins-Craft 2024, eq. 17):
 * its solutions are take-off (p = 0, b_N >= 0), stick (u = 0, p = -W^-1 b
 * in K) or slide (u_N = 0, u_T = alpha d with alpha > 0, |d| = 1, p on the
 * cone's boundary opposite the slip: p = p_N (1, -mu d)). In 3D the slip
 * direction d = (cos phi, sin phi) is a one-parameter unknown: with
 * D(phi) = W_NN - mu W_NT d > 0, u_N = 0 gives p_N = -b_N / D, and u_T
 * parallel to d is the zero of the trigonometric polynomial of degree 2
 *     h(phi) = D (u_T x d) = -b_N ((W_TN - mu W_TT d) x d) + D (b_T x d)
 * (x: the planar cross product), which has at most four zeros. They are
 * bracketed on a grid of NPHI angles and refined by regula falsi (Illinois) to round-off;
 * a zero is a solution when D > 0 and u_T . d >= 0. This is the enumeration
 * of the planar solver with the slip direction found by root finding (the
 * quartic of the sliding case, e.g. Bonnefon's or Siconos' fc3d "Quartic"
 * local solver, solved here by bracketing instead of a closed-form quartic).
 * When round-off leaves every case marginally outside its test, the
 * candidate with the smallest natural-map residual is kept and refined by
 * the projected fixed point p <- proj_K(p - rho u~(W p + b)) with rho =
 * 1 / lambda_max(W) (De Saxce & Feng's iteration, Moreau 2004 sec. 8),
 * accepted only while the residual decreases.
 *
 * rcn_cone3_local_solve_from (NSGS, nsgs3.c) takes W^-1 for the stick case
 * and the contact's last impulse. Newton's method on h starts from the slip
 * direction opposite the stick impulse's tangential part (exact when W_NT =
 * 0 and W_TT is isotropic, as for spheres: one step) when its first step is
 * below 2^-10 rad, else from whichever of it and the last impulse's slip
 * direction (when that impulse lies on the cone's boundary: the contact slid
 * in the last sweep, as a collapsing wall's blocks do sweep after sweep) has
 * the smaller first step, then from the other, before the grid (where the
 * slide solution is unique, the zero the grid would bracket; the grid runs
 * when Newton does not end at a solution). Steps above 2e-3 rad rotate d by
 * atan(step) (no sin/cos: Newton's step to its order), and a point reached
 * by a step below 1e-6 rad is tried as it is (slide_is_solution's bound, the
 * same acceptance as at convergence). Measured on 400 000 one-contact
 * problems of each workload (docs/benchmarks.md, "3D solver speed"): 73 ->
 * 45 ns per solve on the sphere pile, the same on the rockfall wall's boxes;
 * the two starts, the atan rotation and the early try: 13 % less CPU in
 * the wall's collapse (docs/benchmarks.md, rockfall).
 */
#include "nonsmooth/nonsmooth.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { NPHI = 48, FIXED_POINT_ITERS = 200 };
/* a Newton step of the slide case this small leaves an error ~ its square:
 * the point it reaches is tried as it is (slide_is_solution's bound decides) */
static const double EARLY = 1e-6;

static inline void apply3(const double *W, const double *p, const double *b, double *u)
{
    for (int i = 0; i < 3; i++) u[i] = W[3 * i] * p[0] + W[3 * i + 1] * p[1] + W[3 * i + 2] * p[2] + b[i];
}

void rcn_cone3_xi(const double *u, double mu, double *ut)
{
    ut[0] = u[0] + mu * sqrt(u[1] * u[1] + u[2] * u[2]);
    ut[1] = u[1];
    ut[2] = u[2];
}

void rcn_cone3_natural_map(const double *u, const double *p, double mu, double rho, double *r)
{
    double x[3];
    rcn_cone3_xi(u, mu, x);
    for (int i = 0; i < 3; i++) x[i] = p[i] - rho * x[i];
    rcm_fc3d_project(mu, x);
    for (int i = 0; i < 3; i++) r[i] = p[i] - x[i];
}

/* Gaussian elimination with partial pivoting on [A | R], R of m columns
 * (row-major 3 x m); X = A^-1 R (row-major 3 x m). Each column's
 * operations are those of a solve with that column alone, so one
 * elimination for m right-hand sides gives each one bit for bit. */
static int solve3_cols(const double *A, const double *R, int m, double *X)
{
    double M[3][6];
    double amax = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) { M[i][j] = A[3 * i + j]; amax = fmax(amax, fabs(M[i][j])); }
        for (int j = 0; j < m; j++) M[i][3 + j] = R[m * i + j];
    }
    if (!(amax > 0.0)) return 0;
    for (int k = 0; k < 3; k++) {
        int piv = k;
        for (int i = k + 1; i < 3; i++)
            if (fabs(M[i][k]) > fabs(M[piv][k])) piv = i;
        if (!(fabs(M[piv][k]) > 1e-14 * amax)) return 0;
        if (piv != k)
            for (int j = 0; j < 3 + m; j++) { double t = M[k][j]; M[k][j] = M[piv][j]; M[piv][j] = t; }
        for (int i = k + 1; i < 3; i++) {
            const double f = M[i][k] / M[k][k];
            for (int j = k; j < 3 + m; j++) M[i][j] -= f * M[k][j];
        }
    }
    for (int c = 0; c < m; c++)
        for (int i = 2; i >= 0; i--) {
            double s = M[i][3 + c];
            for (int j = i + 1; j < 3; j++) s -= M[i][j] * X[m * j + c];
            X[m * i + c] = s / M[i][i];
        }
    return 1;
}

int rcn_solve3(const double *A, const double *r, double *x)
{
    return solve3_cols(A, r, 1, x);
}

int rcn_inverse3(const double *A, double *Ainv)
{
    static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    return solve3_cols(A, I, 3, Ainv);
}

double rcn_sym3_lmax(const double *W)
{
    /* the largest eigenvalue of the symmetric part of W (Smith 1961) */
    const double a = W[0], b = W[4], c = W[8];
    const double d = 0.5 * (W[1] + W[3]), e = 0.5 * (W[5] + W[7]), f = 0.5 * (W[2] + W[6]);
    const double p1 = d * d + e * e + f * f, q = (a + b + c) / 3.0;
    const double p2 = (a - q) * (a - q) + (b - q) * (b - q) + (c - q) * (c - q) + 2.0 * p1;
    if (!(p2 > 0.0)) return q;
    const double p = sqrt(p2 / 6.0);
    const double B00 = (a - q) / p, B11 = (b - q) / p, B22 = (c - q) / p, B01 = d / p, B12 = e / p, B02 = f / p;
    double r = 0.5 * (B00 * (B11 * B22 - B12 * B12) - B01 * (B01 * B22 - B12 * B02) + B02 * (B01 * B12 - B11 * B02));
    r = r < -1.0 ? -1.0 : r > 1.0 ? 1.0 : r;
    return q + 2.0 * p * cos(acos(r) / 3.0);
}

/* ---------------------------------------------------------------- the one-contact solve */

typedef struct cone3_problem {
    const double *W, *b;
    double mu;
    double best_res, best[3];
    int best_case;
    double exact;   /* a residual (squared) at or below this is a solution: stop the search */
} cone3_problem;

/* Keep p as the answer if its natural-map residual is the smallest so far. */
static void candidate(cone3_problem *cp, const double *p, int which)
{
    double u[3];
    apply3(cp->W, p, cp->b, u);
    const double r = rcn_cone3_residual2(u, p, cp->mu);
    if (r < cp->best_res) {
        cp->best_res = r;
        for (int i = 0; i < 3; i++) cp->best[i] = p[i];
        cp->best_case = which;
    }
}

/* h(phi) of the slide case (see the header) at d = (c, s) = (cos phi,
 * sin phi), with D(phi) in *D. */
static inline double slide_hcs(const cone3_problem *cp, double c, double s, double *D)
{
    const double *W = cp->W, *b = cp->b, mu = cp->mu;
    *D = W[0] - mu * (W[1] * c + W[2] * s);
    const double x1 = W[3] - mu * (W[4] * c + W[5] * s);   /* W_TN - mu W_TT d */
    const double x2 = W[6] - mu * (W[7] * c + W[8] * s);
    return -b[0] * (x1 * s - x2 * c) + *D * (b[1] * s - b[2] * c);
}

static double slide_h(const cone3_problem *cp, double phi, double *D)
{
    return slide_hcs(cp, cos(phi), sin(phi), D);
}

/* The slide candidate of the zero of h in [lo, hi] (h(lo) h(hi) <= 0), if
 * D > 0 there; kept by its residual (it is a solution when moreover
 * p_N >= 0 and u_T . d >= 0, and then its residual is round-off). The zero
 * by the Illinois variant of regula falsi (superlinear: about 8 evaluations
 * of h to round-off where bisection took about 50 sin/cos pairs), a step
 * that leaves the bracket replaced by its midpoint; stopped when the
 * estimate moves by less than 1e-15 rad or h vanishes. */
static void slide_root(cone3_problem *cp, double lo, double hi, double hlo, double hhi)
{
    double D, phi = hlo == 0.0 ? lo : hi;
    if (hlo != 0.0 && hhi != 0.0) {
        int side = 0;
        double prev = lo;
        for (int it = 0; it < 100; it++) {
            double x = (lo * hhi - hi * hlo) / (hhi - hlo);
            if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
            if (!(x > lo && x < hi)) { phi = x; break; }   /* the bracket is two adjacent doubles */
            const double hx = slide_h(cp, x, &D);
            phi = x;
            if (hx == 0.0 || fabs(x - prev) <= 1e-15) break;
            prev = x;
            if ((hx < 0.0) == (hhi < 0.0)) {
                hi = x; hhi = hx;
                if (side == -1) hlo *= 0.5;
                side = -1;
            } else {
                lo = x; hlo = hx;
                if (side == 1) hhi *= 0.5;
                side = 1;
            }
        }
    }
    (void)slide_h(cp, phi, &D);
    if (!(D > 0.0)) return;
    const double pn = -cp->b[0] / D;
    const double p[3] = { pn, -cp->mu * pn * cos(phi), -cp->mu * pn * sin(phi) };
    candidate(cp, p, 2);
}

/* h on a grid of NPHI angles (d by rotation: one sin/cos pair), then each
 * sign change's zero */
static void slide_cases(cone3_problem *cp)
{
    const double step = 2.0 * M_PI / NPHI, cstep = cos(step), sstep = sin(step);
    double D, c = 1.0, s = 0.0, h0 = slide_hcs(cp, 1.0, 0.0, &D), hprev = h0;
    for (int k = 1; k <= NPHI; k++) {
        const double phi = k == NPHI ? 2.0 * M_PI : k * step;
        double hk = h0;
        if (k < NPHI) {
            const double c2 = c * cstep - s * sstep;
            s = s * cstep + c * sstep;
            c = c2;
            hk = slide_hcs(cp, c, s, &D);
        }
        if ((hprev <= 0.0 && hk >= 0.0) || (hprev >= 0.0 && hk <= 0.0)) {
            slide_root(cp, (k - 1) * step, phi, hprev, hk);
            if (cp->best_res <= cp->exact) return;   /* a slide solution: the others' grid is not needed */
        }
        hprev = hk;
    }
}

/* Last resort: the projected fixed point from the best candidate, kept while
 * its residual decreases. */
static void fixed_point(cone3_problem *cp)
{
    const double lmax = rcn_sym3_lmax(cp->W);
    if (!(lmax > 0.0)) return;
    const double rho = 1.0 / lmax;
    double p[3] = { cp->best[0], cp->best[1], cp->best[2] };
    for (int it = 0; it < FIXED_POINT_ITERS && cp->best_res > 0.0; it++) {
        double u[3], r[3];
        apply3(cp->W, p, cp->b, u);
        rcn_cone3_natural_map(u, p, cp->mu, rho, r);
        for (int i = 0; i < 3; i++) p[i] -= r[i];
        const double before = cp->best_res;
        candidate(cp, p, cp->best_case);
        if (!(cp->best_res < before)) break;
    }
}

/* Whether the slide candidate p = p_N (1, -mu d), d = (c, s), p_N > 0, is
 * a solution by a bound on its natural-map residual that needs no square
 * root: with u = W p + b, alpha = u_T . d, beta = u_T x d, the velocity
 * u~* = alpha+ (mu, d) (alpha+ = max(alpha, 0)) has -u~* in the normal
 * cone of K at p, so p = proj_K(p - u~*) and, proj_K being 1-Lipschitz,
 *     |p - proj_K(p - u~)| <= |u~ - u~*|
 *                          <= |u_N| + (1 + mu) (|beta| + alpha-),
 * plus 2 mu p_N |c^2 + s^2 - 1| for d's round-off off the unit circle. A
 * bound within candidate's test (squared <= exact) keeps p as the answer
 * (its residual is then below the threshold too: the same answer as
 * candidate's, without its square roots); else candidate decides. */
static int slide_is_solution(cone3_problem *cp, const double *p, double c, double s)
{
    double u[3];
    apply3(cp->W, p, cp->b, u);
    const double al = u[1] * c + u[2] * s, be = u[2] * c - u[1] * s, mu = cp->mu;
    const double bnd = fabs(u[0]) + (1.0 + mu) * (fabs(be) + (al < 0.0 ? -al : 0.0))
                     + 2.0 * mu * p[0] * fabs(c * c + s * s - 1.0);
    if (!(bnd * bnd <= cp->exact)) return 0;
    cp->best_res = bnd * bnd;
    for (int i = 0; i < 3; i++) cp->best[i] = p[i];
    cp->best_case = 2;
    return 1;
}

/* sin and cos of a small angle x (|x| <= 2e-3: the series' next terms are
 * below 1e-19, under round-off) or by the library */
static inline void small_sincos(double x, double *s, double *c)
{
    if (fabs(x) < 1e-8) {   /* the series below gives x and 1 exactly here (x^2/2 < 2^-54): no divisions */
        *s = x;
        *c = 1.0;
    } else if (fabs(x) <= 2e-3) {
        const double x2 = x * x;
        *s = x * (1.0 - x2 / 6.0 * (1.0 - x2 / 20.0));
        *c = 1.0 - 0.5 * x2 * (1.0 - x2 / 12.0);
    } else {
        *s = sin(x);
        *c = cos(x);
    }
}

/* p = p_N (1, -mu d) of the slide case at d = (c, s), p_N = -b_N / D;
 * 0 (p not set) when D <= 0 */
static inline int slide_point(const cone3_problem *cp, double c, double s, double *p)
{
    double D;
    (void)slide_hcs(cp, c, s, &D);
    if (!(D > 0.0)) return 0;
    p[0] = -cp->b[0] / D;
    p[1] = -cp->mu * p[0] * c;
    p[2] = -cp->mu * p[0] * s;
    return 1;
}

/* Newton's step -h / h' of the slide case at d = (c, s), D(phi) in *D;
 * NaN where it is not defined (D <= 0 or h' = 0) */
static inline double newton_step(const cone3_problem *cp, double c, double s, double *D)
{
    const double *W = cp->W, *b = cp->b, mu = cp->mu;
    const double h = slide_hcs(cp, c, s, D);
    /* h'(phi): d' = (-s, c) */
    const double x1 = W[3] - mu * (W[4] * c + W[5] * s), x2 = W[6] - mu * (W[7] * c + W[8] * s);
    const double D1 = -mu * (W[2] * c - W[1] * s), x11 = -mu * (W[5] * c - W[4] * s), x21 = -mu * (W[8] * c - W[7] * s);
    const double h1 = -b[0] * (x11 * s + x1 * c - x21 * c + x2 * s) + D1 * (b[1] * s - b[2] * c) + *D * (b[1] * c + b[2] * s);
    if (!(*D > 0.0) || !(h1 != 0.0)) return NAN;
    return -h / h1;
}

/* The warm start of the slide case: Newton's method on h from the slip
 * direction d0 = (c, s) of a start (slide_from_starts), d kept a unit vector by rotation
 * (no sin/cos: a series or atan, see there; d0 is unit to round-off and one
 * small rotation keeps it so: renormalised only after two or more). The zero is taken only when it is
 * a solution (D > 0 and a round-off residual: candidate's test); else the
 * grid search runs as without a guess. At most 8 steps. Returns 1 when a
 * solution was found (in cp->best). dphi0: the first step at d0 when the
 * caller computed it (newton_step), NaN if not. */
static int slide_newton(cone3_problem *cp, double c, double s, double dphi0)
{
    for (int it = 0; it < 8; it++) {
        double D;
        double dphi = it == 0 && dphi0 == dphi0 ? dphi0 : newton_step(cp, c, s, &D);   /* the first step given */
        if (!(fabs(dphi) < 0.5)) return 0;   /* far from the guess (or undefined): the grid finds the zero */
        double sd, cd;
        if (fabs(dphi) <= 2e-3) small_sincos(dphi, &sd, &cd);
        else {   /* a rotation by atan(dphi) = dphi - dphi^3/3 + ...: Newton's step to its
                  * order (the next step's error stays quadratic), no sin/cos */
            cd = 1.0 / sqrt(1.0 + dphi * dphi);
            sd = dphi * cd;
        }
        const double c2 = c * cd - s * sd;
        s = s * cd + c * sd;
        c = c2;
        double p[3];
        if (fabs(dphi) <= EARLY && fabs(dphi) > 1e-10   /* the next step would be ~dphi^2: try it as is */
            && slide_point(cp, c, s, p) && slide_is_solution(cp, p, c, s)) return 1;
        if (fabs(dphi) <= 1e-10) {   /* quadratic: the step just taken leaves ~1e-20 */
            if (it > 0) {   /* back to |d| = 1 after the rotations */
                const double r = 1.0 / sqrt(c * c + s * s);
                c *= r; s *= r;
            }
            if (!slide_point(cp, c, s, p)) return 0;
            if (slide_is_solution(cp, p, c, s)) return 1;
            candidate(cp, p, 2);
            return cp->best_res <= cp->exact;
        }
    }
    return 0;
}

/* The slide case by Newton from two starts: the slip direction opposite the
 * stick impulse's tangential part ps (pst = |ps_T| > 0), exact for spheres
 * (W_NT = 0, W_TT isotropic), and that of the guess g (the contact's last
 * impulse) when g slid (|g_T| > mu g_N / 2), the direction of the last
 * sweep. The stick start is taken when its first Newton step is below
 * NEAR, else the start whose first step is the smaller, then the other if
 * it does not end at a solution. Returns 1 when a solution is in cp->best. */
static const double NEAR = 0x1p-10;   /* rad */
static int slide_from_starts(cone3_problem *cp, const double *ps, double pst, const double *g)
{
    double d[2][2], step[2], D;
    int n = 0;
    if (pst > 0.0) {
        d[n][0] = -ps[1] / pst; d[n][1] = -ps[2] / pst;
        step[n] = newton_step(cp, d[n][0], d[n][1], &D);
        n++;
    }
    const double gt = g ? sqrt(g[1] * g[1] + g[2] * g[2]) : 0.0;
    if (g && g[0] > 0.0 && gt > 0.5 * cp->mu * g[0] && !(n == 1 && fabs(step[0]) <= NEAR)) {
        d[n][0] = -g[1] / gt; d[n][1] = -g[2] / gt;
        step[n] = newton_step(cp, d[n][0], d[n][1], &D);
        n++;
    }
    const int first = n == 2 && (fabs(step[1]) < fabs(step[0]) || (step[0] != step[0] && step[1] == step[1]));
    for (int k = 0; k < n; k++) {
        const int j = (first + k) % n;
        if (slide_newton(cp, d[j][0], d[j][1], step[j])) return 1;
    }
    return 0;
}

int rcn_cone3_local_solve(const double *W, const double *b, double mu, double *p)
{
    return rcn_cone3_local_solve_from(W, NULL, b, mu, NULL, p);
}

int rcn_cone3_local_solve_from(const double *W, const double *Winv, const double *b, double mu, const double *guess,
                               double *p)
{
    /* 1. take-off: p = 0 is a solution iff b_N >= 0 (then b~ in K*) */
    if (b[0] >= 0.0) { p[0] = p[1] = p[2] = 0.0; return 0; }
    /* 2. stick: u = 0, p = -W^-1 b, a solution if p in K */
    double ps[3], nb[3] = { -b[0], -b[1], -b[2] };
    int have_stick = 0;
    if (mu > 0.0) {
        if (Winv) {
            for (int i = 0; i < 3; i++) ps[i] = Winv[3 * i] * nb[0] + Winv[3 * i + 1] * nb[1] + Winv[3 * i + 2] * nb[2];
            have_stick = 1;
        } else {
            have_stick = rcn_solve3(W, nb, ps);
        }
    }
    const double pst = have_stick ? sqrt(ps[1] * ps[1] + ps[2] * ps[2]) : 0.0;
    if (have_stick && ps[0] >= 0.0 && pst <= mu * ps[0]) {
        p[0] = ps[0]; p[1] = ps[1]; p[2] = ps[2];
        return 1;
    }
    return rcn_cone3_after_stick(W, b, mu, guess, have_stick, ps, pst, p);
}

int rcn_cone3_after_stick(const double *W, const double *b, double mu, const double *guess, int have_stick, double *ps,
                          double pst, double *p)
{
    const double scale = 1.0 + fabs(b[0]) + fabs(b[1]) + fabs(b[2]);
    cone3_problem cp = { .W = W, .b = b, .mu = mu, .best_res = INFINITY, .best = { 0.0, 0.0, 0.0 }, .best_case = 0,
                         .exact = 1e-26 * scale * scale };
    /* 3. slide: without friction, u_N = 0 with p_T = 0 */
    if (mu == 0.0) {
        if (W[0] > 0.0) { p[0] = -b[0] / W[0]; p[1] = p[2] = 0.0; return 2; }
    } else if (slide_from_starts(&cp, ps, have_stick ? pst : 0.0, guess)) {
        p[0] = cp.best[0]; p[1] = cp.best[1]; p[2] = cp.best[2];
        return 2;
    }
    /* the take-off and the projected stick impulses as candidates (kept when
     * round-off leaves no case exactly valid) */
    const double zero[3] = { 0.0, 0.0, 0.0 };
    candidate(&cp, zero, 0);
    if (have_stick) {
        rcm_fc3d_project(mu, ps);
        candidate(&cp, ps, 1);
    }
    if (mu > 0.0) slide_cases(&cp);
    /* the valid candidates and, if round-off left none exactly valid, the
     * best one: refined while the fixed point lowers its residual */
    if (cp.best_res > cp.exact) fixed_point(&cp);
    p[0] = cp.best[0]; p[1] = cp.best[1]; p[2] = cp.best[2];
    return cp.best_case;
}
