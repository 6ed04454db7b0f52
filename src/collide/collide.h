/*
 * collide/collide.h -- contact detection at q_k (not public). Includes model.
 */
#ifndef RC_COLLIDE_H
#define RC_COLLIDE_H

#include "model/model.h"

/* collide.c: contact detection at q_k.
 * rcc_update_shapes refreshes world-frame caches from w->q.
 * rcc_detect fills w->contacts (ncontacts) with every contact whose
 * gap is <= margin (and every potential contact of named pairs), with key,
 * shapes, bodies, feature, law, point, n, gN, Hr set; sorted by key.
 * id/p are not set (the scheme matches them with the previous step). */
void rcc_update_shapes(rc_world *w);
/* Periodic boundary: move the rigid bodies whose x left [x0, x1) by +-L
 * (velocities kept), accounting the gravity potential of the move in E_wrap. */
void rcc_wrap(rc_world *w);
rc_status rcc_detect(rc_world *w);
/* detect3d.c: the contacts of a dim = 3 world at q_k whose gap is <= margin
 * into w->c3 (ids and warm start from the last step; model/contact3.h). */
rc_status rcc_detect3(rc_world *w, double margin);
/* shape3_poly.c: a polyhedron shape's rcc_poly3 (geom3d.h; body frame),
 * pointing into the world's store (valid until the next shape) */
struct rcc_poly3;
void rcc_shape3_poly(const rcm_c3 *c3, const rcm_shape3 *s, struct rcc_poly3 *p);

#endif /* RC_COLLIDE_H */
