#pragma once
/// \file
/// `cluster_link`: one direction of a wire pair of paper 000's cluster network, between a
/// master SM and a slave (64 bits wide master to slave, 16 bits slave to master, clocked at
/// twice the core clock, one link cycle across the ~5 mm between adjacent SMs), with the
/// low-swing wire energy of 50 fJ per bit per mm: a 64-bit InstPacket costs 16 pJ.

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/noc/cluster_packet.hpp>
#include <warpkit/noc/detail/ring.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace warpkit::noc {

/// Which way a cluster link carries packets.
enum class link_direction : std::uint8_t { master_to_slave, slave_to_master };

} // namespace warpkit::noc

template <>
struct warpkit::enum_names<warpkit::noc::link_direction> {
    static constexpr std::array<std::string_view, 2> names = {"master_to_slave", "slave_to_master"};
};

namespace warpkit::noc {

/// A cluster link. Defaults: paper 000's master-to-slave link.
struct cluster_link_params {
    link_direction direction = link_direction::master_to_slave;
    std::uint32_t width_bits = 64;      ///< 64 master to slave, 16 slave to master
    std::uint32_t clock_multiplier = 2; ///< link cycles per core cycle
    std::uint32_t latency = 1;          ///< link cycles for a bit to cross
    double length_mm = 5.0;             ///< distance between adjacent SMs
    double energy_fj_per_bit_mm = 50.0; ///< low-swing wire (CACTI 6.0, paper 000)
    std::uint32_t queue_packets = 4;    ///< packets waiting at the sender
    WARPKIT_FIELDS(cluster_link_params, direction, width_bits, clock_multiplier, latency, length_mm,
                   energy_fj_per_bit_mm, queue_packets)

    void validate() const {
        check_range("width_bits", width_bits, 1u, 1024u);
        check_range("clock_multiplier", clock_multiplier, 1u, 16u);
        check_range("latency", latency, 1u, 1024u);
        check(length_mm > 0.0 && length_mm < 1000.0, "length_mm", length_mm, "(0, 1000)");
        check(energy_fj_per_bit_mm >= 0.0 && energy_fj_per_bit_mm < 1e6, "energy_fj_per_bit_mm",
              energy_fj_per_bit_mm, "[0, 1e6)");
        check_range("queue_packets", queue_packets, 1u, 1u << 20);
    }
};

/// Paper 000's master-to-slave link: 64 bits, decoded instructions.
[[nodiscard]] inline cluster_link_params master_to_slave_link() {
    return {};
}
/// Paper 000's slave-to-master link: 16 bits, acknowledgements and control.
[[nodiscard]] inline cluster_link_params slave_to_master_link() {
    cluster_link_params p;
    p.direction = link_direction::slave_to_master;
    p.width_bits = 16;
    return p;
}

/// Picojoules to move `bits` across a link: bits x fJ/bit/mm x mm / 1000.
[[nodiscard]] constexpr double link_energy_pj(const cluster_link_params& p,
                                              std::uint64_t bits) noexcept {
    return static_cast<double>(bits) * p.energy_fj_per_bit_mm * p.length_mm / 1000.0;
}

/// Link cycles a packet of `bits` occupies the wires.
[[nodiscard]] constexpr std::uint32_t serialization_cycles(const cluster_link_params& p,
                                                           std::uint32_t bits) noexcept {
    return bits == 0 ? 1u : (bits + p.width_bits - 1) / p.width_bits;
}

/// Activity of a cluster link.
struct cluster_link_stats {
    std::uint64_t cycles = 0;      ///< link cycles ticked
    std::uint64_t busy_cycles = 0; ///< link cycles the wires carried bits
    std::uint64_t bits = 0;        ///< payload bits sent
    std::uint64_t inst_packets = 0;
    std::uint64_t mem_packets = 0;
    std::uint64_t ctrl_packets = 0;
    std::uint64_t other_packets = 0;
    WARPKIT_FIELDS(cluster_link_stats, cycles, busy_cycles, bits, inst_packets, mem_packets,
                   ctrl_packets, other_packets)
};

/// Energy the link spent (pJ).
[[nodiscard]] constexpr double energy_pj(const cluster_link_params& p,
                                         const cluster_link_stats& s) noexcept {
    return link_energy_pj(p, s.bits);
}

/// A word on a cluster link: up to 64 bits of a packet and how many there are.
struct link_word {
    std::uint64_t value = 0;
    std::uint32_t bits = 0;
    friend constexpr bool operator==(const link_word&, const link_word&) = default;
};

namespace detail {
struct link_pending {
    link_word word;
    std::uint8_t kind = 0;
};
struct link_timed {
    std::uint64_t due = 0;
    link_word word;
};
} // namespace detail

/// One direction of a cluster link, ticked in the link clock (clock_multiplier x core).
/// Packets leave the sender queue in order; a packet of b bits holds the wires for
/// ceil(b / width) link cycles and can be received after the tick of its last cycle plus
/// latency - 1 (so with one-cycle latency a 64-bit packet sent before tick t is received
/// after tick t).
class cluster_link {
public:
    using params_type = cluster_link_params;
    using stats_type = cluster_link_stats;

    explicit cluster_link(const cluster_link_params& p = {})
        : p_(validated(p)), queue_(p_.queue_packets), flight_(p_.latency + 1) {}

    [[nodiscard]] const cluster_link_params& params() const noexcept { return p_; }
    [[nodiscard]] const cluster_link_stats& stats() const noexcept { return s_; }
    /// Restarts the counters from zero (packets on the link stay).
    void reset_stats() { reset_counters(s_); }

    [[nodiscard]] bool can_send() const noexcept { return queue_.can_push(); }
    /// Queues an encoded packet of `kind` (the word must fit its size).
    void send(cluster_packet_kind kind, std::uint64_t word) {
        const std::uint32_t bits = packet_bits(kind);
        WARPKIT_EXPECTS(bits == 64 || (word >> bits) == 0);
        push(link_word{word, bits}, static_cast<std::uint8_t>(kind));
    }
    /// Queues `bits` (1..64) raw bits (a thread mask after a branch InstPacket, say).
    void send_bits(std::uint64_t word, std::uint32_t bits) {
        WARPKIT_EXPECTS(bits >= 1 && bits <= 64 && (bits == 64 || (word >> bits) == 0));
        push(link_word{word, bits}, 3);
    }

    /// Advances one link cycle; false when the link was idle.
    bool tick() {
        ++s_.cycles;
        if (remaining_ == 0 && !queue_.empty()) {
            cur_ = queue_.take();
            remaining_ = serialization_cycles(p_, cur_.word.bits);
            count(cur_);
        }
        bool busy = false;
        if (remaining_ != 0) {
            busy = true;
            ++s_.busy_cycles;
            if (--remaining_ == 0) flight_.push_back(timed{now_ + p_.latency - 1, cur_.word});
        }
        while (!flight_.empty() && flight_.front().due <= now_)
            rx_.push_back(flight_.take_front().word);
        ++now_;
        return busy || !flight_.empty();
    }

    [[nodiscard]] bool can_receive() const noexcept { return !rx_.empty(); }
    /// The oldest delivered word (can_receive() must hold).
    [[nodiscard]] link_word receive() {
        WARPKIT_EXPECTS(can_receive());
        return rx_.take_front();
    }
    /// Core cycles to send `bits` at the link's width and clock, rounded up.
    [[nodiscard]] std::uint32_t core_cycles(std::uint32_t bits) const noexcept {
        const std::uint32_t c = serialization_cycles(p_, bits);
        return (c + p_.clock_multiplier - 1) / p_.clock_multiplier;
    }

private:
    using pending = detail::link_pending;
    using timed = detail::link_timed;
    void push(link_word w, std::uint8_t kind) {
        WARPKIT_EXPECTS(can_send());
        queue_.push(pending{w, kind});
    }
    void count(const pending& p) noexcept {
        s_.bits += p.word.bits;
        switch (p.kind) {
        case 0:
            ++s_.inst_packets;
            break;
        case 1:
            ++s_.mem_packets;
            break;
        case 2:
            ++s_.ctrl_packets;
            break;
        default:
            ++s_.other_packets;
            break;
        }
    }

    cluster_link_params p_;
    fifo<pending> queue_;
    detail::ring<timed> flight_;
    detail::ring<link_word> rx_{16};
    pending cur_{};
    std::uint32_t remaining_ = 0;
    std::uint64_t now_ = 0;
    cluster_link_stats s_;
};

} // namespace warpkit::noc
