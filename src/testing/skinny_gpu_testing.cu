// SKINNY's GPU test hooks (testing/skinny_gpu_testing.h): the kernels the
// bitsliced one was measured against (docs/design/0002-bitsliced-ciphers.md),
// a thread per block, grid-stride, the round tweakeys passed by value in
// the launch's parameters (constant bank: every thread reads the same word
// at the same time), and the synchronous wrapper.
#include "testing/skinny_gpu_testing.h"

#include <cuda_runtime.h>

#include "core/endian.h"
#include "gpu/launch.cuh"
#include "skinny/skinny128_256_core.h"

namespace ks {
namespace skinny {
namespace gpu {
namespace {

using skinny::kRounds;
using skinny::RoundTweakeys;

constexpr int kThreads = 256;

// The T-tables of one round's SubCells, ShiftRows and MixColumns on a
// column word (byte r = row r): new column c = T0[row 0 of column c] ^
// T1[row 1 of column c-1] ^ T2[row 2 of column c-2] ^ T3[row 3 of column
// c-3] ^ K[c], from MixColumns' rows (r0^r2^r3, r0, r1^r2, r0^r2).
struct Tables {
  uint32_t t[4][256];
};
__constant__ Tables c_tables;

// The round's tweakey and c2 after ShiftRows and MixColumns (linear), as
// column words: what the table kernels XOR in.
struct ColumnKeys {
  uint32_t k[kRounds][4];
};

struct CtrStart {
  uint64_t hi, lo;  // the first counter block as a 128-bit integer
};

__device__ __forceinline__ void counter_block(const CtrStart& c, size_t i, uint32_t w[4]) {
  const uint64_t lo = c.lo + i, hi = c.hi + (lo < c.lo ? 1 : 0);
  // Big-endian bytes, read as little-endian row words.
  const uint64_t hi_le = __byte_perm(uint32_t(hi >> 32), 0, 0x0123) |
                         uint64_t(__byte_perm(uint32_t(hi), 0, 0x0123)) << 32;
  const uint64_t lo_le = __byte_perm(uint32_t(lo >> 32), 0, 0x0123) |
                         uint64_t(__byte_perm(uint32_t(lo), 0, 0x0123)) << 32;
  w[0] = uint32_t(hi_le);
  w[1] = uint32_t(hi_le >> 32);
  w[2] = uint32_t(lo_le);
  w[3] = uint32_t(lo_le >> 32);
}

// The block's input words (ECB) or counter words (CTR).
template <bool kCtr>
__device__ __forceinline__ void block_in(const uint4* in, const CtrStart& c, size_t i,
                                         uint32_t w[4]) {
  if (kCtr) {
    counter_block(c, i, w);
  } else {
    const uint4 v = in[i];
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  }
}

template <bool kCtr>
__device__ __forceinline__ void block_out(const uint4* in, uint4* out, size_t i,
                                          const uint32_t w[4]) {
  uint4 v = make_uint4(w[0], w[1], w[2], w[3]);
  if (kCtr) {
    const uint4 x = in[i];
    v.x ^= x.x, v.y ^= x.y, v.z ^= x.z, v.w ^= x.w;
  }
  out[i] = v;
}

template <bool kCtr>
__global__ void __launch_bounds__(kThreads)
    circuit_kernel(const RoundTweakeys rtk, const CtrStart c, const uint4* in, uint4* out,
                   size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t s[4];
    block_in<kCtr>(in, c, i, s);
#pragma unroll 4
    for (int r = 0; r < kRounds; ++r) skinny::round(s, rtk.rows[r]);
    block_out<kCtr>(in, out, i, s);
  }
}

// Rows <-> columns: the 4x4 byte transpose (its own inverse).
__device__ __forceinline__ void transpose(uint32_t w[4]) {
  const uint32_t t0 = __byte_perm(w[0], w[1], 0x5140), t1 = __byte_perm(w[2], w[3], 0x5140);
  const uint32_t u0 = __byte_perm(w[0], w[1], 0x7362), u1 = __byte_perm(w[2], w[3], 0x7362);
  w[0] = __byte_perm(t0, t1, 0x5410);
  w[1] = __byte_perm(t0, t1, 0x7632);
  w[2] = __byte_perm(u0, u1, 0x5410);
  w[3] = __byte_perm(u0, u1, 0x7632);
}

// Where a table kernel finds its T-values: the four tables in constant
// memory (the seed) or copied to shared memory once per CUDA block; or the
// S-box alone, 32 copies in shared memory (copy c in bank c: lane c reads
// only its own, so no two lanes of a warp ever conflict, whatever the
// bytes), the T-values spread from it: T0 = S * 0x01000101, T1 = S << 16,
// T2 = S * 0x01010001, T3 = S (make_tables).
enum class Placement { kConstant, kShared, kReplicated };

struct ReplicatedSbox {
  uint32_t s[256][32];
};

template <Placement P>
struct TableSource {
  const Tables* tab;
  const uint32_t* lane_column;  // &sbox.s[0][lane] (kReplicated)
  // The column's T-values from the bytes of rows 0 .. 3 feeding it.
  __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b, uint32_t c,
                                                 uint32_t d) const {
    if (P != Placement::kReplicated)
      return tab->t[0][a] ^ tab->t[1][b] ^ tab->t[2][c] ^ tab->t[3][d];
    const uint32_t* s = lane_column;
    return s[32 * a] * 0x01000101u ^ s[32 * b] << 16 ^ s[32 * c] * 0x01010001u ^ s[32 * d];
  }
};

template <Placement P>
__device__ __forceinline__ TableSource<P> table_source(Tables& shared_tables,
                                                       ReplicatedSbox& shared_sbox) {
  if (P == Placement::kShared) {
    for (int j = threadIdx.x; j < 4 * 256; j += blockDim.x)
      (&shared_tables.t[0][0])[j] = (&c_tables.t[0][0])[j];
  } else if (P == Placement::kReplicated) {
    for (int j = threadIdx.x; j < 256 * 32; j += blockDim.x)
      shared_sbox.s[j / 32][j % 32] = c_tables.t[3][j / 32];
  }
  if (P != Placement::kConstant) __syncthreads();  // the copies above
  return {P == Placement::kConstant ? &c_tables : &shared_tables,
          &shared_sbox.s[0][threadIdx.x & 31]};
}

template <Placement P, bool kCtr>
__global__ void __launch_bounds__(kThreads)
    table_kernel(const ColumnKeys keys, const CtrStart c, const uint4* in, uint4* out, size_t n) {
  __shared__ Tables s_tables;
  __shared__ ReplicatedSbox s_sbox;
  const TableSource<P> t = table_source<P>(s_tables, s_sbox);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t w[4];
    block_in<kCtr>(in, c, i, w);
    transpose(w);
    for (int r = 0; r < kRounds; ++r) {
      uint32_t next[4];
#pragma unroll
      for (int col = 0; col < 4; ++col)
        next[col] = t(w[col] & 0xFF, (w[(col + 3) & 3] >> 8) & 0xFF,
                      (w[(col + 2) & 3] >> 16) & 0xFF, w[(col + 1) & 3] >> 24) ^
                    keys.k[r][col];
#pragma unroll
      for (int col = 0; col < 4; ++col) w[col] = next[col];
    }
    transpose(w);
    block_out<kCtr>(in, out, i, w);
  }
}


// --- Host side -------------------------------------------------------------------
uint32_t columns_byte(const uint32_t rows[4], int col) {
  uint32_t w = 0;
  for (int r = 0; r < 4; ++r) w |= ((rows[r] >> (8 * col)) & 0xFF) << (8 * r);
  return w;
}

void make_tables(Tables* t) {
  for (uint32_t v = 0; v < 256; ++v) {
    const uint32_t s = skinny::sub_cells(v) & 0xFF;
    t->t[0][v] = s | s << 8 | s << 24;
    t->t[1][v] = s << 16;
    t->t[2][v] = s | s << 16 | s << 24;
    t->t[3][v] = s;
  }
}

void column_keys(const RoundTweakeys& rtk, ColumnKeys* out) {
  for (int r = 0; r < kRounds; ++r) {
    uint32_t k[4] = {rtk.rows[r][0], rtk.rows[r][1], 0x02u, 0};
    k[1] = skinny::rotl32(k[1], 8);
    k[2] = skinny::rotl32(k[2], 16);
    k[3] = skinny::rotl32(k[3], 24);
    skinny::mix_columns(k);
    for (int col = 0; col < 4; ++col) out->k[r][col] = columns_byte(k, col);
  }
}

cudaError_t upload_tables() {
  static cudaError_t done = [] {
    Tables t;
    make_tables(&t);
    return cudaMemcpyToSymbol(c_tables, &t, sizeof t);
  }();
  return done;
}

template <bool kCtr>
cudaError_t launch(Kernel k, const RoundTweakeys& rtk, const CtrStart& c, const uint4* in,
                   uint4* out, size_t n, cudaStream_t stream) {
  const unsigned grid = ks::gpu::grid_for(n, kThreads, 16);
  if (k == Kernel::kCircuit) {
    circuit_kernel<kCtr><<<grid, kThreads, 0, stream>>>(rtk, c, in, out, n);
    return cudaGetLastError();
  }
  const cudaError_t e = upload_tables();
  if (e != cudaSuccess) return e;
  ColumnKeys keys;
  column_keys(rtk, &keys);
  if (k == Kernel::kTablesShared)
    table_kernel<Placement::kShared, kCtr><<<grid, kThreads, 0, stream>>>(keys, c, in, out, n);
  else if (k == Kernel::kTablesReplicated)
    table_kernel<Placement::kReplicated, kCtr><<<grid, kThreads, 0, stream>>>(keys, c, in, out, n);
  else
    table_kernel<Placement::kConstant, kCtr><<<grid, kThreads, 0, stream>>>(keys, c, in, out, n);
  return cudaGetLastError();
}

}  // namespace

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::kBitsliced: return "bitsliced";
    case Kernel::kCircuit: return "circuit";
    case Kernel::kTablesShared: return "tables-shared";
    case Kernel::kTablesReplicated: return "tables-replicated";
    case Kernel::kTablesConstant: return "tables-constant";
  }
  return "?";
}

int crypt(Kernel k, const RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* d_in,
          uint8_t* d_out, size_t nblocks, cudaStream_t stream) {
  if (k == Kernel::kBitsliced) return crypt(rtk, counter, d_in, d_out, nblocks, stream);
  if (nblocks == 0) return cudaSuccess;
  CtrStart c = {0, 0};
  const uint4* in = reinterpret_cast<const uint4*>(d_in);
  uint4* out = reinterpret_cast<uint4*>(d_out);
  if (counter == nullptr) return launch<false>(k, rtk, c, in, out, nblocks, stream);
  c.hi = load_be64(counter);
  c.lo = load_be64(counter + 8);
  return launch<true>(k, rtk, c, in, out, nblocks, stream);
}

int run_crypt(Kernel k, const RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* in,
              uint8_t* out, size_t nblocks) {
  if (nblocks == 0) return cudaSuccess;
  const ks::gpu::DeviceArray<uint8_t> d(16 * nblocks, in);
  cudaError_t e = d.error();
  if (e == cudaSuccess) e = cudaError_t(crypt(k, rtk, counter, d.get(), d.get(), nblocks, nullptr));
  if (e == cudaSuccess) e = d.copy_out(out);
  return e;
}

}  // namespace gpu
}  // namespace skinny
}  // namespace ks
