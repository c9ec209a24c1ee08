#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz module (src/test/resources/io/softrdma/fuzz/<Class>Inputs/<method>/).

Sources: the siw handshake captures of ../shared/interop/siw-vm/captures (real Linux siw bytes, both
directions), the vectors of RFC 5044 §4.4 Figures 5 and 6, and the hex vectors of rdma-core's tests
(TerminateTest, EnhancedStartupTest, RpcRdmaPrivateDataTest). Every seed starts with the option octets its
fuzz target reads first (see each target's Javadoc), then the payload.

Usage: python3 fuzz/tools/make_seeds.py [captures-dir]   (from the repository root; rerunnable, it only
overwrites the seeds it names, never crash inputs or other files).
"""
import os
import re
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "test", "resources", "io",
                    "softrdma", "fuzz")
CAPTURES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "interop", "siw-vm", "captures")

REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def frame(ulpdus, crc, markers):
    """RFC 5044 §4 framing from stream octet 0 (the same model as ReferenceFramer.java)."""
    out = bytearray()
    for u in ulpdus:
        start = len(out)
        if markers and len(out) % 512 == 0:
            out += b"\0\0\0\0"
        fpdu = len(out)
        body = struct.pack(">H", len(u)) + u + b"\0" * (-(2 + len(u)) & 3)
        for i in range(0, len(body), 4):
            if markers and i > 0 and len(out) % 512 == 0:
                out += struct.pack(">HH", 0, len(out) - fpdu)
            out += body[i:i + 4]
        if markers and len(out) % 512 == 0:
            out += struct.pack(">HH", 0, len(out) - fpdu)
        out += struct.pack("<I", crc32c(bytes(out[start:])) if crc else 0)
    return bytes(out)


def write(cls, method, name, data):
    d = os.path.join(ROOT, cls + "Inputs", method)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(bytes(data))


def h(s):
    return bytes.fromhex(re.sub(r"[\s|]", "", s))


def records(ulpdus):
    return b"".join(struct.pack(">H", len(u)) + u for u in ulpdus)


# ---- the captures ----

class Capture:
    def __init__(self, path):
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.blocks = []  # (from_initiator, kind, bytes)
        self.crc = False
        text = open(path, encoding="utf-8", errors="replace").read().splitlines()
        probe_initiates = any(line.startswith("# mpa_probe connect") for line in text)
        current = None
        for line in text:
            m = re.match(r"^(>>>|<<<) (SEND|RECV) (MPA Request|MPA Reply|FPDU)", line)
            if m:
                sent_by_probe = m.group(1) == ">>>"
                current = [sent_by_probe == probe_initiates, m.group(3), bytearray()]
                self.blocks.append(current)
                continue
            m = re.match(r"^    [0-9a-f]{4}  ((?:[0-9a-f]{2} ?)+)", line)
            if m and current is not None:
                current[2] += bytes.fromhex(m.group(1).replace(" ", ""))
                continue
            if line.startswith("# negotiated:") and "CRC=on" in line:
                self.crc = True
            if not line.startswith("    "):
                current = None

    def stream(self, from_initiator, kinds=("MPA Request", "MPA Reply", "FPDU")):
        return b"".join(bytes(b) for f, k, b in self.blocks if f == from_initiator and k in kinds)

    def frame(self, kind):
        for f, k, b in self.blocks:
            if k == kind:
                return bytes(b)
        return None

    def fpdus(self, from_initiator):
        return [bytes(b) for f, k, b in self.blocks if f == from_initiator and k == "FPDU"]


def ulpdu_of(fpdu):
    n = struct.unpack(">H", fpdu[:2])[0]
    return fpdu[2:2 + n]


def settings_for(request):
    """The settings octet of MpaStartupFuzzTest matching a captured Request (revision, p2p offered)."""
    flags, rev = request[16], request[17]
    pd = request[20:]
    octet = 0x40  # close on reject, as SoftRDMA's default
    if rev == 2:
        octet |= 1
        if flags & 0x10 and len(pd) >= 4 and pd[0] & 0x80:
            octet |= 0x30  # peer-to-peer ANY
    if flags & 0x80:
        octet |= 0x08  # the initiator requires Markers: refuse them, as siw does
    return octet


captures = []
if os.path.isdir(CAPTURES):
    for fn in sorted(os.listdir(CAPTURES)):
        if fn.endswith(".txt"):
            c = Capture(os.path.join(CAPTURES, fn))
            if c.blocks:
                captures.append(c)
else:
    print("no captures at " + CAPTURES + "; writing the RFC and test-vector seeds only", file=sys.stderr)

PAYLOAD16 = h("00112233445566778899aabbccddeeff")
FIG5_ULPDU = h("4143 00000000 00000000 00000001 00000000" + "00" * 24)
FIG6_ULPDU = h("4143 00000000 00000000 00000002 00000000" + "00" * 24)
FIG6_FIRST = h("4143 00000000 00000000 00000001 00000000" + "00" * (482 - 18))
FIG5_WIRE = h("0000 0000 002a") + FIG5_ULPDU + h("52239983")
assert frame([FIG5_ULPDU], True, True) == FIG5_WIRE, "the seed framer disagrees with RFC 5044 Figure 5"
FIG6_WIRE = frame([FIG6_FIRST, FIG6_ULPDU], True, True)
assert FIG6_WIRE[0x1ec:] == h("002a 4143 00000000 00000000 00000002 00000000 0000 0014" + "00" * 24 + "84925898")


def tagged(opcode, last, stag, to):
    return struct.pack(">BBIQ", 0x80 | (0x40 if last else 0) | 1, 0x40 | opcode, stag & 0xFFFFFFFF,
                       to & 0xFFFFFFFFFFFFFFFF)


def untagged(opcode, last, inv, qn, msn, mo):
    return struct.pack(">BBIIII", (0x40 if last else 0) | 1, 0x40 | opcode, inv & 0xFFFFFFFF, qn, msn, mo)


def read_request(msn, sink_stag, sink_to, size, src_stag, src_to):
    return untagged(1, True, 0, 1, msn, 0) + struct.pack(">IQIIQ", sink_stag, sink_to, size, src_stag & 0xFFFFFFFF,
                                                         src_to)


def request_frame(flags, rev, pd=b""):
    return REQ_KEY + struct.pack(">BBH", flags, rev, len(pd)) + pd


def reply_frame(flags, rev, pd=b""):
    return REP_KEY + struct.pack(">BBH", flags, rev, len(pd)) + pd


# ---- MpaStartupFuzzTest ----

for c in captures:
    req = c.frame("MPA Request")
    if req is None:
        continue
    s = settings_for(req)
    decision = 2 if "reply_reject" in c.name else 0
    init = c.stream(True)
    write("MpaStartupFuzzTest", "responder", "siw-" + c.name, bytes([s, decision, 0, 0, 0]) + init)
    resp = c.stream(False)
    if resp:
        write("MpaStartupFuzzTest", "initiator", "siw-" + c.name, bytes([s, 0x11, 0, 0]) + resp)
    for f, k, b in c.blocks:
        if k in ("MPA Request", "MPA Reply"):
            write("MpaStartupFuzzTest", "frameCodec", "siw-" + c.name + ("-reply" if k == "MPA Reply" else "-request"),
                  bytes([1 if k == "MPA Reply" else 0]) + b)

rev2 = next((c for c in captures if c.name == "h2g_rev2_rping"), None)
if rev2 is not None:
    init = rev2.stream(True)
    write("MpaStartupFuzzTest", "responder", "siw-h2g_rev2_rping-bytewise-slices-pooled",
          bytes([0x41, 0, 0, 0x0a, 0x07]) + init)
    # Finding "autoread-after-framing-error" (fixed in rdma-core 1a24db8): a late accept after more than 64 KiB of
    # early octets, whose first FPDU fails its CRC (the capture's CRCs are zeros, this responder wants CRCs).
    write("MpaStartupFuzzTest", "responder", "finding-autoread-after-framing-error",
          bytes([0x43, 0x24, 0, 0x0c, 0x47]) + init)
    write("MpaStartupFuzzTest", "responder", "siw-h2g_rev2_rping-late-decision-flood",
          bytes([0x41, 0x24, 0, 0x04, 0]) + init)
    write("MpaStartupFuzzTest", "responder", "siw-h2g_rev2_rping-late-decision-offset",
          bytes([0x41, 0x04 | 1, 0x35, 3, 0x9c]) + init)
    write("MpaStartupFuzzTest", "initiator", "siw-h2g_rev2_rping-bytewise-heap",
          bytes([0x41, 0x11, 0x01 | 0x08, 0x11]) + rev2.stream(False))
    write("MpaStartupFuzzTest", "initiator", "siw-h2g_rev2_rping-pieces-adaptive-timers-pd",
          bytes([0x41, 0x11, 0x03 | 0x0c | 0x10 | 0x40, 0xa3]) + rev2.stream(False))

# RFC 5044 §7.1.1 frames from rdma-core's tests, with the Figure 6 FPDUs after the Request (CRC and Markers).
write("MpaStartupFuzzTest", "responder", "rfc5044-request-then-figure6-fpdus",
      bytes([0x44, 0, 0, 0, 0]) + request_frame(0x40, 1) + FIG6_WIRE)
write("MpaStartupFuzzTest", "responder", "rfc5044-request-then-figure6-fpdus-in-pieces",
      bytes([0x44, 0, 0, 1, 0xb3]) + request_frame(0x40, 1) + FIG6_WIRE)
write("MpaStartupFuzzTest", "responder", "rfc6581-enhanced-request-rejected",
      bytes([0x01, 2, 0x05, 0, 0]) + request_frame(0x10, 2, h("00010001")))
write("MpaStartupFuzzTest", "responder", "rfc6581-enhanced-request-rejected-streaming",
      bytes([0x01, 2, 0x05, 0, 0]) + request_frame(0x10, 2, h("00010001")) + b"after the reject")
write("MpaStartupFuzzTest", "responder", "rfc6581-enhanced-request-without-block",
      bytes([0x41, 0, 0, 0, 0]) + request_frame(0x10, 2, h("0001")))
write("MpaStartupFuzzTest", "responder", "rfc6581-p2p-request-no-decision-timers",
      bytes([0x71, 0x0b, 0x22, 0, 0]) + request_frame(0x50, 2, h("8004c004")))
write("MpaStartupFuzzTest", "responder", "rfc5044-reply-where-request-due",
      bytes([0x40, 0, 0, 0, 0]) + reply_frame(0x40, 1))
write("MpaStartupFuzzTest", "responder", "rfc5044-pd-length-above-cap",
      bytes([0xc1, 0, 0, 0, 0]) + REQ_KEY + h("4002 0200"))
write("MpaStartupFuzzTest", "responder", "codec-test-request-with-reserved-bits",
      bytes([0x41, 0, 0, 0, 0]) + REQ_KEY + h("5f01 0002 cafe"))
# Finding "key-error-reason-depends-on-reads" (fixed in rdma-core 1a24db8), minimal: a key that begins like the
# other frame's, octet by octet and in one read (the fuzzer's own inputs are finding-key-error-reason-*).
write("MpaStartupFuzzTest", "responder", "finding-key-error-reason-minimal-bytewise",
      bytes([0x41, 0, 0, 0, 0x01]) + b"MPA ID RepX")
write("MpaStartupFuzzTest", "initiator", "finding-key-error-reason-minimal-bytewise",
      bytes([0x41, 0x11, 0, 0x01]) + b"MPA ID ReqX")
write("MpaStartupFuzzTest", "initiator", "rfc5044-reply-then-figure5-fpdu",
      bytes([0x44, 0x00, 0x00, 0]) + reply_frame(0x40, 1) + FIG5_WIRE)
write("MpaStartupFuzzTest", "initiator", "rfc6581-reply-rejected-with-pd",
      bytes([0x41, 0x44, 0x00, 0]) + reply_frame(0x30, 2, h("00000000 6e6f7065")))
write("MpaStartupFuzzTest", "initiator", "rfc6581-reply-insufficient-ird",
      bytes([0x41, 0x11, 0x00, 0]) + reply_frame(0x10, 2, h("00040004")))
write("MpaStartupFuzzTest", "initiator", "rfc6581-p2p-reply-write-rtr",
      bytes([0x71, 0x44, 0x00, 0]) + reply_frame(0x10, 2, h("80048004")) + frame([tagged(0, True, 0, 0)], False, False))
write("MpaStartupFuzzTest", "initiator", "rfc5044-request-where-reply-due",
      bytes([0x40, 0x44, 0x00, 0]) + request_frame(0x40, 1))
write("MpaStartupFuzzTest", "frameCodec", "codec-test-reply", bytes([1]) + REP_KEY + h("b002 0003 0a0b0c"))
write("MpaStartupFuzzTest", "frameCodec", "codec-test-request-after-junk",
      bytes([2]) + REQ_KEY + h("5f01 0002 cafe"))

# ---- FpduDecoderFuzzTest ----

write("FpduDecoderFuzzTest", "rawStream", "rfc5044-figure5", bytes([0x03, 0]) + FIG5_WIRE)
write("FpduDecoderFuzzTest", "rawStream", "rfc5044-figure6", bytes([0x03, 0]) + FIG6_WIRE)
write("FpduDecoderFuzzTest", "rawStream", "rfc5044-figure6-in-pieces-slices", bytes([0x0b, 0xc5]) + FIG6_WIRE)
write("FpduDecoderFuzzTest", "rawStream", "rfc5044-figure6-bytewise-offset-leaktracked",
      bytes([0x1f, 0x01]) + FIG6_WIRE)
write("FpduDecoderFuzzTest", "rawStream", "rfc5044-figure6-in-pieces-slices-pooled", bytes([0x2b, 0x85]) + FIG6_WIRE)
write("FpduDecoderFuzzTest", "rawStream", "rfc5044-figure6-in-pieces-offset-adaptive", bytes([0x3f, 0x46]) + FIG6_WIRE)
bad = bytearray(FIG5_WIRE)
bad[-1] ^= 0xFF
write("FpduDecoderFuzzTest", "rawStream", "rfc5044-figure5-bad-crc", bytes([0x03, 0]) + bad)
write("FpduDecoderFuzzTest", "rawStream", "decoder-test-length-above-64768", bytes([0x00, 0]) + h("fd01 0000"))
write("FpduDecoderFuzzTest", "framedUlpdus", "rfc5044-figure6-ulpdus",
      bytes([0x03, 0, 0, 0, 0]) + records([FIG6_FIRST, FIG6_ULPDU]))
write("FpduDecoderFuzzTest", "framedUlpdus", "rfc5044-figure6-ulpdus-corrupted",
      bytes([0x43, 0x47, 0x01, 0xec, 0x10]) + records([FIG6_FIRST, FIG6_ULPDU]))
for c in captures:
    for from_init in (True, False):
        fpdus = c.fpdus(from_init)
        if not fpdus:
            continue
        who = "initiator" if from_init else "responder"
        wire = b"".join(fpdus)
        crc = 1 if c.crc else 0
        write("FpduDecoderFuzzTest", "rawStream", "siw-%s-%s" % (c.name, who), bytes([crc, 0]) + wire)
        write("FpduDecoderFuzzTest", "framedUlpdus", "siw-%s-%s" % (c.name, who),
              bytes([crc, 0, 0, 0, 0]) + records([ulpdu_of(f) for f in fpdus]))
if rev2 is not None:
    ulpdus = [ulpdu_of(f) for f in rev2.fpdus(True)]
    write("FpduDecoderFuzzTest", "framedUlpdus", "siw-h2g_rev2_rping-initiator-markers-crc-pieces",
          bytes([0x27, 0x83, 0, 0, 0]) + records(ulpdus))
    write("FpduDecoderFuzzTest", "rawStream", "siw-h2g_rev2_rping-initiator-reframed-markers-crc",
          bytes([0x03, 0x44]) + frame(ulpdus, True, True))

# ---- HeaderCodecsFuzzTest ----

U18 = untagged(3, True, 0, 3, 1, 0)
T14 = tagged(0, True, 0x00abcd01, 0)
RR28 = read_request(1, 0x11223344, 0x1000, 64, 0x0000ab01, 0x7f0000001000)[18:]
terminates = {
    # TerminateTest: RFC 5040 §4.8 layout, M and D with the DDP segment length and header
    "rfc5040-ddp-tagged-invalid-stag": h("1100c000") + struct.pack(">H", 30) + T14,
    "rfc5040-ddp-untagged-invalid-qn": h("1201c000") + struct.pack(">H", 34) + U18,
    "rfc5040-rdmap-protection-with-read-request": h("0202e000") + struct.pack(">H", 46) + untagged(1, True, 0, 1, 1, 0)
    + RR28,
    "rfc5044-llp-crc-error": h("20020000"),
    "rfc6581-llp-insufficient-ird": h("20060000"),
    # TerminateTest: Linux siw 6.1 writes the control word as a little-endian bitfield
    "siw61-untagged-invalid-qn": h("21010300") + h("0022") + U18,
    "truncated-headers": h("1201c000") + h("00"),
}
for name, t in terminates.items():
    write("HeaderCodecsFuzzTest", "terminate", name, bytes([0x00]) + t)
write("HeaderCodecsFuzzTest", "terminate", "siw61-untagged-invalid-qn-with-octets-around",
      bytes([0x5a]) + terminates["siw61-untagged-invalid-qn"])
write("HeaderCodecsFuzzTest", "terminateRoundTrip", "ddp-untagged-with-read-request",
      bytes([0, 2, 1]) + untagged(1, True, 0, 1, 1, 0) + struct.pack(">H", 46) + RR28)
write("HeaderCodecsFuzzTest", "terminateRoundTrip", "ddp-tagged", bytes([1, 1, 0]) + T14 + struct.pack(">H", 30))
write("HeaderCodecsFuzzTest", "terminateRoundTrip", "llp-no-headers", bytes([2, 0, 2]))
seen = set()
for c in captures:
    for f in c.fpdus(True) + c.fpdus(False):
        u = ulpdu_of(f)
        key = u[:2]
        if key in seen:
            continue
        seen.add(key)
        write("HeaderCodecsFuzzTest", "ddpAndRdmapHeaders", "siw-%s-%02x%02x" % (c.name, u[0], u[1]), bytes([0]) + u)
for name, u in {"tagged-write": T14 + PAYLOAD16, "untagged-send": U18 + PAYLOAD16,
                "read-request": untagged(1, True, 0, 1, 1, 0) + RR28,
                "terminate": untagged(7, True, 0, 2, 1, 0) + terminates["siw61-untagged-invalid-qn"]}.items():
    write("HeaderCodecsFuzzTest", "ddpAndRdmapHeaders", name, bytes([3]) + u)

# ---- PrivateDataFuzzTest ----

pds = {"enhanced-test-send-rtr-write-rtr": h("40008000"), "short": h("000100")}
for c in captures:
    for k in ("MPA Request", "MPA Reply"):
        fr = c.frame(k)
        if fr is not None and len(fr) > 20:
            pds["siw-%s-%s" % (c.name, "reply" if k == "MPA Reply" else "request")] = fr[20:]
for name, pd in pds.items():
    write("PrivateDataFuzzTest", "irdOrd", name, pd)
NFS = h("f6ab0e18 01 00 03 03")
rpc = {
    "rfc8797-nfs-server": bytes([0, 4]) + NFS,
    "rfc8797-after-irdord-block": bytes([4, 4]) + h("8010 4010") + NFS,
    "rfc8797-unaligned-among-octets": bytes([3, 2]) + h("aabbcc") + NFS + h("dd"),
    "rfc8797-version2-then-version1": bytes([0, 9]) + h("f6ab0e18 02 01 ffff 00 f6ab0e18 01 00 07 01"),
    "rfc8797-identifier-twice": bytes([4, 1]) + h("f6ab0e18 f6ab0e18 01 01 03 07"),
    "rfc8797-truncated": bytes([1, 0]) + h("00 f6ab0e18 01 00 03"),
    "rfc8797-r-and-reserved-bits": bytes([0, 0]) + h("f6ab0e18 01 ff 00 ff"),
}
for name, pd in rpc.items():
    write("PrivateDataFuzzTest", "rpcRdma", name, pd)

# ---- ReactiveProtocolFuzzTest ----

def header(t, flags, credits, corr):
    return struct.pack(">BBHI", t, flags, credits, corr & 0xFFFFFFFF)


desc = struct.pack(">IQI", 0x00ab0001, 0x1000, 0x10000)
sends = {
    "data": header(1, 0, 3, 0) + b"hello",
    "request": header(2, 0, 1, 42) + b"ping",
    "response": header(3, 0, 0, 42) + b"pong",
    "credit": header(4, 0, 16, 0),
    "large-data": header(5, 1, 0, 0) + desc,
    "large-request": header(5, 2, 2, 7) + desc,
    "large-to-at-2^64": header(5, 3, 0, 9) + struct.pack(">IQI", 1, 0xFFFFFFFFFFFFFF00, 0x100),
    "large-to-wraps": header(5, 3, 0, 9) + struct.pack(">IQI", 1, 0xFFFFFFFFFFFFFF00, 0x101),
    "read-done": header(6, 0, 0, 0x00ab0001),
    "error": header(7, 0, 0, 42) + b"oops",
    "batch": header(8, 0, 1, 2) + struct.pack(">I", 3) + b"abc" + struct.pack(">I", 0),
    "batch-overrun": header(8, 0, 1, 1) + struct.pack(">I", 0xFFFFFFFF) + b"abc",
    "unknown-type": header(9, 0, 0, 0),
    "short": h("0100"),
}
for name, m in sends.items():
    write("ReactiveProtocolFuzzTest", "receivedSend", name, bytes([0]) + m)
write("ReactiveProtocolFuzzTest", "receivedSend", "large-request-over-max-length", bytes([0x0d]) + sends["large-request"])

# ---- QueuePairReceiveFuzzTest ----

PH = 0xFFFFFF00  # region placeholders: 0xffffff0k is region k's STag
for c in captures:
    fpdus = c.fpdus(True)
    req = c.frame("MPA Request")
    if not fpdus or req is None:
        continue
    options = 0x04 | (0x08 if req[17] == 2 and req[16] & 0x10 else 0) | (0x01 if c.crc else 0)
    write("QueuePairReceiveFuzzTest", "receive", "siw-%s-raw" % c.name, bytes([options, 0, 0x03, 0]) + b"".join(fpdus))
    write("QueuePairReceiveFuzzTest", "receive", "siw-%s-framed" % c.name,
          bytes([options & ~0x04, 0, 0x43, 2]) + records([ulpdu_of(f) for f in fpdus]))

send1 = untagged(3, True, 0, 0, 1, 0) + PAYLOAD16
write_r0 = tagged(0, True, PH, 0) + PAYLOAD16
read_r0 = read_request(1, 0x11223344, 0, 16, PH, 0)
sequences = {
    "send": [send1],
    "send-two-segments": [untagged(3, False, 0, 0, 1, 0) + PAYLOAD16[:8], untagged(3, True, 0, 0, 1, 8) + PAYLOAD16[8:]],
    "send-too-long": [untagged(3, True, 0, 0, 1, 0) + bytes(300)],
    "send-with-se-and-invalidate-region0": [untagged(6, True, PH, 0, 1, 0) + PAYLOAD16],
    "write-region0": [write_r0],
    "write-two-segments-region1": [tagged(0, False, PH | 1, 0) + PAYLOAD16, tagged(0, True, PH | 1, 16) + PAYLOAD16],
    "write-other-domain": [tagged(0, True, PH | 3, 0) + PAYLOAD16],
    "write-no-access-region2": [tagged(0, True, PH | 2, 0) + PAYLOAD16],
    "write-beyond-region0": [tagged(0, True, PH, 56) + PAYLOAD16],
    "zero-length-write-rtr": [tagged(0, True, 0x12345678, 0)],
    "read-request-region0": [read_r0],
    "read-requests-beyond-ird": [read_request(i, 0x11223344, 0, 8, PH, 0) for i in range(1, 4)],
    "read-response-unsolicited": [tagged(2, True, 0x11223344, 0) + PAYLOAD16],
    "write-read-send": [write_r0, read_r0, send1, untagged(3, True, 0, 0, 2, 0) + PAYLOAD16],
    "terminate-rfc-layout": [untagged(7, True, 0, 2, 1, 0) + terminates["rfc5040-ddp-untagged-invalid-qn"]],
    "terminate-siw-layout": [untagged(7, True, 0, 2, 1, 0) + terminates["siw61-untagged-invalid-qn"]],
    "bad-ddp-version": [bytes([0x42]) + send1[1:]],
    "reserved-opcode": [untagged(9, True, 0, 0, 1, 0)],
    "short-ulpdu": [h("41")],
}
for name, seq in sequences.items():
    write("QueuePairReceiveFuzzTest", "receive", name, bytes([0x08, 0, 0x03, 0]) + records(seq))
write("QueuePairReceiveFuzzTest", "receive", "write-read-send-crc-markers-both-ways",
      bytes([0x1b, 0, 0x07, 1]) + records(sequences["write-read-send"]))
write("QueuePairReceiveFuzzTest", "receive", "write-read-send-rev1-pieces-slices-ird1-pooled",
      bytes([0x40, 0x8a, 0x22, 2]) + records(sequences["write-read-send"]))
write("QueuePairReceiveFuzzTest", "receive", "write-read-send-bytewise-offset-adaptive",
      bytes([0x68, 0x05, 0x03, 3]) + records(sequences["write-read-send"]))
write("QueuePairReceiveFuzzTest", "receive", "send-with-invalidate-invalidated-region1",
      bytes([0x08, 0, 0x13, 0]) + records([untagged(4, True, PH | 1, 0, 1, 0) + PAYLOAD16]))
write("QueuePairReceiveFuzzTest", "receive", "rfc5044-figure6-raw-crc-markers",
      bytes([0x07, 0, 0x03, 0]) + FIG6_WIRE)
print("seeds written under " + os.path.normpath(ROOT))
