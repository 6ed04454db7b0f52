/*
 * model/beam.h -- what the step (integrate/) asks of the beams' joints
 * (src/model/beam_joint.c), beside model/model.h: their rows in all, their
 * rows from row on (g, G dense n wide, dg/dt) at X, t, and the multipliers of
 * a step (as rci_joints_take_multipliers; returns their work).
 */
#ifndef RC_MODEL_BEAM_H
#define RC_MODEL_BEAM_H

#include "model/model.h"

int rcm_beam_joint_rows(const rc_world *w);
rc_status rcm_beam_joint_eval(rc_world *w, int n, const double *X, double t, int row, double *g, double *G, double *gt);
double rcm_beam_joint_take(rc_world *w, int row, const double *G, int n, const double *vm, double h, const double *L,
                           const double *l);

#endif /* RC_MODEL_BEAM_H */
