-- audit_spec.lua -- the audit closes from the files (issue 17): history.csv.gz
-- and run.json carry every term of the discrete energy balance (eq. 65), so
-- that E - E0 - sum W is reproduced from the file alone to round-off, read in
-- Python (audit_check.py) on a mechanism with joints, a prescribed motion, a
-- damped spring, a damped linear body with a gap stop and frictional contacts.
local H = require "sh_helper"
local q, sh = H.q, H.sh
local BIN = assert(H.BIN, "RICOCHET_BIN is not set")
local SPEC = H.ROOT .. "/tests/spec/"

local function audit(theta)
    local dir = H.tmpdir()
    local code, _, err = sh(q(BIN) .. " run " .. q(SPEC .. "audit_scene.lua") .. " --quiet --out " .. q(dir)
                            .. " --set theta=" .. theta)
    assert.are.equal(0, code, err)
    local out = H.must("python3 " .. q(SPEC .. "audit_check.py") .. " " .. q(dir))
    local r = {}
    for k, v in out:gmatch("(%w[%w_]*)=(%S+)") do r[k] = tonumber(v) end
    local header = H.must("zcat " .. q(dir .. "/history.csv.gz") .. " | head -1")
    H.rm_rf(dir)
    return r, header
end

describe("the energy balance from the files", function()
    if not H.have("python3") then
        pending("python3 is needed to read the history as a user would")
        return
    end

    it("closes to round-off at theta = 1/2 (and the three contact/applied terms alone do not)", function()
        local r, header = audit(0.5)
        assert.matches(",W_J,W_proj,W_theta,W_damp,E_spring,E_elastic\n$", header)
        assert.is_true(r.max_defect <= 1e-12 * (1 + r.scale), "defect " .. r.max_defect)
        assert.is_true(r.json_defect <= 1e-12 * (1 + r.scale), "run.json defect " .. r.json_defect)
        assert.is_true(r.balance_total <= 1e-12 * (1 + r.scale))
        -- the drive's work W_J (0.386) and the damping are what the old check missed
        assert.is_true(r.three_terms > 0.3, "three terms " .. r.three_terms)
    end)

    it("closes with the (1/2 - theta) term at theta = 0.8", function()
        local r = audit(0.8)
        assert.is_true(r.max_defect <= 1e-12 * (1 + r.scale), "defect " .. r.max_defect)
        assert.is_true(r.json_defect <= 1e-12 * (1 + r.scale))
    end)
end)
