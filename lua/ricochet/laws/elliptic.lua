-- ricochet.laws.elliptic: anisotropic (elliptic) Coulomb friction.
--
-- The friction cone is elliptic: || A^-1 p_T || <= p_N with A = diag(mu_x,
-- mu_y) in axes turned by 'angle' from the world x axis. In the plane the
-- tangent of a contact is one direction t, and the section of that cone is
-- a Coulomb cone whose coefficient depends on the direction of sliding:
--     mu(t) = 1 / sqrt((t . a1)^2 / mu_x^2 + (t . a2)^2 / mu_y^2),
-- a1 = (cos angle, sin angle), a2 = (-sin angle, cos angle). A body sliding
-- along a1 feels mu_x, along a2 feels mu_y, in between what the ellipse says.
-- Impacts follow Newton's law with restitution e.
--   local elliptic = require "ricochet.laws.elliptic"
--   w:contact{ w.ground, box, law = elliptic{ mu_x = 0.1, mu_y = 0.6 } }
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local abs, sqrt, cos, sin = math.abs, math.sqrt, math.cos, math.sin

local function mu_of(law, tx, ty)
  local c1 = tx * law.a1x + ty * law.a1y
  local c2 = tx * law.a2x + ty * law.a2y
  return 1 / sqrt(c1 * c1 / (law.mu_x * law.mu_x) + c2 * c2 / (law.mu_y * law.mu_y))
end

local M = {}

-- mu(t) for a law's params (law.params of an elliptic law) and a unit
-- tangent (tx, ty), the arguments checked
function M.mu(params, tx, ty)
  if type(params) ~= "table" then
    error(string.format("ricochet.laws.elliptic.mu: 'params' must be the params of an elliptic law (got %s)", tostring(params)), 2)
  end
  for _, k in ipairs { "a1x", "a1y", "a2x", "a2y", "mu_x", "mu_y" } do
    local x = params[k]
    if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
      error(string.format("ricochet.laws.elliptic.mu: 'params' must be the params of an elliptic law ('%s' is %s)", k, tostring(x)), 2)
    end
  end
  local args = { tx, ty }
  for i = 1, 2 do
    local x = args[i]
    if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
      error(string.format("ricochet.laws.elliptic.mu: '%s' must be a finite number (got %s)", i == 1 and "tx" or "ty", tostring(x)), 2)
    end
  end
  return mu_of(params, tx, ty)
end

setmetatable(M, { __call = function(_, t)
  local spec = {
    mu_x = { 0.1, "number", min = 1e-12 }, mu_y = { 0.1, "number", min = 1e-12 }, angle = { 0, "number" },
    e = { 0, "number", min = 0, max = 1 }, name = { "elliptic", "string" } }
  local p = cone.check("ricochet.laws.elliptic", t, spec)
  local law = cone.params("ricochet.laws.elliptic", p, spec, { "mu_x", "mu_y", "e" },
                          { a1x = cos(p.angle), a1y = sin(p.angle), a2x = -sin(p.angle), a2y = cos(p.angle) })
  return rc.law{
    name = p.name, dim = 2, params = law,
    xi = function(law, uN, uT, uoN, uoT, ctx)
      local sN = cone.unchecked.shift(law.e, 0, uoN, uoT, ctx)
      return uN + sN + mu_of(law, ctx.tx, ctx.ty) * abs(uT), uT
    end,
    project = function(law, xN, xT, ctx) return cone.unchecked.project(mu_of(law, ctx.tx, ctx.ty), xN, xT) end,
  }
end })

return M
