MemcpyHtoD,0x00007efe7b500000,2052
MemcpyHtoD,0x7efe7b500a00,262144
kernel-1.traceg
kernel-2.traceg.xz
