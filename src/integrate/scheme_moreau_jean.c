/* scheme_moreau_jean.c -- the Moreau--Jean theta-scheme (eq. 61) and the
 * Moreau--Jean--Fremond scheme (eqs. 72-73), Acary & Collins-Craft 2024,
 * as entries of the scheme table (step.h). They differ only in the problem
 * assembly and the update (section 4):
 *   Moreau--Jean (eqs. 92-96):   unknown V = v_{k+1},
 *       V_0 = Mhat^-1 [M v_k + h F_{k+theta}]          (rigid bodies: K = C = 0)
 *       W = H Mhat^-1 H^T,        shift_N = e u_N,k               (eq. 96)
 *   Moreau--Jean--Fremond (eqs. 97-101): unknown V = v_{k+theta},
 *       V_0 = Mhat^-1 [M v_k + h theta F_{k+theta}]  = (1-theta) v_k + theta v_free
 *       W = theta H Mhat^-1 H^T,  shift_N = (theta (1 + e) - 1) u_N,k  (eq. 101)
 * so the solver sees  u = W p + b, b = H V_0 + shift, and the Coulomb cone in
 * the De Saxce form for the shifted velocity. With theta = 1 both
 * assemblies are the same floating-point operations (bit-identical runs).
 * q_{k+1} = q_k + h v_{k+theta} (eq. 61b).
 */
#include "integrate/integrate.h"

#include <string.h>

/* ---------------------------------------------------------------- Moreau--Jean */

double rci_mj_kappa(const rc_sim_def *sim) { (void)sim; return 1.0; }

void rci_mj_free_coef(const rci_step *st, rcm_free_coef *fc)   /* eq. (92): V_0 = v_free for rigid bodies */
{
    fc->a_C = 1.0 - st->theta;
    fc->a_K = 1.0;
    fc->a_F = 1.0;
    fc->a_KV[0] = st->theta;
    fc->a_KV[1] = 1.0 - st->theta;
    fc->mix = 0;
    fc->theta = st->theta;
}

/* eq. (96) / (101): a built-in law's shift for the scheme's unknown, e u_N,k
 * (Newton under Moreau--Jean), ((theta - 1) + theta e) u_N,k (under MJF), the
 * same with e_T for Moreau's law; a custom law keeps its own in xi */
static void builtin_affine(const rci_step *st, rc_contact *c, const rc_law *law, const double ul[2], double extra)
{
    if (law->closed_form) {
        rcm_law_builtin_shift(law, st->scheme->unknown, st->theta, ul, c->shift);
        c->shift[0] += extra;
    } else {   /* xi(u + shift, u_old): built-in laws solved generically see the same */
        c->shift[0] = extra;
        c->shift[1] = 0.0;
    }
}

void rci_update_positions(rci_step *st, const double *vth)
{
    rc_world *w = st->w;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        rcm_body_ops_of(bd)->position(bd, w->q0 + bd->iq, vth + bd->iv, st->h, w->q + bd->iq);
    }
    rcm_energy(w, w->q0, w->v0, &st->Ek0, &st->Ep0, NULL);
}

/* v_{k+1} = V, v_{k+theta} = (1 - theta) v_k + theta v_{k+1} (into w->V) */
rc_status rci_mj_update(rci_step *st)
{
    rc_world *w = st->w;
    const double h = st->h, theta = st->theta;
    const int nv = w->nv;
    double *vth = w->V;
    if (st->keep) {
        for (int i = 0; i < nv; i++) {
            const double V = w->V[i];
            w->v[i] = V;
            vth[i] = (1.0 - theta) * w->v0[i] + theta * V;
        }
        rci_update_positions(st, vth);
        return RC_OK;
    }
    /* rigid bodies only (iq = iv = 3 b): in place, with ||dv||_M^2 in the same
     * order (the fast path of the rigid kind's position map and step terms,
     * body_kinds.c, over the flat arrays); first a pass that only checks: a
     * non-finite v_{k+1} or q_{k+1} fails the step, q_k and v_k untouched.
     * On one thread even with the solver's: split between two threads (by
     * index, or by the slabs' halves) these passes took longer on the
     * 10 000-disk pile than on one (docs/benchmarks.md, "More of the step on
     * the team"). */
    double acc = 0.0;
    for (int i = 0; i < nv; i++) {
        const double V = w->V[i], v0 = w->v[i];
        const double q1 = w->q[i] + h * ((1.0 - theta) * v0 + theta * V);
        acc += (V - V) + (q1 - q1);   /* NaN if one is not finite */
    }
    if (acc != 0.0)
        for (int i = 0; i < nv; i++) {
            const double V = w->V[i], v0 = w->v[i];
            const double q1 = w->q[i] + h * ((1.0 - theta) * v0 + theta * V);
            if (!rcb_finite(V)) return rci_nonfinite_state(w, i, 0, V);
            if (!rcb_finite(q1)) return rci_nonfinite_state(w, i, 1, q1);
        }
    rcm_energy(w, w->q, w->v, &st->Ek0, &st->Ep0, NULL);
    const double *md = w->mass_diag;
    double W_theta = st->W_theta;
    for (int i = 0; i < nv; i++) {   /* one pass: the sum and the update */
        const double V = w->V[i], v0 = w->v[i], dv = V - v0;
        W_theta += md[i] * dv * dv;
        vth[i] = (1.0 - theta) * v0 + theta * V;
        w->v[i] = V;
        w->q[i] = w->q[i] + h * vth[i];
    }
    st->W_theta = W_theta;
    return RC_OK;
}

/* Where the rate dg/dt of rheonomic rows is taken, t* = t_k + s_t h: where
 * it cancels the leading position error of a drive. The step moves q by
 * h v_{k+theta}, which must be h df/dt(t_{k+1/2}) + O(h^3). MJF (V =
 * v_{k+theta}): s_t = 1/2. Moreau--Jean and Maury (V = v_{k+1}, q moved by
 * (1 - theta) v_k + theta V with v_k = df/dt(t* - h) from the last step's
 * rows): (1 - theta)(s_t - 1) + theta s_t = 1/2, s_t = 3/2 - theta (t_{k+1}
 * at theta = 1/2, t_{k+1/2} at theta = 1): the same condition that puts
 * the rows at s = 3/2 - theta (mj_joint_jacobian), which time, known
 * exactly, meets for every theta. */
double rci_mj_joint_rate_time(const rc_sim_def *def) { return 1.5 - def->theta; }
static double mjf_joint_rate_time(const rc_sim_def *def) { (void)def; return 0.5; }

/* The joints' rows by default (integrate/configure.c has the whole story):
 * Moreau--Jean at the predicted end of the step q_k + h v_k (Bruls, Acary &
 * Cardona 2014 eq. 50c) below theta = 3/4, at the midpoint from there on. */
static rc_joint_jacobian mj_joint_jacobian(const rc_sim_def *def)
{
    return def->theta < 0.75 ? RC_JOINT_JACOBIAN_END : RC_JOINT_JACOBIAN_MIDPOINT;
}

const rci_scheme rci_scheme_moreau_jean = {
    .name = "moreau-jean",
    .type = RC_SCHEME_MOREAU_JEAN,
    .unknown = RC_UNKNOWN_END,
    .kappa = rci_mj_kappa,
    .free_coef = rci_mj_free_coef,
    .every_pair = 0,
    .affine = builtin_affine,
    .preimpact = NULL,
    .update = rci_mj_update,
    .work_at_theta = 0,
    .joint_jacobian = mj_joint_jacobian,
    .joint_rate_time = rci_mj_joint_rate_time,
};

/* ---------------------------------------------------------------- Moreau--Jean--Fremond */

static double mjf_kappa(const rc_sim_def *sim) { return sim->theta; }

/* eq. (97): rigid bodies V_0 = (1 - theta) v_k + theta v_free */
static void mjf_free_coef(const rci_step *st, rcm_free_coef *fc)
{
    fc->a_C = 0.0;
    fc->a_K = st->theta;
    fc->a_F = st->theta;
    fc->a_KV[0] = fc->a_KV[1] = 0.0;
    fc->mix = 1;
    fc->theta = st->theta;
}

/* What a built-in impact law sees (ours, not in the papers): a separating
 * contact (u_N,k > 0) has no impact to restitute, its pre-impact velocity is
 * u_N,k- = min(u_N,k, 0): its work (69) is then
 * ((1 - theta (1 + e)) u_N,k- - ...) p_N <= 0 for every contact of the index
 * set, anticipating or not (Proposition 1; with theta (1 + e) >= 1 Newton's
 * own shift already has that sign for u_N,k > 0 and is kept: theta = 1 stays
 * Moreau--Jean bit for bit). Newton's shift (theta (1 + e) - 1) u_N,k on a
 * separating contact let u_{k+theta} > 0 with p_N > 0 and created energy
 * (issue 11: +3.8e-6 J in one step of a disk 1e-4 in the floor moving up at
 * 4 mm/s). Moreau--Jean keeps Newton's e u_N,k (Siconos's law; its work
 * (1 - theta (1 + e)) u_N,k p_N has no sign, section 3.1). */
static void mjf_preimpact(const rci_step *st, const rc_law *law, double ul[2])
{
    if (ul[0] > 0.0 && st->theta * (1.0 + law->def.e) < 1.0) ul[0] = 0.0;
}

/* V = v_{k+theta} already; v_{k+1} = (V - (1 - theta) v_k) / theta */
static rc_status mjf_update(rci_step *st)
{
    rc_world *w = st->w;
    const double h = st->h, theta = st->theta;
    const int nv = w->nv;
    if (st->keep) {
        for (int i = 0; i < nv; i++) w->v[i] = (w->V[i] - (1.0 - theta) * w->v0[i]) / theta;
        rci_update_positions(st, w->V);
        return RC_OK;
    }
    double acc = 0.0;   /* the checking pass of rci_mj_update */
    for (int i = 0; i < nv; i++) {
        const double V = w->V[i], v0 = w->v[i];
        const double v1 = (V - (1.0 - theta) * v0) / theta, q1 = w->q[i] + h * V;
        acc += (v1 - v1) + (q1 - q1);
    }
    if (acc != 0.0)
        for (int i = 0; i < nv; i++) {
            const double V = w->V[i], v0 = w->v[i];
            const double v1 = (V - (1.0 - theta) * v0) / theta, q1 = w->q[i] + h * V;
            if (!rcb_finite(v1)) return rci_nonfinite_state(w, i, 0, v1);
            if (!rcb_finite(q1)) return rci_nonfinite_state(w, i, 1, q1);
        }
    rcm_energy(w, w->q, w->v, &st->Ek0, &st->Ep0, NULL);
    const double *md = w->mass_diag;
    for (int i = 0; i < nv; i++) {
        const double V = w->V[i], v0 = w->v[i];
        const double v1 = (V - (1.0 - theta) * v0) / theta;
        w->v[i] = v1;
        w->q[i] = w->q[i] + h * V;
        const double dv = v1 - v0;
        st->W_theta += md[i] * dv * dv;
    }
    return RC_OK;
}

static rc_status mjf_check(const rc_sim_def *def, const char *what)
{
    if (def->theta == 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'theta' must be > 0 for moreau-jean-fremond (got 0: W = theta H M^-1 H^T vanishes)", what);
    return RC_OK;
}

static rc_joint_jacobian mjf_joint_jacobian(const rc_sim_def *def) { (void)def; return RC_JOINT_JACOBIAN_MIDPOINT; }

const rci_scheme rci_scheme_moreau_jean_fremond = {
    .name = "moreau-jean-fremond",
    .type = RC_SCHEME_MOREAU_JEAN_FREMOND,
    .unknown = RC_UNKNOWN_THETA,
    .kappa = mjf_kappa,
    .free_coef = mjf_free_coef,
    .every_pair = 0,
    .affine = builtin_affine,
    .preimpact = mjf_preimpact,
    .update = mjf_update,
    .work_at_theta = 1,
    .check = mjf_check,
    .joint_jacobian = mjf_joint_jacobian,   /* on v_{k+theta}: the midpoint */
    .joint_rate_time = mjf_joint_rate_time,
    .after_solve = rci_warn_mjf_newton_stick,
};
