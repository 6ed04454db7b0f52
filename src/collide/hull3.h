/*
 * collide/hull3.h -- the convex hull of a point set in 3D and the mass
 * properties of a convex polyhedron (not public; docs/theory/polyhedra.md).
 *
 * rcc_hull3 builds the hull incrementally (the farthest point outside the
 * current hull first, as quickhull does: Barber, Dobkin & Huhdanpaa 1996),
 * then merges coplanar triangles into polygonal faces and drops vertices that
 * lie inside a face or on an edge. The result is in the layout of the
 * narrow phase's convex polyhedra: vertices, faces as counter-clockwise
 * vertex loops (seen from outside) with their planes n.x = d (n outward,
 * unit), and the unique edges with the faces on either side. Everything
 * lives in the caller's rcc_hull3 (no allocation).
 *
 * Tolerances: points closer than tol to each other are one point, points
 * within tol of the hull (outside) are inside it, triangles whose planes
 * agree to tol are one face; tol = 1e-9 of the points' extent when the
 * caller gives 0.
 */
#ifndef RC_COLLIDE_HULL3_H
#define RC_COLLIDE_HULL3_H

#include "base/base.h"

enum {
    RCC_HULL3_MAX_V = 64,                        /* hull vertices           */
    RCC_HULL3_MAX_F = 64,                        /* faces (after merging)   */
    RCC_HULL3_MAX_T = 2 * RCC_HULL3_MAX_V - 4,   /* triangles while building */
    RCC_HULL3_MAX_E = RCC_HULL3_MAX_V + RCC_HULL3_MAX_F - 2,
    RCC_HULL3_MAX_LOOP = 3 * RCC_HULL3_MAX_T     /* the loops' total length */
};

typedef struct {
    int nv, nf, ne;
    double v[3 * RCC_HULL3_MAX_V];                /* vertices                     */
    int src[RCC_HULL3_MAX_V];                     /* each vertex's input index    */
    double plane[4 * RCC_HULL3_MAX_F];            /* n[3], d per face             */
    int fstart[RCC_HULL3_MAX_F + 1];              /* face f: loop[fstart[f] ..]   */
    int loop[RCC_HULL3_MAX_LOOP];                 /* vertex indices, CCW outside  */
    int edge[4 * RCC_HULL3_MAX_E];                /* v0, v1, f0 (v0->v1 in its loop), f1 */
    int interior;                                 /* input points strictly inside */
    int merged;                                   /* input points merged as duplicates or on the surface */
    /* work space of the construction */
    int tri[3 * RCC_HULL3_MAX_T];
    double tplane[4 * RCC_HULL3_MAX_T];
    int ntri;
} rcc_hull3;

/* the hull of n points (xyz, 3 n doubles); tol <= 0: 1e-9 of their extent.
 * Errors (RC_ERR_ARG, with a message): fewer than 4 distinct points, all on
 * a line or a plane (no volume), more than RCC_HULL3_MAX_V hull vertices or
 * RCC_HULL3_MAX_F faces, a non-finite coordinate. */
rc_status rcc_hull3_build(const double *pts, int n, double tol, rcc_hull3 *h);

/* volume V, centroid c and the inertia tensor J (3x3, row-major) about c of
 * the solid hull at unit density (mass = V): the divergence theorem over a
 * fan of tetrahedra from the centroid of the vertices (the covariance of a
 * tetrahedron, e.g. Tonon 2004, J. Math. Stat. 1, 8-11) */
void rcc_hull3_mass(const rcc_hull3 *h, double *V, double c[3], double J[9]);

#endif /* RC_COLLIDE_HULL3_H */
