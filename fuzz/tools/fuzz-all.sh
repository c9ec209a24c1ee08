#!/usr/bin/env bash
# Fuzzes every @FuzzTest of the module in turn, each for the given time (default 60s), and prints one line per
# target from libFuzzer's last status line: executions, coverage, corpus, and whether it found something.
#
#   fuzz/tools/fuzz-all.sh [duration] [Class#method ...]      e.g.  fuzz/tools/fuzz-all.sh 2m
#
# Run from the repository root, after rdma-core, rdma-reactive and rdma-rpc are installed (the module builds offline
# against them). Extra Maven arguments go in FUZZ_MVN_ARGS, e.g. to fuzz past a known, reported finding
# (see KnownFindings):  FUZZ_MVN_ARGS=-Dsoftrdma.fuzz.tolerate=<id> fuzz/tools/fuzz-all.sh 2m Logs: fuzz/target/fuzz-logs/<Class>#<method>.log. A crashing input lands in
# fuzz/src/test/resources/io/softrdma/fuzz/<Class>Inputs/<method>/crash-<sha1> (and then fails the regression
# run until it is fixed or moved to fuzz/findings/). The generated corpus grows in fuzz/.cifuzz-corpus/.
set -u
duration="${1:-60s}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(
        MpaStartupFuzzTest#responder MpaStartupFuzzTest#initiator MpaStartupFuzzTest#frameCodec
        FpduDecoderFuzzTest#rawStream FpduDecoderFuzzTest#framedUlpdus
        HeaderCodecsFuzzTest#terminate HeaderCodecsFuzzTest#terminateRoundTrip HeaderCodecsFuzzTest#ddpAndRdmapHeaders
        PrivateDataFuzzTest#irdOrd PrivateDataFuzzTest#rpcRdma
        ReactiveProtocolFuzzTest#receivedSend
        QueuePairReceiveFuzzTest#receive
    )
fi
logs=fuzz/target/fuzz-logs
mkdir -p "$logs"
for t in "${targets[@]}"; do
    log="$logs/$t.log"
    # Netty's leak detector at SIMPLE with every buffer sampled: leak-tracked buffers stay wrapped (the decoders'
    # wrapper-aware paths), without PARANOID's access records, which cost some 4x in executions.
    JAZZER_FUZZ=1 ./mvnw -B -o -q -pl fuzz -am test -Dtest="$t" -Djazzer.max_duration="$duration" \
        -Dnetty.leak.level=SIMPLE -Dio.netty.leakDetection.samplingInterval=1 -Dsurefire.failIfNoSpecifiedTests=false \
        ${FUZZ_MVN_ARGS:-} > "$log" 2>&1
    rc=$?
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    finding=$(grep -m1 -E '== Java Exception|FuzzTestFinding|Test unit written to|crash-' "$log" || true)
    printf '%-45s rc=%d  %s  %s\n' "$t" "$rc" "$last" "${finding:+FINDING: $finding}"
done
