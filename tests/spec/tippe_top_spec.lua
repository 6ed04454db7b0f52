-- tippe_top_spec.lua -- the tippe top of Capobianco, Harsch, Eugster & Leine
-- 2021 section 10.6 (scripts/papers/capobianco2021_tippe_top.lua: two contact
-- spheres on one spatial body, Coulomb--Contensou friction, Moreau--Jean
-- theta = 1, h = 1e-4), over the whole 8 s (about 3 s of CPU): the paper's
-- sequence of Fig. 7 and the invariants.
local helper = require "scenario_helper"

describe("the tippe top (Capobianco et al. 2021, Fig. 7)", function()
    local r = helper.run("scripts/papers/capobianco2021_tippe_top.lua", {}, false)
    it("inverts: theta passes pi/2 near t = 1 s, the stick touches down and the sphere lifts off", function()
        assert.is_truthy(r.t_half)
        assert.is_true(r.t_half > 0.7 and r.t_half < 1.3, tostring(r.t_half))   -- measured 0.9737 s
        assert.is_truthy(r.t_stick and r.t_lift)
        assert.is_true(r.t_stick > r.t_half and r.t_lift >= r.t_stick)
        assert.is_true(r.th_max > 3.0, tostring(r.th_max))                       -- spins on the stick, upside down
    end)
    it("tumbles back as the spin decays", function()
        assert.is_true(r.theta < r.th_max - 1.0, tostring(r.theta))              -- measured 1.656 rad at t = 8 s
        assert.is_true(math.abs(r.spin) < 20)                                    -- from 180 rad/s
    end)
    it("dissipates: E never increases in a step, |q| = 1 to 1e-12, impulses in the disc", function()
        assert.is_true(r.dE <= 1e-12 * r.E0, tostring(r.dE))
        assert.is_true(r.E < 0.1 * r.E0)
        assert.is_true(r.qdrift <= 1e-12, tostring(r.qdrift))
        assert.is_true(r.cone <= 0)
    end)
end)
