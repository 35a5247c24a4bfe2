// Fuzz target: the memory calls of the CUDA runtime replacement (examples/cuda_runtime), as a
// guest program would make them: cudaMalloc / cudaFree / cudaMallocManaged / cudaFreeHost,
// cudaMemcpy in every direction, cudaMemset and cudaPointerGetAttributes, and texture objects
// over linear and pitched 2D memory (cudaCreateTextureObject / cudaDestroyTextureObject with
// descriptors from the input), with sizes, offsets and pointers taken from the input (valid,
// stale, misaligned and made up).
//
// Laws: no call crashes or throws; a call on a range inside a live allocation succeeds, one
// that leaves every allocation fails with cudaErrorInvalidValue and changes nothing; device
// contents always equal a shadow copy kept here; the runtime's live bytes are the sum of the
// live allocations and texture headers; a texture object is created only over texels inside
// one live allocation, with a format and sampler CUDA accepts, and destroyed exactly once.
#include "fuzz.hpp"

#include "cuda_runtime/runtime.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <vector>

namespace {

using namespace warpkit;

// Reads the input a byte or a little-endian word at a time; zeros past its end.
struct reader {
    const std::uint8_t* data;
    std::size_t size;
    std::size_t at = 0;
    [[nodiscard]] bool more() const noexcept { return at < size; }
    std::uint32_t byte() { return at < size ? data[at++] : 0; }
    std::uint32_t word() { return byte() | byte() << 8 | byte() << 16; }
};

struct shadow {
    std::vector<std::uint8_t> bytes;
    bool managed = false;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    cudart::options o;
    o.quiet = true;
    cudart::runtime rt(o);
    reader in{data, size};
    std::map<std::uintptr_t, shadow> live; // by address
    std::vector<std::uintptr_t> freed;
    std::vector<std::uint8_t> host(1 << 16);
    std::vector<cudaTextureObject_t> textures; // 0: destroyed
    std::uint64_t texture_bytes = 0;
    const auto pick = [&](std::uint32_t sel) -> std::uintptr_t {
        if (!live.empty() && (sel & 3) != 3) {
            auto it = live.begin();
            std::advance(it, static_cast<std::ptrdiff_t>(sel % live.size()));
            return it->first;
        }
        if (!freed.empty() && (sel & 4) != 0) return freed[sel % freed.size()];
        return 0x1000'0000 + sel * 17; // made up
    };
    // The allocation holding [p, p + n), if any, and p's offset in it.
    std::size_t at = 0;
    const auto holder = [&](std::uintptr_t p, std::size_t n, std::size_t& offset) -> shadow* {
        auto it = live.upper_bound(p);
        if (it == live.begin()) return nullptr;
        --it;
        const std::size_t len = it->second.bytes.size();
        offset = p - it->first;
        return offset <= len && len - offset >= n ? &it->second : nullptr;
    };
    for (int ops = 0; ops < 48 && in.more(); ++ops) {
        const std::uint32_t op = in.byte() % 9;
        const std::uintptr_t base = pick(in.byte());
        const std::size_t off = in.word() % 4096;
        const std::size_t len = in.word() % (host.size() / 2);
        const auto p = reinterpret_cast<void*>(base + off);
        shadow* s = holder(base + off, len, at);
        switch (op) {
        case 0:
        case 1: { // cudaMalloc / cudaMallocManaged
            void* q = nullptr;
            const cudaError_t e = op == 0 ? rt.malloc(&q, len) : rt.malloc_host(&q, len, true);
            WARPKIT_FUZZ_LAW(e == cudaSuccess);
            if (len == 0 && op == 0) {
                WARPKIT_FUZZ_LAW(q == nullptr);
                break;
            }
            WARPKIT_FUZZ_LAW(q != nullptr && live.count(reinterpret_cast<std::uintptr_t>(q)) == 0);
            live[reinterpret_cast<std::uintptr_t>(q)] = {std::vector<std::uint8_t>(len, 0),
                                                         op == 1};
            if (op == 1) std::memset(q, 0, len); // managed memory: the program's own bytes
            break;
        }
        case 2: { // cudaFree
            const auto it = live.find(base + off);
            const cudaError_t e = rt.free(p);
            if (it != live.end() && !it->second.managed) {
                WARPKIT_FUZZ_LAW(e == cudaSuccess);
                freed.push_back(it->first);
                live.erase(it);
            } else if (it != live.end()) {
                WARPKIT_FUZZ_LAW(e == cudaSuccess); // cudaFree of managed memory frees it
                live.erase(it);
            } else {
                WARPKIT_FUZZ_LAW(e == cudaErrorInvalidValue || base + off == 0);
            }
            break;
        }
        case 3: { // host to device
            for (std::size_t i = 0; i < len; ++i)
                host[i] = static_cast<std::uint8_t>(in.byte() + i);
            if (s != nullptr && s->managed) break; // the program writes managed memory itself
            const cudaError_t e = rt.memcpy(p, host.data(), len, cudaMemcpyHostToDevice);
            if (len == 0) break;
            WARPKIT_FUZZ_LAW((e == cudaSuccess) == (s != nullptr));
            if (s != nullptr) std::memcpy(s->bytes.data() + at, host.data(), len);
            break;
        }
        case 4: { // device to host
            if (s != nullptr && s->managed) break;
            const cudaError_t e = rt.memcpy(host.data(), p, len, cudaMemcpyDeviceToHost);
            if (len == 0) break;
            WARPKIT_FUZZ_LAW((e == cudaSuccess) == (s != nullptr));
            if (s != nullptr)
                WARPKIT_FUZZ_LAW(std::memcmp(host.data(), s->bytes.data() + at, len) == 0);
            break;
        }
        case 5: { // device to device, from another allocation
            const std::uintptr_t src = pick(in.byte());
            std::size_t from_at = 0;
            shadow* from = holder(src, len, from_at);
            if ((s != nullptr && s->managed) || (from != nullptr && from->managed)) break;
            const cudaError_t e =
                rt.memcpy(p, reinterpret_cast<void*>(src), len, cudaMemcpyDeviceToDevice);
            if (len == 0) break;
            WARPKIT_FUZZ_LAW((e == cudaSuccess) == (s != nullptr && from != nullptr));
            if (e == cudaSuccess) {
                const std::vector<std::uint8_t> tmp(
                    from->bytes.begin() + static_cast<std::ptrdiff_t>(from_at),
                    from->bytes.begin() + static_cast<std::ptrdiff_t>(from_at + len));
                std::memcpy(s->bytes.data() + at, tmp.data(), len);
            }
            break;
        }
        case 6: { // cudaMemset
            const int value = static_cast<int>(in.byte());
            if (s != nullptr && s->managed) break;
            const cudaError_t e = rt.memset(p, value, len);
            if (len == 0) break;
            WARPKIT_FUZZ_LAW((e == cudaSuccess) == (s != nullptr));
            if (s != nullptr) std::memset(s->bytes.data() + at, value, len);
            break;
        }
        case 7: { // cudaCreateTextureObject / cudaDestroyTextureObject
            const std::uint32_t sel = in.byte();
            if ((sel & 1) != 0 && !textures.empty()) {
                const auto t = textures[sel % textures.size()];
                const bool live_texture = t != 0;
                WARPKIT_FUZZ_LAW((rt.destroy_texture(t) == cudaSuccess) == live_texture);
                if (live_texture) {
                    textures[sel % textures.size()] = 0;
                    texture_bytes -= ptx::texture_header::bytes;
                }
                break;
            }
            cudaResourceDesc res{};
            cudaTextureDesc td{};
            // Enum fields get raw ints from the input, as a guest may store any value there.
            const auto set = [](auto& field, std::uint32_t v) {
                const int i = static_cast<int>(v);
                static_assert(sizeof field == sizeof i);
                std::memcpy(&field, &i, sizeof i);
            };
            const int bits[4] = {8, 16, 32, static_cast<int>(in.byte())};
            const int width = bits[in.byte() % 4];
            const int channels = 1 + static_cast<int>(in.byte() % 4);
            cudaChannelFormatDesc fmt{width, channels > 1 ? width : 0, channels > 2 ? width : 0,
                                      channels > 3 ? width : 0, cudaChannelFormatKindSigned};
            set(fmt.f, in.byte() % 5);
            const std::uint32_t type = in.byte() % 5;
            set(res.resType, type);
            const bool lin = type == cudaResourceTypeLinear;
            if (lin)
                res.res.linear = {p, fmt, len};
            else
                res.res.pitch2D = {p, fmt, in.word() % 300, in.word() % 300, in.word() % 2048};
            set(td.addressMode[0], in.byte() % 5);
            set(td.addressMode[1], in.byte() % 5);
            set(td.filterMode, in.byte() % 3);
            set(td.readMode, in.byte() % 3);
            td.normalizedCoords = static_cast<int>(in.byte() % 2);
            cudaTextureObject_t t = 0;
            const cudaError_t e = rt.create_texture(&t, &res, &td, nullptr);
            if (e != cudaSuccess) break;
            // Created: the texels lie in one live device allocation.
            const std::size_t texel = static_cast<std::size_t>(width / 8 * channels);
            const std::size_t footprint =
                lin ? len
                    : (res.res.pitch2D.height - 1) * res.res.pitch2D.pitchInBytes +
                          res.res.pitch2D.width * texel;
            std::size_t unused = 0;
            WARPKIT_FUZZ_LAW(holder(base + off, footprint, unused) != nullptr);
            WARPKIT_FUZZ_LAW(channels != 3);
            textures.push_back(t);
            texture_bytes += ptx::texture_header::bytes;
            break;
        }
        default: { // cudaPointerGetAttributes
            cudaPointerAttributes a{};
            WARPKIT_FUZZ_LAW(rt.pointer_attributes(&a, p) == cudaSuccess);
            std::size_t unused = 0;
            const bool inside = holder(base + off, 1, unused) != nullptr;
            if (inside)
                WARPKIT_FUZZ_LAW(a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged);
            break;
        }
        }
        std::uint64_t bytes = texture_bytes;
        for (const auto& [a, sh] : live)
            if (!sh.managed) bytes += sh.bytes.size();
        WARPKIT_FUZZ_LAW(rt.live_bytes() == bytes);
    }
    // Every live device allocation holds its shadow.
    for (const auto& [a, sh] : live) {
        if (sh.managed || sh.bytes.empty()) continue;
        std::vector<std::uint8_t> back(sh.bytes.size());
        WARPKIT_FUZZ_LAW(rt.memcpy(back.data(), reinterpret_cast<void*>(a), back.size(),
                                   cudaMemcpyDeviceToHost) == cudaSuccess);
        WARPKIT_FUZZ_LAW(back == sh.bytes);
    }
    return 0;
}
