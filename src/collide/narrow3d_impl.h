/*
 * collide/narrow3d_impl.h -- what the spatial narrow phase's files share
 * (narrow3d.c: frames, Jacobian, AABBs, the plane, sphere and capsule pairs,
 * the dispatch; narrow3d_box.c: the box pairs). Not for other files.
 */
#ifndef RC_COLLIDE_NARROW3D_IMPL_H
#define RC_COLLIDE_NARROW3D_IMPL_H

#include "collide/geom3d.h"

/* Points of the multi-point pairs (capsule-plane, box-plane, parallel
 * capsules, a capsule parallel to a box face) whose gap exceeds the margin by
 * round-off alone are kept: a box face lying exactly on a plane gives its
 * four vertices (slop relative to the pair's size). */
#define SLOP 1e-12
/* Axes with sin^2 of their angle below this are parallel: two points (the
 * ends of their overlap) instead of one. */
#define PARALLEL_SIN2 1e-10
/* the body z axis (a capsule's) */
#define EZ ((const double[3]){ 0.0, 0.0, 1.0 })

static inline int capsule_feature(double t, double h)
{
    return t <= -h ? RCC_F_END0 : t >= h ? RCC_F_END1 : RCC_F_SIDE;
}
static inline double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* narrow3d.c: one point from its surface points, normal and gap (its frame
 * from n); a unit vector normal to the unit u */
void rcc_g3_set_point(rcc_point3 *o, const double pa[3], const double pb[3], const double n[3], double g, int fa, int fb);
void rcc_g3_normal_to(double r[3], const double u[3]);

/* narrow3d_box.c: sphere A / capsule A against box B */
void rcc_g3_sphere_box(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                       double margin, rcc_manifold3 *m);
void rcc_g3_capsule_box(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                        double margin, rcc_manifold3 *m);

/* poly3.c: box A against box B (as polyhedra) */
void rcc_g3_box_box(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                    double margin, rcc_manifold3 *m);

/* narrow3d_poly.c: plane, sphere, capsule, box or polyhedron A against
 * polyhedron B; a posed polyhedron's world AABB */
#define RCC_G3_POLY_PAIR(name) void name(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, \
                                        const rcc_pose3 *pb, double margin, rcc_manifold3 *m)
RCC_G3_POLY_PAIR(rcc_g3_plane_poly);
RCC_G3_POLY_PAIR(rcc_g3_sphere_poly);
RCC_G3_POLY_PAIR(rcc_g3_capsule_poly);
RCC_G3_POLY_PAIR(rcc_g3_box_poly);
RCC_G3_POLY_PAIR(rcc_g3_poly_poly);
void rcc_g3_poly_aabb(const rcc_poly3 *P, const rcc_pose3 *pose, double lo[3], double hi[3]);

#endif /* RC_COLLIDE_NARROW3D_IMPL_H */
