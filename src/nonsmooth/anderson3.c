/* anderson3.c -- NSGS over 3D contacts with Anderson acceleration (solver =
 * { "nsgs", accelerate = "anderson", depth = m } in a dim = 3 world).
 *
 * One sweep over the hot records (nsgs3_pack.c) is a fixed-point map
 * p -> G(p) on the 3n impulses; Anderson's method (anderson_hist.c)
 * extrapolates p_acc from the last m sweeps, each contact's impulse then
 * projected onto its Coulomb cone. Safeguard (as anderson.c): p_acc is kept
 * only when its natural-map residual (nsgs3.c's stopping test, same norm and
 * tolerance) is below the sweep's; otherwise the iteration goes on from
 * G(p) and the history is cleared. V follows every change (V is affine in
 * p), so an iteration costs a sweep, a residual pass and, when extrapolated,
 * a pass of H^T and a second residual pass. Used when every active contact
 * has a hot record and there is no 3D joint (nsgs3.c; otherwise plain NSGS);
 * skip_quiet does not apply (every sweep visits every contact). */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <string.h>

rc_status rcn_anderson3(rc_world *w, rcn_c3hot *h, int n, const int *slot, double *V, double bnorm, double *res,
                        int *iters)
{
    const rc_solver_def *opt = &w->sim.solver;
    rcn_aa a;
    double *Vg;
    RC_CHECK(rcn_aa_setup(w, &a, 3 * n, opt->anderson));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&Vg, w->nv > 0 ? w->nv : 1, sizeof(double), "Anderson velocity"));
    const double scale = 1.0 / (1.0 + bnorm);
    *res = sqrt(rcn_nsgs3_pack_residual(w, h, n, slot, V, NULL, 0.0)) * scale;
    *iters = 0;
    rcn_nsgs3_pack_get(h, n, a.x);
    while (*res > opt->tol && *iters < opt->max_iter) {
        rcn_nsgs3_pack_sweep(w, h, 0, n, V, NULL);   /* g = G(x) */
        w->c3->solves += n;
        ++*iters;
        rcn_nsgs3_pack_get(h, n, a.g);
        int took = 0;
        if (rcn_aa_next(&a)) {   /* x = p_acc */
            memcpy(Vg, V, (size_t)w->nv * sizeof(double));
            rcn_nsgs3_pack_set(w, h, n, V, a.x, 1);
            const double r_acc = sqrt(rcn_nsgs3_pack_residual(w, h, n, slot, V, NULL, 0.0)) * scale;
            if (r_acc < *res) { *res = r_acc; took = 1; }
            else {   /* the safeguard: back to G(x), the history cleared */
                memcpy(V, Vg, (size_t)w->nv * sizeof(double));
                rcn_aa_reject(&a);
                rcn_nsgs3_pack_set(w, h, n, NULL, a.g, 0);
            }
        }
        if (!took) *res = sqrt(rcn_nsgs3_pack_residual(w, h, n, slot, V, NULL, 0.0)) * scale;
        if (!rcb_finite(*res))
            return rc_set_error(RC_ERR_NUMERIC, "nsgs (3D contacts, Anderson): non-finite residual after %d sweeps", *iters);
    }
    return RC_OK;
}
