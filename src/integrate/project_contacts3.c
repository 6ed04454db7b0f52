/* project_contacts3.c -- the option project_contacts in a dim = 3 world: the
 * position projection of project_contacts.c (Acary 2013's combined
 * projection, after the velocity step; not part of the papers' schemes) on
 * the 3D contacts of spatial rigid bodies:
 *
 *     q_{k+1} <- q_{k+1} + M^-1 H_N^T nu,   0 <= g_N(q_{k+1}) _|_ nu >= 0,
 *
 * with the gaps linearised at q_k along the contact's normal row
 * (H_N = the row of u_N: world translation, body-frame rotation),
 * g_N(q_{k+1}) ~ g_N(q_k) + h H_N v_{k+theta} + H_N dq, and M^-1 =
 * diag(1/m, 1/m, 1/m, 1/J1, 1/J2, 1/J3) of each spatial body: the correction
 * dq moves the centre by dq[0..2] and turns the body by the body-frame
 * rotation vector dq[3..5] (q <- q exp(dq[3..5] / 2), as the step's update).
 * Projected Gauss--Seidel over every detected 3D contact (a correction must
 * not push a body into a neighbour), nu_i <- max(0, nu_i - g_i / W_i), from
 * nu = 0 (no warm start across steps in 3D), until every -g_i <= tol and
 * |g_i| <= tol where nu_i > 0, or project_max_iter sweeps. Velocities are not
 * changed; E_pot's change is booked in W_proj (the kinetic energy of
 * spatial bodies, in body-frame velocities, does not depend on q). */
#include "integrate/integrate.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

/* M^-1 of a side (NULL: the ground, which does not move) */
static inline const double *side_minv(const rc_world *w, int b, double *minv)
{
    if (b < 0) return NULL;
    const rc_body *bd = &w->bodies[b];
    if (bd->kind != RC_BODY_RIGID3D) return NULL;
    const double *md = w->mass_diag + bd->iv;
    for (int j = 0; j < 6; j++) minv[j] = 1.0 / md[j];
    return minv;
}

static inline double row_dot(const rc_world *w, int b, const double *H, const double *dq)
{
    if (b < 0) return 0.0;
    const double *x = dq + w->bodies[b].iv;
    double s = 0.0;
    for (int j = 0; j < 6; j++) s += H[j] * x[j];
    return s;
}

/* Per contact, formed once per step (the sweeps read only these): the
 * normal rows of its sides, Hb_N and Ha_N, and M^-1 H_N^T of each moving
 * side (zero for the ground or a side that does not move), 24 doubles. */
enum { NROW = 24 };
static void normal_rows(const rc_world *w, const rcm_contact3 *c, double *r)
{
    double minv[6], Ha[3][6], Hb[3][6];
    rcm_contact3_rows(c, 0, Ha);
    rcm_contact3_rows(c, 1, Hb);
    memcpy(r, Hb[0], 6 * sizeof(double));
    memcpy(r + 6, Ha[0], 6 * sizeof(double));
    const int mb = side_minv(w, c->body_b, minv) != NULL;
    for (int j = 0; j < 6; j++) r[12 + j] = mb ? minv[j] * Hb[0][j] : 0.0;
    const int ma = side_minv(w, c->body_a, minv) != NULL;
    for (int j = 0; j < 6; j++) r[18 + j] = ma ? minv[j] * Ha[0][j] : 0.0;
}

static inline double normal_dot(const rc_world *w, const rcm_contact3 *c, const double *r, const double *dq)
{
    return row_dot(w, c->body_b, r, dq) + row_dot(w, c->body_a, r + 6, dq);
}

/* dq += M^-1 H_N^T d */
static inline void normal_apply(const rc_world *w, const rcm_contact3 *c, const double *r, double *dq, double d)
{
    if (c->body_b >= 0 && w->bodies[c->body_b].kind == RC_BODY_RIGID3D) {
        double *x = dq + w->bodies[c->body_b].iv;
        for (int j = 0; j < 6; j++) x[j] += r[12 + j] * d;
    }
    if (c->body_a >= 0 && w->bodies[c->body_a].kind == RC_BODY_RIGID3D) {
        double *x = dq + w->bodies[c->body_a].iv;
        for (int j = 0; j < 6; j++) x[j] += r[18 + j] * d;
    }
}

static double inverse_w(const rc_world *w, const rcm_contact3 *c)
{
    double minv[6], W = 0.0, Ha[3][6], Hb[3][6];
    rcm_contact3_rows(c, 0, Ha);
    rcm_contact3_rows(c, 1, Hb);
    if (side_minv(w, c->body_b, minv))
        for (int j = 0; j < 6; j++) W += minv[j] * Hb[0][j] * Hb[0][j];
    if (side_minv(w, c->body_a, minv))
        for (int j = 0; j < 6; j++) W += minv[j] * Ha[0][j] * Ha[0][j];
    return W > 0.0 ? 1.0 / W : 0.0;
}

/* projected Gauss--Seidel; the sweeps done, *viol the last sweep's largest violation */
static int sweeps(const rc_world *w, const double *g, const double *winv, const double *rows, double *nu, double *dq,
                  double *viol)
{
    const rcm_c3 *c3 = w->c3;
    int it = 0;
    *viol = 0.0;
    while (it < w->sim.project_max_iter) {
        double worst = 0.0;
        it++;
        for (int i = 0; i < c3->n; i++) {
            if (winv[i] == 0.0) continue;
            const double *r = rows + (size_t)NROW * (size_t)i;
            const double gi = g[i] + normal_dot(w, &c3->c[i], r, dq);
            const double v = nu[i] > 0.0 ? fabs(gi) : -gi;
            if (v > worst) worst = v;
            const double nn = fmax(0.0, nu[i] - gi * winv[i]), d = nn - nu[i];
            if (d != 0.0) {
                normal_apply(w, &c3->c[i], r, dq, d);
                nu[i] = nn;
            }
        }
        *viol = worst;
        if (worst <= w->sim.project_tol) break;
    }
    return it;
}

rc_status rci_project_contacts3(rci_step *st, rci_audit *a)
{
    rc_world *w = st->w;
    const rcm_c3 *c3 = w->c3;
    const int n = c3->n;
    double *g, *winv, *nu, *dq, *rows;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&rows, (long long)NROW * (n > 0 ? n : 1), sizeof(double), "contact projection"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&g, n, sizeof(double), "contact projection"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&winv, n, sizeof(double), "contact projection"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&nu, n, sizeof(double), "contact projection"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&dq, w->nv, sizeof(double), "contact projection"));
    if (w->nv > 0) memset(dq, 0, (size_t)w->nv * sizeof(double));
    double worst = 0.0;
    for (int i = 0; i < n; i++) {   /* the linearised gaps at q_k + h v_{k+theta} (w->V) */
        const rcm_contact3 *c = &c3->c[i];
        winv[i] = inverse_w(w, c);
        nu[i] = 0.0;
        if (winv[i] == 0.0) continue;
        double *r = rows + (size_t)NROW * (size_t)i;
        normal_rows(w, c, r);
        g[i] = c->gN + st->h * normal_dot(w, c, r, w->V);
        if (-g[i] > worst) worst = -g[i];
    }
    a->cproj_overlap = worst;
    double viol = 0.0;
    a->cproj_sweeps = n && worst > w->sim.project_tol ? sweeps(w, g, winv, rows, nu, dq, &viol) : 0;
    a->cproj_capped = a->cproj_sweeps && viol > w->sim.project_tol;
    if (a->cproj_sweeps == 0) return RC_OK;
    for (int k = 0; k < w->nrigid3d; k++) {
        const rc_body *bd = &w->bodies[w->rigid3d[k].body];
        double *q = w->q + bd->iq;
        const double *d = dq + bd->iv;
        for (int j = 0; j < 3; j++) q[j] += d[j];
        if (d[3] != 0.0 || d[4] != 0.0 || d[5] != 0.0) rcb_quat_step(q + 3, d + 3);
    }
    rci_project_contacts_book(st, a);   /* E_pot's change in W_proj (project_contacts.c) */
    return RC_OK;
}
