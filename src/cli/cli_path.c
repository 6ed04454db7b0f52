/* cli_path.c -- where the ricochet program finds its Lua files (package.path
 * templates): $RICOCHET_LUA_DIR, the installation's share/lua/5.4, or the
 * source tree's lua/ for the program of the build tree only.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* ---------------------------------------------------------------- paths */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static int sbuf_add(sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = 2 * (b->n + n + 1) + 256;
        char *p = realloc(b->p, cap);
        if (!p) return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 1;
}

static int add_dir(sbuf *b, const char *dir, size_t n)
{
    return sbuf_add(b, dir, n) && sbuf_add(b, "/?.lua;", 7) && sbuf_add(b, dir, n)
        && sbuf_add(b, "/?/init.lua;", 12);
}

static int file_exists(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

#ifdef RC_BUILD_DIR
/* 1 if the folders a and b are the same one */
static int same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
#endif

/* Where ricochet's Lua files are, as package.path templates:
 * $RICOCHET_LUA_DIR (':'-separated) ; <prefix>/share/lua/5.4 (if the program
 * runs from an installation) ; RC_LUA_DIR only for the program of the build
 * tree (RC_BUILD_DIR), so that an installed one never reads the source tree.
 * "" when none is found; NULL if out of memory; the caller frees. */
char *rc_cli_lua_path(void)
{
    sbuf b = { NULL, 0, 0 };
    int ok = 1;
    const char *env = getenv("RICOCHET_LUA_DIR");
    if (env) {
        const char *p = env;
        while (*p && ok) {
            const char *e = strchr(p, ':');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n > 0) ok = add_dir(&b, p, n);
            if (!e) break;
            p = e + 1;
        }
    }
    char exe[4096];
    int in_build = 1;   /* the build tree's program (or no /proc): the source tree's lua/ */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 64);
    if (ok && n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
#ifdef RC_BUILD_DIR
            in_build = same_dir(exe, RC_BUILD_DIR);
#endif
            slash = strrchr(exe, '/'); /* <prefix>/bin -> <prefix> */
            if (slash) {
                *slash = '\0';
                char share[4200];
                snprintf(share, sizeof share, "%s/share/lua/5.4", exe);
                char probe[4300];
                snprintf(probe, sizeof probe, "%s/ricochet/init.lua", share);
                if (file_exists(probe)) ok = add_dir(&b, share, strlen(share));
            }
        }
    }
    if (ok && in_build) ok = add_dir(&b, RC_LUA_DIR, strlen(RC_LUA_DIR));
    if (!ok) {
        free(b.p);
        return NULL;
    }
    if (b.n == 0) return calloc(1, 1);   /* no folder found: "" (the caller says so) */
    b.p[b.n - 1] = '\0';   /* the last ';' */
    return b.p;
}

