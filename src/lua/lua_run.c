/* lua_run.c -- running a script in a host state (rc_lua_run_file: the
 * protected run, outputs closed at its end) and rc.sandbox (a script in a new
 * sandboxed state, its options and outcome) (lua_host.c has the overview). */
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
    const char *keys[] = { "script", "out", "format" };
    for (int i = 0; i < 3; i++) {
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

/* ricochet.sandbox.run{ script, out, args, set, quiet, every, format, max_* }: the
 * arguments are checked by rc.sandbox (init.lua). Runs the script in a new
 * sandboxed state; returns { status, message, limit, instructions, seconds,
 * memory_peak }. The limits are capped by what the calling state has left,
 * and its memory counts against the caller's limit too. */
int rc__lua_sandbox_run(lua_State *L)
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
            double left = outer->lim.max_seconds - (rc__lua_now_s() - outer->t0);
            if (left < 1e-3) left = 1e-3;
            if (d.limits.max_seconds == 0 || d.limits.max_seconds > left) d.limits.max_seconds = left;
        }
        d.alloc = rc__lua_box_lua_alloc;   /* the inner state's memory counts for the caller too */
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
        snprintf(msg, sizeof msg, "rc.sandbox: %s", lua_tostring(inner, -1) ? lua_tostring(inner, -1) : "rc__lua_setup failed");
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
