-- history_format_spec.lua -- the history's numbers (src/io/fmt_num.c, which formats them
-- without printf) are the bytes the previous writer, snprintf("%.15g"), gave: the rocking block
-- of Acary & Collins-Craft 2024 (scripts/papers/acary2024_rocking_block.lua, 0.25 s, 2 501 rows)
-- is run with its history while an after_step hook formats the same state with Lua's
-- string.format("%.15g") (C's snprintf); every one of the 33 columns of every row must match
-- byte for byte, and every field must read back (tonumber) to the value it prints.
-- tests/c/test_fmt_num.c checks the formatter against snprintf on millions of doubles.
local rc = require "ricochet"
local helper = require "scenario_helper"

local function g15(x)
  if x ~= x then return "nan" end   -- (the history writes NaN as nan whatever its sign)
  return string.format("%.15g", x)
end

describe("the history's numbers", function()
  it("are the bytes of %.15g on the rocking block, every column of every row", function()
    local expected = {}   -- row text by step, from the state after each step
    local orig = rc.World.simulation
    rc.World.simulation = function(w, t)
      local sim = orig(w, t)
      local block = w:find("block")
      local function row(s)
        local i = s:info()
        local e = s:energy()
        local f = { g15(s.t), g15(e.total), g15(e.kinetic), g15(e.potential),
                    g15(s.steps > 0 and i.W_ext_total or 0), g15(s.steps > 0 and i.W_N_total or 0),
                    g15(s.steps > 0 and i.W_T_total or 0) }
        for _, x in ipairs(block:q()) do f[#f + 1] = g15(x) end
        for _, x in ipairs(block:v()) do f[#f + 1] = g15(x) end
        for _, name in ipairs(s:contact_names()) do
          local c = s:contact(name)
          for _, k in ipairs{ "gN", "uN", "uT", "pN", "pT" } do f[#f + 1] = g15(c[k]) end
        end
        -- the rest of the balance: W_J, W_proj, W_theta, W_damp (totals), E_spring, E_elastic
        for _, k in ipairs{ "W_J_total", "W_proj_total", "W_theta_total", "W_damp_total" } do
          f[#f + 1] = g15(s.steps > 0 and i[k] or 0)
        end
        f[#f + 1] = g15(0)   -- no springs
        f[#f + 1] = g15(0)   -- no linear bodies
        expected[s.steps] = table.concat(f, ",")
      end
      row(sim)
      sim:after_step(row)
      return sim
    end
    local dir = os.tmpname()
    os.remove(dir)
    rc.reset_params()
    rc.set_options{ script = "scripts/papers/acary2024_rocking_block.lua", out = dir, set = { T = "0.25" } }
    local ok, err = pcall(assert(loadfile(helper.root .. "/scripts/papers/acary2024_rocking_block.lua")))
    rc.set_options(nil)
    rc.World.simulation = orig
    assert(ok, err)
    local p = assert(io.popen("zcat " .. dir .. "/history.csv.gz"))
    local lines = {}
    for line in p:lines() do lines[#lines + 1] = line end
    p:close()
    os.execute("rm -rf " .. dir)
    assert.equal(2 + 2500, #lines)   -- the header, the state at open, 2 500 steps
    assert.equal(39, select(2, lines[1]:gsub(",", "")) + 1)   -- with W_J, W_proj, W_theta, W_damp, E_spring, E_elastic
    local fields, mismatched = 0, 0
    for k = 0, 2500 do
      local got = lines[k + 2]
      if got ~= expected[k] then
        mismatched = mismatched + 1
        if mismatched <= 3 then print("step " .. k .. ":\n  file " .. got .. "\n  %.15g " .. tostring(expected[k])) end
      end
      for x in got:gmatch("[^,]+") do
        fields = fields + 1
        if x ~= "nan" then assert.equal(x, g15(tonumber(x))) end
      end
    end
    assert.equal(0, mismatched)
    assert.equal(2501 * 39, fields)
  end)
end)
