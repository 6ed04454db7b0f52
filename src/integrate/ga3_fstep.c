/* ga3_fstep.c -- the frictional nonsmooth generalized-alpha step on spatial
 * rigid bodies with contacts (Capobianco, Harsch, Eugster & Leine 2021, the
 * scheme of section 9 with the kinematics of section 8; ga3_friction.h;
 * docs/theory/gen-alpha.md, "Spatial contacts"):
 *
 *   contacts     detected at q_i within the step's reach (ga3_step.c)
 *   start        a_i, a-bar_i and each contact's lambda_N, lambda_F, their
 *                bars and the warm start from the last step (by key), or the
 *                consistent acceleration M a_0 = h(q_0, u_0) (contact forces 0)
 *   Newton       the semismooth Newton method on R(x) (143), the index sets
 *                frozen while the Jacobian is taken by forward differences
 *                (the paper's tippe top: differences of 1e-6; here 1e-7
 *                relative)
 *   fallback     a stall or a singular Jacobian: the whole step again by the
 *                fixed-point iterations (ga3_fixed.c)
 *   update       q, u, a, a-bar, the contacts' records kept; the contacts
 *                at q_{i+1} become w->c3's (p = (P_N, P_F1, P_F2), the
 *                drilling P_F3 in the drilling record)
 *   audit        E, the percussions' work at (u_i + u_{i+1})/2 (W_N, W_T
 *                with the drilling, the joints' W_J), the correction Q's
 *                potential energy (W_proj), the rest in W_theta
 *   joints       the spatial joints' rows at three levels (ga3_joints.c)
 */
#include "integrate/ga3_friction.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

static rc_status arrays(rci_ga3f *s)
{
    rcb_arena *A = &s->w->work;
    const long long nv = s->nv, nq = s->nq, nc = s->nc > 0 ? s->nc : 1, N = s->N, m = s->nrows > 0 ? s->nrows : 1;
    const long long total = 2 * nq + 3 * nv + N + 2 * nv + nq + nv + 2 * m * nv + m + nq    /* qn un an abn x ab u q f G G2 dc X */
                          + 5 * nc + 5 * nc + 3 * nc * 12 + 4 * nc + 4 * nc                 /* eN..rF; lNn lbNn lbN PN kh; F vectors; gN gdN gddN xiN */
                          + N + 2 * N * N + 2 * N                                            /* R J J2 dx R0 */
                          + 5LL * s->nb;                                                     /* the joints' gj gtj gdj gddj gt2 */
    double *p;
    RC_CHECK(rcb_arena_array(A, (void **)&p, total, sizeof(double), "gen-alpha (spatial, contacts) system"));
#define TAKE(field, k) (s->field = p, p += (k))
    s->qn = p; p += nq; s->un = p; p += nv; s->an = p; p += nv; s->abn = p; p += nv;
    TAKE(x, N); TAKE(ab, nv); TAKE(u, nv); TAKE(q, nq); TAKE(f, nv); TAKE(G, m * nv); TAKE(G2, m * nv); TAKE(dc, m); TAKE(X, nq);
    TAKE(eN, nc); TAKE(eF, nc); TAKE(mu, nc); TAKE(rN, nc); TAKE(rF, nc);
    TAKE(lNn, nc); TAKE(lbNn, nc); TAKE(lbN, nc); TAKE(PN, nc); TAKE(kh, nc);
    TAKE(lFn, 3 * nc); TAKE(lbFn, 3 * nc); TAKE(lbF, 3 * nc); TAKE(PF, 3 * nc); TAKE(gF, 3 * nc); TAKE(gdF, 3 * nc);
    TAKE(xiF, 3 * nc); TAKE(gFo, 3 * nc); TAKE(scale, 3 * nc); TAKE(gN, 3 * nc); TAKE(gdN, 3 * nc); TAKE(gddN, 3 * nc);
    TAKE(xiN, 4 * nc); p += 4 * nc;
    TAKE(R, N); TAKE(J, N * N); TAKE(J2, N * N); TAKE(dx, N); TAKE(R0, N);
    TAKE(gj, s->nb); TAKE(gtj, s->nb); TAKE(gdj, s->nb); TAKE(gddj, s->nb); TAKE(gt2, s->nb);
#undef TAKE
    RC_CHECK(rcb_arena_array(A, (void **)&s->set, nc, 1, "gen-alpha 3D index sets"));
    return rcb_arena_array(A, (void **)&s->ipiv, N, sizeof(int), "gen-alpha 3D pivots");
}

static const double *find_rec(const rci_ga_state *g, uint64_t key)
{
    for (int i = 0; i < g->nrec3; i++) {
        uint64_t k;
        memcpy(&k, &g->rec3[(size_t)i * (1 + RCI_GA3_REC)], sizeof k);
        if (k == key) return &g->rec3[(size_t)i * (1 + RCI_GA3_REC) + 1];
    }
    return NULL;
}

/* the laws' coefficients, the prox parameters (the rows' effective masses at
 * q_i: they only decide the index sets under Newton), the records at t_i and
 * the first guess x^0 (the last step's values) */
static void start_contacts(rci_ga3f *s, const rci_ga_state *g)
{
    const rc_world *w = s->w;
    const double *md = w->mass_diag, r = w->sim.gen_alpha.prox_r;
    memset(s->x, 0, (size_t)s->N * sizeof(double));
    memcpy(s->x, s->an, (size_t)s->nv * sizeof(double));
    for (int k = 0; k < s->nc; k++) {
        const rc_law *law = &w->laws[s->cs[k].law];
        const int nf = s->nf[k];
        s->eN[k] = law->def.e;
        s->eF[k] = law->def.type == RC_LAW_MOREAU ? law->def.e_t : 0.0;
        s->mu[k] = law->def.mu;
        double dn = 0.0, dt = 0.0;
        for (int i = 0; i < s->nv; i++) {
            const double gn = s->G[(size_t)s->gr[k] * s->nv + i], gt = s->G[(size_t)(s->gr[k] + 1) * s->nv + i];
            dn += gn * gn / md[i];
            dt += gt * gt / md[i];
        }
        s->rN[k] = r > 0.0 ? r : dn > 0.0 ? 1.0 / dn : 1.0;
        s->rF[k] = r > 0.0 ? r : dt > 0.0 ? 1.0 / dt : s->rN[k];
        const double *v = g->valid ? find_rec(g, s->cs[k].key) : NULL;
        double *xk = s->x + s->off[k];
        s->lNn[k] = v ? v[0] : 0.0;
        s->lbNn[k] = v ? v[1] : 0.0;
        for (int j = 0; j < 3; j++) {
            s->lFn[3 * k + j] = v && j < nf ? v[4 + j] : 0.0;
            s->lbFn[3 * k + j] = v && j < nf ? v[7 + j] : 0.0;
        }
        if (!v) continue;
        xk[0] = v[2]; xk[1] = v[3]; xk[2] = v[0];
        for (int j = 0; j < nf; j++) { xk[3 + j] = v[10 + j]; xk[3 + nf + j] = v[4 + j]; }
    }
}

/* J (column-major) = dR/dx by forward differences, the sets frozen */
static rc_status jacobian(rci_ga3f *s)
{
    const int N = s->N, nv3 = 3 * s->nv;
    int worst;
    memcpy(s->R0, s->R, (size_t)N * sizeof(double));
    for (int j = 0; j < N; j++) {
        if (j == nv3) RC_CHECK(rci_ga3f_eval(s));   /* the base point's geometry for the multipliers' columns */
        const double xj = s->x[j], eps = 1e-7 * fmax(1.0, fabs(xj));
        s->x[j] = xj + eps;
        if (j < nv3) RC_CHECK(rci_ga3f_eval(s));
        else rci_ga3f_dependent(s, 1);
        (void)rci_ga3f_residual(s, &worst);
        for (int i = 0; i < N; i++) s->J[(size_t)j * N + i] = (s->R[i] - s->R0[i]) / eps;
        s->x[j] = xj;
    }
    memcpy(s->R, s->R0, (size_t)N * sizeof(double));
    return RC_OK;
}

static rc_status newton(rci_ga3f *s, int maxit, double tol, int *iters, double *res, int *worst, int *ok)
{
    *ok = 0;
    double best = INFINITY;
    int stalled = 0;
    for (int it = 0;; it++) {
        RC_CHECK(rci_ga3f_eval(s));
        rci_ga3f_sets(s);
        *res = rci_ga3f_residual(s, worst);
        *iters = it;
        if (*res <= tol) { *ok = 1; return RC_OK; }
        if (*res < 0.1 * best) { best = *res; stalled = 0; } else stalled++;
        if (it == maxit || !rcb_finite(*res) || stalled >= 10) return RC_OK;
        const int exact = rci_ga3f_jacobian_analytic(s);
        RC_CHECK(exact ? rci_ga3f_jacobian_exact(s) : jacobian(s));
        if (rci_ga3f_jacobian_probe) rci_ga3f_jacobian_probe(s);
        for (long long i = 0; i < (long long)s->N * s->N; i++)
            if (!rcb_finite(s->J[i])) return RC_OK;   /* a diverged iterate: the fixed point takes the step */
        int singular;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < s->N; i++) s->dx[i] = -s->R[i];
            memcpy(s->J2, s->J, (size_t)s->N * s->N * sizeof(double));
            /* an exactly singular analytic matrix: 1e-10 of each contact row's
             * largest entry on its diagonal (as gf_step.c) */
            for (int i = 3 * s->nv; pass && i < s->N; i++) {
                double big = 0.0;
                for (int j = 0; j < s->N; j++) big = fmax(big, fabs(s->J2[(size_t)j * s->N + i]));
                s->J2[(size_t)i * s->N + i] += 1e-10 * (big > 0.0 ? big : 1.0);
            }
            RC_CHECK(rcl_lu_solve(s->N, s->J2, s->ipiv, s->dx, &singular));
            if (!singular || !exact) break;
        }
        if (singular) return RC_OK;
        for (int i = 0; i < s->N; i++) s->x[i] += s->dx[i];
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the gen-alpha Newton after %d iterations)",
                                s->w->t, s->w->step + 1, it + 1);
    }
}

/* what the residual's largest entry belongs to */
static void describe_worst(const rci_ga3f *s, int worst, char *buf, size_t len)
{
    static const char *const smooth[3] = { "the equation of motion (127a)", "the impact equation (127b)",
                                           "the position correction (127c)" };
    if (worst < 0) { snprintf(buf, len, "none"); return; }
    if (worst < 3 * s->nv) { snprintf(buf, len, "%s, velocity %d", smooth[worst / s->nv], worst % s->nv); return; }
    if (worst < 3 * s->nv + 3 * s->nb) {   /* the joints' rows (ga3_joints.c) */
        static const char *const level[3] = { "position level", "velocity level", "acceleration level" };
        const int r = worst - 3 * s->nv;
        snprintf(buf, len, "spatial joint row %d, %s", r % s->nb + 1, level[r / s->nb]);
        return;
    }
    int k = s->nc - 1;
    while (k > 0 && s->off[k] > worst) k--;
    static const char *const row[3] = { "position level (129)", "velocity level (132)", "acceleration level (135)" };
    const int r = worst - s->off[k];
    snprintf(buf, len, "%s of the contact between shapes %d and %d (id %d)",
             r < 3 ? row[r] : r < 3 + s->nf[k] ? "friction percussion (138)" : "friction force (142)",
             s->cs[k].shape_a, s->cs[k].shape_b, s->cs[k].id);
}

/* the step's contacts at q_{i+1} become w->c3's: p = (P_N, P_F1, P_F2), u at
 * u_{i+1}, active = in A; the drilling rows' P_F3 */
static rc_status finish_contacts(rci_ga3f *s)
{
    rc_world *w = s->w;
    rcm_c3 *c3 = w->c3;
    int any = 0;
    for (int k = 0; k < s->nc; k++) any |= s->nf[k] == 3;
    RC_CHECK(rcb_reserve((void **)&c3->c, &c3->cap_c, s->nc > 0 ? s->nc : 1, sizeof(rcm_contact3)));
    if (any || c3->d) RC_CHECK(rcb_reserve((void **)&c3->d, &c3->cap_d, s->nc > 0 ? s->nc : 1, sizeof(rcm_drill3)));
    c3->n = s->nc;
    c3->nactive = c3->ndrill = 0;
    for (int k = 0; k < s->nc; k++) {
        rcm_contact3 *c = &c3->c[k];
        *c = s->cs[k];
        c->gN = s->gN[k];
        c->active = (s->set[k] & RCI_GF_A) != 0;
        c->p[0] = s->PN[k]; c->p[1] = s->PF[3 * k]; c->p[2] = s->PF[3 * k + 1];
        c->u[0] = s->gdN[k]; c->u[1] = s->gF[3 * k]; c->u[2] = s->gF[3 * k + 1];
        memset(c->shift, 0, sizeof c->shift);
        c3->nactive += c->active;
        if (!c3->d) continue;
        rcm_drill3 *d = &c3->d[k];
        memset(d, 0, sizeof *d);
        d->key = c->key;
        if (s->nf[k] < 3) continue;
        d->on = 1;
        d->p = s->PF[3 * k + 2];
        d->u = s->gF[3 * k + 2];
        c3->ndrill++;
    }
    return rcm_c3_save(w);
}

static void audit(rci_step *st, rci_ga3f *s, rci_audit *a)
{
    rc_world *w = s->w;
    const int nv = s->nv;
    double *vm = s->dx;   /* (u_i + u_{i+1}) / 2 (N >= 3 nv) */
    for (int i = 0; i < nv; i++) vm[i] = 0.5 * (s->un[i] + s->u[i]);
    rcm_energy(w, s->qn, s->un, &st->Ek0, &st->Ep0, NULL);
    rcm_energy(w, s->q, s->u, &st->Ek1, &st->Ep1, &st->E_el);
    if (s->have_f)
        for (int i = 0; i < nv; i++) a->W_ext += s->h * vm[i] * w->f[i];
    double Ekt, Ept;
    memcpy(s->X, s->q, (size_t)s->nq * sizeof(double));
    rci_ga3f_dependent(s, 0);   /* the positions without the correction Q */
    rcm_energy(w, s->q, s->u, &Ekt, &Ept, NULL);
    memcpy(s->q, s->X, (size_t)s->nq * sizeof(double));
    a->W_proj = st->Ep1 - Ept;
    for (int k = 0; k < s->nc; k++) {
        const double *Gk = s->G + (size_t)s->gr[k] * nv;
        double WN = 0.0, WT = 0.0;
        for (int i = 0; i < nv; i++) WN += Gk[i] * vm[i];
        WN *= s->PN[k];
        for (int j = 0; j < s->nf[k]; j++) {
            double ut = 0.0;
            for (int i = 0; i < nv; i++) ut += Gk[(size_t)(1 + j) * nv + i] * vm[i];
            WT += s->PF[3 * k + j] * ut;
        }
        a->W_N += WN;
        a->W_T += WT;
        if (WT > a->WT_max_pos) a->WT_max_pos = WT;
        if (WT < a->WT_min_neg) a->WT_min_neg = WT;
        if (WN + WT > 0.0 && (!a->have_cw || WN + WT > a->max_cw)) { a->max_cw = WN + WT; a->have_cw = 1; a->max_cw_id = s->cs[k].id; }
    }
    if (s->nb) rci_ga3j_finish(s, vm, a);   /* the joints' impulses, work (W_J), violations (ga3_joints.c) */
    a->E0 = st->Ek0 + st->Ep0;
    st->W_theta = (st->Ek1 + st->Ep1 - a->E0) - (a->W_ext + a->W_N + a->W_T + a->W_J + a->W_proj);
}

/* a, a-bar, q, u and the contacts' records by key for the next step */
static rc_status keep_state(rci_ga3f *s, rci_ga_state *g)
{
    memcpy(g->a, s->x, (size_t)s->nv * sizeof(double));
    memcpy(g->vd, s->ab, (size_t)s->nv * sizeof(double));
    memcpy(g->q, s->q, (size_t)s->nq * sizeof(double));
    memcpy(g->v, s->u, (size_t)s->nv * sizeof(double));
    const int stride = 1 + RCI_GA3_REC;
    if (s->nc > g->cap_rec3) {
        double *p = rcb_realloc(g->rec3, (size_t)s->nc * stride * sizeof(double));
        if (!p) return rc_set_error(RC_ERR_NOMEM, "gen-alpha: out of memory (%d spatial contact records)", s->nc);
        g->rec3 = p;
        g->cap_rec3 = s->nc;
    }
    for (int k = 0; k < s->nc; k++) {
        double *r = g->rec3 + (size_t)k * stride, *v = r + 1;
        const double *xk = s->x + s->off[k];
        const int nf = s->nf[k];
        memcpy(r, &s->cs[k].key, sizeof(uint64_t));
        memset(v, 0, RCI_GA3_REC * sizeof(double));
        v[0] = xk[2]; v[1] = s->lbN[k]; v[2] = xk[0]; v[3] = xk[1];
        for (int j = 0; j < nf; j++) { v[4 + j] = xk[3 + nf + j]; v[7 + j] = s->lbF[3 * k + j]; v[10 + j] = xk[3 + j]; }
    }
    g->nrec3 = s->nc;
    g->nrec = 0;
    g->variant = RC_GA_CAPOBIANCO;
    g->valid = 1;
    return RC_OK;
}

rc_status rci_ga3f_step(rci_step *st, rci_audit *a, rci_ga_state *g)
{
    rc_world *w = st->w;
    rci_ga3f s;
    memset(&s, 0, sizeof s);
    double c[4];
    rcm_gen_alpha_coefs(&w->sim.gen_alpha, c);
    s.w = w; s.h = st->h; s.am = c[0]; s.af = c[1]; s.be = c[2]; s.ga = c[3];
    s.t1 = st->t_next; s.nq = w->nq; s.nv = w->nv; s.have_f = st->have_f;
    s.margin = w->detect_margin;
    RC_CHECK(rci_ga3f_contacts(&s));
    if (s.N > RCI_GA3_MAX_UNKNOWNS)
        return rc_set_error(RC_ERR_ARG, "gen-alpha on spatial bodies: the step's system has %d unknowns (3 x %d velocities and %d "
                            "contacts): more than the dense solver's limit of %d at t = %.17g", s.N, s.nv, s.nc,
                            RCI_GA3_MAX_UNKNOWNS, w->t);
    RC_CHECK(arrays(&s));
    memcpy((double *)s.qn, w->q, (size_t)s.nq * sizeof(double));
    memcpy((double *)s.un, w->v, (size_t)s.nv * sizeof(double));
    memcpy((double *)s.an, g->a, (size_t)s.nv * sizeof(double));
    memcpy((double *)s.abn, g->vd, (size_t)s.nv * sizeof(double));
    RC_CHECK(rci_ga3f_rows(&s, s.qn, s.G, s.gN, 1));   /* the rows at q_i: the prox parameters */
    start_contacts(&s, g);
    const int maxit = w->sim.gen_alpha.max_iter;
    const double tol = w->sim.solver.tol;
    int iters = 0, worst = -1, ok = 0;
    double res = 0.0;
    RC_CHECK(newton(&s, maxit, tol, &iters, &res, &worst, &ok));
    if (!ok) {   /* the whole step again by the fixed-point iterations (ga3_fixed.c) */
        int fp = 0;
        w->stats.newton_fallbacks++;
        st->fallback = 1;
        RC_CHECK(rci_ga3f_rows(&s, s.qn, s.G, s.gN, 1));
        start_contacts(&s, g);
        RC_CHECK(rci_ga3f_fixed_point(&s, RCI_GF_MAX_FIXED_POINT, tol, &fp, &res, &worst, &ok));
        iters += fp;
    }
    st->iters = iters;
    st->res = res;
    st->converged = ok;
    char what[320];
    describe_worst(&s, worst, what, sizeof what);
    if (!rcb_finite(res))
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: non-finite residual at t = %.17g (step %ld); at %s", st->t_next, w->step + 1, what);
    if (!ok) {
        if (w->sim.solver.on_fail == RC_ON_FAIL_ERROR)
            return rc_set_error(RC_ERR_SOLVER, "gen-alpha: neither Newton nor the fixed point converged at t = %.17g (step %ld): "
                                "residual %.3e > tol %.3e after %d iterations (spatial contacts); worst: %s", st->t_next,
                                w->step + 1, res, tol, iters, what);
        rci_warn_unconverged(w, "gen-alpha: neither Newton nor the fixed point converged at t = %.17g (step %ld): residual %.3e > "
                             "tol %.3e after %d iterations (spatial contacts); worst: %s", st->t_next, w->step + 1, res, tol,
                             iters, what);
    }
    RC_CHECK(rci_ga3_accept(w, s.q, s.u));   /* finite, then the world's q, v (ga3_step.c) */
    audit(st, &s, a);
    RC_CHECK(finish_contacts(&s));
    return keep_state(&s, g);
}
