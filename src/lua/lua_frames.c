/*
 * lua_frames.c -- ricochet.core bindings of the frame writer
 * (ricochet_frames.h) and a gzip reader for history files (used by
 * ricochet.plot and ricochet.view).
 *
 *   frames_open(path [, level [, contacts]]) -> writer | nil, msg, status
 *   frames_write(writer, world)              -> true | nil, msg, status
 *   frames_count(writer)                     -> frames written
 *   frames_close(writer [, status [, msg]])  -> true | nil, msg, status (idempotent)
 *   read_gz(path)                            -> text, complete | nil, msg
 *       (complete: false when the stream ends early, e.g. a killed run)
 *   base64(bytes)                            -> text (RFC 4648, for view.html)
 *   history_convert(bin, csv_gz)             -> rows | nil, msg, status
 *       (rc_history_convert: history.bin to history.csv.gz, ricochet.history)
 */
#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "lua_frames.h"
#include "ricochet_frames.h"

#define LRC_FRAMES "ricochet.core.frames"

typedef struct lrc_frames {
    rc_frames_writer *fw;   /* NULL once closed */
} lrc_frames;

static lrc_frames *check_frames(lua_State *L, int idx)
{
    return (lrc_frames *)luaL_checkudata(L, idx, LRC_FRAMES);
}

static int fail(lua_State *L, rc_status s)
{
    luaL_pushfail(L);
    lua_pushstring(L, rc_last_error());
    lua_pushstring(L, rc_status_name(s));
    return 3;
}

/* collected without a close: the file says how (no 'END ' record is worse) */
static int l_frames_gc(lua_State *L)
{
    lrc_frames *f = check_frames(L, 1);
    if (f->fw) rc_frames_close(f->fw, "aborted", "the frame writer was not closed by the run");
    f->fw = NULL;
    return 0;
}

static int l_frames_open(lua_State *L)
{
    rc_frames_def def = rc_default_frames_def();
    def.path = luaL_checkstring(L, 1);
    lua_Integer level = luaL_optinteger(L, 2, def.level);
    def.level = (level < 0 || level > 9) ? -1 : (int)level;   /* rejected by the kernel */
    if (!lua_isnoneornil(L, 3)) def.contacts = lua_toboolean(L, 3);
    lrc_frames *f = (lrc_frames *)lua_newuserdatauv(L, sizeof *f, 0);
    f->fw = NULL;
    if (luaL_newmetatable(L, LRC_FRAMES)) {
        lua_pushcfunction(L, l_frames_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    rc_status s = rc_frames_open(&def, &f->fw);
    if (s != RC_OK) return fail(L, s);
    return 1;
}

static int l_frames_write(lua_State *L)
{
    lrc_frames *f = check_frames(L, 1);
    rc_world *w = rc__lua_idle_world(L, 2);
    if (!f->fw) return luaL_error(L, "the frame writer has been closed");
    rc_status s = rc_frames_write(f->fw, w);
    if (s != RC_OK) return fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_frames_count(lua_State *L)
{
    lrc_frames *f = check_frames(L, 1);
    lua_pushinteger(L, (lua_Integer)rc_frames_count(f->fw));
    return 1;
}

static int l_frames_close(lua_State *L)
{
    lrc_frames *f = check_frames(L, 1);
    const char *status = luaL_optstring(L, 2, "complete");
    const char *message = luaL_optstring(L, 3, NULL);
    rc_frames_writer *fw = f->fw;
    f->fw = NULL;
    rc_status s = rc_frames_close(fw, status, message);
    if (s != RC_OK) return fail(L, s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_read_gz(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        luaL_pushfail(L);
        lua_pushfstring(L, "cannot open '%s': %s", path, errno ? strerror(errno) : "out of memory");
        return 2;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int complete = 1;
    for (;;) {
        char *p = luaL_prepbuffsize(&b, 65536);
        int n = gzread(gz, p, 65536);
        if (n > 0) luaL_addsize(&b, (size_t)n);
        if (n < 65536) {
            int err = 0;
            gzerror(gz, &err);
            if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) complete = 0;
            break;
        }
    }
    gzclose(gz);
    luaL_pushresult(&b);
    lua_pushboolean(L, complete);
    return 2;
}

static int l_base64(lua_State *L)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t i = 0;
    while (i < n) {
        size_t chunk = n - i < 49152 ? n - i : 49152;   /* a multiple of 3 */
        char *p = luaL_prepbuffsize(&b, chunk / 3 * 4 + 4), *p0 = p;
        size_t end = i + chunk;
        for (; i + 3 <= end; i += 3) {
            unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 | s[i + 2];
            *p++ = tab[v >> 18];
            *p++ = tab[(v >> 12) & 63];
            *p++ = tab[(v >> 6) & 63];
            *p++ = tab[v & 63];
        }
        if (i < end) {   /* the last 1 or 2 bytes */
            unsigned v = (unsigned)s[i] << 16 | (i + 1 < end ? (unsigned)s[i + 1] << 8 : 0u);
            *p++ = tab[v >> 18];
            *p++ = tab[(v >> 12) & 63];
            *p++ = i + 1 < end ? tab[(v >> 6) & 63] : '=';
            *p++ = '=';
            i = end;
        }
        luaL_addsize(&b, (size_t)(p - p0));
    }
    luaL_pushresult(&b);
    return 1;
}

static int l_history_convert(lua_State *L)
{
    long rows = 0;
    rc_status s = rc_history_convert(luaL_checkstring(L, 1), luaL_checkstring(L, 2), &rows);
    if (s != RC_OK) return fail(L, s);
    lua_pushinteger(L, (lua_Integer)rows);
    return 1;
}

static const luaL_Reg frames_funcs[] = {
    { "base64", l_base64 },
    { "frames_open", l_frames_open },
    { "frames_write", l_frames_write },
    { "frames_count", l_frames_count },
    { "frames_close", l_frames_close },
    { "read_gz", l_read_gz },
    { "history_convert", l_history_convert },
    { NULL, NULL }
};

void rc__lua_frames_register(lua_State *L)
{
    luaL_setfuncs(L, frames_funcs, 0);
}
