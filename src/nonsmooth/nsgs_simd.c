/* nsgs_simd.c -- planar hot records four at a time with AVX2 (issue 18):
 * the residual terms of any four records (they read V and write nothing
 * but their terms), and the sweep of one colour's records (no two sharing a
 * movable body, colour.c). Within a colour Gauss--Seidel is Jacobi: each record reads
 * only its own bodies' velocities, which no other record of the colour
 * writes, so four records gathered, solved side by side and scattered give
 * what solving them in turn gives. Each lane does the operations of
 * nsgs_pack.c's hot_solve and nonsmooth.h's rcn_fc2d_solve_r in their order
 * (additions and products as written, no fused multiply-add: the target is
 * avx2 alone), the four cases of the local solve (take-off, stick, slide in
 * either direction) computed for every lane and the first valid one chosen
 * in the scalar code's order; the velocity updates are written only where
 * an impulse changed, as the scalar code does. So the impulses and
 * velocities are those of the one-by-one sweep bit for bit, and the terms
 * those of rcn_fc2d_residual2 (tests/c/test_nsgs_pack.c). A group in which some lane needs the local
 * solve's last resort (rcn_fc2d_best), relaxation (omega != 1), a CPU
 * without AVX2 or a compiler other than gcc or clang on x86-64: the records
 * one by one (rcn_nsgs_pack_sweep).
 */
#include "nonsmooth/nonsmooth_impl.h"
#include "nonsmooth/nsgs_hot.h"

#include <stdint.h>

int rcn_nsgs_simd = 1;   /* internal: tests set 0 to compare with the one-by-one sweep */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RCN_HAVE_AVX2_PATH 1


#define TGT __attribute__((target("avx2")))

/* four rows r0..r3 of 4 doubles into four columns c[0..3] (c[j] = r0[j], r1[j], r2[j], r3[j]) */
static TGT inline void transpose4(__m256d r0, __m256d r1, __m256d r2, __m256d r3, __m256d c[4])
{
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    c[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    c[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    c[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    c[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

static const double zero4[4] = { 0.0, 0.0, 0.0, 0.0 };

/* a body's 3 numbers (and a zero), by a pair and a single: no masked moves (slow stores on some cores) */
static TGT inline __m256d load3(const double *v)
{
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(v)), _mm_load_sd(v + 2), 1);
}
static TGT inline void store3(double *v, __m256d x)
{
    _mm_storeu_pd(v, _mm256_castpd256_pd128(x));
    _mm_store_sd(v + 2, _mm256_extractf128_pd(x, 1));
}

/* a group of four records: their fields as columns, their bodies' velocities
 * and factors, which of them have a body A */
typedef struct group4 {
    __m256d f[18], b[4], a[4], haveA;
    const double *mb[4], *ma[4];
    int hasA;
} group4;

static TGT inline void group_load(const struct rcn_c2hot *h, const double *V, const double *mk, group4 *g)
{
    /* the records' doubles 0..17 as columns: 4 blocks of 4, then p_T and mu as pairs
     * (nothing read past a record) */
    const double *d[4];
    for (int l = 0; l < 4; l++) d[l] = (const double *)(const void *)&h[l];
    for (int blk = 0; blk < 4; blk++)
        transpose4(_mm256_loadu_pd(d[0] + 4 * blk), _mm256_loadu_pd(d[1] + 4 * blk), _mm256_loadu_pd(d[2] + 4 * blk),
                   _mm256_loadu_pd(d[3] + 4 * blk), g->f + 4 * blk);
    const __m256d q01 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(d[0] + 16)), _mm_loadu_pd(d[2] + 16), 1);
    const __m256d q13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(d[1] + 16)), _mm_loadu_pd(d[3] + 16), 1);
    g->f[16] = _mm256_unpacklo_pd(q01, q13);   /* p_T of lanes 0, 1, 2, 3 */
    g->f[17] = _mm256_unpackhi_pd(q01, q13);   /* mu */
    const double *vb[4], *va[4];
    g->hasA = 0;
    for (int l = 0; l < 4; l++) {
        vb[l] = V + h[l].ivb;
        if (mk) g->mb[l] = mk + h[l].ivb;
        if (h[l].iva >= 0) {
            va[l] = V + h[l].iva;
            if (mk) g->ma[l] = mk + h[l].iva;
            g->hasA |= 1 << l;
        } else {
            va[l] = zero4;
            if (mk) g->ma[l] = zero4;
        }
    }
    const int m = g->hasA;
    g->haveA = _mm256_castsi256_pd(_mm256_set_epi64x(-(long long)(m >> 3 & 1), -(long long)(m >> 2 & 1),
                                                     -(long long)(m >> 1 & 1), -(long long)(m & 1)));
    transpose4(load3(vb[0]), load3(vb[1]), load3(vb[2]), load3(vb[3]), g->b);
    transpose4(load3(va[0]), load3(va[1]), load3(va[2]), load3(va[3]), g->a);
}

/* u = H V + shift: nsgs_pack.c hot_velocity's sums in its order, lane by lane */
static TGT inline void group_velocity(const group4 *g, __m256d *u0, __m256d *u1)
{
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m256d nx = g->f[0], ny = g->f[1], nnx = _mm256_xor_pd(nx, sign), nny = _mm256_xor_pd(ny, sign);
    const __m256d *b = g->b, *a = g->a;
    __m256d x0 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(nx, b[0]), _mm256_mul_pd(ny, b[1])), _mm256_mul_pd(g->f[2], b[2]));
    __m256d x1 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ny, b[0]), _mm256_mul_pd(nnx, b[1])), _mm256_mul_pd(g->f[3], b[2]));
    x0 = _mm256_add_pd(x0, g->f[13]);
    x1 = _mm256_add_pd(x1, g->f[14]);
    const __m256d ua0 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(nnx, a[0]), _mm256_mul_pd(nny, a[1])), _mm256_mul_pd(g->f[4], a[2]));
    const __m256d ua1 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(nny, a[0]), _mm256_mul_pd(nx, a[1])), _mm256_mul_pd(g->f[5], a[2]));
    *u0 = _mm256_blendv_pd(x0, _mm256_add_pd(x0, ua0), g->haveA);
    *u1 = _mm256_blendv_pd(x1, _mm256_add_pd(x1, ua1), g->haveA);
}

/* x < 0 ? -x : x, as written (-0 stays -0) */
static TGT inline __m256d abs_as_c(__m256d x)
{
    const __m256d neg = _mm256_xor_pd(x, _mm256_set1_pd(-0.0));
    return _mm256_blendv_pd(x, neg, _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_LT_OQ));
}

/* four records' squared natural-map terms (nonsmooth.h rcn_fc2d_residual2 with
 * model.h rcm_fc2d_project, lane by lane) into r2[0..3] */
static TGT void terms4(const struct rcn_c2hot *h, const double *V, double *r2)
{
    group4 g;
    group_load(h, V, NULL, &g);
    __m256d u0, u1;
    group_velocity(&g, &u0, &u1);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0), p0 = g.f[15], p1 = g.f[16], mu = g.f[17];
    const __m256d at = abs_as_c(u1);
    const __m256d pn = _mm256_sub_pd(p0, _mm256_add_pd(u0, _mm256_mul_pd(mu, at))), pt = _mm256_sub_pd(p1, u1);
    const __m256d at2 = abs_as_c(pt);
    const __m256d inside = _mm256_and_pd(_mm256_cmp_pd(pn, zero, _CMP_GE_OQ), _mm256_cmp_pd(at2, _mm256_mul_pd(mu, pn), _CMP_LE_OQ));
    const __m256d polar = _mm256_cmp_pd(_mm256_add_pd(_mm256_mul_pd(mu, at2), pn), zero, _CMP_LE_OQ);
    const __m256d sb = _mm256_div_pd(_mm256_add_pd(pn, _mm256_mul_pd(mu, at2)), _mm256_add_pd(one, _mm256_mul_pd(mu, mu)));
    const __m256d sgn = _mm256_blendv_pd(_mm256_set1_pd(-1.0), one, _mm256_cmp_pd(pt, zero, _CMP_GT_OQ));
    __m256d x0 = _mm256_blendv_pd(sb, zero, polar), x1 = _mm256_blendv_pd(_mm256_mul_pd(_mm256_mul_pd(sgn, mu), sb), zero, polar);
    x0 = _mm256_blendv_pd(x0, pn, inside);
    x1 = _mm256_blendv_pd(x1, pt, inside);
    const __m256d d0 = _mm256_sub_pd(p0, x0), d1 = _mm256_sub_pd(p1, x1);
    _mm256_storeu_pd(r2, _mm256_add_pd(_mm256_mul_pd(d0, d0), _mm256_mul_pd(d1, d1)));
}

/* one side's velocities v (columns) += m (c_d0 dp0 + c_d1 dp1) for
 * component d, m its bodies' factors (mp), written to out[l] for the lanes
 * set in `lanes` (hot_solve's update, lane by lane) */
static TGT inline __attribute__((always_inline)) void side_update(const __m256d v[3], const double *const mp[4], __m256d c00,
                                                               __m256d c01, __m256d c10, __m256d c11, __m256d c20,
                                                               __m256d c21, __m256d dp0, __m256d dp1, double *const out[4],
                                                               int lanes)
{
    __m256d m[4], o[4];
    transpose4(load3(mp[0]), load3(mp[1]), load3(mp[2]), load3(mp[3]), m);
    transpose4(_mm256_add_pd(v[0], _mm256_mul_pd(m[0], _mm256_add_pd(_mm256_mul_pd(c00, dp0), _mm256_mul_pd(c01, dp1)))),
               _mm256_add_pd(v[1], _mm256_mul_pd(m[1], _mm256_add_pd(_mm256_mul_pd(c10, dp0), _mm256_mul_pd(c11, dp1)))),
               _mm256_add_pd(v[2], _mm256_mul_pd(m[2], _mm256_add_pd(_mm256_mul_pd(c20, dp0), _mm256_mul_pd(c21, dp1)))),
               _mm256_setzero_pd(), o);
    for (int l = 0; l < 4; l++)
        if (lanes >> l & 1) store3(out[l], o[l]);
}

/* four records h[0..3] of one colour: 0 when a lane needs rcn_fc2d_best (nothing written) */
static TGT int solve4(struct rcn_c2hot *h, double *V, const double *mk)
{
    const __m256d zero = _mm256_setzero_pd(), sign = _mm256_set1_pd(-0.0);
    group4 g;
    group_load(h, V, mk, &g);
    const __m256d *f = g.f, *b = g.b, *a = g.a;
    const double *const *mb = g.mb, *const *ma = g.ma;
    const int hasA = g.hasA;
    const __m256d nx = f[0], ny = f[1], rb0 = f[2], rb1 = f[3], ra0 = f[4], ra1 = f[5];
    const __m256d W0 = f[6], W1 = f[7], W2 = f[8], W3 = f[9], idet = f[10];
    const __m256d p0 = f[15], p1 = f[16], mu = f[17];
    const __m256d nnx = _mm256_xor_pd(nx, sign), nny = _mm256_xor_pd(ny, sign);
    __m256d u0, u1;
    group_velocity(&g, &u0, &u1);
    /* b_alpha = u - W p */
    const __m256d bl0 = _mm256_sub_pd(u0, _mm256_add_pd(_mm256_mul_pd(W0, p0), _mm256_mul_pd(W1, p1)));
    const __m256d bl1 = _mm256_sub_pd(u1, _mm256_add_pd(_mm256_mul_pd(W2, p0), _mm256_mul_pd(W3, p1)));
    /* the cases of rcn_fc2d_solve_r, each with its acceptance mask */
    const __m256d take = _mm256_cmp_pd(bl0, zero, _CMP_GE_OQ);
    const __m256d ps0 = _mm256_mul_pd(_mm256_xor_pd(_mm256_sub_pd(_mm256_mul_pd(W3, bl0), _mm256_mul_pd(W1, bl1)), sign), idet);
    const __m256d nW2 = _mm256_xor_pd(W2, sign);
    const __m256d ps1 = _mm256_mul_pd(_mm256_xor_pd(_mm256_add_pd(_mm256_mul_pd(nW2, bl0), _mm256_mul_pd(W0, bl1)), sign), idet);
    const __m256d stick = _mm256_and_pd(_mm256_cmp_pd(idet, zero, _CMP_GT_OQ),
                                        _mm256_and_pd(_mm256_cmp_pd(ps0, zero, _CMP_GE_OQ),
                                                      _mm256_cmp_pd(_mm256_andnot_pd(sign, ps1), _mm256_mul_pd(mu, ps0), _CMP_LE_OQ)));
    __m256d acc[2], pn[2], pt[2];
    const __m256d nbl0 = _mm256_xor_pd(bl0, sign);
    for (int k = 0; k < 2; k++) {   /* s = +1, -1 */
        const __m256d iden = f[11 + k];
        pn[k] = _mm256_mul_pd(nbl0, iden);
        pt[k] = _mm256_mul_pd(k == 0 ? _mm256_xor_pd(mu, sign) : mu, pn[k]);   /* -s mu p_N */
        const __m256d wt = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(W2, pn[k]), _mm256_mul_pd(W3, pt[k])), bl1);
        const __m256d dir = _mm256_cmp_pd(k == 0 ? wt : _mm256_xor_pd(wt, sign), zero, _CMP_GE_OQ);
        acc[k] = _mm256_and_pd(_mm256_cmp_pd(iden, zero, _CMP_GT_OQ), _mm256_and_pd(_mm256_cmp_pd(pn[k], zero, _CMP_GE_OQ), dir));
    }
    const __m256d any = _mm256_or_pd(_mm256_or_pd(take, stick), _mm256_or_pd(acc[0], acc[1]));
    if (_mm256_movemask_pd(any) != 0xF) return 0;   /* a lane for rcn_fc2d_best */
    /* the first valid case, in the scalar order: take-off, stick, slide +, slide - */
    __m256d q0 = _mm256_blendv_pd(pn[1], pn[0], acc[0]), q1 = _mm256_blendv_pd(pt[1], pt[0], acc[0]);
    q0 = _mm256_blendv_pd(q0, ps0, stick);
    q1 = _mm256_blendv_pd(q1, ps1, stick);
    q0 = _mm256_blendv_pd(q0, zero, take);
    q1 = _mm256_blendv_pd(q1, zero, take);
    const __m256d dp0 = _mm256_sub_pd(q0, p0), dp1 = _mm256_sub_pd(q1, p1);
    const int moved = _mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(dp0, zero, _CMP_NEQ_UQ), _mm256_cmp_pd(dp1, zero, _CMP_NEQ_UQ)));
    if (moved) {   /* V += kappa Mhat^-1 H^T dp where an impulse changed */
        double *vbw[4], *vaw[4];
        for (int l = 0; l < 4; l++) { vbw[l] = V + h[l].ivb; vaw[l] = V + h[l].iva; }
        side_update(b, mb, nx, ny, ny, nnx, rb0, rb1, dp0, dp1, vbw, moved);
        if (hasA & moved) side_update(a, ma, nnx, nny, nny, nx, ra0, ra1, dp0, dp1, vaw, hasA & moved);
    }
    const __m256d lo = _mm256_unpacklo_pd(q0, q1), hi = _mm256_unpackhi_pd(q0, q1);   /* (p_N, p_T) of lanes 0, 2 and 1, 3 */
    _mm_storeu_pd(h[0].p, _mm256_castpd256_pd128(lo));
    _mm_storeu_pd(h[1].p, _mm256_castpd256_pd128(hi));
    _mm_storeu_pd(h[2].p, _mm256_extractf128_pd(lo, 1));
    _mm_storeu_pd(h[3].p, _mm256_extractf128_pd(hi, 1));
    return 1;
}

/* the CPU's features as the runtime read them before main (libgcc's
 * constructor): a load and a test, safe on any thread */
static int have_avx2(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }
#endif

/* the terms of records [lo, hi) four at a time into pk->r2: how many done (a
 * multiple of 4 from lo; the caller does the rest one by one) */
int rcn_nsgs_pack_terms4(const rc_world *w, rcn_pack2 *pk, int lo, int hi)
{
#ifdef RCN_HAVE_AVX2_PATH
    if (rcn_nsgs_simd && have_avx2()) {
        int k = lo;
        for (; k + 4 <= hi; k += 4) terms4(&pk->h[k], w->V, pk->r2 + k);
        return k - lo;
    }
#endif
    (void)w; (void)pk; (void)hi;
    return 0;
}

int rcn_nsgs_simd_usable(void)
{
#ifdef RCN_HAVE_AVX2_PATH
    return have_avx2();
#else
    return 0;
#endif
}

/* records [lo, hi) of pk, no two sharing a movable body (one colour, or a
 * thread's share of one); the groups of four solved side by side */
long rcn_nsgs_pack_sweep_indep(rc_world *w, rcn_pack2 *pk, int lo, int hi, double omega)
{
    long groups = 0;
#ifdef RCN_HAVE_AVX2_PATH
    if (rcn_nsgs_simd && omega == 1.0 && have_avx2()) {
        int k = lo;
        for (; k + 4 <= hi; k += 4) {
            if (solve4(&pk->h[k], w->V, pk->mk)) groups++;
            else rcn_nsgs_pack_sweep(w, pk, k, k + 4, omega, NULL);
        }
        if (k < hi) rcn_nsgs_pack_sweep(w, pk, k, hi, omega, NULL);
        return groups;
    }
#endif
    rcn_nsgs_pack_sweep(w, pk, lo, hi, omega, NULL);
    return groups;
}
