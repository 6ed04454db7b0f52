/* lrc_gmsh.c -- run an external program (rc.gmsh, lua/ricochet/gmsh.lua):
 * posix_spawnp of an argument vector (no shell, so no quoting or expansion
 * of the paths), standard input from /dev/null, standard output and error
 * collected through one pipe (the last RUN_TAIL bytes kept for messages).
 * Refused in the sandbox (lua_sandbox.c replaces it). */
#define _POSIX_C_SOURCE 200809L
#include "lrc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define RUN_MAX_ARGS 64
#define RUN_TAIL 4096

static const char *errno_name(int e)
{
    switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOEXEC: return "ENOEXEC";
    case ENOMEM: return "ENOMEM";
    default: return "EIO";
    }
}

/* Read fd to its end, keeping the last RUN_TAIL bytes in tail (a ring). */
static void read_tail(int fd, char *tail, size_t *len, size_t *start)
{
    char buf[4096];
    for (;;) {
        ssize_t k = read(fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return;
        for (ssize_t i = 0; i < k; i++) {
            if (*len < RUN_TAIL) tail[(*start + (*len)++) % RUN_TAIL] = buf[i];
            else { tail[*start] = buf[i]; *start = (*start + 1) % RUN_TAIL; }
        }
    }
}

/* run_program({prog, arg1, ...}) -> exit status (or -signal), output (its
 * last 4 kB) | nil, msg, errno name (the program could not be started) */
int lrc_run_program(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 1);
    if (n < 1 || n > RUN_MAX_ARGS) return luaL_error(L, "run_program: 1 to %d arguments (got %d)", RUN_MAX_ARGS, n);
    const char *argv[RUN_MAX_ARGS + 1];
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "run_program: argument %d must be a string", i + 1);
        size_t len;
        argv[i] = lua_tolstring(L, -1, &len);
        if (strlen(argv[i]) != len) return luaL_error(L, "run_program: argument %d contains a NUL byte", i + 1);
        lua_pop(L, 1);   /* still referenced by the table */
    }
    argv[n] = NULL;
    int p[2];
    if (pipe(p) != 0) return luaL_error(L, "run_program: pipe: %s", strerror(errno));
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    pid_t pid;
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (e != 0) {
        close(p[0]);
        luaL_pushfail(L);
        lua_pushfstring(L, "cannot run %s: %s", argv[0], strerror(e));
        lua_pushstring(L, errno_name(e));
        return 3;
    }
    char tail[RUN_TAIL];
    size_t len = 0, start = 0;
    read_tail(p[0], tail, &len, &start);
    close(p[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    lua_pushinteger(L, WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? -WTERMSIG(status) : -1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < len; i++) luaL_addchar(&b, tail[(start + i) % RUN_TAIL]);
    luaL_pushresult(&b);
    return 2;
}
