// Fuzz target: the input reader of warpkit-coalesce (examples/coalesce/access_reader.hpp) and
// the three coalescers it drives.
//
// Laws for every access that reads, under each coalescer: every active lane is carried by
// exactly one transaction, whose aligned 32/64/128-byte span holds all of the lane's bytes;
// a transaction's byte mask is exactly the bytes its lanes touch; no request has two
// transactions for the same span; requests() counts the request groups that have one.
#include "fuzz.hpp"

#include <coalesce/access_reader.hpp>

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/sector_coalescer.hpp>
#include <warpkit/mem/transaction.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace {

using namespace warpkit;
constexpr std::size_t W = example::coalesce_warp;

template <class Coalescer>
void check(const example::warp_access& a) {
    mem::transaction_list<W> out;
    if (!fuzz::expect_errors([&] { Coalescer{}.coalesce(a.addr, a.bytes, a.active, out); })) return;
    warp_mask seen{};
    std::uint64_t request_seen = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto& t = out[i];
        WARPKIT_FUZZ_LAW(t.size == 32 || t.size == 64 || t.size == 128);
        WARPKIT_FUZZ_LAW(t.addr % t.size == 0);
        WARPKIT_FUZZ_LAW(t.lanes.any());
        WARPKIT_FUZZ_LAW((t.lanes & a.active) == t.lanes);
        WARPKIT_FUZZ_LAW((t.lanes & seen).none());
        WARPKIT_FUZZ_LAW(t.request < W); // the group index (half warp...), not a dense count
        seen = seen | t.lanes;
        request_seen |= std::uint64_t{1} << t.request;
        mem::byte_mask touched;
        for (const std::size_t lane : t.lanes) {
            WARPKIT_FUZZ_LAW(a.addr[lane] >= t.addr);
            const std::uint64_t off = a.addr[lane] - t.addr;
            WARPKIT_FUZZ_LAW(off < t.size && off + a.bytes <= t.size);
            touched.set_range(static_cast<std::uint32_t>(off), a.bytes);
        }
        WARPKIT_FUZZ_LAW(touched == t.bytes);
        for (std::size_t k = 0; k < i; ++k)
            WARPKIT_FUZZ_LAW(out[k].request != t.request || out[k].addr != t.addr);
    }
    WARPKIT_FUZZ_LAW(seen == a.active);
    WARPKIT_FUZZ_LAW(static_cast<std::uint32_t>(std::popcount(request_seen)) == out.requests());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(fuzz::as_text(data, size)));
    example::warp_access a;
    if (!fuzz::expect_errors([&] { a = example::read_access(in, "<fuzz>"); })) return 0;
    WARPKIT_FUZZ_LAW(mem::valid_access_bytes(a.bytes));
    for (const std::size_t lane : a.active)
        WARPKIT_FUZZ_LAW(a.addr[lane] % a.bytes == 0);
    check<mem::cc13_coalescer>(a);
    check<mem::fermi_coalescer>(a);
    check<mem::sector_coalescer>(a);
    return 0;
}
