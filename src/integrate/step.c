/* step.c -- one time step as a fixed list of stages (Acary & Collins-Craft
 * 2024, section 4: the schemes of eqs. 61 and 72-73 share everything but the
 * problem assembly):
 *
 *   begin          checks, work arrays, the periodic wrap, q_k and v_k kept
 *   forces         F_{k+theta}                                  (forces.c)
 *   detect         contacts at q_k; ids, warm start, law state from the last step
 *   free velocity  V_0 per body, from the scheme (eq. 92 / 97)
 *   index set      eq. (64) or its anticipated form, persistence; the local
 *                  problems: W = H kappa Mhat^-1 H^T (eq. 94 / 99), the
 *                  scheme's affine term (eq. 96 / 101, Maury's eq. 14)
 *   joints         the equality rows at the predicted q* (eq. 61, Bruls et al.
 *                  2014 eq. 50c)
 *   warm start     V = V_0 + kappa Mhat^-1 H^T p_prev
 *   solve          the solver of the table (nsgs.c), its report, checks
 *   update         the scheme's v_{k+1}, q_{k+1} = q_k + h v_{k+theta} (eq. 61b)
 *   audit          eqs. (65)-(68), the joints' drift and projection, laws' state
 *   commit         the contacts become the state, t = t0 + (k + 1) h, statistics
 *
 * The step writes no file: the caller's observer writes the history row
 * (rc_world_step_observe). The explorer (explore.c) runs begin .. solve with
 * its own guess and leaves the state as it was.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "integrate/integrate.h"
#include "model/team.h"

#include <math.h>
#include <string.h>
#include <time.h>

const rci_scheme *rci_scheme_of(rc_scheme type)
{
    switch (type) {
    case RC_SCHEME_MOREAU_JEAN_FREMOND: return &rci_scheme_moreau_jean_fremond;
    case RC_SCHEME_MAURY: return &rci_scheme_maury;
    case RC_SCHEME_GEN_ALPHA: return &rci_scheme_gen_alpha;
    case RC_SCHEME_MOREAU_JEAN: return &rci_scheme_moreau_jean;
    default: return NULL;
    }
}

const char *rc_scheme_name(rc_scheme scheme)
{
    const rci_scheme *sc = rci_scheme_of(scheme);
    return sc ? sc->name : NULL;
}

/* ---------------------------------------------------------------- stages */

rc_status rci_stage_begin(rci_step *st, rc_world *w)
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

    memset(st, 0, sizeof *st);
    st->w = w;
    st->scheme = rci_scheme_of(w->sim.scheme);
    st->h = w->sim.h;
    st->theta = w->sim.theta;
    st->t_next = rcm_time_at(w, 1.0);
    st->kappa = st->scheme->kappa(&w->sim);
    w->kappa = st->kappa;
    w->unknown = st->scheme->unknown;
    st->worst = -1;
    st->solver = &w->sim.solver;

    /* periodic boundary: bodies moved by the user back into the cell */
    rcc_wrap(w);
    /* state at t_k: copied when something after the update may fail (so that
     * a failed step leaves it untouched) or reads it; otherwise q and v are
     * q_k, v_k until the update, which overwrites them in place */
    st->keep = rcm_world_keeps_state(w);
    if (st->keep && w->nv > 0) {   /* (a world without bodies has no arrays: no memcpy from NULL) */
        memcpy(w->q0, w->q, (size_t)w->nq * sizeof(double));
        memcpy(w->v0, w->v, (size_t)w->nv * sizeof(double));
    }
    st->vk = st->keep ? w->v0 : w->v;
    /* w->f exists when the step's work memory was reserved with forces in
     * the world (rcm_world_work_begin); a body given its first force after
     * that, by a callback of this step (the joints' start calls the
     * prescribed motions), has it applied from the next step on */
    st->have_f = rcm_world_has_forces(w) && w->f != NULL;
    return RC_OK;
}

/* smooth forces at t_{k+theta} (none: w->f is not used) */
rc_status rci_stage_forces(rci_step *st)
{
    return st->have_f ? rci_forces(st->w, rcm_time_at(st->w, st->theta)) : RC_OK;
}

/* The anticipating index set activates a contact whose gap is up to
 * gamma h |u_N,k|: detection must reach that far. |u_N| of a pair is at most
 * the sum of the speeds of its two shapes' points, |v| + |omega| bound each. */
static double detection_margin(const rci_step *st)
{
    const rc_world *w = st->w;
    double m = w->def.contact_margin, s = 0.0;
    if (w->sim.activation != RC_ACTIVATE_ANTICIPATE || st->scheme->every_pair) return m;
    /* (on two threads with the solver's: the largest is the same whatever the threads) */
    RC_OMP(omp parallel for num_threads(2) schedule(static) reduction(max : s) if(rcm_team2(w, w->nshapes)))
    for (int i = 0; i < w->nshapes; i++) {
        const rc_shape *sh = &w->shapes[i];
        if (sh->body == RC_GROUND || w->bodies[sh->body].kind != RC_BODY_RIGID2D) continue;
        const double *v = w->v + w->bodies[sh->body].iv, spin = fabs(v[2]) * sh->bound;
        /* hypot(vx, vy) <= |vx| + |vy| (with room for its rounding): not larger */
        if (!(1.000001 * (fabs(v[0]) + fabs(v[1])) + spin > s)) continue;
        const double si = hypot(v[0], v[1]) + spin;
        if (si > s) s = si;
    }
    const double a = w->sim.gamma * w->sim.h * 2.0 * s;
    return a > m ? a : m;
}

/* contact detection at q_k; ids and warm start from the last step */
rc_status rci_stage_detect(rci_step *st)
{
    rc_world *w = st->w;
    w->detect_margin = detection_margin(st);
    RC_CHECK(rci_sleep_begin(w));   /* sleeping pairs: not detected, their contacts kept (sleep.c) */
    rcc_update_shapes(w);
    rcm_state_geom_leave(w);   /* the state's geometry was in the records detection overwrites */
    RC_CHECK(rcc_detect(w));
    RC_CHECK(rcm_gaps_detect(w));
    RC_CHECK(rci_sleep_merge(w));
    RC_CHECK(rci_match_contacts(w));
    return rci_reserve_state(w);
}

/* free velocity (per body kind, with the scheme's coefficients) and the
 * solver's starting velocity */
rc_status rci_stage_free_velocity(rci_step *st)
{
    rc_world *w = st->w;
    rcm_free_coef fc;
    st->scheme->free_coef(st, &fc);
    for (int b = 0; b < w->nbodies; b++) {
        static const double zero3[6];   /* no applied forces (linear bodies always have w->f; rigid3d: 6) */
        const rc_body *bd = &w->bodies[b];
        if (w->nasleep > 0 && w->asleep[b]) { memset(w->V + bd->iv, 0, 3 * sizeof(double)); continue; }   /* sleep.c */
        const double *v = st->vk + bd->iv, *f = st->have_f ? w->f + bd->iv : zero3;
        RC_CHECK(rcm_body_ops_of(bd)->free_velocity(w, bd, &fc, v, f, w->V + bd->iv));
    }
    return RC_OK;
}

/* the joints' equality rows, assembled at the predicted q* with V_0 (eq. 61
 * with bilateral rows; Bruls et al. 2014 eq. 50c), and their warm start */
rc_status rci_stage_joints(rci_step *st)
{
    rc_world *w = st->w;
    RC_CHECK(rcm_joints_assemble(w, st->kappa));
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        rcm_joint_apply(w, j, &j->MHa[0][0], &j->MHb[0][0], w->V, 0, j->lambda);
        if (rcm_joint_has_x(j))   /* motor and limit (joint_motor.c) */
            rcm_joint_x_apply(w, j, w->V, j->motor_lambda - j->limit_side * j->limit_lambda);
    }
    return RC_OK;
}

/* warm start: V = V_0 + kappa Mhat^-1 H^T p_prev */
void rci_stage_warm_start(rci_step *st)
{
    rc_world *w = st->w;
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        if (c->p[0] == 0.0 && c->p[1] == 0.0) continue;
        rcm_contact_apply(w, c, w->V, c->p);
    }
}

/* the solver of the table, its report and the checks of its solution */
rc_status rci_stage_solve(rci_step *st)
{
    rc_world *w = st->w;
    st->res = 0.0;
    st->worst = -1;
    st->iters = 0;
    int p_finite = 0;   /* the solver saw every active impulse finite (rci_check_solution) */
    if (w->nactive || w->njoints) {
        const rcn_solver *solver = rcn_solver_of(st->solver->method);
        const rcn_problem pb = { w, st->solver, st->cyclic };
        rcn_report rep = { .worst = -1 };
        struct timespec c0, c1;
        const long fb0 = w->stats.newton_fallbacks;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        rc_status s = solver->solve(&pb, &rep);
        st->fallback = w->stats.newton_fallbacks > fb0;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        if (!st->exploring) {   /* the run's figures: an exploration is not a step of the run */
            w->stats.solver_cpu_s += (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
            w->stats.local_solves += rep.local_solves;
            w->stats.parallel_steps += rep.parallel;
            w->stats.sweep_wall_s += rep.sweep_wall_s;
            w->stats.sweep_solves += rep.sweep_solves;
        }
        if (s != RC_OK) return s;
        st->res = rep.residual;
        st->worst = rep.worst;
        p_finite = rep.p_finite;
        st->iters = rep.iterations;
        /* the solvers stop sweeping on an interrupt (a long solve is not
         * waited for): the step fails as on a solver failure, before the update */
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the solver after %d sweeps)",
                                w->t, w->step + 1, st->iters);
    }
    RC_CHECK(rci_check_solution(w, st->worst, st->res, st->iters, p_finite));
    st->converged = st->res <= w->sim.solver.tol;
    return RC_OK;
}

/* a solve that stopped short of the tolerance: an error or a warning */
rc_status rci_stage_converged(rci_step *st)
{
    rc_world *w = st->w;
    if (st->converged) return RC_OK;
    char cd[256];
    if (st->worst == -1 && w->c3 && w->c3->worst1 > 0) rci_describe_contact3(w, w->c3->worst1 - 1, cd, sizeof cd);   /* dim = 3 */
    else rci_describe_contact(w, st->worst, cd, sizeof cd);
    if (w->sim.solver.on_fail == RC_ON_FAIL_ERROR)
        return rc_set_error(RC_ERR_SOLVER, "solver did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e after %d sweeps; worst %s",
                            st->t_next, w->step + 1, st->res, w->sim.solver.tol, st->iters, cd);
    rci_warn_unconverged(w, "solver did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e after %d sweeps; worst %s",
                  st->t_next, w->step + 1, st->res, w->sim.solver.tol, st->iters, cd);
    return RC_OK;
}

/* ---------------------------------------------------------------- audit */

/* The step's terms of eqs. (65)-(68), the joints' drift (and projection),
 * the laws' per-contact state; fills w->info's step fields. Fails (the state
 * goes back to t_k) on a projection or law failure or with work_check "error". */
typedef rci_audit audit_terms;

static double joints_work(rc_world *w, const double *vth, double *W_motor)
{
    double W_J = 0.0;
    *W_motor = 0.0;
    for (int i = 0; i < w->njoints; i++) {   /* work of the joint impulses, u_{k+theta}^T lambda */
        rc_joint *j = &w->joints[i];
        double u[3];
        rcm_joint_dot(w, j, &j->Ha[0][0], &j->Hb[0][0], vth, NULL, RCM_SUM_BY_SIDE, u);
        j->work = j->wstart;   /* the start's impulse (rcm_joints_start), then u_{k+theta}^T lambda */
        for (int r = 0; r < j->rows; r++) j->work += u[r] * j->lambda[r];
        j->motor_work = 0.0;
        if (rcm_joint_has_x(j)) {   /* the motor's work apart (W_motor), the limit's in W_J */
            const double ux = rcm_joint_x_dot(w, j, vth);
            j->motor_work = ux * j->motor_lambda;
            j->work += ux * -j->limit_side * j->limit_lambda;
            *W_motor += j->motor_work;
        }
        W_J += j->work;
    }
    return W_J;
}

/* the joints' position drift, projected away (its energy change is W_proj) */
static rc_status joints_drift(rci_step *st, audit_terms *a)
{
    rc_world *w = st->w;
    if (!w->njoints) return RC_OK;
    if (w->sim.project_joints) {
        int pit;
        rcm_joints_energy_before(w);
        RC_CHECK(rcm_joints_project(w, st->t_next, &pit));
        RC_CHECK(rcm_joints_project_velocity(w, st->t_next));
        double Ek2, Ep2;
        rcm_energy(w, w->q, w->v, &Ek2, &Ep2, NULL);
        a->E_proj += (Ek2 + Ep2) - (st->Ek1 + st->Ep1);   /* before the rescaling gives it back */
        rcm_joints_restore_energy(w);
        rcm_energy(w, w->q, w->v, &Ek2, &Ep2, NULL);
        a->W_proj += (Ek2 + Ep2) - (st->Ek1 + st->Ep1);
        st->Ek1 = Ek2;
        st->Ep1 = Ep2;
    }
    return rcm_joints_report(w, st->t_next, &a->pos_viol, &a->vel_viol);
}

/* The products of contacts_work on two threads (with the solver's,
 * rcm_team2): each contact's u = H v and its W_N, W_T (eq. 68) computed in
 * parallel into wk (2 per contact; act: whether active), summed after by one
 * thread in index order -- the one-thread sums bit for bit. wk lives in the
 * planar hot records' bytes, dead once the solve has unpacked them (152
 * bytes per active contact, 17 needed per contact): no memory of its own.
 * Only where no law has a per-contact update and no contact is a gap
 * function's (!st->keep, no gaps); else NULL: one thread. */
static double *contacts_work_team(rci_step *st, const double *vth, unsigned char **act)
{
    rc_world *w = st->w;
    const int n = w->ncontacts;
    const size_t need = (size_t)n * (2 * sizeof(double) + 1);
    if (st->keep || w->ngaps || !w->hot || !rcm_team2(w, n) || (size_t)w->cap_hot * RCM_HOT2_BYTES < need) return NULL;
    double *wk = w->hot;   /* 16-byte aligned (the arena's) */
    unsigned char *on = (unsigned char *)(wk + 2 * (size_t)n);
    RC_OMP(omp parallel for num_threads(2) schedule(static))
    for (int i = 0; i < n; i++) {
        rc_contact *c = &w->contacts[i];
        double uth[2];
        rcm_contact_dot(w, c, w->v, NULL, c->u);
        rcm_contact_dot(w, c, vth, NULL, uth);
        on[i] = c->active != 0;
        wk[2 * i] = uth[0] * c->p[0];
        wk[2 * i + 1] = uth[1] * c->p[1];
    }
    *act = on;
    return wk;
}

/* contact i's work W_N + W_T (eq. 68) into the step's sums, and the
 * thermodynamic admissibility check (eqs. 51, 86-89) */
static rc_status add_contact_work(rci_step *st, audit_terms *a, int i, double WN, double WT, double work_tol)
{
    rc_world *w = st->w;
    const rc_contact *c = &w->contacts[i];
    a->W_N += WN;
    a->W_T += WT;
    if (WT > a->WT_max_pos) a->WT_max_pos = WT;   /* the paper's Figs 9-10 (c), (d) */
    if (WT < a->WT_min_neg) a->WT_min_neg = WT;
    const double cw = WN + WT;
    if (!a->have_cw || cw > a->max_cw) { a->max_cw = cw; a->have_cw = 1; a->max_cw_id = c->id; }
    if (cw > work_tol) {
        a->positive++;
        if (w->sim.work_check != RC_WORK_RECORD) {
            const rc_law *law = &w->laws[c->law];
            char cd[256];
            rci_describe_contact(w, i, cd, sizeof cd);
            if (w->sim.work_check == RC_WORK_ERROR)
                return rc_set_error(RC_ERR_NUMERIC, "positive contact work %.6e (W_N = %.6e, W_T = %.6e) at t = %.17g (step %ld), %s, law '%s'",
                                    cw, WN, WT, st->t_next, w->step + 1, cd, law->name ? law->name : "(unnamed)");
            rcm_world_warn(w, "positive contact work %.6e (W_N = %.6e, W_T = %.6e) at t = %.17g (step %ld), %s, law '%s'",
                          cw, WN, WT, st->t_next, w->step + 1, cd, law->name ? law->name : "(unnamed)");
        }
    }
    return RC_OK;
}

/* eq. (68) per contact, the laws' state after the accepted step, the
 * thermodynamic admissibility check */
static rc_status contacts_work(rci_step *st, const double *vth, audit_terms *a)
{
    rc_world *w = st->w;
    const double work_tol = w->sim.work_tol * (1.0 + fabs(a->E0));
    unsigned char *act = NULL;
    const double *wk = contacts_work_team(st, vth, &act);
    if (wk) {   /* the products done on two threads: the sums in index order */
        for (int i = 0; i < w->ncontacts; i++)
            if (act[i]) RC_CHECK(add_contact_work(st, a, i, wk[2 * i], wk[2 * i + 1], work_tol));
        return RC_OK;
    }
    for (int i = 0; i < w->ncontacts; i++) {
        rc_contact *c = &w->contacts[i];
        double uth[2];
        rcm_contact_dot(w, c, w->v, NULL, c->u);
        rcm_contact_dot(w, c, vth, NULL, uth);
        const rc_law *law = &w->laws[c->law];
        if (law->ops.update) {   /* the law's per-contact state, after the accepted step */
            rc_law_ctx ctx;
            rcn_law_context(w, c, &ctx);
            rc_status s = law->ops.update(law->ops.user, &ctx, c->aux->state, st->scheme->work_at_theta ? uth : c->u,
                                          c->aux->uk, c->p);
            for (int j = 0; s == RC_OK && j < law->ops.nstate; j++)
                if (!rcb_finite(c->aux->state[j]))
                    s = rc_set_error(RC_ERR_CALLBACK, "law '%s': update left state[%d] non-finite for contact %d at t = %.17g",
                                     law->name ? law->name : "(unnamed)", j + 1, c->id, w->t);
            if (s != RC_OK) return s;
        }
        if (!c->active) continue;
        /* eq. (68), normal and tangential parts (rci_save_contacts keeps them) */
        RC_CHECK(add_contact_work(st, a, i, uth[0] * c->p[0], uth[1] * c->p[1], work_tol));
    }
    return RC_OK;
}

/* audit, eqs. (65)-(68) */
static rc_status stage_audit(rci_step *st, audit_terms *a)
{
    rc_world *w = st->w;
    const double *vth = w->V;   /* v_{k+theta} after the update */
    const double h = st->h, theta = st->theta;
    rcm_energy(w, w->q, w->v, &st->Ek1, &st->Ep1, &st->E_el);
    a->W_J = joints_work(w, vth, &a->W_motor);
    if (w->nsprings) rcm_springs_forces(w, NULL, &a->E_spring);
    if (st->have_f)
        for (int i = 0; i < w->nv; i++) a->W_ext += h * vth[i] * w->f[i];   /* eq. (66) */
    for (int b = 0; st->keep && b < w->nbodies; b++) {   /* ||dv||_M^2 (+ ||dq||_K^2), eq. (67) */
        const rc_body *bd = &w->bodies[b];
        rcm_body_ops_of(bd)->step_terms(w, bd, vth, &st->W_theta, &a->W_damp);
    }
    st->W_theta *= 0.5 - theta;
    if (w->nlinears) a->W_ext += rcm_linear_support_work(w);   /* prescribed coordinates' supports (linear_bc.c) */
    a->W_proj = a->E_proj = w->start_W_q;   /* a start's positions */
    if (w->sim.project_contacts) {   /* q_{k+1} onto g_N >= 0 (project_contacts.c; dim = 3: project_contacts3.c) */
        if (w->c3) RC_CHECK(rci_project_contacts3(st, a));
        else rci_project_contacts(st, a);
    }
    RC_CHECK(joints_drift(st, a));
    a->E0 = st->Ek0 + st->Ep0 - w->start_W_q;   /* E_k before a start's assembly (rcm_joints_start) */
    for (int i = 0; i < w->njoints; i++) a->E0 -= w->joints[i].wstart;
    RC_CHECK(contacts_work(st, vth, a));
    a->W_ext += rci_gyro_work(st, vth);   /* spatial bodies: eq. (103)'s gyroscopic work (gyro_work.c) */
    if (w->c3) RC_CHECK(rci_contacts3_audit(st, vth, a));
    if (st->keep) {   /* q_{k+1}, v_{k+1} (after the joints' projection): finite, or back to t_k */
        int i = rci_first_nonfinite(w->v, w->nv);
        if (i >= 0) return rci_nonfinite_state(w, i, 0, w->v[i]);
        i = rci_first_nonfinite(w->q, w->nq);
        if (i >= 0) return rci_nonfinite_state(w, i, 1, w->q[i]);
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- commit */

static void commit_info(rci_step *st, const audit_terms *a)
{
    rc_world *w = st->w;
    rc_step_info *in = &w->info;
    in->t = w->t;
    in->step = w->step;
    in->iterations = st->iters;
    in->newton_fallback = st->fallback;
    in->residual = st->res;
    in->converged = st->converged;
    in->worst_contact = st->worst >= 0 ? w->contacts[st->worst].id : -1;   /* joints: see the warning text */
    if (st->worst == -1 && w->c3 && w->c3->worst1 > 0) in->worst_contact = w->c3->c[w->c3->worst1 - 1].id;   /* dim = 3 */
    in->ncontacts = w->ncontacts + (w->c3 ? w->c3->n : 0);   /* with a dim = 3 world's contacts */
    in->nactive = w->nactive + (w->c3 ? w->c3->nactive : 0);
    in->E_kin = st->Ek1;
    in->E_pot = st->Ep1;
    in->E = st->Ek1 + st->Ep1;
    in->W_ext = a->W_ext;
    in->W_N = a->W_N;
    in->W_T = a->W_T;
    in->W_theta = st->W_theta;
    in->W_J = a->W_J;
    in->W_proj = a->W_proj;
    in->W_J_total += a->W_J;
    in->W_proj_total += a->W_proj;
    in->persist_band = st->band;
    in->E_proj = a->E_proj;
    in->E_proj_total += a->E_proj;
    in->E_spring = a->E_spring;
    in->E_elastic = st->E_el;   /* the joint projection moves rigid bodies only */
    in->joint_pos_violation = a->pos_viol;
    in->joint_vel_violation = a->vel_viol;
    in->W_damp = a->W_damp;
    in->W_damp_total += a->W_damp;
    in->balance = (in->E - a->E0) - (a->W_ext + a->W_N + a->W_T + a->W_J + a->W_damp + st->W_theta + a->W_proj);
    in->W_motor = a->W_motor;
    if (a->W_motor != 0.0) in->balance -= a->W_motor;   /* (worlds without motors: bit for bit as before) */
    in->E_sleep = st->E_sleep;   /* the islands put to sleep (sleep.c) */
    if (st->E_sleep != 0.0) in->balance += st->E_sleep;
    in->E_sleep_total += st->E_sleep;
    in->W_proj_contacts = a->W_cproj;
    in->proj_sweeps = a->cproj_sweeps;
    in->proj_overlap = a->cproj_overlap;
    in->W_motor_total += a->W_motor;
    in->W_ext_total += a->W_ext;
    in->W_N_total += a->W_N;
    in->W_T_total += a->W_T;
    in->W_theta_total += st->W_theta;
    in->max_contact_work = a->have_cw ? a->max_cw : 0.0;
    in->WT_max_pos = a->WT_max_pos;
    in->WT_min_neg = a->WT_min_neg;
}

static void commit_stats(rci_step *st, const audit_terms *a, int deepest)
{
    rc_world *w = st->w;
    const rc_step_info *in = &w->info;
    rc_run_stats *s = &w->stats;
    s->steps = w->step;
    if (st->iters > s->max_iterations) s->max_iterations = st->iters;
    if (!(st->res <= s->max_residual)) s->max_residual = st->res;   /* (a NaN is kept, never lost) */
    if (!st->converged) s->failures++;
    if (!(fabs(in->balance) <= s->max_abs_balance)) s->max_abs_balance = fabs(in->balance);
    if (s->steps == 1 || in->E - a->E0 > s->max_energy_increase) {
        s->max_energy_increase = in->E - a->E0;
        s->t_max_energy_increase = w->t;
    }
    if (a->have_cw && a->max_cw > s->max_contact_work) {
        s->max_contact_work = a->max_cw;
        s->t_max_contact_work = w->t;
        s->contact_max_contact_work = a->max_cw_id;
    }
    s->positive_work_events += a->positive;
    if (a->WT_max_pos > s->max_WT_pos) s->max_WT_pos = a->WT_max_pos;
    if (a->WT_min_neg < s->min_WT_neg) s->min_WT_neg = a->WT_min_neg;
    if (a->pos_viol > s->max_joint_pos_violation) s->max_joint_pos_violation = a->pos_viol;
    if (a->vel_viol > s->max_joint_vel_violation) s->max_joint_vel_violation = a->vel_viol;
    if (w->sim.project_contacts) rci_project_contacts_stats(w, a);
    /* the largest overlap: this step's contacts were detected at q_k (t_k, step k);
     * deepest: the first contact with the step's largest (rci_save_contacts) */
    if (deepest >= 0) {
        const rc_contact *c = &w->contacts[deepest];
        if (-c->gN > s->max_overlap) {
            s->max_overlap = -c->gN;
            s->t_max_overlap = rcm_time_at(w, -1.0);
            s->step_max_overlap = w->step - 1;
            s->contact_max_overlap = c->id;
        }
    }
    for (int i = 0; w->c3 && i < w->c3->n; i++) {   /* a dim = 3 world's contacts, also at q_k */
        const rcm_contact3 *c = &w->c3->c[i];
        if (-c->gN > s->max_overlap) {
            s->max_overlap = -c->gN;
            s->t_max_overlap = rcm_time_at(w, -1.0);
            s->step_max_overlap = w->step - 1;
            s->contact_max_overlap = c->id;
        }
    }
}

/* the accepted step's contacts become the state; t = t_origin + t_steps h */
static void stage_commit(rci_step *st, const audit_terms *a)
{
    rc_world *w = st->w;
    int deepest;
    rci_save_contacts(w, &deepest);
    w->persist_band = 2.0 * st->h * fmax(w->sim.solver.tol, st->res) * (1.0 + sqrt(w->contact_b2));
    w->t_steps++;
    w->t = st->t_next;
    w->step++;
    commit_info(st, a);
    commit_stats(st, a, deepest);
    rcc_wrap(w);   /* periodic boundary: after the audit (E_wrap keeps E_pot continuous) */
}

/* ---------------------------------------------------------------- the step */

/* the time since *t0 to stage k (rc_run_stats.stage_wall_s); *t0 becomes now */
static void stage_time(rc_world *w, int k, double *t0)
{
    const double t = rcb_now_s();
    w->stats.stage_wall_s[k] += t - *t0;
    *t0 = t;
}

static rc_status world_step(rc_world *w)
{
    rci_step st;
    double t0 = rcb_now_s();
    RC_CHECK(rci_stage_begin(&st, w));
    if (st.scheme->step) {   /* a scheme with its own one-step problem (scheme_gen_alpha.c) */
        audit_terms a;
        memset(&a, 0, sizeof a);
        RC_CHECK(st.scheme->step(&st, &a));
        stage_time(w, RC_STAGE_SOLVE, &t0);
        stage_commit(&st, &a);
        stage_time(w, RC_STAGE_COMMIT, &t0);
        return rcm_world_after_step(w);
    }
    RC_CHECK(rci_stage_forces(&st));
    RC_CHECK(rci_stage_detect(&st));
    if (w->step == 0) rci_warn_initial_overlaps(w);
    RC_CHECK(rci_sleep_wake_touched(&st));
    stage_time(w, RC_STAGE_DETECT, &t0);
    RC_CHECK(rci_stage_free_velocity(&st));
    stage_time(w, RC_STAGE_FREE_VELOCITY, &t0);
    RC_CHECK(rci_stage_index_set(&st));
    RC_CHECK(rci_stage_joints(&st));
    stage_time(w, RC_STAGE_INDEX_SET, &t0);
    rci_stage_warm_start(&st);
    stage_time(w, RC_STAGE_WARM_START, &t0);
    RC_CHECK(rci_stage_solve(&st));
    if (w->c3) RC_CHECK(rci_contacts3_solve(&st));   /* dim = 3 worlds' contacts (contacts3.c) */
    RC_CHECK(rci_stage_converged(&st));
    if (st.scheme->after_solve) st.scheme->after_solve(w);
    if (w->sim.project_contacts) RC_CHECK(rci_project_contacts_prepare(&st));
    stage_time(w, RC_STAGE_SOLVE, &t0);
    RC_CHECK(st.scheme->update(&st));
    stage_time(w, RC_STAGE_UPDATE, &t0);
    audit_terms a;
    memset(&a, 0, sizeof a);
    rc_status s = stage_audit(&st, &a);
    if (s == RC_OK) s = rci_sleep_after(&st);   /* islands at rest fall asleep (sleep.c) */
    if (s != RC_OK) {   /* a failure after the update: back to the state at t_k (keep is
                           set: only joints, laws' updates and work_check "error" come here;
                           the contacts of the state, w->rec, were not touched) */
        if (w->nv > 0) {
            memcpy(w->q, w->q0, (size_t)w->nq * sizeof(double));
            memcpy(w->v, w->v0, (size_t)w->nv * sizeof(double));
        }
        return s;
    }
    stage_time(w, RC_STAGE_AUDIT, &t0);
    stage_commit(&st, &a);
    stage_time(w, RC_STAGE_COMMIT, &t0);
    return rcm_world_after_step(w);   /* the observers: the history row (io/output.c) */
}

static rc_status world_step_joints(rc_world *w);

/* One step; with joints, the state is first moved onto them when it was set
 * from outside (rcm_joints_start), and put back if the step then fails. */
rc_status rc_world_step(rc_world *w)
{
    if (w && w->configured) RC_CHECK(rcm_world_work_begin(w));   /* the step's work memory */
    if (!w) return world_step(w);
    w->stepping = 1;   /* no removal from inside the step (remove.c) */
    rc_status s = world_step_joints(w);
    w->stepping = 0;
    if (s == RC_OK && (w->nbreakable || w->nbroken)) s = rcm_joints_break(w);   /* after the step (model/joint_break.c) */
    return s;
}

static rc_status world_step_joints(rc_world *w)
{
    if (w->j3 && w->j3->fresh && w->configured && w->sim.scheme != RC_SCHEME_GEN_ALPHA)
        RC_CHECK(rcm_joints3_start(w));   /* driven 3D joints: the velocities on their rates at t_k (joint3_project.c) */
    if (!w->njoints) return world_step(w);
    for (int i = 0; i < w->njoints; i++) {   /* this step's projection impulses and start work */
        memset(w->joints[i].mu_v, 0, sizeof w->joints[i].mu_v);
        w->joints[i].wstart = 0.0;
    }
    w->start_W_q = 0.0;
    if (!w->joints_fresh || !w->configured || rc_interrupt_requested()) return world_step(w);
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
