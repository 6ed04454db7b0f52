/* shape3_poly.c -- convex polyhedra as shapes of dim = 3 worlds
 * (rc_shape3_create_polyhedron, rc_polyhedron_mass_properties;
 * docs/theory/polyhedra.md, "Polyhedron shapes"): the hull (hull3.c) is
 * built once at creation and kept in the world's contiguous polyhedron
 * arrays (rcm_c3.pd, .pi), in the layout of rcc_poly3 (geom3d.h). */
#include "collide/collide.h"
#include "collide/geom3d.h"
#include "collide/hull3.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ledge[j]: the edge from loop[j] to the next vertex of its face's loop */
static int find_edge(const rcc_hull3 *h, int a, int b)
{
    for (int e = 0; e < h->ne; e++) {
        const int *E = h->edge + 4 * e;
        if ((E[0] == a && E[1] == b) || (E[0] == b && E[1] == a)) return e;
    }
    return -1;
}

/* the hull's error message prefixed with the function's name */
static rc_status hull_error(rc_status st, const char *fn)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s", rc_last_error());
    return rc_set_error(st, "%s: %s", fn, msg);
}

/* the hull's arrays appended to the world's polyhedron store */
static rc_status store_hull(rcm_c3 *c3, const rcc_hull3 *h, rcm_shape3 *s)
{
    const int nl = h->fstart[h->nf];
    const int nd = 3 * h->nv + 4 * h->nf, ni = h->nf + 1 + 2 * nl + 4 * h->ne;
    RC_CHECK(rcb_reserve((void **)&c3->pd, &c3->cap_pd, c3->npd + nd, sizeof(double)));
    RC_CHECK(rcb_reserve((void **)&c3->pi, &c3->cap_pi, c3->npi + ni, sizeof(int)));
    double *d = c3->pd + c3->npd;
    int *I = c3->pi + c3->npi;
    memcpy(d, h->v, 3 * (size_t)h->nv * sizeof(double));
    memcpy(d + 3 * h->nv, h->plane, 4 * (size_t)h->nf * sizeof(double));
    memcpy(I, h->fstart, (size_t)(h->nf + 1) * sizeof(int));
    memcpy(I + h->nf + 1, h->loop, (size_t)nl * sizeof(int));
    int *ledge = I + h->nf + 1 + nl;
    for (int f = 0; f < h->nf; f++)
        for (int j = h->fstart[f]; j < h->fstart[f + 1]; j++) {
            const int nx = j + 1 < h->fstart[f + 1] ? j + 1 : h->fstart[f];
            ledge[j] = find_edge(h, h->loop[j], h->loop[nx]);
            if (ledge[j] < 0) return rc_set_error(RC_ERR_ARG, "rc_shape3_create_polyhedron: inconsistent hull (no edge for a loop side)");
        }
    memcpy(ledge + nl, h->edge, 4 * (size_t)h->ne * sizeof(int));
    s->nv = h->nv; s->nf = h->nf; s->ne = h->ne; s->nl = nl;
    s->pd = c3->npd; s->pi = c3->npi;
    c3->npd += nd;
    c3->npi += ni;
    return RC_OK;
}

/* the hull of the points into a new shape (h: the caller's work space) */
static rc_status create_poly(rc_world *w, int body, const double *points, int n, const double offset[3], rcc_hull3 *h,
                             int *out_id)
{
    rc_status st = rcc_hull3_build(points, n, 0.0, h);
    if (st != RC_OK) return hull_error(st, "rc_shape3_create_polyhedron");
    if (h->nv + h->ne + h->nf > 256)
        return rc_set_error(RC_ERR_ARG, "rc_shape3_create_polyhedron: %d vertices, %d edges and %d faces exceed 256 features",
                            h->nv, h->ne, h->nf);
    double R = 0.0;
    for (int k = 0; k < h->nv; k++) R = fmax(R, rcb_v3_norm(h->v + 3 * k));
    /* the slot and the checks of the body and offset through a sphere of the bounding radius */
    rc_shape3_def def = rc_default_shape3_def();
    def.radius = R;
    if (offset) for (int i = 0; i < 3; i++) def.point[i] = offset[i];
    int id;
    RC_CHECK(rc_shape3_create(w, body, &def, &id));
    rcm_c3 *c3 = w->c3;
    st = store_hull(c3, h, &c3->shapes[id]);
    if (st != RC_OK) { c3->nshapes--; return st; }
    c3->shapes[id].kind = RC_SHAPE3_POLYHEDRON;
    if (h->interior + h->merged > 0)
        rcm_world_warn(w, "polyhedron shape %d: %d of the %d points are not hull vertices (%d inside, %d merged or on the surface); the hull is used",
                       id, h->interior + h->merged, n, h->interior, h->merged);
    if (out_id) *out_id = id;
    return RC_OK;
}

rc_status rc_shape3_create_polyhedron(rc_world *w, int body, const double *points, int n, const double offset[3],
                                      int *out_id)
{
    if (!w || !points) return rc_set_error(RC_ERR_ARG, "rc_shape3_create_polyhedron: NULL argument");
    if (n < 4) return rc_set_error(RC_ERR_ARG, "rc_shape3_create_polyhedron: 'points' needs at least 4 points (got %d)", n);
    rcc_hull3 *h = rcb_malloc(sizeof *h);   /* (13 kB of work space; at creation only) */
    if (!h) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    const rc_status st = create_poly(w, body, points, n, offset, h, out_id);
    rcb_free(h);
    return st;
}

rc_status rc_polyhedron_mass_properties(const double *points, int n, double rho, double *mass, double c[3], double J[9])
{
    char got[RCB_SHOW_SIZE];
    if (!points || !mass || !c || !J) return rc_set_error(RC_ERR_ARG, "rc_polyhedron_mass_properties: NULL argument");
    if (!rcb_finite(rho) || rho <= 0.0)
        return rc_set_error(RC_ERR_ARG, "rc_polyhedron_mass_properties: 'density' must be > 0 (got %s)", rcb_show(got, rho));
    if (n < 4) return rc_set_error(RC_ERR_ARG, "rc_polyhedron_mass_properties: 'points' needs at least 4 points (got %d)", n);
    rcc_hull3 *h = rcb_malloc(sizeof *h);
    if (!h) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    const rc_status st = rcc_hull3_build(points, n, 0.0, h);
    if (st != RC_OK) { rcb_free(h); return hull_error(st, "rc_polyhedron_mass_properties"); }
    double V;
    rcc_hull3_mass(h, &V, c, J);
    rcb_free(h);
    *mass = rho * V;
    for (int i = 0; i < 9; i++) J[i] *= rho;
    return RC_OK;
}

/* the shape's polyhedron (pointers into the world's store: valid until the
 * next shape is created) */
void rcc_shape3_poly(const rcm_c3 *c3, const rcm_shape3 *s, struct rcc_poly3 *p)
{
    const double *d = c3->pd + s->pd;
    const int *I = c3->pi + s->pi;
    p->nv = s->nv; p->nf = s->nf; p->ne = s->ne;
    p->v = d;
    p->plane = d + 3 * s->nv;
    p->fstart = I;
    p->loop = I + s->nf + 1;
    p->ledge = p->loop + s->nl;
    p->edge = p->ledge + s->nl;
    p->code = NULL;
}
