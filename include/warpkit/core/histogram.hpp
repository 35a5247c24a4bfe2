#pragma once
/// \file
/// `histogram<Bins>`: a histogram with a fixed number of bins given by their lower bounds.

#include <warpkit/core/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace warpkit {

/// Counts samples into `Bins` bins. Bin i holds values v with lower(i) <= v < lower(i + 1);
/// the last bin is open-ended; values below lower(0) are counted as underflow. Also keeps
/// the number of samples and their sum, so a mean can be reported.
template <std::size_t Bins>
class histogram {
    static_assert(Bins >= 1);

public:
    static constexpr std::size_t bins = Bins;
    using bounds_type = std::array<std::uint64_t, Bins>;

    /// Bins starting at 0, 1, 2, ... (one value per bin, last bin open).
    constexpr histogram() noexcept {
        for (std::size_t i = 0; i < Bins; ++i)
            lower_[i] = i;
    }
    /// Bins with the given strictly ascending lower bounds.
    constexpr explicit histogram(const bounds_type& lower) : lower_(lower) {
        for (std::size_t i = 1; i < Bins; ++i)
            if (lower_[i] <= lower_[i - 1])
                throw config_error("histogram.lower[" + std::to_string(i) + "]",
                                   std::to_string(lower_[i]),
                                   "> " + std::to_string(lower_[i - 1]) + " (strictly ascending)");
    }
    /// Bins of equal `width` starting at `lo`.
    [[nodiscard]] static constexpr histogram linear(std::uint64_t lo, std::uint64_t width) {
        if (width == 0) throw config_error("histogram.width", "0", ">= 1");
        bounds_type b{};
        for (std::size_t i = 0; i < Bins; ++i)
            b[i] = lo + i * width;
        return histogram{b};
    }

    /// The bin `v` falls in, or Bins for underflow.
    [[nodiscard]] constexpr std::size_t bin_of(std::uint64_t v) const noexcept {
        if (v < lower_[0]) return Bins;
        // The last bin whose lower bound is <= v: halve a window [lo, lo + n) that holds it,
        // choosing the half by a select rather than a branch (the comparisons of successive
        // samples do not follow a pattern a branch predictor learns). The number of steps
        // depends on Bins alone.
        std::size_t lo = 0;
        for (std::size_t n = Bins; n > 1;) {
            const std::size_t half = n / 2;
            lo = lower_[lo + half] <= v ? lo + half : lo;
            n -= half;
        }
        return lo;
    }
    /// Adds `n` samples of value `v`.
    constexpr void add(std::uint64_t v, std::uint64_t n = 1) noexcept {
        const std::size_t b = bin_of(v);
        if (b == Bins)
            underflow_ += n;
        else
            counts_[b] += n;
        samples_ += n;
        sum_ += v * n;
    }
    /// Adds `n` samples of value `v` to bin `bin`, the bin `v` falls in (bin_of(v) == bin,
    /// checked): add() without the search, for a caller whose bounds give the bin directly.
    constexpr void add_to_bin(std::size_t bin, std::uint64_t v, std::uint64_t n = 1) {
        WARPKIT_EXPECTS(bin < Bins && lower_[bin] <= v && (bin + 1 == Bins || v < lower_[bin + 1]));
        counts_[bin] += n;
        samples_ += n;
        sum_ += v * n;
    }

    [[nodiscard]] constexpr std::uint64_t count(std::size_t bin) const {
        WARPKIT_EXPECTS(bin < Bins);
        return counts_[bin];
    }
    [[nodiscard]] constexpr std::uint64_t lower(std::size_t bin) const {
        WARPKIT_EXPECTS(bin < Bins);
        return lower_[bin];
    }
    /// Largest value in the bin (max of uint64 for the last bin).
    [[nodiscard]] constexpr std::uint64_t upper(std::size_t bin) const {
        WARPKIT_EXPECTS(bin < Bins);
        return bin + 1 < Bins ? lower_[bin + 1] - 1 : std::numeric_limits<std::uint64_t>::max();
    }
    /// "3", "3-4" or "32+" for bin `bin`.
    [[nodiscard]] std::string label(std::size_t bin) const {
        const std::uint64_t lo = lower(bin);
        if (bin + 1 == Bins) return std::to_string(lo) + "+";
        const std::uint64_t hi = upper(bin);
        return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
    }
    [[nodiscard]] constexpr std::uint64_t underflow() const noexcept { return underflow_; }
    [[nodiscard]] constexpr std::uint64_t samples() const noexcept { return samples_; }
    [[nodiscard]] constexpr std::uint64_t sum() const noexcept { return sum_; }
    [[nodiscard]] constexpr double mean() const noexcept {
        return samples_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(samples_);
    }
    [[nodiscard]] constexpr const bounds_type& lower_bounds() const noexcept { return lower_; }

    /// Adds another histogram with the same bins.
    constexpr histogram& operator+=(const histogram& o) {
        if (o.lower_ != lower_)
            throw config_error("histogram", "bins of a different shape", "identical bin bounds");
        for (std::size_t i = 0; i < Bins; ++i)
            counts_[i] += o.counts_[i];
        underflow_ += o.underflow_;
        samples_ += o.samples_;
        sum_ += o.sum_;
        return *this;
    }
    /// Removes an earlier snapshot of this histogram (same bins, no count larger than ours):
    /// what was recorded since the snapshot.
    constexpr histogram& operator-=(const histogram& o) {
        if (o.lower_ != lower_)
            throw config_error("histogram", "bins of a different shape", "identical bin bounds");
        for (std::size_t i = 0; i < Bins; ++i) {
            WARPKIT_EXPECTS(o.counts_[i] <= counts_[i]);
            counts_[i] -= o.counts_[i];
        }
        WARPKIT_EXPECTS(o.underflow_ <= underflow_ && o.samples_ <= samples_ && o.sum_ <= sum_);
        underflow_ -= o.underflow_;
        samples_ -= o.samples_;
        sum_ -= o.sum_;
        return *this;
    }
    constexpr void clear() noexcept {
        counts_ = {};
        underflow_ = samples_ = sum_ = 0;
    }
    friend constexpr bool operator==(const histogram&, const histogram&) = default;

private:
    bounds_type lower_{};
    std::array<std::uint64_t, Bins> counts_{};
    std::uint64_t underflow_ = 0;
    std::uint64_t samples_ = 0;
    std::uint64_t sum_ = 0;
};

namespace detail {
template <class T>
struct is_histogram : std::false_type {};
template <std::size_t B>
struct is_histogram<histogram<B>> : std::true_type {};
} // namespace detail

/// True for every histogram<Bins>.
template <class T>
concept histogram_type = detail::is_histogram<std::remove_cvref_t<T>>::value;

} // namespace warpkit
