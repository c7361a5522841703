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
#if defined(KS_SM4_SBOX_GFNI)
  template <uint8_t c>
  KS_SM4_INLINE static V affine(V x, V m) { return _mm_gf2p8affine_epi64_epi8(x, m, c); }
  template <uint8_t c>
  KS_SM4_INLINE static V affine_inv(V x, V m) { return _mm_gf2p8affineinv_epi64_epi8(x, m, c); }
#else
  KS_SM4_INLINE static V aesenclast_zero_key(V x) {
    return _mm_aesenclast_si128(x, _mm_setzero_si128());
  }
#endif
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

// A bytewise map on every byte of a vector of lane policy L.
template <class L>
KS_SM4_INLINE typename L::V bytewise(typename L::V x, const BytewiseMap& m) {
#if defined(KS_SM4_SBOX_GFNI)
  return L::template affine<0>(x, L::set1_64(m.gfni));
#else
  return nibble_affine<L>(x, m.nibbles);
#endif
}

// The nonlinear half of a folded round: the E_d images of inv(u) (E_1
// serves d = 1 and 2 of L). kKey: the key schedule's L'. kRepeated: every
// 128-bit lane holds one word four times (the one-block path), where
// ShiftRows is the identity; otherwise the lanes are different blocks'
// words and aesenclast needs InvShiftRows first.
template <class L, bool kKey, bool kRepeated>
struct FoldedSbox {
  using V = typename L::V;
#if defined(KS_SM4_SBOX_GFNI)
  template <int d>
  KS_SM4_INLINE static V image(V u) {
    constexpr uint64_t m = affine::gfni_matrix(affine::folded_out(d, kKey));
    return L::template affine_inv<0>(u, L::set1_64(m));
  }
  KS_SM4_INLINE static V prepare(V u) { return u; }
#else
  // aesenclast(u, 0) = SubBytes(ShiftRows(u)); every E_d is then two
  // nibble lookups of the same indices.
  template <int d>
  KS_SM4_INLINE static V image(V z) {
    static constexpr affine::NibbleTables kTables = affine::folded_out_of_subbytes(d, kKey);
    return nibble_affine<L>(z, kTables);
  }
  KS_SM4_INLINE static V prepare(V u) {
    return L::aesenclast_zero_key(kRepeated ? u : L::shuffle(u, L::pattern(inv_shift_rows())));
  }
#endif
};

// XOR_d rol_{8d}(E_d inv(u)) of L (or of L' with kKey), XORed into `with`.
template <class L, bool kKey, bool kRepeated>
KS_SM4_INLINE typename L::V folded_t(typename L::V u, typename L::V with) {
  using S = FoldedSbox<L, kKey, kRepeated>;
  const auto z = S::prepare(u);
  // The images that are rotated first: E_0's needs no shuffle.
  const auto e1 = S::template image<1>(z), e3 = S::template image<3>(z);
  const auto e2 = kKey ? S::template image<2>(z) : e1;  // L: E_2 = E_1
  const auto r8 = L::shuffle(e1, L::pattern(kRotl8));
  const auto r16 = L::shuffle(e2, L::pattern(kRotl16));
  const auto r24 = L::shuffle(e3, L::pattern(kRotl24));
  const auto e0 = S::template image<0>(z);
  return L::xor5(with, e0, r8, r16, r24);
}

// One chain's state: Y_i .. Y_{i+3} and the S-box input u_i of round i.
template <class L>
struct FoldedState {
  typename L::V w0, w1, w2, w3, u;
};

template <class L>
KS_SM4_INLINE FoldedState<L> folded_state(const typename L::V w[4], typename L::V rho0) {
  FoldedState<L> s;
  s.w0 = w[0], s.w1 = w[1], s.w2 = w[2], s.w3 = w[3];
  s.u = L::xor2(L::xor3(s.w1, s.w2, s.w3), rho0);
  return s;
}

// Round i: u_{i+1} = [Y_i ^ kappa ^ Y_{i+2} ^ Y_{i+3} ^ rho_{i+1}] ^ T(u_i),
// the bracket computed off the chain, then Y_{i+4} = u_{i+1} ^ [Y_{i+2} ^
// Y_{i+3} ^ rho_{i+1}], also off it.
template <class L, bool kKey, bool kRepeated>
KS_SM4_INLINE void folded_round(FoldedState<L>& s, typename L::V next_rho, typename L::V kappa) {
  const auto early = L::xor3(s.w2, s.w3, next_rho);
  s.u = folded_t<L, kKey, kRepeated>(s.u, L::xor3(early, s.w0, kappa));
  s.w0 = s.w1, s.w1 = s.w2, s.w2 = s.w3;
  s.w3 = L::xor2(s.u, early);
}

// The last round: Y_35 = Y_31 ^ kappa ^ T(u_31).
template <class L, bool kKey, bool kRepeated>
KS_SM4_INLINE typename L::V folded_last(const FoldedState<L>& s, typename L::V kappa) {
  return folded_t<L, kKey, kRepeated>(s.u, L::xor2(s.w0, kappa));
}

// Blocks <-> the folded basis: big-endian words as integers, then phi.
KS_SM4_INLINE __m128i block_to_folded(__m128i block) {
  return bytewise<Xmm>(Xmm::shuffle(block, Xmm::pattern(kBswap32)), kPhi);
}
KS_SM4_INLINE __m128i folded_to_block(__m128i y) {
  return Xmm::shuffle(bytewise<Xmm>(y, kPhiInverse), Xmm::pattern(kBswap32));
}

// rho_i = phi(rk_i) ^ T c for rounds 4q .. 4q + 3, one per dword.
KS_SM4_INLINE __m128i folded_round_keys(const uint32_t* rk4) {
  const __m128i k = Xmm::load(reinterpret_cast<const uint8_t*>(rk4));
  return Xmm::xor2(bytewise<Xmm>(k, kPhi), Xmm::set1(affine::kFoldedGamma));
}

// The 32 rounds on B blocks in the folded basis: y[b] holds X_0..X_3 of
// block b (dword k = word k); afterwards (X_35, X_34, X_33, X_32). The B
// chains interleave.
template <int B>
KS_SM4_INLINE void folded_rounds(const uint32_t rk[kRounds], __m128i y[B]) {
  const __m128i kappa = Xmm::set1(affine::kFoldedKappa);
  __m128i rho = folded_round_keys(rk);
  constexpr auto round = folded_round<Xmm, false, true>;
  FoldedState<Xmm> s[B];
  for (int b = 0; b < B; ++b) {
    const __m128i w[4] = {Xmm::dword<0>(y[b]), Xmm::dword<1>(y[b]), Xmm::dword<2>(y[b]),
                          Xmm::dword<3>(y[b])};
    s[b] = folded_state<Xmm>(w, Xmm::dword<0>(rho));
  }
  for (int q = 0; q < kRounds / 4; ++q) {  // rounds 4q .. 4q + 3
    for (int b = 0; b < B; ++b) round(s[b], Xmm::dword<1>(rho), kappa);
    for (int b = 0; b < B; ++b) round(s[b], Xmm::dword<2>(rho), kappa);
    for (int b = 0; b < B; ++b) round(s[b], Xmm::dword<3>(rho), kappa);
    if (q == kRounds / 4 - 1) break;
    rho = folded_round_keys(rk + 4 * q + 4);
    for (int b = 0; b < B; ++b) round(s[b], Xmm::dword<0>(rho), kappa);
  }
  for (int b = 0; b < B; ++b) {
    const __m128i y35 = folded_last<Xmm, false, true>(s[b], kappa);
    y[b] = Xmm::gather(y35, s[b].w3, s[b].w2, s[b].w1);
  }
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
  const __m128i y = Xmm::xor2(block_to_folded(Xmm::load(key)), bytewise<Xmm>(fk_words, kPhi));
  const __m128i kappa = Xmm::set1(affine::kFoldedKappaKey);
  const __m128i w[4] = {Xmm::dword<0>(y), Xmm::dword<1>(y), Xmm::dword<2>(y), Xmm::dword<3>(y)};
  FoldedState<Xmm> s = folded_state<Xmm>(w, Xmm::set1(kFoldedCk.w[0]));
  alignas(16) uint32_t folded[kRounds];
  for (int i = 0; i < kRounds; ++i) {
    folded_round<Xmm, true, true>(s, Xmm::set1(kFoldedCk.w[i + 1]), kappa);
    folded[i] = Xmm::low_word(s.w3);  // phi(rk_i); the last is folded_last's value
  }
  for (int q = 0; q < kRounds; q += 4) {
    const __m128i f = Xmm::load(reinterpret_cast<const uint8_t*>(folded + q));
    Xmm::store(reinterpret_cast<uint8_t*>(rk + q), bytewise<Xmm>(f, kPhiInverse));
  }
  secure_wipe(folded, sizeof folded);
}

// --- Many messages, one per lane: the serial modes of many streams -------
// The folded rounds over G groups of lanes (sm4_x86_lanes.h's layout: word
// i of every lane's block in vector i), interleaved, each lane with its own
// round keys (rho[g][r], in memory) and so its own message. Output:
// (X_35 .. X_32) in y[g][0..3].
template <class L, int G>
KS_SM4_INLINE void folded_rounds_lanes(const typename L::V rho[][kRounds],
                                       typename L::V y[][4]) {
  const auto kappa = L::set1(affine::kFoldedKappa);
  FoldedState<L> s[G];
  for (int g = 0; g < G; ++g) s[g] = folded_state<L>(y[g], rho[g][0]);
  for (int i = 1; i < kRounds; ++i)
    for (int g = 0; g < G; ++g) folded_round<L, false, false>(s[g], rho[g][i], kappa);
  for (int g = 0; g < G; ++g) {
    y[g][0] = folded_last<L, false, false>(s[g], kappa);
    y[g][1] = s[g].w3, y[g][2] = s[g].w2, y[g][3] = s[g].w1;
  }
}

// rho_i = phi(rk_i) ^ T c of kWords keys at once (keys[e]: lane e's key,
// in the order of load_blocks_of): the key expansion of expand_key_serial
// over lanes, whose output is already in the basis the rounds want.
template <class L>
KS_SM4_INLINE void folded_key_lanes(const uint8_t* const keys[L::kWords],
                                    typename L::V rho[kRounds]) {
  typename L::V w[4];
  load_blocks_of<L>(keys, w);
  for (int i = 0; i < 4; ++i) w[i] = bytewise<L>(L::xor2(w[i], L::set1(fk(i))), kPhi);
  const auto kappa = L::set1(affine::kFoldedKappaKey);
  const auto gamma = L::set1(affine::kFoldedGamma);
  FoldedState<L> s = folded_state<L>(w, L::set1(kFoldedCk.w[0]));
  for (int i = 0; i < kRounds; ++i) {
    folded_round<L, true, false>(s, L::set1(kFoldedCk.w[i + 1]), kappa);
    rho[i] = L::xor2(s.w3, gamma);  // phi(rk_i) ^ T c
  }
}

// The Variant::chain_lanes of a kernel: up to G x kWords messages, one per
// lane (message g kWords + block_of_lane(e) in lane e of group g), block j
// of every message in step j, the chains in the folded basis (only the
// data crosses phi). G groups interleave: one group's round is a chain of
// dependent instructions. Lengths are public: a message that has ended
// reads zeros and writes to scratch, and its chaining block is saved in the
// step of its last block.
template <class L, int G>
void chain_lanes_folded(ChainMode mode, ChainJob* jobs, size_t n) {
  using V = typename L::V;
  constexpr int W = L::kWords, kLanes = G * W;
  alignas(64) uint8_t zero[16] = {}, scratch[kLanes][16];
  size_t steps = 0;
  for (size_t m = 0; m < n; ++m) steps = jobs[m].nblocks > steps ? jobs[m].nblocks : steps;
  // The round keys of every lane at once, already in the folded basis.
  const uint8_t* src[kLanes];
  for (int m = 0; m < kLanes; ++m) src[m] = size_t(m) < n ? jobs[m].key : zero;
  V rho[G][kRounds];
  for (int g = 0; g < G; ++g) folded_key_lanes<L>(src + g * W, rho[g]);
  // Where each lane reads and writes: its message's blocks while it lasts,
  // then zeros and scratch (lanes past n from the start).
  const uint8_t* in[kLanes];
  uint8_t* out_at[kLanes];
  size_t blocks[kLanes];
  for (int m = 0; m < kLanes; ++m) {
    const bool used = size_t(m) < n;
    in[m] = used ? jobs[m].in : zero;
    out_at[m] = used ? jobs[m].out : scratch[m];
    blocks[m] = used ? jobs[m].nblocks : 0;
  }
  uint8_t* dst[kLanes];
  auto pointers = [&](size_t j) {
    for (int m = 0; m < kLanes; ++m) {
      const bool live = j < blocks[m];
      src[m] = live ? in[m] + 16 * j : zero;
      dst[m] = live ? out_at[m] + 16 * j : scratch[m];
    }
  };
  // Step j's input blocks, loaded (and moved into the folded basis) one
  // step ahead, so that the loads and transposes overlap the rounds.
  auto load_step = [&](V folded_p[][4]) {
    for (int g = 0; g < G; ++g) {
      load_blocks_of<L>(src + g * W, folded_p[g]);
      for (int i = 0; i < 4; ++i) folded_p[g][i] = bytewise<L>(folded_p[g][i], kPhi);
    }
  };
  auto store_step = [&](uint8_t* const* to, V y[][4]) {
    for (int g = 0; g < G; ++g) {
      V out[4];
      for (int i = 0; i < 4; ++i) out[i] = bytewise<L>(y[g][i], kPhiInverse);
      store_blocks_of<L>(to + g * W, out);
    }
  };
  V y[G][4], folded_p[G][4], out[G][4];
  for (int m = 0; m < kLanes; ++m) src[m] = size_t(m) < n ? jobs[m].iv : zero;
  for (int g = 0; g < G; ++g) {
    load_blocks_of<L>(src + g * W, y[g]);
    for (int i = 0; i < 4; ++i) y[g][i] = bytewise<L>(y[g][i], kPhi);
  }
  if (steps > 0) {
    pointers(0);
    load_step(folded_p);
  }
  uint8_t* step_dst[kLanes];
  for (size_t j = 0; j < steps; ++j) {
    V this_folded[G][4];
    for (int g = 0; g < G; ++g)
      for (int i = 0; i < 4; ++i) {
        this_folded[g][i] = folded_p[g][i];
        if (mode == ChainMode::kCbc) y[g][i] = L::xor2(y[g][i], this_folded[g][i]);
      }
    memcpy(step_dst, dst, sizeof dst);
    if (j + 1 < steps) {
      pointers(j + 1);
      load_step(folded_p);
    }
    folded_rounds_lanes<L, G>(rho, y);  // C_j, or E(C_{j-1}) / O_j
    for (int g = 0; g < G; ++g)
      for (int i = 0; i < 4; ++i) {
        out[g][i] = y[g][i];
        if (mode == ChainMode::kCbc) continue;  // public: the mode, not the data
        out[g][i] = L::xor2(out[g][i], this_folded[g][i]);  // in the folded basis
        if (mode == ChainMode::kCfb) y[g][i] = out[g][i];  // C_j is the next input
      }
    store_step(step_dst, out);
    bool ends = false;
    for (int m = 0; m < kLanes; ++m) ends |= j + 1 == blocks[m];
    if (!ends) continue;
    for (int m = 0; m < kLanes; ++m)  // the chaining block of messages ending here
      step_dst[m] = j + 1 == blocks[m] ? jobs[m].iv : scratch[m];
    store_step(step_dst, y);
  }
  secure_wipe(rho, sizeof rho);
  secure_wipe(scratch, sizeof scratch);
}

}  // namespace
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_X86_SERIAL_H_
