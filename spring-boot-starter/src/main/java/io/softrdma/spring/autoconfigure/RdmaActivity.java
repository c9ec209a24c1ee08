package io.softrdma.spring.autoconfigure;

import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.reactive.RdmaMetricsRecorder;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.reactive.SessionStatistics;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * What the application's RDMA sessions are doing, per role ({@link #server()}, {@link #client()}, and one client
 * role per named peer, {@link #client(String)}): the sessions open now, and totals of sessions ended, Terminates
 * and failed startups. The auto-configured server and client report here; metrics and the health indicator read
 * from here. Counts per opcode and direction survive their sessions: those of ended sessions are kept as totals.
 *
 * <p>Thread safety: thread-safe; recording allocates nothing.
 */
public class RdmaActivity {
    /** The peer of the roles that are not for one named peer: Micrometer's value for "no value". */
    public static final String NO_PEER = "none";

    private final Role server = new Role("server", NO_PEER);
    private final Role client = new Role("client", NO_PEER);
    /** Client roles per peer, in the order they came; a role is never removed, so that its counters never go back. */
    private final java.util.Map<String, Role> peers = new java.util.LinkedHashMap<>();
    private final List<java.util.function.Consumer<Role>> roleListeners = new CopyOnWriteArrayList<>();

    /**
     * The server's sessions.
     *
     * @return the server role
     */
    public Role server() {
        return server;
    }

    /**
     * The client's sessions.
     *
     * @return the client role
     */
    public Role client() {
        return client;
    }

    /**
     * The client role for connections to one peer (a service or host name), created on first use: its meters carry
     * the tag {@code peer} with that name, so that the clients of two services are two series. Names should be few
     * (service names, not pod addresses): a role lives as long as the application.
     *
     * @param peer the peer's name, not blank
     * @return that peer's role
     */
    public Role client(String peer) {
        if (peer == null || peer.isBlank()) {
            throw new IllegalArgumentException("a peer's client role needs the peer's name (a service or host name),"
                    + " was '" + peer + "'");
        }
        Role role;
        synchronized (peers) {
            role = peers.get(peer);
            if (role != null) {
                return role;
            }
            role = new Role("client", peer);
            peers.put(peer, role);
            // Under the lock, so that a listener added at the same time sees the role exactly once.
            for (java.util.function.Consumer<Role> l : roleListeners) {
                l.accept(role);
            }
        }
        return role;
    }

    /**
     * Every role: server, client, then the peers' client roles in the order they came.
     *
     * @return a snapshot
     */
    public List<Role> roles() {
        List<Role> all = new java.util.ArrayList<>();
        all.add(server);
        all.add(client);
        synchronized (peers) {
            all.addAll(peers.values());
        }
        return List.copyOf(all);
    }

    /**
     * The peers' client roles, by peer name, in the order they came.
     *
     * @return a snapshot
     */
    public java.util.Map<String, Role> peers() {
        synchronized (peers) {
            return java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(peers));
        }
    }

    /**
     * Calls {@code listener} with every role, now for those that exist and later for each peer role as it is created
     * (metrics bind each role's meters this way).
     *
     * @param listener a quick, thread-safe callback
     */
    public void forEachRole(java.util.function.Consumer<Role> listener) {
        synchronized (peers) {
            roleListeners.add(listener);
            for (Role r : roles()) {
                listener.accept(r);
            }
        }
    }

    /** One role's sessions; also the {@link RdmaMetricsRecorder} its server or client reports to. */
    public static final class Role implements RdmaMetricsRecorder {
        private final String name;
        private final String peer;
        private final Set<RdmaSession> open = ConcurrentHashMap.newKeySet();
        private final LongAdder opened = new LongAdder();
        private final LongAdder closedGracefully = new LongAdder();
        private final LongAdder lost = new LongAdder();
        private final LongAdder terminates = new LongAdder();
        private final LongAdder rejected = new LongAdder();
        private final LongAdder failed = new LongAdder();
        /** Per opcode and direction: messages and octets of the sessions that ended. */
        private final LongAdder[] endedMessages = adders(RdmapOpcode.values().length * 2);
        private final LongAdder[] endedOctets = adders(RdmapOpcode.values().length * 2);
        private final List<RdmaMetricsRecorder> listeners = new CopyOnWriteArrayList<>();

        Role(String name, String peer) {
            this.name = name;
            this.peer = peer;
        }

        private static LongAdder[] adders(int n) {
            LongAdder[] a = new LongAdder[n];
            for (int i = 0; i < n; i++) {
                a[i] = new LongAdder();
            }
            return a;
        }

        /**
         * "server" or "client".
         *
         * @return the role's name, as metrics tag it
         */
        public String name() {
            return name;
        }

        /**
         * The peer this role's sessions are with, or {@link RdmaActivity#NO_PEER}.
         *
         * @return the peer's name, as metrics tag it
         */
        public String peer() {
            return peer;
        }

        /**
         * Also tells {@code listener} every event (metrics use this for timers and tagged counters).
         *
         * @param listener a thread-safe, non-blocking recorder
         */
        public void addListener(RdmaMetricsRecorder listener) {
            listeners.add(listener);
        }

        /**
         * The sessions open now.
         *
         * @return a live view
         */
        public Set<RdmaSession> openSessions() {
            return java.util.Collections.unmodifiableSet(open);
        }

        /**
         * Sessions opened since the application started.
         *
         * @return the count
         */
        public long opened() {
            return opened.sum();
        }

        /**
         * Sessions that ended with an error (a Terminate, a lost connection).
         *
         * @return the count
         */
        public long lost() {
            return lost.sum();
        }

        /**
         * Sessions that ended with a graceful close.
         *
         * @return the count
         */
        public long closedGracefully() {
            return closedGracefully.sum();
        }

        /**
         * Terminates sent or received.
         *
         * @return the count
         */
        public long terminates() {
            return terminates.sum();
        }

        /**
         * Connections refused at startup (by an accept decision, or by the server for a client).
         *
         * @return the count
         */
        public long startupsRejected() {
            return rejected.sum();
        }

        /**
         * Connections whose MPA startup failed.
         *
         * @return the count
         */
        public long startupsFailed() {
            return failed.sum();
        }

        /**
         * Messages of {@code opcode} sent or received, by open and ended sessions.
         *
         * @param opcode the RDMAP opcode
         * @param inbound true for received
         * @return the count
         */
        public long messages(RdmapOpcode opcode, boolean inbound) {
            return endedMessages[index(opcode, inbound)].sum()
                    + sum(s -> s.counters().messages(opcode, inbound));
        }

        /**
         * Payload octets of {@code opcode} sent or received, by open and ended sessions.
         *
         * @param opcode the RDMAP opcode
         * @param inbound true for received
         * @return the count
         */
        public long octets(RdmapOpcode opcode, boolean inbound) {
            return endedOctets[index(opcode, inbound)].sum() + sum(s -> s.counters().octets(opcode, inbound));
        }

        /**
         * A value summed over the open sessions' statistics.
         *
         * @param value what to take of each
         * @return the sum
         */
        public long sum(ToLongFunction<SessionStatistics> value) {
            long total = 0;
            for (RdmaSession s : open) {
                total += value.applyAsLong(s.statistics());
            }
            return total;
        }

        private static int index(RdmapOpcode opcode, boolean inbound) {
            return opcode.ordinal() * 2 + (inbound ? 1 : 0);
        }

        @Override
        public void sessionOpened(RdmaSession session) {
            opened.increment();
            open.add(session);
            for (RdmaMetricsRecorder l : listeners) {
                l.sessionOpened(session);
            }
        }

        @Override
        public void sessionClosed(RdmaSession session, Throwable cause) {
            if (open.remove(session)) {
                SessionStatistics last = session.statistics();
                for (RdmapOpcode op : RdmapOpcode.values()) {
                    for (boolean inbound : new boolean[] {false, true}) {
                        endedMessages[index(op, inbound)].add(last.counters().messages(op, inbound));
                        endedOctets[index(op, inbound)].add(last.counters().octets(op, inbound));
                    }
                }
            }
            (cause == null ? closedGracefully : lost).increment();
            for (RdmaMetricsRecorder l : listeners) {
                l.sessionClosed(session, cause);
            }
        }

        @Override
        public void operation(Operation operation, long octets, long nanos, boolean success) {
            for (RdmaMetricsRecorder l : listeners) {
                l.operation(operation, octets, nanos, success);
            }
        }

        @Override
        public void terminate(TerminateException terminate) {
            terminates.increment();
            for (RdmaMetricsRecorder l : listeners) {
                l.terminate(terminate);
            }
        }

        @Override
        public void startupFailed(StartupFailure failure) {
            (failure == StartupFailure.REJECTED ? rejected : failed).increment();
            for (RdmaMetricsRecorder l : listeners) {
                l.startupFailed(failure);
            }
        }
    }
}
