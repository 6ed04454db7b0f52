-- Shared by the specs: run a scenario script in this process as the
-- ricochet program would (--set overrides, --out folder) and read back what
-- it wrote.
local rc = require "ricochet"
local M = {}
M.root = os.getenv("RICOCHET_ROOT") or "."

local function parse_number(x)
  return tonumber(x) or (x:match("nan") and 0 / 0) or (x == "inf" and math.huge) or (x == "-inf" and -math.huge)
end

-- Returns the script's return value, the history rows (tables keyed by
-- column name) and the text of run.json. path is relative to the root.
-- Every step must have been solved (the summary the script returns, or its
-- field summary, has failures == 0) unless allow_failures is true: only a
-- spec whose point is a failure passes it.
function M.run(path, set, with_output, allow_failures)
  local dir
  if with_output ~= false then
    dir = os.tmpname()
    os.remove(dir)
  end
  rc.reset_params()
  rc.set_options{ script = path, out = dir, set = set or {} }
  local chunk = assert(loadfile(M.root .. "/" .. path))
  local ok, result = pcall(chunk)
  local unused = rc.unused_overrides()
  rc.set_options(nil)
  assert(ok, result)
  -- an override the script never read is a typo in the spec
  assert(#unused == 0, path .. ": overrides never read: " .. table.concat(unused, ", "))
  local summary = type(result) == "table" and (type(result.summary) == "table" and result.summary or result) or nil
  if not allow_failures and summary and summary.failures ~= nil then
    assert(summary.failures == 0, string.format("%s: %d steps whose solver did not converge", path, summary.failures))
  end
  if not dir then return result end
  local rows, header = {}, nil
  local f = assert(io.popen("zcat " .. dir .. "/history.csv.gz"))
  for line in f:lines() do
    if not line:match("^#") then
      local fields = {}
      for x in line:gmatch("[^,]+") do fields[#fields + 1] = x end
      if not header then header = fields
      else
        local r = {}
        for i, k in ipairs(header) do r[k] = parse_number(fields[i]) end
        rows[#rows + 1] = r
      end
    end
  end
  f:close()
  local jf = assert(io.open(dir .. "/run.json"))
  local json = jf:read("a")
  jf:close()
  os.execute("rm -rf " .. dir)
  return result, rows, json
end

-- A column of n unit disks (radius 0.5, named "grain i") resting on a
-- half-plane under gravity: world, bodies.
function M.column(n)
    local rc = require "ricochet"
    local w = rc.world{ gravity = { 0, -9.81 } }
    w:halfplane{}
    local g = {}
    for i = 1, n do
        g[i] = w:body{ name = "grain " .. i, mass = 1, inertia = 0.125, q = { 0, i - 0.5, 0 }, shape = rc.disk{ 0.5 } }
    end
    return w, g
end

return M
