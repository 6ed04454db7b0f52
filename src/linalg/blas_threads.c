/* blas_threads.c -- one BLAS thread: OpenBLAS's pthread build (Debian's default
 * libopenblas0-pthread, selected by update-alternatives for libblas.so.3 and
 * liblapack.so.3) wakes its worker threads for the factorisations of M-hat,
 * and a woken worker then spins (sched_yield) for about 2^28 cycles (~0.1 s of
 * CPU) before it sleeps again -- more CPU than a small run's whole computation.
 * The kernel's matrices are small and factorised once: before the first LAPACK
 * call, the BLAS is set to one thread (openblas_set_num_threads(1), looked up
 * with dlsym: the library may be another BLAS, chosen at run time by the
 * alternatives system, that has no such function). An explicit
 * OPENBLAS_NUM_THREADS in the environment is left as the user set it.
 * docs/install.md, "BLAS threads". */
#define _GNU_SOURCE
#include "linalg/linalg.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef void (*rc__set_threads_fn)(int);

static rc__set_threads_fn rc__find_set_threads(void)
{
    /* the global scope first (the ricochet program, a C host), then the
     * libraries already loaded (the Lua module loads its dependencies with
     * RTLD_LOCAL: not in the global scope) */
    static const char *const libs[] = { "libopenblas.so.0", "liblapack.so.3", "libblas.so.3" };
    void *f = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    for (size_t i = 0; !f && i < sizeof libs / sizeof libs[0]; i++) {
        void *h = dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        f = dlsym(h, "openblas_set_num_threads");
        dlclose(h);   /* NOLOAD took a reference: give it back (the library stays loaded) */
    }
    rc__set_threads_fn fn;
    *(void **)&fn = f;   /* (POSIX: a function pointer through a data pointer) */
    return fn;
}

void rcl_blas_one_thread(void)
{
    static atomic_int done = 0;
    if (atomic_exchange(&done, 1)) return;
    if (getenv("OPENBLAS_NUM_THREADS")) return;
    rc__set_threads_fn fn = rc__find_set_threads();
    if (fn) fn(1);
}
