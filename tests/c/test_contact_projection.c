/* test_contact_projection.c -- rc_sim_def.project_contacts from the C API
 * (src/integrate/project_contacts.c, docs/granular.md): its checks with
 * their exact messages, and a disk dropped at 15 m/s on the floor that ends
 * its impact step on it (3.5e-3 in it without the option), the lift booked
 * in W_proj = m g delta with the balance exact; no allocation once sized. */
#include "rc_test.h"

static rc_world *dropped(int project, int *body)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 2.0;
    bd.inertia = 0.01;
    bd.q[1] = 0.104;
    bd.v[1] = -15.0;
    rc_shape_def disk = rc_default_shape_def();
    disk.type = RC_SHAPE_DISK;
    disk.radius = 0.1;
    rc_shape_def floor = rc_default_shape_def();
    floor.type = RC_SHAPE_HALFPLANE;
    rc_law_def law = rc_default_law_def();
    law.e = 0.0;
    int lid;
    rc_sim_def sd = rc_default_sim_def();
    sd.solver.tol = 1e-14;
    sd.project_contacts = project;
    rc_contact_rule_def rule = rc_default_contact_rule_def();
    if (rc_body_create(w, &bd, body) != RC_OK || rc_shape_create(w, *body, &disk, NULL) != RC_OK
        || rc_shape_create(w, RC_GROUND, &floor, NULL) != RC_OK || rc_law_create(w, &law, &lid) != RC_OK) {
        rc_world_destroy(w);
        return NULL;
    }
    rule.a = RC_GROUND; rule.b = *body; rule.law = lid;
    if (rc_contact_rule(w, &rule) != RC_OK || rc_world_configure(w, &sd) != RC_OK) {
        rc_world_destroy(w);
        return NULL;
    }
    return w;
}

RC_TEST(option_checks)
{
    rc_sim_def sd = rc_default_sim_def();
    CHECK(sd.project_contacts == 0);
    sd.project_contacts = 2;
    CHECK(rc_sim_def_check(&sd, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "simulation: 'project_contacts' must be 0 or 1 (got 2)") == 0);
    sd.project_contacts = 1;
    CHECK_OK(rc_sim_def_check(&sd, NULL));
    sd.scheme = RC_SCHEME_MOREAU_JEAN_FREMOND;
    CHECK_OK(rc_sim_def_check(&sd, NULL));
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    CHECK(rc_sim_def_check(&sd, NULL) == RC_ERR_ARG);
    CHECK(strcmp(rc_last_error(), "simulation: 'project_contacts' is an option of scheme = \"moreau-jean\" or "
                                  "\"moreau-jean-fremond\" (scheme is \"gen-alpha\")") == 0);
    sd.scheme = RC_SCHEME_MAURY;
    sd.theta = 1.0;
    CHECK(rc_sim_def_check(&sd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "(scheme is \"maury\")") != NULL);
}

RC_TEST(dropped_disk_ends_its_impact_step_on_the_floor)
{
    int b0, b1;
    rc_world *w0 = dropped(0, &b0), *w1 = dropped(1, &b1);
    CHECK(w0 && w1);
    if (!w0 || !w1) return;
    CHECK_OK(rc_world_step(w0));
    CHECK_OK(rc_world_step(w1));
    double q0[3], q1[3];
    rc_body_get_state(w0, b0, q0, NULL);
    rc_body_get_state(w1, b1, q1, NULL);
    CHECK_NEAR(0.1 - q0[1], 3.5e-3, 1e-12);   /* h v_{k+1/2} = -7.5e-3 from a gap of 4e-3 */
    CHECK_NEAR(q1[1], 0.1, 1e-15);
    rc_step_info in;
    CHECK_OK(rc_world_step_info(w1, &in));
    CHECK_NEAR(in.W_proj_contacts, 2.0 * 9.81 * (q1[1] - q0[1]), 1e-13);
    CHECK(in.W_proj == in.W_proj_contacts && in.E_proj == in.W_proj_contacts);
    CHECK(fabs(in.balance) <= 1e-13 * 225.0);
    CHECK_NEAR(in.proj_overlap, 0.1 - q0[1], 1e-15);
    /* resting afterwards: nothing left to project, no allocation in the step */
    for (int k = 0; k < 5; k++) CHECK_OK(rc_world_step(w1));
    const uint64_t a0 = rc_alloc_count();
    for (int k = 0; k < 20; k++) CHECK_OK(rc_world_step(w1));
    CHECK(rc_alloc_count() == a0);
    rc_body_get_state(w1, b1, q1, NULL);
    CHECK(fabs(q1[1] - 0.1) <= 1e-12);
    rc_run_stats st;
    CHECK_OK(rc_world_run_stats(w1, &st));
    CHECK(st.max_overlap <= 1e-12);
    CHECK(st.proj_capped == 0);
    rc_world_destroy(w0);
    rc_world_destroy(w1);
}

RC_TEST_MAIN(T(option_checks), T(dropped_disk_ends_its_impact_step_on_the_floor))
