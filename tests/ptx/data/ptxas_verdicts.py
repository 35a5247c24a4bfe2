#!/usr/bin/env python3
"""Makes ptxas_verdicts.txt: random PTX instructions (mnemonic, modifiers and types drawn per
opcode, operands of matching register classes, a quarter of them with some registers of a
random other class) labelled by what ptxas says about each.

    tests/ptx/data/ptxas_verdicts.py [/usr/local/cuda/bin/ptxas]

Each instruction is assembled inside the kernel HEAD below (parser_test.cpp wraps them the
same way); batches of 40 go to `ptxas -arch=sm_75`, whose errors name the line; the other
lines of a batch with errors are retried one at a time (ptxas may stop reporting early).
Keeps every accepted line and a sample of the rejected ones. The parser plays no part in the
labels.
"""
import os, random, re, subprocess, sys, tempfile

PTXAS = sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/bin/ptxas"
HEAD = """.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_param)
{
.reg .pred %p<8>; .reg .b16 %rs<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<8>; .reg .f64 %fd<8>;
"""
TAIL = "\nL:\nret;\n}\n"
TYPES = "pred b8 b16 b32 b64 u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64".split()
SLOTS = [
 ("sem", "weak relaxed acquire release acq_rel sc volatile".split()),
 ("scope", "cta gpu sys".split()),
 ("to", ["to"]),
 ("space", "global shared const local param".split()),
 ("nc", ["nc"]),
 ("aop", "add min max inc dec exch cas and or xor".split()),
 ("sync", ["sync"]),
 ("shfl", "up down bfly idx".split()),
 ("vote", "all any uni ballot".split()),
 ("cmp", "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan".split()),
 ("bool", "and or xor".split()),
 ("mode", "lo hi wide".split()),
 ("test", "finite infinite number notanumber normal subnormal".split()),
 ("shiftamt", ["shiftamt"]),
 ("shfdir", "l r".split()),
 ("shfmode", "wrap clamp".split()),
 ("rnd", "rn rz rm rp rni rzi rmi rpi".split()),
 ("approx", ["approx"]), ("full", ["full"]), ("ftz", ["ftz"]), ("sat", ["sat"]), ("cc", ["cc"]),
 ("vec", "v2 v4".split()), ("uni", ["uni"]),
]
OPS = {
 "add": "rnd ftz sat cc", "addc": "cc", "sub": "rnd ftz sat cc", "subc": "cc",
 "mul": "mode rnd ftz sat", "mad": "mode rnd ftz sat cc", "madc": "mode cc",
 "mul24": "mode", "mad24": "mode sat", "fma": "rnd ftz sat",
 "div": "rnd approx full ftz", "rem": "", "abs": "ftz", "neg": "ftz", "min": "ftz", "max": "ftz",
 "sad": "", "popc": "", "clz": "", "bfind": "shiftamt", "brev": "", "bfe": "", "bfi": "", "prmt": "",
 "and": "", "or": "", "xor": "", "not": "", "cnot": "", "lop3": "", "shl": "", "shr": "",
 "shf": "shfdir shfmode", "setp": "cmp bool ftz", "set": "cmp bool ftz", "selp": "", "slct": "ftz",
 "testp": "test", "copysign": "", "cvt": "rnd ftz sat", "cvta": "to space", "mov": "",
 "ld": "sem scope space nc vec", "ldu": "space vec", "st": "sem scope space vec",
 "atom": "sem scope space aop", "red": "sem scope space aop",
 "rcp": "rnd approx ftz", "sqrt": "rnd approx ftz", "rsqrt": "approx ftz",
 "sin": "approx ftz", "cos": "approx ftz", "lg2": "approx ftz", "ex2": "approx ftz", "tanh": "approx",
 "shfl": "sync shfl", "vote": "sync vote", "activemask": "",
}
TWO = {"cvt", "set", "slct"}
I = "u16 u32 u64 s16 s32 s64".split(); F = ["f32", "f64"]
PLAUS = {o: I + F + ["f16"] for o in "add sub mul mad fma div min max abs neg".split()}
PLAUS.update({o: I for o in "addc subc madc mul24 mad24 rem sad bfe bfind".split()})
PLAUS.update({o: F for o in "rcp sqrt rsqrt sin cos lg2 ex2 tanh testp copysign".split()})
PLAUS.update({o: "b16 b32 b64 pred".split() for o in "and or xor not cnot shl popc clz brev bfi".split()})
PLAUS.update({o: "b8 b16 b32 b64 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64".split() for o in "ld st ldu mov selp setp cvt".split()})
PLAUS.update({o: "b32 b64 u32 u64 s32 s64 f32 f64".split() for o in "atom red".split()})
PLAUS["cvta"] = ["u32", "u64"]; PLAUS["set"] = ["u32", "s32", "f32"]
PLAUS2 = {"cvt": PLAUS["cvt"], "set": I + F + ["b32"], "slct": ["s32", "f32"]}
ALL = [s for s, _ in SLOTS]
def reg(t, n=1):
    if t == "pred": return "%%p%d" % n
    if t in ("f32",): return "%%f%d" % n
    if t in ("f64",): return "%%fd%d" % n
    if t in ("b8","u8","s8","b16","u16","s16","f16"): return "%%rs%d" % n
    if t in ("b32","u32","s32"): return "%%r%d" % n
    return "%%rd%d" % n
def wide(t):
    return {"u16":"u32","s16":"s32","u32":"u64","s32":"s64","u64":"u64","s64":"s64"}.get(t, t)
def operands(op, mods, t, t2):
    m = set(mods)
    R = lambda n=1, tt=None: reg(tt or t, n)
    if op in ("add","addc","sub","subc","mul","mul24","div","rem","min","max","and","or","xor","copysign"):
        d = reg(wide(t)) if "wide" in m else R()
        return [d, R(2), R(3)]
    if op in ("shl","shr"): return [R(), R(2), "%r3"]
    if op in ("mad","madc","mad24","sad","fma"):
        if "wide" in m: return [reg(wide(t)), R(2), R(3), reg(wide(t), 4)]
        return [R(), R(2), R(3), R(4)]
    if op in ("popc","clz","bfind"): return ["%r1", R(2)]
    if op in ("brev","abs","neg","not","cnot","rcp","sqrt","rsqrt","sin","cos","lg2","ex2","tanh","mov"): return [R(), R(2)]
    if op == "bfe": return [R(), R(2), "%r3", "%r4"]
    if op == "bfi": return [R(), R(2), R(3), "%r4", "%r5"]
    if op == "prmt": return ["%r1", "%r2", "%r3", "%r4"]
    if op == "lop3": return ["%r1", "%r2", "%r3", "%r4", "0x96"]
    if op == "shf": return ["%r1", "%r2", "%r3", "%r4"]
    if op == "setp":
        o = ["%p1", R(2), R(3)]
        if m & {"and","or","xor"}: o.append("!%p3")
        return o
    if op == "set":
        o = [R(1), reg(t2, 2), reg(t2, 3)]
        if m & {"and","or","xor"}: o.append("%p3")
        return o
    if op == "selp": return [R(), R(2), R(3), "%p1"]
    if op == "slct": return [R(), R(2), R(3), reg(t2, 4)]
    if op == "testp": return ["%p1", R(2)]
    if op == "cvt": return [R(), reg(t2, 2)]
    if op == "cvta": return [R(), R(2)]
    addr = "[k_param]" if "param" in m else "[%rd7]"
    vec = 2 if "v2" in m else 4 if "v4" in m else 1
    val = "{" + ", ".join(R(i+1) for i in range(vec)) + "}" if vec > 1 else R()
    if op in ("ld","ldu"): return [val, addr]
    if op == "st": return [addr, val]
    if op == "atom":
        b = "%r2" if m & {"inc","dec"} else R(2)
        o = [R(), addr, b]
        if "cas" in m: o.append(R(3))
        return o
    if op == "red": return [addr, R(2)]
    if op == "shfl": return ["%r1", "%r2", "%r3", "%r4", "%r5"]
    if op == "vote": return ["%r1" if "ballot" in m else "%p1", "!%p2", "%r3"]
    if op == "activemask": return ["%r1"]
    return []


def generate(seed, per_op):
    random.seed(seed)
    out = []
    for op, rel in OPS.items():
        rel = rel.split()
        for _ in range(per_op):
            mods = []
            for s, words in SLOTS:
                p = 0.5 if s in rel else 0.03
                if random.random() < p: mods.append(random.choice(words))
            ts = []
            pool = PLAUS.get(op, TYPES) if random.random() < 0.8 else TYPES
            if random.random() < 0.97: ts.append(random.choice(pool))
            if op in TWO or random.random() < 0.03:
                ts.append(random.choice(PLAUS2.get(op, TYPES) if random.random() < 0.8 else TYPES))
            t = ts[0] if ts else "b32"
            t2 = ts[1] if len(ts) > 1 else t
            ops = operands(op, mods, t, t2)
            # Sometimes a register of another class, to exercise the operand type rules.
            if random.random() < 0.25:
                ops = [re.sub(r"%(p|rs|r|rd|f|fd)(\d)", lambda m: "%" + random.choice(
                    ["p", "rs", "r", "rd", "f", "fd"]) + m.group(2), o)
                       if random.random() < 0.3 else o for o in ops]
            out.append(".".join([op] + mods + ts) + " " + ", ".join(ops) + ";")
    return sorted(set(out))

def ptxas_errors(lines):
    """Index -> message for the lines ptxas rejects; None when it failed without naming one."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(HEAD + "\n".join(lines) + TAIL)
        name = f.name
    r = subprocess.run([PTXAS, "-arch=sm_75", name, "-o", os.devnull], capture_output=True, text=True)
    os.unlink(name)
    first = HEAD.count("\n") + 1
    bad = {}
    for l in r.stderr.splitlines():
        m = re.search(r"line (\d+); error\s*:\s*(.*)", l)
        if m and 0 <= int(m.group(1)) - first < len(lines):
            bad.setdefault(int(m.group(1)) - first, m.group(2))
    if r.returncode != 0 and not bad:
        return None
    return bad

def verdicts(lines, batch=40):
    """Line -> rejected? ptxas may stop reporting after some errors, so a line counts as
    accepted only when its batch had no error at all or it passes on its own."""
    res = {}
    for s in range(0, len(lines), batch):
        chunk = lines[s:s + batch]
        bad = ptxas_errors(chunk)
        if bad == {}:
            for l in chunk:
                res[l] = False
            continue
        for i, l in enumerate(chunk):
            if bad is not None and i in bad:
                res[l] = True
            else:
                b = ptxas_errors([l])
                res[l] = b is None or 0 in b
    return res

lines = generate(2024, 1100)
res = verdicts(lines)
ok = [l for l in lines if not res[l]]
bad = [l for l in lines if res[l]]
random.seed(7)
bad = sorted(random.sample(bad, min(len(bad), 2000)))
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "ptxas_verdicts.txt"), "w") as f:
    f.write("# Made by ptxas_verdicts.py with ptxas -arch=sm_75 (CUDA 13.0): ok = accepted, bad =\n")
    f.write("# rejected, each inside the kernel HEAD of that script.\n")
    for l in ok: f.write("ok\t" + l + "\n")
    for l in bad: f.write("bad\t" + l + "\n")
print(len(ok), "ok,", len(bad), "bad (of", len(lines), "generated)")
