/* test_removal.c -- removing bodies, shapes, joints and springs between steps
 * (src/model/remove.c): a pile's grain removed lets the grains above fall,
 * stale ids are refused, a joint removed frees a pendulum, adding and
 * removing grains allocates nothing after warm-up and is deterministic, and
 * the energy books close with E_removed. */
#include "rc_test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static rc_world *new_world(void)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_shape_def floor = rc_default_shape_def();
    floor.type = RC_SHAPE_HALFPLANE;
    if (rc_shape_create(w, RC_GROUND, &floor, NULL) != RC_OK) return NULL;
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    if (rc_world_configure(w, &sd) != RC_OK) return NULL;
    return w;
}

static int grain(rc_world *w, double x, double y, const char *name)
{
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1.0;
    bd.inertia = 0.125;
    bd.q[0] = x;
    bd.q[1] = y;
    bd.name = name;
    int id = -1;
    if (rc_body_create(w, &bd, &id) != RC_OK) return -1;
    rc_shape_def d = rc_default_shape_def();
    d.radius = 0.5;
    if (rc_shape_create(w, id, &d, NULL) != RC_OK) return -1;
    return id;
}

/* a column of three resting disks; removing the middle one lets the top one
 * fall onto the bottom one; the removed one is in no contact */
RC_TEST(removing_a_grain_lets_the_grains_above_fall)
{
    rc_world *w = new_world();
    CHECK(w != NULL);
    if (!w) return;
    int a = grain(w, 0, 0.5, "bottom"), b = grain(w, 0, 1.5, "middle"), c = grain(w, 0, 2.5, "top");
    for (int i = 0; i < 200; i++) CHECK_OK(rc_world_step(w));
    double q[3], v[3];
    CHECK_OK(rc_body_get_state(w, c, q, NULL));
    CHECK_NEAR(q[1], 2.5, 1e-6);   /* at rest on the middle one */
    CHECK_OK(rc_body_destroy(w, b));
    CHECK(rc_body_is_removed(w, b));
    for (int i = 0; i < rc_contact_count(w); i++) {   /* its contacts are gone at once */
        rc_contact_info ci;
        CHECK_OK(rc_contact_get(w, i, &ci));
        CHECK(ci.body_a != b && ci.body_b != b);
    }
    /* free fall over 1 m (top at 2.5 onto the bottom one's top at 1.0 + 0.5) takes sqrt(2/g) = 0.4515 s */
    for (int i = 0; i < 300; i++) {
        CHECK_OK(rc_world_step(w));
        for (int k = 0; k < rc_contact_count(w); k++) {
            rc_contact_info ci;
            CHECK_OK(rc_contact_get(w, k, &ci));
            CHECK(ci.body_a != b && ci.body_b != b);
        }
    }
    CHECK_OK(rc_body_get_state(w, c, q, v));
    CHECK_NEAR(q[1], 2.5 - 0.5 * 9.81 * 0.3 * 0.3, 1e-2);   /* still falling at t = 0.3 s after */
    for (int i = 0; i < 700; i++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_body_get_state(w, c, q, v));
    CHECK_NEAR(q[1], 1.5, 5e-3);   /* resting on the bottom one (within h |v| of the impact: 4.4 mm) */
    CHECK(fabs(v[1]) < 1e-6);
    CHECK_OK(rc_body_get_state(w, a, q, NULL));
    CHECK_NEAR(q[1], 0.5, 1e-3);
    rc_world_destroy(w);
}

RC_TEST(stale_ids_are_refused_and_slots_reused_with_a_new_generation)
{
    rc_world *w = new_world();
    CHECK(w != NULL);
    if (!w) return;
    int g0 = grain(w, 0, 0.5, NULL), g17 = grain(w, 3, 0.5, "grain 17");
    CHECK(g0 == 0 && g17 == 1);
    for (int i = 0; i < 250; i++) CHECK_OK(rc_world_step(w));
    rc_ref ref = rc_body_ref(w, g17);
    CHECK(ref.index == 1 && ref.generation == 0 && rc_body_ref_valid(w, ref));
    CHECK_OK(rc_body_destroy(w, g17));
    double q[3];
    CHECK(rc_body_get_state(w, g17, q, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strcmp(rc_last_error(), "rc_body_get_state: body 'grain 17' (id 1) was removed at t = 0.25") == 0);
    CHECK(rc_body_destroy(w, g17) == RC_ERR_NOT_FOUND);
    CHECK(strcmp(rc_last_error(), "rc_body_destroy: body 'grain 17' (id 1) was removed at t = 0.25") == 0);
    CHECK(!rc_body_ref_valid(w, ref));
    CHECK(rc_body_ref_get(w, ref, NULL) == RC_ERR_NOT_FOUND);
    CHECK(rc_body_find(w, "grain 17", NULL) == RC_ERR_NOT_FOUND);
    rc_shape_def d = rc_default_shape_def();
    CHECK(rc_shape_create(w, g17, &d, NULL) == RC_ERR_NOT_FOUND);   /* no shape on a removed body */
    /* the next body takes the free slot, one generation later */
    int n = grain(w, 6, 0.5, "grain 18");
    CHECK(n == 1);
    CHECK(rc_body_generation(w, n) == 1);
    CHECK(!rc_body_ref_valid(w, ref));   /* the old ref does not designate the new body */
    CHECK(rc_body_ref_get(w, ref, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strstr(rc_last_error(), "generation 0 was removed (the slot holds generation 1)") != NULL);
    rc_ref r2 = rc_body_ref(w, n);
    int id = -1;
    CHECK_OK(rc_body_ref_get(w, r2, &id));
    CHECK(id == 1 && r2.generation == 1);
    CHECK(rc_body_count(w) == 2 && rc_shape_count(w) == 3);   /* slots, not grown */
    CHECK_OK(rc_body_get_state(w, n, q, NULL));
    CHECK(q[0] == 6.0);
    for (int i = 0; i < 10; i++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_body_get_state(w, g0, q, NULL));
    CHECK_NEAR(q[1], 0.5, 1e-6);
    rc_world_destroy(w);
}

/* a pendulum on a revolute joint; the joint removed, the bob falls freely:
 * v_y(t) = v_y0 - g t exactly (no contact, no joint) */
RC_TEST(removing_a_joint_frees_the_pendulum)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return;
    rc_body_def bd = rc_default_body_def();
    bd.q[0] = 1.0;
    int bob = -1, j = -1;
    CHECK_OK(rc_body_create(w, &bd, &bob));
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_REVOLUTE;
    jd.body_a = RC_GROUND;
    jd.body_b = bob;
    jd.point_b[0] = -1.0;
    CHECK_OK(rc_joint_create(w, &jd, &j));
    rc_sim_def sd = rc_default_sim_def();
    CHECK_OK(rc_world_configure(w, &sd));
    for (int i = 0; i < 200; i++) CHECK_OK(rc_world_step(w));
    double q[3], v0[3], v[3];
    CHECK_OK(rc_body_get_state(w, bob, q, v0));
    CHECK(hypot(q[0], q[1]) < 1.0 + 1e-6);   /* held by the joint */
    CHECK_OK(rc_joint_destroy(w, j));
    CHECK(rc_joint_is_removed(w, j));
    CHECK(rc_joint_destroy(w, j) == RC_ERR_NOT_FOUND);
    for (int i = 0; i < 300; i++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_body_get_state(w, bob, q, v));
    CHECK_NEAR(v[0], v0[0], 1e-12);
    CHECK_NEAR(v[1], v0[1] - 9.81 * 0.3, 1e-9);
    CHECK(hypot(q[0], q[1]) > 1.2);   /* gone beyond the joint's reach */
    rc_world_destroy(w);
}

/* a hopper: a grain added every 5 steps at the top, the lowest removed when
 * there are 40; history of sums of q as a fingerprint */
static double churn(int steps, int *grains_added, uint64_t *allocs_after_warmup)
{
    rc_world *w = new_world();
    if (!w) return NAN;
    int live[64], nlive = 0, added = 0;
    double sum = 0.0;
    uint64_t a0 = 0;
    for (int k = 0; k < steps; k++) {
        if (k == 400) a0 = rc_alloc_count();   /* warmed up: 40 grains, a free slot used */
        if (k % 5 == 0) {
            if (nlive == 40) {   /* remove the lowest */
                int lo = 0;
                double ylo = INFINITY;
                for (int i = 0; i < nlive; i++) {
                    double q[3];
                    rc_body_get_state(w, live[i], q, NULL);
                    if (q[1] < ylo) { ylo = q[1]; lo = i; }
                }
                if (rc_body_destroy(w, live[lo]) != RC_OK) return NAN;
                live[lo] = live[--nlive];
            }
            int id = grain(w, 0.37 * (added % 7) - 1.1, 12.0, NULL);
            if (id < 0) return NAN;
            live[nlive++] = id;
            added++;
        }
        if (rc_world_step(w) != RC_OK) return NAN;
        for (int i = 0; i < nlive; i++) {
            double q[3];
            rc_body_get_state(w, live[i], q, NULL);
            sum += q[0] + 3.0 * q[1] + 7.0 * q[2];
        }
    }
    *allocs_after_warmup = rc_alloc_count() - a0;
    *grains_added = added;
    if (rc_body_count(w) > 41) sum = NAN;   /* slots reused */
    rc_world_destroy(w);
    return sum;
}

RC_TEST(adding_and_removing_allocates_nothing_and_is_deterministic)
{
    int n1 = 0, n2 = 0;
    uint64_t a1 = 1, a2 = 1;
    double s1 = churn(2000, &n1, &a1), s2 = churn(2000, &n2, &a2);
    CHECK(n1 == 400 && n2 == 400);
    CHECK(a1 == 0 && a2 == 0);
    CHECK(s1 == s1 && fabs(s1) < 1e300);
    CHECK(memcmp(&s1, &s2, sizeof s1) == 0);   /* bit for bit */
}

/* the books: E_final + E_removed - E0 = the works summed (eq. 65 per step) */
RC_TEST(energy_balance_closes_after_a_removal)
{
    rc_world *w = new_world();
    CHECK(w != NULL);
    if (!w) return;
    grain(w, 0, 0.5, NULL);
    int b = grain(w, 0, 1.6, NULL);
    grain(w, 0, 2.7, NULL);
    double ek, ep;
    CHECK_OK(rc_world_energy(w, &ek, &ep));
    const double E0 = ek + ep;
    for (int i = 0; i < 300; i++) CHECK_OK(rc_world_step(w));
    double qb[3], vb[3];
    CHECK_OK(rc_body_get_state(w, b, qb, vb));
    const double Eb = 0.5 * (vb[0] * vb[0] + vb[1] * vb[1]) + 0.5 * 0.125 * vb[2] * vb[2] + 9.81 * qb[1];
    CHECK_OK(rc_body_destroy(w, b));
    CHECK_NEAR(rc_world_removed_energy(w), Eb, 1e-12);
    for (int i = 0; i < 700; i++) CHECK_OK(rc_world_step(w));
    rc_step_info in;
    CHECK_OK(rc_world_step_info(w, &in));
    rc_run_stats st;
    CHECK_OK(rc_world_run_stats(w, &st));
    CHECK(st.max_abs_balance < 1e-9);
    const double works = in.W_ext_total + in.W_N_total + in.W_T_total + in.W_theta_total + in.W_J_total;
    CHECK_NEAR(in.E + rc_world_removed_energy(w) - E0, works, 1e-8);
    CHECK(fabs(in.E - E0 - works) > 1.0);   /* without E_removed the books do not close */
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(removing_a_grain_lets_the_grains_above_fall),
             T(stale_ids_are_refused_and_slots_reused_with_a_new_generation),
             T(removing_a_joint_frees_the_pendulum),
             T(adding_and_removing_allocates_nothing_and_is_deterministic),
             T(energy_balance_closes_after_a_removal))
