/* lrc_progress.c -- ricochet.core: the progress of a run (rc_world_progress_*)
 * for sim:run, sim:on_progress and the terminal line (lua/ricochet/progress.lua).
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "lrc.h"

#include <unistd.h>

/* progress_begin(world, T, interval) -> true | nil, msg, status */
int lrc_progress_begin(lua_State *L)
{
    lrc_world *lw = lrc_check_idle(L, 1);
    const double T = luaL_checknumber(L, 2), interval = luaL_checknumber(L, 3);
    rc_status s = rc_world_set_progress_fn(lw->w, NULL, NULL, interval);
    if (s == RC_OK) s = rc_world_progress_begin(lw->w, T);
    return lrc_push_done(L, s);
}

/* progress_end(world): the final figures (and the unconverged count's warning) */
int lrc_progress_end(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_status s = rc_world_progress_end(lw->w);
    return lrc_push_done(L, s);
}

/* progress(world [, only_due]) -> table of the figures, due (a report fell due
 * since the last call); with only_due, nil unless one did */
int lrc_progress(lua_State *L)
{
    lrc_world *lw = lrc_check_open(L, 1);
    rc_progress p;
    int due;
    rc_status s = rc_world_progress_get(lw->w, &p, &due);
    if (s != RC_OK) return lrc_push_fail(L, s);
    if (lua_toboolean(L, 2) && !due) {   /* progress(world, true): only a report that fell due */
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 13);
    lrc_set_num(L, "t", p.t);
    lrc_set_num(L, "T", p.t_end);
    lrc_set_int(L, "step", p.step);
    lrc_set_int(L, "steps", p.steps);
    lrc_set_int(L, "steps_total", p.steps_total);
    lrc_set_int(L, "capped", p.capped);
    lrc_set_num(L, "residual", p.residual);
    lrc_set_num(L, "max_residual", p.max_residual);
    lrc_set_num(L, "t_max_residual", p.t_max_residual);
    lrc_set_num(L, "wall_s", p.wall_s);
    lrc_set_num(L, "steps_per_s", p.steps_per_s);
    lrc_set_num(L, "eta_s", p.eta_s);
    lrc_set_bool(L, "final", p.final);
    lua_pushboolean(L, due);
    return 2;
}

/* stderr_is_tty() -> whether the process's stderr is a terminal */
int lrc_stderr_is_tty(lua_State *L)
{
    lua_pushboolean(L, isatty(fileno(stderr)));
    return 1;
}
