-- blas_threads_spec.lua -- the ricochet program runs OpenBLAS on one thread and leaves it no
-- worker thread (src/cli/cli_blas.c, docs/install.md "BLAS threads"): Debian's
-- libopenblas0-pthread starts a worker that spins for ~0.1 s of CPU after it is woken or
-- created. A script that factorises a matrix (a linear body: LAPACK's dpotrf) and steps it
-- reads its own /proc/self/status: one thread (before the fix: 2, the BLAS worker). Pending
-- where the BLAS is not OpenBLAS (reference BLAS, BLIS: no worker to stop).
local BIN = assert(os.getenv("RICOCHET_BIN"), "RICOCHET_BIN is not set")

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

describe("the ricochet program's BLAS", function()
  it("has no worker thread after a factorisation", function()
    local script = os.tmpname() .. ".lua"
    local f = assert(io.open(script, "w"))
    f:write([[
local rc = require "ricochet"
local w = rc.world{}
local plate = w:linear{ M = { { 2, 1 }, { 1, 2 } }, K = { { 10, 0 }, { 0, 10 } }, q0 = { 0.2, 0.1 } }
local sim = w:simulation{ h = 1e-3 }
sim:run{ T = 0.01 }
local function read(path) local h = assert(io.open(path)); local s = h:read("a"); h:close(); return s end
print("threads " .. read("/proc/self/status"):match("Threads:%s*(%d+)"))
print("openblas " .. (read("/proc/self/maps"):find("openblas", 1, true) and "yes" or "no"))
]])
    f:close()
    local p = io.popen("env -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS " .. q(BIN) .. " run " .. q(script) .. " --quiet 2>&1")
    local out = p:read("*a")
    p:close()
    os.remove(script)
    local threads = tonumber(out:match("threads (%d+)"))
    assert.is_truthy(threads, out)
    if out:match("openblas no") then
      pending("the BLAS is not OpenBLAS: no worker thread to stop")
      return
    end
    assert.are.equal(1, threads)
  end)
end)
