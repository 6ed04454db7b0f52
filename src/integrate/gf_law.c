/* gf_law.c -- contact laws without a closed form (written in Lua or in C,
 * or a built-in law with rc_law_def.generic = 1) under the frictional
 * nonsmooth generalized-alpha scheme (Capobianco, Harsch, Eugster & Leine
 * 2021; docs/theory/gen-alpha-friction.md, "Laws written in Lua or C").
 *
 * Such a law gives a modified velocity xi(u, u^-) and the projection onto its
 * convex set C of impulses (docs/laws.md): -xi in N_C(p). It enters the step
 * at the two levels where the paper's contact laws act; the position level
 * (101), Signorini on g_N with kappa-hat, stays the scheme's (it is what keeps
 * the gaps at round-off, whatever the law):
 *
 *   velocity level, k in A (94), (112): the percussion P = (P_N, P_F) solves
 *       -xi(u_{i+1}, u_i) in N_C(P),   u = (g_N-dot, gamma_F) at q_{i+1}
 *     (the law's u^- is u_i at q_{i+1}, as xi_N of eq. 88), i.e.
 *       P = proj_C(P - r xi(u_{i+1}, u_i));
 *   force level, k in B (87), (117): the force lambda = (lambda_N, lambda_F)
 *     solves the same inclusion for the impulse h lambda with u^- = 0 (no
 *     impact) and
 *       u = (h g_N-ddot, h gamma_F-dot)   when the contact sticks at the
 *                                         velocity level (D^st: stick on the
 *                                         acceleration level, 117a),
 *       u = (h g_N-ddot, gamma_F)         when it slips (D^sl: the force
 *                                         opposes the velocity, 120).
 *     For Coulomb in De Saxce's form, xi = (u_N + mu |u_T|, u_T), C = K_mu,
 *     the first is Signorini on g_N-ddot with Coulomb on gamma_F-dot, the
 *     second Signorini on g_N-ddot with lambda_F = -mu lambda_N sgn(gamma_F)
 *     (the normal cone of K at its boundary ray only holds -xi when
 *     g_N-ddot = 0 or lambda = 0): the built-in law's sets (133)-(142)
 *     exactly. For a law with a bounded C (Tresca: C = [0, inf) x [-tau h,
 *     tau h]) h lambda in C bounds the force by tau.
 *
 * The sets: A as the built-in (130); B = A and the velocity level's projected
 * P_N > 0; D^st = A and the projection leaves the tangential part of its
 * argument P - r xi unchanged (up to round-off). The residual rows are the
 * natural maps P - proj_C(P - r xi) and h lambda - proj_C(h lambda - r xi),
 * whose zeros are those of the inclusions for any r > 0; the Newton
 * Jacobian takes them by differences like every other row. r is the
 * contact's smaller prox parameter, min(r_N, r_F).
 *
 * A law's call that fails is kept in s->err (the first one; the calls after
 * it are skipped) and reported by the callers (gf_step.c).
 */
#include "integrate/gen_alpha_friction.h"

#include <math.h>
#include <string.h>

static const double zero2[2] = { 0.0, 0.0 };

rc_status rci_gf_law_setup(rci_gf_sys *s, int k, const rc_law *law, double *state)
{
    rcn_site *site = &s->site[k];
    memset(site, 0, sizeof *site);
    if (law->closed_form) return RC_OK;   /* site->law = NULL: the built-in rows */
    /* the contact's state at t_i: kept with it since the step that found it
     * (a law with update), or its law's initial state */
    const rc_contact_aux *aux = s->cs[k].aux;
    if (law->ops.nstate > 0)
        memcpy(state, aux ? aux->state : law->ops.state0, (size_t)law->ops.nstate * sizeof(double));
    site->law = law;
    site->n = 2;
    site->state = state;
    site->uk = s->uo + 2 * k;
    rc_law_ctx *ctx = &site->ctx;
    ctx->t = s->w->t;   /* t_i, the start of the step */
    ctx->h = s->h;
    ctx->theta = s->w->sim.theta;
    ctx->unknown = RC_UNKNOWN_END;   /* u is u_{i+1} */
    ctx->contact = s->cs[k].id;
    ctx->dim = rcn_law_dim(law, 2);
    s->ngeneric++;
    return RC_OK;
}

/* the site's contact frame and gap at the iterate */
static void refresh(rci_gf_sys *s, int k)
{
    rc_law_ctx *ctx = &s->site[k].ctx;
    const rc_contact *c = &s->cs[k];
    ctx->gN = s->gN[k];
    ctx->normal[0] = c->n[0]; ctx->normal[1] = c->n[1]; ctx->normal[2] = 0.0;
    rcm_contact_tangent(c, ctx->tangent);
    ctx->tangent[2] = 0.0;
    ctx->tangent2[0] = ctx->tangent2[1] = ctx->tangent2[2] = 0.0;
}

static double rmin(const rci_gf_sys *s, int k) { return fmin(s->rN[k], s->rF[k]); }

/* out = proj_C(p - r xi(u, uo)), its argument in z; the law's call kept in s->err */
static void prox(rci_gf_sys *s, int k, const double *p, const double *u, const double *uo, double *z, double *out)
{
    out[0] = out[1] = z[0] = z[1] = 0.0;
    if (s->err) return;
    rcn_site *site = &s->site[k];
    refresh(s, k);
    site->uk = uo;
    s->err = rcn_site_prox_arg(site, p, u, rmin(s, k), z, out);
    site->uk = s->uo + 2 * k;
}

/* the velocity level at the iterate: P1 = proj_C(P - r xi(u_{i+1}, u_i));
 * returns the contact's sets B and D^st (k in A) */
static unsigned char velocity_level(rci_gf_sys *s, int k, const double *P, double *P1)
{
    const double u[2] = { s->gdN[k], s->gF[k] };
    double z[2];
    prox(s, k, P, u, s->uo + 2 * k, z, P1);
    unsigned char st = 0;
    if (P1[0] > 0.0) st |= RCI_GF_B;
    if (fabs(P1[1] - z[1]) <= 1e-12 * (fabs(z[0]) + fabs(z[1]))) st |= RCI_GF_DST;   /* C left z_T alone */
    return st;
}

/* the force level: L1 = proj_C(h lambda - r xi(v, 0)) */
static void force_level(rci_gf_sys *s, int k, double lN, double lF, int stick, double *L1)
{
    const double h = s->h, L[2] = { h * lN, h * lF };
    const double v[2] = { h * s->gddN[k], stick ? h * s->gdF[k] : s->gF[k] };
    double z[2];
    prox(s, k, L, v, zero2, z, L1);
}

unsigned char rci_gf_law_sets(rci_gf_sys *s, int k, unsigned char st)
{
    if (!(st & RCI_GF_A)) return st;
    const double P[2] = { s->PN[k], s->PF[k] };
    double P1[2];
    return st | velocity_level(s, k, P, P1);
}

void rci_gf_law_rows(rci_gf_sys *s, int k, double lN, double lF, double *RLN, double *RLF, double *RlN, double *RlF)
{
    const double h = s->h;
    const unsigned char st = s->set[k];
    if (!(st & RCI_GF_A)) {   /* open: no percussion, no force (the built-in rows) */
        *RLN = s->PN[k]; *RLF = s->PF[k]; *RlN = h * lN; *RlF = h * lF;
        return;
    }
    const double P[2] = { s->PN[k], s->PF[k] };
    double P1[2], L1[2] = { 0.0, 0.0 };
    (void)velocity_level(s, k, P, P1);   /* the frozen sets decide, not this call's */
    *RLN = P[0] - P1[0];
    *RLF = P[1] - P1[1];
    if (st & RCI_GF_B) force_level(s, k, lN, lF, (st & RCI_GF_DST) != 0, L1);
    *RlN = h * lN - L1[0];
    *RlF = h * lF - L1[1];
}

void rci_gf_law_prox(rci_gf_sys *s, int k, int A, double *PN, double *PF, double *lN, double *lF)
{
    *PN = *PF = *lN = *lF = 0.0;
    if (!A) return;
    const double P[2] = { s->PN[k], s->PF[k] };
    double P1[2], L1[2];
    const unsigned char st = velocity_level(s, k, P, P1);
    *PN = P1[0];
    *PF = P1[1];
    if (!(st & RCI_GF_B)) return;
    const int o = 3 * s->n + 3 * s->nb;   /* kappa_N's offset in x: lambda_N at o + 2 nc, lambda_F at o + 4 nc */
    force_level(s, k, s->x[o + 2 * s->nc + k], s->x[o + 4 * s->nc + k], (st & RCI_GF_DST) != 0, L1);
    *lN = L1[0] / s->h;
    *lF = L1[1] / s->h;
}

rc_status rci_gf_law_update(rci_gf_sys *s)
{
    for (int k = 0; k < s->nc; k++) {
        rcn_site *site = &s->site[k];
        const rc_law *law = site->law;
        if (!law || !law->ops.update) continue;
        refresh(s, k);   /* the frame and gap at q_{i+1} */
        const double u[2] = { s->gdN[k], s->gF[k] }, P[2] = { s->PN[k], s->PF[k] };
        rc_status st = law->ops.update(law->ops.user, &site->ctx, site->state, u, s->uo + 2 * k, P);
        for (int j = 0; st == RC_OK && j < law->ops.nstate; j++)
            if (!rcb_finite(site->state[j]))
                st = rc_set_error(RC_ERR_CALLBACK, "law '%s': update left state[%d] non-finite for contact %d at t = %.17g",
                                  law->name ? law->name : "(unnamed)", j + 1, s->cs[k].id, s->w->t);
        if (st != RC_OK) return st;
    }
    return RC_OK;
}
