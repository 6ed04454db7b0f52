-- doc_defaults_spec.lua -- the defaults docs/lua-api.md shows in a heading are
-- the code's: sim:explore{} gives exactly what sim:explore{ <the heading's
-- defaults> } gives, and every other documented value of a key that changes
-- the result on this problem gives something else (so the default is not
-- another valid value).
local rc = require "ricochet"
local H = require "sh_helper"

local doc = assert(H.read_file(H.ROOT .. "/docs/lua-api.md"))

-- the table literal of a heading "### `sim:NAME{ k = v, ... }` ...", parsed as Lua
local function heading_defaults(name)
    local lit = doc:match("\n### `sim:" .. name .. "(%b{})")
    assert(lit, "no heading for sim:" .. name .. " in docs/lua-api.md")
    return assert(load("return " .. lit))()
end

-- the 3 disks in a box of docs/granular.md, at rest: an indeterminate packing
local function packing()
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{ point = { 0, 0 }, normal = { 0, 1 } }
    w:halfplane{ point = { -1.1, 0 }, normal = { 1, 0 } }
    w:halfplane{ point = { 1.1, 0 }, normal = { -1, 0 } }
    local r, m = 0.5, math.pi * 0.25
    for _, x in ipairs{ { -0.6, 0.5 }, { 0.6, 0.5 }, { 0, 1.3 } } do
        w:body{ mass = m, inertia = 0.5 * m * r * r, q = { x[1], x[2], 0 }, shape = rc.disk{ radius = r } }
    end
    w:contact{ groups = { 0, 0 }, law = rc.newton{ e = 0, mu = 0.3 } }
    local sim = w:simulation{ h = 1e-3, solver = { "nsgs", tol = 1e-12, max_iter = 10000 } }
    sim:run{ T = 0.5 }
    for _, b in ipairs(w:bodies()) do b:set_state{ v = { 0, 0, 0 } } end
    return sim
end

local function impulses(list)
    local r = {}
    for k, c in ipairs(list) do r[k] = { c.pN, c.pT } end
    return r
end

describe("docs/lua-api.md defaults", function()
    it("sim:explore's heading gives the code's defaults", function()
        local d = heading_defaults("explore")
        assert.are.same({ guess = "zero", scale = 0, order = "random", seed = 1 }, d)
        local sim = packing()
        local base = impulses(sim:explore())
        assert.is_true(#base >= 5)
        assert.are.same(base, impulses(sim:explore(d)))
        -- each key alone at its documented default
        for k, v in pairs(d) do assert.are.same(base, impulses(sim:explore{ [k] = v }), k) end
        -- the other orders and another seed give other (admissible) impulses
        for _, order in ipairs{ "cyclic", "fixed" } do
            assert.are_not.same(base, impulses(sim:explore{ order = order }), order)
        end
        assert.are_not.same(base, impulses(sim:explore{ seed = 2 }), "seed")
        assert.are_not.same(base, impulses(sim:explore{ guess = "random", scale = 1 }), "guess")
    end)
end)
