// The field policy: what the curve formulas (curve/jacobian.h,
// curve/edwards.h, curve/montgomery_ladder.h) and the exponentiation chains
// (field/fp_chain.h, field/fe25519_chain.h) ask of a field type F. Every
// field type of the library satisfies it, whatever its representation:
// 4x64-bit limbs on the CPU (field/fp.h, field/fe25519.h), eight lanes of
// 52-bit limbs in AVX-512 IFMA registers (field/fp_ifma_simd.h,
// field/fe25519_ifma.h), 8x32-bit limbs with PTX carry chains on the GPU
// (field/fp_gpu.cuh), limbs held in doubles on the GPU's FP64 units.
//
//   typename F::Elem                      an element (a value type)
//   F::zero(), F::one()
//   F::add(a, b), F::sub(a, b), F::neg(a), F::dbl(a)
//   F::mul(a, b), F::sqr(a), F::sqr_n(a, n)   (a^(2^n))
//   F::is_zero(a), F::eq(a, b)            -> a mask: all ones for true, zero
//                                            for false (on lane types, a
//                                            bitmap with a bit per lane)
//   F::select(mask, a, b)                 mask ? a : b
// Formulas that need more say so and check it themselves:
//   F::half(a)                            a / 2 (jacobian.h's doubling)
//   F::mul_small(a, k)                    a * k for a small constant k (the
//                                            Montgomery ladder's a24)
// Every operation runs in constant time: no branch and no memory index
// depends on an element's value.
//
// KS_ASSERT_FIELD_POLICY(F) checks the core at compile time, where a field
// type is defined; the formulas' headers need nothing more than F.
#ifndef KS_FIELD_POLICY_H_
#define KS_FIELD_POLICY_H_

#include <type_traits>
#include <utility>

namespace ks {
namespace field {
namespace policy_detail {

template <class F, class = void>
struct IsFieldPolicy : std::false_type {};

template <class F>
struct IsFieldPolicy<
    F, std::void_t<typename F::Elem, decltype(F::zero()), decltype(F::one()),
                   decltype(F::add(std::declval<const typename F::Elem&>(),
                                   std::declval<const typename F::Elem&>())),
                   decltype(F::sub(std::declval<const typename F::Elem&>(),
                                   std::declval<const typename F::Elem&>())),
                   decltype(F::neg(std::declval<const typename F::Elem&>())),
                   decltype(F::dbl(std::declval<const typename F::Elem&>())),
                   decltype(F::mul(std::declval<const typename F::Elem&>(),
                                   std::declval<const typename F::Elem&>())),
                   decltype(F::sqr(std::declval<const typename F::Elem&>())),
                   decltype(F::sqr_n(std::declval<const typename F::Elem&>(), 1)),
                   decltype(F::select(F::is_zero(std::declval<const typename F::Elem&>()),
                                      std::declval<const typename F::Elem&>(),
                                      std::declval<const typename F::Elem&>())),
                   decltype(F::eq(std::declval<const typename F::Elem&>(),
                                  std::declval<const typename F::Elem&>()))>>
    : std::integral_constant<
          bool, std::is_same<decltype(F::mul(std::declval<const typename F::Elem&>(),
                                             std::declval<const typename F::Elem&>())),
                             typename F::Elem>::value &&
                    std::is_same<decltype(F::select(
                                     F::eq(std::declval<const typename F::Elem&>(),
                                           std::declval<const typename F::Elem&>()),
                                     std::declval<const typename F::Elem&>(),
                                     std::declval<const typename F::Elem&>())),
                                 typename F::Elem>::value> {};

}  // namespace policy_detail

template <class F>
constexpr bool is_field_policy_v = policy_detail::IsFieldPolicy<F>::value;

}  // namespace field
}  // namespace ks

#define KS_ASSERT_FIELD_POLICY(F) \
  static_assert(::ks::field::is_field_policy_v<F>, #F " does not satisfy field/policy.h")

#endif  // KS_FIELD_POLICY_H_
