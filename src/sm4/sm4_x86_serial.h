// x86 SM4 for one block at a time: the serial modes (CBC, CFB-128 and OFB
// encryption), the key schedule, and runs of one to a few blocks, where
// one block's 32 dependent rounds are the whole cost and the latency of a
// round is what counts.
//
// Included by the sm4_x86_*.cc kernels inside their target region, after
// sm4_x86_lanes.h (whose byte patterns, lane policies and KS_SM4_SBOX_*
// choice it reuses); unnamed namespace for the reason given there.
//
// The round (sm4_sbox_affine.h, "The folded round"): the state words stay
// in the S-box's input basis Y = phi(X), one 32-bit word per xmm register,
// repeated in all four dwords. Repeated, ShiftRows is the identity on the
// state, so aesenclast needs no shuffle around it, and the round keys and
// constants are plain broadcasts. A round is then
//   u -> [inversion and E_0, E_1, E_3 from u] -> rotations -> XOR of 5,
// with the next round's other inputs XORed in beforehand:
//   GFNI: gf2p8affineinvqb x3 (3 cycles, 2 issued a cycle), vpshufb x3, two
//   vpternlogd (AVX-512 VL) or three vpxor.
// Measured by tools/sm4_micro.cc ("round latency"; docs/design/0011).
#ifndef KS_CIPHER_SM4_X86_SERIAL_H_
#define KS_CIPHER_SM4_X86_SERIAL_H_

#ifndef KS_CIPHER_SM4_X86_LANES_H_
#error "include sm4_x86_lanes.h first"
#endif

namespace ks {
namespace sm4 {
namespace {

// 128-bit operations the serial path needs beyond SSE's.
struct Xmm {
  using V = __m128i;
  KS_SM4_INLINE static V load(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  KS_SM4_INLINE static void store(uint8_t* p, V v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
  }
  KS_SM4_INLINE static V pattern(const BytePattern& p) { return load(p.b); }
  KS_SM4_INLINE static V set1(uint32_t x) { return _mm_set1_epi32(int(x)); }
  KS_SM4_INLINE static V set1_64(uint64_t x) { return _mm_set1_epi64x(int64_t(x)); }
  KS_SM4_INLINE static V xor2(V a, V b) { return _mm_xor_si128(a, b); }
  KS_SM4_INLINE static V xor3(V a, V b, V c) {
#if defined(KS_SM4_LANES_ZMM) && !defined(KS_CT_MSAN)  // AVX-512 VL: vpternlogd
    return _mm_ternarylogic_epi32(a, b, c, 0x96);
#else
    return xor2(xor2(a, b), c);
#endif
  }
  // a ^ b ^ c ^ d ^ e, c d e the last to arrive: depth 2 after them with
  // vpternlogd, 3 without.
  KS_SM4_INLINE static V xor5(V a, V b, V c, V d, V e) {
#if defined(KS_SM4_LANES_ZMM) && !defined(KS_CT_MSAN)
    return xor3(xor3(a, b, c), d, e);
#else
    return xor2(xor2(xor2(a, b), xor2(c, d)), e);
#endif
  }
  KS_SM4_INLINE static V shuffle(V table, V idx) { return _mm_shuffle_epi8(table, idx); }
  KS_SM4_INLINE static V and2(V a, V b) { return _mm_and_si128(a, b); }
  KS_SM4_INLINE static V shr16(V a, int n) { return _mm_srli_epi16(a, n); }
  // Dword k of v in every dword.
  template <int k>
  KS_SM4_INLINE static V dword(V v) { return _mm_shuffle_epi32(v, k * 0x55); }
  // Four words w0..w3, each repeated, into one register: dword k = wk.
  KS_SM4_INLINE static V gather(V w0, V w1, V w2, V w3) {
    const V lo = _mm_unpacklo_epi32(w0, w1), hi = _mm_unpacklo_epi32(w2, w3);
    return _mm_unpacklo_epi64(lo, hi);
  }
  KS_SM4_INLINE static uint32_t low_word(V v) { return uint32_t(_mm_cvtsi128_si32(v)); }
};

// A bytewise linear map in both encodings: GFNI's matrix operand, and the
// nibble tables of the AES-NI kernels (which have no GFNI). Constants, so
// that nothing of sm4_sbox_affine.h is computed at run time.
struct BytewiseMap {
  uint64_t gfni;
  affine::NibbleTables nibbles;
};
constexpr BytewiseMap bytewise_map(const affine::Matrix& m) {
  return {affine::gfni_matrix(m), affine::nibble_tables({m, 0})};
}
constexpr BytewiseMap kPhi = bytewise_map(affine::phi());
constexpr BytewiseMap kPhiInverse = bytewise_map(affine::inverse(affine::phi()));
constexpr BytePattern kRotl8 = rotl_bytes(1), kRotl16 = rotl_bytes(2), kRotl24 = rotl_bytes(3);

KS_SM4_INLINE __m128i bytewise(__m128i x, const BytewiseMap& m) {
#if defined(KS_SM4_SBOX_GFNI)
  return _mm_gf2p8affine_epi64_epi8(x, Xmm::set1_64(m.gfni), 0);
#else
  return nibble_affine<Xmm>(x, m.nibbles);
#endif
}

// The nonlinear half of a folded round: the three E_d images of inv(u),
// E_0 first (E_1 serves d = 1 and 2). kKey: the key schedule's L'.
template <bool kKey>
struct FoldedSbox {
#if defined(KS_SM4_SBOX_GFNI)
  template <int d>
  KS_SM4_INLINE static __m128i image(__m128i u) {
    constexpr uint64_t m = affine::gfni_matrix(affine::folded_out(d, kKey));
    return _mm_gf2p8affineinv_epi64_epi8(u, Xmm::set1_64(m), 0);
  }
  KS_SM4_INLINE static __m128i prepare(__m128i u) { return u; }
#else
  // aesenclast(u, 0) = SubBytes(u) on a repeated state; every E_d is then
  // two nibble lookups of the same indices.
  template <int d>
  KS_SM4_INLINE static __m128i image(__m128i z) {
    static constexpr affine::NibbleTables kTables = affine::folded_out_of_subbytes(d, kKey);
    return nibble_affine<Xmm>(z, kTables);
  }
  KS_SM4_INLINE static __m128i prepare(__m128i u) {
    return _mm_aesenclast_si128(u, _mm_setzero_si128());
  }
#endif
};

// XOR_d rol_{8d}(E_d inv(u)) of L (or of L' with kKey), XORed into `with`.
template <bool kKey>
KS_SM4_INLINE __m128i folded_t(__m128i u, __m128i with) {
  using S = FoldedSbox<kKey>;
  const __m128i z = S::prepare(u);
  // The images that are rotated first: E_0's needs no shuffle.
  const __m128i e1 = S::template image<1>(z), e3 = S::template image<3>(z);
  const __m128i e2 = kKey ? S::template image<2>(z) : e1;  // L: E_2 = E_1
  const __m128i r8 = Xmm::shuffle(e1, Xmm::pattern(kRotl8));
  const __m128i r16 = Xmm::shuffle(e2, Xmm::pattern(kRotl16));
  const __m128i r24 = Xmm::shuffle(e3, Xmm::pattern(kRotl24));
  const __m128i e0 = S::template image<0>(z);
  return Xmm::xor5(with, e0, r8, r16, r24);
}

// One chain's state: Y_i .. Y_{i+3} and the S-box input u_i of round i.
struct FoldedState {
  __m128i w0, w1, w2, w3, u;
};

KS_SM4_INLINE FoldedState folded_state(__m128i y, __m128i rho0) {
  FoldedState s;
  s.w0 = Xmm::dword<0>(y), s.w1 = Xmm::dword<1>(y);
  s.w2 = Xmm::dword<2>(y), s.w3 = Xmm::dword<3>(y);
  s.u = Xmm::xor2(Xmm::xor3(s.w1, s.w2, s.w3), rho0);
  return s;
}

// Round i: u_{i+1} = [Y_i ^ kappa ^ Y_{i+2} ^ Y_{i+3} ^ rho_{i+1}] ^ T(u_i),
// the bracket computed off the chain, then Y_{i+4} = u_{i+1} ^ [Y_{i+2} ^
// Y_{i+3} ^ rho_{i+1}], also off it.
template <bool kKey>
KS_SM4_INLINE void folded_round(FoldedState& s, __m128i next_rho, __m128i kappa) {
  const __m128i early = Xmm::xor3(s.w2, s.w3, next_rho);
  s.u = folded_t<kKey>(s.u, Xmm::xor3(early, s.w0, kappa));
  s.w0 = s.w1, s.w1 = s.w2, s.w2 = s.w3;
  s.w3 = Xmm::xor2(s.u, early);
}

// The last round: Y_35 = Y_31 ^ kappa ^ T(u_31).
template <bool kKey>
KS_SM4_INLINE __m128i folded_last(const FoldedState& s, __m128i kappa) {
  return folded_t<kKey>(s.u, Xmm::xor2(s.w0, kappa));
}

// Blocks <-> the folded basis: big-endian words as integers, then phi.
KS_SM4_INLINE __m128i block_to_folded(__m128i block) {
  return bytewise(Xmm::shuffle(block, Xmm::pattern(kBswap32)), kPhi);
}
KS_SM4_INLINE __m128i folded_to_block(__m128i y) {
  return Xmm::shuffle(bytewise(y, kPhiInverse), Xmm::pattern(kBswap32));
}

// rho_i = phi(rk_i) ^ T c for rounds 4q .. 4q + 3, one per dword.
KS_SM4_INLINE __m128i folded_round_keys(const uint32_t* rk4) {
  const __m128i k = Xmm::load(reinterpret_cast<const uint8_t*>(rk4));
  return Xmm::xor2(bytewise(k, kPhi), Xmm::set1(affine::kFoldedGamma));
}

// The 32 rounds on B blocks in the folded basis: y[b] holds X_0..X_3 of
// block b (dword k = word k); afterwards (X_35, X_34, X_33, X_32). The B
// chains interleave.
template <int B>
KS_SM4_INLINE void folded_rounds(const uint32_t rk[kRounds], __m128i y[B]) {
  const __m128i kappa = Xmm::set1(affine::kFoldedKappa);
  __m128i rho = folded_round_keys(rk);
  FoldedState s[B];
  for (int b = 0; b < B; ++b) s[b] = folded_state(y[b], Xmm::dword<0>(rho));
  for (int q = 0; q < kRounds / 4; ++q) {  // rounds 4q .. 4q + 3
    for (int b = 0; b < B; ++b) folded_round<false>(s[b], Xmm::dword<1>(rho), kappa);
    for (int b = 0; b < B; ++b) folded_round<false>(s[b], Xmm::dword<2>(rho), kappa);
    for (int b = 0; b < B; ++b) folded_round<false>(s[b], Xmm::dword<3>(rho), kappa);
    if (q == kRounds / 4 - 1) break;
    rho = folded_round_keys(rk + 4 * q + 4);
    for (int b = 0; b < B; ++b) folded_round<false>(s[b], Xmm::dword<0>(rho), kappa);
  }
  for (int b = 0; b < B; ++b)
    y[b] = Xmm::gather(folded_last<false>(s[b], kappa), s[b].w3, s[b].w2, s[b].w1);
}

KS_SM4_INLINE __m128i crypt_one(const uint32_t rk[kRounds], __m128i block) {
  __m128i y[1] = {block_to_folded(block)};
  folded_rounds<1>(rk, y);
  return folded_to_block(y[0]);
}

// Variant::crypt_one_blocks: n independent blocks, two in flight.
void crypt_blocks_serial(const uint32_t rk[kRounds], const uint8_t* in, uint8_t* out, size_t n) {
  for (; n >= 2; n -= 2, in += 32, out += 32) {
    __m128i y[2] = {block_to_folded(Xmm::load(in)), block_to_folded(Xmm::load(in + 16))};
    folded_rounds<2>(rk, y);
    Xmm::store(out, folded_to_block(y[0]));
    Xmm::store(out + 16, folded_to_block(y[1]));
  }
  if (n == 1) Xmm::store(out, crypt_one(rk, Xmm::load(in)));
}

// Variant::chain: CBC, CFB-128 or OFB encryption of n whole blocks, the
// chaining block (C_{-1} or O_{-1} in, the last C or O out) in iv. The
// chain stays in the folded basis: only the data crosses phi.
void chain_serial(const uint32_t rk[kRounds], ChainMode mode, uint8_t iv[16],
                  const uint8_t* in, uint8_t* out, size_t n) {
  __m128i y[1] = {block_to_folded(Xmm::load(iv))};
  for (; n > 0; --n, in += 16, out += 16) {
    const __m128i p = Xmm::load(in);
    if (mode == ChainMode::kCbc) {  // public: the mode, not the data
      y[0] = Xmm::xor2(y[0], block_to_folded(p));
      folded_rounds<1>(rk, y);
      Xmm::store(out, folded_to_block(y[0]));
    } else {
      folded_rounds<1>(rk, y);  // y = E(C_{j-1}) or O_j
      const __m128i c = Xmm::xor2(p, folded_to_block(y[0]));
      Xmm::store(out, c);
      if (mode == ChainMode::kCfb) y[0] = block_to_folded(c);
    }
  }
  Xmm::store(iv, folded_to_block(y[0]));
}

// The key schedule's rho_i: phi(CK_i) ^ T c, and 0 after the last round.
struct FoldedCk {
  uint32_t w[kRounds + 1];
};
constexpr FoldedCk folded_cks() {
  FoldedCk t{};
  for (int i = 0; i < kRounds; ++i) t.w[i] = affine::folded_ck(i);
  return t;
}
constexpr FoldedCk kFoldedCk = folded_cks();

// Variant::expand_key: GB/T 32907-2016's key expansion as 32 folded rounds
// (L' for L, CK_i for the round keys): rk_i = X_{i+4}, converted back from
// the folded basis four at a time.
void expand_key_serial(const uint8_t key[kKeyBytes], uint32_t rk[kRounds]) {
  const __m128i fk_words = _mm_setr_epi32(int(fk(0)), int(fk(1)), int(fk(2)), int(fk(3)));
  const __m128i y = Xmm::xor2(block_to_folded(Xmm::load(key)), bytewise(fk_words, kPhi));
  const __m128i kappa = Xmm::set1(affine::kFoldedKappaKey);
  FoldedState s = folded_state(y, Xmm::set1(kFoldedCk.w[0]));
  alignas(16) uint32_t folded[kRounds];
  for (int i = 0; i < kRounds; ++i) {
    folded_round<true>(s, Xmm::set1(kFoldedCk.w[i + 1]), kappa);
    folded[i] = Xmm::low_word(s.w3);  // phi(rk_i); the last is folded_last's value
  }
  for (int q = 0; q < kRounds; q += 4) {
    const __m128i f = Xmm::load(reinterpret_cast<const uint8_t*>(folded + q));
    Xmm::store(reinterpret_cast<uint8_t*>(rk + q), bytewise(f, kPhiInverse));
  }
  secure_wipe(folded, sizeof folded);
}

}  // namespace
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_X86_SERIAL_H_
