/*
 * base/base.h -- the lowest layer (not public): the allocator, growing
 * arrays, the status check. Every internal header includes it first.
 *
 * Layers (each includes only the headers of the layers before it; checked by
 * scripts/check-layers): base < linalg < model < collide < nonsmooth
 * < integrate < io < lua, cli. See docs/architecture.md.
 */
#ifndef RC_BASE_H
#define RC_BASE_H

#include "ricochet.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void *rcb_malloc(size_t n);
void *rcb_realloc(void *p, size_t n);
void rcb_free(void *p);
char *rcb_strdup(const char *s);
/* Grow *arr (element size elem) to hold at least need elements (by a quarter;
 * by an eighth from a megabyte on). */
rc_status rcb_reserve(void **arr, int *cap, int need, size_t elem);
/* Shrink *arr to n elements when more than n / 32 + 16 are unused (a failed
 * reallocation keeps the larger block). */
void rcb_trim(void **arr, int *cap, int n, size_t elem);

/* arena.c: the work memory of a step (one block, reset at the start of each
 * step; what does not fit is a counted spill, and the next reset grows the
 * block to the step's peak). Pointers from it are valid until the next reset,
 * or until a release to a mark taken before them (rcb_arena_release). */
typedef struct rcb_arena {
    void *base;
    size_t cap, used;   /* bytes of base; handed out this step from base   */
    size_t level;       /* bytes held now (base and spills)                */
    size_t peak;        /* the most held at once this step (base and spills) */
    size_t top;         /* the most held at once by an earlier step         */
    size_t spilled;     /* bytes of the spills held now                    */
    struct rcb_spill { void *p; size_t n; } *spill;
    int nspill, cap_spill;
} rcb_arena;
/* A point to go back to: what was handed out after it is taken back whole. */
typedef struct rcb_arena_mark { size_t used, level; int nspill; } rcb_arena_mark;
rc_status rcb_arena_reset(rcb_arena *a);
void *rcb_arena_alloc(rcb_arena *a, size_t bytes);   /* 16-byte aligned; NULL: out of memory */
/* *out = count elements of elem bytes, or an RC_ERR_NOMEM naming what. */
rc_status rcb_arena_array(rcb_arena *a, void **out, long long count, size_t elem, const char *what);
rcb_arena_mark rcb_arena_mark_now(const rcb_arena *a);
void rcb_arena_release(rcb_arena *a, rcb_arena_mark m);
size_t rcb_arena_memory(const rcb_arena *a);
/* the most held at once by a step since the arena's creation (this step's included) */
static inline size_t rcb_arena_top(const rcb_arena *a) { return a->peak > a->top ? a->peak : a->top; }
void rcb_arena_free(rcb_arena *a);

/* A helper the compiler must inline (so that a constant argument, e.g. a
 * dimension, specialises its loops). */
#if defined(__GNUC__) || defined(__clang__)
#define RCB_INLINE inline __attribute__((always_inline))
#else
#define RCB_INLINE inline
#endif

#define RC_CHECK(x) do { rc_status rc__s = (x); if (rc__s != RC_OK) return rc__s; } while (0)

static inline int rcb_finite(double x) { return x - x == 0.0; }

/* the monotonic wall clock, in seconds (progress, the stages' times) */
double rcb_now_s(void);

/* x as the definitions' checks show it in a message (the shortest of %.15g,
 * %.16g, %.17g that reads back as x; nan, inf, -inf), as the Lua front end's
 * check.show does: "got 0.30000000000000004". buf holds RCB_SHOW_SIZE chars. */
#define RCB_SHOW_SIZE 32
const char *rcb_show(char *buf, double x);

#endif /* RC_BASE_H */
