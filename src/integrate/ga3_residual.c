/* ga3_residual.c -- the frictional generalized-alpha step on spatial rigid
 * bodies (ga3_friction.h): from the unknowns x (126) the dependent
 * quantities (a-bar (71), u (73), q (125) with the position correction
 * B(q_i) Q, the contacts' lambda-bar (96), (114), P_N (95), kappa-hat (102),
 * P_F (113)), the forces (gravity, applied, the gyroscopic -Omega x J Omega)
 * and the contacts' quantities at (t_{i+1}, q, u, a), then the residual of
 * section 9 with the friction set a disc (eq. 49: the Coulomb disc of radius
 * mu lambda_N, or with the Contensou drilling row the ball of (157)): the
 * normal cone inclusions (117)-(118) as the natural maps
 *   slip:   lambda_F + mu lambda_N gamma_F / |gamma_F|,
 * scaled as the planar variant (gf_residual.c): h R_a, R_U, R_Q / h; the
 * joints' g / h, g-dot, h g-ddot (ga3_joints.c); per contact kappa-hat or g_N over h, P_N or xi_N, h lambda_N or h g_N-ddot,
 * P_F (vector), h lambda_F (vector). */
#include "integrate/ga3_friction.h"
#include "base/rot3.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double dotn(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d += a[i] * b[i];
    return d;
}

static double norm(const double *a, int n) { return sqrt(dotn(a, a, n)); }

void rci_ga3f_positions(const rci_ga3f *s, const double *a0, const double *a1, const double *Q, double *q)
{
    const rc_world *w = s->w;
    const double h = s->h;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        const double *q0 = s->qn + bd->iq, *u0 = s->un + bd->iv, *Qb = Q ? Q + bd->iv : NULL;
        double *qq = q + bd->iq, am[6];
        for (int j = 0; j < 6; j++) am[j] = (1.0 - 2.0 * s->be) * a0[bd->iv + j] + 2.0 * s->be * a1[bd->iv + j];
        for (int j = 0; j < 3; j++) qq[j] = q0[j] + h * u0[j] + 0.5 * h * h * am[j] + (Qb ? Qb[j] : 0.0);
        const double *p = q0 + 3, W2 = rcb_v3_dot(u0 + 3, u0 + 3);
        double d[4] = { 0.0, 0.0, 0.0, 0.0 }, pd[4];
        for (int j = 0; j < 3; j++) d[1 + j] = 0.5 * (h * u0[3 + j] + 0.5 * h * h * am[3 + j] + (Qb ? Qb[3 + j] : 0.0));
        rcb_quat_mul(pd, p, d);
        const double s0 = 1.0 - h * h * W2 / 8.0;
        for (int j = 0; j < 4; j++) qq[3 + j] = s0 * p[j] + pd[j];
        rcb_quat_normalize(qq + 3);
    }
}

void rci_ga3f_dependent(rci_ga3f *s, int with_Q)
{
    const double h = s->h, am = s->am, af = s->af, ga = s->ga;
    const double *a = s->x, *U = s->x + s->nv;
    for (int i = 0; i < s->nv; i++) {
        s->ab[i] = (af * s->an[i] + (1.0 - af) * a[i] - am * s->abn[i]) / (1.0 - am);                 /* (71) */
        s->u[i] = s->un[i] + h * ((1.0 - ga) * s->abn[i] + ga * s->ab[i]) + U[i];                     /* (73) */
    }
    rci_ga3f_positions(s, s->abn, s->ab, with_Q ? s->x + 2 * s->nv : NULL, s->q);   /* (125) */
    for (int k = 0; k < s->nc; k++) {
        const double *xk = s->x + s->off[k];
        const int nf = s->nf[k];
        const double kN = xk[0], LN = xk[1], lN = xk[2], *LF = xk + 3, *lF = xk + 3 + nf;
        s->lbN[k] = (af * s->lNn[k] + (1.0 - af) * lN - am * s->lbNn[k]) / (1.0 - am);                 /* (96) */
        s->PN[k] = LN + h * ((1.0 - ga) * s->lbNn[k] + ga * s->lbN[k]);                                 /* (95) */
        s->kh[k] = kN + 0.5 * h * h * ((1.0 - 2.0 * s->be) * s->lbNn[k] + 2.0 * s->be * s->lbN[k]);     /* (102) */
        for (int j = 0; j < nf; j++) {
            const int i = 3 * k + j;
            s->lbF[i] = (af * s->lFn[i] + (1.0 - af) * lF[j] - am * s->lbFn[i]) / (1.0 - am);          /* (114) */
            s->PF[i] = LF[j] + h * ((1.0 - ga) * s->lbFn[i] + ga * s->lbF[i]);                          /* (113) */
        }
    }
}

/* h(t, q, u): gravity, the applied forces at (t_{i+1}, q, u), the gyroscopic
 * -Omega x J Omega (w->q, w->v hold q, u afterwards) */
static rc_status forces(rci_ga3f *s)
{
    rc_world *w = s->w;
    memcpy(w->q, s->q, (size_t)s->nq * sizeof(double));
    memcpy(w->v, s->u, (size_t)s->nv * sizeof(double));
    if (s->have_f) RC_CHECK(rci_forces(w, s->t1));
    const double *g = w->def.gravity;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        const int o = bd->iv;
        const double m = w->mass_diag[o], *J = w->mass_diag + o + 3, *W = s->u + o + 3;
        double *f = s->f + o, JW[3], gy[3];
        for (int j = 0; j < 6; j++) f[j] = s->have_f ? w->f[o + j] : 0.0;
        for (int j = 0; j < 3; j++) { f[j] += m * g[j]; JW[j] = J[j] * W[j]; }
        rcb_v3_cross(gy, W, JW);
        for (int j = 0; j < 3; j++) f[3 + j] -= gy[j];
    }
    return RC_OK;
}

rc_status rci_ga3f_eval(rci_ga3f *s)
{
    const int nv = s->nv;
    rci_ga3f_dependent(s, 1);
    RC_CHECK(rci_ga3f_rows(s, s->q, s->G, s->gN, 1));
    RC_CHECK(rci_ga3f_drift(s, s->dc));
    const double *a = s->x;
    for (int k = 0; k < s->nc; k++) {
        const int r0 = s->gr[k];
        const double *Gn = s->G + (size_t)r0 * nv;
        const double uo = dotn(Gn, s->un, nv);   /* the pre-jump velocity u_i at q_{i+1} (88) */
        s->gdN[k] = dotn(Gn, s->u, nv);
        s->xiN[k] = s->gdN[k] + s->eN[k] * uo;
        s->gddN[k] = dotn(Gn, a, nv) + s->dc[r0];
        for (int j = 0; j < s->nf[k]; j++) {
            const double *Gf = s->G + (size_t)(r0 + 1 + j) * nv;
            const int i = 3 * k + j;
            s->gF[i] = dotn(Gf, s->u, nv);
            s->gFo[i] = dotn(Gf, s->un, nv);
            s->xiF[i] = s->gF[i] + s->eF[k] * s->gFo[i];
            s->gdF[i] = dotn(Gf, a, nv) + s->dc[r0 + 1 + j];
        }
    }
    if (s->nb) rci_ga3j_eval(s);   /* the joints' g-dot, g-ddot (ga3_joints.c) */
    return forces(s);
}

/* |r y - z| of a friction vector (n components) */
static double dist(double r, const double *y, const double *z, int n)
{
    double d = 0.0;
    for (int j = 0; j < n; j++) d += (r * y[j] - z[j]) * (r * y[j] - z[j]);
    return sqrt(d);
}

void rci_ga3f_sets(rci_ga3f *s)
{
    for (int k = 0; k < s->nc; k++) {
        const double *xk = s->x + s->off[k], lN = xk[2], *lF = xk + 3 + s->nf[k];
        const int nf = s->nf[k];
        unsigned char st = 0;
        if (s->rN[k] * s->gN[k] - s->kh[k] <= 0.0) st |= RCI_GF_A;                                              /* (130) */
        if ((st & RCI_GF_A) && s->rN[k] * s->xiN[k] - s->PN[k] <= 0.0) st |= RCI_GF_B;                         /* (133) */
        if ((st & RCI_GF_B) && s->rN[k] * s->gddN[k] - lN <= 0.0) st |= RCI_GF_C;                              /* (136) */
        if ((st & RCI_GF_A) && dist(s->rF[k], s->xiF + 3 * k, s->PF + 3 * k, nf) <= s->mu[k] * s->PN[k]) st |= RCI_GF_DST;   /* (139) */
        if ((st & RCI_GF_DST) && dist(s->rF[k], s->gdF + 3 * k, lF, nf) <= s->mu[k] * lN) st |= RCI_GF_EST;    /* (141) */
        s->set[k] = st;
    }
}

/* r = z + rad y / |y| (0 direction at y = 0), n components */
static void slip(double *r, const double *z, double rad, const double *y, int n)
{
    const double ny = norm(y, n);
    for (int j = 0; j < n; j++) r[j] = z[j] + (ny > 0.0 ? rad * y[j] / ny : 0.0);
}

/* the smooth rows (127): M a - h - W lambda, M U - W Lambda, M Q - W_N kappa_N - h/2 W_F Lambda_F */
static void smooth_rows(rci_ga3f *s)
{
    const int nv = s->nv;
    const double h = s->h, *md = s->w->mass_diag, *a = s->x, *U = s->x + nv, *Q = s->x + 2 * nv;
    double *Ra = s->R, *RU = s->R + nv, *RQ = s->R + 2 * nv;
    for (int i = 0; i < nv; i++) {
        Ra[i] = md[i] * a[i] - s->f[i];
        RU[i] = md[i] * U[i];
        RQ[i] = md[i] * Q[i];
    }
    for (int k = 0; k < s->nc; k++) {
        const double *xk = s->x + s->off[k];
        const int nf = s->nf[k];
        for (int r = 0; r <= nf; r++) {
            const double *Gr = s->G + (size_t)(s->gr[k] + r) * nv;
            const double l = r ? xk[3 + nf + r - 1] : xk[2], L = r ? xk[3 + r - 1] : xk[1];
            const double kq = r ? 0.5 * h * xk[3 + r - 1] : xk[0];
            for (int i = 0; i < nv; i++) {
                if (Gr[i] == 0.0) continue;
                Ra[i] -= Gr[i] * l;
                RU[i] -= Gr[i] * L;
                RQ[i] -= Gr[i] * kq;
            }
        }
    }
    if (s->nb) rci_ga3j_smooth(s, Ra, RU, RQ);   /* the joints' multipliers (ga3_joints.c) */
    for (int i = 0; i < nv; i++) { Ra[i] *= h; RQ[i] /= h; }
}

double rci_ga3f_residual(rci_ga3f *s, int *worst)
{
    const double h = s->h;
    smooth_rows(s);
    if (s->nb) rci_ga3j_residual(s);   /* g / h, g-dot, h g-ddot (ga3_joints.c) */
    double qmax = 0.0;
    for (int i = 0; i < s->nq; i++) qmax = fmax(qmax, fabs(s->q[i]));
    const double gfloor = 4.0 * DBL_EPSILON * (1.0 + qmax);   /* a gap within the positions' round-off is 0 */
    for (int k = 0; k < s->nc; k++) {
        const int nf = s->nf[k], st = s->set[k];
        const double *xk = s->x + s->off[k], lN = xk[2], *lF = xk + 3 + nf, mu = s->mu[k];
        double *R = s->R + s->off[k];
        const double *PF = s->PF + 3 * k, *xiF = s->xiF + 3 * k, *gdF = s->gdF + 3 * k, *gF = s->gF + 3 * k;
        const double gN = fabs(s->gN[k]) <= gfloor ? 0.0 : s->gN[k];
        R[0] = ((st & RCI_GF_A) ? gN : s->kh[k]) / h;                     /* (129) */
        R[1] = (st & RCI_GF_B) ? s->xiN[k] : s->PN[k];                    /* (132) */
        R[2] = h * ((st & RCI_GF_C) ? s->gddN[k] : lN);                   /* (135) */
        double *RF = R + 3, *Rl = R + 3 + nf;
        if (!(st & RCI_GF_A)) memcpy(RF, PF, (size_t)nf * sizeof(double));   /* (138) */
        else if (st & RCI_GF_DST) memcpy(RF, xiF, (size_t)nf * sizeof(double));
        else slip(RF, PF, mu * s->PN[k], xiF, nf);
        if (!(st & RCI_GF_A)) memcpy(Rl, lF, (size_t)nf * sizeof(double));   /* (142) */
        else if (st & RCI_GF_EST) memcpy(Rl, gdF, (size_t)nf * sizeof(double));
        else if (st & RCI_GF_DST) slip(Rl, lF, mu * lN, gdF, nf);
        else slip(Rl, lF, mu * lN, gF, nf);                               /* slip: the velocity gamma_F */
        for (int j = 0; j < nf; j++) Rl[j] *= h;
    }
    double res = 0.0;
    *worst = -1;
    for (int i = 0; i < s->N; i++) {
        const double v = fabs(s->R[i]);
        if (!(v <= res)) { res = v; *worst = i; }
    }
    return res;
}
