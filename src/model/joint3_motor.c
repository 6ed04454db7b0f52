/* joint3_motor.c -- motors of the joints of spatial bodies
 * (rc_joint3_set_motor; docs/theory/spatial.md, "Motors"), as planar motors
 * (joint_motor.c): a revolute joint's angle or a prismatic joint's slide,
 * its row H = d(coordinate)/dq (rcm_joint3_coord_row) taken with the joint's
 * rows (integrate/joints3.c), a box-constrained velocity row solved after the
 * joint's block in every sweep (nonsmooth/joint3_block.c):
 *     lambda = clamp(lambda - (H V - target) / W, -h F, h F),
 * target = speed (Moreau--Jean), (1 - theta) u_k + theta speed (MJF), W =
 * H kappa Mhat^-1 H^T; its work u_{k+theta} lambda is W_motor. */
#include "model/model.h"

#include <math.h>

rc_status rc_joint3_set_motor(rc_world *w, int id, int enabled, double speed, double max_force)
{
    const char *f = "rc_joint3_set_motor";
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: world is NULL", f);
    if (id < 0 || id >= rc_joint3_count(w)) return rc_set_error(RC_ERR_NOT_FOUND, "%s: no 3D joint %d", f, id);
    rcm_joint3 *j = &w->j3->j[id];
    const char *name = j->name ? j->name : "(unnamed)";
    if (j->type != RC_JOINT3_REVOLUTE && j->type != RC_JOINT3_PRISMATIC)
        return rc_set_error(RC_ERR_ARG, "%s: 3D joint '%s' is not a revolute or prismatic joint (a motor drives their coordinate)", f, name);
    if (j->drive)
        return rc_set_error(RC_ERR_ARG, "%s: 3D joint '%s' has a motion: its coordinate is prescribed, a motor cannot drive it", f, name);
    RC_CHECK(rc_joint_motor_check(speed, max_force, f, NULL, j->type == RC_JOINT3_REVOLUTE ? "max_torque" : "max_force"));
    j->motor = enabled != 0;
    j->motor_speed = speed;
    j->motor_max = max_force;
    if (!j->motor) j->motor_lambda = 0.0;
    return RC_OK;
}
