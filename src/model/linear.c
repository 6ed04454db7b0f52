/* linear.c -- linear Lagrangian bodies  M dv + K q dt + C v dt = F dt + H^T di
 * (Acary & Collins-Craft 2024, eq. 1) and contacts given by gap functions.
 *
 * The iteration matrix Mhat = M + h theta C + h^2 theta^2 K (eq. 92) is
 * factorised once per (h, theta) with LAPACK (banded Cholesky when the
 * bandwidth is below n/4, dense otherwise). Per step (section 4.1-4.2):
 *   Moreau--Jean:  V_0 = Mhat^-1 [(M - h(1-theta)C - h^2 theta(1-theta)K) v_k - h K q_k + h F]  (92-95)
 *   MJF:           V_0 = Mhat^-1 [M v_k - h theta K q_k + h theta F]                          (97-100)
 * and a contact's kappa Mhat^-1 H^T is one more solve, cached while H is
 * constant (linear gap functions). */
#include "model/model.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

rc_linear_def rc_default_linear_def(void)
{
    rc_linear_def d;
    memset(&d, 0, sizeof d);
    return d;
}

rc_gap_def rc_default_gap_def(void)
{
    rc_gap_def d;
    memset(&d, 0, sizeof d);
    return d;
}

static const char *label(const char *name) { return name ? name : "(unnamed)"; }

/* what: the message's prefix ("linear body 'NAME'", or the Lua function's name) */
static rc_status check_matrix(const double *A, int n, const char *what, const char *mname, int spd_required)
{
    char g1[RCB_SHOW_SIZE], g2[RCB_SHOW_SIZE];
    for (int i = 0; i < n * n; i++)
        if (!rcb_finite(A[i]))
            return rc_set_error(RC_ERR_ARG, "%s: %s[%d][%d] is not finite", what, mname, i / n + 1, i % n + 1);
    double scale = 0.0;
    for (int i = 0; i < n * n; i++) scale = fmax(scale, fabs(A[i]));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (fabs(A[i * n + j] - A[j * n + i]) > 1e-12 * scale)
                return rc_set_error(RC_ERR_ARG, "%s: '%s' must be symmetric (%s[%d][%d] = %s but %s[%d][%d] = %s)",
                                    what, mname, mname, i + 1, j + 1, rcb_show(g1, A[i * n + j]), mname, j + 1, i + 1,
                                    rcb_show(g2, A[j * n + i]));
    for (int i = 0; i < n; i++)
        if (A[i * n + i] < 0.0 || (spd_required && !(A[i * n + i] > 0.0)))
            return rc_set_error(RC_ERR_ARG, "%s: %s is not positive %sdefinite (diagonal entry %d is %g)",
                                what, mname, spd_required ? "" : "semi-", i + 1, A[i * n + i]);
    return RC_OK;
}

static int bandwidth(const double *A, int n)
{
    int kd = 0;
    if (!A) return 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (A[i * n + j] != 0.0 && j - i > kd) kd = j - i;
    return kd;
}

static double *copy_or_null(const double *x, size_t n)
{
    if (!x) return NULL;
    double *y = rcb_malloc(n * sizeof(double));
    if (y) memcpy(y, x, n * sizeof(double));
    return y;
}

/* The arrays of a linear body or gap that could not be completed. */
static void linear_discard(rc_linear *L)
{
    rcb_free(L->M); rcb_free(L->K); rcb_free(L->C); rcb_free(L->f); rcb_free(L->work); rcb_free(L->memo); rcm_linear_bc_free(L->bc); rcm_linear_rows_free(L->rows);
    memset(L, 0, sizeof *L);
}

static void gap_discard(rc_gap *g)
{
    rcb_free(g->idx); rcb_free(g->nrm); rcb_free(g->tng); rcb_free(g->MH); rcb_free(g->grad);
    rcb_free(g->name); rcm_node_gap_free(g->node);
    memset(g, 0, sizeof *g);
}

rc_status rc_linear_def_check(const rc_linear_def *def, const char *what)
{
    char lbl[160];
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_linear_def_check: 'def' is NULL");
    if (!what) {
        snprintf(lbl, sizeof lbl, "linear body '%s'", label(def->name));
        what = lbl;
    }
    const int n = def->n;
    if (n < 1) return rc_set_error(RC_ERR_ARG, "%s: 'n' must be >= 1 (got %d)", what, n);
    if (!def->M) return rc_set_error(RC_ERR_ARG, "%s: 'M' is missing", what);
    RC_CHECK(check_matrix(def->M, n, what, "M", 1));
    if (def->K) RC_CHECK(check_matrix(def->K, n, what, "K", 0));
    if (def->C) RC_CHECK(check_matrix(def->C, n, what, "C", 0));
    {   /* M positive definite: its Cholesky factor must exist (banded as the body will be) */
        const int kd = bandwidth(def->M, n);
        const int band = kd < n / 4;
        double *F = band ? rcb_malloc((size_t)(kd + 1) * n * sizeof(double)) : copy_or_null(def->M, (size_t)n * n);
        if (!F) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        for (int j = 0; band && j < n; j++)
            for (int i = j - kd > 0 ? j - kd : 0; i <= j; i++) F[(kd + i - j) + (size_t)j * (kd + 1)] = def->M[(size_t)i * n + j];
        rc_status s = band ? rcl_band_chol_factor(n, kd, F) : rcl_chol_factor(n, F);
        rcb_free(F);
        if (s != RC_OK) return rc_set_error(RC_ERR_ARG, "%s: M is not positive definite", what);
    }
    const double *vecs[3] = { def->q0, def->v0, def->f };
    const char *vnames[3] = { "q0", "v0", "f" };
    for (int k = 0; k < 3; k++)
        for (int i = 0; vecs[k] && i < n; i++)
            if (!rcb_finite(vecs[k][i]))
                return rc_set_error(RC_ERR_ARG, "%s: %s[%d] is not finite", what, vnames[k], i + 1);
    return RC_OK;
}

/* Installs a linear body whose storage (L->M, K, C; linear_store.c) is
 * ready: takes the arrays (freed on failure), copies f, q0, v0 (NULL: 0). */
rc_status rcm_linear_install(rc_world *w, const char *name, rc_linear *tmpl, const double *f, const double *q0,
                             const double *v0, int *out_body)
{
    const char *what = label(name);
    const int n = tmpl->n;
    rc_status s = rcm_planar_only(w, "linear body");
    if (name) {
        int dup;
        if (rc_body_find(w, name, &dup) == RC_OK)
            s = rc_set_error(RC_ERR_ARG, "linear body '%s': the name is already used by body %d", what, dup);
    }
    if (s == RC_OK) s = rcb_reserve((void **)&w->linears, &w->cap_linears, w->nlinears + 1, sizeof(rc_linear));
    if (s == RC_OK) s = rcb_reserve((void **)&w->bodies, &w->cap_bodies, w->nbodies + 1, sizeof(rc_body));
    if (s == RC_OK) s = rcm_world_grow_dofs(w, n, n);
    if (s != RC_OK) {
        linear_discard(tmpl);
        return s;
    }
    rc_linear *L = &w->linears[w->nlinears];
    *L = *tmpl;
    L->f = rcb_malloc((size_t)n * sizeof(double));
    L->work = rcb_malloc((size_t)3 * n * sizeof(double));
    L->memo = rcm_linear_memo_new(n);
    if (!L->M || !L->f || !L->work || !L->memo) {
        linear_discard(L);
        return rc_set_error(RC_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++) L->f[i] = f ? f[i] : 0.0;
    s = rcm_linear_rows_build(L);
    if (s != RC_OK) {
        linear_discard(L);
        return s;
    }

    rc_body *b = &w->bodies[w->nbodies];
    memset(b, 0, sizeof *b);
    b->kind = RC_BODY_LINEAR;
    b->ext = -1;
    if (name) {
        s = rcm_body_add_ext(w, w->nbodies);
        rc_body_ext *x = s == RC_OK ? &w->body_ext[b->ext] : NULL;
        if (x) x->name = rcb_strdup(name);
        if (!x || !x->name) {
            if (x) w->nbody_ext--;   /* the body is not created */
            linear_discard(L);
            return s != RC_OK ? s : rc_set_error(RC_ERR_NOMEM, "out of memory");
        }
    }
    b->iq = w->nq; b->iv = w->nv; b->nq = n; b->nv = n;
    b->linear = w->nlinears;
    L->body = w->nbodies;
    for (int i = 0; i < n; i++) {
        w->q[b->iq + i] = q0 ? q0[i] : 0.0;
        w->v[b->iv + i] = v0 ? v0[i] : 0.0;
        w->mass_diag[b->iv + i] = rcm_linear_entry(L, L->M, i, i);
    }
    w->nq += n;
    w->nv += n;
    if (out_body) *out_body = w->nbodies;
    w->nbodies++;
    w->nlinears++;
    return rcm_world_reserve_dofs(w);
}

/* A dense matrix of the definition into the body's storage (NULL stays NULL). */
static double *stored(const rc_linear *L, const double *A)
{
    if (!A) return NULL;
    if (!L->banded) return copy_or_null(A, (size_t)L->n * L->n);
    double *B = rcb_malloc(rcm_linear_store_size(L) * sizeof(double));
    if (B) rcm_band_pack(L->n, L->kd, A, B);
    return B;
}

rc_status rc_linear_create(rc_world *w, const rc_linear_def *def, int *out_body)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_linear_create: NULL argument");
    const int n = def->n;
    RC_CHECK(rc_linear_def_check(def, NULL));
    rc_linear L;
    memset(&L, 0, sizeof L);
    L.n = n;
    int kd = bandwidth(def->M, n);
    if (bandwidth(def->K, n) > kd) kd = bandwidth(def->K, n);
    if (bandwidth(def->C, n) > kd) kd = bandwidth(def->C, n);
    L.kd = kd;
    L.banded = kd < n / 4;
    L.M = stored(&L, def->M);
    L.K = stored(&L, def->K);
    L.C = stored(&L, def->C);
    if (!L.M || (def->K && !L.K) || (def->C && !L.C)) {
        linear_discard(&L);
        return rc_set_error(RC_ERR_NOMEM, "out of memory");
    }
    return rcm_linear_install(w, def->name, &L, def->f, def->q0, def->v0, out_body);
}

void rcm_linear_free(rc_world *w)
{
    for (int i = 0; i < w->nlinears; i++) {
        rc_linear *L = &w->linears[i];
        rcb_free(L->M); rcb_free(L->K); rcb_free(L->C); rcb_free(L->f);
        rcb_free(L->work); rcb_free(L->fac); rcb_free(L->memo); rcm_linear_bc_free(L->bc); rcm_linear_rows_free(L->rows);
        rcm_nonlinear_free(L->nl);
    }
    rcb_free(w->linears);
    for (int i = 0; i < w->ngaps; i++) {
        rc_gap *g = &w->gaps[i];
        rcb_free(g->idx); rcb_free(g->nrm); rcb_free(g->tng); rcb_free(g->MH); rcb_free(g->grad);
        rcb_free(g->name); rcm_node_gap_free(g->node);
    }
    rcb_free(w->gaps);
}

/* cM M + cC C + cK K into F (banded upper storage or dense) and its Cholesky
 * factor; F holds (kd + 1) n or n^2 doubles (rcm_linear_combo_size) */
static rc_status combo_factor(const rc_linear *L, double cM, double cC, double cK, double *F)
{
    rcm_linear_combo_fill(L, cM, cC, cK, F);
    return L->banded ? rcl_band_chol_factor(L->n, L->kd, F) : rcl_chol_factor(L->n, F);
}

/* x <- A^-1 x with A's factor F (nrhs right-hand sides of n, by rows) */
static rc_status combo_solve(const rc_linear *L, const double *F, double *x, int nrhs)
{
    if (L->banded) return rcl_band_chol_solve(L->n, L->kd, F, nrhs, x);
    if (nrhs == 1) return rcl_chol_solve(L->n, F, 1, x);
    /* row-major n x nrhs expected: our rhs are stored by columns; solve one by one */
    for (int r = 0; r < nrhs; r++) RC_CHECK(rcl_chol_solve(L->n, F, 1, x + (size_t)r * L->n));
    return RC_OK;
}

size_t rcm_linear_combo_size(const rc_linear *L)
{
    return L->banded ? (size_t)(L->kd + 1) * L->n : (size_t)L->n * L->n;
}

rc_status rcm_linear_combo_factor(const rc_world *w, const rc_linear *L, double cM, double cC, double cK, double *F)
{
    if (rcm_linear_bc_count(L))
        return rc_set_error(RC_ERR_STATE, "linear body '%s' has prescribed coordinates: gen-alpha does not support them "
                            "(use moreau-jean or moreau-jean-fremond, or rc_linear_release)", label(rcm_body_name_of(w, L->body)));
    if (combo_factor(L, cM, cC, cK, F) != RC_OK)
        return rc_set_error(RC_ERR_NUMERIC, "linear body '%s': %g M + %g C + %g K is not positive definite",
                            label(rcm_body_name_of(w, L->body)), cM, cC, cK);
    return RC_OK;
}

rc_status rcm_linear_combo_solve(const rc_linear *L, const double *F, double *x, int nrhs)
{
    return combo_solve(L, F, x, nrhs);
}

/* Mhat = M + h theta C + h^2 theta^2 K, factorised for (h, theta). */
static rc_status factor(rc_world *w, rc_linear *L)
{
    const double h = w->sim.h, th = w->sim.theta;
    if (L->fac && L->fac_h == h && L->fac_theta == th && L->fac_bc == rcm_linear_bc_version(L)) return RC_OK;
    double *F = rcb_realloc(L->fac, rcm_linear_combo_size(L) * sizeof(double));
    if (!F) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    L->fac = F;
    const double c1 = h * th, c2 = h * h * th * th;
    rcm_linear_combo_fill(L, 1.0, c1, c2, F);
    rcm_linear_bc_apply_factor(L, F);   /* prescribed rows and columns: identity (linear_bc.c) */
    if ((L->banded ? rcl_band_chol_factor(L->n, L->kd, F) : rcl_chol_factor(L->n, F)) != RC_OK)
        return rc_set_error(RC_ERR_NUMERIC, "linear body '%s': Mhat = M + h theta C + h^2 theta^2 K is not positive definite",
                            label(rcm_body_name_of(w, L->body)));
    L->fac_h = h;
    L->fac_theta = th;
    L->fac_bc = rcm_linear_bc_version(L);
    for (int g = 0; g < w->ngaps; g++) w->gaps[g].mh_valid = 0;   /* Mhat changed */
    return RC_OK;
}

/* x <- Mhat^-1 x */
static rc_status solve(rc_linear *L, double *x, int nrhs)
{
    if (rcm_linear_bc_count(L)) rcm_linear_bc_zero(L, x, nrhs);   /* Mhat_ff^-1 on the free rows, 0 on the prescribed */
    return combo_solve(L, L->fac, x, nrhs);
}

rc_status rcm_linear_solve(rc_world *w, rc_linear *L, double *x, int nrhs)
{
    RC_CHECK(factor(w, L));
    return solve(L, x, nrhs);
}

rc_status rcm_linear_free_velocity(rc_world *w, rc_linear *L, const rcm_free_coef *r, const double *F, double *V0)
{
    RC_CHECK(factor(w, L));
    const int n = L->n;
    const rc_body *b = &w->bodies[L->body];
    const double *q = w->q0 + b->iq, *v = w->v0 + b->iv;
    const double h = w->sim.h;
    double *Mv = L->work, *Kq = L->work + n, *t = L->work + 2 * n;
    rcm_linear_mul(L, L->M, v, Mv);
    rcm_linear_mul(L, L->K, q, Kq);
    /* eq. (92): (M - h(1-theta)C - h^2 theta(1-theta)K) v_k - h K q_k + h F (Moreau--Jean),
     * eq. (97): M v_k - h theta K q_k + h theta F (Moreau--Jean--Fremond) */
    if (r->a_C != 0.0) {
        double *Cv = t;
        rcm_linear_mul(L, L->C, v, Cv);
        for (int i = 0; i < n; i++) V0[i] = Mv[i] - h * r->a_C * Cv[i] - h * r->a_K * Kq[i] + h * r->a_F * F[i];
    } else {
        for (int i = 0; i < n; i++) V0[i] = Mv[i] - h * r->a_K * Kq[i] + h * r->a_F * F[i];
    }
    if (r->a_KV[0] != 0.0 && r->a_KV[1] != 0.0) {
        double *Kv = t;
        rcm_linear_mul(L, L->K, v, Kv);
        for (int i = 0; i < n; i++) V0[i] -= h * h * r->a_KV[0] * r->a_KV[1] * Kv[i];
    }
    if (rcm_linear_bc_count(L)) {
        RC_CHECK(rcm_linear_bc_rhs(w, L, r, V0));   /* b_f -= Mhat_fp V_p */
        RC_CHECK(solve(L, V0, 1));
        rcm_linear_bc_set(L, V0);
        return RC_OK;
    }
    return solve(L, V0, 1);
}

/* 1/2 v^T M v and 1/2 q^T K q at (q, v). */
void rcm_linear_energies(const rc_world *w, const rc_linear *L, const double *q, const double *v, double *Ek, double *Ee)
{
    const rc_body *b = &w->bodies[L->body];
    *Ek = 0.5 * rcm_linear_quad(L, L->M, v + b->iv, L->work + 2 * L->n);
    *Ee = 0.5 * rcm_linear_quad(L, L->K, q + b->iq, L->work + 2 * L->n);
}

/* ||dv||_M^2 + ||dq||_K^2 and -h v_th^T C v_th of one step */
void rcm_linear_step_terms(const rc_world *w, const rc_linear *L, const double *vth, double *norms, double *W_damp)
{
    const rc_body *b = &w->bodies[L->body];
    const int n = L->n;
    double *dv = L->work, *dq = L->work + n;
    for (int i = 0; i < n; i++) {
        dv[i] = w->v[b->iv + i] - w->v0[b->iv + i];
        dq[i] = w->q[b->iq + i] - w->q0[b->iq + i];
    }
    *norms = rcm_linear_quad(L, L->M, dv, L->work + 2 * n) + rcm_linear_quad(L, L->K, dq, L->work + 2 * n);
    *W_damp = -w->sim.h * rcm_linear_quad(L, L->C, vth + b->iv, L->work + 2 * n);
    if (L->bc) rcm_linear_bc_reactions(w, L, dv, dq, vth + b->iv, w->f + b->iv, L->work + 2 * n);
}

rc_status rc_linear_energy(const rc_world *w, int body, double *E_kin, double *E_elastic)
{
    if (!w || body < 0 || body >= w->nbodies || !rcm_body_lagrangian(&w->bodies[body]))
        return rc_set_error(RC_ERR_NOT_FOUND, "no linear body with id %d", body);
    double k, e;
    rcm_linear_energies(w, &w->linears[w->bodies[body].linear], w->q, w->v, &k, &e);
    const rcm_nonlinear *nl = w->linears[w->bodies[body].linear].nl;
    if (nl) (void)nl->fn(nl->user, w->q + w->bodies[body].iq, NULL, NULL, &e);   /* a nonlinear body's E_el(q) */
    if (E_kin) *E_kin = k;
    if (E_elastic) *E_elastic = e;
    return RC_OK;
}

/* ---------------------------------------------------------------- gap contacts */

rc_status rc_gap_create(rc_world *w, const rc_gap_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_gap_create: NULL argument");
    const char *what = label(def->name);
    if (def->body < 0 || def->body >= w->nbodies)
        return rc_set_error(RC_ERR_NOT_FOUND, "gap '%s': no body with id %d", what, def->body);
    const int nq = w->bodies[def->body].nq;
    if (def->law < 0 || def->law >= w->nlaws) return rc_set_error(RC_ERR_NOT_FOUND, "gap '%s': no law with id %d", what, def->law);
    RC_CHECK(rcm_law_planar_check(w, def->law));
    if (!def->gap_fn) {
        if (def->nnz < 1 || !def->index || !def->normal)
            return rc_set_error(RC_ERR_ARG, "gap '%s': give 'index' and 'normal' (nnz >= 1) or a gap function", what);
        for (int i = 0; i < def->nnz; i++) {
            if (def->index[i] < 0 || def->index[i] >= nq)
                return rc_set_error(RC_ERR_ARG, "gap '%s': index[%d] = %d is outside the body's %d coordinates", what, i + 1, def->index[i] + 1, nq);
            if (!rcb_finite(def->normal[i]) || (def->tangent && !rcb_finite(def->tangent[i])))
                return rc_set_error(RC_ERR_ARG, "gap '%s': normal/tangent entry %d is not finite", what, i + 1);
        }
        double nn = 0.0;
        for (int i = 0; i < def->nnz; i++) nn += def->normal[i] * def->normal[i];
        if (!(nn > 0.0)) return rc_set_error(RC_ERR_ARG, "gap '%s': the normal row is zero", what);
    } else if (def->nnz != 0) {
        return rc_set_error(RC_ERR_ARG, "gap '%s': give either a linear form (index, normal) or a gap function, not both", what);
    }
    if (!rcb_finite(def->g0)) return rc_set_error(RC_ERR_ARG, "gap '%s': 'g0' is not finite", what);
    if (def->name)
        for (int i = 0; i < w->ngaps; i++)
            if (w->gaps[i].name && strcmp(w->gaps[i].name, def->name) == 0)
                return rc_set_error(RC_ERR_ARG, "gap '%s': the name is already used", what);

    RC_CHECK(rcb_reserve((void **)&w->gaps, &w->cap_gaps, w->ngaps + 1, sizeof(rc_gap)));
    rc_gap *g = &w->gaps[w->ngaps];
    memset(g, 0, sizeof *g);
    g->body = def->body;
    g->law = def->law;
    g->g0 = def->g0;
    g->fn = def->gap_fn;
    g->user = def->gap_user;
    g->name = rcb_strdup(def->name);
    const int nnz = def->gap_fn ? nq : def->nnz;   /* nonlinear: dense over the body */
    g->nnz = nnz;
    g->idx = rcb_malloc((size_t)nnz * sizeof(int));
    g->nrm = rcb_malloc((size_t)nnz * sizeof(double));
    g->tng = rcb_malloc((size_t)nnz * sizeof(double));
    g->MH = rcb_malloc((size_t)2 * w->bodies[def->body].nv * sizeof(double));
    g->grad = rcb_malloc((size_t)2 * nq * sizeof(double));
    if ((def->name && !g->name) || !g->idx || !g->nrm || !g->tng || !g->MH || !g->grad) {
        gap_discard(g);
        return rc_set_error(RC_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < nnz; i++) {
        g->idx[i] = def->gap_fn ? i : def->index[i];
        g->nrm[i] = def->gap_fn ? 0.0 : def->normal[i];
        g->tng[i] = def->gap_fn || !def->tangent ? 0.0 : def->tangent[i];
    }
    if (out_id) *out_id = w->ngaps;
    w->ngaps++;
    return rcm_world_rebuild_slots(w);
}

/* Appends the gap contacts (keys above every shape pair's, so the list stays
 * sorted) with g_N(q_k) and their rows; linear forms keep their rows. */
rc_status rcm_gaps_detect(rc_world *w)
{
    if (!w->ngaps) return RC_OK;
    RC_CHECK(rcb_reserve((void **)&w->contacts, &w->cap_contacts, w->ncontacts + w->ngaps, sizeof(rc_contact)));
    for (int i = 0; i < w->ngaps; i++) {
        rc_gap *g = &w->gaps[i];
        const rc_body *b = &w->bodies[g->body];
        const double *q = w->q + b->iq;
        double gN;
        if (g->fn) {
            double *gn = g->grad, *gt = g->grad + b->nq;
            for (int k = 0; k < b->nq; k++) { gn[k] = NAN; gt[k] = 0.0; }
            gN = NAN;
            RC_CHECK(g->fn(g->user, w->t, q, &gN, gn, gt));
            if (!rcb_finite(gN)) return rc_set_error(RC_ERR_CALLBACK, "gap '%s': the gap function returned a non-finite g_N at t = %.17g", label(g->name), w->t);
            for (int k = 0; k < b->nq; k++) {
                if (!rcb_finite(gn[k]) || !rcb_finite(gt[k]))
                    return rc_set_error(RC_ERR_CALLBACK, "gap '%s': the gap function returned a non-finite gradient entry %d at t = %.17g", label(g->name), k + 1, w->t);
                g->nrm[k] = gn[k];
                g->tng[k] = gt[k];
            }
            g->mh_valid = 0;
        } else if (g->node) {   /* node-to-surface (node_gap.c): listed within its margin */
            RC_CHECK(rcm_node_gap_eval(w, g, &gN));
            if (!(gN <= rcm_node_gap_margin(g))) continue;
        } else {
            gN = g->g0;
            for (int k = 0; k < g->nnz; k++) gN += g->nrm[k] * q[g->idx[k]];
        }
        rc_contact *c = &w->contacts[w->ncontacts++];
        memset(c, 0, sizeof *c);
        c->key = ((uint64_t)0xFFFFFF << 40) | ((uint64_t)(uint32_t)i << 16);
        c->gap = i;
        c->shape_a = c->shape_b = -1;
        c->body_a = RC_GROUND;
        c->body_b = g->body;
        c->law = g->law;
        c->gN = gN;
        c->n[1] = 1.0;     /* tangent (1, 0): rcm_contact_tangent */
        if (g->node) rcm_node_gap_contact(w, g, c);
    }
    return RC_OK;
}

/* u = H v for a gap contact */
void rcm_gap_dot(const rc_world *w, const rc_contact *c, const double *v, double *u)
{
    const rc_gap *g = &w->gaps[c->gap];
    const double *vb = v + w->bodies[g->body].iv;
    double un = 0.0, ut = 0.0;
    for (int k = 0; k < g->nnz; k++) {
        un += g->nrm[k] * vb[g->idx[k]];
        ut += g->tng[k] * vb[g->idx[k]];
    }
    if (g->node) rcm_node_gap_rigid_dot(w, g, v, &un, &ut);
    u[0] = un;
    u[1] = ut;
}

/* kappa Mhat^-1 H^T (2 x nv, stored by rows in g->MH) and the local W. */
rc_status rcm_gap_assemble(rc_world *w, rc_contact *c, double kappa)
{
    rc_gap *g = &w->gaps[c->gap];
    const rc_body *b = &w->bodies[g->body];
    const int nv = b->nv;
    if (g->node) return rcm_node_gap_assemble(w, c, kappa);
    if (!g->mh_valid || g->kappa != kappa) {
        double *MH = g->MH;
        memset(MH, 0, (size_t)2 * nv * sizeof(double));
        for (int k = 0; k < g->nnz; k++) {
            MH[g->idx[k]] = g->nrm[k];
            MH[nv + g->idx[k]] = g->tng[k];
        }
        RC_CHECK(rcm_body_ops_of(b)->solve_mass(w, b, MH, 2));   /* Mhat^-1 H^T */
        for (int j = 0; j < 2 * nv; j++) MH[j] *= kappa;
        g->kappa = kappa;
        g->mh_valid = 1;
    }
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++) {
            const double *row = r == 0 ? g->nrm : g->tng;
            double s = 0.0;
            for (int e = 0; e < g->nnz; e++) s += row[e] * g->MH[k * nv + g->idx[e]];
            c->W[r][k] = s;
        }
    /* a frictionless gap (no tangential row) has W_TT = 0: keep the block regular */
    if (!(c->W[1][1] > 0.0)) c->W[1][1] = 1.0;
    return RC_OK;
}

/* V += MH^T dp for a gap contact */
void rcm_gap_apply(const rc_world *w, const rc_contact *c, double *V, const double *dp)
{
    const rc_gap *g = &w->gaps[c->gap];
    const rc_body *b = &w->bodies[g->body];
    double *vb = V + b->iv;
    const double *MN = g->MH, *MT = g->MH + b->nv;
    for (int j = 0; j < b->nv; j++) vb[j] += MN[j] * dp[0] + MT[j] * dp[1];
    if (g->node) rcm_node_gap_rigid_apply(w, g, V, dp);
}
