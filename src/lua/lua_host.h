/* lua_host.h -- internal to the Lua host (lua_host.c, lua_limits.c, lua_run.c, lua_sandbox.c, lua_strmatch.c;
 * lrc_laws.c uses the callback bracket below). */
#ifndef RC_LUA_HOST_H
#define RC_LUA_HOST_H

#include <signal.h>
#include <stddef.h>

#include <lua.h>

#include "ricochet.h"
#include "ricochet_lua.h"

/* The state of a Lua state opened by rc_lua_open: the ud of its allocator
 * (rc__lua_box finds it from any thread), its limits and counters, its
 * sandbox's folders. */
typedef struct rc_lua_box rc_lua_box;
struct rc_lua_box {
    rc_alloc_fn alloc;          /* the allocator under the box */
    void *alloc_ud;
    lua_State *L;               /* main thread */
    rc_lua_limits lim;
    int sandbox;
    int armed;                  /* limits enforced */
    int closed;                 /* rc_lua_close was called (the box lives on
                                   while kernel blocks it made are alive) */
    /* memory */
    size_t bytes, peak, kernel_bytes;
    long long kernel_blocks;
    long long refusals;         /* allocations refused by the limit */
    size_t refused_request, refused_in_use;
    /* the kernel's allocator: a stack of open boxes */
    int installed;
    rc_lua_box *below, *above;
    /* instructions and time */
    int period;
    long long instructions;     /* counted at ticks and by rc__lua_charge */
    long long charged;          /* charged since the last check */
    long long cb_start;
    int cb_depth;
    double t0;
    lua_State *interrupt_seen;  /* normal states: the thread that got the interrupt last
                                   (raised once per thread it reaches) */
    int hooked;                 /* the count hook is on (instruction or clock limits) */
    int host_clock;             /* the host calls rc_lua_expire for max_seconds */
    volatile sig_atomic_t expired;          /* rc_lua_expire was called */
    lua_State *volatile current;            /* the thread running (coroutine switches) */
    /* the limit hit */
    rc_lua_limit hit;
    char message[768];
    /* after the run: the limit that ended it (kept while finishing) */
    int finishing;
    int ended;                  /* rc_lua_run_outcome took the usage below */
    long long run_instructions;
    double run_seconds;
    rc_lua_limit run_hit;
    char run_message[768];
    /* sandbox */
    char *out_dir, *read_dir, *lua_path;
};

/* rc_lua_callback_enter/leave on a box found once (NULL: a state not opened
 * by rc_lua_open): lrc_laws.c brackets every call of a Lua law with them. */
static inline void rc__lua_cb_enter(rc_lua_box *b)
{
    if (b && b->cb_depth++ == 0) b->cb_start = b->instructions;
}

static inline void rc__lua_cb_leave(rc_lua_box *b)
{
    if (b && b->cb_depth > 0) b->cb_depth--;
}

/* The box of L, or NULL for a state not opened by rc_lua_open. */
rc_lua_box *rc__lua_box(lua_State *L);

/* Calls upvalue 1 (the function a wrapper replaces) with the arguments as
 * given; returns all its results. */
int rc__lua_call_original(lua_State *L);

/* Replaces t[field] (t at index `table`) by fn, with the original as its
 * upvalue 1. */
void rc__lua_wrap_field(lua_State *L, int table, const char *field, lua_CFunction fn);

/* lua_sandbox.c: restrict the global environment of L (protected call, main
 * thread); package.preload["ricochet.core"] (wrapped in a sandbox). */
void rc__lua_apply_sandbox(lua_State *L, rc_lua_box *b);
int rc__lua_preload_core(lua_State *L);

/* Charge `units` of work done inside a C function (pattern-matching steps)
 * to the state's instruction count, as if they were Lua instructions; raises
 * the limit's error if a limit is now exceeded, or "interrupted" after
 * rc_request_interrupt(). No-op (except the interrupt check) in states not
 * opened by rc_lua_open. */
void rc__lua_charge(lua_State *L, long long units);

/* Replace string.find/match/gmatch/gsub by the counted versions. */
void rc__lua_open_strmatch(lua_State *L);

/* Shared by lua_host.c, lua_limits.c, lua_run.c. */
#include <limits.h>
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int luaopen_ricochet_core(lua_State *L);

/* instructions between two ticks of the hook when no instruction limit asks
 * for finer counting */
#define RC_LUA_PERIOD 1000

void rc__lua_push_interrupted(lua_State *L);
void rc__lua_memory_message(rc_lua_box *b, const char *who, size_t request, size_t in_use);
int rc__lua_refused(rc_lua_box *b, size_t osize, size_t nsize);
void *rc__lua_box_lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
int rc__lua_setup(lua_State *L);
double rc__lua_now_s(void);
void rc__lua_base_hook(lua_State *L, const rc_lua_box *b);
void rc__lua_limit_hook(lua_State *L, lua_Debug *ar);
void rc__lua_arm(rc_lua_box *b);
void rc__lua_arm_finishing(rc_lua_box *b);
int rc__lua_mentions_memory(lua_State *L, int idx);
int rc__lua_pcall(lua_State *L);
int rc__lua_xpcall(lua_State *L);
int rc__lua_resume_checked(lua_State *L);
int rc__lua_sort_counted(lua_State *L);
int rc__lua_wrap(lua_State *L);
int rc__lua_sandbox_run(lua_State *L);

#endif
