/* ga3_bruls.c -- the frictionless variant ("bruls2014": Bruls, Acary &
 * Cardona 2014, eqs. 29-30) of the generalized-alpha step on spatial rigid
 * bodies with contacts (ga3_friction.h; docs/theory/gen-alpha.md, "Spatial
 * contacts"): the kinematics of ga3_step.c, q~ the Taylor update (125) of
 * a_{n+1} and q_{n+1} = q~ (+) B(q_n) U; the unknowns
 *   x = (vdot~ (nv), U (nv), W (nv), nu (nc), Lambda (nc)),
 *   a_{n+1} = ((1 - alpha_f) vdot~ + alpha_f vdot~_n - alpha_m a_n) / (1 - alpha_m),
 *   v~ = v_n + h (1 - gamma) a_n + h gamma a_{n+1},  v_{n+1} = v~ + W,
 * the residual (39) scaled as the planar scheme's (ga_newton.c):
 *   h (M vdot~ - f(q, v)),  (M U - G_A^T nu) / h,  M W - G_B^T Lambda,
 *   A: g(q)/h or nu/h,  B: G v + e G_n v_n or Lambda,
 * the active sets (38) A = {nu - r g >= 0}, B = {g(q~) <= 0 and Lambda -
 * r (G v + e G_n v_n) >= 0}, G the normal rows at q_{n+1}; the semismooth
 * Newton with the Jacobian by forward differences (the sets frozen). f has
 * the gyroscopic -Omega x J Omega at v_{n+1}. Built-in laws with mu = 0. */
#include "integrate/ga3_friction.h"
#include "base/rot3.h"
#include "linalg/linalg.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef struct ga3b {
    rci_ga3f s;                   /* rows, sizes, the state at t_n (an = a_n, abn = vdot~_n) */
    double *vt, *qt, *gt, *ukn, *gtil;
    unsigned char *inA, *inB;
} ga3b;

static double dotn(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d += a[i] * b[i];
    return d;
}

/* a_{n+1}, v~, v, q~, q; the rows and gaps at q, the gaps at q~; the forces */
static rc_status eval(ga3b *b)
{
    rci_ga3f *s = &b->s;
    rc_world *w = s->w;
    const int nv = s->nv;
    const double h = s->h, *vd = s->x, *U = s->x + nv, *W = s->x + 2 * nv;
    for (int i = 0; i < nv; i++) {
        s->ab[i] = ((1.0 - s->af) * vd[i] + s->af * s->abn[i] - s->am * s->an[i]) / (1.0 - s->am);
        b->vt[i] = s->un[i] + h * (1.0 - s->ga) * s->an[i] + h * s->ga * s->ab[i];
        s->u[i] = b->vt[i] + W[i];
    }
    rci_ga3f_positions(s, s->an, s->ab, NULL, b->qt);
    rci_ga3f_positions(s, s->an, s->ab, U, s->q);
    RC_CHECK(rci_ga3f_rows(s, b->qt, s->G2, b->gtil, 0));
    RC_CHECK(rci_ga3f_rows(s, s->q, s->G, s->gN, 1));
    memcpy(w->q, s->q, (size_t)s->nq * sizeof(double));
    memcpy(w->v, s->u, (size_t)nv * sizeof(double));
    if (s->have_f) RC_CHECK(rci_forces(w, s->t1));
    const double *g = w->def.gravity;
    for (int bb = 0; bb < w->nbodies; bb++) {
        const int o = w->bodies[bb].iv;
        const double m = w->mass_diag[o], *J = w->mass_diag + o + 3, *Om = s->u + o + 3;
        double JW[3], gy[3];
        for (int j = 0; j < 3; j++) JW[j] = J[j] * Om[j];
        rcb_v3_cross(gy, Om, JW);
        for (int j = 0; j < 6; j++) s->f[o + j] = s->have_f ? w->f[o + j] : 0.0;
        for (int j = 0; j < 3; j++) { s->f[o + j] += m * g[j]; s->f[o + 3 + j] -= gy[j]; }
    }
    return RC_OK;
}

static void sets(ga3b *b)
{
    rci_ga3f *s = &b->s;
    const double *nu = s->x + 3 * s->nv + 3 * s->nb, *L = nu + s->nc;
    for (int k = 0; k < s->nc; k++) {   /* (38) */
        const double u = dotn(s->G + (size_t)s->gr[k] * s->nv, s->u, s->nv) + b->ukn[k];
        b->inA[k] = nu[k] - s->rN[k] * s->gN[k] >= 0.0;
        b->inB[k] = b->gtil[k] <= 0.0 && L[k] - s->rN[k] * u >= 0.0;
    }
}

/* the joints' rows (always active, the planar scheme's bilateral set):
 * -G^T lambda~ in (29a), -G^T nu_g in (29c), -G^T Lambda_g in (29f) (x at 3 nv:
 * nu_g, Lambda_g, lambda~, nb each), and g / h (29d), G v + g_t (29g),
 * G v~ + g_t (29b) at q_{n+1}, t_{n+1} */
static void joint_rows(ga3b *b)
{
    rci_ga3f *s = &b->s;
    const int nv = s->nv, nb = s->nb;
    double *R = s->R;
    const double *nug = s->x + 3 * nv, *Lg = nug + nb, *lt = Lg + nb;
    for (int i = 0; i < nv; i++) {   /* with the rows' scaling: h (29a), 1/h (29c), 1 (29f) */
        double sl = 0.0, sp = 0.0, sv = 0.0;
        for (int k = 0; k < nb; k++) {
            const double Gk = s->G[(size_t)k * nv + i];
            sl += Gk * lt[k];
            sp += Gk * nug[k];
            sv += Gk * Lg[k];
        }
        R[i] -= s->h * sl;
        R[nv + i] -= sp / s->h;
        R[2 * nv + i] -= sv;
    }
    double qmax = 0.0;
    for (int i = 0; i < s->nq; i++) qmax = fmax(qmax, fabs(s->q[i]));
    const double gfloor = 4.0 * DBL_EPSILON * (1.0 + qmax);
    for (int k = 0; k < nb; k++) {
        const double *Gk = s->G + (size_t)k * nv;
        s->gdj[k] = dotn(Gk, s->u, nv) + s->gtj[k];
        R[3 * nv + k] = (fabs(s->gj[k]) <= gfloor ? 0.0 : s->gj[k]) / s->h;   /* (29d) */
        R[3 * nv + nb + k] = s->gdj[k];                                          /* (29g) */
        R[3 * nv + 2 * nb + k] = dotn(Gk, b->vt, nv) + s->gtj[k];                /* (29b) */
    }
}

static double residual(ga3b *b, int *worst)
{
    rci_ga3f *s = &b->s;
    const int nv = s->nv, nc = s->nc;
    const double h = s->h, *md = s->w->mass_diag, *vd = s->x, *U = s->x + nv, *W = s->x + 2 * nv;
    const double *nu = s->x + 3 * nv + 3 * s->nb, *L = nu + nc;
    double *R = s->R;
    for (int i = 0; i < nv; i++) {
        double sp = 0.0, sv = 0.0;
        for (int k = 0; k < nc; k++) {
            const double Gki = s->G[(size_t)s->gr[k] * nv + i];
            if (b->inA[k]) sp += Gki * nu[k];
            if (b->inB[k]) sv += Gki * L[k];
        }
        R[i] = h * (md[i] * vd[i] - s->f[i]);                /* (29a) */
        R[nv + i] = (md[i] * U[i] - sp) / h;                 /* (29c) */
        R[2 * nv + i] = md[i] * W[i] - sv;                   /* (29f) */
    }
    if (s->nb) joint_rows(b);   /* the joints, always active (ga3_joints.c's rows) */
    double qmax = 0.0;
    for (int i = 0; i < s->nq; i++) qmax = fmax(qmax, fabs(s->q[i]));
    const double gfloor = 4.0 * DBL_EPSILON * (1.0 + qmax);
    for (int k = 0; k < nc; k++) {
        const double gk = fabs(s->gN[k]) <= gfloor ? 0.0 : s->gN[k];
        const int o = 3 * nv + 3 * s->nb;
        R[o + k] = b->inA[k] ? gk / h : nu[k] / h;                                                        /* (29e) */
        R[o + nc + k] = b->inB[k] ? dotn(s->G + (size_t)s->gr[k] * nv, s->u, nv) + b->ukn[k] : L[k];     /* (29h) */
    }
    double res = 0.0;
    *worst = -1;
    for (int i = 0; i < s->N; i++)
        if (!(fabs(R[i]) <= res)) { res = fabs(R[i]); *worst = i; }
    return res;
}

static rc_status newton(ga3b *b, int maxit, double tol, int *iters, double *res, int *worst)
{
    rci_ga3f *s = &b->s;
    const int N = s->N;
    for (int it = 0;; it++) {
        RC_CHECK(eval(b));
        sets(b);
        *res = residual(b, worst);
        *iters = it;
        if (*res <= tol || it == maxit || !rcb_finite(*res)) return RC_OK;
        memcpy(s->R0, s->R, (size_t)N * sizeof(double));
        for (int j = 0; j < N; j++) {   /* the Jacobian by forward differences, the sets frozen */
            const double xj = s->x[j], eps = 1e-7 * fmax(1.0, fabs(xj));
            int wj;
            s->x[j] = xj + eps;
            RC_CHECK(eval(b));
            (void)residual(b, &wj);
            for (int i = 0; i < N; i++) s->J[(size_t)j * N + i] = (s->R[i] - s->R0[i]) / eps;
            s->x[j] = xj;
        }
        for (int i = 0; i < N; i++) s->dx[i] = -s->R0[i];
        int singular;
        RC_CHECK(rcl_lu_solve(N, s->J, s->ipiv, s->dx, &singular));
        if (singular) return RC_OK;
        for (int i = 0; i < N; i++) s->x[i] += s->dx[i];
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the gen-alpha Newton after %d iterations)",
                                s->w->t, s->w->step + 1, it + 1);
    }
}

static rc_status setup(ga3b *b, rci_step *st, const rci_ga_state *g)
{
    rci_ga3f *s = &b->s;
    rc_world *w = st->w;
    double c[4];
    rcm_gen_alpha_coefs(&w->sim.gen_alpha, c);
    s->w = w; s->h = st->h; s->am = c[0]; s->af = c[1]; s->be = c[2]; s->ga = c[3];
    s->t1 = st->t_next; s->nq = w->nq; s->nv = w->nv; s->have_f = st->have_f;
    s->margin = w->detect_margin;
    RC_CHECK(rci_ga3f_contacts(s));
    const int nv = s->nv, nq = s->nq, nc = s->nc;
    for (int k = 0; k < nc; k++) {
        const rc_law *law = &w->laws[s->cs[k].law];
        if (law->def.mu > 0.0)
            return rc_set_error(RC_ERR_ARG, "gen-alpha's variant \"bruls2014\" is frictionless: law '%s' has mu = %g (the contact "
                                "between shapes %d and %d); use variant \"capobianco2021\" (the default on spatial bodies)",
                                law->name ? law->name : "(unnamed)", law->def.mu, s->cs[k].shape_a, s->cs[k].shape_b);
        s->nf[k] = 0;
        s->gr[k] = s->nb + k;   /* after the joints' rows */
    }
    s->nrows = s->nb + nc;
    s->N = 3 * nv + 3 * s->nb + 2 * nc;
    if (s->N > RCI_GA3_MAX_UNKNOWNS)
        return rc_set_error(RC_ERR_ARG, "gen-alpha on spatial bodies: the step's system has %d unknowns: more than the dense "
                            "solver's limit of %d at t = %.17g", s->N, RCI_GA3_MAX_UNKNOWNS, w->t);
    const long long N = s->N, m = nc > 0 ? nc : 1, mr = s->nrows > 0 ? s->nrows : 1;
    double *p;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&p, 3 * nq + 8 * nv + N + 2 * mr * nv + 6 * m + 3 * N + N * N + 5LL * s->nb,
                             sizeof(double), "gen-alpha (spatial, bruls2014) system"));
    s->qn = p; p += nq; s->un = p; p += nv; s->an = p; p += nv; s->abn = p; p += nv;
    s->x = p; p += N; s->ab = p; p += nv; s->u = p; p += nv; s->q = p; p += nq; s->f = p; p += nv;
    b->vt = p; p += nv; b->qt = p; p += nq;
    s->G = p; p += mr * nv; s->G2 = p; p += mr * nv;
    s->gj = p; p += s->nb; s->gtj = p; p += s->nb; s->gdj = p; p += s->nb; s->gddj = p; p += s->nb; s->gt2 = p; p += s->nb;
    s->gN = p; p += m; b->gtil = p; p += m; b->ukn = p; p += m; s->eN = p; p += m; s->rN = p; p += m; b->gt = p; p += m;
    s->R = p; p += N; s->R0 = p; p += N; s->dx = p; p += N; s->J = p;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&b->inA, 2 * m, 1, "gen-alpha 3D active sets"));
    b->inB = b->inA + m;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&s->ipiv, N, sizeof(int), "gen-alpha 3D pivots"));
    memcpy((double *)s->qn, w->q, (size_t)nq * sizeof(double));
    memcpy((double *)s->un, w->v, (size_t)nv * sizeof(double));
    /* the state keeps Capobianco's names on spatial bodies (ga3_step.c): g->a the
       acceleration (here vdot~_n), g->vd the alpha-acceleration (here a_n) */
    memcpy((double *)s->an, g->vd, (size_t)nv * sizeof(double));
    memcpy((double *)s->abn, g->a, (size_t)nv * sizeof(double));
    RC_CHECK(rci_ga3f_rows(s, s->qn, s->G, s->gN, 1));   /* at q_n: the impact law's e G_n v_n, r_j */
    for (int k = 0; k < nc; k++) {
        const double *Gk = s->G + (size_t)s->gr[k] * nv;
        double d = 0.0;
        for (int i = 0; i < nv; i++) d += Gk[i] * Gk[i] / w->mass_diag[i];
        s->eN[k] = w->laws[s->cs[k].law].def.e;
        b->ukn[k] = s->eN[k] * dotn(Gk, s->un, nv);
        b->gt[k] = dotn(Gk, s->un, nv);   /* g_q,n v_n (the audit) */
        s->rN[k] = d > 0.0 ? 1.0 / d : 1.0;
    }
    memset(s->x, 0, (size_t)N * sizeof(double));
    for (int i = 0; i < nv; i++)   /* the predictor (40): a^0 = (alpha_f vdot~_n - alpha_m a_n)/(1 - alpha_m) -> vdot~ */
        s->x[i] = s->abn[i];
    return RC_OK;
}

/* E, the impulses' work (Thomson--Tait), the correction's (W_proj), the rest */
static void audit(rci_step *st, ga3b *b, rci_audit *a)
{
    rci_ga3f *s = &b->s;
    rc_world *w = s->w;
    const int nv = s->nv;
    rcm_energy(w, s->qn, s->un, &st->Ek0, &st->Ep0, NULL);
    rcm_energy(w, s->q, s->u, &st->Ek1, &st->Ep1, &st->E_el);
    if (s->have_f)
        for (int i = 0; i < nv; i++) a->W_ext += s->h * 0.5 * (s->un[i] + s->u[i]) * w->f[i];
    double Ekt, Ept;
    rcm_energy(w, b->qt, s->u, &Ekt, &Ept, NULL);
    a->W_proj = st->Ep1 - Ept;
    const double *L = s->x + 3 * nv + 3 * s->nb + s->nc;
    if (s->nb) {   /* the joints' impulses Lambda_g + h lambda~, work at (u_n + u_{n+1}) / 2, violations */
        double *vm = s->R0;
        for (int i = 0; i < nv; i++) vm[i] = 0.5 * (s->un[i] + s->u[i]);
        rci_ga3j_finish(s, vm, a);
    }
    for (int k = 0; k < s->nc; k++) {
        if (!b->inA[k] && !b->inB[k]) continue;
        const double WN = L[k] * 0.5 * (dotn(s->G + (size_t)s->gr[k] * nv, s->u, nv) + b->gt[k]);
        a->W_N += WN;
        if (!a->have_cw || WN > a->max_cw) { a->max_cw = WN; a->have_cw = 1; a->max_cw_id = s->cs[k].id; }
    }
    a->E0 = st->Ek0 + st->Ep0;
    st->W_theta = (st->Ek1 + st->Ep1 - a->E0) - (a->W_ext + a->W_N + a->W_J + a->W_proj);
}

/* the contacts at q_{n+1} become w->c3's (p = (Lambda, 0, 0)) */
static rc_status finish(ga3b *b)
{
    rci_ga3f *s = &b->s;
    rcm_c3 *c3 = s->w->c3;
    const double *L = s->x + 3 * s->nv + 3 * s->nb + s->nc;
    RC_CHECK(rcb_reserve((void **)&c3->c, &c3->cap_c, s->nc > 0 ? s->nc : 1, sizeof(rcm_contact3)));
    c3->n = s->nc;
    c3->nactive = c3->ndrill = 0;
    for (int k = 0; k < s->nc; k++) {
        rcm_contact3 *c = &c3->c[k];
        *c = s->cs[k];
        c->gN = s->gN[k];
        c->active = b->inA[k] || b->inB[k];
        c->p[0] = L[k]; c->p[1] = c->p[2] = 0.0;
        c->u[0] = dotn(s->G + (size_t)s->gr[k] * s->nv, s->u, s->nv); c->u[1] = c->u[2] = 0.0;
        memset(c->shift, 0, sizeof c->shift);
        c3->nactive += c->active;
        if (c3->d) c3->d[k].on = 0;
    }
    return rcm_c3_save(s->w);
}

rc_status rci_ga3b_step(rci_step *st, rci_audit *a, rci_ga_state *g)
{
    rc_world *w = st->w;
    ga3b b;
    memset(&b, 0, sizeof b);
    RC_CHECK(setup(&b, st, g));
    rci_ga3f *s = &b.s;
    const double tol = w->sim.solver.tol;
    int iters = 0, worst = -1;
    double res = 0.0;
    RC_CHECK(newton(&b, w->sim.gen_alpha.max_iter, tol, &iters, &res, &worst));
    st->iters = iters;
    st->res = res;
    st->converged = res <= tol;
    if (!rcb_finite(res))
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: non-finite Newton residual at t = %.17g (step %ld) (spatial contacts)",
                            st->t_next, w->step + 1);
    if (!st->converged) {
        const int oc = 3 * s->nv + 3 * s->nb, k = worst >= oc && s->nc ? (worst - oc) % s->nc : -1;
        char what[200];
        if (k >= 0) snprintf(what, sizeof what, "the %s of the contact between shapes %d and %d", worst < oc + s->nc ?
                             "position level (29e)" : "velocity level (29h)", s->cs[k].shape_a, s->cs[k].shape_b);
        else if (worst >= 3 * s->nv) {
            const int r = worst - 3 * s->nv;
            snprintf(what, sizeof what, "spatial joint row %d, %s", r % s->nb + 1, r < s->nb ? "position level (29d)" : r < 2 * s->nb ?
                     "velocity level (29g)" : "the smooth velocity (29b)");
        } else snprintf(what, sizeof what, "velocity %d of (29a, c, f)", worst % s->nv);
        if (w->sim.solver.on_fail == RC_ON_FAIL_ERROR)
            return rc_set_error(RC_ERR_SOLVER, "gen-alpha: Newton did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e "
                                "after %d iterations (spatial contacts, bruls2014); worst: %s", st->t_next, w->step + 1, res,
                                tol, iters, what);
        rci_warn_unconverged(w, "gen-alpha: Newton did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e after %d "
                             "iterations (spatial contacts, bruls2014); worst: %s", st->t_next, w->step + 1, res, tol, iters, what);
    }
    RC_CHECK(rci_ga3_accept(w, s->q, s->u));   /* finite, then the world's q, v (ga3_step.c) */
    audit(st, &b, a);
    RC_CHECK(finish(&b));
    memcpy(g->a, s->x, (size_t)s->nv * sizeof(double));    /* vdot~_{n+1}, a_{n+1} (see setup) and their q, v */
    memcpy(g->vd, s->ab, (size_t)s->nv * sizeof(double));
    memcpy(g->q, s->q, (size_t)s->nq * sizeof(double));
    memcpy(g->v, s->u, (size_t)s->nv * sizeof(double));
    g->nrec = g->nrec3 = 0;
    g->variant = RC_GA_BRULS;
    g->valid = 1;
    return RC_OK;
}
