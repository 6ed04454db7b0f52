/*
 * output.c -- the run record: DIR/history.csv.gz and DIR/run.json.
 *
 * history.csv.gz: one header line of named columns
 *     t,E,E_kin,E_pot,W_ext,W_N,W_T,
 *     NAME.x,NAME.y,NAME.theta,NAME.vx,NAME.vy,NAME.omega   (named bodies, id order)
 *     JOINT.f1..fm                                           (named joints: reaction forces)
 *     C.gN,C.uN,C.uT,C.pN,C.pT                              (named contacts)
 * then one row for the state at open and one after every n-th step. Numbers
 * are printed with %.15g; NaN and infinities as nan, inf, -inf. The stream is
 * sync-flushed every RC_OUT_FLUSH_ROWS rows so that a killed run leaves a
 * readable prefix. A run that does not end with "complete" gets a last line
 * "# incomplete: STATUS: MESSAGE".
 *
 * run.json: written at open (status "running", complete false) and again at
 * close, each time atomically (run.json.tmp, then rename).
 *
 * Rows allocate nothing: they are formatted into a buffer sized at open.
 */
#define _POSIX_C_SOURCE 200809L

#include "rc_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define RC_OUT_FLUSH_ROWS 4096
#define RC_OUT_NUM_MAX 32      /* room for one "%.15g" number and a separator */
#define RC_OUT_NFIXED 7        /* t, E, E_kin, E_pot, W_ext, W_N, W_T */

static const char *const rc__fixed_cols[RC_OUT_NFIXED] = {
    "t", "E", "E_kin", "E_pot", "W_ext", "W_N", "W_T"
};
static const char *const rc__rigid_q[3] = { "x", "y", "theta" };
static const char *const rc__rigid_v[3] = { "vx", "vy", "omega" };
static const char *const rc__contact_cols[5] = { "gN", "uN", "uT", "pN", "pT" };

struct rc_output {
    char *dir;
    char *csv_path;         /* DIR/history.csv.gz */
    char *json_path;        /* DIR/run.json       */
    char *json_tmp;         /* DIR/run.json.tmp   */
    char *scenario;         /* or NULL */
    char *params;           /* JSON object text, or NULL */
    gzFile gz;
    int every;

    /* columns */
    int nbodies;            /* named bodies written */
    int *body_ids;
    int *body_nq, *body_nv;
    int ncontacts;          /* named contacts written */
    int *joint_ids, njoints, *joint_rows;   /* named joints: NAME.f1..fm */
    int ncols;
    char **cols;

    /* row buffer */
    char *buf;
    size_t cap;

    long rows;              /* rows written (the first one included) */
    long rows_since_flush;
    long last_step;         /* step of the last row written */

    double E0;
    clock_t cpu0;
    struct timespec wall0;

    rc_status io_status;    /* first write error (sticky) */
    char io_msg[512];
};

/* ---------------------------------------------------------------- helpers */

static char *rc__join(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = rc_malloc(na + nb + 1);
    if (!s) return NULL;
    memcpy(s, a, na);
    memcpy(s + na, b, nb + 1);
    return s;
}

/* Write x into p (room bytes, room >= RC_OUT_NUM_MAX); returns the length. */
static size_t rc__fmt_num(char *p, size_t room, double x)
{
    if (isnan(x)) { memcpy(p, "nan", 4); return 3; }
    if (isinf(x)) {
        if (x > 0) { memcpy(p, "inf", 4); return 3; }
        memcpy(p, "-inf", 5); return 4;
    }
    int n = snprintf(p, room, "%.15g", x);
    return n < 0 ? 0 : (size_t)n;
}

/* mkdir -p */
static rc_status rc__mkdirs(const char *dir)
{
    size_t n = strlen(dir);
    char *tmp = rc_malloc(n + 1);
    if (!tmp) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    memcpy(tmp, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0') continue;
        if (tmp[i - 1] == '/') continue;   /* repeated slashes */
        char c = tmp[i];
        tmp[i] = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            rc_status s = rc_set_error(RC_ERR_IO, "rc_output_open: cannot create directory %s: %s",
                                       tmp, strerror(e));
            rc_free(tmp);
            return s;
        }
        tmp[i] = c;
    }
    rc_free(tmp);
    struct stat st;
    if (stat(dir, &st) != 0)
        return rc_set_error(RC_ERR_IO, "rc_output_open: cannot create directory %s: %s",
                            dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rc_set_error(RC_ERR_IO, "rc_output_open: %s exists and is not a directory", dir);
    return RC_OK;
}

static const char *rc__gz_message(gzFile gz)
{
    int zerr = 0;
    const char *m = gz ? gzerror(gz, &zerr) : NULL;
    if (zerr == Z_ERRNO || !m || !*m) return errno ? strerror(errno) : "write failed";
    return m;
}

static rc_status rc__gz_write(struct rc_output *o, const char *s, size_t n)
{
    if (n == 0) return RC_OK;
    errno = 0;
    if (gzwrite(o->gz, s, (unsigned)n) != (int)n) {
        rc_status st = rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->csv_path,
                                    rc__gz_message(o->gz));
        if (o->io_status == RC_OK) {
            o->io_status = st;
            snprintf(o->io_msg, sizeof o->io_msg, "%s", rc_last_error());
        }
        return st;
    }
    return RC_OK;
}

static rc_status rc__gz_flush(struct rc_output *o)
{
    errno = 0;
    int r = gzflush(o->gz, Z_SYNC_FLUSH);
    if (r != Z_OK) {
        rc_status st = rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->csv_path,
                                    rc__gz_message(o->gz));
        if (o->io_status == RC_OK) {
            o->io_status = st;
            snprintf(o->io_msg, sizeof o->io_msg, "%s", rc_last_error());
        }
        return st;
    }
    o->rows_since_flush = 0;
    return RC_OK;
}

/* A CSV field: quoted (RFC 4180) when it holds a comma, quote or newline. */
static size_t rc__csv_field(char *dst, const char *s)
{
    size_t n = 0;
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    if (quote) { if (dst) dst[n] = '"'; n++; }
    for (const char *p = s; *p; p++) {
        if (*p == '"') { if (dst) dst[n] = '"'; n++; }
        if (dst) dst[n] = *p;
        n++;
    }
    if (quote) { if (dst) dst[n] = '"'; n++; }
    return n;
}

/* ---------------------------------------------------------------- rows */

static rc_status rc__write_row(rc_world *w)
{
    struct rc_output *o = w->out;
    char *p = o->buf;
    char *end = o->buf + o->cap;
    double ek = NAN, ep = NAN;
    rc_step_info info;
    double wext = 0, wn = 0, wt = 0;

    if (rc_world_energy(w, &ek, &ep) != RC_OK) { ek = NAN; ep = NAN; }
    if (rc_world_step_count(w) > 0) {
        if (rc_world_step_info(w, &info) == RC_OK) {
            wext = info.W_ext_total; wn = info.W_N_total; wt = info.W_T_total;
        } else {
            wext = wn = wt = NAN;
        }
    }

    double fixed[RC_OUT_NFIXED] = { rc_world_time(w), ek + ep, ek, ep, wext, wn, wt };
    for (int i = 0; i < RC_OUT_NFIXED; i++) {
        if (i) *p++ = ',';
        p += rc__fmt_num(p, (size_t)(end - p), fixed[i]);
    }
    for (int b = 0; b < o->nbodies; b++) {
        double q[7], v[6];
        int nq = o->body_nq[b], nv = o->body_nv[b];
        if (nq == 0 && nv == 0) continue;   /* a linear body: no columns (its q does not fit q[7]) */
        if (rc_body_get_state(w, o->body_ids[b], q, v) != RC_OK) {
            for (int i = 0; i < 7; i++) q[i] = NAN;
            for (int i = 0; i < 6; i++) v[i] = NAN;
        }
        for (int i = 0; i < nq; i++) { *p++ = ','; p += rc__fmt_num(p, (size_t)(end - p), q[i]); }
        for (int i = 0; i < nv; i++) { *p++ = ','; p += rc__fmt_num(p, (size_t)(end - p), v[i]); }
    }
    for (int c = 0; c < o->ncontacts; c++) {
        rc_contact_info ci;
        double vals[5] = { NAN, NAN, NAN, NAN, NAN };
        if (rc_named_contact_get(w, c, &ci) == RC_OK && ci.id != -1) {
            vals[0] = ci.gN; vals[1] = ci.uN; vals[2] = ci.uT; vals[3] = ci.pN; vals[4] = ci.pT;
        }
        for (int i = 0; i < 5; i++) { *p++ = ','; p += rc__fmt_num(p, (size_t)(end - p), vals[i]); }
    }
    for (int k = 0; k < o->njoints; k++) {   /* joint reaction forces (impulse / h) */
        rc_joint_info ji;
        int ok = rc_joint_get(w, o->joint_ids[k], &ji) == RC_OK && rc_world_step_count(w) > 0;
        for (int r = 0; r < o->joint_rows[k]; r++) {
            *p++ = ',';
            p += rc__fmt_num(p, (size_t)(end - p), ok ? ji.force[r] : NAN);
        }
    }
    *p++ = '\n';

    RC_CHECK(rc__gz_write(o, o->buf, (size_t)(p - o->buf)));
    o->rows++;
    o->rows_since_flush++;
    o->last_step = rc_world_step_count(w);
    if (o->rows_since_flush >= RC_OUT_FLUSH_ROWS) RC_CHECK(rc__gz_flush(o));
    return RC_OK;
}

rc_status rc_output_row(rc_world *w)
{
    if (!w || !w->out) return RC_OK;
    struct rc_output *o = w->out;
    long step = rc_world_step_count(w);
    if (step % o->every != 0) return RC_OK;
    if (step == o->last_step) return RC_OK;   /* this state is already written */
    return rc__write_row(w);
}

/* ---------------------------------------------------------------- run.json */

static void rc__json_str(FILE *f, const char *s)
{
    if (!s) { fputs("null", f); return; }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", (unsigned)*p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* Shortest of %.15g/%.16g/%.17g that reads back exactly; null if not finite. */
static void rc__json_num(FILE *f, double x)
{
    if (!rc_finite(x)) { fputs("null", f); return; }
    char b[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, x);
        if (strtod(b, NULL) == x) break;
    }
    fputs(b, f);
}

static void rc__json_key(FILE *f, int indent, const char *key)
{
    for (int i = 0; i < indent; i++) fputs("  ", f);
    rc__json_str(f, key);
    fputs(": ", f);
}

static rc_status rc__write_json(rc_world *w, const char *status, int complete,
                                const char *message, double cpu_s, double wall_s)
{
    struct rc_output *o = w->out;
    rc_sim_def sim;
    int have_sim = rc_world_get_sim_def(w, &sim) == RC_OK;
    rc_run_stats st;
    if (rc_world_run_stats(w, &st) != RC_OK) {
        memset(&st, 0, sizeof st);
        st.max_residual = NAN;
        st.max_abs_balance = NAN;
        st.max_contact_work = NAN;
        st.t_max_contact_work = NAN;
        st.max_energy_increase = NAN;
        st.t_max_energy_increase = NAN;
    }
    double wext = 0, wn = 0, wt = 0, wth = 0;
    if (rc_world_step_count(w) > 0) {
        rc_step_info info;
        if (rc_world_step_info(w, &info) == RC_OK) {
            wext = info.W_ext_total; wn = info.W_N_total;
            wt = info.W_T_total; wth = info.W_theta_total;
        } else {
            wext = wn = wt = wth = NAN;
        }
    }
    double ek = NAN, ep = NAN;
    if (rc_world_energy(w, &ek, &ep) != RC_OK) { ek = NAN; ep = NAN; }

    errno = 0;
    FILE *f = fopen(o->json_tmp, "w");
    if (!f)
        return rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->json_tmp, strerror(errno));

    fputs("{\n", f);
    rc__json_key(f, 1, "ricochet_version"); rc__json_str(f, RC_VERSION); fputs(",\n", f);
    rc__json_key(f, 1, "scenario"); rc__json_str(f, o->scenario); fputs(",\n", f);
    rc__json_key(f, 1, "status"); rc__json_str(f, status); fputs(",\n", f);
    rc__json_key(f, 1, "complete"); fputs(complete ? "true" : "false", f); fputs(",\n", f);
    rc__json_key(f, 1, "message"); rc__json_str(f, message); fputs(",\n", f);

    rc__json_key(f, 1, "scheme");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, sim.scheme == RC_SCHEME_MOREAU_JEAN_FREMOND ? "moreau-jean-fremond"
                                                                    : "moreau-jean");
    fputs(",\n", f);
    rc__json_key(f, 1, "theta"); rc__json_num(f, have_sim ? sim.theta : NAN); fputs(",\n", f);
    rc__json_key(f, 1, "h"); rc__json_num(f, have_sim ? sim.h : NAN); fputs(",\n", f);
    rc__json_key(f, 1, "activation");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, sim.activation == RC_ACTIVATE_ANTICIPATE ? "anticipate" : "gap");
    fputs(",\n", f);
    rc__json_key(f, 1, "gamma"); rc__json_num(f, have_sim ? sim.gamma : NAN); fputs(",\n", f);

    rc__json_key(f, 1, "solver"); fputs("{\n", f);
    rc__json_key(f, 2, "name"); rc__json_str(f, "nsgs"); fputs(",\n", f);
    rc__json_key(f, 2, "tol"); rc__json_num(f, have_sim ? sim.solver.tol : NAN); fputs(",\n", f);
    rc__json_key(f, 2, "max_iter");
    if (have_sim) fprintf(f, "%d", sim.solver.max_iter); else fputs("null", f);
    fputs(",\n", f);
    rc__json_key(f, 2, "on_fail");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, sim.solver.on_fail == RC_ON_FAIL_ERROR ? "error" : "warn");
    fputs(",\n", f);
    rc__json_key(f, 2, "warm_start");
    fputs(!have_sim ? "null" : sim.solver.warm_start ? "true" : "false", f);
    fputs(",\n", f);
    rc__json_key(f, 2, "max_iterations"); fprintf(f, "%d", st.max_iterations); fputs(",\n", f);
    rc__json_key(f, 2, "max_residual"); rc__json_num(f, st.max_residual); fputs(",\n", f);
    rc__json_key(f, 2, "failures"); fprintf(f, "%ld", st.failures); fputs(",\n", f);
    rc__json_key(f, 2, "local_solves"); fprintf(f, "%ld", st.local_solves); fputs(",\n", f);
    rc__json_key(f, 2, "cpu_s"); rc__json_num(f, st.solver_cpu_s); fputs("\n", f);
    fputs("  },\n", f);

    rc__json_key(f, 1, "steps"); fprintf(f, "%ld", rc_world_step_count(w)); fputs(",\n", f);
    rc__json_key(f, 1, "memory_bytes"); fprintf(f, "%zu", st.memory_bytes); fputs(",\n", f);
    rc__json_key(f, 1, "t_final"); rc__json_num(f, rc_world_time(w)); fputs(",\n", f);
    rc__json_key(f, 1, "cpu_s"); rc__json_num(f, cpu_s); fputs(",\n", f);
    rc__json_key(f, 1, "wall_s"); rc__json_num(f, wall_s); fputs(",\n", f);
    rc__json_key(f, 1, "every"); fprintf(f, "%d", o->every); fputs(",\n", f);
    rc__json_key(f, 1, "rows"); fprintf(f, "%ld", o->rows); fputs(",\n", f);

    rc__json_key(f, 1, "energy"); fputs("{\n", f);
    rc__json_key(f, 2, "E0"); rc__json_num(f, o->E0); fputs(",\n", f);
    rc__json_key(f, 2, "E_final"); rc__json_num(f, ek + ep); fputs(",\n", f);
    rc__json_key(f, 2, "W_ext"); rc__json_num(f, wext); fputs(",\n", f);
    rc__json_key(f, 2, "W_N"); rc__json_num(f, wn); fputs(",\n", f);
    rc__json_key(f, 2, "W_T"); rc__json_num(f, wt); fputs(",\n", f);
    rc__json_key(f, 2, "W_theta"); rc__json_num(f, wth); fputs(",\n", f);
    rc__json_key(f, 2, "max_abs_balance"); rc__json_num(f, st.max_abs_balance); fputs(",\n", f);
    rc__json_key(f, 2, "max_contact_work"); rc__json_num(f, st.max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_contact_work"); rc__json_num(f, st.t_max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "contact_max_contact_work"); fprintf(f, "%d", st.contact_max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "positive_work_events"); fprintf(f, "%ld", st.positive_work_events); fputs(",\n", f);
    rc__json_key(f, 2, "max_energy_increase"); rc__json_num(f, st.max_energy_increase); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_energy_increase"); rc__json_num(f, st.t_max_energy_increase);
    fputs("\n  },\n", f);

    rc__json_key(f, 1, "columns"); fputs("[", f);
    for (int i = 0; i < o->ncols; i++) {
        fputs(i ? ", " : "", f);
        rc__json_str(f, o->cols[i]);
    }
    fputs("],\n", f);
    rc__json_key(f, 1, "params"); fputs(o->params ? o->params : "{}", f);
    fputs("\n}\n", f);

    int bad = ferror(f);
    int e = errno;
    if (fflush(f) != 0) { bad = 1; e = errno; }
    if (!bad && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) { bad = 1; e = errno; }
    if (fclose(f) != 0 && !bad) { bad = 1; e = errno; }
    if (bad) {
        remove(o->json_tmp);
        return rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->json_tmp,
                            e ? strerror(e) : "write failed");
    }
    if (rename(o->json_tmp, o->json_path) != 0) {
        e = errno;
        remove(o->json_tmp);
        return rc_set_error(RC_ERR_IO, "cannot rename %s to %s: %s", o->json_tmp, o->json_path,
                            strerror(e));
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- open / close */

rc_output_def rc_default_output_def(void)
{
    rc_output_def d;
    memset(&d, 0, sizeof d);
    d.every = 1;
    return d;
}

int rc_output_is_open(const rc_world *w) { return w && w->out != NULL; }

static void rc__output_destroy(struct rc_output *o)
{
    if (!o) return;
    if (o->gz) gzclose(o->gz);
    rc_free(o->dir);
    rc_free(o->csv_path);
    rc_free(o->json_path);
    rc_free(o->json_tmp);
    rc_free(o->scenario);
    rc_free(o->params);
    rc_free(o->body_ids);
    rc_free(o->joint_ids);
    rc_free(o->joint_rows);
    rc_free(o->body_nq);
    rc_free(o->body_nv);
    if (o->cols)
        for (int i = 0; i < o->ncols; i++) rc_free(o->cols[i]);
    rc_free(o->cols);
    rc_free(o->buf);
    rc_free(o);
}

/* The params text must look like a JSON object: '{' ... '}' (whitespace
 * around allowed). Returns 1 for empty/blank (treated as {}), 0 if fine,
 * -1 if not an object. */
static int rc__check_params(const char *s)
{
    const char *a = s;
    while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r') a++;
    if (!*a) return 1;
    const char *b = s + strlen(s);
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n' || b[-1] == '\r')) b--;
    return (*a == '{' && b[-1] == '}' && b - a >= 2) ? 0 : -1;
}

#define RC__NOMEM() do { rc__output_destroy(o); \
    return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory"); } while (0)

rc_status rc_output_open(rc_world *w, const rc_output_def *def)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_output_open: world is NULL");
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_output_open: def is NULL");
    if (!def->dir || !def->dir[0])
        return rc_set_error(RC_ERR_ARG, "rc_output_open: dir must be a non-empty path");
    if (def->every < 1)
        return rc_set_error(RC_ERR_ARG, "rc_output_open: every must be >= 1 (got %d)", def->every);
    int params_blank = 0;
    if (def->params_json) {
        int c = rc__check_params(def->params_json);
        if (c < 0)
            return rc_set_error(RC_ERR_ARG, "rc_output_open: params_json must be a JSON object");
        params_blank = c == 1;
    }
    if (w->out)
        return rc_set_error(RC_ERR_STATE, "rc_output_open: the output is already open (%s)",
                            w->out->dir);

    struct rc_output *o = rc_malloc(sizeof *o);
    if (!o) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    memset(o, 0, sizeof *o);
    o->every = def->every;
    o->io_status = RC_OK;

    /* paths: strip trailing slashes (but keep "/") */
    size_t n = strlen(def->dir);
    while (n > 1 && def->dir[n - 1] == '/') n--;
    o->dir = rc_malloc(n + 1);
    if (!o->dir) RC__NOMEM();
    memcpy(o->dir, def->dir, n);
    o->dir[n] = '\0';
    const char *sep = (n == 1 && o->dir[0] == '/') ? "" : "/";
    {
        char *base = rc__join(o->dir, sep);
        if (!base) RC__NOMEM();
        o->csv_path = rc__join(base, "history.csv.gz");
        o->json_path = rc__join(base, "run.json");
        o->json_tmp = rc__join(base, "run.json.tmp");
        rc_free(base);
    }
    if (!o->csv_path || !o->json_path || !o->json_tmp) RC__NOMEM();
    if (def->scenario && !(o->scenario = rc_strdup(def->scenario))) RC__NOMEM();
    if (def->params_json && !params_blank && !(o->params = rc_strdup(def->params_json))) RC__NOMEM();

    /* columns: the named bodies' (a pile's grains have no name) */
    int nb = rc_body_count(w), nnamed = 0;
    for (int id = 0; id < nb; id++) {
        const char *name = rc_body_name(w, id);
        nnamed += name && name[0];
    }
    if (nnamed > 0) {
        o->body_ids = rc_malloc((size_t)nnamed * sizeof(int));
        o->body_nq = rc_malloc((size_t)nnamed * sizeof(int));
        o->body_nv = rc_malloc((size_t)nnamed * sizeof(int));
        if (!o->body_ids || !o->body_nq || !o->body_nv) RC__NOMEM();
    }
    int nstate_cols = 0;
    for (int id = 0; id < nb; id++) {
        const char *name = rc_body_name(w, id);
        if (!name || !name[0]) continue;
        int nq = rc_body_nq(w, id), nv = rc_body_nv(w, id);
        if (nq < 0 || nq > 7 || nv < 0 || nv > 6) nq = nv = 0;   /* large linear bodies: no columns */
        o->body_ids[o->nbodies] = id;
        o->body_nq[o->nbodies] = nq;
        o->body_nv[o->nbodies] = nv;
        o->nbodies++;
        nstate_cols += nq + nv;
    }
    o->ncontacts = rc_named_contact_count(w);
    if (o->ncontacts < 0) o->ncontacts = 0;
    int nj = rc_joint_count(w), jcols = 0;
    if (nj > 0) {
        o->joint_ids = rc_malloc((size_t)nj * sizeof(int));
        o->joint_rows = rc_malloc((size_t)nj * sizeof(int));
        if (!o->joint_ids || !o->joint_rows) RC__NOMEM();
        for (int id = 0; id < nj; id++) {
            rc_joint_info ji;
            if (!rc_joint_name(w, id) || rc_joint_get(w, id, &ji) != RC_OK) continue;
            o->joint_ids[o->njoints] = id;
            o->joint_rows[o->njoints] = ji.rows;
            o->njoints++;
            jcols += ji.rows;
        }
    }
    int ncols = RC_OUT_NFIXED + nstate_cols + 5 * o->ncontacts + jcols;
    o->cols = rc_malloc((size_t)ncols * sizeof(char *));
    if (!o->cols) RC__NOMEM();
    for (int i = 0; i < RC_OUT_NFIXED; i++) {
        if (!(o->cols[o->ncols] = rc_strdup(rc__fixed_cols[i]))) RC__NOMEM();
        o->ncols++;
    }
    for (int b = 0; b < o->nbodies; b++) {
        const char *name = rc_body_name(w, o->body_ids[b]);
        int rigid = o->body_nq[b] == 3 && o->body_nv[b] == 3;
        for (int i = 0; i < o->body_nq[b] + o->body_nv[b]; i++) {
            char suffix[16];
            int isq = i < o->body_nq[b];
            int k = isq ? i : i - o->body_nq[b];
            if (rigid) snprintf(suffix, sizeof suffix, ".%s", isq ? rc__rigid_q[k] : rc__rigid_v[k]);
            else snprintf(suffix, sizeof suffix, ".%s%d", isq ? "q" : "v", k + 1);
            if (!(o->cols[o->ncols] = rc__join(name, suffix))) RC__NOMEM();
            o->ncols++;
        }
    }
    for (int c = 0; c < o->ncontacts; c++) {
        const char *name = rc_named_contact_name(w, c);
        char fallback[32];
        if (!name) { snprintf(fallback, sizeof fallback, "contact%d", c + 1); name = fallback; }
        for (int i = 0; i < 5; i++) {
            char suffix[8];
            snprintf(suffix, sizeof suffix, ".%s", rc__contact_cols[i]);
            if (!(o->cols[o->ncols] = rc__join(name, suffix))) RC__NOMEM();
            o->ncols++;
        }
    }

    for (int k = 0; k < o->njoints; k++)
        for (int r = 0; r < o->joint_rows[k]; r++) {
            char suffix[16];
            snprintf(suffix, sizeof suffix, ".f%d", r + 1);
            if (!(o->cols[o->ncols] = rc__join(rc_joint_name(w, o->joint_ids[k]), suffix))) RC__NOMEM();
            o->ncols++;
        }

    /* row buffer, also used for the header */
    size_t hlen = 2;
    for (int i = 0; i < o->ncols; i++) hlen += rc__csv_field(NULL, o->cols[i]) + 1;
    o->cap = (size_t)o->ncols * RC_OUT_NUM_MAX + 16;
    if (o->cap < hlen) o->cap = hlen;
    o->buf = rc_malloc(o->cap);
    if (!o->buf) RC__NOMEM();

    /* files */
    rc_status s = rc__mkdirs(o->dir);
    if (s != RC_OK) { rc__output_destroy(o); return s; }
    errno = 0;
    o->gz = gzopen(o->csv_path, "wb1");
    if (!o->gz) {
        int e = errno;
        s = rc_set_error(RC_ERR_IO, "rc_output_open: cannot open %s: %s", o->csv_path,
                         e ? strerror(e) : "gzopen failed");
        rc__output_destroy(o);   /* after the message: it names o->csv_path */
        return s;
    }
    gzbuffer(o->gz, 1u << 16);

    char *p = o->buf;
    for (int i = 0; i < o->ncols; i++) {
        if (i) *p++ = ',';
        p += rc__csv_field(p, o->cols[i]);
    }
    *p++ = '\n';

    o->cpu0 = clock();
    clock_gettime(CLOCK_MONOTONIC, &o->wall0);
    {
        double ek = NAN, ep = NAN;
        if (rc_world_energy(w, &ek, &ep) != RC_OK) { ek = NAN; ep = NAN; }
        o->E0 = ek + ep;
    }

    w->out = o;
    s = rc__gz_write(o, o->buf, (size_t)(p - o->buf));
    if (s == RC_OK) s = rc__write_row(w);
    if (s == RC_OK) s = rc__gz_flush(o);
    if (s == RC_OK) s = rc__write_json(w, "running", 0, NULL, 0.0, 0.0);
    if (s != RC_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "rc_output_open: %s", rc_last_error());
        w->out = NULL;
        rc__output_destroy(o);
        return rc_set_error(s, "%s", msg);
    }
    return RC_OK;
}

rc_status rc_output_close(rc_world *w, const char *status, const char *message)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_output_close: world is NULL");
    if (!status)
        return rc_set_error(RC_ERR_ARG, "rc_output_close: status is NULL (expected "
                            "\"complete\", \"error\", \"interrupted\" or \"stopped\")");
    if (strcmp(status, "complete") && strcmp(status, "error") && strcmp(status, "interrupted")
        && strcmp(status, "stopped"))
        return rc_set_error(RC_ERR_ARG, "rc_output_close: unknown status \"%s\" (expected "
                            "\"complete\", \"error\", \"interrupted\" or \"stopped\")", status);
    struct rc_output *o = w->out;
    if (!o) return RC_OK;

    rc_status result = RC_OK;
    char errmsg[1024] = "";
    int complete = strcmp(status, "complete") == 0;
    const char *final_status = status;
    const char *final_message = message;
    char downgraded[1100];

    /* A row that could not be written makes the history incomplete. */
    if (complete && o->io_status != RC_OK) {
        final_status = "error";
        complete = 0;
        snprintf(downgraded, sizeof downgraded, "%s", o->io_msg);
        final_message = downgraded;
        result = o->io_status;
        snprintf(errmsg, sizeof errmsg, "rc_output_close: %s", o->io_msg);
    }

    if (!complete) {
        /* "# incomplete: STATUS: MESSAGE" on one line */
        size_t n = (size_t)snprintf(o->buf, o->cap, "# incomplete: %s", final_status);
        if (n >= o->cap) n = o->cap - 1;
        if (final_message && n + 3 < o->cap) {
            o->buf[n++] = ':';
            o->buf[n++] = ' ';
            for (const char *m = final_message; *m && n + 2 < o->cap; m++)
                o->buf[n++] = (*m == '\n' || *m == '\r') ? ' ' : *m;
        }
        o->buf[n++] = '\n';
        if (rc__gz_write(o, o->buf, n) != RC_OK && result == RC_OK) {
            result = RC_ERR_IO;
            snprintf(errmsg, sizeof errmsg, "rc_output_close: %s", rc_last_error());
        }
    }

    errno = 0;
    int zr = gzclose(o->gz);
    o->gz = NULL;
    if (zr != Z_OK) {
        const char *why = zr == Z_ERRNO ? strerror(errno) : zr == Z_BUF_ERROR
                          ? "incomplete write" : "gzclose failed";
        if (result == RC_OK) {
            result = RC_ERR_IO;
            snprintf(errmsg, sizeof errmsg, "rc_output_close: cannot write %s: %s",
                     o->csv_path, why);
        }
        if (complete) {
            complete = 0;
            final_status = "error";
            snprintf(downgraded, sizeof downgraded, "cannot write %s: %s", o->csv_path, why);
            final_message = downgraded;
        }
    }

    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double wall_s = (double)(now.tv_sec - o->wall0.tv_sec)
                  + 1e-9 * (double)(now.tv_nsec - o->wall0.tv_nsec);
    double cpu_s = (double)(clock() - o->cpu0) / (double)CLOCKS_PER_SEC;
    if (rc__write_json(w, final_status, complete, final_message, cpu_s, wall_s) != RC_OK
        && result == RC_OK) {
        result = RC_ERR_IO;
        snprintf(errmsg, sizeof errmsg, "rc_output_close: %s", rc_last_error());
    }

    w->out = NULL;
    rc__output_destroy(o);
    if (result != RC_OK) return rc_set_error(result, "%s", errmsg);
    return RC_OK;
}

void rc_output_free(rc_world *w)
{
    if (!w || !w->out) return;
    if (rc_output_close(w, "error", "world destroyed before the output was closed") != RC_OK
        && w->out) {
        rc__output_destroy(w->out);
        w->out = NULL;
    }
}
