/*
 * fuzz_lua.c -- the driver of the Lua API fuzzer (docs/security.md, "Fuzzing").
 *
 *   fuzz_lua [--count N] [--seed S] [--jobs J] [--timeout SEC] [--strict] [--quiet]
 *   fuzz_lua --case SEED [--repeat K]  run one case (K times: a use after free may
 *                             crash only sometimes) and show everything it wrote
 *   fuzz_lua --print SEED     print the case's script (runs with lua5.4 as is)
 *
 * The cases are Lua scripts made by tests/fuzz/lua_fuzz.lua from their seed.
 * The driver loads the generator and the ricochet module once (the module's
 * C half from package.cpath, as lua5.4 does), then runs every case in a fresh
 * child process (fork): the child runs the script under lua_pcall, closes its
 * Lua state (every __gc, the module's dlclose: what lua5.4 does at exit) and
 * exits. A case passes when it completes or raises a Lua error; it fails on
 *   - a crash (a signal) or a sanitizer report (ASan/UBSan/LSan: a status
 *     other than the driver's own, or a report in its stderr),
 *   - a hang (no exit within --timeout seconds: SIGALRM),
 *   - a silent non-finite state (status 42: a step returned success and left
 *     a q, v or t not finite; the case's prelude checks every step),
 *   - with --strict, an internal error (status 43: an error raised from inside
 *     the files of lua/ricochet/ by Lua itself, i.e. an argument that no check caught).
 * A failure prints the seed, the class and the child's stderr; the case is
 * replayed by `fuzz_lua --case SEED` (scripts/fuzz --case SEED).
 *
 * Environment: RC_FUZZ_LUA_PATH, RC_FUZZ_LUA_CPATH (package.path / cpath;
 * default: this tree's lua/ and tests/fuzz/, and the build's lua/ folder).
 * Exit status: 0 when every case passed, 1 on a failure, 2 on a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RC_FUZZ_SOURCE_DIR
#define RC_FUZZ_SOURCE_DIR "."
#endif
#ifndef RC_FUZZ_BINARY_DIR
#define RC_FUZZ_BINARY_DIR "build"
#endif

/* LeakSanitizer's check and ASan's entry, present in the sanitizer build only */
extern void __lsan_do_leak_check(void) __attribute__((weak));
extern void __asan_init(void) __attribute__((weak));

enum { ST_DONE = 0, ST_RAISED = 3, ST_NONFINITE = 42, ST_INTERNAL = 43, ST_SETUP = 44 };
enum { MAX_JOBS = 64 };

typedef struct opts {
    long long seed, count;
    int jobs, timeout, strict, quiet;
} opts;

typedef struct slot {
    pid_t pid;
    long long seed;
    char dir[512], err[512], stat[512];
    struct timespec t0;
} slot;

static char base_dir[256];
static lua_State *volatile parent_L;   /* the driver's state, reachable until exit (volatile: kept) */

/* ---------------------------------------------------------------- files */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void rm_tree(const char *path) { nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* print at most `max` lines of a file to stderr (the child's stderr) */
static void show_file(const char *path, int max, int skip_warnings)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[2048];
    int n = 0, skipped = 0;
    while (fgets(line, sizeof line, f)) {
        if (skip_warnings && strncmp(line, "ricochet: warning:", 18) == 0) { skipped++; continue; }
        if (n++ >= max) { fprintf(stderr, "    ... (more in the case's stderr)\n"); break; }
        fprintf(stderr, "    %s", line);
        size_t len = strlen(line);
        if (len && line[len - 1] != '\n') fputc('\n', stderr);
    }
    if (skipped) fprintf(stderr, "    (%d kernel warnings not shown)\n", skipped);
    fclose(f);
}

static int file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

/* A short signature of a failure, to group failures by cause: the first
 * sanitizer line (UBSan "file:line: runtime error: ...", ASan's error kind
 * and first frame in this project's sources), the non-finite message, or the
 * class. */
static void signature(const char *err, const char *cls, char *sig, size_t n)
{
    snprintf(sig, n, "%.200s", cls);
    FILE *f = fopen(err, "r");
    if (!f) return;
    char line[4096], kind[256] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *p;
        if ((p = strstr(line, "runtime error:")) != NULL) {
            char *start = line;
            while (*start == ' ') start++;
            char *slash = NULL;
            for (char *q = start; q < p; q++) if (*q == '/') slash = q;
            snprintf(sig, n, "UBSan: %.200s", slash ? slash + 1 : start);
            break;
        }
        if ((p = strstr(line, "ERROR: AddressSanitizer: ")) != NULL || (p = strstr(line, "ERROR: LeakSanitizer: ")) != NULL) {
            char *k = strstr(p, "Sanitizer: ") + 11;
            size_t m = strcspn(k, " ");
            if (strstr(p, "Leak")) { snprintf(kind, sizeof kind, "LSan: leak"); }
            else snprintf(kind, sizeof kind, "ASan: %.*s", (int)m, k);
            snprintf(sig, n, "%.200s", kind);
            continue;
        }
        if (kind[0] && (p = strstr(line, " in ")) != NULL && strstr(line, "#") &&
            (strstr(line, "/src/") || strstr(line, "/tests/")) && !strstr(line, "libsanitizer")) {
            char *file = strrchr(line, '/');
            size_t fn = strcspn(p + 4, " ");
            snprintf(sig, n, "%.60s in %.*s (%.60s)", kind, (int)(fn > 80 ? 80 : fn), p + 4, file ? file + 1 : "?");
            break;
        }
        if ((p = strstr(line, "FUZZ-INTERNAL: ")) != NULL && !strcmp(cls, "internal error")) {
            char *file = strstr(p, "ricochet/");   /* "ricochet/init.lua:123: message" */
            snprintf(sig, n, "internal error: %.160s", file ? file : p + 15);
            break;
        }
        if ((p = strstr(line, "FUZZ-NONFINITE: ")) != NULL) {
            snprintf(sig, n, "non-finite state: %.200s", p + 16);
            char *num = strpbrk(sig, "0123456789");   /* "body 3: v[1]" -> one class */
            if (num) *num = 0;
            break;
        }
    }
    fclose(f);
}

typedef struct sigcount { char sig[256]; long long count, first_seed; } sigcount;
enum { MAX_SIGS = 64 };
static sigcount sigs[MAX_SIGS];
static int nsigs;

static void count_signature(const char *sig, long long seed)
{
    for (int i = 0; i < nsigs; i++)
        if (!strcmp(sigs[i].sig, sig)) { sigs[i].count++; return; }
    if (nsigs == MAX_SIGS) return;
    snprintf(sigs[nsigs].sig, sizeof sigs[nsigs].sig, "%s", sig);
    sigs[nsigs].count = 1;
    sigs[nsigs].first_seed = seed;
    nsigs++;
}

/* ---------------------------------------------------------------- the Lua side */

static void set_path(lua_State *L, const char *field, const char *env, const char *dflt)
{
    const char *v = getenv(env);
    lua_getglobal(L, "package");
    lua_pushstring(L, v && *v ? v : dflt);
    lua_setfield(L, -2, field);
    lua_pop(L, 1);
}

/* A state with the generator and the ricochet module loaded; NULL on error. */
static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();
    if (!L) return NULL;
    luaL_openlibs(L);
    set_path(L, "path", "RC_FUZZ_LUA_PATH",
             RC_FUZZ_SOURCE_DIR "/lua/?.lua;" RC_FUZZ_SOURCE_DIR "/lua/?/init.lua;"
             RC_FUZZ_SOURCE_DIR "/tests/fuzz/?.lua");
    set_path(L, "cpath", "RC_FUZZ_LUA_CPATH", RC_FUZZ_BINARY_DIR "/lua/?.so");
    /* generator at registry["fuzz.generate"], the module preloaded */
    if (luaL_dostring(L, "local g = require 'lua_fuzz'; require 'ricochet'; return g.generate") != LUA_OK) {
        fprintf(stderr, "fuzz_lua: cannot load the generator or the module: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return NULL;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "fuzz.generate");
    return L;
}

/* The text of case `seed` (a copy, to free), NULL on error. */
static char *generate(lua_State *L, long long seed, size_t *len)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "fuzz.generate");
    lua_pushinteger(L, (lua_Integer)seed);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_isstring(L, -1)) {
        fprintf(stderr, "fuzz_lua: the generator failed for seed %lld: %s\n", seed, lua_tostring(L, -1));
        lua_pop(L, 1);
        return NULL;
    }
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    char *copy = malloc(n + 1);
    if (copy) { memcpy(copy, s, n + 1); *len = n; }
    lua_pop(L, 1);
    return copy;
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    luaL_traceback(L, L, msg ? msg : "(an error object that is not a string)", 1);
    return 1;
}

/* Without ASan (which reports them itself): a crash prints the stack */
static void crash_handler(int sig)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    static const char head[] = "FUZZ-CRASH: fatal signal; stack:\n";
    if (write(STDERR_FILENO, head, sizeof head - 1) < 0) { /* nothing to do */ }
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_crashes(void)
{
    if (__asan_init) return;
    void *warm[2];
    backtrace(warm, 2);           /* loads libgcc now, not in the handler */
    signal(SIGSEGV, crash_handler);
    signal(SIGBUS, crash_handler);
    signal(SIGFPE, crash_handler);
    signal(SIGILL, crash_handler);
    signal(SIGABRT, crash_handler);
}

/* In the child: run the case, write "steps internal\n" to statfd, exit. */
static void run_child(lua_State *L, const char *text, size_t len, long long seed, int statfd, int strict)
{
    char name[64];
    snprintf(name, sizeof name, "=case %lld", seed);
    lua_pushcfunction(L, traceback);
    int status = ST_DONE;
    if (luaL_loadbuffer(L, text, len, name) != LUA_OK) {
        fprintf(stderr, "fuzz_lua: case %lld does not compile: %s\n", seed, lua_tostring(L, -1));
        _exit(ST_SETUP);
    }
    if (lua_pcall(L, 0, 0, -2) != LUA_OK) {
        fprintf(stderr, "fuzz_lua: case %lld raised: %s\n", seed, lua_tostring(L, -1));
        status = ST_RAISED;
    }
    lua_settop(L, 0);
    /* FZ is a global of the case's prelude */
    lua_Integer steps = 0, internal = 0;
    if (lua_getglobal(L, "FZ") == LUA_TTABLE) {
        lua_getfield(L, -1, "steps");
        steps = lua_tointeger(L, -1);
        lua_getfield(L, -2, "internal");
        internal = lua_tointeger(L, -1);
    }
    lua_settop(L, 0);
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%lld %lld\n", (long long)steps, (long long)internal);
    if (write(statfd, buf, (size_t)n) != n) { /* the parent then counts no steps */ }
    close(statfd);
    fflush(stdout);
    fflush(stderr);
    /* the case's worlds are garbage now: collect them (rc_world_destroy), then
     * the leak check of the sanitizer build, while the module is still loaded
     * (after its dlclose, what its libraries keep for good would look lost) */
    lua_pushnil(L);
    lua_setglobal(L, "FZ");
    lua_gc(L, LUA_GCCOLLECT, 0);
    lua_gc(L, LUA_GCCOLLECT, 0);
    if (__lsan_do_leak_check) __lsan_do_leak_check();
    lua_close(L);                 /* __gc of every world, dlclose of the module */
    if (strict && internal > 0) status = ST_INTERNAL;
    exit(status);                 /* atexit and library destructors, as lua5.4 */
}

/* ---------------------------------------------------------------- cases */

static int start_case(lua_State *L, slot *s, int idx, long long seed, const opts *o, int show)
{
    size_t len = 0;
    char *text = generate(L, seed, &len);
    if (!text) return -1;
    snprintf(s->dir, sizeof s->dir, "%s/job%d", base_dir, idx);
    snprintf(s->err, sizeof s->err, "%s/job%d.stderr", base_dir, idx);
    snprintf(s->stat, sizeof s->stat, "%s/job%d.stat", base_dir, idx);
    rm_tree(s->dir);
    if (mkdir(s->dir, 0700) != 0) {
        fprintf(stderr, "fuzz_lua: cannot create %s: %s\n", s->dir, strerror(errno));
        free(text);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "fuzz_lua: fork: %s\n", strerror(errno));
        free(text);
        return -1;
    }
    if (pid == 0) {
        int statfd = open(s->stat, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (chdir(s->dir) != 0) _exit(ST_SETUP);
        if (!show) {
            int null = open("/dev/null", O_WRONLY);
            int err = open(s->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (null < 0 || err < 0) _exit(ST_SETUP);
            dup2(null, STDOUT_FILENO);
            dup2(err, STDERR_FILENO);
            close(null);
            close(err);
        }
        signal(SIGALRM, SIG_DFL);
        catch_crashes();
        alarm((unsigned)o->timeout);
        run_child(L, text, len, seed, statfd, o->strict);
    }
    free(text);
    s->pid = pid;
    s->seed = seed;
    clock_gettime(CLOCK_MONOTONIC, &s->t0);
    return 0;
}

typedef struct tally {
    long long cases, done, raised, failures, steps, internal, internal_cases;
    long long by_class[6];
    long long slowest_seed;
    double slowest;
} tally;

static const char *class_names[6] = { "crash", "sanitizer report", "hang", "non-finite state", "internal error", "setup" };

/* Classify a finished child; returns 1 when the case failed. */
static int finish_case(slot *s, int wstatus, tally *t, const opts *o, int show)
{
    long long steps = 0, internal = 0;
    FILE *f = fopen(s->stat, "r");
    if (f) {
        if (fscanf(f, "%lld %lld", &steps, &internal) != 2) steps = internal = 0;
        fclose(f);
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - s->t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - s->t0.tv_nsec);
    if (secs > t->slowest) { t->slowest = secs; t->slowest_seed = s->seed; }
    t->cases++;
    t->steps += steps;
    t->internal += internal;
    if (internal > 0) t->internal_cases++;
    int cls = -1;   /* index in class_names, -1: pass */
    char what[128] = "";
    const int san = !show && (file_has(s->err, "Sanitizer") || file_has(s->err, "runtime error:"));
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        if (sig == SIGALRM) { cls = 2; snprintf(what, sizeof what, "no exit within %d s", o->timeout); }
        else { cls = san ? 1 : 0; snprintf(what, sizeof what, "signal %d (%s)", sig, strsignal(sig)); }
    } else if (WIFEXITED(wstatus)) {
        int code = WEXITSTATUS(wstatus);
        if (code == ST_DONE || code == ST_RAISED) {
            if (san) { cls = 1; snprintf(what, sizeof what, "exit %d with a report", code); }
            else if (code == ST_DONE) t->done++;
            else t->raised++;
        } else if (code == ST_NONFINITE) { cls = 3; snprintf(what, sizeof what, "a successful step left a non-finite state"); }
        else if (code == ST_INTERNAL) { cls = 4; snprintf(what, sizeof what, "%lld internal errors", internal); }
        else if (code == ST_SETUP) { cls = 5; snprintf(what, sizeof what, "the case could not be set up"); }
        else { cls = san ? 1 : 0; snprintf(what, sizeof what, "exit status %d", code); }
    }
    if (cls >= 0) {
        t->failures++;
        t->by_class[cls]++;
        char sig[256];
        if (cls == 2) snprintf(sig, sizeof sig, "hang");
        else signature(s->err, cls == 0 ? what : class_names[cls], sig, sizeof sig);
        count_signature(sig, s->seed);
        fprintf(stderr, "fuzz_lua: FAIL case %lld: %s: %s\n", s->seed, class_names[cls], what);
        if (!show) show_file(s->err, 60, 1);
        fprintf(stderr, "  replay: scripts/fuzz --case %lld   (script: scripts/fuzz --print %lld)\n", s->seed, s->seed);
    } else if (show) {
        fprintf(stderr, "fuzz_lua: case %lld passed (%s, %lld steps, %lld internal errors)\n", s->seed,
                WEXITSTATUS(wstatus) == ST_DONE ? "completed" : "raised", steps, internal);
    }
    s->pid = 0;
    rm_tree(s->dir);
    return cls >= 0;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
    fprintf(f, "usage: fuzz_lua [--count N] [--seed S] [--jobs J] [--timeout SEC] [--strict] [--quiet]\n"
               "       fuzz_lua --case SEED [--repeat K] | --print SEED\n");
}

static long long parse_ll(const char *s, const char *opt)
{
    char *end;
    errno = 0;
    long long v = strtoll(s ? s : "", &end, 10);
    if (!s || !*s || *end || errno) {
        fprintf(stderr, "fuzz_lua: %s needs an integer (got '%s')\n", opt, s ? s : "");
        usage(stderr);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    opts o = { 1, 1000, 1, 30, 0, 0 };
    long long one = -1, print = -1, repeat = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--count")) { o.count = parse_ll(v, a); i++; }
        else if (!strcmp(a, "--seed")) { o.seed = parse_ll(v, a); i++; }
        else if (!strcmp(a, "--jobs")) { o.jobs = (int)parse_ll(v, a); i++; }
        else if (!strcmp(a, "--timeout")) { o.timeout = (int)parse_ll(v, a); i++; }
        else if (!strcmp(a, "--case")) { one = parse_ll(v, a); i++; }
        else if (!strcmp(a, "--print")) { print = parse_ll(v, a); i++; }
        else if (!strcmp(a, "--repeat")) { repeat = parse_ll(v, a); i++; }
        else if (!strcmp(a, "--strict")) o.strict = 1;
        else if (!strcmp(a, "--quiet")) o.quiet = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { fprintf(stderr, "fuzz_lua: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    if (o.jobs < 1) o.jobs = 1;
    if (o.jobs > MAX_JOBS) o.jobs = MAX_JOBS;
    if (o.timeout < 1) o.timeout = 1;
    /* one BLAS thread (the cases' OpenMP threads keep lua5.4's defaults) */
    setenv("OPENBLAS_NUM_THREADS", "1", 0);

    lua_State *L = new_state();
    if (!L) return 2;
    if (print >= 0) {
        size_t len;
        char *text = generate(L, print, &len);
        if (!text) return 2;
        fwrite(text, 1, len, stdout);
        free(text);
        parent_L = L;
        return 0;
    }

    /* the cases' files: $TMPDIR, else /dev/shm when there is one (outputs fsync: cheap in memory), else /tmp */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(base_dir, sizeof base_dir, "%s/rc-fuzz-lua-XXXXXX", tmp);
    if (!mkdtemp(base_dir)) { fprintf(stderr, "fuzz_lua: mkdtemp: %s\n", strerror(errno)); return 2; }

    tally t;
    memset(&t, 0, sizeof t);
    slot slots[MAX_JOBS];
    memset(slots, 0, sizeof slots);
    struct timespec T0, T1;
    clock_gettime(CLOCK_MONOTONIC, &T0);
    int show = one >= 0;
    long long first = show ? one : o.seed, last = show ? one + (repeat > 1 ? repeat - 1 : 0) : o.seed + o.count - 1;
    if (show) o.jobs = 1;
    long long next = first;
    int running = 0, setup_failed = 0;
    long long report_every = o.count >= 20000 ? 10000 : o.count >= 2000 ? 1000 : 0;
    while (next <= last || running > 0) {
        while (next <= last && running < o.jobs && !setup_failed) {
            int k = 0;
            while (slots[k].pid) k++;
            if (start_case(L, &slots[k], k, show ? one : next, &o, show) != 0) { setup_failed = 1; break; }
            next++;
            running++;
        }
        if (running == 0) break;
        int ws;
        pid_t pid = waitpid(-1, &ws, 0);
        if (pid < 0) { if (errno == EINTR) continue; fprintf(stderr, "fuzz_lua: waitpid: %s\n", strerror(errno)); break; }
        for (int k = 0; k < o.jobs; k++) {
            if (slots[k].pid == pid) {
                finish_case(&slots[k], ws, &t, &o, show);
                running--;
                break;
            }
        }
        if (!o.quiet && report_every && t.cases % report_every == 0 && t.cases > 0 && !show) {
            clock_gettime(CLOCK_MONOTONIC, &T1);
            fprintf(stderr, "fuzz_lua: %lld cases, %lld failures, %.0f s\n", t.cases, t.failures,
                    (double)(T1.tv_sec - T0.tv_sec) + 1e-9 * (double)(T1.tv_nsec - T0.tv_nsec));
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &T1);
    double secs = (double)(T1.tv_sec - T0.tv_sec) + 1e-9 * (double)(T1.tv_nsec - T0.tv_nsec);
    if (show && repeat > 1)
        printf("fuzz_lua: case %lld run %lld times: %lld failed\n", one, t.cases, t.failures);
    if (!show) {
        printf("fuzz_lua: %lld cases (seeds %lld..%lld) in %.1f s: %lld completed, %lld raised, %lld failed; "
               "%lld successful steps checked; %lld internal errors in %lld cases; slowest case %lld (%.2f s)\n",
               t.cases, first, first + t.cases - 1, secs, t.done, t.raised, t.failures, t.steps, t.internal, t.internal_cases,
               t.slowest_seed, t.slowest);
        for (int c = 0; c < 6; c++)
            if (t.by_class[c]) printf("  %s: %lld\n", class_names[c], t.by_class[c]);
        if (nsigs) printf("failures by cause (count, first seed):\n");
        for (int i = 0; i < nsigs; i++) printf("  %6lld  %-10lld %s\n", sigs[i].count, sigs[i].first_seed, sigs[i].sig);
    }
    rm_tree(base_dir);
    parent_L = L;   /* not closed: the module stays loaded until exit (no false leak report) */
    return (t.failures || setup_failed) ? 1 : 0;
}
