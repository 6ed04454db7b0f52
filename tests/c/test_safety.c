/* test_safety.c -- regression tests of issue 10's memory-safety defects in
 * the kernel, one test per defect, named after it. The out-of-bounds reads
 * and the undefined behaviour show only under a sanitizer build
 * (-fsanitize=address,undefined with UBSAN_OPTIONS=halt_on_error=1); the
 * checks below hold in every build. */
#define _POSIX_C_SOURCE 200809L
#include "rc_test.h"
#include "nonsmooth/nonsmooth.h"   /* rcn_nsgs_parallel_min: a small pile shares its colours */

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Defect 3: the joints' energy bookkeeping read v[0..2] and q[0..1] of every
 * body, also of a 1-dof linear body (created last: its coordinates end the
 * q, v arrays), as soon as the world had a joint. */
RC_TEST(defect3_body_energy_of_a_linear_body_beside_a_joint)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -10.0;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return;
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1.0;
    bd.inertia = 0.1;
    bd.q[0] = 1.0;
    int b = -1, lin = -1;
    CHECK_OK(rc_body_create(w, &bd, &b));
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_REVOLUTE;
    jd.body_a = RC_GROUND;
    jd.body_b = b;
    jd.point_b[0] = -1.0;
    CHECK_OK(rc_joint_create(w, &jd, NULL));
    const double M = 2.0, K = 8.0, q0 = 0.1;
    rc_linear_def ld = rc_default_linear_def();
    ld.n = 1;
    ld.M = &M;
    ld.K = &K;
    ld.q0 = &q0;
    CHECK_OK(rc_linear_create(w, &ld, &lin));
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    CHECK_OK(rc_world_configure(w, &sd));
    CHECK_OK(rc_world_step(w));
    double q, v;
    CHECK_OK(rc_body_get_state(w, lin, &q, &v));
    /* the oscillator q'' = -(K/M) q, one trapezoidal step from rest */
    CHECK_NEAR(v, -1e-3 * (K / M) * 0.5 * (q0 + q), 1e-15);
    rc_world_destroy(w);
}

/* Defect 4: rc_output_open freed its struct, then read the CSV path from it
 * for the error message, when history.csv.gz could not be opened. */
RC_TEST(defect4_output_open_cannot_open_the_history)
{
    char dir[] = "/tmp/rc_safety_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char csv[96];
    snprintf(csv, sizeof csv, "%s/history.csv.gz", dir);
    CHECK(mkdir(csv, 0755) == 0);   /* a folder where the file should go (we run as root) */
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    CHECK_OK(rc_world_configure(w, &sd));
    rc_output_def od = rc_default_output_def();
    od.dir = dir;
    rc_status s = rc_output_open(w, &od);
    CHECK(s == RC_ERR_IO);
    char expected[160];
    snprintf(expected, sizeof expected, "rc_output_open: cannot open %s: ", csv);
    if (strncmp(rc_last_error(), expected, strlen(expected)) != 0)
        fprintf(stderr, "  message: %s\n", rc_last_error());
    CHECK(strncmp(rc_last_error(), expected, strlen(expected)) == 0);
    CHECK(!rc_output_is_open(w));
    CHECK_OK(rc_world_step(w));   /* the world goes on without output */
    rc_world_destroy(w);
    rmdir(csv);
    rmdir(dir);
}

/* Defect 6: a world without bodies that keeps a copy of its state
 * (work_check = error) called memcpy(q0, NULL, 0). */
RC_TEST(defect6_empty_world_with_work_check_error_steps)
{
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(NULL, &w));
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.work_check = RC_WORK_ERROR;
    CHECK_OK(rc_world_configure(w, &sd));
    for (int i = 0; i < 3; i++) CHECK_OK(rc_world_step(w));
    CHECK(rc_world_step_count(w) == 3);
    rc_world_destroy(w);
}

/* Threads of this process (/proc/self/status), -1 if unknown. */
static int process_threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    int n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1) break;
    fclose(f);
    return n;
}

/* the thread count once it is n: an exiting thread stays in /proc until it
 * is gone, a few microseconds after the join returns under load (seen in
 * CI); polls for up to 2 s, then returns the last count */
static int threads_settle(int n)
{
    int now = process_threads();
    for (int i = 0; i < 2000 && now != n; i++) {
        const struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
        now = process_threads();
    }
    return now;
}

static void quiet(void *user, const char *msg) { (void)user; (void)msg; }

/* 48 disks resting on a floor in 8 columns, coloured NSGS on 2 threads,
 * every colour shared (the test sets rcn_nsgs_parallel_min = 0). */
static rc_world *threaded_pile(int *failed)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return NULL;
    rc_world_set_warning_fn(w, quiet, NULL);
    rc_shape_def floor = rc_default_shape_def();
    floor.type = RC_SHAPE_HALFPLANE;
    floor.normal[1] = 1.0;
    CHECK_OK(rc_shape_create(w, RC_GROUND, &floor, NULL));
    for (int i = 0; i < 48; i++) {
        rc_body_def bd = rc_default_body_def();
        bd.mass = 0.0314;
        bd.inertia = 1.57e-4;
        bd.q[0] = 0.2 * (i % 8);
        bd.q[1] = 0.1 + 0.2 * (i / 8);
        int b = -1;
        CHECK_OK(rc_body_create(w, &bd, &b));
        rc_shape_def sd = rc_default_shape_def();
        sd.type = RC_SHAPE_DISK;
        sd.radius = 0.1;
        CHECK_OK(rc_shape_create(w, b, &sd, NULL));
    }
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    sd.solver.order = RC_ORDER_COLOUR;
    sd.solver.threads = 2;
    sd.solver.adaptive_threads = 0;
    CHECK_OK(rc_world_configure(w, &sd));
    return w;
}

/* Defect 5: the OpenMP team outlived the worlds; plain lua5.4 unloads the
 * module and libgomp at exit while its threads still spin (crash). The last
 * world that ran a team shuts it down: its threads are joined. */
RC_TEST(defect5_the_last_threaded_world_shuts_the_team_down)
{
    if (!rc_openmp()) return;   /* no team without OpenMP */
    rcn_nsgs_parallel_min = 0;
    const int alone = process_threads();   /* (OpenBLAS may have threads of its own) */
    CHECK(alone >= 1);
    rc_world *a = threaded_pile(failed), *b = threaded_pile(failed);
    if (!a || !b) { rc_world_destroy(a); rc_world_destroy(b); rcn_nsgs_parallel_min = 512; return; }
    for (int i = 0; i < 3; i++) { CHECK_OK(rc_world_step(a)); CHECK_OK(rc_world_step(b)); }
    rc_run_stats st;
    CHECK_OK(rc_world_run_stats(a, &st));
    CHECK(st.parallel_steps == 3);
    CHECK(process_threads() == alone + 1);   /* the team's other thread */
    rc_world_destroy(a);
    CHECK(process_threads() == alone + 1);   /* b still uses the team */
    rc_world_destroy(b);
    CHECK(threads_settle(alone) == alone);   /* joined */
    rc_world *c = threaded_pile(failed);   /* a new team for the next threaded world */
    if (c) {
        CHECK_OK(rc_world_step(c));
        CHECK(process_threads() == alone + 1);
        rc_world_destroy(c);
        CHECK(threads_settle(alone) == alone);
    }
    rcn_nsgs_parallel_min = 512;
}

/* Finite inputs that can only overflow or never end are refused (C API). */
RC_TEST(absurd_inputs_are_refused_with_the_reason)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -1e300;
    rc_world *w = NULL;
    CHECK(rc_world_create(&wd, &w) == RC_ERR_ARG && w == NULL);
    CHECK(strstr(rc_last_error(), "world: 'gravity[2]' = -1e+300 is beyond the limit of 1e+12") != NULL);
    wd.gravity[1] = -RC_MAX_GRAVITY;
    CHECK_OK(rc_world_create(&wd, &w));
    if (!w) return;
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-300;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "simulation: 'h' = 1e-300 is below the limit of 1e-12") != NULL);
    sd.h = 1e300;
    CHECK(rc_world_configure(w, &sd) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "simulation: 'h' = 1e+300 is above the limit of 1e+06") != NULL);
    sd.h = RC_MIN_H;
    CHECK_OK(rc_world_configure(w, &sd));
    rc_body_def bd = rc_default_body_def();
    bd.mass = 1e-309;
    CHECK(rc_body_create(w, &bd, NULL) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "body: 'mass' = 1e-309 is too small: 1/mass is not a finite number") != NULL);
    CHECK(rc_body_count(w) == 0);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(defect3_body_energy_of_a_linear_body_beside_a_joint),
             T(defect4_output_open_cannot_open_the_history),
             T(defect5_the_last_threaded_world_shuts_the_team_down),
             T(defect6_empty_world_with_work_check_error_steps),
             T(absurd_inputs_are_refused_with_the_reason))
