#pragma once
// Test helper: the policies of the SMs the tests build and drive by hand.

#include <warpkit/gating/no_gating.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/mem/line_coalescer.hpp>

#include <cstddef>

namespace test {

/// An SM of 32-thread warps that coalesces with `Coalescer` (128-byte lines unless given),
/// with `Scheduler` (loose round robin unless given) and `Gating` (none unless given); the
/// other slots keep gpu::sm's defaults.
template <class Scheduler = warpkit::issue::lrr, class Gating = warpkit::gating::no_gating,
          class Coalescer = warpkit::mem::line_coalescer<128>>
struct sm_policies {
    static constexpr std::size_t warp_size = 32;
    using scheduler = Scheduler;
    using gating_policy = Gating;
    using coalescer = Coalescer;
};

} // namespace test
