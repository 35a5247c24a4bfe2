#pragma once
// Which kernel launches a tool times: warpkit-cuda's --kernels (WARPKIT_CUDA_KERNELS) and
// warpkit-run --trace's --kernels share one spelling.

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace example {

/// Which launches are timed: names (exact or unmangled) and index ranges "3", "2-5" (launches
/// counted from 0), joined by ','; empty: every launch.
class kernel_filter {
public:
    explicit kernel_filter(const std::string& spec) {
        std::size_t start = 0;
        while (start < spec.size()) {
            std::size_t comma = spec.find(',', start);
            if (comma == std::string::npos) comma = spec.size();
            add_(spec.substr(start, comma - start));
            start = comma + 1;
        }
    }
    /// True when the launch numbered `launch` of the entry `mangled` (unmangled: `plain`) is
    /// timed.
    [[nodiscard]] bool timed(const std::string& mangled, const std::string& plain,
                             std::uint64_t launch) const {
        if (all_) return true;
        for (const auto& n : names_)
            if (n == mangled || n == plain) return true;
        for (const auto& [lo, hi] : ranges_)
            if (launch >= lo && launch <= hi) return true;
        return false;
    }

private:
    void add_(const std::string& part) {
        if (part.empty()) return;
        all_ = false;
        const auto dash = part.find('-');
        const bool numeric = std::all_of(part.begin(), part.end(), [](char c) {
            return (c >= '0' && c <= '9') || c == '-';
        });
        if (numeric && dash != 0) {
            const std::string high = dash == std::string::npos ? part : part.substr(dash + 1);
            if (high.empty() || high.find('-') != std::string::npos)
                throw warpkit::config_error("kernels", part, "a launch index or a range lo-hi");
            const std::uint64_t lo = std::stoull(part.substr(0, dash));
            const std::uint64_t hi = std::stoull(high);
            if (hi < lo) throw warpkit::config_error("kernels", part, "a range lo-hi with lo <= hi");
            ranges_.emplace_back(lo, hi);
        } else {
            names_.push_back(part);
        }
    }

    std::vector<std::string> names_;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;
    bool all_ = true;
};

} // namespace example
