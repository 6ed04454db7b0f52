-- sh_helper.lua -- shell helpers of the specs that run programs (install_spec,
-- docs_run_spec, usability_spec, luarocks_spec): quoting, temporary folders,
-- files, commands with their exit code, stdout and stderr.
local M = {}

M.BIN = os.getenv("RICOCHET_BIN")
M.ROOT = os.getenv("RICOCHET_ROOT") or "."
-- the build folder (where RICOCHET_BIN is)
M.BUILD = M.BIN and (M.BIN:match("^(.*)/[^/]*$") or ".")

function M.q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

function M.tmpdir()
    local p = os.tmpname()
    os.remove(p)
    assert(os.execute("mkdir -p " .. M.q(p)))
    return p
end

function M.read_file(path)
    local f = io.open(path, "rb")
    if not f then return nil end
    local s = f:read("a")
    f:close()
    return s
end

function M.write_file(path, text)
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
end

-- Run a shell command; return exit code, stdout, stderr.
function M.sh(cmd)
    local out, err = os.tmpname(), os.tmpname()
    local _, how, code = os.execute(cmd .. " >" .. M.q(out) .. " 2>" .. M.q(err))
    local o, e = M.read_file(out), M.read_file(err)
    os.remove(out)
    os.remove(err)
    if how == "signal" then code = "killed by signal " .. code end
    return code, o, e
end

-- Run a command that must succeed; return its stdout (the error names the command).
function M.must(cmd)
    local code, out, err = M.sh(cmd)
    if code ~= 0 then
        error(("command failed (%s):\n  %s\nstdout:\n%s\nstderr:\n%s"):format(tostring(code), cmd, out, err), 2)
    end
    return out, err
end

function M.exists(path)
    local f = io.open(path, "rb")
    if f then f:close() end
    return f ~= nil
end

function M.have(program)
    return os.execute("command -v " .. M.q(program) .. " >/dev/null 2>&1") == true
end

function M.rm_rf(dir)
    if dir and #dir > 4 then os.execute("rm -rf " .. M.q(dir)) end
end

-- Run a shell command; return its exit code and its stdout and stderr together.
function M.sh_all(cmd)
    local code, out, err = M.sh(cmd)
    return code, (out or "") .. (err or "")
end

-- The data rows of a gzip-compressed history (its "#" lines left out).
function M.gunzip_rows(path)
    local p = io.popen("gzip -dc " .. M.q(path))
    local text = p:read("a")
    p:close()
    local rows = {}
    for line in text:gmatch("[^\n]+") do
        if not line:find("^#") then rows[#rows + 1] = line end
    end
    return rows
end

return M
