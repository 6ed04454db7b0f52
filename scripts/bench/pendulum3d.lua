-- Benchmark: the spatial pendulums of tests/spec/gen_alpha_3d_joints_spec.lua
-- (a body tumbling on a spherical joint, a rod on a hinge, a driven hinge),
-- CPU per step under Moreau-Jean, Moreau-Jean-Fremond and gen-alpha
-- (capobianco2021 and bruls2014, rho_inf = 1), h = 1e-3, 2 s, best of `reps` runs (not a test).
--   build/ricochet run scripts/bench/pendulum3d.lua [--set reps=5]
local rc = require "ricochet"
local reps = rc.param("reps", 5)
local g = 9.81

local function scene(kind)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g } }
    if kind == "spherical" then
        local b = w:body{ mass = 1, inertia = { 0.004, 0.005, 0.006 }, q = { 0.6, 0, -0.8, 1, 0, 0, 0 }, v = { -0.4, 2, -0.3, 1, 0.5, 2 } }
        w:joint{ kind = "spherical", a = w.ground, b = b, anchor = { 0, 0, 0 } }
    else
        local b = w:body{ mass = 2, inertia = { 0.01, 0.17, 0.17 }, q = { 0.5, 0, 0, 1, 0, 0, 0 } }
        w:joint{ kind = "revolute", a = w.ground, b = b, anchor = { 0, 0, 0 }, axis = { 0, 1, 0 },
                 motion = kind == "driven" and function(t) return 0.5 * math.sin(3 * t) end or nil }
    end
    return w
end

local schemes = {
    { "moreau-jean", { theta = 0.5, solver = { "nsgs", tol = 1e-12 } } },
    { "moreau-jean-fremond", { theta = 0.5, solver = { "nsgs", tol = 1e-12 } } },
    { "gen-alpha", { rho_inf = 1, solver = { tol = 1e-12 } } },
    { "gen-alpha", { rho_inf = 1, solver = { tol = 1e-12 }, variant = "bruls2014" } },
}
print("| pendulum | scheme | CPU per step (us) |")
print("|---|---|---|")
for _, kind in ipairs({ "spherical", "revolute", "driven" }) do
    for _, sc in ipairs(schemes) do
        local best = math.huge
        for _ = 1, reps do
            local w = scene(kind)
            local opts = { scheme = sc[1], h = 1e-3 }
            for k, v in pairs(sc[2]) do opts[k] = v end
            local sim = w:simulation(opts)
            local c0 = os.clock()
            sim:run{ T = 2 }
            best = math.min(best, os.clock() - c0)
        end
        print(string.format("| %s | %s%s | %.1f |", kind, sc[1], sc[2].variant and (" " .. sc[2].variant) or "", 1e6 * best / 2000))
    end
end
