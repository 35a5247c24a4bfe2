.kernel k_1
.grid 2 3 1
.block 32, 2
.regs 12
.warps 3
.shared 256
.param 0x10 -1 0xffffffff
.const 1 2 3
.data 0x3f800000
start: MVI r1, 0xffff
  MVHI r1, r1, 0x7fff   // high half
  SEL r2, r1, r2, r3
  FMAD r4, r1, r2, r3
  RSQRT r5, r4
  ATOMS r6, r1, r2
  BNE r1, start
  BEQ r0, 11
  .word 0x78000000
  NOP
  BAR
  EXIT
