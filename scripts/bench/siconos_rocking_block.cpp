// Benchmark: the rocking block of Acary & Collins-Craft 2024 (section 5.2) in Siconos 4.4,
// the scene of scripts/papers/acary2024_rocking_block.lua, for scripts/bench/rocking_block_peers.
//
// Debian libsiconos-kernel-dev (4.4.0): a LagrangianLinearTIDS q = (x, y, theta) with
// M = diag(m, m, m (b^2 + l^2) / 12), gravity as a constant external force, and the block's four
// corners as LagrangianScleronomousR relations of size 2 (normal gap, tangential row along
// t = (1, 0)) with NewtonImpactFrictionNSL(e, 0, mu); MoreauJeanOSI(theta), FrictionContact(2)
// with SICONOS_FRICTION_2D_NSGS (tolerance and at most 1 000 iterations as Ricochet's script),
// TimeStepping. The relations are C++ (no Python in the step); Siconos's index set takes a
// corner in when its predicted gap g + h/2 g' <= 0 (its default), Ricochet's anticipates too.
//
//   g++ -O2 -o build/siconos_rocking_block scripts/bench/siconos_rocking_block.cpp \
//       -I/usr/include/siconos -lsiconos_kernel -lsiconos_numerics -lsiconos_externals
//   build/siconos_rocking_block [h=1e-4] [T=1] [tol=1e-10]
//
// Prints the CPU and wall time of the steps alone (CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC
// around the loop of computeOneStep/nextStep; building the model is reported apart) and the
// final state, to hold against Ricochet's.
#include <siconos/kernel/SiconosKernel.hpp>
#include <siconos/numerics/SolverOptions.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

static double clock_s(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// a corner at (dx, dy) in the block's frame: y(0) its height above the ground, y(1) its x
class CornerR : public LagrangianScleronomousR {
 public:
  CornerR(double dx, double dy) : LagrangianScleronomousR(), dx_(dx), dy_(dy) {}
  void computeh(const BlockVector &q, BlockVector &z, SiconosVector &y) override {
    const double th = q.getValue(2), c = std::cos(th), s = std::sin(th);
    y.setValue(0, q.getValue(1) + dx_ * s + dy_ * c);
    y.setValue(1, q.getValue(0) + dx_ * c - dy_ * s);
  }
  void computeJachq(const BlockVector &q, BlockVector &z) override {
    const double th = q.getValue(2), c = std::cos(th), s = std::sin(th);
    _jachq->setValue(0, 0, 0.0);
    _jachq->setValue(0, 1, 1.0);
    _jachq->setValue(0, 2, dx_ * c - dy_ * s);
    _jachq->setValue(1, 0, 1.0);
    _jachq->setValue(1, 1, 0.0);
    _jachq->setValue(1, 2, -dx_ * s - dy_ * c);
  }
  void computeDotJachq(const BlockVector &q, BlockVector &z, const BlockVector &qDot) override {
    const double th = q.getValue(2), w = qDot.getValue(2), c = std::cos(th), s = std::sin(th);
    _dotjachq->zero();
    _dotjachq->setValue(0, 2, (-dx_ * s - dy_ * c) * w);
    _dotjachq->setValue(1, 2, (-dx_ * c + dy_ * s) * w);
  }

 private:
  double dx_, dy_;
};

int main(int argc, char **argv) {
  const double h = argc > 1 ? std::atof(argv[1]) : 1e-4;
  const double T = argc > 2 ? std::atof(argv[2]) : 1.0;
  const double tol = argc > 3 ? std::atof(argv[3]) : 1e-10;
  const double b = 1.0, l = 1.0, m = 1.0, g = 10.0, e = 1.0, mu = 0.1, theta = 0.5;
  try {
    const double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    SP::SiconosVector q0(new SiconosVector(3)), v0(new SiconosVector(3));
    q0->setValue(0, 0.0); q0->setValue(1, 0.6); q0->setValue(2, 0.0);
    v0->setValue(0, 0.0); v0->setValue(1, -0.2); v0->setValue(2, 1.0);
    SP::SimpleMatrix M(new SimpleMatrix(3, 3));
    M->zero();
    M->setValue(0, 0, m); M->setValue(1, 1, m); M->setValue(2, 2, m * (b * b + l * l) / 12.0);
    SP::LagrangianLinearTIDS block(new LagrangianLinearTIDS(q0, v0, M));
    SP::SiconosVector weight(new SiconosVector(3));
    weight->zero();
    weight->setValue(1, -m * g);
    block->setFExtPtr(weight);

    SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(0.0, T));
    nsds->insertDynamicalSystem(block);
    SP::NonSmoothLaw law(new NewtonImpactFrictionNSL(e, 0.0, mu, 2));
    const double corner[4][2] = { { -0.5 * b, -0.5 * l }, { 0.5 * b, -0.5 * l }, { 0.5 * b, 0.5 * l }, { -0.5 * b, 0.5 * l } };
    for (const auto &k : corner) {
      SP::Relation r(new CornerR(k[0], k[1]));
      SP::Interaction inter(new Interaction(law, r));
      nsds->link(inter, block);
    }
    SP::TimeDiscretisation td(new TimeDiscretisation(0.0, h));
    SP::MoreauJeanOSI osi(new MoreauJeanOSI(theta));
    SP::FrictionContact fc(new FrictionContact(2, SICONOS_FRICTION_2D_NSGS));
    fc->numericsSolverOptions()->iparam[SICONOS_IPARAM_MAX_ITER] = 1000;
    fc->numericsSolverOptions()->dparam[SICONOS_DPARAM_TOL] = tol;
    SP::TimeStepping sim(new TimeStepping(nsds, td, osi, fc));
    const double setup = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;

    long steps = 0;
    const double t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    while (sim->hasNextEvent()) {
      sim->computeOneStep();
      sim->nextStep();
      steps++;
    }
    const double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0, wall = clock_s(CLOCK_MONOTONIC) - w0;
    const SiconosVector &q = *block->q(), &v = *block->velocity();
    const double ek = 0.5 * (m * v(0) * v(0) + m * v(1) * v(1) + m * (b * b + l * l) / 12.0 * v(2) * v(2));
    std::printf("siconos_rocking_block: %ld steps of h = %g, cpu %.4f s (%.3f us/step), wall %.4f s, set-up %.3f s; "
                "final q = (%.6f, %.6f, %.6f), v = (%.6f, %.6f, %.6f), E = %.6f\n",
                steps, h, cpu, 1e6 * cpu / (double)steps, wall, setup, q(0), q(1), q(2), v(0), v(1), v(2),
                ek + m * g * q(1));
  } catch (...) {
    std::fprintf(stderr, "siconos_rocking_block: Siconos raised an exception\n");
    return 1;
  }
  return 0;
}
