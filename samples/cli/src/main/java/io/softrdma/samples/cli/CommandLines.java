package io.softrdma.samples.cli;

import java.util.HashSet;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The samples' picocli command lines, set up and read alike. A sample declares its options on a command object
 * whose fields keep the values as given (strings), has {@link #parse} fill it, and checks the values itself with
 * messages that name the option and its fix; picocli's own mistakes are worded the same way by {@link #problem},
 * so that a sample's {@code main} prints any of them as one line above the usage text.
 *
 * <p>Thread safety: stateless; a {@link CommandLine} it makes is not for concurrent use.
 */
public final class CommandLines {
    /** The usage text's width in columns. */
    public static final int USAGE_WIDTH = 100;

    private CommandLines() {
    }

    /**
     * A command line for {@code command}, an {@code @Command} object: the last of a repeated option counts (see
     * {@link #rejectRepeated} for the strict way), an argument starting with {@code @} is an argument rather than a
     * file of arguments, and the usage text starts {@code "usage: "}, lists the options in the order declared after
     * a blank line, and is {@value #USAGE_WIDTH} columns wide.
     */
    public static CommandLine create(Object command) {
        CommandLine commandLine = new CommandLine(command).setOverwrittenOptionsAllowed(true).setExpandAtFiles(false);
        commandLine.getCommandSpec().usageMessage().synopsisHeading("usage: ").optionListHeading("%n")
                .sortOptions(false).width(USAGE_WIDTH);
        return commandLine;
    }

    /**
     * The usage text of {@code commandLine}, without colours, each option shown with its value after a space
     * ({@code --port P}). Call it on a command line of its own: the separator it sets would also be the one
     * parsing expects.
     */
    public static String usage(CommandLine commandLine) {
        return commandLine.setSeparator(" ").getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /**
     * Parses {@code args} into {@code commandLine}'s command object.
     *
     * @param optionPrefix how the sample's options start ({@code "-"} or {@code "--"}), for the hint after a stray
     *     argument
     * @throws IllegalArgumentException worded by {@link #problem}, with picocli's exception as its cause
     */
    public static ParseResult parse(CommandLine commandLine, String[] args, String optionPrefix) {
        try {
            return commandLine.parseArgs(args);
        } catch (ParameterException e) {
            throw new IllegalArgumentException(problem(e, optionPrefix), e);
        }
    }

    /**
     * A mistake picocli found, said the way the samples' own checks say theirs: {@code unknown option --x} (without
     * any {@code =value}), {@code unexpected argument x (options start with --)}, {@code --x needs a value};
     * anything else as picocli words it.
     *
     * @param optionPrefix how the sample's options start ({@code "-"} or {@code "--"})
     */
    public static String problem(ParameterException e, String optionPrefix) {
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String a = u.getUnmatched().get(0);
            return a.startsWith("-") ? "unknown option " + a.split("=", 2)[0]
                    : "unexpected argument " + a + " (options start with " + optionPrefix + ")";
        }
        if (e instanceof CommandLine.MissingParameterException m && !m.getMissing().isEmpty()
                && m.getMissing().get(0) instanceof OptionSpec o) {
            return o.longestName() + " needs a value";
        }
        return e.getMessage();
    }

    /**
     * Refuses an option that takes a value and was given more than once, for a command line on which each may be
     * given once ({@link #create} lets repeats through, so that this can name the option). Flags may repeat.
     *
     * @throws IllegalArgumentException {@code --x is given twice}
     */
    public static void rejectRepeated(ParseResult parsed) {
        Set<String> seen = new HashSet<>();
        for (ArgSpec arg : parsed.matchedArgs()) {
            if (arg instanceof OptionSpec o && o.arity().max() > 0 && !seen.add(o.longestName())) {
                throw new IllegalArgumentException(o.longestName() + " is given twice");
            }
        }
    }

    /**
     * Whether {@code args} ask for the usage text: {@code --help} or {@code -h} anywhere, whatever else is wrong
     * with them.
     */
    public static boolean wantsHelp(String[] args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }
}
