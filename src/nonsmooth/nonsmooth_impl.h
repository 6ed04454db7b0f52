/*
 * nonsmooth/nonsmooth_impl.h -- what the solvers' files share (not public,
 * not for other layers): the local velocities (model.h's rcm_contact_dot,
 * rcm_joint_dot with the rows' shift) and the joint blocks (nsgs.c, uzawa.c).
 */
#ifndef RC_NONSMOOTH_IMPL_H
#define RC_NONSMOOTH_IMPL_H

#include "nonsmooth/nonsmooth.h"

#include "model/team.h"   /* RC_OMP, omp.h, rcm_team2 */

/* A prefetch of the line holding *p (the sweeps over scattered records). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* an asm statement: gcc 12 drops __builtin_prefetch in this loop (dead-code
 * elimination), which costs nsgs.c's colour order a factor of two */
#define RC_PREFETCH(p) __asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)(p)))
#elif defined(__GNUC__) && defined(__aarch64__)
#define RC_PREFETCH(p) __asm__ __volatile__("prfm pldl1keep, %0" : : "Q"(*(const char *)(p)))
#elif defined(__GNUC__)
#define RC_PREFETCH(p) __builtin_prefetch(p)
#else
#define RC_PREFETCH(p) ((void)(p))
#endif

/* Whether every law of the world has a closed form (nsgs.c: the in-sweep
 * residual and the coloured solve; nsgs_pack.c: the hot records). */
static inline int rcn_all_laws_closed(const rc_world *w)
{
    for (int i = 0; i < w->nlaws; i++)
        if (!w->laws[i].closed_form) return 0;
    return 1;
}

/* nsgs_pack.c: the hot records of the planar active contacts in sweep order
 * (one solve's; the twin of nsgs3_pack.c): h (opaque, 152 bytes each), the
 * bodies' kappa/m, kappa/m, kappa/I at their V offsets (mk), the residual
 * pass's squared terms by record (r2), and (sweep other than w->active) the
 * record of each contact (at, by contact index). usable: every active
 * contact geometric with a closed-form law. pack: in the order sweep, from
 * the contacts' fields; unpack: p and the residual term's root (c->res)
 * back to the contacts. swap: records a and b (the random order's shuffle,
 * in step with w->active). sweep: records [lo, hi) in turn at w->V (est:
 * sweep_estimate's sum and largest term, or NULL). terms: the residual
 * pass's squared terms of records [lo, hi) into r2. */
typedef struct rcn_c2hot rcn_c2hot;
typedef struct rcn_pack2 {
    rcn_c2hot *h;
    double *mk, *r2;
    int *at;
    int n;
    /* the coloured solve's residual passes (nsgs.c): per block of
     * RCN_PACK_BLOCK records, the sum of its squared terms, the largest and
     * its record (rcn_nsgs_pack_block); NULL outside the coloured solve */
    double *bsum, *bmax;
    int *barg;
} rcn_pack2;
#define RCN_PACK_BLOCK 256
rc_status rcn_nsgs_pack(rc_world *w, const int *sweep, rcn_pack2 *pk);
/* p and the residual terms back to the contacts; 1 if every p is finite */
int rcn_nsgs_unpack(rc_world *w, const rcn_pack2 *pk, const int *sweep);
void rcn_nsgs_pack_swap(rcn_pack2 *pk, int a, int b);
void rcn_nsgs_pack_sweep(rc_world *w, rcn_pack2 *pk, int lo, int hi, double omega, double est[2]);
/* nsgs_simd.c: records [lo, hi) sharing no movable body (one colour), four at a time where it can */
long rcn_nsgs_pack_sweep_indep(rc_world *w, rcn_pack2 *pk, int lo, int hi, double omega);   /* groups of four */
int rcn_nsgs_pack_terms4(const rc_world *w, rcn_pack2 *pk, int lo, int hi);   /* residual terms, four at a time */
int rcn_nsgs_simd_usable(void);   /* the four-at-a-time path compiled in and the CPU able (AVX2) */
extern int rcn_nsgs_simd;          /* internal: 0 turns it off (tests) */
void rcn_nsgs_pack_sweep2(rc_world *w, rcn_pack2 *pk, int lo1, int hi1, int lo2, int hi2, double omega);
void rcn_nsgs_pack_terms(const rc_world *w, rcn_pack2 *pk, int lo, int hi);
/* blocks: room for the block sums (the coloured solve's); block: the terms
 * of records [RCN_PACK_BLOCK b, RCN_PACK_BLOCK (b + 1)) and their block's
 * sum, largest and its record */
rc_status rcn_nsgs_pack_blocks(rc_world *w, rcn_pack2 *pk);
void rcn_nsgs_pack_block(const rc_world *w, rcn_pack2 *pk, int b);
size_t rcn_nsgs_pack_record_size(void);
void rcn_nsgs_pack_get(const rcn_pack2 *pk, int k, double p[2]);

/* Local velocity u = H V + shift of contact c (u includes the law shift). */
static inline void local_velocity(const rc_world *w, const rc_contact *c, const double *V, double u[2])
{
    rcm_contact_dot(w, c, V, c->shift, u);
}

/* Joint j's row velocity H V + dg/dt. */
static inline void joint_velocity(const rc_world *w, const rc_joint *j, const double *V, double *u)
{
    rcm_joint_dot(w, j, &j->Ha[0][0], &j->Hb[0][0], V, j->shift, RCM_SUM_BY_SIDE, u);
}

/* The motor row, box-constrained: lambda = clamp(lambda - (H V - target) / W,
 * -h F, h F); then the limit row, unilateral with the impact law's shift:
 * lambda = max(0, lambda - (u_n + shift) / W), u_n = -side H V
 * (joint_motor.c has the overview). */
static inline void joint_x_solve(rc_world *w, rc_joint *j)
{
    if (j->motor) {
        const double m = w->sim.h * j->motor_max;
        double l = j->motor_lambda - (rcm_joint_x_dot(w, j, w->V) - j->motor_target) / j->xW;
        l = l < -m ? -m : l > m ? m : l;
        const double dl = l - j->motor_lambda;
        if (dl != 0.0) rcm_joint_x_apply(w, j, w->V, dl);
        j->motor_lambda = l;
    }
    if (j->limit_side) {
        const double s = -(double)j->limit_side;
        double l = j->limit_lambda - (s * rcm_joint_x_dot(w, j, w->V) + j->limit_shift) / j->xW;
        if (l < 0.0) l = 0.0;
        const double dl = l - j->limit_lambda;
        if (dl != 0.0) rcm_joint_x_apply(w, j, w->V, s * dl);
        j->limit_lambda = l;
    }
}

/* The natural-map residual of those rows, squared. */
static inline double joint_x_residual2(const rc_world *w, const rc_joint *j)
{
    double r2 = 0.0;
    if (j->motor) {
        const double m = w->sim.h * j->motor_max;
        double l = j->motor_lambda - (rcm_joint_x_dot(w, j, w->V) - j->motor_target);
        l = l < -m ? -m : l > m ? m : l;
        r2 += (l - j->motor_lambda) * (l - j->motor_lambda);
    }
    if (j->limit_side) {
        double l = j->limit_lambda - (-(double)j->limit_side * rcm_joint_x_dot(w, j, w->V) + j->limit_shift);
        if (l < 0.0) l = 0.0;
        r2 += (l - j->limit_lambda) * (l - j->limit_lambda);
    }
    return r2;
}

/* An equality block is solved exactly: lambda += -W^-1 (H V + dg/dt). */
static inline void joint_solve(rc_world *w, rc_joint *j)
{
    double u[3], dl[3];
    joint_velocity(w, j, w->V, u);
    for (int r = 0; r < j->rows; r++) {
        dl[r] = 0.0;
        for (int k = 0; k < j->rows; k++) dl[r] -= j->Winv[r][k] * u[k];
        j->lambda[r] += dl[r];
    }
    rcm_joint_apply(w, j, &j->MHa[0][0], &j->MHb[0][0], w->V, 0, dl);
    if (rcm_joint_has_x(j)) joint_x_solve(w, j);
}

/* nsgs.c: the natural-map residual of the active contacts and the joints
 * (their local velocities from w->V), its worst row. */
rc_status rcn_nsgs_residual(rc_world *w, double norm_b, int *worst, double *res);
/* nsgs.c: the world frees and measures the sweep orders (and leaves the
 * OpenMP team) through the solver's part. */
void rcn_nsgs_attach(rc_world *w);
/* nsgs_order.c: the step's sweep order (*sweep: w->active or w->sweep;
 * closed, or NULL: whether a colour or slabs order may be swept by the
 * coloured path, every active contact's law having a closed form) */
rc_status rcn_nsgs_order(rc_world *w, const rc_solver_def *opt, const int **sweep, int *closed);
/* nsgs.c: one sweep on this thread (anderson.c) */
rc_status rcn_nsgs_sweep(rc_world *w, const int *sweep, double omega);
/* nsgs.c: a world that runs an OpenMP team (planar coloured sweeps, the 3D
 * contacts' ones in nsgs3.c) joins the count of such worlds (the team is
 * shut down with the last; the solver's part leaves it); wall-clock seconds
 * for the adaptive threads' timing. */
void rcn_nsgs_team_join(rc_world *w);
double rcn_wall_s(void);
/* nsgs.c: the team was slower than one thread: none for the next 16, 32,
 * ... 1024 steps (w->par_off_until) */
void rcn_nsgs_team_backoff(rc_world *w);
/* colour.c: the greedy colouring of the colour order over n items (planar
 * or 3D contacts), bodies(w, item, ab) giving an item's two bodies (< 0:
 * the ground, shared freely): colour[k] of items[k], sweep the items colour
 * by colour (the given order within a colour), colour k at
 * sweep[start[k] .. start[k + 1]); start has room for n + 1. */
typedef void (*rcn_colour_bodies)(const rc_world *w, int item, int ab[2]);
rc_status rcn_colour_greedy(rc_world *w, const int *items, int n, rcn_colour_bodies bodies, int *colour, int *sweep,
                            int *start, int *ncolours);
/* colour.c: one pass over the colours in a parallel region's threads (or
 * outside one, on this thread): a colour of at least pmin items shared in
 * blocks (static schedule) and a barrier, a run of smaller colours swept by
 * one thread (omp single); range(ctx, lo, hi) sweeps sweep[lo .. hi) and
 * returns a count, summed over this thread's calls */
typedef long (*rcn_colour_range)(void *ctx, int lo, int hi);
long rcn_colour_pass(int ncol, const int *start, int pmin, rcn_colour_range range, void *ctx);
/* slabs.c: the slabs order (RC_ORDER_SLABS) of the planar active contacts:
 * RCN_SLABS slabs across gravity of about equal contact counts, the leaves
 * of a complete binary tree of RCN_SLAB_LEVELS levels; w->sweep node by
 * node in post-order (a node's halves, then the contacts joining them; key
 * order within a node): segment rcn_slab_segment(h, j) (node j of height h,
 * leaves h = 0) at sweep[colour_start[s] .. colour_start[s + 1]), the
 * root's (RCN_SLAB_SEGS - 1) last. pass: in a parallel region, the threads
 * take whole subtrees, then the nodes above level by level, and, if root,
 * the root on one thread (omp single); outside a region all in order on
 * this thread. range2 (or NULL) sweeps two runs that share no movable body
 * side by side (the two halves of each thread's subtree, then its own
 * contacts: the numbers of the order, bit for bit) unless
 * rcn_slab_interleave is 0 (tests compare the two). */
#define RCN_SLAB_LEVELS 4
#define RCN_SLABS (1 << RCN_SLAB_LEVELS)
#define RCN_SLAB_SEGS (2 * RCN_SLABS - 1)
rc_status rcn_slab_order(rc_world *w);
int rcn_slab_segment(int h, int j);
typedef long (*rcn_slab_range2)(void *ctx, int lo1, int hi1, int lo2, int hi2);
void rcn_slab_pass(const int *start, int root, rcn_colour_range range, rcn_slab_range2 range2, void *ctx);
extern int rcn_slab_interleave;
/* anderson_hist.c: Anderson's history for a fixed-point map x -> G(x) on N
 * unknowns, depth m <= RCN_AA_MAX (world.c checks). The solver writes x_0
 * into x; after each sweep it writes G(x) into g and calls rcn_aa_next,
 * which returns 1 with the extrapolated x_acc in x (the solver projects it,
 * tries it, and calls rcn_aa_reject when its residual is not below the
 * sweep's: x = G(x), the history cleared) or 0 with x = G(x). */
#define RCN_AA_MAX 10
typedef struct rcn_aa {
    int N, m, cols, head, have_prev;   /* unknowns, depth, columns held, next column */
    double *x, *g, *fprev, *gprev, *dF, *dG;
    double gram[RCN_AA_MAX][RCN_AA_MAX];
} rcn_aa;
rc_status rcn_aa_setup(rc_world *w, rcn_aa *a, int N, int m);
int rcn_aa_next(rcn_aa *a);
void rcn_aa_reject(rcn_aa *a);
/* anderson.c: NSGS with Anderson acceleration (solver.anderson > 0). */
rc_status rcn_anderson_solve(const rcn_problem *pb, rcn_report *rep);

#endif /* RC_NONSMOOTH_IMPL_H */
