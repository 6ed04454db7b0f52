/*
 * collide/geom3d.h -- spatial contact geometry (not public): shapes in their
 * body frame, poses, the narrow phase of one pair into a manifold of at most
 * four points, the contact Jacobian row of a spatial body, and a 3D cell-grid
 * broad phase (narrow3d.c, narrow3d_box.c, broad3d.c). Pure functions of
 * their arguments (no world, no allocation except the broad phase's
 * grow-only buffers). docs/theory/spatial.md,
 * "Contact geometry", gives every formula.
 *
 * Conventions:
 *   pose: position p (world) and unit quaternion q = (w, x, y, z), body ->
 *         world x = p + R(q) b (base/rot3.h);
 *   sphere:  radius, centred at the body origin;
 *   capsule: radius and half-length along the body z axis (segment from
 *            -half_len e_z to +half_len e_z);
 *   box:     half-extents, centred, axes along the body axes;
 *   plane:   the half-space { x : n.(x - p0) <= 0 } with n the outward normal
 *            (body frame normal, point p0 = the pose's position); a static
 *            obstacle: two planes are never a pair.
 *   contact: n is the unit normal from A to B; pa (on A's surface) and pb (on
 *            B's) are world points; the gap g = n.(pb - pa) (< 0: overlap),
 *            and for one-point pairs pb - pa = g n. (t1, t2, n) is a
 *            right-handed orthonormal frame, a function of n alone
 *            (rcc_tangent_frame). feature = fa | fb << 8 names the features of
 *            A and B that touch (RCC_F_*), unique within a manifold.
 */
#ifndef RC_COLLIDE_GEOM3D_H
#define RC_COLLIDE_GEOM3D_H

#include "base/base.h"
#include "base/rot3.h"

typedef enum { RCC_G3_PLANE = 0, RCC_G3_SPHERE = 1, RCC_G3_CAPSULE = 2, RCC_G3_BOX = 3, RCC_G3_POLY = 4 } rcc_g3_kind;

typedef struct {
    int kind;            /* rcc_g3_kind                                  */
    double radius;       /* sphere, capsule                              */
    double half_len;     /* capsule: half-length along body z            */
    double half[3];      /* box: half-extents along the body axes        */
    double normal[3];    /* plane: outward unit normal in the body frame */
    const struct rcc_poly3 *poly;   /* polyhedron (body frame), else NULL */
} rcc_shape3;

typedef struct {
    double p[3];         /* world position of the body frame's origin */
    double q[4];         /* unit quaternion (w, x, y, z)              */
} rcc_pose3;

/* Features (per body; a point's feature is fa | fb << 8):
 *   sphere, plane: 0;
 *   capsule: RCC_F_END0 (the end at -half_len), RCC_F_END1, RCC_F_SIDE (the
 *            cylinder between them);
 *   box: its Voronoi region of the closest point, 27 codes
 *        9 (sz + 1) + 3 (sy + 1) + (sx + 1) with s = -1, 0, +1 the clamped
 *        side on each axis: a vertex has no 0, an edge one, a face two
 *        (box-plane points are vertices). */
enum { RCC_F_END0 = 0, RCC_F_END1 = 1, RCC_F_SIDE = 2 };
static inline int rcc_box_feature(int sx, int sy, int sz) { return 9 * (sz + 1) + 3 * (sy + 1) + (sx + 1); }

enum { RCC_MAX_POINTS = 4 };

typedef struct {
    double pa[3], pb[3];     /* world points on A's and B's surfaces */
    double n[3];             /* unit normal from A to B              */
    double t1[3], t2[3];     /* tangent frame: (t1, t2, n) right-handed */
    double g;                /* signed gap n.(pb - pa)               */
    int feature;             /* fa | fb << 8                         */
} rcc_point3;

typedef struct {
    int n;                   /* points, 0..RCC_MAX_POINTS */
    rcc_point3 pt[RCC_MAX_POINTS];
} rcc_manifold3;

/* The contact points of shapes a (pose pa) and b (pose pb) whose gap is <=
 * margin, into m (m->n = 0: none, or a pair of kinds not handled). Returns
 * 1 if the pair of kinds is handled, 0 if not (plane-plane). */
int rcc_collide3(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                 double margin, rcc_manifold3 *m);

/* (t1, t2) from the unit n (Frisvad 2012): smooth on the sphere but at
 * n = -e_z, where a fixed frame is used (n_z < -1 + 1e-12). */
void rcc_tangent_frame(const double n[3], double t1[3], double t2[3]);
/* (t1, t2) from n following a previous t1 (t1_prev projected on the tangent
 * plane): continuous in time for a persistent contact; falls back to
 * rcc_tangent_frame when t1_prev is (nearly) along n. */
void rcc_tangent_frame_follow(const double n[3], const double t1_prev[3], double t1[3], double t2[3]);

/* The Jacobian row of a spatial body (v = (v_com world, Omega body)) for the
 * world direction d at the world offset r from its centre of mass:
 * d.(v + R(q)(Omega x R(q)^T r)) = row . v, row = (d, R(q)^T (r x d)). */
void rcc_jacobian3d(const double q[4], const double r_world[3], const double d[3], double row[6]);

/* A shape's world AABB (lo[3], hi[3]); planes get an infinite box. */
void rcc_shape3_aabb(const rcc_shape3 *s, const rcc_pose3 *pose, double lo[3], double hi[3]);

/* ---- poly3.c: convex polyhedra --------------------------------------------
 * A convex polyhedron in its body frame, in contiguous arrays the caller
 * owns (no allocation): nv vertices, nf faces (outward unit normal n and
 * offset d: the face lies in n.x = d, the solid in n.x <= d), each face's
 * vertex loop counter-clockwise seen from outside (loop[fstart[f] ..
 * fstart[f + 1] - 1]) with ledge[j] the edge from loop[j] to the next
 * vertex of the loop, and ne unique edges (vertices v0, v1 and the faces f0,
 * f1 on either side). Features are numbered vertices 0..nv-1, edges nv..,
 * faces nv+ne..; code (nv + ne + nf bytes, NULL: the number) names them in a
 * contact's feature byte, so at most 256 features with code NULL. */
enum { RCC_POLY3_MAX_V = 64, RCC_POLY3_MAX_F = 64, RCC_POLY3_MAX_LOOP = 32 };

typedef struct rcc_poly3 {
    int nv, ne, nf;
    const double *v;              /* 3 nv                       */
    const double *plane;          /* 4 nf: n[3], d              */
    const int *fstart;            /* nf + 1                     */
    const int *loop, *ledge;      /* fstart[nf] each            */
    const int *edge;              /* 4 ne: v0, v1, f0, f1       */
    const unsigned char *code;    /* nv + ne + nf, or NULL      */
} rcc_poly3;

/* a box as a polyhedron: vertex k has bit i set on the + side of axis i;
 * faces -x, +x, -y, +y, -z, +z; codes: rcc_box_feature of the feature's
 * Voronoi region (the codes of the other box pairs) */
typedef struct {
    rcc_poly3 p;
    double v[24], plane[24];
} rcc_box_poly3;
void rcc_poly3_box(const double half[3], rcc_box_poly3 *b);

/* The contact points of polyhedra a (pose pa) and b (pose pb) whose gap is
 * <= margin (docs/theory/spatial.md, "Box-box and convex polyhedra"): the
 * separating axis test over the faces of both and the pairs of edges that
 * form a face of the Minkowski difference, then a face contact (the
 * incident face clipped by the reference face's side planes, at most four
 * points kept by area) or an edge pair (the closest points of the two
 * edges); separated pairs whose closest features are not those of the axis
 * get their single closest point. Returns the separation of the axis
 * chosen (HUGE_VAL, no point, for a polyhedron above RCC_POLY3_MAX_V
 * vertices or RCC_POLY3_MAX_F faces; face loops must not exceed
 * RCC_POLY3_MAX_LOOP vertices, or clipped points are lost). */
double rcc_collide_poly3(const rcc_poly3 *a, const rcc_pose3 *pa, const rcc_poly3 *b, const rcc_pose3 *pb,
                         double margin, rcc_manifold3 *m);
/* Boxes of half sizes ha, hb: rcc_collide_poly3 of their rcc_poly3_box
 * polyhedra, bit for bit, with the world copies of the last boxes met kept
 * (a thread's table keyed by half sizes and pose: a box in several pairs
 * of a step is rotated once). docs/theory/polyhedra.md. */
double rcc_collide_box_box(const double ha[3], const rcc_pose3 *pa, const double hb[3], const rcc_pose3 *pb,
                           double margin, rcc_manifold3 *m);

/* ---- broad3d.c: the 3D cell-grid broad phase ---------------------------- */

/* Grow-only buffers (zero-initialise; rcc_broad3_free releases them). */
typedef struct {
    int *cell;          /* per entry (sorted by bucket): item    */
    int *key;           /* per entry: its cell's 3 coordinates   */
    double *box;        /* per entry: its box (lo[3], hi[3])     */
    int *head;          /* bucket starts (nbucket + 1)           */
    int *big;           /* items spanning too many cells         */
    int *pairs;         /* output: 2 per pair (i < j)            */
    int cap_cell, cap_key, cap_head, cap_box, cap_big, cap_pairs;
    int npairs;
    double h;           /* cell size of the last call */
} rcc_broad3;

/* Every pair (i < j) of the n boxes (box k: lo = aabb + 6 k, hi = aabb + 6 k
 * + 3) whose closed boxes overlap, once each, into b->pairs (b->npairs),
 * in no particular order. Cell size: cell > 0 as given, else 2 x the mean
 * largest extent. O(n) for boxes of bounded size ratio; items wider than 4
 * cells are tested against every item. No allocation once the buffers have
 * grown to the largest n seen (and its pairs). */
rc_status rcc_broad3_pairs(rcc_broad3 *b, int n, const double *aabb, double cell);
void rcc_broad3_free(rcc_broad3 *b);

#endif /* RC_COLLIDE_GEOM3D_H */
