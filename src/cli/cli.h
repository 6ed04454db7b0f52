/* cli/cli.h -- the ricochet program's parts (not public). */
#ifndef RC_CLI_H
#define RC_CLI_H

#ifndef RC_LUA_DIR
#define RC_LUA_DIR "lua"
#endif

/* package.path templates for ricochet's Lua files; NULL if out of memory
 * (the caller frees) -- cli_path.c */
char *rc_cli_lua_path(void);

/* one BLAS thread, OpenBLAS's idle worker stopped -- cli_blas.c */
void rc_cli_blas_one_thread(void);

#endif /* RC_CLI_H */
