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
 * |g_i| <= tol where nu_i > 0, or project_max_iter sweeps (a contact that
 * stays open whatever its sides have moved since its last visit is not
 * visited: stays_open, the same sweeps bit for bit). Velocities are not
 * changed; E_pot's change is booked in W_proj (the kinetic energy of
 * spatial bodies, in body-frame velocities, does not depend on q). */
#include "integrate/integrate.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

/* M^-1 of a side (NULL: the ground, which does not move) from mi, the
 * step's 1 / mass_diag of the spatial bodies (rci_project_contacts3) */
static inline const double *side_minv(const rc_world *w, int b, const double *mi)
{
    if (b < 0) return NULL;
    const rc_body *bd = &w->bodies[b];
    if (bd->kind != RC_BODY_RIGID3D) return NULL;
    return mi + bd->iv;
}

/* Per contact with a moving side, formed once per step (the sweeps read only
 * these, in index order): the normal rows of its sides, Hb_N and Ha_N, and
 * M^-1 H_N^T of each moving side (zero for a side that does not move), the
 * offsets of the sides in dq (-1: the ground), the linearised gap g, 1/W,
 * the multiplier nu; for the skip below the rows' largest entries lb, la
 * and sums |M^-1 H_N^T|_1 mb1, ma1, the gap found at the last visit glast
 * and the odometers then sb, sa. */
typedef struct prow {
    double hb[6], ha[6], mb[6], ma[6];
    double g, winv, nu, glast, sb, sa, lb, la, mb1, ma1;
    int ivb, iva, movb, mova;
} prow;

static inline double row_dot(int iv, const double *H, const double *dq)
{
    if (iv < 0) return 0.0;
    const double *x = dq + iv;
    double s = 0.0;
    for (int j = 0; j < 6; j++) s += H[j] * x[j];
    return s;
}

static inline double normal_dot(const prow *r, const double *dq)
{
    return row_dot(r->ivb, r->hb, dq) + row_dot(r->iva, r->ha, dq);
}

static double amax6(const double *x, int sum)
{
    double m = 0.0;
    for (int j = 0; j < 6; j++) m = sum ? m + fabs(x[j]) : (fabs(x[j]) > m ? fabs(x[j]) : m);
    return m;
}

/* the row of contact c (r->winv = 0: no side moves, the contact is left out) */
static void normal_row(const rc_world *w, const double *mi, const rcm_contact3 *c, prow *r)
{
    double W = 0.0;
    for (int j = 0; j < 3; j++) {   /* row 0 of rcm_contact3_rows: Hb = (n, Rb), Ha = (-n, Ra) */
        r->hb[j] = c->n[j];
        r->hb[3 + j] = c->Rb[0][j];
        r->ha[j] = -c->n[j];
        r->ha[3 + j] = c->Ra[0][j];
    }
    const double *minv = side_minv(w, c->body_b, mi);
    r->movb = minv != NULL;
    for (int j = 0; j < 6; j++) r->mb[j] = r->movb ? minv[j] * r->hb[j] : 0.0;
    if (r->movb)
        for (int j = 0; j < 6; j++) W += minv[j] * r->hb[j] * r->hb[j];
    minv = side_minv(w, c->body_a, mi);
    r->mova = minv != NULL;
    for (int j = 0; j < 6; j++) r->ma[j] = r->mova ? minv[j] * r->ha[j] : 0.0;
    if (r->mova)
        for (int j = 0; j < 6; j++) W += minv[j] * r->ha[j] * r->ha[j];
    r->winv = W > 0.0 ? 1.0 / W : 0.0;
    r->ivb = c->body_b >= 0 ? w->bodies[c->body_b].iv : -1;
    r->iva = c->body_a >= 0 ? w->bodies[c->body_a].iv : -1;
    r->lb = amax6(r->hb, 0);
    r->la = amax6(r->ha, 0);
    r->mb1 = amax6(r->mb, 1);
    r->ma1 = amax6(r->ma, 1);
    r->nu = r->sb = r->sa = 0.0;
}

/* dq += M^-1 H_N^T d; the sides' odometers (odo[iv] >= the path length
 * |dq|_1 of the body at offset iv has travelled in the sweeps) */
static inline void normal_apply(const prow *r, double *dq, double *odo, double d)
{
    if (r->movb) {
        double *x = dq + r->ivb;
        for (int j = 0; j < 6; j++) x[j] += r->mb[j] * d;
        odo[r->ivb] += r->mb1 * fabs(d);
    }
    if (r->mova) {
        double *x = dq + r->iva;
        for (int j = 0; j < 6; j++) x[j] += r->ma[j] * d;
        odo[r->iva] += r->ma1 * fabs(d);
    }
}

/* Whether a visit of r would leave it as it is: nu = 0 and the gap at the
 * last visit exceeds what its sides' moves since then can close (|H dq|
 * <= max|H_j| |dq|_1), with a margin above the round-off of either gap's
 * sum and of the odometers and dq: (1e-9 + 4.5e-16 nupd) (|g| + the rows'
 * reach), nupd the updates of dq so far (each adds at most 2^-53 |dq_j| to
 * an entry). Then the gap the visit would compute is > 0, nu stays 0 and
 * the sweep's largest violation is not changed: skipping it gives the same
 * sweeps bit for bit (tests/spec/project_contacts3_spec.lua: a contact closed
 * by another's correction). */
static inline int stays_open(const prow *r, const double *odo, double nupd)
{
    if (r->nu != 0.0) return 0;
    const double ob = r->ivb >= 0 ? odo[r->ivb] : 0.0, oa = r->iva >= 0 ? odo[r->iva] : 0.0;
    const double moved = r->lb * (ob - r->sb) + r->la * (oa - r->sa);
    return r->glast - moved > (1e-9 + 4.5e-16 * nupd) * (fabs(r->g) + r->lb * ob + r->la * oa);
}

/* projected Gauss--Seidel; the sweeps done, *viol the last sweep's largest violation */
static int sweeps(const rc_world *w, prow *rows, int m, double *dq, double *odo, double *viol)
{
    int it = 0;
    double nupd = 0.0;
    *viol = 0.0;
    while (it < w->sim.project_max_iter) {
        double worst = 0.0;
        it++;
        for (int k = 0; k < m; k++) {
            prow *r = &rows[k];
            if (stays_open(r, odo, nupd)) continue;
            const double gi = r->g + normal_dot(r, dq);
            r->glast = gi;
            r->sb = r->ivb >= 0 ? odo[r->ivb] : 0.0;
            r->sa = r->iva >= 0 ? odo[r->iva] : 0.0;
            const double v = r->nu > 0.0 ? fabs(gi) : -gi;
            if (v > worst) worst = v;
            const double x = r->nu - gi * r->winv, nn = x > 0.0 ? x : 0.0, d = nn - r->nu;
            if (d != 0.0) {
                normal_apply(r, dq, odo, d);
                r->nu = nn;
                nupd += 1.0;
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
    prow *rows;
    double *dq, *odo, *mi;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&rows, n > 0 ? n : 1, sizeof(prow), "contact projection"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&dq, 3LL * (w->nv > 0 ? w->nv : 1), sizeof(double), "contact projection"));
    odo = dq + w->nv;
    mi = odo + w->nv;
    if (w->nv > 0) memset(dq, 0, 2 * (size_t)w->nv * sizeof(double));
    for (int k = 0; k < w->nrigid3d; k++) {   /* M^-1 of the spatial bodies, once per step */
        const rc_body *bd = &w->bodies[w->rigid3d[k].body];
        for (int j = 0; j < 6; j++) mi[bd->iv + j] = 1.0 / w->mass_diag[bd->iv + j];
    }
    double worst = 0.0;
    int m = 0;
    for (int i = 0; i < n; i++) {   /* the linearised gaps at q_k + h v_{k+theta} (w->V) */
        prow *r = &rows[m];
        normal_row(w, mi, &c3->c[i], r);
        if (r->winv == 0.0) continue;
        r->g = r->glast = c3->c[i].gN + st->h * normal_dot(r, w->V);
        if (-r->g > worst) worst = -r->g;
        m++;
    }
    a->cproj_overlap = worst;
    double viol = 0.0;
    a->cproj_sweeps = n && worst > w->sim.project_tol ? sweeps(w, rows, m, dq, odo, &viol) : 0;
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
