/* beam.c -- planar geometrically nonlinear Euler--Bernoulli beams (docs/theory/beam.md).
 *
 * The centreline r(xi) = sum_i N_i(xi) P_i, xi in [0, 1], is a B-spline of
 * degree p over nel equal elements with an open knot vector (Harsch & Eugster
 * 2020, the discretisation Capobianco et al. 2021 use in section 10.5). The
 * coordinates are the control points q = (P_0x, P_0y, P_1x, ...), n = 2 (nel + p);
 * the undeformed straight beam from a to b has them at the Greville abscissae,
 * so that r(xi) = a + xi (b - a) exactly (J0 = |r0'| = L).
 *
 * Strains (Eugster & Harsch 2020, planar Euler--Bernoulli): the stretch
 * lambda = |r'| / J0 and the curvature kappa = (r' x r'') / (|r'|^2 J0) (the
 * derivative of the centreline's angle by the reference arc length); the
 * strain energy
 *     E_el = int_0^1 [ EA/2 (lambda - 1)^2 + EI/2 (kappa - kappa0)^2 ] J0 dxi,
 * its gradient f_int(q) and Hessian K(q) by Gauss quadrature (nquad points
 * per element). The mass M = int rho N_i N_j J0 dxi (x I2) is constant and
 * the gravity force int rho N_i J0 dxi g too: the body is a nonlinear body
 * (RC_BODY_NONLINEAR, nonlinear.c: M, f = gravity) whose internal force
 * (f_int, K_T, E_el: beam_internal, user = the beam's record) is the kind's
 * op: the generalized-alpha schemes evaluate it at their iterate, the
 * Moreau--Jean schemes linearise it at q_k (K_T in their Mhat).
 */
#include "model/beam_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- B-splines */

static void make_knots(int p, int nel, double *U)
{
    int k = 0;
    for (int i = 0; i <= p; i++) U[k++] = 0.0;
    for (int e = 1; e < nel; e++) U[k++] = (double)e / nel;
    for (int i = 0; i <= p; i++) U[k++] = 1.0;
}

/* the element of xi (its knot span index, p <= span < nel + p) */
int rcm_beam_span(int p, int nel, double xi)
{
    int e = (int)floor(xi * nel);
    if (e >= nel) e = nel - 1;
    if (e < 0) e = 0;
    return e + p;
}

/* N_{span-p+j}^{(d)}(xi), d = 0, 1, 2, j = 0..p into ders[d (p + 1) + j]
 * (Piegl & Tiller, The NURBS Book, algorithm A2.3) */
void rcm_beam_basis(int p, const double *U, int span, double xi, double *ders)
{
    double ndu[BEAM_MAX_DEGREE + 1][BEAM_MAX_DEGREE + 1], left[BEAM_MAX_DEGREE + 1], right[BEAM_MAX_DEGREE + 1];
    double a[2][BEAM_MAX_DEGREE + 1];
    ndu[0][0] = 1.0;
    for (int j = 1; j <= p; j++) {
        left[j] = xi - U[span + 1 - j];
        right[j] = U[span + j] - xi;
        double saved = 0.0;
        for (int r = 0; r < j; r++) {
            ndu[j][r] = right[r + 1] + left[j - r];
            const double t = ndu[r][j - 1] / ndu[j][r];
            ndu[r][j] = saved + right[r + 1] * t;
            saved = left[j - r] * t;
        }
        ndu[j][j] = saved;
    }
    for (int j = 0; j <= p; j++) ders[j] = ndu[j][p];
    for (int r = 0; r <= p; r++) {
        int s1 = 0, s2 = 1;
        a[0][0] = 1.0;
        for (int k = 1; k <= 2; k++) {
            double d = 0.0;
            const int rk = r - k, pk = p - k;
            if (k > p) { ders[k * (p + 1) + r] = 0.0; continue; }
            if (r >= k) {
                a[s2][0] = a[s1][0] / ndu[pk + 1][rk];
                d = a[s2][0] * ndu[rk][pk];
            }
            const int j1 = rk >= -1 ? 1 : -rk, j2 = (r - 1 <= pk) ? k - 1 : p - r;
            for (int j = j1; j <= j2; j++) {
                a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][rk + j];
                d += a[s2][j] * ndu[rk + j][pk];
            }
            if (r <= pk) {
                a[s2][k] = -a[s1][k - 1] / ndu[pk + 1][r];
                d += a[s2][k] * ndu[r][pk];
            }
            ders[k * (p + 1) + r] = d;
            const int t = s1; s1 = s2; s2 = t;
        }
    }
    for (int k = 1, f = p; k <= 2 && k <= p; k++, f *= p - k + 1)
        for (int j = 0; j <= p; j++) ders[k * (p + 1) + j] *= f;
}

/* Gauss--Legendre points and weights on [-1, 1], n = 1..5 */
static void gauss(int n, double *x, double *w)
{
    static const double X[5][5] = { { 0 }, { -0.5773502691896257, 0.5773502691896257 },
        { -0.7745966692414834, 0.0, 0.7745966692414834 },
        { -0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526 },
        { -0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640 } };
    static const double W[5][5] = { { 2.0 }, { 1.0, 1.0 }, { 0.5555555555555556, 0.8888888888888888, 0.5555555555555556 },
        { 0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538 },
        { 0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665, 0.2369268850561891 } };
    for (int i = 0; i < n; i++) { x[i] = X[n - 1][i]; w[i] = W[n - 1][i]; }
}

/* r' and r'' at quadrature point g from the control points q */
static void derivs_at(const rcm_beam *B, int g, const double *q, double a[2], double b[2])
{
    const int p1 = B->p + 1;
    const double *N = B->N + (size_t)g * 3 * p1;
    const double *P = q + 2 * B->first[g];
    a[0] = a[1] = b[0] = b[1] = 0.0;
    for (int j = 0; j < p1; j++) {
        a[0] += N[p1 + j] * P[2 * j];
        a[1] += N[p1 + j] * P[2 * j + 1];
        b[0] += N[2 * p1 + j] * P[2 * j];
        b[1] += N[2 * p1 + j] * P[2 * j + 1];
    }
}

/* ---------------------------------------------------------------- strain energy, force, tangent */

/* The strains' derivatives at one point (see the file's header):
 * dl = d lambda / d r', ka = d kappa / d r', kb = d kappa / d r'' and, for
 * the tangent, Hl = d2 lambda / d r'2, Kaa, Kab (2 x 2, by rows) */
typedef struct strain {
    double lam, kap, dl[2], ka[2], kb[2], Hl[4], Kaa[4], Kab[4];
} strain;

static void strains(const double a[2], const double b[2], double J0, int tangent, strain *e)
{
    const double s = a[0] * a[0] + a[1] * a[1], na = sqrt(s);
    const double c = a[0] * b[1] - a[1] * b[0];
    const double Eb[2] = { b[1], -b[0] }, ETa[2] = { -a[1], a[0] };   /* dc/da, dc/db */
    e->lam = na / J0;
    e->kap = c / (s * J0);
    for (int i = 0; i < 2; i++) {
        e->dl[i] = a[i] / (na * J0);
        e->ka[i] = (Eb[i] / s - 2.0 * c * a[i] / (s * s)) / J0;
        e->kb[i] = ETa[i] / (s * J0);
    }
    if (!tangent) return;
    static const double E[4] = { 0.0, 1.0, -1.0, 0.0 };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const double I = i == j ? 1.0 : 0.0;
            e->Hl[2 * i + j] = (I - a[i] * a[j] / s) / (na * J0);
            e->Kaa[2 * i + j] = (-2.0 * (Eb[i] * a[j] + a[i] * Eb[j]) / (s * s) - 2.0 * c * I / (s * s)
                                 + 8.0 * c * a[i] * a[j] / (s * s * s)) / J0;
            e->Kab[2 * i + j] = (E[2 * i + j] / s - 2.0 * a[i] * ETa[j] / (s * s)) / J0;
        }
}

/* f += sgn f_int(q) (n), K += K(q) (n x n), *E += E_el (each NULL: not computed) */
static void internal(const rcm_beam *B, const double *q, double sgn, double *f, double *K, double *E)
{
    const int p1 = B->p + 1, n = 2 * B->nbasis;
    for (int g = 0; g < B->nqp; g++) {
        double a[2], b[2];
        strain e;
        derivs_at(B, g, q, a, b);
        strains(a, b, B->J0[g], K != NULL, &e);
        const double w = B->wJ[g], nl = B->EA * (e.lam - 1.0), mk = B->EI * (e.kap - B->k0[g]);
        const double *N1 = B->N + (size_t)g * 3 * p1 + p1, *N2 = N1 + p1;
        const int o = 2 * B->first[g];
        if (E) *E += w * 0.5 * (nl * (e.lam - 1.0) + mk * (e.kap - B->k0[g]));
        for (int i = 0; f && i < p1; i++)
            for (int d = 0; d < 2; d++)
                f[o + 2 * i + d] += sgn * w * (nl * N1[i] * e.dl[d] + mk * (N1[i] * e.ka[d] + N2[i] * e.kb[d]));
        if (!K) continue;
        for (int i = 0; i < p1; i++)
            for (int j = 0; j < p1; j++)
                for (int d = 0; d < 2; d++)
                    for (int c = 0; c < 2; c++) {
                        const double gi = N1[i] * e.ka[d] + N2[i] * e.kb[d], gj = N1[j] * e.ka[c] + N2[j] * e.kb[c];
                        const double ax = B->EA * (e.dl[d] * e.dl[c] + (e.lam - 1.0) * e.Hl[2 * d + c]) * N1[i] * N1[j];
                        const double bx = B->EI * gi * gj
                                        + mk * (N1[i] * N1[j] * e.Kaa[2 * d + c] + N1[i] * N2[j] * e.Kab[2 * d + c]
                                                + N2[i] * N1[j] * e.Kab[2 * c + d]);
                        K[(size_t)(o + 2 * i + d) * n + o + 2 * j + c] += w * (ax + bx);
                    }
    }
}

/* the body's internal force (rcm_internal_fn): f_int(q), K_T(q), E_el(q), overwritten
 * (gravity is the body's constant force) */
static rc_status beam_internal(const void *user, const double *q, double *f, double *K, double *E)
{
    const rcm_beam *B = user;
    const int n = 2 * B->nbasis;
    if (f) memset(f, 0, (size_t)n * sizeof(double));
    if (K) memset(K, 0, (size_t)n * n * sizeof(double));
    if (E) *E = 0.0;
    internal(B, q, 1.0, f, K, E);
    return RC_OK;
}

static void beam_free(void *p)
{
    rcm_beam *B = p;
    if (!B) return;
    for (int k = 0; k < B->njoints; k++) rcb_free((char *)B->joints[k].def.name);
    rcb_free(B->knots); rcb_free(B->first); rcb_free(B->N); rcb_free(B->wJ); rcb_free(B->J0); rcb_free(B->k0);
    rcb_free(B);
}

/* the beam of body id (NULL: no such body, not a beam) */
rcm_beam *rcm_beam_of(const rc_world *w, int b)
{
    const rcm_nonlinear *nl = rcm_nonlinear_of(w, b);
    return nl && nl->fn == beam_internal ? nl->user : NULL;
}

static rc_status beam_of(const rc_world *w, int id, const char *f, const rcm_beam **B)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: 'w' is NULL", f);
    if (!rcm_valid_body(w, id)) return rc_set_error(RC_ERR_NOT_FOUND, "%s: no body with id %d", f, id);
    *B = rcm_beam_of(w, id);
    if (!*B) return rc_set_error(RC_ERR_ARG, "%s: body %d is not a beam (rc_beam_create)", f, id);
    return RC_OK;
}

/* ---------------------------------------------------------------- definition and creation */

rc_beam_def rc_default_beam_def(void)
{
    rc_beam_def d;
    memset(&d, 0, sizeof d);
    d.b[0] = 1.0;
    d.elements = 4;
    d.degree = 2;
    d.quadrature = 5;
    d.EA = d.EI = d.rho = 1.0;
    return d;
}

rc_status rc_beam_def_check(const rc_beam_def *d, const char *what)
{
    char buf[160];
    if (!what) { snprintf(buf, sizeof buf, "beam '%s'", d && d->name ? d->name : "?"); what = buf; }
    if (!d) return rc_set_error(RC_ERR_ARG, "%s: NULL definition", what);
    const double *pts[2] = { d->a, d->b };
    for (int k = 0; k < 2; k++)
        if (!rcb_finite(pts[k][0]) || !rcb_finite(pts[k][1]))
            return rc_set_error(RC_ERR_ARG, "%s: '%s' must be finite", what, k ? "b" : "a");
    if (!(hypot(d->b[0] - d->a[0], d->b[1] - d->a[1]) > 0))
        return rc_set_error(RC_ERR_ARG, "%s: 'a' and 'b' must differ (the undeformed length is 0)", what);
    if (d->degree < 2 || d->degree > BEAM_MAX_DEGREE)
        return rc_set_error(RC_ERR_ARG, "%s: 'degree' must be in 2..%d (C1 centreline; got %d)", what, BEAM_MAX_DEGREE, d->degree);
    if (d->elements < 1 || d->elements > 1000)
        return rc_set_error(RC_ERR_ARG, "%s: 'elements' must be in 1..1000 (got %d)", what, d->elements);
    if (d->quadrature < 1 || d->quadrature > BEAM_MAX_QUAD)
        return rc_set_error(RC_ERR_ARG, "%s: 'quadrature' must be in 1..%d (got %d)", what, BEAM_MAX_QUAD, d->quadrature);
    const double v[3] = { d->EA, d->EI, d->rho };
    const char *nm[3] = { "EA", "EI", "rho" };
    for (int k = 0; k < 3; k++)
        if (!(v[k] > 0) || !rcb_finite(v[k])) return rc_set_error(RC_ERR_ARG, "%s: '%s' must be > 0 and finite (got %g)", what, nm[k], v[k]);
    for (int k = 0; k < 2; k++)
        if (!rcb_finite(d->gravity[k]) || !rcb_finite(d->v0[k]))
            return rc_set_error(RC_ERR_ARG, "%s: 'gravity' and 'v0' must be finite", what);
    return RC_OK;
}

/* the record's quadrature tables, J0 and kappa0 at the reference q0 */
static rc_status beam_tables(rcm_beam *B, const double *q0)
{
    const int p1 = B->p + 1;
    B->nqp = B->nel * B->nquad;
    B->first = rcb_malloc((size_t)B->nqp * sizeof(int));
    B->N = rcb_malloc((size_t)B->nqp * 3 * p1 * sizeof(double));
    B->wJ = rcb_malloc((size_t)B->nqp * sizeof(double));
    B->J0 = rcb_malloc((size_t)B->nqp * sizeof(double));
    B->k0 = rcb_malloc((size_t)B->nqp * sizeof(double));
    if (!B->first || !B->N || !B->wJ || !B->J0 || !B->k0) return rc_set_error(RC_ERR_NOMEM, "beam: out of memory");
    double gx[BEAM_MAX_QUAD], gw[BEAM_MAX_QUAD];
    gauss(B->nquad, gx, gw);
    for (int e = 0; e < B->nel; e++)
        for (int k = 0; k < B->nquad; k++) {
            const int g = e * B->nquad + k;
            const double xi = (e + 0.5 * (gx[k] + 1.0)) / B->nel;
            rcm_beam_basis(B->p, B->knots, e + B->p, xi, B->N + (size_t)g * 3 * p1);
            B->first[g] = e;
            double a[2], b[2];
            derivs_at(B, g, q0, a, b);
            B->J0[g] = hypot(a[0], a[1]);
            B->k0[g] = (a[0] * b[1] - a[1] * b[0]) / (B->J0[g] * B->J0[g] * B->J0[g]);
            B->wJ[g] = 0.5 * gw[k] / B->nel * B->J0[g];
        }
    return RC_OK;
}

/* M (dense n x n) and the gravity force f */
static void beam_mass(const rcm_beam *B, const double *grav, double *M, double *f)
{
    const int p1 = B->p + 1, n = 2 * B->nbasis;
    memset(M, 0, (size_t)n * n * sizeof(double));
    memset(f, 0, (size_t)n * sizeof(double));
    for (int g = 0; g < B->nqp; g++) {
        const double *N = B->N + (size_t)g * 3 * p1, w = B->rho * B->wJ[g];
        const int o = B->first[g];
        for (int i = 0; i < p1; i++) {
            f[2 * (o + i)] += w * N[i] * grav[0];
            f[2 * (o + i) + 1] += w * N[i] * grav[1];
            for (int j = 0; j < p1; j++)
                for (int d = 0; d < 2; d++) M[(size_t)(2 * (o + i) + d) * n + 2 * (o + j) + d] += w * N[i] * N[j];
        }
    }
}

rc_status rc_beam_create(rc_world *w, const rc_beam_def *def, int *out_body)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_beam_create: NULL argument");
    RC_CHECK(rc_beam_def_check(def, NULL));
    rcm_beam *B = rcb_malloc(sizeof *B);
    if (!B) return rc_set_error(RC_ERR_NOMEM, "beam: out of memory");
    memset(B, 0, sizeof *B);
    B->p = def->degree; B->nel = def->elements; B->nquad = def->quadrature;
    B->nbasis = B->nel + B->p;
    B->EA = def->EA; B->EI = def->EI; B->rho = def->rho;
    const int n = 2 * B->nbasis;
    double *q0 = rcb_malloc((size_t)4 * n * sizeof(double)), *M = rcb_malloc((size_t)n * n * sizeof(double));
    rc_status s = (!q0 || !M) ? rc_set_error(RC_ERR_NOMEM, "beam: out of memory") : RC_OK;
    double *v0 = q0 + n, *f = q0 + 2 * n;
    B->knots = rcb_malloc((size_t)(B->nel + 2 * B->p + 1) * sizeof(double));
    if (s == RC_OK && !B->knots) s = rc_set_error(RC_ERR_NOMEM, "beam: out of memory");
    if (s == RC_OK) {
        const double *U = B->knots;
        make_knots(B->p, B->nel, B->knots);
        for (int i = 0; i < B->nbasis; i++) {   /* Greville abscissae: r(xi) = a + xi (b - a) */
            double xi = 0.0;
            for (int k = 1; k <= B->p; k++) xi += U[i + k];
            xi /= B->p;
            for (int d = 0; d < 2; d++) {
                q0[2 * i + d] = def->a[d] + xi * (def->b[d] - def->a[d]);
                v0[2 * i + d] = def->v0[d];
            }
        }
        s = beam_tables(B, q0);
    }
    int id = -1;
    if (s == RC_OK) {
        beam_mass(B, def->gravity, M, f);
        rcm_beam *own = B;
        B = NULL;   /* the body owns it (freed there on failure) */
        s = rcm_nonlinear_create(w, def->name, n, M, f, q0, v0, beam_internal, own, beam_free, &id);
        if (s == RC_OK) own->body = id;
    }
    beam_free(B);
    rcb_free(q0); rcb_free(M);
    if (s == RC_OK && out_body) *out_body = id;
    return s;
}

/* ---------------------------------------------------------------- queries */

rc_status rc_beam_forces(const rc_world *w, int body, const double *q, double *f_int, double *K, double *E_el)
{
    const rcm_beam *B = NULL;
    RC_CHECK(beam_of(w, body, "rc_beam_forces", &B));
    const int n = 2 * B->nbasis;
    if (!q) q = w->q + w->bodies[body].iq;
    if (f_int) memset(f_int, 0, (size_t)n * sizeof(double));
    if (K) memset(K, 0, (size_t)n * n * sizeof(double));
    if (E_el) *E_el = 0.0;
    internal(B, q, 1.0, f_int, K, E_el);
    return RC_OK;
}

rc_status rc_beam_point(const rc_world *w, int body, double xi, const double *q, double r[2], double dr[2])
{
    const rcm_beam *B = NULL;
    RC_CHECK(beam_of(w, body, "rc_beam_point", &B));
    if (!(xi >= 0.0 && xi <= 1.0)) return rc_set_error(RC_ERR_ARG, "rc_beam_point: 'xi' must be in [0, 1] (got %g)", xi);
    if (!q) q = w->q + w->bodies[body].iq;
    const int p1 = B->p + 1, span = rcm_beam_span(B->p, B->nel, xi);
    double N[3 * (BEAM_MAX_DEGREE + 1)];
    rcm_beam_basis(B->p, B->knots, span, xi, N);
    double rr[2] = { 0.0, 0.0 }, dd[2] = { 0.0, 0.0 };
    for (int j = 0; j < p1; j++)
        for (int d = 0; d < 2; d++) {
            rr[d] += N[j] * q[2 * (span - B->p + j) + d];
            dd[d] += N[p1 + j] * q[2 * (span - B->p + j) + d];
        }
    if (r) { r[0] = rr[0]; r[1] = rr[1]; }
    if (dr) { dr[0] = dd[0]; dr[1] = dd[1]; }
    return RC_OK;
}

rc_status rc_beam_energy(const rc_world *w, int body, double *E_kin, double *E_el, double *E_grav)
{
    const rcm_beam *B = NULL;
    RC_CHECK(beam_of(w, body, "rc_beam_energy", &B));
    double ek = 0.0, ee = 0.0, eg = 0.0, e0;
    const rc_body *bd = &w->bodies[body];
    const rc_linear *L = &w->linears[bd->linear];
    rcm_linear_energies(w, L, w->q, w->v, &ek, &e0);
    const double *q = w->q + bd->iq;
    for (int i = 0; i < L->n; i++) eg -= L->f[i] * q[i];
    internal(B, q, 1.0, NULL, NULL, &ee);
    if (E_kin) *E_kin = ek;
    if (E_el) *E_el = ee;
    if (E_grav) *E_grav = eg;
    return RC_OK;
}

rc_status rc_beam_info(const rc_world *w, int body, int *degree, int *elements, double *length)
{
    const rcm_beam *B = NULL;
    RC_CHECK(beam_of(w, body, "rc_beam_info", &B));
    if (degree) *degree = B->p;
    if (elements) *elements = B->nel;
    if (length) {
        double L = 0.0;
        for (int g = 0; g < B->nqp; g++) L += B->wJ[g];
        *length = L;
    }
    return RC_OK;
}
