/* vtk_fem.c -- finite-element bodies in the VTK series (docs/output-vtk.md,
 * "Finite-element bodies"): rc_vtk_add_fem keeps a copy of a body's mesh,
 * numbering and elasticity; every frame then writes all the added bodies
 * into one XML UnstructuredGrid, fem_NNNNNN.vtu (the part "fem", 3 of
 * series.pvd, and fem.pvd):
 *   points     the nodes at their UNDEFORMED positions (z = 0), body after
 *              body in the mesh's numbering: ParaView's Warp By Vector on
 *              `displacement` draws the deformed mesh (scale factor 100:
 *              the paper's Fig. 8(b))
 *   cells      one VTK_TRIANGLE (5) per element, the mesh's node order
 *   point data displacement (u_x, u_y, 0), velocity (v_x, v_y, 0), body,
 *              node (the mesh's node number, from 1)
 *   cell data  stress (sigma_xx, sigma_yy, sigma_xy: sigma = D B u_e at the
 *              element's Gauss point, fem_stress.c), von_mises, body,
 *              element (from 1)
 * A body removed from the world (or whose slot holds another body) is left
 * out of the frames after its removal. The arrays are compressed like the
 * .vtp files (vtk_format.c); the buffers grow to the bodies' size once. */
#define _POSIX_C_SOURCE 200809L

#include "io/vtk_impl.h"
#include "model/fem_stress.h"

typedef struct rc__vtk_fem {
    int body;
    unsigned gen;           /* the slot's generation when added */
    int nnodes, ntri, plane;
    double nu, D[3][3];
    double *xy;             /* 2 per node, undeformed                */
    int *tri;               /* 3 per triangle, 0-based               */
    int *perm;              /* node k -> place in the body's coordinates */
} rc__vtk_fem;

static void fem_entry_free(rc__vtk_fem *f)
{
    rcb_free(f->xy);
    rcb_free(f->tri);
    rcb_free(f->perm);
}

void rco_fem_free(rc_vtk_writer *vw)
{
    rc__vtk_fem *F = vw->fem.p;
    for (int i = 0; i < vw->nfem; i++) fem_entry_free(&F[i]);
    vw->nfem = 0;
    rco_buf_free(&vw->fem);
    rco_buf_free(&vw->fem_cell);
}

/* perm: a permutation of 0..n-1 (NULL: the identity). */
static rc_status check_perm(const int *perm, int n)
{
    if (!perm) return RC_OK;
    unsigned char *seen = rcb_malloc((size_t)n);
    if (!seen) return rc_set_error(RC_ERR_NOMEM, "rc_vtk_add_fem: out of memory");
    memset(seen, 0, (size_t)n);
    rc_status s = RC_OK;
    for (int k = 0; k < n && s == RC_OK; k++) {
        if (perm[k] < 0 || perm[k] >= n)
            s = rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: perm[%d] = %d is not in 0..%d", k, perm[k], n - 1);
        else if (seen[perm[k]]++)
            s = rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: perm[%d] = %d repeats a place (perm must be a permutation)", k, perm[k]);
    }
    rcb_free(seen);
    return s;
}

rc_status rc_vtk_add_fem(rc_vtk_writer *vw, const rc_world *w, int body, const rc_fem_def *def, const int *perm)
{
    if (!vw) return rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: writer is NULL");
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: world is NULL");
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: def is NULL");
    if (vw->broken)
        return rc_set_error(RC_ERR_IO, "rc_vtk_add_fem: the series in %s is stopped: %s", vw->dir, vw->broken_msg);
    const int nb = rc_body_count(w);
    if (body < 0 || body >= nb || w->bodies[body].kind == RCM_BODY_REMOVED)
        return rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: no body %d in the world", body);
    if (w->bodies[body].kind != RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: body %d is not a finite-element (linear) body", body);
    RC_CHECK(rc_fem_def_check(def, "rc_vtk_add_fem"));
    if (w->bodies[body].nq != 2 * def->nnodes)
        return rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: body %d has %d coordinates, the mesh %d nodes (2 coordinates each)",
                            body, w->bodies[body].nq, def->nnodes);
    RC_CHECK(check_perm(perm, def->nnodes));
    const unsigned gen = rc_body_generation(w, body);
    rc__vtk_fem *F = vw->fem.p;
    for (int i = 0; i < vw->nfem; i++)
        if (F[i].body == body && F[i].gen == gen)
            return rc_set_error(RC_ERR_ARG, "rc_vtk_add_fem: body %d is already in the series", body);

    RC_CHECK(rco_grow(&vw->fem, (size_t)(vw->nfem + 1) * sizeof(rc__vtk_fem)));
    rc__vtk_fem f;
    memset(&f, 0, sizeof f);
    f.body = body;
    f.gen = gen;
    f.nnodes = def->nnodes;
    f.ntri = def->ntri;
    f.plane = def->plane;
    f.nu = def->nu;
    rcm_fem_elasticity(def, f.D);
    f.xy = rcb_malloc((size_t)f.nnodes * 2 * sizeof(double));
    f.tri = rcb_malloc((size_t)f.ntri * 3 * sizeof(int));
    f.perm = rcb_malloc((size_t)f.nnodes * sizeof(int));
    if (!f.xy || !f.tri || !f.perm) {
        fem_entry_free(&f);
        return rc_set_error(RC_ERR_NOMEM, "rc_vtk_add_fem: out of memory (%d nodes)", f.nnodes);
    }
    memcpy(f.xy, def->xy, (size_t)f.nnodes * 2 * sizeof(double));
    memcpy(f.tri, def->tri, (size_t)f.ntri * 3 * sizeof(int));
    for (int k = 0; k < f.nnodes; k++) f.perm[k] = perm ? perm[k] : k;
    if (vw->fd[PVD_FEM] < 0) {
        rc_status s = rco_pvd_create(vw, PVD_FEM, "rc_vtk_add_fem");
        if (s != RC_OK) {
            if (vw->fd[PVD_FEM] >= 0) close(vw->fd[PVD_FEM]);
            vw->fd[PVD_FEM] = -1;
            fem_entry_free(&f);
            return s;
        }
    }
    ((rc__vtk_fem *)vw->fem.p)[vw->nfem++] = f;
    return RC_OK;
}

/* A body still in the world as it was added. */
static int fem_live(const rc_world *w, const rc__vtk_fem *f)
{
    return f->body < rc_body_count(w) && w->bodies[f->body].kind == RC_BODY_LINEAR
           && rc_body_generation(w, f->body) == f->gen && w->bodies[f->body].nq == 2 * f->nnodes;
}

/* Points (undeformed), cells, and the elements' stress in vw->fem_cell. */
static rc_status fem_geometry(rc_vtk_writer *vw, const rc_world *w, size_t *npts, size_t *ncell)
{
    const rc__vtk_fem *F = vw->fem.p;
    size_t np = 0, nc = 0;
    for (int i = 0; i < vw->nfem; i++)
        if (fem_live(w, &F[i])) { np += (size_t)F[i].nnodes; nc += (size_t)F[i].ntri; }
    RC_CHECK(rco_grow(&vw->pts, (np ? np : 1) * 3 * sizeof(double)));
    RC_CHECK(rco_grow(&vw->conn[0], (nc ? nc : 1) * 3 * sizeof(int64_t)));
    RC_CHECK(rco_grow(&vw->offs[0], (nc ? nc : 1) * sizeof(int64_t)));
    RC_CHECK(rco_grow(&vw->fem_cell, (nc ? nc : 1) * 4 * sizeof(double)));
    double *P = vw->pts.p, *S = vw->fem_cell.p;
    int64_t *C = vw->conn[0].p, *O = vw->offs[0].p;
    size_t p0 = 0, c0 = 0;
    for (int i = 0; i < vw->nfem; i++) {
        const rc__vtk_fem *f = &F[i];
        if (!fem_live(w, f)) continue;
        const double *q = w->q + w->bodies[f->body].iq;
        for (int k = 0; k < f->nnodes; k++) {
            P[3 * (p0 + k)] = f->xy[2 * k];
            P[3 * (p0 + k) + 1] = f->xy[2 * k + 1];
            P[3 * (p0 + k) + 2] = 0.0;
        }
        for (int e = 0; e < f->ntri; e++) {
            const int *t = f->tri + 3 * e;
            double ue[6];
            for (int a = 0; a < 3; a++) {
                C[3 * (c0 + e) + a] = (int64_t)(p0 + t[a]);
                ue[2 * a] = q[2 * f->perm[t[a]]];
                ue[2 * a + 1] = q[2 * f->perm[t[a]] + 1];
            }
            O[c0 + e] = (int64_t)(3 * (c0 + e + 1));
            double *s = S + 4 * (c0 + e);
            rcm_fem_element_stress(f->D[0], f->xy, t, ue, s);
            s[3] = rcm_fem_von_mises(s, f->plane, f->nu);
        }
        p0 += (size_t)f->nnodes;
        c0 += (size_t)f->ntri;
    }
    *npts = np;
    *ncell = nc;
    return RC_OK;
}

/* A point array of the live bodies: what = 0 displacement, 1 velocity (3
 * components), 2 body, 3 node (int32). */
static rc_status fem_point_array(rc_vtk_writer *vw, const rc_world *w, size_t np, int what)
{
    static const char *const names[4] = { "displacement", "velocity", "body", "node" };
    const rc__vtk_fem *F = vw->fem.p;
    void *stage;
    RC_CHECK(rco_stage(vw, 3 * np, sizeof(double), &stage));
    double *x = stage;
    int32_t *ix = stage;
    size_t m = 0;
    for (int i = 0; i < vw->nfem; i++) {
        const rc__vtk_fem *f = &F[i];
        if (!fem_live(w, f)) continue;
        const rc_body *b = &w->bodies[f->body];
        const double *src = what == 0 ? w->q + b->iq : w->v + b->iv;
        for (int k = 0; k < f->nnodes; k++, m++) {
            if (what >= 2) { ix[m] = what == 2 ? (int32_t)f->body : (int32_t)(k + 1); continue; }
            x[3 * m] = src[2 * f->perm[k]];
            x[3 * m + 1] = src[2 * f->perm[k] + 1];
            x[3 * m + 2] = 0.0;
        }
    }
    if (what >= 2) return rco_array(vw, names[what], T_I32, 1, np, ix, 0);
    return rco_array(vw, names[what], T_F64, 3, np, x, 0);
}

/* A cell array: what = 0 stress (3 components), 1 von_mises, 2 body, 3 element. */
static rc_status fem_cell_array(rc_vtk_writer *vw, const rc_world *w, size_t nc, int what)
{
    static const char *const names[4] = { "stress", "von_mises", "body", "element" };
    const rc__vtk_fem *F = vw->fem.p;
    const double *S = vw->fem_cell.p;
    void *stage;
    RC_CHECK(rco_stage(vw, 3 * nc, sizeof(double), &stage));
    double *x = stage;
    int32_t *ix = stage;
    size_t m = 0;
    for (int i = 0; i < vw->nfem; i++) {
        const rc__vtk_fem *f = &F[i];
        if (!fem_live(w, f)) continue;
        for (int e = 0; e < f->ntri; e++, m++) {
            if (what == 0) memcpy(x + 3 * m, S + 4 * m, 3 * sizeof(double));
            else if (what == 1) x[m] = S[4 * m + 3];
            else ix[m] = what == 2 ? (int32_t)f->body : (int32_t)(e + 1);
        }
    }
    if (what >= 2) return rco_array(vw, names[what], T_I32, 1, nc, ix, 0);
    return rco_array(vw, names[what], T_F64, what == 0 ? 3 : 1, nc, x, 0);
}

rc_status rco_fem(rc_vtk_writer *vw, const rc_world *w, double t, long step)
{
    size_t np, nc;
    RC_CHECK(fem_geometry(vw, w, &np, &nc));
    vw->xml_len = 0;
    vw->xml_overflow = 0;
    vw->app_len = 0;
    rco_xml(vw, "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\""
                " compressor=\"vtkZLibDataCompressor\">\n"
                "  <UnstructuredGrid>\n"
                "    <FieldData>\n", rco_byte_order());
    int64_t st = step;
    RC_CHECK(rco_array(vw, "TimeValue", T_F64, 1, 1, &t, 1));
    RC_CHECK(rco_array(vw, "Step", T_I64, 1, 1, &st, 1));
    rco_xml(vw, "    </FieldData>\n"
                "    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n"
                "      <PointData Vectors=\"displacement\">\n", np, nc);
    for (int what = 0; what < 4; what++) RC_CHECK(fem_point_array(vw, w, np, what));
    rco_xml(vw, "      </PointData>\n"
                "      <CellData Scalars=\"von_mises\">\n");
    for (int what = 0; what < 4; what++) RC_CHECK(fem_cell_array(vw, w, nc, what));
    rco_xml(vw, "      </CellData>\n"
                "      <Points>\n");
    RC_CHECK(rco_array(vw, "Points", T_F64, 3, np, vw->pts.p, 0));
    rco_xml(vw, "      </Points>\n"
                "      <Cells>\n");
    RC_CHECK(rco_array(vw, "connectivity", T_I64, 1, 3 * nc, vw->conn[0].p, 0));
    RC_CHECK(rco_array(vw, "offsets", T_I64, 1, nc, vw->offs[0].p, 0));
    unsigned char *types;
    RC_CHECK(rco_stage(vw, nc, 1, (void **)&types));
    memset(types, 5, nc);   /* VTK_TRIANGLE */
    RC_CHECK(rco_array(vw, "types", T_U8, 1, nc, types, 0));
    rco_xml(vw, "      </Cells>\n"
                "    </Piece>\n"
                "  </UnstructuredGrid>\n"
                "  <AppendedData encoding=\"raw\">\n"
                "   _");
    return rco_write_vtp(vw, PART_FEM);
}
