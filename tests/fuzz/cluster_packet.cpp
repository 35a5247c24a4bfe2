// Fuzz target: the cluster-network packet codec (noc/cluster_packet.hpp) and the link that
// carries the words (noc/cluster_link.hpp).
//
// Input: records of one kind byte and eight word bytes; then the link's shape from the bytes
// left. Laws: a word that decodes encodes back to itself; a packet built from arbitrary
// field values either encodes (and decodes back to itself) or is a config_error naming a
// field; every word sent over a link arrives once, unchanged and in order.
#include "fuzz.hpp"

#include <warpkit/noc/cluster_link.hpp>
#include <warpkit/noc/cluster_packet.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace {

using namespace warpkit;
using noc::cluster_packet_kind;

struct sent_word {
    cluster_packet_kind kind;
    std::uint64_t word;
};

// Decodes `w` as `kind`; when it decodes, checks the round trip and returns true.
bool decode_law(cluster_packet_kind kind, std::uint64_t w) {
    bool ok = false;
    switch (kind) {
    case cluster_packet_kind::inst: {
        noc::inst_packet p;
        ok = fuzz::expect_errors([&] { p = noc::decode_inst(w); });
        if (ok) WARPKIT_FUZZ_LAW(noc::encode(p) == w);
        break;
    }
    case cluster_packet_kind::mem: {
        noc::mem_packet p;
        ok = fuzz::expect_errors([&] { p = noc::decode_mem(w); });
        if (ok) WARPKIT_FUZZ_LAW(noc::encode(p) == w);
        break;
    }
    case cluster_packet_kind::ctrl: {
        noc::ctrl_packet p;
        ok = fuzz::expect_errors([&] { p = noc::decode_ctrl(w); });
        if (ok) WARPKIT_FUZZ_LAW(noc::encode(p) == w);
        break;
    }
    }
    if (ok) {
        const auto v = noc::decode_fields(kind, w);
        const auto fields = noc::layout(kind);
        WARPKIT_FUZZ_LAW(noc::encode_fields(kind, {v.data(), fields.size()}) == w);
    }
    return ok;
}

// Builds a packet of `kind` whose field values come from the bytes of `w` (each field gets a
// byte or two, which may be too wide for it).
void encode_law(cluster_packet_kind kind, std::uint64_t w) {
    const auto b = [&](unsigned i) { return static_cast<std::uint32_t>((w >> (8 * i)) & 0xFFu); };
    switch (kind) {
    case cluster_packet_kind::inst: {
        noc::inst_packet p;
        p.warp = b(0) & 0x7Fu;
        p.fu = b(1) & 0x1Fu;
        p.op = b(2) & 0x7Fu;
        p.imm = b(3) | (b(4) << 8) | ((b(7) & 0x80u) << 9);
        for (unsigned i = 0; i < 5; ++i)
            p.reg[i] = (b(5) >> i & 1u) != 0 ? b(6) & 0x3Fu : b(7) & 0x1Fu;
        std::uint64_t e = 0;
        if (fuzz::expect_errors([&] { e = noc::encode(p); }))
            WARPKIT_FUZZ_LAW(noc::decode_inst(e) == p);
        else
            WARPKIT_FUZZ_LAW(p.warp > 63 || p.fu > 15 || p.op > 63 || p.imm > 0xFFFF ||
                             p.reg[0] > 31 || p.reg[1] > 31 || p.reg[2] > 31 || p.reg[3] > 31 ||
                             p.reg[4] > 31);
        break;
    }
    case cluster_packet_kind::mem: {
        const noc::mem_packet p{b(0) & 7u, b(1) & 0xFu, b(2) & 0x7Fu, b(3) & 0x3Fu};
        std::uint16_t e = 0;
        if (fuzz::expect_errors([&] { e = noc::encode(p); }))
            WARPKIT_FUZZ_LAW(noc::decode_mem(e) == p);
        else
            WARPKIT_FUZZ_LAW(p.type > 3 || p.slave > 7 || p.warp > 63 || p.reg > 31);
        break;
    }
    case cluster_packet_kind::ctrl: {
        const noc::ctrl_packet p{b(0) & 3u, b(1) & 0xFu};
        std::uint8_t e = 0;
        if (fuzz::expect_errors([&] { e = noc::encode(p); }))
            WARPKIT_FUZZ_LAW(noc::decode_ctrl(e) == p);
        else
            WARPKIT_FUZZ_LAW(p.type > 1 || p.slave > 7);
        break;
    }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader in(data, size);
    std::vector<sent_word> to_send;
    while (in.left() >= 9) {
        const auto kind = static_cast<cluster_packet_kind>(in.u8() % 3);
        const std::uint64_t w = in.bits(64);
        if (decode_law(kind, w)) to_send.push_back({kind, w});
        encode_law(kind, w);
    }

    // The link: any valid shape; the receiver drains only every few cycles.
    noc::cluster_link_params lp;
    lp.width_bits = 1 + in.u8() % 80;
    lp.clock_multiplier = 1 + in.u8() % 4;
    lp.latency = 1 + in.u8() % 12;
    lp.queue_packets = 1 + in.u8() % 6;
    const unsigned drain_every = 1 + in.u8() % 7;
    noc::cluster_link link(lp);
    std::deque<std::uint64_t> expected;
    std::size_t next = 0;
    std::uint64_t cycle = 0;
    const std::uint64_t limit = 100000;
    while ((next < to_send.size() || !expected.empty()) && cycle < limit) {
        if (next < to_send.size() && link.can_send()) {
            link.send(to_send[next].kind, to_send[next].word);
            expected.push_back(to_send[next].word);
            ++next;
        }
        static_cast<void>(link.tick());
        ++cycle;
        if (cycle % drain_every == 0) {
            while (link.can_receive()) {
                const auto got = link.receive();
                WARPKIT_FUZZ_LAW(!expected.empty());
                WARPKIT_FUZZ_LAW(got.value == expected.front());
                expected.pop_front();
            }
        }
    }
    WARPKIT_FUZZ_LAW(cycle < limit);
    const auto& s = link.stats();
    WARPKIT_FUZZ_LAW(s.inst_packets + s.mem_packets + s.ctrl_packets == to_send.size());
    WARPKIT_FUZZ_LAW(!link.can_receive());
    return 0;
}
