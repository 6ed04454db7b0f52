/* scheme_gen_alpha.c -- the nonsmooth generalized-alpha scheme with
 * constraints at position and velocity level (Bruls, Acary & Cardona 2014,
 * "Nonsmooth-alpha GGL") as an entry of the scheme table (integrate.h) that
 * runs its own step after the begin stage:
 *
 *   detect       contacts at q_n within a margin that covers the step's
 *                motion: the step's unilateral set U (ids from the last step)
 *   start        a_n, vdot~_n from the last step, or the consistent
 *                acceleration when the state was set from outside
 *   predictor    (40): a^0, v~^0, q~^0, every multiplier and correction 0
 *   Newton       (39)-(44), active sets (38) at every iteration, gaps and
 *                normals from the narrow phase at the iterate (ga_newton.c)
 *   update       q_{n+1}, v_{n+1}, a_{n+1} (30e), vdot~_{n+1} kept
 *   audit        E, the work of the impulses Lambda (Thomson--Tait, at
 *                (v_n + v_{n+1})/2), of the position correction nu (W_proj)
 *                and the alpha-method's numerical dissipation (W_theta: the
 *                rest of the energy change)
 *
 * Rigid planar bodies and linear bodies with gap-function contacts, built-in
 * Newton laws without friction (issue 13 adds
 * friction), joints of every kind (rheonomic included). The step's
 * multipliers: a contact's p_N is Lambda (its force Lambda / h, eq. 33), a
 * joint's impulse Lambda + h lambda~ (its force Lambda / h + lambda~).
 */
#include "integrate/gen_alpha.h"

#include <string.h>

/* ---------------------------------------------------------------- the state part */

static void ga_free(rc_world *w)
{
    if (!w->ga) return;
    rcb_free(w->ga->a);
    rcb_free(w->ga->fac);
    rcb_free(w->ga->rec);
    rcb_free(w->ga->rec3);
    rcb_free(w->ga);
    w->ga = NULL;
}

static size_t ga_memory(const rc_world *w)
{
    return w->ga ? sizeof *w->ga + (4 * (size_t)w->ga->cap + w->ga->fac_cap) * sizeof(double) : 0;
}

static const rc_part ga_part = { ga_free, ga_memory, NULL };

static rc_status ga_state(rc_world *w, rci_ga_state **out)
{
    if (!w->ga) {
        w->ga = rcb_malloc(sizeof *w->ga);
        if (!w->ga) return rc_set_error(RC_ERR_NOMEM, "gen-alpha: out of memory (state)");
        memset(w->ga, 0, sizeof *w->ga);
        rcm_world_attach_part(w, RC_PART_SCHEME, &ga_part);
    }
    rci_ga_state *g = w->ga;
    const int need = w->nq > w->nv ? w->nq : w->nv;   /* (spatial bodies: q has 7 per body) */
    if (g->cap < need || !g->a) {   /* (at least one: a world without bodies has no NULL arithmetic) */
        const int cap = need > 0 ? need : 1;
        double *p = rcb_realloc(g->a, 4 * (size_t)cap * sizeof(double));
        if (!p) return rc_set_error(RC_ERR_NOMEM, "gen-alpha: out of memory (state of %d velocities)", w->nv);
        g->a = p;
        g->cap = cap;
        g->valid = 0;
    }
    g->vd = g->a + g->cap;
    g->q = g->vd + g->cap;
    g->v = g->q + g->cap;
    if (g->n != w->nv) g->valid = 0;
    g->n = w->nv;
    *out = g;
    return RC_OK;
}

int rci_ga_state_arrays(const rc_world *w, double *arr[4])
{
    const rci_ga_state *g = w->ga;
    if (!g || !g->valid || g->n != w->nv) return 0;
    arr[0] = g->a; arr[1] = g->vd; arr[2] = g->q; arr[3] = g->v;
    return g->variant == RC_GA_CAPOBIANCO ? RC_GA_CAPOBIANCO : RC_GA_BRULS;
}

const rci_gf_rec *rci_ga_state_recs(const rc_world *w, int *n)
{
    *n = w->ga && w->ga->variant == RC_GA_CAPOBIANCO ? w->ga->nrec : 0;
    return *n ? w->ga->rec : NULL;
}

rc_status rci_ga_state_reserve_recs(rc_world *w, int n, rci_gf_rec **recs)
{
    rci_ga_state *g = NULL;
    RC_CHECK(ga_state(w, &g));
    if (n > g->cap_rec) {
        rci_gf_rec *p = rcb_realloc(g->rec, (size_t)n * sizeof *p);
        if (!p) return rc_set_error(RC_ERR_NOMEM, "gen-alpha: out of memory (%d contact records)", n);
        g->rec = p;
        g->cap_rec = n;
    }
    *recs = g->rec;
    return RC_OK;
}

void rci_ga_state_set(rc_world *w, int variant, int nrec)
{
    if (!w->ga) return;
    w->ga->variant = variant;
    w->ga->nrec = variant == RC_GA_CAPOBIANCO ? nrec : 0;
    w->ga->valid = variant != 0 && w->ga->n == w->nv;
}

rc_status rci_ga_state_reserve(rc_world *w, double *arr[4])
{
    rci_ga_state *g = NULL;
    RC_CHECK(ga_state(w, &g));
    arr[0] = g->a; arr[1] = g->vd; arr[2] = g->q; arr[3] = g->v;
    return RC_OK;
}

/* ---------------------------------------------------------------- checks */

static rc_status check_bodies(const rc_world *w)
{
    for (int i = 0; i < w->njoints; i++)
        if (w->joints[i].motor || w->joints[i].limits)
            return rc_set_error(RC_ERR_ARG, "gen-alpha: joint %d has a motor or limits, which the scheme does not "
                                "enforce yet (use a Moreau--Jean scheme)", i);
    return RC_OK;
}

/* a detected contact's law: a built-in law without friction (its normal
 * part is Newton's impact law with the law's e) */
static rc_status check_law(const rc_world *w, int ci)
{
    const rc_contact *c = &w->contacts[ci];
    const rc_law *law = &w->laws[c->law];
    if (law->def.type != RC_LAW_CUSTOM && !(law->def.mu > 0.0)) return RC_OK;
    const char *name = law->name ? law->name : "(unnamed)";
    char cd[256];
    rci_describe_contact(w, ci, cd, sizeof cd);
    if (law->def.type == RC_LAW_CUSTOM)
        return rc_set_error(RC_ERR_ARG, "gen-alpha's variant \"bruls2014\" takes the built-in laws only (Newton's impact law "
                            "with their e): law '%s' is a custom law (%s); use variant \"capobianco2021\" (the default "
                            "when a law is custom)", name, cd);
    return rc_set_error(RC_ERR_ARG, "gen-alpha's variant \"bruls2014\" is frictionless: law '%s' has mu = %g (%s); "
                        "use variant \"capobianco2021\" (the default when a law has friction)", name, law->def.mu, cd);
}

/* ---------------------------------------------------------------- setup */

static rc_status arrays(rci_ga_sys *s)
{
    rcb_arena *A = &s->w->work;
    const int n = s->n, nb = s->nb, nu = s->nu, m = s->m, N = s->N, nr = nb + 2 * m;
    const long long mn = (long long)m * n;
    double *blk;
    const long long total = 5LL * n + 2LL * m + nb   /* qn vn, unknowns except vt */
                          + 6LL * n                  /* vt a vd qt q v */
                          + n + m + mn + nb + nu + m + nu + 2LL * nu   /* f g G gt gtil ukn un e rj */
                          + 2LL * N + 3LL * n                          /* r x Mx */
                          + mn + n + 2LL * nb + (long long)nb * n      /* Y (and the drift term's scratch), X */
                          + (s->stiff ? 2 * mn : 0)                    /* ZA ZB */
                          + (long long)nr * nr + nr + n;               /* R rhs tmp */
    RC_CHECK(rcb_arena_array(A, (void **)&blk, total, sizeof(double), "gen-alpha system"));
    double *p = blk;
#define TAKE(field, k) (s->field = p, p += (k))
    s->qn = p; p += n;
    s->vn = p; p += n;
    TAKE(vt, n); TAKE(lt, nb); TAKE(U, n); TAKE(pnu, m); TAKE(W, n); TAKE(L, m);
    TAKE(a, n); TAKE(vd, n); TAKE(qt, n); TAKE(q, n); TAKE(v, n); TAKE(f, n);
    TAKE(g, m); TAKE(G, mn); TAKE(gt, nb); TAKE(gtil, nu); TAKE(ukn, m); TAKE(un, nu);
    TAKE(e, nu); TAKE(rj, nu); TAKE(r, N); TAKE(x, N); TAKE(Mx, 3LL * n);
    TAKE(Y, mn + n + 2LL * nb); TAKE(X, (long long)nb * n);
    if (s->stiff) { TAKE(ZA, mn); TAKE(ZB, mn); }
    TAKE(R, (long long)nr * nr); TAKE(rhs, nr); TAKE(tmp, n);
#undef TAKE
    RC_CHECK(rcb_arena_array(A, (void **)&s->cs, nu, sizeof(rc_contact), "gen-alpha contacts"));
    RC_CHECK(rcb_arena_array(A, (void **)&s->inA, 2 * m, 1, "gen-alpha active sets"));
    s->inB = s->inA + m;
    RC_CHECK(rcb_arena_array(A, (void **)&s->lo, 2 * m, sizeof(int), "gen-alpha row spans"));
    s->hi = s->lo + m;
    return rcb_arena_array(A, (void **)&s->ipiv, nr > 0 ? nr : 1, sizeof(int), "gen-alpha pivots");
}

/* the step's sizes, the contacts at q_n (ids, laws), the arrays */
static rc_status setup(rci_step *st, rci_ga_sys *s)
{
    rc_world *w = st->w;
    RC_CHECK(rci_ga_head_setup(st, &s->head));
    s->cS = (1.0 - s->am) / ((1.0 - s->af) * s->gam);
    s->bg = s->beta / s->gam;
    s->stiff = 0;
    for (int i = 0; i < w->nlinears; i++) s->stiff |= w->linears[i].K || w->linears[i].C;
    for (int i = 0; i < w->ncontacts; i++) RC_CHECK(check_law(w, i));
    s->nu = w->ncontacts;
    s->m = s->nb + s->nu;
    s->N = 3 * s->n + s->nb + 2 * s->m;
    if (s->nb + 2 * s->m > RCI_GA_MAX_MULTIPLIERS)
        return rc_set_error(RC_ERR_ARG, "gen-alpha: the step's Newton update has %d multipliers (%d joint rows, 2 x %d constraints): "
                            "more than the dense solver's limit of %d at t = %.17g",
                            s->nb + 2 * s->m, s->nb, s->m, RCI_GA_MAX_MULTIPLIERS, w->t);
    RC_CHECK(arrays(s));
    memcpy((double *)s->qn, w->q, (size_t)s->n * sizeof(double));
    memcpy((double *)s->vn, w->v, (size_t)s->n * sizeof(double));
    for (int k = 0; k < s->nb; k++) s->ukn[k] = 0.0;
    for (int j = 0; j < s->nu; j++) {   /* g_q,n v_n with the rows at q_n (the impact law's term, 29h) */
        rc_contact *cj = &s->cs[j];
        *cj = w->contacts[j];
        double u[2];
        rcm_contact_dot(w, cj, s->vn, NULL, u);
        s->e[j] = w->laws[cj->law].def.e;
        s->un[j] = u[0];
        s->ukn[s->nb + j] = s->e[j] * u[0];
    }
    return RC_OK;
}

/* a_n, vdot~_n: the last step's, or the consistent acceleration (a_0 = vdot~_0) */
static rc_status start(rci_ga_sys *s, rci_ga_state *g)
{
    rc_world *w = s->w;
    const size_t bytes = (size_t)s->n * sizeof(double);
    RC_CHECK(rci_ga_factors(s, g));
    s->fac = g->fac;
    if (!g->valid || memcmp(g->q, w->q, bytes) != 0 || memcmp(g->v, w->v, bytes) != 0) {
        RC_CHECK(rci_ga_initial_acceleration(s, g->a));
        memcpy(g->vd, g->a, bytes);
    }
    s->an = g->a;
    s->vdn = g->vd;
    /* the predictor (40) */
    const double h = s->h, ga = s->gam;
    for (int i = 0; i < s->n; i++) {
        const double a0 = (s->af * s->vdn[i] - s->am * s->an[i]) / (1.0 - s->am);
        s->vt[i] = s->vn[i] + h * (1.0 - ga) * s->an[i] + h * ga * a0;
        s->U[i] = s->W[i] = 0.0;
    }
    for (int k = 0; k < s->nb; k++) s->lt[k] = 0.0;
    for (int k = 0; k < s->m; k++) s->pnu[k] = s->L[k] = 0.0;
    return RC_OK;
}

/* ---------------------------------------------------------------- the Newton loop */

/* What the residual's largest entry belongs to. */
static void describe_worst(const rci_ga_sys *s, int worst, char *buf, size_t len, int *contact)
{
    const int n = s->n, nb = s->nb, m = s->m;
    *contact = -1;
    if (worst < 0) { snprintf(buf, len, "none"); return; }
    int k = -1;
    const char *what = "";
    if (worst < n) { snprintf(buf, len, "the smooth motion's equation (29a), velocity %d", worst); return; }
    if (worst < n + nb) { k = worst - n; what = "smooth velocity constraint (29b)"; }
    else if (worst < 2 * n + nb) { snprintf(buf, len, "the position correction (29c), velocity %d", worst - n - nb); return; }
    else if (worst < 2 * n + nb + m) { k = worst - 2 * n - nb; what = "position level (29d-e)"; }
    else if (worst < 3 * n + nb + m) { snprintf(buf, len, "the velocity jump (29f), velocity %d", worst - 2 * n - nb - m); return; }
    else { k = worst - 3 * n - nb - m; what = "velocity level (29g-h)"; }
    if (k >= nb) {
        char cd[200];
        *contact = k - nb;
        rci_describe_contact(s->w, k - nb, cd, sizeof cd);
        snprintf(buf, len, "%s of %s", what, cd);
        return;
    }
    int row = k;
    for (int i = 0; i < s->w->njoints; i++) {
        const rc_joint *j = &s->w->joints[i];
        if (row < j->rows) {
            snprintf(buf, len, "%s of joint '%s' row %d", what, j->name ? j->name : "(unnamed)", row + 1);
            return;
        }
        row -= j->rows;
    }
}

static rc_status newton(rci_step *st, rci_ga_sys *s)
{
    rc_world *w = st->w;
    const int maxit = w->sim.gen_alpha.max_iter;
    const double tol = w->sim.solver.tol;
    int worst = -1, it = 0;
    double res = 0.0;
    for (;; it++) {
        RC_CHECK(rci_ga_eval(s));
        res = rci_ga_residual(s, &worst);
        if (res <= tol || it == maxit || !rcb_finite(res)) break;
        if (!w->sim.gen_alpha.sequential) RC_CHECK(rci_ga_newton_update(s, RCI_GA_ALL));
        else   /* Algorithm 1: smooth motion (47), then the position (48) and the velocity (49)
                  projections, each with the active sets and residual of the iterate it starts from */
            for (int b = RCI_GA_SMOOTH; b <= RCI_GA_VELOCITY; b *= 2) {
                if (b != RCI_GA_SMOOTH) {
                    RC_CHECK(rci_ga_eval(s));
                    (void)rci_ga_residual(s, &worst);
                }
                RC_CHECK(rci_ga_newton_update(s, b));
            }
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the gen-alpha Newton after %d iterations)",
                                w->t, w->step + 1, it + 1);
    }
    st->iters = it;
    st->res = res;
    st->converged = res <= tol;
    char what[320];
    int contact;
    describe_worst(s, worst, what, sizeof what, &contact);
    st->worst = contact;
    if (!rcb_finite(res))
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: non-finite Newton residual at t = %.17g (step %ld) after %d iterations; at %s",
                            st->t_next, w->step + 1, it, what);
    if (st->converged) return RC_OK;
    if (w->sim.solver.on_fail == RC_ON_FAIL_ERROR)
        return rc_set_error(RC_ERR_SOLVER, "gen-alpha: Newton did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e "
                            "after %d iterations; worst: %s", st->t_next, w->step + 1, res, tol, it, what);
    rci_warn_unconverged(w, "gen-alpha: Newton did not converge at t = %.17g (step %ld): residual %.3e > tol %.3e "
                         "after %d iterations; worst: %s", st->t_next, w->step + 1, res, tol, it, what);
    return RC_OK;
}

/* ---------------------------------------------------------------- the step's end */

/* the step's contacts become w->contacts again (at q_{n+1}): p_N = Lambda,
 * active = in A or B; the index list; room for the state */
static rc_status finish_contacts(rci_ga_sys *s)
{
    rc_world *w = s->w;
    RC_CHECK(rcb_reserve((void **)&w->contacts, &w->cap_contacts, s->nu, sizeof(rc_contact)));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->active, s->nu, sizeof(int), "active contacts"));
    w->ncontacts = s->nu;
    w->nactive = 0;
    w->contact_b2 = 0.0;
    for (int j = 0; j < s->nu; j++) {
        rc_contact *c = &w->contacts[j];
        const int row = s->nb + j;
        *c = s->cs[j];
        c->gN = s->g[row];
        c->active = (short)(s->inA[row] || s->inB[row]);
        c->p[0] = s->L[row];
        c->nu = s->pnu[row];
        c->p[1] = 0.0;
        c->res = 0.0;
        rcm_contact_dot(w, c, w->v, NULL, c->u);
        if (c->active) w->active[w->nactive++] = j;
    }
    return rci_reserve_state(w);
}

/* the audit's terms (see the header) and the joints' impulses and drift */
static rc_status audit(rci_step *st, rci_ga_sys *s, rci_audit *a)
{
    rc_world *w = st->w;
    const int n = s->n;
    double *vm = w->V;   /* (v_n + v_{n+1}) / 2: the velocity the impulses' work is taken at */
    for (int i = 0; i < n; i++) vm[i] = 0.5 * (s->vn[i] + s->v[i]);
    rcm_energy(w, s->qn, s->vn, &st->Ek0, &st->Ep0, NULL);
    rcm_energy(w, s->q, s->v, &st->Ek1, &st->Ep1, &st->E_el);
    if (s->have_f)
        for (int i = 0; i < n; i++) a->W_ext += s->h * vm[i] * w->f[i];
    double Ekt, Ept;
    rcm_energy(w, s->qt, s->v, &Ekt, &Ept, NULL);
    a->W_proj = (st->Ep1 - Ept) + w->start_W_q;   /* the position correction U = M^-1 g_q^T nu */
    a->W_J += rci_joints_take_multipliers(w, s->G, n, vm, s->h, s->L, s->lt);
    for (int j = 0; j < s->nu; j++) {
        const rc_contact *c = &w->contacts[j];
        if (!c->active) continue;
        const double WN = s->L[s->nb + j] * 0.5 * (c->u[0] + s->un[j]);   /* Thomson--Tait */
        a->W_N += WN;
        if (!a->have_cw || WN > a->max_cw) { a->max_cw = WN; a->have_cw = 1; a->max_cw_id = c->id; }
    }
    a->E0 = st->Ek0 + st->Ep0 - w->start_W_q;
    for (int i = 0; i < w->njoints; i++) a->E0 -= w->joints[i].wstart;
    st->W_theta = (st->Ek1 + st->Ep1 - a->E0) - (a->W_ext + a->W_N + a->W_J + a->W_proj);
    if (w->njoints) RC_CHECK(rcm_joints_report(w, st->t_next, &a->pos_viol, &a->vel_viol));
    return RC_OK;
}

/* the variant of this step: the simulation's, or (auto) Capobianco's when
 * some law of the world has friction or is a custom law */
static rc_ga_variant variant_of(const rc_world *w)
{
    if (w->sim.gen_alpha.variant != RC_GA_AUTO) return w->sim.gen_alpha.variant;
    for (int i = 0; i < w->nlaws; i++)
        if (w->laws[i].def.mu > 0.0 || w->laws[i].def.type == RC_LAW_CUSTOM) return RC_GA_CAPOBIANCO;
    return RC_GA_BRULS;
}

static rc_status step_body(rci_step *st, rci_ga_sys *s, rci_audit *a, rci_ga_state **gs)
{
    rc_world *w = st->w;
    RC_CHECK(check_bodies(w));
    RC_CHECK(ga_state(w, gs));
    if (variant_of(w) == RC_GA_CAPOBIANCO) return rci_gf_step(st, a, *gs);
    if ((*gs)->variant != RC_GA_BRULS) { (*gs)->valid = 0; (*gs)->variant = RC_GA_BRULS; }
    RC_CHECK(setup(st, s));
    RC_CHECK(start(s, *gs));
    RC_CHECK(newton(st, s));
    for (int i = 0; i < s->n; i++)
        if (!rcb_finite(s->v[i]) || !rcb_finite(s->q[i])) return rci_nonfinite_state(w, i, !rcb_finite(s->q[i]), s->q[i]);
    memcpy(w->q, s->q, (size_t)s->n * sizeof(double));
    memcpy(w->v, s->v, (size_t)s->n * sizeof(double));
    RC_CHECK(finish_contacts(s));
    return audit(st, s, a);
}

static rc_status gen_alpha_step(rci_step *st, rci_audit *a)
{
    rc_world *w = st->w;
    rci_ga_sys s;
    memset(&s, 0, sizeof s);
    rci_ga_state *g = NULL;
    double *q0 = NULL, *v0 = NULL;   /* q_n, v_n for a failed step */
    if (w->nv == 0) return RC_OK;   /* nothing moves: the step only advances t (stage_commit) */
    if (w->nrigid3d) {   /* spatial rigid bodies (ga3_step.c) */
        RC_CHECK(ga_state(w, &g));
        /* "auto": Capobianco's (with contacts the frictional formulation; without, both are one method) */
        const int variant = w->sim.gen_alpha.variant == RC_GA_BRULS ? RC_GA_BRULS : RC_GA_CAPOBIANCO;
        if (g->variant != variant) { g->valid = 0; g->variant = variant; }
        return rci_ga3_step(st, a, g);
    }
    {
        RC_CHECK(rcb_arena_array(&w->work, (void **)&q0, 2LL * w->nv, sizeof(double), "gen-alpha q_n"));
        v0 = q0 + w->nv;
        memcpy(q0, w->q, (size_t)w->nv * sizeof(double));
        memcpy(v0, w->v, (size_t)w->nv * sizeof(double));
    }
    rc_status r = step_body(st, &s, a, &g);
    if (r != RC_OK) {
        memcpy(w->q, q0, (size_t)w->nv * sizeof(double));
        memcpy(w->v, v0, (size_t)w->nv * sizeof(double));
        w->ncontacts = 0;   /* a work record only; the state's contacts (w->rec) are untouched */
        rcc_update_shapes(w);
        return r;
    }
    if (g->variant == RC_GA_CAPOBIANCO) return RC_OK;   /* its step kept its own state (gf_step.c) */
    /* a_{n+1} (30e), vdot~_{n+1}, and the state they belong to */
    memcpy(g->a, s.a, (size_t)s.n * sizeof(double));
    memcpy(g->vd, s.vd, (size_t)s.n * sizeof(double));
    memcpy(g->q, w->q, (size_t)s.n * sizeof(double));
    memcpy(g->v, w->v, (size_t)s.n * sizeof(double));
    g->valid = 1;
    return RC_OK;
}

/* the generalized-alpha coefficients' ranges (model/gen_alpha_def.c) */
static rc_status ga_check(const rc_sim_def *def, const char *what)
{
    (void)what;   /* rcm_gen_alpha_def_check names the setting */
    return rcm_gen_alpha_def_check(&def->gen_alpha);
}

/* the joints are enforced at position and velocity level by the Newton
 * (eqs. 29-30), not through q*: the defaults only matter for reports */
static rc_joint_jacobian ga_joint_jacobian(const rc_sim_def *def) { (void)def; return RC_JOINT_JACOBIAN_END; }
static double ga_joint_rate_time(const rc_sim_def *def) { (void)def; return 1.0; }

const rci_scheme rci_scheme_gen_alpha = {
    .name = "gen-alpha",
    .type = RC_SCHEME_GEN_ALPHA,
    .unknown = RC_UNKNOWN_END,
    .kappa = rci_mj_kappa,
    .free_coef = rci_mj_free_coef,
    .every_pair = 0,
    .affine = NULL,
    .preimpact = NULL,
    .update = NULL,
    .work_at_theta = 0,
    .step = gen_alpha_step,
    .check = ga_check,
    .joint_jacobian = ga_joint_jacobian,
    .joint_rate_time = ga_joint_rate_time,
};
