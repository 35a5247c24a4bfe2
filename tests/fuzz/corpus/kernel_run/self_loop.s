.grid 1
.block 32
MVI r1, 0
loop: BEQ r1, loop
EXIT
