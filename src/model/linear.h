/* model/linear.h -- linear Lagrangian bodies and gap-function contacts
 * (linear.c): part of model.h, not included on its own. */
#ifndef RC_MODEL_LINEAR_H
#define RC_MODEL_LINEAR_H

/* linear.c: a linear body's free velocity, eqs. (92) / (97), with the
 * scheme's coefficients; x <- Mhat^-1 x (nrhs right-hand sides of n, by rows) */
rc_status rcm_linear_free_velocity(rc_world *w, rc_linear *L, const rcm_free_coef *r, const double *F, double *V0);
rc_status rcm_linear_solve(rc_world *w, rc_linear *L, double *x, int nrhs);
void rcm_linear_energies(const rc_world *w, const rc_linear *L, const double *q, const double *v, double *Ek, double *Ee);
void rcm_linear_step_terms(const rc_world *w, const rc_linear *L, const double *vth, double *norms, double *W_damp);
void rcm_linear_free(rc_world *w);
/* linear.c: cM M + cC C + cK K factorised into F (rcm_linear_combo_size
 * doubles; Cholesky, banded like Mhat), x <- (that)^-1 x, y = A x for one of
 * the body's matrices A (L->M, L->K, L->C; NULL: y = 0) */
size_t rcm_linear_combo_size(const rc_linear *L);
rc_status rcm_linear_combo_factor(const rc_world *w, const rc_linear *L, double cM, double cC, double cK, double *F);
rc_status rcm_linear_combo_solve(const rc_linear *L, const double *F, double *x, int nrhs);
void rcm_linear_mul(const rc_linear *L, const double *A, const double *x, double *y);
rc_status rcm_gaps_detect(rc_world *w);
void rcm_gap_dot(const rc_world *w, const rc_contact *c, const double *v, double *u);
rc_status rcm_gap_assemble(rc_world *w, rc_contact *c, double kappa);
void rcm_gap_apply(const rc_world *w, const rc_contact *c, double *V, const double *dp);

/* fem_mesh.c: every node of a finite-element body in a triangle */
rc_status rcm_fem_orphan_check(const rc_fem_def *d, const char *what);

#endif /* RC_MODEL_LINEAR_H */
