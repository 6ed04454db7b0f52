/* joint.c -- STUB (being written): bilateral joints. */
#include "rc_internal.h"
rc_joint_def rc_default_joint_def(void) { rc_joint_def d; memset(&d, 0, sizeof d); d.type = RC_JOINT_REVOLUTE; d.length = -1; d.angle = NAN; d.axis[0] = 1; return d; }
rc_status rc_joint_create(rc_world *w, const rc_joint_def *def, int *out_id) { (void)w; (void)def; (void)out_id; return rc_set_error(RC_ERR_STATE, "joints: not implemented yet"); }
int rc_joint_count(const rc_world *w) { (void)w; return 0; }
rc_status rc_joint_find(const rc_world *w, const char *name, int *out_id) { (void)w; (void)name; (void)out_id; return rc_set_error(RC_ERR_NOT_FOUND, "no joint"); }
rc_status rc_joint_get(const rc_world *w, int id, rc_joint_info *info) { (void)w; (void)id; (void)info; return rc_set_error(RC_ERR_NOT_FOUND, "no joint"); }
const char *rc_joint_name(const rc_world *w, int id) { (void)w; (void)id; return NULL; }
rc_spring_def rc_default_spring_def(void) { rc_spring_def d; memset(&d, 0, sizeof d); d.type = RC_SPRING_LINEAR; d.rest_length = -1; d.rest_angle = NAN; return d; }
rc_status rc_spring_create(rc_world *w, const rc_spring_def *def, int *out_id) { (void)w; (void)def; (void)out_id; return rc_set_error(RC_ERR_STATE, "springs: not implemented yet"); }
