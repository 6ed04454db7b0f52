/*
 * vtk.c -- a VTK XML PolyData series for ParaView (docs/output-vtk.md).
 *
 * Every rc_vtk_frame writes three files into DIR (NNNNNN = frame number from 0):
 *   grains_NNNNNN.vtp    one point (vertex cell) per body: position; point data
 *                        id, kind, radius, velocity, angle, omega
 *   contacts_NNNNNN.vtp  one line cell per active contact, from body A's centre
 *                        (the contact point for the ground) to body B's centre;
 *                        cell data id, body_a, body_b, normal_force (pN/h),
 *                        tangential_force (pT/h), force, normal, contact_point,
 *                        gap, pN, pT
 *   shapes_NNNNNN.vtp    the outlines in the world frame: polygons and disks as
 *                        polygon cells, a radius line per disk (its angle),
 *                        segments and half-planes as line cells, point
 *                        contactors as vertex cells; cell data body, shape, type
 * and adds them to four collection files: series.pvd (the three as parts 0, 1,
 * 2) and grains.pvd, contacts.pvd, shapes.pvd (one each). Every file carries
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

#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>

#define RC_VTK_BLOCK 32768u        /* uncompressed bytes per block (VTK's default) */
#define RC_VTK_XML_MAX 16384       /* the XML part of one .vtp (about 4 kB used)   */
#define RC_VTK_NAME_MAX 48         /* "contacts_" + number + ".vtp" + NUL          */
#define RC_VTK_PI 3.14159265358979323846

enum { PVD_SERIES, PVD_GRAINS, PVD_CONTACTS, PVD_SHAPES, PVD_N };
enum { PART_GRAINS, PART_CONTACTS, PART_SHAPES, PART_N };
enum { CELL_VERTS, CELL_LINES, CELL_POLYS, CELL_N };

static const char *const rc__pvd_names[PVD_N] = {
    "series.pvd", "grains.pvd", "contacts.pvd", "shapes.pvd"
};
static const char *const rc__part_names[PART_N] = { "grains", "contacts", "shapes" };

static const char rc__pvd_head[] =
    "<?xml version=\"1.0\"?>\n"
    "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"%s\">\n"
    "  <Collection>\n";
static const char rc__pvd_tail[] = "  </Collection>\n</VTKFile>\n";
static const char rc__vtp_tail[] = "\n  </AppendedData>\n</VTKFile>\n";

typedef enum { T_F64, T_I64, T_I32 } rc__vtype;
static const char *const rc__vtype_names[] = { "Float64", "Int64", "Int32" };
static const size_t rc__vtype_size[] = { 8, 8, 4 };

/* A growable byte buffer. */
typedef struct rc__buf {
    void *p;
    size_t cap;
} rc__buf;

struct rc_vtk_writer {
    char *dir;              /* without trailing slashes */
    size_t dirlen;
    char *path;             /* DIR/ + a file name: room for the longest name */
    int level, segments;
    long frames;
    int fd[PVD_N];          /* the .pvd files, open for the writer's lifetime */
    off_t tail[PVD_N];      /* offset of their closing tags */
    z_stream zs;
    int zs_ready;
    int broken;             /* a .pvd could not be updated: the series is stuck */
    char broken_msg[600];
    char mark[800];         /* the comment before the closing tags ("" if none) */
    size_t mark_len;
    off_t end[PVD_N];       /* the .pvd files' lengths */

    /* frame data, kept between frames */
    rc__buf body;           /* 6 doubles per body: x y theta vx vy omega */
    rc__buf kind;           /* int32 per body: 1 rigid2d, 2 linear */
    rc__buf rad;            /* double per body: bounding radius */
    rc__buf con;            /* rc_contact_info of the active contacts */
    size_t ncon;
    rc__buf pts;            /* 3 doubles per point */
    size_t npts;
    rc__buf conn[CELL_N], offs[CELL_N];   /* int64 */
    size_t nconn[CELL_N], ncell[CELL_N];
    rc__buf cinfo[CELL_N];  /* shapes: 3 int32 per cell (body, shape, type) */
    rc__buf stage;          /* one uncompressed array */
    rc__buf app;            /* the appended data of the file being built */
    size_t app_len;
    char xml[RC_VTK_XML_MAX];
    size_t xml_len;
    int xml_overflow;
};

/* ---------------------------------------------------------------- helpers */

static int rc__little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static const char *rc__byte_order(void)
{
    return rc__little_endian() ? "LittleEndian" : "BigEndian";
}

static rc_status rc__grow(rc__buf *b, size_t need)
{
    if (need <= b->cap) return RC_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) return rc_set_error(RC_ERR_NOMEM, "rc_vtk_frame: out of memory");
        cap *= 2;
    }
    void *p = rc_realloc(b->p, cap);
    if (!p) return rc_set_error(RC_ERR_NOMEM, "rc_vtk_frame: out of memory (%zu bytes)", cap);
    b->p = p;
    b->cap = cap;
    return RC_OK;
}

static void rc__buf_free(rc__buf *b)
{
    rc_free(b->p);
    b->p = NULL;
    b->cap = 0;
}

/* The shortest of %.15g/%.16g/%.17g that reads back exactly. */
static void rc__fmt_double(char *b, size_t n, double x)
{
    if (!rc_finite(x)) { snprintf(b, n, "%s", x != x ? "nan" : x > 0 ? "inf" : "-inf"); return; }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, n, "%.*g", prec, x);
        if (strtod(b, NULL) == x) return;
    }
}

/* DIR/name into vw->path. */
static const char *rc__path(rc_vtk_writer *vw, const char *name)
{
    size_t n = strlen(name);
    if (n >= RC_VTK_NAME_MAX) n = RC_VTK_NAME_MAX - 1;
    memcpy(vw->path + vw->dirlen + 1, name, n);
    vw->path[vw->dirlen + 1 + n] = '\0';
    return vw->path;
}

/* mkdir -p (fname: the calling function, for messages) */
static rc_status rc__mkdirs(const char *dir, const char *fname)
{
    size_t n = strlen(dir);
    char *tmp = rc_malloc(n + 1);
    if (!tmp) return rc_set_error(RC_ERR_NOMEM, "%s: out of memory", fname);
    memcpy(tmp, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0') continue;
        if (tmp[i - 1] == '/') continue;
        char c = tmp[i];
        tmp[i] = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            rc_status s = rc_set_error(RC_ERR_IO, "%s: cannot create directory %s: %s", fname, tmp,
                                       strerror(e));
            rc_free(tmp);
            return s;
        }
        tmp[i] = c;
    }
    rc_free(tmp);
    struct stat st;
    if (stat(dir, &st) != 0)
        return rc_set_error(RC_ERR_IO, "%s: cannot create directory %s: %s", fname, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rc_set_error(RC_ERR_IO, "%s: %s exists and is not a directory", fname, dir);
    return RC_OK;
}

/* write() all of it; 0 or an errno value. */
static int rc__write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return errno ? errno : EIO;
        }
        if (k == 0) return EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int rc__pwrite_all(int fd, const void *data, size_t n, off_t off)
{
    const char *p = data;
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, off);
        if (k < 0) {
            if (errno == EINTR) continue;
            return errno ? errno : EIO;
        }
        if (k == 0) return EIO;
        p += k;
        n -= (size_t)k;
        off += k;
    }
    return 0;
}

/* ---------------------------------------------------------------- one .vtp */

static void rc__xml(rc_vtk_writer *vw, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void rc__xml(rc_vtk_writer *vw, const char *fmt, ...)
{
    if (vw->xml_overflow) return;
    size_t room = sizeof vw->xml - vw->xml_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(vw->xml + vw->xml_len, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) { vw->xml_overflow = 1; return; }
    vw->xml_len += (size_t)n;
}

/* Compress nbytes of data into the appended section (the block header, then
 * the blocks). */
static rc_status rc__compress(rc_vtk_writer *vw, const void *data, size_t nbytes)
{
    size_t nblocks = (nbytes + RC_VTK_BLOCK - 1) / RC_VTK_BLOCK;
    size_t hbytes = 8 * (3 + nblocks);
    size_t bound = hbytes + nblocks * (size_t)deflateBound(&vw->zs, RC_VTK_BLOCK);
    RC_CHECK(rc__grow(&vw->app, vw->app_len + bound));
    unsigned char *base = (unsigned char *)vw->app.p + vw->app_len;
    uint64_t h[3] = { (uint64_t)nblocks, (uint64_t)RC_VTK_BLOCK, (uint64_t)(nbytes % RC_VTK_BLOCK) };
    memcpy(base, h, sizeof h);
    size_t pos = hbytes;
    for (size_t b = 0; b < nblocks; b++) {
        size_t off = b * RC_VTK_BLOCK;
        size_t len = nbytes - off < RC_VTK_BLOCK ? nbytes - off : RC_VTK_BLOCK;
        size_t room = vw->app.cap - vw->app_len - pos;
        if (deflateReset(&vw->zs) != Z_OK)
            return rc_set_error(RC_ERR_STATE, "rc_vtk_frame: zlib: deflateReset failed");
        vw->zs.next_in = (Bytef *)((const unsigned char *)data + off);
        vw->zs.avail_in = (uInt)len;
        vw->zs.next_out = base + pos;
        vw->zs.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
        int r = deflate(&vw->zs, Z_FINISH);
        if (r != Z_STREAM_END)
            return rc_set_error(RC_ERR_STATE, "rc_vtk_frame: zlib: deflate failed (%d: %s)", r,
                                vw->zs.msg ? vw->zs.msg : "no message");
        uint64_t cs = (uint64_t)vw->zs.total_out;
        memcpy(base + 24 + 8 * b, &cs, 8);
        pos += (size_t)cs;
    }
    vw->app_len += pos;
    return RC_OK;
}

/* A DataArray (ntuples x ncomp values of type 'type' at data) referring to
 * the appended section. field: inside <FieldData> (NumberOfTuples given). */
static rc_status rc__array(rc_vtk_writer *vw, const char *name, rc__vtype type, int ncomp,
                           size_t ntuples, const void *data, int field)
{
    const char *indent = field ? "      " : "        ";
    rc__xml(vw, "%s<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"", indent,
            rc__vtype_names[type], name, ncomp);
    if (field) rc__xml(vw, " NumberOfTuples=\"%zu\"", ntuples);
    rc__xml(vw, " format=\"appended\" offset=\"%zu\"/>\n", vw->app_len);
    return rc__compress(vw, data, ntuples * (size_t)ncomp * rc__vtype_size[type]);
}

/* The stage buffer for n values of 'size' bytes. */
static rc_status rc__stage(rc_vtk_writer *vw, size_t n, size_t size, void **out)
{
    RC_CHECK(rc__grow(&vw->stage, n * size > 0 ? n * size : 1));
    *out = vw->stage.p;
    return RC_OK;
}

static rc_status rc__begin(rc_vtk_writer *vw, double t, long step, size_t npts, const size_t ncell[CELL_N])
{
    vw->xml_len = 0;
    vw->xml_overflow = 0;
    vw->app_len = 0;
    rc__xml(vw, "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\""
                " compressor=\"vtkZLibDataCompressor\">\n"
                "  <PolyData>\n"
                "    <FieldData>\n", rc__byte_order());
    int64_t st = step;
    RC_CHECK(rc__array(vw, "TimeValue", T_F64, 1, 1, &t, 1));
    RC_CHECK(rc__array(vw, "Step", T_I64, 1, 1, &st, 1));
    rc__xml(vw, "    </FieldData>\n"
                "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"%zu\""
                " NumberOfStrips=\"0\" NumberOfPolys=\"%zu\">\n",
            npts, ncell[CELL_VERTS], ncell[CELL_LINES], ncell[CELL_POLYS]);
    return RC_OK;
}

/* Points (vw->pts) and the cells (vw->conn/offs), after the point and cell data. */
static rc_status rc__geometry(rc_vtk_writer *vw)
{
    static const char *const tags[CELL_N] = { "Verts", "Lines", "Polys" };
    rc__xml(vw, "      <Points>\n");
    RC_CHECK(rc__array(vw, "Points", T_F64, 3, vw->npts, vw->pts.p, 0));
    rc__xml(vw, "      </Points>\n");
    for (int k = 0; k < CELL_N; k++) {
        if (k == CELL_POLYS) {   /* VTK's order: Verts, Lines, Strips, Polys */
            rc__xml(vw, "      <Strips>\n");
            RC_CHECK(rc__array(vw, "connectivity", T_I64, 1, 0, NULL, 0));
            RC_CHECK(rc__array(vw, "offsets", T_I64, 1, 0, NULL, 0));
            rc__xml(vw, "      </Strips>\n");
        }
        rc__xml(vw, "      <%s>\n", tags[k]);
        RC_CHECK(rc__array(vw, "connectivity", T_I64, 1, vw->nconn[k], vw->conn[k].p, 0));
        RC_CHECK(rc__array(vw, "offsets", T_I64, 1, vw->ncell[k], vw->offs[k].p, 0));
        rc__xml(vw, "      </%s>\n", tags[k]);
    }
    rc__xml(vw, "    </Piece>\n"
                "  </PolyData>\n"
                "  <AppendedData encoding=\"raw\">\n"
                "   _");
    return RC_OK;
}

static rc_status rc__write_vtp(rc_vtk_writer *vw, int part)
{
    char name[RC_VTK_NAME_MAX];
    snprintf(name, sizeof name, "%s_%06ld.vtp", rc__part_names[part], vw->frames);
    const char *path = rc__path(vw, name);
    if (vw->xml_overflow)
        return rc_set_error(RC_ERR_STATE, "rc_vtk_frame: %s: the XML header is too long", path);
    errno = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return rc_set_error(RC_ERR_IO, "rc_vtk_frame: cannot open %s: %s", path, strerror(errno));
    int e = rc__write_all(fd, vw->xml, vw->xml_len);
    if (!e) e = rc__write_all(fd, vw->app.p, vw->app_len);
    if (!e) e = rc__write_all(fd, rc__vtp_tail, sizeof rc__vtp_tail - 1);
    if (close(fd) != 0 && !e) e = errno ? errno : EIO;
    if (e) return rc_set_error(RC_ERR_IO, "rc_vtk_frame: cannot write %s: %s", path, strerror(e));
    return RC_OK;
}

/* ---------------------------------------------------------------- geometry builders */

static void rc__reset_geometry(rc_vtk_writer *vw)
{
    vw->npts = 0;
    for (int k = 0; k < CELL_N; k++) vw->nconn[k] = vw->ncell[k] = 0;
}

static rc_status rc__point(rc_vtk_writer *vw, double x, double y)
{
    RC_CHECK(rc__grow(&vw->pts, (vw->npts + 1) * 3 * sizeof(double)));
    double *p = (double *)vw->pts.p + 3 * vw->npts;
    p[0] = x; p[1] = y; p[2] = 0.0;
    vw->npts++;
    return RC_OK;
}

/* A cell of kind k over the n points first..first+n-1; info: 3 int32 or NULL. */
static rc_status rc__cell(rc_vtk_writer *vw, int k, size_t first, size_t n, const int32_t *info)
{
    RC_CHECK(rc__grow(&vw->conn[k], (vw->nconn[k] + n) * sizeof(int64_t)));
    RC_CHECK(rc__grow(&vw->offs[k], (vw->ncell[k] + 1) * sizeof(int64_t)));
    int64_t *c = (int64_t *)vw->conn[k].p + vw->nconn[k];
    for (size_t i = 0; i < n; i++) c[i] = (int64_t)(first + i);
    vw->nconn[k] += n;
    ((int64_t *)vw->offs[k].p)[vw->ncell[k]] = (int64_t)vw->nconn[k];
    if (info) {
        RC_CHECK(rc__grow(&vw->cinfo[k], (vw->ncell[k] + 1) * 3 * sizeof(int32_t)));
        memcpy((int32_t *)vw->cinfo[k].p + 3 * vw->ncell[k], info, 3 * sizeof(int32_t));
    }
    vw->ncell[k]++;
    return RC_OK;
}

/* ---------------------------------------------------------------- the frame */

/* Bodies: state, kind and bounding radius; the bounding box of the rigid
 * bodies (for drawing half-planes). */
static rc_status rc__gather_bodies(rc_vtk_writer *vw, const rc_world *w, int nb, double box[4])
{
    int ns = rc_shape_count(w);
    size_t n = nb > 0 ? (size_t)nb : 1;
    RC_CHECK(rc__grow(&vw->body, n * 6 * sizeof(double)));
    RC_CHECK(rc__grow(&vw->kind, n * sizeof(int32_t)));
    RC_CHECK(rc__grow(&vw->rad, n * sizeof(double)));
    double *B = vw->body.p, *R = vw->rad.p;
    int32_t *K = vw->kind.p;
    for (int i = 0; i < nb; i++) {
        double *s = B + 6 * i;
        for (int j = 0; j < 6; j++) s[j] = 0.0;
        R[i] = 0.0;
        K[i] = (int32_t)w->bodies[i].kind;
        if (w->bodies[i].kind != RC_BODY_RIGID2D) continue;
        double q[7], v[6];
        RC_CHECK(rc_body_get_state(w, i, q, v));
        s[0] = q[0]; s[1] = q[1]; s[2] = q[2];
        s[3] = v[0]; s[4] = v[1]; s[5] = v[2];
    }
    for (int id = 0; id < ns; id++) {
        int body = RC_GROUND;
        rc_shape_def d;
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

static rc_status rc__grains(rc_vtk_writer *vw, int nb, double t, long step)
{
    const double *B = vw->body.p, *R = vw->rad.p;
    const int32_t *K = vw->kind.p;
    size_t n = (size_t)nb;
    rc__reset_geometry(vw);
    for (size_t i = 0; i < n; i++) {
        RC_CHECK(rc__point(vw, B[6 * i], B[6 * i + 1]));
        RC_CHECK(rc__cell(vw, CELL_VERTS, i, 1, NULL));
    }
    RC_CHECK(rc__begin(vw, t, step, vw->npts, vw->ncell));
    rc__xml(vw, "      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    int32_t *ids;
    RC_CHECK(rc__stage(vw, n, sizeof(int32_t), (void **)&ids));
    for (size_t i = 0; i < n; i++) ids[i] = (int32_t)i;
    RC_CHECK(rc__array(vw, "id", T_I32, 1, n, ids, 0));
    RC_CHECK(rc__array(vw, "kind", T_I32, 1, n, K, 0));
    RC_CHECK(rc__array(vw, "radius", T_F64, 1, n, R, 0));
    double *x;
    RC_CHECK(rc__stage(vw, 3 * n, sizeof(double), (void **)&x));
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = B[6 * i + 3];
        x[3 * i + 1] = B[6 * i + 4];
        x[3 * i + 2] = 0.0;
    }
    RC_CHECK(rc__array(vw, "velocity", T_F64, 3, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = B[6 * i + 2];
    RC_CHECK(rc__array(vw, "angle", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = B[6 * i + 5];
    RC_CHECK(rc__array(vw, "omega", T_F64, 1, n, x, 0));
    rc__xml(vw, "      </PointData>\n"
                "      <CellData>\n"
                "      </CellData>\n");
    RC_CHECK(rc__geometry(vw));
    return rc__write_vtp(vw, PART_GRAINS);
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

static rc_status rc__contacts(rc_vtk_writer *vw, const rc_world *w, int nb, double t, long step)
{
    int nc = rc_contact_count(w);
    vw->ncon = 0;
    for (int i = 0; i < nc; i++) {
        rc_contact_info ci;
        RC_CHECK(rc_contact_get(w, i, &ci));
        if (!ci.active) continue;
        RC_CHECK(rc__grow(&vw->con, (vw->ncon + 1) * sizeof(rc_contact_info)));
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
    RC_CHECK(rc__begin(vw, t, step, vw->npts, vw->ncell));
    rc__xml(vw, "      <PointData>\n"
                "      </PointData>\n"
                "      <CellData Scalars=\"normal_force\" Vectors=\"force\">\n");
    int32_t *ids;
    RC_CHECK(rc__stage(vw, n, sizeof(int32_t), (void **)&ids));
    for (size_t i = 0; i < n; i++) ids[i] = C[i].id;
    RC_CHECK(rc__array(vw, "id", T_I32, 1, n, ids, 0));
    for (size_t i = 0; i < n; i++) ids[i] = C[i].body_a;
    RC_CHECK(rc__array(vw, "body_a", T_I32, 1, n, ids, 0));
    for (size_t i = 0; i < n; i++) ids[i] = C[i].body_b;
    RC_CHECK(rc__array(vw, "body_b", T_I32, 1, n, ids, 0));
    double *x;
    RC_CHECK(rc__stage(vw, 3 * n, sizeof(double), (void **)&x));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pN / h;
    RC_CHECK(rc__array(vw, "normal_force", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pT / h;
    RC_CHECK(rc__array(vw, "tangential_force", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) {
        double fn = C[i].pN / h, ft = C[i].pT / h;
        x[3 * i] = fn * C[i].normal[0] + ft * C[i].tangent[0];
        x[3 * i + 1] = fn * C[i].normal[1] + ft * C[i].tangent[1];
        x[3 * i + 2] = 0.0;
    }
    RC_CHECK(rc__array(vw, "force", T_F64, 3, n, x, 0));
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = C[i].normal[0];
        x[3 * i + 1] = C[i].normal[1];
        x[3 * i + 2] = 0.0;
    }
    RC_CHECK(rc__array(vw, "normal", T_F64, 3, n, x, 0));
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = C[i].point[0];
        x[3 * i + 1] = C[i].point[1];
        x[3 * i + 2] = 0.0;
    }
    RC_CHECK(rc__array(vw, "contact_point", T_F64, 3, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].gN;
    RC_CHECK(rc__array(vw, "gap", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pN;
    RC_CHECK(rc__array(vw, "pN", T_F64, 1, n, x, 0));
    for (size_t i = 0; i < n; i++) x[i] = C[i].pT;
    RC_CHECK(rc__array(vw, "pT", T_F64, 1, n, x, 0));
    rc__xml(vw, "      </CellData>\n");
    RC_CHECK(rc__geometry(vw));
    return rc__write_vtp(vw, PART_CONTACTS);
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

static rc_status rc__shapes(rc_vtk_writer *vw, const rc_world *w, int nb, const double box[4],
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
            RC_CHECK(rc_shape_get_def(w, id, &body, &d));
            if (body >= nb || (body >= 0 && K[body] != RC_BODY_RIGID2D)) continue;
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
    RC_CHECK(rc__begin(vw, t, step, vw->npts, vw->ncell));
    rc__xml(vw, "      <PointData>\n"
                "      </PointData>\n"
                "      <CellData Scalars=\"body\">\n");
    size_t ncells = vw->ncell[0] + vw->ncell[1] + vw->ncell[2];
    int32_t *x;
    RC_CHECK(rc__stage(vw, ncells, sizeof(int32_t), (void **)&x));
    static const char *const names[3] = { "body", "shape", "type" };
    for (int f = 0; f < 3; f++) {
        size_t m = 0;
        for (int k = 0; k < CELL_N; k++) {
            const int32_t *ci = vw->cinfo[k].p;
            for (size_t i = 0; i < vw->ncell[k]; i++) x[m++] = ci[3 * i + f];
        }
        RC_CHECK(rc__array(vw, names[f], T_I32, 1, ncells, x, 0));
    }
    rc__xml(vw, "      </CellData>\n");
    RC_CHECK(rc__geometry(vw));
    return rc__write_vtp(vw, PART_SHAPES);
}

static const char rc__mark_running[] = "  <!-- ricochet: running -->\n";

/* The comment "ricochet: incomplete: STATUS: MESSAGE" in vw->mark: UTF-8
 * (other bytes as \xHH), no control characters, no "--" and no '-' last
 * (XML 1.0, 2.5). */
static void rc__set_mark(rc_vtk_writer *vw, const char *status, const char *message)
{
    char *m = vw->mark;
    size_t room = sizeof vw->mark - 8, n = 0;   /* room for " -->\n" and the NUL */
    n = (size_t)snprintf(m, room, "  <!-- ricochet: incomplete: ");
    const char *parts[3] = { status, message ? ": " : NULL, message };
    for (int i = 0; i < 3; i++) {
        for (const char *s = parts[i]; s && *s;) {
            size_t k = rc_utf8_seq(s);
            if (k == 0) {
                if (n + 4 >= room) break;
                n += (size_t)snprintf(m + n, room - n, "\\x%02x", (unsigned)(unsigned char)*s);
                s++;
                continue;
            }
            if (n + k + 1 >= room) break;
            if (k == 1 && ((unsigned char)*s < 0x20 || *s == 0x7f)) m[n++] = ' ';
            else if (*s == '-' && m[n - 1] == '-') { m[n++] = ' '; m[n++] = '-'; }
            else { memcpy(m + n, s, k); n += k; }
            s += k;
        }
    }
    n += (size_t)snprintf(m + n, sizeof vw->mark - n, " -->\n");
    vw->mark_len = n;
}

/* Write the mark and the closing tags of every .pvd after its entries (and
 * cut what a longer mark left behind). */
static rc_status rc__write_tails(rc_vtk_writer *vw, const char *fname)
{
    if (vw->broken) return RC_OK;
    char buf[sizeof vw->mark + sizeof rc__pvd_tail];
    memcpy(buf, vw->mark, vw->mark_len);
    memcpy(buf + vw->mark_len, rc__pvd_tail, sizeof rc__pvd_tail - 1);
    size_t n = vw->mark_len + sizeof rc__pvd_tail - 1;
    for (int f = 0; f < PVD_N; f++) {
        if (vw->fd[f] < 0) continue;
        int e = rc__pwrite_all(vw->fd[f], buf, n, vw->tail[f]);
        off_t end = vw->tail[f] + (off_t)n;
        if (!e && end < vw->end[f] && ftruncate(vw->fd[f], end) != 0) e = errno ? errno : EIO;
        if (e) {
            vw->broken = 1;
            snprintf(vw->broken_msg, sizeof vw->broken_msg, "cannot write %s: %s",
                     rc__path(vw, rc__pvd_names[f]), strerror(e));
            return rc_set_error(RC_ERR_IO, "%s: %s", fname, vw->broken_msg);
        }
        vw->end[f] = end;
    }
    return RC_OK;
}

/* Append this frame's DataSet lines to every .pvd (one pwrite each, over the
 * mark and the closing tags). */
static rc_status rc__update_pvds(rc_vtk_writer *vw, double t)
{
    char ts[40];
    rc__fmt_double(ts, sizeof ts, t);
    if (vw->mark_len != sizeof rc__mark_running - 1) {   /* frames again: running */
        memcpy(vw->mark, rc__mark_running, sizeof rc__mark_running);
        vw->mark_len = sizeof rc__mark_running - 1;
    }
    for (int f = 0; f < PVD_N; f++) {
        char buf[1024 + sizeof vw->mark];
        size_t n = 0;
        for (int part = 0; part < PART_N; part++) {
            if (f != PVD_SERIES && part != f - 1) continue;
            int k = snprintf(buf + n, sizeof buf - n,
                             "    <DataSet timestep=\"%s\" group=\"\" part=\"%d\" file=\"%s_%06ld.vtp\"/>\n",
                             ts, f == PVD_SERIES ? part : 0, rc__part_names[part], vw->frames);
            if (k > 0) n += (size_t)k;
        }
        size_t entries = n;
        memcpy(buf + n, vw->mark, vw->mark_len);
        n += vw->mark_len;
        memcpy(buf + n, rc__pvd_tail, sizeof rc__pvd_tail - 1);
        n += sizeof rc__pvd_tail - 1;
        int e = rc__pwrite_all(vw->fd[f], buf, n, vw->tail[f]);
        off_t end = vw->tail[f] + (off_t)n;
        if (!e && end < vw->end[f] && ftruncate(vw->fd[f], end) != 0) e = errno ? errno : EIO;
        if (e) {
            vw->broken = 1;
            snprintf(vw->broken_msg, sizeof vw->broken_msg, "cannot write %s: %s",
                     rc__path(vw, rc__pvd_names[f]), strerror(e));
            return rc_set_error(RC_ERR_IO, "rc_vtk_frame: %s", vw->broken_msg);
        }
        vw->tail[f] += (off_t)entries;
        vw->end[f] = end;
    }
    return RC_OK;
}

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
    rc__buf_free(&vw->body);
    rc__buf_free(&vw->kind);
    rc__buf_free(&vw->rad);
    rc__buf_free(&vw->con);
    rc__buf_free(&vw->pts);
    for (int k = 0; k < CELL_N; k++) {
        rc__buf_free(&vw->conn[k]);
        rc__buf_free(&vw->offs[k]);
        rc__buf_free(&vw->cinfo[k]);
    }
    rc__buf_free(&vw->stage);
    rc__buf_free(&vw->app);
    rc_free(vw->dir);
    rc_free(vw->path);
    rc_free(vw);
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

    rc_vtk_writer *vw = rc_malloc(sizeof *vw);
    if (!vw) return rc_set_error(RC_ERR_NOMEM, "rc_vtk_open: out of memory");
    memset(vw, 0, sizeof *vw);
    for (int f = 0; f < PVD_N; f++) vw->fd[f] = -1;
    vw->level = def->level;
    vw->segments = def->disk_segments;

    size_t n = strlen(def->dir);
    while (n > 1 && def->dir[n - 1] == '/') n--;
    vw->dir = rc_malloc(n + 1);
    vw->path = rc_malloc(n + 1 + RC_VTK_NAME_MAX);
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

    rc_status s = rc__mkdirs(vw->dir, "rc_vtk_open");
    if (s != RC_OK) { rc__vtk_free(vw); return s; }

    char head[256];
    int hn = snprintf(head, sizeof head, rc__pvd_head, rc__byte_order());
    memcpy(vw->mark, rc__mark_running, sizeof rc__mark_running);
    vw->mark_len = sizeof rc__mark_running - 1;
    for (int f = 0; f < PVD_N; f++) {
        const char *path = rc__path(vw, rc__pvd_names[f]);
        errno = 0;
        vw->fd[f] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        int e = vw->fd[f] < 0 ? (errno ? errno : EIO) : 0;
        if (!e) e = rc__write_all(vw->fd[f], head, (size_t)hn);
        if (!e) e = rc__write_all(vw->fd[f], vw->mark, vw->mark_len);
        if (!e) e = rc__write_all(vw->fd[f], rc__pvd_tail, sizeof rc__pvd_tail - 1);
        if (e) {
            s = rc_set_error(RC_ERR_IO, "rc_vtk_open: cannot write %s: %s", path, strerror(e));
            rc__vtk_free(vw);
            return s;
        }
        vw->tail[f] = (off_t)hn;
        vw->end[f] = (off_t)(hn + vw->mark_len + sizeof rc__pvd_tail - 1);
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
    RC_CHECK(rc__gather_bodies(vw, w, nb, box));
    RC_CHECK(rc__grains(vw, nb, t, step));
    RC_CHECK(rc__contacts(vw, w, nb, t, step));
    RC_CHECK(rc__shapes(vw, w, nb, box, t, step));
    RC_CHECK(rc__update_pvds(vw, t));
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
        rc__set_mark(vw, status, message);
    }
    return rc__write_tails(vw, "rc_vtk_mark");
}

rc_status rc_vtk_close(rc_vtk_writer *vw)
{
    if (!vw) return RC_OK;
    rc_status s = RC_OK;
    if (vw->mark_len == sizeof rc__mark_running - 1
        && memcmp(vw->mark, rc__mark_running, vw->mark_len) == 0) {   /* no end said: complete */
        vw->mark[0] = '\0';
        vw->mark_len = 0;
        s = rc__write_tails(vw, "rc_vtk_close");
    }
    for (int f = 0; f < PVD_N; f++) {
        if (vw->fd[f] < 0) continue;
        if (close(vw->fd[f]) != 0 && s == RC_OK) {   /* (rc__write_tails: first error kept) */
            int e = errno;
            s = rc_set_error(RC_ERR_IO, "rc_vtk_close: cannot write %s: %s",
                             rc__path(vw, rc__pvd_names[f]), strerror(e));
        }
        vw->fd[f] = -1;
    }
    rc__vtk_free(vw);
    return s;
}
