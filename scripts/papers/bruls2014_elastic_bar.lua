-- Bruls, Acary & Cardona 2014, section 10.3: a linear elastic bar impacting a
-- rigid wall, with the Moreau--Jean scheme (the paper's comparison) or
-- (scheme = "gen-alpha") the paper's nonsmooth generalized-alpha scheme.
--
-- E = 900, rho = 1, A = 1, L = 10, 200 two-node elements (201 nodes, q = nodal
-- axial displacements), initially undeformed, uniform velocity v0 = 10 toward
-- a wall at distance d0 = 5.005 from its front end; e = 0; h = 2e-3 (Courant
-- number 1.2). The wave speed is c = sqrt(E/rho) = 30, so the analytic
-- solution (../shared/notes/002 section 4.3): contact from d0/v0 = 0.5005 s
-- to 0.5005 + 2L/c = 1.1672 s with a constant force rho c v0 A = 300 N, after
-- which the bar leaves undeformed with velocity -10 and all its 500 J.
--
-- The paper's comparison scheme: Moreau--Jean with theta = 1/(1 + rho_inf) =
-- 0.5556 (rho_inf = 0.8, as for the pendulum), the contact activated by the
-- anticipating index set (g + h u_N / 2 <= 0: the paper's q* = q_n + (h/2) v_n),
-- which holds the front end 3.889e-3 past the wall while in contact (note 002).
-- Parameters (each checked): theta (1/1.8, in [0, 1]; 0.5: no numerical
-- dissipation), mass ("consistent" or "lumped"), elements (200, >= 1), h
-- (2e-3, > 0), T (1.6, > 0), activation ("anticipate" or "gap"), scheme
-- ("moreau-jean" or "gen-alpha": the wall at position and velocity level, no
-- penetration, docs/theory/gen-alpha.md), rho_inf (0.8, in [0, 1]: gen-alpha's; strategy "monolithic" or "sequential" (Algorithm 1);
-- theta and activation are then unused).
--   build/ricochet run scripts/papers/bruls2014_elastic_bar.lua --set mass=lumped --set theta=0.5
--   build/ricochet run scripts/papers/bruls2014_elastic_bar.lua --set scheme=gen-alpha --out out/bar   (+ figure.svg)
local rc = require "ricochet"

local theta = rc.param("theta", 1 / 1.8, { min = 0, max = 1 })
local h     = rc.param("h", 2e-3, { above = 0 })
local T     = rc.param("T", 1.6, { above = 0 })
local ne    = rc.param("elements", 200, { min = 1 })
local mass  = rc.param("mass", "consistent", { one_of = { "consistent", "lumped" } })
local activation = rc.param("activation", "anticipate", { one_of = { "anticipate", "gap" } })   -- g + h u_N / 2 <= 0 (the paper's q*); or "gap"
local scheme  = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "gen-alpha" } })
local rho_inf = rc.param("rho_inf", 0.8, { min = 0, max = 1 })   -- gen-alpha only
local strategy = rc.param("strategy", "monolithic", { one_of = { "monolithic", "sequential" } })   -- gen-alpha: Newton on (44) or Algorithm 1
local E, rho, A, L, d0, v0 = 900.0, 1.0, 1.0, 10.0, 5.005, 10.0

local n, le = ne + 1, L / ne
local M, K = {}, {}
for i = 1, n do
  M[i], K[i] = {}, {}
  for j = 1, n do M[i][j], K[i][j] = 0, 0 end
end
local k, m = E * A / le, rho * A * le
for e = 1, ne do   -- element e joins nodes e and e + 1
  local a, b = e, e + 1
  K[a][a] = K[a][a] + k; K[b][b] = K[b][b] + k
  K[a][b] = K[a][b] - k; K[b][a] = K[b][a] - k
  if mass == "lumped" then
    M[a][a] = M[a][a] + m / 2; M[b][b] = M[b][b] + m / 2
  elseif mass == "consistent" then
    M[a][a] = M[a][a] + m / 3; M[b][b] = M[b][b] + m / 3
    M[a][b] = M[a][b] + m / 6; M[b][a] = M[b][a] + m / 6
  else
    error("mass must be 'consistent' or 'lumped' (got " .. tostring(mass) .. ")")
  end
end
local v = {}
for i = 1, n do v[i] = v0 end

local w = rc.world{}
local bar = w:linear{ name = "bar", M = M, K = K, v0 = v }
-- the front end (node n) may not pass the wall: g_N = d0 - q_n >= 0
w:gap{ bar, index = { n }, normal = { -1 }, g0 = d0, law = rc.newton{ e = 0 }, name = "wall" }

local sim
if scheme == "gen-alpha" then   -- the paper's own scheme: the wall at position and velocity level
  sim = w:simulation{ scheme = scheme, rho_inf = rho_inf, strategy = strategy, h = h, solver = { tol = 1e-10 } }
else
  sim = w:simulation{ scheme = "moreau-jean", theta = theta, h = h, activation = activation,
                      solver = { "nsgs", tol = 1e-12 } }
end
-- contact interval (steps that start with the contact active), total impulse,
-- and the force p/h of every step, for the plateau between the two fronts
-- per step: the largest energy increase, the front end's rate g_q v while the
-- wall pushes (gen-alpha: 0 to the Newton tolerance), Newton's iterations
local function energy() local en = bar:energy(); return en.kinetic + en.elastic end
local t_close, t_open, impulse, forces, penetration = nil, nil, 0, {}, 0
local E_prev, max_increase, contact_rate, max_iter = energy(), -math.huge, 0, 0
sim:after_step(function(s)
  local c = s:contact("wall")
  penetration = math.max(penetration, bar:q()[n] - d0)   -- the front end past the wall
  local E = energy()
  max_increase = math.max(max_increase, E - E_prev)
  E_prev = E
  max_iter = math.max(max_iter, s:info().iterations)
  if c.active and c.pN > 0 then
    if not t_close then t_close = s.t - h end
    impulse = impulse + c.pN
    contact_rate = math.max(contact_rate, math.abs(bar:v()[n]))
    forces[#forces + 1] = { s.t - h, c.pN / h }
  elseif t_close and not t_open and c.gN > 0 then
    t_open = s.t - h
  end
end)
local summary = sim:run{ T = T }
local ek, ee = table.unpack((function() local en = bar:energy(); return { en.kinetic, en.elastic } end)())
local vq = bar:v()
local vmean = 0
for i = 1, n do vmean = vmean + vq[i] end
vmean = vmean / n
-- mean force on the plateau: the contact interval without 10 % at each end
local duration = (t_open or T) - (t_close or 0)
local sum, count = 0, 0
for _, f in ipairs(forces) do
  if f[1] >= t_close + 0.1 * duration and f[1] <= t_open - 0.1 * duration then sum, count = sum + f[2], count + 1 end
end
local force = count > 0 and sum / count or 0 / 0
io.write(string.format(
  "elastic bar (%s mass, theta = %.4g): contact from %.4f s to %s s (analytic 0.5005 to 1.1672), impulse %.3f N s (200), mean force %.2f N (300), " ..
  "exit velocity %.4f (-10), energy after %.2f J (500: kinetic %.2f, elastic %.2f), largest penetration %.3e, " ..
  "largest energy increase in a step %.3e J, front-end rate in contact %.3e, %s\n",
  mass, theta, t_close or 0 / 0, t_open and string.format("%.4f", t_open) or "-", impulse, force, vmean, ek + ee, ek, ee, penetration,
  max_increase, contact_rate, scheme == "gen-alpha" and string.format("gen-alpha rho_inf = %g, Newton iterations <= %d", rho_inf, max_iter) or scheme))
-- the figure beside the history (with --out), as the paper's figures 14-19: the
-- front end's gap and rate, the contact force Lambda / h, the energies
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local function s(name) return { name = name, y = hc[name] } end
  local force = {}
  for i, p in ipairs(hc["wall.pN"]) do force[i] = p == p and p / h or 0 end   -- NaN: no contact that step
  plot.svg{ file = summary.out .. "/figure.svg", x = hc.t, xlabel = "t [s]",
            title = string.format("elastic bar against a wall (Bruls et al. 2014), %s, h = %g", scheme, h),
            panels = { { title = "gap of the front end", series = { s("wall.gN") }, ylabel = "g [m]" },
                       { title = "rate of the front end", series = { s("wall.uN") }, ylabel = "g_q v [m/s]" },
                       { title = "contact force", series = { { name = "Lambda/h", y = force } }, ylabel = "force [N]" },
                       { title = "energy", series = { s("E"), s("E_kin"), s("E_elastic") }, ylabel = "energy [J]" } } }
end
return { t_close = t_close, t_open = t_open, force = force, impulse = impulse, exit_velocity = vmean, energy = ek + ee,
         penetration = penetration, max_increase = max_increase, contact_rate = contact_rate, max_iter = max_iter,
         summary = summary }
