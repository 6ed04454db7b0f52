-- docs_run_spec.lua -- the code blocks of docs/*.md that are complete programs
-- (marked <!-- run --> on the line before the fence, tests/spec/doc_blocks.lua,
-- docs/contributing.md) run as documented, so that the docs cannot drift from
-- the code: each ```lua block with the ricochet program (exit 0), each ```c
-- block compiled against the build's libricochet.a and run, its output
-- compared with the documented one. A failure names the file and the line.
-- Every ```lua block that opens with require "ricochet" is marked, one way or
-- the other (run, run: slow, norun: REASON).
local H = require "sh_helper"
local D = require "doc_blocks"
local q, sh = H.q, H.sh
local BIN = assert(H.BIN, "RICOCHET_BIN is not set")
local ROOT, BUILD = H.ROOT, H.BUILD

-- pages whose blocks another spec runs already (in-process, with more checks)
local ELSEWHERE = {
    ["mechanisms.md"] = "mechanisms_api_spec.lua runs every block with the energy audit",
}

local function doc_files()
    local p = io.popen("cd " .. q(ROOT) .. " && ls docs/*.md")
    local r = {}
    for f in p:lines() do r[#r + 1] = f end
    p:close()
    assert(#r > 5, "docs/*.md not found from " .. ROOT)
    return r
end

local FILES = doc_files()
local SLOW = os.getenv("RICOCHET_SLOW_DOCS") == "1"

-- runs a Lua block; nil or the failure's message
local function run_lua(file, b)
    local dir = H.tmpdir()
    local path = dir .. "/block.lua"
    H.write_file(path, b.code)
    local code, out, err = sh("cd " .. q(dir) .. " && timeout 600 " .. q(BIN) .. " run block.lua --quiet")
    H.rm_rf(dir)
    if code ~= 0 then
        return ("%s:%d: the block exits with %s\n%s%s"):format(file, b.line, tostring(code), out or "", err or "")
    end
end

-- compiles and runs a C block against the build tree; nil or the failure's message
local function run_c(file, b)
    local dir = H.tmpdir()
    H.write_file(dir .. "/prog.c", b.code)
    local cc = "cc -std=c11 -O2 " .. (os.getenv("RC_TEST_CFLAGS") or "") .. " -I" .. q(ROOT .. "/src") .. " "
               .. q(dir .. "/prog.c") .. " " .. q(BUILD .. "/libricochet.a") .. " "
               .. assert(os.getenv("RC_STATIC_LIBS"), "RC_STATIC_LIBS is not set") .. " -o " .. q(dir .. "/prog")
    local code, out, err = sh(cc)
    if code ~= 0 then
        H.rm_rf(dir)
        return ("%s:%d: the block does not compile:\n%s\n%s"):format(file, b.line, cc, err)
    end
    code, out, err = sh("cd " .. q(dir) .. " && ./prog")
    H.rm_rf(dir)
    if code ~= 0 then
        return ("%s:%d: the program exits with %s\n%s%s"):format(file, b.line, tostring(code), out, err)
    end
    if b.output then
        local msg = D.compare_output(b.output, out)
        if msg then return ("%s:%d: %s"):format(file, b.line, msg) end
    end
end

describe("docs/*.md", function()
    it("marks every Lua block that is a program", function()
        local bad = {}
        for _, f in ipairs(FILES) do
            for _, b in ipairs(D.parse_file(ROOT .. "/" .. f)) do
                if b.lang == "lua" and b.code:match('^local rc = require "ricochet"')
                   and not b.run and not b.norun then
                    bad[#bad + 1] = f .. ":" .. b.line
                end
            end
        end
        assert(#bad == 0, "unmarked complete programs (<!-- run --> or <!-- norun: REASON -->): "
                          .. table.concat(bad, ", "))
    end)

    local total = 0
    for _, f in ipairs(FILES) do
        local name = f:match("[^/]+$")
        local blocks = D.parse_file(ROOT .. "/" .. f)
        for _, b in ipairs(blocks) do
            if b.run and (b.lang == "lua" or b.lang == "c") then
                total = total + 1
                local label = ("%s:%d (%s)"):format(f, b.line, b.lang)
                if ELSEWHERE[name] and b.lang == "lua" then
                    -- run by another spec (ELSEWHERE)
                elseif b.slow and not SLOW then
                    pending(label .. ": slow, run with RICOCHET_SLOW_DOCS=1")
                else
                    it(label .. " runs as documented", function()
                        local msg = (b.lang == "lua" and run_lua or run_c)(f, b)
                        if msg then error(msg, 0) end
                    end)
                end
            end
        end
    end

    it("finds the marked blocks", function()
        -- the C programs of c-api.md and laws.md, and the Lua programs
        assert.is_true(total >= 30, "marked blocks: " .. total)
    end)
end)
