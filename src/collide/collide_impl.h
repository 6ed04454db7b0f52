/*
 * collide/collide_impl.h -- what the collide layer's files share (not
 * public, not for other layers): collide.c (shape caches, detection's
 * entry), broad_phase.c (cell grid, candidate pairs and their order),
 * narrow_phase.c (one pair's contacts, the pass over the candidates).
 */
#ifndef RC_COLLIDE_IMPL_H
#define RC_COLLIDE_IMPL_H

#include "collide/collide.h"
#include "model/team.h"

#include <limits.h>
#include <stddef.h>


/* radius of a disk, 0 for a point contactor */
static inline double round_radius(const rc_shape *s) { return s->type == RC_SHAPE_DISK ? s->radius : 0.0; }

/* Periodic boundary: the shift k L (k integer) that brings x_b nearest to x_a
 * (0 without a periodic boundary). Every shape is narrower than L / 2, so two
 * shapes can touch through one image at most: this one. */
static inline double image_shift(double L, double x_a, double x_b)
{
    return L > 0.0 ? L * floor((x_a - x_b) / L + 0.5) : 0.0;
}

/* The shapes are large structs: fetch those about to be read a few
 * iterations ahead (the narrowphase reads the B's of the pairs, scattered). */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif
enum { PREFETCH_AHEAD = 8 };

/* collide.c: a shape's world-frame AABB (infinite for half-planes). */
void rcc_shape_aabb(const rc_shape *s, double bb[4]);
/* broad_phase.c: the candidate pairs in w->pairs (cell grid with margin m,
 * boxes inflated by bm; the named rules' pairs), sorted by (A, 2B + f). */
rc_status rcc_grid_pairs(rc_world *w, double m, double bm);
rc_status rcc_named_pairs(rc_world *w);
rc_status rcc_sort_pairs(rc_world *w);
/* broad_phase.c: room for need ints in w->pairs (the step's work memory) */
rc_status rcc_pairs_room(rc_world *w, long long need);
/* narrow_phase.c: broadphase, then the narrowphase of every candidate pair
 * into w->contacts (sorted by key). */
rc_status rcc_narrow_pairs(rc_world *w);
/* collide.c: detection on two threads when the solver has threads
 * (solver.threads > 1, OpenMP): the shapes' world-frame caches, the
 * broadphase's boxes and buckets, the narrowphase, each from model/team.h's
 * rcm_team_min items (rcm_team2); the result the one-thread one, bit for
 * bit. rcc_team_cap > 0 (tests): the second thread's buffers hold that many
 * pairs or contacts, so that it runs out of room. */
extern int rcc_team_cap;

#endif /* RC_COLLIDE_IMPL_H */
