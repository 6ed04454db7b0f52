/*
 * output.c -- the run record: DIR/history.csv.gz and DIR/run.json.
 *
 * history.csv.gz: one header line of named columns
 *     t,E,E_kin,E_pot,W_ext,W_N,W_T,
 *     NAME.x,NAME.y,NAME.theta,NAME.vx,NAME.vy,NAME.omega   (named rigid bodies, id order)
 *     NAME.q1..qn,NAME.v1..vn                                (named linear bodies, n <= 6)
 *     JOINT.f1..fm                                           (named joints: reaction forces)
 *     C.gN,C.uN,C.uT,C.pN,C.pT                              (named contacts)
 *     W_J,W_proj      (worlds with joints: the joints' work and the projection's, totals)
 * then one row for the state at open and one after every n-th step. Numbers
 * are printed with %.15g; NaN and infinities as nan, inf, -inf. The stream is
 * sync-flushed every RC_OUT_FLUSH_ROWS rows so that a killed run leaves a
 * readable prefix. A run that does not end with "complete" gets a last line
 * "# incomplete: STATUS: MESSAGE".
 *
 * run.json: written at open (status "running", complete false, padded with
 * RC_OUT_JSON_RESERVE trailing blanks) and again at close, each time
 * atomically (run.json.tmp, then rename). When that fails (a full disk),
 * run.json is rewritten in place, within the space the padded version holds.
 * Strings are strict JSON: bytes that are not UTF-8 are written as the text
 * \xHH; names (columns) must be UTF-8 and distinct.
 *
 * A write error (full disk, file size limit) is remembered and reported by
 * rc_output_close, which then ends the gzip stream at the last sync flush
 * (RFC 1951 stored block with the "# incomplete" line + RFC 1952 trailer): the
 * history stays a complete stream of whole rows.
 *
 * DIR/run.lock: while the output is open, the folder is locked: flock(2) on
 * run.lock, which holds the writer's pid. Another writer (another process, or
 * another world of this one) is refused with a message naming that pid; a
 * lock file nobody holds (its writer died) is taken over with a warning.
 * Where flock is not supported the pid decides (taken over if the process is
 * gone). The lock file is removed at close.
 *
 * Rows allocate nothing: they are formatted into a buffer sized at open.
 */
#define _POSIX_C_SOURCE 200809L

#include "rc_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define RC_OUT_FLUSH_ROWS 4096
#define RC_OUT_NUM_MAX 32      /* room for one "%.15g" number and a separator */
#define RC_OUT_NFIXED 7        /* t, E, E_kin, E_pot, W_ext, W_N, W_T */
#define RC_OUT_JSON_RESERVE 8192   /* blanks after the "running" run.json */

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
    int joint_work;         /* the world has joints: W_J, W_proj (totals) last */
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

    /* the end of the last sync flush: where a failed stream is ended */
    int fd;                 /* the history opened a second time, or -1 */
    uLong crc, len;         /* CRC-32 and length (mod 2^32) of the data given to zlib */
    off_t good_off;
    uLong good_crc, good_len;
    long good_rows;

    double T;               /* end time of the run (rc_output_set_end_time), or NaN */
    int exit_code, has_exit_code;

    char *lock_path;        /* DIR/run.lock */
    int lock_fd;            /* -1 when not held */
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

size_t rc_utf8_seq(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {   /* (a NUL stops each test before the next byte) */
        if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;    /* overlong */
        if (c == 0xED && p[1] >= 0xA0) return 0;   /* surrogates */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;    /* overlong */
        if (c == 0xF4 && p[1] >= 0x90) return 0;   /* above U+10FFFF */
        return 4;
    }
    return 0;
}

/* s with its bytes that are not UTF-8 as \xHH and control characters as
 * blanks, into dst (room bytes, NUL-terminated, cut at a whole character). */
static void rc__text_escape(char *dst, size_t room, const char *s)
{
    size_t n = 0;
    while (*s) {
        size_t k = rc_utf8_seq(s);
        if (k == 0) {
            if (n + 5 > room) break;
            n += (size_t)snprintf(dst + n, room - n, "\\x%02x", (unsigned)(unsigned char)*s);
            s++;
            continue;
        }
        if (n + k + 1 > room) break;
        if (k == 1 && ((unsigned char)*s < 0x20 || *s == 0x7f)) dst[n++] = ' ';
        else { memcpy(dst + n, s, k); n += k; }
        s += k;
    }
    if (room) dst[n < room ? n : room - 1] = '\0';
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
    o->crc = crc32(o->crc, (const Bytef *)s, (uInt)n);
    o->len += (uLong)n;
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
    /* everything given to zlib is in the file, which ends at a byte boundary */
    struct stat st;
    if (o->fd >= 0 && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        o->good_off = st.st_size;
        o->good_crc = o->crc;
        o->good_len = o->len;
        o->good_rows = o->rows;
    }
    return RC_OK;
}

static int rc__pwrite_all(int fd, const void *data, size_t n, off_t off)
{
    const char *p = data;
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k < 0 ? errno : EIO;
        p += k;
        n -= (size_t)k;
        off += k;
    }
    return 0;
}

/* After a write error: end the gzip stream where the last sync flush left it
 * (a byte boundary after whole rows), with `line` as a final stored block
 * (RFC 1951, 3.2.4: BFINAL = 1, BTYPE = 00, LEN, NLEN, the bytes) when it
 * fits, else an empty final fixed-Huffman block (03 00); then the trailer
 * (RFC 1952: CRC-32 and length of all the data, little-endian). Returns 1 if
 * the file is now a complete gzip stream. */
static int rc__gz_repair(struct rc_output *o, const char *line, size_t n)
{
    if (o->fd < 0 || o->good_off <= 0) return 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (ftruncate(o->fd, o->good_off) != 0) return 0;
        uLong crc = o->good_crc, len = o->good_len;
        off_t at = o->good_off;
        int e = 0;
        if (attempt == 0 && n > 0 && n <= 0xffff) {
            unsigned char hd[5] = { 0x01, (unsigned char)(n & 0xff), (unsigned char)(n >> 8),
                                    (unsigned char)(~n & 0xff), (unsigned char)((~n >> 8) & 0xff) };
            e = rc__pwrite_all(o->fd, hd, 5, at);
            if (!e) e = rc__pwrite_all(o->fd, line, n, at + 5);
            at += 5 + (off_t)n;
            crc = crc32(crc, (const Bytef *)line, (uInt)n);
            len += (uLong)n;
        } else {
            static const unsigned char empty[2] = { 0x03, 0x00 };
            e = rc__pwrite_all(o->fd, empty, 2, at);
            at += 2;
        }
        unsigned char tr[8];
        for (int i = 0; i < 4; i++) {
            tr[i] = (unsigned char)((crc >> (8 * i)) & 0xff);
            tr[4 + i] = (unsigned char)((len >> (8 * i)) & 0xff);
        }
        if (!e) e = rc__pwrite_all(o->fd, tr, 8, at);
        if (!e) {
            if (fsync(o->fd) != 0) { /* the data is written; durability is the system's */ }
            return 1;
        }
    }
    if (ftruncate(o->fd, o->good_off) != 0) { /* at least a readable prefix, if possible */ }
    return 0;
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
    if (o->joint_work) {   /* the joints' work and the projection's energy change, totals */
        double wj = 0.0, wp = 0.0;
        if (rc_world_step_count(w) > 0) {
            if (rc_world_step_info(w, &info) == RC_OK) { wj = info.W_J_total; wp = info.W_proj_total; }
            else wj = wp = NAN;
        }
        *p++ = ',';
        p += rc__fmt_num(p, (size_t)(end - p), wj);
        *p++ = ',';
        p += rc__fmt_num(p, (size_t)(end - p), wp);
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
        size_t k = rc_utf8_seq((const char *)p);
        if (k == 0) {   /* not UTF-8: the byte as the text \xHH */
            fprintf(f, "\\\\x%02x", (unsigned)*p);
            continue;
        }
        if (k > 1) {
            fwrite(p, 1, k, f);
            p += k - 1;
            continue;
        }
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

/* A JSON text given by the caller, with bytes that are not UTF-8 as \\xHH
 * (they can only be inside its strings). */
static void rc__json_raw(FILE *f, const char *s)
{
    for (const char *p = s; *p;) {
        size_t k = rc_utf8_seq(p);
        if (k == 0) { fprintf(f, "\\\\x%02x", (unsigned)(unsigned char)*p); p++; continue; }
        fwrite(p, 1, k, f);
        p += k;
    }
}

/* Write the file path (O_TRUNC): text, then `pad` blanks; fsync. 0 or errno. */
static int rc__write_file(const char *path, const char *text, size_t len, size_t pad)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return errno ? errno : EIO;
    int e = rc__pwrite_all(fd, text, len, 0);
    char line[256];
    memset(line, ' ', sizeof line);
    for (size_t done = 0; !e && done < pad;) {
        size_t k = pad - done < sizeof line ? pad - done : sizeof line;
        if (done + k == pad) line[k - 1] = '\n';
        e = rc__pwrite_all(fd, line, k, (off_t)(len + done));
        done += k;
    }
    if (!e && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) e = errno;
    if (close(fd) != 0 && !e) e = errno;
    return e;
}

/* run.json: atomically (run.json.tmp, rename); failing that (a full disk: no
 * room for a new file), over the old run.json in place, within its size. */
static rc_status rc__json_commit(struct rc_output *o, const char *text, size_t len, size_t pad)
{
    int e = rc__write_file(o->json_tmp, text, len, pad);
    if (!e) {
        if (rename(o->json_tmp, o->json_path) == 0) return RC_OK;
        e = errno;
    }
    remove(o->json_tmp);
    int fd = open(o->json_path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        int e2 = rc__pwrite_all(fd, text, len, 0);
        if (!e2 && ftruncate(fd, (off_t)len) != 0) e2 = errno;
        if (!e2 && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) e2 = errno;
        if (close(fd) != 0 && !e2) e2 = errno;
        if (!e2) return RC_OK;
    }
    return rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->json_tmp, strerror(e));
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
    double wext = 0, wn = 0, wt = 0, wth = 0, wj = 0, wp = 0, eproj = 0;
    if (rc_world_step_count(w) > 0) {
        rc_step_info info;
        if (rc_world_step_info(w, &info) == RC_OK) {
            wext = info.W_ext_total; wn = info.W_N_total;
            wt = info.W_T_total; wth = info.W_theta_total;
            wj = info.W_J_total; wp = info.W_proj_total; eproj = info.E_proj_total;
        } else {
            wext = wn = wt = wth = wj = wp = eproj = NAN;
        }
    }
    double ek = NAN, ep = NAN;
    if (rc_world_energy(w, &ek, &ep) != RC_OK) { ek = NAN; ep = NAN; }

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return rc_set_error(RC_ERR_NOMEM, "cannot write %s: out of memory", o->json_path);

    fputs("{\n", f);
    rc__json_key(f, 1, "ricochet_version"); rc__json_str(f, RC_VERSION); fputs(",\n", f);
    rc__json_key(f, 1, "scenario"); rc__json_str(f, o->scenario); fputs(",\n", f);
    rc__json_key(f, 1, "status"); rc__json_str(f, status); fputs(",\n", f);
    rc__json_key(f, 1, "complete"); fputs(complete ? "true" : "false", f); fputs(",\n", f);
    rc__json_key(f, 1, "message"); rc__json_str(f, message); fputs(",\n", f);
    rc__json_key(f, 1, "signal");
    {
        int sig = strcmp(status, "interrupted") == 0 ? rc_interrupt_signal() : 0;
        const char *name = rc_signal_name(sig);
        if (name) rc__json_str(f, name);
        else if (sig > 0) fprintf(f, "%d", sig);
        else fputs("null", f);
    }
    fputs(",\n", f);
    rc__json_key(f, 1, "exit_code");
    if (o->has_exit_code && strcmp(status, "exited") == 0) fprintf(f, "%d", o->exit_code);
    else fputs("null", f);
    fputs(",\n", f);

    rc__json_key(f, 1, "scheme");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, rc_scheme_name(sim.scheme));
    fputs(",\n", f);
    rc__json_key(f, 1, "theta"); rc__json_num(f, have_sim ? sim.theta : NAN); fputs(",\n", f);
    rc__json_key(f, 1, "h"); rc__json_num(f, have_sim ? sim.h : NAN); fputs(",\n", f);
    rc__json_key(f, 1, "activation");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, sim.activation == RC_ACTIVATE_ANTICIPATE ? "anticipate" : "gap");
    fputs(",\n", f);
    rc__json_key(f, 1, "gamma"); rc__json_num(f, have_sim ? sim.gamma : NAN); fputs(",\n", f);

    rc__json_key(f, 1, "solver"); fputs("{\n", f);
    rc__json_key(f, 2, "name");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, rc_solver_name(sim.solver.method));
    fputs(",\n", f);
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
    rc__json_key(f, 1, "T"); rc__json_num(f, o->T); fputs(",\n", f);
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
    rc__json_key(f, 2, "W_J"); rc__json_num(f, wj); fputs(",\n", f);
    rc__json_key(f, 2, "W_proj"); rc__json_num(f, wp); fputs(",\n", f);
    rc__json_key(f, 2, "E_proj"); rc__json_num(f, eproj); fputs(",\n", f);
    rc__json_key(f, 2, "max_abs_balance"); rc__json_num(f, st.max_abs_balance); fputs(",\n", f);
    rc__json_key(f, 2, "max_contact_work"); rc__json_num(f, st.max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_contact_work"); rc__json_num(f, st.t_max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "contact_max_contact_work"); fprintf(f, "%d", st.contact_max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "positive_work_events"); fprintf(f, "%ld", st.positive_work_events); fputs(",\n", f);
    rc__json_key(f, 2, "max_energy_increase"); rc__json_num(f, st.max_energy_increase); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_energy_increase"); rc__json_num(f, st.t_max_energy_increase);
    fputs("\n  },\n", f);

    /* the joints: the paper's scheme or the projection, and what it left */
    rc__json_key(f, 1, "joints"); fputs("{\n", f);
    rc__json_key(f, 2, "count"); fprintf(f, "%d", rc_joint_count(w)); fputs(",\n", f);
    rc__json_key(f, 2, "project_joints");
    fputs(!have_sim ? "null" : sim.project_joints ? "true" : "false", f);
    fputs(",\n", f);
    rc__json_key(f, 2, "joint_jacobian");
    if (!have_sim) fputs("null", f);
    else {
        rc_joint_jacobian at = rc_sim_joint_jacobian(&sim);
        rc__json_str(f, at == RC_JOINT_JACOBIAN_START ? "start" : at == RC_JOINT_JACOBIAN_MIDPOINT ? "midpoint" : "end");
    }
    fputs(",\n", f);
    rc__json_key(f, 2, "max_pos_violation"); rc__json_num(f, st.max_joint_pos_violation); fputs(",\n", f);
    rc__json_key(f, 2, "max_vel_violation"); rc__json_num(f, st.max_joint_vel_violation);
    fputs("\n  },\n", f);

    rc__json_key(f, 1, "columns"); fputs("[", f);
    for (int i = 0; i < o->ncols; i++) {
        fputs(i ? ", " : "", f);
        rc__json_str(f, o->cols[i]);
    }
    fputs("],\n", f);
    rc__json_key(f, 1, "params");
    if (o->params) rc__json_raw(f, o->params); else fputs("{}", f);
    fputs("\n}\n", f);

    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad || !text) {
        free(text);
        return rc_set_error(RC_ERR_NOMEM, "cannot write %s: out of memory", o->json_path);
    }
    /* the "running" version keeps room for the final one (a full disk) */
    rc_status s = rc__json_commit(o, text, len, strcmp(status, "running") == 0 ? RC_OUT_JSON_RESERVE : 0);
    free(text);
    return s;
}

/* ---------------------------------------------------------------- the folder lock */

/* The pid written in a lock file (0 if none can be read). */
static long rc__lock_pid(int fd)
{
    char b[32];
    ssize_t n = pread(fd, b, sizeof b - 1, 0);
    if (n <= 0) return 0;
    b[n] = '\0';
    char *end;
    long pid = strtol(b, &end, 10);
    return pid > 0 && (*end == '\n' || *end == '\0') ? pid : 0;
}

static rc_status rc__lock_refused(const struct rc_output *o, long pid)
{
    if (pid == (long)getpid())
        return rc_set_error(RC_ERR_STATE, "output folder '%s' is locked by this process (pid %ld): "
                            "another output of this program is writing it (%s); close that one "
                            "first or choose another folder", o->dir, pid, o->lock_path);
    if (pid > 0)
        return rc_set_error(RC_ERR_STATE, "output folder '%s' is locked by process %ld (%s): another "
                            "run is writing it; wait for it to end or choose another folder",
                            o->dir, pid, o->lock_path);
    return rc_set_error(RC_ERR_STATE, "output folder '%s' is locked by another process (%s, no pid "
                        "in it yet): another run is writing it; wait for it to end or choose "
                        "another folder", o->dir, o->lock_path);
}

/* Take DIR/run.lock: flock(2) it, check that it is still the file at that
 * path (a writer that ends removes it), write our pid. */
static rc_status rc__lock(struct rc_output *o, rc_world *w)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        int fd = open(o->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0)
            return rc_set_error(RC_ERR_IO, "cannot create the lock file %s: %s", o->lock_path,
                                strerror(errno));
        int flocked = flock(fd, LOCK_EX | LOCK_NB) == 0;
        if (!flocked && errno == EINTR) {
            close(fd);
            continue;
        }
        if (!flocked && (errno == EWOULDBLOCK || errno == EAGAIN)) {
            long pid = rc__lock_pid(fd);
            close(fd);
            return rc__lock_refused(o, pid);
        }
        struct stat a, b;
        if (fstat(fd, &a) != 0 || stat(o->lock_path, &b) != 0 || a.st_dev != b.st_dev
            || a.st_ino != b.st_ino) {
            close(fd);   /* removed by its writer meanwhile: again */
            continue;
        }
        long pid = rc__lock_pid(fd);
        if (!flocked && pid > 0 && (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno == EPERM)) {
            close(fd);   /* no flock on this file system: a live pid holds it */
            return rc__lock_refused(o, pid);
        }
        if (pid > 0)
            rc_world_warn(w, "output folder '%s': took over the stale lock %s of process %ld "
                          "(that process no longer holds it: it ended without closing its output)",
                          o->dir, o->lock_path, pid);
        char text[32];
        int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
        int e = ftruncate(fd, 0) != 0 ? errno : rc__pwrite_all(fd, text, (size_t)n, 0);
        if (e) {
            close(fd);
            unlink(o->lock_path);
            return rc_set_error(RC_ERR_IO, "cannot write the lock file %s: %s", o->lock_path,
                                strerror(e));
        }
        o->lock_fd = fd;
        return RC_OK;
    }
    return rc_set_error(RC_ERR_IO, "cannot lock %s: it keeps being replaced", o->lock_path);
}

/* Remove the lock file while still holding it, then let it go. */
static void rc__unlock(struct rc_output *o)
{
    if (o->lock_fd < 0) return;
    unlink(o->lock_path);
    close(o->lock_fd);
    o->lock_fd = -1;
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
    if (o->fd >= 0) close(o->fd);
    rc__unlock(o);
    rc_free(o->lock_path);
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

/* Which name gave column i: "body", "named contact", "joint" (NULL for the
 * fixed ones), its name and its number (from 1) among those. */
static const char *rc__column_origin(const struct rc_output *o, const rc_world *w, int i,
                                     const char **name, int *number)
{
    *name = NULL;
    *number = 0;
    if (i < RC_OUT_NFIXED) return NULL;
    i -= RC_OUT_NFIXED;
    for (int b = 0; b < o->nbodies; b++) {
        int nc = o->body_nq[b] + o->body_nv[b];
        if (i < nc) { *name = rc_body_name(w, o->body_ids[b]); *number = b + 1; return "body"; }
        i -= nc;
    }
    if (i < 5 * o->ncontacts) {
        *number = i / 5 + 1;
        *name = rc_named_contact_name(w, i / 5);
        return "named contact";
    }
    i -= 5 * o->ncontacts;
    for (int k = 0; k < o->njoints; k++) {
        if (i < o->joint_rows[k]) { *name = rc_joint_name(w, o->joint_ids[k]); *number = k + 1; return "joint"; }
        i -= o->joint_rows[k];
    }
    return NULL;
}

static int rc__strcmp_p(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Column names: UTF-8 (the CSV file is UTF-8) and all distinct (a rule "C"
 * with contacts C1..C4 beside a rule "C2" would write C2.gN twice). */
static rc_status rc__check_columns(const struct rc_output *o, const rc_world *w)
{
    for (int i = 0; i < o->ncols; i++) {
        const char *c = o->cols[i];
        size_t k = 1;
        while (*c && (k = rc_utf8_seq(c)) > 0) c += k;
        if (*c) {
            const char *name;
            int number;
            const char *what = rc__column_origin(o, w, i, &name, &number);
            char shown[256];
            rc__text_escape(shown, sizeof shown, name ? name : o->cols[i]);
            return rc_set_error(RC_ERR_ARG, "rc_output_open: %s name '%s' is not valid UTF-8",
                                what ? what : "column", shown);
        }
    }
    if (o->ncols < 2) return RC_OK;
    char **sorted = rc_malloc((size_t)o->ncols * sizeof(char *));
    if (!sorted) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    memcpy(sorted, o->cols, (size_t)o->ncols * sizeof(char *));
    qsort(sorted, (size_t)o->ncols, sizeof(char *), rc__strcmp_p);
    const char *dup = NULL;
    for (int i = 1; i < o->ncols && !dup; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) dup = sorted[i];
    rc_free(sorted);
    if (!dup) return RC_OK;
    int first = -1, second = -1;
    for (int i = 0; i < o->ncols && second < 0; i++)
        if (strcmp(o->cols[i], dup) == 0) { if (first < 0) first = i; else second = i; }
    const char *na, *nb;
    int ka, kb;
    const char *wa = rc__column_origin(o, w, first, &na, &ka);
    const char *wb = rc__column_origin(o, w, second, &nb, &kb);
    if (wa && wb && strcmp(wa, wb) == 0 && strcmp(wa, "named contact") == 0)
        return rc_set_error(RC_ERR_ARG, "rc_output_open: duplicate column '%s': named contacts %d "
                            "and %d are both called '%s' (a rule whose pair has several potential "
                            "contacts names them NAME1, NAME2, ...); rename one of the rules",
                            dup, ka, kb, nb ? nb : "?");
    return rc_set_error(RC_ERR_ARG, "rc_output_open: duplicate column '%s': %s %d '%s' and %s %d '%s'; "
                        "rename one of them", dup, wa ? wa : "column", ka, na ? na : "?",
                        wb ? wb : "column", kb, nb ? nb : "?");
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
    o->fd = -1;
    o->lock_fd = -1;
    o->T = NAN;

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
        o->lock_path = rc__join(base, "run.lock");
        rc_free(base);
    }
    if (!o->csv_path || !o->json_path || !o->json_tmp || !o->lock_path) RC__NOMEM();
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
    o->joint_work = nj > 0;
    int ncols = RC_OUT_NFIXED + nstate_cols + 5 * o->ncontacts + jcols + 2 * o->joint_work;
    o->cols = rc_malloc((size_t)ncols * sizeof(char *));
    if (!o->cols) RC__NOMEM();
    for (int i = 0; i < RC_OUT_NFIXED; i++) {
        if (!(o->cols[o->ncols] = rc_strdup(rc__fixed_cols[i]))) RC__NOMEM();
        o->ncols++;
    }
    for (int b = 0; b < o->nbodies; b++) {
        const char *name = rc_body_name(w, o->body_ids[b]);
        /* x, y, theta for rigid bodies; q1..qn, v1..vn for linear ones, n = 3 included */
        int rigid = w->bodies[o->body_ids[b]].kind == RC_BODY_RIGID2D;
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
    for (int i = 0; i < 2 * o->joint_work; i++) {
        if (!(o->cols[o->ncols] = rc_strdup(i ? "W_proj" : "W_J"))) RC__NOMEM();
        o->ncols++;
    }

    rc_status s = rc__check_columns(o, w);
    if (s != RC_OK) { rc__output_destroy(o); return s; }

    /* row buffer, also used for the header */
    size_t hlen = 2;
    for (int i = 0; i < o->ncols; i++) hlen += rc__csv_field(NULL, o->cols[i]) + 1;
    o->cap = (size_t)o->ncols * RC_OUT_NUM_MAX + 16;
    if (o->cap < hlen) o->cap = hlen;
    o->buf = rc_malloc(o->cap);
    if (!o->buf) RC__NOMEM();

    /* files */
    s = rc__mkdirs(o->dir);
    if (s != RC_OK) { rc__output_destroy(o); return s; }
    s = rc__lock(o, w);
    if (s != RC_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "rc_output_open: %s", rc_last_error());
        rc__output_destroy(o);
        return rc_set_error(s, "%s", msg);
    }

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
    o->fd = open(o->csv_path, O_WRONLY | O_CLOEXEC);   /* to end the stream after a write error */

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
    int json_failed = 0;
    if (s == RC_OK) json_failed = (s = rc__write_json(w, "running", 0, NULL, 0.0, 0.0)) != RC_OK;
    if (s != RC_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "rc_output_open: %s", rc_last_error());
        if (!json_failed)   /* the history could not be written: run.json says so */
            (void)rc__write_json(w, "error", 0, msg + strlen("rc_output_open: "), 0.0, 0.0);
        w->out = NULL;
        rc__output_destroy(o);
        return rc_set_error(s, "%s", msg);
    }
    return RC_OK;
}

#define RC__STATUSES "\"complete\", \"stopped\", \"error\", \"interrupted\", \"exited\" or \"aborted\""

static rc_status rc__output_end(rc_world *w, const char *fname, const char *status,
                                const char *message)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: world is NULL", fname);
    if (!status)
        return rc_set_error(RC_ERR_ARG, "%s: status is NULL (expected " RC__STATUSES ")", fname);
    if (strcmp(status, "complete") && strcmp(status, "error") && strcmp(status, "interrupted")
        && strcmp(status, "stopped") && strcmp(status, "exited") && strcmp(status, "aborted"))
        return rc_set_error(RC_ERR_ARG, "%s: unknown status \"%s\" (expected " RC__STATUSES ")",
                            fname, status);
    struct rc_output *o = w->out;
    if (!o) return RC_OK;

    rc_status result = RC_OK;
    char errmsg[1024] = "";
    int complete = strcmp(status, "complete") == 0;
    const char *final_status = status;
    const char *final_message = message;
    char downgraded[1100];

    /* "complete" before the end time of the run: the run was cut short */
    double t = rc_world_time(w);
    rc_sim_def sim;
    if (complete && rc_finite(o->T) && rc_world_get_sim_def(w, &sim) == RC_OK
        && t < o->T - 0.75 * sim.h) {
        final_status = "aborted";
        complete = 0;
        if (!message) {
            snprintf(downgraded, sizeof downgraded, "the output was closed at t = %.15g, before "
                     "the end of the run (T = %.15g)", t, o->T);
            final_message = downgraded;
        }
    }

    /* everything so far into the file: the point a failed stream is ended at */
    if (o->io_status == RC_OK) (void)rc__gz_flush(o);

    /* A row that could not be written makes the history incomplete. */
    if (complete && o->io_status != RC_OK) {
        final_status = "error";
        complete = 0;
        snprintf(downgraded, sizeof downgraded, "%s", o->io_msg);
        final_message = downgraded;
        result = o->io_status;
        snprintf(errmsg, sizeof errmsg, "%s: %s", fname, o->io_msg);
    }

    /* "# incomplete: STATUS: MESSAGE" on one line (UTF-8, no control characters) */
    size_t nline = 0;
    if (!complete) {
        nline = (size_t)snprintf(o->buf, o->cap, "# incomplete: %s", final_status);
        if (nline >= o->cap) nline = o->cap - 1;
        if (final_message && nline + 4 < o->cap) {
            o->buf[nline++] = ':';
            o->buf[nline++] = ' ';
            rc__text_escape(o->buf + nline, o->cap - nline - 1, final_message);
            nline += strlen(o->buf + nline);
        }
        o->buf[nline++] = '\n';
        if (rc__gz_write(o, o->buf, nline) != RC_OK && result == RC_OK) {
            result = RC_ERR_IO;
            snprintf(errmsg, sizeof errmsg, "%s: %s", fname, rc_last_error());
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
            snprintf(errmsg, sizeof errmsg, "%s: cannot write %s: %s", fname, o->csv_path, why);
        }
        if (o->io_status == RC_OK) {
            o->io_status = RC_ERR_IO;
            snprintf(o->io_msg, sizeof o->io_msg, "cannot write %s: %s", o->csv_path, why);
        }
        if (complete) {
            complete = 0;
            final_status = "error";
            snprintf(downgraded, sizeof downgraded, "cannot write %s: %s", o->csv_path, why);
            final_message = downgraded;
            nline = (size_t)snprintf(o->buf, o->cap, "# incomplete: error: ");
            if (nline >= o->cap) nline = o->cap - 1;
            rc__text_escape(o->buf + nline, o->cap - nline - 1, downgraded);
            nline += strlen(o->buf + nline);
            o->buf[nline++] = '\n';
        }
    }
    /* a write failed: end the stream after the last whole rows that reached the file */
    if (o->io_status != RC_OK) {
        rc__gz_repair(o, o->buf, nline);
        o->rows = o->good_rows;
    }

    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double wall_s = (double)(now.tv_sec - o->wall0.tv_sec)
                  + 1e-9 * (double)(now.tv_nsec - o->wall0.tv_nsec);
    double cpu_s = (double)(clock() - o->cpu0) / (double)CLOCKS_PER_SEC;
    if (rc__write_json(w, final_status, complete, final_message, cpu_s, wall_s) != RC_OK
        && result == RC_OK) {
        result = RC_ERR_IO;
        snprintf(errmsg, sizeof errmsg, "%s: %s", fname, rc_last_error());
    }

    w->out = NULL;
    rc__output_destroy(o);   /* and the folder's lock */
    if (result != RC_OK) return rc_set_error(result, "%s", errmsg);
    return RC_OK;
}

rc_status rc_output_close(rc_world *w, const char *status, const char *message)
{
    return rc__output_end(w, "rc_output_close", status, message);
}

rc_status rc_output_close_exited(rc_world *w, int code, const char *message)
{
    if (w && w->out) {
        w->out->exit_code = code;
        w->out->has_exit_code = 1;
    }
    return rc__output_end(w, "rc_output_close_exited", "exited", message);
}

rc_status rc_output_set_end_time(rc_world *w, double T)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_output_set_end_time: world is NULL");
    if (!rc_finite(T))
        return rc_set_error(RC_ERR_ARG, "rc_output_set_end_time: T must be a finite number (got %g)", T);
    if (!w->out) return rc_set_error(RC_ERR_STATE, "rc_output_set_end_time: no output is open");
    w->out->T = T;
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
