/* test_user_data.c -- user data on bodies, shapes, joints and force functions
 * (src/model/user_data.c): stored and read back, destroy functions called
 * once each, on replacement and when the world is destroyed (in the order
 * the header gives), bad ids. */
#include "rc_test.h"

static char trace[256];

static void destroy(void *p)
{
    size_t n = strlen(trace);
    snprintf(trace + n, sizeof trace - n, "%s;", (const char *)p);
}

static rc_status force(void *user, int body, double t, const double *q, const double *v, double *f)
{
    (void)user; (void)body; (void)t; (void)q; (void)v;
    f[0] = f[1] = f[2] = 0.0;
    return RC_OK;
}

static rc_world *two_bodies(void)
{
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_body_def bd = rc_default_body_def();
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_DISK; d.radius = 0.5;
    rc_joint_def j = rc_default_joint_def();
    j.type = RC_JOINT_DISTANCE; j.body_a = 0; j.body_b = 1; j.length = 1;
    bd.q[0] = 1;
    if (rc_body_create(w, &bd, NULL) != RC_OK || rc_shape_create(w, 0, &d, NULL) != RC_OK) return NULL;
    bd.q[0] = 2;
    if (rc_body_create(w, &bd, NULL) != RC_OK || rc_shape_create(w, 1, &d, NULL) != RC_OK
        || rc_joint_create(w, &j, NULL) != RC_OK) {
        fprintf(stderr, "setup: %s\n", rc_last_error());
        return NULL;
    }
    return w;
}

RC_TEST(user_data_round_trip_and_destroy_order)
{
    rc_world *w = two_bodies();
    CHECK(w != NULL);
    if (!w) return;
    static char b1[] = "body1", s0[] = "shape0", j0[] = "joint0", f1[] = "force1", f1b[] = "force1b", b1b[] = "body1b";
    CHECK(rc_body_user_data(w, 1) == NULL && rc_shape_user_data(w, 0) == NULL && rc_joint_user_data(w, 0) == NULL);
    CHECK_OK(rc_body_set_user_data(w, 1, b1, destroy));
    CHECK_OK(rc_shape_set_user_data(w, 0, s0, destroy));
    CHECK_OK(rc_joint_set_user_data(w, 0, j0, destroy));
    CHECK(rc_body_user_data(w, 1) == b1 && rc_body_user_data(w, 0) == NULL);
    CHECK(rc_shape_user_data(w, 0) == s0 && rc_shape_user_data(w, 1) == NULL);
    CHECK(rc_joint_user_data(w, 0) == j0);
    CHECK_OK(rc_body_set_user_data(w, 1, b1, destroy));      /* the same pointer: not destroyed */
    CHECK(trace[0] == 0);
    CHECK_OK(rc_body_set_user_data(w, 1, b1b, destroy));     /* replaced: the old one destroyed */
    CHECK(strcmp(trace, "body1;") == 0);
    CHECK_OK(rc_body_set_force_fn_ex(w, 1, force, f1, destroy));
    CHECK_OK(rc_body_set_force_fn_ex(w, 1, force, f1b, destroy));
    CHECK(strcmp(trace, "body1;force1;") == 0);
    /* the force function still works in a step */
    rc_sim_def sd = rc_default_sim_def();
    CHECK_OK(rc_world_configure(w, &sd));
    CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_world_step(w));
    CHECK(rc_body_user_data(w, 1) == b1b);
    rc_world_destroy(w);
    CHECK(strcmp(trace, "body1;force1;body1b;shape0;joint0;force1b;") == 0);
    if (strcmp(trace, "body1;force1;body1b;shape0;joint0;force1b;") != 0) fprintf(stderr, "  trace: %s\n", trace);
}

RC_TEST(user_data_bad_ids)
{
    rc_world *w = two_bodies();
    CHECK(w != NULL);
    if (!w) return;
    CHECK(rc_body_set_user_data(w, 2, NULL, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strcmp(rc_last_error(), "rc_body_set_user_data: no body with id 2") == 0);
    CHECK(rc_shape_set_user_data(w, -1, NULL, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strcmp(rc_last_error(), "rc_shape_set_user_data: no shape with id -1") == 0);
    CHECK(rc_joint_set_user_data(w, 1, NULL, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strcmp(rc_last_error(), "rc_joint_set_user_data: no joint with id 1") == 0);
    CHECK(rc_body_set_force_fn_ex(w, 5, force, NULL, NULL) == RC_ERR_NOT_FOUND);
    CHECK(strcmp(rc_last_error(), "rc_body_set_force_fn_ex: no body with id 5") == 0);
    CHECK(rc_body_set_user_data(NULL, 0, NULL, NULL) == RC_ERR_ARG);
    CHECK(rc_body_user_data(w, 7) == NULL && rc_body_user_data(NULL, 0) == NULL);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(user_data_round_trip_and_destroy_order), T(user_data_bad_ids))
