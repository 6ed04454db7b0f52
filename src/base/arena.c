/* arena.c -- the work memory of a step: one block handed out front to back
 * and taken back whole at the start of the next step (rcb_arena_reset), in
 * the spirit of Box2D v3's arena allocator. A request that does not fit
 * gets a block of its own (a "spill", counted); the next reset frees the
 * spills and grows the block to the step's peak with a quarter to spare, so
 * that once a run's sizes settle a step allocates nothing (an eighth was
 * tried: the packed pile's second step then outgrew its first's block by
 * more, spilled, and the third step's block came out larger). Scratch done
 * with inside the step (the broadphase's grid and pairs) is taken back by a
 * release to a mark taken before it, so that what the step asks for later
 * reuses its bytes: the peak is the most held at once, not the sum of the
 * requests. */
#include "base/base.h"

#include <stdint.h>

#define ARENA_ALIGN 16

static size_t align_up(size_t n) { return (n + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1); }

static void free_spills(rcb_arena *a, int from)
{
    for (int i = from; i < a->nspill; i++) {
        rcb_free(a->spill[i].p);
        a->spilled -= a->spill[i].n;
    }
    a->nspill = from;
}

rc_status rcb_arena_reset(rcb_arena *a)
{
    free_spills(a, 0);
    if (a->peak > a->top) a->top = a->peak;
    if (a->peak > a->cap) {
        size_t want = a->peak + a->peak / 4;
        rcb_free(a->base);   /* nothing in it outlives a reset: no copy */
        a->base = rcb_malloc(want);
        a->cap = a->base ? want : 0;
        if (!a->base) {
            a->used = a->level = a->peak = 0;
            return rc_set_error(RC_ERR_NOMEM, "out of memory (the step's work memory, %zu bytes)", want);
        }
    }
    a->used = 0;
    a->level = 0;
    a->peak = 0;
    return RC_OK;
}

void *rcb_arena_alloc(rcb_arena *a, size_t bytes)
{
    size_t n = align_up(bytes ? bytes : 1);
    if (n < bytes) return NULL;   /* overflow */
    a->level += n;   /* held now; the peak: what this step needs in one block */
    if (a->level > a->peak) a->peak = a->level;
    if (a->base && a->cap - a->used >= n) {
        void *p = (char *)a->base + a->used;
        a->used += n;
        return p;
    }
    if (a->nspill == a->cap_spill) {
        int c = a->cap_spill ? 2 * a->cap_spill : 8;
        struct rcb_spill *s = rcb_realloc(a->spill, (size_t)c * sizeof *s);
        if (!s) return NULL;
        a->spill = s;
        a->cap_spill = c;
    }
    void *p = rcb_malloc(n);
    if (p) {
        a->spill[a->nspill].p = p;
        a->spill[a->nspill++].n = n;
        a->spilled += n;
    }
    return p;
}

rc_status rcb_arena_array(rcb_arena *a, void **out, long long count, size_t elem, const char *what)
{
    *out = NULL;
    if (count < 0 || (elem && (unsigned long long)count > SIZE_MAX / elem))
        return rc_set_error(RC_ERR_NOMEM, "out of memory (%s: %lld elements)", what, count);
    *out = rcb_arena_alloc(a, (size_t)count * elem);
    if (!*out) return rc_set_error(RC_ERR_NOMEM, "out of memory (%s: %lld elements)", what, count);
    return RC_OK;
}

rcb_arena_mark rcb_arena_mark_now(const rcb_arena *a)
{
    const rcb_arena_mark m = { a->used, a->level, a->nspill };
    return m;
}

void rcb_arena_release(rcb_arena *a, rcb_arena_mark m)
{
    free_spills(a, m.nspill);
    a->used = m.used;
    a->level = m.level;
}

size_t rcb_arena_memory(const rcb_arena *a)
{
    return a->cap + (size_t)a->cap_spill * sizeof *a->spill + a->spilled;
}

void rcb_arena_free(rcb_arena *a)
{
    free_spills(a, 0);
    rcb_free(a->spill);
    rcb_free(a->base);
    memset(a, 0, sizeof *a);
}
