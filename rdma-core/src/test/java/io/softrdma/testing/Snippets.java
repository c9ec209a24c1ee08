package io.softrdma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Code examples in documentation, and the test code they are copied from: a test marks the lines an example shows
 * with {@code // tag::name[]} and {@code // end::name[]} (the Asciidoctor convention), so the example compiles and
 * runs with the test, and {@link #undocumented} finds every example in Markdown ({@code ```java} blocks) and Javadoc
 * ({@code <pre>{@code ...}</pre>}) that no such region holds word for word.
 */
public final class Snippets {
    private static final Pattern TAG = Pattern.compile("^\\s*//\\s*tag::([\\w.-]+)\\[]");
    private static final Pattern MARKDOWN = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern JAVADOC = Pattern.compile("<pre>\\{@code\\n(.*?)}</pre>", Pattern.DOTALL);

    private Snippets() {
    }

    /** Every tagged region in the {@code .java} files under {@code roots}, by name, normalised. */
    public static Map<String, String> regions(List<Path> roots) {
        Map<String, String> regions = new LinkedHashMap<>();
        for (Path root : roots) {
            for (Path file : files(root, ".java")) {
                List<String> lines = lines(file);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = TAG.matcher(lines.get(i));
                    if (m.find()) {
                        String name = m.group(1);
                        List<String> body = new ArrayList<>();
                        int j = i + 1;
                        while (j < lines.size() && !lines.get(j).contains("end::" + name + "[]")) {
                            body.add(lines.get(j++));
                        }
                        if (j == lines.size()) {
                            throw new IllegalStateException(file + ": tag::" + name + "[] has no end::" + name + "[]");
                        }
                        if (regions.put(name, normalise(String.join("\n", body))) != null) {
                            throw new IllegalStateException("two regions are named " + name + " (one in " + file + ")");
                        }
                    }
                }
            }
        }
        return regions;
    }

    /** The {@code ```java} blocks of a Markdown file, normalised. */
    public static List<String> markdownExamples(Path markdown) {
        return all(MARKDOWN, String.join("\n", lines(markdown)) + "\n", false);
    }

    /** The {@code <pre>{@code ...}</pre>} blocks of a Java source's comments, normalised. */
    public static List<String> javadocExamples(Path source) {
        return all(JAVADOC, String.join("\n", lines(source)), true);
    }

    /**
     * The examples of {@code documents} (Markdown or Java files) that no region holds, each with its file: empty when
     * every example is tested.
     */
    public static List<String> undocumented(List<Path> documents, Map<String, String> regions) {
        List<String> missing = new ArrayList<>();
        for (Path doc : documents) {
            List<String> examples = doc.toString().endsWith(".md") ? markdownExamples(doc) : javadocExamples(doc);
            for (String example : examples) {
                if (!regions.containsValue(example)) {
                    missing.add(doc + ":\n" + example);
                }
            }
        }
        return missing;
    }

    /** The files under {@code root} whose names end with {@code suffix}, outside build output. */
    public static List<Path> files(Path root, String suffix) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> p.toString().endsWith(suffix) && !p.toString().contains("/target/"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Trailing blanks off every line, the common indentation off all, blank lines off both ends. */
    static String normalise(String text) {
        List<String> lines = new ArrayList<>(text.lines().map(String::stripTrailing).toList());
        while (!lines.isEmpty() && lines.get(0).isEmpty()) {
            lines.remove(0);
        }
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        int indent = lines.stream().filter(l -> !l.isEmpty()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        return String.join("\n", lines.stream().map(l -> l.isEmpty() ? l : l.substring(indent)).toList());
    }

    private static List<String> all(Pattern pattern, String text, boolean javadoc) {
        List<String> found = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            String block = m.group(1);
            if (javadoc) {
                block = String.join("\n", block.lines().map(l -> l.replaceFirst("^\\s*\\* ?", "")).toList());
                block = block.replace("&#64;", "@");
            }
            found.add(normalise(block));
        }
        return found;
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
