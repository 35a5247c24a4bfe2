// libcudart.so.13 for programs built with `nvcc -cudart shared`: the CUDA runtime API on a
// simulated warpkit GPU. The C API has no handle to carry state, so the library keeps one
// runtime object per process (created on first use, never destroyed: the program's atexit
// handlers may still call in).

#include "runtime.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <string>

using warpkit::cudart::runtime;

namespace {

// Calls from several host threads take turns (the runtime is one state machine); a host
// function or callback that calls back in on the same thread holds the lock already.
std::unique_lock<std::recursive_mutex> serialise() {
    static std::recursive_mutex m;
    return std::unique_lock<std::recursive_mutex>(m);
}

runtime& rt() {
    static runtime* r = [] {
        try {
            return new runtime(warpkit::cudart::options::from_environment());
        } catch (const std::exception& e) {
            runtime::say(std::string("cannot start: ") + e.what());
            std::_Exit(2);
        }
    }();
    return *r;
}

// Runs `f` and turns an escaping exception into `fallback` with a message: nothing thrown
// crosses into the program.
template <class F>
cudaError_t guarded(const char* call, F&& f, cudaError_t fallback = cudaErrorUnknown) {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        runtime::say(std::string(call) + ": out of host memory");
        return rt().record(cudaErrorMemoryAllocation);
    } catch (const std::exception& e) {
        runtime::say(std::string(call) + ": " + e.what());
        return rt().record(fallback);
    }
}

struct error_text {
    cudaError_t code;
    const char* name;
    const char* text;
};

// CUDA's own names and messages for the codes this library returns.
constexpr std::array<error_text, 24> error_texts{{
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {cudaErrorInvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration",
     "__global__ function call is not configured"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
}};

const error_text* find_error(cudaError_t e) {
    for (const auto& t : error_texts)
        if (t.code == e) return &t;
    return nullptr;
}

// Streams and events: handles are small heap objects; streams run in order, so a stream has
// no state beyond its existence; an event holds the simulated cycle count it was recorded at.
struct stream_object {
    unsigned magic = 0x5354524dU;
};
struct event_object {
    unsigned magic = 0x4556454eU;
    bool recorded = false;
    std::uint64_t cycles = 0;
};

bool valid(cudaStream_t s) {
    return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread ||
           reinterpret_cast<stream_object*>(s)->magic == 0x5354524dU;
}
event_object* event_of(cudaEvent_t e) {
    auto* o = reinterpret_cast<event_object*>(e);
    return o != nullptr && o->magic == 0x4556454eU ? o : nullptr;
}

cudaError_t launch_common(warpkit::cudart::function_record* f, dim3 grid, dim3 block, void** args,
                          std::size_t shared, cudaStream_t stream) {
    if (f == nullptr) return rt().record(cudaErrorInvalidDeviceFunction);
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return rt().launch(*f, grid, block, args, shared, stream);
}

} // namespace

extern "C" {

// --- registration (called by nvcc's host code) ----------------------------------------------

void** __cudaRegisterFatBinary(void* fatCubin) {
    const auto lock = serialise();
    try {
        return rt().register_fatbin(fatCubin);
    } catch (const std::exception& e) {
        runtime::say(std::string("__cudaRegisterFatBinary: ") + e.what());
        std::_Exit(2);
    }
}

void __cudaRegisterFatBinaryEnd(void** /*fatCubinHandle*/) {}

void __cudaUnregisterFatBinary(void** fatCubinHandle) {
    const auto lock = serialise();
    try {
        rt().unregister_fatbin(fatCubinHandle);
    } catch (const std::exception& e) {
        runtime::say(std::string("__cudaUnregisterFatBinary: ") + e.what());
    }
}

void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* /*deviceFun*/,
                            const char* deviceName, int /*thread_limit*/, uint3* /*tid*/,
                            uint3* /*bid*/, dim3* /*bDim*/, dim3* /*gDim*/, int* /*wSize*/) {
    const auto lock = serialise();
    try {
        rt().register_function(fatCubinHandle, hostFun, deviceName);
    } catch (const std::exception& e) {
        runtime::say(std::string("__cudaRegisterFunction: ") + e.what());
        std::_Exit(2);
    }
}

void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* /*deviceAddress*/,
                       const char* deviceName, int /*ext*/, size_t size, int constant,
                       int /*global*/) {
    const auto lock = serialise();
    try {
        rt().register_variable(fatCubinHandle, hostVar, deviceName, size, constant != 0);
    } catch (const std::exception& e) {
        runtime::say(std::string("__cudaRegisterVar: ") + e.what());
        std::_Exit(2);
    }
}

void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress,
                              char* /*deviceAddress*/, const char* deviceName, int /*ext*/,
                              size_t size, int /*constant*/, int /*global*/) {
    const auto lock = serialise();
    try {
        rt().register_managed_variable(fatCubinHandle, hostVarPtrAddress, deviceName, size);
    } catch (const std::exception& e) {
        runtime::say(std::string("__cudaRegisterManagedVar: ") + e.what());
        std::_Exit(2);
    }
}

char __cudaInitModule(void** /*fatCubinHandle*/) {
    return 1;
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st* stream) {
    const auto lock = serialise();
    rt().call_stack().push_back({gridDim, blockDim, sharedMem, stream});
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                       void* stream) {
    const auto lock = serialise();
    auto& stack = rt().call_stack();
    if (stack.empty()) return rt().record(cudaErrorMissingConfiguration);
    const auto c = stack.back();
    stack.pop_back();
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.shared;
    *static_cast<cudaStream_t*>(stream) = c.stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* func) {
    const auto lock = serialise();
    auto* f = rt().function_of(func);
    if (f == nullptr) return rt().record(cudaErrorInvalidDeviceFunction);
    *kernel = reinterpret_cast<cudaKernel_t>(f);
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                               size_t sharedMem, cudaStream_t stream) {
    const auto lock = serialise();
    return guarded("kernel launch", [&] {
        return launch_common(reinterpret_cast<warpkit::cudart::function_record*>(kernel), gridDim,
                             blockDim, args, sharedMem, stream);
    });
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem, cudaStream_t stream) {
    const auto lock = serialise();
    return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                             size_t sharedMem, cudaStream_t stream) {
    const auto lock = serialise();
    return guarded("cudaLaunchKernel", [&] {
        return launch_common(rt().function_of(func), gridDim, blockDim, args, sharedMem, stream);
    });
}

// --- errors ---------------------------------------------------------------------------------

const char* cudaGetErrorString(cudaError_t error) {
    const auto lock = serialise();
    const auto* t = find_error(error);
    return t != nullptr ? t->text : "unrecognized error code";
}

const char* cudaGetErrorName(cudaError_t error) {
    const auto lock = serialise();
    const auto* t = find_error(error);
    return t != nullptr ? t->name : "cudaErrorUnknown";
}

cudaError_t cudaGetLastError(void) {
    const auto lock = serialise();
    return rt().take_last();
}

cudaError_t cudaPeekAtLastError(void) {
    const auto lock = serialise();
    return rt().peek_last();
}

// --- device management ----------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
    const auto lock = serialise();
    if (count == nullptr) return rt().record(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    const auto lock = serialise();
    return device == 0 ? cudaSuccess : rt().record(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDevice(int* device) {
    const auto lock = serialise();
    if (device == nullptr) return rt().record(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int /*flags*/) {
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    const auto lock = serialise();
    if (prop == nullptr) return rt().record(cudaErrorInvalidValue);
    if (device != 0) return rt().record(cudaErrorInvalidDevice);
    rt().properties(*prop);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    const auto lock = serialise();
    if (device != 0) return rt().record(cudaErrorInvalidDevice);
    return rt().record(rt().attribute(value, attr));
}

cudaError_t cudaDeviceSynchronize(void) {
    const auto lock = serialise();
    return rt().sticky();
}

cudaError_t cudaThreadSynchronize(void) {
    const auto lock = serialise();
    return rt().sticky();
}

cudaError_t cudaDeviceReset(void) {
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
    const auto lock = serialise();
    if (version == nullptr) return rt().record(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
    const auto lock = serialise();
    if (version == nullptr) return rt().record(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache /*config*/) {
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache /*config*/) {
    const auto lock = serialise();
    auto* f = rt().function_of(func);
    if (f == nullptr) return rt().record(cudaErrorInvalidDeviceFunction);
    ++f->cache_config_calls; // the simulated L1 / shared split is the preset's
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
    const auto lock = serialise();
    return guarded("cudaFuncGetAttributes", [&] { return rt().function_attributes(attr, func); });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func,
                                                          int blockSize, size_t dynamicSMemSize) {
    const auto lock = serialise();
    return guarded("cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                   [&] { return rt().occupancy(numBlocks, func, blockSize, dynamicSMemSize); });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int /*flags*/) {
    const auto lock = serialise();
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize,
                                                         dynamicSMemSize);
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
    const auto lock = serialise();
    auto* f = rt().function_of(func);
    if (f == nullptr) return rt().record(cudaErrorInvalidDeviceFunction);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize &&
        (value < 0 || static_cast<std::uint64_t>(value) > rt().params().shared_bytes))
        return rt().record(cudaErrorInvalidValue);
    return cudaSuccess; // the preset fixes the shared-memory carve-out
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
    const auto lock = serialise();
    if (limit != cudaLimitStackSize && limit != cudaLimitPrintfFifoSize &&
        limit != cudaLimitMallocHeapSize)
        return rt().unsupported("cudaDeviceSetLimit", "only stack, printf and heap sizes");
    rt().limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* pValue, cudaLimit limit) {
    const auto lock = serialise();
    if (pValue == nullptr) return rt().record(cudaErrorInvalidValue);
    const auto it = rt().limits.find(limit);
    if (it == rt().limits.end())
        return rt().unsupported("cudaDeviceGetLimit", "only stack, printf and heap sizes");
    *pValue = it->second;
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
    const auto lock = serialise();
    return guarded("cudaPointerGetAttributes",
                   [&] { return rt().pointer_attributes(attributes, ptr); });
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
    const auto lock = serialise();
    if (free == nullptr || total == nullptr) return rt().record(cudaErrorInvalidValue);
    *total = static_cast<size_t>(rt().params().device_memory_mb << 20);
    *free = *total - static_cast<size_t>(rt().live_bytes());
    return cudaSuccess;
}

// --- memory ---------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** devPtr, size_t size) {
    const auto lock = serialise();
    return guarded("cudaMalloc", [&] { return rt().malloc(devPtr, size); });
}

cudaError_t cudaFree(void* devPtr) {
    const auto lock = serialise();
    return guarded("cudaFree", [&] { return rt().free(devPtr); });
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
    const auto lock = serialise();
    if (pitch == nullptr) return rt().record(cudaErrorInvalidValue);
    *pitch = (width + 255) / 256 * 256;
    return guarded("cudaMallocPitch", [&] { return rt().malloc(devPtr, *pitch * height); });
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
    const auto lock = serialise();
    return guarded("cudaMallocHost", [&] { return rt().malloc_host(ptr, size, false); });
}

cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int /*flags*/) {
    const auto lock = serialise();
    return guarded("cudaHostAlloc", [&] { return rt().malloc_host(pHost, size, false); });
}

cudaError_t cudaFreeHost(void* ptr) {
    const auto lock = serialise();
    return guarded("cudaFreeHost", [&] { return rt().free_host(ptr); });
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int /*flags*/) {
    const auto lock = serialise();
    return guarded("cudaMallocManaged", [&] { return rt().malloc_host(devPtr, size, true); });
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    const auto lock = serialise();
    if (rt().sticky() != cudaSuccess) return rt().record(rt().sticky());
    return guarded("cudaMemcpy", [&] { return rt().memcpy(dst, src, count, kind); });
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
    const auto lock = serialise();
    return guarded("cudaMemcpy2D",
                   [&] { return rt().memcpy_2d(dst, dpitch, src, spitch, width, height, kind); });
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
    const auto lock = serialise();
    if (width > pitch) return rt().record(cudaErrorInvalidPitchValue);
    for (size_t row = 0; row < height; ++row)
        if (const cudaError_t e =
                cudaMemset(static_cast<char*>(devPtr) + row * pitch, value, width);
            e != cudaSuccess)
            return e;
    return cudaSuccess;
}

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
    const auto lock = serialise();
    if (!valid(hStream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaMalloc(devPtr, size);
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
    const auto lock = serialise();
    if (!valid(hStream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaFree(devPtr);
}

// Managed memory is copied in before and out after every launch, so hints change nothing.
cudaError_t cudaMemPrefetchAsync(const void* /*devPtr*/, size_t /*count*/,
                                 cudaMemLocation /*location*/, unsigned int /*flags*/,
                                 cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void* /*devPtr*/, size_t /*count*/, cudaMemoryAdvise /*advice*/,
                          cudaMemLocation /*location*/) {
    const auto lock = serialise();
    return cudaSuccess;
}

// Page-locking changes nothing for a simulated device: the memory stays ordinary host memory.
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int /*flags*/) {
    const auto lock = serialise();
    return ptr == nullptr || size == 0 ? rt().record(cudaErrorInvalidValue) : cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
    const auto lock = serialise();
    return ptr == nullptr ? rt().record(cudaErrorInvalidValue) : cudaSuccess;
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
    const auto lock = serialise();
    return guarded("cudaMemset", [&] { return rt().memset(devPtr, value, count); });
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaMemset(devPtr, value, count);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               cudaMemcpyKind /*kind*/) {
    const auto lock = serialise();
    return guarded("cudaMemcpyToSymbol", [&] {
        return rt().symbol_copy(symbol, const_cast<void*>(src), count, offset, true);
    });
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 cudaMemcpyKind /*kind*/) {
    const auto lock = serialise();
    return guarded("cudaMemcpyFromSymbol",
                   [&] { return rt().symbol_copy(symbol, dst, count, offset, false); });
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
    const auto lock = serialise();
    return guarded("cudaGetSymbolAddress", [&] { return rt().symbol_address(devPtr, symbol); });
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
    const auto lock = serialise();
    return guarded("cudaGetSymbolSize", [&] { return rt().symbol_size(size, symbol); });
}

// --- streams and events ---------------------------------------------------------------------

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
    const auto lock = serialise();
    if (pStream == nullptr) return rt().record(cudaErrorInvalidValue);
    *pStream = reinterpret_cast<cudaStream_t>(new stream_object);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int /*flags*/) {
    const auto lock = serialise();
    return cudaStreamCreate(pStream);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int /*flags*/,
                                         int /*priority*/) {
    const auto lock = serialise();
    return cudaStreamCreate(pStream);
}

// Streams run in order and every call completes before it returns: host functions and
// callbacks run at once, in call order.
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    if (fn == nullptr) return rt().record(cudaErrorInvalidValue);
    fn(userData);
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* userData, unsigned int /*flags*/) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    if (callback == nullptr) return rt().record(cudaErrorInvalidValue);
    callback(stream, rt().sticky(), userData);
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    const auto lock = serialise();
    if (stream == nullptr || !valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    auto* s = reinterpret_cast<stream_object*>(stream);
    s->magic = 0;
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return rt().sticky();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    const auto lock = serialise();
    if (!valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    return rt().sticky();
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int /*flags*/) {
    const auto lock = serialise();
    if (!valid(stream) || event_of(event) == nullptr)
        return rt().record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    const auto lock = serialise();
    if (event == nullptr) return rt().record(cudaErrorInvalidValue);
    *event = reinterpret_cast<cudaEvent_t>(new event_object);
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int /*flags*/) {
    const auto lock = serialise();
    return cudaEventCreate(event);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    const auto lock = serialise();
    auto* e = event_of(event);
    if (e == nullptr || !valid(stream)) return rt().record(cudaErrorInvalidResourceHandle);
    e->recorded = true;
    e->cycles = rt().cycles();
    return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                     unsigned int /*flags*/) {
    const auto lock = serialise();
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    const auto lock = serialise();
    if (event_of(event) == nullptr) return rt().record(cudaErrorInvalidResourceHandle);
    return rt().sticky();
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    const auto lock = serialise();
    if (event_of(event) == nullptr) return rt().record(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    const auto lock = serialise();
    auto* a = event_of(start);
    auto* b = event_of(end);
    if (ms == nullptr) return rt().record(cudaErrorInvalidValue);
    if (a == nullptr || b == nullptr) return rt().record(cudaErrorInvalidResourceHandle);
    if (!a->recorded || !b->recorded) return rt().record(cudaErrorInvalidResourceHandle);
    const double d = b->cycles >= a->cycles ? rt().cycles_to_ms(b->cycles - a->cycles)
                                            : -rt().cycles_to_ms(a->cycles - b->cycles);
    *ms = static_cast<float>(d);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    const auto lock = serialise();
    auto* e = event_of(event);
    if (e == nullptr) return rt().record(cudaErrorInvalidResourceHandle);
    e->magic = 0;
    delete e;
    return cudaSuccess;
}

// --- texture objects (linear and pitched 2D memory) -----------------------------------------

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f) {
    return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject,
                                    const cudaResourceDesc* pResDesc,
                                    const cudaTextureDesc* pTexDesc,
                                    const cudaResourceViewDesc* pResViewDesc) {
    const auto lock = serialise();
    return guarded("cudaCreateTextureObject", [&] {
        return rt().create_texture(pTexObject, pResDesc, pTexDesc, pResViewDesc);
    });
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
    const auto lock = serialise();
    return guarded("cudaDestroyTextureObject", [&] { return rt().destroy_texture(texObject); });
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* pResDesc,
                                             cudaTextureObject_t texObject) {
    const auto lock = serialise();
    return rt().record(rt().texture_descriptors(texObject, pResDesc, nullptr));
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* pTexDesc,
                                            cudaTextureObject_t texObject) {
    const auto lock = serialise();
    return rt().record(rt().texture_descriptors(texObject, nullptr, pTexDesc));
}

// --- not supported: said once, never silent -------------------------------------------------

cudaError_t cudaDeviceEnablePeerAccess(int /*peerDevice*/, unsigned int /*flags*/) {
    const auto lock = serialise();
    return rt().unsupported("cudaDeviceEnablePeerAccess", "warpkit simulates one device");
}

cudaError_t cudaHostGetDevicePointer(void** /*pDevice*/, void* /*pHost*/, unsigned int /*flags*/) {
    const auto lock = serialise();
    return rt().unsupported("cudaHostGetDevicePointer",
                            "mapped host memory; use cudaMallocManaged or cudaMemcpy");
}

cudaError_t cudaLaunchCooperativeKernel(const void* /*func*/, dim3 /*gridDim*/, dim3 /*blockDim*/,
                                        void** /*args*/, size_t /*sharedMem*/,
                                        cudaStream_t /*stream*/) {
    const auto lock = serialise();
    return rt().unsupported("cudaLaunchCooperativeKernel",
                            "grid-wide synchronisation is not simulated");
}

cudaError_t cudaGraphCreate(cudaGraph_t* /*pGraph*/, unsigned int /*flags*/) {
    const auto lock = serialise();
    return rt().unsupported("cudaGraphCreate", "CUDA graphs");
}

cudaError_t cudaStreamBeginCapture(cudaStream_t /*stream*/, cudaStreamCaptureMode /*mode*/) {
    const auto lock = serialise();
    return rt().unsupported("cudaStreamBeginCapture", "CUDA graphs");
}

cudaError_t cudaMallocArray(cudaArray_t* /*array*/, const cudaChannelFormatDesc* /*desc*/,
                            size_t /*width*/, size_t /*height*/, unsigned int /*flags*/) {
    const auto lock = serialise();
    return rt().unsupported("cudaMallocArray", "CUDA arrays (textures over linear memory only)");
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* /*pSurfObject*/,
                                    const cudaResourceDesc* /*pResDesc*/) {
    const auto lock = serialise();
    return rt().unsupported("cudaCreateSurfaceObject", "surfaces");
}

} // extern "C"
