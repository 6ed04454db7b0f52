/*
 * vtk.c -- a VTK XML PolyData series for ParaView (docs/output-vtk.md).
 *
 * Every rc_vtk_frame writes three files into DIR (NNNNNN = frame number from 0):
 *   grains_NNNNNN.vtp    one point (vertex cell) per live body: position; point
 *                        data id (the slot), generation (id and generation name
 *                        one body for ever, docs/embedding.md), kind, radius,
 *                        velocity, angle, omega
 *   contacts_NNNNNN.vtp  one line cell per active contact, from body A's centre
 *                        (the contact point for the ground) to body B's centre;
 *                        cell data id, body_a, body_b, normal_force (pN/h),
 *                        tangential_force (pT/h), force, normal, contact_point,
 *                        gap, pN, pT
 *   shapes_NNNNNN.vtp    the outlines in the world frame: polygons and disks as
 *                        polygon cells, a radius line per disk (its angle),
 *                        segments, half-planes and circular walls (a closed
 *                        polyline) as line cells, point
 *                        contactors as vertex cells; cell data body, shape, type
 * and adds them to four collection files: series.pvd (the three as parts 0, 1,
 * 2) and grains.pvd, contacts.pvd, shapes.pvd (one each). With finite-element
 * bodies (rc_vtk_add_fem, vtk_fem.c) a fourth file, fem_NNNNNN.vtu (an
 * UnstructuredGrid), part 3 of series.pvd and fem.pvd. Every file carries
 * the field data TimeValue and Step.
 *
 * Format: VTKFile version 1.0, byte_order of the host (LittleEndian on x86 and
 * arm64), header_type="UInt64", compressor="vtkZLibDataCompressor", every
 * DataArray format="appended" in one <AppendedData encoding="raw"> section
 * (raw bytes after a '_'; offset = bytes from the first byte after the '_').
 * Each array's data is cut into blocks of RC_VTK_BLOCK uncompressed bytes, each
 * block compressed as its own zlib stream, preceded by the UInt64 header
 *     [nblocks][RC_VTK_BLOCK][size of the last block if partial, else 0]
 *     [compressed size of block 1] ... [compressed size of block nblocks]
 * (an empty array is the header [0][RC_VTK_BLOCK][0]). This is what VTK's own
 * vtkXMLWriter writes with SetCompressorTypeToZLib and SetHeaderTypeToUInt64.
 *
 * The .pvd files are valid XML after every frame: each frame's DataSet lines
 * and the closing tags are written with one pwrite over the previous closing
 * tags (O(1) per frame; the .vtp files of a frame are complete before they are
 * listed). Before the closing tags, a comment says how the series stands:
 * "<!-- ricochet: running -->" while it is written (what a killed program
 * leaves), "<!-- ricochet: incomplete: STATUS: MESSAGE -->" after rc_vtk_mark
 * (the run ended early: interrupted, exited, error, ...), none once closed
 * after a run that completed. The buffers of a frame (points, cells, the compressed data, the
 * zlib stream) are kept between frames: once they have reached the size the
 * world needs, a frame allocates nothing.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/vtk_impl.h"

/* ---------------------------------------------------------------- API */

rc_vtk_def rc_default_vtk_def(void)
{
    rc_vtk_def d;
    memset(&d, 0, sizeof d);
    d.level = 1;
    d.disk_segments = 32;
    return d;
}

static void rc__vtk_free(rc_vtk_writer *vw)
{
    if (!vw) return;
    for (int f = 0; f < PVD_N; f++)
        if (vw->fd[f] >= 0) close(vw->fd[f]);
    if (vw->zs_ready) deflateEnd(&vw->zs);
    rco_buf_free(&vw->body);
    rco_buf_free(&vw->kind);
    rco_buf_free(&vw->gen);
    rco_buf_free(&vw->rad);
    rco_buf_free(&vw->con);
    rco_buf_free(&vw->pts);
    for (int k = 0; k < CELL_N; k++) {
        rco_buf_free(&vw->conn[k]);
        rco_buf_free(&vw->offs[k]);
        rco_buf_free(&vw->cinfo[k]);
    }
    rco_fem_free(vw);
    rco_buf_free(&vw->stage);
    rco_buf_free(&vw->app);
    rcb_free(vw->dir);
    rcb_free(vw->path);
    rcb_free(vw);
}

rc_status rc_vtk_open(const rc_vtk_def *def, rc_vtk_writer **out)
{
    if (out) *out = NULL;
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_vtk_open: def is NULL");
    if (!out) return rc_set_error(RC_ERR_ARG, "rc_vtk_open: out is NULL");
    if (!def->dir || !def->dir[0])
        return rc_set_error(RC_ERR_ARG, "rc_vtk_open: dir must be a non-empty path");
    if (def->level < 0 || def->level > 9)
        return rc_set_error(RC_ERR_ARG, "rc_vtk_open: level must be in 0..9 (got %d)", def->level);
    if (def->disk_segments < 8 || def->disk_segments > 1024)
        return rc_set_error(RC_ERR_ARG, "rc_vtk_open: disk_segments must be in 8..1024 (got %d)",
                            def->disk_segments);

    rc_vtk_writer *vw = rcb_malloc(sizeof *vw);
    if (!vw) return rc_set_error(RC_ERR_NOMEM, "rc_vtk_open: out of memory");
    memset(vw, 0, sizeof *vw);
    for (int f = 0; f < PVD_N; f++) vw->fd[f] = -1;
    vw->level = def->level;
    vw->segments = def->disk_segments;
    vw->disk_outlines = def->disk_outlines != 0;

    size_t n = strlen(def->dir);
    while (n > 1 && def->dir[n - 1] == '/') n--;
    vw->dir = rcb_malloc(n + 1);
    vw->path = rcb_malloc(n + 1 + RC_VTK_NAME_MAX);
    if (!vw->dir || !vw->path) {
        rc__vtk_free(vw);
        return rc_set_error(RC_ERR_NOMEM, "rc_vtk_open: out of memory");
    }
    memcpy(vw->dir, def->dir, n);
    vw->dir[n] = '\0';
    /* "/" alone: the files go to "/name" */
    vw->dirlen = (n == 1 && vw->dir[0] == '/') ? 0 : n;
    memcpy(vw->path, vw->dir, vw->dirlen);
    vw->path[vw->dirlen] = '/';

    memset(&vw->zs, 0, sizeof vw->zs);
    if (deflateInit(&vw->zs, vw->level) != Z_OK) {
        rc__vtk_free(vw);
        return rc_set_error(RC_ERR_NOMEM, "rc_vtk_open: zlib: deflateInit failed");
    }
    vw->zs_ready = 1;

    rc_status s = rco_vtk_mkdirs(vw->dir, "rc_vtk_open");
    if (s != RC_OK) { rc__vtk_free(vw); return s; }

    memcpy(vw->mark, rc__mark_running, sizeof rc__mark_running);
    vw->mark_len = sizeof rc__mark_running - 1;
    for (int f = 0; f < PVD_N; f++) {
        if (f == PVD_FEM) continue;   /* created by rc_vtk_add_fem */
        s = rco_pvd_create(vw, f, "rc_vtk_open");
        if (s != RC_OK) { rc__vtk_free(vw); return s; }
    }
    *out = vw;
    return RC_OK;
}

rc_status rc_vtk_frame(rc_vtk_writer *vw, const rc_world *w)
{
    if (!vw) return rc_set_error(RC_ERR_ARG, "rc_vtk_frame: writer is NULL");
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_vtk_frame: world is NULL");
    if (vw->broken)
        return rc_set_error(RC_ERR_IO, "rc_vtk_frame: the series in %s is stopped: %s", vw->dir,
                            vw->broken_msg);
    int nb = rc_body_count(w);
    if (nb < 0) nb = 0;
    double t = rc_world_time(w);
    long step = rc_world_step_count(w);
    double box[4];
    if (w->def.dim == 3) {   /* spatial bodies and their shapes (vtk_frame3.c) */
        RC_CHECK(rco_frame3(vw, w, t, step));
    } else {
        RC_CHECK(rco_gather_bodies(vw, w, nb, box));
        RC_CHECK(rco_grains(vw, nb, t, step));
        RC_CHECK(rco_contacts(vw, w, nb, t, step));
        RC_CHECK(rco_shapes(vw, w, nb, box, t, step));
    }
    if (vw->nfem > 0) RC_CHECK(rco_fem(vw, w, t, step));
    RC_CHECK(rco_update_pvds(vw, t));
    vw->frames++;
    return RC_OK;
}

long rc_vtk_frame_count(const rc_vtk_writer *vw)
{
    return vw ? vw->frames : 0;
}

rc_status rc_vtk_mark(rc_vtk_writer *vw, const char *status, const char *message)
{
    if (!vw) return rc_set_error(RC_ERR_ARG, "rc_vtk_mark: writer is NULL");
    if (!status || !status[0])
        return rc_set_error(RC_ERR_ARG, "rc_vtk_mark: status must be a non-empty string");
    if (strcmp(status, "complete") == 0) {
        vw->mark[0] = '\0';
        vw->mark_len = 0;
    } else if (strcmp(status, "running") == 0) {
        memcpy(vw->mark, rc__mark_running, sizeof rc__mark_running);
        vw->mark_len = sizeof rc__mark_running - 1;
    } else {
        rco_set_mark(vw, status, message);
    }
    return rco_write_tails(vw, "rc_vtk_mark");
}

rc_status rc_vtk_close(rc_vtk_writer *vw)
{
    if (!vw) return RC_OK;
    rc_status s = RC_OK;
    if (vw->mark_len == sizeof rc__mark_running - 1
        && memcmp(vw->mark, rc__mark_running, vw->mark_len) == 0) {   /* no end said: complete */
        vw->mark[0] = '\0';
        vw->mark_len = 0;
        s = rco_write_tails(vw, "rc_vtk_close");
    }
    for (int f = 0; f < PVD_N; f++) {
        if (vw->fd[f] < 0) continue;
        if (close(vw->fd[f]) != 0 && s == RC_OK) {   /* (rco_write_tails: first error kept) */
            int e = errno;
            s = rc_set_error(RC_ERR_IO, "rc_vtk_close: cannot write %s: %s",
                             rco_path(vw, rc__pvd_names[f]), strerror(e));
        }
        vw->fd[f] = -1;
    }
    rc__vtk_free(vw);
    return s;
}
