; waits for a flag nobody sets: max_cycles / watchdog must end it
.grid 2
.block 64
    MVI r1, 0x100
loop: LDG r2, r1
    BEQ r2, loop
    EXIT
