/* nsgs_pack.c -- the hot record of planar NSGS (nsgs.c), the twin of
 * nsgs3_pack.c: what a sweep reads of an active contact -- the normal, the
 * rotational entries of both sides' rows (rc_contact's Hr), W, the law's
 * shift and mu, the impulse p and the bodies' V offsets -- packed in 152
 * bytes, contiguous in sweep order, once per solve, instead of the
 * 216-byte contact record (detection's, the audit's and the custom laws'
 * fields too, scattered among the inactive contacts) and the 96-byte body
 * (kappa/m and kappa/I, read by index). The bodies' kappa/m, kappa/m,
 * kappa/I sit in one array indexed like V (the diagonal of kappa Mhat^-1 of
 * the rigid kind), so a body's velocity and its factors are found from one
 * offset. The sweep, the residual pass and the impulses' write-back read
 * only the pack and V; the local solve is nonsmooth.h's rcn_fc2d_solve_r,
 * inlined, on the record's reciprocals. The arithmetic is that of nsgs.c's
 * solve_contact on the contact record (rcm_contact_dot, rcn_fc2d_local_solve
 * with the same reciprocals computed there, rcm_contact_apply_rigid),
 * operation for operation: the same impulses bit for bit
 * (tests/c/test_nsgs_pack.c, scripts/compare-builds).
 *
 * Why not one line: a frictional planar contact's update reads at least 15
 * numbers that change from contact to contact (n 2, the rows' rotational
 * entries 4, W 4 -- not symmetric to the bit, rigid_delassus sums H_r m H_k
 * and H_k m H_r --, the shift 2, mu, p 2) and two offsets: 124 bytes in
 * doubles. With the reciprocals of det W and of the two slide denominators
 * (rcn_fc2d_recip, computed here once per solve instead of divided by in
 * every sweep) the record is 152 bytes.
 *
 * Used when every active contact is geometric (rigid bodies) and has a
 * closed-form law (rcn_nsgs_pack_usable); otherwise nsgs.c's path on the
 * contact records. */
#include "nonsmooth/nonsmooth_impl.h"
#include "model/team.h"
#include "nonsmooth/nsgs_hot.h"

#include <stdint.h>
#include <string.h>


int rcn_nsgs_pack_usable(const rc_world *w)
{
    if (w->ngaps == 0 && rcn_all_laws_closed(w)) return 1;   /* no gap function, every law closed: no contact to look at */
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        if (c->gap >= 0 || !w->laws[c->law].closed_form) return 0;
    }
    return 1;
}

/* kappa/m, kappa/m, kappa/I of body b at its V offset (rcm_contact_apply_rigid's factors) */
static void body_factors(const rc_world *w, int b, double *mk)
{
    const rc_body *bd = &w->bodies[b];
    const double k = w->kappa;
    mk[bd->iv] = k * bd->inv_mass;
    mk[bd->iv + 1] = k * bd->inv_mass;
    mk[bd->iv + 2] = k * bd->inv_inertia;
}

rc_status rcn_nsgs_pack(rc_world *w, const int *sweep, rcn_pack2 *pk)
{
    const int n = w->nactive;
    memset(pk, 0, sizeof *pk);
    char *raw = w->hot;   /* reserved by the step's index set (integrate/step.c), if it has room */
    pk->r2 = w->hot_r2;
    pk->mk = w->hot_mk;
    if (!raw || w->cap_hot < n) {   /* another solver's fallback to NSGS, an exploration */
        RC_CHECK(rcb_arena_array(&w->work, (void **)&raw, (long long)n * RCM_HOT2_BYTES + 64, 1, "planar contacts' hot records"));
        RC_CHECK(rcb_arena_array(&w->work, (void **)&pk->r2, n, sizeof(double), "planar contacts' hot records"));
        RC_CHECK(rcb_arena_array(&w->work, (void **)&pk->mk, w->nv, sizeof(double), "planar contacts' hot records"));
    }
    pk->h = (rcn_c2hot *)(void *)(raw + ((64 - (uintptr_t)raw % 64) % 64));   /* on line boundaries (the arena aligns to 16) */
    if (sweep != w->active) {   /* the residual sums in key order: the record of each contact */
        RC_CHECK(rcb_arena_array(&w->work, (void **)&pk->at, w->ncontacts, sizeof(int), "planar contacts' hot records"));
        for (int k = 0; k < n; k++) pk->at[sweep[k]] = k;
    }
    /* with the solver's threads, two of them (records and bodies apart;
     * from model/team.h's rcm_team_min active contacts) */
    const int team = rcm_team2(w, n);
    RC_OMP(omp parallel for num_threads(2) schedule(static) if(team))
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &w->contacts[sweep[k]];
        rcn_c2hot *r = &pk->h[k];
        r->n[0] = c->n[0]; r->n[1] = c->n[1];
        r->rb[0] = c->Hr[1][0]; r->rb[1] = c->Hr[1][1];
        r->ra[0] = c->Hr[0][0]; r->ra[1] = c->Hr[0][1];
        r->W[0] = c->W[0][0]; r->W[1] = c->W[0][1]; r->W[2] = c->W[1][0]; r->W[3] = c->W[1][1];
        r->shift[0] = c->shift[0]; r->shift[1] = c->shift[1];
        r->p[0] = c->p[0]; r->p[1] = c->p[1];
        r->mu = w->laws[c->law].def.mu;
        r->ivb = w->bodies[c->body_b].iv;
        r->iva = c->body_a != RC_GROUND ? w->bodies[c->body_a].iv : -1;
        rcn_fc2d_recip(r->W, r->mu, r->inv);
    }
    /* every rigid body's factors (those of bodies without an active contact
     * are not read) */
    RC_OMP(omp parallel for num_threads(2) schedule(static) if(team))
    for (int b = 0; b < w->nbodies; b++)
        if (w->bodies[b].kind == RC_BODY_RIGID2D) body_factors(w, b, pk->mk);
    pk->n = n;
    return RC_OK;
}

int rcn_nsgs_unpack(rc_world *w, const rcn_pack2 *pk, const int *sweep)
{
    double acc = 0.0;   /* NaN if an impulse is not finite (x - x), whatever the order of the sum */
    RC_OMP(omp parallel for num_threads(2) schedule(static) reduction(+ : acc) if(rcm_team2(w, pk->n)))
    for (int k = 0; k < pk->n; k++) {
        rc_contact *c = &w->contacts[sweep[k]];
        const double p0 = pk->h[k].p[0], p1 = pk->h[k].p[1];
        c->p[0] = p0;
        c->p[1] = p1;
        acc += (p0 - p0) + (p1 - p1);
        c->res = sqrt(pk->r2[k]);   /* the contact's own residual, no longer squared */
    }
    return acc == 0.0;
}

void rcn_nsgs_pack_swap(rcn_pack2 *pk, int a, int b)
{
    const rcn_c2hot t = pk->h[a];
    pk->h[a] = pk->h[b];
    pk->h[b] = t;
}

/* u = H V + shift of r: rcm_contact_dot's sums in its order */
static RCB_INLINE void hot_velocity(const rcn_c2hot *r, const double *V, double u[2])
{
    const double *vb = V + r->ivb, nx = r->n[0], ny = r->n[1];
    u[0] = nx * vb[0] + ny * vb[1] + r->rb[0] * vb[2];
    u[1] = ny * vb[0] + -nx * vb[1] + r->rb[1] * vb[2];
    u[0] += r->shift[0];
    u[1] += r->shift[1];
    if (r->iva >= 0) {
        const double *va = V + r->iva;
        u[0] += -nx * va[0] + -ny * va[1] + r->ra[0] * va[2];
        u[1] += -ny * va[0] + nx * va[1] + r->ra[1] * va[2];
    }
}

/* one Gauss--Seidel update of r: nsgs.c's solve_contact for a closed-form
 * law, V += kappa Mhat^-1 H^T dp as rcm_contact_apply_rigid with its
 * factors (k * inv_mass) read from mk */
static RCB_INLINE void hot_solve(rcn_c2hot *restrict r, double *restrict V, const double *restrict mk, double omega,
                             double *r2)
{
    double u[2], bl[2], p[2];
    const double *W = r->W, p0 = r->p[0], p1 = r->p[1], mu = r->mu;
    hot_velocity(r, V, u);
    if (r2) *r2 = rcn_fc2d_residual2(u, r->p, mu);
    bl[0] = u[0] - (W[0] * p0 + W[1] * p1);   /* b_alpha = u - W_aa p_alpha */
    bl[1] = u[1] - (W[2] * p0 + W[3] * p1);
    (void)rcn_fc2d_solve_r(W, r->inv, bl, mu, p);   /* nonsmooth.h */
    if (omega != 1.0) {
        p[0] = omega * p[0] + (1.0 - omega) * p0;
        p[1] = omega * p[1] + (1.0 - omega) * p1;
        rcm_fc2d_project(mu, p);
    }
    const double dp0 = p[0] - p0, dp1 = p[1] - p1;
    if (dp0 != 0.0 || dp1 != 0.0) {
        const double nx = r->n[0], ny = r->n[1];
        double *vb = V + r->ivb;
        const double *mb = mk + r->ivb;
        vb[0] += mb[0] * (nx * dp0 + ny * dp1);
        vb[1] += mb[1] * (ny * dp0 + -nx * dp1);
        vb[2] += mb[2] * (r->rb[0] * dp0 + r->rb[1] * dp1);
        if (r->iva >= 0) {
            double *va = V + r->iva;
            const double *ma = mk + r->iva;
            va[0] += ma[0] * (-nx * dp0 + -ny * dp1);
            va[1] += ma[1] * (-ny * dp0 + nx * dp1);
            va[2] += ma[2] * (r->ra[0] * dp0 + r->ra[1] * dp1);
        }
    }
    r->p[0] = p[0];
    r->p[1] = p[1];
}

/* the bodies of the record a few places ahead: in the position and colour
 * orders consecutive records rarely share a body (the records themselves
 * stream in order) */
static inline void prefetch_bodies(const rcn_pack2 *pk, const double *V, int k, int hi)
{
    if (k + 4 >= hi) return;
    const rcn_c2hot *r = &pk->h[k + 4];
    RC_PREFETCH(V + r->ivb);
    RC_PREFETCH(pk->mk + r->ivb);
    if (r->iva >= 0) {
        RC_PREFETCH(V + r->iva);
        RC_PREFETCH(pk->mk + r->iva);
    }
}

void rcn_nsgs_pack_sweep(rc_world *w, rcn_pack2 *pk, int lo, int hi, double omega, double est[2])
{
    double *V = w->V;
    const double *mk = pk->mk;
    for (int k = lo; k < hi; k++) {
        prefetch_bodies(pk, V, k, hi);
        if (!est) {
            hot_solve(&pk->h[k], V, mk, omega, NULL);
            continue;
        }
        double r2;   /* nsgs.c sweep_estimate's sum and largest term */
        hot_solve(&pk->h[k], V, mk, omega, &r2);
        est[0] += r2;
        if (r2 > est[1]) est[1] = r2;
    }
}

/* Two runs of records that share no movable body, [lo1, hi1) and [lo2,
 * hi2) (the slabs order's two halves of a subtree, slabs.c), swept in one
 * pass that alternates between them: each record sees the velocities it
 * would see were the runs swept one after the other (the other run touches
 * none of its bodies), so the impulses are the same bit for bit, and the
 * core has two independent chains of updates in flight (a Gauss--Seidel
 * sweep is otherwise one chain: an update reads the velocities the one
 * before it may just have written, and waits for them). */
void rcn_nsgs_pack_sweep2(rc_world *w, rcn_pack2 *pk, int lo1, int hi1, int lo2, int hi2, double omega)
{
    double *V = w->V;
    const double *mk = pk->mk;
    const int n = hi1 - lo1 < hi2 - lo2 ? hi1 - lo1 : hi2 - lo2;
    for (int k = 0; k < n; k++) {
        prefetch_bodies(pk, V, lo1 + k, hi1);
        prefetch_bodies(pk, V, lo2 + k, hi2);
        hot_solve(&pk->h[lo1 + k], V, mk, omega, NULL);
        hot_solve(&pk->h[lo2 + k], V, mk, omega, NULL);
    }
    for (int k = lo1 + n; k < hi1; k++) hot_solve(&pk->h[k], V, mk, omega, NULL);
    for (int k = lo2 + n; k < hi2; k++) hot_solve(&pk->h[k], V, mk, omega, NULL);
}

void rcn_nsgs_pack_terms(const rc_world *w, rcn_pack2 *pk, int lo, int hi)
{
    const double *V = w->V;
    for (int k = lo + rcn_nsgs_pack_terms4(w, pk, lo, hi); k < hi; k++) {   /* nsgs_simd.c: four at a time */
        const rcn_c2hot *r = &pk->h[k];
        double u[2];
        hot_velocity(r, V, u);
        pk->r2[k] = rcn_fc2d_residual2(u, r->p, r->mu);
    }
}

rc_status rcn_nsgs_pack_blocks(rc_world *w, rcn_pack2 *pk)
{
    const long long nblk = (pk->n + RCN_PACK_BLOCK - 1) / RCN_PACK_BLOCK;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&pk->bsum, nblk, sizeof(double), "residual blocks"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&pk->bmax, nblk, sizeof(double), "residual blocks"));
    return rcb_arena_array(&w->work, (void **)&pk->barg, nblk, sizeof(int), "residual blocks");
}

void rcn_nsgs_pack_block(const rc_world *w, rcn_pack2 *pk, int b)
{
    const int lo = RCN_PACK_BLOCK * b, hi = lo + RCN_PACK_BLOCK < pk->n ? lo + RCN_PACK_BLOCK : pk->n;
    rcn_nsgs_pack_terms(w, pk, lo, hi);
    double sum = 0.0, big = -1.0;   /* nsgs.c residual_sum's scan, on this block */
    int arg = -1;
    for (int k = lo; k < hi; k++) {
        const double r2 = pk->r2[k];
        sum += r2;
        if (r2 > big) { big = r2; arg = k; }
    }
    pk->bsum[b] = sum;
    pk->bmax[b] = big;
    pk->barg[b] = arg;
}

size_t rcn_nsgs_pack_record_size(void) { return sizeof(rcn_c2hot); }

void rcn_nsgs_pack_get(const rcn_pack2 *pk, int k, double p[2])
{
    p[0] = pk->h[k].p[0];
    p[1] = pk->h[k].p[1];
}
