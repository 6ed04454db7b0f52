/* test_vtk_fem.c -- finite-element bodies in the VTK series (rc_vtk_add_fem,
 * src/io/vtk_fem.c): fem_NNNNNN.vtu read back with zlib (the undeformed
 * points, the displacement and velocity in the mesh's numbering, the stress
 * of a uniformly stretched block against the analytic value, the triangles),
 * fem.pvd and part 3 of series.pvd, the marks, no allocation per frame,
 * errors. The independent reader (python3-vtk9) is used by
 * tests/spec/vtk_fem_spec.lua. */
#define _POSIX_C_SOURCE 200809L
#include "rc_test.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define NX 4
#define NY 2
#define NN ((NX + 1) * (NY + 1))
#define NT (2 * NX * NY)
#define EXX 1e-3

static double XY[2 * NN];
static int TRI[3 * NT];

/* A 2 x 1 block, NX x NY cells split by their / diagonal. */
static rc_fem_def block_def(void)
{
    int nt = 0;
    for (int j = 0; j <= NY; j++)
        for (int i = 0; i <= NX; i++) {
            XY[2 * (j * (NX + 1) + i)] = 2.0 * i / NX;
            XY[2 * (j * (NX + 1) + i) + 1] = 1.0 * j / NY;
        }
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            int a = j * (NX + 1) + i, b = a + 1, c = a + NX + 2, d = a + NX + 1;
            int *t = TRI + 3 * nt;
            t[0] = a; t[1] = b; t[2] = c;
            t[3] = a; t[4] = c; t[5] = d;
            nt += 2;
        }
    rc_fem_def d = rc_default_fem_def();
    d.name = "block";
    d.nnodes = NN; d.xy = XY; d.ntri = NT; d.tri = TRI;
    d.E = 5.75e3; d.nu = 0.358; d.rho = 1.17e-3; d.thickness = 15;
    return d;
}

/* The block stretched uniaxially in plane stress: u = (EXX x, -nu EXX y),
 * sigma = (E EXX, 0, 0); velocity v = (x, 2 y) (node k, the mesh's numbering). */
static void stretch(rc_world *w, int body, const int *perm, double nu)
{
    double q[2 * NN], v[2 * NN];
    for (int k = 0; k < NN; k++) {
        q[2 * perm[k]] = EXX * XY[2 * k];
        q[2 * perm[k] + 1] = -nu * EXX * XY[2 * k + 1];
        v[2 * perm[k]] = XY[2 * k];
        v[2 * perm[k] + 1] = 2 * XY[2 * k + 1];
    }
    rc_body_set_state(w, body, q, v);
}

static char *make_tmpdir(void)
{
    static char buf[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/rc_test_vtk_fem_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(buf);
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "  could not remove %s\n", dir);
}

static char *slurp_in(const char *dir, const char *name, size_t *len)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
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

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* The DataArray `name` after `section`: its appended data decompressed into
 * out (cap bytes); the number of bytes, -1 on a format error. */
static long read_array(const char *file, size_t len, const char *section, const char *name, void *out, size_t cap)
{
    const char *sec = file ? strstr(file, section) : NULL;
    if (!sec) return -1;
    char key[128];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *a = strstr(sec, key), *off = a ? strstr(a, "offset=\"") : NULL;
    const char *app = strstr(file, "<AppendedData encoding=\"raw\">"), *us = app ? strchr(app, '_') : NULL;
    if (!off || !us) return -1;
    const unsigned char *base = (const unsigned char *)us + 1 + strtoull(off + 8, NULL, 10);
    if ((const char *)base + 24 > file + len) return -1;
    uint64_t h[3];
    memcpy(h, base, 24);
    if (h[1] != 32768) return -1;
    const unsigned char *blk = base + 24 + 8 * h[0];
    size_t total = 0;
    for (size_t b = 0; b < h[0]; b++) {
        uint64_t cs;
        memcpy(&cs, base + 24 + 8 * b, 8);
        uLongf want = (b + 1 == h[0] && h[2] != 0) ? (uLongf)h[2] : (uLongf)h[1], got = want;
        if (total + want > cap) return -1;
        if (uncompress((Bytef *)out + total, &got, blk, (uLong)cs) != Z_OK || got != want) return -1;
        total += got;
        blk += cs;
    }
    return (long)total;
}

static rc_world *make_world(int *failed, int *body, int *perm)
{
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    if (!w) return NULL;
    rc_fem_def d = block_def();
    CHECK_OK(rc_fem_create(w, &d, body, perm, NULL));
    rc_body_def bd = rc_default_body_def();   /* a rigid body beside it */
    bd.mass = 1;
    bd.inertia = 1;
    CHECK_OK(rc_body_create(w, &bd, NULL));
    rc_sim_def sim = rc_default_sim_def();
    sim.h = 1e-3;
    CHECK_OK(rc_world_configure(w, &sim));
    return w;
}

RC_TEST(writes_the_stretched_block)
{
    char *dir = make_tmpdir();
    int body = -1, perm[NN];
    rc_world *w = make_world(failed, &body, perm);
    if (!dir || !w) return;
    rc_fem_def d = block_def();
    int moved = 0;
    for (int k = 0; k < NN; k++) moved += perm[k] != k;
    CHECK(moved > 0);   /* the body's numbering is not the mesh's: the writer must undo it */
    stretch(w, body, perm, d.nu);

    rc_vtk_def vd = rc_default_vtk_def();
    vd.dir = dir;
    rc_vtk_writer *vw = NULL;
    CHECK_OK(rc_vtk_open(&vd, &vw));
    if (!vw) return;
    char *pvd = slurp_in(dir, "fem.pvd", NULL);
    CHECK(pvd == NULL);   /* no fem.pvd before a finite-element body */
    CHECK_OK(rc_vtk_add_fem(vw, w, body, &d, perm));
    pvd = slurp_in(dir, "fem.pvd", NULL);
    CHECK(pvd && count(pvd, "<DataSet") == 0 && strstr(pvd, "</Collection>\n</VTKFile>\n"));
    free(pvd);
    CHECK_OK(rc_vtk_frame(vw, w));
    CHECK_OK(rc_vtk_frame(vw, w));   /* buffers grown: the next frame allocates nothing */
    uint64_t a0 = rc_alloc_count();
    CHECK_OK(rc_vtk_frame(vw, w));
    CHECK(rc_alloc_count() == a0);

    size_t len = 0;
    char *f = slurp_in(dir, "fem_000002.vtu", &len);
    CHECK(f && strstr(f, "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\""));
    CHECK(f && strstr(f, "<Piece NumberOfPoints=\"15\" NumberOfCells=\"16\">"));
    double x[3 * NN], u[3 * NN], v[3 * NN], s[3 * NT], vm[NT];
    int64_t conn[3 * NT], offs[NT];
    int32_t node[NN], el[NT];
    unsigned char types[NT];
    CHECK(read_array(f, len, "<Points", "Points", x, sizeof x) == (long)sizeof x);
    CHECK(read_array(f, len, "<PointData", "displacement", u, sizeof u) == (long)sizeof u);
    CHECK(read_array(f, len, "<PointData", "velocity", v, sizeof v) == (long)sizeof v);
    CHECK(read_array(f, len, "<PointData", "node", node, sizeof node) == (long)sizeof node);
    CHECK(read_array(f, len, "<CellData", "stress", s, sizeof s) == (long)sizeof s);
    CHECK(read_array(f, len, "<CellData", "von_mises", vm, sizeof vm) == (long)sizeof vm);
    CHECK(read_array(f, len, "<CellData", "element", el, sizeof el) == (long)sizeof el);
    CHECK(read_array(f, len, "<Cells", "connectivity", conn, sizeof conn) == (long)sizeof conn);
    CHECK(read_array(f, len, "<Cells", "offsets", offs, sizeof offs) == (long)sizeof offs);
    CHECK(read_array(f, len, "<Cells", "types", types, sizeof types) == (long)sizeof types);
    for (int k = 0; k < NN; k++) {   /* undeformed points; fields in the mesh's numbering */
        CHECK(x[3 * k] == XY[2 * k] && x[3 * k + 1] == XY[2 * k + 1] && x[3 * k + 2] == 0);
        CHECK(u[3 * k] == EXX * XY[2 * k] && u[3 * k + 1] == -d.nu * EXX * XY[2 * k + 1] && u[3 * k + 2] == 0);
        CHECK(v[3 * k] == XY[2 * k] && v[3 * k + 1] == 2 * XY[2 * k + 1] && v[3 * k + 2] == 0);
        CHECK(node[k] == k + 1);
    }
    const double sxx = d.E * EXX;   /* plane stress, uniaxial */
    for (int e = 0; e < NT; e++) {
        CHECK_NEAR(s[3 * e], sxx, 1e-12 * sxx);
        CHECK_NEAR(s[3 * e + 1], 0, 1e-12 * sxx);
        CHECK_NEAR(s[3 * e + 2], 0, 1e-12 * sxx);
        CHECK_NEAR(vm[e], sxx, 1e-12 * sxx);
        CHECK(el[e] == e + 1 && types[e] == 5 && offs[e] == 3 * (e + 1));
        for (int a = 0; a < 3; a++) CHECK(conn[3 * e + a] == TRI[3 * e + a]);
    }
    free(f);

    pvd = slurp_in(dir, "fem.pvd", NULL);
    CHECK(pvd && count(pvd, "<DataSet") == 3 && strstr(pvd, "part=\"0\" file=\"fem_000002.vtu\"/>"));
    free(pvd);
    pvd = slurp_in(dir, "series.pvd", NULL);
    CHECK(pvd && count(pvd, "<DataSet") == 12 && strstr(pvd, "part=\"3\" file=\"fem_000000.vtu\"/>"));
    free(pvd);

    /* marks reach fem.pvd too */
    CHECK_OK(rc_vtk_mark(vw, "interrupted", "interrupted by SIGINT"));
    pvd = slurp_in(dir, "fem.pvd", &len);
    CHECK(pvd && strstr(pvd, "file=\"fem_000002.vtu\"/>\n  <!-- ricochet: incomplete: interrupted: interrupted by SIGINT -->\n"
                             "  </Collection>\n</VTKFile>\n"));
    free(pvd);
    CHECK_OK(rc_vtk_close(vw));
    rc_world_destroy(w);
    rm_rf(dir);
}

RC_TEST(errors_are_refused)
{
    char *dir = make_tmpdir();
    int body = -1, perm[NN];
    rc_world *w = make_world(failed, &body, perm);
    if (!dir || !w) return;
    rc_fem_def d = block_def();
    rc_vtk_def vd = rc_default_vtk_def();
    vd.dir = dir;
    rc_vtk_writer *vw = NULL;
    CHECK_OK(rc_vtk_open(&vd, &vw));
    if (!vw) return;
    CHECK(rc_vtk_add_fem(NULL, w, body, &d, perm) == RC_ERR_ARG);
    CHECK(rc_vtk_add_fem(vw, w, body, NULL, perm) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_vtk_add_fem: def is NULL") == 0);
    CHECK(rc_vtk_add_fem(vw, w, 7, &d, perm) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_vtk_add_fem: no body 7 in the world") == 0);
    CHECK(rc_vtk_add_fem(vw, w, body + 1, &d, perm) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_vtk_add_fem: body 1 is not a finite-element (linear) body") == 0);
    rc_fem_def small = d;   /* one triangle */
    const double sxy[6] = { 0, 0, 1, 0, 0, 1 };
    const int stri[3] = { 0, 1, 2 };
    small.nnodes = 3; small.xy = sxy; small.ntri = 1; small.tri = stri;
    CHECK(rc_vtk_add_fem(vw, w, body, &small, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_vtk_add_fem: body 0 has 30 coordinates, the mesh 3 nodes (2 coordinates each)") == 0);
    int bad[NN];
    memcpy(bad, perm, sizeof bad);
    bad[1] = bad[0];
    CHECK(rc_vtk_add_fem(vw, w, body, &d, bad) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "repeats a place (perm must be a permutation)") != NULL);
    rc_fem_def wrong = d;
    wrong.nu = 0.5;
    CHECK(rc_vtk_add_fem(vw, w, body, &wrong, perm) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_vtk_add_fem: 'nu' must be in (-1, 0.5) (got 0.5)") == 0);
    char *pvd = slurp_in(dir, "fem.pvd", NULL);
    CHECK(pvd == NULL);   /* nothing added */
    CHECK_OK(rc_vtk_add_fem(vw, w, body, &d, perm));
    CHECK(rc_vtk_add_fem(vw, w, body, &d, perm) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_vtk_add_fem: body 0 is already in the series") == 0);
    CHECK_OK(rc_vtk_close(vw));
    rc_world_destroy(w);
    rm_rf(dir);
}

RC_TEST_MAIN(T(writes_the_stretched_block), T(errors_are_refused))
