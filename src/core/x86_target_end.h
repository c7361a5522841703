// Closes the region that core/x86_target_begin.h opened.
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#undef KS_X86_TARGET_PUSH
#undef KS_X86_PRAGMA
#undef KS_X86_TARGET
