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

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int luaopen_ricochet_core(lua_State *L);

/* instructions between two ticks of the hook when no instruction limit asks
 * for finer counting */
#define RC_LUA_PERIOD 1000

/* The message of an interrupt: the signal's name when a signal asked for it. */
static void push_interrupted(lua_State *L)
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

static void *box_lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
static void limit_hook(lua_State *L, lua_Debug *ar);

rc_lua_box *rc__lua_box(lua_State *L)
{
    void *ud = NULL;
    lua_Alloc f = lua_getallocf(L, &ud);
    return f == box_lua_alloc ? (rc_lua_box *)ud : NULL;
}

static void fmt_bytes(size_t n, char *buf, size_t len)
{
    const double x = (double)n;
    if (x >= 1024.0 * 1024.0 * 1024.0) snprintf(buf, len, "%.4g GiB", x / (1024.0 * 1024.0 * 1024.0));
    else if (x >= 1024.0 * 1024.0) snprintf(buf, len, "%.4g MiB", x / (1024.0 * 1024.0));
    else if (x >= 1024.0) snprintf(buf, len, "%.4g KiB", x / 1024.0);
    else snprintf(buf, len, "%zu bytes", n);
}

static void memory_message(rc_lua_box *b, const char *who, size_t request, size_t in_use)
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
static int refused(rc_lua_box *b, size_t osize, size_t nsize)
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

static void *box_lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    rc_lua_box *b = (rc_lua_box *)ud;
    if (!ptr) osize = 0;    /* then osize is the type of the new object */
    if (nsize == 0) {
        if (!ptr) return NULL;
        b->alloc(b->alloc_ud, ptr, osize, 0);
        b->bytes -= osize;
        return NULL;
    }
    if (refused(b, osize, nsize)) return NULL;   /* Lua collects and retries */
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
    if (refused(b, osize, nsize)) {
        /* final: the kernel reports RC_ERR_NOMEM and does not retry */
        if (!b->hit) memory_message(b, "the kernel", nsize - osize, b->bytes);
        /* the Lua code running stops at its next instruction, even if it
         * ignores the failure (the kernel is called from that thread) */
        if (b->current) lua_sethook(b->current, limit_hook, LUA_MASKCOUNT, 1);
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void limit_hook(lua_State *L, lua_Debug *ar);

/* The hook a thread has when nothing is pending: the counting hook if an
 * instruction or clock limit needs it, else none (a count hook makes Lua
 * 5.4 check every instruction: pure Lua code runs about 1.7 times slower). */
static void base_hook(lua_State *L, const rc_lua_box *b)
{
    if (b->armed && b->hooked) lua_sethook(L, limit_hook, LUA_MASKCOUNT, b->period);
    else lua_sethook(L, NULL, 0, 0);
}

/* Something must stop the thread that runs next: a limit hit, the host's
 * clock ran out, or an interrupt not yet delivered. */
static int pending(const rc_lua_box *b, const lua_State *co)
{
    if (!b->armed) return 0;
    if (b->hit || b->expired) return 1;
    return rc_interrupt_requested() && !b->finishing && (b->sandbox || b->interrupt_seen != co);
}

/* The thread that runs from now on (coroutine switches): if something is
 * pending, its next instruction stops it. */
static void switch_to(rc_lua_box *b, lua_State *co)
{
    b->current = co;
    if (pending(b, co)) lua_sethook(co, limit_hook, LUA_MASKCOUNT, 1);
}

/* The chunk `source` ("@FILE") is one of ricochet's own Lua files: FILE
 * starts with the part before '?' of a template of lua_path. */
static int ricochet_source(const rc_lua_box *b, const char *source)
{
    if (!b->lua_path || source[0] != '@') return 0;
    const char *file = source + 1, *p = b->lua_path;
    while (*p) {
        const char *e = strchr(p, ';');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *q = memchr(p, '?', n);
        if (q && q > p && strncmp(file, p, (size_t)(q - p)) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* " (at FILE:LINE)" of the innermost Lua function running outside
 * ricochet's own files (the script's line), else of the innermost one; or
 * "". */
static void where(lua_State *L, char *buf, size_t n)
{
    lua_Debug ar;
    rc_lua_box *b = rc__lua_box(L);
    buf[0] = '\0';
    for (int level = 0; level < 64 && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar)) break;
        if (ar.currentline <= 0) continue;
        if (!buf[0]) snprintf(buf, n, " (at %s:%d)", ar.short_src, ar.currentline);
        if (!b || !ricochet_source(b, ar.source)) {
            snprintf(buf, n, " (at %s:%d)", ar.short_src, ar.currentline);
            return;
        }
    }
}

/* Raise the limit's message; from now on every instruction of this thread
 * raises it too. */
static int raise_hit(lua_State *L, rc_lua_box *b)
{
    lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, b->message);
    return lua_error(L);
}

static void trip(lua_State *L, rc_lua_box *b, rc_lua_limit kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void trip(lua_State *L, rc_lua_box *b, rc_lua_limit kind, const char *fmt, ...)
{
    char at[300];
    where(L, at, sizeof at);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->message, sizeof b->message, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof b->message)
        snprintf(b->message + n, sizeof b->message - (size_t)n, "%s", at);
    b->hit = kind;
    raise_hit(L, b);
}

static int raise_interrupt(lua_State *L, rc_lua_box *b)
{
    if (b->sandbox) {
        /* an untrusted script may not catch it and go on */
        lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1);
    } else {
        /* trusted code may catch it to clean up (as lua.c does): once in
         * each thread it reaches */
        b->interrupt_seen = L;
        base_hook(L, b);
    }
    push_interrupted(L);
    return lua_error(L);
}

/* The checks of a tick (and of rc__lua_charge). Raises if a limit is
 * exceeded or an interrupt is pending; returns otherwise. */
static void check(lua_State *L, rc_lua_box *b)
{
    const rc_lua_limits *m = &b->lim;
    if (b->hit) raise_hit(L, b);
    if (b->expired)
        trip(L, b, RC_LUA_LIMIT_SECONDS, "time limit exceeded: the run took more than %g s (wall clock)", m->max_seconds);
    if (rc_interrupt_requested()) {
        if (!b->finishing && (b->sandbox || b->interrupt_seen != L)) raise_interrupt(L, b);
    } else {
        b->interrupt_seen = NULL;
    }
    if (m->max_instructions > 0 && b->instructions > m->max_instructions)
        trip(L, b, RC_LUA_LIMIT_INSTRUCTIONS, "instruction limit exceeded: the run executed more than %lld Lua instructions",
             m->max_instructions);
    if (b->cb_depth > 0 && m->max_callback_instructions > 0
        && b->instructions - b->cb_start > m->max_callback_instructions)
        trip(L, b, RC_LUA_LIMIT_CALLBACK_INSTRUCTIONS,
             "callback instruction limit exceeded: a function called by the kernel executed more than %lld Lua instructions",
             m->max_callback_instructions);
    if (m->max_seconds > 0.0 && !b->host_clock && now_s() - b->t0 > m->max_seconds)
        trip(L, b, RC_LUA_LIMIT_SECONDS, "time limit exceeded: the run took more than %g s (wall clock)", m->max_seconds);
}

static void limit_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    rc_lua_box *b = rc__lua_box(L);
    if (!b || !b->armed) {
        lua_sethook(L, NULL, 0, 0);
        return;
    }
    int count = lua_gethookcount(L);
    if (b->hooked && count == b->period) b->instructions += b->period;
    check(L, b);
    /* nothing to raise: a one-instruction hook set for something that is
     * no longer pending goes back to the thread's usual one */
    if (count != b->period || !b->hooked) base_hook(L, b);
}

/* In a state not opened by rc_lua_open (rc_lua_interrupt): raise once. */
static void plain_interrupt_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    push_interrupted(L);
    lua_error(L);
}

void rc_lua_interrupt(lua_State *L)
{
    rc_request_interrupt();
    if (!L) return;
    rc_lua_box *b = rc__lua_box(L);
    if (!b) {
        lua_sethook(L, plain_interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
        return;
    }
    lua_State *c = b->current;
    lua_sethook(c ? c : b->L, limit_hook, LUA_MASKCOUNT, 1);
}

void rc_lua_expire(lua_State *L)
{
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    if (!b || !b->armed) return;
    b->expired = 1;
    lua_State *c = b->current;
    lua_sethook(c ? c : b->L, limit_hook, LUA_MASKCOUNT, 1);
}

void rc__lua_charge(lua_State *L, long long units)
{
    rc_lua_box *b = rc__lua_box(L);
    if (!b) {
        if (rc_interrupt_requested()) {
            push_interrupted(L);
            lua_error(L);
        }
        return;
    }
    if (!b->armed) return;
    b->instructions += units;
    b->charged += units;
    if (b->charged >= b->period || b->hit || b->expired || rc_interrupt_requested()) {
        b->charged = 0;
        check(L, b);
    }
}

/* the hook's period: 1000 instructions, finer for small instruction limits */
static int hook_period(const rc_lua_limits *m)
{
    long long p = RC_LUA_PERIOD;
    if (m->max_instructions > 0 && m->max_instructions / 100 < p) p = m->max_instructions / 100;
    if (m->max_callback_instructions > 0 && m->max_callback_instructions / 100 < p)
        p = m->max_callback_instructions / 100;
    return p < 1 ? 1 : (int)p;
}

static void arm(rc_lua_box *b)
{
    const rc_lua_limits *m = &b->lim;
    b->period = hook_period(m);
    b->hooked = m->max_instructions > 0 || m->max_callback_instructions > 0
             || (m->max_seconds > 0.0 && !b->host_clock);
    b->instructions = 0;
    b->charged = 0;
    b->cb_depth = 0;
    b->cb_start = 0;
    b->t0 = now_s();
    b->hit = RC_LUA_LIMIT_NONE;
    b->message[0] = '\0';
    b->expired = 0;
    b->refusals = 0;
    b->armed = 1;
    base_hook(b->L, b);
}

/* After the run of a sandboxed script: closing its outputs runs Lua code
 * (ricochet's, but the script could have replaced any table field it uses),
 * so it runs under limits of its own: a little more memory than the run
 * had, RC_FINISH_INSTRUCTIONS instructions and RC_FINISH_SECONDS; an
 * interrupt no longer stops it (the host's second SIGINT still can). */
#define RC_FINISH_INSTRUCTIONS 50000000LL
#define RC_FINISH_SECONDS 10.0

static void arm_finishing(rc_lua_box *b)
{
    if (b->hit && !b->run_hit) {
        b->run_hit = b->hit;
        memcpy(b->run_message, b->message, sizeof b->message);
    }
    rc_lua_limits m = b->lim;
    m.max_instructions = RC_FINISH_INSTRUCTIONS;
    m.max_callback_instructions = 0;
    m.max_seconds = RC_FINISH_SECONDS;
    if (m.max_memory > 0) {
        size_t extra = m.max_memory / 8 > ((size_t)16 << 20) ? m.max_memory / 8 : ((size_t)16 << 20);
        size_t base = b->bytes > m.max_memory ? b->bytes : m.max_memory;
        m.max_memory = base + extra;
    }
    b->lim = m;
    b->finishing = 1;
    b->host_clock = 0;
    arm(b);
}

void rc_lua_callback_enter(lua_State *L)
{
    rc_lua_box *b = rc__lua_box(L);
    if (!b) return;
    if (b->cb_depth++ == 0) b->cb_start = b->instructions;
}

void rc_lua_callback_leave(lua_State *L)
{
    rc_lua_box *b = rc__lua_box(L);
    if (b && b->cb_depth > 0) b->cb_depth--;
}

/* The error at idx mentions memory (Lua's "not enough memory", or a kernel
 * "out of memory" passed on as a message). */
static int mentions_memory(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING) return 0;
    const char *s = lua_tostring(L, idx);
    return strstr(s, "not enough memory") != NULL || strstr(s, "out of memory") != NULL;
}

/* After a failed protected call (status, error value at idx): a memory
 * error after the limit refused an allocation is the limit's; a limit hit
 * is re-raised. */
static void reraise_if_limit(lua_State *L, rc_lua_box *b, int status, long long refusals0, int idx)
{
    if (!b->hit && b->refusals > refusals0 && (status == LUA_ERRMEM || mentions_memory(L, idx)))
        memory_message(b, "the script", b->refused_request, b->refused_in_use);
    if (b->hit) raise_hit(L, b);
}

/* pcall and xpcall as in lbaselib.c (Lua 5.4), plus the check above. The
 * continuation context holds the number of results to skip (0 or 2) and the
 * refusal count at the call. */
static int finish_pcall(lua_State *L, int status, lua_KContext ctx)
{
    int extra = (int)(ctx & 3);
    if (status != LUA_OK && status != LUA_YIELD) {
        rc_lua_box *b = rc__lua_box(L);
        if (b && b->armed) reraise_if_limit(L, b, status, (long long)(ctx >> 2), -1);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - extra;
}

static lua_KContext pcall_ctx(lua_State *L, int extra)
{
    rc_lua_box *b = rc__lua_box(L);
    return (lua_KContext)((b ? b->refusals : 0) * 4 + extra);
}

static int l_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    lua_KContext ctx = pcall_ctx(L, 0);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, ctx, finish_pcall);
    return finish_pcall(L, status, ctx);
}

static int l_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    lua_KContext ctx = pcall_ctx(L, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, ctx, finish_pcall);
    return finish_pcall(L, status, ctx);
}

/* coroutine.resume and coroutine.close: the original (upvalue 1) with the
 * running thread tracked, then the check if it returned false, error. */
static int after_resume(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    rc_lua_box *b = rc__lua_box(L);
    if (!b) return lua_gettop(L);
    switch_to(b, L);
    if (b->armed && lua_gettop(L) >= 2 && lua_type(L, 1) == LUA_TBOOLEAN && !lua_toboolean(L, 1))
        reraise_if_limit(L, b, LUA_ERRRUN, (long long)ctx, 2);
    return lua_gettop(L);
}

static int l_resume_checked(lua_State *L)
{
    rc_lua_box *b = rc__lua_box(L);
    luaL_checktype(L, 1, LUA_TTHREAD);   /* (the original's check, with this function's name) */
    lua_State *co = lua_tothread(L, 1);
    lua_KContext ctx = (lua_KContext)(b ? b->refusals : 0);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (b && co) switch_to(b, co);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, ctx, after_resume);
    return after_resume(L, LUA_OK, ctx);
}

/* table.sort runs its comparisons inside C when no Lua comparator is given:
 * they count (n log2 n of them) before it starts, so that an instruction
 * limit refuses a sort of tens of millions of items up front. */
static int l_sort_counted(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TTABLE) luaL_checktype(L, 1, LUA_TTABLE);   /* the original's message */
    {
        long long n = (long long)lua_rawlen(L, 1), bits = 0;
        while (bits < 62 && (1LL << bits) < n) bits++;
        if (n > 1) rc__lua_charge(L, n * bits);
    }
    return rc__lua_call_original(L);
}

/* The function made by coroutine.wrap: the original one (upvalue 1) with the
 * running thread (upvalue 2: the coroutine) tracked. Its errors go on. */
static int wrap_done(lua_State *L, int status, lua_KContext ctx)
{
    (void)ctx;
    rc_lua_box *b = rc__lua_box(L);
    if (b) switch_to(b, L);
    if (status != LUA_OK && status != LUA_YIELD) {
        /* as lcorolib's auxwrap: the caller's position before a string error
         * (the original, called from here, found no position to add) */
        if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "not enough memory") != 0) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    return lua_gettop(L);
}

static int l_wrap_call(lua_State *L)
{
    rc_lua_box *b = rc__lua_box(L);
    lua_State *co = lua_tothread(L, lua_upvalueindex(2));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (b && co) switch_to(b, co);
    int status = lua_pcallk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, 0, wrap_done);
    return wrap_done(L, status, 0);
}

static int l_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);        /* the original's function */
    if (!lua_getupvalue(L, -1, 1)) lua_pushnil(L);   /* its coroutine */
    lua_pushcclosure(L, l_wrap_call, 2);
    return 1;
}

/* Call the original function (upvalue 1) with the arguments as given. */
int rc__lua_call_original(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* Replace t[field] by fn with the original as upvalue 1. */
void rc__lua_wrap_field(lua_State *L, int table, const char *field, lua_CFunction fn)
{
    table = lua_absindex(L, table);
    lua_getfield(L, table, field);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, table, field);
}

/* ================================================================ opening */

static int sandbox_run(lua_State *L);

/* package.preload["ricochet.sandbox"]: { run = sandbox_run } */
static int open_sandbox_module(lua_State *L)
{
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, sandbox_run);
    lua_setfield(L, -2, "run");
    return 1;
}

struct open_args {
    rc_lua_box *b;
    const rc_lua_def *def;
};

/* The setup that allocates, under lua_pcall. */
static int setup(lua_State *L)
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
    lua_pushcfunction(L, l_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, l_xpcall);
    lua_setglobal(L, "xpcall");
    lua_getglobal(L, "coroutine");
    rc__lua_wrap_field(L, -1, "resume", l_resume_checked);
    rc__lua_wrap_field(L, -1, "close", l_resume_checked);
    rc__lua_wrap_field(L, -1, "wrap", l_wrap);
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    rc__lua_wrap_field(L, -1, "sort", l_sort_counted);
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
    lua_State *L = lua_newstate(box_lua_alloc, b);
    if (!L) {
        box_free(b);
        return rc_set_error(RC_ERR_NOMEM, "rc_lua_open: cannot create the Lua state (out of memory)");
    }
    b->L = L;
    b->current = L;
    install_kernel_alloc(b);
    struct open_args a = { b, def };
    lua_pushcfunction(L, setup);
    lua_pushlightuserdata(L, &a);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        s = rc_set_error(RC_ERR_NOMEM, "rc_lua_open: %s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "setup failed");
        rc_lua_close(L);
        return s;
    }
    arm(b);
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
    arm(b);
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
    u.seconds = b->ended ? b->run_seconds : now_s() - b->t0;
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
        b->run_seconds = now_s() - b->t0;
    }
    if (b && b->armed && !b->hit && b->expired) {   /* the host's clock ran out during a C call */
        b->hit = RC_LUA_LIMIT_SECONDS;
        snprintf(b->message, sizeof b->message, "time limit exceeded: the run took more than %g s (wall clock)",
                 b->lim.max_seconds);
    }
    if (status != LUA_OK && b && b->armed && !b->hit && b->refusals > 0
        && (status == LUA_ERRMEM || mentions_memory(L, -1)))
        memory_message(b, "the script", b->refused_request, b->refused_in_use);
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
        arm_finishing(b);
        b->current = L;
        if (L != b->L) base_hook(L, b);
    } else {
        rc_lua_disarm(L);
    }
    if (outcome) *outcome = oc;
    return s;
}

struct run_args {
    const char *path;
    int nargs;
    const char *const *args;
};

static int run_protected(lua_State *L)
{
    struct run_args *a = (struct run_args *)lua_touserdata(L, 1);
    if (rc_lua_load_file(L, a->path) != LUA_OK) return lua_error(L);
    luaL_checkstack(L, a->nargs + 1, "too many arguments");
    for (int i = 0; i < a->nargs; i++) lua_pushstring(L, a->args[i]);
    lua_call(L, a->nargs, 0);
    return 0;
}

/* rc.close_outputs(status, message) if the script loaded ricochet */
static int close_outputs(lua_State *L)
{
    lua_getglobal(L, "package");
    if (!lua_istable(L, -1)) return 0;
    lua_getfield(L, -1, "loaded");
    if (!lua_istable(L, -1)) return 0;
    lua_getfield(L, -1, "ricochet");
    if (!lua_istable(L, -1)) return 0;
    lua_getfield(L, -1, "close_outputs");
    if (!lua_isfunction(L, -1)) return 0;
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 0);
    return 0;
}

rc_status rc_lua_run_file(lua_State *L, const char *path, int nargs, const char *const *args,
                          const char **outcome)
{
    if (outcome) *outcome = "error";
    if (!L || !path || nargs < 0 || (nargs > 0 && !args))
        return rc_set_error(RC_ERR_ARG, "rc_lua_run_file: NULL argument or nargs < 0");
    if (!lua_checkstack(L, 8)) return rc_set_error(RC_ERR_NOMEM, "rc_lua_run_file: Lua stack overflow");
    int top = lua_gettop(L);
    struct run_args a = { path, nargs, args };
    lua_pushcfunction(L, run_protected);
    lua_pushlightuserdata(L, &a);
    int st = lua_pcall(L, 1, 0, 0);
    const char *oc;
    rc_status s = rc_lua_run_outcome(L, st, &oc);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", s == RC_OK ? "" : rc_last_error());
    lua_settop(L, top);
    lua_pushcfunction(L, close_outputs);
    lua_pushstring(L, strcmp(oc, "limit") == 0 ? "error" : oc);
    if (s != RC_OK) lua_pushstring(L, msg); else lua_pushnil(L);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK && s == RC_OK) {
        snprintf(msg, sizeof msg, "closing the outputs: %s",
                 lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error");
        s = RC_ERR_IO;
        oc = "error";
    }
    lua_settop(L, top);
    if (outcome) *outcome = oc;
    if (s != RC_OK) return rc_set_error(s, "%s", msg);
    return RC_OK;
}

/* ================================================================ rc.sandbox */

static const char *opt_string(lua_State *L, int t, const char *key)
{
    lua_getfield(L, t, key);
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1);   /* the string stays alive: it is in the table */
    return s;
}

static double opt_number(lua_State *L, int t, const char *key)
{
    lua_getfield(L, t, key);
    double x = lua_type(L, -1) == LUA_TNUMBER ? (double)lua_tonumber(L, -1) : 0.0;
    lua_pop(L, 1);
    return x;
}

/* Fill the inner state's ricochet.cli options and arg table (protected). */
static int sandbox_options(lua_State *inner)
{
    lua_State *outer = (lua_State *)lua_touserdata(inner, 1);
    int t = 1;   /* the table on the outer stack */
    lua_getglobal(inner, "package");
    lua_getfield(inner, -1, "loaded");
    lua_newtable(inner);
    const char *keys[] = { "script", "out" };
    for (int i = 0; i < 2; i++) {
        const char *v = opt_string(outer, t, keys[i]);
        if (v) {
            lua_pushstring(inner, v);
            lua_setfield(inner, -2, keys[i]);
        }
    }
    double every = opt_number(outer, t, "every");
    if (every >= 1) {
        lua_pushinteger(inner, (lua_Integer)every);
        lua_setfield(inner, -2, "every");
    }
    lua_getfield(outer, t, "quiet");
    lua_pushboolean(inner, lua_isnil(outer, -1) ? 1 : lua_toboolean(outer, -1));
    lua_pop(outer, 1);
    lua_setfield(inner, -2, "quiet");
    lua_newtable(inner);
    if (lua_getfield(outer, t, "set") == LUA_TTABLE) {
        lua_pushnil(outer);
        while (lua_next(outer, -2)) {
            if (lua_type(outer, -2) == LUA_TSTRING && lua_type(outer, -1) == LUA_TSTRING) {
                lua_pushstring(inner, lua_tostring(outer, -2));
                lua_pushstring(inner, lua_tostring(outer, -1));
                lua_settable(inner, -3);
            }
            lua_pop(outer, 1);
        }
    }
    lua_pop(outer, 1);
    lua_setfield(inner, -2, "set");
    lua_newtable(inner);
    lua_createtable(inner, 0, 0);   /* global arg */
    lua_pushstring(inner, opt_string(outer, t, "script"));
    lua_rawseti(inner, -2, 0);
    if (lua_getfield(outer, t, "args") == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(outer, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(outer, -1, i);
            const char *v = lua_tostring(outer, -1);
            lua_pushstring(inner, v ? v : "");
            lua_pushvalue(inner, -1);
            lua_rawseti(inner, -4, i);
            lua_rawseti(inner, -2, i);
            lua_pop(outer, 1);
        }
    }
    lua_pop(outer, 1);
    lua_setglobal(inner, "arg");
    lua_setfield(inner, -2, "args");
    lua_setfield(inner, -2, "ricochet.cli");
    lua_pop(inner, 2);
    return 0;
}

static const char *limit_name(rc_lua_limit k)
{
    switch (k) {
    case RC_LUA_LIMIT_INSTRUCTIONS: return "instructions";
    case RC_LUA_LIMIT_CALLBACK_INSTRUCTIONS: return "callback_instructions";
    case RC_LUA_LIMIT_SECONDS: return "seconds";
    case RC_LUA_LIMIT_MEMORY: return "memory";
    case RC_LUA_LIMIT_NONE: break;
    }
    return NULL;
}

/* ricochet.sandbox.run{ script, out, args, set, quiet, every, max_* }: the
 * arguments are checked by rc.sandbox (init.lua). Runs the script in a new
 * sandboxed state; returns { status, message, limit, instructions, seconds,
 * memory_peak }. The limits are capped by what the calling state has left,
 * and its memory counts against the caller's limit too. */
static int sandbox_run(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    rc_lua_box *outer = rc__lua_box(L);
    if (outer && outer->sandbox) return luaL_error(L, "rc.sandbox is not available inside the sandbox");
    const char *script = opt_string(L, 1, "script");
    if (!script) return luaL_error(L, "rc.sandbox: 'script' is required");
    rc_lua_def d = rc_lua_default_def();
    d.sandbox = 1;
    d.out_dir = opt_string(L, 1, "out");
    /* the script's folder */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", script);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = '\0';
    else if (slash) *slash = '\0';
    else strcpy(dir, ".");
    d.read_dir = dir;
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    d.lua_path = outer && outer->lua_path ? outer->lua_path : lua_tostring(L, -1);
    d.limits.max_instructions = (long long)opt_number(L, 1, "max_instructions");
    d.limits.max_callback_instructions = (long long)opt_number(L, 1, "max_callback_instructions");
    d.limits.max_seconds = opt_number(L, 1, "max_seconds");
    double mm = opt_number(L, 1, "max_memory");
    d.limits.max_memory = mm > 0 ? (size_t)mm : 0;
    if (outer && outer->armed) {
        /* what the caller has left */
        if (outer->lim.max_instructions > 0) {
            long long left = outer->lim.max_instructions - outer->instructions;
            if (left < 1) left = 1;
            if (d.limits.max_instructions == 0 || d.limits.max_instructions > left) d.limits.max_instructions = left;
        }
        if (outer->lim.max_seconds > 0) {
            double left = outer->lim.max_seconds - (now_s() - outer->t0);
            if (left < 1e-3) left = 1e-3;
            if (d.limits.max_seconds == 0 || d.limits.max_seconds > left) d.limits.max_seconds = left;
        }
        d.alloc = box_lua_alloc;   /* the inner state's memory counts for the caller too */
        d.alloc_ud = outer;
    }
    lua_State *inner = NULL;
    rc_status s = rc_lua_open(&d, &inner);
    if (s != RC_OK) return luaL_error(L, "rc.sandbox: %s", rc_last_error());
    lua_pushcfunction(inner, sandbox_options);
    lua_pushlightuserdata(inner, L);
    const char *oc = "error";
    char msg[1024] = "";
    if (lua_pcall(inner, 1, 0, 0) != LUA_OK) {
        snprintf(msg, sizeof msg, "rc.sandbox: %s", lua_tostring(inner, -1) ? lua_tostring(inner, -1) : "setup failed");
        s = RC_ERR_NOMEM;
    } else {
        /* the script's arguments (...): the strings stay in t.args */
        int nargs = 0;
        const char **args = NULL;
        if (lua_getfield(L, 1, "args") == LUA_TTABLE) {
            lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
            if (n > 200) n = 200;   /* what a C stack of Lua holds comfortably */
            args = (const char **)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *args, 0);
            for (lua_Integer i = 1; i <= n; i++) {
                lua_rawgeti(L, -2, i);
                args[nargs++] = lua_tostring(L, -1) ? lua_tostring(L, -1) : "";
                lua_pop(L, 1);
            }
        }
        s = rc_lua_run_file(inner, script, nargs, args, &oc);
        if (s != RC_OK) snprintf(msg, sizeof msg, "%s", rc_last_error());
    }
    rc_lua_limit hit = rc_lua_limit_hit(inner);
    rc_lua_usage u = rc_lua_get_usage(inner);
    rc_lua_close(inner);
    lua_settop(L, 1);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, oc);
    lua_setfield(L, -2, "status");
    if (s != RC_OK) {
        lua_pushstring(L, msg);
        lua_setfield(L, -2, "message");
    }
    if (limit_name(hit)) {
        lua_pushstring(L, limit_name(hit));
        lua_setfield(L, -2, "limit");
    }
    lua_pushinteger(L, (lua_Integer)u.instructions);
    lua_setfield(L, -2, "instructions");
    lua_pushnumber(L, (lua_Number)u.seconds);
    lua_setfield(L, -2, "seconds");
    lua_pushinteger(L, (lua_Integer)u.memory_peak);
    lua_setfield(L, -2, "memory_peak");
    if (outer && outer->armed) rc__lua_charge(L, u.instructions);
    return 1;
}
