#!/usr/bin/python3
"""Benchmark: the disks_in_box scene (scripts/bench/disks_in_box.lua) in Siconos 4.4.

Debian python3-siconos, its own 2D disk bodies and relations (siconos.mechanics.collision:
Disk, DiskDiskR, DiskPlanR) with the SpaceFilter broad phase of the native 2D examples;
MoreauJeanOSI theta = 1/2, FrictionContact(2) solved by NSGS (tolerance 1e-4, at most 100
iterations), NewtonImpactFrictionNSL e = 0, mu = 0.3, h = 1e-3, one Newton iteration per
step (the classical Moreau-Jean scheme: one friction problem per step, as in Ricochet).

The initial state is read from the file written by scripts/bench/disks_scene.lua (the same
numbers as Ricochet's script):

    build/ricochet run scripts/bench/disks_scene.lua --quiet --set N=1000 --set out=/tmp/scene.txt
    /usr/bin/python3 scripts/bench/siconos_disks.py /tmp/scene.txt --budget 120 --T 1

Runs steps until T or until the CPU budget (seconds of time.process_time spent in steps) is
used, and prints the CPU per step, the contact counts and the solver's iterations.
"""
import os

# one thread, as the other codes: OpenBLAS's worker threads otherwise spin (sched_yield) and
# their CPU time is counted in time.process_time()
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import math
import sys
import time

import numpy as np

import siconos.kernel as sk
import siconos.numerics as sn
from siconos.mechanics.collision.bodies import Disk
from siconos.mechanics.collision.native import SpaceFilter


def read_scene(path):
    with open(path) as f:
        head = f.readline().split()
        n, c, width, g, mu, h, seed = int(head[0]), int(head[1]), float(head[2]), \
            float(head[3]), float(head[4]), float(head[5]), int(head[6])
        ekin, epot = (float(x) for x in f.readline().split())
        disks = np.loadtxt(f, ndmin=2)
    assert disks.shape == (n, 5), disks.shape
    return dict(N=n, c=c, width=width, g=g, mu=mu, h=h, seed=seed, ekin=ekin, epot=epot,
                disks=disks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scene", help="file written by scripts/bench/disks_scene.lua")
    ap.add_argument("--T", type=float, default=1.0, help="end time (default 1)")
    ap.add_argument("--budget", type=float, default=120.0,
                    help="stop after this many CPU seconds of stepping (default 120)")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--cellsize", type=int, default=1,
                    help="SpaceFilter cell size (an integer in Siconos 4.4; default 1)")
    ap.add_argument("--bboxfactor", type=int, default=3,
                    help="SpaceFilter bounding-box factor (times the radius; default 3)")
    ap.add_argument("--newton-max-iter", type=int, default=1)
    ap.add_argument("--every", type=int, default=0, help="print a progress line every n steps")
    a = ap.parse_args()

    sc = read_scene(a.scene)
    n, h, g, width = sc["N"], sc["h"], sc["g"], sc["width"]
    t_setup = time.process_time()

    nsds = sk.NonSmoothDynamicalSystem(0.0, a.T)
    bodies = []
    fexts = []
    ekin = epot = 0.0
    for r, x, y, vx, vy in sc["disks"]:
        m = math.pi * r * r          # density 1; Disk's inertia is m r^2 / 2, as in Ricochet
        d = Disk(r, m, np.array([x, y, 0.0]), np.array([vx, vy, 0.0]))
        fext = np.array([0.0, -m * g, 0.0])
        d.setFExtPtr(fext)
        fexts.append(fext)
        nsds.insertDynamicalSystem(d)
        bodies.append(d)
        ekin += 0.5 * m * (vx * vx + vy * vy)
        epot += m * g * y
    # same state as Ricochet's script: the energies agree to rounding
    assert abs(ekin - sc["ekin"]) <= 1e-12 * abs(sc["ekin"]) + 1e-300
    assert abs(epot - sc["epot"]) <= 1e-12 * abs(sc["epot"])

    # the box: rows (A, B, C, xCenter, yCenter, width) of lines A x + B y + C = 0;
    # width 0 is an infinite line (DiskPlanR)
    plans = np.array([[0.0, 1.0, 0.0, 0.0, 0.0, 0.0],       # floor y = 0
                      [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],       # left wall x = 0
                      [1.0, 0.0, -width, 0.0, 0.0, 0.0]])   # right wall x = width

    osi = sk.MoreauJeanOSI(0.5)
    osnspb = sk.FrictionContact(2, sn.SICONOS_FRICTION_2D_NSGS)
    so = osnspb.numericsSolverOptions()
    so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = a.max_iter
    so.dparam[sn.SICONOS_DPARAM_TOL] = a.tol
    osnspb.setMaxSize(16384)
    osnspb.setMStorageType(sn.NM_SPARSE_BLOCK)
    osnspb.setKeepLambdaAndYState(True)       # warm start, as Ricochet
    osnspb.setNumericsVerboseMode(False)

    td = sk.TimeDiscretisation(0.0, h)
    sim = sk.TimeStepping(nsds, td, osi, osnspb)
    sim.setNewtonMaxIteration(a.newton_max_iter)
    sim.setWarnOnNonConvergence(False)

    nslaw = sk.NewtonImpactFrictionNSL(0.0, 0.0, sc["mu"], 2)
    sf = SpaceFilter(a.bboxfactor, a.cellsize, plans)
    sf.insertNonSmoothLaw(nslaw, 0, 0)
    sim.insertInteractionManager(sf)

    # the solver's iterations and final residual of each step (one friction problem per step
    # with one Newton iteration), read from its options after the step
    stats = dict(max_iter=0, sum_iter=0, failures=0, capped=0, solves=0, max_res=0.0)

    def record():
        it = so.iparam[sn.SICONOS_IPARAM_ITER_DONE]
        res = so.dparam[sn.SICONOS_DPARAM_RESIDU]
        if osnspb.getSizeOutput() == 0:     # no active contact: no problem solved
            return
        stats["solves"] += 1
        stats["sum_iter"] += it
        stats["max_iter"] = max(stats["max_iter"], it)
        stats["max_res"] = max(stats["max_res"], res)
        if res > a.tol:
            stats["failures"] += 1
        if it >= a.max_iter:
            stats["capped"] += 1

    t_setup = time.process_time() - t_setup

    nsteps_max = int(math.floor(a.T / h + 0.5))
    steps = 0
    cpu = 0.0
    while steps < nsteps_max and cpu < a.budget:
        c0 = time.process_time()
        sim.computeOneStep()
        sim.nextStep()
        cpu += time.process_time() - c0
        steps += 1
        record()
        if a.every and steps % a.every == 0:
            print(f"  step {steps}: {1e3 * cpu / steps:.1f} ms/step, "
                  f"{osnspb.getSizeOutput() // 2} active, "
                  f"{len(nsds.topology().indexSet0().interactions())} interactions", flush=True)

    ninter = len(nsds.topology().indexSet0().interactions())
    nactive = osnspb.getSizeOutput() // 2
    q = np.array([b.q()[:2] for b in bodies])
    print(f"siconos_disks: N = {n}, {steps} steps (t = {steps * h:.3f} of {a.T}), "
          f"cpu {cpu:.3f} s ({1e3 * cpu / steps:.3f} ms/step), set-up {t_setup:.2f} s; "
          f"last step: {ninter} interactions (SpaceFilter), {nactive} active; "
          f"NSGS: max {stats['max_iter']} iterations, mean {stats['sum_iter'] / max(1, stats['solves']):.1f}, "
          f"{stats['capped']} of {stats['solves']} solves hit the cap, {stats['failures']} above the tolerance "
          f"(max residual {stats['max_res']:.3g}); "
          f"lowest y {q[:, 1].min():.4f}, mean y {q[:, 1].mean():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
