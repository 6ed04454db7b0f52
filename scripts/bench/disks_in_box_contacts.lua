-- Benchmark helper: runs scripts/bench/disks_in_box.lua unchanged (same parameters, same
-- printed line) and then prints the contact counts of its last step, for the table of
-- scripts/bench/compare. The simulation object is caught by wrapping rc.World.simulation;
-- nothing is added to the steps, so the timing is that of disks_in_box.lua.
--
--   build/ricochet run scripts/bench/disks_in_box_contacts.lua --quiet --set N=1000 --set T=1
local rc = require "ricochet"

local sim
local simulation = rc.World.simulation
rc.World.simulation = function(w, t)
  sim = simulation(w, t)
  return sim
end

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "scripts/bench"
local summary = dofile(here .. "/disks_in_box.lua")
rc.World.simulation = simulation

local info = sim:info()
-- where the pile is (to compare trajectories with the other codes)
local ymin, ysum, n = math.huge, 0.0, 0
for _, b in ipairs(sim.world:bodies()) do
  local y = b:q()[2]
  ymin, ysum, n = math.min(ymin, y), ysum + y, n + 1
end
io.write(string.format(
  "disks_in_box_contacts: last step: %d contacts tracked (gap <= margin), %d active, %d sweeps, residual %.3g, converged %s; lowest y %.4f, mean y %.4f\n",
  info.ncontacts, info.nactive, info.iterations, info.residual, tostring(info.converged), ymin, ysum / n))
return summary
