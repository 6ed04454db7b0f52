/* contacts3.c -- the 3D contacts of a dim = 3 world in the step (after the
 * planar stages' solve, before the update; docs/theory/spatial.md,
 * "Contacts"):
 *   detect   at q_k (collide/detect3d.c): ids, warm start;
 *   rows     u = Ha va + Hb vb, (N, T1, T2), Hb = rcc_jacobian3d(q_b, pb - x_b, d)
 *            and Ha = -rcc_jacobian3d(q_a, pa - x_a, d);
 *   index    the planar rules (eq. 64 or its anticipated form, persistence);
 *   problem  W = H kappa Mhat^-1 H^T through the body kind's solve_mass (the
 *            step's inverse rotational iteration matrix: W is not
 *            symmetric in general), the built-in law's shift on N, T1, T2
 *            (eq. 96 / 101, Moreau's e_T on both tangents);
 *   solve    warm start V += kappa Mhat^-1 H^T p, NSGS (nonsmooth/nsgs3.c) or,
 *            solver "newton", the semismooth Newton (nonsmooth/newton3.c);
 *   audit    W_N = u_N,k+theta p_N, W_T = u_T,k+theta . p_T (eq. 68).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "integrate/integrate.h"
#include "collide/geom3d.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <string.h>

/* The detection margin: the world's, and for the anticipated index set
 * what gamma h |u_N| can reach (|v| + |Omega| bound per body). */
static double margin3(const rci_step *st)
{
    const rc_world *w = st->w;
    double m = w->def.contact_margin, s = 0.0;
    if (w->sim.activation != RC_ACTIVATE_ANTICIPATE) return m;
    for (int i = 0; i < w->c3->nshapes; i++) {
        const rcm_shape3 *sh = &w->c3->shapes[i];
        if (sh->body == RC_GROUND) continue;
        const double *v = st->vk + w->bodies[sh->body].iv;
        s = fmax(s, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]) * sh->bound);
    }
    return fmax(m, w->sim.gamma * st->h * 2.0 * s);
}

/* the rows of one side (sign -1 for A); the rotational parts stored */
static void side_rows(rc_world *w, int body, const double *pt, rcm_contact3 *c, double sign, double H[3][6])
{
    const rc_body *bd = &w->bodies[body];
    const double *q = w->q + bd->iq;
    const double r[3] = { pt[0] - q[0], pt[1] - q[1], pt[2] - q[2] };
    const double *dirs[3] = { c->n, c->t1, c->t2 };
    for (int k = 0; k < 3; k++) {
        rcc_jacobian3d(q + 3, r, dirs[k], H[k]);
        for (int j = 0; j < 6; j++) H[k][j] *= sign;
        for (int j = 0; j < 3; j++) (sign > 0.0 ? c->Rb : c->Ra)[k][j] = H[k][3 + j];   /* stored: the rotation */
    }
}

/* kappa Mhat^-1 H^T of one side's rows (an active contact's only: the
 * Delassus block's) */
static rc_status side_mass(rc_world *w, int body, double kappa, double H[3][6], double MH[3][6])
{
    const rc_body *bd = &w->bodies[body];
    memcpy(MH, H, 3 * sizeof H[0]);
    RC_CHECK(rcm_body_ops_of(bd)->solve_mass(w, bd, &MH[0][0], 3));
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 6; j++) MH[k][j] *= kappa;
    return RC_OK;
}

/* W = sum over the sides of H (kappa Mhat^-1 H^T) */
static void delassus(rcm_contact3 *c, double Ha[3][6], double Hb[3][6], double MHa[3][6], double MHb[3][6])
{
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) {
            double s = 0.0;
            for (int j = 0; j < 6; j++) s += Hb[r][j] * MHb[k][j];
            if (c->body_a >= 0)
                for (int j = 0; j < 6; j++) s += Ha[r][j] * MHa[k][j];
            c->W[3 * r + k] = s;
        }
    /* W^-1, for the stick case of every sweep's local solve (one elimination
     * for the three columns) */
    c->winv_ok = rcn_inverse3(c->W, c->Winv);   /* not written when W is singular */
}

/* the built-in law's shift on (N, T1, T2) (eq. 96 / 101) and the closing term */
static void shift3(const rci_step *st, const rc_law *law, rcm_contact3 *c, double extra)
{
    double ul1[2] = { c->uk[0], c->uk[1] }, ul2[2] = { c->uk[0], c->uk[2] }, s1[2], s2[2];
    if (st->scheme->preimpact) {
        st->scheme->preimpact(st, law, ul1);
        st->scheme->preimpact(st, law, ul2);
    }
    rcm_law_builtin_shift(law, st->scheme->unknown, st->theta, ul1, s1);
    rcm_law_builtin_shift(law, st->scheme->unknown, st->theta, ul2, s2);
    c->shift[0] = s1[0] + extra;
    c->shift[1] = s1[1];
    c->shift[2] = s2[1];
}

/* rows, index set, local problem of every contact; |b|^2 summed */
static rc_status assemble(rci_step *st, double *b2)
{
    rc_world *w = st->w;
    rcm_c3 *c3 = w->c3;
    const int anticipate = w->sim.activation == RC_ACTIVATE_ANTICIPATE;
    const double band = w->sim.persist_tol + 2.0 * st->h * w->sim.solver.tol;
    c3->nactive = 0;
    c3->kappa = st->kappa;   /* rcn_contact3_apply rebuilds kappa Mhat^-1 H^T with it */
    RC_CHECK(rci_drill_begin(st));   /* Coulomb--Contensou rows (contacts3_drill.c) */
    for (int i = 0; i < c3->n; i++) {
        rcm_contact3 *c = &c3->c[i];
        const rc_law *law = &w->laws[c->law];
        double Ha[3][6], Hb[3][6], MHa[3][6], MHb[3][6];   /* not stored (model/contact3.h) */
        side_rows(w, c->body_b, c->pb, c, 1.0, Hb);
        if (c->body_a >= 0) side_rows(w, c->body_a, c->pa, c, -1.0, Ha);
        memset(c->shift, 0, sizeof c->shift);
        rcn_contact3_velocity(w, c, st->vk, c->uk);   /* u_k (shift 0) */
        if (!law->closed_form) rci_law3_uold(st, law, c);   /* contacts3_law.c */
        const double trigger = anticipate ? c->gN + w->sim.gamma * st->h * c->uk[0] : c->gN;
        const int in_rule = trigger <= 0.0 && (anticipate || c->uk[0] <= 0.0);
        const int persisting = !in_rule && c->p[0] != 0.0 && trigger <= band;
        c->active = in_rule || persisting;
        if (!c->active) { c->p[0] = c->p[1] = c->p[2] = 0.0; continue; }
        c3->nactive++;
        RC_CHECK(side_mass(w, c->body_b, st->kappa, Hb, MHb));
        if (c->body_a >= 0) RC_CHECK(side_mass(w, c->body_a, st->kappa, Ha, MHa));
        delassus(c, Ha, Hb, MHa, MHb);
        if (law->closed_form) shift3(st, law, c, persisting && c->gN > 0.0 ? c->gN / st->h : 0.0);
        else c->shift[0] = persisting && c->gN > 0.0 ? c->gN / st->h : 0.0;   /* the law's xi makes the rest */
        double u0[3];
        rcn_contact3_velocity(w, c, w->V, u0);
        *b2 += u0[0] * u0[0] + u0[1] * u0[1] + u0[2] * u0[2];
        if (!w->sim.solver.warm_start) c->p[0] = c->p[1] = c->p[2] = 0.0;
        if (law->closed_form) rcm_fc3d_project(law->def.mu, c->p);
        if (law->def.radius > 0.0) RC_CHECK(rci_drill_assemble(st, i, b2));
    }
    return RC_OK;
}

rc_status rci_contacts3_solve(rci_step *st)
{
    rc_world *w = st->w;
    rcm_c3 *c3 = w->c3;
    RC_CHECK(rcc_detect3(w, margin3(st)));
    double b2 = 0.0, res = 0.0;
    RC_CHECK(assemble(st, &b2));
    RC_CHECK(rci_joints3_assemble(st, &b2));   /* 3D joints (joints3.c): warm started into V */
    for (int i = 0; i < c3->n; i++)   /* warm start */
        if (c3->ndrill && c3->d[i].on) {
            const double p4[4] = { c3->c[i].p[0], c3->c[i].p[1], c3->c[i].p[2], c3->d[i].p };
            rcn_drill_apply(w, &c3->c[i], &c3->d[i], w->V, p4);
        } else if (c3->c[i].active) rcn_contact3_apply(w, &c3->c[i], w->V, c3->c[i].p);
    int iters = 0;
    const long fb0 = w->stats.newton_fallbacks;
    struct timespec c0, c1;   /* the 3D solve's CPU time in stats.solver_cpu_s too */
    c3->solves = 0;           /* NSGS3's one-contact solves (Newton's fallback included) */
    c3->shared = 0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    const rc_status s = w->sim.solver.method == RC_SOLVER_NEWTON ? rcn_newton3(w, w->V, sqrt(b2), &res, &iters)
                                                                 : rcn_nsgs3(w, w->V, sqrt(b2), &res, &iters);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    if (!st->exploring) {   /* the run's figures, as rci_stage_solve keeps them for planar contacts */
        w->stats.solver_cpu_s += (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        w->stats.local_solves += c3->solves;
        w->stats.parallel_steps += c3->shared;
    }
    if (w->stats.newton_fallbacks > fb0) st->fallback = 1;
    RC_CHECK(s);
    if (!(res <= st->res)) st->res = res;
    if (iters > st->iters) st->iters = iters;
    st->converged = st->res <= w->sim.solver.tol;
    return RC_OK;
}

/* "contact ID (A / B, feature F, residual R)": the 3D contact of index i
 * of this step, its residual the last solve's (rcn_nsgs3's worst) */
void rci_describe_contact3(const rc_world *w, int i, char *buf, size_t n)
{
    const rcm_contact3 *c = &w->c3->c[i];
    char a[64], b[64];
    snprintf(buf, n, "contact %d (%s / %s, feature %d, residual %.3e)", c->id,
             rci_body_label(w, c->body_a, a, sizeof a), rci_body_label(w, c->body_b, b, sizeof b), c->feature,
             w->c3->worst_res);
}

/* eq. (68) per contact after the update (vth = v_{k+theta}); the contacts
 * become the last step's */
rc_status rci_contacts3_audit(rci_step *st, const double *vth, rci_audit *a)
{
    rc_world *w = st->w;
    rcm_c3 *c3 = w->c3;
    RC_CHECK(rci_joints3_audit(st, vth, a));   /* 3D joints: W_J, project_joints (joints3.c) */
    for (int i = 0; i < c3->n; i++) {
        rcm_contact3 *c = &c3->c[i];
        double sh[3], uth[3];
        memcpy(sh, c->shift, sizeof sh);
        memset(c->shift, 0, sizeof c->shift);
        rcn_contact3_velocity(w, c, w->v, c->u);
        rcn_contact3_velocity(w, c, vth, uth);
        memcpy(c->shift, sh, sizeof sh);
        if (!c->active) continue;
        double WT = uth[1] * c->p[1] + uth[2] * c->p[2];
        const double WN = uth[0] * c->p[0];
        if (c3->ndrill && c3->d[i].on) WT += rci_drill_audit(w, c, &c3->d[i], vth);   /* drilling work */
        a->W_N += WN;
        a->W_T += WT;
        if (WT > a->WT_max_pos) a->WT_max_pos = WT;
        if (WT < a->WT_min_neg) a->WT_min_neg = WT;
        if (!a->have_cw || WN + WT > a->max_cw) { a->max_cw = WN + WT; a->have_cw = 1; a->max_cw_id = c->id; }
    }
    RC_CHECK(rci_contacts3_update(st, vth));   /* the laws' per-contact state (contacts3_law.c) */
    return rcm_c3_save(w);
}
