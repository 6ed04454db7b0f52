-- A flat-bottomed 2D silo discharging through its outlet (issue 20; docs/granular.md, "Silo").
--
-- A box of width `width` mean diameters d with a floor in two segments and, between them, an
-- outlet of `D` d closed by a gate (a segment). Polydisperse disks (radii uniform in
-- [1 - poly, 1 + poly] d/2) are poured: inserted at `rate` grains/s (in free slots across the
-- width, at speed `v_in` downwards, 6 d above the level reached) until N grains are in; once they have settled
-- (rms speed below `v_settle`, or after `t_settle` s) the gate is removed (w:remove_shape).
-- A grain whose centre falls `drop` d below the outlet is removed (b:remove()) and counted
-- as discharged; with `recycle` (the default) a new grain of the same radius is inserted at
-- the top, so that the level stays and the rate is steady (the usual way to measure it).
-- mu = 0.5 and e = 0 everywhere, Moreau--Jean with NSGS (order "colour", `threads`).
--
-- The rate W (kg/s) is the slope of the discharged mass M(t) fitted by least squares over
-- the steady window [t_open + transient, t_open + T]; the rates of its two halves are
-- printed beside it (steady when they differ by less than 15 %). The areal packing fraction
-- phi of the grains in the silo (a box away from the walls, the outlet and the surface),
-- averaged over the samples of the steady window (every `sample` s), gives the bulk density
-- rho_s = phi rho of Beverloo's law. A run in which no grain leaves for
-- `clog_time` s after the opening has clogged: it stops there (result `clogged`, `t_clog`).
--
--   build/ricochet run scripts/examples/silo_discharge.lua --out out/silo
--   build/ricochet run scripts/examples/silo_discharge.lua --set N=400 --set width=15 --set D=5 --set T=2 --out out/silo
--
-- Output (with --out DIR): DIR/discharge.csv (t - t_open, grains and mass discharged, every
-- `sample` s), DIR/discharge.svg (its figure, ricochet.plot), and the history of the
-- discharge (history.csv.gz, run.json: energies and the removed energy E_removed).
-- Parameters (each checked): N (3000), width (40 d), D (6 d), d (0.01 m), poly (0.2),
-- rho (1000 kg/m^2, the grains' areal density), mu (0.5), e (0), h (1e-3 s), margin (0.3 d),
-- tol (1e-4), max_iter (50: steps at the cap are accepted, counted in the summary), threads
-- (1), rate (3000 grains/s), v_in (1 m/s), drop (4 d), recycle (true), T (3 s of discharge),
-- transient (1 s), v_settle (0.02 m/s), t_settle (3 s), clog_time (0.5 s), sample (0.01 s),
-- seed (1), named (0: the first `named` grains poured are named "grain k", their columns in the
-- history).
local rc = require "ricochet"

local N         = rc.param("N", 3000, { min = 1 })
local width     = rc.param("width", 40.0, { min = 3 })          -- silo width, in d
local D         = rc.param("D", 6.0, { above = 0 })             -- outlet width, in d
local d         = rc.param("d", 0.01, { above = 0 })            -- mean diameter, m
local poly      = rc.param("poly", 0.2, { min = 0, below = 1 }) -- radii in [1 - poly, 1 + poly] d/2
local rho       = rc.param("rho", 1000.0, { above = 0 })        -- areal density of a grain, kg/m^2
local mu        = rc.param("mu", 0.5, { min = 0 })
local e         = rc.param("e", 0.0, { min = 0, max = 1 })
local h         = rc.param("h", 1e-3, { above = 0 })
local margin    = rc.param("margin", 0.3, { min = 0 })          -- contact detection distance, in d
local tol       = rc.param("tol", 1e-4, { above = 0 })
local max_iter  = rc.param("max_iter", 50, { min = 1 })
local threads   = rc.param("threads", 1, { min = 1 })
local rate      = rc.param("rate", 3000.0, { above = 0 })       -- pouring, grains/s
local v_in      = rc.param("v_in", 1.0, { min = 0 })            -- downward speed at insertion, m/s
local drop      = rc.param("drop", 4.0, { above = 0 })          -- removal depth below the outlet, in d
local recycle   = rc.param("recycle", true)
local T         = rc.param("T", 3.0, { above = 0 })             -- discharge time after the opening, s
local transient = rc.param("transient", 1.0, { min = 0 })       -- start of the steady window after the opening
local v_settle  = rc.param("v_settle", 0.02, { above = 0 })     -- rms speed at which the fill has settled
local t_settle  = rc.param("t_settle", 3.0, { above = 0 })      -- longest wait after the last grain is in
local clog_time = rc.param("clog_time", 0.5, { above = 0 })     -- no grain out for this long: clogged
local sample    = rc.param("sample", 0.01, { above = 0 })       -- row spacing of discharge.csv, s
local seed      = rc.param("seed", 1)
local named     = rc.param("named", 0, { min = 0 })              -- the first `named` grains poured are
                                                                  -- named "grain k": history columns
if transient >= T then error("parameter 'transient': must be below T (got " .. transient .. " >= " .. T .. ")") end
if D >= width then error("parameter 'D': must be below width (got " .. D .. " >= " .. width .. ")") end

math.randomseed(seed)
local g, r0 = 9.81, d / 2
local rmax = (1 + poly) * r0
local Wm, xo1, xo2 = width * d, (width - D) * d / 2, (width + D) * d / 2
-- the fill height N grains give at a packing fraction of about 0.8, and the insertion row above it
local mean_area = math.pi * r0 * r0 * (1 + poly * poly / 3)
local H_fill = N * mean_area / (0.8 * Wm)
local y_in = H_fill + 6 * d
local w = rc.world{ gravity = { 0, -g }, margin = margin * d, default_law = rc.newton{ e = e, mu = mu } }
w:segment{ a = { 0, 0 }, b = { 0, y_in + 4 * d }, group = 1, name = "left wall" }
w:segment{ a = { Wm, 0 }, b = { Wm, y_in + 4 * d }, group = 1, name = "right wall" }
w:segment{ a = { 0, 0 }, b = { xo1, 0 }, group = 1, name = "left floor" }
w:segment{ a = { xo2, 0 }, b = { Wm, 0 }, group = 1, name = "right floor" }
local gate = w:segment{ a = { xo1, 0 }, b = { xo2, 0 }, group = 1, name = "gate" }

-- grains: radius by body id (ids are reused after a removal), the radii waiting for insertion
local radius, pending, inserted = {}, {}, 0
for i = 1, N do pending[i] = r0 * (1 + poly * (2 * math.random() - 1)) end
local nslots = math.max(1, math.floor(Wm / (2.2 * rmax)))
local slot_dx, next_slot, credit = Wm / nslots, 0, 0.0
-- the insertion row: while pouring, 6 d above the level the grains in so far make (a short fall:
-- a grain at speed u overlaps by up to h u where it lands), then at the top (H_fill + 6 d)
local function y_row() return math.min(y_in, 6 * d + H_fill * inserted / N) end
local function slot_free(x, y)
  return #w:query_box{ lo = { x - 1.05 * rmax, y - 1.05 * rmax }, hi = { x + 1.05 * rmax, y + 1.05 * rmax } } == 0
end
-- inserts at most `rate h` grains per step (the credit carries over), each in the next free slot
local function pour()
  credit = math.min(credit + rate * h, nslots)
  local tried = 0
  while credit >= 1 and #pending > 0 and tried < nslots do
    local x = (next_slot + 0.5) * slot_dx + 0.1 * d * (2 * math.random() - 1)
    next_slot, tried = (next_slot + 1) % nslots, tried + 1
    local y = y_row()
    if slot_free(x, y) then
      local r = table.remove(pending, 1)
      local m = rho * math.pi * r * r
      local b = w:body{ mass = m, inertia = 0.5 * m * r * r, q = { x, y, 0 }, v = { 0, -v_in, 0 },
                        shape = rc.disk{ radius = r }, name = inserted < named and ("grain " .. inserted + 1) or nil }
      radius[b.id] = r
      inserted, credit = inserted + 1, credit - 1
    end
  end
end

local sim = w:simulation{ h = h, solver = { "nsgs", tol = tol, max_iter = max_iter, on_fail = "warn",
                                            order = "colour", threads = threads } }
local phase, t_open = "pour", nil
local out_n, out_mass, t_last_out = 0, 0.0, nil
local rows = { { 0.0, 0, 0.0 } }
local next_sample = sample
local clogged, t_clog = false, nil
local removed_ids = {}    -- every removal: { id, generation-free check by the spec }
local packing_fraction    -- (below) the areal packing fraction of the silo's bulk
local phi_sum, phi_n = 0.0, 0   -- its samples in the steady window

sim:before_step(pour)
sim:after_step(function(s)
  if phase ~= "discharge" then return end
  local below = w:query_box{ lo = { -1e3, -1e3 }, hi = { 1e3, -drop * d }, group = 0 }
  for _, hit in ipairs(below) do
    local b, r = hit.body, radius[hit.body.id]
    removed_ids[#removed_ids + 1] = b.id
    b:remove()
    out_n, out_mass, t_last_out = out_n + 1, out_mass + rho * math.pi * r * r, s.t
    if recycle then pending[#pending + 1] = r end
  end
  while s.t - t_open >= next_sample - 1e-9 do
    rows[#rows + 1] = { next_sample, out_n, out_mass }
    if next_sample >= transient - 1e-9 then
      local f = packing_fraction()
      if f == f then phi_sum, phi_n = phi_sum + f, phi_n + 1 end
    end
    next_sample = next_sample + sample
  end
  if s.t - (t_last_out or t_open) > clog_time then clogged, t_clog = true, t_last_out or t_open; s:stop() end
end)

-- the areal packing fraction of the grains whose centres lie in a box away from the walls
-- (2 d), the floor (outlet height + 2 d) and the surface (6 d below the fill height)
function packing_fraction()
  local lo, hi = { 2 * d, math.max(D, 2) * d + 2 * d }, { Wm - 2 * d, H_fill - 6 * d }
  if hi[2] <= lo[2] + 2 * d then return 0 / 0 end
  local area = 0.0
  for _, hit in ipairs(w:query_box{ lo = lo, hi = hi, group = 0 }) do
    local q, r = hit.body:q(), radius[hit.body.id]
    if q[1] >= lo[1] and q[1] <= hi[1] and q[2] >= lo[2] and q[2] <= hi[2] then area = area + math.pi * r * r end
  end
  return area / ((hi[1] - lo[1]) * (hi[2] - lo[2]))
end

-- 1. pouring, then settling (step by step: no output, the history is the discharge's)
local c0 = os.clock()
local t_poured, fill_steps, fill_capped = nil, 0, 0
local fill_mass = rho * mean_area * N
repeat
  sim:step()
  local info = sim:info()
  fill_steps = fill_steps + 1
  if not info.converged then fill_capped = fill_capped + 1 end
  if not t_poured and #pending == 0 then t_poured = sim.t end
  local settled = t_poured and fill_steps % 20 == 0
      and (math.sqrt(2 * info.E_kin / fill_mass) < v_settle or sim.t - t_poured > t_settle)
  if fill_steps > 1e3 / h then error("silo_discharge: the pour did not end after 1000 s") end
until settled
local cpu_fill = os.clock() - c0
local phi_fill = packing_fraction()

-- 2. the outlet opened: discharge for T s
w:remove_shape(gate)
phase, t_open = "discharge", sim.t
c0 = os.clock()
local summary = sim:run{ T = t_open + T }
local cpu_dis = os.clock() - c0
local t_end = sim.t
if not clogged then rows[#rows + 1] = { t_end - t_open, out_n, out_mass } end
local phi = phi_n > 0 and phi_sum / phi_n or packing_fraction()   -- the window's mean (else, clogged before it: now)

-- least-squares slope of the mass over [a, b] (times after the opening)
local function slope(a, b)
  local n, sx, sy, sxx, sxy = 0, 0.0, 0.0, 0.0, 0.0
  for _, row in ipairs(rows) do
    if row[1] >= a - 1e-9 and row[1] <= b + 1e-9 then
      n, sx, sy, sxx, sxy = n + 1, sx + row[1], sy + row[3], sxx + row[1] ^ 2, sxy + row[1] * row[3]
    end
  end
  if n < 2 then return 0 / 0 end
  return (n * sxy - sx * sy) / (n * sxx - sx * sx)
end
local rate_W, rate_1, rate_2 = 0 / 0, 0 / 0, 0 / 0
if not clogged then
  local mid = (transient + T) / 2
  rate_W, rate_1, rate_2 = slope(transient, T), slope(transient, mid), slope(mid, T)
end

local st = sim:stats()
local out = summary.out
if out then
  local f = assert(io.open(out .. "/discharge.csv", "w"))
  f:write(string.format("# silo_discharge: width %g d, D %g d, d %g m, N %d, seed %s, rho %g kg/m^2; t from the opening\n",
    width, D, d, N, tostring(seed), rho))
  f:write("t,grains,mass\n")
  for _, row in ipairs(rows) do f:write(string.format("%.6g,%d,%.9g\n", row[1], row[2], row[3])) end
  assert(f:close())
  local plot = require "ricochet.plot"
  local ts, ms, fit = {}, {}, {}
  local t_mid, m_mid = 0.0, 0.0
  for _, row in ipairs(rows) do if row[1] >= transient then t_mid, m_mid = row[1], row[3] break end end
  for i, row in ipairs(rows) do
    ts[i], ms[i] = row[1], row[3]
    fit[i] = (rate_W == rate_W and row[1] >= transient) and m_mid + rate_W * (row[1] - t_mid) or 0 / 0
  end
  plot.svg{ file = out .. "/discharge.svg", x = ts, xlabel = "t after the opening [s]",
            title = string.format("silo discharge: width %g d, outlet D = %g d, %d grains", width, D, N),
            series = { { name = "discharged mass", y = ms },
                       { name = string.format("steady fit W = %.4g kg/s", rate_W), y = fit } },
            ylabel = "mass [kg]" }
end

local steps_dis = summary.steps
io.write(string.format(
  "silo_discharge: width %g d, D %g d, N %d: poured and settled in %.3f s (phi %.3f), discharge %.3f s%s: %d grains, %.4g kg; " ..
  "W = %.5g kg/s over [%g, %g] s (halves %.5g, %.5g: %+.1f %%), phi %.3f; cpu %.1f s fill + %.1f s discharge (%.1f s per simulated s, %.2f ms/step), " ..
  "%d steps at the sweep cap of %d, largest overlap %.3g d (t = %.3g s)\n",
  width, D, N, t_open, phi_fill, t_end - t_open, clogged and string.format(" (clogged at %.3f s)", t_clog - t_open) or "",
  out_n, out_mass, rate_W, transient, T, rate_1, rate_2, 100 * (rate_2 - rate_1) / rate_W, phi,
  cpu_fill, cpu_dis, cpu_dis / math.max(t_end - t_open, h), 1e3 * cpu_dis / math.max(steps_dis, 1),
  fill_capped + summary.failures, fill_steps + summary.steps, (st.max_overlap or 0 / 0) / d, st.t_max_overlap or 0 / 0))

return { W = rate_W, W1 = rate_1, W2 = rate_2, phi = phi, phi_fill = phi_fill, rho = rho, d = d, D = D, width = width,
         clogged = clogged, t_clog = clogged and (t_clog - t_open) or nil, t_open = t_open, grains_out = out_n,
         mass_out = out_mass, inserted = inserted, waiting = #pending, removed_ids = removed_ids, rows = rows, summary = summary, fill_steps = fill_steps, fill_capped = fill_capped,
         cpu_fill = cpu_fill, cpu_discharge = cpu_dis, max_overlap = st.max_overlap, world = w, sim = sim }
