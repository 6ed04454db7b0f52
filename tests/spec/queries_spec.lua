-- queries_spec.lua -- w:query_box, w:query_point, w:ray_cast, w:disk_cast from
-- Lua: answers of a small scene worked by hand, group filters, bodies as
-- objects, exact error messages (tests/c/test_query.c compares the kernel
-- with brute force over random scenes).
local rc = require "ricochet"

local function scene()
    local w = rc.world{ gravity = { 0, -10 } }
    local floor = w:halfplane{ point = { 0, 0 }, normal = { 0, 1 }, group = 2 }
    local ball = w:body{ name = "ball", mass = 1, inertia = 0.1, q = { 0, 1, 0 }, shape = rc.disk{ radius = 0.5 } }
    local block = w:body{ mass = 1, inertia = 0.1, q = { 3, 1, 0 }, shape = rc.box{ 1, 1, group = 1 } }
    return w, floor, ball, block
end

local function shapes(list)
    local r = {}
    for i, h in ipairs(list) do r[i] = h.shape end
    return r
end

describe("spatial queries", function()
    it("box and point queries find the shapes that overlap, with their bodies", function()
        local w, floor, ball, block = scene()
        local l = w:query_box{ lo = { -1, 0.4 }, hi = { 5, 0.6 } }
        assert.are.same({ 1, 2 }, shapes(l))
        assert.are.equal(ball, l[1].body)
        assert.are.equal(block, l[2].body)
        assert.are.same({ 0, 1, 2 }, shapes(w:query_box{ lo = { -1, -0.1 }, hi = { 5, 0.6 } }))
        assert.are.equal(w.ground, w:query_box{ lo = { -1, -0.1 }, hi = { 5, 0.6 } }[1].body)
        assert.are.same({ 1 }, shapes(w:query_box{ lo = { 0.35, 1.35 }, hi = { 1, 2 } }))      -- |(0.35, 1.35) - c| < 0.5
        assert.are.same({}, shapes(w:query_box{ lo = { 0.36, 1.36 }, hi = { 1, 2 } }))         -- > 0.5
        assert.are.same({ 0 }, shapes(w:query_point{ point = { 0, -1 } }))
        assert.are.same({ 1 }, shapes(w:query_point{ point = { 0.3, 1.3 } }))
        assert.are.same({ 2 }, shapes(w:query_point{ point = { 3.5, 1.5 } }))                  -- a corner counts
        assert.are.same({ 2 }, shapes(w:query_box{ lo = { -9, -9 }, hi = { 9, 9 }, group = 1 }))
        assert.are.same({}, shapes(w:query_point{ point = { 0, -1 }, group = 0 }))
    end)

    it("queries read the current state (after steps and set_state)", function()
        local w, floor, ball = scene()
        ball:set_state{ q = { 10, 10, 0 } }
        assert.are.same({ 1 }, shapes(w:query_point{ point = { 10.2, 10.2 } }))
        local sim = w:simulation{ h = 1e-3 }
        for _ = 1, 100 do sim:step() end          -- falls 0.5 g t^2 ~ 0.05
        local y = ball:q()[2]
        assert.is_true(y < 9.96)
        assert.are.same({ 1 }, shapes(w:query_point{ point = { 10, y + 0.49 } }))
        assert.are.same({}, shapes(w:query_point{ point = { 10, y + 0.51 } }))
    end)

    it("a ray and a swept disk report the first shape, point, normal, fraction", function()
        local w, floor, ball, block = scene()
        local hit = w:ray_cast{ from = { -5, 1 }, to = { 5, 1 } }
        assert.are.equal(1, hit.shape)
        assert.are.equal(ball, hit.body)
        assert.are.same({ -0.5, 1 }, hit.point)
        assert.are.same({ -1, 0 }, hit.normal)
        assert.are.equal(0.45, hit.fraction)
        assert.are.equal(4.5, hit.distance)
        hit = w:ray_cast{ from = { -5, 1 }, to = { 5, 1 }, group = 1 }        -- the block only
        assert.are.equal(block, hit.body)
        assert.are.same({ 2.5, 1 }, hit.point)
        assert.is_nil(w:ray_cast{ from = { -5, 1 }, to = { 5, 1 }, group = 2 })
        hit = w:ray_cast{ from = { 1, 3 }, direction = { 0, -2 }, distance = 10 }
        assert.are.equal(w.ground, hit.body)
        assert.are.same({ 1, 0 }, hit.point)
        assert.are.equal(0.3, hit.fraction)
        hit = w:disk_cast{ from = { 3, 5 }, to = { 3, -5 }, radius = 0.25 }
        assert.are.equal(block, hit.body)
        assert.are.same({ 3, 1.5 }, hit.point)                                 -- the block's top
        assert.are.same({ 0, 1 }, hit.normal)
        assert.are.equal(0.325, hit.fraction)                                  -- the centre at y = 1.75
        assert.is_nil(w:ray_cast{ from = { 0, 1 }, to = { 0, 0.8 } })          -- starts inside the ball
    end)

    it("bad arguments are errors that name the argument", function()
        local w = scene()
        local function err(f, t)
            local ok, e = pcall(f, w, t)
            assert.is_false(ok)
            return (e:gsub("^.-:%d+: ", ""))
        end
        assert.are.equal("world:query_box: 'lo' must be <= 'hi' in x and y (got lo = {1, 1}, hi = {0, 0})",
                         err(w.query_box, { lo = { 1, 1 }, hi = { 0, 0 } }))
        assert.are.equal("world:query_box: 'hi' is required", err(w.query_box, { lo = { 1, 1 } }))
        assert.are.equal("world:query_box: 'group' must be an integer (got 1.5)",
                         err(w.query_box, { lo = { 0, 0 }, hi = { 1, 1 }, group = 1.5 }))
        assert.are.equal("world:query_point: unknown key 'grup' (did you mean 'group'?)",
                         err(w.query_point, { point = { 1, 1 }, grup = 1 }))
        assert.are.equal("world:query_point: 'point[2]' must be a finite number (got nan)",
                         err(w.query_point, { point = { 1, 0 / 0 } }))
        assert.are.equal("world:ray_cast: give 'to', or 'direction' and 'distance'", err(w.ray_cast, { from = { 1, 1 } }))
        assert.are.equal("world:ray_cast: give 'to', or 'direction' and 'distance', not both",
                         err(w.ray_cast, { from = { 1, 1 }, to = { 2, 2 }, distance = 1 }))
        assert.are.equal("world:ray_cast: 'direction' must be nonzero",
                         err(w.ray_cast, { from = { 1, 1 }, direction = { 0, 0 }, distance = 1 }))
        assert.are.equal("world:ray_cast: 'distance' must be >= 0 (got -1)",
                         err(w.ray_cast, { from = { 1, 1 }, direction = { 0, 1 }, distance = -1 }))
        assert.are.equal("world:disk_cast: 'radius' must be > 0 (got -1)",
                         err(w.disk_cast, { from = { 1, 1 }, to = { 2, 2 }, radius = -1 }))
        assert.are.equal("world:disk_cast: 'radius' is required", err(w.disk_cast, { from = { 1, 1 }, to = { 2, 2 } }))
        assert.are.equal("world:ray_cast: expected a table argument, e.g. w:ray_cast{ from = {0, 5}, to = {0, -5} } (got 3)",
                         err(w.ray_cast, 3))
        w:close()
        assert.are.equal("world:query_point: the world has been closed", err(w.query_point, { point = { 0, 0 } }))
    end)
end)

describe("contact events", function()
    local function bouncing(e, impact)
        local w = rc.world{ gravity = { 0, -10 }, default_law = rc.newton{ e = e } }
        w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
        local ball = w:body{ mass = 2, inertia = 0.25, q = { 0, 0.7, 0 }, shape = rc.disk{ radius = 0.5 } }
        local sim = w:simulation{ h = 1e-3 }
        sim:track_events{ impact = impact }
        return w, sim, ball
    end

    it("a bouncing ball: a begin with its impact, then an end, read after each step", function()
        local w, sim, ball = bouncing(0.5, 1.0)
        local log = {}
        local vk
        sim:before_step(function() vk = ball:v()[2] end)
        sim:after_step(function(s)
            local ev = s:events()
            for _, kind in ipairs{ "began", "ended", "impacts" } do
                for _, c in ipairs(ev[kind]) do log[#log + 1] = { kind, s.steps, c.pN, vk, c.body_b } end
            end
        end)
        sim:run{ T = 0.5 }
        assert.are.same({ "began", 201 }, { log[1][1], log[1][2] })
        assert.are.same({ "impacts", 201 }, { log[2][1], log[2][2] })
        assert.is_true(math.abs(log[2][3] - (2 * 1.5 * math.abs(log[2][4]) + 2 * 10 * 1e-3)) < 1e-9)
        assert.are.equal("ended", log[3][1])
        assert.is_true(log[3][2] > 201)
        assert.are.equal(0, log[1][5])      -- the ball's id
    end)

    it("a resting ball: one begin, then nothing; no impacts without a threshold", function()
        local w, sim = bouncing(0, nil)
        local n = { began = 0, ended = 0, impacts = 0 }
        sim:after_step(function(s)
            for k, l in pairs(s:events()) do n[k] = n[k] + #l end
        end)
        sim:run{ T = 1 }
        assert.are.same({ began = 1, ended = 0, impacts = 0 }, n)
    end)

    it("bad calls are errors that say why", function()
        local w = rc.world{}
        local sim = w:simulation{}
        local function err(f, ...)
            local ok, e = pcall(f, ...)
            assert.is_false(ok)
            return (e:gsub("^.-:%d+: ", ""))
        end
        assert.are.equal("sim:events: events are not tracked: call sim:track_events{ impact = ... } before stepping",
                         err(sim.events, sim))
        assert.are.equal("sim:track_events: 'impact' must be >= 0 (got -1)", err(sim.track_events, sim, { impact = -1 }))
        assert.are.equal("sim:track_events: unknown key 'impacts' (did you mean 'impact'?)",
                         err(sim.track_events, sim, { impacts = 1 }))
        sim:track_events{}
        assert.are.same({ began = {}, ended = {}, impacts = {} }, sim:events())
        sim:track_events(false)
        assert.has_error(function() sim:events() end)
    end)
end)

describe("user data", function()
    it("any Lua value on bodies, joints and shapes, kept by the world", function()
        local w = rc.world{}
        local a = w:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.5 } }
        local b = w:body{ mass = 1, inertia = 1, q = { 2, 0, 0 } }
        local j = w:distance{ a, b }
        local s = w:halfplane{ point = { 0, -1 }, normal = { 0, 1 } }
        local tag = { kind = "grain" }
        a:set_user_data(tag)
        j:set_user_data("rod")
        w:set_user_data(s, 42)
        assert.are.equal(tag, a:user_data())
        assert.are.equal(tag, w:user_data(a))
        assert.is_nil(b:user_data())
        assert.are.equal("rod", w:user_data(j))
        assert.are.equal(42, w:user_data(s))
        assert.is_nil(w:user_data(0))                -- a's disk: another shape
        -- a plain body found again through a query carries its data
        assert.are.equal(tag, w:query_point{ point = { 0.1, 0 } }[1].body:user_data())
        w:set_user_data(a, nil)
        assert.is_nil(a:user_data())
    end)

    it("the values are released with the world", function()
        local weak = setmetatable({}, { __mode = "k" })
        do
            local w = rc.world{}
            local a = w:body{ mass = 1, inertia = 1 }
            local v = {}
            weak[v] = true
            a:set_user_data(v)
        end
        collectgarbage(); collectgarbage()
        assert.is_nil(next(weak))
    end)

    it("bad arguments", function()
        local w, w2 = rc.world{}, rc.world{}
        local b2 = w2:body{ mass = 1, inertia = 1 }
        local function err(f, ...)
            local ok, e = pcall(f, ...)
            assert.is_false(ok)
            return (e:gsub("^.-:%d+: ", ""))
        end
        assert.are.equal("world:set_user_data: no shape with id 3 (there are 0)", err(w.set_user_data, w, 3, 1))
        assert.are.equal("world:user_data: expected a body, a joint or a shape id (got 'x')", err(w.user_data, w, "x"))
        assert.are.equal("world:set_user_data: ricochet.body 0 belongs to another world", err(w.set_user_data, w, b2, 1))
        assert.are.equal("body:user_data: expected a body as first argument (got nil); call it with ':'", err(b2.user_data))
    end)
end)
