-- ricochet.plot: line plots as SVG, written in pure Lua (docs/viewing.md).
--
--   local plot = require "ricochet.plot"
--   plot.svg{ file = "out/fig.svg", title = "bouncing ball",
--             x = ts, xlabel = "t [s]",
--             panels = { { series = { { name = "y", y = ys } }, ylabel = "height [m]" } } }
--   plot.history("out/run")                  -- out/run/plot.svg: E, E_kin, E_pot, the works, the defect
--   plot.history("out/run", { columns = { "ball.y" }, file = "out/run/y.svg" })
--   local h = plot.read_history("out/run")   -- { names = {...}, cols = { t = {...}, ... }, n = rows } (csv or binary)
--
-- `ricochet plot OUT [COLUMNS...] [--out FILE]` calls plot.history. Each
-- series is one <polyline> (decimated to the lowest and highest value of each
-- pixel column when there are more points than pixels), with its name in a
-- legend and a data-series attribute; each panel is a <g class="panel"> whose
-- data-x0 data-x1 data-y0 data-y1 attributes give its axis ranges.
local M = {}

local fmt, floor, ceil, log10, abs, huge = string.format, math.floor, math.ceil, math.log10 or function(x) return math.log(x, 10) end, math.abs, math.huge
local min, max = math.min, math.max

local PALETTE = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
                  "#7f7f7f", "#bcbd22" }

-- Errors point at the caller's line: the first stack level outside this file.
local SOURCE = debug and debug.getinfo and debug.getinfo(1, "S").source
local function fail(fname, f, ...)
    local level = 3
    if SOURCE then
        level = 2
        while true do
            local info = debug.getinfo(level + 1, "S")
            if not info or info.source ~= SOURCE then break end
            level = level + 1
        end
        level = level + 1
    end
    error(fmt("%s: " .. f, fname, ...), level)
end

local function finite(x) return x == x and x ~= huge and x ~= -huge end

-- The unit of a history column, "" when unknown (SI, as the scenarios use).
function M.unit(name)
    local base = name:match("%.([^%.]+)$") or name
    if base == "t" then return "s" end
    if base:match("^E") or base:match("^W_") or base == "defect" then return "J" end
    if base == "x" or base == "y" or base == "gN" then return "m" end
    if base == "theta" then return "rad" end
    if base == "vx" or base == "vy" or base == "uN" or base == "uT" then return "m/s" end
    if base == "omega" then return "rad/s" end
    if base == "pN" or base == "pT" then return "N s" end
    return ""
end

local function xml(s)
    return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

-- Tick values: 1, 2, 2.5 or 5 x 10^k steps, about n of them over [a, b].
function M.ticks(a, b, n)
    if not (b > a) then return { a } end
    local step0 = (b - a) / (n or 5)
    local e = 10 ^ floor(log10(step0))
    local step = 10 * e
    for _, m in ipairs { 1, 2, 2.5, 5 } do
        if m * e >= step0 then step = m * e break end
    end
    local out = {}
    local k = ceil(a / step - 1e-9)
    while k * step <= b + step * 1e-9 do
        local v = k * step
        if abs(v) < step * 1e-9 then v = 0 end
        out[#out + 1] = v
        k = k + 1
    end
    return out, step
end

-- A tick label: as many digits as the step needs.
local function label(v, step)
    if v == 0 then return "0" end
    local digits = max(1, min(15, ceil(log10(max(abs(v), step) / step) + 1e-9) + 1))
    local s = fmt("%." .. digits .. "g", v)
    if s:find("e") then
        local m, e = s:match("^(.-)e(.*)$")
        s = m .. "e" .. tonumber(e)
    end
    return s
end

-- The range [lo, hi] of the finite values of the series, widened by 5 %
-- (a constant series: by 10 % of its value, or 1).
local function range_of(lists)
    local lo, hi = huge, -huge
    for _, y in ipairs(lists) do
        for i = 1, #y do
            local v = y[i]
            if finite(v) then
                if v < lo then lo = v end
                if v > hi then hi = v end
            end
        end
    end
    if lo > hi then return 0, 1 end
    if hi - lo <= 1e-12 * max(abs(lo), abs(hi)) + 1e-300 then
        local m = abs(lo) > 0 and 0.1 * abs(lo) or 1
        return lo - m, hi + m
    end
    local pad = 0.05 * (hi - lo)
    return lo - pad, hi + pad
end

-- Points of a polyline: all of them, or per pixel column the first, lowest
-- and highest and last (in order) when there are more than 2 per column.
local function points(x, y, X, Y, width)
    local n = min(#x, #y)
    local out = {}
    local function add(i) out[#out + 1] = fmt("%.2f,%.2f", X(x[i]), Y(y[i])) end
    if n <= 2 * width then
        for i = 1, n do if finite(x[i]) and finite(y[i]) then add(i) end end
        return table.concat(out, " ")
    end
    local col, ilo, ihi, last = nil, nil, nil, nil
    local function flush()
        if not ilo then return end
        local a, b = min(ilo, ihi), max(ilo, ihi)
        add(a)
        if b ~= a then add(b) end
    end
    for i = 1, n do
        local xi, yi = x[i], y[i]
        if finite(xi) and finite(yi) then
            local c = floor(X(xi))
            if c ~= col then
                flush()
                col, ilo, ihi = c, i, i
            else
                if yi < y[ilo] then ilo = i end
                if yi > y[ihi] then ihi = i end
            end
            last = i
        end
    end
    flush()
    if last then add(last) end
    return table.concat(out, " ")
end

local function check_series(fname, where, s, nx)
    if type(s) ~= "table" then fail(fname, "%s must be a table { name = ..., y = {...} } (got %s)", where, type(s)) end
    if type(s.name) ~= "string" then fail(fname, "%s.name must be a string (got %s)", where, type(s.name)) end
    if type(s.y) ~= "table" then fail(fname, "%s.y must be a list of numbers (got %s)", where, type(s.y)) end
    if #s.y ~= nx then
        fail(fname, "%s ('%s') has %d values and x has %d", where, s.name, #s.y, nx)
    end
    for i = 1, #s.y do
        if type(s.y[i]) ~= "number" then
            fail(fname, "%s ('%s'): value %d is not a number (got %s)", where, s.name, i, type(s.y[i]))
        end
    end
end

-- The SVG text of a figure: t = { x = {...}, xlabel, title, width = 720,
-- panel_height = 260, panels = { { series = { { name, y, color } }, ylabel,
-- title } } } (or series = ... for a single panel).
function M.render(t, fname)
    fname = fname or "ricochet.plot.render"
    if type(t) ~= "table" then fail(fname, "expected a table (got %s)", type(t)) end
    local known = { x = 1, xlabel = 1, title = 1, width = 1, panel_height = 1, panels = 1, series = 1, ylabel = 1, file = 1 }
    for k in pairs(t) do
        if not known[k] then fail(fname, "unknown option '%s'", tostring(k)) end
    end
    local x = t.x
    if type(x) ~= "table" or #x == 0 then fail(fname, "'x' must be a non-empty list of numbers") end
    local panels = t.panels or { { series = t.series, ylabel = t.ylabel } }
    if type(panels) ~= "table" or #panels == 0 then fail(fname, "'panels' must be a non-empty list") end
    for p, panel in ipairs(panels) do
        if type(panel.series) ~= "table" or #panel.series == 0 then
            fail(fname, "panel %d: 'series' must be a non-empty list", p)
        end
        for k, s in ipairs(panel.series) do check_series(fname, fmt("panel %d series %d", p, k), s, #x) end
    end
    local W = t.width or 720
    local PH = t.panel_height or 260
    local L, R, top = 78, W - 16, t.title and 30 or 8
    local H = top + #panels * PH + 8
    local x0, x1 = huge, -huge
    for i = 1, #x do if finite(x[i]) then x0, x1 = min(x0, x[i]), max(x1, x[i]) end end
    if x0 > x1 then x0, x1 = 0, 1 end
    if x1 <= x0 then x1 = x0 + 1 end
    local o = {}
    local function w(...) o[#o + 1] = fmt(...) end
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">\n', W, H, W, H)
    w('<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>\n', W, H)
    if t.title then w('<text x="%d" y="20" font-size="15" font-weight="bold">%s</text>\n', L, xml(t.title)) end
    for p, panel in ipairs(panels) do
        local py = top + (p - 1) * PH
        local T, B = py + 26, py + PH - 42
        local lists = {}
        for _, s in ipairs(panel.series) do lists[#lists + 1] = s.y end
        local y0, y1 = range_of(lists)
        local function X(v) return L + (v - x0) / (x1 - x0) * (R - L) end
        local function Y(v) return B - (v - y0) / (y1 - y0) * (B - T) end
        w('<g class="panel" data-x0="%.17g" data-x1="%.17g" data-y0="%.17g" data-y1="%.17g" data-left="%d" data-right="%d" data-top="%d" data-bottom="%d">\n',
          x0, x1, y0, y1, L, R, T, B)
        w('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>\n', L, T, R - L, B - T)
        local xt, xs = M.ticks(x0, x1, 8)
        for _, v in ipairs(xt) do
            w('<line x1="%.2f" x2="%.2f" y1="%d" y2="%d" stroke="#e4e4e4"/>', X(v), X(v), T, B)
            w('<text x="%.2f" y="%d" text-anchor="middle">%s</text>\n', X(v), B + 15, label(v, xs))
        end
        local yt, ys = M.ticks(y0, y1, 5)
        for _, v in ipairs(yt) do
            w('<line x1="%d" x2="%d" y1="%.2f" y2="%.2f" stroke="#e4e4e4"/>', L, R, Y(v), Y(v))
            w('<text x="%d" y="%.2f" text-anchor="end">%s</text>\n', L - 5, Y(v) + 4, label(v, ys))
        end
        w('<text class="xlabel" x="%.1f" y="%d" text-anchor="middle">%s</text>\n', (L + R) / 2, B + 32, xml(t.xlabel or "t [s]"))
        local ylabel = panel.ylabel
        if not ylabel then   -- the series' common unit, if they have one
            local u
            for _, s in ipairs(panel.series) do
                local su = M.unit(s.name)
                if u == nil then u = su elseif u ~= su then u = "" end
            end
            ylabel = (u and u ~= "") and fmt("[%s]", u) or "value"
        end
        w('<text class="ylabel" x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">%s</text>\n',
          (T + B) / 2, (T + B) / 2, xml(ylabel))
        if panel.title then w('<text x="%d" y="%d" font-weight="bold">%s</text>\n', L, py + 16, xml(panel.title)) end
        local lx = L + (panel.title and (#panel.title * 7.5 + 14) or 0)
        for k, s in ipairs(panel.series) do
            local color = s.color or PALETTE[(k - 1) % #PALETTE + 1]
            w('<polyline class="series" data-series="%s" fill="none" stroke="%s" stroke-width="1.4" points="%s"/>\n',
              xml(s.name), color, points(x, s.y, X, Y, R - L))
            w('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="2.5"/>', lx, lx + 18, py + 12, py + 12, color)
            w('<text class="legend" x="%.1f" y="%d">%s</text>\n', lx + 22, py + 16, xml(s.name))
            lx = lx + 34 + 7 * #s.name
        end
        w('</g>\n')
    end
    w('</svg>\n')
    return table.concat(o)
end

-- Writes the SVG of M.render(t) to t.file; returns the file name.
function M.svg(t)
    local fname = "ricochet.plot.svg"
    if type(t) ~= "table" then fail(fname, "expected a table (got %s)", type(t)) end
    if type(t.file) ~= "string" or t.file == "" then fail(fname, "'file' must be a file name (got %s)", tostring(t.file)) end
    local text = M.render(t, fname)
    local f, err = io.open(t.file, "wb")
    if not f then fail(fname, "cannot write '%s': %s", t.file, err) end
    local ok, werr = f:write(text)
    local cok, cerr = f:close()
    if not ok or not cok then fail(fname, "cannot write '%s': %s", t.file, tostring(werr or cerr)) end
    return t.file
end

-- Reads a history (a run's folder, its history.csv.gz or history.bin, or a
-- .csv): { names = { "t", ... }, cols = { t = {...}, ... }, n = rows,
-- complete = false when the file ends early or says "# incomplete", notes =
-- { lines }, file, format } (ricochet.history.read).
function M.read_history(path)
    return require("ricochet.history").read(path, "ricochet.plot.read_history")
end

-- The balance defect E - E(0) - sum of the W_* columns (cumulative works).
function M.defect(h)
    local E = h.cols.E
    if not E then return nil end
    local works = {}
    for _, n in ipairs(h.names) do if n:match("^W_") then works[#works + 1] = h.cols[n] end end
    local d = {}
    for i = 1, h.n do
        local s = E[i] - E[1]
        for _, wcol in ipairs(works) do s = s - wcol[i] end
        d[i] = s
    end
    return d
end

-- Plots a run's history: by default three panels (the energy terms E, E_kin,
-- E_pot (and E_spring when there); the works W_*; the balance defect), or
-- opts.columns in one panel. Writes opts.file (default DIR/plot.svg);
-- returns the file name and the columns drawn.
function M.history(dir, opts)
    local fname = "ricochet.plot.history"
    opts = opts or {}
    if type(opts) ~= "table" then fail(fname, "'opts' must be a table (got %s)", type(opts)) end
    for k in pairs(opts) do
        if k ~= "columns" and k ~= "file" and k ~= "title" then
            fail(fname, "unknown option '%s' (known: columns, file, title)", tostring(k))
        end
    end
    local h = M.read_history(dir)
    if h.n == 0 then fail(fname, "'%s' has no rows", h.file) end
    local t = h.cols.t
    if not t then fail(fname, "'%s' has no column 't'", h.file) end
    local function series(names)
        local s = {}
        for _, n in ipairs(names) do s[#s + 1] = { name = n, y = h.cols[n] } end
        return s
    end
    local panels, drawn = {}, {}
    if opts.columns and #opts.columns > 0 then
        for _, n in ipairs(opts.columns) do
            if not h.cols[n] then
                fail(fname, "no column '%s' in '%s' (columns: %s)", tostring(n), h.file, table.concat(h.names, ", "))
            end
            drawn[#drawn + 1] = n
        end
        panels[1] = { series = series(drawn) }
    else
        local energy, works = {}, {}
        -- the audit's columns every history carries (W_J, W_proj, W_theta, W_damp,
        -- E_spring) are drawn when they are not all zero
        local always = { E = true, E_kin = true, E_pot = true, W_ext = true, W_N = true, W_T = true }
        local function shown(n)
            if always[n] then return true end
            for _, x in ipairs(h.cols[n]) do if x ~= 0 then return true end end
            return false
        end
        for _, n in ipairs { "E", "E_kin", "E_pot", "E_spring" } do
            if h.cols[n] and shown(n) then energy[#energy + 1] = n end
        end
        for _, n in ipairs(h.names) do if n:match("^W_") and shown(n) then works[#works + 1] = n end end
        if #energy > 0 then panels[#panels + 1] = { title = "energy", series = series(energy), ylabel = "energy [J]" } end
        if #works > 0 then panels[#panels + 1] = { title = "works", series = series(works), ylabel = "work [J]" } end
        local d = M.defect(h)
        if d then
            panels[#panels + 1] = { title = "balance defect E − E₀ − ΣW", ylabel = "defect [J]",
                                    series = { { name = "defect", y = d } } }
        end
        for _, n in ipairs(energy) do drawn[#drawn + 1] = n end
        for _, n in ipairs(works) do drawn[#drawn + 1] = n end
        if d then drawn[#drawn + 1] = "defect" end
        if #panels == 0 then fail(fname, "'%s' has no energy columns: name the columns to plot", h.file) end
    end
    local file = opts.file or ((h.file:match("^(.*)/[^/]*$") or ".") .. "/plot.svg")
    local title = opts.title or (h.complete and h.file or (h.file .. " (incomplete)"))
    M.svg{ file = file, x = t, xlabel = "t [s]", title = title, panels = panels }
    return file, drawn
end

-- ricochet plot OUT [COLUMNS...] [--out FILE]: the exit code.
function M.main(...)
    local dir, file, columns = require("ricochet.history").tool_args("plot", "usage: ricochet plot OUT [COLUMNS...] [--out FILE]",
        "Writes OUT/plot.svg (or FILE): the energy terms, works and balance defect of\n"
        .. "OUT/history.csv.gz (or OUT/history.bin) against time, or the COLUMNS named.\n", { ... }, true)
    if not dir then return file end
    local ok, path, drawn = pcall(M.history, dir, { columns = columns, file = file })
    if not ok then
        io.stderr:write("ricochet plot: error: ", (tostring(path):gsub("^.-ricochet%.plot%.[%w_]+: ", "")), "\n")
        return 1
    end
    io.stdout:write(fmt("ricochet plot: wrote %s (%s)\n", path, table.concat(drawn, ", ")))
    return 0
end

return M
