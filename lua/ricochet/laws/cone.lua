-- ricochet.laws.cone: the planar Coulomb cone K = { |p_T| <= mu p_N } and the
-- impact-law shifts that the laws written in Lua share (docs/laws.md).
local M = {}

-- The helpers without argument checks (the library's own laws call these:
-- their arguments are their checked parameters and the kernel's numbers);
-- M.project, M.project_asym and M.shift below check theirs first.
local unchecked = {}
M.unchecked = unchecked

-- Euclidean projection of (xN, xT) onto K (mu >= 0).
function unchecked.project(mu, xN, xT)
  local at = xT < 0 and -xT or xT
  if xN >= 0 and at <= mu * xN then return xN, xT end      -- inside
  if mu * at + xN <= 0 then return 0, 0 end                  -- polar cone
  local s = (xN + mu * at) / (1 + mu * mu)                   -- boundary ray
  return s, (xT > 0 and mu or -mu) * s
end

-- Projection onto the cone with different coefficients for positive and
-- negative tangential impulse: { -mu_neg p_N <= p_T <= mu_pos p_N }.
function unchecked.project_asym(mu_pos, mu_neg, xN, xT)
  if xT >= 0 then return unchecked.project(mu_pos, xN, xT) end
  local pN, pT = unchecked.project(mu_neg, xN, -xT)
  return pN, -pT
end

-- Affine shift of the Newton impact law (e) with tangential restitution e_t
-- for the scheme's unknown u (ctx.unknown): eq. (62)/(58) for "end",
-- eq. (73)/(101) for "theta" (Acary & Collins-Craft 2024). Returns sN, sT
-- so that the law acts on w = u + s.
function unchecked.shift(e, e_t, uoN, uoT, ctx)
  if ctx.unknown == "theta" then
    local th = ctx.theta
    return ((th - 1) + th * e) * uoN, ((th - 1) + th * e_t) * uoT
  end
  return e * uoN, e_t * uoT
end

-- argument i of function f: a finite number (>= 0 when nonneg)
local function num(f, name, x, nonneg)
  if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
    error(string.format("ricochet.laws.cone.%s: '%s' must be a finite number (got %s)", f, name, tostring(x)), 3)
  end
  if nonneg and x < 0 then
    error(string.format("ricochet.laws.cone.%s: '%s' must be >= 0 (got %s)", f, name, tostring(x)), 3)
  end
end

function M.project(mu, xN, xT)
  num("project", "mu", mu, true)
  num("project", "xN", xN)
  num("project", "xT", xT)
  return unchecked.project(mu, xN, xT)
end

function M.project_asym(mu_pos, mu_neg, xN, xT)
  num("project_asym", "mu_pos", mu_pos, true)
  num("project_asym", "mu_neg", mu_neg, true)
  num("project_asym", "xN", xN)
  num("project_asym", "xT", xT)
  return unchecked.project_asym(mu_pos, mu_neg, xN, xT)
end

function M.shift(e, e_t, uoN, uoT, ctx)
  num("shift", "e", e)
  num("shift", "e_t", e_t)
  num("shift", "uoN", uoN)
  num("shift", "uoT", uoT)
  if type(ctx) ~= "table" and type(ctx) ~= "userdata" then
    error(string.format("ricochet.laws.cone.shift: 'ctx' must be a law's context (got %s)", tostring(ctx)), 2)
  end
  local unknown = ctx.unknown
  if unknown ~= "theta" and unknown ~= "end" then
    error(string.format("ricochet.laws.cone.shift: 'ctx.unknown' must be \"theta\" or \"end\" (got %s)", tostring(unknown)), 2)
  end
  if unknown == "theta" then num("shift", "ctx.theta", ctx.theta) end
  return unchecked.shift(e, e_t, uoN, uoT, ctx)
end

-- value v of a parameter against its spec { default, type [, min =, max =] }: an error
-- naming the law and the parameter (label) at the caller's level-th frame
local function check_value(lname, label, spec, v, level)
  if type(v) ~= spec[2] then
    error(string.format("%s: %s must be a %s (got %s)", lname, label, spec[2], tostring(v)), level + 1)
  end
  if spec[2] == "number" then
    if v ~= v or v == math.huge or v == -math.huge then
      error(string.format("%s: %s must be finite (got %s)", lname, label, tostring(v)), level + 1)
    end
    if (spec.min and v < spec.min) or (spec.max and v > spec.max) then
      error(string.format("%s: %s must be in [%s, %s] (got %s)", lname, label, tostring(spec.min or "-inf"),
                          tostring(spec.max or "inf"), tostring(v)), level + 1)
    end
  end
end

-- Parameter checks that name the law and the field.
function M.check(lname, t, allowed)
  if type(lname) ~= "string" then
    error(string.format("ricochet.laws.cone.check: 'lname' must be a string (got %s)", tostring(lname)), 2)
  end
  if type(allowed) ~= "table" then
    error(string.format("ricochet.laws.cone.check: 'allowed' must be a table of specs { default, type } (got %s)", tostring(allowed)), 2)
  end
  for k, spec in pairs(allowed) do
    if type(spec) ~= "table" or type(spec[2]) ~= "string" then
      error(string.format("ricochet.laws.cone.check: 'allowed.%s' must be a spec { default, type [, min =, max =] } (got %s)",
                          tostring(k), tostring(spec)), 2)
    end
  end
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
    check_value(lname, "'" .. k .. "'", spec, v, 3)
    r[k] = v
  end
  return r
end

-- A shipped law's params table (rc.law{ params = ... }): the values p (checked by M.check
-- against allowed) behind a table whose assignments are checked the same way, so that
-- law.params.mu = "x" (or nan, or -1, or an unknown name) is an error at the assigning line
-- instead of a failure inside the law's xi or project in the middle of a solve. Reads go to
-- the values (law.params.mu, pairs(law.params)); keys of allowed not in keep (e.g. the
-- name, or what a constructor turns into other values) cannot be set. fixed (or nil): more
-- values the law reads (derived by its constructor), readable, not settable.
function M.params(lname, p, allowed, keep, fixed)
  local function arg(name, ok, what, x)
    if not ok then error(string.format("ricochet.laws.cone.params: '%s' must be %s (got %s)", name, what, tostring(x)), 3) end
  end
  arg("lname", type(lname) == "string", "a string", lname)
  arg("p", type(p) == "table", "a table of values", p)
  arg("allowed", type(allowed) == "table", "a table of specs", allowed)
  arg("keep", type(keep) == "table", "a list of parameter names", keep)
  arg("fixed", fixed == nil or type(fixed) == "table", "nil or a table of values", fixed)
  for i, k in ipairs(keep) do
    local spec = allowed[k]
    arg("keep[" .. i .. "]", type(spec) == "table" and spec[2] == "number", "the name of a number in 'allowed'", k)
  end
  local values = {}
  for k, v in pairs(fixed or {}) do values[k] = v end
  for _, k in ipairs(keep) do values[k] = p[k] end
  local settable = {}
  for _, k in ipairs(keep) do settable[k] = allowed[k] end
  return setmetatable({}, {
    __index = values,
    __newindex = function(_, k, v)
      local spec = settable[k]
      if spec == nil then
        error(string.format("%s: params.%s is not a parameter of this law (it has %s)", lname, tostring(k),
                            table.concat(keep, ", ")), 2)
      end
      check_value(lname, "params." .. k, spec, v, 2)
      values[k] = v
    end,
    __pairs = function() return next, values, nil end,
  })
end

return M
