#!/usr/bin/env python3
"""Derive a compact bitsliced circuit for the SM4 S-box (GB/T 32907-2016).

sm4_core.h used to compute S(x) = A * inv(A * x + c) + c with the inversion
in GF(2^8) modulo x^8+x^7+x^6+x^5+x^4+x^2+1 (0x1f5) by generic multiplications
(800+ gates). This script rebuilds the S-box as

    S(x) = B * z(L * x + e) + c_out,

where z is the non-linear middle section of Boyar and Peralta's AES S-box
circuit ("A new combinational logic minimization technique with applications
to cryptology", SEA 2010; "A depth-16 circuit for the AES S-box", 2012):
inversion in AES's field GF(2^8)/0x11b through the tower GF(((2^2)^2)^2),
32 ANDs and 30 XORs from 22 linear forms of its input byte to 18 products
z0..z17 which determine the inverse linearly. Everything around it is
derived here:

  1. check S(x) = A inv_1f5(A x + c) + c against the standard's table;
  2. the field isomorphism T: GF(2^8)/0x1f5 -> GF(2^8)/0x11b (x -> root b of
     0x1f5), together with one of the 2040 maps phi(u) = a * u^(2^k) that
     commute with inversion up to a linear map on the output
     (inv(a u^(2^k)) = a^-1 inv(u)^(2^k)): L = phi T A, e = phi T c;
  3. the top layer: the 22 forms of Boyar-Peralta's middle section composed
     with L (constants from e), as XORs of the 8 input planes;
  4. the bottom layer: the 8x18 matrix B and c_out with
     S(x) = B z + c_out, solved over GF(2) from the table itself;
  5. both linear layers as short XOR programs, by a greedy common-
     subexpression search (Paar's algorithm, randomised ties; the best over
     every (k, a) and a number of random restarts is kept), constants folded
     into XNORs where the XOR program allows it and NOTs where it does not;
  6. the whole straight-line program evaluated on all 256 inputs (bitsliced,
     one Python integer per plane) against the table;
  7. the C++ of sbox_planes() for src/sm4/sm4_core.h.

    python3 tools/sm4_sbox_circuit.py            # derive, verify, print counts
    python3 tools/sm4_sbox_circuit.py --emit     # ... and print the C++ body
    python3 tools/sm4_sbox_circuit.py --check F  # ... and check that file F
                                                 # contains exactly that C++

The search is deterministic (fixed seed). Plain python3, no packages.
"""

import random
import sys

# --- The standard -----------------------------------------------------------
SBOX = bytes.fromhex(
    "d690e9fecce13db716b614c228fb2c052b679a762abe04c3aa44132649860699"
    "9c4250f491ef987a33540b43edcfac62e4b31ca9c908e89580df94fa758f3fa6"
    "4707a7fcf37317ba83593c19e6854fa8686b81b27164da8bf8eb0f4b70569d35"
    "1e240e5e6358d1a225227c3b01217887d40046579fd327524c3602e7a0c4c89e"
    "eabf8ad240c738b5a3f7f2cef96115a1e0ae5da49b341a55ad933230f58cb1e3"
    "1df6e22e8266ca60c02923ab0d534e6fd5db3745defd8e2f03ff6a726d6c5b51"
    "8d1baf92bbddbc7f11d95c411f105ad80ac13188a5cd7bbd2d74d012b8e5b4b0"
    "8969974a0c96777e65b9f109c56ec68418f07dec3adc4d2079ee5f3ed7cb3948")
assert len(SBOX) == 256

SM4_POLY = 0x1F5       # sm4_core.h kFieldPoly
SM4_ROW0 = 0xA7        # sm4_core.h kAffineRow0: row i of A is 0xa7 <<< i
SM4_CONST = 0xD3       # sm4_core.h kAffineConstant
AES_POLY = 0x11B


def gf_mul(a, b, poly):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a & 0x100:
            a ^= poly
    return r


def gf_inv(a, poly):
    if a == 0:
        return 0
    return next(y for y in range(1, 256) if gf_mul(a, y, poly) == 1)


def parity(v):
    return bin(v).count("1") & 1


# 8x8 matrices over GF(2) as lists of columns (column j = image of bit j).
def apply(m, x):
    y = 0
    for j in range(8):
        if (x >> j) & 1:
            y ^= m[j]
    return y


def from_function(f):
    return [f(1 << j) for j in range(8)]


def inverse(m):
    r = [0] * 8
    for x in range(256):
        y = apply(m, x)
        if y & (y - 1) == 0 and y:
            r[y.bit_length() - 1] = x
    assert all(r) and all(apply(m, apply(r, 1 << j)) == 1 << j for j in range(8))
    return r


def rotl8(v, i):
    return ((v << i) | (v >> ((8 - i) & 7))) & 0xFF


A = from_function(lambda x: sum(parity(rotl8(SM4_ROW0, i) & x) << i for i in range(8)))

# --- 1. The affine decomposition of sm4_core.h --------------------------------
for x in range(256):
    assert apply(A, gf_inv(apply(A, x) ^ SM4_CONST, SM4_POLY)) ^ SM4_CONST == SBOX[x]

# --- 2. Into AES's field ------------------------------------------------------
def poly_at(poly, b):
    acc, power = 0, 1
    for k in range(9):
        if (poly >> k) & 1:
            acc ^= power
        power = gf_mul(power, b, AES_POLY)
    return acc


ROOTS = [b for b in range(2, 256) if poly_at(SM4_POLY, b) == 0]
assert len(ROOTS) == 8
ROOT = ROOTS[0]


def to_aes(x):  # T: x^j -> ROOT^j
    y, power = 0, 1
    for j in range(8):
        if (x >> j) & 1:
            y ^= power
        power = gf_mul(power, ROOT, AES_POLY)
    return y


T = from_function(to_aes)
for p in range(256):
    for q in range(0, 256, 7):
        assert to_aes(gf_mul(p, q, SM4_POLY)) == gf_mul(to_aes(p), to_aes(q), AES_POLY)
for x in range(256):
    assert gf_inv(x, SM4_POLY) == apply(inverse(T), gf_inv(to_aes(x), AES_POLY))

# --- Boyar-Peralta's middle section --------------------------------------------
# Their top layer, only to define the 22 forms the middle needs: x0..x7 are
# the bits of AES's inversion input, x0 the most significant. BP's "x7" as
# a form is renamed y0.
BP_TOP = """
y14 = x3 ^ x5
y13 = x0 ^ x6
y9 = x0 ^ x3
y8 = x0 ^ x5
s0 = x1 ^ x2
y1 = s0 ^ x7
y4 = y1 ^ x3
y12 = y13 ^ y14
y2 = y1 ^ x0
y5 = y1 ^ x6
y3 = y5 ^ y8
s1 = x4 ^ y12
y15 = s1 ^ x5
y20 = s1 ^ x1
y6 = y15 ^ x7
y10 = y15 ^ s0
y11 = y20 ^ y9
y7 = x7 ^ y11
y17 = y10 ^ y11
y19 = y10 ^ y8
y16 = s0 ^ y11
y21 = y13 ^ y16
y18 = x0 ^ y16
y0 = x7 ^ 0
"""

# Inversion in GF(((2^2)^2)^2) from the 22 forms to the 18 products.
BP_MIDDLE = """
t2 = y12 & y15
t3 = y3 & y6
t4 = t3 ^ t2
t5 = y4 & y0
t6 = t5 ^ t2
t7 = y13 & y16
t8 = y5 & y1
t9 = t8 ^ t7
t10 = y2 & y7
t11 = t10 ^ t7
t12 = y9 & y11
t13 = y14 & y17
t14 = t13 ^ t12
t15 = y8 & y10
t16 = t15 ^ t12
t17 = t4 ^ t14
t18 = t6 ^ t16
t19 = t9 ^ t14
t20 = t11 ^ t16
t21 = t17 ^ y20
t22 = t18 ^ y19
t23 = t19 ^ y21
t24 = t20 ^ y18
t25 = t21 ^ t22
t26 = t21 & t23
t27 = t24 ^ t26
t28 = t25 & t27
t29 = t28 ^ t22
t30 = t23 ^ t24
t31 = t22 ^ t26
t32 = t31 & t30
t33 = t32 ^ t24
t34 = t23 ^ t33
t35 = t27 ^ t33
t36 = t24 & t35
t37 = t36 ^ t34
t38 = t27 ^ t36
t39 = t29 & t38
t40 = t25 ^ t39
t41 = t40 ^ t37
t42 = t29 ^ t33
t43 = t29 ^ t40
t44 = t33 ^ t37
t45 = t42 ^ t41
z0 = t44 & y15
z1 = t37 & y6
z2 = t33 & y0
z3 = t43 & y16
z4 = t40 & y1
z5 = t29 & y7
z6 = t42 & y11
z7 = t45 & y17
z8 = t41 & y10
z9 = t44 & y12
z10 = t37 & y3
z11 = t33 & y4
z12 = t43 & y13
z13 = t40 & y5
z14 = t29 & y2
z15 = t42 & y9
z16 = t45 & y14
z17 = t41 & y8
"""


def parse(text):
    gates = []
    for line in text.strip().splitlines():
        dst, expr = (s.strip() for s in line.split("="))
        a, op, b = expr.split()
        gates.append((dst, op, a, b))
    return gates


FORMS = ["y%d" % i for i in range(22)]
PRODUCTS = ["z%d" % i for i in range(18)]
MIDDLE = parse(BP_MIDDLE)


def bp_forms():
    """Each form as a mask over the bits of AES's input byte."""
    val = {"x%d" % i: 1 << (7 - i) for i in range(8)}
    val["0"] = 0
    for dst, op, a, b in parse(BP_TOP):
        val[dst] = val[a] ^ val[b]
    return [val[f] for f in FORMS]


FORM_MASKS = bp_forms()
FULL = (1 << 256) - 1


def run(gates, val):
    """Evaluate gates on bitsliced values (ints, one bit per lane)."""
    for dst, op, a, b in gates:
        if op == "^":
            val[dst] = val[a] ^ val[b]
        elif op == "^~":
            val[dst] = val[a] ^ val[b] ^ FULL
        elif op == "&":
            val[dst] = val[a] & val[b]
        elif op == "~":
            val[dst] = val[a] ^ FULL
        elif op == "=":
            val[dst] = val[a]
        else:
            raise ValueError(op)
    return val


def planes_of(values):
    """Plane i of a list of 256 bytes: bit l is bit i of values[l]."""
    return [sum(((v >> i) & 1) << l for l, v in enumerate(values)) for i in range(8)]


def middle_products(u_planes):
    """z0..z17 (bitsliced) for AES-field inputs u given as 8 planes."""
    val = {}
    for f, m in zip(FORMS, FORM_MASKS):
        acc = 0
        for i in range(8):
            if (m >> i) & 1:
                acc ^= u_planes[i]
        val[f] = acc
    run(MIDDLE, val)
    return [val[z] for z in PRODUCTS]


def solve_linear(basis, targets):
    """Express each target (ints) as an XOR of basis vectors: list of index masks."""
    rows = []  # (vector, combination)
    for i, v in enumerate(basis):
        c = 1 << i
        for pv, pc in rows:
            if v ^ pv < v:
                v, c = v ^ pv, c ^ pc
        if v:
            rows.append((v, c))
            rows.sort(key=lambda r: -r[0])
    assert len(rows) == len(basis), "dependent basis"
    out = []
    for t in targets:
        c = 0
        for pv, pc in rows:
            if t ^ pv < t:
                t, c = t ^ pv, c ^ pc
        assert t == 0, "not in the span"
        out.append(c)
    return out


# The inverse in AES's field as a linear function of the products (checks our
# transcription of the middle section): inv(u) = B0 z(u).
U_ALL = planes_of(range(256))
Z_ALL = middle_products(U_ALL)
B0 = solve_linear(Z_ALL, planes_of([gf_inv(u, AES_POLY) for u in range(256)]))

# --- 5. Greedy XOR programs ----------------------------------------------------


def paar(rows, n_inputs, rng):
    """rows: output masks over n_inputs columns. Returns (program, out_cols):
    program is a list of (a, b) column pairs, new column n_inputs + k; each
    output ends up as one column (out_cols)."""
    rows = list(rows)
    ncols = n_inputs
    program = []
    while True:
        counts = {}
        for r in rows:
            if r & (r - 1) == 0:
                continue
            bits = [i for i in range(ncols) if (r >> i) & 1]
            for x in range(len(bits)):
                for y in range(x + 1, len(bits)):
                    k = (bits[x], bits[y])
                    counts[k] = counts.get(k, 0) + 1
        if not counts:
            break
        best = max(counts.values())
        pair = rng.choice(sorted(k for k, v in counts.items() if v == best))
        new = ncols
        ncols += 1
        program.append(pair)
        both = (1 << pair[0]) | (1 << pair[1])
        rows = [(r & ~both) | (1 << new) if r & both == both else r for r in rows]
    out_cols = [r.bit_length() - 1 for r in rows]
    return program, out_cols


def best_paar(rows, n_inputs, tries, rng):
    best = None
    for _ in range(tries):
        prog, outs = paar(rows, n_inputs, rng)
        if best is None or len(prog) < len(best[0]):
            best = (prog, outs)
    return best


def fold_constants(program, n_inputs, out_cols, consts):
    """Choose which XORs of a program become XNORs so that output k gets
    constant consts[k]; outputs that no XNOR can reach get a NOT. Returns
    (flipped gate indices, outputs needing a NOT)."""
    n = len(program)
    # effect[g]: which outputs toggle when gate g is complemented.
    effect = []
    for g in range(n):
        tog = [0] * (n_inputs + n)
        tog[n_inputs + g] = 1
        for h in range(g + 1, n):
            a, b = program[h]
            tog[n_inputs + h] = tog[a] ^ tog[b]
        effect.append(sum(tog[c] << k for k, c in enumerate(out_cols)))
    want = sum(c << k for k, c in enumerate(consts))
    # Minimum-weight solution by brute force over a basis (small systems).
    basis = []  # (effect vector, gate set)
    for g in range(n):
        v, s = effect[g], 1 << g
        for bv, bs in basis:
            if v ^ bv < v:
                v, s = v ^ bv, s ^ bs
        if v:
            basis.append((v, s))
            basis.sort(key=lambda r: -r[0])
    v, s = want, 0
    for bv, bs in basis:
        if v ^ bv < v:
            v, s = v ^ bv, s ^ bs
    nots = [k for k in range(len(out_cols)) if (v >> k) & 1]
    # v != 0: what remains cannot be reached by XNORs (an output that is
    # an input column itself, say); build() gives those outputs a NOT of
    # their own.
    # Reduce the weight of s with the null space (gate sets with no effect).
    null = []
    for g in range(n):
        v2, s2 = effect[g], 1 << g
        for bv, bs in basis:
            if v2 ^ bv < v2:
                v2, s2 = v2 ^ bv, s2 ^ bs
        if v2 == 0:
            null.append(s2)
    best = s
    if len(null) <= 16:
        for m in range(1 << len(null)):
            t = s
            for i, ns in enumerate(null):
                if (m >> i) & 1:
                    t ^= ns
            if bin(t).count("1") < bin(best).count("1"):
                best = t
    return [g for g in range(n) if (best >> g) & 1], nots


# --- Choose the field map --------------------------------------------------------


def frob(u, k):
    for _ in range(k):
        u = gf_mul(u, u, AES_POLY)
    return u


def candidate(k, a):
    phi = lambda u: gf_mul(a, frob(u, k), AES_POLY)
    L = [phi(to_aes(col)) for col in A]                  # phi T A
    e = phi(to_aes(SM4_CONST))                            # phi T c
    # Top: form f (mask over u bits, u bit i = mask bit i... see bp_forms:
    # mask bit j is bit j of u) composed with u = L x + e.
    top_rows = [sum(parity(fm & L[j]) << j for j in range(8)) for fm in FORM_MASKS]
    top_consts = [parity(fm & e) for fm in FORM_MASKS]
    # Bottom: S(x) as linear in z(L x + e) plus a constant.
    u_of_x = [apply(L, x) ^ e for x in range(256)]
    z = middle_products(planes_of(u_of_x))
    s_planes = planes_of(SBOX)
    basis = z + [FULL]
    combos = solve_linear(basis, s_planes)
    bottom_rows = [c & ((1 << 18) - 1) for c in combos]
    bottom_consts = [c >> 18 for c in combos]
    return L, e, top_rows, top_consts, bottom_rows, bottom_consts


def search(quick_tries, final_tries, keep):
    rng = random.Random(20160301)
    scored = []
    for k in range(8):
        for a in range(1, 256):
            L, e, tr, tc, br, bc = candidate(k, a)
            cost = len(best_paar(tr, 8, quick_tries, rng)[0]) + \
                len(best_paar(br, 18, quick_tries, rng)[0])
            scored.append((cost, k, a))
    scored.sort()
    best = None
    for _, k, a in scored[:keep]:
        L, e, tr, tc, br, bc = candidate(k, a)
        top = best_paar(tr, 8, final_tries, rng)
        bot = best_paar(br, 18, final_tries, rng)
        tflip, tnot = fold_constants(top[0], 8, top[1], tc)
        bflip, bnot = fold_constants(bot[0], 18, bot[1], bc)
        cost = (len(top[0]) + len(bot[0]) + len(tnot) + len(bnot),
                len(tflip) + len(bflip) + len(tnot) + len(bnot))
        if best is None or cost < best[0]:
            best = (cost, k, a, top, bot, (tflip, tnot), (bflip, bnot))
    return best


# --- 6. The straight-line program ------------------------------------------------


def build(best):
    _, k, a, top, bot, (tflip, tnot), (bflip, bnot) = best
    gates = []  # (dst, op, a, b)
    # Top layer: inputs x0..x7 (plane i = bit i), forms y0..y21.
    cols = ["x%d" % i for i in range(8)]
    tmp = 0
    out_of_col = {}
    for f, c in zip(FORMS, top[1]):
        out_of_col.setdefault(c, f)
    for g, (p, q) in enumerate(top[0]):
        col = 8 + g
        name = out_of_col.get(col)
        if name is None:
            name = "l%d" % tmp
            tmp += 1
        op = "^~" if g in tflip else "^"
        gates.append((name, op, cols[p], cols[q]))
        cols.append(name)
    for i, (f, c) in enumerate(zip(FORMS, top[1])):
        if cols[c] != f:
            gates.append((f, "~" if i in tnot else "=", cols[c], None))
        else:
            assert i not in tnot
    gates += MIDDLE
    # Bottom layer: products z0..z17, outputs o0..o7.
    cols = list(PRODUCTS)
    out_of_col = {}
    outs = ["o%d" % i for i in range(8)]
    for o, c in zip(outs, bot[1]):
        out_of_col.setdefault(c, o)
    tmp = 0
    for g, (p, q) in enumerate(bot[0]):
        col = 18 + g
        name = out_of_col.get(col)
        if name is None:
            name = "r%d" % tmp
            tmp += 1
        op = "^~" if g in bflip else "^"
        gates.append((name, op, cols[p], cols[q]))
        cols.append(name)
    for i, (o, c) in enumerate(zip(outs, bot[1])):
        if cols[c] != o:
            gates.append((o, "~" if i in bnot else "=", cols[c], None))
        else:
            assert i not in bnot
    return gates


def verify(gates):
    val = {"x%d" % i: p for i, p in enumerate(planes_of(range(256)))}
    run(gates, val)
    got = [sum(((val["o%d" % i] >> l) & 1) << i for i in range(8)) for l in range(256)]
    assert got == list(SBOX), "circuit does not match the table"


def count(gates):
    names = {"&": "AND", "^": "XOR", "^~": "XNOR", "~": "NOT"}
    c = {"AND": 0, "XOR": 0, "XNOR": 0, "NOT": 0}
    for _, op, _, _ in gates:
        if op in names:  # "=" is a renaming, no gate
            c[names[op]] += 1
    return c


def depth(gates):
    d = {"x%d" % i: 0 for i in range(8)}
    for dst, op, a, b in gates:
        d[dst] = max(d[a], d[b] if b else 0) + (0 if op == "=" else 1)
    return max(d["o%d" % i] for i in range(8))


def emit(gates, best, counts):
    _, k, a = best[:3]
    lines = []
    w = lines.append
    w("// --- generated by tools/sm4_sbox_circuit.py; do not edit by hand ---------")
    w("// S(x) = B z(L x + e) + c_out. Top: the 22 linear forms y0..y21 that")
    w("// Boyar and Peralta's AES S-box middle section reads, of u = L x + e,")
    w("// L = phi T A, e = phi T c, T: GF(2^8)/0x1f5 -> GF(2^8)/0x11b (x -> 0x%02x)," % ROOT)
    w("// phi(u) = 0x%02x * u^(2^%d). Middle: their inversion in GF(((2^2)^2)^2)," % (a, k))
    w("// to the products z0..z17. Bottom: the linear map B (and c_out) onto S(x).")
    w("// %d gates: %d AND, %d XOR, %d XNOR, %d NOT; depth %d." % (
        sum(counts.values()), counts["AND"], counts["XOR"], counts["XNOR"], counts["NOT"],
        depth(gates)))
    w("// Straight-line code over bit planes: no branch, no table, no index.")
    w("template <class P>")
    w("KS_HD void sbox_planes(P x[8]) {")
    w("  const P x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];")
    w("  const P x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];")
    first_mid = MIDDLE[0][0]
    first_bottom = None
    for dst, op, a_, b_ in gates:
        if dst.startswith(("r", "o")) and first_bottom is None:
            first_bottom = dst
    for dst, op, a_, b_ in gates:
        if dst == gates[0][0]:
            w("  // Top linear layer: the 22 forms y0..y21.")
        if dst == first_mid:
            w("  // Middle: inversion in the tower field, products z0..z17.")
        if dst == first_bottom:
            w("  // Bottom linear layer: the S-box output bits o0..o7.")
        if op == "=":
            expr = a_
        elif op == "~":
            expr = "~%s" % a_
        elif op == "^~":
            expr = "~(%s ^ %s)" % (a_, b_)
        else:
            expr = "%s %s %s" % (a_, op, b_)
        w("  const P %s = %s;" % (dst, expr))
    w("  x[0] = o0, x[1] = o1, x[2] = o2, x[3] = o3;")
    w("  x[4] = o4, x[5] = o5, x[6] = o6, x[7] = o7;")
    w("}")
    w("// --- end of generated code -------------------------------------------------")
    return "\n".join(lines) + "\n"


def main():
    best = search(quick_tries=2, final_tries=200, keep=12)
    gates = build(best)
    verify(gates)
    counts = count(gates)
    total = sum(counts.values())
    top_x = len(best[3][0])
    bot_x = len(best[4][0])
    print("SM4 S-box circuit: %d gates (%d AND, %d XOR, %d XNOR, %d NOT), depth %d" % (
        total, counts["AND"], counts["XOR"], counts["XNOR"], counts["NOT"], depth(gates)))
    print("  top linear layer %d XOR/XNOR, middle 32 AND + 30 XOR, bottom %d XOR/XNOR"
          % (top_x, bot_x))
    print("  T: x -> 0x%02x, phi(u) = 0x%02x * u^(2^%d); verified on all 256 inputs"
          % (ROOT, best[2], best[1]))
    code = emit(gates, best, counts)
    if "--emit" in sys.argv:
        sys.stdout.write(code)
    if "--check" in sys.argv:
        path = sys.argv[sys.argv.index("--check") + 1]
        with open(path) as f:
            if code not in f.read():
                print("%s: the generated sbox_planes differs" % path)
                return 1
        print("%s: generated code up to date" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
