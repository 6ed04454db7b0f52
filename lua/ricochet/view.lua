-- ricochet.view: `ricochet view OUT` writes OUT/view.html, one self-contained
-- page (no server, no network: the JavaScript and CSS of view.html, the
-- template beside this file, are inlined, and so are the run's files) that
-- animates the run and plots its history (docs/viewing.md).
--
--   local view = require "ricochet.view"
--   view.write("out/pile")                       -- out/pile/view.html
--   view.write("out/pile", { file = "a.html" })  -- another file name
--
-- The page embeds, base64-encoded, OUT/frames.rcf (written by
-- sim:run{ frames = N }; without it the page shows the plots only) and
-- OUT/history.csv.gz (or OUT/history.bin, the binary history, when the run
-- wrote that) as they are (the browser inflates them with
-- DecompressionStream, or reads the binary rows), and OUT/run.json as text.
local core = require "ricochet.core"

local M = {}

local fmt = string.format

local function fail(fname, f, ...)
    error(fmt("%s: " .. f, fname, ...), 3)
end

local function read_file(path)
    local f = io.open(path, "rb")
    if not f then return nil end
    local s = f:read("a")
    f:close()
    return s
end

-- The folder of this module (where view.html is).
local function module_dir()
    local path = package.searchpath("ricochet.view", package.path)
    if not path then return nil end
    return path:match("^(.*)/[^/]*$") or "."
end

-- The template's text (view.html beside this file).
function M.template()
    local dir = module_dir()
    local t = dir and read_file(dir .. "/view.html")
    if not t then
        error("ricochet.view: the page template view.html was not found beside view.lua"
              .. (dir and (" (in " .. dir .. ")") or ""), 2)
    end
    return t
end

-- Text for a <script type="text/plain"> block: "</" cannot end it.
local function script_text(s)
    return (s:gsub("</", "<\\/"))
end

-- Writes DIR/view.html (or opts.file, a path) and returns its path and a
-- table of what it holds: { frames = bytes or false, history = bytes or
-- false, size = bytes of the page }.
function M.write(dir, opts)
    local fname = "ricochet.view.write"
    if type(dir) ~= "string" or dir == "" then fail(fname, "'dir' must be a folder name (got %s)", tostring(dir)) end
    opts = opts or {}
    if type(opts) ~= "table" then fail(fname, "'opts' must be a table (got %s)", type(opts)) end
    for k in pairs(opts) do
        if k ~= "file" and k ~= "title" then fail(fname, "unknown option '%s' (known: file, title)", tostring(k)) end
    end
    local frames = read_file(dir .. "/frames.rcf")
    local hfile = require("ricochet.history").file(dir)   -- the one run.json names
    local history = read_file(hfile)
    local run = read_file(dir .. "/run.json")
    if not frames and not history and not run then
        fail(fname, "'%s' holds no run (no frames.rcf, history.csv.gz, history.bin or run.json): give the folder of a run's --out", dir)
    end
    local page = M.template()
    local parts = {
        ["@@TITLE@@"] = (opts.title or dir):gsub("[<>&]", { ["<"] = "&lt;", [">"] = "&gt;", ["&"] = "&amp;" }),
        ["@@FRAMES@@"] = frames and core.base64(frames) or "",
        ["@@HISTORY@@"] = history and core.base64(history) or "",
        ["@@RUNJSON@@"] = run and script_text(run) or "",
    }
    page = page:gsub("@@[A-Z]+@@", function(k) return parts[k] end)
    local path = opts.file or (dir .. "/view.html")
    local f, err = io.open(path, "wb")
    if not f then fail(fname, "cannot write '%s': %s", path, err) end
    local ok, werr = f:write(page)
    local cok, cerr = f:close()
    if not ok or not cok then fail(fname, "cannot write '%s': %s", path, werr or cerr) end
    return path, { frames = frames and #frames or false, history = history and #history or false, size = #page }
end

local function human(n)
    if n >= 1048576 then return fmt("%.1f MB", n / 1048576) end
    if n >= 1024 then return fmt("%.0f kB", n / 1024) end
    return fmt("%d bytes", n)
end

-- ricochet view OUT [--out FILE]: the exit code.
function M.main(...)
    local dir, file = require("ricochet.history").tool_args("view", "usage: ricochet view OUT [--out FILE]",
        "Writes OUT/view.html (or FILE): the run of folder OUT in one page for a browser.\n", { ... })
    if not dir then return file end
    local ok, path, info = pcall(M.write, dir, { file = file })
    if not ok then
        io.stderr:write("ricochet view: error: ", (tostring(path):gsub("^.-ricochet%.view%.write: ", "")), "\n")
        return 1
    end
    io.stdout:write(fmt("ricochet view: wrote %s (%s; frames %s, history %s): open it in a browser\n", path,
        human(info.size), info.frames and human(info.frames) or "none (run with --frames N to see the motion)",
        info.history and human(info.history) or "none"))
    return 0
end

return M
