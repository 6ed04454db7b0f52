/* scheme.c -- one time step of the Moreau--Jean theta-scheme (eq. 61) and of
 * the Moreau--Jean--Fremond scheme (eqs. 72-73), Acary & Collins-Craft 2024.
 *
 * Both schemes share everything but the problem assembly (section 4):
 *   Moreau--Jean (eqs. 92-96):   unknown V = v_{k+1},
 *       V_0 = Mhat^-1 [M v_k + h F_{k+theta}]          (rigid bodies: K = C = 0)
 *       W = H Mhat^-1 H^T,        shift_N = e u_N,k               (eq. 96)
 *   Moreau--Jean--Fremond (eqs. 97-101): unknown V = v_{k+theta},
 *       V_0 = Mhat^-1 [M v_k + h theta F_{k+theta}]  = (1-theta) v_k + theta v_free
 *       W = theta H Mhat^-1 H^T,  shift_N = (theta (1 + e) - 1) u_N,k  (eq. 101)
 * so the solver sees  u = W p + b, b = H V_0 + shift, and the Coulomb cone in
 * the De Saxce form for the shifted velocity. With theta = 1 both
 * assemblies are the same floating-point operations (bit-identical runs).
 *
 * H = H(q_k) for the whole step (eq. 61c) for the contacts, H(q*) for the
 * joints' rows (q* predicted, rc_sim_joint_jacobian); index set eq. (64) or its
 * anticipated form; q_{k+1} = q_k + h v_{k+theta} (eq. 61b). The energy
 * audit follows eqs. (65)-(68).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "integrate/integrate.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* The anticipating index set activates a contact whose gap is up to
 * gamma h |u_N,k|: detection must reach that far. |u_N| of a pair is at most
 * the sum of the speeds of its two shapes' points, |v| + |omega| bound each. */
static double detection_margin(const rc_world *w)
{
    double m = w->def.contact_margin, s = 0.0;
    if (w->sim.activation != RC_ACTIVATE_ANTICIPATE || w->sim.scheme == RC_SCHEME_MAURY) return m;
    for (int i = 0; i < w->nshapes; i++) {
        const rc_shape *sh = &w->shapes[i];
        if (sh->body == RC_GROUND || w->bodies[sh->body].kind != RC_BODY_RIGID2D) continue;
        const double *v = w->v + w->bodies[sh->body].iv;
        s = fmax(s, hypot(v[0], v[1]) + fabs(v[2]) * sh->bound);
    }
    const double a = w->sim.gamma * w->sim.h * 2.0 * s;
    return a > m ? a : m;
}

static const char *body_label(const rc_world *w, int b, char *buf, size_t n)
{
    if (b == RC_GROUND) snprintf(buf, n, "ground");
    else if (rcm_body_name_of(w, b)) snprintf(buf, n, "%s", rcm_body_name_of(w, b));
    else snprintf(buf, n, "body %d", b);
    return buf;
}

static void describe_contact(const rc_world *w, int ci, char *buf, size_t n)
{
    if (ci <= -2) {
        const rc_joint *j = &w->joints[-2 - ci];
        snprintf(buf, n, "joint %d%s%s%s (residual %.3e)", -2 - ci, j->name ? " '" : "", j->name ? j->name : "",
                 j->name ? "'" : "", j->res);
        return;
    }
    if (ci < 0) { snprintf(buf, n, "none"); return; }
    const rc_contact *c = &w->contacts[ci];
    char a[64], b[64];
    snprintf(buf, n, "contact %d (%s / %s, feature %d, residual %.3e)", c->id,
             body_label(w, c->body_a, a, sizeof a), body_label(w, c->body_b, b, sizeof b), c->feature, c->res);
}

/* The body whose coordinates (position: iq, nq; velocity: iv, nv) hold
 * index i of q or v; k: the coordinate within the body. */
static int body_of_index(const rc_world *w, int i, int position, int *k)
{
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        const int i0 = position ? bd->iq : bd->iv, n = position ? bd->nq : bd->nv;
        if (i >= i0 && i < i0 + n) { *k = i - i0; return b; }
    }
    *k = i;
    return -1;
}

/* "step diverged ...: non-finite velocity v[k] of body B (...)": the step fails
 * (the caller leaves or restores the state of t_k) */
static rc_status nonfinite_state(const rc_world *w, int i, int position, double x)
{
    int k, b = body_of_index(w, i, position, &k);
    char name[64];
    return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite %s %s[%d] = %g of %s; the state is left at t = %.17g",
                        w->t + w->sim.h, w->step + 1, position ? "position" : "velocity", position ? "q" : "v", k + 1, x,
                        b >= 0 ? body_label(w, b, name, sizeof name) : "(no body)", w->t);
}

/* The solution of step 5: every impulse, joint multiplier and velocity finite,
 * and the residual a number (a NaN residual would pass for converged nowhere
 * and be lost in the statistics). */
static rc_status check_solution(rc_world *w, int worst, double res, int iters)
{
    for (int k = 0; k < w->nactive; k++) {
        const int i = w->active[k];
        const rc_contact *c = &w->contacts[i];
        if (rcb_finite(c->p[0]) && rcb_finite(c->p[1])) continue;
        char cd[256];
        describe_contact(w, i, cd, sizeof cd);
        return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite impulse (pN = %g, pT = %g) at %s; the state is left at t = %.17g",
                            w->t + w->sim.h, w->step + 1, c->p[0], c->p[1], cd, w->t);
    }
    for (int j = 0; j < w->njoints; j++)
        for (int r = 0; r < w->joints[j].rows; r++)
            if (!rcb_finite(w->joints[j].lambda[r])) {
                char cd[256];
                describe_contact(w, -2 - j, cd, sizeof cd);
                return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite impulse at %s; the state is left at t = %.17g",
                                    w->t + w->sim.h, w->step + 1, cd, w->t);
            }
    for (int i = 0; i < w->nv; i++)
        if (!rcb_finite(w->V[i])) {
            char cd[256];
            describe_contact(w, worst, cd, sizeof cd);
            int k, b = body_of_index(w, i, 0, &k);
            char name[64];
            return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): non-finite velocity v[%d] = %g of %s; worst %s; solver residual %.3e after %d sweeps; the state is left at t = %.17g",
                                w->t + w->sim.h, w->step + 1, k + 1, w->V[i], b >= 0 ? body_label(w, b, name, sizeof name) : "(no body)",
                                cd, res, iters, w->t);
        }
    if (!rcb_finite(res)) {
        char cd[256];
        describe_contact(w, worst, cd, sizeof cd);
        return rc_set_error(RC_ERR_NUMERIC, "step diverged at t = %.17g (step %ld): solver residual %g after %d sweeps; worst %s; the state is left at t = %.17g",
                            w->t + w->sim.h, w->step + 1, res, iters, cd, w->t);
    }
    return RC_OK;
}

/* The first index of q (position = 1) or v (0) that is not finite, or -1:
 * one branch-free pass (inf - inf and NaN - NaN are NaN). */
static int first_nonfinite(const double *x, int n)
{
    double acc = 0.0;
    for (int i = 0; i < n; i++) acc += x[i] - x[i];
    if (acc == 0.0) return -1;
    for (int i = 0; i < n; i++) if (!rcb_finite(x[i])) return i;
    return -1;
}

static double explore_uniform(rc_world *w)   /* xorshift64, per world */
{
    uint64_t x = w->explore_rng;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    w->explore_rng = x;
    return (double)(x >> 11) * 0x1.0p-53;
}

static rc_status world_step(rc_world *w);

/* One step; with joints, the state is first moved onto them when it was set
 * from outside (rcm_joints_start), and put back if the step then fails. */
rc_status rc_world_step(rc_world *w)
{
    if (!w || !w->njoints || w->explore) return world_step(w);
    for (int i = 0; i < w->njoints; i++) {   /* this step's projection impulses and start work */
        memset(w->joints[i].mu_v, 0, sizeof w->joints[i].mu_v);
        w->joints[i].wstart = 0.0;
    }
    w->start_W_q = 0.0;
    if (!w->joints_fresh || !w->configured || rc_interrupt_requested()) return world_step(w);
    RC_CHECK(rcm_world_reserve_dofs(w));
    memcpy(w->qpre, w->q, (size_t)w->nq * sizeof(double));
    memcpy(w->vpre, w->v, (size_t)w->nv * sizeof(double));
    const long step = w->step;
    rc_status s = rcm_joints_start(w, &w->start_W_q);
    if (s == RC_OK) s = world_step(w);
    if (w->step == step) {   /* failed (RC_ERR_IO comes after the step: kept) */
        memcpy(w->q, w->qpre, (size_t)w->nq * sizeof(double));
        memcpy(w->v, w->vpre, (size_t)w->nv * sizeof(double));
        for (int i = 0; i < w->njoints; i++) {
            memset(w->joints[i].mu_v, 0, sizeof w->joints[i].mu_v);
            w->joints[i].wstart = 0.0;
        }
        w->start_W_q = 0.0;
        return s;
    }
    w->joints_fresh = 0;
    return s;
}

static rc_status world_step(rc_world *w)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_step: world is NULL");
    if (!w->configured) return rc_set_error(RC_ERR_STATE, "rc_world_step: call rc_world_configure first");
    if (rc_interrupt_requested()) {
        const char *sig = rc_signal_name(rc_interrupt_signal());
        return rc_set_error(RC_ERR_INTERRUPTED, "interrupted%s%s at t = %.17g (step %ld)",
                            sig ? " by " : "", sig ? sig : "", w->t, w->step);
    }
    RC_CHECK(rcm_world_reserve_dofs(w));
    rcm_world_trim_model(w);

    const double h = w->sim.h, theta = w->sim.theta, t_next = rcm_time_at(w, 1.0);
    const int fremond = w->sim.scheme == RC_SCHEME_MOREAU_JEAN_FREMOND;
    const int maury = w->sim.scheme == RC_SCHEME_MAURY;
    const double kappa = fremond ? theta : 1.0;
    w->kappa = kappa;
    const double *g = w->def.gravity;
    const int nv = w->nv;

    /* periodic boundary: bodies moved by the user back into the cell */
    rcc_wrap(w);
    /* state at t_k: copied when something after the update may fail (so that
     * a failed step leaves it untouched) or reads it; otherwise q and v are
     * q_k, v_k until the update, which overwrites them in place */
    const int keep = rcm_world_keeps_state(w);
    if (keep && nv > 0) {   /* (a world without bodies has no arrays: no memcpy from NULL) */
        memcpy(w->q0, w->q, (size_t)w->nq * sizeof(double));
        memcpy(w->v0, w->v, (size_t)nv * sizeof(double));
    }
    const double *vk = keep ? w->v0 : w->v;   /* v_k until the update */

    /* 1. smooth forces at t_{k+theta} (none: w->f is not used) */
    const int have_f = rcm_world_has_forces(w);
    rc_status s = have_f ? rci_step_forces(w, rcm_time_at(w, theta)) : RC_OK;
    if (s != RC_OK) return s;

    /* 2. contact detection at q_k; ids and warm start from the last step */
    w->detect_margin = detection_margin(w);
    rcc_update_shapes(w);
    s = rcc_detect(w);
    if (s == RC_OK) s = rcm_gaps_detect(w);
    if (s == RC_OK) s = rci_step_match_contacts(w);
    if (s == RC_OK) s = rci_step_reserve_state(w);
    if (s != RC_OK) return s;
    if (w->step == 0 && !w->explore) {   /* grains placed overlapping: say which */
        int reported = 0;
        for (int i = 0; i < w->ncontacts && reported < 10; i++) {
            const rc_contact *c = &w->contacts[i];
            if (c->gap >= 0 || c->body_a == RC_GROUND) continue;
            double size = fmin(w->shapes[c->shape_a].bound, w->shapes[c->shape_b].bound);
            if (c->gN < -1e-3 * size) {
                char a[64], b[64];
                rcm_world_warn(w, "initial overlap: %s and %s overlap by %.3g (shapes %d and %d)",
                              body_label(w, c->body_a, a, sizeof a), body_label(w, c->body_b, b, sizeof b),
                              -c->gN, c->shape_a, c->shape_b);
                reported++;
            }
        }
    }

    /* 3. free velocity (rigid: Mhat = M) and the solver's starting velocity */
    for (int b = 0; b < w->nbodies; b++) {
        static const double zero3[3];
        const rc_body *bd = &w->bodies[b];
        const double *v = vk + bd->iv, *f = have_f ? w->f + bd->iv : zero3;
        double *V0 = w->V + bd->iv;
        if (bd->kind == RC_BODY_LINEAR) {   /* eqs. (92)-(95) / (97)-(100) with the factor of Mhat */
            s = rcm_linear_free_velocity(w, &w->linears[bd->linear], fremond, f, V0);
            if (s != RC_OK) return s;
            continue;
        }
        const double m = rcm_body_mass(w, bd);
        double vf[3] = { v[0] + h * bd->inv_mass * (f[0] + m * g[0]),
                         v[1] + h * bd->inv_mass * (f[1] + m * g[1]),
                         v[2] + h * bd->inv_inertia * f[2] };
        for (int j = 0; j < 3; j++) V0[j] = fremond ? (1.0 - theta) * v[j] + theta * vf[j] : vf[j];
    }

    /* 4. index set (eq. 64) and the local problems */
    s = rcb_reserve((void **)&w->active, &w->cap_active, w->ncontacts, sizeof(int));
    if (s != RC_OK) return s;
    w->nactive = 0;
    w->contact_b2 = 0.0;
    /* the persistence band: what a resting contact can open in one step at the
     * solver's tolerance (the last step's residual if it stopped short of it),
     * |u_N| <= max(tol, r) (1 + |b|) by the residual's definition, so h |u_N|
     * of gap and gamma h |u_N| more in the anticipated trigger; never below
     * persist_tol (round-off) */
    const double band = fmax(w->sim.persist_tol, w->persist_band);
    for (int i = 0; i < w->ncontacts; i++) {
        rc_contact *c = &w->contacts[i];
        double uk[2];
        body_velocity_dot(w, c, vk, uk);
        /* the index set: eq. (64), g_N(q_k) <= 0 and u_N,k <= 0 ("gap"), or
         * Siconos's MoreauJeanOSI, g_N(q_k) + gamma h u_N,k <= 0 alone
         * ("anticipate": no sign condition, so that round-off in u_N,k does
         * not drop an overlapping contact); a contact that carried a normal
         * impulse in the last step (a resting or sliding contact) stays in
         * it while the same trigger is <= band, even if u_N,k > 0 by
         * the solver tolerance or g_N > 0 by round-off: resting contacts do
         * not flicker */
        const int anticipate = w->sim.activation == RC_ACTIVATE_ANTICIPATE;
        const double trigger = anticipate ? c->gN + w->sim.gamma * h * uk[0] : c->gN;
        const int in_rule = trigger <= 0.0 && (anticipate || uk[0] <= 0.0);
        const int persisting = !in_rule && !maury && c->p[0] != 0.0 && trigger <= band;
        c->active = in_rule || persisting || maury;   /* Maury: every detected pair, g_N(q_k) + h u_N >= 0 */
        c->res = 0.0;
        /* What a built-in impact law sees (ours, not in the papers).
         * MJF: a separating contact (u_N,k > 0) has no impact to restitute,
         * its pre-impact velocity is u_N,k- = min(u_N,k, 0): its work (69)
         * is then ((1 - theta (1 + e)) u_N,k- - ...) p_N <= 0 for every
         * contact of the index set, anticipating or not (Proposition 1;
         * with theta (1 + e) >= 1 Newton's own shift already has that sign
         * for u_N,k > 0 and is kept: theta = 1 stays Moreau--Jean bit for
         * bit).
         * Newton's shift (theta (1 + e) - 1) u_N,k on a separating contact
         * let u_{k+theta} > 0 with p_N > 0 and created energy (issue 11:
         * +3.8e-6 J in one step of a disk 1e-4 in the floor moving up at
         * 4 mm/s). Moreau--Jean keeps Newton's e u_N,k (Siconos's law; its
         * work (1 - theta (1 + e)) u_N,k p_N has no sign, section 3.1; the
         * zero-work form u_{k+theta} >= 0 sets u_{k+1} = -u_k at theta = 1/2
         * and resting contacts then alternate, p_N x1, x2, x1, ...).
         * A persisting contact (in the index set only by the persistence
         * rule) with g_N > 0 may also close its gap, and no more: its shift
         * gets g_N / h (on u_{k+theta} under MJF: closed in one step; on
         * u_{k+1} under MJ: in two at e = 0), so that resting contacts opened
         * by the solver's tolerance close again instead of the openings
         * accumulating; the extra work -g_N p_N / h is <= 0. */
        double ul[2] = { uk[0], uk[1] }, extra = 0.0;
        if (c->active && !maury && w->laws[c->law].def.type != RC_LAW_CUSTOM) {
            const double e = w->laws[c->law].def.e;
            if (fremond && uk[0] > 0.0 && theta * (1.0 + e) < 1.0) ul[0] = 0.0;
            if (persisting && c->gN > 0.0) extra = c->gN / h;
        }
        if (c->aux) {
            c->aux->uk[0] = ul[0]; c->aux->uk[1] = ul[1];
            c->aux->jvalid = 0;
        }
        if (!c->active) { c->p[0] = c->p[1] = 0.0; continue; }
        w->active[w->nactive++] = i;
        if (c->gap >= 0) {
            s = rcm_gap_assemble(w, c, kappa);
            if (s != RC_OK) return s;
            goto shift;
        }
        const rc_body *bb = &w->bodies[c->body_b];
        const double mb[3] = { kappa * bb->inv_mass, kappa * bb->inv_mass, kappa * bb->inv_inertia };
        double ma[3] = { 0.0, 0.0, 0.0 };
        if (c->body_a != RC_GROUND) {
            const rc_body *ba = &w->bodies[c->body_a];
            ma[0] = ma[1] = kappa * ba->inv_mass;
            ma[2] = kappa * ba->inv_inertia;
        }
        double Ha[2][3], Hb[2][3];
        rcm_contact_jacobian(c, Ha, Hb);
        for (int r = 0; r < 2; r++)   /* W = H kappa M^-1 H^T (eq. 94 / 99), M diagonal */
            for (int k = 0; k < 2; k++) {
                double sum = 0.0;
                for (int j = 0; j < 3; j++) sum += Hb[r][j] * mb[j] * Hb[k][j] + Ha[r][j] * ma[j] * Ha[k][j];
                c->W[r][k] = sum;
            }
    shift:;
        /* the affine term: Maury's scheme owns it for every law (eq. 14:
         * D(q_k)/h + G.u >= 0, the law sees u_N + g_N/h); otherwise the impact
         * law's (eq. 96 / 101), which custom laws keep in their xi */
        const rc_law *law = &w->laws[c->law];
        if (maury) {
            c->shift[0] = c->gN / h;
            c->shift[1] = 0.0;
        } else if (law->closed_form) {
            rcm_law_builtin_shift(law, fremond ? RC_UNKNOWN_THETA : RC_UNKNOWN_END, theta, ul, c->shift);
            c->shift[0] += extra;
        } else {   /* xi(u + shift, u_old): built-in laws solved generically see the same */
            c->shift[0] = extra;
            c->shift[1] = 0.0;
        }
        double u0[2];   /* b = u(p = 0) + shift: only |b| is kept, for the residual's scale */
        body_velocity_dot(w, c, w->V, u0);
        const double b0 = u0[0] + c->shift[0], b1 = u0[1] + c->shift[1];
        w->contact_b2 += b0 * b0 + b1 * b1;
        if (!w->sim.solver.warm_start || (w->explore && (w->explore->zero_guess || w->explore->random_guess))) {
            c->p[0] = c->p[1] = 0.0;
        }
        if (w->explore && w->explore->random_guess && law->closed_form) {   /* explorer: a random start */
            double r1 = explore_uniform(w), r2 = explore_uniform(w);
            const rc_explore_def *ed = w->explore;
            c->p[0] = r1 * (i < ed->nguess_scales ? ed->guess_scales[i] : ed->guess_scale);
            c->p[1] = (2.0 * r2 - 1.0) * law->def.mu * c->p[0];
        }
        if (law->closed_form) rcm_fc2d_project(law->def.mu, c->p);
        else if (law->ops.dim == 1) c->p[1] = 0.0;
    }
    /* the joints' equality rows, assembled at the predicted q* with V_0
     * (eq. 61 with bilateral rows; Bruls et al. 2014 eq. 50c) */
    s = rcm_joints_assemble(w, kappa);
    if (s != RC_OK) return s;
    for (int i = 0; i < w->njoints; i++) {   /* their warm start */
        const rc_joint *j = &w->joints[i];
        double *vb = w->V + w->bodies[j->def.body_b].iv;
        double *va = j->def.body_a == RC_GROUND ? NULL : w->V + w->bodies[j->def.body_a].iv;
        for (int r = 0; r < j->rows; r++)
            for (int c = 0; c < 3; c++) {
                vb[c] += j->MHb[r][c] * j->lambda[r];
                if (va) va[c] += j->MHa[r][c] * j->lambda[r];
            }
    }
    /* warm start: V = V_0 + kappa Mhat^-1 H^T p_prev */
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        if (c->p[0] == 0.0 && c->p[1] == 0.0) continue;
        if (c->gap >= 0) { rcm_gap_apply(w, c, w->V, c->p); continue; }
        rcm_contact_apply(w, c, w->V, c->p);
    }

    /* 5. solve */
    double res = 0.0;
    int worst = -1, iters = 0;
    if (w->nactive || w->njoints) {
        struct timespec c0, c1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        s = w->sim.solver.method == RC_SOLVER_UZAWA ? rcn_uzawa_solve(w, &iters, &res, &worst)
                                                    : rcn_nsgs_solve(w, &iters, &res, &worst);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        w->stats.solver_cpu_s += (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        if (s != RC_OK) return s;
        /* the solvers stop sweeping on an interrupt (a long solve is not
         * waited for): the step fails as on a solver failure, before the update */
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the solver after %d sweeps)",
                                w->t, w->step + 1, iters);
    }
    s = check_solution(w, worst, res, iters);
    if (s != RC_OK) return s;
    const int converged = res <= w->sim.solver.tol;
    if (!converged) {
        char cd[256];
        describe_contact(w, worst, cd, sizeof cd);
        if (w->sim.solver.on_fail == RC_ON_FAIL_ERROR) {
            s = rc_set_error(RC_ERR_SOLVER, "solver did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e after %d sweeps; worst %s",
                             t_next, w->step + 1, res, w->sim.solver.tol, iters, cd);
            return s;
        }
        rcm_world_warn(w, "solver did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e after %d sweeps; worst %s",
                      t_next, w->step + 1, res, w->sim.solver.tol, iters, cd);
    }

    if (w->explore) {   /* explorer: report the impulses, leave the state as it was */
        int n = w->ncontacts < w->explore_cap ? w->ncontacts : w->explore_cap;
        for (int i = 0; i < n; i++) {
            w->explore_out[2 * i] = w->contacts[i].p[0];
            w->explore_out[2 * i + 1] = w->contacts[i].p[1];
        }
        w->explore_iters = iters;
        w->explore_res = res;
        w->explore_converged = converged;
        for (int i = 0; i < w->ncontacts; i++)   /* the solution's relative velocities, H V */
            body_velocity_dot(w, &w->contacts[i], w->V, w->contacts[i].u);
        w->explore_n = w->ncontacts;   /* the state (w->rec) is untouched */
        return RC_OK;
    }

    /* 6. update: v_{k+1}, q_{k+1} = q_k + h v_{k+theta}; w->V becomes v_{k+theta}
     * (Moreau--Jean--Fremond: it is already) */
    double *vth = w->V;
    double Ek0, Ep0, Ek1, Ep1, E_el, W_theta = 0.0;
    if (keep) {
        if (fremond) {
            for (int i = 0; i < nv; i++) w->v[i] = (w->V[i] - (1.0 - theta) * w->v0[i]) / theta;
        } else {
            for (int i = 0; i < nv; i++) {
                const double V = w->V[i];
                w->v[i] = V;
                vth[i] = (1.0 - theta) * w->v0[i] + theta * V;
            }
        }
        for (int b = 0; b < w->nbodies; b++) {
            const rc_body *bd = &w->bodies[b];
            for (int j = 0; j < bd->nq; j++) w->q[bd->iq + j] = w->q0[bd->iq + j] + h * vth[bd->iv + j];
        }
        rcm_energy(w, w->q0, w->v0, &Ek0, &Ep0, NULL);
    } else {   /* rigid bodies only (iq = iv = 3 b): in place, with ||dv||_M^2 in the same order */
        {   /* first a pass that only checks: a non-finite v_{k+1} or q_{k+1} fails the step,
               q_k and v_k untouched (the same expressions as the update below) */
            double acc = 0.0;
            for (int i = 0; i < nv; i++) {
                const double V = w->V[i], v0 = w->v[i];
                const double v1 = fremond ? (V - (1.0 - theta) * v0) / theta : V;
                const double q1 = w->q[i] + h * (fremond ? V : (1.0 - theta) * v0 + theta * V);
                acc += (v1 - v1) + (q1 - q1);
            }
            if (acc != 0.0)
                for (int i = 0; i < nv; i++) {
                    const double V = w->V[i], v0 = w->v[i];
                    const double v1 = fremond ? (V - (1.0 - theta) * v0) / theta : V;
                    const double q1 = w->q[i] + h * (fremond ? V : (1.0 - theta) * v0 + theta * V);
                    if (!rcb_finite(v1)) return nonfinite_state(w, i, 0, v1);
                    if (!rcb_finite(q1)) return nonfinite_state(w, i, 1, q1);
                }
        }
        rcm_energy(w, w->q, w->v, &Ek0, &Ep0, NULL);
        const double *md = w->mass_diag;
        for (int i = 0; i < nv; i++) {
            const double V = w->V[i], v0 = w->v[i];
            const double v1 = fremond ? (V - (1.0 - theta) * v0) / theta : V;
            if (!fremond) vth[i] = (1.0 - theta) * v0 + theta * V;
            w->v[i] = v1;
            w->q[i] = w->q[i] + h * vth[i];
            const double dv = v1 - v0;
            W_theta += md[i] * dv * dv;
        }
    }

    /* 7. audit, eqs. (65)-(68) */
    rcm_energy(w, w->q, w->v, &Ek1, &Ep1, &E_el);
    double W_J = 0.0;
    for (int i = 0; i < w->njoints; i++) {   /* work of the joint impulses, u_{k+theta}^T lambda */
        rc_joint *j = &w->joints[i];
        const double *vb = vth + w->bodies[j->def.body_b].iv;
        const double *va = j->def.body_a == RC_GROUND ? NULL : vth + w->bodies[j->def.body_a].iv;
        j->work = j->wstart;   /* the start's impulse (rcm_joints_start), then u_{k+theta}^T lambda */
        for (int r = 0; r < j->rows; r++) {
            double u = j->Hb[r][0] * vb[0] + j->Hb[r][1] * vb[1] + j->Hb[r][2] * vb[2];
            if (va) u += j->Ha[r][0] * va[0] + j->Ha[r][1] * va[1] + j->Ha[r][2] * va[2];
            j->work += u * j->lambda[r];
        }
        W_J += j->work;
    }
    double E_spring = 0.0;
    if (w->nsprings) rcm_springs_forces(w, NULL, &E_spring);
    double W_ext = 0.0, W_damp = 0.0;   /* no forces: W_ext = 0 (a sum of +-0) */
    if (have_f)
        for (int i = 0; i < nv; i++) W_ext += h * vth[i] * w->f[i];   /* eq. (66) */
    for (int b = 0; keep && b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        if (bd->kind == RC_BODY_LINEAR) {   /* ||dv||_M^2 + ||dq||_K^2 and eq. (67) */
            double norms, wd;
            rcm_linear_step_terms(w, &w->linears[bd->linear], vth, &norms, &wd);
            W_theta += norms;
            W_damp += wd;
            continue;
        }
        for (int j = 0; j < 3; j++) {
            double dv = w->v[bd->iv + j] - w->v0[bd->iv + j];
            W_theta += w->mass_diag[bd->iv + j] * dv * dv;
        }
    }
    W_theta *= 0.5 - theta;
    /* the joints' position drift, projected away (its energy change is W_proj) */
    double W_proj = w->start_W_q, E_proj = w->start_W_q, pos_viol = 0.0, vel_viol = 0.0;   /* a start's positions */
    if (w->njoints) {
        if (w->sim.project_joints) {
            int pit;
            rcm_joints_energy_before(w);
            s = rcm_joints_project(w, t_next, &pit);
            if (s == RC_OK) s = rcm_joints_project_velocity(w, t_next);
            if (s != RC_OK) goto restore;
            double Ek2, Ep2;
            rcm_energy(w, w->q, w->v, &Ek2, &Ep2, NULL);
            E_proj += (Ek2 + Ep2) - (Ek1 + Ep1);   /* before the rescaling gives it back */
            rcm_joints_restore_energy(w);
            rcm_energy(w, w->q, w->v, &Ek2, &Ep2, NULL);
            W_proj += (Ek2 + Ep2) - (Ek1 + Ep1);
            Ek1 = Ek2;
            Ep1 = Ep2;
        }
        s = rcm_joints_report(w, t_next, &pos_viol, &vel_viol);
        if (s != RC_OK) goto restore;
    }
    double W_N = 0.0, W_T = 0.0, max_cw = 0.0;
    int have_cw = 0, max_cw_id = -1;
    long positive = 0;
    double E0 = Ek0 + Ep0 - w->start_W_q;   /* E_k before a start's assembly (rcm_joints_start) */
    for (int i = 0; i < w->njoints; i++) E0 -= w->joints[i].wstart;
    const double work_tol = w->sim.work_tol * (1.0 + fabs(E0));
    for (int i = 0; i < w->ncontacts; i++) {
        rc_contact *c = &w->contacts[i];
        double uth[2];
        body_velocity_dot(w, c, w->v, c->u);
        body_velocity_dot(w, c, vth, uth);
        const rc_law *law = &w->laws[c->law];
        if (law->ops.update) {   /* the law's per-contact state, after the accepted step */
            rc_law_ctx ctx;
            rcn_law_context(w, c, &ctx);
            s = law->ops.update(law->ops.user, &ctx, c->aux->state, fremond ? uth : c->u, c->aux->uk, c->p);
            for (int j = 0; s == RC_OK && j < law->ops.nstate; j++)
                if (!rcb_finite(c->aux->state[j]))
                    s = rc_set_error(RC_ERR_CALLBACK, "law '%s': update left state[%d] non-finite for contact %d at t = %.17g",
                                     law->name ? law->name : "(unnamed)", j + 1, c->id, w->t);
            if (s != RC_OK) goto restore;
        }
        if (!c->active) continue;
        const double WN = uth[0] * c->p[0];   /* eq. (68), normal part (save_contacts keeps it) */
        const double WT = uth[1] * c->p[1];   /* eq. (68), tangential part */
        W_N += WN;
        W_T += WT;
        double cw = WN + WT;
        if (!have_cw || cw > max_cw) { max_cw = cw; have_cw = 1; max_cw_id = c->id; }
        if (cw > work_tol) {         /* thermodynamic admissibility (eqs. 51, 86-89) */
            positive++;
            if (w->sim.work_check != RC_WORK_RECORD) {
                char cd[256];
                describe_contact(w, i, cd, sizeof cd);
                if (w->sim.work_check == RC_WORK_ERROR) {
                    s = rc_set_error(RC_ERR_NUMERIC, "positive contact work %.6e (W_N = %.6e, W_T = %.6e) at t = %.17g (step %ld), %s, law '%s'",
                                     cw, WN, WT, t_next, w->step + 1, cd, law->name ? law->name : "(unnamed)");
                    goto restore;
                }
                rcm_world_warn(w, "positive contact work %.6e (W_N = %.6e, W_T = %.6e) at t = %.17g (step %ld), %s, law '%s'",
                              cw, WN, WT, t_next, w->step + 1, cd, law->name ? law->name : "(unnamed)");
            }
        }
    }

    if (keep) {   /* q_{k+1}, v_{k+1} (after the joints' projection): finite, or back to t_k */
        int i = first_nonfinite(w->v, nv);
        if (i >= 0) { s = nonfinite_state(w, i, 0, w->v[i]); goto restore; }
        i = first_nonfinite(w->q, w->nq);
        if (i >= 0) { s = nonfinite_state(w, i, 1, w->q[i]); goto restore; }
    }
    rci_step_save_contacts(w);   /* the accepted step's contacts become the state */
    w->persist_band = 2.0 * h * fmax(w->sim.solver.tol, res) * (1.0 + sqrt(w->contact_b2));
    rc_step_info *in = &w->info;
    w->t_steps++;
    w->t = t_next;   /* t_origin + t_steps h */
    w->step++;
    in->t = w->t;
    in->step = w->step;
    in->iterations = iters;
    in->residual = res;
    in->converged = converged;
    in->worst_contact = worst >= 0 ? w->contacts[worst].id : -1;   /* joints: see the warning text */
    in->ncontacts = w->ncontacts;
    in->nactive = w->nactive;
    in->E_kin = Ek1;
    in->E_pot = Ep1;
    in->E = Ek1 + Ep1;
    in->W_ext = W_ext;
    in->W_N = W_N;
    in->W_T = W_T;
    in->W_theta = W_theta;
    in->W_J = W_J;
    in->W_proj = W_proj;
    in->W_J_total += W_J;
    in->W_proj_total += W_proj;
    in->persist_band = band;
    in->E_proj = E_proj;
    in->E_proj_total += E_proj;
    in->E_spring = E_spring;
    in->E_elastic = E_el;   /* the joint projection moves rigid bodies only */
    in->joint_pos_violation = pos_viol;
    in->joint_vel_violation = vel_viol;
    in->W_damp = W_damp;
    in->W_damp_total += W_damp;
    in->balance = (in->E - E0) - (W_ext + W_N + W_T + W_J + W_damp + W_theta + W_proj);
    in->W_ext_total += W_ext;
    in->W_N_total += W_N;
    in->W_T_total += W_T;
    in->W_theta_total += W_theta;
    in->max_contact_work = have_cw ? max_cw : 0.0;

    rc_run_stats *st = &w->stats;
    st->steps = w->step;
    if (iters > st->max_iterations) st->max_iterations = iters;
    if (!(res <= st->max_residual)) st->max_residual = res;   /* (a NaN is kept, never lost) */
    if (!converged) st->failures++;
    if (!(fabs(in->balance) <= st->max_abs_balance)) st->max_abs_balance = fabs(in->balance);
    if (st->steps == 1 || in->E - E0 > st->max_energy_increase) {
        st->max_energy_increase = in->E - E0;
        st->t_max_energy_increase = w->t;
    }
    if (have_cw && max_cw > st->max_contact_work) {
        st->max_contact_work = max_cw;
        st->t_max_contact_work = w->t;
        st->contact_max_contact_work = max_cw_id;
    }
    st->positive_work_events += positive;
    if (pos_viol > st->max_joint_pos_violation) st->max_joint_pos_violation = pos_viol;
    if (vel_viol > st->max_joint_vel_violation) st->max_joint_vel_violation = vel_viol;

    rcc_wrap(w);   /* periodic boundary: after the audit (E_wrap keeps E_pot continuous) */
    return rcm_world_after_step(w);   /* the history row (io/output.c) */

restore:    /* a failure after the update: back to the state at t_k (keep is set:
               only joints, laws' updates and work_check "error" come here) */
    if (nv > 0) {
        memcpy(w->q, w->q0, (size_t)w->nq * sizeof(double));
        memcpy(w->v, w->v0, (size_t)nv * sizeof(double));
    }
    return s;   /* the contacts of the state (w->rec) were not touched */
}
