/*
 * history_bin.c -- a binary history (DIR/history.bin, layout in output_bin.c)
 * back to text: rc_history_convert writes the history.csv.gz that format
 * RC_HISTORY_CSV would have written (the same header, the same "%.15g"
 * numbers through rco_fmt_num, the same "# incomplete" line), reading the
 * rows one at a time (a history of any length).
 */
#define _POSIX_C_SOURCE 200809L

#include "io/output_impl.h"

#include <stdio.h>

#define RC_BIN_FIXED 40

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* What the header says, with the rows the file holds. */
typedef struct bin_head {
    uint32_t ncols, H, state, trailer;
    uint64_t rows;          /* whole rows to convert */
    unsigned char *names;   /* H - RC_BIN_FIXED bytes: the NUL-terminated names */
    char note[200];         /* the "# incomplete" reason when the file itself tells none */
} bin_head;

static rc_status bad(const char *path, const char *why)
{
    return rc_set_error(RC_ERR_ARG, "rc_history_convert: '%s' is not a binary history: %s", path, why);
}

/* Read and check the header; count the whole rows. */
static rc_status read_head(FILE *f, const char *path, bin_head *h)
{
    unsigned char b[RC_BIN_FIXED];
    if (fread(b, 1, sizeof b, f) != sizeof b) return bad(path, "shorter than its 40-byte header");
    if (memcmp(b, "RCHISTRY", 8) != 0) return bad(path, "no magic \"RCHISTRY\"");
    if (get_u32(b + 8) != 1)
        return rc_set_error(RC_ERR_ARG, "rc_history_convert: '%s' is a binary history of version %u; "
                            "this program reads version 1", path, (unsigned)get_u32(b + 8));
    if (get_u32(b + 12) != 0x01020304u) return bad(path, "its byte-order mark is not 0x01020304 little-endian");
    h->ncols = get_u32(b + 16);
    h->H = get_u32(b + 20);
    h->state = get_u32(b + 32);
    h->trailer = get_u32(b + 36);
    if (h->ncols == 0 || h->ncols > (1u << 24) || h->H % 8 || h->H < RC_BIN_FIXED + 2 * h->ncols || h->state > 2)
        return bad(path, "its header is corrupted (columns, header size or state out of range)");
    h->names = rcb_malloc(h->H - RC_BIN_FIXED);
    if (!h->names) return rc_set_error(RC_ERR_NOMEM, "rc_history_convert: out of memory");
    if (fread(h->names, 1, h->H - RC_BIN_FIXED, f) != h->H - RC_BIN_FIXED) return bad(path, "its header is cut short");
    size_t at = 0;
    for (uint32_t i = 0; i < h->ncols; i++) {
        const unsigned char *z = memchr(h->names + at, 0, h->H - RC_BIN_FIXED - at);
        if (!z) return bad(path, "its column names are corrupted");
        at = (size_t)(z - h->names) + 1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) return rc_set_error(RC_ERR_IO, "rc_history_convert: cannot read %s: %s", path, strerror(errno));
    const uint64_t rb = 8 * (uint64_t)h->ncols;
    const uint64_t have = st.st_size > (off_t)h->H ? ((uint64_t)st.st_size - h->H) / rb : 0;
    h->note[0] = '\0';
    if (h->state == 0) {
        h->rows = have;
        snprintf(h->note, sizeof h->note, "# incomplete: running: the history has no end record (the run was "
                 "killed, or is still running)\n");
    } else {
        h->rows = get_u64(b + 24);
        if (h->rows > have) {
            snprintf(h->note, sizeof h->note, "# incomplete: error: the history is cut short (%llu of its %llu rows)\n",
                     (unsigned long long)have, (unsigned long long)h->rows);
            h->rows = have;
            h->trailer = 0;
        }
    }
    return RC_OK;
}

/* The header line, the rows, the end line into the gzip stream gz. */
static rc_status convert_rows(FILE *f, const char *path, gzFile gz, bin_head *h, char *buf, size_t cap)
{
    const size_t rb = 8 * (size_t)h->ncols;
    unsigned char *raw = rcb_malloc(rb);
    if (!raw) return rc_set_error(RC_ERR_NOMEM, "rc_history_convert: out of memory");
    rc_status s = RC_OK;
    size_t at = 0;
    char *p = buf;
    for (uint32_t i = 0; i < h->ncols; i++) {   /* (buf holds the header: cap >= its length) */
        const char *name = (const char *)h->names + at;
        at += strlen(name) + 1;
        if (i) *p++ = ',';
        p += rco_csv_field(p, name);
    }
    *p++ = '\n';
    int ok = gzwrite(gz, buf, (unsigned)(p - buf)) == (int)(p - buf);
    for (uint64_t r = 0; ok && r < h->rows; r++) {
        if (fread(raw, 1, rb, f) != rb) { s = rc_set_error(RC_ERR_IO, "rc_history_convert: cannot read %s", path); break; }
        p = buf;
        for (uint32_t i = 0; i < h->ncols; i++) {
            uint64_t u = get_u64(raw + 8 * (size_t)i);
            double x;
            memcpy(&x, &u, sizeof x);
            if (i) *p++ = ',';
            p += rco_fmt_num(p, cap - (size_t)(p - buf), x);
        }
        *p++ = '\n';
        ok = gzwrite(gz, buf, (unsigned)(p - buf)) == (int)(p - buf);
    }
    if (s == RC_OK && ok && h->state == 2 && h->trailer > 0) {   /* the run's own "# incomplete" line */
        size_t n = h->trailer < cap - 1 ? h->trailer : cap - 2;
        n = fread(buf, 1, n, f);
        if (n == 0) snprintf(h->note, sizeof h->note, "# incomplete: unknown: the reason was not written\n");
        else {
            if (buf[n - 1] != '\n') buf[n++] = '\n';
            ok = gzwrite(gz, buf, (unsigned)n) == (int)n;
        }
    } else if (s == RC_OK && h->state == 2 && !h->note[0]) {
        snprintf(h->note, sizeof h->note, "# incomplete: unknown: the reason was not written\n");
    }
    if (s == RC_OK && ok && h->note[0]) ok = gzwrite(gz, h->note, (unsigned)strlen(h->note)) == (int)strlen(h->note);
    rcb_free(raw);
    if (s == RC_OK && !ok) s = rc_set_error(RC_ERR_IO, "rc_history_convert: cannot write the text history");
    return s;
}

rc_status rc_history_convert(const char *bin_path, const char *csv_gz_path, long *rows)
{
    if (rows) *rows = 0;
    if (!bin_path || !csv_gz_path || !*bin_path || !*csv_gz_path)
        return rc_set_error(RC_ERR_ARG, "rc_history_convert: the paths must be non-empty strings");
    FILE *f = fopen(bin_path, "rb");
    if (!f) return rc_set_error(RC_ERR_IO, "rc_history_convert: cannot open %s: %s", bin_path, strerror(errno));
    bin_head h;
    memset(&h, 0, sizeof h);
    rc_status s = read_head(f, bin_path, &h);
    char *tmp = s == RC_OK ? rco_join(csv_gz_path, ".tmp") : NULL;
    const size_t cap = (size_t)h.ncols * RC_OUT_NUM_MAX + 2 * (size_t)h.H + 256;
    char *buf = s == RC_OK ? rcb_malloc(cap) : NULL;
    if (s == RC_OK && (!tmp || !buf)) s = rc_set_error(RC_ERR_NOMEM, "rc_history_convert: out of memory");
    gzFile gz = NULL;
    if (s == RC_OK) {
        errno = 0;
        gz = gzopen(tmp, "wb1");
        if (!gz) s = rc_set_error(RC_ERR_IO, "rc_history_convert: cannot open %s: %s", tmp, errno ? strerror(errno) : "gzopen failed");
        else gzbuffer(gz, 1u << 16);
    }
    if (s == RC_OK) s = convert_rows(f, bin_path, gz, &h, buf, cap);
    if (gz && gzclose(gz) != Z_OK && s == RC_OK) s = rc_set_error(RC_ERR_IO, "rc_history_convert: cannot write %s", tmp);
    if (s == RC_OK && rename(tmp, csv_gz_path) != 0)
        s = rc_set_error(RC_ERR_IO, "rc_history_convert: cannot rename %s to %s: %s", tmp, csv_gz_path, strerror(errno));
    if (s != RC_OK && gz) remove(tmp);
    if (s == RC_OK && rows) *rows = (long)h.rows;
    fclose(f);
    rcb_free(h.names);
    rcb_free(buf);
    rcb_free(tmp);
    return s;
}
