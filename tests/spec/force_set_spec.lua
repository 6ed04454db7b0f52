-- force_set_spec.lua -- the LP solver (ricochet.lp) and the exact sets of
-- contact impulses of static packings (sim:force_set), on problems with
-- known answers. The 28-grain sample of Moreau 2004 is in moreau_spec.lua.
local rc = require "ricochet"
local lp = require "ricochet.lp"

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return tostring(err)
end

local function has(expected, msg)
    assert.matches(expected, msg, 1, true)
end

describe("ricochet.lp", function()
    it("solves textbook problems to their known optima", function()
        -- max x + y, x + 2y <= 4, 3x + y <= 6: (1.6, 1.2), 2.8
        local r = lp.solve{ c = { 1, 1 }, sense = "max", A_le = { { 1, 2 }, { 3, 1 } }, b_le = { 4, 6 } }
        assert.are.equal("optimal", r.status)
        assert.is_near(2.8, r.value, 1e-12)
        assert.is_near(1.6, r.x[1], 1e-12)
        assert.is_near(1.2, r.x[2], 1e-12)
        -- min x + y over the same region turned around (>= rows need phase 1)
        r = lp.solve{ c = { 1, 1 }, A_ge = { { 1, 2 }, { 3, 1 } }, b_ge = { 4, 6 } }
        assert.are.equal("optimal", r.status)
        assert.is_near(2.8, r.value, 1e-12)
        -- Chvatal 2.1: max 5x1 + 4x2 + 3x3, 2x1 + 3x2 + x3 <= 5, 4x1 + x2 + 2x3 <= 11,
        -- 3x1 + 4x2 + 2x3 <= 8: x = (2, 0, 1), 13
        r = lp.solve{ c = { 5, 4, 3 }, sense = "max", A_le = { { 2, 3, 1 }, { 4, 1, 2 }, { 3, 4, 2 } }, b_le = { 5, 11, 8 } }
        assert.are.equal("optimal", r.status)
        assert.is_near(13, r.value, 1e-12)
        assert.is_near(2, r.x[1], 1e-12); assert.is_near(0, r.x[2], 1e-12); assert.is_near(1, r.x[3], 1e-12)
        -- equalities, a free variable and a dependent row: min x1 - x2, x1 + x2 = 1, 2x1 + 2x2 = 2,
        -- x1 free, x2 <= 3: x = (-2, 3), -5
        r = lp.solve{ c = { 1, -1 }, A_eq = { { 1, 1 }, { 2, 2 } }, b_eq = { 1, 2 }, A_le = { { 0, 1 } }, b_le = { 3 },
                      free = { 1 } }
        assert.are.equal("optimal", r.status)
        assert.is_near(-5, r.value, 1e-12)
        assert.is_near(-2, r.x[1], 1e-12)
    end)

    it("does not cycle on Beale's degenerate example", function()
        -- min -3/4 x4 + 150 x5 - 1/50 x6 + 6 x7 (Beale 1955): optimum -1/20
        local r = lp.solve{ c = { -0.75, 150, -0.02, 6 },
                            A_le = { { 0.25, -60, -0.04, 9 }, { 0.5, -90, -0.02, 3 }, { 0, 0, 1, 0 } }, b_le = { 0, 0, 1 } }
        assert.are.equal("optimal", r.status)
        assert.is_near(-0.05, r.value, 1e-12)
        assert.is_near(0.04, r.x[1], 1e-12)
        assert.is_near(1, r.x[3], 1e-12)
    end)

    it("reports infeasible and unbounded problems, with an improving ray", function()
        local r = lp.solve{ c = { 1, 1 }, A_le = { { 1, 1 } }, b_le = { -1 } }
        assert.are.equal("infeasible", r.status)
        r = lp.solve{ c = { 1, 0 }, A_eq = { { 1, 1 }, { 2, 2 } }, b_eq = { 1, 3 } }   -- inconsistent equalities
        assert.are.equal("infeasible", r.status)
        r = lp.solve{ c = { 1, 1 }, sense = "max", A_ge = { { 1, 2 }, { 3, 1 } }, b_ge = { 4, 6 } }
        assert.are.equal("unbounded", r.status)
        local d = r.ray
        assert.is_true(d[1] >= 0 and d[2] >= 0 and d[1] + d[2] > 0)          -- stays feasible, improves
        assert.is_true(d[1] + 2 * d[2] >= 0 and 3 * d[1] + d[2] >= 0)
    end)

    it("agrees with vertex enumeration on random small problems", function()
        math.randomseed(11)
        local function solve_lin(M, b)
            local n, A = #M, {}
            for i = 1, n do A[i] = { table.unpack(M[i]) }; A[i][n + 1] = b[i] end
            for k = 1, n do
                local bi = k
                for i = k + 1, n do if math.abs(A[i][k]) > math.abs(A[bi][k]) then bi = i end end
                if math.abs(A[bi][k]) < 1e-12 then return nil end
                A[k], A[bi] = A[bi], A[k]
                for i = 1, n do
                    if i ~= k then
                        local f = A[i][k] / A[k][k]
                        for j = k, n + 1 do A[i][j] = A[i][j] - f * A[k][j] end
                    end
                end
            end
            local x = {}
            for i = 1, n do x[i] = A[i][n + 1] / A[i][i] end
            return x
        end
        local counts = {}
        for _ = 1, 300 do
            local n, m = math.random(2, 3), math.random(1, 4)
            local A, b, c = {}, {}, {}
            for i = 1, m do
                A[i] = {}
                for j = 1, n do A[i][j] = math.random(-3, 3) end
                b[i] = math.random(-2, 5)
            end
            for j = 1, n do c[j] = math.random(-3, 3) end
            local r = lp.solve{ c = c, sense = "max", A_le = A, b_le = b }
            counts[r.status] = (counts[r.status] or 0) + 1
            -- the best vertex: n active constraints among the rows and x_j = 0
            local rows, rhs = {}, {}
            for i = 1, m do rows[#rows + 1], rhs[#rhs + 1] = A[i], b[i] end
            for j = 1, n do
                local e = {}
                for k = 1, n do e[k] = k == j and -1 or 0 end
                rows[#rows + 1], rhs[#rhs + 1] = e, 0
            end
            local best = nil
            local function visit(start, sel)
                if #sel == n then
                    local M, bb = {}, {}
                    for i, s in ipairs(sel) do M[i], bb[i] = rows[s], rhs[s] end
                    local x = solve_lin(M, bb)
                    if not x then return end
                    for i = 1, #rows do
                        local s = 0
                        for j = 1, n do s = s + rows[i][j] * x[j] end
                        if s > rhs[i] + 1e-9 then return end
                    end
                    local v = 0
                    for j = 1, n do v = v + c[j] * x[j] end
                    if not best or v > best then best = v end
                    return
                end
                for i = start, #rows do
                    sel[#sel + 1] = i; visit(i + 1, sel); sel[#sel] = nil
                end
            end
            visit(1, {})
            if r.status == "optimal" then
                assert.is_near(best, r.value, 1e-9)
            elseif r.status == "infeasible" then
                assert.is_nil(best)
            else
                assert.are.equal("unbounded", r.status)
                assert.is_not_nil(best)
            end
        end
        assert.is_true(counts.optimal > 50 and counts.infeasible > 20 and counts.unbounded > 20)
    end)

    it("solves many objectives over one feasible set from the last basis (lp.problem)", function()
        -- the unit square [0, 1]^2 written as equalities with slacks
        local P = lp.problem{ A_eq = { { 1, 0, 1, 0 }, { 0, 1, 0, 1 } }, b_eq = { 1, 1 } }
        for k = 0, 15 do
            local a = 2 * math.pi * k / 16 + 0.1
            local r = P:solve({ math.cos(a), math.sin(a), 0, 0 }, "max")
            assert.are.equal("optimal", r.status)
            assert.is_near(math.max(0, math.cos(a)) + math.max(0, math.sin(a)), r.value, 1e-12)
        end
    end)

    it("checks its arguments", function()
        has("lp.solve: 'c' (the objective coefficients) is required", error_of(lp.solve, { A_le = { { 1 } }, b_le = { 1 } }))
        has("lp.solve: unknown key 'sens'", error_of(lp.solve, { c = { 1 }, sens = "max" }))
        has("lp.solve: 'A_le[1]' must have 2 entries (got 1)", error_of(lp.solve, { c = { 1, 1 }, A_le = { { 1 } }, b_le = { 1 } }))
        has("lp.solve: 'A_le' has 1 rows but 'b_le' has 2 entries",
            error_of(lp.solve, { c = { 1 }, A_le = { { 1 } }, b_le = { 1, 2 } }))
        has("lp.solve: 'c[2]' must be a finite number (got nan)", error_of(lp.solve, { c = { 1, 0 / 0 } }))
        has("lp.solve: 'sense' must be \"min\" or \"max\"", error_of(lp.solve, { c = { 1 }, sense = "up" }))
        has("lp.solve: 'free[1]' must be a variable index in [1, 1] (got 2)", error_of(lp.solve, { c = { 1 }, free = { 2 } }))
        has("lp.solve: 'b_eq' is given without 'A_eq'", error_of(lp.solve, { c = { 1 }, b_eq = { 1 } }))
    end)
end)

-- A disk of mass m, radius r in a V groove: walls through the origin at angle
-- alpha from the horizontal (normals (+-sin a, cos a)), mu on both.
local function groove(alpha, mu, opts)
    opts = opts or {}
    local w = rc.world{ gravity = { 0, -10 } }
    local sa, ca = math.sin(alpha), math.cos(alpha)
    w:halfplane{ point = { 0, 0 }, normal = { sa, ca } }
    w:halfplane{ point = { 0, 0 }, normal = { -sa, ca } }
    local r, m = 0.5, 2
    local disk = w:body{ mass = m, inertia = 0.5 * m * r * r, q = { 0, r / ca, 0 }, shape = rc.disk{ radius = r },
                         force_fn = opts.force_fn }
    w:contact{ groups = { 0, 0 }, law = opts.law or rc.newton{ e = 0, mu = mu } }
    local sim = w:simulation{ scheme = opts.scheme, h = 1e-3, solver = { "nsgs", tol = 1e-13, max_iter = 10000 } }
    return w, sim, disk, m
end

describe("sim:force_set", function()
    it("a disk in a V groove: the segment of its self-stress along AB, in closed form", function()
        local alpha, mu, h, W = math.rad(30), 0.3, 1e-3, 20
        local _, sim = groove(alpha, mu)
        local set = sim:force_set{ contact = 1, problem = "explore", directions = 16 }
        assert.are.equal("bounded", set.status)
        assert.is_true(set.exact)
        assert.are.equal(1, set.dimension)
        -- R_A = N0 n_A + l e_x, N0 = W / (2 cos a): |l| cos a <= mu (N0 + l sin a)
        local sa, ca = math.sin(alpha), math.cos(alpha)
        local N0 = W / (2 * ca)
        local lmax, lmin = mu * N0 / (ca - mu * sa), -mu * N0 / (ca + mu * sa)
        local ends = { { h * (N0 + lmin * sa), h * lmin * ca }, { h * (N0 + lmax * sa), h * lmax * ca } }
        table.sort(set.vertices, function(a, b) return a[1] < b[1] end)
        for i = 1, 2 do
            -- the contact with the lower key may be either wall: p_T changes sign with the wall
            assert.is_near(ends[i][1], set.vertices[i][1], 1e-12)
            assert.is_near(math.abs(ends[i][2]), math.abs(set.vertices[i][2]), 1e-12)
        end
        assert.is_near(ends[1][1], set.pN[1], 1e-12)
        assert.is_near(ends[2][1], set.pN[2], 1e-12)
        assert.is_near(set.length, math.sqrt((ends[2][1] - ends[1][1]) ^ 2 + (ends[2][2] - ends[1][2]) ^ 2), 1e-12)
        -- forces (N, world frame): the self-stress runs along AB, horizontal here
        local dfx, dfy = set.forces[2][1] - set.forces[1][1], set.forces[2][2] - set.forces[1][2]
        assert.is_true(math.abs(dfy) <= 1e-9 * math.abs(dfx))
        assert.is_near(math.abs(lmax - lmin), math.abs(dfx), 1e-9)
        assert.is_near(h * (N0 + lmax * sa), set.pN[2], 1e-12)
        -- the step's own solution is in it; the ends cover it
        assert.is_true(set:contains(set.impulse[1], set.impulse[2]))
        assert.is_false(set:contains(ends[2][1] * 1.01, ends[2][2] * 1.01))
        assert.is_near(1, set:coverage(set.vertices), 1e-12)
        assert.is_near(0, set:coverage({ set.impulse }), 1e-12)
    end)

    it("gives the same set from the last step (at rest) as from the explored problem", function()
        local _, sim = groove(math.rad(30), 0.3)
        sim:step()
        local a = sim:force_set{ contact = 2 }                       -- problem = "step"
        local b = sim:force_set{ contact = 2, problem = "explore" }
        assert.are.equal("step", a.problem)
        for i = 1, 2 do
            for j = 1, 2 do assert.is_near(b.vertices[i][j], a.vertices[i][j], 1e-12) end
        end
        local all = sim:force_set{ contact = "all", directions = 8 }
        assert.is_not_nil(all[1]); assert.is_not_nil(all[2])
        local list = sim:force_set{ contact = { 2, 1 }, directions = 8 }
        assert.are.equal(2, list[1].contact)
        assert.are.equal(1, list[2].contact)
    end)

    it("a single contact: a point; a wedge steeper than the friction angle: unbounded", function()
        local w = rc.world{ gravity = { 0, -10 } }
        w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        w:body{ mass = 2, inertia = 0.25, q = { 0, 0.5, 0 }, shape = rc.disk{ radius = 0.5 } }
        w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.5 } }
        local sim = w:simulation{ h = 1e-3 }
        local set = sim:force_set{ contact = 1, problem = "explore" }
        assert.are.equal(0, set.dimension)
        assert.is_near(20e-3, set.vertices[1][1], 1e-14)
        assert.is_near(0, set.vertices[1][2], 1e-14)
        assert.is_near(20, set.forces[1][2], 1e-11)
        -- walls at 80 degrees: cot 80 = 0.18 < mu, the disk can be wedged as hard as one likes
        local _, sim2 = groove(math.rad(80), 0.3)
        local u = sim2:force_set{ contact = 1, problem = "explore", directions = 8 }
        assert.are.equal("unbounded", u.status)
        assert.is_true(#u.unbounded > 0)
        assert.is_nil(u:coverage({ { 1, 0 } }))
    end)

    it("a disk on a slope steeper than the friction angle has no static set", function()
        local w = rc.world{ gravity = { 0, -10 } }
        local a = math.rad(45)
        w:halfplane{ point = { 0, 0 }, normal = { -math.sin(a), math.cos(a) } }
        w:body{ mass = 1, inertia = 0.1, q = { -0.5 * math.sin(a), 0.5 * math.cos(a), 0 }, shape = rc.disk{ radius = 0.5 } }
        w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
        local sim = w:simulation{ h = 1e-3 }
        local set = sim:force_set{ contact = 1, problem = "explore" }
        assert.are.equal("empty", set.status)
        assert.is_false((set:contains(0, 0)))
    end)

    it("sizes the explorer's random guesses per contact (sim:explore{ scale = list })", function()
        local _, sim = groove(math.rad(30), 0.3)
        local sets = sim:force_set{ contact = "all", problem = "explore", directions = 8 }
        local scale = { 1.5 * sets[1].pN[2], 0 }      -- contact 2 starts from zero
        local pts = {}
        for seed = 1, 40 do
            local sol = sim:explore{ guess = "random", scale = scale, seed = seed }
            assert.is_true(sets[1]:contains(sol[1].pN, sol[1].pT))
            pts[#pts + 1] = sol[1]
        end
        assert.is_true(sets[1]:coverage(pts) > 0.5)
        has("sim:explore: 'scale' (> 0) is required", error_of(sim.explore, sim, { guess = "random", scale = { 0, 0 } }))
        has("sim:explore: 'scale[2]' must be >= 0 (got -1)", error_of(sim.explore, sim, { guess = "random", scale = { 1, -1 } }))
        has("sim:explore: a list of scales needs guess = \"random\"", error_of(sim.explore, sim, { guess = "zero", scale = { 1 } }))
    end)

    it("checks its arguments and the problem", function()
        local w, sim, disk = groove(math.rad(30), 0.3)
        has("sim:force_set: 'contact' is required", error_of(sim.force_set, sim, {}))
        has("sim:force_set: unknown key 'direction' (did you mean 'directions'?)",
            error_of(sim.force_set, sim, { contact = 1, direction = 8 }))
        has("sim:force_set: 'directions' must be in [4, 100000] (got 2)", error_of(sim.force_set, sim, { contact = 1, directions = 2 }))
        has("sim:force_set: 'problem' must be one of \"step\", \"explore\"",
            error_of(sim.force_set, sim, { contact = 1, problem = "next" }))
        has("sim:force_set: no step has been done", error_of(sim.force_set, sim, { contact = 1 }))
        has("sim:force_set: 'contact' = 5 is not a contact of the explored problem (it has 2 contacts)",
            error_of(sim.force_set, sim, { contact = 5, problem = "explore" }))
        has("sim:force_set: 'contact[2]' must be a contact index (an integer) (got 1.5)",
            error_of(sim.force_set, sim, { contact = { 1, 1.5 }, problem = "explore" }))
        has("sim:force_set: 'contact' must be a contact index, a list of them or \"all\" (got 'every')",
            error_of(sim.force_set, sim, { contact = "every", problem = "explore" }))
        has("sim:force_set: 'tol' must be > 0", error_of(sim.force_set, sim, { contact = 1, tol = 0, problem = "explore" }))
        disk:set_state{ v = { 0, -0.01, 0 } }
        has("moves (speed 0.01 >", error_of(sim.force_set, sim, { contact = 1, problem = "explore" }))
        -- a step that does not start from rest
        disk:set_state{ v = { 0, -0.05, 0 } }
        sim:step()
        disk:set_state{ v = { 0, 0, 0 } }
        has("sim:force_set: the last step did not start from rest", error_of(sim.force_set, sim, { contact = 1 }))
        local _, sim2 = groove(math.rad(30), 0.3, { force_fn = function() return { 0, 0, 0 } end })
        has("has a force function", error_of(sim2.force_set, sim2, { contact = 1, problem = "explore" }))
        local _, sim3 = groove(math.rad(30), 0.3, { scheme = "maury" })
        has("the scheme 'maury' is not supported", error_of(sim3.force_set, sim3, { contact = 1, problem = "explore" }))
        local coulomb = require "ricochet.laws.coulomb"
        local _, sim4 = groove(math.rad(30), 0.3, { law = coulomb{ mu = 0.3 } })
        has("has a law written in Lua", error_of(sim4.force_set, sim4, { contact = 1, problem = "explore" }))
        local w5, sim5, d5 = groove(math.rad(30), 0.3)
        w5:revolute{ w5.ground, d5, at = { 0, 1 } }
        sim5 = w5:simulation{ h = 1e-3 }
        has("joints are not supported", error_of(sim5.force_set, sim5, { contact = 1, problem = "explore" }))
        -- a disk just above the floor, within the contact margin: an inactive contact
        local w6 = rc.world{ gravity = { 0, -10 } }
        w6:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        w6:body{ mass = 1, inertia = 0.1, q = { 0, 0.505, 0 }, shape = rc.disk{ radius = 0.5 } }
        local sim6 = w6:simulation{ h = 1e-3 }
        has("sim:force_set: 'contact' = 1: contact 1 of the explored problem is not active",
            error_of(sim6.force_set, sim6, { contact = 1, problem = "explore" }))
        assert.is_not_nil(w)
    end)
end)

describe("the documentation's snippets", function()
    local root = os.getenv("RICOCHET_ROOT") or "."
    local function run_snippet(file, after)
        local f = assert(io.open(root .. "/" .. file))
        local text = f:read("a")
        f:close()
        local i = assert(text:find(after, 1, true), "no '" .. after .. "' in " .. file)
        local code = assert(text:match("```lua\n(.-)```", i))
        local chunk = assert(load(code, "=" .. file .. " snippet"))
        local print0 = _G.print
        _G.print = function() end
        local ok, err = pcall(chunk)
        _G.print = print0
        if not ok then error(err, 0) end
    end
    it("docs/granular.md: the exact sets of three disks in a box, and the explorer", function()
        run_snippet("docs/granular.md", "## Indeterminate forces of a static packing")
    end)
    it("docs/lua-api.md: ricochet.lp", function()
        run_snippet("docs/lua-api.md", "## Linear programming: `ricochet.lp`")
    end)
end)
