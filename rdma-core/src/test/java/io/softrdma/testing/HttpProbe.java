package io.softrdma.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GETs from a sample application's HTTP port on 127.0.0.1 (Actuator, the samples' own endpoints), for the samples'
 * end-to-end tests. HTTP/1.1 only, without the JDK client's h2c upgrade; a request that times out prints every
 * thread's stack first, to tell a stuck server from a stuck client.
 */
public final class HttpProbe {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private HttpProbe() {
    }

    /** The body of {@code GET http://127.0.0.1:port/path}, which must answer 200 within 30 s. */
    public static String get(int port, String path) throws Exception {
        HttpResponse<String> r;
        try {
            r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            Thread.getAllStackTraces().forEach((t, stack) -> {
                System.out.println("thread " + t.getName() + " " + t.getState());
                for (StackTraceElement f : stack) {
                    System.out.println("    at " + f);
                }
            });
            throw e;
        }
        assertThat(r.statusCode()).as("GET %s", path).isEqualTo(200);
        return r.body();
    }

    /** The value of {@code series} (name and tags, as printed) in a Prometheus scrape. */
    public static double sample(String prometheus, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(prometheus);
        assertThat(m.find()).as("series %s in /actuator/prometheus", series).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
