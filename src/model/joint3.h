/* model/joint3.h -- joints between spatial rigid bodies of a dim = 3 world
 * (included by model/rigid3d.h; joint3.c defines them and their rows,
 * integrate/joints3.c assembles them in the step, nonsmooth/joint3_block.c
 * solves them inside the 3D Gauss--Seidel sweep). docs/theory/spatial.md,
 * "Joints". */
#ifndef RC_MODEL_JOINT3_H
#define RC_MODEL_JOINT3_H

#define RCM_J3_MAXROWS 6

/* One joint: its definition in the bodies' frames and, during a step, its
 * rows u = Ha va + Hb vb (H at q_k), kappa Mhat^-1 H^T (MH), the Delassus
 * block W = H kappa Mhat^-1 H^T factorised (LU with partial pivoting), the
 * impulse lambda (on B along the rows, the opposite on A; the warm start of
 * the next step) */
typedef struct rcm_joint3 {
    int type, body_a, body_b, rows;
    char *name;
    double pa[3], pb[3];      /* anchors in A's and B's frames (world for the ground) */
    double ua[3], ub[3];      /* revolute: the hinge axis in A's and B's frames */
    double qrel[4];           /* fixed: q_A^-1 q_B at creation (q_B's at creation for the ground) */
    double length;            /* distance: |P_B - P_A| at creation */
    /* prescribed motion (joint3_drive.c): the driven row (revolute: the angle
     * about the axis, prismatic: the slide along it, each from the pose at
     * creation plus offset = f(t_0); distance: the length) follows f(t) */
    int drive;                /* 1: driven (revolute, prismatic: one more row, the last; distance: its row) */
    rc_motion_fn motion;
    void *motion_user;
    double offset;
    double gt[RCM_J3_MAXROWS];   /* dg/dt of the rows at the step's rate time (0 but the driven row) */
    /* motor (joint3_motor.c, rc_joint3_set_motor): a row on the coordinate,
     * H V = target with |impulse| <= h max, solved after the joint's block */
    int motor;
    double motor_speed, motor_max, motor_lambda, motor_work, motor_target, motor_W;
    double mHa[6], mHb[6], mMHa[6], mMHb[6];
    double Ha[RCM_J3_MAXROWS][6], Hb[RCM_J3_MAXROWS][6], MHa[RCM_J3_MAXROWS][6], MHb[RCM_J3_MAXROWS][6];
    double LU[RCM_J3_MAXROWS * RCM_J3_MAXROWS];
    int piv[RCM_J3_MAXROWS];
    double lambda[RCM_J3_MAXROWS];
    double work;              /* u_{k+theta} . lambda of the last step (W_J) */
    double viol;              /* |g| after the last step */
} rcm_joint3;

typedef struct rcm_j3 {
    rcm_joint3 *j;
    int n, cap;
    int fresh;      /* a driven joint created: the next step starts by rcm_joints3_start */
    double wstart;  /* the energy the start changed (booked in the step's W_J) */
} rcm_j3;

/* The rows of joint j at the positions q (world directions; body-frame
 * angular velocity as rcc_jacobian3d): Ha (NULL rows for the ground are
 * left zero), Hb, and the position-level violation g (rows), the function
 * whose time derivative the rows are at g = 0. */
void rcm_joint3_rows(const rc_world *w, const rcm_joint3 *j, const double *q, double Ha[][6], double Hb[][6], double *g);
/* Gauss--Seidel projections (project_joints): positions onto g = 0 in the
 * metric of M (x += M^-1 H^T nu, the body-frame rotation vector likewise),
 * then the velocities v onto H(q) v = 0; the largest |g| and |H v| after */
/* the same at the poses xa (7; the ground: identity) and xb */
/* (a driven joint's row holds its coordinate there, not minus f(t): rcm_joint3_eval) */
void rcm_joint3_rows_at(const rcm_joint3 *j, const double *xa, const double *xb, double Ha[][6], double Hb[][6], double *g);
/* joint3_drive.c: the rows at the poses xa, xb and time t with the drive:
 * g(q, t) (a revolute joint's angle row wrapped into (-pi, pi]) and, gt not
 * NULL, dg/dt (rows; -f'(t) on the driven row) */
rc_status rcm_joint3_eval(const rcm_joint3 *j, const double *xa, const double *xb, double t, double Ha[][6], double Hb[][6],
                          double *g, double *gt);
/* the same at the world's positions q (7 per body) */
rc_status rcm_joint3_eval_q(const rc_world *w, const rcm_joint3 *j, const double *q, double t, double Ha[][6], double Hb[][6],
                            double *g, double *gt);
/* f(t) and f'(t) of a driven joint (central differences when the motion
 * gives no rate), checked finite */
rc_status rcm_joint3_motion(const rcm_joint3 *j, double t, double *f, double *df);
/* at creation: the drive's checks and offset (w->t, the poses of now) */
rc_status rcm_joint3_drive_init(rc_world *w, rcm_joint3 *j, const rc_joint3_def *def);
/* the joint's coordinate at q (revolute: the angle about the axis, wrapped
 * into (-pi, pi] + offset; prismatic: the slide + offset; distance: the
 * length; 0 for the others) */
double rcm_joint3_coordinate(const rc_world *w, const rcm_joint3 *j, const double *q);
/* the coordinate's row at the poses xa, xb (its rate: ha . v_A + hb . v_B) */
void rcm_joint3_coord_row(const rcm_joint3 *j, const double *xa, const double *xb, double ha[6], double hb[6]);
/* a side's pose in q (7; the ground: the identity) */
const double *rcm_joint3_pose(const rc_world *w, int body, const double *q);
/* at time t (the driven rows' f(t), f'(t)) */
rc_status rcm_joints3_project(rc_world *w, double t, double *q, double *v, double *gmax, double *umax);
/* a consistent start for driven joints (j3->fresh; Moreau--Jean, MJF,
 * Maury): the velocities projected onto H v + dg/dt = 0 at t_k before the
 * step (a drive started from rest then follows its function without the
 * lag (1 - theta) h [v] of an impulse inside the first step), the energy
 * change kept in j3->wstart for the step's W_J */
rc_status rcm_joints3_start(rc_world *w);
/* the largest |g| and |H v + dg/dt| of the joints at (q, v, t) */
rc_status rcm_joints3_violation(rc_world *w, double t, const double *q, const double *v, double *gmax, double *umax);
/* A (n x n, row-major) <- its LU factors with partial pivoting (piv);
 * 0 if singular. x <- A^-1 x from the factors. */
int rcm_j3_lu(double *A, int n, int *piv);
void rcm_j3_lu_solve(const double *LU, const int *piv, int n, double *x);
void rcm_j3_free(rc_world *w);

#endif /* RC_MODEL_JOINT3_H */
