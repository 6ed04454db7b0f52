// Benchmark: the disks_in_box scene (scripts/bench/disks_in_box.lua) in Box2D 2.4.
//
// Debian libbox2d-dev (2.4.1): a b2World with g = 9.81, three static edges (floor and two
// walls), one dynamic body per disk with a circle fixture (density 1, friction 0.3,
// restitution 0), steps of 1e-3 s with 8 velocity and 3 position iterations. Box2D's
// sequential impulses do not solve the Coulomb problem to a tolerance: a fixed number of
// iterations per step. Sleeping is off (every body is simulated every step, as in the other
// codes); continuous collision stays at its default (on against static bodies).
//
// Box2D gives edge shapes a skin of b2_polygonRadius (0.01 m); the edges are moved out by
// that skin so the walls' surfaces are where the other codes put them (y = 0, x = 0,
// x = width). Box2D computes in single precision.
//
// The initial state is read from the file written by scripts/bench/disks_scene.lua:
//
//   build/ricochet run scripts/bench/disks_scene.lua --quiet --set N=1000 --set out=/tmp/scene.txt
//   g++ -O2 -o build/box2d_disks scripts/bench/box2d_disks.cpp -lbox2d
//   build/box2d_disks /tmp/scene.txt [T=1] [sleep=0]
//
// Prints the CPU and wall time per step (CLOCK_PROCESS_CPUTIME_ID and CLOCK_MONOTONIC around
// the steps only), the contact counts of the last step, where the pile is, and the largest
// overlap over the run: after every step, the deepest penetration of a disk into the floor or
// a wall surface and of two disks whose contact Box2D reports touching (measured from the
// positions, outside the timed steps), with its time.
#include <box2d/box2d.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

static double wall_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// the deepest overlap of the current positions: disks into the box's three surfaces (y = 0,
// x = 0, x = width) and pairs of touching disks
static double largest_overlap(b2World &world, const std::vector<b2Body *> &bodies, const std::vector<double> &radius,
                              double width) {
  double worst = 0.0;
  for (size_t i = 0; i < bodies.size(); i++) {
    const b2Vec2 p = bodies[i]->GetPosition();
    const double r = radius[i];
    worst = std::fmax(worst, std::fmax(r - p.y, std::fmax(r - p.x, r - (width - p.x))));
  }
  for (b2Contact *ct = world.GetContactList(); ct; ct = ct->GetNext()) {
    if (!ct->IsTouching()) continue;
    const b2Shape *sa = ct->GetFixtureA()->GetShape(), *sb = ct->GetFixtureB()->GetShape();
    if (sa->GetType() != b2Shape::e_circle || sb->GetType() != b2Shape::e_circle) continue;
    const b2Vec2 d = ct->GetFixtureA()->GetBody()->GetPosition() - ct->GetFixtureB()->GetBody()->GetPosition();
    worst = std::fmax(worst, (double)sa->m_radius + (double)sb->m_radius - std::sqrt((double)d.x * d.x + (double)d.y * d.y));
  }
  return worst;
}

static double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENE [T=1] [sleep=0]\n", argv[0]);
    return 2;
  }
  double T = argc > 2 ? std::atof(argv[2]) : 1.0;
  bool sleep = argc > 3 && std::atoi(argv[3]) != 0;

  FILE *f = std::fopen(argv[1], "r");
  if (!f) { std::perror(argv[1]); return 1; }
  int n, c, seed;
  double width, g, mu, h, ekin0, epot0;
  if (std::fscanf(f, "%d %d %lf %lf %lf %lf %d", &n, &c, &width, &g, &mu, &h, &seed) != 7 ||
      std::fscanf(f, "%lf %lf", &ekin0, &epot0) != 2) {
    std::fprintf(stderr, "%s: bad header\n", argv[1]);
    return 1;
  }
  std::vector<double> d(5 * (size_t)n);
  for (size_t i = 0; i < d.size(); i++)
    if (std::fscanf(f, "%lf", &d[i]) != 1) { std::fprintf(stderr, "%s: short file\n", argv[1]); return 1; }
  std::fclose(f);

  double t0 = cpu_seconds();
  b2World world(b2Vec2(0.0f, (float)-g));
  world.SetAllowSleeping(sleep);

  // the box: edges moved out by their skin so that the surfaces are at y = 0, x = 0, x = width
  const float skin = b2_polygonRadius;
  const float H = (float)(0.25 * (n / c + 2) + 10.0);   // walls well above the initial lattice
  b2BodyDef gd;
  b2Body *ground = world.CreateBody(&gd);
  b2EdgeShape e;
  b2FixtureDef ef;
  ef.shape = &e;
  ef.friction = (float)mu;
  ef.restitution = 0.0f;
  const float W = (float)width;
  e.SetTwoSided(b2Vec2(-1.0f, -skin), b2Vec2(W + 1.0f, -skin));      ground->CreateFixture(&ef);
  e.SetTwoSided(b2Vec2(-skin, -1.0f), b2Vec2(-skin, H));             ground->CreateFixture(&ef);
  e.SetTwoSided(b2Vec2(W + skin, -1.0f), b2Vec2(W + skin, H));       ground->CreateFixture(&ef);

  std::vector<b2Body *> bodies(n);
  std::vector<double> radius(n);
  double ekin = 0, epot = 0;
  for (int i = 0; i < n; i++) {
    const double *p = &d[5 * (size_t)i];
    b2BodyDef bd;
    bd.type = b2_dynamicBody;
    bd.position.Set((float)p[1], (float)p[2]);
    bd.linearVelocity.Set((float)p[3], (float)p[4]);
    b2Body *b = world.CreateBody(&bd);
    b2CircleShape s;
    s.m_radius = (float)p[0];
    b2FixtureDef fd;
    fd.shape = &s;
    fd.density = 1.0f;
    fd.friction = (float)mu;
    fd.restitution = 0.0f;
    b->CreateFixture(&fd);
    bodies[i] = b;
    radius[i] = (double)s.m_radius;
    double m = M_PI * p[0] * p[0];
    ekin += 0.5 * m * (p[3] * p[3] + p[4] * p[4]);
    epot += m * g * p[2];
  }
  if (std::fabs(ekin - ekin0) > 1e-12 * std::fabs(ekin0) || std::fabs(epot - epot0) > 1e-12 * std::fabs(epot0)) {
    std::fprintf(stderr, "box2d_disks: the energies of the scene do not match its header\n");
    return 1;
  }
  double setup = cpu_seconds() - t0;

  long nsteps = std::lround(T / h);
  double cpu = 0.0, wall = 0.0, overlap = 0.0, t_overlap = 0.0;
  for (long k = 0; k < nsteps; k++) {
    const double c0 = cpu_seconds(), w0 = wall_seconds();
    world.Step((float)h, 8, 3);
    cpu += cpu_seconds() - c0;
    wall += wall_seconds() - w0;
    const double o = largest_overlap(world, bodies, radius, width);
    if (o > overlap) { overlap = o; t_overlap = (double)(k + 1) * h; }
  }

  int touching = 0, pairs = 0;
  for (b2Contact *ct = world.GetContactList(); ct; ct = ct->GetNext()) {
    pairs++;
    if (ct->IsTouching()) touching++;
  }
  double ymin = 1e300, ysum = 0, vmax = 0;
  for (b2Body *b : bodies) {
    double y = b->GetPosition().y;
    ymin = std::fmin(ymin, y);
    ysum += y;
    vmax = std::fmax(vmax, b->GetLinearVelocity().Length());
  }
  std::printf("box2d_disks: N = %d, %ld steps, cpu %.3f s (%.3f ms/step), wall %.3f ms/step, set-up %.3f s; last step: "
              "%d contacts (AABB pairs), %d touching; 8 velocity + 3 position iterations, sleeping %s; lowest y %.4f, "
              "mean y %.4f, max speed %.3g; largest overlap over the run %.3g (t = %.4g)\n",
              n, nsteps, cpu, 1e3 * cpu / (double)nsteps, 1e3 * wall / (double)nsteps, setup, pairs, touching,
              sleep ? "on" : "off", ymin, ysum / n, vmax, overlap, t_overlap);
  return 0;
}
