/* vtk_frame.c -- one frame of the world as VTK geometry: grains (points with
 * their state), contacts (lines with their impulses), shapes (polygons,
 * segments, disks as cells) (vtk.c has the overview). */
#define _POSIX_C_SOURCE 200809L

#include "io/vtk_impl.h"

/* ---------------------------------------------------------------- geometry builders */

static void rc__reset_geometry(rc_vtk_writer *vw)
{
    vw->npts = 0;
    for (int k = 0; k < CELL_N; k++) vw->nconn[k] = vw->ncell[k] = 0;
}

static rc_status rc__point(rc_vtk_writer *vw, double x, double y)
{
    RC_CHECK(rco_grow(&vw->pts, (vw->npts + 1) * 3 * sizeof(double)));
    double *p = (double *)vw->pts.p + 3 * vw->npts;
    p[0] = x; p[1] = y; p[2] = 0.0;
    vw->npts++;
    return RC_OK;
}

/* A cell of kind k over the n points first..first+n-1; info: 3 int32 or NULL. */
static rc_status rc__cell(rc_vtk_writer *vw, int k, size_t first, size_t n, const int32_t *info)
{
    RC_CHECK(rco_grow(&vw->conn[k], (vw->nconn[k] + n) * sizeof(int64_t)));
    RC_CHECK(rco_grow(&vw->offs[k], (vw->ncell[k] + 1) * sizeof(int64_t)));
    int64_t *c = (int64_t *)vw->conn[k].p + vw->nconn[k];
    for (size_t i = 0; i < n; i++) c[i] = (int64_t)(first + i);
    vw->nconn[k] += n;
    ((int64_t *)vw->offs[k].p)[vw->ncell[k]] = (int64_t)vw->nconn[k];
    if (info) {
        RC_CHECK(rco_grow(&vw->cinfo[k], (vw->ncell[k] + 1) * 3 * sizeof(int32_t)));
        memcpy((int32_t *)vw->cinfo[k].p + 3 * vw->ncell[k], info, 3 * sizeof(int32_t));
    }
    vw->ncell[k]++;
    return RC_OK;
}

/* ---------------------------------------------------------------- the frame */

/* Bodies: state, kind and bounding radius; the bounding box of the rigid
 * bodies (for drawing half-planes). */
rc_status rco_gather_bodies(rc_vtk_writer *vw, const rc_world *w, int nb, double box[4])
{
    int ns = rc_shape_count(w);
    size_t n = nb > 0 ? (size_t)nb : 1;
    RC_CHECK(rco_grow(&vw->body, n * 6 * sizeof(double)));
    RC_CHECK(rco_grow(&vw->kind, n * sizeof(int32_t)));
    RC_CHECK(rco_grow(&vw->rad, n * sizeof(double)));
    RC_CHECK(rco_grow(&vw->gen, n * sizeof(int32_t)));
    double *B = vw->body.p, *R = vw->rad.p;
    int32_t *K = vw->kind.p, *G = vw->gen.p;
    for (int i = 0; i < nb; i++) {
        double *s = B + 6 * i;
        for (int j = 0; j < 6; j++) s[j] = 0.0;
        R[i] = 0.0;
        K[i] = (int32_t)w->bodies[i].kind;   /* RCM_BODY_REMOVED: a free slot, not written */
        G[i] = (int32_t)rc_body_generation(w, i);
        if (w->bodies[i].kind != RC_BODY_RIGID2D) continue;
        double q[7], v[6];
        RC_CHECK(rc_body_get_state(w, i, q, v));
        s[0] = q[0]; s[1] = q[1]; s[2] = q[2];
        s[3] = v[0]; s[4] = v[1]; s[5] = v[2];
    }
    for (int id = 0; id < ns; id++) {
        int body = RC_GROUND;
        rc_shape_def d;
        if (rc_shape_is_removed(w, id)) continue;
        RC_CHECK(rc_shape_get_def(w, id, &body, &d));
        if (body < 0 || body >= nb) continue;
        double r = 0.0;
        switch (d.type) {
        case RC_SHAPE_DISK: r = hypot(d.offset[0], d.offset[1]) + d.radius; break;
        case RC_SHAPE_POINT: r = hypot(d.offset[0], d.offset[1]); break;
        case RC_SHAPE_POLYGON:
            for (int k = 0; k < d.nvert; k++) {
                double rk = hypot(d.vert[k][0], d.vert[k][1]);
                if (rk > r) r = rk;
            }
            break;
        default: break;
        }
        if (r > R[body]) R[body] = r;
    }
    box[0] = box[1] = INFINITY;
    box[2] = box[3] = -INFINITY;
    for (int i = 0; i < nb; i++) {
        if (K[i] != RC_BODY_RIGID2D) continue;
        const double *s = B + 6 * i;
        if (s[0] - R[i] < box[0]) box[0] = s[0] - R[i];
        if (s[1] - R[i] < box[1]) box[1] = s[1] - R[i];
        if (s[0] + R[i] > box[2]) box[2] = s[0] + R[i];
        if (s[1] + R[i] > box[3]) box[3] = s[1] + R[i];
    }
    return RC_OK;
}

rc_status rco_grains(rc_vtk_writer *vw, int nb, double t, long step)
{
    const double *B = vw->body.p, *R = vw->rad.p;
    const int32_t *K = vw->kind.p, *G = vw->gen.p;
    rc__reset_geometry(vw);
    size_t n = 0;   /* the live bodies: slot i is the n-th point (removed slots skipped) */
    for (int i = 0; i < nb; i++) {
        if (K[i] == (int32_t)RCM_BODY_REMOVED) continue;
        RC_CHECK(rc__point(vw, B[6 * i], B[6 * i + 1]));
        RC_CHECK(rc__cell(vw, CELL_VERTS, n++, 1, NULL));
    }
    RC_CHECK(rco_begin(vw, t, step, vw->npts, vw->ncell));
    rco_xml(vw, "      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    int32_t *ids;   /* id: the slot; generation: the slot's (id + generation name one body for ever) */
    RC_CHECK(rco_stage(vw, n, sizeof(int32_t), (void **)&ids));
    size_t m = 0;
    for (int i = 0; i < nb; i++) if (K[i] != (int32_t)RCM_BODY_REMOVED) ids[m++] = (int32_t)i;
    RC_CHECK(rco_array(vw, "id", T_I32, 1, n, ids, 0));
#define LIVE(expr) do { m = 0; for (int i = 0; i < nb; i++) if (K[i] != (int32_t)RCM_BODY_REMOVED) { expr; m++; } } while (0)
    LIVE(ids[m] = G[i]);
    RC_CHECK(rco_array(vw, "generation", T_I32, 1, n, ids, 0));
    LIVE(ids[m] = K[i]);
    RC_CHECK(rco_array(vw, "kind", T_I32, 1, n, ids, 0));
    double *x;
    RC_CHECK(rco_stage(vw, 3 * n, sizeof(double), (void **)&x));
    LIVE(x[m] = R[i]);
    RC_CHECK(rco_array(vw, "radius", T_F64, 1, n, x, 0));
    LIVE((x[3 * m] = B[6 * i + 3], x[3 * m + 1] = B[6 * i + 4], x[3 * m + 2] = 0.0));
    RC_CHECK(rco_array(vw, "velocity", T_F64, 3, n, x, 0));
    LIVE(x[m] = B[6 * i + 2]);
    RC_CHECK(rco_array(vw, "angle", T_F64, 1, n, x, 0));
    LIVE(x[m] = B[6 * i + 5]);
    RC_CHECK(rco_array(vw, "omega", T_F64, 1, n, x, 0));
#undef LIVE
    rco_xml(vw, "      </PointData>\n"
                "      <CellData>\n"
                "      </CellData>\n");
    RC_CHECK(rco_geometry(vw));
    return rco_write_vtp(vw, PART_GRAINS);
}

/* End of a contact line: the centre of a rigid body, else the contact point.
 * With a periodic cell of length L > 0, the image of the centre nearest to
 * the contact point (a contact through the seam is drawn across it, not
 * across the whole cell). */
static void rc__contact_end(const rc_vtk_writer *vw, int nb, int body, const double *point, double L, double *xy)
{
    const int32_t *K = vw->kind.p;
    if (body >= 0 && body < nb && K[body] == RC_BODY_RIGID2D) {
        const double *B = (const double *)vw->body.p + 6 * body;
        xy[0] = B[0];
        xy[1] = B[1];
        if (L > 0.0) xy[0] += L * floor((point[0] - B[0]) / L + 0.5);
    } else {
        xy[0] = point[0];
        xy[1] = point[1];
    }
}

rc_status rco_contacts(rc_vtk_writer *vw, const rc_world *w, int nb, double t, long step)
{
    int nc = rc_contact_count(w);
    vw->ncon = 0;
    for (int i = 0; i < nc; i++) {
        rc_contact_info ci;
        RC_CHECK(rc_contact_get(w, i, &ci));
        if (!ci.active) continue;
        RC_CHECK(rco_grow(&vw->con, (vw->ncon + 1) * sizeof(rc_contact_info)));
        ((rc_contact_info *)vw->con.p)[vw->ncon++] = ci;
    }
    size_t n = vw->ncon;
    const rc_contact_info *C = vw->con.p;
    double h = NAN;
    if (n > 0) {
        rc_sim_def sd;
        if (rc_world_get_sim_def(w, &sd) == RC_OK) h = sd.h;
    }

    rc_world_def wd;
    double L = 0.0;
    if (rc_world_get_def(w, &wd) == RC_OK && wd.periodic_x[1] > wd.periodic_x[0]) L = wd.periodic_x[1] - wd.periodic_x[0];
    rc__reset_geometry(vw);
    for (size_t i = 0; i < n; i++) {
        double a[2], b[2];
        rc__contact_end(vw, nb, C[i].body_a, C[i].point, L, a);
        rc__contact_end(vw, nb, C[i].body_b, C[i].point, L, b);
        RC_CHECK(rc__point(vw, a[0], a[1]));
        RC_CHECK(rc__point(vw, b[0], b[1]));
        RC_CHECK(rc__cell(vw, CELL_LINES, 2 * i, 2, NULL));
    }
    RC_CHECK(rco_begin(vw, t, step, vw->npts, vw->ncell));
    rco_xml(vw, "      <PointData>\n"
                "      </PointData>\n"
                "      <CellData Scalars=\"normal_force\" Vectors=\"force\">\n");
    int32_t *ids;
    RC_CHECK(rco_stage(vw, n, sizeof(int32_t), (void **)&ids));
    for (size_t i = 0; i < n; i++) ids[i] = C[i].id;
    RC_CHECK(rco_array(vw, "id", T_I32, 1, n, ids, 0));
    for (size_t i = 0; i < n; i++) ids[i] = C[i].body_a;
    RC_CHECK(rco_array(vw, "body_a", T_I32, 1, n, ids, 0));
    for (size_t i = 0; i < n; i++) ids[i] = C[i].body_b;
    RC_CHECK(rco_array(vw, "body_b", T_I32, 1, n, ids, 0));
    double *x;
    RC_CHECK(rco_stage(vw, 3 * n, sizeof(double), (void **)&x));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pN / h;
    RC_CHECK(rco_array(vw, "normal_force", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pT / h;
    RC_CHECK(rco_array(vw, "tangential_force", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) {
        double fn = C[i].pN / h, ft = C[i].pT / h;
        x[3 * i] = fn * C[i].normal[0] + ft * C[i].tangent[0];
        x[3 * i + 1] = fn * C[i].normal[1] + ft * C[i].tangent[1];
        x[3 * i + 2] = 0.0;
    }
    RC_CHECK(rco_array(vw, "force", T_F64, 3, n, x, 0));
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = C[i].normal[0];
        x[3 * i + 1] = C[i].normal[1];
        x[3 * i + 2] = 0.0;
    }
    RC_CHECK(rco_array(vw, "normal", T_F64, 3, n, x, 0));
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = C[i].point[0];
        x[3 * i + 1] = C[i].point[1];
        x[3 * i + 2] = 0.0;
    }
    RC_CHECK(rco_array(vw, "contact_point", T_F64, 3, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].gN;
    RC_CHECK(rco_array(vw, "gap", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pN;
    RC_CHECK(rco_array(vw, "pN", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pT;
    RC_CHECK(rco_array(vw, "pT", T_F64, 1, n, x, 0));
    rco_xml(vw, "      </CellData>\n");
    RC_CHECK(rco_geometry(vw));
    return rco_write_vtp(vw, PART_CONTACTS);
}

/* Body frame -> world frame (body RC_GROUND: identity). */
static void rc__to_world(const rc_vtk_writer *vw, int body, const double *p, double *out)
{
    if (body < 0) { out[0] = p[0]; out[1] = p[1]; return; }
    const double *B = (const double *)vw->body.p + 6 * body;
    double c = cos(B[2]), s = sin(B[2]);
    out[0] = B[0] + c * p[0] - s * p[1];
    out[1] = B[1] + s * p[0] + c * p[1];
}

rc_status rco_shapes(rc_vtk_writer *vw, const rc_world *w, int nb, const double box[4],
                     double t, long step)
{
    const int32_t *K = vw->kind.p;
    int ns = rc_shape_count(w);
    rc__reset_geometry(vw);
    /* cells by kind, in VTK's cell order: vertices, lines, polygons */
    for (int k = 0; k < CELL_N; k++) {
        for (int id = 0; id < ns; id++) {
            int body = RC_GROUND;
            rc_shape_def d;
            if (rc_shape_is_removed(w, id)) continue;
            RC_CHECK(rc_shape_get_def(w, id, &body, &d));
            if (body >= nb || (body >= 0 && K[body] != RC_BODY_RIGID2D)) continue;
            if (d.type == RC_SHAPE_DISK && !vw->disk_outlines) continue;   /* in grains_*.vtp */
            int32_t info[3] = { body, id, (int32_t)d.type };
            size_t first = vw->npts;
            double p[2], c[2];
            if (k == CELL_VERTS && d.type == RC_SHAPE_POINT) {
                rc__to_world(vw, body, d.offset, p);
                RC_CHECK(rc__point(vw, p[0], p[1]));
                RC_CHECK(rc__cell(vw, k, first, 1, info));
            } else if (k == CELL_LINES && d.type == RC_SHAPE_SEGMENT) {
                rc__to_world(vw, body, d.a, p);
                RC_CHECK(rc__point(vw, p[0], p[1]));
                rc__to_world(vw, body, d.b, p);
                RC_CHECK(rc__point(vw, p[0], p[1]));
                RC_CHECK(rc__cell(vw, k, first, 2, info));
            } else if (k == CELL_LINES && d.type == RC_SHAPE_HALFPLANE) {
                /* the boundary line across the bodies' bounding box */
                double o[2], nrm[2], tg[2];
                rc__to_world(vw, body, d.point, o);
                nrm[0] = d.normal[0]; nrm[1] = d.normal[1];
                if (body >= 0) {
                    const double *B = (const double *)vw->body.p + 6 * body;
                    double cs = cos(B[2]), sn = sin(B[2]);
                    nrm[0] = cs * d.normal[0] - sn * d.normal[1];
                    nrm[1] = sn * d.normal[0] + cs * d.normal[1];
                }
                tg[0] = nrm[1]; tg[1] = -nrm[0];
                double smin = 0.0, smax = 0.0;
                if (box[0] <= box[2]) {
                    for (int j = 0; j < 4; j++) {
                        double cx = (j & 1) ? box[2] : box[0], cy = (j & 2) ? box[3] : box[1];
                        double sj = (cx - o[0]) * tg[0] + (cy - o[1]) * tg[1];
                        if (sj < smin) smin = sj;
                        if (sj > smax) smax = sj;
                    }
                }
                double m = 0.1 * (smax - smin);
                if (!(m > 0)) m = 1.0;
                smin -= m;
                smax += m;
                RC_CHECK(rc__point(vw, o[0] + smin * tg[0], o[1] + smin * tg[1]));
                RC_CHECK(rc__point(vw, o[0] + smax * tg[0], o[1] + smax * tg[1]));
                RC_CHECK(rc__cell(vw, k, first, 2, info));
            } else if (k == CELL_LINES && d.type == RC_SHAPE_CIRCLE_INSIDE) {
                /* the circular wall: a closed polyline of 4 x disk_segments sides */
                const int ns4 = 4 * vw->segments;
                for (int j = 0; j <= ns4; j++) {
                    double a = 2.0 * RC_VTK_PI * (double)(j % ns4) / (double)ns4;
                    RC_CHECK(rc__point(vw, d.offset[0] + d.radius * cos(a), d.offset[1] + d.radius * sin(a)));
                }
                RC_CHECK(rc__cell(vw, k, first, (size_t)ns4 + 1, info));
            } else if (k == CELL_LINES && d.type == RC_SHAPE_DISK) {
                /* a radius at the body's angle: shows the rotation */
                double rim[2] = { d.offset[0] + d.radius, d.offset[1] };
                rc__to_world(vw, body, d.offset, c);
                rc__to_world(vw, body, rim, p);
                RC_CHECK(rc__point(vw, c[0], c[1]));
                RC_CHECK(rc__point(vw, p[0], p[1]));
                RC_CHECK(rc__cell(vw, k, first, 2, info));
            } else if (k == CELL_POLYS && d.type == RC_SHAPE_DISK) {
                for (int j = 0; j < vw->segments; j++) {
                    double a = 2.0 * RC_VTK_PI * (double)j / (double)vw->segments;
                    double l[2] = { d.offset[0] + d.radius * cos(a), d.offset[1] + d.radius * sin(a) };
                    rc__to_world(vw, body, l, p);
                    RC_CHECK(rc__point(vw, p[0], p[1]));
                }
                RC_CHECK(rc__cell(vw, k, first, (size_t)vw->segments, info));
            } else if (k == CELL_POLYS && d.type == RC_SHAPE_POLYGON) {
                for (int j = 0; j < d.nvert; j++) {
                    rc__to_world(vw, body, d.vert[j], p);
                    RC_CHECK(rc__point(vw, p[0], p[1]));
                }
                RC_CHECK(rc__cell(vw, k, first, (size_t)d.nvert, info));
            }
        }
    }
    RC_CHECK(rco_begin(vw, t, step, vw->npts, vw->ncell));
    rco_xml(vw, "      <PointData>\n"
                "      </PointData>\n"
                "      <CellData Scalars=\"body\">\n");
    size_t ncells = vw->ncell[0] + vw->ncell[1] + vw->ncell[2];
    int32_t *x;
    RC_CHECK(rco_stage(vw, ncells, sizeof(int32_t), (void **)&x));
    static const char *const names[3] = { "body", "shape", "type" };
    for (int f = 0; f < 3; f++) {
        size_t m = 0;
        for (int k = 0; k < CELL_N; k++) {
            const int32_t *ci = vw->cinfo[k].p;
            for (size_t i = 0; i < vw->ncell[k]; i++) x[m++] = ci[3 * i + f];
        }
        RC_CHECK(rco_array(vw, names[f], T_I32, 1, ncells, x, 0));
    }
    rco_xml(vw, "      </CellData>\n");
    RC_CHECK(rco_geometry(vw));
    return rco_write_vtp(vw, PART_SHAPES);
}
