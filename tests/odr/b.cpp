// ODR check, translation unit B: the same headers, different uses.
#include <warpkit/warpkit.hpp>

#include <cstddef>

namespace odr_test {

std::size_t from_b() {
    warpkit::fifo<int> queue(2);
    static_cast<void>(queue.push(7));
    const auto lanes = warpkit::lane_mask<32>::full();
    // 7 + 1 + 32 = 40
    return static_cast<std::size_t>(queue.front()) + static_cast<std::size_t>(queue.size()) +
           static_cast<std::size_t>(lanes.count());
}

} // namespace odr_test
