-- replaced_fields_spec.lua -- the Lua API fuzzer's "internal errors" of
-- 2026-11-28 (seeds 7000001-7009000, `fuzz_lua --strict`): calls that reached
-- Lua's own errors inside lua/ricochet/ instead of a check. Each now raises an
-- error that names the function and the argument at the calling script's
-- line: the cone and elliptic helpers called with wrong arguments, objects
-- whose fields a script replaced (a world's '_c', a body's 'id'),
-- rc.close_outputs from inside a force function.
local rc = require "ricochet"
local cone = require "ricochet.laws.cone"
local elliptic = require "ricochet.laws.elliptic"

-- the error of src run as the script "myscript" (env: the names it sees)
local function script_error(src, env)
    local chunk = assert(load(src, "=myscript", "t", setmetatable(env or {}, { __index = _G })))
    local ok, err = pcall(chunk)
    assert.is_false(ok, "the script did not fail")
    assert.are.equal("string", type(err))
    return err
end

describe("the cone helpers (ricochet.laws.cone)", function()
    it("check their arguments and name them at the caller's line", function()
        local env = { cone = cone }
        assert.are.equal("myscript:1: ricochet.laws.cone.project: 'mu' must be a finite number (got nil)",
                         script_error("cone.project(nil, 1, 0)", env))
        assert.are.equal("myscript:1: ricochet.laws.cone.project: 'mu' must be >= 0 (got -0.5)",
                         script_error("cone.project(-0.5, 1, 0)", env))
        assert.are.equal("myscript:1: ricochet.laws.cone.project: 'xT' must be a finite number (got nan)",
                         script_error("cone.project(0.3, 1, 0/0)", env):gsub("%-nan", "nan"))
        assert.matches("^myscript:1: ricochet.laws.cone.project_asym: 'mu_neg' must be a finite number",
                       script_error("cone.project_asym(0.3, {}, 1, 0)", env))
        assert.are.equal("myscript:1: ricochet.laws.cone.shift: 'ctx' must be a law's context (got nil)",
                         script_error("cone.shift(0.5, 0, -1, 0)", env))
        assert.are.equal('myscript:1: ricochet.laws.cone.shift: \'ctx.unknown\' must be "theta" or "end" (got x)',
                         script_error("cone.shift(0.5, 0, -1, 0, { unknown = 'x' })", env))
        assert.matches("^myscript:1: ricochet.laws.cone.check: 'allowed' must be a table",
                       script_error("cone.check('mylaw', {}, 3)", env))
    end)

    it("give the unchecked versions' numbers", function()
        for _, x in ipairs { { 0.3, 1, 0.1 }, { 0.3, 1, 5 }, { 0.3, -1, 0.1 }, { 0, 2, -3 } } do
            local a, b = cone.project(x[1], x[2], x[3])
            local c, d = cone.unchecked.project(x[1], x[2], x[3])
            assert.are.equal(c, a)
            assert.are.equal(d, b)
        end
        local a, b = cone.project(0.3, 1, 5)   -- the boundary ray: |pT| = mu pN
        assert.is_near(0.3 * a, b, 1e-15)
        local sN, sT = cone.shift(0.5, 0, -2, 1, { unknown = "theta", theta = 0.5 })
        assert.are.equal((0.5 - 1 + 0.5 * 0.5) * -2, sN)
        assert.are.equal((0.5 - 1) * 1, sT)
    end)

    it("elliptic.mu checks its law's params and the tangent", function()
        local law = elliptic{ mu_x = 0.6, mu_y = 0.1 }
        assert.is_near(0.6, elliptic.mu(law.params, 1, 0), 1e-15)
        local env = { elliptic = elliptic, law = law }
        assert.matches("^myscript:1: ricochet.laws.elliptic.mu: 'params' must be the params of an elliptic law",
                       script_error("elliptic.mu(3, 1, 0)", env))
        assert.matches("^myscript:1: ricochet.laws.elliptic.mu: 'params' must be the params of an elliptic law %('a1x' is nil%)",
                       script_error("elliptic.mu({}, 1, 0)", env))
        assert.are.equal("myscript:1: ricochet.laws.elliptic.mu: 'ty' must be a finite number (got nil)",
                         script_error("elliptic.mu(law.params, 1)", env))
        assert.are.equal("myscript:1: ricochet.laws.elliptic.mu: 'tx' must be a finite number (got x)",
                         script_error("elliptic.mu(law.params, 'x', 0)", env))
    end)
end)

describe("objects whose fields a script replaced", function()
    it("a world's kernel handle '_c'", function()
        local w = rc.world{}
        local env = { w = w }
        rawset(w, "_c", 42)
        assert.are.equal("myscript:1: world:bodies: this world's kernel handle '_c' was replaced (got 42)",
                         script_error("w:bodies()", env))
        assert.matches("^myscript:1: world:body: this world's kernel handle '_c' was replaced",
                       script_error("w:body{ mass = 1, inertia = 1 }", env))
        assert.matches("^myscript:1: world:close: this world's kernel handle '_c' was replaced",
                       script_error("w:close()", env))
    end)

    it("a closed world's bodies", function()
        local w = rc.world{}
        w:body{ mass = 1, inertia = 1 }
        w:close()
        assert.are.equal("myscript:1: world:bodies: the world has been closed", script_error("w:bodies()", { w = w }))
    end)

    it("a body's 'id'", function()
        local w = rc.world{}
        local a = w:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.1 } }
        local b = w:body{ mass = 1, inertia = 1, q = { 1, 0, 0 }, shape = rc.disk{ radius = 0.1 } }
        local env = { w = w, a = a, b = b, rc = rc }
        rawset(b, "id", 99)
        assert.are.equal("myscript:1: body:q: this body's 'id' field was replaced (got 99)", script_error("b:q()", env))
        assert.are.equal("myscript:1: body:set_state: this body's 'id' field was replaced (got 99)",
                         script_error("b:set_state{ v = { 1, 0, 0 } }", env))
        assert.matches("^myscript:1: world:contact: argument %[2%]: this body's 'id' field was replaced %(got 99%)",
                       script_error("w:contact{ a, b }", env))
        assert.matches("^myscript:1: world:revolute: argument %[2%] %(body B%): this body's 'id' field was replaced",
                       script_error("w:revolute{ a, b, at = { 0.5, 0 } }", env))
        rawset(b, "id", {})
        assert.matches("^myscript:1: body:force: this body's 'id' field was replaced %(got a table",
                       script_error("b:force()", env))
        assert.matches("^ricochet%.body table", tostring(b))   -- tostring shows the field as it is
        rawset(b, "id", 1)                                     -- its own id again: usable
        assert.are.same({ 1, 0, 0 }, b:q())
        b.id = nil                                             -- then a new field (Body.__newindex pins the object)
        b.tag = "x"
        assert.are.equal("x", rawget(b, "tag"))
        assert.are.equal("myscript:1: body:q: this body's 'id' field was replaced (got nil)", script_error("b:q()", env))
    end)

    it("law:set skips a world whose handle was replaced", function()
        local law = rc.newton{ e = 0, mu = 0.3 }
        local w1, w2 = rc.world{}, rc.world{}
        local b1 = w1:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.1 } }
        local b2 = w2:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.1 } }
        w1:contact{ w1.ground, b1, law = law }
        w2:contact{ w2.ground, b2, law = law }
        rawset(w1, "_c", w1.ground)
        law:set{ mu = 0.5 }
        assert.are.equal(0.5, law.mu)
    end)
end)

describe("a world closed by an argument's metamethod while its call is under way", function()
    it("is refused by name, not by the kernel call after the checks", function()
        for _, case in ipairs {
            { "world:revolute", "w:revolute{ a, b, at = at }" },
            { "world:distance", "w:distance{ a, b, point_a = at, point_b = { 1, 0 } }" },
            { "world:body", "w:body{ mass = 1, inertia = 1, q = at }" },
        } do
            local w = rc.world{}
            local a = w:body{ mass = 1, inertia = 1 }
            local b = w:body{ mass = 1, inertia = 1, q = { 1, 0, 0 } }
            local closed = false
            local at = setmetatable({}, { __index = function() if not closed then closed = true; w:close() end return 0 end })
            local err = script_error(case[2], { w = w, a = a, b = b, at = at })
            assert.are.equal("myscript:1: " .. case[1] .. ": the world has been closed", err)
        end
    end)
end)

describe("rc.close_outputs", function()
    it("checks its arguments", function()
        assert.matches("^myscript:1: rc.close_outputs: 'status' must be \"complete\"",
                       script_error("rc.close_outputs('bogus')", { rc = rc }))
        assert.matches("^myscript:1: rc.close_outputs: 'exit_code' must be an integer or nil",
                       script_error("rc.close_outputs('exited', 'x', 1.5)", { rc = rc }))
    end)

    it("inside a force function: refused, the stepping world's output left open and closed later", function()
        local dir = os.tmpname()
        os.remove(dir)
        local w = rc.world{ gravity = { 0, -9.81 } }
        local b = w:body{ mass = 1, inertia = 1, shape = rc.disk{ radius = 0.1 } }
        local sim = w:simulation{ h = 1e-3 }
        sim:output{ dir = dir }
        local msg
        b:set_force_fn(function()
            local ok, err = pcall(rc.close_outputs, "error", "from a force function")
            if not ok then msg = err end
            return { 0, 0, 0 }
        end)
        sim:run{ T = 2e-3 }
        assert.matches("rc.close_outputs: not allowed inside a force function: the world is stepping", msg, 1, true)
        b:set_force_fn(nil)
        assert.are.equal(1, rc.close_outputs("complete"))   -- still open, closed now
        local f = assert(io.open(dir .. "/run.json"))
        local json = f:read("a")
        f:close()
        assert.matches('"status": "complete"', json, 1, true)
        os.execute("rm -rf '" .. dir .. "'")
    end)
end)

-- The fuzzer's crash of 2026-11-28 (seeds 7103316, 7108291, 7122973): a
-- prescribed motion's callback gave a body its first constant force during a
-- step (body:set_force is allowed inside callbacks), in the joints' start
-- (the state set from outside is first moved onto the joints). The step had
-- reserved no force array (no body had a force when it began) but its forces
-- stage found one and wrote into the missing array (a null store). Now a force
-- that appears during a step acts from the next step on.
describe("a first force set from inside a step's callback", function()
    it("acts from the next step, with no crash", function()
        local w = rc.world{ gravity = { 0, 0 } }
        local a = w:body{ mass = 1, inertia = 1 }
        local b = w:body{ mass = 2, inertia = 1, q = { 1, 0, 0 } }
        local arm = false
        w:prescribe{ a, coord = "y", f = function() return 0 end,
                     df = function() if arm then arm = false; b:set_force{ 0, 4, 0 } end return 0 end }
        local sim = w:simulation{ h = 1e-3 }
        sim:step()
        assert.are.same({ 0, 0, 0 }, b:force())
        arm = true
        a:set_state{ v = { 0, 0, 0 } }   -- the next step starts by moving the state onto the joint (df called)
        sim:step()
        assert.is_false(arm)
        assert.are.same({ 0, 4, 0 }, b:force())
        assert.are.equal(0, b:v()[2])                         -- not in the step that set it
        for _ = 1, 9 do sim:step() end
        assert.is_near(9 * 1e-3 * 4 / 2, b:v()[2], 1e-12)     -- in each of the 9 after: h F / m
    end)
end)
