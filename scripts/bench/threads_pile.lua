-- Benchmark: one and two threads on the falling pile of scripts/bench/disks_in_box.lua
-- (not a test; docs/benchmarks.md, "Sweep orders and threads").
--
-- Runs the N-disk pile (default N = 10 000, T = 1 s, tol 1e-4, at most 100 sweeps) with
-- order = "fixed" on one thread and with orders "slabs" and "colour" on two threads (always
-- sharing: adaptive_threads = false), interleaved (fixed, slabs, colour, fixed, ...; reps
-- rounds), and prints per configuration the medians of the wall time per step, the
-- speed-up over the fixed order on one thread and the efficiency (speed-up / 2), with the
-- sweeps per step and the steps at the cap (the same for every thread count, bit for bit).
-- With base = another build's ricochet, every configuration is run with that build and
-- then with exe, and each build's speed-ups are against its own one-thread runs.
--
-- numbering = "rows" (default), "columns" or "rows,columns" (both, interleaved): the bodies'
-- numbering of disks_in_box.lua (the same disks numbered row by row or column by column);
-- each numbering's speed-ups are against its own fixed order on one thread.
--
--   build/ricochet run scripts/bench/threads_pile.lua --set reps=5
--   build/ricochet run scripts/bench/threads_pile.lua --set reps=5 --set numbering=rows,columns
--   build/ricochet run scripts/bench/threads_pile.lua --set reps=5 --set base=/tmp/mainsrc/build/ricochet
local rc = require "ricochet"
local bench = dofile((os.getenv("RICOCHET_ROOT") or ".") .. "/scripts/bench/solver_bench.lua")

local reps = math.tointeger(rc.param("reps", 3))
local N = math.tointeger(rc.param("N", 10000))
local T = rc.param("T", 1.0)
local exe = rc.param("exe", "build/ricochet")
local base = rc.param("base", "")
local builds = base ~= "" and { { name = "base", exe = base }, { name = "new", exe = exe } } or { { name = "new", exe = exe } }
local numberings = {}
for nb in rc.param("numbering", "rows"):gmatch("[^,]+") do
  if nb ~= "rows" and nb ~= "columns" then error("numbering: rows, columns or rows,columns (got " .. nb .. ")") end
  numberings[#numberings + 1] = nb
end
local configs = {}
for _, nb in ipairs(numberings) do
  for _, c in ipairs { { order = "fixed", threads = 1 }, { order = "slabs", threads = 2 }, { order = "colour", threads = 2 } } do
    configs[#configs + 1] = { order = c.order, threads = c.threads, numbering = nb, key = nb .. "/" .. c.order }
  end
end

local function run(cfg, bexe)
  local cmd = string.format("%s run scripts/bench/disks_in_box.lua --quiet --set N=%d --set T=%s --set order=%s "
                            .. "--set threads=%d --set adaptive=0 --set numbering=%s 2>/dev/null", bexe, N, T, cfg.order, cfg.threads,
                            cfg.numbering)
  local f = assert(io.popen(cmd))
  local out = f:read("a")
  f:close()
  local r = {
    wall = tonumber(out:match("wall ([%d.]+) ms/step")),
    sweeps = tonumber(out:match("([%d.]+) sweeps/step")),
    cap = tonumber(out:match("(%d+) steps at the cap")),
    shared = tonumber(out:match("(%d+) parallel steps")),
  }
  return bench.require_fields(r, { "wall", "sweeps", "cap", "shared" }, cmd, out)
end

local results = {}
for _ = 1, reps do
  for _, cfg in ipairs(configs) do
    for _, b in ipairs(builds) do
      local key = b.name .. "/" .. cfg.key
      results[key] = results[key] or {}
      table.insert(results[key], run(cfg, b.exe))
    end
  end
end
io.write(string.format("threads_pile: N = %d, T = %s s, tol 1e-4, cap 100 sweeps, %d interleaved runs each, medians of the wall time\n",
                       N, tostring(T), reps))
if base ~= "" then io.write(string.format("base: %s, new: %s\n", base, exe)) end
io.write("| build | numbering | order | threads | wall ms/step (min-max) | speed-up over fixed, 1 thread | efficiency | sweeps/step | steps at the cap | steps shared |\n")
io.write("|---|---|---|---|---|---|---|---|---|---|\n")
for _, b in ipairs(builds) do
  local one
  for _, cfg in ipairs(configs) do
    local rs = results[b.name .. "/" .. cfg.key]
    local walls = {}
    for _, r in ipairs(rs) do walls[#walls + 1] = r.wall end
    local w = bench.median(walls)
    if cfg.order == "fixed" then one = w end
    io.write(string.format("| %s | %s | %s | %d | %.2f (%.2f-%.2f) | %.2f | %.2f | %.2f | %d | %d |\n", b.name, cfg.numbering, cfg.order,
                           cfg.threads, w, walls[1], walls[#walls], one / w, one / w / cfg.threads, rs[1].sweeps, rs[1].cap, rs[1].shared))
  end
end
