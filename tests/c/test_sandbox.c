/* test_sandbox.c -- the kernel's settable allocator (rc_set_allocator) and
 * the host API for Lua (ricochet_lua.h): a sandboxed state refuses each
 * escape with its message, limits end a run with RC_ERR_LIMIT and a marked
 * output, and one allocator of the host sees Lua's and the kernel's bytes. */
#define _POSIX_C_SOURCE 200809L
#include "rc_test.h"

#include <lua.h>
#include <lauxlib.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ricochet_lua.h"

/* ---------------------------------------------------------------- a counting allocator */

typedef struct counting {
    long long live;        /* blocks alive */
    long long calls;       /* growth calls (allocations and enlargements) */
    long long fail_at;     /* this growth call fails (0: none) */
    size_t bytes;          /* bytes alive */
} counting;

static void *counting_alloc(void *ud, void *p, size_t osize, size_t nsize)
{
    counting *c = (counting *)ud;
    if (!p) osize = 0;
    if (nsize == 0) {
        if (p) {
            c->live--;
            c->bytes -= osize;
            free(p);
        }
        return NULL;
    }
    if (nsize > osize && ++c->calls == c->fail_at) return NULL;
    void *q = realloc(p, nsize);
    if (!q) return NULL;
    if (!p) c->live++;
    c->bytes = c->bytes - osize + nsize;
    return q;
}

static char *make_tmpdir(void)
{
    static char buf[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/rc_test_sandbox_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(buf);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* ---------------------------------------------------------------- the kernel's allocator */

/* A pile of disks on a half-plane, written to dir, five steps: the first
 * failing call's status (RC_OK if none). The world is destroyed. */
static rc_status build_and_run(const char *dir)
{
    rc_world_def wd = rc_default_world_def();
    wd.gravity[1] = -9.81;
    rc_world *w = NULL;
    rc_status s = rc_world_create(&wd, &w);
    if (s != RC_OK) return s;
    rc_shape_def gd = rc_default_shape_def();
    gd.type = RC_SHAPE_HALFPLANE;
    gd.normal[1] = 1.0;
    s = rc_shape_create(w, RC_GROUND, &gd, NULL);
    for (int i = 0; i < 30 && s == RC_OK; i++) {
        rc_body_def bd = rc_default_body_def();
        char name[16];
        snprintf(name, sizeof name, "d%d", i);
        bd.name = i % 3 == 0 ? name : NULL;
        bd.mass = 1.0;
        bd.inertia = 0.1;
        bd.q[0] = 1.01 * (i % 6);
        bd.q[1] = 0.5 + 1.01 * (i / 6);
        int b = -1;
        s = rc_body_create(w, &bd, &b);
        if (s != RC_OK) break;
        rc_shape_def sd = rc_default_shape_def();
        sd.type = RC_SHAPE_DISK;
        sd.radius = 0.5;
        s = rc_shape_create(w, b, &sd, NULL);
    }
    /* a pendulum on a named revolute joint (its reaction forces are columns) */
    int pend = -1;
    rc_body_def pd = rc_default_body_def();
    pd.name = "pendulum";
    pd.mass = 1.0;
    pd.inertia = 0.1;
    pd.q[0] = 10.0;
    pd.q[1] = 5.0;
    if (s == RC_OK) s = rc_body_create(w, &pd, &pend);
    rc_joint_def jd = rc_default_joint_def();
    jd.type = RC_JOINT_REVOLUTE;
    jd.body_a = RC_GROUND;
    jd.body_b = pend;
    jd.point_a[0] = 11.0;
    jd.point_a[1] = 5.0;
    jd.point_b[0] = 1.0;
    jd.name = "pin";
    if (s == RC_OK) s = rc_joint_create(w, &jd, NULL);
    /* a named spring, a named box with a named rule against the ground */
    rc_spring_def spd = rc_default_spring_def();
    spd.body_a = RC_GROUND;
    spd.body_b = pend;
    spd.k = 10.0;
    spd.name = "spring";
    if (s == RC_OK) s = rc_spring_create(w, &spd, NULL);
    int box = -1;
    rc_body_def xd = rc_default_body_def();
    xd.name = "box";
    xd.mass = 1.0;
    xd.inertia = 1.0 / 6.0;
    xd.q[0] = -3.0;
    xd.q[1] = 0.505;
    if (s == RC_OK) s = rc_body_create(w, &xd, &box);
    rc_shape_def bx = rc_default_shape_def();
    bx.type = RC_SHAPE_POLYGON;
    bx.nvert = 4;
    const double v[4][2] = { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } };
    memcpy(bx.vert, v, sizeof v);
    bx.name = "box shape";
    if (s == RC_OK) s = rc_shape_create(w, box, &bx, NULL);
    rc_law_def ld = rc_default_law_def();
    ld.mu = 0.3;
    ld.name = "rough";
    int law = -1;
    if (s == RC_OK) s = rc_law_create(w, &ld, &law);
    rc_contact_rule_def rd = rc_default_contact_rule_def();
    rd.kind = RC_RULE_GROUPS;
    rd.law = law;
    if (s == RC_OK) s = rc_contact_rule(w, &rd);
    rc_contact_rule_def rb = rc_default_contact_rule_def();
    rb.kind = RC_RULE_BODIES;
    rb.a = RC_GROUND;
    rb.b = box;
    rb.law = law;
    rb.name = "C";
    if (s == RC_OK) s = rc_contact_rule(w, &rb);
    /* a named linear body (3 masses on springs) with a named gap */
    const double M[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    const double K[9] = { 2, -1, 0, -1, 2, -1, 0, -1, 2 };
    const double q0[3] = { 0.1, 0.2, 0.3 };
    rc_linear_def lin = rc_default_linear_def();
    lin.name = "bar";
    lin.n = 3;
    lin.M = M;
    lin.K = K;
    lin.q0 = q0;
    int bar = -1;
    if (s == RC_OK) s = rc_linear_create(w, &lin, &bar);
    const int idx[1] = { 2 };
    const double nrm[1] = { -1.0 };
    rc_gap_def gap = rc_default_gap_def();
    gap.body = bar;
    gap.nnz = 1;
    gap.index = idx;
    gap.normal = nrm;
    gap.g0 = 0.35;
    gap.name = "stop";
    if (s == RC_OK) s = rc_gap_create(w, &gap, NULL);
    rc_sim_def sim = rc_default_sim_def();
    sim.h = 1e-3;
    if (s == RC_OK) s = rc_world_configure(w, &sim);
    rc_output_def od = rc_default_output_def();
    od.dir = dir;
    if (s == RC_OK) s = rc_output_open(w, &od);
    char vdir[400];
    snprintf(vdir, sizeof vdir, "%s/vtk", dir);
    rc_vtk_def vd = rc_default_vtk_def();
    vd.dir = vdir;
    rc_vtk_writer *vw = NULL;
    if (s == RC_OK) s = rc_vtk_open(&vd, &vw);
    for (int k = 0; k < 5 && s == RC_OK; k++) {
        s = rc_world_step(w);
        if (s == RC_OK) s = rc_vtk_frame(vw, w);
    }
    rc_status sv = rc_vtk_close(vw);
    if (s == RC_OK) s = sv;
    if (s == RC_OK) s = rc_output_close(w, "complete", NULL);
    rc_world_destroy(w);
    return s;
}

RC_TEST(allocator_sees_every_block)
{
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    if (!dir) return;
    counting c = { 0, 0, 0, 0 };
    rc_set_allocator(counting_alloc, &c);
    rc_alloc_fn fn = NULL;
    void *ud = NULL;
    rc_get_allocator(&fn, &ud);
    CHECK(fn == counting_alloc && ud == &c);
    CHECK_OK(build_and_run(dir));
    CHECK(c.calls > 50);               /* the kernel allocated through it */
    CHECK(c.live == 0 && c.bytes == 0); /* and freed everything it made */
    rc_set_allocator(NULL, NULL);
    rc_get_allocator(&fn, &ud);
    CHECK(fn == NULL && ud == NULL);
}

/* Blocks made by one allocator are freed by it after another is set. */
RC_TEST(allocator_changed_while_blocks_live)
{
    counting a = { 0, 0, 0, 0 }, b = { 0, 0, 0, 0 };
    rc_set_allocator(counting_alloc, &a);
    rc_world_def wd = rc_default_world_def();
    rc_world *w = NULL;
    CHECK_OK(rc_world_create(&wd, &w));
    long long made = a.live;
    CHECK(made > 0);
    rc_set_allocator(counting_alloc, &b);
    rc_body_def bd = rc_default_body_def();
    bd.name = "b";
    for (int i = 0; i < 100; i++) {
        bd.name = i == 0 ? "b" : NULL;
        CHECK_OK(rc_body_create(w, &bd, NULL));
    }
    rc_set_allocator(NULL, NULL);
    rc_world_destroy(w);
    CHECK(a.live == 0 && a.bytes == 0);
    CHECK(b.live == 0 && b.bytes == 0);
    CHECK(b.calls > 0);
}

/* Fault injection: the n-th allocation fails, for every n up to past the
 * last one: each call fails with RC_ERR_NOMEM and a message (no crash),
 * and nothing leaks. */
RC_TEST(every_failed_allocation_is_reported)
{
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    if (!dir) return;
    counting probe = { 0, 0, 0, 0 };
    rc_set_allocator(counting_alloc, &probe);
    CHECK_OK(build_and_run(dir));
    long long total = probe.calls;
    int bad = 0, nomem = 0;
    for (long long n = 1; n <= total + 1; n++) {
        counting c = { 0, 0, n, 0 };
        rc_set_allocator(counting_alloc, &c);
        rc_status s = build_and_run(dir);
        if (n <= total) {
            if (s == RC_ERR_NOMEM && rc_last_error()[0]) nomem++;
            else if (bad++ < 5)
                fprintf(stderr, "  allocation %lld of %lld failed: %s: %s\n", n, total, rc_status_name(s),
                        s == RC_OK ? "(not reported)" : rc_last_error());
        } else if (s != RC_OK) {
            bad++;
        }
        if (c.live != 0 || c.bytes != 0) {
            if (bad++ < 5) fprintf(stderr, "  allocation %lld failed: %lld blocks leaked\n", n, c.live);
        }
    }
    rc_set_allocator(NULL, NULL);
    printf("  %lld allocations; %d failures reported as RC_ERR_NOMEM\n", total, nomem);
    CHECK(bad == 0);
    CHECK(nomem == total);
}

/* ---------------------------------------------------------------- Lua hosts */

typedef struct host {
    char *dir;        /* the script's folder */
    char out[300];    /* its output folder */
    char path[300];
} host;

static int host_init(host *h)
{
    h->dir = make_tmpdir();
    if (!h->dir) return 0;
    snprintf(h->out, sizeof h->out, "%s/out", h->dir);
    return 1;
}

/* Run text as DIR/NAME.lua in a fresh sandboxed state with the limits. */
static rc_status run_sandboxed(host *h, const char *name, const char *text, const rc_lua_limits *lim,
                               rc_lua_limit *hit, const char **outcome)
{
    snprintf(h->path, sizeof h->path, "%s/%s.lua", h->dir, name);
    write_text(h->path, text);
    rc_lua_def d = rc_lua_default_def();
    d.sandbox = 1;
    d.out_dir = h->out;
    d.read_dir = h->dir;
    d.lua_path = "lua/?.lua;lua/?/init.lua";   /* the tests run in the source tree */
    if (lim) d.limits = *lim;
    lua_State *L = NULL;
    rc_status s = rc_lua_open(&d, &L);
    if (s != RC_OK) return s;
    s = rc_lua_run_file(L, h->path, 0, NULL, outcome);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", rc_last_error());
    if (hit) *hit = rc_lua_limit_hit(L);
    rc_lua_close(L);
    rc_set_error(s, "%s", msg);
    return s;
}

#define CHECK_MSG(sub) do { if (!strstr(rc_last_error(), (sub))) { \
    fprintf(stderr, "  %s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, rc_last_error(), (sub)); \
    (*failed)++; } } while (0)

RC_TEST(sandbox_refuses_escapes)
{
    host h;
    CHECK(host_init(&h));
    if (!h.dir) return;
    const char *outcome = NULL;
    struct { const char *code, *msg; } cases[] = {
        { "os.execute('true')", "os.execute is not available in the sandbox" },
        { "io.popen('ls')", "io.popen is not available in the sandbox" },
        { "assert(io.open('/etc/passwd'))", "reading is not allowed in the sandbox" },
        { "assert(io.open('/tmp/rc_sandbox_escape.txt', 'w'))", "writing outside the output folder" },
        { "package.loadlib('libc.so.6', '*')", "package.loadlib is not available in the sandbox" },
        { "require 'lfs'", "C modules are not loaded" },
        { "debug.sethook()", "the debug library is not available in the sandbox" },
        { "assert(load(string.dump(function() end)))", "binary) chunks are not allowed in the sandbox" },
        { "os.exit(0)", "os.exit is not available in the sandbox" },
        { "setmetatable({}, { __gc = function() end })", "__gc are not allowed in the sandbox" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rc_status s = run_sandboxed(&h, "escape", cases[i].code, NULL, NULL, &outcome);
        CHECK(s == RC_ERR_CALLBACK);
        CHECK(outcome && strcmp(outcome, "error") == 0);
        CHECK_MSG(cases[i].msg);
    }
    CHECK(access("/tmp/rc_sandbox_escape.txt", F_OK) != 0);
    /* the same script runs in a normal state (os.execute exists there) */
    snprintf(h.path, sizeof h.path, "%s/normal.lua", h.dir);
    write_text(h.path, "assert(type(os.execute) == 'function' and debug.getinfo ~= nil)");
    lua_State *L = NULL;
    rc_lua_def d = rc_lua_default_def();
    CHECK_OK(rc_lua_open(&d, &L));
    CHECK_OK(rc_lua_run_file(L, h.path, 0, NULL, &outcome));
    rc_lua_close(L);
}

RC_TEST(sandbox_runs_ricochet_and_writes_under_out)
{
    host h;
    CHECK(host_init(&h));
    if (!h.dir) return;
    char script[1024];
    snprintf(script, sizeof script,
             "local rc = require 'ricochet'\n"
             "local w = rc.world{ gravity = { 0, -10 } }\n"
             "w:body{ name = 'b', mass = 1, inertia = 1, q = { 0, 1, 0 } }\n"
             "local sim = w:simulation{ h = 0.01 }\n"
             "sim:run{ T = 0.1, out = '%s/run' }\n"
             "local ok, err = pcall(sim.run, sim, { T = 0.2, out = '%s/../elsewhere' })\n"
             "assert(not ok and err:find('writing outside the output folder', 1, true), err)\n", h.out, h.out);
    const char *outcome = NULL;
    CHECK_OK(run_sandboxed(&h, "scene", script, NULL, NULL, &outcome));
    char p[400];
    snprintf(p, sizeof p, "%s/run/run.json", h.out);
    const char *json = read_text(p);
    CHECK(json && strstr(json, "\"status\": \"complete\""));
    snprintf(p, sizeof p, "%s/elsewhere", h.dir);
    CHECK(access(p, F_OK) != 0);
}

RC_TEST(limits_end_the_run_with_a_marked_output)
{
    host h;
    CHECK(host_init(&h));
    if (!h.dir) return;
    char prefix[600];
    snprintf(prefix, sizeof prefix,
             "local rc = require 'ricochet'\n"
             "local w = rc.world{ gravity = { 0, -10 } }\n"
             "local b = w:body{ name = 'b', mass = 1, inertia = 1, q = { 0, 1, 0 } }\n"
             "local sim = w:simulation{ h = 0.01 }\n"
             "sim:output{ dir = '%s/run' }\n", h.out);
    struct {
        const char *code;
        rc_lua_limits lim;
        rc_lua_limit hit;
        const char *msg;
    } cases[] = {
        { "while true do end", { 1000000, 0, 0, 0 }, RC_LUA_LIMIT_INSTRUCTIONS,
          "instruction limit exceeded: the run executed more than 1000000 Lua instructions" },
        { "while true do pcall(function() while true do end end) end", { 1000000, 0, 0, 0 },
          RC_LUA_LIMIT_INSTRUCTIONS, "instruction limit exceeded" },
        { "coroutine.wrap(function() while true do pcall(function() while true do end end) end end)()",
          { 1000000, 0, 0, 0 }, RC_LUA_LIMIT_INSTRUCTIONS, "instruction limit exceeded" },
        { "b:set_force_fn(function(t) if t > 0.05 then while true do end end return { 0, 0, 0 } end)\n"
          "sim:run{ T = 1 }", { 0, 100000, 0, 0 }, RC_LUA_LIMIT_CALLBACK_INSTRUCTIONS,
          "callback instruction limit exceeded: a function called by the kernel executed more than 100000" },
        { "local t = {} for i = 1, 10 do t[i] = string.rep('x', 1 << 30) end", { 0, 0, 0, 64 << 20 },
          RC_LUA_LIMIT_MEMORY, "memory limit exceeded: the script asked for 1 GiB more" },
        { "for i = 1, 1e7 do w:body{ mass = 1, inertia = 1 } end", { 0, 0, 0, 16 << 20 }, RC_LUA_LIMIT_MEMORY,
          "memory limit exceeded: the kernel asked for" },
        { "print(string.find(string.rep('a', 40), string.rep('a?', 40) .. string.rep('a', 40)))",
          { 10000000, 0, 0, 0 }, RC_LUA_LIMIT_INSTRUCTIONS, "instruction limit exceeded" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char script[2000];
        snprintf(script, sizeof script, "%s%s\n", prefix, cases[i].code);
        rc_lua_limit hit = RC_LUA_LIMIT_NONE;
        const char *outcome = NULL;
        rc_status s = run_sandboxed(&h, "limit", script, &cases[i].lim, &hit, &outcome);
        CHECK(s == RC_ERR_LIMIT);
        CHECK(hit == cases[i].hit);
        CHECK(outcome && strcmp(outcome, "limit") == 0);
        CHECK_MSG(cases[i].msg);
        char p[400];
        snprintf(p, sizeof p, "%s/run/run.json", h.out);
        const char *json = read_text(p);
        CHECK(json && strstr(json, "\"status\": \"error\"") && strstr(json, "\"complete\": false"));
        CHECK(json && strstr(json, cases[i].msg));
        if (!json || !strstr(json, cases[i].msg)) fprintf(stderr, "  case %zu: run.json: %s\n", i, json ? json : "(none)");
    }
}

RC_TEST(expire_and_interrupt_stop_the_script)
{
    host h;
    CHECK(host_init(&h));
    if (!h.dir) return;
    snprintf(h.path, sizeof h.path, "%s/loop.lua", h.dir);
    write_text(h.path, "coroutine.wrap(function() while true do end end)()");
    rc_lua_def d = rc_lua_default_def();
    d.sandbox = 1;
    d.host_clock = 1;
    d.limits.max_seconds = 2.5;
    lua_State *L = NULL;
    CHECK_OK(rc_lua_open(&d, &L));
    rc_lua_expire(L);   /* as the host's timer would, here before the start */
    const char *outcome = NULL;
    CHECK(rc_lua_run_file(L, h.path, 0, NULL, &outcome) == RC_ERR_LIMIT);
    CHECK(rc_lua_limit_hit(L) == RC_LUA_LIMIT_SECONDS);
    CHECK_MSG("time limit exceeded: the run took more than 2.5 s");
    rc_lua_close(L);

    d = rc_lua_default_def();
    CHECK_OK(rc_lua_open(&d, &L));
    rc_lua_interrupt(L);
    CHECK(rc_lua_run_file(L, h.path, 0, NULL, &outcome) == RC_ERR_INTERRUPTED);
    CHECK(outcome && strcmp(outcome, "interrupted") == 0);
    CHECK_MSG("interrupted");
    rc_clear_interrupt();
    rc_lua_close(L);
}

/* The host's allocator under the state sees Lua's and the kernel's bytes;
 * all are freed at rc_lua_close and the kernel's allocator is restored. */
RC_TEST(one_host_allocator_for_lua_and_kernel)
{
    host h;
    CHECK(host_init(&h));
    if (!h.dir) return;
    snprintf(h.path, sizeof h.path, "%s/mem.lua", h.dir);
    write_text(h.path,
               "local rc = require 'ricochet'\n"
               "local w = rc.world{}\n"
               "for i = 1, 2000 do w:body{ mass = 1, inertia = 1, q = { i, 0, 0 } } end\n");
    counting c = { 0, 0, 0, 0 };
    rc_lua_def d = rc_lua_default_def();
    d.lua_path = "lua/?.lua;lua/?/init.lua";
    d.alloc = counting_alloc;
    d.alloc_ud = &c;
    lua_State *L = NULL;
    CHECK_OK(rc_lua_open(&d, &L));
    rc_alloc_fn fn = NULL;
    rc_get_allocator(&fn, NULL);
    CHECK(fn != NULL);   /* the state's, while it is open */
    CHECK_OK(rc_lua_run_file(L, h.path, 0, NULL, NULL));
    rc_lua_usage u = rc_lua_get_usage(L);
    CHECK(u.kernel_memory > 2000 * 40);          /* the bodies' arrays */
    /* every byte the host's allocator holds is counted, except the box */
    CHECK(c.bytes >= u.memory && c.bytes - u.memory < 4096);
    CHECK(u.memory_peak >= u.memory);
    rc_lua_close(L);
    CHECK(c.live == 0 && c.bytes == 0);
    rc_get_allocator(&fn, NULL);
    CHECK(fn == NULL);
}

RC_TEST(bad_definitions)
{
    lua_State *L = NULL;
    rc_lua_def d = rc_lua_default_def();
    d.limits.max_instructions = -1;
    CHECK(rc_lua_open(&d, &L) == RC_ERR_ARG && L == NULL);
    CHECK_MSG("max_instructions must be >= 0");
    d = rc_lua_default_def();
    d.limits.max_seconds = -1.0;
    CHECK(rc_lua_open(&d, &L) == RC_ERR_ARG);
    d = rc_lua_default_def();
    d.out_dir = "";
    CHECK(rc_lua_open(&d, &L) == RC_ERR_ARG);
    CHECK(rc_lua_open(NULL, &L) == RC_ERR_ARG);
}

RC_TEST_MAIN(T(allocator_sees_every_block), T(allocator_changed_while_blocks_live),
             T(every_failed_allocation_is_reported), T(sandbox_refuses_escapes),
             T(sandbox_runs_ricochet_and_writes_under_out), T(limits_end_the_run_with_a_marked_output),
             T(expire_and_interrupt_stop_the_script), T(one_host_allocator_for_lua_and_kernel),
             T(bad_definitions))
