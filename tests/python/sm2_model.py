"""An independent model of SM2 encryption (GB/T 32918.4-2016 clauses 6.1
and 7.1) and key exchange (GB/T 32918.3-2016 clause 6.1) in plain Python
integers, for the tests: affine arithmetic on
sm2p256v1 (GB/T 32918.5), the SM3 KDF (clause 5.4.3) with SM3 taken from
the caller (pyca/cryptography's, so that nothing of kuaisuo is used)."""

P = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF
A = P - 3
B = 0x28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93
N = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123
G = (0x32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7,
     0xBC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0)


def add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    if p1[0] == p2[0] and (p1[1] + p2[1]) % P == 0:
        return None
    if p1 == p2:
        lam = (3 * p1[0] * p1[0] + A) * pow(2 * p1[1], -1, P) % P
    else:
        lam = (p2[1] - p1[1]) * pow(p2[0] - p1[0], -1, P) % P
    x = (lam * lam - p1[0] - p2[0]) % P
    return x, (lam * (p1[0] - x) - p1[1]) % P


def mul(k, pt=G):
    r = None
    for bit in bin(k)[2:]:
        r = add(r, r)
        if bit == "1":
            r = add(r, pt)
    return r


def b32(v):
    return v.to_bytes(32, "big")


def kdf(sm3, z, klen):
    out, ct = b"", 1
    while len(out) < klen:
        out += sm3(z + ct.to_bytes(4, "big"))
        ct += 1
    return out[:klen]


def encrypt(sm3, pub, msg, k):
    """C1 || C3 || C2 with the given k."""
    c1 = mul(k)
    x2, y2 = mul(k, pub)
    t = kdf(sm3, b32(x2) + b32(y2), len(msg))
    c2 = bytes(a ^ b for a, b in zip(msg, t))
    return b"\x04" + b32(c1[0]) + b32(c1[1]) + sm3(b32(x2) + msg + b32(y2)) + c2


def decrypt(sm3, d, ct):
    """The plaintext of C1 || C3 || C2 (uncompressed C1), or None."""
    c1 = (int.from_bytes(ct[1:33], "big"), int.from_bytes(ct[33:65], "big"))
    if ct[0] != 4 or (c1[1] ** 2 - c1[0] ** 3 - A * c1[0] - B) % P != 0:
        return None
    x2, y2 = mul(d, c1)
    c3, c2 = ct[65:97], ct[97:]
    msg = bytes(a ^ b for a, b in zip(c2, kdf(sm3, b32(x2) + b32(y2), len(c2))))
    return msg if sm3(b32(x2) + msg + b32(y2)) == c3 else None


def za(sm3, pub, uid):
    """Z = SM3(ENTL || ID || a || b || xG || yG || x || y) (GB/T 32918.2 5.5)."""
    return sm3((8 * len(uid)).to_bytes(2, "big") + uid + b32(A) + b32(B) + b32(G[0]) +
               b32(G[1]) + b32(pub[0]) + b32(pub[1]))


def x_bar(x):
    """2^127 + (x mod 2^127): w = ceil(ceil(log2 n) / 2) - 1 = 127."""
    return (1 << 127) | (x & ((1 << 127) - 1))


def exchange(sm3, initiator, d, r, peer_pub, peer_r, z_a, z_b, klen):
    """One side of the exchange (A4-A10 or B3-B10): (K, S_B, S_A), from the
    side's static key d and ephemeral r, and the peer's static and
    ephemeral points; None when the shared point is at infinity."""
    own_r = mul(r)
    t = (d + x_bar(own_r[0]) * r) % N
    shared = mul(t, add(peer_pub, mul(x_bar(peer_r[0]), peer_r)))
    if shared is None:
        return None
    xu, yu = b32(shared[0]), b32(shared[1])
    r_a, r_b = (own_r, peer_r) if initiator else (peer_r, own_r)
    inner = sm3(xu + z_a + z_b + b32(r_a[0]) + b32(r_a[1]) + b32(r_b[0]) + b32(r_b[1]))
    return (kdf(sm3, xu + yu + z_a + z_b, klen), sm3(b"\x02" + yu + inner),
            sm3(b"\x03" + yu + inner))
