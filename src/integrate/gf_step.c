/* gf_step.c -- the frictional nonsmooth generalized-alpha scheme
 * (Capobianco, Harsch, Eugster & Leine 2021; note 003) as the step of scheme
 * "gen-alpha" when its variant is Capobianco's (rc_gen_alpha_def.variant;
 * "auto": a world with friction):
 *
 *   detect       the step's contacts at q_i within a margin that covers the
 *                step's motion (as the frictionless variant)
 *   start        a_i, a-bar_i and each contact's lambda_N, lambda_F and
 *                their bars from the last step (by key), or the consistent
 *                acceleration of the joints (a-bar_0 = a_0, lambda_0 = 0)
 *   Newton       the semismooth Newton method on R(x) (143), the index sets
 *                frozen while the Jacobian is taken (gf_jacobian.c: analytic
 *                for the built-in parts, or by forward differences)
 *   fallback     when Newton fails (a singular Jacobian: dependent contact
 *                directions, or no convergence): the whole step again by the
 *                fixed-point iterations (144)-(146), Newton on R_s for the
 *                smooth unknowns y with the contact unknowns z fixed, then
 *                z <- p(y, z) in Gauss--Seidel order
 *   update       q, u, a, a-bar and the contacts' forces kept for the next step
 *   audit        E, the work of the percussions P_N, P_F (Thomson--Tait,
 *                at (u_i + u_{i+1})/2), of the position multipliers
 *                (W_proj: the potential energy the correction Q changed),
 *                the rest in W_theta
 */
#include "integrate/gen_alpha.h"
#include "integrate/gen_alpha_friction.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- setup */

static rc_status arrays(rci_gf_sys *s)
{
    rcb_arena *A = &s->w->work;
    const int n = s->n, nb = s->nb, nc = s->nc, N = s->N, m = nb + 2 * nc;
    const long long total = 4LL * n + 4LL * nc        /* qn un an abn, lNn lbNn lFn lbFn */
                          + N + 3LL * n + 5LL * nc     /* x; ab u q; lbN lbF PN kh PF */
                          + n + 2LL * (long long)m * n + 3LL * nb + 7LL * nc + 5LL * nc   /* f G Gp g gd gdd, contacts' evaluations, laws */
                          + N + 2LL * N * N + 3LL * N + n + (nc + 2LL * nb + 3LL * n) + m;   /* R J dx x0 R0 X tmp dc */
    double *p;
    RC_CHECK(rcb_arena_array(A, (void **)&p, total > 0 ? total : 1, sizeof(double), "gen-alpha (friction) system"));
#define TAKE(field, k) (s->field = p, p += (k))
    s->qn = p; p += n; s->un = p; p += n; s->an = p; p += n; s->abn = p; p += n;
    TAKE(lNn, nc); TAKE(lbNn, nc); TAKE(lFn, nc); TAKE(lbFn, nc);
    TAKE(x, N); TAKE(ab, n); TAKE(u, n); TAKE(q, n);
    TAKE(lbN, nc); TAKE(lbF, nc); TAKE(PN, nc); TAKE(kh, nc); TAKE(PF, nc);
    TAKE(f, n); TAKE(G, (long long)m * n); TAKE(Gp, (long long)m * n); TAKE(g, nb); TAKE(gd, nb); TAKE(gdd, nb);
    TAKE(gN, nc); TAKE(gdN, nc); TAKE(gddN, nc); TAKE(xiN, nc); TAKE(gF, nc); TAKE(gdF, nc); TAKE(xiF, nc);
    TAKE(eN, nc); TAKE(eF, nc); TAKE(mu, nc); TAKE(rN, nc); TAKE(rF, nc);
    TAKE(R, N); TAKE(J, 2LL * N * N); TAKE(dx, N); TAKE(x0, N); TAKE(R0, N); TAKE(X, n);
    TAKE(tmp, nc + 2LL * nb + 3LL * n); TAKE(dc, m);
#undef TAKE
    RC_CHECK(rcb_arena_array(A, (void **)&s->uo, nc > 0 ? 2 * nc : 1, sizeof(double), "gen-alpha contacts' u_i"));
    RC_CHECK(rcb_arena_array(A, (void **)&s->lstate, nc > 0 ? (long long)RC_LAW_MAX_STATE * nc : 1, sizeof(double), "gen-alpha laws' state"));
    RC_CHECK(rcb_arena_array(A, (void **)&s->site, nc > 0 ? nc : 1, sizeof(rcn_site), "gen-alpha laws' sites"));
    RC_CHECK(rcb_arena_array(A, (void **)&s->cs, nc > 0 ? nc : 1, sizeof(rc_contact), "gen-alpha contacts"));
    RC_CHECK(rcb_arena_array(A, (void **)&s->cs2, nc > 0 ? nc : 1, sizeof(rc_contact), "gen-alpha contacts"));
    RC_CHECK(rcb_arena_array(A, (void **)&s->set, nc > 0 ? nc : 1, 1, "gen-alpha index sets"));
    return rcb_arena_array(A, (void **)&s->ipiv, N > 0 ? N : 1, sizeof(int), "gen-alpha pivots");
}

/* a contact's law under this scheme: a built-in law (Newton's impact law in
 * normal direction with e, Coulomb with mu, tangential restitution e_t; a
 * custom law's are 0 and unused: it runs through its site, gf_law.c) */
static rc_status law_of(const rc_world *w, int ci, double *e, double *et, double *mu)
{
    const rc_law *law = &w->laws[w->contacts[ci].law];
    if (law->def.type == RC_LAW_CUSTOM) { *e = *et = *mu = 0.0; return RC_OK; }
    *e = law->def.e;
    *et = law->def.type == RC_LAW_MOREAU ? law->def.e_t : 0.0;
    *mu = law->def.mu;
    return RC_OK;
}

/* the prox parameters: the contact's effective masses at q_i (note 003
 * section 4 item 9: they only decide the active sets under Newton), or the
 * simulation's */
static void prox_params(rci_gf_sys *s)
{
    const double *md = s->w->mass_diag, r = s->w->sim.gen_alpha.prox_r;
    for (int k = 0; k < s->nc; k++) {
        double dn = 0.0, dt = 0.0;
        for (int i = 0; i < s->n; i++) {
            const double gn = s->G[(size_t)(s->nb + 2 * k) * s->n + i], gt = s->G[(size_t)(s->nb + 2 * k + 1) * s->n + i];
            dn += gn * gn / md[i];
            dt += gt * gt / md[i];
        }
        s->rN[k] = r > 0.0 ? r : dn > 0.0 ? 1.0 / dn : 1.0;
        s->rF[k] = r > 0.0 ? r : dt > 0.0 ? 1.0 / dt : s->rN[k];
    }
}

static const rci_gf_rec *find_rec(const rci_ga_state *g, uint64_t key)
{
    int lo = 0, hi = g->nrec - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (g->rec[mid].key == key) return &g->rec[mid];
        if (g->rec[mid].key < key) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

static rc_status setup(rci_step *st, rci_gf_sys *s, rci_ga_state *g)
{
    rc_world *w = st->w;
    RC_CHECK(rci_ga_head_setup(st, &s->head));
    s->nc = w->ncontacts;
    s->N = 3 * s->n + 3 * s->nb + 5 * s->nc;
    if (s->N > RCI_GF_MAX_UNKNOWNS)
        return rc_set_error(RC_ERR_ARG, "gen-alpha with friction: the step's system has %d unknowns (3 x %d velocities, 3 x %d joint rows, "
                            "5 x %d contacts): more than the dense solver's limit of %d at t = %.17g",
                            s->N, s->n, s->nb, s->nc, RCI_GF_MAX_UNKNOWNS, w->t);
    RC_CHECK(arrays(s));
    memcpy((double *)s->qn, w->q, (size_t)s->n * sizeof(double));
    memcpy((double *)s->un, w->v, (size_t)s->n * sizeof(double));
    for (int k = 0; k < s->nc; k++) {
        s->cs[k] = w->contacts[k];
        RC_CHECK(law_of(w, k, &s->eN[k], &s->eF[k], &s->mu[k]));
        RC_CHECK(rci_gf_law_setup(s, k, &w->laws[s->cs[k].law], s->lstate + (size_t)RC_LAW_MAX_STATE * k));
        const rci_gf_rec *r = g->valid ? find_rec(g, s->cs[k].key) : NULL;
        s->lNn[k] = r ? r->v[0] : 0.0; s->lbNn[k] = r ? r->v[1] : 0.0;
        s->lFn[k] = r ? r->v[2] : 0.0; s->lbFn[k] = r ? r->v[3] : 0.0;
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- the start */

/* a_0 (= a-bar_0) of a state set from outside: M a - g_q^T l = f with the
 * joints' g-ddot = 0, contact forces 0 (note 003 section 2.9) */
static rc_status consistent_start(rci_gf_sys *s, double *a0)
{
    const int n = s->n, nb = s->nb;
    RC_CHECK(rci_gf_start_terms(s));
    /* dense [M, -G^T; G, 0] [a; l] = [f; -c] (small systems: this scheme's step is dense too) */
    const int K = n + nb;
    double *S = s->J, *b = s->dx;
    memset(S, 0, (size_t)K * K * sizeof(double));
    for (int i = 0; i < n; i++) { S[(size_t)i * K + i] = s->w->mass_diag[i]; b[i] = s->f[i]; }
    for (int i = 0; i < s->w->nlinears; i++) {
        const rc_linear *L = &s->w->linears[i];
        const int o = s->w->bodies[L->body].iv;
        for (int r = 0; r < L->n; r++)
            for (int c = 0; c < L->n; c++) S[(size_t)(o + c) * K + o + r] = rcm_linear_entry(L, L->M, r, c);
    }
    for (int k = 0; k < nb; k++) {
        for (int i = 0; i < n; i++) {
            const double Gki = s->G[(size_t)k * n + i];
            S[(size_t)(n + k) * K + i] = -Gki;
            S[(size_t)i * K + n + k] = Gki;
        }
        b[n + k] = -s->gdd[k];   /* g-ddot at a = 0: the drift term */
    }
    int singular;
    RC_CHECK(rcl_lu_solve(K, S, s->ipiv, b, &singular));
    if (singular)
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: the joints' rows are dependent at t = %.17g: "
                            "no consistent initial acceleration (pivot %d)", s->w->t, singular);
    memcpy(a0, b, (size_t)n * sizeof(double));
    return RC_OK;
}

/* ---------------------------------------------------------------- Newton */

/* x[c0, c0 + nr) -= J^-1 R (J kept: solved on a copy) */
static rc_status solve_update(rci_gf_sys *s, int c0, int nr, const double *J, int *singular)
{
    double *A = s->J + (size_t)s->N * s->N;   /* the copy LAPACK factorises */
    for (int pass = 0; pass < 2; pass++) {
        memcpy(A, J, (size_t)nr * nr * sizeof(double));
        /* an exactly singular analytic Jacobian (contacts whose rows depend
         * on each other, e.g. both walls of a corner sticking: the split of
         * the multipliers is free): the contacts' rows get 1e-10 of their
         * largest entry on the diagonal, the step a minimal change of their
         * multipliers (the residual, and so the solution, are R's own) */
        for (int i = 3 * s->n + 3 * s->nb - c0; pass && i < nr; i++) {
            double big = 0.0;
            for (int j = 0; j < nr; j++) big = fmax(big, fabs(A[(size_t)j * nr + i]));
            A[(size_t)i * nr + i] += 1e-10 * (big > 0.0 ? big : 1.0);
        }
        for (int i = 0; i < nr; i++) s->dx[i] = -s->R[c0 + i];
        RC_CHECK(rcl_lu_solve(nr, A, s->ipiv, s->dx, singular));
        if (!*singular || !rci_gf_jacobian_analytic(s) || 3 * s->n + 3 * s->nb >= c0 + nr) break;
    }
    if (*singular) return RC_OK;
    for (int i = 0; i < nr; i++) s->x[c0 + i] += s->dx[i];
    return RC_OK;
}

/* the semismooth Newton method on R (143); *ok: converged */
static rc_status newton(rci_gf_sys *s, int maxit, double tol, int *iters, double *res, int *worst, int *ok)
{
    *ok = 0;
    double best = INFINITY;
    int stalled = 0;
    for (int it = 0;; it++) {
        RC_CHECK(rci_gf_eval(s));
        rci_gf_sets(s);
        *res = rci_gf_residual(s, worst);
        RC_CHECK(s->err);
        *iters = it;
        if (*res <= tol) { *ok = 1; return RC_OK; }
        /* a stall (no tenfold progress in 10 iterations) hands the step to the fixed point */
        if (*res < 0.1 * best) { best = *res; stalled = 0; } else stalled++;
        if (it == maxit || !rcb_finite(*res) || stalled >= 10) return RC_OK;
        int singular;
        RC_CHECK(rci_gf_jacobian(s, 0, s->N, 0, s->J));
        if (rci_gf_jacobian_probe) rci_gf_jacobian_probe(s, s->J);
        for (long long i = 0; i < (long long)s->N * s->N; i++)
            if (!rcb_finite(s->J[i])) return RC_OK;   /* a diverged iterate: the fixed point takes the step */
        RC_CHECK(solve_update(s, 0, s->N, s->J, &singular));
        if (singular) return RC_OK;
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the gen-alpha Newton after %d iterations)",
                                s->w->t, s->w->step + 1, it + 1);
    }
}

/* the fixed-point iterations (144)-(146): Newton on R_s(y, z) = 0 for the
 * smooth unknowns y with the contacts' z fixed (a chord method: the Jacobian
 * of the first iterate kept, taken again when an update does not reduce R_s),
 * then z <- p(y, z); *ok: converged */
static rc_status fixed_point(rci_gf_sys *s, int maxit, double tol, int *iters, double *res, int *worst, int *ok)
{
    const int ny = 3 * s->n + 3 * s->nb;
    double *Jy = s->J, best = INFINITY;
    int have_j = 0, since = 0;
    *ok = 0;
    for (int mu = 0; mu < maxit; mu++) {
        double rs = 0.0, last = INFINITY;
        for (int it = 0; it < 10; it++) {   /* (145) */
            RC_CHECK(rci_gf_eval(s));
            rs = rci_gf_residual_smooth(s);
            if (rs <= 0.01 * tol) break;
            if (!have_j || !(rs < 0.5 * last)) { RC_CHECK(rci_gf_jacobian(s, 0, ny, 1, Jy)); have_j = 1; }
            last = rs;
            int singular;
            RC_CHECK(solve_update(s, 0, ny, Jy, &singular));
            if (singular)
                return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: the smooth part's matrix is singular at t = %.17g (step %ld): "
                                    "dependent joint rows?", s->t1, s->w->step + 1);
        }
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the gen-alpha fixed point after %d iterations)",
                                s->w->t, s->w->step + 1, mu);
        RC_CHECK(rci_gf_eval(s));
        const double change = rci_gf_prox_update(s);   /* (146) */
        RC_CHECK(s->err);
        *iters = mu + 1;
        if (change <= tol) { *ok = 1; break; }
        /* no progress: a change that is not finite, or not halved in 100 iterations */
        if (!rcb_finite(change)) break;
        if (mu == 0 || change < 0.5 * best) { best = change; since = 0; }
        else if (++since >= 100) break;
    }
    /* the residual of the result, with its own index sets */
    RC_CHECK(rci_gf_eval(s));
    rci_gf_sets(s);
    *res = rci_gf_residual(s, worst);
    RC_CHECK(s->err);
    *ok = *ok || *res <= tol;
    return RC_OK;
}

/* ---------------------------------------------------------------- the step's end */

/* what the residual's largest entry belongs to */
static void describe_worst(const rci_gf_sys *s, int worst, char *buf, size_t len)
{
    const int n = s->n, nb = s->nb, nc = s->nc;
    static const char *const smooth[3] = { "the equation of motion (127a)", "the impact equation (127b)", "the position correction (127c)" };
    static const char *const joint[3] = { "position level", "velocity level", "acceleration level" };
    static const char *const contact[5] = { "position level (129)", "velocity level (132)", "acceleration level (135)",
                                            "friction percussion (138)", "friction force (142)" };
    if (worst < 0) { snprintf(buf, len, "none"); return; }
    if (worst < 3 * n) { snprintf(buf, len, "%s, velocity %d", smooth[worst / n], worst % n); return; }
    worst -= 3 * n;
    if (worst < 3 * nb) { snprintf(buf, len, "joint row %d, %s", worst % nb + 1, joint[worst / nb]); return; }
    worst -= 3 * nb;
    char cd[200];
    rci_describe_contact(s->w, worst % nc, cd, sizeof cd);
    snprintf(buf, len, "%s of %s", contact[worst / nc], cd);
}

/* the step's contacts become w->contacts (at q_{i+1}): p = (P_N, P_F), nu =
 * kappa-hat, active = in the set A */
static rc_status finish_contacts(rci_gf_sys *s)
{
    rc_world *w = s->w;
    RC_CHECK(rcb_reserve((void **)&w->contacts, &w->cap_contacts, s->nc, sizeof(rc_contact)));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->active, s->nc > 0 ? s->nc : 1, sizeof(int), "active contacts"));
    w->ncontacts = s->nc;
    w->nactive = 0;
    w->contact_b2 = 0.0;
    for (int k = 0; k < s->nc; k++) {
        rc_contact *c = &w->contacts[k];
        *c = s->cs[k];
        c->gN = s->gN[k];
        c->active = (short)((s->set[k] & RCI_GF_A) != 0);
        c->p[0] = s->PN[k];
        c->p[1] = s->PF[k];
        c->nu = s->kh[k];
        c->res = 0.0;
        c->u[0] = s->gdN[k];
        c->u[1] = s->gF[k];
        if (c->active) w->active[w->nactive++] = k;
        if (c->aux && s->site[k].law)   /* a law's state after its update (gf_law.c) */
            memcpy(c->aux->state, s->site[k].state, (size_t)s->site[k].law->ops.nstate * sizeof(double));
    }
    return rci_reserve_state(w);
}

/* E, the percussions' work at (u_i + u_{i+1})/2 (Thomson--Tait), the joints' */
static rc_status audit(rci_step *st, rci_gf_sys *s, rci_audit *a)
{
    rc_world *w = st->w;
    const int n = s->n, nb = s->nb;
    double *vm = w->V;   /* (u_i + u_{i+1}) / 2: the velocity the percussions' work is taken at (the contacts' WN, WT too) */
    for (int i = 0; i < n; i++) vm[i] = 0.5 * (s->un[i] + s->u[i]);
    rcm_energy(w, s->qn, s->un, &st->Ek0, &st->Ep0, NULL);
    rcm_energy(w, s->q, s->u, &st->Ek1, &st->Ep1, &st->E_el);
    if (s->have_f)
        for (int i = 0; i < n; i++) a->W_ext += s->h * vm[i] * w->f[i];
    /* the position multipliers' work (kappa_g, kappa_N: the correction Q of
     * (73), M Q = W_g kappa_g + W_N kappa_N + ...): the potential energy Q
     * changed, as the frictionless variant books it */
    double *X = s->X, Ekt, Ept;
    for (int i = 0; i < n; i++) X[i] = s->q[i] - s->x[2 * n + i];
    rcm_energy(w, X, s->u, &Ekt, &Ept, NULL);
    a->W_proj = (st->Ep1 - Ept) + w->start_W_q;
    a->W_J += rci_joints_take_multipliers(w, s->G, n, vm, s->h, s->x + 3 * n + nb, s->x + 3 * n + 2 * nb);
    for (int k = 0; k < s->nc; k++) {
        const double *Gn = s->G + (size_t)(nb + 2 * k) * n, *Gt = Gn + n;
        double un = 0.0, ut = 0.0;
        for (int i = 0; i < n; i++) { un += Gn[i] * vm[i]; ut += Gt[i] * vm[i]; }
        const double WN = s->PN[k] * un, WT = s->PF[k] * ut;
        a->W_N += WN;
        a->W_T += WT;
        if (WT > a->WT_max_pos) a->WT_max_pos = WT;
        if (WT < a->WT_min_neg) a->WT_min_neg = WT;
        if (WN + WT > 0.0 && (!a->have_cw || WN + WT > a->max_cw)) { a->max_cw = WN + WT; a->have_cw = 1; a->max_cw_id = s->cs[k].id; }
    }
    a->E0 = st->Ek0 + st->Ep0 - w->start_W_q;
    for (int i = 0; i < w->njoints; i++) a->E0 -= w->joints[i].wstart;
    st->W_theta = (st->Ek1 + st->Ep1 - a->E0) - (a->W_ext + a->W_N + a->W_T + a->W_J + a->W_proj);
    if (w->njoints) RC_CHECK(rcm_joints_report(w, st->t_next, &a->pos_viol, &a->vel_viol));
    return RC_OK;
}

/* the state for the next step: a, a-bar and the contacts' records by key */
static rc_status keep_state(rci_gf_sys *s, rci_ga_state *g)
{
    const size_t bytes = (size_t)s->n * sizeof(double);
    memcpy(g->a, s->x, bytes);
    memcpy(g->vd, s->ab, bytes);
    memcpy(g->q, s->q, bytes);
    memcpy(g->v, s->u, bytes);
    if (s->nc > g->cap_rec) {
        rci_gf_rec *p = rcb_realloc(g->rec, (size_t)s->nc * sizeof *p);
        if (!p) return rc_set_error(RC_ERR_NOMEM, "gen-alpha: out of memory (%d contact records)", s->nc);
        g->rec = p;
        g->cap_rec = s->nc;
    }
    const int n = s->n, nb = s->nb, nc = s->nc, o = 3 * n + 3 * nb;
    for (int k = 0; k < nc; k++)   /* the step's contacts are sorted by key (detection) */
        g->rec[k] = (rci_gf_rec){ s->cs[k].key, { s->x[o + 2 * nc + k], s->lbN[k], s->x[o + 4 * nc + k], s->lbF[k],
                                                  s->x[o + k], s->x[o + nc + k], s->x[o + 3 * nc + k] } };
    g->nrec = nc;
    g->variant = RC_GA_CAPOBIANCO;
    g->valid = 1;
    return RC_OK;
}

/* the first guess x^0: the last step's values (note 003 section 2.7) */
static void first_guess(rci_gf_sys *s, const rci_ga_state *g)
{
    const int n = s->n, nb = s->nb, nc = s->nc, o = 3 * n + 3 * nb;
    for (int i = 0; i < s->N; i++) s->x[i] = 0.0;
    memcpy(s->x, s->an, (size_t)n * sizeof(double));
    for (int k = 0; k < nc; k++) {
        const rci_gf_rec *r = g->nrec ? find_rec(g, s->cs[k].key) : NULL;
        if (!r) continue;
        s->x[o + k] = r->v[4]; s->x[o + nc + k] = r->v[5]; s->x[o + 2 * nc + k] = r->v[0];
        s->x[o + 3 * nc + k] = r->v[6]; s->x[o + 4 * nc + k] = r->v[2];
    }
}

rc_status rci_gf_step(rci_step *st, rci_audit *a, rci_ga_state *g)
{
    rc_world *w = st->w;
    rci_gf_sys s;
    memset(&s, 0, sizeof s);
    const size_t bytes = (size_t)w->nv * sizeof(double);
    if (g->variant != RC_GA_CAPOBIANCO) { g->valid = 0; g->nrec = 0; }
    if (g->valid && (memcmp(g->q, w->q, bytes) != 0 || memcmp(g->v, w->v, bytes) != 0)) { g->valid = 0; g->nrec = 0; }
    RC_CHECK(setup(st, &s, g));
    if (!g->valid) {
        RC_CHECK(consistent_start(&s, g->a));
        memcpy(g->vd, g->a, bytes);
    }
    s.an = g->a;
    s.abn = g->vd;
    first_guess(&s, g);
    RC_CHECK(rci_gf_eval(&s));
    prox_params(&s);
    const int maxit = w->sim.gen_alpha.max_iter;
    const double tol = w->sim.solver.tol;
    int iters = 0, worst = -1, ok = 0;
    double res = 0.0;
    RC_CHECK(newton(&s, maxit, tol, &iters, &res, &worst, &ok));
    if (!ok) {   /* the whole step again by the fixed-point iterations (note 003 section 2.7) */
        int fp = 0;
        w->stats.newton_fallbacks++;
        st->fallback = 1;
        first_guess(&s, g);
        RC_CHECK(fixed_point(&s, RCI_GF_MAX_FIXED_POINT, tol, &fp, &res, &worst, &ok));
        iters += fp;
    }
    st->iters = iters;
    st->res = res;
    st->converged = ok;
    char what[320];
    describe_worst(&s, worst, what, sizeof what);
    st->worst = worst >= 3 * s.n + 3 * s.nb ? (worst - 3 * s.n - 3 * s.nb) % (s.nc > 0 ? s.nc : 1) : -1;
    if (!rcb_finite(res))
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: non-finite residual at t = %.17g (step %ld); at %s", st->t_next, w->step + 1, what);
    if (!ok) {
        if (w->sim.solver.on_fail == RC_ON_FAIL_ERROR)
            return rc_set_error(RC_ERR_SOLVER, "gen-alpha: neither Newton nor the fixed point converged at t = %.17g (step %ld): "
                                "residual %.3e > tol %.3e; worst: %s", st->t_next, w->step + 1, res, tol, what);
        rci_warn_unconverged(w, "gen-alpha: neither Newton nor the fixed point converged at t = %.17g (step %ld): residual %.3e > "
                             "tol %.3e; worst: %s", st->t_next, w->step + 1, res, tol, what);
    }
    for (int i = 0; i < s.n; i++)
        if (!rcb_finite(s.u[i]) || !rcb_finite(s.q[i])) return rci_nonfinite_state(w, i, !rcb_finite(s.q[i]), s.q[i]);
    RC_CHECK(rci_gf_law_update(&s));   /* before anything of the step is kept */
    memcpy(w->q, s.q, bytes);
    memcpy(w->v, s.u, bytes);
    RC_CHECK(finish_contacts(&s));
    RC_CHECK(audit(st, &s, a));
    return keep_state(&s, g);
}
