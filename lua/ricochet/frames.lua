-- ricochet.frames: the frame file of a run (DIR/frames.rcf, format in
-- src/ricochet_frames.h), written by sim:run{ frames = N } (ricochet run
-- --frames N): a frame at the start, then after every N-th step, closed
-- with the run's status. Read by `ricochet view DIR` (docs/viewing.md).
local core = require "ricochet.core"

local M = {}

M.FILE = "frames.rcf"

-- Starts writing DIR/frames.rcf for the world c: writes the current state as
-- the first frame and returns a handle whose fn is an after-step callback,
-- or nil, message.
function M.start(c, dir, every)
    local path = dir .. "/" .. M.FILE
    local writer, msg = core.frames_open(path)
    if not writer then return nil, msg end
    local ok, wmsg = core.frames_write(writer, c)
    if not ok then
        core.frames_close(writer, "error", wmsg)
        return nil, wmsg
    end
    local h = { writer = writer, path = path, every = every }
    h.fn = function()
        if core.step_count(c) % every ~= 0 then return end
        local wok, err = core.frames_write(writer, c)
        if not wok then error(err, 0) end
    end
    return h
end

-- Ends the file with the run's status; returns the number of frames, or
-- nil, message when the file could not be finished.
function M.finish(h, status, message)
    local n = core.frames_count(h.writer)
    local ok, msg = core.frames_close(h.writer, status, message)
    if not ok then return nil, msg end
    return n
end

return M
