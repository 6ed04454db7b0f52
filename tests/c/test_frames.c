/* test_frames.c -- the frame file (src/frames.c, ricochet_frames.h): header,
 * records read back by inflating the file here, the box's state and weight,
 * the end record, a second geometry record after a body is added, no
 * allocation per frame once grown, argument errors. */
#define _POSIX_C_SOURCE 200809L
#include "rc_test.h"
#include "ricochet_frames.h"

#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

#define H 1e-3

static rc_world *make_world(int *failed, int *box)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.name = "box";
    bd.mass = 2.0;
    bd.inertia = 2.0 / 6.0;
    bd.q[1] = 0.5;   /* resting on the ground */
    CHECK_OK(rc_body_create(w, &bd, box));
    rc_shape_def sd = rc_default_shape_def();
    sd.type = RC_SHAPE_POLYGON;
    sd.nvert = 4;
    const double v[4][2] = { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } };
    memcpy(sd.vert, v, sizeof v);
    CHECK_OK(rc_shape_create(w, *box, &sd, NULL));
    rc_shape_def gd = rc_default_shape_def();
    gd.type = RC_SHAPE_HALFPLANE;
    gd.normal[1] = 1.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &gd, NULL));
    rc_sim_def sim = rc_default_sim_def();
    sim.h = H;
    sim.solver.tol = 1e-12;
    CHECK_OK(rc_world_configure(w, &sim));
    return w;
}

/* the whole file: header checked, the stream inflated into *raw */
static size_t read_frames(const char *path, unsigned char **raw, int *stream_end, int *failed)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return 0;
    unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(n > 16 && n < sizeof buf);
    CHECK(memcmp(buf, "RCFRAMES", 8) == 0);
    CHECK(buf[8] == RC_FRAMES_VERSION && buf[9] == 0 && buf[12] == 0);
    size_t cap = 1 << 20;
    *raw = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    inflateInit(&z);
    z.next_in = buf + 16;
    z.avail_in = (uInt)(n - 16);
    z.next_out = *raw;
    z.avail_out = (uInt)cap;
    int zs = inflate(&z, Z_FINISH);
    *stream_end = zs == Z_STREAM_END;
    size_t out = cap - z.avail_out;
    inflateEnd(&z);
    return out;
}

static uint32_t u32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static float f32(const unsigned char *p) { uint32_t u = u32(p); float x; memcpy(&x, &u, 4); return x; }
static double f64(const unsigned char *p) { uint64_t u = u32(p) | (uint64_t)u32(p + 4) << 32; double x; memcpy(&x, &u, 8); return x; }

RC_TEST(frames_round_trip)
{
    int box = -1;
    rc_world *w = make_world(failed, &box);
    if (!w) return;
    char path[] = "/tmp/rc_test_framesXXXXXX";
    CHECK(mkdtemp(path) != NULL);
    char file[128];
    snprintf(file, sizeof file, "%s/sub/frames.rcf", path);   /* folders created */
    rc_frames_def fd = rc_default_frames_def();
    fd.path = file;
    rc_frames_writer *fw = NULL;
    CHECK_OK(rc_frames_open(&fd, &fw));
    CHECK_OK(rc_frames_write(fw, w));
    for (int k = 1; k <= 20; k++) {
        CHECK_OK(rc_world_step(w));
        if (k % 10 == 0) CHECK_OK(rc_frames_write(fw, w));
    }
    /* after its buffers have grown, a frame allocates nothing */
    uint64_t a0 = rc_alloc_count();
    CHECK_OK(rc_frames_write(fw, w));
    CHECK(rc_alloc_count() == a0);
    /* a body added: the geometry is written again before the next frame */
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1.0;
    bd.inertia = 0.1;
    bd.q[0] = 3.0;
    bd.q[1] = 2.0;
    int disk = -1;
    CHECK_OK(rc_body_create(w, &bd, &disk));
    rc_shape_def sd = rc_default_shape_def();
    sd.type = RC_SHAPE_DISK;
    sd.radius = 0.25;
    CHECK_OK(rc_shape_create(w, disk, &sd, NULL));
    CHECK_OK(rc_frames_write(fw, w));
    CHECK(rc_frames_count(fw) == 5);
    CHECK_OK(rc_frames_close(fw, "stopped", "by the test"));

    unsigned char *raw = NULL;
    int end = 0;
    size_t n = read_frames(file, &raw, &end, failed);
    CHECK(end);
    int geom = 0, frames = 0;
    const char *end_text = NULL;
    size_t end_len = 0;
    for (size_t at = 0; raw && at + 8 <= n;) {
        uint32_t tag = u32(raw + at), len = u32(raw + at + 4);
        const unsigned char *p = raw + at + 8;
        CHECK(len % 4 == 0 && at + 8 + len <= n);
        if (memcmp(raw + at, "GEOM", 4) == 0) {
            geom++;
            CHECK(u32(p) == (uint32_t)(geom == 1 ? 1 : 2));    /* bodies */
            CHECK(u32(p + 4) == (uint32_t)(geom == 1 ? 2 : 3)); /* shapes */
            CHECK(u32(p + 24) == RC_BODY_RIGID2D);
            CHECK(u32(p + 28) == 3 && memcmp(p + 32, "box", 3) == 0 && p[35] == 0);
            CHECK(f64(p + 36) == 2.0 && f64(p + 44) == 2.0 / 6.0);
        } else if (memcmp(raw + at, "FRAM", 4) == 0) {
            uint32_t nb = u32(p + 16), nc = u32(p + 20);
            const unsigned char *q = p + 24;
            double t = f64(p), step = f64(p + 8);
            CHECK(nb == (uint32_t)(frames < 4 ? 1 : 2));
            CHECK_NEAR(t, frames == 0 ? 0.0 : (frames == 1 ? 10 * H : 20 * H), 1e-15);
            CHECK(step == (frames == 0 ? 0 : frames == 1 ? 10 : 20));
            CHECK_NEAR(f32(q), 0.0, 1e-6);                      /* x */
            CHECK_NEAR(f32(q + 4 * nb), 0.5, 1e-5);             /* y: at rest */
            if (frames > 0) {
                /* at rest: the active contacts carry the weight m g h = 0.02 per step */
                CHECK(nc >= 2);
                double sum = 0;
                for (uint32_t j = 0; j < nc; j++) {
                    const unsigned char *c = q + 24 * nb;
                    CHECK((int32_t)u32(c + 4 * j) == RC_GROUND && u32(c + 4 * (nc + j)) == (uint32_t)box);
                    CHECK_NEAR(f32(c + 4 * (4 * nc + j)), 0.0, 1e-6);   /* nx */
                    CHECK_NEAR(f32(c + 4 * (5 * nc + j)), 1.0, 1e-6);   /* ny */
                    sum += f32(c + 4 * (6 * nc + j));                   /* pN */
                }
                CHECK_NEAR(sum, 2.0 * 10.0 * H, 1e-7);
            }
            if (nb == 2) CHECK_NEAR(f32(q + 4), 3.0, 1e-6);   /* the new body's x */
            frames++;
        } else if (tag == u32((const unsigned char *)"END ")) {
            end_len = u32(p);
            end_text = (const char *)p + 4;
        }
        at += 8 + len;
    }
    CHECK(geom == 2);
    CHECK(frames == 5);
    CHECK(end_text && end_len == strlen("stopped: by the test") && memcmp(end_text, "stopped: by the test", end_len) == 0);
    free(raw);
    rc_world_destroy(w);
    unlink(file);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", path);
    rmdir(sub);
    rmdir(path);
}

RC_TEST(frames_errors)
{
    rc_frames_def fd = rc_default_frames_def();
    rc_frames_writer *fw = (rc_frames_writer *)1;
    CHECK(rc_frames_open(&fd, &fw) == RC_ERR_ARG && fw == NULL);
    CHECK(strcmp(rc_last_error(), "rc_frames_open: 'path' is missing") == 0);
    fd.path = "/tmp/x.rcf";
    fd.level = 10;
    CHECK(rc_frames_open(&fd, &fw) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "rc_frames_open: 'level' must be in 0..9 (got 10)") == 0);
    fd.level = 6;
    fd.path = "/proc/no/such/frames.rcf";
    CHECK(rc_frames_open(&fd, &fw) == RC_ERR_IO);
    CHECK(strstr(rc_last_error(), "frames: cannot create the folder '/proc/no'") == rc_last_error());
    CHECK(rc_frames_write(NULL, NULL) == RC_ERR_ARG);
    CHECK(rc_frames_close(NULL, "complete", NULL) == RC_OK);
    CHECK(rc_frames_count(NULL) == 0);
}

RC_TEST_MAIN(T(frames_round_trip), T(frames_errors))
