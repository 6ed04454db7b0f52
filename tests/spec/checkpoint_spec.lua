-- checkpoint_spec.lua -- sim:save / sim:restore and `ricochet run --restart FILE
-- --checkpoint-every N` (docs/checkpoint.md). A run of 2T equals a run of T,
-- saved, restored into a NEW world built by the same code and run for T, bit
-- for bit (every number compared as string.format("%a")): the rocking block, a
-- 1 000-disk pile with the random sweep order, a mechanism with joints, a
-- controller and a linear body with a gap contact, a run with a Lua law that
-- keeps a per-contact state. A restarted program's history continues the first
-- run's rows exactly. Refusals with their messages.
local rc = require "ricochet"
local ROOT = os.getenv("RICOCHET_ROOT") or "."
local BIN = os.getenv("RICOCHET_BIN")

local H = require "sh_helper"
local q, tmpdir, sh, gunzip_rows = H.q, H.tmpdir, H.sh_all, H.gunzip_rows

local function hex(x) return string.format("%a", x) end

-- Every number of a table (sorted keys, nested), as %a.
local function dump(t, skip, out)
    out = out or {}
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do
        local v = t[k]
        if not (skip and skip[k]) then
            if type(v) == "number" then out[#out + 1] = tostring(k) .. "=" .. hex(v)
            elseif type(v) == "table" then out[#out + 1] = tostring(k) .. "{"; dump(v, skip, out); out[#out + 1] = "}"
            elseif type(v) == "boolean" or type(v) == "string" then out[#out + 1] = tostring(k) .. "=" .. tostring(v) end
        end
    end
    return out
end

-- What a user can read of a run's state: time, step count, every body's q
-- and v, the contacts of the last step, the step info (with its totals), the
-- run statistics (but the CPU time and the memory).
local function state(w, sim)
    local s = { "t=" .. hex(sim.t), "steps=" .. sim.steps }
    for _, b in ipairs(w:bodies()) do
        for _, x in ipairs(b:q()) do s[#s + 1] = hex(x) end
        for _, x in ipairs(b:v()) do s[#s + 1] = hex(x) end
    end
    for _, c in ipairs(sim:contacts()) do dump(c, nil, s) end
    if sim.steps > 0 then dump(sim:info(), nil, s) end
    dump(sim:stats(), { solver_cpu_s = true, memory_bytes = true, work_peak_bytes = true, stage_wall_s = true,
                        sweep_wall_s = true, sweep_solves = true }, s)
    return table.concat(s, " ")
end

-- build() -> world, sim: the same model each call. 2 n steps in one world;
-- n steps, save, a new world, restore, n steps: the same state.
local function check_restart(build, n, min_contacts, final)
    local path = os.tmpname()
    local w1, s1 = build()
    for _ = 1, 2 * n do s1:step() end
    local w2, s2 = build()
    for _ = 1, n do s2:step() end
    assert.is_true(#s2:contacts() >= (min_contacts or 1))   -- the checkpoint carries contacts
    s2:save(path)
    local at_save = state(w2, s2)
    local w3, s3 = build()
    s3:restore(path)
    assert.are.equal(at_save, state(w3, s3))
    for _ = 1, n do s3:step() end
    assert.are.equal(state(w1, s1), state(w3, s3))
    if final then assert.are.equal(final(w1), final(w3)) end
    local f = assert(io.open(path, "rb"))
    local size = #f:read("a")
    f:close()
    os.remove(path)
    w1:close(); w2:close(); w3:close()
    return size
end

local function rocking_block()
    local w = rc.world{ gravity = { 0, -10 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local block = w:body{ name = "block", mass = 1, inertia = 1 / 6, q = { 0, 0.6, 0 }, v = { 0, -0.2, 1 },
                          shape = rc.box{ 1, 1 } }
    w:contact{ w.ground, block, law = rc.newton{ e = 1, mu = 0.1 }, name = "C" }
    return w, w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-4, solver = { "nsgs", tol = 1e-10 } }
end

-- 1 000 disks of random radii and velocities dropped in a box (as
-- scripts/bench/disks_in_box.lua), NSGS with a new random order every sweep
local function disk_pile()
    local N, seed = 1000, 42
    local rng = seed
    local function uniform(a, b)   -- a fixed generator: the two builds draw the same numbers
        rng = (rng * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
        return a + (b - a) * ((rng >> 11) / 2 ^ 52)
    end
    local c = math.ceil(math.sqrt(2 * N))
    local width = 0.25 * c
    local w = rc.world{ gravity = { 0, -9.81 }, default_law = rc.newton{ mu = 0.3 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
    w:halfplane{ point = { width, 0 }, normal = { -1, 0 } }
    for i = 0, N - 1 do
        local col, row = i % c, i // c
        local r = 0.1 * uniform(0.9, 1.1)
        local m = math.pi * r * r
        w:body{ mass = m, inertia = m * r * r / 2,
                q = { 0.25 * (col + 0.5) + uniform(-0.01, 0.01), 0.25 * (row + 0.5) + 0.05 + uniform(-0.01, 0.01), 0 },
                v = { uniform(-0.5, 0.5), uniform(-0.5, 0.5), 0 }, shape = rc.disk{ r } }
    end
    return w, w:simulation{ h = 2e-3, solver = { "nsgs", tol = 1e-4, order = "random", seed = 7, max_iter = 1000 } }
end

-- a cart on a rail (prismatic) carrying a pendulum (revolute), pushed by a PD
-- controller (set_force in before_step) against a bumper; a 4-node bar (linear
-- body, M and K) falling on a stop (gap contact)
local function mechanism()
    local w = rc.world{ gravity = { 0, -10 } }
    w:halfplane{ point = { 0.15, 0 }, normal = { -1, 0 } }
    local cart = w:body{ name = "cart", mass = 1.0, inertia = 0.02, q = { 0, 0, 0 }, shape = rc.box{ 0.2, 0.1 } }
    local bob = w:body{ name = "bob", mass = 0.5, inertia = 0.005, q = { 0.5 * math.sin(0.6), -0.5 * math.cos(0.6), 0.6 } }
    w:prismatic{ w.ground, cart, axis = { 1, 0 }, at = { 0, 0 }, name = "rail" }
    w:revolute{ cart, bob, point_a = { 0, 0 }, point_b = { 0, 0.5 }, name = "hinge" }
    w:contact{ w.ground, cart, law = rc.newton{ e = 0.3, mu = 0 }, name = "B" }
    local n, m, k = 4, 0.25, 400
    local M, K, grav = {}, {}, {}
    for i = 1, n do
        M[i], K[i] = {}, {}
        for j = 1, n do M[i][j], K[i][j] = 0, 0 end
        M[i][i] = m
        grav[i] = -9.81 * m
    end
    for i = 1, n - 1 do
        K[i][i], K[i + 1][i + 1] = K[i][i] + k, K[i + 1][i + 1] + k
        K[i][i + 1], K[i + 1][i] = -k, -k
    end
    local bar = w:linear{ name = "bar", M = M, K = K, f = grav, v0 = { -1, -1, -1, -1 } }
    w:gap{ bar, index = { 1 }, normal = { 1 }, g0 = 0.05, name = "stop", law = rc.newton{ e = 0 } }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-10 } }
    sim:before_step(function()
        local qc, vc, qb, vb = cart:q(), cart:v(), bob:q(), bob:v()
        cart:set_force{ 30 * qb[3] + 8 * vb[3] - 4 * qc[1] - 4 * vc[1], 0, 0 }
    end)
    return w, sim
end

-- an arm driven by a motor whose speed a callback reverses, stopped by angle limits
-- (e = 0.5), and a slider pushed by a force-limited motor against its upper bound
local function motors()
    local w = rc.world{ gravity = { 0, -10 } }
    local arm = w:body{ name = "arm", mass = 1, inertia = 1 / 12, q = { 0.5, 0, 0 } }
    local pin = w:revolute{ w.ground, arm, at = { 0, 0 }, name = "pin",
                            motor = { speed = 2, max_torque = 8 }, limits = { lower = -0.6, upper = 0.6, e = 0.5 } }
    local block = w:body{ name = "block", mass = 2, inertia = 0.1, q = { 0, -2, 0 } }
    w:prismatic{ w.ground, block, axis = { 1, 0 }, at = { 0, -2 }, name = "rail",
                 motor = { speed = 1, max_force = 3 }, limits = { lower = -0.2, upper = 0.3 } }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-12 } }
    sim:before_step(function(s)
        if s.steps % 300 == 150 then pin:set_motor{ speed = (s.steps // 300) % 2 == 0 and -1.5 or 2.5 } end
    end)
    return w, sim
end

-- boxes pushed along a velocity-weakening floor (a Lua law whose contacts keep
-- the last sliding speed as their state)
local function lua_law()
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    local law = rc.laws.velocity_weakening{ mu_s = 0.6, mu_d = 0.3, v_c = 0.05 }
    for i = 1, 3 do
        local b = w:body{ mass = 1, inertia = 1 / 6, q = { 2 * i, 0.5, 0 }, v = { 1 + 0.5 * i, 0, 0 },
                          shape = rc.box{ 1, 1 } }
        w:contact{ w.ground, b, law = law }
    end
    return w, w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-10 } }
end

-- the pendulum on its obstacle (Bruls et al. 2014, section 10.2) under gen-alpha:
-- the scheme's a_n and vdot~_n, the contacts' nu and the joints' lambda~ carry over
local function gen_alpha_pendulum()
    local w = rc.world{ gravity = { 0, -10 } }
    w:halfplane{ point = { math.sqrt(2) / 2, 0 }, normal = { 1, 0 } }
    local bob = w:body{ name = "bob", mass = 1, inertia = 0.1, q = { math.cos(math.pi / 12), math.sin(math.pi / 12), math.pi / 12 },
                        shape = rc.point{ 0, 0 } }
    w:revolute{ w.ground, bob, point_a = { 0, 0 }, point_b = { -1, 0 }, name = "pivot" }
    w:contact{ w.ground, bob, law = rc.newton{ e = 0.8, mu = 0 }, name = "C" }
    return w, w:simulation{ scheme = "gen-alpha", rho_inf = 0.8, h = 1e-3, solver = { tol = 1e-12 } }
end

-- the rotating ball of Capobianco et al. 2021 (section 10.1, omega = 50): gen-alpha with
-- friction, saved while it slides (a, a-bar and each contact's forces by key)
local function gen_alpha_friction_ball()
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    w:body{ name = "ball", mass = 1, inertia = 0.004, q = { 0, 1, 0 }, v = { 0, 0, 50 }, shape = rc.disk{ radius = 0.1 } }
    w:contact{ w.ground, w:bodies()[1], law = rc.newton{ e = 0, mu = 0.2 }, name = "C" }
    return w, w:simulation{ scheme = "gen-alpha", rho_inf = 0.5, h = 2e-3, solver = { tol = 1e-10 } }
end

-- 30 disks falling into a box with the contacts' position projection (project_contacts):
-- its figures over the run (largest overlap, sweeps, energy) carry over
local function projected_pile()
    local w = rc.world{ gravity = { 0, -9.81 }, default_law = rc.newton{ mu = 0.3 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
    w:halfplane{ point = { 1.2, 0 }, normal = { -1, 0 } }
    for i = 0, 29 do
        local r = 0.09 + 0.01 * (i % 3)
        w:body{ mass = 1, inertia = r * r / 2, q = { 0.15 + 0.22 * (i % 5), 0.2 + 0.22 * (i // 5), 0 },
                v = { 0.3 * ((i % 4) - 1.5), -2, 0 }, shape = rc.disk{ r } }
    end
    return w, w:simulation{ h = 2e-3, project_contacts = true, project_tol = 1e-8, solver = { "nsgs", tol = 1e-8 } }
end

-- A dim = 3 world: a stack of three boxes dropped turning (box-box manifolds, MJF impacts), a
-- spinning ball under Coulomb-Contensou spin friction (its drilling row), a spherical pendulum,
-- a constant force and torque on a box; saved while all of them touch or swing
local function spatial_scene()
    local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0.3, mu = 0.4 } }
    w:plane{}
    local half = { 0.25, 0.1875, 0.125 }
    local boxes = {}
    for k = 1, 3 do
        local a = 0.05 * (k - 1)
        boxes[k] = w:body{ density = 1000, box = half, shape = rc.box3(half),
                           q = { 0.01 * (k - 1), 0, 0.125 + 0.27 * (k - 1) + 0.01, math.cos(a / 2), 0, 0, math.sin(a / 2) },
                           v = { 0, 0, 0, 0.3, -0.2, 0.1 } }
    end
    boxes[3]:set_force{ 0.5, 0, 0, 0, 0, 0.02 }
    local ball = w:body{ density = 500, sphere = 0.1, shape = rc.sphere{ 0.1 }, q = { 1.5, 0, 0.1, 1, 0, 0, 0 },
                         v = { 0.5, 0, 0, 0, 3, 40 } }
    w:contact{ w.ground, ball, law = rc.contensou{ e = 0, mu = 0.3, radius = 0.02 } }
    local bob = w:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, q = { -1.5, 0.5, 1.0, 1, 0, 0, 0 },
                        v = { 0, 1, 0, 0, 0, 0 } }
    w:joint{ kind = "spherical", a = w.ground, b = bob, anchor = { -1.5, 0, 1.0 } }
    return w, w:simulation{ scheme = "moreau-jean-fremond", theta = 0.5, h = 1e-3, solver = { "nsgs", tol = 1e-10 } }
end

-- the 3D contacts of the last step, every number (ids, impulses, the drilling row's)
local function contacts3(w)
    local s = {}
    for _, c in ipairs(w:contacts3()) do dump(c, nil, s) end
    assert.is_true(#s > 0)
    return table.concat(s, " ")
end

describe("checkpoint and restart: 2T = T + save + restore + T, bit for bit", function()
    it("spatial bodies: boxes on boxes, spin friction, a 3D joint, a constant force", function()
        local size = check_restart(spatial_scene, 200, 0, contacts3)
        print(string.format("\n  spatial scene checkpoint: %d bytes", size))
    end)
    it("a pile with the contacts' position projection and its run figures", function()
        check_restart(projected_pile, 150)
    end)
    it("gen-alpha with friction: the rotating ball, saved while it slides", function()
        check_restart(gen_alpha_friction_ball, 250)   -- lands at 0.43 s, slides until 0.73 s
    end)
    it("gen-alpha: the pendulum on its obstacle, saved in contact (a_n, vdot~_n, nu)", function()
        check_restart(gen_alpha_pendulum, 1200)   -- the bob reaches the obstacle at t = 0.67 s
    end)
    it("the rocking block (impacts, friction, MJF)", function()
        local size = check_restart(rocking_block, 3000)
        print(string.format("\n  rocking block checkpoint: %d bytes", size))
    end)
    it("a 1 000-disk pile with the random sweep order", function()
        local size = check_restart(disk_pile, 100, 500)
        print(string.format("\n  1 000-disk pile checkpoint: %d bytes", size))
    end)
    it("a mechanism: joints, a controller, a linear body with a gap contact", function()
        check_restart(mechanism, 400)
    end)
    it("joint motors and limits, the motor reversed by a callback", function()
        check_restart(motors, 700, 0)
    end)
    it("a Lua law with a per-contact state", function()
        check_restart(lua_law, 300, 3)
    end)
end)

describe("sim:save / sim:restore refusals", function()
    it("refuses spatial bodies under gen-alpha (not yet)", function()
        local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 } }
        w:body{ mass = 1, inertia = { 1, 1, 1 } }
        local sim = w:simulation{ scheme = "gen-alpha", h = 1e-3 }
        sim:step()
        local ok, err = pcall(sim.save, sim, os.tmpname())
        assert.is_false(ok)
        assert.is_truthy(tostring(err):find("checkpoints of spatial bodies under gen-alpha are not supported yet", 1, true))
        w:close()
    end)
    it("names the argument and says what is wrong with the file", function()
        local w, sim = rocking_block()
        for _ = 1, 10 do sim:step() end
        local ok, err = pcall(sim.save, sim, nil)
        assert.is_false(ok)
        assert.matches("sim:save: 'path' must be a non-empty string (got nil)", err, 1, true)
        ok, err = pcall(sim.restore, sim, "")
        assert.matches("sim:restore: 'path' must be a non-empty string (got '')", err, 1, true)
        local path = os.tmpname()
        local f = assert(io.open(path, "wb"))
        f:write("t,E\n")
        f:close()
        ok, err = pcall(sim.restore, sim, path)
        assert.matches("sim:restore: '" .. path .. "' is not a checkpoint (no ricochet checkpoint header)", err, 1, true)
        sim:save(path)
        local w2 = rc.world{ gravity = { 0, -10 } }
        w2:body{ mass = 1, inertia = 1, shape = rc.disk{ 0.5 } }
        local sim2 = w2:simulation{ h = 1e-4 }
        ok, err = pcall(sim2.restore, sim2, path)
        assert.matches("sim:restore: checkpoint '" .. path .. "': the model differs from the one that wrote the checkpoint (bodies, "
                       .. "shapes (2 in the checkpoint, 1 here), laws (2 in the checkpoint, 1 here), contact rules "
                       .. "(1 in the checkpoint, 0 here), simulation settings (scheme 2, theta = 0.5, h = 0.0001 in "
                       .. "the checkpoint; scheme 1, theta = 0.5, h = 0.0001 here) differ)", err, 1, true)
        assert.are.equal(0, sim2.steps)
        os.remove(path)
        w:close(); w2:close()
    end)
end)

-- the history of a restarted program continues the first one's rows


describe("ricochet run --restart / --checkpoint-every", function()
    it("continues the first run's history row for row", function()
        if not BIN then pending("RICOCHET_BIN is not set") return end
        local dir = tmpdir()
        local script = ROOT .. "/scripts/papers/acary2024_rocking_block.lua"
        local run = q(BIN) .. " run " .. q(script) .. " --quiet --every 10 --set scheme=moreau-jean-fremond "
        local code, text = sh(run .. "--set T=0.5 --out " .. q(dir .. "/ref"))
        assert.are.equal(0, code, text)
        code, text = sh(run .. "--set T=0.25 --checkpoint-every 500 --out " .. q(dir .. "/a"))
        assert.are.equal(0, code, text)
        code, text = sh(run .. "--set T=0.5 --restart " .. q(dir .. "/a/checkpoint.rcc") .. " --out " .. q(dir .. "/b"))
        assert.are.equal(0, code, text)
        local ref, a, b = gunzip_rows(dir .. "/ref/history.csv.gz"), gunzip_rows(dir .. "/a/history.csv.gz"),
                          gunzip_rows(dir .. "/b/history.csv.gz")
        assert.are.equal(ref[1], a[1])   -- the header
        assert.are.equal(ref[1], b[1])
        assert.are.equal(252, #a)        -- header, t = 0, 0.001 ... 0.25
        assert.are.equal(252, #b)        -- header, t = 0.25 (the checkpoint's state) ... 0.5
        for i = 2, #a do assert.are.equal(ref[i], a[i]) end
        for i = 2, #b do assert.are.equal(ref[#a - 2 + i], b[i]) end   -- b[2] is a's last row
        assert.are.equal(a[#a], b[2])
        -- refusals through the program: its message, exit 1
        code, text = sh(q(BIN) .. " run " .. q(script) .. " --quiet --set theta=1 --restart "
                        .. q(dir .. "/a/checkpoint.rcc"))
        assert.are.equal(1, code)
        assert.matches("sim:run: --restart: checkpoint '" .. dir .. "/a/checkpoint.rcc': the model differs from the one "
                       .. "that wrote the checkpoint (simulation settings (scheme 2, theta = 0.5, h = 0.0001 in the "
                       .. "checkpoint; scheme 1, theta = 1, h = 0.0001 here) differ)", text, 1, true)
        code, text = sh(run .. "--set T=0.01 --checkpoint-every 10")
        assert.are.equal(1, code)
        assert.matches("sim:run: --checkpoint-every needs an output folder for its checkpoint.rcc (--out DIR, or "
                       .. "sim:run{ out = ... })", text, 1, true)
        code, text = sh(q(BIN) .. " run " .. q(script) .. " --checkpoint-every 0")
        assert.are.equal(2, code)
        assert.matches("--checkpoint-every needs a positive integer (got '0')", text, 1, true)
        os.execute("rm -rf " .. q(dir))
    end)

    it("in the sandbox: checkpoints only under --out", function()
        if not BIN then pending("RICOCHET_BIN is not set") return end
        local dir = tmpdir()
        local f = assert(io.open(dir .. "/s.lua", "w"))
        f:write([[
local rc = require "ricochet"
local w = rc.world{ gravity = { 0, -10 } }
w:body{ mass = 1, inertia = 1 }
local sim = w:simulation{ h = 1e-3 }
sim:step()
sim:save(arg[1])
]])
        f:close()
        assert(os.execute("mkdir -p " .. q(dir .. "/out")))
        local code = sh(q(BIN) .. " run --sandbox --out " .. q(dir .. "/out") .. " " .. q(dir .. "/s.lua") .. " "
                        .. q(dir .. "/out/ok.rcc"))
        assert.are.equal(0, code)
        local code2, text = sh(q(BIN) .. " run --sandbox --out " .. q(dir .. "/out") .. " " .. q(dir .. "/s.lua") .. " "
                               .. q(dir .. "/elsewhere.rcc"))
        assert.are.equal(1, code2)
        assert.matches("writing outside the output folder", text, 1, true)
        os.execute("rm -rf " .. q(dir))
    end)
end)

describe("docs/checkpoint.md", function()
    it("runs its example", function()
        local f = assert(io.open(ROOT .. "/docs/checkpoint.md"))
        local text = f:read("a")
        f:close()
        local code = assert(text:match("```lua\n(.-)```"))
        local chunk = assert(load(code, "=docs/checkpoint.md"))
        local print0 = _G.print
        local printed = {}
        _G.print = function(...) printed[#printed + 1] = table.concat({ ... }, " ") end
        local ok, err = pcall(chunk)
        _G.print = print0
        assert(ok, err)
        assert.are.equal("same state: true", printed[#printed])
    end)
end)
