; every thread stores its id to shared memory, waits, reads its neighbour's, adds atomically
.grid 2
.block 64
.shared 256
    LDS r1, %tid.x
    MVI r2, 2
    SHL r3, r1, r2
    ST r3, r1
    BAR
    MVI r4, 4
    ADD r5, r3, r4
    MVI r6, 255
    AND r5, r5, r6
    LD r7, r5
    ATOMS r8, r5, r7
    MVI r9, 0x100
    ATOMG r10, r9, r7
    EXIT
