/* test_checkpoint.c -- rc_sim_save / rc_sim_restore (docs/checkpoint.md):
 * a run of 2N steps equals N steps, saved, restored into a new world built
 * the same way and N more steps, bit for bit (the rocking block of Acary &
 * Collins-Craft 2024 under Moreau--Jean--Fremond, with its impacts and
 * friction); a restored world saves the same bytes; every refusal with its
 * exact message, leaving the world unchanged; a restored run's steps
 * allocate nothing once its arrays have grown. */
#include "rc_test.h"
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#define DIR "build/checkpoint_test_files"

typedef struct { double mass, h; int extra_body; } model_opts;

static rc_status build(rc_world **out, model_opts mo)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w;
    RC_CHECK_API(rc_world_create(&wd, &w));
    *out = w;
    rc_body_def bd = rc_default_body_def();
    bd.name = "block";
    bd.mass = mo.mass;
    bd.inertia = mo.mass / 6.0;
    bd.q[1] = 0.6;
    bd.v[1] = -0.2;
    bd.v[2] = 1.0;
    int block;
    RC_CHECK_API(rc_body_create(w, &bd, &block));
    rc_shape_def box = rc_default_shape_def();
    box.type = RC_SHAPE_POLYGON;
    box.nvert = 4;
    const double v[4][2] = { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } };
    memcpy(box.vert, v, sizeof v);
    RC_CHECK_API(rc_shape_create(w, block, &box, NULL));
    rc_shape_def floor = rc_default_shape_def();
    floor.type = RC_SHAPE_HALFPLANE;
    RC_CHECK_API(rc_shape_create(w, RC_GROUND, &floor, NULL));
    if (mo.extra_body) {
        rc_body_def b2 = rc_default_body_def();
        b2.mass = 1.0;
        b2.inertia = 1.0;
        b2.q[0] = 5.0;
        b2.q[1] = 0.5;
        int id;
        RC_CHECK_API(rc_body_create(w, &b2, &id));
        rc_shape_def disk = rc_default_shape_def();
        disk.type = RC_SHAPE_DISK;
        disk.radius = 0.25;
        RC_CHECK_API(rc_shape_create(w, id, &disk, NULL));
    }
    rc_law_def law = rc_default_law_def();
    law.e = 1.0;
    law.mu = 0.1;
    int lid;
    RC_CHECK_API(rc_law_create(w, &law, &lid));
    rc_contact_rule_def rule = rc_default_contact_rule_def();
    rule.a = RC_GROUND;
    rule.b = block;
    rule.law = lid;
    rule.name = "C";
    RC_CHECK_API(rc_contact_rule(w, &rule));
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_MOREAU_JEAN_FREMOND;
    sd.theta = 0.5;
    sd.h = mo.h;
    sd.solver.tol = 1e-10;
    RC_CHECK_API(rc_world_configure(w, &sd));
    return RC_OK;
}

static const model_opts BLOCK = { 1.0, 1e-4, 0 };

static rc_status steps(rc_world *w, long n)
{
    for (long i = 0; i < n; i++) RC_CHECK_API(rc_world_step(w));
    return RC_OK;
}

/* Everything a user can read of the state, bit for bit. */
static int same_state(const rc_world *a, const rc_world *b)
{
    int ok = 1;
    double qa[3], va[3], qb[3], vb[3];
    for (int i = 0; i < rc_body_count(a); i++) {
        rc_body_get_state(a, i, qa, va);
        rc_body_get_state(b, i, qb, vb);
        ok &= memcmp(qa, qb, sizeof qa) == 0 && memcmp(va, vb, sizeof va) == 0;
    }
    ok &= rc_world_time(a) == rc_world_time(b) && rc_world_step_count(a) == rc_world_step_count(b);
    rc_step_info ia, ib;
    rc_world_step_info(a, &ia);
    rc_world_step_info(b, &ib);
    const double da[] = { ia.t, ia.residual, ia.E, ia.E_kin, ia.E_pot, ia.W_ext, ia.W_N, ia.W_T, ia.W_theta,
                          ia.balance, ia.W_ext_total, ia.W_N_total, ia.W_T_total, ia.W_theta_total,
                          ia.max_contact_work, ia.persist_band };
    const double db[] = { ib.t, ib.residual, ib.E, ib.E_kin, ib.E_pot, ib.W_ext, ib.W_N, ib.W_T, ib.W_theta,
                          ib.balance, ib.W_ext_total, ib.W_N_total, ib.W_T_total, ib.W_theta_total,
                          ib.max_contact_work, ib.persist_band };
    ok &= memcmp(da, db, sizeof da) == 0;
    ok &= ia.iterations == ib.iterations && ia.ncontacts == ib.ncontacts && ia.nactive == ib.nactive
          && ia.worst_contact == ib.worst_contact;
    rc_run_stats sa, sb;
    rc_world_run_stats(a, &sa);
    rc_world_run_stats(b, &sb);
    ok &= sa.steps == sb.steps && sa.max_iterations == sb.max_iterations && sa.max_residual == sb.max_residual
          && sa.max_abs_balance == sb.max_abs_balance && sa.max_energy_increase == sb.max_energy_increase
          && sa.t_max_energy_increase == sb.t_max_energy_increase && sa.max_contact_work == sb.max_contact_work
          && sa.positive_work_events == sb.positive_work_events && sa.local_solves == sb.local_solves;
    ok &= rc_contact_count(a) == rc_contact_count(b);
    for (int i = 0; ok && i < rc_contact_count(a); i++) {
        rc_contact_info ca, cb;
        rc_contact_get(a, i, &ca);
        rc_contact_get(b, i, &cb);
        ok &= ca.id == cb.id && ca.active == cb.active && ca.feature == cb.feature
              && memcmp(ca.point, cb.point, sizeof ca.point) == 0 && ca.gN == cb.gN && ca.uN == cb.uN
              && ca.uT == cb.uT && ca.pN == cb.pN && ca.pT == cb.pT && ca.WN == cb.WN && ca.WT == cb.WT;
    }
    return ok;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    *n = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)len + 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

static void spit(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
}

static void mkdirs(void)
{
    int r = system("mkdir -p " DIR);
    (void)r;
}

/* 2N steps = N, save, restore into a new world, N: the rocking block's
 * first impacts (N = 3000: t = 0.3, the block has hit the floor and rocks). */
RC_TEST(test_restart_is_bit_for_bit)
{
    mkdirs();
    const long N = 3000;
    rc_world *ref, *first, *second;
    CHECK_OK(build(&ref, BLOCK));
    CHECK_OK(build(&first, BLOCK));
    CHECK_OK(build(&second, BLOCK));
    CHECK_OK(steps(ref, 2 * N));
    CHECK_OK(steps(first, N));
    CHECK(rc_contact_count(first) > 0);   /* the checkpoint carries contacts and their impulses */
    CHECK_OK(rc_sim_save(first, DIR "/block.rcc"));
    CHECK_OK(rc_sim_restore(second, DIR "/block.rcc"));
    CHECK(same_state(first, second));
    CHECK_OK(rc_sim_save(second, DIR "/again.rcc"));   /* the same state, the same bytes */
    size_t n1 = 0, n2 = 0;
    unsigned char *a = slurp(DIR "/block.rcc", &n1), *b = slurp(DIR "/again.rcc", &n2);
    CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0);
    printf("  rocking block checkpoint: %zu bytes\n", n1);
    free(a);
    free(b);
    CHECK_OK(steps(second, N));
    CHECK(same_state(ref, second));
    CHECK_NEAR(rc_world_time(second), 0.6, 0.0);   /* t = t0 + k h: 6000 * 1e-4 exactly as the reference */
    rc_world_destroy(ref);
    rc_world_destroy(first);
    rc_world_destroy(second);
}

/* Once its arrays have grown, a restored world's steps allocate nothing. */
RC_TEST(test_restored_steps_allocate_nothing)
{
    mkdirs();
    rc_world *a, *b;
    CHECK_OK(build(&a, BLOCK));
    CHECK_OK(build(&b, BLOCK));
    CHECK_OK(steps(a, 2500));
    CHECK_OK(rc_sim_save(a, DIR "/alloc.rcc"));
    CHECK_OK(rc_sim_restore(b, DIR "/alloc.rcc"));
    CHECK_OK(steps(b, 10));
    uint64_t n0 = rc_alloc_count();
    CHECK_OK(steps(b, 1000));
    CHECK(rc_alloc_count() == n0);
    rc_world_destroy(a);
    rc_world_destroy(b);
}

static void check_msg(int *failed, rc_status got, rc_status want, const char *msg)
{
    if (got != want || strcmp(rc_last_error(), msg) != 0) {
        fprintf(stderr, "  got %s '%s'\n  want %s '%s'\n", rc_status_name(got), rc_last_error(),
                rc_status_name(want), msg);
        (*failed)++;
    }
}

static void put_u32le(unsigned char *p, uint32_t x) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(x >> (8 * i)); }

/* Each refusal says which, and leaves the world as it was: it then steps
 * exactly as a world that never saw the file. */
RC_TEST(test_refusals)
{
    mkdirs();
    rc_world *src, *w, *ref;
    CHECK_OK(build(&src, BLOCK));
    CHECK_OK(steps(src, 1000));
    CHECK_OK(rc_sim_save(src, DIR "/good.rcc"));
    CHECK_OK(build(&w, BLOCK));
    CHECK_OK(build(&ref, BLOCK));
    CHECK_OK(steps(w, 10));
    CHECK_OK(steps(ref, 10));
    size_t n = 0;
    unsigned char *good = slurp(DIR "/good.rcc", &n);
    CHECK(good && n > 200);
    if (!good) return;
    unsigned char *bad = malloc(n);

    spit(DIR "/text.rcc", (const unsigned char *)"t,E\n0,1\n", 8);
    check_msg(failed, rc_sim_restore(w, DIR "/text.rcc"), RC_ERR_ARG,
              "'" DIR "/text.rcc' is not a checkpoint (no ricochet checkpoint header)");
    spit(DIR "/empty.rcc", good, 0);
    check_msg(failed, rc_sim_restore(w, DIR "/empty.rcc"), RC_ERR_ARG,
              "checkpoint '" DIR "/empty.rcc' is empty: not a checkpoint");
    check_msg(failed, rc_sim_restore(w, DIR "/missing.rcc"), RC_ERR_IO,
              "checkpoint '" DIR "/missing.rcc': cannot open: No such file or directory");

    spit(DIR "/short_header.rcc", good, 20);
    check_msg(failed, rc_sim_restore(w, DIR "/short_header.rcc"), RC_ERR_ARG,
              "checkpoint '" DIR "/short_header.rcc' is truncated: 20 bytes");
    spit(DIR "/short.rcc", good, n - 10);
    char want[512];
    snprintf(want, sizeof want, "checkpoint '" DIR "/short.rcc' is truncated: %zu bytes, its header announces %zu", n - 10, n);
    check_msg(failed, rc_sim_restore(w, DIR "/short.rcc"), RC_ERR_ARG, want);

    memcpy(bad, good, n);
    put_u32le(bad + 8, RC_CHECKPOINT_FORMAT + 1);   /* the format version */
    spit(DIR "/vnext.rcc", bad, n);
    char want_v[512];
    snprintf(want_v, sizeof want_v, "checkpoint '" DIR "/vnext.rcc' has format version %d (written by ricochet " RC_VERSION
             "); this library (ricochet " RC_VERSION ") reads format version %d", RC_CHECKPOINT_FORMAT + 1, RC_CHECKPOINT_FORMAT);
    check_msg(failed, rc_sim_restore(w, DIR "/vnext.rcc"), RC_ERR_ARG, want_v);

    memcpy(bad, good, n);
    bad[n - 40] ^= 0x10;   /* a bit of the compressed state */
    spit(DIR "/flipped.rcc", bad, n);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), bad, (uInt)(n - 4));
    uint32_t stored = (uint32_t)good[n - 4] | (uint32_t)good[n - 3] << 8 | (uint32_t)good[n - 2] << 16 | (uint32_t)good[n - 1] << 24;
    snprintf(want, sizeof want, "checkpoint '" DIR "/flipped.rcc' is corrupted: checksum mismatch (CRC-32 %08x, the file says %08x)",
             (unsigned)crc, (unsigned)stored);
    check_msg(failed, rc_sim_restore(w, DIR "/flipped.rcc"), RC_ERR_ARG, want);

    CHECK_OK(steps(w, 10));   /* untouched by all of the above */
    CHECK_OK(steps(ref, 10));
    CHECK(same_state(w, ref));

    /* other models */
    rc_world *heavy, *fine, *more;
    model_opts mo = BLOCK;
    mo.mass = 2.0;
    CHECK_OK(build(&heavy, mo));
    check_msg(failed, rc_sim_restore(heavy, DIR "/good.rcc"), RC_ERR_ARG,
              "checkpoint '" DIR "/good.rcc': the model differs from the one that wrote the checkpoint (bodies differ)");
    CHECK(rc_world_step_count(heavy) == 0);
    mo = BLOCK;
    mo.h = 2e-4;
    CHECK_OK(build(&fine, mo));
    check_msg(failed, rc_sim_restore(fine, DIR "/good.rcc"), RC_ERR_ARG,
              "checkpoint '" DIR "/good.rcc': the model differs from the one that wrote the checkpoint (simulation settings "
              "(scheme 2, theta = 0.5, h = 0.0001 in the checkpoint; scheme 2, theta = 0.5, h = 0.00020000000000000001 here) differ)");
    mo = BLOCK;
    mo.extra_body = 1;
    CHECK_OK(build(&more, mo));
    check_msg(failed, rc_sim_restore(more, DIR "/good.rcc"), RC_ERR_ARG,
              "checkpoint '" DIR "/good.rcc': the model differs from the one that wrote the checkpoint (bodies (1 in the "
              "checkpoint, 2 here), shapes (2 in the checkpoint, 3 here) differ)");
    CHECK(rc_world_step_count(more) == 0 && rc_world_time(more) == 0.0);

    /* not configured; an output open */
    rc_world *bare;
    CHECK_OK(rc_world_create(NULL, &bare));
    check_msg(failed, rc_sim_restore(bare, DIR "/good.rcc"), RC_ERR_STATE,
              "rc_sim_restore: the world has no simulation settings yet: configure it as the run that wrote the "
              "checkpoint did (rc_world_configure), then restore");
    check_msg(failed, rc_sim_save(bare, DIR "/bare.rcc"), RC_ERR_STATE,
              "rc_sim_save: the world has no simulation settings yet (rc_world_configure)");
    rc_output_def od = rc_default_output_def();
    od.dir = DIR "/out";
    CHECK_OK(rc_output_open(ref, &od));
    check_msg(failed, rc_sim_restore(ref, DIR "/good.rcc"), RC_ERR_STATE,
              "rc_sim_restore: an output is open (its history would jump in time): restore first, then open the output");
    CHECK_OK(rc_output_close(ref, "complete", NULL));

    free(good);
    free(bad);
    rc_world_destroy(src);
    rc_world_destroy(w);
    rc_world_destroy(ref);
    rc_world_destroy(heavy);
    rc_world_destroy(fine);
    rc_world_destroy(more);
    rc_world_destroy(bare);
}

/* The write is atomic: path.tmp, then a rename; no .tmp is left behind. */
RC_TEST(test_save_is_atomic)
{
    mkdirs();
    rc_world *w;
    CHECK_OK(build(&w, BLOCK));
    CHECK_OK(steps(w, 5));
    CHECK_OK(rc_sim_save(w, DIR "/atomic.rcc"));
    FILE *f = fopen(DIR "/atomic.rcc.tmp", "rb");
    CHECK(f == NULL);
    if (f) fclose(f);
    check_msg(failed, rc_sim_save(w, DIR "/no/such/folder/x.rcc"), RC_ERR_IO,
              "checkpoint '" DIR "/no/such/folder/x.rcc': cannot write '" DIR "/no/such/folder/x.rcc.tmp': No such file or directory");
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(test_restart_is_bit_for_bit), T(test_restored_steps_allocate_nothing), T(test_refusals),
             T(test_save_is_atomic))
