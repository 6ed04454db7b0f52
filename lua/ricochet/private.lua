-- ricochet/private.lua -- the table through which lua/ricochet/init.lua hands its
-- shared locals (rc, core, World, Body, Sim, ...) to its parts (ricochet/shape_defs.lua,
-- law_defs.lua, mechanisms.lua, matrix.lua, body.lua, simulation.lua, program.lua).
-- Not an API: scripts use require "ricochet".
return {}
