-- ricochet.laws.cohesive: a cohesive-frictional contact law with damage.
--
-- While the bond holds, the admissible set is the Coulomb cone shifted by the
-- cohesion: C = { p : |p_T| <= mu (p_N + c h) }, so the contact can carry a
-- tension up to the cohesive force c (an impulse c h per step) and friction
-- grows with it. The modified velocity is Newton + Coulomb (De Saxce), so
-- -xi in N_C(p) <=> p = proj_C(p - rho xi). The contact state holds a damage
-- variable d = the largest tension used so far as a fraction of c h; when d
-- reaches d_c the bond breaks for good (broken = 1) and the law becomes
-- plain Newton-Coulomb.
--   local cohesive = require "ricochet.laws.cohesive"
--   w:contact{ w.ground, block, law = cohesive{ c = 20, mu = 0.5, d_c = 1 } }
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local abs = math.abs

return function(t)
  local spec = {
    c = { 0, "number", min = 0 }, mu = { 0, "number", min = 0 }, e = { 0, "number", min = 0, max = 1 },
    d_c = { 1, "number", min = 0, max = 1 }, name = { "cohesive", "string" } }
  local p = cone.check("ricochet.laws.cohesive", t, spec)
  return rc.law{
    name = p.name, dim = 2, params = cone.params("ricochet.laws.cohesive", p, spec, { "c", "mu", "e", "d_c" }),
    state = { damage = 0, broken = 0 },
    xi = function(law, uN, uT, uoN, uoT, ctx)
      local sN = cone.unchecked.shift(law.e, 0, uoN, uoT, ctx)
      return uN + sN + law.mu * abs(uT), uT
    end,
    project = function(law, xN, xT, ctx)
      local sigma = ctx.state.broken == 0 and law.c * ctx.h or 0
      local pN, pT = cone.unchecked.project(law.mu, xN + sigma, xT)
      return pN - sigma, pT
    end,
    update = function(law, ctx, uN, uT, uoN, uoT, pN, pT)
      local s = ctx.state
      if s.broken == 1 or law.c <= 0 then return end
      local d = -pN / (law.c * ctx.h)
      if d > s.damage then s.damage = math.min(d, 1) end
      if s.damage >= law.d_c * (1 - 1e-9) then s.broken = 1 end
    end,
  }
end
