/* lua_limits.c -- the Lua host's limits: the count hook, instruction and
 * time checks, interrupts that reach the running coroutine, charged work,
 * callbacks' own limit, pcall/coroutine wrappers that keep limit errors
 * fatal (lua_host.c has the overview). */
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

double rc__lua_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The hook a thread has when nothing is pending: the counting hook if an
 * instruction or clock limit needs it, else none (a count hook makes Lua
 * 5.4 check every instruction: pure Lua code runs about 1.7 times slower). */
void rc__lua_base_hook(lua_State *L, const rc_lua_box *b)
{
    if (b->armed && b->hooked) lua_sethook(L, rc__lua_limit_hook, LUA_MASKCOUNT, b->period);
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
    if (pending(b, co)) lua_sethook(co, rc__lua_limit_hook, LUA_MASKCOUNT, 1);
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
    lua_sethook(L, rc__lua_limit_hook, LUA_MASKCOUNT, 1);
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
        lua_sethook(L, rc__lua_limit_hook, LUA_MASKCOUNT, 1);
    } else {
        /* trusted code may catch it to clean up (as lua.c does): once in
         * each thread it reaches */
        b->interrupt_seen = L;
        rc__lua_base_hook(L, b);
    }
    rc__lua_push_interrupted(L);
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
    if (m->max_seconds > 0.0 && !b->host_clock && rc__lua_now_s() - b->t0 > m->max_seconds)
        trip(L, b, RC_LUA_LIMIT_SECONDS, "time limit exceeded: the run took more than %g s (wall clock)", m->max_seconds);
}

void rc__lua_limit_hook(lua_State *L, lua_Debug *ar)
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
    if (count != b->period || !b->hooked) rc__lua_base_hook(L, b);
}

/* In a state not opened by rc_lua_open (rc_lua_interrupt): raise once. */
static void plain_interrupt_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    rc__lua_push_interrupted(L);
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
    lua_sethook(c ? c : b->L, rc__lua_limit_hook, LUA_MASKCOUNT, 1);
}

void rc_lua_expire(lua_State *L)
{
    rc_lua_box *b = L ? rc__lua_box(L) : NULL;
    if (!b || !b->armed) return;
    b->expired = 1;
    lua_State *c = b->current;
    lua_sethook(c ? c : b->L, rc__lua_limit_hook, LUA_MASKCOUNT, 1);
}

void rc__lua_charge(lua_State *L, long long units)
{
    rc_lua_box *b = rc__lua_box(L);
    if (!b) {
        if (rc_interrupt_requested()) {
            rc__lua_push_interrupted(L);
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

void rc__lua_arm(rc_lua_box *b)
{
    const rc_lua_limits *m = &b->lim;
    b->period = hook_period(m);
    b->hooked = m->max_instructions > 0 || m->max_callback_instructions > 0
             || (m->max_seconds > 0.0 && !b->host_clock);
    b->instructions = 0;
    b->charged = 0;
    b->cb_depth = 0;
    b->cb_start = 0;
    b->t0 = rc__lua_now_s();
    b->hit = RC_LUA_LIMIT_NONE;
    b->message[0] = '\0';
    b->expired = 0;
    b->refusals = 0;
    b->armed = 1;
    rc__lua_base_hook(b->L, b);
}

/* After the run of a sandboxed script: closing its outputs runs Lua code
 * (ricochet's, but the script could have replaced any table field it uses),
 * so it runs under limits of its own: a little more memory than the run
 * had, RC_FINISH_INSTRUCTIONS instructions and RC_FINISH_SECONDS; an
 * interrupt no longer stops it (the host's second SIGINT still can). */
#define RC_FINISH_INSTRUCTIONS 50000000LL
#define RC_FINISH_SECONDS 10.0

void rc__lua_arm_finishing(rc_lua_box *b)
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
    rc__lua_arm(b);
}

void rc_lua_callback_enter(lua_State *L)
{
    rc__lua_cb_enter(rc__lua_box(L));
}

void rc_lua_callback_leave(lua_State *L)
{
    rc__lua_cb_leave(rc__lua_box(L));
}

/* The error at idx mentions memory (Lua's "not enough memory", or a kernel
 * "out of memory" passed on as a message). */
int rc__lua_mentions_memory(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING) return 0;
    const char *s = lua_tostring(L, idx);
    return strstr(s, "not enough memory") != NULL || strstr(s, "out of memory") != NULL;
}

/* After a failed protected call (status, error value at idx): a memory
 * error after the limit rc__lua_refused an allocation is the limit's; a limit hit
 * is re-raised. */
static void reraise_if_limit(lua_State *L, rc_lua_box *b, int status, long long refusals0, int idx)
{
    if (!b->hit && b->refusals > refusals0 && (status == LUA_ERRMEM || rc__lua_mentions_memory(L, idx)))
        rc__lua_memory_message(b, "the script", b->refused_request, b->refused_in_use);
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

int rc__lua_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    lua_KContext ctx = pcall_ctx(L, 0);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, ctx, finish_pcall);
    return finish_pcall(L, status, ctx);
}

int rc__lua_xpcall(lua_State *L)
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

int rc__lua_resume_checked(lua_State *L)
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
int rc__lua_sort_counted(lua_State *L)
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

int rc__lua_wrap(lua_State *L)
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
