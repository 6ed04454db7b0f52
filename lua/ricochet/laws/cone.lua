-- ricochet.laws.cone: the planar Coulomb cone K = { |p_T| <= mu p_N } and the
-- impact-law shifts that the laws written in Lua share (docs/laws.md).
local M = {}

-- Euclidean projection of (xN, xT) onto K (mu >= 0).
function M.project(mu, xN, xT)
  local at = xT < 0 and -xT or xT
  if xN >= 0 and at <= mu * xN then return xN, xT end      -- inside
  if mu * at + xN <= 0 then return 0, 0 end                  -- polar cone
  local s = (xN + mu * at) / (1 + mu * mu)                   -- boundary ray
  return s, (xT > 0 and mu or -mu) * s
end

-- Projection onto the cone with different coefficients for positive and
-- negative tangential impulse: { -mu_neg p_N <= p_T <= mu_pos p_N }.
function M.project_asym(mu_pos, mu_neg, xN, xT)
  if xT >= 0 then return M.project(mu_pos, xN, xT) end
  local pN, pT = M.project(mu_neg, xN, -xT)
  return pN, -pT
end

-- Affine shift of the Newton impact law (e) with tangential restitution e_t
-- for the scheme's unknown u (ctx.unknown): eq. (62)/(58) for "end",
-- eq. (73)/(101) for "theta" (Acary & Collins-Craft 2024). Returns sN, sT
-- so that the law acts on w = u + s.
function M.shift(e, e_t, uoN, uoT, ctx)
  if ctx.unknown == "theta" then
    local th = ctx.theta
    return ((th - 1) + th * e) * uoN, ((th - 1) + th * e_t) * uoT
  end
  return e * uoN, e_t * uoT
end

-- Parameter checks that name the law and the field.
function M.check(lname, t, allowed)
  if t == nil then t = {} end
  if type(t) ~= "table" then error(string.format("%s: expected a table of parameters (got %s)", lname, type(t)), 3) end
  for k in pairs(t) do
    if allowed[k] == nil then
      error(string.format("%s: unknown parameter '%s'", lname, tostring(k)), 3)
    end
  end
  local r = {}
  for k, spec in pairs(allowed) do
    local v = t[k]
    if v == nil then v = spec[1] end
    if type(v) ~= spec[2] then
      error(string.format("%s: '%s' must be a %s (got %s)", lname, k, spec[2], tostring(v)), 3)
    end
    if spec[2] == "number" then
      if v ~= v or v == math.huge or v == -math.huge then
        error(string.format("%s: '%s' must be finite (got %s)", lname, k, tostring(v)), 3)
      end
      if (spec.min and v < spec.min) or (spec.max and v > spec.max) then
        error(string.format("%s: '%s' must be in [%s, %s] (got %s)", lname, k, tostring(spec.min or "-inf"),
                            tostring(spec.max or "inf"), tostring(v)), 3)
      end
    end
    r[k] = v
  end
  return r
end

return M
