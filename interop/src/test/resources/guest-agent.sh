# SoftRDMA interop guest agent: the siw-vm guest command (run.sh --cmd-file) for SiwVm.java.
#
# The host shares a directory at /mnt/host (run.sh --share) and drops job scripts into
# /mnt/host/jobs as <n>.sh, n = 1, 2, 3, ... Each job runs in the background, with
#   <n>.out   its stdout, <n>.err its stderr (apart: rping's stdout is block-buffered into a file,
#             so a stderr line in the same file would land in the middle of a stdout line),
#   <n>.rc    "<exit code> <guest uptime at start> <guest uptime at end>", written last (atomically),
#   <n>.klog  the kernel log since the previous job ended (siw's connection-level debug lines).
# A job that wants to be killable writes its pid to $JOBPID (<n>.pid). /mnt/host/jobs/stop ends the agent,
# and with it the VM (run.sh's /init powers off once the guest command returns).
J=/mnt/host/jobs
[ -d $J ] || { echo "SIW-VM-AGENT-ERROR $J missing (9p share not mounted?)"; exit 125; }

# siw's per-connection debug lines (MPA negotiation, "enter RTS: crc=.., ord=.., ird=..", errors,
# Terminate) into the kernel ring buffer only (the console stays at loglevel 4): nothing per FPDU.
mount -t debugfs none /sys/kernel/debug 2>/dev/null
C=/sys/kernel/debug/dynamic_debug/control
if [ -w $C ]; then
    echo "file siw_cm.c +p" > $C
    for f in siw_qp_nextstate_from_idle siw_qp_readq_init siw_init_terminate siw_send_terminate \
             siw_activate_tx_from_sq siw_qp_llp_close siw_check_tx_fence; do
        echo "func $f +p" > $C 2>/dev/null
    done
    echo "SIW-VM-AGENT siw connection debug on"
else
    echo "SIW-VM-AGENT-WARN no dynamic debug control: .klog files will lack siw's lines"
fi
dmesg -c > /dev/null

echo "SIW-VM-AGENT-READY"
i=1
while [ ! -e $J/stop ]; do
    if [ -e $J/$i.sh ]; then
        (
            t0=$(cut -d' ' -f1 /proc/uptime)
            JOBPID=$J/$i.pid sh $J/$i.sh > $J/$i.out 2> $J/$i.err
            rc=$?
            t1=$(cut -d' ' -f1 /proc/uptime)
            dmesg -c > $J/$i.klog 2>&1
            echo "$rc $t0 $t1" > $J/$i.rc.tmp
            mv $J/$i.rc.tmp $J/$i.rc
            echo "SIW-VM-JOB-END $i rc=$rc"
        ) &
        echo "SIW-VM-JOB-START $i"
        i=$((i + 1))
    else
        usleep 100000
    fi
done
echo "SIW-VM-AGENT-STOP"
