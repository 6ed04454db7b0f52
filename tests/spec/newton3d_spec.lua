-- newton3d_spec.lua -- the semismooth Newton solver on 3D frictional contact
-- (src/nonsmooth/newton3.c, docs/theory/newton-solver.md "Spatial contacts"):
-- on a sphere sliding then rolling, lifting off, a box on an incline below and
-- above tan(alpha) = mu, a pile of 18 spheres, a Coulomb--Contensou spinning
-- ball and a chain of 3D joints, its solution is NSGS3's to the tolerance (the
-- two solvers started from the same state each step), in the cone and
-- complementary, in a few iterations; bad settings are errors.
local rc = require "ricochet"
local helper = require "spec_helper"
local H = require "sh_helper"
local D = require "doc_blocks"

local g, mu = 9.81, 0.3

-- the bodies' state of world a copied into world b (same bodies, same order)
local function sync(a, b)
    local ba, bb = a:bodies(), b:bodies()
    for i = 1, #ba do bb[i]:set_state{ q = ba[i]:q(), v = ba[i]:v() } end
end

local function max_dv(a, b)
    local ba, bb, d = a:bodies(), b:bodies(), 0
    for i = 1, #ba do
        local va, vb = ba[i]:v(), bb[i]:v()
        for k = 1, #va do d = math.max(d, math.abs(va[k] - vb[k])) end
    end
    return d
end

-- every active contact of w: p in the cone (or the Contensou disc) and
-- 0 <= p_N _|_ u_N >= 0, u_N at the end of the step (e = 0): the largest
-- violations, p relative to pscale
local function check_contacts(w, mu_, pscale)
    local cone, comp, n = 0, 0, 0
    for _, c in ipairs(w:contacts3()) do
        if c.active then
            n = n + 1
            local pN, pF = c.p[1], math.sqrt(c.p[2] ^ 2 + c.p[3] ^ 2 + (c.p[4] or 0) ^ 2)
            cone = math.max(cone, (pF - mu_ * pN) / pscale, -pN / pscale)
            comp = math.max(comp, -c.u[1], math.min(pN / pscale, c.u[1]))
        end
    end
    return cone, comp, n
end

-- two copies of a scene (build(method) -> world, sim), stepped n times from the
-- same state each step: the largest velocity difference, the Newton run's
-- iterations (total, largest), fallbacks, unconverged steps and worst cone
-- and complementarity violations
local function lockstep(build, n, pscale, mu_)
    local wa, sa = build("nsgs")
    local wb, sb = build("newton")
    local r = { dv = 0, its = 0, max_it = 0, unconv = 0, cone = 0, comp = 0, steps = n, active = 0 }
    for _ = 1, n do
        sync(wa, wb)
        sa:step()
        sb:step()
        r.dv = math.max(r.dv, max_dv(wa, wb))
        local info = sb:info()
        r.its = r.its + info.iterations
        r.max_it = math.max(r.max_it, info.iterations)
        if not info.converged then r.unconv = r.unconv + 1 end
        local cone, comp, na = check_contacts(wb, mu_ or mu, pscale)
        r.active = r.active + na
        r.cone, r.comp = math.max(r.cone, cone), math.max(r.comp, comp)
    end
    r.fallbacks = sb:stats().newton_fallbacks
    return r
end

-- lockstep's result r: NSGS3's velocities to 1e-10, every step converged, no fallback, at most
-- max_it Newton iterations a step, the impulses in the cone and complementary to 1e-12
local function assert_nsgs3_solution(r, max_it)
    assert.is_true(r.dv < 1e-10, r.dv)
    assert.are.equal(0, r.unconv)
    assert.are.equal(0, r.fallbacks)
    assert.is_true(r.max_it <= max_it, r.max_it)
    assert.is_true(r.cone <= 1e-12 and r.comp <= 1e-12, r.cone .. " " .. r.comp)
end


local function solver(method, extra)
    local s = { method, tol = 1e-12, max_iter = 1000, warm_start = false }   -- Newton solves from p = 0
    for k, v in pairs(extra or {}) do s[k] = v end
    return s
end

local function sphere_on_plane(method, v0, extra)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
    w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
    local m, r = 1.0, 0.1
    local ball = w:body{ mass = m, inertia = { 0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r }, q = { 0, 0, r, 1, 0, 0, 0 },
                         v = v0, shape = rc.sphere{ radius = r } }
    return w, w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = solver(method, extra) }, ball
end

-- a 2 x 1 x 0.5 box on a plane inclined by alpha about y (4 contacts: its corners)
local function box_on_incline(method, alpha, extra)
    local n = { -math.sin(alpha), 0, math.cos(alpha) }
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
    w:plane{ point = { 0, 0, 0 }, normal = n }
    local m, a, b, c = 1.0, 0.5, 0.25, 0.125
    local h = c
    local q = { h * n[1], 0, h * n[3], math.cos(-alpha / 2), 0, math.sin(-alpha / 2), 0 }
    local box = w:body{ mass = m, inertia = { m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3 },
                        q = q, shape = rc.box3{ a, b, c } }
    return w, w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = solver(method, extra) }, box
end

-- 2 layers of 3 x 3 spheres of radius 0.1 +- 10 % falling into a box
local function pile(method, extra)
    local w = helper.sphere_pile(rc, 3, 2, g, mu)
    return w, w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = solver(method, extra) }
end

describe("the semismooth Newton solver on 3D contacts", function()
    it("a sphere slides then rolls: v -> 5/7 v0 at the analytic time, NSGS3's solution, 1 to 3 iterations", function()
        local r = lockstep(function(m) local w, s = sphere_on_plane(m, { 1, 0, 0, 0, 0, 0 }); return w, s end, 150, 1e-2)
        print(("sphere: dv %.2e, iterations %d (max %d), cone %.1e, comp %.1e"):format(r.dv, r.its, r.max_it, r.cone, r.comp))
        local _, sim, ball = sphere_on_plane("newton", { 1, 0, 0, 0, 0, 0 })
        sim:run{ T = 0.15 }
        -- sliding: v = 1 - mu g t until v = 5/7 (t* = 2 / (7 mu g) = 0.0971 s), then rolling
        assert.is_true(math.abs(ball:v()[1] - 5 / 7) < 1e-10, ball:v()[1])
        assert.is_true(math.abs(ball:v()[5] - 5 / 7 / 0.1) < 1e-8, ball:v()[5])
        assert_nsgs3_solution(r, 3)
    end)

    it("a sphere lifts off: p = 0 once the upward force exceeds the weight, NSGS3's solution", function()
        local function build(m)
            local w, s, ball = sphere_on_plane(m, { 0.5, 0, 0, 0, 0, 0 })
            local k = 0
            s:before_step(function() k = k + 1; ball:set_force{ 0, 0, k > 50 and 2 * g or 0, 0, 0, 0 } end)
            return w, s
        end
        local r = lockstep(build, 100, 1e-2)
        print(("lift-off: dv %.2e, iterations %d (max %d), cone %.1e, comp %.1e"):format(r.dv, r.its, r.max_it, r.cone, r.comp))
        local w, sim, ball = sphere_on_plane("newton", { 0.5, 0, 0, 0, 0, 0 })
        local k = 0
        sim:before_step(function() k = k + 1; ball:set_force{ 0, 0, k > 50 and 2 * g or 0, 0, 0, 0 } end)
        sim:run{ T = 0.1 }
        for _, c in ipairs(w:contacts3()) do assert.is_true(not c.active or c.p[1] == 0) end
        assert.is_true(math.abs(ball:v()[3] - g * 0.05) < 2 * g * 1e-3, ball:v()[3])   -- (2g - g) (t - 0.05), to a step
        assert.is_true(r.dv < 1e-10, r.dv)
        assert.are.equal(0, r.unconv)
        assert.is_true(r.cone <= 1e-12 and r.comp <= 1e-12, r.cone .. " " .. r.comp)
    end)

    for _, case in ipairs{ { name = "below", tan = 0.2 }, { name = "above", tan = 0.45 } } do
        it(("a box on an incline %s tan(alpha) = mu (4 contacts): %s, NSGS3's solution"):format(case.name,
           case.tan < mu and "it sticks" or "it slides at g (sin - mu cos)"), function()
            local alpha = math.atan(case.tan)
            local r = lockstep(function(m) local w, s = box_on_incline(m, alpha); return w, s end, 100, 1e-2)
            print(("box %s: dv %.2e, iterations %d (max %d), fallbacks %d, cone %.1e, comp %.1e"):format(case.name, r.dv, r.its, r.max_it,
                  r.fallbacks, r.cone, r.comp))
            local _, sim, box = box_on_incline("newton", alpha)
            sim:run{ T = 0.2 }
            local v = box:v()
            local along = v[1] * math.cos(alpha) + v[3] * math.sin(alpha)   -- down the slope is -x'
            local a = case.tan < mu and 0 or -g * (math.sin(alpha) - mu * math.cos(alpha))
            print(("box %s: v along %.12f expected %.12f"):format(case.name, along, a * 0.2))
            assert.is_true(math.abs(along - a * 0.2) < 1e-6, along)
            assert.is_true(r.dv < 1e-9, r.dv)
            assert.are.equal(0, r.unconv)
            assert.is_true(r.cone <= 1e-12 and r.comp <= 1e-12, r.cone .. " " .. r.comp)
        end)
    end

    for _, lin in ipairs{ "dense", "iterative" } do
    it(("Coulomb--Contensou (4-row contacts, linear = %q): a spinning ball, NSGS3's solution, the spin decay of the analytic rate"):format(lin), function()
        local law = rc.contensou{ mu = mu, radius = 0.01 }
        local function build(m)
            local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = law }
            w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
            local ball = w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 0.1, 1, 0, 0, 0 },
                                 v = { 0, 0, 0, 0, 0, 10 }, shape = rc.sphere{ radius = 0.1 } }
            return w, w:simulation{ scheme = "moreau-jean", theta = 1, h = 1e-3, solver = solver(m, m == "newton" and { linear = lin } or nil) }, ball
        end
        local r = lockstep(build, 200, 1e-2)
        print(("contensou: dv %.2e, iterations %d (max %d), cone %.1e, comp %.1e"):format(r.dv, r.its, r.max_it, r.cone, r.comp))
        local _, sim, ball = build("newton")
        sim:run{ T = 1 }
        -- the spin decays at mu m g (3 pi R / 16) / J (docs/lua-api.md, rc.contensou)
        assert.is_true(math.abs(ball:v()[6] - (10 - 0.3 * 9.81 * 3 * math.pi * 0.01 / 16 / 0.004)) < 1e-9, ball:v()[6])
        assert_nsgs3_solution(r, 3)
    end)
    end

    for _, scheme in ipairs{ "moreau-jean", "moreau-jean-fremond" } do
        for _, lawname in ipairs{ "newton", "moreau" } do
            it(("impacts under %s, %s's law (e = 0.5): a spinning sphere bouncing, NSGS3's solution"):format(scheme, lawname), function()
                local law = lawname == "newton" and rc.newton{ e = 0.5, mu = mu } or rc.moreau{ e = 0.5, e_t = 0.5, mu = mu }
                local function build(m)
                    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = law }
                    w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
                    w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 0.2, 1, 0, 0, 0 }, v = { 1, 0.5, -1, 3, -20, 5 },
                            shape = rc.sphere{ radius = 0.1 } }
                    return w, w:simulation{ scheme = scheme, theta = 0.5, h = 1e-3, solver = solver(m) }
                end
                local r = lockstep(build, 500, 1e-2)
                assert.is_true(r.active > 20, r.active)   -- it bounced and came to rest on the floor
                assert.is_true(r.dv < 1e-10, r.dv)
                assert.are.equal(0, r.unconv)
                assert.are.equal(0, r.fallbacks)
                assert.is_true(r.max_it <= 4, r.max_it)
                assert.is_true(r.cone <= 1e-12, r.cone)
            end)
        end
    end

    for _, lin in ipairs{ "dense", "iterative" } do
    it(("3D joints' rows (linear = %q): a chain of 3 spherical joints lying down on the floor, NSGS3's solution"):format(lin), function()
        local function build(m)
            local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
            w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
            local prev = w.ground
            for i = 1, 3 do
                local b = w:body{ mass = 1, inertia = { 0.01, 0.01, 0.01 }, q = { 0.3 * i, 0.05 * i, 0.8, 1, 0, 0, 0 },
                                  shape = rc.sphere{ radius = 0.1 } }
                w:joint{ kind = "spherical", a = prev, b = b, anchor = { 0.3 * (i - 1), 0.05 * (i - 1), 0.8 } }
                prev = b
            end
            return w, w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3,
                                    solver = solver(m, m == "newton" and { linear = lin } or nil) }
        end
        local r = lockstep(build, 600, 1e-2)
        print(("joints: dv %.2e, iterations %d (mean %.2f, max %d), fallbacks %d, cone %.1e, comp %.1e, active %d"):format(r.dv, r.its,
              r.its / r.steps, r.max_it, r.fallbacks, r.cone, r.comp, r.active))
        assert.is_true(r.active > 100, r.active)   -- the chain lies on the floor
        assert.is_true(r.dv < 1e-8, r.dv)
        assert.are.equal(0, r.unconv)
        assert.are.equal(0, r.fallbacks)
        assert.is_true(r.max_it <= (lin == "dense" and 3 or 8), r.max_it)   -- measured 2 (dense), 6 (GMRES: inexact directions)
        -- moreau-jean-fremond's law acts on u_{k+theta}, not on the end-of-step u of contacts3():
        -- complementarity is the converged residual here
        assert.is_true(r.cone <= 1e-12, r.cone)
    end)
    end

    it("linear = \"auto\" solves a 10-box stack (120 rows on 60 degrees of freedom) densely: the dense path's iterations", function()
        local function stack(lin)
            local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = 0.5 } }
            w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
            for k = 0, 9 do
                w:body{ mass = 1, inertia = { 0.1, 0.1, 1 / 6 }, q = { 0, 0, 0.251 + k * 0.501, math.cos(0.05 * k), 0, 0, math.sin(0.05 * k) },
                        shape = rc.box3{ 0.5, 0.5, 0.25 } }
            end
            local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = solver("newton", { tol = 1e-10, linear = lin }) }
            local its, active = 0, 0
            sim:after_step(function(s) its = its + s:info().iterations; active = math.max(active, s:info().nactive) end)
            sim:run{ T = 0.2 }
            return its, active, sim:stats()
        end
        local ia, na, sa = stack("auto")
        local id = stack("dense")
        local ii = stack("iterative")
        assert.are.equal(40, na)                       -- 4 contacts a face: 120 rows
        assert.are.equal(id, ia)                       -- the dense path's iterations
        assert.is_true(ii > id, ii .. " " .. id)       -- GMRES takes more on the singular system
        assert.are.equal(0, sa.failures)
        assert.are.equal(0, sa.newton_fallbacks)
    end)

    it("is Newton's solve, not NSGS3's: at max_iter = 15 without fallback the pile converges every step (NSGS3 does not)", function()
        local conv = {}
        for _, m in ipairs{ "nsgs", "newton" } do
            local _, sim = pile(m, m == "newton" and { max_iter = 15, fallback = false, on_fail = "warn" } or { max_iter = 15, on_fail = "warn" })
            local bad = 0
            sim:after_step(function(sm) if not sm:info().converged then bad = bad + 1 end end)
            sim:run{ T = 0.2 }
            conv[m] = bad
        end
        assert.are.equal(0, conv.newton)
        assert.is_true(conv.nsgs > 50, conv.nsgs)
    end)

    it("a law without a closed form: NSGS3 finishes every solve, counted in newton_fallbacks and warned once", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu, local_solver = "generic" } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        local ball = w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 0.1, 1, 0, 0, 0 }, v = { 1, 0, 0, 0, 0, 0 },
                             shape = rc.sphere{ radius = 0.1 } }
        local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = solver("newton") }
        local summary = sim:run{ T = 0.15 }
        assert.is_true(math.abs(ball:v()[1] - 5 / 7) < 1e-9, ball:v()[1])
        assert.is_true(sim:stats().newton_fallbacks >= 100, sim:stats().newton_fallbacks)
        assert.are.equal(1, summary.warnings)   -- the first fallback only
        -- without the fallback the step is not converged: on_fail = "error" names it
        local w2 = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu, local_solver = "generic" } }
        w2:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        w2:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 0.1, 1, 0, 0, 0 }, v = { 1, 0, 0, 0, 0, 0 },
                 shape = rc.sphere{ radius = 0.1 } }
        local sim2 = w2:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = solver("newton", { fallback = false, on_fail = "error" }) }
        local ok, err = pcall(sim2.step, sim2)
        assert.is_false(ok)
        assert.truthy(tostring(err):find("solver did not converge at t = 0.001 (step 1): residual", 1, true), tostring(err))
    end)

    it("runs the dim = 3 example of docs/theory/newton-solver.md, 'Spatial contacts'", function()
        local n = 0
        for _, b in ipairs(D.runnable(H.ROOT .. "/docs/theory/newton-solver.md", "lua")) do
            if b.code:match("dim = 3") then
                n = n + 1
                local out = {}
                local env = setmetatable({ print = function(...) out[#out + 1] = table.concat({ ... }, "\t") end }, { __index = _G })
                assert(load(b.code, "=newton-solver.md:" .. b.line, "t", env))()
                assert.is_truthy(out[1]:match("^v = 0%.714285714286 %(5/7 = 0%.714285714286%), at most 1 Newton iteration%(s%) a step, 0 fallbacks$"),
                                 out[1])
            end
        end
        assert.are.equal(1, n)
    end)

    it("bad settings are errors naming the option (dim = 3)", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
        w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
        w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { 0, 0, 0.1, 1, 0, 0, 0 }, shape = rc.sphere{ radius = 0.1 } }
        local cases = {
            { { "newton", linear = "sparse" }, [[solver 'linear' = "sparse" solves planar contacts; a dim = 3 world's Newton takes "auto", "dense" or "iterative"]] },
            { { "newton", linear = "cholesky" }, [['linear' must be one of "auto", "dense", "iterative", "sparse" (got 'cholesky')]] },
            { { "newton", formulation = "foo" }, [['formulation' must be one of "alart-curnier", "fischer-burmeister" (got 'foo')]] },
            { { "newton", threads = 2, order = "colour" }, [['threads' = 2 needs the "nsgs" solver]] },
            { { "newton", fallback = 3 }, [['fallback' must be true or false (got 3)]] },
            { { "newton", max_iter = 0 }, [['max_iter' must be >= 1 (got 0)]] },
        }
        for _, c in ipairs(cases) do
            local ok, err = pcall(w.simulation, w, { solver = c[1] })
            assert.is_false(ok)
            assert.is_truthy(tostring(err):find(c[2], 1, true), tostring(err))
        end
    end)

    for _, v in ipairs{ { "dense" }, { "iterative" }, { "dense", "fischer-burmeister" } } do
        local lin, form = v[1], v[2] or "alart-curnier"
        it(("a pile of 18 spheres (linear = %q, %s): NSGS3's solution each step, in the cone, complementary"):format(lin, form), function()
            local r = lockstep(function(m) return pile(m, m == "newton" and { linear = lin, formulation = form } or nil) end, 300, 1e-4)
            print(("pile %s %s: dv %.2e, iterations %d (mean %.2f, max %d), fallbacks %d, unconv %d, cone %.1e, comp %.1e"):format(lin, form, r.dv,
                  r.its, r.its / r.steps, r.max_it, r.fallbacks, r.unconv, r.cone, r.comp))
            -- measured: dense dv 9.5e-10, 2.92 iterations a step (at most 8); iterative dv 1.4e-10,
            -- 3.91 (at most 11); no fallback; u_N and p_N to 1.9e-12 (the tolerance is relative to 1 + |b|)
            assert.is_true(r.dv < 1e-8, r.dv)
            assert.are.equal(0, r.unconv)
            assert.are.equal(0, r.fallbacks)
            assert.is_true(r.its / r.steps < 5 and r.max_it <= 15, r.its .. " " .. r.max_it)
            assert.is_true(r.cone <= 1e-12 and r.comp <= 1e-11, r.cone .. " " .. r.comp)
        end)
    end
end)
