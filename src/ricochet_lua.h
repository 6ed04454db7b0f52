/*
 * ricochet_lua.h -- hosting Ricochet's Lua front end in an application.
 *
 * A host (the ricochet program is one) opens a Lua state with the ricochet
 * module ready to require, optionally sandboxed for untrusted scripts and
 * with resource limits, runs scripts in it, and closes it:
 *
 *     rc_lua_def d = rc_lua_default_def();
 *     d.sandbox = 1;                          // untrusted script
 *     d.out_dir = "results";                  // the only folder it may write
 *     d.read_dir = "scenarios";               // a folder it may read (its own)
 *     d.lua_path = "/usr/share/lua/5.4/?.lua;/usr/share/lua/5.4/?/init.lua";
 *     d.limits.max_instructions = 2000000000; // Lua VM instructions, whole run
 *     d.limits.max_seconds = 60;              // wall clock
 *     d.limits.max_memory = 256u << 20;       // bytes, Lua and kernel together
 *     lua_State *L;
 *     if (rc_lua_open(&d, &L) != RC_OK) { puts(rc_last_error()); return; }
 *     const char *outcome;
 *     rc_status s = rc_lua_run_file(L, "scenarios/user.lua", 0, NULL, &outcome);
 *     if (s != RC_OK) printf("%s: %s\n", outcome, rc_last_error());
 *     rc_lua_close(L);
 *
 * What a sandboxed script can and cannot do, what each limit counts and
 * what a host must set: docs/security.md. Link with the ricochet_luahost
 * library (src/lua/: lua_ricochet.c and lrc_*.c, lua_host.c, lua_limits.c,
 * lua_run.c, lua_sandbox.c, lua_strmatch.c), the kernel and Lua 5.4.
 */
#ifndef RICOCHET_LUA_H
#define RICOCHET_LUA_H

#include <stddef.h>

#include <lua.h>

#include "ricochet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Resource limits; 0 means "no limit" for each. */
typedef struct rc_lua_limits {
    long long max_instructions;           /* Lua VM instructions of the whole run (all
                                             coroutines and callbacks; pattern-matching
                                             steps count as instructions)            */
    long long max_callback_instructions;  /* instructions of one call of a Lua function
                                             by the kernel (force function, law, gap,
                                             motion, constraint)                      */
    double max_seconds;                   /* wall clock since rc_lua_open (or the last
                                             rc_lua_set_limits)                        */
    size_t max_memory;                    /* bytes held by the Lua state and the kernel
                                             together (the kernel's allocations made
                                             while the state is open)                 */
} rc_lua_limits;

/* Which limit ended a run. */
typedef enum rc_lua_limit {
    RC_LUA_LIMIT_NONE = 0,
    RC_LUA_LIMIT_INSTRUCTIONS,
    RC_LUA_LIMIT_CALLBACK_INSTRUCTIONS,
    RC_LUA_LIMIT_SECONDS,
    RC_LUA_LIMIT_MEMORY
} rc_lua_limit;

typedef struct rc_lua_def {
    int sandbox;            /* 1: the state runs untrusted code (docs/security.md)    */
    const char *out_dir;    /* sandbox: the folder that may be written (with its
                               subfolders; created on demand by the outputs);
                               NULL: nothing may be written                         */
    const char *read_dir;   /* sandbox: a folder that may be read besides out_dir, and
                               whose .lua files require finds (the script's folder);
                               NULL: none                                           */
    const char *lua_path;   /* where ricochet's own Lua files are, as package.path
                               templates ("DIR/?.lua;DIR/?/init.lua"); prepended to
                               package.path. NULL: package.path as Lua sets it
                               (LUA_PATH). In a sandbox, only modules named ricochet
                               and ricochet.* are searched there                    */
    rc_lua_limits limits;
    int host_clock;         /* 1: the host measures limits.max_seconds itself and calls
                               rc_lua_expire when it has passed (e.g. from a SIGALRM
                               handler, as the ricochet program does): then no count
                               hook is needed for the clock                          */
    rc_alloc_fn alloc;      /* the allocator under the state and, while the state is
                               open, under the kernel (NULL: the C library's)       */
    void *alloc_ud;
} rc_lua_def;

/* sandbox 0, no folders, no limits, the C library's allocator. */
RC_API rc_lua_def rc_lua_default_def(void);

/* A new Lua state with the standard libraries, package.preload["ricochet.core"]
 * (the C half of the module) and def->lua_path in package.path: require
 * "ricochet" works. In every state opened here, a loop anywhere (coroutines,
 * pattern matching included) stops on rc_request_interrupt(), and the
 * limits apply. With def->sandbox, the script's environment is restricted
 * (docs/security.md). Fails with RC_ERR_ARG (a bad definition) or
 * RC_ERR_NOMEM. */
RC_API rc_status rc_lua_open(const rc_lua_def *def, lua_State **L);

/* The same with def.sandbox = 1, def.out_dir = out_dir and def.limits =
 * *limits (NULL: none); lua_path NULL, read_dir NULL. */
RC_API rc_status rc_lua_open_sandboxed(const char *out_dir, const rc_lua_limits *limits, lua_State **L);

/* Ask the state to stop (async-signal-safe: call it from a signal handler
 * on the thread that runs L, as lua.c does): rc_request_interrupt() (the
 * kernel refuses the next step), and the Lua code running, in whatever
 * coroutine, raises "interrupted by SIGINT or the host
 * (rc_request_interrupt)" at its next instruction. In a normal state the
 * error is raised once (trusted code may catch it to clean up); in a
 * sandbox, every instruction raises it until the run ends. Pattern matching
 * in progress stops too. */
RC_API void rc_lua_interrupt(lua_State *L);

/* The host's clock says limits.max_seconds have passed (async-signal-safe,
 * see rc_lua_interrupt): the run ends with the time limit's error at the
 * next instruction. */
RC_API void rc_lua_expire(lua_State *L);

/* New limits; restarts the instruction count and the clock and forgets a
 * limit that was hit (a host that runs several scripts in one state). */
RC_API rc_status rc_lua_set_limits(lua_State *L, const rc_lua_limits *limits);

/* luaL_loadfilex(L, path, "t"): a script is always loaded as text (a
 * precompiled chunk is refused). Returns a Lua status, the chunk or the
 * message on the stack. */
RC_API int rc_lua_load_file(lua_State *L, const char *path);

/* Loads path (text only) and calls it with the strings args[0..nargs-1]
 * as its arguments (...). Afterwards, whatever happened, closes the outputs
 * the script left open, with status "complete", "error" or "interrupted" and
 * the message (the limits lifted, or in a sandbox replaced by limits of the
 * closing's own: see rc_lua_run_outcome). Returns RC_OK,
 * RC_ERR_LIMIT (a limit ended the run), RC_ERR_INTERRUPTED or
 * RC_ERR_CALLBACK (the script failed; the message, with the script's line,
 * in rc_last_error()). *outcome (may be NULL) gets "complete", "error",
 * "limit" or "interrupted". */
RC_API rc_status rc_lua_run_file(lua_State *L, const char *path, int nargs, const char *const *args,
                          const char **outcome);

/* For hosts that call the script themselves (lua_pcall): after the call
 * returned `status` (the error value on the top of the stack if not
 * LUA_OK), says how the run ended and sets rc_last_error() to the message
 * (a memory error after the memory limit refused an allocation becomes the
 * limit's message). Then the limits are lifted (normal state) or, in a
 * sandbox, replaced by limits for closing the outputs (its Lua code uses
 * tables the script could have changed: 50 million instructions, 10 s, the
 * memory limit plus an eighth). Returns RC_OK, RC_ERR_LIMIT,
 * RC_ERR_INTERRUPTED or RC_ERR_CALLBACK; *outcome as rc_lua_run_file. The
 * host then closes the outputs (rc.close_outputs(status, message)). */
RC_API rc_status rc_lua_run_outcome(lua_State *L, int status, const char **outcome);

/* The limit that ended the run (RC_LUA_LIMIT_NONE if none), and its message,
 * e.g. "memory limit exceeded: ..." (NULL if none). A limit, once hit, stays
 * hit: every later Lua instruction, pcall or coroutine.resume in the state
 * raises the same message, so that the script cannot go on. */
RC_API rc_lua_limit rc_lua_limit_hit(lua_State *L);
RC_API const char *rc_lua_limit_error(lua_State *L);

/* Stops enforcing the limits (the state can then run trusted code: close
 * outputs, print a summary); a limit that was hit stays reported. */
RC_API void rc_lua_disarm(lua_State *L);

/* What the run used so far (after rc_lua_run_file or rc_lua_run_outcome:
 * what the run used, without the closing of its outputs). */
typedef struct rc_lua_usage {
    long long instructions;     /* counted (to within the hook period, <= 1000)
                                   only while an instruction limit is set         */
    double seconds;
    size_t memory;              /* bytes held now by Lua and the kernel         */
    size_t memory_peak;
    size_t kernel_memory;       /* of which the kernel's                        */
} rc_lua_usage;
RC_API rc_lua_usage rc_lua_get_usage(lua_State *L);

/* Closes the state (outputs still open are closed "error" by the worlds'
 * finalizers: call rc_lua_run_file or close them first) and restores the
 * kernel's allocator. Use this instead of lua_close for states opened here. */
RC_API void rc_lua_close(lua_State *L);

/* For bindings: bracket each call of Lua code made from inside the kernel
 * (the per-callback instruction limit counts between them). Cheap; no-ops in
 * states not opened by rc_lua_open. */
RC_API void rc_lua_callback_enter(lua_State *L);
RC_API void rc_lua_callback_leave(lua_State *L);

/* 1 if L was opened by rc_lua_open with def->sandbox. */
RC_API int rc_lua_is_sandboxed(lua_State *L);

#ifdef __cplusplus
}
#endif

#endif
