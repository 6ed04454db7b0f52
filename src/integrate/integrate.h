/*
 * integrate/integrate.h -- the time step (not public): rc_world_step and the
 * explorer are public; the step reaches collide and nonsmooth. Includes the
 * layers below.
 */
#ifndef RC_INTEGRATE_H
#define RC_INTEGRATE_H

#include "collide/collide.h"
#include "nonsmooth/nonsmooth.h"

#endif /* RC_INTEGRATE_H */
