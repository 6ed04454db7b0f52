/*
 * lua_sandbox.c -- the restricted environment of a sandboxed Lua state
 * (rc_lua_def.sandbox, ricochet run --sandbox; docs/security.md).
 *
 * Functions that reach the system are replaced by ones that refuse with a
 * message naming them; file paths are resolved and checked against two
 * folders (out_dir: write and read; read_dir: read); require finds
 * ricochet's own modules (loaded as text in a private environment that also
 * has debug.getinfo) and the script's .lua files only; chunks load as text
 * only; finalizers (__gc, which Lua runs with hooks off) are refused; the
 * kernel's output functions are checked like io.open. The limits, hooks and
 * the opening of states are in lua_host.c.
 */
#define _XOPEN_SOURCE 700   /* realpath */

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lua_host.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int luaopen_ricochet_core(lua_State *L);

/* ================================================================ paths */

/* The absolute, symlink-free form of path, which need not exist: realpath
 * of its longest existing prefix, then the rest, whose components may not be
 * ".." (refused: it cannot be resolved). Returns 0 if path cannot be
 * resolved. */
static int resolve_path(const char *path, char *out, size_t n)
{
    char buf[PATH_MAX], tail[PATH_MAX] = "", rp[PATH_MAX];
    if (!path || !*path) return 0;
    if (path[0] == '/') {
        if (strlen(path) >= sizeof buf) return 0;
        strcpy(buf, path);
    } else {
        if (!getcwd(buf, sizeof buf)) return 0;
        size_t l = strlen(buf);
        if (l + 1 + strlen(path) >= sizeof buf) return 0;
        buf[l] = '/';
        strcpy(buf + l + 1, path);
    }
    for (;;) {
        if (realpath(buf, rp)) {
            size_t lr = strlen(rp), lt = strlen(tail);
            if (lr == 1) lr = 0;                       /* "/" + "/x" */
            if (lr + lt + 1 > n || lr + lt == 0) {
                if (lr + lt == 0 && n >= 2) { strcpy(out, "/"); return 1; }
                return 0;
            }
            memcpy(out, rp, lr);
            memcpy(out + lr, tail, lt + 1);
            return 1;
        }
        if (errno != ENOENT) return 0;
        size_t l = strlen(buf);
        while (l > 1 && buf[l - 1] == '/') buf[--l] = '\0';
        char *slash = strrchr(buf, '/');
        if (!slash) return 0;
        const char *comp = slash + 1;
        if (strcmp(comp, "..") == 0) return 0;
        if (comp[0] && strcmp(comp, ".") != 0) {
            size_t lc = strlen(comp), lt = strlen(tail);
            if (lc + 1 + lt + 1 > sizeof tail) return 0;
            memmove(tail + lc + 1, tail, lt + 1);
            tail[0] = '/';
            memcpy(tail + 1, comp, lc);
        }
        if (slash == buf) buf[1] = '\0';
        else *slash = '\0';
    }
}

static int inside(const char *p, const char *root)
{
    size_t r = strlen(root);
    if (r == 1 && root[0] == '/') return 1;
    return strncmp(p, root, r) == 0 && (p[r] == '\0' || p[r] == '/');
}

static int inside_dir(const char *resolved, const char *dir)
{
    char root[PATH_MAX];
    return dir && resolve_path(dir, root, sizeof root) && inside(resolved, root);
}

enum { ACCESS_READ, ACCESS_WRITE };

/* 1 if the sandbox allows the access; else 0 and why[] says so. */
static int allowed(const rc_lua_box *b, const char *path, int access, char *why, size_t n)
{
    char p[PATH_MAX];
    if (!resolve_path(path, p, sizeof p)) {
        snprintf(why, n, "%s: the path cannot be resolved (the sandbox checks every path it opens)", path);
        return 0;
    }
    if (inside_dir(p, b->out_dir)) return 1;
    if (access == ACCESS_READ && inside_dir(p, b->read_dir)) return 1;
    if (access == ACCESS_WRITE) {
        if (b->out_dir)
            snprintf(why, n, "%s: writing outside the output folder '%s' is not allowed in the sandbox", path, b->out_dir);
        else
            snprintf(why, n, "%s: writing is not allowed in the sandbox (no output folder was given)", path);
    } else {
        snprintf(why, n, "%s: reading is not allowed in the sandbox (only in the script's folder '%s' and the output folder '%s')",
                 path, b->read_dir ? b->read_dir : "(none)", b->out_dir ? b->out_dir : "(none)");
    }
    return 0;
}

static rc_lua_box *sandbox_box(lua_State *L)
{
    rc_lua_box *b = rc__lua_box(L);
    if (!b) luaL_error(L, "ricochet sandbox: this state was not opened by rc_lua_open");
    return b;
}

/* Refuse with the failure values of io.open: nil, message, EACCES. */
static int push_refusal(lua_State *L, const char *why)
{
    luaL_pushfail(L);
    lua_pushstring(L, why);
    lua_pushinteger(L, EACCES);
    return 3;
}

/* io.open(path, mode): reading in the two folders, writing in out_dir */
static int sb_io_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    /* liolib's l_checkmode, so that the original raises nothing */
    const char *m = mode;
    int valid = *m != '\0' && strchr("rwa", *(m++)) != NULL && (*m != '+' || (++m, 1))
                && strspn(m, "b") == strlen(m);
    luaL_argcheck(L, valid, 2, "invalid mode");
    int w = strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+');
    char why[PATH_MAX + 200];
    if (!allowed(sandbox_box(L), path, w ? ACCESS_WRITE : ACCESS_READ, why, sizeof why))
        return push_refusal(L, why);
    return rc__lua_call_original(L);
}

/* io.lines(path, ...), io.input(path): read; io.output(path): write. With no
 * path (or a file), as the original. */
static int sb_io_path(lua_State *L, int access, const char *fname)
{
    if (lua_type(L, 1) == LUA_TSTRING) {
        char why[PATH_MAX + 200];
        if (!allowed(sandbox_box(L), lua_tostring(L, 1), access, why, sizeof why))
            return luaL_error(L, "%s: %s", fname, why);
    }
    return rc__lua_call_original(L);
}

static int sb_io_lines(lua_State *L) { return sb_io_path(L, ACCESS_READ, "io.lines"); }
static int sb_io_input(lua_State *L) { return sb_io_path(L, ACCESS_READ, "io.input"); }
static int sb_io_output(lua_State *L) { return sb_io_path(L, ACCESS_WRITE, "io.output"); }

/* os.remove(path), os.rename(a, b): inside the output folder */
static int sb_os_remove(lua_State *L)
{
    char why[PATH_MAX + 200];
    if (!allowed(sandbox_box(L), luaL_checkstring(L, 1), ACCESS_WRITE, why, sizeof why))
        return push_refusal(L, why);
    return rc__lua_call_original(L);
}

static int sb_os_rename(lua_State *L)
{
    char why[PATH_MAX + 200];
    rc_lua_box *b = sandbox_box(L);
    if (!allowed(b, luaL_checkstring(L, 1), ACCESS_WRITE, why, sizeof why)
        || !allowed(b, luaL_checkstring(L, 2), ACCESS_WRITE, why, sizeof why))
        return push_refusal(L, why);
    return rc__lua_call_original(L);
}

/* A function the sandbox takes away: raises "NAME is not available in the
 * sandbox" (upvalue 1: NAME, upvalue 2: a hint). */
static int sb_refuse(lua_State *L)
{
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    const char *hint = lua_tostring(L, lua_upvalueindex(2));
    return luaL_error(L, "%s is not available in the sandbox%s", name, hint ? hint : "");
}

static void set_refusal(lua_State *L, int table, const char *field, const char *name, const char *hint)
{
    table = lua_absindex(L, table);
    lua_pushstring(L, name);
    if (hint) lua_pushstring(L, hint); else lua_pushnil(L);
    lua_pushcclosure(L, sb_refuse, 2);
    lua_setfield(L, table, field);
}

/* load(chunk [, name [, mode [, env]]]): text only */
static int sb_load(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING && lua_type(L, 1) != LUA_TNUMBER)
        luaL_checktype(L, 1, LUA_TFUNCTION);   /* lbaselib's check */
    if (lua_type(L, 1) == LUA_TSTRING && lua_tostring(L, 1)[0] == LUA_SIGNATURE[0]) {
        luaL_pushfail(L);
        lua_pushliteral(L, "load: precompiled (binary) chunks are not allowed in the sandbox");
        return 2;
    }
    const char *mode = luaL_optstring(L, 3, "bt");
    if (!strchr(mode, 't')) {
        luaL_pushfail(L);
        lua_pushfstring(L, "load: mode '%s' is not allowed in the sandbox (text chunks only)", mode);
        return 2;
    }
    if (lua_gettop(L) < 3) lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    return rc__lua_call_original(L);
}

/* loadfile([path [, mode [, env]]]): the folders' files, text only */
static int sb_loadfile(lua_State *L)
{
    if (!lua_isnoneornil(L, 1)) {
        char why[PATH_MAX + 200];
        if (!allowed(sandbox_box(L), luaL_checkstring(L, 1), ACCESS_READ, why, sizeof why)) {
            luaL_pushfail(L);
            lua_pushfstring(L, "loadfile: %s", why);
            return 2;
        }
    }
    if (lua_gettop(L) < 2) lua_settop(L, 2);
    lua_pushliteral(L, "t");
    lua_replace(L, 2);
    return rc__lua_call_original(L);
}

static int dofile_cont(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L) - 1;
}

/* dofile([path]): the folders' files, text only (lbaselib's dofile with
 * luaL_loadfilex(..., "t")) */
static int sb_dofile(lua_State *L)
{
    const char *path = luaL_optstring(L, 1, NULL);
    if (path) {
        char why[PATH_MAX + 200];
        if (!allowed(sandbox_box(L), path, ACCESS_READ, why, sizeof why)) return luaL_error(L, "dofile: %s", why);
    }
    lua_settop(L, 1);
    if (luaL_loadfilex(L, path, "t") != LUA_OK) return lua_error(L);
    lua_callk(L, 0, LUA_MULTRET, 0, dofile_cont);
    return dofile_cont(L, 0, 0);
}

/* setmetatable(t, mt): no __gc (finalizers run with hooks off: a loop in
 * one could not be stopped) */
static int sb_setmetatable(lua_State *L)
{
    /* lbaselib's setmetatable */
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: metatables with __gc are not allowed in the sandbox "
                                 "(a finalizer cannot be interrupted)");
        lua_pop(L, 1);
    }
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* ricochet.core's functions that write files: output_open(world, dir, ...)
 * and vtk_open(dir, ...) fail as the kernel would (nil, message, status). */
static int sb_core_write(lua_State *L, int arg)
{
    const char *dir = luaL_checkstring(L, arg);
    char why[PATH_MAX + 200];
    if (!allowed(sandbox_box(L), dir, ACCESS_WRITE, why, sizeof why)) {
        luaL_pushfail(L);
        lua_pushstring(L, why);
        lua_pushliteral(L, "RC_ERR_ARG");
        return 3;
    }
    return rc__lua_call_original(L);
}

static int sb_output_open(lua_State *L) { return sb_core_write(L, 2); }
static int sb_checkpoint_save(lua_State *L) { return sb_core_write(L, 2); }

/* checkpoint_restore(world, path) reads path: the script's or the output folder */
static int sb_checkpoint_restore(lua_State *L)
{
    const char *path = luaL_checkstring(L, 2);
    char why[PATH_MAX + 200];
    if (!allowed(sandbox_box(L), path, ACCESS_READ, why, sizeof why)) {
        luaL_pushfail(L);
        lua_pushstring(L, why);
        lua_pushliteral(L, "RC_ERR_ARG");
        return 3;
    }
    return rc__lua_call_original(L);
}
/* history_convert(bin, csv_gz): reads bin (the sandbox's folders), writes csv_gz (the output folder) */
static int sb_history_convert(lua_State *L)
{
    char why[PATH_MAX + 200];
    if (!allowed(sandbox_box(L), luaL_checkstring(L, 1), ACCESS_READ, why, sizeof why)) {
        luaL_pushfail(L);
        lua_pushstring(L, why);
        lua_pushliteral(L, "RC_ERR_ARG");
        return 3;
    }
    return sb_core_write(L, 2);
}
static int sb_vtk_open(lua_State *L) { return sb_core_write(L, 1); }
static int sb_frames_open(lua_State *L) { return sb_core_write(L, 1); }

/* read_gz(path): reading in the sandbox's folders only */
static int sb_read_gz(lua_State *L)
{
    char why[PATH_MAX + 200];
    if (!allowed(sandbox_box(L), luaL_checkstring(L, 1), ACCESS_READ, why, sizeof why)) {
        luaL_pushfail(L);
        lua_pushstring(L, why);
        return 2;
    }
    return rc__lua_call_original(L);
}

/* package.preload["ricochet.core"] */
int rc__lua_preload_core(lua_State *L)
{
    lua_pushcfunction(L, luaopen_ricochet_core);
    lua_call(L, 0, 1);
    rc_lua_box *b = rc__lua_box(L);
    if (b && b->sandbox && lua_istable(L, -1)) {
        rc__lua_wrap_field(L, -1, "output_open", sb_output_open);
        rc__lua_wrap_field(L, -1, "vtk_open", sb_vtk_open);
        rc__lua_wrap_field(L, -1, "checkpoint_save", sb_checkpoint_save);
        rc__lua_wrap_field(L, -1, "checkpoint_restore", sb_checkpoint_restore);
        rc__lua_wrap_field(L, -1, "frames_open", sb_frames_open);
        rc__lua_wrap_field(L, -1, "read_gz", sb_read_gz);
        rc__lua_wrap_field(L, -1, "history_convert", sb_history_convert);
        set_refusal(L, -1, "clear_interrupt", "ricochet.core.clear_interrupt", NULL);
        set_refusal(L, -1, "run_program", "ricochet.core.run_program",
                    " (rc.gmsh runs an external program: use a committed .msh and rc.read_msh)");
    }
    return 1;
}

/* A module name of identifiers separated by single dots. */
static int valid_module_name(const char *name)
{
    int len = 0;
    for (const char *c = name; *c; c++) {
        if (*c == '.') {
            if (len == 0) return 0;
            len = 0;
        } else if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_') {
            len++;
        } else {
            return 0;
        }
    }
    return len > 0;
}

static int readable(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* The first file of the ';'-separated templates with '?' replaced by name
 * (dots as '/') that can be read, pushed; or NULL and a "no file ..."
 * message pushed. */
static const char *search_templates(lua_State *L, const char *name, const char *templates)
{
    const char *fname = luaL_gsub(L, name, ".", "/");
    const char *list = luaL_gsub(L, templates, "?", fname);
    luaL_Buffer msg;
    luaL_buffinit(L, &msg);
    const char *p = list;
    int first = 1;
    while (*p) {
        const char *e = strchr(p, ';');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > 0 && n < PATH_MAX) {
            char file[PATH_MAX];
            memcpy(file, p, n);
            file[n] = '\0';
            if (readable(file)) {
                lua_pushstring(L, file);
                return lua_tostring(L, -1);
            }
            if (!first) luaL_addstring(&msg, "\n\t");
            luaL_addstring(&msg, "no file '");
            luaL_addstring(&msg, file);
            luaL_addstring(&msg, "'");
            first = 0;
        }
        if (!e) break;
        p = e + 1;
    }
    luaL_pushresult(&msg);
    return NULL;
}

/* searcher 2: ricochet's own modules, from lua_path, in the trusted
 * environment (upvalue 1) */
static int searcher_ricochet(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    rc_lua_box *b = sandbox_box(L);
    if (strcmp(name, "debug") == 0) {
        lua_pushliteral(L, "the debug library is not available in the sandbox");
        return 1;
    }
    if (strcmp(name, "ricochet") != 0 && strncmp(name, "ricochet.", 9) != 0) return 0;
    if (!valid_module_name(name)) {
        lua_pushfstring(L, "invalid module name '%s'", name);
        return 1;
    }
    const char *file = search_templates(L, name, b->lua_path ? b->lua_path : "");
    if (!file) return 1;
    /* never a file the script could have written (a lua_path such as Lua's
     * default "./?.lua" may reach the output folder) */
    char rp[PATH_MAX];
    if (b->out_dir && (!resolve_path(file, rp, sizeof rp) || inside_dir(rp, b->out_dir))) {
        lua_pushfstring(L, "'%s' is in the output folder: not loaded as ricochet's module", file);
        return 1;
    }
    if (luaL_loadfilex(L, file, "t") != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua_tostring(L, -1));
    lua_pushvalue(L, lua_upvalueindex(1));
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    lua_pushstring(L, file);
    return 2;
}

/* searcher 3: the script's own modules (read_dir/NAME.lua,
 * read_dir/NAME/init.lua), text only, in the script's environment */
static int searcher_script(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    rc_lua_box *b = sandbox_box(L);
    if (!b->read_dir) {
        lua_pushliteral(L, "no script folder (in the sandbox, require finds ricochet's modules and the "
                           "script's own .lua files only; C modules are not loaded)");
        return 1;
    }
    if (!valid_module_name(name)) {
        lua_pushfstring(L, "invalid module name '%s' (in the sandbox: identifiers separated by dots)", name);
        return 1;
    }
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua", b->read_dir, b->read_dir);
    const char *file = search_templates(L, name, lua_tostring(L, -1));
    if (!file) {
        lua_pushliteral(L, "\n\t(in the sandbox, require finds ricochet's modules and the script's own "
                           ".lua files only; C modules are not loaded)");
        lua_concat(L, 2);
        return 1;
    }
    char why[PATH_MAX + 200];
    if (!allowed(b, file, ACCESS_READ, why, sizeof why)) {
        lua_pushstring(L, why);
        return 1;
    }
    if (luaL_loadfilex(L, file, "t") != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua_tostring(L, -1));
    lua_pushstring(L, file);
    return 2;
}

/* __index of the table that stands for the debug library */
static int sb_debug_index(lua_State *L)
{
    const char *k = lua_tostring(L, 2);
    return luaL_error(L, "the debug library is not available in the sandbox (debug.%s)", k ? k : "?");
}

/* Restrict the global environment. Runs protected, on the main thread. */
void rc__lua_apply_sandbox(lua_State *L, rc_lua_box *b)
{
    /* the trusted environment of ricochet's modules: the globals, plus the
     * two debug functions they use to report errors at the script's line */
    lua_newtable(L);                                  /* env */
    lua_newtable(L);                                  /* env.debug */
    lua_getglobal(L, "debug");
    lua_getfield(L, -1, "getinfo");
    lua_setfield(L, -3, "getinfo");
    lua_getfield(L, -1, "traceback");
    lua_setfield(L, -3, "traceback");
    lua_pop(L, 1);
    lua_setfield(L, -2, "debug");
    lua_newtable(L);                                  /* its metatable */
    lua_pushglobaltable(L);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    int env = lua_gettop(L);

    /* debug: a table that refuses */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushcfunction(L, sb_debug_index);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_setglobal(L, "debug");

    /* package: no C modules, no path searching outside the two places */
    lua_getglobal(L, "package");
    int pkg = lua_gettop(L);
    lua_getfield(L, pkg, "loaded");
    lua_pushnil(L);
    lua_setfield(L, -2, "debug");
    lua_pop(L, 1);
    set_refusal(L, pkg, "loadlib", "package.loadlib", " (C modules cannot be loaded)");
    set_refusal(L, pkg, "searchpath", "package.searchpath", NULL);
    lua_pushliteral(L, "");
    lua_setfield(L, pkg, "cpath");
    lua_pushliteral(L, "");
    lua_setfield(L, pkg, "path");
    lua_getfield(L, pkg, "searchers");
    lua_rawgeti(L, -1, 1);                            /* package.preload's searcher */
    lua_createtable(L, 3, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, env);
    lua_pushcclosure(L, searcher_ricochet, 1);
    lua_rawseti(L, -2, 2);
    lua_pushcfunction(L, searcher_script);
    lua_rawseti(L, -2, 3);
    lua_setfield(L, pkg, "searchers");
    lua_pop(L, 2);                                    /* old searchers, package */

    /* os */
    lua_getglobal(L, "os");
    set_refusal(L, -1, "execute", "os.execute", NULL);
    set_refusal(L, -1, "exit", "os.exit", " (return from the script or raise an error)");
    set_refusal(L, -1, "getenv", "os.getenv", " (use rc.param and --set)");
    set_refusal(L, -1, "tmpname", "os.tmpname", NULL);
    set_refusal(L, -1, "setlocale", "os.setlocale", NULL);
    rc__lua_wrap_field(L, -1, "remove", sb_os_remove);
    rc__lua_wrap_field(L, -1, "rename", sb_os_rename);
    lua_pop(L, 1);

    /* io */
    lua_getglobal(L, "io");
    set_refusal(L, -1, "popen", "io.popen", NULL);
    set_refusal(L, -1, "tmpfile", "io.tmpfile", NULL);
    rc__lua_wrap_field(L, -1, "open", sb_io_open);
    rc__lua_wrap_field(L, -1, "lines", sb_io_lines);
    rc__lua_wrap_field(L, -1, "input", sb_io_input);
    rc__lua_wrap_field(L, -1, "output", sb_io_output);
    lua_pop(L, 1);

    /* chunks: text only; files: the two folders */
    lua_pushglobaltable(L);
    rc__lua_wrap_field(L, -1, "load", sb_load);
    rc__lua_wrap_field(L, -1, "loadfile", sb_loadfile);
    lua_pushcfunction(L, sb_dofile);
    lua_setfield(L, -2, "dofile");
    lua_pushcfunction(L, sb_setmetatable);
    lua_setfield(L, -2, "setmetatable");
    lua_pop(L, 1);

    lua_settop(L, env - 1);
    (void)b;
}
