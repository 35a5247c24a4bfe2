// Kernels with C++ names: a namespaced function template instantiated twice and a kernel in
// nested namespaces, so entries are looked up by their demangled names.
namespace ns {
template <class T>
__global__ void scale(T* x, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * T(3);
}
template __global__ void scale<float>(float*, int);
template __global__ void scale<int>(int*, int);
} // namespace ns

namespace outer {
namespace inner {
__global__ void fill(int* x, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i + 7;
}
} // namespace inner
} // namespace outer
