// ODR check, translation unit A: includes everything and uses a couple of core types.
#include <warpkit/warpkit.hpp>

#include <cstddef>

namespace odr_test {

std::size_t from_a() {
    warpkit::fifo<int> queue(4);
    static_cast<void>(queue.push(10));
    static_cast<void>(queue.push(20));
    const int first = queue.front();
    static_cast<void>(queue.pop());
    // 10 + 1 + 32 = 43
    return static_cast<std::size_t>(first) + static_cast<std::size_t>(queue.size()) +
           static_cast<std::size_t>(warpkit::lane_mask<32>::full().count());
}

} // namespace odr_test
