-- ricochet/vtk_fem.lua -- part of require "ricochet" (lua/ricochet/init.lua):
-- the finite-element bodies of a world in its VTK series (sim:vtk;
-- src/io/vtk_fem.c writes fem_NNNNNN.vtu and fem.pvd). Reference:
-- docs/output-vtk.md, "Finite-element bodies".

local I = require "ricochet.private"
local core = I.core
local pairs, ipairs, rawget = pairs, ipairs, rawget

-- Adds to the series `writer` every finite-element body of world w (core c)
-- that is not yet in it (added: the set of bodies added so far, kept with
-- the series), in body id order. Returns true, or nil and the kernel's message.
function I.vtk_add_fem(writer, w, c, added)
    local list = {}
    for _, b in pairs(rawget(w, "_body_pinned")) do
        local f = rawget(b, "fem")
        if f and f.def and not added[b] then list[#list + 1] = b end
    end
    if #list == 0 then return true end
    table.sort(list, function(a, b) return rawget(a, "id") < rawget(b, "id") end)
    for _, b in ipairs(list) do
        local ok, msg = core.vtk_add_fem(writer, c, rawget(b, "id"), b.fem.def, b.fem.perm)
        if not ok then return nil, msg end
        added[b] = true
    end
    return true
end
