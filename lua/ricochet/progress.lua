-- ricochet/progress.lua -- the progress of a run as one line on a terminal
-- (sim:run draws it on stderr a few times a second when stderr is a terminal
-- and the program was not given --quiet), from the figures of
-- core.progress (rc_world_progress_get): t / T, steps per second, ETA, the
-- share of steps whose solver stopped at its sweep cap, the last residual.

local M = {}
local fmt, floor = string.format, math.floor

local function clock(s)
    if s == nil or s < 0 or s ~= s then return "--:--" end
    s = floor(s + 0.5)
    if s >= 3600 then return fmt("%d:%02d:%02d", s // 3600, s // 60 % 60, s % 60) end
    return fmt("%d:%02d", s // 60, s % 60)
end
M.clock = clock

-- "t = 0.25 / 1 (25%)  4.1e+03 steps/s  ETA 0:03  at cap 0.0% (0)  residual 1.2e-11"
function M.line(p)
    local share = p.steps > 0 and 100 * p.capped / p.steps or 0
    local done = p.steps_total > 0 and 100 * p.steps / p.steps_total or 100
    return fmt("t = %.6g / %.6g (%d%%)  %.3g steps/s  ETA %s  at cap %.1f%% (%d)  residual %.2e",
               p.t, p.T, floor(done), p.steps_per_s, clock(p.eta_s), share, p.capped, p.residual)
end

-- The terminal's line: drawn over itself (\r, erase to the end of the line).
function M.draw(p)
    io.stderr:write("\r", M.line(p), "\27[K")
    io.stderr:flush()
end

function M.clear()
    io.stderr:write("\r\27[K")
    io.stderr:flush()
end

-- The summary's sentence about unconverged steps (nil when there were none).
function M.capped_sentence(capped, steps, max_residual, t_max_residual)
    if not capped or capped == 0 then return nil end
    return fmt("%d of %d steps hit the sweep cap; largest residual %.3e at t = %.10g",
               capped, steps, max_residual, t_max_residual)
end

return M
