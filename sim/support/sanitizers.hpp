// Whether this build runs under AddressSanitizer, as GCC and clang each say it.
#pragma once

namespace ceiling::support {

/// True in a build with AddressSanitizer (GCC defines __SANITIZE_ADDRESS__; clang 14, Debian 12's,
/// says it through __has_feature only): its frames are larger, and its leak check runs at exit.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool address_sanitizer = true;
#else
inline constexpr bool address_sanitizer = false;
#endif
#else
inline constexpr bool address_sanitizer = false;
#endif

} // namespace ceiling::support
