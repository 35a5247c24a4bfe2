// A consumer of warpkit: everything in one include, one core type used.
#include <warpkit/warpkit.hpp>

#include <cstdio>

#ifndef WARPKIT_CONSUMER_MODE
#define WARPKIT_CONSUMER_MODE "unknown"
#endif

int main() {
    const auto lanes = warpkit::lane_mask<32>::full();
    std::printf("warpkit via %s: a full 32-lane mask has %d lanes\n", WARPKIT_CONSUMER_MODE,
                static_cast<int>(lanes.count()));
    return static_cast<int>(lanes.count()) == 32 ? 0 : 1;
}
