/* law_builtin.c -- the built-in laws (Newton, Moreau, Fremond with Coulomb
 * friction) as data of the model: their modified velocity xi and their
 * projection onto the Coulomb cone, the law interface every solver talks to
 * (nonsmooth/law.c adds their exact one-contact solve). */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* The shift s of a built-in law, so that its modified velocity is
 *     xi(u) = w + (mu |w_T|, 0),   w = u + s     (De Saxce, eq. 10).
 * Newton--Coulomb (eq. 62, u = u_{k+1}):      s = (e u_N,k, 0)
 *   under MJF (eq. 73, u = u_{k+theta}):      s = ((theta (1 + e) - 1) u_N,k, 0)
 * Moreau (eq. 58, u = u_{k+1}):               s = (e u_N,k, e_t u_T,k)
 *   under MJF, with u+ = (u - (1 - theta) u-) / theta and the inclusion
 *   multiplied by theta:                      s = (theta (1 + e) - 1) u-_N, (theta (1 + e_t) - 1) u-_T)
 * theta (1 + e) - 1 is computed as (theta - 1) + theta e, which is e exactly
 * when theta = 1 (MJF with theta = 1 is then bit for bit Moreau--Jean). */
void rcm_law_builtin_shift(const rc_law *l, rc_unknown unknown, double theta, const double *uk, double *shift)
{
    const double e = l->def.e;
    const int moreau = l->def.type == RC_LAW_MOREAU || l->def.type == RC_LAW_FREMOND;
    const double et = l->def.type == RC_LAW_FREMOND ? 1.0 : l->def.e_t;
    if (unknown == RC_UNKNOWN_THETA) {
        shift[0] = ((theta - 1.0) + theta * e) * uk[0];
        shift[1] = moreau ? ((theta - 1.0) + theta * et) * uk[1] : 0.0;
    } else {
        shift[0] = e * uk[0];
        shift[1] = moreau ? et * uk[1] : 0.0;
    }
}

static rc_status builtin_xi(void *user, const rc_law_ctx *ctx, const double *state,
                            const double *u, const double *u_old, double *xi)
{
    (void)state;
    const rc_law *l = (const rc_law *)user;
    double s[2];
    rcm_law_builtin_shift(l, ctx->unknown, ctx->theta, u_old, s);
    double wt = u[1] + s[1];
    if (ctx->dim == 3) {   /* spatial contact: the second tangent's shift as the first's */
        double s2[2], uo2[2] = { u_old[0], u_old[2] };
        rcm_law_builtin_shift(l, ctx->unknown, ctx->theta, uo2, s2);
        double ws = u[2] + s2[1];
        xi[0] = u[0] + s[0] + l->def.mu * sqrt(wt * wt + ws * ws);
        xi[1] = wt;
        xi[2] = ws;
        return RC_OK;
    }
    xi[0] = u[0] + s[0] + l->def.mu * fabs(wt);
    xi[1] = wt;
    return RC_OK;
}

static rc_status builtin_project(void *user, const rc_law_ctx *ctx, const double *state,
                                 const double *x, double *p)
{
    (void)state;
    const rc_law *l = (const rc_law *)user;
    p[0] = x[0];
    p[1] = x[1];
    if (ctx->dim == 3) {
        p[2] = x[2];
        rcm_fc3d_project(l->def.mu, p);
        return RC_OK;
    }
    rcm_fc2d_project(l->def.mu, p);
    return RC_OK;
}

/* Built-in laws are seen by the solvers through the same interface as
 * custom ones; they add the closed-form local solve. Their ops.dim is 2,
 * but they take the contact's dimension (ctx->dim 2 or 3: the Coulomb cone
 * of a planar or a spatial contact). */
void rcm_law_init_builtin(rc_law *l)
{
    memset(&l->ops, 0, sizeof l->ops);
    l->ops.dim = 2;
    l->ops.xi = builtin_xi;
    l->ops.project = builtin_project;
    l->ops.user = l;
    l->closed_form = 1;
}
