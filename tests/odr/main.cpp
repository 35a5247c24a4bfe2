// ODR check: links a.cpp and b.cpp, which both include <warpkit/warpkit.hpp>. A non-inline
// definition in any header fails the link; inline ones must agree at run time.
#include <cstddef>
#include <cstdio>

namespace odr_test {
std::size_t from_a();
std::size_t from_b();
} // namespace odr_test

int main() {
    const std::size_t a = odr_test::from_a();
    const std::size_t b = odr_test::from_b();
    if (a != 43 || b != 40) {
        std::printf("odr: unexpected results a=%zu (want 43) b=%zu (want 40)\n", a, b);
        return 1;
    }
    std::printf("odr: ok\n");
    return 0;
}
