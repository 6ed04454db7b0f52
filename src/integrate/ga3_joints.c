/* ga3_joints.c -- the joints of spatial bodies in the frictional
 * generalized-alpha step (ga3_friction.h; docs/theory/gen-alpha.md, "Spatial
 * joints"), as the planar variant takes its joints (gf_residual.c): each row
 * g(q, t) = 0 (model/joint3.c, joint3_drive.c) holds at three levels with its
 * own multiplier, Capobianco et al. 2021 eqs. (127) with the bilateral rows
 * of the GGL-type stabilisation (section 9):
 *     M a = h + G^T lambda_g + ...,   g-ddot = G a + d/dt(G u + g_t) = 0,
 *     M U = G^T Lambda_g + ...,       g-dot  = G u + g_t             = 0,
 *     M Q = G^T kappa_g + ...,        g(q_{i+1}, t_{i+1})            = 0,
 * so that the positions, the velocities and the accelerations all satisfy
 * the joint at t_{i+1} (|g| at the Newton tolerance times h, no drift).
 * The unknowns kappa_g, Lambda_g, lambda_g (nb each) follow a, U, Q in x,
 * the rows G (dense over the world's velocities, body-frame Omega) come
 * first in s->G, the residual's rows are g / h, g-dot, h g-ddot (the
 * planar scaling). The step's start: the consistent acceleration of the
 * joints, G a_0 = -d/dt(G u + g_t) at (q_0, u_0, t_0). */
#include "integrate/ga3_friction.h"
#include "linalg/linalg.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const double drift_eps = 1e-6;   /* as ga3_contact.c */

int rci_ga3j_count(const rc_world *w)
{
    int nb = 0;
    for (int i = 0; w->j3 && i < w->j3->n; i++) nb += w->j3->j[i].rows;
    return nb;
}

/* the joints' rows at the positions X (7 per body) and time t: G (nb rows of
 * nv), g and dg/dt (either may be NULL) */
static rc_status dense_rows(const rc_world *w, const double *X, double t, double *G, double *g, double *gt)
{
    const int nv = w->nv;
    int row = 0;
    for (int i = 0; w->j3 && i < w->j3->n; i++) {
        const rcm_joint3 *j = &w->j3->j[i];
        double Ha[RCM_J3_MAXROWS][6], Hb[RCM_J3_MAXROWS][6], gg[RCM_J3_MAXROWS], tt[RCM_J3_MAXROWS];
        RC_CHECK(rcm_joint3_eval_q(w, j, X, t, Ha, Hb, gg, tt));
        const int ob = w->bodies[j->body_b].iv, oa = j->body_a >= 0 ? w->bodies[j->body_a].iv : -1;
        for (int r = 0; r < j->rows; r++, row++) {
            double *Gr = G + (size_t)row * nv;
            memset(Gr, 0, (size_t)nv * sizeof(double));
            for (int c = 0; c < 6; c++) {
                Gr[ob + c] += Hb[r][c];
                if (oa >= 0) Gr[oa + c] += Ha[r][c];
            }
            if (g) g[row] = gg[r];
            if (gt) gt[row] = tt[r];
        }
    }
    return RC_OK;
}

rc_status rci_ga3j_rows(rci_ga3f *s, const double *X, double *G, int frames)
{
    return dense_rows(s->w, X, s->tj, G, frames ? s->gj : NULL, frames ? s->gtj : s->gt2);
}

void rci_ga3j_eval(rci_ga3f *s)
{
    const int nv = s->nv;
    for (int k = 0; k < s->nb; k++) {
        const double *Gk = s->G + (size_t)k * nv;
        double gd = s->gtj[k], gdd = s->dc[k];
        for (int i = 0; i < nv; i++) { gd += Gk[i] * s->u[i]; gdd += Gk[i] * s->x[i]; }
        s->gdj[k] = gd;     /* g-dot at (q, u, t_{i+1}) */
        s->gddj[k] = gdd;   /* g-ddot with a */
    }
}

void rci_ga3j_smooth(const rci_ga3f *s, double *Ra, double *RU, double *RQ)
{
    const int nv = s->nv, nb = s->nb;
    const double *kg = s->x + 3 * nv, *Lg = kg + nb, *lg = Lg + nb;
    for (int k = 0; k < nb; k++) {
        const double *Gk = s->G + (size_t)k * nv;
        for (int i = 0; i < nv; i++) {
            if (Gk[i] == 0.0) continue;
            Ra[i] -= Gk[i] * lg[k];
            RU[i] -= Gk[i] * Lg[k];
            RQ[i] -= Gk[i] * kg[k];
        }
    }
}

void rci_ga3j_residual(rci_ga3f *s)
{
    const int nv = s->nv, nb = s->nb;
    double qmax = 0.0;
    for (int i = 0; i < s->nq; i++) qmax = fmax(qmax, fabs(s->q[i]));
    const double gfloor = 4.0 * DBL_EPSILON * (1.0 + qmax);   /* a violation within the positions' round-off is 0 */
    double *R = s->R + 3 * nv;
    for (int k = 0; k < nb; k++) {
        R[k] = (fabs(s->gj[k]) <= gfloor ? 0.0 : s->gj[k]) / s->h;
        R[nb + k] = s->gdj[k];
        R[2 * nb + k] = s->h * s->gddj[k];
    }
}

/* the impulses Lambda_g + h lambda_g, the joints' work at u_vm (the
 * percussions' work at (u_i + u_{i+1}) / 2), |g| and |g-dot| at the end */
void rci_ga3j_finish(rci_ga3f *s, const double *vm, rci_audit *a)
{
    rc_world *w = s->w;
    const int nv = s->nv, nb = s->nb;
    const double *Lg = s->x + 3 * nv + nb, *lg = Lg + nb;
    int row = 0;
    for (int i = 0; w->j3 && i < w->j3->n; i++) {
        rcm_joint3 *j = &w->j3->j[i];
        j->work = j->viol = 0.0;
        memset(j->lambda, 0, sizeof j->lambda);
        for (int r = 0; r < j->rows; r++, row++) {
            const double *Gk = s->G + (size_t)row * nv;
            double u = 0.0;
            for (int c = 0; c < nv; c++) u += Gk[c] * vm[c];
            j->lambda[r] = Lg[row] + s->h * lg[row];
            j->work += u * j->lambda[r];
            j->viol = fmax(j->viol, fabs(s->gj[row]));
            a->vel_viol = fmax(a->vel_viol, fabs(s->gdj[row]));
        }
        a->W_J += j->work;
        a->pos_viol = fmax(a->pos_viol, j->viol);
    }
}

/* c = d/dt (G u + g_t) at fixed u along (q (+) e u, t + e), central differences */
static rc_status start_drift(rc_world *w, const double *q, const double *u, double t, int nb, double *G2, double *X, double *gt,
                             double *c)
{
    const int nv = w->nv;
    memset(c, 0, (size_t)nb * sizeof(double));
    for (int side = 0; side < 2; side++) {
        const double sg = side ? -1.0 : 1.0;
        rci_ga3f_move(w, q, u, sg * drift_eps, X);
        RC_CHECK(dense_rows(w, X, t + sg * drift_eps, G2, NULL, gt));
        for (int k = 0; k < nb; k++) {
            double d = gt[k];
            for (int i = 0; i < nv; i++) d += G2[(size_t)k * nv + i] * u[i];
            c[k] += sg * d / (2.0 * drift_eps);
        }
    }
    return RC_OK;
}

rc_status rci_ga3j_start(rc_world *w, double t, const double *q, const double *u, double *a0)
{
    const int nb = rci_ga3j_count(w), nv = w->nv;
    if (!nb) return RC_OK;
    double *p;
    int *ipiv, singular;
    const long long n2 = (long long)nb * nb;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&p, 2LL * nb * nv + w->nq + 3LL * nb + n2, sizeof(double), "gen-alpha 3D joints' start"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&ipiv, nb, sizeof(int), "gen-alpha 3D joints' pivots"));
    double *G = p, *G2 = G + (size_t)nb * nv, *X = G2 + (size_t)nb * nv, *gt = X + w->nq, *c = gt + nb, *l = c + nb, *W = l + nb;
    RC_CHECK(dense_rows(w, q, t, G, NULL, gt));
    RC_CHECK(start_drift(w, q, u, t, nb, G2, X, gt, c));
    /* a0 = a_free + M^-1 G^T l with (G M^-1 G^T) l = -(c + G a_free) */
    const double *md = w->mass_diag;
    for (int r = 0; r < nb; r++) {
        const double *Gr = G + (size_t)r * nv;
        double s = c[r];
        for (int i = 0; i < nv; i++) s += Gr[i] * a0[i];
        l[r] = -s;
        for (int k = 0; k < nb; k++) {
            const double *Gk = G + (size_t)k * nv;
            double d = 0.0;
            for (int i = 0; i < nv; i++) d += Gr[i] * Gk[i] / md[i];
            W[(size_t)k * nb + r] = d;   /* column-major (symmetric) */
        }
    }
    RC_CHECK(rcl_lu_solve(nb, W, ipiv, l, &singular));
    if (singular)
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: the spatial joints' rows are dependent at t = %.17g (a redundant joint?): "
                            "no consistent start", t);
    for (int k = 0; k < nb; k++) {
        const double *Gk = G + (size_t)k * nv;
        for (int i = 0; i < nv; i++) a0[i] += Gk[i] * l[k] / md[i];
    }
    return RC_OK;
}
