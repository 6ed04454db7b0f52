-- ricochet.laws.coulomb3: Newton impact + Coulomb friction in De Saxce's form
-- on the 3D contacts of a dim = 3 world (Acary & Collins-Craft 2024, eqs. 10,
-- 62; eq. 73 under moreau-jean-fremond), written in Lua with the law
-- interface of dim = 3 (docs/laws.md, "dim = 3"): the twin of the built-in
-- rc.newton on a 3D contact, used to test the interface in 3D and to measure
-- what a law written in Lua costs (scripts/bench/spheres_lua_law.lua).
--   xi = (u_N + s_N + mu |u_T|, u_T1, u_T2),  |u_T| = sqrt(u_T1^2 + u_T2^2),
--   C  = the cone { |p_T| <= mu p_N } (K of eq. 11 with two tangents).
--   local coulomb3 = require "ricochet.laws.coulomb3"
--   local w = rc.world{ dim = 3, default_law = coulomb3{ e = 0.5, mu = 0.3 } }
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local sqrt = math.sqrt

local M = {}

-- Euclidean projection of (xN, xT, xS) onto { sqrt(pT^2 + pS^2) <= mu pN }
function M.project(mu, xN, xT, xS)
  local r = sqrt(xT * xT + xS * xS)
  if xN >= 0 and r <= mu * xN then return xN, xT, xS end   -- inside
  if mu * r + xN <= 0 then return 0, 0, 0 end               -- polar cone
  local s = (xN + mu * r) / (1 + mu * mu)                   -- boundary: p_N = s, |p_T| = mu s
  return s, mu * s * xT / r, mu * s * xS / r
end

local project = M.project

function M.new(t)
  local spec = {
    e = { 0, "number", min = 0, max = 1 }, mu = { 0, "number", min = 0 }, name = { "coulomb3 (Lua)", "string" } }
  local p = cone.check("ricochet.laws.coulomb3", t, spec)
  return rc.law{
    name = p.name, dim = 3, params = cone.params("ricochet.laws.coulomb3", p, spec, { "e", "mu" }),
    xi = function(law, uN, uT, uS, uoN, uoT, uoS, ctx)
      -- eq. (62): u_N + e u_N,k; eq. (73): u_N + (theta (1 + e) - 1) u_N,k
      local e, th = law.e, ctx.theta
      local sN = e * uoN
      if ctx.unknown == "theta" then
        -- as the scheme does for the built-in law (mjf_preimpact): a separating
        -- contact (u_N,k > 0) with theta (1 + e) < 1 sees u_N,k = 0
        if uoN > 0 and th * (1 + e) < 1 then uoN = 0 end
        sN = ((th - 1) + th * e) * uoN
      end
      return uN + sN + law.mu * sqrt(uT * uT + uS * uS), uT, uS
    end,
    project = function(law, xN, xT, xS) return project(law.mu, xN, xT, xS) end,
  }
end

return setmetatable(M, { __call = function(_, t) return M.new(t) end })
