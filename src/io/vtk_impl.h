/*
 * io/vtk_impl.h -- what the VTK writer's files share (not public, not for
 * other files): vtk.c (the API: open, frame, mark, close), vtk_format.c
 * (buffers, paths, one .vtp file: XML and zlib-compressed appended arrays;
 * the marks and the .pvd index), vtk_frame.c (the world's frame: grains,
 * contacts, shapes as points and cells), vtk_fem.c (finite-element bodies:
 * an unstructured grid of triangles, fem_NNNNNN.vtu, and fem.pvd).
 */
#ifndef RC_VTK_IMPL_H
#define RC_VTK_IMPL_H

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

/* fem.pvd and the part "fem" exist once a finite-element body is added
 * (rc_vtk_add_fem): fd[PVD_FEM] is -1 until then. */
enum { PVD_SERIES, PVD_GRAINS, PVD_CONTACTS, PVD_SHAPES, PVD_FEM, PVD_N };
enum { PART_GRAINS, PART_CONTACTS, PART_SHAPES, PART_FEM, PART_N };
enum { CELL_VERTS, CELL_LINES, CELL_POLYS, CELL_N };

static const char *const rc__pvd_names[PVD_N] = {
    "series.pvd", "grains.pvd", "contacts.pvd", "shapes.pvd", "fem.pvd"
};
static const char *const rc__part_names[PART_N] = { "grains", "contacts", "shapes", "fem" };
static const char *const rc__part_ext[PART_N] = { "vtp", "vtp", "vtp", "vtu" };

static const char rc__pvd_head[] =
    "<?xml version=\"1.0\"?>\n"
    "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"%s\">\n"
    "  <Collection>\n";
static const char rc__pvd_tail[] = "  </Collection>\n</VTKFile>\n";
static const char rc__vtp_tail[] = "\n  </AppendedData>\n</VTKFile>\n";

typedef enum { T_F64, T_I64, T_I32, T_U8 } rc__vtype;
static const char *const rc__vtype_names[] = { "Float64", "Int64", "Int32", "UInt8" };
static const size_t rc__vtype_size[] = { 8, 8, 4, 1 };

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
    int disk_outlines;      /* rc_vtk_def.disk_outlines */
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
    rc__buf gen;            /* int32 per body: the slot's generation */
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
    rc__buf fem;            /* rc__vtk_fem per finite-element body (vtk_fem.c)   */
    int nfem;
    rc__buf fem_cell;       /* fem frame: 4 doubles per triangle (stress, von Mises) */
    char xml[RC_VTK_XML_MAX];
    size_t xml_len;
    int xml_overflow;
};

static const char rc__mark_running[] = "  <!-- ricochet: running -->\n";

rc_status rco_grow(rc__buf *b, size_t need);
const char *rco_byte_order(void);
const char *rco_path(rc_vtk_writer *vw, const char *name);
void rco_buf_free(rc__buf *b);
rc_status rco_vtk_mkdirs(const char *dir, const char *fname);
int rco_write_all(int fd, const void *data, size_t n);
void rco_xml(rc_vtk_writer *vw, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
rc_status rco_array(rc_vtk_writer *vw, const char *name, rc__vtype type, int ncomp,
                    size_t ntuples, const void *data, int field);
rc_status rco_stage(rc_vtk_writer *vw, size_t n, size_t size, void **out);
rc_status rco_begin(rc_vtk_writer *vw, double t, long step, size_t npts, const size_t ncell[CELL_N]);
rc_status rco_geometry(rc_vtk_writer *vw);
rc_status rco_write_vtp(rc_vtk_writer *vw, int part);
void rco_set_mark(rc_vtk_writer *vw, const char *status, const char *message);
rc_status rco_pvd_create(rc_vtk_writer *vw, int f, const char *fname);
rc_status rco_write_tails(rc_vtk_writer *vw, const char *fname);
rc_status rco_update_pvds(rc_vtk_writer *vw, double t);
rc_status rco_gather_bodies(rc_vtk_writer *vw, const rc_world *w, int nb, double box[4]);
rc_status rco_grains(rc_vtk_writer *vw, int nb, double t, long step);
rc_status rco_contacts(rc_vtk_writer *vw, const rc_world *w, int nb, double t, long step);
rc_status rco_fem(rc_vtk_writer *vw, const rc_world *w, double t, long step);
void rco_fem_free(rc_vtk_writer *vw);
rc_status rco_shapes(rc_vtk_writer *vw, const rc_world *w, int nb, const double box[4],
                     double t, long step);
/* vtk_frame3.c: the grains, contacts and shapes of a dim = 3 world */
rc_status rco_frame3(rc_vtk_writer *vw, const rc_world *w, double t, long step);

#endif /* RC_VTK_IMPL_H */
