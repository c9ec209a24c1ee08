#!/bin/bash
# usage: AP=/path/to/libasyncProfiler.so breakdown.sh JAR test size label
# Per-operation breakdown of one bandwidth phase (both event loops): async-profiler 4.1 (Maven Central
# tools.profiler:async-profiler, linux-x64/libasyncProfiler.so inside the jar) for where CPU goes, perf stat for
# system calls and context switches. Writes OUT_DIR/bd-LABEL-TESTSIZE.*.
jar=$1; t=$2; s=$3; label=$4
out=${OUT_DIR:-.}/bd-$label-$t$s
java -agentpath:${AP:?set AP to libasyncProfiler.so}=start,event=cpu,interval=100us,threads,file=$out.collapsed,collapsed \
  -jar $jar --test $t --size $s --no-progress --no-baseline --warmup 1 --duration 6 > $out.txt 2>/dev/null &
pid=$!
jpid=$(pgrep -f "$out.collapsed" | head -1)
for i in $(seq 1 100); do grep -qs rdma-client /proc/$jpid/task/*/comm && break; sleep 0.2; done
sleep 2
perf stat --per-thread -p $jpid -e 'raw_syscalls:sys_enter,context-switches,task-clock' -- sleep 2 2> $out.stat
wait $pid
python3 - $out $t <<'PY'
import sys,re,collections
out,t=sys.argv[1:3]
row=[l for l in open(out+'.txt') if l.startswith(t if t!='atomic' else 'fetch-add')][0].split()
rate=float(row[5]); bop=row[-1]
ops=rate*2.0
stat=collections.defaultdict(dict)
for l in open(out+'.stat'):
    m=re.match(r'\s*(rdma-(client|server)[^ ]*)\s+([\d,.]+)\s+(msec\s+)?(\S+)',l)
    if m: stat[m.group(2)][m.group(5)]=float(m.group(3).replace(',',''))
print(f"{t} {row[1]} B: {rate/1e6:.2f} M ops/s, {bop} B/op (heap, both loops)")
for side in ('client','server'):
    st=stat[side]
    print(f"  {side}: CPU {st.get('task-clock',0)*1e6/ops:.0f} ns/op, system calls {st.get('raw_syscalls:sys_enter',0)/ops:.3f}/op, context switches {st.get('context-switches',0)/ops:.3f}/op")
cats=[('kernel: TCP send (writev/sendto)',['do_writev','__sys_sendto','tcp_sendmsg']),
      ('kernel: TCP receive (read/recvfrom)',['__sys_recvfrom','ksys_read','tcp_recvmsg']),
      ('kernel: epoll wait and wake-ups',['do_epoll_wait','ep_poll','schedule']),
      ('CRC32c',['updateBytesCRC32C','CRC32C.update','Crc32c.']),
      ('MPA decode (FpduDecoder, excl. CRC, DDP)',['FpduDecoder.decode']),
      ('MPA encode (FpduEncoder, excl. CRC)',['FpduEncoder.write','FpduEncoder.encode']),
      ('DDP/RDMAP receive (QueuePairReceiver)',['QueuePairReceiver.']),
      ('DDP/RDMAP transmit (QueuePairSender, excl. encode)',['QueuePairSender.send','QueuePairSender.readResponse','QueuePairSender.emit','QueuePairSender.choose']),
      ('completions and the application',['DefaultCompletionQueue.','RdmaPerf']),
      ]
for side in ('client','server'):
    tot=0; c=collections.Counter()
    for line in open(out+'.collapsed'):
        stack,_,n=line.rstrip().rpartition(' '); n=int(n)
        if not stack.startswith('[rdma-'+side): continue
        tot+=n; fr=stack.split(';')
        # attribute to the deepest matching category (leaf-most frame wins)
        hit='other (Netty pipeline, event loop, JIT, GC)'
        for x in reversed(fr):
            found=None
            for name,ks in cats:
                if any(k in x for k in ks): found=name; break
            if found: hit=found; break
        c[hit]+=n
    cpu=stat[side].get('task-clock',0)*1e6/ops
    print(f"  {side} CPU by part (async-profiler, {tot} samples):")
    for name,v in sorted(c.items(), key=lambda kv:-kv[1]):
        print(f"    {100*v/tot:5.1f}%  ~{cpu*v/tot:4.0f} ns  {name}")
PY
