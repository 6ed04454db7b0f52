/*
 * integrate/integrate.h -- the time step as a fixed list of stages over a step context, and
 * the scheme table (integrate layer; not public).
 *
 * One step (step.c):
 *   begin -> forces -> detect -> free velocity -> index set and local problems
 *   -> joints' rows -> warm start -> solve -> check -> update -> audit -> commit
 * Everything a scheme changes is in its rci_scheme table (one file each:
 * scheme_moreau_jean.c for Moreau--Jean and Moreau--Jean--Fremond,
 * scheme_maury.c); the stages call it and hold no scheme flag. The explorer
 * (explore.c) runs the stages up to the solve with its own initial guess.
 */
#ifndef RC_INTEGRATE_H
#define RC_INTEGRATE_H

#include "collide/collide.h"
#include "nonsmooth/nonsmooth.h"

struct rci_scheme;

/* What one step computes and hands from stage to stage. */
typedef struct rci_step {
    rc_world *w;
    const struct rci_scheme *scheme;
    double h, theta, kappa;   /* kappa: the factor of Mhat^-1 H^T in W (scheme->kappa) */
    double t_next;            /* t_{k+1} */
    int keep;                 /* q_k, v_k copied to w->q0, w->v0 (rcm_world_keeps_state) */
    int have_f;               /* applied forces in w->f (rcm_world_has_forces) */
    const double *vk;         /* v_k until the update */
    double band;              /* the persistence band of this step */
    /* the solve: its settings (the simulation's, or an exploration's own),
     * the random order kept from the first sweep (an exploration's), and
     * whether the run's statistics count it (not for an exploration) */
    const rc_solver_def *solver;
    int cyclic, exploring;
    double res;
    int iters, worst, converged;
    int fallback;             /* a Newton method failed and another finished the solve */
    /* the audit */
    double Ek0, Ep0, Ek1, Ep1, E_el, W_theta;
    double E_sleep;           /* kinetic energy of the islands put to sleep (sleep.c) */
    double *pc_g, *pc_winv, *pc_nu, *pc_dq;   /* project_contacts' work arrays */
} rci_step;

/* The audit's terms of one step (step.c's stage_audit, or a scheme's own
 * step), committed into w->info by stage_commit. */
typedef struct rci_audit {
    double W_J, W_motor, E_spring, W_ext, W_damp, W_proj, E_proj, pos_viol, vel_viol;
    double W_N, W_T, max_cw, E0;
    double WT_max_pos, WT_min_neg;   /* the largest positive and smallest negative W_T of a contact (0: none) */
    int have_cw, max_cw_id;
    long positive;
    double W_cproj, cproj_overlap;   /* project_contacts (project_contacts.c) */
    int cproj_sweeps, cproj_capped;
} rci_audit;

/* A scheme: the functions and figures that differ between schemes. */
typedef struct rci_scheme {
    const char *name;         /* as in run.json and sim.scheme */
    rc_scheme type;
    rc_unknown unknown;       /* what the laws' u is: u_{k+1} or u_{k+theta} */
    double (*kappa)(const rc_sim_def *sim);
    /* the free velocity's coefficients (eq. 92 / 97) that every body kind's
     * free_velocity reads (model.h, rcm_free_coef) */
    void (*free_coef)(const rci_step *st, rcm_free_coef *fc);
    /* index set: whether contact c, not in the rule of eq. (64) (trigger > 0
     * or u_N,k > 0), stays in the set; every_pair: Maury's scheme */
    int every_pair;
    /* the affine term of contact c (c->shift) for its law; ul: the pre-impact
     * velocity a built-in law sees, extra: the persistence closing term */
    void (*affine)(const rci_step *st, rc_contact *c, const rc_law *law, const double ul[2], double extra);
    /* the pre-impact velocity a built-in impact law sees (in place) */
    void (*preimpact)(const rci_step *st, const rc_law *law, double ul[2]);
    /* v_{k+1}, q_{k+1} = q_k + h v_{k+theta}; w->V becomes v_{k+theta};
     * Ek0, Ep0 (the energy at t_k) and the rigid part of W_theta */
    rc_status (*update)(rci_step *st);
    /* the velocity the laws' update and the work W_N, W_T are taken at */
    int work_at_theta;        /* 1: u_{k+theta} (MJF), 0: u_{k+1} */
    /* optional: the settings this scheme refuses (rc_sim_def_check calls it
     * after the checks every scheme shares), with a message prefixed what */
    rc_status (*check)(const rc_sim_def *def, const char *what);
    /* where the joints' rows are evaluated when joint_jacobian is "auto" and
     * there is no projection (rc_sim_joint_jacobian), and the time
     * t* = t_k + s h at which the rates of rheonomic rows are taken */
    rc_joint_jacobian (*joint_jacobian)(const rc_sim_def *def);
    double (*joint_rate_time)(const rc_sim_def *def);
    /* optional: checks after the solve that warn about the scheme's known
     * pitfalls (once per world) */
    void (*after_solve)(rc_world *w);
    /* NULL for the Moreau--Jean family; else the whole step after begin
     * (forces, detection, its own one-step problem, q_{k+1}, v_{k+1}, the
     * audit's terms and st's energies), the state back at t_k on failure;
     * the commit stays step.c's (the generalized-alpha scheme's Newton) */
    rc_status (*step)(rci_step *st, rci_audit *a);
} rci_scheme;

extern const rci_scheme rci_scheme_moreau_jean;
extern const rci_scheme rci_scheme_moreau_jean_fremond;
extern const rci_scheme rci_scheme_maury;
extern const rci_scheme rci_scheme_gen_alpha;
/* scheme_gen_alpha.c, for checkpoints: the scheme's state across steps, the
 * arrays a_n, vdot~_n (or a-bar_n) and the q, v they belong to (w->nv each)
 * in arr[0..3]; returns its variant when there is a valid one (else 0:
 * another scheme, no step yet). rci_ga_state_reserve makes the room (before
 * a restore commits), rci_ga_state_set marks what was read into it as the
 * state. */
int rci_ga_state_arrays(const rc_world *w, double *arr[4]);
rc_status rci_ga_state_reserve(rc_world *w, double *arr[4]);
/* The frictional variant's (gf_step.c) record of a contact across steps:
 * lambda_N, its bar, lambda_F, its bar, and the warm start kappa_N,
 * Lambda_N, Lambda_F. rci_ga_state_arrays returns that variant's number
 * (RC_GA_BRULS, RC_GA_CAPOBIANCO) when the state is valid; the records: */
typedef struct rci_gf_rec {
    uint64_t key;
    double v[7];            /* lN, lbN, lF, lbF, kN, LN, LF */
} rci_gf_rec;
const rci_gf_rec *rci_ga_state_recs(const rc_world *w, int *n);
rc_status rci_ga_state_reserve_recs(rc_world *w, int n, rci_gf_rec **recs);
/* after a restore: valid (variant, 0: none) with n records */
void rci_ga_state_set(rc_world *w, int variant, int nrec);
/* The table entry of a scheme; NULL for a value that names none. */
const rci_scheme *rci_scheme_of(rc_scheme type);

/* Moreau--Jean's parts that Maury's scheme shares (scheme_moreau_jean.c). */
double rci_mj_kappa(const rc_sim_def *sim);
void rci_mj_free_coef(const rci_step *st, rcm_free_coef *fc);
rc_status rci_mj_update(rci_step *st);
double rci_mj_joint_rate_time(const rc_sim_def *def);
/* q_{k+1} = q_k + h T(q_k) vth over every body (its kind's position map),
 * from w->q0 (keep), then the energy at t_k into st->Ek0, st->Ep0 */
void rci_update_positions(rci_step *st, const double *vth);

/* ---- the stages (step.c); explore.c runs the first ones */
rc_status rci_stage_begin(rci_step *st, rc_world *w);
rc_status rci_stage_forces(rci_step *st);
rc_status rci_stage_detect(rci_step *st);
rc_status rci_stage_free_velocity(rci_step *st);
/* index_set.c: the index set is taken by two threads from model/team.h's
 * rcm_team_min contacts (rcm_team2) when the world has no gap contact nor
 * law without closed form; the same numbers bit for bit */
rc_status rci_stage_index_set(rci_step *st);
rc_status rci_stage_joints(rci_step *st);
void rci_stage_warm_start(rci_step *st);
rc_status rci_stage_solve(rci_step *st);
rc_status rci_stage_converged(rci_step *st);

/* ---- project_contacts (project_contacts.c): the position projection of
 * the contacts after the update (Acary 2013's combined projection): its
 * work arrays, taken before the update (nothing can fail after it), then
 * the projection of q_{k+1}, its energy into a->W_proj, a->E_proj */
rc_status rci_project_contacts_prepare(rci_step *st);
void rci_project_contacts(rci_step *st, rci_audit *a);
/* the energy change of the projected positions booked in W_proj, E_proj */
void rci_project_contacts_book(rci_step *st, rci_audit *a);
/* project_contacts3.c: the same on the 3D contacts of a dim = 3 world */
rc_status rci_project_contacts3(rci_step *st, rci_audit *a);
/* contacts3.c: the 3D contacts of a dim = 3 world: detection, assembly and
 * NSGS after the planar solve (st->res, iters, converged updated), and
 * their work in the audit (they become the last step's). */
rc_status rci_contacts3_solve(rci_step *st);
rc_status rci_contacts3_audit(rci_step *st, const double *vth, rci_audit *a);
/* gyro_work.c: the gyroscopic work of a step of spatial bodies (eq. 103),
 * before the 3D joints' projection; 0 without spatial bodies */
double rci_gyro_work(const rci_step *st, const double *vth);
/* joints3.c: the 3D joints' blocks (rows at q_k, W factorised, warm start
 * into w->V; |H V|^2 into b2), and their audit (W_J, project_joints,
 * violations) */
rc_status rci_joints3_assemble(rci_step *st, double *b2);
rc_status rci_joints3_audit(rci_step *st, const double *vth, rci_audit *a);
/* contacts3_law.c: laws without a closed form on 3D contacts: u_old of an
 * active contact (assemble), the laws' update after the step (audit) */
void rci_law3_uold(const rci_step *st, const rc_law *law, rcm_contact3 *c);
rc_status rci_contacts3_update(rci_step *st, const double *vth);
/* contacts3_drill.c: the drilling rows of Coulomb--Contensou contacts (law
 * radius > 0): begin (after detection: rcm_c3.d sized, all off), assemble
 * contact i (active; after its W and shift; warm start, |u0_D|^2 into b2),
 * audit (sets d->u at v_{k+1}, returns u_D,k+theta p_D) */
rc_status rci_drill_begin(rci_step *st);
rc_status rci_drill_assemble(rci_step *st, int i, double *b2);
double rci_drill_audit(rc_world *w, const rcm_contact3 *c, rcm_drill3 *d, const double *vth);
/* the run's figures of the projection (commit) */
void rci_project_contacts_stats(rc_world *w, const rci_audit *a);

/* ---- contacts of the state (contacts_state.c) */
rc_status rci_match_contacts(rc_world *w);
/* iterate_contacts.c: the contacts at q_n of a step whose constraints are
 * evaluated at its iterates (the generalized-alpha schemes), detected within
 * a margin that covers the step's motion (*margin); ids from the last step */
rc_status rci_detect_step(rc_world *w, double h, double *margin);
/* What both generalized-alpha variants' step systems begin with (rci_ga_sys,
 * rci_gf_sys: the members of RCI_GA_HEAD, also reachable as one struct
 * through .head): the world, h, the coefficients alpha_m, alpha_f, beta,
 * gamma of rho_inf, t_{n+1}, applied forces or not, the step's contacts
 * detected (rci_detect_step, its margin), n velocities and nb joint rows. */
#define RCI_GA_HEAD_MEMBERS \
    rc_world *w;             \
    double h, am, af, beta, gam, t1, margin; \
    int n, nb, have_f;
typedef struct rci_ga_head { RCI_GA_HEAD_MEMBERS } rci_ga_head;
#define RCI_GA_HEAD union { struct { RCI_GA_HEAD_MEMBERS }; rci_ga_head head; }
rc_status rci_ga_head_setup(const rci_step *st, rci_ga_head *hd);
/* iterate_contacts.c: the step's contacts cs[0..nc) at positions X (time t
 * for gap functions): the narrow phase at X within margin, each found by its
 * key; gap[j] its gap (margin when its pair left the margin: cs[j] keeps its
 * last frame); update: cs[j] takes the new frame (gN, n, Hr, point). w->q
 * holds X afterwards. rci_contact_row: row 0 (normal) or 1 (tangent) of
 * contact c as a dense row G of the n velocities. */
rc_status rci_contacts_at(rc_world *w, double margin, double t, const double *X, rc_contact *cs, int nc, double *gap,
                          int update);
void rci_contact_row(const rc_world *w, const rc_contact *c, int row, int n, double *G);
/* iterate_contacts.c: the joints' rows at positions X and time t: g (one per
 * row), G (dense rows of the n velocities), dg/dt (gt) */
rc_status rci_joint_rows(rc_world *w, int n, const double *X, double t, double *g, double *G, double *gt);
/* iterate_contacts.c: the joints' impulses Lambda + h lambda (lambda: the
 * smooth force, kept as rc_joint.smooth) and their work at the velocity vm
 * (rows G of n); returns the joints' work W_J */
double rci_joints_take_multipliers(rc_world *w, const double *G, int n, const double *vm, double h, const double *L,
                                   const double *l);
rc_status rci_reserve_state(rc_world *w);
void rci_save_contacts(rc_world *w, int *deepest);

/* ---- sleeping (sleep.c; docs/sleeping.md): sized before detection, the
 * kept contacts merged after it, islands touched by awake bodies woken
 * before the free velocity, islands at rest put to sleep after the audit */
rc_status rci_sleep_begin(rc_world *w);
rc_status rci_sleep_merge(rc_world *w);
rc_status rci_sleep_wake_touched(rci_step *st);
rc_status rci_sleep_after(rci_step *st);

/* ---- forces (forces.c): applied forces F_{k+theta} into w->f */
rc_status rci_forces(rc_world *w, double t_theta);

/* ---- diagnostics (step_check.c) */
const char *rci_body_label(const rc_world *w, int b, char *buf, size_t n);
void rci_describe_contact(const rc_world *w, int ci, char *buf, size_t n);
/* the same for 3D contact i of a dim = 3 world (contacts3.c) */
void rci_describe_contact3(const rc_world *w, int i, char *buf, size_t n);
rc_status rci_nonfinite_state(const rc_world *w, int i, int position, double x);
rc_status rci_check_solution(rc_world *w, int worst, double res, int iters, int p_finite);
int rci_first_nonfinite(const double *x, int n);
void rci_warn_initial_overlaps(rc_world *w);
/* once per world: a Newton law with friction sticking under MJF at theta <= 1/2 */
void rci_warn_mjf_newton_stick(rc_world *w);
/* the warning of an unconverged step: the first RC_UNCONVERGED_DETAILS of a
 * run (rc_world_progress_begin) in detail, then only counted */
void rci_warn_unconverged(rc_world *w, const char *fmt, ...);

#endif /* RC_INTEGRATE_H */
