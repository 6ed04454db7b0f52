/* files.c -- the output's file helpers: paths, folders, UTF-8 and text
 * escapes, number formatting, the gzip stream's writes, flushes and repair,
 * and the folder lock (DIR/run.lock); output.c has the overview. */
#define _POSIX_C_SOURCE 200809L

#include "io/output_impl.h"

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

/* ---------------------------------------------------------------- helpers */

char *rco_join(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = rcb_malloc(na + nb + 1);
    if (!s) return NULL;
    memcpy(s, a, na);
    memcpy(s + na, b, nb + 1);
    return s;
}

size_t rco_utf8_seq(const char *s)
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
void rco_text_escape(char *dst, size_t room, const char *s)
{
    size_t n = 0;
    while (*s) {
        size_t k = rco_utf8_seq(s);
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
size_t rco_fmt_num(char *p, size_t room, double x)
{
    if (isnan(x)) { memcpy(p, "nan", 4); return 3; }
    if (isinf(x)) {
        if (x > 0) { memcpy(p, "inf", 4); return 3; }
        memcpy(p, "-inf", 5); return 4;
    }
    return rco_fmt_g15(p, room, x);   /* the bytes of "%.15g" (fmt_num.c) */
}

/* mkdir -p */
rc_status rco_mkdirs(const char *dir)
{
    size_t n = strlen(dir);
    char *tmp = rcb_malloc(n + 1);
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
            rcb_free(tmp);
            return s;
        }
        tmp[i] = c;
    }
    rcb_free(tmp);
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

rc_status rco_gz_write(struct rc_output *o, const char *s, size_t n)
{
    if (n == 0) return RC_OK;
    errno = 0;
    if (gzwrite(o->gz, s, (unsigned)n) != (int)n) {
        rc_status st = rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->hist_path,
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

rc_status rco_gz_flush(struct rc_output *o)
{
    errno = 0;
    int r = gzflush(o->gz, Z_SYNC_FLUSH);
    if (r != Z_OK) {
        rc_status st = rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->hist_path,
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

int rco_pwrite_all(int fd, const void *data, size_t n, off_t off)
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
int rco_gz_repair(struct rc_output *o, const char *line, size_t n)
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
            e = rco_pwrite_all(o->fd, hd, 5, at);
            if (!e) e = rco_pwrite_all(o->fd, line, n, at + 5);
            at += 5 + (off_t)n;
            crc = crc32(crc, (const Bytef *)line, (uInt)n);
            len += (uLong)n;
        } else {
            static const unsigned char empty[2] = { 0x03, 0x00 };
            e = rco_pwrite_all(o->fd, empty, 2, at);
            at += 2;
        }
        unsigned char tr[8];
        for (int i = 0; i < 4; i++) {
            tr[i] = (unsigned char)((crc >> (8 * i)) & 0xff);
            tr[4 + i] = (unsigned char)((len >> (8 * i)) & 0xff);
        }
        if (!e) e = rco_pwrite_all(o->fd, tr, 8, at);
        if (!e) {
            if (fsync(o->fd) != 0) { /* the data is written; durability is the system's */ }
            return 1;
        }
    }
    if (ftruncate(o->fd, o->good_off) != 0) { /* at least a readable prefix, if possible */ }
    return 0;
}

/* A CSV field: quoted (RFC 4180) when it holds a comma, quote or newline. */
size_t rco_csv_field(char *dst, const char *s)
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
rc_status rco_lock(struct rc_output *o, rc_world *w)
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
            rcm_world_warn(w, "output folder '%s': took over the stale lock %s of process %ld "
                          "(that process no longer holds it: it ended without closing its output)",
                          o->dir, o->lock_path, pid);
        char text[32];
        int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
        int e = ftruncate(fd, 0) != 0 ? errno : rco_pwrite_all(fd, text, (size_t)n, 0);
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
void rco_unlock(struct rc_output *o)
{
    if (o->lock_fd < 0) return;
    unlink(o->lock_path);
    close(o->lock_fd);
    o->lock_fd = -1;
}
