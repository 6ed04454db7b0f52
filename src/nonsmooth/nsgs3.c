/* nsgs3.c -- nonsmooth Gauss--Seidel over the 3D contacts of a dim = 3
 * world (model/contact3.h): per contact, with the others' impulses fixed,
 * the one-contact problem u = W p + b, K ∋ p ⊥ u~ ∈ K* in De Saxce's form
 * with the law's shift (Acary & Collins-Craft 2024 eqs. 10, 96 / 101),
 * solved exactly (cone3.c, warm-started by the contact's last impulse), and
 * the change of impulse applied to the velocity, V += kappa Mhat^-1 H^T dp
 * (factored per side: H^T dp, then 1/m and Ainv). The residual is the natural map's,
 * |p - proj_K(p - u~(u + shift))| summed over the contacts, relative to
 * 1 + |b| (solver.norm "l2"), or to max(|b|, |p|, |u + shift|) as Siconos
 * 4.4 ("siconos"), or the largest contact's ("max") (docs/theory/spatial.md,
 * "NSGS"): by a pass after every checked
 * sweep, or (solver residual = "sweep") estimated in the sweep and confirmed
 * by a pass. The sweep order: by index (the default), by height along
 * gravity (order = "position": bottom first, "top": top first) or by colour
 * (nsgs3_order.c); the colours' contacts may be shared by threads (solver
 * threads > 1: colour_sweep, team3_*). With accelerate = "anderson" the
 * sweeps on the hot records are extrapolated (anderson3.c). */
#include "nonsmooth/nonsmooth_impl.h"
#include "nonsmooth/nsgs3_hot.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

/* (u + shift) of contact c at the velocity V */
void rcn_contact3_velocity(const rc_world *w, const rcm_contact3 *c, const double *V, double *u)
{
    const double *vb = V + w->bodies[c->body_b].iv, *n = c->n, *t1 = c->t1, *t2 = c->t2;
    double u0 = c->shift[0], u1 = c->shift[1], u2 = c->shift[2];
    for (int j = 0; j < 3; j++) {   /* Hb = (d, Rb) */
        u0 += n[j] * vb[j];
        u1 += t1[j] * vb[j];
        u2 += t2[j] * vb[j];
    }
    for (int j = 0; j < 3; j++) {
        u0 += c->Rb[0][j] * vb[3 + j];
        u1 += c->Rb[1][j] * vb[3 + j];
        u2 += c->Rb[2][j] * vb[3 + j];
    }
    if (c->body_a >= 0) {   /* Ha = (-d, Ra) */
        const double *va = V + w->bodies[c->body_a].iv;
        for (int j = 0; j < 3; j++) {
            u0 += -n[j] * va[j];
            u1 += -t1[j] * va[j];
            u2 += -t2[j] * va[j];
        }
        for (int j = 0; j < 3; j++) {
            u0 += c->Ra[0][j] * va[3 + j];
            u1 += c->Ra[1][j] * va[3 + j];
            u2 += c->Ra[2][j] * va[3 + j];
        }
    }
    u[0] = u0; u[1] = u1; u[2] = u2;
}

void rcn_contact3_mh(const rc_world *w, int body, double H[3][6], double kappa, double MH[3][6])
{
    const rc_body *bd = &w->bodies[body];
    const double im = bd->inv_mass, *A = w->rigid3d[bd->linear].Ainv;
    for (int k = 0; k < 3; k++) {
        const double *h = H[k];
        for (int j = 0; j < 3; j++) MH[k][j] = h[j] * im * kappa;
        for (int i = 0; i < 3; i++) MH[k][3 + i] = (A[3 * i] * h[3] + A[3 * i + 1] * h[4] + A[3 * i + 2] * h[5]) * kappa;
    }
}

/* v += kappa Mhat^-1 H^T dp over one side (b = 1: B, 0: A), factored:
 * H^T dp = (+-(n dp0 + t1 dp1 + t2 dp2), R^T dp), then 1/m on the
 * translation and the step's Ainv on the rotation (the same to round-off as
 * the stored MH columns; no row copies: the hot path) */
static inline void side_apply(const rc_world *w, const rcm_contact3 *c, int b, double kappa, double *v,
                              const double *dp)
{
    const rc_body *bd = &w->bodies[b ? c->body_b : c->body_a];
    const double *A = w->rigid3d[bd->linear].Ainv, *n = c->n, *t1 = c->t1, *t2 = c->t2;
    const double (*R)[3] = b ? c->Rb : c->Ra;
    const double s = (b ? 1.0 : -1.0) * bd->inv_mass * kappa;
    double y[3];
    for (int j = 0; j < 3; j++) {
        v[j] += s * (n[j] * dp[0] + t1[j] * dp[1] + t2[j] * dp[2]);
        y[j] = R[0][j] * dp[0] + R[1][j] * dp[1] + R[2][j] * dp[2];
    }
    for (int i = 0; i < 3; i++) v[3 + i] += kappa * (A[3 * i] * y[0] + A[3 * i + 1] * y[1] + A[3 * i + 2] * y[2]);
}

/* V += kappa Mhat^-1 H^T dp */
void rcn_contact3_apply(const rc_world *w, const rcm_contact3 *c, double *V, const double *dp)
{
    side_apply(w, c, 1, w->c3->kappa, V + w->bodies[c->body_b].iv, dp);
    if (c->body_a >= 0) side_apply(w, c, 0, w->c3->kappa, V + w->bodies[c->body_a].iv, dp);
}

/* Skipping quiet contacts (solver skip_quiet): a contact's one-contact
 * problem depends on the sweep only through u = H V of its two bodies. Each
 * body keeps odometers of how much its velocity has changed in the sweeps
 * (sum of |dv|_1 and of |dw|_1), each contact their values when it was last
 * solved and its levers (the largest row norm of its R blocks). While
 * dT_a + l_a dR_a + dT_b + l_b dR_b <= eps, its u moved by at most that
 * since its own solve, which left it at its fixed point: its natural-map
 * term is at most (1 + mu) eps, and solving it again is skipped. The stop
 * test is still the residual pass over every contact. */
typedef struct {
    int on;
    double eps, loud2;       /* the skip bound; a residual term (squared) above loud2 is
                                never skipped: (tol (1 + |b|) / 2)^2 / n, so that a pass
                                above tol always finds a contact to solve again      */
    double *ot, *orr;        /* per body: odometers (translation, rotation)            */
    double *snap, *lev;      /* per contact: 4 odometer values at its solve; 2 levers */
} quiet_ctx;

static double lever(const double *R)   /* 3 x 3, row-major */
{
    double m = 0.0;
    for (int r = 0; r < 3; r++) m = fmax(m, sqrt(R[3 * r] * R[3 * r] + R[3 * r + 1] * R[3 * r + 1] + R[3 * r + 2] * R[3 * r + 2]));
    return m;
}

/* the odometer distance of contact i (bodies bb, ba; ba < 0: the ground)
 * since its last solve (HUGE_VAL: never solved) */
static inline double moved(const quiet_ctx *q, int i, int bb, int ba)
{
    const double *sn = q->snap + 4 * i;
    if (!(sn[0] >= 0.0)) return HUGE_VAL;
    double d = (q->ot[bb] - sn[2]) + q->lev[2 * i + 1] * (q->orr[bb] - sn[3]);
    if (ba >= 0) d += (q->ot[ba] - sn[0]) + q->lev[2 * i] * (q->orr[ba] - sn[1]);
    return d;
}

/* the odometers of body b after its velocity went from old to V (6 values) */
static inline void odometer(quiet_ctx *q, int b, const double *old, const double *v)
{
    q->ot[b] += fabs(v[0] - old[0]) + fabs(v[1] - old[1]) + fabs(v[2] - old[2]);
    q->orr[b] += fabs(v[3] - old[3]) + fabs(v[4] - old[4]) + fabs(v[5] - old[5]);
}

static inline void snapshot(quiet_ctx *q, int i, int bb, int ba)
{
    double *sn = q->snap + 4 * i;
    sn[0] = ba >= 0 ? q->ot[ba] : 0.0;
    sn[1] = ba >= 0 ? q->orr[ba] : 0.0;
    sn[2] = q->ot[bb];
    sn[3] = q->orr[bb];
}

/* sum |p - proj_K(p - u~)|^2 over the active contacts (a law without a
 * closed form: its natural map, law3.c); the largest contact term and 1 +
 * its index in c3->worst1, c3->worst_res */
static rc_status residual2(rc_world *w, const double *V, double *sum, quiet_ctx *q)
{
    rcm_c3 *c3 = w->c3;
    double r2 = 0.0, rmax = -1.0;
    c3->worst1 = 0;
    for (int i = 0; i < c3->n; i++) {
        rcm_contact3 *c = &c3->c[i];
        if (!c->active) continue;
        double ri;
        if (c3->ndrill && c3->d[i].on) ri = rcn_drill_residual2(w, c, &c3->d[i], V);   /* contensou.c */
        else {
            double u[3];
            rcn_contact3_velocity(w, c, V, u);
            if (w->laws[c->law].closed_form) ri = rcn_cone3_residual2(u, c->p, w->laws[c->law].def.mu);
            else RC_CHECK(rcn_contact3_law_residual2(w, c, u, &ri));
        }
        r2 += ri;
        if (ri > rmax) { rmax = ri; c3->worst1 = i + 1; }
        if (q->on && ri > q->loud2) q->snap[4 * i] = -1.0;   /* above its share of tol: solved in the next sweep */
    }
    c3->worst_res = rmax >= 0.0 ? sqrt(rmax) : 0.0;
    *sum = r2;
    return RC_OK;
}

/* One Gauss--Seidel update of contact i; r2 (or NULL): its squared
 * natural-map residual as visited (u from the current V, p before the
 * update; closed-form laws without a drilling row only). */
static inline rc_status solve_one(rc_world *w, int i, double *V, double *r2)
{
    rcm_c3 *c3 = w->c3;
    rcm_contact3 *c = &c3->c[i];
    if (c3->ndrill && c3->d[i].on) { rcn_drill_sweep(w, c, &c3->d[i], V); return RC_OK; }   /* contensou.c */
    const rc_law *law = &w->laws[c->law];
    double u[3], b[3], p[3];
    rcn_contact3_velocity(w, c, V, u);   /* u + shift with this contact's p in V */
    for (int r = 0; r < 3; r++) b[r] = u[r] - (c->W[3 * r] * c->p[0] + c->W[3 * r + 1] * c->p[1] + c->W[3 * r + 2] * c->p[2]);
    if (law->closed_form) {
        if (r2) *r2 = rcn_cone3_residual2(u, c->p, law->def.mu);
        rcn_cone3_local_solve_from(c->W, c->winv_ok ? c->Winv : NULL, b, law->def.mu, c->p, p);
        const double omega = w->sim.solver.relax;
        if (omega != 1.0) {   /* over/under-relaxation, back onto the cone */
            for (int r = 0; r < 3; r++) p[r] = omega * p[r] + (1.0 - omega) * c->p[r];
            rcm_fc3d_project(law->def.mu, p);
        }
    } else {
        p[0] = c->p[0]; p[1] = c->p[1]; p[2] = c->p[2];
        RC_CHECK(rcn_contact3_law_solve(w, c, b, p));   /* law3.c */
    }
    const double dp[3] = { p[0] - c->p[0], p[1] - c->p[1], p[2] - c->p[2] };
    if (dp[0] != 0.0 || dp[1] != 0.0 || dp[2] != 0.0) rcn_contact3_apply(w, c, V, dp);
    c->p[0] = p[0]; c->p[1] = p[1]; c->p[2] = p[2];
    return RC_OK;
}

/* the quiet-contact context of this solve (off: q->on = 0) in the work arena */
static rc_status quiet_begin(rc_world *w, double share, int n, quiet_ctx *q)
{
    rcm_c3 *c3 = w->c3;
    const double f = w->sim.solver.skip_quiet;
    q->on = f > 0.0 && c3->ndrill == 0 && rcn_joints3_count(w) == 0 && n > 0;
    if (!q->on) return RC_OK;
    q->eps = f * share;
    q->loud2 = 0.25 * share * share;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&q->ot, 2LL * w->nbodies, sizeof(double), "3D quiet contacts"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&q->snap, 6LL * (c3->n > 0 ? c3->n : 1), sizeof(double), "3D quiet contacts"));
    q->orr = q->ot + w->nbodies;
    q->lev = q->snap + 4LL * c3->n;
    for (int b = 0; b < 2 * w->nbodies; b++) q->ot[b] = 0.0;
    for (int i = 0; i < c3->n; i++) {
        q->snap[4 * i] = -1.0;
        if (!c3->c[i].active) continue;   /* swept contacts only: moved() reads their levers */
        q->lev[2 * i] = lever(&c3->c[i].Ra[0][0]);
        q->lev[2 * i + 1] = lever(&c3->c[i].Rb[0][0]);
    }
    return RC_OK;
}

/* Whether the in-sweep residual can stand for the contacts' terms: every
 * active contact's law has a closed form and no drilling row (those keep
 * the passes). */
static int estimable(const rc_world *w)
{
    const rcm_c3 *c3 = w->c3;
    if (c3->ndrill) return 0;
    for (int i = 0; i < c3->n; i++)
        if (c3->c[i].active && !w->laws[c3->c[i].law].closed_form) return 0;
    return 1;
}

/* The hot records (nsgs3_pack.c) when every active contact can have one
 * (skipped quiet contacts or not): h (NULL: the contacts' path) for the
 * first m contacts of the order, at most rcn_nsgs3_pack_bytes (1 MiB) of them (the rest, of
 * large piles, on their records: the same arithmetic; the pack is work
 * memory of the step, kept within the memory per body of issue 14), and
 * slot[i] the record of contact i (-1: none) when the order is not by index
 * or not every contact is packed (else NULL), for the residual pass's sum
 * in index order. */
size_t rcn_nsgs3_pack_bytes = (size_t)1 << 20;
typedef struct {
    rcn_c3hot *h;
    int m;
    int *slot;
} hot_ctx;

static rc_status hot_begin(rc_world *w, const int *order, int n, int all, hot_ctx *hot)
{
    if (!rcn_nsgs3_pack_usable(w, order, n)) return RC_OK;
    const size_t cap = all ? (size_t)n : rcn_nsgs3_pack_bytes / rcn_nsgs3_pack_record_size();
    hot->m = (size_t)n < cap ? n : (int)cap;
    RC_CHECK(rcn_nsgs3_pack(w, order, hot->m, &hot->h));
    int sorted = hot->m == n;
    for (int k = 1; k < n && sorted; k++) sorted = order[k] > order[k - 1];
    if (sorted) return RC_OK;
    const rcm_c3 *c3 = w->c3;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&hot->slot, c3->n > 0 ? c3->n : 1, sizeof(int), "3D contacts' hot records"));
    for (int i = 0; i < c3->n; i++) hot->slot[i] = -1;
    for (int k = 0; k < hot->m; k++) hot->slot[order[k]] = k;
    return RC_OK;
}

/* The contacts order[lo..hi) in turn: those of the first hot->m places on
 * their hot records (none when hot->m = 0), the rest on their records; est
 * (or NULL): the sum of their squared residuals as visited, in one
 * accumulator, in order */
static rc_status sweep_range(rc_world *w, const hot_ctx *hot, const int *order, int lo, int hi, double *V, double *est)
{
    double sum = 0.0;
    const int m = hot->m, packed_end = hi < m ? hi : m;
    if (lo < packed_end) rcn_nsgs3_pack_sweep(w, hot->h, lo, packed_end, V, est ? &sum : NULL);   /* nsgs3_pack.c */
    for (int k = lo > m ? lo : m; k < hi; k++) {
        double r2 = 0.0;
        RC_CHECK(solve_one(w, order[k], V, est ? &r2 : NULL));
        sum += r2;
    }
    if (est) *est = sum;
    return RC_OK;
}

/* The same with quiet contacts skipped (skip_quiet), odometers and
 * snapshots kept; *solves: the one-contact solves made. A packed contact's
 * bodies are read from its hot record (the contact record, ~730 bytes, is
 * not touched in the sweep). */
static rc_status quiet_range(rc_world *w, const hot_ctx *hot, const int *order, int lo, int hi, double *V, double *est,
                             quiet_ctx *q, long *solves)
{
    rcm_c3 *c3 = w->c3;
    double sum = 0.0;
    long done = 0;
    for (int k = lo; k < hi; k++) {
        int i, bb, ba, ivb, iva;
        if (k < hot->m) {
            const rcn_c3hot *r = &hot->h[k];
            i = r->i; bb = r->bb; ba = r->ba; ivb = r->ivb; iva = r->iva;
        } else {
            i = order[k];
            bb = c3->c[i].body_b; ba = c3->c[i].body_a;
            ivb = w->bodies[bb].iv; iva = ba >= 0 ? w->bodies[ba].iv : -1;
        }
        if (moved(q, i, bb, ba) <= q->eps) continue;   /* its term is <= (1 + mu) eps: counted as 0 */
        double r2 = 0.0;
        if (k < hot->m) {   /* nsgs3_pack.c: the velocity changes from the update itself */
            double odo[4];
            rcn_nsgs3_pack_solve(w, hot->h, k, V, est ? &r2 : NULL, odo);
            q->ot[bb] += odo[0]; q->orr[bb] += odo[1];
            if (ba >= 0) { q->ot[ba] += odo[2]; q->orr[ba] += odo[3]; }
        } else {
            double *vb = V + ivb, *va = iva >= 0 ? V + iva : NULL;
            double ob[6], oa[6];
            memcpy(ob, vb, sizeof ob);
            if (va) memcpy(oa, va, sizeof oa);
            RC_CHECK(solve_one(w, i, V, est ? &r2 : NULL));
            odometer(q, bb, ob, vb);
            if (va) odometer(q, ba, oa, va);
        }
        done++;
        sum += r2;
        snapshot(q, i, bb, ba);
    }
    *solves = done;
    if (est) *est = sum;
    return RC_OK;
}

/* One sweep on this thread: the joints, then the contacts of order[0..n)
 * (quiet ones skipped when q->on) */
static rc_status sweep_all(rc_world *w, const hot_ctx *hot, const int *order, int n, double *V, double *est,
                           quiet_ctx *q)
{
    rcn_joints3_sweep(w, V);
    long solves = n;
    const rc_status st = q->on ? quiet_range(w, hot, order, 0, n, V, est, q, &solves)
                               : sweep_range(w, hot, order, 0, n, V, est);
    w->c3->solves += solves;
    return st;
}

/* The contacts order[lo..hi) of a colour sweep; returns the one-contact
 * solves made. Colour sweeps are taken only when every active law has a
 * closed form and no drilling row (estimable), so a range cannot fail; a
 * failure would still be kept in fail (the first thread's to fail) and
 * returned by the sweep, not dropped. */
typedef struct colour_ctx {
    rc_world *w;
    const hot_ctx *hot;
    const int *order;
    double *V;
    quiet_ctx *q;
    _Atomic int fail;   /* rc_status of a failed range, RC_OK else */
} colour_ctx;

static long colour_range(void *ctx, int lo, int hi)
{
    colour_ctx *cx = ctx;
    long solves = hi - lo;
    const rc_status st = cx->q->on ? quiet_range(cx->w, cx->hot, cx->order, lo, hi, cx->V, NULL, cx->q, &solves)
                                   : sweep_range(cx->w, cx->hot, cx->order, lo, hi, cx->V, NULL);
    if (st != RC_OK) {
        int ok = RC_OK;
        atomic_compare_exchange_strong(&cx->fail, &ok, (int)st);
    }
    return solves;
}

/* Colours with fewer 3D contacts than this are swept by one thread (a
 * shared colour costs a barrier, the time of a few 3D one-contact solves);
 * no effect on the numbers. 128: the N = 1 000 sphere pile (colours of 100
 * to 500 contacts) 13.0 ms per step on two threads against 15.6 with 512
 * (no colour shared) and 17.6 with 32 (docs/benchmarks.md). Internal,
 * tests set it to 0 to share every colour. */
int rcn_nsgs3_parallel_min = 128;

/* One sweep in colour order (order = "colour", every active law closed-form,
 * no drilling row: nothing fails) on nt threads: the joints on this thread,
 * then colour by colour (colour.c's pass: a colour of at least
 * rcn_nsgs3_parallel_min contacts shared, runs of smaller ones on one
 * thread). A colour's contacts touch disjoint velocities, hot records and
 * (skip_quiet) odometers and snapshots: the numbers do not depend on nt,
 * bit for bit. */
static rc_status colour_sweep(rc_world *w, const hot_ctx *hot, const int *order, const rcn_colours *col, double *V,
                              quiet_ctx *q, int nt)
{
    rcn_joints3_sweep(w, V);
    colour_ctx cx = { w, hot, order, V, q, RC_OK };
    long solves = 0;
    RC_OMP(omp parallel num_threads(nt) if(nt > 1) reduction(+ : solves))
    solves += rcn_colour_pass(col->n, col->start, rcn_nsgs3_parallel_min, colour_range, &cx);
    w->c3->solves += solves;
    return (rc_status)atomic_load(&cx.fail);
}

/* The thread team of the colour sweeps (solver threads > 1; the planar
 * sweeps' rules, nsgs.c): none in a step without a colour of
 * rcn_nsgs3_parallel_min contacts. adaptive_threads: sweeps 1, 17, 33, ...
 * of a step run on this thread and set the cost per contact the team has
 * to beat; the team's sweeps are timed from the second after each such
 * reference (the first wakes the threads), and two in a row slower than
 * margin times it hand the rest of the step to this thread and back the
 * team off for 16, 32, ... 1024 steps. Same numbers either way. */
typedef struct team3 {
    int nt;               /* threads of a team sweep (1: no team this step) */
    int timed, left;      /* adaptive timing; the team stopped for this step */
    int slow, since_ref;  /* team sweeps slower in a row; since the reference */
    int team_sweeps;      /* sweeps the team made this step                  */
    double serial_s;      /* the reference's seconds per contact             */
} team3;

static void team3_begin(rc_world *w, const rcn_colours *col, int coloured, team3 *t)
{
    const rc_solver_def *opt = &w->sim.solver;
    memset(t, 0, sizeof *t);
    t->nt = coloured && rc_openmp() ? opt->threads : 1;
    int shared = 0;
    for (int k = 0; k < col->n && !shared; k++) shared = col->start[k + 1] - col->start[k] >= rcn_nsgs3_parallel_min;
    if (!shared) t->nt = 1;   /* nothing worth sharing: no team this step */
    if (t->nt > 1 && opt->adaptive_threads && w->step < w->par_off_until) t->nt = 1;   /* backing off */
    t->timed = t->nt > 1 && opt->adaptive_threads;
    if (t->nt > 1) rcn_nsgs_team_join(w);
}

/* colour sweep number it of the step, on the team or on this thread */
static rc_status team3_sweep(rc_world *w, team3 *t, int it, const hot_ctx *hot, const int *order, int n,
                             const rcn_colours *col, double *V, quiet_ctx *q)
{
    const int ref = t->timed && (it - 1) % 16 == 0, nt = t->left || ref ? 1 : t->nt;
    const double t0 = t->timed && !t->left ? rcn_wall_s() : 0.0;
    const rc_status st = colour_sweep(w, hot, order, col, V, q, nt);
    if (nt > 1) t->team_sweeps++;
    if (!t->timed || t->left) return st;
    const double per = (rcn_wall_s() - t0) / (n > 0 ? n : 1);
    if (ref) {
        t->serial_s = per;
        t->since_ref = 0;
    } else if (++t->since_ref >= 2) {
        t->slow = per > rcn_nsgs_team_margin * t->serial_s ? t->slow + 1 : 0;
        t->left = t->slow >= 2;
    }
    return st;
}

/* The residual pass of the colour sweeps: the contacts' terms on the
 * team's threads (or this one) into r2i, their sum on this thread in index
 * order (rcn_nsgs3_terms_sum: the numbers of one thread) */
static double colour_residual(rc_world *w, const team3 *t, const hot_ctx *hot, const int *order, int n,
                              const double *V, const quiet_ctx *q, double *r2i)
{
    const int nt = t->left ? 1 : t->nt;
    RC_OMP(omp parallel num_threads(nt) if(nt > 1))
    {
        int tid = 0, nth = 1;
#ifdef _OPENMP
        tid = omp_get_thread_num();
        nth = omp_get_num_threads();
#endif
        rcn_nsgs3_pack_terms(w, hot->h, hot->m, order, (int)((long)n * tid / nth), (int)((long)n * (tid + 1) / nth), V, r2i);
    }
    return rcn_nsgs3_terms_sum(w, r2i, q->on ? q->snap : NULL, q->loud2);
}

static void team3_end(rc_world *w, const team3 *t)
{
    if (t->left) rcn_nsgs_team_backoff(w);
    else if (t->team_sweeps > 0) w->par_backoff = 0;
    w->c3->shared = t->team_sweeps > 0;
}

/* The stopping test's divisor at V: 1 + |b| (norm "l2"); max(|b|, |p|,
 * |u + shift|) over the contacts (norm "siconos": Siconos 4.4's
 * fc3d_compute_error, docs/theory/spatial.md), 1 when that is 0 */
static double scale_at(const rc_world *w, const hot_ctx *hot, const int *order, int n, const double *V, double bnorm)
{
    if (w->sim.solver.norm != RC_NORM_SICONOS) return 1.0 + bnorm;
    double p2, u2;
    rcn_nsgs3_norms2(w, hot->h, hot->m, order, n, V, &p2, &u2);   /* nsgs3_pack.c */
    const double s = fmax(bnorm, sqrt(fmax(p2, u2)));
    return s > DBL_EPSILON ? s : 1.0;
}

/* The stopping test's number from the contacts' squared terms' sum r2 (their
 * largest in c3->worst_res) and the joints' j2: the largest term (norm
 * "max"; the joints' rows together), else the L2 norm over the divisor */
static double stop_number(const rc_world *w, double r2, double j2, double scale)
{
    if (w->sim.solver.norm == RC_NORM_MAX) return fmax(w->c3->worst_res, sqrt(j2));
    return sqrt(r2 + j2) / scale;
}

rc_status rcn_nsgs3(rc_world *w, double *V, double bnorm, double *res, int *iters)
{
    rcm_c3 *c3 = w->c3;
    const rc_solver_def *opt = &w->sim.solver;
    const double tol = opt->tol;
    const int max_iter = opt->max_iter, every = opt->check_every > 0 ? opt->check_every : 1;
    *res = 0.0;
    *iters = 0;
    c3->worst1 = 0;
    c3->worst_res = 0.0;
    c3->solves = 0;
    c3->shared = 0;
    if (c3->nactive == 0 && rcn_joints3_count(w) == 0) return RC_OK;
    int *order, n;
    rcn_colours col;
    RC_CHECK(rcn_nsgs3_order(w, &order, &n, &col));   /* nsgs3_order.c */
    /* colour sweeps (possibly shared) when nothing can fail; else the order on this thread */
    const int coloured = col.n > 0 && estimable(w);
    const int fused = opt->residual == RC_RESIDUAL_SWEEP && estimable(w) && !coloured && opt->norm != RC_NORM_MAX,
              adaptive = !fused && every == 1;
    hot_ctx hot = { 0 };
    const int joints = rcn_joints3_count(w) > 0;
    RC_CHECK(hot_begin(w, order, n, opt->anderson > 0 && !joints, &hot));
    double scale = scale_at(w, &hot, order, n, V, bnorm);   /* the warm start's (norm "siconos") */
    quiet_ctx q;   /* a contact's share of the tolerance, absolute */
    RC_CHECK(quiet_begin(w, opt->norm == RC_NORM_MAX ? tol : tol * scale / sqrt((double)(n > 0 ? n : 1)), n, &q));
    if (opt->anderson > 0) {
        if (hot.h && !joints) {   /* anderson3.c: every contact packed */
            const rc_status st = rcn_anderson3(w, hot.h, n, hot.slot, V, bnorm, res, iters);
            rcn_nsgs3_unpack(w, hot.h, hot.m);
            return st;
        }
        if (!w->aa3_plain_warned)
            rcm_world_warn(w, "solver \"nsgs\", accelerate = \"anderson\" (3D contacts): at t = %.17g (step %ld) the "
                           "contacts include %s: plain NSGS sweeps for such steps (warned once)", w->t, w->step + 1,
                           joints ? "3D joints" : "a drilling row or a law without a closed form");
        w->aa3_plain_warned = 1;
    }
    team3 team;
    team3_begin(w, &col, coloured, &team);
    double *r2i = NULL;   /* the colour sweeps' residual terms, by contact */
    if (coloured) RC_CHECK(rcb_arena_array(&w->work, (void **)&r2i, c3->n, sizeof(double), "3D residual terms"));
    int next = 1, prev_it = 0;   /* adaptive: the sweep of the next pass, that of the last */
    double prev = 0.0;
    rc_status st = RC_OK;
    for (int it = 1; it <= max_iter; it++) {
        const int check = (adaptive ? it >= next : it % every == 0) || it == max_iter;
        double est = 0.0;
        double *pest = fused && check && it < max_iter ? &est : NULL;
        /* without hot records (hot.m = 0) every contact is swept on its record */
        if (coloured) st = team3_sweep(w, &team, it, &hot, order, n, &col, V, &q);
        else st = sweep_all(w, &hot, order, n, V, pest, &q);
        if (st != RC_OK) break;
        *iters = it;
        if (!check) continue;
        if (fused && it < max_iter) {   /* the estimate lags the iterate by up to a sweep: a pass decides */
            est = sqrt(est + rcn_joints3_residual2(w, V)) / scale;   /* norm "siconos": the last pass's divisor */
            if (!rcb_finite(est)) { st = rc_set_error(RC_ERR_NUMERIC, "nsgs (3D contacts): non-finite residual after %d sweeps", it); break; }
            if (est > tol) continue;
        }
        double r2 = 0.0;
        if (coloured) r2 = colour_residual(w, &team, &hot, order, n, V, &q, r2i);
        else if (hot.h) r2 = rcn_nsgs3_pack_residual(w, hot.h, hot.m, hot.slot, V, q.on ? q.snap : NULL, q.loud2);
        else if ((st = residual2(w, V, &r2, &q)) != RC_OK) break;
        if (opt->norm == RC_NORM_SICONOS) scale = scale_at(w, &hot, order, n, V, bnorm);
        *res = stop_number(w, r2, rcn_joints3_residual2(w, V), scale);
        if (!rcb_finite(*res)) { st = rc_set_error(RC_ERR_NUMERIC, "nsgs (3D contacts): non-finite residual after %d sweeps", it); break; }
        if (*res <= tol) break;
        if (adaptive) {
            next = it + rcn_pass_gap(*res, prev, it - prev_it, tol);
            prev = *res;
            prev_it = it;
        }
    }
    if (hot.h) rcn_nsgs3_unpack(w, hot.h, hot.m);
    team3_end(w, &team);
    return st;
}

/* the stopping test's residual (absolute: the caller divides by 1 + |b|),
 * for the 3D Newton solver (newton3.c) */
rc_status rcn_nsgs3_residual(rc_world *w, const double *V, double *res)
{
    quiet_ctx off = { 0 };
    double r2;
    RC_CHECK(residual2(w, V, &r2, &off));
    *res = sqrt(r2 + rcn_joints3_residual2(w, V));   /* 3D joints (joint3_block.c) */
    return RC_OK;
}
