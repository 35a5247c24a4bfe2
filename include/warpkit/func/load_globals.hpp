#pragma once
/// \file
/// `load_globals`: what the host does with a PTX module's `.global` variables when it loads
/// the module.

#include <warpkit/func/global_memory.hpp>
#include <warpkit/ptx/kernel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::func {

/// Writes the initialisers of the kernel's module `.global` variables to device memory (zeros
/// where none is given): the host does this once when it loads the module.
inline void load_globals(const ptx::kernel& k, global_memory& mem) {
    for (const auto& g : k.globals()) {
        std::vector<std::uint8_t> bytes(g.bytes, 0);
        std::copy(g.init.begin(),
                  g.init.begin() +
                      static_cast<std::ptrdiff_t>(std::min<std::size_t>(g.init.size(), g.bytes)),
                  bytes.begin());
        mem.write_bytes(g.address, bytes);
        mem.allocate(g.address, g.bytes, g.name);
    }
}

} // namespace warpkit::func
