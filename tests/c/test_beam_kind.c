/* test_beam_kind.c -- the beam as a body kind (RC_BODY_NONLINEAR,
 * src/model/nonlinear.c, docs/theory/beam.md, "the body kind"): the kind's
 * tangent (rcm_body_tangent, the hook of a Newton Jacobian) is the central
 * difference of its internal force (rcm_body_internal_force) to 1e-7, a
 * linear body's is K and a rigid body's 0; a free beam under Moreau--Jean at
 * theta = 1/2 (K_T(q_k) in Mhat) keeps its energy E_kin + E_el and its
 * momentum (it blew up when the elastic force was explicit), at theta = 1 it
 * dissipates; so do both generalized-alpha variants (rho_inf = 1) keep it,
 * the internal force taken through the kind's op; the step's audit counts
 * the strain energy in E; a force
 * function adds to the internal force; a beam on a frictional gap restarts
 * from a checkpoint bit for bit under Moreau--Jean. */
#include "rc_test.h"
#include "ricochet.h"
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NMAX 40

static rc_world *beam_world(double gy, int *id)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[0] = 0.0; wd.gravity[1] = gy;
    rc_world *w = NULL;
    if (rc_world_create(&wd, &w) != RC_OK) return NULL;
    rc_beam_def d = rc_default_beam_def();
    d.degree = 3; d.elements = 4; d.EA = 400.0; d.EI = 1.0; d.rho = 1.0;
    d.gravity[1] = gy;
    d.name = "beam";
    if (rc_beam_create(w, &d, id) != RC_OK) { rc_world_destroy(w); return NULL; }
    return w;
}

/* a drift, a spin and a bending velocity (as test_beam.c's free beam) */
static void kick(rc_world *w, int id)
{
    double q[NMAX], v[NMAX];
    const int n = rc_body_nq(w, id);
    rc_body_get_state(w, id, q, v);
    for (int i = 0; i < n; i += 2) {
        v[i] = 0.3 + 0.5 * q[i + 1];
        v[i + 1] = -0.2 + 0.8 * (q[i] - 0.5) + 2.0 * cos(3.141592653589793 * q[i]);
    }
    rc_body_set_state(w, id, q, v);
}

static double energy(const rc_world *w, int id)
{
    double ek, ee;
    rc_beam_energy(w, id, &ek, &ee, NULL);
    return ek + ee;
}

RC_TEST(the_kinds_tangent_is_the_central_difference_of_its_force)
{
    int id;
    rc_world *w = beam_world(0.0, &id);
    CHECK(w != NULL);
    if (!w) return;
    const int n = rc_body_nq(w, id);
    CHECK(w->bodies[id].kind == RC_BODY_NONLINEAR);
    CHECK(strcmp(rcm_body_ops_of(&w->bodies[id])->name, "nonlinear") == 0);
    double q[NMAX], v[NMAX], K[NMAX * NMAX], fp[NMAX], fm[NMAX], Kb[NMAX * NMAX], f[NMAX];
    CHECK_OK(rc_body_get_state(w, id, q, v));
    for (int i = 0; i < n; i++) q[i] += 0.05 * sin(1.7 * i + 0.3) + 0.02 * cos(3.1 * i);   /* stretched, bent */
    CHECK_OK(rcm_body_tangent(w, id, q, K));
    CHECK_OK(rcm_body_internal_force(w, id, q, f));
    CHECK_OK(rc_beam_forces(w, id, q, NULL, Kb, NULL));   /* the same as the public query */
    CHECK(memcmp(K, Kb, (size_t)n * n * sizeof(double)) == 0);
    double kmax = 0.0, err = 0.0;
    for (int j = 0; j < n; j++) {
        const double q0 = q[j], eps = 1e-6;
        q[j] = q0 + eps; CHECK_OK(rcm_body_internal_force(w, id, q, fp));
        q[j] = q0 - eps; CHECK_OK(rcm_body_internal_force(w, id, q, fm));
        q[j] = q0;
        for (int i = 0; i < n; i++) {
            err = fmax(err, fabs((fp[i] - fm[i]) / (2 * eps) - K[i * n + j]));
            kmax = fmax(kmax, fabs(K[i * n + j]));
        }
    }
    printf("  tangent: max |K - dF| / max |K| = %.2e\n", err / kmax);
    CHECK(err < 1e-7 * kmax);
    /* NULL q: the current coordinates (undeformed: no force) */
    CHECK_OK(rcm_body_internal_force(w, id, NULL, f));
    for (int i = 0; i < n; i++) CHECK(fabs(f[i]) < 1e-12);
    /* a linear body's tangent is its K, its force K q; a rigid body has none */
    const double M[4] = { 2, 0, 0, 2 }, Kl[4] = { 3, -1, -1, 3 }, q0[2] = { 0.5, -1 };
    rc_linear_def ld = rc_default_linear_def();
    ld.n = 2; ld.M = M; ld.K = Kl; ld.q0 = q0;
    int lin, rig;
    CHECK_OK(rc_linear_create(w, &ld, &lin));
    CHECK_OK(rcm_body_tangent(w, lin, NULL, K));
    CHECK(memcmp(K, Kl, sizeof Kl) == 0);
    CHECK_OK(rcm_body_internal_force(w, lin, NULL, f));
    CHECK_NEAR(f[0], 2.5, 1e-15);
    CHECK_NEAR(f[1], -3.5, 1e-15);
    rc_body_def bd = rc_default_body_def();
    CHECK_OK(rc_body_create(w, &bd, &rig));
    CHECK_OK(rcm_body_tangent(w, rig, NULL, K));
    for (int i = 0; i < 9; i++) CHECK(K[i] == 0.0);
    CHECK(rcm_body_tangent(w, 99, NULL, K) == RC_ERR_NOT_FOUND);
    /* prescribed coordinates stay a linear body's (their Mhat rows are M, C, K's) */
    const int c0 = 0;
    const double x0 = 0.0;
    CHECK(rc_linear_prescribe(w, id, 1, &c0, &x0) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "rc_linear_prescribe: body 0 is a nonlinear body (a beam): prescribed coordinates are for "
                                  "linear bodies (hold a beam with rc_beam_joint_create)") != NULL);
    rc_world_destroy(w);
}

/* n steps of a free kicked beam under Moreau--Jean at theta: the largest
 * |E - E0| / E0, the final relative change, the momentum's drift */
static void free_beam_mj(int *failed, double theta, double *emax, double *efinal, double *pdrift, double *audit)
{
    int id;
    rc_world *w = beam_world(0.0, &id);
    CHECK(w != NULL);
    if (!w) return;
    kick(w, id);
    const int n = rc_body_nq(w, id);
    double q[NMAX], v[NMAX], p0[2] = { 0, 0 }, p[2] = { 0, 0 };
    const rc_linear *L = &w->linears[w->bodies[id].linear];
    rc_body_get_state(w, id, q, v);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) p0[i % 2] += L->M[i * n + j] * v[j];
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_MOREAU_JEAN;
    sd.h = 1e-3;
    sd.theta = theta;
    CHECK_OK(rc_world_configure(w, &sd));
    const double E0 = energy(w, id);
    *emax = 0.0;
    *audit = 0.0;
    uint64_t allocs = 0;
    for (int k = 0; k < 400; k++) {
        if (k == 2) allocs = rc_alloc_count();   /* (the first step spills the arena, the second sizes it) */
        CHECK_OK(rc_world_step(w));
        const double E = energy(w, id);
        *emax = fmax(*emax, fabs(E - E0) / E0);
        rc_step_info in;
        CHECK_OK(rc_world_step_info(w, &in));
        *audit = fmax(*audit, fabs(in.E - E));   /* the audit's E is E_kin + E_el */
    }
    CHECK(rc_alloc_count() == allocs);   /* K_T, Mhat's factor: the body's own arrays, no allocation in a step */
    *efinal = (energy(w, id) - E0) / E0;
    rc_body_get_state(w, id, q, v);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) p[i % 2] += L->M[i * n + j] * v[j];
    *pdrift = fmax(fabs(p[0] - p0[0]), fabs(p[1] - p0[1]));
    rc_world_destroy(w);
}

RC_TEST(a_free_beam_under_moreau_jean_keeps_its_energy_at_theta_half)
{
    double emax, efin, pd, audit;
    free_beam_mj(failed, 0.5, &emax, &efin, &pd, &audit);
    printf("  theta = 1/2: max |E - E0| / E0 = %.2e, momentum drift %.1e, audit E vs E_kin + E_el %.1e\n", emax, pd, audit);
    CHECK(emax < 1e-4);     /* 2.5e-5 measured (the explicit elastic force of before: 1e16) */
    CHECK(pd < 1e-12);
    CHECK(audit < 1e-12);
    free_beam_mj(failed, 1.0, &emax, &efin, &pd, &audit);
    printf("  theta = 1: energy change %.2e, momentum drift %.1e\n", efin, pd);
    CHECK(efin < -0.01);    /* -2.2e-2: implicit Euler dissipates */
    CHECK(pd < 1e-12);
}

RC_TEST(a_free_beam_under_both_gen_alpha_variants_keeps_its_energy)
{
    for (int variant = 0; variant < 2; variant++) {
        int id;
        rc_world *w = beam_world(0.0, &id);
        CHECK(w != NULL);
        if (!w) return;
        kick(w, id);
        rc_sim_def sd = rc_default_sim_def();
        sd.scheme = RC_SCHEME_GEN_ALPHA;
        sd.gen_alpha.variant = variant ? RC_GA_CAPOBIANCO : RC_GA_BRULS;
        sd.gen_alpha.rho_inf = 1.0;
        sd.h = 1e-3;
        sd.solver.tol = 1e-12;
        CHECK_OK(rc_world_configure(w, &sd));
        const double E0 = energy(w, id);
        double emax = 0.0, audit = 0.0;
        for (int k = 0; k < 400; k++) {
            CHECK_OK(rc_world_step(w));
            const double E = energy(w, id);
            emax = fmax(emax, fabs(E - E0) / E0);
            rc_step_info in;
            CHECK_OK(rc_world_step_info(w, &in));
            audit = fmax(audit, fabs(in.E - E) + fabs(in.E_elastic - (E - in.E_kin)));   /* the audit's E, E_elastic */
        }
        printf("  gen-alpha %s: max |E - E0| / E0 = %.2e, audit %.1e\n", variant ? "capobianco2021" : "bruls2014", emax, audit);
        CHECK(emax < 1e-4);   /* 1.3e-5 measured, both */
        CHECK(audit < 1e-12);
        rc_world_destroy(w);
    }
}

/* a pull of 1.75 along x on the last control point (r(1)) */
static rc_status pull(void *user, int body, double t, const double *q, const double *v, double *f)
{
    (void)user; (void)body; (void)t; (void)q; (void)v;
    f[12] = 1.75;
    return RC_OK;
}

RC_TEST(a_force_function_adds_to_the_internal_force)
{
    int id;
    rc_world *w = beam_world(0.0, &id);
    CHECK(w != NULL);
    if (!w) return;
    const int n = rc_body_nq(w, id);   /* 14 */
    CHECK(n == 14);
    CHECK_OK(rc_body_set_force_fn(w, id, pull, NULL));
    rc_sim_def sd = rc_default_sim_def();
    sd.scheme = RC_SCHEME_GEN_ALPHA;
    sd.gen_alpha.variant = RC_GA_CAPOBIANCO;
    sd.gen_alpha.rho_inf = 0.8;
    sd.h = 1e-3;
    CHECK_OK(rc_world_configure(w, &sd));
    for (int k = 0; k < 200; k++) CHECK_OK(rc_world_step(w));
    /* the momentum along x: sum_i (M v)_x = F t (partition of unity) */
    double q[NMAX], v[NMAX], px = 0.0;
    rc_body_get_state(w, id, q, v);
    const rc_linear *L = &w->linears[w->bodies[id].linear];
    for (int i = 0; i < n; i += 2)
        for (int j = 0; j < n; j++) px += L->M[i * n + j] * v[j];
    CHECK_NEAR(px, 1.75 * 0.2, 1e-10);
    double ee, r0[2], r1[2];
    CHECK_OK(rc_beam_energy(w, id, NULL, &ee, NULL));
    CHECK(ee > 0.0);   /* the pull stretches it */
    CHECK_OK(rc_beam_point(w, id, 0.0, NULL, r0, NULL));
    CHECK_OK(rc_beam_point(w, id, 1.0, NULL, r1, NULL));
    printf("  pulled beam: length %.6f (EA = 400, F = 1.75: F / EA = %.4f), E_el %.2e\n", r1[0] - r0[0], 1.75 / 400, ee);
    CHECK(fabs(r1[0] - r0[0] - 1.0) < 0.01);   /* the whole beam follows (no stiffness: the end alone, +0.5) */
    rc_world_destroy(w);
}

/* the beam falls on the ground (a gap on its last control point, mu = 0.3) */
static rc_world *falling_beam(int *id)
{
    rc_world *w = beam_world(-9.81, id);
    if (!w) return NULL;
    double q[NMAX], v[NMAX];
    const int n = rc_body_nq(w, *id);
    rc_body_get_state(w, *id, q, v);
    for (int i = 0; i < n; i += 2) q[i + 1] += 0.05 + 0.3 * q[i];   /* tilted, 5 cm up */
    rc_body_set_state(w, *id, q, v);
    rc_law_def ld = rc_default_law_def();
    ld.mu = 0.3;
    int law;
    rc_law_create(w, &ld, &law);
    const int idx[2] = { 0, 1 };
    const double nrm[2] = { 0, 1 }, tng[2] = { 1, 0 };
    rc_gap_def gd = rc_default_gap_def();
    gd.body = *id; gd.nnz = 2; gd.index = idx; gd.normal = nrm; gd.tangent = tng; gd.law = law; gd.name = "foot";
    rc_gap_create(w, &gd, NULL);
    rc_sim_def sd = rc_default_sim_def();
    sd.h = 1e-3;
    sd.theta = 0.5;
    rc_world_configure(w, &sd);
    return w;
}

RC_TEST(a_beam_restarts_from_a_checkpoint_bit_for_bit_under_moreau_jean)
{
    int id;
    rc_world *w = falling_beam(&id);
    CHECK(w != NULL);
    if (!w) return;
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_beam_kind_%ld.rcc", (long)getpid());
    for (int k = 0; k < 150; k++) CHECK_OK(rc_world_step(w));
    CHECK_OK(rc_sim_save(w, path));
    for (int k = 0; k < 150; k++) CHECK_OK(rc_world_step(w));
    const int n = rc_body_nq(w, id);
    double qa[NMAX], va[NMAX], qb[NMAX], vb[NMAX];
    rc_body_get_state(w, id, qa, va);
    rc_step_info ia;
    rc_world_step_info(w, &ia);
    CHECK(ia.ncontacts == 1);   /* it landed */
    rc_world_destroy(w);
    w = falling_beam(&id);   /* a fresh world of the same model */
    CHECK(w != NULL);
    if (!w) return;
    CHECK_OK(rc_sim_restore(w, path));
    for (int k = 0; k < 150; k++) CHECK_OK(rc_world_step(w));
    rc_body_get_state(w, id, qb, vb);
    CHECK(memcmp(qa, qb, (size_t)n * sizeof(double)) == 0);
    CHECK(memcmp(va, vb, (size_t)n * sizeof(double)) == 0);
    double r[2];
    CHECK_OK(rc_beam_point(w, id, 0.0, NULL, r, NULL));
    CHECK(r[1] > -1e-3);   /* on the ground, not through it */
    unlink(path);
    rc_world_destroy(w);
}

RC_TEST_MAIN(T(the_kinds_tangent_is_the_central_difference_of_its_force),
             T(a_free_beam_under_moreau_jean_keeps_its_energy_at_theta_half),
             T(a_free_beam_under_both_gen_alpha_variants_keeps_its_energy),
             T(a_force_function_adds_to_the_internal_force),
             T(a_beam_restarts_from_a_checkpoint_bit_for_bit_under_moreau_jean))
