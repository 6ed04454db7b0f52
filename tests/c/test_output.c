/* test_output.c -- DIR/history.csv.gz, DIR/history.bin and DIR/run.json
 * (src/io/output.c, output_bin.c, history_bin.c). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700   /* realpath */
#include "rc_test.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

size_t rco_utf8_seq(const char *s);   /* src/io/files.c (internal) */

#define H 1e-3

/* ---------------------------------------------------------------- fixtures */

/* Gravity, a named 1x1 box ("box") just above a half-plane ground, a named
 * rule "C" between ground and box (4 vertex contacts C1..C4). */
static rc_world *make_world(int *failed, int *box)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return NULL;

    rc_body_def bd = rc_default_body_def();
    bd.name = "box";
    bd.mass = 2.0;
    bd.inertia = 2.0 / 6.0;
    bd.q[1] = 0.505;   /* gap 0.005 < margin: detected from the first step */
    bd.v[0] = 0.2;
    CHECK_OK(rc_body_create(w, &bd, box));

    rc_shape_def sd = rc_default_shape_def();
    sd.type = RC_SHAPE_POLYGON;
    sd.nvert = 4;
    const double v[4][2] = { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } };
    memcpy(sd.vert, v, sizeof v);
    CHECK_OK(rc_shape_create(w, *box, &sd, NULL));

    rc_shape_def gd = rc_default_shape_def();
    gd.type = RC_SHAPE_HALFPLANE;
    gd.point[0] = 0.0; gd.point[1] = 0.0;
    gd.normal[0] = 0.0; gd.normal[1] = 1.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &gd, NULL));

    rc_law_def ld = rc_default_law_def();
    ld.e = 0.0;
    ld.mu = 0.3;
    int law = -1;
    CHECK_OK(rc_law_create(w, &ld, &law));

    rc_contact_rule_def rd = rc_default_contact_rule_def();
    rd.kind = RC_RULE_BODIES;
    rd.a = RC_GROUND;
    rd.b = *box;
    rd.law = law;
    rd.name = "C";
    CHECK_OK(rc_contact_rule(w, &rd));

    rc_sim_def sim = rc_default_sim_def();
    sim.h = H;
    CHECK_OK(rc_world_configure(w, &sim));
    return w;
}

static char *make_tmpdir(void)
{
    static char buf[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/rc_test_output_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(buf);
}

static void path_join(char *out, size_t n, const char *a, const char *b)
{
    snprintf(out, n, "%s/%s", a, b);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Whole text file (caller frees), NULL if missing. */
static char *slurp(const char *path)
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
    return s;
}

/* Decompress the whole gzip file. *ok = 1 when read to EOF without error. */
static char *gunzip_all(const char *path, int *ok, size_t *len)
{
    *ok = 0;
    *len = 0;
    gzFile gz = gzopen(path, "rb");
    if (!gz) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap + 1);
    for (;;) {
        if (cap - n < 4096) { cap *= 2; s = realloc(s, cap + 1); }
        int r = gzread(gz, s + n, (unsigned)(cap - n));
        if (r < 0) break;
        if (r == 0) {
            int err = 0;
            gzerror(gz, &err);
            *ok = err == Z_OK && gzeof(gz);
            break;
        }
        n += (size_t)r;
    }
    s[n] = '\0';
    *len = n;
    gzclose(gz);
    return s;
}

/* Split text into lines in place; returns the count. */
static int split_lines(char *s, char ***lines)
{
    int n = 0, cap = 64;
    char **l = malloc((size_t)cap * sizeof *l);
    char *p = s;
    while (*p) {
        if (n == cap) { cap *= 2; l = realloc(l, (size_t)cap * sizeof *l); }
        l[n++] = p;
        char *e = strchr(p, '\n');
        if (!e) break;
        *e = '\0';
        p = e + 1;
    }
    *lines = l;
    return n;
}

/* Split a CSV line (no quoting in these tests) in place. */
static int split_fields(char *s, char **f, int max)
{
    int n = 0;
    for (char *p = s; n < max;) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int column_index(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0) return i;
    return -1;
}

/* ---------------------------------------------------------------- a tiny JSON validator */

typedef struct { const char *p; } jp;
static void jws(jp *j) { while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r') j->p++; }
static int jvalue(jp *j);
static int jstring(jp *j)
{
    if (*j->p != '"') return 0;
    j->p++;
    while (*j->p && *j->p != '"') {
        if ((unsigned char)*j->p < 0x20) return 0;
        if (*j->p == '\\') {
            j->p++;
            if (*j->p == 'u') {
                for (int i = 1; i <= 4; i++) if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i]) return 0;
                j->p += 4;
            } else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) return 0;
        }
        j->p++;
    }
    if (*j->p != '"') return 0;
    j->p++;
    return 1;
}
static int jnumber(jp *j)
{
    const char *s = j->p;
    if (*j->p == '-') j->p++;
    if (*j->p == '0') j->p++;
    else if (*j->p >= '1' && *j->p <= '9') while (*j->p >= '0' && *j->p <= '9') j->p++;
    else return 0;
    if (*j->p == '.') { j->p++; if (!(*j->p >= '0' && *j->p <= '9')) return 0; while (*j->p >= '0' && *j->p <= '9') j->p++; }
    if (*j->p == 'e' || *j->p == 'E') {
        j->p++;
        if (*j->p == '+' || *j->p == '-') j->p++;
        if (!(*j->p >= '0' && *j->p <= '9')) return 0;
        while (*j->p >= '0' && *j->p <= '9') j->p++;
    }
    return j->p > s;
}
static int jvalue(jp *j)
{
    jws(j);
    if (*j->p == '{') {
        j->p++; jws(j);
        if (*j->p == '}') { j->p++; return 1; }
        for (;;) {
            jws(j);
            if (!jstring(j)) return 0;
            jws(j);
            if (*j->p != ':') return 0;
            j->p++;
            if (!jvalue(j)) return 0;
            jws(j);
            if (*j->p == ',') { j->p++; continue; }
            if (*j->p == '}') { j->p++; return 1; }
            return 0;
        }
    }
    if (*j->p == '[') {
        j->p++; jws(j);
        if (*j->p == ']') { j->p++; return 1; }
        for (;;) {
            if (!jvalue(j)) return 0;
            jws(j);
            if (*j->p == ',') { j->p++; continue; }
            if (*j->p == ']') { j->p++; return 1; }
            return 0;
        }
    }
    if (*j->p == '"') return jstring(j);
    if (!strncmp(j->p, "true", 4)) { j->p += 4; return 1; }
    if (!strncmp(j->p, "false", 5)) { j->p += 5; return 1; }
    if (!strncmp(j->p, "null", 4)) { j->p += 4; return 1; }
    return jnumber(j);
}
static int json_valid(const char *s)
{
    jp j = { s };
    if (!jvalue(&j)) return 0;
    jws(&j);
    return *j.p == '\0';
}

static void cleanup_dir(const char *dir)
{
    char p[1024];
    const char *files[] = { "history.csv.gz", "run.json", "run.json.tmp", "history.bin" };
    for (int i = 0; i < 4; i++) { path_join(p, sizeof p, dir, files[i]); unlink(p); }
}

/* ---------------------------------------------------------------- tests */

RC_TEST(history_and_run_json_complete)
{
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char dir[512], p[1024];
    snprintf(dir, sizeof dir, "%s/a/b/out/", tmp);   /* mkdir -p, trailing slash */

    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    CHECK(rc_named_contact_count(w) == 4);

    /* values at open: the first row */
    double q0[7], v0[6], ek0, ep0;
    CHECK_OK(rc_body_get_state(w, box, q0, v0));
    CHECK_OK(rc_world_energy(w, &ek0, &ep0));
    rc_contact_info c0;
    CHECK_OK(rc_named_contact_get(w, 0, &c0));

    const int every = 4, N = 48;
    rc_output_def od = rc_default_output_def();
    CHECK(od.every == 1);
    CHECK(od.dir == NULL && od.scenario == NULL && od.params_json == NULL);
    od.dir = dir;
    od.every = every;
    od.scenario = "scripts/odd \"name\"\\x.lua";
    od.params_json = "{\"n\": 3, \"tag\": \"box\"}";
    CHECK(!rc_output_is_open(w));
    CHECK_OK(rc_output_open(w, &od));
    CHECK(rc_output_is_open(w));

    char sub[512];
    snprintf(sub, sizeof sub, "%s/a/b/out", tmp);
    path_join(p, sizeof p, sub, "run.json");
    char *js = slurp(p);
    CHECK(js != NULL);
    if (js) {
        CHECK(json_valid(js));
        CHECK(strstr(js, "\"status\": \"running\"") != NULL);
        CHECK(strstr(js, "\"complete\": false") != NULL);
        free(js);
    }

    for (int k = 0; k < N; k++) CHECK_OK(rc_world_step(w));
    CHECK(rc_world_step_count(w) == N);
    CHECK_OK(rc_output_close(w, "complete", NULL));
    CHECK(!rc_output_is_open(w));
    CHECK_OK(rc_output_close(w, "complete", NULL));   /* nothing open: OK */

    double q[7], v[6], ek, ep;
    CHECK_OK(rc_body_get_state(w, box, q, v));
    CHECK_OK(rc_world_energy(w, &ek, &ep));
    rc_step_info info;
    CHECK_OK(rc_world_step_info(w, &info));
    rc_contact_info cN[4];
    for (int i = 0; i < 4; i++) CHECK_OK(rc_named_contact_get(w, i, &cN[i]));
    rc_run_stats st;
    CHECK_OK(rc_world_run_stats(w, &st));

    /* ---- history.csv.gz */
    path_join(p, sizeof p, sub, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text != NULL && ok);
    if (!text) { rc_world_destroy(w); return; }
    CHECK(len > 0 && text[len - 1] == '\n');
    CHECK(strstr(text, "# incomplete") == NULL);
    char **lines = NULL;
    int nl = split_lines(text, &lines);
    CHECK(nl == 1 + 1 + N / every);   /* header + rows */

    const char *expect_hdr =
        "t,E,E_kin,E_pot,W_ext,W_N,W_T,"
        "box.x,box.y,box.theta,box.vx,box.vy,box.omega,"
        "C1.gN,C1.uN,C1.uT,C1.pN,C1.pT,"
        "C2.gN,C2.uN,C2.uT,C2.pN,C2.pT,"
        "C3.gN,C3.uN,C3.uT,C3.pN,C3.pT,"
        "C4.gN,C4.uN,C4.uT,C4.pN,C4.pT,"
        "W_J,W_proj,W_theta,W_damp,E_spring,E_elastic";   /* the rest of the balance, last */
    CHECK(nl > 0 && strcmp(lines[0], expect_hdr) == 0);
    if (nl > 0 && strcmp(lines[0], expect_hdr) != 0) fprintf(stderr, "  header: %s\n", lines[0]);

    enum { NC = 39 };
    char hdrbuf[1024];
    snprintf(hdrbuf, sizeof hdrbuf, "%s", nl > 0 ? lines[0] : "");
    char *hdr[64];
    int nh = split_fields(hdrbuf, hdr, 64);
    CHECK(nh == NC);
    int iy = column_index(hdr, nh, "box.y"), ivx = column_index(hdr, nh, "box.vx");
    int iE = column_index(hdr, nh, "E"), iWN = column_index(hdr, nh, "W_N");
    int ic1 = column_index(hdr, nh, "C1.gN");
    CHECK(iy == 8 && ivx == 10 && iE == 1 && iWN == 5 && ic1 == 13);

    for (int r = 1; r < nl; r++) {
        char *f[64];
        int nf = split_fields(lines[r], f, 64);
        CHECK(nf == NC);
        if (nf != NC) continue;
        /* t increases by h * every */
        CHECK_NEAR(strtod(f[0], NULL), (r - 1) * H * every, 1e-12);
        /* every field is a number, nan or inf */
        for (int i = 0; i < nf; i++) {
            char *end;
            strtod(f[i], &end);
            CHECK(*f[i] && *end == '\0');
        }
        /* E = E_kin + E_pot */
        double E = strtod(f[1], NULL), Ek = strtod(f[2], NULL), Ep = strtod(f[3], NULL);
        CHECK_NEAR(E, Ek + Ep, 1e-12 * (1 + fabs(E)));
        if (r == 1) {
            CHECK_NEAR(strtod(f[iy], NULL), q0[1], 1e-14);
            CHECK_NEAR(strtod(f[ivx], NULL), v0[0], 1e-14);
            CHECK_NEAR(Ek, ek0, 1e-13);
            CHECK_NEAR(Ep, ep0, 1e-13);
            for (int i = 4; i <= 6; i++) CHECK(strcmp(f[i], "0") == 0);   /* no work yet */
            if (c0.id == -1)
                for (int i = ic1; i < ic1 + 5; i++) CHECK(strcmp(f[i], "nan") == 0);
        }
        if (r == nl - 1) {
            CHECK_NEAR(strtod(f[0], NULL), rc_world_time(w), 1e-12);
            CHECK_NEAR(strtod(f[iy], NULL), q[1], 1e-14 * (1 + fabs(q[1])));
            CHECK_NEAR(strtod(f[7], NULL), q[0], 1e-14 * (1 + fabs(q[0])));
            CHECK_NEAR(strtod(f[ivx], NULL), v[0], 1e-14 * (1 + fabs(v[0])));
            CHECK_NEAR(strtod(f[12], NULL), v[2], 1e-14 * (1 + fabs(v[2])));
            CHECK_NEAR(Ek, ek, 1e-14 * (1 + fabs(ek)));
            CHECK_NEAR(Ep, ep, 1e-14 * (1 + fabs(ep)));
            CHECK_NEAR(strtod(f[4], NULL), info.W_ext_total, 1e-14 * (1 + fabs(info.W_ext_total)));
            CHECK_NEAR(strtod(f[5], NULL), info.W_N_total, 1e-14 * (1 + fabs(info.W_N_total)));
            CHECK_NEAR(strtod(f[6], NULL), info.W_T_total, 1e-14 * (1 + fabs(info.W_T_total)));
            /* the box sits within the margin: the named contacts are detected */
            for (int c = 0; c < 4; c++) {
                double vals[5] = { cN[c].gN, cN[c].uN, cN[c].uT, cN[c].pN, cN[c].pT };
                for (int i = 0; i < 5; i++) {
                    const char *fv = f[ic1 + 5 * c + i];
                    if (isnan(vals[i])) CHECK(strcmp(fv, "nan") == 0);
                    else CHECK_NEAR(strtod(fv, NULL), vals[i], 1e-14 * (1 + fabs(vals[i])));
                }
            }
            CHECK(cN[0].id != -1 && cN[1].id != -1);   /* bottom vertices */
            CHECK(strcmp(f[ic1], "nan") != 0);
        }
    }
    free(lines);
    free(text);

    /* ---- run.json */
    path_join(p, sizeof p, sub, "run.json.tmp");
    CHECK(!file_exists(p));
    path_join(p, sizeof p, sub, "run.json");
    js = slurp(p);
    CHECK(js != NULL);
    if (js) {
        CHECK(json_valid(js));
        if (!json_valid(js)) fprintf(stderr, "%s\n", js);
        CHECK(strstr(js, "\"status\": \"complete\"") != NULL);
        CHECK(strstr(js, "\"complete\": true") != NULL);
        CHECK(strstr(js, "\"message\": null") != NULL);
        CHECK(strstr(js, "\"ricochet_version\": \"" RC_VERSION "\"") != NULL);
        CHECK(strstr(js, "\"scenario\": \"scripts/odd \\\"name\\\"\\\\x.lua\"") != NULL);
        CHECK(strstr(js, "\"scheme\": \"moreau-jean\"") != NULL);
        CHECK(strstr(js, "\"activation\": \"anticipate\"") != NULL);
        CHECK(strstr(js, "\"h\": 0.001") != NULL);
        CHECK(strstr(js, "\"theta\": 0.5") != NULL);
        CHECK(strstr(js, "\"name\": \"nsgs\"") != NULL);
        CHECK(strstr(js, "\"on_fail\": \"warn\"") != NULL);
        CHECK(strstr(js, "\"warm_start\": true") != NULL);
        CHECK(strstr(js, "\"steps\": 48,") != NULL);
        CHECK(strstr(js, "\"every\": 4,") != NULL);
        CHECK(strstr(js, "\"cpu_s\": ") != NULL);
        CHECK(strstr(js, "\"wall_s\": ") != NULL);
        CHECK(strstr(js, "\"max_residual\": ") != NULL);
        CHECK(strstr(js, "\"E0\": ") != NULL && strstr(js, "\"max_abs_balance\": ") != NULL);
        CHECK(strstr(js, "\"columns\": [\"t\", \"E\", \"E_kin\"") != NULL);
        CHECK(strstr(js, "\"C4.pT\", \"W_J\", \"W_proj\", \"W_theta\", \"W_damp\", \"E_spring\", \"E_elastic\"]") != NULL);
        CHECK(strstr(js, "\"params\": {\"n\": 3, \"tag\": \"box\"}") != NULL);
        char key[64];
        snprintf(key, sizeof key, "\"max_iterations\": %d,", st.max_iterations);
        CHECK(strstr(js, key) != NULL);
        /* E0 is the energy at open */
        const char *e0 = strstr(js, "\"E0\": ");
        if (e0) CHECK_NEAR(strtod(e0 + 6, NULL), ek0 + ep0, 1e-12);
        const char *tf = strstr(js, "\"t_final\": ");
        if (tf) CHECK_NEAR(strtod(tf + 11, NULL), N * H, 1e-12);
        const char *wall = strstr(js, "\"wall_s\": ");
        if (wall) CHECK(strtod(wall + 10, NULL) >= 0.0);
        free(js);
    }

    rc_world_destroy(w);
    cleanup_dir(sub);
    snprintf(p, sizeof p, "%s/a/b/out", tmp); rmdir(p);
    snprintf(p, sizeof p, "%s/a/b", tmp); rmdir(p);
    snprintf(p, sizeof p, "%s/a", tmp); rmdir(p);
    rmdir(tmp);
}

RC_TEST(interrupted_run_is_marked_incomplete)
{
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;
    CHECK_OK(rc_output_open(w, &od));
    const int N = 10;
    for (int k = 0; k < N; k++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_output_close(w, "interrupted", "signal\nSIGINT"));
    CHECK(!rc_output_is_open(w));

    path_join(p, sizeof p, tmp, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text != NULL);
    CHECK(ok);   /* read to EOF without error: a valid gzip */
    if (text) {
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl == 1 + (N + 1) + 1);   /* header, rows, trailer */
        if (nl > 0) {
            CHECK(strncmp(lines[nl - 1], "# incomplete: interrupted", 25) == 0);
            CHECK(strcmp(lines[nl - 1], "# incomplete: interrupted: signal SIGINT") == 0);
        }
        if (nl > 2) CHECK_NEAR(strtod(lines[nl - 2], NULL), N * H, 1e-12);
        free(lines);
        free(text);
    }

    path_join(p, sizeof p, tmp, "run.json");
    char *js = slurp(p);
    CHECK(js != NULL);
    if (js) {
        CHECK(json_valid(js));
        CHECK(strstr(js, "\"status\": \"interrupted\"") != NULL);
        CHECK(strstr(js, "\"complete\": false") != NULL);
        CHECK(strstr(js, "\"message\": \"signal\\nSIGINT\"") != NULL);
        CHECK(strstr(js, "\"steps\": 10,") != NULL);
        CHECK(strstr(js, "\"params\": {}") != NULL);
        CHECK(strstr(js, "\"scenario\": null") != NULL);
        free(js);
    }
    rc_world_destroy(w);
    cleanup_dir(tmp);
    rmdir(tmp);
}

RC_TEST(destroy_while_open_closes_with_error)
{
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;
    od.every = 2;
    CHECK_OK(rc_output_open(w, &od));
    for (int k = 0; k < 5; k++) CHECK_OK(rc_world_step(w));
    rc_world_destroy(w);

    path_join(p, sizeof p, tmp, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text != NULL && ok);
    if (text) {
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl == 1 + 3 + 1);   /* header, steps 0 2 4, trailer */
        if (nl > 0)
            CHECK(strcmp(lines[nl - 1],
                         "# incomplete: error: world destroyed before the output was closed") == 0);
        free(lines);
        free(text);
    }
    path_join(p, sizeof p, tmp, "run.json");
    char *js = slurp(p);
    CHECK(js != NULL);
    if (js) {
        CHECK(json_valid(js));
        CHECK(strstr(js, "\"status\": \"error\"") != NULL);
        CHECK(strstr(js, "\"complete\": false") != NULL);
        CHECK(strstr(js, "\"message\": \"world destroyed before the output was closed\"") != NULL);
        free(js);
    }
    cleanup_dir(tmp);
    rmdir(tmp);
}

RC_TEST(killed_run_leaves_readable_prefix)
{
    /* Without closing, everything up to the last sync flush (every 4096
     * rows) can be decompressed. */
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;
    CHECK_OK(rc_output_open(w, &od));

    path_join(p, sizeof p, tmp, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);   /* header + first row flushed at open */
    CHECK(text != NULL);
    if (text) {
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl >= 2 && strncmp(lines[0], "t,E,", 4) == 0);
        free(lines);
        free(text);
    }

    /* steps 1..200 settle the world's capacities; then rows allocate nothing */
    for (int k = 0; k < 200; k++) CHECK_OK(rc_world_step(w));
    uint64_t a0 = rc_alloc_count();
    for (int k = 200; k < 4200; k++) {
        rc_status s = rc_world_step(w);
        if (s != RC_OK) { CHECK_OK(s); break; }
    }
    CHECK(rc_alloc_count() == a0);

    text = gunzip_all(p, &ok, &len);
    CHECK(text != NULL);
    if (text) {
        /* header + row 0 + at least 4096 rows, each complete */
        char *last = strrchr(text, '\n');
        CHECK(last != NULL);
        if (last) last[1] = '\0';
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl >= 2 + 4096);
        if (nl >= 2 + 4096) CHECK_NEAR(strtod(lines[1 + 4096], NULL), 4096 * H, 1e-9);
        free(lines);
        free(text);
    }
    path_join(p, sizeof p, tmp, "run.json");
    char *js = slurp(p);
    CHECK(js != NULL && json_valid(js) && strstr(js, "\"status\": \"running\"") != NULL);
    free(js);

    CHECK_OK(rc_output_close(w, "stopped", NULL));
    path_join(p, sizeof p, tmp, "history.csv.gz");
    text = gunzip_all(p, &ok, &len);
    CHECK(text != NULL && ok);
    if (text) {
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl == 1 + 4201 + 1);
        if (nl > 0) CHECK(strcmp(lines[nl - 1], "# incomplete: stopped") == 0);
        free(lines);
        free(text);
    }
    rc_world_destroy(w);
    cleanup_dir(tmp);
    rmdir(tmp);
}

RC_TEST(bad_arguments)
{
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;

    rc_output_def od = rc_default_output_def();
    od.dir = tmp;
    od.every = 0;
    CHECK(rc_output_open(w, &od) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "every") != NULL);
    od.every = -3;
    CHECK(rc_output_open(w, &od) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "every") != NULL);

    od.every = 1;
    od.dir = NULL;
    CHECK(rc_output_open(w, &od) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "dir") != NULL);
    od.dir = "";
    CHECK(rc_output_open(w, &od) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "dir") != NULL);

    od.dir = tmp;
    od.params_json = "[1, 2]";
    CHECK(rc_output_open(w, &od) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "params_json") != NULL);
    od.params_json = NULL;
    CHECK(!rc_output_is_open(w));
    path_join(p, sizeof p, tmp, "run.json");
    CHECK(!file_exists(p));   /* nothing written by the failed calls */

    CHECK(rc_output_open(w, NULL) == RC_ERR_ARG);
    CHECK(rc_output_open(NULL, &od) == RC_ERR_ARG);

    /* a dir that is a file */
    path_join(p, sizeof p, tmp, "plain");
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
    rc_output_def bad = rc_default_output_def();
    bad.dir = p;
    CHECK(rc_output_open(w, &bad) == RC_ERR_IO);
    CHECK(strstr(rc_last_error(), "plain") != NULL);
    CHECK(!rc_output_is_open(w));
    unlink(p);

    CHECK_OK(rc_output_open(w, &od));
    CHECK(rc_output_open(w, &od) == RC_ERR_STATE);   /* already open */
    CHECK(rc_output_close(w, "done", NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "status") != NULL);
    CHECK(rc_output_close(w, NULL, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "status") != NULL);
    CHECK(rc_output_is_open(w));   /* a rejected close leaves it open */
    CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_output_close(w, "error", "solver failed"));
    CHECK(!rc_output_is_open(w));
    CHECK(rc_output_close(w, "bogus", NULL) == RC_ERR_ARG);
    CHECK_OK(rc_output_close(w, "complete", NULL));

    path_join(p, sizeof p, tmp, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text != NULL && ok);
    if (text) {
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl == 4);
        if (nl > 0) CHECK(strcmp(lines[nl - 1], "# incomplete: error: solver failed") == 0);
        free(lines);
        free(text);
    }
    rc_world_destroy(w);
    cleanup_dir(tmp);
    rmdir(tmp);
}

/* ---------------------------------------------------------------- how runs end */

/* Strict UTF-8 (an independent check: RFC 3629, table 3-7 of Unicode). */
static int utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        int n = c < 0x80 ? 0 : c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
              : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
        if (n < 0) return 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
        for (int i = 1; i <= n; i++) {
            if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xBF)) return 0;
        }
        p += n + 1;
    }
    return 1;
}

/* The last line of the history (text must end with a newline). */
static const char *last_line(char *text)
{
    size_t n = strlen(text);
    if (n && text[n - 1] == '\n') text[--n] = '\0';
    char *nl = strrchr(text, '\n');
    return nl ? nl + 1 : text;
}

static void warning_to_buffer(void *user, const char *msg)
{
    snprintf((char *)user, 1024, "%s", msg);
}

RC_TEST(end_states_in_run_json)
{
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;

    CHECK(rc_output_set_end_time(w, 1.0) == RC_ERR_STATE);   /* nothing open */
    CHECK(strstr(rc_last_error(), "no output is open") != NULL);

    /* "complete" at t = 0.005 of a run to T = 1: aborted */
    CHECK_OK(rc_output_open(w, &od));
    CHECK(rc_output_set_end_time(w, NAN) == RC_ERR_ARG);
    CHECK_OK(rc_output_set_end_time(w, 1.0));
    for (int k = 0; k < 5; k++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_output_close(w, "complete", NULL));
    path_join(p, sizeof p, tmp, "run.json");
    char *js = slurp(p);
    CHECK(js && json_valid(js));
    CHECK(js && strstr(js, "\"status\": \"aborted\",\n  \"complete\": false,\n  \"message\": \"the output "
                     "was closed at t = 0.005, before the end of the run (T = 1)\",\n  \"signal\": null,\n"
                     "  \"exit_code\": null,") != NULL);
    CHECK(js && strstr(js, "\"T\": 1,\n  \"t_final\": 0.005") != NULL);
    free(js);
    path_join(p, sizeof p, tmp, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text && ok);
    if (text) CHECK(strcmp(last_line(text), "# incomplete: aborted: the output was closed at t = 0.005, "
                           "before the end of the run (T = 1)") == 0);
    free(text);

    /* reaching T (a run's last step ends within h/2 of T): complete */
    CHECK_OK(rc_output_open(w, &od));
    CHECK_OK(rc_output_set_end_time(w, 0.0157));
    for (int k = 0; k < 10; k++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_output_close(w, "complete", NULL));
    path_join(p, sizeof p, tmp, "run.json");
    js = slurp(p);
    CHECK(js && json_valid(js) && strstr(js, "\"status\": \"complete\",\n  \"complete\": true,"));
    CHECK(js && strstr(js, "\"T\": 0.0157,\n  \"t_final\": 0.015"));
    free(js);

    /* the program exits: "exited" with its code */
    CHECK_OK(rc_output_open(w, &od));
    CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_output_close_exited(w, 3, "the script called os.exit(3)"));
    js = slurp(p);
    CHECK(js && json_valid(js) && strstr(js, "\"status\": \"exited\",\n  \"complete\": false,\n"
                                          "  \"message\": \"the script called os.exit(3)\",\n"
                                          "  \"signal\": null,\n  \"exit_code\": 3,"));
    free(js);

    /* a signal: the step refuses, run.json names it */
    CHECK(rc_signal_name(SIGTERM) && strcmp(rc_signal_name(SIGTERM), "SIGTERM") == 0);
    CHECK(rc_signal_name(SIGHUP) && strcmp(rc_signal_name(SIGHUP), "SIGHUP") == 0);
    CHECK(rc_signal_name(0) == NULL);
    CHECK_OK(rc_output_open(w, &od));
    CHECK(rc_interrupt_signal() == 0);
    rc_request_interrupt_signal(SIGTERM);
    rc_request_interrupt_signal(SIGINT);   /* the first one counts */
    CHECK(rc_interrupt_requested() && rc_interrupt_signal() == SIGTERM);
    double t0 = rc_world_time(w);
    CHECK(rc_world_step(w) == RC_ERR_INTERRUPTED);
    CHECK(strncmp(rc_last_error(), "interrupted by SIGTERM at t = ", 30) == 0);
    CHECK(rc_world_time(w) == t0);
    CHECK_OK(rc_output_close(w, "interrupted", "interrupted by SIGTERM"));
    rc_clear_interrupt();
    CHECK(!rc_interrupt_requested() && rc_interrupt_signal() == 0);
    js = slurp(p);
    CHECK(js && json_valid(js) && strstr(js, "\"status\": \"interrupted\",") &&
          strstr(js, "\"signal\": \"SIGTERM\",\n  \"exit_code\": null,"));
    free(js);
    /* an interrupt without a signal (rc_request_interrupt): "signal": null */
    CHECK_OK(rc_output_open(w, &od));
    rc_request_interrupt();
    CHECK(rc_world_step(w) == RC_ERR_INTERRUPTED);
    CHECK(strncmp(rc_last_error(), "interrupted at t = ", 19) == 0);
    CHECK_OK(rc_output_close(w, "interrupted", NULL));
    rc_clear_interrupt();
    js = slurp(p);
    CHECK(js && strstr(js, "\"status\": \"interrupted\",") && strstr(js, "\"signal\": null,"));
    free(js);

    CHECK(rc_output_close(w, "finished", NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "\"exited\" or \"aborted\"") != NULL);
    rc_world_destroy(w);
    cleanup_dir(tmp);
    rmdir(tmp);
}

RC_TEST(folder_lock)
{
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char lock[1024], p[1024], want[1200];
    path_join(lock, sizeof lock, tmp, "run.lock");
    int box = -1;
    rc_world *w1 = make_world(failed, &box);
    rc_world *w2 = make_world(failed, &box);
    if (!w1 || !w2) return;
    char warning[1024] = "";
    rc_world_set_warning_fn(w2, warning_to_buffer, warning);
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;

    /* held by a world of this process: the second is refused, the first unharmed */
    CHECK_OK(rc_output_open(w1, &od));
    char *lk = slurp(lock);
    snprintf(want, sizeof want, "%ld\n", (long)getpid());
    CHECK(lk && strcmp(lk, want) == 0);
    free(lk);
    CHECK_OK(rc_world_step(w1));
    CHECK(rc_output_open(w2, &od) == RC_ERR_STATE);
    snprintf(want, sizeof want, "rc_output_open: output folder '%s' is locked by this process (pid %ld): "
             "another output of this program is writing it (%s)", tmp, (long)getpid(), lock);
    CHECK(strncmp(rc_last_error(), want, strlen(want)) == 0);
    CHECK(!rc_output_is_open(w2));
    CHECK_OK(rc_world_step(w1));
    CHECK_OK(rc_output_close(w1, "complete", NULL));
    CHECK(!file_exists(lock));   /* released */
    path_join(p, sizeof p, tmp, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text && ok);
    if (text) {
        char **lines = NULL;
        CHECK(split_lines(text, &lines) == 1 + 3);   /* header, t = 0, 0.001, 0.002 */
        free(lines);
    }
    free(text);

    /* held by another process: refused with its pid; once it is gone, taken over */
    int go[2], done[2];
    CHECK(pipe(go) == 0 && pipe(done) == 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        int fd = open(lock, O_RDWR | O_CREAT, 0666);
        char b[32];
        int n = snprintf(b, sizeof b, "%ld\n", (long)getpid());
        int r = fd >= 0 && flock(fd, LOCK_EX) == 0 && write(fd, b, (size_t)n) == n;
        char c = r ? 'y' : 'n';
        if (write(go[1], &c, 1) != 1) _exit(1);
        if (read(done[0], &c, 1) != 1) _exit(1);
        _exit(0);   /* without removing run.lock: a writer that died */
    }
    char c = 0;
    CHECK(read(go[0], &c, 1) == 1 && c == 'y');
    CHECK(rc_output_open(w2, &od) == RC_ERR_STATE);
    snprintf(want, sizeof want, "rc_output_open: output folder '%s' is locked by process %ld (%s): "
             "another run is writing it", tmp, (long)child, lock);
    CHECK(strncmp(rc_last_error(), want, strlen(want)) == 0);
    if (strncmp(rc_last_error(), want, strlen(want)) != 0) fprintf(stderr, "  got: %s\n", rc_last_error());
    CHECK(write(done[1], "x", 1) == 1);
    int wst = 0;
    CHECK(waitpid(child, &wst, 0) == child && WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
    CHECK(file_exists(lock));   /* left behind */
    CHECK(warning[0] == '\0');
    CHECK_OK(rc_output_open(w2, &od));
    snprintf(want, sizeof want, "output folder '%s': took over the stale lock %s of process %ld", tmp,
             lock, (long)child);
    CHECK(strncmp(warning, want, strlen(want)) == 0);
    lk = slurp(lock);
    snprintf(want, sizeof want, "%ld\n", (long)getpid());
    CHECK(lk && strcmp(lk, want) == 0);
    free(lk);
    CHECK_OK(rc_output_close(w2, "complete", NULL));
    CHECK(!file_exists(lock));
    close(go[0]); close(go[1]); close(done[0]); close(done[1]);
    rc_world_destroy(w1);
    rc_world_destroy(w2);
    cleanup_dir(tmp);
    rmdir(tmp);
}

/* The descriptor (lowest) open on path, or -1. */
static int fd_of(const char *path)
{
    char want[PATH_MAX], link[64], got[PATH_MAX];
    if (!realpath(path, want)) return -1;
    for (int fd = 3; fd < 1024; fd++) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, got, sizeof got - 1);
        if (n <= 0) continue;
        got[n] = '\0';
        if (strcmp(got, want) == 0) return fd;
    }
    return -1;
}

RC_TEST(disk_full_mid_run)
{
    /* After 4200 rows (one sync flush at 4097), zlib's writes go to /dev/full
     * (ENOSPC, as on a full disk): the step that cannot write fails, run.json
     * says why, and the history is a complete gzip stream of the 4097 rows
     * that reached the file and the "# incomplete" line. */
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;
    CHECK_OK(rc_output_open(w, &od));
    for (int k = 0; k < 4200; k++) CHECK_OK(rc_world_step(w));
    path_join(p, sizeof p, tmp, "history.csv.gz");
    int gzfd = fd_of(p), full = open("/dev/full", O_WRONLY);
    CHECK(gzfd >= 0 && full >= 0);
    if (gzfd < 0 || full < 0) return;
    CHECK(dup2(full, gzfd) == gzfd);
    close(full);
    rc_status s = RC_OK;
    int k = 0;
    for (; k < 10000 && s == RC_OK; k++) s = rc_world_step(w);
    CHECK(s == RC_ERR_IO);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", rc_last_error());
    char want[1200];
    snprintf(want, sizeof want, "cannot write %s: No space left on device", p);
    CHECK(strcmp(msg, want) == 0);
    CHECK(rc_output_close(w, "error", msg) == RC_ERR_IO);
    CHECK(!rc_output_is_open(w));

    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text && ok);   /* read to its end: a complete stream */
    CHECK(text && utf8_valid(text));
    if (text) {
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl == 1 + 4097 + 1);
        for (int i = 1; i < nl - 1; i++) CHECK_NEAR(strtod(lines[i], NULL), (i - 1) * H, 1e-12);
        snprintf(want, sizeof want, "# incomplete: error: %s", msg);
        if (nl > 0) CHECK(strcmp(lines[nl - 1], want) == 0);
        free(lines);
        free(text);
    }
    path_join(p, sizeof p, tmp, "run.json");
    char *js = slurp(p);
    CHECK(js && json_valid(js));
    CHECK(js && strstr(js, "\"status\": \"error\",\n  \"complete\": false,"));
    CHECK(js && strstr(js, "No space left on device\",\n"));
    CHECK(js && strstr(js, "\"rows\": 4097,"));
    free(js);
    rc_world_destroy(w);
    cleanup_dir(tmp);
    rmdir(tmp);
}

RC_TEST(run_json_without_room_for_a_new_file)
{
    /* run.json.tmp cannot be created (here: a folder of that name; on a full
     * disk: no room): the final run.json is written over the padded one. */
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024], t[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;
    CHECK_OK(rc_output_open(w, &od));
    path_join(p, sizeof p, tmp, "run.json");
    struct stat st;
    CHECK(stat(p, &st) == 0 && st.st_size > 8192);   /* room for the final version */
    char *js = slurp(p);
    CHECK(js && json_valid(js));
    free(js);
    path_join(t, sizeof t, tmp, "run.json.tmp");
    CHECK(mkdir(t, 0777) == 0);
    for (int k = 0; k < 20; k++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_output_close(w, "complete", NULL));
    js = slurp(p);
    CHECK(js && json_valid(js));
    CHECK(js && strstr(js, "\"status\": \"complete\",\n  \"complete\": true,"));
    CHECK(js && strstr(js, "\"steps\": 20,"));
    CHECK(js && stat(p, &st) == 0 && (size_t)st.st_size == strlen(js));   /* no blanks left */
    free(js);
    rmdir(t);
    rc_world_destroy(w);
    cleanup_dir(tmp);
    rmdir(tmp);
}

RC_TEST(names_are_utf8_and_distinct)
{
    /* the UTF-8 decoder: well-formed sequences and the classic ill-formed ones */
    CHECK(rco_utf8_seq("a") == 1 && rco_utf8_seq("") == 1);
    CHECK(rco_utf8_seq("\xc3\xa9") == 2 && rco_utf8_seq("\xe2\x82\xac") == 3);
    CHECK(rco_utf8_seq("\xf0\x9f\x98\x80") == 4);
    CHECK(rco_utf8_seq("\xff") == 0 && rco_utf8_seq("\x80") == 0);
    CHECK(rco_utf8_seq("\xc0\x80") == 0 && rco_utf8_seq("\xc1\xbf") == 0);   /* overlong */
    CHECK(rco_utf8_seq("\xe0\x80\x80") == 0 && rco_utf8_seq("\xf0\x8f\xbf\xbf") == 0);
    CHECK(rco_utf8_seq("\xed\xa0\x80") == 0);                                /* surrogate */
    CHECK(rco_utf8_seq("\xf4\x90\x80\x80") == 0 && rco_utf8_seq("\xf5\x80\x80\x80") == 0);
    CHECK(rco_utf8_seq("\xe2\x82") == 0 && rco_utf8_seq("\xc3") == 0);         /* cut short */

    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024], dir[512];
    path_join(dir, sizeof dir, tmp, "o");

    /* a body name that is not UTF-8: refused, nothing written */
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return;
    rc_body_def bd = rc_default_body_def();
    bd.name = "b\xff";
    CHECK_OK(rc_body_create(w, &bd, NULL));
    rc_sim_def sim = rc_default_sim_def();
    sim.h = H;
    CHECK_OK(rc_world_configure(w, &sim));
    rc_output_def od = rc_default_output_def();
    od.dir = dir;
    CHECK(rc_output_open(w, &od) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_output_open: body name 'b\\xff' is not valid UTF-8") == 0);
    CHECK(!file_exists(dir));
    rc_world_destroy(w);

    /* a rule "C" with 4 contacts (C1..C4) and a rule "C2": refused */
    int box = -1;
    w = make_world(failed, &box);
    if (!w) return;
    rc_body_def bd2 = rc_default_body_def();
    bd2.name = "ball";
    bd2.q[0] = 3.0;
    bd2.q[1] = 0.5;
    int ball = -1;
    CHECK_OK(rc_body_create(w, &bd2, &ball));
    rc_shape_def sd = rc_default_shape_def();
    sd.type = RC_SHAPE_DISK;
    sd.radius = 0.5;
    CHECK_OK(rc_shape_create(w, ball, &sd, NULL));
    rc_contact_rule_def rd = rc_default_contact_rule_def();
    rd.kind = RC_RULE_BODIES;
    rd.a = RC_GROUND;
    rd.b = ball;
    rd.law = 0;
    rd.name = "C2";
    CHECK_OK(rc_contact_rule(w, &rd));
    CHECK(rc_named_contact_count(w) == 5);
    CHECK(rc_output_open(w, &od) == RC_ERR_ARG);
    CHECK(strncmp(rc_last_error(), "rc_output_open: duplicate column 'C2.gN': named contacts 2 and 5 "
                  "are both called 'C2'", 83) == 0);
    CHECK(!file_exists(dir));
    rc_world_destroy(w);

    /* strings that are not UTF-8 (script path, parameters, messages): escaped */
    w = make_world(failed, &box);
    if (!w) return;
    od.scenario = "sc\xffne.lua";
    od.params_json = "{\"tag\": \"\xfe\"}";
    CHECK_OK(rc_output_open(w, &od));
    CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_output_close(w, "error", "bad \xff\nbyte \xc3\xa9"));
    path_join(p, sizeof p, dir, "run.json");
    char *js = slurp(p);
    CHECK(js && json_valid(js) && utf8_valid(js));
    CHECK(js && strstr(js, "\"scenario\": \"sc\\\\xffne.lua\","));
    CHECK(js && strstr(js, "\"message\": \"bad \\\\xff\\nbyte \xc3\xa9\","));
    CHECK(js && strstr(js, "\"params\": {\"tag\": \"\\\\xfe\"}"));
    free(js);
    path_join(p, sizeof p, dir, "history.csv.gz");
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(p, &ok, &len);
    CHECK(text && ok && utf8_valid(text));
    if (text) CHECK(strcmp(last_line(text), "# incomplete: error: bad \\xff byte \xc3\xa9") == 0);
    free(text);
    rc_world_destroy(w);
    cleanup_dir(dir);
    rmdir(dir);
    rmdir(tmp);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

RC_TEST(binary_history_file_size_limit)
{
    /* format RC_HISTORY_BINARY with a file size limit of 200 000 bytes (EFBIG,
     * as a full disk): the rows are written 64 KiB at a time (210 rows of 39
     * float64 here), so the step that writes the 4th block fails; the file is
     * cut after the first row and 3 blocks (631 rows), its header says 631
     * rows, state 2 (incomplete), and the "# incomplete: error" line follows
     * them; run.json says 631 rows; rc_history_convert gives the same. */
    char *tmp = make_tmpdir();
    CHECK(tmp != NULL);
    if (!tmp) return;
    char p[1024], c[1024];
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    rc_output_def od = rc_default_output_def();
    od.dir = tmp;
    od.format = RC_HISTORY_BINARY;
    CHECK_OK(rc_output_open(w, &od));
    struct rlimit old, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = 200000;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    rc_status s = RC_OK;
    int k = 0;
    for (; k < 5000 && s == RC_OK; k++) s = rc_world_step(w);
    CHECK(s == RC_ERR_IO);
    CHECK(k == 841);   /* 1 + 4 * 210 rows: the 4th block's writing step */
    path_join(p, sizeof p, tmp, "history.bin");
    char want[1200], msg[1024];
    snprintf(msg, sizeof msg, "%s", rc_last_error());
    snprintf(want, sizeof want, "cannot write %s: File too large", p);
    CHECK(strcmp(msg, want) == 0);
    CHECK(rc_output_close(w, "error", msg) == RC_ERR_IO);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);

    FILE *f = fopen(p, "rb");
    unsigned char hd[40], row[8 * 39];
    CHECK(f && fread(hd, 1, 40, f) == 40);
    if (!f) return;
    const uint32_t ncols = le32(hd + 16), hs = le32(hd + 20), tl = le32(hd + 36);
    CHECK(memcmp(hd, "RCHISTRY", 8) == 0 && le32(hd + 8) == 1 && le32(hd + 12) == 0x01020304u);
    CHECK(ncols == 39 && le32(hd + 24) == 631 && le32(hd + 28) == 0 && le32(hd + 32) == 2);
    snprintf(want, sizeof want, "# incomplete: error: %s\n", msg);
    CHECK(tl == strlen(want));
    struct stat st;
    CHECK(stat(p, &st) == 0 && (size_t)st.st_size == hs + 631 * 8 * 39 + strlen(want));
    for (int r = 0; r < 631 && ncols == 39; r++) {   /* t = r h */
        CHECK(fseek(f, (long)hs + r * 8L * 39, SEEK_SET) == 0 && fread(row, 1, sizeof row, f) == sizeof row);
        double t;
        memcpy(&t, row, 8);   /* (a little-endian host) */
        CHECK_NEAR(t, r * H, 1e-12);
    }
    char tr[1200] = "";
    CHECK(fseek(f, (long)hs + 631 * 8L * 39, SEEK_SET) == 0 && fread(tr, 1, tl, f) == tl);
    CHECK(strcmp(tr, want) == 0);
    fclose(f);
    path_join(c, sizeof c, tmp, "run.json");
    char *js = slurp(c);
    CHECK(js && strstr(js, "\"rows\": 631,") && strstr(js, "\"history\": \"history.bin\","));
    free(js);
    long rows = 0;
    path_join(c, sizeof c, tmp, "history.csv.gz");
    CHECK_OK(rc_history_convert(p, c, &rows));
    CHECK(rows == 631);
    int ok = 0;
    size_t len = 0;
    char *text = gunzip_all(c, &ok, &len);
    CHECK(text && ok);
    if (text) {
        char **lines = NULL;
        int nl = split_lines(text, &lines);
        CHECK(nl == 1 + 631 + 1);
        want[strlen(want) - 1] = '\0';
        if (nl > 0) CHECK(strcmp(lines[nl - 1], want) == 0);
        free(lines);
        free(text);
    }
    CHECK(rc_history_convert(c, p, NULL) == RC_ERR_ARG);   /* a gzip file is not a binary history */
    CHECK(strstr(rc_last_error(), "is not a binary history: no magic \"RCHISTRY\"") != NULL);
    rc_world_destroy(w);
    cleanup_dir(tmp);
    rmdir(tmp);
}

RC_TEST_MAIN(T(history_and_run_json_complete), T(interrupted_run_is_marked_incomplete),
             T(destroy_while_open_closes_with_error), T(killed_run_leaves_readable_prefix),
             T(bad_arguments), T(end_states_in_run_json), T(folder_lock), T(disk_full_mid_run),
             T(run_json_without_room_for_a_new_file), T(names_are_utf8_and_distinct),
             T(binary_history_file_size_limit))
