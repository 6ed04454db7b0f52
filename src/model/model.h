/*
 * model/model.h -- the data model (not public): bodies, shapes, laws, rules,
 * named slots, contacts, joints, springs, linear bodies and the world that
 * holds them. Includes base only (scripts/check-layers).
 *
 * Model vs state: bodies/shapes/laws/rules are what the script declared;
 * q, v, t, the contact list (with the impulses kept for warm start) are the
 * state that evolves.
 *
 * The world owns parts that upper layers attach (the solver's sweep orders,
 * the history output): it frees and measures them through their rc_part
 * table, never by calling up (rcm_world_attach_part).
 */
#ifndef RC_MODEL_H
#define RC_MODEL_H

#include "base/base.h"

/* ---------------------------------------------------------------- model */

/* A body: 48 bytes. Its mass and inertia are in w->mass_diag (m, m, J at iv:
 * rcm_body_mass, rcm_body_inertia); what few bodies have (a name, a constant
 * force, a force function) is in w->body_ext. */
typedef struct rc_body {
    rc_body_kind kind;
    int linear;             /* RC_BODY_LINEAR, NONLINEAR: index into w->linears; RC_BODY_RIGID3D: into w->rigid3d */
    int iq, iv;             /* offsets into world q[] and v[]        */
    int nq, nv;
    int ext;                /* index into w->body_ext, -1: none (no name, zero force, no function) */
    double inv_mass, inv_inertia;   /* rigid2d                       */
} rc_body;

/* The rarer parts of a body (w->body_ext, in creation order). */
typedef struct rc_body_ext {
    int body;
    char *name;
    double force[3];        /* rigid2d: constant applied force (linear bodies: w->linears[].f) */
    rc_force_fn force_fn;
    void *force_user;
} rc_body_ext;

/* A linear Lagrangian body (linear.c; storage linear_store.c, prescribed coordinates linear_bc.c) */
typedef struct rcm_linear_memo rcm_linear_memo; typedef struct rcm_linear_rows rcm_linear_rows;
typedef struct rcm_linear_bc rcm_linear_bc;
typedef struct rc_linear {
    int body, n;
    double *M, *K, *C;      /* n x n row-major, or a row band n x (2kd+1) if banded (linear_store.c); K, C may be NULL */
    double *f;              /* constant force                            */
    int kd, banded;         /* bandwidth; banded Cholesky if kd < n/4    */
    double *fac;            /* factor of Mhat for (fac_h, fac_theta)     */
    double fac_h, fac_theta;
    double *work;           /* 3 n                                       */
    rcm_linear_memo *memo;  /* the last products by M, K, C              */
    rcm_linear_bc *bc;      /* prescribed coordinates (NULL: none yet)   */
    rcm_linear_rows *rows;  /* banded: the nonzeros by rows, for products */
    int fac_bc; struct rcm_nonlinear *nl;   /* the prescribed set's version in fac; RC_BODY_NONLINEAR: its internal force (nonlinear.h) */
} rc_linear;

/* A contact given by a gap function of one body's coordinates. */
typedef struct rc_gap {
    int body, law, nnz;
    int *idx;               /* body-local coordinates                    */
    double *nrm, *tng;      /* rows of H at those coordinates            */
    double g0;
    rc_gap_fn fn; struct rcm_node_gap *node;   /* node: node-to-surface (node_gap.c), else NULL */
    void *user;
    double *grad;           /* 2 nq scratch for fn                       */
    double *MH;             /* kappa Mhat^-1 H^T, 2 x nv by rows          */
    double kappa;
    int mh_valid;
    char *name;
} rc_gap;

/* A shape: 104 bytes, what every shape has first (the narrowphase of two disks
 * reads the first 56), then its type's own fields, which share storage. Disks
 * and points keep no world-frame box (the centre and radius give it); a
 * polygon keeps its own in its block (rcm_shape_poly_aabb). */
typedef struct rc_shape {
    rc_shape_type type;
    int body;               /* RC_GROUND for obstacles               */
    int group;
    int nvert;              /* polygons; 0 for other shapes          */
    double radius;
    double offset[2];
    double wc[2];           /* world frame at q_k (rcc_update_shapes): disk/point centre */
    double bound;           /* body-frame bounding radius             */
    char *name;
    union {
        struct { double point[2], normal[2]; };   /* half-plane (normal unit) */
        struct { double a[2], b[2]; };            /* segment                  */
        struct {                                  /* polygon: one block of 3 nvert + 2 points,
                                                     so that a disk costs two cache lines */
            double (*vert)[2];                    /* nvert body-frame vertices           */
            double (*wvert)[2];                   /* world frame: vertices               */
            double (*wnorm)[2];                   /* world frame: edge i->i+1 outward normals,
                                                     then the AABB (xmin ymin xmax ymax) */
        };
    };
} rc_shape;

/* A polygon's world-frame AABB (xmin ymin xmax ymax), after its edge normals. */
static inline double *rcm_shape_poly_aabb(const rc_shape *s) { return &s->wnorm[s->nvert][0]; }

/* A shape's kind in pair order (collide.c's narrowphase dispatch, named slots). */
enum { RC_SK_NONE = 0, RC_SK_ROUND, RC_SK_POLY, RC_SK_HALF, RC_SK_SEG, RC_SK_CIN };
static inline int rcm_shape_kind(const rc_shape *s)
{
    switch (s->type) {
    case RC_SHAPE_DISK: case RC_SHAPE_POINT: return RC_SK_ROUND;
    case RC_SHAPE_POLYGON: return RC_SK_POLY;
    case RC_SHAPE_HALFPLANE: return s->body == RC_GROUND ? RC_SK_HALF : RC_SK_NONE;
    case RC_SHAPE_SEGMENT: return s->body == RC_GROUND ? RC_SK_SEG : RC_SK_NONE;
    case RC_SHAPE_CIRCLE_INSIDE: return s->body == RC_GROUND ? RC_SK_CIN : RC_SK_NONE;
    }
    return RC_SK_NONE;
}
/* Number of potential contacts between two shapes (for named slots). */
int rcm_shape_feature_count(const rc_shape *a, const rc_shape *b);

typedef struct rc_law {
    rc_law_def def;
    rc_law_ops ops;         /* xi / project (/ update): every law has them   */
    int closed_form;        /* built-in Coulomb-cone law: exact local solve  */
    char *name;
} rc_law;

typedef struct rc_rule {
    rc_contact_rule_def def;
    char *name;
} rc_rule;

/* A named contact (history column): a potential contact of a named rule. */
typedef struct rc_slot {
    char *name;
    uint64_t key;
} rc_slot;

/* ---------------------------------------------------------------- contacts */

/* Contact key: identifies a contact across steps (shape pair + feature).
 * shape_a < shape_b unless a is a ground shape. */
static inline uint64_t rcm_contact_key(int shape_a, int shape_b, int feature)
{
    return ((uint64_t)(uint32_t)shape_a << 40) | ((uint64_t)(uint32_t)shape_b << 16)
         | (uint64_t)(uint16_t)feature;
}

/* Per-contact data that only laws without a closed form use (custom laws, in
 * C or Lua, and built-in laws on the generic local solver). A world whose laws
 * all have a closed form keeps none (c->aux == NULL). */
typedef struct rc_contact_aux {
    double state[RC_LAW_MAX_STATE]; /* the law's per-contact state          */
    double uk[2];           /* H(q_k) v_k                                  */
    double J[2][2];         /* generic local solver: last Jacobian of F    */
    int jvalid;             /* J usable (reset every step)                 */
} rc_contact_aux;

/* Planar contact (the step's work record: detection output, local problem,
 * solution). H rows are (n, t) for each side, t = (n_y, -n_x) (gap contacts:
 * t = (1, 0)), u = Hb vb + Ha va with Ha carrying the minus sign:
 *     Hb = [  n_x   n_y  Hr[1][0] ;   t_x   t_y  Hr[1][1] ]
 *     Ha = [ -n_x  -n_y  Hr[0][0] ;  -t_x  -t_y  Hr[0][1] ]   (zero for the ground)
 * with Hr the rotational column (r x n, r x t, times the side's sign), so only
 * Hr is stored; rcm_contact_jacobian rebuilds the rows (the same numbers the
 * products would use: negation is exact). Hot fields first (NSGS reads the
 * first 152 bytes). The state a step leaves is in w->rec (rc_contact_rec). */
typedef struct rc_contact {
    uint64_t key;
    int id;                 /* persistent id                          */
    int body_a, body_b;     /* RC_GROUND allowed for a                */
    int law;                /* law index                              */
    int gap;                /* >= 0: a gap contact (linear.c), else geometric */
    int shape_a, shape_b;
    short active;           /* in the index set this step             */
    short feature;          /* < 2 RC_MAX_POLYGON_VERTICES            */
    double n[2];            /* unit normal, from A to B               */
    double Hr[2][2];        /* rotational column of H: [side A, B][row N, T] */
    /* per-step solver data (valid when active); kappa Mhat^-1 H^T is not
     * stored for rigid pairs: M is diagonal (rcm_contact_apply_rigid) */
    double W[2][2];         /* local Delassus block                    */
    double shift[2];        /* law's affine term added to u (eq. 96/101) */
    double p[2];            /* impulse p_{k+1}                        */
    double u[2];            /* H(q_k) v_{k+1}                         */
    double point[2];
    double gN;              /* g_N(q_k)                               */
    double res;             /* local natural-map residual             */
    rc_contact_aux *aux;    /* NULL unless the world has a law without closed form */
    double nu;              /* gen-alpha: the position-level multiplier nu (0 otherwise) */
} rc_contact;

#include "model/contact_state.h"   /* rc_contact_rec, rc_contact_geom: the contacts a step leaves */

/* t = (n_y, -n_x); gap contacts (n = (0, 1)) have t = (1, 0). */
static inline void rcm_contact_tangent(const rc_contact *c, double t[2])
{
    if (c->gap >= 0) { t[0] = 1.0; t[1] = 0.0; return; }
    t[0] = c->n[1]; t[1] = -c->n[0];
}

/* The rows of H of a geometric contact (Ha zero for the ground). */
static inline void rcm_contact_jacobian(const rc_contact *c, double Ha[2][3], double Hb[2][3])
{
    const double nx = c->n[0], ny = c->n[1];
    Hb[0][0] = nx;  Hb[0][1] = ny;  Hb[0][2] = c->Hr[1][0];
    Hb[1][0] = ny;  Hb[1][1] = -nx; Hb[1][2] = c->Hr[1][1];
    if (c->body_a == RC_GROUND) {
        for (int r = 0; r < 2; r++) Ha[r][0] = Ha[r][1] = Ha[r][2] = 0.0;
        return;
    }
    Ha[0][0] = -nx; Ha[0][1] = -ny; Ha[0][2] = c->Hr[0][0];
    Ha[1][0] = -ny; Ha[1][1] = nx;  Ha[1][2] = c->Hr[0][1];
}

/* ---------------------------------------------------------------- joints, springs */

typedef struct rc_joint {
    rc_joint_def def;
    char *name;
    int rows;
    double pa[2], pb[2];        /* local points (A: world point for the ground) */
    double axis[2];             /* unit, A's frame                               */
    double length, angle;
    /* per step (at q_k) */
    double Ha[3][3], Hb[3][3];  /* dg/dq_A, dg/dq_B                              */
    double MHa[3][3], MHb[3][3];/* kappa M^-1 H^T by rows                        */
    double W[3][3], Winv[3][3]; /* H kappa M^-1 H^T and its inverse              */
    double shift[3];            /* dg/dt at the scheme's time                    */
    double b[3];
    double lambda[3];           /* impulse (warm start across steps)             */
    double mu_v[3];             /* impulse of the velocity projections, at the
                                   step's end and its start (reported with
                                   lambda: the centripetal part, a start's jump) */
    double wstart;              /* work of the start's velocity assembly        */
    double smooth[3];           /* gen-alpha: the smooth multiplier lambda~ (a force; 0 otherwise) */
    double res;
    /* reported at the end of the step */
    double g_end[3], gdot_end[3], work;
    /* motor and limits (joint_motor.c): one scalar row on the joint's
     * coordinate x (revolute: theta_b - theta_a - angle; prismatic: the
     * translation along the axis), at q* like the other rows */
    int motor, motor_declared, limits, limit_side;   /* limit_side: this step's, -1 lower, 1 upper, 0 */
    double motor_speed, motor_max, lower, upper, limit_e;
    double motor_target;        /* this step's target of H V (joint_motor.c)     */
    double xa[3], xb[3];        /* dx/dq_A, dx/dq_B at q*                        */
    double xMa[3], xMb[3];      /* kappa M^-1 H^T of that row                    */
    double xW;                  /* H kappa M^-1 H^T                              */
    double limit_shift;         /* the impact law's shift (and closing term)     */
    double motor_lambda, limit_lambda;   /* impulses: the motor's, the limit's (>= 0, along its side) */
    double motor_work;
} rc_joint;

typedef struct rc_spring {
    rc_spring_def def;
    char *name;
    int removed;            /* rc_spring_destroy: no force, no energy (remove.c) */
} rc_spring;

/* joint.c */
/* g, dg/dq_A, dg/dq_B (NULL: not needed) and dg/dt of joint j at (q, t). */
rc_status rcm_joint_eval(rc_world *w, const rc_joint *j, const double *q, double t,
                        double *g, double Ha[3][3], double Hb[3][3], double *gt);
rc_status rcm_joints_assemble(rc_world *w, double kappa);
rc_status rcm_joints_project(rc_world *w, double t, int *iters);
rc_status rcm_joints_project_velocity(rc_world *w, double t);
rc_status rcm_joints_start(rc_world *w, double *dE_q);
/* energy of body b (kinetic + gravity) at the world state */
double rcm_body_energy(const rc_world *w, int b);
void rcm_joints_energy_before(rc_world *w);
void rcm_joints_restore_energy(rc_world *w);
rc_status rcm_joints_report(rc_world *w, double t, double *pos_violation, double *vel_violation);
void rcm_springs_forces(rc_world *w, double *f, double *E_spring);
/* joint_motor.c: the motor and limit rows, assembled at q* (called by
 * rcm_joints_assemble), their coordinate for rc_joint_get */
rc_status rcm_joint_x_assemble(rc_world *w, rc_joint *j, double kappa, double s);
void rcm_joint_x_info(const rc_world *w, const rc_joint *j, rc_joint_info *info);
static inline int rcm_joint_has_x(const rc_joint *j) { return j->motor || j->limit_side; }
void rcm_joints_free(rc_world *w);

/* ---------------------------------------------------------------- parts */

/* A part of the world that an upper layer allocates and the world owns: its
 * functions (each may be NULL) free it (rc_world_destroy), count its heap
 * (rc_world_run_stats) and observe a completed step (rcm_world_after_step). */
typedef struct rc_part {
    void (*free)(rc_world *w);
    size_t (*memory)(const rc_world *w);
    rc_status (*after_step)(rc_world *w);
} rc_part;

/* The parts' slots, in the order the world frees them and runs their observers. */
enum { RC_PART_OUTPUT, RC_PART_SOLVER, RC_PART_PROGRESS, RC_PART_EVENTS, RC_PART_USER, RC_PART_SCHEME, RC_PART_SLEEP,
       RC_NPARTS };

/* ---------------------------------------------------------------- world */

struct rc_output;
struct rc_progress_state;
struct rc_events_state;
struct rc_user_data;

struct rc_world {
    rc_world_def def;
    rc_warning_fn warn_fn;
    void *warn_user;

    /* model */
    rc_body *bodies;   int nbodies, cap_bodies;
    rc_body_ext *body_ext; int nbody_ext, cap_body_ext;
    rc_shape *shapes;  int nshapes, cap_shapes;
    rc_law *laws;      int nlaws, cap_laws;
    int default_law;        /* law of the pairs no rule names (0 at creation) */
    rc_rule *rules;    int nrules, cap_rules;
    rc_slot *slots;    int nslots, cap_slots;
    rc_joint *joints;  int njoints, cap_joints;
    rc_linear *linears; int nlinears, cap_linears, nfem;   /* nfem: finite-element bodies made (the WT_ history columns) */
    struct rcm_rigid3d *rigid3d; int nrigid3d, cap_rigid3d; struct rcm_c3 *c3; struct rcm_j3 *j3;   /* spatial bodies (body3d.c), their shapes and contacts (contact3.c), joints (joint3.c) */
    rc_gap *gaps;      int ngaps, cap_gaps;
    rc_spring *springs; int nsprings, cap_springs;
    int nq, nv;
    double *mass_diag;      /* nv: diagonal of M (rigid2d: m, m, J)   */
    /* removal (remove.c): per slot, its generation and what was removed
     * (NULL until something is removed; entries past n* are zero) */
    struct rcm_life *body_life;  int nbody_life;
    struct rcm_life *shape_life; int nshape_life;
    struct rcm_life *joint_life; int njoint_life;
    struct rcm_life *spring_life; int nspring_life;
    double E_removed;       /* energy (E_kin + E_pot) the removed bodies took with them */
    int nremoved;           /* bodies removed since the world was created */
    int stepping;           /* inside rc_world_step: removal refused */
    /* a restored checkpoint (io/checkpoint_life.c): each body slot's name and
     * generation before the restore, the columns of a history opened before
     * the next step (the first run's columns, io/output.c) */
    struct rcm_column { char *name; unsigned gen; } *restore_cols;
    int nrestore_cols;
    long restore_step;
    /* joint breaking (joint_break.c): the joints broken after the last step
     * (room for every breakable joint), and the log of the first RC_BREAK_LOG */
    rc_joint_break *broken; int nbroken, cap_broken;
    rc_joint_break *break_log; int nbreak_log; long nbreak_total;
    int nbreakable;         /* joints with a finite break limit */
    /* the bodies removed since the world was created or restored: the first
     * RC_BREAK_LOG (run.json's "removed"), and their number */
    struct rcm_removed { int id; unsigned gen; double t; char *name; } *removed_log;
    int nremoved_log; long nremoved_since;
    /* the slots' declarations kept at their first removal (remove.c): blocks
     * of rcm_decl, each as large as the world's bodies and shapes when it was
     * taken, so that a steady flow of removals allocates nothing */
    struct rcm_decl **decl_blocks; int ndecl_blocks, decl_left;
    struct rcm_decl *decl_next;

    /* simulation settings */
    rc_sim_def sim;
    double kappa;           /* the step's factor of Mhat^-1 H^T: 1, or theta (MJF) */
    rc_unknown unknown;     /* the step's: what the laws' u is (the scheme's)       */
    rc_joint_jacobian joint_at;  /* where the joints' rows are evaluated (resolved by
                                    rc_world_configure from the scheme, integrate/configure.c) */
    double joint_rate_s;    /* the rheonomic rows' rate at t_k + joint_rate_s h (the scheme's) */
    int configured;

    /* state */
    double t;               /* = t_origin + t_steps h (rcm_time_at), not a sum of h */
    long step;
    double t_origin;        /* the time when h was last set (rc_world_configure) */
    long t_steps;           /* steps of the current h since then                */
    double *q, *v;          /* nq, nv                                  */
    int cap_q, cap_v;       /* capacities of q and of v, mass_diag     */

    double *V; int cap_dof;    /* the solver's velocity, then v_{k+theta} (kept between steps) */
    /* The step's work memory: one arena, reset when a step (or an exploration) starts (rcm_world_work_begin);
     * the arrays below point into it and are valid until the next reset. NULL where the step does not use them. */
    rcb_arena work;
    double *q0, *v0;           /* q_k, v_k (rcm_world_keeps_state)         */
    double *f;                 /* applied forces (rcm_world_has_forces)    */
    double *vfree;             /* the Uzawa solver's scratch velocity       */
    double *uz_y;              /* accelerated Uzawa: the extrapolated impulses, 2 per active contact */
    void *hot; double *hot_r2, *hot_mk; int cap_hot;   /* planar NSGS's hot records, by the contacts (nsgs_pack.c) */
    double *qstar;             /* the joints' q* (worlds with joints only)  */
    double *qpre, *vpre;       /* the state before a start's assembly (joints) */
    int joints_fresh;       /* the state was set from outside (a joint created,
                               rc_body_set_state): the next step starts by
                               moving it onto the joints (rcm_joints_start) */
    double start_W_q;       /* energy change of that assembly's positions (this step) */
    double *ebody;          /* per-body scratch (work; worlds with joints only) */
    int *comp;              /* per-body scratch: joint-graph components (work) */
    rc_contact *contacts;  int ncontacts, cap_contacts;   /* this step's work records */
    rc_contact_aux *aux;   /* contacts' aux data (work; worlds with a non-closed-form law) */
    /* state: the contacts the last completed step left, sorted by key (a failed
     * step leaves them as they were); their law state when the world has a law
     * without closed form (rec_state, RC_LAW_MAX_STATE doubles per contact) */
    rc_contact_rec *rec;   int nrec, cap_rec;
    rc_contact_geom *geom; int cap_geom, geom_at;   /* the state's geometry (rc_contact_geom, RCM_GEOM_*) */
    double *rec_state;     int cap_rec_state, rec_has_state;
    int *active;           int nactive;     /* indices of active contacts (work) */
    double contact_b2;     /* sum over the active contacts of |b|^2, b = u(p = 0) + shift,
                              in w->active order (the solvers' residual scale) */
    double persist_band;   /* the persistence rule's band for the next step, from the
                              last accepted step: 2 h max(tol, residual) (1 + |b|)
                              (scheme.c; at least sim.persist_tol)              */
    double detect_margin;  /* this step's detection margin: contact_margin, or more
                              when the anticipating index set may activate a
                              contact farther away (scheme.c)                    */
    int *pairs, npairs, cap_pairs, room_pairs;   /* broadphase pairs, 2 ints each (work, in detection only; collide.c) */
    int *order, cap_order, grid_hdr[8];   /* broadphase grid (work, in detection only) and its header (collide.c) */
    int next_contact_id;
    /* NSGS sweep orders (nsgs.c; work) */
    int *sweep;                 /* active contacts in sweep order (position, colour) */
    struct rc_sort_item *sort_items; /* position order: 2 nactive (merge sort) */
    int *colour;                /* colour order: each active contact's colour */
    int *colour_start;     int ncolours; /* sweep[colour_start[k] ..] has colour k */
    uint64_t *body_colours;     /* per body: colours 0..63 in use      */
    int *body_top;              /* per body: largest colour in use + 1 */
    /* threads > 1: whether sharing the colours pays (timed; never changes a result) */
    long par_off_until;    /* sweep on one thread until this step                           */
    int par_backoff;       /* steps of the next fallback (doubles while threads do not pay)  */
    int team_used;         /* this world's steps ran an OpenMP team (counted in nsgs.c)      */

    /* audit */
    rc_step_info info;
    rc_run_stats stats;

    double E_wrap;          /* periodic boundary: potential energy of the moves by +-L
                               (added to E_pot so that reported energies are continuous) */

    struct rc_output *out;
    struct rc_progress_state *progress;  /* the run's progress figures (io/progress.c) */
    struct rc_events_state *events;      /* contact events after each step (integrate/events.c) */
    struct rc_user_data *user;           /* user data of bodies, shapes, joints (model/user_data.c) */
    struct rcm_sleep *sleep;             /* sleeping (model/sleep.c; NULL: never enabled) */
    unsigned char *asleep;               /* per body: 1 while it sleeps (NULL: never enabled) */
    int nasleep;                         /* bodies asleep now */
    long unconverged_warned;  /* unconverged steps reported in detail (step_check.c) */
    int mjf_newton_warned, aa3_plain_warned;  /* warned once: MJF Newton sticking (step_check.c), 3D Anderson plain (nsgs3.c) */
    const rc_part *parts[RC_NPARTS];   /* what upper layers attached (rcm_world_attach_part) */
    struct rci_ga_state *ga;  /* the generalized-alpha scheme's state across steps (RC_PART_SCHEME) */
    /* explorer: the impulses of the last rc_world_explore (kept for rc_explore_contact) */
    double *explore_out; int explore_cap, explore_n;
    uint64_t explore_rng;
    int explore_iters, explore_converged;  /* solver figures of the last exploration */
    double explore_res;
};

/* A rigid body's mass and inertia (the diagonal of M). */
static inline double rcm_body_mass(const rc_world *w, const rc_body *b) { return w->mass_diag[b->iv]; }
static inline double rcm_body_inertia(const rc_world *w, const rc_body *b) { return w->mass_diag[b->iv + 2]; }
/* Body b's rarer parts, NULL when it has none. */
static inline rc_body_ext *rcm_body_ext_of(const rc_world *w, int b)
{
    const int e = w->bodies[b].ext;
    return e >= 0 ? &w->body_ext[e] : NULL;
}
static inline const char *rcm_body_name_of(const rc_world *w, int b)
{
    const rc_body_ext *x = rcm_body_ext_of(w, b);
    return x ? x->name : NULL;
}

/* ---------------------------------------------------------------- body kinds */

/* The scheme's free-velocity coefficients (integrate/scheme_*.c fill them):
 *   linear bodies, eqs. (92) / (97) (a term whose coefficient is 0 is not computed):
 *     Mhat V_0 = M v_k - h a_C C v_k - h a_K K q_k + h a_F F - h^2 a_KV[0] a_KV[1] K v_k
 *   rigid bodies (K = C = 0, Mhat = M diagonal): v_free = v_k + h M^-1 (F + m g),
 *     V_0 = v_free, or with mix: V_0 = (1 - theta) v_k + theta v_free (MJF). */
typedef struct rcm_free_coef {
    double a_C, a_K, a_F, a_KV[2];
    int mix;
    double theta;
} rcm_free_coef;

/* A body kind's operations (body_kinds.c), looked up by rc_body.kind in
 * rcm_body_kinds. v, f, V0 point at the body's own velocities (offset iv);
 * q, v of energy are the world's flat arrays. */
typedef struct rcm_body_ops {
    const char *name;
    int nq, nv;             /* coordinates and velocities (0: the body's own, a linear body's n) */
    /* V_0 (eq. 92 / 97) from v_k, the applied force F_{k+theta} and the scheme's coefficients */
    rc_status (*free_velocity)(rc_world *w, const rc_body *bd, const rcm_free_coef *fc, const double *v,
                               const double *f, double *V0);
    /* rows (nrows x nv, by rows: the columns of H^T) <- Mhat^-1 rows; the caller
     * multiplies by kappa (kappa Mhat^-1 H^T of a gap contact) */
    rc_status (*solve_mass)(rc_world *w, const rc_body *bd, double *rows, int nrows);
    /* acc[0] += 2 E_kin, acc[1] += E_pot (gravity, elastic), acc[2] += E_elastic */
    void (*energy)(const rc_world *w, const rc_body *bd, const double *q, const double *v, double acc[3]);
    /* the position map q_{k+1} = q_k + h T(q_k) v (identity for the planar kinds) */
    void (*position)(const rc_body *bd, const double *q0, const double *v, double h, double *q);
    /* audit: *W_theta += ||v_{k+1} - v_k||_M^2 (+ ||dq||_K^2), *W_damp += eq. (67) */
    void (*step_terms)(const rc_world *w, const rc_body *bd, const double *vth, double *W_theta, double *W_damp);
    /* the constant applied force (NULL: zero) */
    const double *(*constant_force)(const rc_world *w, const rc_body *bd);
    /* f = f_int(q), K = K_T(q) = df_int/dq (nv x nv, row-major; each NULL: not computed; NULL op: none): nonlinear.h */
    rc_status (*internal)(const rc_world *w, const rc_body *bd, const double *q, double *f, double *K);
} rcm_body_ops;
extern const rcm_body_ops rcm_body_rigid2d, rcm_body_linear, rcm_body_removed;
/* A removed body's slot (remove.c): no free velocity, no gravity, zero
 * energy, no position update; not a rigid2d body for shapes, joints, output. */
#define RCM_BODY_REMOVED ((rc_body_kind)3)
#define RCM_SHAPE_REMOVED ((rc_shape_type)0)   /* a removed shape: no features, never paired (its body is RC_GROUND) */
#define RCM_BODY_NKINDS (RC_BODY_NONLINEAR + 1)
extern const rcm_body_ops *const rcm_body_kinds[RCM_BODY_NKINDS];
#include "model/rigid3d.h"   /* spatial rigid bodies (body3d.c, rigid3d.c); contact3.h */

/* A slot's life (remove.c): its generation (incremented at each removal),
 * whether the slot is free, when and what was removed there, and what the
 * slot held (the model fingerprint hashes a removed slot as it was). */
typedef struct rcm_life {
    unsigned gen;
    int removed;
    double t;               /* time of the removal */
    char *name;             /* the removed object's name (NULL: none) */
    int kind;               /* body kind, shape type, joint rows it had */
    int body;               /* a removed shape's body */
    struct rcm_decl *decl;  /* bodies and shapes: what the slot held before its first removal */
} rcm_life;
/* The object a body or shape slot held before its first removal, as the
 * script declared it (the checkpoint's model fingerprint hashes it, so that
 * removing and reusing slots does not change the model: io/checkpoint_model.c). */
typedef struct rcm_decl {
    rc_body body;
    double mass_diag[3];
    int force_fn;           /* a force function was set */
    double t;               /* the time of the slot's first removal */
    rc_shape shape;         /* vert: its own copy (wvert, wnorm NULL) */
    char *name;             /* name_short when the name fits in it (no allocation) */
    char name_short[32];
} rcm_decl;
/* The life record of slot i, NULL when the slot was never removed. */
static inline const rcm_life *rcm_life_of(const rcm_life *arr, int n, int i)
{
    return arr && i >= 0 && i < n && (arr[i].removed || arr[i].gen) ? &arr[i] : NULL;
}
static inline int rcm_is_removed(const rcm_life *arr, int n, int i)
{
    return arr && i >= 0 && i < n && arr[i].removed;
}
/* RC_OK for a live body id, else the error: "no body with id N" or
 * "body 'NAME' (id N) was removed at t = T" (what: the function's name) */
rc_status rcm_body_check(const rc_world *w, int id, const char *what);
/* Lowest free slot of a removed rigid body (-1: none), for rc_body_create. */
int rcm_body_free_slot(const rc_world *w);
int rcm_shape_free_slot(const rc_world *w);
/* A reused slot becomes live again (its generation kept). */
void rcm_life_revive(rcm_life *arr, int n, int i);
void rcm_life_free(rc_world *w);
/* A checkpoint's removals applied to a world built by the script (io/checkpoint.c). */
rc_status rcm_remove_restore(rc_world *w, int what, int i, unsigned gen, int removed, double t, const char *name);
/* A body's history column: its name and generation as the history opened
 * now names it (after a restore and before a step: as before the restore). */
const char *rcm_body_column(const rc_world *w, int id, unsigned *gen);
void rcm_restore_cols_free(rc_world *w);
void rcm_removed_log_free(rc_world *w);   /* (a restore starts it again) */
/* joint_break.c: limits checked at creation (room reserved for the break
 * list); after a step, the joints whose reaction exceeded a limit removed. */
rc_status rcm_joint_break_check(rc_world *w, const rc_joint_def *def, const char *what);
rc_status rcm_joints_break(rc_world *w);
void rcm_joint_break_free(rc_world *w);
/* remove.c: joint id removed (its rows gone), between steps or after one. */
rc_status rcm_joint_remove(rc_world *w, int id);
/* A new body (shape) in the free slot i, whatever the lowest free slot is
 * (a checkpoint's bodies added at run time: io/checkpoint_life.c). */
rc_status rcm_body_recreate(rc_world *w, int i, const rc_body_def *def);
rc_status rcm_shape_recreate(rc_world *w, int i, int body, const rc_shape_def *def);
static inline const rcm_body_ops *rcm_body_ops_of(const rc_body *bd) { return rcm_body_kinds[bd->kind]; }

#include "model/linear.h"   /* linear bodies and gap contacts (linear.c) */

/* contacts.c: the public record of a contact of the state */
void rcm_contact_info_of(const rc_world *w, const rc_contact_rec *r, const rc_contact_geom *g, rc_contact_info *info);

/* world.c */
rc_status rcm_world_rebuild_slots(rc_world *w);
void rcm_world_warn(rc_world *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int rcm_world_law_for(const rc_world *w, int shape_a, int shape_b); /* law index or RC_NO_CONTACT */
int rcm_world_pair_is_named(const rc_world *w, int shape_a, int shape_b);
rc_status rcm_world_reserve_dofs(rc_world *w);
/* The settings every scheme shares: their checks (messages prefixed sw for the step's, sv for the solver's), and
 * applying checked settings; rc_sim_def_check and rc_world_configure (integrate/configure.c) add the scheme's own. */
rc_status rcm_sim_check_shared(const rc_sim_def *def, const char *sw, const char *sv);
rc_status rcm_world_configure(rc_world *w, const rc_sim_def *def);
/* Reset the work arena and take from it the arrays this step uses (q0, v0, f,
 * vfree, qstar, qpre, vpre, ebody, comp); rc_world_step and the explorer call
 * it first. RCM_HOT2_BYTES: a planar NSGS hot record (nsgs_pack.c, step.c). */
rc_status rcm_world_work_begin(rc_world *w);
#define RCM_HOT2_BYTES 152
rc_status rcm_world_grow_dofs(rc_world *w, int nq, int nv);
int rcm_world_keeps_state(const rc_world *w);
/* Whether some body may have a nonzero applied force: a constant force or a
 * force function (bodies with an rc_body_ext), springs, linear bodies. */
static inline int rcm_world_has_forces(const rc_world *w) { return w->nbody_ext || w->nsprings || w->nlinears; }
rc_status rcm_body_add_ext(rc_world *w, int b);   /* give body b its rc_body_ext (zero force) */
void rcm_world_trim_model(rc_world *w);   /* bodies, shapes: capacity back to size */

void rcm_world_attach_part(rc_world *w, int slot, const rc_part *part);
/* Checks shared by the model's files: a body id, a vector's finite components
 * (body.c), a built-in law's definition (rules.c). */
static inline int rcm_valid_body(const rc_world *w, int id)
{
    return w && id >= 0 && id < w->nbodies && w->bodies[id].kind != RCM_BODY_REMOVED;
}
rc_status rcm_check_vec(const double *x, int n, const char *what, const char *name);
rc_status rcm_law_def_check(const rc_law_def *d, const char *what);
/* A law of dim 3 governs no contact of a planar world (rules.c). */
rc_status rcm_law_planar_check(const rc_world *w, int id);
/* The generalized-alpha coefficients' ranges (gen_alpha_def.c). */
rc_status rcm_gen_alpha_def_check(const rc_gen_alpha_def *d);
/* alpha_m, alpha_f, beta, gamma of a definition (eq. 31 from rho_inf, or direct). */
void rcm_gen_alpha_coefs(const rc_gen_alpha_def *d, double c[4]);
/* Run the attached parts' observers after a completed step (the history row). */
rc_status rcm_world_after_step(rc_world *w);
static inline int rcm_periodic(const rc_world *w) { return w->def.periodic_x[1] > w->def.periodic_x[0]; }

/* Euclidean projection onto the Coulomb cone K = {|p_T| <= mu p_N} (eq. 11). */
static inline void rcm_fc2d_project(double mu, double *p)
{
    double pn = p[0], pt = p[1], at = pt < 0.0 ? -pt : pt;
    if (pn >= 0.0 && at <= mu * pn) return;                   /* inside K     */
    if (mu * at + pn <= 0.0) { p[0] = p[1] = 0.0; return; }  /* polar cone   */
    double s = (pn + mu * at) / (1.0 + mu * mu);              /* boundary ray */
    p[0] = s;
    p[1] = (pt > 0.0 ? 1.0 : -1.0) * mu * s;
}

/* Euclidean projection onto the spatial Coulomb cone (second-order cone)
 * K = {p in R^3 : |p_T| <= mu p_N}, p = (p_N, p_T1, p_T2), in closed form:
 * p inside K stays, p in the polar cone K° = {mu |p_T| <= -p_N} goes to 0,
 * else to the ray of the boundary through p_T: s (1, mu p_T / |p_T|) with
 * s = (p_N + mu |p_T|) / (1 + mu^2) (Fukushima, Luo & Tseng 2002, Prop. 3.3;
 * docs/theory/de-saxce-cone.md). Here (not in nonsmooth/cone3.c, which has
 * the rest of the 3D cone) because the built-in laws' project needs it. */
static inline void rcm_fc3d_project(double mu, double *p)
{
    const double pn = p[0], r = sqrt(p[1] * p[1] + p[2] * p[2]);
    if (pn >= 0.0 && r <= mu * pn) return;                          /* inside K     */
    if (mu * r + pn <= 0.0) { p[0] = p[1] = p[2] = 0.0; return; }   /* polar cone   */
    const double s = (pn + mu * r) / (1.0 + mu * mu), k = mu * s / r; /* r > 0 here */
    p[0] = s;
    p[1] = k * p[1];
    p[2] = k * p[2];
}

/* law_builtin.c: built-in laws through the law interface (xi and the
 * projection onto the Coulomb cone). */
void rcm_law_init_builtin(rc_law *l);
/* The affine shift of a built-in law: xi = u + shift + (mu|u_T + shift_T|, 0). */
void rcm_law_builtin_shift(const rc_law *l, rc_unknown unknown, double theta, const double *uk, double *shift);

/* sleep.c: sleeping bodies (docs/sleeping.md). A pair of two sleeping
 * bodies, or of a sleeping body and the ground, is not detected (the
 * broadphase) nor solved (the index set): its contacts are kept as they were. */
static inline int rcm_sleeping_side(const rc_world *w, int b) { return b == RC_GROUND || w->asleep[b]; }
static inline int rcm_sleeping_pair(const rc_world *w, int a, int b)
{
    return w->nasleep > 0 && rcm_sleeping_side(w, a) && rcm_sleeping_side(w, b);
}
int rcm_body_asleep(const rc_world *w, int b);   /* (any id: 0 for one out of range) */
typedef struct rcm_sleep {
    rc_sleep_def def;
    double *timer;          /* per body: time below the thresholds            */
    int *next;              /* per sleeping body: the next of its island (a cycle) */
    int cap;                /* of timer, next, w->asleep                      */
    rc_contact *kept;       /* the contacts of sleeping pairs, sorted by key  */
    int nkept, cap_kept;
    int stale;              /* kept must be rebuilt after the step (a wake or a sleep) */
    rc_sleep_info info;     /* the counters (rc_world_sleep_info)             */
} rcm_sleep;
/* Grow the per-body arrays to w->nbodies (new bodies awake, timer 0). */
rc_status rcm_sleep_reserve(rc_world *w);
/* Wake body b's island (an edit of b; no-op without sleeping); resets b's
 * timer. Returns the number of bodies woken. */
int rcm_sleep_wake(rc_world *w, int b);

/* The products with the rows (H v, H^T p per row kind): model/rows.h. */
#include "model/rows.h"

/* energy.c */
void rcm_energy(const rc_world *w, const double *q, const double *v, double *E_kin, double *E_pot, double *E_el);

/* The time t_k + frac h of the current step: t_origin + (t_steps + frac) h,
 * computed from the step count so that no round-off accumulates (t += h
 * gives 0.37500000000000028 after 375 steps of 1e-3). */
static inline double rcm_time_at(const rc_world *w, double frac)
{
    return w->t_origin + ((double)w->t_steps + frac) * w->sim.h;
}

#endif /* RC_MODEL_H */
