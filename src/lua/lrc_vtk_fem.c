/* lrc_vtk_fem.c -- the binding of rc_vtk_add_fem (src/io/vtk_fem.c): the
 * finite-element bodies of a world in a VTK series. Called by sim:vtk
 * (lua/ricochet/vtk_fem.lua) with the definition fem_create had. */
#include "lrc.h"

/* vtk_add_fem(writer, world, body id, def (as fem_create), perm (node k ->
 * place, 1-based)) -> true | nil, msg, status */
int lrc_vtk_add_fem(lua_State *L)
{
    lrc_vtk *v = (lrc_vtk *)luaL_checkudata(L, 1, LRC_VTK);
    lrc_world *lw = lrc_check_idle(L, 2);
    lua_Integer id = luaL_checkinteger(L, 3);
    luaL_checktype(L, 4, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TTABLE);
    if (!v->vw) return luaL_error(L, "the VTK writer has been closed");
    rc_fem_def def;
    lrc_fem_def_read(L, 4, &def);
    if ((int)lua_rawlen(L, 5) != def.nnodes)
        return luaL_error(L, "vtk_add_fem: 'perm' must have %d entries (got %d)", def.nnodes, (int)lua_rawlen(L, 5));
    int *perm = lua_newuserdatauv(L, (size_t)def.nnodes * sizeof(int) + 1, 0);
    for (int k = 0; k < def.nnodes; k++) {
        lua_rawgeti(L, 5, k + 1);
        int ok = 0;
        lua_Integer p = lua_tointegerx(L, -1, &ok);
        lua_pop(L, 1);
        if (!ok || p < 1 || p > def.nnodes) return luaL_error(L, "vtk_add_fem: perm[%d] must be a place in 1..%d", k + 1, def.nnodes);
        perm[k] = (int)p - 1;
    }
    rc_status s = rc_vtk_add_fem(v->vw, lw->w, id < 0 || id > 0x7fffffff ? -1 : (int)id, &def, perm);
    return lrc_push_done(L, s);
}
