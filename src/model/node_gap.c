/* node_gap.c -- node-to-surface contacts: a node of a linear (finite-
 * element) body against a static segment or the disks and polygons of a
 * planar rigid body. Each is a gap contact (linear.c) whose two rows over the
 * node's coordinates (and three over the rigid body's x, y, angle) are the
 * gradient of g_N at q_k, re-evaluated at every detection: the node's
 * kappa Mhat^-1 e_x, e_y are computed once per factor of Mhat and combined
 * with the step's rows, and the rigid side's kappa M^-1 H^T is diagonal. */
#include "model/model.h"

#include <math.h>
#include <string.h>

typedef struct rcm_node_gap {
    int ix, iy;             /* the node's coordinates in its body          */
    double X[2];            /* undeformed position                          */
    int rigid;              /* -1: the segment a-b                          */
    double a[2], b[2], radius, margin;
    int friction;
    double hr[2][3];        /* the rigid body's rows N, T over (vx, vy, w)  */
    double mhr[2][3];       /* kappa M^-1 of those rows                     */
    double s[2];            /* the closest surface point at the last evaluation */
    double *Z;              /* 2 x nv: kappa Mhat^-1 e_ix, kappa Mhat^-1 e_iy */
    double zkappa;
    int zvalid;             /* Z for g->mh_valid's factor                    */
} rcm_node_gap;

rc_node_contact_def rc_default_node_contact_def(void)
{
    rc_node_contact_def d;
    memset(&d, 0, sizeof d);
    d.rigid = -1;
    d.friction = 1;
    d.margin = HUGE_VAL;
    return d;
}

static const char *label(const char *name) { return name ? name : "(unnamed)"; }

static rc_status check_def(const rc_world *w, const rc_node_contact_def *d)
{
    const char *what = label(d->name);
    if (d->body < 0 || d->body >= w->nbodies || w->bodies[d->body].kind != RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_ARG, "node contact '%s': body %d is not a linear body", what, d->body);
    for (int k = 0; k < 2; k++)
        if (!rcb_finite(d->X[k]) || !rcb_finite(d->a[k]) || !rcb_finite(d->b[k]))
            return rc_set_error(RC_ERR_ARG, "node contact '%s': X, a and b must be finite", what);
    if (!(d->radius >= 0.0) || !rcb_finite(d->radius))
        return rc_set_error(RC_ERR_ARG, "node contact '%s': radius must be >= 0 (got %g)", what, d->radius);
    if (!(d->margin >= 0.0)) return rc_set_error(RC_ERR_ARG, "node contact '%s': margin must be >= 0 (got %g)", what, d->margin);
    if (d->rigid < 0) {
        if (!(hypot(d->b[0] - d->a[0], d->b[1] - d->a[1]) > 0.0))
            return rc_set_error(RC_ERR_ARG, "node contact '%s': the segment's ends a and b coincide", what);
        return RC_OK;
    }
    if (d->rigid >= w->nbodies || w->bodies[d->rigid].kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "node contact '%s': body %d is not a planar rigid body", what, d->rigid);
    for (int i = 0; i < w->nshapes; i++)
        if (w->shapes[i].body == d->rigid && (w->shapes[i].type == RC_SHAPE_DISK || w->shapes[i].type == RC_SHAPE_POLYGON))
            return RC_OK;
    return rc_set_error(RC_ERR_ARG, "node contact '%s': the rigid body %d has no disk or polygon", what, d->rigid);
}

rc_status rc_node_contact_create(rc_world *w, const rc_node_contact_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_node_contact_create: NULL argument");
    RC_CHECK(check_def(w, def));
    const int idx[2] = { def->dofs[0], def->dofs[1] };
    const double nrm[2] = { 0.0, 1.0 }, tng[2] = { 0.0, 0.0 };
    rc_gap_def gd = rc_default_gap_def();
    gd.body = def->body;
    gd.nnz = 2;
    gd.index = idx;
    gd.normal = nrm;
    gd.tangent = tng;
    gd.law = def->law;
    gd.name = def->name;
    rcm_node_gap *n = rcb_malloc(sizeof *n);
    double *Z = rcb_malloc((size_t)2 * w->bodies[def->body].nv * sizeof(double));
    if (!n || !Z) {
        rcb_free(n); rcb_free(Z);
        return rc_set_error(RC_ERR_NOMEM, "out of memory");
    }
    int id;
    rc_status st = rc_gap_create(w, &gd, &id);
    if (st != RC_OK) { rcb_free(n); rcb_free(Z); return st; }
    memset(n, 0, sizeof *n);
    n->ix = def->dofs[0]; n->iy = def->dofs[1];
    memcpy(n->X, def->X, sizeof n->X);
    n->rigid = def->rigid;
    memcpy(n->a, def->a, sizeof n->a);
    memcpy(n->b, def->b, sizeof n->b);
    n->radius = def->radius;
    n->margin = def->margin;
    n->friction = def->friction != 0;
    n->Z = Z;
    w->gaps[id].node = n;
    if (out_id) *out_id = id;
    return RC_OK;
}

void rcm_node_gap_free(rcm_node_gap *n)
{
    if (!n) return;
    rcb_free(n->Z);
    rcb_free(n);
}

double rcm_node_gap_margin(const rc_gap *g) { return g->node->margin; }

size_t rcm_node_gap_memory(const rc_world *w, const rc_gap *g)
{
    return g->node ? sizeof(rcm_node_gap) + (size_t)2 * w->bodies[g->body].nv * sizeof(double) : 0;
}

/* ---------------------------------------------------------------- geometry */

/* The closest point s of segment a-b to p and the unit normal n; returns
 * g_N: inside the ends the signed distance to the line (n its left normal),
 * past them |p - end| (n = (p - end)/|p - end|, the line's normal if p is
 * the end). */
static double seg_gap(const double a[2], const double b[2], const double p[2], double s[2], double n[2])
{
    const double ex = b[0] - a[0], ey = b[1] - a[1], L2 = ex * ex + ey * ey, L = sqrt(L2);
    const double ln[2] = { -ey / L, ex / L };
    const double t = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / L2;
    if (t > 0.0 && t < 1.0) {
        s[0] = a[0] + t * ex; s[1] = a[1] + t * ey;
        n[0] = ln[0]; n[1] = ln[1];
        return ln[0] * (p[0] - a[0]) + ln[1] * (p[1] - a[1]);
    }
    const double *e = t <= 0.0 ? a : b;
    const double dx = p[0] - e[0], dy = p[1] - e[1], d = hypot(dx, dy);
    s[0] = e[0]; s[1] = e[1];
    if (d > 0.0) { n[0] = dx / d; n[1] = dy / d; } else { n[0] = ln[0]; n[1] = ln[1]; }
    return d;
}

/* A convex polygon (world vertices by the body's pose): outside, the
 * nearest edge's segment gap; inside, the least-penetrated edge. */
static double poly_gap(const rc_shape *sh, const double x[3], const double p[2], double s[2], double n[2])
{
    const double c = cos(x[2]), sn = sin(x[2]);
    double best = HUGE_VAL, maxin = -HUGE_VAL, sin_[2] = { 0, 0 }, nin[2] = { 0, 1 };
    int inside = 1;
    for (int i = 0; i < sh->nvert; i++) {
        const double *u = sh->vert[i], *v = sh->vert[(i + 1) % sh->nvert];
        const double A[2] = { x[0] + c * u[0] - sn * u[1], x[1] + sn * u[0] + c * u[1] };
        const double B[2] = { x[0] + c * v[0] - sn * v[1], x[1] + sn * v[0] + c * v[1] };
        double si[2], ni[2];
        /* CCW: the outward normal is the right of A -> B, the left of B -> A */
        const double g = seg_gap(B, A, p, si, ni);
        const double ex = A[0] - B[0], ey = A[1] - B[1], L = hypot(ex, ey);
        const double side = (-ey * (p[0] - B[0]) + ex * (p[1] - B[1])) / L;
        if (side > 0.0) inside = 0;
        if (side > maxin) {
            maxin = side;
            nin[0] = -ey / L; nin[1] = ex / L;
            sin_[0] = p[0] - side * nin[0]; sin_[1] = p[1] - side * nin[1];
        }
        if (side > 0.0 && g < best) { best = g; s[0] = si[0]; s[1] = si[1]; n[0] = ni[0]; n[1] = ni[1]; }
    }
    if (!inside) return best;
    s[0] = sin_[0]; s[1] = sin_[1]; n[0] = nin[0]; n[1] = nin[1];
    return maxin;
}

/* The nearest disk or polygon of the rigid body: g_N, s, n. */
static double rigid_gap(const rc_world *w, int body, const double p[2], double s[2], double n[2])
{
    const double *x = w->q + w->bodies[body].iq;
    const double c = cos(x[2]), sn = sin(x[2]);
    double best = HUGE_VAL;
    for (int i = 0; i < w->nshapes; i++) {
        const rc_shape *sh = &w->shapes[i];
        if (sh->body != body) continue;
        double g, si[2] = { 0.0, 0.0 }, ni[2] = { 0.0, 1.0 };
        if (sh->type == RC_SHAPE_DISK) {
            const double o[2] = { x[0] + c * sh->offset[0] - sn * sh->offset[1], x[1] + sn * sh->offset[0] + c * sh->offset[1] };
            const double dx = p[0] - o[0], dy = p[1] - o[1], d = hypot(dx, dy);
            if (d > 0.0) { ni[0] = dx / d; ni[1] = dy / d; } else { ni[0] = 0.0; ni[1] = 1.0; }
            g = d - sh->radius;
            si[0] = o[0] + sh->radius * ni[0]; si[1] = o[1] + sh->radius * ni[1];
        } else if (sh->type == RC_SHAPE_POLYGON) {
            g = poly_gap(sh, x, p, si, ni);
        } else {
            continue;
        }
        if (g < best) { best = g; s[0] = si[0]; s[1] = si[1]; n[0] = ni[0]; n[1] = ni[1]; }
    }
    return best;
}

/* g_N at w->q, the node's rows (nrm, tng: n, t) and the rigid side's
 * (-n, -(r x n); -t, -(r x t)), the contact's point and normal kept in hr. */
rc_status rcm_node_gap_eval(rc_world *w, rc_gap *g, double *gN)
{
    rcm_node_gap *nd = g->node;
    const double *q = w->q + w->bodies[g->body].iq;
    const double p[2] = { nd->X[0] + q[nd->ix], nd->X[1] + q[nd->iy] };
    double s[2] = { 0.0, 0.0 }, n[2] = { 0.0, 1.0 }, gap;
    if (nd->rigid < 0) gap = seg_gap(nd->a, nd->b, p, s, n) - nd->radius;
    else gap = rigid_gap(w, nd->rigid, p, s, n);
    if (!rcb_finite(gap) || !rcb_finite(n[0]) || !rcb_finite(n[1]))
        return rc_set_error(RC_ERR_NUMERIC, "node contact '%s': non-finite gap at t = %.17g", label(g->name), w->t);
    const double t[2] = { n[1], -n[0] }, f = nd->friction ? 1.0 : 0.0;
    g->nrm[0] = n[0]; g->nrm[1] = n[1];
    g->tng[0] = f * t[0]; g->tng[1] = f * t[1];
    memset(nd->hr, 0, sizeof nd->hr);
    if (nd->rigid >= 0) {
        const double *x = w->q + w->bodies[nd->rigid].iq;
        const double r[2] = { s[0] - x[0], s[1] - x[1] };
        nd->hr[0][0] = -n[0]; nd->hr[0][1] = -n[1]; nd->hr[0][2] = -(r[0] * n[1] - r[1] * n[0]);
        nd->hr[1][0] = -f * t[0]; nd->hr[1][1] = -f * t[1]; nd->hr[1][2] = -f * (r[0] * t[1] - r[1] * t[0]);
    }
    nd->s[0] = s[0]; nd->s[1] = s[1];
    *gN = gap;
    return RC_OK;
}

/* The contact of a node gap: its second body, closest point and normal. */
void rcm_node_gap_contact(const rc_world *w, const rc_gap *g, rc_contact *c)
{
    (void)w;
    const rcm_node_gap *nd = g->node;
    if (nd->rigid >= 0) c->body_a = nd->rigid;
    c->point[0] = nd->s[0]; c->point[1] = nd->s[1];
    c->n[0] = g->nrm[0]; c->n[1] = g->nrm[1];
}

/* kappa Mhat^-1 H^T = n_x Z_x + n_y Z_y (rows N, T) on the node's body, the
 * rigid side's diagonal kappa M^-1 H^T, and W = H kappa Mhat^-1 H^T. */
rc_status rcm_node_gap_assemble(rc_world *w, rc_contact *c, double kappa)
{
    rc_gap *g = &w->gaps[c->gap];
    rcm_node_gap *nd = g->node;
    const rc_body *b = &w->bodies[g->body];
    const int nv = b->nv;
    if (!g->mh_valid || !nd->zvalid || nd->zkappa != kappa) {
        double *Z = nd->Z;
        memset(Z, 0, (size_t)2 * nv * sizeof(double));
        Z[nd->ix] = 1.0;
        Z[nv + nd->iy] = 1.0;
        RC_CHECK(rcm_body_ops_of(b)->solve_mass(w, b, Z, 2));
        for (int j = 0; j < 2 * nv; j++) Z[j] *= kappa;
        nd->zkappa = kappa;
        nd->zvalid = 1;
        g->mh_valid = 1;
    }
    const double *Zx = nd->Z, *Zy = nd->Z + nv;
    double *MN = g->MH, *MT = g->MH + nv;
    for (int j = 0; j < nv; j++) {
        MN[j] = g->nrm[0] * Zx[j] + g->nrm[1] * Zy[j];
        MT[j] = g->tng[0] * Zx[j] + g->tng[1] * Zy[j];
    }
    for (int r = 0; r < 2; r++) {
        const double *row = r == 0 ? g->nrm : g->tng;
        for (int k = 0; k < 2; k++) c->W[r][k] = row[0] * g->MH[k * nv + nd->ix] + row[1] * g->MH[k * nv + nd->iy];
    }
    memset(nd->mhr, 0, sizeof nd->mhr);
    if (nd->rigid >= 0) {
        const rc_body *rb = &w->bodies[nd->rigid];
        const double m[3] = { kappa * rb->inv_mass, kappa * rb->inv_mass, kappa * rb->inv_inertia };
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < 3; j++) nd->mhr[r][j] = m[j] * nd->hr[r][j];
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 2; k++)
                c->W[r][k] += nd->hr[r][0] * nd->mhr[k][0] + nd->hr[r][1] * nd->mhr[k][1] + nd->hr[r][2] * nd->mhr[k][2];
    }
    if (!(c->W[1][1] > 0.0)) c->W[1][1] = 1.0;   /* frictionless: keep the block regular */
    return RC_OK;
}

/* u += H_rigid v_rigid */
void rcm_node_gap_rigid_dot(const rc_world *w, const rc_gap *g, const double *v, double *un, double *ut)
{
    const rcm_node_gap *nd = g->node;
    if (nd->rigid < 0) return;
    const double *va = v + w->bodies[nd->rigid].iv;
    *un += nd->hr[0][0] * va[0] + nd->hr[0][1] * va[1] + nd->hr[0][2] * va[2];
    *ut += nd->hr[1][0] * va[0] + nd->hr[1][1] * va[1] + nd->hr[1][2] * va[2];
}

/* V_rigid += kappa M^-1 H_rigid^T dp */
void rcm_node_gap_rigid_apply(const rc_world *w, const rc_gap *g, double *V, const double *dp)
{
    const rcm_node_gap *nd = g->node;
    if (nd->rigid < 0) return;
    double *va = V + w->bodies[nd->rigid].iv;
    for (int j = 0; j < 3; j++) va[j] += nd->mhr[0][j] * dp[0] + nd->mhr[1][j] * dp[1];
}

/* The rigid side's row (0: N, 1: T) in h; returns the body (-1: none). */
int rcm_node_gap_rigid_row(const rc_world *w, const rc_gap *g, int row, double h[3])
{
    (void)w;
    const rcm_node_gap *nd = g->node;
    if (!nd || nd->rigid < 0) return -1;
    for (int j = 0; j < 3; j++) h[j] = nd->hr[row][j];
    return nd->rigid;
}
