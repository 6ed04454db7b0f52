/*
 * lua_host.c -- Lua states for hosts (ricochet_lua.h): the module ready to
 * require, resource limits, interrupts that stop every loop, rc.sandbox.
 * docs/security.md says what each part guarantees; the restricted
 * environment of a sandbox is in lua_sandbox.c, the counted pattern matcher
 * in lua_strmatch.c.
 *
 * How it works:
 *   - each state has a box (rc_lua_box, lua_host.h) that is the ud of its
 *     allocator (box_lua_alloc), so that lua_getallocf finds it from any
 *     thread of the state; while the state is open the kernel allocates
 *     through the same box (box_kernel_alloc, installed with
 *     rc_set_allocator), so that one byte count holds Lua and the kernel,
 *     under one limit;
 *   - instruction limits (and max_seconds when the host has no clock of its
 *     own) need a count hook, set on the main thread and inherited by every
 *     coroutine (lua_newthread copies its creator's hook). A tick counts the
 *     instructions and checks the limits, the clock and
 *     rc_interrupt_requested(). Without such limits there is no hook (a
 *     count hook makes Lua 5.4 check every instruction: pure Lua code runs
 *     about 1.8 times slower); the box then tracks the thread that runs
 *     (coroutine.resume/wrap/close switch it), so that rc_lua_interrupt and
 *     rc_lua_expire, called from signal handlers, set a one-instruction hook
 *     on that thread;
 *   - a limit, once hit, is sticky: the hook of every thread raises the
 *     limit's message at its next tick and then at every instruction, and
 *     pcall, xpcall, coroutine.resume and coroutine.close re-raise it: no Lua
 *     code can catch it and go on. A refused Lua allocation is retried by
 *     Lua after an emergency collection; it becomes the limit's error only
 *     when a protected call fails with a memory error after it. A refused
 *     kernel allocation is final (the kernel does not retry): it hits the
 *     limit at once;
 *   - string.find/match/gmatch/gsub count their backtracking steps as
 *     instructions (lua_strmatch.c), table.sort its comparisons;
 *   - the per-callback budget counts between rc_lua_callback_enter/leave,
 *     which the binding calls around each call of Lua code from the kernel.
 */
#define _POSIX_C_SOURCE 200809L

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ricochet.h"
#include "ricochet_lua.h"
#include "lua_host.h"


/* The message of an interrupt: the signal's name when a signal asked for it. */
void rc__lua_push_interrupted(lua_State *L)
{
    const char *sig = rc_signal_name(rc_interrupt_signal());
    if (sig) lua_pushfstring(L, "interrupted by %s", sig);
    else lua_pushliteral(L, "interrupted by SIGINT or the host (rc_request_interrupt)");
}

/* ================================================================ memory */

static void *std_alloc(void *ud, void *p, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, nsize);
}

rc_lua_box *rc__lua_box(lua_State *L)
{
    void *ud = NULL;
    lua_Alloc f = lua_getallocf(L, &ud);
    return f == rc__lua_box_lua_alloc ? (rc_lua_box *)ud : NULL;
}

static void fmt_bytes(size_t n, char *buf, size_t len)
{
    const double x = (double)n;
    if (x >= 1024.0 * 1024.0 * 1024.0) snprintf(buf, len, "%.4g GiB", x / (1024.0 * 1024.0 * 1024.0));
    else if (x >= 1024.0 * 1024.0) snprintf(buf, len, "%.4g MiB", x / (1024.0 * 1024.0));
    else if (x >= 1024.0) snprintf(buf, len, "%.4g KiB", x / 1024.0);
    else snprintf(buf, len, "%zu bytes", n);
}

void rc__lua_memory_message(rc_lua_box *b, const char *who, size_t request, size_t in_use)
{
    char r[32], u[32], l[32];
    fmt_bytes(request, r, sizeof r);
    fmt_bytes(in_use, u, sizeof u);
    fmt_bytes(b->lim.max_memory, l, sizeof l);
    b->hit = RC_LUA_LIMIT_MEMORY;
    snprintf(b->message, sizeof b->message,
             "memory limit exceeded: %s asked for %s more with %s in use "
             "(the limit is %s for Lua and the kernel together)", who, r, u, l);
}

/* A growth the limit refuses (shrinking never fails: Lua relies on it). */
int rc__lua_refused(rc_lua_box *b, size_t osize, size_t nsize)
{
    if (!b->armed || b->lim.max_memory == 0 || nsize <= osize) return 0;
    size_t grow = nsize - osize;
    if (b->bytes + grow < b->bytes || b->bytes + grow > b->lim.max_memory) {
        b->refusals++;
        b->refused_request = grow;
        b->refused_in_use = b->bytes;
        return 1;
    }
    return 0;
}

static void account(rc_lua_box *b, size_t osize, size_t nsize)
{
    b->bytes = b->bytes - osize + nsize;
    if (b->bytes > b->peak) b->peak = b->bytes;
}

void *rc__lua_box_lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    rc_lua_box *b = (rc_lua_box *)ud;
    if (!ptr) osize = 0;    /* then osize is the type of the new object */
    if (nsize == 0) {
        if (!ptr) return NULL;
        b->alloc(b->alloc_ud, ptr, osize, 0);
        b->bytes -= osize;
        return NULL;
    }
    if (rc__lua_refused(b, osize, nsize)) return NULL;   /* Lua collects and retries */
    void *p = b->alloc(b->alloc_ud, ptr, osize, nsize);
    if (p) account(b, osize, nsize);
    return p;
}

static void box_free(rc_lua_box *b);

static void *box_kernel_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    rc_lua_box *b = (rc_lua_box *)ud;
    if (!ptr) osize = 0;
    if (nsize == 0) {
        if (!ptr) return NULL;
        b->alloc(b->alloc_ud, ptr, osize, 0);
        b->bytes -= osize;
        b->kernel_bytes -= osize;
        if (--b->kernel_blocks == 0 && b->closed) box_free(b);
        return NULL;
    }
    if (rc__lua_refused(b, osize, nsize)) {
        /* final: the kernel reports RC_ERR_NOMEM and does not retry */
        if (!b->hit) rc__lua_memory_message(b, "the kernel", nsize - osize, b->bytes);
        /* the Lua code running stops at its next instruction, even if it
         * ignores the failure (the kernel is called from that thread) */
        if (b->current) lua_sethook(b->current, rc__lua_limit_hook, LUA_MASKCOUNT, 1);
        return NULL;
    }
    void *p = b->alloc(b->alloc_ud, ptr, osize, nsize);
    if (!p) return NULL;
    account(b, osize, nsize);
    b->kernel_bytes = b->kernel_bytes - osize + nsize;
    if (!ptr) b->kernel_blocks++;
    return p;
}

/* The kernel allocates through the box opened last (a stack: a state opened
 * while another is open, e.g. by rc.sandbox, is closed first in practice;
 * closing out of order unlinks the box wherever it is). */
static rc_lua_box *installed_top = NULL;
static rc_alloc_fn base_fn = NULL;
static void *base_ud = NULL;

static void install_kernel_alloc(rc_lua_box *b)
{
    if (!installed_top) rc_get_allocator(&base_fn, &base_ud);
    b->below = installed_top;
    b->above = NULL;
    if (installed_top) installed_top->above = b;
    installed_top = b;
    b->installed = 1;
    rc_set_allocator(box_kernel_alloc, b);
}

static void uninstall_kernel_alloc(rc_lua_box *b)
{
    if (!b->installed) return;
    if (b->below) b->below->above = b->above;
    if (b->above) {
        b->above->below = b->below;
    } else {
        installed_top = b->below;
        if (installed_top) rc_set_allocator(box_kernel_alloc, installed_top);
        else rc_set_allocator(base_fn, base_ud);
    }
    b->below = b->above = NULL;
    b->installed = 0;
}

static char *box_strdup(rc_lua_box *b, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = (char *)b->alloc(b->alloc_ud, NULL, 0, n);
    if (d) memcpy(d, s, n);
    return d;
}

static void box_strfree(rc_lua_box *b, char *s)
{
    if (s) b->alloc(b->alloc_ud, s, strlen(s) + 1, 0);
}

static void box_free(rc_lua_box *b)
{
    box_strfree(b, b->out_dir);
    box_strfree(b, b->read_dir);
    box_strfree(b, b->lua_path);
    b->alloc(b->alloc_ud, b, sizeof *b, 0);
}

/* ================================================================ limits */

/* package.preload["ricochet.sandbox"]: { run = rc__lua_sandbox_run } */
static int open_sandbox_module(lua_State *L)
{
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, rc__lua_sandbox_run);
    lua_setfield(L, -2, "run");
    return 1;
}

struct open_args {
    rc_lua_box *b;
    const rc_lua_def *def;
};

/* The rc__lua_setup that allocates, under lua_pcall. */
int rc__lua_setup(lua_State *L)
{
    struct open_args *a = (struct open_args *)lua_touserdata(L, 1);
    rc_lua_box *b = a->b;
    luaL_openlibs(L);

    lua_getglobal(L, "package");
    int pkg = lua_gettop(L);
    if (a->def->lua_path) {
        lua_getfield(L, pkg, "path");
        lua_pushfstring(L, "%s;%s", a->def->lua_path, lua_tostring(L, -1));
        lua_setfield(L, pkg, "path");
        lua_pop(L, 1);
    }
    lua_getfield(L, pkg, "path");
    b->lua_path = box_strdup(b, a->def->lua_path ? a->def->lua_path : lua_tostring(L, -1));
    if (!b->lua_path) return luaL_error(L, "not enough memory");
    lua_pop(L, 1);
    lua_getfield(L, pkg, "preload");
    lua_pushcfunction(L, rc__lua_preload_core);
    lua_setfield(L, -2, "ricochet.core");
    if (!b->sandbox) {   /* rc.sandbox{...}: not from inside a sandbox */
        lua_pushcfunction(L, open_sandbox_module);
        lua_setfield(L, -2, "ricochet.sandbox");
    }
    lua_pop(L, 2);

    /* pattern matching that counts its steps */
    rc__lua_open_strmatch(L);

    /* pcall, xpcall, coroutine.resume/close that re-raise a limit hit */
    lua_pushcfunction(L, rc__lua_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, rc__lua_xpcall);
    lua_setglobal(L, "xpcall");
    lua_getglobal(L, "coroutine");
    rc__lua_wrap_field(L, -1, "resume", rc__lua_resume_checked);
    rc__lua_wrap_field(L, -1, "close", rc__lua_resume_checked);
    rc__lua_wrap_field(L, -1, "wrap", rc__lua_wrap);
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    rc__lua_wrap_field(L, -1, "sort", rc__lua_sort_counted);
    lua_pop(L, 1);

    if (b->sandbox) rc__lua_apply_sandbox(L, b);
    return 0;
}

rc_lua_def rc_lua_default_def(void)
{
    rc_lua_def d;
    memset(&d, 0, sizeof d);
    return d;
}

static rc_status check_limits(const rc_lua_limits *m)
{
    if (m->max_instructions < 0)
        return rc_set_error(RC_ERR_ARG, "rc_lua limits: max_instructions must be >= 0 (got %lld)", m->max_instructions);
    if (m->max_callback_instructions < 0)
        return rc_set_error(RC_ERR_ARG, "rc_lua limits: max_callback_instructions must be >= 0 (got %lld)",
                            m->max_callback_instructions);
    if (!(m->max_seconds >= 0.0) || m->max_seconds > 1e15)
        return rc_set_error(RC_ERR_ARG, "rc_lua limits: max_seconds must be finite and >= 0 (got %g)", m->max_seconds);
    return RC_OK;
}

rc_status rc_lua_open(const rc_lua_def *def, lua_State **out)
{
    if (!def || !out) return rc_set_error(RC_ERR_ARG, "rc_lua_open: NULL argument");
    *out = NULL;
    rc_status s = check_limits(&def->limits);
    if (s != RC_OK) return s;
    if (def->out_dir && !*def->out_dir) return rc_set_error(RC_ERR_ARG, "rc_lua_open: out_dir is empty (NULL: none)");
    if (def->read_dir && !*def->read_dir) return rc_set_error(RC_ERR_ARG, "rc_lua_open: read_dir is empty (NULL: none)");
    rc_alloc_fn fn = def->alloc ? def->alloc : std_alloc;
    rc_lua_box *b = (rc_lua_box *)fn(def->alloc_ud, NULL, 0, sizeof *b);
    if (!b) return rc_set_error(RC_ERR_NOMEM, "rc_lua_open: out of memory");
    memset(b, 0, sizeof *b);
    b->alloc = fn;
    b->alloc_ud = def->alloc_ud;
    b->lim = def->limits;
    b->sandbox = def->sandbox != 0;
    b->host_clock = def->host_clock != 0;
    b->out_dir = box_strdup(b, def->out_dir);
    b->read_dir = box_strdup(b, def->read_dir);
    if ((def->out_dir && !b->out_dir) || (def->read_dir && !b->read_dir)) {
        box_free(b);
        return rc_set_error(RC_ERR_NOMEM, "rc_lua_open: out of memory");
    }
    lua_State *L = lua_newstate(rc__lua_box_lua_alloc, b);
    if (!L) {
        box_free(b);
        return rc_set_error(RC_ERR_NOMEM, "rc_lua_open: cannot create the Lua state (out of memory)");
    }
    b->L = L;
    b->current = L;
    install_kernel_alloc(b);
    struct open_args a = { b, def };
    lua_pushcfunction(L, rc__lua_setup);
    lua_pushlightuserdata(L, &a);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        s = rc_set_error(RC_ERR_NOMEM, "rc_lua_open: %s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "rc__lua_setup failed");
        rc_lua_close(L);
        return s;
    }
    rc__lua_arm(b);
    *out = L;
    return RC_OK;
}

rc_status rc_lua_open_sandboxed(const char *out_dir, const rc_lua_limits *limits, lua_State **L)
{
    rc_lua_def d = rc_lua_default_def();
    d.sandbox = 1;
    d.out_dir = out_dir;
    if (limits) d.limits = *limits;
    return rc_lua_open(&d, L);
}

rc_status rc_lua_set_limits(lua_State *L, const rc_lua_limits *limits)
{
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    if (!b || !limits) return rc_set_error(RC_ERR_ARG, "rc_lua_set_limits: not a state of rc_lua_open, or NULL limits");
    rc_status s = check_limits(limits);
    if (s != RC_OK) return s;
    b->lim = *limits;
    b->finishing = 0;
    b->ended = 0;
    b->run_hit = RC_LUA_LIMIT_NONE;
    b->run_message[0] = '\0';
    rc__lua_arm(b);
    return RC_OK;
}

int rc_lua_load_file(lua_State *L, const char *path)
{
    return luaL_loadfilex(L, path, "t");
}

rc_lua_limit rc_lua_limit_hit(lua_State *L)
{
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    if (!b) return RC_LUA_LIMIT_NONE;
    return b->run_hit ? b->run_hit : b->hit;
}

const char *rc_lua_limit_error(lua_State *L)
{
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    if (!b) return NULL;
    if (b->run_hit) return b->run_message;
    return b->hit ? b->message : NULL;
}

void rc_lua_disarm(lua_State *L)
{
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    if (!b) return;
    b->armed = 0;
    lua_sethook(b->L, NULL, 0, 0);
    if (L != b->L) lua_sethook(L, NULL, 0, 0);
    b->current = b->L;
}

int rc_lua_is_sandboxed(lua_State *L)
{
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    return b ? b->sandbox : 0;
}

rc_lua_usage rc_lua_get_usage(lua_State *L)
{
    rc_lua_usage u;
    memset(&u, 0, sizeof u);
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    if (!b) return u;
    u.instructions = b->ended ? b->run_instructions : b->instructions;
    u.seconds = b->ended ? b->run_seconds : rc__lua_now_s() - b->t0;
    u.memory = b->bytes;
    u.memory_peak = b->peak;
    u.kernel_memory = b->kernel_bytes;
    return u;
}

void rc_lua_close(lua_State *L)
{
    if (!L) return;
    rc_lua_box *b = rc__lua_box(L);
    if (!b) {
        lua_close(L);
        return;
    }
    b->armed = 0;
    lua_close(b->L);
    uninstall_kernel_alloc(b);
    b->closed = 1;
    if (b->kernel_blocks == 0) box_free(b);
}

/* ================================================================ running a script */

rc_status rc_lua_run_outcome(lua_State *L, int status, const char **outcome)
{
    rc_lua_box *b = rc__lua_box(L);
    const char *oc = "complete";
    rc_status s = RC_OK;
    if (b && !b->ended) {
        b->ended = 1;
        b->run_instructions = b->instructions;
        b->run_seconds = rc__lua_now_s() - b->t0;
    }
    if (b && b->armed && !b->hit && b->expired) {   /* the host's clock ran out during a C call */
        b->hit = RC_LUA_LIMIT_SECONDS;
        snprintf(b->message, sizeof b->message, "time limit exceeded: the run took more than %g s (wall clock)",
                 b->lim.max_seconds);
    }
    if (status != LUA_OK && b && b->armed && !b->hit && b->refusals > 0
        && (status == LUA_ERRMEM || rc__lua_mentions_memory(L, -1)))
        rc__lua_memory_message(b, "the script", b->refused_request, b->refused_in_use);
    if (b && b->hit) {   /* (also when the script ended without noticing) */
        oc = "limit";
        s = rc_set_error(RC_ERR_LIMIT, "%s", b->message);
    } else if (status != LUA_OK && rc_interrupt_requested()) {
        oc = "interrupted";
        s = rc_set_error(RC_ERR_INTERRUPTED, "%s",
                         lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "interrupted");
    } else if (status != LUA_OK) {
        oc = "error";
        if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
            s = rc_set_error(RC_ERR_CALLBACK, "%s", lua_tostring(L, -1));
        else
            s = rc_set_error(RC_ERR_CALLBACK, "(error object is a %s value)", luaL_typename(L, -1));
    }
    if (b && b->sandbox) {
        if (b->hit && !b->run_hit) {
            b->run_hit = b->hit;
            memcpy(b->run_message, b->message, sizeof b->message);
        }
        rc__lua_arm_finishing(b);
        b->current = L;
        if (L != b->L) rc__lua_base_hook(L, b);
    } else {
        rc_lua_disarm(L);
    }
    if (outcome) *outcome = oc;
    return s;
}
