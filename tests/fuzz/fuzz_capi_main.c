/*
 * fuzz_capi_main.c -- a plain driver for the C API harness (fuzz_capi.c),
 * for compilers without libFuzzer (gcc): the harness runs in the normal test
 * suite, and scripts/fuzz --capi N runs it for long.
 *
 *   fuzz_capi [--runs N] [--seed S] [--max-len L] [--timeout SEC] [FILE|DIR]...
 *
 * Replays every FILE (and every file of every DIR: a libFuzzer corpus, crash
 * files, tests/fuzz/corpus-capi), then runs N random inputs (default 1000, or
 * none when files are given without --runs): input i of seed S is a function
 * of (S, i) only, of length up to L bytes (default 1024). A crash, a failed
 * check (abort) or a sanitizer report prints which input it was (and writes
 * its bytes to crash-capi-S-I in the current folder, for replay); an input
 * using more than SEC seconds of CPU (default 20; CPU, not wall time, so that a
 * loaded machine does not turn a slow input into a "hang") is reported as a hang.
 * Exit status: 0 when every input passed.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern long long fuzz_capi_steps, fuzz_capi_contacts, fuzz_capi_overlaps;   /* fuzz_capi.c */

/* the sanitizers' hook for a report, when there is a sanitizer */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* UBSan (sanitizer build): a stack, and an abort, which on_signal reports */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "print_stacktrace=1:abort_on_error=1"; }

static const uint8_t *cur_data;
static size_t cur_size;
static unsigned long long cur_seed, cur_index;
static const char *cur_file;

/* async-signal-safe writing */
static void say(const char *s) { if (write(STDERR_FILENO, s, strlen(s)) < 0) { /* nothing to do */ } }

static void say_num(unsigned long long x)
{
    char b[32];
    int n = 0;
    do { b[n++] = (char)('0' + x % 10); x /= 10; } while (x);
    char out[32];
    for (int i = 0; i < n; i++) out[i] = b[n - 1 - i];
    out[n] = 0;
    say(out);
}

static void report(const char *what)
{
    say("fuzz_capi: ");
    say(what);
    if (cur_file) { say(" in file "); say(cur_file); say("\n"); return; }
    say(" in input ");
    say_num(cur_index);
    say(" of seed ");
    say_num(cur_seed);
    char name[96] = "crash-capi-";
    size_t k = strlen(name);
    char tmp[32];
    int n = 0;
    unsigned long long x = cur_seed;
    do { tmp[n++] = (char)('0' + x % 10); x /= 10; } while (x);
    while (n) name[k++] = tmp[--n];
    name[k++] = '-';
    x = cur_index;
    do { tmp[n++] = (char)('0' + x % 10); x /= 10; } while (x);
    while (n) name[k++] = tmp[--n];
    name[k] = 0;
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, cur_data, cur_size) < 0) { /* nothing to do */ }
        close(fd);
        say("; its bytes are in ");
        say(name);
        say(" (replay: fuzz_capi ");
        say(name);
        say(")");
    }
    say("\n");
}

static void on_death(void) { report("sanitizer report"); }

static void on_signal(int sig)
{
    report(sig == SIGPROF ? "hang (timeout)" : "crash (fatal signal)");
    signal(sig, SIG_DFL);
    raise(sig == SIGPROF ? SIGKILL : sig);
}

/* SIGPROF after sec seconds of the process's CPU time (0: off) */
static void cpu_alarm(int sec)
{
    struct itimerval t = { { 0, 0 }, { sec, 0 } };
    setitimer(ITIMER_PROF, &t, NULL);
}

static unsigned long long xs;
static unsigned long long next(void)
{
    xs ^= xs >> 12; xs ^= xs << 25; xs ^= xs >> 27;
    return xs * 0x2545F4914F6CDD1DULL;
}

static int run_file(const char *path, int timeout)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "fuzz_capi: cannot open %s: %s\n", path, strerror(errno)); return 1; }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) { fclose(f); return 1; }
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) { uint8_t *nb = realloc(buf, cap *= 2); if (!nb) { free(buf); fclose(f); return 1; } buf = nb; }
    }
    fclose(f);
    cur_file = path;
    cur_data = buf;
    cur_size = n;
    cpu_alarm(timeout);
    LLVMFuzzerTestOneInput(buf, n);
    cpu_alarm(0);
    cur_file = NULL;
    free(buf);
    return 0;
}

static int run_path(const char *path, int timeout, long *files)
{
    struct stat st;
    if (stat(path, &st) != 0) { fprintf(stderr, "fuzz_capi: %s: %s\n", path, strerror(errno)); return 1; }
    if (!S_ISDIR(st.st_mode)) { (*files)++; return run_file(path, timeout); }
    DIR *d = opendir(path);
    if (!d) return 1;
    struct dirent *e;
    int bad = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        bad |= run_path(p, timeout, files);
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    unsigned long long runs = 1000, seed = 1;
    int runs_given = 0, paths = 0;
    size_t max_len = 1024;
    int timeout = 20, bad = 0;
    long files = 0;
    signal(SIGPROF, on_signal);
    signal(SIGABRT, on_signal);          /* failed checks, UBSan */
    if (!__sanitizer_set_death_callback) {
        signal(SIGSEGV, on_signal);
        signal(SIGBUS, on_signal);
        signal(SIGFPE, on_signal);
        signal(SIGILL, on_signal);
    } else {
        __sanitizer_set_death_callback(on_death);   /* ASan reports */
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--runs") && v) { runs = strtoull(v, NULL, 10); runs_given = 1; i++; }
        else if (!strcmp(a, "--seed") && v) { seed = strtoull(v, NULL, 10); i++; }
        else if (!strcmp(a, "--max-len") && v) { max_len = (size_t)strtoull(v, NULL, 10); i++; }
        else if (!strcmp(a, "--timeout") && v) { timeout = atoi(v); i++; }
        else if (!strcmp(a, "--help")) {
            printf("usage: fuzz_capi [--runs N] [--seed S] [--max-len L] [--timeout SEC] [FILE|DIR]...\n");
            return 0;
        } else if (a[0] == '-') { fprintf(stderr, "fuzz_capi: unknown option %s\n", a); return 2; }
        else { bad |= run_path(a, timeout, &files); paths = 1; }
    }
    if (paths && !runs_given) runs = 0;   /* files only */
    if (max_len == 0) max_len = 1;
    uint8_t *buf = malloc(max_len);
    if (!buf) return 2;
    cur_seed = seed;
    unsigned long long bytes = 0;
    for (unsigned long long i = 0; i < runs; i++) {
        xs = (seed * 0x9E3779B97F4A7C15ULL) ^ (i * 0xD1B54A32D192ED03ULL) ^ 0x632BE59BD9B4E019ULL;
        if (!xs) xs = 1;
        for (int k = 0; k < 4; k++) next();
        size_t n = (size_t)(next() % (max_len + 1));
        for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)(next() >> 56);
        cur_index = i;
        cur_data = buf;
        cur_size = n;
        bytes += n;
        cpu_alarm(timeout);
        LLVMFuzzerTestOneInput(buf, n);
        cpu_alarm(0);
    }
    free(buf);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("fuzz_capi: %ld files and %llu random inputs (seed %llu, up to %zu bytes, %llu bytes in all) in %.1f s: no failure; "
           "%lld successful steps checked (%lld contacts), %lld overlapping shape pairs checked\n",
           files, runs, seed, max_len, bytes, secs, fuzz_capi_steps, fuzz_capi_contacts, fuzz_capi_overlaps);
    return bad;
}
