/* test_removal_checkpoint.c -- checkpoints across removals (src/io/checkpoint_life.c):
 * a run of 2T in which grains are removed and others added in their slots
 * between steps equals, bit for bit (every step's state and contacts), a run
 * of T, saved, restored into a world built by the same code, and run for T;
 * generations survive; a world with other removals refuses the checkpoint,
 * naming the slot, and is left as it was. */
#include "rc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR "build/removal_checkpoint_test_files"   /* (ctest runs from the source folder) */
#define NG 8
#define T_STEPS 300

static int grain(rc_world *w, double x, double y, const char *name, double r)
{
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1.0 + r;
    bd.inertia = 0.5 * bd.mass * r * r;
    bd.q[0] = x;
    bd.q[1] = y;
    bd.name = name;
    int id = -1;
    if (rc_body_create(w, &bd, &id) != RC_OK) return -1;
    rc_shape_def d = rc_default_shape_def();
    d.radius = r;
    if (rc_shape_create(w, id, &d, NULL) != RC_OK) return -1;
    return id;
}

/* the script: a floor, a wall, NG named grains dropped in a heap, a pendulum
 * on a revolute joint whose bob is a grain too */
static rc_world *build(void)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_shape_def hp = rc_default_shape_def();
    hp.type = RC_SHAPE_HALFPLANE;
    if (rc_shape_create(w, RC_GROUND, &hp, NULL) != RC_OK) return NULL;
    hp.point[0] = -1.6; hp.normal[0] = 1.0; hp.normal[1] = 0.0;
    if (rc_shape_create(w, RC_GROUND, &hp, NULL) != RC_OK) return NULL;
    for (int i = 0; i < NG; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", i);
        if (grain(w, -1.2 + 0.33 * i, 0.4 + 0.7 * (i % 3), name, 0.25 + 0.02 * (i % 4)) < 0) return NULL;
    }
    int bob = grain(w, 3.0, 2.0, "bob", 0.2);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_REVOLUTE;
    jd.body_a = RC_GROUND;
    jd.body_b = bob;
    jd.point_a[0] = 3.0; jd.point_a[1] = 3.0;
    jd.point_b[1] = 1.0;
    if (bob < 0 || rc_joint_create(w, &jd, NULL) != RC_OK) return NULL;
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 2e-3;
    if (rc_world_configure(w, &sd) != RC_OK) return NULL;
    return w;
}

static int destroy_named(rc_world *w, const char *name)
{
    int id;
    return rc_body_find(w, name, &id) == RC_OK && rc_body_destroy(w, id) == RC_OK;
}

/* the callbacks: between steps k and k + 1, grains leave and others come */
static int edit(rc_world *w, int k)
{
    char name[16];
    switch (k) {
    case 60: return destroy_named(w, "g2");
    case 120: return grain(w, 0.0, 3.0, "new1", 0.3) >= 0;   /* g2's slots, generation 1 */
    case 200: return destroy_named(w, "g5") && destroy_named(w, "bob");   /* the joint goes with it */
    case 250: return grain(w, 0.5, 3.2, NULL, 0.22) >= 0;   /* g5's slots */
    case 350: return destroy_named(w, "new1");   /* slot 2: generation 2 */
    case 420: return grain(w, -0.4, 3.0, "new2", 0.28) >= 0;
    case 480:
        snprintf(name, sizeof name, "g%d", 7);
        return destroy_named(w, name);
    default: return 1;
    }
}

/* steps k0..k1-1 with the edits; each step's q, v and contacts appended to *tr */
static int run(rc_world *w, int k0, int k1, double **tr, size_t *n, size_t *cap)
{
    for (int k = k0; k < k1; k++) {
        if (!edit(w, k) || rc_world_step(w) != RC_OK) return 0;
        const int nb = rc_body_count(w);
        const int nc = rc_contact_count(w);
        const size_t need = *n + (size_t)nb * 6 + (size_t)nc * 6 + 2;
        if (need > *cap) {
            *cap = 2 * need;
            *tr = realloc(*tr, *cap * sizeof **tr);
            if (!*tr) return 0;
        }
        double *t = *tr + *n;
        size_t m = 0;
        t[m++] = rc_world_time(w);
        t[m++] = nc;
        for (int b = 0; b < nb; b++) {
            if (rc_body_is_removed(w, b)) { for (int i = 0; i < 6; i++) t[m++] = -1.0; continue; }
            if (rc_body_get_state(w, b, t + m, t + m + 3) != RC_OK) return 0;
            m += 6;
        }
        for (int i = 0; i < nc; i++) {
            rc_contact_info ci;
            if (rc_contact_get(w, i, &ci) != RC_OK) return 0;
            t[m++] = ci.id; t[m++] = ci.body_a; t[m++] = ci.body_b;
            t[m++] = ci.gN; t[m++] = ci.pN; t[m++] = ci.pT;
        }
        *n += m;
    }
    return 1;
}

RC_TEST(a_run_across_removals_restarts_bit_for_bit)
{
    (void)system("mkdir -p " DIR);
    const char *path = DIR "/removal.rcc";
    /* A: one run of 2T */
    rc_world *a = build();
    CHECK(a != NULL);
    if (!a) return;
    double *ta = NULL, *tc = NULL;
    size_t na = 0, ca = 0, nc = 0, cc = 0, na_half = 0;
    CHECK(run(a, 0, T_STEPS, &ta, &na, &ca));
    na_half = na;
    CHECK(run(a, T_STEPS, 2 * T_STEPS, &ta, &na, &ca));
    /* B: a run of T, saved */
    rc_world *b = build();
    double *tb = NULL;
    size_t nb = 0, cb = 0;
    CHECK(run(b, 0, T_STEPS, &tb, &nb, &cb));
    CHECK(nb == na_half && memcmp(ta, tb, nb * sizeof *ta) == 0);
    CHECK(rc_body_generation(b, 2) == 1 && rc_body_generation(b, 5) == 1 && rc_joint_is_removed(b, 0));
    CHECK_OK(rc_sim_save(b, path));
    /* C: built by the same code, restored, run for T */
    rc_world *c = build();
    CHECK_OK(rc_sim_restore(c, path));
    CHECK(rc_world_time(c) == rc_world_time(b));
    CHECK(rc_body_is_removed(c, 8) && rc_joint_is_removed(c, 0) && !rc_body_is_removed(c, 2));
    CHECK(rc_body_generation(c, 2) == 1 && rc_body_generation(c, 5) == 1 && rc_body_generation(c, 8) == 1);
    int id = -1;
    CHECK_OK(rc_body_find(c, "new1", &id));
    CHECK(id == 2);
    CHECK(rc_body_find(c, "g2", NULL) == RC_ERR_NOT_FOUND);
    double t_rm;
    const char *nm = NULL;
    CHECK_OK(rc_body_removal(c, 8, &t_rm, &nm));
    CHECK(nm && strcmp(nm, "bob") == 0 && t_rm == 200 * 2e-3);
    CHECK(rc_world_removed_energy(c) == rc_world_removed_energy(b));
    CHECK(run(c, T_STEPS, 2 * T_STEPS, &tc, &nc, &cc));
    CHECK(nc == na - na_half);
    CHECK(nc == na - na_half && memcmp(ta + na_half, tc, nc * sizeof *tc) == 0);
    CHECK(rc_body_generation(c, 2) == 2 && rc_body_generation(a, 2) == 2);
    CHECK(rc_world_removed_energy(c) == rc_world_removed_energy(a));
    /* the removed energy closes the books in both */
    free(ta); free(tb); free(tc);
    rc_world_destroy(a); rc_world_destroy(b); rc_world_destroy(c);
}

RC_TEST(a_world_with_other_removals_refuses_the_checkpoint)
{
    const char *path = DIR "/removal.rcc";   /* written by the test above */
    rc_world *d = build();
    CHECK(d != NULL);
    if (!d) return;
    CHECK(destroy_named(d, "g6"));   /* removed here, not in the checkpoint */
    CHECK(rc_sim_restore(d, path) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "checkpoint '" DIR "/removal.rcc': the removals differ: body 'g6' (slot 6) was removed "
                 "in this world at t = 0 (generation 1), not in the checkpoint (generation 0, live)") == 0);
    CHECK(rc_world_time(d) == 0.0 && !rc_body_is_removed(d, 2) && !rc_body_is_removed(d, 8));   /* as it was */
    rc_world_destroy(d);
    /* a world whose script removed a body the checkpoint's kept: the same message, another slot */
    rc_world *e = build();
    CHECK(destroy_named(e, "g2") && grain(e, 0, 3, "other", 0.3) == 2 && destroy_named(e, "other"));
    CHECK(rc_sim_restore(e, path) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "checkpoint '" DIR "/removal.rcc': the removals differ: body 'other' (slot 2) was "
                 "removed in this world at t = 0 (generation 2), not in the checkpoint (generation 1, live)") == 0);
    rc_world_destroy(e);
}

RC_TEST_MAIN(T(a_run_across_removals_restarts_bit_for_bit),
             T(a_world_with_other_removals_refuses_the_checkpoint))
