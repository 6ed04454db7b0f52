-- ricochet.laws.coulomb: Newton impact + Coulomb friction in De Saxce's form
-- (Acary & Collins-Craft 2024, eqs. 10, 62; eq. 73 under moreau-jean-fremond),
-- written in Lua: the twin of the built-in rc.newton, used to test the law
-- interface and to measure what a law written in Lua costs
-- (scripts/bench/disks_in_box.lua --set law=lua).
--   local coulomb = require "ricochet.laws.coulomb"
--   w:contact{ a, b, law = coulomb{ e = 0.5, mu = 0.3 } }
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local project = cone.unchecked.project

return function(t)
  local spec = {
    e = { 0, "number", min = 0, max = 1 }, mu = { 0, "number", min = 0 }, name = { "coulomb (Lua)", "string" } }
  local p = cone.check("ricochet.laws.coulomb", t, spec)
  return rc.law{
    name = p.name, dim = 2, params = cone.params("ricochet.laws.coulomb", p, spec, { "e", "mu" }),
    xi = function(law, uN, uT, uoN, uoT, ctx)
      -- eq. (62): u_N + e u_N,k; eq. (73): u_N + (theta (1 + e) - 1) u_N,k
      local e, th = law.e, ctx.theta
      local sN = ctx.unknown == "theta" and ((th - 1) + th * e) * uoN or e * uoN
      return uN + sN + law.mu * (uT < 0 and -uT or uT), uT
    end,
    project = function(law, xN, xT) return project(law.mu, xN, xT) end,
  }
end
