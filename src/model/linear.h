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
/* linear_store.c: M, K, C dense (n x n) or a row band (n x (2 kd + 1)) */
size_t rcm_linear_store_size(const rc_linear *L);
rcm_linear_memo *rcm_linear_memo_new(int n);
rc_status rcm_linear_rows_build(rc_linear *L);
void rcm_linear_rows_free(rcm_linear_rows *r);
size_t rcm_linear_rows_memory(const rc_linear *L);
size_t rcm_linear_memo_size(int n);
double rcm_linear_entry(const rc_linear *L, const double *A, int i, int j);
double rcm_linear_row(const rc_linear *L, const double *A, int p, double alpha, double *y, const double *x);
double rcm_linear_quad(const rc_linear *L, const double *A, const double *x, double *scratch);
void rcm_linear_combo_fill(const rc_linear *L, double cM, double cC, double cK, double *F);
void rcm_band_pack(int n, int kd, const double *A, double *B);
void rcm_band_unpack(int n, int kd, const double *B, double *D);
int rcm_band_width(int n, int kd, const double *B);
void rcm_band_narrow(int n, int kd, int kd2, double *B);
/* linear_bc.c: prescribed coordinates, reactions */
void rcm_linear_bc_free(rcm_linear_bc *bc);
size_t rcm_linear_bc_memory(const rcm_linear_bc *bc);
int rcm_linear_bc_count(const rc_linear *L);
int rcm_linear_bc_version(const rc_linear *L);
void rcm_linear_bc_identity(const rc_linear *L, double *F, const int *idx, int m);
void rcm_linear_bc_apply_factor(const rc_linear *L, double *F);
void rcm_linear_bc_zero(const rc_linear *L, double *x, int nrhs);
rc_status rcm_linear_bc_rhs(rc_world *w, rc_linear *L, const rcm_free_coef *r, double *b);
void rcm_linear_bc_set(const rc_linear *L, double *V0);
void rcm_linear_bc_reactions(const rc_world *w, const rc_linear *L, const double *dv, const double *dq, const double *vth,
                             const double *F, double *qth);
double rcm_linear_support_work(const rc_world *w);
/* linear.c: a body from ready storage (takes tmpl's arrays, frees them on failure) */
rc_status rcm_linear_install(rc_world *w, const char *name, rc_linear *tmpl, const double *f, const double *q0,
                             const double *v0, int *out_body);
rc_status rcm_gaps_detect(rc_world *w);
void rcm_gap_dot(const rc_world *w, const rc_contact *c, const double *v, double *u);
rc_status rcm_gap_assemble(rc_world *w, rc_contact *c, double kappa);
void rcm_gap_apply(const rc_world *w, const rc_contact *c, double *V, const double *dp);

/* node_gap.c: node-to-surface gaps (g->node): g_N and the rows at q, the
 * contact's second body and frame, W and kappa Mhat^-1 H^T, the rigid side */
rc_status rcm_node_gap_eval(rc_world *w, rc_gap *g, double *gN);
void rcm_node_gap_contact(const rc_world *w, const rc_gap *g, rc_contact *c);
rc_status rcm_node_gap_assemble(rc_world *w, rc_contact *c, double kappa);
void rcm_node_gap_rigid_dot(const rc_world *w, const rc_gap *g, const double *v, double *un, double *ut);
void rcm_node_gap_rigid_apply(const rc_world *w, const rc_gap *g, double *V, const double *dp);
int rcm_node_gap_rigid_row(const rc_world *w, const rc_gap *g, int row, double h[3]);
void rcm_node_gap_free(struct rcm_node_gap *n);
double rcm_node_gap_margin(const rc_gap *g);
size_t rcm_node_gap_memory(const rc_world *w, const rc_gap *g);

/* fem_mesh.c: every node of a finite-element body in a triangle */
rc_status rcm_fem_orphan_check(const rc_fem_def *d, const char *what);

#include "model/nonlinear.h"   /* nonlinear bodies (RC_BODY_NONLINEAR: beams) */

#endif /* RC_MODEL_LINEAR_H */
