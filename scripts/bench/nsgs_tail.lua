-- Benchmark helper (not a test): how NSGS approaches the solution of one step of the falling
-- pile (scripts/bench/disks_in_box.lua), and where the error left after K sweeps sits.
--
--   build/ricochet run scripts/bench/nsgs_tail.lua --quiet --set N=1000 --set T=0.9
--   build/ricochet run scripts/bench/nsgs_tail.lua --quiet --set N=1000 --set T=0.9 --set mu=0 --set relaxes=1,1.8
--
-- Runs disks_in_box.lua unchanged up to T (its own solver: tol 1e-4, at most 100 sweeps; any
-- of its --set parameters, e.g. mu), saves the state, and solves the next step again from
-- that state -- warm started as the run would be -- with NSGS in the fixed order stopped after
-- exactly K sweeps (tol 1e-14), for each K of `sweeps` and each over-relaxation of `relaxes`,
-- and with `ref` sweeps (relax 1) as the reference solution. For each K it prints the residual
-- (the solver's l2 test, ||r|| / (1 + ||b||)), and per class of the reference's active contacts
-- -- stick (|p_T| < mu p_N), slide (|p_T| = mu p_N), open (p_N = 0) -- how many there are and the
-- 2-norms of p - p_ref and u - u_ref over them, the contacts whose class differs from the
-- reference's, and those whose class changes in the next 10 sweeps. Returns { ref_residual, max_pT
-- (the reference's largest |p_T|), counts = { stick, slide, open }, rows = { { relax, sweeps,
-- residual, differs, flips }, ... } }
-- (tests/spec/nsgs_tail_spec.lua).
local rc = require "ricochet"

local sweeps_list = rc.param("sweeps", "1,10,30,100,300,1000,3000")
local relaxes = rc.param("relaxes", "1")
local ref_sweeps = math.tointeger(rc.param("ref", 20000, { min = 1 }))
local ck = rc.param("ck", "")   -- the checkpoint of the state at T ("": a temporary file, removed at the end)
local mu = rc.param("mu", 0.3, { min = 0 })   -- disks_in_box.lua's friction coefficient (its parameter too)

local function numbers(s, name)
  local t = {}
  for x in tostring(s):gmatch("[^,]+") do
    t[#t + 1] = assert(tonumber(x), name .. ": not a number: " .. x)
  end
  return t
end

-- disks_in_box.lua runs as it is; its simulation and definition are caught
local sim, def
local simulation = rc.World.simulation
rc.World.simulation = function(w, t)
  sim, def = simulation(w, t), t
  return sim
end
dofile((os.getenv("RICOCHET_ROOT") or ".") .. "/scripts/bench/disks_in_box.lua")
rc.World.simulation = simulation
local w = sim.world
local temporary = ck == ""
if temporary then ck = os.tmpname() end
sim:save(ck)

-- the next step solved with exactly K sweeps at over-relaxation omega: its active contacts by
-- id, and the residual
local function solve(K, omega)
  simulation(w, def):restore(ck)   -- the checkpoint's own settings, then the variant's
  local d = {}
  for k, v in pairs(def) do d[k] = v end
  d.solver = { "nsgs", tol = 1e-14, max_iter = K, relax = omega, order = "fixed", on_fail = "warn" }
  local s = simulation(w, d)
  s:step()
  local t = {}
  for _, c in ipairs(s:contacts()) do
    if c.active then t[c.id] = c end
  end
  return t, s:info().residual
end

local function class(c)
  if c.pN <= 0 then return "open" end
  return math.abs(c.pT) < mu * c.pN * (1 - 1e-9) and "stick" or "slide"
end

local ref, ref_res = solve(ref_sweeps, 1.0)
local result = { ref_residual = ref_res, rows = {} }
local counts = { stick = 0, slide = 0, open = 0 }
local max_pT = 0   -- the reference's largest |p_T| (0 without friction)
for _, c in pairs(ref) do
  counts[class(c)] = counts[class(c)] + 1
  max_pT = math.max(max_pT, math.abs(c.pT))
end
result.max_pT = max_pT
io.write(string.format("nsgs_tail: N = %d, t = %g, mu = %g: reference %d sweeps, residual %.3g; active contacts: %d stick, %d slide, %d open\n",
                       math.tointeger(rc.param("N", 1000)), rc.param("T", 1.0), mu, ref_sweeps, ref_res,
                       counts.stick, counts.slide, counts.open))
io.write("| relax | sweeps | residual | stick: |dp|, |du| | slide: |dp|, |du| | open: |dp|, |du| | class differs from the reference's | class changes in the next 10 sweeps |\n")
io.write("|---|---|---|---|---|---|---|---|\n")
for _, omega in ipairs(numbers(relaxes, "relaxes")) do
  for _, K in ipairs(numbers(sweeps_list, "sweeps")) do
    K = math.tointeger(K)
    local a, res = solve(K, omega)
    local b = solve(K + 10, omega)
    local e = { stick = { 0, 0 }, slide = { 0, 0 }, open = { 0, 0 } }
    local differs, flips = 0, 0
    for id, c in pairs(ref) do
      local x, cl = a[id], class(c)
      if x then
        e[cl][1] = e[cl][1] + (x.pN - c.pN) ^ 2 + (x.pT - c.pT) ^ 2
        e[cl][2] = e[cl][2] + (x.uN - c.uN) ^ 2 + (x.uT - c.uT) ^ 2
        if class(x) ~= cl then differs = differs + 1 end
        if b[id] and class(b[id]) ~= class(x) then flips = flips + 1 end
      else
        differs = differs + 1
      end
    end
    result.rows[#result.rows + 1] = { relax = omega, sweeps = K, residual = res, differs = differs, flips = flips }
    local function pair(k) return string.format("%.2e, %.2e", math.sqrt(e[k][1]), math.sqrt(e[k][2])) end
    io.write(string.format("| %g | %d | %.3g | %s | %s | %s | %d | %d |\n", omega, K, res, pair("stick"), pair("slide"),
                           pair("open"), differs, flips))
  end
end
if temporary then os.remove(ck) end
result.counts = counts
return result
