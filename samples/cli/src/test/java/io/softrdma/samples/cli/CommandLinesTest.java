package io.softrdma.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

class CommandLinesTest {
    @Command(name = "demo", customSynopsis = "demo [options]")
    static final class Demo {
        @Option(names = "--port", paramLabel = "P", description = "the port")
        String port;
        @Option(names = "--alpha", paramLabel = "A", description = "declared after --port")
        String alpha;
        @Option(names = {"-v", "--verbose"}, description = "say more")
        boolean verbose;
        @Option(names = "-a", paramLabel = "ADDR", description = "an address")
        String address;
    }

    private static Demo parse(String optionPrefix, String... args) {
        Demo demo = new Demo();
        CommandLines.parse(CommandLines.create(demo), args, optionPrefix);
        return demo;
    }

    @Test
    void theLastOfARepeatedOptionCounts() {
        assertThat(parse("--", "--port", "1", "--port=2").port).isEqualTo("2");
    }

    @Test
    void anAtSignIsAnArgumentNotAFile() {
        assertThatThrownBy(() -> parse("--", "@args.txt")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unexpected argument @args.txt (options start with --)");
    }

    @Test
    void aStrayArgumentNamesTheOptionPrefix() {
        assertThatThrownBy(() -> parse("-", "x")).hasMessage("unexpected argument x (options start with -)");
        assertThatThrownBy(() -> parse("--", "x")).hasMessage("unexpected argument x (options start with --)");
    }

    @Test
    void anUnknownOptionIsNamedWithoutItsValue() {
        assertThatThrownBy(() -> parse("--", "--bogus=3")).hasMessage("unknown option --bogus");
        assertThatThrownBy(() -> parse("-", "-x")).hasMessage("unknown option -x");
    }

    @Test
    void aMissingValueNamesTheOption() {
        assertThatThrownBy(() -> parse("--", "--port")).hasMessage("--port needs a value")
                .hasCauseInstanceOf(CommandLine.MissingParameterException.class);
        assertThatThrownBy(() -> parse("--", "-v", "--verbose", "-a")).hasMessage("-a needs a value");
    }

    @Test
    void otherMistakesAreWordedByPicocli() {
        CommandLine.ParameterException e = new CommandLine.ParameterException(CommandLines.create(new Demo()),
                "something else");
        assertThat(CommandLines.problem(e, "--")).isEqualTo("something else");
    }

    @Test
    void rejectRepeatedNamesAnOptionWithAValueGivenTwice() {
        CommandLine cl = CommandLines.create(new Demo());
        assertThatThrownBy(() -> CommandLines.rejectRepeated(CommandLines.parse(cl, new String[] {"--port", "1",
            "--port=2"}, "--"))).isInstanceOf(IllegalArgumentException.class).hasMessage("--port is given twice");
    }

    @Test
    void rejectRepeatedLetsFlagsRepeat() {
        CommandLine cl = CommandLines.create(new Demo());
        CommandLines.rejectRepeated(CommandLines.parse(cl, new String[] {"-v", "--verbose", "--port", "1"}, "--"));
        assertThat(cl.<Demo>getCommand().verbose).isTrue();
    }

    @Test
    void theUsageTextKeepsTheDeclaredOrderAtOneHundredColumns() {
        String usage = CommandLines.usage(CommandLines.create(new Demo()));
        assertThat(usage).startsWith("usage: demo [options]\n\n");
        assertThat(usage).contains("--port P").contains("--alpha A").doesNotContain("--port=P");
        assertThat(usage.indexOf("--port")).isLessThan(usage.indexOf("--alpha"));
        assertThat(usage.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(100));
        CommandLine wide = CommandLines.create(new Demo());
        assertThat(wide.getUsageHelpWidth()).isEqualTo(CommandLines.USAGE_WIDTH);
    }

    @Test
    void theUsageSeparatorLeavesParsingAlone() {
        CommandLine forParsing = CommandLines.create(new Demo());
        CommandLines.usage(CommandLines.create(new Demo()));
        assertThat(forParsing.getSeparator()).isEqualTo("=");
    }

    @Test
    void helpIsAskedForWithDashHOrDashDashHelpAnywhere() {
        assertThat(CommandLines.wantsHelp(new String[] {"--port", "1", "--help"})).isTrue();
        assertThat(CommandLines.wantsHelp(new String[] {"-h"})).isTrue();
        assertThat(CommandLines.wantsHelp(new String[] {"--helpme", "-hv"})).isFalse();
        assertThat(CommandLines.wantsHelp(new String[0])).isFalse();
    }
}
