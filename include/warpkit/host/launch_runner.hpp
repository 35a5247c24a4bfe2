#pragma once
/// \file
/// Runs a launch file (`launch_spec`) on a `host::device`: allocates and fills its buffers,
/// packs its parameters, launches the kernel and writes the requested outputs.

#include <warpkit/core/error.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::host {

/// The device buffers of a launch file, in its order, with their names.
struct spec_buffers {
    std::vector<std::pair<std::string, buffer>> list;
    /// The buffer called `name`; throws config_error for an unknown name.
    [[nodiscard]] const buffer& at(const std::string& name) const {
        for (const auto& [n, b] : list)
            if (n == name) return b;
        throw config_error("buffer", name, "a buffer of the launch file");
    }
};

/// Allocates every buffer of `s` on `dev` and writes its initial contents. The buffers are
/// checked against the device's memory (device::check_fits) all at once first, so a launch
/// file asking for too much fails naming the buffer before any memory is touched.
[[nodiscard]] inline spec_buffers allocate(device& dev, const launch_spec& s) {
    std::uint64_t pending = 0;
    for (std::size_t i = 0; i < s.buffers.size(); ++i) {
        try {
            dev.check_fits(s.buffers[i].bytes(), s.buffers[i].name, pending);
        } catch (const config_error& e) {
            throw e.with_prefix("launch.buffers[" + std::to_string(i) + "]");
        }
        pending += s.buffers[i].bytes();
    }
    spec_buffers out;
    for (const auto& b : s.buffers) {
        const buffer d = dev.alloc(b.bytes(), b.name);
        // A fresh buffer reads as zeros already: writing zeros would only take memory.
        if (b.init.kind != init_kind::zeros)
            dev.write(d, std::span<const std::byte>(initial_contents(b)));
        out.list.emplace_back(b.name, d);
    }
    return out;
}

/// The parameter buffer of `k` for the launch file's parameters: a buffer's device address,
/// or a scalar's bytes (config_error naming `launch.params[i]` on a size or count mismatch).
[[nodiscard]] inline std::vector<std::uint8_t> pack(const ptx::kernel& k, const launch_spec& s,
                                                    const spec_buffers& bufs) {
    ptx::param_pack p(k);
    for (const auto& ps : s.params) {
        try {
            if (ps.is_buffer()) {
                p.add(bufs.at(ps.buffer).address);
            } else {
                std::vector<std::uint8_t> raw(ps.value.size());
                if (!raw.empty()) std::memcpy(raw.data(), ps.value.data(), raw.size());
                p.add_bytes(raw);
            }
        } catch (const config_error& e) {
            throw e.with_prefix("launch");
        }
    }
    try {
        return p.bytes();
    } catch (const config_error& e) {
        throw e.with_prefix("launch");
    }
}

/// Writes each output buffer of `s` to its file (raw little-endian bytes).
inline void write_outputs(const device& dev, const launch_spec& s, const spec_buffers& bufs) {
    for (const auto& o : s.outputs) {
        const auto bytes = dev.download<char>(bufs.at(o.buffer));
        std::ofstream f(o.path, std::ios::binary);
        if (!f) throw error("cannot write '" + o.path.string() + "'");
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!f) throw error("cannot write '" + o.path.string() + "'");
    }
}

/// Everything a launch file does: buffers, parameters, the launch, the outputs.
// A template for the reason device::launch_packed is one: no GPU is built where it is unused.
launch_result run_launch(device& dev, const std::same_as<ptx::kernel> auto& k,
                         const launch_spec& s) {
    const auto bufs = allocate(dev, s);
    auto params = pack(k, s, bufs);
    auto r = dev.launch_packed(k, {s.grid, s.block, s.shared_bytes}, std::move(params));
    write_outputs(dev, s, bufs);
    return r;
}

} // namespace warpkit::host
