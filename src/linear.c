/* linear.c -- STUB (being written): linear Lagrangian bodies and gap contacts. */
#include "rc_internal.h"
rc_linear_def rc_default_linear_def(void) { rc_linear_def d; memset(&d, 0, sizeof d); return d; }
rc_status rc_linear_create(rc_world *w, const rc_linear_def *def, int *out_body) { (void)w; (void)def; (void)out_body; return rc_set_error(RC_ERR_STATE, "linear bodies: not implemented yet"); }
rc_status rc_linear_energy(const rc_world *w, int body, double *a, double *b) { (void)w; (void)body; (void)a; (void)b; return rc_set_error(RC_ERR_STATE, "not implemented yet"); }
rc_gap_def rc_default_gap_def(void) { rc_gap_def d; memset(&d, 0, sizeof d); return d; }
rc_status rc_gap_create(rc_world *w, const rc_gap_def *def, int *out_id) { (void)w; (void)def; (void)out_id; return rc_set_error(RC_ERR_STATE, "gap contacts: not implemented yet"); }
