package io.softrdma.samples.remotememory;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.testing.Snippets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README shows the sample's code and configuration as they are: its examples are regions of the sources. */
class ReadmeTest {
    private static final Path README = Path.of("README.md");

    @Test
    void theReadmesJavaExamplesAreRegionsOfTheSources() {
        var regions = Snippets.regions(List.of(Path.of("src/main/java")));
        assertThat(Snippets.markdownExamples(README)).as("Java examples in the README").hasSize(4);
        assertThat(Snippets.undocumented(List.of(README), regions))
                .as("README examples that no // tag:: region of the sample's sources holds word for word").isEmpty();
    }

    @Test
    void theReadmesYamlIsWhatTheSampleRunsWith() throws Exception {
        String application = Files.readString(Path.of("src/main/resources/application.yaml"));
        List<String> yaml = blocks(Files.readString(README), "yaml");
        assertThat(yaml).as("```yaml blocks").hasSize(2);
        for (String block : yaml) {
            assertThat(application).as("application.yaml").contains(block.strip());
        }
    }

    private static List<String> blocks(String markdown, String language) {
        Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}
