/* nonlinear.c -- the body kind RC_BODY_NONLINEAR (model/nonlinear.h): a
 * Lagrangian body with a constant mass M, a constant force f (gravity) and an
 * internal force f_int(q) of its own with its exact tangent K_T(q) (beam.c's
 * beams). Its operations for the body-kind table (body_kinds.c):
 *
 *   free velocity   the linear body's eqs. (92) / (97) linearised at q_k
 *                   (Acary & Collins-Craft 2024, section 4.1; Acary &
 *                   Brogliato 2008, section 10.1.2 for nonlinear bodies):
 *                   f_int(q_{k+theta}) ~ f_int(q_k) + h theta K_T(q_k) v_{k+theta},
 *                   so K q_k -> f_int(q_k) and K -> K_T(q_k) in
 *                   Mhat V_0 = M v_k - h a_C C v_k - h a_K f_int(q_k) + h a_F F - h^2 a_KV[0] a_KV[1] K_T v_k,
 *                   Mhat = M + h theta C + h^2 theta^2 K_T(q_k), factorised
 *                   every step (dense Cholesky);
 *   solve_mass      Mhat^-1 with that factor;
 *   energy          1/2 v^T M v, E_el(q) (in E_pot and E_el);
 *   step_terms      ||dv||_M^2 + ||dq||_{K_T(q_k)}^2 (the theta-method's
 *                   numerical work, exact for a linear body, O(h^3) per step
 *                   here);
 *   internal        f_int(q), K_T(q) (the generalized-alpha schemes' forces at
 *                   their iterate; rcm_body_tangent for a Newton Jacobian).
 */
#include "model/model.h"
#include "linalg/linalg.h"

#include <string.h>

static const char *label(const char *name) { return name ? name : "(unnamed)"; }

static rc_linear *record_of(const rc_world *w, const rc_body *bd) { return &w->linears[bd->linear]; }

void rcm_nonlinear_free(rcm_nonlinear *nl)
{
    if (!nl) return;
    if (nl->free_user) nl->free_user(nl->user);
    rcb_free(nl->KT);
    rcb_free(nl);
}

const rcm_nonlinear *rcm_nonlinear_of(const rc_world *w, int body)
{
    if (!w || !rcm_valid_body(w, body) || w->bodies[body].kind != RC_BODY_NONLINEAR) return NULL;
    return w->linears[w->bodies[body].linear].nl;
}

rc_status rcm_nonlinear_create(rc_world *w, const char *name, int n, const double *M, const double *f, const double *q0,
                               const double *v0, rcm_internal_fn fn, void *user, void (*free_user)(void *), int *out_body)
{
    rcm_nonlinear *nl = rcb_malloc(sizeof *nl);
    if (nl) {
        memset(nl, 0, sizeof *nl);
        nl->fn = fn; nl->user = user; nl->free_user = free_user;
        nl->KT = rcb_malloc(((size_t)2 * n * n + n) * sizeof(double));   /* KT, F, fi */
    }
    if (!nl || !nl->KT) {
        if (nl) rcb_free(nl);
        if (free_user) free_user(user);
        return rc_set_error(RC_ERR_NOMEM, "nonlinear body '%s': out of memory", label(name));
    }
    nl->F = nl->KT + (size_t)n * n;
    nl->fi = nl->F + (size_t)n * n;
    char what[160];
    snprintf(what, sizeof what, "nonlinear body '%s'", label(name));
    rc_linear_def d = rc_default_linear_def();
    d.name = name; d.n = n; d.M = M; d.f = f; d.q0 = q0; d.v0 = v0;
    rc_status s = rc_linear_def_check(&d, what);
    rc_linear L;
    memset(&L, 0, sizeof L);
    L.n = n;
    L.kd = n - 1;   /* dense: K_T(q) changes every step (banded storage: a later step) */
    L.M = s == RC_OK ? rcb_malloc((size_t)n * n * sizeof(double)) : NULL;
    if (s == RC_OK && !L.M) s = rc_set_error(RC_ERR_NOMEM, "%s: out of memory", what);
    int id = -1;
    if (s == RC_OK) {
        memcpy(L.M, M, (size_t)n * n * sizeof(double));
        s = rcm_linear_install(w, name, &L, f, q0, v0, &id);   /* frees L.M on failure */
    }
    if (s != RC_OK) {
        rcm_nonlinear_free(nl);
        return s;
    }
    rc_body *bd = &w->bodies[id];
    bd->kind = RC_BODY_NONLINEAR;
    w->linears[bd->linear].nl = nl;
    if (out_body) *out_body = id;
    return RC_OK;
}

/* ---------------------------------------------------------------- the kind's operations */

/* K_T(q) into nl->KT, Mhat = M + h theta C + h^2 theta^2 K_T and its factor into nl->F */
static rc_status factor_at(rc_world *w, rc_linear *L, const double *q)
{
    rcm_nonlinear *nl = L->nl;
    const int n = L->n;
    const double h = w->sim.h, th = w->sim.theta, c2 = h * h * th * th;
    RC_CHECK(nl->fn(nl->user, q, NULL, nl->KT, NULL));
    rcm_linear_combo_fill(L, 1.0, h * th, 0.0, nl->F);
    for (size_t i = 0; i < (size_t)n * n; i++) nl->F[i] += c2 * nl->KT[i];
    nl->fac_h = 0.0;
    if (rcl_chol_factor(n, nl->F) != RC_OK)
        return rc_set_error(RC_ERR_NUMERIC, "nonlinear body '%s': Mhat = M + h theta C + h^2 theta^2 K_T(q) is not positive "
                            "definite at t = %.17g (h = %g: a compressed body that buckles needs a smaller h)",
                            label(rcm_body_name_of(w, L->body)), w->t, h);
    nl->fac_h = h;
    nl->fac_theta = th;
    for (int g = 0; g < w->ngaps; g++)
        if (w->gaps[g].body == L->body) w->gaps[g].mh_valid = 0;   /* Mhat changed */
    return RC_OK;
}

/* eq. (92) / (97) linearised at q_k (the file's header); q_k, v_k from w->q0, w->v0 as a linear body's */
static rc_status nl_free_velocity(rc_world *w, const rc_body *bd, const rcm_free_coef *r, const double *v,
                                  const double *F, double *V0)
{
    (void)v;
    rc_linear *L = record_of(w, bd);
    rcm_nonlinear *nl = L->nl;
    const int n = L->n;
    const double *q = w->q0 + bd->iq, *vk = w->v0 + bd->iv, h = w->sim.h;
    RC_CHECK(factor_at(w, L, q));
    RC_CHECK(nl->fn(nl->user, q, nl->fi, NULL, NULL));
    double *Mv = L->work, *t = L->work + n;
    rcm_linear_mul(L, L->M, vk, Mv);
    for (int i = 0; i < n; i++) V0[i] = Mv[i] - h * r->a_K * nl->fi[i] + h * r->a_F * F[i];
    if (r->a_C != 0.0 && L->C) {
        rcm_linear_mul(L, L->C, vk, t);
        for (int i = 0; i < n; i++) V0[i] -= h * r->a_C * t[i];
    }
    if (r->a_KV[0] != 0.0 && r->a_KV[1] != 0.0) {
        rcm_linear_mul(L, nl->KT, vk, t);
        for (int i = 0; i < n; i++) V0[i] -= h * h * r->a_KV[0] * r->a_KV[1] * t[i];
    }
    return rcl_chol_solve(n, nl->F, 1, V0);
}

/* rows <- Mhat^-1 rows with the step's factor (at the current q if there is none for (h, theta)) */
static rc_status nl_solve_mass(rc_world *w, const rc_body *bd, double *rows, int nrows)
{
    rc_linear *L = record_of(w, bd);
    const rcm_nonlinear *nl = L->nl;
    if (!(nl->fac_h == w->sim.h && nl->fac_theta == w->sim.theta)) RC_CHECK(factor_at(w, L, w->q + bd->iq));
    for (int r = 0; r < nrows; r++) RC_CHECK(rcl_chol_solve(L->n, nl->F, 1, rows + (size_t)r * L->n));
    return RC_OK;
}

/* 2 E_kin += v^T M v; E_pot and E_el += E_el(q) */
static void nl_energy(const rc_world *w, const rc_body *bd, const double *q, const double *v, double acc[3])
{
    const rc_linear *L = record_of(w, bd);
    double ek, ee, E = 0.0;
    rcm_linear_energies(w, L, q, v, &ek, &ee);   /* (K = NULL: ee = 0) */
    (void)L->nl->fn(L->nl->user, q + bd->iq, NULL, NULL, &E);
    acc[0] += 2.0 * ek;
    acc[1] += E;
    acc[2] += E;
}

static void nl_position(const rc_body *bd, const double *q0, const double *v, double h, double *q)
{
    for (int j = 0; j < bd->nq; j++) q[j] = q0[j] + h * v[j];
}

/* ||dv||_M^2 + ||dq||_{K_T(q_k)}^2 (the step's K_T), -h v_th^T C v_th */
static void nl_step_terms(const rc_world *w, const rc_body *bd, const double *vth, double *W_theta, double *W_damp)
{
    const rc_linear *L = record_of(w, bd);
    const int n = L->n;
    double *dv = L->work, *dq = L->work + n, *r = L->work + 2 * n;
    for (int i = 0; i < n; i++) {
        dv[i] = w->v[bd->iv + i] - w->v0[bd->iv + i];
        dq[i] = w->q[bd->iq + i] - w->q0[bd->iq + i];
    }
    double kq = 0.0;
    if (L->nl->fac_h > 0.0) kq = rcm_linear_quad(L, L->nl->KT, dq, r);
    *W_theta += rcm_linear_quad(L, L->M, dv, r) + kq;
    *W_damp += -w->sim.h * rcm_linear_quad(L, L->C, vth + bd->iv, r);
}

static const double *nl_constant_force(const rc_world *w, const rc_body *bd) { return record_of(w, bd)->f; }

static rc_status nl_internal(const rc_world *w, const rc_body *bd, const double *q, double *f, double *K)
{
    const rcm_nonlinear *nl = record_of(w, bd)->nl;
    return nl->fn(nl->user, q, f, K, NULL);
}

const rcm_body_ops rcm_body_nonlinear = {
    .name = "nonlinear",
    .nq = 0,   /* the body's n */
    .nv = 0,
    .free_velocity = nl_free_velocity,
    .solve_mass = nl_solve_mass,
    .energy = nl_energy,
    .position = nl_position,
    .step_terms = nl_step_terms,
    .constant_force = nl_constant_force,
    .internal = nl_internal,
};

/* ---------------------------------------------------------------- queries */

static rc_status body_q(const rc_world *w, int body, const char *what, const double **q)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: 'w' is NULL", what);
    RC_CHECK(rcm_body_check(w, body, what));
    if (!*q) *q = w->q + w->bodies[body].iq;
    return RC_OK;
}

rc_status rcm_body_internal_force(const rc_world *w, int body, const double *q, double *f)
{
    RC_CHECK(body_q(w, body, "rcm_body_internal_force", &q));
    const rc_body *bd = &w->bodies[body];
    const rcm_body_ops *ops = rcm_body_ops_of(bd);
    if (ops->internal) return ops->internal(w, bd, q, f, NULL);
    memset(f, 0, (size_t)bd->nv * sizeof(double));
    return RC_OK;
}

rc_status rcm_body_tangent(const rc_world *w, int body, const double *q, double *K)
{
    RC_CHECK(body_q(w, body, "rcm_body_tangent", &q));
    const rc_body *bd = &w->bodies[body];
    const rcm_body_ops *ops = rcm_body_ops_of(bd);
    if (ops->internal) return ops->internal(w, bd, q, NULL, K);
    memset(K, 0, (size_t)bd->nv * bd->nv * sizeof(double));
    return RC_OK;
}
