.grid 1
.block 64
LDS r1, %tid.x
MVI r2, 32
SLT r3, r1, r2
BEQ r3, skip
BAR
skip: EXIT
