// The C API's streaming states (ks_sm3_ctx, ks_hmac_sm3_ctx, ks_sm4_ctx,
// ks_sm4_gcm_ctx, ks_skinny_ctr_ctx) live in caller memory, which may hold
// anything: never initialised, wiped by cleanse or final, or overwritten.
// A zeroed SKINNY CTR state once encrypted under an all-zero key schedule
// (a keystream independent of the caller's key), and a 0xFF-filled one
// indexed past its keystream block (issue 42). So every state type starts
// with a tag that init writes last and a wipe clears, and a call uses the
// state only if the tag is that type's own and consistent() vouches for
// every field that indexes a buffer or selects code.
#ifndef KS_API_STREAM_STATE_H_
#define KS_API_STREAM_STATE_H_

#include <stdint.h>

#include <new>
#include <utility>

namespace ks {
namespace api {

// The State in c's opaque storage, or null when it is not one that init
// made (the caller then returns KS_ERR_INVALID_ARGUMENT).
template <class State, class Opaque>
State* state_of(Opaque* c) {
  static_assert(sizeof(State) <= sizeof(c->opaque), "opaque state too small");
  static_assert(alignof(State) <= alignof(Opaque), "opaque state misaligned");
  auto* s = reinterpret_cast<State*>(c->opaque);
  return s->tag == State::kTag && s->consistent() ? s : nullptr;
}

// A new State in c's storage, untagged: init tags it once it is complete,
// so that an init that fails midway leaves a state every call refuses.
template <class State, class Opaque, class... Args>
State* start_state(Opaque* c, Args&&... args) {
  auto* s = new (c->opaque) State(std::forward<Args>(args)...);
  s->tag = 0;
  return s;
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_STREAM_STATE_H_
