/*
 * collide.c -- contact detection at q_k (planar, dim = 2).
 *
 *   rcc_update_shapes: world-frame caches (centres; polygons: vertices,
 *     outward edge normals, AABB) from w->q.
 *   rcc_detect: broadphase -> candidate shape pairs -> narrowphase
 *     (gap gN, normal n from A to B, contact point, feature) -> Jacobian rows
 *     H = [n_x n_y r x n; t_x t_y r x t] (side A with a minus sign; only the
 *     rotational column r x n, r x t is stored, see rc_contact in model/model.h).
 *
 * Pair order: a ground shape is A; otherwise A is the shape of lower index.
 *
 * Broadphase: a uniform grid, rebuilt every step in O(n). Each shape's AABB is
 * inflated by 0.75 m (two boxes overlap iff the AABBs are within 1.5 m, see
 * detect) and entered in every cell it covers; a pair is tested in the first
 * cell both cover only (the cell of the corner (max x0, max y0)), so it is
 * found once. The cell size is 1.5 x the mean inflated extent of the body
 * shapes, the mean taken over the extents <= 4 x the plain mean (cell_size),
 * doubled while the entries exceed E = 4 n + 64. Cells are buckets themselves
 * (row-major) when the grid's bounding box has at most T cells, else they are
 * hashed into T buckets (T = the power of two >= E); a counting sort groups
 * the entries by bucket. Big shapes are tested against every shape: ground
 * half-planes (by the least N.(x - P) over the other's box) and circular
 * walls (by the largest |x - C| over the other's box), shapes covering
 * more than max(64, n / 8) cells (cheaper that way), shapes too far out for
 * int cell coordinates or not finite. Ground segments are ordinary shapes (a
 * long one covers a row of cells, or is big). Shapes that never touch
 * anything (half-planes and segments on bodies) are left out.
 *
 * Storage, all in w->order (ints; its size depends on n = w->nshapes only),
 * taken from the step's work memory (w->work) with the candidate pairs
 * (w->pairs) and given back after the narrowphase (rcc_narrow_pairs), so that
 * the solver's work later in the step (NSGS's hot records) reuses the bytes;
 * carved as
 *   box  [4 n]      doubles (8 n ints): inflated AABBs
 *   cell [4 n]      cx0 cy0 cx1 cy1, or a mark in cell[4 i] (CELL_*)
 *   body [n]        body of each shape
 *   list [n]        grid shapes from the front, big shapes at the back
 *   start [T + 1]   bucket offsets
 *   ent  [E]        shape << 2 | (first column) << 1 | (first row)
 * (14 n + T + E + 1 ints, about 95 bytes per shape), and the header in
 * w->grid_hdr: n, grid shapes, big shapes, hashed (0/1), entries, buckets,
 * cells in x, cells in y (diagnostics, tests). w->pairs holds the candidate
 * pairs; once they are found, the radix sort that orders them uses w->order
 * as scratch (w->pairs' spare room if it is short).
 *
 * Periodic boundary in x (world def periodic_x = {x0, x1}, L = x1 - x0): the
 * cell size is L / nx for a whole number nx of columns, column indices wrap
 * modulo nx, and a shape covering more than half the columns is big. Every
 * shape but a half-plane is narrower than L / 2 (checked, else an error), so
 * two shapes touch through one image at most: the nearest, B moved by
 * k L (image_shift of their box centres). The narrowphase sees that image
 * (shift_shape) and the Jacobian of B takes its lever arm from the moved
 * centre, so the impulse acts on the real body. Half-planes and circular
 * walls act on the real shapes (no image).
 *
 * Named pairs are added whatever their distance. Candidate pairs (w->pairs)
 * are sorted by (A, B) (radix sort, O(pairs + n)) and features are emitted in
 * increasing order, so the contacts come out sorted by key without sorting
 * the contacts themselves. Nothing is allocated once the work arrays have
 * grown to their steady size.
 */
#include "collide/collide_impl.h"

#include <limits.h>
#include <stddef.h>
#include <math.h>

/* ---------------------------------------------------------------- world-frame caches */

static void update_shape(const rc_world *w, rc_shape *s)
{
    double x = 0.0, y = 0.0, c = 1.0, sn = 0.0;
    if (s->body != RC_GROUND) {
        const double *q = w->q + w->bodies[s->body].iq;
        x = q[0]; y = q[1];
        const int centred = (s->type == RC_SHAPE_DISK || s->type == RC_SHAPE_POINT) && s->offset[0] == 0.0
                            && s->offset[1] == 0.0;
        if (!centred) { c = cos(q[2]); sn = sin(q[2]); }   /* a centred disk's centre does not turn */
    }
    switch (s->type) {
    case RC_SHAPE_DISK:
    case RC_SHAPE_POINT: {   /* the AABB follows from wc and the radius (shape_aabb) */
        double r = round_radius(s);
        s->wc[0] = x + c * s->offset[0] - sn * s->offset[1];
        s->wc[1] = y + sn * s->offset[0] + c * s->offset[1];
        if (s->bound == 0.0) s->bound = hypot(s->offset[0], s->offset[1]) + r;
        break;
    }
    case RC_SHAPE_POLYGON: {
        int n = s->nvert;
        double *bb = rcm_shape_poly_aabb(s);
        bb[0] = bb[1] = INFINITY; bb[2] = bb[3] = -INFINITY;
        for (int i = 0; i < n; i++) {
            double *v = s->wvert[i];
            v[0] = x + c * s->vert[i][0] - sn * s->vert[i][1];
            v[1] = y + sn * s->vert[i][0] + c * s->vert[i][1];
            bb[0] = fmin(bb[0], v[0]); bb[1] = fmin(bb[1], v[1]);
            bb[2] = fmax(bb[2], v[0]); bb[3] = fmax(bb[3], v[1]);
        }
        if (s->bound == 0.0)
            for (int i = 0; i < n; i++) s->bound = fmax(s->bound, hypot(s->vert[i][0], s->vert[i][1]));
        for (int i = 0; i < n; i++) {  /* CCW: outward normal of edge i -> i+1 is (e_y, -e_x)/|e| */
            const double *a = s->wvert[i], *b = s->wvert[(i + 1) % n];
            double ex = b[0] - a[0], ey = b[1] - a[1], L = hypot(ex, ey);
            const double *va = s->vert[i], *vb = s->vert[(i + 1) % n];
            const double fx = vb[0] - va[0], fy = vb[1] - va[1], Lb = hypot(fx, fy);
            if (!(L > 1e-6 * Lb)) {   /* an edge lost to the world frame's rounding (a tiny polygon
                                         far out): the body-frame edge turned (a unit normal) */
                ex = c * fx - sn * fy;
                ey = sn * fx + c * fy;
                L = hypot(ex, ey);
            }
            s->wnorm[i][0] = L > 0.0 ? ey / L : 0.0;
            s->wnorm[i][1] = L > 0.0 ? -ex / L : 0.0;
        }
        break;
    }
    case RC_SHAPE_HALFPLANE:
    case RC_SHAPE_SEGMENT:   /* static: shape_aabb */
    case RC_SHAPE_CIRCLE_INSIDE:
        break;
    }
}

int rcc_team_cap = 0;

void rcc_update_shapes(rc_world *w)
{
    const int n = w->nshapes;
#ifdef _OPENMP
    const int team = rcm_team2(w, n);
#pragma omp parallel for num_threads(2) schedule(static) if(team)
#endif
    for (int k = 0; k < n; k++) update_shape(w, &w->shapes[k]);
}

/* A shape's world-frame AABB (xmin ymin xmax ymax) at the caches' q_k. */
void rcc_shape_aabb(const rc_shape *s, double bb[4])
{
    switch (s->type) {
    case RC_SHAPE_DISK:
    case RC_SHAPE_POINT: {
        double r = round_radius(s);
        bb[0] = s->wc[0] - r; bb[1] = s->wc[1] - r;
        bb[2] = s->wc[0] + r; bb[3] = s->wc[1] + r;
        return;
    }
    case RC_SHAPE_POLYGON:
        memcpy(bb, rcm_shape_poly_aabb(s), 4 * sizeof(double));
        return;
    case RC_SHAPE_SEGMENT: {
        double r = s->radius;
        bb[0] = fmin(s->a[0], s->b[0]) - r; bb[1] = fmin(s->a[1], s->b[1]) - r;
        bb[2] = fmax(s->a[0], s->b[0]) + r; bb[3] = fmax(s->a[1], s->b[1]) + r;
        return;
    }
    case RC_SHAPE_HALFPLANE:
    case RC_SHAPE_CIRCLE_INSIDE:   /* solid outside the circle: unbounded */
        break;
    }
    bb[0] = bb[1] = -INFINITY; bb[2] = bb[3] = INFINITY;
}

rc_status rcc_detect(rc_world *w)
{
    w->ncontacts = 0;
    w->npairs = 0;
    rc_status s = rcc_narrow_pairs(w);
    if (s != RC_OK) w->ncontacts = 0;
    return s;
}

void rcc_wrap(rc_world *w)
{
    if (!rcm_periodic(w)) return;
    const double x0 = w->def.periodic_x[0], x1 = w->def.periodic_x[1], L = x1 - x0;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        if (bd->kind != RC_BODY_RIGID2D) continue;
        double *x = w->q + bd->iq, x_old = x[0];
        if (x_old >= x0 && x_old < x1) continue;
        double xn = x_old - L * floor((x_old - x0) / L);
        if (xn >= x1) xn -= L;   /* rounding of x0 + L - tiny */
        if (xn < x0) xn = x0;
        x[0] = xn;
        /* E_pot = -m g.q: moving by xn - x_old changes it by -m g_x (xn - x_old) */
        w->E_wrap += rcm_body_mass(w, bd) * w->def.gravity[0] * (xn - x_old);
    }
}
