-- contact3d_spec.lua -- 3D frictional contact of spatial bodies (dim = 3
-- worlds: rc.sphere / rc.capsule / rc.box3 shapes, w:plane obstacles, the
-- 3D De Saxce cone with NSGS and the exact cone3 local solver under
-- Moreau--Jean and Moreau--Jean--Fremond; docs/theory/spatial.md, "Contacts").
local helper = require "scenario_helper"
local rc = require "ricochet"
local S = require "spec_helper"
local error_of = S.error_of
local has = S.has

-- every step: impulses in the cone, the natural-map residual of each active
-- contact (with the Newton shift e u_N,k under MJ theta = 1 only: checked
-- where e = 0), the energy balance; returns the worst figures
local function watch(sim, w, mu)
    local r = { cone = 0, bal = 0, steps = 0, maxn = 0 }
    sim:after_step(function(s)
        r.steps = r.steps + 1
        r.bal = math.max(r.bal, math.abs(s:info().balance))
        local cs = w:contacts3()
        r.maxn = math.max(r.maxn, #cs)
        for _, c in ipairs(cs) do
            local p = c.p
            assert.is_true(p[1] >= 0)
            r.cone = math.max(r.cone, math.sqrt(p[2] * p[2] + p[3] * p[3]) - mu * p[1] * (1 + 1e-12))
        end
    end)
    return r
end

describe("3D contact: a sphere dropped on a plane", function()
    for _, scheme in ipairs({ "moreau-jean", "moreau-jean-fremond" }) do
        it("bounces with v+ = -e v- and comes to rest on it (" .. scheme .. ")", function()
            local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0.5, mu = 0.3 } }
            w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
            local R = 0.1
            local b = w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 1, 1, 0, 0, 0 }, shape = rc.sphere{ radius = R } }
            local sim = w:simulation{ scheme = scheme, theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12, max_iter = 200 } }
            local wr = watch(sim, w, 0.3)
            local vprev, ratios, lowest = nil, {}, 0
            sim:after_step(function()
                local v = b:v()
                if vprev and vprev[3] < -0.5 and v[3] > 0 then ratios[#ratios + 1] = v[3] / vprev[3] end
                vprev = v
                lowest = math.min(lowest, b:q()[3] - R)
            end)
            sim:run{ T = 2 }
            assert.is_true(#ratios >= 3)
            for _, r in ipairs(ratios) do assert.is_true(math.abs(r + 0.5) < 1e-10, tostring(r)) end
            local q, v = b:q(), b:v()
            for i = 1, 6 do assert.is_true(math.abs(v[i]) < 1e-10, "v[" .. i .. "] = " .. v[i]) end
            assert.is_true(math.abs(q[1]) < 1e-15 and math.abs(q[2]) < 1e-15)
            assert.is_true(lowest > -5e-3, "lowest gap " .. lowest)          -- h |v-| at the first impact
            assert.is_true(q[3] - R > -2e-5, "resting gap " .. (q[3] - R))
            assert.is_true(wr.cone <= 0)
            assert.is_true(wr.bal < 1e-12, "balance " .. wr.bal)
        end)
    end
end)

describe("3D contact: the rotating ball of Capobianco et al. 2021 section 10.1", function()
    local function run(set) return helper.run("scripts/papers/capobianco2021_rotating_ball_3d.lua", set, false) end
    it("b: slides, sticks at the planar run's step and rolls at -(2/7) R omega, in the x-z plane", function()
        local r = run({ case = "b" })
        local planar = helper.run("scripts/papers/capobianco2021_rotating_ball.lua", { case = "b", scheme = "moreau-jean" }, false)
        assert.is_true(math.abs(r.stick - planar.stick) < 1e-9)                    -- the same step
        assert.is_true(math.abs(r.stick - 0.7281) <= 2e-3)                         -- analytic, within one step
        assert.is_true(math.abs(r.v[1] - (-2 / 7 * 0.1 * 50)) < 1e-10)
        assert.is_true(math.abs(r.omega[2] - (-2 / 7 * 50)) < 1e-10)
        assert.is_true(r.out_of_plane < 1e-13, tostring(r.out_of_plane))
        assert.is_true(r.cone <= 0)
    end)
    it("c: sticks at the impact and rolls at -(2/7) R omega", function()
        local r = run({ case = "c" })
        assert.is_true(math.abs(r.v[1] - (-2 / 7 * 0.1 * 10)) < 1e-10)
        assert.is_true(r.stick - r.first.t <= 2e-3 + 1e-12)
        assert.is_true(r.out_of_plane < 1e-13)
    end)
end)

describe("3D contact: a box resting on a plane", function()
    it("has 4 contacts, stays at rest and does not drift over 2 s", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.5 } }
        w:plane{}
        local b = w:body{ density = 1000, box = { 0.2, 0.1, 0.05 }, q = { 0, 0, 0.05, 1, 0, 0, 0 }, shape = rc.box3{ 0.2, 0.1, 0.05 } }
        local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12, max_iter = 1000 } }
        local wr = watch(sim, w, 0.5)
        local maxv, n4 = 0, 0
        sim:after_step(function()
            local v = b:v()
            for i = 1, 6 do maxv = math.max(maxv, math.abs(v[i])) end
            local cs = w:contacts3()
            if #cs == 4 then n4 = n4 + 1 end
            local P = 0
            for _, c in ipairs(cs) do P = P + c.p[1] end
        end)
        sim:run{ T = 2 }
        local q = b:q()
        assert.are.equal(2000, n4)
        assert.is_true(maxv < 1e-10, tostring(maxv))
        assert.is_true(math.abs(q[1]) < 1e-12 and math.abs(q[2]) < 1e-12 and math.abs(q[3] - 0.05) < 1e-9)
        assert.is_true(math.abs(q[4] - 1) < 1e-12)
        local P = 0
        for _, c in ipairs(w:contacts3()) do P = P + c.p[1] end
        assert.is_true(math.abs(P - 1000 * 0.4 * 0.2 * 0.1 * 9.81 * 1e-3) < 1e-9)   -- the four carry m g h
        assert.is_true(wr.cone <= 0 and wr.bal < 1e-12)
    end)
end)

describe("3D contact: two spheres colliding", function()
    for _, case in ipairs({ { "head-on", { 0, 0 }, { 0, 0, 0 } }, { "obliquely", { 0.08, 0.03 }, { 1, 0, 3 } } }) do
        it("conserve momentum to round-off " .. case[1], function()
            local w = rc.world{ dim = 3, gravity = { 0, 0, 0 }, default_law = rc.newton{ e = 0.8, mu = 0.3 } }
            local a = w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, v = { 1, 0, 0, case[3][1], case[3][2], case[3][3] },
                              shape = rc.sphere{ 0.1 } }
            local c = w:body{ mass = 2, inertia = { 0.01, 0.01, 0.01 }, q = { 0.5, case[2][1], case[2][2], 1, 0, 0, 0 },
                              v = { -1, 0.2, 0, 1, 0, 0 }, shape = rc.sphere{ 0.12 } }
            local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
            local wr = watch(sim, w, 0.3)
            local function P() local va, vc = a:v(), c:v(); return { va[1] + 2 * vc[1], va[2] + 2 * vc[2], va[3] + 2 * vc[3] } end
            local P0, dP, hit = P(), 0, 0
            sim:after_step(function()
                local p = P()
                for i = 1, 3 do dP = math.max(dP, math.abs(p[i] - P0[i])) end
                for _, k in ipairs(w:contacts3()) do if k.active and k.p[1] > 0 then hit = hit + 1 end end
            end)
            sim:run{ T = 0.5 }
            assert.is_true(hit > 0)
            assert.is_true(dP < 1e-14, tostring(dP))
            assert.is_true(a:v()[1] < 0)   -- bounced back
            assert.is_true(wr.cone <= 0 and wr.bal < 1e-12)
        end)
    end
end)

describe("3D contact: errors", function()
    it("names the argument", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 } }
        has("rc.sphere: 'radius' must be > 0 (got -1)", error_of(rc.sphere, { radius = -1 }))
        has("rc.box3: unknown key 'w'", error_of(rc.box3, { w = 1 }))
        has("rc.capsule: 'half_length' must be >= 0", error_of(rc.capsule, { 0.1, -1 }))
        has("world:plane: rc_shape3_create: a plane's 'normal' must be nonzero", error_of(w.plane, w, { normal = { 0, 0, 0 } }))
        local p = rc.world{ gravity = { 0, -9.81 } }
        has("world:plane: planes are obstacles of a world of dim = 3", error_of(p.plane, p, {}))
        has("world:body: 'shapes' must be a list", error_of(w.body, w, { mass = 1, inertia = { 1, 1, 1 }, shapes = 3 }))
    end)
end)
