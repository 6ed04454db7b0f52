--[[
ricochet.lp -- a small dense linear-programming solver.

    local lp = require "ricochet.lp"
    local r = lp.solve{ c = { 1, 1 }, sense = "max",
                        A_le = { { 1, 2 }, { 3, 1 } }, b_le = { 4, 6 } }
    -- r.status == "optimal", r.x = { 1.6, 1.2 }, r.value = 2.8

    minimise (or maximise) c.x
    subject to  A_eq x = b_eq,  A_le x <= b_le,  A_ge x >= b_ge,
                x_j >= 0, except the variables listed in 'free'.

The method is the textbook two-phase primal simplex on a dense tableau
(Dantzig, Linear Programming and Extensions, ch. 5-6; Chvatal, Linear
Programming, ch. 2-3): phase 1 minimises the sum of artificial variables
from the slack/artificial basis, phase 2 the objective. Entering column:
the most negative reduced cost (Dantzig's rule); after a run of degenerate
pivots the solver switches to Bland's rule (smallest index enters, smallest
basic index leaves among ties) until the next non-degenerate pivot, which
excludes cycling. Leaving row: the minimum ratio, among near-ties the
largest pivot. Dependent equality rows are removed beforehand (Gaussian
elimination with partial pivoting); the tableau is rebuilt from the
original rows (B^-1 A by Gauss-Jordan) every `refactor` pivots (100), and
before a solution is returned when 25 or more pivots were made since.

lp.problem{...} keeps the feasible basis: problem:solve(c, sense) for many
objectives over one feasible set (phase 1 once, every further solve
starts from the last optimal basis: a few pivots each).

Sizes: a few hundred rows and columns (O(m n) per pivot). Tolerances are
absolute: scale the data to O(1).

Reference: docs/lua-api.md, "ricochet.lp".
]]

local lp = {}

local abs, huge, mtype = math.abs, math.huge, math.type
local fmt = string.format

------------------------------------------------------------------ errors

local THIS = debug.getinfo(1, "S").source

-- Raise at the first Lua frame outside this file (the caller's line).
local function fail(fname, f, ...)
    local msg = fname .. ": " .. fmt(f, ...)
    local level = 2
    while true do
        local info = debug.getinfo(level, "S")
        if not info then error(msg, 0) end
        if info.what ~= "C" and info.source ~= THIS and not info.source:match("[/\\]ricochet[/\\]init%.lua$") then
            break
        end
        level = level + 1
    end
    error(msg, level)
end

local function isfinite(x) return x == x and x ~= huge and x ~= -huge end

local function show(v)
    if type(v) == "number" then
        if v ~= v then return "nan" end
        if v == huge or v == -huge then return v > 0 and "inf" or "-inf" end
        if mtype(v) == "integer" then return tostring(v) end
        return fmt("%.17g", v)
    end
    if type(v) == "string" then return "'" .. v .. "'" end
    if v == nil or type(v) == "boolean" then return tostring(v) end
    return "a " .. type(v)
end

local function check_vector(fname, key, v, n)
    if type(v) ~= "table" then fail(fname, "'%s' must be a list of numbers (got %s)", key, show(v)) end
    if n and #v ~= n then fail(fname, "'%s' must have %d entries (got %d)", key, n, #v) end
    for i = 1, #v do
        local x = v[i]
        if type(x) ~= "number" then fail(fname, "'%s[%d]' must be a number (got %s)", key, i, show(x)) end
        if not isfinite(x) then fail(fname, "'%s[%d]' must be a finite number (got %s)", key, i, show(x)) end
    end
    for k in pairs(v) do
        if not (mtype(k) == "integer" and k >= 1 and k <= #v) then
            fail(fname, "'%s' must be a list of numbers (unexpected entry %s)", key, show(k))
        end
    end
    return v
end

-- A, b of one kind of constraint: rows of n numbers and as many right-hand sides.
local function check_rows(fname, t, akey, bkey, n)
    local A, b = t[akey], t[bkey]
    if A == nil and b == nil then return {}, {} end
    if A == nil then fail(fname, "'%s' is given without '%s'", bkey, akey) end
    if b == nil then fail(fname, "'%s' is given without '%s'", akey, bkey) end
    if type(A) ~= "table" then fail(fname, "'%s' must be a list of rows (got %s)", akey, show(A)) end
    check_vector(fname, bkey, b)
    if #A ~= #b then fail(fname, "'%s' has %d rows but '%s' has %d entries", akey, #A, bkey, #b) end
    for i = 1, #A do check_vector(fname, fmt("%s[%d]", akey, i), A[i], n) end
    return A, b
end

local PROBLEM_KEYS = { n = true, A_eq = true, b_eq = true, A_le = true, b_le = true, A_ge = true, b_ge = true,
                       free = true, tol = true, max_iter = true, refactor = true }

local function check_keys(fname, t, allowed)
    for k in pairs(t) do
        if not allowed[k] then
            local names = {}
            for a in pairs(allowed) do names[#names + 1] = a end
            table.sort(names)
            fail(fname, "unknown key %s (allowed: %s)", show(k), table.concat(names, ", "))
        end
    end
end

local function positive_number(fname, key, v, default)
    if v == nil then return default end
    if type(v) ~= "number" or not isfinite(v) then fail(fname, "'%s' must be a finite number (got %s)", key, show(v)) end
    if not (v > 0) then fail(fname, "'%s' must be > 0 (got %s)", key, show(v)) end
    return v
end

------------------------------------------------------------------ the tableau

local Problem = { __name = "ricochet.lp.problem" }
Problem.__index = Problem
lp.Problem = Problem

local DEGENERATE_RUN = 30      -- degenerate pivots in a row before Bland's rule

-- Pivot on (r, s): row r divided by T[r][s], column s eliminated from the
-- other rows and from the reduced costs d (columns 1..S.ncol).
local function pivot(S, r, s)
    local T, rhs, ncol, m = S.T, S.rhs, S.ncol, S.m
    local pr = T[r]
    local inv = 1.0 / pr[s]
    local nz, nnz = S.nz, 0
    for j = 1, ncol do
        local v = pr[j]
        if v ~= 0 then
            pr[j] = v * inv
            nnz = nnz + 1
            nz[nnz] = j
        end
    end
    pr[s] = 1.0
    local br = rhs[r] * inv
    rhs[r] = br
    for i = 1, m do
        if i ~= r then
            local row = T[i]
            local f = row[s]
            if f ~= 0 then
                for k = 1, nnz do
                    local j = nz[k]
                    row[j] = row[j] - f * pr[j]
                end
                row[s] = 0.0
                rhs[i] = rhs[i] - f * br
            end
        end
    end
    local d = S.d
    local f = d[s]
    if f ~= 0 then
        for k = 1, nnz do
            local j = nz[k]
            d[j] = d[j] - f * pr[j]
        end
        d[s] = 0.0
    end
    S.isbasic[S.basis[r]] = nil
    S.basis[r] = s
    S.isbasic[s] = r
    S.pivots = S.pivots + 1
    S.since_refactor = S.since_refactor + 1
end

-- Reduced costs d_j = c_j - c_B . T_j over columns 1..ncol.
local function reduced_costs(S, cost)
    local d, T, basis = S.d, S.T, S.basis
    for j = 1, S.ncol do d[j] = cost[j] or 0.0 end
    for i = 1, S.m do
        local cb = cost[basis[i]] or 0.0
        if cb ~= 0 then
            local row = T[i]
            for j = 1, S.ncol do
                local v = row[j]
                if v ~= 0 then d[j] = d[j] - cb * v end
            end
        end
    end
    for i = 1, S.m do d[basis[i]] = 0.0 end
end

-- Rebuild T = B^-1 A0 and rhs = B^-1 b0 from the original rows (Gauss-Jordan
-- on the basic columns, partial pivoting). Returns false if B is singular.
local function refactor(S, cost)
    local m, ncol = S.m, S.ncol
    local A0, b0 = S.A0, S.b0
    local M, r = {}, {}
    for i = 1, m do
        local row = {}
        local src = A0[i]
        for j = 1, ncol do row[j] = src[j] end
        M[i], r[i] = row, b0[i]
    end
    local basis = S.basis
    for k = 1, m do
        local s = basis[k]
        local best, bi = -1, nil
        for i = k, m do
            local v = abs(M[i][s])
            if v > best then best, bi = v, i end
        end
        if best < 1e-12 then return false end
        M[k], M[bi] = M[bi], M[k]
        r[k], r[bi] = r[bi], r[k]
        local pr = M[k]
        local inv = 1.0 / pr[s]
        for j = 1, ncol do pr[j] = pr[j] * inv end
        pr[s] = 1.0
        r[k] = r[k] * inv
        for i = 1, m do
            if i ~= k then
                local row = M[i]
                local f = row[s]
                if f ~= 0 then
                    for j = 1, ncol do
                        local v = pr[j]
                        if v ~= 0 then row[j] = row[j] - f * v end
                    end
                    row[s] = 0.0
                    r[i] = r[i] - f * r[k]
                end
            end
        end
    end
    for i = 1, m do
        if r[i] < 0 and r[i] > -S.ftol then r[i] = 0.0 end
        S.T[i], S.rhs[i] = M[i], r[i]
    end
    S.since_refactor = 0
    if cost then reduced_costs(S, cost) end
    return true
end

-- Primal simplex from a feasible basis over columns 1..ncol, minimising
-- cost. Returns "optimal", "unbounded" (and the entering column) or
-- "iteration_limit".
local function simplex(S, cost)
    reduced_costs(S, cost)
    local T, rhs, d, m, ncol = S.T, S.rhs, S.d, S.m, S.ncol
    local isbasic, basis = S.isbasic, S.basis
    local dtol, ptol = S.dtol, S.ptol
    local degenerate, bland = 0, false
    local limit = S.pivots + S.max_iter
    while true do
        if S.since_refactor >= S.refactor_every and S.can_refactor then
            refactor(S, cost)
            T, rhs = S.T, S.rhs
        end
        -- entering column
        local s, best = nil, -dtol
        if bland then
            for j = 1, ncol do
                if not isbasic[j] and d[j] < -dtol then s = j; break end
            end
        else
            for j = 1, ncol do
                local v = d[j]
                if v < best and not isbasic[j] then s, best = j, v end
            end
        end
        if not s then return "optimal" end
        if S.pivots >= limit then return "iteration_limit" end
        -- leaving row: minimum ratio; among near-ties the largest pivot
        -- (Bland: the smallest basic index)
        local theta = huge
        for i = 1, m do
            local a = T[i][s]
            if a > ptol then
                local b = rhs[i]
                if b < 0 then b = 0 end
                local q = b / a
                if q < theta then theta = q end
            end
        end
        if theta == huge then return "unbounded", s end
        local r, rbest = nil, nil
        local tie = theta + 1e-12 * (1 + theta)
        for i = 1, m do
            local a = T[i][s]
            if a > ptol then
                local b = rhs[i]
                if b < 0 then b = 0 end
                if b / a <= tie then
                    if bland then
                        if not r or basis[i] < rbest then r, rbest = i, basis[i] end
                    elseif not r or a > rbest then
                        r, rbest = i, a
                    end
                end
            end
        end
        if theta <= 1e-14 then
            degenerate = degenerate + 1
            if degenerate >= DEGENERATE_RUN then bland = true end
        else
            degenerate, bland = 0, false
        end
        pivot(S, r, s)
        if rhs[r] < 0 then rhs[r] = 0.0 end
    end
end

------------------------------------------------------------------ set-up

-- Keep the equality rows that are linearly independent (rows scaled to a
-- unit largest entry, Gaussian elimination with partial pivoting); a
-- dependent row with an inconsistent right-hand side makes the problem
-- infeasible. Returns the kept row indices, or nil.
local function independent_rows(A, b, n, tol)
    local kept, pivots = {}, {}
    for i = 1, #A do
        local row, scale = {}, 0
        for j = 1, n do
            row[j] = A[i][j]
            if abs(row[j]) > scale then scale = abs(row[j]) end
        end
        local rb = b[i]
        if scale > 0 then
            for j = 1, n do row[j] = row[j] / scale end
            rb = rb / scale
        end
        for _, p in ipairs(pivots) do
            local f = row[p.col]
            if f ~= 0 then
                local pr = p.row
                for j = 1, n do row[j] = row[j] - f * pr[j] end
                rb = rb - f * p.rhs
            end
        end
        local big, col = 0, nil
        for j = 1, n do
            if abs(row[j]) > big then big, col = abs(row[j]), j end
        end
        if big > 1e-10 then
            local inv = 1.0 / row[col]
            for j = 1, n do row[j] = row[j] * inv end
            pivots[#pivots + 1] = { row = row, col = col, rhs = rb * inv }
            kept[#kept + 1] = i
        elseif abs(rb) > tol * (1 + abs(b[i]) / (scale > 0 and scale or 1)) then
            return nil
        end
    end
    return kept
end

-- lp.problem{ A_eq, b_eq, A_le, b_le, A_ge, b_ge, free, n, tol, max_iter, refactor }
function lp.problem(t)
    local fname = "lp.problem"
    if type(t) ~= "table" then fail(fname, "expected a table argument, e.g. lp.problem{ A_eq = {{1, 1}}, b_eq = {1} }") end
    check_keys(fname, t, PROBLEM_KEYS)
    local n = t.n
    if n ~= nil and (mtype(n) ~= "integer" or n < 1) then fail(fname, "'n' must be an integer >= 1 (got %s)", show(n)) end
    if n == nil then
        for _, k in ipairs{ "A_eq", "A_le", "A_ge" } do
            local A = t[k]
            if type(A) == "table" and type(A[1]) == "table" then n = #A[1]; break end
        end
    end
    if n == nil or n < 1 then fail(fname, "give 'n' (the number of variables) or at least one constraint row") end
    return lp._problem(fname, t, n)
end

function lp._problem(fname, t, n)
    local Aeq, beq = check_rows(fname, t, "A_eq", "b_eq", n)
    local Ale, ble = check_rows(fname, t, "A_le", "b_le", n)
    local Age, bge = check_rows(fname, t, "A_ge", "b_ge", n)
    local tol = positive_number(fname, "tol", t.tol, 1e-9)
    local max_iter = t.max_iter
    if max_iter ~= nil and (mtype(max_iter) ~= "integer" or max_iter < 1) then
        fail(fname, "'max_iter' must be an integer >= 1 (got %s)", show(max_iter))
    end
    local refactor_every = t.refactor
    if refactor_every ~= nil and (mtype(refactor_every) ~= "integer" or refactor_every < 1) then
        fail(fname, "'refactor' must be an integer >= 1 (got %s)", show(refactor_every))
    end
    local isfree = {}
    if t.free ~= nil then
        if type(t.free) ~= "table" then fail(fname, "'free' must be a list of variable indices (got %s)", show(t.free)) end
        for k, j in pairs(t.free) do
            if not (mtype(k) == "integer" and k >= 1 and k <= #t.free) then
                fail(fname, "'free' must be a list of variable indices (unexpected entry %s)", show(k))
            end
            if mtype(j) ~= "integer" or j < 1 or j > n then
                fail(fname, "'free[%d]' must be a variable index in [1, %d] (got %s)", k, n, show(j))
            end
            isfree[j] = true
        end
    end

    local S = setmetatable({ n = n, tol = tol, ftol = tol, dtol = tol, ptol = 1e-9,
                             pivots = 0, since_refactor = 0, refactor_every = refactor_every or 100,
                             clean_every = math.min(refactor_every or 100, 25),
                             nz = {}, isbasic = {}, basis = {}, d = {} }, Problem)
    -- columns: x_j (x_j+), x_j- for free variables, then slacks, then artificials
    local pos, neg, ncol = {}, {}, 0
    for j = 1, n do
        ncol = ncol + 1; pos[j] = ncol
        if isfree[j] then ncol = ncol + 1; neg[j] = ncol end
    end
    S.pos, S.neg = pos, neg

    local kept = independent_rows(Aeq, beq, n, tol)
    if not kept then
        S.status = "infeasible"
        S.dropped = 0
        return S
    end
    S.dropped = #Aeq - #kept
    local rows = {}   -- { a = row over x, b, slack = +1 | -1 | nil }
    for _, i in ipairs(kept) do rows[#rows + 1] = { a = Aeq[i], b = beq[i] } end
    for i = 1, #Ale do rows[#rows + 1] = { a = Ale[i], b = ble[i], slack = 1 } end
    for i = 1, #Age do rows[#rows + 1] = { a = Age[i], b = bge[i], slack = -1 } end
    local m = #rows
    for _, row in ipairs(rows) do
        if row.slack then ncol = ncol + 1; row.scol = ncol end
    end
    local nstruct = ncol   -- structural + slack columns
    -- every row with b >= 0 (flipped otherwise); a +1 slack starts basic, else an artificial
    local A0, b0 = {}, {}
    local T, rhs, basis, isbasic = {}, {}, {}, {}
    local nart = 0
    local artrow = {}
    for i, row in ipairs(rows) do
        local sgn = row.b < 0 and -1.0 or 1.0
        local r = {}
        for j = 1, nstruct do r[j] = 0.0 end
        for j = 1, n do
            local v = row.a[j]
            if v ~= 0 then
                r[pos[j]] = sgn * v
                if neg[j] then r[neg[j]] = -sgn * v end
            end
        end
        if row.slack then r[row.scol] = sgn * row.slack end
        A0[i], b0[i] = r, sgn * row.b
        if row.slack and sgn * row.slack > 0 then
            basis[i] = row.scol
        else
            nart = nart + 1
            artrow[nart] = i
        end
    end
    local total = nstruct + nart
    for i = 1, m do
        local r = {}
        local src = A0[i]
        for j = 1, nstruct do r[j] = src[j] end
        for j = nstruct + 1, total do r[j] = 0.0 end
        T[i], rhs[i] = r, b0[i]
    end
    for k = 1, nart do
        local i = artrow[k]
        T[i][nstruct + k] = 1.0
        basis[i] = nstruct + k
    end
    for i = 1, m do isbasic[basis[i]] = i end
    S.T, S.rhs, S.basis, S.isbasic, S.A0, S.b0 = T, rhs, basis, isbasic, A0, b0
    S.m, S.nstruct, S.ncol = m, nstruct, total
    S.max_iter = max_iter or (50 * (m + total) + 1000)
    S.can_refactor = false   -- artificial columns are not in A0

    -- phase 1: minimise the sum of the artificials
    local status = "optimal"
    if nart > 0 then
        local cost = {}
        for k = 1, nart do cost[nstruct + k] = 1.0 end
        status = simplex(S, cost)
        local infeas = 0
        for i = 1, m do
            if basis[i] > nstruct then infeas = infeas + rhs[i] end
        end
        S.phase1_pivots = S.pivots
        if status == "iteration_limit" then S.status = "iteration_limit"; return S end
        if infeas > tol * (1 + S:_bnorm()) then
            S.status = "infeasible"
            S.infeasibility = infeas
            return S
        end
        -- drive the artificials (at zero) out of the basis; a row without a
        -- structural entry is numerically dependent: drop it
        local i = 1
        while i <= S.m do
            if basis[i] > nstruct then
                local row, best, col = T[i], 1e-9, nil
                for j = 1, nstruct do
                    if not isbasic[j] and abs(row[j]) > best then best, col = abs(row[j]), j end
                end
                if col then
                    rhs[i] = 0.0
                    pivot(S, i, col)
                    i = i + 1
                else
                    isbasic[basis[i]] = nil
                    table.remove(T, i); table.remove(rhs, i); table.remove(basis, i)
                    table.remove(A0, i); table.remove(b0, i)
                    S.m = S.m - 1
                    S.dropped = S.dropped + 1
                    for k = i, S.m do isbasic[basis[k]] = k end
                    S.no_refactor = true
                end
            else
                i = i + 1
            end
        end
    end
    -- phase 2 works on the structural and slack columns only
    S.ncol = nstruct
    for i = 1, S.m do
        local r = T[i]
        for j = nstruct + 1, total do r[j] = nil end
        if rhs[i] < 0 then rhs[i] = 0.0 end
    end
    S.can_refactor = not S.no_refactor
    S.status = "feasible"
    return S
end

function Problem:_bnorm()
    local s = 0
    for i = 1, #self.b0 do s = math.max(s, abs(self.b0[i])) end
    return s
end

-- x (the n original variables) of the current basis.
local function solution(S)
    local xc = {}
    for i = 1, S.m do xc[S.basis[i]] = S.rhs[i] end
    local x = {}
    for j = 1, S.n do
        local v = xc[S.pos[j]] or 0.0
        if S.neg[j] then v = v - (xc[S.neg[j]] or 0.0) end
        x[j] = v
    end
    return x
end

-- problem:solve(c, sense) -> { status, x, value, iterations, ray }
--   status: "optimal", "unbounded", "infeasible" or "iteration_limit";
--   ray (unbounded): a direction of the feasible set along which c.x
--   improves without bound.
function Problem:solve(c, sense)
    local fname = "problem:solve"
    if getmetatable(self) ~= Problem then fail(fname, "expected an lp problem (call it as problem:solve(c))") end
    check_vector(fname, "c", c, self.n)
    if sense ~= nil and sense ~= "min" and sense ~= "max" then
        fail(fname, "'sense' must be \"min\" or \"max\" (got %s)", show(sense))
    end
    return self:_solve(c, sense or "min")
end

function Problem:_solve(c, sense)
    local S = self
    local p0 = S.pivots
    if S.status ~= "feasible" then
        return { status = S.status, iterations = 0 }
    end
    local sg = sense == "max" and -1.0 or 1.0
    local cost = {}
    for j = 1, S.n do
        local v = sg * c[j]
        cost[S.pos[j]] = v
        if S.neg[j] then cost[S.neg[j]] = -v end
    end
    local status, s = simplex(S, cost)
    if status == "unbounded" then
        local dir = {}
        dir[s] = 1.0
        for i = 1, S.m do dir[S.basis[i]] = -S.T[i][s] end
        local ray = {}
        for j = 1, S.n do
            local v = dir[S.pos[j]] or 0.0
            if S.neg[j] then v = v - (dir[S.neg[j]] or 0.0) end
            ray[j] = v
        end
        return { status = "unbounded", ray = ray, x = solution(S), iterations = S.pivots - p0 }
    end
    if status == "optimal" and S.can_refactor and S.since_refactor >= S.clean_every then
        -- clean x_B from the original rows; re-optimise if round-off moved it
        refactor(S, nil)
        local again = simplex(S, cost)
        if again ~= "optimal" then status = again end
    end
    local x = solution(S)
    local value = 0.0
    for j = 1, S.n do value = value + c[j] * x[j] end
    return { status = status, x = x, value = value, iterations = S.pivots - p0 }
end

-- lp.solve{ c, sense = "min" | "max", A_eq, b_eq, A_le, b_le, A_ge, b_ge, free, tol, max_iter, refactor }
function lp.solve(t)
    local fname = "lp.solve"
    if type(t) ~= "table" then
        fail(fname, "expected a table argument, e.g. lp.solve{ c = {1, 1}, A_le = {{1, 2}}, b_le = {4} }")
    end
    local keys = { c = true, sense = true }
    for k in pairs(PROBLEM_KEYS) do keys[k] = true end
    check_keys(fname, t, keys)
    if t.c == nil then fail(fname, "'c' (the objective coefficients) is required") end
    check_vector(fname, "c", t.c)
    local n = #t.c
    if n < 1 then fail(fname, "'c' must have at least one entry") end
    if t.n ~= nil and t.n ~= n then fail(fname, "'n' (%s) differs from the length of 'c' (%d)", show(t.n), n) end
    if t.sense ~= nil and t.sense ~= "min" and t.sense ~= "max" then
        fail(fname, "'sense' must be \"min\" or \"max\" (got %s)", show(t.sense))
    end
    local P = lp._problem(fname, t, n)
    local r = P:_solve(t.c, t.sense or "min")
    r.pivots = P.pivots
    return r
end

return lp
