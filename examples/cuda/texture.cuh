// The texture descriptors the CUDA programs build (the suite's heat2d, tests/cuda's
// texture_objects): a pitched 2D resource and the sampling of a texture. Host code only.
#pragma once

#include <cstddef>
#include <cstring>

// The resource of a pitched 2D allocation: `width` x `height` texels of `format` from `base`,
// rows `pitch` bytes apart (as cudaMallocPitch gives them).
inline cudaResourceDesc pitched_resource(void* base, cudaChannelFormatDesc format,
                                         std::size_t width, std::size_t height, std::size_t pitch)
{
    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = base;
    res.res.pitch2D.desc = format;
    res.res.pitch2D.width = width;
    res.res.pitch2D.height = height;
    res.res.pitch2D.pitchInBytes = pitch;
    return res;
}

// How a 2D texture is sampled: the addressing of x and y, the filter, the read mode, and
// whether coordinates are normalised (nonzero) or in texels.
inline cudaTextureDesc sampling(cudaTextureAddressMode address_x, cudaTextureAddressMode address_y,
                                cudaTextureFilterMode filter, cudaTextureReadMode read,
                                int normalized)
{
    cudaTextureDesc tex;
    std::memset(&tex, 0, sizeof tex);
    tex.addressMode[0] = address_x;
    tex.addressMode[1] = address_y;
    tex.filterMode = filter;
    tex.readMode = read;
    tex.normalizedCoords = normalized;
    return tex;
}
