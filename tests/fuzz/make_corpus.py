#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets: tests/fuzz/corpus/<target>/.

Usage: tests/fuzz/make_corpus.py [--out DIR] [--target TARGET ...]
  (default: every target's corpus, in the corpus/ beside this file)

Each target gets a handful of small files: well-formed inputs (keys and
signatures computed here in pure Python on sm2p256v1, then written by
OpenSSL's command line where OpenSSL writes that format), and the edge cases
of issue 14: the empty input, DER that carries the bytes "-----BEGIN ", an
SPKI whose BIT STRING is empty or holds only the unused-bits byte, a SEC1
key whose [1] public key is an empty BIT STRING, encrypted PEM. Everything
but the encrypted keys (random salt) is deterministic. Without `openssl`
on PATH its seeds are left out (and said so). Regenerate with this script
rather than adding files by hand; the fuzzers' own finds are not committed
(scripts/fuzz runs on a copy).
"""
import argparse
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

# ---- sm2p256v1 (GB/T 32918.5): the curve model the Python tests use ----------
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import sm2_model  # noqa: E402
from sm2_model import A, B, G, N, P, add, b32, mul  # noqa: E402,F401

D_EXAMPLE = 0x3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8
DEFAULT_ID = b"1234567812345678"


def uncompressed(pt):
    return b"\x04" + b32(pt[0]) + b32(pt[1])


def compressed(pt):
    return bytes([2 | (pt[1] & 1)]) + b32(pt[0])


def lift_x(x):
    """The point with this x and an even y, or None."""
    rhs = (x * x * x + A * x + B) % P
    y = pow(rhs, (P + 1) // 4, P)
    if y * y % P != rhs:
        return None
    return x, y if y % 2 == 0 else P - y


def sm3(data):
    try:
        return hashlib.new("sm3", data).digest()
    except ValueError:
        return None


def digest(pub, ident, msg):
    """e = SM3(Z_A || M), or None where hashlib has no SM3."""
    entl = (8 * len(ident)).to_bytes(2, "big")
    za = sm3(entl + ident + b32(A) + b32(B) + b32(G[0]) + b32(G[1]) + b32(pub[0]) + b32(pub[1]))
    return None if za is None else sm3(za + msg)


def sign(d, e, k):
    """r||s over the 32-byte digest e with the fixed nonce k (seeds only)."""
    x1 = mul(k)[0]
    r = (int.from_bytes(e, "big") + x1) % N
    s = pow(1 + d, -1, N) * (k - r * d) % N
    assert r != 0 and s != 0 and r + k != N
    return b32(r) + b32(s)


# ---- DER ----------------------------------------------------------------------
def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        nb = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(nb)]) + nb
    return bytes([tag]) + head + body


def seq(*items):
    return tlv(0x30, b"".join(items))


def integer(v):
    body = v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big")
    return tlv(0x02, body)


def bits(payload, unused=0):
    return tlv(0x03, bytes([unused]) + payload)


OID_EC = tlv(0x06, bytes([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]))
OID_SM2 = tlv(0x06, bytes([0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D]))
OID_P256 = tlv(0x06, bytes([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]))
ALG_SM2 = seq(OID_EC, OID_SM2)


def spki(point_bytes, alg=ALG_SM2, bit_string=None):
    return seq(alg, bit_string if bit_string is not None else bits(point_bytes))


def sec1(d, pub=None, params=True, pub_field=None):
    body = integer(1) + tlv(0x04, b32(d))
    if params:
        body += tlv(0xA0, OID_SM2)
    if pub_field is not None:
        body += tlv(0xA1, pub_field)
    elif pub is not None:
        body += tlv(0xA1, bits(uncompressed(pub)))
    return tlv(0x30, body)


def pkcs8(inner, attributes=b""):
    return seq(integer(0), ALG_SM2, tlv(0x04, inner), attributes)


def pem(label, der, lead=""):
    b64 = base64.b64encode(der).decode()
    lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
    return (lead + "-----BEGIN %s-----\n%s\n-----END %s-----\n" % (label, "\n".join(lines), label)).encode()


def sig_der(rs):
    return seq(integer(int.from_bytes(rs[:32], "big")), integer(int.from_bytes(rs[32:], "big")))


# ---- OpenSSL's command line ------------------------------------------------------
class OpenSSL:
    def __init__(self):
        self.exe = shutil.which("openssl")
        if self.exe is None:
            print("make_corpus: openssl not found: its seeds are left out", file=sys.stderr)

    def run(self, args, stdin):
        """openssl ARGS with stdin; its stdout, or None on failure."""
        if self.exe is None:
            return None
        res = subprocess.run([self.exe] + args, input=stdin, capture_output=True)
        if res.returncode != 0:
            print("make_corpus: openssl %s failed: %s" % (" ".join(args), res.stderr.decode().strip()),
                  file=sys.stderr)
            return None
        return res.stdout


# ---- The corpora -------------------------------------------------------------------
MARKER = b"-----BEGIN "


def point_with_marker():
    """A point whose x begins with "-----BEGIN " (DER carrying a PEM marker)."""
    for i in range(1000):
        x = int.from_bytes(MARKER + i.to_bytes(21, "big"), "big")
        pt = lift_x(x)
        if pt is not None:
            return pt
    raise AssertionError("no point found")


def corpus_sig_der():
    d = D_EXAMPLE
    e = bytes(range(32))
    good = sign(d, e, 0x59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21)
    high = b"\xff" * 31 + b"\x01" + b"\x80" + b"\x00" * 31  # both need a sign byte: 72 bytes
    return {
        "empty": b"",
        "valid": sig_der(good),
        "max_72_bytes": sig_der(high),
        "small_r_s": seq(integer(1), integer(1)),
        "zero_r": seq(integer(0), integer(1)),
        "non_minimal": seq(tlv(0x02, b"\x00\x01"), integer(1)),
        "negative": seq(tlv(0x02, b"\x80"), integer(1)),
        "empty_integer": seq(tlv(0x02, b""), integer(1)),
        "too_large": seq(integer(1 << 256), integer(1)),
        "trailing": sig_der(good) + b"\x00",
        "long_form_length": b"\x30\x81\x06" + integer(1) + integer(1),
        "indefinite_length": b"\x30\x80" + integer(1) + integer(1) + b"\x00\x00",
        "truncated": sig_der(good)[:40],
    }


def sm2_encrypt(pub, msg, k, form):
    """GB/T 32918.4 clause 6.1 with k given (sm2_model); form 0: C1C3C2,
    1: C1C2C3, 2: DER."""
    ct = sm2_model.encrypt(sm3, pub, msg, k)
    c1, c3, c2 = ct[:65], ct[65:97], ct[97:]
    if form == 2:
        return seq(integer(int.from_bytes(c1[1:33], "big")),
                   integer(int.from_bytes(c1[33:], "big")), tlv(0x04, c3), tlv(0x04, c2))
    return c1 + (c3 + c2 if form == 0 else c2 + c3)


def corpus_sm2_decrypt():
    """The first byte picks the form (fuzz_sm2_decrypt); D_EXAMPLE decrypts."""
    pub = mul(D_EXAMPLE)
    k = 0x59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21
    # OpenSSL's test/sm2_internal_test.c example: this model must give it.
    example = sm2_encrypt(pub, b"encryption standard", k, 0)
    assert example[97:].hex().upper() == "21886CA989CA9C7D58087307CA93092D651EFA", example.hex()
    assert example[65:97].hex().upper().startswith("59983C18F809E262")
    seeds = {"empty": b""}
    for form in range(3):
        for name, msg in (("example", b"encryption standard"), ("empty_message", b""),
                          ("block", bytes(range(100)))):
            seeds["form%d_%s" % (form, name)] = bytes([form]) + sm2_encrypt(pub, msg, k, form)
    good = sm2_encrypt(pub, b"encryption standard", k, 0)
    seeds["c3_flipped"] = b"\x00" + good[:70] + bytes([good[70] ^ 1]) + good[71:]
    seeds["c1_off_curve"] = b"\x00" + good[:64] + bytes([good[64] ^ 1]) + good[65:]
    seeds["c1_compressed"] = b"\x00" + compressed(mul(k)) + good[65:]
    seeds["truncated"] = b"\x00" + good[:96]
    der = sm2_encrypt(pub, b"encryption standard", k, 2)
    seeds["der_trailing"] = b"\x02" + der + b"\x00"
    seeds["der_truncated"] = b"\x02" + der[:-1]
    return seeds


def corpus_sm2_exchange():
    """fuzz_sm2_exchange: side and confirmation flags, R's length, R, a tag;
    R values from GM/T 0003.5's key exchange example."""
    r_a = mul(0xD4DE15474DB74D06491C440D305E012400990F3E390C7E87153C12DB2EA60BB3)
    r_b = mul(0x7E07124814B309489125EAED101113164EBF0F3458C5BD88335C1F9D596243D6)
    assert r_a[0] >> 192 == 0x64CED1BDBC99D590, hex(r_a[0])
    s_a = bytes.fromhex("18C7894B3816DF16CF07B05C5EC0BEF5D655D58F779CC1B400A4F3884644DB88")
    s_b = bytes.fromhex("D3A0FE15DEE185CEAE907A6B595CC32A266ED7B3367E9983A896DC32FA20F8EB")

    def message(flags, r, tag=b""):
        return bytes([flags, len(r)]) + r + tag
    off = uncompressed(r_a)[:-1] + bytes([uncompressed(r_a)[-1] ^ 1])
    return {
        "responder": message(0, uncompressed(r_a)),
        "responder_confirm": message(2, uncompressed(r_a), s_a),
        "initiator": message(1, uncompressed(r_b)),
        "initiator_confirm": message(3, uncompressed(r_b), s_b),
        "compressed": message(0, compressed(r_a)),
        "raw_64": message(1, uncompressed(r_b)[1:]),
        "off_curve": message(0, off),
        "infinity": message(2, b"\x00", s_a),
        "empty": message(3, b""),
    }


def corpus_pubkey_raw():
    pub = mul(D_EXAMPLE)
    bad_x = next(x for x in range(2, 100) if lift_x(x) is None)
    return {
        "empty": b"",
        "prefix_only": b"\x04",
        "infinity": b"\x00",
        "uncompressed_G": uncompressed(G),
        "uncompressed": uncompressed(pub),
        "compressed_even": compressed(pub) if pub[1] % 2 == 0 else compressed((pub[0], P - pub[1])),
        "compressed_odd": compressed(G) if G[1] % 2 else compressed((G[0], P - G[1])),
        "raw_64": uncompressed(pub)[1:],
        "hybrid_06": bytes([6 | (pub[1] & 1)]) + uncompressed(pub)[1:],
        "x_equals_p": b"\x04" + b32(P) + b32(G[1]),
        "off_curve": b"\x04" + b32(G[0]) + b32((G[1] + 1) % P),
        "compressed_no_root": b"\x02" + b32(bad_x),
    }


def corpus_pubkey_der_pem(ossl):
    pub = mul(D_EXAMPLE)
    marked = point_with_marker()
    der = spki(uncompressed(pub))
    out = {
        "empty": b"",
        "spki_der": der,
        "spki_pem_leading_text": pem("PUBLIC KEY", der, lead="Subject: fuzz\n"),
        "spki_compressed": spki(compressed(pub)),
        "spki_raw_64": spki(uncompressed(pub)[1:]),
        "spki_bit_string_empty": spki(b"", bit_string=tlv(0x03, b"")),
        "spki_bit_string_unused_byte_only": spki(b"", bit_string=tlv(0x03, b"\x00")),
        "spki_unused_bits": spki(uncompressed(pub), bit_string=bits(uncompressed(pub), unused=1)),
        "spki_p256_curve": spki(uncompressed(pub), alg=seq(OID_EC, OID_P256)),
        # Issue 14: DER carrying "-----BEGIN " inside, and the PEM of it,
        # whose DER re-encoding then carries the marker.
        "spki_der_with_pem_marker": spki(uncompressed(marked)),
        "spki_pem_x_with_pem_marker": pem("PUBLIC KEY", spki(uncompressed(marked))),
        "pem_bad_base64": b"-----BEGIN PUBLIC KEY-----\nMFkw*EwYHKoZIzj0CAQYIKoEcz1UBgi0=\n-----END PUBLIC KEY-----\n",
        "pem_no_end": b"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0=\n",
    }
    pkcs8_der = pkcs8(sec1(D_EXAMPLE, pub, params=False))
    spki_pem = ossl.run(["pkey", "-inform", "DER", "-pubout"], pkcs8_der)
    if spki_pem is not None:
        out["spki_pem_openssl"] = spki_pem
    # X.509 certificates stand for their SubjectPublicKeyInfo.
    key_pem = ossl.run(["pkey", "-inform", "DER"], pkcs8_der)
    if key_pem is not None:
        with tempfile.NamedTemporaryFile(suffix=".pem") as key_file:
            key_file.write(key_pem)
            key_file.flush()
            cert = ossl.run(["req", "-x509", "-new", "-key", key_file.name, "-subj", "/CN=fuzz",
                             "-days", "1", "-sm3", "-set_serial", "1"], b"")
        if cert is not None:
            out["certificate_pem_openssl"] = cert
            cert_der = ossl.run(["x509", "-outform", "DER"], cert)
            if cert_der is not None:
                out["certificate_der_openssl"] = cert_der
    return out


def corpus_pkcs8_decrypt(ossl):
    """Encrypted keys as the openssl CLI writes them (PBES2 with each PRF and
    cipher it has, a few iterations), behind their passphrase's length
    byte; and broken ones."""
    pw = b"fuzz"
    plain = pkcs8(sec1(D_EXAMPLE, mul(D_EXAMPLE), params=False))
    out = {"empty": b"", "plain_key": bytes([len(pw)]) + pw + plain}
    for name, opts in [("aes256_sha256", ["-v2", "aes-256-cbc"]),
                       ("aes128_sha1", ["-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"]),
                       ("aes192", ["-v2", "aes-192-cbc"]),
                       ("sm4_sha256", ["-v2", "sm4-cbc"])]:
        for form in ("DER", "PEM"):
            res = ossl.run(["pkcs8", "-topk8", "-inform", "DER", "-outform", form, "-iter", "3",
                            "-passout", "pass:fuzz", *opts], plain)
            if res is not None:
                out["%s_%s" % (name, form.lower())] = bytes([len(pw)]) + pw + res
    return out


def corpus_privkey_der_pem(ossl):
    d = D_EXAMPLE
    pub = mul(d)
    d_marked = int.from_bytes(MARKER + bytes(range(1, 22)), "big")
    assert 1 <= d_marked <= N - 2
    pub_marked = mul(d_marked)
    out = {
        "empty": b"",
        "pkcs8_der": pkcs8(sec1(d, pub, params=False)),
        "pkcs8_no_public_key": pkcs8(sec1(d, params=False)),
        "pkcs8_attributes": pkcs8(sec1(d, pub, params=False), attributes=tlv(0xA0, b"")),
        "pkcs8_mismatched_public_key": pkcs8(sec1(d, G, params=False)),
        "sec1_der": sec1(d, pub),
        "sec1_pem": pem("EC PRIVATE KEY", sec1(d, pub)),
        "sec1_no_params_no_public_key": sec1(d, params=False),
        # Issue 14: [1] holding an empty BIT STRING, or only its unused-bits byte.
        "sec1_public_key_empty_bit_string": sec1(d, pub_field=tlv(0x03, b"")),
        "sec1_public_key_unused_byte_only": sec1(d, pub_field=tlv(0x03, b"\x00")),
        "sec1_d_is_n_minus_1": sec1(N - 1),
        # DER carrying "-----BEGIN " (in d), and the PEM of it.
        "pkcs8_der_with_pem_marker": pkcs8(sec1(d_marked, pub_marked, params=False)),
        "pkcs8_pem_d_with_pem_marker": pem("PRIVATE KEY", pkcs8(sec1(d_marked, pub_marked, params=False))),
        "legacy_encrypted_ec_pem": b"-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
                                   b"DEK-Info: AES-256-CBC,00112233445566778899AABBCCDDEEFF\n\n"
                                   b"AAAA\n-----END EC PRIVATE KEY-----\n",
    }
    pkcs8_der = out["pkcs8_der"]
    for name, args in [("pkcs8_pem_openssl", ["pkey", "-inform", "DER"]),
                       ("sec1_der_openssl", ["ec", "-inform", "DER", "-outform", "DER"]),
                       ("encrypted_pkcs8_pem_openssl",
                        ["pkey", "-inform", "DER", "-aes256", "-passout", "pass:fuzz"])]:
        res = ossl.run(args, pkcs8_der)
        if res is not None:
            out[name] = res
    return out


def verify_input(flags, digest32, sig, ident=b"", msg=b"", key=b"", flip=0):
    """An input in fuzz_verify.cc's layout."""
    out = bytes([flags]) + key + digest32
    out += sig if not flags & 8 else bytes([len(sig)]) + sig
    out += bytes([len(ident)]) + ident + flip.to_bytes(2, "little") + msg
    return out


def corpus_verify():
    fixed_d = [1, N - 2, D_EXAMPLE]
    k = 0x1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF
    e = bytes(range(100, 132))
    out = {"empty": b""}
    for i, d in enumerate(fixed_d):
        out["digest_sig_key%d" % i] = verify_input(0x20 | i, e, sign(d, e, k), DEFAULT_ID, b"abc",
                                                   flip=i * 77)
    out["der_sig_key2"] = verify_input(0x08 | 2, e, sig_der(sign(D_EXAMPLE, e, k)), b"", b"msg")
    pub = mul(D_EXAMPLE)
    out["raw_point_key"] = verify_input(0x04 | 3, e, sign(D_EXAMPLE, e, k), DEFAULT_ID, b"abc",
                                        key=bytes([2]) + uncompressed(pub))
    out["private_key_from_input"] = verify_input(0x20 | 3, e, bytes(64), b"id", b"m",
                                                 key=b32(0xC0FFEE))
    out["empty_id_and_message_null"] = verify_input(0x60, e, bytes(64))
    # ID length byte 255, then 8200 (> KS_SM2_MAX_ID_BYTES); the ID reads as zeros.
    out["id_over_limit"] = bytes([0x21]) + e + bytes(64) + b"\xff" + (8200).to_bytes(2, "little")
    for i, d in enumerate(fixed_d):  # message signatures, where hashlib has SM3
        pub_i = mul(d)
        em = digest(pub_i, DEFAULT_ID, b"message")
        if em is not None:
            out["message_sig_key%d" % i] = verify_input(i, e, sign(d, em, k), DEFAULT_ID, b"message")
    return out


def corpus_batch_args():
    """Inputs in fuzz_batch_args.cc's layout: op, control, then fields."""
    out = {}
    filler = bytes((i * 37 + 11) % 256 for i in range(96))
    names = ["sm3", "verify", "verify_digest", "sign_digest", "sign_digest_keys", "sign", "keygen",
             "digest"]
    for op, name in enumerate(names):
        out["%s_valid" % name] = bytes([op, 0x00, 3, 0]) + filler[:48]
        out["%s_two_threads_large" % name] = bytes([op, 0x05, 100, 0]) + filler[:32]
        out["%s_bad_arguments" % name] = bytes([op, 0x08, 0x03, 0x00, 5, 0]) + filler[:32]
        out["%s_overflowing_count" % name] = bytes([op, 0x0C, 1]) + b"\xff" * 8
    # ops 8 and 9: the _key forms, whose first field (after the plan) picks
    # the key object
    for op, name in ((8, "verify_key"), (9, "verify_digest_key")):
        out["%s_valid" % name] = bytes([op, 0x00, 1, 3, 0]) + filler[:48]
        out["%s_two_threads_large" % name] = bytes([op, 0x05, 2, 100, 0]) + filler[:32]
        out["%s_bad_arguments" % name] = bytes([op, 0x08, 0x03, 0x00, 0, 5, 0]) + filler[:32]
        out["%s_overflowing_count" % name] = bytes([op, 0x0C, 0, 1]) + b"\xff" * 8
    out["empty"] = b""
    return out


# ---- fuzz_batch_args_25519 ----------------------------------------------------------
BATCH_25519_OPS = ["ed25519_keygen", "ed25519_public_keys", "ed25519_sign", "ed25519_sign_seeds",
                   "ed25519_verify", "x25519_keygen", "x25519_public_keys", "x25519"]
OP_ED_SIGN, OP_ED_SIGN_SEEDS, OP_ED_VERIFY, OP_X25519 = 2, 3, 4, 7
ED_SPECIALS, X_SPECIALS = 17, 17  # the tables in fuzz_batch_args_25519.cc


def checked(i, count, k=6):
    return count <= 2 * k or i < k or i >= count - k


def flat_messages(lens):
    """pick_data + make_offsets fields of a valid call: data (pattern bytes)
    holding items of the given lengths (< 256 each) back to back."""
    data = bytes((i * 29 + 3) % 256 for i in range(sum(lens)))
    if len(data) % 2:  # odd lengths mean "no data" in valid shapes
        data += b"\x00"
    assert len(data) <= 256
    out = len(data).to_bytes(2, "little") + data + b"\x00"  # step 0: increments in bytes
    if data:
        out += b"\x00\x00"  # first offset 0
    return out + bytes(lens) + b"\x00"  # count + 1 increments


def ed_verify_input(items, lens=None):
    """ks_ed25519_verify_batch, valid small: items are (sel, arg) pairs
    (make_verify_items: key k = (sel >> 3) % 3, how = sel % 8)."""
    count = len(items)
    lens = lens or [(5 * i) % 23 for i in range(count)]
    out = bytes([OP_ED_VERIFY, 0x00]) + count.to_bytes(2, "little") + flat_messages(lens)
    for i, (sel, arg) in enumerate(items):
        out += bytes([sel]) + bytes((j * 7 + i) % 256 for j in range(64))  # raw signature
        how = sel % 8
        if how == 3:
            out += bytes((j * 11 + i) % 256 for j in range(32))  # raw key
        elif how != 2 and checked(i, count):
            out += bytes([arg])
    return out


def x25519_input(mode, priv_sels, peer_sels):
    """ks_x25519_derive_batch[_keys], valid small: mode (bit 0 per-item
    keys), the selectors of fill_secrets and fill_peers (fixed or special values only)."""
    assert all(s % 4 in (0, 1) for s in priv_sels + peer_sels)
    count = len(peer_sels)
    return (bytes([OP_X25519, 0x00]) + count.to_bytes(2, "little") + bytes([mode]) +
            bytes(priv_sels) + bytes(peer_sels) + b"\x00")  # no slack


def corpus_batch_args_25519():
    """Inputs in fuzz_batch_args_25519.cc's layout: op, control, then fields."""
    out = {}
    filler = bytes((i * 53 + 17) % 256 for i in range(96))
    for op, name in enumerate(BATCH_25519_OPS):
        out["%s_valid" % name] = bytes([op, 0x00, 3, 0]) + filler[:48]
        out["%s_two_threads_large" % name] = bytes([op, 0x05, 150, 0]) + filler[:32]
        out["%s_bad_arguments" % name] = bytes([op, 0x08, 0x03, 0x00, 5, 0]) + filler[:32]
        out["%s_overflowing_count" % name] = bytes([op, 0x0C, 1]) + b"\xff" * 8
    # Counts that overflow the 64-byte signatures only (SIZE_MAX / 64 + 1):
    # the 32-byte keys or seeds alone would not.
    for op in (OP_ED_SIGN_SEEDS, OP_ED_VERIFY):
        out["%s_overflowing_signatures_only" % BATCH_25519_OPS[op]] = bytes([op, 0x0C, 1]) + bytes(8)
    # Every way make_verify_items builds an item (how = sel % 8), under the three keys.
    out["ed25519_verify_each_item_kind"] = ed_verify_input(
        [(how | (how % 3) << 3, 9 * how) for how in range(8)] + [(1 << 3, 0), (2 << 3, 0)])
    # Good signatures under the special keys (how 5), with special R (how 6),
    # with S spoiled (how 4: S + L, L + a little, top bits, L - 1).
    out["ed25519_verify_special_keys"] = ed_verify_input([(5 | (i % 3) << 3, i) for i in range(12)])
    out["ed25519_verify_special_keys_and_r"] = ed_verify_input(
        [(5, i) for i in range(12, ED_SPECIALS)] + [(6 | (i % 3) << 3, i) for i in range(7)])
    out["ed25519_verify_special_r_and_s"] = ed_verify_input(
        [(6, i) for i in range(7, ED_SPECIALS)] + [(4, 0), (4 | 1 << 3, 1)])
    out["ed25519_verify_s_ranges"] = ed_verify_input([(4 | (a % 3) << 3, a) for a in range(12)])
    # Every special peer value (fill_peers: sel % 4 == 1), 12 a call so
    # that all items are checked: under one key, under per-item keys.
    out["x25519_special_peers_one_key"] = x25519_input(0, [0], [1 | j << 2 for j in range(12)])
    out["x25519_special_peers_per_item_keys"] = x25519_input(
        1, [(i % 3) << 2 for i in range(12)], [1 | j << 2 for j in range(12, X_SPECIALS)] + [0] * 7)
    out["x25519_per_item_keys_int_max"] = x25519_input(
        1 | 5 << 1, [(i % 3) << 2 for i in range(9)],
        [(i % 3) << 2 if i % 2 else 1 | i << 2 for i in range(9)])
    out["ed25519_sign_seeds_messages"] = (bytes([OP_ED_SIGN_SEEDS, 0x00, 9, 0, 1]) +
                                          bytes([0, 4, 8, 1, 5, 0, 4, 8, 1]) +
                                          flat_messages([0, 1, 31, 32, 33, 64, 3, 0, 55]) + b"\x00")
    out["empty"] = b""
    return out


def stream_input(key, records):
    """An input in fuzz_sm3_stream.cc's layout."""
    head = bytes([len(key)]) if len(key) < 255 else b"\xff" + len(key).to_bytes(2, "little")
    return head + key + b"".join(records)


def corpus_sm3_stream():
    return {
        "empty": b"",
        "abc_in_chunks": stream_input(b"key", [b"\x01a", b"\x00", b"\x02bc", b"\xff"]),
        "block_boundaries": stream_input(b"", [b"\x3f" + bytes(63), b"\x01x", b"\x40" + bytes(64)]),
        "repeated_chunk": stream_input(b"k" * 70, [b"\x85\x20hello", b"\x00\xff"]),
        "long_key": stream_input(bytes(range(200)), [b"\x10" + bytes(range(16))]),
    }


def corpus_stream_states():
    # fuzz_stream_states.cc: a machine byte, then choices (init = 0,
    # update = 1..3, final = 4, cleanse = 5, overwrite = 6..7, each mod 8).
    names = ["sm3", "hmac_sm3", "sm4", "sm4_gcm", "skinny_ctr"]
    ops = (bytes(64) + b"\x01\x01\x11" + bytes(range(17)) + b"\x04"
           + b"\x05\x01\x01\x03abc" + b"\x06\x01\x02\x01\x01\x07" + bytes(range(7)))
    return {name: bytes([m]) + ops for m, name in enumerate(names)}


def sm4_stream_input(mode, records, iv_len=16, aad=b""):
    key, iv = bytes(range(16)), bytes(range(16, 16 + iv_len))
    head = bytes([0, mode, 0]) + key
    head += (bytes([iv_len]) + iv + bytes([len(aad)]) + aad) if mode == 5 else iv[:16]
    return head + b"".join(bytes([len(r)]) + r for r in records)


def sm4_batch_input(mode, encrypt, lens, iv_len=12, tag_len=16, control=0):
    offsets, at = [], 0
    for n in [0] + lens:
        at += n
        offsets.append(at)
    head = bytes([1, mode, encrypt, 0, len(lens), iv_len, tag_len, control])
    return head + b"".join(o.to_bytes(2, "little") for o in offsets) + bytes(range(at % 256)) * (at // 256 + 1)


def corpus_sm4():
    out = {"empty": b""}
    for mode, name in enumerate(["ecb", "cbc", "cfb", "ofb", "ctr"]):
        out[f"stream_{name}"] = sm4_stream_input(mode, [b"a" * 5, b"", b"b" * 27, b"c" * 16])
    out["stream_gcm"] = sm4_stream_input(5, [b"x" * 7, b"y" * 40], aad=b"header")
    out["stream_gcm_iv8"] = sm4_stream_input(5, [b"z" * 16], iv_len=8)
    out["batch_ctr"] = sm4_batch_input(4, 1, [0, 1, 33])
    out["batch_cbc_decrypt"] = sm4_batch_input(1, 0, [16, 32])
    out["batch_gcm"] = sm4_batch_input(5, 1, [5, 0, 64], tag_len=12)
    out["batch_bad_offsets"] = sm4_batch_input(0, 1, [16, 16], control=4)
    return out


def corpus_skinny():
    """Inputs in fuzz_skinny.cc's layout."""
    def single(mode, iv_len, pieces):
        body = bytes([0, mode, iv_len]) + bytes(range(32)) + bytes(range(100, 116))
        return body + b"".join(bytes([len(p)]) + p for p in pieces)

    def batch(mode, encrypt, lengths, control=0):
        offsets = [0]
        for n in lengths:
            offsets.append(offsets[-1] + n)
        head = bytes([1, mode, encrypt, len(lengths), control])
        return (head + b"".join(o.to_bytes(2, "little") for o in offsets)
                + bytes(i % 251 for i in range(offsets[-1])))

    return {
        "empty": b"",
        "ctr_pieces": single(1, 16, [b"a" * 5, b"", b"b" * 200, b"c" * 40]),
        "ecb_blocks": single(0, 0, [b"d" * 64, b"e" * 192]),
        "ecb_partial": single(0, 0, [b"f" * 17]),
        "bad_mode": single(0xF3, 16, [b"g" * 16]),
        "batch_ctr": batch(1, 1, [0, 1, 33, 300]),
        "batch_ecb": batch(0, 0, [16, 32, 17]),
        "batch_bad_offsets": batch(1, 1, [16, 16], control=4),
    }


OID_SM4 = tlv(0x06, bytes([0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x68]))


def corpus_sm4_key():
    key = bytes.fromhex("0123456789abcdeffedcba9876543210")

    def sm4_pkcs8(version=0, body=key, extra=b"", alg=seq(OID_SM4)):
        return seq(integer(version), alg, tlv(0x04, body), extra)

    return {
        "empty": b"",
        "der": sm4_pkcs8(),
        "pem": pem("PRIVATE KEY", sm4_pkcs8()),
        "v1": sm4_pkcs8(1),
        "v1_public_key": sm4_pkcs8(1, extra=tlv(0x81, b"\x00" + key)),
        "attributes": sm4_pkcs8(extra=tlv(0xA0, b"")),
        "short_key": sm4_pkcs8(body=key[:15]),
        "null_parameters": sm4_pkcs8(alg=seq(OID_SM4, tlv(0x05, b""))),
        "sm2_pkcs8": pkcs8(sec1(D_EXAMPLE, params=False)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
    ap.add_argument("--target", action="append",
                    help="write only this target's corpus (repeatable; default: all of them)")
    args = ap.parse_args()
    ossl = None

    def openssl():  # only the PEM/DER targets call the command line
        nonlocal ossl
        if ossl is None:
            ossl = OpenSSL()
        return ossl

    corpora = {
        "fuzz_sig_der": corpus_sig_der,
        "fuzz_sm2_decrypt": corpus_sm2_decrypt,
        "fuzz_sm2_exchange": corpus_sm2_exchange,
        "fuzz_pubkey_raw": corpus_pubkey_raw,
        "fuzz_pubkey_der_pem": lambda: corpus_pubkey_der_pem(openssl()),
        "fuzz_privkey_der_pem": lambda: corpus_privkey_der_pem(openssl()),
        "fuzz_verify": corpus_verify,
        "fuzz_batch_args": corpus_batch_args,
        "fuzz_sm4": corpus_sm4,
        "fuzz_skinny": corpus_skinny,
        "fuzz_batch_args_25519": corpus_batch_args_25519,
        "fuzz_sm3_stream": corpus_sm3_stream,
        "fuzz_stream_states": corpus_stream_states,
        "fuzz_pkcs8_decrypt": lambda: corpus_pkcs8_decrypt(openssl()),
        "fuzz_sm4_key": corpus_sm4_key,
    }
    for target in args.target or []:
        if target not in corpora:
            ap.error("no seeds for %s (targets: %s)" % (target, ", ".join(corpora)))
    for target, make in corpora.items():
        if args.target and target not in args.target:
            continue
        files = make()
        d = os.path.join(args.out, target)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("%s: %d files, %d bytes" % (target, len(files), sum(len(v) for v in files.values())))


if __name__ == "__main__":
    main()
