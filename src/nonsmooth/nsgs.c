/* nsgs.c -- nonsmooth Gauss--Seidel over the active contacts (Jean &
 * Moreau; Moreau 2004 section 1.3; Acary & Collins-Craft 2024 section 4).
 *
 * The global problem is  u = W p + b  with W = kappa H Mhat^-1 H^T, never
 * assembled: the solver keeps the velocity V = V_0 + kappa Mhat^-1 H^T p up
 * to date, so a contact reads its local velocity as H V and a local update
 * touches only its two bodies. Each contact is solved exactly (law.c) with
 * the others frozen. Stopping test: the natural-map residual of section 4,
 *     ||p - proj_K(p - Phi(W p + b))||_2 / (1 + ||b||_2) <= tol,
 * with Phi the De Saxce change of variable (eq. 10) and b including the
 * impact-law shift; or (solver.norm = RC_NORM_MAX) its largest local term,
 *     max_alpha |p_alpha - proj_K(p_alpha - Phi(u_alpha))| <= tol,
 * which holds every contact to the tolerance (with 10^5 contacts the L2
 * test lets single contacts miss it by far more). */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* The OpenMP team's threads outlive the parallel regions (they wait, spinning
 * first, for the next one). A program that unloads the library while they
 * run crashes: plain lua5.4 dlcloses ricochet/core.so, and with it libgomp,
 * in lua_close. So the team is shut down (OpenMP 5.0 omp_pause_resource_all:
 * the threads are joined) when the last world whose steps used it is
 * destroyed; the next world that needs one starts a new team. (The team of
 * the destroying thread: worlds stepped on one thread and destroyed on
 * another leave the first thread's team to the OpenMP runtime.) */
static _Atomic int team_worlds;   /* worlds alive that have run a team */
static const rc_part nsgs_part;

static void team_join(rc_world *w)
{
    if (w->team_used) return;
    w->team_used = 1;
    atomic_fetch_add(&team_worlds, 1);
}

void rcn_nsgs_team_join(rc_world *w)
{
    rcm_world_attach_part(w, RC_PART_SOLVER, &nsgs_part);
    team_join(w);
}

static void team_leave(rc_world *w)
{
    if (!w->team_used) return;
    w->team_used = 0;
    if (atomic_fetch_sub(&team_worlds, 1) == 1) {
#ifdef _OPENMP
        if (!omp_in_parallel()) (void)omp_pause_resource_all(omp_pause_hard);
#endif
    }
}

/* Sums the residual in a fixed order: joints (their rows' H V + dg/dt,
 * computed here), then the active contacts in key order with the squared
 * local residuals already in c->res. worst: a contact index, or -2 - j for
 * joint j. */
static void joints_residual(rc_world *w, double *sum_out, double *worst_out, int *worst)
{
    double sum = 0.0, worst_res = -1.0;
    *worst = -1;
    for (int i = 0; i < w->njoints; i++) {   /* equality rows: the natural map is H V + dg/dt */
        rc_joint *j = &w->joints[i];
        double u[3], r2 = 0.0;
        joint_velocity(w, j, w->V, u);
        for (int r = 0; r < j->rows; r++) r2 += u[r] * u[r];
        if (rcm_joint_has_x(j)) r2 += joint_x_residual2(w, j);   /* motor, limit */
        sum += r2;
        j->res = sqrt(r2);
        if (r2 > worst_res) { worst_res = r2; *worst = -2 - i; }
    }
    *sum_out = sum;
    *worst_out = worst_res;
}

/* The stopping test's number from the sum and the largest of the squared
 * local residuals (L2: relative to 1 + |b|; max: the largest). */
static double residual_norm(const rc_world *w, double sum, double worst_res, double norm_b)
{
    return w->sim.solver.norm == RC_NORM_MAX ? sqrt(worst_res > 0.0 ? worst_res : 0.0)
                                             : sqrt(sum) / (1.0 + norm_b);
}

/* The squared local residuals are the contacts' c->res, or (pk not NULL)
 * the hot records' terms (nsgs_pack.c), summed in the same order. */
static void residual_sum(rc_world *w, double norm_b, int *worst, double *res, const rcn_pack2 *pk)
{
    double sum, worst_res;
    joints_residual(w, &sum, &worst_res, worst);
    if (pk && pk->bsum) {   /* the blocks' sums and largest terms, in record order */
        const int *sweep = w->sweep;
        for (int b = 0; b < (pk->n + RCN_PACK_BLOCK - 1) / RCN_PACK_BLOCK; b++) {
            sum += pk->bsum[b];
            if (pk->bmax[b] > worst_res) { worst_res = pk->bmax[b]; *worst = sweep[pk->barg[b]]; }
        }
        *res = residual_norm(w, sum, worst_res, norm_b);
        return;
    }
    for (int k = 0; k < w->nactive; k++) {
        const double r2 = !pk ? w->contacts[w->active[k]].res : pk->r2[pk->at ? pk->at[w->active[k]] : k];
        sum += r2;
        if (r2 > worst_res) { worst_res = r2; *worst = w->active[k]; }
    }
    *res = residual_norm(w, sum, worst_res, norm_b);
}

/* The planar residual passes made, all worlds together (the tests of the
 * passes' spacing read it) */
_Atomic long rcn_nsgs_passes = 0;
static void count_pass(void) { atomic_fetch_add_explicit(&rcn_nsgs_passes, 1, memory_order_relaxed); }

rc_status rcn_nsgs_residual(rc_world *w, double norm_b, int *worst, double *res)
{
    count_pass();
    for (int k = 0; k < w->nactive; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        double u[2];
        local_velocity(w, c, w->V, u);
        RC_CHECK(rcn_law_residual2(w, c, u, &c->res));
    }
    residual_sum(w, norm_b, worst, res, NULL);
    return RC_OK;
}

/* The same on the hot records (every active contact packed: closed-form laws) */
static void pack_residual(rc_world *w, rcn_pack2 *pk, double norm_b, int *worst, double *res)
{
    count_pass();
    rcn_nsgs_pack_terms(w, pk, 0, pk->n);   /* nsgs_pack.c */
    residual_sum(w, norm_b, worst, res, pk);
}

/* Whether the planar NSGS sweeps run on the hot records when they can
 * (nsgs_pack.c); internal, tests clear it to compare with the contacts' path. */
int rcn_nsgs_pack_enabled = 1;

/* One Gauss--Seidel update of contact c: its exact local solve with the
 * others frozen, then V follows. Touches only c and its bodies' velocities.
 * r2 (or NULL): the squared natural-map residual of c as it is visited (u
 * from the current V, p before the update; closed-form laws only). */
static inline rc_status solve_contact(rc_world *w, rc_contact *c, double omega, double *r2)
{
    double u[2], bl[2], p[2] = { c->p[0], c->p[1] };
    local_velocity(w, c, w->V, u);
    if (r2) *r2 = rcn_fc2d_residual2(u, c->p, w->laws[c->law].def.mu);
    /* b_alpha = u - W_aa p_alpha: the local velocity without c's own impulse */
    bl[0] = u[0] - (c->W[0][0] * c->p[0] + c->W[0][1] * c->p[1]);
    bl[1] = u[1] - (c->W[1][0] * c->p[0] + c->W[1][1] * c->p[1]);
    RC_CHECK(rcn_law_local_solve(w, c, bl, p));
    if (omega != 1.0 && w->laws[c->law].closed_form) {   /* over/under-relaxation */
        p[0] = omega * p[0] + (1.0 - omega) * c->p[0];
        p[1] = omega * p[1] + (1.0 - omega) * c->p[1];
        rcm_fc2d_project(w->laws[c->law].def.mu, p);
    }
    double dp[2] = { p[0] - c->p[0], p[1] - c->p[1] };
    if (dp[0] != 0.0 || dp[1] != 0.0) rcm_contact_apply(w, c, w->V, dp);
    c->p[0] = p[0];
    c->p[1] = p[1];
    return RC_OK;
}

/* ---------------------------------------------------------------- sweep orders */

/* The position and colour orders visit the contacts out of memory order (a
 * colour's contacts are spread over the whole list, none sharing a body with
 * the next): without help every contact and body is a cache miss. The sweep
 * asks for them a few contacts ahead (RC_PREFETCH, nonsmooth_impl.h). No
 * effect on the numbers. */
static inline void prefetch_ahead(const rc_world *w, const int *sweep, int k, int hi)
{
    if (k + 8 < hi) {   /* the contact record */
        const char *c = (const char *)&w->contacts[sweep[k + 8]];
        for (size_t o = 0; o < sizeof(rc_contact); o += 64) RC_PREFETCH(c + o);
    }
    if (k + 4 < hi) {   /* its bodies (the record has arrived by now) */
        const rc_contact *c = &w->contacts[sweep[k + 4]];
        RC_PREFETCH(&w->bodies[c->body_b]);
        if (c->body_a != RC_GROUND) RC_PREFETCH(&w->bodies[c->body_a]);
    }
    if (k + 2 < hi) {   /* their velocities */
        const rc_contact *c = &w->contacts[sweep[k + 2]];
        RC_PREFETCH(w->V + w->bodies[c->body_b].iv);
        if (c->body_a != RC_GROUND) RC_PREFETCH(w->V + w->bodies[c->body_a].iv);
    }
}

/* Contacts sweep[lo .. hi) in turn (closed-form laws: cannot fail). */
static void sweep_closed(rc_world *w, const int *sweep, int lo, int hi, double omega)
{
    for (int k = lo; k < hi; k++) {
        prefetch_ahead(w, sweep, k, hi);
        (void)solve_contact(w, &w->contacts[sweep[k]], omega, NULL);
    }
}

/* The same as a colour pass's range (colour.c) */
typedef struct closed_ctx {
    rc_world *w;
    const int *sweep;
    double omega;
    rcn_pack2 *pk;   /* the hot records of sweep (or NULL) */
    const int *colour_start;   /* the colour order: its colours' starts (else NULL) */
    int ncol;
} closed_ctx;

static long closed_range(void *ctx, int lo, int hi)
{
    const closed_ctx *cx = ctx;
    if (cx->pk && cx->colour_start) {   /* colour by colour, each four records at a time (nsgs_simd.c) */
        const int *start = cx->colour_start;
        int c = 0, hi_c = cx->ncol;   /* the colour holding lo: the last start <= lo */
        while (c + 1 < hi_c) {
            const int mid = (c + hi_c) / 2;
            if (start[mid] <= lo) c = mid; else hi_c = mid;
        }
        for (int k = lo; k < hi; c++) {
            const int e = start[c + 1] < hi ? start[c + 1] : hi;
            if (e > k) (void)rcn_nsgs_pack_sweep_indep(cx->w, cx->pk, k, e, cx->omega);
            k = e;
        }
    } else if (cx->pk) {
        rcn_nsgs_pack_sweep(cx->w, cx->pk, lo, hi, cx->omega, NULL);   /* nsgs_pack.c */
    } else {
        sweep_closed(cx->w, cx->sweep, lo, hi, cx->omega);
    }
    return hi - lo;
}

/* two runs that share no movable body (the slabs' halves), alternately */
static long closed_range2(void *ctx, int lo1, int hi1, int lo2, int hi2)
{
    const closed_ctx *cx = ctx;
    if (!cx->pk) return closed_range(ctx, lo1, hi1) + closed_range(ctx, lo2, hi2);
    rcn_nsgs_pack_sweep2(cx->w, cx->pk, lo1, hi1, lo2, hi2, cx->omega);   /* nsgs_pack.c */
    return (hi1 - lo1) + (hi2 - lo2);
}

/* The sweep orders live in the world's work arena; the part leaves the team. */
static void nsgs_free(rc_world *w) { team_leave(w); }

static const rc_part nsgs_part = { nsgs_free, NULL, NULL };

void rcn_nsgs_attach(rc_world *w)
{
    rcm_world_attach_part(w, RC_PART_SOLVER, &nsgs_part);
}

/* Colours with fewer contacts than this are swept by one thread (a run of
 * such colours in one go): a colour shared between threads costs a barrier,
 * about a microsecond, the time of some 20 local solves. Does not change the
 * result. Internal, tests set it to 0 to share every colour. */
int rcn_nsgs_parallel_min = 512;
/* Adaptive threads keep the team while a team sweep takes less than this
 * times the step's one-thread sweep (per contact update). Internal, tests
 * set it tiny to make every team stop mid-step. */
double rcn_nsgs_team_margin = 1.0;

double rcn_wall_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The state of a coloured solve, carried from the thread team to the
 * calling thread when the team stops paying. */
typedef struct coloured_state {
    double nb, res, t_prev;
    double serial_s;        /* timed mode: cost per contact update of the last one-thread sweep */
    int it, go, worst, started, leave;
    int team_sweeps;        /* sweeps done by a team, this step                */
    int region_sweeps;      /* sweeps of the current parallel region           */
    int slow;               /* consecutive team sweeps slower than one thread   */
    int it_limit;           /* stop after this many sweeps                      */
    int next, prev_it;      /* check_every = 1: the sweep of the next pass, that of the last */
    double prev;            /* the last pass's residual (rcn_pass_gap)           */
    double sweep_s;         /* one thread, hot records: the sweeps' wall time   */
    long sweep_solves;      /* and their one-contact solves (rcn_report)         */
} coloured_state;

/* The squared local residuals of the active contacts (closed-form laws), in
 * c->res (or pk's terms, in blocks of 256 records); inside a parallel region
 * the threads share the contacts (an orphaned worksharing loop, with its
 * barrier), outside it one thread does. */
static void closed_residuals(rc_world *w, rcn_pack2 *pk)
{
    const int n = w->nactive, *active = w->active;
    if (pk) {
        RC_OMP(omp for schedule(static))
        for (int b = 0; b < (n + RCN_PACK_BLOCK - 1) / RCN_PACK_BLOCK; b++) rcn_nsgs_pack_block(w, pk, b);   /* nsgs_pack.c */
        return;
    }
    RC_OMP(omp for schedule(static))
    for (int k = 0; k < n; k++) {
        rc_contact *c = &w->contacts[active[k]];
        double u[2];
        local_velocity(w, c, w->V, u);
        c->res = rcn_fc2d_residual2(u, c->p, w->laws[c->law].def.mu);
    }
}

/* Coloured sweeps while the problem is not solved, when every active
 * contact has a closed-form law (no callback, no failure, no error message:
 * safe on any thread). nt threads share each large colour (OpenMP static
 * schedule); contacts of one colour touch disjoint velocities, so the result
 * does not depend on nt. Joints are solved by one thread at the start of each
 * sweep, the residual's terms are computed in parallel and summed by one
 * thread in key order. With adaptive timing (threads > 1 configured), every
 * sweep is timed: on one thread it gives the step's cost per contact update;
 * in a team, a sweep slower than that (from the team's second sweep on, the
 * first one waking the threads) ends the team: the caller continues on one
 * thread, same numbers. */
static void coloured_sweeps(rc_world *w, const rc_solver_def *opt, int nt, coloured_state *st, rcn_pack2 *pk)
{
    const double tol = opt->tol, omega = opt->relax;
    const int max_iter = opt->max_iter, check_every = opt->check_every;
    const int n = w->nactive, ncol = w->ncolours, nj = w->njoints, pmin = rcn_nsgs_parallel_min;
    const int timed = opt->threads > 1 && opt->adaptive_threads;
    const double margin = rcn_nsgs_team_margin;
    const int *sweep = w->sweep, *start = w->colour_start, slabs = opt->order == RC_ORDER_SLABS;
    RC_OMP(omp parallel num_threads(nt) if(nt > 1) default(none)
           shared(w, st, nt, tol, omega, max_iter, check_every, n, ncol, nj, pmin, timed, margin, sweep, start, pk, slabs))
    {
        if (!st->started) {
            closed_residuals(w, pk);
            RC_OMP(omp single)
            {
                residual_sum(w, st->nb, &st->worst, &st->res, pk);
                count_pass();
                st->go = st->res > tol && st->it < max_iter && !rc_interrupt_requested();
                st->started = 1;
            }
        }
        RC_OMP(omp single)
        {
            st->t_prev = timed ? rcn_wall_s() : 0.0;
            st->region_sweeps = 0;
        }
        /* Loop control: go, leave and it are written only in the single at
         * the end of a sweep and read here, after its barrier; the next write
         * comes after at least one more barrier (a colour's, ncol >= 1), so
         * every thread reads the same values and meets the same constructs. */
        while (st->go && !st->leave && st->it < st->it_limit) {
            const int check = (check_every == 1 ? rcn_pass_due(st->it + 1, st->next) : (st->it + 1) % check_every == 0)
                           || st->it + 1 == max_iter;
            if (nj) {
                RC_OMP(omp single)
                for (int i = 0; i < nj; i++) joint_solve(w, &w->joints[i]);
            }
            closed_ctx cx = { w, sweep, omega, pk, slabs ? NULL : start, ncol };
            /* slabs: the boundary after the slabs' barrier, by the single
             * below when no residual pass follows (one barrier less) */
            const double t0 = nt == 1 && pk && n >= RCN_TIMED_SWEEPS_MIN ? rcb_now_s() : 0.0;
            if (slabs) rcn_slab_pass(start, check, closed_range, closed_range2, &cx);   /* slabs.c */
            else (void)rcn_colour_pass(ncol, start, pmin, closed_range, &cx);   /* colour.c */
            if (t0 > 0.0) {   /* the sweep's own rate on one thread (rc_run_stats.sweep_wall_s) */
                st->sweep_s += rcb_now_s() - t0;
                st->sweep_solves += slabs && !check ? start[RCN_SLAB_SEGS - 1] : n;
            }
            if (check) closed_residuals(w, pk);
            RC_OMP(omp single)
            {
                if (slabs && !check) (void)closed_range(&cx, start[RCN_SLAB_SEGS - 1], start[RCN_SLAB_SEGS]);
                st->it++;
                if (check) {
                    residual_sum(w, st->nb, &st->worst, &st->res, pk);
                    count_pass();
                }
                if (check && check_every == 1) {   /* the passes spaced by the predicted convergence */
                    st->next = st->it + rcn_pass_gap(st->res, st->prev, st->it - st->prev_it, tol);
                    st->prev = st->res;
                    st->prev_it = st->it;
                }
                st->go = st->res > tol && st->it < max_iter && !rc_interrupt_requested();
                if (timed) {   /* seconds per contact update; a residual pass costs about a sweep */
                    const double now = rcn_wall_s(), per = (now - st->t_prev) / ((double)n * (1 + check));
                    st->t_prev = now;
                    if (nt == 1) {
                        st->serial_s = per;
                    } else if (++st->region_sweeps >= 2) {   /* the first one wakes the threads */
                        st->slow = per > margin * st->serial_s ? st->slow + 1 : 0;
                        st->leave = st->slow >= 2;
                    }
                }
                if (nt > 1) st->team_sweeps++;
            }
        }
    }
}

/* A team slower than one thread: one thread for the next 16, 32, ... 1024 steps */
void rcn_nsgs_team_backoff(rc_world *w)
{
    w->par_backoff = w->par_backoff < 16 ? 16 : w->par_backoff < 1024 ? 2 * w->par_backoff : 1024;
    w->par_off_until = w->step + w->par_backoff;
}

/* The coloured solve: on nt threads while they pay, then on this one.
 * Returns whether the step was shared (always sharing: every step given
 * to the team; adaptive: a team swept). Timed (adaptive) mode: one sweep in 16
 * runs on this thread and sets the cost the team has to beat until the
 * next (the cost of a sweep drifts during a solve); two team sweeps in a
 * row slower than that hand the rest of the step to this thread. */
static int coloured_solve(rc_world *w, const rc_solver_def *opt, double nb, int nt, int *iters, double *res_out, int *worst,
                          rcn_pack2 *pk, rcn_report *rep)
{
    if (nt > 1) team_join(w);
    const int max_iter = opt->max_iter;
    coloured_state st;
    memset(&st, 0, sizeof st);
    st.nb = nb;
    st.worst = -1;
    if (nt > 1 && opt->adaptive_threads) {
        do {
            st.it_limit = st.it + 1;                  /* the one-thread reference sweep */
            coloured_sweeps(w, opt, 1, &st, pk);
            st.it_limit = st.it + 15 < max_iter ? st.it + 15 : max_iter;
            if (st.go) coloured_sweeps(w, opt, nt, &st, pk);   /* no team to wake when solved */
        } while (st.go && !st.leave && st.it < max_iter);
    } else {
        st.it_limit = max_iter;
        coloured_sweeps(w, opt, nt, &st, pk);
    }
    if (st.leave) {   /* the team was slower than one thread */
        rcn_nsgs_team_backoff(w);
        st.leave = 0;
        st.it_limit = max_iter;
        coloured_sweeps(w, opt, 1, &st, pk);
    } else if (st.team_sweeps > 0) {
        w->par_backoff = 0;
    }
    *iters = st.it;
    *res_out = st.res;
    *worst = st.worst;
    rep->sweep_wall_s += st.sweep_s;
    rep->sweep_solves += st.sweep_solves;
    return nt > 1 && (st.team_sweeps > 0 || !opt->adaptive_threads);
}

/* One sweep on this thread (anderson.c): the joints, then the contacts in the order sweep. */
rc_status rcn_nsgs_sweep(rc_world *w, const int *sweep, double omega)
{
    for (int i = 0; i < w->njoints; i++) joint_solve(w, &w->joints[i]);
    for (int k = 0; k < w->nactive; k++) {
        if (sweep != w->active) prefetch_ahead(w, sweep, k, w->nactive);
        RC_CHECK(solve_contact(w, &w->contacts[sweep[k]], omega, NULL));
    }
    return RC_OK;
}

/* A new random order of the active contacts (Fisher--Yates, xorshift64);
 * their hot records (pk, or NULL) in step. */
static void shuffle_active(rc_world *w, uint64_t *rng, rcn_pack2 *pk)
{
    for (int k = w->nactive - 1; k > 0; k--) {
        *rng ^= *rng << 13; *rng ^= *rng >> 7; *rng ^= *rng << 17;
        int r = (int)(*rng % (uint64_t)(k + 1)), tmp = w->active[k];
        w->active[k] = w->active[r];
        w->active[r] = tmp;
        if (pk) rcn_nsgs_pack_swap(pk, k, r);
    }
}

/* One sweep of closed-form contacts in the order sweep; est (or NULL): the
 * sum and the largest of their squared natural-map residuals as visited. */
static void sweep_estimate(rc_world *w, const int *sweep, double omega, double est[2], rcn_pack2 *pk)
{
    if (pk) { rcn_nsgs_pack_sweep(w, pk, 0, pk->n, omega, est); return; }   /* nsgs_pack.c */
    for (int k = 0; k < w->nactive; k++) {
        if (sweep != w->active) prefetch_ahead(w, sweep, k, w->nactive);
        double r2;
        (void)solve_contact(w, &w->contacts[sweep[k]], omega, est ? &r2 : NULL);
        if (est) {
            est[0] += r2;
            if (r2 > est[1]) est[1] = r2;
        }
    }
}

/* residual = "sweep" (one thread, closed-form laws; Acary & Collins-Craft
 * 2024 section 4's test, evaluated lazily): every checked sweep sums its
 * contacts' residuals as they are visited (each at the state of its local
 * solve: the estimate lags the iterate by up to a sweep) plus the joints'
 * (computed after the sweep). Only when that estimate is <= tol, and at the
 * sweep cap, a true pass (rcn_nsgs_residual) decides: the step stops when
 * the true residual is <= tol, and that one is reported. No pass before the
 * first sweep. Returns the sweeps done. */
static rc_status fused_solve(const rcn_problem *pb, const int *sweep, double nb, int *its, int *worst, double *res,
                             rcn_pack2 *pk)
{
    rc_world *w = pb->w;
    const rc_solver_def *opt = pb->opt;
    const double tol = opt->tol;
    uint64_t rng = opt->seed * 0x9E3779B97F4A7C15ull + (uint64_t)w->step + 1;
    int it = 0, exact = 0, converged = 0;
    rc_status s = RC_OK;
    while (s == RC_OK && !converged && it < opt->max_iter && !rc_interrupt_requested()) {
        if (opt->order == RC_ORDER_RANDOM && (it == 0 || !pb->cyclic)) shuffle_active(w, &rng, pk);
        for (int i = 0; i < w->njoints; i++) joint_solve(w, &w->joints[i]);
        it++;
        const int check = it % opt->check_every == 0 && it < opt->max_iter;
        double est[2] = { 0.0, -1.0 };
        sweep_estimate(w, sweep, opt->relax, check ? est : NULL, pk);
        exact = 0;
        if (check) {
            double jsum, jmax;
            int jworst;
            joints_residual(w, &jsum, &jmax, &jworst);
            if (residual_norm(w, est[0] + jsum, est[1] > jmax ? est[1] : jmax, nb) > tol) continue;
        } else if (it < opt->max_iter) {
            continue;
        }
        if (pk) pack_residual(w, pk, nb, worst, res);   /* the estimate is <= tol, or the cap */
        else s = rcn_nsgs_residual(w, nb, worst, res);
        exact = 1;
        converged = *res <= tol;
    }
    if (s == RC_OK && !exact && pk) pack_residual(w, pk, nb, worst, res);   /* interrupted */
    else if (s == RC_OK && !exact) s = rcn_nsgs_residual(w, nb, worst, res);
    *its = it;
    return s;
}

rc_status rcn_nsgs_solve(const rcn_problem *pb, rcn_report *rep)
{
    if (pb->opt->anderson > 0) return rcn_anderson_solve(pb, rep);   /* anderson.c */
    rc_world *w = pb->w;
    const rc_solver_def *opt = pb->opt;
    int *iters = &rep->iterations, *worst = &rep->worst;
    double *res_out = &rep->residual;
    rep->parallel = 0;
    rcm_world_attach_part(w, RC_PART_SOLVER, &nsgs_part);
    double nb = w->contact_b2;   /* sum of |b|^2 over the active contacts (scheme.c) */
    for (int i = 0; i < w->njoints; i++)
        for (int r = 0; r < w->joints[i].rows; r++) nb += w->joints[i].b[r] * w->joints[i].b[r];
    nb = sqrt(nb);
    const double tol = opt->tol;
    const rc_order order = opt->order;
    double res;
    int it = 0;
    rc_status s = RC_OK;
    /* the sweep order, once per step (nsgs_order.c; random: shuffled per sweep
     * below); colour or slabs with a law that has callbacks: the same order on
     * this thread */
    const int *sweep;
    int closed;
    RC_CHECK(rcn_nsgs_order(w, opt, &sweep, &closed));
    /* the hot records in that order (nsgs_pack.c), when every active
     * contact can have one: the sweeps and the residual passes read them,
     * the impulses go back to the contacts at the end */
    rcn_pack2 pack, *pk = NULL;
    if (rcn_nsgs_pack_enabled && w->nactive > 0 && rcn_nsgs_pack_usable(w)) {
        RC_CHECK(rcn_nsgs_pack(w, sweep, &pack));
        pk = &pack;
    }
    if ((order == RC_ORDER_COLOUR || order == RC_ORDER_SLABS) && closed && w->nactive > 0) {
        int nt = rc_openmp() ? opt->threads : 1;
        int shared_colour = order == RC_ORDER_SLABS && w->nactive >= 2 * rcn_nsgs_parallel_min;   /* slabs: one pass */
        for (int k = 0; k < w->ncolours && !shared_colour && order == RC_ORDER_COLOUR; k++)
            shared_colour = w->colour_start[k + 1] - w->colour_start[k] >= rcn_nsgs_parallel_min;
        if (!shared_colour) nt = 1;   /* nothing worth sharing: no thread team this step */
        if (nt > 1 && opt->adaptive_threads && w->step < w->par_off_until)
            nt = 1;   /* backing off: the threads did not pay lately */
        if (pk) RC_CHECK(rcn_nsgs_pack_blocks(w, pk));   /* the residual passes' block sums (closed_residuals) */
        rep->parallel = coloured_solve(w, opt, nb, nt, iters, res_out, worst, pk, rep);
        it = *iters;
        res = *res_out;
        goto done;
    }
    if (opt->residual == RC_RESIDUAL_SWEEP && w->nactive > 0 && rcn_all_laws_closed(w)) {
        s = fused_solve(pb, sweep, nb, &it, worst, &res, pk);
        goto done;
    }
    if (pk) pack_residual(w, pk, nb, worst, &res);
    else s = rcn_nsgs_residual(w, nb, worst, &res);
    const double omega = opt->relax;
    uint64_t rng = opt->seed * 0x9E3779B97F4A7C15ull + (uint64_t)w->step + 1;
    /* check_every = 1 (the default): a pass after each of the first sweeps,
     * then spaced by the predicted convergence (solver.c rcn_pass_due,
     * rcn_pass_gap); else every check_every sweeps. The step stops only on a
     * pass <= tol, and the cap's sweep has one. */
    const int adaptive = opt->check_every == 1, timed = pk && pk->n >= RCN_TIMED_SWEEPS_MIN;
    int next = 1, prev_it = 0;
    double prev = 0.0;
    while (s == RC_OK && res > tol && it < opt->max_iter && !rc_interrupt_requested()) {
        if (order == RC_ORDER_RANDOM && (it == 0 || !pb->cyclic))
            shuffle_active(w, &rng, pk);   /* an exploration's cyclic order: the first sweep's, kept */
        for (int i = 0; i < w->njoints; i++) joint_solve(w, &w->joints[i]);
        if (pk) {
            const double t0 = timed ? rcb_now_s() : 0.0;   /* the sweep's own rate (rc_run_stats.sweep_wall_s) */
            rcn_nsgs_pack_sweep(w, pk, 0, pk->n, omega, NULL);   /* nsgs_pack.c */
            if (timed) {
                rep->sweep_wall_s += rcb_now_s() - t0;
                rep->sweep_solves += pk->n;
            }
        }
        for (int k = 0; k < w->nactive && !pk; k++) {
            if (sweep != w->active) prefetch_ahead(w, sweep, k, w->nactive);
            s = solve_contact(w, &w->contacts[sweep[k]], omega, NULL);
            if (s != RC_OK) break;
        }
        it++;
        const int check = adaptive ? rcn_pass_due(it, next) : it % opt->check_every == 0;
        if (s == RC_OK && (check || it == opt->max_iter)) {
            if (pk) pack_residual(w, pk, nb, worst, &res);
            else s = rcn_nsgs_residual(w, nb, worst, &res);
            if (adaptive) {
                next = it + rcn_pass_gap(res, prev, it - prev_it, tol);
                prev = res;
                prev_it = it;
            }
        }
    }
done:
    if (pk)   /* p and the residual terms (their roots) back to the contacts; whether every p is finite */
        rep->p_finite = rcn_nsgs_unpack(w, pk, sweep);   /* (the pack holds every active contact) */
    for (int k = 0; k < w->nactive && !pk; k++) {   /* c->res held squares */
        rc_contact *c = &w->contacts[w->active[k]];
        c->res = sqrt(c->res);
    }
    rep->local_solves = (long)it * w->nactive;
    *iters = it;
    *res_out = res;
    return s;
}
