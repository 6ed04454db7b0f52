-- ricochet.laws.velocity_weakening: Coulomb friction whose coefficient drops
-- with the sliding speed, mu(v) = mu_d + (mu_s - mu_d) exp(-v / v_c), with
-- Newton impacts (e). The coefficient of a step is taken at the sliding speed
-- of the previous step (kept in the contact state), so within a step the law
-- is an ordinary convex cone and the one-step problem stays well posed; a
-- stuck contact (v = 0) has mu_s, a sliding one tends to mu_d. This is what
-- produces stick-slip (scripts/examples/stick_slip.lua).
--   local vw = require "ricochet.laws.velocity_weakening"
--   w:contact{ w.ground, block, law = vw{ mu_s = 0.6, mu_d = 0.4, v_c = 1e-3 } }
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local abs, exp = math.abs, math.exp

return function(t)
  local spec = {
    mu_s = { 0.5, "number", min = 0 }, mu_d = { 0.3, "number", min = 0 }, v_c = { 1e-3, "number", min = 1e-300 },
    e = { 0, "number", min = 0, max = 1 }, name = { "velocity-weakening", "string" } }
  local p = cone.check("ricochet.laws.velocity_weakening", t, spec)
  local function mu(law, v) return law.mu_d + (law.mu_s - law.mu_d) * exp(-v / law.v_c) end
  return rc.law{
    name = p.name, dim = 2, params = cone.params("ricochet.laws.velocity_weakening", p, spec, { "mu_s", "mu_d", "v_c", "e" }),
    state = { v = 0 },
    xi = function(law, uN, uT, uoN, uoT, ctx)
      local sN = cone.unchecked.shift(law.e, 0, uoN, uoT, ctx)
      return uN + sN + mu(law, ctx.state.v) * abs(uT), uT
    end,
    project = function(law, xN, xT, ctx) return cone.unchecked.project(mu(law, ctx.state.v), xN, xT) end,
    update = function(law, ctx, uN, uT, uoN, uoT)
      -- sliding speed at the end of the step: u_{k+1} (recovered from u_{k+theta} under MJF)
      local v1 = uT
      if ctx.unknown == "theta" then v1 = (uT - (1 - ctx.theta) * uoT) / ctx.theta end
      ctx.state.v = abs(v1)
    end,
  }
end
