/* nsgs3_hot.h -- the hot record of a 3D contact in NSGS's solve order
 * (nsgs3_pack.c builds and sweeps them; nsgs3.c's quiet-contact sweep
 * reads their bodies): internal to src/nonsmooth. */
#ifndef RCN_NSGS3_HOT_H
#define RCN_NSGS3_HOT_H

struct rcn_c3hot {
    double d[9];            /* n, t1, t2: B's translational rows (A's: -d)  */
    double Rb[9], Ra[9];    /* the rows' rotational parts (Ra unused: ground) */
    double W[9], Winv[9];
    double shift[3], p[3];
    double mu, sb, sa;      /* sb = 1/m_B kappa, sa = -(1/m_A kappa)         */
    const double *Ab, *Aa;  /* the bodies' Ainv (rigid3d.h)                 */
    int ivb, iva;           /* offsets in V; iva < 0: the ground            */
    int bb, ba;             /* the bodies' indices; ba < 0: the ground      */
    int winv_ok, i;         /* i: the contact's index in c3->c              */
};

#endif
