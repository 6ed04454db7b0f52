-- project_contacts3_spec.lua -- the option project_contacts in a dim = 3 world
-- (src/integrate/project_contacts3.c): after the velocity step, the positions of
-- spatial bodies are projected onto g_N >= 0 of their detected 3D contacts
-- (M^-1 H_N^T nu, body-frame rotation vectors), velocities unchanged, E_pot's
-- change booked in W_proj so that the balance stays closed.
local rc = require "ricochet"

-- five spheres thrown down at 5 m/s and a tilted, spinning box thrown at 4 m/s onto a plane
local function scene(project)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -9.81 }, default_law = rc.newton{ e = 0, mu = 0.3 } }
    w:plane{}
    local bodies = {}
    for i = 1, 5 do
        bodies[i] = w:body{ density = 1000, sphere = 0.1, shape = rc.sphere{ 0.1 },
                            q = { 0.3 * i, 0, 0.1 + 0.5 * i, 1, 0, 0, 0 }, v = { 0, 0, -5, 0, 0, 0 } }
    end
    local half = { 0.25, 0.1875, 0.125 }
    bodies[6] = w:body{ density = 1000, box = half, shape = rc.box3(half),
                        q = { -1, 0, 0.3, math.cos(0.2), math.sin(0.2), 0, 0 }, v = { 0, 0, -4, 1, 2, 0 } }
    local sim = w:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, project_contacts = project,
                              solver = { "nsgs", tol = 1e-10 } }
    local r = { pen = 0, balance = 0, W_proj_min = 0, sweeps = 0, E0 = sim:energy().total }
    sim:after_step(function(s)
        for _, c in ipairs(w:contacts3()) do r.pen = math.max(r.pen, -c.gN) end
        local i = s:info()
        r.balance = math.max(r.balance, math.abs(i.balance))
        if project then
            r.W_proj_min = math.min(r.W_proj_min, i.W_proj_contacts)
            r.sweeps = math.max(r.sweeps, i.proj_sweeps)
        end
    end)
    sim:run{ T = 1 }
    r.stats = sim:stats()
    return r, w, bodies
end

describe("project_contacts in a dim = 3 world", function()
    local plain = scene(false)
    local proj, w, bodies = scene(true)

    it("keeps the spatial bodies out of the plane (the overlap of the impacts projected away)", function()
        print(("  largest overlap: %.3e m without, %.3e m with the projection (%d sweeps at most); overlap found "
               .. "before projecting %.3e"):format(plain.pen, proj.pen, proj.sweeps, proj.stats.max_proj_overlap))
        assert.is_true(plain.pen > 5e-3)        -- 8.6e-3: h |u_N| of the 5 m/s impacts
        assert.is_true(proj.pen < 1e-6)         -- 2.5e-7: the linearisation of the box's rotation
        assert.is_true(proj.stats.max_proj_overlap > 4e-3)
        for i = 1, 5 do assert.near(0.1, bodies[i]:q()[3], 1e-6) end   -- the spheres rest on the plane
        for _, b in ipairs(bodies) do
            local q = b:q()
            assert.near(1, math.sqrt(q[4] ^ 2 + q[5] ^ 2 + q[6] ^ 2 + q[7] ^ 2), 1e-14)
        end
        assert.are.equal(5 + 4, #w:contacts3())   -- five spheres, the box at rest on a face (4 points)
    end)

    it("books E_pot's change in W_proj: the balance stays closed and lifting gives energy back", function()
        print(("  |balance| per step <= %.3e J (without: %.3e); W_proj of a step >= %.3e J; total %.4e J")
              :format(proj.balance, plain.balance, proj.W_proj_min, proj.stats.W_proj_contacts_total))
        assert.is_true(proj.balance <= 1e-9 * proj.E0)
        assert.is_true(proj.stats.W_proj_contacts_total > 0)   -- bodies lifted out of the plane
        assert.is_true(proj.W_proj_min >= -1e-12)
    end)

    it("projects a separated contact that another's correction closes (the sweeps' skip of open contacts)", function()
        -- sphere A 1 cm into the plane, sphere B 4 mm above A: lifting A out of the plane closes
        -- the A-B gap, and B must follow; the sweeps skip a contact only while its sides' moves
        -- cannot close its last gap (src/integrate/project_contacts3.c, stays_open)
        local w3 = rc.world{ dim = 3, gravity = { 0, 0, 0 }, margin = 0.01,
                             default_law = rc.newton{ e = 0, mu = 0.3 } }
        w3:plane{}
        local a = w3:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, shape = rc.sphere{ 0.1 },
                           q = { 0, 0, 0.09, 1, 0, 0, 0 } }
        local b = w3:body{ mass = 1, inertia = { 0.004, 0.004, 0.004 }, shape = rc.sphere{ 0.1 },
                           q = { 0, 0, 0.294, 1, 0, 0, 0 } }
        local sim = w3:simulation{ scheme = "moreau-jean", theta = 0.5, h = 1e-3, project_contacts = true,
                                   solver = { "nsgs", tol = 1e-10 } }
        sim:step()
        assert.are.equal(2, #w3:contacts3())
        local za, zb = a:q()[3], b:q()[3]
        print(("  after one step: z_A = %.12f, z_B - z_A = %.12f"):format(za, zb - za))
        assert.near(0.1, za, 1e-9)          -- out of the plane
        assert.near(0.2, zb - za, 1e-9)     -- B lifted with it: no overlap left
    end)

    it("is refused by the schemes that do not take it", function()
        local w2 = rc.world{ dim = 3, gravity = { 0, 0, -9.81 } }
        w2:body{ mass = 1, inertia = { 1, 1, 1 } }
        local ok, err = pcall(w2.simulation, w2, { scheme = "maury", project_contacts = true })
        assert.is_false(ok)
        assert.is_truthy(tostring(err):find("project_contacts", 1, true))
    end)
end)
