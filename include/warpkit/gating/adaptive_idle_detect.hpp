#pragma once
/// \file
/// `adaptive_idle_detect<Base>`: any gating policy with its idle-detect threshold tuned at run
/// time from critical wakeups (Warped Gates Section 5.1); Base defaults to naive Blackout.

#include <warpkit/gating/concepts.hpp>
#include <warpkit/gating/idle_detect_tuner.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gating {

/// Base's decisions, taken against the tuner's idle-detect value instead of a fixed one.
/// `adaptive_idle_detect<coordinated_blackout>` is the gating half of Warped Gates.
template <policy Base = naive_blackout>
class adaptive_idle_detect {
public:
    static constexpr bool blackout = Base::blackout;

    explicit adaptive_idle_detect(const params& p) : base_(p), tuner_(p) {}
    [[nodiscard]] static std::string name() { return "adaptive_idle_detect<" + Base::name() + ">"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return tuner_.value(); }
    [[nodiscard]] decision decide(const gate_view& v) const noexcept { return base_.decide(v); }
    adaptation end_cycle(bool critical) noexcept {
        static_cast<void>(base_.end_cycle(critical));
        if (critical) tuner_.record_critical();
        return tuner_.end_cycle();
    }
    [[nodiscard]] const idle_detect_tuner& tuner() const noexcept { return tuner_; }

private:
    Base base_;
    idle_detect_tuner tuner_;
};

} // namespace warpkit::gating
