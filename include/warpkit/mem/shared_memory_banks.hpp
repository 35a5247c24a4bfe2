#pragma once
/// \file
/// `shared_memory_banks`: the banked shared memory of an SM. Word w = addr / word_bytes lives in
/// bank w mod banks (32 banks on Fermi, paper 001 Section 2.3; one bank per streaming processor
/// in paper 004 Section 4.3.2). Each pass, a bank delivers one word to every lane that wants it
/// (a broadcast); lanes wanting other words of a busy bank wait. Paper 004 does not stall the
/// warp: the lanes served go on and the others replay the access the next time the warp is
/// issued, so `serve` returns the lanes served this pass and the caller replays the rest.

#include <warpkit/core/error.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/transaction.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace warpkit::mem {

/// Geometry of the banked shared memory.
struct bank_params {
    std::uint32_t banks = 32;     ///< Fermi: 32 (paper 004: one per SP, 8)
    std::uint32_t word_bytes = 4; ///< bank width
    WARPKIT_FIELDS(bank_params, banks, word_bytes)

    void validate() const {
        check_range("banks", banks, 1u, 64u);
        check(word_bytes == 4 || word_bytes == 8, "word_bytes", word_bytes, "4 or 8");
        // A 16-byte lane access must not need two words of one bank.
        check(banks * word_bytes >= 16, "banks", banks,
              "at least " + std::to_string(16 / word_bytes) + " for " + std::to_string(word_bytes) +
                  "-byte words");
    }
};

/// Counters of the shared memory banks.
struct bank_stats {
    std::uint64_t accesses = 0;      ///< warp accesses
    std::uint64_t passes = 0;        ///< bank cycles spent (accesses + conflicts)
    std::uint64_t conflicts = 0;     ///< extra passes caused by bank conflicts
    std::uint64_t words = 0;         ///< bank word reads or writes
    std::uint64_t lane_accesses = 0; ///< active lanes over all accesses
    /// Conflict degree per access (0 = conflict free, bins 0..15 and 16+).
    histogram<17> degree{};
    WARPKIT_FIELDS(bank_stats, accesses, passes, conflicts, words, lane_accesses, degree)
};

/// Outcome of one pass of the banks.
template <std::size_t W>
struct bank_pass {
    lane_mask<W> served{};   ///< lanes whose words were delivered this pass
    std::uint32_t words = 0; ///< distinct bank words read or written this pass
};

/// Outcome of a whole access, replays included.
template <std::size_t W>
struct bank_access {
    std::uint32_t passes = 0;    ///< 1 + conflict degree (0 for no active lane)
    lane_mask<W> first_served{}; ///< lanes served by the first pass
    /// Extra cycles spent on conflicts.
    [[nodiscard]] constexpr std::uint32_t conflict_degree() const noexcept {
        return passes == 0 ? 0 : passes - 1;
    }
};

/// The banks of one SM's shared memory.
class shared_memory_banks {
public:
    using params_type = bank_params;
    using stats_type = bank_stats;
    static constexpr std::uint32_t max_banks = 64;

    explicit shared_memory_banks(const bank_params& p = {}) : p_((validate(p), p)) {}

    [[nodiscard]] const bank_params& params() const noexcept { return p_; }
    /// Bank holding byte `addr`: (addr / word_bytes) mod banks.
    [[nodiscard]] constexpr std::uint32_t bank_of(std::uint64_t addr) const noexcept {
        return bank_of_word(addr >> word_shift_);
    }

    /// One pass over the `pending` lanes: in lane order, a lane is served when every bank it
    /// needs is free or already delivering the very word it wants (broadcast). The lowest
    /// pending lane is always served, so replaying the rest terminates.
    template <std::size_t W>
    [[nodiscard]] bank_pass<W> serve(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                                     lane_mask<W> pending) const {
        WARPKIT_EXPECTS(valid_access_bytes(access_bytes));
        const std::uint32_t nwords = words_per_lane(access_bytes);
        std::array<std::uint64_t, max_banks> word_of{};
        std::uint64_t busy = 0;
        bank_pass<W> out;
        for (const std::size_t lane : pending) {
            WARPKIT_EXPECTS((addr[lane] & (access_bytes - 1u)) == 0);
            const std::uint64_t w0 = addr[lane] >> word_shift_;
            bool fits = true;
            for (std::uint32_t k = 0; k < nwords && fits; ++k) {
                const std::uint64_t w = w0 + k;
                const std::uint32_t b = bank_of_word(w);
                fits = ((busy >> b) & 1u) == 0 || word_of[b] == w;
            }
            if (!fits) continue;
            for (std::uint32_t k = 0; k < nwords; ++k) {
                const std::uint64_t w = w0 + k;
                const std::uint32_t b = bank_of_word(w);
                if (((busy >> b) & 1u) == 0) {
                    busy |= std::uint64_t{1} << b;
                    word_of[b] = w;
                    ++out.words;
                }
            }
            out.served.set(lane);
        }
        return out;
    }

    /// Passes the whole access needs (replaying the unserved lanes), without counting it.
    template <std::size_t W>
    [[nodiscard]] bank_access<W> analyse(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                                         lane_mask<W> active) const {
        bank_access<W> r;
        std::uint64_t words = 0;
        run(addr, access_bytes, active, r, words);
        return r;
    }

    /// Performs and counts one whole access: passes, conflict degree, words.
    template <std::size_t W>
    bank_access<W> access(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                          lane_mask<W> active) {
        bank_access<W> r;
        std::uint64_t words = 0;
        run(addr, access_bytes, active, r, words);
        ++stats_.accesses;
        stats_.passes += r.passes;
        stats_.conflicts += r.conflict_degree();
        stats_.words += words;
        stats_.lane_accesses += active.count();
        stats_.degree.add(r.conflict_degree());
        return r;
    }

    [[nodiscard]] const bank_stats& stats() const noexcept { return stats_; }
    void reset_stats() noexcept { stats_ = {}; }

private:
    [[nodiscard]] constexpr std::uint32_t
    words_per_lane(std::uint32_t access_bytes) const noexcept {
        return access_bytes <= p_.word_bytes ? 1u : access_bytes / p_.word_bytes;
    }

    template <std::size_t W>
    void run(const lane_addresses<W>& addr, std::uint32_t access_bytes, lane_mask<W> pending,
             bank_access<W>& r, std::uint64_t& words) const {
        while (pending.any()) {
            const bank_pass<W> p = serve(addr, access_bytes, pending);
            if (r.passes == 0) r.first_served = p.served;
            ++r.passes;
            words += p.words;
            pending = pending.minus(p.served);
        }
    }

    // Banks are a power of two on real designs: mask then, divide otherwise.
    [[nodiscard]] constexpr std::uint32_t bank_of_word(std::uint64_t w) const noexcept {
        return static_cast<std::uint32_t>(bank_mask_ != 0 ? (w & bank_mask_) : (w % p_.banks));
    }

    bank_params p_;
    std::uint32_t word_shift_ = p_.word_bytes == 8 ? 3u : 2u;
    std::uint64_t bank_mask_ = (p_.banks & (p_.banks - 1)) == 0 ? p_.banks - 1u : 0u;
    bank_stats stats_{};
};

} // namespace warpkit::mem
