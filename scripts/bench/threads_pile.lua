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
-- Each round's two-thread runs are also paired with that round's one-thread run (same build
-- and numbering): the second table gives the efficiencies of those pairs, their median, range
-- and how many rounds reached 0.8 -- a drifting machine moves both runs of a pair together.
-- With ceiling = 1, every round also runs two one-thread processes at the same time: how much
-- each slows down beside the other (one-thread wall alone / beside it) is the most a two-thread
-- run can reach on the machine at that moment, printed per round with the pile's efficiency.
-- orders = "slabs,colour" (default): the two-thread orders run; "slabs1" and "colour1" add those
-- orders on one thread.
--
--   build/ricochet run scripts/bench/threads_pile.lua --set reps=5
--   build/ricochet run scripts/bench/threads_pile.lua --set reps=9 --set orders=slabs --set ceiling=1
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
local ceiling = rc.param("ceiling", 0) ~= 0
local orders = { { order = "fixed", threads = 1 } }
for o in rc.param("orders", "slabs,colour"):gmatch("[^,]+") do
  if o == "slabs1" or o == "colour1" then orders[#orders + 1] = { order = o:sub(1, -2), threads = 1 }   -- on one thread
  elseif o == "slabs" or o == "colour" then orders[#orders + 1] = { order = o, threads = 2 }
  else error("orders: slabs, colour, slabs1, colour1 (those two on one thread), comma-separated (got " .. o .. ")") end
end
local configs = {}
for _, nb in ipairs(numberings) do
  for _, c in ipairs(orders) do
    configs[#configs + 1] = { order = c.order, threads = c.threads, numbering = nb, key = nb .. "/" .. c.order .. "/" .. c.threads }
  end
end

local function command(cfg, bexe)
  return string.format("%s run scripts/bench/disks_in_box.lua --quiet --set N=%d --set T=%s --set order=%s "
                       .. "--set threads=%d --set adaptive=0 --set numbering=%s 2>/dev/null", bexe, N, T, cfg.order, cfg.threads,
                       cfg.numbering)
end

local function parse(out, cmd)
  local r = {
    wall = tonumber(out:match("wall ([%d.]+) ms/step")),
    sweeps = tonumber(out:match("([%d.]+) sweeps/step")),
    cap = tonumber(out:match("(%d+) steps at the cap")),
    shared = tonumber(out:match("(%d+) parallel steps")),
  }
  return bench.require_fields(r, { "wall", "sweeps", "cap", "shared" }, cmd, out)
end

local function run(cfg, bexe)
  local cmd = command(cfg, bexe)
  local f = assert(io.popen(cmd))
  local out = f:read("a")
  f:close()
  return parse(out, cmd)
end

-- two one-thread runs at the same time (the machine's two cores both busy): their walls
local function run_beside(cfg, bexe)
  local cmd, files = command(cfg, bexe), { os.tmpname(), os.tmpname() }
  assert(os.execute(string.format("(%s > %s & %s > %s & wait)", cmd, files[1], cmd, files[2])))
  local walls = {}
  for i, name in ipairs(files) do
    local f = assert(io.open(name))
    walls[i] = parse(f:read("a"), cmd).wall
    f:close()
    os.remove(name)
  end
  return walls
end

local results, rounds = {}, {}
for round = 1, reps do
  rounds[round] = {}
  for _, cfg in ipairs(configs) do
    for _, b in ipairs(builds) do
      local key = b.name .. "/" .. cfg.key
      results[key] = results[key] or {}
      local r = run(cfg, b.exe)
      table.insert(results[key], r)
      rounds[round][key] = r
      if ceiling and cfg.threads == 1 then rounds[round][key .. "/beside"] = run_beside(cfg, b.exe) end
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

-- each round's two-thread runs against the same round's one-thread run
io.write("\nthreads_pile: each round's efficiency, the two-thread run against the same round's one-thread run"
         .. (ceiling and "; ceiling: one-thread wall alone / beside another one-thread run (two processes at once)" or "") .. "\n")
io.write("| build | numbering | order | efficiency per round | median (min-max) | rounds >= 0.8 |" .. (ceiling and " ceiling per round | median ceiling |" or "") .. "\n")
io.write("|---|---|---|---|---|---|" .. (ceiling and "---|---|" or "") .. "\n")
for _, b in ipairs(builds) do
  for _, cfg in ipairs(configs) do
    if cfg.threads > 1 then
      local one, effs, caps, sorted, csorted, hits = b.name .. "/" .. cfg.numbering .. "/fixed/1", {}, {}, {}, {}, 0
      for round = 1, reps do
        local e = rounds[round][one].wall / rounds[round][b.name .. "/" .. cfg.key].wall / cfg.threads
        effs[#effs + 1] = string.format("%.2f", e)
        sorted[#sorted + 1] = e
        if e >= 0.8 then hits = hits + 1 end
        local bs = rounds[round][one .. "/beside"]
        if bs then
          local c = rounds[round][one].wall / (0.5 * (bs[1] + bs[2]))
          caps[#caps + 1] = string.format("%.2f", c)
          csorted[#csorted + 1] = c
        end
      end
      local m = bench.median(sorted)
      io.write(string.format("| %s | %s | %s | %s | %.2f (%.2f-%.2f) | %d of %d |", b.name, cfg.numbering, cfg.order, table.concat(effs, " "),
                             m, sorted[1], sorted[#sorted], hits, reps))
      if ceiling then io.write(string.format(" %s | %.2f |", table.concat(caps, " "), bench.median(csorted))) end
      io.write("\n")
    end
  end
end
