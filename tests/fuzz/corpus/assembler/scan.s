; Inclusive prefix sum of each block's ntid elements (Hillis-Steele in shared memory).
; params: in, out (byte addresses)
.kernel scan
.grid 2
.block 128
.shared 512
.param 0x0 0x800
    LDS r1, %tid.x
    LDS r2, %ctaid.x
    LDS r3, %ntid.x
    MAD r4, r2, r3, r1          ; i
    MVI r5, 2
    SHL r6, r4, r5
    LDS r7, %param0
    ADD r7, r7, r6
    LDG r8, r7
    SHL r9, r1, r5              ; &sh[tid]
    ST r9, r8
    BAR
    MVI r10, 1                  ; offset
step:
    LD r11, r9                  ; v = sh[tid]
    SLT r12, r1, r10            ; tid < offset: nothing to add
    SSY add_done
    BNE r12, add_done
    SUB r13, r1, r10
    SHL r13, r13, r5
    LD r14, r13
    ADD r11, r11, r14           ; v += sh[tid - offset]
add_done:
    BAR
    ST r9, r11
    BAR
    ADD r10, r10, r10           ; offset *= 2
    SLT r15, r10, r3
    BNE r15, step
    LDS r16, %param1
    ADD r16, r16, r6
    STG r16, r11
    EXIT
; input: in[i] = 13 i mod 10
.data 0 3 6 9 2 5 8 1
.data 4 7 0 3 6 9 2 5
.data 8 1 4 7 0 3 6 9
.data 2 5 8 1 4 7 0 3
.data 6 9 2 5 8 1 4 7
.data 0 3 6 9 2 5 8 1
.data 4 7 0 3 6 9 2 5
.data 8 1 4 7 0 3 6 9
.data 2 5 8 1 4 7 0 3
.data 6 9 2 5 8 1 4 7
.data 0 3 6 9 2 5 8 1
.data 4 7 0 3 6 9 2 5
.data 8 1 4 7 0 3 6 9
.data 2 5 8 1 4 7 0 3
.data 6 9 2 5 8 1 4 7
.data 0 3 6 9 2 5 8 1
.data 4 7 0 3 6 9 2 5
.data 8 1 4 7 0 3 6 9
.data 2 5 8 1 4 7 0 3
.data 6 9 2 5 8 1 4 7
.data 0 3 6 9 2 5 8 1
.data 4 7 0 3 6 9 2 5
.data 8 1 4 7 0 3 6 9
.data 2 5 8 1 4 7 0 3
.data 6 9 2 5 8 1 4 7
.data 0 3 6 9 2 5 8 1
.data 4 7 0 3 6 9 2 5
.data 8 1 4 7 0 3 6 9
.data 2 5 8 1 4 7 0 3
.data 6 9 2 5 8 1 4 7
.data 0 3 6 9 2 5 8 1
.data 4 7 0 3 6 9 2 5
