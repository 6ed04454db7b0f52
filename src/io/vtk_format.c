/* vtk_format.c -- the VTK files: buffers, paths, one .vtp (XML head,
 * zlib-compressed appended arrays), the marks of an incomplete series and the
 * .pvd index (vtk.c has the overview). */
#define _POSIX_C_SOURCE 200809L

#include "io/vtk_impl.h"

/* ---------------------------------------------------------------- helpers */

static int rc__little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

const char *rco_byte_order(void)
{
    return rc__little_endian() ? "LittleEndian" : "BigEndian";
}

rc_status rco_grow(rc__buf *b, size_t need)
{
    if (need <= b->cap) return RC_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) return rc_set_error(RC_ERR_NOMEM, "rc_vtk_frame: out of memory");
        cap *= 2;
    }
    void *p = rcb_realloc(b->p, cap);
    if (!p) return rc_set_error(RC_ERR_NOMEM, "rc_vtk_frame: out of memory (%zu bytes)", cap);
    b->p = p;
    b->cap = cap;
    return RC_OK;
}

void rco_buf_free(rc__buf *b)
{
    rcb_free(b->p);
    b->p = NULL;
    b->cap = 0;
}

/* The shortest of %.15g/%.16g/%.17g that reads back exactly. */
static void rc__fmt_double(char *b, size_t n, double x)
{
    if (!rcb_finite(x)) { snprintf(b, n, "%s", x != x ? "nan" : x > 0 ? "inf" : "-inf"); return; }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, n, "%.*g", prec, x);
        if (strtod(b, NULL) == x) return;
    }
}

/* DIR/name into vw->path. */
const char *rco_path(rc_vtk_writer *vw, const char *name)
{
    size_t n = strlen(name);
    if (n >= RC_VTK_NAME_MAX) n = RC_VTK_NAME_MAX - 1;
    memcpy(vw->path + vw->dirlen + 1, name, n);
    vw->path[vw->dirlen + 1 + n] = '\0';
    return vw->path;
}

/* mkdir -p (fname: the calling function, for messages) */
rc_status rco_vtk_mkdirs(const char *dir, const char *fname)
{
    size_t n = strlen(dir);
    char *tmp = rcb_malloc(n + 1);
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
            rcb_free(tmp);
            return s;
        }
        tmp[i] = c;
    }
    rcb_free(tmp);
    struct stat st;
    if (stat(dir, &st) != 0)
        return rc_set_error(RC_ERR_IO, "%s: cannot create directory %s: %s", fname, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rc_set_error(RC_ERR_IO, "%s: %s exists and is not a directory", fname, dir);
    return RC_OK;
}

/* write() all of it; 0 or an errno value. */
int rco_write_all(int fd, const void *data, size_t n)
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

static int rco_pwrite_all(int fd, const void *data, size_t n, off_t off)
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

void rco_xml(rc_vtk_writer *vw, const char *fmt, ...)
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
    RC_CHECK(rco_grow(&vw->app, vw->app_len + bound));
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
rc_status rco_array(rc_vtk_writer *vw, const char *name, rc__vtype type, int ncomp,
                    size_t ntuples, const void *data, int field)
{
    const char *indent = field ? "      " : "        ";
    rco_xml(vw, "%s<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"", indent,
            rc__vtype_names[type], name, ncomp);
    if (field) rco_xml(vw, " NumberOfTuples=\"%zu\"", ntuples);
    rco_xml(vw, " format=\"appended\" offset=\"%zu\"/>\n", vw->app_len);
    return rc__compress(vw, data, ntuples * (size_t)ncomp * rc__vtype_size[type]);
}

/* The stage buffer for n values of 'size' bytes. */
rc_status rco_stage(rc_vtk_writer *vw, size_t n, size_t size, void **out)
{
    RC_CHECK(rco_grow(&vw->stage, n * size > 0 ? n * size : 1));
    *out = vw->stage.p;
    return RC_OK;
}

rc_status rco_begin(rc_vtk_writer *vw, double t, long step, size_t npts, const size_t ncell[CELL_N])
{
    vw->xml_len = 0;
    vw->xml_overflow = 0;
    vw->app_len = 0;
    rco_xml(vw, "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\""
                " compressor=\"vtkZLibDataCompressor\">\n"
                "  <PolyData>\n"
                "    <FieldData>\n", rco_byte_order());
    int64_t st = step;
    RC_CHECK(rco_array(vw, "TimeValue", T_F64, 1, 1, &t, 1));
    RC_CHECK(rco_array(vw, "Step", T_I64, 1, 1, &st, 1));
    rco_xml(vw, "    </FieldData>\n"
                "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"%zu\""
                " NumberOfStrips=\"0\" NumberOfPolys=\"%zu\">\n",
            npts, ncell[CELL_VERTS], ncell[CELL_LINES], ncell[CELL_POLYS]);
    return RC_OK;
}

/* Points (vw->pts) and the cells (vw->conn/offs), after the point and cell data. */
rc_status rco_geometry(rc_vtk_writer *vw)
{
    static const char *const tags[CELL_N] = { "Verts", "Lines", "Polys" };
    rco_xml(vw, "      <Points>\n");
    RC_CHECK(rco_array(vw, "Points", T_F64, 3, vw->npts, vw->pts.p, 0));
    rco_xml(vw, "      </Points>\n");
    for (int k = 0; k < CELL_N; k++) {
        if (k == CELL_POLYS) {   /* VTK's order: Verts, Lines, Strips, Polys */
            rco_xml(vw, "      <Strips>\n");
            RC_CHECK(rco_array(vw, "connectivity", T_I64, 1, 0, NULL, 0));
            RC_CHECK(rco_array(vw, "offsets", T_I64, 1, 0, NULL, 0));
            rco_xml(vw, "      </Strips>\n");
        }
        rco_xml(vw, "      <%s>\n", tags[k]);
        RC_CHECK(rco_array(vw, "connectivity", T_I64, 1, vw->nconn[k], vw->conn[k].p, 0));
        RC_CHECK(rco_array(vw, "offsets", T_I64, 1, vw->ncell[k], vw->offs[k].p, 0));
        rco_xml(vw, "      </%s>\n", tags[k]);
    }
    rco_xml(vw, "    </Piece>\n"
                "  </PolyData>\n"
                "  <AppendedData encoding=\"raw\">\n"
                "   _");
    return RC_OK;
}

rc_status rco_write_vtp(rc_vtk_writer *vw, int part)
{
    char name[RC_VTK_NAME_MAX];
    snprintf(name, sizeof name, "%s_%06ld.%s", rc__part_names[part], vw->frames, rc__part_ext[part]);
    const char *path = rco_path(vw, name);
    if (vw->xml_overflow)
        return rc_set_error(RC_ERR_STATE, "rc_vtk_frame: %s: the XML header is too long", path);
    errno = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return rc_set_error(RC_ERR_IO, "rc_vtk_frame: cannot open %s: %s", path, strerror(errno));
    int e = rco_write_all(fd, vw->xml, vw->xml_len);
    if (!e) e = rco_write_all(fd, vw->app.p, vw->app_len);
    if (!e) e = rco_write_all(fd, rc__vtp_tail, sizeof rc__vtp_tail - 1);
    if (close(fd) != 0 && !e) e = errno ? errno : EIO;
    if (e) return rc_set_error(RC_ERR_IO, "rc_vtk_frame: cannot write %s: %s", path, strerror(e));
    return RC_OK;
}

/* ---------------------------------------------------------------- marks and the .pvd index */

/* The comment "ricochet: incomplete: STATUS: MESSAGE" in vw->mark: UTF-8
 * (other bytes as \xHH), no control characters, no "--" and no '-' last
 * (XML 1.0, 2.5). */
void rco_set_mark(rc_vtk_writer *vw, const char *status, const char *message)
{
    char *m = vw->mark;
    size_t room = sizeof vw->mark - 8, n = 0;   /* room for " -->\n" and the NUL */
    n = (size_t)snprintf(m, room, "  <!-- ricochet: incomplete: ");
    const char *parts[3] = { status, message ? ": " : NULL, message };
    for (int i = 0; i < 3; i++) {
        for (const char *s = parts[i]; s && *s;) {
            size_t k = rco_utf8_seq(s);
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

/* Create the collection file f: its head, the mark and the closing tags. */
rc_status rco_pvd_create(rc_vtk_writer *vw, int f, const char *fname)
{
    char head[256];
    int hn = snprintf(head, sizeof head, rc__pvd_head, rco_byte_order());
    const char *path = rco_path(vw, rc__pvd_names[f]);
    errno = 0;
    vw->fd[f] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int e = vw->fd[f] < 0 ? (errno ? errno : EIO) : 0;
    if (!e) e = rco_write_all(vw->fd[f], head, (size_t)hn);
    if (!e) e = rco_write_all(vw->fd[f], vw->mark, vw->mark_len);
    if (!e) e = rco_write_all(vw->fd[f], rc__pvd_tail, sizeof rc__pvd_tail - 1);
    if (e) return rc_set_error(RC_ERR_IO, "%s: cannot write %s: %s", fname, path, strerror(e));
    vw->tail[f] = (off_t)hn;
    vw->end[f] = (off_t)(hn + vw->mark_len + sizeof rc__pvd_tail - 1);
    return RC_OK;
}

/* Write the mark and the closing tags of every .pvd after its entries (and
 * cut what a longer mark left behind). */
rc_status rco_write_tails(rc_vtk_writer *vw, const char *fname)
{
    if (vw->broken) return RC_OK;
    char buf[sizeof vw->mark + sizeof rc__pvd_tail];
    memcpy(buf, vw->mark, vw->mark_len);
    memcpy(buf + vw->mark_len, rc__pvd_tail, sizeof rc__pvd_tail - 1);
    size_t n = vw->mark_len + sizeof rc__pvd_tail - 1;
    for (int f = 0; f < PVD_N; f++) {
        if (vw->fd[f] < 0) continue;
        int e = rco_pwrite_all(vw->fd[f], buf, n, vw->tail[f]);
        off_t end = vw->tail[f] + (off_t)n;
        if (!e && end < vw->end[f] && ftruncate(vw->fd[f], end) != 0) e = errno ? errno : EIO;
        if (e) {
            vw->broken = 1;
            snprintf(vw->broken_msg, sizeof vw->broken_msg, "cannot write %s: %s",
                     rco_path(vw, rc__pvd_names[f]), strerror(e));
            return rc_set_error(RC_ERR_IO, "%s: %s", fname, vw->broken_msg);
        }
        vw->end[f] = end;
    }
    return RC_OK;
}

/* Append this frame's DataSet lines to every .pvd (one pwrite each, over the
 * mark and the closing tags). */
rc_status rco_update_pvds(rc_vtk_writer *vw, double t)
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
        if (vw->fd[f] < 0) continue;   /* fem.pvd before a finite-element body */
        for (int part = 0; part < PART_N; part++) {
            if (f != PVD_SERIES && part != f - 1) continue;
            if (part == PART_FEM && vw->fd[PVD_FEM] < 0) continue;
            int k = snprintf(buf + n, sizeof buf - n,
                             "    <DataSet timestep=\"%s\" group=\"\" part=\"%d\" file=\"%s_%06ld.%s\"/>\n",
                             ts, f == PVD_SERIES ? part : 0, rc__part_names[part], vw->frames,
                             rc__part_ext[part]);
            if (k > 0) n += (size_t)k;
        }
        size_t entries = n;
        memcpy(buf + n, vw->mark, vw->mark_len);
        n += vw->mark_len;
        memcpy(buf + n, rc__pvd_tail, sizeof rc__pvd_tail - 1);
        n += sizeof rc__pvd_tail - 1;
        int e = rco_pwrite_all(vw->fd[f], buf, n, vw->tail[f]);
        off_t end = vw->tail[f] + (off_t)n;
        if (!e && end < vw->end[f] && ftruncate(vw->fd[f], end) != 0) e = errno ? errno : EIO;
        if (e) {
            vw->broken = 1;
            snprintf(vw->broken_msg, sizeof vw->broken_msg, "cannot write %s: %s",
                     rco_path(vw, rc__pvd_names[f]), strerror(e));
            return rc_set_error(RC_ERR_IO, "rc_vtk_frame: %s", vw->broken_msg);
        }
        vw->tail[f] += (off_t)entries;
        vw->end[f] = end;
    }
    return RC_OK;
}
