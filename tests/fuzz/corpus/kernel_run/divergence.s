; odd lanes loop laneid times, even lanes take the other path; all reconverge and exit
.grid 1
.block 32
    LDS r1, %laneid
    MVI r2, 1
    AND r3, r1, r2
    SSY join
    BEQ r3, even
loop: SUB r1, r1, r2
    BNE r1, loop
    BEQ r0, join
even: FADD r4, r1, r2
    SIN r5, r4
join: STG r0, r1
    EXIT
