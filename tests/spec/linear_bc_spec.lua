-- linear_bc_spec.lua -- prescribed coordinates, reactions and the static
-- solve of linear bodies (src/model/linear_bc.c, docs/fem.md): body:prescribe,
-- body:reactions, body:release, body:solve_static.
local rc = require "ricochet"

local function error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok, "no error raised")
    return (tostring(err):gsub("^[^:]*:%d+: ", ""))
end

-- A chain of n unit masses joined by springs k (M = I, K tridiagonal).
local function chain(n, k)
    local M, K = {}, {}
    for i = 1, n do
        M[i], K[i] = {}, {}
        for j = 1, n do M[i][j], K[i][j] = (i == j) and 1 or 0, 0 end
    end
    for i = 1, n - 1 do
        K[i][i], K[i + 1][i + 1] = K[i][i] + k, K[i + 1][i + 1] + k
        K[i][i + 1], K[i + 1][i] = -k, -k
    end
    return M, K
end

local function grid(nx, ny, W, H)   -- rc.fem_rectangle's mesh: nodes, triangles, bottom and top node sets
    local m = rc.fem_rectangle{ width = W, height = H, nx = nx, ny = ny }
    return m.nodes, m.triangles, { bottom = m.node_sets.bottom, top = m.node_sets.top }
end

describe("body:prescribe on a linear body", function()
    -- A bar of n nodes (half-bandwidth 1: banded storage) fixed at node 1 and
    -- pulled at node n at speed V from the uniform stretch rate u_i = V t (i-1)/(n-1):
    -- a linear field, which K leaves without interior forces, so the theta-method
    -- follows it exactly; the reaction is K q_{k+theta} on the pulled end.
    for _, scheme in ipairs({ "moreau-jean", "moreau-jean-fremond" }) do
        it("pulls a bar at constant speed: positions, reactions K u, energy balance (" .. scheme .. ")", function()
            local n, k, V, h = 20, 100.0, 0.01, 1e-3
            local M, K = chain(n, k)
            local v0 = {}
            for i = 1, n do v0[i] = V * (i - 1) / (n - 1) end
            local w = rc.world{}
            local bar = w:linear{ name = "bar", M = M, K = K, v0 = v0 }
            bar:prescribe{ dofs = { 1 }, value = 0 }
            bar:prescribe{ dofs = { n }, value = function(t) return V * t end }
            local s = w:simulation{ h = h, scheme = scheme }:run{ T = 1 }
            local q, r = bar:q(), bar:reactions()
            assert.is_true(math.abs(q[n] - V) < 1e-15)
            assert.are.equal(0, q[1])
            local R = k * V * (1 - h / 2) / (n - 1)   -- K q at t_{k+1/2} of the last step
            assert.is_true(math.abs(r[n] - R) < 1e-9 * R, tostring(r[n]))
            assert.is_true(math.abs(r[1] + R) < 1e-9 * R, tostring(r[1]))
            for i = 2, n - 1 do assert.are.equal(0, r[i]) end
            -- the supports' work (in W_ext) closes eq. (65) to round-off, and is all the energy gained
            assert.is_true(s.max_abs_balance < 1e-14 * s.E, tostring(s.max_abs_balance))
            assert.is_true(s.E > 1.5 * s.E0)
        end)
    end

    it("refuses bad arguments, naming them", function()
        local M, K = chain(3, 1)
        local w = rc.world{}
        local b = w:linear{ M = M, K = K }
        assert.are.equal("body:prescribe: 'dofs[1]' must be a coordinate number in 1..3 (got 4)",
                         error_of(b.prescribe, b, { dofs = { 4 }, value = 0 }))
        assert.are.equal("body:prescribe: 'value' must be a finite number or a function(t) (got 'x')",
                         error_of(b.prescribe, b, { dofs = { 1 }, value = "x" }))
        assert.are.equal("body:prescribe: 'value' is required: a number or a function(t)",
                         error_of(b.prescribe, b, { dofs = { 1 } }))
        assert.matches("unknown key 'set'", error_of(b.prescribe, b, { dofs = { 1 }, value = 0, set = "top" }), 1, true)
    end)

    it("fails the step with the function's message, and gen-alpha refuses prescribed coordinates", function()
        local M, K = chain(3, 1)
        local w = rc.world{}
        local b = w:linear{ name = "b", M = M, K = K }
        b:prescribe{ dofs = { 1 }, value = function(t) return t > 0.05 and "x" or 0 end }
        local ok, err = pcall(function() w:simulation{ h = 0.01 }:run{ T = 0.1 } end)
        assert.is_false(ok)
        assert.matches("prescribed value function returned string", tostring(err), 1, true)
        local w2 = rc.world{}
        local b2 = w2:linear{ name = "b2", M = M, K = K }
        b2:prescribe{ dofs = { 1 }, value = 0 }
        ok, err = pcall(function() w2:simulation{ h = 0.01, scheme = "gen-alpha" }:run{ T = 0.1 } end)
        assert.is_false(ok)
        assert.matches("gen-alpha does not support them", tostring(err), 1, true)
        b2:release()
        w2:simulation{ h = 0.01, scheme = "gen-alpha" }:run{ T = 0.02 }
    end)
end)

describe("body:solve_static on a finite-element body", function()
    -- The column under self-weight (docs/fem.md), nu = 0, bottom pinned:
    -- u_y(y) = -rho g (H y - y^2/2)/E; the nodal error falls with the mesh.
    local function column(N)
        local E, rho, g, th, W, H = 200, 2, 9.81, 0.5, 1, 2
        local nodes, tris, sets = grid(N, 2 * N, W, H)
        local w = rc.world{ gravity = { 0, -g } }
        local col = w:fem{ nodes = nodes, triangles = tris, E = E, nu = 0, rho = rho, thickness = th,
                           gravity = true, sets = sets }
        local r = col:solve_static{ fix = { "bottom" } }
        local err = 0
        for k = 1, #nodes do
            local y = nodes[k][2]
            err = math.max(err, math.abs(col:displacements(k)[2] + rho * g * (H * y - y * y / 2) / E))
        end
        return err / (rho * g * H * H / (2 * E)), r, rho * g * W * H * th, col
    end

    it("matches the analytic column to the discretisation error, K u = f to 1e-12, reactions = weight", function()
        local e4, r4, weight, col = column(4)
        local e8, r8 = column(8)
        assert.is_true(e4 < 0.03 and e8 < 0.01 and e8 < e4 / 3, e4 .. " " .. e8)   -- measured 0.0271, 0.0084
        assert.is_true(r4.residual < 1e-12 and r8.residual < 1e-12)
        assert.is_true(math.abs(r8.reactions.bottom[2] - weight) < 1e-12 * weight)
        assert.is_true(math.abs(r8.reactions.bottom[1]) < 1e-12 * weight)
        for _, v in ipairs(col:v()) do assert.are.equal(0, v) end
    end)

    it("holds a prescribed top and reports its reaction; a free body is refused", function()
        local nodes, tris, sets = grid(4, 4, 1, 1)
        local w = rc.world{}
        local b = w:fem{ nodes = nodes, triangles = tris, E = 100, nu = 0, rho = 1, sets = sets }
        b:prescribe{ set = "top", uy = -0.01 }
        local r = b:solve_static{ fix = { "bottom" } }
        for _, k in ipairs(sets.top) do assert.is_true(math.abs(b:displacements(k)[2] + 0.01) < 1e-15) end
        -- nu = 0, uniform strain -0.01 over height 1, width 1, thickness 1: sigma = E eps, force 1
        assert.is_true(math.abs(r.reactions.top[2] + 1) < 1e-12, tostring(r.reactions.top[2]))
        assert.is_true(math.abs(r.reactions.bottom[2] - 1) < 1e-12)
        local w2 = rc.world{}
        local free = w2:fem{ nodes = nodes, triangles = tris, E = 100, nu = 0.3, rho = 1, sets = sets }
        assert.matches("K is singular on the free coordinates", error_of(free.solve_static, free, {}), 1, true)
        assert.matches("the body has no node set 'left'", error_of(free.solve_static, free, { fix = { "left" } }), 1, true)
        assert.matches("unknown key 'fixed'", error_of(free.solve_static, free, { fixed = { "bottom" } }), 1, true)
        assert.matches("give 'ux' and/or 'uy'", error_of(free.prescribe, free, { set = "top" }), 1, true)
    end)
end)
