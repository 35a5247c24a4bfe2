.block 32
MVI r1, 1
ADD r2, r1, r1
