/*
 * model/team.h -- whether a stage of the step runs on two threads (not
 * public): the one test that detection (collide/), the index set
 * (integrate/index_set.c) and the planar hot records' packing
 * (nonsmooth/nsgs_pack.c) share. Includes model.h only (scripts/check-layers).
 */
#ifndef RC_MODEL_TEAM_H
#define RC_MODEL_TEAM_H

#include "model/model.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* an OpenMP pragma; nothing without OpenMP */
#ifndef RC_OMP
#ifdef _OPENMP
#define RC_OMP(...) _Pragma(#__VA_ARGS__)
#else
#define RC_OMP(...)
#endif
#endif

/* world.c: the one knob, in items of a stage's loop (default 8192; tests set
 * 0 so that every stage takes two threads, then put it back). Each stage's n:
 *   collide.c    the shapes' world-frame caches    shapes (w->nshapes)
 *   broad_phase  the shapes' boxes and grid cells  shapes
 *                the pairs within the grid buckets grid entries
 *   narrow_phase the candidate pairs               2 x pairs (a pair's tests
 *                                                  weigh about two shapes':
 *                                                  from 4 096 pairs)
 *                the counting sort into buckets    grid entries
 *                big shapes against the grid list  grid shapes
 *   index_set.c  the contacts' local problems      contacts (w->ncontacts)
 *   nsgs_pack.c  the hot records' (un)packing      active contacts
 *                the candidate pairs' counting sort      candidate pairs
 *   step.c       the detection margin's largest speed   shapes
 *                the audit's contact works (eq. 68)     contacts
 *   slabs.c      the slabs order's passes          active contacts
 *   contacts_state.c      the match with the state  contacts
 *                         the state's records      contacts
 * Every stage gives the one-thread numbers bit for bit, whatever the knob. */
extern int rcm_team_min;

/* 1 when a stage of n items takes an OpenMP region of two threads: the
 * solver has threads (solver.threads > 1), n >= rcm_team_min, and no
 * OpenMP region is running already (a stage called from inside one stays
 * on its thread); 0 without OpenMP. */
static inline int rcm_team2(const rc_world *w, long long n)
{
#ifdef _OPENMP
    return w->sim.solver.threads > 1 && n >= rcm_team_min && !omp_in_parallel();
#else
    (void)w;
    (void)n;
    return 0;
#endif
}

#endif /* RC_MODEL_TEAM_H */
