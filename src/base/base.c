/* base.c -- status and error messages, counted allocation, interrupts, the wall clock. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "base/base.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Thread_local char rc__error[1024];
static volatile sig_atomic_t rc__interrupt = 0;
static volatile sig_atomic_t rc__interrupt_signal = 0;   /* the first request's signal */
static uint64_t rc__allocs = 0;

const char *rc_last_error(void) { return rc__error; }

rc_status rc_set_error(rc_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rc__error, sizeof rc__error, fmt, ap);
    va_end(ap);
    return s;
}

const char *rc_status_name(rc_status s)
{
    switch (s) {
    case RC_OK: return "RC_OK";
    case RC_ERR_ARG: return "RC_ERR_ARG";
    case RC_ERR_STATE: return "RC_ERR_STATE";
    case RC_ERR_NOMEM: return "RC_ERR_NOMEM";
    case RC_ERR_NOT_FOUND: return "RC_ERR_NOT_FOUND";
    case RC_ERR_SOLVER: return "RC_ERR_SOLVER";
    case RC_ERR_CALLBACK: return "RC_ERR_CALLBACK";
    case RC_ERR_IO: return "RC_ERR_IO";
    case RC_ERR_INTERRUPTED: return "RC_ERR_INTERRUPTED";
    case RC_ERR_NUMERIC: return "RC_ERR_NUMERIC";
    case RC_ERR_LIMIT: return "RC_ERR_LIMIT";
    }
    return "RC_ERR_UNKNOWN";
}

void rc_request_interrupt(void) { rc__interrupt = 1; }
void rc_clear_interrupt(void) { rc__interrupt = 0; rc__interrupt_signal = 0; }
int rc_interrupt_requested(void) { return rc__interrupt != 0; }

void rc_request_interrupt_signal(int signo)
{
    if (!rc__interrupt && signo > 0) rc__interrupt_signal = signo;
    rc__interrupt = 1;
}

int rc_interrupt_signal(void) { return rc__interrupt ? (int)rc__interrupt_signal : 0; }

const char *rc_signal_name(int signo)
{
    switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
#ifdef SIGHUP
    case SIGHUP: return "SIGHUP";
#endif
#ifdef SIGQUIT
    case SIGQUIT: return "SIGQUIT";
#endif
#ifdef SIGUSR1
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
#endif
#ifdef SIGALRM
    case SIGALRM: return "SIGALRM";
#endif
#ifdef SIGXCPU
    case SIGXCPU: return "SIGXCPU";
#endif
#ifdef SIGPIPE
    case SIGPIPE: return "SIGPIPE";
#endif
    default: return NULL;
    }
}

uint64_t rc_alloc_count(void) { return rc__allocs; }

/* Allocation goes through the settable allocator (rc_set_allocator). Each
 * block starts with a header holding its size and the allocator that made
 * it: rcb_free needs no size from the caller, and the allocator may change
 * while blocks are alive. The header is a max_align_t wide, so that the
 * block after it keeps malloc's alignment. */
typedef union rc__block {
    struct {
        size_t n;           /* bytes asked for (without the header) */
        rc_alloc_fn fn;
        void *ud;
    } h;
    max_align_t align;
} rc__block;

static void *rc__std_alloc(void *ud, void *p, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, nsize);
}

static rc_alloc_fn rc__alloc_fn = rc__std_alloc;
static void *rc__alloc_ud = NULL;

void rc_set_allocator(rc_alloc_fn fn, void *ud)
{
    rc__alloc_fn = fn ? fn : rc__std_alloc;
    rc__alloc_ud = fn ? ud : NULL;
}

void rc_get_allocator(rc_alloc_fn *fn, void **ud)
{
    if (fn) *fn = rc__alloc_fn == rc__std_alloc ? NULL : rc__alloc_fn;
    if (ud) *ud = rc__alloc_ud;
}

void *rcb_malloc(size_t n)
{
    rc__allocs++;
    if (n > SIZE_MAX - sizeof(rc__block)) return NULL;
    rc_alloc_fn fn = rc__alloc_fn;
    void *ud = rc__alloc_ud;
    rc__block *b = fn(ud, NULL, 0, sizeof *b + n);
    if (!b) return NULL;
    b->h.n = n;
    b->h.fn = fn;
    b->h.ud = ud;
    return b + 1;
}

void *rcb_realloc(void *p, size_t n)
{
    if (!p) return rcb_malloc(n);
    rc__allocs++;
    rc__block *b = (rc__block *)p - 1;
    if (n > SIZE_MAX - sizeof *b) return NULL;
    rc__block *q = b->h.fn(b->h.ud, b, sizeof *b + b->h.n, sizeof *b + n);
    if (!q) return NULL;   /* p is untouched */
    q->h.n = n;
    return q + 1;
}

void rcb_free(void *p)
{
    if (!p) return;
    rc__block *b = (rc__block *)p - 1;
    b->h.fn(b->h.ud, b, sizeof *b + b->h.n, 0);
}

char *rcb_strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = rcb_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

rc_status rcb_reserve(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) return RC_OK;
    /* grow by a quarter, not by doubling, and by an eighth once the array
     * holds a megabyte: a large array's unused tail stays under a ninth of it
     * (the contact lists of 10^5 grains are tens of megabytes; the few more
     * reallocations while they grow cost little: glibc usually moves blocks
     * that large by remapping their pages, without copying) */
    long long g = *cap > 16 ? *cap : 16;
    while (g < need) g += (unsigned long long)g * elem >= (1u << 20) ? g / 8 : g / 4;
    int ncap = g > INT_MAX ? need : (int)g;
    void *p = rcb_realloc(*arr, (size_t)ncap * elem);
    if (!p) return rc_set_error(RC_ERR_NOMEM, "out of memory (%d elements of %zu bytes)", ncap, elem);
    *arr = p;
    *cap = ncap;
    return RC_OK;
}

void rcb_trim(void **arr, int *cap, int n, size_t elem)
{
    if (*cap - n <= n / 32 + 16) return;
    void *p = rcb_realloc(*arr, (size_t)(n > 0 ? n : 1) * elem);
    if (!p) return;
    *arr = p;
    *cap = n > 0 ? n : 1;
}

/* Whether this build has OpenMP (the coloured NSGS sweeps on threads). */
int rc_openmp(void)
{
#ifdef _OPENMP
    return 1;
#else
    return 0;
#endif
}

const char *rcb_show(char *buf, double x)
{
    if (x != x) return strcpy(buf, "nan");
    if (!rcb_finite(x)) return strcpy(buf, x > 0 ? "inf" : "-inf");
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, RCB_SHOW_SIZE, "%.*g", digits, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}

double rcb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
