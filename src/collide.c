/* collide.c -- STUB, being written. */
#include "rc_internal.h"
void rc_collide_update_shapes(rc_world *w) { (void)w; }
rc_status rc_collide_detect(rc_world *w) { w->ncontacts = 0; return RC_OK; }
int rc_collide_feature_count(const rc_shape *a, const rc_shape *b) { (void)a; (void)b; return 0; }
