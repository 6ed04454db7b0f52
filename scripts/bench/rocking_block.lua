-- Benchmark: the rocking block of Acary & Collins-Craft 2024 (section 5.2),
-- 10 000 steps of h = 1e-4, NSGS tolerance 1e-10 (not a test).
--   build/ricochet run scripts/bench/rocking_block.lua
local rc = require "ricochet"
local root = os.getenv("RICOCHET_ROOT") or "."
local reps = rc.param("reps", 20)
local best = math.huge
for _ = 1, reps do
  local c0 = os.clock()
  local chunk = assert(loadfile(root .. "/scripts/papers/acary2024_rocking_block.lua"))
  local summary = chunk()
  local cpu = os.clock() - c0
  assert(summary.steps == 10000, "expected 10 000 steps")
  if cpu < best then best = cpu end
end
io.write(string.format("rocking_block: 10000 steps, best of %d runs: cpu %.4f s (%.2f us/step)\n",
  reps, best, 1e6 * best / 10000))
