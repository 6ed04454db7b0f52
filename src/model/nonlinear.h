/* model/nonlinear.h -- nonlinear Lagrangian bodies (nonlinear.c), the body
 * kind RC_BODY_NONLINEAR: part of model.h (through linear.h), not included
 * on its own.
 *
 *   M v' + f_int(q) + C v = F + H^T lambda,   K_T(q) = d f_int / dq,
 *
 * with a constant mass M (and damping C), a constant force F (gravity) and an
 * internal force of the body's own whose tangent stiffness is exact. The
 * storage is a linear body's record (w->linears: M, C = NULL, f; dense) whose
 * nl names the internal force; the kind's operations (rcm_body_ops,
 * body_kinds.c's table) read it. Beams (beam.c) are the first such bodies.
 */
#ifndef RC_MODEL_NONLINEAR_H
#define RC_MODEL_NONLINEAR_H

/* The internal force at q (the body's n coordinates): f = f_int(q) (n), K =
 * K_T(q) (n x n, row-major), *E = the elastic energy; each NULL: not
 * computed; each given one is overwritten (not added to). */
typedef rc_status (*rcm_internal_fn)(const void *user, const double *q, double *f, double *K, double *E);

typedef struct rcm_nonlinear {
    rcm_internal_fn fn;
    void *user;                 /* fn's data, owned by the body (free_user) */
    void (*free_user)(void *);
    /* the step's iteration matrix Mhat = M + h theta C + h^2 theta^2 K_T(q_k),
     * its Cholesky factor F and K_T, for (fac_h, fac_theta); scratch fi (n) */
    double *KT, *F, *fi;
    double fac_h, fac_theta;
} rcm_nonlinear;

extern const rcm_body_ops rcm_body_nonlinear;

/* Whether body bd keeps a linear body's record (w->linears[bd->linear]: M, C, f). */
static inline int rcm_body_lagrangian(const rc_body *bd)
{
    return bd->kind == RC_BODY_LINEAR || bd->kind == RC_BODY_NONLINEAR;
}

/* A nonlinear body of n coordinates: M (n x n, symmetric positive definite),
 * the constant force f, q0, v0 (NULL: 0), the internal force fn (its user
 * data freed by free_user when the world is, or here on failure). */
rc_status rcm_nonlinear_create(rc_world *w, const char *name, int n, const double *M, const double *f, const double *q0,
                               const double *v0, rcm_internal_fn fn, void *user, void (*free_user)(void *), int *out_body);
/* The record of a nonlinear body (NULL: not one, or no such body). */
const rcm_nonlinear *rcm_nonlinear_of(const rc_world *w, int body);
void rcm_nonlinear_free(rcm_nonlinear *nl);

/* The kinds' internal force and its tangent (rcm_body_ops.internal), for the
 * schemes and the Newton Jacobian of implicit ones: at q (the body's own nq
 * coordinates; NULL: its current ones), f = f_int(q) (nv) and K = K_T(q) =
 * d f_int / dq (nv x nv, row-major), overwritten; K q and K for a linear
 * body, zero for a kind without internal forces (rigid bodies). */
rc_status rcm_body_internal_force(const rc_world *w, int body, const double *q, double *f);
rc_status rcm_body_tangent(const rc_world *w, int body, const double *q, double *K);

#endif /* RC_MODEL_NONLINEAR_H */
