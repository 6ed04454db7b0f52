-- Stick-slip: a block pulled through a spring whose far end moves at a
-- constant speed V, on a floor with velocity-weakening friction
-- mu(v) = mu_d + (mu_s - mu_d) exp(-v / v_c) (lua/ricochet/laws/velocity_weakening.lua).
--
-- The block sticks while the spring loads, slips when the spring force
-- reaches mu_s m g, and sticks again. For Coulomb friction with mu_s > mu_d
-- (the limit v_c -> 0) the period is known in closed form: with
-- omega = sqrt(k/m), Delta = (mu_s - mu_d) m g / k, a slip lasts
-- tau = (2/omega) (pi - atan(Delta omega / V)), after which the spring
-- stretch s = Delta cos(omega tau) + (V/omega) sin(omega tau) above the
-- kinetic equilibrium must climb back to Delta at speed V:
-- T = tau + (Delta - s) / V.
--
--   build/ricochet run scripts/examples/stick_slip.lua --set V=0.02 --set T=20
local rc = require "ricochet"
local vw = require "ricochet.laws.velocity_weakening"

local m, k, g = 1.0, rc.param("k", 100.0), 10.0
local V    = rc.param("V", 0.01)
local mu_s = rc.param("mu_s", 0.6)
local mu_d = rc.param("mu_d", 0.4)
local v_c  = rc.param("v_c", 1e-4)
local h    = rc.param("h", 1e-3)
local T    = rc.param("T", 15.0)

local w = rc.world{ gravity = { 0, -g } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
-- a point mass: a point contactor at the centre of mass, so that friction
-- cannot tip the block
local block = w:body{ name = "block", mass = m, inertia = 1, q = { 0, 0, 0 }, shape = rc.point{ 0, 0 } }
-- the spring's far end starts at the block: no force at t = 0
block:set_force_fn(function(t, q, v) return { k * (V * t - q[1]), 0, 0 } end)
w:contact{ w.ground, block, law = vw{ mu_s = mu_s, mu_d = mu_d, v_c = v_c }, name = "C" }

local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = h,
                          solver = { "nsgs", tol = 1e-12, local_tol = 1e-13 } }
-- slip onsets: the block starts moving after being stuck
local onsets, moving = {}, false
sim:after_step(function(s)
  local vx = block:v()[1]
  if not moving and vx > 1e-3 * V then
    moving = true
    onsets[#onsets + 1] = s.t
  elseif moving and vx <= 1e-9 then
    moving = false
  end
end)
local summary = sim:run{ T = T }

local omega = math.sqrt(k / m)
local delta = (mu_s - mu_d) * m * g / k
local tau = (2 / omega) * (math.pi - math.atan(delta * omega / V))
local s_end = delta * math.cos(omega * tau) + (V / omega) * math.sin(omega * tau)
local period_analytic = tau + (delta - s_end) / V

local period
if #onsets >= 3 then   -- skip the first cycle (it starts from an unloaded spring)
  period = (onsets[#onsets] - onsets[2]) / (#onsets - 2)
end
io.write(string.format("stick-slip: %d slips, period %s s (Coulomb estimate %.4f s)\n",
  #onsets, period and string.format("%.4f", period) or "-", period_analytic))
return { period = period, period_analytic = period_analytic, slips = #onsets, summary = summary }
