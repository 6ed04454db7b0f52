/*
 * ricochet.h -- the public C API of Ricochet.
 *
 * One header, one prefix (rc_), opaque handles, definition structs with
 * defaults (rc_default_*_def), status codes with a message (rc_last_error).
 * The library never calls exit() or abort(): every failure is reported as an
 * rc_status and a human-readable message.
 *
 * Conventions (planar, dim = 2):
 *   rigid2d body: q = (x, y, theta), v = (vx, vy, omega), theta counter-clockwise.
 *   contact frame: n points from body A (or the static obstacle) towards body B,
 *   t = n rotated clockwise by 90 degrees, t = (n_y, -n_x).
 *   u = (u_N, u_T) = H(q) v is the relative velocity of B with respect to A at
 *   the contact point; p = (p_N, p_T) is the impulse on B (opposite on A).
 *
 * Thread safety: a world must be used by one thread at a time; different
 * worlds are independent. rc_last_error() is thread-local.
 */
#ifndef RICOCHET_H
#define RICOCHET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RC_VERSION "0.1.0"

/* RC_API marks the public functions: the shared library is built with
 * -fvisibility=hidden and exports these only (internal functions stay hidden;
 * the static library keeps them all for the tests). */
#if defined(__GNUC__) || defined(__clang__)
#define RC_API __attribute__((visibility("default")))
#else
#define RC_API
#endif

/* ---------------------------------------------------------------- status */

typedef enum rc_status {
    RC_OK = 0,
    RC_ERR_ARG,         /* invalid argument: type, range, NaN/inf, unknown name */
    RC_ERR_STATE,       /* call not allowed now (e.g. step before configure)   */
    RC_ERR_NOMEM,       /* allocation failed                                    */
    RC_ERR_NOT_FOUND,   /* unknown id or name                                   */
    RC_ERR_SOLVER,      /* one-step problem not solved and policy is "error"    */
    RC_ERR_CALLBACK,    /* a user callback reported a failure                   */
    RC_ERR_IO,          /* output could not be written                          */
    RC_ERR_INTERRUPTED, /* rc_request_interrupt() was called                    */
    RC_ERR_NUMERIC,     /* NaN or inf appeared in the state                     */
    RC_ERR_LIMIT        /* a resource limit of the host ended the run
                           (ricochet_lua.h: instructions, time, memory)         */
} rc_status;

/* Message of the last failed call on this thread ("" if none). */
RC_API const char *rc_last_error(void);
/* Short name of a status code, e.g. "RC_ERR_ARG". */
RC_API const char *rc_status_name(rc_status s);

/* Asynchronous interrupt (safe to call from a signal handler): the next
 * rc_world_step of every world returns RC_ERR_INTERRUPTED without stepping. */
RC_API void rc_request_interrupt(void);
RC_API void rc_clear_interrupt(void);
RC_API int rc_interrupt_requested(void);
/* The same, recording the signal that asked for it (a program's handler of
 * SIGINT, SIGTERM, SIGHUP): rc_interrupt_signal() returns it (0 if no
 * interrupt is pending or none was given; the first request's signal wins),
 * rc_output_close "interrupted" writes its name to run.json. */
RC_API void rc_request_interrupt_signal(int signo);
RC_API int rc_interrupt_signal(void);
/* "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", ... (NULL for others and 0). */
RC_API const char *rc_signal_name(int signo);

/* Number of heap allocations (malloc/realloc) made by the library since
 * start: lets tests and benchmarks check that a step allocates nothing. */
RC_API uint64_t rc_alloc_count(void);

/* The library's allocator, with the contract of Lua's lua_Alloc (so that one
 * function can serve a Lua state and the kernel): fn(ud, NULL, 0, n)
 * allocates n bytes, fn(ud, p, old, n) resizes the block p of old bytes to
 * n > 0 bytes, fn(ud, p, old, 0) frees it and returns NULL. A failed
 * allocation returns NULL: the call that needed it fails with RC_ERR_NOMEM
 * and a message, and the library never aborts. The allocator is
 * process-wide and read at each allocation; every block remembers the
 * allocator that made it and is resized and freed by that one, so it may be
 * changed at any time, as long as a replaced allocator keeps working until
 * the blocks it made are freed. fn = NULL restores the C library's
 * malloc/realloc/free. Not thread-safe: set it while no other thread calls
 * the library. */
typedef void *(*rc_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
RC_API void rc_set_allocator(rc_alloc_fn fn, void *ud);
RC_API void rc_get_allocator(rc_alloc_fn *fn, void **ud);

/* 1 when the library was built with OpenMP (solver.threads > 1 then sweeps
 * in parallel), 0 otherwise. */
RC_API int rc_openmp(void);

/* ---------------------------------------------------------------- world */

typedef struct rc_world rc_world;

/* Limits of inputs that are finite but can only overflow or never end
 * (docs/c-api.md, "Limits"): refused with the reason. */
#define RC_MAX_GRAVITY 1e12     /* |gravity component|                         */
#define RC_MIN_H 1e-12          /* the time step h ...                         */
#define RC_MAX_H 1e6            /* ... is in [RC_MIN_H, RC_MAX_H]              */

typedef struct rc_world_def {
    int dim;                /* 2 (planar) or 3 (spatial bodies: rc_body3d_create) */
    double gravity[3];      /* default (0, 0, 0); |each| <= RC_MAX_GRAVITY    */
    double contact_margin;  /* contacts are tracked while g_N <= margin
                               (default 0.01); must be >= 0                   */
    /* law used for pairs that no rule names (default: Newton, e = 0, mu = 0) */
    double default_e, default_mu;
    /* periodic boundary in x: when periodic_x[1] > periodic_x[0], the cell is
     * [x0, x1) (L = x1 - x0): a body whose x leaves the cell is moved by +-L
     * with its velocity kept, and shapes near one edge touch the images of
     * shapes near the other (the impulse acts on the real body). Ground
     * segments and shapes must then be narrower than L / 2 (a half-plane is
     * not limited); default {0, 0}: no periodic boundary. */
    double periodic_x[2];
} rc_world_def;

RC_API rc_world_def rc_default_world_def(void);
RC_API rc_status rc_world_create(const rc_world_def *def, rc_world **out);
/* The checks of rc_world_create (dim, |gravity|, margin, periodic, the
 * default law's e and mu): RC_OK, or RC_ERR_ARG with "WHAT: 'margin' must be
 * >= 0 (got -1)" (what NULL: "world"), as rc_law_def_check. */
RC_API rc_status rc_world_def_check(const rc_world_def *def, const char *what);
RC_API void rc_world_destroy(rc_world *w);

/* Warnings (e.g. a step whose solver did not converge under policy "warn").
 * Default: printed on stderr. */
typedef void (*rc_warning_fn)(void *user, const char *message);
RC_API void rc_world_set_warning_fn(rc_world *w, rc_warning_fn fn, void *user);

/* ---------------------------------------------------------------- bodies */

typedef enum rc_body_kind {
    RC_BODY_RIGID2D = 1,
    RC_BODY_LINEAR = 2,     /* M v' + K q + C v = F(t) + R: created by rc_linear_create */
    RC_BODY_RIGID3D = 4,    /* spatial rigid body of a dim = 3 world: rc_body3d_create */
    RC_BODY_NONLINEAR = 5   /* M v' + f_int(q) + C v = F + R, f_int nonlinear: a beam (rc_beam_create) */
} rc_body_kind;

#define RC_GROUND (-1) /* the static world: owner of obstacles */

typedef struct rc_body_def {
    rc_body_kind kind;      /* default RC_BODY_RIGID2D                        */
    const char *name;       /* optional, unique; copied; names output columns */
    double mass;            /* > 0                                            */
    double inertia;         /* > 0, about the centre of mass                  */
    double q[7];            /* initial coordinates (rigid2d: x, y, theta)     */
    double v[6];            /* initial velocities  (rigid2d: vx, vy, omega)   */
    double force[6];        /* constant applied force (fx, fy, torque)        */
} rc_body_def;

/* A force callback returns the applied generalised force f (rigid2d: fx, fy,
 * torque) at time t given the state at the start of the step; it is called
 * once per step at t = t_{k+theta} and adds to the constant force. Return
 * RC_OK, or another status to abort the step (set the message with
 * rc_set_error first). */
typedef rc_status (*rc_force_fn)(void *user, int body, double t,
                                 const double *q, const double *v, double *f);

RC_API rc_body_def rc_default_body_def(void);
RC_API rc_status rc_body_create(rc_world *w, const rc_body_def *def, int *out_id);
/* The checks of rc_body_create that do not depend on the world (kind, mass
 * and inertia > 0 with finite inverses, finite q, v, force, a nonempty name;
 * not the name's uniqueness): as rc_law_def_check, what NULL: "body". */
RC_API rc_status rc_body_def_check(const rc_body_def *def, const char *what);
RC_API int rc_body_count(const rc_world *w);
RC_API rc_status rc_body_find(const rc_world *w, const char *name, int *out_id);
RC_API const char *rc_body_name(const rc_world *w, int id); /* NULL if unnamed/bad id */
RC_API int rc_body_nq(const rc_world *w, int id);            /* 3 for rigid2d, 0 if bad */
RC_API int rc_body_nv(const rc_world *w, int id);
RC_API rc_status rc_body_get_state(const rc_world *w, int id, double *q, double *v);
RC_API rc_status rc_body_set_state(rc_world *w, int id, const double *q, const double *v);
RC_API rc_status rc_body_set_force(rc_world *w, int id, const double *f);
RC_API rc_status rc_body_get_force(const rc_world *w, int id, double *f);
RC_API rc_status rc_body_set_force_fn(rc_world *w, int id, rc_force_fn fn, void *user);
/* mass and inertia (m, J) */
RC_API rc_status rc_body_get_mass(const rc_world *w, int id, double *m, double *inertia);

/* Spatial rigid bodies (dim = 3 worlds only; docs/theory/spatial.md):
 * q = (x, y, z, qw, qx, qy, qz) (centre of mass, unit quaternion body ->
 * world), v = (vx, vy, vz, wx, wy, wz) (centre-of-mass velocity in the world
 * frame, angular velocity in the body frame). The body frame is the
 * principal frame: a full inertia tensor (symmetric positive definite) is
 * diagonalised at creation, its eigenvectors P (det +1) become the body
 * axes, q's rotation is composed as q P and the given angular velocity
 * becomes P^T w (rc_body_get_state reports them so). A quaternion is
 * normalised on input (a zero one is refused). force = (fx, fy, fz) in the
 * world frame and a torque (tx, ty, tz) in the body frame, as a force
 * callback's f. Integrated by Moreau--Jean and Moreau--Jean--Fremond. */
typedef struct rc_body3d_def {
    const char *name;       /* optional, unique; copied; names output columns */
    double mass;            /* > 0                                            */
    double inertia[9];      /* body-frame tensor about the centre of mass,
                               row-major, symmetric positive definite
                               (default diag(1, 1, 1))                         */
    double q[7];            /* x, y, z, qw, qx, qy, qz (default 0,0,0, 1,0,0,0) */
    double v[6];            /* vx, vy, vz (world), wx, wy, wz (body)          */
    double force[6];        /* fx, fy, fz (world), tx, ty, tz (body)          */
} rc_body3d_def;
RC_API rc_body3d_def rc_default_body3d_def(void);
/* The checks of rc_body3d_create that do not depend on the world (what
 * NULL: "body"): mass > 0, a symmetric positive definite inertia, finite q,
 * v, force, a nonzero quaternion. */
RC_API rc_status rc_body3d_def_check(const rc_body3d_def *def, const char *what);
RC_API rc_status rc_body3d_create(rc_world *w, const rc_body3d_def *def, int *out_id);
/* mass and principal moments (Jx, Jy, Jz) of a spatial body */
RC_API rc_status rc_body3d_get_mass(const rc_world *w, int id, double *m, double inertia[3]);
/* Shapes of dim = 3 worlds (docs/theory/spatial.md, "Contacts"): on a
 * spatial body (centred at its centre of mass, axes along its principal
 * axes) or, with body = RC_GROUND, a static obstacle at def.point (world
 * axes). A plane (a half-space {x : n.(x - point) <= 0}) only on RC_GROUND.
 * Pairs get the world's default law (rc_world_set_default_law). */
typedef enum { RC_SHAPE3_PLANE = 0, RC_SHAPE3_SPHERE = 1, RC_SHAPE3_CAPSULE = 2, RC_SHAPE3_BOX = 3,
               RC_SHAPE3_POLYHEDRON = 4 } rc_shape3_kind;
typedef struct rc_shape3_def {
    rc_shape3_kind kind;
    double radius;          /* sphere, capsule: > 0                          */
    double half_len;        /* capsule: half-length along the body z, >= 0  */
    double half[3];         /* box: half-extents, > 0                        */
    double point[3];        /* RC_GROUND: position (plane: a point on it);
                               a body's shape: its centre in the body frame
                               (default 0: the centre of mass)               */
    double normal[3];       /* plane: outward normal, nonzero (normalised)  */
    int group;              /* contact group (rules by groups), default 0    */
} rc_shape3_def;
RC_API rc_shape3_def rc_default_shape3_def(void);   /* a unit sphere; plane normal (0, 0, 1) */
RC_API rc_status rc_shape3_create(rc_world *w, int body, const rc_shape3_def *def, int *out_id);
/* A convex polyhedron shape (RC_SHAPE3_POLYHEDRON; docs/theory/polyhedra.md):
 * the convex hull of the n points (xyz, 3 n doubles) given in the body frame
 * (RC_GROUND: world axes) and moved by offset (NULL: 0), like rc_shape3_def
 * .point. The hull is built once here and kept in the world's contiguous
 * polyhedron arrays (nothing is allocated in the step). Points inside the
 * hull or merged with others are dropped: the world's warning function says
 * how many. Errors: fewer than 4 distinct points, all on a plane, more than
 * 64 hull vertices or faces, a non-finite coordinate. (rc_shape3_create
 * refuses the kind RC_SHAPE3_POLYHEDRON: it has no points.) */
RC_API rc_status rc_shape3_create_polyhedron(rc_world *w, int body, const double *points, int n,
                                             const double offset[3], int *out_id);
/* Mass, centroid c and inertia tensor J (3x3 row-major, about c) of the
 * homogeneous convex hull of n points at density rho > 0. */
RC_API rc_status rc_polyhedron_mass_properties(const double *points, int n, double rho, double *mass,
                                               double c[3], double J[9]);
/* The contacts of the last step of a dim = 3 world (index 0 .. count-1). */
typedef struct rc_contact3_info {
    int id;                 /* persistent while the (shapes, feature) touch  */
    int shape_a, shape_b, body_a, body_b, active;
    double pa[3], pb[3];    /* the points on A and B (world)                 */
    double n[3], t1[3], t2[3];  /* normal from A to B, tangents              */
    double gN;              /* gap at q_k                                    */
    double u[3];            /* (u_N, u_T1, u_T2) at v_{k+1}                  */
    double p[3];            /* impulse (p_N, p_T1, p_T2) of the step         */
    int drill;              /* 1: active with a Coulomb--Contensou law       */
    double u_d, p_d;        /* drilling row: (3 pi R / 16) n.(omega_b - omega_a)
                               at v_{k+1} and its impulse (0 without drill)  */
} rc_contact3_info;
RC_API int rc_world_contact3_count(const rc_world *w);
RC_API rc_status rc_world_contact3_get(const rc_world *w, int index, rc_contact3_info *out);

/* Joints between spatial rigid bodies of a dim = 3 world (model/joint3.c;
 * docs/theory/spatial.md, "Joints"). Body A is a body or RC_GROUND, B a
 * body; the anchor is a world point at creation (the current poses give the
 * points in the bodies' frames). Rows (world directions, an unbounded
 * impulse on B along them, the opposite on A), enforced at velocity level
 * on the scheme's unknown velocity with H at q_k, each joint solved exactly
 * against its own Delassus block inside the 3D Gauss--Seidel sweep:
 *   SPHERICAL  P_B = P_A (3 rows);
 *   REVOLUTE   spherical + the hinge axis of A and B kept parallel (2 rows:
 *              relative angular velocity zero across the axis);
 *   FIXED      spherical + relative rotation fixed (6 rows);
 *   DISTANCE   |P_B - P_A| = its length at creation (1 row; anchor on A,
 *              anchor_b on B);
 *   PRISMATIC  P_B on the line through P_A along axis (turning with A),
 *              relative rotation fixed (5 rows).
 * rc_sim_def.project_joints also projects them after each step. */
/* (rc_motion_fn, the joints' section below, repeated: C11 allows it) */
typedef rc_status (*rc_motion_fn)(void *user, double t, double *f, double *df);
typedef enum rc_joint3_type {
    RC_JOINT3_SPHERICAL = 1,
    RC_JOINT3_REVOLUTE,
    RC_JOINT3_FIXED,
    RC_JOINT3_DISTANCE,
    RC_JOINT3_PRISMATIC     /* slider: relative rotation fixed, P_B on the line
                               through P_A along axis (A's frame) (5 rows)   */
} rc_joint3_type;
typedef struct rc_joint3_def {
    rc_joint3_type type;    /* default RC_JOINT3_SPHERICAL                   */
    int body_a, body_b;     /* A: a body or RC_GROUND (default); B: a body   */
    double anchor[3];       /* world point at creation (P_A; P_B but for
                               DISTANCE)                                     */
    double anchor_b[3];     /* DISTANCE: P_B (world, at creation)            */
    double axis[3];         /* REVOLUTE: the hinge axis, PRISMATIC: the
                               sliding axis (world, nonzero)                 */
    const char *name;       /* optional, copied                              */
    /* Prescribed (rheonomic) motion, NULL (default): none. REVOLUTE: the
     * angle of B about the axis relative to A, theta(t) (rad, right-handed;
     * the pose at creation is theta(t_0)); PRISMATIC: the slide of P_B along
     * the axis, d(t) (the pose at creation is d(t_0)); DISTANCE: the length
     * l(t) (l(t_0) must be |anchor_b - anchor|). One more row (REVOLUTE,
     * PRISMATIC: 6 rows) or the length's row rheonomic (DISTANCE), rate
     * f'(t) from motion's df (NAN: central differences). Called at creation
     * (at the world's time) and in every step. */
    rc_motion_fn motion;
    void *motion_user;
} rc_joint3_def;
typedef struct rc_joint3_info {
    rc_joint3_type type;
    int body_a, body_b, rows;
    const char *name;
    double impulse[6];      /* the last step's impulse on B along the rows
                               (rows 0-2: world x, y, z force impulse for
                               SPHERICAL, REVOLUTE, FIXED; then angular)    */
    double violation;       /* |g| after the last step (length, radians)     */
    double work;            /* its part of W_J in the last step              */
    double coordinate;      /* REVOLUTE: the angle about the axis (in
                               (theta(t_0) - pi, theta(t_0) + pi] with a motion,
                               else (-pi, pi] from the pose at creation),
                               PRISMATIC: the slide along the axis (+ d(t_0)),
                               DISTANCE: the length, now; 0 for the others    */
    int driven;             /* 1: a motion drives the last row               */
    double motor_force;     /* rc_joint3_set_motor: the motor's impulse / h of the
                               last step (torque N m or force N, on B)        */
    double drive_force;     /* driven: that row's impulse / h, the drive's mean
                               torque (REVOLUTE, N m, about the axis) or force
                               (PRISMATIC, DISTANCE, N) on B over the last step */
} rc_joint3_info;
RC_API rc_joint3_def rc_default_joint3_def(void);
RC_API rc_status rc_joint3_create(rc_world *w, const rc_joint3_def *def, int *out_id);
RC_API int rc_joint3_count(const rc_world *w);
RC_API rc_status rc_joint3_get(const rc_world *w, int id, rc_joint3_info *out);
/* Motor of a REVOLUTE (torque about the axis) or PRISMATIC (force along it)
 * joint without a motion: a velocity row on its coordinate, rate = speed
 * (rad/s, m/s) with an impulse |lambda| <= h max_force, solved after the
 * joint's block in each sweep (as planar motors, rc_joint_set_motor); its
 * work is rc_step_info.W_motor. enabled = 0 switches it off. Moreau--Jean,
 * MJF (target (1 - theta) u_k + theta speed); gen-alpha refuses it. Between
 * steps only. */
RC_API rc_status rc_joint3_set_motor(rc_world *w, int id, int enabled, double speed, double max_force);
/* Mass and principal inertia about the centre of a homogeneous solid of
 * density rho: a sphere (dims: r), a box (half-extents a, b, c along x, y,
 * z), a capsule (radius r, half-length l of its cylinder along z). */
typedef enum rc_solid_kind { RC_SOLID_SPHERE = 1, RC_SOLID_BOX = 2, RC_SOLID_CAPSULE = 3 } rc_solid_kind;
RC_API rc_status rc_solid_mass_properties(rc_solid_kind kind, const double *dims, double rho,
                                          double *mass, double inertia[3]);

/* Removing bodies, shapes, joints and springs between steps (docs/embedding.md).
 * A removed rigid body takes its shapes, the joints and springs attached to
 * it and its contacts with it; its slot (the id) is kept free and reused by
 * the next rc_body_create (lowest free slot first), with its generation
 * incremented. Functions given a removed body's id refuse it:
 * "body 'NAME' (id N) was removed at t = T". An int id of a reused slot
 * names the new body: a host that keeps ids across removals keeps an
 * rc_ref (index + generation, as Box2D v3's b2BodyId) and checks it with
 * rc_body_ref_get. Refused inside a step (a force function): RC_ERR_STATE.
 * The removed body's energy E_kin + E_pot leaves the books as
 * rc_world_removed_energy (run.json: energy.E_removed). */
typedef struct rc_ref {
    int index;              /* the slot (the int id), -1: none */
    unsigned generation;    /* incremented at each removal from the slot */
} rc_ref;
RC_API rc_status rc_body_destroy(rc_world *w, int id);
RC_API rc_status rc_shape_destroy(rc_world *w, int id);
RC_API rc_status rc_joint_destroy(rc_world *w, int id);
RC_API rc_status rc_spring_destroy(rc_world *w, int id);
RC_API rc_ref rc_body_ref(const rc_world *w, int id);       /* {-1, 0} if not a live body */
RC_API int rc_body_ref_valid(const rc_world *w, rc_ref ref); /* 1: the same body still lives */
RC_API rc_status rc_body_ref_get(const rc_world *w, rc_ref ref, int *id);   /* refuses a stale ref */
RC_API unsigned rc_body_generation(const rc_world *w, int id);
RC_API int rc_body_is_removed(const rc_world *w, int id);
RC_API int rc_shape_is_removed(const rc_world *w, int id);
RC_API int rc_joint_is_removed(const rc_world *w, int id);
RC_API int rc_spring_is_removed(const rc_world *w, int id);
/* when a removed body was removed and its name (NULL: none) */
RC_API rc_status rc_body_removal(const rc_world *w, int id, double *t, const char **name);
/* when the body first in slot id was removed (RC_ERR_NOT_FOUND: never) */
RC_API rc_status rc_body_first_removal(const rc_world *w, int id, double *t);
/* the same for a removed joint (removed, its body removed, or broken) and spring */
RC_API rc_status rc_joint_removal(const rc_world *w, int id, double *t, const char **name);
RC_API rc_status rc_spring_removal(const rc_world *w, int id, double *t, const char **name);
RC_API double rc_world_removed_energy(const rc_world *w);

/* Let a callback report a failure with a message (returns s). */
RC_API rc_status rc_set_error(rc_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---------------------------------------------------------------- linear Lagrangian systems */

/* A body defined by constant matrices (Acary & Collins-Craft 2024, eq. 1):
 *     M dv + K q dt + C v dt = F(t) dt + H^T di,
 * e.g. a finite-element model. q are its own coordinates (displacements).
 * The schemes factorise Mhat = M + h theta C + h^2 theta^2 K once (LAPACK
 * Cholesky; banded when the bandwidth is small) and use eqs. (92)-(100).
 * World gravity does not act on it: put gravity in f or force_fn. */
typedef struct rc_linear_def {
    const char *name;
    int n;                  /* number of dofs, >= 1                          */
    const double *M;        /* n x n row-major, symmetric positive definite  */
    const double *K;        /* n x n, symmetric positive semi-definite, NULL = 0 */
    const double *C;        /* n x n, symmetric positive semi-definite, NULL = 0 */
    const double *q0, *v0;  /* n each, NULL = 0                              */
    const double *f;        /* constant force F, n, NULL = 0                  */
} rc_linear_def;

RC_API rc_linear_def rc_default_linear_def(void);
/* The matrices are copied. Bad input (sizes, asymmetry, M not positive
 * definite, NaN) is refused with a message naming the item. */
RC_API rc_status rc_linear_create(rc_world *w, const rc_linear_def *def, int *out_body);
/* The checks of rc_linear_create that do not depend on the world (n, M, K, C
 * finite, symmetric, positive (semi-)definite, finite q0, v0, f): as
 * rc_law_def_check, what NULL: "linear body 'NAME'". */
RC_API rc_status rc_linear_def_check(const rc_linear_def *def, const char *what);
/* Energies of a linear body: 1/2 v^T M v and 1/2 q^T K q (a nonlinear body, RC_BODY_NONLINEAR: its E_el(q)). */
RC_API rc_status rc_linear_energy(const rc_world *w, int body, double *E_kin, double *E_elastic);
/* Prescribed coordinates (Dirichlet conditions; src/model/linear_bc.c):
 * coords[i] (0-based) follows q = values[i] (rc_linear_prescribe) or the
 * values fn gives at t (rc_linear_prescribe_fn: fn(user, body, t, ncoords,
 * coords, values) fills values[0..ncoords)), from the next step on:
 * q_{k+1} = value(t_{k+1}) with the theta-method's velocity, eliminated from
 * Mhat (factored once per prescribed set). A coordinate prescribed again
 * takes its new value; rc_linear_release frees them all. Moreau--Jean,
 * Moreau--Jean--Fremond and Maury; gen-alpha refuses them. The supports'
 * work enters W_ext. */
typedef rc_status (*rc_prescribe_fn)(void *user, int body, double t, int ncoords, const int *coords, double *values);
RC_API rc_status rc_linear_prescribe(rc_world *w, int body, int ncoords, const int *coords, const double *values);
RC_API rc_status rc_linear_prescribe_fn(rc_world *w, int body, int ncoords, const int *coords, rc_prescribe_fn fn, void *user);
RC_API rc_status rc_linear_release(rc_world *w, int body);
/* The prescribed coordinates (coords: n entries, may be NULL). */
RC_API rc_status rc_linear_prescribed(const rc_world *w, int body, int *ncoords, int *coords);
/* r (n): the supports' forces on the prescribed coordinates over the last
 * step (impulse / h: the prescribed rows of M dv + h C v_{k+theta} + h K
 * q_{k+theta} - h F), or of the last rc_linear_solve_static; 0 elsewhere. */
RC_API rc_status rc_linear_reactions(const rc_world *w, int body, double *r);
/* The static state: K u = f(t) (the body's constant force and force
 * function at t) with the prescribed coordinates at their values at t and
 * fix[0..nfix) (0-based) at 0; sets q = u, v = 0. residual (optional):
 * |K u - f| on the free coordinates over max(|f|, |K u|) (all of them); reactions
 * (optional, n): K u - f on the constrained coordinates, 0 elsewhere. */
RC_API rc_status rc_linear_solve_static(rc_world *w, int body, double t, int nfix, const int *fix, double *residual,
                                        double *reactions);

/* A contact given by a gap function of one body's coordinates (any body
 * kind), against the static world:
 *   linear:  g_N(q) = g0 + sum_i normal[i] q[index[i]],  u_T = sum_i tangent[i] v[index[i]]
 *   or nonlinear through gap_fn: g_N(q) and its gradient dense over the
 *   body's nq coordinates (tangent row: tangent_fn, optional).
 * It is activated by the scheme's index set like any contact and obeys the
 * law 'law'. */
typedef rc_status (*rc_gap_fn)(void *user, double t, const double *q, double *g, double *grad_n, double *grad_t);

typedef struct rc_gap_def {
    int body;
    int nnz;                /* linear form: entries                           */
    const int *index;       /* body-local coordinate indices, 0-based         */
    const double *normal;   /* gradient of g_N at those indices               */
    const double *tangent;  /* optional tangential row (NULL: frictionless)   */
    double g0;
    rc_gap_fn gap_fn;       /* nonlinear form (then nnz = 0); grad_t may be ignored (set to 0) */
    void *gap_user;
    int law;                /* law id (default: the world's default law 0)    */
    const char *name;       /* history columns NAME.gN ... (optional)          */
} rc_gap_def;

RC_API rc_gap_def rc_default_gap_def(void);
RC_API rc_status rc_gap_create(rc_world *w, const rc_gap_def *def, int *out_id);

/* A node-to-surface contact (src/model/node_gap.c): the node of a linear
 * (finite-element) body at X + (q[dofs[0]], q[dofs[1]]) against
 *   rigid < 0:  the static segment a-b (radius >= 0); the normal side is the
 *               left of a -> b: inside the ends g_N = n.(p - s) - radius
 *               (signed), past them g_N = |p - end| - radius, n = (p - end)/|p - end|;
 *   rigid >= 0: the disks and polygons of that planar rigid body (the
 *               nearest shape; inside a polygon: its least-penetrated edge).
 * The rows are the gradient of g_N in the node's coordinates (and in the
 * rigid body's x, y, angle: -n, -(r x n) with r from the body to the
 * closest point), re-evaluated every step; t = (n_y, -n_x). A gap
 * contact (rc_gap_create's id), listed while g_N <= margin. */
typedef struct rc_node_contact_def {
    int body;               /* the linear body                                */
    int dofs[2];            /* its coordinates u_x, u_y of the node, 0-based  */
    double X[2];            /* the node's undeformed position                 */
    int rigid;              /* -1: the segment a-b; else a rigid2d body        */
    double a[2], b[2], radius;
    int friction;           /* 0: no tangential row                           */
    double margin;          /* default HUGE_VAL                               */
    int law;
    const char *name;
} rc_node_contact_def;

RC_API rc_node_contact_def rc_default_node_contact_def(void);
RC_API rc_status rc_node_contact_create(rc_world *w, const rc_node_contact_def *def, int *out_id);

/* ---------------------------------------------------------------- finite-element bodies */

/* A 2D linear elastic solid meshed with 3-node triangles (T3, one Gauss
 * point), assembled once in the undeformed configuration into a linear
 * body (rc_linear_create): coordinates = nodal displacements (u_x, u_y),
 * node k at 2 perm[k], 2 perm[k] + 1 (perm: rc_fem_numbering). src/model/fem_t3.c. */
#define RC_FEM_MAX_NODES 1000000  /* 2n dofs fit an int with room        */
#define RC_FEM_MAX_BAND 100000000 /* entries of the band of M (and of K):
                                     2n (2 kd + 1), kd the half-bandwidth */
enum { RC_FEM_PLANE_STRESS = 0, RC_FEM_PLANE_STRAIN = 1 };
enum { RC_FEM_MASS_CONSISTENT = 0, RC_FEM_MASS_LUMPED = 1 };
typedef struct rc_fem_def {
    const char *name;
    int nnodes;             /* >= 3                                           */
    const double *xy;       /* 2 per node: undeformed positions              */
    int ntri;               /* >= 1                                           */
    const int *tri;         /* 3 per triangle, 0-based, counter-clockwise     */
    double E, nu, rho;      /* E > 0, -1 < nu < 0.5, rho > 0 (mass per volume) */
    double thickness;       /* > 0 (default 1)                                */
    int plane;              /* RC_FEM_PLANE_STRESS (default) or _STRAIN        */
    int mass;               /* RC_FEM_MASS_CONSISTENT (default) or _LUMPED     */
    double alpha, beta;     /* Rayleigh damping C = alpha M + beta K (>= 0)    */
    double gravity[2];      /* acceleration: constant nodal forces rho t A/3 g */
    int renumber;           /* reverse Cuthill--McKee numbering (default 1)    */
} rc_fem_def;

RC_API rc_fem_def rc_default_fem_def(void);
/* Material ranges, node indices, inverted (clockwise) or degenerate
 * triangles (named with their area), nodes in no triangle. */
RC_API rc_status rc_fem_def_check(const rc_fem_def *def, const char *what);
/* perm[k]: the place of node k in the body (reverse Cuthill--McKee if
 * renumber, kept only when narrower than the given order; else k);
 * *bandwidth: the half-bandwidth of M and K in dofs (2 x nodes + 1). */
RC_API rc_status rc_fem_numbering(const rc_fem_def *def, int renumber, int *perm, int *bandwidth);
/* Dense 2n x 2n M, K (row-major) and gravity force f (2n) in the numbering
 * perm (NULL: identity); any of M, K, f may be NULL. */
RC_API rc_status rc_fem_assemble(const rc_fem_def *def, const int *perm, double *M, double *K, double *f);
/* Assemble and create the linear body; perm (nnodes, optional) and
 * bandwidth (optional) as rc_fem_numbering with def->renumber. */
RC_API rc_status rc_fem_create(rc_world *w, const rc_fem_def *def, int *out_body, int *perm, int *bandwidth);
/* The stress sigma = D B u_e of every triangle (one Gauss point, constant
 * over it) for the displacements q (2n, in the numbering perm; NULL:
 * identity): stress (3 per triangle: sigma_xx, sigma_yy, sigma_xy) and
 * von_mises (1 per triangle; plane strain with sigma_zz = nu (sigma_xx +
 * sigma_yy)), either may be NULL. src/model/fem_stress.c. */
RC_API rc_status rc_fem_stress(const rc_fem_def *def, const int *perm, const double *q, double *stress, double *von_mises);

/* ---------------------------------------------------------------- nonlinear beams */

/* A planar geometrically nonlinear Euler--Bernoulli beam (src/model/beam.c,
 * docs/theory/beam.md): the centreline a B-spline of 'degree' over
 * 'elements' equal elements, coordinates = its control points (x0, y0, x1,
 * y1, ...: n = 2 (elements + degree)), straight and unstressed from a to b
 * (r(0) = first control point, r(1) = last), strain energy of the stretch
 * (EA) and of the curvature (EI). A body of kind RC_BODY_NONLINEAR: a
 * constant consistent mass M, the gravity force as its constant force f
 * (rc_body_set_force), its internal force f_int(q) and exact tangent K_T(q)
 * (rc_beam_forces); a force function (rc_body_set_force_fn) adds an applied
 * force. The generalized-alpha schemes evaluate f_int at their iterate; the
 * Moreau--Jean schemes linearise it at q_k (K_T(q_k) in their iteration
 * matrix). Its coordinates, state, history columns and checkpoint are a
 * linear body's (rc_body_nq = n, rc_linear_energy: E_kin and E_el). */
typedef struct rc_beam_def {
    const char *name;
    double a[2], b[2];      /* the undeformed centreline's ends (default (0,0), (1,0)) */
    int elements;           /* 1..1000, default 4                               */
    int degree;             /* 2..5 (C1 centreline), default 2                  */
    int quadrature;         /* Gauss points per element 1..5, default 5         */
    double EA, EI, rho;     /* axial, bending stiffness, mass per length: > 0   */
    double gravity[2];      /* acceleration of the gravity force (default 0)    */
    double v0[2];           /* initial velocity of every control point          */
} rc_beam_def;

RC_API rc_beam_def rc_default_beam_def(void);
RC_API rc_status rc_beam_def_check(const rc_beam_def *def, const char *what);
RC_API rc_status rc_beam_create(rc_world *w, const rc_beam_def *def, int *out_body);
/* At q (n; NULL: the body's current q): f_int = dE_el/dq (n), K = its
 * Jacobian (n x n, row-major), E_el; each may be NULL. */
RC_API rc_status rc_beam_forces(const rc_world *w, int body, const double *q, double *f_int, double *K, double *E_el);
/* r(xi) and r'(xi) = dr/dxi (either may be NULL), xi in [0, 1], at q (NULL: current). */
RC_API rc_status rc_beam_point(const rc_world *w, int body, double xi, const double *q, double r[2], double dr[2]);
/* 1/2 v^T M v, E_el(q), -f_g . q (gravity) at the current state. */
RC_API rc_status rc_beam_energy(const rc_world *w, int body, double *E_kin, double *E_el, double *E_grav);
/* degree, elements, undeformed length (each may be NULL); an error if body is not a beam. */
RC_API rc_status rc_beam_info(const rc_world *w, int body, int *degree, int *elements, double *length);

/* ---------------------------------------------------------------- joints */

/* Bilateral constraints g(q, t) = 0 between body A (or the ground) and body
 * B (rigid2d). They enter the one-step problem as equality rows with
 * unbounded multipliers, enforced at velocity level on the scheme's unknown
 * velocity: H(q*) V + dg/dt(t*) = 0 (V = v_{k+1} for Moreau--Jean, v_{k+theta}
 * for Moreau--Jean--Fremond; q* predicted, rc_sim_joint_jacobian; Bruls,
 * Acary & Cardona 2014 eq. 50c). That is the default; the positions then
 * drift by O(h^2) per unit time. rc_sim_def.project_joints (an option, not
 * in the paper) projects them back onto g = 0 after every step. */
typedef enum rc_joint_type {
    RC_JOINT_REVOLUTE = 1,  /* point_a of A = point_b of B (2 rows)                    */
    RC_JOINT_PRISMATIC,     /* relative angle fixed, point_b on the line through
                               point_a along axis (A's frame) (2 rows)                 */
    RC_JOINT_WELD,          /* revolute + relative angle fixed (3 rows)                */
    RC_JOINT_DISTANCE,      /* |P_b - P_a| = length (1 row): a rod                     */
    RC_JOINT_LINE,          /* point_b on the line through point_a along axis (1 row)  */
    RC_JOINT_PRESCRIBED,    /* coordinate 'coord' of B (minus that of A when A is a
                               body) = f(t) from 'motion' (1 row): rheonomic           */
    RC_JOINT_CUSTOM         /* g(q_A, q_B, t) = 0 from 'constraint' (rows 1..3)        */
} rc_joint_type;

/* Prescribed motion: value f(t) and, if known, its derivative (set *df to
 * NAN to have it differentiated numerically). */
typedef rc_status (*rc_motion_fn)(void *user, double t, double *f, double *df);
/* Custom constraint: g (rows), and the gradients Ga, Gb (rows x 3, row-major)
 * with respect to q_A and q_B, or Ga = NULL on input meaning "not needed"; a
 * callback that cannot give gradients leaves them NAN and they are computed
 * by finite differences. qa is NULL when A is the ground. */
typedef rc_status (*rc_constraint_fn)(void *user, double t, const double *qa, const double *qb,
                                      double *g, double *Ga, double *Gb);

typedef struct rc_joint_def {
    rc_joint_type type;
    int body_a, body_b;         /* body_a may be RC_GROUND; body_b a rigid2d body   */
    double point_a[2];          /* in A's frame (world frame for the ground)        */
    double point_b[2];          /* in B's frame                                     */
    double axis[2];             /* prismatic/line: direction in A's frame           */
    double length;              /* distance: < 0 (default) = from the initial state */
    double angle;               /* weld/prismatic: theta_b - theta_a; NAN (default)
                                   = from the initial state                         */
    int coord;                  /* prescribed: 0 x, 1 y, 2 theta                     */
    rc_motion_fn motion;        /* prescribed                                       */
    void *motion_user;
    int rows;                   /* custom: 1..3                                     */
    rc_constraint_fn constraint;/* custom                                           */
    void *constraint_user;
    const char *name;           /* history columns NAME.f1.. (reaction forces)      */
    double break_force;         /* > 0: the joint breaks (is removed after the step)
                                   when its reaction force exceeds it; INFINITY (the
                                   default) or 0: never (docs/mechanisms.md, "Breaking") */
    double break_torque;        /* the same for its reaction torque                  */
} rc_joint_def;

/* A bilateral constraint between a beam's centreline point r(xi) and a point
 * of a rigid2d body (or the ground): r(xi) = x_b + R(theta_b) point (2
 * rows), and with angle = 1 the angle from the body's direction R(theta_b)
 * axis to the tangent r'(xi) (in (-pi, pi]) = beta(t) (motion, rheonomic) or
 * angle0 (NAN: its initial value) (1 row): the knee of Capobianco et al.
 * 2021, eq. (153). src/model/beam_joint.c. Integrated by gen-alpha
 * (variant "capobianco2021") only: rc_world_configure refuses the others. */
typedef struct rc_beam_joint_def {
    int beam;               /* the beam body (rc_beam_create)                   */
    double xi;              /* the beam's point, in [0, 1] (0: r(0))            */
    int body;               /* a rigid2d body or RC_GROUND                      */
    double point[2];        /* in the body's frame (the world's for the ground) */
    int angle;              /* 1: the angle row too                             */
    double axis[2];         /* the body's reference direction (default (1, 0))  */
    double angle0;          /* the angle without motion; NAN (default): initial */
    rc_motion_fn motion;    /* beta(t) and its derivative (NAN: differences)     */
    void *motion_user;
    const char *name;
} rc_beam_joint_def;
RC_API rc_beam_joint_def rc_default_beam_joint_def(void);
RC_API rc_status rc_beam_joint_create(rc_world *w, const rc_beam_joint_def *def, int *out_id);
/* its rows' g at the current state (rows: 2 or 3) and the reaction of the
 * last step (Lambda / h + lambda, as joints report), each may be NULL */
RC_API rc_status rc_beam_joint_get(const rc_world *w, int id, int *rows, double g[3], double force[3]);

RC_API rc_joint_def rc_default_joint_def(void);
RC_API rc_status rc_joint_create(rc_world *w, const rc_joint_def *def, int *out_id);
/* The checks of rc_joint_create that do not depend on the world (type,
 * finite points and axis, a nonzero axis, coord, rows, angle, length > 0 or
 * < 0, break_force and break_torque >= 0): as rc_law_def_check, what NULL:
 * "joint 'NAME'". */
RC_API rc_status rc_joint_def_check(const rc_joint_def *def, const char *what);
/* The checks of rc_joint_set_motor (speed finite, max_force >= 0) and of
 * rc_joint_set_limits (lower < upper, not both unbounded, e in [0, 1]), their
 * messages naming what (NULL: the function) and the keys KEY.speed,
 * KEY.MAXKEY, KEY.lower, ... (key NULL: speed, max_force, lower, ...). */
RC_API rc_status rc_joint_motor_check(double speed, double max_force, const char *what, const char *key, const char *maxkey);
RC_API rc_status rc_joint_limits_check(double lower, double upper, double e, const char *what, const char *key);
RC_API int rc_joint_count(const rc_world *w);
RC_API rc_status rc_joint_find(const rc_world *w, const char *name, int *out_id);

typedef struct rc_joint_info {
    int rows;
    double impulse[3];      /* multipliers of the last step (on B, in the rows' directions) */
    double force[3];        /* impulse / h: the reaction force                  */
    double g[3];            /* constraint value at the end of the step          */
    double gdot[3];         /* H(q_{k+1}) v_{k+1} + dg/dt at the end of the step */
    double work;            /* work of the joint's impulse in the last step     */
    /* motor and limits (revolute and prismatic joints; rc_joint_set_motor) */
    double coordinate;      /* the joint's coordinate now: revolute theta_b -
                               theta_a - angle (the angle at creation), prismatic
                               the translation along the axis                   */
    double rate;            /* its rate now (rad/s, m/s)                        */
    double motor_impulse;   /* the motor's impulse of the last step (on B)       */
    double motor_force;     /* motor_impulse / h: torque (N m) or force (N)      */
    double motor_work;      /* its work u_{k+theta} lambda in the last step      */
    double limit_impulse;   /* the limit's impulse of the last step (on B, signed) */
    int limit;              /* the limit in the index set: -1 lower, 1 upper, 0 none */
    double smooth[3];       /* gen-alpha: the smooth part lambda~ of force (force =
                               Lambda / h + lambda~, eq. 33); 0 under other schemes */
} rc_joint_info;
RC_API rc_status rc_joint_get(const rc_world *w, int id, rc_joint_info *info);
/* A joint broken after a step (rc_joint_def.break_force, break_torque): the
 * reaction of that step, |lambda|/h of its force rows and of its torque row. */
typedef struct rc_joint_break {
    int joint;              /* its id (removed: rc_joint_is_removed)            */
    int body_a, body_b;
    double t;               /* the end of the step whose reaction broke it       */
    double force, torque;   /* that step's reaction force (N) and torque (N m)   */
    const char *name;       /* its name (NULL: none)                             */
} rc_joint_break;
/* The joints broken after the last step (count 0: none); valid until the next step. */
RC_API rc_status rc_world_broken_joints(const rc_world *w, const rc_joint_break **list, int *count);
/* Every joint broken since the world was created: the first RC_BREAK_LOG of
 * them in *list, their total number in *total (run.json's "broken_joints"). */
#define RC_BREAK_LOG 100
RC_API rc_status rc_world_break_log(const rc_world *w, const rc_joint_break **list, int *count, long *total);
/* Motor of a revolute (torque) or prismatic (force) joint: a velocity row
 * H V = speed on the joint's coordinate with an impulse |lambda| <= h
 * max_force, solved with the joint's rows (docs/mechanisms.md, "Motors and
 * limits"); its work is rc_step_info.W_motor. enabled = 0 switches it off
 * (the history keeps the column W_motor). Between steps only. */
RC_API rc_status rc_joint_set_motor(rc_world *w, int id, int enabled, double speed, double max_force);
/* Limits lower < upper (-INFINITY, INFINITY: no bound on that side) of the
 * same coordinate, unilateral rows with Newton's restitution e in [0, 1]
 * taken into the index set like contacts; their work is part of W_J.
 * enabled = 0 removes them. Between steps only. */
RC_API rc_status rc_joint_set_limits(rc_world *w, int id, int enabled, double lower, double upper, double e);
RC_API const char *rc_joint_name(const rc_world *w, int id);

/* ---------------------------------------------------------------- force elements */

typedef enum rc_spring_type {
    RC_SPRING_LINEAR = 1,   /* between point_a of A and point_b of B: stiffness k
                               [N/m] about rest_length, damping c [N s/m] along
                               the line                                     */
    RC_SPRING_TORSIONAL     /* relative angle theta_b - theta_a about rest_angle:
                               k [N m/rad], c [N m s/rad]                   */
} rc_spring_type;

typedef struct rc_spring_def {
    rc_spring_type type;
    int body_a, body_b;     /* body_a may be RC_GROUND                      */
    double point_a[2], point_b[2];
    double k, c;            /* >= 0                                         */
    double rest_length;     /* < 0 (default): the initial length            */
    double rest_angle;      /* NAN (default): the initial relative angle    */
    const char *name;
} rc_spring_def;

RC_API rc_spring_def rc_default_spring_def(void);
/* Springs act as applied forces evaluated once per step with the state
 * q_k, v_k (explicit); their work is part of W_ext and their potential
 * energy is reported apart (rc_step_info.E_spring). */
RC_API rc_status rc_spring_create(rc_world *w, const rc_spring_def *def, int *out_id);
/* The checks of rc_spring_create that do not depend on the world (type,
 * k, c >= 0, finite points, rest length / angle): as rc_law_def_check, what
 * NULL: "spring 'NAME'". */
RC_API rc_status rc_spring_def_check(const rc_spring_def *def, const char *what);

/* ---------------------------------------------------------------- shapes */

typedef enum rc_shape_type {
    RC_SHAPE_DISK = 1,      /* centre offset (body frame; world frame on the
                               ground: a fixed obstacle), radius              */
    RC_SHAPE_POLYGON,       /* convex, counter-clockwise vertices (body frame;
                               world frame on the ground)                     */
    RC_SHAPE_POINT,         /* body: a point contactor at offset              */
    RC_SHAPE_HALFPLANE,     /* ground: boundary point, outward normal         */
    RC_SHAPE_SEGMENT,       /* ground: segment a-b, two-sided, radius >= 0    */
    RC_SHAPE_CIRCLE_INSIDE  /* ground: a concave circular wall, the bodies
                               inside: centre offset (world frame), radius > 0;
                               the outside of the circle is solid            */
} rc_shape_type;

#define RC_MAX_POLYGON_VERTICES 16

typedef struct rc_shape_def {
    rc_shape_type type;
    double radius;                                /* disk, circle_inside (> 0), segment (>= 0) */
    double offset[2];                             /* disk/point, body frame; circle_inside: centre */
    int nvert;                                    /* polygon: 3..16             */
    double vert[RC_MAX_POLYGON_VERTICES][2];      /* polygon, body frame        */
    double point[2], normal[2];                   /* half-plane                 */
    double a[2], b[2];                            /* segment                    */
    int group;                                    /* contact group, default 0   */
    const char *name;                             /* optional; copied           */
} rc_shape_def;

RC_API rc_shape_def rc_default_shape_def(void);
/* body = a body id, or RC_GROUND for static obstacles (half-plane, segment,
 * circle_inside). */
RC_API rc_status rc_shape_create(rc_world *w, int body, const rc_shape_def *def, int *out_id);
/* The checks of rc_shape_create that do not depend on the world (radius,
 * vertices: 3..16, counter-clockwise, strictly convex, winding once; the
 * half-plane's normal nonzero, the segment's a != b): as rc_law_def_check,
 * what NULL: the type's name ("disk", "polygon", ...). */
RC_API rc_status rc_shape_def_check(const rc_shape_def *def, const char *what);
RC_API int rc_shape_count(const rc_world *w);
RC_API rc_status rc_shape_get_def(const rc_world *w, int id, int *body, rc_shape_def *def);

/* ---------------------------------------------------------------- laws */

/* A contact law relates the impulse p of a contact to its local velocity. In
 * every solver it is seen only through two functions (docs/laws.md):
 *   a modified velocity  xi = xi(u, u_old)  and a projection  proj_C  onto its
 *   convex admissible set of impulses C, so that the law reads
 *       -xi(u) in N_C(p)   <=>   p = proj_C(p - rho xi(u))  for every rho > 0.
 * u is the scheme's unknown local velocity (u_{k+1} for Moreau--Jean,
 * u_{k+theta} for Moreau--Jean--Fremond, see rc_law_ctx) and u_old = H(q_k) v_k;
 * under Maury's scheme u = u_{k+1} + (g_N(q_k)/h, 0): the scheme's affine term,
 * for every law (the built-in laws then drop their restitution).
 * Built-in laws (Acary & Collins-Craft 2024):
 *   NEWTON_COULOMB  Newton impact + Coulomb friction in De Saxce form, eq. (62);
 *                   under Moreau--Jean--Fremond its discretisation is eq. (73).
 *   MOREAU          Moreau's impact law with tangential restitution e_t, eq. (58):
 *                   Coulomb on u+_T + e_t u-_T; e_t = 1 is Fremond's law (section 2.5).
 *   FREMOND         MOREAU with e_t = 1.
 *   CUSTOM          a law given by rc_law_ops (e.g. written in Lua).           */
typedef enum rc_law_type {
    RC_LAW_NEWTON_COULOMB = 1,
    RC_LAW_MOREAU = 2,
    RC_LAW_FREMOND = 3,
    RC_LAW_CUSTOM = 4
} rc_law_type;

typedef struct rc_law_def {
    rc_law_type type;
    double e;       /* normal restitution in [0, 1]                     */
    double mu;      /* friction coefficient >= 0                        */
    double e_t;     /* tangential restitution in [-1, 1] (MOREAU only)  */
    int generic;    /* 1: solve it with the generic local solver, through
                       xi and project only, instead of its closed form
                       (to test and measure the law interface)          */
    const char *name;
    double radius;  /* > 0: Coulomb--Contensou drilling friction on the
                       3D contacts of a dim = 3 world (Capobianco et al.
                       2021 eq. 157): the contact radius R; the friction
                       impulse (p_T1, p_T2, p_D) lies in the disc
                       |.| <= mu p_N, p_D = torque impulse / (3 pi R / 16).
                       0: plain Coulomb (2 tangents)                      */
} rc_law_def;

RC_API rc_law_def rc_default_law_def(void);
RC_API rc_status rc_law_create(rc_world *w, const rc_law_def *def, int *out_id);
/* The checks of rc_law_create without a world (a front end checking its
 * arguments): RC_OK, or RC_ERR_ARG with "WHAT: 'e' must be in [0, 1] (got
 * 1.5)"; what NULL: the law's name or "law". The rc_*_def_check functions
 * below are the only place the definitions' ranges are checked. */
RC_API rc_status rc_law_def_check(const rc_law_def *def, const char *what);
/* The law of the pairs that no rule names (initially law 0, made from the
 * world def's default_e / default_mu). */
RC_API rc_status rc_world_set_default_law(rc_world *w, int law);
RC_API rc_status rc_law_get_def(const rc_world *w, int id, rc_law_def *def);

/* What the scheme tells a law about the step. */
typedef enum rc_unknown {
    RC_UNKNOWN_END = 1,     /* u = u_{k+1}       (Moreau--Jean)           */
    RC_UNKNOWN_THETA = 2    /* u = u_{k+theta}   (Moreau--Jean--Fremond)  */
} rc_unknown;

typedef struct rc_law_ctx {
    double t;           /* t_k                                  */
    double h, theta;
    rc_unknown unknown;
    int contact;        /* persistent contact id                */
    double gN;          /* gap g_N(q_k) of the contact          */
    int dim;            /* d of this local problem: 1 (frictionless law),
                           2 (planar contact), 3 (spatial contact); the
                           vectors' components are N, T (, S)   */
    double normal[3];   /* contact frame n, t, s (world, 3-vectors: planar
                           contacts have z = 0 and s = 0)       */
    double tangent[3];
    double tangent2[3];
} rc_law_ctx;

#define RC_LAW_MAX_DIM 3
#define RC_LAW_MAX_STATE 8

/* A custom law. dim = 1 (frictionless: only the normal components are
 * used, the tangential impulse is 0), 2 (planar friction) or 3 (spatial
 * friction, for contacts with two tangents; a planar world refuses it in
 * its rules, rc_world_set_default_law and gaps). Vectors have dim meaningful
 * components (N, T, S) in arrays of at least the contact's dimension.
 * Callbacks return RC_OK or report with rc_set_error; xi and project must
 * fill finite numbers. */
typedef struct rc_law_ops {
    int dim;
    int nstate;                         /* per-contact state size, <= RC_LAW_MAX_STATE */
    double state0[RC_LAW_MAX_STATE];    /* state of a new contact                      */
    void *user;
    rc_status (*xi)(void *user, const rc_law_ctx *ctx, const double *state,
                    const double *u, const double *u_old, double *xi);
    rc_status (*project)(void *user, const rc_law_ctx *ctx, const double *state,
                         const double *x, double *p);
    /* optional: called for every contact of this law after an accepted step,
     * with the step's u (scheme's unknown), u_old and p; may change state */
    rc_status (*update)(void *user, const rc_law_ctx *ctx, double *state,
                        const double *u, const double *u_old, const double *p);
    /* optional: called when the law is destroyed with its world */
    void (*destroy)(void *user);
    /* optional: the generic local solver runs the xi/project calls of one
     * local solve (one residual, one prox step) as fn(arg) through run,
     * which must call fn(arg) once and return its status (or its own error):
     * a binding can set up once what every call needs (the Lua binding: one
     * protected call per local solve instead of one per call). NULL: fn(arg)
     * is called directly. Appended last: zero it (memset) when not used. */
    rc_status (*run)(void *user, rc_status (*fn)(void *arg), void *arg);
} rc_law_ops;

RC_API rc_status rc_law_create_custom(rc_world *w, const rc_law_ops *ops, const char *name, int *out_id);

/* Change a built-in law's coefficients (e.g. from a control callback). */
RC_API rc_status rc_law_set(rc_world *w, int id, const rc_law_def *def); /* e.g. from a control callback */

/* Which law applies to a pair of shapes: the last matching rule wins; body
 * rules take precedence over group rules; pairs without a rule use the
 * world's default law. law = RC_NO_CONTACT switches the pair off. */
#define RC_NO_CONTACT (-1)
typedef enum rc_rule_kind { RC_RULE_BODIES = 1, RC_RULE_GROUPS = 2 } rc_rule_kind;

typedef struct rc_contact_rule_def {
    rc_rule_kind kind;
    int a, b;           /* body ids (RC_GROUND allowed) or group numbers  */
    int law;            /* law id or RC_NO_CONTACT                          */
    const char *name;   /* optional (body rules only): every potential
                           contact of the pair is recorded in the history
                           as NAME (one) or NAME1..NAMEk (in feature order) */
} rc_contact_rule_def;

RC_API rc_contact_rule_def rc_default_contact_rule_def(void);
RC_API rc_status rc_contact_rule(rc_world *w, const rc_contact_rule_def *def);

/* ---------------------------------------------------------------- simulation */

typedef enum rc_scheme {
    RC_SCHEME_MOREAU_JEAN = 1,          /* eq. (61), Acary & Collins-Craft 2024 */
    RC_SCHEME_MOREAU_JEAN_FREMOND = 2,  /* eq. (72)-(73)                         */
    RC_SCHEME_MAURY = 3,                /* Maury 2006 section 3.2: u_{k+1} is the
                                           M-projection of the free velocity onto
                                           { g_N(q_k) + h u_N >= 0 } for every
                                           detected contact; q_{k+1} = q_k + h u_{k+1}
                                           (theta = 1); inelastic (e unused)     */
    RC_SCHEME_GEN_ALPHA = 4             /* Bruls, Acary & Cardona 2014, eqs. (29)-(30):
                                           the nonsmooth generalized-alpha scheme
                                           with constraints at position and velocity
                                           level (GGL), solved by a semismooth Newton
                                           method; rigid bodies, frictionless laws
                                           (rc_gen_alpha_def, docs/theory/gen-alpha.md) */
} rc_scheme;

typedef enum rc_activation {
    RC_ACTIVATE_GAP = 1,        /* index set eq. (64): g(q_k) <= 0, u_N,k <= 0   */
    RC_ACTIVATE_ANTICIPATE = 2  /* g(q_k) + gamma h u_N,k <= 0: Siconos's
                                   MoreauJeanOSI (no sign condition on u_N,k)  */
} rc_activation;

/* Where the joints' rows H(q*) are evaluated for the step (Bruls, Acary &
 * Cardona 2014 eq. 50c evaluates them at q_{n+1}; an explicit prediction q*
 * is used, as for the index set). Leading-order position drift per step,
 * with a = (dH/dt) v: Moreau--Jean and Maury h^2 a (3/2 - s - theta),
 * Moreau--Jean--Fremond h^2 a (1/2 - s), s = 0, 1/2, 1 for start, midpoint,
 * end. The rate dg/dt of rheonomic rows is taken at t* = t_k + (3/2 -
 * theta) h (Moreau--Jean, Maury) or t_k + h/2 (MJF), where its share of
 * that drift vanishes. */
typedef enum rc_joint_jacobian {
    RC_JOINT_JACOBIAN_AUTO = 0,      /* the default: END (the paper's q_{n+1})
                                        for Moreau--Jean with theta < 3/4,
                                        MIDPOINT otherwise (MJF, Maury, MJ
                                        with theta >= 3/4): where the drift
                                        cancels; START with project_joints
                                        (see rc_sim_joint_jacobian)          */
    RC_JOINT_JACOBIAN_START = 1,     /* q* = q_k                            */
    RC_JOINT_JACOBIAN_MIDPOINT = 2,  /* q* = q_k + (h/2) v_k                */
    RC_JOINT_JACOBIAN_END = 3        /* q* = q_k + h v_k, the prediction of
                                        q_{n+1} of eq. (50c)                */
} rc_joint_jacobian;

typedef enum rc_on_fail { RC_ON_FAIL_WARN = 1, RC_ON_FAIL_ERROR = 2 } rc_on_fail;

typedef enum rc_solver_method {
    RC_SOLVER_NSGS = 1,     /* nonsmooth Gauss--Seidel (projected Gauss--Seidel
                               on the impulses), exact local solves           */
    RC_SOLVER_UZAWA = 2,    /* Uzawa / projected Jacobi on the impulses, step
                               rho = relax / lambda_max(W) (Maury 2006 3.3)    */
    RC_SOLVER_NEWTON = 3,   /* semismooth Newton on the Alart--Curnier
                               reformulation of the whole problem (dense W
                               and dgesv, or matrix-free GMRES: linear), Armijo
                               line search on 1/2 |Phi|^2, NSGS fallback
                               (docs/theory/newton-solver.md)                 */
    RC_SOLVER_APGD = 4      /* accelerated projected gradient descent on the
                               cone complementarity problem (Mazhar, Heyn,
                               Negrut & Tasora 2015; Chrono's APGD): the
                               convex relaxation of Coulomb's law (a sliding
                               contact separates at mu |u_T|); built-in laws,
                               no joints (docs/granular.md)                   */
} rc_solver_method;

/* The normal part of the Newton solver's equations (RC_SOLVER_NEWTON). */
typedef enum rc_newton_formulation {
    RC_NEWTON_ALART_CURNIER = 1,    /* p_N - max(0, p_N - rho_N u_N) (default) */
    RC_NEWTON_FISCHER_BURMEISTER = 2 /* p_N + rho_N u_N - |(p_N, rho_N u_N)|    */
} rc_newton_formulation;

/* How the Newton solver solves its linear system J d = -Phi each iteration
 * (RC_SOLVER_NEWTON; docs/theory/newton-solver.md). */
typedef enum rc_newton_linear {
    RC_NEWTON_LINEAR_AUTO = 1,      /* dense up to RC_NEWTON_DENSE_ROWS rows,
                                       iterative above (default)            */
    RC_NEWTON_LINEAR_DENSE = 2,     /* W and J assembled, LU (dgesv); up to
                                       RC_NEWTON_MAX_ROWS rows               */
    RC_NEWTON_LINEAR_ITERATIVE = 3, /* matrix-free GMRES(30), block-Jacobi
                                       preconditioner, inexact Newton      */
    RC_NEWTON_LINEAR_SPARSE = 4     /* W by compressed columns, J by a sparse
                                       LU (KLU): planar rigid bodies
                                       without joints (otherwise the
                                       iterative path); refused in a dim = 3
                                       world                                */
} rc_newton_linear;

typedef enum rc_order {
    RC_ORDER_FIXED = 1,     /* contacts by key (deterministic)               */
    RC_ORDER_RANDOM = 2,    /* a new random order every sweep (seeded)       */
    RC_ORDER_POSITION = 3,  /* by the height of the contact point along the
                               gravity direction, bottom first, ties by key;
                               computed once per step (key order without
                               gravity)                                     */
    RC_ORDER_COLOUR = 4,    /* coloured Gauss--Seidel: the active contacts
                               greedily coloured (key order) so that no two of
                               a colour share a movable body; colours in turn,
                               a colour's contacts in key order, or in
                               parallel on solver.threads threads with the
                               same result bit for bit                      */
    RC_ORDER_TOP = 5,       /* as RC_ORDER_POSITION, top first (what rests on
                               a contact before it: the weight reaches the
                               supports within a sweep), ties by key        */
    RC_ORDER_SLABS = 6      /* planar contacts in 16 slabs across gravity
                               of about equal contact counts, nested by
                               halves: a half, the other, then the contacts
                               joining them (key order within each): halves
                               in parallel on solver.threads threads with
                               the same result bit for bit, two barriers a
                               sweep; 3D contacts by index                  */
} rc_order;

typedef enum rc_residual_norm {
    RC_NORM_L2 = 1,     /* ||r||_2 / (1 + ||b||_2) <= tol over all contacts and
                           joint rows (r: the natural map, b: the free local
                           velocities with the law shifts)                  */
    RC_NORM_MAX = 2,    /* max over contacts and joints of |r_alpha| <= tol:
                           every contact meets the tolerance (under Maury's
                           scheme a pair then overlaps by at most h tol at
                           the end of the step)                             */
    RC_NORM_SICONOS = 3 /* ||r||_2 / max(||b||_2, ||p||_2, ||u||_2) <= tol
                           over the 3D contacts (joint rows in ||r|| only):
                           Siconos 4.4's fc3d_compute_error, the stopping
                           test of the runs of Acary & Collins-Craft 2024;
                           3D contacts' NSGS only (docs/theory/spatial.md) */
} rc_residual_norm;

/* How NSGS decides convergence (RC_SOLVER_NSGS; docs/granular.md). */
typedef enum rc_residual_mode {
    RC_RESIDUAL_PASS = 1,   /* the natural-map residual by a pass over the
                               active contacts after every checked sweep    */
    RC_RESIDUAL_SWEEP = 2   /* each contact's term computed in its local
                               solve (u before its update), summed over the
                               sweep; when that estimate is <= tol, and at
                               the sweep cap, one true pass decides and is
                               reported. Steps swept by colour (order
                               "colour" with closed-form laws) and worlds
                               with a law without a closed form use passes */
} rc_residual_mode;

typedef struct rc_solver_def {
    rc_solver_method method;    /* default RC_SOLVER_NSGS                   */
    double relax;       /* NSGS: over-relaxation of each local impulse, in
                           (0, 2), default 1; Uzawa: rho lambda_max(W), in
                           (0, 2) ((0, 1] when accelerated), default 1      */
    rc_order order;     /* NSGS sweep order, default RC_ORDER_FIXED          */
    uint64_t seed;      /* for RC_ORDER_RANDOM (default 1)                   */
    int check_every;    /* NSGS: evaluate the residual every n sweeps; 1 (the
                           default): after each of the first 8 planar sweeps,
                           then spaced by the predicted convergence (1..8
                           sweeps apart; 3D contacts from the first)         */
    double tol;         /* natural-map residual tolerance (default 1e-10)  */
    int max_iter;       /* sweep cap (default 1000)                         */
    rc_on_fail on_fail; /* default RC_ON_FAIL_WARN                          */
    int warm_start;     /* default 1                                        */
    /* generic local solver for laws without a closed form (custom laws):
     * semismooth Newton on F(p) = p - proj_C(p - rho xi(W p + b)) with a
     * finite-difference Jacobian (reused between sweeps) and a line search,
     * falling back to the projected fixed point p - F(p); rho = 1/lambda_max(W),
     * halved when both stall */
    double local_tol;   /* |F(p)| <= local_tol (1 + |p|); default 0 = auto:
                           0.01 tol / sqrt(active contacts), so that local
                           solves do not limit NSGS; a miss by more than
                           1000x fails the step                              */
    int local_max_iter; /* default 200                                       */
    int threads;        /* NSGS threads (OpenMP), >= 1, default 1; > 1 needs
                           order RC_ORDER_COLOUR (or RC_ORDER_SLABS) and
                           method NSGS. Results do
                           not depend on it. A step with a contact whose law
                           has no closed form (custom or generic laws) is
                           swept on one thread (same order, same numbers);
                           without OpenMP every step is (a warning at
                           configure). Joints are solved on one thread at
                           the start of every sweep.                        */
    int adaptive_threads; /* 1 (default): time the sweeps (one in 16 on one
                           thread as the reference) and finish the step on
                           one thread when the threads are slower (a loaded
                           machine), trying them again after 16, 32, ...
                           1024 steps; 0: always share (benchmarks). No
                           effect on the numbers either way.               */
    rc_residual_norm norm; /* the stopping test, default RC_NORM_L2         */
    int accelerate;     /* Uzawa: Nesterov's momentum with adaptive restart
                           (O'Donoghue & Candes 2015), default 1; 0: the
                           plain iteration of Maury's Proposition 1. Needs
                           relax <= 1; ignored (plain) when there are joints */
    int anderson;       /* NSGS: Anderson acceleration of the sweeps' fixed
                           point with this depth m (1..10; 0, the default:
                           off), safeguarded (an extrapolated iterate is
                           kept only when it lowers the residual); one
                           thread, order fixed, position or colour        */
    rc_newton_formulation formulation; /* Newton: the normal part's function,
                           default RC_NEWTON_ALART_CURNIER                    */
    int fallback;       /* Newton: 1 (default) when Newton fails (singular
                           matrix, line search stalled, max_iter reached,
                           more than RC_NEWTON_MAX_ROWS rows, joint motors
                           or limits) NSGS finishes the solve from Newton's
                           last iterate (counted in rc_run_stats's
                           newton_fallbacks, the first one warned); 0: the
                           solve stops there (not converged: on_fail)      */
    rc_newton_linear linear; /* Newton: the linear solve, default
                           RC_NEWTON_LINEAR_AUTO                            */
    rc_residual_mode residual; /* NSGS: the convergence test's residual,
                           default RC_RESIDUAL_PASS (ignored by the other
                           solvers and by Anderson acceleration)            */
    double skip_quiet;  /* NSGS on the 3D contacts of a dim = 3 world: > 0
                           skips a contact in a sweep while the velocities of
                           its bodies changed, since its own last solve, by
                           less than skip_quiet tol (1 + |b|) / sqrt(n) (its
                           residual term is then that small); contacts whose
                           residual term at a pass exceeds their share of
                           tol are always solved. 0 (default): off.
                           docs/theory/spatial.md, "Skipping quiet contacts" */
} rc_solver_def;
/* The largest problem the Newton solver assembles (2 rows a contact, one a
 * joint row): its two dense n x n matrices take 2 n^2 doubles (64 MB). */
#define RC_NEWTON_MAX_ROWS 2000
/* RC_NEWTON_LINEAR_AUTO: the dense path up to this many rows, the iterative
 * one above (measured: docs/benchmarks.md, "Newton against NSGS"). */
#define RC_NEWTON_DENSE_ROWS 100

/* Thermodynamic admissibility check of the audit: a contact whose work in a
 * step (eq. 68) exceeds work_tol * (1 + |E_k|) is reported. */
typedef enum rc_work_check {
    RC_WORK_RECORD = 1,     /* only counted in the run statistics (default) */
    RC_WORK_WARN = 2,       /* + a warning with contact, time and amount    */
    RC_WORK_ERROR = 3       /* the step fails with that message             */
} rc_work_check;

/* The generalized-alpha coefficients of RC_SCHEME_GEN_ALPHA. From rho_inf
 * (eq. 31, Chung & Hulbert): alpha_m = (2 rho - 1)/(rho + 1), alpha_f =
 * rho/(rho + 1), gamma = 1/2 + alpha_f - alpha_m, beta = (gamma + 1/2)^2 / 4;
 * or (direct = 1) alpha_m, alpha_f, beta, gamma as given. */
/* The generalized-alpha scheme's contact formulation: Bruls, Acary & Cardona
 * 2014 (frictionless, docs/theory/gen-alpha.md) or Capobianco, Harsch,
 * Eugster & Leine 2021 (Coulomb friction, docs/theory/gen-alpha-friction.md). */
typedef enum rc_ga_variant { RC_GA_AUTO = 0, RC_GA_BRULS = 1, RC_GA_CAPOBIANCO = 2 } rc_ga_variant;
/* The Jacobian of the frictional variant's semismooth Newton
 * (docs/theory/gen-alpha-friction.md, "The Newton Jacobian"): AUTO (the
 * default): ANALYTIC when every law is built in and no contact is a gap
 * function, else DIFFERENCES (and DIFFERENCES on spatial bodies); ANALYTIC: exact for the built-in parts
 * (user-defined parts by differences); DIFFERENCES: forward differences of
 * the whole residual. */
typedef enum rc_ga_jacobian { RC_GA_JAC_AUTO = 0, RC_GA_JAC_ANALYTIC = 1, RC_GA_JAC_DIFFERENCES = 2 } rc_ga_jacobian;
typedef struct rc_gen_alpha_def {
    double rho_inf;             /* spectral radius at infinity, in [0, 1], default 0.8 */
    int direct;                 /* 1: the four coefficients below, 0: from rho_inf     */
    double alpha_m, alpha_f, beta, gamma;  /* alpha_m < 1, alpha_f < 1, beta > 0, gamma > 0 */
    int max_iter;               /* Newton iterations per step, default 50; the
                                   tolerance and on_fail are the solver's        */
    rc_ga_variant variant;      /* RC_GA_AUTO (default): Capobianco et al. 2021 when
                                   some law has friction (mu > 0), else Bruls et al.
                                   2014; or either one                            */
    double prox_r;              /* Capobianco's prox parameter r; 0 (default): each
                                   contact's effective mass                        */
    rc_ga_jacobian jacobian;    /* Capobianco's Newton Jacobian: RC_GA_JAC_AUTO
                                   (default), ANALYTIC or DIFFERENCES             */
    int sequential;             /* 0: monolithic semismooth Newton on (44) (default);
                                   1: the paper's Algorithm 1 (smooth motion, then
                                   position and velocity projections in turn)   */
} rc_gen_alpha_def;

typedef struct rc_sim_def {
    rc_scheme scheme;           /* default RC_SCHEME_MOREAU_JEAN */
    double theta;               /* in [0, 1], default 0.5        */
    double h;                   /* in [RC_MIN_H, RC_MAX_H], default 1e-3 */
    rc_activation activation;   /* default RC_ACTIVATE_ANTICIPATE */
    double gamma;               /* anticipation factor, default 0.5 */
    double persist_tol;         /* a contact that carried a normal impulse in
                                   the last step stays in the index set while
                                   its trigger (g_N, or g_N + gamma h u_N,k) is
                                   <= max(persist_tol, 2 h max(tol, r) (1 + |b|))
                                   (r, b: the last step's residual and free
                                   velocities): what a resting contact can open
                                   in a step at the solver's tolerance, and at
                                   least persist_tol (default 1e-9, >= 0:
                                   round-off)                                  */
    rc_solver_def solver;
    rc_work_check work_check;   /* default RC_WORK_RECORD                      */
    double work_tol;            /* default 1e-12                               */
    rc_joint_jacobian joint_jacobian; /* default RC_JOINT_JACOBIAN_AUTO  */
    int project_joints;         /* an option (default 0: the paper's scheme):
                                   project positions (and velocities) of joints
                                   back onto g = 0 after each step; not in the
                                   papers' schemes: it moves q and rescales v,
                                   what it changed in E is E_proj, what is not
                                   given back W_proj (rc_step_info)            */
    double project_tol;         /* default 1e-12 (constraint units)            */
    int project_max_iter;       /* default 50                                  */
    int project_contacts;       /* an option (default 0), Moreau--Jean and MJF
                                   only: after the step, project the positions
                                   of rigid bodies onto g_N >= 0 of their
                                   contacts (q += M^-1 H_N^T nu, 0 <= g_N _|_
                                   nu >= 0, projected Gauss--Seidel on the
                                   linearised gaps, warm-started) until the
                                   largest overlap is <= project_tol or
                                   project_max_iter sweeps; moves q only: its
                                   change of E_pot is in W_proj and E_proj
                                   (W_proj_contacts, rc_step_info)             */
    rc_gen_alpha_def gen_alpha; /* RC_SCHEME_GEN_ALPHA only                    */
} rc_sim_def;

RC_API rc_sim_def rc_default_sim_def(void);
/* The joint Jacobian a definition stands for (AUTO resolved by scheme). */
RC_API rc_joint_jacobian rc_sim_joint_jacobian(const rc_sim_def *def);
RC_API rc_status rc_world_configure(rc_world *w, const rc_sim_def *def);
/* The checks of rc_world_configure: RC_OK, or RC_ERR_ARG with "WHAT: 'h' must
 * be > 0 (got 0)" for the step's settings and "WHAT: solver: 'tol' must be
 * > 0 (got 0)" for the solver's (what NULL: "simulation: ..." and
 * "solver: ..."), as rc_law_def_check. */
RC_API rc_status rc_sim_def_check(const rc_sim_def *def, const char *what);
RC_API rc_status rc_world_get_sim_def(const rc_world *w, rc_sim_def *def);
/* The world's definition as created (gravity, margin, periodic cell...). */
RC_API rc_status rc_world_get_def(const rc_world *w, rc_world_def *def);
/* One step of size h. On any error the state is left as it was before,
 * except RC_ERR_IO: the step was done but its history row could not be
 * written (the output is then closed as "error" by rc_output_close). */
RC_API rc_status rc_world_step(rc_world *w);
/* The name of a scheme and of a solver, as in run.json and the Lua API
 * ("moreau-jean", "moreau-jean-fremond", "maury"; "nsgs", "uzawa", "newton"); NULL for
 * a value that is none. */
RC_API const char *rc_scheme_name(rc_scheme scheme);
RC_API const char *rc_solver_name(rc_solver_method method);
/* Indetermination explorer (Moreau 2004, section 3.1): solve the one-step
 * problem of the current state again from another initial impulse and/or
 * another sweep order, without advancing. Fills p_out[2i], p_out[2i+1] with
 * (p_N, p_T) of the i-th contact of that problem (capacity: cap contacts) and
 * *n_out with their number; rc_explore_contact tells their bodies and
 * frames (the contacts of the explored problem, in key order). */
typedef struct rc_explore_def {
    int random_guess;       /* initial p_N uniform in [0, guess_scale], p_T uniform in the cone */
    double guess_scale;
    const double *guess_scales; /* optional, per contact: the i-th contact of the problem (key
                                   order, as rc_explore_contact) draws p_N in [0, guess_scales[i]];
                                   contacts i >= nguess_scales use guess_scale. Not copied: valid
                                   during the call */
    int nguess_scales;
    int zero_guess;         /* initial p = 0 (else: the warm start)          */
    int random_order;       /* a new random sweep order every sweep          */
    int cyclic_order;       /* with random_order: one random order for the whole solve,
                               swept cyclically (Moreau 2004 section 3.1, procedure (b)) */
    uint64_t seed;
} rc_explore_def;
RC_API rc_explore_def rc_default_explore_def(void);
RC_API rc_status rc_world_explore(rc_world *w, const rc_explore_def *def, double *p_out, int cap, int *n_out);
/* The solver figures of the last rc_world_explore: sweeps, residual, and
 * whether the residual met solver.tol (on_fail = "warn" lets a non-converged
 * exploration return its impulses; check this before using them). */
RC_API rc_status rc_explore_result(const rc_world *w, int *iterations, double *residual, int *converged);

RC_API double rc_world_time(const rc_world *w);
RC_API long rc_world_step_count(const rc_world *w);

/* What the last step did. W_* are per step; *_total are sums since the
 * start. balance is the defect of the discrete energy balance eq. (65):
 * (E_{k+1} - E_k) - (W_ext + W_N + W_T + W_J + W_damp + W_theta + W_proj + W_motor),
 * W_theta = (1/2 - theta) (||v_{k+1} - v_k||_M^2 + ||q_{k+1} - q_k||_K^2)
 * (a nonlinear body: K_T(q_k), so that its balance closes to O(h^3) a step).
 * E includes 1/2 q^T K q of linear bodies and the strain energy E_el(q) of
 * nonlinear ones (beams) in E_pot; springs are applied
 * forces (their work is in W_ext, their potential in E_spring). */
typedef struct rc_step_info {
    double t;               /* time at the end of the step        */
    long step;              /* number of steps done               */
    int iterations;         /* NSGS sweeps                        */
    double residual;        /* final natural-map residual         */
    int converged;          /* residual <= tol                    */
    int worst_contact;      /* persistent id of the contact with the
                               largest local residual, -1 if none  */
    int ncontacts, nactive;
    double E, E_kin, E_pot;
    double W_ext, W_N, W_T, W_theta, balance;
    double W_ext_total, W_N_total, W_T_total, W_theta_total;
    double max_contact_work;   /* largest W_N + W_T of one contact this step */
    /* joints and force elements */
    double W_J;             /* work of the joint impulses, u_{k+theta}^T lambda */
    double W_damp;          /* damping work of linear bodies, eq. (67)         */
    double W_proj;          /* energy change of the joint projection            */
    double W_J_total, W_damp_total, W_proj_total;
    double E_proj;          /* energy the joint projection changed before the
                               velocity rescaling gave it back (scleronomic
                               mechanisms): what the projection would have
                               added without that rescaling                    */
    double E_proj_total;
    double persist_band;    /* the persistence rule's band in this step: a contact
                               that carried a normal impulse stays in the index
                               set while its trigger is <= this (the larger of
                               persist_tol and 2 h max(tol, r) (1 + |b|) of the
                               previous step, r its residual)                  */
    double E_spring;        /* potential energy of the springs (not in E)       */
    double E_elastic;       /* 1/2 q^T K q of linear bodies, E_el(q) of beams (included in E_pot) */
    double joint_pos_violation; /* largest |g| of a joint after the step        */
    double joint_vel_violation; /* largest |H v + dg/dt| after the step         */
    double W_motor;         /* work of the joint motors, u_{k+theta} lambda (in the balance) */
    double W_motor_total;
    double E_sleep;         /* kinetic energy removed by the islands put to
                               sleep at the end of this step (>= 0; in the
                               balance: E_{k+1} - E_k = ... - E_sleep)       */
    double E_sleep_total;
    int newton_fallback;    /* 1: a Newton method failed in this step and another
                               finished it (solver "newton": NSGS; gen-alpha with
                               friction: its fixed point); counted in
                               rc_run_stats.newton_fallbacks                 */
    /* project_contacts: this step's part of W_proj (E_pot after - before the
     * contacts' projection), its sweeps, and the largest overlap (linearised
     * at q_{k+1}) it found before projecting (0 without the option) */
    double W_proj_contacts;
    int proj_sweeps;
    double proj_overlap;
    /* the contacts' tangential work u_{T,k+theta} p_T of this step (eq. 68):
     * the largest positive and the smallest negative over the contacts (0 if
     * none; Acary & Collins-Craft 2024, Figs 9-10 (c), (d)) */
    double WT_max_pos, WT_min_neg;
} rc_step_info;

RC_API rc_status rc_world_step_info(const rc_world *w, rc_step_info *info);
/* Energies of the current state (no step needed). */
RC_API rc_status rc_world_energy(const rc_world *w, double *E_kin, double *E_pot);

/* Run-wide solver statistics. */
typedef struct rc_run_stats {
    long steps;
    int max_iterations;
    double max_residual;
    long failures;              /* steps whose solver did not converge */
    double max_abs_balance;     /* largest |balance| of a step          */
    double max_contact_work;    /* largest positive contact work        */
    double t_max_contact_work;
    long positive_work_events;  /* contact-steps with work > work_tol    */
    int contact_max_contact_work; /* id of that contact (-1 if none)     */
    double max_energy_increase; /* largest E_{k+1} - E_k of one step    */
    double t_max_energy_increase;
    long local_solves;          /* total local (per-contact) solves     */
    double solver_cpu_s;        /* CPU time spent in the one-step solver */
    size_t memory_bytes;        /* heap held by the world now (model, names,
                                   state, work arrays; not the callbacks' Lua
                                   data nor the history output's buffers) */
    size_t work_peak_bytes;     /* the step's work memory (part of memory_bytes):
                                   the most a step of this world held at once,
                                   measured when asked (not saved in checkpoints) */
    double max_joint_pos_violation, max_joint_vel_violation;
    long parallel_steps;        /* steps whose NSGS sweeps ran on more than
                                   one thread (solver.threads > 1)          */
    double max_overlap;         /* largest overlap -g_N of a detected contact
                                   over the run (0: none), in the configuration
                                   at t_max_overlap, at that time's step       */
    double t_max_overlap;
    long step_max_overlap;
    int contact_max_overlap;    /* id of that contact (-1 if none)           */
    long newton_fallbacks;      /* solves the Newton solver handed to NSGS   */
    /* project_contacts (rc_step_info's W_proj_contacts, proj_sweeps,
     * proj_overlap over the run): the largest overlap the projection found
     * (what it removed), its most sweeps, steps stopped at project_max_iter
     * above project_tol, the total, largest and smallest energy it booked in a
     * step, and the largest W_proj_contacts + W_N + W_T of a step (<= 0: no
     * step gave back more than its contacts dissipated) */
    double max_proj_overlap;
    int max_proj_sweeps;
    long proj_capped;
    double W_proj_contacts_total, max_W_proj_contacts, min_W_proj_contacts;
    double max_W_proj_net;
    /* the largest positive and smallest negative tangential work of a
     * contact in a step (rc_step_info's WT_max_pos, WT_min_neg) over the run */
    double max_WT_pos, min_WT_neg;
    /* wall-clock seconds of the step's stages over the run, in the order of
     * RC_STAGE_*: detection (with the contacts' matching), free velocity,
     * index set, warm start, solve (with its checks), update, audit, commit
     * (a scheme with its own one-step problem, gen-alpha, in solve); not
     * saved in checkpoints */
    double stage_wall_s[8];
    /* planar NSGS's sweeps alone, on one thread (any order, residual "pass",
     * no acceleration, on the hot records; "colour" and "slabs": their
     * sweeps that run on one thread), in steps of at least 256 active contacts: their wall-clock
     * seconds and their one-contact solves, without the residual passes, the
     * records' packing and the set-up (local_solves / solver_cpu_s is the
     * whole solver's rate); not saved in checkpoints */
    double sweep_wall_s;
    long sweep_solves;
} rc_run_stats;
enum { RC_STAGE_DETECT, RC_STAGE_FREE_VELOCITY, RC_STAGE_INDEX_SET, RC_STAGE_WARM_START, RC_STAGE_SOLVE,
       RC_STAGE_UPDATE, RC_STAGE_AUDIT, RC_STAGE_COMMIT, RC_STAGE_COUNT };
RC_API rc_status rc_world_run_stats(const rc_world *w, rc_run_stats *stats);

/* Progress of a run (docs/c-api.md#progress). rc_world_progress_begin(w, T)
 * starts counting a run that will go to time T; after every step the world
 * updates the figures and, every interval_s seconds of wall clock (0: after
 * every step), calls the progress function, if one is set; the last call of
 * a run comes from rc_world_progress_end (final = 1), which also warns once
 * with the count of unconverged steps when there were any. A solve that
 * stops short of the tolerance is warned about in detail for the first
 * RC_UNCONVERGED_DETAILS steps of a run, then only counted (capped). */
#define RC_UNCONVERGED_DETAILS 5
typedef struct rc_progress {
    double t;               /* time now                                        */
    double t_end;           /* the run's end time T                            */
    long step;              /* steps of the world since its start              */
    long steps;             /* steps of this run so far                        */
    long steps_total;       /* steps the run makes to reach T                  */
    long capped;            /* steps of this run whose solver stopped at its
                               sweep cap above the tolerance (not converged)    */
    double residual;        /* the last step's residual                        */
    double max_residual;    /* largest residual of a step of this run          */
    double t_max_residual;  /* the time at the end of that step (NaN: none)    */
    double wall_s;          /* wall-clock seconds since rc_world_progress_begin */
    double steps_per_s;     /* steps / wall_s (0 before the first step)        */
    double eta_s;           /* wall seconds left at that rate (-1: unknown)    */
    int final;              /* 1 on the run's last report                      */
} rc_progress;
typedef void (*rc_progress_fn)(void *user, const rc_progress *p);
/* fn may be NULL (figures only); interval_s >= 0 (default 0.25). */
RC_API rc_status rc_world_set_progress_fn(rc_world *w, rc_progress_fn fn, void *user, double interval_s);
RC_API rc_status rc_world_progress_begin(rc_world *w, double T);
RC_API rc_status rc_world_progress_end(rc_world *w);
/* The current figures; *due (optional) is set to 1 when a report fell due
 * since the last call that asked (and cleared), for hosts that poll. */
RC_API rc_status rc_world_progress_get(rc_world *w, rc_progress *p, int *due);

/* ---------------------------------------------------------------- contacts */

typedef struct rc_contact_info {
    int id;                 /* persistent while the contact persists         */
    int body_a, body_b;     /* RC_GROUND for the static side                 */
    int shape_a, shape_b;
    int feature;            /* which point of the shape pair: 0 for a disk or
                               point; a polygon's vertex i against a half-plane
                               or segment (vertex i, or nvert + end of the
                               segment); two polygons: the contact's vertex,
                               A's i as i, B's j as nvert_A + j             */
    int active;             /* in the index set of the last step             */
    double point[2], normal[2], tangent[2];
    double gN;              /* gap at the start of the last step             */
    double uN, uT;          /* relative velocity at the end of the last step */
    double pN, pT;          /* impulse of the last step                      */
    double WN, WT;          /* work of the impulse in the last step (eq. 68) */
    int law;                /* id of the contact's law (rc_law_get_def)      */
    double nu;              /* gen-alpha: the position-level multiplier nu of
                               the last step (eq. 29c-e; 0 for other schemes) */
} rc_contact_info;

/* Contacts found at the start of the last step (active or within margin).
 * After a step that failed once its detection had run (the solver's or a
 * law's error, not a refused argument), rc_contact_get and
 * rc_named_contact_get return RC_ERR_STATE until a step completes: the state
 * keeps its contacts' ids and impulses (the next step's warm start), not
 * their points, normals, gaps and velocities. */
RC_API int rc_contact_count(const rc_world *w);
RC_API rc_status rc_contact_get(const rc_world *w, int index, rc_contact_info *info);

/* The i-th contact of the problem solved by the last rc_world_explore; pN,
 * pT, uN, uT are those of the explored solution (u = H V: v_{k+1} for
 * Moreau--Jean, v_{k+theta} for MJF). */
RC_API rc_status rc_explore_contact(const rc_world *w, int index, rc_contact_info *info);

/* Named contacts (from named rules): names in column order. */
RC_API int rc_named_contact_count(const rc_world *w);
RC_API const char *rc_named_contact_name(const rc_world *w, int index);
/* info->id = -1 when the contact is not currently detected (values then NaN). */
RC_API rc_status rc_named_contact_get(const rc_world *w, int index, rc_contact_info *info);

/* ---------------------------------------------------------------- queries */

/* Spatial queries between steps, at the world's current q (src/collide/query.c,
 * docs/queries-and-events.md): exact for every shape kind, one pass over the
 * shapes (a bounding-circle test first), nothing allocated. A filter (NULL:
 * every shape) keeps the shapes of one contact group (rc_shape_def.group). */
typedef struct rc_query_filter {
    int use_group;          /* 1: only shapes whose group is `group`; 0: all */
    int group;
} rc_query_filter;
RC_API rc_query_filter rc_default_query_filter(void);   /* every shape */

/* The shapes overlapping the box [lo, hi] (boundaries touching count), or
 * containing point p: the first min(cap, *count) ids, in increasing order, go
 * to shapes; *count is the number of all of them (call again with a larger
 * array when it exceeds cap). */
RC_API rc_status rc_query_box(const rc_world *w, const double lo[2], const double hi[2],
                              const rc_query_filter *filter, int *shapes, int cap, int *count);
RC_API rc_status rc_query_point(const rc_world *w, const double p[2], const rc_query_filter *filter,
                                int *shapes, int cap, int *count);

/* The first shape hit by the segment from -> to (a ray from `from` along a
 * direction d up to a distance L: to = from + L d / |d|), or by a disk of
 * radius r swept along it: *found = 1 and hit is filled, or *found = 0. A
 * shape that contains (or touches) the start is not hit. Ties: the lower
 * shape id. */
typedef struct rc_query_hit {
    int shape, body;        /* body: RC_GROUND for obstacles                 */
    double point[2];        /* the point hit on the shape's boundary         */
    double normal[2];       /* the shape's outward unit normal there (facing
                               the ray: normal . (to - from) <= 0)           */
    double fraction;        /* in [0, 1]: the hit is at from + fraction (to -
                               from) (the swept disk's centre then)          */
} rc_query_hit;
RC_API rc_status rc_ray_cast(const rc_world *w, const double from[2], const double to[2],
                             const rc_query_filter *filter, rc_query_hit *hit, int *found);
RC_API rc_status rc_disk_cast(const rc_world *w, const double from[2], const double to[2], double radius,
                              const rc_query_filter *filter, rc_query_hit *hit, int *found);

/* ---------------------------------------------------------------- contact events */

/* Contact events of the last step (src/integrate/events.c), computed after it
 * from the contacts it left and those of the step before, as lists read after
 * the step (never callbacks from inside the solver), sorted by contact key:
 *   BEGIN   a contact active in this step and not in the last one
 *           (rc_contact_info.active: in the index set);
 *   END     a contact active in the last step and not in this one (no longer
 *           detected: its last point and normal, impulse 0);
 *   IMPACT  an active contact whose normal impulse p_N exceeds the threshold.
 * rc_world_track_events(w, 1, threshold) starts tracking (the contacts active
 * then count as touching already; threshold = INFINITY: no impacts) or
 * changes the threshold; (w, 0, ...) stops it. Lists are valid until the next
 * step or rc_world_track_events; tracking allocates nothing once the number
 * of contacts has settled. */
typedef enum rc_event_kind { RC_EVENT_BEGIN = 1, RC_EVENT_END = 2, RC_EVENT_IMPACT = 3 } rc_event_kind;
RC_API rc_status rc_world_track_events(rc_world *w, int on, double impact_threshold);
RC_API rc_status rc_world_events(const rc_world *w, rc_event_kind kind, const rc_contact_info **list, int *count);

/* ---------------------------------------------------------------- sleeping */

/* Sleeping (src/model/sleep.c, src/integrate/sleep.c; docs/sleeping.md).
 * Islands are the rigid bodies connected by this step's active contacts
 * (union-find, bodies in id order). A body's timer grows by h while
 * |v| < linear and |omega| < angular after a step, and goes back to 0
 * otherwise; an island whose bodies all have timers >= time falls asleep at
 * the end of that step: its velocities are set to exactly 0 (their kinetic
 * energy, below 1/2 (m linear^2 + J angular^2) per body, is booked as
 * rc_step_info.E_sleep), its bodies get no free velocity, no update and no
 * solve, its contacts stay in the state as they were (impulses kept for the
 * warm start), pairs of two sleeping bodies (or a sleeping body and the
 * ground) are not detected. It wakes (all of it) when a contact between one
 * of its bodies and an awake body enters the index set, and on an edit of
 * one of its bodies: rc_body_set_state, rc_body_set_force, rc_body_set_force_fn,
 * a shape created or removed, a joint or spring created, a neighbour removed,
 * rc_body_wake. Bodies that never sleep: linear bodies, bodies with a force
 * function, a joint or a spring, bodies touching a contact of a law without a
 * closed form (custom laws). Off by default: it changes trajectories (a body
 * moving slower than the thresholds is stopped). */
typedef struct rc_sleep_def {
    int enabled;            /* default 0                                     */
    double linear;          /* m/s, > 0, default 0.01                        */
    double angular;         /* rad/s, > 0, default 0.05                      */
    double time;            /* s, >= 0, default 0.5                          */
} rc_sleep_def;
RC_API rc_sleep_def rc_default_sleep_def(void);
/* Sets the thresholds; disabling wakes every body. Between steps only. */
RC_API rc_status rc_world_set_sleep(rc_world *w, const rc_sleep_def *def);
RC_API rc_status rc_world_get_sleep(const rc_world *w, rc_sleep_def *def);
/* Wakes body id's island (nothing if it is awake). */
RC_API rc_status rc_body_wake(rc_world *w, int id);
/* 1 if body id sleeps, 0 if it is awake or not a live body. */
RC_API int rc_body_is_sleeping(const rc_world *w, int id);
/* Counters of the last step and of the run (no timing). */
typedef struct rc_sleep_info {
    int enabled;
    int sleeping;           /* bodies asleep now                             */
    int awake;              /* live rigid bodies awake now                   */
    int fell_asleep;        /* bodies put to sleep at the end of the last step */
    int woke;               /* bodies woken during the last step (contacts)   */
    int pairs;              /* candidate shape pairs the narrow phase tested
                               in the last step (none between sleeping bodies) */
    int kept_contacts;      /* contacts of sleeping pairs kept from the state */
    long steps;             /* steps since sleeping was enabled               */
    double awake_sum;       /* sum over those steps of the awake bodies at
                               the step's end (mean: awake_sum / steps)      */
} rc_sleep_info;
RC_API rc_status rc_world_sleep_info(const rc_world *w, rc_sleep_info *info);

/* ---------------------------------------------------------------- user data */

/* A host's pointer on a body, shape or joint (src/model/user_data.c), with an
 * optional destroy function, called with the pointer when it is replaced by
 * another (set again) or when the world is destroyed (first thing, in id
 * order: bodies, shapes, joints, then force functions). NULL: none. */
typedef void (*rc_destroy_fn)(void *data);
RC_API rc_status rc_body_set_user_data(rc_world *w, int id, void *data, rc_destroy_fn destroy);
RC_API rc_status rc_shape_set_user_data(rc_world *w, int id, void *data, rc_destroy_fn destroy);
RC_API rc_status rc_joint_set_user_data(rc_world *w, int id, void *data, rc_destroy_fn destroy);
RC_API void *rc_body_user_data(const rc_world *w, int id);    /* NULL: none or a bad id */
RC_API void *rc_shape_user_data(const rc_world *w, int id);
RC_API void *rc_joint_user_data(const rc_world *w, int id);
/* rc_body_set_force_fn with a destroy function for its user pointer, called
 * when the force function is set again through this call or when the world
 * is destroyed. */
RC_API rc_status rc_body_set_force_fn_ex(rc_world *w, int id, rc_force_fn fn, void *user, rc_destroy_fn destroy);

/* ---------------------------------------------------------------- checkpoint and restart */

/* A checkpoint (docs/checkpoint.md) is the state of a run -- t, the step
 * count, q, v, the contacts of the last step with their impulses and law
 * states, the joints' multipliers, the step info's totals, the run
 * statistics, and the forces and built-in laws' coefficients that callbacks
 * may set between steps -- with a fingerprint of the model, zlib-compressed
 * behind a versioned header, with a CRC-32. rc_sim_save writes it to
 * path.tmp, then renames that to path (a crash never leaves a half-written
 * checkpoint at path). rc_sim_restore puts it into a world built and
 * configured as the one that wrote it (by the same script): steps then go on
 * bit for bit as they would have in the first world. A refused file
 * (RC_ERR_ARG: not a checkpoint, another format version, truncated,
 * corrupted, a checkpoint of another model -- the message says which) or a
 * failed read (RC_ERR_IO) leaves the world unchanged. RC_ERR_STATE: the world
 * is not configured, or (restore) an output is open. */
#define RC_CHECKPOINT_FORMAT 6
RC_API rc_status rc_sim_save(const rc_world *w, const char *path);
RC_API rc_status rc_sim_restore(rc_world *w, const char *path);

/* ---------------------------------------------------------------- output */

/* The history's file (docs/output.md, "The binary history"):
 * RC_HISTORY_CSV     DIR/history.csv.gz, text rows of %.15g numbers, gzip level 1
 * RC_HISTORY_BINARY  DIR/history.bin, a header naming the columns, then rows of
 *                    float64 little-endian, uncompressed (exact, and far cheaper) */
typedef enum rc_history_format { RC_HISTORY_CSV = 0, RC_HISTORY_BINARY = 1 } rc_history_format;

typedef struct rc_output_def {
    const char *dir;            /* created if missing                          */
    int every;                  /* write every n-th step (default 1)           */
    const char *scenario;       /* script path, recorded in run.json           */
    const char *params_json;    /* a JSON object text recorded as "params"     */
    rc_history_format format;   /* default RC_HISTORY_CSV                      */
} rc_output_def;

RC_API rc_output_def rc_default_output_def(void);
/* Opens DIR/history.csv.gz or DIR/history.bin (def->format; header + the
 * current state as first row) and
 * writes DIR/run.json with status "running". Rows are then appended after
 * every n-th step by rc_world_step. The folder is locked while the output is
 * open (DIR/run.lock, flock(2), holding the writer's pid): a second writer,
 * in another process or in this one, gets RC_ERR_STATE with a message naming
 * the holder's pid; a lock left by a writer that died is taken over (with a
 * warning). Names must be UTF-8 and give distinct columns (RC_ERR_ARG). A
 * write error at open writes run.json with status "error". */
RC_API rc_status rc_output_open(rc_world *w, const rc_output_def *def);
/* Finishes both files and releases the lock. status: "complete", "stopped"
 * (by the user), "error" (message: why), "interrupted" (run.json "signal":
 * rc_interrupt_signal()'s name), "exited" (the program exits), "aborted" (the
 * run was cut short). Anything but "complete" marks the run incomplete in
 * both files; "complete" becomes "aborted" when the time is short of the end
 * time given to rc_output_set_end_time by more than h/2, and "error" when a
 * write failed. After a write error (a full disk) the history is ended as a
 * valid gzip stream after the last rows flushed to it and the function
 * returns RC_ERR_IO. */
RC_API rc_status rc_output_close(rc_world *w, const char *status, const char *message);
/* Close with status "exited" and run.json "exit_code" = code. */
RC_API rc_status rc_output_close_exited(rc_world *w, int code, const char *message);
/* The end time T of the run that is writing the output (run.json "T"; see
 * rc_output_close). RC_ERR_STATE if no output is open. */
RC_API rc_status rc_output_set_end_time(rc_world *w, double T);
RC_API int rc_output_is_open(const rc_world *w);
/* Writes csv_gz_path (a history.csv.gz, as format RC_HISTORY_CSV would have
 * written it: the same bytes once inflated) from the binary history bin_path,
 * atomically (csv_gz_path.tmp, then rename). A binary history that ends
 * early (a killed run, a truncated file: its whole rows are converted) or
 * that its run closed incomplete gets the line "# incomplete: STATUS:
 * MESSAGE". *rows (may be NULL): the rows converted. RC_ERR_ARG: not a
 * binary history (the message says why); RC_ERR_IO: a read or write failed. */
RC_API rc_status rc_history_convert(const char *bin_path, const char *csv_gz_path, long *rows);

/* ---------------------------------------------------------------- VTK output */

/* A series of VTK XML PolyData files for ParaView (docs/output-vtk.md).
 * rc_vtk_open creates DIR and four collection files: DIR/series.pvd (every
 * frame's three files as parts 0, 1, 2) and DIR/grains.pvd, DIR/contacts.pvd,
 * DIR/shapes.pvd (one part each), replacing earlier ones. Each rc_vtk_frame
 * then writes the world's current state as frame NNNNNN (0, 1, ...):
 *   DIR/grains_NNNNNN.vtp    a point per body (id order) at its centre;
 *                            point data id, kind, radius (bounding radius of
 *                            the body's shapes), velocity, angle, omega
 *   DIR/contacts_NNNNNN.vtp  a line per active contact from A's centre (the
 *                            contact point for the ground) to B's centre; cell
 *                            data id, body_a, body_b, normal_force = pN/h,
 *                            tangential_force = pT/h, force (on B), normal,
 *                            contact_point, gap, pN, pT
 *   DIR/shapes_NNNNNN.vtp    outlines in the world frame (polygon cells for
 *                            polygons and disks, lines for a disk's radius,
 *                            segments and half-planes, vertices for points);
 *                            cell data body, shape, type
 * (and DIR/fem_NNNNNN.vtu with the bodies given to rc_vtk_add_fem, below)
 * and lists them, with the time, in the .pvd files, which are valid XML after
 * every call. Binary data: appended raw, zlib-compressed (vtkZLibDataCompressor),
 * header_type UInt64, host byte order. Once its buffers have grown to the
 * world's size, a frame allocates nothing. Errors name the file. */
typedef struct rc_vtk_writer rc_vtk_writer;

typedef struct rc_vtk_def {
    const char *dir;        /* created if missing                              */
    int level;              /* zlib level 0..9 (default 1: fast)               */
    int disk_segments;      /* sides of a disk's outline, 8..1024 (default 32) */
    int disk_outlines;      /* 1: disks also as outlines (a polygon and a radius line
                               each) in shapes_*.vtp; 0 (default): disks are the points of
                               grains_*.vtp with their radius only (ParaView glyphs) */
} rc_vtk_def;

RC_API rc_vtk_def rc_default_vtk_def(void);
RC_API rc_status rc_vtk_open(const rc_vtk_def *def, rc_vtk_writer **out);
RC_API rc_status rc_vtk_frame(rc_vtk_writer *vw, const rc_world *w);
RC_API long rc_vtk_frame_count(const rc_vtk_writer *vw);  /* frames written so far */
/* Adds finite-element body `body` (made by rc_fem_create from def, with the
 * numbering perm it returned; NULL: the identity) to the series: from the
 * next frame on, every frame also writes DIR/fem_NNNNNN.vtu, an XML
 * UnstructuredGrid of all the added bodies (the nodes at their undeformed
 * positions, VTK_TRIANGLE cells; point data displacement, velocity, body,
 * node; cell data stress = (sigma_xx, sigma_yy, sigma_xy), von_mises, body,
 * element), listed in DIR/fem.pvd (created by the first call) and as part 3
 * of DIR/series.pvd. The mesh is copied. src/io/vtk_fem.c. */
RC_API rc_status rc_vtk_add_fem(rc_vtk_writer *vw, const rc_world *w, int body, const rc_fem_def *def, const int *perm);
/* How the series ended, in a comment before the .pvd files' closing tags:
 * "<!-- ricochet: incomplete: STATUS: MESSAGE -->" (status "complete": no
 * comment; "running": the comment of a series being written, "<!-- ricochet:
 * running -->", which every new frame also puts back). */
RC_API rc_status rc_vtk_mark(rc_vtk_writer *vw, const char *status, const char *message);
/* Closes the .pvd files and frees the writer (NULL: nothing to do). A series
 * still marked "running" is closed as complete; an rc_vtk_mark stays. */
RC_API rc_status rc_vtk_close(rc_vtk_writer *vw);

#ifdef __cplusplus
}
#endif
#endif /* RICOCHET_H */
