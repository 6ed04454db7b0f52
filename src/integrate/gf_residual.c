/* gf_residual.c -- the frictional nonsmooth generalized-alpha step's
 * quantities and residual (Capobianco, Harsch, Eugster & Leine 2021, section
 * 9; note 003 sections 2.4-2.8).
 *
 * From the unknowns x (126): a-bar (71), u and q (73), the contacts' lambda-bar
 * (96), (114), the percussions P_N (95), P_F (113) and kappa-hat (102); then
 * at (t_{i+1}, q, u, a): the forces, the joints' g, g-dot, g-ddot, the
 * contacts' g_N, g_N-dot, g_N-ddot, xi_N, gamma_F, gamma_F-dot, xi_F. The
 * accelerations' velocity terms (d/dt of the rows at fixed u, eqs. 55, 58,
 * 119) are central differences along (q + eps u, t + eps).
 *
 * The residual rows are scaled to impulses or velocities (as the frictionless
 * scheme's (39)): h R_a, R_U, R_Q / h; g / h, g-dot, h g-ddot; per contact
 * (129) kappa-hat or g_N over h, (132) P_N or xi_N, (135) h lambda_N or
 * h g_N-ddot, (138) P_F, (142) h lambda_F. */
#include "integrate/gen_alpha_friction.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const double drift_eps = 1e-6;   /* the central differences' step in time */



static double dot(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d += a[i] * b[i];
    return d;
}

/* the dependent quantities, note 003 section 2.4 */
void rci_gf_dependent(rci_gf_sys *s)
{
    const double h = s->h, am = s->am, af = s->af, be = s->beta, ga = s->gam;
    const double *a = s->x + IA, *U = s->x + IU, *Q = s->x + IQ;
    for (int i = 0; i < s->n; i++) {
        s->ab[i] = (af * s->an[i] + (1.0 - af) * a[i] - am * s->abn[i]) / (1.0 - am);                   /* (71) */
        s->u[i] = s->un[i] + h * ((1.0 - ga) * s->abn[i] + ga * s->ab[i]) + U[i];                       /* (73) */
        s->q[i] = s->qn[i] + h * s->un[i] + 0.5 * h * h * ((1.0 - 2.0 * be) * s->abn[i] + 2.0 * be * s->ab[i]) + Q[i];
    }
    const double *kN = s->x + IKN, *LN = s->x + ILN, *lN = s->x + ILLN, *LF = s->x + ILF, *lF = s->x + ILLF;
    for (int k = 0; k < s->nc; k++) {
        s->lbN[k] = (af * s->lNn[k] + (1.0 - af) * lN[k] - am * s->lbNn[k]) / (1.0 - am);               /* (96) */
        s->lbF[k] = (af * s->lFn[k] + (1.0 - af) * lF[k] - am * s->lbFn[k]) / (1.0 - am);               /* (114) */
        s->PN[k] = LN[k] + h * ((1.0 - ga) * s->lbNn[k] + ga * s->lbN[k]);                               /* (95) */
        s->kh[k] = kN[k] + 0.5 * h * h * ((1.0 - 2.0 * be) * s->lbNn[k] + 2.0 * be * s->lbN[k]);         /* (102) */
        s->PF[k] = LF[k] + h * ((1.0 - ga) * s->lbFn[k] + ga * s->lbF[k]);                               /* (113) */
    }
}

/* the rows of the joints (G's first nb) and contacts (normal, tangent) at X,
 * time t: into Gr (nb + 2 nc rows); the contact frames are updated (s->cs)
 * only at the iterate itself (frames) */
static rc_status rows_at(rci_gf_sys *s, const double *X, double t, double *Gr, double *gj, double *gtj, int frames)
{
    rc_world *w = s->w;
    const int n = s->n;
    if (s->nb) RC_CHECK(rci_joint_rows(w, n, X, t, gj, Gr, gtj));
    if (!s->nc) return RC_OK;
    rc_contact *cs = frames ? s->cs : s->cs2;   /* a copy for a shifted position */
    if (!frames) memcpy(cs, s->cs, (size_t)s->nc * sizeof(rc_contact));
    RC_CHECK(rci_contacts_at(w, s->margin, t, X, cs, s->nc, frames ? s->gN : s->tmp, 1));
    for (int k = 0; k < s->nc; k++) {
        rci_contact_row(w, &cs[k], 0, n, Gr + (size_t)(s->nb + 2 * k) * n);
        rci_contact_row(w, &cs[k], 1, n, Gr + (size_t)(s->nb + 2 * k + 1) * n);
    }
    return RC_OK;
}

rc_status rci_gf_rows_at(rci_gf_sys *s, const double *X, double t, double *Gr, double *gt)
{
    return rows_at(s, X, t, Gr, s->tmp + s->nc, gt, 0);
}

/* c = d/dt (G u + dg/dt) at fixed u, along (q + t u, t): central differences */
static rc_status drift(rci_gf_sys *s, double *c)
{
    const int n = s->n, m = s->nb + 2 * s->nc;
    double *X = s->X, *gj = s->tmp + s->nc, *gtj = gj + s->nb;
    for (int k = 0; k < m; k++) c[k] = 0.0;
    for (int side = 0; side < 2; side++) {
        const double sg = side ? -1.0 : 1.0;
        for (int i = 0; i < n; i++) X[i] = s->q[i] + sg * drift_eps * s->u[i];
        RC_CHECK(rows_at(s, X, s->t1 + sg * drift_eps, s->Gp, gj, gtj, 0));
        for (int k = 0; k < m; k++) {
            double d = dot(s->Gp + (size_t)k * n, s->u, n) + (k < s->nb ? gtj[k] : 0.0);
            c[k] += sg * d / (2.0 * drift_eps);
        }
    }
    return RC_OK;
}

/* h(t, q, u): applied forces (w->q, w->v hold q, u), gravity on rigid
 * bodies, -f_int(q) - C u of the kinds with an internal force (the kind's op:
 * K q of linear bodies, a nonlinear body's own) */
static rc_status forces(rci_gf_sys *s)
{
    rc_world *w = s->w;
    memcpy(w->q, s->q, (size_t)w->nq * sizeof(double));
    memcpy(w->v, s->u, (size_t)w->nv * sizeof(double));
    if (s->have_f) RC_CHECK(rci_forces(w, s->t1));
    const double *gr = w->def.gravity;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        double *f = s->f + bd->iv;
        for (int k = 0; k < bd->nv; k++) f[k] = s->have_f ? w->f[bd->iv + k] : 0.0;
        const rcm_body_ops *ops = rcm_body_ops_of(bd);
        if (ops->internal) {
            const rc_linear *L = &w->linears[bd->linear];
            RC_CHECK(ops->internal(w, bd, s->q + bd->iq, s->tmp, NULL));
            for (int k = 0; k < L->n; k++) f[k] -= s->tmp[k];
            if (L->C) {
                rcm_linear_mul(L, L->C, s->u + bd->iv, s->tmp);
                for (int k = 0; k < L->n; k++) f[k] -= s->tmp[k];
            }
            continue;
        }
        const double m = rcm_body_mass(w, bd);
        f[0] += m * gr[0];
        f[1] += m * gr[1];
    }
    return RC_OK;
}

rc_status rci_gf_forces(rci_gf_sys *s) { return forces(s); }

rc_status rci_gf_eval(rci_gf_sys *s)
{
    const int n = s->n, nb = s->nb, nc = s->nc;
    rci_gf_dependent(s);
    double *gtj = s->gd;   /* dg/dt first, g-dot below */
    RC_CHECK(rows_at(s, s->q, s->t1, s->G, s->g, gtj, 1));
    double *c = s->dc;     /* the velocity terms of the accelerations (nb + 2 nc) */
    RC_CHECK(drift(s, c));
    const double *a = s->x + IA;
    for (int k = 0; k < nb; k++) {
        const double *Gk = s->G + (size_t)k * n;
        s->gd[k] = dot(Gk, s->u, n) + gtj[k];
        s->gdd[k] = dot(Gk, a, n) + c[k];
    }
    for (int k = 0; k < nc; k++) {
        const double *Gn = s->G + (size_t)(nb + 2 * k) * n, *Gt = Gn + n;
        s->gdN[k] = dot(Gn, s->u, n);
        s->gF[k] = dot(Gt, s->u, n);
        s->uo[2 * k] = dot(Gn, s->un, n);
        s->uo[2 * k + 1] = dot(Gt, s->un, n);
        s->xiN[k] = s->gdN[k] + s->eN[k] * s->uo[2 * k];   /* (88): the pre-jump velocity u_i at q_{i+1} */
        s->xiF[k] = s->gF[k] + s->eF[k] * s->uo[2 * k + 1];
        s->gddN[k] = dot(Gn, a, n) + c[nb + 2 * k];
        s->gdF[k] = dot(Gt, a, n) + c[nb + 2 * k + 1];
    }
    return forces(s);
}

rc_status rci_gf_start_terms(rci_gf_sys *s)
{
    const int n = s->n;
    memcpy(s->q, s->qn, (size_t)n * sizeof(double));
    memcpy(s->u, s->un, (size_t)n * sizeof(double));
    const double t1 = s->t1;
    s->t1 = t1 - s->h;   /* t_i */
    double *gtj = s->gd;
    rc_status st = rows_at(s, s->q, s->t1, s->G, s->g, gtj, 1);
    if (st == RC_OK) st = drift(s, s->dc);
    if (st == RC_OK) st = forces(s);
    s->t1 = t1;
    RC_CHECK(st);
    for (int k = 0; k < s->nb; k++) s->gdd[k] = s->dc[k];
    return RC_OK;
}

void rci_gf_sets(rci_gf_sys *s)
{
    const double *lN = s->x + ILLN, *lF = s->x + ILLF;
    for (int k = 0; k < s->nc; k++) {
        unsigned char st = 0;
        if (s->rN[k] * s->gN[k] - s->kh[k] <= 0.0) st |= RCI_GF_A;                                   /* (130) */
        if ((st & RCI_GF_A) && s->rN[k] * s->xiN[k] - s->PN[k] <= 0.0) st |= RCI_GF_B;              /* (133) */
        if ((st & RCI_GF_B) && s->rN[k] * s->gddN[k] - lN[k] <= 0.0) st |= RCI_GF_C;                /* (136) */
        if ((st & RCI_GF_A) && fabs(s->rF[k] * s->xiF[k] - s->PF[k]) <= s->mu[k] * s->PN[k]) st |= RCI_GF_DST;   /* (139) */
        if ((st & RCI_GF_DST) && fabs(s->rF[k] * s->gdF[k] - lF[k]) <= s->mu[k] * lN[k]) st |= RCI_GF_EST;      /* (141) */
        if (s->site[k].law) st = rci_gf_law_sets(s, k, st & RCI_GF_A);   /* a law through xi / project (gf_law.c) */
        s->set[k] = st;
    }
}

/* R_s rows (127), scaled; returns the max-norm */
static double smooth_rows(rci_gf_sys *s)
{
    const int n = s->n, nb = s->nb, nc = s->nc;
    const double h = s->h;
    const double *a = s->x + IA, *U = s->x + IU, *Q = s->x + IQ;
    const double *kg = s->x + IKG, *Lg = s->x + ILG, *lg = s->x + ILLG;
    const double *kN = s->x + IKN, *LN = s->x + ILN, *lN = s->x + ILLN, *LF = s->x + ILF, *lF = s->x + ILLF;
    double *R = s->R, *Ma = s->tmp + nc + 2 * nb, *MU = Ma + n, *MQ = MU + n;
    /* M a, M U, M Q per body kind */
    const rc_world *w = s->w;
    for (int i = 0; i < n; i++) {
        Ma[i] = w->mass_diag[i] * a[i];
        MU[i] = w->mass_diag[i] * U[i];
        MQ[i] = w->mass_diag[i] * Q[i];
    }
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        const int o = w->bodies[L->body].iv;
        rcm_linear_mul(L, L->M, a + o, Ma + o);
        rcm_linear_mul(L, L->M, U + o, MU + o);
        rcm_linear_mul(L, L->M, Q + o, MQ + o);
    }
    for (int i = 0; i < n; i++) {
        double ra = Ma[i] - s->f[i], rU = MU[i], rQ = MQ[i];
        for (int k = 0; k < nb; k++) {
            const double Gk = s->G[(size_t)k * n + i];
            ra -= Gk * lg[k]; rU -= Gk * Lg[k]; rQ -= Gk * kg[k];
        }
        for (int k = 0; k < nc; k++) {
            const double Gn = s->G[(size_t)(nb + 2 * k) * n + i], Gt = s->G[(size_t)(nb + 2 * k + 1) * n + i];
            ra -= Gn * lN[k] + Gt * lF[k];
            rU -= Gn * LN[k] + Gt * LF[k];
            rQ -= Gn * kN[k] + 0.5 * h * Gt * LF[k];
        }
        R[IA + i] = h * ra;
        R[IU + i] = rU;
        R[IQ + i] = rQ / h;
    }
    double qmax = 0.0;
    for (int i = 0; i < n; i++) qmax = fmax(qmax, fabs(s->q[i]));
    const double gfloor = 4.0 * DBL_EPSILON * (1.0 + qmax);   /* a gap within the positions' round-off is 0 */
    for (int k = 0; k < nb; k++) {
        R[IKG + k] = (fabs(s->g[k]) <= gfloor ? 0.0 : s->g[k]) / h;
        R[ILG + k] = s->gd[k];
        R[ILLG + k] = h * s->gdd[k];
    }
    double res = 0.0;
    for (int i = 0; i < 3 * n + 3 * nb; i++) res = fmax(res, fabs(R[i]));
    return rcb_finite(res) ? res : NAN;
}

double rci_gf_residual_smooth(rci_gf_sys *s) { return smooth_rows(s); }

double rci_gf_residual(rci_gf_sys *s, int *worst)
{
    const int n = s->n, nc = s->nc;
    const double h = s->h;
    const double *lN = s->x + ILLN, *lF = s->x + ILLF;
    double *R = s->R;
    smooth_rows(s);
    double qmax = 0.0;
    for (int i = 0; i < n; i++) qmax = fmax(qmax, fabs(s->q[i]));
    const double gfloor = 4.0 * DBL_EPSILON * (1.0 + qmax);
    for (int k = 0; k < nc; k++) {
        const unsigned char st = s->set[k];
        const double mu = s->mu[k];
        const double gN = fabs(s->gN[k]) <= gfloor ? 0.0 : s->gN[k];
        R[IKN + k] = ((st & RCI_GF_A) ? gN : s->kh[k]) / h;                                   /* (129) */
        if (s->site[k].law) {   /* a law through xi / project: natural maps (gf_law.c) */
            rci_gf_law_rows(s, k, lN[k], lF[k], &R[ILN + k], &R[ILF + k], &R[ILLN + k], &R[ILLF + k]);
            continue;
        }
        R[ILN + k] = (st & RCI_GF_B) ? s->xiN[k] : s->PN[k];                                  /* (132) */
        R[ILLN + k] = h * ((st & RCI_GF_C) ? s->gddN[k] : lN[k]);                             /* (135) */
        if (!(st & RCI_GF_A)) R[ILF + k] = s->PF[k];                                          /* (138) */
        else if (st & RCI_GF_DST) R[ILF + k] = s->xiF[k];
        else R[ILF + k] = s->PF[k] + mu * s->PN[k] * rci_gf_sgn(s->xiF[k]);
        double rl;                                                                            /* (142) */
        if (!(st & RCI_GF_A)) rl = lF[k];
        else if (st & RCI_GF_EST) rl = s->gdF[k];
        else if (st & RCI_GF_DST) rl = lF[k] + mu * lN[k] * rci_gf_sgn(s->gdF[k]);
        else rl = lF[k] + mu * lN[k] * rci_gf_sgn(s->gF[k]);                                         /* slip: the velocity gamma_F */
        R[ILLF + k] = h * rl;
    }
    double res = 0.0;
    *worst = -1;
    for (int i = 0; i < s->N; i++) {
        const double v = fabs(R[i]);
        if (!(v <= res)) { res = v; *worst = i; }
    }
    return res;
}

/* prox of the ball B(rad) in one dimension */
static double clamp(double p, double rad) { return p > rad ? rad : p < -rad ? -rad : p; }

/* the built-in law's update of contact k (notes 003 section 2.8 steps 3-6) */
static void builtin_prox(const rci_gf_sys *s, int k, int A, double *PNo, double *PFo, double *lNo, double *lFo)
{
    const double *lN = s->x + ILLN, *lF = s->x + ILLF;
    const double r = s->rN[k], rf = s->rF[k], mu = s->mu[k];
    const double PN = A ? fmax(s->PN[k] - r * s->xiN[k], 0.0) : 0.0;                 /* (131) */
    const int B = A && r * s->xiN[k] - s->PN[k] <= 0.0;
    const double lNn = B ? fmax(lN[k] - r * s->gddN[k], 0.0) : 0.0;                  /* (134) */
    const double PF = A ? clamp(s->PF[k] - rf * s->xiF[k], mu * PN) : 0.0;           /* (137), the new P_N's radius */
    double lFn = 0.0;                                                                 /* (140) */
    if (A) {
        if (fabs(rf * s->xiF[k] - s->PF[k]) <= mu * PN) lFn = clamp(lF[k] - rf * s->gdF[k], mu * lNn);
        else lFn = -mu * lNn * rci_gf_sgn(s->gF[k]);
    }
    *PNo = PN; *PFo = PF; *lNo = lNn; *lFo = lFn;
}

double rci_gf_prox_update(rci_gf_sys *s)
{
    const double h = s->h, af = s->af, am = s->am, ga = s->gam, be = s->beta;
    double *kN = s->x + IKN, *LN = s->x + ILN, *lN = s->x + ILLN, *LF = s->x + ILF, *lF = s->x + ILLF;
    double change = 0.0;
    for (int k = 0; k < s->nc; k++) {
        const double r = s->rN[k];
        /* the hatted quantities of the current z (dependent(): s->kh, s->PN, s->PF) */
        const double kh = fmax(s->kh[k] - r * s->gN[k], 0.0);                           /* (128) */
        const int A = kh > 0.0 || r * s->gN[k] - s->kh[k] <= 0.0;
        double PN, PF, lNn, lFn;
        if (s->site[k].law) rci_gf_law_prox(s, k, A, &PN, &PF, &lNn, &lFn);   /* through xi / project (gf_law.c) */
        else builtin_prox(s, k, A, &PN, &PF, &lNn, &lFn);
        /* back to the unknowns (95), (102), (113) with lambda-bar of the new lambdas (96), (114) */
        const double lbN = (af * s->lNn[k] + (1.0 - af) * lNn - am * s->lbNn[k]) / (1.0 - am);
        const double lbF = (af * s->lFn[k] + (1.0 - af) * lFn - am * s->lbFn[k]) / (1.0 - am);
        const double nLN = PN - h * ((1.0 - ga) * s->lbNn[k] + ga * lbN);
        const double nkN = kh - 0.5 * h * h * ((1.0 - 2.0 * be) * s->lbNn[k] + 2.0 * be * lbN);
        const double nLF = PF - h * ((1.0 - ga) * s->lbFn[k] + ga * lbF);
        change = fmax(change, fmax(fmax(fabs(nLN - LN[k]), fabs(nkN - kN[k]) / h),
                                   fmax(fmax(fabs(nLF - LF[k]), h * fabs(lNn - lN[k])), h * fabs(lFn - lF[k]))));
        kN[k] = nkN; LN[k] = nLN; lN[k] = lNn; LF[k] = nLF; lF[k] = lFn;
    }
    return change;
}
