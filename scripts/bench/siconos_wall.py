#!/usr/bin/python3
"""Benchmark: the rockfall on a masonry wall (scripts/papers/acary2024_rockfall.lua) in Siconos 4.4.

Debian python3-siconos with its Bullet-based detection (siconos.mechanics.collision.bullet:
SiconosBulletCollisionManager, RigidBodyDS -- Newton-Euler bodies with a quaternion, as Ricochet's
spatial bodies -- SiconosBox and SiconosConvexHull contactors, the io module's default margins:
inside margin 2 % of the smallest size, outside margin 0, Bullet's contact breaking threshold
0.02); MoreauJeanOSI theta = 1/2, FrictionContact(3) by NSGS (SICONOS_FRICTION_3D_NSGS, the
scene's tolerance, at most --max-iter iterations), NewtonImpactFrictionNSL e, mu of the scene,
one Newton iteration per step (one friction problem per step, as in Ricochet), warm start, one
thread. The ground is a static box (top face z = 0), the slope a static convex hull of the
wedge's six points, as in Ricochet's script.

The scene (the same numbers as Ricochet's run) is written by the paper script:

    build/ricochet run scripts/papers/acary2024_rockfall.lua --quiet --set T=0.0005 --set scene=/tmp/rf.txt
    /usr/bin/python3 scripts/bench/siconos_wall.py /tmp/rf.txt --T 0.05 --budget 120

Runs steps until T or until the CPU budget (seconds of time.process_time spent in steps) is
used. The largest penetration is read after each step (outside the timed part) from the gaps
y(0) of the interactions Bullet reports. Printed: one "siconos_wall:" line, key=value.
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import math
import sys
import time

import numpy as np

import siconos.kernel as sk
import siconos.numerics as sn
from siconos.mechanics.collision import SiconosBox, SiconosConvexHull, SiconosContactor, SiconosContactorSet
from siconos.mechanics.collision.bullet import SiconosBulletCollisionManager, SiconosBulletOptions, RigidBodyDS


def read_scene(path):
    with open(path) as f:
        head = f.readline().split()
        assert head[0] == "rockfall_scene", head
        nb = int(head[1])
        g, e, mu, h, theta, tol, rho, foot, top, t_create = (float(x) for x in head[2:12])
        blocks, rock, points = [], None, []
        for line in f:
            w = line.split()
            if w[0] == "B":
                blocks.append([float(x) for x in w[1:7]])
            elif w[0] == "R":
                rock = [float(x) for x in w[1:18]]
            elif w[0] == "P":
                points.append([float(x) for x in w[1:4]])
    assert len(blocks) == nb and rock is not None and len(points) >= 4
    return dict(g=g, e=e, mu=mu, h=h, theta=theta, tol=tol, rho=rho, foot=foot, top=top,
                blocks=blocks, rock=rock, points=np.array(points))


def contactor_set(shape, margin):
    shape.setInsideMargin(margin)
    shape.setOutsideMargin(0.0)
    cs = SiconosContactorSet()
    cs.append(SiconosContactor(shape))
    return cs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scene", help="file written by scripts/papers/acary2024_rockfall.lua (scene=)")
    ap.add_argument("--T", type=float, default=0.05, help="end time (default 0.05)")
    ap.add_argument("--budget", type=float, default=120.0,
                    help="stop after this many CPU seconds of stepping (default 120)")
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--every", type=int, default=0, help="print a progress line every n steps")
    a = ap.parse_args()

    sc = read_scene(a.scene)
    h, g = sc["h"], sc["g"]
    t_setup = time.process_time()
    nsds = sk.NonSmoothDynamicalSystem(0.0, a.T)
    opts = SiconosBulletOptions()
    man = SiconosBulletCollisionManager(opts)
    man.insertNonSmoothLaw(sk.NewtonImpactFrictionNSL(sc["e"], 0.0, sc["mu"], 3), 0, 0)

    bodies, fexts, epot = [], [], 0.0
    for hx, hy, hz, x, y, z in sc["blocks"]:
        m = sc["rho"] * 8 * hx * hy * hz
        inertia = np.diag([m / 3 * (hy * hy + hz * hz), m / 3 * (hx * hx + hz * hz), m / 3 * (hx * hx + hy * hy)])
        b = RigidBodyDS([x, y, z, 1.0, 0.0, 0.0, 0.0], [0.0] * 6, m, inertia)
        b.setUseContactorInertia(False)
        b.setContactors(contactor_set(SiconosBox(2 * hx, 2 * hy, 2 * hz), 0.02 * 2 * min(hx, hy, hz)))
        fext = np.array([0.0, 0.0, -m * g])
        b.setFExtPtr(fext)
        fexts.append(fext)
        nsds.insertDynamicalSystem(b)
        bodies.append(b)
        epot += m * g * z
    r = sc["rock"]
    m, J, q, v = r[0], r[1:4], r[4:11], r[11:17]
    pts = sc["points"]
    rock = RigidBodyDS(list(q), list(v), m, np.diag(J))
    rock.setUseContactorInertia(False)
    ext = pts.max(axis=0) - pts.min(axis=0)
    rock.setContactors(contactor_set(SiconosConvexHull(pts), 0.02 * float(ext.min())))
    fext = np.array([0.0, 0.0, -m * g])
    rock.setFExtPtr(fext)
    nsds.insertDynamicalSystem(rock)

    # static ground (a box whose top face is z = 0) and the 45-degree wedge
    man.insertStaticContactorSet(contactor_set(SiconosBox(400.0, 400.0, 2.0), 0.04), [0.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0])
    if sc["top"] > sc["foot"]:
        L, Y = sc["top"] - sc["foot"], 15.0
        wedge = np.array([[0, -Y, 0], [L, -Y, 0], [L, -Y, L], [0, Y, 0], [L, Y, 0], [L, Y, L]], dtype=float)
        man.insertStaticContactorSet(contactor_set(SiconosConvexHull(wedge), 0.02 * L),
                                     [sc["foot"], 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    osi = sk.MoreauJeanOSI(sc["theta"])
    osnspb = sk.FrictionContact(3, sn.SICONOS_FRICTION_3D_NSGS)
    so = osnspb.numericsSolverOptions()
    so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = a.max_iter
    so.dparam[sn.SICONOS_DPARAM_TOL] = sc["tol"]
    osnspb.setMaxSize(65536)
    osnspb.setMStorageType(sn.NM_SPARSE_BLOCK)
    osnspb.setKeepLambdaAndYState(True)
    osnspb.setNumericsVerboseMode(False)
    td = sk.TimeDiscretisation(0.0, h)
    sim = sk.TimeStepping(nsds, td, osi, osnspb)
    sim.setNewtonMaxIteration(1)
    sim.setWarnOnNonConvergence(False)
    sim.insertInteractionManager(man)

    stats = dict(max_iter=0, sum_iter=0, failures=0, capped=0, solves=0, max_res=0.0, sum_active=0)
    t_setup = time.process_time() - t_setup
    nsteps_max = int(math.floor(a.T / h + 0.5))
    steps, cpu, wall, pen, wall_speed = 0, 0.0, 0.0, 0.0, 0.0
    while steps < nsteps_max and cpu < a.budget:
        c0, w0 = time.process_time(), time.perf_counter()
        sim.computeOneStep()
        sim.nextStep()
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        steps += 1
        if osnspb.getSizeOutput() > 0:
            it = so.iparam[sn.SICONOS_IPARAM_ITER_DONE]
            res = so.dparam[sn.SICONOS_DPARAM_RESIDU]
            stats["solves"] += 1
            stats["sum_iter"] += it
            stats["sum_active"] += osnspb.getSizeOutput() // 3
            stats["max_iter"] = max(stats["max_iter"], it)
            stats["max_res"] = max(stats["max_res"], res)
            stats["failures"] += res > sc["tol"]
            stats["capped"] += it >= a.max_iter
        for inter in nsds.topology().indexSet0().interactions():
            pen = max(pen, -inter.y(0)[0])
        for b in bodies:
            wall_speed = max(wall_speed, float(np.abs(np.asarray(b.velocity())).max()))
        if a.every and steps % a.every == 0:
            print(f"  step {steps}: {1e3 * cpu / steps:.1f} ms/step, {osnspb.getSizeOutput() // 3} active, "
                  f"penetration {pen:.3g}, wall speed {wall_speed:.3g}", flush=True)
    ninter = len(nsds.topology().indexSet0().interactions())
    print(f"siconos_wall: bodies={len(bodies) + 1} steps={steps} t={steps * h:.4f} T={a.T} "
          f"cpu_ms_per_step={1e3 * cpu / max(1, steps):.3f} wall_ms_per_step={1e3 * wall / max(1, steps):.3f} "
          f"setup_s={t_setup:.2f} interactions_last={ninter} "
          f"active_per_step={stats['sum_active'] / max(1, steps):.1f} "
          f"iters_per_step={stats['sum_iter'] / max(1, stats['solves']):.2f} max_iters={stats['max_iter']} "
          f"capped={stats['capped']} above_tol={stats['failures']} max_residual={stats['max_res']:.3g} "
          f"max_penetration={pen:.4g} wall_max_speed={wall_speed:.4g} epot0={epot:.6g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
