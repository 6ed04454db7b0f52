/* model/rigid3d.h -- spatial rigid bodies (RC_BODY_RIGID3D): their record
 * and kind (included by model/model.h; body3d.c, rigid3d.c). */
#ifndef RC_MODEL_RIGID3D_H
#define RC_MODEL_RIGID3D_H

/* A spatial rigid body's own record (w->rigid3d, found through
 * rc_body.linear): the constant force (world force, body torque) and the
 * inverse of the rotational block of the last free-velocity solve,
 * A = J + h theta ([W]x J - [J W]x) at W = the free Omega_{k+theta} (J^-1
 * before the first step): solve_mass applies it. */
typedef struct rcm_rigid3d {
    int body;
    double force[6];
    double Ainv[9];
} rcm_rigid3d;
extern const rcm_body_ops rcm_body_rigid3d;
void rcm_rigid3d_free(rc_world *w);
/* RC_OK in a planar world; in a dim = 3 world the error "WHAT: not available
 * in a world of dim = 3 yet" (what the spatial slice does not have yet:
 * shapes, joints, springs, linear bodies). */
rc_status rcm_planar_only(const rc_world *w, const char *what);

#include "model/contact3.h"   /* their shapes and contacts */
#include "model/joint3.h"     /* their joints */

#endif /* RC_MODEL_RIGID3D_H */
