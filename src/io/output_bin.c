/*
 * output_bin.c -- DIR/history.bin, the binary history (rc_output_def.format =
 * RC_HISTORY_BINARY; output.c has the overview, history_bin.c reads it back).
 * All integers and numbers little-endian:
 *
 *   offset  size  field
 *   0       8     magic "RCHISTRY"
 *   8       4     u32 version (1)
 *   12      4     u32 byte-order mark 0x01020304 (the bytes 04 03 02 01)
 *   16      4     u32 ncols, the number of columns
 *   20      4     u32 H, the header's size: the rows start at offset H (a multiple of 8)
 *   24      8     u64 rows: the rows in the file (0 until the output is closed)
 *   32      4     u32 state: 0 open (the run is writing, or it was killed), 1 complete,
 *                 2 incomplete (the trailer says why)
 *   36      4     u32 trailer: the bytes of text after the last row (state 2)
 *   40      ...   the column names, each UTF-8 and NUL-terminated (the CSV header's
 *                 names, unquoted), then zero bytes up to H
 *   H       ...   rows: ncols float64 each (IEEE 754 binary64; NaN for a value
 *                 the history cannot give, e.g. a removed body's)
 *   H + rows * 8 * ncols: the trailer "# incomplete: STATUS: MESSAGE\n" (state 2)
 *
 * Rows are buffered (RC_OUT_BIN_BUF bytes, or one row if it is larger) and
 * written with pwrite at the end of the last whole row written: a killed run
 * leaves the header (state 0) and whole rows, perhaps then the first part of
 * one. At close the rows are flushed, then the header's rows, state and
 * trailer length are written, then the trailer. After a write error (a full
 * disk) the file is cut after the last whole row that reached it and closed
 * as incomplete ("error"): the state and trailer overwrite bytes that exist,
 * the trailer is written if there is room for it.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/output_impl.h"

#define RC_BIN_FIXED 40   /* the header's fields before the names */

void rco_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

void rco_put_f64(unsigned char *p, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    put_u64(p, u);
}

/* A write error: remembered (the first one), and set as the last error. */
static rc_status bin_error(struct rc_output *o, int e)
{
    rc_status st = rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->hist_path, strerror(e));
    if (o->io_status == RC_OK) {
        o->io_status = st;
        snprintf(o->io_msg, sizeof o->io_msg, "%s", rc_last_error());
    }
    return st;
}

rc_status rco_bin_open(struct rc_output *o)
{
    size_t names = 0;
    for (int i = 0; i < o->ncols; i++) names += strlen(o->cols[i]) + 1;
    const size_t H = (RC_BIN_FIXED + names + 7) & ~(size_t)7;
    const size_t rb = 8 * (size_t)o->ncols;
    if (H > 0xffffffffu) return rc_set_error(RC_ERR_ARG, "rc_output_open: the column names are too long for %s", o->hist_path);
    o->bcap = rb > RC_OUT_BIN_BUF ? rb : RC_OUT_BIN_BUF;
    o->bbuf = rcb_malloc(o->bcap);
    unsigned char *h = rcb_malloc(H);
    if (!o->bbuf || !h) {
        rcb_free(h);
        return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    }
    memset(h, 0, H);
    memcpy(h, "RCHISTRY", 8);
    rco_put_u32(h + 8, 1);
    rco_put_u32(h + 12, 0x01020304u);
    rco_put_u32(h + 16, (uint32_t)o->ncols);
    rco_put_u32(h + 20, (uint32_t)H);
    size_t at = RC_BIN_FIXED;
    for (int i = 0; i < o->ncols; i++) {
        size_t n = strlen(o->cols[i]) + 1;
        memcpy(h + at, o->cols[i], n);
        at += n;
    }
    errno = 0;
    o->fd = open(o->hist_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int e = o->fd < 0 ? (errno ? errno : EIO) : rco_pwrite_all(o->fd, h, H, 0);
    rcb_free(h);
    if (e) return rc_set_error(RC_ERR_IO, "rc_output_open: cannot %s %s: %s", o->fd < 0 ? "open" : "write",
                               o->hist_path, strerror(e));
    o->data_off = (off_t)H;
    o->good_off = (off_t)H;
    o->good_rows = 0;
    return RC_OK;
}

rc_status rco_bin_flush(struct rc_output *o)
{
    if (o->io_status != RC_OK) return rc_set_error(o->io_status, "%s", o->io_msg);
    if (o->blen == 0) return RC_OK;
    int e = rco_pwrite_all(o->fd, o->bbuf, o->blen, o->good_off);
    if (e) return bin_error(o, e);
    o->good_off += (off_t)o->blen;
    o->good_rows = o->rows;
    o->blen = 0;
    return RC_OK;
}

rc_status rco_bin_row(struct rc_output *o)
{
    const size_t rb = 8 * (size_t)o->ncols;
    if (o->io_status != RC_OK) return rc_set_error(o->io_status, "%s", o->io_msg);
    if (o->blen + rb > o->bcap) RC_CHECK(rco_bin_flush(o));
    unsigned char *p = o->bbuf + o->blen;
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, o->row, rb);   /* the host's doubles are the file's */
#else
    for (int i = 0; i < o->ncols; i++) rco_put_f64(p + 8 * i, o->row[i]);
#endif
    o->blen += rb;
    o->rows++;
    return RC_OK;
}

/* End the file (the rows were flushed, or a write failed): cut it after the
 * last whole row written, the header's rows, state and trailer length, the
 * trailer line (n bytes) unless complete; close. 0 or the errno of a failed
 * write or close. */
int rco_bin_end(struct rc_output *o, int complete, const char *line, size_t n)
{
    int e = 0;
    if (o->io_status != RC_OK) {
        o->blen = 0;
        o->rows = o->good_rows;
        if (ftruncate(o->fd, o->good_off) != 0) e = errno;
    }
    unsigned char f[16];
    put_u64(f, (uint64_t)o->good_rows);
    rco_put_u32(f + 8, complete ? 1u : 2u);
    rco_put_u32(f + 12, complete ? 0u : (uint32_t)n);
    int e2 = rco_pwrite_all(o->fd, f, sizeof f, 24);
    if (!e2 && !complete && n) e2 = rco_pwrite_all(o->fd, line, n, o->good_off);
    if (close(o->fd) != 0 && !e2) e2 = errno;
    o->fd = -1;
    return e2 ? e2 : e;
}
