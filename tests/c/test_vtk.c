/* test_vtk.c -- the VTK PolyData series (src/io/vtk.c): files, .pvd index,
 * the compressed appended data read back with zlib, no allocation per frame,
 * errors naming the path. The independent reader (python3-vtk9) is used by
 * tests/spec/vtk_spec.lua. */
#define _POSIX_C_SOURCE 200809L
#include "rc_test.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define H 1e-3
#define NDISKS 3

/* ---------------------------------------------------------------- fixtures */

/* Gravity, a floor (half-plane y >= 0), three disks of radius 0.1 side by side
 * resting on it, a 0.4 x 0.2 box on top of the middle one, and a point
 * contactor on the box; friction everywhere. */
static rc_world *make_world(int *failed)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    wd.default_mu = 0.3;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return NULL;

    rc_shape_def gd = rc_default_shape_def();
    gd.type = RC_SHAPE_HALFPLANE;
    gd.normal[1] = 1.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &gd, NULL));
    rc_shape_def sg = rc_default_shape_def();
    sg.type = RC_SHAPE_SEGMENT;
    sg.a[0] = -1.0; sg.a[1] = 0.0;
    sg.b[0] = -1.0; sg.b[1] = 1.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &sg, NULL));

    for (int i = 0; i < NDISKS; i++) {
        rc_body_def bd = rc_default_body_def();
        bd.mass = 1.0;
        bd.inertia = 0.5 * 0.01;
        bd.q[0] = -0.25 + 0.25 * i;
        bd.q[1] = 0.1;
        bd.v[0] = 0.01 * i;
        int id = -1;
        CHECK_OK(rc_body_create(w, &bd, &id));
        rc_shape_def sd = rc_default_shape_def();
        sd.type = RC_SHAPE_DISK;
        sd.radius = 0.1;
        CHECK_OK(rc_shape_create(w, id, &sd, NULL));
    }
    rc_body_def bb = rc_default_body_def();
    bb.mass = 2.0;
    bb.inertia = 2.0 * (0.16 + 0.04) / 12.0;
    bb.q[1] = 0.3;
    int box = -1;
    CHECK_OK(rc_body_create(w, &bb, &box));
    rc_shape_def pd = rc_default_shape_def();
    pd.type = RC_SHAPE_POLYGON;
    pd.nvert = 4;
    const double v[4][2] = { { -0.2, -0.1 }, { 0.2, -0.1 }, { 0.2, 0.1 }, { -0.2, 0.1 } };
    memcpy(pd.vert, v, sizeof v);
    CHECK_OK(rc_shape_create(w, box, &pd, NULL));
    rc_shape_def pt = rc_default_shape_def();
    pt.type = RC_SHAPE_POINT;
    pt.offset[1] = 0.1;
    CHECK_OK(rc_shape_create(w, box, &pt, NULL));

    rc_sim_def sim = rc_default_sim_def();
    sim.h = H;
    CHECK_OK(rc_world_configure(w, &sim));
    return w;
}

static char *make_tmpdir(void)
{
    static char buf[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/rc_test_vtk_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(buf);
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "  could not remove %s\n", dir);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    if (len) *len = got;
    return s;
}

static char *slurp_in(const char *dir, const char *name, size_t *len)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return slurp(p, len);
}

static int starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return s && len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* ---------------------------------------------------------------- a small reader */

/* The DataArray called name inside section (e.g. "<PointData", "<Points",
 * "<CellData"): decompress its appended data (UInt64 header, zlib blocks)
 * into out (cap bytes). Returns the number of bytes, -1 on a format error. */
static long read_array(const char *file, size_t len, const char *section, const char *name,
                       void *out, size_t cap)
{
    const char *sec = strstr(file, section);
    if (!sec) return -1;
    char key[128];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *a = strstr(sec, key);
    if (!a) return -1;
    const char *off = strstr(a, "offset=\"");
    if (!off) return -1;
    size_t offset = (size_t)strtoull(off + 8, NULL, 10);
    const char *app = strstr(file, "<AppendedData encoding=\"raw\">");
    if (!app) return -1;
    const char *us = strchr(app, '_');
    if (!us) return -1;
    const unsigned char *base = (const unsigned char *)us + 1 + offset;
    if ((const char *)base + 24 > file + len) return -1;
    uint64_t h[3];
    memcpy(h, base, 24);
    if (h[1] != 32768) return -1;
    size_t nb = (size_t)h[0];
    const unsigned char *blk = base + 24 + 8 * nb;
    size_t total = 0;
    for (size_t b = 0; b < nb; b++) {
        uint64_t cs;
        memcpy(&cs, base + 24 + 8 * b, 8);
        uLongf want = (b + 1 == nb && h[2] != 0) ? (uLongf)h[2] : (uLongf)h[1];
        if (total + want > cap) return -1;
        uLongf got = want;
        if (uncompress((Bytef *)out + total, &got, blk, (uLong)cs) != Z_OK || got != want) return -1;
        total += got;
        blk += cs;
    }
    return (long)total;
}

/* ---------------------------------------------------------------- tests */

RC_TEST(writes_the_series)
{
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    if (!dir) return;
    rc_world *w = make_world(failed);
    if (!w) return;

    char sub[512];
    snprintf(sub, sizeof sub, "%s/a/vtk/", dir);   /* created, trailing slash */
    rc_vtk_def def = rc_default_vtk_def();
    def.dir = sub;
    def.disk_outlines = 1;   /* the disks' outlines too (shapes_*.vtp checked below) */
    rc_vtk_writer *vw = NULL;
    CHECK_OK(rc_vtk_open(&def, &vw));
    CHECK(vw != NULL);
    if (!vw) { rc_world_destroy(w); return; }
    snprintf(sub, sizeof sub, "%s/a/vtk", dir);

    /* an empty series is a valid collection */
    char *pvd = slurp_in(sub, "series.pvd", NULL);
    CHECK(starts_with(pvd, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\""));
    CHECK(pvd && count(pvd, "<DataSet") == 0 && strstr(pvd, "</Collection>\n</VTKFile>\n"));
    free(pvd);

    CHECK_OK(rc_vtk_frame(vw, w));                 /* t = 0 */
    double t1 = 0;
    for (int k = 1; k <= 3; k++) {
        for (int s = 0; s < 50; s++) CHECK_OK(rc_world_step(w));
        if (k == 1) t1 = rc_world_time(w);
        CHECK_OK(rc_vtk_frame(vw, w));
    }
    CHECK(rc_vtk_frame_count(vw) == 4);

    /* allocation-free once the buffers have grown: a settled scene */
    uint64_t a0 = rc_alloc_count();
    CHECK_OK(rc_vtk_frame(vw, w));
    CHECK(rc_alloc_count() == a0);
    for (int s = 0; s < 5; s++) CHECK_OK(rc_world_step(w));
    uint64_t a1 = rc_alloc_count();
    CHECK_OK(rc_vtk_frame(vw, w));
    CHECK(rc_alloc_count() == a1);
    CHECK(rc_vtk_frame_count(vw) == 6);

    const char *kinds[3] = { "grains", "contacts", "shapes" };
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < 3; k++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%06d.vtp", kinds[k], f);
            size_t len = 0;
            char *s = slurp_in(sub, name, &len);
            CHECK(s != NULL);
            if (!s) continue;
            CHECK(starts_with(s, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\""));
            CHECK(strstr(s, "header_type=\"UInt64\"") && strstr(s, "compressor=\"vtkZLibDataCompressor\""));
            CHECK(ends_with(s, len, "\n  </AppendedData>\n</VTKFile>\n"));
            free(s);
        }

    /* the collections: 3 parts x 6 frames, and 6 in each single-part one */
    pvd = slurp_in(sub, "series.pvd", NULL);
    CHECK(pvd && count(pvd, "<DataSet") == 18);
    CHECK(pvd && count(pvd, "part=\"2\"") == 6);
    CHECK(pvd && strstr(pvd, "<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"grains_000000.vtp\"/>"));
    char line[160], ts[40];
    for (int prec = 15; prec <= 17; prec++) {   /* the time, shortest exact */
        snprintf(ts, sizeof ts, "%.*g", prec, t1);
        if (strtod(ts, NULL) == t1) break;
    }
    CHECK_NEAR(t1, 0.05, 1e-15);
    snprintf(line, sizeof line, "<DataSet timestep=\"%s\" group=\"\" part=\"1\" file=\"contacts_000001.vtp\"/>", ts);
    CHECK(pvd && strstr(pvd, line));
    CHECK(ends_with(pvd, pvd ? strlen(pvd) : 0, "  </Collection>\n</VTKFile>\n"));
    free(pvd);
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s.pvd", kinds[k]);
        pvd = slurp_in(sub, name, NULL);
        CHECK(pvd && count(pvd, "<DataSet") == 6 && count(pvd, "part=\"0\"") == 6);
        free(pvd);
    }

    /* the last frame, read back: positions, velocities, radii, contact forces */
    size_t len = 0;
    char *g = slurp_in(sub, "grains_000005.vtp", &len);
    int nb = rc_body_count(w);
    double pts[3 * 8], vel[3 * 8], rad[8], tv[1];
    CHECK(g && strstr(g, "NumberOfPoints=\"4\" NumberOfVerts=\"4\""));
    CHECK(g && read_array(g, len, "<Points", "Points", pts, sizeof pts) == 3 * 8 * nb);
    CHECK(g && read_array(g, len, "<PointData", "velocity", vel, sizeof vel) == 3 * 8 * nb);
    CHECK(g && read_array(g, len, "<PointData", "radius", rad, sizeof rad) == 8 * nb);
    CHECK(g && read_array(g, len, "<FieldData", "TimeValue", tv, sizeof tv) == 8);
    CHECK(tv[0] == rc_world_time(w));
    for (int i = 0; i < nb && g; i++) {
        double q[3], v[3];
        CHECK_OK(rc_body_get_state(w, i, q, v));
        CHECK(pts[3 * i] == q[0] && pts[3 * i + 1] == q[1] && pts[3 * i + 2] == 0.0);
        CHECK(vel[3 * i] == v[0] && vel[3 * i + 1] == v[1]);
        CHECK_NEAR(rad[i], i < NDISKS ? 0.1 : sqrt(0.2 * 0.2 + 0.1 * 0.1), 1e-15);
    }
    free(g);

    char *c = slurp_in(sub, "contacts_000005.vtp", &len);
    int nactive = 0;
    double fn_sum = 0;
    for (int i = 0; i < rc_contact_count(w); i++) {
        rc_contact_info ci;
        CHECK_OK(rc_contact_get(w, i, &ci));
        if (ci.active) { nactive++; fn_sum += ci.pN / H; }
    }
    CHECK(nactive >= NDISKS + 1);   /* the disks on the floor, the box on a disk */
    char want[96];
    snprintf(want, sizeof want, "NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"%d\"",
             2 * nactive, nactive);
    CHECK(c && strstr(c, want));
    double fn[64];
    CHECK(c && read_array(c, len, "<CellData", "normal_force", fn, sizeof fn) == 8 * nactive);
    double s = 0;
    for (int i = 0; i < nactive; i++) { CHECK(fn[i] >= 0); s += fn[i]; }
    CHECK_NEAR(s, fn_sum, 1e-9 * fn_sum);
    /* carries the weight: 3 x 9.81 (disks) + 2 x 9.81 (box) on the floor, the box on top */
    CHECK(s > 5 * 9.81 * 0.99);
    free(c);

    char *sh = slurp_in(sub, "shapes_000005.vtp", &len);
    /* 1 vertex (the point contactor), 5 lines (segment, half-plane, 3 disk
     * radii: 2 points each), 4 polygons (3 disks of 32 sides, the box) */
    CHECK(sh && strstr(sh, "NumberOfPoints=\"111\" NumberOfVerts=\"1\" NumberOfLines=\"5\""
                           " NumberOfStrips=\"0\" NumberOfPolys=\"4\""));
    free(sh);

    CHECK_OK(rc_vtk_close(vw));
    CHECK_OK(rc_vtk_close(NULL));
    rc_world_destroy(w);
    rm_rf(dir);
}

/* By default a disk is a point of grains_*.vtp with its radius (drawn by a
 * ParaView glyph), not an outline: shapes_*.vtp holds the point contactor,
 * the segment, the half-plane and the box only. */
RC_TEST(disks_are_points_by_default)
{
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    if (!dir) return;
    rc_world *w = make_world(failed);
    if (!w) { rm_rf(dir); return; }
    rc_vtk_def def = rc_default_vtk_def();
    CHECK(def.disk_outlines == 0);
    def.dir = dir;
    rc_vtk_writer *vw = NULL;
    CHECK_OK(rc_vtk_open(&def, &vw));
    CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_vtk_frame(vw, w));
    size_t len = 0;
    char *sh = slurp_in(dir, "shapes_000000.vtp", &len);
    /* 1 + 2 + 2 + 4 points: the point contactor, the segment, the half-plane, the box */
    CHECK(sh && strstr(sh, "NumberOfPoints=\"9\" NumberOfVerts=\"1\" NumberOfLines=\"2\""
                           " NumberOfStrips=\"0\" NumberOfPolys=\"1\""));
    free(sh);
    char *g = slurp_in(dir, "grains_000000.vtp", &len);
    double rad[8];
    CHECK(g && read_array(g, len, "<PointData", "radius", rad, sizeof rad) == 8 * rc_body_count(w));
    for (int i = 0; i < NDISKS && g; i++) CHECK_NEAR(rad[i], 0.1, 1e-15);
    free(g);
    CHECK_OK(rc_vtk_close(vw));
    rc_world_destroy(w);
    rm_rf(dir);
}

RC_TEST(empty_world_and_no_contacts)
{
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    if (!dir) return;
    rc_world *w = NULL;
    rc_world_def wd = rc_default_world_def();
    CHECK_OK(rc_world_create(&wd, &w));
    rc_vtk_def def = rc_default_vtk_def();
    def.dir = dir;
    def.level = 9;
    rc_vtk_writer *vw = NULL;
    CHECK_OK(rc_vtk_open(&def, &vw));
    CHECK_OK(rc_vtk_frame(vw, w));
    size_t len;
    char *g = slurp_in(dir, "grains_000000.vtp", &len);
    CHECK(g && strstr(g, "NumberOfPoints=\"0\""));
    double x[4];
    CHECK(g && read_array(g, len, "<Points", "Points", x, sizeof x) == 0);
    free(g);
    CHECK_OK(rc_vtk_close(vw));
    rc_world_destroy(w);
    rm_rf(dir);
}

RC_TEST(errors_name_the_path)
{
    rc_vtk_writer *vw = (rc_vtk_writer *)1;
    rc_vtk_def def = rc_default_vtk_def();
    CHECK(rc_vtk_open(&def, &vw) == RC_ERR_ARG && vw == NULL);
    CHECK(strstr(rc_last_error(), "dir"));
    def.dir = "x";
    def.level = 10;
    CHECK(rc_vtk_open(&def, &vw) == RC_ERR_ARG && strstr(rc_last_error(), "level"));
    def.level = 1;
    def.disk_segments = 3;
    CHECK(rc_vtk_open(&def, &vw) == RC_ERR_ARG && strstr(rc_last_error(), "disk_segments"));
    CHECK(rc_vtk_open(NULL, &vw) == RC_ERR_ARG);
    CHECK(rc_vtk_frame(NULL, NULL) == RC_ERR_ARG);

    /* a directory below a regular file */
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    if (!dir) return;
    char file[512], bad[600];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    snprintf(bad, sizeof bad, "%s/vtk", file);
    def = rc_default_vtk_def();
    def.dir = bad;
    CHECK(rc_vtk_open(&def, &vw) == RC_ERR_IO);
    CHECK(strstr(rc_last_error(), file) != NULL);
    CHECK(vw == NULL);

    /* a frame whose file cannot be written: the message names it */
    rc_world *w = make_world(failed);
    def.dir = dir;
    CHECK_OK(rc_vtk_open(&def, &vw));
    char blocker[600];
    snprintf(blocker, sizeof blocker, "%s/grains_000000.vtp", dir);
    CHECK(mkdir(blocker, 0777) == 0);
    CHECK(rc_vtk_frame(vw, w) == RC_ERR_IO);
    CHECK(strstr(rc_last_error(), blocker) != NULL);
    CHECK(rc_vtk_frame_count(vw) == 0);
    rmdir(blocker);
    CHECK_OK(rc_vtk_frame(vw, w));   /* retried: the same frame number */
    CHECK(rc_vtk_frame_count(vw) == 1);
    char *pvd = slurp_in(dir, "series.pvd", NULL);
    CHECK(pvd && count(pvd, "<DataSet") == 3 && strstr(pvd, "grains_000000.vtp"));
    free(pvd);
    CHECK_OK(rc_vtk_close(vw));
    rc_world_destroy(w);
    rm_rf(dir);
}

RC_TEST(marks_how_the_series_ends)
{
    /* "running" while frames are written (what a killed program leaves), a
     * mark when the run ends early (replaced by the next frame), nothing once
     * closed after a complete run; the .pvd files end with the closing tags. */
    static const char *tail = "  </Collection>\n</VTKFile>\n";
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    if (!dir) return;
    rc_world *w = make_world(failed);
    if (!w) return;
    rc_vtk_def def = rc_default_vtk_def();
    def.dir = dir;
    rc_vtk_writer *vw = NULL;
    CHECK_OK(rc_vtk_open(&def, &vw));
    if (!vw) return;
    size_t len = 0;
    char *pvd = slurp_in(dir, "series.pvd", &len);
    CHECK(ends_with(pvd, len, "  <!-- ricochet: running -->\n  </Collection>\n</VTKFile>\n"));
    free(pvd);
    CHECK_OK(rc_vtk_frame(vw, w));
    CHECK_OK(rc_vtk_mark(vw, "interrupted", "interrupted by SIGTERM -- at t = 0\n\xff"));
    const char *names[4] = { "series.pvd", "grains.pvd", "contacts.pvd", "shapes.pvd" };
    for (int f = 0; f < 4; f++) {
        pvd = slurp_in(dir, names[f], &len);
        CHECK(ends_with(pvd, len, "file=\"shapes_000000.vtp\"/>\n  <!-- ricochet: incomplete: interrupted: "
                        "interrupted by SIGTERM - - at t = 0 \\xff -->\n  </Collection>\n</VTKFile>\n")
              || (f != 0 && f != 3));
        CHECK(pvd && count(pvd, "<!--") == 1 && count(pvd, "--") == 2 && ends_with(pvd, len, tail));
        free(pvd);
    }
    for (int s = 0; s < 10; s++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_vtk_frame(vw, w));   /* the series goes on: running again, no leftover bytes */
    pvd = slurp_in(dir, "grains.pvd", &len);
    CHECK(pvd && count(pvd, "<DataSet") == 2 && count(pvd, "<!--") == 1);
    CHECK(ends_with(pvd, len, "file=\"grains_000001.vtp\"/>\n  <!-- ricochet: running -->\n"
                    "  </Collection>\n</VTKFile>\n"));
    free(pvd);
    CHECK_OK(rc_vtk_mark(vw, "error", "a long message to be cut short again: 0123456789 0123456789"));
    CHECK_OK(rc_vtk_mark(vw, "running", NULL));   /* back to running: no leftover bytes */
    pvd = slurp_in(dir, "grains.pvd", &len);
    CHECK(ends_with(pvd, len, "file=\"grains_000001.vtp\"/>\n  <!-- ricochet: running -->\n"
                    "  </Collection>\n</VTKFile>\n"));
    free(pvd);
    CHECK_OK(rc_vtk_mark(vw, "exited", "the script called os.exit(2)"));
    CHECK_OK(rc_vtk_close(vw));   /* the mark stays */
    pvd = slurp_in(dir, "series.pvd", &len);
    CHECK(ends_with(pvd, len, "  <!-- ricochet: incomplete: exited: the script called os.exit(2) -->\n"
                    "  </Collection>\n</VTKFile>\n"));
    free(pvd);

    /* closed without a mark: complete, no comment */
    CHECK_OK(rc_vtk_open(&def, &vw));
    CHECK_OK(rc_vtk_frame(vw, w));
    CHECK(rc_vtk_mark(vw, "", NULL) == RC_ERR_ARG);
    CHECK(rc_vtk_mark(NULL, "error", NULL) == RC_ERR_ARG);
    CHECK_OK(rc_vtk_close(vw));
    pvd = slurp_in(dir, "contacts.pvd", &len);
    CHECK(pvd && count(pvd, "<!--") == 0 && ends_with(pvd, len, "file=\"contacts_000000.vtp\"/>\n"
                                                     "  </Collection>\n</VTKFile>\n"));
    free(pvd);
    rc_world_destroy(w);
    rm_rf(dir);
}

RC_TEST_MAIN(T(writes_the_series), T(disks_are_points_by_default), T(empty_world_and_no_contacts), T(errors_name_the_path),
             T(marks_how_the_series_ends))
