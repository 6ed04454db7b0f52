/*
 * cli.c -- the ricochet program: runs a Lua scenario script.
 *
 *   ricochet run SCRIPT [--out DIR] [--set name=value]... [--every N] [--format csv|binary] [--quiet]
 *                [--restart FILE] [--checkpoint-every N]
 *                [--sandbox] [--max-instructions N] [--max-callback-instructions N]
 *                [--max-seconds S] [--max-memory SIZE] [ARGS...]
 *   ricochet view OUT [--out FILE]       (ricochet.view: OUT/view.html)
 *   ricochet plot OUT [COLUMNS...] [--out FILE]   (ricochet.plot: OUT/plot.svg)
 *   ricochet convert OUT                 (ricochet.history: OUT/history.bin to OUT/history.csv.gz)
 *   ricochet version | --version
 *   ricochet help | --help
 *
 * Embeds Lua 5.4 with the ricochet module linked in, through the host API of
 * ricochet_lua.h (rc_lua_open: ricochet.core is preloaded, the files
 * lua/ricochet/NAME.lua are found through package.path without any
 * environment, limits and the sandbox, docs/security.md). Scripts are
 * always loaded as text (a precompiled chunk is refused). The options reach the Lua side as
 * package.loaded["ricochet.cli"] = { script, out, every, format, quiet, set, args,
 * restart, checkpoint_every },
 * read by rc.param and sim:run.
 *
 * Exit codes: 0 success, 1 error in the script, 2 usage error, 3 a limit
 * (--max-*) ended the run, 128 + the signal when interrupted: 130 SIGINT,
 * 143 SIGTERM, 129 SIGHUP (the handler calls rc_request_interrupt_signal()
 * and rc_lua_interrupt(): the running step fails with RC_ERR_INTERRUPTED,
 * running Lua code, in whatever coroutine, raises "interrupted by SIGTERM",
 * sim:run closes its output "interrupted" with the signal's name);
 * os.exit(code) from the script: the module closes the outputs "exited" first.
 * SIGXFSZ is ignored: a file size limit is a write error like a full disk.
 */
#define _POSIX_C_SOURCE 200809L

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ricochet.h"
#include "ricochet_lua.h"
#include "cli/cli.h"

#ifndef RC_LUA_DIR
#define RC_LUA_DIR "lua"
#endif

static const char *progname = "ricochet";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s run SCRIPT [options] [ARGS...]\n"
            "       %s view OUT [--out FILE]\n"
            "       %s plot OUT [COLUMNS...] [--out FILE]\n"
            "       %s convert OUT\n"
            "       %s version | --version\n"
            "       %s help | --help\n"
            "\n"
            "Runs the Lua scenario SCRIPT (require \"ricochet\" works without any setup).\n"
            "\n"
            "options:\n"
            "  --out DIR          write DIR/history.csv.gz and DIR/run.json for each sim:run\n"
            "                     that does not name its own output folder\n"
            "  --set NAME=VALUE   override the script parameter rc.param(\"NAME\", default);\n"
            "                     may be repeated\n"
            "  --every N          write every N-th step to the history (default 1)\n"
            "  --format FORMAT    the history's file: csv (DIR/history.csv.gz, the default) or\n"
            "                     binary (DIR/history.bin: float64 rows, exact and far cheaper)\n"
            "  --frames N         write OUT/frames.rcf every N-th step, for 'ricochet view'\n"
            "  --quiet            do not print the run summary\n"
            "  --restart FILE     the script builds the world, its first sim:run then goes on\n"
            "                     from the checkpoint FILE's state up to its T (docs/checkpoint.md)\n"
            "  --checkpoint-every N\n"
            "                     write OUT/checkpoint.rcc after every N-th step (atomically)\n"
            "  --sandbox          run an untrusted script: no os.execute, io.popen, C modules,\n"
            "                     debug, binary chunks; files are written only under --out and\n"
            "                     read only there and in the script's folder; --max-memory 1G\n"
            "                     unless given (docs/security.md)\n"
            "  --max-instructions N\n"
            "                     stop the run after N Lua instructions (all of them)\n"
            "  --max-callback-instructions N\n"
            "                     stop the run when one call of a Lua function by the kernel\n"
            "                     (force function, law, gap, motion) runs more than N\n"
            "  --max-seconds S    stop the run after S seconds of wall-clock time\n"
            "  --max-memory SIZE  stop the run when Lua and the kernel together would hold more\n"
            "                     than SIZE bytes (suffixes K, M, G: 2^10, 2^20, 2^30; 0: none)\n"
            "  --                 end of options: what follows goes to the script's arg table\n"
            "\n"
            "view OUT writes OUT/view.html (open it in a browser: the motion, contact forces\n"
            "and plots of the history); plot OUT writes OUT/plot.svg of the energy terms, or of\n"
            "the history COLUMNS named (docs/viewing.md); convert OUT writes OUT/history.csv.gz\n"
            "from OUT/history.bin (docs/getting-started.md, \"The binary history\")\n"
            "\n"
            "exit status: 0 success, 1 error in the script, 2 usage error, 3 a limit (--max-*)\n"
            "ended the run, 128 + N when interrupted by signal N (130 SIGINT, 143 SIGTERM,\n"
            "129 SIGHUP); os.exit(code): code\n",
            progname, progname, progname, progname, progname, progname);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", progname);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see '%s help')\n", progname);
    return 2;
}

/* ---------------------------------------------------------------- interrupt */

static lua_State *volatile global_L = NULL;

/* The first SIGINT, SIGTERM or SIGHUP (0: none). */
static volatile sig_atomic_t first_signal = 0;

/* First SIGINT, SIGTERM or SIGHUP: ask the kernel to stop at the next step,
 * and stop the Lua code running, in whatever coroutine, at its next
 * instruction (rc_lua_interrupt; in --sandbox at every instruction until the
 * script ends); the handler does nothing else. Further signals within half a
 * second belong to the same interrupt (timeout(1) signals both the program
 * and its process group); a later one kills the program at once. */
static struct timespec signal_first;

static void on_signal(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!first_signal) {
        first_signal = sig;
        signal_first = now;
        rc_request_interrupt_signal(sig);
        if (global_L) rc_lua_interrupt(global_L);
        return;
    }
    double dt = (double)(now.tv_sec - signal_first.tv_sec) + 1e-9 * (double)(now.tv_nsec - signal_first.tv_nsec);
    if (dt < 0.5) return;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* --max-seconds: a timer (no count hook, so that Lua runs at full speed)
 * whose SIGALRM ends the run with the time limit's error: the Lua code
 * running stops at its next instruction, the kernel's solvers at their next
 * sweep (rc_request_interrupt). If the program is still inside a C call
 * RC_ALARM_GRACE seconds later (a huge factorization, say), it is ended at
 * once: run.json then says "running", complete false. */
#define RC_ALARM_GRACE 5.0

static volatile sig_atomic_t alarm_stage = 0;

static void set_timer(double seconds)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0) it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

static void on_alarm(int sig)
{
    (void)sig;
    if (!global_L) return;
    if (alarm_stage == 0) {
        alarm_stage = 1;
        rc_lua_expire(global_L);
        rc_request_interrupt();
        set_timer(RC_ALARM_GRACE);
        return;
    }
    static const char msg[] = "ricochet: error: time limit exceeded, and the program did not leave a C call "
                              "within 5 s: ended (run.json says \"running\")\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(3);
}

static void set_alarm(double seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    set_timer(seconds);
}

static void cancel_alarm(void)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
}

/* sigaction, not signal(): with strict C11 + POSIX, glibc's signal() resets
 * the handler on delivery (System V semantics). A signal the program was
 * started with ignored (nohup) stays ignored. */
static void install_signals(void)
{
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN && sigs[i] != SIGINT)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) sigaddset(&sa.sa_mask, sigs[k]);
        sa.sa_flags = SA_RESTART;
        sigaction(sigs[i], &sa, NULL);
    }
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, NULL);
}

/* ---------------------------------------------------------------- options */

typedef struct options {
    const char *script;
    const char *out;
    long every;          /* 0: not given */
    const char *format;  /* --format: "csv" or "binary", or NULL */
    const char *restart; /* --restart FILE, or NULL */
    long checkpoint_every;   /* 0: not given */
    long frames;         /* 0: not given */
    int quiet;
    int nset;
    const char **set;    /* "name=value" */
    int nargs;
    char **args;         /* after the script */
    int sandbox;
    rc_lua_limits limits;
    const char *memory_opt;   /* --max-memory as given, or NULL */
} options;

/* a count: digits or a number like 1e9, integral, 0 <= N < 2^62 */
static int parse_count(const char *s, long long *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= 0.0) || v >= 4.6e18 || v != (double)(long long)v) return 0;
    *out = (long long)v;
    return 1;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= 0.0) || v > 1e15) return 0;
    *out = v;
    return 1;
}

/* bytes: a number with an optional suffix K, M, G, T (powers of 1024),
 * optionally followed by B or iB: 64M, 1.5G, 512MiB, 1000000 */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || end == s || !(v >= 0.0)) return 0;
    double m = 1.0;
    switch (*end) {
    case 'k': case 'K': m = 1024.0; end++; break;
    case 'm': case 'M': m = 1024.0 * 1024.0; end++; break;
    case 'g': case 'G': m = 1024.0 * 1024.0 * 1024.0; end++; break;
    case 't': case 'T': m = 1024.0 * 1024.0 * 1024.0 * 1024.0; end++; break;
    default: break;
    }
    if (m > 1.0 && *end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return 0;
    v *= m;
    if (v >= 1.8e19 || v != v) return 0;
    *out = (size_t)v;
    return 1;
}

static int parse_every(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 0x7fffffff) return 0;
    *out = v;
    return 1;
}

static int check_set(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq && eq != s;
}

/* Returns -1 on success, else an exit code. */
static int parse_run(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->set = calloc((size_t)argc, sizeof *o->set);
    o->args = calloc((size_t)argc, sizeof *o->args);
    if (!o->set || !o->args) {
        fprintf(stderr, "%s: error: out of memory\n", progname);
        return 1;
    }
    int only_args = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (o->script && only_args) {
            o->args[o->nargs++] = argv[i];
            continue;
        }
        if (!only_args && strcmp(a, "--") == 0) {
            only_args = 1;
            continue;
        }
        if (!only_args && a[0] == '-' && a[1] != '\0') {
            const char *val = NULL;
            const char *eq = strchr(a, '=');
            size_t klen = eq ? (size_t)(eq - a) : strlen(a);
#define OPT(name) (klen == strlen(name) && strncmp(a, name, klen) == 0)
            int takes = OPT("--out") || OPT("--set") || OPT("--every") || OPT("--format") || OPT("--frames") || OPT("--max-instructions")
                        || OPT("--max-callback-instructions") || OPT("--max-seconds") || OPT("--max-memory")
                        || OPT("--restart") || OPT("--checkpoint-every");
            if (takes) {
                if (eq) val = eq + 1;
                else if (i + 1 < argc) val = argv[++i];
                else return usage_error("option '%s' needs a value", a);
            } else if (eq) {
                return usage_error("unknown option '%s'", a);
            }
            if (OPT("--out")) {
                if (!*val) return usage_error("option --out needs a non-empty folder%s", "");
                o->out = val;
            } else if (OPT("--set")) {
                if (!check_set(val)) return usage_error("malformed --set '%s' (expected NAME=VALUE)", val);
                o->set[o->nset++] = val;
            } else if (OPT("--every")) {
                if (!parse_every(val, &o->every))
                    return usage_error("--every needs a positive integer (got '%s')", val);
            } else if (OPT("--format")) {
                if (strcmp(val, "csv") != 0 && strcmp(val, "binary") != 0)
                    return usage_error("--format needs csv or binary (got '%s')", val);
                o->format = val;
            } else if (OPT("--restart")) {
                if (!*val) return usage_error("option --restart needs a checkpoint file%s", "");
                o->restart = val;
            } else if (OPT("--checkpoint-every")) {
                if (!parse_every(val, &o->checkpoint_every))
                    return usage_error("--checkpoint-every needs a positive integer (got '%s')", val);
            } else if (OPT("--frames")) {
                if (!parse_every(val, &o->frames))
                    return usage_error("--frames needs a positive integer (got '%s')", val);
            } else if (OPT("--quiet") || OPT("-q")) {
                o->quiet = 1;
            } else if (OPT("--sandbox")) {
                o->sandbox = 1;
            } else if (OPT("--max-instructions")) {
                if (!parse_count(val, &o->limits.max_instructions))
                    return usage_error("--max-instructions needs a count >= 0 (got '%s'; 0: no limit)", val);
            } else if (OPT("--max-callback-instructions")) {
                if (!parse_count(val, &o->limits.max_callback_instructions))
                    return usage_error("--max-callback-instructions needs a count >= 0 (got '%s'; 0: no limit)", val);
            } else if (OPT("--max-seconds")) {
                if (!parse_seconds(val, &o->limits.max_seconds))
                    return usage_error("--max-seconds needs a number of seconds >= 0 (got '%s'; 0: no limit)", val);
            } else if (OPT("--max-memory")) {
                if (!parse_size(val, &o->limits.max_memory))
                    return usage_error("--max-memory needs a size in bytes, e.g. 512M or 2G (got '%s'; 0: no limit)", val);
                o->memory_opt = val;
            } else if (OPT("--help") || OPT("-h")) {
                usage(stdout);
                return 0;
            } else {
                return usage_error("unknown option '%s'", a);
            }
#undef OPT
            continue;
        }
        if (!o->script) o->script = a;
        else o->args[o->nargs++] = argv[i];
    }
    if (!o->script) return usage_error("missing SCRIPT%s", "");
    return -1;
}

/* package paths, package.loaded["ricochet.cli"] and the global arg table */
static int push_options(lua_State *L)
{
    const options *o = (const options *)lua_touserdata(L, 1);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaded");
    lua_newtable(L);
    lua_pushstring(L, o->script);
    lua_setfield(L, -2, "script");
    if (o->out) {
        lua_pushstring(L, o->out);
        lua_setfield(L, -2, "out");
    }
    if (o->every > 0) {
        lua_pushinteger(L, o->every);
        lua_setfield(L, -2, "every");
    }
    if (o->format) {
        lua_pushstring(L, o->format);
        lua_setfield(L, -2, "format");
    }
    if (o->frames > 0) {
        lua_pushinteger(L, o->frames);
        lua_setfield(L, -2, "frames");
    }
    lua_pushboolean(L, o->quiet);
    lua_setfield(L, -2, "quiet");
    if (o->restart) {
        lua_pushstring(L, o->restart);
        lua_setfield(L, -2, "restart");
    }
    if (o->checkpoint_every > 0) {
        lua_pushinteger(L, o->checkpoint_every);
        lua_setfield(L, -2, "checkpoint_every");
    }
    lua_newtable(L);
    for (int i = 0; i < o->nset; i++) {
        const char *eq = strchr(o->set[i], '=');
        lua_pushlstring(L, o->set[i], (size_t)(eq - o->set[i]));
        lua_pushstring(L, eq + 1);
        lua_settable(L, -3);
    }
    lua_setfield(L, -2, "set");
    lua_newtable(L);
    for (int i = 0; i < o->nargs; i++) {
        lua_pushstring(L, o->args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "args");
    lua_setfield(L, -2, "ricochet.cli");
    lua_pop(L, 2);

    lua_createtable(L, o->nargs, 2);
    lua_pushstring(L, progname);
    lua_rawseti(L, -2, -1);
    lua_pushstring(L, o->script);
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < o->nargs; i++) {
        lua_pushstring(L, o->args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    return 0;
}

/* ---------------------------------------------------------------- running */

static const char *error_text(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) return lua_tostring(L, idx);
    return lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, idx));
}

/* rc._finish(outcome, message, quiet) if the script loaded the module */
static int finish(lua_State *L)
{
    const char *outcome = lua_tostring(L, 1);
    int quiet = lua_toboolean(L, 3);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaded");
    lua_getfield(L, -1, "ricochet");
    if (!lua_istable(L, -1)) return 0;
    lua_getfield(L, -1, "_finish");
    if (!lua_isfunction(L, -1)) return 0;
    lua_pushstring(L, outcome);
    lua_pushvalue(L, 2);
    lua_pushboolean(L, quiet);
    lua_call(L, 3, 0);
    return 0;
}

/* The script's folder (the sandbox lets it be read); the caller frees. */
/* No folder with ricochet's Lua files (a program copied out of its build or
 * installation): say where they are looked for; frees path. */
static int no_lua_dir(char *path)
{
    free(path);
    fprintf(stderr, "%s: error: cannot find ricochet's Lua files (ricochet/init.lua): they are looked for in "
            "$RICOCHET_LUA_DIR, in <prefix>/share/lua/5.4 beside <prefix>/bin/%s, and in the source tree for the "
            "build tree's program; set RICOCHET_LUA_DIR to the folder that holds ricochet/\n", progname, progname);
    return 1;
}

static char *script_dir(const char *script)
{
    size_t n = strlen(script);
    char *d = malloc(n + 2);
    if (!d) return NULL;
    memcpy(d, script, n + 1);
    char *slash = strrchr(d, '/');
    if (slash == d) d[1] = '\0';
    else if (slash) *slash = '\0';
    else strcpy(d, ".");
    return d;
}

/* The option that set the limit that ended the run, for the hint. */
static void limit_hint(const options *o, rc_lua_limit hit)
{
    switch (hit) {
    case RC_LUA_LIMIT_INSTRUCTIONS:
        fprintf(stderr, "%s: (the limit is --max-instructions %lld)\n", progname, o->limits.max_instructions);
        break;
    case RC_LUA_LIMIT_CALLBACK_INSTRUCTIONS:
        fprintf(stderr, "%s: (the limit is --max-callback-instructions %lld)\n", progname,
                o->limits.max_callback_instructions);
        break;
    case RC_LUA_LIMIT_SECONDS:
        fprintf(stderr, "%s: (the limit is --max-seconds %g)\n", progname, o->limits.max_seconds);
        break;
    case RC_LUA_LIMIT_MEMORY:
        if (o->memory_opt) fprintf(stderr, "%s: (the limit is --max-memory %s)\n", progname, o->memory_opt);
        else fprintf(stderr, "%s: (the limit is the sandbox's default --max-memory 1G)\n", progname);
        break;
    case RC_LUA_LIMIT_NONE:
        break;
    }
}

static int run(int argc, char **argv)
{
    options o;
    int code = parse_run(argc, argv, &o);
    if (code >= 0) {
        free(o.set);
        free(o.args);
        return code;
    }
    rc_lua_def def = rc_lua_default_def();
    def.sandbox = o.sandbox;
    def.limits = o.limits;
    def.host_clock = 1;   /* set_alarm */
    if (o.sandbox && !o.memory_opt) def.limits.max_memory = (size_t)1 << 30;
    char *path = rc_cli_lua_path();
    if (path && !path[0]) return no_lua_dir(path);
    char *dir = script_dir(o.script);
    def.lua_path = path;
    def.out_dir = o.out;
    def.read_dir = o.sandbox ? dir : NULL;
    lua_State *L = NULL;
    if (!path || !dir || rc_lua_open(&def, &L) != RC_OK) {
        fprintf(stderr, "%s: error: cannot create the Lua state: %s\n", progname,
                path && dir ? rc_last_error() : "out of memory");
        free(path);
        free(dir);
        free(o.set);
        free(o.args);
        return 1;
    }
    free(path);
    free(dir);
    lua_pushcfunction(L, push_options);
    lua_pushlightuserdata(L, &o);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        fprintf(stderr, "%s: error: %s\n", progname, error_text(L, -1));
        rc_lua_close(L);
        free(o.set);
        free(o.args);
        return 1;
    }

    int st = rc_lua_load_file(L, o.script);
    if (st == LUA_OK) {
        for (int i = 0; i < o.nargs; i++) lua_pushstring(L, o.args[i]);
        global_L = L;
        install_signals();
        if (o.limits.max_seconds > 0) set_alarm(o.limits.max_seconds);
        st = lua_pcall(L, o.nargs, 0, 0);
        global_L = NULL; /* while finishing, a SIGINT only records the interrupt */
        cancel_alarm();
    }
    /* how the run ended; the limits are lifted (or, in the sandbox, replaced
     * by the finishing's own) */
    const char *outcome = "complete";
    rc_status rs = rc_lua_run_outcome(L, st, &outcome);
    int failed = rs != RC_OK;
    int interrupted = rs == RC_ERR_INTERRUPTED;
    int limited = rs == RC_ERR_LIMIT;
    char *message = NULL;
    if (failed) {
        const char *msg = rc_last_error();
        message = malloc(strlen(msg) + 1);
        if (message) strcpy(message, msg);
        const char *sig = rc_signal_name(rc_interrupt_signal());
        if (interrupted && sig) fprintf(stderr, "%s: interrupted by %s (%s)\n", progname, sig, msg);
        else if (interrupted) fprintf(stderr, "%s: interrupted (%s)\n", progname, msg);
        else fprintf(stderr, "%s: error: %s\n", progname, msg);
        if (limited) limit_hint(&o, rc_lua_limit_hit(L));
        lua_settop(L, 0);
    }

    /* close outputs left open, warn about unused --set, print the summary */
    lua_pushcfunction(L, finish);
    lua_pushstring(L, interrupted ? "interrupted" : failed ? "error" : "complete");
    if (message) lua_pushstring(L, message); else lua_pushnil(L);
    lua_pushboolean(L, o.quiet);
    if (lua_pcall(L, 3, 0, 0) != LUA_OK) {
        fprintf(stderr, "%s: error while closing the outputs: %s\n", progname, error_text(L, -1));
        failed = 1;
    }
    fflush(stdout);
    rc_lua_close(L);
    free(message);
    free(o.set);
    free(o.args);
    if (limited) return 3;
    if (rc_interrupt_requested()) return 128 + (rc_interrupt_signal() > 0 ? rc_interrupt_signal() : SIGINT);
    return failed ? 1 : 0;
}

/* ricochet view|plot|convert ARGS...: require("ricochet.view" | "ricochet.plot" |
 * "ricochet.history").main(ARGS...)
 * in a plain state (no sandbox, no limits); its result is the exit code. */
static int tool(const char *module, int argc, char **argv)
{
    rc_lua_def def = rc_lua_default_def();
    char *path = rc_cli_lua_path();
    if (path && !path[0]) return no_lua_dir(path);
    def.lua_path = path;
    lua_State *L = NULL;
    if (!path || rc_lua_open(&def, &L) != RC_OK) {
        fprintf(stderr, "%s: error: cannot create the Lua state: %s\n", progname, path ? rc_last_error() : "out of memory");
        free(path);
        return 1;
    }
    free(path);
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    int code = 1;
    if (lua_pcall(L, 1, 1, 0) == LUA_OK) {
        lua_getfield(L, -1, "main");
        for (int i = 2; i < argc; i++) lua_pushstring(L, argv[i]);
        if (lua_pcall(L, argc - 2, 1, 0) == LUA_OK) code = (int)luaL_optinteger(L, -1, 0);
        else fprintf(stderr, "%s: error: %s\n", progname, error_text(L, -1));
    } else {
        fprintf(stderr, "%s: error: %s\n", progname, error_text(L, -1));
    }
    fflush(stdout);
    rc_lua_close(L);
    return code;
}

int main(int argc, char **argv)
{
    rc_cli_blas_one_thread();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0) return run(argc, argv);
    if (strcmp(cmd, "view") == 0) return tool("ricochet.view", argc, argv);
    if (strcmp(cmd, "plot") == 0) return tool("ricochet.plot", argc, argv);
    if (strcmp(cmd, "convert") == 0) return tool("ricochet.history", argc, argv);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("ricochet %s (%s)\n", RC_VERSION, LUA_RELEASE);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "%s: unknown command '%s'\n", progname, cmd);
    size_t len = strlen(cmd);
    struct stat st;
    if ((len > 4 && strcmp(cmd + len - 4, ".lua") == 0) || (stat(cmd, &st) == 0 && S_ISREG(st.st_mode))) {
        /* a script given without the command */
        fprintf(stderr, "%s: to run the script: %s run", progname, progname);
        for (int i = 1; i < argc; i++) fprintf(stderr, " %s", argv[i]);
        fputc('\n', stderr);
        return 2;
    }
    usage(stderr);
    return 2;
}
