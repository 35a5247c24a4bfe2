.block 32
.shared 64
MVI r1, 64
LD r2, r1
EXIT
