-- spec_helper.lua -- small helpers the specs share (required as "spec_helper"):
-- error_of (the message a call raises; fails the test if it raises none),
-- has (a message contains a text, verbatim), and for spatial bodies rotate
-- (R(q) b for a unit quaternion q = (qw, qx, qy, qz)), norm (Euclidean), sphere_pile
-- (a dim = 3 world of spheres about to fall into a box) and natural_map3 (a 3D contact's
-- natural-map residual).
local S = {}

-- (busted's assert lives in the specs' environment, not in a required module's: plain errors here)
function S.error_of(fn, ...)
    local ok, err = pcall(fn, ...)
    if ok then error("no error raised", 2) end
    return err
end

-- |p - proj_K(p - xi)| of a 3D contact, xi = (u_N + mu |u_T|, u_T): its natural-map residual
-- (u with the law's shift, if any)
function S.natural_map3(p, u, mu)
    local x = { p[1] - (u[1] + mu * math.sqrt(u[2] ^ 2 + u[3] ^ 2)), p[2] - u[2], p[3] - u[3] }
    local t = math.sqrt(x[2] ^ 2 + x[3] ^ 2)
    local q
    if t <= mu * x[1] then q = x
    elseif mu * t <= -x[1] then q = { 0, 0, 0 }
    else
        local s = (x[1] + mu * t) / (1 + mu * mu)
        q = { s, mu * s * x[2] / t, mu * s * x[3] / t }
    end
    return math.sqrt((p[1] - q[1]) ^ 2 + (p[2] - q[2]) ^ 2 + (p[3] - q[3]) ^ 2)
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

-- A dim = 3 world: n x n x layers spheres of radius 0.1 +- 10 % (density 1, math.randomseed(3))
-- on a jittered lattice of spacing 0.25 with random horizontal velocities, above a box of side
-- 0.25 n (floor and four walls); Newton's law e = 0 with friction mu, gravity g.
-- A dim = 3 world with a box of side width (the floor z = 0 and four walls), Newton's law e = 0
-- with friction mu, gravity g.
function S.box_world(rc, width, g, mu)
    local w = rc.world{ dim = 3, gravity = { 0, 0, -g }, default_law = rc.newton{ e = 0, mu = mu } }
    w:plane{ point = { 0, 0, 0 }, normal = { 0, 0, 1 } }
    w:plane{ point = { 0, 0, 0 }, normal = { 1, 0, 0 } }
    w:plane{ point = { width, 0, 0 }, normal = { -1, 0, 0 } }
    w:plane{ point = { 0, 0, 0 }, normal = { 0, 1, 0 } }
    w:plane{ point = { 0, width, 0 }, normal = { 0, -1, 0 } }
    return w
end

function S.sphere_pile(rc, n, layers, g, mu)
    math.randomseed(3)
    local w = S.box_world(rc, 0.25 * n, g, mu)
    for k = 0, layers - 1 do
        for j = 0, n - 1 do
            for i = 0, n - 1 do
                local r = 0.1 * (0.9 + 0.2 * math.random())
                local m = 4 / 3 * math.pi * r ^ 3
                local I = 0.4 * m * r * r
                w:body{ mass = m, inertia = { I, I, I },
                        q = { 0.25 * (i + 0.5) + 0.01 * (math.random() - 0.5), 0.25 * (j + 0.5) + 0.01 * (math.random() - 0.5),
                              0.25 * (k + 0.5) + 0.05, 1, 0, 0, 0 },
                        v = { math.random() - 0.5, math.random() - 0.5, 0, 0, 0, 0 }, shape = rc.sphere{ radius = r } }
            end
        end
    end
    return w
end

return S
