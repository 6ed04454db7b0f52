-- spec_helper.lua -- small helpers the specs share (required as "spec_helper"):
-- error_of (the message a call raises; fails the test if it raises none),
-- has (a message contains a text, verbatim), and for spatial bodies rotate
-- (R(q) b for a unit quaternion q = (qw, qx, qy, qz)) and norm (Euclidean).
local S = {}

-- (busted's assert lives in the specs' environment, not in a required module's: plain errors here)
function S.error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    if ok then error("no error raised", 2) end
    return err
end

function S.has(expected, msg)
    if not tostring(msg):find(expected, 1, true) then
        error(("expected the message to contain %q, got %q"):format(expected, tostring(msg)), 2)
    end
end

function S.rotate(q, b)
    local w, x, y, z = q[1], q[2], q[3], q[4]
    return {
        (1 - 2 * (y * y + z * z)) * b[1] + 2 * (x * y - w * z) * b[2] + 2 * (x * z + w * y) * b[3],
        2 * (x * y + w * z) * b[1] + (1 - 2 * (x * x + z * z)) * b[2] + 2 * (y * z - w * x) * b[3],
        2 * (x * z - w * y) * b[1] + 2 * (y * z + w * x) * b[2] + (1 - 2 * (x * x + y * y)) * b[3] }
end

function S.norm(a) local s = 0 for i = 1, #a do s = s + a[i] * a[i] end return math.sqrt(s) end

return S
