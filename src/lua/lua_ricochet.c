/*
 * lua_ricochet.c -- ricochet.core, the C half of the Lua binding.
 *
 * A thin client of the public C API (ricochet.h, nothing else): one userdata
 * type wrapping an rc_world, and functions that take plain Lua values. The
 * user-facing API (argument checking with messages that point at the calling
 * script line, descriptors, objects, the run loop) is in lua/ricochet/init.lua.
 *
 * Conventions of this module:
 *   - kernel failures are returned as  nil, message, status_name  so that the
 *     Lua side can raise them at the script's level;
 *   - misuse of this module itself (wrong types) raises Lua errors through
 *     luaL_check*; it never crashes;
 *   - Lua code called from inside the kernel (force functions, laws,
 *     prescribed motions, custom constraints, gap functions) runs under
 *     lua_pcall: an error becomes RC_ERR_CALLBACK with the Lua message, and
 *     no longjmp ever crosses a kernel frame.
 *
 * The sections are files (lrc.h lists them); this one holds the function
 * tables and luaopen_ricochet_core.
 */
#include "lrc.h"
#include "lua_frames.h"     /* frames_*, read_gz (lua_frames.c) */

static const luaL_Reg world_meta[] = {
    { "__gc", lrc_world_gc },
    { "__close", lrc_world_tbc },
    { NULL, NULL }
};

static const luaL_Reg core_funcs[] = {
    { "world_new", lrc_world_new },
    { "close", lrc_world_close },
    { "is_open", lrc_is_open },
    { "is_world", lrc_is_world },
    { "is_stepping", lrc_is_stepping },
    { "warnings", lrc_warnings },
    { "body_create", lrc_body_create },
    { "body3d_create", lrc_body3d_create },
    { "body3d_mass", lrc_body3d_mass },
    { "solid_mass", lrc_solid_mass },
    { "shape3_create", lrc_shape3_create },
    { "joint3_create", lrc_joint3_create },
    { "joint3_get", lrc_joint3_get },
    { "joint3_set_motor", lrc_joint3_set_motor },
    { "polyhedron_mass", lrc_polyhedron_mass },
    { "contacts3", lrc_contacts3 },
    { "body_count", lrc_body_count },
    { "body_state", lrc_body_state },
    { "remove", lrc_remove },
    { "is_removed", lrc_is_removed },
    { "body_generation", lrc_body_generation },
    { "removed_energy", lrc_removed_energy },
    { "body_life", lrc_body_life },
    { "link_removal", lrc_link_removal },
    { "broken_joints", lrc_broken_joints },
    { "set_sleep", lrc_set_sleep },
    { "body_wake", lrc_body_wake },
    { "body_sleeping", lrc_body_sleeping },
    { "sleep_info", lrc_sleep_info },
    { "body_set_state", lrc_body_set_state },
    { "body_set_force", lrc_body_set_force },
    { "body_force", lrc_body_force },
    { "body_set_force_fn", lrc_body_set_force_fn },
    { "body_mass", lrc_body_mass },
    { "body_nq", lrc_body_nq },
    { "joint_create", lrc_joint_create },
    { "joint_count", lrc_joint_count },
    { "joint_name", lrc_joint_name },
    { "joint_info", lrc_joint_info },
    { "joint_set_motor", lrc_joint_set_motor },
    { "joint_set_limits", lrc_joint_set_limits },
    { "spring_create", lrc_spring_create },
    { "linear_create", lrc_linear_create },
    { "linear_energy", lrc_linear_energy },
    { "gap_create", lrc_gap_create },
    { "fem_create", lrc_fem_create },
    { "beam_create", lrc_beam_create },
    { "beam_point", lrc_beam_point },
    { "beam_energy", lrc_beam_energy },
    { "beam_joint_create", lrc_beam_joint_create },
    { "beam_joint_get", lrc_beam_joint_get },
    { "node_contact_create", lrc_node_contact_create },
    { "fem_matrices", lrc_fem_matrices },
    { "fem_set_loads", lrc_fem_set_loads },
    { "linear_prescribe", lrc_linear_prescribe },
    { "linear_prescribe_fn", lrc_linear_prescribe_fn },
    { "linear_release", lrc_linear_release },
    { "linear_reactions", lrc_linear_reactions },
    { "linear_solve_static", lrc_linear_solve_static },
    { "shape_create", lrc_shape_create },
    { "shape_count", lrc_shape_count },
    { "shape_def", lrc_shape_def },
    { "law_create", lrc_law_create },
    { "law_create_custom", lrc_law_create_custom },
    { "set_default_law", lrc_set_default_law },
    { "law_set", lrc_law_set },
    { "law_def", lrc_law_def },
    { "contact_rule", lrc_contact_rule },
    { "configure", lrc_configure },
    { "sim_def", lrc_sim_def },
    { "step", lrc_step },
    { "time", lrc_time },
    { "step_count", lrc_step_count },
    { "step_info", lrc_step_info },
    { "energy", lrc_energy },
    { "run_stats", lrc_run_stats },
    { "contacts", lrc_contacts },
    { "named_contact_names", lrc_named_contact_names },
    { "named_contact", lrc_named_contact },
    { "output_open", lrc_output_open },
    { "checkpoint_save", lrc_checkpoint_save },
    { "checkpoint_restore", lrc_checkpoint_restore },
    { "output_close", lrc_output_close },
    { "output_is_open", lrc_output_is_open },
    { "output_set_end_time", lrc_output_set_end_time },
    { "vtk_mark", lrc_vtk_mark },
    { "vtk_open", lrc_vtk_open },
    { "vtk_frame", lrc_vtk_frame },
    { "vtk_frames", lrc_vtk_frames },
    { "vtk_close", lrc_vtk_close },
    { "vtk_add_fem", lrc_vtk_add_fem },
    { "run_program", lrc_run_program },
    { "request_interrupt", lrc_request_interrupt },
    { "clear_interrupt", lrc_clear_interrupt },
    { "interrupt_requested", lrc_interrupt_requested },
    { "explore", lrc_explore },
    { "alloc_count", lrc_alloc_count },
    { "openmp", lrc_openmp },
    { "sandboxed", lrc_sandboxed },
    { "wall_time", lrc_wall_time },
    { "progress_begin", lrc_progress_begin },
    { "progress_end", lrc_progress_end },
    { "progress", lrc_progress },
    { "stderr_is_tty", lrc_stderr_is_tty },
    { "query_box", lrc_query_box },
    { "query_point", lrc_query_point },
    { "ray_cast", lrc_ray_cast },
    { "disk_cast", lrc_disk_cast },
    { "track_events", lrc_track_events },
    { "events", lrc_events },
    { "check_def", lrc_check_def },
    { "joint_jacobian", lrc_joint_jacobian },
    { NULL, NULL }
};

RC_API int luaopen_ricochet_core(lua_State *L);   /* the module's only export */

int luaopen_ricochet_core(lua_State *L)
{
    luaL_checkversion(L);
    if (luaL_newmetatable(L, LRC_WORLD)) {
        luaL_setfuncs(L, world_meta, 0);
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, LRC_LAW_GUARD)) {
        lua_pushcfunction(L, lrc_law_guard_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    luaL_newlib(L, core_funcs);
    rc__lua_frames_register(L);
    lua_pushliteral(L, RC_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, RC_GROUND);
    lua_setfield(L, -2, "GROUND");
    lua_pushinteger(L, RC_MAX_POLYGON_VERTICES);
    lua_setfield(L, -2, "MAX_POLYGON_VERTICES");
    lua_pushnumber(L, RC_MAX_GRAVITY);
    lua_setfield(L, -2, "MAX_GRAVITY");
    lua_pushnumber(L, RC_MIN_H);
    lua_setfield(L, -2, "MIN_H");
    lua_pushnumber(L, RC_MAX_H);
    lua_setfield(L, -2, "MAX_H");
    lrc_defaults(L);   /* the kernel's defaults, once (lrc_defs.c) */
    lua_setfield(L, -2, "defaults");
    return 1;
}
