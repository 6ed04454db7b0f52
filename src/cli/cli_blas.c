/* cli_blas.c -- the program runs its BLAS on one thread and stops the idle
 * worker that OpenBLAS's pthread build (Debian's libopenblas0-pthread, the
 * default provider of libblas.so.3 / liblapack.so.3) starts when it loads:
 * that worker spins (sched_yield) for about 2^28 cycles before it sleeps, up
 * to a third of the CPU time of a small run, though the kernel's matrices are
 * small and factorised once. Before anything else, main() sets one thread
 * (openblas_set_num_threads(1)), joins the worker (blas_thread_shutdown_,
 * what OpenBLAS itself runs in a child after fork) and sets the pool's size
 * (blas_num_threads) to 1, so that the pool OpenBLAS builds again at its
 * first buffer allocation has no worker. All three are looked up with
 * dlsym: another BLAS (reference, BLIS, chosen by update-alternatives) has
 * neither, and then nothing is done. An OPENBLAS_NUM_THREADS set in the
 * environment is left as it is (OpenBLAS read it at load). The library does
 * the first part only, before its first LAPACK call (src/linalg/blas_threads.c):
 * a host's other threads may be inside the BLAS. docs/install.md, "BLAS threads". */
#define _GNU_SOURCE
#include "cli/cli.h"

#include <dlfcn.h>
#include <stdlib.h>

void rc_cli_blas_one_thread(void)
{
    if (getenv("OPENBLAS_NUM_THREADS")) return;
    void *set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    void *stop = dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    if (!set) return;   /* not OpenBLAS */
    void (*set_fn)(int);
    *(void **)&set_fn = set;   /* (POSIX: a function pointer through a data pointer) */
    set_fn(1);
    /* the pool is re-created at OpenBLAS's next buffer allocation (the first
     * factorisation) with blas_num_threads - 1 workers: 1 creates none */
    int *pool = dlsym(RTLD_DEFAULT, "blas_num_threads");
    if (stop && pool) {
        int (*stop_fn)(void);
        *(void **)&stop_fn = stop;
        if (stop_fn() == 0) *pool = 1;
    }
}
