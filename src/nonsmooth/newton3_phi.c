/* newton3_phi.c -- the equations of the 3D semismooth Newton solver
 * (newton3.c) and their generalized Jacobian (docs/theory/newton-solver.md,
 * "Spatial contacts").
 *
 * A contact of nr rows (N, then nf = nr - 1 friction rows: T1, T2, and the
 * drilling row D of a Coulomb--Contensou contact, contensou.c), u its local
 * velocity with the law's shift (eq. 96 / 101), the Alart--Curnier
 * equations (Alart & Curnier 1991, eq. 3.14; Siconos' fc3d_AlartCurnier;
 * Acary, Brémond & Huber 2018, sec. 3.3):
 *     Phi_N = p_N - max(0, p_N - rho_N u_N)                       (Alart--Curnier)
 *        or  p_N + rho_N u_N - sqrt(p_N^2 + (rho_N u_N)^2)         (Fischer--Burmeister)
 *     Phi_F = p_F - proj_B(s)(p_F - rho_F u_F),  s = mu max(0, p_N - rho_N u_N),
 * B(s) the Euclidean ball of radius s in R^nf. Phi = 0 is Signorini's
 * condition and Coulomb's law (Coulomb--Contensou's with the drilling row),
 * i.e. De Saxce's K ∋ p ⊥ u~ ∈ K* that NSGS solves (Acary & Collins-Craft
 * 2024, eq. 17): 0 <= p_N ⊥ u_N >= 0 from the N row; p_F in B(mu p_N) and
 * -rho_F u_F in N_B(p_F) from the friction rows. rho_F is one number for the
 * nf rows: with a different rho per row -R u_F in the normal cone would no
 * longer say that u_F is (the slip opposite the friction force). The
 * generalized Jacobian (one element of Clarke's: at a kink one side is
 * taken), z = p_F - rho_F u_F, zh = z / |z|, P = I - zh zh^T:
 *     stick (|z| <= s):  dPhi_F/dp = 0,                 dPhi_F/du_F = rho_F I;
 *     slide (|z| > s):   dPhi_F/dp_F = I - (s/|z|) P,    dPhi_F/du_F = rho_F (s/|z|) P,
 *                        and if p_N - rho_N u_N > 0:
 *                        dPhi_F/dp_N = -mu zh,          dPhi_F/du_N = mu rho_N zh.
 */
#include "nonsmooth/newton3_impl.h"

#include <math.h>

/* the N row: Alart--Curnier or Fischer--Burmeister, with dPhi_N/dp_N and
 * dPhi_N/du_N */
static double phi_normal(int fb, double rho, double p, double u, double *a, double *b)
{
    if (fb) {   /* phi(a, b) = a + b - |(a, b)|, a = p_N, b = rho_N u_N */
        const double y = rho * u, r = sqrt(p * p + y * y);
        *a = r > 0.0 ? 1.0 - p / r : 1.0 - 0.70710678118654752440;
        *b = rho * (r > 0.0 ? 1.0 - y / r : 1.0 - 0.70710678118654752440);
        return p + y - r;
    }
    if (p - rho * u > 0.0) { *a = 0.0; *b = rho; return rho * u; }
    *a = 1.0;
    *b = 0.0;
    return p;
}

void rcn_newton3_phi_contact(int fb, double mu, int nr, const double *rho, const double *p, const double *u, double *f,
                        double *A, double *B)
{
    const int nf = nr - 1;
    double aN, bN;
    if (A)
        for (int i = 0; i < nr * nr; i++) A[i] = B[i] = 0.0;
    f[0] = phi_normal(fb, rho[0], p[0], u[0], &aN, &bN);
    if (A) { A[0] = aN; B[0] = bN; }
    const double zn = p[0] - rho[0] * u[0], rf = rho[1], s = zn > 0.0 ? mu * zn : 0.0;
    double z[3], z2 = 0.0;
    for (int i = 0; i < nf; i++) {
        z[i] = p[1 + i] - rf * u[1 + i];
        z2 += z[i] * z[i];
    }
    const double zl = sqrt(z2);
    if (zl <= s) {   /* stick: the projection is the identity */
        for (int i = 0; i < nf; i++) {
            f[1 + i] = rf * u[1 + i];
            if (A) B[(1 + i) * nr + 1 + i] = rf;
        }
        return;
    }
    for (int i = 0; i < nf; i++) { z[i] /= zl; f[1 + i] = p[1 + i] - s * z[i]; }   /* slide: |z| > s >= 0 */
    if (!A) return;
    const double k = s / zl;
    for (int i = 0; i < nf; i++) {
        for (int j = 0; j < nf; j++) {
            const double P = (i == j ? 1.0 : 0.0) - z[i] * z[j];
            A[(1 + i) * nr + 1 + j] = (i == j ? 1.0 : 0.0) - k * P;
            B[(1 + i) * nr + 1 + j] = k * rf * P;
        }
        if (zn > 0.0) {
            A[(1 + i) * nr] = -mu * z[i];
            B[(1 + i) * nr] = mu * rho[0] * z[i];
        }
    }
}

void rcn_newton3_phi(n3_sys *s, const double *x, const double *u, double *f, int jac)
{
    const rc_world *w = s->w;
    const int fb = s->opt->formulation == RC_NEWTON_FISCHER_BURMEISTER;
    for (int k = 0; k < s->m; k++) {
        const rcm_contact3 *c = &w->c3->c[s->ci[k]];
        const int i = s->off[k];
        rcn_newton3_phi_contact(fb, w->laws[c->law].def.mu, n3_rows(s, k), s->rho + i, x + i, u + i, f + i,
                    jac ? s->A + RCN3_BLOCK * k : NULL, s->B + RCN3_BLOCK * k);
    }
    for (int i = s->off[s->m]; i < s->n; i++) f[i] = s->rho[i] * u[i];
}

void rcn_newton3_scalings(n3_sys *s)
{
    const rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const int nr = n3_rows(s, k), i = s->off[k];
        const double *Wk = nr == 4 ? w->c3->d[s->ci[k]].W4 : w->c3->c[s->ci[k]].W;
        double tr = 0.0;
        for (int r = 1; r < nr; r++) tr += Wk[r * nr + r];
        s->rho[i] = Wk[0] > 0.0 ? 1.0 / Wk[0] : 1.0;
        for (int r = 1; r < nr; r++) s->rho[i + r] = tr > 0.0 ? (nr - 1) / tr : 1.0;
    }
    int r = s->off[s->m];
    for (int i = 0; i < rcn_joints3_count(w); i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        for (int q = 0; q < j->rows; q++, r++) {
            double wqq = 0.0;
            for (int c = 0; c < 6; c++) wqq += j->Hb[q][c] * j->MHb[q][c] + (j->body_a >= 0 ? j->Ha[q][c] * j->MHa[q][c] : 0.0);
            s->rho[r] = wqq > 0.0 ? 1.0 / wqq : 1.0;
        }
    }
}
