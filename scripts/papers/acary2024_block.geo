// acary2024_block.geo -- the PMMA block of Acary & Collins-Craft 2024, §5.3
// (the sliding block, Figs 7-10): b = 40 mm wide, h = 25 mm high, origin at
// the bottom-left corner, y up (units mm, as in the paper). The
// characteristic length lc (mm, default 1: the paper's mesh) is a parameter:
//   gmsh acary2024_block.geo -2 -format msh41 -setnumber lc 5 -o block.msh
// or, from Lua, rc.gmsh{ geo = "acary2024_block.geo", lc = 5 } (docs/meshes.md).
// Physical groups: the edges "bottom", "right", "top", "left" (node and edge
// sets of rc.read_msh) and the surface "block" (its triangles).
// Committed meshes: meshes/acary2024_block_lc1.msh, _lc5.msh (gmsh 4.8.4).
DefineConstant[ lc = {1, Min 0.05, Max 25, Name "Parameters/characteristic length (mm)"} ];
b = 40;
h = 25;
Point(1) = {0, 0, 0, lc};
Point(2) = {b, 0, 0, lc};
Point(3) = {b, h, 0, lc};
Point(4) = {0, h, 0, lc};
Line(1) = {1, 2};   // bottom
Line(2) = {2, 3};   // right
Line(3) = {3, 4};   // top
Line(4) = {4, 1};   // left
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("bottom") = {1};
Physical Curve("right") = {2};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Surface("block") = {1};
