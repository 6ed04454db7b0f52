-- Benchmark: NSGS's convergence test, residual = "pass" against "sweep" (nsgs.c; not a
-- test; docs/benchmarks.md, "NSGS: the residual in the sweep").
--
-- Runs the falling piles of scripts/bench/disks_in_box.lua (N = 1 000 and 10 000, T = 1 s)
-- and the packed piles of scripts/bench/packed_pile.lua (N = 10 000 and 100 000, every
-- step at the 100-sweep cap), tolerance 1e-4, at most 100 sweeps, one thread, each with
-- residual = "pass" and "sweep", interleaved (pass, sweep, pass, ...; reps rounds), and
-- prints per case the medians of the process CPU per step, the sweeps per step, the steps
-- at the cap, the residual reached (the true one with both settings: disks, the largest
-- of a step; packed, the geometric mean), the largest overlap (disks: over the run;
-- packed: at the end), the local solves per second of solver CPU and of the sweeps alone
-- (sim:stats().sweep_solves / sweep_wall_s: the one-thread sweeps without the residual
-- passes, the packing and the set-up; "pass" only).
--
-- With base = another build's ricochet, every run is made with that build and then with
-- exe (base, exe, base, exe, ...), rows per build (docs/benchmarks.md, "NSGS: the hot
-- records"); the kernel's memory per grain at the end is printed too.
--
--   build/ricochet run scripts/bench/nsgs_residual.lua --set reps=3
--   build/ricochet run scripts/bench/nsgs_residual.lua --set cases=disks1k,packed10k --set reps=5
--   build/ricochet run scripts/bench/nsgs_residual.lua --set reps=3 --set base=/tmp/mainsrc/build/ricochet
--   ... --set residuals=pass   (one setting only: "pass,sweep" (the default), "pass" or "sweep")
local rc = require "ricochet"
local bench = dofile((os.getenv("RICOCHET_ROOT") or ".") .. "/scripts/bench/solver_bench.lua")
local median = bench.median

local reps = math.tointeger(rc.param("reps", 3))
local exe = rc.param("exe", "build/ricochet")
local want = rc.param("cases", "disks1k,disks10k,packed10k,packed100k")
local base = rc.param("base", "")
local modes = {}   -- the residual settings run: "pass,sweep" (both) or one of them
for m in rc.param("residuals", "pass,sweep", { one_of = { "pass,sweep", "pass", "sweep" } }):gmatch("[^,]+") do modes[#modes + 1] = m end
local builds = base ~= "" and { { name = "base", exe = base }, { name = "new", exe = exe } } or { { name = "", exe = exe } }

local all = {
  { key = "disks1k", name = "falling pile N = 1 000", script = "disks_in_box", args = "--set N=1000 --set T=1" },
  { key = "disks10k", name = "falling pile N = 10 000", script = "disks_in_box", args = "--set N=10000 --set T=1" },
  { key = "packed10k", name = "packed pile N = 10 000", script = "packed_pile", args = "--set N=10000 --set steps=11" },
  { key = "packed100k", name = "packed pile N = 100 000", script = "packed_pile", args = "--set N=100000 --set steps=6" },
}
local cases = {}
for _, c in ipairs(all) do if ("," .. want .. ","):find("," .. c.key .. ",", 1, true) then cases[#cases + 1] = c end end

local function num(out, pat) return tonumber(out:match(pat)) end

local function run(c, mode, bexe)
  local cmd = string.format("%s run scripts/bench/%s.lua %s --set residual=%s 2>/dev/null", bexe, c.script, c.args, mode)
  local f = assert(io.popen(cmd))
  local out = f:read("a")
  f:close()
  local r = {}
  if c.script == "disks_in_box" then
    r.cpu = num(out, "%(([%d.]+) ms/step%), solver")
    r.sweeps = num(out, "([%d.]+) sweeps/step")
    r.cap = num(out, "(%d+) steps at the cap")
    r.res = num(out, "largest residual of a step ([%d.e+-]+)")
    r.overlap = num(out, "over the run ([%d.e+-]+)")
    r.mem = num(out, "kernel memory ([%d.]+) bytes per grain")
  else
    r.cpu = num(out, "cpu ([%d.]+) s/step")
    r.cpu = r.cpu and 1e3 * r.cpu
    r.sweeps = num(out, "([%d.]+) sweeps/step")
    r.cap = num(out, "(%d+) steps at the cap")
    r.res = num(out, "residual ([%d.e+-]+) %(geometric mean%)")
    r.overlap = num(out, "largest overlap ([%d.e+-]+)")
    r.mem = num(out, "kernel ([%d.]+) B/grain")
  end
  r.rate = num(out, "([%d.e+-]+) local solves per second of solver CPU")
  r.sweep_rate = num(out, "sweeps alone ([%d.e+-]+) local solves per second") or 0   -- 0: no step timed (residual = "sweep")
  return bench.require_fields(r, { "cpu", "sweeps", "cap", "res", "overlap", "rate", "mem" }, cmd, out)
end

local results = {}
for _ = 1, reps do
  for _, c in ipairs(cases) do
    for _, m in ipairs(modes) do
      for _, b in ipairs(builds) do
        local key = c.key .. "/" .. m .. "/" .. b.name
        results[key] = results[key] or {}
        table.insert(results[key], run(c, m, b.exe))
      end
    end
  end
end
io.write(string.format("nsgs_residual: tol 1e-4, cap 100 sweeps, one thread, %d interleaved runs each, medians (process CPU)\n", reps))
if base ~= "" then io.write(string.format("base: %s, new: %s\n", base, exe)) end
io.write("| case | residual | build | CPU ms/step | sweeps/step | steps at the cap | residual reached | largest overlap | local solves/s (solver CPU) | local solves/s (the sweeps alone, wall) | kernel B/grain |\n")
io.write("|---|---|---|---|---|---|---|---|---|---|---|\n")
for _, c in ipairs(cases) do
  local cpu = {}
  for _, m in ipairs(modes) do
    for _, b in ipairs(builds) do
      local rs = results[c.key .. "/" .. m .. "/" .. b.name]
      local col = function(k) local t = {} for _, r in ipairs(rs) do t[#t + 1] = r[k] end return median(t) end
      cpu[m .. b.name] = col("cpu")
      io.write(string.format("| %s | %s | %s | %.3f | %.2f | %d | %.3g | %.3g | %.3g | %.3g | %.0f |\n", c.name, m, b.name, col("cpu"),
                             col("sweeps"), math.floor(col("cap")), col("res"), col("overlap"), col("rate"), col("sweep_rate"),
                             col("mem")))
    end
    if base ~= "" then
      io.write(string.format("| %s | %s | new / base | %.2f | | | | | | | |\n", c.name, m, cpu[m .. "new"] / cpu[m .. "base"]))
    end
  end
  local b = builds[#builds].name
  if #modes == 2 then
    io.write(string.format("| %s | sweep / pass | %s | %.2f | | | | | | | |\n", c.name, b, cpu["sweep" .. b] / cpu["pass" .. b]))
  end
end
