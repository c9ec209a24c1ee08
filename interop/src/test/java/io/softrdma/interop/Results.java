package io.softrdma.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code target/interop-logs/results.md}: one row per case run by this JVM (rewritten after each), for
 * the interop documentation.
 */
final class Results {
    private static final List<String> ROWS = new ArrayList<>();
    private static final List<String> VMS = new ArrayList<>();

    private Results() {}

    static synchronized void vm(SiwVm vm) {
        VMS.add(String.format(Locale.ROOT, "- `%s` (siw %s), up in %.1f s: `%s`", vm.name,
                vm.siwParams.isEmpty() ? "defaults" : String.join(" ", vm.siwParams), vm.bootSeconds, vm.bootCommand));
        write();
    }

    static synchronized void add(InteropCase c, String verdict) {
        String pings = c.javaPings() + " / " + c.siwPings();
        String times = String.format(Locale.ROOT, "%.1f s / %.1f s", c.java == null ? Double.NaN : c.java.seconds(),
                c.siw == null ? Double.NaN : c.siw.guestSeconds());
        String outcome = "Java exit " + (c.javaKilled ? "none (hung: killed)" : c.javaRc) + ", siw rping exit "
                + (c.siwKilled ? "none (still running: killed)" : c.siwRc)
                + (c.siwExitRace() ? " (rping 44.0 exit race after a complete run, rdma-core PR #1622)" : "")
                + (c.java != null && c.java.errorLine() != null ? "; Java: `" + c.java.errorLine() + "`" : "")
                + "; Java: " + c.javaConnection() + "; siw: " + c.siwConnection();
        ROWS.add("| " + esc(c.id + " " + c.title) + " | `" + esc(c.siwCommand) + "` | `" + esc(c.javaCommand())
                + "` | " + esc(outcome) + " | " + pings + " | " + times + " | " + esc(verdict) + " |");
        write();
    }

    private static String esc(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }

    private static void write() {
        StringBuilder sb = new StringBuilder("# siw interop run\n\nVMs:\n\n");
        VMS.forEach(v -> sb.append(v).append('\n'));
        sb.append("\n| case | siw side (guest) | Java side (host) | outcome | pings Java / siw | time Java (wall, JVM"
                + " start included) / siw (guest) | verdict |\n|---|---|---|---|---|---|---|\n");
        ROWS.forEach(r -> sb.append(r).append('\n'));
        Logs.write(Harness.LOG_DIR.resolve("results.md"), sb.toString());
    }
}
