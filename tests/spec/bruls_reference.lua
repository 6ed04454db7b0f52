-- An independent implementation of the Moreau--Jean theta-method as Bruls,
-- Acary & Cardona 2014 write it (eq. 50), for their pendulum (section 10.2):
-- plain Lua, none of the kernel, the reference the specs hold Ricochet to.
-- Every constraint gradient at q_{n+1} (50b-d, by fixed point on q_{n+1}),
-- the obstacle's velocity row (50d) activated by g_3(q*) <= 0 with
-- q* = q_n + gamma h v_n (Moreau's prediction, gamma = 1/2), the smooth part
-- without reactions (50a), q_{n+1} = q_n + h ((1 - theta) v_n + theta v_{n+1})
-- (50e, h). At h = 1e-3, theta = 0.5556: pivot drift 4.63e-4, penetration
-- 1.145e-3, first impulse 11.7355, |omega| < 1e-6 from t = 5.07 s.
local M = {}

local function solve(A, b)   -- Gaussian elimination with partial pivoting, n <= 3
  local n = #b
  local a = {}
  for i = 1, n do a[i] = { table.unpack(A[i]) }; a[i][n + 1] = b[i] end
  for k = 1, n do
    local p = k
    for i = k + 1, n do if math.abs(a[i][k]) > math.abs(a[p][k]) then p = i end end
    a[k], a[p] = a[p], a[k]
    for i = k + 1, n do
      local f = a[i][k] / a[k][k]
      for j = k, n + 1 do a[i][j] = a[i][j] - f * a[k][j] end
    end
  end
  local x = {}
  for i = n, 1, -1 do
    local s = a[i][n + 1]
    for j = i + 1, n do s = s - a[i][j] * x[j] end
    x[i] = s / a[i][i]
  end
  return x
end

-- The pendulum: q = (x, y, theta), M = diag(m, m, J), gravity -g along y;
-- bilateral g_b = (x - l cos theta, y - l sin theta); obstacle g_3 = x - sqrt(2)/2.
-- Eq. (50): all constraint gradients at q_{n+1} (fixed point), (50d) activated
-- by g_3(q*) <= 0, q* = q_n + gamma h v_n.
function M.pendulum(o)
  local h, theta, e, T = o.h, o.theta, o.e or 0.8, o.T
  local gamma = o.gamma or 0.5
  local m, J, l, g = 1.0, 0.1, 1.0, 10.0
  local minv = { 1 / m, 1 / m, 1 / J }
  local th0 = math.pi / 12
  local q = { l * math.cos(th0), l * math.sin(th0), th0 }
  local v = { 0, 0, 0 }
  local x3 = math.sqrt(2) / 2
  local r = { drift = 0, penetration = 0, first_impulse = nil, t_still = nil }
  local n = math.floor(T / h + 0.5)
  for k = 1, n do
    local vt = { v[1], v[2] - h * g, v[3] }          -- (50a, f): M vdot = f
    local active = (q[1] - x3) + gamma * h * v[1] <= 0
    local G3n_v = v[1]                                -- g_q,n v_n of the obstacle
    local q1 = { q[1] + h * v[1], q[2] + h * v[2], q[3] + h * v[3] }
    local v1, Lam
    for it = 1, 50 do
      local G = { { 1, 0, l * math.sin(q1[3]) }, { 0, 1, -l * math.cos(q1[3]) }, { 1, 0, 0 } }
      local function velocity(L)
        local w = { vt[1], vt[2], vt[3] }
        for i = 1, #L do for c = 1, 3 do w[c] = w[c] + minv[c] * G[i][c] * L[i] end end
        return w
      end
      local function system(rows)   -- G_i M^-1 G_j^T L = -(G_i vt + shift_i)
        local A, b = {}, {}
        for i = 1, rows do
          A[i] = {}
          for j = 1, rows do
            local s = 0
            for c = 1, 3 do s = s + G[i][c] * minv[c] * G[j][c] end
            A[i][j] = s
          end
          local s = 0
          for c = 1, 3 do s = s + G[i][c] * vt[c] end
          if i == 3 then s = s + e * G3n_v end
          b[i] = -s
        end
        return solve(A, b)
      end
      Lam = system(2)
      v1 = velocity(Lam)
      if active and v1[1] + e * G3n_v < 0 then   -- (50d): the contact takes an impulse
        Lam = system(3)
        v1 = velocity(Lam)
      end
      local qn = {}
      for c = 1, 3 do qn[c] = q[c] + h * ((1 - theta) * v[c] + theta * v1[c]) end   -- (50e, h)
      local d = math.max(math.abs(qn[1] - q1[1]), math.abs(qn[2] - q1[2]), math.abs(qn[3] - q1[3]))
      q1 = qn
      if d < 1e-15 then break end
    end
    if Lam[3] and Lam[3] > 0 and not r.first_impulse then r.first_impulse = Lam[3] end
    q, v = q1, v1
    r.drift = math.max(r.drift, math.abs(q[1] - l * math.cos(q[3])), math.abs(q[2] - l * math.sin(q[3])))
    r.penetration = math.max(r.penetration, x3 - q[1])
    if math.abs(v[3]) >= (o.still or 1e-6) then r.t_still = nil
    elseif not r.t_still then r.t_still = k * h end
  end
  r.q, r.v = q, v
  return r
end

-- The pendulum's analytic accumulation time (notes/002 section 4.2): one degree of freedom
-- theta, J_e = m l^2 + J = 1.1, V(theta) = m g l sin theta, the obstacle at theta_c = -pi/4,
-- Newton e: after impact k the energy above the rest state is (E0 - V(theta_c)) e^(2k).
-- t_acc = t_1 + sum_k T_k, t_1 the fall from theta_0, T_k = 2 x the fall from the k-th
-- turning point theta_k, V(theta_k) = E_k. Each fall time is the integral of
-- d theta / sqrt(2 (E - V(theta)) / J_e) from theta_c to the turning point, with
-- theta = theta_k - s^2 to remove the inverse square root there (Gauss-Legendre, 10 nodes on
-- 16 panels in s: the integrand is smooth).
function M.accumulation_time(e)
  e = e or 0.8
  local m, J, l, g = 1.0, 0.1, 1.0, 10.0
  local Je, thc = m * l * l + J, -math.pi / 4
  local function V(th) return m * g * l * math.sin(th) end
  local x = { 0.1488743389816312, 0.4333953941292472, 0.6794095682990244, 0.8650633666889845, 0.9739065285171717 }
  local wt = { 0.2955242247147529, 0.2692667143231769, 0.2190863625159820, 0.1494513499847001, 0.0666713443086881 }
  local function fall(d)   -- from rest at theta_k = theta_c + d to theta_c
    local thk = thc + d
    local S, n, sum = math.sqrt(d), 16, 0
    local function f(sv)   -- V(thk) - V(thk - s^2) = m g l 2 cos(thk - s^2/2) sin(s^2/2)
      if sv == 0 then return 2 / math.sqrt(2 * m * g * l * math.cos(thk) / Je) end
      local dV = m * g * l * 2 * math.cos(thk - sv * sv / 2) * math.sin(sv * sv / 2)
      return 2 * sv / math.sqrt(2 * dV / Je)
    end
    for p = 0, n - 1 do
      local a, b = p * S / n, (p + 1) * S / n
      local c, r = (a + b) / 2, (b - a) / 2
      for i = 1, 5 do sum = sum + r * wt[i] * (f(c - r * x[i]) + f(c + r * x[i])) end
    end
    return sum
  end
  local function rise(dE)   -- d with V(theta_c + d) - V(theta_c) = dE, by Newton
    local d = dE / (m * g * l * math.cos(thc))
    for _ = 1, 50 do
      local r = m * g * l * 2 * math.cos(thc + d / 2) * math.sin(d / 2) - dE
      d = d - r / (m * g * l * math.cos(thc + d))
    end
    return d
  end
  local dE0 = V(math.pi / 12) - V(thc)
  local t, k = fall(math.pi / 12 - thc), 1
  repeat
    local Tk = 2 * fall(rise(dE0 * e ^ (2 * k)))
    t, k = t + Tk, k + 1
  until Tk < 1e-16 * t or k > 1000
  return t
end

return M
