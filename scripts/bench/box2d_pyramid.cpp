// Benchmark: the pyramid of scripts/bench/pyramid.lua in Box2D 2.4 (Debian libbox2d-dev 2.4.1).
//
// Row i (from 0) of n rows has n - i boxes at x = (i + 1)/2 + (j - i) - n/2, y = 1/2 + i, mass
// 1 (density 1), friction 0.6, restitution 0, g = -10, steps of 1/60 s with 8 velocity and 3
// position iterations, sleeping off. Box2D 2.4 gives polygons a skin of b2_polygonRadius
// (0.01 m) and edges the same: the boxes are b2PolygonShape::SetAsBox(0.49, 0.49) (1 x 1 with
// the skin) and the ground edge lies at y = -0.01, so that the surfaces touch where the other
// codes put them. Box2D computes in single precision.
//
//   g++ -O2 -o build/box2d_pyramid scripts/bench/box2d_pyramid.cpp -lbox2d
//   build/box2d_pyramid [rows=100] [T=5]
//
// Prints the CPU per step (CLOCK_PROCESS_CPUTIME_ID around the steps only) and the largest
// displacement of a box from its start.
#include <box2d/box2d.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

static double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  const double T = argc > 2 ? std::atof(argv[2]) : 5.0;
  b2World world(b2Vec2(0.0f, -10.0f));
  world.SetAllowSleeping(false);
  b2BodyDef gd;
  b2Body *ground = world.CreateBody(&gd);
  b2EdgeShape edge;
  const float skin = b2_polygonRadius;
  edge.SetTwoSided(b2Vec2(-2.0f * n, -skin), b2Vec2(2.0f * n, -skin));
  ground->CreateFixture(&edge, 0.0f);
  b2PolygonShape box;
  box.SetAsBox(0.5f - skin, 0.5f - skin);
  b2FixtureDef fd;
  fd.shape = &box;
  fd.density = 1.0f / ((1.0f - 2 * skin) * (1.0f - 2 * skin));   // mass 1
  fd.friction = 0.6f;
  fd.restitution = 0.0f;
  std::vector<b2Body *> bodies;
  std::vector<b2Vec2> start;
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) {
      b2BodyDef bd;
      bd.type = b2_dynamicBody;
      bd.position.Set((i + 1) / 2.0f + (j - i) - n / 2.0f, 0.5f + i);
      b2Body *b = world.CreateBody(&bd);
      b->CreateFixture(&fd);
      bodies.push_back(b);
      start.push_back(bd.position);
    }
  const int steps = (int)std::lround(T * 60.0);
  const double c0 = cpu_seconds();
  for (int k = 0; k < steps; ++k) world.Step(1.0f / 60.0f, 8, 3);
  const double cpu = cpu_seconds() - c0;
  double moved = 0.0;
  for (size_t k = 0; k < bodies.size(); ++k) {
    b2Vec2 p = bodies[k]->GetPosition();
    moved = std::fmax(moved, std::hypot(p.x - start[k].x, p.y - start[k].y));
  }
  std::printf("box2d_pyramid: %d rows (%zu boxes), %d steps, cpu %.3f s (%.3f ms/step), largest displacement %.3g\n",
              n, bodies.size(), steps, cpu, 1e3 * cpu / steps, moved);
  return 0;
}
