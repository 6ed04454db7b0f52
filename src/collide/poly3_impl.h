/*
 * collide/poly3_impl.h -- what the convex-polyhedron files share (poly3.c:
 * world copies, the axes, face and edge contacts, the pair; poly3_box.c: the
 * box as a polyhedron, its world copies kept, its edge query). Not for other
 * files.
 */
#ifndef RC_COLLIDE_POLY3_IMPL_H
#define RC_COLLIDE_POLY3_IMPL_H

#include "collide/narrow3d_impl.h"

enum { BOX_NE = 12 };

/* A box's world copy and its arcs (poly3_box.c, rcc_p3_box_world) */
typedef struct box_world box_world;
struct box_world {
    double key[10];   /* half, p, q */
    double v[8][3], pl[6][4], c[3], r, u[BOX_NE][3], un[BOX_NE], g[BOX_NE][3];
    int full, has_arcs;   /* the arcs are computed when first needed (not for a pair apart) */
};

/* a polyhedron in world coordinates */
typedef struct {
    const rcc_poly3 *s;
    double v[RCC_POLY3_MAX_V][3], pl[RCC_POLY3_MAX_F][4];
    double c[3], r;      /* the mean of the vertices, the largest distance to it */
    box_world *bw;       /* a box's world copy with its edges' arcs (rcc_p3_box_world), else NULL */
} wpoly;

/* The Gauss-map arcs of the edges (poly3.c, edge_query) */
enum { EDGE_MAX = RCC_POLY3_MAX_V + RCC_POLY3_MAX_F - 2 };
typedef struct {
    double u[EDGE_MAX][3], un[EDGE_MAX], g[EDGE_MAX][3];
    double side[EDGE_MAX * RCC_POLY3_MAX_F];
} arcs;

/* the best edge pair so far: its separation, axis and edges (-1: none) */
typedef struct {
    double sep, axis[3];
    int ea, eb;
} edge_best;

/* poly3.c: the world copy of s at pose p; edge i's direction u, |u| and arc g
 * (normals times sg); the arcs of w's edges into A; the pair of edges i of a
 * and j of b (a Minkowski face) into r */
void rcc_p3_to_world(wpoly *w, const rcc_poly3 *s, const rcc_pose3 *p);
void rcc_p3_edge_arc(const wpoly *w, int i, double sg, double u[3], double *un, double g[3]);
void rcc_p3_edge_arcs(const wpoly *w, int negate, arcs *A);
void rcc_p3_edge_pair(const wpoly *a, const arcs *A, int i, const wpoly *b, const arcs *B, int j, edge_best *r);
/* poly3.c: the separation of b from face f of a, min over b's vertices of n.v - d */
double rcc_p3_face_sep(const wpoly *a, int f, const wpoly *b);

/* poly3_box.c: the world copy of box s (half sizes half) at pose p, from the
 * thread's table (not evicting keep's entry); the edge query of two boxes so
 * copied (A, B: the arcs' storage); */
void rcc_p3_box_world(wpoly *w, const rcc_poly3 *s, const double half[3], const rcc_pose3 *p, const box_world *keep);
void rcc_p3_box_edge_query(const wpoly *a, arcs *A, const wpoly *b, arcs *B, edge_best *r);
/* s[f]: the least n.v - d over b's vertices for each face f of box a (face_query's numbers) */
void rcc_p3_box_face_seps(const wpoly *a, const wpoly *b, double s[6]);

#endif /* RC_COLLIDE_POLY3_IMPL_H */
