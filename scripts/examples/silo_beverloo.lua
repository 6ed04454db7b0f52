-- Beverloo's law in 2D and clogging, from scripts/examples/silo_discharge.lua (issue 20;
-- docs/granular.md, "Silo").
--
-- 1. The silo discharges through outlets of `widths` mean diameters d (default 5, 6, 7, 8,
--    10, 12); each run's steady rate W (kg/s, recycled grains) is fitted to Beverloo's law in 2D,
--        W = C rho_s sqrt(g) (D - k d)^(3/2),
--    rho_s = phi rho the bulk (areal) density, phi the packing fraction measured in the silo
--    during the discharge (the mean over the runs; see silo_discharge.lua): W^(2/3) = a D + b
--    by least squares, a = (C rho_s sqrt(g))^(2/3), k = -b / (a d). Runs that clog are left out of the fit
--    (printed).
-- 2. Clogging: for outlets of `clog_widths` d (default 3, 4, 5), `clog_seeds` runs each
--    (pours with other seeds) in a smaller silo (`clog_N` grains, `clog_width` d): the
--    fraction of runs that clog within `clog_T` s of the opening (no grain out for the silo's
--    `clog_time`, 0.5 s), with its binomial standard error sqrt(P (1 - P) / n).
--
--   build/ricochet run scripts/examples/silo_beverloo.lua --out out/beverloo
--   build/ricochet run scripts/examples/silo_beverloo.lua --set N=1500 --set width=30 --out out/beverloo
--
-- Output (--out DIR, required): DIR/beverloo.csv and beverloo.svg (W and W^(2/3) against D/d
-- with the fit), DIR/clogging.csv (one row per run) and clogging.svg, and DIR/D<w>/ the
-- discharge.csv, discharge.svg and history of each outlet of part 1.
-- Parameters: N (3000), width (40 d), widths ("5,6,7,8,10,12"), T (3 s), transient (1 s), h (1e-3),
-- tol (1e-4), max_iter (50), threads (1), seed (1), clog_widths ("3,4,5"), clog_seeds (8),
-- clog_N (600), clog_width (20 d), clog_T (2 s); the grains, mu = 0.5 and e = 0 are the
-- silo's defaults (silo_discharge.lua).
local rc = require "ricochet"

local function list(name, default)
  local s, out = rc.param(name, default), {}
  for x in s:gmatch("[^,%s]+") do
    local v = tonumber(x)
    if not v or v <= 0 then error(string.format("parameter '%s': expected positive numbers separated by commas (got '%s')", name, s)) end
    out[#out + 1] = v
  end
  if #out == 0 then error(string.format("parameter '%s': empty list", name)) end
  return out
end
local N           = rc.param("N", 3000, { min = 1 })
local width       = rc.param("width", 40.0, { min = 3 })
local widths      = list("widths", "5,6,7,8,10,12")
local T           = rc.param("T", 3.0, { above = 0 })
local transient   = rc.param("transient", 1.0, { min = 0 })
local h           = rc.param("h", 1e-3, { above = 0 })
local tol         = rc.param("tol", 1e-4, { above = 0 })
local max_iter    = rc.param("max_iter", 50, { min = 1 })
local threads     = rc.param("threads", 1, { min = 1 })
local seed        = rc.param("seed", 1)
local clog_widths = list("clog_widths", "3,4,5")
local clog_seeds  = rc.param("clog_seeds", 8, { min = 0 })
local clog_N      = rc.param("clog_N", 600, { min = 1 })
local clog_width  = rc.param("clog_width", 20.0, { min = 3 })
local clog_T      = rc.param("clog_T", 2.0, { above = 0 })
local g = 9.81

local options = rc.options()
local out = options.out
if type(out) ~= "string" or out == "" then error("silo_beverloo: give an output folder (--out DIR)") end
local here = (options.script or (arg and arg[0]) or "scripts/examples/silo_beverloo.lua"):match("^(.*)/[^/]*$") or "."
local silo_path = here .. "/silo_discharge.lua"

-- one silo run with these parameters (strings, as --set gives them), its output in `dir`
local function silo(set, dir)
  local o = {}
  for k, v in pairs(options) do o[k] = v end
  o.set, o.out, o.script = set, dir, silo_path
  rc.set_options(o)
  local chunk = assert(loadfile(silo_path))
  local ok, res = pcall(chunk)
  rc.set_options(options)
  if not ok then error(res, 0) end
  res.world:close()
  return res
end
local function common(t)
  t.h, t.tol, t.max_iter, t.threads = tostring(h), tostring(tol), tostring(max_iter), tostring(threads)
  return t
end

-- 1. the rates
local flows, cpu = {}, 0.0
for _, D in ipairs(widths) do
  local dir = string.format("%s/D%g", out, D)
  local r = silo(common{ N = tostring(N), width = tostring(width), D = tostring(D), T = tostring(T),
                         transient = tostring(transient), seed = tostring(seed) }, dir)
  flows[#flows + 1] = r
  cpu = cpu + r.cpu_fill + r.cpu_discharge
end
local fit_pts, phi_sum, phi_n = {}, 0.0, 0
for _, r in ipairs(flows) do
  if not r.clogged then
    fit_pts[#fit_pts + 1] = r
    -- (a silo too low for the measuring box gives NaN: the settled fill's then)
    local p = r.phi == r.phi and r.phi or r.phi_fill
    if p == p then phi_sum, phi_n = phi_sum + p, phi_n + 1 end
  else
    io.write(string.format("silo_beverloo: D = %g d clogged at %.2f s: left out of the fit\n", r.D, r.t_clog))
  end
end
local d, rho = flows[1].d, flows[1].rho
local C, k, phi, rho_s = 0 / 0, 0 / 0, 0 / 0, 0 / 0
if #fit_pts >= 2 then
  local n, sx, sy, sxx, sxy = #fit_pts, 0.0, 0.0, 0.0, 0.0
  for _, r in ipairs(fit_pts) do
    local x, y = r.D * d, r.W ^ (2 / 3)
    sx, sy, sxx, sxy = sx + x, sy + y, sxx + x * x, sxy + x * y
  end
  local a = (n * sxy - sx * sy) / (n * sxx - sx * sx)
  local b = (sy - a * sx) / n
  phi = phi_sum / phi_n
  rho_s = phi * rho
  C, k = a ^ 1.5 / (rho_s * math.sqrt(g)), -b / (a * d)
end
local function beverloo(D) return D > k and C * rho_s * math.sqrt(g) * ((D - k) * d) ^ 1.5 or 0.0 end

local f = assert(io.open(out .. "/beverloo.csv", "w"))
f:write(string.format("# silo_beverloo: width %g d, N %d, d %g m, rho %g kg/m^2, h %g, tol %g, max_iter %d; fit C = %.4f, k = %.4f, phi = %.4f\n",
  width, N, d, rho, h, tol, max_iter, C, k, phi))
f:write("D_over_d,W,W_first_half,W_second_half,phi,clogged,W_fit\n")
for _, r in ipairs(flows) do
  f:write(string.format("%g,%.6g,%.6g,%.6g,%.4f,%s,%.6g\n", r.D, r.W, r.W1, r.W2, r.phi, tostring(r.clogged), beverloo(r.D)))
end
assert(f:close())

local plot = require "ricochet.plot"
local xs, Ws, Wf, W23, W23f = {}, {}, {}, {}, {}
for i, r in ipairs(flows) do
  xs[i], Ws[i], Wf[i] = r.D, r.W, beverloo(r.D)
  W23[i], W23f[i] = r.W ^ (2 / 3), beverloo(r.D) ^ (2 / 3)
end
plot.svg{ file = out .. "/beverloo.svg", x = xs, xlabel = "outlet D / d",
          title = string.format("2D silo, %d disks, width %g d: Beverloo fit C = %.3f, k = %.3f", N, width, C, k),
          panels = { { title = "rate", ylabel = "W [kg/s]",
                       series = { { name = "measured", y = Ws }, { name = "Beverloo fit", y = Wf } } },
                     { title = "linearised", ylabel = "W^(2/3) [(kg/s)^(2/3)]",
                       series = { { name = "measured", y = W23 }, { name = "a D + b", y = W23f } } } } }

-- 2. clogging
local clog_rows, P, P_err, t_mean = {}, {}, {}, {}
for i, D in ipairs(clog_widths) do
  local n_clog, t_sum = 0, 0.0
  for s = 1, clog_seeds do
    local r = silo(common{ N = tostring(clog_N), width = tostring(clog_width), D = tostring(D),
                           T = tostring(clog_T + 0.5), transient = tostring(clog_T / 2), seed = tostring(100 * i + s) }, nil)
    cpu = cpu + r.cpu_fill + r.cpu_discharge
    local clogged = r.clogged and r.t_clog <= clog_T
    if clogged then n_clog, t_sum = n_clog + 1, t_sum + r.t_clog end
    clog_rows[#clog_rows + 1] = { D, 100 * i + s, clogged, r.t_clog or 0 / 0, r.grains_out }
  end
  P[i] = clog_seeds > 0 and n_clog / clog_seeds or 0 / 0
  P_err[i] = clog_seeds > 0 and math.sqrt(P[i] * (1 - P[i]) / clog_seeds) or 0 / 0
  t_mean[i] = n_clog > 0 and t_sum / n_clog or 0 / 0
end
f = assert(io.open(out .. "/clogging.csv", "w"))
f:write(string.format("# silo_beverloo: clogging within %g s, width %g d, N %d\n", clog_T, clog_width, clog_N))
f:write("D_over_d,seed,clogged,t_clog,grains_out\n")
for _, row in ipairs(clog_rows) do
  f:write(string.format("%g,%d,%s,%.4g,%d\n", row[1], row[2], tostring(row[3]), row[4], row[5]))
end
assert(f:close())
if clog_seeds > 0 then
  local lo, hi = {}, {}
  for i = 1, #P do lo[i], hi[i] = math.max(0, P[i] - P_err[i]), math.min(1, P[i] + P_err[i]) end
  plot.svg{ file = out .. "/clogging.svg", x = clog_widths, xlabel = "outlet D / d",
            title = string.format("clogging within %g s: %d runs per outlet (width %g d, %d disks)", clog_T, clog_seeds, clog_width, clog_N),
            series = { { name = "P(clog)", y = P }, { name = "P - s.e.", y = lo }, { name = "P + s.e.", y = hi } },
            ylabel = "probability" }
end

for _, r in ipairs(flows) do
  io.write(string.format("silo_beverloo: D = %5.2f d  W = %8.4f kg/s (halves %+.1f %%)  phi %.3f  fit %8.4f\n",
    r.D, r.W, 100 * (r.W2 - r.W1) / r.W, r.phi, beverloo(r.D)))
end
io.write(string.format("silo_beverloo: Beverloo 2D fit over %d outlets: C = %.4f, k = %.4f (phi = %.4f, rho_s = %.1f kg/m^2)\n",
  #fit_pts, C, k, phi, rho_s))
for i, D in ipairs(clog_widths) do
  io.write(string.format("silo_beverloo: D = %g d: P(clog within %g s) = %.2f +- %.2f over %d runs (mean time %.3g s)\n",
    D, clog_T, P[i], P_err[i], clog_seeds, t_mean[i]))
end
io.write(string.format("silo_beverloo: cpu %.1f s in all\n", cpu))
return { C = C, k = k, phi = phi, rho_s = rho_s, flows = flows, P = P, P_err = P_err, clog_widths = clog_widths,
         clog_rows = clog_rows, cpu = cpu }
