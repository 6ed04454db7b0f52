#!/usr/bin/python3
"""Benchmark: the spheres_in_box scene (scripts/bench/spheres_in_box.lua) in Siconos 4.4.

Debian python3-siconos, its own 3D sphere bodies and relations
(siconos.mechanics.collision.bodies: SphereNEDS -- Newton-Euler bodies with a quaternion, as
Ricochet's spatial bodies -- SphereNEDSSphereNEDSR and SphereNEDSPlanR) with the SpaceFilter
broad phase of the native examples; MoreauJeanOSI theta = 1/2, FrictionContact(3) solved by
NSGS (SICONOS_FRICTION_3D_NSGS, tolerance 1e-4, at most 100 iterations), NewtonImpactFrictionNSL
e = 0, mu = 0.3, h = 1e-3, one Newton iteration per step (the classical Moreau-Jean scheme: one
friction problem per step, as in Ricochet), warm start, one thread (OpenBLAS's too).

The initial state is read from the file written by scripts/bench/spheres_in_box.lua (the same
numbers as Ricochet's script):

    build/ricochet run scripts/bench/spheres_in_box.lua --quiet --set N=1000 --set scene=/tmp/s.txt --set T=0
    /usr/bin/python3 scripts/bench/siconos_spheres.py /tmp/s.txt --budget 120 --T 1

Runs steps until T or until the CPU budget (seconds of time.process_time spent in steps) is
used. The largest overlap is read after each step (outside the timed part) from the gaps
y(0) Siconos computes for its interactions (SpaceFilter's proximity pairs) at the new
positions. Printed: one "siconos_spheres:" line, key=value.
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
from siconos.mechanics.collision.bodies import SphereNEDS
from siconos.mechanics.collision.native import SpaceFilter


def read_scene(path):
    with open(path) as f:
        head = f.readline().split()
        n, c, width, g, mu, h, seed = int(head[0]), int(head[1]), float(head[2]), \
            float(head[3]), float(head[4]), float(head[5]), int(head[6])
        ekin, epot = (float(x) for x in f.readline().split())
        rows = np.loadtxt(f, ndmin=2)
    assert rows.shape == (n, 7), rows.shape
    return dict(N=n, c=c, width=width, g=g, mu=mu, h=h, seed=seed, ekin=ekin, epot=epot, rows=rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scene", help="file written by scripts/bench/spheres_in_box.lua (scene=)")
    ap.add_argument("--T", type=float, default=1.0, help="end time (default 1)")
    ap.add_argument("--budget", type=float, default=120.0,
                    help="stop after this many CPU seconds of stepping (default 120)")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--cellsize", type=int, default=1, help="SpaceFilter cell size (an integer)")
    ap.add_argument("--bboxfactor", type=int, default=3, help="SpaceFilter bounding-box factor")
    ap.add_argument("--overlap-every", type=int, default=1,
                    help="read the interactions' gaps every n steps (0: never)")
    ap.add_argument("--every", type=int, default=0, help="print a progress line every n steps")
    a = ap.parse_args()

    sc = read_scene(a.scene)
    n, h, g, width = sc["N"], sc["h"], sc["g"], sc["width"]
    t_setup = time.process_time()

    nsds = sk.NonSmoothDynamicalSystem(0.0, a.T)
    bodies, fexts = [], []
    ekin = epot = 0.0
    for r, x, y, z, vx, vy, vz in sc["rows"]:
        m = 4.0 / 3.0 * math.pi * r ** 3          # density 1, I = 2/5 m r^2, as in Ricochet
        I = 0.4 * m * r * r * np.eye(3)
        d = SphereNEDS(r, m, I, np.array([x, y, z, 1.0, 0.0, 0.0, 0.0]),
                       np.array([vx, vy, vz, 0.0, 0.0, 0.0]))
        fext = np.array([0.0, 0.0, -m * g])
        d.setFExtPtr(fext)
        fexts.append(fext)
        nsds.insertDynamicalSystem(d)
        bodies.append(d)
        ekin += 0.5 * m * (vx * vx + vy * vy + vz * vz)
        epot += m * g * z
    assert abs(ekin - sc["ekin"]) <= 1e-12 * abs(sc["ekin"])
    assert abs(epot - sc["epot"]) <= 1e-12 * abs(sc["epot"])

    # the box: rows (A, B, C, D) of planes A x + B y + C z + D = 0, (A, B, C) into the box
    plans = np.array([[0.0, 0.0, 1.0, 0.0, 0.0, 0.0],       # floor z = 0
                      [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],       # x = 0
                      [-1.0, 0.0, 0.0, width, 0.0, 0.0],    # x = width
                      [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],       # y = 0
                      [0.0, -1.0, 0.0, width, 0.0, 0.0]])   # y = width

    osi = sk.MoreauJeanOSI(0.5)
    osnspb = sk.FrictionContact(3, sn.SICONOS_FRICTION_3D_NSGS)
    so = osnspb.numericsSolverOptions()
    so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = a.max_iter
    so.dparam[sn.SICONOS_DPARAM_TOL] = a.tol
    osnspb.setMaxSize(65536)
    osnspb.setMStorageType(sn.NM_SPARSE_BLOCK)
    osnspb.setKeepLambdaAndYState(True)
    osnspb.setNumericsVerboseMode(False)

    td = sk.TimeDiscretisation(0.0, h)
    sim = sk.TimeStepping(nsds, td, osi, osnspb)
    sim.setNewtonMaxIteration(1)
    sim.setWarnOnNonConvergence(False)

    nslaw = sk.NewtonImpactFrictionNSL(0.0, 0.0, sc["mu"], 3)
    sf = SpaceFilter(a.bboxfactor, a.cellsize, plans)
    sf.insertNonSmoothLaw(nslaw, 0, 0)
    sim.insertInteractionManager(sf)

    stats = dict(max_iter=0, sum_iter=0, failures=0, capped=0, solves=0, max_res=0.0, sum_active=0)
    overlap = 0.0

    def record():
        if osnspb.getSizeOutput() == 0:
            return
        it = so.iparam[sn.SICONOS_IPARAM_ITER_DONE]
        res = so.dparam[sn.SICONOS_DPARAM_RESIDU]
        stats["solves"] += 1
        stats["sum_iter"] += it
        stats["sum_active"] += osnspb.getSizeOutput() // 3
        stats["max_iter"] = max(stats["max_iter"], it)
        stats["max_res"] = max(stats["max_res"], res)
        if res > a.tol:
            stats["failures"] += 1
        if it >= a.max_iter:
            stats["capped"] += 1

    t_setup = time.process_time() - t_setup
    nsteps_max = int(math.floor(a.T / h + 0.5))
    steps = 0
    cpu = wall = 0.0
    while steps < nsteps_max and cpu < a.budget:
        c0, w0 = time.process_time(), time.perf_counter()
        sim.computeOneStep()
        sim.nextStep()
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        steps += 1
        record()
        if a.overlap_every and steps % a.overlap_every == 0:
            for inter in nsds.topology().indexSet0().interactions():
                gap = inter.y(0)[0]
                if -gap > overlap:
                    overlap = -gap
        if a.every and steps % a.every == 0:
            print(f"  step {steps}: {1e3 * cpu / steps:.1f} ms/step, "
                  f"{osnspb.getSizeOutput() // 3} active, overlap {overlap:.3g}", flush=True)

    ninter = len(nsds.topology().indexSet0().interactions())
    q = np.array([b.q()[:3] for b in bodies])
    print(f"siconos_spheres: N={n} steps={steps} t={steps * h:.3f} T={a.T} cpu_ms_per_step={1e3 * cpu / steps:.4f} "
          f"wall_ms_per_step={1e3 * wall / steps:.4f} setup_s={t_setup:.2f} interactions_last={ninter} "
          f"active_per_step={stats['sum_active'] / max(1, steps):.1f} "
          f"iters_per_step={stats['sum_iter'] / max(1, stats['solves']):.2f} max_iters={stats['max_iter']} "
          f"capped={stats['capped']} solves={stats['solves']} above_tol={stats['failures']} "
          f"max_residual={stats['max_res']:.3g} max_overlap={overlap:.4g} lowest_z={q[:, 2].min():.4f} "
          f"mean_z={q[:, 2].mean():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
