/* contacts3_drill.c -- the drilling row of the 3D contacts whose law is
 * Coulomb--Contensou (law radius R > 0; Capobianco et al. 2021 eq. 157;
 * docs/theory/spatial.md, "Coulomb--Contensou friction"), beside the
 * contact's (N, T1, T2) rows of contacts3.c:
 *   row      u_D = s n.(omega_b - omega_a), s = 3 pi R / 16: per side
 *            (0, s R^T n) on (v, Omega) with Omega in the body frame
 *            (rigid3d.c), sign -1 for A;
 *   problem  W4 = H kappa Mhat^-1 H^T (4x4, its (N, T1, T2) block the
 *            contact's W), the law's shift on D as on a tangent;
 *   audit    the drilling work u_D,k+theta p_D enters W_T (eq. 68).
 * The rows live in rcm_c3.d (model/contact3.h), so that plain contacts keep
 * their layout and their path through the solver. */
#include "integrate/integrate.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

rc_status rci_drill_begin(rci_step *st)
{
    rc_world *w = st->w;
    rcm_c3 *c3 = w->c3;
    int any = 0;
    c3->ndrill = 0;
    for (int i = 0; i < c3->n && !any; i++) any = w->laws[c3->c[i].law].def.radius > 0.0;
    if (!any && !c3->d) return RC_OK;
    RC_CHECK(rcb_reserve((void **)&c3->d, &c3->cap_d, c3->n > 0 ? c3->n : 1, sizeof(rcm_drill3)));
    for (int i = 0; i < c3->n; i++) c3->d[i].on = 0;
    return RC_OK;
}

/* the drilling row of one side and kappa Mhat^-1 of it */
static rc_status side_row(rc_world *w, int body, const double *n, double scale, double kappa, double h[6], double mh[6])
{
    const rc_body *bd = &w->bodies[body];
    const double *q = w->q + bd->iq;
    h[0] = h[1] = h[2] = 0.0;
    rcb_quat_rotate_inv(h + 3, q + 3, n);
    for (int j = 3; j < 6; j++) h[j] *= scale;
    memcpy(mh, h, 6 * sizeof(double));
    RC_CHECK(rcm_body_ops_of(bd)->solve_mass(w, bd, mh, 1));
    for (int j = 0; j < 6; j++) mh[j] *= kappa;
    return RC_OK;
}

static double dot6(const double *a, const double *b)
{
    double s = 0.0;
    for (int j = 0; j < 6; j++) s += a[j] * b[j];
    return s;
}

/* W4: the contact's 3x3 block and the drilling row and column */
static void delassus4(const rc_world *w, const rcm_contact3 *c, rcm_drill3 *d)
{
    double Ha[3][6], Hb[3][6], MHa[3][6], MHb[3][6];   /* not stored (model/contact3.h) */
    rcm_contact3_rows(c, 1, Hb);
    rcn_contact3_mh(w, c->body_b, Hb, w->c3->kappa, MHb);
    if (c->body_a >= 0) {
        rcm_contact3_rows(c, 0, Ha);
        rcn_contact3_mh(w, c->body_a, Ha, w->c3->kappa, MHa);
    }
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) d->W4[4 * r + k] = c->W[3 * r + k];
    for (int k = 0; k < 3; k++) {
        double row = dot6(d->hb, MHb[k]), col = dot6(Hb[k], d->mhb);
        if (c->body_a >= 0) { row += dot6(d->ha, MHa[k]); col += dot6(Ha[k], d->mha); }
        d->W4[12 + k] = row;
        d->W4[4 * k + 3] = col;
    }
    d->W4[15] = dot6(d->hb, d->mhb) + (c->body_a >= 0 ? dot6(d->ha, d->mha) : 0.0);
}

/* s n.(omega_b - omega_a) at V, without the shift */
static double drill_u(const rc_world *w, const rcm_contact3 *c, const rcm_drill3 *d, const double *V)
{
    double u = dot6(d->hb, V + w->bodies[c->body_b].iv);
    if (c->body_a >= 0) u += dot6(d->ha, V + w->bodies[c->body_a].iv);
    return u;
}

rc_status rci_drill_assemble(rci_step *st, int i, double *b2)
{
    rc_world *w = st->w;
    rcm_c3 *c3 = w->c3;
    rcm_contact3 *c = &c3->c[i];
    rcm_drill3 *d = &c3->d[i];
    const rc_law *law = &w->laws[c->law];
    const double scale = 3.0 * M_PI * law->def.radius / 16.0;   /* eq. (157) */
    d->key = c->key;
    d->on = 1;
    c3->ndrill++;
    RC_CHECK(side_row(w, c->body_b, c->n, scale, st->kappa, d->hb, d->mhb));
    if (c->body_a >= 0) RC_CHECK(side_row(w, c->body_a, c->n, -scale, st->kappa, d->ha, d->mha));
    delassus4(w, c, d);
    d->uk = drill_u(w, c, d, st->vk);
    double ul[2] = { c->uk[0], d->uk }, s[2];
    if (st->scheme->preimpact) st->scheme->preimpact(st, law, ul);
    rcm_law_builtin_shift(law, st->scheme->unknown, st->theta, ul, s);
    d->shift = s[1];
    const double u0 = drill_u(w, c, d, w->V) + d->shift;
    *b2 += u0 * u0;
    const rcm_drill3 *o = rcm_c3_find_dprev(c3, c->key);
    double p[4] = { c->p[0], c->p[1], c->p[2], o && w->sim.solver.warm_start ? o->p : 0.0 };
    rcn_disc4_project(law->def.mu, p);
    c->p[0] = p[0]; c->p[1] = p[1]; c->p[2] = p[2]; d->p = p[3];
    return RC_OK;
}

double rci_drill_audit(rc_world *w, const rcm_contact3 *c, rcm_drill3 *d, const double *vth)
{
    d->u = drill_u(w, c, d, w->v);
    return drill_u(w, c, d, vth) * d->p;
}
