#pragma once
// A run's power::activity intervals kept in a temporary file instead of memory, so that
// sampling a long kernel (warpkit-power report) holds a fixed amount of memory however many
// intervals it makes: each is appended as it is sampled and read back one at a time.

#include <warpkit/core/error.hpp>
#include <warpkit/power/activity.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <type_traits>
#include <vector>

namespace example {

/// Intervals with their weights (the L2 requests sent in each), in sampling order, in an
/// unnamed temporary file that disappears with the object.
class interval_file {
public:
    interval_file() : file_(std::tmpfile()) {
        if (!file_) throw warpkit::error("cannot create a temporary file for the power intervals");
    }

    /// Appends interval `a` and its weight.
    void append(const warpkit::power::activity& a, std::uint64_t weight) {
        const std::uint64_t head[3] = {a.cycles, a.sms.size(), weight};
        put(head, sizeof head);
        put(a.sms.data(), a.sms.size() * sizeof(warpkit::power::sm_activity));
        put(&a.chip, sizeof a.chip);
        if (count_++ == 0) first_cycles_ = a.cycles;
    }
    /// Intervals appended.
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    /// Cycles of the first interval (0 when there is none).
    [[nodiscard]] std::uint64_t first_cycles() const noexcept { return first_cycles_; }

    /// Calls `f(interval, weight)` for every interval in order (the interval may be changed:
    /// it is a copy read back from the file).
    template <class F>
    void for_each(F&& f) const {
        if (std::fflush(file_.get()) != 0 || std::fseek(file_.get(), 0, SEEK_SET) != 0) fail();
        warpkit::power::activity a;
        for (std::size_t i = 0; i < count_; ++i) {
            std::uint64_t head[3] = {};
            get(head, sizeof head);
            a.cycles = head[0];
            a.sms.resize(static_cast<std::size_t>(head[1]));
            get(a.sms.data(), a.sms.size() * sizeof(warpkit::power::sm_activity));
            get(&a.chip, sizeof a.chip);
            f(a, head[2]);
        }
        if (std::fseek(file_.get(), 0, SEEK_END) != 0) fail();
    }
    /// The weights of every interval, in order.
    [[nodiscard]] std::vector<std::uint64_t> weights() const {
        std::vector<std::uint64_t> out;
        out.reserve(count_);
        for_each([&](const warpkit::power::activity&, std::uint64_t w) { out.push_back(w); });
        return out;
    }

private:
    // The records are the structs' bytes: written and read back by the same program.
    static_assert(std::is_trivially_copyable_v<warpkit::power::sm_activity> &&
                  std::is_trivially_copyable_v<warpkit::power::chip_activity>);
    struct closer {
        void operator()(std::FILE* f) const noexcept { std::fclose(f); }
    };
    [[noreturn]] static void fail() {
        throw warpkit::error("cannot write or read the temporary file of the power intervals");
    }
    void put(const void* data, std::size_t bytes) {
        if (bytes != 0 && std::fwrite(data, 1, bytes, file_.get()) != bytes) fail();
    }
    void get(void* data, std::size_t bytes) const {
        if (bytes != 0 && std::fread(data, 1, bytes, file_.get()) != bytes) fail();
    }

    std::unique_ptr<std::FILE, closer> file_;
    std::size_t count_ = 0;
    std::uint64_t first_cycles_ = 0;
};

} // namespace example
