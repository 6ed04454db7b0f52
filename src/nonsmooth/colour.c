/* colour.c -- the greedy colouring of NSGS's "colour" order, shared by the
 * planar contacts (nsgs.c) and the 3D contacts of a dim = 3 world
 * (nsgs3_order.c): items in the given order, each taking the smallest
 * colour that neither of its bodies has yet (a side < 0 is the ground or a
 * static obstacle and is shared freely): colours 0..63 as one bit mask per
 * body, beyond that one more than the largest colour either body has. Then
 * the items colour by colour, the given order kept within a colour (a
 * stable counting sort). Deterministic: depends on the items and their
 * bodies only. The per-body masks live in the world's work arena (no
 * allocation once it has grown). */
#include "nonsmooth/nonsmooth_impl.h"

rc_status rcn_colour_greedy(rc_world *w, const int *items, int n, rcn_colour_bodies bodies, int *colour, int *sweep,
                            int *start, int *ncolours)
{
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->body_colours, w->nbodies, sizeof(uint64_t), "colours"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->body_top, w->nbodies, sizeof(int), "colours"));
    uint64_t *mask = w->body_colours;
    int *top = w->body_top;
    for (int k = 0; k < n; k++) {   /* clear the bodies that will be read */
        int ab[2];
        bodies(w, items[k], ab);
        for (int s = 0; s < 2; s++)
            if (ab[s] >= 0) { mask[ab[s]] = 0; top[ab[s]] = 0; }
    }
    int ncol = 0;
    for (int k = 0; k < n; k++) {
        int ab[2];
        bodies(w, items[k], ab);
        const int a = ab[0], b = ab[1];
        const uint64_t used = (b >= 0 ? mask[b] : 0) | (a >= 0 ? mask[a] : 0);
        int col = 0;
        if (~used) {
            while (used >> col & 1u) col++;
        } else {
            if (b >= 0) col = top[b];
            if (a >= 0 && top[a] > col) col = top[a];
        }
        for (int s = 0; s < 2; s++) {
            const int x = ab[s];
            if (x < 0) continue;
            if (col < 64) mask[x] |= (uint64_t)1 << col;
            if (col + 1 > top[x]) top[x] = col + 1;
        }
        colour[k] = col;
        if (col + 1 > ncol) ncol = col + 1;
    }
    for (int k = 0; k <= ncol; k++) start[k] = 0;   /* counting sort, stable */
    for (int k = 0; k < n; k++) start[colour[k] + 1]++;
    for (int k = 0; k < ncol; k++) start[k + 1] += start[k];
    for (int k = 0; k < n; k++) sweep[start[colour[k]]++] = items[k];
    for (int k = ncol; k > 0; k--) start[k] = start[k - 1];   /* start[k] was the end of colour k */
    start[0] = 0;
    *ncolours = ncol;
    return RC_OK;
}

long rcn_colour_pass(int ncol, const int *start, int pmin, rcn_colour_range range, void *ctx)
{
    int tid = 0, nth = 1;
#ifdef _OPENMP
    tid = omp_get_thread_num();
    nth = omp_get_num_threads();
#endif
    long done = 0;
    for (int col = 0; col < ncol;) {
        if (start[col + 1] - start[col] >= pmin) {   /* shared by the threads: one block each */
            const long len = start[col + 1] - start[col];
            done += range(ctx, start[col] + (int)(len * tid / nth), start[col] + (int)(len * (tid + 1) / nth));
            RC_OMP(omp barrier)
            col++;
        } else {                                     /* small colours: one thread */
            int end = col + 1;
            while (end < ncol && start[end + 1] - start[end] < pmin) end++;
            RC_OMP(omp single)
            done += range(ctx, start[col], start[end]);
            col = end;
        }
    }
    return done;
}
