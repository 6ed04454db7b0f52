/* body_kinds.c -- the operations of each body kind (rcm_body_ops, model.h):
 * what the step does per body goes through this table, so that a new kind
 * (spatial rigid bodies with unit quaternions, finite-element bodies) is a
 * new table entry and no new branch in the stages.
 *
 *   rigid planar (RC_BODY_RIGID2D): q = (x, y, angle), v = (v_x, v_y, omega),
 *       M = diag(m, m, J) (w->mass_diag), gravity in the free velocity and
 *       in E_pot; T(q) = identity;
 *   linear Lagrangian (RC_BODY_LINEAR, linear.c): n coordinates,
 *       M v' + K q + C v = F, Mhat = M + h theta C + h^2 theta^2 K
 *       factorised once per (h, theta); T(q) = identity;
 *   rigid spatial (RC_BODY_RIGID3D, rigid3d.c): q = (x, quaternion), v = (v,
 *       body Omega), Newton--Euler with the implicit gyroscopic midpoint;
 *       T(q) not the identity (q_{k+1} = q_k exp(h Omega/2)): general path;
 *   nonlinear Lagrangian (RC_BODY_NONLINEAR, nonlinear.c): a linear body's
 *       record with an internal force f_int(q) and its tangent K_T(q) in
 *       place of K q and K (beams, beam.c).
 * The op 'internal' (f_int, K_T) is what the generalized-alpha schemes
 * evaluate at their iterate: K q and K here, none for rigid bodies.
 *
 * Each function does the same floating-point operations, in the same order,
 * as the code of the stages it replaced (bit-identical histories). The
 * all-rigid in-place update of Moreau--Jean and MJF (scheme_moreau_jean.c)
 * stays a fast path over the flat arrays (q_{k+1} = q_k + h v_{k+theta} with
 * T = identity, iq = iv = 3 b): a kind whose T(q) is not the identity must
 * make rcm_world_keeps_state true so that the step takes the general path.
 */
#include "model/model.h"

/* ---------------------------------------------------------------- shared */

/* q_{k+1} = q_k + h T(q_k) v with T = identity (eq. 61b) */
static void position_identity(const rc_body *bd, const double *q0, const double *v, double h, double *q)
{
    for (int j = 0; j < bd->nq; j++) q[j] = q0[j] + h * v[j];
}

/* ---------------------------------------------------------------- rigid planar */

/* v_free = v_k + h M^-1 (F + m g); V_0 = v_free (Moreau--Jean, eq. 92 with
 * K = C = 0) or (1 - theta) v_k + theta v_free (MJF, eq. 97) */
static rc_status rigid_free_velocity(rc_world *w, const rc_body *bd, const rcm_free_coef *fc, const double *v,
                                     const double *f, double *V0)
{
    const double h = w->sim.h, *g = w->def.gravity;
    const double m = rcm_body_mass(w, bd);
    const double vf[3] = { v[0] + h * bd->inv_mass * (f[0] + m * g[0]),
                           v[1] + h * bd->inv_mass * (f[1] + m * g[1]),
                           v[2] + h * bd->inv_inertia * f[2] };
    if (fc->mix) {
        const double theta = fc->theta;
        for (int j = 0; j < 3; j++) V0[j] = (1.0 - theta) * v[j] + theta * vf[j];
    } else {
        for (int j = 0; j < 3; j++) V0[j] = vf[j];
    }
    return RC_OK;
}

/* rows (nrows x 3, by rows) <- rows M^-1: M diagonal */
static rc_status rigid_solve_mass(rc_world *w, const rc_body *bd, double *rows, int nrows)
{
    (void)w;
    const double m[3] = { bd->inv_mass, bd->inv_mass, bd->inv_inertia };
    for (int r = 0; r < nrows; r++)
        for (int j = 0; j < bd->nv; j++) rows[r * bd->nv + j] *= m[j];
    return RC_OK;
}

/* 2 E_kin += v^T M v, E_pot -= m g . x */
static void rigid_energy(const rc_world *w, const rc_body *bd, const double *q, const double *v, double acc[3])
{
    const double *x = q + bd->iq, *vv = v + bd->iv;
    const double m = rcm_body_mass(w, bd), J = rcm_body_inertia(w, bd);
    acc[0] += m * (vv[0] * vv[0] + vv[1] * vv[1]) + J * vv[2] * vv[2];
    acc[1] -= m * (w->def.gravity[0] * x[0] + w->def.gravity[1] * x[1]);
}

/* ||v_{k+1} - v_k||_M^2; no damping */
static void rigid_step_terms(const rc_world *w, const rc_body *bd, const double *vth, double *W_theta, double *W_damp)
{
    (void)vth; (void)W_damp;
    for (int j = 0; j < 3; j++) {
        const double dv = w->v[bd->iv + j] - w->v0[bd->iv + j];
        *W_theta += w->mass_diag[bd->iv + j] * dv * dv;
    }
}

/* the constant force, zero (NULL) without an rc_body_ext */
static const double *rigid_constant_force(const rc_world *w, const rc_body *bd)
{
    return bd->ext >= 0 ? w->body_ext[bd->ext].force : NULL;
}

const rcm_body_ops rcm_body_rigid2d = {
    .name = "rigid2d",
    .nq = 3,
    .nv = 3,
    .free_velocity = rigid_free_velocity,
    .solve_mass = rigid_solve_mass,
    .energy = rigid_energy,
    .position = position_identity,
    .step_terms = rigid_step_terms,
    .constant_force = rigid_constant_force,
};

/* ---------------------------------------------------------------- linear Lagrangian */

/* eqs. (92)-(95) / (97)-(100) with the factor of Mhat (reads q_k, v_k from w->q0, w->v0) */
static rc_status linear_free_velocity(rc_world *w, const rc_body *bd, const rcm_free_coef *fc, const double *v,
                                      const double *f, double *V0)
{
    (void)v;
    return rcm_linear_free_velocity(w, &w->linears[bd->linear], fc, f, V0);
}

static rc_status linear_solve_mass(rc_world *w, const rc_body *bd, double *rows, int nrows)
{
    return rcm_linear_solve(w, &w->linears[bd->linear], rows, nrows);
}

/* 2 E_kin += v^T M v, E_pot and E_el += q^T K q / 2 */
static void linear_energy(const rc_world *w, const rc_body *bd, const double *q, const double *v, double acc[3])
{
    double ek, ee;
    rcm_linear_energies(w, &w->linears[bd->linear], q, v, &ek, &ee);
    acc[0] += 2.0 * ek;
    acc[1] += ee;
    acc[2] += ee;
}

/* ||dv||_M^2 + ||dq||_K^2 and eq. (67) */
static void linear_step_terms(const rc_world *w, const rc_body *bd, const double *vth, double *W_theta, double *W_damp)
{
    double norms, wd;
    rcm_linear_step_terms(w, &w->linears[bd->linear], vth, &norms, &wd);
    *W_theta += norms;
    *W_damp += wd;
}

static const double *linear_constant_force(const rc_world *w, const rc_body *bd)
{
    return w->linears[bd->linear].f;
}

/* f_int = K q, K_T = K (dense) */
static rc_status linear_internal(const rc_world *w, const rc_body *bd, const double *q, double *f, double *K)
{
    const rc_linear *L = &w->linears[bd->linear];
    if (f) rcm_linear_mul(L, L->K, q, f);
    for (int i = 0; K && i < L->n; i++)
        for (int j = 0; j < L->n; j++) K[(size_t)i * L->n + j] = L->K ? rcm_linear_entry(L, L->K, i, j) : 0.0;
    return RC_OK;
}

const rcm_body_ops rcm_body_linear = {
    .name = "linear",
    .nq = 0,   /* the body's n */
    .nv = 0,
    .free_velocity = linear_free_velocity,
    .solve_mass = linear_solve_mass,
    .energy = linear_energy,
    .position = position_identity,
    .step_terms = linear_step_terms,
    .constant_force = linear_constant_force,
    .internal = linear_internal,
};

/* ---------------------------------------------------------------- removed (remove.c) */

/* A removed body's slot keeps its dofs (v = 0): V_0 = 0, no mass to solve
 * with, no energy, q unchanged, no step terms, no force. */
static rc_status removed_free_velocity(rc_world *w, const rc_body *bd, const rcm_free_coef *fc, const double *v,
                                       const double *f, double *V0)
{
    (void)w; (void)fc; (void)v; (void)f;
    for (int j = 0; j < bd->nv; j++) V0[j] = 0.0;
    return RC_OK;
}

static rc_status removed_solve_mass(rc_world *w, const rc_body *bd, double *rows, int nrows)
{
    (void)w;
    for (int i = 0; i < nrows * bd->nv; i++) rows[i] = 0.0;
    return RC_OK;
}

static void removed_energy(const rc_world *w, const rc_body *bd, const double *q, const double *v, double acc[3])
{
    (void)w; (void)bd; (void)q; (void)v; (void)acc;
}

static void removed_position(const rc_body *bd, const double *q0, const double *v, double h, double *q)
{
    (void)v; (void)h;
    for (int j = 0; j < bd->nq; j++) q[j] = q0[j];
}

static void removed_step_terms(const rc_world *w, const rc_body *bd, const double *vth, double *W_theta, double *W_damp)
{
    (void)w; (void)bd; (void)vth; (void)W_theta; (void)W_damp;
}

static const double *removed_constant_force(const rc_world *w, const rc_body *bd)
{
    (void)w; (void)bd;
    return NULL;
}

const rcm_body_ops rcm_body_removed = {
    .name = "removed",
    .nq = 3,
    .nv = 3,
    .free_velocity = removed_free_velocity,
    .solve_mass = removed_solve_mass,
    .energy = removed_energy,
    .position = removed_position,
    .step_terms = removed_step_terms,
    .constant_force = removed_constant_force,
};

/* ---------------------------------------------------------------- the table */

const rcm_body_ops *const rcm_body_kinds[RCM_BODY_NKINDS] = {
    [RC_BODY_RIGID2D] = &rcm_body_rigid2d,
    [RC_BODY_LINEAR] = &rcm_body_linear,
    [RCM_BODY_REMOVED] = &rcm_body_removed,
    [RC_BODY_RIGID3D] = &rcm_body_rigid3d,   /* spatial (rigid3d.c) */
    [RC_BODY_NONLINEAR] = &rcm_body_nonlinear,   /* nonlinear.c */
};
