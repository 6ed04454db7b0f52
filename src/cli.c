/*
 * cli.c -- the ricochet program: runs a Lua scenario script.
 *
 *   ricochet run SCRIPT [--out DIR] [--set name=value]... [--every N] [--quiet] [ARGS...]
 *   ricochet version | --version
 *   ricochet help | --help
 *
 * Embeds Lua 5.4 with the ricochet module linked in (ricochet.core is
 * preloaded; the files lua/ricochet/NAME.lua are found through package.path without any
 * environment). The options reach the Lua side as
 * package.loaded["ricochet.cli"] = { script, out, every, quiet, set, args },
 * read by rc.param and sim:run.
 *
 * Exit codes: 0 success, 1 error in the script, 2 usage error, 128 + the
 * signal when interrupted: 130 SIGINT, 143 SIGTERM, 129 SIGHUP (the handler
 * calls rc_request_interrupt_signal() and sets a Lua hook; the running step
 * fails with RC_ERR_INTERRUPTED, running Lua code raises "interrupted by
 * SIGTERM", sim:run closes its output "interrupted" with the signal's name);
 * os.exit(code) from the script: the module closes the outputs "exited" first.
 * SIGXFSZ is ignored: a file size limit is a write error like a full disk.
 */
#define _POSIX_C_SOURCE 200809L

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ricochet.h"

#ifndef RC_LUA_DIR
#define RC_LUA_DIR "lua"
#endif

int luaopen_ricochet_core(lua_State *L);

static const char *progname = "ricochet";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s run SCRIPT [options] [ARGS...]\n"
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
            "  --quiet            do not print the run summary\n"
            "  --                 end of options: what follows goes to the script's arg table\n"
            "\n"
            "exit status: 0 success, 1 error in the script, 2 usage error, 128 + N when\n"
            "interrupted by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP); os.exit(code): code\n",
            progname, progname, progname);
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

static void stop_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    /* no position: it is not the code's fault */
    switch (first_signal) {
    case SIGTERM: lua_pushliteral(L, "interrupted by SIGTERM"); break;
    case SIGHUP: lua_pushliteral(L, "interrupted by SIGHUP"); break;
    default: lua_pushliteral(L, "interrupted by SIGINT"); break;
    }
    lua_error(L);
}

/* First SIGINT, SIGTERM or SIGHUP: ask the kernel to stop at the next step,
 * and stop Lua code at the next instruction (as lua.c does for SIGINT); the
 * handler does nothing else. Further signals within half a second belong to
 * the same interrupt (timeout(1) signals both the program and its process
 * group); a later one kills the program at once. */
static struct timespec signal_first;

static void on_signal(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!first_signal) {
        first_signal = sig;
        signal_first = now;
        rc_request_interrupt_signal(sig);
        if (global_L) lua_sethook(global_L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
        return;
    }
    double dt = (double)(now.tv_sec - signal_first.tv_sec) + 1e-9 * (double)(now.tv_nsec - signal_first.tv_nsec);
    if (dt < 0.5) return;
    signal(sig, SIG_DFL);
    raise(sig);
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

/* ---------------------------------------------------------------- paths */

static void add_dir(luaL_Buffer *b, const char *dir, size_t n)
{
    luaL_addlstring(b, dir, n);
    luaL_addstring(b, "/?.lua;");
    luaL_addlstring(b, dir, n);
    luaL_addstring(b, "/?/init.lua;");
}

static int file_exists(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* package.path = $RICOCHET_LUA_DIR (':'-separated) ; <prefix>/share/lua/5.4
 * (if the program runs from an installation) ; RC_LUA_DIR ; old path */
static int setup_path(lua_State *L)
{
    lua_getglobal(L, "package");
    int pkg = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *env = getenv("RICOCHET_LUA_DIR");
    if (env) {
        const char *p = env;
        while (*p) {
            const char *e = strchr(p, ':');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n > 0) add_dir(&b, p, n);
            if (!e) break;
            p = e + 1;
        }
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 64);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            slash = strrchr(exe, '/'); /* <prefix>/bin -> <prefix> */
            if (slash) {
                *slash = '\0';
                char share[4200];
                snprintf(share, sizeof share, "%s/share/lua/5.4", exe);
                char probe[4300];
                snprintf(probe, sizeof probe, "%s/ricochet/init.lua", share);
                if (file_exists(probe)) add_dir(&b, share, strlen(share));
            }
        }
    }
    add_dir(&b, RC_LUA_DIR, strlen(RC_LUA_DIR));
    lua_getfield(L, pkg, "path");
    luaL_addvalue(&b);
    luaL_pushresult(&b);
    lua_setfield(L, pkg, "path");
    /* the C half is linked in */
    lua_getfield(L, pkg, "preload");
    lua_pushcfunction(L, luaopen_ricochet_core);
    lua_setfield(L, -2, "ricochet.core");
    return 0;
}

/* ---------------------------------------------------------------- options */

typedef struct options {
    const char *script;
    const char *out;
    long every;          /* 0: not given */
    int quiet;
    int nset;
    const char **set;    /* "name=value" */
    int nargs;
    char **args;         /* after the script */
} options;

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
            int takes = OPT("--out") || OPT("--set") || OPT("--every");
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
            } else if (OPT("--quiet") || OPT("-q")) {
                o->quiet = 1;
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
    lua_pushcfunction(L, setup_path);
    lua_call(L, 0, 0);
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
    lua_pushboolean(L, o->quiet);
    lua_setfield(L, -2, "quiet");
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

static int run(int argc, char **argv)
{
    options o;
    int code = parse_run(argc, argv, &o);
    if (code >= 0) {
        free(o.set);
        free(o.args);
        return code;
    }
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "%s: error: cannot create the Lua state (out of memory)\n", progname);
        free(o.set);
        free(o.args);
        return 1;
    }
    luaL_openlibs(L);
    lua_pushcfunction(L, push_options);
    lua_pushlightuserdata(L, &o);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        fprintf(stderr, "%s: error: %s\n", progname, error_text(L, -1));
        lua_close(L);
        free(o.set);
        free(o.args);
        return 1;
    }

    int failed = 0;
    char *message = NULL;
    if (luaL_loadfile(L, o.script) != LUA_OK) {
        failed = 1;
    } else {
        for (int i = 0; i < o.nargs; i++) lua_pushstring(L, o.args[i]);
        global_L = L;
        install_signals();
        if (lua_pcall(L, o.nargs, 0, 0) != LUA_OK) failed = 1;
        global_L = NULL; /* while finishing, a SIGINT only records the interrupt */
        lua_sethook(L, NULL, 0, 0);
    }
    int interrupted = rc_interrupt_requested();
    if (failed) {
        const char *msg = error_text(L, -1);
        message = malloc(strlen(msg) + 1);
        if (message) strcpy(message, msg);
        const char *sig = rc_signal_name(rc_interrupt_signal());
        if (interrupted && sig) fprintf(stderr, "%s: interrupted by %s (%s)\n", progname, sig, msg);
        else if (interrupted) fprintf(stderr, "%s: interrupted (%s)\n", progname, msg);
        else fprintf(stderr, "%s: error: %s\n", progname, msg);
        lua_settop(L, 0);
    }

    /* close outputs left open, warn about unused --set, print the summary */
    lua_pushcfunction(L, finish);
    lua_pushstring(L, interrupted ? "interrupted" : failed ? "error" : "complete");
    if (message) lua_pushstring(L, message); else lua_pushnil(L);
    lua_pushboolean(L, o.quiet);
    if (lua_pcall(L, 3, 0, 0) != LUA_OK) {
        fprintf(stderr, "%s: error: %s\n", progname, error_text(L, -1));
        failed = 1;
    }
    fflush(stdout);
    lua_close(L);
    free(message);
    free(o.set);
    free(o.args);
    if (rc_interrupt_requested()) return 128 + (rc_interrupt_signal() > 0 ? rc_interrupt_signal() : SIGINT);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0) return run(argc, argv);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("ricochet %s (%s)\n", RC_VERSION, LUA_RELEASE);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "%s: unknown command '%s'\n", progname, cmd);
    usage(stderr);
    return 2;
}
