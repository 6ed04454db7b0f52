-- Acary & Collins-Craft 2024, section 5.3: a linear elastic PMMA block sliding on
-- a rigid floor (finite elements, docs/theory/fem.md).
--
-- Units mm, ms, g (stress in MPa, force in N). Block b = 40 x h = 25, thickness
-- 15, E = 5.75e3, nu = 0.358, rho = 1.17e-3, plane stress, consistent mass,
-- linear T3 elements; gravity -1e-3 as nodal forces. Every bottom node is a gap
-- contact with the floor y = 0, Newton-Coulomb e = 0, mu = 0.5. The top edge is
-- prescribed u_y = d = -0.005, held. The initial state is the static solution
-- K u = f with the top prescribed and the bottom nodes pinned (body:solve_static:
-- the paper's "no slip and no interpenetration"); the script checks that every bottom reaction
-- is compressive and inside the Coulomb cone, and prints the worst ratio. The
-- left edge carries the traction sigma_s = 2 sgn(sin(4 pi t)) (eq. 102) along
-- +x: into the block (a push) while positive, a pull while negative.
--
-- Mesh (mesh = "gmsh", the default, as the paper made it): Gmsh's mesh of
-- acary2024_block.geo at characteristic length lc, the committed
-- meshes/acary2024_block_lc1.msh (1 227 nodes, 41 bottom nodes) and _lc5.msh
-- (63 nodes, 9 bottom nodes) for lc = 1 and 5, rc.gmsh on the .geo for any other
-- lc (gmsh installed); or msh = PATH, a Gmsh MSH 4.1 mesh with physical groups
-- bottom, top, left; or mesh = "structured": a rectangle of b/lc x h/lc cells
-- (two triangles each, the / diagonal) built here.
--
--   build/ricochet run scripts/papers/acary2024_sliding_block.lua --out out/sb
--     (+ out/sb/energy.svg, out/sb/tangential_work.svg)
--   ... --set scheme=moreau-jean-fremond --set lc=5 --set T=0.2
-- Parameters (each checked): scheme ("moreau-jean" or "moreau-jean-fremond"),
-- theta (0.5), h (1e-4), T (1), lc (1: the mesh's cell size), mesh ("gmsh"), msh (""),
-- tol (NSGS, 1e-10), mu (0.5), e (0), d (-0.005: top displacement), sigma (2:
-- the traction's amplitude), named (false: true names the contacts C.k, node k),
-- law ("newton": under moreau-jean-fremond that is the paper's Fremond law;
-- "moreau", "fremond", "lua-coulomb", "lua-fremond": rc.laws.make), e_t (0).
local rc = require "ricochet"

local scheme = rc.param("scheme", "moreau-jean", { one_of = { "moreau-jean", "moreau-jean-fremond" } })
local theta  = rc.param("theta", 0.5, { min = 0, max = 1 })
local h      = rc.param("h", 1e-4, { above = 0 })
local T      = rc.param("T", 1.0, { above = 0 })
local lc     = rc.param("lc", 1.0, { above = 0 })
local msh    = rc.param("msh", "")
local mesh_kind = rc.param("mesh", "gmsh", { one_of = { "gmsh", "structured" } })
local tol    = rc.param("tol", 1e-10, { above = 0 })
local mu     = rc.param("mu", 0.5, { min = 0 })
local e      = rc.param("e", 0.0, { min = 0, max = 1 })
local d      = rc.param("d", -0.005, { max = 0 })
local sigma  = rc.param("sigma", 2.0, { min = 0 })
local named  = rc.param("named", false)
local law    = rc.param("law", "newton", { one_of = { "newton", "moreau", "fremond", "lua-coulomb", "lua-fremond" } })
local e_t    = rc.param("e_t", 0.0, { min = 0, max = 1 })   -- tangential restitution of law=moreau (eq. 58)

local B, Hb, thickness = 40.0, 25.0, 15.0

-- The structured mesh: nx x ny cells (rc.fem_rectangle: node (i, j) is j (nx + 1) + i + 1).
local function rectangle()
  local nx, ny = math.max(1, math.floor(B / lc + 0.5)), math.max(1, math.floor(Hb / lc + 0.5))
  return rc.fem_rectangle{ width = B, height = Hb, nx = nx, ny = ny }
end

-- the Gmsh mesh at lc: the committed file when there is one, else gmsh on the .geo
local function gmsh_mesh()
  local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
  local committed = { [1.0] = "meshes/acary2024_block_lc1.msh", [5.0] = "meshes/acary2024_block_lc5.msh" }
  if committed[lc] then return rc.read_msh(here .. committed[lc]) end
  return rc.gmsh{ geo = here .. "acary2024_block.geo", lc = lc }
end

local mesh
if msh ~= "" then mesh = rc.read_msh(msh)
elseif mesh_kind == "gmsh" then mesh = gmsh_mesh()
else mesh = rectangle() end
for _, s in ipairs{ "bottom", "top" } do
  if not mesh.node_sets[s] then error(string.format("the mesh has no node set '%s' (a physical group)", s), 0) end
end
if not mesh.edge_sets.left then error("the mesh has no edge set 'left' (a physical curve)", 0) end

local w = rc.world{ gravity = { 0, -1e-3 } }
local block = w:fem{ name = "block", mesh = mesh, E = 5.75e3, nu = 0.358, rho = 1.17e-3, thickness = thickness,
                     plane = "stress", mass = "consistent", gravity = true }
w:fem_contact{ block, nodes = "bottom", halfplane = { point = { 0, 0 }, normal = { 0, 1 } },
               law = rc.laws.make(law, { e = e, mu = mu, e_t = e_t }), name = named and "C" or nil }
if not block.prescribe or not block.solve_static then
  error("this script needs body:prescribe and body:solve_static (finite-element boundary conditions)", 0)
end
block:traction{ set = "left", t = function(t)
  local s = math.sin(4 * math.pi * t)
  return sigma * (s > 0 and 1 or s < 0 and -1 or 0), 0
end }

-- the static initial state: the top prescribed, the bottom pinned (prescribed at 0 for the
-- solve, so that body:reactions() gives each bottom node's force), then the bottom released
block:prescribe{ set = "bottom", ux = 0, uy = 0 }
block:prescribe{ set = "top", uy = d }
local static = block:solve_static{ t = 0 }
local R = block:reactions()   -- per coordinate
block:release()
block:prescribe{ set = "top", uy = d }
-- its bottom reactions: compressive, in the cone
local worst, RN = 0, 0
for _, k in ipairs(block.sets.bottom) do
  local ix, iy = block:dofs(k)
  local r = { R[ix], R[iy] }
  if not (r and r[2] > 0) then error(string.format("node %d: the static bottom reaction is not compressive", k), 0) end
  worst = math.max(worst, math.abs(r[1]) / (mu * r[2]))
  RN = RN + r[2]
end
print(string.format("static state: %d nodes, %d bottom nodes, normal load %.6g N (set: %.6g), largest |R_T| / (mu R_N) = %.4g (%s the cone), residual %.2g",
                    block.fem.nnodes, #block.sets.bottom, RN, static.reactions.bottom[2], worst, worst <= 1 and "inside" or "OUTSIDE",
                    static.residual))

local sim = w:simulation{ scheme = scheme, theta = theta, h = h, solver = { "nsgs", tol = tol, max_iter = 2000 } }
local summary = sim:run{ T = T }
local st = sim:stats()
summary.max_WT_pos, summary.min_WT_neg = st.max_WT_pos, st.min_WT_neg
summary.static_cone_ratio, summary.static_normal_load = worst, RN
print(string.format("tangential work of a contact in a step: largest positive %.6e, smallest negative %.6e",
                    st.max_WT_pos, st.min_WT_neg))
-- the figures beside the history (with --out): Figs 9-10 (a)-(b) and (c)-(d)
if summary.out then
  local plot = require "ricochet.plot"
  local hc = plot.read_history(summary.out).cols
  local n = #hc.t
  local dE, WD = {}, {}
  local work = hc.W_ext
  for i = 1, n do
    dE[i] = hc.E[i] - hc.E[1]
    WD[i] = hc.W_ext[i] + hc.W_J[i] + hc.W_proj[i] + hc.dissipation[i]
  end
  local function s(name, y) return { name = name, y = y or hc[name] } end
  local title = string.format("sliding block (Acary & Collins-Craft 2024), %s, h = %g, lc = %g", scheme, h, lc)
  plot.svg{ file = summary.out .. "/energy.svg", x = hc.t, xlabel = "t [ms]", title = title,
            panels = { { title = "energies", series = { s("E_kin"), s("E_elastic"), s("E") }, ylabel = "energy [mJ]" },
                       { title = "work + dissipation against the energy change",
                         series = { s("E - E0", dE), s("W_ext + W_J + dissipation", WD), s("W_ext", work), s("dissipation") },
                         ylabel = "energy [mJ]" } } }
  plot.svg{ file = summary.out .. "/tangential_work.svg", x = hc.t, xlabel = "t [ms]", title = title,
            panels = { { title = "largest positive tangential work of a contact, per step", series = { s("WT_max_pos") }, ylabel = "[mJ]" },
                       { title = "smallest negative tangential work of a contact, per step", series = { s("WT_min_neg") }, ylabel = "[mJ]" } } }
end
return summary
