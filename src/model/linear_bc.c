/* linear_bc.c -- prescribed coordinates (Dirichlet conditions) of a linear
 * body, the supports' reactions and the static solve K u = f.
 *
 * A prescribed coordinate p follows q_{k+1,p} = g_p(t_{k+1}). The scheme's
 * unknown V is then known on p (Moreau--Jean, V = v_{k+1}:
 * V_p = (g_p - q_{k,p} - h(1 - theta) v_{k,p}) / (h theta); Moreau--Jean--
 * Fremond, V = v_{k+theta}: V_p = (g_p - q_{k,p}) / h) and is eliminated
 * from Mhat V = b + H^T P + R: Mhat_ff V_f = b_f - Mhat_fp V_p + H_f^T P.
 * The factor is Mhat with its prescribed rows and columns replaced by the
 * identity (the band stays), computed once per (h, theta, prescribed set);
 * every solve zeroes the prescribed entries, so Mhat^-1 H^T of a contact has
 * none there. The reaction impulse is what the prescribed rows of the
 * theta-method's momentum balance lack,
 *   R_p = [M (v_{k+1} - v_k) + h C v_{k+theta} + h K q_{k+theta} - h F]_p,
 * and its work v_{k+theta,p} R_p (the supports') enters the audit's W_ext,
 * so the balance of eq. (65) closes. */
#include "model/model.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

typedef struct bc_group {
    rc_prescribe_fn fn;
    void *user;
    int nc, live;
    int *coords;
    double *vals;
} bc_group;

struct rcm_linear_bc {
    int n, np, version;
    int *slot;              /* n: slot of a coordinate, -1 free            */
    int *pc;                /* slot -> coordinate                          */
    double *cval;           /* slot: constant value (grp < 0)              */
    int *grp, *pos;         /* slot: group and place in it, or -1          */
    double *vp;             /* slot: V_p of the step                       */
    double *react;          /* n: reaction forces of the last step         */
    double W;               /* the supports' work of the last step         */
    bc_group *g;
    int ng, capg;
};

static const char *label(const rc_world *w, int body)
{
    const char *s = rcm_body_name_of(w, body);
    return s ? s : "(unnamed)";
}

void rcm_linear_bc_free(rcm_linear_bc *bc)
{
    if (!bc) return;
    for (int i = 0; i < bc->ng; i++) { rcb_free(bc->g[i].coords); rcb_free(bc->g[i].vals); }
    rcb_free(bc->g);
    rcb_free(bc->slot); rcb_free(bc->pc); rcb_free(bc->cval); rcb_free(bc->grp); rcb_free(bc->pos);
    rcb_free(bc->vp); rcb_free(bc->react);
    rcb_free(bc);
}

size_t rcm_linear_bc_memory(const rcm_linear_bc *bc)
{
    if (!bc) return 0;
    size_t m = sizeof *bc + (size_t)bc->n * (4 * sizeof(int) + 3 * sizeof(double));
    for (int i = 0; i < bc->ng; i++) m += (size_t)bc->g[i].nc * (sizeof(int) + sizeof(double));
    return m;
}

int rcm_linear_bc_count(const rc_linear *L) { return L->bc ? L->bc->np : 0; }
int rcm_linear_bc_version(const rc_linear *L) { return L->bc ? L->bc->version : 0; }

static rc_status bc_get(rc_world *w, int body, rc_linear **out, const char *fname)
{
    if (w && body >= 0 && body < w->nbodies && w->bodies[body].kind == RC_BODY_NONLINEAR)
        return rc_set_error(RC_ERR_ARG, "%s: body %d is a nonlinear body (a beam): prescribed coordinates are for linear "
                            "bodies (hold a beam with rc_beam_joint_create)", fname, body);
    if (!w || body < 0 || body >= w->nbodies || w->bodies[body].kind != RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_NOT_FOUND, "%s: no linear body with id %d", fname, body);
    rc_linear *L = &w->linears[w->bodies[body].linear];
    if (!L->bc) {
        const int n = L->n;
        rcm_linear_bc *bc = rcb_malloc(sizeof *bc);
        if (!bc) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(bc, 0, sizeof *bc);
        bc->n = n;
        bc->slot = rcb_malloc((size_t)n * sizeof(int));
        bc->pc = rcb_malloc((size_t)n * sizeof(int));
        bc->grp = rcb_malloc((size_t)n * sizeof(int));
        bc->pos = rcb_malloc((size_t)n * sizeof(int));
        bc->cval = rcb_malloc((size_t)n * sizeof(double));
        bc->vp = rcb_malloc((size_t)n * sizeof(double));
        bc->react = rcb_malloc((size_t)n * sizeof(double));
        if (!bc->slot || !bc->pc || !bc->grp || !bc->pos || !bc->cval || !bc->vp || !bc->react) {
            rcm_linear_bc_free(bc);
            return rc_set_error(RC_ERR_NOMEM, "out of memory");
        }
        for (int i = 0; i < n; i++) { bc->slot[i] = -1; bc->react[i] = 0.0; }
        L->bc = bc;
    }
    *out = L;
    return RC_OK;
}

static rc_status check_coords(const rc_world *w, const rc_linear *L, int nc, const int *coords, const char *fname)
{
    if (nc < 0 || (nc > 0 && !coords)) return rc_set_error(RC_ERR_ARG, "%s: 'coords' is NULL or 'ncoords' < 0", fname);
    for (int i = 0; i < nc; i++)
        if (coords[i] < 0 || coords[i] >= L->n)
            return rc_set_error(RC_ERR_ARG, "%s: linear body '%s': coords[%d] = %d is outside 0..%d", fname,
                                label(w, L->body), i, coords[i], L->n - 1);
    return RC_OK;
}

/* Coordinate c takes slot data (group g at place j, or the constant v). */
static void set_coord(rcm_linear_bc *bc, int c, int g, int j, double v)
{
    int s = bc->slot[c];
    if (s < 0) {
        s = bc->np++;
        bc->slot[c] = s;
        bc->pc[s] = c;
    } else if (bc->grp[s] >= 0) {
        bc->g[bc->grp[s]].live--;
    }
    bc->grp[s] = g;
    bc->pos[s] = j;
    bc->cval[s] = v;
}

/* Groups no coordinate uses any more are dropped (renumbering the others). */
static void compact_groups(rcm_linear_bc *bc)
{
    int k = 0;
    for (int i = 0; i < bc->ng; i++) {
        if (bc->g[i].live == 0) {
            rcb_free(bc->g[i].coords); rcb_free(bc->g[i].vals);
            continue;
        }
        for (int s = 0; s < bc->np; s++)
            if (bc->grp[s] == i) bc->grp[s] = k;
        bc->g[k++] = bc->g[i];
    }
    bc->ng = k;
}

rc_status rc_linear_prescribe(rc_world *w, int body, int ncoords, const int *coords, const double *values)
{
    const char *fname = "rc_linear_prescribe";
    rc_linear *L = NULL;
    RC_CHECK(bc_get(w, body, &L, fname));
    RC_CHECK(check_coords(w, L, ncoords, coords, fname));
    if (ncoords > 0 && !values) return rc_set_error(RC_ERR_ARG, "%s: 'values' is NULL", fname);
    for (int i = 0; i < ncoords; i++)
        if (!rcb_finite(values[i]))
            return rc_set_error(RC_ERR_ARG, "%s: linear body '%s': values[%d] is not finite", fname, label(w, body), i);
    for (int i = 0; i < ncoords; i++) set_coord(L->bc, coords[i], -1, -1, values[i]);
    compact_groups(L->bc);
    L->bc->version++;
    return RC_OK;
}

rc_status rc_linear_prescribe_fn(rc_world *w, int body, int ncoords, const int *coords, rc_prescribe_fn fn, void *user)
{
    const char *fname = "rc_linear_prescribe_fn";
    rc_linear *L = NULL;
    RC_CHECK(bc_get(w, body, &L, fname));
    RC_CHECK(check_coords(w, L, ncoords, coords, fname));
    if (!fn) return rc_set_error(RC_ERR_ARG, "%s: 'fn' is NULL (rc_linear_prescribe for constants, rc_linear_release to free)", fname);
    if (ncoords == 0) return RC_OK;
    rcm_linear_bc *bc = L->bc;
    RC_CHECK(rcb_reserve((void **)&bc->g, &bc->capg, bc->ng + 1, sizeof(bc_group)));
    bc_group *g = &bc->g[bc->ng];
    memset(g, 0, sizeof *g);
    g->coords = rcb_malloc((size_t)ncoords * sizeof(int));
    g->vals = rcb_malloc((size_t)ncoords * sizeof(double));
    if (!g->coords || !g->vals) {
        rcb_free(g->coords); rcb_free(g->vals);
        return rc_set_error(RC_ERR_NOMEM, "out of memory");
    }
    memcpy(g->coords, coords, (size_t)ncoords * sizeof(int));
    g->fn = fn;
    g->user = user;
    g->nc = ncoords;
    g->live = 0;
    const int gi = bc->ng++;
    for (int i = 0; i < ncoords; i++) {
        set_coord(bc, coords[i], gi, i, 0.0);
        g->live++;
    }
    /* a coordinate listed twice in this call: its first place is stale */
    compact_groups(bc);
    bc->version++;
    return RC_OK;
}

rc_status rc_linear_release(rc_world *w, int body)
{
    rc_linear *L = NULL;
    RC_CHECK(bc_get(w, body, &L, "rc_linear_release"));
    rcm_linear_bc *bc = L->bc;
    for (int s = 0; s < bc->np; s++) bc->slot[bc->pc[s]] = -1;
    for (int i = 0; i < bc->ng; i++) { rcb_free(bc->g[i].coords); rcb_free(bc->g[i].vals); }
    bc->ng = 0;
    bc->np = 0;
    bc->version++;
    return RC_OK;
}

rc_status rc_linear_prescribed(const rc_world *w, int body, int *ncoords, int *coords)
{
    if (!w || body < 0 || body >= w->nbodies || w->bodies[body].kind != RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_NOT_FOUND, "rc_linear_prescribed: no linear body with id %d", body);
    const rc_linear *L = &w->linears[w->bodies[body].linear];
    const int np = rcm_linear_bc_count(L);
    if (ncoords) *ncoords = np;
    for (int s = 0; coords && s < np; s++) coords[s] = L->bc->pc[s];
    return RC_OK;
}

/* The prescribed values at t into vals (by slot). */
static rc_status bc_values(const rc_world *w, const rc_linear *L, double t, double *vals)
{
    rcm_linear_bc *bc = L->bc;
    for (int i = 0; i < bc->ng; i++) {
        bc_group *g = &bc->g[i];
        for (int j = 0; j < g->nc; j++) g->vals[j] = NAN;
        rc_status s = g->fn(g->user, L->body, t, g->nc, g->coords, g->vals);
        if (s != RC_OK) {
            char copy[512];
            snprintf(copy, sizeof copy, "%s", rc_last_error());
            return rc_set_error(s, "prescribed coordinates of linear body '%s' at t = %.17g: %s", label(w, L->body), t, copy);
        }
    }
    for (int s = 0; s < bc->np; s++) {
        const double v = bc->grp[s] < 0 ? bc->cval[s] : bc->g[bc->grp[s]].vals[bc->pos[s]];
        if (!rcb_finite(v))
            return rc_set_error(RC_ERR_CALLBACK, "prescribed coordinate %d of linear body '%s' at t = %.17g: the function gave %g",
                                bc->pc[s] + 1, label(w, L->body), t, v);
        vals[s] = v;
    }
    return RC_OK;
}

/* F (Cholesky input, banded upper or dense, n) with the coordinates of idx
 * (m of them) made identity rows and columns. */
void rcm_linear_bc_identity(const rc_linear *L, double *F, const int *idx, int m)
{
    const int n = L->n, kd = L->kd;
    for (int s = 0; s < m; s++) {
        const int p = idx[s];
        if (L->banded) {
            for (int i = p - kd > 0 ? p - kd : 0; i < p; i++) F[(kd + i - p) + (size_t)p * (kd + 1)] = 0.0;   /* column p */
            for (int j = p + 1; j <= p + kd && j < n; j++) F[(kd + p - j) + (size_t)j * (kd + 1)] = 0.0;      /* row p */
            F[kd + (size_t)p * (kd + 1)] = 1.0;
        } else {
            for (int j = 0; j < n; j++) F[(size_t)p * n + j] = F[(size_t)j * n + p] = 0.0;
            F[(size_t)p * n + p] = 1.0;
        }
    }
}

void rcm_linear_bc_apply_factor(const rc_linear *L, double *F)
{
    if (L->bc && L->bc->np) rcm_linear_bc_identity(L, F, L->bc->pc, L->bc->np);
}

void rcm_linear_bc_zero(const rc_linear *L, double *x, int nrhs)
{
    if (!L->bc) return;
    for (int r = 0; r < nrhs; r++)
        for (int s = 0; s < L->bc->np; s++) x[(size_t)r * L->n + L->bc->pc[s]] = 0.0;
}

/* Before the solve of V0 = Mhat^-1 b: V_p from the prescribed values at
 * t_{k+1}, b_f -= Mhat_fp V_p (b_p is zeroed by the solve) */
rc_status rcm_linear_bc_rhs(rc_world *w, rc_linear *L, const rcm_free_coef *r, double *b)
{
    rcm_linear_bc *bc = L->bc;
    const rc_body *bd = &w->bodies[L->body];
    const double h = w->sim.h, th = r->theta, t1 = w->t + h;
    RC_CHECK(bc_values(w, L, t1, bc->vp));
    const double c1 = h * th, c2 = h * h * th * th;
    for (int s = 0; s < bc->np; s++) {
        const int p = bc->pc[s];
        const double q0 = w->q0[bd->iq + p], v0 = w->v0[bd->iv + p];
        const double Vp = r->mix ? (bc->vp[s] - q0) / h : (bc->vp[s] - q0 - h * (1.0 - th) * v0) / (h * th);
        bc->vp[s] = Vp;
        /* column p of Mhat = its row p (symmetric); b_p itself is zeroed by the solve */
        rcm_linear_row(L, L->M, p, -Vp, b, NULL);
        rcm_linear_row(L, L->C, p, -c1 * Vp, b, NULL);
        rcm_linear_row(L, L->K, p, -c2 * Vp, b, NULL);
    }
    return RC_OK;
}

void rcm_linear_bc_set(const rc_linear *L, double *V0)
{
    for (int s = 0; s < L->bc->np; s++) V0[L->bc->pc[s]] = L->bc->vp[s];
}

/* Row p of A times x (band or dense). */
static double row_times(const rc_linear *L, const double *A, int p, const double *x)
{
    return rcm_linear_row(L, A, p, 0.0, NULL, x);
}

/* After a step (dv, dq: the step's increments; vth: v_{k+theta} of the
 * body; F the applied force): the reactions and the supports' work. */
void rcm_linear_bc_reactions(const rc_world *w, const rc_linear *L, const double *dv, const double *dq, const double *vth,
                             const double *F, double *qth)
{
    rcm_linear_bc *bc = L->bc;
    const rc_body *bd = &w->bodies[L->body];
    const double h = w->sim.h, th = w->sim.theta;
    bc->W = 0.0;
    if (!bc->np) return;
    for (int i = 0; i < L->n; i++) qth[i] = w->q0[bd->iq + i] + th * dq[i];
    for (int s = 0; s < bc->np; s++) {
        const int p = bc->pc[s];
        const double R = row_times(L, L->M, p, dv) + h * row_times(L, L->C, p, vth) + h * row_times(L, L->K, p, qth) - h * F[p];
        bc->react[p] = R / h;
        bc->W += vth[p] * R;
    }
}

double rcm_linear_support_work(const rc_world *w)
{
    double W = 0.0;
    for (int i = 0; i < w->nlinears; i++)
        if (w->linears[i].bc) W += w->linears[i].bc->W;
    return W;
}

rc_status rc_linear_reactions(const rc_world *w, int body, double *r)
{
    if (!w || body < 0 || body >= w->nbodies || w->bodies[body].kind != RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_NOT_FOUND, "rc_linear_reactions: no linear body with id %d", body);
    if (!r) return rc_set_error(RC_ERR_ARG, "rc_linear_reactions: 'r' is NULL");
    const rc_linear *L = &w->linears[w->bodies[body].linear];
    for (int i = 0; i < L->n; i++) r[i] = (L->bc && L->bc->slot[i] >= 0) ? L->bc->react[i] : 0.0;
    return RC_OK;
}

/* ---------------------------------------------------------------- static solve */

/* f(t): the body's constant force and its force function at (t, q, v = 0). */
static rc_status static_force(rc_world *w, const rc_linear *L, double t, double *f, double *g)
{
    const rc_body *bd = &w->bodies[L->body];
    for (int i = 0; i < L->n; i++) f[i] = L->f[i];
    const rc_body_ext *x = rcm_body_ext_of(w, L->body);
    if (!x || !x->force_fn) return RC_OK;
    for (int i = 0; i < L->n; i++) g[i] = 0.0;
    double *v = g + L->n;
    for (int i = 0; i < L->n; i++) v[i] = 0.0;
    rc_status s = x->force_fn(x->force_user, L->body, t, w->q + bd->iq, v, g);
    if (s != RC_OK) {
        char copy[512];
        snprintf(copy, sizeof copy, "%s", rc_last_error());
        return rc_set_error(s, "rc_linear_solve_static: force function of linear body '%s' at t = %.17g: %s", label(w, L->body), t, copy);
    }
    for (int i = 0; i < L->n; i++) {
        if (!rcb_finite(g[i]))
            return rc_set_error(RC_ERR_CALLBACK, "rc_linear_solve_static: the force function of linear body '%s' gave a non-finite component %d",
                                label(w, L->body), i + 1);
        f[i] += g[i];
    }
    return RC_OK;
}

typedef struct static_work {
    double *F, *f, *u, *g, *Ku, *uc;
    int *idx, *mark;
} static_work;

static void static_free(static_work *s)
{
    rcb_free(s->F); rcb_free(s->f); rcb_free(s->u); rcb_free(s->g); rcb_free(s->Ku); rcb_free(s->uc);
    rcb_free(s->idx); rcb_free(s->mark);
}

/* The constrained coordinates: the prescribed ones at their values at t,
 * then the fixed ones at 0; returns their number */
static rc_status static_constraints(const rc_world *w, const rc_linear *L, double t, int nfix, const int *fix, static_work *s, int *m)
{
    const int n = L->n;
    int k = 0;
    for (int i = 0; i < n; i++) s->mark[i] = 0;
    if (L->bc && L->bc->np) {
        RC_CHECK(bc_values(w, L, t, s->uc));
        for (int j = 0; j < L->bc->np; j++) {
            s->idx[k] = L->bc->pc[j];
            s->mark[L->bc->pc[j]] = 1;
            k++;
        }
    }
    for (int i = 0; i < nfix; i++) {
        const int c = fix[i];
        if (c < 0 || c >= n)
            return rc_set_error(RC_ERR_ARG, "rc_linear_solve_static: linear body '%s': fix[%d] = %d is outside 0..%d", label(w, L->body), i, c, n - 1);
        if (s->mark[c]) continue;   /* prescribed (its value wins) or listed twice */
        s->mark[c] = 1;
        s->idx[k] = c;
        s->uc[k] = 0.0;
        k++;
    }
    *m = k;
    return RC_OK;
}

static double norm2(const double *x, int n, const int *mark, int want)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        if (!mark || mark[i] == want) s += x[i] * x[i];
    return sqrt(s);
}

rc_status rc_linear_solve_static(rc_world *w, int body, double t, int nfix, const int *fix, double *residual, double *reactions)
{
    const char *fname = "rc_linear_solve_static";
    if (!w || body < 0 || body >= w->nbodies || w->bodies[body].kind != RC_BODY_LINEAR)
        return rc_set_error(RC_ERR_NOT_FOUND, "%s: no linear body with id %d", fname, body);
    if (!rcb_finite(t)) return rc_set_error(RC_ERR_ARG, "%s: 't' is not finite", fname);
    if (nfix < 0 || (nfix > 0 && !fix)) return rc_set_error(RC_ERR_ARG, "%s: 'fix' is NULL or 'nfix' < 0", fname);
    rc_linear *L = &w->linears[w->bodies[body].linear];
    if (!L->K) return rc_set_error(RC_ERR_ARG, "%s: linear body '%s' has no stiffness K", fname, label(w, body));
    const int n = L->n;
    static_work s;
    memset(&s, 0, sizeof s);
    s.F = rcb_malloc(rcm_linear_combo_size(L) * sizeof(double));
    s.f = rcb_malloc((size_t)n * sizeof(double));
    s.u = rcb_malloc((size_t)n * sizeof(double));
    s.g = rcb_malloc((size_t)2 * n * sizeof(double));
    s.Ku = rcb_malloc((size_t)n * sizeof(double));
    s.uc = rcb_malloc((size_t)n * sizeof(double));
    s.idx = rcb_malloc((size_t)n * sizeof(int));
    s.mark = rcb_malloc((size_t)n * sizeof(int));
    rc_status st = (s.F && s.f && s.u && s.g && s.Ku && s.uc && s.idx && s.mark) ? RC_OK : rc_set_error(RC_ERR_NOMEM, "out of memory");
    int m = 0;
    if (st == RC_OK) st = static_constraints(w, L, t, nfix, fix, &s, &m);
    if (st == RC_OK) st = static_force(w, L, t, s.f, s.g);
    if (st == RC_OK) {   /* K with identity rows and columns on the constrained coordinates */
        rcm_linear_combo_fill(L, 0.0, 0.0, 1.0, s.F);
        rcm_linear_bc_identity(L, s.F, s.idx, m);
        if ((L->banded ? rcl_band_chol_factor(n, L->kd, s.F) : rcl_chol_factor(n, s.F)) != RC_OK)
            st = rc_set_error(RC_ERR_ARG, "%s: linear body '%s': K is singular on the free coordinates (%d of %d constrained): "
                              "fix or prescribe more (a rigid motion is free)", fname, label(w, body), m, n);
    }
    if (st == RC_OK) {   /* u_f = K_ff^-1 (f_f - K_fc u_c), u_c given */
        for (int i = 0; i < n; i++) s.u[i] = s.f[i];
        for (int k = 0; k < m; k++) {
            const int c = s.idx[k];
            for (int i = 0; i < n; i++)
                if (!s.mark[i]) s.u[i] -= rcm_linear_entry(L, L->K, i, c) * s.uc[k];
        }
        for (int k = 0; k < m; k++) s.u[s.idx[k]] = s.uc[k];
        st = L->banded ? rcl_band_chol_solve(n, L->kd, s.F, 1, s.u) : rcl_chol_solve(n, s.F, 1, s.u);
    }
    if (st == RC_OK) {
        const rc_body *bd = &w->bodies[body];
        rcm_linear_mul(L, L->K, s.u, s.Ku);
        for (int i = 0; i < n; i++) s.g[i] = s.Ku[i] - s.f[i];   /* K u - f: the supports' forces on the constrained */
        const double scale = fmax(norm2(s.f, n, NULL, 0), norm2(s.Ku, n, NULL, 0));   /* all coordinates: K u carries the reactions */
        if (residual) *residual = scale > 0 ? norm2(s.g, n, s.mark, 0) / scale : norm2(s.g, n, s.mark, 0);
        for (int i = 0; reactions && i < n; i++) reactions[i] = s.mark[i] ? s.g[i] : 0.0;
        for (int i = 0; i < n; i++) {
            w->q[bd->iq + i] = s.u[i];
            w->v[bd->iv + i] = 0.0;
        }
        if (L->bc)
            for (int i = 0; i < n; i++) L->bc->react[i] = L->bc->slot[i] >= 0 ? s.g[i] : 0.0;
    }
    static_free(&s);
    return st;
}
