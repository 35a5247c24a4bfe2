#include <warpkit/core/bit_set.hpp>
#include <warpkit/core/rng.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <vector>

using warpkit::bit_set;

namespace {
template <class S>
std::vector<std::size_t> members(const S& s) {
    std::vector<std::size_t> out;
    s.for_each([&](std::size_t i) { out.push_back(i); });
    return out;
}
} // namespace

TEST_CASE_TEMPLATE("bit_set agrees with std::set over random operations", S, bit_set<1>,
                   bit_set<63>, bit_set<64>, bit_set<65>, bit_set<256>) {
    constexpr std::size_t n = S::width;
    static_assert(sizeof(S) == 8 * S::words);
    warpkit::rng gen(n);
    for (int round = 0; round < 50; ++round) {
        S a, b;
        std::set<std::size_t> ra, rb;
        for (int k = 0; k < 20; ++k) {
            const auto i = static_cast<std::size_t>(gen() % n);
            const auto j = static_cast<std::size_t>(gen() % n);
            a.set(i);
            ra.insert(i);
            b.set(j);
            rb.insert(j);
            if (gen() % 4 == 0) {
                a.reset(j);
                ra.erase(j);
            }
        }
        CHECK(members(a) == std::vector<std::size_t>(ra.begin(), ra.end()));
        CHECK(a.count() == ra.size());
        CHECK(a.any() == !ra.empty());
        std::set<std::size_t> both, either, only_a;
        for (auto i : ra) {
            if (rb.count(i) != 0)
                both.insert(i);
            else
                only_a.insert(i);
            either.insert(i);
        }
        either.insert(rb.begin(), rb.end());
        CHECK(members(a & b) == std::vector<std::size_t>(both.begin(), both.end()));
        CHECK(members(a | b) == std::vector<std::size_t>(either.begin(), either.end()));
        CHECK(members(S(a).remove(b)) == std::vector<std::size_t>(only_a.begin(), only_a.end()));
        CHECK(a.intersects(b) == !both.empty());
        CHECK(a.subset_of(a | b));
        CHECK((a & b).subset_of(b));
        CHECK(a.subset_of(b) == only_a.empty());
        for (std::size_t i = 0; i < n; ++i)
            CHECK(a.test(i) == (ra.count(i) != 0));
    }
    CHECK_FALSE(S{}.test(n)); // beyond the width: never a member
    CHECK_THROWS_AS(S{}.set(n), warpkit::contract_error);
}

TEST_CASE("bit_set::below holds every index under n, across word boundaries") {
    for (std::size_t n : {0U, 1U, 63U, 64U, 65U, 128U, 200U, 256U}) {
        CAPTURE(n);
        const auto s = bit_set<256>::below(n);
        CHECK(s.count() == n);
        CHECK(s.test(n == 0 ? 0 : n - 1) == (n != 0));
        CHECK_FALSE(s.test(n));
    }
    constexpr auto c = bit_set<64>::below(64); // usable in constant expressions
    static_assert(c.count() == 64);
}

TEST_CASE("bit_set::visit_until stops at the first true; for_each never stops") {
    bit_set<200> s;
    s.set(3).set(64).set(130).set(199);
    std::vector<std::size_t> seen;
    CHECK(s.visit_until([&](std::size_t i) {
        seen.push_back(i);
        return i >= 64;
    }));
    CHECK(seen == std::vector<std::size_t>{3, 64});
    // A visitor's result does not stop for_each, and a void visitor never stops visit_until.
    seen.clear();
    s.for_each([&](std::size_t i) {
        seen.push_back(i);
        return true;
    });
    CHECK(seen == std::vector<std::size_t>{3, 64, 130, 199});
    seen.clear();
    CHECK_FALSE(s.visit_until([&](std::size_t i) { seen.push_back(i); }));
    CHECK(seen == std::vector<std::size_t>{3, 64, 130, 199});
}
