package io.softrdma.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reading the log files the tests write, tolerant of files that do not exist (yet). */
final class Logs {
    private Logs() {}

    static String read(Path file) {
        try {
            return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

    static String tail(Path file, int lines) {
        return tail(read(file), lines);
    }

    static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** A labelled tail of each file, for a failure message. */
    static String tails(int lines, Path... files) {
        StringBuilder sb = new StringBuilder();
        for (Path f : files) {
            sb.append("\n----- ").append(f).append(Files.exists(f) ? " (last " + lines + " lines)" : " (missing)")
                    .append(" -----\n").append(tail(f, lines));
        }
        return sb.toString();
    }

    static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static long count(String text, String regex) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(regex);
        return text.lines().filter(l -> p.matcher(l).find()).count();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
