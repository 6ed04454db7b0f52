/* vtk_frame3.c -- one frame of a dim = 3 world as VTK geometry (vtk.c calls
 * it instead of the planar parts): the same files, grains_*.vtp,
 * contacts_*.vtp, shapes_*.vtp and their .pvd collections.
 *
 * grains: a vertex per body at its centre: id, generation, kind, radius (the
 *   largest bounding radius of its shapes), velocity, angular_velocity (in the
 *   world frame, R(Q) Omega), orientation (the quaternion qw, qx, qy, qz).
 * contacts: a line per active 3D contact from A's end to B's (a body's centre;
 *   the ground's end is the contact point on A, pa), with the cell data id,
 *   body_a, body_b, normal_force = pN/h, tangential_force = |pT|/h, force =
 *   (pN n + pT1 t1 + pT2 t2)/h, normal, contact_point ((pa + pb)/2), gap,
 *   pN, pT1, pT2 (impulses).
 * shapes: closed triangulated surfaces at the body's pose x + R(Q) b:
 *   spheres and capsules as latitude-longitude meshes (disk_segments/2
 *   meridians, disk_segments/4 bands; quads, triangles at the poles; a
 *   capsule is a sphere cut at its equator, the halves moved to +-half_length),
 *   boxes as six quads, convex polyhedra as their hull's vertices and a
 *   polygon per face (its vertex loop, counter-clockwise seen from outside);
 *   a body's shape at x + R(Q) b (b its offset), an obstacle at its point;
 *   every sphere point is at distance r from the centre.
 *   A plane, unbounded, is drawn as a square of its surface centred at the
 *   projection of the bodies' bounding box centre, of side 1.2 times the box's
 *   diagonal (at least 2): a picture of the floor, not the half-space. Cell
 *   data body (-1: the ground), shape (the 3D shape id), type (rc_shape3_kind:
 *   0 plane, 1 sphere, 2 capsule, 3 box, 4 polyhedron). */
#define _POSIX_C_SOURCE 200809L

#include "io/vtk_impl.h"
#include "base/rot3.h"
#include "model/contact3.h"

#define RC_VTK_POLY_MAX 256   /* a face's vertices (a hull has at most 256 features) */

static rc_status point3(rc_vtk_writer *vw, const double *x)
{
    RC_CHECK(rco_grow(&vw->pts, (vw->npts + 1) * 3 * sizeof(double)));
    double *p = (double *)vw->pts.p + 3 * vw->npts;
    p[0] = x[0]; p[1] = x[1]; p[2] = x[2];
    vw->npts++;
    return RC_OK;
}

/* a cell of kind k over the points idx[0..n-1]; info: 3 int32 or NULL */
static rc_status cell3(rc_vtk_writer *vw, int k, const int64_t *idx, size_t n, const int32_t *info)
{
    RC_CHECK(rco_grow(&vw->conn[k], (vw->nconn[k] + n) * sizeof(int64_t)));
    RC_CHECK(rco_grow(&vw->offs[k], (vw->ncell[k] + 1) * sizeof(int64_t)));
    memcpy((int64_t *)vw->conn[k].p + vw->nconn[k], idx, n * sizeof(int64_t));
    vw->nconn[k] += n;
    ((int64_t *)vw->offs[k].p)[vw->ncell[k]] = (int64_t)vw->nconn[k];
    if (info) {
        RC_CHECK(rco_grow(&vw->cinfo[k], (vw->ncell[k] + 1) * 3 * sizeof(int32_t)));
        memcpy((int32_t *)vw->cinfo[k].p + 3 * vw->ncell[k], info, 3 * sizeof(int32_t));
    }
    vw->ncell[k]++;
    return RC_OK;
}

static void reset3(rc_vtk_writer *vw)
{
    vw->npts = 0;
    for (int k = 0; k < CELL_N; k++) vw->nconn[k] = vw->ncell[k] = 0;
}

/* a body's pose (the ground: identity at the origin) */
static void pose_of(const rc_world *w, int body, double *x, double *q)
{
    x[0] = x[1] = x[2] = 0.0;
    q[0] = 1.0; q[1] = q[2] = q[3] = 0.0;
    if (body < 0 || body >= w->nbodies || w->bodies[body].kind != RC_BODY_RIGID3D) return;
    const double *s = w->q + w->bodies[body].iq;
    rcb_v3_copy(x, s);
    for (int i = 0; i < 4; i++) q[i] = s[3 + i];
}

static int live3(const rc_world *w, int b) { return w->bodies[b].kind == RC_BODY_RIGID3D; }

static rc_status grains3(rc_vtk_writer *vw, const rc_world *w, double t, long step)
{
    const int nb = w->nbodies;
    const rcm_c3 *c3 = w->c3;
    reset3(vw);
    size_t n = 0;
    for (int i = 0; i < nb; i++) {
        if (!live3(w, i)) continue;
        double x[3], q[4];
        pose_of(w, i, x, q);
        const int64_t idx = (int64_t)n++;
        RC_CHECK(point3(vw, x));
        RC_CHECK(cell3(vw, CELL_VERTS, &idx, 1, NULL));
    }
    RC_CHECK(rco_begin(vw, t, step, vw->npts, vw->ncell));
    rco_xml(vw, "      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    int32_t *ids;
    size_t m;
    RC_CHECK(rco_stage(vw, n, sizeof(int32_t), (void **)&ids));
#define LIVE(expr) do { m = 0; for (int i = 0; i < nb; i++) if (live3(w, i)) { expr; m++; } } while (0)
    LIVE(ids[m] = (int32_t)i);
    RC_CHECK(rco_array(vw, "id", T_I32, 1, n, ids, 0));
    LIVE(ids[m] = (int32_t)rc_body_generation(w, i));
    RC_CHECK(rco_array(vw, "generation", T_I32, 1, n, ids, 0));
    LIVE(ids[m] = (int32_t)w->bodies[i].kind);
    RC_CHECK(rco_array(vw, "kind", T_I32, 1, n, ids, 0));
    double *x;
    RC_CHECK(rco_stage(vw, 4 * n, sizeof(double), (void **)&x));
    LIVE(x[m] = 0.0; for (int s = 0; c3 && s < c3->nshapes; s++)
             if (c3->shapes[s].body == i && c3->shapes[s].bound > x[m]) x[m] = c3->shapes[s].bound);
    RC_CHECK(rco_array(vw, "radius", T_F64, 1, n, x, 0));
    LIVE(rcb_v3_copy(x + 3 * m, w->v + w->bodies[i].iv));
    RC_CHECK(rco_array(vw, "velocity", T_F64, 3, n, x, 0));
    LIVE(rcb_quat_rotate(x + 3 * m, w->q + w->bodies[i].iq + 3, w->v + w->bodies[i].iv + 3));
    RC_CHECK(rco_array(vw, "angular_velocity", T_F64, 3, n, x, 0));
    LIVE(for (int k = 0; k < 4; k++) x[4 * m + k] = w->q[w->bodies[i].iq + 3 + k]);
    RC_CHECK(rco_array(vw, "orientation", T_F64, 4, n, x, 0));
#undef LIVE
    rco_xml(vw, "      </PointData>\n"
                "      <CellData>\n"
                "      </CellData>\n");
    RC_CHECK(rco_geometry(vw));
    return rco_write_vtp(vw, PART_GRAINS);
}

static rc_status contacts3(rc_vtk_writer *vw, const rc_world *w, double t, long step)
{
    const rcm_c3 *c3 = w->c3;
    const int nc = c3 ? c3->n : 0;
    size_t n = 0;
    reset3(vw);
    for (int i = 0; i < nc; i++) {
        const rcm_contact3 *c = &c3->c[i];
        if (!c->active) continue;
        double a[3], b[3], q[4];
        pose_of(w, c->body_a, a, q);
        if (c->body_a < 0) rcb_v3_copy(a, c->pa);
        pose_of(w, c->body_b, b, q);
        if (c->body_b < 0) rcb_v3_copy(b, c->pb);
        const int64_t idx[2] = { (int64_t)(2 * n), (int64_t)(2 * n + 1) };
        RC_CHECK(point3(vw, a));
        RC_CHECK(point3(vw, b));
        RC_CHECK(cell3(vw, CELL_LINES, idx, 2, NULL));
        n++;
    }
    const double h = w->sim.h;
    RC_CHECK(rco_begin(vw, t, step, vw->npts, vw->ncell));
    rco_xml(vw, "      <PointData>\n"
                "      </PointData>\n"
                "      <CellData Scalars=\"normal_force\" Vectors=\"force\">\n");
    int32_t *ids;
    size_t m;
    RC_CHECK(rco_stage(vw, n, sizeof(int32_t), (void **)&ids));
#define ACT(expr) do { m = 0; for (int i = 0; i < nc; i++) if (c3->c[i].active) { const rcm_contact3 *c = &c3->c[i]; expr; m++; } } while (0)
    ACT(ids[m] = c->id);
    RC_CHECK(rco_array(vw, "id", T_I32, 1, n, ids, 0));
    ACT(ids[m] = c->body_a);
    RC_CHECK(rco_array(vw, "body_a", T_I32, 1, n, ids, 0));
    ACT(ids[m] = c->body_b);
    RC_CHECK(rco_array(vw, "body_b", T_I32, 1, n, ids, 0));
    double *x;
    RC_CHECK(rco_stage(vw, 3 * n, sizeof(double), (void **)&x));
    ACT(x[m] = c->p[0] / h);
    RC_CHECK(rco_array(vw, "normal_force", T_F64, 1, n, x, 0));
    ACT(x[m] = hypot(c->p[1], c->p[2]) / h);
    RC_CHECK(rco_array(vw, "tangential_force", T_F64, 1, n, x, 0));
    ACT(for (int k = 0; k < 3; k++) x[3 * m + k] = (c->p[0] * c->n[k] + c->p[1] * c->t1[k] + c->p[2] * c->t2[k]) / h);
    RC_CHECK(rco_array(vw, "force", T_F64, 3, n, x, 0));
    ACT(rcb_v3_copy(x + 3 * m, c->n));
    RC_CHECK(rco_array(vw, "normal", T_F64, 3, n, x, 0));
    ACT(for (int k = 0; k < 3; k++) x[3 * m + k] = 0.5 * (c->pa[k] + c->pb[k]));
    RC_CHECK(rco_array(vw, "contact_point", T_F64, 3, n, x, 0));
    ACT(x[m] = c->gN);
    RC_CHECK(rco_array(vw, "gap", T_F64, 1, n, x, 0));
    static const char *const pn[3] = { "pN", "pT1", "pT2" };
    for (int k = 0; k < 3; k++) {
        ACT(x[m] = c->p[k]);
        RC_CHECK(rco_array(vw, pn[k], T_F64, 1, n, x, 0));
    }
#undef ACT
    rco_xml(vw, "      </CellData>\n");
    RC_CHECK(rco_geometry(vw));
    return rco_write_vtp(vw, PART_CONTACTS);
}

/* a sphere (hl = 0) or a capsule: rings at polar angles pi j / nlat, the
 * upper half moved by +hl along the body's z, the lower by -hl (the equator
 * ring twice for a capsule) */
static rc_status round3(rc_vtk_writer *vw, const double *x, const double *q, double r, double hl, const int32_t *info)
{
    const int nlon = vw->segments / 2 < 8 ? 8 : vw->segments / 2, nlat = nlon / 2;
    const int64_t first = (int64_t)vw->npts;
    double b[3], p[3];
    int nring = 0;
    rcb_v3_set(b, 0.0, 0.0, r + hl);
    rcb_quat_rotate(p, q, b); rcb_v3_add(p, p, x);
    RC_CHECK(point3(vw, p));
    for (int j = 1; j < nlat; j++) {
        const double phi = RC_VTK_PI * (double)j / (double)nlat;
        const int copies = (hl > 0.0 && 2 * j == nlat) ? 2 : 1;
        for (int c = 0; c < copies; c++, nring++) {
            const double off = (2 * j < nlat || (2 * j == nlat && c == 0)) ? hl : -hl;
            for (int i = 0; i < nlon; i++) {
                const double lam = 2.0 * RC_VTK_PI * (double)i / (double)nlon;
                rcb_v3_set(b, r * sin(phi) * cos(lam), r * sin(phi) * sin(lam), r * cos(phi) + off);
                rcb_quat_rotate(p, q, b); rcb_v3_add(p, p, x);
                RC_CHECK(point3(vw, p));
            }
        }
    }
    rcb_v3_set(b, 0.0, 0.0, -r - hl);
    rcb_quat_rotate(p, q, b); rcb_v3_add(p, p, x);
    RC_CHECK(point3(vw, p));
    const int64_t south = first + 1 + (int64_t)nring * nlon;
    for (int i = 0; i < nlon; i++) {   /* outward: counter-clockwise seen from outside */
        const int64_t i1 = (i + 1) % nlon;
        const int64_t top[3] = { first, first + 1 + i, first + 1 + i1 };
        RC_CHECK(cell3(vw, CELL_POLYS, top, 3, info));
        for (int k = 0; k + 1 < nring; k++) {
            const int64_t a = first + 1 + (int64_t)k * nlon, bb = a + nlon;
            const int64_t quad[4] = { a + i, bb + i, bb + i1, a + i1 };
            RC_CHECK(cell3(vw, CELL_POLYS, quad, 4, info));
        }
        const int64_t last = first + 1 + (int64_t)(nring - 1) * nlon;
        const int64_t bot[3] = { last + i, south, last + i1 };
        RC_CHECK(cell3(vw, CELL_POLYS, bot, 3, info));
    }
    return RC_OK;
}

static rc_status box3(rc_vtk_writer *vw, const double *x, const double *q, const double *hf, const int32_t *info)
{
    static const int faces[6][4] = { { 0, 2, 6, 4 }, { 1, 5, 7, 3 }, { 0, 4, 5, 1 },
                                     { 2, 3, 7, 6 }, { 0, 1, 3, 2 }, { 4, 6, 7, 5 } };
    const int64_t first = (int64_t)vw->npts;
    for (int v = 0; v < 8; v++) {   /* vertex v: sign of axis k from bit k */
        double b[3], p[3];
        for (int k = 0; k < 3; k++) b[k] = ((v >> k) & 1) ? hf[k] : -hf[k];
        rcb_quat_rotate(p, q, b); rcb_v3_add(p, p, x);
        RC_CHECK(point3(vw, p));
    }
    for (int f = 0; f < 6; f++) {
        const int64_t quad[4] = { first + faces[f][0], first + faces[f][1], first + faces[f][2], first + faces[f][3] };
        RC_CHECK(cell3(vw, CELL_POLYS, quad, 4, info));
    }
    return RC_OK;
}

/* a convex polyhedron: its hull vertices posed, a polygon per face (the
 * face's vertex loop, counter-clockwise seen from outside) */
static rc_status poly3(rc_vtk_writer *vw, const rcm_c3 *c3, const rcm_shape3 *s, const double *x, const double *q,
                       const int32_t *info)
{
    const double *v = c3->pd + s->pd;
    const int *fstart = c3->pi + s->pi, *loop = fstart + s->nf + 1;
    const int64_t first = (int64_t)vw->npts;
    for (int k = 0; k < s->nv; k++) {
        double p[3];
        rcb_quat_rotate(p, q, v + 3 * k); rcb_v3_add(p, p, x);
        RC_CHECK(point3(vw, p));
    }
    int64_t idx[RC_VTK_POLY_MAX];
    for (int f = 0; f < s->nf; f++) {
        const int n = fstart[f + 1] - fstart[f];
        if (n > RC_VTK_POLY_MAX) return rc_set_error(RC_ERR_ARG, "rc_vtk: a polyhedron face of %d vertices", n);
        for (int j = 0; j < n; j++) idx[j] = first + loop[fstart[f] + j];
        RC_CHECK(cell3(vw, CELL_POLYS, idx, (size_t)n, info));
    }
    return RC_OK;
}

/* a square of the plane around the bodies (see the top) */
static rc_status plane3(rc_vtk_writer *vw, const rc_world *w, const rcm_shape3 *s, const int32_t *info)
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (int i = 0; i < w->c3->nshapes; i++) {
        const rcm_shape3 *o = &w->c3->shapes[i];
        if (o->kind == RC_SHAPE3_PLANE) continue;
        double x[3], q[4];
        pose_of(w, o->body, x, q);
        if (o->body < 0) rcb_v3_copy(x, o->point);
        for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], x[k] - o->bound); hi[k] = fmax(hi[k], x[k] + o->bound); }
    }
    double c[3], d = 0.0;
    for (int k = 0; k < 3; k++) {
        c[k] = lo[k] <= hi[k] ? 0.5 * (lo[k] + hi[k]) : s->point[k];
        if (lo[k] <= hi[k]) d += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    const double half = 0.5 * fmax(1.2 * sqrt(d), 2.0);
    double o[3], t1[3], t2[3];
    rcb_v3_sub(o, c, s->point);
    rcb_v3_axpy(o, c, -rcb_v3_dot(o, s->normal), s->normal);   /* c projected on the plane */
    const double *n = s->normal;   /* (Frisvad's frame, as rcc_tangent_frame) */
    if (n[2] > -0.9999999) {
        const double a = 1.0 / (1.0 + n[2]), bxy = -n[0] * n[1] * a;
        rcb_v3_set(t1, 1.0 - n[0] * n[0] * a, bxy, -n[0]);
        rcb_v3_set(t2, bxy, 1.0 - n[1] * n[1] * a, -n[1]);
    } else {
        rcb_v3_set(t1, 0.0, -1.0, 0.0);
        rcb_v3_set(t2, -1.0, 0.0, 0.0);
    }
    const int64_t first = (int64_t)vw->npts;
    static const double sg[4][2] = { { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 } };
    for (int k = 0; k < 4; k++) {
        double p[3];
        rcb_v3_axpy(p, o, sg[k][0] * half, t1);
        rcb_v3_axpy(p, p, sg[k][1] * half, t2);
        RC_CHECK(point3(vw, p));
    }
    const int64_t quad[4] = { first, first + 1, first + 2, first + 3 };
    return cell3(vw, CELL_POLYS, quad, 4, info);
}

static rc_status shapes3(rc_vtk_writer *vw, const rc_world *w, double t, long step)
{
    const rcm_c3 *c3 = w->c3;
    reset3(vw);
    for (int id = 0; c3 && id < c3->nshapes; id++) {
        const rcm_shape3 *s = &c3->shapes[id];
        if (s->body >= 0 && (s->body >= w->nbodies || !live3(w, s->body))) continue;
        const int32_t info[3] = { s->body < 0 ? -1 : s->body, id, (int32_t)s->kind };
        double x[3], q[4];
        pose_of(w, s->body, x, q);
        if (s->body < 0) rcb_v3_copy(x, s->point);
        else { double b[3]; rcb_quat_rotate(b, q, s->point); rcb_v3_add(x, x, b); }   /* the offset */
        switch (s->kind) {
        case RC_SHAPE3_SPHERE: RC_CHECK(round3(vw, x, q, s->radius, 0.0, info)); break;
        case RC_SHAPE3_CAPSULE: RC_CHECK(round3(vw, x, q, s->radius, s->half_len, info)); break;
        case RC_SHAPE3_BOX: RC_CHECK(box3(vw, x, q, s->half, info)); break;
        case RC_SHAPE3_PLANE: RC_CHECK(plane3(vw, w, s, info)); break;
        case RC_SHAPE3_POLYHEDRON: RC_CHECK(poly3(vw, c3, s, x, q, info)); break;
        default: break;
        }
    }
    RC_CHECK(rco_begin(vw, t, step, vw->npts, vw->ncell));
    rco_xml(vw, "      <PointData>\n"
                "      </PointData>\n"
                "      <CellData Scalars=\"body\">\n");
    const size_t ncells = vw->ncell[CELL_POLYS];
    int32_t *x;
    RC_CHECK(rco_stage(vw, ncells, sizeof(int32_t), (void **)&x));
    static const char *const names[3] = { "body", "shape", "type" };
    for (int f = 0; f < 3; f++) {
        const int32_t *ci = vw->cinfo[CELL_POLYS].p;
        for (size_t i = 0; i < ncells; i++) x[i] = ci[3 * i + f];
        RC_CHECK(rco_array(vw, names[f], T_I32, 1, ncells, x, 0));
    }
    rco_xml(vw, "      </CellData>\n");
    RC_CHECK(rco_geometry(vw));
    return rco_write_vtp(vw, PART_SHAPES);
}

/* the frame of a dim = 3 world: grains, contacts, shapes */
rc_status rco_frame3(rc_vtk_writer *vw, const rc_world *w, double t, long step)
{
    RC_CHECK(grains3(vw, w, t, step));
    RC_CHECK(contacts3(vw, w, t, step));
    return shapes3(vw, w, t, step);
}
