# Lifeline of one siw VM (see SiwVm.java), started by the test JVM with its stdin a pipe from the JVM.
# When that pipe closes (the JVM closed it after stopping the VM, or the JVM is gone, however it
# ended: even kill -9, or surefire halting a fork that hit its timeout), it kills that VM's qemu by
# the PID in the run directory, and only if /proc/PID/cmdline names that run directory.
# usage: bash vm-lifeline.sh RUNDIR
trap '' INT HUP
d=$1
cat > /dev/null
for f in qemu.pid timeout.pid; do
    pid=$(cat "$d/$f" 2>/dev/null) || continue
    [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || continue
    if tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$d/"; then
        kill "$pid" && echo "vm-lifeline: the test JVM went away while the VM ran: killed $f $pid"
    fi
done
exit 0
