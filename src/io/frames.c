/*
 * frames.c -- the frame file of a run (format: ricochet_frames.h), written
 * through the public API only (rc_body_get_state, rc_shape_get_def,
 * rc_contact_get): an observer of the world, called between steps.
 */
#define _POSIX_C_SOURCE 200809L

#include "ricochet_frames.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <zlib.h>

#include "base/base.h"   /* the library's counted allocator */

#define RC_FR_TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define RC_FR_GEOM RC_FR_TAG('G', 'E', 'O', 'M')
#define RC_FR_FRAM RC_FR_TAG('F', 'R', 'A', 'M')
#define RC_FR_END RC_FR_TAG('E', 'N', 'D', ' ')
#define RC_FR_OUT_CHUNK 65536

struct rc_frames_writer {
    char *path;
    FILE *f;
    z_stream z;
    int z_open;
    int contacts;
    long frames;
    int geom_bodies, geom_shapes;   /* counts the last GEOM record described (-1: none) */
    int failed;                     /* a write failed: the file is left as it is */
    unsigned char *buf;             /* the record being built */
    size_t n, cap;
    unsigned char *out;             /* deflate output */
};

static rc_status fr_io_error(const rc_frames_writer *fw, const char *what)
{
    return rc_set_error(RC_ERR_IO, "frames: cannot write '%s': %s", fw->path, what);
}

static int fr_reserve(rc_frames_writer *fw, size_t extra)
{
    if (fw->n + extra <= fw->cap) return 1;
    size_t cap = fw->cap ? fw->cap : 4096;
    while (cap < fw->n + extra) cap += cap / 2 + 4096;
    unsigned char *p = (unsigned char *)rcb_realloc(fw->buf, cap);
    if (!p) return 0;
    fw->buf = p;
    fw->cap = cap;
    return 1;
}

/* little-endian stores into the record buffer (room reserved by the caller) */
static void put_u32(rc_frames_writer *fw, uint32_t x)
{
    unsigned char *p = fw->buf + fw->n;
    p[0] = (unsigned char)x;
    p[1] = (unsigned char)(x >> 8);
    p[2] = (unsigned char)(x >> 16);
    p[3] = (unsigned char)(x >> 24);
    fw->n += 4;
}

static void put_f32(rc_frames_writer *fw, double x)
{
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(fw, u);
}

static void put_f64(rc_frames_writer *fw, double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    put_u32(fw, (uint32_t)u);
    put_u32(fw, (uint32_t)(u >> 32));
}

static void put_text(rc_frames_writer *fw, const char *s, size_t len)
{
    put_u32(fw, (uint32_t)len);
    memcpy(fw->buf + fw->n, s, len);
    fw->n += len;
    while (fw->n % 4) fw->buf[fw->n++] = 0;
}

/* Starts a record: tag and a length patched by end_record. */
static void begin_record(rc_frames_writer *fw, uint32_t tag)
{
    fw->n = 0;
    put_u32(fw, tag);
    put_u32(fw, 0);
}

static void end_record(rc_frames_writer *fw)
{
    size_t n = fw->n;
    fw->n = 4;
    put_u32(fw, (uint32_t)(n - 8));
    fw->n = n;
}

/* Deflates the record buffer with flush (Z_SYNC_FLUSH or Z_FINISH). */
static rc_status fr_deflate(rc_frames_writer *fw, int flush)
{
    if (fw->failed) return rc_set_error(RC_ERR_IO, "frames: '%s': an earlier write failed", fw->path);
    fw->z.next_in = fw->buf;
    fw->z.avail_in = (uInt)fw->n;
    for (;;) {
        fw->z.next_out = fw->out;
        fw->z.avail_out = RC_FR_OUT_CHUNK;
        int zs = deflate(&fw->z, flush);
        if (zs == Z_STREAM_ERROR) {
            fw->failed = 1;
            return rc_set_error(RC_ERR_IO, "frames: '%s': zlib error", fw->path);
        }
        size_t have = RC_FR_OUT_CHUNK - fw->z.avail_out;
        if (have && fwrite(fw->out, 1, have, fw->f) != have) {
            fw->failed = 1;
            return fr_io_error(fw, strerror(errno));
        }
        if (fw->z.avail_out != 0 && fw->z.avail_in == 0) break;
    }
    fw->n = 0;
    if (flush == Z_SYNC_FLUSH && fflush(fw->f) != 0) {
        fw->failed = 1;
        return fr_io_error(fw, strerror(errno));
    }
    return RC_OK;
}

/* mkdir -p of the file's folder */
static rc_status fr_mkdirs(const char *path)
{
    size_t n = strlen(path);
    char *d = (char *)rcb_realloc(NULL, n + 1);
    if (!d) return rc_set_error(RC_ERR_NOMEM, "frames: out of memory");
    memcpy(d, path, n + 1);
    char *slash = strrchr(d, '/');
    rc_status s = RC_OK;
    if (slash && slash != d) {
        *slash = '\0';
        for (char *p = d + 1; ; p++) {
            if (*p == '/' || *p == '\0') {
                char c = *p;
                *p = '\0';
                if (mkdir(d, 0777) != 0 && errno != EEXIST) {
                    s = rc_set_error(RC_ERR_IO, "frames: cannot create the folder '%s': %s", d, strerror(errno));
                    break;
                }
                *p = c;
                if (c == '\0') break;
            }
        }
    }
    rcb_free(d);
    return s;
}

rc_frames_def rc_default_frames_def(void)
{
    rc_frames_def d;
    memset(&d, 0, sizeof d);
    d.level = 6;
    d.contacts = 1;
    return d;
}

static void fr_free(rc_frames_writer *fw)
{
    if (fw->z_open) deflateEnd(&fw->z);
    if (fw->f) fclose(fw->f);
    rcb_free(fw->path);
    rcb_free(fw->buf);
    rcb_free(fw->out);
    rcb_free(fw);
}

rc_status rc_frames_open(const rc_frames_def *def, rc_frames_writer **out)
{
    if (!out) return rc_set_error(RC_ERR_ARG, "rc_frames_open: 'out' is NULL");
    *out = NULL;
    if (!def || !def->path || !*def->path) return rc_set_error(RC_ERR_ARG, "rc_frames_open: 'path' is missing");
    if (def->level < 0 || def->level > 9)
        return rc_set_error(RC_ERR_ARG, "rc_frames_open: 'level' must be in 0..9 (got %d)", def->level);
    if (def->contacts != 0 && def->contacts != 1)
        return rc_set_error(RC_ERR_ARG, "rc_frames_open: 'contacts' must be 0 or 1 (got %d)", def->contacts);
    rc_status s = fr_mkdirs(def->path);
    if (s != RC_OK) return s;
    rc_frames_writer *fw = (rc_frames_writer *)rcb_realloc(NULL, sizeof *fw);
    if (!fw) return rc_set_error(RC_ERR_NOMEM, "rc_frames_open: out of memory");
    memset(fw, 0, sizeof *fw);
    fw->contacts = def->contacts;
    fw->geom_bodies = fw->geom_shapes = -1;
    size_t n = strlen(def->path);
    fw->path = (char *)rcb_realloc(NULL, n + 1);
    fw->out = (unsigned char *)rcb_realloc(NULL, RC_FR_OUT_CHUNK);
    if (!fw->path || !fw->out) {
        fr_free(fw);
        return rc_set_error(RC_ERR_NOMEM, "rc_frames_open: out of memory");
    }
    memcpy(fw->path, def->path, n + 1);
    fw->f = fopen(def->path, "wb");
    if (!fw->f) {
        s = rc_set_error(RC_ERR_IO, "frames: cannot open '%s' for writing: %s", def->path, strerror(errno));
        fr_free(fw);
        return s;
    }
    if (deflateInit(&fw->z, def->level) != Z_OK) {
        fr_free(fw);
        return rc_set_error(RC_ERR_NOMEM, "rc_frames_open: zlib could not start (out of memory)");
    }
    fw->z_open = 1;
    unsigned char head[16] = { 'R', 'C', 'F', 'R', 'A', 'M', 'E', 'S',
                               RC_FRAMES_VERSION, 0, 0, 0, 0, 0, 0, 0 };
    if (fwrite(head, 1, sizeof head, fw->f) != sizeof head || fflush(fw->f) != 0) {
        s = fr_io_error(fw, strerror(errno));
        fr_free(fw);
        return s;
    }
    *out = fw;
    return RC_OK;
}

/* The values of a shape's record (see the header); returns their number. */
static int shape_values(const rc_shape_def *d, double *v)
{
    switch (d->type) {
    case RC_SHAPE_DISK: v[0] = d->offset[0]; v[1] = d->offset[1]; v[2] = d->radius; return 3;
    case RC_SHAPE_POLYGON:
        for (int i = 0; i < d->nvert; i++) {
            v[2 * i] = d->vert[i][0];
            v[2 * i + 1] = d->vert[i][1];
        }
        return 2 * d->nvert;
    case RC_SHAPE_POINT: v[0] = d->offset[0]; v[1] = d->offset[1]; return 2;
    case RC_SHAPE_HALFPLANE: v[0] = d->point[0]; v[1] = d->point[1]; v[2] = d->normal[0]; v[3] = d->normal[1]; return 4;
    case RC_SHAPE_SEGMENT: v[0] = d->a[0]; v[1] = d->a[1]; v[2] = d->b[0]; v[3] = d->b[1]; v[4] = d->radius; return 5;
    case RC_SHAPE_CIRCLE_INSIDE: v[0] = d->offset[0]; v[1] = d->offset[1]; v[2] = d->radius; return 3;
    }
    return 0;
}

static rc_status write_geometry(rc_frames_writer *fw, const rc_world *w, int nb, int ns)
{
    rc_world_def wd;
    rc_status s = rc_world_get_def(w, &wd);
    if (s != RC_OK) return s;
    size_t need = 32;
    for (int i = 0; i < nb; i++) {
        const char *name = rc_body_name(w, i);
        need += 32 + (name ? strlen(name) : 0);
    }
    need += (size_t)ns * (12 + 8 * 2 * RC_MAX_POLYGON_VERTICES);
    if (!fr_reserve(fw, need)) return rc_set_error(RC_ERR_NOMEM, "frames: out of memory");
    begin_record(fw, RC_FR_GEOM);
    put_u32(fw, (uint32_t)nb);
    put_u32(fw, (uint32_t)ns);
    put_f64(fw, wd.periodic_x[0]);
    put_f64(fw, wd.periodic_x[1]);
    for (int i = 0; i < nb; i++) {
        const char *name = rc_body_name(w, i);
        double m = 0, J = 0;
        int rigid = rc_body_nq(w, i) == 3 && rc_body_get_mass(w, i, &m, &J) == RC_OK;
        put_u32(fw, rigid ? RC_BODY_RIGID2D : RC_BODY_LINEAR);
        put_text(fw, name ? name : "", name ? strlen(name) : 0);
        put_f64(fw, rigid ? m : 0.0);
        put_f64(fw, rigid ? J : 0.0);
    }
    for (int i = 0; i < ns; i++) {
        rc_shape_def d;
        int body = RC_GROUND;
        double v[2 * RC_MAX_POLYGON_VERTICES];
        int m = 0;
        if (rc_shape_get_def(w, i, &body, &d) == RC_OK) m = shape_values(&d, v);
        else d.type = (rc_shape_type)0;
        put_u32(fw, (uint32_t)(int32_t)body);
        put_u32(fw, (uint32_t)d.type);
        put_u32(fw, (uint32_t)m);
        for (int k = 0; k < m; k++) put_f64(fw, v[k]);
    }
    end_record(fw);
    s = fr_deflate(fw, Z_NO_FLUSH);
    if (s != RC_OK) return s;
    fw->geom_bodies = nb;
    fw->geom_shapes = ns;
    return RC_OK;
}

rc_status rc_frames_write(rc_frames_writer *fw, const rc_world *w)
{
    if (!fw) return rc_set_error(RC_ERR_ARG, "rc_frames_write: the writer is NULL");
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_frames_write: the world is NULL");
    int nb = rc_body_count(w), ns = rc_shape_count(w);
    rc_status s;
    if (nb != fw->geom_bodies || ns != fw->geom_shapes) {
        s = write_geometry(fw, w, nb, ns);
        if (s != RC_OK) return s;
    }
    int ncall = fw->contacts ? rc_contact_count(w) : 0, nc = 0;
    rc_contact_info ci;
    for (int i = 0; i < ncall; i++)
        if (rc_contact_get(w, i, &ci) == RC_OK && ci.active) nc++;
    if (!fr_reserve(fw, 32 + 24 * (size_t)nb + 32 * (size_t)nc))
        return rc_set_error(RC_ERR_NOMEM, "frames: out of memory");
    begin_record(fw, RC_FR_FRAM);
    put_f64(fw, rc_world_time(w));
    put_f64(fw, (double)rc_world_step_count(w));
    put_u32(fw, (uint32_t)nb);
    put_u32(fw, (uint32_t)nc);
    /* the state as six arrays (struct of arrays: compresses better, and
     * the reader takes Float32Array views of them) */
    size_t base = fw->n;
    fw->n += 24 * (size_t)nb;
    for (int i = 0; i < nb; i++) {
        double q[7] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN }, v[7] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN };
        int nq = rc_body_nq(w, i);
        if (nq >= 1 && nq <= 7 && rc_body_nv(w, i) <= 7) rc_body_get_state(w, i, q, v);
        double x[6] = { q[0], q[1], q[2], v[0], v[1], v[2] };
        if (nq < 3) x[2] = x[5] = NAN;
        for (int k = 0; k < 6; k++) {
            float f = (float)x[k];
            uint32_t u;
            memcpy(&u, &f, 4);
            unsigned char *p = fw->buf + base + 4 * ((size_t)k * (size_t)nb + (size_t)i);
            p[0] = (unsigned char)u;
            p[1] = (unsigned char)(u >> 8);
            p[2] = (unsigned char)(u >> 16);
            p[3] = (unsigned char)(u >> 24);
        }
    }
    if (nc > 0) {
        base = fw->n;
        fw->n += 32 * (size_t)nc;
        size_t nn = fw->n;
        int j = 0;
        for (int i = 0; i < ncall && j < nc; i++) {
            if (rc_contact_get(w, i, &ci) != RC_OK || !ci.active) continue;
            const double val[6] = { ci.point[0], ci.point[1], ci.normal[0], ci.normal[1], ci.pN, ci.pT };
            fw->n = base + 4 * (size_t)j;
            put_u32(fw, (uint32_t)(int32_t)ci.body_a);
            fw->n = base + 4 * ((size_t)nc + (size_t)j);
            put_u32(fw, (uint32_t)(int32_t)ci.body_b);
            for (int k = 0; k < 6; k++) {
                fw->n = base + 4 * ((size_t)(2 + k) * (size_t)nc + (size_t)j);
                put_f32(fw, val[k]);
            }
            j++;
        }
        fw->n = nn;
    }
    end_record(fw);
    s = fr_deflate(fw, Z_SYNC_FLUSH);
    if (s != RC_OK) return s;
    fw->frames++;
    return RC_OK;
}

long rc_frames_count(const rc_frames_writer *fw)
{
    return fw ? fw->frames : 0;
}

rc_status rc_frames_close(rc_frames_writer *fw, const char *status, const char *message)
{
    if (!fw) return RC_OK;
    rc_status s = RC_OK;
    if (!status || !*status) status = "complete";
    size_t ls = strlen(status), lm = message ? strlen(message) : 0;
    if (lm > 4000) lm = 4000;
    if (!fw->failed && fr_reserve(fw, 32 + ls + lm)) {
        begin_record(fw, RC_FR_END);
        size_t at = fw->n;
        put_u32(fw, 0);
        memcpy(fw->buf + fw->n, status, ls);
        fw->n += ls;
        if (lm) {
            memcpy(fw->buf + fw->n, ": ", 2);
            memcpy(fw->buf + fw->n + 2, message, lm);
            fw->n += 2 + lm;
        }
        size_t len = fw->n - at - 4;
        while (fw->n % 4) fw->buf[fw->n++] = 0;
        size_t n = fw->n;
        fw->n = at;
        put_u32(fw, (uint32_t)len);
        fw->n = n;
        end_record(fw);
        s = fr_deflate(fw, Z_FINISH);
    } else if (!fw->failed) {
        s = rc_set_error(RC_ERR_NOMEM, "frames: out of memory");
    } else {
        s = rc_set_error(RC_ERR_IO, "frames: '%s': an earlier write failed", fw->path);
    }
    FILE *f = fw->f;
    fw->f = NULL;
    if (fclose(f) != 0 && s == RC_OK) s = fr_io_error(fw, strerror(errno));
    fr_free(fw);
    return s;
}
