; One level of breadth-first search over a graph in CSR form (the host relaunches until
; no thread sets the changed flag). For every node v in the frontier: clear it, and for
; each edge v -> u with cost[u] < 0 set cost[u] = cost[v] + 1, mark u in the next frontier
; and set the changed flag. Data-dependent branches and a data-dependent loop.
; params: row (n+1 words), col, cost, frontier, next, changed, n
.kernel bfs
.grid 1
.block 64
.param 0x0 0x100 0x400 0x500 0x600 0x700 32
    LDS r1, %tid.x
    LDS r2, %ctaid.x
    LDS r3, %ntid.x
    MAD r4, r2, r3, r1          ; v
    MVI r5, 2
    MVI r30, 0
    LDS r6, %param6             ; n
    SLT r7, r4, r6
    SSY end
    BEQ r7, end                 ; v >= n
    SHL r8, r4, r5              ; 4v
    LDS r9, %param3
    ADD r9, r9, r8              ; &frontier[v]
    LDG r10, r9
    BEQ r10, end                ; not in the frontier
    STG r9, r30                 ; frontier[v] = 0
    LDS r11, %param2
    ADD r12, r11, r8
    LDG r13, r12                ; cost[v]
    MVI r14, 1
    ADD r13, r13, r14           ; cost[v] + 1
    LDS r15, %param0
    ADD r15, r15, r8
    LDG r16, r15                ; e = row[v]
    MVI r17, 4
    ADD r15, r15, r17
    LDG r18, r15                ; row[v + 1]
    LDS r19, %param1
    LDS r20, %param4
    LDS r21, %param5
edges:
    SSY end
    SLT r22, r16, r18           ; e < row[v + 1]
    BEQ r22, end
    SHL r23, r16, r5
    ADD r23, r23, r19
    LDG r24, r23                ; u = col[e]
    SHL r25, r24, r5
    ADD r26, r11, r25           ; &cost[u]
    LDG r27, r26
    SLT r28, r27, r30           ; cost[u] < 0: unvisited
    SSY next_edge
    BEQ r28, next_edge
    STG r26, r13
    ADD r29, r20, r25
    STG r29, r14                ; next[u] = 1
    STG r21, r14                ; changed = 1
next_edge:
    ADD r16, r16, r14
    BEQ r30, edges
end:
    EXIT
; input: a 32-node graph in CSR form, cost[0] = 0, others -1, frontier = {0}
.data 0 3 4 7 8 0xc 0xd 0xf
.data 0x10 0x11 0x14 0x17 0x1a 0x1c 0x1e 0x20
.data 0x21 0x25 0x26 0x28 0x2c 0x2f 0x30 0x33
.data 0x36 0x39 0x3b 0x3c 0x3f 0x43 0x46 0x4a
.data 0x4b 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 3 9 0x19 6 2 3 0xd 0x1b
.data 4 5 0xf 0x1b 7 3 0x19 0xe
.data 8 7 9 0x1a 6 0xb 0xc 3
.data 4 6 0x1b 0x1f 0x17 0x1d 0xb 0xf
.data 0x13 4 0x12 0x15 0x1c 0x1a 9 0x15
.data 2 4 0x14 0x1a 0x16 0x1d 0x1f 5
.data 3 4 0x1e 0x12 0x18 0x1c 1 0x16
.data 0x1d 7 0x1f 0xd 8 0xf 0x19 5
.data 0xa 0x1c 0x1f 8 0x11 0x1b 9 0xe
.data 0x16 0x18 0xb 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff
.data 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff
.data 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff
.data 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff 0xffffffff
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 0 0 0 0 0 0 0 0
.data 1
