-- audit_scene.lua -- a mechanism with every term of the energy balance (audit_spec.lua):
-- joints (a prismatic guide, prescribed motion, a revolute pin), a damped spring,
-- a damped linear body against a gap stop, contacts with friction.
local rc = require "ricochet"
local theta = rc.param("theta", 0.5)
local w = rc.world{ gravity = { 0, -9.81 } }
-- the shaker of docs/mechanisms.md: a table driven y(t) = A sin(omega t), a ball on it
local A, omega = 0.002, 2 * math.pi * 30
local table_ = w:body{ name = "table", mass = 5, inertia = 1, q = { 0, 0, 0 }, shape = rc.box{ 1, 0.1 } }
w:prismatic{ w.ground, table_, axis = { 0, 1 }, at = { 0, 0 } }
w:prescribe{ table_, coord = "y", name = "drive",
             f = function(t) return A * math.sin(omega * t) end,
             df = function(t) return A * omega * math.cos(omega * t) end }
local ball = w:body{ name = "ball", mass = 0.1, inertia = 0.1 * 0.02^2 / 2, q = { 0, 0.07, 0 },
                     shape = rc.disk{ radius = 0.02 } }
w:contact{ ball, table_, law = rc.newton{ e = 0.5, mu = 0.3 } }
-- a pendulum on a pin with a damped spring to the ground
local bob = w:body{ name = "bob", mass = 1, inertia = 0.01, q = { 2, -1, 0 } }
w:revolute{ w.ground, bob, at = { 2, 0 } }
w:spring{ w.ground, bob, point_a = { 3, -1 }, k = 50, c = 0.5, rest_length = 0.8 }
-- a damped linear chain hitting a stop
local chain = w:linear{ name = "chain", M = { { 1, 0 }, { 0, 1 } }, K = { { 200, -100 }, { -100, 200 } },
                        C = { { 0.2, 0 }, { 0, 0.2 } }, f = { -9.81, -9.81 }, v0 = { -1, 0 } }
w:gap{ chain, index = { 1 }, normal = { 1 }, g0 = 0.02, name = "stop", law = rc.newton{ e = 0 } }
local sim = w:simulation{ h = 1e-3, theta = theta }
sim:run{ T = 0.3 }
