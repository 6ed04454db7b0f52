-- The contacts' position projection (w:simulation{ project_contacts = true },
-- src/integrate/project_contacts.c, docs/granular.md): a disk dropped fast on
-- the floor ends its impact step on the floor (and h |v| / 2 in it without the
-- option); a settling pile keeps its overlaps at the tolerance; the energy the
-- projection books (W_proj_contacts, in W_proj) is the potential energy it
-- gives back, m g delta for the dropped disk, >= 0, never more than the step's
-- contacts dissipated, and the balance stays exact; the option's errors.
local rc = require "ricochet"

-- a disk of radius 0.1, mass 1, its gap 0.004 above the floor, falling at v
local function dropped(project, v, scheme)
  local w = rc.world{ gravity = { 0, -9.81 } }
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  local d = w:body{ mass = 1, inertia = 0.005, q = { 0, 0.104, 0 }, v = { 0, v, 0 }, shape = rc.disk{ 0.1 } }
  w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0 } }
  local sim = w:simulation{ scheme = scheme or "moreau-jean", theta = 0.5, h = 1e-3, project_contacts = project,
                            project_tol = 1e-12, solver = { tol = 1e-12 } }
  return w, d, sim
end

-- n disks (radii 0.1 +- 10 %) on a lattice above a box, random velocities (fixed seed)
local function pile(n, project, tol)
  local w = rc.world{ gravity = { 0, -9.81 }, margin = 0.01 }
  local c = math.ceil(math.sqrt(2 * n))
  w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
  w:halfplane{ point = { 0, 0 }, normal = { 1, 0 } }
  w:halfplane{ point = { 0.25 * c, 0 }, normal = { -1, 0 } }
  local s = 12345
  local function rnd() s = (1103515245 * s + 12345) % 2147483648; return s / 2147483648 end
  for i = 0, n - 1 do
    local r = 0.1 * (0.9 + 0.2 * rnd())
    local m = math.pi * r * r
    w:body{ mass = m, inertia = 0.5 * m * r * r,
            q = { 0.25 * (i % c + 0.5) + 0.02 * (rnd() - 0.5), 0.25 * (i // c + 0.5) + 0.05, 0 },
            v = { rnd() - 0.5, rnd() - 0.5 - 3, 0 }, shape = rc.disk{ radius = r } }
  end
  w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
  return w, w:simulation{ h = 1e-3, theta = 0.5, project_contacts = project, project_tol = tol,
                          project_max_iter = 200, solver = { tol = 1e-6, max_iter = 1000 } }
end

describe("project_contacts", function()
  it("is off by default; its errors", function()
    local w = dropped(false, -1)
    local sim = w:simulation{}
    assert.is_false(sim.project_contacts)
    assert.is_false(rc.core.defaults.sim.project_contacts)
    assert.has_error(function() w:simulation{ project_contacts = 1 } end,
      "world:simulation: 'project_contacts' must be true or false (got 1)")
    assert.has_error(function() w:simulation{ project_contacts = true, scheme = "maury" } end,
      'world:simulation: \'project_contacts\' is an option of scheme = "moreau-jean" or "moreau-jean-fremond" (scheme is \'maury\')')
    assert.has_error(function() w:simulation{ project_contacts = true, scheme = "gen-alpha" } end,
      'world:simulation: \'project_contacts\' is an option of scheme = "moreau-jean" or "moreau-jean-fremond" (scheme is \'gen-alpha\')')
    assert.has_error(function() w:simulation{ project_contacts = true, project_tol = 0 } end,
      "world:simulation: 'project_tol' must be > 0 (got 0)")
    assert.has_error(function() w:simulation{ project_contacts = true, project_max_iter = 0 } end,
      "world:simulation: 'project_max_iter' must be >= 1 (got 0)")
    -- the option's figures are reported only when it is on
    assert.is_nil(w:simulation{}:stats().max_proj_overlap)
  end)

  for _, scheme in ipairs { "moreau-jean", "moreau-jean-fremond" } do
    it("a disk dropped at 15 m/s ends its impact step on the floor (" .. scheme .. ")", function()
      -- the contact is active in the first step (anticipated: 0.004 - 0.5 h 15 < 0); v_{k+1} = 0
      -- and q moves by h v_{k+1/2} = -7.5e-3: 3.5e-3 into the floor without the projection
      local _, d0, s0 = dropped(false, -15, scheme)
      s0:step()
      local y0 = d0:q()[2]
      assert.is_true(0.1 - y0 > 3.4e-3)
      assert.are.equal(0, s0:info().W_proj)
      local _, d1, s1 = dropped(true, -15, scheme)
      s1:step()
      local y1, info = d1:q()[2], s1:info()
      assert.is_true(math.abs(0.1 - y1) <= 1e-12, "overlap " .. (0.1 - y1))
      -- the projection lifted the disk by the overlap: W_proj = m g delta (a half-plane: exact)
      local delta = y1 - y0
      assert.is_true(math.abs(info.W_proj_contacts - 9.81 * delta) <= 1e-12 * 9.81)
      assert.are.equal(info.W_proj_contacts, info.W_proj)
      assert.are.equal(info.W_proj_contacts, info.E_proj)
      assert.is_true(info.W_proj_contacts > 0)
      -- ... which is less than the impact dissipated (W_N = -(1/2) m 15^2 and more)
      assert.is_true(info.W_proj_contacts + info.W_N + info.W_T < 0)
      assert.is_true(math.abs(info.balance) <= 1e-12 * 112.5)
      assert.are.equal(2, info.proj_sweeps)   -- one contact, a linear gap: one sweep, checked by a second
      assert.is_true(math.abs(info.proj_overlap - (0.1 - y0)) <= 1e-15)
    end)
  end

  it("a settling pile keeps its overlaps at the tolerance; the booked energy has its sign; the balance is exact", function()
    local tol = 1e-7
    local _, s1 = pile(60, true, tol)
    local max_w, min_w, max_net, max_bal = 0, 0, -math.huge, 0
    s1:after_step(function(s)
      local info = s:info()
      max_w = math.max(max_w, info.W_proj_contacts)
      min_w = math.min(min_w, info.W_proj_contacts)
      if info.W_proj_contacts ~= 0 then max_net = math.max(max_net, info.W_proj_contacts + info.W_N + info.W_T) end
      max_bal = math.max(max_bal, math.abs(info.balance))
    end)
    s1:run{ T = 0.6 }
    local st = s1:stats()
    -- the largest overlap over the run (detected at the start of each step: after the last
    -- step's projection); the gaps are linearised, so two disks keep O(|dq_T|^2 / R) more
    assert.is_true(st.max_overlap <= 10 * tol, "max overlap " .. st.max_overlap)
    assert.is_true(st.max_proj_overlap > 1e-3)   -- what the projection removed
    for _, c in ipairs(s1:contacts()) do assert.is_true(c.gN >= -10 * tol) end
    assert.is_true(st.proj_capped <= 6, "steps at project_max_iter: " .. st.proj_capped)   -- 1 % of the steps
    -- energy: lifting grains against gravity, W_proj_contacts >= 0 (round-off below); over the
    -- run a small part of what the contacts dissipated (measured: 0.58 J of 13.5 J). In one step
    -- it may exceed that step's dissipation (measured: +5e-4 J): a contact that closes before
    -- it enters the index set is projected in that step and dissipates in the next
    local info = s1:info()
    assert.is_true(max_w > 0)
    assert.is_true(min_w >= -1e-12, "min W_proj_contacts " .. min_w)
    assert.is_true(st.W_proj_contacts_total < -0.1 * (info.W_N_total + info.W_T_total))
    assert.is_true(max_net < 1e-3)
    assert.are.equal(st.max_W_proj_contacts, max_w)
    assert.are.equal(st.min_W_proj_contacts, min_w)
    assert.are.equal(st.max_W_proj_net, max_net)
    assert.is_true(max_bal <= 1e-11, "balance " .. max_bal)
    assert.is_true(math.abs(s1:info().W_proj_total - st.W_proj_contacts_total) <= 1e-12)
    -- the same pile without the projection: overlaps a hundred times larger
    local _, s0 = pile(60, false, tol)
    s0:run{ T = 0.6 }
    assert.is_true(s0:stats().max_overlap > 100 * st.max_overlap)
  end)
end)
