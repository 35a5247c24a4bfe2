#pragma once
// What the tests were compiled as. Under AddressSanitizer (scripts/test --sanitize: a Debug
// build that simulates whole GPUs 10-30 times slower) some whole-GPU tests repeat fewer runs;
// the sanitizers still check every code path they reach, and the normal pass runs them whole.

namespace test_build {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif
#else
inline constexpr bool sanitized = false;
#endif

} // namespace test_build
