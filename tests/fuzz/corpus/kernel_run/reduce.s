; Tree reduction in shared memory: out[block] = sum of the block's ntid elements of in.
; params: in, out (byte addresses)
.kernel reduce
.grid 4
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
    LDG r8, r7                  ; in[i]
    SHL r9, r1, r5              ; &sh[tid]
    ST r9, r8
    BAR
    MVI r10, 1
    SHR r11, r3, r10            ; s = ntid / 2
loop:
    SLT r12, r1, r11            ; tid < s
    SSY skip
    BEQ r12, skip
    ADD r13, r1, r11
    SHL r13, r13, r5
    LD r14, r13                 ; sh[tid + s]
    LD r15, r9                  ; sh[tid]
    ADD r15, r15, r14
    ST r9, r15
skip:
    BAR
    SHR r11, r11, r10           ; s /= 2
    BNE r11, loop
    SSY end
    BNE r1, end                 ; thread 0 writes the result
    LD r16, r9
    SHL r17, r2, r5
    LDS r18, %param1
    ADD r18, r18, r17
    STG r18, r16
end:
    EXIT
; input: in[i] = i mod 7
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
.data 1 2 3 4 5 6 0 1
.data 2 3 4 5 6 0 1 2
.data 3 4 5 6 0 1 2 3
.data 4 5 6 0 1 2 3 4
.data 5 6 0 1 2 3 4 5
.data 6 0 1 2 3 4 5 6
.data 0 1 2 3 4 5 6 0
