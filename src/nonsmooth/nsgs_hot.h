/* nsgs_hot.h -- the hot record of a planar contact in NSGS's solve order
 * (nsgs_pack.c builds and sweeps them, nsgs_simd.c four at a time):
 * internal to src/nonsmooth. */
#ifndef RCN_NSGS_HOT_H
#define RCN_NSGS_HOT_H

struct rcn_c2hot {
    double n[2];            /* the unit normal: B's translational rows (n, t = (n_y, -n_x)); A's: minus */
    double rb[2], ra[2];    /* Hr[1][.] (B) and Hr[0][.] (A): the rows' rotational entries */
    double W[4];            /* the Delassus block, by rows                   */
    double inv[3];          /* its reciprocals (nonsmooth.h rcn_fc2d_recip)   */
    double shift[2], p[2];
    double mu;
    int ivb, iva;           /* offsets in V; iva < 0: the ground              */
};

_Static_assert(sizeof(struct rcn_c2hot) == RCM_HOT2_BYTES, "the planar hot record's size (model.h reserves them)");

#endif
