"""Pure-Python reference model of the SKINNY-128-256 tweakable block cipher.

Written directly from the specification: C. Beierle et al., "The SKINNY Family
of Block Ciphers and Their Low-Latency Variant MANTIS", CRYPTO 2016, IACR
ePrint 2016/660.  "Sec. 2" below is the paper's specification section; each
comment names the paragraph (operation) of that section it implements.

SKINNY-128-256: 16-byte block, 32-byte tweakey TK1 || TK2, 48 rounds.  The
state is a 4x4 array of bytes loaded row-major: byte i is row i//4, col i%4.
"""

ROUNDS = 48
BLOCK_SIZE = 16
TWEAKEY_SIZE = 32

# Sec. 2 (SubCells) and the paper's S8 table (appendix): 8-bit S-box, hex.
SBOX = bytes([
    0x65, 0x4c, 0x6a, 0x42, 0x4b, 0x63, 0x43, 0x6b, 0x55, 0x75, 0x5a, 0x7a, 0x53, 0x73, 0x5b, 0x7b,
    0x35, 0x8c, 0x3a, 0x81, 0x89, 0x33, 0x80, 0x3b, 0x95, 0x25, 0x98, 0x2a, 0x90, 0x23, 0x99, 0x2b,
    0xe5, 0xcc, 0xe8, 0xc1, 0xc9, 0xe0, 0xc0, 0xe9, 0xd5, 0xf5, 0xd8, 0xf8, 0xd0, 0xf0, 0xd9, 0xf9,
    0xa5, 0x1c, 0xa8, 0x12, 0x1b, 0xa0, 0x13, 0xa9, 0x05, 0xb5, 0x0a, 0xb8, 0x03, 0xb0, 0x0b, 0xb9,
    0x32, 0x88, 0x3c, 0x85, 0x8d, 0x34, 0x84, 0x3d, 0x91, 0x22, 0x9c, 0x2c, 0x94, 0x24, 0x9d, 0x2d,
    0x62, 0x4a, 0x6c, 0x45, 0x4d, 0x64, 0x44, 0x6d, 0x52, 0x72, 0x5c, 0x7c, 0x54, 0x74, 0x5d, 0x7d,
    0xa1, 0x1a, 0xac, 0x15, 0x1d, 0xa4, 0x14, 0xad, 0x02, 0xb1, 0x0c, 0xbc, 0x04, 0xb4, 0x0d, 0xbd,
    0xe1, 0xc8, 0xec, 0xc5, 0xcd, 0xe4, 0xc4, 0xed, 0xd1, 0xf1, 0xdc, 0xfc, 0xd4, 0xf4, 0xdd, 0xfd,
    0x36, 0x8e, 0x38, 0x82, 0x8b, 0x30, 0x83, 0x39, 0x96, 0x26, 0x9a, 0x28, 0x93, 0x20, 0x9b, 0x29,
    0x66, 0x4e, 0x68, 0x41, 0x49, 0x60, 0x40, 0x69, 0x56, 0x76, 0x58, 0x78, 0x50, 0x70, 0x59, 0x79,
    0xa6, 0x1e, 0xaa, 0x11, 0x19, 0xa3, 0x10, 0xab, 0x06, 0xb6, 0x08, 0xba, 0x00, 0xb3, 0x09, 0xbb,
    0xe6, 0xce, 0xea, 0xc2, 0xcb, 0xe3, 0xc3, 0xeb, 0xd6, 0xf6, 0xda, 0xfa, 0xd3, 0xf3, 0xdb, 0xfb,
    0x31, 0x8a, 0x3e, 0x86, 0x8f, 0x37, 0x87, 0x3f, 0x92, 0x21, 0x9e, 0x2e, 0x97, 0x27, 0x9f, 0x2f,
    0x61, 0x48, 0x6e, 0x46, 0x4f, 0x67, 0x47, 0x6f, 0x51, 0x71, 0x5e, 0x7e, 0x57, 0x77, 0x5f, 0x7f,
    0xa2, 0x18, 0xae, 0x16, 0x1f, 0xa7, 0x17, 0xaf, 0x01, 0xb2, 0x0e, 0xbe, 0x07, 0xb7, 0x0f, 0xbf,
    0xe2, 0xca, 0xee, 0xc6, 0xcf, 0xe7, 0xc7, 0xef, 0xd2, 0xf2, 0xde, 0xfe, 0xd7, 0xf7, 0xdf, 0xff,
])
# Inverse S-box, derived from the table above.
SBOX_INV = bytes(SBOX.index(y) for y in range(256))
assert sorted(SBOX) == list(range(256)), "S8 must be a permutation"

# Sec. 2 (ShiftRows): row r is rotated right by r; new[i] = old[P[i]].
SHIFT_ROWS_P = [0, 1, 2, 3, 7, 4, 5, 6, 10, 11, 8, 9, 13, 14, 15, 12]
# Sec. 2 (tweakey schedule): cell permutation PT; new[i] = old[PT[i]].
TWEAKEY_PT = [9, 15, 8, 13, 10, 14, 12, 11, 0, 1, 2, 3, 4, 5, 6, 7]


def sub_cells(state, box=SBOX):
    """Sec. 2 SubCells: apply S8 to every cell (box=SBOX_INV inverts it)."""
    return [box[x] for x in state]


def next_round_constant(rc):
    """Sec. 2 AddConstants: 6-bit affine LFSR (rc5..rc0) ->
    (rc4, rc3, rc2, rc1, rc0, rc5 ^ rc4 ^ 1), initialised to 0, clocked before use."""
    rc5, rc4 = (rc >> 5) & 1, (rc >> 4) & 1
    return ((rc << 1) & 0x3F) | (rc5 ^ rc4 ^ 1)


def add_constants(state, rc):
    """Sec. 2 AddConstants: c0 = rc3..rc0 into cell (0,0), c1 = rc5 rc4
    into cell (1,0), c2 = 0x2 into cell (2,0).  XOR, so it is its own inverse."""
    state = list(state)
    state[0] ^= rc & 0x0F
    state[4] ^= rc >> 4
    state[8] ^= 0x02
    return state


def add_round_tweakey(state, round_key):
    """Sec. 2 AddRoundTweakey: XOR the first two rows (8 cells) of
    TK1 ^ TK2 into the first two rows of the state.  Its own inverse."""
    state = list(state)
    for i in range(8):
        state[i] ^= round_key[i]
    return state


def shift_rows(state):
    """Sec. 2 ShiftRows: rotate row r right by r positions."""
    return [state[SHIFT_ROWS_P[i]] for i in range(16)]


def inv_shift_rows(state):
    out = [0] * 16
    for i in range(16):
        out[SHIFT_ROWS_P[i]] = state[i]
    return out


def mix_columns(state):
    """Sec. 2 MixColumns: each column (a0,a1,a2,a3) is multiplied by
    M = [[1,0,1,1],[1,0,0,0],[0,1,1,0],[1,0,1,0]] over GF(2)."""
    out = [0] * 16
    for c in range(4):
        a0, a1, a2, a3 = state[c], state[4 + c], state[8 + c], state[12 + c]
        out[c] = a0 ^ a2 ^ a3
        out[4 + c] = a0
        out[8 + c] = a1 ^ a2
        out[12 + c] = a0 ^ a2
    return out


def inv_mix_columns(state):
    """Inverse of M: M^-1 = [[0,1,0,0],[0,1,1,1],[0,1,0,1],[1,0,0,1]]."""
    out = [0] * 16
    for c in range(4):
        b0, b1, b2, b3 = state[c], state[4 + c], state[8 + c], state[12 + c]
        out[c] = b1
        out[4 + c] = b1 ^ b2 ^ b3
        out[8 + c] = b1 ^ b3
        out[12 + c] = b0 ^ b3
    return out


def permute_tweakey(tk):
    """Sec. 2 tweakey schedule: apply PT to the cells of one TK array."""
    return [tk[TWEAKEY_PT[i]] for i in range(16)]


def lfsr_tk2(x):
    """Sec. 2 tweakey schedule, TK2 LFSR (8-bit cells):
    (x7..x0) -> (x6..x0, x7 ^ x5)."""
    return ((x << 1) & 0xFF) | (((x >> 7) ^ (x >> 5)) & 1)


def round_tweakeys(tweakey):
    """Sec. 2: list of the ROUNDS 8-byte round tweakeys (rows 0-1 of TK1 ^ TK2)."""
    tk1, tk2 = list(tweakey[:16]), list(tweakey[16:32])
    keys = []
    for _ in range(ROUNDS):
        keys.append([tk1[i] ^ tk2[i] for i in range(8)])
        tk1 = permute_tweakey(tk1)
        tk2 = permute_tweakey(tk2)
        tk2 = [lfsr_tk2(x) for x in tk2[:8]] + tk2[8:]  # LFSR on first two rows only
    return keys


def round_constants():
    """The ROUNDS successive 6-bit round constants."""
    rcs, rc = [], 0
    for _ in range(ROUNDS):
        rc = next_round_constant(rc)
        rcs.append(rc)
    return rcs


def _check(tweakey, block):
    if len(tweakey) != TWEAKEY_SIZE or len(block) != BLOCK_SIZE:
        raise ValueError("tweakey must be 32 bytes and block 16 bytes")


def encrypt_block(tweakey: bytes, block: bytes) -> bytes:
    """Sec. 2: 48 rounds of SC, AC, ART, SR, MC."""
    _check(tweakey, block)
    state = list(block)
    for rk, rc in zip(round_tweakeys(tweakey), round_constants()):
        state = sub_cells(state)
        state = add_constants(state, rc)
        state = add_round_tweakey(state, rk)
        state = shift_rows(state)
        state = mix_columns(state)
    return bytes(state)


def decrypt_block(tweakey: bytes, block: bytes) -> bytes:
    """Inverse rounds in reverse order: MC^-1, SR^-1, ART, AC, SC^-1."""
    _check(tweakey, block)
    state = list(block)
    rks, rcs = round_tweakeys(tweakey), round_constants()
    for r in reversed(range(ROUNDS)):
        state = inv_mix_columns(state)
        state = inv_shift_rows(state)
        state = add_round_tweakey(state, rks[r])
        state = add_constants(state, rcs[r])
        state = sub_cells(state, SBOX_INV)
    return bytes(state)


def _blocks(data):
    if len(data) % BLOCK_SIZE:
        raise ValueError("data length must be a multiple of 16")
    return [bytes(data[i:i + BLOCK_SIZE]) for i in range(0, len(data), BLOCK_SIZE)]


def ecb_encrypt(tweakey: bytes, data: bytes) -> bytes:
    return b"".join(encrypt_block(tweakey, b) for b in _blocks(data))


def ecb_decrypt(tweakey: bytes, data: bytes) -> bytes:
    return b"".join(decrypt_block(tweakey, b) for b in _blocks(data))


def ctr_crypt(tweakey: bytes, counter0: bytes, data: bytes) -> bytes:
    """CTR: keystream block i = E(tweakey, (counter0 + i) mod 2**128, big-endian)."""
    if len(counter0) != BLOCK_SIZE:
        raise ValueError("counter0 must be 16 bytes")
    c0 = int.from_bytes(counter0, "big")
    out = bytearray()
    for i in range(0, len(data), BLOCK_SIZE):
        ctr = ((c0 + i // BLOCK_SIZE) % (1 << 128)).to_bytes(BLOCK_SIZE, "big")
        ks = encrypt_block(tweakey, ctr)
        out += bytes(a ^ b for a, b in zip(data[i:i + BLOCK_SIZE], ks))
    return bytes(out)


def check_known_answer():
    """Assert the paper's SKINNY-128-256 test vector, both directions."""
    tk = bytes.fromhex("009CEC81605D4AC1D2AE9E3085D7A1F31AC123EBFC00FDDCF01046CEEDDFCAB3")
    pt = bytes.fromhex("3A0C47767A26A68DD382A695E7022E25")
    ct = bytes.fromhex("B731D98A4BDE147A7ED4A6F16B9B587F")
    assert encrypt_block(tk, pt) == ct, "encrypt mismatch"
    assert decrypt_block(tk, ct) == pt, "decrypt mismatch"
    return True
