/* ga3_contact.c -- the contacts of the frictional generalized-alpha step on
 * spatial rigid bodies at an iterate (ga3_friction.h): the step's set
 * detected at q_i within a margin that covers the step's motion, found again
 * by key at every iterate's positions (the narrow phase at X: gaps, frames,
 * rows), the rows as dense rows of the world's velocities, N, T1, T2 and the
 * Coulomb--Contensou drilling row s n.(Omega_b - Omega_a) (eq. 157, s = 3 pi
 * R / 16, Omega in the body frame), after the joints' rows (ga3_joints.c),
 * and the accelerations' velocity terms d/dt (G u + g_t) at fixed u by
 * central differences along (q' = B(q) u, t). */
#include "integrate/ga3_friction.h"
#include "base/rot3.h"
#include "collide/geom3d.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double drift_eps = 1e-6;

void rci_ga3f_move(const rc_world *w, const double *q, const double *u, double e, double *X)
{
    memcpy(X, q, (size_t)w->nq * sizeof(double));
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        double *x = X + bd->iq;
        const double *v = u + bd->iv;
        for (int j = 0; j < 3; j++) x[j] += e * v[j];
        const double phi[3] = { e * v[3], e * v[4], e * v[5] };
        rcb_quat_step(x + 3, phi);
    }
}

rc_status rci_ga3f_contacts(rci_ga3f *s)
{
    rc_world *w = s->w;
    rcm_c3 *c3 = w->c3;
    const int nc = c3 ? c3->n : 0;
    s->nc = nc;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&s->cs, nc > 0 ? nc : 1, sizeof(rcm_contact3), "gen-alpha 3D contacts"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&s->off, 3LL * (nc > 0 ? nc : 1), sizeof(int), "gen-alpha 3D offsets"));
    s->nf = s->off + nc;
    s->gr = s->nf + nc;
    s->nb = rci_ga3j_count(w);   /* the joints' rows first (ga3_joints.c) */
    s->tj = s->t1;
    int o = 3 * s->nv + 3 * s->nb, r = s->nb;
    for (int k = 0; k < nc; k++) {
        s->cs[k] = c3->c[k];
        const rc_law *law = &w->laws[s->cs[k].law];
        if (law->def.type == RC_LAW_CUSTOM) {
            const char *name = law->name ? law->name : "(unnamed)";
            return rc_set_error(RC_ERR_ARG, "gen-alpha on spatial bodies takes the built-in laws only: law '%s' is a custom law "
                                "(contact between shapes %d and %d); use moreau-jean", name, s->cs[k].shape_a, s->cs[k].shape_b);
        }
        s->nf[k] = law->def.radius > 0.0 ? 3 : 2;
        s->off[k] = o;
        s->gr[k] = r;
        o += 3 + 2 * s->nf[k];
        r += 1 + s->nf[k];
    }
    s->N = o;
    s->nrows = r;
    return RC_OK;
}

/* a contact's rows (N, T1, T2[, D]) at its current frame, dense over nv */
static void contact_rows(const rci_ga3f *s, const rcm_contact3 *c, int nf, double scale, double *G)
{
    const rc_world *w = s->w;
    const int nv = s->nv;
    memset(G, 0, (size_t)(1 + nf) * nv * sizeof(double));
    const int ob = w->bodies[c->body_b].iv, oa = c->body_a >= 0 ? w->bodies[c->body_a].iv : -1;
    const double *dirs[3] = { c->n, c->t1, c->t2 };
    for (int side = 0; side < 2; side++) {   /* u = Ha va + Hb vb: Hb = J(q_b, pb - x_b, d), Ha = -J(q_a, pa - x_a, d) */
        const int body = side ? c->body_a : c->body_b, o = side ? oa : ob;
        if (body < 0) continue;
        const double *q = w->q + w->bodies[body].iq, *pt = side ? c->pa : c->pb;
        const double r[3] = { pt[0] - q[0], pt[1] - q[1], pt[2] - q[2] };
        for (int k = 0; k < 3 && k <= nf; k++) {   /* (nf = 0: the normal row only) */
            double row[6];
            rcc_jacobian3d(q + 3, r, dirs[k], row);
            for (int j = 0; j < 6; j++) G[(size_t)k * nv + o + j] += side ? -row[j] : row[j];
        }
    }
    if (nf < 3) return;
    double nb[3];
    double *D = G + 3LL * nv;
    rcb_quat_rotate_inv(nb, w->q + w->bodies[c->body_b].iq + 3, c->n);
    for (int j = 0; j < 3; j++) D[ob + 3 + j] += scale * nb[j];
    if (oa >= 0) {
        rcb_quat_rotate_inv(nb, w->q + w->bodies[c->body_a].iq + 3, c->n);
        for (int j = 0; j < 3; j++) D[oa + 3 + j] -= scale * nb[j];
    }
}

static const rcm_contact3 *find(const rcm_c3 *c3, uint64_t key)
{
    for (int i = 0; i < c3->n; i++)
        if (c3->c[i].key == key) return &c3->c[i];
    return NULL;
}

rc_status rci_ga3f_rows(rci_ga3f *s, const double *X, double *G, double *gap, int frames)
{
    rc_world *w = s->w;
    rcm_c3 *c3 = w->c3;
    if (s->nb) RC_CHECK(rci_ga3j_rows(s, X, G, frames));   /* the joints' rows first (ga3_joints.c) */
    if (!s->nc) return RC_OK;
    memcpy(w->q, X, (size_t)s->nq * sizeof(double));
    const int next_id = c3->next_id;
    RC_CHECK(rcc_detect3(w, s->margin));
    c3->next_id = next_id;   /* an iterate's new contacts take no ids */
    for (int k = 0; k < s->nc; k++) {
        rcm_contact3 tmp, *c = frames ? &s->cs[k] : &tmp;
        if (!frames) tmp = s->cs[k];
        const rcm_contact3 *d = find(c3, c->key);
        if (d) {   /* the new frame and gap; id, law, warm start stay the step's */
            memcpy(c->pa, d->pa, sizeof c->pa); memcpy(c->pb, d->pb, sizeof c->pb);
            memcpy(c->n, d->n, sizeof c->n); memcpy(c->t1, d->t1, sizeof c->t1); memcpy(c->t2, d->t2, sizeof c->t2);
            c->gN = d->gN;
        } else c->gN = s->margin;   /* out of the margin: apart, the last frame kept */
        if (gap) gap[k] = c->gN;
        const double scale = s->nf[k] == 3 ? 3.0 * M_PI * w->laws[c->law].def.radius / 16.0 : 0.0;   /* eq. (157) */
        contact_rows(s, c, s->nf[k], scale, G + (size_t)s->gr[k] * s->nv);
    }
    c3->n = 0;   /* the step's contacts are s->cs until the step ends */
    return RC_OK;
}

rc_status rci_ga3f_drift(rci_ga3f *s, double *c)
{
    const int nv = s->nv, m = s->nrows;
    for (int k = 0; k < m; k++) c[k] = 0.0;
    for (int side = 0; side < 2; side++) {
        const double sg = side ? -1.0 : 1.0;
        rci_ga3f_move(s->w, s->q, s->u, sg * drift_eps, s->X);
        s->tj = s->t1 + sg * drift_eps;   /* the joints' rows along (q (+) e u, t + e) */
        rc_status st = rci_ga3f_rows(s, s->X, s->G2, NULL, 0);
        s->tj = s->t1;
        RC_CHECK(st);
        for (int k = 0; k < m; k++) {
            const double *Gk = s->G2 + (size_t)k * nv;
            double d = k < s->nb ? s->gt2[k] : 0.0;
            for (int i = 0; i < nv; i++) d += Gk[i] * s->u[i];
            c[k] += sg * d / (2.0 * drift_eps);
        }
    }
    return RC_OK;
}
