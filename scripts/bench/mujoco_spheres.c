/* Benchmark: the spheres_in_box scene (scripts/bench/spheres_in_box.lua) in MuJoCo 2.2
 * (Debian libmujoco-dev), for scripts/bench/compare3 (Ricochet issue 14).
 *
 *   cc -O2 -o build/mujoco_spheres scripts/bench/mujoco_spheres.c -lmujoco -lm
 *   build/ricochet run scripts/bench/spheres_in_box.lua --quiet --set N=1000 --set scene=/tmp/s.txt --set T=0
 *   build/mujoco_spheres /tmp/s.txt --T 1 --setting newton
 *
 * The model is an XML string generated here and loaded through MuJoCo's virtual file system:
 * one free body per sphere (geom density 1: m = 4/3 pi r^3, I = 2/5 m r^2, as Ricochet's),
 * five planes (floor and walls, their normals into the box), friction 0.3 on every geom,
 * condim 3 (sliding friction only, as Coulomb's law in Ricochet), h = 1e-3, the default
 * solref/solimp (MuJoCo's contacts are soft: e = 0 has no exact counterpart, the default
 * critically damped reference is the nearest), margin 0. Settings (--setting):
 *   newton    MuJoCo's default: Newton, pyramidal cone, 100 iterations, tolerance 1e-8
 *   cg        conjugate gradient, otherwise default
 *   pgs       projected Gauss-Seidel (dual), 100 iterations, tolerance 1e-8
 *   pgs10     PGS, at most 10 iterations
 *   newton1   Newton, at most 1 iteration
 * --cone pyramidal (MuJoCo's default: 4 rows per condim-3 contact) or elliptic (3 rows).
 * (noslip is off in all: its default, noslip_iterations = 0). The contact list and the
 * constraint rows are sized by --nconmax (default 6 N) and --njmax (default 4 nconmax):
 * MuJoCo 2.2 allocates efc_J (njmax x nv) and efc_AR (njmax x njmax) dense, so these bound
 * the feasible N. A dropped contact (mjWARN_CONTACTFULL / mjWARN_CNSTRFULL) is counted and
 * printed; a run with drops is not a valid comparison.
 *
 * Printed (one "mujoco_spheres:" line, key=value): CPU per step (clock(), process CPU),
 * wall per step, contacts per step (mean, max), constraint rows (max), solver iterations
 * (mean), the largest penetration over the run (max of -mjContact.dist), warnings.
 */
#define _POSIX_C_SOURCE 199309L
#define PI 3.14159265358979323846
#include <mujoco/mujoco.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void die(const char *msg) { fprintf(stderr, "mujoco_spheres: %s\n", msg); exit(1); }

/* append to a growing string */
typedef struct { char *s; size_t n, cap; } buf;
static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k < 0) die("vsnprintf");
        if ((size_t)k < b->cap - b->n) { b->n += (size_t)k; return; }
        b->cap = 2 * b->cap + (size_t)k + 1;
        b->s = realloc(b->s, b->cap);
        if (!b->s) die("out of memory");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) die("usage: mujoco_spheres SCENE [--T t] [--setting newton|cg|pgs|pgs10|newton1] [--nconmax n] [--njmax n] [--budget cpu_s]");
    const char *path = argv[1], *setting = "newton", *cone = "pyramidal";
    double T = 1.0, budget = 1e30;
    long nconmax = 0, njmax = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--T")) T = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--setting")) setting = argv[i + 1];
        else if (!strcmp(argv[i], "--nconmax")) nconmax = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--njmax")) njmax = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--budget")) budget = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--cone")) cone = argv[i + 1];
        else die("unknown option");
    }
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open the scene file");
    int N, c, seed;
    double width, g, mu, h, ekin, epot;
    if (fscanf(f, "%d %d %lf %lf %lf %lf %d", &N, &c, &width, &g, &mu, &h, &seed) != 7) die("bad scene header");
    if (fscanf(f, "%lf %lf", &ekin, &epot) != 2) die("bad scene energies");
    double (*s)[7] = malloc((size_t)N * sizeof *s);
    if (!s) die("out of memory");
    double ek = 0, ep = 0;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 7; k++)
            if (fscanf(f, "%lf", &s[i][k]) != 1) die("bad scene row");
        double m = 4.0 / 3.0 * PI * pow(s[i][0], 3);
        ek += 0.5 * m * (s[i][4] * s[i][4] + s[i][5] * s[i][5] + s[i][6] * s[i][6]);
        ep += m * g * s[i][3];
    }
    fclose(f);
    if (fabs(ek - ekin) > 1e-12 * ekin || fabs(ep - epot) > 1e-12 * epot) die("the scene's energies do not match its rows");
    if (strcmp(cone, "pyramidal") && strcmp(cone, "elliptic")) die("--cone: pyramidal or elliptic");
    if (nconmax <= 0) nconmax = 6L * N;
    if (njmax <= 0) njmax = 4L * nconmax;

    int solver = mjSOL_NEWTON, iters = 100;
    if (!strcmp(setting, "newton")) {}
    else if (!strcmp(setting, "cg")) solver = mjSOL_CG;
    else if (!strcmp(setting, "pgs")) solver = mjSOL_PGS;
    else if (!strcmp(setting, "pgs10")) { solver = mjSOL_PGS; iters = 10; }
    else if (!strcmp(setting, "newton1")) iters = 1;
    else die("unknown setting");

    buf b = { NULL, 0, 0 };
    put(&b, "<mujoco model=\"spheres_in_box\">\n"
            "<size nconmax=\"%ld\" njmax=\"%ld\"/>\n"
            "<option timestep=\"%.17g\" gravity=\"0 0 %.17g\" solver=\"%s\" iterations=\"%d\" cone=\"%s\"/>\n"
            "<default><geom condim=\"3\" friction=\"%.17g 0 0\" density=\"1\"/></default>\n<worldbody>\n",
        nconmax, njmax, h, -g, solver == mjSOL_PGS ? "PGS" : solver == mjSOL_CG ? "CG" : "Newton", iters, cone, mu);
    /* planes: the half-space below each plane's z axis is solid */
    put(&b, "<geom type=\"plane\" size=\"0 0 1\" pos=\"0 0 0\" zaxis=\"0 0 1\"/>\n");
    put(&b, "<geom type=\"plane\" size=\"0 0 1\" pos=\"0 0 0\" zaxis=\"1 0 0\"/>\n");
    put(&b, "<geom type=\"plane\" size=\"0 0 1\" pos=\"%.17g 0 0\" zaxis=\"-1 0 0\"/>\n", width);
    put(&b, "<geom type=\"plane\" size=\"0 0 1\" pos=\"0 0 0\" zaxis=\"0 1 0\"/>\n");
    put(&b, "<geom type=\"plane\" size=\"0 0 1\" pos=\"0 %.17g 0\" zaxis=\"0 -1 0\"/>\n", width);
    for (int i = 0; i < N; i++)
        put(&b, "<body pos=\"%.17g %.17g %.17g\"><freejoint/><geom type=\"sphere\" size=\"%.17g\"/></body>\n",
            s[i][1], s[i][2], s[i][3], s[i][0]);
    put(&b, "</worldbody>\n</mujoco>\n");

    mjVFS *vfs = malloc(sizeof *vfs);
    if (!vfs) die("out of memory");
    mj_defaultVFS(vfs);
    if (mj_makeEmptyFileVFS(vfs, "scene.xml", (int)b.n) != 0) die("VFS");
    memcpy(vfs->filedata[mj_findFileVFS(vfs, "scene.xml")], b.s, b.n);
    char err[1000] = "";
    mjModel *m = mj_loadXML("scene.xml", vfs, err, sizeof err);
    if (!m) { fprintf(stderr, "mujoco_spheres: %s\n", err); return 1; }
    mj_deleteVFS(vfs);
    free(vfs);
    free(b.s);
    mjData *d = mj_makeData(m);
    if (!d) die("mj_makeData failed (njmax too large for the memory?)");
    for (int i = 0; i < N; i++) {   /* free joint: qvel = (v world, omega local) */
        d->qvel[6 * i + 0] = s[i][4];
        d->qvel[6 * i + 1] = s[i][5];
        d->qvel[6 * i + 2] = s[i][6];
    }
    /* the masses MuJoCo computed against the scene's */
    double merr = 0;
    for (int i = 0; i < N; i++) {
        double mi = 4.0 / 3.0 * PI * pow(s[i][0], 3);
        merr = fmax(merr, fabs(m->body_mass[i + 1] - mi) / mi);
        merr = fmax(merr, fabs(m->body_inertia[3 * (i + 1)] - 0.4 * mi * s[i][0] * s[i][0]) / (0.4 * mi * s[i][0] * s[i][0]));
    }
    if (merr > 1e-9) die("MuJoCo's masses or inertias differ from the scene's");

    const long steps_max = lround(T / h);
    long steps = 0, sum_con = 0, sum_iter = 0;
    int max_con = 0, max_efc = 0;
    double pen = 0.0, cpu = 0.0, wall = 0.0;
    while (steps < steps_max && cpu < budget) {
        clock_t c0 = clock();
        double w0 = now_wall();
        mj_step(m, d);
        cpu += (double)(clock() - c0) / CLOCKS_PER_SEC;
        wall += now_wall() - w0;
        steps++;
        /* mj_step collides at the start of the step: these are the contacts of q_k */
        for (int k = 0; k < d->ncon; k++)
            if (-d->contact[k].dist > pen) pen = -d->contact[k].dist;
        sum_con += d->ncon;
        if (d->ncon > max_con) max_con = d->ncon;
        if (d->nefc > max_efc) max_efc = d->nefc;
        sum_iter += d->solver_iter;
    }
    double lowest = 1e30;
    for (int i = 0; i < N; i++) lowest = fmin(lowest, d->qpos[7 * i + 2] - s[i][0]);
    printf("mujoco_spheres: N=%d setting=%s cone=%s version=%s steps=%ld t=%.3f cpu_ms_per_step=%.4f wall_ms_per_step=%.4f "
           "contacts_per_step=%.1f max_contacts=%d max_rows=%d nconmax=%ld njmax=%ld iters_per_step=%.2f max_overlap=%.4g "
           "dropped_contact_warnings=%d dropped_row_warnings=%d lowest_gap=%.4g\n",
        N, setting, cone, mj_versionString(), steps, steps * h, 1e3 * cpu / steps, 1e3 * wall / steps,
        (double)sum_con / steps, max_con, max_efc, nconmax, njmax, (double)sum_iter / steps, pen,
        d->warning[mjWARN_CONTACTFULL].number, d->warning[mjWARN_CNSTRFULL].number, lowest);
    mj_deleteData(d);
    mj_deleteModel(m);
    free(s);
    return 0;
}
