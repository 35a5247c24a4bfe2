// Held-back device-memory accesses (func/deferred_global.hpp) and the reader-owned page cursor
// of global_memory::load_value: loads committed through commit_loads read what commit reads,
// and a store or an atomic in the list is reported.
#include <warpkit/func/deferred_global.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/ptx/ir.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

using namespace warpkit;

namespace {

// A register write a commit makes: warp slot, register, lane, value.
using written = std::tuple<std::uint32_t, std::uint32_t, std::size_t, std::uint64_t>;

struct store_recorder {
    std::vector<written>* out;
    void operator()(std::uint32_t slot, std::uint32_t reg, std::size_t lane, std::uint64_t v,
                    ptx::type) const {
        out->emplace_back(slot, reg, lane, v);
    }
};

} // namespace

TEST_CASE("global_memory: load_value with a cursor reads what load_value reads") {
    func::global_memory mem;
    // Three written pages with a gap (page 2 never written reads as zero), values of every
    // size at both ends of a page.
    for (std::uint64_t page : {0U, 1U, 3U})
        for (std::uint64_t w = 0; w < func::global_memory::page_bytes / 4; w += 97)
            mem.store(page * func::global_memory::page_bytes + 4 * w,
                      static_cast<std::uint32_t>(0x9e3779b9U * (page + 1) + w));
    mem.store_value(4096 - 8, 8, 0x0123456789abcdefULL);
    func::global_memory::read_cursor cursor;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 5000; ++i) {
        const unsigned size = 1U << (rng() % 4);
        const std::uint64_t addr = (rng() % (4 * func::global_memory::page_bytes)) / size * size;
        CAPTURE(addr);
        CAPTURE(size);
        CHECK(mem.load_value(addr, size, cursor) == mem.load_value(addr, size));
    }
    CHECK(mem.load_value(4096 - 8, 8, cursor) == 0x0123456789abcdefULL);
    CHECK(mem.load_value(4096 - 4, 4, cursor) == 0x01234567U);
    CHECK(mem.load_value(2 * 4096 + 12, 4, cursor) == 0); // never written
    CHECK_THROWS_AS(static_cast<void>(mem.load_value(6, 4, cursor)), sim_error);
}

TEST_CASE("deferred_global: commit_loads writes the registers commit writes; writes are flagged") {
    func::global_memory mem;
    for (std::uint32_t w = 0; w < 3 * 1024; ++w)
        mem.store(4 * w, w * 2654435761U);
    ptx::instruction ld;
    ld.opcode = ptx::op::ld;
    ld.t = ptx::type::u32;
    const auto load = [&](std::uint64_t addr, std::uint32_t slot, std::uint32_t reg,
                          std::uint16_t lane, std::uint8_t size) {
        return func::deferred_access{
            addr, 0, 0, &ld, slot, reg, lane, size, func::deferred_access::kind::load};
    };
    func::deferred_global a;
    func::deferred_global b;
    std::mt19937 rng(3);
    for (std::uint16_t i = 0; i < 400; ++i) {
        const std::uint8_t size = static_cast<std::uint8_t>(1U << (rng() % 4));
        const std::uint64_t addr = (rng() % (4 * 4096)) / size * size; // page 3 never written
        a.hold(load(addr, i % 7, i % 5, static_cast<std::uint16_t>(i % 32), size));
        b.hold(load(addr, i % 7, i % 5, static_cast<std::uint16_t>(i % 32), size));
    }
    CHECK_FALSE(a.holds_writes());
    std::vector<written> by_commit;
    std::vector<written> by_loads;
    a.commit(mem, store_recorder{&by_commit});
    b.commit_loads(mem, store_recorder{&by_loads});
    CHECK(by_commit.size() == 400);
    CHECK(by_loads == by_commit);
    CHECK(a.empty());
    CHECK(b.empty());

    // A store makes the list one with writes until it is committed.
    ptx::instruction st;
    st.opcode = ptx::op::st;
    st.t = ptx::type::u32;
    a.hold(load(8, 0, 1, 0, 4));
    a.hold(func::deferred_access{8, 77, 0, &st, 0, 0, 0, 4, func::deferred_access::kind::store});
    a.hold(load(8, 0, 2, 0, 4));
    CHECK(a.holds_writes());
    std::vector<written> mixed;
    a.commit(mem, store_recorder{&mixed});
    CHECK_FALSE(a.holds_writes());
    // In order: the load before the store reads the old word, the one after it the new.
    REQUIRE(mixed.size() == 2);
    CHECK(std::get<3>(mixed[0]) == 2 * 2654435761U % (std::uint64_t{1} << 32));
    CHECK(std::get<3>(mixed[1]) == 77);
}
