-- Benchmark: the rocking block of Acary & Collins-Craft 2024 (section 5.2) with its history
-- written every step (39 columns, 10 001 rows: about 4.5 MB of text, or 3.1 MB with --format binary), not read back (the
-- paper script reads it again for its figure). Run by scripts/bench/history; not a test.
--   build/ricochet run scripts/bench/rocking_block_history.lua --out DIR
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, name = "ground" }
local block = w:body{ name = "block", mass = 1, inertia = 1 / 6, q = { 0, 0.6, 0 },
                      v = { 0, -0.2, 1 }, shape = rc.box{ 1, 1 } }
w:contact{ w.ground, block, law = rc.laws.make("newton", { e = 1, mu = 0.1 }), name = "C" }
local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-4,
                          solver = { "nsgs", tol = 1e-10, max_iter = 1000 } }
return sim:run{ T = 1.0 }
