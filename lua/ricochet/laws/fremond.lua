-- ricochet.laws.fremond: Fremond's impact law with Coulomb friction written
-- in Lua (Acary & Collins-Craft 2024, eqs. 49-50; section 2.5: Moreau's law
-- eq. 58 with e_t = 1). Friction acts on the average of the velocities before
-- and after the impact, which makes the impulse's work never positive (Lemma 2).
-- It reproduces the built-in rc.fremond{ e, mu } (tested to 1e-10 in E(t)).
--   local fremond = require "ricochet.laws.fremond"
--   w:contact{ a, b, law = fremond{ e = 1, mu = 0.1 } }
--
-- Modified velocity for the scheme's unknown u (ctx.unknown):
--   "end"   (u = u_{k+1}):      w = u + (e u-_N, u-_T)
--   "theta" (u = u_{k+theta}):  w = u + ((theta (1 + e) - 1) u-_N, (2 theta - 1) u-_T)
--   xi = (w_N + mu |w_T|, w_T),  C = Coulomb cone.
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local abs = math.abs

return function(t)
  local spec = {
    e = { 0, "number", min = 0, max = 1 }, mu = { 0, "number", min = 0 }, name = { "fremond (Lua)", "string" } }
  local p = cone.check("ricochet.laws.fremond", t, spec)
  return rc.law{
    name = p.name, dim = 2, params = cone.params("ricochet.laws.fremond", p, spec, { "e", "mu" }),
    xi = function(law, uN, uT, uoN, uoT, ctx)
      local sN, sT = cone.unchecked.shift(law.e, 1, uoN, uoT, ctx)
      local wT = uT + sT
      return uN + sN + law.mu * abs(wT), wT
    end,
    project = function(law, xN, xT) return cone.unchecked.project(law.mu, xN, xT) end,
  }
end
