/* model/fem_stress.h -- the element stress of finite-element bodies
 * (fem_stress.c), for the VTK writer (io/vtk_fem.c): part of the model
 * layer, included by the files that need it only. */
#ifndef RC_MODEL_FEM_STRESS_H
#define RC_MODEL_FEM_STRESS_H

#include "model/model.h"

/* D of the plane-stress or plane-strain law of def (E, nu, plane). */
void rcm_fem_elasticity(const rc_fem_def *def, double D[3][3]);
/* sigma = D B u_e (D: 3 x 3 row-major) of triangle t (3 0-based node indices into xy, 2 per
 * node), u_e = (u1 v1 u2 v2 u3 v3): s = (sigma_xx, sigma_yy, sigma_xy). */
void rcm_fem_element_stress(const double *D, const double *xy, const int *t, const double *ue, double s[3]);
/* The von Mises stress of s; plane strain: with sigma_zz = nu (sigma_xx +
 * sigma_yy), plane stress: sigma_zz = 0. */
double rcm_fem_von_mises(const double s[3], int plane, double nu);

#endif /* RC_MODEL_FEM_STRESS_H */
